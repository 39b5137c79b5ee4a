//! `ksw_extd2_sse` and `ksw_exts2_sse` batches on the GPU (kernels/ksw.cu), bit-exact with the twins
//! (`twin::extd2`, `twin::exts2`).
//!
//! Per job the host takes the twin's own prologue (`twin::extd2_gaps`, `twin::exts2_gaps`: gap swap,
//! long_thres, long_diff, sc_N), adds the band width and traceback row size, and builds the s/sf/qr image
//! of the C allocation (for exts2 followed by the donor and acceptor signals). The kernel `ksw_extd2_dp` (`ksw_exts2_dp`) runs one
//! thread block per job with the band window in shared memory (`W` cells, a power of two over the widest
//! band; the `_g` kernels keep it in global memory when it does not fit); windows of up to 512 cells go to
//! the one-warp form `ksw_extd2_dpwN` (`ksw_exts2_dpwN`), the window in N = W / 128 registers a lane per array; `ksw_bt` backtracks one job per
//! thread over the traceback bytes kept in GPU memory, `ksw_pack` compacts the CIGARs. Jobs are grouped by window size; each group runs on its own stream and host thread
//! (wide jobs with 1024 threads per block, narrow ones with fewer, so that several share a multiprocessor),
//! largest jobs first, so that the groups overlap. Jobs the kernel does not take (degenerate sizes and the
//! early return, which the twin answers at once; `m > 16`; GENERIC_SC with a base code `>= m`; exts2 with
//! `e <= 0` or both splice strands, where upstream divides by zero or asserts; a job larger than the
//! memory budget) run on the twin, on the CPU, while the GPU works.
//!
//! `WARPALIGN_KSW_GPU_THREADS` caps the block size (32..=1024, multiple of 32; default 1024);
//! `WARPALIGN_KSW_GPU_CELLS` sets the block form's window cells per thread (4..=64, power of two; by default
//! [`block_threads`] picks 4 to 16 by the launch's size);
//! `WARPALIGN_KSW_GPU_WARP=0` runs the narrow windows in the block form too;
//! `WARPALIGN_KSW_GPU_PROFILE=1` prints each launch's size, kernel times and host phases, and each batch's
//! prepare step, on stderr;
//! `WARPALIGN_KSW_GPU_MEM_MB` caps the device memory one call uses (default: half of the free memory);
//! `WARPALIGN_GPU_HOST_THREADS` sets the threads that pack inputs and unpack results (default: a quarter
//! of the cores, at least 2).

