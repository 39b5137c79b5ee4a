//! Extensions computed ahead of the calls they stand for, by a pool of worker threads.
//!
//! A caller walking its anchors in order (LASTZ's gapped_extend) submits the jobs of the anchors ahead of
//! it, each under the earlier alignments known then (its `bounds`, copied; or none) and with a priority (its
//! place in the caller's order); the workers run them, each recording its envelope
//! ([`twin::shadow::run_recorded`]), lowest priority number first. When the caller reaches a job it takes it: done, it gets the result;
//! running, it waits for it; not started yet, it gets nothing and the job is dropped (the caller then runs
//! the real, constrained call itself, which costs no more than the unconstrained one). There is no barrier
//! between groups of anchors, so a long extension holds up only the calls that need it, and idle workers
//! sleep on a condition variable.
//!
//! Jobs point into the caller's sequences: [`Ahead::drain`] (and dropping the pool) waits for running jobs,
//! so the caller may change or free that memory afterwards.
//!
//! Several LASTZ processes often run side by side on one machine (pieces of a genome): each pool then runs only
//! as many workers as the cores the machine's other runnable threads leave ([`Share`]), the others sleeping.
//! On an H200 host with 16 cores, 16 processes of H. pylori at once took 15.2 s with every pool at 15
//! workers against 11.3 s with none (bench/results/2026-11-27a-lastz-jobs).
//!
//! With a GPU (`WARPALIGN_BACKEND=gpu`, or `auto` where a GPU starts) one more thread hands the GPU, in one
//! batch at a time ([`gpu::one_sided_batch_gpu_capped`]), the queued jobs the CPU workers will not reach soon:
//! those past the first ones the running workers take, up to [`GPU_BATCH_MAX`]. It runs them without their
//! bounds (the kernel takes no earlier alignments): the envelope of such a run answers
//! [`twin::shadow::unaffected`] for the call's real ones as well, only less often yes where a known alignment
//! reaches the sweep. A job past [`GPU_ROW_CAP`] rows is left to the CPU workers (queued again, for them only):
//! a job's rows run one after the other, and one CPU core sweeps a single long job faster than the GPU, which
//! would idle while it finished. Should a batch fail on the GPU, that thread runs it on the twin (with one
//! notice per process, as every engine) and tries the GPU again with the next.

use super::twin::{self, shadow::Envelope};
use super::{gpu, BoundsCopy, YdropJob, YdropResult};
use crate::engine::BackendChoice;
use crate::gpu::{gate, GpuRuntime};
use crate::{Error, Result};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A job's ticket: its submission number.
pub type Ticket = u64;

/// Jobs one GPU batch takes at most.
pub const GPU_BATCH_MAX: usize = 4096;
/// Queued jobs that start the GPU thread with `auto`.
const GPU_START_QUEUE: usize = 512;
/// Queued jobs the GPU thread leaves to the caller on a busy machine: it reaches them before a batch would end.
const BUSY_NEAR: usize = 64;
/// Rows a job may sweep on the GPU (H. pylori's calls: 62 of 2,428 go past 8,192 rows, with 23% of the cells).
pub const GPU_ROW_CAP: u32 = 8192;
/// The workers' nice value: the anchor loop's thread is the run's critical path, and with several LASTZ
/// processes on one machine it shares the cores with every pool's workers (16 H. pylori processes at once on
/// 16 cores: 4.23 s against 4.49 s at nice 0, means of five alternating rounds; one process alone unchanged).
const WORKER_NICE: i32 = 10;

/// What [`Ahead::take`] found.
pub enum Taken {
    /// The result and envelope of the job (the caller owns the result's ops).
    Done(YdropResult, Envelope),
    /// No worker had started the job; it is dropped.
    NotStarted,
}

enum Slot {
    Queued(YdropJob, u64, Option<Arc<BoundsCopy>>),
    Running {
        cancelled: bool,
        /// In a GPU batch.
        on_gpu: bool,
    },
    /// (the envelope shared, so that [`Ahead::still_holds`] replays it without the lock)
    Done(YdropResult, Arc<Envelope>),
    /// The job panicked (a bug).
    Failed(Error),
    /// The job needed more memory than a worker may take (its traceback past the workers' share, or an
    /// allocation that failed): [`Ahead::take`] says it was not started, and the caller runs it.
    GivenUp,
}

