//! Resources: the `!dx.resources` records, resource properties (`annotateHandle`) and
//! binding constants (`createHandleFromBinding`).

use dxil_module::{ConstData, GlobalId, MdId, Module, TypeData, TypeId, Value, ValueRef};
use serde::Serialize;

use crate::enums::{
    ComponentType, ResourceClass, ResourceKind, SamplerFeedbackType, SamplerKind, hlsl_type_name,
};
use crate::error::{ErrorKind, Result};
use crate::md::{Md, Node};
use crate::module::RawProperty;
use crate::ser;

/// Resource extended-property tags (`kDxil*Tag` in `DxilMetadataHelper.h`).
pub mod tag {
    pub const ELEMENT_TYPE: u32 = 0;
    pub const STRUCTURE_STRIDE: u32 = 1;
    pub const SAMPLER_FEEDBACK_KIND: u32 = 2;
    pub const ATOMIC64_USE: u32 = 3;
    pub const REORDER_COHERENT: u32 = 4;
}

/// Range size that marks an unbounded range (`UINT_MAX`).
pub const UNBOUNDED: u32 = u32::MAX;

/// What the record's symbol operand is. In the final DXIL part reflection is stripped and it
/// is `undef`; libraries and the reflection part keep the global variable, often behind a
/// constant `bitcast`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ResourceSymbol {
    /// The operand is null.
    None,
    Undef,
    Global {
        #[serde(serialize_with = "ser::global")]
        id: GlobalId,
        name: String,
    },
    /// Another constant.
    Other,
}

impl ResourceSymbol {
    pub fn global(&self) -> Option<GlobalId> {
        match self {
            ResourceSymbol::Global { id, .. } => Some(*id),
            _ => None,
        }
    }
}

/// The class-specific fields of a resource record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ClassFields {
    Srv {
        sample_count: u32,
    },
    Uav {
        globally_coherent: bool,
        has_counter: bool,
        rasterizer_ordered: bool,
    },
    CBuffer {
        size_in_bytes: u32,
    },
    Sampler {
        sampler_kind: SamplerKind,
    },
}

/// The extended properties of a resource record (the trailing tag/value node).
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct ResourceTags {
    /// Tag 0: component type of a typed resource.
    pub element_type: Option<ComponentType>,
    /// Tag 1: stride of a structured buffer, in bytes.
    pub structure_stride: Option<u32>,
    /// Tag 2: sampler feedback kind of a feedback texture.
    pub sampler_feedback: Option<SamplerFeedbackType>,
    /// Tag 3: 64-bit atomics are used on the resource.
    pub atomic64_use: Option<bool>,
    /// Tag 4: `reordercoherent` (SM 6.9).
    pub reorder_coherent: Option<bool>,
    /// Tags this crate does not know, in order.
    pub unknown: Vec<RawProperty>,
}

/// One `!dx.resources` record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Resource {
    pub class: ResourceClass,
    /// Field 0: the range ID that `createHandle` refers to (unique per class).
    pub id: u32,
    pub symbol: ResourceSymbol,
    /// Type of the symbol operand: a pointer to the resource type (an array of it for ranges).
    #[serde(serialize_with = "ser::opt_type")]
    pub symbol_ty: Option<TypeId>,
    /// The resource's element type, when the symbol's type reveals it: the first member of the
    /// resource struct (`<4 x float>` for `Texture2D<float4>`, the structure of a
    /// `StructuredBuffer<S>`). `None` for constant buffers and samplers.
    #[serde(serialize_with = "ser::opt_type")]
    pub element_ty: Option<TypeId>,
    /// The HLSL name (`""` when reflection was stripped).
    pub name: String,
    pub space: u32,
    pub lower_bound: u32,
    /// Number of registers; [`UNBOUNDED`] for an unbounded range.
    pub range_size: u32,
    /// The shape; `CBuffer` and `Sampler` for those classes.
    pub kind: ResourceKind,
    pub fields: ClassFields,
    pub tags: ResourceTags,
    #[serde(serialize_with = "ser::md")]
    pub node: MdId,
}

impl Resource {
    pub fn is_unbounded(&self) -> bool {
        self.range_size == UNBOUNDED
    }

    /// The last register of the range; `u32::MAX` for unbounded ranges (the form
    /// `%dx.types.ResBind` and PSV0 use).
    pub fn upper_bound(&self) -> u32 {
        if self.is_unbounded() {
            UNBOUNDED
        } else {
            self.lower_bound
                .saturating_add(self.range_size.saturating_sub(1))
        }
    }

