//! Graphics stages: the entry point's interface (signature elements → `Input`/`Output` variables), the
//! execution modes of vertex, pixel and geometry shaders, and the stage operations (`loadInput`, `storeOutput`,
//! `discard`, pull-model evaluation, geometry streams, stage system values).
//!
//! Every signature element becomes one variable, declared up front so that the interface between stages is
//! complete even where the shader never touches an element. An element of `rows × cols` is a vector of `cols`
//! components (a scalar for one column), an array of `rows` of them when it has several rows, and, for geometry
//! shader inputs, an array of that over the primitive's vertices. `loadInput`/`storeOutput` index it by vertex,
//! row (which may be dynamic) and column (constant in DXIL).
//!
//! Component types: 32-bit elements keep their class (float, signed, unsigned; signed integers are declared signed
//! so that vertex formats and render-target formats match). 16-bit elements (min precision or native) are 32-bit in
//! the interface and converted at each access: the interface of every stage translated here agrees, and Vulkan
//! needs `storageInputOutput16` otherwise. 64-bit elements are unsupported.

use dxil_module::{TypeData, TypeId};
use dxil_shader::ops::OpCode;
use dxil_shader::{
    InputPrimitive, InterpolationMode, PrimitiveTopology, SemanticKind, SignatureElement,
};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, GLOp, Op, StorageClass};

use super::{Args, Ctx, Val};
use crate::dxil::Stage;
use crate::error::{Error, Invalid, MetadataError, Unsupported};
use crate::spv::{Id, TypeKey, try_ids, words};

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
    /// `SV_Coverage`: `SampleMask[0]`.
    SampleMask,
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
    /// Geometry shader inputs: indexed by vertex first.
    pub per_vertex: bool,
    pub output: bool,
}

/// The interface of a graphics entry point.
#[derive(Default)]
pub(crate) struct Interface {
    pub inputs: Vec<IoSlot>,
    pub outputs: Vec<IoSlot>,
    /// Every `Input`/`Output` variable (the entry point's interface before SPIR-V 1.4).
    pub vars: Vec<Id>,
    /// Vertices of a geometry shader's input primitive.
    pub gs_vertices: u32,
    /// The depth execution mode a depth output asks for.
    pub depth_mode: Option<ExecutionMode>,
    pub stencil_export: bool,
    /// Built-ins read by stage operations (`SampleId`, `PrimitiveId`, ...): (built-in, variable).
    pub builtins: Vec<(BuiltIn, Id)>,
    /// Several geometry streams are active: vertices go to `OpEmitStreamVertex`.
    pub multi_stream: bool,
}

/// Vertices of a geometry shader input primitive.
pub(crate) fn primitive_vertices(p: InputPrimitive) -> Option<u32> {
    Some(match p {
        InputPrimitive::Point => 1,
        InputPrimitive::Line => 2,
        InputPrimitive::Triangle => 3,
        InputPrimitive::LineWithAdjacency => 4,
        InputPrimitive::TriangleWithAdjacency => 6,
        _ => return None,
    })
}

