//! C entry points of the chain engine.

use crate::{batch_args, clear_last_error, guard, WarpalignCtx, WarpalignStatus};
use warpalign::chain::{self, ChainDpJob, ChainDpResult};

/// Runs `n` `mg_lchain_dp` jobs. `results[i]` is overwritten (not freed) with the chains and compacted
/// anchors of job i (`malloc`ed: release with warpalign_chain_dp_results_free). Input anchors are not
/// modified or freed (unlike mg_lchain_dp, which frees its input). A job whose memory (about 40 bytes per
/// anchor) cannot be allocated fails the batch with WARPALIGN_STATUS_OUT_OF_MEMORY, naming the job: every
/// result is left empty (nothing to free).
#[no_mangle]
pub extern "C" fn warpalign_chain_dp_batch(
    ctx: *const WarpalignCtx,
    jobs: *const ChainDpJob,
    n: usize,
    results: *mut ChainDpResult,
) -> WarpalignStatus {
    guard("warpalign_chain_dp_batch", || {
        let (engine, jobs, results) = batch_args(ctx, jobs, n, results)?;
        chain::dp_batch(engine, jobs, results)
    })
}

/// Frees the arrays of `n` chain results and zeroes them. NULL is ignored.
#[no_mangle]
pub extern "C" fn warpalign_chain_dp_results_free(results: *mut ChainDpResult, n: usize) {
    clear_last_error();
    if results.is_null() {
        return;
    }
    // SAFETY: the caller passes n results written by warpalign_chain_dp_batch.
    unsafe { std::slice::from_raw_parts_mut(results, n) }.iter_mut().for_each(ChainDpResult::release);
}
