//! A caller-side binding resolver: the runtime answers, per declared resource, where its descriptor lives, the way a
//! D3D12-on-Vulkan layer describes its root signature to its shader compiler (`binding-model.md` §6 of the design
//! notes: vkd3d-proton's remap callbacks). [`ResolverBindings`] turns such a resolver into the [`BindingModel`] the
//! lowering asks.
//!
//! # The contract
//! * The root block is `[root descriptor addresses][constant words]` ([`RootBlock`]): root descriptor `i`'s 64-bit
//!   address at byte `8·i`, then `constant_words` 32-bit words. Word numbers in answers
//!   ([`Location::Heap::table`], [`CbvMap::RootConstants`]) count from the start of the constant words.
//! * A query ([`ResourceQuery`]) names a declared register range, or a view taken from the SM 6.6 descriptor heap
//!   ([`Registers::DescriptorHeap`]). A range query for an *unbounded* array that the resolver refuses is asked again
//!   as a single register, so that it may bind a root descriptor or a static sampler (every index then reads that one
//!   descriptor, as native drivers do).
//! * An answer is a [`VkBinding`]: a [`Location`] (a fixed binding, an element of a heap array indexed from a table
//!   word, or a root descriptor) and the [`DescriptorKind`] stored there.
//! * Heap views whose start or size Vulkan cannot express exactly read their window from the offset buffer
//!   ([`OffsetBuffer`]): storage-buffer views when the structured stride is not a multiple of
//!   [`HeapConventions::ssbo_alignment`], texel-buffer views when [`HeapConventions::typed_offsets`] is on.
//! * A UAV counter is one of: a table of 64-bit counter addresses indexed like the UAV's heap slot
//!   ([`DescriptorKind::AddressTable`]), or a storage buffer holding one `u32` per UAV at a fixed binding
//!   ([`DescriptorKind::StorageBuffer`]).
//!
//! * An acceleration structure answered as a [`DescriptorKind::StorageBuffer`] (or [`DescriptorKind::AddressTable`])
//!   in a heap is a table of 64-bit addresses indexed like the view's heap slot; the shader converts the address.
//! * A range that a local root signature's table holds ([`crate::LocalRootSignature`]) is asked about with its own
//!   registers; only the set and binding of the heap array in the answer count (the shader record gives the slot).
//!
//! What the translator cannot read (raw and structured views stored as texel buffers, counters as texel buffers,
//! input attachments, counters of root descriptors) fails the translation with [`crate::Error::Binding`] naming the
//! resource, as does a refused query.

use std::fmt;
use std::sync::Arc;

use super::{
    ArraySize, BindingModel, D3dBinding, DescriptorType, OffsetEntry, OffsetKind, Placement,
    RootBlockPlacement, array_size,
};
use crate::dxil::{ResourceClass, ResourceKind, Stage};

/// Which registers a query is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Registers {
    /// A declared range: `count` registers from `register` in `space` (`None`: unbounded).
    Range {
        space: u32,
        register: u32,
        count: Option<u32>,
    },
    /// A view taken from the SM 6.6 descriptor heap (`ResourceDescriptorHeap[i]` / `SamplerDescriptorHeap[i]`): the
    /// answer must be a heap array indexed by the shader's own index (no table word, offset 0).
    DescriptorHeap,
}

/// One resource the shader uses, as the resolver is asked about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResourceQuery {
    pub stage: Stage,
    pub class: ResourceClass,
    pub kind: ResourceKind,
    /// The range id of `dx.resources` (0 for heap views).
    pub resource_index: u32,
    pub registers: Registers,
    /// Raw buffers 16, structured buffers the lowest set bit of the stride, otherwise 0 (also for heap views whose
    /// stride is unknown).
    pub alignment: u32,
    /// UAVs: the shader uses the counter.
    pub has_counter: bool,
}

/// What a binding stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    /// The type the view needs (images, typed buffers, samplers, uniform buffers for CBVs, storage buffers for raw
    /// and structured views).
    Default,
    StorageBuffer,
    TexelBuffer,
    UniformBuffer,
    /// A storage buffer of 64-bit buffer device addresses, one per heap slot (UAV counters).
    AddressTable,
    /// A subpass input (tilers); the attachment index.
    InputAttachment {
        index: u32,
    },
}

