//! C entry points of the search engine: LASTZ's HSP search (seed hits and their gap-free extension) for the
//! options warpalign covers (docs/search.md), one target at a time, one query strand per call.

use crate::{clear_last_error, guard, quiet, WarpalignStatus};
use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;
use warpalign::search::dispatch::{self, Searcher, TargetSearch};
use warpalign::search::twin::scoring::ScoreMatrix;
use warpalign::search::{Extension, HitFilter, SearchOptions, Seed, SelfCompare};
use warpalign::Error;

/// The search's options, as LASTZ's option parser leaves them (its `control` and `seed` fields named below).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct WarpalignSearchOptions {
    /// `hitSeed->pattern`, NUL-terminated: 1s (a match, 2 bits), Ts (a match or a transition, 1 bit) and 0s,
    /// 2 to 31 positions (63 for a half-weight seed, Ts and 0s only), at most 28 bits indexed (the bases
    /// `resolving_mask` names are checked at each hit).
    pub seed: *const c_char,
    /// `hitSeed->withTrans`: 0, 1 or 2 transitions.
    pub with_trans: u32,
    /// `step`: 1 or more.
    pub step: u32,
    /// `xDrop`: 0 or more.
    pub x_drop: i32,
    /// `hspThreshold.s` (a fixed threshold, `hspThreshold.t == 'S'`): |threshold| <= INT32_MAX / 3.
    pub hsp_threshold: i32,
    /// `entropicHsp`: nonzero adjusts the scores by entropy.
    pub entropic: i32,
    /// `wordCountLimit` (`--maxwordcount=<n>`; 0: none) and `maxWordCountChasm`.
    pub max_word_count: u32,
    pub max_word_count_chasm: u32,
    /// `minMatches` (-1: no `--filter`), `maxTransversions` (-1: any), `filterCaresOnly` (nonzero: `cares:`).
    pub filter_min_matches: i32,
    pub filter_max_transversions: i32,
    pub filter_cares_only: i32,
    /// `gfExtend`, the gap-free extension of each seed hit: 0 x-drop (`gfexXDrop`, `--xdrop`; zeroed options
    /// ask for it), 1 exact match (`gfexExact`, `--exact=<hsp_threshold>`), 2 at most `mismatches`
    /// mismatches (`gfexMismatch_min..max`, `--mismatch=<mismatches>,<hsp_threshold>`), 3 none (`gfexNoExtend`,
    /// `--nogfextend` with the gapped stage: each seed hit an HSP of score 0), 4 LASTZ's plain hit processor
    /// (`process_for_plain_hit`, `--nogfextend --nogapped`: each seed hit that passes the filter an HSP of
    /// score 0, the diagonal hash unused).
    pub extension: u32,
    /// With extension 2: 1 to 50.
    pub mismatches: u32,
    /// `maskedScoring->sub`: 256 x 256 scores, `[target byte][query byte]`, row after row.
    pub scores: *const i32,
    /// `selfCompare` (`--self`): nonzero when the strands will be searched with warpalign_search_self_strand
    /// (they then run on CPU threads, and the target's search prepares nothing on the GPU).
    pub self_compare: i32,
    /// `bandWidth` (`--band=<width>`; 0: none): with warpalign_search_self_strand on the target's own strand,
    /// seed hits more than this many diagonals above the main one are skipped.
    pub band_width: u32,
    /// `hitSeed->resolvingMask` (a seed heavier than `--word`; 0: none): the high bit of each resolved base of
    /// the window's last 16 (bit 2i+1 for the base i from its end; `seed` writes these bases as Ts), compared
    /// with the target's at each hit.
    pub resolving_mask: u32,
    /// Nonzero: LASTZ's `process_for_recoverable_hit` (`--recoverhits`) instead of `process_for_simple_hit` (with
    /// extension 4 the plain processor all the same, as LASTZ picks it first). Such a target's strands run on CPU
    /// threads.
    pub recover_hits: u32,
}

