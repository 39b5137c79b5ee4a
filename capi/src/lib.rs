//! warpalign's C ABI. Every function is thread safe, never unwinds into C, and reports failure by a
//! `warpalign_status` with a message for `warpalign_last_error()` (per thread). A panic caught inside a call
//! prints nothing: its message goes to `warpalign_last_error()` only.
//!
//! Typical use: `warpalign_ctx_create()` once, any number of `*_batch` calls from any threads, then
//! `warpalign_ctx_destroy()`. Results own `malloc`ed arrays; free them with the matching `*_results_free`.

mod chain;
mod contract;
mod ksw;
mod ksw_cache;
mod search;
mod seed;
mod ydrop;

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::atomic::{AtomicUsize, Ordering};
use warpalign::{BackendChoice, Engine, Error};

/// Status code of every batch call.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpalignStatus {
    Ok = 0,
    /// A null pointer, a job outside its documented contract (checked before any work), or a `WARPALIGN_*`
    /// variable set to a value it does not accept.
    InvalidArgument = 1,
    /// The GPU failed mid-batch; the batch's results are not valid.
    Gpu = 2,
    /// A bug in warpalign (a panic was caught); the message says where.
    Internal = 3,
    /// A job's memory (DP matrices, traceback, results) could not be allocated; the message names the job and
    /// the bytes asked for. The batch stopped there: every result is left empty (nothing to free) and no
    /// job's output is valid. Nothing is printed and the process goes on; smaller batches may still run.
    OutOfMemory = 4,
}

/// The backend a context runs on.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpalignBackend {
    Cpu = 0,
    Gpu = 1,
}

/// What `WARPALIGN_BACKEND` asks for.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpalignBackendRequest {
    /// Unset, empty or `auto`: the GPU where it pays.
    Auto = 0,
    Cpu = 1,
    /// The GPU wherever it can run (tests of the GPU path use it on small inputs).
    Gpu = 2,
}

/// An engine context: owns the GPU runtime when there is one. Opaque to C.
pub struct WarpalignCtx {
    engine: Engine,
}

thread_local! {
    // (every access tolerates its destruction: tools call in from exit handlers, after the main thread's)
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    let _ = LAST_ERROR.try_with(|e| *e.borrow_mut() = c);
}

/// Every entry point but warpalign_last_error starts here: its message is "" unless this call fails.
pub(crate) fn clear_last_error() {
    let _ = LAST_ERROR.try_with(|e| {
        if !e.borrow().is_empty() {
            *e.borrow_mut() = CString::default();
        }
    });
}

thread_local! {
    /// Depth of C calls on this thread running under [`quiet`].
    static IN_CALL: Cell<u32> = const { Cell::new(0) };
}
/// C calls under [`quiet`] in flight, on every thread.
static CALLS: AtomicUsize = AtomicUsize::new(0);

/// Catches a panic of `f` without the panic hook printing it (the caller reports it as a status). Panics of
/// code outside C calls keep the hook that was installed before: a Rust program using the library directly
/// still sees its panics. A rayon worker (the engines' batch threads) is quiet only while a C call is in
/// flight, as its panic then belongs to that call, which catches it; the library's own threads
/// (`warpalign-*`, e.g. the y-drop workers computing ahead) catch theirs and report them through a call.
pub(crate) fn quiet<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    CALLS.fetch_add(1, Ordering::SeqCst);
    let r = quiet_here(f);
    CALLS.fetch_sub(1, Ordering::SeqCst);
    r
}

/// As [`quiet`], for a call that runs on the calling thread alone (no rayon worker takes part): the per-job
/// entry points that a tool's threads call at a high rate. It leaves [`CALLS`] alone, whose cache line 16
/// threads' lookups would otherwise pass between them at every call.
pub(crate) fn quiet_here<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let earlier = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = IN_CALL.with(Cell::get) > 0
                || (rayon::current_thread_index().is_some() && CALLS.load(Ordering::SeqCst) > 0)
                || std::thread::current().name().is_some_and(|n| n.starts_with("warpalign-"));
            if !ours {
                earlier(info);
            }
        }));
    });
    clear_last_error();
    IN_CALL.with(|c| c.set(c.get() + 1));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    IN_CALL.with(|c| c.set(c.get() - 1));
    r
}

fn status_of(e: &Error) -> WarpalignStatus {
    match e {
        Error::InvalidArgument(_) => WarpalignStatus::InvalidArgument,
        Error::Gpu(_) => WarpalignStatus::Gpu,
        Error::Internal(_) => WarpalignStatus::Internal,
        Error::OutOfMemory(_) => WarpalignStatus::OutOfMemory,
    }
}

