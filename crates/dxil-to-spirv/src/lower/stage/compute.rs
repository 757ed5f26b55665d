//! Compute shaders: the thread-group size, and quads (derivatives, implicit-LOD sampling, quad operations) laid out
//! as D3D lays them out.

use spirv::{Capability, ExecutionMode};

use crate::lower::Ctx;
use crate::spv::Id;

/// How D3D forms quads in a compute shader: 2×2 thread blocks when x and y are even and y > 1, else 4 consecutive
/// threads; `None` when the group cannot be cut into quads (then derivatives are 0 and implicit-LOD sampling uses
/// level 0, as no quad neighbours exist).
pub(super) fn quad_mode([x, y, z]: [u32; 3]) -> Option<ExecutionMode> {
    if y > 1 && x.is_multiple_of(2) && y.is_multiple_of(2) {
        Some(ExecutionMode::DerivativeGroupQuadsNV)
    } else if (u128::from(x) * u128::from(y) * u128::from(z)).is_multiple_of(4) {
        Some(ExecutionMode::DerivativeGroupLinearNV)
    } else {
        None
    }
}

impl<'a> Ctx<'a> {
    /// `LocalSize`, and the derivative group when the shader uses quads.
    pub(super) fn compute_modes(&mut self, main: Id) {
        let [x, y, z] = self.entry.num_threads;
        self.exec_mode(main, ExecutionMode::LocalSize, &[x, y, z]);
        if (self.uses_derivatives || self.uses_quads)
            && let Some(mode) = self.quad_mode()
        {
            let cap = if mode == ExecutionMode::DerivativeGroupQuadsNV {
                Capability::ComputeDerivativeGroupQuadsNV
            } else {
                Capability::ComputeDerivativeGroupLinearNV
            };
            self.b.capability(cap);
            self.b.extension("SPV_NV_compute_shader_derivatives");
            self.exec_mode(main, mode, &[]);
        }
    }
}