    /// Whether register `index` of the resource's space lies in the range.
    pub fn contains(&self, index: u32) -> bool {
        index >= self.lower_bound && index <= self.upper_bound()
    }

    pub fn has_counter(&self) -> bool {
        matches!(
            self.fields,
            ClassFields::Uav {
                has_counter: true,
                ..
            }
        )
    }

    pub fn is_rasterizer_ordered(&self) -> bool {
        matches!(
            self.fields,
            ClassFields::Uav {
                rasterizer_ordered: true,
                ..
            }
        )
    }

    pub fn is_globally_coherent(&self) -> bool {
        matches!(
            self.fields,
            ClassFields::Uav {
                globally_coherent: true,
                ..
            }
        )
    }

    pub fn sampler_kind(&self) -> Option<SamplerKind> {
        match self.fields {
            ClassFields::Sampler { sampler_kind } => Some(sampler_kind),
            _ => None,
        }
    }

    /// The HLSL object name (`RWStructuredBuffer`, `Texture2D`, `cbuffer`, ...).
    pub fn hlsl_type_name(&self) -> &'static str {
        hlsl_type_name(
            self.class,
            self.kind,
            self.is_rasterizer_ordered(),
            self.sampler_kind() == Some(SamplerKind::Comparison),
        )
    }

    /// The HLSL binding, e.g. `t3`, `u0,space1`.
    pub fn binding_name(&self) -> String {
        let letter = self.class.register_letter().unwrap_or('?');
        if self.space == 0 {
            format!("{letter}{}", self.lower_bound)
        } else {
            format!("{letter}{},space{}", self.lower_bound, self.space)
        }
    }

    /// Number of components of a typed resource's element (`4` for `float4`), 0 when unknown.
    pub fn component_count(&self, module: &Module) -> u32 {
        let Some(t) = self.element_ty else { return 0 };
        match module.types.data(t) {
            TypeData::Vector { len, .. } => *len,
            TypeData::Int(_) | TypeData::Half | TypeData::Float | TypeData::Double => 1,
            _ => 0,
        }
    }

    /// The properties DXC derives from the record (`loadPropsFromResourceBase`): what an
    /// `annotateHandle` of this resource carries. The component count comes from
    /// [`Resource::element_ty`] and is 0 when the symbol's type does not reveal it.
    pub fn properties(&self, module: &Module) -> ResourceProperties {
        let mut w0 = 0u32;
        let mut w1 = 0u32;
        let mut kind = self.kind.raw() & 0xff;
        let set_shape = |w1: &mut u32| match self.kind {
            ResourceKind::FeedbackTexture2D | ResourceKind::FeedbackTexture2DArray => {
                *w1 = self.tags.sampler_feedback.map_or(0, |f| f.raw());
            }
            ResourceKind::StructuredBuffer => {
                *w1 = self.tags.structure_stride.unwrap_or(0);
            }
            k if is_typed(k) => {
                let comp = self.tags.element_type.map_or(0, |c| c.raw()) & 0xff;
                let count = self.component_count(module) & 0xff;
                let samples = match self.fields {
                    ClassFields::Srv { sample_count } => sample_count & 0xff,
                    _ => 0,
                };
                *w1 = comp | count << 8 | samples << 16;
            }
            _ => {}
        };
        match &self.fields {
            ClassFields::Srv { .. } => set_shape(&mut w1),
            ClassFields::Uav {
                globally_coherent,
                has_counter,
                rasterizer_ordered,
            } => {
                w0 |= props::UAV;
                if *globally_coherent {
                    w0 |= props::GLOBALLY_COHERENT;
                }
                if *has_counter {
                    w0 |= props::CMP_OR_COUNTER;
                }
                if *rasterizer_ordered {
                    w0 |= props::ROV;
                }
                if self.tags.reorder_coherent == Some(true) {
                    w0 |= props::REORDER_COHERENT;
                }
                set_shape(&mut w1);
            }
            ClassFields::Sampler { sampler_kind } => match sampler_kind {
                SamplerKind::Comparison => w0 |= props::CMP_OR_COUNTER,
                SamplerKind::Invalid => kind = 0,
                _ => {}
            },
            ClassFields::CBuffer { size_in_bytes } => w1 = *size_in_bytes,
        }
        ResourceProperties::from_words(w0 | kind, w1)
    }
}

