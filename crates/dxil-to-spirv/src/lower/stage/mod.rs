//! Shader stages: per stage, the execution model and modes of the entry point, its interface (signature elements
//! → `Input`/`Output` variables) and the stage operations (`loadInput`, `storeOutput`, `discard`, pull-model
//! evaluation, geometry streams, stage system values).
//!
//! This module holds what the stages share: the one [`execution_model`] match that decides which stages are
//! translated, the interface machinery and the dispatch of system values, operations and execution modes to the
//! stage's own file (`compute`, `vertex`, `pixel`, `geometry`, `hull`, `domain`, with `tessellation` for what the
//! last two share, `mesh`, `raytracing`; a new stage is a new file beside them and an arm in each dispatch).
//!
//! Every signature element becomes one variable, declared up front so that the interface between stages is
//! complete even where the shader never touches an element. An element of `rows × cols` is a vector of `cols`
//! components (a scalar for one column), an array of `rows` of them when it has several rows, and, for control
//! points (geometry shader inputs, hull shader inputs and outputs, domain shader inputs), an array of that over the
//! vertices (mesh shader outputs: over the vertices or primitives the shader may write). `loadInput`/`storeOutput`
//! (and the hull and domain shaders' control-point and patch constant operations, the mesh shaders' vertex and
//! primitive outputs) index it by vertex, row (which may be dynamic) and column (constant in DXIL).
//!
//! Component types: 32-bit elements keep their class (float, signed, unsigned; signed integers are declared signed
//! so that vertex formats and render-target formats match). 16-bit elements (min precision or native) are 32-bit in
//! the interface and converted at each access: the interface of every stage translated here agrees, and Vulkan
//! needs `storageInputOutput16` otherwise. 64-bit elements are unsupported.

mod claims;
mod compute;
mod domain;
mod geometry;
mod hull;
mod mesh;
mod pixel;
mod raytracing;
mod tessellation;
mod vertex;

pub(crate) use raytracing::RayState;

use dxil_module::{TypeData, TypeId};
use dxil_shader::ops::OpCode;
use dxil_shader::{InterpolationMode, SemanticKind, SignatureElement};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};

use super::{Args, Ctx, Val};
use crate::dxil::{EntryInfo, Stage};
use crate::error::{Error, Invalid, MetadataError, Unsupported};
use crate::spv::{Id, TypeKey};

/// The SPIR-V execution model of a stage; `None` for the stages not translated (yet).
pub(crate) fn execution_model(stage: Stage) -> Option<ExecutionModel> {
    Some(match stage {
        Stage::Compute => ExecutionModel::GLCompute,
        Stage::Vertex => ExecutionModel::Vertex,
        Stage::Pixel => ExecutionModel::Fragment,
        Stage::Geometry => ExecutionModel::Geometry,
        Stage::Hull => ExecutionModel::TessellationControl,
        Stage::Domain => ExecutionModel::TessellationEvaluation,
        Stage::Mesh => ExecutionModel::MeshEXT,
        Stage::Amplification => ExecutionModel::TaskEXT,
        _ => return raytracing::execution_model(stage),
    })
}

/// Numeric class of an interface variable's components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Float,
    SInt,
    UInt,
    /// `FrontFacing` / `FullyCoveredEXT`: a bool that D3D reads as an integer.
    Bool,
}

/// How an element maps onto its variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Map {
    /// A user location, or a built-in of the same shape (`Position`, `Layer`, ...): indexed [vertex][row][col].
    Direct,
    /// `FragCoord`: D3D's `SV_Position.w` in a pixel shader is the clip-space w, Vulkan's `FragCoord.w` is 1/w.
    FragCoord,
    /// `SV_VertexID` / `SV_InstanceID`: D3D counts from the draw's first vertex / instance, Vulkan's
    /// `VertexIndex` / `InstanceIndex` include the base: subtract `BaseVertex` / `BaseInstance` (the variable
    /// held here).
    MinusBase(Id),
    /// `SV_ClipDistance` / `SV_CullDistance`: every element of one kind shares one built-in float array; this
    /// element starts at the offset.
    Distance(u32),
    /// `SV_TessFactor` / `SV_InsideTessFactor`: `TessLevelOuter` / `TessLevelInner` (`outer`) from the offset
    /// (the element's first semantic index).
    TessLevel { offset: u32, outer: bool },
    /// `SV_Coverage`: `SampleMask[0]`.
    SampleMask,
    /// A control-point element of several rows that starts at a column other than 0: one variable per row
    /// (`Interface::row_vars` from this index). SPIRV-Tools before 2024 rejects `Component` on an array of arrays
    /// (the vertex array of a row array), which the Vulkan spec now allows.
    Rows(u32),
}

/// One signature element's variable.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IoSlot {
    /// The signature element id (`inputSigId` / `outputSigId`).
    pub id: u32,
    pub var: Id,
    pub map: Map,
    pub class: Class,
    pub rows: u32,
    pub cols: u32,
    /// Components of the variable's vector (1: a scalar); `Position` is a vec4 whatever the element's width.
    pub width: u32,
    /// Control points (geometry shader inputs, hull shader inputs and outputs, domain shader inputs) and mesh shader
    /// outputs: indexed by vertex (or primitive) first.
    pub per_vertex: bool,
    pub output: bool,
}

/// The interface of a graphics entry point.
#[derive(Default)]
pub(crate) struct Interface {
    pub inputs: Vec<IoSlot>,
    pub outputs: Vec<IoSlot>,
    /// Patch constants of hull (outputs) and domain (inputs) shaders.
    pub patches: Vec<IoSlot>,
    /// Mesh shaders: the per-primitive outputs.
    pub prim_outputs: Vec<IoSlot>,
    /// Every `Input`/`Output` variable (the entry point's interface before SPIR-V 1.4).
    pub vars: Vec<Id>,
    /// Vertices of a geometry shader's input primitive, or control points of a hull or domain shader's input patch.
    pub input_vertices: u32,
    /// Control points a hull shader outputs.
    pub output_vertices: u32,
    /// Hull and domain shaders: the location of patch constant row 0.
    pub patch_location_offset: u32,
    /// The per-row variables of split elements ([`Map::Rows`]).
    pub row_vars: Vec<Id>,
    /// The depth execution mode a depth output asks for.
    pub depth_mode: Option<ExecutionMode>,
    pub stencil_export: bool,
    /// Built-ins read by stage operations (`SampleId`, `PrimitiveId`, ...): (built-in, variable).
    pub builtins: Vec<(BuiltIn, Id)>,
    /// Several geometry streams are active: vertices go to `OpEmitStreamVertex`.
    pub multi_stream: bool,
    /// Pixel shader inputs that `AttributeAtVertex` reads: arrays over the triangle's vertices (`PerVertexKHR`).
    pub per_vertex_inputs: Vec<u32>,
    /// Mesh and amplification shaders: payload, indices, output counts.
    pub mesh: mesh::MeshIo,
    /// Locations and built-ins taken by the elements declared so far.
    claims: claims::Claims,
    /// Outputs written to a second variable too: (output variable, copy). A vertex or domain shader's
    /// `SV_RenderTargetArrayIndex` / `SV_ViewportArrayIndex` also go to the element's location, where a geometry
    /// shader reads them (Vulkan geometry shaders cannot read the built-ins); without one the copy is unread.
    copies: Vec<(Id, Id)>,
}

