//! `mg_lchain_dp` batches on the GPU: kernels/chain_dp.cu computes the fill (`f`, `p`, `v`, `t`; one warp per
//! job, eight warps per job of `WIDE_MIN_ANCHORS` or more, so that the longest reads do not set the launch's
//! length alone; longest jobs first), the CPU runs the twin's backtrack and compaction on it (`twin::finish`), so the
//! result is bit-exact with `twin::lchain_dp`.
//!
//! Anchors go up and `f`, `p`, `v` come back through page-locked buffers kept by the runtime (pageable copies
//! of 15M anchors' arrays took 0.3 s of a 0.6 s batch on the H100). A batch runs as a few launches queued one
//! ahead: while the CPU backtracks one launch's jobs, the GPU fills the next one's.
//!
//! `WARPALIGN_CHAIN_GPU_PROFILE=1` prints each launch's size and its host, transfer and kernel times on stderr.

use super::twin::{self, Fill, Params};
use super::{ChainDpJob, ChainDpResult};
use crate::gpu::GpuRuntime;
use cudarc::driver::{CudaEvent, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;
use std::time::Instant;

const MODULE_NAME: &str = "chain_dp";
/// Ints per job in the kernel's parameter table (`NPAR` in chain_dp.cu).
const NPAR: usize = 10;
/// Anchors per launch, to bound device memory (32 bytes each); a larger job runs alone.
const LAUNCH_ANCHORS: usize = 1 << 25;
/// A batch is cut into about this many launches, so that the CPU's backtrack of one overlaps the GPU's fill
/// of the next,
const PIPELINE_LAUNCHES: usize = 4;
/// but no launch is cut smaller than this many anchors (a launch's fixed costs).
const MIN_LAUNCH_ANCHORS: usize = 1 << 20;
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

/// The fill's arrays a launch brings back: `f` and `p` (all the backtrack reads), or all four (tests, benches).
#[derive(Clone, Copy, PartialEq)]
enum Download {
    FP,
    All,
}

/// What one launch brought back: its arrays (see [`Download`]), back to back in a page-locked buffer (each an
/// i32 array of `total`, in the order f, p, v, t), the jobs' offsets into them and their counters.
struct Launched {
    buf: PinnedHostSlice<u8>,
    total: usize,
    off: Vec<i64>,
    cnt: Vec<u64>,
}

impl Launched {
    /// Array `k` (0 f, 1 p, 2 v, 3 t) of the launch's job `j` (whose job has `n` anchors).
    fn array(&self, k: usize, j: usize, n: usize) -> &[i32] {
        let bytes = self.buf.as_slice().expect("a launch's download has completed");
        // SAFETY: the buffer is page-aligned and holds i32 arrays of `total` elements from offset 0.
        let all = unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<i32>(), bytes.len() / 4) };
        let lo = k * self.total + self.off[j] as usize;
        &all[lo..lo + n]
    }
}

/// Runs `each(job index, launch, index in the launch)` for every job with anchors, in parallel, launch by
/// launch.
fn for_each_launched(
    rt: &GpuRuntime,
    jobs: &[ChainDpJob],
    download: Download,
    each: &(dyn Fn(usize, &Launched, usize) + Sync),
) -> Result<(), String> {
    let module = rt.module(MODULE_NAME)?;
    let func = module.load_function("chain_fill").map_err(|e| format!("loading chain_fill: {e:?}"))?;
    let sms = rt
        .context()
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(|e| format!("device attribute: {e:?}"))? as usize;
    let profile = std::env::var("WARPALIGN_CHAIN_GPU_PROFILE").is_ok_and(|v| v.trim() != "0" && !v.is_empty());
    let todo: Vec<usize> = (0..jobs.len()).filter(|&i| jobs[i].n_anchors > 0).collect();
    let all: usize = todo.iter().map(|&i| jobs[i].n_anchors as usize).sum();
    let cap = (all / PIPELINE_LAUNCHES).clamp(MIN_LAUNCH_ANCHORS, LAUNCH_ANCHORS);
    let mut parts = Vec::new();
    let mut start = 0;
    while start < todo.len() {
        let mut end = start;
        let mut total = 0usize;
        while end < todo.len() && (end == start || total + jobs[todo[end]].n_anchors as usize <= cap) {
            total += jobs[todo[end]].n_anchors as usize;
            end += 1;
        }
        parts.push((&todo[start..end], total));
        start = end;
    }
    let mut queued = match parts.first() {
        Some(&(idx, total)) => Some(enqueue(rt, &func, sms, jobs, idx, total, download)?),
        None => None,
    };
    for k in 0..parts.len() {
        let got = queued.take().expect("each launch is queued before it is waited for").wait(rt, profile)?;
        if let Some(&(idx, total)) = parts.get(k + 1) {
            queued = Some(enqueue(rt, &func, sms, jobs, idx, total, download)?);
        }
        let idx = parts[k].0;
        let t1 = Instant::now();
        idx.par_iter().enumerate().for_each(|(k, &i)| each(i, &got, k));
        if profile {
            eprintln!("chain gpu: results of {} jobs unpacked in {:.1} ms", idx.len(), t1.elapsed().as_secs_f64() * 1e3);
        }
        rt.give_staging(got.buf);
    }
    Ok(())
}

