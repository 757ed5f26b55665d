//! What hull and domain shaders share: control-point arrays, the patch constant interface and where patch constants
//! sit.
//!
//! * Control points are arrays over the patch: hull shader inputs have 32 (D3D's largest patch: a pipeline may
//!   draw patches of another size than the shader declares), hull shader outputs the declared output control
//!   points, domain shader inputs the declared input control points.
//! * Between the two stages every element is a plain location, system values included (`SV_Position`,
//!   `SV_ClipDistance`, ...): Vulkan has no built-ins for them there. Hull shader inputs and domain shader outputs
//!   keep their built-ins (they face the vertex shader and the rasterizer).
//! * `SV_TessFactor` / `SV_InsideTessFactor` are `TessLevelOuter` / `TessLevelInner`, element row `r` at index
//!   `semantic index + r`: D3D's edge orders are Vulkan's (tri: u=0, v=0, w=0 edges; quad: u=0, v=0, u=1, v=1;
//!   isoline: line density = number of lines, then line detail).
//! * Other patch constants are `Patch` locations after the control points' rows: per-vertex and per-patch
//!   variables share one location space, D3D numbers them separately. The offset is the rows of the hull
//!   shader's output (domain: input) control-point signature, reported in [`crate::Tessellation`] so that a
//!   domain shader can be translated with its hull shader's offset ([`crate::Options::patch_location_offset`]).

use dxil_shader::{SemanticKind, SignatureElement};
use spirv::{BuiltIn, Capability, Decoration, StorageClass};

use super::{ElementShape, IoSlot, Map, class_of, storage};
use crate::dxil::Stage;
use crate::error::{Error, Invalid, MetadataError};
use crate::lower::Ctx;
use crate::spv::{Id, TypeKey};

/// D3D's largest patch (control points).
pub(super) const MAX_CONTROL_POINTS: u32 = 32;

/// Elements whose system values travel as plain locations: hull shader outputs and domain shader inputs.
pub(super) fn control_points_as_locations(stage: Stage, output: bool) -> bool {
    match stage {
        Stage::Hull => output,
        Stage::Domain => !output,
        _ => false,
    }
}

/// The first location after the rows of a control-point signature.
pub(super) fn rows_after(elems: &[SignatureElement]) -> u32 {
    elems
        .iter()
        .filter(|e| e.start_row >= 0)
        .map(|e| (e.start_row as u32).saturating_add(e.rows.max(1)))
        .max()
        .unwrap_or(0)
}

/// A control-point count of the metadata, checked against D3D's range.
fn control_points(n: u32, what: &str) -> Result<u32, Error> {
    if n > MAX_CONTROL_POINTS {
        return Err(MetadataError::entry(format!(
            "{n} {what} control points (D3D allows at most {MAX_CONTROL_POINTS})"
        ))
        .into());
    }
    // A patch without control points still runs the shader once per patch: Vulkan arrays are not empty.
    Ok(n.max(1))
}

impl<'a> Ctx<'a> {
    /// Control-point counts and the patch constants' location offset, before the interface is declared.
    pub(super) fn tessellation_prepare(&mut self) -> Result<(), Error> {
        self.b.capability(Capability::Tessellation);
        if self.entry.stage == Stage::Hull {
            let hs = self.hs_state()?;
            control_points(hs.input_control_points, "input")?;
            self.io.input_vertices = MAX_CONTROL_POINTS;
            self.io.output_vertices = control_points(hs.output_control_points, "output")?;
            self.io.patch_location_offset = rows_after(&self.entry.signatures().outputs);
        } else {
            let ds = self.entry.ds_state.ok_or_else(|| {
                MetadataError::signature("domain shader without its state (tag 2)")
            })?;
            self.io.input_vertices = control_points(ds.input_control_points, "input")?;
            self.io.patch_location_offset = match self.opts.patch_location_offset {
                Some(o) => o,
                None => rows_after(&self.entry.signatures().inputs),
            };
        }
        Ok(())
    }

    /// The tessellation state of a hull or domain shader, for [`crate::Translation`].
    pub(in crate::lower) fn tessellation(&self) -> Option<crate::Tessellation> {
        use dxil_shader::{TessellatorOutputPrimitive, TessellatorPartitioning};
        let offset = self.io.patch_location_offset;
        match self.entry.stage {
            Stage::Hull => {
                let hs = self.entry.hs_state?;
                Some(crate::Tessellation {
                    input_control_points: hs.input_control_points,
                    output_control_points: self.io.output_vertices,
                    domain: hs.domain,
                    partitioning: hs.partitioning,
                    output_primitive: hs.output_primitive,
                    max_tess_factor: hs.max_tess_factor,
                    patch_location_offset: offset,
                })
            }
            Stage::Domain => {
                let ds = self.entry.ds_state?;
                Some(crate::Tessellation {
                    input_control_points: ds.input_control_points,
                    output_control_points: 0,
                    domain: ds.domain,
                    partitioning: TessellatorPartitioning::Undefined,
                    output_primitive: TessellatorOutputPrimitive::Undefined,
                    max_tess_factor: 0.0,
                    patch_location_offset: offset,
                })
            }
            _ => None,
        }
    }