impl Interface {
    /// An empty interface in `self`'s lists: the translator keeps one between translations, as a layer translates
    /// shader after shader and each would otherwise grow about five lists from nothing. Lists grown past a few
    /// thousand entries by one huge shader are dropped instead.
    pub(crate) fn emptied(self) -> Interface {
        fn keep<T>(mut v: Vec<T>) -> Vec<T> {
            v.clear();
            if v.capacity() > 1 << 12 {
                v = Vec::new();
            }
            v
        }
        let Interface {
            inputs,
            outputs,
            patches,
            prim_outputs,
            vars,
            row_vars,
            builtins,
            per_vertex_inputs,
            claims,
            copies,
            ..
        } = self;
        Interface {
            inputs: keep(inputs),
            outputs: keep(outputs),
            patches: keep(patches),
            prim_outputs: keep(prim_outputs),
            vars: keep(vars),
            row_vars: keep(row_vars),
            builtins: keep(builtins),
            per_vertex_inputs: keep(per_vertex_inputs),
            claims: claims.emptied(),
            copies: keep(copies),
            ..Interface::default()
        }
    }

    /// The length of the vertex arrays of control-point inputs or outputs.
    fn vertices(&self, output: bool) -> u32 {
        if output {
            self.output_vertices
        } else {
            self.input_vertices
        }
    }
}

/// Which signature an element belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sig {
    Input,
    Output,
    /// A mesh shader's per-primitive outputs.
    Primitive,
}

impl Sig {
    fn output(self) -> bool {
        self != Sig::Input
    }
}

/// How one element's variable is shaped: its direction, the length of the array over vertices (or primitives) it
/// is indexed by first, and its rows and columns.
#[derive(Clone, Copy)]
struct ElementShape {
    output: bool,
    /// A mesh shader's per-primitive output.
    per_primitive: bool,
    arrayed: Option<u32>,
    rows: u32,
    cols: u32,
}

/// Where the clip and cull distance elements sit: the length of each array (clip, cull) and each element's offset.
struct DistanceLayout {
    len: [u32; 2],
    offset: Vec<u32>,
}

/// The storage class of an interface variable.
fn storage(output: bool) -> StorageClass {
    if output {
        StorageClass::Output
    } else {
        StorageClass::Input
    }
}

/// The built-in a system value maps to in `stage` (input or output); `Ok(None)` for a user location; `Err` names
/// what is not supported. The stage's own values first, then those every stage shares.
pub(crate) fn system_value(
    stage: Stage,
    output: bool,
    kind: SemanticKind,
) -> Result<Option<BuiltIn>, &'static str> {
    use SemanticKind as K;
    if kind == K::Arbitrary {
        return Ok(None);
    }
    let own = match stage {
        Stage::Vertex => vertex::system_value(output, kind),
        Stage::Pixel => pixel::system_value(output, kind),
        Stage::Geometry => geometry::system_value(output, kind),
        Stage::Domain => domain::system_value(output, kind),
        Stage::Mesh => mesh::system_value(output, kind),
        _ => None,
    };
    if let Some(r) = own {
        return r;
    }
    // Vulkan has no Position or clip/cull distance inputs to vertex shaders nor outputs from pixel shaders.
    let vertex_in_or_pixel_out = match stage {
        Stage::Vertex => !output,
        Stage::Pixel => output,
        _ => false,
    };
    Ok(Some(match kind {
        K::Position | K::ClipDistance | K::CullDistance if vertex_in_or_pixel_out => {
            return Err("not a vertex shader input or pixel shader output");
        }
        K::Position => BuiltIn::Position,
        K::ClipDistance => BuiltIn::ClipDistance,
        K::CullDistance => BuiltIn::CullDistance,
        K::ViewID if !output => BuiltIn::ViewIndex,
        K::CullPrimitive => return Err("SV_CullPrimitive (mesh shaders)"),
        _ => return Err("this system value in this stage"),
    }))
}

/// The component class of a signature element.
fn class_of(e: &SignatureElement) -> Result<Class, String> {
    use dxil_shader::ComponentType as C;
    Ok(match e.component_type {
        C::F32 | C::F16 | C::SNormF16 | C::UNormF16 | C::SNormF32 | C::UNormF32 => Class::Float,
        C::I32 | C::I16 => Class::SInt,
        C::U32 | C::U16 | C::I1 => Class::UInt,
        other => {
            return Err(format!(
                "signature element {} `{}` of component type {other:?}",
                e.id, e.name
            ));
        }
    })
}

impl<'a> Ctx<'a> {
    /// Declares the interface variables of the entry point (none for compute and amplification shaders).
    pub(in crate::lower) fn declare_interface(&mut self) -> Result<(), Error> {
        match self.entry.stage {
            Stage::Compute => return Ok(()),
            Stage::Amplification => return self.mesh_prepare(),
            Stage::Geometry => self.geometry_prepare()?,
            Stage::Hull | Stage::Domain => self.tessellation_prepare()?,
            s if s.is_ray_tracing() => {
                self.ray_tracing_prepare();
                return Ok(());
            }
            Stage::Mesh => self.mesh_prepare()?,
            Stage::Pixel => self.pixel_prepare()?,
            _ => {}
        }
        let dm = std::sync::Arc::clone(&self.entry.dxil);
        let sig = EntryInfo::signatures_in(&dm, self.entry.entry_index);
        self.declare_elements(&sig.inputs, Sig::Input)?;
        self.declare_elements(&sig.outputs, Sig::Output)?;
        if self.entry.stage == Stage::Mesh {
            self.io.mesh.prim_location_base = mesh::rows_used(&sig.outputs);
            self.declare_elements(&sig.patch_constant_or_primitive, Sig::Primitive)?;
        }
        if matches!(self.entry.stage, Stage::Hull | Stage::Domain) {
            self.declare_patch_constants(&sig.patch_constant_or_primitive)?;
        }
        Ok(())
    }

