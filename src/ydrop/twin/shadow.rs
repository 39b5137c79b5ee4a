//! Speculation support: an extension computed ahead under the earlier alignments known then (or none), and
//! the exact test of whether the earlier alignments a later call sees would have changed it (the design's
//! "shadow bookkeeping").
//!
//! [`run_recorded`] runs a job under its own constraints (its `bounds`, a snapshot; or none) and records
//! what the sweep asked them and what they answered: each row's bounds `[ly, ry)` before and after the
//! constraints moved them, the masked cells among the columns the row visits, and the prolongation bound
//! `NN` where the sweep compared right bounds with it. [`unaffected`] replays LASTZ's bound and mask logic
//! ([`super::bounded::Bounded`]) over those rows with the call's real constraints and accepts only when
//! every answer is the same. The sweep is a function of its sequences, its scoring and these answers, so by
//! induction each row then starts from the same state and does the same work. A row the real block does
//! not serve, or any difference, rejects the result (the caller runs the call).

use super::{bounded::Bounded, default_sweep, one_sided_with, Constraints, Extent, Sweep, Unconstrained};
use crate::memory::OutOfMemory;
use crate::ydrop::{YdropJob, YdropResult};

/// A row as the sweep entered it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    /// The row's bounds as the sweep brought them, and as the constraints left them.
    ly_in: u32,
    ry_in: u32,
    ly: u32,
    ry: u32,
    /// How many of [`Envelope::masks`], from where the row before left off: the masked columns of those the
    /// row visits, ascending.
    masks: u32,
    /// The right bounds `lo..=hi` compared with `nn` (when `tested`).
    lo: u32,
    hi: u32,
    nn: i64,
    tested: bool,
}

/// A row's form, in the low bits of its first byte. The rows of a sweep without constraints, which make up
/// most of the envelopes held, are mostly one of the first two:
/// - `SHORT`, 1 byte: the differences (zigzag, at most [`SHORT_MAX`]) of `ly_in` in bits 5-7 and `ry_in` in
///   bits 2-4; no flags;
/// - `SHORT_TESTED`, 2 bytes: the same, then the differences (zigzag, at most [`TEST_MAX`]) `lo - ry` in bits
///   0-3 and `hi - lo` in bits 4-7, for a row that compared its right bounds with the same `nn` as the last
///   that did (at first `n`);
/// - `LONG`: a number with the flags from bit 2 and `ly_in`'s difference from bit [`HEAD_BITS`], then the
///   numbers the flags name.
const FORM: u8 = 3;
const SHORT: u8 = 0;
const SHORT_TESTED: u8 = 1;
const LONG: u8 = 2;
const TESTED: u64 = 4;
const MOVED: u64 = 8;
const MASKED: u64 = 16;
const HEAD_BITS: u32 = 5;
const SHORT_MAX: u64 = 7;
const TEST_MAX: u64 = 15;

/// What a sweep asked its constraints and what they answered (see the module).
///
/// Each row is kept as its differences from the row before, mostly in 1 or 2 bytes where a struct took 48 (16
/// without constraints). The jobs queued while LASTZ searches for HSPs are all held until the loop takes them,
/// and their envelopes were a sixth of H. pylori's peak memory with 15 workers.
#[derive(Default, Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    rows: Vec<u8>,
    count: usize,
    masks: Vec<u32>,
    /// The last row entered, not encoded while the end of its sweep may still compare its right bounds.
    open: Option<Row>,
    /// `(ly, ry)` of the last row encoded, and `nn` of the last that compared its right bounds.
    base: (u32, u32),
    base_nn: i64,
    /// The sweep's columns: the prolongation bound of a run without constraints, the first `base_nn`.
    n: u32,
    /// The run had constraints (a snapshot block).
    constrained: bool,
    /// The block the run had, when kept (jobs computed ahead keep it): a call with the same values needs no
    /// replay.
    pub ran_under: Option<std::sync::Arc<crate::ydrop::BoundsCopy>>,
}

/// A signed difference as an unsigned number, small when near 0.
fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(u: u64) -> i64 {
    (u >> 1) as i64 ^ -((u & 1) as i64)
}

fn diff(x: u32, base: u32) -> u64 {
    zigzag(x as i64 - base as i64)
}

fn undiff(d: u64, base: u32) -> u32 {
    (base as i64 + unzigzag(d)) as u32
}

/// Appends `v` in LEB128 (7 bits a byte, low first).
fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

impl Envelope {
    /// Rows the sweep entered.
    pub fn rows(&self) -> usize {
        self.count
    }

