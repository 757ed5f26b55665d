//! Submitting a run's dispatches: once on host-visible memory (a plain run), or timed
//! ([`Timing`]) on device-local memory, for one module or several interleaved.
//!
//! A timed run uploads the initial contents into each buffer's pristine copy, then warms up
//! (submissions of every module's dispatches until both the warm-up count and the warm-up time are
//! reached: a GPU that idled while the host prepared the run may need that long to raise its
//! clocks), then records every timed repetition in one submission: before each module's
//! dispatches the buffers are restored from their pristine copies and a timestamp is written,
//! after them another. Modules take turns within each repetition, starting with a different one
//! each time, so that a change of the GPU's clocks or any other drift during the run falls on all
//! of them alike. Finally each module runs once more on restored contents and its results are read
//! back, so every module is checked as in a plain run.
//!
//! Both timestamps are written at `BOTTOM_OF_PIPE`, so the first waits for the restoring copy
//! and the second for the dispatches: the difference is the repetition's GPU time, including the
//! launch of its dispatches but none of the copies around them.

use std::time::{Duration, Instant};

use ash::vk;

use super::device::Runtime;
use super::objects::{Objects, vk_err};
use crate::report::{RunError, Timing};

/// Every access a compute shader makes to buffers.
fn shader_access() -> vk::AccessFlags {
    vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::UNIFORM_READ
}

/// What the dispatches of a run gave.
pub(super) struct Flow {
    /// Host time from the submission of the (timed) work to its fence.
    pub execute: Duration,
    /// Per module: the final bytes of each buffer read back.
    pub outputs: Vec<Vec<Vec<u8>>>,
    /// Per module: the GPU time of each timed repetition (empty for a plain run).
    pub times: Vec<Vec<Duration>>,
}

/// `(source, destination, size)` whole-buffer copies.
type Copies = Vec<(vk::Buffer, vk::Buffer, u64)>;

