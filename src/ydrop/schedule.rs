//! LASTZ's anchor loop, scheduled: which extensions run ahead on the pool ([`Ahead`]), when a call may take
//! one, and what the loop runs itself. The policy lives here; the loop's host (LASTZ's glue, or a test's
//! model) answers questions about its own data through [`Host`]: an anchor's jobs and limits, the earlier
//! alignments a job would see, containment by an alignment.
//!
//! One y-drop call is one [`Schedule::extend`]: it takes the result computed ahead when the call's real
//! earlier alignments would leave it as it is, else runs the call in place (a constrained call with a
//! bounds block of `depth` alignments, four times deeper while its sweep goes past them). The loop's order,
//! its skip test and its alignments stay LASTZ's: speculation costs time, never output.
//!
//! - **Ahead of the loop** ([`Schedule::ensure`], at each anchor the loop extends): the right half of that
//!   anchor and both halves of the anchors after it (up to `WARPALIGN_YDROP_AHEAD`), nearest first, each
//!   under the earlier alignments known then. An anchor an earlier alignment contains is not queued (and its
//!   jobs are cancelled once one does); one within [`DIAG_BAND`] diagonals and [`DEFER_BAND`] positions of an
//!   earlier queued anchor waits until the loop has passed that one (it is likely inside its alignment).
//!   After an insert, the finished jobs of queued anchors near the new alignment that the alignments known
//!   now would change are queued again under those. Further anchors are queued while a call waits.
//! - **During the HSP search** ([`Schedule::early_hsp`]): each HSP's peak is an anchor to be; of those within
//!   [`EARLY_SAME_DIAG`] diagonals and [`DEFER_BAND`] positions of one another only the highest-scoring is
//!   kept, and its two jobs are queued, under no alignments, once the search has passed its neighbourhood.
//!   At the loop's start unstarted ones are dropped; the loop takes the others for the anchors with the same
//!   jobs when they hold for the alignments known then.
//! - **The log**: every inserted alignment's rows. A result computed under the alignments known when it was
//!   queued is the call's when no alignment inserted since meets the rows its sweep entered (LASTZ's bound
//!   and mask logic reads only alignments that meet them); any other constrained result is replayed against
//!   the call's real alignments ([`shadow::unaffected`]).

use super::ahead::{Ahead, Taken, Ticket};
use super::twin::{self, shadow};
use super::{one_sided_batch, YdropBounds, YdropJob, YdropResult, TRUNC_BOUNDS, TRUNC_MIDWAY, TRUNC_NONE};
use crate::{env, Engine, Error, Result};
use std::ffi::c_void;
use std::time::Instant;

/// Anchors computed ahead at most (`WARPALIGN_YDROP_AHEAD` takes 0 to one less).
pub const AHEAD_MAX: usize = 256;
/// Anchors an ensure queues ahead at least; the rest are queued while a call waits.
const AHEAD_SOON: u32 = 64;
/// Anchors past the current one looked at, at most.
const SCAN_MAX: u32 = 1024;
/// Anchors waiting behind a near queued one, at most (more are not queued).
const DEFER_MAX: usize = 1024;
/// Diagonals within which anchors (or an anchor and a new alignment) are near.
pub const DIAG_BAND: i64 = 2000;
/// An alignment inserted this near a finished job re-checks it.
const POS_BAND: i64 = 100_000;
/// Positions within which an anchor waits for a near queued one (H. pylori: 100,000 made more anchors wait,
/// 20,000 wasted more work).
pub const DEFER_BAND: i64 = 50_000;
/// Alignments inserted since the last ensure that are tested one by one (past that, every one).
const NEW_MAX: usize = 16;
/// Anchors kept from the search at most.
const EARLY_MAX: usize = 4096;
/// Diagonals within which the search's anchors are one (H. pylori: of the anchors the loop deferred within
/// this many diagonals of their blocker, 99 were extended and 610 skipped).
pub const EARLY_SAME_DIAG: i64 = 100;
/// Search progress (query positions) between two flushes of the search's anchors.
const EARLY_FLUSH_STEP: u32 = 1000;

/// An anchor of the loop, with its two jobs (left, right; no bounds) under the limits the loop sets for it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct YdropAnchor {
    pub pos1: u32,
    pub pos2: u32,
    pub jobs: [YdropJob; 2],
}

/// Whose earlier alignments [`Host::bounds`] flattens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundsOf {
    /// The current call's.
    Call,
    /// Those of the anchor [`Host::know`] last named, as the loop would find them now.
    Known,
}

/// What [`Host::bounds`] found.
pub enum Bounds {
    /// No earlier alignment can bound or mask the job: it runs unconstrained.
    Unconstrained,
    /// A block valid until the next `bounds`.
    Block(YdropBounds),
    /// The alignments cannot be flattened: the loop runs the call itself.
    Unroutable,
}

/// An inserted alignment, as the host names it.
pub type AlignHandle = *const c_void;

/// The loop's host: its data, and the questions only it can answer.
pub trait Host {
    /// Anchor `k` of the loop (past the current one): its position and jobs under the limits the loop will
    /// set for it; `None` when the loop will skip it (outside its limits, or an earlier alignment contains
    /// it).
    fn anchor(&mut self, k: u32) -> Option<YdropAnchor>;
    /// Makes anchor `k`'s earlier alignments, as the loop would find them now, those of
    /// [`BoundsOf::Known`] (the current anchor's are the loop's own); false when one contains the anchor.
    fn know(&mut self, k: u32) -> bool;
    /// The earlier alignments a job of `m` rows (the left half when `reversed`) can reach, the list cut
    /// after `depth` of them.
    fn bounds(&mut self, of: BoundsOf, reversed: bool, m: u32, depth: u32) -> Bounds;
    /// Whether the inserted alignment contains the anchor at (`pos1`, `pos2`).
    fn contains(&mut self, align: AlignHandle, pos1: u32, pos2: u32) -> bool;
    /// Whether any earlier alignment contains the anchor at (`pos1`, `pos2`).
    fn covered(&mut self, pos1: u32, pos2: u32) -> bool;
    /// The jobs of the search's anchor at (`pos1`, `pos2`) under its partitions' limits; `None` outside them.
    fn early_jobs(&mut self, pos1: u32, pos2: u32) -> Option<[YdropJob; 2]>;
    /// The peak of the HSP of `length` at (`pos1`, `pos2`): its offset, as LASTZ's reduce_to_points finds it.
    fn peak(&mut self, pos1: u32, pos2: u32, length: u32) -> u32;
}

/// What [`Schedule::extend`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Extended {
    /// The result (its ops owned by the schedule until its next call).
    Done,
    /// The loop must run LASTZ's own function (bounds that cannot be flattened, or traceback memory that
    /// cannot hold the first row: LASTZ dies with its own message), then call [`Schedule::original_done`].
    RunOriginal,
}

/// What became of a result computed ahead for a call.
enum Taking {
    Took(YdropResult),
    /// No worker had started it: the loop runs the call.
    NotStarted,
    /// The call's alignments would change it: the loop runs the call.
    Rejected,
}

