//! The vkd3d-proton compute tests ported to version-2 cases (`conformance/vkd3d-proton/*.toml`, shaders from the
//! shared corpus) run with our translation on the local Vulkan device, on the layout the device gives and on
//! several weaker layout variants (per-type heap sets, one mutable set, a spilled root block, push-descriptor root
//! CBVs, storage-buffer CBVs, root descriptors as descriptors without buffer device addresses), and the translated
//! modules pass `spirv-val`.
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
        (
            "no-bda",
            LayoutOverrides {
                no_buffer_device_address: true,
                ..d
            },
        ),
    ]
}

/// Why a case does not run on a layout variant, if it does not.
fn excluded(case: &str, variant: &str) -> Option<&'static str> {
    let typed = |s: &str| s.contains("typed");
    let aliasing = case == "undefined_read_typed_buffer_as_untyped"
        || case
            .strip_prefix("undefined_descriptor_heap_mismatch_types_")
            .and_then(|pair| pair.split_once("_from_"))
            .is_some_and(|(access, view)| typed(access) != typed(view));
    if variant == "single-set" && aliasing {
        // One mutable binding holds both kinds, so a slot holds only the descriptor of the view's own kind:
        // reading a typed view as raw (or the reverse) reads a descriptor of another type, which Vulkan leaves
        // undefined (lavapipe crashes). vkd3d-proton has the same limit there (its test marks these pairs todo on
        // Intel, the driver it gives this layout).
        return Some("typed/raw aliasing needs separate typed and raw heap sets");
    }
    if variant == "no-bda"
        && matches!(
            case,
            "bindless_uav_counter"
                | "bindless_heap_sm66_uav_counter"
                | "uav_counters_null_behavior"
        )
    {
        // UAV counters live in the counter address table, which needs buffer device addresses (so does
        // vkd3d-proton).
        return Some("UAV counters need buffer device addresses");
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
    validate(&t).map_err(|e| format!("spirv-val: {e}"))?;
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

/// Pipeline creations the vkd3d-proton tests expect D3D12 to reject (the translation must fail and say why) or
/// to accept (it must succeed and pass `spirv-val`): (test, shader, root signature, `Some(what the translator must
/// say)` or `None`).
const PIPELINES: &[(&str, &str, &str, Option<&str>)] = &[
    // Dynamic indexing into root constants: native D3D12 rejects the DXIL PSO.
    (
        "test_root_constant_indexing_dxil",
        "vkd3d-proton/shaders/cs_root_constant_indexing.cs_6_0.dxil",
        "RootConstants(num32BitConstants=48, b0), UAV(u0)",
        Some("dynamic indexing of root constants"),
    ),
    // A sized sampler array cannot bind separate static samplers; an unsized one binds the first (every index
    // then reads sampler 0, as on native drivers).
    (
        "test_static_sampler_dynamic_index (fixed-size array)",
        "vkd3d-proton/descriptors/static_sampler_dynamic_index_fixed.cs_6_0.dxil",
        STATIC_SAMPLERS,
        Some("binds no sampler there"),
    ),
    (
        "test_static_sampler_dynamic_index (unsized array)",
        "vkd3d-proton/descriptors/static_sampler_dynamic_index.cs_6_0.dxil",
        STATIC_SAMPLERS,
        None,
    ),
    // The rules of test_descriptor_range_validation as binding-model.md section 8 #19 states them, on its shader
    // (`R[2] : register(u1)`, `UnsizedR[] : register(u1, space1)`): a sized array may not span two ranges ...
    (
        "test_descriptor_range_validation (sized array across ranges)",
        "vkd3d-proton/pso/descriptor_range_validation.cs_6_0.dxil",
        "DescriptorTable(UAV(u0, numDescriptors=2, offset=0), UAV(u2, numDescriptors=2, offset=2), \
         UAV(u0, space=1, numDescriptors=2, offset=4)), UAV(u0, space=10)",
        Some("binds no raw/structured buffer UAV there"),
    ),
    // ... an unsized array may start at the base of a one-descriptor range ...
    (
        "test_descriptor_range_validation (unsized array on a one-descriptor range)",
        "vkd3d-proton/pso/descriptor_range_validation.cs_6_0.dxil",
        "DescriptorTable(UAV(u1, numDescriptors=2, offset=0), UAV(u1, space=1, numDescriptors=1, offset=2)), \
         UAV(u0, space=10)",
        None,
    ),
    // ... and an unsized array may bind a root UAV.
    (
        "test_descriptor_range_validation (unsized array on a root UAV)",
        "vkd3d-proton/pso/descriptor_range_validation.cs_6_0.dxil",
        "DescriptorTable(UAV(u1, numDescriptors=2)), UAV(u1, space=1)",
        None,
    ),
];

/// test_static_sampler_dynamic_index's root signature: four static samplers s0..s3 in space 100 (MinLOD = MaxLOD =
/// i), table { SRV t0 }, root UAV u0.
const STATIC_SAMPLERS: &str = "StaticSampler(s0, space=100, minLOD=0, maxLOD=0), \
     StaticSampler(s1, space=100, minLOD=1, maxLOD=1), StaticSampler(s2, space=100, minLOD=2, maxLOD=2), \
     StaticSampler(s3, space=100, minLOD=3, maxLOD=3), DescriptorTable(SRV(t0)), UAV(u0)";

#[test]
fn pipelines_d3d12_rejects_fail_to_translate_and_accepted_ones_translate() {
    let Some(corpus) = corpus_dir() else { return };
    for &(test, shader, root_signature, expected) in PIPELINES {
        let bytes = std::fs::read(corpus.join(shader)).unwrap_or_else(|e| panic!("{shader}: {e}"));
        let rs = parse_hlsl(root_signature, &ParseOptions::default())
            .unwrap_or_else(|e| panic!("{test}: `{root_signature}`: {e}"));
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
        match (
            dxil_to_spirv::translate_container(&bytes, &options),
            expected,
        ) {
            (Ok(_), Some(_)) => {
                panic!("{test}: {shader} translated under `{root_signature}`; D3D12 rejects it")
            }
            (Err(e), Some(expected)) => assert!(
                e.to_string().contains(expected),
                "{test}: `{e}` does not say `{expected}`"
            ),
            (Ok(t), None) => validate(&t).unwrap_or_else(|e| panic!("{test}: spirv-val: {e}")),
            (Err(e), None) => {
                panic!("{test}: D3D12 accepts this pipeline, the translation failed: {e}")
            }
        }
    }
}
