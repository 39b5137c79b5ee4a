//! `mg_lchain_dp` batches on the GPU: kernels/chain_dp.cu computes the fill (`f`, `p`, `v`, `t`; a warp per
//! job, longest jobs first), the CPU runs the twin's backtrack and compaction on it (`twin::finish`), so the
//! result is bit-exact with `twin::lchain_dp`.
//!
//! A launch's length is its longest job's anchors times one anchor's latency, and most jobs end long before
//! it: so a batch is one launch (more only past `LAUNCH_ANCHORS`), the kernel writes each job's arrays into
//! page-locked host memory as the job ends and raises the job's flag there, and the CPU's workers backtrack
//! each job as soon as its flag is up, shortest (first ended) first, while the GPU goes on with the longer ones.
//! (Four launches of a quarter each, backtracked one while the next ran, took 2x as long on the H100: four
//! longest jobs in a row.)
//!
//! `WARPALIGN_CHAIN_GPU_PROFILE=1` prints each launch's size, its host, upload and kernel times and when its
//! last job was taken by the CPU, on stderr.

use super::twin::{self, Fill, Params};
use super::{ChainDpJob, ChainDpResult};
use crate::gpu::fault::{self, Step};
use crate::gpu::GpuRuntime;
use crate::memory::try_resize;
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MODULE_NAME: &str = "chain_dp";
crate::kernel_struct! {
    /// One job's parameters, as the kernel reads them (`ChainParams` in kernels/chain_dp.cu): the twin's
    /// clamped [`Params`], the penalties as `f32` bits.
    struct ChainParams { max_dist_x, max_dist_y, bw, max_skip, max_iter, n_seg, is_cdna, gap_bits, skip_bits }
}

/// The kernel's declaration of [`ChainParams`], for the test that compares them.
pub fn kernel_structs() -> [(&'static str, &'static [&'static str]); 1] {
    [("ChainParams", ChainParams::FIELDS)]
}

/// Ints per job in the kernel's parameter table.
const NPAR: usize = ChainParams::INTS;
/// Anchors per launch, to bound device memory (32 bytes each); a larger job runs alone.
const LAUNCH_ANCHORS: usize = 1 << 25;
/// Warps per block of the kernel (a warp per job).
const WARPS_PER_BLOCK: usize = 8;

/// What a staging buffer for `bytes` pins when none is kept: half again, so that launches growing slowly
/// do not pin anew each time.
fn grown(bytes: usize) -> usize {
    bytes + bytes / 2
}

fn par_of(j: &ChainDpJob) -> ChainParams {
    let p = Params::from_job(j);
    ChainParams {
        max_dist_x: p.max_dist_x,
        max_dist_y: p.max_dist_y,
        bw: p.job.bw,
        max_skip: p.job.max_skip,
        max_iter: p.job.max_iter,
        n_seg: p.job.n_seg,
        is_cdna: p.is_cdna as i32,
        gap_bits: p.job.chn_pen_gap.to_bits() as i32,
        skip_bits: p.job.chn_pen_skip.to_bits() as i32,
    }
}

/// The fill's arrays a launch brings back: `f` and `p` (all the backtrack reads), or all four (tests, benches).
#[derive(Clone, Copy, PartialEq)]
enum Download {
    FP,
    All,
}

/// A launch's page-locked buffers: those the kernel writes each job's results into as it ends (see
/// chain_fill's `out` and `info`), and the anchors uploaded.
struct Staged {
    /// the arrays asked for, back to back (each an i32 array of `total`, in the order f, p, v, t)
    out: PinnedHostSlice<u8>,
    /// per job: its done flag, then its three counters
    info: PinnedHostSlice<u8>,
    up: PinnedHostSlice<u8>,
}

/// A launch in flight: its page-locked buffers, and everything the stream uses until it has passed the launch.
struct Launched<'a> {
    /// None once [`Launched::finish`] has handed the buffers back.
    staged: Option<Staged>,
    st: &'a CudaStream,
    total: usize,
    off: Vec<i64>,
    /// the launch's jobs, longest first (the kernel's order)
    order: Vec<i32>,
    largest: i32,
    t0: Instant,
    t_host: Duration,
    events: [CudaEvent; 3],
    _device: (CudaSlice<u64>, CudaSlice<i64>, Vec<CudaSlice<i32>>),
}

impl Drop for Launched<'_> {
    fn drop(&mut self) {
        // Not finished (an error ended the batch): the stream may still read `up` and the kernel write `out` and
        // `info`, so they are freed only once it has passed them (a device writing freed memory faults, and the
        // fault spoils the context for every later batch).
        if self.staged.is_some() {
            let _ = self.st.synchronize();
        }
    }
}

