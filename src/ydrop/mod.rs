//! ydrop engine: LASTZ's `ydrop_one_sided_align` (gapped_extend.c), one one-sided y-drop extension per job,
//! as a batch call.
//!
//! A job is unconstrained (`bounds` null: no earlier alignment bounds or masks the DP, and the extension is
//! a pure function of the job's fields) or constrained: `bounds` points to a flat copy ([`YdropBounds`]) of
//! the earlier alignments LASTZ's `alignio` shows the call (`leftSeg/rightSeg` bounds, `aboveList/belowList`
//! masks), which the engine reads exactly as LASTZ reads its pointers.
//!
//! # Sequence convention
//! LASTZ passes 1-based pointers (`A[1..M]`, `B[1..N]`: the pointer is one byte *before* the first base).
//! A job instead holds 0-based pointers to the first base **in extension order** and the lengths:
//! `a[k] == A[k+1]`, `b[k] == B[k+1]`. Rows follow `a` (LASTZ's seq1, the target), columns `b` (seq2, the
//! query). In LASTZ's `ydrop_align`, with anchor `(anchor1, anchor2)` and limits `low1..high1`, `low2..high2`:
//!
//! | half | `a` | `m` | `b` | `n` |
//! |---|---|---|---|---|
//! | left (`reversed = 1`) | `rev1 + len1 - anchor1 - 1` | `anchor1 + 1 - low1` | `rev2 + len2 - anchor2 - 1` | `anchor2 + 1 - low2` |
//! | right (`reversed = 0`) | `seq1 + anchor1 + 1` | `high1 - anchor1 - 1` | `seq2 + anchor2 + 1` | `high2 - anchor2 - 1` |
//!
//! (`rev*` is the reversed, not complemented, sequence: `rev[k] == seq[len-1-k]`, so the left half reads
//! `a[k] == seq1[anchor1 - k]`, the anchor itself first.) LASTZ reads `b[n]` (one past the end; the NUL
//! terminator or partition separator) without using its value: it must be readable. The left half's
//! `end1/end2` give `start = anchor + 1 - end`, the right half's `stop = anchor + end`.
//!
//! # Result
//! `score`, `end1`, `end2` as `ydrop_one_sided_align` returns them, and its edit script: `ops` is the
//! `editscript.op[]` array it builds into an empty script, in LASTZ's encoding (`run << 2 | op`, with
//! [`op::INS`], [`op::DEL`], [`op::SUB`]; runs are maximal, split at 2^30-1) and in **traceback order**:
//! from the far end of the extension back to the anchor. Re-adding the ops in order with LASTZ's
//! `edit_script_add(&s, op & 3, op >> 2)` to a fresh script rebuilds LASTZ's script exactly. `ops` is
//! `malloc`ed and owned by the caller (`release()`, or `warpalign_ydrop_results_free` from C).
//!
//! `truncated`: [`TRUNC_NONE`]; [`TRUNC_MIDWAY`] when the traceback memory (`tb_size` cells) ran out
//! mid-extension: the result is what LASTZ returns then, but LASTZ would also have printed a truncation
//! report, so a caller that must reproduce LASTZ's stderr runs the original instead; or [`TRUNC_FIRST_ROW`]
//! when `tb_size` cannot hold the first row (LASTZ dies "not enough space in trace_back array"; the other
//! fields are zero); or [`TRUNC_BOUNDS`] when the sweep reached a row past its bounds block's `rows` (the
//! other fields are zero: run the call again with a block serving more rows).

pub mod ahead;
pub mod dump;
pub mod gpu;
pub mod schedule;
pub mod twin;

use crate::gpu::GPU_MIN_JOBS;
use crate::engine::BatchResult;
use crate::{Engine, Error, Result};

/// Edit operations of LASTZ's `editop` (`run << 2 | op`).
pub mod op {
    /// Insertion: the horizontal sequence (`b`, seq2) has an extra base.
    pub const INS: u32 = 1;
    /// Deletion: the vertical sequence (`a`, seq1) has an extra base.
    pub const DEL: u32 = 2;
    /// Substitution (match or mismatch).
    pub const SUB: u32 = 3;
    /// The longest run one op holds (`maxEditopRepeat`).
    pub const MAX_RUN: u32 = (1 << 30) - 1;

    pub fn kind(op: u32) -> u32 {
        op & 3
    }

    pub fn run(op: u32) -> u32 {
        op >> 2
    }
}

