//! Resources: handles, the variables ("views") that back them, and the binding model.
//!
//! A handle is symbolic: `createHandle*` / `annotateHandle` only record which resource and which (dynamic)
//! register or heap index it means. The descriptor is fetched at each use (cached per block), so a handle made in
//! one block and used in a branch loads its descriptor where it is used — which also keeps non-uniform indexing
//! inside the branch that guards it.
//!
//! Each resource gets up to one variable per *view*: the `u32` storage-buffer view every raw/structured access
//! can use, a `u16` view for 16-bit accesses (so 16-bit stores never rewrite the neighbouring half), a `u64`
//! view for 64-bit atomics, the counter, the image/texel-buffer/sampler/acceleration-structure object, the
//! uniform-buffer rows of a cbuffer. Where and how they are bound is the [`BindingModel`]'s decision.

use dxil_module::Value;
use dxil_shader::ops::OpCode;
use spirv::{Capability, Decoration, Dim, ImageFormat, Op, StorageClass};

use super::{Args, Ctx, NONE};
use crate::binding::{
    ArraySize, D3dBinding, DescriptorType, OffsetEntry, OffsetKind, Placement, RootBlockPlacement,
};
use crate::dxil::{ResourceClass, ResourceDecl, ResourceKind, ResourceProps, SampledClass};
use crate::error::{Error, Invalid, Unsupported};
use crate::spv::{Id, TypeKey, words};
use crate::{Binding, BoundResource, DescriptorCount};

/// What a handle refers to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HandleInfo {
    /// Index into `Ctx::res`; `NONE` for a heap handle not annotated yet.
    pub res: u32,
    pub index: HandleIndex,
    pub nonuniform: bool,
    /// From `createHandleFromHeap` (with its sampler-heap flag).
    pub heap: Option<bool>,
}

/// Which descriptor of its range a handle means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HandleIndex {
    /// The absolute register (binding handles) or the heap index (heap handles).
    Value(Value),
    /// A library resource variable's array element: relative to the range's first register.
    Relative(Value),
    /// A library resource variable that is no array: the range's first register.
    First,
}