impl Launched<'_> {
    fn staged(&self) -> &Staged {
        self.staged.as_ref().expect("a launch holds its buffers until finished")
    }

    fn words(&self) -> &[AtomicU64] {
        // SAFETY: page-aligned, 4 u64 per job, written by the device while the host reads: atomics.
        unsafe { std::slice::from_raw_parts(self.info_ptr().cast::<AtomicU64>(), 4 * self.off.len()) }
    }

    fn info_ptr(&self) -> *const u8 {
        self.staged().info.as_ptr().expect("a page-locked buffer with no copy queued")
    }

    /// Whether job `j` of the launch has ended and its results are all in `out` and `info`.
    fn is_done(&self, j: usize) -> bool {
        self.words()[4 * j].load(Ordering::Acquire) != 0
    }

    /// Job `j`'s counters: pairs scored in the main scan, skip breaks, rescues (once it is done).
    fn counters(&self, j: usize) -> [u64; 3] {
        let w = &self.words()[4 * j + 1..4 * j + 4];
        [0, 1, 2].map(|k| w[k].load(Ordering::Relaxed))
    }

    /// Array `k` (0 f, 1 p, 2 v, 3 t) of the launch's job `j` (whose job has `n` anchors), once it is done.
    fn array(&self, k: usize, j: usize, n: usize) -> &[i32] {
        let out = &self.staged().out;
        let bytes = out.as_ptr().expect("a page-locked buffer with no copy queued");
        let lo = k * self.total + self.off[j] as usize;
        assert!(4 * (lo + n) <= out.len());
        // SAFETY: in bounds (above) of the page-aligned buffer; the job's part was written before its flag, which
        // the caller has seen, and the device writes no more to it.
        unsafe { std::slice::from_raw_parts(bytes.cast::<i32>().add(lo), n) }
    }

    /// Waits for job `j`'s flag; an error if the kernel has stopped without raising it.
    fn wait_for(&self, j: usize) -> Result<(), String> {
        let mut spins = 0u32;
        while !self.is_done(j) {
            if spins < 1000 {
                spins += 1;
                std::hint::spin_loop();
                continue;
            }
            let ended = self.events[2].try_is_complete().map_err(|e| format!("chain gpu kernel: {e:?}"))?;
            if ended && !self.is_done(j) {
                return Err("chain gpu: the kernel ended without a job's results".into());
            }
            std::thread::sleep(Duration::from_micros(20));
        }
        Ok(())
    }

    /// Waits for the stream to pass the launch (errors included) and hands the buffers back.
    fn finish(mut self, rt: &GpuRuntime, profile: bool, t_taken: Duration, fault: &fault::Batch) -> Result<(), String> {
        let [e0, e1, e2] = &self.events;
        fault.check(Step::Sync)?;
        e2.synchronize().map_err(|e| format!("chain gpu sync: {e:?}"))?;
        if profile {
            let up_ms = e0.elapsed_ms(e1).unwrap_or(f32::NAN);
            let kernel_ms = e1.elapsed_ms(e2).unwrap_or(f32::NAN);
            let pairs: u64 = (0..self.off.len()).map(|j| self.counters(j)[0]).sum();
            eprintln!(
                "chain gpu: jobs {} anchors {} (largest {}) pairs {pairs}: host {:.1} ms, upload {up_ms:.1} ms, kernel {kernel_ms:.1} ms, all jobs taken {:.1} ms after the start",
                self.off.len(),
                self.total,
                self.largest,
                self.t_host.as_secs_f64() * 1e3,
                t_taken.as_secs_f64() * 1e3,
            );
        }
        let staged = self.staged.take().expect("a launch holds its buffers until finished");
        rt.give_staging(staged.up);
        rt.give_staging(staged.out);
        rt.give_staging(staged.info);
        Ok(())
    }
}

