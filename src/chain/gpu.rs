//! `mg_lchain_dp` batches on the GPU: kernels/chain_dp.cu computes the fill (`f`, `p`, `v`, `t`; one warp per
//! job, eight warps per job of `WIDE_MIN_ANCHORS` or more, so that the longest reads do not set the launch's
//! length alone; longest jobs first), the CPU runs the twin's backtrack and compaction on it (`twin::finish`), so the
//! result is bit-exact with `twin::lchain_dp`.
//!
//! `WARPALIGN_CHAIN_GPU_PROFILE=1` prints each launch's size and its host, transfer and kernel times on stderr.

use super::twin::{self, Fill, Params};
use super::{ChainDpJob, ChainDpResult};
use crate::gpu::GpuRuntime;
use cudarc::driver::{LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::time::Instant;

const MODULE_NAME: &str = "chain_dp";
/// Ints per job in the kernel's parameter table (`NPAR` in chain_dp.cu).
const NPAR: usize = 10;
/// Anchors per launch, to bound device memory (32 bytes each); a larger job runs alone.
const LAUNCH_ANCHORS: usize = 1 << 25;
/// Jobs from this many anchors on get eight warps each.
const WIDE_MIN_ANCHORS: i32 = 8192;

fn par_of(j: &ChainDpJob) -> [i32; NPAR] {
    let p = Params::from_job(j);
    [
        p.max_dist_x,
        p.max_dist_y,
        p.bw,
        p.max_skip,
        p.max_iter,
        p.n_seg,
        p.is_cdna as i32,
        p.chn_pen_gap.to_bits() as i32,
        p.chn_pen_skip.to_bits() as i32,
        0,
    ]
}

/// The fill of every job, as `twin::fill` returns it (counters included).
pub fn fill_batch_gpu(rt: &GpuRuntime, jobs: &[ChainDpJob]) -> Result<Vec<Fill>, String> {
    let mut fills: Vec<Fill> = (0..jobs.len()).map(|_| Fill::default()).collect();
    let module = rt.module(MODULE_NAME)?;
    let func = module.load_function("chain_fill").map_err(|e| format!("loading chain_fill: {e:?}"))?;
    let sms = rt
        .context()
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(|e| format!("device attribute: {e:?}"))? as usize;
    let profile = std::env::var("WARPALIGN_CHAIN_GPU_PROFILE").is_ok_and(|v| v.trim() != "0" && !v.is_empty());
    let todo: Vec<usize> = (0..jobs.len()).filter(|&i| jobs[i].n_anchors > 0).collect();
    let mut start = 0;
    while start < todo.len() {
        let mut end = start;
        let mut total = 0usize;
        while end < todo.len() && (end == start || total + jobs[todo[end]].n_anchors as usize <= LAUNCH_ANCHORS) {
            total += jobs[todo[end]].n_anchors as usize;
            end += 1;
        }
        launch(rt, &func, sms, jobs, &todo[start..end], total, &mut fills, profile)?;
        start = end;
    }
    Ok(fills)
}

#[allow(clippy::too_many_arguments)]
fn launch(
    rt: &GpuRuntime,
    func: &cudarc::driver::CudaFunction,
    sms: usize,
    jobs: &[ChainDpJob],
    idx: &[usize],
    total: usize,
    fills: &mut [Fill],
    profile: bool,
) -> Result<(), String> {
    let err = |what: &str, e: cudarc::driver::DriverError| format!("chain gpu {what}: {e:?}");
    let t0 = Instant::now();
    let st = rt.stream();
    let nj = idx.len();
    let mut off = Vec::with_capacity(nj);
    let mut cnt_n = Vec::with_capacity(nj);
    let mut par = Vec::with_capacity(nj * NPAR);
    let mut o = 0i64;
    for &i in idx {
        off.push(o);
        cnt_n.push(jobs[i].n_anchors as i32);
        par.extend_from_slice(&par_of(&jobs[i]));
        o += jobs[i].n_anchors;
    }
    // the anchors back to back, as (x, y) words
    let mut flat = vec![0u64; 2 * total];
    {
        let mut rest: &mut [u64] = &mut flat;
        let mut views = Vec::with_capacity(nj);
        for &i in idx {
            let (a, b) = rest.split_at_mut(2 * jobs[i].n_anchors as usize);
            views.push((i, a));
            rest = b;
        }
        views.into_par_iter().for_each(|(i, v)| {
            for (w, a) in v.chunks_exact_mut(2).zip(twin::job_anchors(&jobs[i])) {
                w[0] = a.x;
                w[1] = a.y;
            }
        });
    }
    // longest first: the longest jobs set the launch's length
    let mut order: Vec<i32> = (0..nj as i32).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(cnt_n[k as usize]));
    let n_wide = cnt_n.iter().filter(|&&n| n >= WIDE_MIN_ANCHORS).count();
    let t_host = t0.elapsed();
    let d_a = st.clone_htod(&flat).map_err(|e| err("upload", e))?;
    let d_off = st.clone_htod(&off).map_err(|e| err("upload", e))?;
    let d_n = st.clone_htod(&cnt_n).map_err(|e| err("upload", e))?;
    let d_par = st.clone_htod(&par).map_err(|e| err("upload", e))?;
    let d_order = st.clone_htod(&order).map_err(|e| err("upload", e))?;
    // SAFETY: the kernels write f, p and v of every anchor before any read; t is read, so it is zeroed.
    let mut d_f = unsafe { st.alloc::<i32>(total) }.map_err(|e| err("alloc", e))?;
    let mut d_p = unsafe { st.alloc::<i32>(total) }.map_err(|e| err("alloc", e))?;
    let mut d_v = unsafe { st.alloc::<i32>(total) }.map_err(|e| err("alloc", e))?;
    let mut d_t = st.alloc_zeros::<i32>(total).map_err(|e| err("alloc", e))?;
    let mut d_cnt = st.alloc_zeros::<u64>(3 * nj).map_err(|e| err("alloc", e))?;
    let mut d_next = st.alloc_zeros::<i32>(2).map_err(|e| err("alloc", e))?;
    let e0 = st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| err("event", e))?;
    // persistent blocks of 256 threads, as many as the device holds and the jobs need: one per long job
    // (a prefix of `order`), one per eight others
    let cap = sms * 8;
    let wide_blocks = n_wide.min(cap);
    let blocks = wide_blocks.max((wide_blocks + (nj - n_wide).div_ceil(8)).min(cap));
    let cfg = LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let (nw, nj_, wb) = (n_wide as i32, nj as i32, wide_blocks as i32);
    {
        let mut l = st.launch_builder(func);
        l.arg(&d_a).arg(&d_off).arg(&d_n).arg(&d_par).arg(&d_order).arg(&nw).arg(&nj_).arg(&wb);
        l.arg(&mut d_f).arg(&mut d_p).arg(&mut d_v).arg(&mut d_t).arg(&mut d_cnt).arg(&mut d_next);
        // SAFETY: the arguments match chain_fill's signature; every per-anchor buffer holds `total` elements
        // and the job tables `nj` (par NPAR per job), as the offsets above index them; next holds 2 counters.
        unsafe { l.launch(cfg) }.map_err(|e| err("launch", e))?;
    }
    // blocking sync: a default event's wait spins a core
    let e1 = st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC)).map_err(|e| err("event", e))?;
    e1.synchronize().map_err(|e| err("sync", e))?;
    let t_dev = t0.elapsed();
    let f = st.clone_dtoh(&d_f).map_err(|e| err("download", e))?;
    let p = st.clone_dtoh(&d_p).map_err(|e| err("download", e))?;
    let v = st.clone_dtoh(&d_v).map_err(|e| err("download", e))?;
    let t = st.clone_dtoh(&d_t).map_err(|e| err("download", e))?;
    let cnt = st.clone_dtoh(&d_cnt).map_err(|e| err("download", e))?;
    let t_down = t0.elapsed();
    let mut outs: Vec<(usize, &mut Fill)> = Vec::with_capacity(nj);
    {
        let mut want = idx.iter().peekable();
        for (i, fl) in fills.iter_mut().enumerate() {
            if want.peek() == Some(&&i) {
                want.next();
                outs.push((i, fl));
            }
        }
    }
    outs.into_par_iter().enumerate().for_each(|(k, (i, fl))| {
        let (lo, hi) = (off[k] as usize, off[k] as usize + jobs[i].n_anchors as usize);
        *fl = Fill {
            f: f[lo..hi].to_vec(),
            p: p[lo..hi].iter().map(|&x| x as i64).collect(),
            v: v[lo..hi].to_vec(),
            t: t[lo..hi].to_vec(),
            n_visited: cnt[3 * k],
            n_breaks: cnt[3 * k + 1],
            n_rescued: cnt[3 * k + 2],
        };
    });
    if profile {
        let kernel_ms = e0.elapsed_ms(&e1).unwrap_or(f32::NAN);
        let pairs: u64 = cnt.iter().step_by(3).sum();
        eprintln!(
            "chain gpu: jobs {nj} ({n_wide} wide) anchors {total} (largest {}) pairs {pairs}: host {:.1} ms, upload {:.1} ms, kernel {kernel_ms:.1} ms, download {:.1} ms, unpack {:.1} ms",
            cnt_n.iter().max().unwrap_or(&0),
            t_host.as_secs_f64() * 1e3,
            (t_dev - t_host).as_secs_f64() * 1e3 - kernel_ms as f64,
            (t_down - t_dev).as_secs_f64() * 1e3,
            (t0.elapsed() - t_down).as_secs_f64() * 1e3,
        );
    }
    Ok(())
}

/// `mg_lchain_dp` for every job: the fill on the GPU, backtrack and compaction on the CPU (all cores).
/// `results[i]` is overwritten (not freed first).
pub fn dp_batch_gpu(rt: &GpuRuntime, jobs: &[ChainDpJob], results: &mut [ChainDpResult]) -> Result<(), String> {
    if jobs.len() != results.len() {
        return Err(format!("{} jobs but {} results", jobs.len(), results.len()));
    }
    let fills = fill_batch_gpu(rt, jobs)?;
    fills.into_par_iter().zip(jobs.par_iter()).zip(results.par_iter_mut()).for_each(|((fl, j), r)| {
        twin::finish(j, fl, r);
    });
    Ok(())
}
