//! Mesh (`MeshEXT`) and amplification (`TaskEXT`) shaders through SPV_EXT_mesh_shader, and the pixel-shader side of
//! a mesh pipeline (inputs linked to a mesh shader's outputs by semantic).
//!
//! * Mesh shader outputs are arrays over the vertices (`OutputVertices` = the maximum vertex count) or primitives
//!   (`OutputPrimitivesEXT` = the maximum primitive count) the shader may write; per-primitive ones are decorated
//!   `PerPrimitiveEXT`, and their user elements are placed after the rows of the vertex outputs (DXIL packs the two
//!   signatures apart, both from row 0). `StoreVertexOutput` / `StorePrimitiveOutput` index them by vertex /
//!   primitive first. A maximum count of 0 declares no variables; stores to them are dropped.
//! * `EmitIndices` stores into `PrimitiveTriangleIndicesEXT` / `PrimitiveLineIndicesEXT` (the topology's
//!   execution mode says which); `SetMeshOutputCounts` is `OpSetMeshOutputsEXT`: D3D's rule (once, uniformly,
//!   before outputs are written) is SPIR-V's.
//! * The payload is one `TaskPayloadWorkgroupEXT` variable of the payload's struct type: in a mesh shader what
//!   `GetMeshPayload` points to, in an amplification shader the variable (groupshared or local) `DispatchMesh`
//!   passes. `DispatchMesh` is `OpEmitMeshTasksEXT`, which ends the shader: D3D requires the call once, at the end,
//!   so it takes the place of the `ret` that follows it. A path returning without it launches no mesh groups.
//! * Quads (derivatives, quad operations, SM 6.6) are laid out as in compute shaders, with the same derivative
//!   group execution modes (Vulkan: `VK_KHR_compute_shader_derivatives`' `meshAndTaskShaderDerivatives`);
//!   derivatives are differences of the quad's lanes (see `quad_derivative`).

use dxil_module::{Body, ConstData, InstKind, TypeData, TypeId, Value, ValueRef};
use dxil_shader::ops::OpCode;
use dxil_shader::{MeshOutputTopology, SemanticKind, SignatureElement};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, Op, StorageClass};

use crate::dxil::Stage;
use crate::error::{Error, Invalid, MetadataError, Unsupported};
use crate::lower::{Args, Ctx, Val};
use crate::spv::{Id, TypeKey, words};

/// The state of a mesh or amplification shader's interface.
#[derive(Default)]
pub(crate) struct MeshIo {
    /// The maximum vertex and primitive counts (the lengths of the output arrays).
    pub max: [u32; 2],
    /// Where the per-primitive user elements start: after the rows of the vertex outputs.
    pub prim_location_base: u32,
    /// The `PrimitiveTriangleIndicesEXT` / `PrimitiveLineIndicesEXT` variable and its vertices per primitive.
    pub indices: Option<(Id, u32)>,
    /// The `TaskPayloadWorkgroupEXT` variable.
    pub payload: Option<Id>,
    /// Amplification shaders: what `DispatchMesh` passes as the payload (see [`PayloadRoot`]).
    pub payload_root: Option<PayloadRoot>,
    /// Amplification shaders: the group counts of the `DispatchMesh` lowered last, waiting for the `ret` it
    /// replaces.
    pub pending_dispatch: Option<[Id; 3]>,
}

/// The variable an amplification shader passes to `DispatchMesh`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PayloadRoot {
    Global(dxil_module::GlobalId),
    /// An `alloca` (instruction index).
    Alloca(u32),
}

/// Mesh shader system values (see `super::system_value`); `None`: one every stage shares. The per-primitive ones
/// are in the primitive signature only.
pub(super) fn system_value(
    output: bool,
    kind: SemanticKind,
) -> Option<Result<Option<BuiltIn>, &'static str>> {
    use SemanticKind as K;
    Some(Ok(Some(match (output, kind) {
        (true, K::PrimitiveID) => BuiltIn::PrimitiveId,
        (true, K::RenderTargetArrayIndex) => BuiltIn::Layer,
        (true, K::ViewPortArrayIndex) => BuiltIn::ViewportIndex,
        (true, K::CullPrimitive) => BuiltIn::CullPrimitiveEXT,
        (true, K::ShadingRate) => BuiltIn::PrimitiveShadingRateKHR,
        _ => return None,
    })))
}

