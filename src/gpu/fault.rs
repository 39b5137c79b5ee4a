//! GPU fault injection, for tests: `WARPALIGN_GPU_FAULT=<engine>:<step>:<n>[,...]` makes one step of the
//! `n`th GPU batch of an engine fail, so that the engine's own recovery runs as after a real CUDA error (the
//! batch is redone on the CPU twin, same output, one notice per process; see
//! [`crate::engine::gpu_failed_notice`]). Tests arm faults with [`arm`] instead.
//!
//! A GPU batch is a batch call that queues work on the device (one whose jobs all go to the twin is none);
//! each engine counts its own from 1, from the start of the process or from [`arm`]. The steps, each at one
//! place of every engine's GPU path: `alloc`, a device allocation; `copy`, the upload of the jobs' inputs;
//! `launch`, the first kernel launch; `sync`, the first wait for the kernels (or the download of their
//! results). An armed fault fails its step once, on the first thread of its batch to reach it.
//!
//! Nothing armed (the case outside tests), a batch costs one relaxed atomic load.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};

pub const ENV: &str = "WARPALIGN_GPU_FAULT";

/// The engines whose GPU batches can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Ksw,
    Chain,
    Ydrop,
    Seed,
    Search,
}

/// The steps of a GPU batch that can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Alloc,
    Copy,
    Launch,
    Sync,
}

/// Every engine and every step, in the order above.
pub const ENGINES: [Engine; 5] = [Engine::Ksw, Engine::Chain, Engine::Ydrop, Engine::Seed, Engine::Search];
pub const STEPS: [Step; 4] = [Step::Alloc, Step::Copy, Step::Launch, Step::Sync];

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Ksw => "ksw",
            Engine::Chain => "chain",
            Engine::Ydrop => "ydrop",
            Engine::Seed => "seed",
            Engine::Search => "search",
        }
    }
}

impl Step {
    pub fn name(self) -> &'static str {
        match self {
            Step::Alloc => "alloc",
            Step::Copy => "copy",
            Step::Launch => "launch",
            Step::Sync => "sync",
        }
    }
}

/// Step `step` of the `batch`th GPU batch of `engine` fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub engine: Engine,
    pub step: Step,
    pub batch: u64,
}

/// Parses `<engine>:<step>:<n>` items separated by commas (spaces around items ignored; nothing: none).
pub fn parse(s: &str) -> Result<Vec<Fault>, String> {
    let item = |it: &str| -> Option<Fault> {
        let [engine, step, batch] = it.trim().split(':').collect::<Vec<_>>()[..] else { return None };
        Some(Fault {
            engine: ENGINES.into_iter().find(|e| e.name() == engine)?,
            step: STEPS.into_iter().find(|s| s.name() == step)?,
            batch: batch.parse::<u64>().ok().filter(|&n| n > 0)?,
        })
    };
    s.split(',').filter(|it| !it.trim().is_empty()).map(|it| item(it).ok_or_else(|| format!("bad item {:?}", it.trim()))).collect()
}

/// Armed faults and the GPU batches counted since they were armed.
struct Plan {
    faults: Vec<(Fault, AtomicBool)>,
    batches: [AtomicU64; ENGINES.len()],
    fired: AtomicUsize,
}

static ON: AtomicBool = AtomicBool::new(false);
static PLAN: Mutex<Option<Arc<Plan>>> = Mutex::new(None);

fn install(faults: &[Fault]) -> Arc<Plan> {
    let plan = Arc::new(Plan {
        faults: faults.iter().map(|&f| (f, AtomicBool::new(false))).collect(),
        batches: Default::default(),
        fired: AtomicUsize::new(0),
    });
    *PLAN.lock().unwrap_or_else(|p| p.into_inner()) = Some(plan.clone());
    ON.store(true, Relaxed);
    plan
}

/// Reads `WARPALIGN_GPU_FAULT` (once per process) and arms its faults; a value it does not accept is an
/// error naming the variable, here and at every later call.
pub fn from_env() -> crate::Result<()> {
    static READ: OnceLock<Result<(), String>> = OnceLock::new();
    let read = READ.get_or_init(|| {
        let faults = faults_of(std::env::var(ENV).ok().as_deref())?;
        if !faults.is_empty() {
            install(&faults);
        }
        Ok(())
    });
    read.clone().map_err(crate::Error::InvalidArgument)
}

/// The faults a value of the variable arms (unset or empty: none), or the error naming it.
fn faults_of(value: Option<&str>) -> Result<Vec<Fault>, String> {
    let v = value.unwrap_or("");
    parse(v).map_err(|why| {
        format!("{ENV}={v:?}: {why}; expected <engine>:<step>:<n>[,...] with engine ksw, chain, ydrop, seed or search, step alloc, copy, launch or sync, and n the batch from 1")
    })
}

/// Arms `faults` for this process in place of any armed before, counting batches from here; dropping the
/// result disarms them. For tests: the faults hit every thread's batches.
#[doc(hidden)]
pub fn arm(faults: &[Fault]) -> Armed {
    Armed(install(faults))
}