/// Where a descriptor lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Location {
    /// A descriptor (an array for ranges of several registers) at (set, binding).
    Fixed { set: u32, binding: u32 },
    /// An element of the heap array at (set, binding): `root constant word [table]` (when a table) + `offset` +
    /// `register − the declaration's first register` (+ the dynamic index).
    Heap {
        set: u32,
        binding: u32,
        table: Option<u32>,
        offset: u32,
    },
    /// Root descriptor `ordinal`: its address is root block bytes `8·ordinal..`.
    RootDescriptor { ordinal: u32 },
}

/// A resolver's answer for one view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VkBinding {
    pub location: Location,
    pub kind: DescriptorKind,
}

/// The offset buffer: a storage buffer `uvec2 e[]` at (set, binding); heap slot `i` has `e[2i]` = (byte offset, byte
/// count) of its storage-buffer view and `e[2i + 1]` = (element offset, element count) of its texel-buffer view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OffsetBuffer {
    pub set: u32,
    pub binding: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SrvMap {
    pub buffer: VkBinding,
    pub offsets: Option<OffsetBuffer>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UavMap {
    pub buffer: VkBinding,
    /// Asked for when [`ResourceQuery::has_counter`].
    pub counter: Option<VkBinding>,
    pub offsets: Option<OffsetBuffer>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CbvMap {
    /// Root constants from constant word `word` of the root block.
    RootConstants {
        word: u32,
    },
    Buffer(VkBinding),
}

/// The runtime's side of the binding contract (see the module docs). `None` refuses the resource; the translation
/// then fails. Implementations must answer the same query the same way.
pub trait BindingResolver: fmt::Debug + Send + Sync {
    fn srv(&self, q: &ResourceQuery) -> Option<SrvMap>;
    fn uav(&self, q: &ResourceQuery) -> Option<UavMap>;
    fn cbv(&self, q: &ResourceQuery) -> Option<CbvMap>;
    fn sampler(&self, q: &ResourceQuery) -> Option<VkBinding>;
}

/// The shape of the root block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RootBlock {
    /// Root descriptors read through addresses at the start of the block.
    pub root_descriptors: u32,
    /// 32-bit words after the addresses (root constants and table offsets).
    pub constant_words: u32,
    /// The block is a uniform buffer at (set, binding) instead of push constants.
    pub uniform_buffer: Option<(u32, u32)>,
}

impl RootBlock {
    pub fn bytes(&self) -> u32 {
        self.root_descriptors
            .saturating_mul(2)
            .saturating_add(self.constant_words)
            .saturating_mul(4)
    }
}

/// How heap views are stored, device-wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HeapConventions {
    /// Storage-buffer descriptors start at multiples of this many bytes: a structured view whose stride is not a
    /// multiple reads its window from the offset buffer. 1 = never.
    pub ssbo_alignment: u32,
    /// Texel-buffer heap views read their window from the offset buffer.
    pub typed_offsets: bool,
    /// CBVs in heaps are storage buffers (devices without uniform-buffer heaps).
    pub cbv_as_ssbo: bool,
    /// Entries of the offset buffer, in `uvec2` units: slot `i`'s storage-buffer window is entry
    /// `stride·i + untyped`, its texel-buffer window entry `stride·i + typed`. The translator reads `(0, 1, 2)`
    /// only; a view that needs another fails.
    pub offset_layout: (u32, u32, u32),
    /// Buffer device addresses may be used (root descriptors, counter address tables).
    pub device_addresses: bool,
}

impl Default for HeapConventions {
    fn default() -> Self {
        HeapConventions {
            ssbo_alignment: 1,
            typed_offsets: false,
            cbv_as_ssbo: false,
            offset_layout: OFFSET_LAYOUT,
            device_addresses: true,
        }
    }
}

/// The offset buffer layout the translator reads (see [`HeapConventions::offset_layout`]).
pub const OFFSET_LAYOUT: (u32, u32, u32) = (0, 1, 2);

/// What the adapter knows of a declared range beyond [`D3dBinding`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RangeInfo {
    pub class: ResourceClass,
    pub range_id: u32,
    /// Structured buffers: the element stride in bytes.
    pub stride: u32,
    pub has_counter: bool,
}

/// A [`BindingResolver`] as the [`BindingModel`] of one shader (its stage and declared ranges fixed).
#[derive(Clone, Debug)]
pub struct ResolverBindings {
    resolver: Arc<dyn BindingResolver>,
    stage: Stage,
    root: RootBlock,
    conventions: HeapConventions,
    ranges: Vec<RangeInfo>,
}