/// Runs `f`, turning an error or a panic into a status and a last-error message ("" on success).
pub(crate) fn guard(what: &str, f: impl FnOnce() -> warpalign::Result<()>) -> WarpalignStatus {
    status(what, quiet(f))
}

/// As [`guard`], through [`quiet_here`]: for calls that run on the calling thread alone.
pub(crate) fn guard_here(what: &str, f: impl FnOnce() -> warpalign::Result<()>) -> WarpalignStatus {
    status(what, quiet_here(f))
}

fn status(what: &str, r: std::thread::Result<warpalign::Result<()>>) -> WarpalignStatus {
    match r {
        Ok(Ok(())) => WarpalignStatus::Ok,
        Ok(Err(e)) => {
            set_last_error(&format!("{what}: {e}"));
            status_of(&e)
        }
        Err(p) => {
            let m = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
            set_last_error(&format!("{what}: panic: {}", m.unwrap_or_else(|| "unknown".into())));
            WarpalignStatus::Internal
        }
    }
}

/// Borrows the context and checks the array arguments of a batch call.
pub(crate) fn batch_args<'a, J, R>(
    ctx: *const WarpalignCtx,
    jobs: *const J,
    n: usize,
    results: *mut R,
) -> warpalign::Result<(&'a Engine, &'a [J], &'a mut [R])> {
    if ctx.is_null() {
        return Err(Error::InvalidArgument("null context".into()));
    }
    if n > 0 && (jobs.is_null() || results.is_null()) {
        return Err(Error::InvalidArgument("null job or result array".into()));
    }
    if n == 0 {
        // SAFETY: ctx is non-null and was made by warpalign_ctx_create.
        return Ok((unsafe { &(*ctx).engine }, &[], &mut []));
    }
    // SAFETY: the caller passes n readable jobs and n writable results, and a live context.
    unsafe { Ok((&(*ctx).engine, std::slice::from_raw_parts(jobs, n), std::slice::from_raw_parts_mut(results, n))) }
}

/// Makes the process safe to exit: waits until no other thread is using the GPU through warpalign (a GPU
/// still starting, a batch in flight) and turns later GPU work to the CPU, with the same results and
/// nothing said. Call it before `exit()` or a return from `main` whenever a warpalign context or y-drop
/// pool may exist: the CUDA driver registers exit handlers as it starts, which would otherwise run while
/// another thread is inside it (a hang or an abort). A tool with many exit paths can link with
/// `-Wl,--wrap=exit` and call it from `__wrap_exit`. Any thread; idempotent; for a process about to exit.
#[no_mangle]
pub extern "C" fn warpalign_shutdown() {
    let _ = quiet(warpalign::gpu::gate::close);
}

/// `warpalign_shutdown` for a process about to exit with `status`, which need not wait for a GPU start:
/// when another thread is still starting the GPU or loading its kernels (up to a second, for a GPU a short
/// run never used), it flushes C stdio and ends the process at once with `_exit(status)`, without exit
/// handlers (the driver's would run under the starting thread). Otherwise it returns once no other thread
/// is inside the driver, and the caller exits as it would have. For `__wrap_exit` and before `main` returns.
#[no_mangle]
pub extern "C" fn warpalign_shutdown_for_exit(status: c_int) {
    if matches!(quiet(warpalign::gpu::gate::close_for_exit), Ok(warpalign::gpu::gate::Exit::Abandon)) {
        // SAFETY: fflush(NULL) flushes every C stream; _exit ends the process.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(status);
        }
    }
}

/// The library version, e.g. "0.1.0". Static storage.
#[no_mangle]
pub extern "C" fn warpalign_version() -> *const c_char {
    static V: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => panic!("version has a NUL"),
    };
    clear_last_error();
    V.as_ptr()
}

/// The error message of this thread's last warpalign call: "" when that call succeeded (every call but this
/// one sets it). Valid until this thread's next warpalign call.
#[no_mangle]
pub extern "C" fn warpalign_last_error() -> *const c_char {
    LAST_ERROR.try_with(|e| e.borrow().as_ptr()).unwrap_or(c"".as_ptr())
}

/// Checks every `WARPALIGN_*` variable the library reads: WARPALIGN_STATUS_INVALID_ARGUMENT, the message
/// (warpalign_last_error) naming the first set to a value it does not accept and what it accepts. The
/// contexts and the y-drop schedule check them as they are made; a tool that makes them lazily calls this
/// at start, before its first output.
#[no_mangle]
pub extern "C" fn warpalign_env_check() -> WarpalignStatus {
    guard("warpalign_env_check", warpalign::env::check)
}