/// Runs `each(job index, launch, index in the launch)` for every job with anchors, on all cores, each job as
/// soon as the GPU has its results.
fn for_each_launched(
    rt: &GpuRuntime,
    jobs: &[ChainDpJob],
    download: Download,
    each: &(dyn Fn(usize, &Launched, usize) -> Result<(), String> + Sync),
) -> Result<(), String> {
    let module = rt.module(MODULE_NAME)?;
    let func = module.load_function("chain_fill").map_err(|e| format!("loading chain_fill: {e:?}"))?;
    let sms = rt
        .context()
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(|e| format!("device attribute: {e:?}"))? as usize;
    let profile = crate::env::CHAIN_GPU_PROFILE.get().unwrap_or(false);
    // One stream for the batch: its launches queue behind one another, the upload of one during the other.
    // Urgent: its caller waits for it (minimap2's mapping step), while ksw batches computed ahead fill the GPU.
    let st = rt.lease_urgent_stream()?;
    let todo: Vec<usize> = (0..jobs.len()).filter(|&i| jobs[i].n_anchors > 0).collect();
    let anchors = |k: usize| jobs[todo[k]].n_anchors as usize;
    let parts: Vec<(&[usize], usize)> = crate::gpu::launches(todo.len(), usize::MAX, [LAUNCH_ANCHORS], |k| [anchors(k)])
        .into_iter()
        .map(|r| (&todo[r.clone()], r.map(anchors).sum()))
        .collect();
    let fault = if todo.is_empty() { fault::Batch::default() } else { fault::batch(fault::Engine::Chain) };
    let mut queued = match parts.first() {
        Some(&(idx, total)) => Some(enqueue(rt, &st, &func, sms, jobs, idx, total, download, &fault)?),
        None => None,
    };
    for k in 0..parts.len() {
        let l = queued.take().expect("each launch is queued before it is taken");
        if let Some(&(idx, total)) = parts.get(k + 1) {
            queued = Some(enqueue(rt, &st, &func, sms, jobs, idx, total, download, &fault)?);
        }
        let idx = parts[k].0;
        // jobs end about shortest first: the workers take them in that order, each waiting for its job's flag
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let error = std::sync::Mutex::new(None);
        // one task per worker; a worker busy elsewhere (another caller's batch) just takes none
        (0..rayon::current_num_threads()).into_par_iter().for_each(|_| loop {
            let r = next.fetch_add(1, Ordering::Relaxed);
            if r >= idx.len() || failed.load(Ordering::Relaxed) {
                return;
            }
            let j = l.order[idx.len() - 1 - r] as usize;
            let done = rt.context().bind_to_thread().map_err(|e| format!("chain gpu: {e:?}")).and_then(|_| l.wait_for(j));
            if let Err(e) = done.and_then(|_| each(idx[j], &l, j)) {
                failed.store(true, Ordering::Relaxed);
                *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                return;
            }
        });
        let t_taken = l.t0.elapsed();
        // the stream's own error, if any, says more than a missing flag
        l.finish(rt, profile, t_taken, &fault)?;
        if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
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
            n_visited: l.counters(k)[0],
            n_breaks: l.counters(k)[1],
            n_rescued: l.counters(k)[2],
        };
        Ok(())
    })?;
    Ok(fills.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner())).collect())
}