impl ResolverBindings {
    /// `ranges`: the shader's declared ranges (their strides and counter use feed [`ResourceQuery`]).
    pub fn new(
        resolver: Arc<dyn BindingResolver>,
        stage: Stage,
        root: RootBlock,
        conventions: HeapConventions,
        ranges: Vec<RangeInfo>,
    ) -> ResolverBindings {
        ResolverBindings {
            resolver,
            stage,
            root,
            conventions,
            ranges,
        }
    }

    /// The adapter for `module`'s entry point (`entry`: `None` = the first), reading its stage and ranges.
    pub fn for_module(
        resolver: Arc<dyn BindingResolver>,
        module: &dxil_module::Module,
        entry: Option<&str>,
        root: RootBlock,
        conventions: HeapConventions,
    ) -> Result<ResolverBindings, crate::Error> {
        let e = crate::dxil::read_entry(module, entry)?;
        let ranges = e
            .resources
            .iter()
            .map(|r| RangeInfo {
                class: r.class,
                range_id: r.range_id,
                stride: r.stride,
                has_counter: r.has_counter,
            })
            .collect();
        Ok(ResolverBindings::new(
            resolver,
            e.stage,
            root,
            conventions,
            ranges,
        ))
    }

    pub fn root(&self) -> &RootBlock {
        &self.root
    }

    fn info(&self, r: &D3dBinding) -> Option<&RangeInfo> {
        self.ranges
            .iter()
            .find(|i| i.class == r.class && i.range_id == r.range_id)
    }

    fn query(&self, r: &D3dBinding, heap: bool) -> ResourceQuery {
        let info = if heap { None } else { self.info(r) };
        let alignment = match r.kind {
            ResourceKind::RawBuffer => 16,
            ResourceKind::StructuredBuffer => {
                let stride = info.map_or(0, |i| i.stride);
                stride & stride.wrapping_neg()
            }
            _ => 0,
        };
        ResourceQuery {
            stage: self.stage,
            class: r.class,
            kind: r.kind,
            resource_index: if heap { 0 } else { r.range_id },
            registers: if heap {
                Registers::DescriptorHeap
            } else {
                Registers::Range {
                    space: r.space,
                    register: r.register,
                    count: (r.count != u32::MAX).then_some(r.count.max(1)),
                }
            },
            alignment,
            has_counter: r.class == ResourceClass::Uav && info.is_some_and(|i| i.has_counter),
        }
    }

    /// Asks the resolver, with the single-register retry for unbounded ranges; the flag says the answer is for a
    /// single register.
    fn ask<T>(
        &self,
        q: ResourceQuery,
        f: impl Fn(&dyn BindingResolver, &ResourceQuery) -> Option<T>,
    ) -> Option<(T, bool)> {
        if let Some(a) = f(&*self.resolver, &q) {
            return Some((a, false));
        }
        match q.registers {
            Registers::Range {
                space,
                register,
                count: None,
            } => {
                let one = ResourceQuery {
                    registers: Registers::Range {
                        space,
                        register,
                        count: Some(1),
                    },
                    ..q
                };
                f(&*self.resolver, &one).map(|a| (a, true))
            }
            _ => None,
        }
    }

    /// The resolver's answer for the view of `r` (not its counter).
    fn view(&self, r: &D3dBinding, heap: bool) -> Result<Answer, String> {
        let q = self.query(r, heap);
        let refused = || {
            format!(
                "{}: the binding resolver has no binding for it",
                what(r, heap)
            )
        };
        Ok(match r.class {
            ResourceClass::Srv => {
                let (m, one) = self.ask(q, |x, q| x.srv(q)).ok_or_else(refused)?;
                Answer::Binding(m.buffer, m.offsets, q, one)
            }
            ResourceClass::Uav => {
                let (m, one) = self.ask(q, |x, q| x.uav(q)).ok_or_else(refused)?;
                Answer::Binding(m.buffer, m.offsets, q, one)
            }
            ResourceClass::Sampler => {
                let (b, one) = self.ask(q, |x, q| x.sampler(q)).ok_or_else(refused)?;
                Answer::Binding(b, None, q, one)
            }
            ResourceClass::Cbv => match self.ask(q, |x, q| x.cbv(q)).ok_or_else(refused)? {
                (CbvMap::RootConstants { word }, _) => Answer::RootConstants(word),
                (CbvMap::Buffer(b), one) => Answer::Binding(b, None, q, one),
            },
        })
    }

