//! What the GLSL-driven tests share: a shader from `tests/data` compiled by glslang when the
//! test runs, translated with the shifted binding map (`binding = 200` is `u0`), and for compute
//! shaders taken back through `to-spirv` and run once over one raw buffer at `u0` on the Vulkan
//! device (alone, or beside the original module).

// Each test uses the part it needs.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use dxil_from_spirv::{BindingMap, Options};
use dxil_runtime::{Case, RunOptions, Runtime, ShaderModule};

/// The module compiled from `tests/data/NAME` (of any stage: glslang takes it from the file
/// extension) for test `test` (tests run in parallel: each writes its own file), or `None`
/// (skipped, or a panic under `CI`) without glslang.
pub fn compile(name: &str, test: &str) -> Option<Vec<u32>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let out =
        std::env::temp_dir().join(format!("dxil-from-spirv-{test}-{}.spv", std::process::id()));
    let status = Command::new("glslangValidator")
        .args(["--target-env", "vulkan1.1"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output();
    match status {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "glslang rejects {}: {}",
            src.display(),
            String::from_utf8_lossy(&o.stdout)
        ),
        Err(e) => {
            dxil_corpus::skip_or_fail(format!("glslangValidator not found: {e}"));
            return None;
        }
    }
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    Some(words(&bytes))
}

pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The DXIL container of a module (bindings shifted: `binding = 200` is `u0`).
pub fn translate(words: &[u32]) -> Vec<u8> {
    let options = Options {
        bindings: BindingMap::Shifted,
        ..Options::default()
    };
    dxil_from_spirv::translate(words, &options)
        .unwrap()
        .container
}

/// A container taken back to SPIR-V, to run.
pub fn to_spirv(container: &[u8]) -> ShaderModule {
    let module = dxil_to_spirv::read_container(container).unwrap();
    let t = dxil_to_spirv::translate(&module, &Default::default()).unwrap();
    ShaderModule {
        words: t.words,
        entry: t.entry_point,
    }
}

/// The Vulkan device, or `None` (skipped, or a panic under `CI`).
pub fn device() -> Option<Runtime> {
    match Runtime::new(std::env::var("DXIL_DEVICE").ok().as_deref()) {
        Ok(rt) => Some(rt),
        Err(e) => {
            dxil_corpus::skip_or_fail(format!("no Vulkan device: {e}"));
            None
        }
    }
}

/// One workgroup of `shader` over a raw buffer at `u0` of `words` words filled by `init` (a
/// case file's initial contents); the buffer's words afterwards.
pub fn run_u0(rt: &Runtime, shader: &ShaderModule, words_len: usize, init: &str) -> Vec<u32> {
    let toml = format!(
        "shader = \"unused.dxil\"\ndispatch = [1, 1, 1]\n\n[[resource]]\nbind = \"u0\"\n\
         kind = \"raw\"\nsize = {}\ninit = \"{init}\"\n",
        4 * words_len
    );
    let case = Case::parse(&toml, "glsl.toml").unwrap();
    let report = rt.run(&case, shader, &RunOptions::default()).unwrap();
    words(&report.outputs[0].bytes)
}

/// The original module and its translation (`container`, through `to-spirv`) run alike: the
/// buffer's words after each, `(original, ours)`, or `None` without a device (skipped, or a
/// panic under `CI`).
pub fn run_original_and_ours(
    words: Vec<u32>,
    container: &[u8],
    words_len: usize,
    init: &str,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let ours = to_spirv(container);
    let original = ShaderModule {
        words,
        entry: "main".into(),
    };
    let rt = device()?;
    Some((
        run_u0(&rt, &original, words_len, init),
        run_u0(&rt, &ours, words_len, init),
    ))
}
