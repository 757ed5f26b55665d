//! Subgroup operations (wave intrinsics).

use spirv::Op;

use super::Tr;
use crate::error::{Result, unsupported};
use crate::spv::Inst;

impl Tr<'_> {
    pub fn group_op(&mut self, _inst: &Inst<'_>, op: Op) -> Result<()> {
        Err(unsupported(format!("Op{op:?}")))
    }

    pub fn helper_op(&mut self, _inst: &Inst<'_>, op: Op) -> Result<()> {
        Err(unsupported(format!("Op{op:?}")))
    }

    pub fn geometry_op(&mut self, _inst: &Inst<'_>, op: Op) -> Result<()> {
        Err(unsupported(format!("Op{op:?}")))
    }

    pub fn interpolate_at(&mut self, _inst: &Inst<'_>, op: spirv::GLOp) -> Result<()> {
        Err(unsupported(format!("GLSL.std.450 {op:?}")))
    }
}
