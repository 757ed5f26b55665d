//! Recording a run's dispatches: once (a plain run on host-visible memory), or timed
//! ([`Timing`]): upload from the staging twins, warm-up and timed repetitions each on restored
//! initial contents with a GPU timestamp before and after, and the read-back.
//!
//! Both timestamps are written at `BOTTOM_OF_PIPE`, so the first waits for the restoring copy
//! and the second for the dispatches: the difference is the repetition's GPU time, including the
//! launch of its dispatches but none of the copies around them.

use std::time::Duration;

use ash::vk;

use super::device::Runtime;
use super::execute::{Objects, vk_err};
use super::memory::Staging;
use crate::report::{RunError, Timing};

/// Every access a compute shader makes to buffers.
fn shader_access() -> vk::AccessFlags {
    vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::UNIFORM_READ
}

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

    /// Records one whole-buffer copy per `(source, destination, size)`.
    fn copy_all(&self, cb: vk::CommandBuffer, copies: &[(vk::Buffer, vk::Buffer, u64)]) {
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

    /// Records the case's dispatches into `cb` (in the recording state, pipeline and sets bound):
    /// `passes` records every pass once. Without `timing`, on host-visible buffers, that is all
    /// besides the host barriers; with it, see the module docs.
    pub(super) fn record_runs(
        &self,
        o: &mut Objects<'_>,
        cb: vk::CommandBuffer,
        timing: Option<Timing>,
        passes: &mut dyn FnMut(vk::CommandBuffer),
    ) -> Result<(), RunError> {
        let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
        let transfer = vk::PipelineStageFlags::TRANSFER;
        let host = vk::PipelineStageFlags::HOST;
        let Some(timing) = timing.filter(|_| o.device_local) else {
            self.barrier(
                cb,
                (host, vk::AccessFlags::HOST_WRITE),
                (compute, shader_access()),
            );
            passes(cb);
            self.barrier(
                cb,
                (compute, vk::AccessFlags::SHADER_WRITE),
                (host, vk::AccessFlags::HOST_READ),
            );
            return Ok(());
        };
        let total = timing.warmup.saturating_add(timing.dispatches);
        if timing.dispatches == 0 || total > Timing::MAX_REPETITIONS {
            return Err(RunError::Unsupported(format!(
                "{} timed dispatches and {} warm-up ones: between 1 and {} in all",
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
        let queries = timing.dispatches.saturating_mul(2);
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(queries);
        // SAFETY: valid device and create info; the pool is destroyed with `o`.
        o.query_pool = unsafe { self.device.create_query_pool(&info, None) }
            .map_err(vk_err("vkCreateQueryPool"))?;
        let d = &self.device;
        // SAFETY: a fresh pool of `queries` queries, reset before use, outside a render pass.
        unsafe { d.cmd_reset_query_pool(cb, o.query_pool, 0, queries) };

        self.barrier(
            cb,
            (host, vk::AccessFlags::HOST_WRITE),
            (transfer, vk::AccessFlags::TRANSFER_READ),
        );
        let pairs = |f: fn(vk::Buffer, &Staging) -> (vk::Buffer, vk::Buffer)| {
            o.buffers
                .iter()
                .zip(&o.staging)
                .map(|(&b, s)| {
                    let (src, dst) = f(b, s);
                    (src, dst, s.size)
                })
                .collect::<Vec<_>>()
        };
        let mut upload = pairs(|b, s| (s.host, b));
        upload.extend(pairs(|_, s| (s.host, s.pristine)));
        let restore = pairs(|b, s| (s.pristine, b));
        let download = pairs(|b, s| (b, s.host));
        self.copy_all(cb, &upload);
        let before_shaders = (compute, shader_access());
        self.barrier(
            cb,
            (transfer, vk::AccessFlags::TRANSFER_WRITE),
            before_shaders,
        );
        for rep in 0..total {
            if rep > 0 {
                // Restore the initial contents: the copy waits for the shaders' reads and writes.
                self.barrier(
                    cb,
                    (compute, shader_access()),
                    (transfer, vk::AccessFlags::TRANSFER_WRITE),
                );
                self.copy_all(cb, &restore);
                self.barrier(
                    cb,
                    (transfer, vk::AccessFlags::TRANSFER_WRITE),
                    before_shaders,
                );
            }
            let timed = rep.checked_sub(timing.warmup);
            let stamp = |q: u32| {
                // SAFETY: `q` < `queries` (two per timed repetition), reset above.
                unsafe {
                    d.cmd_write_timestamp(
                        cb,
                        vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                        o.query_pool,
                        q,
                    )
                };
            };
            if let Some(k) = timed {
                stamp(2 * k);
            }
            passes(cb);
            if let Some(k) = timed {
                stamp(2 * k + 1);
            }
        }
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
        Ok(())
    }

    /// The GPU time of each timed repetition, after the run's fence signalled.
    pub(super) fn read_timestamps(
        &self,
        o: &Objects<'_>,
        timing: Option<Timing>,
    ) -> Result<Vec<Duration>, RunError> {
        let Some(timing) = timing.filter(|_| o.device_local) else {
            return Ok(Vec::new());
        };
        let count = timing.dispatches.saturating_mul(2);
        let mut stamps = vec![0u64; usize::try_from(count).unwrap_or(0)];
        // SAFETY: the pool has `count` queries, all written by the submission whose fence the
        // caller waited for; 64-bit results into a slice of exactly that many.
        unsafe {
            self.device.get_query_pool_results(
                o.query_pool,
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

    /// How long the host may wait for a submission of `timing`'s repetitions when one dispatch
    /// may take `per_dispatch`.
    pub(super) fn submission_timeout(per_dispatch: Duration, timing: Option<Timing>) -> Duration {
        let reps = timing.map_or(1, |t| t.warmup.saturating_add(t.dispatches).max(1));
        per_dispatch.saturating_mul(reps)
    }
}