use super::{flag, twin, KswExtd2Job, KswExts2Job, KswJob, KswResult};
use crate::env;
use crate::gpu::fault::{self, Step};
use crate::gpu::{GpuRuntime, LAUNCH_JOBS};
use cudarc::driver::{CudaFunction, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use std::sync::Arc;
use rayon::prelude::*;

crate::kernel_struct! {
    /// One job's parameters, as the kernels read them (`KswParams` in kernels/ksw.cu).
    struct KswParams {
        qlen, tlen, m, mat_off, q, e, q2, e2, qe_h, w, zdrop, end_bonus, flag, row_bytes, tt16, long_thres,
        long_diff, mch, mis, sc_n, win, min_intron, sig,
    }
}

crate::kernel_struct! {
    /// One job's result, as the kernels write it (`KswOut` in kernels/ksw.cu): `ksw_extz_t`'s fields.
    struct KswOut { max, zdropped, max_q, max_t, mqe, mqe_t, mte, mte_q, score, reach_end, n_cigar }
}

/// The kernels' declarations of [`KswParams`] and [`KswOut`], for the test that compares them.
pub fn kernel_structs() -> [(&'static str, &'static [&'static str]); 2] {
    [("KswParams", KswParams::FIELDS), ("KswOut", KswOut::FIELDS)]
}

const NP: usize = KswParams::INTS;
const NO: usize = 4;
const NR: usize = KswOut::INTS;
const MODULE_NAME: &str = "ksw";

struct Kernels {
    dp: CudaFunction,
    dp_g: CudaFunction,
    /// The one-warp form, for windows of 128, 256 and 512 cells.
    dpw: [CudaFunction; 3],
    bt: CudaFunction,
    cigar_offsets: CudaFunction,
    pack: CudaFunction,
    /// Dynamic shared memory one `dp` block may take.
    smem_max: usize,
    /// Threads the device holds resident at once (multiprocessors x threads a multiprocessor).
    resident_threads: usize,
}

/// The kernels of one kind: `ksw_extd2_dp(_g)` or `ksw_exts2_dp(_g)`, and the shared backtrack and pack.
fn kernels(rt: &GpuRuntime, splice: bool) -> Result<Kernels, String> {
    let module = rt.module(MODULE_NAME)?;
    let f = |n: &str| module.load_function(n).map_err(|e| format!("loading {n}: {e:?}"));
    let kind = if splice { "exts2" } else { "extd2" };
    let dp = f(&format!("ksw_{kind}_dp"))?;
    let optin = rt
        .context()
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .map_err(|e| format!("device attribute: {e:?}"))?;
    let stat = dp.shared_size_bytes().map_err(|e| format!("kernel attribute: {e:?}"))?;
    let smem_max = (optin - stat).max(0) as usize;
    dp.set_attribute(cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem_max as i32)
        .map_err(|e| format!("kernel attribute: {e:?}"))?;
    let dpw = [f(&format!("ksw_{kind}_dpw1"))?, f(&format!("ksw_{kind}_dpw2"))?, f(&format!("ksw_{kind}_dpw4"))?];
    let attr = |a| rt.context().attribute(a).map_err(|e| format!("device attribute: {e:?}"));
    use cudarc::driver::sys::CUdevice_attribute as A;
    let resident_threads =
        attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?.max(1) as usize * attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?.max(32) as usize;
    Ok(Kernels {
        dp,
        dp_g: f(&format!("ksw_{kind}_dp_g"))?,
        dpw,
        bt: f("ksw_bt")?,
        cigar_offsets: f("ksw_cigar_offsets")?,
        pack: f("ksw_pack")?,
        smem_max,
        resident_threads,
    })
}

/// A ksw call the kernels take (extd2 or exts2).
trait GpuJob: KswJob {
    const SPLICE: bool;
    /// The kernel's parameters, or None when the twin takes the job.
    fn prepare(&self, idx: usize, budget: usize, smem_max: usize) -> Option<Prep>;
    /// (query, target, mat); the caller guarantees the pointers cover qlen, tlen and m*m elements.
    fn parts(&self) -> (&[u8], &[u8], &[i8]);
    /// Writes the image beyond s/sf/qr (exts2: the splice signals).
    fn fill_extra(&self, _img: &mut [u8], _p: &Prep) {}
}

/// The job's sequences and matrix as slices (lengths as given; the caller guarantees them).
fn parts_of<'a>(qlen: i32, query: *const u8, tlen: i32, target: *const u8, m: i8, mat: *const i8) -> (&'a [u8], &'a [u8], &'a [i8]) {
    let sl = |p: *const u8, n: i32| if n > 0 { unsafe { std::slice::from_raw_parts(p, n as usize) } } else { &[][..] };
    let mm = (m.max(0) as usize).pow(2);
    (sl(query, qlen), sl(target, tlen), if mm > 0 { unsafe { std::slice::from_raw_parts(mat, mm) } } else { &[][..] })
}

/// Whether the kernels take a job of these sizes and codes (the kind's own limits aside).
fn kernel_takes(qlen: i32, tlen: i32, m: i8, flag_: i32, query: &[u8], target: &[u8]) -> bool {
    let m = m as i32;
    let sized = m > 1 && m <= 16 && qlen > 0 && tlen > 0 && (qlen as i64 + tlen as i64) < 1 << 27;
    sized && (flag_ & flag::GENERIC_SC == 0 || query.iter().chain(target).all(|&c| (c as i32) < m))
}

impl GpuJob for KswExtd2Job {
    const SPLICE: bool = false;
    fn prepare(&self, idx: usize, budget: usize, smem_max: usize) -> Option<Prep> {
        let (query, target, mat) = self.parts();
        if !kernel_takes(self.qlen, self.tlen, self.m, self.flag, query, target) {
            return None;
        }
        let g = twin::extd2_gaps(self, mat)?;
        let w = if self.w < 0 { self.tlen.max(self.qlen) } else { self.w };
        finish_prep(idx, self.qlen, self.tlen, self.m as i32, mat, w, self.zdrop, self.end_bonus, self.flag, g, false, budget, smem_max)
    }
    fn parts(&self) -> (&[u8], &[u8], &[i8]) {
        parts_of(self.qlen, self.query, self.tlen, self.target, self.m, self.mat)
    }
}

impl GpuJob for KswExts2Job {
    const SPLICE: bool = true;
    fn prepare(&self, idx: usize, budget: usize, smem_max: usize) -> Option<Prep> {
        let (query, target, mat) = self.parts();
        // the twin's early return; e <= 0 and both strands are upstream's division by zero and assert
        let both_strands = self.flag & flag::SPLICE_FOR != 0 && self.flag & flag::SPLICE_REV != 0;
        if !kernel_takes(self.qlen, self.tlen, self.m, self.flag, query, target)
            || self.q2 as i32 <= self.q as i32 + self.e as i32
            || self.e <= 0
            || both_strands
        {
            return None;
        }
        let g = twin::exts2_gaps(self, mat)?;
        // no band: w >= qlen + tlen makes the kernel's band test a no-op
        finish_prep(idx, self.qlen, self.tlen, self.m as i32, mat, self.qlen + self.tlen, self.zdrop, self.end_bonus, self.flag, g, true, budget, smem_max)
    }
    fn parts(&self) -> (&[u8], &[u8], &[i8]) {
        parts_of(self.qlen, self.query, self.tlen, self.target, self.m, self.mat)
    }
    fn fill_extra(&self, img: &mut [u8], p: &Prep) {
        let (_, target, _) = self.parts();
        // SAFETY: the caller guarantees junc, when not null, covers tlen bytes.
        let junc = (!self.junc.is_null()).then(|| unsafe { std::slice::from_raw_parts(self.junc, self.tlen as usize) });
        let sig = p.par.sig as usize;
        let (don, acc) = img[sig..sig + 2 * p.tt16].split_at_mut(p.tt16);
        // SAFETY: u8 and i8 have the same size and alignment, and every bit pattern is valid for both.
        let as_i8 = |b: &mut [u8]| unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr() as *mut i8, b.len()) };
        twin::splice_signals(self.flag, target, junc, self.noncan, self.junc_bonus, self.junc_pen, as_i8(don), as_i8(acc));
    }
}