/// Built-ins a mesh shader writes per primitive only.
pub(super) fn per_primitive_builtin(b: BuiltIn) -> bool {
    matches!(
        b,
        BuiltIn::PrimitiveId
            | BuiltIn::Layer
            | BuiltIn::ViewportIndex
            | BuiltIn::CullPrimitiveEXT
            | BuiltIn::PrimitiveShadingRateKHR
    )
}

/// The rows a signature's allocated elements use (the first free row).
pub(super) fn rows_used(elems: &[SignatureElement]) -> u32 {
    elems
        .iter()
        .filter(|e| e.start_row >= 0)
        .map(|e| (e.start_row as u32).saturating_add(e.rows.max(1)))
        .max()
        .unwrap_or(0)
}

/// Vertices per primitive of a mesh output topology.
fn topology_vertices(t: MeshOutputTopology) -> Option<u32> {
    match t {
        MeshOutputTopology::Line => Some(2),
        MeshOutputTopology::Triangle => Some(3),
        _ => None,
    }
}

impl<'a> Ctx<'a> {
    /// Capabilities, output limits, the index variable (mesh shaders) and the payload (amplification shaders),
    /// before the interface is declared.
    pub(super) fn mesh_prepare(&mut self) -> Result<(), Error> {
        self.b.capability(Capability::MeshShadingEXT);
        self.b.extension("SPV_EXT_mesh_shader");
        self.b.require_version(0x0001_0400);
        if self.entry.stage == Stage::Amplification {
            return self.find_payload_root();
        }
        let ms = self
            .entry
            .ms_state
            .ok_or_else(|| MetadataError::signature("mesh shader without its state (tag 9)"))?;
        self.io.mesh.max = [ms.max_vertex_count, ms.max_primitive_count];
        for (n, what) in [
            (ms.max_vertex_count, "vertex"),
            (ms.max_primitive_count, "primitive"),
        ] {
            if n > 4096 {
                return Err(MetadataError::signature(format!(
                    "mesh shader maximum {what} count {n} (D3D allows 256)"
                ))
                .into());
            }
        }
        if ms.max_primitive_count > 0
            && let Some(k) = topology_vertices(ms.output_topology)
        {
            let u = self.b.u32();
            let v = self.b.vec(u, k);
            let t = self.b.ty(TypeKey::Array(v, ms.max_primitive_count));
            let bi = if k == 3 {
                BuiltIn::PrimitiveTriangleIndicesEXT
            } else {
                BuiltIn::PrimitiveLineIndicesEXT
            };
            let var = self.io_var(StorageClass::Output, t, Some(bi));
            self.io.mesh.indices = Some((var, k));
        }
        Ok(())
    }

    /// Amplification shaders: the variable `DispatchMesh` passes (through casts and GEPs), which becomes the
    /// payload. D3D requires one `DispatchMesh` call.
    fn find_payload_root(&mut self) -> Result<(), Error> {
        let m = self.m;
        let Some(body) = m
            .function(self.entry.function)
            .and_then(|f| f.body.as_ref())
        else {
            return Ok(());
        };
        let mut found = None;
        for (i, d) in body.insts.iter().enumerate() {
            let InstKind::Call { callee, args, .. } = &d.kind else {
                continue;
            };
            let a = Args(args.get(&body.pool));
            self.at_inst = i as u32;
            if self.dx_opcode(*callee, a)? != Some(OpCode::DispatchMesh) {
                continue;
            }
            if found.is_some() {
                return Err(self.unsupported(Unsupported::OperationNeeds {
                    op: OpCode::DispatchMesh,
                    why: "one call (D3D allows one per shader)",
                }));
            }
            let payload = self.arg(a, 4)?;
            found = Some(self.payload_root_of(body, payload)?);
        }
        self.at_inst = 0;
        self.io.mesh.payload_root = found;
        Ok(())
    }

