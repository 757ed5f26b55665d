//! The vkd3d-proton compute tests ported to version-2 cases (`conformance/vkd3d-proton/*.toml`, shaders from the
//! shared corpus) run with our translation on the local Vulkan device, on the layout the device gives and on
//! several weaker layout variants (per-type heap sets, one mutable set, a spilled root block, push-descriptor root
//! CBVs, storage-buffer CBVs), and the translated modules pass `spirv-val`.
//!
//! Plus the pipeline-creation failures those tests expect (D3D12 rejects the PSO, so the translation must fail):
//! dynamic indexing of root constants, and register arrays that no single descriptor range holds.
//!
//! Needs the corpus beside the repository (`../shared/corpus`, which the case files point into) and a Vulkan
//! device; without either the test is skipped with a message, unless `CI` is set.

mod support;

use std::path::PathBuf;
use std::sync::Arc;

use dxil_rootsig::{ParseOptions, parse_hlsl};
use dxil_runtime::{Case, LayoutOverrides, RunOptions, Runtime, ShaderModule};
use dxil_to_spirv::{Options, RootSignatureBindings};
use support::*;

fn cases_dir() -> PathBuf {
    repo_root().join("conformance/vkd3d-proton")
}

fn variants() -> Vec<(&'static str, LayoutOverrides)> {
    let d = LayoutOverrides::default();
    vec![
        ("device", d),
        (
            "no-mutable",
            LayoutOverrides {
                no_mutable_descriptors: true,
                ..d
            },
        ),
        (
            "single-set",
            LayoutOverrides {
                mutable_single_set: true,
                ..d
            },
        ),
        (
            "spilled",
            LayoutOverrides {
                max_push_constants_size: Some(8),
                ..d
            },
        ),
        (
            "push-descriptor-cbv",
            LayoutOverrides {
                root_cbv_push_descriptor: true,
                ..d
            },
        ),
        (
            "cbv-as-ssbo",
            LayoutOverrides {
                no_uniform_buffer_heap: true,
                ..d
            },
        ),
    ]
}

/// Why a case does not run on a layout variant, if it does not.
fn excluded(case: &str, variant: &str) -> Option<&'static str> {
    let typed = |s: &str| s.contains("typed");
    if variant == "single-set"
        && let Some(pair) = case.strip_prefix("undefined_descriptor_heap_mismatch_types_")
        && let Some((access, view)) = pair.split_once("_from_")
        && typed(access) != typed(view)
    {
        // One mutable binding holds both kinds, so a slot holds only the descriptor of the view's own kind:
        // reading a typed view as raw (or the reverse) reads a descriptor of another type, which Vulkan leaves
        // undefined (lavapipe crashes). vkd3d-proton has the same limit there (its test marks these pairs todo on
        // Intel, the driver it gives this layout).
        return Some("typed/raw aliasing needs separate typed and raw heap sets");
    }
    None
}

