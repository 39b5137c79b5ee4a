//! The GPU runtime: driver probe, context, NVRTC compilation of `kernels/` with a disk cache, and the
//! batched 2-bit pack that proves the path end to end (checked against the CPU at start).

mod cache;
pub mod fault;
pub mod gate;
mod pack;

pub use pack::{pack2bit_cpu, Packed};

use cudarc::driver::{CudaContext, CudaModule, CudaStream, PinnedHostSlice};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The CUDA sources of every kernel, by module name, compiled at run time for the device's architecture;
/// each starts with `kernels/common.cuh`.
pub const KERNELS: &[(&str, &str)] = &[
    ("pack", concat!(include_str!("../../kernels/common.cuh"), include_str!("../../kernels/pack.cu"))),
    ("ksw", concat!(include_str!("../../kernels/common.cuh"), include_str!("../../kernels/ksw_lanes.cuh"), include_str!("../../kernels/ksw.cu"))),
    ("chain_dp", concat!(include_str!("../../kernels/common.cuh"), include_str!("../../kernels/chain_dp.cu"))),
    ("ydrop_one_sided", concat!(include_str!("../../kernels/common.cuh"), include_str!("../../kernels/ydrop_one_sided.cu"))),
    ("seed", concat!(include_str!("../../kernels/common.cuh"), include_str!("../../kernels/seed.cu"))),
    ("search", concat!(include_str!("../../kernels/common.cuh"), include_str!("../../kernels/search.cu"))),
];

/// Options every kernel is compiled with: no FMA contraction, so float code rounds as the CPU reference.
pub fn nvrtc_options(arch: &str) -> Vec<String> {
    vec![format!("--gpu-architecture={arch}"), "--fmad=false".into(), "-std=c++17".into()]
}

/// A `#[repr(C)]` struct of `i32` fields that a kernel reads or writes, one per job, declared again by the
/// same name in the kernel's source (a test compares the two declarations field by field: `FIELDS`). The
/// host moves them as `i32` arrays (`as_ints`, `from_ints`).
#[macro_export]
macro_rules! kernel_struct {
    ($(#[$m:meta])* $vis:vis struct $name:ident { $($f:ident),* $(,)? }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        $vis struct $name { $(pub $f: i32),* }

        impl $name {
            /// The fields in declaration order, as the kernel's `struct` must list them.
            pub const FIELDS: &'static [&'static str] = &[$(stringify!($f)),*];
            /// `i32`s per struct.
            pub const INTS: usize = Self::FIELDS.len();
            const _SIZE_IS_INTS: () = assert!(std::mem::size_of::<Self>() == 4 * Self::INTS);

            #[allow(dead_code)] // (the host writes some structs and reads others)
            pub fn as_ints(&self) -> &[i32] {
                let () = Self::_SIZE_IS_INTS;
                // SAFETY: repr(C) with INTS i32 fields and no padding (asserted above).
                unsafe { std::slice::from_raw_parts((self as *const Self).cast::<i32>(), Self::INTS) }
            }

            /// The struct at the start of `ints` (at least INTS long).
            #[allow(dead_code)]
            pub fn from_ints(ints: &[i32]) -> Self {
                let mut it = ints[..Self::INTS].iter().copied();
                Self { $($f: it.next().unwrap_or_default()),* }
            }
        }
    };
}

/// Why the GPU is not used.
#[derive(Debug, Clone)]
pub enum StartError {
    /// No driver or no device: the quiet, ordinary case on a CPU machine.
    Absent(String),
    /// The process is exiting ([`gate::close`]): said nowhere.
    Closed,
    /// A GPU is there but something failed (compilation, self-check, driver error).
    Failed(String),
}

impl StartError {
    /// Whether it goes unsaid when the GPU was not asked for explicitly.
    pub fn is_absent(&self) -> bool {
        matches!(self, StartError::Absent(_) | StartError::Closed)
    }

    /// Whether it goes unsaid in any case.
    pub fn is_closed(&self) -> bool {
        matches!(self, StartError::Closed)
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Absent(m) => write!(f, "no GPU: {m}"),
            StartError::Failed(m) => write!(f, "GPU unusable: {m}"),
            StartError::Closed => write!(f, "the process is exiting"),
        }
    }
}