    /// The global or `alloca` a payload pointer starts from.
    fn payload_root_of(&self, body: &Body, mut v: Value) -> Result<PayloadRoot, Error> {
        for _ in 0..64 {
            v = match v.get() {
                ValueRef::Global(g) => return Ok(PayloadRoot::Global(g)),
                ValueRef::Inst(i) => match body.inst(i).map(|d| &d.kind) {
                    Some(InstKind::Alloca { .. }) => return Ok(PayloadRoot::Alloca(i.0)),
                    Some(InstKind::Cast { value, .. }) => *value,
                    Some(InstKind::Gep { operands, .. }) => match body.values(*operands).next() {
                        Some(base) => base,
                        None => break,
                    },
                    _ => break,
                },
                ValueRef::Const(c) => match self.m.constants.get(c).map(|k| &k.data) {
                    Some(ConstData::Cast { value, .. }) => *value,
                    Some(ConstData::Gep { operands, .. }) => {
                        match self.m.constants.values_of(*operands).first() {
                            Some(&base) => base,
                            None => break,
                        }
                    }
                    _ => break,
                },
                _ => break,
            };
        }
        Err(self.unsupported(Unsupported::OperationNeeds {
            op: OpCode::DispatchMesh,
            why: "a payload that is a groupshared or local variable",
        }))
    }

    /// Is global `g` the variable an amplification shader passes as its payload (`TaskPayloadWorkgroupEXT`, not
    /// `Workgroup`)?
    pub(in crate::lower) fn payload_global(&self, g: dxil_module::GlobalId) -> bool {
        self.io.mesh.payload_root == Some(PayloadRoot::Global(g))
    }

    /// Is instruction `i` the `alloca` an amplification shader passes as its payload?
    pub(in crate::lower) fn payload_alloca(&self, i: u32) -> bool {
        self.io.mesh.payload_root == Some(PayloadRoot::Alloca(i))
    }

    /// The payload variable of type `ty` (made once: the first caller's type).
    pub(in crate::lower) fn payload_var(&mut self, ty: TypeId) -> Result<Id, Error> {
        if let Some(v) = self.io.mesh.payload {
            return Ok(v);
        }
        let t = self.ty(ty)?;
        let pt = self.b.ptr(StorageClass::TaskPayloadWorkgroupEXT, t);
        let v = self
            .b
            .global_var(pt, StorageClass::TaskPayloadWorkgroupEXT, None);
        self.io.mesh.payload = Some(v);
        Ok(v)
    }

    /// The payload a mesh shader's `GetMeshPayload` call (of result type `ty`) points to.
    #[cold]
    pub(in crate::lower) fn mesh_payload_of_call(&mut self, ty: TypeId) -> Result<Id, Error> {
        if self.entry.stage != Stage::Mesh {
            return Err(self.unsupported(Unsupported::Operation(OpCode::GetMeshPayload)));
        }
        match self.m.types.data(ty) {
            TypeData::Pointer { pointee, .. } => self.payload_var(*pointee),
            _ => Err(self.invalid(Invalid::ty("GetMeshPayload does not return a pointer"))),
        }
    }

    /// Mesh and amplification shader operations: `Some` when `op` is one.
    pub(super) fn mesh_op(&mut self, op: OpCode, a: Args<'_>) -> Option<Result<Val, Error>> {
        let stage = self.entry.stage;
        Some(match op {
            OpCode::SetMeshOutputCounts if stage == Stage::Mesh => self.set_mesh_output_counts(a),
            OpCode::EmitIndices if stage == Stage::Mesh => self.emit_indices(a),
            OpCode::StoreVertexOutput if stage == Stage::Mesh => self.store_mesh_output(a, false),
            OpCode::StorePrimitiveOutput if stage == Stage::Mesh => self.store_mesh_output(a, true),
            // The pointer is resolved at its uses (`access`).
            OpCode::GetMeshPayload if stage == Stage::Mesh => Ok(Val::None),
            OpCode::DispatchMesh if stage == Stage::Amplification => self.dispatch_mesh(a),
            _ => return None,
        })
    }

