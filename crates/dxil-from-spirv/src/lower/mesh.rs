//! Mesh and amplification (task) shaders. A mesh shader's outputs are arrays indexed by
//! vertex or primitive that every thread writes a part of, so stores go straight to
//! `StoreVertexOutput` / `StorePrimitiveOutput` (no local copy written at the end: that
//! would overwrite the other threads' vertices); primitive indices become `EmitIndices`.
//! The payload (`TaskPayloadWorkgroupEXT`) is a struct holding one array of slots: a
//! groupshared global handed to `DispatchMesh` in the task shader, `GetMeshPayload`'s
//! pointer in the mesh shader.

use dxil_module::{MdId, Value};
use dxil_shader::ops::OpCode;
use spirv::{ExecutionMode as Mode, ExecutionModel as EM, StorageClass};

use super::Tr;
use super::io::{BuiltinOp, Leaf};
use super::memory::{Base, Local, Ptr};
use super::sig::SigKind;
use crate::error::{Result, inexpressible, malformed, unsupported};
use crate::metadata::Md;
use crate::spv::{Inst, Type};

/// D3D12's limit on a mesh payload.
const MAX_PAYLOAD_BYTES: u32 = 16384;

/// A mesh shader's state (`MS_STATE`) or a task shader's (`AS_STATE`).
pub enum MeshState {
    Mesh {
        threads: [u32; 3],
        max_vertices: u32,
        max_primitives: u32,
        topology: dxil_shader::MeshOutputTopology,
        payload_bytes: u32,
    },
    Task {
        threads: [u32; 3],
        payload_bytes: u32,
    },
}

impl MeshState {
    pub fn build(&self, md: &mut Md<'_>) -> (u32, MdId) {
        let threads = |md: &mut Md<'_>, t: [u32; 3]| {
            let ops: Vec<Option<MdId>> = t.iter().map(|&v| Some(md.i32(i64::from(v)))).collect();
            md.node(&ops)
        };
        match *self {
            MeshState::Mesh {
                threads: t,
                max_vertices,
                max_primitives,
                topology,
                payload_bytes,
            } => {
                let mut ops = vec![Some(threads(md, t))];
                for v in [max_vertices, max_primitives, topology.raw(), payload_bytes] {
                    ops.push(Some(md.i32(i64::from(v))));
                }
                (dxil_shader::entry::tag::MS_STATE, md.node(&ops))
            }
            MeshState::Task {
                threads: t,
                payload_bytes,
            } => {
                let ops = [Some(threads(md, t)), Some(md.i32(i64::from(payload_bytes)))];
                (dxil_shader::entry::tag::AS_STATE, md.node(&ops))
            }
        }
    }
}

