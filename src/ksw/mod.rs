//! ksw engine: minimap2's `ksw_extd2_sse`, `ksw_exts2_sse` and `ksw_extz2_sse` as batch calls.
//!
//! Jobs and results are `#[repr(C)]` and are the C API's types. A result's CIGAR is `malloc`ed and owned
//! by the caller (free it with `warpalign_ksw_results_free`), in ksw2's encoding: `len<<4 | op`.

pub mod cache;
pub mod dump;
pub mod gpu;
pub mod twin;

use crate::gpu::GPU_MIN_JOBS;
use crate::engine::BatchResult;
use crate::memory::OutOfMemory;
use crate::{Backend, Engine, Error, Result};

/// ksw2 flags, as in minimap2's ksw2.h.
pub mod flag {
    pub const SCORE_ONLY: i32 = 0x01;
    pub const RIGHT: i32 = 0x02;
    pub const GENERIC_SC: i32 = 0x04;
    pub const APPROX_MAX: i32 = 0x08;
    pub const APPROX_DROP: i32 = 0x10;
    pub const EXTZ_ONLY: i32 = 0x40;
    pub const REV_CIGAR: i32 = 0x80;
    pub const SPLICE_FOR: i32 = 0x100;
    pub const SPLICE_REV: i32 = 0x200;
    pub const SPLICE_FLANK: i32 = 0x400;
    pub const SPLICE_CMPLX: i32 = 0x800;
    pub const SPLICE_SCORE: i32 = 0x1000;
}

/// One `ksw_extd2_sse` call (dual affine gaps); the fields are that function's arguments.
///
/// The C API refuses a job (WARPALIGN_STATUS_INVALID_ARGUMENT, before any work) unless, as upstream's
/// `int` arithmetic needs: `qlen, tlen >= 0` (0: upstream's reset result), `query`/`target` non-null when
/// their length is positive, `m >= 2` and `mat` non-null; `qlen + tlen + band <= INT32_MAX - 15`, `band`
/// being `w` (or `max(qlen, tlen)` when `w < 0`); `tlen <= 536870896` (the `int` size of upstream's
/// score row); `zdrop < 0` or `zdrop <= INT32_MAX - 128 (qlen + tlen)`; `-2^30 <= end_bonus <=
/// INT32_MAX - 128 (qlen + tlen)`; with `KSW_EZ_GENERIC_SC` every base `< m` (bases index `mat`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KswExtd2Job {
    pub qlen: i32,
    pub query: *const u8,
    pub tlen: i32,
    pub target: *const u8,
    /// Alphabet size; `mat` is `m*m` scores.
    pub m: i8,
    pub mat: *const i8,
    pub q: i8,
    pub e: i8,
    pub q2: i8,
    pub e2: i8,
    pub w: i32,
    pub zdrop: i32,
    pub end_bonus: i32,
    pub flag: i32,
}

/// One `ksw_exts2_sse` call (splice-aware); `junc` may be null.
///
/// The C API refuses a job (WARPALIGN_STATUS_INVALID_ARGUMENT, before any work) unless, as upstream's
/// `int` arithmetic needs: `qlen, tlen >= 0` (0: upstream's reset result), `query`/`target` non-null when
/// their length is positive, `m >= 2` and `mat` non-null; `qlen + tlen + band <= INT32_MAX - 15`, `band`
/// being `w` (or `max(qlen, tlen)` when `w < 0`) (exts2 has no band: 0); `tlen <= 536870896` (the `int` size of upstream's
/// score row); `zdrop < 0` or `zdrop <= INT32_MAX - 128 (qlen + tlen)`; `-2^30 <= end_bonus <=
/// INT32_MAX - 128 (qlen + tlen)`; with `KSW_EZ_GENERIC_SC` every base `< m` (bases index `mat`). Also `e != 0` (upstream divides by
/// it) and not both `KSW_EZ_SPLICE_FOR` and `KSW_EZ_SPLICE_REV` (upstream asserts); `junc` covers `tlen` bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KswExts2Job {
    pub qlen: i32,
    pub query: *const u8,
    pub tlen: i32,
    pub target: *const u8,
    pub m: i8,
    pub mat: *const i8,
    pub q: i8,
    pub e: i8,
    pub q2: i8,
    pub noncan: i8,
    pub zdrop: i32,
    pub end_bonus: i32,
    pub junc_bonus: i8,
    pub junc_pen: i8,
    pub flag: i32,
    pub junc: *const u8,
}

