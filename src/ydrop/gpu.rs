//! `ydrop_one_sided_align` batches on the GPU (kernels/ydrop_one_sided.cu), bit-exact with the twin
//! (`twin::one_sided`) on every field.
//!
//! The kernel runs one block of eight warps per job in one or two passes: pass 1 sweeps every job and returns
//! score, end, truncation and the traceback bytes the rows up to the end take, writing the traceback into a pool
//! the launch's jobs claim from as they go, and traces back where the rows up to the end were written; pass 2
//! sweeps those rows again for the other jobs with a non-empty path (the pool ran out), and traces back. Jobs go to the twin, on the
//! CPU, where the kernel is not exact or not worth it: degenerate ones (`m` or `n` zero, or the traceback
//! memory below one row, which the twin answers at once), constrained ones (`bounds` set), negative
//! `gap_open`, `gap_extend` or `y_drop`, values that could wrap in the kernel's scans (see the kernel's
//! header), and jobs the kernel gives up on (a row wider than its ring, a path past the uploaded
//! [`SEQ_CAP_GROWN`] bases, a traceback over [`TB_JOB_MAX`] bytes or over the memory budget). A job runs with
//! [`SEQ_CAP`] bases of each sequence first, and again with more if its path goes further.
//!
//! `WARPALIGN_YDROP_GPU_MEM_MB` caps the device memory one launch uses (default: half of the free memory, at
//! most [`BUDGET_MAX`]).
//! `WARPALIGN_YDROP_GPU_PROFILE=1` prints, per batch, the jobs each path took and the time of each pass.

