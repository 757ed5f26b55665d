//! Version-2 cases (the D3D12 binding model) from case file to dispatch, with hand-built SPIR-V
//! that follows the binding contract: bindless heap reads through table offsets from the root
//! block, root constants, root descriptors by address (or as descriptors), null descriptors, UAV
//! counters, static and heap samplers, several passes, and every layout variant the runtime can
//! derive on one device (mutable or per-type heap sets, spilled root block, raw views as texel
//! buffers, CBVs as storage buffers, push-descriptor root CBVs). Plus the case-format rules that
//! only a run can check.
//!
//! Needs a Vulkan device; without one the tests are skipped with a message, unless `CI` is set.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "binding_model/kit.rs"]
mod kit;

use std::path::PathBuf;

use dxil_rootsig::RootSignature;
use dxil_runtime::case::Expected;
use dxil_runtime::{Case, LayoutOverrides, RunError, RunOptions, RunReport, Runtime, ShaderModule};
use kit::Kit;

fn runtime() -> Option<Runtime> {
    match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => Some(rt),
        Err(e) if std::env::var_os("CI").is_some() => panic!("CI needs a Vulkan device: {e}"),
        Err(e) => {
            eprintln!("SKIPPED: no Vulkan device ({e})");
            None
        }
    }
}

/// A scratch folder for case files and their data.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dxil-runtime-v2-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn parse(text: &str) -> Case {
    Case::parse(text, scratch("cases").join("case.toml")).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds the kit shader for the case's derived layout and runs it.