/// Whether NVRTC can be loaded (it is dlopened by name: put the CUDA toolkit's lib64, or the pip package
/// `nvidia-cuda-nvrtc`'s lib folder, on LD_LIBRARY_PATH).
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen the library.
    std::panic::catch_unwind(|| unsafe { cudarc::nvrtc::sys::is_culib_present() }).unwrap_or(false)
}

/// Compiles one kernel source to a cubin for `arch` (e.g. "sm_90"), through the disk cache: a cached cubin
/// loads without NVRTC and without the driver's PTX compiler (both cost start time and resident memory).
pub fn compile(name: &str, src: &str, arch: &str) -> Result<Vec<u8>, String> {
    let opts = nvrtc_options(arch);
    if let Some(cubin) = cache::load(name, src, &opts) {
        return Ok(cubin);
    }
    let cubin = nvrtc_compile(name, src, &opts, Output::Cubin)?;
    cache::store(name, src, &opts, &cubin);
    Ok(cubin)
}

/// Compiles every kernel for each of `archs` (e.g. "sm_90") into `dir`, named as the disk cache names them:
/// what `make tools` ships beside the tools. Returns the number of cubins written.
pub fn precompile(dir: &std::path::Path, archs: &[String]) -> Result<usize, String> {
    let written = std::thread::scope(|s| {
        let runs: Vec<_> = archs
            .iter()
            .flat_map(|arch| KERNELS.iter().map(move |&(name, src)| (arch, name, src)))
            .map(|(arch, name, src)| {
                s.spawn(move || {
                    let opts = nvrtc_options(arch);
                    let cubin = nvrtc_compile(name, src, &opts, Output::Cubin).map_err(|e| format!("{arch}: {e}"))?;
                    cache::store_in(dir, &cache::file_name(name, src, &opts), &cubin).map_err(|e| format!("{}: {e}", dir.display()))
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap_or_else(|_| Err("a compiling thread panicked".into()))).collect::<Result<Vec<()>, String>>()
    })?;
    Ok(written.len())
}

/// The PTX of one kernel source for `arch`, with the options [`compile`] uses (not cached: tests read it).
pub fn ptx(name: &str, src: &str, arch: &str) -> Result<String, String> {
    let ptx = nvrtc_compile(name, src, &nvrtc_options(arch), Output::Ptx)?;
    String::from_utf8(ptx.split(|&b| b == 0).next().unwrap_or_default().to_vec()).map_err(|_| format!("kernel {name}: PTX is not text"))
}

#[derive(Clone, Copy)]
enum Output {
    Ptx,
    Cubin,
}

fn nvrtc_compile(name: &str, src: &str, opts: &[String], output: Output) -> Result<Vec<u8>, String> {
    use cudarc::nvrtc::{result, sys};
    if !nvrtc_present() {
        return Err("NVRTC (libnvrtc.so) not found on the library path".into());
    }
    let src = std::ffi::CString::new(src).map_err(|_| format!("kernel {name}: NUL in the source"))?;
    let file = std::ffi::CString::new(format!("{name}.cu")).map_err(|_| format!("kernel {name}: NUL in the name"))?;
    let run = || -> Result<Vec<u8>, String> {
        let prog = result::create_program(&src, Some(&file)).map_err(|e| format!("NVRTC program for {name}: {e:?}"))?;
        // SAFETY: `prog` is live until destroyed below; `src` and `file` outlive it.
        let out = unsafe {
            match result::compile_program(prog, opts) {
                Err(e) => {
                    let log = result::get_program_log(prog).unwrap_or_default();
                    let log = std::ffi::CStr::from_ptr(log.as_ptr()).to_string_lossy().into_owned();
                    Err(format!("compiling kernel {name}: {e:?}\n{log}"))
                }
                Ok(()) => {
                    type Size = unsafe fn(sys::nvrtcProgram, *mut usize) -> sys::nvrtcResult;
                    type Get = unsafe fn(sys::nvrtcProgram, *mut std::ffi::c_char) -> sys::nvrtcResult;
                    let (size, get): (Size, Get) = match output {
                        Output::Ptx => (sys::nvrtcGetPTXSize, sys::nvrtcGetPTX),
                        Output::Cubin => (sys::nvrtcGetCUBINSize, sys::nvrtcGetCUBIN),
                    };
                    let mut n = 0usize;
                    let mut buf = Vec::new();
                    let got = size(prog, &mut n).result().and_then(|()| {
                        buf.resize(n, 0u8);
                        get(prog, buf.as_mut_ptr().cast()).result()
                    });
                    got.map(|()| buf).map_err(|e| format!("kernel {name}: NVRTC output: {e:?}"))
                }
            }
        };
        // SAFETY: created above, destroyed once.
        let _ = unsafe { result::destroy_program(prog) };
        out
    };
    std::panic::catch_unwind(run).map_err(|_| format!("NVRTC panicked compiling {name}"))?
}

/// Whether libcuda can be loaded (cudarc panics on its first call without it).
fn probe_driver() -> Result<(), StartError> {
    // SAFETY: only tries to dlopen libcuda.
    let driver = std::panic::catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false);
    if driver {
        Ok(())
    } else {
        Err(StartError::Absent("CUDA driver library (libcuda) not found".into()))
    }
}

/// No device (the quiet case on a CPU machine), or another driver error.
fn absent_or_failed(what: &str, e: cudarc::driver::DriverError) -> StartError {
    let msg = format!("{e:?}");
    if msg.contains("NO_DEVICE") || msg.contains("NOT_INITIALIZED") {
        StartError::Absent(format!("no CUDA device ({msg})"))
    } else {
        StartError::Failed(format!("{what}: {msg}"))
    }
}

/// The visible devices (`CUDA_VISIBLE_DEVICES` applies) this process uses: at most `limit` of them (None:
/// all), starting at the one its process id picks and going round, so that processes that each use fewer
/// than all (several LASTZ or minimap2 runs at once) spread over them.
pub fn process_devices(limit: Option<usize>) -> Result<Vec<usize>, StartError> {
    let Some(_pass) = gate::enter_start() else { return Err(StartError::Closed) };
    probe_driver()?;
    let count = std::panic::catch_unwind(CudaContext::device_count)
        .map_err(|_| StartError::Failed("the CUDA driver panicked counting devices".into()))?
        .map_err(|e| absent_or_failed("counting devices", e))?;
    let n = usize::try_from(count).unwrap_or(0);
    if n == 0 {
        return Err(StartError::Absent("no CUDA device".into()));
    }
    Ok(spread(n, limit, std::process::id() as usize))
}

/// `limit` (None: all) of `n` devices, from `pid`'s one round.
fn spread(n: usize, limit: Option<usize>, pid: usize) -> Vec<usize> {
    let k = limit.unwrap_or(n).clamp(1, n);
    (0..k).map(|i| (pid + i) % n).collect()
}

pub struct GpuRuntime {
    ctx: Arc<CudaContext>,
    /// The visible device it runs on.
    ordinal: usize,
    /// Streams kept between batches ([`GpuRuntime::lease_stream`]).
    streams: Mutex<Vec<Arc<CudaStream>>>,
    /// Streams of the greatest priority kept between batches ([`GpuRuntime::lease_urgent_stream`]).
    urgent_streams: Mutex<Vec<Arc<CudaStream>>>,
    device_name: String,
    arch: String,
    /// Kernel modules by name, loaded on first use.
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    /// Page-locked upload buffers kept between batches (pinning costs more than the copies it speeds up).
    staging: Mutex<Vec<PinnedHostSlice<u8>>>,
    /// Staging lanes running now ([`GpuRuntime::lane_slot`]).
    lanes: Mutex<usize>,
    lane_freed: std::sync::Condvar,
}

/// Lanes that stage through page-locked memory at once, across all batch calls of a runtime: each keeps
/// its buffer resident, and batch calls overlap (minimap2 computes one batch ahead while the next records).
/// Three lanes keep the GPU busy (bench/ksw); one more lets a second call start.
pub const STAGING_LANES: usize = 4;

/// A lane's right to stage ([`GpuRuntime::lane_slot`]), given back when dropped.
pub struct LaneSlot<'a> {
    rt: &'a GpuRuntime,
}

impl Drop for LaneSlot<'_> {
    fn drop(&mut self) {
        *self.rt.lanes.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        self.rt.lane_freed.notify_one();
    }
}