#[derive(Default)]
struct State {
    /// (priority, ticket) of the queued jobs.
    queue: BTreeSet<(u64, Ticket)>,
    /// The same, of queued jobs for the CPU workers only (the GPU left them).
    held: BTreeSet<(u64, Ticket)>,
    slots: HashMap<Ticket, Slot>,
    next: Ticket,
    running: usize,
    shutdown: bool,
    /// Jobs given up ([`Slot::GivenUp`]).
    given_up: u64,
    /// Jobs the GPU finished, those it left to the CPU workers, and those the caller ran itself meanwhile.
    on_gpu: u64,
    left_by_gpu: u64,
    overtaken: u64,
}

impl State {
    /// Takes the queued job that comes first, for a CPU worker.
    fn pop_for_cpu(&mut self) -> Option<(u64, Ticket)> {
        match (self.queue.first(), self.held.first()) {
            (Some(q), Some(h)) if h < q => self.held.pop_first(),
            (Some(_), _) => self.queue.pop_first(),
            (None, _) => self.held.pop_first(),
        }
    }

    fn unqueue(&mut self, key: (u64, Ticket)) {
        if !self.queue.remove(&key) {
            self.held.remove(&key);
        }
    }

    fn queued(&self) -> bool {
        !self.queue.is_empty() || !self.held.is_empty()
    }
}

/// How many of a pool's workers may run: the cores the process may use, less the caller's thread and the
/// machine's other runnable threads (`procs_running` of /proc/stat, less this pool's running workers), sampled
/// at most every [`Share::PERIOD`] while there is work. A drop is followed at once, a rise a quarter of the way
/// at a time (at least one), so that pools side by side do not all rise together. Without /proc/stat: all.
struct Share {
    cores: usize,
    workers: usize,
    allowed: AtomicUsize,
    /// Nanoseconds from `epoch` of the last sample.
    sampled: AtomicU64,
    epoch: Instant,
}

impl Share {
    const PERIOD: Duration = Duration::from_millis(100);

    fn new(workers: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Share { cores, workers, allowed: AtomicUsize::new(workers), sampled: AtomicU64::new(0), epoch: Instant::now() }
    }

    /// Whether worker `k` may take a job now, sampling the machine if the last sample is old.
    fn may_run(&self, k: usize, running: usize) -> bool {
        let now = self.epoch.elapsed().as_nanos() as u64;
        let last = self.sampled.load(Relaxed);
        if now.saturating_sub(last) >= Self::PERIOD.as_nanos() as u64
            && self.sampled.compare_exchange(last, now, Relaxed, Relaxed).is_ok()
        {
            if let Some(runnable) = procs_running() {
                self.allowed.store(self.next(self.allowed.load(Relaxed), runnable, running), Relaxed);
            }
        }
        k < self.allowed.load(Relaxed)
    }

    /// The allowance after one sample that found `runnable` threads runnable on the machine, `running` of them
    /// this pool's workers.
    fn next(&self, allowed: usize, runnable: usize, running: usize) -> usize {
        let others = runnable.saturating_sub(running + 1);
        let target = self.cores.saturating_sub(1 + others).min(self.workers);
        if target <= allowed {
            target
        } else {
            allowed + ((target - allowed) / 4).max(1)
        }
    }
}

/// `procs_running` of /proc/stat: the threads runnable on the machine now (this one included).
fn procs_running() -> Option<usize> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines().find_map(|l| l.strip_prefix("procs_running ")).and_then(|n| n.trim().parse().ok())
}

struct Shared {
    state: Mutex<State>,
    share: Option<Share>,
    /// Signalled when a job is queued or the pool shuts down.
    work: Condvar,
    /// The same, for the GPU thread (a CPU worker's wake-up must not go to it).
    gpu_work: Condvar,
    /// Signalled when a job finishes.
    done: Condvar,
    /// The GPU thread has a working GPU.
    gpu_up: std::sync::atomic::AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker never panics while holding the lock (jobs run outside it), so poison carries no torn state.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether fewer than half the pool's `threads` workers may run: other processes keep the machine's cores
    /// (and then share its GPU, time-sliced between them).
    fn busy(&self, threads: usize) -> bool {
        self.share.as_ref().is_some_and(|sh| 2 * sh.allowed.load(Relaxed) < threads)
    }
}