/// What `WARPALIGN_BACKEND` asks for; AUTO also for a value it does not accept (warpalign_env_check reports
/// that). A tool deciding where the GPU pays before it makes a context (which starts the GPU) reads it.
#[no_mangle]
pub extern "C" fn warpalign_requested_backend() -> WarpalignBackendRequest {
    clear_last_error();
    match warpalign::env::BACKEND.get() {
        Some(BackendChoice::Cpu) => WarpalignBackendRequest::Cpu,
        Some(BackendChoice::Gpu) => WarpalignBackendRequest::Gpu,
        Some(BackendChoice::Auto) | None => WarpalignBackendRequest::Auto,
    }
}

/// Creates a context on the backend `WARPALIGN_BACKEND` asks for (`auto`, the default, `cpu` or `gpu`).
/// Without a usable GPU it runs on the CPU, with the same results, and says so on stderr when a GPU was
/// asked for or failed. Returns NULL only when a `WARPALIGN_*` variable has a value it does not accept
/// (warpalign_env_check; see warpalign_last_error).
#[no_mangle]
pub extern "C" fn warpalign_ctx_create() -> *mut WarpalignCtx {
    let mut ctx = std::ptr::null_mut();
    guard("warpalign_ctx_create", || {
        warpalign::env::check()?;
        let choice = BackendChoice::from_env()?;
        ctx = Box::into_raw(Box::new(WarpalignCtx { engine: Engine::new(choice) }));
        Ok(())
    });
    ctx
}

/// Creates a context that runs on the CPU only, whatever `WARPALIGN_BACKEND` says: no GPU start-up cost, for
/// callers that submit one job at a time (where the CPU is faster) beside a GPU context for their batches.
/// Returns NULL, as warpalign_ctx_create, when a `WARPALIGN_*` variable has a value it does not accept.
#[no_mangle]
pub extern "C" fn warpalign_ctx_create_cpu() -> *mut WarpalignCtx {
    let mut ctx = std::ptr::null_mut();
    guard("warpalign_ctx_create_cpu", || {
        warpalign::env::check()?;
        ctx = Box::into_raw(Box::new(WarpalignCtx { engine: Engine::cpu() }));
        Ok(())
    });
    ctx
}

/// Destroys a context made by warpalign_ctx_create or warpalign_ctx_create_cpu (NULL is ignored). No batch may be running on it.
#[no_mangle]
pub extern "C" fn warpalign_ctx_destroy(ctx: *mut WarpalignCtx) {
    // SAFETY: ctx came from Box::into_raw in warpalign_ctx_create and is destroyed once.
    let _ = quiet(|| (!ctx.is_null()).then(|| drop(unsafe { Box::from_raw(ctx) })));
}

/// Loads every GPU kernel of the context now, so that the first batch does not wait for it (optional; any
/// thread). NULL or a CPU context: nothing to do.
#[no_mangle]
pub extern "C" fn warpalign_ctx_prepare(ctx: *const WarpalignCtx) {
    // SAFETY: a live context or NULL.
    let _ = quiet(|| unsafe { ctx.as_ref() }.map(|c| c.engine.prepare()));
}

/// The backend the context runs on.
#[no_mangle]
pub extern "C" fn warpalign_ctx_backend(ctx: *const WarpalignCtx) -> WarpalignBackend {
    clear_last_error();
    // SAFETY: a null context reads as CPU; otherwise it is live.
    match unsafe { ctx.as_ref() }.map(|c| c.engine.backend()) {
        Some(warpalign::Backend::Gpu) => WarpalignBackend::Gpu,
        _ => WarpalignBackend::Cpu,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    /// A panic inside a C call reaches warpalign_last_error only, also from a batch worker; one outside
    /// reaches the hook the program had.
    #[test]
    fn panics_are_quiet_only_inside_c_calls() {
        static SEEN: AtomicUsize = AtomicUsize::new(0);
        std::panic::set_hook(Box::new(|_| {
            SEEN.fetch_add(1, Ordering::SeqCst);
        }));
        assert_eq!(guard("here", || panic!("boom")), WarpalignStatus::Internal);
        let msg = unsafe { CStr::from_ptr(warpalign_last_error()) }.to_str().unwrap().to_string();
        assert_eq!(msg, "here: panic: boom");
        let st = guard("par", || {
            (0..64).into_par_iter().with_max_len(1).for_each(|i| assert!(i != 40, "in a worker"));
            Ok(())
        });
        assert_eq!(st, WarpalignStatus::Internal);
        assert_eq!(SEEN.load(Ordering::SeqCst), 0);
        assert_eq!(guard("fine", || Ok(())), WarpalignStatus::Ok);
        assert!(unsafe { CStr::from_ptr(warpalign_last_error()) }.to_bytes().is_empty());
        assert!(std::panic::catch_unwind(|| panic!("outside")).is_err());
        assert_eq!(SEEN.load(Ordering::SeqCst), 1);
    }
}
