//! Geometry shaders: input primitives (inputs are arrays over its vertices), output streams (stream 0 rasterized,
//! the others plain locations after it), `EmitStream` / `CutStream`, and the primitive, output and invocation
//! modes.

use dxil_module::TypeId;
use dxil_shader::ops::OpCode;
use dxil_shader::{InputPrimitive, PrimitiveTopology, SemanticKind, SignatureElement};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode};

use crate::dxil::Stage;
use crate::error::{Error, Invalid, MetadataError};
use crate::lower::{Args, Ctx, Val};
use crate::spv::{Id, words};
use spirv::Op;

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

/// Geometry shader system values (see `super::system_value`); `None`: one every stage shares.
pub(super) fn system_value(
    output: bool,
    kind: SemanticKind,
) -> Option<Result<Option<BuiltIn>, &'static str>> {
    use SemanticKind as K;
    Some(Ok(Some(match (output, kind) {
        (true, K::RenderTargetArrayIndex) => BuiltIn::Layer,
        (true, K::ViewPortArrayIndex) => BuiltIn::ViewportIndex,
        (true, K::PrimitiveID) => BuiltIn::PrimitiveId,
        (false, K::GSInstanceID) => BuiltIn::InvocationId,
        (true, K::ShadingRate) => BuiltIn::PrimitiveShadingRateKHR,
        // Vulkan geometry shaders have no Layer / ViewportIndex inputs: the value comes through the element's
        // location, where vertex shaders write it beside the built-in (`Interface::copies`).
        (false, K::RenderTargetArrayIndex | K::ViewPortArrayIndex) => return Some(Ok(None)),
        _ => return None,
    })))
}

/// Inputs read through `PrimitiveID()` / `GSInstanceID()`, not `loadInput`: no variable of their own.
pub(super) fn read_by_operation(kind: SemanticKind) -> bool {
    matches!(kind, SemanticKind::PrimitiveID | SemanticKind::GSInstanceID)
}

/// The output stream of an element (0 outside geometry shader outputs).
pub(super) fn stream_of(stage: Stage, output: bool, e: &SignatureElement) -> usize {
    if stage == Stage::Geometry && output {
        e.output_stream.unwrap_or(0).min(3) as usize
    } else {
        0
    }
}

/// The first location of each output stream. Streams other than 0 are not rasterized: their elements are plain
/// locations after those of the streams before them (each stream numbers its registers from 0).
pub(super) fn stream_bases(stage: Stage, output: bool, elems: &[SignatureElement]) -> [u32; 4] {
    let mut base = [0u32; 4];
    for e in elems {
        let s = stream_of(stage, output, e);
        if s + 1 < 4 && e.start_row >= 0 {
            let end = e.start_row as u32 + e.rows.max(1);
            base[s + 1] = base[s + 1].max(end);
        }
    }
    for s in 1..4 {
        base[s] += base[s - 1];
    }
    base
}

impl<'a> Ctx<'a> {
    /// The input primitive's vertex count and the active streams, before the interface is declared.
    pub(super) fn geometry_prepare(&mut self) -> Result<(), Error> {
        let gs = self
            .entry
            .gs_state
            .ok_or_else(|| MetadataError::signature("geometry shader without its state (tag 1)"))?;
        self.io.input_vertices = primitive_vertices(gs.input_primitive).ok_or_else(|| {
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
        Ok(())
    }

    /// The stream of an output when several are active.
    pub(super) fn geometry_output_decorations(&mut self, var: Id, e: &SignatureElement) {
        if self.io.multi_stream
            && let Some(s) = e.output_stream
        {
            self.b.decorate(var, Decoration::Stream, &[s]);
        }
    }

    /// Geometry shader operations: `Some` when `op` is one.
    pub(super) fn geometry_op(
        &mut self,
        op: OpCode,
        ty: TypeId,
        a: Args<'_>,
    ) -> Option<Result<Val, Error>> {
        Some(match op {
            OpCode::EmitStream | OpCode::CutStream | OpCode::EmitThenCutStream => {
                self.gs_stream(op, a)
            }
            OpCode::GSInstanceID => self.load_stage_builtin(BuiltIn::InvocationId, ty),
            OpCode::PrimitiveID => self.load_stage_builtin(BuiltIn::PrimitiveId, ty),
            _ => return None,
        })
    }

    /// `EmitStream`, `CutStream`, `EmitThenCutStream`.
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

    /// The input primitive, the output topology (a list is the matching strip: D3D output streams are strips),
    /// `OutputVertices` = `maxvertexcount` and `Invocations` = `[instance(n)]`.
    pub(super) fn geometry_modes(&mut self, main: Id) -> Result<(), Error> {
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
        self.exec_mode(main, input, &[]);
        self.exec_mode(main, out, &[]);
        self.exec_mode(
            main,
            ExecutionMode::OutputVertices,
            &[gs.max_vertex_count.max(1)],
        );
        self.exec_mode(
            main,
            ExecutionMode::Invocations,
            &[gs.instance_count.max(1)],
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