/// The worker pool and its jobs.
pub struct Ahead {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// CPU workers.
    threads: usize,
    /// The GPU thread: to start (whether a GPU that does not start is said, the row cap), and once started.
    gpu: Option<(bool, u32)>,
    gpu_thread: Mutex<Option<JoinHandle<()>>>,
}

impl Ahead {
    /// A pool of `threads` workers (0: one less than the cores, at least one), and the GPU thread unless
    /// `WARPALIGN_BACKEND=cpu` (with `auto` it goes quietly when no GPU starts: the tool's other engines say
    /// why); with `share_cores`, only as many workers run as the machine's cores allow ([`Share`]).
    pub fn new(threads: usize, share_cores: bool) -> Result<Self> {
        crate::gpu::fault::from_env()?;
        let gpu = match BackendChoice::from_env()? {
            BackendChoice::Cpu => None,
            BackendChoice::Auto => Some(false),
            BackendChoice::Gpu => Some(true),
        };
        Self::build(threads, gpu, share_cores, GPU_ROW_CAP)
    }

    /// As [`Ahead::new`], with the GPU thread or not, whatever `WARPALIGN_BACKEND` says, and every worker
    /// running.
    pub fn with_gpu(threads: usize, use_gpu: bool) -> Result<Self> {
        Self::build(threads, use_gpu.then_some(true), false, GPU_ROW_CAP)
    }

    /// As [`Ahead::with_gpu`] with the GPU thread, which leaves the jobs past `row_cap` rows to the workers.
    pub fn with_gpu_row_cap(threads: usize, row_cap: u32) -> Result<Self> {
        Self::build(threads, Some(true), false, row_cap)
    }

