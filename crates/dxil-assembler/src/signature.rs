//! `ISG1`, `OSG1`, `PSG1`: the program signatures, from the entry point's signature metadata,
//! with DXC's rules (`DxilProgramSignatureWriter`):
//!
//! - one 32-byte row per semantic index; elements whose semantic has no place in this
//!   signature (interpretation `NA` or `NotInSig` at the signature point) get no row, but their
//!   names are still laid out;
//! - rows sorted by (stream, register, name offset);
//! - system values get the `D3D_NAME` of their semantic kind (tessellation factors by domain);
//! - component types in the signature's numbering, `i1` as `Unknown` before validator 1.5;
//! - before 1.5 the read/write mask is `~Mask` for outputs and 0 for inputs; from 1.5 on it comes
//!   from the usage mask, shifted to the start column;
//! - the minimum precision is set only for modules that use min precision (not native 16-bit
//!   types);
//! - name sharing and the padding of the part change at validator 1.7 (done by
//!   [`SignatureBuilder`]).

use dxil_container::parts::signature::SignatureElement as Row;
use dxil_container::{
    ComponentType as SigComponentType, FourCC, MinPrecision, SignatureBuilder, SystemValue,
    ValidatorVersion,
};
use dxil_shader::{ComponentType, SemanticKind, ShaderKind, SignatureElement, TessellatorDomain};

use crate::error::Result;

/// Which of an entry point's three signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignatureKind {
    /// `ISG1`.
    Input,
    /// `OSG1`.
    Output,
    /// `PSG1`: patch constants (hull, domain) or primitives (mesh).
    PatchConstOrPrim,
}

/// DXC's signature points, the columns of its semantic interpretation table. `PcIn` and `HsIn`
/// (a hull shader's own inputs) hold no signature of their own; they are kept as columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)]
enum SigPoint {
    VsIn,
    VsOut,
    PcIn,
    HsIn,
    HsCpIn,
    HsCpOut,
    PcOut,
    DsIn,
    DsCpIn,
    DsOut,
    GsVIn,
    GsIn,
    GsOut,
    PsIn,
    PsOut,
    CsIn,
    MsIn,
    MsOut,
    MsPOut,
    AsIn,
}

/// Per semantic kind (rows, in `DXIL::SemanticKind` order), per signature point (columns, in
/// [`SigPoint`] order): whether an element with that semantic has a row in the signature part.
/// `.` marks the interpretations `NA` and `NotInSig`; `y` every other one (arbitrary, system
/// value, system-generated value, clip/cull, target, tessellation factor, not packed, shadow).
/// Transcribed from DXC's interpretation table at its newest shader model, which is what a
/// signature loaded from metadata uses.
const IN_SIGNATURE: [&[u8; 20]; 33] = [
    b"yy..yyyyyyy.yy...yy.", // Arbitrary
    b"y...................", // VertexID
    b"yy..yy..yyy.yy......", // InstanceID
    b"yy..yyyyyyy.yy...y..", // Position
    b"yy..yyyyyyy.yy....y.", // RenderTargetArrayIndex
    b"yy..yyyyyyy.yy....y.", // ViewPortArrayIndex
    b"yy..yyyyyyy.yy...y..", // ClipDistance
    b"yy..yyyyyyy.yy...y..", // CullDistance
    b"....................", // OutputControlPointID
    b"....................", // DomainLocation
    b"...........yyy....y.", // PrimitiveID
    b"....................", // GSInstanceID
    b".............y......", // SampleIndex
    b"............yy......", // IsFrontFace
    b"..............y.....", // Coverage
    b"....................", // InnerCoverage
    b"..............y.....", // Target
    b"..............y.....", // Depth
    b"..............y.....", // DepthLessEqual
    b"..............y.....", // DepthGreaterEqual
    b"..............y.....", // StencilRef
    b"....................", // DispatchThreadID
    b"....................", // GroupID
    b"....................", // GroupIndex
    b"....................", // GroupThreadID
    b"......yy............", // TessFactor
    b"......yy............", // InsideTessFactor
    b"....................", // ViewID
    b".............y......", // Barycentrics
    b".y..yy..yyy.yy....y.", // ShadingRate
    b"..................y.", // CullPrimitive
    b"....................", // StartVertexLocation
    b"....................", // StartInstanceLocation
];