/// How a queued job's result relates to the alignments known at its `log_at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    /// Queued under a block that is not all of them (it could not be flattened).
    Partial,
    /// Queued without bounds: none could reach it.
    Free,
    /// Queued under their block.
    Block,
    /// Found to hold for them.
    Holds,
}

impl Known {
    fn exact(self, ran_under: bool) -> bool {
        matches!(self, Known::Free | Known::Holds) || (self == Known::Block && ran_under)
    }
}

#[derive(Debug, Clone, Copy)]
struct Side {
    ticket: Ticket,
    /// Neither taken nor cancelled.
    live: bool,
    known: Known,
    /// The log's length when it was queued or checked.
    log_at: usize,
}

const DEAD: Side = Side { ticket: 0, live: false, known: Known::Partial, log_at: 0 };

/// An anchor queued ahead.
struct Queued {
    ix: u32,
    pos1: u32,
    pos2: u32,
    jobs: [YdropJob; 2],
    side: [Side; 2],
}

/// An anchor waiting until the loop passes a near queued one.
struct Deferred {
    ix: u32,
    blocker: u32,
    anchor: YdropAnchor,
}

/// An alignment the loop inserted since the last ensure.
struct Inserted {
    align: AlignHandle,
    pos1: u32,
    pos2: u32,
    end1: u32,
    end2: u32,
}

/// The rows of an inserted alignment.
#[derive(Clone, Copy)]
struct Span {
    pos1: u32,
    end1: u32,
}

/// An anchor from the HSP search.
struct EarlyAnchor {
    pos1: u32,
    pos2: u32,
    score: i32,
    queued: bool,
    side: [Option<Ticket>; 2],
    jobs: Option<[YdropJob; 2]>,
}

#[derive(Default)]
struct Early {
    anchors: Vec<EarlyAnchor>,
    /// Taking HSPs from the search.
    search: bool,
    /// Its jobs may be in the pool.
    live: bool,
    /// The search's query position, at least.
    scan: u32,
    flushed_at: u32,
    /// No alignment existed when the loop started.
    none_before: bool,
}

/// Counters and times for `WARPALIGN_STATS=1`.
#[derive(Default, Debug, Clone)]
pub struct Stats {
    pub routed: u64,
    pub constrained: u64,
    pub deeper: u64,
    pub truncated: u64,
    pub unroutable: u64,
    pub queued: u64,
    pub hits: u64,
    pub rejected: u64,
    pub not_started: u64,
    pub cancelled: u64,
    pub requeued: u64,
    pub untouched: u64,
    pub early_queued: u64,
    pub early_taken: u64,
    pub early_unstarted: u64,
    pub loop_secs: f64,
    pub wait_secs: f64,
    pub queue_secs: f64,
    pub fill_secs: f64,
    pub check_secs: f64,
    /// Calls the loop ran itself: none queued, not started, rejected, by LASTZ's own code.
    pub spot_calls: [u64; 4],
    pub spot_secs: [f64; 4],
}

/// The settings read from the environment.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Anchors computed ahead (0: none, no pool).
    pub ahead: usize,
    /// Alignments a call's first bounds block copies.
    pub depth: u32,
    /// Queue the search's anchors.
    pub early: bool,
    /// Replay even results no inserted alignment meets (and fail on a disagreement).
    pub verify: bool,
    pub stats: bool,
    /// The pool's workers share the machine's cores with other processes (by default; an explicit
    /// `WARPALIGN_YDROP_AHEAD` keeps them all, as tests need).
    pub share_cores: bool,
}

impl Settings {
    /// `WARPALIGN_YDROP_AHEAD` (default: 255 with 8 cores or more: with fewer, the work wasted on anchors
    /// LASTZ then skips costs more than the parallelism gains; 0 while `WARPALIGN_YDROP_DUMP` records every
    /// call), `WARPALIGN_YDROP_DEPTH` (32), `WARPALIGN_YDROP_EARLY` (on), `WARPALIGN_YDROP_VERIFY` and
    /// `WARPALIGN_STATS` (off). Every other variable of the library is checked too ([`env::check`]), whether
    /// or not a pool runs: an error names the first that does not accept its value.
    pub fn from_env() -> Result<Self> {
        env::check()?;
        let asked = env::YDROP_AHEAD.read()?;
        let ahead = if env::YDROP_DUMP.get().is_some() {
            0
        } else if let Some(n) = asked {
            n
        } else if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 8 {
            AHEAD_MAX - 1
        } else {
            0
        };
        Ok(Settings {
            ahead,
            depth: env::YDROP_DEPTH.read()?.unwrap_or(32),
            early: env::YDROP_EARLY.read()?.unwrap_or(true),
            verify: env::YDROP_VERIFY.read()?.unwrap_or(false),
            stats: env::STATS.read()?.unwrap_or(false),
            share_cores: asked.is_none(),
        })
    }
}

/// The context of the last ensure, for queueing anchors past the frontier later (until the next insert:
/// the alignments do not change before it, so an anchor queued while a call waits is queued as the ensure
/// would have).
struct Fill {
    i: u32,
    end: u32,
}

/// The schedule of one LASTZ process's anchor loops.
pub struct Schedule {
    settings: Settings,
    pool: Option<Ahead>,
    /// Runs the calls the loop runs itself (one job a call: a GPU would only add its start).
    engine: Engine,
    window: Vec<Queued>,
    deferred: Vec<Deferred>,
    /// The next anchor not looked at yet.
    frontier: u32,
    /// Queued anchors past the current one.
    ahead: u32,
    fill: Option<Fill>,
    /// Alignments inserted since the last ensure (the first NEW_MAX) and how many.
    new: Vec<Inserted>,
    new_count: usize,
    log: Vec<Span>,
    early: Early,
    loop_start: Option<Instant>,
    /// When the loop started running LASTZ's own function.
    original_start: Option<Instant>,
    /// The last result [`Schedule::extend`] gave.
    result: YdropResult,
    pub stats: Stats,
}

impl Schedule {
    pub fn from_env() -> Result<Self> {
        Self::new(Settings::from_env()?)
    }