fn is_typed(kind: ResourceKind) -> bool {
    matches!(kind.raw(), 1..=10)
}

/// A reference to a resource record: its class and position in that class's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ResourceRef {
    pub class: ResourceClass,
    pub index: u32,
}

/// The four resource lists of `!dx.resources`.
#[derive(Clone, Debug, PartialEq, Default, Serialize)]
pub struct Resources {
    pub srvs: Vec<Resource>,
    pub uavs: Vec<Resource>,
    pub cbuffers: Vec<Resource>,
    pub samplers: Vec<Resource>,
    /// The `!{SRVs, UAVs, CBVs, Samplers}` tuple.
    #[serde(serialize_with = "ser::opt_md")]
    pub node: Option<MdId>,
}

impl Resources {
    pub fn list(&self, class: ResourceClass) -> &[Resource] {
        match class {
            ResourceClass::SRV => &self.srvs,
            ResourceClass::UAV => &self.uavs,
            ResourceClass::CBuffer => &self.cbuffers,
            ResourceClass::Sampler => &self.samplers,
            ResourceClass::Invalid | ResourceClass::Other(_) => &[],
        }
    }

    fn list_mut(&mut self, class: ResourceClass) -> Option<&mut Vec<Resource>> {
        match class {
            ResourceClass::SRV => Some(&mut self.srvs),
            ResourceClass::UAV => Some(&mut self.uavs),
            ResourceClass::CBuffer => Some(&mut self.cbuffers),
            ResourceClass::Sampler => Some(&mut self.samplers),
            ResourceClass::Invalid | ResourceClass::Other(_) => None,
        }
    }

    /// Every record: SRVs, UAVs, CBVs, then samplers.
    pub fn iter(&self) -> impl Iterator<Item = (ResourceRef, &Resource)> {
        ResourceClass::ALL.into_iter().flat_map(move |class| {
            self.list(class).iter().enumerate().map(move |(i, r)| {
                (
                    ResourceRef {
                        class,
                        index: i as u32,
                    },
                    r,
                )
            })
        })
    }

    pub fn len(&self) -> usize {
        self.srvs.len() + self.uavs.len() + self.cbuffers.len() + self.samplers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, r: ResourceRef) -> Option<&Resource> {
        self.list(r.class).get(r.index as usize)
    }

    /// The record whose range ID (field 0) is `id`, as `createHandle` names it.
    pub fn find_by_id(&self, class: ResourceClass, id: u32) -> Option<ResourceRef> {
        let list = self.list(class);
        // Range IDs are normally the list positions; check that first.
        let pos = match list.get(id as usize) {
            Some(r) if r.id == id => Some(id as usize),
            _ => list.iter().position(|r| r.id == id),
        }?;
        Some(ResourceRef {
            class,
            index: pos as u32,
        })
    }

    /// The record of a binding range, as `createHandleFromBinding` names it: the record with
    /// exactly this range, else the one whose range contains it.
    pub fn find_by_binding(&self, bind: &ResBind) -> Option<ResourceRef> {
        let list = self.list(bind.class);
        let exact = list.iter().position(|r| {
            r.space == bind.space
                && r.lower_bound == bind.lower_bound
                && r.upper_bound() == bind.upper_bound
        });
        let pos = exact.or_else(|| {
            list.iter().position(|r| {
                r.space == bind.space
                    && r.contains(bind.lower_bound)
                    && r.contains(bind.upper_bound)
            })
        })?;
        Some(ResourceRef {
            class: bind.class,
            index: pos as u32,
        })
    }

    /// The record whose symbol is global `g` (libraries: `createHandleForLib`).
    pub fn find_by_global(&self, g: GlobalId) -> Option<ResourceRef> {
        self.iter()
            .find(|(_, r)| r.symbol.global() == Some(g))
            .map(|(r, _)| r)
    }
}

/// Bits of the first `%dx.types.ResourceProperties` word.
pub mod props {
    pub const KIND_MASK: u32 = 0xff;
    pub const BASE_ALIGN_SHIFT: u32 = 8;
    pub const UAV: u32 = 1 << 12;
    pub const ROV: u32 = 1 << 13;
    pub const GLOBALLY_COHERENT: u32 = 1 << 14;
    /// Sampler: comparison sampler; UAV: has a counter.
    pub const CMP_OR_COUNTER: u32 = 1 << 15;
    pub const REORDER_COHERENT: u32 = 1 << 16;
}