/// One `ksw_extz2_sse` call (single affine gap). Its contract is warpalign_ksw_extd2_job's.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KswExtz2Job {
    pub qlen: i32,
    pub query: *const u8,
    pub tlen: i32,
    pub target: *const u8,
    pub m: i8,
    pub mat: *const i8,
    pub q: i8,
    pub e: i8,
    pub w: i32,
    pub zdrop: i32,
    pub end_bonus: i32,
    pub flag: i32,
}

/// Every output field of ksw2's `ksw_extz_t`.
#[repr(C)]
#[derive(Debug)]
pub struct KswResult {
    pub max: u32,
    pub zdropped: i32,
    pub max_q: i32,
    pub max_t: i32,
    pub mqe: i32,
    pub mqe_t: i32,
    pub mte: i32,
    pub mte_q: i32,
    pub score: i32,
    pub reach_end: i32,
    pub n_cigar: i32,
    /// `malloc`ed; null when `n_cigar == 0`.
    pub cigar: *mut u32,
}

impl KswResult {
    pub const EMPTY: KswResult = KswResult {
        max: 0,
        zdropped: 0,
        max_q: 0,
        max_t: 0,
        mqe: 0,
        mqe_t: 0,
        mte: 0,
        mte_q: 0,
        score: 0,
        reach_end: 0,
        n_cigar: 0,
        cigar: std::ptr::null_mut(),
    };

    pub fn cigar(&self) -> &[u32] {
        if self.cigar.is_null() || self.n_cigar <= 0 {
            &[]
        } else {
            // SAFETY: cigar holds n_cigar elements, written by the engine.
            unsafe { std::slice::from_raw_parts(self.cigar, self.n_cigar as usize) }
        }
    }

    /// Frees the CIGAR and leaves an empty result.
    pub fn release(&mut self) {
        if !self.cigar.is_null() {
            // SAFETY: engines allocate CIGARs with malloc.
            unsafe { libc::free(self.cigar.cast()) };
        }
        *self = KswResult::EMPTY;
    }
}

impl BatchResult for KswResult {
    const EMPTY: KswResult = KswResult::EMPTY;
    fn release(&mut self) {
        KswResult::release(self)
    }
}

// SAFETY: a job only reads the memory it points to, which the caller keeps alive and unchanged for the call.
unsafe impl Send for KswExtd2Job {}
unsafe impl Sync for KswExtd2Job {}
unsafe impl Send for KswExts2Job {}
unsafe impl Sync for KswExts2Job {}
unsafe impl Send for KswExtz2Job {}
unsafe impl Sync for KswExtz2Job {}
// SAFETY: a result exclusively owns its CIGAR allocation.
unsafe impl Send for KswResult {}

/// Only what would make the call read invalid memory is refused; degenerate sizes (empty or negative
/// lengths, `m <= 1`) go through, and the engine answers them as upstream does (a reset result).
fn check_common(i: usize, qlen: i32, query: *const u8, tlen: i32, target: *const u8, m: i8, mat: *const i8) -> Result<()> {
    let bad = |what: &str| Err(Error::InvalidArgument(format!("ksw job {i}: {what}")));
    if (qlen > 0 && query.is_null()) || (tlen > 0 && target.is_null()) {
        return bad("null sequence with a positive length");
    }
    if m > 0 && mat.is_null() {
        return bad("null score matrix");
    }
    Ok(())
}