/// One HSP as LASTZ's hit processor reports it, but with its starts: it ends at `pos1 + length` in the
/// target and `pos2 + length` in the query strand.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpalignHsp {
    pub pos1: u32,
    pub pos2: u32,
    pub length: u32,
    /// The ungapped score, entropy-adjusted when the options say so.
    pub score: i32,
    /// Where the seed hit that made it ends in the query strand (1-based, `seed_hit_search`'s `pos2`): a search
    /// limit (`--queryhsplimit`) is checked each time a query position's hits are done.
    pub hit_pos2: u32,
}

/// One target's search (its copy of the target and its position table, built once), opaque: made by
/// warpalign_search_target_create, freed by warpalign_search_target_destroy. One thread at a time.
pub struct WarpalignSearchTarget {
    search: TargetSearch,
}

/// Strands searched, HSPs found and nanoseconds spent by warpalign_search_strand, for the statistics.
static STRANDS: AtomicU64 = AtomicU64::new(0);
static HSPS: AtomicU64 = AtomicU64::new(0);
static NANOS: AtomicU64 = AtomicU64::new(0);
/// Nanoseconds warpalign_search_target_create spent, and of them waiting for the preparation (the GPU's
/// start and the index, unless warpalign_search_warm_up started them early enough).
static PREPARE_NANOS: AtomicU64 = AtomicU64::new(0);
static WAIT_NANOS: AtomicU64 = AtomicU64::new(0);

/// 1 if warpalign searches the strands (whose options it covers) of a target of `target_len` bytes:
/// `WARPALIGN_SEARCH` unset, empty or `auto` for targets of 1 MiB or more (below, building its tables costs
/// more than LASTZ's own search), `warpalign` always, `upstream` never. A value it does not accept reads as
/// `auto` (warpalign_env_check reports it). Else 0.
#[no_mangle]
pub extern "C" fn warpalign_search_takes(target_len: usize) -> i32 {
    clear_last_error();
    warpalign::env::SEARCH.get().unwrap_or(Searcher::Auto).takes(target_len) as i32
}

fn options_of(o: &WarpalignSearchOptions) -> warpalign::Result<(SearchOptions, ScoreMatrix)> {
    let bad = |m: String| Error::InvalidArgument(m);
    if o.seed.is_null() || o.scores.is_null() {
        return Err(bad("null seed or score matrix".into()));
    }
    // SAFETY: a NUL-terminated string (the caller's contract).
    let pattern = unsafe { CStr::from_ptr(o.seed) }.to_str().map_err(|_| bad("seed not ASCII".into()))?;
    let seed = Seed::from_lastz(pattern, o.resolving_mask).map_err(|e| bad(format!("seed {pattern:?}: {e:?}")))?;
    let filter = (o.filter_min_matches >= 0).then_some(HitFilter {
        min_matches: o.filter_min_matches,
        max_transversions: o.filter_max_transversions,
        cares_only: o.filter_cares_only != 0,
    });
    let options = SearchOptions {
        seed,
        with_trans: o.with_trans,
        step: o.step,
        x_drop: o.x_drop,
        hsp_threshold: o.hsp_threshold,
        entropic: o.entropic != 0,
        max_word_count: o.max_word_count,
        max_word_count_chasm: o.max_word_count_chasm,
        filter,
        extension: match (o.extension, o.mismatches) {
            (0, _) => Extension::XDrop,
            (1, _) => Extension::Exact,
            (2, m @ 1..=50) => Extension::Mismatch(m as u8),
            (3, _) => Extension::None,
            (4, _) => Extension::Plain,
            (e, m) => return Err(bad(format!("extension {e} (mismatches {m}): expected 0 to 4, mismatches 1 to 50 with 2"))),
        },
        self_compare: if o.self_compare != 0 { SelfCompare::SameStrand } else { SelfCompare::No },
        band_width: o.band_width,
        partitions: Vec::new(),
        recover_hits: o.recover_hits != 0,
    };
    let mut sub = Box::new([[0i32; 256]; 256]);
    // SAFETY: 256 x 256 readable scores (the caller's contract).
    let scores = unsafe { std::slice::from_raw_parts(o.scores, 256 * 256) };
    for (row, src) in sub.iter_mut().zip(scores.chunks_exact(256)) {
        row.copy_from_slice(src);
    }
    Ok((options, ScoreMatrix(sub)))
}