fn run(
    rt: &Runtime,
    case: &Case,
    overrides: LayoutOverrides,
    shader: impl Fn(&mut Kit<'_>),
) -> Result<RunReport, RunError> {
    let derived = rt.derive_layout(case, &overrides)?;
    let mut kit = Kit::new(&derived.contract);
    shader(&mut kit);
    let module = ShaderModule {
        words: kit.finish(),
        entry: "main".into(),
    };
    let options = RunOptions {
        layout: overrides,
        ..RunOptions::default()
    };
    rt.run(case, &module, &options)
}

#[track_caller]
fn assert_passes(result: Result<RunReport, RunError>, what: &str) -> RunReport {
    match result {
        Ok(report) => {
            for m in &report.mismatches {
                eprintln!("{what}: {m}");
            }
            assert!(report.passed(), "{what}: expectations failed");
            report
        }
        Err(e) => panic!("{what}: {e}"),
    }
}

#[track_caller]
fn assert_exit_2(result: Result<RunReport, RunError>, fragment: &str) -> RunError {
    match result {
        Ok(report) => panic!("expected exit 2, the run passed={}", report.passed()),
        Err(e) => {
            assert_eq!(e.exit_code(), 2);
            assert!(e.to_string().contains(fragment), "`{e}` lacks `{fragment}`");
            e
        }
    }
}

fn config(name: &str) -> LayoutOverrides {
    let d = LayoutOverrides::default();
    match name {
        "default" => d,
        "no-mutable" => LayoutOverrides {
            no_mutable_descriptors: true,
            ..d
        },
        "single-set" => LayoutOverrides {
            mutable_single_set: true,
            ..d
        },
        "raw-as-texel" => LayoutOverrides {
            min_storage_buffer_offset_alignment: Some(64),
            ..d
        },
        "spilled" => LayoutOverrides {
            max_push_constants_size: Some(8),
            ..d
        },
        "cbv-as-ssbo" => LayoutOverrides {
            no_uniform_buffer_heap: true,
            ..d
        },
        "no-bda" => LayoutOverrides {
            no_buffer_device_address: true,
            ..d
        },
        "no-bda-no-push" => LayoutOverrides {
            no_buffer_device_address: true,
            no_push_descriptors: true,
            ..d
        },
        "no-mutable-no-bda" => LayoutOverrides {
            no_mutable_descriptors: true,
            no_buffer_device_address: true,
            ..d
        },
        "push-descriptor-cbv" => LayoutOverrides {
            root_cbv_push_descriptor: true,
            ..d
        },
        "spilled-no-push" => LayoutOverrides {
            max_push_constants_size: Some(8),
            no_push_descriptors: true,
            ..d
        },
        other => panic!("unknown config {other}"),
    }
}

const HEAP_CONFIGS: &[&str] = &[
    "default",
    "no-mutable",
    "single-set",
    "raw-as-texel",
    "spilled",
    "spilled-no-push",
    "cbv-as-ssbo",
];

fn expect_u32(case: &Case, memory: &str) -> Vec<u32> {
    let index = (0..)
        .find(|&i| case.target_name(i) == memory)
        .expect("memory");
    match &case
        .expects
        .iter()
        .find(|e| e.target == index)
        .unwrap()
        .values
    {
        Expected::U32(v) => v.clone(),
        other => panic!("{other:?}"),
    }
}

fn words(v: &[u32]) -> String {
    let items: Vec<String> = v.iter().map(u32::to_string).collect();
    format!("[{}]", items.join(", "))
}

// ---- execution through the heap, root constants and tables ----

fn bindless_case() -> Case {
    // dst words 0..64: view 11 (structured, stride 4, words 3..35) read at gid + 5, zero once
    // past the view; words 64..129 untouched; 129..193: src word gid + 1000 through view 21.
    let mut dst = vec![0xdead; 256];
    for gid in 0..64u32 {
        dst[gid as usize] = if gid + 5 < 32 { gid + 8 } else { 0 };
        dst[129 + gid as usize] = gid + 1000;
    }
    parse(&format!(
        r#"
shader = "bindless.dxil"
dispatch = [1, 1, 1]
root_signature = {{ hlsl = "DescriptorTable(SRV(t0, space=1, numDescriptors=unbounded)), DescriptorTable(UAV(u0, numDescriptors=2)), RootConstants(num32BitConstants=2, b0)" }}
heap_size = 64

[[memory]]
name = "src"
size = 4096
init = "iota-u32"
[[memory]]
name = "dst"
size = 1024
init = "fill-u32:0xdead"

[[view]]
slot = 10
type = "srv"
memory = "src"
raw = true
num_elements = 1024
[[view]]
slot = 11
type = "srv"
memory = "src"
stride = 4
first_element = 3
num_elements = 32
[[view]]
slot = 20
type = "uav"
memory = "dst"
raw = true
num_elements = 256
[[view]]
slot = 21
type = "uav"
memory = "dst"
stride = 4
first_element = 129
num_elements = 64

[[root]]
index = 0
table = 10
[[root]]
index = 1
table = 20
[[root]]
index = 2
constants = [1, 5]

[[expect]]
memory = "dst"
u32 = {}
"#,
        words(&dst)
    ))
}

fn bindless_shader(k: &mut Kit<'_>) {
    let gid = k.gid();
    let c0 = k.root_constant(2, 0);
    let c1 = k.root_constant(2, 1);
    let t0 = k.table_slot(0, 0);
    let src = k.add(t0, c0);
    let at = k.add(gid, c1);
    let v = k.raw_load(false, src, at);
    let out = k.table_slot(1, 0);
    k.raw_store(out, gid, v);
    let w = k.raw_load(false, t0, gid);
    let w = k.add_c(w, 1000);
    let out2 = k.table_slot(1, 1);
    k.raw_store(out2, gid, w);
}

#[test]
fn bindless_tables_root_constants_and_view_offsets() {
    let Some(rt) = runtime() else { return };
    let case = bindless_case();
    for name in HEAP_CONFIGS {
        let report = assert_passes(run(&rt, &case, config(name), bindless_shader), name);
        eprintln!("{name}: {:?}", report.timings);
    }
}

#[test]
fn typed_views_through_texel_arrays_and_unset_table_at_slot_0() {
    let Some(rt) = runtime() else { return };
    let mut dst = vec![7u32; 64];
    for gid in 0..16u32 {
        dst[3 + gid as usize] = 5 + gid + 100;
    }
    for gid in 0..8u32 {
        dst[40 + gid as usize] = 4 + gid;
    }
    let case = parse(&format!(
        r#"
shader = "typed.dxil"
dispatch = [1, 1, 1]
root_signature = {{ hlsl = "DescriptorTable(SRV(t0, numDescriptors=4), UAV(u0, numDescriptors=4))" }}
heap_size = 16
[[memory]]
name = "src"
size = 1024
init = "iota-u32"
[[memory]]
name = "dst"
size = 256
init = "fill-u32:7"
[[view]]
slot = 0
type = "srv"
memory = "src"
format = "r32_uint"
first_element = 5
num_elements = 16
[[view]]
slot = 1
type = "srv"
memory = "src"
raw = true
first_element = 4
num_elements = 8
[[view]]
slot = 4
type = "uav"
memory = "dst"
format = "r32_uint"
first_element = 3
num_elements = 16
[[view]]
slot = 5
type = "uav"
memory = "dst"
format = "r32_uint"
first_element = 40
num_elements = 8
[[expect]]
memory = "dst"
u32 = {}
"#,
        words(&dst)
    ));
    for name in HEAP_CONFIGS {
        assert_passes(
            run(&rt, &case, config(name), |k| {
                let gid = k.gid();
                // No [[root]]: the table starts at slot 0.
                let s0 = k.table_slot(0, 0);
                let v = k.typed_load(false, s0, gid);
                let v = k.add_c(v, 100);
                let s4 = k.table_slot(0, 4);
                k.typed_store(s4, gid, v);
                let s1 = k.table_slot(0, 1);
                let w = k.raw_load(false, s1, gid);
                let s5 = k.table_slot(0, 5);
                k.typed_store(s5, gid, w);
            }),
            name,
        );
    }
}

#[test]
fn root_descriptors_by_address_and_as_descriptors() {
    let Some(rt) = runtime() else { return };
    let mut out = vec![0u32; 80];
    for gid in 0..64u32 {
        out[16 + gid as usize] = (64 + gid) + (4 + gid) * 2 + 3;
    }
    let case = parse(&format!(
        r#"
shader = "root.dxil"
dispatch = [1, 1, 1]
root_signature = {{ hlsl = "UAV(u0), CBV(b0), SRV(t0), RootConstants(num32BitConstants=1, b1)" }}
[[memory]]
name = "out"
size = 1024
init = "zero"
[[memory]]
name = "cb"
size = 1024
init = "iota-u32"
[[memory]]
name = "src"
size = 1024
init = "iota-u32"
[[root]]
index = 0
va = {{ memory = "out", offset = 64 }}
[[root]]
index = 1
va = {{ memory = "cb", offset = 256 }}
[[root]]
index = 2
va = {{ memory = "src", offset = 16 }}
[[root]]
index = 3
constants = [3]
[[expect]]
memory = "out"
u32 = {}
"#,
        words(&out)
    ));
    for name in [
        "default",
        "no-bda",
        "no-bda-no-push",
        "push-descriptor-cbv",
        "spilled",
        "spilled-no-push",
        "no-mutable-no-bda",
    ] {
        let derived = rt.derive_layout(&case, &config(name)).unwrap();
        eprintln!("{name}:\n{}", derived.explain());
        assert_passes(
            run(&rt, &case, config(name), |k| {
                let gid = k.gid();
                let a = k.root_load(1, gid);
                let b = k.root_load(2, gid);
                let b2 = k.mul_c(b, 2);
                let c = k.root_constant(3, 0);
                let v = k.add(a, b2);
                let v = k.add(v, c);
                k.root_store(0, gid, v);
            }),
            name,
        );
    }
}

#[test]
fn null_descriptors_read_zero_and_drop_writes() {
    let Some(rt) = runtime() else { return };
    let iota: Vec<u32> = (0..64).collect();
    let case = parse(&format!(
        r#"
shader = "null.dxil"
dispatch = [1, 1, 1]
root_signature = {{ hlsl = "DescriptorTable(SRV(t0, numDescriptors=3), UAV(u0, numDescriptors=2), CBV(b0))" }}
heap_size = 8
[[memory]]
name = "src"
size = 256
init = "iota-u32"
[[memory]]
name = "dst"
size = 256
init = "zero"
[[view]]
slot = 0
type = "null-srv"
raw = true
[[view]]
slot = 1
type = "null-srv"
format = "r32_uint"
[[view]]
slot = 2
type = "srv"
memory = "src"
raw = true
num_elements = 64
[[view]]
slot = 3
type = "null-uav"
stride = 4
[[view]]
slot = 4
type = "uav"
memory = "dst"
raw = true
num_elements = 64
[[view]]
slot = 5
type = "null-cbv"
[[expect]]
memory = "dst"
u32 = {}
"#,
        words(&iota)
    ));
    for name in HEAP_CONFIGS {
        assert_passes(
            run(&rt, &case, config(name), |k| {
                let gid = k.gid();
                let t = k.table_slot(0, 0);
                let a = k.raw_load(false, t, gid);
                let t1 = k.table_slot(0, 1);
                let b = k.typed_load(false, t1, gid);
                let t5 = k.table_slot(0, 5);
                let c = k.cbv_load(t5, gid);
                let t3 = k.table_slot(0, 3);
                let junk = k.c(0x1234);
                k.raw_store(t3, gid, junk);
                let t2 = k.table_slot(0, 2);
                let d = k.raw_load(false, t2, gid);
                let v = k.add(a, b);
                let v = k.add(v, c);
                let v = k.add(v, d);
                let t4 = k.table_slot(0, 4);
                k.raw_store(t4, gid, v);
            }),
            name,
        );
    }
}

fn counter_case() -> String {
    let mut dst = vec![1u32; 128];
    dst.extend(std::iter::repeat_n(7, 128));
    format!(
        r#"
shader = "counter.dxil"
dispatch = [2, 1, 1]
root_signature = {{ hlsl = "DescriptorTable(UAV(u0, numDescriptors=2))" }}
heap_size = 4
[[memory]]
name = "ctr"
size = 16
init = [0, 10, 0, 0]
[[memory]]
name = "dst"
size = 1024
init = "zero"
[[view]]
slot = 0
type = "uav"
memory = "dst"
stride = 4
num_elements = 256
counter = "ctr"
counter_offset = 4
[[view]]
slot = 1
type = "uav"
memory = "dst"
stride = 4
first_element = 128
num_elements = 128
[[expect]]
memory = "ctr"
u32 = [0, 138, 0, 0]
[[expect]]
memory = "dst"
u32 = {}
"#,
        words(&dst)
    )
}

fn counter_shader(k: &mut Kit<'_>) {
    let gid = k.gid();
    let s0 = k.table_slot(0, 0);
    let old = k.increment_counter(s0);
    let ten = k.c(10);
    let at = k.b.i_sub(k.uint, None, old, ten).unwrap();
    let one = k.c(1);
    k.raw_store(s0, at, one);
    let s1 = k.table_slot(0, 1);
    let none = k.increment_counter(s1);
    let v = k.add_c(none, 7);
    k.raw_store(s1, gid, v);
}

#[test]
fn uav_counters_count_through_the_address_table() {
    let Some(rt) = runtime() else { return };
    let case = parse(&counter_case());
    for name in [
        "default",
        "no-mutable",
        "single-set",
        "raw-as-texel",
        "spilled",
    ] {
        assert_passes(run(&rt, &case, config(name), counter_shader), name);
    }
    // Without buffer device addresses there is no counter table: the case cannot run.
    let err = rt.run(
        &case,
        &ShaderModule {
            words: Vec::new(),
            entry: String::new(),
        },
        &RunOptions {
            layout: config("no-bda"),
            ..RunOptions::default()
        },
    );
    assert!(err.is_err());
}

#[test]
fn static_samplers_and_the_sampler_heap_are_bound() {
    let Some(rt) = runtime() else { return };
    let expected: Vec<u32> = (0..64).map(|i| i * 3).collect();
    let case = parse(&format!(
        r#"
shader = "samplers.dxil"
dispatch = [1, 1, 1]
root_signature = {{ hlsl = "DescriptorTable(Sampler(s0, numDescriptors=4)), DescriptorTable(UAV(u0)), StaticSampler(s4, filter=FILTER_MIN_MAG_MIP_LINEAR, addressU=TEXTURE_ADDRESS_BORDER, borderColor=STATIC_BORDER_COLOR_OPAQUE_BLACK), StaticSampler(s5, filter=FILTER_COMPARISON_ANISOTROPIC, comparisonFunc=COMPARISON_GREATER, maxAnisotropy=8), StaticSampler(s6, filter=FILTER_MAXIMUM_MIN_MAG_MIP_POINT, addressV=TEXTURE_ADDRESS_MIRROR_ONCE, minLOD=1, maxLOD=0)" }}
heap_size = 4
sampler_heap_size = 8
[[memory]]
name = "dst"
size = 256
init = "zero"
[[view]]
slot = 0
type = "uav"
memory = "dst"
raw = true
num_elements = 64
[[sampler]]
slot = 4
filter = "point"
address = "wrap"
[[sampler]]
slot = 5
filter = "linear"
address = "mirror-once"
[[sampler]]
slot = 6
filter = "anisotropic"
address = "border"
[[sampler]]
slot = 7
filter = "point"
address = "clamp"
[[root]]
index = 0
table = 4
[[expect]]
memory = "dst"
u32 = {}
"#,
        words(&expected)
    ));
    for name in ["default", "single-set", "no-mutable", "spilled"] {
        let derived = rt.derive_layout(&case, &config(name)).unwrap();
        let text = derived.explain();
        assert!(text.contains("static samplers"), "{text}");
        assert!(text.contains("immutable: static sampler [2]"), "{text}");
        assert_passes(
            run(&rt, &case, config(name), |k| {
                let gid = k.gid();
                let three = k.c(3);
                let lane = k.b.u_mod(k.uint, None, gid, three).unwrap();
                let s = k.table_slot(0, 0);
                let s = k.add(s, lane);
                k.touch_samplers(Some(0), Some(s));
                k.touch_samplers(Some(1), None);
                k.touch_samplers(Some(2), None);
                let out = k.table_slot(1, 0);
                let v = k.mul_c(gid, 3);
                k.raw_store(out, gid, v);
            }),
            name,
        );
    }
}

#[test]
fn passes_run_in_order_with_their_own_root_arguments() {
    let Some(rt) = runtime() else { return };
    let b: Vec<u32> = (0..64).map(|i| i + 7).collect();
    let c: Vec<u32> = (0..64).map(|i| i + 1100).collect();
    let case = parse(&format!(
        r#"
shader = "passes.dxil"
root_signature = {{ hlsl = "DescriptorTable(SRV(t0, numDescriptors=unbounded)), DescriptorTable(UAV(u0, numDescriptors=unbounded)), RootConstants(num32BitConstants=1, b0)" }}
heap_size = 32
[[memory]]
name = "a"
size = 256
init = "iota-u32"
[[memory]]
name = "b"
size = 256
init = "zero"
[[memory]]
name = "c"
size = 256
init = "zero"
[[view]]
slot = 0
type = "srv"
memory = "a"
raw = true
num_elements = 64
[[view]]
slot = 1
type = "srv"
memory = "b"
raw = true
num_elements = 64
[[view]]
slot = 10
type = "uav"
memory = "b"
raw = true
num_elements = 64
[[view]]
slot = 11
type = "uav"
memory = "c"
raw = true
num_elements = 64
[[root]]
index = 0
table = 0
[[root]]
index = 1
table = 10
[[root]]
index = 2
constants = [100]

# b = a + 100
[[pass]]
groups = [1, 1, 1]

# c = b + 1000, reading what the first pass wrote
[[pass]]
groups = [1, 1, 1]
[[pass.root]]
index = 0
table = 1
[[pass.root]]
index = 1
table = 11
[[pass.root]]
index = 2
constants = [1000]

# The table overrides above do not persist: b = a + 7
[[pass]]
groups = [1, 1, 1]
[[pass.root]]
index = 2
constants = [7]

[[expect]]
memory = "b"
u32 = {}
[[expect]]
memory = "c"
u32 = {}
"#,
        words(&b),
        words(&c)
    ));
    assert_eq!(expect_u32(&case, "c")[0], 1100);
    for name in ["default", "spilled", "spilled-no-push", "no-mutable"] {
        assert_passes(
            run(&rt, &case, config(name), |k| {
                let gid = k.gid();
                let t0 = k.table_slot(0, 0);
                let v = k.raw_load(false, t0, gid);
                let c = k.root_constant(2, 0);
                let v = k.add(v, c);
                let t1 = k.table_slot(1, 0);
                k.raw_store(t1, gid, v);
            }),
            name,
        );
    }
}

// ---- case-format rules that need the root signature ----

fn one_uav_case(extra: &str) -> String {
    format!(
        r#"
shader = "rules.dxil"
dispatch = [1, 1, 1]
root_signature = {{ hlsl = "DescriptorTable(UAV(u0, numDescriptors=2)), RootConstants(num32BitConstants=2, b0), DescriptorTable(Sampler(s0))" }}
heap_size = 16
sampler_heap_size = 4
[[memory]]
name = "dst"
size = 256
init = "fill-u32:9"
[[view]]
slot = 0
type = "uav"
memory = "dst"
raw = true
num_elements = 64
{extra}
"#
    )
}

fn constants_shader(k: &mut Kit<'_>) {
    let gid = k.gid();
    let a = k.root_constant(1, 0);
    let b = k.root_constant(1, 1);
    let v = k.add(a, b);
    let v = k.add_c(v, 5);
    let t = k.table_slot(0, 0);
    k.raw_store(t, gid, v);
}

#[test]
fn unset_root_arguments_are_zero() {
    let Some(rt) = runtime() else { return };
    let fives = words(&[5; 64]);
    let case = parse(&one_uav_case(&format!(
        "[[expect]]\nmemory = \"dst\"\nu32 = {fives}\n"
    )));
    assert_passes(
        run(&rt, &case, LayoutOverrides::default(), constants_shader),
        "no root arguments",
    );
    // Constants set from DestOffset 0: the second one stays 0.
    let fourteen = words(&[14; 64]);
    let case = parse(&one_uav_case(&format!(
        "[[root]]\nindex = 1\nconstants = [9]\n[[expect]]\nmemory = \"dst\"\nu32 = {fourteen}\n"
    )));
    assert_passes(
        run(&rt, &case, LayoutOverrides::default(), constants_shader),
        "one of two constants",
    );
}

#[test]
fn root_argument_errors_are_exit_2() {
    let Some(rt) = runtime() else { return };
    let go = |extra: &str| {
        let case = parse(&one_uav_case(extra));
        run(&rt, &case, LayoutOverrides::default(), constants_shader)
    };
    // The reader rejects slots outside both heaps; the run knows which heap a table indexes.
    let e = Case::parse(
        &one_uav_case("[[root]]\nindex = 0\ntable = 16\n"),
        "rules.toml",
    )
    .unwrap_err();
    assert!(e.to_string().contains("slot 16 is outside the heap"), "{e}");
    // Slot 8 is inside the CBV/SRV/UAV heap but not inside the 4-slot sampler heap.
    assert_exit_2(
        go("[[root]]\nindex = 2\ntable = 8\n"),
        "outside the sampler heap of 4 slots",
    );
    assert_exit_2(
        go("[[root]]\nindex = 3\nconstants = [1]\n"),
        "root argument 3 names no parameter (the root signature has 3)",
    );
    assert_exit_2(
        go("[[root]]\nindex = 1\ntable = 0\n"),
        "a table argument for a root constants parameter",
    );
    assert_exit_2(
        go("[[root]]\nindex = 0\nva = { memory = \"dst\" }\n"),
        "a va argument for a descriptor table parameter",
    );
    assert_exit_2(
        go("[[root]]\nindex = 1\nconstants = [1, 2, 3]\n"),
        "3 constants, but the parameter holds 2",
    );
    // In a pass, the message names the pass.
    assert_exit_2(
        go(
            "[[pass]]\ngroups = [1, 1, 1]\n[[pass]]\ngroups = [1, 1, 1]\n[[pass.root]]\nindex = 2\ntable = 8\n",
        ),
        "pass[1]: root argument 2",
    );
    // A view slot outside the heap is caught when the case is read.
    let e = Case::parse(
        &one_uav_case("[[view]]\nslot = 16\ntype = \"null-srv\"\nraw = true\n"),
        "rules.toml",
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("outside the heap of 16 slots"),
        "{e}"
    );
}

#[test]
fn cbv_views_are_byte_ranges_that_may_run_past_their_memory() {
    let Some(rt) = runtime() else { return };
    let mut dst: Vec<u32> = (0..64).collect();
    dst.extend((64..75).chain(std::iter::repeat_n(0, 53)));
    let case_text = |cbv: &str| {
        format!(
            r#"
shader = "cbv.dxil"
dispatch = [1, 1, 1]
root_signature = {{ hlsl = "DescriptorTable(CBV(b0, numDescriptors=2), UAV(u0))" }}
heap_size = 4
[[memory]]
name = "cb"
size = 300
init = "iota-u32"
[[memory]]
name = "dst"
size = 512
init = "fill-u32:1"
[[view]]
slot = 0
type = "cbv"
memory = "cb"
num_elements = 256
{cbv}
[[view]]
slot = 2
type = "uav"
memory = "dst"
raw = true
num_elements = 128
[[expect]]
memory = "dst"
u32 = {}
"#,
            words(&dst)
        )
    };
    // The second view starts at byte 256 of a 300-byte memory: 11 words exist, the rest read 0.
    let case = parse(&case_text(
        "[[view]]\nslot = 1\ntype = \"cbv\"\nmemory = \"cb\"\nfirst_element = 256\nnum_elements = 256\n",
    ));
    for name in ["default", "cbv-as-ssbo", "no-mutable", "single-set"] {
        assert_passes(
            run(&rt, &case, config(name), |k| {
                let gid = k.gid();
                let s0 = k.table_slot(0, 0);
                let a = k.cbv_load(s0, gid);
                let out = k.table_slot(0, 2);
                k.raw_store(out, gid, a);
                let s1 = k.table_slot(0, 1);
                let b = k.cbv_load(s1, gid);
                let at = k.add_c(gid, 64);
                k.raw_store(out, at, b);
            }),
            name,
        );
    }
    // Offsets and sizes are multiples of 256: a case error, exit 2.
    for bad in [
        "[[view]]\nslot = 1\ntype = \"cbv\"\nmemory = \"cb\"\nfirst_element = 100\nnum_elements = 256\n",
        "[[view]]\nslot = 1\ntype = \"cbv\"\nmemory = \"cb\"\nnum_elements = 100\n",
    ] {
        let e = Case::parse(&case_text(bad), "cbv.toml").unwrap_err();
        assert!(e.to_string().contains("multiples of 256"), "{e}");
    }
}

#[test]
fn view_elements_count_in_their_own_units() {
    let Some(rt) = runtime() else { return };
    // Structured stride 8 from element 2: words 4..12. Typed r32g32_uint from element 1: the x
    // component of element i is word 2 + 2i. Raw from element 4 (byte 16): words 4..
    let mut dst = vec![0u32; 192];
    for gid in 0..64u32 {
        let g = gid as usize;
        dst[g] = if gid < 8 { 4 + gid } else { 0 };
        dst[64 + g] = if gid < 4 { 2 + 2 * gid } else { 0 };
        dst[128 + g] = if gid < 12 { 4 + gid } else { 0 };
    }
    let case = parse(&format!(
        r#"
shader = "units.dxil"
dispatch = [1, 1, 1]
root_signature = {{ hlsl = "DescriptorTable(SRV(t0, numDescriptors=3), UAV(u0))" }}
heap_size = 4
[[memory]]
name = "src"
size = 1024
init = "iota-u32"
[[memory]]
name = "dst"
size = 768
init = "zero"
[[view]]
slot = 0
type = "srv"
memory = "src"
stride = 8
first_element = 2
num_elements = 4
[[view]]
slot = 1
type = "srv"
memory = "src"
format = "r32g32_uint"
first_element = 1
num_elements = 4
[[view]]
slot = 2
type = "srv"
memory = "src"
raw = true
first_element = 4
num_elements = 12
[[view]]
slot = 3
type = "uav"
memory = "dst"
raw = true
num_elements = 192
[[expect]]
memory = "dst"
u32 = {}
"#,
        words(&dst)
    ));
    for name in ["default", "no-mutable", "raw-as-texel"] {
        assert_passes(
            run(&rt, &case, config(name), |k| {
                let gid = k.gid();
                let out = k.table_slot(0, 3);
                let s0 = k.table_slot(0, 0);
                let a = k.raw_load(false, s0, gid);
                k.raw_store(out, gid, a);
                let s1 = k.table_slot(0, 1);
                let b = k.typed_load(false, s1, gid);
                let at = k.add_c(gid, 64);
                k.raw_store(out, at, b);
                let s2 = k.table_slot(0, 2);
                let c = k.raw_load(false, s2, gid);
                let at = k.add_c(gid, 128);
                k.raw_store(out, at, c);
            }),
            name,
        );
    }
    // D3D12 requires raw views to start at 16-byte multiples.
    let unaligned = parse(&one_uav_case(
        "[[view]]\nslot = 1\ntype = \"uav\"\nmemory = \"dst\"\nraw = true\nfirst_element = 1\nnum_elements = 4\n",
    ));
    assert_exit_2(
        run(
            &rt,
            &unaligned,
            LayoutOverrides::default(),
            constants_shader,
        ),
        "a raw view must start at a multiple of 16 bytes",
    );
}

// ---- root signature sources, layout checks, explain, dump ----

/// A DXBC container holding one RTS0 part (the digest is left zero; readers do not check it).
fn container_with_rts0(payload: &[u8]) -> Vec<u8> {
    let total = 32 + 4 + 8 + payload.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"DXBC");
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&u32::try_from(total).unwrap().to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&36u32.to_le_bytes());
    out.extend_from_slice(b"RTS0");
    out.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_le_bytes());
    out.extend_from_slice(payload);
    out
}