/// `YdropResult::truncated`: the extension ran to completion.
pub const TRUNC_NONE: i32 = 0;
/// The traceback memory ran out mid-extension (LASTZ's "truncating alignment ..." case).
pub const TRUNC_MIDWAY: i32 = 1;
/// The traceback memory cannot hold the first DP row (LASTZ's fatal "not enough space in trace_back array").
pub const TRUNC_FIRST_ROW: i32 = 2;
/// The sweep reached a row past [`YdropBounds::rows`], whose earlier alignments the block may lack.
pub const TRUNC_BOUNDS: i32 = 3;

/// One LASTZ `ydrop_one_sided_align` call.
///
/// Sequences are 0-based pointers to the first base in extension order, with lengths: `a[k]` is LASTZ's
/// 1-based `A[k+1]`, `b[k]` is `B[k+1]`. From `ydrop_align`'s anchor `(anchor1, anchor2)`, limits
/// `low1..high1`, `low2..high2` and reversed (not complemented) copies `rev*`:
/// left half (`reversed = 1`): `a = rev1 + len1 - anchor1 - 1`, `m = anchor1 + 1 - low1`,
/// `b = rev2 + len2 - anchor2 - 1`, `n = anchor2 + 1 - low2`;
/// right half (`reversed = 0`): `a = seq1 + anchor1 + 1`, `m = high1 - anchor1 - 1`,
/// `b = seq2 + anchor2 + 1`, `n = high2 - anchor2 - 1`.
///
/// The C API refuses a job (WARPALIGN_STATUS_INVALID_ARGUMENT, before any work) with a null `a`/`b` of
/// positive length, a null `sub`, a malformed `bounds`, or scoring outside what LASTZ's `int` arithmetic
/// holds: `0 <= gap_extend` and `0 <= gap_open + gap_extend` (LASTZ's own checks), both at most 214748365
/// (the room below LASTZ's `negInfinity`, -0.9 * 2^31, that a gap penalty is taken from), and
/// `0 <= y_drop` with `y_drop / gap_extend + 6 <= INT32_MAX` (its `yDropTail`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YdropJob {
    /// Vertical sequence (DP rows; LASTZ's seq1, the target) in extension order: `a[0]` is LASTZ's `A[1]`.
    pub a: *const u8,
    /// Bases of `a` (LASTZ's `M`).
    pub m: u32,
    /// Horizontal sequence (DP columns; seq2, the query) in extension order: `b[0]` is LASTZ's `B[1]`.
    /// `b[n]` must be readable (its value is never used).
    pub b: *const u8,
    /// Bases of `b` (LASTZ's `N`).
    pub n: u32,
    /// 256x256 substitution scores, row-major, indexed `[a byte][b byte]` (LASTZ's `scoreset.sub`).
    pub sub: *const i32,
    /// LASTZ's `gapOpen` (every gap pays `gap_open + gap_extend` for its first base).
    pub gap_open: i32,
    pub gap_extend: i32,
    pub y_drop: i32,
    /// Nonzero: always trim the end to the score peak (LASTZ's default; 0 with `--noytrim`).
    pub trim_to_peak: i32,
    /// Nonzero for the left half (LASTZ's `reversed`). Unconstrained, it changes nothing but the wording of
    /// LASTZ's truncation report; constrained, it picks which bounds and list the call follows.
    pub reversed: i32,
    /// Traceback cells, one byte each (LASTZ's `tback.size`: `--allocate:traceback` bytes minus 7).
    pub tb_size: u32,
    /// The earlier alignments this call sees ([`YdropBounds`]); null for an unconstrained call.
    pub bounds: *const YdropBounds,
}

/// [`YdropBounds`] and [`YdropAlignment`] index meaning "none" (LASTZ's NULL pointer).
pub const NONE: u32 = u32::MAX;

/// [`YdropSegment::kind`], LASTZ's `aliseg.type`.
pub mod seg {
    /// A gap-free run: both coordinates advance.
    pub const DIAG: u32 = 0;
    /// A gap in seq1: only seq2 (columns) advances.
    pub const HORZ: u32 = 1;
    /// A gap in seq2: only seq1 (rows) advances.
    pub const VERT: u32 = 2;
}

/// One straight piece of an earlier alignment (LASTZ's `aliseg`), in absolute, 0-based, inclusive
/// sequence positions (`b1..=e1` on seq1, `b2..=e2` on seq2), as LASTZ's `format_alignment` stores them.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YdropSegment {
    /// [`seg::DIAG`], [`seg::HORZ`] or [`seg::VERT`].
    pub kind: u32,
    pub b1: u32,
    pub b2: u32,
    pub e1: u32,
    pub e2: u32,
    /// The alignment whose chain holds this segment: its `nextSeg` is the segment after it in the array
    /// unless it is that alignment's `last_seg` (then NULL); `prevSeg` likewise with `first_seg`.
    pub owner: u32,
}

