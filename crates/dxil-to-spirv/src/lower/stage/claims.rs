//! What each signature element occupies of the interface, so that two elements never share a location component
//! or a built-in: SPIR-V rejects such an entry point ("conflicting location assignment"), while a module that
//! reads fine can say so in its signature metadata (DXIL's validator refuses it; `-Vd` and hand-edited modules do
//! not).

use dxil_shader::SignatureElement;
use spirv::BuiltIn;

use super::ElementShape;
use crate::error::{Error, MetadataError};
use crate::lower::Ctx;

/// Interface slots taken so far, per direction.
#[derive(Default)]
pub(crate) struct Claims {
    /// (output, location, component mask, element id).
    locations: Vec<(bool, u32, u8, u32)>,
    /// (output, built-in, element id).
    builtins: Vec<(bool, BuiltIn, u32)>,
}

impl Claims {
    /// No claims, in `self`'s lists (see [`super::Interface::emptied`]).
    pub(super) fn emptied(mut self) -> Claims {
        for n in [self.locations.capacity(), self.builtins.capacity()] {
            if n > 1 << 12 {
                return Claims::default();
            }
        }
        self.locations.clear();
        self.builtins.clear();
        self
    }
}

impl<'a> Ctx<'a> {
    /// Claims `shape.rows` locations from `location`, columns `start_col..start_col + cols`, for `e`.
    pub(super) fn claim_locations(
        &mut self,
        e: &SignatureElement,
        location: u32,
        shape: ElementShape,
    ) -> Result<(), Error> {
        let col = u32::try_from(e.start_col).unwrap_or(0);
        if col.saturating_add(shape.cols) > 4 {
            return Err(MetadataError::signature(format!(
                "signature element {} `{}`: {} columns from column {col} (a location has 4)",
                e.id, e.name, shape.cols
            ))
            .into());
        }
        let mask = (((1u32 << shape.cols) - 1) << col) as u8;
        for row in 0..shape.rows {
            let loc = location.saturating_add(row);
            if let Some(&(_, _, _, other)) = self
                .io
                .claims
                .locations
                .iter()
                .find(|&&(o, l, m, _)| o == shape.output && l == loc && m & mask != 0)
            {
                return Err(MetadataError::signature(format!(
                    "signature elements {other} and {} (`{}`) both occupy location {loc}",
                    e.id, e.name
                ))
                .into());
            }
            self.io
                .claims
                .locations
                .push((shape.output, loc, mask, e.id));
        }
        Ok(())
    }

    /// Claims built-in `b` for `e`.
    pub(super) fn claim_builtin(
        &mut self,
        e: &SignatureElement,
        b: BuiltIn,
        output: bool,
    ) -> Result<(), Error> {
        if let Some(&(_, _, other)) = self
            .io
            .claims
            .builtins
            .iter()
            .find(|&&(o, x, _)| o == output && x == b)
        {
            return Err(MetadataError::signature(format!(
                "signature elements {other} and {} (`{}`) are both the built-in {b:?}",
                e.id, e.name
            ))
            .into());
        }
        self.io.claims.builtins.push((output, b, e.id));
        Ok(())
    }
}
