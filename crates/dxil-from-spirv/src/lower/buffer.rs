//! Resources: descriptor variables become DXIL resources; buffer memory is reached by byte
//! offsets computed from the `Offset`, `ArrayStride` and `MatrixStride` decorations.
//!
//! Storage buffers become raw buffers (`ByteAddressBuffer`, an SRV, when the shader never
//! writes them; `RWByteAddressBuffer`, a UAV, otherwise), uniform buffers and push constants
//! constant buffers read a 16-byte row at a time.

use dxil_module::{BinOp, Value};
use dxil_shader::ops::OpCode;
use dxil_shader::{ComponentType, ResourceClass, ResourceKind};
use spirv::{Op, StorageClass};

use super::int8::ByteShift;
use super::memory::{Base, Ptr};
use super::{Slot, Tr};
use crate::builder::Scalar;
use crate::error::{Result, inexpressible, limit, malformed, unsupported};
use crate::spv::{DecorFlags, Inst, Type};

/// One scalar of a buffer value: its register kind and byte offset, and whether memory holds
/// it in one byte (an 8-bit integer, which registers keep in `i32`; see `int8`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Leaf {
    pub k: Scalar,
    pub off: u64,
    pub byte: bool,
}

/// What a resource is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResKind {
    /// A storage buffer (raw buffer).
    Raw,
    /// A uniform buffer (`cbuffer`) of this many bytes.
    CBuffer { size: u32 },
    /// Push constants (root constants), of this many bytes.
    PushConstants { size: u32 },
    /// A texture or typed buffer: DXIL kind, component type and count.
    Typed {
        kind: ResourceKind,
        comp: ComponentType,
        count: u8,
        sample_count: u32,
    },
    /// A sampler; `comparison` once it is used for depth comparison.
    Sampler { comparison: bool },
    /// A ray tracing acceleration structure (an SRV of kind `RTAccelerationStructure`),
    /// which only ray queries read.
    AccelStruct,
}

/// A handle creation to complete: the `createHandle` (or `createHandleFromBinding`) call,
/// the `annotateHandle` after it (shader model 6.6), and the `add` that offsets a dynamic
/// array index by the base register (or the constant index).
#[derive(Clone, Copy, Debug)]
pub struct CreateSite {
    /// The function the call is in.
    pub func: dxil_module::FuncId,
    pub call: Value,
    pub annotate: Option<Value>,
    pub add: Option<Value>,
}

/// One DXIL resource (a combined image-sampler variable makes two).
#[derive(Clone, Debug)]
pub struct Resource {
    pub var: u32,
    pub set: u32,
    pub binding: u32,
    pub kind: ResKind,
    /// SRV, UAV, CBV or sampler; storage buffers and storage images are decided by use.
    pub class: ResourceClass,
    /// Number of descriptors: 1, the array length, or `u32::MAX` for runtime arrays.
    pub count: u32,
    /// Declared as an array of descriptors (also one of one element, which is indexed as
    /// arrays are).
    pub arrayed: bool,
    pub space: u32,
    pub lower: u32,
    /// Written (stores, atomics) by the shader.
    pub written: bool,
    pub read_only: bool,
    pub globally_coherent: bool,
    /// The handle made in the first block (single descriptors).
    pub handle: Option<Value>,
    /// Handle creations whose class, range and register arguments are filled in once the
    /// bindings are placed.
    pub creates: Vec<CreateSite>,
    /// The image half of a combined image-sampler.
    pub combined: bool,
    /// Other variables bound to the same descriptor (aliases).
    pub aliases: Vec<u32>,
    /// Samplers: bit 0 used for plain sampling, bit 1 for depth comparison, bit 2 for LOD
    /// queries.
    pub sampler_modes: u8,
    /// A 64-bit atomic operates on it (resource tag 3, PSV0 flag).
    pub atomic64: bool,
    /// A rasterizer-ordered view (the shader uses fragment interlock).
    pub rov: bool,
    /// Index into its class's list of `!dx.resources`.
    pub range_id: u32,
    /// Whether this is the sampler half of a combined image-sampler.
    pub is_sampler_half: bool,
    pub name: Option<String>,
}