fn sig_point(stage: ShaderKind, kind: SignatureKind) -> Option<SigPoint> {
    use SignatureKind::*;
    Some(match (stage, kind) {
        (ShaderKind::Vertex, Input) => SigPoint::VsIn,
        (ShaderKind::Vertex, Output) => SigPoint::VsOut,
        (ShaderKind::Hull, Input) => SigPoint::HsCpIn,
        (ShaderKind::Hull, Output) => SigPoint::HsCpOut,
        (ShaderKind::Hull, PatchConstOrPrim) => SigPoint::PcOut,
        (ShaderKind::Domain, Input) => SigPoint::DsCpIn,
        (ShaderKind::Domain, Output) => SigPoint::DsOut,
        (ShaderKind::Domain, PatchConstOrPrim) => SigPoint::DsIn,
        (ShaderKind::Geometry, Input) => SigPoint::GsVIn,
        (ShaderKind::Geometry, Output) => SigPoint::GsOut,
        (ShaderKind::Pixel, Input) => SigPoint::PsIn,
        (ShaderKind::Pixel, Output) => SigPoint::PsOut,
        (ShaderKind::Compute, Input) => SigPoint::CsIn,
        (ShaderKind::Mesh, Input) => SigPoint::MsIn,
        (ShaderKind::Mesh, Output) => SigPoint::MsOut,
        (ShaderKind::Mesh, PatchConstOrPrim) => SigPoint::MsPOut,
        (ShaderKind::Amplification, Input) => SigPoint::AsIn,
        _ => return None,
    })
}

/// Whether an element of semantic `kind` at `point` gets a row. A geometry shader's primitive
/// ID is the one input read through its own operation; DXC files it under the `GSIn` point.
fn in_signature(point: SigPoint, kind: SemanticKind) -> bool {
    let point = if point == SigPoint::GsVIn && kind == SemanticKind::PrimitiveID {
        SigPoint::GsIn
    } else {
        point
    };
    IN_SIGNATURE
        .get(kind.raw() as usize)
        .and_then(|row| row.get(point as usize))
        .is_some_and(|&c| c == b'y')
}

/// `SemanticKindToSystemValue`: the `D3D_NAME` of a semantic (first row of a multi-row element).
fn system_value(kind: SemanticKind, domain: TessellatorDomain) -> SystemValue {
    use SemanticKind as K;
    match kind {
        K::Arbitrary => SystemValue::Undefined,
        K::VertexID => SystemValue::VertexID,
        K::InstanceID => SystemValue::InstanceID,
        K::Position => SystemValue::Position,
        K::Coverage => SystemValue::Coverage,
        K::InnerCoverage => SystemValue::InnerCoverage,
        K::PrimitiveID => SystemValue::PrimitiveID,
        K::SampleIndex => SystemValue::SampleIndex,
        K::IsFrontFace => SystemValue::IsFrontFace,
        K::RenderTargetArrayIndex => SystemValue::RenderTargetArrayIndex,
        K::ViewPortArrayIndex => SystemValue::ViewPortArrayIndex,
        K::ClipDistance => SystemValue::ClipDistance,
        K::CullDistance => SystemValue::CullDistance,
        K::Barycentrics => SystemValue::Barycentrics,
        K::ShadingRate => SystemValue::ShadingRate,
        K::CullPrimitive => SystemValue::CullPrimitive,
        K::TessFactor => match domain {
            // The first row; later rows become the detail factor.
            TessellatorDomain::IsoLine => SystemValue::FinalLineDensityTessfactor,
            TessellatorDomain::Tri => SystemValue::FinalTriEdgeTessfactor,
            TessellatorDomain::Quad => SystemValue::FinalQuadEdgeTessfactor,
            _ => SystemValue::Undefined,
        },
        K::InsideTessFactor => match domain {
            TessellatorDomain::Tri => SystemValue::FinalTriInsideTessfactor,
            TessellatorDomain::Quad => SystemValue::FinalQuadInsideTessfactor,
            _ => SystemValue::Undefined,
        },
        K::Target => SystemValue::Target,
        K::Depth => SystemValue::Depth,
        K::DepthLessEqual => SystemValue::DepthLE,
        K::DepthGreaterEqual => SystemValue::DepthGE,
        // DXC's fallback: every other kind (only StencilRef is valid here) is a stencil ref.
        _ => SystemValue::StencilRef,
    }
}

/// `CompTypeToSigCompType`: the signature's component type; `i1` is `Unknown` before 1.5.
pub(crate) fn sig_component_type(t: ComponentType, i1_unknown: bool) -> SigComponentType {
    match t {
        ComponentType::I32 => SigComponentType::SInt32,
        ComponentType::I1 if i1_unknown => SigComponentType::Unknown,
        ComponentType::I1 | ComponentType::U32 => SigComponentType::UInt32,
        ComponentType::F32 => SigComponentType::Float32,
        ComponentType::I16 => SigComponentType::SInt16,
        ComponentType::I64 => SigComponentType::SInt64,
        ComponentType::U16 => SigComponentType::UInt16,
        ComponentType::U64 => SigComponentType::UInt64,
        ComponentType::F16 => SigComponentType::Float16,
        ComponentType::F64 => SigComponentType::Float64,
        _ => SigComponentType::Unknown,
    }
}

fn min_precision(t: ComponentType) -> MinPrecision {
    match t {
        ComponentType::I16 => MinPrecision::SInt16,
        ComponentType::U16 => MinPrecision::UInt16,
        ComponentType::F16 => MinPrecision::Float16,
        _ => MinPrecision::Default,
    }
}