    fn placement(
        &self,
        r: &D3dBinding,
        heap: bool,
        ty: DescriptorType,
    ) -> Result<Placement, String> {
        let who = what(r, heap);
        let (b, offsets, q, single) = match self.view(r, heap)? {
            Answer::Binding(b, offsets, q, single) => (b, offsets, q, single),
            Answer::RootConstants(word) => {
                if word >= self.root.constant_words {
                    return Err(format!(
                        "{who}: root constant word {word} is past the root block's {} constant words",
                        self.root.constant_words
                    ));
                }
                return Ok(Placement::PushConstants {
                    first_word: self.constant_word(&who, word)?,
                    words: self.root.constant_words - word,
                });
            }
        };
        if let Some(p) = self.address_table(&who, r, heap, &b, ty)? {
            return Ok(p);
        }
        let declared = self.descriptor_type(&who, r, b.kind, ty)?;
        Ok(match b.location {
            Location::Fixed { set, binding } => {
                if heap {
                    return Err(format!(
                        "{who}: a descriptor heap view needs a heap array, not a fixed binding"
                    ));
                }
                if declared != ty {
                    return Err(format!(
                        "{who}: a fixed binding holds the descriptor type the view needs ({}), not a {}",
                        ty.name(),
                        declared.name()
                    ));
                }
                Placement::Descriptor {
                    set,
                    binding,
                    // An unbounded declaration bound to a single register: every index reads that descriptor.
                    array: if single {
                        ArraySize::One
                    } else {
                        array_size(r.count)
                    },
                }
            }
            Location::Heap {
                set,
                binding,
                table,
                offset,
            } => {
                if heap && (table.is_some() || offset != 0) {
                    return Err(format!(
                        "{who}: a descriptor heap view is indexed by the shader alone (no table word, no offset)"
                    ));
                }
                Placement::Heap {
                    set,
                    binding,
                    table_word: match table {
                        Some(t) => Some(self.constant_word(&who, t)?),
                        None => None,
                    },
                    offset,
                    descriptor_type: declared,
                    offsets: self.offsets(&who, &q, declared, offsets)?,
                }
            }
            Location::RootDescriptor { ordinal } => {
                if !self.conventions.device_addresses {
                    return Err(format!(
                        "{who}: a root descriptor is read through its address, and buffer device addresses are off"
                    ));
                }
                if ordinal >= self.root.root_descriptors {
                    return Err(format!(
                        "{who}: root descriptor {ordinal} of {}",
                        self.root.root_descriptors
                    ));
                }
                if !matches!(r.count, 0 | 1) && r.count != u32::MAX {
                    return Err(format!(
                        "{who}: a register array cannot bind a root descriptor"
                    ));
                }
                Placement::DeviceAddress {
                    offset: ordinal * 8,
                }
            }
        })
    }

    /// An acceleration structure that the resolver keeps as a storage buffer of 64-bit addresses in a heap (as
    /// vkd3d-proton does without acceleration-structure descriptors in its heap): the address table at the view's
    /// slot, which the lowering converts. `None` for every other answer.
    fn address_table(
        &self,
        who: &dyn fmt::Display,
        r: &D3dBinding,
        heap: bool,
        b: &VkBinding,
        ty: DescriptorType,
    ) -> Result<Option<Placement>, String> {
        let Location::Heap {
            set,
            binding,
            table,
            offset,
        } = b.location
        else {
            return Ok(None);
        };
        let addresses = matches!(
            b.kind,
            DescriptorKind::StorageBuffer | DescriptorKind::AddressTable
        );
        if ty != DescriptorType::AccelerationStructure
            || r.kind != ResourceKind::RTAccelerationStructure
            || !addresses
        {
            return Ok(None);
        }
        if heap && (table.is_some() || offset != 0) {
            return Err(format!(
                "{who}: a descriptor heap view is indexed by the shader alone (no table word, no offset)"
            ));
        }
        Ok(Some(Placement::AddressTable {
            set,
            binding,
            table_word: match table {
                Some(t) => Some(self.constant_word(who, t)?),
                None => None,
            },
            offset,
        }))
    }