    /// The variables of a signature's elements.
    fn declare_elements(&mut self, elems: &[SignatureElement], sig: Sig) -> Result<(), Error> {
        let stage = self.entry.stage;
        let output = sig.output();
        let arrayed = match (stage, sig) {
            (Stage::Geometry | Stage::Domain, Sig::Input) | (Stage::Hull, _) => {
                Some(self.io.vertices(output))
            }
            (Stage::Mesh, Sig::Output) => Some(self.io.mesh.max[0]),
            (Stage::Mesh, Sig::Primitive) => Some(self.io.mesh.max[1]),
            _ => None,
        };
        // A mesh shader that may write no vertices (or primitives) has no variables for them (an array cannot be
        // empty); its stores to them are dropped.
        if stage == Stage::Mesh && arrayed == Some(0) {
            return Ok(());
        }
        let dir = if output { "output" } else { "input" };
        // Hull shader outputs and domain shader inputs carry their system values as plain locations.
        let as_locations = tessellation::control_points_as_locations(stage, output);
        let distances = if as_locations {
            DistanceLayout {
                len: [0; 2],
                offset: Vec::new(),
            }
        } else {
            self.distance_layout(elems, dir)?
        };
        let mut distance_var: [Option<Id>; 2] = [None; 2];
        let stream_base = geometry::stream_bases(stage, output, elems);
        for (i, e) in elems.iter().enumerate() {
            if stage == Stage::Geometry && !output && geometry::read_by_operation(e.semantic_kind) {
                continue;
            }
            // Pixel shader inputs read per vertex (`GetAttributeAtVertex`).
            let arrayed = if stage == Stage::Pixel && sig == Sig::Input {
                self.io.per_vertex_inputs.contains(&e.id).then_some(3)
            } else {
                arrayed
            };
            let per_vertex = arrayed.is_some();
            let stream = geometry::stream_of(stage, output, e);
            let bi = if stream > 0 || as_locations {
                Ok(None)
            } else {
                system_value(stage, output, e.semantic_kind)
            };
            let bi = bi.map_err(|why| {
                self.signature_unsupported(format!(
                    "system value `{}` ({why}) in the {} shader {dir}s",
                    e.name,
                    stage.name()
                ))
            })?;
            let class = class_of(e).map_err(|w| self.signature_unsupported(w))?;
            let rows = e.rows.max(1);
            let cols = u32::from(e.cols.max(1));
            if rows > 4096 || cols > 4 {
                return Err(MetadataError::signature(format!(
                    "signature element {} `{}`: {rows} rows of {cols} columns",
                    e.id, e.name
                ))
                .into());
            }
            let shape = ElementShape {
                output,
                per_primitive: sig == Sig::Primitive,
                arrayed,
                rows,
                cols,
            };
            if stage == Stage::Mesh
                && sig == Sig::Output
                && bi.is_some_and(mesh::per_primitive_builtin)
            {
                return Err(self.signature_unsupported(format!(
                    "`{}` among the mesh shader's vertex outputs (a per-primitive value)",
                    e.name
                )));
            }
            if per_vertex && stage == Stage::Pixel && bi.is_some() {
                return Err(self.signature_unsupported(format!(
                    "GetAttributeAtVertex on the system value `{}`",
                    e.name
                )));
            }
            let (var, map, slot_class, width) = match bi {
                Some(b @ (BuiltIn::ClipDistance | BuiltIn::CullDistance)) => {
                    let k = usize::from(b == BuiltIn::CullDistance);
                    let var = match distance_var[k] {
                        Some(v) => v,
                        None => {
                            let v = self.distance_var(b, distances.len[k], arrayed, output);
                            distance_var[k] = Some(v);
                            v
                        }
                    };
                    let offset = distances.offset.get(i).copied().unwrap_or(0);
                    (var, Map::Distance(offset), class, 1)
                }
                Some(BuiltIn::SampleMask) => {
                    let u = self.b.u32();
                    let t = self.b.ty(TypeKey::Array(u, 1));
                    let v = self.io_var(storage(output), t, Some(BuiltIn::SampleMask));
                    if !output {
                        self.io.builtins.push((BuiltIn::SampleMask, v));
                    }
                    (v, Map::SampleMask, Class::UInt, 1)
                }
                Some(b) => {
                    let r = self.builtin_element(e, b, shape)?;
                    // A scalar or narrower built-in has no columns past its own: writes there would land on
                    // component 0 (or nowhere), and a copy (below) would not match the built-in's type.
                    if cols > r.3 {
                        return Err(MetadataError::signature(format!(
                            "signature element {} `{}`: {cols} columns for the built-in {b:?} of {}",
                            e.id, e.name, r.3
                        ))
                        .into());
                    }
                    r
                }
                None => {
                    let base = if sig == Sig::Primitive {
                        self.io.mesh.prim_location_base
                    } else {
                        stream_base[stream]
                    };
                    let (var, map) = self.location_element(e, class, shape, base)?;
                    (var, map, class, cols)
                }
            };
            if matches!(stage, Stage::Vertex | Stage::Domain)
                && output
                && matches!(bi, Some(BuiltIn::Layer | BuiltIn::ViewportIndex))
            {
                let (copy, _) = self.location_element(e, Class::UInt, shape, 0)?;
                self.io.copies.push((var, copy));
            }
            if stage == Stage::Pixel && !output && bi.is_some_and(pixel::flat_builtin_input) {
                self.b.decorate(var, Decoration::Flat, &[]);
            }
            if sig == Sig::Primitive {
                self.b.decorate(var, Decoration::PerPrimitiveEXT, &[]);
            }
            let slot = IoSlot {
                id: e.id,
                var,
                map,
                class: slot_class,
                rows,
                cols,
                width,
                per_vertex,
                output,
            };
            match sig {
                Sig::Input => self.io.inputs.push(slot),
                Sig::Output => self.io.outputs.push(slot),
                Sig::Primitive => self.io.prim_outputs.push(slot),
            }
        }
        Ok(())
    }

    /// An error about a signature element. Signature elements are not instructions: the location names the entry
    /// function only.
    fn signature_unsupported(&self, what: String) -> Error {
        Error::Unsupported {
            what: Unsupported::signature(what),
            at: crate::error::Location {
                function: self.entry.name.clone(),
                block: 0,
                inst: 0,
            },
        }
    }