impl Tr<'_> {
    pub fn is_mesh(&self) -> bool {
        self.model == EM::MeshEXT
    }

    pub fn is_task(&self) -> bool {
        self.model == EM::TaskEXT
    }

    /// Vertex indices per primitive: 3 (triangles) or 2 (lines); points have no D3D12 mesh
    /// topology.
    pub fn mesh_index_count(&self) -> Result<u32> {
        if self.has_mode(Mode::OutputTrianglesEXT) {
            Ok(3)
        } else if self.has_mode(Mode::OutputLinesEXT) {
            Ok(2)
        } else if self.has_mode(Mode::OutputPoints) {
            Err(inexpressible(
                "a mesh shader that outputs points (D3D12 mesh shaders output lines or triangles)",
            ))
        } else {
            Err(malformed("mesh shader without an output primitive"))
        }
    }

    pub fn mesh_state(&mut self) -> Result<Option<MeshState>> {
        let payload_bytes = self.payload_bytes.unwrap_or(0);
        Ok(Some(if self.is_mesh() {
            let topology = match self.mesh_index_count()? {
                2 => dxil_shader::MeshOutputTopology::Line,
                _ => dxil_shader::MeshOutputTopology::Triangle,
            };
            let max_vertices = self.mode_operand(Mode::OutputVertices).unwrap_or(0);
            let max_primitives = self.mode_operand(Mode::OutputPrimitivesEXT).unwrap_or(0);
            if max_vertices > 256 || max_primitives > 256 {
                return Err(unsupported(
                    "a mesh shader with more than 256 vertices or primitives (D3D12's limit)",
                ));
            }
            MeshState::Mesh {
                threads: self.workgroup_size()?,
                max_vertices,
                max_primitives,
                topology,
                payload_bytes,
            }
        } else if self.is_task() {
            MeshState::Task {
                threads: self.workgroup_size()?,
                payload_bytes,
            }
        } else {
            return Ok(None);
        }))
    }

    /// The payload's local: a struct around the slot array. Made in the entry block (the
    /// mesh shader's `GetMeshPayload` must dominate every use).
    pub fn mesh_prologue(&mut self) -> Result<()> {
        if !self.is_mesh() && !self.is_task() {
            return Ok(());
        }
        self.features.need_sm(6, 5);
        let payloads: Vec<u32> = self
            .used_globals
            .iter()
            .copied()
            .filter(|&g| self.global_class(g) == Some(StorageClass::TaskPayloadWorkgroupEXT))
            .collect();
        if payloads.len() > 1 {
            return Err(unsupported("more than one task payload variable"));
        }
        if let Some(&g) = payloads.first() {
            let (_, pointee) = self.pointee(self.spv.def(g)?.ty)?;
            let l = self.payload_local(Some(pointee))?;
            self.local_of.insert(g, l);
        }
        Ok(())
    }

    fn payload_local(&mut self, ty: Option<u32>) -> Result<u32> {
        let (elem, wide, slots, uses16) = match ty {
            Some(t) => self.local_shape(t)?,
            None => (crate::builder::Scalar::I32, false, 1, false),
        };
        // `DispatchMesh` and `GetMeshPayload` use the payload whether or not the shader does.
        if uses16 {
            self.features.native16 = true;
        }
        let bytes = u64::from(elem.bits() / 8).saturating_mul(slots.max(1));
        if bytes > u64::from(MAX_PAYLOAD_BYTES) {
            return Err(unsupported(format!(
                "a task payload of {bytes} bytes (D3D12 allows {MAX_PAYLOAD_BYTES})"
            )));
        }
        if elem.bits() == 16 {
            self.features.native16 = true;
        }
        self.payload_bytes = Some(bytes as u32);
        let et = self.b.scalar(elem);
        let array_ty = self.b.array_of(et, slots.max(1));
        let st = self.b.named_struct("struct.Payload", &[array_ty]);
        let (ptr, space) = if self.is_task() {
            let g = self
                .b
                .add_global("payload".into(), st, 3, None, false, false);
            (g, 3)
        } else {
            let pt = self.b.pointer_to(st, 0);
            (self.b.dxop(OpCode::GetMeshPayload, Some(st), pt, &[])?, 0)
        };
        self.locals.push(Local {
            ptr,
            array_ty,
            elem,
            wide,
            space,
            slots,
            wrapper: Some(st),
            uses16,
        });
        Ok(self.locals.len() as u32 - 1)
    }

    pub fn payload_pointer(&mut self, id: u32, pointee: u32) -> Result<Ptr> {
        let l = *self.local_of.get(&id).ok_or_else(|| {
            malformed(format!(
                "task payload %{id} outside a task or mesh shader's interface"
            ))
        })?;
        Ok(Ptr::new(Base::Local(l), pointee))
    }

    /// Whether the shader reaches member `member` of output block `var` (GLSL declares every
    /// built-in of `gl_MeshVerticesEXT` and `gl_MeshPrimitivesEXT`; the validator wants each
    /// system value in the signature written, so unused ones are left out).
    pub fn mesh_member_used(&self, var: u32, member: u32) -> Result<bool> {
        for fid in self.reachable_functions()? {
            let Some(f) = self.spv.function(fid) else {
                continue;
            };
            for blk in &f.blocks {
                for inst in self.spv.insts(blk.start, blk.end) {
                    let inst = inst?;
                    match inst.op() {
                        Some(spirv::Op::AccessChain | spirv::Op::InBoundsAccessChain)
                            if inst.word(2)? == var =>
                        {
                            // Indices: the vertex or primitive, then the member.
                            let Some(&m) = inst.rest(3).get(1) else {
                                return Ok(true);
                            };
                            if self.const_u64(m).ok() == Some(u64::from(member)) {
                                return Ok(true);
                            }
                        }
                        Some(spirv::Op::Store | spirv::Op::CopyMemory) if inst.word(0)? == var => {
                            return Ok(true);
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(false)
    }

    /// `OpSetMeshOutputsEXT`.
    pub fn set_mesh_outputs(&mut self, inst: &Inst<'_>) -> Result<()> {
        if !self.is_mesh() {
            return Err(malformed("OpSetMeshOutputsEXT outside a mesh shader"));
        }
        let v = self.scalar(inst.word(0)?)?;
        let v = self.int_to_i32(v, false)?;
        let p = self.scalar(inst.word(1)?)?;
        let p = self.int_to_i32(p, false)?;
        let void = self.b.t.void;
        self.b
            .dxop(OpCode::SetMeshOutputCounts, None, void, &[v, p])?;
        Ok(())
    }

    /// `OpEmitMeshTasksEXT`: `DispatchMesh` and the end of the shader.
    pub fn emit_mesh_tasks(&mut self, inst: &Inst<'_>) -> Result<()> {
        if !self.is_task() {
            return Err(malformed("OpEmitMeshTasksEXT outside a task shader"));
        }
        let mut xyz = [Value(0); 3];
        for (k, x) in xyz.iter_mut().enumerate() {
            let v = self.scalar(inst.word(k)?)?;
            *x = self.int_to_i32(v, false)?;
        }
        let l = match inst.rest(3).first() {
            Some(&payload) => match self.ptr(payload)?.base {
                Base::Local(l) if self.locals[l as usize].wrapper.is_some() => l,
                _ => {
                    return Err(malformed(
                        "OpEmitMeshTasksEXT payload is not the task payload",
                    ));
                }
            },
            // DispatchMesh always takes a payload: an unused word.
            None => match self.payload_bytes {
                Some(_) => {
                    return Err(unsupported(
                        "a task shader that emits without its payload variable",
                    ));
                }
                None => self.payload_local(None)?,
            },
        };
        let local = self.locals[l as usize];
        let st = local
            .wrapper
            .ok_or_else(|| crate::error::internal("payload without its struct"))?;
        let void = self.b.t.void;
        self.b.dxop(
            OpCode::DispatchMesh,
            Some(st),
            void,
            &[xyz[0], xyz[1], xyz[2], local.ptr],
        )?;
        self.b.ret()
    }

    /// A store to a mesh shader output: each scalar to its vertex's or primitive's element,
    /// a primitive's indices through `EmitIndices`.
    pub fn store_mesh_output(&mut self, var: u32, p: &Ptr, vals: &[Value]) -> Result<()> {
        let v = &self.io.vars[var as usize];
        let (per_vertex, ty, elem_ty) = (v.per_vertex, v.ty, v.elem_ty);
        if !per_vertex {
            return Err(malformed("a mesh shader output that is not an array"));
        }
        let Some(vertex) = p.vertex else {
            // The whole array at once.
            let n = match self.spv.ty(ty)? {
                Type::Array { len, .. } => self.array_len(len)?,
                _ => return Err(unsupported("storing a whole runtime array of mesh outputs")),
            };
            let per = self.leaf_count(elem_ty, 0)? as usize;
            for k in 0..n as usize {
                let mut q = *p;
                q.vertex = Some(self.b.i32c(k as i64));
                q.ty = elem_ty;
                let part = vals
                    .get(k * per..(k + 1) * per)
                    .ok_or_else(|| malformed("stored value smaller than the mesh output"))?;
                self.store_mesh_output(var, &q, part)?;
            }
            return Ok(());
        };
        let mut indices: [Option<Value>; 3] = [None; 3];
        for (k, &val) in vals.iter().enumerate() {
            let leaf = *self.io.vars[var as usize]
                .leaves
                .get(p.off as usize + k)
                .ok_or_else(|| malformed("store past the end of a mesh output"))?;
            match leaf {
                Leaf::Sig {
                    sig,
                    elem,
                    row,
                    col,
                } => self.store_mesh_leaf(sig, elem, row, col, val, vertex, p)?,
                Leaf::Op(BuiltinOp::PrimitiveIndex(c)) => {
                    if p.dyn_off.is_some() {
                        return Err(unsupported(
                            "dynamically indexed components of mesh primitive indices",
                        ));
                    }
                    if let Some(slot) = indices.get_mut(usize::from(c)) {
                        *slot = Some(val);
                    }
                }
                Leaf::Dropped => {}
                Leaf::Op(_) => return Err(malformed("store to a built-in input")),
            }
        }
        if indices.iter().any(Option::is_some) {
            let n = self.mesh_index_count()? as usize;
            let zero = self.b.i32c(0);
            let mut args = vec![vertex];
            for slot in indices.iter().take(n) {
                let x = slot.ok_or_else(|| {
                    unsupported(
                        "writing some components of a primitive's indices (EmitIndices writes all of them)",
                    )
                })?;
                args.push(self.int_to_i32(x, false)?);
            }
            while args.len() < 4 {
                args.push(zero);
            }
            let void = self.b.t.void;
            self.b.dxop(OpCode::EmitIndices, None, void, &args)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn store_mesh_leaf(
        &mut self,
        sig: SigKind,
        elem: u32,
        row: u32,
        col: u8,
        val: Value,
        index: Value,
        p: &Ptr,
    ) -> Result<()> {
        let (row, col) = self.dynamic_row(sig, elem, row, col, p)?;
        let s = self.sig_scalar(sig, elem)?;
        let have = self.b.scalar_type_of(val)?;
        let val = if have == s {
            val
        } else {
            self.scalar_to_slot(val, have, s)?
        };
        let t = self.b.scalar(s);
        let id = self.b.i32c(i64::from(elem));
        let c = self.b.i8c(i64::from(col));
        self.mark_usage(sig, elem, col);
        let code = if sig == SigKind::Patch {
            OpCode::StorePrimitiveOutput
        } else {
            OpCode::StoreVertexOutput
        };
        let void = self.b.t.void;
        self.b
            .dxop(code, Some(t), void, &[id, row, c, val, index])?;
        Ok(())
    }
}
