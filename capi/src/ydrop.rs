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

/// What a speculative extension swept (opaque): made by warpalign_ydrop_speculate, read by
/// warpalign_ydrop_unaffected, freed by warpalign_ydrop_envelopes_free.
pub struct WarpalignYdropEnvelope(ydrop::twin::shadow::Envelope);

/// Runs `n` jobs ahead of the calls they stand for, each as if it had no earlier alignments (`bounds` is
/// not read), in parallel. `results[i]` as in warpalign_ydrop_batch; `envelopes[i]` receives a new
/// envelope of job i (free with warpalign_ydrop_envelopes_free). A later call with the same sequences,
/// lengths, scoring, direction and traceback size may take result i when warpalign_ydrop_unaffected says
/// its earlier alignments would not have changed it.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_speculate(
    ctx: *const WarpalignCtx,
    jobs: *const YdropJob,
    n: usize,
    results: *mut YdropResult,
    envelopes: *mut *mut WarpalignYdropEnvelope,
) -> WarpalignStatus {
    guard("warpalign_ydrop_speculate", || {
        let (_engine, jobs, results) = batch_args(ctx, jobs, n, results)?;
        if n > 0 && envelopes.is_null() {
            return Err(warpalign::Error::InvalidArgument("null envelope array".into()));
        }
        let mut envs: Vec<ydrop::twin::shadow::Envelope> = (0..n).map(|_| Default::default()).collect();
        ydrop::speculate_batch(jobs, results, &mut envs)?;
        // SAFETY: the caller passes room for n envelope pointers.
        let out = unsafe { std::slice::from_raw_parts_mut(envelopes, n) };
        for (o, e) in out.iter_mut().zip(envs) {
            *o = Box::into_raw(Box::new(WarpalignYdropEnvelope(e)));
        }
        Ok(())
    })
}

/// 1 when `job` (the real call: same sequences, lengths, scoring, direction and traceback size as the
/// speculative job whose envelope this is, with its real `bounds`, or NULL) computes exactly the
/// speculative result; 0 when it may not (run the call). Exact: LASTZ's bound and mask logic replayed over
/// the rows the speculative sweep entered.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_unaffected(envelope: *const WarpalignYdropEnvelope, job: *const YdropJob) -> i32 {
    if envelope.is_null() || job.is_null() {
        return 0;
    }
    // SAFETY: both come from the caller as documented (a live envelope, a job whose bounds are well-formed).
    let (env, job) = unsafe { (&(*envelope).0, &*job) };
    if !job.bounds.is_null() && unsafe { (*job.bounds).check() }.is_err() {
        return 0;
    }
    std::panic::catch_unwind(|| ydrop::twin::shadow::unaffected(env, job) as i32).unwrap_or(0)
}

/// Frees `n` envelopes and sets their pointers to NULL. NULL arrays and entries are ignored.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_envelopes_free(envelopes: *mut *mut WarpalignYdropEnvelope, n: usize) {
    if envelopes.is_null() {
        return;
    }
    // SAFETY: the caller passes n pointers made by warpalign_ydrop_speculate (or NULL).
    for e in unsafe { std::slice::from_raw_parts_mut(envelopes, n) } {
        if !e.is_null() {
            // SAFETY: made by Box::into_raw in warpalign_ydrop_speculate, freed once.
            drop(unsafe { Box::from_raw(*e) });
            *e = std::ptr::null_mut();
        }
    }
}
