//! What a run takes besides the case, and what it gives back.

use std::path::PathBuf;
use std::time::Duration;

use ash::vk;

use crate::expect::Mismatch;
use crate::reflect::ReflectError;

/// A SPIR-V module and the entry point to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderModule {
    pub words: Vec<u32>,
    /// The GLCompute entry point's name; empty picks the module's only compute entry point.
    pub entry: String,
}

impl ShaderModule {
    /// A module from the bytes of a `.spv` file (either byte order).
    pub fn from_bytes(bytes: &[u8], entry: impl Into<String>) -> Result<ShaderModule, RunError> {
        if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
            return Err(RunError::BadSpirv(format!(
                "{} bytes is not a whole SPIR-V module (a multiple of 4, at least 20)",
                bytes.len()
            )));
        }
        let little: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let words = match little.first() {
            Some(&spirv::MAGIC_NUMBER) => little,
            Some(&m) if m.swap_bytes() == spirv::MAGIC_NUMBER => {
                little.into_iter().map(u32::swap_bytes).collect()
            }
            _ => {
                return Err(RunError::BadSpirv(
                    "the SPIR-V magic number is missing".into(),
                ));
            }
        };
        Ok(ShaderModule {
            words,
            entry: entry.into(),
        })
    }
}

/// The default dispatch time limit: a guard against shaders that never finish, not a performance
/// bound. A cold lavapipe compiles and runs the largest conformance cases in about 13 s on an idle
/// 2-core machine (the compile happens at the first dispatch), so the limit leaves a wide margin
/// for loaded machines; `dxil run --timeout` lowers it.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// Settings of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// How long a dispatch may take before the run is abandoned ([`DEFAULT_TIMEOUT`]).
    pub timeout: Duration,
    /// Where to write every resource's final bytes (`<bind>[_space<s>].bin`, or `<memory>.bin`).
    pub dump_dir: Option<PathBuf>,
    /// Version-2 cases: how the root signature's Vulkan layout is chosen.
    pub layout: LayoutOverrides,
    /// Time the dispatches on the GPU ([`Timing`]); `None` runs them once.
    pub timing: Option<Timing>,
    /// Dispatch each pass's thread groups one at a time in this order, each group's writes made
    /// visible to the next ([`GroupOrder`]); `None` dispatches each pass's whole grid at once.
    pub group_order: Option<GroupOrder>,
}

/// An order to run a pass's thread groups in, one group at a time. Groups are numbered x first,
/// then y, then z (group `(x, y, z)` of a grid `[gx, gy, gz]` is `x + gx * (y + gy * z)`).
///
/// A shader whose threads of different groups race leaves results that depend on which group
/// runs first; running the groups serially in both orders and comparing tells such a shader
/// apart without relying on a race to show. Within a group nothing changes: its invocations run
/// as the device runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupOrder {
    /// Group 0 first, then 1, 2, ...
    Forward,
    /// The last group first, group 0 last.
    Reverse,
}

impl GroupOrder {
    /// At most this many groups per pass run one at a time: each is a command of its own.
    pub const MAX_GROUPS: u32 = 4096;
}

/// How to time a run: its resources live in device-local memory (filled from and read back
/// through host-visible staging buffers, outside the timed region), and after a warm-up the case's
/// dispatches run `dispatches` times, each time on the initial contents (restored from a
/// device-local copy, outside the timed region), with a GPU timestamp before and after each
/// repetition. Several modules timed together ([`Runtime::run_many`](crate::Runtime::run_many))
/// take turns within each repetition. Each module's results are read back after one more run on
/// the initial contents and checked as in any run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Untimed repetitions first, at least this many ...
    pub warmup: u32,
    /// ... and for at least this long: a GPU that idled while the host prepared the run may take
    /// tens of milliseconds to raise its clocks.
    pub warmup_time: Duration,
    /// Timed repetitions (each: every pass of the case once).
    pub dispatches: u32,
}

impl Timing {
    /// At most this many repetitions in all, so that the query pool and the timeout stay bounded.
    pub const MAX_REPETITIONS: u32 = 100_000;
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            timeout: DEFAULT_TIMEOUT,
            dump_dir: None,
            layout: LayoutOverrides::default(),
            timing: None,
            group_order: None,
        }
    }
}

/// Ways to derive a version-2 case's layout as for a less capable device, or with another policy,
/// so that every layout variant of `dxil-rootsig` can run on one device. The default derives the
/// layout from the device as it is. Overrides only take capabilities away: asking for something
/// the device lacks changes nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LayoutOverrides {
    /// Cap `maxPushConstantsSize` (a root block larger than this spills into a uniform buffer).
    pub max_push_constants_size: Option<u32>,
    /// Raise `minStorageBufferOffsetAlignment` (above 16, raw and structured views become texel
    /// buffers).
    pub min_storage_buffer_offset_alignment: Option<u32>,
    /// Ignore `VK_EXT_mutable_descriptor_type` (one heap set per descriptor type).
    pub no_mutable_descriptors: bool,
    /// Ignore `VK_KHR_push_descriptor`.
    pub no_push_descriptors: bool,
    /// Ignore buffer device addresses (root descriptors become descriptors; no UAV counters).
    pub no_buffer_device_address: bool,
    /// Heap CBVs as storage buffers.
    pub no_uniform_buffer_heap: bool,
    /// Root CBVs as push descriptors instead of addresses.
    pub root_cbv_push_descriptor: bool,
    /// One mutable set for the whole CBV/SRV/UAV heap.
    pub mutable_single_set: bool,
}

