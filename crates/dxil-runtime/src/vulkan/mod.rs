//! The Vulkan side: device creation and running a case.

mod compile;
mod device;
mod execute;
mod heap;
mod memory;
mod objects;
mod plan;
mod timing;

use std::time::Instant;

pub use device::{DeviceInfo, Runtime};

use crate::case::{Binding, Case};
use crate::expect;
use crate::reflect::reflect;
use crate::report::{Output, RunError, RunOptions, RunReport, ShaderModule, Timings};

impl Runtime {
    /// Runs `case` with `shader`: creates and fills its resources, binds them the way the case's
    /// binding model says, dispatches, reads everything back, checks the expectations and writes
    /// dumps when asked to.
    ///
    /// `Ok` means the run got as far as comparing ([`RunReport::exit_code`] is 0 or 1); `Err` means
    /// it could not be carried out (exit status 2).
    pub fn run(
        &self,
        case: &Case,
        shader: &ShaderModule,
        options: &RunOptions,
    ) -> Result<RunReport, RunError> {
        let mut reports = self.run_many(case, std::slice::from_ref(shader), options)?;
        reports
            .pop()
            .ok_or(RunError::Unsupported("no module to run".into()))
    }

    /// Runs `case` with each of `shaders`, one report each, in order. With
    /// [`RunOptions::timing`], a version-1 case runs every module on one set of resources, their
    /// timed repetitions interleaved ([`Timing`](crate::Timing)), so that the modules' times are
    /// comparable even when the GPU's clocks change during the run; otherwise the modules run one
    /// after another as [`Runtime::run`] runs each. Dumps are written after each module, so the
    /// last module's remain.
    pub fn run_many(
        &self,
        case: &Case,
        shaders: &[ShaderModule],
        options: &RunOptions,
    ) -> Result<Vec<RunReport>, RunError> {
        if self.is_poisoned() {
            return Err(RunError::Poisoned);
        }
        let reflections = shaders
            .iter()
            .map(|s| reflect(&s.words, &s.entry))
            .collect::<Result<Vec<_>, _>>()?;
        match &case.binding {
            Binding::Registers(resources) => {
                let dispatch = case
                    .dispatch
                    .ok_or_else(|| RunError::Binding("a version-1 case needs `dispatch`".into()))?;
                let plans = reflections
                    .iter()
                    .map(|r| plan::plan_registers(resources, dispatch, r))
                    .collect::<Result<Vec<_>, _>>()?;
                let modules: Vec<(&plan::Plan<'_>, &[u32], &str)> = plans
                    .iter()
                    .zip(shaders)
                    .zip(&reflections)
                    .map(|((p, s), r)| (p, &s.words[..], r.entry_point.as_str()))
                    .collect();
                let groups: Vec<&[(&plan::Plan<'_>, &[u32], &str)]> = if options.timing.is_some() {
                    vec![&modules[..]]
                } else {
                    modules.chunks(1).collect()
                };
                let mut reports = Vec::with_capacity(shaders.len());
                for group in groups {
                    let executed =
                        self.execute(group, options.timeout, options.timing, options.group_order)?;
                    let finish_started = Instant::now();
                    let names = plans.first().map_or(&[][..], |p| &p.buffers[..]);
                    for (k, bytes) in executed.outputs.into_iter().enumerate() {
                        let outputs = names
                            .iter()
                            .zip(bytes)
                            .map(|(b, bytes)| Output {
                                name: b.name.clone(),
                                file_stem: b.file_stem.clone(),
                                bytes,
                            })
                            .collect();
                        let phases = Phases {
                            setup: executed.setup,
                            pipeline: executed.pipelines.get(k).copied().unwrap_or_default(),
                            execute: executed.execute,
                            teardown: executed.teardown,
                            dispatch_times: executed
                                .dispatch_times
                                .get(k)
                                .cloned()
                                .unwrap_or_default(),
                        };
                        reports.push(self.finish(
                            case,
                            outputs,
                            phases,
                            finish_started,
                            options,
                        )?);
                    }
                }
                Ok(reports)
            }
            Binding::RootSignature(heap) => {
                let mut reports = Vec::with_capacity(shaders.len());
                for (shader, reflection) in shaders.iter().zip(&reflections) {
                    let executed =
                        self.execute_heap(case, heap, &shader.words, reflection, options)?;
                    let finish_started = Instant::now();
                    let outputs: Vec<Output> = heap
                        .memories
                        .iter()
                        .zip(executed.outputs)
                        .map(|(m, bytes)| Output {
                            name: m.name.clone(),
                            file_stem: m.name.clone(),
                            bytes,
                        })
                        .collect();
                    let phases = Phases {
                        setup: executed.setup,
                        pipeline: executed.pipeline,
                        execute: executed.execute,
                        teardown: executed.teardown,
                        dispatch_times: executed.dispatch_times,
                    };
                    reports.push(self.finish(case, outputs, phases, finish_started, options)?);
                }
                Ok(reports)
            }
        }
    }

    /// Checks the expectations against a module's outputs and writes the dumps.
    fn finish(
        &self,
        case: &Case,
        outputs: Vec<Output>,
        phases: Phases,
        finish_started: Instant,
        options: &RunOptions,
    ) -> Result<RunReport, RunError> {
        // Expectation targets index the case's resources; planned buffers skip samplers, so
        // match them up by name.
        let mismatches = case
            .expects
            .iter()
            .filter_map(|e| {
                let name = case.target_name(e.target);
                let bytes = outputs
                    .iter()
                    .find(|o| o.name == name)
                    .map_or(&[][..], |o| &o.bytes[..]);
                expect::check(&name, &e.values, bytes)
            })
            .collect();

        if let Some(dir) = &options.dump_dir {
            std::fs::create_dir_all(dir).map_err(|source| RunError::Dump {
                path: dir.clone(),
                source,
            })?;
            for o in &outputs {
                // Memory names come from the case file; never let one leave the dump folder.
                if !is_plain_file_stem(&o.file_stem) {
                    return Err(RunError::Dump {
                        path: dir.join(&o.file_stem),
                        source: std::io::Error::new(
                            std::io::ErrorKind::InvalidInput,
                            "the name is not a plain file name (letters, digits, `_`, `-`, `.`, not starting with `.`)",
                        ),
                    });
                }
                let path = dir.join(format!("{}.bin", o.file_stem));
                std::fs::write(&path, &o.bytes)
                    .map_err(|source| RunError::Dump { path, source })?;
            }
        }

        Ok(RunReport {
            device: self.device_info().name.clone(),
            outputs,
            mismatches,
            timings: Timings {
                setup: phases.setup,
                pipeline: phases.pipeline,
                execute: phases.execute,
                finish: phases.teardown + finish_started.elapsed(),
            },
            dispatch_times: phases.dispatch_times,
        })
    }
}

/// The timings of a module's run.
struct Phases {
    setup: std::time::Duration,
    pipeline: std::time::Duration,
    execute: std::time::Duration,
    teardown: std::time::Duration,
    dispatch_times: Vec<std::time::Duration>,
}

/// Whether `stem` names a file inside the dump folder and nothing else.
fn is_plain_file_stem(stem: &str) -> bool {
    !stem.is_empty()
        && !stem.starts_with('.')
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::is_plain_file_stem;

    #[test]
    fn dump_names_stay_in_their_folder() {
        for ok in ["u0", "t1_space2", "dst", "out.v2", "a-b"] {
            assert!(is_plain_file_stem(ok), "{ok}");
        }
        for bad in ["", "..", "../x", "a/b", "a\\b", ".hidden", "sp ace", "é"] {
            assert!(!is_plain_file_stem(bad), "{bad}");
        }
    }
}