/// Batches smaller than this stay on the CPU, in every engine: a launch costs more than a few jobs.
pub const GPU_MIN_JOBS: usize = 64;

/// Jobs per launch at most, in every engine.
pub const LAUNCH_JOBS: usize = 32768;

/// Streams a runtime keeps for later batches, at most (the rest are destroyed when returned).
const STREAMS_KEPT: usize = 16;

/// A stream from [`GpuRuntime::lease_stream`]. Work still queued on it when it is returned stays ordered before
/// the next lessee's.
pub struct StreamLease<'a> {
    pool: &'a Mutex<Vec<Arc<CudaStream>>>,
    stream: Option<Arc<CudaStream>>,
}

impl std::ops::Deref for StreamLease<'_> {
    type Target = Arc<CudaStream>;
    fn deref(&self) -> &Arc<CudaStream> {
        self.stream.as_ref().expect("a lease holds its stream until dropped")
    }
}

impl Drop for StreamLease<'_> {
    fn drop(&mut self) {
        let mut kept = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() < STREAMS_KEPT {
            kept.extend(self.stream.take());
        }
    }
}

/// Splits items `0..n`, in order, into launches: each takes the next items while their costs stay within
/// `limits` (every one of the `K` costs summed) and it holds fewer than `max_jobs`, and at least one item
/// (one too large for the limits runs alone).
pub fn launches<const K: usize>(n: usize, max_jobs: usize, limits: [usize; K], cost: impl Fn(usize) -> [usize; K]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < n {
        let (mut end, mut sum) = (start, [0usize; K]);
        while end < n && end - start < max_jobs {
            let c = cost(end);
            if end > start && (0..K).any(|k| sum[k].saturating_add(c[k]) > limits[k]) {
                break;
            }
            (0..K).for_each(|k| sum[k] = sum[k].saturating_add(c[k]));
            end += 1;
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// Staging buffers kept at most (the largest); the others are freed when returned.
const STAGING_KEPT: usize = STAGING_LANES;

impl GpuRuntime {
    /// Starts the runtime on the first of [`process_devices`]`(Some(1))`: one GPU, the one this process's id
    /// picks among the visible ones.
    pub fn start() -> Result<Self, StartError> {
        let device = process_devices(Some(1))?[0];
        Self::start_on(device)
    }

    /// Probes the driver before touching it (cudarc panics without libcuda), opens device `ordinal` (of the
    /// visible ones), compiles the kernels and checks the pack kernel against the CPU on a fixed batch. Under
    /// a pass of [`gate`]: once the process is exiting it gives up between its steps.
    pub fn start_on(ordinal: usize) -> Result<Self, StartError> {
        let Some(_pass) = gate::enter_start() else { return Err(StartError::Closed) };
        probe_driver()?;
        let rt = std::panic::catch_unwind(|| Self::start_with_driver(ordinal))
            .map_err(|_| StartError::Failed("the CUDA driver panicked during start-up".into()))??;
        // a check that fails because the process began exiting meanwhile is no failure of the GPU
        let closed_or = |e| if gate::is_closed() { StartError::Closed } else { StartError::Failed(e) };
        let checked = if gate::is_closed() { Err(StartError::Closed) } else { rt.self_check().map_err(closed_or) };
        match checked {
            Ok(()) => Ok(rt),
            Err(e) => {
                rt.dispose();
                Err(e)
            }
        }
    }

    fn start_with_driver(ordinal: usize) -> Result<Self, StartError> {
        let ctx = CudaContext::new(ordinal).map_err(|e| absent_or_failed(&format!("opening device {ordinal}"), e))?;
        let failed = |what: &str, e: cudarc::driver::DriverError| StartError::Failed(format!("{what}: {e:?}"));
        // Threads waiting for the GPU sleep: with one context the driver's default spins them, and they
        // run beside the tool's own threads (minimap2's seeding and chaining while batches compute ahead).
        // Only speed depends on it, so a driver that refuses keeps its default.
        let _ = ctx.set_flags(cudarc::driver::sys::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC);
        keep_pool_memory(&ctx);
        let device_name = ctx.name().map_err(|e| failed("device name", e))?;
        let (major, minor) = ctx.compute_capability().map_err(|e| failed("compute capability", e))?;
        let arch = format!("sm_{major}{minor}");
        Ok(GpuRuntime {
            ctx,
            ordinal,
            streams: Mutex::new(Vec::new()),
            urgent_streams: Mutex::new(Vec::new()),
            device_name,
            arch,
            modules: Mutex::new(HashMap::new()),
            staging: Mutex::new(Vec::new()),
            lanes: Mutex::new(0),
            lane_freed: std::sync::Condvar::new(),
        })
    }

    /// The kernel module `name` (an entry of `KERNELS`), compiled and loaded on first use.
    pub fn module(&self, name: &str) -> Result<Arc<CudaModule>, String> {
        let (name, src) = KERNELS.iter().find(|(n, _)| *n == name).ok_or_else(|| format!("no kernel module {name}"))?;
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = modules.get(name) {
            return Ok(m.clone());
        }
        if gate::is_closed() {
            return Err("the process is exiting".into());
        }
        let cubin = compile(name, src, &self.arch)?;
        let m = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(cubin))
            .map_err(|e| format!("loading kernel module {name}: {e:?}"))?;
        modules.insert(name, m.clone());
        Ok(m)
    }

    /// A page-locked host buffer of at least `bytes` bytes (contents unspecified), from the kept ones when
    /// one is large enough, else a new one of `pin.max(bytes)` bytes (at least 1 MB); give it back with
    /// [`GpuRuntime::give_staging`].
    pub fn take_staging(&self, bytes: usize, pin: usize) -> Result<PinnedHostSlice<u8>, String> {
        let mut kept = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        // the smallest that fits
        if let Some((i, _)) = kept.iter().enumerate().filter(|(_, b)| b.len() >= bytes).min_by_key(|(_, b)| b.len()) {
            return Ok(kept.swap_remove(i));
        }
        // none fits: the smallest kept one is freed, so that the new one does not add to what stays pinned
        if let Some((i, _)) = kept.iter().enumerate().min_by_key(|(_, b)| b.len()) {
            kept.swap_remove(i);
        }
        drop(kept);
        let n = bytes.max(pin).max(1 << 20);
        // SAFETY: the contents are unspecified; callers write every byte they upload.
        unsafe { self.ctx.alloc_pinned_with_flags::<u8>(n, 0) }.map_err(|e| format!("pinned host buffer of {n} bytes: {e:?}"))
    }

    /// Waits until fewer than [`STAGING_LANES`] lanes run, and counts this one until the slot is dropped. A
    /// lane holds at most one staging buffer at a time, so waiting here cannot deadlock.
    pub fn lane_slot(&self) -> LaneSlot<'_> {
        let mut n = self.lanes.lock().unwrap_or_else(|e| e.into_inner());
        while *n >= STAGING_LANES {
            n = self.lane_freed.wait(n).unwrap_or_else(|e| e.into_inner());
        }
        *n += 1;
        LaneSlot { rt: self }
    }

    /// Returns a buffer from [`GpuRuntime::take_staging`] (no copy from it may still be in flight).
    pub fn give_staging(&self, buf: PinnedHostSlice<u8>) {
        let mut kept = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        kept.push(buf);
        if kept.len() > STAGING_KEPT {
            let (i, _) = kept.iter().enumerate().min_by_key(|(_, b)| b.len()).expect("not empty");
            kept.swap_remove(i);
        }
    }

    /// Compiles (or reads from the disk cache) and loads every kernel module now, so that no batch pays for it.
    pub fn load_all(&self) -> Result<(), String> {
        KERNELS.iter().try_for_each(|(name, _)| self.module(name).map(|_| ()))
    }

    /// Device memory one batch call may use: what `var` says when set, else half of the free memory.
    pub fn memory_budget(&self, var: &crate::env::Var<usize>) -> Result<usize, String> {
        match var.get() {
            Some(bytes) => Ok(bytes),
            None => self.ctx.mem_get_info().map(|(free, _)| free / 2).map_err(|e| format!("mem_get_info: {e:?}")),
        }
    }

    /// Frees the runtime under a pass, or leaks it once the process is exiting ([`gate::dispose`]).
    pub fn dispose(self) {
        gate::dispose(self)
    }

    /// The visible device it runs on: what data kept on the device across batches records, so that its
    /// batches run there ([`crate::Engine::gpu_on`]).
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    pub fn device_name(&self) -> &str {
        &self.device_name
    }

    /// The architecture kernels are compiled for, e.g. "sm_90".
    pub fn arch(&self) -> &str {
        &self.arch
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// A stream of its own for one batch (or one lane of it), back to the runtime when dropped: batches of
    /// different engines and threads overlap instead of queueing on one stream, and none pays for making one.
    pub fn lease_stream(&self) -> Result<StreamLease<'_>, String> {
        let kept = self.streams.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let stream = match kept {
            Some(s) => s,
            None => self.ctx.new_stream().map_err(|e| format!("gpu stream: {e:?}"))?,
        };
        Ok(StreamLease { pool: &self.streams, stream: Some(stream) })
    }

    /// A stream whose pending blocks the GPU schedules before those of [`lease_stream`](Self::lease_stream)'s
    /// (running blocks are not preempted): for work the caller's CPU waits on, such as minimap2's seeding,
    /// while batches computed ahead fill the GPU. Where the device has no priorities it is an ordinary stream.
    pub fn lease_urgent_stream(&self) -> Result<StreamLease<'_>, String> {
        let kept = self.urgent_streams.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let stream = match kept {
            Some(s) => s,
            None => {
                self.ctx.bind_to_thread().map_err(|e| format!("gpu stream: {e:?}"))?;
                let (_, greatest) = cudarc::driver::result::stream::get_priority_range().map_err(|e| format!("gpu stream priorities: {e:?}"))?;
                self.ctx.new_stream_with_priority(greatest).map_err(|e| format!("gpu stream: {e:?}"))?
            }
        };
        Ok(StreamLease { pool: &self.urgent_streams, stream: Some(stream) })
    }

    fn self_check(&self) -> Result<(), String> {
        let seqs = pack::self_check_batch();
        let refs: Vec<&[u8]> = seqs.iter().map(|s| s.as_slice()).collect();
        let gpu = self.pack2bit_batch(&refs)?;
        for (i, s) in refs.iter().enumerate() {
            if gpu[i] != pack2bit_cpu(s) {
                return Err(format!("pack kernel self-check: sequence {i} differs from the CPU"));
            }
        }
        Ok(())
    }
}