/// The built-in a system value maps to in `stage` (input or output); `Ok(None)` for a user location; `Err` names
/// what is not supported.
pub(crate) fn system_value(
    stage: Stage,
    output: bool,
    kind: SemanticKind,
) -> Result<Option<BuiltIn>, &'static str> {
    use SemanticKind as K;
    Ok(Some(match (stage, output, kind) {
        (_, _, K::Arbitrary) => return Ok(None),
        // SV_Target is a location (its semantic index).
        (Stage::Pixel, true, K::Target) => return Ok(None),
        (Stage::Vertex, false, K::VertexID) => BuiltIn::VertexIndex,
        (Stage::Vertex, false, K::InstanceID) => BuiltIn::InstanceIndex,
        (Stage::Pixel, false, K::Position) => BuiltIn::FragCoord,
        (_, _, K::Position) => BuiltIn::Position,
        (_, _, K::ClipDistance) => BuiltIn::ClipDistance,
        (_, _, K::CullDistance) => BuiltIn::CullDistance,
        (Stage::Vertex | Stage::Geometry, true, K::RenderTargetArrayIndex)
        | (Stage::Pixel, false, K::RenderTargetArrayIndex) => BuiltIn::Layer,
        (Stage::Vertex | Stage::Geometry, true, K::ViewPortArrayIndex)
        | (Stage::Pixel, false, K::ViewPortArrayIndex) => BuiltIn::ViewportIndex,
        (Stage::Geometry, true, K::PrimitiveID) | (Stage::Pixel, false, K::PrimitiveID) => {
            BuiltIn::PrimitiveId
        }
        (Stage::Pixel, false, K::IsFrontFace) => BuiltIn::FrontFacing,
        (Stage::Pixel, false, K::SampleIndex) => BuiltIn::SampleId,
        (Stage::Pixel, _, K::Coverage) => BuiltIn::SampleMask,
        (Stage::Pixel, true, K::Depth | K::DepthLessEqual | K::DepthGreaterEqual) => {
            BuiltIn::FragDepth
        }
        (Stage::Pixel, true, K::StencilRef) => BuiltIn::FragStencilRefEXT,
        (Stage::Pixel, false, K::InnerCoverage) => BuiltIn::FullyCoveredEXT,
        (Stage::Geometry, false, K::GSInstanceID) => BuiltIn::InvocationId,
        (_, _, K::ViewID) => BuiltIn::ViewIndex,
        // The perspective-correct built-in; `declare_elements` picks the other for `noperspective`.
        (Stage::Pixel, false, K::Barycentrics) => BuiltIn::BaryCoordKHR,
        // D3D12_SHADING_RATE is (log2 width << 2) | log2 height, which is Vulkan's encoding too.
        (Stage::Pixel, false, K::ShadingRate) => BuiltIn::ShadingRateKHR,
        (Stage::Vertex | Stage::Geometry, true, K::ShadingRate) => BuiltIn::PrimitiveShadingRateKHR,
        (_, _, K::CullPrimitive) => return Err("SV_CullPrimitive (mesh shaders)"),
        (Stage::Geometry, false, K::RenderTargetArrayIndex | K::ViewPortArrayIndex) => {
            return Err("Vulkan geometry shaders cannot read Layer or ViewportIndex");
        }
        _ => return Err("this system value in this stage"),
    }))
}

