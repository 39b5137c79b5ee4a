//! The engine context: which backend runs the batches, and the GPU runtime when there is one.

use crate::gpu::{gate, GpuRuntime, StartError};
use crate::memory::OutOfMemory;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// What `WARPALIGN_BACKEND` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    /// GPU when a usable one is present, else CPU.
    Auto,
    Cpu,
    /// GPU required: without one the engine still runs, on the CPU, and says so on stderr.
    Gpu,
}

impl BackendChoice {
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Some(Self::Auto),
            "cpu" => Some(Self::Cpu),
            "gpu" => Some(Self::Gpu),
            _ => None,
        }
    }

    /// Reads `WARPALIGN_BACKEND`; an unknown value is an error naming the variable.
    pub fn from_env() -> crate::Result<Self> {
        Ok(crate::env::BACKEND.read()?.unwrap_or(Self::Auto))
    }
}

/// The backend that actually runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Cpu,
    Gpu,
}

/// One per process or per tool run; cheap to share between threads.
pub struct Engine {
    /// The GPUs it runs batches on, in the order this process prefers them ([`crate::gpu::process_devices`]).
    gpus: Vec<Device>,
}

struct Device {
    rt: Arc<GpuRuntime>,
    /// Batches running on it now.
    busy: AtomicUsize,
}

impl Engine {
    /// Starts the backend `choice` asks for, on every visible GPU unless `WARPALIGN_GPUS` limits them
    /// (`CUDA_VISIBLE_DEVICES` applies). A missing or failing GPU falls back to the CPU with a one-line
    /// notice on stderr (only when the GPU was asked for explicitly, or it was found but failed); a device
    /// that fails beside working ones is said and left out.
    pub fn new(choice: BackendChoice) -> Self {
        // (an unaccepted value was refused by env::check before any context is made)
        Self::with_gpus(choice, crate::env::GPUS.get().flatten())
    }

    /// As [`Engine::new`], on at most `limit` GPUs (None: all visible), whatever `WARPALIGN_GPUS` says.
    pub fn with_gpus(choice: BackendChoice, limit: Option<usize>) -> Self {
        if choice == BackendChoice::Cpu {
            return Engine::cpu();
        }
        let say = |e: &StartError, what: &str| {
            if !e.is_closed() && (choice == BackendChoice::Gpu || !e.is_absent()) {
                eprintln!("[warpalign] {e}; {what} (same output)");
            }
        };
        let devices = match crate::gpu::process_devices(limit) {
            Ok(d) => d,
            Err(e) => {
                say(&e, "running on the CPU");
                return Engine::cpu();
            }
        };
        // each start opens a context and loads kernels: side by side, not one after the other
        let started: Vec<Result<GpuRuntime, StartError>> = std::thread::scope(|s| {
            let starts: Vec<_> = devices.iter().map(|&d| s.spawn(move || GpuRuntime::start_on(d))).collect();
            starts
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(StartError::Failed("the GPU start panicked".into()))))
                .collect()
        });
        let mut gpus = Vec::new();
        let mut failed = Vec::new();
        for (d, r) in devices.iter().zip(started) {
            match r {
                Ok(rt) => gpus.push(Device { rt: Arc::new(rt), busy: AtomicUsize::new(0) }),
                Err(e) => failed.push((*d, e)),
            }
        }
        for (d, e) in &failed {
            if gpus.is_empty() {
                say(e, "running on the CPU");
                break;
            }
            say(e, &format!("device {d} left out, running on the other GPUs"));
        }
        Engine { gpus }
    }

    pub fn cpu() -> Self {
        Engine { gpus: Vec::new() }
    }

    pub fn backend(&self) -> Backend {
        if self.gpus.is_empty() {
            Backend::Cpu
        } else {
            Backend::Gpu
        }
    }

    /// A GPU runtime for one batch, held for CUDA work until the result is dropped: the device running the
    /// fewest batches now (the first in this process's order on a tie). None on the CPU, and once the
    /// process is exiting ([`gate`]).
    pub fn gpu(&self) -> Option<GpuPass<'_>> {
        let dev = self.gpus.iter().min_by_key(|d| d.busy.load(Ordering::Relaxed))?;
        let pass = gate::enter()?;
        dev.busy.fetch_add(1, Ordering::Relaxed);
        Some(GpuPass { rt: &dev.rt, busy: &dev.busy, _pass: pass })
    }

    /// As [`Engine::gpu`], on the device `ordinal` ([`GpuRuntime::ordinal`]) whatever its load: for batches
    /// that use data kept there (an index, a position table). None if the engine does not run on it.
    pub fn gpu_on(&self, ordinal: usize) -> Option<GpuPass<'_>> {
        let dev = self.gpus.iter().find(|d| d.rt.ordinal() == ordinal)?;
        let pass = gate::enter()?;
        dev.busy.fetch_add(1, Ordering::Relaxed);
        Some(GpuPass { rt: &dev.rt, busy: &dev.busy, _pass: pass })
    }

    pub fn has_gpu(&self) -> bool {
        !self.gpus.is_empty()
    }

    /// How many GPUs run its batches.
    pub fn gpu_count(&self) -> usize {
        self.gpus.len()
    }

    /// Loads every GPU kernel now (no-op on the CPU). A failure is reported as the batches would report it:
    /// later batches fall back to the CPU.
    pub fn prepare(&self) {
        // part of the start: a process exiting meanwhile need not wait for it
        let Some(_pass) = gate::enter_start() else { return };
        for d in &self.gpus {
            if let Err(e) = d.rt.load_all() {
                gpu_failed_notice(&e);
            }
        }
    }

    /// One line saying what runs, e.g. for a tool's log.
    pub fn describe(&self) -> String {
        match self.gpus.as_slice() {
            [] => format!("warpalign {} on CPU", crate::VERSION),
            [d] => format!("warpalign {} on GPU ({})", crate::VERSION, d.rt.device_name()),
            all => {
                let names: Vec<&str> = all.iter().map(|d| d.rt.device_name()).collect();
                format!("warpalign {} on {} GPUs ({})", crate::VERSION, all.len(), names.join(", "))
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        for d in self.gpus.drain(..) {
            gate::dispose(d.rt);
        }
    }
}

/// An engine's GPU runtime with leave to use CUDA ([`gate::Pass`]), for one batch on the thread that took it.
pub struct GpuPass<'a> {
    rt: &'a Arc<GpuRuntime>,
    busy: &'a AtomicUsize,
    _pass: gate::Pass<'static>,
}