const SOURCE_RS: &str = "DescriptorTable(UAV(u0, numDescriptors=2)), RootConstants(num32BitConstants=2, b0), DescriptorTable(Sampler(s0))";

#[test]
fn root_signature_sources() {
    let Some(rt) = runtime() else { return };
    let rs = dxil_rootsig::parse_hlsl(SOURCE_RS, &dxil_rootsig::ParseOptions::default()).unwrap();
    let payload = rs.to_rts0_bytes().unwrap();
    let dir = scratch("sources");
    std::fs::write(dir.join("shader.dxil"), container_with_rts0(&payload)).unwrap();
    std::fs::write(dir.join("rs.dxbc"), container_with_rts0(&payload)).unwrap();
    std::fs::write(dir.join("rs.rts0"), &payload).unwrap();
    std::fs::write(dir.join("none.dxil"), b"DXBC but not a container").unwrap();
    let sevens = words(&[7; 64]);
    let body = one_uav_case(&format!(
        "[[root]]\nindex = 1\nconstants = [1, 1]\n[[expect]]\nmemory = \"dst\"\nu32 = {sevens}\n"
    ));
    let with_source = |shader: &str, source: &str| {
        let text = body
            .replace("shader = \"rules.dxil\"", &format!("shader = \"{shader}\""))
            .replace(
                &format!("root_signature = {{ hlsl = \"{SOURCE_RS}\" }}"),
                &format!("root_signature = {source}"),
            );
        Case::parse(&text, dir.join("case.toml")).unwrap_or_else(|e| panic!("{e}"))
    };
    for (shader, source) in [
        ("shader.dxil", "\"embedded\""),
        ("x.dxil", "{ file = \"rs.dxbc\" }"),
        ("x.dxil", "{ file = \"rs.rts0\" }"),
    ] {
        let case = with_source(shader, source);
        let derived = rt
            .derive_layout(&case, &LayoutOverrides::default())
            .unwrap();
        assert_eq!(derived.root_signature, rs, "{source}");
        assert_passes(
            run(&rt, &case, LayoutOverrides::default(), constants_shader),
            source,
        );
    }
    let fails = |case: Case, fragment: &str| {
        let e = rt
            .derive_layout(&case, &LayoutOverrides::default())
            .unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains(fragment), "`{e}` lacks `{fragment}`");
    };
    fails(with_source("missing.dxil", "\"embedded\""), "cannot read");
    fails(with_source("none.dxil", "\"embedded\""), "embedded");
    fails(
        with_source("x.dxil", "{ hlsl = \"DescriptorTable(UAV(u0\" }"),
        "root signature",
    );
    // Valid syntax, invalid D3D12: overlapping registers.
    fails(
        with_source("x.dxil", "{ hlsl = \"UAV(u0), UAV(u0)\" }"),
        "invalid root signature",
    );
    // A local root signature has no pipeline layout.
    let mut local = RootSignature::new(dxil_rootsig::Version::V1_1);
    local.flags = dxil_rootsig::RootSignatureFlags::LOCAL_ROOT_SIGNATURE;
    std::fs::write(dir.join("local.rts0"), local.to_rts0_bytes().unwrap()).unwrap();
    fails(with_source("x.dxil", "{ file = \"local.rts0\" }"), "local");
}