/// Starts, in the background, what the search of this target will need first (the GPU and the target's
/// index for the seed `seed`, `step` and `--maxwordcount` limits, as in warpalign_search_options), so that
/// it overlaps the caller's own work; warpalign_search_target_create takes it if its target has the same
/// bytes and those options, else prepares again. Optional; nothing starts where warpalign_search_takes says
/// 0. The seed is one that resolves no base (`resolving_mask` 0). A NULL pointer, a seed it does not take
/// or an empty target is WARPALIGN_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn warpalign_search_warm_up(
    seed: *const c_char,
    step: u32,
    max_word_count: u32,
    max_word_count_chasm: u32,
    target: *const u8,
    len: usize,
) -> WarpalignStatus {
    guard("warpalign_search_warm_up", || {
        if seed.is_null() || target.is_null() || len == 0 || step == 0 {
            return Err(Error::InvalidArgument("null seed or target, empty target or step 0".into()));
        }
        // SAFETY: a NUL-terminated string (the caller's contract).
        let pattern = unsafe { CStr::from_ptr(seed) }.to_str().map_err(|_| Error::InvalidArgument("seed not ASCII".into()))?;
        let seed = Seed::from_lastz(pattern, 0).map_err(|e| Error::InvalidArgument(format!("seed {pattern:?}: {e:?}")))?;
        let options = SearchOptions { seed, step, max_word_count, max_word_count_chasm, ..SearchOptions::lastz_default() };
        // SAFETY: len readable bytes at target (the caller's contract).
        dispatch::warm_up(unsafe { std::slice::from_raw_parts(target, len) }, &options);
        Ok(())
    })
}

/// Makes the search of one target: copies its `len` bytes (as the search reads them: lowercase and N start
/// no seed word and score as the matrix says) and builds its position table. Sets `*out` (NULL on failure).
/// Options outside their documented ranges, a NULL pointer or an empty target (or one over INT32_MAX bytes)
/// are WARPALIGN_STATUS_INVALID_ARGUMENT, before any work.
#[no_mangle]
pub extern "C" fn warpalign_search_target_create(
    options: *const WarpalignSearchOptions,
    target: *const u8,
    len: usize,
    out: *mut *mut WarpalignSearchTarget,
) -> WarpalignStatus {
    guard("warpalign_search_target_create", || {
        if out.is_null() {
            return Err(Error::InvalidArgument("null out".into()));
        }
        // SAFETY: out is writable (checked non-null).
        unsafe { *out = std::ptr::null_mut() };
        // SAFETY: readable options or NULL (the caller's contract).
        let o = unsafe { options.as_ref() }.ok_or_else(|| Error::InvalidArgument("null options".into()))?;
        if target.is_null() {
            return Err(Error::InvalidArgument("null target".into()));
        }
        let (options, scoring) = options_of(o)?;
        // SAFETY: len readable bytes at target (the caller's contract).
        let bytes = unsafe { std::slice::from_raw_parts(target, len) };
        let search = TargetSearch::new(bytes, options, scoring)?;
        PREPARE_NANOS.fetch_add((search.prepare_secs * 1e9) as u64, Relaxed);
        WAIT_NANOS.fetch_add((search.engine_wait_secs * 1e9) as u64, Relaxed);
        // SAFETY: out is writable.
        unsafe { *out = Box::into_raw(Box::new(WarpalignSearchTarget { search })) };
        Ok(())
    })
}

