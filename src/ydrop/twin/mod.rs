//! The Rust twin of LASTZ 1.04.52's `ydrop_one_sided_align` (gapped_extend.c), bit-exact with the default
//! build (`score_type=I`, no back-to-back gaps): score, end, edit script and truncation.
//!
//! [`one_sided`] runs one [`YdropJob`]: [`sweep::fill`] then [`traceback::trace`]. The sweep takes the
//! bounds earlier alignments impose through [`Constraints`]: none ([`Unconstrained`]) or a job's
//! [`crate::ydrop::YdropBounds`] ([`bounded::Bounded`]: leftSeg/rightSeg bounds, aboveList/belowList masks).

mod bounded;
pub mod shadow;
mod sweep;
mod traceback;
mod vector;

use super::{YdropJob, YdropResult, TRUNC_BOUNDS, TRUNC_FIRST_ROW, TRUNC_MIDWAY, TRUNC_NONE};
use crate::memory::{malloc_copy, OutOfMemory};
use std::cell::RefCell;
use sweep::{Params, Scratch};
pub(crate) use sweep::y_drop_tail;

/// What earlier alignments impose on the sweep, row by row (LASTZ's `update_LR_bounds` and
/// `update_active_segs`, and the prolongation bound `NN`).
pub(crate) trait Constraints {
    /// At the start of `row`, before the traceback-memory check: may move the row's bounds `[ly, ry)`.
    /// False (nothing moved) when the bounds do not serve this row: the sweep stops.
    fn enter_row(&mut self, row: u32, ly: &mut u32, ry: &mut u32) -> bool;
    /// Whether (row, col) lies on an earlier alignment: the cell is pruned unconditionally.
    fn masked(&self, row: u32, col: u32) -> bool;
    /// Appends the masked columns of the current `row` in `lo..hi`, ascending (for [`shadow`]).
    fn masks_in(&self, _row: u32, _lo: u32, _hi: u32, _out: &mut Vec<u32>) {}
    /// The last column prolongation and the terminator cell may reach (LASTZ's `NN`).
    fn right_limit(&self, n: u32) -> i64;
    /// After a row: the right bounds `lo..=hi` were each compared with `right_limit` (for [`shadow`]).
    fn limit_tested(&mut self, _lo: u32, _hi: u32) {}
    /// Back to the state before the first row (a sweep that gave up is run again by another).
    fn restart(&mut self);
}

/// No earlier alignment bounds or masks the DP.
pub(crate) struct Unconstrained;

impl Constraints for Unconstrained {
    fn enter_row(&mut self, _row: u32, _ly: &mut u32, _ry: &mut u32) -> bool {
        true
    }
    fn masked(&self, _row: u32, _col: u32) -> bool {
        false
    }
    fn right_limit(&self, n: u32) -> i64 {
        n as i64
    }
    fn restart(&mut self) {}
}

/// Which sweep fills a call's DP: the same results either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    /// One cell at a time, as LASTZ does (sweep.rs, the spec).
    Spec,
    /// Row-parallel, 8 columns at a time (AVX2; vector.rs), where the CPU and the call allow; the spec
    /// otherwise.
    Lanes8,
    /// Row-parallel, 16 columns at a time (AVX-512), likewise.
    Lanes16,
    /// Row-parallel, 32 columns at a time in 16-bit lanes (AVX-512BW), likewise, where the call's scores fit
    /// (`vector::Cell`); the 16-column sweep otherwise.
    Lanes32,
}

impl Sweep {
    /// The vector sweeps this CPU runs, widest first.
    pub fn vectors() -> Vec<Sweep> {
        [Sweep::Lanes32, Sweep::Lanes16, Sweep::Lanes8].into_iter().filter(|s| vector::available(s.lanes())).collect()
    }

    fn lanes(self) -> usize {
        match self {
            Sweep::Spec => 1,
            Sweep::Lanes8 => 8,
            Sweep::Lanes16 => 16,
            Sweep::Lanes32 => 32,
        }
    }
}

