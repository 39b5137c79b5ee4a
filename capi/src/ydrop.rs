//! C entry points of the ydrop engine.

use crate::{batch_args, clear_last_error, contract, guard, quiet, WarpalignCtx, WarpalignStatus};
use std::ffi::c_void;
use warpalign::ydrop::schedule::{AlignHandle, Bounds, BoundsOf, Extended, Schedule, YdropAnchor};
use warpalign::ydrop::{self, YdropBounds, YdropJob, YdropResult};

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
/// release with warpalign_ydrop_results_free. Jobs' memory must stay valid for the call. A job outside its
/// contract (see warpalign_ydrop_job) fails the whole batch with WARPALIGN_STATUS_INVALID_ARGUMENT before any work.
/// A job whose memory cannot be allocated (e.g. a huge `tb_size` and sequences the y-drop never stops on)
/// fails it with WARPALIGN_STATUS_OUT_OF_MEMORY, every result left empty (nothing to free).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_batch(
    ctx: *const WarpalignCtx,
    jobs: *const YdropJob,
    n: usize,
    results: *mut YdropResult,
) -> WarpalignStatus {
    guard("warpalign_ydrop_batch", || {
        let (engine, jobs, results) = batch_args(ctx, jobs, n, results)?;
        contract::all("ydrop", jobs, contract::ydrop)?;
        ydrop::one_sided_batch(engine, jobs, results)
    })
}

/// DP cells the y-drop engine's CPU path has swept in this process, on every thread (for rates; extensions
/// computed ahead count whether or not a call took them).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_cells() -> u64 {
    clear_last_error();
    ydrop::twin::cells_swept()
}

/// Frees the edit ops of `n` results and zeroes them. NULL is ignored.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_results_free(results: *mut YdropResult, n: usize) {
    clear_last_error();
    if results.is_null() {
        return;
    }
    // SAFETY: the caller passes n results written by warpalign_ydrop_batch.
    unsafe { std::slice::from_raw_parts_mut(results, n) }.iter_mut().for_each(YdropResult::release);
}

/// The schedule of a sequential anchor loop's y-drop calls (LASTZ's gapped_extend), opaque: made by
/// warpalign_ydrop_schedule_create, freed by warpalign_ydrop_schedule_destroy. It computes extensions ahead
/// of the loop on a pool of worker threads (`WARPALIGN_YDROP_AHEAD` anchors; 0: none) and answers each call
/// exactly as LASTZ's ydrop_one_sided_align would, taking a result computed ahead only when the call's real
/// earlier alignments would leave it as it is. One caller thread at a time; every call below may call back
/// into the host.
pub struct WarpalignYdropSchedule {
    schedule: ydrop::schedule::Schedule,
    host: CHost,
}

/// What the loop's host answers about its own data (function pointers, none NULL; `ctx` is passed back).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct WarpalignYdropHost {
    pub ctx: *mut c_void,
    /// Anchor `k` of the loop (past the current one): writes its position and two jobs (left, right; no
    /// bounds) under the limits the loop will set for it and returns 1; 0 when the loop will skip it (outside
    /// its limits, or an earlier alignment contains it).
    pub anchor: Option<unsafe extern "C" fn(ctx: *mut c_void, k: u32, out: *mut YdropAnchor) -> i32>,
    /// Makes anchor `k`'s earlier alignments, as the loop would find them now, those `bounds` reads with
    /// `of` = 1 (for the current anchor: the loop's own); 0 when one contains the anchor, else 1.
    pub know: Option<unsafe extern "C" fn(ctx: *mut c_void, k: u32) -> i32>,
    /// The earlier alignments a job of `m` rows (the left half when `reversed`) can reach, of the current
    /// call (`of` = 0) or of the anchor `know` named (`of` = 1), the list cut after `depth` of them: 0 when
    /// none can (unconstrained), 1 with `*out` written (valid until the next `bounds`), -1 when they cannot
    /// be flattened.
    pub bounds: Option<
        unsafe extern "C" fn(ctx: *mut c_void, of: i32, reversed: i32, m: u32, depth: u32, out: *mut YdropBounds) -> i32,
    >,
    /// 1 when the inserted alignment `align` contains the anchor at (`pos1`, `pos2`).
    pub contains: Option<unsafe extern "C" fn(ctx: *mut c_void, align: *const c_void, pos1: u32, pos2: u32) -> i32>,
    /// 1 when any earlier alignment contains the anchor at (`pos1`, `pos2`).
    pub covered: Option<unsafe extern "C" fn(ctx: *mut c_void, pos1: u32, pos2: u32) -> i32>,
    /// The search's anchor at (`pos1`, `pos2`): writes its two jobs (left, right) under its partitions' limits
    /// and returns 1; 0 outside them.
    pub early_jobs: Option<unsafe extern "C" fn(ctx: *mut c_void, pos1: u32, pos2: u32, jobs: *mut YdropJob) -> i32>,
    /// The offset of the peak of the HSP of `length` at (`pos1`, `pos2`).
    pub peak: Option<unsafe extern "C" fn(ctx: *mut c_void, pos1: u32, pos2: u32, length: u32) -> u32>,
}