/// One earlier alignment (LASTZ's `galign`) as `ydrop_one_sided_align` reads it. Every link is an index
/// into [`YdropBounds::alignments`] or [`YdropBounds::segments`], or [`NONE`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YdropAlignment {
    /// First and last row (seq1 position) of the alignment.
    pub pos1: u32,
    pub end1: u32,
    /// Its segment chain: `segments[first_seg..=last_seg]`, in sequence order.
    pub first_seg: u32,
    pub last_seg: u32,
    /// The nearest alignments (and their segments) left and right of its first (`1`) and last (`2`) row.
    pub left_align1: u32,
    pub right_align1: u32,
    pub left_align2: u32,
    pub right_align2: u32,
    pub left_seg1: u32,
    pub right_seg1: u32,
    pub left_seg2: u32,
    pub right_seg2: u32,
    /// The next alignment by increasing start (`galign.next`, walked from `above_list`) and by decreasing
    /// end (`galign.prev`, walked from `below_list`).
    pub next: u32,
    pub prev: u32,
}

/// The earlier alignments one constrained call sees: LASTZ's `alignio` fields `anchor1/anchor2`,
/// `leftAlign/rightAlign`, `leftSeg/rightSeg`, `aboveList/belowList` and everything reachable from them,
/// flattened into two arrays linked by index. Reading any part of this the call can reach must match what
/// LASTZ would read through its pointers; unreachable parts may be left out ([`NONE`]).
///
/// A block may also serve only the DP's first `rows` rows, leaving out what later rows would reach: a
/// caller can copy the few alignments near the anchor instead of all those up to row `m`, and run the call
/// again with a deeper block in the rare case that its sweep goes on past them ([`TRUNC_BOUNDS`]).
///
/// Well-formed (checked): indices in range; segment kinds valid; every alignment's chain in range and
/// owned by it, neither starting nor ending with a horizontal segment and without two horizontal segments in
/// a row; a segment link set only with its alignment link; `next`/`prev` walks from the list heads
/// acyclic (LASTZ dies or loops otherwise).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct YdropBounds {
    /// The anchor, absolute 0-based (`alignio.anchor1/anchor2`): the cell before the DP's first row and column.
    pub anchor1: u32,
    pub anchor2: u32,
    pub segments: *const YdropSegment,
    pub n_segments: u32,
    pub alignments: *const YdropAlignment,
    pub n_alignments: u32,
    pub left_align: u32,
    pub right_align: u32,
    pub left_seg: u32,
    pub right_seg: u32,
    /// The first alignment starting above the anchor (forward calls walk `next` from it) and the first ending
    /// below it (reversed calls walk `prev`).
    pub above_list: u32,
    pub below_list: u32,
    /// The rows this block serves (`u32::MAX`, or `m` or more: all): a sweep that reaches row `rows + 1`
    /// stops there and returns [`TRUNC_BOUNDS`].
    pub rows: u32,
}

/// What one job returns: `ydrop_one_sided_align`'s score, `*_end1`, `*_end2` and edit script.
///
/// `ops` are LASTZ editops, `run << 2 | op` with op 1 = insertion (extra base in `b`), 2 = deletion (extra
/// base in `a`), 3 = substitution, in traceback order (far end first, anchor last), exactly the `op[]`
/// LASTZ builds into an empty script: re-adding them in order with `edit_script_add(&s, op & 3, op >> 2)`
/// rebuilds its script.
#[repr(C)]
#[derive(Debug)]
pub struct YdropResult {
    pub score: i32,
    /// DP rows used: bases of `a` in the extension.
    pub end1: u32,
    /// DP columns used: bases of `b` in the extension.
    pub end2: u32,
    /// 0: complete. 1: the traceback memory ran out mid-extension; the result is what LASTZ returns then,
    /// after printing its truncation report (which this call does not print). 2: the traceback memory cannot
    /// hold the first row (LASTZ dies "not enough space in trace_back array"); the other fields are zero.
    /// 3: the sweep reached a row past the bounds block's `rows`; the other fields are zero.
    pub truncated: i32,
    pub n_ops: u32,
    /// `malloc`ed; null when `n_ops == 0`. LASTZ editops in traceback order.
    pub ops: *mut u32,
}