    /// Clip and cull distances: one float array each, elements concatenated in semantic-index order.
    fn distance_layout(
        &self,
        elems: &[SignatureElement],
        dir: &str,
    ) -> Result<DistanceLayout, Error> {
        let stage = self.entry.stage;
        let mut layout = DistanceLayout {
            len: [0; 2],
            offset: vec![0; elems.len()],
        };
        let mut order: Vec<usize> = (0..elems.len()).collect();
        order.sort_by_key(|&i| elems[i].semantic_indices.first().copied().unwrap_or(0));
        for &i in &order {
            let e = &elems[i];
            let k = match e.semantic_kind {
                SemanticKind::ClipDistance => 0,
                SemanticKind::CullDistance => 1,
                _ => continue,
            };
            if class_of(e).ok() != Some(Class::Float) {
                return Err(self.signature_unsupported(format!(
                    "{} {dir} `{}` of a non-float type",
                    stage.name(),
                    e.name
                )));
            }
            layout.offset[i] = layout.len[k];
            // Saturating: hostile row counts must fail the limit below, not wrap under it.
            layout.len[k] = layout.len[k]
                .saturating_add(e.rows.max(1).saturating_mul(u32::from(e.cols.max(1))));
        }
        let total = layout.len[0].saturating_add(layout.len[1]);
        if total > 8 {
            return Err(self.signature_unsupported(format!(
                "{total} clip and cull distances in the {} {dir}s (Vulkan guarantees 8)",
                stage.name()
            )));
        }
        Ok(layout)
    }

    /// The `ClipDistance` / `CullDistance` array of `len` floats (per vertex when `arrayed`).
    fn distance_var(&mut self, b: BuiltIn, len: u32, arrayed: Option<u32>, output: bool) -> Id {
        let f = self.b.f32();
        let mut t = self.b.ty(TypeKey::Array(f, len));
        if let Some(n) = arrayed {
            t = self.b.ty(TypeKey::Array(t, n));
        }
        let cap = if b == BuiltIn::ClipDistance {
            Capability::ClipDistance
        } else {
            Capability::CullDistance
        };
        self.b.capability(cap);
        self.io_var(storage(output), t, Some(b))
    }

    /// The variable of a system value that is a built-in of its own: (variable, map, class, width).
    fn builtin_element(
        &mut self,
        e: &SignatureElement,
        b: BuiltIn,
        shape: ElementShape,
    ) -> Result<(Id, Map, Class, u32), Error> {
        let stage = self.entry.stage;
        if shape.rows > 1 {
            let dir = if shape.output { "output" } else { "input" };
            return Err(self.signature_unsupported(format!(
                "system value `{}` of {} rows in the {} shader {dir}s",
                e.name,
                shape.rows,
                stage.name()
            )));
        }
        let b = if b == BuiltIn::BaryCoordKHR
            && matches!(
                e.interpolation_mode,
                InterpolationMode::LinearNoperspective
                    | InterpolationMode::LinearNoperspectiveCentroid
                    | InterpolationMode::LinearNoperspectiveSample
            ) {
            BuiltIn::BaryCoordNoPerspKHR
        } else {
            b
        };
        self.claim_builtin(e, b, shape.output)?;
        let (t, class, width) = self.builtin_type(b);
        let t = match shape.arrayed {
            Some(n) => self.b.ty(TypeKey::Array(t, n)),
            None => t,
        };
        let var = self.io_var(storage(shape.output), t, Some(b));
        self.builtin_caps(b)?;
        if !shape.output && shape.arrayed.is_none() {
            // Stage operations reading the same built-in share the variable.
            self.io.builtins.push((b, var));
        }
        let mut map = Map::Direct;
        match b {
            BuiltIn::FragCoord => map = Map::FragCoord,
            BuiltIn::VertexIndex | BuiltIn::InstanceIndex => {
                map = Map::MinusBase(self.stage_builtin(vertex::base_of(b))?);
            }
            BuiltIn::FragDepth => self.io.depth_mode = Some(pixel::depth_mode(e.semantic_kind)),
            _ => {}
        }
        Ok((var, map, class, width))
    }

    /// The variable of a user element (or `SV_Target`) at its location (its start row after `location_base`: the
    /// rows of the geometry streams, or a mesh shader's vertex outputs, before it), and how the element maps onto it
    /// (`Direct`, or `Rows` for a split element).
    fn location_element(
        &mut self,
        e: &SignatureElement,
        class: Class,
        shape: ElementShape,
        location_base: u32,
    ) -> Result<(Id, Map), Error> {
        let stage = self.entry.stage;
        if e.start_row < 0 || e.start_col < 0 {
            return Err(MetadataError::signature(format!(
                "signature element {} `{}` has no register",
                e.id, e.name
            ))
            .into());
        }
        let scalar = match class {
            Class::Float => self.b.f32(),
            Class::SInt => self.b.ty(TypeKey::SInt(32)),
            _ => self.b.u32(),
        };
        let split = shape.arrayed.is_some() && shape.rows > 1 && e.start_col > 0;
        if split && shape.rows > 32 {
            return Err(MetadataError::signature(format!(
                "signature element {} `{}`: {} rows (D3D allows 32)",
                e.id, e.name, shape.rows
            ))
            .into());
        }
        let mut t = if shape.cols > 1 {
            self.b.vec(scalar, shape.cols)
        } else {
            scalar
        };
        if shape.rows > 1 && !split {
            t = self.b.ty(TypeKey::Array(t, shape.rows));
        }
        if let Some(n) = shape.arrayed {
            t = self.b.ty(TypeKey::Array(t, n));
        }
        // SV_Target n goes to attachment n, its semantic index (= its row).
        let (location, component, per_primitive) = if e.semantic_kind == SemanticKind::Target {
            let first = e.semantic_indices.first().copied();
            (first.unwrap_or(e.start_row as u32), 0, false)
        } else if stage == Stage::Pixel && !shape.output && self.opts.input_varyings.is_some() {
            self.linked_input(e, shape.rows)?
        } else {
            let location = (e.start_row as u32)
                .checked_add(location_base)
                .filter(|l| l.checked_add(shape.rows).is_some())
                .ok_or_else(|| {
                    MetadataError::signature(format!(
                        "signature element {} `{}`: row {} after {location_base} locations",
                        e.id, e.name, e.start_row
                    ))
                })?;
            (location, e.start_col as u32, false)
        };
        self.claim_locations(e, location, shape)?;
        let first = self.io.row_vars.len() as u32;
        let mut var = None;
        for r in 0..if split { shape.rows } else { 1 } {
            let v = self.io_var(storage(shape.output), t, None);
            self.b
                .decorate(v, Decoration::Location, &[location.saturating_add(r)]);
            if component > 0 {
                self.b.decorate(v, Decoration::Component, &[component]);
            }
            match stage {
                Stage::Pixel if !shape.output => self.pixel_input_decorations(
                    v,
                    e,
                    class,
                    per_primitive,
                    shape.arrayed.is_some(),
                ),
                Stage::Geometry if shape.output => {
                    self.geometry_output_decorations(v, e);
                    self.rasterized_output_decorations(v, e);
                }
                Stage::Vertex | Stage::Domain if shape.output => {
                    self.rasterized_output_decorations(v, e)
                }
                _ => {}
            }
            if split {
                self.io.row_vars.push(v);
            }
            var.get_or_insert(v);
        }
        let var = var.ok_or_else(|| self.invalid(Invalid::internal("element without rows")))?;
        // Only mesh shaders pack outputs that a pixel shader cannot find at its own registers.
        if shape.output && stage == Stage::Mesh {
            for r in 0..shape.rows {
                self.varyings.push(crate::Varying {
                    semantic: e.name.clone(),
                    index: e.semantic_indices.get(r as usize).copied().unwrap_or(r),
                    location: location.saturating_add(r),
                    component,
                    per_primitive: shape.per_primitive,
                });
            }
        }
        Ok((var, if split { Map::Rows(first) } else { Map::Direct }))
    }