/// The host's callbacks, checked non-NULL at creation.
struct CHost(WarpalignYdropHost);

impl CHost {
    fn of(h: &WarpalignYdropHost) -> Option<CHost> {
        let all = h.anchor.is_some()
            && h.know.is_some()
            && h.bounds.is_some()
            && h.contains.is_some()
            && h.covered.is_some()
            && h.early_jobs.is_some()
            && h.peak.is_some();
        all.then_some(CHost(*h))
    }
}

// SAFETY (every call below): the callbacks were checked non-NULL at creation, and the host promised they
// take its ctx and write only through the pointers given.
impl ydrop::schedule::Host for CHost {
    fn anchor(&mut self, k: u32) -> Option<YdropAnchor> {
        let mut out = std::mem::MaybeUninit::<YdropAnchor>::uninit();
        (unsafe { self.0.anchor.unwrap()(self.0.ctx, k, out.as_mut_ptr()) } == 1)
            .then(|| unsafe { out.assume_init() })
            // a job outside its contract is not computed ahead: the loop's own call is refused
            .filter(|a| a.jobs.iter().all(|j| contract::ydrop(j).is_ok()))
    }
    fn know(&mut self, k: u32) -> bool {
        unsafe { self.0.know.unwrap()(self.0.ctx, k) != 0 }
    }
    fn bounds(&mut self, of: BoundsOf, reversed: bool, m: u32, depth: u32) -> Bounds {
        let mut out = std::mem::MaybeUninit::<YdropBounds>::uninit();
        let of = (of == BoundsOf::Known) as i32;
        match unsafe { self.0.bounds.unwrap()(self.0.ctx, of, reversed as i32, m, depth, out.as_mut_ptr()) } {
            0 => Bounds::Unconstrained,
            1 => {
                let b = unsafe { out.assume_init() };
                if b.check().is_ok() {
                    Bounds::Block(b)
                } else {
                    Bounds::Unroutable
                }
            }
            _ => Bounds::Unroutable,
        }
    }
    fn contains(&mut self, align: AlignHandle, pos1: u32, pos2: u32) -> bool {
        unsafe { self.0.contains.unwrap()(self.0.ctx, align, pos1, pos2) != 0 }
    }
    fn covered(&mut self, pos1: u32, pos2: u32) -> bool {
        unsafe { self.0.covered.unwrap()(self.0.ctx, pos1, pos2) != 0 }
    }
    fn early_jobs(&mut self, pos1: u32, pos2: u32) -> Option<[YdropJob; 2]> {
        let mut out = std::mem::MaybeUninit::<[YdropJob; 2]>::uninit();
        (unsafe { self.0.early_jobs.unwrap()(self.0.ctx, pos1, pos2, out.as_mut_ptr().cast()) } == 1)
            .then(|| unsafe { out.assume_init() })
            .filter(|jobs| jobs.iter().all(|j| contract::ydrop(j).is_ok()))
    }
    fn peak(&mut self, pos1: u32, pos2: u32, length: u32) -> u32 {
        unsafe { self.0.peak.unwrap()(self.0.ctx, pos1, pos2, length) }
    }
}

