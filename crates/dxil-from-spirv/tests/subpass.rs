//! Subpass inputs (`tests/data/subpass*.frag`, compiled by glslang when the test runs): D3D12
//! has no input attachments, so each is a Texture2D (Texture2DMS) SRV read with TextureLoad at
//! the fragment's pixel, `(int)SV_Position.xy` plus the coordinate operand (glslang writes
//! (0, 0)), at mip 0 or at the given sample. A shader without gl_FragCoord gets the SV_Position
//! input element; one with gl_FragCoord shares it. DXC's validator accepts both.

#[path = "support/glsl.rs"]
mod glsl;
mod support;

use dxil_from_spirv::{DescriptorKind, Options, RegisterClass};

/// The listing line that defines `%name`.
fn def<'a>(text: &'a str, name: &str) -> &'a str {
    let head = format!("{name} = ");
    text.lines()
        .map(str::trim)
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("{name} is not defined:\n{text}"))
}

/// The arguments of a `dx.op` call line, as written.
fn args(line: &str) -> Vec<&str> {
    let inner = line.split_once('(').unwrap().1;
    let inner = inner.split_once(')').unwrap().0;
    inner.split(", ").collect()
}

/// Checks every TextureLoad: coordinates from SV_Position (element 0) columns 0 and 1
/// through `fptosi`, no third coordinate or offsets; returns their mip/sample arguments.
fn texture_loads(text: &str) -> Vec<String> {
    let mut mips = Vec::new();
    for l in text
        .lines()
        .filter(|l| l.contains("= call %dx.types.ResRet") && l.contains("@dx.op.textureLoad."))
    {
        let a = args(l);
        assert_eq!(a.len(), 9, "{l}");
        for (col, coord) in a[3..5].iter().enumerate() {
            let name = coord.strip_prefix("i32 ").unwrap();
            let conv = def(text, name);
            let float = conv
                .strip_prefix(&format!("{name} = fptosi float "))
                .and_then(|r| r.strip_suffix(" to i32"))
                .unwrap_or_else(|| panic!("coordinate {col} of `{l}` is `{conv}`"));
            let load = def(text, float);
            assert!(
                load.contains(&format!(
                    "@dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {col}, i32 undef)"
                )),
                "coordinate {col} of `{l}` comes from `{load}`"
            );
        }
        assert_eq!(&a[5..], ["i32 undef"; 4], "{l}");
        mips.push(a[2].to_string());
    }
    mips
}

fn translate(name: &str, test: &str) -> Option<(dxil_from_spirv::Output, String)> {
    let words = glsl::compile(name, test)?;
    let out = dxil_from_spirv::translate(&words, &Options::default()).unwrap();
    let text = support::listing(&out.container);
    // Both attachments are SRVs, placed by the normal (Godot's) arithmetic: register
    // binding · 10⁵ of space 0.
    let placed: Vec<_> = out
        .bindings
        .iter()
        .map(|b| (b.set, b.binding, b.kind, b.class, b.space, b.register))
        .collect();
    let srv = (DescriptorKind::SampledImage, RegisterClass::Srv, 0);
    assert_eq!(
        placed,
        [
            (0, 0, srv.0, srv.1, srv.2, 0),
            (0, 1, srv.0, srv.1, srv.2, 100_000)
        ]
    );
    assert_eq!(text.matches("!\"SV_Position\"").count(), 1, "{text}");
    Some((out, text))
}

#[test]
fn subpass_inputs_without_frag_coord() {
    let Some((out, text)) = translate("subpass.frag", "subpass") else {
        return;
    };
    assert!(
        text.contains("%\"class.Texture2D<vector<float, 4> >\" = type"),
        "{text}"
    );
    assert!(
        text.contains("%\"class.Texture2DMS<vector<int, 4> >\" = type"),
        "{text}"
    );
    // Mip 0 of the plain attachment; sample 2 of the multisampled one.
    assert_eq!(texture_loads(&text), ["i32 0", "i32 2"], "{text}");
    support::dxv("subpass", "subpass", &out.container);
}

#[test]
fn subpass_inputs_with_frag_coord() {
    let Some((out, text)) = translate("subpass_fragcoord.frag", "subpass-fragcoord") else {
        return;
    };
    assert!(
        text.contains("%\"class.Texture2D<vector<float, 4> >\" = type"),
        "{text}"
    );
    assert!(
        text.contains("%\"class.Texture2DMS<vector<unsigned int, 4> >\" = type"),
        "{text}"
    );
    // gl_FragCoord.z reads column 2 of the same element.
    assert!(
        text.contains("@dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 2, i32 undef)"),
        "{text}"
    );
    let mips = texture_loads(&text);
    assert_eq!(mips[0], "i32 0", "{text}");
    // The sample is gl_SampleID.
    let sample = def(&text, mips[1].strip_prefix("i32 ").unwrap());
    assert!(
        sample.contains("@dx.op.sampleIndex.i32(i32 90)"),
        "{sample}"
    );
    assert_eq!(mips.len(), 2);
    support::dxv("subpass", "subpass_fragcoord", &out.container);
}
