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

/// warpalign_ydrop_result.truncated of a job whose traceback memory ran out mid-extension: the result is
/// what LASTZ's ydrop_one_sided_align returns then (it also prints its "truncating alignment" report).
pub const WARPALIGN_YDROP_TRUNC_MIDWAY: i32 = 1;
const _: () = assert!(WARPALIGN_YDROP_TRUNC_MIDWAY == ydrop::TRUNC_MIDWAY);

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

/// DP cells the y-drop engine's CPU path has swept in this process, on every thread (for rates; extensions
/// computed ahead count whether or not a call took them).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_cells() -> u64 {
    ydrop::twin::cells_swept()
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

/// What an extension computed ahead swept (opaque): made by warpalign_ydrop_ahead_take, read by
/// warpalign_ydrop_unaffected, freed by warpalign_ydrop_envelopes_free.
pub struct WarpalignYdropEnvelope(ydrop::twin::shadow::Envelope);

/// 1 when `job` (the real call: same sequences, lengths, scoring, direction and traceback size as the job
/// computed ahead whose envelope this is, with its real `bounds`, or NULL) computes exactly the result
/// computed ahead; 0 when it may not (run the call). Exact: LASTZ's bound and mask logic replayed over the
/// rows the sweep entered, giving every answer the sweep got.
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

/// The rows the sweep of the job computed ahead entered (0 for a NULL envelope). `*ran_under_bounds` (when
/// not NULL) is set to 1 when a CPU worker ran the job under the bounds it was queued with, 0 when it ran
/// without bounds (queued without, or run by the GPU thread, which takes no bounds).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_envelope_rows(envelope: *const WarpalignYdropEnvelope, ran_under_bounds: *mut i32) -> u32 {
    // SAFETY: the caller passes a live envelope (or NULL) and a writable int (or NULL).
    let env = unsafe { envelope.as_ref() };
    if let Some(r) = unsafe { ran_under_bounds.as_mut() } {
        *r = env.is_some_and(|e| e.0.ran_under.is_some()) as i32;
    }
    env.map_or(0, |e| e.0.rows() as u32)
}

/// Frees `n` envelopes and sets their pointers to NULL. NULL arrays and entries are ignored.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_envelopes_free(envelopes: *mut *mut WarpalignYdropEnvelope, n: usize) {
    if envelopes.is_null() {
        return;
    }
    // SAFETY: the caller passes n pointers made by warpalign_ydrop_ahead_take (or NULL).
    for e in unsafe { std::slice::from_raw_parts_mut(envelopes, n) } {
        if !e.is_null() {
            // SAFETY: made by Box::into_raw in warpalign_ydrop_ahead_take, freed once.
            drop(unsafe { Box::from_raw(*e) });
            *e = std::ptr::null_mut();
        }
    }
}

/// A pool of threads computing y-drop extensions ahead of the calls they stand for (opaque): made by
/// warpalign_ydrop_ahead_create, freed by warpalign_ydrop_ahead_destroy. One caller thread at a time.
pub struct WarpalignYdropAhead(ydrop::ahead::Ahead);

/// Starts `threads` worker threads (0: one less than the cores, at least one), and with
/// `WARPALIGN_BACKEND=gpu` a thread that runs batches of the queued jobs on the GPU. Returns NULL when a thread
/// cannot start or `WARPALIGN_BACKEND` is not auto, cpu or gpu (see warpalign_last_error).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_create(threads: usize) -> *mut WarpalignYdropAhead {
    let mut pool = std::ptr::null_mut();
    guard("warpalign_ydrop_ahead_create", || {
        pool = Box::into_raw(Box::new(WarpalignYdropAhead(ydrop::ahead::Ahead::new(threads)?)));
        Ok(())
    });
    pool
}

/// Queues `job` and writes its ticket. It runs under its `bounds` (the earlier alignments known now, copied
/// here; NULL: none), and a later call may take its result when warpalign_ydrop_unaffected accepts the
/// call's real bounds. Workers take the queued job of lowest `priority` first (equal ones in the order
/// queued). The job's sequences and matrix must stay valid and unchanged until its ticket is taken or
/// cancelled, or the pool drained.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_submit(
    pool: *mut WarpalignYdropAhead,
    job: *const YdropJob,
    priority: u64,
    ticket: *mut u64,
) -> WarpalignStatus {
    guard("warpalign_ydrop_ahead_submit", || {
        if pool.is_null() || job.is_null() || ticket.is_null() {
            return Err(warpalign::Error::InvalidArgument("null pool, job or ticket".into()));
        }
        // SAFETY: live pool and job, writable ticket (the caller's contract).
        unsafe { *ticket = (*pool).0.submit(&*job, priority)? };
        Ok(())
    })
}

