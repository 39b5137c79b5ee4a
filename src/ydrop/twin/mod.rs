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
}

impl Sweep {
    /// The vector sweeps this CPU runs, widest first.
    pub fn vectors() -> Vec<Sweep> {
        [Sweep::Lanes16, Sweep::Lanes8].into_iter().filter(|s| vector::available(s.lanes())).collect()
    }

    fn lanes(self) -> usize {
        match self {
            Sweep::Spec => 1,
            Sweep::Lanes8 => 8,
            Sweep::Lanes16 => 16,
        }
    }
}

/// The sweep calls take: the widest vector sweep of this CPU, unless `WARPALIGN_YDROP_SWEEP` says `spec`,
/// `8` or `16`.
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

thread_local! {
    static SCRATCH: RefCell<(Scratch, Vec<u32>, vector::Rows)> = RefCell::new(Default::default());
}

/// Gives this thread's traceback scratch room for LASTZ's default traceback (80 MiB of address space, so that
/// a call with that limit does not reallocate it) and touches its first `cells` bytes, so that a later call
/// that large pays no page faults for them (a pool worker does this before its first job).
pub fn warm_thread(cells: usize) {
    SCRATCH.with_borrow_mut(|(scratch, _, _)| {
        if scratch.tb.capacity() < cells {
            scratch.tb = touched_traceback(cells);
        }
    });
}

/// A traceback scratch as [`warm_thread`] makes one, for another thread to adopt ([`adopt_traceback`]): the
/// pages are touched by whichever thread calls this.
pub fn touched_traceback(cells: usize) -> Vec<u8> {
    let mut tb = Vec::new();
    reserve_traceback(&mut tb, cells.max(80 << 20));
    tb.resize(cells, 0);
    tb.clear();
    tb
}

/// Makes `tb` this thread's traceback scratch if it is larger than the one it has.
pub fn adopt_traceback(tb: Vec<u8>) {
    SCRATCH.with_borrow_mut(|(scratch, _, _)| {
        if scratch.tb.capacity() < tb.capacity() {
            scratch.tb = tb;
        }
    });
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
    SCRATCH.with_borrow_mut(|memory| {
        let ran = sweep_and_trace(a, b, &params, constraints, sweep, memory, out);
        if ran.is_err() {
            // what the failed job grew goes back: the thread keeps no scratch it could not use
            *memory = Default::default();
        }
        ran
    })
}

/// The fill and traceback of [`one_sided_with`] in this thread's memory.
fn sweep_and_trace<K: Constraints>(
    a: &[u8],
    b: &[u8],
    params: &Params,
    constraints: &mut K,
    sweep: Sweep,
    (scratch, ops, rows): &mut (Scratch, Vec<u32>, vector::Rows),
    out: &mut YdropResult,
) -> Result<Extent, OutOfMemory> {
    // (the traceback's whole size at once, as LASTZ allocates its own)
    reserve_traceback(&mut scratch.tb, params.tb_len.max(0) as usize);
    let vector = match sweep {
        Sweep::Spec => None,
        _ => vector::fill(a, b, params, constraints, scratch, rows, sweep.lanes())?,
    };
    let f = match vector {
        Some(f) => f,
        None => {
            constraints.restart();
            sweep::fill(a, b, params, constraints, scratch)?
        }
    };
    // (one traceback byte per cell)
    CELLS.fetch_add(scratch.tb.len() as u64, std::sync::atomic::Ordering::Relaxed);
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