impl HandleIndex {
    /// The LLVM value the index depends on, if any.
    pub fn value(self) -> Option<Value> {
        match self {
            HandleIndex::Value(v) | HandleIndex::Relative(v) => Some(v),
            HandleIndex::First => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum View {
    Ssbo32 = 0,
    Ssbo16 = 1,
    Ssbo64 = 2,
    Counter = 3,
    Cbuf = 4,
    Image = 5,
    Sampler = 6,
    Accel = 7,
    /// `uvec4` units: 16-byte vector accesses (`buffer.rs`).
    SsboVec4 = 8,
    /// `uvec2` units: 8-byte vector accesses.
    SsboVec2 = 9,
}

const VIEWS: usize = 10;

#[derive(Clone, Debug)]
pub(crate) struct ResEntry {
    pub decl: ResourceDecl,
    /// Taken from the descriptor heap (`Some(sampler heap?)`).
    pub heap: Option<bool>,
    /// The variable of each view (`None` until made, and for root constants and root descriptors, which have
    /// none).
    pub views: [Option<Id>; VIEWS],
    /// The descriptor (element) type of each view.
    pub view_types: [Option<Id>; VIEWS],
    /// The placement of each view (`None` until made).
    pub placements: [Option<Placement>; VIEWS],
    /// Typed UAV used with atomics: its image needs an R32 format.
    pub atomics: bool,
    /// Typed UAV read: needs `StorageImageReadWithoutFormat` with an unknown format.
    pub reads: bool,
    /// The number of SSBO views made (more than one: they alias).
    ssbo_views: u8,
    /// The local root signature holds it: root words come from the shader record.
    pub record: bool,
}

impl ResEntry {
    pub fn declared(decl: ResourceDecl) -> ResEntry {
        ResEntry {
            decl,
            heap: None,
            views: [None; VIEWS],
            view_types: [None; VIEWS],
            placements: [None; VIEWS],
            atomics: false,
            reads: false,
            ssbo_views: 0,
            record: false,
        }
    }

    pub(super) fn d3d(&self) -> D3dBinding {
        D3dBinding {
            class: self.decl.class,
            kind: self.decl.kind,
            space: self.decl.space,
            register: self.decl.lower,
            count: self.decl.count,
            range_id: self.decl.range_id,
        }
    }
}

/// A descriptor ready for use: the variable, and the array element when the variable is an array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Desc {
    pub var: Id,
    pub index: Option<Id>,
    pub nonuniform: bool,
    /// The descriptor (element) type.
    pub ty: Id,
    /// Storage class of `var` and of pointers into it (`PhysicalStorageBuffer`: `var` is a pointer value made from
    /// a root descriptor's address).
    pub storage: StorageClass,
    /// The view's window `(start, count)` inside its descriptor, from the offset buffer, in units of the view.
    pub window: Option<(Id, Id)>,
}

impl<'a> Ctx<'a> {
    /// Records a handle-making `dx.op` call. `None`: not a handle op, or an annotation of a handle not seen yet.
    pub(super) fn make_handle(
        &mut self,
        op: OpCode,
        argv: &dyn Fn(usize) -> Option<Value>,
    ) -> Result<Option<u32>, Error> {
        let arg =
            |k: usize| argv(k).ok_or_else(|| self.invalid(Invalid::operand("missing operand")));
        let info = match op {
            // CreateHandle(class, rangeId, index, nonUniform)
            OpCode::CreateHandle => {
                let class = self.const_int(arg(1)?).map(|c| c as u32);
                let range = self.const_int(arg(2)?).map(|c| c as u32);
                let (Some(class), Some(range)) = (class, range) else {
                    return Err(self.invalid(Invalid::operand(
                        "createHandle with a non-constant class or range id",
                    )));
                };
                let res = self
                    .res
                    .iter()
                    .position(|r| r.heap.is_none() && r.decl.class as u32 == class && r.decl.range_id == range)
                    .ok_or_else(|| {
                        self.invalid(Invalid::ty(format!(
                            "createHandle names range {range} of class {class}, which dx.resources does not declare"
                        )))
                    })?;
                HandleInfo {
                    res: res as u32,
                    index: HandleIndex::Value(arg(3)?),
                    nonuniform: self.const_int(arg(4)?).unwrap_or(0) != 0,
                    heap: None,
                }
            }
            // CreateHandleFromBinding(bind, index, nonUniform)
            OpCode::CreateHandleFromBinding => {
                let (lo, _hi, space, class) =
                    crate::dxil::res_bind(self.m, arg(1)?).ok_or_else(|| {
                        self.invalid(Invalid::operand(
                            "createHandleFromBinding: the binding is not a constant",
                        ))
                    })?;
                let res = self
                    .res
                    .iter()
                    .position(|r| {
                        r.heap.is_none()
                            && r.decl.class as u32 == class
                            && r.decl.space == space
                            && lo >= r.decl.lower
                            && (r.decl.count == u32::MAX || lo - r.decl.lower < r.decl.count)
                    })
                    .ok_or_else(|| {
                        self.invalid(Invalid::ty(format!(
                            "createHandleFromBinding: no declared range of class {class} holds register {lo} of space {space}"
                        )))
                    })?;
                HandleInfo {
                    res: res as u32,
                    index: HandleIndex::Value(arg(2)?),
                    nonuniform: self.const_int(arg(3)?).unwrap_or(0) != 0,
                    heap: None,
                }
            }
            // CreateHandleFromHeap(index, samplerHeap, nonUniform)
            OpCode::CreateHandleFromHeap => HandleInfo {
                res: NONE,
                index: HandleIndex::Value(arg(1)?),
                nonuniform: self.const_int(arg(3)?).unwrap_or(0) != 0,
                heap: Some(self.const_int(arg(2)?).unwrap_or(0) != 0),
            },
            // AnnotateHandle(handle, props)
            OpCode::AnnotateHandle => {
                let src = arg(1)?.as_inst().ok_or_else(|| {
                    self.invalid(Invalid::reference("annotateHandle of a non-instruction"))
                })?;
                let h = self.f.handle_of.get(src.index()).copied().unwrap_or(NONE);
                if h == NONE {
                    return Ok(None);
                }
                let mut info = self.handles[h as usize];
                if info.res == NONE {
                    let (w0, w1) = crate::dxil::props_words(self.m, arg(2)?).ok_or_else(|| {
                        self.invalid(Invalid::operand(
                            "annotateHandle: properties are not a constant",
                        ))
                    })?;
                    let props = ResourceProps::decode(w0, w1).ok_or_else(|| {
                        self.invalid(Invalid::resource(format!(
                            "annotateHandle: unknown resource kind in {w0:#x}"
                        )))
                    })?;
                    info.res = self.heap_resource(props, info.heap.unwrap_or(false));
                }
                info
            }
            // CreateHandleForLib(resource): a load of a resource variable (or of an element of its array).
            OpCode::CreateHandleForLib => self.lib_handle(arg(1)?)?,
            _ => return Ok(None),
        };
        let id = self.handles.len() as u32;
        self.handles.push(info);
        Ok(Some(id))
    }

    /// The resource entry standing for heap descriptors with these properties.
    fn heap_resource(&mut self, p: ResourceProps, sampler_heap: bool) -> u32 {
        let class = if p.kind == ResourceKind::Sampler {
            ResourceClass::Sampler
        } else if p.kind == ResourceKind::CBuffer {
            ResourceClass::Cbv
        } else if p.uav {
            ResourceClass::Uav
        } else {
            ResourceClass::Srv
        };
        let decl = ResourceDecl {
            class,
            range_id: u32::MAX,
            space: 0,
            lower: 0,
            count: u32::MAX,
            kind: p.kind,
            component: p.component,
            component_count: p.component_count,
            stride: p.stride,
            sample_count: 0,
            globally_coherent: p.globally_coherent,
            has_counter: class == ResourceClass::Uav && p.cmp_or_counter,
            rov: p.rov,
            cbuffer_size: p.cbuffer_size,
            sampler_kind: if class == ResourceClass::Sampler && p.cmp_or_counter {
                1
            } else {
                0
            },
            global: None,
        };
        if let Some(i) = self
            .res
            .iter()
            .position(|r| r.heap == Some(sampler_heap) && r.decl == decl)
        {
            return i as u32;
        }
        let mut e = ResEntry::declared(decl);
        e.heap = Some(sampler_heap);
        self.res.push(e);
        (self.res.len() - 1) as u32
    }

    /// The handle a `dx.op` operand refers to.
    pub fn handle(&self, v: Option<Value>) -> Result<HandleInfo, Error> {
        let i = v.and_then(|v| v.as_inst()).ok_or_else(|| {
            self.invalid(Invalid::resource(
                "resource operand is not a handle instruction",
            ))
        })?;
        let h = self.f.handle_of.get(i.index()).copied().unwrap_or(NONE);
        let info = self
            .handles
            .get(h as usize)
            .copied()
            .ok_or_else(|| self.unsupported(Unsupported::resource("resource handle not made by createHandle*/annotateHandle (phi or select of handles)")))?;
        if info.res == NONE {
            return Err(self.invalid(Invalid::resource("heap handle used without annotateHandle")));
        }
        Ok(info)
    }

    pub fn handle_of_arg(&self, a: Args<'_>, k: usize) -> Result<HandleInfo, Error> {
        self.handle(a.get(k))
    }

    pub fn decl(&self, h: &HandleInfo) -> &ResourceDecl {
        // `handle` guarantees `res` is valid.
        &self.res[h.res as usize].decl
    }

    /// Marks usage that decides how a view is declared (before any variable exists).
    pub fn note_typed_use(&mut self, h: &HandleInfo, read: bool, atomic: bool) {
        if let Some(r) = self.res.get_mut(h.res as usize) {
            r.reads |= read;
            r.atomics |= atomic;
        }
    }

    /// 64-bit atomics on a typed UAV: its image is declared with a 64-bit sampled type (R64 formats),
    /// whatever component type the declaration names.
    pub fn note_atomic64(&mut self, h: &HandleInfo) {
        use crate::dxil::ComponentType as C;
        if let Some(r) = self.res.get_mut(h.res as usize) {
            r.decl.component = Some(match r.decl.component {
                Some(C::I32 | C::I64 | C::I16) => C::I64,
                _ => C::U64,
            });
        }
    }

    pub(super) fn descriptor_type(&self, r: &ResEntry, view: View) -> DescriptorType {
        match view {
            View::Ssbo32
            | View::Ssbo16
            | View::Ssbo64
            | View::SsboVec4
            | View::SsboVec2
            | View::Counter => DescriptorType::StorageBuffer,
            View::Cbuf => DescriptorType::UniformBuffer,
            View::Sampler => DescriptorType::Sampler,
            View::Accel => DescriptorType::AccelerationStructure,
            View::Image => {
                let uav = r.decl.class == ResourceClass::Uav;
                match (r.decl.kind == ResourceKind::TypedBuffer, uav) {
                    (true, false) => DescriptorType::UniformTexelBuffer,
                    (true, true) => DescriptorType::StorageTexelBuffer,
                    (false, false) => DescriptorType::SampledImage,
                    (false, true) => DescriptorType::StorageImage,
                }
            }
        }
    }

    /// The element type of a view: the block struct, image, sampler... Also decides the image format.
    fn view_type(&mut self, res: u32, view: View) -> Result<(Id, Option<ImageFormat>), Error> {
        let r = self.res[res as usize].clone();
        Ok(match view {
            View::Ssbo32 | View::Ssbo16 | View::Ssbo64 | View::SsboVec4 | View::SsboVec2 => {
                let (w, stride) = match view {
                    View::Ssbo16 => {
                        self.b.capability(Capability::StorageBuffer16BitAccess);
                        (16, 2)
                    }
                    View::Ssbo64 => {
                        self.b.capability(Capability::Int64);
                        (64, 8)
                    }
                    View::SsboVec4 => (128, 16),
                    View::SsboVec2 => (64 + 1, 8),
                    _ => (32, 4),
                };
                let e = match w {
                    128 => {
                        let u = self.b.u32();
                        self.b.vec(u, 4)
                    }
                    65 => {
                        let u = self.b.u32();
                        self.b.vec(u, 2)
                    }
                    _ => self.b.uint(w),
                };
                let arr = self.b.ty(TypeKey::LaidOutArray {
                    elem: e,
                    len: 0,
                    stride,
                });
                (
                    self.block_struct(arr, r.decl.class == ResourceClass::Srv),
                    None,
                )
            }
            View::Counter => {
                let u = self.b.u32();
                (self.block_struct(u, false), None)
            }
            View::Cbuf => {
                // D3D's largest constant buffer (64 KiB): a dynamic row index past the declared size still reads
                // the bound buffer, as in D3D; past the bound range, robust buffer access returns 0.
                let rows = 4096;
                let u = self.b.u32();
                let v4 = self.b.vec(u, 4);
                let arr = self.b.ty(TypeKey::LaidOutArray {
                    elem: v4,
                    len: rows,
                    stride: 16,
                });
                (self.block_struct(arr, false), None)
            }
            View::Sampler => (self.b.ty(TypeKey::Sampler), None),
            View::Accel => {
                self.ray_query_caps();
                (self.b.ty(TypeKey::AccelerationStructure), None)
            }
            View::Image => self.image_type(&r)?,
        })
    }

    /// Decorates `id` `NonUniform`, with the capability that decoration needs.
    pub fn nonuniform(&mut self, id: Id) {
        self.b.capability(Capability::ShaderNonUniform);
        if self.b.version < 0x0001_0500 {
            self.b.extension("SPV_EXT_descriptor_indexing");
        }
        self.b.decorate(id, Decoration::NonUniform, &[]);
    }

    pub fn ray_query_caps(&mut self) {
        self.b.capability(Capability::RayQueryKHR);
        self.b.extension("SPV_KHR_ray_query");
        self.b.require_version(0x0001_0400);
    }

    /// The sampled type of a typed resource: f32, i32 or u32 (Vulkan's image sampled types).
    pub fn sampled_type(&mut self, r: &ResourceDecl) -> (Id, SampledClass) {
        let class = r
            .component
            .map_or(SampledClass::Float, crate::dxil::sampled_class);
        let wide = r.component.is_some_and(crate::dxil::is_64bit_int);
        if wide {
            // 64-bit typed resources (SM 6.6 64-bit atomics on R64 views).
            self.b.capability(Capability::Int64);
            self.b.capability(Capability::Int64ImageEXT);
            self.b.extension("SPV_EXT_shader_image_int64");
        }
        let w = if wide { 64 } else { 32 };
        let t = match class {
            SampledClass::Float => self.b.f32(),
            SampledClass::Sint => self.b.ty(TypeKey::SInt(w)),
            SampledClass::Uint => self.b.uint(w),
        };
        (t, class)
    }

    fn image_type(&mut self, r: &ResEntry) -> Result<(Id, Option<ImageFormat>), Error> {
        use ResourceKind::*;
        let d = &r.decl;
        let (dim, arrayed, ms) = match d.kind {
            Texture1D => (Dim::Dim1D, false, false),
            Texture1DArray => (Dim::Dim1D, true, false),
            Texture2D | FeedbackTexture2D => (Dim::Dim2D, false, false),
            Texture2DArray | FeedbackTexture2DArray => (Dim::Dim2D, true, false),
            Texture2DMS => (Dim::Dim2D, false, true),
            Texture2DMSArray => (Dim::Dim2D, true, true),
            Texture3D => (Dim::Dim3D, false, false),
            TextureCube => (Dim::DimCube, false, false),
            TextureCubeArray => (Dim::DimCube, true, false),
            TypedBuffer => (Dim::DimBuffer, false, false),
            other => {
                return Err(
                    self.unsupported(Unsupported::resource(format!("{other:?} as an image")))
                );
            }
        };
        let uav = d.class == ResourceClass::Uav;
        let (st, class) = self.sampled_type(d);
        let mut format = ImageFormat::Unknown;
        if uav && r.atomics {
            let wide = d.component.is_some_and(crate::dxil::is_64bit_int);
            format = match (class, wide) {
                (SampledClass::Float, _) => ImageFormat::R32f,
                (SampledClass::Sint, false) => ImageFormat::R32i,
                (SampledClass::Uint, false) => ImageFormat::R32ui,
                (SampledClass::Sint, true) => ImageFormat::R64i,
                (SampledClass::Uint, true) => ImageFormat::R64ui,
            };
        }
        match (dim, uav) {
            (Dim::Dim1D, false) => self.b.capability(Capability::Sampled1D),
            (Dim::Dim1D, true) => self.b.capability(Capability::Image1D),
            (Dim::DimBuffer, false) => self.b.capability(Capability::SampledBuffer),
            (Dim::DimBuffer, true) => self.b.capability(Capability::ImageBuffer),
            (Dim::DimCube, _) if arrayed => self.b.capability(if uav {
                Capability::ImageCubeArray
            } else {
                Capability::SampledCubeArray
            }),
            _ => {}
        }
        if uav && ms {
            self.b.capability(Capability::StorageImageMultisample);
        }
        if uav && arrayed && ms {
            self.b.capability(Capability::ImageMSArray);
        }
        if uav && format == ImageFormat::Unknown {
            // The D3D view's format is not in the shader; reads and writes go through the format-less forms.
            if r.reads {
                self.b.capability(Capability::StorageImageReadWithoutFormat);
            }
            self.b
                .capability(Capability::StorageImageWriteWithoutFormat);
        }
        let t = self.b.ty(TypeKey::Image {
            sampled: st,
            dim: dim as u32,
            depth: 0,
            arrayed,
            ms,
            sampled_kind: if uav { 2 } else { 1 },
            format: format as u32,
        });
        Ok((
            t,
            if uav && format != ImageFormat::Unknown {
                Some(format)
            } else {
                None
            },
        ))
    }

    /// The placement of a view, asked of the binding model (without declaring anything).
    pub(super) fn placement_of(&mut self, res: u32, view: View) -> Result<Placement, Error> {
        if let Some(p) = self.res[res as usize].placements[view as usize] {
            return Ok(p);
        }
        if let Some(p) = self.record_placement(res, view)? {
            return Ok(p);
        }
        let e = &self.res[res as usize];
        let dty = self.descriptor_type(e, view);
        let d = e.d3d();
        let model = self.opts.binding.clone();
        match (view, e.heap) {
            (View::Counter, Some(_)) => model.heap_counter(),
            (View::Counter, None) => model.counter(&d),
            (_, Some(_)) => model.heap(&d, dty),
            (_, None) => model.place(&d, dty),
        }
        .map_err(Error::Binding)
    }

    /// The variable of a view (none for root constants and root descriptors), its descriptor type and placement,
    /// made on first use.
    #[inline]
    pub(super) fn view_var(
        &mut self,
        res: u32,
        view: View,
    ) -> Result<(Option<Id>, Id, Placement), Error> {
        let e = &self.res[res as usize];
        let vi = view as usize;
        if let (Some(p), Some(t)) = (e.placements[vi], e.view_types[vi]) {
            return Ok((e.views[vi], t, p));
        }
        self.make_view_var(res, view)
    }

    fn make_view_var(
        &mut self,
        res: u32,
        view: View,
    ) -> Result<(Option<Id>, Id, Placement), Error> {
        let vi = view as usize;
        let e = self.res[res as usize].clone();
        let mut dty = self.descriptor_type(&e, view);
        let placement = self.placement_of(res, view)?;
        if let Placement::AddressTable { set, binding, .. } = placement {
            // The table is one storage buffer shared by every view that indexes it (counters and acceleration
            // structures).
            let var = self.address_table(set, binding, true);
            let u = self.b.u32();
            let elem = self.b.vec(u, 2);
            let r = &mut self.res[res as usize];
            r.views[vi] = Some(var);
            r.view_types[vi] = Some(elem);
            r.placements[vi] = Some(placement);
            return Ok((Some(var), elem, placement));
        }
        let (elem, format) = self.view_type(res, view)?;
        let (set, binding, array) = match placement {
            Placement::Descriptor {
                set,
                binding,
                array,
            } => (set, binding, array),
            Placement::Heap {
                set,
                binding,
                descriptor_type,
                ..
            } => {
                if descriptor_type != dty {
                    if view == View::Cbuf && descriptor_type == DescriptorType::StorageBuffer {
                        // CBVs kept as read-only storage buffers (devices without uniform-buffer heaps).
                        self.b
                            .member_decorate(elem, 0, Decoration::NonWritable, &[]);
                        dty = descriptor_type;
                    } else {
                        return Err(Error::Binding(format!(
                            "{}: the binding model declares a {} where the lowering needs a {}",
                            e.d3d(),
                            descriptor_type.name(),
                            dty.name()
                        )));
                    }
                }
                (set, binding, ArraySize::Runtime)
            }
            Placement::PushConstants { .. } | Placement::DeviceAddress { .. } => {
                if let Placement::DeviceAddress { .. } = placement
                    && !matches!(
                        view,
                        View::Ssbo32
                            | View::Ssbo16
                            | View::Ssbo64
                            | View::SsboVec4
                            | View::SsboVec2
                            | View::Cbuf
                            | View::Accel
                    )
                {
                    return Err(Error::Binding(format!(
                        "{}: a root descriptor holds only constant, raw and structured buffers and acceleration \
                         structures",
                        e.d3d()
                    )));
                }
                if let Placement::PushConstants { .. } = placement
                    && view != View::Cbuf
                {
                    return Err(Error::Binding(format!(
                        "{}: root constants hold only constant buffers",
                        e.d3d()
                    )));
                }
                let r = &mut self.res[res as usize];
                r.views[vi] = None;
                r.view_types[vi] = Some(elem);
                r.placements[vi] = Some(placement);
                return Ok((None, elem, placement));
            }
            Placement::AddressTable { .. } => {
                return Err(Error::Binding(
                    "address table placement out of order".into(),
                ));
            }
        };
        let sc = match view {
            View::Ssbo32
            | View::Ssbo16
            | View::Ssbo64
            | View::SsboVec4
            | View::SsboVec2
            | View::Counter => StorageClass::StorageBuffer,
            View::Cbuf if dty == DescriptorType::StorageBuffer => StorageClass::StorageBuffer,
            View::Cbuf => StorageClass::Uniform,
            _ => StorageClass::UniformConstant,
        };
        let var_ty = match array {
            ArraySize::One => elem,
            ArraySize::Fixed(n) => self.b.ty(TypeKey::Array(elem, n)),
            ArraySize::Runtime => {
                self.b.capability(Capability::RuntimeDescriptorArray);
                if self.b.version < 0x0001_0500 {
                    self.b.extension("SPV_EXT_descriptor_indexing");
                }
                self.b.ty(TypeKey::DescriptorRuntimeArray(elem))
            }
        };
        let pty = self.b.ptr(sc, var_ty);
        let var = self.b.global_var(pty, sc, None);
        self.b.decorate(var, Decoration::DescriptorSet, &[set]);
        self.b.decorate(var, Decoration::Binding, &[binding]);
        let writable = e.decl.class == ResourceClass::Uav;
        if writable && e.decl.globally_coherent {
            self.b.decorate(var, Decoration::Coherent, &[]);
        }
        if matches!(
            view,
            View::Ssbo32 | View::Ssbo16 | View::Ssbo64 | View::SsboVec4 | View::SsboVec2
        ) {
            let r = &mut self.res[res as usize];
            r.ssbo_views += 1;
            if r.ssbo_views > 1 && writable {
                // Differently typed views of one buffer alias each other.
                self.b.decorate(var, Decoration::Aliased, &[]);
                for other in [
                    View::Ssbo32,
                    View::Ssbo16,
                    View::Ssbo64,
                    View::SsboVec4,
                    View::SsboVec2,
                ] {
                    // The views made before this one are marked once, when the second appears; later views
                    // mark only themselves.
                    if let Some(o) = self.res[res as usize].views[other as usize]
                        && o != var
                        && self.res[res as usize].ssbo_views == 2
                    {
                        self.b.decorate(o, Decoration::Aliased, &[]);
                    }
                }
            }
        }
        if self.b.names {
            let d = e.d3d();
            let name = match view {
                View::Counter => format!(
                    "counter_{}{}_space{}",
                    d.class.letter(),
                    d.register,
                    d.space
                ),
                View::Ssbo16 => format!("{}{}_space{}_u16", d.class.letter(), d.register, d.space),
                View::Ssbo64 => format!("{}{}_space{}_u64", d.class.letter(), d.register, d.space),
                View::SsboVec4 => format!("{}{}_space{}_v4", d.class.letter(), d.register, d.space),
                View::SsboVec2 => format!("{}{}_space{}_v2", d.class.letter(), d.register, d.space),
                _ => format!("{}{}_space{}", d.class.letter(), d.register, d.space),
            };
            let name = if e.heap.is_some() {
                format!("heap_{}", dty.name().replace(' ', "_"))
            } else {
                name
            };
            self.b.name(var, &name);
        }
        // A local root table indexes the heap arrays too (`record` is known once the placement is).
        let heap = e.heap.or(self.res[res as usize]
            .record
            .then_some(e.decl.class == ResourceClass::Sampler));
        let resource = match (view, heap) {
            (View::Counter, Some(_)) => BoundResource::HeapCounter,
            (View::Counter, None) => BoundResource::Counter(e.d3d()),
            (_, Some(sampler)) => BoundResource::Heap { sampler },
            (_, None) => BoundResource::Range(e.d3d()),
        };
        self.bindings.push(Binding {
            set,
            binding,
            descriptor_type: dty,
            count: match array {
                ArraySize::One => DescriptorCount::One,
                ArraySize::Fixed(n) => DescriptorCount::Fixed(n),
                ArraySize::Runtime => DescriptorCount::Runtime,
            },
            resource,
            writable: writable || view == View::Counter,
            format,
        });
        let r = &mut self.res[res as usize];
        r.views[vi] = Some(var);
        r.view_types[vi] = Some(elem);
        r.placements[vi] = Some(placement);
        Ok((Some(var), elem, placement))
    }

    /// A storage buffer `struct { uvec2 e[]; }` at (set, binding): the address table (UAV counters, acceleration
    /// structures) or the offset buffer. Declared once per (set, binding).
    fn address_table(&mut self, set: u32, binding: u32, counters: bool) -> Id {
        if let Some(&(_, _, var)) = self
            .side_buffers
            .iter()
            .find(|(s, b, _)| *s == set && *b == binding)
        {
            return var;
        }
        let u = self.b.u32();
        let v2 = self.b.vec(u, 2);
        let arr = self.b.ty(TypeKey::LaidOutArray {
            elem: v2,
            len: 0,
            stride: 8,
        });
        let st = self.b.struct_type(&[arr]);
        self.b.decorate(st, Decoration::Block, &[]);
        self.b.member_decorate(st, 0, Decoration::Offset, &[0]);
        self.b.member_decorate(st, 0, Decoration::NonWritable, &[]);
        let pty = self.b.ptr(StorageClass::StorageBuffer, st);
        let var = self.b.global_var(pty, StorageClass::StorageBuffer, None);
        self.b.decorate(var, Decoration::DescriptorSet, &[set]);
        self.b.decorate(var, Decoration::Binding, &[binding]);
        self.b.name(
            var,
            if counters {
                "uav_counter_addresses"
            } else {
                "offset_buffer"
            },
        );
        self.bindings.push(Binding {
            set,
            binding,
            descriptor_type: DescriptorType::StorageBuffer,
            count: DescriptorCount::One,
            resource: if counters {
                BoundResource::CounterAddresses
            } else {
                BoundResource::OffsetBuffer
            },
            writable: false,
            format: None,
        });
        self.side_buffers.push((set, binding, var));
        var
    }

    /// The `Block` struct of one member `member` at offset 0, `NonWritable` where `read_only`: one per layout.
    fn block_struct(&mut self, member: Id, read_only: bool) -> Id {
        if let Some(&(_, _, s)) = self
            .block_structs
            .iter()
            .find(|(m, r, _)| *m == member && *r == read_only)
        {
            return s;
        }
        let s = self.b.struct_type(&[member]);
        self.b.decorate(s, Decoration::Block, &[]);
        self.b.member_decorate(s, 0, Decoration::Offset, &[0]);
        if read_only {
            self.b.member_decorate(s, 0, Decoration::NonWritable, &[]);
        }
        self.block_structs.push((member, read_only, s));
        s
    }

    /// The descriptor of a handle for a view (variable + array element), computing the element index here.
    pub fn desc(&mut self, h: &HandleInfo, view: View) -> Result<Desc, Error> {
        let (var, ty, placement) = self.view_var(h.res, view)?;
        let decl = self.res[h.res as usize].decl.clone();
        let heap = self.res[h.res as usize].heap.is_some();
        let mut storage = match view {
            View::Ssbo32
            | View::Ssbo16
            | View::Ssbo64
            | View::SsboVec4
            | View::SsboVec2
            | View::Counter => StorageClass::StorageBuffer,
            View::Cbuf => StorageClass::Uniform,
            _ => StorageClass::UniformConstant,
        };
        let (array, table_word, offset, offsets) = match placement {
            Placement::Descriptor { array, .. } => (array, None, 0, None),
            Placement::Heap {
                table_word,
                offset,
                offsets,
                descriptor_type,
                ..
            } => {
                if view == View::Cbuf && descriptor_type == DescriptorType::StorageBuffer {
                    storage = StorageClass::StorageBuffer;
                }
                (ArraySize::Runtime, table_word, offset, offsets)
            }
            Placement::AddressTable {
                table_word, offset, ..
            } => {
                storage = StorageClass::StorageBuffer;
                (ArraySize::Runtime, table_word, offset, None)
            }
            Placement::DeviceAddress { offset } => {
                return self.root_address_desc(h, view, offset, ty);
            }
            Placement::PushConstants { .. } => {
                return Err(self.invalid(Invalid::internal("root constants read as a descriptor")));
            }
        };
        let var = var
            .ok_or_else(|| self.invalid(Invalid::internal("descriptor view without a variable")))?;
        if array == ArraySize::One {
            return Ok(Desc {
                var,
                index: None,
                nonuniform: false,
                ty,
                storage,
                window: None,
            });
        }
        let u32t = self.b.u32();
        // Binding handles carry the absolute register; heap handles the heap index itself; library handles the
        // index into their variable's array.
        let (idx, cidx, base) = match h.index {
            HandleIndex::Value(v) => {
                let (i, c) = self.value_u32(v)?;
                (i, c, if heap { 0 } else { decl.lower })
            }
            HandleIndex::Relative(v) => {
                let (i, c) = self.value_u32(v)?;
                (i, c, 0)
            }
            HandleIndex::First => (self.b.const_u32(0), Some(0), 0),
        };
        let dynamic = cidx.is_none() || table_word.is_some();
        let table = matches!(placement, Placement::AddressTable { .. });
        // An index into data (the address table), not into descriptors: no descriptor-indexing capability and no
        // NonUniform. A table in the shader record may differ between the lanes of a wave (each runs its own
        // record): its index is non-uniform.
        let record = self.res[h.res as usize].record;
        let nonuniform = (h.nonuniform || record) && dynamic && !table;
        // The element index of a view is computed once per block: the root words and additions are shared by every
        // access there.
        let key = (
            h.res << 8 | view as u32 | 0x10 | u32::from(nonuniform) << 3,
            h.index.value().map_or(u32::MAX, |v| v.0),
        );
        let index = match self.f.desc_cache.get(&key) {
            Some(&index) => index,
            None => {
                let mut index = match cidx {
                    Some(c) => self.b.const_u32(c.wrapping_sub(base).wrapping_add(offset)),
                    None => {
                        let mut x = idx;
                        let k = offset.wrapping_sub(base);
                        if k != 0 {
                            let kc = self.b.const_u32(k);
                            x = self.op2(Op::IAdd, u32t, x, kc);
                        }
                        x
                    }
                };
                if let Some(w) = table_word {
                    let t = self.table_slot(h.res, w)?;
                    index = self.op2(Op::IAdd, u32t, t, index);
                }
                if dynamic && !table {
                    self.dynamic_indexing_caps(view, &decl, nonuniform);
                }
                if nonuniform {
                    self.nonuniform(index);
                }
                self.f.desc_cache.insert(key, index);
                index
            }
        };
        if table {
            return Ok(Desc {
                var,
                index: Some(index),
                nonuniform: false,
                ty,
                storage,
                window: None,
            });
        }
        let window = match offsets {
            Some(entry) => Some(self.view_window(h, view, entry, index)?),
            None => None,
        };
        Ok(Desc {
            var,
            index: Some(index),
            nonuniform,
            ty,
            storage,
            window,
        })
    }

    /// The (start, count) of a heap view inside its descriptor, in units of `view` (2, 4 or 8 bytes for storage
    /// buffer views, elements for texel buffers), from the offset buffer entry of heap slot `index`.
    fn view_window(
        &mut self,
        h: &HandleInfo,
        view: View,
        entry: OffsetEntry,
        index: Id,
    ) -> Result<(Id, Id), Error> {
        let key = (h.res << 8 | view as u32 | 0x40, index.word());
        if let (Some(&start), Some(&count)) = (
            self.f.desc_cache.get(&key),
            self.f.desc_cache.get(&(key.0 | 0x20, index.word())),
        ) {
            return Ok((start, count));
        }
        let (pair, shift) = match (entry.kind, view) {
            (OffsetKind::Bytes, View::Ssbo16) => (0, 1),
            (OffsetKind::Bytes, View::Ssbo32) => (0, 2),
            (OffsetKind::Bytes, View::Ssbo64) => (0, 3),
            (OffsetKind::Bytes, View::SsboVec4) => (0, 4),
            (OffsetKind::Bytes, View::SsboVec2) => (0, 3),
            (OffsetKind::Elements, View::Image) => (1, 0),
            _ => {
                return Err(Error::Binding(format!(
                    "{}: the offset buffer entry does not fit the view it is applied to",
                    self.res[h.res as usize].d3d()
                )));
            }
        };
        let var = self.address_table(entry.set, entry.binding, false);
        let u = self.b.u32();
        let v2 = self.b.vec(u, 2);
        let one = self.b.const_u32(1);
        let twice = self.op2(Op::ShiftLeftLogical, u, index, one);
        let at = if pair == 0 {
            twice
        } else {
            let p = self.b.const_u32(pair);
            self.op2(Op::IAdd, u, twice, p)
        };
        let pt = self.b.ptr(StorageClass::StorageBuffer, v2);
        let zero = self.b.const_u32(0);
        let p = self.chain(pt, var, &[zero, at]);
        let v = self.load(v2, p);
        let mut start = self.opn(Op::CompositeExtract, u, &words![v, 0]);
        let mut count = self.opn(Op::CompositeExtract, u, &words![v, 1]);
        if shift != 0 {
            let s = self.b.const_u32(shift);
            start = self.op2(Op::ShiftRightLogical, u, start, s);
            count = self.op2(Op::ShiftRightLogical, u, count, s);
        }
        self.f.desc_cache.insert(key, start);
        self.f
            .desc_cache
            .insert((key.0 | 0x20, index.word()), count);
        Ok((start, count))
    }

    /// A root descriptor read through its buffer device address: the 64-bit address from the root block, as a
    /// `PhysicalStorageBuffer` pointer to the view's block.
    fn root_address_desc(
        &mut self,
        h: &HandleInfo,
        view: View,
        offset: u32,
        ty: Id,
    ) -> Result<Desc, Error> {
        let key = (h.res << 8 | view as u32 | 0x20, u32::MAX);
        let ptr = match self.f.desc_cache.get(&key) {
            Some(&p) => p,
            None => {
                self.physical_addressing();
                let lo = self.root_word(h.res, offset / 4)?;
                let hi = self.root_word(h.res, offset / 4 + 1)?;
                let u = self.b.u32();
                let v2 = self.b.vec(u, 2);
                let address = self.op2(Op::CompositeConstruct, v2, lo, hi);
                let pt = self.b.ptr(StorageClass::PhysicalStorageBuffer, ty);
                let p = self.op1(Op::Bitcast, pt, address);
                self.f.desc_cache.insert(key, p);
                p
            }
        };
        Ok(Desc {
            var: ptr,
            index: None,
            nonuniform: false,
            ty,
            storage: StorageClass::PhysicalStorageBuffer,
            window: None,
        })
    }

    /// Buffer device addresses: `PhysicalStorageBuffer64` addressing, SPIR-V 1.5 (where a `uvec2` bit-casts to a
    /// pointer), Vulkan 1.2.
    pub fn physical_addressing(&mut self) {
        self.b
            .capability(Capability::PhysicalStorageBufferAddresses);
        self.b.require_version(0x0001_0500);
        self.b.physical_addressing = true;
    }

    /// The 64-bit address in the address-table entry of a handle (UAV counters), as `uvec2`.
    pub fn table_address(&mut self, h: &HandleInfo, view: View) -> Result<Id, Error> {
        let d = self.desc(h, view)?;
        let u = self.b.u32();
        let v2 = self.b.vec(u, 2);
        let pt = self.b.ptr(StorageClass::StorageBuffer, v2);
        let zero = self.b.const_u32(0);
        let p = match d.index {
            Some(i) => self.chain(pt, d.var, &[zero, i]),
            None => self.chain(pt, d.var, &[zero, zero]),
        };
        Ok(self.load(v2, p))
    }

    /// Loads `ty` through a pointer into a buffer view (`Aligned` where the pointer is physical, as SPIR-V requires).
    pub fn load_from(&mut self, d: &Desc, ty: Id, ptr: Id, align: u32) -> Id {
        if d.storage == StorageClass::PhysicalStorageBuffer {
            self.opn(
                Op::Load,
                ty,
                &words![ptr, spirv::MemoryAccess::ALIGNED.bits(), align],
            )
        } else {
            self.load(ty, ptr)
        }
    }

    /// Stores through a pointer into a buffer view (see [`Ctx::load_from`]).
    pub fn store_to(&mut self, d: &Desc, ptr: Id, value: Id, align: u32) {
        if d.storage == StorageClass::PhysicalStorageBuffer {
            self.emit(
                Op::Store,
                &words![ptr, value, spirv::MemoryAccess::ALIGNED.bits(), align],
            );
        } else {
            self.store(ptr, value);
        }
    }

    fn dynamic_indexing_caps(&mut self, view: View, decl: &ResourceDecl, nonuniform: bool) {
        let uav = decl.class == ResourceClass::Uav;
        let typed_buffer = decl.kind == ResourceKind::TypedBuffer;
        let (dynamic, non_uniform) = match view {
            View::Ssbo32
            | View::Ssbo16
            | View::Ssbo64
            | View::SsboVec4
            | View::SsboVec2
            | View::Counter => (
                Capability::StorageBufferArrayDynamicIndexing,
                Capability::StorageBufferArrayNonUniformIndexing,
            ),
            View::Cbuf => (
                Capability::UniformBufferArrayDynamicIndexing,
                Capability::UniformBufferArrayNonUniformIndexing,
            ),
            View::Image if typed_buffer && uav => (
                Capability::StorageTexelBufferArrayDynamicIndexing,
                Capability::StorageTexelBufferArrayNonUniformIndexing,
            ),
            View::Image if typed_buffer => (
                Capability::UniformTexelBufferArrayDynamicIndexing,
                Capability::UniformTexelBufferArrayNonUniformIndexing,
            ),
            View::Image if uav => (
                Capability::StorageImageArrayDynamicIndexing,
                Capability::StorageImageArrayNonUniformIndexing,
            ),
            View::Image | View::Sampler => (
                Capability::SampledImageArrayDynamicIndexing,
                Capability::SampledImageArrayNonUniformIndexing,
            ),
            View::Accel => {
                if nonuniform {
                    self.b.capability(Capability::ShaderNonUniform);
                }
                return;
            }
        };
        if matches!(
            dynamic,
            Capability::StorageTexelBufferArrayDynamicIndexing
                | Capability::UniformTexelBufferArrayDynamicIndexing
        ) && self.b.version < 0x0001_0500
        {
            self.b.extension("SPV_EXT_descriptor_indexing");
        }
        self.b.capability(dynamic);
        if nonuniform {
            self.b.capability(Capability::ShaderNonUniform);
            self.b.capability(non_uniform);
            if self.b.version < 0x0001_0500 {
                self.b.extension("SPV_EXT_descriptor_indexing");
            }
        }
    }

    /// A pointer into a storage-buffer view: `data[word]` (or the counter / block itself when `word` is None).
    pub fn ssbo_ptr(&mut self, d: &Desc, elem_ty: Id, word: Option<Id>) -> Id {
        self.ssbo_lane_ptr(d, elem_ty, word, None)
    }

    /// [`Ctx::ssbo_ptr`], into component `lane` of a vector unit ([`View::SsboVec4`]).
    pub fn ssbo_lane_ptr(
        &mut self,
        d: &Desc,
        elem_ty: Id,
        word: Option<Id>,
        lane: Option<Id>,
    ) -> Id {
        let pt = self.b.ptr(d.storage, elem_ty);
        let zero = self.b.const_u32(0);
        let word = match (word, d.window) {
            (Some(w), Some((start, count))) => Some(self.windowed(w, start, count, 0x3FFF_FFFF)),
            (w, _) => w,
        };
        let mut idx = [zero; 4];
        let mut n = 0;
        if let Some(i) = d.index {
            idx[n] = i;
            n += 1;
        }
        idx[n] = zero;
        n += 1;
        if let Some(w) = word {
            idx[n] = w;
            n += 1;
        }
        if let Some(l) = lane {
            idx[n] = l;
            n += 1;
        }
        let p = self.chain(pt, d.var, &idx[..n]);
        if d.nonuniform {
            self.nonuniform(p);
        }
        p
    }

    /// `index` moved into a view's window `(start, count)`. Accesses are bounds-checked against `count` before they
    /// get here when bounds checks are on; without them, an index past the window becomes `oob`, past any
    /// descriptor, which robust buffer access turns into a zero read or a dropped write.
    pub fn windowed(&mut self, index: Id, start: Id, count: Id, oob: u32) -> Id {
        let u = self.b.u32();
        let moved = self.op2(Op::IAdd, u, index, start);
        if self.opts.bounds_checks {
            return moved;
        }
        let bt = self.b.bool();
        let inside = self.op2(Op::ULessThan, bt, index, count);
        let far = self.b.const_u32(oob);
        self.select(u, inside, moved, far)
    }

    /// Length of the runtime array of a storage-buffer view, in elements: the window's size where the offset buffer
    /// gives one, unlimited for root descriptors (D3D12 checks no bounds there).
    pub fn ssbo_len(&mut self, h: &HandleInfo, d: &Desc, view: View) -> Id {
        if let Some((_, count)) = d.window {
            return count;
        }
        if d.storage == StorageClass::PhysicalStorageBuffer {
            let unit = match view {
                View::Ssbo16 => 2,
                View::SsboVec4 => 16,
                View::Ssbo64 | View::SsboVec2 => 8,
                _ => 4,
            };
            return self.b.const_u32(u32::MAX / unit);
        }
        let key = (h.res << 8 | view as u32, d.index.map_or(0, Id::word));
        if let Some(&id) = self.f.desc_cache.get(&key) {
            return id;
        }
        let u32t = self.b.u32();
        let block = match d.index {
            Some(i) => {
                let pt = self.b.ptr(StorageClass::StorageBuffer, d.ty);
                let p = self.chain(pt, d.var, &[i]);
                if d.nonuniform {
                    self.nonuniform(p);
                }
                p
            }
            None => d.var,
        };
        let id = self.opn(Op::ArrayLength, u32t, &words![block, 0]);
        self.f.desc_cache.insert(key, id);
        id
    }

    /// Loads the descriptor object (image, sampler, acceleration structure) of a view.
    pub fn load_object(&mut self, h: &HandleInfo, view: View) -> Result<(Id, Id), Error> {
        let d = self.desc(h, view)?;
        let key = (
            h.res << 8 | view as u32 | 0x80,
            d.index.map_or(u32::MAX, Id::word),
        );
        if let Some(&id) = self.f.desc_cache.get(&key) {
            return Ok((id, d.ty));
        }
        let ptr = match d.index {
            Some(i) => {
                let pt = self.b.ptr(StorageClass::UniformConstant, d.ty);
                let p = self.chain(pt, d.var, &[i]);
                if d.nonuniform {
                    self.nonuniform(p);
                }
                p
            }
            None => d.var,
        };
        let id = self.load(d.ty, ptr);
        if d.nonuniform {
            self.nonuniform(id);
        }
        self.f.desc_cache.insert(key, id);
        Ok((id, d.ty))
    }

    /// The acceleration structure of a handle: its descriptor, or the 64-bit address the binding model keeps it as
    /// (a root SRV's address in the root block, a heap slot's in the address table), converted.
    pub fn load_accel(&mut self, h: &HandleInfo) -> Result<Id, Error> {
        let kind = self.decl(h).kind;
        if kind != ResourceKind::RTAccelerationStructure {
            return Err(self.invalid(Invalid::resource(format!(
                "a {kind:?} used as an acceleration structure"
            ))));
        }
        let address = match self.placement_of(h.res, View::Accel)? {
            Placement::DeviceAddress { offset } => {
                let lo = self.root_word(h.res, offset / 4)?;
                let hi = self.root_word(h.res, offset / 4 + 1)?;
                let u = self.b.u32();
                let v2 = self.b.vec(u, 2);
                self.op2(Op::CompositeConstruct, v2, lo, hi)
            }
            Placement::AddressTable { .. } => self.table_address(h, View::Accel)?,
            _ => return Ok(self.load_object(h, View::Accel)?.0),
        };
        let t = self.b.ty(TypeKey::AccelerationStructure);
        Ok(self.op1(Op::ConvertUToAccelerationStructureKHR, t, address))
    }

    /// The pointer to an image variable (element), for `OpImageTexelPointer`.
    pub fn image_ptr(&mut self, h: &HandleInfo) -> Result<(Id, Id, bool), Error> {
        let d = self.desc(h, View::Image)?;
        Ok(match d.index {
            Some(i) => {
                let pt = self.b.ptr(StorageClass::UniformConstant, d.ty);
                let p = self.chain(pt, d.var, &[i]);
                if d.nonuniform {
                    self.nonuniform(p);
                }
                (p, d.ty, d.nonuniform)
            }
            None => (d.var, d.ty, false),
        })
    }

    /// Word `w` of the root block: push constants, or the uniform buffer it spilled into (see
    /// [`crate::binding::RootBlockPlacement`]).
    pub fn push_word(&mut self, w: u32) -> Result<Id, Error> {
        let u32t = self.b.u32();
        match self.opts.binding.root_block() {
            RootBlockPlacement::PushConstants { bytes } => {
                let block = match self.push_block {
                    Some(b) => b,
                    None => {
                        let words = (bytes / 4).max(1);
                        let arr = self.b.ty(TypeKey::LaidOutArray {
                            elem: u32t,
                            len: words,
                            stride: 4,
                        });
                        let s = self.b.struct_type(&[arr]);
                        self.b.decorate(s, Decoration::Block, &[]);
                        self.b.member_decorate(s, 0, Decoration::Offset, &[0]);
                        let pt = self.b.ptr(StorageClass::PushConstant, s);
                        let var = self.b.global_var(pt, StorageClass::PushConstant, None);
                        self.b.name(var, "root_constants");
                        self.push_block = Some(var);
                        var
                    }
                };
                let pt = self.b.ptr(StorageClass::PushConstant, u32t);
                let zero = self.b.const_u32(0);
                let wc = self.b.const_u32(w);
                let p = self.chain(pt, block, &[zero, wc]);
                Ok(self.load(u32t, p))
            }
            RootBlockPlacement::UniformBuffer {
                set,
                binding,
                bytes,
            } => {
                let block = match self.push_block {
                    Some(b) => b,
                    None => {
                        // `uvec4` rows: uniform-buffer arrays need a 16-byte stride.
                        let rows = bytes.div_ceil(16).max(1);
                        let v4 = self.b.vec(u32t, 4);
                        let arr = self.b.ty(TypeKey::LaidOutArray {
                            elem: v4,
                            len: rows,
                            stride: 16,
                        });
                        let s = self.b.struct_type(&[arr]);
                        self.b.decorate(s, Decoration::Block, &[]);
                        self.b.member_decorate(s, 0, Decoration::Offset, &[0]);
                        let pt = self.b.ptr(StorageClass::Uniform, s);
                        let var = self.b.global_var(pt, StorageClass::Uniform, None);
                        self.b.decorate(var, Decoration::DescriptorSet, &[set]);
                        self.b.decorate(var, Decoration::Binding, &[binding]);
                        self.b.name(var, "root_block");
                        self.bindings.push(Binding {
                            set,
                            binding,
                            descriptor_type: DescriptorType::UniformBuffer,
                            count: DescriptorCount::One,
                            resource: BoundResource::RootBlock,
                            writable: false,
                            format: None,
                        });
                        self.push_block = Some(var);
                        var
                    }
                };
                let pt = self.b.ptr(StorageClass::Uniform, u32t);
                let zero = self.b.const_u32(0);
                let row = self.b.const_u32(w / 4);
                let col = self.b.const_u32(w % 4);
                let p = self.chain(pt, block, &[zero, row, col]);
                Ok(self.load(u32t, p))
            }
        }
    }
}