    /// `SetMeshOutputCounts(numVertices, numPrimitives)`; a count whose maximum is 0 is 0.
    fn set_mesh_output_counts(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let mut ids = [self.b.const_u32(0); 2];
        for (k, id) in ids.iter_mut().enumerate() {
            if self.io.mesh.max[k] > 0 {
                *id = self.arg_id(a, k + 1)?;
            }
        }
        self.emit(Op::SetMeshOutputsEXT, &words![ids[0], ids[1]]);
        Ok(Val::None)
    }

    /// `EmitIndices(primitive, v0, v1, v2)`: a line takes the first two vertices.
    fn emit_indices(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let Some((var, k)) = self.io.mesh.indices else {
            if self.io.mesh.max[1] == 0 {
                return Ok(Val::None);
            }
            return Err(MetadataError::signature(
                "EmitIndices in a mesh shader without an output topology",
            )
            .into());
        };
        let prim = self.arg_id(a, 1)?;
        let mut v = [self.b.const_u32(0); 3];
        for (j, x) in v.iter_mut().enumerate().take(k as usize) {
            *x = self.arg_id(a, 2 + j)?;
        }
        let u = self.b.u32();
        let vt = self.b.vec(u, k);
        let value = self.op_ids(Op::CompositeConstruct, vt, &v[..k as usize]);
        let pt = self.b.ptr(StorageClass::Output, vt);
        let p = self.chain(pt, var, &[prim]);
        self.store(p, value);
        Ok(Val::None)
    }

    /// `StoreVertexOutput` / `StorePrimitiveOutput(sigId, row, col, value, index)`.
    fn store_mesh_output(&mut self, a: Args<'_>, primitive: bool) -> Result<Val, Error> {
        if self.io.mesh.max[usize::from(primitive)] == 0 || self.arg_undef(a, 4) {
            return Ok(Val::None);
        }
        let id = self.arg_const(a, 1)? as u32;
        let list = if primitive {
            &self.io.prim_outputs
        } else {
            &self.io.outputs
        };
        let s = list.iter().find(|s| s.id == id).copied().ok_or_else(|| {
            self.invalid(Invalid::ty(format!(
                "no {} output signature element {id}",
                if primitive { "primitive" } else { "vertex" }
            )))
        })?;
        let index = self.arg_id(a, 5)?;
        self.store_slot(&s, Some(index), a)
    }

    /// `DispatchMesh(x, y, z, payload)`: the counts wait for the `ret` after it (see `take_mesh_dispatch`).
    fn dispatch_mesh(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let mut counts = [self.b.const_u32(0); 3];
        for (k, c) in counts.iter_mut().enumerate() {
            *c = self.arg_id(a, k + 1)?;
        }
        // The payload variable exists even where the shader never writes it.
        if let Some(PayloadRoot::Global(g)) = self.io.mesh.payload_root {
            self.global_var(g)?;
        }
        self.io.mesh.pending_dispatch = Some(counts);
        Ok(Val::None)
    }

    /// Amplification shaders: ends the shader with `OpEmitMeshTasksEXT` where the entry function returns, with the
    /// counts of the `DispatchMesh` before it (none: no mesh groups). `Ok(false)` for other stages.
    pub(in crate::lower) fn emit_mesh_tasks_at_return(&mut self) -> Result<bool, Error> {
        if self.entry.stage != Stage::Amplification {
            return Ok(false);
        }
        let counts = match self.io.mesh.pending_dispatch.take() {
            Some(c) => c,
            None => [self.b.const_u32(0); 3],
        };
        match self.io.mesh.payload {
            Some(p) => self.emit(
                Op::EmitMeshTasksEXT,
                &words![counts[0], counts[1], counts[2], p],
            ),
            None => self.emit(
                Op::EmitMeshTasksEXT,
                &words![counts[0], counts[1], counts[2]],
            ),
        }
        Ok(true)
    }

