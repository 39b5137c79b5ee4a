//! Speculation support: an extension computed ahead without constraints, and the exact test of whether the
//! earlier alignments a later call sees would have changed it (the design's "shadow bookkeeping").
//!
//! [`run_recorded`] runs a job as unconstrained and records its envelope: each row's bounds `[ly, ry)` as
//! the sweep enters it, and the right bounds then compared with `NN`. [`unaffected`] replays LASTZ's bound
//! and mask logic ([`super::bounded::Bounded`]) over those rows with the call's real constraints. The
//! constrained sweep computes exactly what the unconstrained one did if, on every row, the constraints
//! leave `[ly, ry)` as it was, mask no cell the row visits, and give every comparison with `NN` the same
//! answer: by induction each row then starts from the same state and does the same work. A row the
//! constraints' block does not serve, or any difference, rejects the result (the caller runs the call).

use super::{bounded::Bounded, one_sided_with, Constraints, Extent};
use crate::ydrop::{YdropJob, YdropResult};

#[derive(Clone, Copy)]
struct Row {
    ly: u32,
    ry: u32,
    /// The right bounds `lo..=hi` compared with `NN` (when `tested`).
    lo: u32,
    hi: u32,
    tested: bool,
}

/// The rows an unconstrained sweep entered (see the module).
#[derive(Default, Clone)]
pub struct Envelope {
    rows: Vec<Row>,
}

impl Envelope {
    /// Rows the sweep entered.
    pub fn rows(&self) -> usize {
        self.rows.len()
    }
}

struct Recorder<'a>(&'a mut Vec<Row>);

impl Constraints for Recorder<'_> {
    fn enter_row(&mut self, _row: u32, ly: &mut u32, ry: &mut u32) -> bool {
        self.0.push(Row { ly: *ly, ry: *ry, lo: 0, hi: 0, tested: false });
        true
    }
    fn masked(&self, _row: u32, _col: u32) -> bool {
        false
    }
    fn right_limit(&self, n: u32) -> i64 {
        n as i64
    }
    fn limit_tested(&mut self, lo: u32, hi: u32) {
        let r = self.0.last_mut().expect("a row was entered");
        (r.lo, r.hi, r.tested) = (lo, hi, true);
    }
}

/// `ydrop_one_sided_align` for `job` as if it had no bounds (`job.bounds` is not read), recording its
/// envelope into `env`; as [`super::one_sided`] otherwise.
pub fn run_recorded(job: &YdropJob, out: &mut YdropResult, env: &mut Envelope) -> Extent {
    env.rows.clear();
    one_sided_with(job, out, &mut Recorder(&mut env.rows))
}

/// Whether `job` (with its real bounds; null: none) computes exactly what the unconstrained run that
/// recorded `env` computed, for the same sequences and scoring.
pub fn unaffected(env: &Envelope, job: &YdropJob) -> bool {
    if job.bounds.is_null() {
        return true;
    }
    // SAFETY: the job's contract: a non-null bounds points to a live, well-formed block.
    let bounds = unsafe { &*job.bounds };
    let n = job.n;
    let mut k = Bounded::new(bounds, job.reversed != 0, n);
    for (i, e) in env.rows.iter().enumerate() {
        let row = i as u32 + 1;
        let (mut ly, mut ry) = (e.ly, e.ry);
        if !k.enter_row(row, &mut ly, &mut ry) || (ly, ry) != (e.ly, e.ry) {
            return false;
        }
        // the visited columns, as the sweep takes them
        if k.masks_hit(row, ly, ry.max(ly).min(n.wrapping_add(1))) {
            return false;
        }
        if e.tested {
            let clamp = |nn: i64| nn.clamp(e.lo as i64 - 1, e.hi as i64);
            if clamp(k.right_limit(n)) != clamp(n as i64) {
                return false;
            }
        }
    }
    true
}