    /// The schedule; with `settings.ahead` > 0 its pool starts now, so that its workers ready their scratch
    /// memory while LASTZ reads and seeds.
    pub fn new(settings: Settings) -> Result<Self> {
        let pool = if settings.ahead > 0 { Some(Ahead::new(0, settings.share_cores)?) } else { None };
        Ok(Schedule {
            settings,
            pool,
            engine: Engine::cpu(),
            window: Vec::with_capacity(AHEAD_MAX),
            deferred: Vec::new(),
            frontier: 0,
            ahead: 0,
            fill: None,
            new: Vec::with_capacity(NEW_MAX),
            new_count: 0,
            log: Vec::new(),
            early: Early::default(),
            loop_start: None,
            original_start: None,
            result: YdropResult::EMPTY,
            stats: Stats::default(),
        })
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The result of the last [`Schedule::extend`] that answered [`Extended::Done`].
    pub fn result(&self) -> &YdropResult {
        &self.result
    }

    /// An anchor loop starts (`none_before`: no alignment exists yet). Nothing queued by an earlier loop
    /// survives (the target may be masked between loops); jobs from the search wait for the loop's anchors.
    pub fn loop_begin(&mut self, none_before: bool) {
        self.early.none_before = none_before;
        if self.early.live {
            self.forget_loop();
            self.early_loop_begin();
        } else {
            self.end_all();
        }
        self.loop_start = Some(Instant::now());
    }

    /// The anchor loop ends: no job reads its sequences afterwards, and the calling thread gives back its
    /// traceback pages ([`twin::release_traceback`]).
    pub fn loop_end(&mut self) {
        self.end_all();
        twin::release_traceback();
        if let Some(t) = self.loop_start.take() {
            self.stats.loop_secs += t.elapsed().as_secs_f64();
        }
    }

    fn forget_loop(&mut self) {
        self.window.clear();
        self.deferred.clear();
        self.frontier = 0;
        self.new.clear();
        self.new_count = 0;
        self.log.clear();
        self.fill = None;
    }

    /// Drains the pool and forgets every queued job.
    fn end_all(&mut self) {
        if let Some(pool) = &self.pool {
            pool.drain();
        }
        self.forget_loop();
        self.early.anchors.clear();
        self.early.search = false;
        self.early.live = false;
    }

    /// The loop is about to extend anchor `i` (`current`, under the loop's limits) of `end` anchors.
    pub fn ensure(&mut self, host: &mut dyn Host, i: u32, end: u32, current: &YdropAnchor) -> Result<()> {
        if self.pool.is_none() {
            return Ok(());
        }
        let t0 = self.settings.stats.then(Instant::now);
        let r = self.ensure_now(host, i, end, current);
        if let Some(t0) = t0 {
            self.stats.queue_secs += t0.elapsed().as_secs_f64();
        }
        r
    }

    fn ensure_now(&mut self, host: &mut dyn Host, i: u32, end: u32, current: &YdropAnchor) -> Result<()> {
        // anchors the loop has passed (or skipped) need nothing more
        let mut k = 0;
        while k < self.window.len() {
            if self.window[k].ix < i {
                self.drop_queued(k);
            } else {
                k += 1;
            }
        }
        let mut k = 0;
        while k < self.deferred.len() {
            if self.deferred[k].ix <= i {
                self.deferred.swap_remove(k);
            } else {
                k += 1;
            }
        }
        self.frontier = self.frontier.max(i + 1);

        // anchor i itself: the loop runs its left half now (unless the search queued it), a worker its right
        if !self.window.iter().any(|w| w.ix == i) {
            let both = self.early_left(current.pos1, current.pos2);
            self.queue(host, i, current, both)?;
        }

        // queued anchors an alignment inserted since contains, and those near one
        let mut k = 0;
        while k < self.window.len() {
            let w = &self.window[k];
            if w.ix > i && self.newly_covered(host, w.pos1, w.pos2) {
                self.drop_queued(k);
            } else {
                k += 1;
            }
        }
        for k in 0..self.window.len() {
            let w = &self.window[k];
            if w.ix > i && self.near_new(w.pos1, w.pos2) {
                self.requeue(host, k)?;
            }
        }
        self.new.clear();
        self.new_count = 0;
        let mut ahead = self.window.iter().filter(|w| w.ix > i).count() as u32;

        // anchors that waited for one the loop has now passed
        let mut k = 0;
        while k < self.deferred.len() && (ahead as usize) < self.settings.ahead {
            let d = &self.deferred[k];
            if d.blocker >= i {
                k += 1;
                continue;
            }
            let (pos1, pos2, ix) = (d.anchor.pos1, d.anchor.pos2, d.ix);
            if host.covered(pos1, pos2) {
                self.deferred.swap_remove(k);
                continue;
            }
            let blocker = self.near_queued(i, ix, pos1, pos2);
            self.deferred[k].blocker = blocker;
            if blocker != ix {
                k += 1;
                continue;
            }
            let anchor = self.deferred.swap_remove(k).anchor;
            ahead += self.queue(host, ix, &anchor, true)? as u32;
        }

        // the following anchors: enough now that the workers have some, the rest while a call waits
        self.ahead = ahead;
        self.fill = Some(Fill { i, end });
        while self.ahead < AHEAD_SOON && self.fill_one(host)? {}
        Ok(())
    }

    /// The loop inserted an alignment (`align`, the host's name for it) with these ends.
    pub fn inserted(&mut self, align: AlignHandle, pos1: u32, end1: u32, pos2: u32, end2: u32) {
        if self.pool.is_none() {
            return;
        }
        self.fill = None;
        if self.new.len() < NEW_MAX {
            self.new.push(Inserted { align, pos1, pos2, end1, end2 });
        }
        self.new_count += 1;
        self.log.push(Span { pos1, end1 });
    }

    /// Queues anchor `ix`'s jobs (both, or the right one only), each under the earlier alignments known now;
    /// priorities follow the loop's order (anchor, then left before right). False when an earlier
    /// alignment contains the anchor.
    fn queue(&mut self, host: &mut dyn Host, ix: u32, anchor: &YdropAnchor, both: bool) -> Result<bool> {
        if !host.know(ix) {
            return Ok(false);
        }
        let mut q = Queued { ix, pos1: anchor.pos1, pos2: anchor.pos2, jobs: anchor.jobs, side: [DEAD; 2] };
        for side in 0..2 {
            if side == 0 && !both {
                continue;
            }
            let mut job = q.jobs[side];
            let block;
            let known = match host.bounds(BoundsOf::Known, side == 0, job.m, self.settings.depth) {
                Bounds::Unconstrained => Known::Free,
                Bounds::Block(b) => {
                    block = b;
                    job.bounds = &block;
                    Known::Block
                }
                Bounds::Unroutable => Known::Partial,
            };
            q.side[side] = Side { ticket: 0, live: true, known, log_at: self.log.len() };
            if !self.early.anchors.is_empty() && self.early_adopt(&mut q, side, &job)? {
                continue;
            }
            q.side[side].ticket = self.pool()?.submit(&job, 2 * ix as u64 + side as u64)?;
            self.stats.queued += 1;
        }
        self.window.push(q);
        Ok(true)
    }

    fn pool(&self) -> Result<&Ahead> {
        self.pool.as_ref().ok_or_else(|| Error::Internal("y-drop schedule: no pool".into()))
    }

    fn drop_queued(&mut self, k: usize) {
        let w = self.window.swap_remove(k);
        for s in w.side.iter().filter(|s| s.live) {
            if let Some(pool) = &self.pool {
                pool.cancel(s.ticket);
            }
            self.stats.cancelled += 1;
        }
    }

    /// Whether an alignment inserted since the last ensure contains the anchor (a queued anchor was not
    /// contained when queued; past NEW_MAX new ones, every alignment is asked).
    fn newly_covered(&self, host: &mut dyn Host, pos1: u32, pos2: u32) -> bool {
        if self.new_count > NEW_MAX {
            return host.covered(pos1, pos2);
        }
        self.new.iter().any(|a| host.contains(a.align, pos1, pos2))
    }

    /// Whether (`a1`, `a2`) lies within POS_BAND positions of an alignment inserted since the last ensure and
    /// within DIAG_BAND of its diagonals.
    fn near_new(&self, a1: u32, a2: u32) -> bool {
        let d = a1 as i64 - a2 as i64;
        self.new.iter().any(|a| {
            let (d_beg, d_end) = (a.pos1 as i64 - a.pos2 as i64, a.end1 as i64 - a.end2 as i64);
            let (lo, hi) = (d_beg.min(d_end) - DIAG_BAND, d_beg.max(d_end) + DIAG_BAND);
            (a1 as i64 + POS_BAND >= a.pos1 as i64) && (a1 as i64 <= a.end1 as i64 + POS_BAND) && (lo..=hi).contains(&d)
        })
    }

    /// Whether no alignment inserted since `log_at` meets the rows (with a margin of one on each side) of a
    /// sweep from `anchor1` that entered `rows`. LASTZ's bound and mask logic for those rows reads only
    /// alignments that meet them and the links each got when inserted (naming alignments that existed then),
    /// so a sweep computed under the alignments known at `log_at` is the call's.
    fn untouched(&self, log_at: usize, anchor1: u32, reversed: bool, rows: usize) -> bool {
        let (a, rows) = (anchor1 as u64, rows as u64);
        let (lo, hi) = if reversed { (a.saturating_sub(rows + 2), a + 1) } else { (a.saturating_sub(1), a + rows + 2) };
        self.log[log_at.min(self.log.len())..].iter().all(|s| !((s.pos1 as u64) <= hi && (s.end1 as u64) >= lo))
    }

    /// A queued anchor's finished jobs that the alignments known now would change are queued again now
    /// (under those), rather than run in the loop when it reaches them.
    fn requeue(&mut self, host: &mut dyn Host, k: usize) -> Result<()> {
        let pool = self.pool.as_ref().ok_or_else(|| Error::Internal("y-drop schedule: no pool".into()))?;
        let w = &self.window[k];
        let mut check = [false; 2];
        for side in 0..2 {
            let s = w.side[side];
            if !s.live {
                continue;
            }
            let Some((rows, ran_under)) = pool.envelope_rows(s.ticket) else { continue };
            check[side] = !(s.known.exact(ran_under) && self.untouched(s.log_at, w.pos1, side == 0, rows));
        }
        if check == [false; 2] || !host.know(w.ix) {
            return Ok(());
        }
        let (ix, jobs, log_len) = (w.ix, w.jobs, self.log.len());
        for side in 0..2 {
            if !check[side] {
                continue;
            }
            let Bounds::Block(block) = host.bounds(BoundsOf::Known, side == 0, jobs[side].m, self.settings.depth) else {
                continue;
            };
            let job = YdropJob { bounds: &block, ..jobs[side] };
            let s = &mut self.window[k].side[side];
            match pool.still_holds(s.ticket, &job) {
                None => {}
                Some(true) => {
                    s.known = Known::Holds;
                    s.log_at = log_len;
                }
                Some(false) => {
                    pool.cancel(s.ticket);
                    s.ticket = pool.submit(&job, 2 * ix as u64 + side as u64)?;
                    s.known = Known::Block;
                    s.log_at = log_len;
                    self.stats.requeued += 1;
                }
            }
        }
        Ok(())
    }

    /// The last queued anchor in [`i`, `k`) near (`a1`, `a2`), or `k` if none.
    fn near_queued(&self, i: u32, k: u32, a1: u32, a2: u32) -> u32 {
        let d = a1 as i64 - a2 as i64;
        self.window
            .iter()
            .filter(|w| (i..k).contains(&w.ix))
            .filter(|w| (d - (w.pos1 as i64 - w.pos2 as i64)).abs() <= DIAG_BAND && (a1 as i64 - w.pos1 as i64).abs() <= DEFER_BAND)
            .map(|w| w.ix)
            .max()
            .unwrap_or(k)
    }

    /// Looks at the next anchor past the frontier and queues it (or defers it behind a near queued one);
    /// false when there is nothing more to look at until the next ensure.
    fn fill_one(&mut self, host: &mut dyn Host) -> Result<bool> {
        let Some(fill) = &self.fill else { return Ok(false) };
        let (i, end) = (fill.i, fill.end);
        if self.frontier >= end || self.frontier >= i.saturating_add(SCAN_MAX) || self.ahead as usize >= self.settings.ahead {
            return Ok(false);
        }
        let k = self.frontier;
        self.frontier += 1;
        let Some(anchor) = host.anchor(k) else { return Ok(true) };
        let blocker = self.near_queued(i, k, anchor.pos1, anchor.pos2);
        if blocker != k {
            if self.deferred.len() < DEFER_MAX {
                self.deferred.push(Deferred { ix: k, blocker, anchor });
            }
            return Ok(true);
        }
        self.ahead += self.queue(host, k, &anchor, true)? as u32;
        Ok(true)
    }

    /// One y-drop call of the loop (`job` without bounds; `constrained` when an earlier alignment can
    /// bound or mask it; `anchor1` the loop's anchor).
    pub fn extend(&mut self, host: &mut dyn Host, job: &YdropJob, anchor1: u32, constrained: bool) -> Result<Extended> {
        self.result.release();
        let mut job = YdropJob { bounds: std::ptr::null(), ..*job };
        let mut spot = 0;
        if let Some(found) = self.find(&job) {
            match self.take_ahead(host, &job, found, anchor1, constrained)? {
                Taking::Took(result) => {
                    self.result = result;
                    self.stats.hits += 1;
                    self.count_routed(constrained);
                    return Ok(Extended::Done);
                }
                Taking::NotStarted => spot = 1,
                Taking::Rejected => spot = 2,
            }
        }

        let start = self.pool.is_some().then(Instant::now);
        let mut depth = self.settings.depth;
        let mut block;
        loop {
            job.bounds = std::ptr::null();
            if constrained {
                match host.bounds(BoundsOf::Call, job.reversed != 0, job.m, depth) {
                    Bounds::Block(b) => {
                        block = b;
                        job.bounds = &block;
                    }
                    Bounds::Unconstrained => {}
                    Bounds::Unroutable => return Ok(self.run_original(start)),
                }
            }
            one_sided_batch(&self.engine, std::slice::from_ref(&job), std::slice::from_mut(&mut self.result))?;
            if self.result.truncated != TRUNC_BOUNDS {
                break;
            }
            self.stats.deeper += 1;
            depth = depth.saturating_mul(4);
        }
        if !matches!(self.result.truncated, TRUNC_NONE | TRUNC_MIDWAY) {
            self.result.release();
            return Ok(self.run_original(start));
        }
        self.count_routed(constrained);
        if let Some(t) = start {
            self.stats.spot_calls[spot] += 1;
            self.stats.spot_secs[spot] += t.elapsed().as_secs_f64();
        }
        Ok(Extended::Done)
    }

    fn count_routed(&mut self, constrained: bool) {
        if self.result.truncated == TRUNC_MIDWAY {
            self.stats.truncated += 1;
        }
        self.stats.routed += 1;
        self.stats.constrained += constrained as u64;
    }

    fn run_original(&mut self, start: Option<Instant>) -> Extended {
        self.stats.unroutable += 1;
        self.original_start = start;
        Extended::RunOriginal
    }

    /// LASTZ's own function has run the call [`Schedule::extend`] gave back.
    pub fn original_done(&mut self) {
        if let Some(t) = self.original_start.take() {
            self.stats.spot_calls[3] += 1;
            self.stats.spot_secs[3] += t.elapsed().as_secs_f64();
        }
    }

    /// The live queued job equal to `job` (its ticket is then the call's): the ticket, what it ran under and
    /// when.
    fn find(&mut self, job: &YdropJob) -> Option<Side> {
        self.pool.as_ref()?;
        for w in &mut self.window {
            for side in 0..2 {
                if w.side[side].live && same_job(&w.jobs[side], job) {
                    w.side[side].live = false;
                    return Some(w.side[side]);
                }
            }
        }
        None
    }

    /// The result computed ahead for the call, if the call's real alignments leave it as it is (queueing
    /// more anchors while it waits).
    fn take_ahead(&mut self, host: &mut dyn Host, job: &YdropJob, found: Side, anchor1: u32, constrained: bool) -> Result<Taking> {
        let t0 = self.settings.stats.then(Instant::now);
        while !self.pool()?.finished(found.ticket) && self.fill_one(host)? {}
        if let Some(t0) = t0 {
            self.stats.fill_secs += t0.elapsed().as_secs_f64();
        }
        let t0 = Instant::now();
        let taken = self.pool()?.take(found.ticket)?;
        self.stats.wait_secs += t0.elapsed().as_secs_f64();
        let (mut result, env) = match taken {
            Taken::NotStarted => {
                self.stats.not_started += 1;
                return Ok(Taking::NotStarted);
            }
            Taken::Done(r, e) => (r, e),
        };
        // (a sweep the traceback memory cut short is LASTZ's result too, with its report)
        let mut ok = matches!(result.truncated, TRUNC_NONE | TRUNC_MIDWAY);
        if ok && constrained {
            let t1 = self.settings.stats.then(Instant::now);
            let untouched = found.known.exact(env.ran_under.is_some())
                && self.untouched(found.log_at, anchor1, job.reversed != 0, env.rows());
            self.stats.untouched += untouched as u64;
            if !untouched || self.settings.verify {
                ok = match host.bounds(BoundsOf::Call, job.reversed != 0, job.m, self.settings.depth) {
                    Bounds::Block(b) => b.check().is_ok() && shadow::unaffected(&env, &YdropJob { bounds: &b, ..*job }),
                    Bounds::Unconstrained => shadow::unaffected(&env, job),
                    Bounds::Unroutable => false,
                };
                if untouched && !ok {
                    result.release();
                    return Err(Error::Internal(format!("a result taken without a replay fails it (anchor {anchor1})")));
                }
            }
            if let Some(t1) = t1 {
                self.stats.check_secs += t1.elapsed().as_secs_f64();
            }
        }
        if ok {
            return Ok(Taking::Took(result));
        }
        result.release();
        self.stats.rejected += 1;
        Ok(Taking::Rejected)
    }

    // ---- the HSP search's anchors ----

    /// The search of a query strand begins, its HSPs the anchors as they are: true when their jobs will be
    /// queued (the host then keeps the sequences and limits [`Host::early_jobs`] reads until
    /// [`Schedule::early_end`]).
    pub fn early_begin(&mut self) -> bool {
        self.early_end();
        if !self.settings.early || self.pool.is_none() {
            return false;
        }
        self.early = Early { search: true, live: true, ..Early::default() };
        true
    }

    /// The strand's gapped extension is over, or its search aborted: no job of the search reads its
    /// sequences afterwards.
    pub fn early_end(&mut self) {
        if self.early.live {
            self.end_all();
        }
        self.early.anchors.clear();
        self.early.search = false;
        self.early.live = false;
    }

    /// The search collected the HSP of `length` at (`pos1`, `pos2`) scoring `score`.
    pub fn early_hsp(&mut self, host: &mut dyn Host, pos1: u32, pos2: u32, length: u32, score: i32) -> Result<()> {
        if !self.early.search {
            return Ok(());
        }
        self.early.scan = self.early.scan.max(pos2.saturating_add(length));
        if self.early.scan >= self.early.flushed_at.saturating_add(EARLY_FLUSH_STEP) {
            self.early_flush(host)?;
        }
        let lowest = |e: &Early| (0..e.anchors.len()).min_by_key(|&k| e.anchors[k].score);
        if self.early.anchors.len() == EARLY_MAX {
            if let Some(low) = lowest(&self.early) {
                if score <= self.early.anchors[low].score {
                    return Ok(());
                }
            }
        }
        let a1 = pos1 + host.peak(pos1, pos2, length);
        let a2 = pos2 + (a1 - pos1);
        let near = |e: &EarlyAnchor| {
            let dd = (a1 as i64 - a2 as i64) - (e.pos1 as i64 - e.pos2 as i64);
            let dp = a1 as i64 - e.pos1 as i64;
            dd.abs() <= EARLY_SAME_DIAG && dp.abs() <= DEFER_BAND
        };
        // (a near one scoring at least as high likely contains it, else it likely contains them)
        if self.early.anchors.iter().any(|e| near(e) && e.score >= score) {
            return Ok(());
        }
        let mut k = 0;
        while k < self.early.anchors.len() {
            if near(&self.early.anchors[k]) {
                self.early_drop(k);
            } else {
                k += 1;
            }
        }
        if self.early.anchors.len() == EARLY_MAX {
            if let Some(low) = lowest(&self.early) {
                self.early_drop(low);
            }
        }
        self.early.anchors.push(EarlyAnchor { pos1: a1, pos2: a2, score, queued: false, side: [None; 2], jobs: None });
        Ok(())
    }

    fn early_drop(&mut self, k: usize) {
        let e = self.early.anchors.swap_remove(k);
        if let Some(pool) = &self.pool {
            e.side.iter().flatten().for_each(|&t| pool.cancel(t));
        }
    }

    /// Queues the jobs of the anchors the search has passed (none can come near them now, but for an HSP
    /// reaching back past its seed), after every job of the loop's, higher scores first.
    fn early_flush(&mut self, host: &mut dyn Host) -> Result<()> {
        let pool = self.pool.as_ref().ok_or_else(|| Error::Internal("y-drop schedule: no pool".into()))?;
        let scan = self.early.scan as i64;
        for e in &mut self.early.anchors {
            if e.queued || scan <= e.pos2 as i64 + DEFER_BAND + DIAG_BAND {
                continue;
            }
            e.queued = true;
            let Some(jobs) = host.early_jobs(e.pos1, e.pos2) else { continue };
            let priority = (1u64 << 62) - e.score.max(0) as u64;
            for side in 0..2 {
                e.side[side] = Some(pool.submit(&jobs[side], priority)?);
                self.stats.early_queued += 1;
            }
            e.jobs = Some(jobs);
        }
        self.early.flushed_at = self.early.scan;
        Ok(())
    }

    /// The search is over and the loop starts: jobs no worker started are dropped (the loop queues what it
    /// needs in its own order); the rest wait for [`Schedule::early_adopt`], sorted by position.
    fn early_loop_begin(&mut self) {
        self.early.search = false;
        if let Some(pool) = &self.pool {
            for e in &mut self.early.anchors {
                for s in &mut e.side {
                    if s.is_some_and(|t| pool.cancel_queued(t)) {
                        *s = None;
                        self.stats.early_unstarted += 1;
                    }
                }
            }
        }
        self.early.anchors.retain(|e| e.side.iter().any(Option::is_some));
        self.early.anchors.sort_by_key(|e| (e.pos1, e.pos2));
    }

    /// The first search anchor at (`pos1`, `pos2`) or after it.
    fn early_at(&self, pos1: u32, pos2: u32) -> usize {
        self.early.anchors.partition_point(|e| (e.pos1, e.pos2) < (pos1, pos2))
    }

    /// Whether the search queued the left job of the anchor at (`pos1`, `pos2`).
    fn early_left(&self, pos1: u32, pos2: u32) -> bool {
        self.early.anchors[self.early_at(pos1, pos2)..]
            .iter()
            .take_while(|e| (e.pos1, e.pos2) == (pos1, pos2))
            .any(|e| e.side[0].is_some())
    }

    /// Gives `q`'s job on `side` the ticket of the same job the search queued, if it is (or may be, when no
    /// earlier alignment is near) the job's result under the alignments known now (`job` carries their
    /// bounds when there are). A search job that would not do is cancelled.
    fn early_adopt(&mut self, q: &mut Queued, side: usize, job: &YdropJob) -> Result<bool> {
        let at = self.early_at(q.pos1, q.pos2);
        let Some(e) = self.early.anchors[at..]
            .iter_mut()
            .take_while(|e| (e.pos1, e.pos2) == (q.pos1, q.pos2))
            .find(|e| e.side[side].is_some() && e.jobs.is_some_and(|j| same_job(&j[side], &q.jobs[side])))
        else {
            return Ok(false);
        };
        let Some(ticket) = e.side[side].take() else { return Ok(false) };
        let pool = self.pool.as_ref().ok_or_else(|| Error::Internal("y-drop schedule: no pool".into()))?;
        let s = &mut q.side[side];
        let adopted = if s.known == Known::Free {
            // (no earlier alignment near: it ran as the loop would queue it now)
            true
        } else if self.early.none_before
            && pool.envelope_rows(ticket).is_some_and(|(rows, _)| self.untouched(0, q.pos1, side == 0, rows))
        {
            // (every alignment is in the log, and none meets its rows)
            s.known = Known::Free;
            s.log_at = 0;
            true
        } else if s.known == Known::Block && pool.still_holds(ticket, job) == Some(true) {
            s.known = Known::Holds;
            true
        } else {
            false
        };
        if adopted {
            s.ticket = ticket;
            self.stats.early_taken += 1;
        } else {
            pool.cancel(ticket);
        }
        Ok(adopted)
    }

    /// The `WARPALIGN_STATS=1` report, once a call was made (else nothing).
    pub fn report(&self) -> Option<String> {
        let s = &self.stats;
        if !self.settings.stats || s.routed + s.unroutable == 0 {
            return None;
        }
        let gpu_jobs = self.pool.as_ref().map_or((0, 0, 0), Ahead::gpu_jobs);
        Some(format!(
            "warpalign: {} of {} one-sided extensions routed ({} constrained, {} run again deeper, {} truncated; \
             {} unroutable: run by lastz)\n\
             warpalign: {} extensions queued ahead; {} calls answered by them, {} rejected (an earlier alignment \
             would change them), {} came first, {} cancelled (anchor skipped), {} queued again (an alignment \
             inserted since changed them); {} run on the GPU, {} left by it to the CPU (past {} rows), {} run by the \
             loop while on the GPU\n\
             warpalign: {} extensions queued while LASTZ searched for HSPs; {} taken by the loop, {} dropped before \
             a worker started them\n\
             warpalign: {:.3} s in gapped extension's anchor loops, {:.3} s of it waiting for extensions computed \
             ahead; {:.3} Gcells swept\n\
             warpalign: calls the loop ran itself: {} none queued ({:.3} s), {} not started ({:.3} s; {} of them \
             given up by a worker, past the workers' traceback memory), {} rejected ({:.3} s); {} by LASTZ's own \
             code ({:.3} s)\n\
             warpalign: the loop's bookkeeping: {:.3} s queueing anchors ahead (and {:.3} s while waiting for a \
             result), {:.3} s checking results computed ahead against their calls ({} taken without a replay: no \
             alignment inserted since they were queued meets their rows)\n",
            s.routed,
            s.routed + s.unroutable,
            s.constrained,
            s.deeper,
            s.truncated,
            s.unroutable,
            s.queued,
            s.hits,
            s.rejected,
            s.not_started,
            s.cancelled,
            s.requeued,
            gpu_jobs.0,
            gpu_jobs.1,
            super::ahead::GPU_ROW_CAP,
            gpu_jobs.2,
            s.early_queued,
            s.early_taken,
            s.early_unstarted,
            s.loop_secs,
            s.wait_secs,
            twin::cells_swept() as f64 / 1e9,
            s.spot_calls[0],
            s.spot_secs[0],
            s.spot_calls[1],
            s.spot_secs[1],
            self.pool.as_ref().map_or(0, Ahead::given_up),
            s.spot_calls[2],
            s.spot_secs[2],
            s.spot_calls[3],
            s.spot_secs[3],
            s.queue_secs,
            s.fill_secs,
            s.check_secs,
            s.untouched,
        ))
    }
}

impl Drop for Schedule {
    fn drop(&mut self) {
        self.result.release();
    }
}

/// The same call: every field but the bounds.
fn same_job(x: &YdropJob, y: &YdropJob) -> bool {
    (x.a, x.m, x.b, x.n, x.sub, x.gap_open, x.gap_extend, x.y_drop, x.trim_to_peak, x.reversed, x.tb_size)
        == (y.a, y.m, y.b, y.n, y.sub, y.gap_open, y.gap_extend, y.y_drop, y.trim_to_peak, y.reversed, y.tb_size)
}

#[cfg(test)]
mod tests {
    //! The schedule against a model of LASTZ's loop: its decisions after each event, and every call's result
    //! against the twin's.
    use super::*;
    use crate::ydrop::NONE;
    use std::collections::HashSet;