    /// `gpu`: the GPU thread, and whether a GPU that does not start is said.
    fn build(threads: usize, gpu: Option<bool>, share_cores: bool, row_cap: u32) -> Result<Self> {
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1)),
            t => t,
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            share: share_cores.then(|| Share::new(threads)),
            work: Condvar::new(),
            gpu_work: Condvar::new(),
            done: Condvar::new(),
            gpu_up: std::sync::atomic::AtomicBool::new(false),
        });
        let mut workers = Vec::with_capacity(threads + 1);
        // (names within Linux's 15 characters, so that per-thread CPU times tell the workers and the GPU thread apart)
        for k in 0..threads {
            let s = Arc::clone(&shared);
            let w = std::thread::Builder::new()
                .name(format!("warpalign-yd-{k}"))
                .spawn(move || work(&s, k))
                .map_err(|e| Error::Internal(format!("starting a y-drop worker: {e}")))?;
            workers.push(w);
        }
        let pool = Ahead { shared, workers, threads, gpu: gpu.map(|e| (e, row_cap)), gpu_thread: Mutex::new(None) };
        if gpu == Some(true) {
            pool.start_gpu_thread()?;
        }
        Ok(pool)
    }

    /// Starts the GPU thread, once. With `auto` that waits for [`GPU_START_QUEUE`] queued jobs: a GPU's start
    /// costs about 0.2 s, which a small run would wait for at its end (LASTZ's mtDNA pair: 0.31 s against 0.07 s).
    fn start_gpu_thread(&self) -> Result<()> {
        let Some((explicit, row_cap)) = self.gpu else { return Ok(()) };
        let mut slot = self.gpu_thread.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            let (s, threads) = (Arc::clone(&self.shared), self.threads);
            let w = std::thread::Builder::new()
                .name("warpalign-ydgpu".into())
                .spawn(move || gpu_thread(&s, threads, explicit, row_cap))
                .map_err(|e| Error::Internal(format!("starting the y-drop GPU thread: {e}")))?;
            *slot = Some(w);
        }
        Ok(())
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Queues `job` to run before queued jobs of higher `priority` (equal ones in submission order), under its
    /// `bounds` (copied here; null: none). Its sequences and matrix must stay valid and unchanged until it is
    /// taken, cancelled or drained.
    pub fn submit(&self, job: &YdropJob, priority: u64) -> Result<Ticket> {
        job.check(0)?;
        // SAFETY: checked above: a non-null bounds points to a live, well-formed block.
        let bounds = (!job.bounds.is_null()).then(|| Arc::new(BoundsCopy::of(unsafe { &*job.bounds })));
        let mut st = self.shared.lock();
        let t = st.next;
        st.next += 1;
        st.slots.insert(t, Slot::Queued(YdropJob { bounds: std::ptr::null(), ..*job }, priority, bounds));
        st.queue.insert((priority, t));
        let start_gpu = st.queue.len() >= GPU_START_QUEUE;
        drop(st);
        self.shared.work.notify_one();
        self.shared.gpu_work.notify_one();
        if start_gpu {
            self.start_gpu_thread()?;
        }
        Ok(t)
    }

    /// The job's result, waiting for it while a worker runs it. A ticket is taken at most once.
    pub fn take(&self, t: Ticket) -> Result<Taken> {
        let mut st = self.shared.lock();
        loop {
            match st.slots.remove(&t) {
                None => return Err(Error::InvalidArgument(format!("y-drop ticket {t}: unknown or already taken"))),
                Some(Slot::Queued(_, p, _)) => {
                    st.unqueue((p, t));
                    return Ok(Taken::NotStarted);
                }
                Some(Slot::GivenUp) => return Ok(Taken::NotStarted),
                Some(Slot::Done(r, e)) => {
                    return Ok(Taken::Done(r, Arc::try_unwrap(e).unwrap_or_else(|e| (*e).clone())));
                }
                Some(Slot::Failed(e)) => return Err(e),
                Some(Slot::Running { cancelled, on_gpu: true }) if self.shared.share.is_some() => {
                    // the caller's core runs one call sooner than a batch ends, all the more when other
                    // processes share the GPU (waiting for it, they would leave the machine's cores idle)
                    st.slots.insert(t, Slot::Running { cancelled: true, on_gpu: true });
                    debug_assert!(!cancelled, "a ticket is taken at most once");
                    st.overtaken += 1;
                    return Ok(Taken::NotStarted);
                }
                Some(running @ Slot::Running { .. }) => {
                    st.slots.insert(t, running);
                    st = self.shared.done.wait(st).unwrap_or_else(|p| p.into_inner());
                }
            }
        }
    }

    /// Whether the job has ended, so that `take` would not wait (false: queued, running, taken or unknown).
    pub fn finished(&self, t: Ticket) -> bool {
        matches!(self.shared.lock().slots.get(&t), Some(Slot::Done(..) | Slot::Failed(_) | Slot::GivenUp))
    }

    /// For a job that has ended: whether its result still holds for `job` (the same call with the earlier
    /// alignments known now as its bounds): complete or cut short by the traceback memory (as LASTZ's would
    /// be), and accepted by [`twin::shadow::unaffected`]. `None` while it is queued or running, or for an
    /// unknown ticket.
    pub fn still_holds(&self, t: Ticket, job: &YdropJob) -> Option<bool> {
        let env = {
            let st = self.shared.lock();
            match st.slots.get(&t) {
                Some(Slot::Done(r, e)) => {
                    if !matches!(r.truncated, super::TRUNC_NONE | super::TRUNC_MIDWAY) {
                        return Some(false);
                    }
                    Arc::clone(e)
                }
                Some(Slot::Failed(_) | Slot::GivenUp) => return Some(false),
                _ => return None,
            }
        };
        // (the workers go on meanwhile: only this caller takes or cancels the job)
        Some(twin::shadow::unaffected(&env, job))
    }

    /// For a job that has ended: the rows its sweep entered, and whether it ran under its bounds' copy (as
    /// [`Envelope::rows`] and `ran_under` of what [`Ahead::take`] would give). `None` while it is queued or
    /// running, for a job that failed, or an unknown ticket.
    pub fn envelope_rows(&self, t: Ticket) -> Option<(usize, bool)> {
        match self.shared.lock().slots.get(&t) {
            Some(Slot::Done(_, e)) => Some((e.rows(), e.ran_under.is_some())),
            _ => None,
        }
    }

    /// Drops a job the caller will not take: not started, it never runs; running, its result is freed when
    /// it ends. Unknown tickets are ignored.
    pub fn cancel(&self, t: Ticket) {
        let mut st = self.shared.lock();
        match st.slots.remove(&t) {
            Some(Slot::Queued(_, p, _)) => {
                st.unqueue((p, t));
            }
            Some(Slot::Running { on_gpu, .. }) => {
                st.slots.insert(t, Slot::Running { cancelled: true, on_gpu });
            }
            Some(Slot::Done(mut r, _)) => r.release(),
            Some(Slot::Failed(_) | Slot::GivenUp) | None => {}
        }
    }

    /// Drops a job no worker has started, so that it never runs: true then; false (and nothing changes) when
    /// it has started or ended, or for an unknown ticket.
    pub fn cancel_queued(&self, t: Ticket) -> bool {
        let mut st = self.shared.lock();
        let Some(Slot::Queued(_, p, _)) = st.slots.get(&t) else { return false };
        let p = *p;
        st.unqueue((p, t));
        st.slots.remove(&t);
        true
    }

    /// Jobs a worker gave up (past the workers' traceback memory, [`twin::TB_FLIGHT_MAX`]): their calls ran
    /// on the caller's thread.
    pub fn given_up(&self) -> u64 {
        self.shared.lock().given_up
    }

    /// Whether the GPU thread has started a GPU (it takes batches from then on).
    pub fn gpu_running(&self) -> bool {
        self.shared.gpu_up.load(Relaxed)
    }

    /// Jobs the GPU finished, jobs it left to the CPU workers (past [`GPU_ROW_CAP`]), and jobs the caller ran
    /// itself while they were on the GPU.
    pub fn gpu_jobs(&self) -> (u64, u64, u64) {
        let st = self.shared.lock();
        (st.on_gpu, st.left_by_gpu, st.overtaken)
    }

    /// Cancels every job and waits until no worker runs one: afterwards no job reads the caller's memory.
    pub fn drain(&self) {
        let mut st = self.shared.lock();
        st.queue.clear();
        st.held.clear();
        for slot in st.slots.values_mut() {
            match slot {
                Slot::Running { cancelled, .. } => *cancelled = true,
                Slot::Done(r, _) => r.release(),
                _ => {}
            }
        }
        st.slots.retain(|_, s| matches!(s, Slot::Running { .. }));
        while st.running > 0 {
            st = self.shared.done.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        st.slots.clear();
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        self.drain();
        self.shared.lock().shutdown = true;
        self.shared.work.notify_all();
        self.shared.gpu_work.notify_all();
        let gpu = self.gpu_thread.get_mut().unwrap_or_else(|p| p.into_inner()).take();
        for w in self.workers.drain(..).chain(gpu) {
            let _ = w.join();
        }
    }
}