    /// How many columns each row swept, first to last (of a closed envelope): a GPU block's chunks a row
    /// follow from it.
    pub fn row_widths(&self) -> impl Iterator<Item = u32> + '_ {
        self.each_row().map(|r| {
            let (lo, hi) = visited(r.ly, r.ry, self.n);
            hi.saturating_sub(lo)
        })
    }

    /// The envelope of a sweep without constraints over `n` columns, from each row's `(ly, ry)` as it began
    /// and, when its end compared its right bounds with `n`, those bounds `lo..=hi` (the GPU kernel's record).
    pub fn unconstrained(n: u32, rows: impl IntoIterator<Item = (u32, u32, Option<(u32, u32)>)>) -> Self {
        let mut env = Envelope::default();
        env.start(n, false);
        for (ly, ry, tested) in rows {
            let (lo, hi) = tested.unwrap_or((0, 0));
            let nn = if tested.is_some() { n as i64 } else { 0 };
            env.enter(Row { ly_in: ly, ry_in: ry, ly, ry, masks: 0, lo, hi, nn, tested: tested.is_some() });
        }
        env.close();
        env
    }

    /// A copy for keeping: exact in size, and taking the buffers of an envelope over `max` bytes, so that a
    /// scratch envelope recorded into again keeps at most that much.
    pub fn keep(&mut self, max: usize) -> Envelope {
        if self.rows.capacity() + 4 * self.masks.capacity() <= max {
            return self.clone();
        }
        let mut kept = std::mem::take(self);
        kept.rows.shrink_to_fit();
        kept.masks.shrink_to_fit();
        kept
    }

    /// Empties it for a sweep over `n` columns (keeping its memory).
    fn start(&mut self, n: u32, constrained: bool) {
        self.rows.clear();
        self.count = 0;
        self.masks.clear();
        self.open = None;
        self.base = (0, 0);
        self.base_nn = n as i64;
        self.n = n;
        self.constrained = constrained;
    }

    /// A row was entered (its masks appended): the one before it is complete.
    fn enter(&mut self, row: Row) {
        self.close();
        self.open = Some(row);
        self.count += 1;
    }

    /// Encodes the last row: the sweep ended, or entered another.
    fn close(&mut self) {
        let Some(r) = self.open.take() else { return };
        let moved = (r.ly, r.ry) != (r.ly_in, r.ry_in);
        let (dly, dry) = (diff(r.ly_in, self.base.0), diff(r.ry_in, self.base.1));
        let (dlo, dhi) = (diff(r.lo, r.ry), diff(r.hi, r.lo));
        self.base = (r.ly, r.ry);
        if !moved && r.masks == 0 && dly <= SHORT_MAX && dry <= SHORT_MAX {
            let short = (dly << 5 | dry << 2) as u8;
            if !r.tested {
                self.rows.push(short | SHORT);
                return;
            }
            if r.nn == self.base_nn && dlo <= TEST_MAX && dhi <= TEST_MAX {
                self.rows.extend([short | SHORT_TESTED, (dhi << 4 | dlo) as u8]);
                return;
            }
        }
        let flags = if r.tested { TESTED } else { 0 } | if moved { MOVED } else { 0 } | if r.masks > 0 { MASKED } else { 0 };
        put(&mut self.rows, dly << HEAD_BITS | flags | LONG as u64);
        put(&mut self.rows, dry);
        if moved {
            put(&mut self.rows, diff(r.ly, r.ly_in));
            put(&mut self.rows, diff(r.ry, r.ry_in));
        }
        if r.masks > 0 {
            put(&mut self.rows, r.masks as u64);
        }
        if r.tested {
            put(&mut self.rows, dlo);
            put(&mut self.rows, dhi);
            put(&mut self.rows, zigzag(r.nn.wrapping_sub(self.base_nn)));
            self.base_nn = r.nn;
        }
    }

    /// The rows, first to last (of a closed envelope).
    fn each_row(&self) -> RowIter<'_> {
        debug_assert!(self.open.is_none());
        RowIter { bytes: &self.rows, at: 0, base: (0, 0), nn: self.n as i64, left: self.count }
    }
}

/// [`Envelope::each_row`]: decodes one row at a time (a replay walks every row, on LASTZ's thread).
struct RowIter<'a> {
    bytes: &'a [u8],
    at: usize,
    /// `(ly, ry)` of the row before, and `nn` of the last that compared its right bounds.
    base: (u32, u32),
    nn: i64,
    left: usize,
}