#[test]
fn a_shader_that_does_not_match_the_layout_is_exit_2() {
    let Some(rt) = runtime() else { return };
    let case = parse(&one_uav_case(""));
    // The kit shader for a different root signature (root constants only) pushes more than
    // this layout has, or reads a set it lacks.
    let other = parse(&one_uav_case("").replace(
        SOURCE_RS,
        "RootConstants(num32BitConstants=40, b0), DescriptorTable(UAV(u0))",
    ));
    let derived = rt
        .derive_layout(&other, &LayoutOverrides::default())
        .unwrap();
    let mut k = Kit::new(&derived.contract);
    let w = k.root_word(156);
    let t = k.table_slot(1, 0);
    let gid = k.gid();
    k.raw_store(t, gid, w);
    let module = ShaderModule {
        words: k.finish(),
        entry: String::new(),
    };
    let e = rt.run(&case, &module, &RunOptions::default()).unwrap_err();
    assert!(matches!(e, RunError::Binding(_)), "{e}");
    assert!(e.to_string().contains("push-constant block"), "{e}");
    // A binding outside the layout's sets.
    let mut k = Kit::new(&derived.contract);
    let t = k.table_slot(1, 0);
    let gid = k.gid();
    k.raw_store(t, gid, gid);
    let mut words = k.finish();
    // Move every DescriptorSet decoration to set 7.
    let mut i = 5;
    while i < words.len() {
        let (len, op) = (words[i] >> 16, words[i] & 0xffff);
        if op == 71 && words[i + 2] == 34 {
            words[i + 3] = 7;
        }
        i += len.max(1) as usize;
    }
    let module = ShaderModule {
        words,
        entry: String::new(),
    };
    let e = rt.run(&case, &module, &RunOptions::default()).unwrap_err();
    assert!(e.to_string().contains("set 7"), "{e}");
}

