//! What the C API adds over the Rust API: `cargo bench -p dxil-spirv-c --bench c_api_overhead`.
//!
//! Over the compute containers of `translate_corpus` (dxil-to-spirv's bench), each translated two ways in one
//! process: the Rust API (`read_container` + [`Translator::compile`] with the default register bindings) and the
//! C API as a layer calls it (parse, create a converter, remappers that give the same register bindings, run,
//! fetch the SPIR-V, free). Both produce the same SPIR-V (checked), so the difference is the API's own cost.
//! Prints both medians over the containers and their ratio.
//!
//! Reads `$DXIL_CORPUS` or `../shared/corpus`; prints a message and returns when it is missing.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use dxil_spirv_c::abi;
use dxil_to_spirv::{Options, Translator};

/// The default model's register shifts (b 0, t 100, u 200, s 300, counters 400), as remapper answers.
fn fixed(b: &abi::D3dBinding, shift: u32) -> abi::VulkanBinding {
    abi::VulkanBinding {
        set: b.register_space,
        binding: shift + b.register_index,
        ..Default::default()
    }
}

unsafe extern "C" fn srv(
    _: *mut c_void,
    b: *const abi::D3dBinding,
    out: *mut abi::SrvVulkanBinding,
) -> abi::Bool {
    // SAFETY: the library passes valid pointers for the call's duration.
    unsafe { (*out).buffer_binding = fixed(&*b, 100) };
    abi::TRUE
}

unsafe extern "C" fn sampler(
    _: *mut c_void,
    b: *const abi::D3dBinding,
    out: *mut abi::VulkanBinding,
) -> abi::Bool {
    // SAFETY: as in `srv`.
    unsafe { *out = fixed(&*b, 300) };
    abi::TRUE
}

unsafe extern "C" fn uav(
    _: *mut c_void,
    b: *const abi::UavD3dBinding,
    out: *mut abi::UavVulkanBinding,
) -> abi::Bool {
    // SAFETY: as in `srv`.
    unsafe {
        (*out).buffer_binding = fixed(&(*b).d3d_binding, 200);
        (*out).counter_binding = abi::VulkanBinding {
            descriptor_type: abi::descriptor_type::SSBO,
            ..fixed(&(*b).d3d_binding, 400)
        };
    }
    abi::TRUE
}

unsafe extern "C" fn cbv(
    _: *mut c_void,
    b: *const abi::D3dBinding,
    out: *mut abi::CbvVulkanBinding,
) -> abi::Bool {
    // SAFETY: as in `srv`.
    unsafe { (*out).vulkan = fixed(&*b, 0) };
    abi::TRUE
}

/// One translation through the C API; the SPIR-V words, or `None` when it fails.
fn c_api(bytes: &[u8]) -> Option<Vec<u32>> {
    let mut blob = std::ptr::null_mut();
    let mut conv = std::ptr::null_mut();
    let mut words = None;
    // SAFETY: every pointer passed is valid for the call; handles are freed once, the converter first.
    unsafe {
        if dxil_spirv_c::dxil_spv_parse_dxil_blob(bytes.as_ptr().cast(), bytes.len(), &mut blob)
            != abi::SUCCESS
        {
            return None;
        }
        if dxil_spirv_c::dxil_spv_create_converter(blob, &mut conv) == abi::SUCCESS {
            dxil_spirv_c::dxil_spv_converter_set_srv_remapper(
                conv,
                Some(srv),
                std::ptr::null_mut(),
            );
            dxil_spirv_c::dxil_spv_converter_set_sampler_remapper(
                conv,
                Some(sampler),
                std::ptr::null_mut(),
            );
            dxil_spirv_c::dxil_spv_converter_set_uav_remapper(
                conv,
                Some(uav),
                std::ptr::null_mut(),
            );
            dxil_spirv_c::dxil_spv_converter_set_cbv_remapper(
                conv,
                Some(cbv),
                std::ptr::null_mut(),
            );
            let opts: [[u32; 2]; 2] = [
                [abi::option::PHYSICAL_STORAGE_BUFFER, 1],
                [abi::option::TYPED_UAV_READ_WITHOUT_FORMAT, 1],
            ];
            for o in &opts {
                dxil_spirv_c::dxil_spv_converter_add_option(conv, o.as_ptr());
            }
            if dxil_spirv_c::dxil_spv_converter_run(conv) == abi::SUCCESS {
                let mut out = abi::CompiledSpirv {
                    data: std::ptr::null(),
                    size: 0,
                };
                if dxil_spirv_c::dxil_spv_converter_get_compiled_spirv(conv, &mut out)
                    == abi::SUCCESS
                {
                    words = Some(
                        std::slice::from_raw_parts(out.data.cast::<u32>(), out.size / 4).to_vec(),
                    );
                }
            }
            dxil_spirv_c::dxil_spv_converter_free(conv);
        }
        dxil_spirv_c::dxil_spv_parsed_blob_free(blob);
    }
    words
}

fn compute_containers(corpus: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for suite in ["dxil-spirv", "vkd3d-proton", "vkd3d-proton-prebuilt"] {
        let Ok(text) = std::fs::read_to_string(corpus.join(suite).join("manifest.jsonl")) else {
            continue;
        };
        for line in text.lines() {
            let Some(profile) = field(line, "profile") else {
                continue;
            };
            if !profile.starts_with("cs_6_") || line.contains("\"error\"") {
                continue;
            }
            let Some(name) = field(line, "name") else {
                continue;
            };
            let p = PathBuf::from(format!("{}.dxil", corpus.join(suite).join(name).display()));
            if p.is_file() {
                out.push(p);
            }
        }
    }
    out
}

/// A string field of a manifest line (the manifest is flat JSON; no escapes in these fields).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\": \"");
    let start = line.find(&pat)? + pat.len();
    let len = line[start..].find('"')?;
    Some(&line[start..start + len])
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let Some(corpus) = dxil_corpus::corpus_dir() else {
        eprintln!("SKIPPED: no corpus (set DXIL_CORPUS)");
        return;
    };
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    let files = compute_containers(&corpus);
    let mut tr = Translator::new();
    let opts = Options::default();
    let (mut rust, mut c) = (Vec::new(), Vec::new());
    let mut differ = 0;
    for f in &files {
        let bytes = std::fs::read(f).expect("readable container");
        let r = dxil_to_spirv::read_container(&bytes).and_then(|m| tr.compile(&m, &opts));
        let (Ok(r), Some(w)) = (r, c_api(&bytes)) else {
            continue;
        };
        if r.words != w {
            differ += 1;
        }
        let mut tr_times = Vec::with_capacity(runs);
        let mut c_times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            let _ = std::hint::black_box(
                dxil_to_spirv::read_container(&bytes).and_then(|m| tr.compile(&m, &opts)),
            );
            tr_times.push(t.elapsed());
            let t = Instant::now();
            let _ = std::hint::black_box(c_api(&bytes));
            c_times.push(t.elapsed());
        }
        rust.push(median(tr_times));
        c.push(median(c_times));
    }
    let n = rust.len();
    let (mr, mc) = (median(rust.clone()), median(c.clone()));
    println!(
        "{n} compute containers both APIs translate ({differ} with different SPIR-V), {runs} runs each: \
         Rust API median {mr:.1?}, C API median {mc:.1?}, ratio {:.3}; totals {:.2?} / {:.2?}",
        mc.as_secs_f64() / mr.as_secs_f64(),
        rust.iter().sum::<Duration>(),
        c.iter().sum::<Duration>()
    );
}