impl YdropResult {
    pub const EMPTY: YdropResult =
        YdropResult { score: 0, end1: 0, end2: 0, truncated: TRUNC_NONE, n_ops: 0, ops: std::ptr::null_mut() };

    pub fn ops(&self) -> &[u32] {
        if self.ops.is_null() || self.n_ops == 0 {
            &[]
        } else {
            // SAFETY: ops holds n_ops elements, written by the engine.
            unsafe { std::slice::from_raw_parts(self.ops, self.n_ops as usize) }
        }
    }

    /// Frees the ops and leaves an empty result.
    pub fn release(&mut self) {
        if !self.ops.is_null() {
            // SAFETY: engines allocate ops with malloc.
            unsafe { libc::free(self.ops.cast()) };
        }
        *self = YdropResult::EMPTY;
    }
}

impl BatchResult for YdropResult {
    const EMPTY: YdropResult = YdropResult::EMPTY;
    fn release(&mut self) {
        YdropResult::release(self)
    }
}

// SAFETY: a job only reads the memory it points to, which the caller keeps alive and unchanged for the call.
unsafe impl Send for YdropJob {}
unsafe impl Sync for YdropJob {}
// SAFETY: a result exclusively owns its ops allocation.
unsafe impl Send for YdropResult {}

impl YdropJob {
    fn check(&self, i: usize) -> Result<()> {
        let bad = |what: &str| Err(Error::InvalidArgument(format!("ydrop job {i}: {what}")));
        if (self.m > 0 && self.a.is_null()) || (self.n > 0 && self.b.is_null()) {
            return bad("null sequence with a positive length");
        }
        if self.sub.is_null() {
            return bad("null substitution matrix");
        }
        if !self.bounds.is_null() {
            // SAFETY: the caller's contract: a non-null bounds points to a live block.
            unsafe { &*self.bounds }.check().map_err(|e| Error::InvalidArgument(format!("ydrop job {i}: bounds: {e}")))?;
        }
        Ok(())
    }
}

/// A bounds block with its arrays, owned (a job computed ahead keeps the one it ran under).
pub struct BoundsCopy {
    block: YdropBounds,
    segments: Vec<YdropSegment>,
    alignments: Vec<YdropAlignment>,
}

// SAFETY: the block points only into the vectors kept with it, which nothing mutates.
unsafe impl Send for BoundsCopy {}
unsafe impl Sync for BoundsCopy {}

impl BoundsCopy {
    pub fn of(b: &YdropBounds) -> BoundsCopy {
        let (segments, alignments) = (b.segments().to_vec(), b.alignments().to_vec());
        let block = YdropBounds { segments: segments.as_ptr(), alignments: alignments.as_ptr(), ..*b };
        BoundsCopy { block, segments, alignments }
    }

    pub fn block(&self) -> &YdropBounds {
        &self.block
    }

    /// Whether `b` holds the same values (a sweep is a function of its job's values and these).
    pub fn same_as(&self, b: &YdropBounds) -> bool {
        let (x, y) = (&self.block, b);
        (x.anchor1, x.anchor2, x.left_align, x.right_align, x.left_seg, x.right_seg, x.above_list, x.below_list, x.rows)
            == (y.anchor1, y.anchor2, y.left_align, y.right_align, y.left_seg, y.right_seg, y.above_list, y.below_list, y.rows)
            && self.segments[..] == *y.segments()
            && self.alignments[..] == *y.alignments()
    }
}

impl std::fmt::Debug for BoundsCopy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BoundsCopy({} segments, {} alignments)", self.segments.len(), self.alignments.len())
    }
}

impl PartialEq for BoundsCopy {
    fn eq(&self, other: &BoundsCopy) -> bool {
        self.same_as(&other.block)
    }
}

impl Eq for BoundsCopy {}

impl YdropBounds {
    pub fn segments(&self) -> &[YdropSegment] {
        slice(self.segments, self.n_segments)
    }

    pub fn alignments(&self) -> &[YdropAlignment] {
        slice(self.alignments, self.n_alignments)
    }