/// Lowers the calling worker thread's priority to [`WORKER_NICE`] (Linux: a thread's own nice value); where that
/// fails the worker runs at its process's priority.
fn yield_to_the_loop() {
    // SAFETY: setpriority reads no memory; `gettid` names the calling thread.
    unsafe { libc::setpriority(libc::PRIO_PROCESS as _, libc::gettid() as _, WORKER_NICE) };
}

fn work(shared: &Shared, k: usize) {
    yield_to_the_loop();
    twin::share_traceback_budget();
    // (a run records into the worker's scratch; the result keeps an exact copy, or the scratch's own buffers
    // when they are large: an envelope grown by doubling held up to twice its rows, and the jobs queued while
    // LASTZ searches are all held at once)
    let mut scratch = Envelope::default();
    let mut st = shared.lock();
    loop {
        if st.shutdown {
            return;
        }
        if !st.queued() {
            st = shared.work.wait(st).unwrap_or_else(|p| p.into_inner());
            continue;
        }
        if shared.share.as_ref().is_some_and(|sh| !sh.may_run(k, st.running)) {
            // a wake-up meant for a worker that may run is passed on; this one looks again a period later
            shared.work.notify_one();
            drop(st);
            // and its kept traceback pages go to the workers that run (twin::TB_KEPT_MAX is the pool's): those
            // that ran while LASTZ searched, on idle cores, held them while the few that run later faulted theirs
            // in again for every call
            twin::release_traceback();
            std::thread::sleep(Share::PERIOD);
            st = shared.lock();
            continue;
        }
        let Some((_, t)) = st.pop_for_cpu() else { unreachable!("the queue is not empty") };
        let Some(Slot::Queued(mut job, _, bounds)) = st.slots.insert(t, Slot::Running { cancelled: false, on_gpu: false }) else {
            unreachable!("a queued ticket has a queued slot")
        };
        if let Some(b) = &bounds {
            job.bounds = b.block();
        }
        st.running += 1;
        drop(st);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut r = YdropResult::EMPTY;
            // past the workers' share of traceback memory (twin::TB_FLIGHT_MAX), or out of memory: the loop
            // runs the call itself
            if twin::shadow::run_recorded(&job, &mut r, &mut scratch).is_err() {
                return Ok(None);
            }
            let mut e = scratch.keep(twin::SCRATCH_KEPT_MAX);
            e.ran_under = bounds;
            Ok(Some((r, e)))
        }));
        st = shared.lock();
        finish(&mut st, t, outcome.unwrap_or_else(|p| Err(panicked(p))));
        shared.done.notify_all();
    }
}