    /// The error for a `DispatchMesh` whose block does not return: D3D requires the call at the end of the shader.
    #[cold]
    pub(in crate::lower) fn dispatch_not_at_end(&self) -> Error {
        self.unsupported(Unsupported::OperationNeeds {
            op: OpCode::DispatchMesh,
            why: "the call at the end of the shader (D3D requires it there)",
        })
    }

    /// `LocalSize` and the derivative group as in compute shaders; mesh shaders: the output limits and topology.
    pub(super) fn mesh_modes(&mut self, main: Id) -> Result<(), Error> {
        self.compute_modes(main);
        if (self.uses_derivatives || self.uses_quads) && self.quad_mode().is_some() {
            // Derivative groups in these stages are the KHR extension's; validators that predate it know the
            // capabilities from the NV extension, which `compute_modes` declares.
            self.b.extension("SPV_KHR_compute_shader_derivatives");
        }
        if let Some(ms) = self.entry.ms_state {
            self.exec_mode(main, ExecutionMode::OutputVertices, &[ms.max_vertex_count]);
            self.exec_mode(
                main,
                ExecutionMode::OutputPrimitivesEXT,
                &[ms.max_primitive_count],
            );
            let topology = match topology_vertices(ms.output_topology) {
                Some(2) => ExecutionMode::OutputLinesEXT,
                Some(_) => ExecutionMode::OutputTrianglesEXT,
                None => {
                    return Err(MetadataError::signature(format!(
                        "mesh shader output topology {:?}",
                        ms.output_topology
                    ))
                    .into());
                }
            };
            self.exec_mode(main, topology, &[]);
        }
        Ok(())
    }

    /// A derivative in a mesh or amplification shader, from the values of the quad's lanes (`QuadBroadcast`,
    /// `QuadSwap`): SPIR-V validators before `SPV_KHR_compute_shader_derivatives` accept derivative instructions in
    /// fragment and compute shaders only. The quads are those the derivative group execution mode forms (lanes 0
    /// to 3 of a quad are (0,0), (1,0), (0,1), (1,1), as D3D numbers them), so the results are D3D's.
    pub(in crate::lower) fn quad_derivative(&mut self, op: OpCode, t: Id, x: Id, lanes: u32) -> Id {
        self.b.capability(Capability::GroupNonUniform);
        self.b.capability(Capability::GroupNonUniformQuad);
        self.uses_quads = true;
        let sg = self.b.const_u32(spirv::Scope::Subgroup as u32);
        let at = |cx: &mut Self, lane: u32| {
            let l = cx.b.const_u32(lane);
            cx.op3(Op::GroupNonUniformQuadBroadcast, t, sg, x, l)
        };
        match op {
            OpCode::DerivCoarseX | OpCode::DerivCoarseY => {
                let origin = at(self, 0);
                let next = at(self, if op == OpCode::DerivCoarseX { 1 } else { 2 });
                self.op2(Op::FSub, t, next, origin)
            }
            _ => {
                // Fine: the difference within this lane's row (column), signed from the lower lane to the
                // higher.
                let (dir, bit) = if op == OpCode::DerivFineX {
                    (0, 1)
                } else {
                    (1, 2)
                };
                let d = self.b.const_u32(dir);
                let other = self.op3(Op::GroupNonUniformQuadSwap, t, sg, x, d);
                let u = self.b.u32();
                let me = self.load_builtin(BuiltIn::SubgroupLocalInvocationId, None);
                let m = self.b.const_u32(bit);
                let side = self.op2(Op::BitwiseAnd, u, me, m);
                let z = self.b.const_u32(0);
                let bt = self.b.bool();
                let low = self.op2(Op::IEqual, bt, side, z);
                let up = self.op2(Op::FSub, t, other, x);
                let down = self.op2(Op::FSub, t, x, other);
                let cond = if lanes > 1 {
                    let bv = self.b.vec(bt, lanes);
                    let parts = vec![low; lanes as usize];
                    self.op_ids(Op::CompositeConstruct, bv, &parts)
                } else {
                    low
                };
                self.select(t, cond, up, down)
            }
        }
    }