/// Searches one query strand of `len` bytes (for the minus strand, its reverse complement, as LASTZ holds it
/// then) against the target: `*hsps` gets a `malloc`ed array of `*n` HSPs in the order LASTZ's hit processor
/// reports them (NULL when none; free it with warpalign_search_hsps_free). On failure `*hsps` is NULL and
/// `*n` 0: a NULL pointer, an empty query or one over INT32_MAX bytes is WARPALIGN_STATUS_INVALID_ARGUMENT;
/// an array that cannot be allocated WARPALIGN_STATUS_OUT_OF_MEMORY.
#[no_mangle]
pub extern "C" fn warpalign_search_strand(
    search: *const WarpalignSearchTarget,
    query: *const u8,
    len: usize,
    hsps: *mut *mut WarpalignHsp,
    n: *mut usize,
) -> WarpalignStatus {
    strand("warpalign_search_strand", search, query, len, hsps, n, |s, q| s.search_strand(q))
}

/// LASTZ's dynamic masking (`--masking=<count>`) between strands: `n` census intervals, `intervals` holding
/// each one's first and last base (1-based, inclusive, as LASTZ's `remove_interval_seeds` receives them), are
/// taken out of the search as LASTZ takes them out of its own: the target's bases there become `x`, and the
/// seed words with a base there leave the table. The strands searched after it run on CPU threads. A NULL
/// pointer (with `n` > 0) or an interval outside the target is WARPALIGN_STATUS_INVALID_ARGUMENT, and nothing
/// changes.
#[no_mangle]
pub extern "C" fn warpalign_search_target_mask(search: *mut WarpalignSearchTarget, intervals: *const u32, n: usize) -> WarpalignStatus {
    guard("warpalign_search_target_mask", || {
        // SAFETY: a live search or NULL, not used by another thread meanwhile (the caller's contract).
        let s = unsafe { search.as_mut() }.ok_or_else(|| Error::InvalidArgument("null search".into()))?;
        if n == 0 {
            return Ok(());
        }
        if intervals.is_null() {
            return Err(Error::InvalidArgument("null intervals".into()));
        }
        let pairs = n.checked_mul(2).ok_or_else(|| Error::InvalidArgument(format!("{n} intervals")))?;
        // SAFETY: 2 * n readable u32s at intervals (the caller's contract).
        let flat = unsafe { std::slice::from_raw_parts(intervals, pairs) };
        let v: Vec<(u32, u32)> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        s.search.mask(&v)
    })
}

/// LASTZ's `--self` on a partitioned (`[multiple]`) target: `n` partitions, `seps` holding each one's
/// `sepBefore` and `sepAfter` (the positions of the NULs before and after it in the target's bytes, as LASTZ's
/// `seqpartition` has them), in order. warpalign_search_self_strand's reverse-complement strand (each
/// partition reverse-complemented in place, as `rev_comp_sequence` does) then compares a hit's partitions
/// first, as `seed_hit_below_diagonal` does. A NULL pointer (with `n` > 0), or partitions out of order or
/// outside the target, are WARPALIGN_STATUS_INVALID_ARGUMENT, and nothing changes.
#[no_mangle]
pub extern "C" fn warpalign_search_target_partitions(search: *mut WarpalignSearchTarget, seps: *const u32, n: usize) -> WarpalignStatus {
    guard("warpalign_search_target_partitions", || {
        // SAFETY: a live search or NULL, not used by another thread meanwhile (the caller's contract).
        let s = unsafe { search.as_mut() }.ok_or_else(|| Error::InvalidArgument("null search".into()))?;
        if n > 0 && seps.is_null() {
            return Err(Error::InvalidArgument("null seps".into()));
        }
        let pairs = n.checked_mul(2).ok_or_else(|| Error::InvalidArgument(format!("{n} partitions")))?;
        // SAFETY: 2 * n readable u32s at seps (the caller's contract), none read when n is 0.
        let flat = if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(seps, pairs) } };
        s.search.set_partitions(flat.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    })
}

/// LASTZ's `--self`: as warpalign_search_strand, for a query strand that is the target itself (`opposite`
/// 0) or its reverse complement (`opposite` nonzero), the target being one sequence. Seed hits on or below
/// the main diagonal are skipped, as LASTZ skips them, and on the target's own strand those more than the
/// options' `band_width` diagonals above it (when not 0). Runs on CPU threads.
#[no_mangle]
pub extern "C" fn warpalign_search_self_strand(
    search: *const WarpalignSearchTarget,
    query: *const u8,
    len: usize,
    opposite: i32,
    hsps: *mut *mut WarpalignHsp,
    n: *mut usize,
) -> WarpalignStatus {
    let strand_of = if opposite != 0 { SelfCompare::OppositeStrand } else { SelfCompare::SameStrand };
    strand("warpalign_search_self_strand", search, query, len, hsps, n, |s, q| s.search_self_strand(q, strand_of))
}