/// Faults armed by [`arm`].
#[doc(hidden)]
pub struct Armed(Arc<Plan>);

impl Armed {
    /// How many of the faults have failed their step.
    pub fn fired(&self) -> usize {
        self.0.fired.load(Relaxed)
    }

    /// GPU batches `engine` began since the faults were armed.
    pub fn batches(&self, engine: Engine) -> u64 {
        self.0.batches[engine as usize].load(Relaxed)
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        let mut plan = PLAN.lock().unwrap_or_else(|p| p.into_inner());
        if plan.as_ref().is_some_and(|p| Arc::ptr_eq(p, &self.0)) {
            ON.store(false, Relaxed);
            *plan = None;
        }
    }
}

/// One GPU batch of an engine, numbered when faults are armed (the default: a batch no fault fails).
#[derive(Default)]
pub struct Batch(Option<(Arc<Plan>, Engine, u64)>);

/// Counts a GPU batch of `engine` as it queues its first device work.
pub fn batch(engine: Engine) -> Batch {
    if !ON.load(Relaxed) {
        return Batch(None);
    }
    let Some(plan) = PLAN.lock().unwrap_or_else(|p| p.into_inner()).clone() else { return Batch(None) };
    let n = plan.batches[engine as usize].fetch_add(1, Relaxed) + 1;
    Batch(Some((plan, engine, n)))
}

impl Batch {
    /// An error, as the step's CUDA call would return one, when a fault is armed for this step of this batch
    /// and has not failed yet.
    pub fn check(&self, step: Step) -> Result<(), String> {
        let Some((plan, engine, n)) = &self.0 else { return Ok(()) };
        let hit = |(f, fired): &(Fault, AtomicBool)| {
            (f.engine, f.step, f.batch) == (*engine, step, *n) && !fired.swap(true, Relaxed)
        };
        if !plan.faults.iter().any(hit) {
            return Ok(());
        }
        plan.fired.fetch_add(1, Relaxed);
        Err(format!("{} gpu {}: fault injected in batch {n} ({ENV})", engine.name(), step.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(engine: Engine, step: Step, batch: u64) -> Fault {
        Fault { engine, step, batch }
    }

    #[test]
    fn parses_lists_of_engine_step_batch() {
        assert_eq!(parse(""), Ok(vec![]));
        assert_eq!(parse(" , "), Ok(vec![]));
        assert_eq!(parse("ksw:alloc:1"), Ok(vec![f(Engine::Ksw, Step::Alloc, 1)]));
        assert_eq!(
            parse("chain:copy:2, ydrop:launch:10 ,ksw:sync:1"),
            Ok(vec![f(Engine::Chain, Step::Copy, 2), f(Engine::Ydrop, Step::Launch, 10), f(Engine::Ksw, Step::Sync, 1)])
        );
        for bad in ["ksw", "ksw:alloc", "ksw:alloc:0", "ksw:alloc:-1", "ksw:alloc:x", "ksw:alloc:1:2", "gpu:alloc:1", "ksw:free:1", "KSW:alloc:1", "ksw:alloc:1;chain:sync:1", "ksw::1"] {
            assert!(parse(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(parse("ksw:alloc:1,bogus"), Err("bad item \"bogus\"".into()));
    }

    #[test]
    fn a_bad_value_is_an_error_naming_the_variable() {
        assert_eq!(faults_of(None), Ok(vec![]));
        assert_eq!(faults_of(Some(" ")), Ok(vec![]));
        assert_eq!(faults_of(Some("ydrop:sync:3")), Ok(vec![f(Engine::Ydrop, Step::Sync, 3)]));
        let e = faults_of(Some("ksw:sync")).unwrap_err();
        assert!(e.starts_with("WARPALIGN_GPU_FAULT=\"ksw:sync\": bad item"), "{e}");
    }

    // The only test here that arms faults (they are process-wide).
    #[test]
    fn an_armed_fault_fails_its_step_of_its_batch_once() {
        let armed = arm(&[f(Engine::Chain, Step::Sync, 2), f(Engine::Chain, Step::Copy, 2)]);
        let first = batch(Engine::Chain);
        assert!(STEPS.iter().all(|&s| first.check(s).is_ok()));
        let other = batch(Engine::Ksw);
        assert!(STEPS.iter().all(|&s| other.check(s).is_ok()));
        let second = batch(Engine::Chain);
        assert_eq!((armed.batches(Engine::Chain), armed.batches(Engine::Ksw), armed.batches(Engine::Ydrop)), (2, 1, 0));
        assert!(second.check(Step::Alloc).is_ok());
        let e = second.check(Step::Sync).unwrap_err();
        assert!(e.contains("chain gpu sync") && e.contains(ENV), "{e}");
        assert!(second.check(Step::Sync).is_ok(), "a fault fails once");
        assert!(second.check(Step::Copy).is_err());
        assert_eq!(armed.fired(), 2);
        drop(armed);
        let after = batch(Engine::Chain);
        assert!(after.0.is_none() && STEPS.iter().all(|&s| after.check(s).is_ok()));
    }
}
