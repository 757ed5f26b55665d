//! Requests that change the generated code ([`dxil_to_spirv::Requests`]), on corpus shaders written for them: the
//! decorations and constants each one adds, and `spirv-val` on the result. Without the corpus (or `spirv-val`) the
//! tests skip with a message; under `CI` they fail instead.

mod support;

use dxil_to_spirv::options::{SampleCount, StreamOutput};
use dxil_to_spirv::{Error, Options, Requests, Translation};

/// Translates a corpus container with `requests`; `None` (after a skip message) without the corpus.
fn translate(name: &str, requests: Requests) -> Option<Result<Translation, Error>> {
    let Some(corpus) = support::corpus_dir() else {
        support::skip_or_fail("corpus not found (set DXIL_CORPUS)");
        return None;
    };
    let bytes = std::fs::read(corpus.join(name)).expect("corpus container");
    let options = Options {
        requests,
        ..Options::default()
    };
    Some(dxil_to_spirv::translate_container(&bytes, &options))
}

fn text_and_validate(t: &Translation, tag: &str) -> String {
    if support::have_spirv_val() {
        support::spirv_val(&t.words, t.vulkan_version, tag)
            .unwrap_or_else(|e| panic!("{tag}: {e}"));
    } else {
        support::skip_or_fail("spirv-val not found");
    }
    dxil_to_spirv::disassemble(&t.words).expect("disassembles")
}

#[test]
fn invariant_position_decorates_the_position_output() {
    let name = "dxil-spirv/stages/simple.invariant.vert.dxil";
    let Some(plain) = translate(name, Requests::default()) else {
        return;
    };
    let plain = text_and_validate(&plain.expect("translates"), "plain");
    assert!(!plain.contains("Invariant"));
    let requests = Requests {
        invariant_position: true,
        ..Requests::default()
    };
    let t = translate(name, requests).unwrap().expect("translates");
    let text = text_and_validate(&t, "invariant");
    assert_eq!(
        text.lines().filter(|l| l.ends_with(" Invariant")).count(),
        1,
        "{text}"
    );
}

#[test]
fn dual_source_blending_makes_the_second_target_index_1() {
    let name = "dxil-spirv/stages/simple.dual-source-blending.frag.dxil";
    let requests = Requests {
        dual_source_blending: true,
        ..Requests::default()
    };
    let Some(t) = translate(name, requests) else {
        return;
    };
    let text = text_and_validate(&t.expect("translates"), "dual");
    assert_eq!(
        text.lines().filter(|l| l.ends_with(" Location 0")).count(),
        2,
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.ends_with(" Index 1")).count(),
        1,
        "{text}"
    );
    assert!(!text.contains("Location 1"), "{text}");
}

#[test]
fn stream_output_decorates_the_captured_outputs() {
    let name = "dxil-spirv/stages/stream-out.stream-out.vert.dxil";
    let so = |semantic: &str, offset| StreamOutput {
        semantic: semantic.into(),
        index: 0,
        buffer: 0,
        offset,
        stride: 32,
    };
    let requests = Requests {
        stream_output: vec![so("SV_Position", 0), so("STREAMOUT", 16)],
        ..Requests::default()
    };
    let Some(t) = translate(name, requests) else {
        return;
    };
    let text = text_and_validate(&t.expect("translates"), "xfb");
    assert!(text.contains("OpCapability TransformFeedback"), "{text}");
    assert!(text.contains(" Xfb"), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.ends_with(" XfbStride 32"))
            .count(),
        2,
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.ends_with(" Offset 16")).count(),
        1,
        "{text}"
    );
    // An element the shader does not have is refused by name.
    let requests = Requests {
        stream_output: vec![so("NOPE", 0)],
        ..Requests::default()
    };
    let e = translate(name, requests).unwrap().unwrap_err().to_string();
    assert!(e.contains("NOPE0"), "{e}");
}

#[test]
fn render_target_sample_count_comes_from_the_request() {
    let name = "dxil-spirv/dxil-builtin/render-target-sample-count.frag.dxil";
    let Some(plain) = translate(name, Requests::default()) else {
        return;
    };
    let text = text_and_validate(&plain.expect("translates"), "default");
    assert!(text.contains("SpecId 0"), "{text}");
    let fixed = Requests {
        rasterizer_sample_count: Some(SampleCount::Fixed(4)),
        ..Requests::default()
    };
    let text = text_and_validate(
        &translate(name, fixed).unwrap().expect("translates"),
        "fixed",
    );
    assert!(
        text.lines()
            .any(|l| l.contains("OpConstant ") && l.ends_with(" 4")),
        "{text}"
    );
    let spec = Requests {
        rasterizer_sample_count: Some(SampleCount::SpecConstant(7)),
        ..Requests::default()
    };
    let text = text_and_validate(&translate(name, spec).unwrap().expect("translates"), "spec");
    assert!(text.contains("OpSpecConstant"), "{text}");
    assert!(text.contains("SpecId 7"), "{text}");
}

#[test]
fn unhonoured_requests_fail_by_name() {
    let name = "dxil-spirv/stages/simple.invariant.vert.dxil";
    let requests = Requests {
        force_precise: true,
        ..Requests::default()
    };
    let Some(r) = translate(name, requests) else {
        return;
    };
    match r {
        Err(Error::Option { option, .. }) => assert_eq!(option, "forced precise"),
        other => panic!("expected an option error, got {other:?}"),
    }
}

fn sixteen_bit(t: &Translation) -> bool {
    t.capabilities
        .iter()
        .any(|&c| matches!(c, spirv::Capability::Float16 | spirv::Capability::Int16))
}

/// Every corpus container of a module without native 16-bit types whose translation uses 16-bit types (its
/// min-precision `half`/`i16`) translates with `min_precision_32bit` to valid SPIR-V without them.
#[test]
fn min_precision_modules_translate_at_32_bits() {
    let Some(corpus) = support::corpus_dir() else {
        support::skip_or_fail("corpus not found (set DXIL_CORPUS)");
        return;
    };
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    for s in support::shaders_of(&corpus, &[""]) {
        let Ok(bytes) = std::fs::read(s.file("dxil")) else {
            continue;
        };
        let Ok(module) = dxil_to_spirv::read_container(&bytes) else {
            continue;
        };
        if module.datalayout.contains("i16:16") || module.datalayout.contains("f16:16") {
            continue;
        }
        let options = Options {
            entry_point: s.entry.clone(),
            ..Options::default()
        };
        match dxil_to_spirv::translate(&module, &options) {
            Ok(t) if sixteen_bit(&t) => {}
            _ => continue,
        }
        let options = Options {
            requests: Requests {
                min_precision_32bit: true,
                ..Requests::default()
            },
            ..options
        };
        checked.push(s.name.clone());
        match dxil_to_spirv::translate(&module, &options) {
            Ok(t) if sixteen_bit(&t) => failures.push(format!("{}: 16-bit types remain", s.name)),
            Ok(t) => {
                if let Err(e) = support::validate(&t) {
                    failures.push(format!("{}: spirv-val: {e}", s.name));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", s.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The vkd3d-proton shaders written for min precision are among them.
    for name in [
        "vkd3d-proton/sm_advanced/ps_fp16_nonnative.ps_6_2",
        "vkd3d-proton/sm_advanced/vs_fp16_nonnative.vs_6_2",
    ] {
        assert!(
            checked.iter().any(|c| c == name),
            "{name} not checked: {checked:?}"
        );
    }
    eprintln!("{} min-precision modules checked", checked.len());
}