/// Queues one launch of the jobs `idx` (`total` anchors): upload, kernel (which hands each job's results over as
/// it ends).
#[allow(clippy::too_many_arguments)]
fn enqueue<'a>(
    rt: &GpuRuntime,
    st: &'a Arc<CudaStream>,
    func: &cudarc::driver::CudaFunction,
    sms: usize,
    jobs: &[ChainDpJob],
    idx: &[usize],
    total: usize,
    download: Download,
    fault: &fault::Batch,
) -> Result<Launched<'a>, String> {
    let err = |what: &str, e: cudarc::driver::DriverError| format!("chain gpu {what}: {e:?}");
    let t0 = Instant::now();
    let nj = idx.len();
    let mut off = Vec::with_capacity(nj);
    let mut cnt_n = Vec::with_capacity(nj);
    let mut par = Vec::with_capacity(nj * NPAR);
    let mut o = 0i64;
    for &i in idx {
        off.push(o);
        cnt_n.push(jobs[i].n_anchors as i32);
        par.extend_from_slice(par_of(&jobs[i]).as_ints());
        o += jobs[i].n_anchors;
    }
    // the anchors back to back, as (x, y) words, written straight into a page-locked buffer
    let mut up = rt.take_staging(16 * total, grown(16 * total))?;
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
    // results and flags, written by the kernel; flags down before it starts
    let arrays = if download == Download::All { 4 } else { 2 };
    let out = rt.take_staging(4 * arrays * total, grown(4 * arrays * total))?;
    let mut info = rt.take_staging(32 * nj, grown(32 * nj))?;
    info.as_mut_slice().map_err(|e| err("staging", e))?[..32 * nj].fill(0);
    let t_host = t0.elapsed();
    let staged = Staged { out, info, up };
    let queue = || {
        let e0 = st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| err("event", e))?;
        fault.check(Step::Alloc)?;
        // SAFETY: filled by the copy right after.
        let mut d_a = unsafe { st.alloc::<u64>(2 * total) }.map_err(|e| err("alloc", e))?;
        {
            let (dst, _record) = d_a.device_ptr_mut(st);
            let bytes = staged.up.as_slice().map_err(|e| err("staging", e))?;
            fault.check(Step::Copy)?;
            // SAFETY: dst holds 16 * total bytes; the staging buffer stays unchanged until the stream is waited on.
            unsafe { cudarc::driver::result::memcpy_htod_async(dst, &bytes[..16 * total], st.cu_stream()) }
                .map_err(|e| err("upload", e))?;
        }
        let d_off = st.clone_htod(&off).map_err(|e| err("upload", e))?;
        let d_n = st.clone_htod(&cnt_n).map_err(|e| err("upload", e))?;
        let d_par = st.clone_htod(&par).map_err(|e| err("upload", e))?;
        let d_order = st.clone_htod(&order).map_err(|e| err("upload", e))?;
        // SAFETY: the kernel writes f, p and v of every anchor before any read; t is read, so it is zeroed.
        let mut d_f = unsafe { st.alloc::<i32>(total) }.map_err(|e| err("alloc", e))?;
        let mut d_p = unsafe { st.alloc::<i32>(total) }.map_err(|e| err("alloc", e))?;
        let mut d_v = unsafe { st.alloc::<i32>(total) }.map_err(|e| err("alloc", e))?;
        let mut d_t = st.alloc_zeros::<i32>(total).map_err(|e| err("alloc", e))?;
        let mut d_next = st.alloc_zeros::<i32>(1).map_err(|e| err("alloc", e))?;
        let e1 = st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(|e| err("event", e))?;
        // persistent warps, as many as the device holds and the jobs need
        let blocks = nj.div_ceil(WARPS_PER_BLOCK).min(sms * 8);
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (32 * WARPS_PER_BLOCK as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        // page-locked memory has the same address on the device (unified addressing)
        let out_ptr = staged.out.as_ptr().map_err(|e| err("staging", e))? as u64;
        let info_ptr = staged.info.as_ptr().map_err(|e| err("staging", e))? as u64;
        let (nj_, total_, arrays_) = (nj as i32, total as i64, arrays as i32);
        {
            let mut l = st.launch_builder(func);
            l.arg(&d_a).arg(&d_off).arg(&d_n).arg(&d_par).arg(&d_order).arg(&nj_);
            l.arg(&mut d_f).arg(&mut d_p).arg(&mut d_v).arg(&mut d_t).arg(&mut d_next);
            l.arg(&out_ptr).arg(&total_).arg(&arrays_).arg(&info_ptr);
            fault.check(Step::Launch)?;
            // SAFETY: the arguments match chain_fill's signature; every per-anchor buffer holds `total` elements
            // and the job tables `nj` (par one ChainParams per job), as the offsets above index them; out holds `arrays`
            // arrays of `total` i32s and info 4 u64 per job, page-locked, untouched by the host until a job's flag.
            unsafe { l.launch(cfg) }.map_err(|e| err("launch", e))?;
        }
        // blocking sync: a default event's wait spins a core
        let e2 = st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC)).map_err(|e| err("event", e))?;
        Ok(([e0, e1, e2], (d_a, d_off, vec![d_f, d_p, d_v, d_t, d_n, d_par, d_order, d_next])))
    };
    // after an error the stream may still read `up`: waited for before the buffers are freed (as in `Launched`)
    let (events, device) = queue().inspect_err(|_: &String| {
        let _ = st.synchronize();
    })?;
    Ok(Launched {
        staged: Some(staged),
        st,
        total,
        off,
        order,
        largest: cnt_n.iter().copied().max().unwrap_or(0),
        t0,
        t_host,
        events,
        _device: device,
    })
}

/// `mg_lchain_dp` for every job: the fill on the GPU, backtrack and compaction on the CPU (all cores, from the
/// downloaded `f` and `p` with per-thread scratch), each job as soon as its launch is back. `results[i]` is
/// overwritten (not freed first); on an error every result is left empty.
pub fn dp_batch_gpu(rt: &GpuRuntime, jobs: &[ChainDpJob], results: &mut [ChainDpResult]) -> Result<(), String> {
    if jobs.len() != results.len() {
        return Err(format!("{} jobs but {} results", jobs.len(), results.len()));
    }
    results.iter_mut().for_each(|r| *r = ChainDpResult::EMPTY);
    let outs: Vec<std::sync::Mutex<&mut ChainDpResult>> = results.iter_mut().map(std::sync::Mutex::new).collect();
    thread_local! {
        static SCRATCH: std::cell::RefCell<(Vec<i32>, Vec<i32>)> = Default::default();
    }
    let ran = for_each_launched(rt, jobs, Download::FP, &|i, l, k| {
        let n = jobs[i].n_anchors as usize;
        SCRATCH.with_borrow_mut(|(v, t)| {
            try_resize(v, n, 0)?;
            try_resize(t, n, 0)?;
            let out = &mut **outs[i].lock().unwrap_or_else(|e| e.into_inner());
            Ok(twin::finish_with(&jobs[i], l.array(0, k, n), l.array(1, k, n), &mut v[..n], &mut t[..n], out)?)
        })
    });
    drop(outs);
    if ran.is_err() {
        results.iter_mut().for_each(ChainDpResult::release);
    }
    ran
}