impl RowIter<'_> {
    fn get(&mut self) -> u64 {
        get(self.bytes, &mut self.at)
    }

    /// A row with flags or a larger difference.
    #[inline(never)]
    fn long(&mut self, head: u64) -> Row {
        let dry = self.get();
        let ly_in = undiff(head >> HEAD_BITS, self.base.0);
        let ry_in = undiff(dry, self.base.1);
        let (mut ly, mut ry) = (ly_in, ry_in);
        if head & MOVED != 0 {
            ly = undiff(self.get(), ly_in);
            ry = undiff(self.get(), ry_in);
        }
        let masks = if head & MASKED != 0 { self.get() as u32 } else { 0 };
        let (mut lo, mut hi, mut nn) = (0, 0, 0);
        let tested = head & TESTED != 0;
        if tested {
            lo = undiff(self.get(), ry);
            hi = undiff(self.get(), lo);
            nn = self.nn.wrapping_add(unzigzag(self.get()));
            self.nn = nn;
        }
        self.base = (ly, ry);
        Row { ly_in, ry_in, ly, ry, masks, lo, hi, nn, tested }
    }
}

impl Iterator for RowIter<'_> {
    type Item = Row;

    #[inline]
    fn next(&mut self) -> Option<Row> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let head = self.bytes[self.at];
        if head & FORM == LONG {
            let head = self.get();
            return Some(self.long(head));
        }
        // (a short difference, in zigzag)
        let small = |d: u8| (d >> 1) as i32 ^ -((d & 1) as i32);
        let ly = self.base.0.wrapping_add_signed(small(head >> 5));
        let ry = self.base.1.wrapping_add_signed(small(head >> 2 & 7));
        self.base = (ly, ry);
        let mut row = Row { ly_in: ly, ry_in: ry, ly, ry, masks: 0, lo: 0, hi: 0, nn: 0, tested: false };
        if head & FORM == SHORT_TESTED {
            let test = self.bytes[self.at + 1];
            row.lo = ry.wrapping_add_signed(small(test & 15));
            row.hi = row.lo.wrapping_add_signed(small(test >> 4));
            (row.nn, row.tested) = (self.nn, true);
            self.at += 2;
        } else {
            self.at += 1;
        }
        Some(row)
    }
}

/// The columns a row visits, from its bounds after the constraints moved them (as the sweep takes them).
fn visited(ly: u32, ry: u32, n: u32) -> (u32, u32) {
    (ly, ry.max(ly).min(n.wrapping_add(1)))
}

struct Recorder<'a, K> {
    inner: K,
    env: &'a mut Envelope,
    n: u32,
}

impl<K: Constraints> Constraints for Recorder<'_, K> {
    fn enter_row(&mut self, row: u32, ly: &mut u32, ry: &mut u32) -> bool {
        let (ly_in, ry_in) = (*ly, *ry);
        if !self.inner.enter_row(row, ly, ry) {
            return false;
        }
        let masks_before = self.env.masks.len();
        if self.env.constrained {
            let (lo, hi) = visited(*ly, *ry, self.n);
            self.inner.masks_in(row, lo, hi, &mut self.env.masks);
        }
        let masks = (self.env.masks.len() - masks_before) as u32;
        self.env.enter(Row { ly_in, ry_in, ly: *ly, ry: *ry, masks, lo: 0, hi: 0, nn: 0, tested: false });
        true
    }
    fn masked(&self, row: u32, col: u32) -> bool {
        self.inner.masked(row, col)
    }
    fn masks_in(&self, row: u32, lo: u32, hi: u32, out: &mut Vec<u32>) {
        self.inner.masks_in(row, lo, hi, out)
    }
    fn right_limit(&self, n: u32) -> i64 {
        self.inner.right_limit(n)
    }
    fn limit_tested(&mut self, lo: u32, hi: u32) {
        // the limit moves only when a row is entered, so it is the one the row compared with
        let nn = self.inner.right_limit(self.n);
        let r = self.env.open.as_mut().expect("a row was entered");
        (r.lo, r.hi, r.nn, r.tested) = (lo, hi, nn, true);
    }
    fn restart(&mut self) {
        self.inner.restart();
        self.env.start(self.n, self.env.constrained);
    }
}

/// `ydrop_one_sided_align` for `job` under its own `bounds` (the earlier alignments known when it runs, or
/// none), recording its envelope into `env`; as [`super::one_sided`] otherwise.
pub fn run_recorded(job: &YdropJob, out: &mut YdropResult, env: &mut Envelope) -> Result<Extent, OutOfMemory> {
    run_recorded_by(job, out, env, default_sweep())
}