#[test]
fn explain_and_dump() {
    let Some(rt) = runtime() else { return };
    let case = bindless_case();
    let derived = rt
        .derive_layout(&case, &LayoutOverrides::default())
        .unwrap();
    let text = derived.explain();
    for fragment in [
        "root signature 1.1: 3 parameter(s)",
        "set 0: sampler heap",
        "root block: 16 bytes, push constants",
        "[0] table: slot word at byte 8",
        "[2] root constants b0 space0: 2 word(s) at bytes 0..8",
        "SRV raw/struct",
    ] {
        assert!(
            text.contains(fragment),
            "`{fragment}` missing from:\n{text}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&derived.to_json()).unwrap();
    assert_eq!(json["contract"]["root_block"]["size_in_bytes"], 16);
    assert_eq!(
        json["contract"]["parameters"][1]["kind"], "Table",
        "{json:#}"
    );

    let dir = scratch("dump");
    let mut k = Kit::new(&derived.contract);
    bindless_shader(&mut k);
    let module = ShaderModule {
        words: k.finish(),
        entry: "main".into(),
    };
    let options = RunOptions {
        dump_dir: Some(dir.clone()),
        ..RunOptions::default()
    };
    let report = rt.run(&case, &module, &options).unwrap();
    assert!(report.passed());
    let src = std::fs::read(dir.join("src.bin")).unwrap();
    assert_eq!(src.len(), 4096);
    assert_eq!(&src[4..8], &1u32.to_le_bytes());
    let dst = std::fs::read(dir.join("dst.bin")).unwrap();
    assert_eq!(&dst[129 * 4..130 * 4], &1000u32.to_le_bytes());
    // A memory name that would leave the dump folder is refused.
    let sneaky = parse(
        &one_uav_case("")
            .replace("name = \"dst\"", "name = \"../dst\"")
            .replace("memory = \"dst\"", "memory = \"../dst\""),
    );
    let derived = rt
        .derive_layout(&sneaky, &LayoutOverrides::default())
        .unwrap();
    let mut k = Kit::new(&derived.contract);
    constants_shader(&mut k);
    let module = ShaderModule {
        words: k.finish(),
        entry: "main".into(),
    };
    let e = rt.run(&sneaky, &module, &options).unwrap_err();
    assert!(matches!(e, RunError::Dump { .. }), "{e}");
    assert!(!dir.join("../dst.bin").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
