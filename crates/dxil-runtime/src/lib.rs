//! A small D3D12-style compute runtime on Vulkan: the engine behind `dxil run`.
//!
//! It reads conformance cases (the TOML format of the shared conformance suite, versions 1 and
//! 2), runs a compute shader given as SPIR-V on a Vulkan device with the case's resources bound
//! the way D3D12 would see them, reads every resource back and checks the case's expectations.
//! Translating DXIL to SPIR-V is not done here: the caller passes the words in, so the same case
//! runs DXC's own SPIR-V (`--spirv`) or the project's translation.
//!
//! # Pieces
//! - [`case`]: the case model and its strict reader ([`Case::load`]). Unknown keys, values out of
//!   range and inconsistent combinations are errors naming the key path (`resource[1].stride`).
//!   Version 2 (root signature, heaps, views, samplers, root arguments, passes) is read and
//!   validated in full; the rules that need the root signature are checked when it runs.
//! - [`init`]: initial contents, including the format's xorshift32 generator.
//! - [`reflect`]: which Vulkan descriptor type each (set, binding) of the SPIR-V module needs.
//!   Descriptor types come from the module, not the case, so DXC's SPIR-V and ours both run.
//! - [`Runtime`]: instance and device. [`Runtime::new`] picks a device (a name substring, else the
//!   first discrete GPU, else the first device) and enables robust buffer access (and
//!   robustBufferAccess2 where offered, so out-of-bounds reads give zero as in D3D12) plus every
//!   optional feature a translated shader may use that the device has; [`DeviceInfo`] lists them.
//! - [`Runtime::run`]: one case, one module → [`RunReport`] (exit status 0 or 1) or [`RunError`]
//!   (exit status 2). Each dispatch waits on a fence with the run's timeout; after a timeout the
//!   runtime leaks its device rather than risk blocking in its destruction, and refuses more runs.
//! - Version 2 (the D3D12 binding model): [`Runtime::derive_layout`] reads the case's root
//!   signature ([`root_signature_of`]: the shader container's RTS0 part, an HLSL string or a
//!   file), validates it and computes its Vulkan layout with `dxil-rootsig` for the device's
//!   limits ([`DerivedLayout`]; [`LayoutOverrides`] derives it as for a weaker device). The run
//!   creates exactly that layout: the descriptor heaps as update-after-bind, partially bound,
//!   variable-count descriptor sets of the case's heap sizes, the UAV-counter and offset side
//!   buffers, static samplers, and per pass a root block (push constants, or a uniform buffer
//!   when spilled) and root descriptors; passes are separated by barriers.
//! - [`binding`]: the binding contract a translated shader must follow to run under that layout
//!   ([`BindingContract`], a plain-data function of the layout, defined in
//!   `dxil_rootsig::contract` so that the translator's root-signature binding model reads the
//!   same definition, re-exported here), and the `--explain` text and JSON
//!   ([`DerivedLayout::explain`], [`DerivedLayout::to_json`]).
//! - [`expect`]: comparisons (u32, i32, f32 with a ULP tolerance, bytes of a file).
//! - [`differential`]: the version-1 case of the corpus differential check (every declared buffer
//!   64 KiB of small random words) and [`differential::diff_reports`] to compare two runs.
//!
//! # Wiring `dxil run`
//! ```no_run
//! # fn translate(_: &std::path::Path) -> Vec<u32> { Vec::new() }
//! use dxil_runtime::{Case, RunOptions, Runtime, ShaderModule};
//! # fn main() -> std::process::ExitCode {
//! let case = match Case::load("case.toml") {
//!     Ok(case) => case,
//!     Err(e) => { eprintln!("{e}"); return std::process::ExitCode::from(2) }
//! };
//! // `--spirv FILE` reads the words with `ShaderModule::from_bytes`; otherwise translate
//! // `case.shader` (a DXIL container) with dxil-to-spirv.
//! let module = ShaderModule { words: translate(&case.shader), entry: case.entry.clone().unwrap_or_default() };
//! let options = RunOptions::default();
//! let code = match Runtime::new(None).and_then(|rt| rt.run(&case, &module, &options)) {
//!     Ok(report) => {
//!         for m in &report.mismatches { println!("{m}"); }
//!         report.exit_code()
//!     }
//!     Err(e) if e.device_is_stuck() => { eprintln!("{e}"); dxil_runtime::exit_now(2) }
//!     Err(e) => { eprintln!("{e}"); e.exit_code() }
//! };
//! # std::process::ExitCode::from(code as u8)
//! # }
//! ```
//! For a version-2 case, translate with the layout the runtime will bind (the same call the run
//! makes, so both agree), and print it for `--explain`:
//! ```no_run
//! # use dxil_runtime::{Case, LayoutOverrides, Runtime};
//! # fn f(rt: &Runtime, case: &Case) -> Result<(), dxil_runtime::RunError> {
//! let derived = rt.derive_layout(case, &LayoutOverrides::default())?;
//! println!("{}", derived.explain()); // or derived.to_json()
//! // translator input: &derived.layout and &derived.contract
//! # Ok(()) }
//! ```
//! An empty `entry` picks the module's only GLCompute entry point. After a [`RunError::Timeout`]
//! (see [`RunError::device_is_stuck`]) leave through [`exit_now`]: a normal exit runs the driver's
//! teardown, which on NVIDIA's driver waits for the abandoned dispatch forever, and on a CPU device
//! the dispatch keeps a worker thread busy until the process ends.
//!
//! # Why hand-written
//! Vulkan access goes through `ash` and SPIR-V parsing through `rspirv`; what is ours is the
//! D3D12 side (binding models, case semantics, robustness choices), which no crate covers. This is
//! the one crate of the workspace that contains `unsafe` code: each Vulkan call sits in a small
//! block whose `SAFETY` comment says why the call is sound.

pub mod binding;
pub mod case;
pub mod differential;
pub mod expect;
pub mod format;
mod heap;
pub mod init;
pub mod reflect;
pub mod report;
mod vulkan;

pub use binding::{BindingContract, DerivedLayout};
pub use case::{Case, CaseError};
pub use heap::root_signature_of;
pub use report::{
    DEFAULT_TIMEOUT, GroupOrder, LayoutOverrides, Output, RunError, RunOptions, RunReport,
    ShaderModule, Summary, Timing, Timings, exit_now,
};
pub use vulkan::{DeviceInfo, Runtime};