/// [`run_recorded`] with the given sweep.
pub fn run_recorded_by(job: &YdropJob, out: &mut YdropResult, env: &mut Envelope, sweep: Sweep) -> Result<Extent, OutOfMemory> {
    env.ran_under = None;
    env.start(job.n, !job.bounds.is_null());
    let extent = if job.bounds.is_null() {
        one_sided_with(job, out, &mut Recorder { inner: Unconstrained, env: &mut *env, n: job.n }, sweep)
    } else {
        // SAFETY: the job's contract: a non-null bounds points to a live, well-formed block.
        let bounds = unsafe { &*job.bounds };
        let inner = Bounded::new(bounds, job.reversed != 0, job.n);
        one_sided_with(job, out, &mut Recorder { inner, env: &mut *env, n: job.n }, sweep)
    };
    env.close();
    extent
}

/// Whether `job` (with its real bounds; null: none) computes exactly what the run that recorded `env`
/// computed, for the same sequences, lengths, scoring, direction and traceback size.
pub fn unaffected(env: &Envelope, job: &YdropJob) -> bool {
    if job.bounds.is_null() {
        if !env.constrained {
            return true;
        }
        return replay(env, &mut Unconstrained, job.n);
    }
    // SAFETY: the job's contract: a non-null bounds points to a live, well-formed block.
    let bounds = unsafe { &*job.bounds };
    if env.ran_under.as_ref().is_some_and(|b| b.same_as(bounds)) {
        return true;
    }
    replay(env, &mut Bounded::new(bounds, job.reversed != 0, job.n), job.n)
}

fn replay<K: Constraints>(env: &Envelope, k: &mut K, n: u32) -> bool {
    let mut masks = Vec::new();
    let mut mask_at = 0;
    let clamp = |nn: i64, e: &Row| nn.clamp(e.lo as i64 - 1, e.hi as i64);
    for (i, e) in env.each_row().enumerate() {
        let row = i as u32 + 1;
        let (mut ly, mut ry) = (e.ly_in, e.ry_in);
        if !k.enter_row(row, &mut ly, &mut ry) || (ly, ry) != (e.ly, e.ry) {
            return false;
        }
        masks.clear();
        let (lo, hi) = visited(ly, ry, n);
        k.masks_in(row, lo, hi, &mut masks);
        // (most rows have no masks: comparing two empty slices still calls memcmp, a third of the replay)
        let recorded = &env.masks[mask_at..mask_at + e.masks as usize];
        mask_at += e.masks as usize;
        if masks.len() != recorded.len() || (!masks.is_empty() && masks[..] != *recorded) {
            return false;
        }
        if e.tested && clamp(k.right_limit(n), &e) != clamp(e.nn, &e) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(ly_in: u32, ry_in: u32, ly: u32, ry: u32, masks: u32, tested: Option<(u32, u32, i64)>) -> Row {
        let (lo, hi, nn) = tested.unwrap_or((0, 0, 0));
        Row { ly_in, ry_in, ly, ry, masks, lo, hi, nn, tested: tested.is_some() }
    }

    #[test]
    fn rows_come_back_as_entered() {
        let n = 1_000_000;
        let rows = [
            row(0, 5, 0, 5, 0, None),
            row(1, 6, 1, 6, 0, None),
            row(4, 3, 4, 3, 0, None),
            row(3, 11, 3, 11, 0, None),
            row(3, 11, 7, 9, 2, None),
            row(u32::MAX, u32::MAX, 0, u32::MAX, 0, Some((u32::MAX, 0, i64::MIN))),
            row(0, 0, 0, 0, u32::MAX, Some((0, u32::MAX, i64::MAX))),
            row(12, 40, 12, 40, 0, Some((39, 41, n as i64))),
            row(13, 41, 13, 41, 0, Some((41, 44, n as i64))),
            row(13, 44, 13, 44, 0, Some((37, 37, n as i64))),
            row(12, 40, 12, 40, 0, Some((39, 41, -1))),
        ];
        let mut env = Envelope::default();
        env.start(n, true);
        for r in rows {
            env.enter(r);
        }
        env.close();
        assert_eq!(env.rows(), rows.len());
        assert_eq!(env.each_row().collect::<Vec<_>>(), rows);
        // rows without constraints that move by a few columns take a byte each, two when they compared their
        // right bounds with n (the first, 20 columns from 0, takes two)
        let tested = |r: u32| (r % 2 == 1).then_some((r + 19, r + 21));
        let free = Envelope::unconstrained(n, (0..1000u32).map(|r| (r / 3, r + 20, tested(r))));
        assert_eq!(free.rows.len(), 2 + 499 + 500 * 2);
        let expected = (0..1000u32).map(|r| row(r / 3, r + 20, r / 3, r + 20, 0, tested(r).map(|(lo, hi)| (lo, hi, n as i64))));
        assert!(free.each_row().eq(expected));
    }
}