impl Tr<'_> {
    /// The functions the entry point reaches, entry first.
    pub fn reachable_functions(&self) -> Result<Vec<u32>> {
        let mut out = vec![self.entry.function];
        let mut i = 0;
        while i < out.len() {
            let f = out[i];
            i += 1;
            let Some(func) = self.spv.function(f) else {
                continue;
            };
            for b in &func.blocks {
                for inst in self.spv.insts(b.start, b.end) {
                    let inst = inst?;
                    if inst.op() == Some(Op::FunctionCall) {
                        let callee = inst.word(2)?;
                        if !out.contains(&callee) {
                            out.push(callee);
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// Finds the global variables the entry point uses and makes the resources among them.
    pub fn collect_globals(&mut self) -> Result<()> {
        let spv = self.spv;
        let mut is_global = vec![false; spv.bound as usize];
        for &g in &spv.globals {
            is_global[g as usize] = true;
        }
        let mut used = vec![false; spv.bound as usize];
        for &g in &self.entry.interface {
            // A private ray query the code never names would allocate a query (and ask for
            // inline ray tracing) for nothing.
            if self.global_class(g) == Some(StorageClass::Private)
                && let Ok(d) = spv.def(g)
                && let Ok((_, pointee)) = self.pointee(d.ty)
                && self.holds_ray_query(pointee, 0)
            {
                continue;
            }
            if let Some(u) = used.get_mut(g as usize) {
                *u = is_global.get(g as usize).copied().unwrap_or(false);
            }
        }
        for f in self.reachable_functions()? {
            let Some(func) = spv.function(f) else {
                continue;
            };
            let (Some(first), Some(last)) = (func.blocks.first(), func.blocks.last()) else {
                continue;
            };
            for &w in spv
                .words
                .get(first.start as usize..last.end as usize)
                .unwrap_or(&[])
            {
                if let Some(true) = is_global.get(w as usize) {
                    used[w as usize] = true;
                }
            }
        }
        // Initializers of used globals may name other globals only as constants; fine.
        self.used_globals = spv
            .globals
            .iter()
            .copied()
            .filter(|&g| used[g as usize])
            .collect();
        for g in self.used_globals.clone() {
            let def = spv.def(g)?;
            let inst = spv.inst_at(def.offset)?;
            let (class, pointee) = self.pointee(def.ty)?;
            let r = match class {
                StorageClass::StorageBuffer
                | StorageClass::Uniform
                | StorageClass::PushConstant
                | StorageClass::UniformConstant => self.add_resource(g, class, pointee),
                StorageClass::Input | StorageClass::Output => self.add_io(g, class, pointee),
                StorageClass::Private | StorageClass::Workgroup => Ok(()),
                // Made by the mesh prologue.
                StorageClass::TaskPayloadWorkgroupEXT
                    if matches!(
                        self.model,
                        spirv::ExecutionModel::TaskEXT | spirv::ExecutionModel::MeshEXT
                    ) =>
                {
                    Ok(())
                }
                StorageClass::PhysicalStorageBuffer => Err(inexpressible(
                    "PhysicalStorageBuffer variables (DXIL has no buffer device addresses)",
                )),
                c => Err(unsupported(format!("variables in {c:?} storage"))),
            };
            r.map_err(|e| e.or_at(inst.location()))?;
        }
        Ok(())
    }

    fn add_resource(&mut self, var: u32, class: StorageClass, pointee: u32) -> Result<()> {
        let d = *self.spv.decor.get(var);
        // Descriptor arrays.
        let (count, inner, arrayed) = match self.spv.ty(pointee)? {
            Type::Array { elem, len } if class != StorageClass::PushConstant => {
                let n = self.const_u64(len)?;
                (
                    u32::try_from(n).map_err(|_| limit("descriptor array length"))?,
                    elem,
                    true,
                )
            }
            Type::RuntimeArray { elem } => (u32::MAX, elem, true),
            _ => (1, pointee, false),
        };
        let name = self.spv.name(var);
        if class != StorageClass::PushConstant && class != StorageClass::UniformConstant {
            let (set, binding) = (d.set.unwrap_or(0), d.binding.unwrap_or(0));
            let is_cbuffer = class == StorageClass::Uniform
                && !self
                    .spv
                    .decor
                    .get(inner)
                    .flags
                    .contains(DecorFlags::BUFFER_BLOCK);
            // Aliased storage buffers are one raw buffer.
            let ro = self.block_read_only(var, inner);
            if !is_cbuffer
                && let Some(r) = self.resources.iter_mut().find(|r| {
                    r.kind == ResKind::Raw
                        && r.set == set
                        && r.binding == binding
                        && r.count == count
                })
            {
                r.aliases.push(var);
                r.read_only &= ro;
                return Ok(());
            }
        }
        let mut r = Resource {
            var,
            set: d.set.unwrap_or(0),
            binding: d.binding.unwrap_or(0),
            kind: ResKind::Raw,
            class: ResourceClass::SRV,
            count,
            arrayed,
            space: 0,
            lower: 0,
            written: false,
            read_only: false,
            globally_coherent: d.flags.contains(DecorFlags::COHERENT),
            handle: None,
            creates: Vec::new(),
            range_id: 0,
            is_sampler_half: false,
            combined: false,
            aliases: Vec::new(),
            sampler_modes: 0,
            atomic64: false,
            rov: false,
            name,
        };
        let inner_decor = *self.spv.decor.get(inner);
        match (class, self.spv.ty(inner)?) {
            (StorageClass::PushConstant, Type::Struct { .. }) => {
                let size = self.block_size(inner)?;
                r.kind = ResKind::PushConstants { size };
                r.class = ResourceClass::CBuffer;
            }
            (StorageClass::Uniform, Type::Struct { .. })
                if inner_decor.flags.contains(DecorFlags::BUFFER_BLOCK) =>
            {
                r.read_only = self.block_read_only(var, inner);
            }
            (StorageClass::StorageBuffer, Type::Struct { .. }) => {
                r.read_only = self.block_read_only(var, inner);
            }
            (StorageClass::Uniform, Type::Struct { .. }) => {
                let size = self.block_size(inner)?;
                r.kind = ResKind::CBuffer { size };
                r.class = ResourceClass::CBuffer;
            }
            (StorageClass::UniformConstant, Type::Image(img)) => {
                r.kind = self.image_kind(&img)?;
                // Subpass inputs are read-only attachments, which D3D12 reads as textures.
                let subpass = img.dim == spirv::Dim::DimSubpassData;
                r.class = if img.sampled == 2 && !subpass {
                    ResourceClass::UAV
                } else {
                    ResourceClass::SRV
                };
                if subpass {
                    self.declare_frag_position()?;
                }
                if img.ms && r.class == ResourceClass::UAV {
                    return Err(unsupported(
                        "multisampled storage images (writable MSAA textures need shader model 6.7)",
                    ));
                }
            }
            (StorageClass::UniformConstant, Type::Sampler) => {
                r.kind = ResKind::Sampler { comparison: false };
                r.class = ResourceClass::Sampler;
            }
            (StorageClass::UniformConstant, Type::SampledImage { image }) => {
                let Type::Image(img) = self.spv.ty(image)? else {
                    return Err(malformed("sampled image of a non-image type"));
                };
                r.kind = self.image_kind(&img)?;
                r.class = ResourceClass::SRV;
                r.combined = true;
                let mut s = r.clone();
                s.kind = ResKind::Sampler { comparison: false };
                s.class = ResourceClass::Sampler;
                s.is_sampler_half = true;
                self.resources.push(r);
                self.resources.push(s);
                return Ok(());
            }
            (StorageClass::UniformConstant, Type::AccelerationStructure) => {
                r.kind = ResKind::AccelStruct;
                r.class = ResourceClass::SRV;
                // Acceleration structures exist from DXR (shader model 6.3); the translation
                // needs only inline ray tracing (6.5), which `ray_query` asks for.
                self.features.need_sm(6, 3);
            }
            (_, t) => {
                return Err(unsupported(format!(
                    "a {class:?} variable of type {}",
                    super::type_name(&t)
                )));
            }
        }
        self.resources.push(r);
        Ok(())
    }

    fn block_read_only(&self, var: u32, block: u32) -> bool {
        if self
            .spv
            .decor
            .get(var)
            .flags
            .contains(DecorFlags::NON_WRITABLE)
        {
            return true;
        }
        let Ok(Type::Struct { members }) = self.spv.ty(block) else {
            return false;
        };
        members.1 > 0
            && (0..members.1).all(|i| {
                self.spv
                    .decor
                    .member(block, i)
                    .flags
                    .contains(DecorFlags::NON_WRITABLE)
            })
    }

    /// The size of a block: the end of its last member (rounded up to 16 for constant
    /// buffers by the caller).
    pub fn block_size(&mut self, block: u32) -> Result<u32> {
        let end = self.byte_size(block, None, 0)?;
        u32::try_from(end).map_err(|_| limit("constant buffer larger than 4 GiB"))
    }

    /// Bytes a value of `ty` spans in a buffer.
    fn byte_size(&mut self, ty: u32, mat: Option<(u32, bool)>, depth: u32) -> Result<u64> {
        if depth > super::types::MAX_TYPE_DEPTH {
            return Err(limit("types nested too deeply"));
        }
        Ok(match self.spv.ty(ty)? {
            Type::Bool => 4,
            Type::Int { width, .. } | Type::Float { width } => u64::from(width / 8),
            Type::Vector { elem, n } => {
                u64::from(n).saturating_mul(self.byte_size(elem, None, depth + 1)?)
            }
            Type::Matrix { col, n } => {
                let (stride, row_major) = mat.unwrap_or((16, false));
                let Type::Vector { elem, n: rows } = self.spv.ty(col)? else {
                    return Err(malformed("matrix column is not a vector"));
                };
                let es = self.byte_size(elem, None, depth + 1)?;
                if row_major {
                    u64::from(rows - 1) * u64::from(stride) + u64::from(n).saturating_mul(es)
                } else {
                    u64::from(n - 1) * u64::from(stride) + u64::from(rows).saturating_mul(es)
                }
            }
            Type::Array { elem, len } => {
                let n = self.array_len(len)?;
                let stride = u64::from(self.array_stride(ty)?);
                let last = self.byte_size(elem, mat, depth + 1)?;
                (n - 1).saturating_mul(stride).saturating_add(last)
            }
            Type::RuntimeArray { .. } => 0,
            Type::Struct { members } => {
                let mut end = 0u64;
                for i in 0..members.1 {
                    let m = self.spv.type_lists[(members.0 + i) as usize];
                    let md = self.spv.decor.member(ty, i);
                    let off = u64::from(md.offset.ok_or_else(|| {
                        malformed(format!("member {i} of block %{ty} has no Offset"))
                    })?);
                    let mat = md
                        .matrix_stride
                        .map(|s| (s, md.flags.contains(DecorFlags::ROW_MAJOR)));
                    end = end.max(off.saturating_add(self.byte_size(m, mat, depth + 1)?));
                }
                end
            }
            t => {
                return Err(super::types::type_error(&t, "in a buffer"));
            }
        })
    }

    fn array_stride(&self, ty: u32) -> Result<u32> {
        self.spv
            .decor
            .get(ty)
            .array_stride
            .ok_or_else(|| malformed(format!("array type %{ty} in a buffer has no ArrayStride")))
    }

    fn image_kind(&self, img: &crate::spv::ImageType) -> Result<ResKind> {
        use spirv::Dim;
        let kind = match (img.dim, img.arrayed, img.ms) {
            (Dim::Dim1D, false, _) => ResourceKind::Texture1D,
            (Dim::Dim1D, true, _) => ResourceKind::Texture1DArray,
            (Dim::Dim2D, false, false) => ResourceKind::Texture2D,
            (Dim::Dim2D, true, false) => ResourceKind::Texture2DArray,
            (Dim::Dim2D, false, true) => ResourceKind::Texture2DMS,
            (Dim::Dim2D, true, true) => ResourceKind::Texture2DMSArray,
            (Dim::Dim3D, _, _) => ResourceKind::Texture3D,
            // D3D has no writable cube textures: a storage cube (array) image is its faces as
            // the layers of a 2D array (layer-face = 6 * layer + face), which is also how
            // SPIR-V addresses its texels.
            (Dim::DimCube, _, _) if img.sampled == 2 => ResourceKind::Texture2DArray,
            (Dim::DimCube, false, _) => ResourceKind::TextureCube,
            (Dim::DimCube, true, _) => ResourceKind::TextureCubeArray,
            (Dim::DimBuffer, _, _) => ResourceKind::TypedBuffer,
            (Dim::DimSubpassData, false, false) => ResourceKind::Texture2D,
            (Dim::DimSubpassData, false, true) => ResourceKind::Texture2DMS,
            (d, _, _) => return Err(unsupported(format!("images of dimension {d:?}"))),
        };
        let comp = match self.spv.ty(img.sampled_type)? {
            Type::Float { width: 32 } => ComponentType::F32,
            Type::Float { width: 16 } => ComponentType::F16,
            Type::Int {
                width: 32,
                signed: true,
            } => ComponentType::I32,
            Type::Int {
                width: 32,
                signed: false,
            } => ComponentType::U32,
            Type::Int {
                width: 64,
                signed: true,
            } => ComponentType::I64,
            Type::Int {
                width: 64,
                signed: false,
            } => ComponentType::U64,
            _ => return Err(unsupported("images of this sampled type")),
        };
        let count = if comp == ComponentType::U64 {
            1
        } else {
            format_components(img.format).unwrap_or(4)
        };
        Ok(ResKind::Typed {
            kind,
            comp,
            count,
            sample_count: 0,
        })
    }

    /// A pointer to a descriptor variable.
    pub fn resource_pointer(&mut self, var: u32, pointee: u32) -> Result<Ptr> {
        let res = self
            .resources
            .iter()
            .position(|r| (r.var == var || r.aliases.contains(&var)) && !r.is_sampler_half)
            .ok_or_else(|| crate::error::internal(format!("resource %{var} was not collected")))?
            as u32;
        let r = &self.resources[res as usize];
        let block = match self.spv.ty(pointee)? {
            Type::Array { elem, .. } | Type::RuntimeArray { elem } if r.arrayed => elem,
            _ => pointee,
        };
        if !r.arrayed
            && let Some(h) = r.handle
        {
            if matches!(
                r.kind,
                ResKind::Typed { .. } | ResKind::Sampler { .. } | ResKind::AccelStruct
            ) {
                return Ok(Ptr::new(Base::Resource { res, index: None }, pointee));
            }
            return Ok(Ptr::new(Base::Buffer { res, handle: h }, block));
        }
        Ok(Ptr::new(Base::Resource { res, index: None }, pointee))
    }

    /// Creates the handles of single (non-array) descriptors in the first block.
    pub fn create_handles(&mut self) -> Result<()> {
        for i in 0..self.resources.len() {
            if self.resources[i].arrayed {
                continue;
            }
            let h = self.create_handle(i as u32, None, false)?;
            self.resources[i].handle = Some(h);
        }
        Ok(())
    }

    /// `createHandle(class, range, register + index, nonUniform)`; class and range are set
    /// when the resource lists are known.
    pub fn create_handle(
        &mut self,
        res: u32,
        index: Option<Value>,
        non_uniform: bool,
    ) -> Result<Value> {
        let class = self.b.i8c(0);
        let range = self.b.i32c(0);
        let zero = self.b.i32c(0);
        let constant = index.and_then(|v| self.b.as_const_int(v));
        let (idx, add) = match index {
            Some(_) if constant.is_some() => {
                let k = self.b.i32c(constant.unwrap_or(0));
                (k, Some(k))
            }
            Some(v) => {
                // The base register is added once bindings are placed.
                let a = self.b.binary(BinOp::Add, v, zero)?;
                (a, Some(a))
            }
            None => (zero, None),
        };
        let nu = self.b.i1c(non_uniform);
        let h = self.b.handle_type();
        if self.handles66 {
            let bind_ty = self.b.res_bind_type();
            let bind = self.b.undef(bind_ty);
            let call = self
                .b
                .dxop(OpCode::CreateHandleFromBinding, None, h, &[bind, idx, nu])?;
            let props_ty = self.b.res_props_type();
            let props = self.b.undef(props_ty);
            let annotated = self
                .b
                .dxop(OpCode::AnnotateHandle, None, h, &[call, props])?;
            self.resources[res as usize].creates.push(CreateSite {
                func: self.b.building,
                call,
                annotate: Some(annotated),
                add,
            });
            return Ok(annotated);
        }
        let call = self
            .b
            .dxop(OpCode::CreateHandle, None, h, &[class, range, idx, nu])?;
        self.resources[res as usize].creates.push(CreateSite {
            func: self.b.building,
            call,
            annotate: None,
            add,
        });
        Ok(call)
    }

    /// An access chain step through a descriptor array, or into a buffer block.
    pub fn resource_step(&mut self, p: &mut Ptr, idx: u32) -> Result<()> {
        let Base::Resource { res, index } = p.base else {
            return Err(crate::error::internal("not a descriptor pointer"));
        };
        if index.is_some() || !self.resources[res as usize].arrayed {
            return Err(malformed("index into a descriptor that is not an array"));
        }
        let v = self.scalar(idx)?;
        let v = self.int_to_i32(v, false)?;
        let nu = self
            .spv
            .decor
            .get(idx)
            .flags
            .contains(DecorFlags::NON_UNIFORM);
        let elem = self.element_type(p.ty)?;
        match self.resources[res as usize].kind {
            ResKind::Typed { .. } | ResKind::Sampler { .. } | ResKind::AccelStruct => {
                p.base = Base::Resource {
                    res,
                    index: Some(v),
                };
                if nu {
                    p.vertex = Some(v);
                }
                p.ty = elem;
            }
            _ => {
                let h = self.create_handle(res, Some(v), nu)?;
                *p = Ptr::new(Base::Buffer { res, handle: h }, elem);
            }
        }
        Ok(())
    }

    /// `OpLoad` of a descriptor: its handle (or the handles of a combined image-sampler).
    pub fn load_descriptor(&mut self, p: &Ptr) -> Result<Slot> {
        let Base::Resource { res, index } = p.base else {
            return Err(crate::error::internal("not a descriptor pointer"));
        };
        let non_uniform = p.vertex.is_some();
        let handle = match index {
            None => self.resources[res as usize]
                .handle
                .ok_or_else(|| malformed("load of a whole descriptor array"))?,
            Some(i) => self.create_handle(res, Some(i), non_uniform)?,
        };
        let sampler_res = res + 1;
        if self
            .resources
            .get(sampler_res as usize)
            .is_some_and(|s| s.is_sampler_half && s.var == self.resources[res as usize].var)
        {
            let sampler = match index {
                None => self.resources[sampler_res as usize]
                    .handle
                    .ok_or_else(|| crate::error::internal("sampler half without handle"))?,
                Some(i) => self.create_handle(sampler_res, Some(i), non_uniform)?,
            };
            return Ok(Slot::Sampled {
                res,
                handle,
                sampler_res,
                sampler,
            });
        }
        Ok(Slot::Handle { res, handle })
    }

    /// An access chain step inside a buffer: byte offsets from the layout decorations.
    pub fn buffer_step(&mut self, p: &mut Ptr, idx: u32) -> Result<()> {
        let ix = self.index_operand(idx)?;
        match self.spv.ty(p.ty)? {
            Type::Struct { .. } => {
                let Err(k) = ix else {
                    return Err(malformed("struct member index is not a constant"));
                };
                let k = u32::try_from(k).map_err(|_| malformed("member index out of range"))?;
                let md = self.spv.decor.member(p.ty, k);
                let off = md
                    .offset
                    .ok_or_else(|| malformed(format!("member {k} of %{} has no Offset", p.ty)))?;
                let Type::Struct { members } = self.spv.ty(p.ty)? else {
                    return Err(crate::error::internal("struct"));
                };
                if k >= members.1 {
                    return Err(malformed(format!(
                        "member {k} of a struct of {}",
                        members.1
                    )));
                }
                p.off = p.off.saturating_add(u64::from(off));
                p.mat = md
                    .matrix_stride
                    .map(|s| (s, md.flags.contains(DecorFlags::ROW_MAJOR)));
                p.ty = self.spv.type_lists[(members.0 + k) as usize];
            }
            Type::Array { elem, .. } | Type::RuntimeArray { elem } => {
                let stride = u64::from(self.array_stride(p.ty)?);
                self.add_offset(p, ix, stride)?;
                p.ty = elem;
            }
            Type::Matrix { col, .. } => {
                let (stride, row_major) = p.mat.unwrap_or((16, false));
                let Type::Vector { elem, .. } = self.spv.ty(col)? else {
                    return Err(malformed("matrix column is not a vector"));
                };
                let es = self.byte_size(elem, None, 0)?;
                if row_major {
                    self.add_offset(p, ix, es)?;
                    p.comp_stride = stride;
                } else {
                    self.add_offset(p, ix, u64::from(stride))?;
                    p.comp_stride = es as u32;
                }
                p.ty = col;
            }
            Type::Vector { elem, .. } => {
                let es = self.byte_size(elem, None, 0)?;
                let stride = if p.comp_stride != 0 {
                    u64::from(p.comp_stride)
                } else {
                    es
                };
                self.add_offset(p, ix, stride)?;
                p.ty = elem;
            }
            t => {
                return Err(malformed(format!(
                    "access chain into a {} in a buffer",
                    super::type_name(&t)
                )));
            }
        }
        Ok(())
    }

    fn add_offset(
        &mut self,
        p: &mut Ptr,
        ix: std::result::Result<Value, u64>,
        stride: u64,
    ) -> Result<()> {
        match ix {
            Err(k) => {
                p.off = p.off.saturating_add(k.saturating_mul(stride));
                Ok(())
            }
            Ok(v) => self.add_dynamic(p, v, stride),
        }
    }

    /// The scalars of a buffer value with their byte offsets, in leaf order.
    fn buffer_leaves(
        &mut self,
        ty: u32,
        off: u64,
        mat: Option<(u32, bool)>,
        comp_stride: u32,
        out: &mut Vec<Leaf>,
        depth: u32,
    ) -> Result<()> {
        if depth > super::types::MAX_TYPE_DEPTH {
            return Err(limit("types nested too deeply"));
        }
        if out.len() as u64 > super::types::MAX_LEAVES {
            return Err(limit("buffer value too large to load at once"));
        }
        match self.spv.ty(ty)? {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => {
                out.push(self.buffer_scalar(ty, off)?);
            }
            Type::Vector { elem, n } => {
                let es = self.byte_size(elem, None, 0)?;
                let stride = if comp_stride != 0 {
                    u64::from(comp_stride)
                } else {
                    es
                };
                for i in 0..u64::from(n) {
                    out.push(
                        self.buffer_scalar(elem, off.saturating_add(i.saturating_mul(stride)))?,
                    );
                }
            }
            Type::Matrix { col, n } => {
                let (stride, row_major) = mat.unwrap_or((16, false));
                let Type::Vector { elem, .. } = self.spv.ty(col)? else {
                    return Err(malformed("matrix column is not a vector"));
                };
                let es = self.byte_size(elem, None, 0)?;
                for c in 0..u64::from(n) {
                    if row_major {
                        self.buffer_leaves(
                            col,
                            off.saturating_add(c * es),
                            None,
                            stride,
                            out,
                            depth + 1,
                        )?;
                    } else {
                        self.buffer_leaves(
                            col,
                            off + c * u64::from(stride),
                            None,
                            0,
                            out,
                            depth + 1,
                        )?;
                    }
                }
            }
            Type::Array { elem, len } => {
                let n = self.array_len(len)?;
                let stride = u64::from(self.array_stride(ty)?);
                for i in 0..n {
                    self.buffer_leaves(
                        elem,
                        off.saturating_add(i.saturating_mul(stride)),
                        mat,
                        0,
                        out,
                        depth + 1,
                    )?;
                }
            }
            Type::Struct { members } => {
                for i in 0..members.1 {
                    let m = self.spv.type_lists[(members.0 + i) as usize];
                    let md = self.spv.decor.member(ty, i);
                    let moff = md
                        .offset
                        .ok_or_else(|| malformed(format!("member {i} of %{ty} has no Offset")))?;
                    let mat = md
                        .matrix_stride
                        .map(|s| (s, md.flags.contains(DecorFlags::ROW_MAJOR)));
                    self.buffer_leaves(
                        m,
                        off.saturating_add(u64::from(moff)),
                        mat,
                        0,
                        out,
                        depth + 1,
                    )?;
                }
            }
            Type::RuntimeArray { .. } => {
                return Err(unsupported("loading or storing a whole runtime array"));
            }
            t => {
                return Err(super::types::type_error(&t, "in a buffer"));
            }
        }
        Ok(())
    }

    fn buffer_layout(&mut self, p: &Ptr, ty: u32) -> Result<Vec<Leaf>> {
        let mut out = Vec::new();
        self.buffer_leaves(ty, p.off, p.mat, p.comp_stride, &mut out, 0)?;
        Ok(out)
    }

    /// Byte offset value: dynamic part plus `off`.
    pub fn byte_offset(&mut self, p: &Ptr, off: u64) -> Result<Value> {
        let off = u32::try_from(off).map_err(|_| limit("buffer offset over 4 GiB"))?;
        let k = self.b.i32c(i64::from(off));
        match p.dyn_off {
            Some(d) if off == 0 => Ok(d),
            Some(d) => self.b.binary(BinOp::Add, d, k),
            None => Ok(k),
        }
    }

    pub fn load_buffer(&mut self, p: &Ptr, ty: u32) -> Result<Vec<Value>> {
        let Base::Buffer { res, handle } = p.base else {
            return Err(crate::error::internal("not a buffer pointer"));
        };
        let leaves = self.buffer_layout(p, ty)?;
        match self.resources[res as usize].kind {
            ResKind::Raw => self.load_raw(p, handle, &leaves),
            ResKind::CBuffer { .. } | ResKind::PushConstants { .. } => {
                self.load_cbuffer(p, handle, &leaves)
            }
            _ => Err(crate::error::internal("buffer load from a non-buffer")),
        }
    }

    /// Raw buffer loads: runs of up to four contiguous 32-bit words per `bufferLoad`.
    fn load_raw(&mut self, p: &Ptr, handle: Value, leaves: &[Leaf]) -> Result<Vec<Value>> {
        // Every scalar as 32-bit words: (word offset, which half or 16-bit part).
        let mut out = Vec::with_capacity(leaves.len());
        let mut i = 0;
        let mut byte_word = None;
        while i < leaves.len() {
            let Leaf { k, off, byte } = leaves[i];
            if byte {
                let v = self.raw_load_8(p, handle, off, &mut byte_word)?;
                out.push(v);
                i += 1;
                continue;
            }
            if k.bits() == 16 {
                let v = self.raw_load_16(p, handle, k, off)?;
                out.push(v);
                i += 1;
                continue;
            }
            // Gather a run of 32-bit words: 64-bit scalars count two.
            let words_of = |k: Scalar| if k.bits() == 64 { 2u64 } else { 1 };
            let mut run = vec![(k, off)];
            let mut words = words_of(k);
            let mut j = i + 1;
            while j < leaves.len() {
                let Leaf {
                    k: k2,
                    off: off2,
                    byte,
                } = leaves[j];
                let (pk, poff) = run[run.len() - 1];
                if byte
                    || k2.bits() == 16
                    || off2 != poff + 4 * words_of(pk)
                    || words + words_of(k2) > 4
                    || (k2.is_float() != k.is_float() && k2 != Scalar::I1 && k != Scalar::I1)
                {
                    break;
                }
                words += words_of(k2);
                run.push((k2, off2));
                j += 1;
            }
            let float =
                k.is_float() && k.bits() == 32 && run.iter().all(|(k, _)| *k == Scalar::F32);
            let lane = if float { Scalar::F32 } else { Scalar::I32 };
            let ret = self.b.res_ret(lane);
            let lt = self.b.scalar(lane);
            let at = self.byte_offset(p, off)?;
            let undef = self.b.undef_scalar(Scalar::I32);
            let overload = self.b.scalar(lane);
            let r = self.b.dxop(
                OpCode::BufferLoad,
                Some(overload),
                ret,
                &[handle, at, undef],
            )?;
            let mut w = 0;
            for (k, _) in run {
                if k.bits() == 64 {
                    let lo = self.b.extract_value(r, w, lt)?;
                    let hi = self.b.extract_value(r, w + 1, lt)?;
                    out.push(self.join64(lo, hi, k)?);
                    w += 2;
                } else {
                    let v = self.b.extract_value(r, w, lt)?;
                    out.push(self.slot_to_scalar(v, lane, k)?);
                    w += 1;
                }
            }
            i = j;
        }
        Ok(out)
    }

    fn raw_load_16(&mut self, p: &Ptr, handle: Value, k: Scalar, off: u64) -> Result<Value> {
        self.features.native16 = true;
        self.features.need_sm(6, 2);
        let ret = self.b.res_ret(k);
        let kt = self.b.scalar(k);
        let at = self.byte_offset(p, off)?;
        let undef = self.b.undef_scalar(Scalar::I32);
        let mask = self.b.i8c(1);
        let align = self.b.i32c(2);
        let r = self.b.dxop(
            OpCode::RawBufferLoad,
            Some(kt),
            ret,
            &[handle, at, undef, mask, align],
        )?;
        self.b.extract_value(r, 0, kt)
    }

    /// Constant buffer loads: one `cbufferLoadLegacy` per 16-byte row.
    fn load_cbuffer(&mut self, p: &Ptr, handle: Value, leaves: &[Leaf]) -> Result<Vec<Value>> {
        let mut out = Vec::with_capacity(leaves.len());
        let static_rows = p.dyn_off.is_none() || p.dyn_align >= 16;
        let dyn_row = match p.dyn_off {
            Some(d) if static_rows => {
                let four = self.b.i32c(4);
                Some(self.b.binary(BinOp::LShr, d, four)?)
            }
            _ => None,
        };
        let mut cache: Vec<(u64, Value)> = Vec::new();
        let ret = self.b.cbuf_ret(Scalar::I32);
        let i32t = self.b.t.i32;
        for &Leaf { k, off, byte } in leaves {
            let mut words = Vec::with_capacity(2);
            let nwords = if k.bits() == 64 { 2 } else { 1 };
            for w in 0..nwords {
                let byte = off + 4 * w;
                let word = if static_rows {
                    let row = byte / 16;
                    let row_val = match cache.iter().find(|(r, _)| *r == row) {
                        Some(&(_, v)) => v,
                        None => {
                            let rk = self.b.i32c(row as i64);
                            let idx = match dyn_row {
                                Some(d) if row == 0 => d,
                                Some(d) => self.b.binary(BinOp::Add, d, rk)?,
                                None => rk,
                            };
                            let v = self.b.dxop(
                                OpCode::CBufferLoadLegacy,
                                Some(i32t),
                                ret,
                                &[handle, idx],
                            )?;
                            cache.push((row, v));
                            v
                        }
                    };
                    self.b
                        .extract_value(row_val, ((byte % 16) / 4) as u32, i32t)?
                } else {
                    self.cbuffer_dynamic_word(p, handle, byte)?
                };
                words.push(word);
            }
            let v = if byte {
                // The word fetch above drops the low two bits of the offset.
                let sh = if static_rows {
                    ByteShift::Fixed((off % 4) as u32 * 8)
                } else {
                    let at = self.byte_offset(p, off)?;
                    ByteShift::Dynamic(self.byte_shift(at)?)
                };
                self.extract_byte(words[0], sh)?
            } else if k.bits() == 64 {
                self.join64(words[0], words[1], k)?
            } else if k.bits() == 16 {
                // The 16-bit value sits in the low or high half of its word; with a dynamic
                // offset that is only a multiple of 2, which half is known at run time.
                let byte_in_word = off % 4;
                let w = if !static_rows && p.dyn_align < 4 {
                    let at = self.byte_offset(p, off)?;
                    let sh = self.byte_shift(at)?;
                    self.b.binary(BinOp::LShr, words[0], sh)?
                } else if byte_in_word != 0 {
                    let sh = self.b.i32c(16);
                    self.b.binary(BinOp::LShr, words[0], sh)?
                } else {
                    words[0]
                };
                self.slot_to_scalar(w, Scalar::I32, k)?
            } else {
                self.slot_to_scalar(words[0], Scalar::I32, k)?
            };
            out.push(v);
        }
        Ok(out)
    }

    /// One word at a fully dynamic byte offset: load the row, pick the word by selects.
    fn cbuffer_dynamic_word(&mut self, p: &Ptr, handle: Value, byte: u64) -> Result<Value> {
        let at = self.byte_offset(p, byte)?;
        let four = self.b.i32c(4);
        let row = self.b.binary(BinOp::LShr, at, four)?;
        let ret = self.b.cbuf_ret(Scalar::I32);
        let i32t = self.b.t.i32;
        let r = self
            .b
            .dxop(OpCode::CBufferLoadLegacy, Some(i32t), ret, &[handle, row])?;
        let two = self.b.i32c(2);
        let w = self.b.binary(BinOp::LShr, at, two)?;
        let three = self.b.i32c(3);
        let comp = self.b.binary(BinOp::And, w, three)?;
        let mut v = self.b.extract_value(r, 3, i32t)?;
        for c in (0..3).rev() {
            let e = self.b.extract_value(r, c, i32t)?;
            let kc = self.b.i32c(i64::from(c));
            let is = self.b.cmp(dxil_module::Predicate::ICMP_EQ, comp, kc)?;
            v = self.b.select(is, e, v)?;
        }
        Ok(v)
    }

    pub fn store_buffer(&mut self, p: &Ptr, vals: &[Value]) -> Result<()> {
        let Base::Buffer { res, handle } = p.base else {
            return Err(crate::error::internal("not a buffer pointer"));
        };
        if !matches!(self.resources[res as usize].kind, ResKind::Raw) {
            return Err(malformed("store to a uniform buffer or push constants"));
        }
        self.resources[res as usize].written = true;
        let leaves = self.buffer_layout(p, p.ty)?;
        if leaves.len() != vals.len() {
            return Err(malformed("stored value does not match the pointer type"));
        }
        // Words to store: (byte offset, i32 or f32 value).
        let mut i = 0;
        while i < leaves.len() {
            let Leaf { k, off, byte } = leaves[i];
            let v = vals[i];
            if byte {
                i += self.raw_store_8(p, handle, &leaves[i..], &vals[i..])?;
                continue;
            }
            if k.bits() == 16 {
                self.raw_store_16(p, handle, v, k, off)?;
                i += 1;
                continue;
            }
            let mut words: Vec<Value> = Vec::with_capacity(4);
            let float = k == Scalar::F32;
            let lane = if float { Scalar::F32 } else { Scalar::I32 };
            let push_words =
                |tr: &mut Self, v: Value, k: Scalar, words: &mut Vec<Value>| -> Result<()> {
                    if k.bits() == 64 {
                        let (lo, hi) = tr.split64(v)?;
                        words.push(lo);
                        words.push(hi);
                    } else {
                        words.push(tr.scalar_to_slot(v, k, lane)?);
                    }
                    Ok(())
                };
            push_words(self, v, k, &mut words)?;
            let mut end = off + 4 * words.len() as u64;
            let mut j = i + 1;
            while j < leaves.len() {
                let Leaf {
                    k: k2,
                    off: off2,
                    byte,
                } = leaves[j];
                let n2 = if k2.bits() == 64 { 2 } else { 1 };
                let same_lane = (k2 == Scalar::F32) == float;
                if byte || k2.bits() == 16 || off2 != end || words.len() + n2 > 4 || !same_lane {
                    break;
                }
                push_words(self, vals[j], k2, &mut words)?;
                end += 4 * n2 as u64;
                j += 1;
            }
            let at = self.byte_offset(p, off)?;
            let undef_i = self.b.undef_scalar(Scalar::I32);
            let undef = self.b.undef_scalar(lane);
            let mask = self.b.i8c((1i64 << words.len()) - 1);
            let word = |w: usize| words.get(w).copied().unwrap_or(undef);
            let args = [
                handle,
                at,
                undef_i,
                word(0),
                word(1),
                word(2),
                word(3),
                mask,
            ];
            let void = self.b.t.void;
            let overload = self.b.scalar(lane);
            self.b
                .dxop(OpCode::BufferStore, Some(overload), void, &args)?;
            i = j;
        }
        Ok(())
    }

    fn raw_store_16(
        &mut self,
        p: &Ptr,
        handle: Value,
        v: Value,
        k: Scalar,
        off: u64,
    ) -> Result<()> {
        self.features.native16 = true;
        self.features.need_sm(6, 2);
        let kt = self.b.scalar(k);
        let at = self.byte_offset(p, off)?;
        let undef_i = self.b.undef_scalar(Scalar::I32);
        let undef = self.b.undef(kt);
        let mask = self.b.i8c(1);
        let align = self.b.i32c(2);
        let void = self.b.t.void;
        self.b.dxop(
            OpCode::RawBufferStore,
            Some(kt),
            void,
            &[handle, at, undef_i, v, undef, undef, undef, mask, align],
        )?;
        Ok(())
    }

    /// `OpArrayLength`: (buffer bytes − member offset) / stride.
    pub fn array_length(&mut self, inst: &Inst<'_>) -> Result<()> {
        let id = inst.word(1)?;
        let p = self.ptr(inst.word(2)?)?;
        let member = inst.word(3)?;
        let Base::Buffer { handle, .. } = p.base else {
            return Err(malformed(
                "OpArrayLength of a pointer that is not a buffer block",
            ));
        };
        let Type::Struct { members } = self.spv.ty(p.ty)? else {
            return Err(malformed("OpArrayLength of a pointer to a non-struct"));
        };
        if member >= members.1 {
            return Err(malformed("OpArrayLength member out of range"));
        }
        let arr = self.spv.type_lists[(members.0 + member) as usize];
        let off = self
            .spv
            .decor
            .member(p.ty, member)
            .offset
            .ok_or_else(|| malformed("runtime array member without Offset"))?;
        let stride = self.array_stride(arr)?;
        let dims = self.b.dimensions_type();
        let undef = self.b.undef_scalar(Scalar::I32);
        let d = self
            .b
            .dxop(OpCode::GetDimensions, None, dims, &[handle, undef])?;
        let i32t = self.b.t.i32;
        let bytes = self.b.extract_value(d, 0, i32t)?;
        let bytes = if off != 0 {
            let k = self.b.i32c(i64::from(off));
            self.b.binary(BinOp::Sub, bytes, k)?
        } else {
            bytes
        };
        let n = if stride > 1 {
            let k = self.b.i32c(i64::from(stride));
            self.b.binary(BinOp::UDiv, bytes, k)?
        } else {
            bytes
        };
        self.set_scalar(id, n)
    }
}

/// Components of a storage image format.
pub fn format_components(f: spirv::ImageFormat) -> Option<u8> {
    use spirv::ImageFormat as F;
    Some(match f {
        F::Unknown => return None,
        F::R32f
        | F::R16f
        | F::R16
        | F::R8
        | F::R16Snorm
        | F::R8Snorm
        | F::R32i
        | F::R16i
        | F::R8i
        | F::R32ui
        | F::R16ui
        | F::R8ui
        | F::R64ui
        | F::R64i => 1,
        F::Rg32f
        | F::Rg16f
        | F::Rg16
        | F::Rg8
        | F::Rg16Snorm
        | F::Rg8Snorm
        | F::Rg32i
        | F::Rg16i
        | F::Rg8i
        | F::Rg32ui
        | F::Rg16ui
        | F::Rg8ui => 2,
        F::R11fG11fB10f => 3,
        _ => 4,
    })
}

#[allow(dead_code)]
fn _unused(_: StorageClass) {}