    /// An `Input`/`Output` variable, decorated as a built-in when `bi` says so.
    fn io_var(&mut self, sc: StorageClass, ty: Id, bi: Option<BuiltIn>) -> Id {
        let pty = self.b.ptr(sc, ty);
        let var = self.b.global_var(pty, sc, None);
        if let Some(bi) = bi {
            self.b.decorate(var, Decoration::BuiltIn, &[bi as u32]);
        }
        self.io.vars.push(var);
        var
    }

    /// The SPIR-V type a built-in requires, the class it reads as and its vector width.
    fn builtin_type(&mut self, b: BuiltIn) -> (Id, Class, u32) {
        match b {
            BuiltIn::Position | BuiltIn::FragCoord => {
                let f = self.b.f32();
                (self.b.vec(f, 4), Class::Float, 4)
            }
            BuiltIn::BaryCoordKHR | BuiltIn::BaryCoordNoPerspKHR => {
                let f = self.b.f32();
                (self.b.vec(f, 3), Class::Float, 3)
            }
            BuiltIn::FragDepth => (self.b.f32(), Class::Float, 1),
            BuiltIn::FrontFacing | BuiltIn::FullyCoveredEXT | BuiltIn::CullPrimitiveEXT => {
                (self.b.bool(), Class::Bool, 1)
            }
            BuiltIn::FragStencilRefEXT => (self.b.ty(TypeKey::SInt(32)), Class::SInt, 1),
            _ => (self.b.u32(), Class::UInt, 1),
        }
    }

    /// Capabilities and extensions a built-in needs in this stage.
    fn builtin_caps(&mut self, b: BuiltIn) -> Result<(), Error> {
        let stage = self.entry.stage;
        match b {
            // `MeshShadingEXT` enables the per-primitive built-ins in mesh shaders.
            BuiltIn::Layer
            | BuiltIn::ViewportIndex
            | BuiltIn::PrimitiveId
            | BuiltIn::CullPrimitiveEXT
                if stage == Stage::Mesh => {}
            BuiltIn::Layer | BuiltIn::ViewportIndex
                if matches!(stage, Stage::Vertex | Stage::Domain) =>
            {
                self.b.capability(Capability::ShaderViewportIndexLayerEXT);
                self.b.extension("SPV_EXT_shader_viewport_index_layer");
            }
            // Tessellation implies the tessellation stages' own built-ins; Geometry would ask for the
            // geometryShader feature.
            BuiltIn::PrimitiveId | BuiltIn::InvocationId
                if matches!(stage, Stage::Hull | Stage::Domain) => {}
            BuiltIn::Layer => self.b.capability(Capability::Geometry),
            BuiltIn::ViewportIndex => self.b.capability(Capability::MultiViewport),
            BuiltIn::PrimitiveId => self.b.capability(Capability::Geometry),
            BuiltIn::SampleId => self.b.capability(Capability::SampleRateShading),
            BuiltIn::FragStencilRefEXT => {
                self.b.capability(Capability::StencilExportEXT);
                self.b.extension("SPV_EXT_shader_stencil_export");
                self.io.stencil_export = true;
            }
            BuiltIn::FullyCoveredEXT => {
                self.b.capability(Capability::FragmentFullyCoveredEXT);
                self.b.extension("SPV_EXT_fragment_fully_covered");
            }
            BuiltIn::ViewIndex => self.b.capability(Capability::MultiView),
            BuiltIn::BaseVertex | BuiltIn::BaseInstance => {
                self.b.capability(Capability::DrawParameters)
            }
            BuiltIn::BaryCoordKHR | BuiltIn::BaryCoordNoPerspKHR => {
                self.b.capability(Capability::FragmentBarycentricKHR);
                self.b.extension("SPV_KHR_fragment_shader_barycentric");
            }
            BuiltIn::ShadingRateKHR | BuiltIn::PrimitiveShadingRateKHR => {
                self.b.capability(Capability::FragmentShadingRateKHR);
                self.b.extension("SPV_KHR_fragment_shading_rate");
            }
            BuiltIn::InvocationId => self.b.capability(Capability::Geometry),
            _ => {}
        }
        Ok(())
    }

    /// A scalar built-in input read by a stage operation (`SampleId`, `PrimitiveId`, `InvocationId`, ...).
    pub(in crate::lower) fn stage_builtin(&mut self, b: BuiltIn) -> Result<Id, Error> {
        if let Some(&(_, v)) = self.io.builtins.iter().find(|(x, _)| *x == b) {
            return Ok(v);
        }
        // The element may already be in the input signature.
        let ty = match b {
            BuiltIn::FullyCoveredEXT | BuiltIn::HelperInvocation => self.b.bool(),
            _ => self.b.u32(),
        };
        let var = self.io_var(StorageClass::Input, ty, Some(b));
        self.builtin_caps(b)?;
        if self.entry.stage == Stage::Pixel && ty != self.b.bool() {
            self.b.decorate(var, Decoration::Flat, &[]);
        }
        self.io.builtins.push((b, var));
        Ok(var)
    }

    fn slot(&self, output: bool, id: u32) -> Result<IoSlot, Error> {
        let list = if output {
            &self.io.outputs
        } else {
            &self.io.inputs
        };
        list.iter().find(|s| s.id == id).copied().ok_or_else(|| {
            self.invalid(Invalid::ty(format!(
                "no {} signature element {id}",
                if output { "output" } else { "input" }
            )))
        })
    }