    /// A target and a query (a mutated copy of it), anchors given by position, and the answers LASTZ would
    /// give: which anchors an inserted alignment contains, which calls are constrained.
    struct Model {
        seq1: Vec<u8>,
        seq2: Vec<u8>,
        rev1: Vec<u8>,
        rev2: Vec<u8>,
        sub: Vec<i32>,
        anchors: Vec<(u32, u32)>,
        /// (alignment, anchor) pairs it contains.
        contains: HashSet<(usize, (u32, u32))>,
        covered: HashSet<(u32, u32)>,
        /// Calls (and known anchors) see an empty block rather than nothing; `unroutable`: no block at all.
        constrained: bool,
        unroutable: bool,
        block: YdropBounds,
    }

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    impl Model {
        fn new(len: usize, anchors: Vec<(u32, u32)>, seed: u64) -> Model {
            let mut s = seed | 1;
            let mut base = || b"ACGT"[(rng(&mut s) % 4) as usize];
            let seq1: Vec<u8> = (0..len).map(|_| base()).collect();
            let mut seq2: Vec<u8> = (0..len).map(|_| base()).collect();
            // (similar 400 bases either side of each anchor, one base in ten changed)
            for &(p1, p2) in &anchors {
                for d in -400i64..400 {
                    let (x, y) = (p1 as i64 + d, p2 as i64 + d);
                    if (0..len as i64).contains(&x) && (0..len as i64).contains(&y) {
                        let c = base();
                        seq2[y as usize] = if c == b'A' && base() < b'G' { base() } else { seq1[x as usize] };
                    }
                }
            }
            let rev = |v: &Vec<u8>| v.iter().rev().copied().chain([0]).collect::<Vec<u8>>();
            let (rev1, rev2) = (rev(&seq1), rev(&seq2));
            let (seq1, seq2) = (seq1.into_iter().chain([0]).collect(), seq2.into_iter().chain([0]).collect());
            let sub = (0..256 * 256).map(|i| if i >> 8 == i & 255 { 91 } else { -114 }).collect();
            let block = YdropBounds {
                anchor1: 0,
                anchor2: 0,
                segments: std::ptr::null(),
                n_segments: 0,
                alignments: std::ptr::null(),
                n_alignments: 0,
                left_align: NONE,
                right_align: NONE,
                left_seg: NONE,
                right_seg: NONE,
                above_list: NONE,
                below_list: NONE,
                rows: u32::MAX,
            };
            Model {
                seq1,
                seq2,
                rev1,
                rev2,
                sub,
                anchors,
                contains: HashSet::new(),
                covered: HashSet::new(),
                constrained: false,
                unroutable: false,
                block,
            }
        }

        fn len(&self) -> (u32, u32) {
            (self.seq1.len() as u32 - 1, self.seq2.len() as u32 - 1)
        }

        fn jobs(&self, a1: u32, a2: u32) -> [YdropJob; 2] {
            let (len1, len2) = self.len();
            let job = |a: &[u8], m, b: &[u8], n, reversed| YdropJob {
                a: a.as_ptr(),
                m,
                b: b.as_ptr(),
                n,
                sub: self.sub.as_ptr(),
                gap_open: 400,
                gap_extend: 30,
                y_drop: 9400,
                trim_to_peak: 1,
                reversed,
                tb_size: 1 << 24,
                bounds: std::ptr::null(),
            };
            [
                job(&self.rev1[(len1 - 1 - a1) as usize..], a1 + 1, &self.rev2[(len2 - 1 - a2) as usize..], a2 + 1, 1),
                job(&self.seq1[a1 as usize + 1..], len1 - a1 - 1, &self.seq2[a2 as usize + 1..], len2 - a2 - 1, 0),
            ]
        }

        fn anchor_at(&self, k: u32) -> YdropAnchor {
            let (pos1, pos2) = self.anchors[k as usize];
            YdropAnchor { pos1, pos2, jobs: self.jobs(pos1, pos2) }
        }
    }