/// The interpolation decorations of a pixel shader input.
pub(crate) fn interpolation(mode: InterpolationMode) -> &'static [Decoration] {
    use InterpolationMode as I;
    match mode {
        I::Constant => &[Decoration::Flat],
        I::LinearCentroid => &[Decoration::Centroid],
        I::LinearNoperspective => &[Decoration::NoPerspective],
        I::LinearNoperspectiveCentroid => &[Decoration::NoPerspective, Decoration::Centroid],
        I::LinearSample => &[Decoration::Sample],
        I::LinearNoperspectiveSample => &[Decoration::NoPerspective, Decoration::Sample],
        _ => &[],
    }
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
    /// Declares the interface variables of a vertex, pixel or geometry entry point.
    pub(super) fn declare_interface(&mut self) -> Result<(), Error> {
        let stage = self.entry.stage;
        if stage == Stage::Geometry {
            let gs = self.entry.gs_state.ok_or_else(|| {
                MetadataError::signature("geometry shader without its state (tag 1)")
            })?;
            self.io.gs_vertices = primitive_vertices(gs.input_primitive).ok_or_else(|| {
                MetadataError::signature(format!(
                    "geometry shader input primitive {:?} is unsupported (control-point patches)",
                    gs.input_primitive
                ))
            })?;
            self.io.multi_stream = gs.active_stream_mask & !1 != 0;
            self.b.capability(Capability::Geometry);
            if self.io.multi_stream {
                self.b.capability(Capability::GeometryStreams);
            }
        }
        let inputs = std::mem::take(&mut self.entry.inputs);
        let outputs = std::mem::take(&mut self.entry.outputs);
        let r = self
            .declare_elements(&inputs, false)
            .and_then(|()| self.declare_elements(&outputs, true));
        self.entry.inputs = inputs;
        self.entry.outputs = outputs;
        r
    }

    fn declare_elements(&mut self, elems: &[SignatureElement], output: bool) -> Result<(), Error> {
        let stage = self.entry.stage;
        let sc = if output {
            StorageClass::Output
        } else {
            StorageClass::Input
        };
        let per_vertex = stage == Stage::Geometry && !output;
        let dir = if output { "output" } else { "input" };
        // Signature elements are not instructions: the location names the entry function only.
        let entry_name = self.entry.name.clone();
        let unsupported = |what: String| Error::Unsupported {
            what: Unsupported::signature(what),
            at: crate::error::Location {
                function: entry_name.clone(),
                block: 0,
                inst: 0,
            },
        };
        // Clip and cull distances: one array each, elements in semantic-index order.
        let mut distance_len = [0u32; 2];
        let mut distance_offset = vec![0u32; elems.len()];
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
                return Err(unsupported(format!(
                    "{} {dir} `{}` of a non-float type",
                    stage.name(),
                    e.name
                )));
            }
            distance_offset[i] = distance_len[k];
            distance_len[k] += e.rows.max(1) * u32::from(e.cols.max(1));
        }
        if distance_len.iter().sum::<u32>() > 8 {
            return Err(unsupported(format!(
                "{} clip and cull distances in the {} {dir}s (Vulkan guarantees 8)",
                distance_len.iter().sum::<u32>(),
                stage.name()
            )));
        }
        let mut distance_var: [Option<Id>; 2] = [None; 2];
        // Geometry streams other than 0 are not rasterized: their elements are plain locations after those of
        // the streams before them (each stream numbers its registers from 0).
        let stream_of = |e: &SignatureElement| {
            if stage == Stage::Geometry && output {
                e.output_stream.unwrap_or(0).min(3) as usize
            } else {
                0
            }
        };
        let mut stream_base = [0u32; 4];
        for e in elems {
            let s = stream_of(e);
            if s + 1 < 4 && e.start_row >= 0 {
                let end = e.start_row as u32 + e.rows.max(1);
                stream_base[s + 1] = stream_base[s + 1].max(end);
            }
        }
        for s in 1..4 {
            stream_base[s] += stream_base[s - 1];
        }
        for (i, e) in elems.iter().enumerate() {
            if stage == Stage::Geometry
                && !output
                && matches!(
                    e.semantic_kind,
                    SemanticKind::PrimitiveID | SemanticKind::GSInstanceID
                )
            {
                // Read through `PrimitiveID()` / `GSInstanceID()`, not `loadInput`.
                continue;
            }
            let stream = stream_of(e);
            let bi = if stream > 0 {
                Ok(None)
            } else {
                system_value(stage, output, e.semantic_kind)
            };
            let bi = bi.map_err(|why| {
                unsupported(format!(
                    "system value `{}` ({why}) in the {} shader {dir}s",
                    e.name,
                    stage.name()
                ))
            })?;
            let class = class_of(e).map_err(unsupported)?;
            let rows = e.rows.max(1);
            let cols = u32::from(e.cols.max(1));
            if rows > 4096 || cols > 4 {
                return Err(MetadataError::signature(format!(
                    "signature element {} `{}`: {rows} rows of {cols} columns",
                    e.id, e.name
                ))
                .into());
            }
            let mut map = Map::Direct;
            let mut slot_class = class;
            let mut width = cols;
            let var = match bi {
                Some(b @ (BuiltIn::ClipDistance | BuiltIn::CullDistance)) => {
                    let k = usize::from(b == BuiltIn::CullDistance);
                    map = Map::Distance(distance_offset[i]);
                    width = 1;
                    match distance_var[k] {
                        Some(v) => v,
                        None => {
                            let f = self.b.f32();
                            let mut t = self.b.ty(TypeKey::Array(f, distance_len[k]));
                            if per_vertex {
                                t = self.b.ty(TypeKey::Array(t, self.io.gs_vertices));
                            }
                            let cap = if k == 0 {
                                Capability::ClipDistance
                            } else {
                                Capability::CullDistance
                            };
                            self.b.capability(cap);
                            let v = self.io_var(sc, t, Some(b));
                            distance_var[k] = Some(v);
                            v
                        }
                    }
                }
                Some(BuiltIn::SampleMask) => {
                    map = Map::SampleMask;
                    width = 1;
                    slot_class = Class::UInt;
                    let u = self.b.u32();
                    let t = self.b.ty(TypeKey::Array(u, 1));
                    let v = self.io_var(sc, t, Some(BuiltIn::SampleMask));
                    if !output {
                        self.io.builtins.push((BuiltIn::SampleMask, v));
                    }
                    v
                }
                Some(b) => {
                    if rows > 1 {
                        return Err(unsupported(format!(
                            "system value `{}` of {rows} rows in the {} shader {dir}s",
                            e.name,
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
                    let (t, c, w) = self.builtin_type(b);
                    slot_class = c;
                    width = w;
                    let t = if per_vertex {
                        self.b.ty(TypeKey::Array(t, self.io.gs_vertices))
                    } else {
                        t
                    };
                    let var = self.io_var(sc, t, Some(b));
                    self.builtin_caps(b)?;
                    if !output && !per_vertex {
                        // Stage operations reading the same built-in share the variable.
                        self.io.builtins.push((b, var));
                    }
                    match b {
                        BuiltIn::FragCoord => map = Map::FragCoord,
                        BuiltIn::VertexIndex | BuiltIn::InstanceIndex => {
                            let base = if b == BuiltIn::VertexIndex {
                                BuiltIn::BaseVertex
                            } else {
                                BuiltIn::BaseInstance
                            };
                            let bv = self.stage_builtin(base)?;
                            map = Map::MinusBase(bv);
                        }
                        BuiltIn::FragDepth => {
                            self.io.depth_mode = Some(match e.semantic_kind {
                                SemanticKind::DepthLessEqual => ExecutionMode::DepthLess,
                                SemanticKind::DepthGreaterEqual => ExecutionMode::DepthGreater,
                                _ => ExecutionMode::DepthReplacing,
                            });
                        }
                        _ => {}
                    }
                    var
                }
                None => {
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
                    let mut t = if cols > 1 {
                        self.b.vec(scalar, cols)
                    } else {
                        scalar
                    };
                    if rows > 1 {
                        t = self.b.ty(TypeKey::Array(t, rows));
                    }
                    if per_vertex {
                        t = self.b.ty(TypeKey::Array(t, self.io.gs_vertices));
                    }
                    let var = self.io_var(sc, t, None);
                    // SV_Target n goes to attachment n, its semantic index (= its row).
                    let location = if e.semantic_kind == SemanticKind::Target {
                        e.semantic_indices
                            .first()
                            .copied()
                            .unwrap_or(e.start_row as u32)
                    } else {
                        e.start_row as u32 + stream_base[stream]
                    };
                    self.b.decorate(var, Decoration::Location, &[location]);
                    if e.start_col > 0 {
                        self.b
                            .decorate(var, Decoration::Component, &[e.start_col as u32]);
                    }
                    if stage == Stage::Pixel && !output {
                        let decos = if class == Class::Float {
                            interpolation(e.interpolation_mode)
                        } else {
                            // Vulkan requires integer fragment inputs to be flat (D3D requires
                            // `nointerpolation` on them too).
                            &[Decoration::Flat]
                        };
                        for &d in decos {
                            if d == Decoration::Sample {
                                self.b.capability(Capability::SampleRateShading);
                            }
                            self.b.decorate(var, d, &[]);
                        }
                    }
                    if stage == Stage::Geometry
                        && output
                        && self.io.multi_stream
                        && let Some(s) = e.output_stream
                    {
                        self.b.decorate(var, Decoration::Stream, &[s]);
                    }
                    var
                }
            };
            if stage == Stage::Pixel
                && !output
                && matches!(
                    bi,
                    Some(
                        BuiltIn::PrimitiveId
                            | BuiltIn::SampleId
                            | BuiltIn::Layer
                            | BuiltIn::ViewportIndex
                            | BuiltIn::ViewIndex
                            | BuiltIn::ShadingRateKHR
                    )
                )
            {
                self.b.decorate(var, Decoration::Flat, &[]);
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
            if output {
                self.io.outputs.push(slot);
            } else {
                self.io.inputs.push(slot);
            }
        }
        Ok(())
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
            BuiltIn::FrontFacing | BuiltIn::FullyCoveredEXT => (self.b.bool(), Class::Bool, 1),
            BuiltIn::FragStencilRefEXT => (self.b.ty(TypeKey::SInt(32)), Class::SInt, 1),
            _ => (self.b.u32(), Class::UInt, 1),
        }
    }

    /// Capabilities and extensions a built-in needs in this stage.
    fn builtin_caps(&mut self, b: BuiltIn) -> Result<(), Error> {
        let stage = self.entry.stage;
        match b {
            BuiltIn::Layer | BuiltIn::ViewportIndex if stage == Stage::Vertex => {
                self.b.capability(Capability::ShaderViewportIndexLayerEXT);
                self.b.extension("SPV_EXT_shader_viewport_index_layer");
            }
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
    fn stage_builtin(&mut self, b: BuiltIn) -> Result<Id, Error> {
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

    /// A pointer to component (`row`, `col`) of a slot's variable, for `vertex` of a geometry shader input; and
    /// the SPIR-V type of the component.
    fn slot_ptr(
        &mut self,
        s: &IoSlot,
        var: Id,
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
        let mut idx: Vec<Id> = Vec::with_capacity(3);
        if s.per_vertex {
            let v = vertex.ok_or_else(|| {
                self.invalid(Invalid::range("geometry shader input without a vertex"))
            })?;
            idx.push(v);
        }
        let scalar = match s.class {
            Class::Float => self.b.f32(),
            Class::SInt => self.b.ty(TypeKey::SInt(32)),
            Class::UInt => self.b.u32(),
            Class::Bool => self.b.bool(),
        };
        match s.map {
            Map::Distance(offset) => {
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
                idx.push(i);
            }
            Map::SampleMask => idx.push(self.b.const_u32(0)),
            Map::Direct | Map::FragCoord | Map::MinusBase(_) => {
                if s.rows > 1 {
                    idx.push(row);
                }
                if s.width > 1 {
                    idx.push(self.b.const_u32(col));
                }
            }
        }
        let pty = self.b.ptr(sc, scalar);
        let p = if idx.is_empty() {
            var
        } else {
            self.chain(pty, var, &idx)
        };
        Ok((p, scalar))
    }

    /// Converts a component read from the interface to the LLVM type `ty`.
    fn read_converted(&mut self, x: Id, class: Class, ty: TypeId) -> Result<Id, Error> {
        let t = self.ty(ty)?;
        Ok(match (class, self.m.types.data(ty)) {
            (Class::Float, TypeData::Float) => x,
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
        let (row, row_const) = self.row_arg(a, 2)?;
        let col = self.arg_const(a, 3)? as u32;
        let vertex = if s.per_vertex {
            Some(self.arg_id(a, 4)?)
        } else {
            None
        };
        let (p, scalar) = self.slot_ptr(&s, s.var, vertex, row, row_const, col)?;
        let mut x = self.load(scalar, p);
        match s.map {
            Map::FragCoord if col == 3 => {
                let one = self.b.const_f32(1.0);
                x = self.op2(Op::FDiv, scalar, one, x);
            }
            Map::MinusBase(base) => {
                let b = self.load(scalar, base);
                x = self.op2(Op::ISub, scalar, x, b);
            }
            _ => {}
        }
        self.read_converted(x, s.class, ty).map(Val::Id)
    }

    /// `storeOutput(outputSigId, rowIndex, colIndex, value)`.
    pub(super) fn store_output(&mut self, a: Args<'_>) -> Result<Val, Error> {
        let id = self.arg_const(a, 1)? as u32;
        let s = self.slot(true, id)?;
        let (row, row_const) = self.row_arg(a, 2)?;
        let col = self.arg_const(a, 3)? as u32;
        if self.arg_undef(a, 4) {
            return Ok(Val::None);
        }
        let vt = self.arg_ty(a, 4)?;
        let x = self.arg_id(a, 4)?;
        let (p, _) = self.slot_ptr(&s, s.var, None, row, row_const, col)?;
        let v = self.write_converted(x, vt, s.class)?;
        self.store(p, v);
        Ok(Val::None)
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

    /// `EvalSnapped` (87), `EvalSampleIndex` (88), `EvalCentroid` (89): the input interpolated elsewhere.
    pub(super) fn eval_input(&mut self, op: OpCode, ty: TypeId, a: Args<'_>) -> Result<Val, Error> {
        let id = self.arg_const(a, 1)? as u32;
        let s = self.slot(false, id)?;
        if s.class != Class::Float || s.map != Map::Direct {
            return Err(self.unsupported(Unsupported::signature(
                "pull-model evaluation of a non-float or system-value input",
            )));
        }
        let (row, row_const) = self.row_arg(a, 2)?;
        let col = self.arg_const(a, 3)? as u32;
        let (p, scalar) = self.slot_ptr(&s, s.var, None, row, row_const, col)?;
        self.b.capability(Capability::InterpolationFunction);
        let x = match op {
            OpCode::EvalCentroid => self.glsl(scalar, GLOp::InterpolateAtCentroid, &[p]),
            OpCode::EvalSampleIndex => {
                let i = self.arg_id(a, 4)?;
                self.glsl(scalar, GLOp::InterpolateAtSample, &[p, i])
            }
            _ => {
                // Offsets in 1/16 pixel: signed 4-bit values (D3D's snapped grid).
                let f = self.b.f32();
                let v2 = self.b.vec(f, 2);
                let parts = try_ids::<2, Error>(|k| {
                    let o = self.arg_id(a, 4 + k)?;
                    let u = self.b.u32();
                    let z = self.b.const_u32(0);
                    let four = self.b.const_u32(4);
                    let e = self.op3(Op::BitFieldSExtract, u, o, z, four);
                    let sf = self.b.ty(TypeKey::SInt(32));
                    let e = self.op1(Op::Bitcast, sf, e);
                    let fl = self.op1(Op::ConvertSToF, f, e);
                    let sixteenth = self.b.const_f32(1.0 / 16.0);
                    Ok(self.op2(Op::FMul, f, fl, sixteenth))
                })?;
                let off = self.op2(Op::CompositeConstruct, v2, parts[0], parts[1]);
                self.glsl(scalar, GLOp::InterpolateAtOffset, &[p, off])
            }
        };
        self.read_converted(x, Class::Float, ty).map(Val::Id)
    }

    /// Stage operations other than input and output: `Some` when `op` is one.
    pub(super) fn stage_op(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Option<Result<Val, Error>> {
        let stage = self.entry.stage;
        let r = match op {
            OpCode::LoadInput => self.load_input(ty, a),
            OpCode::StoreOutput => self.store_output(a),
            OpCode::EvalSnapped | OpCode::EvalSampleIndex | OpCode::EvalCentroid
                if stage == Stage::Pixel =>
            {
                self.eval_input(op, ty, a)
            }
            OpCode::SampleIndex if stage == Stage::Pixel => {
                self.load_stage_builtin(BuiltIn::SampleId, ty)
            }
            OpCode::Coverage if stage == Stage::Pixel => self.coverage_in(),
            OpCode::InnerCoverage if stage == Stage::Pixel => {
                self.stage_builtin(BuiltIn::FullyCoveredEXT).and_then(|v| {
                    let bt = self.b.bool();
                    let x = self.load(bt, v);
                    self.read_converted(x, Class::Bool, ty).map(|x| {
                        // InnerCoverage is 1 when covered, not all ones.
                        let u = self.b.u32();
                        let one = self.b.const_u32(1);
                        Val::Id(self.op2(Op::BitwiseAnd, u, x, one))
                    })
                })
            }
            OpCode::EmitStream | OpCode::CutStream | OpCode::EmitThenCutStream
                if stage == Stage::Geometry =>
            {
                self.gs_stream(op, a)
            }
            OpCode::GSInstanceID if stage == Stage::Geometry => {
                self.load_stage_builtin(BuiltIn::InvocationId, ty)
            }
            OpCode::PrimitiveID if stage == Stage::Geometry => {
                self.load_stage_builtin(BuiltIn::PrimitiveId, ty)
            }
            // SM 6.8 `StartVertexLocation()` / `StartInstanceLocation()`: the draw's base vertex / instance.
            OpCode::StartVertexLocation if stage == Stage::Vertex => {
                self.load_stage_builtin(BuiltIn::BaseVertex, ty)
            }
            OpCode::StartInstanceLocation if stage == Stage::Vertex => {
                self.load_stage_builtin(BuiltIn::BaseInstance, ty)
            }
            OpCode::ViewID if matches!(stage, Stage::Vertex | Stage::Pixel | Stage::Geometry) => {
                self.load_stage_builtin(BuiltIn::ViewIndex, ty)
            }
            OpCode::IsHelperLane if stage == Stage::Pixel => {
                // After a demote the invocation is a helper: only the instruction sees it (the built-in is
                // fixed at the start).
                self.demote_caps();
                let bt = self.b.bool();
                let id = self.b.id();
                self.emit(Op::IsHelperInvocationEXT, &words![bt, id]);
                Ok(Val::Id(id))
            }
            OpCode::RenderTargetGetSamplePosition | OpCode::RenderTargetGetSampleCount => Err(self
                .unsupported(Unsupported::OperationNeeds {
                    op,
                    why: "Vulkan has no render-target sample query in shaders",
                })),
            OpCode::AttributeAtVertex => Err(self.unsupported(Unsupported::OperationNeeds {
                op: OpCode::AttributeAtVertex,
                why: "needs fragment shader barycentrics, per-vertex inputs",
            })),
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

    /// `Coverage()`: the input sample mask.
    fn coverage_in(&mut self) -> Result<Val, Error> {
        let var = match self
            .io
            .builtins
            .iter()
            .find(|(b, _)| *b == BuiltIn::SampleMask)
        {
            Some(&(_, v)) => v,
            None => {
                let u = self.b.u32();
                let t = self.b.ty(TypeKey::Array(u, 1));
                let v = self.io_var(StorageClass::Input, t, Some(BuiltIn::SampleMask));
                self.b.decorate(v, Decoration::Flat, &[]);
                self.io.builtins.push((BuiltIn::SampleMask, v));
                v
            }
        };
        let u = self.b.u32();
        let pty = self.b.ptr(StorageClass::Input, u);
        let z = self.b.const_u32(0);
        let p = self.chain(pty, var, &[z]);
        Ok(Val::Id(self.load(u, p)))
    }

    /// `EmitStream` (97), `CutStream` (98), `EmitThenCutStream` (99).
    fn gs_stream(&mut self, op: OpCode, a: Args<'_>) -> Result<Val, Error> {
        let stream = self.arg_const(a, 1)?;
        if !(0..4).contains(&stream) {
            return Err(self.invalid(Invalid::range(format!("geometry stream {stream}"))));
        }
        let multi = self.io.multi_stream;
        let s = self.b.const_u32(stream as u32);
        if matches!(op, OpCode::EmitStream | OpCode::EmitThenCutStream) {
            if multi {
                self.emit(Op::EmitStreamVertex, &words![s]);
            } else {
                self.emit(Op::EmitVertex, &words![]);
            }
        }
        if matches!(op, OpCode::CutStream | OpCode::EmitThenCutStream) {
            if multi {
                self.emit(Op::EndStreamPrimitive, &words![s]);
            } else {
                self.emit(Op::EndPrimitive, &words![]);
            }
        }
        Ok(Val::None)
    }

    /// The demote capability: core from SPIR-V 1.6, an extension before.
    pub(super) fn demote_caps(&mut self) {
        self.b.capability(Capability::DemoteToHelperInvocation);
        if self.b.version < 0x0001_0600 {
            self.b.extension("SPV_EXT_demote_to_helper_invocation");
        }
    }

    /// `discard`: D3D's discarded pixel goes on as a helper (its quad's derivatives stay defined), which is
    /// `OpDemoteToHelperInvocation`, not `OpKill`.
    pub(super) fn demote_invocation(&mut self) {
        self.demote_caps();
        self.emit(Op::DemoteToHelperInvocation, &words![]);
    }

    /// The execution modes of a graphics entry point.
    pub(super) fn stage_modes(&mut self, main: Id) -> Result<(), Error> {
        let mut modes: Vec<Vec<u32>> = Vec::new();
        match self.entry.stage {
            Stage::Pixel => {
                modes.push(vec![ExecutionMode::OriginUpperLeft as u32]);
                if let Some(m) = self.io.depth_mode {
                    modes.push(vec![ExecutionMode::DepthReplacing as u32]);
                    if m != ExecutionMode::DepthReplacing {
                        modes.push(vec![m as u32]);
                    }
                }
                if self.io.stencil_export {
                    modes.push(vec![ExecutionMode::StencilRefReplacingEXT as u32]);
                }
                if self.entry.flags & dxil_shader::ShaderFlags::FORCE_EARLY_DEPTH_STENCIL.bits()
                    != 0
                {
                    modes.push(vec![ExecutionMode::EarlyFragmentTests as u32]);
                }
            }
            Stage::Geometry => {
                let gs = self
                    .entry
                    .gs_state
                    .ok_or_else(|| MetadataError::signature("geometry shader without its state"))?;
                let input = match gs.input_primitive {
                    InputPrimitive::Point => ExecutionMode::InputPoints,
                    InputPrimitive::Line => ExecutionMode::InputLines,
                    InputPrimitive::Triangle => ExecutionMode::Triangles,
                    InputPrimitive::LineWithAdjacency => ExecutionMode::InputLinesAdjacency,
                    _ => ExecutionMode::InputTrianglesAdjacency,
                };
                // D3D's output streams are strips (a list is a strip cut after every primitive).
                let out = match gs.output_topology {
                    PrimitiveTopology::LineList | PrimitiveTopology::LineStrip => {
                        ExecutionMode::OutputLineStrip
                    }
                    PrimitiveTopology::TriangleList | PrimitiveTopology::TriangleStrip => {
                        ExecutionMode::OutputTriangleStrip
                    }
                    _ => ExecutionMode::OutputPoints,
                };
                modes.push(vec![input as u32]);
                modes.push(vec![out as u32]);
                modes.push(vec![
                    ExecutionMode::OutputVertices as u32,
                    gs.max_vertex_count.max(1),
                ]);
                modes.push(vec![
                    ExecutionMode::Invocations as u32,
                    gs.instance_count.max(1),
                ]);
            }
            _ => {}
        }
        for m in modes {
            let mut args = vec![main.word()];
            args.extend_from_slice(&m);
            crate::spv::emit(&mut self.b.exec_modes, Op::ExecutionMode, &args);
        }
        Ok(())
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
        // Inputs that are outputs elsewhere, and stages' own values in the wrong stage, are errors.
        assert!(sv(Stage::Geometry, false, K::RenderTargetArrayIndex).is_err());
        assert!(sv(Stage::Vertex, false, K::Depth).is_err());
        assert!(sv(Stage::Pixel, false, K::Target).is_err());
        assert!(sv(Stage::Vertex, true, K::CullPrimitive).is_err());
    }

    #[test]
    fn interpolation_modes_become_decorations() {
        use InterpolationMode as I;
        assert_eq!(interpolation(I::Linear), &[] as &[Decoration]);
        assert_eq!(interpolation(I::Undefined), &[] as &[Decoration]);
        assert_eq!(interpolation(I::Constant), &[Decoration::Flat]);
        assert_eq!(interpolation(I::LinearCentroid), &[Decoration::Centroid]);
        assert_eq!(
            interpolation(I::LinearNoperspective),
            &[Decoration::NoPerspective]
        );
        assert_eq!(
            interpolation(I::LinearNoperspectiveCentroid),
            &[Decoration::NoPerspective, Decoration::Centroid]
        );
        assert_eq!(interpolation(I::LinearSample), &[Decoration::Sample]);
        assert_eq!(
            interpolation(I::LinearNoperspectiveSample),
            &[Decoration::NoPerspective, Decoration::Sample]
        );
    }

    #[test]
    fn geometry_input_primitives_have_their_vertex_counts() {
        assert_eq!(primitive_vertices(InputPrimitive::Point), Some(1));
        assert_eq!(primitive_vertices(InputPrimitive::Line), Some(2));
        assert_eq!(primitive_vertices(InputPrimitive::Triangle), Some(3));
        assert_eq!(
            primitive_vertices(InputPrimitive::LineWithAdjacency),
            Some(4)
        );
        assert_eq!(
            primitive_vertices(InputPrimitive::TriangleWithAdjacency),
            Some(6)
        );
        assert_eq!(primitive_vertices(InputPrimitive::Undefined), None);
        // Control-point patches (8..=39) are hull-shader inputs, not geometry primitives here.
        assert_eq!(primitive_vertices(InputPrimitive::from_raw(10)), None);
    }
}
