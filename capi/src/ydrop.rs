//! C entry points of the ydrop engine.

use crate::{batch_args, guard, WarpalignCtx, WarpalignStatus};
use warpalign::ydrop::{self, YdropJob, YdropResult};

/// The "no alignment / no segment" index of warpalign_ydrop_bounds and warpalign_ydrop_alignment (a NULL
/// pointer in LASTZ). Segment kinds are LASTZ's: 0 diagonal, 1 horizontal, 2 vertical.
pub const WARPALIGN_YDROP_NONE: u32 = 0xFFFF_FFFF;
const _: () = assert!(WARPALIGN_YDROP_NONE == ydrop::NONE);

/// warpalign_ydrop_result.truncated of a job whose sweep reached a row past its bounds block's `rows`: run
/// it again with a block serving more rows.
pub const WARPALIGN_YDROP_TRUNC_BOUNDS: i32 = 3;
const _: () = assert!(WARPALIGN_YDROP_TRUNC_BOUNDS == ydrop::TRUNC_BOUNDS);

/// Runs `n` LASTZ `ydrop_one_sided_align` jobs (see warpalign_ydrop_job for the sequence convention, and
/// warpalign_ydrop_bounds for a constrained job's earlier alignments). `results[i]` is overwritten (not freed) with job i's output; its `ops` are `malloc`ed:
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