    impl Host for Model {
        fn anchor(&mut self, k: u32) -> Option<YdropAnchor> {
            (!self.covered.contains(&self.anchors[k as usize])).then(|| self.anchor_at(k))
        }
        fn know(&mut self, k: u32) -> bool {
            !self.covered.contains(&self.anchors[k as usize])
        }
        fn bounds(&mut self, _of: BoundsOf, _reversed: bool, _m: u32, _depth: u32) -> Bounds {
            match (self.constrained, self.unroutable) {
                (_, true) => Bounds::Unroutable,
                (true, _) => Bounds::Block(self.block),
                _ => Bounds::Unconstrained,
            }
        }
        fn contains(&mut self, align: AlignHandle, pos1: u32, pos2: u32) -> bool {
            self.contains.contains(&(align as usize, (pos1, pos2)))
        }
        fn covered(&mut self, pos1: u32, pos2: u32) -> bool {
            self.covered.contains(&(pos1, pos2))
        }
        fn early_jobs(&mut self, pos1: u32, pos2: u32) -> Option<[YdropJob; 2]> {
            Some(self.jobs(pos1, pos2))
        }
        fn peak(&mut self, _pos1: u32, _pos2: u32, length: u32) -> u32 {
            length / 2
        }
    }

    fn settings(ahead: usize) -> Settings {
        Settings { ahead, depth: 32, early: true, verify: true, stats: true, share_cores: false }
    }