impl std::ops::Deref for GpuPass<'_> {
    type Target = GpuRuntime;
    fn deref(&self) -> &GpuRuntime {
        self.rt
    }
}

impl Drop for GpuPass<'_> {
    fn drop(&mut self) {
        self.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A job's result as a batch hands it out: empty, or owning `malloc`ed arrays that `release` frees.
pub(crate) trait BatchResult {
    const EMPTY: Self;
    fn release(&mut self);
}

/// Runs `f` over paired jobs and results, in parallel when the batch is worth it; a batch of one (a tool
/// thread calling through a hook) stays on the calling thread. When a job runs out of memory the batch
/// stops (jobs not started yet are not run) and every result is left empty, nothing to free; the error
/// names the job (`kind job i`).
pub(crate) fn try_par_zip<J: Sync, R: BatchResult + Send>(
    kind: &str,
    jobs: &[J],
    results: &mut [R],
    f: impl Fn(&J, &mut R) -> Result<(), OutOfMemory> + Sync + Send,
) -> crate::Result<()> {
    use rayon::prelude::*;
    // (empty first: on a failure, releasing every result frees exactly what the jobs that ran allocated)
    results.iter_mut().for_each(|r| *r = R::EMPTY);
    let run = |(i, (j, r)): (usize, (&J, &mut R))| f(j, r).map_err(|e| e.in_job(kind, i));
    let ran = if jobs.len() <= 1 {
        jobs.iter().zip(results.iter_mut()).enumerate().try_for_each(run)
    } else {
        // One task per job: DP jobs differ in size by orders of magnitude (and callers may pass them sorted),
        // so rayon's default chunking can leave one thread with most of the work.
        jobs.par_iter().zip(results.par_iter_mut()).enumerate().with_max_len(1).try_for_each(run)
    };
    if ran.is_err() {
        results.iter_mut().for_each(R::release);
    }
    ran
}

/// Says once per process, on stderr, that a GPU batch failed and the CPU took it over (same output).
///
/// Every engine redoes a batch that fails on the GPU (at any step: allocation, copy, launch, synchronisation)
/// on its CPU twin, and tries the GPU again with its next batch: a failure may pass (memory another process
/// held), and one that stays (a lost device) fails each later batch at its first CUDA call.
pub(crate) fn gpu_failed_notice(err: &str) {
    if gate::is_closed() {
        return; // the process is exiting: not a failure, and nothing may follow upstream's last line
    }
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| eprintln!("[warpalign] GPU batch failed ({err}); running on the CPU (same output)"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result owning heap memory, as the engines' own `malloc` their arrays.
    struct Owned(Option<Box<u32>>);

    impl BatchResult for Owned {
        const EMPTY: Owned = Owned(None);
        fn release(&mut self) {
            self.0 = None;
        }
    }

    fn run(jobs: &[u32], failing: u32, results: &mut [Owned]) -> crate::Result<()> {
        try_par_zip("test", jobs, results, |&j, r| {
            *r = Owned(Some(Box::new(j)));
            if j == failing {
                return Err(OutOfMemory { bytes: 99 });
            }
            Ok(())
        })
    }

    #[test]
    fn a_job_out_of_memory_fails_its_batch_with_every_result_empty() {
        for n in [1, 64] {
            let jobs: Vec<u32> = (0..n).collect();
            let mut results: Vec<Owned> = jobs.iter().map(|_| Owned::EMPTY).collect();
            let failing = n / 2;
            let want = crate::Error::OutOfMemory(format!("test job {failing}: 99 bytes could not be allocated"));
            assert_eq!(run(&jobs, failing, &mut results), Err(want));
            assert!(results.iter().all(|r| r.0.is_none()), "a result kept after the batch failed");
            run(&jobs, u32::MAX, &mut results).unwrap();
            assert!(results.iter().zip(&jobs).all(|(r, j)| r.0.as_deref() == Some(j)));
        }
    }
}