    /// A pointer to component (`row`, `col`) of a slot's variable, for `vertex` of a control-point slot; and
    /// the SPIR-V type of the component.
    fn slot_ptr(
        &mut self,
        s: &IoSlot,
        mut var: Id,
        vertex: Option<Id>,
        row: Id,
        row_const: Option<i64>,
        col: u32,
    ) -> Result<(Id, Id), Error> {
        if col >= s.cols {
            return Err(self.invalid(Invalid::range(format!(
                "column {col} of a signature element of {} columns",
                s.cols
            ))));
        }
        if let Some(r) = row_const
            && !(0..i64::from(s.rows)).contains(&r)
        {
            return Err(self.invalid(Invalid::range(format!(
                "row {r} of a signature element of {} rows",
                s.rows
            ))));
        }
        let sc = if s.output {
            StorageClass::Output
        } else {
            StorageClass::Input
        };
        // At most three indices (vertex, row, column): on the stack, as this runs for every interface access.
        let mut idx = [var; 3];
        let mut n = 0;
        let mut push = |i: Id| {
            if let Some(slot) = idx.get_mut(n) {
                *slot = i;
                n += 1;
            }
        };
        if s.per_vertex {
            let v = vertex.ok_or_else(|| {
                self.invalid(Invalid::range("control-point element without a vertex"))
            })?;
            push(v);
        }
        let scalar = match s.class {
            Class::Float => self.b.f32(),
            Class::SInt => self.b.ty(TypeKey::SInt(32)),
            Class::UInt => self.b.u32(),
            Class::Bool => self.b.bool(),
        };
        match s.map {
            Map::Distance(offset) | Map::TessLevel { offset, .. } => {
                // offset + row * cols + col, folded when the row is constant.
                let u = self.b.u32();
                let i = match row_const {
                    Some(r) => self.b.const_u32(offset + r as u32 * s.cols + col),
                    None => {
                        let c = self.b.const_u32(s.cols);
                        let m = self.op2(Op::IMul, u, row, c);
                        let k = self.b.const_u32(offset + col);
                        self.op2(Op::IAdd, u, m, k)
                    }
                };
                push(i);
            }
            Map::SampleMask => push(self.b.const_u32(0)),
            Map::Rows(first) => {
                var = row_const
                    .and_then(|r| self.io.row_vars.get(first as usize + r as usize))
                    .copied()
                    .ok_or_else(|| self.invalid(Invalid::internal("split element row")))?;
                if s.width > 1 {
                    push(self.b.const_u32(col));
                }
            }
            Map::Direct | Map::FragCoord | Map::MinusBase(_) => {
                if s.rows > 1 {
                    push(row);
                }
                if s.width > 1 {
                    push(self.b.const_u32(col));
                }
            }
        }
        let pty = self.b.ptr(sc, scalar);
        let p = if n == 0 {
            var
        } else {
            self.chain(pty, var, &idx[..n])
        };
        Ok((p, scalar))
    }

    /// Converts a component read from the interface to the LLVM type `ty`.
    fn read_converted(&mut self, x: Id, class: Class, ty: TypeId) -> Result<Id, Error> {
        let t = self.ty(ty)?;
        Ok(match (class, self.m.types.data(ty)) {
            (Class::Float, TypeData::Float) => x,
            // Min-precision values lowered as 32-bit (`Ctx::min32`) are the interface's own type.
            (Class::Float, TypeData::Half) if self.min32() => x,
            (Class::UInt, TypeData::Int(16)) if self.min32() => x,
            (Class::SInt, TypeData::Int(16)) if self.min32() => self.op1(Op::Bitcast, t, x),
            (Class::Float, TypeData::Half) => self.op1(Op::FConvert, t, x),
            (Class::UInt, TypeData::Int(32)) => x,
            (Class::SInt, TypeData::Int(32)) => self.op1(Op::Bitcast, t, x),
            (Class::UInt | Class::SInt, TypeData::Int(16)) => {
                let u = self.b.u32();
                let x = if class == Class::SInt {
                    self.op1(Op::Bitcast, u, x)
                } else {
                    x
                };
                self.op1(Op::UConvert, t, x)
            }
            (Class::UInt | Class::SInt, TypeData::Int(1)) => {
                let u = self.b.u32();
                let x = if class == Class::SInt {
                    self.op1(Op::Bitcast, u, x)
                } else {
                    x
                };
                let z = self.b.const_u32(0);
                self.op2(Op::INotEqual, t, x, z)
            }
            (Class::Bool, TypeData::Int(32)) => {
                // D3D's true is all ones.
                let one = self.b.const_u32(u32::MAX);
                let z = self.b.const_u32(0);
                self.select(t, x, one, z)
            }
            (Class::Bool, TypeData::Int(1)) => x,
            // Integer bits read as float (or the reverse): D3D registers are untyped.
            (Class::Float, TypeData::Int(32)) | (Class::UInt, TypeData::Float) => {
                self.op1(Op::Bitcast, t, x)
            }
            (Class::SInt, TypeData::Float) => self.op1(Op::Bitcast, t, x),
            (c, other) => {
                return Err(self.unsupported(Unsupported::signature(format!(
                    "reading a {c:?} signature element as {other:?}"
                ))));
            }
        })
    }

    /// Converts an LLVM value of type `ty` to the interface's class.
    fn write_converted(&mut self, x: Id, ty: TypeId, class: Class) -> Result<Id, Error> {
        let f = self.b.f32();
        let u = self.b.u32();
        let s = self.b.ty(TypeKey::SInt(32));
        Ok(match (self.m.types.data(ty), class) {
            (TypeData::Float, Class::Float) => x,
            (TypeData::Half, Class::Float) if self.min32() => x,
            (TypeData::Int(16), Class::UInt) if self.min32() => x,
            (TypeData::Int(16), Class::SInt) if self.min32() => self.op1(Op::Bitcast, s, x),
            (TypeData::Half, Class::Float) => self.op1(Op::FConvert, f, x),
            (TypeData::Int(32), Class::UInt) => x,
            (TypeData::Int(32), Class::SInt) => self.op1(Op::Bitcast, s, x),
            (TypeData::Int(16), Class::UInt) => self.op1(Op::UConvert, u, x),
            (TypeData::Int(16), Class::SInt) => {
                // Sign-extend: a signed 16-bit element holds a signed value.
                let w = self.op1(Op::SConvert, u, x);
                self.op1(Op::Bitcast, s, w)
            }
            (TypeData::Int(1), Class::UInt | Class::SInt) => {
                let one = self.b.const_u32(1);
                let z = self.b.const_u32(0);
                let v = self.select(u, x, one, z);
                if class == Class::SInt {
                    self.op1(Op::Bitcast, s, v)
                } else {
                    v
                }
            }
            (TypeData::Int(32), Class::Float) => self.op1(Op::Bitcast, f, x),
            // `SV_CullPrimitive`: a bool built-in that D3D writes as an integer.
            (TypeData::Int(1), Class::Bool) => x,
            (TypeData::Int(32), Class::Bool) => {
                let bt = self.b.bool();
                let z = self.b.const_u32(0);
                self.op2(Op::INotEqual, bt, x, z)
            }
            (TypeData::Float, Class::UInt) => self.op1(Op::Bitcast, u, x),
            (TypeData::Float, Class::SInt) => self.op1(Op::Bitcast, s, x),
            (other, c) => {
                return Err(self.unsupported(Unsupported::signature(format!(
                    "writing {other:?} to a {c:?} signature element"
                ))));
            }
        })
    }

