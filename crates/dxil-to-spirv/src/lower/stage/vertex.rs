//! Vertex shaders: vertex and instance indices counted from the draw's first vertex and instance, as D3D counts
//! them, and the SM 6.8 base vertex / instance operations.

use dxil_module::TypeId;
use dxil_shader::SemanticKind;
use dxil_shader::ops::OpCode;
use spirv::BuiltIn;

use crate::error::Error;
use crate::lower::{Ctx, Val};

/// Vertex shader system values (see `super::system_value`); `None`: one every stage shares.
pub(super) fn system_value(
    output: bool,
    kind: SemanticKind,
) -> Option<Result<Option<BuiltIn>, &'static str>> {
    use SemanticKind as K;
    Some(Ok(Some(match (output, kind) {
        (false, K::VertexID) => BuiltIn::VertexIndex,
        (false, K::InstanceID) => BuiltIn::InstanceIndex,
        (true, K::RenderTargetArrayIndex) => BuiltIn::Layer,
        (true, K::ViewPortArrayIndex) => BuiltIn::ViewportIndex,
        (true, K::ShadingRate) => BuiltIn::PrimitiveShadingRateKHR,
        _ => return None,
    })))
}

/// `SV_VertexID` / `SV_InstanceID` count from the draw's first vertex / instance; Vulkan's `VertexIndex` /
/// `InstanceIndex` include it: the built-in to subtract.
pub(super) fn base_of(index: BuiltIn) -> BuiltIn {
    if index == BuiltIn::VertexIndex {
        BuiltIn::BaseVertex
    } else {
        BuiltIn::BaseInstance
    }
}

impl<'a> Ctx<'a> {
    /// Vertex shader operations: `Some` when `op` is one.
    pub(super) fn vertex_op(&mut self, op: OpCode, ty: TypeId) -> Option<Result<Val, Error>> {
        Some(match op {
            // SM 6.8 `StartVertexLocation()` / `StartInstanceLocation()`: the draw's base vertex / instance.
            OpCode::StartVertexLocation => self.load_stage_builtin(BuiltIn::BaseVertex, ty),
            OpCode::StartInstanceLocation => self.load_stage_builtin(BuiltIn::BaseInstance, ty),
            _ => return None,
        })
    }
}