    fn queued(s: &Schedule) -> Vec<(u32, [bool; 2])> {
        let mut q: Vec<_> = s.window.iter().map(|w| (w.ix, [w.side[0].live, w.side[1].live])).collect();
        q.sort();
        q
    }

    /// Anchors far apart: one per 5,000 diagonals.
    fn spread(n: u32) -> Vec<(u32, u32)> {
        (0..n).map(|k| (10_000 + 100 * k, 10_000 + 100 * k - 5_000 * (k % 2) + 5_000 * (k / 2 % 2))).collect()
    }

    #[test]
    fn ensure_queues_the_right_half_now_and_both_halves_ahead() {
        let mut m = Model::new(20_000, spread(4), 1);
        let mut s = Schedule::new(settings(2)).unwrap();
        s.loop_begin(true);
        let current = m.anchor_at(0);
        s.ensure(&mut m, 0, 4, &current).unwrap();
        assert_eq!(queued(&s), vec![(0, [false, true]), (1, [true, true]), (2, [true, true])]);
        assert_eq!(s.frontier, 3, "the ahead limit stops the scan");
        s.loop_end();
        assert!(s.window.is_empty() && s.log.is_empty());
    }

    #[test]
    fn a_near_anchor_waits_until_the_loop_passes_its_blocker() {
        // anchor 2 shares anchor 0's diagonal, 2,000 positions on; anchor 1 is far from both
        let mut m = Model::new(20_000, vec![(5_000, 5_000), (6_000, 15_000), (7_000, 7_000)], 2);
        let mut s = Schedule::new(settings(8)).unwrap();
        s.loop_begin(true);
        let a0 = m.anchor_at(0);
        s.ensure(&mut m, 0, 3, &a0).unwrap();
        assert_eq!(queued(&s), vec![(0, [false, true]), (1, [true, true])]);
        assert_eq!(s.deferred.iter().map(|d| (d.ix, d.blocker)).collect::<Vec<_>>(), vec![(2, 0)]);
        let a1 = m.anchor_at(1);
        s.ensure(&mut m, 1, 3, &a1).unwrap();
        assert_eq!(queued(&s), vec![(1, [true, true]), (2, [true, true])]);
        assert!(s.deferred.is_empty());
        s.loop_end();
    }