/// The sweep calls take: the widest vector sweep of this CPU, unless `WARPALIGN_YDROP_SWEEP` says `spec`,
/// `8`, `16` or `32`.
pub fn default_sweep() -> Sweep {
    static CHOICE: std::sync::OnceLock<Sweep> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| {
        crate::env::YDROP_SWEEP.get().unwrap_or_else(|| Sweep::vectors().first().copied().unwrap_or(Sweep::Spec))
    })
}

/// DP cells the twin has swept in this process (every thread; each visited or prolonged cell once).
static CELLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// [`CELLS`]: for the rate of the y-drop stage.
pub fn cells_swept() -> u64 {
    CELLS.load(std::sync::atomic::Ordering::Relaxed)
}

/// A thread's scratch for its calls.
#[derive(Default)]
struct ThreadScratch {
    sweep: Scratch,
    ops: Vec<u32>,
    rows: vector::Rows<i32>,
    narrow_rows: vector::Rows<i16>,
    /// The thread's traceback is kept within [`TB_KEPT_MAX`] ([`share_traceback_budget`]).
    budgeted: bool,
    /// Traceback bytes this thread keeps touched between calls, counted in [`TB_KEPT`] when budgeted, and the
    /// buffer they are in.
    tb_kept: usize,
    tb_kept_in: usize,
}