    /// Placement of the heap array a local root signature's table indexes: the resolver's answer for the range's
    /// own registers (a runtime answers them from its local root signature), whose set and binding alone count:
    /// the table's slot and offset come from the shader record.
    fn local_placement(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String> {
        let who = format!("{r} (local root signature table)");
        let (b, offsets, q) = match self.view(r, false)? {
            Answer::Binding(b, offsets, q, _) => (b, offsets, q),
            Answer::RootConstants(_) => {
                return Err(format!(
                    "{who}: the binding resolver gives root constants, not a heap array"
                ));
            }
        };
        let Location::Heap { set, binding, .. } = b.location else {
            return Err(format!(
                "{who}: a table of a shader record indexes a heap array; the binding resolver gives {:?}",
                b.location
            ));
        };
        let local = VkBinding {
            location: Location::Heap {
                set,
                binding,
                table: None,
                offset: 0,
            },
            kind: b.kind,
        };
        if let Some(p) = self.address_table(&who, r, false, &local, ty)? {
            return Ok(p);
        }
        let declared = self.descriptor_type(&who, r, b.kind, ty)?;
        Ok(Placement::Heap {
            set,
            binding,
            table_word: None,
            offset: 0,
            descriptor_type: declared,
            offsets: self.offsets(&who, &q, declared, offsets)?,
        })
    }

    /// Placement of the counter of a UAV in a local root signature's table: the address table the resolver gives
    /// for the UAV's registers, indexed like the UAV.
    fn local_counter_placement(&self, r: &D3dBinding) -> Result<Placement, String> {
        let who = format!("counter of {r} (local root signature table)");
        let mut q = self.query(r, false);
        q.has_counter = true;
        let (m, _) = self
            .ask(q, |x, q| x.uav(q))
            .ok_or_else(|| format!("{who}: the binding resolver has no binding for it"))?;
        let c = m
            .counter
            .ok_or_else(|| format!("{who}: the binding resolver gives no counter"))?;
        match (c.kind, c.location) {
            (
                DescriptorKind::AddressTable | DescriptorKind::Default,
                Location::Heap { set, binding, .. },
            ) if self.conventions.device_addresses => Ok(Placement::AddressTable {
                set,
                binding,
                table_word: None,
                offset: 0,
            }),
            (kind, location) => Err(format!(
                "{who}: a {kind:?} counter at {location:?} is not supported (counters of shader-record tables are \
                 address tables in heaps)"
            )),
        }
    }

    fn constant_word(&self, who: &dyn fmt::Display, word: u32) -> Result<u32, String> {
        if word >= self.root.constant_words {
            return Err(format!(
                "{who}: table word {word} is past the root block's {} constant words",
                self.root.constant_words
            ));
        }
        Ok(self.root.root_descriptors * 2 + word)
    }

    /// The descriptor type declared for a view the lowering reads as `ty`, stored as `kind`.
    fn descriptor_type(
        &self,
        who: &dyn fmt::Display,
        r: &D3dBinding,
        kind: DescriptorKind,
        ty: DescriptorType,
    ) -> Result<DescriptorType, String> {
        use DescriptorType as T;
        let cbv = r.class == ResourceClass::Cbv;
        let got = match kind {
            DescriptorKind::Default if cbv && self.conventions.cbv_as_ssbo => T::StorageBuffer,
            DescriptorKind::Default => ty,
            DescriptorKind::UniformBuffer if ty == T::UniformBuffer => ty,
            DescriptorKind::StorageBuffer if ty == T::StorageBuffer || cbv => T::StorageBuffer,
            DescriptorKind::TexelBuffer
                if matches!(ty, T::UniformTexelBuffer | T::StorageTexelBuffer) =>
            {
                ty
            }
            DescriptorKind::TexelBuffer if r.kind.is_raw_like() => {
                return Err(format!(
                    "{who}: raw and structured views stored as texel buffers are not supported"
                ));
            }
            DescriptorKind::InputAttachment { .. } => {
                return Err(format!("{who}: input attachments are not supported"));
            }
            other => {
                return Err(format!(
                    "{who}: the view is read as a {}, which a {other:?} binding does not hold",
                    ty.name()
                ));
            }
        };
        Ok(got)
    }

    fn offsets(
        &self,
        who: &dyn fmt::Display,
        q: &ResourceQuery,
        declared: DescriptorType,
        offsets: Option<OffsetBuffer>,
    ) -> Result<Option<OffsetEntry>, String> {
        let Some(o) = offsets else {
            return Ok(None);
        };
        let kind = match declared {
            DescriptorType::StorageBuffer if q.kind.is_raw_like() => {
                let a = self.conventions.ssbo_alignment.max(1);
                // Heap views of unknown stride (alignment 0) take the window: it is always right.
                let aligned = q.alignment != 0 && (q.alignment & (a - 1)) == 0 || a == 1;
                if aligned {
                    return Ok(None);
                }
                OffsetKind::Bytes
            }
            DescriptorType::UniformTexelBuffer | DescriptorType::StorageTexelBuffer
                if self.conventions.typed_offsets =>
            {
                OffsetKind::Elements
            }
            _ => return Ok(None),
        };
        if self.conventions.offset_layout != OFFSET_LAYOUT {
            return Err(format!(
                "{who}: the view reads its window from an offset buffer laid out as {:?} (untyped, typed, stride); \
                 only {OFFSET_LAYOUT:?} is supported",
                self.conventions.offset_layout
            ));
        }
        Ok(Some(OffsetEntry {
            set: o.set,
            binding: o.binding,
            kind,
        }))
    }

    fn counter_placement(&self, r: &D3dBinding, heap: bool) -> Result<Placement, String> {
        let who = Who {
            r,
            heap,
            counter: true,
        };
        let mut q = self.query(r, heap);
        q.has_counter = true;
        let (m, _) = self
            .ask(q, |x, q| x.uav(q))
            .ok_or_else(|| format!("{who}: the binding resolver has no binding for it"))?;
        let c = m
            .counter
            .ok_or_else(|| format!("{who}: the binding resolver gives no counter"))?;
        match (c.kind, c.location) {
            (
                DescriptorKind::AddressTable | DescriptorKind::Default,
                Location::Heap {
                    set,
                    binding,
                    table,
                    offset,
                },
            ) if self.conventions.device_addresses => Ok(Placement::AddressTable {
                set,
                binding,
                table_word: match table {
                    Some(t) => Some(self.constant_word(&who, t)?),
                    None => None,
                },
                offset,
            }),
            (
                DescriptorKind::StorageBuffer | DescriptorKind::Default,
                Location::Fixed { set, binding },
            ) if !heap => Ok(Placement::Descriptor {
                set,
                binding,
                array: array_size(r.count),
            }),
            (kind, location) => Err(format!(
                "{who}: a {kind:?} counter at {location:?} is not supported (counters are address tables in heaps \
                 or storage buffers at fixed bindings)"
            )),
        }
    }
}

/// A resolver's answer for a view.
enum Answer {
    /// The binding, its offset buffer, the query, and whether it answered the single-register retry.
    Binding(VkBinding, Option<OffsetBuffer>, ResourceQuery, bool),
    RootConstants(u32),
}

/// What an error message names: formatted only when a message is made, since every placement asks for one and
/// formatting it up front was about a twentieth of a small shader's translation.
struct Who<'r> {
    r: &'r D3dBinding,
    heap: bool,
    counter: bool,
}

