//! `dxil`: read, print, assemble, translate and run DXIL shaders.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

#[derive(Parser)]
#[command(
    name = "dxil",
    version,
    about = "DXIL containers: inspect, disassemble, assemble, translate to and from SPIR-V, run"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a container: parts, stage, entry points, signatures, resources, flags, digest.
    Info(cmd::info::Args),
    /// Print the module as LLVM assembly, in the text DXC prints.
    Dis(cmd::dis::Args),
    /// Assemble an LLVM-assembly listing into a DXIL container.
    As(cmd::assemble::Args),
    /// Translate a container's shader into SPIR-V for Vulkan.
    ToSpirv(cmd::translate::Args),
    /// Translate a SPIR-V module (Vulkan) into a signed DXIL container.
    FromSpirv(cmd::from_spirv::Args),
    /// Change specialization constants of a patchable container in place and re-sign it.
    Spec(cmd::spec::Args),
    /// Print the bitstream of a container's DXIL part (blocks and records), for debugging.
    Dump(cmd::dump::Args),
    /// Print a root signature and the Vulkan layout it maps to; optionally write it as a container.
    Rootsig(cmd::rootsig::Args),
    /// Run a conformance case (a compute shader with D3D12 semantics) on a Vulkan device.
    Run(cmd::run::Args),
    /// Measure our SPIR-V against DXC's: the GPU benchmark suite, corpus sizes, pipeline creation.
    Bench(cmd::bench::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => cmd::info::run(a),
        Command::Dis(a) => cmd::dis::run(a),
        Command::As(a) => cmd::assemble::run(a),
        Command::ToSpirv(a) => cmd::translate::run(a),
        Command::FromSpirv(a) => cmd::from_spirv::run(a),
        Command::Spec(a) => cmd::spec::run(a),
        Command::Dump(a) => cmd::dump::run(a),
        Command::Rootsig(a) => cmd::rootsig::run(a),
        Command::Run(a) => return cmd::run::run(a),
        Command::Bench(a) => return cmd::bench::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