/// The two words of a `%dx.types.ResourceProperties` constant (`annotateHandle`), decoded on
/// demand (`DxilResourceProperties`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ResourceProperties {
    pub raw: [u32; 2],
}

impl ResourceProperties {
    pub const fn from_words(w0: u32, w1: u32) -> ResourceProperties {
        ResourceProperties { raw: [w0, w1] }
    }

    pub fn kind(&self) -> ResourceKind {
        ResourceKind::from_raw(self.raw[0] & props::KIND_MASK)
    }

    fn bit(&self, mask: u32) -> bool {
        self.raw[0] & mask != 0
    }

    pub fn is_valid(&self) -> bool {
        self.kind() != ResourceKind::Invalid
    }

    /// The class the properties imply (`getResourceClass`).
    pub fn class(&self) -> ResourceClass {
        match self.kind() {
            ResourceKind::Invalid => ResourceClass::Invalid,
            ResourceKind::CBuffer => ResourceClass::CBuffer,
            ResourceKind::Sampler => ResourceClass::Sampler,
            _ if self.is_uav() => ResourceClass::UAV,
            _ => ResourceClass::SRV,
        }
    }

    /// log2 of the base alignment of the buffer, 0 when unknown.
    pub fn base_align_log2(&self) -> u32 {
        self.raw[0] >> props::BASE_ALIGN_SHIFT & 0xf
    }

    pub fn is_uav(&self) -> bool {
        self.bit(props::UAV)
    }

    pub fn is_rov(&self) -> bool {
        self.bit(props::ROV)
    }

    pub fn is_globally_coherent(&self) -> bool {
        self.bit(props::GLOBALLY_COHERENT)
    }

    pub fn is_reorder_coherent(&self) -> bool {
        self.bit(props::REORDER_COHERENT)
    }

    /// A UAV with a hidden counter.
    pub fn has_counter(&self) -> bool {
        self.is_uav() && self.bit(props::CMP_OR_COUNTER)
    }

    /// A comparison sampler.
    pub fn is_comparison_sampler(&self) -> bool {
        self.kind() == ResourceKind::Sampler && self.bit(props::CMP_OR_COUNTER)
    }

    /// Component type of a typed resource (textures and typed buffers).
    pub fn component_type(&self) -> Option<ComponentType> {
        is_typed(self.kind()).then(|| ComponentType::from_raw(self.raw[1] & 0xff))
    }

    /// Component count of a typed resource.
    pub fn component_count(&self) -> Option<u32> {
        is_typed(self.kind()).then_some(self.raw[1] >> 8 & 0xff)
    }

    /// Sample count of a typed resource (multisampled textures).
    pub fn sample_count(&self) -> Option<u32> {
        is_typed(self.kind()).then_some(self.raw[1] >> 16 & 0xff)
    }

    pub fn structure_stride(&self) -> Option<u32> {
        (self.kind() == ResourceKind::StructuredBuffer).then_some(self.raw[1])
    }

    pub fn cbuffer_size(&self) -> Option<u32> {
        (self.kind() == ResourceKind::CBuffer).then_some(self.raw[1])
    }

    pub fn sampler_feedback(&self) -> Option<SamplerFeedbackType> {
        matches!(
            self.kind(),
            ResourceKind::FeedbackTexture2D | ResourceKind::FeedbackTexture2DArray
        )
        .then(|| SamplerFeedbackType::from_raw(self.raw[1]))
    }

    /// The HLSL object name the properties describe.
    pub fn hlsl_type_name(&self) -> &'static str {
        hlsl_type_name(
            self.class(),
            self.kind(),
            self.is_rov(),
            self.is_comparison_sampler(),
        )
    }

    /// Decodes a `%dx.types.ResourceProperties` constant: `{ i32, i32 }` or
    /// `zeroinitializer`.
    pub fn from_constant(module: &Module, v: Value) -> Option<ResourceProperties> {
        let [w0, w1] = const_words::<2>(module, v)?;
        Some(ResourceProperties::from_words(w0 as u32, w1 as u32))
    }
}

