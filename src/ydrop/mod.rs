//! ydrop engine: LASTZ's `ydrop_one_sided_align` (gapped_extend.c), one UNCONSTRAINED one-sided y-drop
//! extension per job, as a batch call.
//!
//! "Unconstrained" means no earlier alignment bounds or masks the DP (LASTZ's `alignio` has no
//! `leftSeg/rightSeg` and no `aboveList/belowList` for the direction); the extension is then a pure function
//! of the job's fields. Callers (the patched LASTZ) only route such calls here.
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
//! fields are zero).

pub mod dump;
pub mod oracle;
pub mod twin;

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

/// One unconstrained LASTZ `ydrop_one_sided_align` call (no earlier alignment bounds or masks the DP).
///
/// Sequences are 0-based pointers to the first base in extension order, with lengths: `a[k]` is LASTZ's
/// 1-based `A[k+1]`, `b[k]` is `B[k+1]`. From `ydrop_align`'s anchor `(anchor1, anchor2)`, limits
/// `low1..high1`, `low2..high2` and reversed (not complemented) copies `rev*`:
/// left half (`reversed = 1`): `a = rev1 + len1 - anchor1 - 1`, `m = anchor1 + 1 - low1`,
/// `b = rev2 + len2 - anchor2 - 1`, `n = anchor2 + 1 - low2`;
/// right half (`reversed = 0`): `a = seq1 + anchor1 + 1`, `m = high1 - anchor1 - 1`,
/// `b = seq2 + anchor2 + 1`, `n = high2 - anchor2 - 1`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
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
    /// LASTZ's truncation report.
    pub reversed: i32,
    /// Traceback cells, one byte each (LASTZ's `tback.size`: `--allocate:traceback` bytes minus 7).
    pub tb_size: u32,
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
        Ok(())
    }
}

/// Runs the jobs; `results[i]` is overwritten (not freed) with job i's result.
///
/// CPU path: the Rust twin ([`twin::one_sided`]), jobs spread over the rayon pool. With `WARPALIGN_DUMP` set,
/// each job and its result are also recorded ([`dump`]).
pub fn one_sided_batch(_engine: &Engine, jobs: &[YdropJob], results: &mut [YdropResult]) -> Result<()> {
    if jobs.len() != results.len() {
        return Err(Error::InvalidArgument(format!("{} jobs but {} results", jobs.len(), results.len())));
    }
    for (i, j) in jobs.iter().enumerate() {
        j.check(i)?;
    }
    // The GPU kernel lands with the ydrop engine; until then both backends run the exact CPU path.
    if dump::enabled() {
        // a record keeps the prefixes each call read, which only the run itself tells
        let extents: Vec<twin::Extent> = jobs.iter().zip(results.iter_mut()).map(|(j, r)| twin::one_sided(j, r)).collect();
        return dump::record(jobs, results, &extents);
    }
    crate::engine::par_zip(jobs, results, |j, r| {
        twin::one_sided(j, r);
    });
    Ok(())
}