/// The fill of every job, as `twin::fill` returns it (counters included).
pub fn fill_batch_gpu(rt: &GpuRuntime, jobs: &[ChainDpJob]) -> Result<Vec<Fill>, String> {
    let fills: Vec<std::sync::Mutex<Fill>> = (0..jobs.len()).map(|_| Default::default()).collect();
    for_each_launched(rt, jobs, Download::All, &|i, l, k| {
        let n = jobs[i].n_anchors as usize;
        *fills[i].lock().unwrap_or_else(|e| e.into_inner()) = Fill {
            f: l.array(0, k, n).to_vec(),
            p: l.array(1, k, n).iter().map(|&x| x as i64).collect(),
            v: l.array(2, k, n).to_vec(),
            t: l.array(3, k, n).to_vec(),
            n_visited: l.cnt[3 * k],
            n_breaks: l.cnt[3 * k + 1],
            n_rescued: l.cnt[3 * k + 2],
        };
    })?;
    Ok(fills.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner())).collect())
}

/// A launch queued on the runtime's stream, with everything it uses until the stream has passed it.
struct Queued {
    up: PinnedHostSlice<u8>,
    down: PinnedHostSlice<u8>,
    total: usize,
    off: Vec<i64>,
    largest: i32,
    n_wide: usize,
    t0: Instant,
    t_host: std::time::Duration,
    events: [CudaEvent; 3],
    d_cnt: CudaSlice<u64>,
    _device: (CudaSlice<u64>, CudaSlice<i64>, Vec<CudaSlice<i32>>),
}

impl Queued {
    /// Waits for the launch (sleeping: a blocking-sync event) and takes what it brought back.
    fn wait(self, rt: &GpuRuntime, profile: bool) -> Result<Launched, String> {
        let err = |what: &str, e: cudarc::driver::DriverError| format!("chain gpu {what}: {e:?}");
        let [e0, e1, e2] = &self.events;
        e2.synchronize().map_err(|e| err("sync", e))?;
        let cnt = rt.stream().clone_dtoh(&self.d_cnt).map_err(|e| err("download", e))?;
        rt.give_staging(self.up);
        if profile {
            let kernel_ms = e0.elapsed_ms(e1).unwrap_or(f32::NAN);
            let down_ms = e1.elapsed_ms(e2).unwrap_or(f32::NAN);
            let pairs: u64 = cnt.iter().step_by(3).sum();
            eprintln!(
                "chain gpu: jobs {} ({} wide) anchors {} (largest {}) pairs {pairs}: host {:.1} ms, kernel {kernel_ms:.1} ms, download {down_ms:.1} ms, queued to done {:.1} ms",
                self.off.len(),
                self.n_wide,
                self.total,
                self.largest,
                self.t_host.as_secs_f64() * 1e3,
                self.t0.elapsed().as_secs_f64() * 1e3,
            );
        }
        Ok(Launched { buf: self.down, total: self.total, off: self.off, cnt })
    }
}