/// A job prepared for the kernel.
struct Prep {
    idx: usize,
    par: KswParams,
    tt16: usize,
    img_bytes: usize,
    p_bytes: usize,
    cig_cap: usize,
    /// Whether the band window is in global memory (the `_g` kernels).
    global: bool,
}

impl Prep {
    fn win(&self) -> usize {
        self.par.win as usize
    }
    /// Bytes of the band window: 10 per cell, 14 with the exact max's H.
    fn win_bytes(&self) -> usize {
        win_bytes(self.win(), self.par.flag & flag::APPROX_MAX == 0)
    }
    /// Device bytes this job needs in a launch.
    fn dev_bytes(&self) -> usize {
        let ws = if self.global { self.win_bytes() } else { 0 };
        self.img_bytes + ws + self.p_bytes + 8 * self.cig_cap + 4 * NR + 4 * NP + 8 * NO + 256
    }
    /// Band cells, to order jobs longest first.
    fn work(&self) -> u64 {
        (self.par.qlen as u64 + self.par.tlen as u64) * self.win() as u64
    }
}

fn win_bytes(w: usize, exact: bool) -> usize {
    w * if exact { 14 } else { 10 }
}

/// The kernel's parameters for a job the kernels take, from upstream's prologue `g`.
#[allow(clippy::too_many_arguments)]
fn finish_prep(
    idx: usize,
    qlen: i32,
    tlen: i32,
    m: i32,
    mat: &[i8],
    w: i32,
    zdrop: i32,
    end_bonus: i32,
    flag_: i32,
    g: twin::Gaps,
    splice: bool,
    budget: usize,
    smem_max: usize,
) -> Option<Prep> {
    let tlen_ = (tlen + 15) / 16;
    let n_col_ = (qlen.min(tlen).min(w + 1) + 15) / 16 + 1;
    let qlen_ = (qlen + 15) / 16;
    let tt16 = (tlen_ * 16) as usize;
    let row_bytes = n_col_ as usize * 16;
    let with_cigar = flag_ & flag::SCORE_ONLY == 0;
    let n_row = (qlen + tlen - 1) as usize;
    let p_bytes = if with_cigar { n_row * row_bytes } else { 0 };
    let cig_cap = if with_cigar { (qlen + tlen + 2) as usize } else { 0 };
    // sf, qr (16 bytes past qr: the kernel reads the query as aligned words), then exts2's signals; the
    // C allocation's s[] lives in the kernel's window
    let sig = tt16 + qlen_ as usize * 16 + 32;
    let img_bytes = if splice { sig + 2 * tt16 } else { sig };
    // the window holds the widest padded band, the score stores past it and the cell before it
    let band = (w as i64 + 1).min(qlen as i64).min(tlen as i64) as usize;
    let win = (band + 64).next_power_of_two();
    let par = KswParams {
        qlen,
        tlen,
        m,
        mat_off: 0, // set at packing
        q: g.q as i32,
        e: g.e as i32,
        q2: g.q2 as i32,
        e2: g.e2 as i32,
        qe_h: g.qe_h,
        w,
        zdrop,
        end_bonus,
        flag: flag_,
        row_bytes: row_bytes as i32,
        tt16: tt16 as i32,
        long_thres: g.long_thres,
        long_diff: g.long_diff,
        mch: mat[0] as i32,
        mis: mat[1] as i32,
        sc_n: g.sc_n as i32,
        win: win as i32,
        min_intron: g.min_intron_len,
        sig: sig as i32,
    };
    let global = win_bytes(win, flag_ & flag::APPROX_MAX == 0) > smem_max;
    let p = Prep { idx, par, tt16, img_bytes, p_bytes, cig_cap, global };
    if p.dev_bytes() > budget {
        return None;
    }
    Some(p)
}

/// The host side of GPU batches (packing inputs, unpacking results) runs in its own small pool: the global
/// pool may be busy with the CPU twin's share of the work, and a GPU waiting for its inputs costs more than
/// these threads take from the twin.
pub(crate) fn host_pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let n = env::GPU_HOST_THREADS
            .get()
            .unwrap_or_else(|| (std::thread::available_parallelism().map_or(4, |n| n.get()) / 4).max(2));
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("warpalign-gpu-host-{i}"))
            .build()
            .expect("warpalign: cannot start the GPU host threads")
    })
}