impl fmt::Display for Who<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.counter {
            f.write_str("counter of ")?;
        }
        if self.heap {
            write!(f, "descriptor heap {:?} {:?}", self.r.class, self.r.kind)
        } else {
            write!(f, "{}", self.r)
        }
    }
}

fn what(r: &D3dBinding, heap: bool) -> Who<'_> {
    Who {
        r,
        heap,
        counter: false,
    }
}

impl BindingModel for ResolverBindings {
    fn place(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String> {
        self.placement(r, false, ty)
    }

    fn counter(&self, r: &D3dBinding) -> Result<Placement, String> {
        self.counter_placement(r, false)
    }

    fn heap(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String> {
        self.placement(r, true, ty)
    }

    fn local_heap(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String> {
        self.local_placement(r, ty)
    }

    fn local_heap_counter(&self, r: &D3dBinding) -> Result<Placement, String> {
        self.local_counter_placement(r)
    }

    fn heap_counter(&self) -> Result<Placement, String> {
        let r = D3dBinding {
            class: ResourceClass::Uav,
            kind: ResourceKind::RawBuffer,
            space: 0,
            register: 0,
            count: u32::MAX,
            range_id: 0,
        };
        self.counter_placement(&r, true)
    }

    fn push_constant_bytes(&self) -> u32 {
        match self.root.uniform_buffer {
            Some(_) => 0,
            None => self.root.bytes(),
        }
    }

    fn root_block(&self) -> RootBlockPlacement {
        let bytes = self.root.bytes();
        match self.root.uniform_buffer {
            None => RootBlockPlacement::PushConstants { bytes },
            Some((set, binding)) => RootBlockPlacement::UniformBuffer {
                set,
                binding,
                bytes,
            },
        }
    }
}

#[cfg(test)]
mod tests;
