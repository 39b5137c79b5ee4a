//! C entry points of the ydrop engine.

use crate::{batch_args, guard, WarpalignCtx, WarpalignStatus};
use warpalign::ydrop::{self, YdropJob, YdropResult};

/// Runs `n` unconstrained LASTZ `ydrop_one_sided_align` jobs (see warpalign_ydrop_job for the sequence
/// convention). `results[i]` is overwritten (not freed) with job i's output; its `ops` are `malloc`ed:
/// release with warpalign_ydrop_results_free. Jobs' memory must stay valid for the call.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_batch(
    ctx: *const WarpalignCtx,
    jobs: *const YdropJob,
    n: usize,
    results: *mut YdropResult,
) -> WarpalignStatus {
    guard("warpalign_ydrop_batch", || {
        let (engine, jobs, results) = batch_args(ctx, jobs, n, results)?;
        ydrop::one_sided_batch(engine, jobs, results)
    })
}

/// Frees the edit ops of `n` results and zeroes them. NULL is ignored.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_results_free(results: *mut YdropResult, n: usize) {
    if results.is_null() {
        return;
    }
    // SAFETY: the caller passes n results written by warpalign_ydrop_batch.
    unsafe { std::slice::from_raw_parts_mut(results, n) }.iter_mut().for_each(YdropResult::release);
}