fn panicked(p: Box<dyn std::any::Any + Send>) -> Error {
    let m = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
    Error::Internal(format!("y-drop job computed ahead: {}", m.unwrap_or_else(|| "panic".into())))
}

/// Stores the outcome of running job `t` (None: given up, see [`Slot::GivenUp`]; freed if the job was
/// cancelled meanwhile).
fn finish(st: &mut State, t: Ticket, outcome: Result<Option<(YdropResult, Envelope)>>) {
    st.running -= 1;
    let cancelled = matches!(st.slots.get(&t), Some(Slot::Running { cancelled: true, .. }) | None);
    match (cancelled, outcome) {
        (true, Ok(Some((mut r, _)))) => {
            r.release();
            st.slots.remove(&t);
        }
        (true, Ok(None) | Err(_)) => {
            st.slots.remove(&t);
        }
        (false, Ok(Some((r, e)))) => {
            st.slots.insert(t, Slot::Done(r, Arc::new(e)));
        }
        (false, Ok(None)) => {
            st.given_up += 1;
            st.slots.insert(t, Slot::GivenUp);
        }
        (false, Err(e)) => {
            st.slots.insert(t, Slot::Failed(e));
        }
    }
}

/// The GPU thread: starts the GPU runtime, then runs batches of the queued jobs past the first ones the running
/// CPU workers take. Without a usable GPU, or after a panic in the GPU path, it leaves everything to the
/// workers; `explicit`: the GPU was asked for, so a GPU that does not start is said.
fn gpu_thread(shared: &Shared, threads: usize, explicit: bool, row_cap: u32) {
    // (its batch runs on the twin should the GPU fail)
    twin::share_traceback_budget();
    match GpuRuntime::start() {
        Ok(rt) => {
            shared.gpu_up.store(true, Relaxed);
            gpu_batches(shared, threads, row_cap, &rt);
            shared.gpu_up.store(false, Relaxed);
            rt.dispose();
        }
        Err(e) if e.is_closed() || !explicit => {}
        Err(e) => eprintln!("[WARNING] warpalign: y-drop extensions ahead run on the CPU: {e}"),
    }
}

/// A job the GPU thread took: its queue key, the job, its bounds (kept should the GPU leave it).
type GpuTaken = ((u64, Ticket), YdropJob, Option<Arc<BoundsCopy>>);

