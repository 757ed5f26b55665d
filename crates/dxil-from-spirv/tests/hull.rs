//! Tessellation control shaders as hull shaders: the state taken from the other stage,
//! the split into control-point and patch-constant functions, specialization constants used
//! by both functions, and DXC's validator accepting the results.

use dxil_from_spirv::spec::patch;
use dxil_from_spirv::{Options, SpecMode, TessDomain, TessSpacing, Tessellation};

const HULL: &[u8] = include_bytes!("data/spec_hull.spv");
const TESE: &[u8] = include_bytes!("data/tess_quad.spv");

fn words(b: &[u8]) -> Vec<u32> {
    dxil_from_spirv::words_from_bytes(b).unwrap()
}

mod support;
use support::listing;

fn dxv(name: &str, container: &[u8]) {
    support::dxv("hull", name, container);
}

#[test]
fn state_comes_from_the_evaluation_shader() {
    let t = Tessellation::from_spirv(&words(TESE)).unwrap();
    assert_eq!(t.domain, Some(TessDomain::Quads));
    assert_eq!(t.spacing, Some(TessSpacing::FractionalOdd));
    assert_eq!(t.clockwise, Some(true));
    assert!(!t.point_mode);
    // The control shader gives its output patch size.
    let c = Tessellation::from_spirv(&words(HULL)).unwrap();
    assert_eq!(c.output_patch_size, Some(4));
    assert_eq!(c.domain, None);

    let out = dxil_from_spirv::translate_bytes(
        HULL,
        &Options {
            tessellation: t,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(out.profile, "hs_6_0");
    let text = listing(&out.container);
    // Patch-constant function, 4 input (GLSL's gl_in[] is sized gl_MaxPatchVertices: the
    // output count) and 4 output control points, quad domain, fractional odd, triangle_cw.
    assert!(
        text.contains("@patch_constant, i32 4, i32 4, i32 3, i32 3, i32 3, float"),
        "{text}"
    );
    assert!(text.contains("define void @patch_constant()"));
    assert!(text.contains("@dx.op.storePatchConstant.f32"));
    assert!(text.contains("@dx.op.outputControlPointID"));
    dxv("quad", &out.container);

    // Without the evaluation shader: triangles, integer spacing, counter-clockwise; the input
    // patch size as given.
    let out = dxil_from_spirv::translate_bytes(
        HULL,
        &Options {
            tessellation: Tessellation {
                input_patch_size: Some(3),
                ..Tessellation::default()
            },
            ..Options::default()
        },
    )
    .unwrap();
    let text = listing(&out.container);
    assert!(
        text.contains("@patch_constant, i32 3, i32 4, i32 2, i32 1, i32 4, float"),
        "{text}"
    );
    dxv("tri", &out.container);
}

#[test]
fn spec_constants_patch_in_both_functions() {
    let options = Options {
        spec_constants: SpecMode::Patchable,
        tessellation: Tessellation::from_spirv(&words(TESE)).unwrap(),
        ..Options::default()
    };
    let out = dxil_from_spirv::translate_bytes(HULL, &options).unwrap();
    let table = &out.spec_constants;
    let mut ids: Vec<u32> = table.constants.iter().map(|c| c.spec_id).collect();
    ids.sort_unstable();
    assert_eq!(ids, [7, 8]);
    for c in &table.constants {
        assert!(c.folded.is_none());
        assert!(!c.bit_offsets.is_empty());
    }
    dxv("spec-original", &out.container);
    let mut patched = out.container.clone();
    patch(
        &mut patched,
        table,
        &[(7, u64::from(16.0f32.to_bits())), (8, 3)],
    )
    .unwrap();
    dxv("spec-patched", &patched);
    // Both functions see the new values: the patched container equals a translation with
    // them (but for the recorded values of the embedded table).
    let direct = dxil_from_spirv::translate_bytes(
        HULL,
        &Options {
            spec_values: vec![(7, u64::from(16.0f32.to_bits())), (8, 3)],
            ..options.clone()
        },
    )
    .unwrap();
    let strip = |c: &[u8]| {
        let parsed = dxil_container::Container::parse(c).unwrap();
        parsed
            .parts()
            .iter()
            .filter(|p| p.fourcc != dxil_container::FourCC::PRIV)
            .map(|p| (p.fourcc, p.data.to_vec()))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&direct.container), strip(&patched));
    let text = listing(&patched);
    assert!(text.matches("sitofp i32 3 to float").count() >= 2, "{text}");
}