/// What the signature writer needs besides the elements.
pub(crate) struct SignatureContext {
    pub stage: ShaderKind,
    /// The tessellator domain of a hull or domain shader (`Undefined` otherwise).
    pub domain: TessellatorDomain,
    pub validator: ValidatorVersion,
    /// The module uses min precision (its shader flags lack `UseNativeLowPrecision`).
    pub use_min_precision: bool,
}

/// Writes one signature part from its metadata elements (in metadata order).
pub(crate) fn write_signature(
    elements: &[SignatureElement],
    kind: SignatureKind,
    cx: &SignatureContext,
) -> Result<Vec<u8>> {
    let part = match kind {
        SignatureKind::Input => FourCC::ISG1,
        SignatureKind::Output => FourCC::OSG1,
        SignatureKind::PatchConstOrPrim => FourCC::PSG1,
    };
    // The patch-constant signature is read by a domain shader and written by a hull shader.
    let is_input = match kind {
        SignatureKind::Input => true,
        SignatureKind::Output => false,
        SignatureKind::PatchConstOrPrim => cx.stage == ShaderKind::Domain,
    };
    let compat_1_4 = !cx.validator.has_usage_masks_and_hash();
    let point = sig_point(cx.stage, kind);
    let mut b = SignatureBuilder::new(cx.validator);
    // Names first, for every element in metadata order: DXC lays them out before the rows.
    let names: Vec<_> = elements
        .iter()
        .map(|e| b.add_name(&e.name, e.is_system_value()))
        .collect();
    for (e, name) in elements.iter().zip(names) {
        if !point.is_some_and(|p| in_signature(p, e.semantic_kind)) {
            continue;
        }
        let allocated = e.is_allocated();
        let start_col = if allocated {
            u32::try_from(e.start_col).unwrap_or(0)
        } else {
            0
        };
        // DXC asserts that columns fit a row; a malformed start column shifts everything out.
        let shift = |v: u32| v.checked_shl(start_col).unwrap_or(0);
        let mask = (shift((1u32 << u32::from(e.cols.min(4))) - 1) & 0xf) as u8;
        let rw_mask = if compat_1_4 {
            if is_input { 0 } else { !mask }
        } else {
            let usage = shift(u32::from(e.usage_mask.unwrap_or(0)));
            if is_input {
                (usage & 0xff) as u8
            } else {
                (!usage & 0xf) as u8
            }
        };
        let mut row = Row {
            stream: e.output_stream.unwrap_or(0),
            name: "",
            name_offset: 0,
            semantic_index: 0,
            system_value: system_value(e.semantic_kind, cx.domain),
            component_type: sig_component_type(e.component_type, compat_1_4),
            // An unallocated element's row is -1, stored as is.
            register: e.start_row as u32,
            mask,
            rw_mask,
            pad: 0,
            min_precision: if cx.use_min_precision {
                min_precision(e.component_type)
            } else {
                MinPrecision::Default
            },
        };
        // Rows per semantic index: 1 in well-formed metadata. DXC divides, so an element with
        // fewer rows than indices (older compilers wrote such mesh outputs) repeats its register.
        let count = e.semantic_indices.len() as u32;
        let rows_each = e.rows.checked_div(count).unwrap_or(1);
        for &index in &e.semantic_indices {
            row.semantic_index = index;
            b.push(name, row);
            if allocated {
                row.register = row.register.wrapping_add(rows_each);
            }
            if row.system_value == SystemValue::FinalLineDensityTessfactor {
                row.system_value = SystemValue::FinalLineDetailTessfactor;
            }
        }
    }
    Ok(b.finish().write(part, cx.validator)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpretation_table_spot_checks() {
        use SemanticKind as K;
        assert!(in_signature(SigPoint::PsOut, K::Depth));
        assert!(in_signature(SigPoint::PsIn, K::SampleIndex));
        assert!(!in_signature(SigPoint::PsIn, K::Coverage));
        assert!(in_signature(SigPoint::PsOut, K::Coverage));
        assert!(!in_signature(SigPoint::VsIn, K::ViewID));
        assert!(in_signature(SigPoint::GsVIn, K::PrimitiveID));
        assert!(!in_signature(SigPoint::DsIn, K::PrimitiveID));
        assert!(in_signature(SigPoint::DsIn, K::TessFactor));
        assert!(in_signature(SigPoint::MsPOut, K::CullPrimitive));
        assert!(!in_signature(SigPoint::CsIn, K::DispatchThreadID));
        assert!(!in_signature(SigPoint::PsIn, K::Other(99)));
    }

    #[test]
    fn isoline_tess_factors_switch_to_detail_after_the_first_row() {
        assert_eq!(
            system_value(SemanticKind::TessFactor, TessellatorDomain::IsoLine),
            SystemValue::FinalLineDensityTessfactor
        );
        assert_eq!(
            system_value(SemanticKind::InsideTessFactor, TessellatorDomain::Quad),
            SystemValue::FinalQuadInsideTessfactor
        );
    }
}