    /// What [`crate::MeshInfo`] reports.
    pub(in crate::lower) fn mesh_info(&self) -> Option<crate::MeshInfo> {
        if let Some(ms) = self.entry.ms_state {
            return Some(crate::MeshInfo {
                max_vertices: ms.max_vertex_count,
                max_primitives: ms.max_primitive_count,
                topology: match topology_vertices(ms.output_topology) {
                    Some(2) => Some(crate::MeshTopology::Lines),
                    Some(_) => Some(crate::MeshTopology::Triangles),
                    None => None,
                },
                payload_bytes: ms.payload_size_in_bytes,
            });
        }
        self.entry.as_state.map(|s| crate::MeshInfo {
            max_vertices: 0,
            max_primitives: 0,
            topology: None,
            payload_bytes: s.payload_size_in_bytes,
        })
    }

    /// A pixel shader's user input placed where the stage before it put the output of the same semantic
    /// ([`crate::Options::input_varyings`]): (location, component, per-primitive). Rows after the first must follow
    /// on in consecutive locations of the same component.
    pub(super) fn linked_input(
        &self,
        e: &SignatureElement,
        rows: u32,
    ) -> Result<(u32, u32, bool), Error> {
        let Some(list) = self.opts.input_varyings.as_deref() else {
            return Ok((e.start_row as u32, e.start_col as u32, false));
        };
        let find = |r: u32| {
            let index = e.semantic_indices.get(r as usize).copied().unwrap_or(r);
            list.iter()
                .find(|v| v.index == index && v.semantic.eq_ignore_ascii_case(&e.name))
        };
        let Some(first) = find(0) else {
            return Err(self.signature_unsupported(format!(
                "pixel shader input `{}` {} that the stage before it does not write",
                e.name,
                e.semantic_indices.first().copied().unwrap_or(0)
            )));
        };
        for r in 1..rows {
            let ok = find(r).is_some_and(|v| {
                v.location == first.location + r
                    && v.component == first.component
                    && v.per_primitive == first.per_primitive
            });
            if !ok {
                return Err(self.signature_unsupported(format!(
                    "pixel shader input `{}` of {rows} rows that the stage before it does not write in \
                     consecutive locations",
                    e.name
                )));
            }
        }
        Ok((first.location, first.component, first.per_primitive))
    }

    /// `PerPrimitiveEXT` on a pixel shader input that a mesh shader writes per primitive.
    pub(super) fn per_primitive_input(&mut self, var: Id) {
        self.b.decorate(var, Decoration::PerPrimitiveEXT, &[]);
        self.b.capability(Capability::MeshShadingEXT);
        self.b.extension("SPV_EXT_mesh_shader");
        self.b.require_version(0x0001_0400);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topologies_have_their_vertices_per_primitive() {
        assert_eq!(topology_vertices(MeshOutputTopology::Line), Some(2));
        assert_eq!(topology_vertices(MeshOutputTopology::Triangle), Some(3));
        assert_eq!(topology_vertices(MeshOutputTopology::Undefined), None);
    }

    #[test]
    fn system_values_of_the_primitive_signature() {
        use SemanticKind as K;
        assert_eq!(
            system_value(true, K::ViewPortArrayIndex),
            Some(Ok(Some(BuiltIn::ViewportIndex)))
        );
        // Inputs and per-vertex values are the shared ones.
        assert_eq!(system_value(false, K::PrimitiveID), None);
        assert_eq!(system_value(true, K::Position), None);
    }
}