/// Launches allocate from the device's default memory pool (stream-ordered), which by default hands its
/// unused memory back to the driver at every synchronisation: each launch then maps its buffers anew (a ksw
/// launch's traceback bytes run to gigabytes). The pool keeps up to a sixteenth of the device's memory, at most
/// 8 GiB, instead (processes sharing the GPU each keep their own). Only speed depends on it, so a driver that
/// refuses keeps its default.
fn keep_pool_memory(ctx: &Arc<CudaContext>) {
    use cudarc::driver::{result, sys};
    let Ok((_, total)) = ctx.mem_get_info() else { return };
    let mut keep = (total as u64 / 16).min(8 << 30);
    // SAFETY: the context's own device; the attribute takes a u64.
    unsafe {
        if let Ok(pool) = result::device::get_default_mem_pool(ctx.cu_device()) {
            let attr = sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD;
            let _ = result::mem_pool::set_attribute(pool, attr, &mut keep as *mut u64 as *mut std::ffi::c_void);
        }
    }
}

#[cfg(test)]
mod launch_tests {
    use super::{launches, spread};

    #[test]
    fn processes_spread_over_the_devices() {
        assert_eq!(spread(2, None, 7), [1, 0]);
        assert_eq!(spread(2, Some(1), 7), [1]);
        assert_eq!(spread(2, Some(1), 8), [0]);
        assert_eq!(spread(4, Some(2), 3), [3, 0]);
        assert_eq!(spread(1, Some(5), 3), [0]);
        let firsts: Vec<usize> = (100..116).map(|pid| spread(4, Some(1), pid)[0]).collect();
        assert!((0..4).all(|d| firsts.iter().filter(|&&f| f == d).count() == 4), "{firsts:?}");
    }

    #[test]
    fn launches_fill_up_to_every_limit_and_take_a_too_large_item_alone() {
        let cost = [3usize, 4, 10, 1, 1, 1, 2];
        assert_eq!(launches(cost.len(), usize::MAX, [8], |k| [cost[k]]), vec![0..2, 2..3, 3..7]);
        assert_eq!(launches(cost.len(), 2, [8], |k| [cost[k]]), vec![0..2, 2..3, 3..5, 5..7]);
        // a second cost limits too
        assert_eq!(launches(4, 10, [100, 2], |_| [1, 1]), vec![0..2, 2..4]);
        assert!(launches(0, 10, [1], |_| [1]).is_empty());
    }
}