    #[test]
    fn an_anchor_an_inserted_alignment_contains_is_cancelled() {
        let mut m = Model::new(20_000, spread(3), 3);
        let mut s = Schedule::new(settings(8)).unwrap();
        s.loop_begin(true);
        let a0 = m.anchor_at(0);
        s.ensure(&mut m, 0, 3, &a0).unwrap();
        let cancelled = s.stats.cancelled;
        // the loop's alignment from anchor 0 contains anchor 2
        m.contains.insert((7, m.anchors[2]));
        s.inserted(7 as AlignHandle, 9_000, 11_000, 9_000, 11_000);
        assert!(s.fill.is_none(), "no anchor is queued ahead between an insert and the next ensure");
        let a1 = m.anchor_at(1);
        s.ensure(&mut m, 1, 3, &a1).unwrap();
        assert_eq!(queued(&s), vec![(1, [true, true])]);
        assert_eq!(s.stats.cancelled - cancelled, 2 + 1, "anchor 2's two jobs, and anchor 0's right half");
        assert_eq!(s.log.len(), 1);
        s.loop_end();
    }

    #[test]
    fn the_search_keeps_the_best_of_near_hsps_and_queues_it_once_passed() {
        let mut m = Model::new(200_000, vec![], 4);
        let mut s = Schedule::new(settings(8)).unwrap();
        assert!(s.early_begin());
        s.early_hsp(&mut m, 1_000, 1_000, 100, 500).unwrap();
        s.early_hsp(&mut m, 1_400, 1_420, 100, 900).unwrap(); // (20 diagonals off: the same anchor, better)
        s.early_hsp(&mut m, 1_500, 1_530, 100, 300).unwrap(); // (near the better one: dropped)
        s.early_hsp(&mut m, 1_000, 9_000, 100, 200).unwrap(); // (8,000 diagonals off: its own)
        let kept = |s: &Schedule| s.early.anchors.iter().map(|e| (e.pos1, e.pos2, e.queued)).collect::<Vec<_>>();
        assert_eq!(kept(&s), vec![(1_450, 1_470, false), (1_050, 9_050, false)]);
        s.early_hsp(&mut m, 100_000, 100_000, 100, 100).unwrap(); // (the search is past both)
        assert_eq!(s.stats.early_queued, 4);
        assert!(kept(&s).iter().filter(|e| e.2).count() == 2);
        s.early_end();
        assert!(s.early.anchors.is_empty() && !s.early.live);
    }