/// The final contents of one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// `u0`, `t1 (space 2)` or a memory name.
    pub name: String,
    /// The dump file name without `.bin`.
    pub file_stem: String,
    pub bytes: Vec<u8>,
}

/// Time spent in a run's phases (host clock).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// Reflection, resource and pipeline creation.
    pub setup: Duration,
    /// The part of `setup` spent in `vkCreateShaderModule` and `vkCreateComputePipelines`: the
    /// driver's compilation of the module (with no pipeline cache of ours; drivers may keep one
    /// of their own, see [`Runtime::pipeline_creation`](crate::Runtime::pipeline_creation)).
    pub pipeline: Duration,
    /// From submit to the fence signalling.
    pub execute: Duration,
    /// Read-back, comparison, dumps and teardown.
    pub finish: Duration,
}

/// The outcome of a run that got as far as comparing.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    pub device: String,
    /// Every resource of the case, in declaration order.
    pub outputs: Vec<Output>,
    /// One entry per failing expectation, in case order.
    pub mismatches: Vec<Mismatch>,
    pub timings: Timings,
    /// With [`RunOptions::timing`]: the GPU time of each timed repetition, in order.
    pub dispatch_times: Vec<Duration>,
}

/// Median, minimum and maximum of a set of durations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    pub median: Duration,
    pub min: Duration,
    pub max: Duration,
    pub count: usize,
}

impl Summary {
    /// `None` for an empty set. The median of an even count is the mean of the middle two.
    pub fn of(times: &[Duration]) -> Option<Summary> {
        let mut sorted = times.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        };
        Some(Summary {
            median,
            min,
            max,
            count: n,
        })
    }
}

impl RunReport {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// The process exit status the case format prescribes: 0 when every expectation holds, 1
    /// otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.passed() { 0 } else { 1 }
    }

    /// The output of a resource by its display name (`u0`).
    pub fn output(&self, name: &str) -> Option<&Output> {
        self.outputs.iter().find(|o| o.name == name)
    }
}

/// Why a case could not be run (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot load the Vulkan loader: {0}")]
    NoLoader(String),
    #[error("no Vulkan device found")]
    NoDevice,
    #[error("no Vulkan device name contains `{wanted}` (devices: {available})")]
    DeviceNotFound { wanted: String, available: String },
    #[error("{call} failed: {result}")]
    Vulkan {
        call: &'static str,
        result: vk::Result,
    },
    #[error("not supported: {0}")]
    Unsupported(String),
    #[error(transparent)]
    Reflect(#[from] ReflectError),
    #[error("invalid SPIR-V: {0}")]
    BadSpirv(String),
    #[error("the shader and the case do not match: {0}")]
    Binding(String),
    #[error("root signature: {0}")]
    RootSignature(String),
    #[error("descriptor heap or root arguments: {0}")]
    Heap(String),
    #[error("the dispatch did not finish within {seconds} s; the run was abandoned")]
    Timeout { seconds: f64 },
    #[error("an earlier dispatch timed out; this runtime's device can no longer be used")]
    Poisoned,
    #[error("cannot write {}: {source}", path.display())]
    Dump {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl RunError {
    /// The process exit status for a run that could not be carried out.
    pub fn exit_code(&self) -> i32 {
        2
    }

    /// Whether the device may still be executing the abandoned work, so that the process should
    /// leave through [`exit_now`] rather than a normal exit.
    pub fn device_is_stuck(&self) -> bool {
        matches!(self, RunError::Timeout { .. } | RunError::Poisoned)
    }
}

/// Ends the process at once with `code`, after flushing stdout and stderr, without running
/// exit handlers or destructors.
///
/// A normal exit runs the Vulkan driver's teardown, which on some drivers (seen with NVIDIA's)
/// waits for outstanding GPU work; after a timed-out dispatch that work never finishes and the
/// process would hang. Call this after reporting a [`RunError::Timeout`].
pub fn exit_now(code: i32) -> ! {
    use std::io::Write;
    // Nothing can be reported if flushing fails; the exit status still says what happened.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` only ends the process; skipping atexit handlers and destructors is the
    // point, and every buffered output stream of ours was flushed above.
    unsafe { libc::_exit(code) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spirv_bytes_in_either_order() {
        let words = [spirv::MAGIC_NUMBER, 0x0001_0500, 0, 5, 0];
        let le: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let be: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(ShaderModule::from_bytes(&le, "main").unwrap().words, words);
        assert_eq!(ShaderModule::from_bytes(&be, "main").unwrap().words, words);
        assert!(matches!(
            ShaderModule::from_bytes(&le[..18], ""),
            Err(RunError::BadSpirv(_))
        ));
        assert!(matches!(
            ShaderModule::from_bytes(&[0; 20], ""),
            Err(RunError::BadSpirv(_))
        ));
    }

    #[test]
    fn summaries() {
        let ms = Duration::from_millis;
        assert_eq!(Summary::of(&[]), None);
        let s = Summary::of(&[ms(5), ms(1), ms(3)]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.count), (ms(3), ms(1), ms(5), 3));
        let s = Summary::of(&[ms(4), ms(1), ms(2), ms(9)]).unwrap();
        assert_eq!((s.median, s.min, s.max), (ms(3), ms(1), ms(9)));
    }

    #[test]
    fn exit_codes() {
        let report = RunReport {
            device: String::new(),
            outputs: vec![],
            mismatches: vec![],
            timings: Timings::default(),
            dispatch_times: vec![],
        };
        assert_eq!(report.exit_code(), 0);
        assert_eq!(RunError::NoDevice.exit_code(), 2);
    }
}