use super::twin::{self, shadow::Envelope, y_drop_tail};
use super::{YdropJob, YdropResult, TRUNC_MIDWAY, TRUNC_NONE};
use crate::gpu::fault::{self, Step};
use crate::gpu::{GpuRuntime, LAUNCH_JOBS};
use crate::memory::{malloc_copy, OutOfMemory};
use cudarc::driver::{CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

const MODULE_NAME: &str = "ydrop_one_sided";
crate::kernel_struct! {
    /// One job's parameters, as the kernel reads them (`YdropParams` in kernels/ydrop_one_sided.cu).
    struct Params { m, n, a_len, b_len, mat, gap_open, gap_extend, y_drop, trim, tb_len, y_drop_tail, ring, env, row_cap }
}
crate::kernel_struct! {
    /// One job's results, as the kernel writes them (`YdropOut` in kernels/ydrop_one_sided.cu).
    struct Out { status, score, end1, end2, trunc, tb_need, n_ops, rows, traced }
}

/// The kernel's declarations of [`Params`] and [`Out`], for the test that compares them.
pub fn kernel_structs() -> [(&'static str, &'static [&'static str]); 2] {
    [("YdropParams", Params::FIELDS), ("YdropOut", Out::FIELDS)]
}

/// Ints per job in the parameter table, u64 offsets (`NO` in the kernel), ints of results.
const NP: usize = Params::INTS;
const NO: usize = 7;
const NR: usize = Out::INTS;
/// An envelope row's `hi` has this bit when the row compared its right bounds with `n` (`TESTED`).
const TESTED: u32 = 1 << 31;
/// Statuses (`ST_*` in the kernel).
const ST_DONE: i32 = 0;
const ST_BAIL: i32 = 1;
/// The job read past an uploaded prefix (longer ones may finish it).
const ST_SHORT: i32 = 2;
/// The job went past its row cap ([`one_sided_batch_gpu_capped`]).
const ST_LONG: i32 = 3;
/// Warps per job: a block each (the kernel's launch bounds).
const WARPS_PER_JOB: u32 = 8;
/// Bases of each sequence uploaded per job at first: the real calls read a few thousand (measured up to 67k),
/// while `m` and `n` run to the end of the chromosome; a path past them runs again with `SEQ_CAP_GROWN`.
const SEQ_CAP: u32 = 1 << 16;
/// Bases uploaded for a job that read past its `SEQ_CAP` ones, when it runs again.
const SEQ_CAP_GROWN: u32 = 1 << 24;
/// Ring cells per row at most; a wider row goes to the twin.
const RING_MAX: usize = 1 << 16;
/// Ring cells per row a block keeps in its shared memory (two rows, 32 KB); a job with a larger ring keeps it in
/// global memory, whose loads on each row's critical path take hundreds of cycles.
const SHARED_RING_MAX: usize = 1 << 11;
/// Device memory one launch takes at most unless `WARPALIGN_YDROP_GPU_MEM_MB` says: LASTZ processes side by side
/// share the GPU, and with half the free memory each, 16 H. pylori processes on one H200 ran out of it (the
/// batch then runs on the CPU, with a notice).
const BUDGET_MAX: usize = 4 << 30;
/// Traceback bytes one job may take on the GPU.
const TB_JOB_MAX: usize = 1 << 28;
/// Pass 1's traceback pool at most (the kernel's offsets into it are 32-bit): its jobs claim from it as their
/// rows go, and a job whose rows up to the end were written needs no pass 2.
const TB_POOL_MAX: usize = 1 << 31;
/// What the kernel's scans can hold without wrapping (the kernel's header says why).
const SUB_ABS_MAX: i32 = 1 << 27;
const GAP_OE_MAX: i64 = 1 << 24;
const Y_DROP_MAX: i32 = 1 << 30;

/// Whether no entry of a 256x256 matrix is beyond `SUB_ABS_MAX`.
fn matrix_fits(sub: *const i32) -> bool {
    // SAFETY: the job's contract: a 256x256 matrix at sub.
    let m = unsafe { std::slice::from_raw_parts(sub, 256 * 256) };
    m.iter().all(|v| v.unsigned_abs() <= SUB_ABS_MAX as u32)
}

/// How the kernel runs a job: the prefixes of the sequences it uploads and the ring cells per row (a power
/// of two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub a_len: u32,
    pub b_len: u32,
    pub ring: usize,
}

/// The kernel's plan for `j`, or None when the twin takes it; `matrix_ok` tells whether its matrix fits.
fn plan_with(j: &YdropJob, matrix_ok: impl FnOnce() -> bool) -> Option<Plan> {
    // the twin answers degenerate jobs at once
    let degenerate = j.m == 0 || j.n == 0 || y_drop_tail(j.gap_extend, j.y_drop, j.n) > j.tb_size as i32;
    // the kernel keeps rows and columns (up to n + 2) in ints
    let exact = j.bounds.is_null()
        && j.m.max(j.n) <= i32::MAX as u32 - 2
        && j.gap_open >= 0
        && j.gap_extend >= 0
        && (0..=Y_DROP_MAX).contains(&j.y_drop)
        && j.gap_open as i64 + j.gap_extend as i64 <= GAP_OE_MAX;
    if degenerate || !exact || !matrix_ok() {
        return None;
    }
    // the band is about 2 * yDrop / E wide; with E = 0 every row may reach the end of b
    let cols = j.n as usize + 2;
    let band = if j.gap_extend == 0 { cols } else { cols.min(4 * y_drop_tail(j.gap_extend, j.y_drop, j.n) as usize + 64) };
    Some(Plan { a_len: j.m.min(SEQ_CAP), b_len: j.n.min(SEQ_CAP), ring: band.next_power_of_two().clamp(64, RING_MAX) })
}

/// The kernel's plan for `j`, or None when the twin takes it.
pub fn plan(j: &YdropJob) -> Option<Plan> {
    plan_with(j, || matrix_fits(j.sub))
}

/// Ring cells per row in a launch's shared memory: its widest ring within SHARED_RING_MAX (0: none). The jobs
/// with those rings keep their rows there, the others in global memory.
fn shared_ring_cells(chunk: &[Prep]) -> usize {
    chunk.iter().map(|p| p.plan.ring).filter(|&r| r <= SHARED_RING_MAX).max().unwrap_or(0)
}

/// A job the kernel runs.
#[derive(Clone, Copy)]
struct Prep {
    idx: usize,
    plan: Plan,
    /// Index into the batch's distinct matrices.
    mat: usize,
    /// Pass 1 writes its envelope (a row per uploaded base of `a`, and one more).
    record: bool,
    /// Rows pass 1 may enter.
    row_cap: u32,
}

impl Prep {
    /// Device bytes of pass 1 but its traceback pool: the sequences, two rows of (C, D) and the envelope.
    fn dev_bytes(&self) -> usize {
        let env = if self.record { 16 * (self.plan.a_len as usize + 1) } else { 0 };
        let (a, b) = (self.plan.a_len as usize, self.plan.b_len as usize);
        // pass 1's row offsets and edit script
        let one_pass = 4 * (a + 1) + 4 * (a + b);
        a + b + self.global_ring_bytes() + env + one_pass + 4 * NP + 8 * NO + 4 * NR + 4
    }

    /// Global memory for two rows of (C, D): none when the ring fits the block's shared memory.
    fn global_ring_bytes(&self) -> usize {
        if self.plan.ring <= SHARED_RING_MAX { 0 } else { 16 * self.plan.ring }
    }

    /// Cells of the widest possible sweep, to start the largest jobs first.
    fn work(&self) -> u64 {
        self.plan.a_len as u64 * self.plan.ring as u64
    }
}

/// A finished job: its index, result and (when recording) envelope.
type Done = (usize, YdropResult, Envelope);

/// Runs `jobs` on the GPU and the jobs it does not take on the twin; `results[i]` is overwritten (not freed
/// first) with job i's result. Bit-exact with `twin::one_sided` on every field.
pub fn one_sided_batch_gpu(rt: &GpuRuntime, jobs: &[YdropJob], results: &mut [YdropResult]) -> Result<(), String> {
    batch(rt, jobs, results, None, None).map(drop)
}

/// As [`one_sided_batch_gpu`], and `envs[i]` gets job i's envelope: what `twin::shadow::run_recorded` records
/// for it (the GPU runs only jobs without bounds, whose envelope it writes in pass 1).
pub fn one_sided_batch_gpu_recorded(
    rt: &GpuRuntime,
    jobs: &[YdropJob],
    results: &mut [YdropResult],
    envs: &mut [Envelope],
) -> Result<(), String> {
    batch(rt, jobs, results, Some(envs), None).map(drop)
}

/// As [`one_sided_batch_gpu_recorded`], except for the jobs whose sweep goes past `row_cap` rows on the GPU:
/// their indices are returned and their results and envelopes left as they were. A job's rows run one after
/// the other, so one long job would hold the whole batch while the GPU idles: the caller runs those on the
/// CPU, which sweeps a single job several times faster.
pub fn one_sided_batch_gpu_capped(
    rt: &GpuRuntime,
    jobs: &[YdropJob],
    results: &mut [YdropResult],
    envs: &mut [Envelope],
    row_cap: u32,
) -> Result<Vec<usize>, String> {
    batch(rt, jobs, results, Some(envs), Some(row_cap))
}

fn batch(
    rt: &GpuRuntime,
    jobs: &[YdropJob],
    results: &mut [YdropResult],
    envs: Option<&mut [Envelope]>,
    row_cap: Option<u32>,
) -> Result<Vec<usize>, String> {
    if jobs.len() != results.len() || envs.as_ref().is_some_and(|e| e.len() != jobs.len()) {
        return Err(format!("{} jobs but {} results", jobs.len(), results.len()));
    }
    let record = envs.is_some();
    let budget = match crate::env::YDROP_GPU_MEM_MB.get() {
        Some(_) => rt.memory_budget(&crate::env::YDROP_GPU_MEM_MB)?,
        None => rt.memory_budget(&crate::env::YDROP_GPU_MEM_MB)?.min(BUDGET_MAX),
    };
    let module = rt.module(MODULE_NAME)?;
    let func = module.load_function("ydrop_one_sided").map_err(|e| format!("loading ydrop_one_sided: {e:?}"))?;
    let gather = module.load_function("ydrop_gather").map_err(|e| format!("loading ydrop_gather: {e:?}"))?;
    let funcs = (&func, &gather);

    let mut matrices: Vec<*const i32> = Vec::new();
    let mut fits: HashMap<*const i32, Option<usize>> = HashMap::new();
    let mut preps = Vec::new();
    let mut cpu_idx = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        let mut mat = None;
        let plan = plan_with(j, || {
            mat = *fits.entry(j.sub).or_insert_with(|| {
                matrix_fits(j.sub).then(|| {
                    matrices.push(j.sub);
                    matrices.len() - 1
                })
            });
            mat.is_some()
        });
        match (plan, mat) {
            // (rows up to the cap read no more of a)
            (Some(plan), Some(mat)) => {
                let plan = Plan { a_len: plan.a_len.min(row_cap.unwrap_or(u32::MAX)), ..plan };
                preps.push(Prep { idx: i, plan, mat, record, row_cap: row_cap.unwrap_or(i32::MAX as u32).min(i32::MAX as u32) })
            }
            _ => cpu_idx.push(i),
        }
    }
    preps.sort_by_key(|p| std::cmp::Reverse(p.work()));

    let profile = crate::env::YDROP_GPU_PROFILE.get().unwrap_or(false);
    let t0 = std::time::Instant::now();
    let st = rt.lease_stream()?;
    let fault = if preps.is_empty() { fault::Batch::default() } else { fault::batch(fault::Engine::Ydrop) };
    let (cpu_res, gpu_res) = std::thread::scope(|sc| {
        let cpu = sc.spawn(|| run_twin(jobs, &cpu_idx, record));
        let mut done = Vec::with_capacity(preps.len());
        let mut bailed = Vec::new();
        let mut times = Times::default();
        let mut run = |preps: &[Prep], bailed: &mut Vec<(usize, i32)>| -> Result<(), String> {
            for r in crate::gpu::launches(preps.len(), LAUNCH_JOBS, [budget / 2], |k| [preps[k].dev_bytes()]) {
                let t = if profile { Some(&mut times) } else { None };
                run_launch(&st, funcs, jobs, &preps[r], &matrices, budget, &mut done, bailed, t, &fault)?;
            }
            Ok(())
        };
        // jobs that read past their uploaded prefixes run again with longer ones
        let mut outcome = run(&preps, &mut bailed);
        let by_idx: HashMap<usize, &Prep> = preps.iter().map(|p| (p.idx, p)).collect();
        let mut grown = Vec::new();
        bailed.retain(|&(i, st)| {
            let (p, j) = (by_idx[&i], &jobs[i]);
            let plan = Plan { a_len: j.m.min(SEQ_CAP_GROWN), b_len: j.n.min(SEQ_CAP_GROWN), ..p.plan };
            let retry = st == ST_SHORT && plan != p.plan;
            if retry {
                grown.push(Prep { plan, ..*p });
            }
            !retry
        });
        if outcome.is_ok() && !grown.is_empty() {
            outcome = run(&grown, &mut bailed);
        }
        let long: Vec<usize> = bailed.iter().filter(|b| b.1 == ST_LONG).map(|b| b.0).collect();
        let bailed: Vec<usize> = bailed.iter().filter(|b| b.1 != ST_LONG).map(|b| b.0).collect();
        let t_gpu = t0.elapsed();
        match outcome.and_then(|()| run_twin(jobs, &bailed, record)) {
            Ok(more) => done.extend(more),
            Err(e) => {
                release(&mut done);
                return (cpu.join().expect("twin thread panicked"), Err(e));
            }
        }
        if profile {
            eprintln!(
                "warpalign ydrop gpu: {} jobs: {} on the GPU ({} again with longer prefixes, {} past the row cap: left to the caller, {} gave up: twin after it), {} on the twin beside it; packing {:.1} ms, upload {:.1} ms ({:.1} MB of sequence), pass 1 {:.1} ms, pass 2 {:.1} ms, GPU path {:.1} ms, then the twin {:.1} ms",
                jobs.len(), preps.len(), grown.len(), long.len(), bailed.len(), cpu_idx.len(), times.pack * 1e3, times.upload * 1e3, times.bytes as f64 / 1e6, times.pass1 * 1e3, times.pass2 * 1e3,
                t_gpu.as_secs_f64() * 1e3, (t0.elapsed() - t_gpu).as_secs_f64() * 1e3
            );
        }
        (cpu.join().expect("twin thread panicked"), Ok((done, long)))
    });
    let (cpu_res, (gpu_res, long)) = match (cpu_res, gpu_res) {
        (Ok(c), Ok(g)) => (c, g),
        (Ok(mut done), Err(e)) | (Err(e), Ok((mut done, _))) => {
            release(&mut done);
            return Err(e);
        }
        (Err(e), Err(_)) => return Err(e),
    };
    let mut envs = envs;
    for (i, r, e) in cpu_res.into_iter().chain(gpu_res) {
        results[i] = r;
        if let Some(envs) = envs.as_deref_mut() {
            envs[i] = e;
        }
    }
    Ok(long)
}

/// The jobs `idx` on the twin; an error (nothing computed kept) when one runs out of memory.
fn run_twin(jobs: &[YdropJob], idx: &[usize], record: bool) -> Result<Vec<Done>, String> {
    let ran: Vec<Result<Done, OutOfMemory>> = idx
        .par_iter()
        .with_max_len(1)
        .map(|&i| {
            let (mut r, mut e) = (YdropResult::EMPTY, Envelope::default());
            if record {
                twin::shadow::run_recorded(&jobs[i], &mut r, &mut e)?;
            } else {
                twin::one_sided(&jobs[i], &mut r)?;
            }
            Ok((i, r, e))
        })
        .collect();
    let failed = ran.iter().find_map(|d| d.as_ref().err().copied());
    let mut done: Vec<Done> = ran.into_iter().flatten().collect();
    match failed {
        Some(e) => {
            release(&mut done);
            Err(e.into())
        }
        None => Ok(done),
    }
}

fn release(done: &mut [Done]) {
    done.iter_mut().for_each(|(_, r, _)| r.release());
}

/// One launch of pass 1 over `chunk`, then pass 2 for its jobs with a path, in groups that fit `budget`;
/// finished jobs go to `done`, the ones the kernel gave up on (by index) to `bailed`.
#[allow(clippy::too_many_arguments)]
fn run_launch(
    st: &Arc<CudaStream>,
    (func, gather): (&CudaFunction, &CudaFunction),
    jobs: &[YdropJob],
    chunk: &[Prep],
    matrices: &[*const i32],
    budget: usize,
    done: &mut Vec<Done>,
    bailed: &mut Vec<(usize, i32)>,
    mut times: Option<&mut Times>,
    fault: &fault::Batch,
) -> Result<(), String> {
    let err = |what: &str, e: cudarc::driver::DriverError| format!("ydrop gpu {what}: {e:?}");
    let t_pack = std::time::Instant::now();
    let n = chunk.len();
    // the launch's matrices, renumbered
    let mut mat_of: HashMap<usize, usize> = HashMap::new();
    let mut mats: Vec<i32> = Vec::new();
    let mut par = Vec::with_capacity(n * NP);
    let mut offs = vec![0u64; n * NO];
    let mut seqs: Vec<u8> = Vec::new();
    let (mut ring_n, mut env_n) = (0u64, 0u64);
    let sh_cells = shared_ring_cells(chunk);
    let (mut tb1_n, mut row1_n, mut ops1_n) = (0usize, 0u64, 0u64);
    for (k, p) in chunk.iter().enumerate() {
        let j = &jobs[p.idx];
        let mat = *mat_of.entry(p.mat).or_insert_with(|| {
            // SAFETY: the job's contract: a 256x256 matrix.
            mats.extend_from_slice(unsafe { std::slice::from_raw_parts(matrices[p.mat], 256 * 256) });
            mats.len() / (256 * 256) - 1
        });
        let params = Params {
            m: j.m as i32,
            n: j.n as i32,
            a_len: p.plan.a_len as i32,
            b_len: p.plan.b_len as i32,
            mat: mat as i32,
            gap_open: j.gap_open,
            gap_extend: j.gap_extend,
            y_drop: j.y_drop,
            trim: j.trim_to_peak,
            tb_len: j.tb_size as i32,
            y_drop_tail: y_drop_tail(j.gap_extend, j.y_drop, j.n),
            ring: p.plan.ring as i32,
            env: p.record as i32,
            row_cap: p.row_cap as i32,
        };
        par.extend_from_slice(params.as_ints());
        offs[k * NO + 2] = ring_n;
        ring_n += p.global_ring_bytes() as u64 / 8;
        offs[k * NO + 6] = env_n;
        (offs[k * NO + 4], offs[k * NO + 5]) = (row1_n, ops1_n);
        tb1_n = tb1_n.saturating_add((p.work() as usize).min(TB_JOB_MAX));
        row1_n += p.plan.a_len as u64 + 1;
        ops1_n += p.plan.a_len as u64 + p.plan.b_len as u64;
        if p.record {
            // (a job cut short by its traceback memory records the row after its last: a_len + 1 at most)
            env_n += p.plan.a_len as u64 + 1;
        }
    }
    // the jobs' prefixes, each host byte uploaded once: LASTZ's jobs all point into the same few sequences
    let mut spans: Vec<(usize, usize, usize)> = Vec::with_capacity(2 * n);
    for (k, p) in chunk.iter().enumerate() {
        let j = &jobs[p.idx];
        spans.push((j.a as usize, p.plan.a_len as usize, k * NO));
        spans.push((j.b as usize, p.plan.b_len as usize, k * NO + 1));
    }
    spans.sort_unstable();
    let mut at = 0;
    while at < spans.len() {
        let (start, mut end) = (spans[at].0, spans[at].0 + spans[at].1);
        let mut until = at + 1;
        while until < spans.len() && spans[until].0 <= end {
            end = end.max(spans[until].0 + spans[until].1);
            until += 1;
        }
        for &(ptr, _, slot) in &spans[at..until] {
            offs[slot] = (seqs.len() + (ptr - start)) as u64;
        }
        // SAFETY: the job's contract: m bases at a and n at b, readable for the call; the span is a union of
        // overlapping or adjacent prefixes of those (a_len <= m, b_len <= n), so every byte of it is one of them.
        seqs.extend_from_slice(unsafe { std::slice::from_raw_parts(start as *const u8, end - start) });
        at = until;
    }
    seqs.push(0);
    if let Some(tm) = times.as_deref_mut() {
        tm.pack += t_pack.elapsed().as_secs_f64();
        tm.bytes += seqs.len() as u64;
    }
    let t_up = std::time::Instant::now();
    let order: Vec<i32> = (0..n as i32).collect();
    fault.check(Step::Copy)?;
    let d_par = st.clone_htod(&par).map_err(|e| err("upload", e))?;
    let d_mats = st.clone_htod(&mats).map_err(|e| err("upload", e))?;
    let d_seqs = st.clone_htod(&seqs).map_err(|e| err("upload", e))?;
    let d_order = st.clone_htod(&order).map_err(|e| err("upload", e))?;
    let mut d_offs = st.clone_htod(&offs).map_err(|e| err("upload", e))?;
    fault.check(Step::Alloc)?;
    // (C, D) pairs as two ints each; every cell a row reads was written by the row before
    let mut d_ring = st.alloc_zeros::<i32>((2 * ring_n as usize).max(1)).map_err(|e| err("alloc", e))?;
    let mut d_res = st.alloc_zeros::<i32>(n * NR).map_err(|e| err("alloc", e))?;
    // the pool: what the jobs could write, within half the budget (the rest is dev_bytes' share)
    let pool = tb1_n.min(budget / 2).min(TB_POOL_MAX);
    let mut d_top = st.alloc_zeros::<u64>(1).map_err(|e| err("alloc", e))?;
    // SAFETY: pass 1 writes the traceback bytes, row offsets and edit script it reads or reports.
    let mut d_tb1 = unsafe { st.alloc::<u8>(pool.max(1)) }.map_err(|e| err("alloc", e))?;
    let mut d_row1 = unsafe { st.alloc::<u32>(row1_n.max(1) as usize) }.map_err(|e| err("alloc", e))?;
    let mut d_ops1 = unsafe { st.alloc::<u32>(ops1_n.max(1) as usize) }.map_err(|e| err("alloc", e))?;
    // SAFETY: pass 1 writes each envelope row it reports (`rows`), and only those are read.
    let mut d_env = unsafe { st.alloc::<u32>(4 * env_n.max(1) as usize) }.map_err(|e| err("alloc", e))?;
    if let Some(tm) = times.as_deref_mut() {
        st.synchronize().map_err(|e| err("upload", e))?;
        tm.upload += t_up.elapsed().as_secs_f64();
    }
    let t = std::time::Instant::now();
    fault.check(Step::Launch)?;
    launch(st, func, &d_offs, &d_par, &d_mats, &d_seqs, &mut d_ring, (&mut d_tb1, &mut d_row1, &mut d_ops1), &mut d_env, &mut d_res, &d_order, n, 0, sh_cells, (&mut d_top, pool))?;
    fault.check(Step::Sync)?;
    let res = st.clone_dtoh(&d_res).map_err(|e| err("download", e))?;
    let outs: Vec<Out> = (0..n).map(|k| Out::from_ints(&res[k * NR..])).collect();
    // the envelopes of the jobs pass 1 finished and the edit scripts it traced, gathered on the GPU into one
    // buffer each (two downloads, not two per job): job k's at gat[2k] and gat[2k + 1], cnt[2k] and cnt[2k + 1] long
    let (mut gat, mut cnt) = (vec![0u64; 2 * n], vec![0i32; 2 * n]);
    let (mut env_total, mut ops_total) = (0u64, 0u64);
    for (k, (p, r)) in chunk.iter().zip(&outs).enumerate() {
        if r.status == ST_DONE {
            cnt[2 * k] = if p.record { r.rows } else { 0 };
            cnt[2 * k + 1] = if r.traced != 0 { r.n_ops } else { 0 };
        }
        (gat[2 * k], gat[2 * k + 1]) = (env_total, ops_total);
        env_total += cnt[2 * k] as u64;
        ops_total += cnt[2 * k + 1] as u64;
    }
    let (genv, gops) = if env_total + ops_total > 0 {
        let d_gat = st.clone_htod(&gat).map_err(|e| err("upload", e))?;
        let d_cnt = st.clone_htod(&cnt).map_err(|e| err("upload", e))?;
        // SAFETY: the gather writes every entry (the counts sum to the totals) before they are downloaded.
        let mut d_genv = unsafe { st.alloc::<u32>(4 * env_total.max(1) as usize) }.map_err(|e| err("alloc", e))?;
        let mut d_gops = unsafe { st.alloc::<u32>(ops_total.max(1) as usize) }.map_err(|e| err("alloc", e))?;
        let cfg = LaunchConfig { grid_dim: (n as u32, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let n_i = n as i32;
        let mut l = st.launch_builder(gather);
        l.arg(&d_offs).arg(&d_gat).arg(&d_cnt).arg(&d_env).arg(&d_ops1).arg(&mut d_genv).arg(&mut d_gops).arg(&n_i);
        // SAFETY: the arguments match ydrop_gather's signature; offs holds NO entries per job of the launch, and
        // each job's counts stay inside what pass 1 wrote (its envelope rows and ops) and what gat gives it.
        unsafe { l.launch(cfg) }.map_err(|e| format!("ydrop gpu gather launch: {e:?}"))?;
        let genv = st.clone_dtoh(&d_genv.slice(0..4 * env_total as usize)).map_err(|e| err("download", e))?;
        let gops = st.clone_dtoh(&d_gops.slice(0..ops_total as usize)).map_err(|e| err("download", e))?;
        (genv, gops)
    } else {
        (Vec::new(), Vec::new())
    };
    let mut envs: Vec<Envelope> = vec![Envelope::default(); n];
    for (k, p) in chunk.iter().enumerate() {
        if !p.record || outs[k].status != ST_DONE {
            continue;
        }
        let raw = &genv[4 * gat[2 * k] as usize..4 * (gat[2 * k] as usize + cnt[2 * k] as usize)];
        let n_cols = jobs[p.idx].n;
        envs[k] = Envelope::unconstrained(
            n_cols,
            raw.chunks_exact(4).map(|w| (w[0], w[1], (w[3] & TESTED != 0).then_some((w[2], w[3] & !TESTED)))),
        );
    }
    if let Some(tm) = times.as_deref_mut() {
        tm.pass1 += t.elapsed().as_secs_f64();
    }
    drop(d_tb1);

    // pass 2 for the jobs with a path, in groups whose traceback fits what pass 1 left of the budget
    let tb_budget = budget.saturating_sub(chunk.iter().map(Prep::dev_bytes).sum());
    let mut traced: Vec<usize> = Vec::new();
    for (k, p) in chunk.iter().enumerate() {
        let r = outs[k];
        if r.status != ST_DONE {
            bailed.push((p.idx, r.status));
        } else if r.traced != 0 {
            let at = gat[2 * k + 1] as usize;
            let ops = &gops[at..at + cnt[2 * k + 1] as usize];
            done.push((p.idx, result_of(r, ops)?, std::mem::take(&mut envs[k])));
        } else if r.end1 == 0 {
            done.push((p.idx, result_of(r, &[])?, std::mem::take(&mut envs[k])));
        } else if r.tb_need as usize > TB_JOB_MAX.min(tb_budget / 2) {
            bailed.push((p.idx, ST_BAIL));
        } else {
            traced.push(k);
        }
    }
    let pass2_bytes = |k: usize| {
        let r = Out::from_ints(&res[k * NR..]);
        r.tb_need as usize + 4 * (r.end1 as usize + 1) + 4 * (r.end1 as usize + r.end2 as usize)
    };
    let mut start = 0;
    while start < traced.len() {
        let (mut end, mut bytes) = (start, 0usize);
        while end < traced.len() && (end == start || bytes + pass2_bytes(traced[end]) <= tb_budget / 2) {
            bytes += pass2_bytes(traced[end]);
            end += 1;
        }
        let group = &traced[start..end];
        let (mut tb_n, mut row_n, mut ops_n) = (0u64, 0u64, 0u64);
        let mut ops_at = Vec::with_capacity(group.len());
        for &k in group {
            let r = Out::from_ints(&res[k * NR..]);
            offs[k * NO + 3] = tb_n;
            offs[k * NO + 4] = row_n;
            offs[k * NO + 5] = ops_n;
            ops_at.push(ops_n as usize);
            tb_n += r.tb_need as u64;
            row_n += r.end1 as u64 + 1;
            ops_n += r.end1 as u64 + r.end2 as u64;
        }
        st.memcpy_htod(&offs, &mut d_offs).map_err(|e| err("upload", e))?;
        let order: Vec<i32> = group.iter().map(|&k| k as i32).collect();
        let d_order = st.clone_htod(&order).map_err(|e| err("upload", e))?;
        // SAFETY: pass 2 writes every traceback byte and row offset its traceback reads, and the ops it reports.
        let mut d_tb = unsafe { st.alloc::<u8>(tb_n as usize) }.map_err(|e| err("alloc", e))?;
        let mut d_row = unsafe { st.alloc::<u32>(row_n as usize) }.map_err(|e| err("alloc", e))?;
        let mut d_ops = unsafe { st.alloc::<u32>(ops_n as usize) }.map_err(|e| err("alloc", e))?;
        let t = std::time::Instant::now();
        launch(st, func, &d_offs, &d_par, &d_mats, &d_seqs, &mut d_ring, (&mut d_tb, &mut d_row, &mut d_ops), &mut d_env, &mut d_res, &d_order, group.len(), 1, sh_cells, (&mut d_top, 0))?;
        let res2 = st.clone_dtoh(&d_res).map_err(|e| err("download", e))?;
        let ops = st.clone_dtoh(&d_ops).map_err(|e| err("download", e))?;
        if let Some(tm) = times.as_deref_mut() {
            tm.pass2 += t.elapsed().as_secs_f64();
        }
        for (&k, &at) in group.iter().zip(&ops_at) {
            let r = Out::from_ints(&res2[k * NR..]);
            if r.status != ST_DONE {
                return Err(format!("ydrop gpu: pass 2 gave up on a job pass 1 finished ({})", r.status));
            }
            done.push((chunk[k].idx, result_of(r, &ops[at..at + r.n_ops as usize])?, std::mem::take(&mut envs[k])));
        }
        start = end;
    }
    Ok(())
}

/// Seconds in each pass (launch to results downloaded), for `WARPALIGN_YDROP_GPU_PROFILE`.
#[derive(Default)]
struct Times {
    pack: f64,
    upload: f64,
    pass1: f64,
    pass2: f64,
    /// Sequence bytes uploaded.
    bytes: u64,
}

fn result_of(r: Out, ops: &[u32]) -> Result<YdropResult, OutOfMemory> {
    Ok(YdropResult {
        score: r.score,
        end1: r.end1 as u32,
        end2: r.end2 as u32,
        truncated: if r.trunc != 0 { TRUNC_MIDWAY } else { TRUNC_NONE },
        n_ops: ops.len() as u32,
        ops: malloc_copy(ops)?,
    })
}

#[allow(clippy::too_many_arguments)]
fn launch(
    st: &Arc<CudaStream>,
    func: &CudaFunction,
    d_offs: &cudarc::driver::CudaSlice<u64>,
    d_par: &cudarc::driver::CudaSlice<i32>,
    d_mats: &cudarc::driver::CudaSlice<i32>,
    d_seqs: &cudarc::driver::CudaSlice<u8>,
    d_ring: &mut cudarc::driver::CudaSlice<i32>,
    (d_tb, d_row, d_ops): (&mut cudarc::driver::CudaSlice<u8>, &mut cudarc::driver::CudaSlice<u32>, &mut cudarc::driver::CudaSlice<u32>),
    d_env: &mut cudarc::driver::CudaSlice<u32>,
    d_res: &mut cudarc::driver::CudaSlice<i32>,
    d_order: &cudarc::driver::CudaSlice<i32>,
    n_order: usize,
    trace: i32,
    sh_cells: usize,
    (d_top, pool): (&mut cudarc::driver::CudaSlice<u64>, usize),
) -> Result<(), String> {
    // two rows of (C, D), 8 bytes a cell
    let shared_mem_bytes = (16 * sh_cells) as u32;
    let cfg = LaunchConfig { grid_dim: (n_order as u32, 1, 1), block_dim: (32 * WARPS_PER_JOB, 1, 1), shared_mem_bytes };
    let (n_i, sh_i, pool_u) = (n_order as i32, sh_cells as i32, pool as u32);
    let mut l = st.launch_builder(func);
    l.arg(d_offs).arg(d_par).arg(d_mats).arg(d_seqs).arg(d_ring).arg(d_tb).arg(d_row).arg(d_ops).arg(d_env).arg(d_res).arg(d_order).arg(&n_i).arg(&trace).arg(&sh_i).arg(d_top).arg(&pool_u);
    // SAFETY: the arguments match ydrop_one_sided's signature; par, offs and res hold NP, NO and NR entries per
    // job of the launch, order lists n_order of them, and the offsets stay inside seqs, ring and (pass 2) the
    // traceback, row and ops buffers, sized above from the same numbers; a job whose ring is at most sh_cells
    // uses the shared memory sized here instead of ring; pass 1's claims stay within the pool's bytes (top
    // zeroed before the launch).
    unsafe { l.launch(cfg) }.map_err(|e| format!("ydrop gpu launch: {e:?}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prep(ring: usize) -> Prep {
        Prep { idx: 0, plan: Plan { a_len: 100, b_len: 100, ring }, mat: 0, record: false, row_cap: 0 }
    }

    #[test]
    fn rings_up_to_the_shared_limit_take_no_global_memory() {
        let launch = [prep(512), prep(SHARED_RING_MAX), prep(2 * SHARED_RING_MAX)];
        assert_eq!(shared_ring_cells(&launch), SHARED_RING_MAX);
        let global: Vec<usize> = launch.iter().map(Prep::global_ring_bytes).collect();
        assert_eq!(global, [0, 0, 16 * 2 * SHARED_RING_MAX]);
        assert_eq!(launch[0].dev_bytes() + 16 * 2 * SHARED_RING_MAX, launch[2].dev_bytes());
        assert_eq!(shared_ring_cells(&[prep(64), prep(256)]), 256);
        assert_eq!(shared_ring_cells(&[prep(4 * SHARED_RING_MAX)]), 0);
    }
}
