//! `dxil bench`: measure the SPIR-V this project generates against DXC's own.
//!
//! * `dxil bench kernels [SUITE]`: the GPU benchmark suite (`bench/gpu/suite.toml`): each kernel
//!   under each route (DXC's SPIR-V, ours, the reference translator's where its module exists),
//!   checked against the kernel's case, and with `--time N` timed with GPU timestamps, routes
//!   alternated over rounds in one process, with ratios to DXC's route and their geometric mean.
//! * `dxil bench corpus [DIR]`: over every compute shader of the corpus that has DXC's `.spv`,
//!   our module's size against DXC's, and with `--pipelines` the driver's pipeline creation time
//!   for both modules side by side.

mod corpus;
mod kernels;

pub use corpus::CorpusArgs;
pub use kernels::KernelsArgs;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Run (and with --time, time) the GPU benchmark suite under each route.
    Kernels(KernelsArgs),
    /// Our SPIR-V's size (and with --pipelines its pipeline creation time) against DXC's over the
    /// corpus's compute shaders.
    Corpus(CorpusArgs),
}

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

pub fn run(a: Args) -> std::process::ExitCode {
    match a.command {
        Command::Kernels(k) => kernels::run(k),
        Command::Corpus(c) => corpus::run(c),
    }
}

/// The geometric mean of positive ratios (`None` when there are none).
pub fn geomean(ratios: &[f64]) -> Option<f64> {
    let logs: Vec<f64> = ratios
        .iter()
        .filter(|r| r.is_finite() && **r > 0.0)
        .map(|r| r.ln())
        .collect();
    if logs.is_empty() {
        return None;
    }
    let n = logs.len() as f64;
    Some((logs.iter().sum::<f64>() / n).exp())
}

/// The median of a set of numbers (`None` when empty); the mean of the middle two for an even
/// count.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => v.get(n / 2).copied(),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geomean_and_median() {
        assert_eq!(geomean(&[]), None);
        let g = geomean(&[2.0, 8.0]).unwrap();
        assert!((g - 4.0).abs() < 1e-12);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