impl Serialize for ResourceProperties {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct View {
            raw: [u32; 2],
            class: ResourceClass,
            kind: ResourceKind,
            hlsl_type: &'static str,
            uav: bool,
            rov: bool,
            globally_coherent: bool,
            reorder_coherent: bool,
            has_counter: bool,
            comparison_sampler: bool,
            base_align_log2: u32,
            component_type: Option<ComponentType>,
            component_count: Option<u32>,
            sample_count: Option<u32>,
            structure_stride: Option<u32>,
            cbuffer_size: Option<u32>,
            sampler_feedback: Option<SamplerFeedbackType>,
        }
        View {
            raw: self.raw,
            class: self.class(),
            kind: self.kind(),
            hlsl_type: self.hlsl_type_name(),
            uav: self.is_uav(),
            rov: self.is_rov(),
            globally_coherent: self.is_globally_coherent(),
            reorder_coherent: self.is_reorder_coherent(),
            has_counter: self.has_counter(),
            comparison_sampler: self.is_comparison_sampler(),
            base_align_log2: self.base_align_log2(),
            component_type: self.component_type(),
            component_count: self.component_count(),
            sample_count: self.sample_count(),
            structure_stride: self.structure_stride(),
            cbuffer_size: self.cbuffer_size(),
            sampler_feedback: self.sampler_feedback(),
        }
        .serialize(s)
    }
}

/// A `%dx.types.ResBind` constant: the binding range of `createHandleFromBinding`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ResBind {
    pub lower_bound: u32,
    /// Last register; `u32::MAX` for unbounded.
    pub upper_bound: u32,
    pub space: u32,
    pub class: ResourceClass,
}

impl ResBind {
    /// Decodes `{ i32 lower, i32 upper, i32 space, i8 class }` (or `zeroinitializer`).
    pub fn from_constant(module: &Module, v: Value) -> Option<ResBind> {
        let [lower, upper, space, class] = const_words::<4>(module, v)?;
        Some(ResBind {
            lower_bound: lower as u32,
            upper_bound: upper as u32,
            space: space as u32,
            class: ResourceClass::from_raw((class & 0xff) as u32),
        })
    }
}