/// Takes a queued job: when a worker finished it, writes its result (as warpalign_ydrop_batch; free with
/// warpalign_ydrop_results_free) and a new envelope (for warpalign_ydrop_unaffected; free with
/// warpalign_ydrop_envelopes_free); while a worker runs it, waits for it; when none started it, drops it and
/// writes an empty result and a NULL envelope (run the call yourself). A ticket is taken once.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_take(
    pool: *mut WarpalignYdropAhead,
    ticket: u64,
    result: *mut YdropResult,
    envelope: *mut *mut WarpalignYdropEnvelope,
) -> WarpalignStatus {
    guard("warpalign_ydrop_ahead_take", || {
        if pool.is_null() || result.is_null() || envelope.is_null() {
            return Err(warpalign::Error::InvalidArgument("null pool, result or envelope".into()));
        }
        // SAFETY: the caller's contract: a live pool, writable result and envelope pointer.
        let (pool, result, envelope) = unsafe { (&(*pool).0, &mut *result, &mut *envelope) };
        *result = YdropResult::EMPTY;
        *envelope = std::ptr::null_mut();
        if let ydrop::ahead::Taken::Done(r, e) = pool.take(ticket)? {
            *result = r;
            *envelope = Box::into_raw(Box::new(WarpalignYdropEnvelope(e)));
        }
        Ok(())
    })
}

/// 1 when a worker has finished the job (warpalign_ydrop_ahead_take would not wait), else 0 (queued, running,
/// taken or unknown; a NULL pool too).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_finished(pool: *const WarpalignYdropAhead, ticket: u64) -> i32 {
    if pool.is_null() {
        return 0;
    }
    // SAFETY: a live pool (the caller's contract).
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*pool).0.finished(ticket) } as i32)).unwrap_or(0)
}

/// For a queued job that has ended: 1 when its result still holds for `job` (the same call, with the
/// earlier alignments known now as its `bounds`, or NULL), as warpalign_ydrop_unaffected would say; 0 when
/// it does not (cancel it and queue the call again); -1 while it is queued or running, for an unknown
/// ticket, or a NULL pool or job. The pool's workers go on while it checks.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_still_holds(pool: *mut WarpalignYdropAhead, ticket: u64, job: *const YdropJob) -> i32 {
    if pool.is_null() || job.is_null() {
        return -1;
    }
    // SAFETY: a live pool and a job whose bounds are well-formed (the caller's contract).
    let (pool, job) = unsafe { (&(*pool).0, &*job) };
    if !job.bounds.is_null() && unsafe { (*job.bounds).check() }.is_err() {
        return 0;
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match pool.still_holds(ticket, job) {
        None => -1,
        Some(ok) => ok as i32,
    }))
    .unwrap_or(0)
}

/// For a queued job that has ended: the rows its sweep entered (as warpalign_ydrop_envelope_rows would say of
/// the envelope warpalign_ydrop_ahead_take would give), and in `*ran_under_bounds` (if not NULL) 1 when it
/// ran under its bounds' copy, else 0; -1 while it is queued or running, for a job that failed, an unknown
/// ticket, or a NULL pool.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_rows(pool: *const WarpalignYdropAhead, ticket: u64, ran_under_bounds: *mut i32) -> i64 {
    if pool.is_null() {
        return -1;
    }
    // SAFETY: a live pool (the caller's contract).
    let rows = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*pool).0.envelope_rows(ticket) }));
    match rows {
        Ok(Some((rows, ran_under))) => {
            // SAFETY: a writable int or NULL (the caller's contract).
            if let Some(r) = unsafe { ran_under_bounds.as_mut() } {
                *r = ran_under as i32;
            }
            rows as i64
        }
        _ => -1,
    }
}

/// Gives the calling thread the traceback scratch memory one of the pool's workers touched for it when the pool
/// started, if that is done (it never waits; later calls do nothing). The thread that takes the pool's results
/// and runs the calls not computed ahead calls this before its first call, so that a large call of its own
/// pays no page faults for that memory. A NULL pool is ignored.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_adopt_scratch(pool: *const WarpalignYdropAhead) {
    if !pool.is_null() {
        // SAFETY: a live pool (the caller's contract).
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*pool).0.adopt_caller_scratch() }));
    }
}

/// Drops a queued job whose result is not wanted (it never runs if no worker started it). Unknown tickets
/// and a NULL pool are ignored.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_cancel(pool: *mut WarpalignYdropAhead, ticket: u64) {
    if !pool.is_null() {
        // SAFETY: a live pool (the caller's contract).
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*pool).0.cancel(ticket) }));
    }
}

/// 1 when the job had not started and is now dropped (it never runs, and its ticket is gone); 0 when a
/// worker has started or finished it (it stays as it is), for an unknown ticket, or a NULL pool.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_cancel_queued(pool: *mut WarpalignYdropAhead, ticket: u64) -> i32 {
    if pool.is_null() {
        return 0;
    }
    // SAFETY: a live pool (the caller's contract).
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*pool).0.cancel_queued(ticket) } as i32)).unwrap_or(0)
}

/// Drops every queued job and waits until no worker runs one: afterwards no job reads the caller's memory.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_drain(pool: *mut WarpalignYdropAhead) {
    if !pool.is_null() {
        // SAFETY: a live pool (the caller's contract).
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*pool).0.drain() }));
    }
}

/// Drains the pool and stops its threads (NULL is ignored).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_ahead_destroy(pool: *mut WarpalignYdropAhead) {
    if !pool.is_null() {
        // SAFETY: made by Box::into_raw in warpalign_ydrop_ahead_create, destroyed once.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(unsafe { Box::from_raw(pool) })));
    }
}
