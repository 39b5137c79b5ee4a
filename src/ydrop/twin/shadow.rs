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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    /// The row's bounds as the sweep brought them, and as the constraints left them.
    ly_in: u32,
    ry_in: u32,
    ly: u32,
    ry: u32,
    /// `masks[mask_start..mask_end]`: the masked columns of those the row visits, ascending.
    mask_start: u32,
    mask_end: u32,
    /// The right bounds `lo..=hi` compared with `nn` (when `tested`).
    lo: u32,
    hi: u32,
    nn: i64,
    tested: bool,
}

/// A row of a run without constraints: they moved no bounds and masked nothing, and the prolongation bound
/// was `n` (a third of a [`Row`]: the jobs LASTZ queues while it searches for HSPs are held all at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FreeRow {
    ly: u32,
    ry: u32,
    /// As [`Row`]'s, `lo == NOT_TESTED` when the row compared none.
    lo: u32,
    hi: u32,
}

const NOT_TESTED: u32 = u32::MAX;

impl FreeRow {
    fn row(&self, n: u32) -> Row {
        let tested = self.lo != NOT_TESTED;
        Row {
            ly_in: self.ly,
            ry_in: self.ry,
            ly: self.ly,
            ry: self.ry,
            mask_start: 0,
            mask_end: 0,
            lo: if tested { self.lo } else { 0 },
            hi: if tested { self.hi } else { 0 },
            nn: if tested { n as i64 } else { 0 },
            tested,
        }
    }
}

/// What a sweep asked its constraints and what they answered (see the module).
#[derive(Default, Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// The rows of a run with constraints.
    rows: Vec<Row>,
    masks: Vec<u32>,
    /// The rows of a run without, over `n` columns.
    free: Vec<FreeRow>,
    n: u32,
    /// The run had constraints (a snapshot block).
    constrained: bool,
    /// The block the run had, when kept (jobs computed ahead keep it): a call with the same values needs no
    /// replay.
    pub ran_under: Option<std::sync::Arc<crate::ydrop::BoundsCopy>>,
}

impl Envelope {
    /// Rows the sweep entered.
    pub fn rows(&self) -> usize {
        self.rows.len() + self.free.len()
    }

    fn each_row(&self) -> impl Iterator<Item = Row> + '_ {
        self.rows.iter().copied().chain(self.free.iter().map(|f| f.row(self.n)))
    }

    /// The envelope of a sweep without constraints over `n` columns, from each row's `(ly, ry)` as it began
    /// and, when its end compared its right bounds with `n`, those bounds `lo..=hi` (the GPU kernel's record).
    pub fn unconstrained(n: u32, rows: impl IntoIterator<Item = (u32, u32, Option<(u32, u32)>)>) -> Self {
        let free = rows
            .into_iter()
            .map(|(ly, ry, tested)| {
                let (lo, hi) = tested.unwrap_or((NOT_TESTED, 0));
                FreeRow { ly, ry, lo, hi }
            })
            .collect();
        Envelope { rows: Vec::new(), masks: Vec::new(), free, n, constrained: false, ran_under: None }
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
        if !self.env.constrained {
            self.env.free.push(FreeRow { ly: *ly, ry: *ry, lo: NOT_TESTED, hi: 0 });
            return true;
        }
        let mask_start = self.env.masks.len() as u32;
        let (lo, hi) = visited(*ly, *ry, self.n);
        self.inner.masks_in(row, lo, hi, &mut self.env.masks);
        let mask_end = self.env.masks.len() as u32;
        self.env.rows.push(Row {
            ly_in,
            ry_in,
            ly: *ly,
            ry: *ry,
            mask_start,
            mask_end,
            lo: 0,
            hi: 0,
            nn: 0,
            tested: false,
        });
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
        if !self.env.constrained {
            debug_assert!(nn == self.n as i64 && lo != NOT_TESTED);
            let r = self.env.free.last_mut().expect("a row was entered");
            (r.lo, r.hi) = (lo, hi);
            return;
        }
        let r = self.env.rows.last_mut().expect("a row was entered");
        (r.lo, r.hi, r.nn, r.tested) = (lo, hi, nn, true);
    }
    fn restart(&mut self) {
        self.inner.restart();
        self.env.rows.clear();
        self.env.masks.clear();
        self.env.free.clear();
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
    env.rows.clear();
    env.masks.clear();
    env.free.clear();
    env.n = job.n;
    env.constrained = !job.bounds.is_null();
    if job.bounds.is_null() {
        one_sided_with(job, out, &mut Recorder { inner: Unconstrained, env, n: job.n }, sweep)
    } else {
        // SAFETY: the job's contract: a non-null bounds points to a live, well-formed block.
        let bounds = unsafe { &*job.bounds };
        let inner = Bounded::new(bounds, job.reversed != 0, job.n);
        one_sided_with(job, out, &mut Recorder { inner, env, n: job.n }, sweep)
    }
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
        let recorded = &env.masks[e.mask_start as usize..e.mask_end as usize];
        if masks.len() != recorded.len() || (!masks.is_empty() && masks[..] != *recorded) {
            return false;
        }
        if e.tested && clamp(k.right_limit(n), &e) != clamp(e.nn, &e) {
            return false;
        }
    }
    true
}
