//! The Vulkan side: device creation and running a case.

mod device;
mod execute;
mod plan;

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
        if self.is_poisoned() {
            return Err(RunError::Poisoned);
        }
        let reflection = reflect(&shader.words, &shader.entry)?;
        let plan = match &case.binding {
            Binding::Registers(resources) => {
                let dispatch = case
                    .dispatch
                    .ok_or_else(|| RunError::Binding("a version-1 case needs `dispatch`".into()))?;
                plan::plan_registers(resources, dispatch, &reflection)?
            }
            Binding::RootSignature(_) => {
                return Err(RunError::Unsupported(
                    "version 2 cases (root signature, heaps, root arguments) cannot be run yet"
                        .into(),
                ));
            }
        };
        let executed = self.execute(
            &plan,
            &shader.words,
            &reflection.entry_point,
            options.timeout,
        )?;
        let finish_started = Instant::now();

        let outputs: Vec<Output> = plan
            .buffers
            .iter()
            .zip(executed.outputs)
            .map(|(b, bytes)| Output {
                name: b.name.clone(),
                file_stem: b.file_stem.clone(),
                bytes,
            })
            .collect();

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
                setup: executed.setup,
                execute: executed.execute,
                finish: finish_started.elapsed(),
            },
        })
    }
}