    /// The hull shader state (tag 3).
    pub(super) fn hs_state(&self) -> Result<dxil_shader::HsState, Error> {
        self.entry
            .hs_state
            .ok_or_else(|| MetadataError::signature("hull shader without its state (tag 3)").into())
    }

    /// The patch constant variables: outputs of a hull shader, inputs of a domain shader, all `Patch`.
    pub(super) fn declare_patch_constants(
        &mut self,
        elems: &[SignatureElement],
    ) -> Result<(), Error> {
        let output = self.entry.stage == Stage::Hull;
        let mut levels: [Option<Id>; 2] = [None; 2];
        for e in elems {
            let class = class_of(e).map_err(|w| self.signature_unsupported(w))?;
            let rows = e.rows.max(1);
            let cols = u32::from(e.cols.max(1));
            if rows > 4096 || cols > 4 {
                return Err(MetadataError::signature(format!(
                    "patch constant {} `{}`: {rows} rows of {cols} columns",
                    e.id, e.name
                ))
                .into());
            }
            let (var, map, width) = match e.semantic_kind {
                SemanticKind::TessFactor | SemanticKind::InsideTessFactor => {
                    let outer = e.semantic_kind == SemanticKind::TessFactor;
                    let len = if outer { 4 } else { 2 };
                    let offset = e.semantic_indices.first().copied().unwrap_or(0);
                    if class != super::Class::Float
                        || cols != 1
                        || offset.saturating_add(rows) > len
                    {
                        return Err(MetadataError::signature(format!(
                            "patch constant {} `{}`: tessellation factors {offset}.. of {rows} rows of \
                             {cols} columns ({len} scalar floats at most)",
                            e.id, e.name
                        ))
                        .into());
                    }
                    let k = usize::from(!outer);
                    let var = match levels[k] {
                        Some(v) => v,
                        None => {
                            let v = self.tess_level_var(outer, output);
                            levels[k] = Some(v);
                            v
                        }
                    };
                    (var, Map::TessLevel { offset, outer }, 1)
                }
                _ => {
                    let shape = ElementShape {
                        output,
                        per_primitive: false,
                        arrayed: None,
                        rows,
                        cols,
                    };
                    let base = self.io.patch_location_offset;
                    let (var, map) = self.location_element(e, class, shape, base)?;
                    self.b.decorate(var, Decoration::Patch, &[]);
                    (var, map, cols)
                }
            };
            self.io.patches.push(IoSlot {
                id: e.id,
                var,
                map,
                class,
                rows,
                cols,
                width,
                per_vertex: false,
                output,
            });
        }
        Ok(())
    }

    /// `TessLevelOuter` (4 floats) or `TessLevelInner` (2 floats).
    fn tess_level_var(&mut self, outer: bool, output: bool) -> Id {
        let f = self.b.f32();
        let (len, bi) = if outer {
            (4, BuiltIn::TessLevelOuter)
        } else {
            (2, BuiltIn::TessLevelInner)
        };
        let t = self.b.ty(TypeKey::Array(f, len));
        let var = self.io_var(storage(output), t, Some(bi));
        self.b.decorate(var, Decoration::Patch, &[]);
        var
    }

    /// The patch constant slot of element `id`.
    pub(super) fn patch_slot(&self, id: u32) -> Result<IoSlot, Error> {
        self.io
            .patches
            .iter()
            .find(|s| s.id == id)
            .copied()
            .ok_or_else(|| self.invalid(Invalid::ty(format!("no patch constant element {id}"))))
    }

    /// `loadPatchConstant(inputSigId, row, col)`: a domain shader's patch constant inputs (or a hull shader's
    /// outputs, which it may read back).
    pub(super) fn load_patch_constant(
        &mut self,
        ty: dxil_module::TypeId,
        a: crate::lower::Args<'_>,
    ) -> Result<crate::lower::Val, Error> {
        let id = self.arg_const(a, 1)? as u32;
        let s = self.patch_slot(id)?;
        self.load_slot(&s, ty, a)
    }

    /// A `vec3` built-in input (`TessCoord`), shared by every operation that reads it.
    pub(super) fn vec3_builtin(&mut self, b: BuiltIn) -> Id {
        if let Some(&(_, v)) = self.io.builtins.iter().find(|(x, _)| *x == b) {
            return v;
        }
        let f = self.b.f32();
        let t = self.b.vec(f, 3);
        let var = self.io_var(StorageClass::Input, t, Some(b));
        self.io.builtins.push((b, var));
        var
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_inter_stage_side_carries_system_values_as_locations() {
        assert!(control_points_as_locations(Stage::Hull, true));
        assert!(!control_points_as_locations(Stage::Hull, false));
        assert!(control_points_as_locations(Stage::Domain, false));
        assert!(!control_points_as_locations(Stage::Domain, true));
        assert!(!control_points_as_locations(Stage::Vertex, true));
        assert!(!control_points_as_locations(Stage::Geometry, false));
    }

    #[test]
    fn control_point_counts_stay_in_d3d_range() {
        assert_eq!(control_points(0, "output").ok(), Some(1));
        assert_eq!(control_points(4, "output").ok(), Some(4));
        assert_eq!(control_points(32, "input").ok(), Some(32));
        assert!(control_points(33, "input").is_err());
    }
}