    /// `loadInput(inputSigId, rowIndex, colIndex, gsVertexAxis)`.
    pub(super) fn load_input(&mut self, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let id = self.arg_const(a, 1)? as u32;
        let s = self.slot(false, id)?;
        self.load_slot(&s, ty, a)
    }

    /// Loads component (operand 2, operand 3) of a slot, for the vertex in operand 4 when the slot has vertices,
    /// as `ty`.
    fn load_slot(&mut self, s: &IoSlot, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let (row, row_const) = self.row_arg(a, 2)?;
        let col = self.arg_const(a, 3)? as u32;
        let vertex = if !s.per_vertex {
            None
        } else if self.entry.stage == Stage::Pixel {
            // A plain read of an input that is also read per vertex: D3D's `nointerpolation`, the provoking
            // (first) vertex.
            Some(self.b.const_u32(0))
        } else {
            Some(self.arg_id(a, 4)?)
        };
        let mut x = match (s.map, row_const) {
            (Map::Rows(_), None) => self.load_split_row(s, vertex, row, col)?,
            _ => {
                let (p, scalar) = self.slot_ptr(s, s.var, vertex, row, row_const, col)?;
                self.load(scalar, p)
            }
        };
        match s.map {
            Map::FragCoord if col == 3 => {
                let f = self.b.f32();
                let one = self.b.const_f32(1.0);
                x = self.op2(Op::FDiv, f, one, x);
            }
            Map::MinusBase(base) => {
                let u = self.b.u32();
                let b = self.load(u, base);
                x = self.op2(Op::ISub, u, x, b);
            }
            _ => {}
        }
        self.read_converted(x, s.class, ty).map(Val::Id)
    }

    /// `storeOutput(outputSigId, rowIndex, colIndex, value)`; a hull shader writes its own control point.
    fn store_output(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let id = self.arg_const(a, 1)? as u32;
        let s = self.slot(true, id)?;
        let vertex = if s.per_vertex {
            Some(self.output_control_point_id()?)
        } else {
            None
        };
        self.store_slot(&s, vertex, a)
    }

    /// Stores operand 4 into component (operand 2, operand 3) of a slot, for `vertex` when the slot has vertices.
    fn store_slot(&mut self, s: &IoSlot, vertex: Option<Id>, a: Args<'_>) -> Result<Val, Error> {
        let (row, row_const) = self.row_arg(a, 2)?;
        let col = self.arg_const(a, 3)? as u32;
        if self.arg_undef(a, 4) {
            return Ok(Val::None);
        }
        let vt = self.arg_ty(a, 4)?;
        let x = self.arg_id(a, 4)?;
        let p = match (s.map, row_const) {
            (Map::Rows(_), None) => None,
            _ => Some(self.slot_ptr(s, s.var, vertex, row, row_const, col)?.0),
        };
        let mut v = self.write_converted(x, vt, s.class)?;
        if let Map::TessLevel { offset, outer } = s.map {
            v = self.tess_factor_written(v, offset, outer, row, row_const)?;
        }
        match p {
            Some(p) => self.store(p, v),
            None => self.store_split_row(s, vertex, row, col, v)?,
        }
        if let Some(&(_, copy)) = self.io.copies.iter().find(|&&(v, _)| v == s.var) {
            let (p, _) = self.slot_ptr(s, copy, vertex, row, row_const, col)?;
            self.store(p, v);
        }
        Ok(Val::None)
    }

    /// Component `col` of the row `row` (dynamic) of a split element: every row read, the indexed one selected.
    fn load_split_row(
        &mut self,
        s: &IoSlot,
        vertex: Option<Id>,
        row: Id,
        col: u32,
    ) -> Result<Id, Error> {
        let bt = self.b.bool();
        let mut x = None;
        for r in 0..s.rows {
            let k = self.b.const_u32(r);
            let (p, scalar) = self.slot_ptr(s, s.var, vertex, k, Some(i64::from(r)), col)?;
            let y = self.load(scalar, p);
            x = Some(match x {
                None => y,
                Some(prev) => {
                    let here = self.op2(Op::IEqual, bt, row, k);
                    self.select(scalar, here, y, prev)
                }
            });
        }
        x.ok_or_else(|| self.invalid(Invalid::internal("element without rows")))
    }

    /// Writes `value` to component `col` of the row `row` (dynamic) of a split element: every row is written,
    /// the others with the value they hold.
    fn store_split_row(
        &mut self,
        s: &IoSlot,
        vertex: Option<Id>,
        row: Id,
        col: u32,
        value: Id,
    ) -> Result<(), Error> {
        let bt = self.b.bool();
        for r in 0..s.rows {
            let k = self.b.const_u32(r);
            let (p, scalar) = self.slot_ptr(s, s.var, vertex, k, Some(i64::from(r)), col)?;
            let old = self.load(scalar, p);
            let here = self.op2(Op::IEqual, bt, row, k);
            let v = self.select(scalar, here, value, old);
            self.store(p, v);
        }
        Ok(())
    }

    /// A row operand: its id and, when constant, its value.
    fn row_arg(&mut self, a: Args<'_>, k: usize) -> Result<(Id, Option<i64>), Error> {
        let v = self.arg(a, k)?;
        match self.const_int(v) {
            Some(r) => Ok((self.b.const_u32(r as u32), Some(r))),
            None if self.arg_undef(a, k) => Ok((self.b.const_u32(0), Some(0))),
            None => Ok((self.value(v)?, None)),
        }
    }