/// Runs `f` on a live schedule (the caller's contract), catching panics and errors into a status.
fn with_schedule(
    what: &str,
    s: *mut WarpalignYdropSchedule,
    f: impl FnOnce(&mut Schedule, &mut CHost) -> warpalign::Result<()>,
) -> WarpalignStatus {
    guard(what, || {
        // SAFETY: a live schedule, used by one thread at a time (the caller's contract).
        let s = unsafe { s.as_mut() }.ok_or_else(|| warpalign::Error::InvalidArgument("null schedule".into()))?;
        f(&mut s.schedule, &mut s.host)
    })
}

/// A schedule whose loop has the given host (copied). Reads its settings from the environment and, when
/// extensions run ahead, starts the pool now (so that its workers ready their memory while the caller reads
/// and seeds). NULL on a NULL callback or when a `WARPALIGN_*` variable has a value it does not accept
/// (warpalign_env_check; see warpalign_last_error).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_create(host: *const WarpalignYdropHost) -> *mut WarpalignYdropSchedule {
    let mut made = std::ptr::null_mut();
    guard("warpalign_ydrop_schedule_create", || {
        // SAFETY: a readable host or NULL (the caller's contract).
        let host = unsafe { host.as_ref() }
            .and_then(CHost::of)
            .ok_or_else(|| warpalign::Error::InvalidArgument("null host or callback".into()))?;
        made = Box::into_raw(Box::new(WarpalignYdropSchedule { schedule: Schedule::from_env()?, host }));
        Ok(())
    });
    made
}

/// Drains the schedule's pool and frees it (NULL is ignored).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_destroy(s: *mut WarpalignYdropSchedule) {
    // SAFETY: made by Box::into_raw in warpalign_ydrop_schedule_create, destroyed once.
    let _ = quiet(|| (!s.is_null()).then(|| drop(unsafe { Box::from_raw(s) })));
}

/// An anchor loop begins (`none_before`: no earlier alignment exists yet). Nothing an earlier loop queued
/// survives it; what was queued during the HSP search waits for this loop's anchors.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_loop_begin(s: *mut WarpalignYdropSchedule, none_before: i32) -> WarpalignStatus {
    with_schedule("warpalign_ydrop_schedule_loop_begin", s, |s, _| {
        s.loop_begin(none_before != 0);
        Ok(())
    })
}

/// The anchor loop ends: afterwards no job reads its sequences.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_loop_end(s: *mut WarpalignYdropSchedule) -> WarpalignStatus {
    with_schedule("warpalign_ydrop_schedule_loop_end", s, |s, _| {
        s.loop_end();
        Ok(())
    })
}

/// The loop is about to extend anchor `i` of its `end` (`current`: its position and jobs under the loop's
/// limits): queues what should run ahead now.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_ensure(
    s: *mut WarpalignYdropSchedule,
    i: u32,
    end: u32,
    current: *const YdropAnchor,
) -> WarpalignStatus {
    with_schedule("warpalign_ydrop_schedule_ensure", s, |s, host| {
        // SAFETY: a readable anchor or NULL (the caller's contract).
        let current = unsafe { current.as_ref() }.ok_or_else(|| warpalign::Error::InvalidArgument("null anchor".into()))?;
        // (jobs outside their contract run in LASTZ's own function: nothing to compute ahead)
        if current.jobs.iter().any(|j| contract::ydrop(j).is_err()) {
            return Ok(());
        }
        s.ensure(host, i, end, current)
    })
}