impl Drop for ThreadScratch {
    fn drop(&mut self) {
        if self.budgeted {
            TB_KEPT.fetch_sub(self.tb_kept, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<ThreadScratch> = RefCell::new(Default::default());
}

/// Traceback bytes the budgeted threads (a pool's workers) together keep touched between calls. A call's
/// traceback took a byte a cell (half a byte since links are stored two a byte; LASTZ's default limit is 80 Mi
/// cells), and a worker that kept the largest it had run held it to the end: with 15 workers H. pylori's
/// tracebacks held 400 MB. Past this, a worker gives the
/// pages beyond its share back after each call, and a later large call faults them in again. Other threads
/// keep what their calls touched, as LASTZ keeps its own traceback, until [`release_traceback`].
pub const TB_KEPT_MAX: usize = 16 << 20;

/// Traceback bytes the budgeted threads' calls may touch at once. A call's traceback held a byte a cell up
/// to LASTZ's limit (80 Mi cells by default), and 15 workers each on a long extension held 900 MB where LASTZ
/// needs 170 (a 1.3 Mb piece against a 10% diverged copy of its genome). Two links a byte halved what a
/// call holds: H. pylori's workers gave up 56-107 calls at this limit with a byte a link, none at twice it
/// (bench/results/2026-11-28a-lastz-shapes, call 7). A worker's call asks for its bytes
/// as its rows start ([`grant_traceback`]); one that would pass this fails as out of memory, and the pool
/// leaves it to the anchor loop, which runs it on LASTZ's thread, under LASTZ's limit only.
pub const TB_FLIGHT_MAX: usize = 128 << 20;

/// Bytes a grant grows by at least (fewer trips to the shared counter).
const TB_FLIGHT_STEP: usize = 4 << 20;

static TB_FLIGHT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Traceback bytes granted to the calls budgeted threads run now (at most [`TB_FLIGHT_MAX`]).
pub fn traceback_in_flight() -> usize {
    TB_FLIGHT.load(std::sync::atomic::Ordering::Relaxed)
}

/// Grows a call's grant (`granted` bytes) to at least `want` bytes within [`TB_FLIGHT_MAX`], or fails.
pub(crate) fn grant_traceback(granted: &mut usize, want: usize) -> Result<(), OutOfMemory> {
    use std::sync::atomic::Ordering::Relaxed;
    if want <= *granted {
        return Ok(());
    }
    let more = (want - *granted).max(TB_FLIGHT_STEP);
    TB_FLIGHT
        .fetch_update(Relaxed, Relaxed, |f| f.checked_add(more).filter(|&n| n <= TB_FLIGHT_MAX))
        .map_err(|_| OutOfMemory { bytes: want })?;
    *granted += more;
    Ok(())
}

/// Gives back a call's grant.
fn return_grant(flight: &mut Option<usize>) {
    if let Some(granted) = flight {
        TB_FLIGHT.fetch_sub(std::mem::take(granted), std::sync::atomic::Ordering::Relaxed);
    }
}

/// Bytes each of a thread's other buffers keeps between calls: its rows, the substitution profiles, the
/// traceback's row starts, a result's envelope. Each holds a few bytes a row or a column, so a call that
/// needs more grows it again (by doubling) for little against its cells.
pub const SCRATCH_KEPT_MAX: usize = 256 << 10;

/// Frees `v` if it holds more than `max` bytes.
pub(crate) fn free_past<T>(v: &mut Vec<T>, max: usize) {
    if v.capacity() * std::mem::size_of::<T>() > max {
        *v = Vec::new();
    }
}

static TB_KEPT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Traceback bytes the budgeted threads keep touched between calls now (at most [`TB_KEPT_MAX`]).
pub fn traceback_kept() -> usize {
    TB_KEPT.load(std::sync::atomic::Ordering::Relaxed)
}

/// Makes this thread's traceback count against [`TB_KEPT_MAX`] (a pool's worker calls it before its first job).
pub fn share_traceback_budget() {
    SCRATCH.with_borrow_mut(|t| {
        t.budgeted = true;
        t.sweep.flight = Some(0);
    });
}

/// Gives back every traceback page this thread keeps (LASTZ's thread, when an anchor loop ends: the HSP search
/// that follows makes no call, while the pool's workers run their largest extensions; a pool's worker that may
/// not run, for the workers that do). Nothing to do when it keeps none.
pub fn release_traceback() {
    SCRATCH.with_borrow_mut(|t| {
        if t.tb_kept == 0 {
            return;
        }
        if t.budgeted {
            TB_KEPT.fetch_sub(t.tb_kept, std::sync::atomic::Ordering::Relaxed);
        }
        release_past(&mut t.sweep.tb, 0);
        t.tb_kept = 0;
    });
}

/// After a call: keeps the traceback pages it touched, a budgeted thread as far as [`TB_KEPT_MAX`] allows,
/// and gives back the rest.
fn keep_traceback(t: &mut ThreadScratch) {
    use std::sync::atomic::Ordering::Relaxed;
    let tb = &mut t.sweep.tb;
    if t.tb_kept_in != tb.as_ptr() as usize {
        // (the buffer was reallocated: the pages counted went with the old one)
        if t.budgeted {
            TB_KEPT.fetch_sub(t.tb_kept, Relaxed);
        }
        (t.tb_kept, t.tb_kept_in) = (0, tb.as_ptr() as usize);
    }
    let touched = tb.len();
    if touched <= t.tb_kept {
        return;
    }
    if !t.budgeted {
        t.tb_kept = touched;
        return;
    }
    let wanted = touched - t.tb_kept;
    let before = TB_KEPT
        .fetch_update(Relaxed, Relaxed, |k| Some(k + wanted.min(TB_KEPT_MAX.saturating_sub(k))))
        .unwrap_or_else(|k| k);
    t.tb_kept += wanted.min(TB_KEPT_MAX.saturating_sub(before));
    if t.tb_kept < touched {
        release_past(tb, t.tb_kept);
    }
}

/// Empties `tb` and gives the kernel back its whole pages past byte `keep`, which read as zeros if touched again.
fn release_past(tb: &mut Vec<u8>, keep: usize) {
    tb.clear();
    const PAGE: usize = 4096;
    let base = tb.as_mut_ptr() as usize;
    let (start, end) = ((base + keep).next_multiple_of(PAGE), (base + tb.capacity()) / PAGE * PAGE);
    if start < end {
        // SAFETY: whole pages inside the buffer's allocation, none holding a live byte (its length is 0); the
        // buffer stays allocated, and private anonymous memory given back reads as zeros.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
    }
}

/// Gives `tb` room for `cells` bytes at once (address space only until written): growing it during a call
/// copied it. A failed reservation leaves it to grow as it did. (Huge pages on request were tried for the
/// page faults: the kernel's compaction stalled some first calls by 100 ms.)
fn reserve_traceback(tb: &mut Vec<u8>, cells: usize) {
    if tb.capacity() < cells {
        let _ = tb.try_reserve_exact(cells - tb.len());
    }
}

/// How much of a job's sequences a call read: `a[..a]` and `b[..b]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extent {
    pub a: u32,
    pub b: u32,
}

/// `ydrop_one_sided_align` for one job (its bounds, if any, checked well-formed); `out` is overwritten (not freed). Returns the
/// prefixes of the sequences it read, or an error (`out` empty) when the job's memory cannot be allocated.
pub fn one_sided(job: &YdropJob, out: &mut YdropResult) -> Result<Extent, OutOfMemory> {
    one_sided_by(job, out, default_sweep())
}

/// [`one_sided`] with the given sweep.
pub fn one_sided_by(job: &YdropJob, out: &mut YdropResult, sweep: Sweep) -> Result<Extent, OutOfMemory> {
    if job.bounds.is_null() {
        one_sided_with(job, out, &mut Unconstrained, sweep)
    } else {
        // SAFETY: the job's contract: a non-null bounds points to a live, well-formed block.
        let bounds = unsafe { &*job.bounds };
        one_sided_with(job, out, &mut bounded::Bounded::new(bounds, job.reversed != 0, job.n), sweep)
    }
}

/// [`one_sided`] under the given constraints (the job's `bounds` is not read).
fn one_sided_with<K: Constraints>(job: &YdropJob, out: &mut YdropResult, constraints: &mut K, sweep: Sweep) -> Result<Extent, OutOfMemory> {
    *out = YdropResult::EMPTY;
    if job.m == 0 || job.n == 0 {
        return Ok(Extent::default());
    }
    // LASTZ dies ("not enough space in trace_back array") before the first row
    if sweep::y_drop_tail(job.gap_extend, job.y_drop, job.n) > job.tb_size as i32 {
        out.truncated = TRUNC_FIRST_ROW;
        return Ok(Extent::default());
    }
    // SAFETY: the job's contract: m bases at a, n bases and one readable byte at b, a 256x256 matrix at
    // sub, all alive and unchanged for the call.
    let (a, b, sub) = unsafe {
        (
            std::slice::from_raw_parts(job.a, job.m as usize),
            std::slice::from_raw_parts(job.b, job.n as usize + 1),
            std::slice::from_raw_parts(job.sub, 256 * 256),
        )
    };
    let params = Params {
        sub,
        gap_open: job.gap_open,
        gap_extend: job.gap_extend,
        y_drop: job.y_drop,
        trim_to_peak: job.trim_to_peak != 0,
        tb_len: job.tb_size as i32,
    };
    SCRATCH.with_borrow_mut(|t| {
        let ran = fill_and_trace(a, b, &params, constraints, sweep, t, out);
        return_grant(&mut t.sweep.flight);
        if ran.is_err() {
            // what the failed job grew goes back: the thread keeps no scratch it could not use
            let (budgeted, flight) = (t.budgeted, t.sweep.flight);
            *t = ThreadScratch::default();
            (t.budgeted, t.sweep.flight) = (budgeted, flight);
        }
        keep_traceback(t);
        t.sweep.trim(SCRATCH_KEPT_MAX);
        t.rows.trim(SCRATCH_KEPT_MAX);
        t.narrow_rows.trim(SCRATCH_KEPT_MAX);
        free_past(&mut t.ops, SCRATCH_KEPT_MAX);
        ran
    })
}

/// [`one_sided_with`]'s sweep and traceback, in the thread's scratch.
fn fill_and_trace<K: Constraints>(
    a: &[u8],
    b: &[u8],
    params: &Params,
    constraints: &mut K,
    sweep: Sweep,
    t: &mut ThreadScratch,
    out: &mut YdropResult,
) -> Result<Extent, OutOfMemory> {
    let ThreadScratch { sweep: scratch, ops, rows, narrow_rows, .. } = t;
    // (the traceback's whole size at once, as LASTZ allocates its own)
    reserve_traceback(&mut scratch.tb, params.tb_len.max(0) as usize);
    let vector = match sweep {
        Sweep::Spec => None,
        Sweep::Lanes32 => match vector::fill(a, b, params, constraints, scratch, narrow_rows, 32)? {
            Some(f) => Some(f),
            None => {
                constraints.restart();
                vector::fill(a, b, params, constraints, scratch, rows, 16)?
            }
        },
        _ => vector::fill(a, b, params, constraints, scratch, rows, sweep.lanes())?,
    };
    let f = match vector {
        Some(f) => f,
        None => {
            constraints.restart();
            sweep::fill(a, b, params, constraints, scratch)?
        }
    };
    // (one traceback link per cell)
    CELLS.fetch_add(scratch.used as u64, std::sync::atomic::Ordering::Relaxed);
    if f.beyond_bounds {
        out.truncated = TRUNC_BOUNDS;
        return Ok(Extent { a: f.a_read, b: f.b_read });
    }
    traceback::trace(scratch, f.end1, f.end2, ops)?;
    *out = YdropResult {
        score: f.score(),
        end1: f.end1,
        end2: f.end2,
        truncated: if f.truncated { TRUNC_MIDWAY } else { TRUNC_NONE },
        n_ops: ops.len() as u32,
        ops: malloc_copy(ops)?,
    };
    Ok(Extent { a: f.a_read, b: f.b_read })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages of `len` bytes at `ptr` that are in memory.
    fn resident_pages(ptr: *const u8, len: usize) -> usize {
        const PAGE: usize = 4096;
        let start = ptr as usize / PAGE * PAGE;
        let pages = (ptr as usize + len - start).div_ceil(PAGE);
        let mut v = vec![0u8; pages];
        // SAFETY: the range lies within one live allocation (rounded out to its pages); v has a byte per page.
        assert_eq!(unsafe { libc::mincore(start as *mut libc::c_void, pages * PAGE, v.as_mut_ptr()) }, 0);
        v.iter().filter(|&&b| b & 1 != 0).count()
    }

    /// The tests whose budgeted threads take large grants of the process's traceback in flight, one at a time.
    static LARGE_GRANTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn threads_keep_at_most_the_traceback_budget() {
        let _one_at_a_time = LARGE_GRANTS.lock().unwrap_or_else(|e| e.into_inner());
        // a sequence against itself with a y-drop that keeps about 600 columns a row: about 36M traceback
        // bytes, more than the budget
        let mut x = 1u64;
        let seq: Vec<u8> = (0..60_001)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b"ACGT"[(x % 4) as usize]
            })
            .collect();
        let sub: Vec<i32> = (0..256 * 256).map(|i| if i >> 8 == i & 255 { 91 } else { -114 }).collect();
        let job = YdropJob {
            a: seq.as_ptr(),
            m: 60_000,
            b: seq.as_ptr(),
            n: 60_000,
            sub: sub.as_ptr(),
            gap_open: 400,
            gap_extend: 30,
            y_drop: 10_000,
            trim_to_peak: 1,
            reversed: 0,
            tb_size: 80 << 20,
            bounds: std::ptr::null(),
        };
        // (the threads end together: an ending thread's pages no longer count; three fit the workers' share
        // of traceback memory in flight)
        let all_ran = std::sync::Barrier::new(3);
        let kept: Vec<usize> = std::thread::scope(|s| {
            let runs: Vec<_> = (0..3)
                .map(|_| {
                    s.spawn(|| {
                        share_traceback_budget();
                        let mut r = YdropResult::EMPTY;
                        one_sided(&job, &mut r).expect("fits");
                        assert_eq!((r.end1, r.end2), (60_000, 60_000));
                        r.release();
                        let kept = SCRATCH.with_borrow(|t| {
                            let tb = &t.sweep.tb;
                            assert!(resident_pages(tb.as_ptr(), tb.capacity()) <= t.tb_kept.div_ceil(4096) + 1);
                            t.tb_kept
                        });
                        all_ran.wait();
                        kept
                    })
                })
                .collect();
            runs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(kept.iter().sum::<usize>() <= TB_KEPT_MAX, "{kept:?}");
        assert!(traceback_kept() <= TB_KEPT_MAX);
    }

    /// Pages one budgeted thread gives back (a pool's worker that may not run) go to the budgeted thread that
    /// runs next: it no longer faults its traceback in again for every call.
    #[test]
    fn released_traceback_pages_go_to_the_threads_that_run() {
        let _one_at_a_time = LARGE_GRANTS.lock().unwrap_or_else(|e| e.into_inner());
        // about 36M traceback bytes, more than the budget (as in threads_keep_at_most_the_traceback_budget)
        let mut x = 1u64;
        let seq: Vec<u8> = (0..60_001)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b"ACGT"[(x % 4) as usize]
            })
            .collect();
        let sub: Vec<i32> = (0..256 * 256).map(|i| if i >> 8 == i & 255 { 91 } else { -114 }).collect();
        let job = YdropJob {
            a: seq.as_ptr(),
            m: 60_000,
            b: seq.as_ptr(),
            n: 60_000,
            sub: sub.as_ptr(),
            gap_open: 400,
            gap_extend: 30,
            y_drop: 10_000,
            trim_to_peak: 1,
            reversed: 0,
            tb_size: 80 << 20,
            bounds: std::ptr::null(),
        };
        let run = || {
            let mut r = YdropResult::EMPTY;
            one_sided(&job, &mut r).expect("fits");
            r.release();
            SCRATCH.with_borrow(|t| t.tb_kept)
        };
        // (assertions after the threads end: a thread that panicked between barriers would hang the other)
        let (a_ran, a_released, b_ran) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2), std::sync::Barrier::new(2));
        let ((a_kept, a_after, a_resident), (b_first, b_second)) = std::thread::scope(|s| {
            let a = s.spawn(|| {
                share_traceback_budget();
                let kept = run();
                a_ran.wait();
                b_ran.wait();
                release_traceback();
                let after = SCRATCH.with_borrow(|t| (t.tb_kept, resident_pages(t.sweep.tb.as_ptr(), t.sweep.tb.capacity())));
                a_released.wait();
                (kept, after.0, after.1)
            });
            let b = s.spawn(|| {
                share_traceback_budget();
                a_ran.wait();
                let first = run();
                b_ran.wait();
                a_released.wait();
                (first, run())
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        assert!(a_kept > 1 << 20, "the first thread keeps {a_kept}");
        // (but the buffer's first page, which it shares with the allocation's head)
        assert_eq!(a_after, 0);
        assert!(a_resident <= 1, "{a_resident} pages left");
        assert!(b_second > b_first + (1 << 20), "kept {b_first} then {b_second}");
        assert!(traceback_kept() <= TB_KEPT_MAX);
    }

    /// A pool worker's call that needs more traceback than the workers' share in flight fails as out of memory
    /// (its pool leaves it to the loop) and gives its grant back; the same call on another thread runs to
    /// LASTZ's own limit.
    #[test]
    fn a_worker_gives_up_past_the_traceback_in_flight() {
        let _one_at_a_time = LARGE_GRANTS.lock().unwrap_or_else(|e| e.into_inner());
        // about 400 columns a row: 700,000 rows take about 280M traceback links, 140 MB at two a byte
        let mut x = 7u64;
        let seq: Vec<u8> = (0..700_001)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b"ACGT"[(x % 4) as usize]
            })
            .collect();
        let sub: Vec<i32> = (0..256 * 256).map(|i| if i >> 8 == i & 255 { 91 } else { -114 }).collect();
        let job = YdropJob {
            a: seq.as_ptr(),
            m: 700_000,
            b: seq.as_ptr(),
            n: 700_000,
            sub: sub.as_ptr(),
            gap_open: 400,
            gap_extend: 30,
            y_drop: 10_000,
            trim_to_peak: 1,
            reversed: 0,
            tb_size: 1 << 30,
            bounds: std::ptr::null(),
        };
        let failed = std::thread::scope(|s| {
            s.spawn(|| {
                share_traceback_budget();
                let mut r = YdropResult::EMPTY;
                let ran = one_sided(&job, &mut r);
                let grant = SCRATCH.with_borrow(|t| t.sweep.flight);
                (ran.is_err(), grant)
            })
            .join()
            .unwrap()
        });
        assert_eq!(failed, (true, Some(0)), "given up, its grant returned");
        let mut r = YdropResult::EMPTY;
        one_sided(&job, &mut r).expect("no share on this thread");
        assert_eq!((r.end1, r.end2), (700_000, 700_000));
        r.release();
    }
}
