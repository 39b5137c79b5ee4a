//! C entry points of the ksw scheduler (speculation cache): how a tool with sequential, result-dependent
//! ksw calls still runs them as large batches without changing its control flow.
//!
//! Per batch of the tool's work: one or more record passes (every call asks
//! `warpalign_ksw_cache_extd2(cache, &job, 1, &res)`; on a miss the tool continues with a stand-in result
//! of its own), `warpalign_ksw_cache_compute` after each, then a final pass asking with `record = 0`
//! (a miss is computed by the tool, e.g. with a one-job batch call), then `warpalign_ksw_cache_clear`.

use crate::{clear_last_error, contract, guard, guard_here, quiet, WarpalignCtx, WarpalignStatus};
use warpalign::ksw::cache::{KswCache, KswCacheStats};
use warpalign::ksw::{KswExtd2Job, KswExts2Job, KswExtz2Job, KswResult};
use warpalign::Error;

/// A speculation cache. Opaque to C; lookups are thread safe.
pub struct WarpalignKswCache {
    cache: KswCache,
}

/// Creates an empty cache.
#[no_mangle]
pub extern "C" fn warpalign_ksw_cache_create() -> *mut WarpalignKswCache {
    clear_last_error();
    Box::into_raw(Box::new(WarpalignKswCache { cache: KswCache::new() }))
}

/// Destroys a cache (NULL is ignored); every CIGAR it lent becomes invalid.
#[no_mangle]
pub extern "C" fn warpalign_ksw_cache_destroy(cache: *mut WarpalignKswCache) {
    // SAFETY: cache came from Box::into_raw in warpalign_ksw_cache_create and is destroyed once.
    let _ = quiet(|| (!cache.is_null()).then(|| drop(unsafe { Box::from_raw(cache) })));
}

/// Forgets every call; every CIGAR it lent becomes invalid. No lookup may run meanwhile.
#[no_mangle]
pub extern "C" fn warpalign_ksw_cache_clear(cache: *mut WarpalignKswCache) {
    // SAFETY: a live cache or NULL.
    let _ = quiet(|| unsafe { cache.as_ref() }.map(|c| c.cache.clear()));
}

fn lookup<J>(
    cache: *const WarpalignKswCache,
    job: *const J,
    record: i32,
    out: *mut KswResult,
    check: fn(&J) -> Result<(), String>,
    get: unsafe fn(&KswCache, &J, bool, &mut KswResult) -> bool,
) -> i32 {
    let mut hit = false;
    let st = guard_here("warpalign_ksw_cache lookup", || {
        // SAFETY: the caller passes a live cache, a readable job and a writable result, or NULLs.
        let (c, j, o) = unsafe { (cache.as_ref(), job.as_ref(), out.as_mut()) };
        let (Some(c), Some(j), Some(o)) = (c, j, o) else {
            return Err(Error::InvalidArgument("null cache, job or result".into()));
        };
        // refused here, a bad call is never recorded: compute then runs only calls that can run
        check(j).map_err(Error::InvalidArgument)?;
        // SAFETY: the job's pointers cover its lengths (the documented contract).
        hit = unsafe { get(&c.cache, j, record != 0, o) };
        Ok(())
    });
    match st {
        WarpalignStatus::Ok => hit as i32,
        _ => -1,
    }
}

/// Looks up one `ksw_extd2_sse` call. Returns 1 when it is known: `*out` is overwritten with every output
/// field (what it held is not freed) and its CIGAR is lent by the cache (do not free it; valid until this
/// thread's next lookup, of any cache, or `warpalign_ksw_cache_clear`). Returns 0 when unknown, recording
/// the call when `record` is non-zero (its sequences are copied). Returns -1, recording nothing, on a NULL argument or a job outside its
/// contract (see warpalign_ksw_extd2_job and warpalign_last_error).
#[no_mangle]
pub extern "C" fn warpalign_ksw_cache_extd2(cache: *const WarpalignKswCache, job: *const KswExtd2Job, record: i32, out: *mut KswResult) -> i32 {
    lookup(cache, job, record, out, contract::extd2, KswCache::get_extd2)
}

/// As warpalign_ksw_cache_extd2, for `ksw_exts2_sse` calls.
#[no_mangle]
pub extern "C" fn warpalign_ksw_cache_exts2(cache: *const WarpalignKswCache, job: *const KswExts2Job, record: i32, out: *mut KswResult) -> i32 {
    lookup(cache, job, record, out, contract::exts2, KswCache::get_exts2)
}

/// As warpalign_ksw_cache_extd2, for `ksw_extz2_sse` calls.
#[no_mangle]
pub extern "C" fn warpalign_ksw_cache_extz2(cache: *const WarpalignKswCache, job: *const KswExtz2Job, record: i32, out: *mut KswResult) -> i32 {
    lookup(cache, job, record, out, contract::extz2, KswCache::get_extz2)
}

/// Computes every recorded call (one batch per kind, on the context's backend); `*n_computed` (may be
/// NULL) gets how many. Zero means a further record pass would find nothing new. After
/// WARPALIGN_STATUS_OUT_OF_MEMORY the calls this compute took stay unknown: lookups miss them.
#[no_mangle]
pub extern "C" fn warpalign_ksw_cache_compute(ctx: *const WarpalignCtx, cache: *const WarpalignKswCache, n_computed: *mut usize) -> WarpalignStatus {
    guard("warpalign_ksw_cache_compute", || {
        // SAFETY: the caller passes a live context and cache, or NULLs.
        let (Some(ctx), Some(c)) = (unsafe { ctx.as_ref() }, unsafe { cache.as_ref() }) else {
            return Err(Error::InvalidArgument("null context or cache".into()));
        };
        let n = c.cache.compute(&ctx.engine)?;
        // SAFETY: a writable size_t or NULL.
        if let Some(out) = unsafe { n_computed.as_mut() } {
            *out = n;
        }
        Ok(())
    })
}

/// As `warpalign_ksw_cache_compute`, but `ksw_extd2` calls run on the context's backend alone (the GPU
/// when there is one) instead of being split with the CPU: for computing ahead on another thread while the
/// tool's own threads go on recording. Lookups may run meanwhile.
#[no_mangle]
pub extern "C" fn warpalign_ksw_cache_compute_background(ctx: *const WarpalignCtx, cache: *const WarpalignKswCache, n_computed: *mut usize) -> WarpalignStatus {
    guard("warpalign_ksw_cache_compute_background", || {
        // SAFETY: the caller passes a live context and cache, or NULLs.
        let (Some(ctx), Some(c)) = (unsafe { ctx.as_ref() }, unsafe { cache.as_ref() }) else {
            return Err(Error::InvalidArgument("null context or cache".into()));
        };
        let n = c.cache.compute_background(&ctx.engine)?;
        // SAFETY: a writable size_t or NULL.
        if let Some(out) = unsafe { n_computed.as_mut() } {
            *out = n;
        }
        Ok(())
    })
}

/// Writes the counters accumulated since the last call into `*out` and resets them.
#[no_mangle]
pub extern "C" fn warpalign_ksw_cache_stats(cache: *const WarpalignKswCache, out: *mut KswCacheStats) {
    clear_last_error();
    // SAFETY: a live cache and a writable stats struct, or NULLs.
    if let (Some(c), Some(o)) = (unsafe { cache.as_ref() }, unsafe { out.as_mut() }) {
        *o = c.cache.take_stats();
    }
}