trait KswJob: Sync {
    fn check(&self, i: usize) -> Result<()>;
    /// Runs the job on the CPU path.
    fn run_cpu(&self, out: &mut KswResult) -> std::result::Result<(), OutOfMemory>;
}

/// Each kind's [`KswJob`]: the check of the fields all kinds have, and its twin.
macro_rules! ksw_jobs {
    ($($Job:ident: $twin:path),*) => {$(
        impl KswJob for $Job {
            fn check(&self, i: usize) -> Result<()> {
                check_common(i, self.qlen, self.query, self.tlen, self.target, self.m, self.mat)
            }
            fn run_cpu(&self, out: &mut KswResult) -> std::result::Result<(), OutOfMemory> {
                $twin(self, out)
            }
        }
    )*};
}
ksw_jobs!(KswExtd2Job: twin::extd2, KswExts2Job: twin::exts2, KswExtz2Job: twin::extz2);

fn check_batch<J: KswJob>(jobs: &[J], results: &[KswResult]) -> Result<()> {
    if jobs.len() != results.len() {
        return Err(Error::InvalidArgument(format!("{} jobs but {} results", jobs.len(), results.len())));
    }
    jobs.iter().enumerate().try_for_each(|(i, j)| j.check(i))
}

/// The exact CPU path: the Rust twins of extd2, exts2 and extz2.
fn run_cpu<J: KswJob>(jobs: &[J], results: &mut [KswResult]) -> Result<()> {
    crate::engine::try_par_zip("ksw", jobs, results, |j, r| j.run_cpu(r))
}

pub fn extd2_batch(engine: &Engine, jobs: &[KswExtd2Job], results: &mut [KswResult]) -> Result<()> {
    extd2_run(engine, jobs, results).map(|_| ())
}

/// [`extd2_batch`], saying which backend ran the batch.
fn extd2_run(engine: &Engine, jobs: &[KswExtd2Job], results: &mut [KswResult]) -> Result<Backend> {
    run(engine, jobs, results, dump::encode_extd2, gpu::extd2_batch_gpu)
}

pub fn exts2_batch(engine: &Engine, jobs: &[KswExts2Job], results: &mut [KswResult]) -> Result<()> {
    exts2_run(engine, jobs, results).map(|_| ())
}

/// [`exts2_batch`], saying which backend ran the batch.
fn exts2_run(engine: &Engine, jobs: &[KswExts2Job], results: &mut [KswResult]) -> Result<Backend> {
    run(engine, jobs, results, dump::encode_exts2, gpu::exts2_batch_gpu)
}

/// A batch of a kind with a kernel: checked, dumped when asked, on the GPU when it is worth a launch, else
/// (or when the GPU fails) on the twin.
fn run<J: KswJob>(
    engine: &Engine,
    jobs: &[J],
    results: &mut [KswResult],
    encode: unsafe fn(&mut Vec<u8>, &J),
    on_gpu: fn(&crate::gpu::GpuRuntime, &[J], &mut [KswResult]) -> std::result::Result<(), String>,
) -> Result<Backend> {
    check_batch(jobs, results)?;
    dump::dump(jobs, encode)?;
    if let Some(rt) = (jobs.len() >= GPU_MIN_JOBS).then(|| engine.gpu()).flatten() {
        match on_gpu(&rt, jobs, results) {
            Ok(()) => return Ok(Backend::Gpu),
            Err(e) => crate::engine::gpu_failed_notice(&e),
        }
    }
    run_cpu(jobs, results)?;
    Ok(Backend::Cpu)
}

pub fn extz2_batch(_engine: &Engine, jobs: &[KswExtz2Job], results: &mut [KswResult]) -> Result<()> {
    check_batch(jobs, results)?;
    dump::dump(jobs, dump::encode_extz2)?;
    run_cpu(jobs, results)
}