/// The integer fields of a small constant struct, zero-extended to their widths.
fn const_words<const N: usize>(module: &Module, v: Value) -> Option<[u64; N]> {
    let c = module.constants.get(v.as_const()?)?;
    let mut out = [0u64; N];
    match &c.data {
        ConstData::Null => {}
        ConstData::Aggregate(r) => {
            let elems = module.constants.values_of(*r);
            if elems.len() != N {
                return None;
            }
            for (slot, e) in out.iter_mut().zip(elems) {
                let ec = module.constants.get(e.as_const()?)?;
                let width = module.types.int_width(ec.ty)?;
                let x = match ec.data {
                    ConstData::Int(x) => x,
                    ConstData::Null => 0,
                    // DXC treats undef fields as zero.
                    ConstData::Undef => 0,
                    _ => return None,
                };
                *slot = if width >= 64 {
                    x as u64
                } else {
                    (x as u64) & ((1u64 << width) - 1)
                };
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Reads `!dx.resources`' tuple `!{SRVs, UAVs, CBVs, Samplers}`.
pub(crate) fn read_resources(md: Md<'_>, tuple: MdId) -> Result<Resources> {
    let node = md.node(tuple, "dx.resources tuple")?;
    if node.len() != 4 {
        return Err(node.node_error(
            ErrorKind::Malformed,
            format!(
                "{} operands, expected 4 (SRVs, UAVs, CBVs, samplers)",
                node.len()
            ),
        ));
    }
    let mut out = Resources {
        node: Some(tuple),
        ..Resources::default()
    };
    for (i, class) in ResourceClass::ALL.into_iter().enumerate() {
        let (field, context) = match class {
            ResourceClass::SRV => ("SRVs", "dx.resources SRV record"),
            ResourceClass::UAV => ("UAVs", "dx.resources UAV record"),
            ResourceClass::CBuffer => ("CBVs", "dx.resources CBV record"),
            _ => ("samplers", "dx.resources sampler record"),
        };
        let Some(list) = node.node_at(i, field, "dx.resources list")? else {
            continue;
        };
        let mut records = Vec::with_capacity(list.len());
        for (j, op) in list.ops().enumerate() {
            let id = op.ok_or_else(|| {
                list.error(ErrorKind::Malformed, format!("record {j}"), "null record")
            })?;
            let rec = md.node(id, context)?;
            records.push(read_record(md, rec, class)?);
        }
        if let Some(slot) = out.list_mut(class) {
            *slot = records;
        }
    }
    Ok(out)
}

fn read_record(md: Md<'_>, n: Node<'_>, class: ResourceClass) -> Result<Resource> {
    let expected = match class {
        ResourceClass::SRV => 9,
        ResourceClass::UAV => 11,
        _ => 8,
    };
    n.expect_len(expected)?;
    let id = n.u32_at(0, "id")?;
    let (symbol, symbol_ty) = read_symbol(md, n.op(1));
    let name = n.string_at(2, "name")?;
    let space = n.u32_at(3, "space")?;
    let lower_bound = n.u32_at(4, "lower bound")?;
    let range_size = n.u32_at(5, "range size")?;
    let (kind, fields, tags_at) = match class {
        ResourceClass::SRV => (
            ResourceKind::from_raw(n.u32_at(6, "shape")?),
            ClassFields::Srv {
                sample_count: n.u32_at(7, "sample count")?,
            },
            8,
        ),
        ResourceClass::UAV => (
            ResourceKind::from_raw(n.u32_at(6, "shape")?),
            ClassFields::Uav {
                globally_coherent: n.bool_at(7, "globally coherent")?,
                has_counter: n.bool_at(8, "has counter")?,
                rasterizer_ordered: n.bool_at(9, "rasterizer ordered")?,
            },
            10,
        ),
        ResourceClass::CBuffer => (
            ResourceKind::CBuffer,
            ClassFields::CBuffer {
                size_in_bytes: n.u32_at(6, "size in bytes")?,
            },
            7,
        ),
        _ => (
            ResourceKind::Sampler,
            ClassFields::Sampler {
                sampler_kind: SamplerKind::from_raw(n.u32_at(6, "sampler kind")?),
            },
            7,
        ),
    };
    let tags = match n.node_at(tags_at, "tags", "resource tags")? {
        Some(t) => read_tags(md, t)?,
        None => ResourceTags::default(),
    };
    let element_ty = match class {
        ResourceClass::SRV | ResourceClass::UAV => symbol_ty.and_then(|t| element_type(md, t)),
        _ => None,
    };
    Ok(Resource {
        class,
        id,
        symbol,
        symbol_ty,
        element_ty,
        name,
        space,
        lower_bound,
        range_size,
        kind,
        fields,
        tags,
        node: n.id,
    })
}

fn read_symbol(md: Md<'_>, op: Option<MdId>) -> (ResourceSymbol, Option<TypeId>) {
    let Some((ty, value)) = op.and_then(|id| md.value(id)) else {
        return (ResourceSymbol::None, None);
    };
    let m = md.module;
    let symbol = match strip_to_global(m, value) {
        Some(g) => ResourceSymbol::Global {
            id: g,
            name: m.global(g).map(|g| g.name.clone()).unwrap_or_default(),
        },
        None => match value.as_const().and_then(|c| m.constants.get(c)) {
            Some(c) if c.data == ConstData::Undef => ResourceSymbol::Undef,
            _ => ResourceSymbol::Other,
        },
    };
    (symbol, Some(ty))
}

/// The global a constant pointer expression is based on, through casts and GEPs. Bounded so
/// that a cyclic constant table cannot loop.
pub(crate) fn strip_to_global(m: &Module, mut v: Value) -> Option<GlobalId> {
    for _ in 0..16 {
        match v.get() {
            ValueRef::Global(g) => return Some(g),
            ValueRef::Const(c) => match &m.constants.get(c)?.data {
                ConstData::Cast { value, .. } => v = *value,
                ConstData::Gep { operands, .. } => {
                    v = *m.constants.values_of(*operands).first()?;
                }
                _ => return None,
            },
            _ => return None,
        }
    }
    None
}

/// The resource's element type: pointer → (arrays) → resource struct → its first member.
fn element_type(md: Md<'_>, symbol_ty: TypeId) -> Option<TypeId> {
    let types = &md.module.types;
    let mut t = types.pointee(symbol_ty)?;
    for _ in 0..8 {
        match types.data(t) {
            TypeData::Array { elem, .. } => t = *elem,
            TypeData::Struct { elems, .. } => {
                let first = *elems.first()?;
                // Libraries from SM 6.6 on declare resources as `%dx.types.Handle` globals
                // (`{ i8* }`), which say nothing about the element.
                return (!matches!(types.data(first), TypeData::Pointer { .. })).then_some(first);
            }
            _ => return None,
        }
    }
    None
}

fn read_tags(md: Md<'_>, n: Node<'_>) -> Result<ResourceTags> {
    if !n.len().is_multiple_of(2) {
        return Err(n.node_error(
            ErrorKind::Malformed,
            format!("{} operands: tags and values must pair up", n.len()),
        ));
    }
    let mut t = ResourceTags::default();
    for i in (0..n.len()).step_by(2) {
        let tag = n.u32_at(i, "tag")?;
        match tag {
            tag::ELEMENT_TYPE => {
                t.element_type = Some(ComponentType::from_raw(n.u32_at(i + 1, "element type")?));
            }
            tag::STRUCTURE_STRIDE => {
                t.structure_stride = Some(n.u32_at(i + 1, "structure stride")?);
            }
            tag::SAMPLER_FEEDBACK_KIND => {
                t.sampler_feedback = Some(SamplerFeedbackType::from_raw(
                    n.u32_at(i + 1, "sampler feedback kind")?,
                ));
            }
            tag::ATOMIC64_USE => t.atomic64_use = Some(n.bool_at(i + 1, "atomic64 use")?),
            tag::REORDER_COHERENT => {
                t.reorder_coherent = Some(n.bool_at(i + 1, "reorder coherent")?);
            }
            _ => t.unknown.push(RawProperty::new(md, tag, n.op(i + 1))),
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{Builder, compute_fixture};
    use dxil_module::ConstKey;

    #[test]
    fn properties_decode_every_field() {
        let p = ResourceProperties::from_words(
            3 | 2 << 8
                | props::UAV
                | props::ROV
                | props::GLOBALLY_COHERENT
                | props::REORDER_COHERENT,
            4 | 2 << 8 | 8 << 16,
        );
        assert_eq!(p.kind(), ResourceKind::Texture2DMS);
        assert_eq!(p.class(), ResourceClass::UAV);
        assert!(p.is_uav() && p.is_rov() && p.is_globally_coherent() && p.is_reorder_coherent());
        assert!(!p.has_counter());
        assert_eq!(p.base_align_log2(), 2);
        assert_eq!(p.component_type(), Some(ComponentType::I32));
        assert_eq!((p.component_count(), p.sample_count()), (Some(2), Some(8)));
        assert_eq!(p.structure_stride(), None);
        assert_eq!(p.hlsl_type_name(), "<invalid ROV kind>");

        let sb = ResourceProperties::from_words(12 | props::UAV | props::CMP_OR_COUNTER, 20);
        assert!(sb.has_counter());
        assert_eq!(sb.structure_stride(), Some(20));
        assert_eq!(sb.component_type(), None);
        assert_eq!(sb.hlsl_type_name(), "RWStructuredBuffer");
        let s = ResourceProperties::from_words(14 | props::CMP_OR_COUNTER, 0);
        assert!(s.is_comparison_sampler() && !s.has_counter());
        assert_eq!(s.class(), ResourceClass::Sampler);
        let cb = ResourceProperties::from_words(13, 256);
        assert_eq!(
            (cb.class(), cb.cbuffer_size()),
            (ResourceClass::CBuffer, Some(256))
        );
        let fb = ResourceProperties::from_words(17 | props::UAV, 1);
        assert_eq!(
            fb.sampler_feedback(),
            Some(SamplerFeedbackType::MipRegionUsed)
        );
        assert_eq!(fb.hlsl_type_name(), "FeedbackTexture2D");
        let invalid = ResourceProperties::default();
        assert!(!invalid.is_valid());
        assert_eq!(invalid.class(), ResourceClass::Invalid);
        let json = serde_json::to_value(sb).unwrap();
        assert_eq!(json["structure_stride"], 20);
        assert_eq!(json["hlsl_type"], "RWStructuredBuffer");
    }

    #[test]
    fn constants_decode_as_bindings_and_properties() {
        let mut b = Builder::new();
        let i32t = b.int_ty(32);
        let i8t = b.int_ty(8);
        let bind_ty = b.ty(TypeData::Struct {
            name: None,
            packed: false,
            opaque: false,
            elems: vec![i32t, i32t, i32t, i8t],
        });
        let vals = [
            b.const_int(32, 4),
            b.const_int(32, -1),
            b.const_int(32, 2),
            b.const_int(8, 1),
        ];
        let c = b.constant(bind_ty, ConstKey::Values(0, vals.to_vec(), None));
        assert_eq!(
            ResBind::from_constant(&b.m, c),
            Some(ResBind {
                lower_bound: 4,
                upper_bound: u32::MAX,
                space: 2,
                class: ResourceClass::UAV
            })
        );
        let z = b.constant(bind_ty, ConstKey::Plain(ConstData::Null));
        assert_eq!(
            ResBind::from_constant(&b.m, z).map(|r| r.class),
            Some(ResourceClass::SRV)
        );
        // Wrong arity and non-constants are rejected.
        assert_eq!(ResourceProperties::from_constant(&b.m, c), None);
        assert_eq!(ResBind::from_constant(&b.m, Value::arg(0)), None);
    }

    #[test]
    fn lookups_by_id_binding_and_global() {
        let (b, _) = compute_fixture();
        let d = crate::DxilModule::from_module(&b.m).unwrap();
        let r = &d.resources;
        let uav = ResourceRef {
            class: ResourceClass::UAV,
            index: 0,
        };
        assert_eq!(r.find_by_id(ResourceClass::UAV, 0), Some(uav));
        assert_eq!(r.find_by_id(ResourceClass::UAV, 1), None);
        assert_eq!(r.find_by_id(ResourceClass::Other(7), 0), None);
        let exact = ResBind {
            lower_bound: 1,
            upper_bound: 1,
            space: 2,
            class: ResourceClass::UAV,
        };
        assert_eq!(r.find_by_binding(&exact), Some(uav));
        assert_eq!(r.find_by_binding(&ResBind { space: 0, ..exact }), None);
        // A sub-range of an unbounded range.
        let sub = ResBind {
            lower_bound: 10,
            upper_bound: 12,
            space: 0,
            class: ResourceClass::SRV,
        };
        assert_eq!(
            r.find_by_binding(&sub).map(|x| x.class),
            Some(ResourceClass::SRV)
        );
        assert_eq!(r.find_by_global(GlobalId(0)), None);
        let order: Vec<_> = r.iter().map(|(x, _)| x.class).collect();
        assert_eq!(
            order,
            [
                ResourceClass::SRV,
                ResourceClass::UAV,
                ResourceClass::CBuffer,
                ResourceClass::Sampler
            ]
        );
        assert!(r.get(uav).unwrap().contains(1));
        assert!(!r.get(uav).unwrap().contains(2));
    }

    #[test]
    fn record_tags_decode_and_keep_unknown_ones() {
        let (mut b, fx) = compute_fixture();
        let tags = b.ints(&[0, 5, 2, 1, 3, 1, 4, 1, 42, 9]);
        let mut ops: Vec<_> = b.m.metadata.node_operands(fx.uav).collect();
        ops[10] = Some(tags);
        let rec = b.node(&ops);
        let uavs = b.node(&[Some(rec)]);
        let tuple = b.node(&[None, Some(uavs), None, None]);
        let r = read_resources(Md::new(&b.m), tuple).unwrap();
        let t = &r.uavs[0].tags;
        assert_eq!(t.element_type, Some(ComponentType::U32));
        assert_eq!(t.sampler_feedback, Some(SamplerFeedbackType::MipRegionUsed));
        assert_eq!(
            (t.atomic64_use, t.reorder_coherent),
            (Some(true), Some(true))
        );
        assert_eq!((t.unknown[0].tag, t.unknown[0].int), (42, Some(9)));
        assert!(r.uavs[0].properties(&b.m).is_reorder_coherent());

        let odd = b.ints(&[0]);
        ops[10] = Some(odd);
        let rec = b.node(&ops);
        let uavs = b.node(&[Some(rec)]);
        let tuple = b.node(&[None, Some(uavs), None, None]);
        let e = read_resources(Md::new(&b.m), tuple).unwrap_err();
        assert_eq!(e.node(), Some(odd));
        let short = b.node(&ops[..5]);
        let uavs = b.node(&[Some(short)]);
        let tuple = b.node(&[None, Some(uavs), None, None]);
        let e = read_resources(Md::new(&b.m), tuple).unwrap_err();
        assert_eq!(e.node(), Some(short));
        assert!(e.to_string().contains("5 operands, expected 11"), "{e}");
    }
}