    /// Stage operations other than the core ones: `Some` when `op` is one. The stage's own operations first, then
    /// those every graphics stage shares.
    pub(in crate::lower) fn stage_op(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Option<Result<Val, Error>> {
        let stage = self.entry.stage;
        let own = match stage {
            Stage::Vertex => self.vertex_op(op, ty),
            Stage::Pixel => self.pixel_op(op, ty, a),
            Stage::Geometry => self.geometry_op(op, ty, a),
            Stage::Hull => self.hull_op(op, ty, a),
            Stage::Domain => self.domain_op(op, ty, a),
            Stage::Mesh | Stage::Amplification => self.mesh_op(op, a),
            s if s.is_ray_tracing() => return self.ray_tracing_op(op, ty, a),
            _ => None,
        };
        if own.is_some() {
            return own;
        }
        let r = match op {
            OpCode::LoadInput => self.load_input(ty, a),
            OpCode::StoreOutput => self.store_output(a),
            OpCode::ViewID
                if matches!(
                    stage,
                    Stage::Vertex
                        | Stage::Pixel
                        | Stage::Geometry
                        | Stage::Hull
                        | Stage::Domain
                        | Stage::Mesh
                ) =>
            {
                self.load_stage_builtin(BuiltIn::ViewIndex, ty)
            }
            _ => return None,
        };
        Some(r)
    }

    fn load_stage_builtin(&mut self, b: BuiltIn, ty: TypeId) -> Result<Val, Error> {
        let v = self.stage_builtin(b)?;
        let u = self.b.u32();
        let x = self.load(u, v);
        self.read_converted(x, Class::UInt, ty).map(Val::Id)
    }

    /// The execution modes of the entry point.
    pub(in crate::lower) fn entry_modes(&mut self, main: Id) -> Result<(), Error> {
        match self.entry.stage {
            Stage::Compute => self.compute_modes(main),
            Stage::Pixel => self.pixel_modes(main),
            Stage::Geometry => self.geometry_modes(main)?,
            Stage::Hull => self.hull_modes(main)?,
            Stage::Domain => self.domain_modes(main)?,
            Stage::Mesh | Stage::Amplification => self.mesh_modes(main)?,
            _ => {}
        }
        Ok(())
    }

    /// `OpExecutionMode main mode args...`.
    fn exec_mode(&mut self, main: Id, mode: ExecutionMode, args: &[u32]) {
        let buf = &mut self.b.exec_modes;
        buf.push(((args.len() as u32 + 3) << 16) | spirv::Op::ExecutionMode as u32);
        buf.push(main.word());
        buf.push(mode as u32);
        buf.extend_from_slice(args);
    }

    /// How D3D forms quads in this shader (see `compute::quad_mode`; mesh and amplification shaders form them as
    /// compute shaders do). Pixel shaders have quads of their own (reported as `DerivativeGroupQuadsNV`, which is
    /// then not emitted); vertex and geometry shaders have none.
    pub fn quad_mode(&self) -> Option<ExecutionMode> {
        match self.entry.stage {
            Stage::Compute | Stage::Mesh | Stage::Amplification => {
                compute::quad_mode(self.entry.num_threads)
            }
            Stage::Pixel => Some(ExecutionMode::DerivativeGroupQuadsNV),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_values_map_to_the_stage_built_ins() {
        use SemanticKind as K;
        let sv = |stage, output, kind| system_value(stage, output, kind);
        assert_eq!(sv(Stage::Vertex, false, K::Arbitrary), Ok(None));
        assert_eq!(
            sv(Stage::Vertex, false, K::VertexID),
            Ok(Some(BuiltIn::VertexIndex))
        );
        assert_eq!(
            sv(Stage::Vertex, false, K::InstanceID),
            Ok(Some(BuiltIn::InstanceIndex))
        );
        assert_eq!(
            sv(Stage::Vertex, true, K::Position),
            Ok(Some(BuiltIn::Position))
        );
        assert_eq!(
            sv(Stage::Geometry, false, K::Position),
            Ok(Some(BuiltIn::Position))
        );
        assert_eq!(
            sv(Stage::Pixel, false, K::Position),
            Ok(Some(BuiltIn::FragCoord))
        );
        assert_eq!(
            sv(Stage::Pixel, false, K::IsFrontFace),
            Ok(Some(BuiltIn::FrontFacing))
        );
        assert_eq!(sv(Stage::Pixel, true, K::Target), Ok(None));
        for k in [K::Depth, K::DepthLessEqual, K::DepthGreaterEqual] {
            assert_eq!(sv(Stage::Pixel, true, k), Ok(Some(BuiltIn::FragDepth)));
        }
        assert_eq!(
            sv(Stage::Pixel, true, K::Coverage),
            Ok(Some(BuiltIn::SampleMask))
        );
        assert_eq!(
            sv(Stage::Vertex, true, K::ClipDistance),
            Ok(Some(BuiltIn::ClipDistance))
        );
        assert_eq!(
            sv(Stage::Pixel, false, K::CullDistance),
            Ok(Some(BuiltIn::CullDistance))
        );
        assert_eq!(
            sv(Stage::Vertex, true, K::RenderTargetArrayIndex),
            Ok(Some(BuiltIn::Layer))
        );
        assert_eq!(
            sv(Stage::Geometry, true, K::PrimitiveID),
            Ok(Some(BuiltIn::PrimitiveId))
        );
        // A geometry shader reads Layer from the location the stage before also writes.
        assert_eq!(
            sv(Stage::Geometry, false, K::RenderTargetArrayIndex),
            Ok(None)
        );
        // Inputs that are outputs elsewhere, outputs that are inputs, and stages' own values in the wrong stage are
        // errors.
        assert!(sv(Stage::Vertex, true, K::ViewID).is_err());
        assert!(sv(Stage::Pixel, true, K::Position).is_err());
        assert!(sv(Stage::Vertex, false, K::ClipDistance).is_err());
        assert!(sv(Stage::Vertex, false, K::Depth).is_err());
        assert!(sv(Stage::Pixel, false, K::Target).is_err());
        assert!(sv(Stage::Vertex, true, K::CullPrimitive).is_err());
        // Mesh shaders: per-vertex outputs as in other stages, per-primitive ones of their own.
        assert_eq!(
            sv(Stage::Mesh, true, K::Position),
            Ok(Some(BuiltIn::Position))
        );
        assert_eq!(
            sv(Stage::Mesh, true, K::CullPrimitive),
            Ok(Some(BuiltIn::CullPrimitiveEXT))
        );
        assert_eq!(
            sv(Stage::Mesh, true, K::PrimitiveID),
            Ok(Some(BuiltIn::PrimitiveId))
        );
        assert_eq!(
            sv(Stage::Mesh, true, K::RenderTargetArrayIndex),
            Ok(Some(BuiltIn::Layer))
        );
        assert_eq!(
            sv(Stage::Mesh, true, K::ShadingRate),
            Ok(Some(BuiltIn::PrimitiveShadingRateKHR))
        );
        assert!(sv(Stage::Mesh, true, K::Depth).is_err());
    }
}