/// The loop inserted an earlier alignment (`align`, the host's name for it, as `contains` takes it) from
/// (`pos1`, `pos2`) to (`end1`, `end2`).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_inserted(
    s: *mut WarpalignYdropSchedule,
    align: *const c_void,
    pos1: u32,
    end1: u32,
    pos2: u32,
    end2: u32,
) -> WarpalignStatus {
    with_schedule("warpalign_ydrop_schedule_inserted", s, |s, _| {
        s.inserted(align, pos1, end1, pos2, end2);
        Ok(())
    })
}

/// One y-drop call of the loop: `job` without bounds (they come from the host's `bounds` with `of` = 0 when
/// `constrained`: an earlier alignment can bound or mask the call), `anchor1` the loop's anchor. Sets `*done`
/// to 1 and writes the result, whose `ops` belong to the schedule until its next call (do not free them);
/// or sets it to 0: run LASTZ's own function, then call warpalign_ydrop_schedule_original_done (also for a
/// job outside its contract, see warpalign_ydrop_job: LASTZ's function answers it as upstream does).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_extend(
    s: *mut WarpalignYdropSchedule,
    job: *const YdropJob,
    anchor1: u32,
    constrained: i32,
    result: *mut YdropResult,
    done: *mut i32,
) -> WarpalignStatus {
    with_schedule("warpalign_ydrop_schedule_extend", s, |s, host| {
        if job.is_null() || result.is_null() || done.is_null() {
            return Err(warpalign::Error::InvalidArgument("null job, result or done".into()));
        }
        // SAFETY: a readable job, writable result and flag (the caller's contract).
        let (job, result, done) = unsafe { (&*job, &mut *result, &mut *done) };
        if contract::ydrop(job).is_err() {
            *done = 0;
            return Ok(());
        }
        *done = (s.extend(host, job, anchor1, constrained != 0)? == Extended::Done) as i32;
        let r = s.result();
        *result = YdropResult { score: r.score, end1: r.end1, end2: r.end2, truncated: r.truncated, n_ops: r.n_ops, ops: r.ops };
        Ok(())
    })
}

/// LASTZ's own function has run the call warpalign_ydrop_schedule_extend gave back (for the statistics).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_original_done(s: *mut WarpalignYdropSchedule) -> WarpalignStatus {
    with_schedule("warpalign_ydrop_schedule_original_done", s, |s, _| {
        s.original_done();
        Ok(())
    })
}

/// The HSP search of a query strand begins, its HSPs the loop's anchors as they are: 1 when their jobs will
/// be queued (the host's `early_jobs` and `peak` then read the strand's sequences until
/// warpalign_ydrop_schedule_early_end), 0 when not (`WARPALIGN_YDROP_EARLY=0`, or nothing runs ahead).
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_early_begin(s: *mut WarpalignYdropSchedule) -> i32 {
    let mut on = false;
    with_schedule("warpalign_ydrop_schedule_early_begin", s, |s, _| {
        on = s.early_begin();
        Ok(())
    });
    on as i32
}

/// The search collected the HSP of `length` at (`pos1`, `pos2`) scoring `score`.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_early_hsp(
    s: *mut WarpalignYdropSchedule,
    pos1: u32,
    pos2: u32,
    length: u32,
    score: i32,
) -> WarpalignStatus {
    with_schedule("warpalign_ydrop_schedule_early_hsp", s, |s, host| s.early_hsp(host, pos1, pos2, length, score))
}

/// The strand's gapped extension is over, or its search aborted: afterwards no job of the search reads its
/// sequences.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_early_end(s: *mut WarpalignYdropSchedule) -> WarpalignStatus {
    with_schedule("warpalign_ydrop_schedule_early_end", s, |s, _| {
        s.early_end();
        Ok(())
    })
}

/// With `WARPALIGN_STATS=1`, once a call was made: writes the schedule's counts and times to stderr.
#[no_mangle]
pub extern "C" fn warpalign_ydrop_schedule_report(s: *const WarpalignYdropSchedule) {
    clear_last_error();
    // SAFETY: a live schedule or NULL (the caller's contract).
    if let Some(text) = unsafe { s.as_ref() }.and_then(|s| s.schedule.report()) {
        eprint!("{text}");
    }
}