/// The checks and the results of warpalign_search_strand and warpalign_search_self_strand; `run` searches.
fn strand(
    name: &'static str,
    search: *const WarpalignSearchTarget,
    query: *const u8,
    len: usize,
    hsps: *mut *mut WarpalignHsp,
    n: *mut usize,
    run: impl Fn(&TargetSearch, &[u8]) -> warpalign::Result<Vec<warpalign::search::Hsp>>,
) -> WarpalignStatus {
    guard(name, || {
        if hsps.is_null() || n.is_null() {
            return Err(Error::InvalidArgument("null hsps or n".into()));
        }
        // SAFETY: both writable (checked non-null).
        unsafe {
            *hsps = std::ptr::null_mut();
            *n = 0;
        }
        // SAFETY: a live search or NULL.
        let s = unsafe { search.as_ref() }.ok_or_else(|| Error::InvalidArgument("null search".into()))?;
        if query.is_null() {
            return Err(Error::InvalidArgument("null query".into()));
        }
        let start = Instant::now();
        // SAFETY: len readable bytes at query (the caller's contract).
        let found = run(&s.search, unsafe { std::slice::from_raw_parts(query, len) })?;
        STRANDS.fetch_add(1, Relaxed);
        HSPS.fetch_add(found.len() as u64, Relaxed);
        NANOS.fetch_add(start.elapsed().as_nanos() as u64, Relaxed);
        let found: Vec<WarpalignHsp> = found
            .iter()
            .map(|h| WarpalignHsp { pos1: h.pos1, pos2: h.pos2, length: h.length, score: h.score, hit_pos2: h.hit_pos2 })
            .collect();
        let p = warpalign::memory::malloc_copy(&found).map_err(|e| e.in_batch("HSPs"))?;
        // SAFETY: both writable.
        unsafe {
            *hsps = p;
            *n = found.len();
        }
        Ok(())
    })
}

/// Frees an array warpalign_search_strand made (NULL is ignored).
#[no_mangle]
pub extern "C" fn warpalign_search_hsps_free(hsps: *mut WarpalignHsp) {
    clear_last_error();
    // SAFETY: malloc'ed by warpalign_search_strand, or NULL.
    unsafe { libc::free(hsps.cast()) };
}

/// Frees a target's search (NULL is ignored).
#[no_mangle]
pub extern "C" fn warpalign_search_target_destroy(search: *mut WarpalignSearchTarget) {
    // SAFETY: made by Box::into_raw in warpalign_search_target_create, destroyed once.
    let _ = quiet(|| (!search.is_null()).then(|| drop(unsafe { Box::from_raw(search) })));
}

/// With `WARPALIGN_STATS=1`, once a strand was searched: writes to stderr how many query strands
/// warpalign_search_strand searched (their HSPs and time) and how many the caller left to its own search
/// (`upstream`).
#[no_mangle]
pub extern "C" fn warpalign_search_report(upstream: u64) {
    clear_last_error();
    let strands = STRANDS.load(Relaxed);
    if warpalign::env::STATS.get() == Some(true) && strands + upstream > 0 {
        let secs = |n: &AtomicU64| n.load(Relaxed) as f64 * 1e-9;
        eprintln!(
            "warpalign: {strands} query strands searched by warpalign ({} HSPs, {:.3} s, after {:.3} s preparing the target, {:.3} s of it waiting for the GPU's start and the index), {upstream} by LASTZ's own search",
            HSPS.load(Relaxed),
            secs(&NANOS),
            secs(&PREPARE_NANOS),
            secs(&WAIT_NANOS)
        );
    }
}