impl Runtime {
    fn barrier(
        &self,
        cb: vk::CommandBuffer,
        (src_stage, src): (vk::PipelineStageFlags, vk::AccessFlags),
        (dst_stage, dst): (vk::PipelineStageFlags, vk::AccessFlags),
    ) {
        let b = vk::MemoryBarrier::default()
            .src_access_mask(src)
            .dst_access_mask(dst);
        // SAFETY: recording into a command buffer in the recording state, outside a render pass.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                src_stage,
                dst_stage,
                vk::DependencyFlags::empty(),
                &[b],
                &[],
                &[],
            );
        }
    }

    fn copy_all(&self, cb: vk::CommandBuffer, copies: &Copies) {
        for &(src, dst, size) in copies {
            let region = vk::BufferCopy {
                src_offset: 0,
                dst_offset: 0,
                size,
            };
            // SAFETY: both buffers are live, have the transfer usages and `size` bytes (a buffer
            // and its staging helpers are created with one size).
            unsafe { self.device.cmd_copy_buffer(cb, src, dst, &[region]) };
        }
    }

    /// Restores every buffer from its pristine copy, after any earlier shader access and before
    /// any later one.
    fn record_restore(&self, cb: vk::CommandBuffer, restore: &Copies) {
        let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
        let transfer = vk::PipelineStageFlags::TRANSFER;
        self.barrier(
            cb,
            (
                compute | transfer,
                shader_access() | vk::AccessFlags::TRANSFER_WRITE,
            ),
            (transfer, vk::AccessFlags::TRANSFER_WRITE),
        );
        self.copy_all(cb, restore);
        self.barrier(
            cb,
            (transfer, vk::AccessFlags::TRANSFER_WRITE),
            (compute, shader_access()),
        );
    }

    /// Runs the dispatches that `record(cb, m)` records for module `m` (binding its pipeline and
    /// descriptor sets too) and reads back the first `read` buffers of `o`: module 0 once without
    /// `timing`, every module timed and interleaved with it (see the module docs). `timeout` is
    /// the time one module's dispatches may take.
    pub(super) fn run_flow(
        &self,
        o: &mut Objects<'_>,
        read: usize,
        modules: usize,
        timing: Option<Timing>,
        timeout: Duration,
        record: &dyn Fn(vk::CommandBuffer, usize),
    ) -> Result<Flow, RunError> {
        let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
        let host = vk::PipelineStageFlags::HOST;
        let Some(timing) = timing.filter(|_| o.device_local) else {
            let cb = self.begin_commands(o)?;
            self.barrier(
                cb,
                (host, vk::AccessFlags::HOST_WRITE),
                (compute, shader_access()),
            );
            record(cb, 0);
            self.barrier(
                cb,
                (compute, vk::AccessFlags::SHADER_WRITE),
                (host, vk::AccessFlags::HOST_READ),
            );
            let execute = self.submit_and_wait(o, cb, timeout)?;
            return Ok(Flow {
                execute,
                outputs: vec![o.read_back(read)],
                times: vec![Vec::new()],
            });
        };
        let m = u32::try_from(modules.max(1)).unwrap_or(u32::MAX);
        let total = timing.warmup.saturating_add(timing.dispatches);
        if timing.dispatches == 0 || total.saturating_mul(m) > Timing::MAX_REPETITIONS {
            return Err(RunError::Unsupported(format!(
                "{} timed dispatches and {} warm-up ones of {m} modules: between 1 and {} in all",
                timing.dispatches,
                timing.warmup,
                Timing::MAX_REPETITIONS
            )));
        }
        if self.timestamp_bits == 0 {
            return Err(RunError::Unsupported(
                "the compute queue family has no timestamps".into(),
            ));
        }
        let pairs = |f: fn(vk::Buffer, &super::memory::Staging) -> (vk::Buffer, vk::Buffer)| {
            o.buffers
                .iter()
                .zip(&o.staging)
                .map(|(&b, s)| {
                    let (src, dst) = f(b, s);
                    (src, dst, s.size)
                })
                .collect::<Copies>()
        };
        let upload = pairs(|_, s| (s.host, s.pristine));
        let restore = pairs(|b, s| (s.pristine, b));
        let download = pairs(|b, s| (b, s.host));

        // Upload the initial contents.
        let cb = self.begin_commands(o)?;
        let transfer = vk::PipelineStageFlags::TRANSFER;
        self.barrier(
            cb,
            (host, vk::AccessFlags::HOST_WRITE),
            (transfer, vk::AccessFlags::TRANSFER_READ),
        );
        self.copy_all(cb, &upload);
        self.submit_and_wait(o, cb, timeout)?;

        // Warm up.
        let started = Instant::now();
        let mut done = 0u32;
        while done < timing.warmup.max(1) || started.elapsed() < timing.warmup_time {
            let cb = self.begin_commands(o)?;
            let batch = timing.warmup.clamp(1, 16);
            for _ in 0..batch {
                for k in 0..modules {
                    self.record_restore(cb, &restore);
                    record(cb, k);
                }
            }
            self.submit_and_wait(o, cb, timeout.saturating_mul(batch * m))?;
            done = done.saturating_add(batch);
        }

        // The timed repetitions, modules taking turns.
        let queries = timing.dispatches.saturating_mul(m).saturating_mul(2);
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(queries);
        // SAFETY: valid device and create info; the pool is destroyed with `o`.
        let pool = unsafe { self.device.create_query_pool(&info, None) }
            .map_err(vk_err("vkCreateQueryPool"))?;
        o.query_pools.push(pool);
        let cb = self.begin_commands(o)?;
        // SAFETY: a fresh pool of `queries` queries, reset before use, outside a render pass.
        unsafe { self.device.cmd_reset_query_pool(cb, pool, 0, queries) };
        let stamp = |q: u32| {
            // SAFETY: `q` < `queries` (two per module and timed repetition), reset above.
            unsafe {
                self.device.cmd_write_timestamp(
                    cb,
                    vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    pool,
                    q,
                );
            }
        };
        for rep in 0..timing.dispatches {
            for j in 0..m {
                let k = (rep + j) % m;
                self.record_restore(cb, &restore);
                stamp(2 * (rep * m + k));
                record(cb, k as usize);
                stamp(2 * (rep * m + k) + 1);
            }
        }
        let execute = self.submit_and_wait(o, cb, timeout.saturating_mul(timing.dispatches * m))?;
        let stamps = self.read_timestamps(pool, queries)?;
        let mut times = vec![Vec::new(); modules];
        for (i, d) in stamps.into_iter().enumerate() {
            if let Some(t) = times.get_mut(i % modules) {
                t.push(d);
            }
        }

        // Each module once more, read back.
        let mut outputs = Vec::with_capacity(modules);
        for k in 0..modules {
            let cb = self.begin_commands(o)?;
            self.record_restore(cb, &restore);
            record(cb, k);
            self.barrier(
                cb,
                (compute, vk::AccessFlags::SHADER_WRITE),
                (transfer, vk::AccessFlags::TRANSFER_READ),
            );
            self.copy_all(cb, &download);
            self.barrier(
                cb,
                (transfer, vk::AccessFlags::TRANSFER_WRITE),
                (host, vk::AccessFlags::HOST_READ),
            );
            self.submit_and_wait(o, cb, timeout)?;
            outputs.push(o.read_back(read));
        }
        Ok(Flow {
            execute,
            outputs,
            times,
        })
    }

    /// The differences of consecutive timestamp pairs, after the submission that wrote them
    /// finished.
    fn read_timestamps(&self, pool: vk::QueryPool, count: u32) -> Result<Vec<Duration>, RunError> {
        let mut stamps = vec![0u64; usize::try_from(count).unwrap_or(0)];
        // SAFETY: the pool has `count` queries, all written by a submission whose fence the
        // caller waited for; 64-bit results into a slice of exactly that many.
        unsafe {
            self.device.get_query_pool_results(
                pool,
                0,
                &mut stamps,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(vk_err("vkGetQueryPoolResults"))?;
        let mask = if self.timestamp_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.timestamp_bits) - 1
        };
        let period = f64::from(self.limits.timestamp_period);
        Ok(stamps
            .chunks_exact(2)
            .map(|p| {
                let ticks = p[1].wrapping_sub(p[0]) & mask;
                // Tick counts of one dispatch fit an f64 exactly for any realistic run.
                #[allow(clippy::cast_precision_loss)]
                Duration::from_secs_f64(ticks as f64 * period * 1e-9)
            })
            .collect())
    }
}
