//! Domain shaders (`TessellationEvaluation`): `SV_DomainLocation` is `TessCoord` (D3D's domain coordinates are
//! Vulkan's with its default upper-left origin: tri `(u, v, w)`, quad and isoline `(u, v)`), patch constants are
//! read with `LoadPatchConstant`, control points with `loadInput`'s vertex operand. Outputs face the rasterizer as
//! vertex shader outputs do. The domain is declared here too (the hull shader declares the rest).

use dxil_module::TypeId;
use dxil_shader::SemanticKind;
use dxil_shader::ops::OpCode;
use spirv::{BuiltIn, StorageClass};

use super::Class;
use crate::error::{Error, Invalid, MetadataError};
use crate::lower::{Args, Ctx, Val};
use crate::spv::Id;

/// Domain shader system values (see `super::system_value`); `None`: one every stage shares.
pub(super) fn system_value(
    output: bool,
    kind: SemanticKind,
) -> Option<Result<Option<BuiltIn>, &'static str>> {
    use SemanticKind as K;
    Some(Ok(Some(match (output, kind) {
        (true, K::RenderTargetArrayIndex) => BuiltIn::Layer,
        (true, K::ViewPortArrayIndex) => BuiltIn::ViewportIndex,
        // Vulkan takes a primitive shading rate from vertex, geometry and mesh shaders only, and D3D12 from
        // the last stage before the rasterizer only when it is a vertex or geometry shader: a plain location
        // nothing reads.
        (true, K::ShadingRate) => return Some(Ok(None)),
        _ => return None,
    })))
}

impl<'a> Ctx<'a> {
    /// Domain shader operations: `Some` when `op` is one.
    pub(super) fn domain_op(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Option<Result<Val, Error>> {
        Some(match op {
            OpCode::DomainLocation => self.domain_location(ty, a),
            OpCode::LoadPatchConstant => self.load_patch_constant(ty, a),
            OpCode::PrimitiveID => self.load_stage_builtin(BuiltIn::PrimitiveId, ty),
            _ => return None,
        })
    }

    /// `domainLocation(component)`: component of `TessCoord`.
    fn domain_location(&mut self, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let c = self.arg_const(a, 1)?;
        if !(0..3).contains(&c) {
            return Err(self.invalid(Invalid::range(format!("domain location component {c}"))));
        }
        let var = self.vec3_builtin(BuiltIn::TessCoord);
        let f = self.b.f32();
        let pty = self.b.ptr(StorageClass::Input, f);
        let k = self.b.const_u32(c as u32);
        let p = self.chain(pty, var, &[k]);
        let x = self.load(f, p);
        self.read_converted(x, Class::Float, ty).map(Val::Id)
    }

    /// The domain (the hull shader declares spacing, vertex order and output vertices).
    pub(super) fn domain_modes(&mut self, main: Id) -> Result<(), Error> {
        let ds = self
            .entry
            .ds_state
            .ok_or_else(|| MetadataError::signature("domain shader without its state"))?;
        let mode = super::hull::domain_mode(ds.domain)
            .ok_or_else(|| MetadataError::entry(format!("domain shader domain {:?}", ds.domain)))?;
        self.exec_mode(main, mode, &[]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domain_outputs_face_the_rasterizer() {
        use SemanticKind as K;
        assert_eq!(
            system_value(true, K::RenderTargetArrayIndex),
            Some(Ok(Some(BuiltIn::Layer)))
        );
        assert_eq!(system_value(true, K::ShadingRate), Some(Ok(None)));
        assert_eq!(system_value(true, K::Position), None);
    }
}