/// Input bytes per launch at most: the size of each lane's page-locked staging buffer, which stays resident
/// for the rest of the run (a lane asks for this much at once, so that it pins once). 8 MB ran minimap2 as
/// fast as 16 (and 16 as fast as 64) with 33 MB less resident (H200, bench/results/2026-11-26g-memory).
const LAUNCH_IMG_BYTES: usize = 8 << 20;
const LANES: usize = 3;

/// Runs `jobs` on the GPU (and the jobs it does not take on the twin); `results[i]` is overwritten (not
/// freed first) with job i's result, its CIGAR `malloc`ed. Bit-exact with `twin::extd2` on every field.
pub fn extd2_batch_gpu(rt: &GpuRuntime, jobs: &[KswExtd2Job], results: &mut [KswResult]) -> Result<(), String> {
    batch_gpu(rt, jobs, results, env::KSW_GPU_CELLS.get())
}

/// As [`extd2_batch_gpu`], for `ksw_exts2_sse` jobs (bit-exact with `twin::exts2`).
pub fn exts2_batch_gpu(rt: &GpuRuntime, jobs: &[KswExts2Job], results: &mut [KswResult]) -> Result<(), String> {
    batch_gpu(rt, jobs, results, env::KSW_GPU_CELLS.get())
}

/// As [`extd2_batch_gpu`], every block-form launch at `cells` window cells a thread (a power of two from 4
/// to 64) whatever its size, so that tests check each block size against the twin.
pub fn extd2_batch_gpu_at(rt: &GpuRuntime, jobs: &[KswExtd2Job], results: &mut [KswResult], cells: usize) -> Result<(), String> {
    batch_gpu(rt, jobs, results, Some(cells))
}

/// As [`extd2_batch_gpu_at`], for `ksw_exts2_sse` jobs.
pub fn exts2_batch_gpu_at(rt: &GpuRuntime, jobs: &[KswExts2Job], results: &mut [KswResult], cells: usize) -> Result<(), String> {
    batch_gpu(rt, jobs, results, Some(cells))
}