    #[test]
    fn a_call_whose_alignments_cannot_be_flattened_runs_the_original() {
        let mut m = Model::new(20_000, spread(2), 5);
        m.unroutable = true;
        let mut s = Schedule::new(settings(8)).unwrap();
        s.loop_begin(true);
        let a0 = m.anchor_at(0);
        s.ensure(&mut m, 0, 2, &a0).unwrap();
        assert_eq!(s.extend(&mut m, &a0.jobs[0], a0.pos1, true).unwrap(), Extended::RunOriginal);
        s.original_done();
        assert_eq!((s.stats.unroutable, s.stats.spot_calls[3], s.stats.routed), (1, 1, 0));
        s.loop_end();
    }

    /// The loop as LASTZ runs it: ensure, both halves, insert; every result as the twin computes the call.
    /// The loop's counters, and the search's jobs the pool's workers gave up (past the traceback memory that
    /// every pool of the process shares: other tests running at once may hold it).
    fn run_loop(m: &mut Model, ahead: usize, early: bool) -> (Stats, u64) {
        let mut s = Schedule::new(Settings { early, ..settings(ahead) }).unwrap();
        if early && s.early_begin() {
            for &(p1, p2) in &m.anchors.clone() {
                s.early_hsp(m, p1 - 50, p2 - 50, 100, 1000).unwrap();
            }
            // (the workers finish the search's jobs before the loop starts, so that it takes them)
            let pool = s.pool.as_ref().unwrap();
            for t in s.early.anchors.iter().flat_map(|e| e.side.iter().flatten()) {
                while !pool.finished(*t) {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        }
        let given_up = s.pool.as_ref().map_or(0, Ahead::given_up);
        s.loop_begin(true);
        let n = m.anchors.len() as u32;
        for i in 0..n {
            if m.covered.contains(&m.anchors[i as usize]) {
                continue;
            }
            let a = m.anchor_at(i);
            s.ensure(m, i, n, &a).unwrap();
            let constrained = m.constrained;
            for job in &a.jobs {
                assert_eq!(s.extend(m, job, a.pos1, constrained).unwrap(), Extended::Done);
                let mut want = YdropResult::EMPTY;
                twin::one_sided(job, &mut want).unwrap();
                let got = s.result();
                assert_eq!((got.score, got.end1, got.end2, got.truncated, got.ops()), (want.score, want.end1, want.end2, want.truncated, want.ops()));
                want.release();
            }
            // every third alignment contains the next anchor
            if i % 3 == 0 && i + 1 < n {
                m.covered.insert(m.anchors[i as usize + 1]);
                m.contains.insert((i as usize + 1, m.anchors[i as usize + 1]));
            }
            s.inserted((i as usize + 1) as AlignHandle, a.pos1 - 10, a.pos1 + 10, a.pos2 - 10, a.pos2 + 10);
        }
        s.loop_end();
        (s.stats.clone(), given_up)
    }

    #[test]
    fn every_call_gives_the_twins_result() {
        let mut hits = 0;
        for (seed, constrained, ahead, early) in [(11, false, 8, false), (12, true, 8, false), (13, true, 255, true), (14, false, 3, true)] {
            let anchors = (0..60).map(|k| (2_000 + 3_000 * k, 2_000 + 3_000 * k + 3_000 * (k % 3))).collect();
            let mut m = Model::new(200_000, anchors, seed);
            m.constrained = constrained;
            let (st, given_up) = run_loop(&mut m, ahead, early);
            assert_eq!(st.routed, st.hits + st.spot_calls[..3].iter().sum::<u64>(), "seed {seed}");
            assert_eq!(st.unroutable, 0);
            if constrained {
                assert_eq!(st.constrained, st.routed);
            }
            if early {
                // (a job given up leaves its call to the loop: none may be taken when the tests running beside
                // this one hold the traceback memory)
                let taken = st.early_taken > 0 || given_up > 0;
                assert!(st.early_queued > 0 && taken && st.early_unstarted == 0, "seed {seed}: {given_up} given up, {st:?}");
            }
            hits += st.hits;
        }
        assert!(hits > 0, "no call took a result computed ahead");
    }
}