/// Translates the case's shader for the layout the run will derive, checks it with `spirv-val`, runs it.
fn run_case(rt: &Runtime, case: &Case, overrides: LayoutOverrides) -> Result<(), String> {
    let derived = rt
        .derive_layout(case, &overrides)
        .map_err(|e| format!("layout: {e}"))?;
    if std::env::var_os("DXIL_EXPLAIN").is_some() {
        eprintln!("{}", derived.explain());
    }
    let bytes =
        std::fs::read(&case.shader).map_err(|e| format!("{}: {e}", case.shader.display()))?;
    let options = Options {
        entry_point: case.entry.clone(),
        binding: Arc::new(RootSignatureBindings::new(derived.layout.clone())),
        ..Options::default()
    };
    let t = dxil_to_spirv::translate_container(&bytes, &options)
        .map_err(|e| format!("translate: {e}"))?;
    // `DXIL_SAVE_SPIRV=dir` keeps the module (for debugging one case).
    if let Some(dir) = std::env::var_os("DXIL_SAVE_SPIRV") {
        let bytes: Vec<u8> = t.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let _ = std::fs::write(PathBuf::from(dir).join("case.spv"), bytes);
    }
    if have_spirv_val() {
        spirv_val(&t.words, t.vulkan_version, "vkd3d").map_err(|e| format!("spirv-val: {e}"))?;
    }
    let module = ShaderModule {
        words: t.words,
        entry: t.entry_point,
    };
    let options = RunOptions {
        layout: overrides,
        // lavapipe compiles a compute shader at its first dispatch; some take seconds on a cold cache.
        timeout: std::time::Duration::from_secs(120),
        ..RunOptions::default()
    };
    let report = rt
        .run(case, &module, &options)
        .map_err(|e| format!("run: {e}"))?;
    if report.passed() {
        Ok(())
    } else {
        Err(report
            .mismatches
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

#[test]
fn ported_vkd3d_proton_cases_pass() {
    let Some(_) = corpus_dir() else { return };
    let dir = cases_dir();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    cases.sort();
    // `DXIL_CASE=name` runs only the cases whose file name contains it (for debugging one case).
    if let Ok(only) = std::env::var("DXIL_CASE") {
        cases.retain(|p| p.to_string_lossy().contains(&only));
    }
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    let rt = match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => rt,
        Err(e) => {
            skip_or_fail(&format!("no Vulkan device: {e}"));
            return;
        }
    };
    let mut failures = Vec::new();
    let mut runs = 0;
    let mut skipped = 0;
    for path in &cases {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let case = Case::load(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(case.version(), 2, "{name}: not a version-2 case");
        for (v, overrides) in variants() {
            if std::env::var("DXIL_VARIANT").is_ok_and(|only| only != v) {
                continue;
            }
            if let Some(why) = excluded(&name, v) {
                eprintln!("not run: {name} [{v}]: {why}");
                skipped += 1;
                continue;
            }
            runs += 1;
            match run_case(&rt, &case, overrides) {
                Ok(()) => eprintln!("pass {name} [{v}]"),
                Err(e) => {
                    eprintln!("FAIL {name} [{v}]: {e}");
                    failures.push(format!("{name} [{v}]"));
                }
            }
        }
    }
    eprintln!(
        "vkd3d-proton: {} cases, {} of {runs} runs pass on {} ({skipped} case/layout pairs not run, listed above)",
        cases.len(),
        runs - failures.len(),
        rt.device_info().name
    );
    assert!(failures.is_empty(), "failing: {failures:?}");
}

/// Pipeline creations the vkd3d-proton tests expect D3D12 to reject: (test, shader, root signature, what the
/// translator must say).
const REJECTED: &[(&str, &str, &str, &str)] = &[(
    "test_root_constant_indexing_dxil",
    "vkd3d-proton/shaders/cs_root_constant_indexing.cs_6_0.dxil",
    "RootConstants(num32BitConstants=48, b0), UAV(u0)",
    "dynamic indexing of root constants",
)];

#[test]
fn pipelines_d3d12_rejects_fail_to_translate() {
    let Some(corpus) = corpus_dir() else { return };
    for &(test, shader, root_signature, expected) in REJECTED {
        let bytes = std::fs::read(corpus.join(shader)).unwrap_or_else(|e| panic!("{shader}: {e}"));
        let rs = parse_hlsl(root_signature, &ParseOptions::default()).unwrap();
        let model = RootSignatureBindings::from_root_signature(
            &rs,
            &dxil_rootsig::DeviceLimits::default(),
            &dxil_rootsig::LayoutOptions::default(),
        )
        .unwrap();
        let options = Options {
            binding: Arc::new(model),
            ..Options::default()
        };
        match dxil_to_spirv::translate_container(&bytes, &options) {
            Ok(_) => {
                panic!("{test}: {shader} translated under `{root_signature}`; D3D12 rejects it")
            }
            Err(e) => assert!(
                e.to_string().contains(expected),
                "{test}: `{e}` does not say `{expected}`"
            ),
        }
    }
}
