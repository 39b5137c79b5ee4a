//! C entry points of the ksw engine.

use crate::{batch_args, clear_last_error, contract, guard, WarpalignCtx, WarpalignStatus};
use warpalign::ksw::{self, KswExtd2Job, KswExts2Job, KswExtz2Job, KswResult};

/// Runs `n` `ksw_extd2_sse` jobs. `results[i]` is overwritten (not freed) with job i's output; its CIGAR
/// is `malloc`ed: release with warpalign_ksw_results_free. Jobs' memory must stay valid for the call. A job
/// outside its contract (see warpalign_ksw_extd2_job) fails the whole batch with
/// WARPALIGN_STATUS_INVALID_ARGUMENT before any work, naming the job. A job whose memory cannot be allocated
/// (its traceback is about `(qlen + tlen) * min(qlen, tlen, band)` bytes) fails the batch with
/// WARPALIGN_STATUS_OUT_OF_MEMORY, naming the job and the bytes: every result is left empty (nothing to free).
#[no_mangle]
pub extern "C" fn warpalign_ksw_extd2_batch(
    ctx: *const WarpalignCtx,
    jobs: *const KswExtd2Job,
    n: usize,
    results: *mut KswResult,
) -> WarpalignStatus {
    guard("warpalign_ksw_extd2_batch", || {
        let (engine, jobs, results) = batch_args(ctx, jobs, n, results)?;
        contract::all("ksw", jobs, contract::extd2)?;
        ksw::extd2_batch(engine, jobs, results)
    })
}

/// Runs `n` `ksw_exts2_sse` (splice) jobs; as warpalign_ksw_extd2_batch.
#[no_mangle]
pub extern "C" fn warpalign_ksw_exts2_batch(
    ctx: *const WarpalignCtx,
    jobs: *const KswExts2Job,
    n: usize,
    results: *mut KswResult,
) -> WarpalignStatus {
    guard("warpalign_ksw_exts2_batch", || {
        let (engine, jobs, results) = batch_args(ctx, jobs, n, results)?;
        contract::all("ksw", jobs, contract::exts2)?;
        ksw::exts2_batch(engine, jobs, results)
    })
}

/// Runs `n` `ksw_extz2_sse` jobs; as warpalign_ksw_extd2_batch.
#[no_mangle]
pub extern "C" fn warpalign_ksw_extz2_batch(
    ctx: *const WarpalignCtx,
    jobs: *const KswExtz2Job,
    n: usize,
    results: *mut KswResult,
) -> WarpalignStatus {
    guard("warpalign_ksw_extz2_batch", || {
        let (engine, jobs, results) = batch_args(ctx, jobs, n, results)?;
        contract::all("ksw", jobs, contract::extz2)?;
        ksw::extz2_batch(engine, jobs, results)
    })
}

/// Frees the CIGARs of `n` results and zeroes them. NULL is ignored.
#[no_mangle]
pub extern "C" fn warpalign_ksw_results_free(results: *mut KswResult, n: usize) {
    clear_last_error();
    if results.is_null() {
        return;
    }
    // SAFETY: the caller passes n results written by a warpalign ksw batch call.
    unsafe { std::slice::from_raw_parts_mut(results, n) }.iter_mut().for_each(KswResult::release);
}