/// [`gpu_thread`]'s loop, until the pool shuts down, the GPU path panics or the process exits ([`gate`]). A batch
/// that fails on the GPU runs on the twin. On a busy machine ([`Shared::busy`]) it leaves the first
/// [`BUSY_NEAR`] queued jobs to the caller. A pool sharing the machine's cores ([`Share`]) never makes its
/// caller wait for a job in a batch: the caller runs it itself. Processes sharing the machine share its GPU
/// too, time-sliced between them, so a batch may end late; waiting for them left the cores idle (16 H. pylori
/// jobs at once: 5.5 s, and once 11.0 s), and now only the jobs a batch finished before the caller reached
/// them save CPU work.
fn gpu_batches(shared: &Shared, threads: usize, row_cap: u32, rt: &GpuRuntime) {
    let mut st = shared.lock();
    loop {
        if st.shutdown {
            return;
        }
        // the first queued jobs are for the workers that may run now (and the caller, on a busy machine)
        let allowed = shared.share.as_ref().map_or(threads, |sh| sh.allowed.load(Relaxed).min(threads));
        let reserve = if shared.busy(threads) { allowed.max(BUSY_NEAR) } else { allowed };
        if st.queue.len() <= reserve {
            st = shared.gpu_work.wait(st).unwrap_or_else(|p| p.into_inner());
            continue;
        }
        let Some(_pass) = gate::enter() else { return };
        let take = (st.queue.len() - reserve).min(GPU_BATCH_MAX);
        // (a queued slot's job has no bounds: they are kept beside it, for the CPU workers)
        let mut batch: Vec<GpuTaken> = Vec::with_capacity(take);
        for _ in 0..take {
            let Some((p, t)) = st.queue.pop_last() else { break };
            let Some(Slot::Queued(job, _, bounds)) = st.slots.insert(t, Slot::Running { cancelled: false, on_gpu: true }) else {
                unreachable!("a queued ticket has a queued slot")
            };
            batch.push(((p, t), job, bounds));
        }
        st.running += batch.len();
        drop(st);
        let jobs: Vec<YdropJob> = batch.iter().map(|b| b.1).collect();
        let mut results: Vec<YdropResult> = jobs.iter().map(|_| YdropResult::EMPTY).collect();
        let mut envs = vec![Envelope::default(); jobs.len()];
        let on_gpu = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            gpu::one_sided_batch_gpu_capped(rt, &jobs, &mut results, &mut envs, row_cap)
        }));
        if let Ok(Err(e)) = &on_gpu {
            crate::engine::gpu_failed_notice(e);
        }
        let mut left = vec![false; jobs.len()];
        let outcomes: Vec<_> = match &on_gpu {
            Ok(Ok(long)) => {
                long.iter().for_each(|&i| left[i] = true);
                results.into_iter().zip(envs).map(|x| Ok(Some(x))).collect()
            }
            _ => jobs
                .iter()
                .map(|j| {
                    std::panic::catch_unwind(|| {
                        let (mut r, mut e) = (YdropResult::EMPTY, Envelope::default());
                        Ok(twin::shadow::run_recorded(j, &mut r, &mut e).is_ok().then_some((r, e)))
                    })
                    .unwrap_or_else(|p| Err(panicked(p)))
                })
                .collect(),
        };
        st = shared.lock();
        let mut requeued = 0;
        for ((((p, t), job, bounds), outcome), left) in batch.into_iter().zip(outcomes).zip(left) {
            if !left {
                let taken_over = matches!(st.slots.get(&t), Some(Slot::Running { cancelled: true, .. }));
                st.on_gpu += (matches!(on_gpu, Ok(Ok(_))) && !taken_over) as u64;
                finish(&mut st, t, outcome);
                continue;
            }
            st.running -= 1;
            st.left_by_gpu += 1;
            // cancelled meanwhile: nothing to run
            if matches!(st.slots.get(&t), Some(Slot::Running { cancelled: false, .. })) {
                st.slots.insert(t, Slot::Queued(job, p, bounds));
                st.held.insert((p, t));
                requeued += 1;
            } else {
                st.slots.remove(&t);
            }
        }
        shared.done.notify_all();
        for _ in 0..requeued.min(threads) {
            shared.work.notify_one();
        }
        if on_gpu.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(cores: usize, workers: usize) -> Share {
        Share { cores, workers, allowed: AtomicUsize::new(workers), sampled: AtomicU64::new(0), epoch: Instant::now() }
    }

    #[test]
    fn a_pool_takes_the_cores_others_leave() {
        let s = share(16, 15);
        // alone: the caller and this pool's 15 running workers are all that runs
        assert_eq!(s.next(15, 16, 15), 15);
        // 16 processes' callers at once: no core left for workers
        assert_eq!(s.next(15, 16 + 15, 15), 0);
        // 4 callers: 12 cores left, reached a quarter of the way at a time from 0
        assert_eq!(s.next(0, 4, 0), 3);
        assert_eq!(s.next(3, 4 + 3, 3), 5);
        // never more than the pool has, never below zero
        assert_eq!(share(64, 15).next(0, 1, 0), 3);
        assert_eq!(s.next(15, 200, 15), 0);
    }

    /// A pool without threads (the tests play the GPU thread's part), sharing the cores when `share`.
    fn bare_pool(share: bool) -> Ahead {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            share: share.then(|| Share::new(1)),
            work: Condvar::new(),
            gpu_work: Condvar::new(),
            done: Condvar::new(),
            gpu_up: std::sync::atomic::AtomicBool::new(false),
        });
        Ahead { shared, workers: Vec::new(), threads: 1, gpu: None, gpu_thread: Mutex::new(None) }
    }

    fn job(seq: &[u8], sub: &[i32]) -> YdropJob {
        let n = seq.len() as u32;
        YdropJob {
            a: seq.as_ptr(),
            m: n,
            b: seq.as_ptr(),
            n,
            sub: sub.as_ptr(),
            gap_open: 400,
            gap_extend: 30,
            y_drop: 1000,
            trim_to_peak: 1,
            reversed: 0,
            tb_size: 1 << 20,
            bounds: std::ptr::null(),
        }
    }

    /// What the GPU thread does when it takes the last queued job into a batch.
    fn take_into_batch(pool: &Ahead) -> (u64, Ticket) {
        let mut st = pool.shared.lock();
        let (p, t) = st.queue.pop_last().unwrap();
        st.slots.insert(t, Slot::Running { cancelled: false, on_gpu: true });
        st.running += 1;
        (p, t)
    }

    #[test]
    fn a_pool_sharing_the_cores_runs_a_call_still_in_a_batch_in_the_loop() {
        let (seq, sub) = (b"ACGTACGT".to_vec(), vec![1i32; 256 * 256]);
        let pool = bare_pool(true);
        let t = pool.submit(&job(&seq, &sub), 0).unwrap();
        take_into_batch(&pool);
        assert!(matches!(pool.take(t).unwrap(), Taken::NotStarted));
        assert_eq!(pool.gpu_jobs(), (0, 0, 1));
        // the batch ends: its result is dropped, and nothing waits for it
        let mut st = pool.shared.lock();
        finish(&mut st, t, Ok(Some((YdropResult::EMPTY, Envelope::default()))));
        assert!(st.slots.is_empty() && st.running == 0);
    }

    #[test]
    fn a_job_the_gpu_leaves_goes_to_the_cpu_workers_in_its_place() {
        let (seq, sub) = (b"ACGTACGT".to_vec(), vec![1i32; 256 * 256]);
        let pool = bare_pool(false);
        let far = pool.submit(&job(&seq, &sub), 9).unwrap();
        let near = pool.submit(&job(&seq, &sub), 1).unwrap();
        let mid = pool.submit(&job(&seq, &sub), 5).unwrap();
        // the GPU takes the farthest and leaves it (past its row cap): queued again, for the workers only
        let (p, t) = take_into_batch(&pool);
        assert_eq!(t, far);
        {
            let mut st = pool.shared.lock();
            let Some(Slot::Running { .. }) = st.slots.insert(t, Slot::Queued(job(&seq, &sub), p, None)) else { panic!() };
            st.running -= 1;
            st.held.insert((p, t));
            // a worker takes the jobs in priority order across both queues
            assert_eq!(st.pop_for_cpu(), Some((1, near)));
            assert_eq!(st.pop_for_cpu(), Some((5, mid)));
            assert_eq!(st.queue.len(), 0);
            st.held.clear();
            st.held.insert((p, t));
        }
        // the caller reaching it first takes it as not started, and it leaves the queue
        assert!(matches!(pool.take(far).unwrap(), Taken::NotStarted));
        assert!(!pool.shared.lock().queued());
    }

    #[test]
    fn procs_running_counts_this_thread() {
        assert!(procs_running().is_some_and(|n| n >= 1));
    }
}