fn batch_gpu<J: GpuJob>(rt: &GpuRuntime, jobs: &[J], results: &mut [KswResult], cells: Option<usize>) -> Result<(), String> {
    if jobs.len() != results.len() {
        return Err(format!("{} jobs but {} results", jobs.len(), results.len()));
    }
    if jobs.is_empty() {
        return Ok(());
    }
    if cells.is_some_and(|c| !c.is_power_of_two() || !(4..=64).contains(&c)) {
        return Err(format!("{cells:?} window cells a thread: expected a power of two from 4 to 64"));
    }
    let budget = rt.memory_budget(&env::KSW_GPU_MEM_MB)?;
    let cap = env::KSW_GPU_THREADS.get().unwrap_or(1024);
    let warp = env::KSW_GPU_WARP.get().unwrap_or(true);
    let cfg = Cfg { cap, cells, warp, profile: env::KSW_GPU_PROFILE.get().unwrap_or(false) };
    let k = kernels(rt, J::SPLICE)?;

    let t0 = std::time::Instant::now();
    let preps: Vec<Option<Prep>> =
        host_pool().install(|| jobs.par_iter().enumerate().map(|(i, j)| j.prepare(i, budget, k.smem_max)).collect());
    let cpu_idx: Vec<usize> = preps.iter().enumerate().filter(|(_, p)| p.is_none()).map(|(i, _)| i).collect();
    // groups by window, each longest job first
    let mut groups: std::collections::BTreeMap<(bool, usize), Vec<Prep>> = Default::default();
    for p in preps.into_iter().flatten() {
        groups.entry((p.global, p.win())).or_default().push(p);
    }
    host_pool().install(|| groups.values_mut().for_each(|g| g.par_sort_unstable_by_key(|p| std::cmp::Reverse(p.work()))));
    let t_prepared = std::time::Instant::now();
    let total: usize = groups.values().flatten().map(Prep::dev_bytes).sum();
    let fault = if groups.is_empty() { fault::Batch::default() } else { fault::batch(fault::Engine::Ksw) };

    let (cpu_res, gpu_res) = std::thread::scope(|sc| {
        let cpu = sc.spawn(|| {
            cpu_idx
                .par_iter()
                .map(|&i| {
                    let mut r = KswResult::EMPTY;
                    let ran = jobs[i].run_cpu(&mut r);
                    (i, r, ran)
                })
                .collect::<Vec<_>>()
        });
        let runs: Vec<_> = groups
            .values()
            .map(|g| {
                let bytes: usize = g.iter().map(Prep::dev_bytes).sum();
                let share = (budget as u128 * bytes as u128 / total.max(1) as u128) as usize;
                let (k, fault) = (&k, &fault);
                sc.spawn(move || run_group(rt, k, jobs, g, share, cfg, fault))
            })
            .collect();
        let mut g: Result<Vec<(usize, KswResult)>, String> = Ok(Vec::new());
        for r in runs {
            match (r.join().expect("GPU thread panicked"), &mut g) {
                (Ok(v), Ok(all)) => all.extend(v),
                (Ok(mut v), Err(_)) => v.iter_mut().for_each(|(_, r)| r.release()),
                (Err(e), Ok(all)) => {
                    all.iter_mut().for_each(|(_, r)| r.release());
                    g = Err(e);
                }
                (Err(_), Err(_)) => {}
            }
        }
        (cpu.join().expect("twin thread panicked"), g)
    });
    let cpu_failed = cpu_res.iter().find_map(|(_, _, ran)| ran.err());
    for (i, r, _) in cpu_res {
        results[i] = r;
    }
    let failed = match (gpu_res, cpu_failed) {
        (Ok(v), None) => Ok(v),
        (Err(e), _) => Err(e),
        (Ok(mut v), Some(e)) => {
            v.iter_mut().for_each(|(_, r)| r.release());
            Err(e.into())
        }
    };
    let gpu_res = match failed {
        Ok(v) => v,
        Err(e) => {
            for i in cpu_idx {
                results[i].release();
            }
            return Err(e);
        }
    };
    for (i, r) in gpu_res {
        results[i] = r;
    }
    if cfg.profile {
        eprintln!(
            "ksw gpu batch: {} jobs ({} on the CPU) in {} groups, prepare {:.1} ms, all {:.1} ms",
            jobs.len(),
            cpu_idx.len(),
            groups.len(),
            (t_prepared - t0).as_secs_f64() * 1e3,
            t0.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(())
}

/// Launch settings (see the module's environment variables).
#[derive(Clone, Copy)]
struct Cfg {
    cap: usize,
    /// WARPALIGN_KSW_GPU_CELLS when set; else [`block_threads`] picks by the launch's size.
    cells: Option<usize>,
    warp: bool,
    profile: bool,
}

/// Threads a block-form job gets in a launch of `n_jobs` jobs of window `win`: `win / cells` when `cells`
/// is given. Else a word of 4 cells a thread while the launch's threads fit the device's resident threads,
/// twice the cells each time they outgrow it, down to 16 a thread. A launch of few wide jobs runs as long as
/// its longest job's anti-diagonals take one after the other, whatever the device's throughput, and fewer
/// cells a thread shorten each (minimap2's wide launches hold tens to hundreds of jobs: E. coli `-c` and
/// splice 5-10% faster end to end, bench/results/2026-11-29b-ksw-latency); a launch that fills the device
/// is bound by its throughput, which more cells a thread serve better.
fn block_threads(win: usize, n_jobs: usize, cells: Option<usize>, cap: usize, resident: usize) -> u32 {
    let threads = |c: usize| (win / c).clamp(32, cap);
    let c = cells.unwrap_or_else(|| {
        let mut c = 4;
        while c < 16 && n_jobs.saturating_mul(threads(c)) > resident {
            c *= 2;
        }
        c
    });
    threads(c) as u32
}

/// Runs one group (same window) in launches of at most [`LAUNCH_JOBS`] jobs that fit `budget` together,
/// [`LANES`] of them at a time, each lane on its own stream and host thread.
fn run_group<J: GpuJob>(
    rt: &GpuRuntime,
    k: &Kernels,
    jobs: &[J],
    group: &[Prep],
    budget: usize,
    cfg: Cfg,
    fault: &fault::Batch,
) -> Result<Vec<(usize, KswResult)>, String> {
    let global = group[0].global;
    let win = group[0].win();
    // the one-warp form holds the window in 1, 2 or 4 registers a lane per array
    let warp = cfg.warp && !global && win <= 512;
    let dp = if global {
        &k.dp_g
    } else if warp {
        &k.dpw[(win / 128).max(1).trailing_zeros() as usize]
    } else {
        &k.dp
    };
    let smem = if global || warp { 0 } else { group.iter().map(Prep::win_bytes).max().unwrap_or(0) } as u32;
    let lane_budget = budget / LANES;
    let launches = crate::gpu::launches(group.len(), LAUNCH_JOBS, [lane_budget, LAUNCH_IMG_BYTES], |k| {
        [group[k].dev_bytes(), group[k].img_bytes]
    });
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let lanes: Vec<Result<Vec<(usize, KswResult)>, String>> = std::thread::scope(|sc| {
        let lane = || -> Result<Vec<(usize, KswResult)>, String> {
            let st = rt.lease_stream()?;
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= launches.len() || failed.load(std::sync::atomic::Ordering::Relaxed) {
                    return Ok(out);
                }
                let threads = if global {
                    cfg.cap as u32
                } else if warp {
                    32
                } else {
                    block_threads(win, launches[i].len(), cfg.cells, cfg.cap, k.resident_threads)
                };
                match run_chunk(rt, &st, k, dp, jobs, &group[launches[i].clone()], threads, smem, global, cfg.profile, fault) {
                    Ok(v) => out.extend(v),
                    Err(e) => {
                        let _ = st.synchronize();
                        failed.store(true, std::sync::atomic::Ordering::Relaxed);
                        out.iter_mut().for_each(|(_, r)| r.release());
                        return Err(e);
                    }
                }
            }
        };
        let handles: Vec<_> = (0..LANES.min(launches.len())).map(|_| sc.spawn(lane)).collect();
        handles.into_iter().map(|h| h.join().expect("GPU lane panicked")).collect()
    });
    let mut out = Vec::with_capacity(group.len());
    let mut err = None;
    for l in lanes {
        match l {
            Ok(v) => out.extend(v),
            Err(e) => err = Some(e),
        }
    }
    if let Some(e) = err {
        out.iter_mut().for_each(|(_, r)| r.release());
        return Err(e);
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn run_chunk<J: GpuJob>(
    rt: &GpuRuntime,
    st: &Arc<CudaStream>,
    k: &Kernels,
    dp: &CudaFunction,
    jobs: &[J],
    chunk: &[Prep],
    threads: u32,
    smem: u32,
    global: bool,
    profile: bool,
    fault: &fault::Batch,
) -> Result<Vec<(usize, KswResult)>, String> {
    let t0 = std::time::Instant::now();
    let kind = if J::SPLICE { "ksw_exts2" } else { "ksw_extd2" };
    let err = |what: &str, e: cudarc::driver::DriverError| format!("{kind} gpu {what}: {e:?}");
    let n = chunk.len();
    let mut offs = Vec::with_capacity(n * NO);
    let mut par = Vec::with_capacity(n * NP);
    let mut mats: Vec<i8> = Vec::new();
    let (mut img_n, mut ws_n, mut p_n, mut cig_n) = (0usize, 0usize, 0usize, 0usize);
    for p in chunk {
        offs.extend_from_slice(&[img_n as u64, ws_n as u64, p_n as u64, cig_n as u64]);
        let pp = KswParams { mat_off: mats.len() as i32, ..p.par };
        mats.extend_from_slice(jobs[p.idx].parts().2);
        par.extend_from_slice(pp.as_ints());
        img_n += p.img_bytes;
        if global {
            ws_n += p.win_bytes();
        }
        p_n += p.p_bytes;
        cig_n += p.cig_cap;
    }
    mats.push(0);
    // The sf/qr images (the target and the reversed query, zero-padded), then exts2's signals, and after them
    // the offsets, parameters and matrices go up in one copy through a page-locked buffer held, with a staging
    // slot, only until that copy is done: meanwhile other lanes stage. (Copies from pageable memory wait for
    // the copy engine with the slot held: 3 ms a launch in minimap2's runs.)
    let offs_at = img_n.next_multiple_of(8);
    let par_at = offs_at + offs.len() * 8;
    let mats_at = par_at + par.len() * 4;
    let in_n = mats_at + mats.len();
    let slot = rt.lane_slot();
    let mut staging = rt.take_staging(in_n, LAUNCH_IMG_BYTES)?;
    let t_slot = std::time::Instant::now();
    let launched = (|| {
        let buf = staging.as_mut_slice().map_err(|e| err("staging", e))?;
        let input = &mut buf[..in_n];
        let (img, tables) = input.split_at_mut(offs_at);
        for (d, o) in tables.chunks_exact_mut(8).zip(&offs) {
            d.copy_from_slice(&o.to_le_bytes());
        }
        for (d, v) in tables[par_at - offs_at..].chunks_exact_mut(4).zip(&par) {
            d.copy_from_slice(&v.to_le_bytes());
        }
        for (d, &m) in tables[mats_at - offs_at..].iter_mut().zip(&mats) {
            *d = m as u8;
        }
        {
            let mut rest: &mut [u8] = &mut img[..img_n];
            let mut views = Vec::with_capacity(n);
            for p in chunk {
                let (a, b) = rest.split_at_mut(p.img_bytes);
                views.push(a);
                rest = b;
            }
            host_pool().install(|| views.into_par_iter().zip(chunk.par_iter()).for_each(|(v, p)| {
                let j = &jobs[p.idx];
                let (query, target, _) = j.parts();
                let (qlen, tlen, qr_end) = (query.len(), target.len(), p.par.sig as usize);
                v[..tlen].copy_from_slice(target);
                v[tlen..p.tt16].fill(0);
                let qr = &mut v[p.tt16..qr_end];
                for (c, &b) in qr.iter_mut().zip(query.iter().rev()) {
                    *c = b;
                }
                qr[qlen..].fill(0);
                j.fill_extra(v, p);
            }));
        }
        let t_packed = std::time::Instant::now();
        fault.check(Step::Alloc)?;
        // SAFETY: filled by the copy right after.
        let mut d_in = unsafe { st.alloc::<u8>(in_n) }.map_err(|e| err("alloc", e))?;
        {
            let (dst, _record) = d_in.device_ptr_mut(st);
            fault.check(Step::Copy)?;
            // SAFETY: dst holds in_n bytes; the staging buffer is kept until the copy is done.
            unsafe { cudarc::driver::result::memcpy_htod_async(dst, &*input, st.cu_stream()) }.map_err(|e| err("upload", e))?;
        }
        // SAFETY: the views cover the bytes written above for each table, at offsets aligned for their types
        // (a stream-ordered allocation is aligned to at least 256 bytes).
        let (d_img, d_offs, d_par, d_mats) = unsafe {
            (
                d_in.slice(..offs_at.max(1)),
                d_in.slice(offs_at..).transmute::<u64>(offs.len()).expect("offsets in the upload"),
                d_in.slice(par_at..).transmute::<i32>(par.len()).expect("parameters in the upload"),
                d_in.slice(mats_at..).transmute::<i8>(mats.len()).expect("matrices in the upload"),
            )
        };
        let copied = st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC)).map_err(|e| err("event", e))?;
        let t_img = std::time::Instant::now();
        // SAFETY: the kernels write every window byte before reading it, and read p only where the DP wrote it.
        let mut d_ws = unsafe { st.alloc::<u8>(ws_n.max(1)) }.map_err(|e| err("alloc", e))?;
        let mut d_p = unsafe { st.alloc::<u8>(p_n.max(1)) }.map_err(|e| err("alloc", e))?;
        let mut d_cig = unsafe { st.alloc::<u32>(cig_n.max(1)) }.map_err(|e| err("alloc", e))?;
        let mut d_res = st.alloc_zeros::<i32>(n * NR).map_err(|e| err("alloc", e))?;
        let t_alloc = std::time::Instant::now();
        let n_i = n as i32;
        let ev = |on: bool| if on { st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).map(Some) } else { Ok(None) };
        let e0 = ev(profile).map_err(|e| err("event", e))?;
        {
            let cfg = LaunchConfig { grid_dim: (n as u32, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: smem };
            let mut l = st.launch_builder(dp);
            l.arg(&d_offs).arg(&d_par).arg(&d_mats).arg(&d_img);
            if global {
                l.arg(&mut d_ws);
            }
            l.arg(&mut d_p).arg(&mut d_res).arg(&n_i);
            fault.check(Step::Launch)?;
            // SAFETY: argument types and buffer sizes match the dp kernels' signature and the offsets computed
            // above; smem is at most the limit set in `kernels`.
            unsafe { l.launch(cfg) }.map_err(|e| err("launch dp", e))?;
        }
        let e1 = ev(profile).map_err(|e| err("event", e))?;
        {
            let cfg = LaunchConfig { grid_dim: (n.div_ceil(64) as u32, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 };
            let mut l = st.launch_builder(&k.bt);
            l.arg(&d_offs).arg(&d_par).arg(&d_p).arg(&mut d_res).arg(&mut d_cig).arg(&n_i);
            // SAFETY: as above (ksw_bt).
            unsafe { l.launch(cfg) }.map_err(|e| err("launch bt", e))?;
        }
        let e2 = ev(profile).map_err(|e| err("event", e))?;
        // the CIGARs compacted on the device, so that the results come down after one wait
        let d_out = if cig_n > 0 {
            let mut d_out_off = unsafe { st.alloc::<u64>(n) }.map_err(|e| err("alloc", e))?;
            // SAFETY: ksw_pack writes the sum(n_cigar) <= cig_n elements the results are read from.
            let mut d_out = unsafe { st.alloc::<u32>(cig_n) }.map_err(|e| err("alloc", e))?;
            let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 };
            let mut l = st.launch_builder(&k.cigar_offsets);
            l.arg(&d_res).arg(&mut d_out_off).arg(&n_i);
            // SAFETY: res has n results, out_off n elements.
            unsafe { l.launch(cfg) }.map_err(|e| err("launch cigar offsets", e))?;
            let cfg = LaunchConfig { grid_dim: (n as u32, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
            let mut l = st.launch_builder(&k.pack);
            l.arg(&d_offs).arg(&d_par).arg(&d_res).arg(&d_cig).arg(&d_out_off).arg(&mut d_out).arg(&n_i);
            // SAFETY: as above (ksw_pack); out has room for every CIGAR (n_cigar <= cig_cap a job).
            unsafe { l.launch(cfg) }.map_err(|e| err("launch pack", e))?;
            Some(d_out)
        } else {
            None
        };
        let t_kernels = std::time::Instant::now();
        copied.synchronize().map_err(|e| err("sync", e))?;
        // the inputs and the DP's bytes are freed on the stream, after the kernels
        drop((d_offs, d_par, d_mats, d_img));
        drop((d_in, d_ws, d_p, d_cig));
        Ok::<_, String>((d_res, d_out, [e0, e1, e2], [t_packed, t_img, t_alloc, t_kernels]))
    })();
    // a step that failed may leave the copy in flight: the stream is waited for before the buffer is reused
    if launched.is_err() {
        let _ = st.synchronize();
    }
    rt.give_staging(staging);
    drop(slot);
    let (d_res, d_out, [e0, e1, e2], [t_packed, t_img, t_alloc, t_kernels]) = launched?;
    let t_launched = std::time::Instant::now();
    // Wait on an event before each download: a copy into pageable memory issued while the kernels still run
    // appears to hold up the other groups' launches (on an H100, bench/ksw on ulall ran 3x faster with
    // this wait than without).
    // A blocking-sync event: waiting on any other kind spins a core (the context's sleep flag covers streams, not events).
    let blocking = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC);
    let wait = || st.record_event(blocking).and_then(|e| e.synchronize()).map_err(|e| err("sync", e));
    fault.check(Step::Sync)?;
    wait()?;
    let t_waited = std::time::Instant::now();
    let res = st.clone_dtoh(&d_res).map_err(|e| err("download", e))?;
    let mut out_off = Vec::with_capacity(n + 1);
    let mut tot = 0u64;
    for i in 0..n {
        out_off.push(tot);
        tot += KswOut::from_ints(&res[i * NR..]).n_cigar.max(0) as u64;
    }
    let cigars = match d_out {
        Some(d) if tot > 0 => st.clone_dtoh(&d.slice(..tot as usize)).map_err(|e| err("download", e))?,
        _ => Vec::new(),
    };
    let mut out = Vec::with_capacity(n);
    for (i, p) in chunk.iter().enumerate() {
        let r = KswOut::from_ints(&res[i * NR..]);
        let nc = r.n_cigar.max(0) as usize;
        let mut cp: *mut u32 = std::ptr::null_mut();
        if nc > 0 {
            let o = out_off[i] as usize;
            // SAFETY: a fresh block of exactly nc u32s, filled here; the caller frees it with free().
            unsafe {
                cp = libc::malloc(nc * 4) as *mut u32;
                if cp.is_null() {
                    for (_, r) in out.iter_mut() {
                        KswResult::release(r);
                    }
                    return Err("out of memory".into());
                }
                std::ptr::copy_nonoverlapping(cigars[o..o + nc].as_ptr(), cp, nc);
            }
        }
        out.push((
            p.idx,
            KswResult {
                max: r.max as u32,
                zdropped: r.zdropped,
                max_q: r.max_q,
                max_t: r.max_t,
                mqe: r.mqe,
                mqe_t: r.mqe_t,
                mte: r.mte,
                mte_q: r.mte_q,
                score: r.score,
                reach_end: r.reach_end,
                n_cigar: nc as i32,
                cigar: cp,
            },
        ));
    }
    if let (Some(e0), Some(e1), Some(e2)) = (e0, e1, e2) {
        let ms = |a: &cudarc::driver::CudaEvent, b| a.elapsed_ms(b).unwrap_or(f32::NAN);
        let cells: u64 = chunk.iter().map(|p| p.par.qlen as u64 * p.par.tlen.min(p.par.win) as u64).sum();
        let top = chunk.iter().map(|p| p.par.qlen as u64 * p.par.tlen.min(p.par.win) as u64).max().unwrap_or(0);
        let span = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        eprintln!(
            "ksw gpu: window {}{}{} threads {threads} jobs {n} ~cells {cells:.3e} (largest {top:.2e}) dp {:.1} ms bt {:.1} ms; host: pack {:.1} ms (a staging slot's wait {:.1}), upload+launch {:.1} ms (the copy {:.1}, allocations {:.1}, launches {:.1}, the copy's wait {:.1}), wait {:.1} ms, results {:.1} ms",
            chunk[0].win(),
            if global { " (global)" } else { "" },
            if threads == 32 && smem == 0 && !global { " (warp)" } else { "" },
            ms(&e0, &e1),
            ms(&e1, &e2),
            span(t0, t_packed),
            span(t0, t_slot),
            span(t_packed, t_launched),
            span(t_packed, t_img),
            span(t_img, t_alloc),
            span(t_alloc, t_kernels),
            span(t_kernels, t_launched),
            span(t_launched, t_waited),
            span(t_waited, std::time::Instant::now()),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::block_threads;

    const H200: usize = 132 * 2048;

    #[test]
    fn few_wide_jobs_get_a_word_a_thread() {
        assert_eq!(block_threads(1024, 267, None, 1024, H200), 256);
        assert_eq!(block_threads(2048, 6, None, 1024, H200), 512);
        assert_eq!(block_threads(8192, 1, None, 1024, H200), 1024);
    }

    #[test]
    fn a_launch_filling_the_device_keeps_16_cells_a_thread() {
        assert_eq!(block_threads(1024, 32768, None, 1024, H200), 64);
        // 2,000 jobs of 1024 cells: 256 threads each outgrow the device, 128 do not
        assert_eq!(block_threads(1024, 2000, None, 1024, H200), 128);
        assert_eq!(block_threads(1024, 5000, None, 1024, H200), 64);
    }

    #[test]
    fn the_variable_and_the_cap_rule() {
        assert_eq!(block_threads(1024, 1, Some(16), 1024, H200), 64);
        assert_eq!(block_threads(1024, 1, Some(64), 1024, H200), 32);
        assert_eq!(block_threads(2048, 1, None, 256, H200), 256);
        assert_eq!(block_threads(128, 1, None, 1024, H200), 32);
    }
}
