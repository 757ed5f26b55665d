//! Images and samplers.

use spirv::Op;

use super::Tr;
use crate::error::{Result, unsupported};
use crate::spv::Inst;

impl Tr<'_> {
    pub fn image_op(&mut self, _inst: &Inst<'_>, op: Op) -> Result<()> {
        Err(unsupported(format!("Op{op:?}")))
    }
}