/// Queues one launch of the jobs `idx` (`total` anchors): upload, kernel, download.
fn enqueue(
    rt: &GpuRuntime,
    func: &cudarc::driver::CudaFunction,
    sms: usize,
    jobs: &[ChainDpJob],
    idx: &[usize],
    total: usize,
    download: Download,
) -> Result<Queued, String> {
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
    // the anchors back to back, as (x, y) words, written straight into a page-locked buffer
    let mut up = rt.take_staging(16 * total)?;
    {
        let bytes = up.as_mut_slice().map_err(|e| err("staging", e))?;
        // SAFETY: the buffer is page-aligned and holds at least 2 * total u64s.
        let words = unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<u64>(), 2 * total) };
        let mut rest: &mut [u64] = words;
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
    // SAFETY: filled by the copy right after.
    let mut d_a = unsafe { st.alloc::<u64>(2 * total) }.map_err(|e| err("alloc", e))?;
    {
        let (dst, _record) = d_a.device_ptr_mut(st);
        let bytes = up.as_slice().map_err(|e| err("staging", e))?;
        // SAFETY: dst holds 16 * total bytes; the staging buffer stays unchanged until the stream is waited on.
        unsafe { cudarc::driver::result::memcpy_htod_async(dst, &bytes[..16 * total], st.cu_stream()) }
            .map_err(|e| err("upload", e))?;
    }
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
    let e1 = st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| err("event", e))?;
    // the arrays asked for into one page-locked buffer, queued behind the kernel
    let arrays = if download == Download::All { 4 } else { 2 };
    let mut down = rt.take_staging(4 * arrays * total)?;
    {
        let bytes = down.as_mut_slice().map_err(|e| err("staging", e))?;
        // SAFETY: the buffer is page-aligned and holds at least arrays * total i32s.
        let all = unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<i32>(), arrays * total) };
        for (k, dst) in all.chunks_exact_mut(total.max(1)).take(arrays).enumerate() {
            let src = [&d_f, &d_p, &d_v, &d_t][k];
            let (ptr, _record) = src.device_ptr(st);
            // SAFETY: src holds `total` i32s and dst as many; dst is not read until the stream is waited on.
            unsafe { cudarc::driver::result::memcpy_dtoh_async(&mut dst[..total], ptr, st.cu_stream()) }
                .map_err(|e| err("download", e))?;
        }
    }
    // blocking sync: a default event's wait spins a core
    let e2 = st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC)).map_err(|e| err("event", e))?;
    Ok(Queued {
        up,
        down,
        total,
        off,
        largest: cnt_n.iter().copied().max().unwrap_or(0),
        n_wide,
        t0,
        t_host,
        events: [e0, e1, e2],
        d_cnt,
        _device: (d_a, d_off, vec![d_f, d_p, d_v, d_t, d_n, d_par, d_order, d_next]),
    })
}

/// `mg_lchain_dp` for every job: the fill on the GPU, backtrack and compaction on the CPU (all cores, from the
/// downloaded `f` and `p` with per-thread scratch), each job as soon as its launch is back. `results[i]` is overwritten (not freed first).
pub fn dp_batch_gpu(rt: &GpuRuntime, jobs: &[ChainDpJob], results: &mut [ChainDpResult]) -> Result<(), String> {
    if jobs.len() != results.len() {
        return Err(format!("{} jobs but {} results", jobs.len(), results.len()));
    }
    let outs: Vec<std::sync::Mutex<&mut ChainDpResult>> = results.iter_mut().map(std::sync::Mutex::new).collect();
    for (j, o) in jobs.iter().zip(&outs) {
        if j.n_anchors <= 0 {
            **o.lock().unwrap_or_else(|e| e.into_inner()) = ChainDpResult::EMPTY;
        }
    }
    thread_local! {
        static SCRATCH: std::cell::RefCell<(Vec<i32>, Vec<i32>)> = Default::default();
    }
    for_each_launched(rt, jobs, Download::FP, &|i, l, k| {
        let n = jobs[i].n_anchors as usize;
        SCRATCH.with_borrow_mut(|(v, t)| {
            v.resize(n, 0);
            t.resize(n, 0);
            let out = &mut **outs[i].lock().unwrap_or_else(|e| e.into_inner());
            twin::finish_with(&jobs[i], l.array(0, k, n), l.array(1, k, n), &mut v[..n], &mut t[..n], out);
        });
    })
}