    /// Whether the block is well-formed (see the type's doc); the error names the first fault.
    pub fn check(&self) -> std::result::Result<(), String> {
        let (segs, aligns) = (self.segments(), self.alignments());
        if (self.n_segments > 0 && self.segments.is_null()) || (self.n_alignments > 0 && self.alignments.is_null()) {
            return Err("null array with a positive length".into());
        }
        let in_range = |k: u32, n: usize| k == NONE || (k as usize) < n;
        let pair_ok = |al: u32, sg: u32| in_range(al, aligns.len()) && in_range(sg, segs.len()) && (sg == NONE || al != NONE);
        if !pair_ok(self.left_align, self.left_seg) || !pair_ok(self.right_align, self.right_seg) {
            return Err("bad left/right alignment or segment".into());
        }
        if !in_range(self.above_list, aligns.len()) || !in_range(self.below_list, aligns.len()) {
            return Err("list head out of range".into());
        }
        for (k, s) in segs.iter().enumerate() {
            let owner = aligns.get(s.owner as usize).ok_or_else(|| format!("segment {k}: owner out of range"))?;
            if s.kind > seg::VERT || !(owner.first_seg..=owner.last_seg).contains(&(k as u32)) {
                return Err(format!("segment {k}: bad kind or not in its owner's chain"));
            }
        }
        for (k, a) in aligns.iter().enumerate() {
            let bad = |what: &str| Err(format!("alignment {k}: {what}"));
            if a.first_seg > a.last_seg || a.last_seg as usize >= segs.len() {
                return bad("segment chain out of range");
            }
            let chain = &segs[a.first_seg as usize..=a.last_seg as usize];
            if chain.iter().any(|s| s.owner != k as u32) {
                return bad("a chain segment owned by another alignment");
            }
            let horz = |s: &YdropSegment| s.kind == seg::HORZ;
            if horz(&chain[0]) || horz(&chain[chain.len() - 1]) || chain.windows(2).any(|w| horz(&w[0]) && horz(&w[1])) {
                return bad("horizontal segment at an end or twice in a row");
            }
            let links = [
                (a.left_align1, a.left_seg1),
                (a.right_align1, a.right_seg1),
                (a.left_align2, a.left_seg2),
                (a.right_align2, a.right_seg2),
            ];
            if !links.iter().all(|&(al, sg)| pair_ok(al, sg)) || !in_range(a.next, aligns.len()) || !in_range(a.prev, aligns.len()) {
                return bad("bad link");
            }
        }
        for (head, by_start) in [(self.above_list, true), (self.below_list, false)] {
            let mut at = head;
            for _ in 0..=aligns.len() {
                if at == NONE {
                    break;
                }
                let a = &aligns[at as usize];
                at = if by_start { a.next } else { a.prev };
            }
            if at != NONE {
                return Err("cyclic alignment list".into());
            }
        }
        Ok(())
    }
}

fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: the caller's contract: n elements at p, alive for the call.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}


/// Runs the jobs; `results[i]` is overwritten (not freed) with job i's result.
///
/// A batch of [`GPU_MIN_JOBS`] or more on a GPU engine runs on the GPU ([`gpu::one_sided_batch_gpu`], which
/// hands the jobs its kernel does not take to the twin); otherwise, and if the GPU fails, the Rust twin
/// ([`twin::one_sided`]) runs the jobs over the rayon pool. With `WARPALIGN_YDROP_DUMP` set, the twin runs them
/// and each job and its result are also recorded ([`dump`]). A job whose memory cannot be allocated fails the
/// batch with [`Error::OutOfMemory`], every result left empty (nothing to free).
pub fn one_sided_batch(engine: &Engine, jobs: &[YdropJob], results: &mut [YdropResult]) -> Result<()> {
    if jobs.len() != results.len() {
        return Err(Error::InvalidArgument(format!("{} jobs but {} results", jobs.len(), results.len())));
    }
    for (i, j) in jobs.iter().enumerate() {
        j.check(i)?;
    }
    if dump::enabled() {
        // a record keeps the prefixes each call read, which only the twin's run tells
        // (empty first, as try_par_zip leaves them after a failure)
        results.iter_mut().for_each(|r| *r = YdropResult::EMPTY);
        let ran: Result<Vec<twin::Extent>> =
            (0..jobs.len()).map(|i| twin::one_sided(&jobs[i], &mut results[i]).map_err(|e| e.in_job("ydrop", i))).collect();
        return match ran {
            Ok(extents) => dump::record(jobs, results, &extents),
            Err(e) => {
                results.iter_mut().for_each(YdropResult::release);
                Err(e)
            }
        };
    }
    if let Some(rt) = (jobs.len() >= GPU_MIN_JOBS).then(|| engine.gpu()).flatten() {
        match gpu::one_sided_batch_gpu(&rt, jobs, results) {
            Ok(()) => return Ok(()),
            Err(e) => crate::engine::gpu_failed_notice(&e),
        }
    }
    crate::engine::try_par_zip("ydrop", jobs, results, |j, r| twin::one_sided(j, r).map(drop))
}
