//! warpalign's C ABI. Every function is thread safe, never unwinds into C, and reports failure by a
//! `warpalign_status` with a message for `warpalign_last_error()` (per thread).
//!
//! Typical use: `warpalign_ctx_create()` once, any number of `*_batch` calls from any threads, then
//! `warpalign_ctx_destroy()`. Results own `malloc`ed arrays; free them with the matching `*_results_free`.

mod chain;
mod ksw;
mod ksw_cache;
mod ydrop;

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use warpalign::{BackendChoice, Engine, Error};

/// Status code of every batch call.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpalignStatus {
    Ok = 0,
    /// A null pointer, a negative length, mismatched sizes, or a bad `WARPALIGN_BACKEND`.
    InvalidArgument = 1,
    /// The GPU failed mid-batch; the batch's results are not valid.
    Gpu = 2,
    /// A bug in warpalign (a panic was caught); the message says where.
    Internal = 3,
}

/// The backend a context runs on.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpalignBackend {
    Cpu = 0,
    Gpu = 1,
}

/// An engine context: owns the GPU runtime when there is one. Opaque to C.
pub struct WarpalignCtx {
    engine: Engine,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn status_of(e: &Error) -> WarpalignStatus {
    match e {
        Error::InvalidArgument(_) => WarpalignStatus::InvalidArgument,
        Error::Gpu(_) => WarpalignStatus::Gpu,
        Error::Internal(_) => WarpalignStatus::Internal,
    }
}

/// Runs `f`, turning an error or a panic into a status and a last-error message.
pub(crate) fn guard(what: &str, f: impl FnOnce() -> warpalign::Result<()>) -> WarpalignStatus {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
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
    let _ = std::panic::catch_unwind(warpalign::gpu::gate::close);
}

/// The library version, e.g. "0.1.0". Static storage.
#[no_mangle]
pub extern "C" fn warpalign_version() -> *const c_char {
    static V: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => panic!("version has a NUL"),
    };
    V.as_ptr()
}

/// The last error message of this thread ("" if none). Valid until this thread's next warpalign call.
#[no_mangle]
pub extern "C" fn warpalign_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Creates a context on the backend `WARPALIGN_BACKEND` asks for (`auto`, the default, `cpu` or `gpu`).
/// Without a usable GPU it runs on the CPU, with the same results, and says so on stderr when a GPU was
/// asked for or failed. Returns NULL only for a bad `WARPALIGN_BACKEND` value (see warpalign_last_error).
#[no_mangle]
pub extern "C" fn warpalign_ctx_create() -> *mut WarpalignCtx {
    let mut ctx = std::ptr::null_mut();
    guard("warpalign_ctx_create", || {
        let choice = BackendChoice::from_env()?;
        ctx = Box::into_raw(Box::new(WarpalignCtx { engine: Engine::new(choice) }));
        Ok(())
    });
    ctx
}

/// Creates a context that runs on the CPU only, whatever `WARPALIGN_BACKEND` says: no GPU start-up cost, for
/// callers that submit one job at a time (where the CPU is faster) beside a GPU context for their batches.
#[no_mangle]
pub extern "C" fn warpalign_ctx_create_cpu() -> *mut WarpalignCtx {
    Box::into_raw(Box::new(WarpalignCtx { engine: Engine::cpu() }))
}

/// Destroys a context made by warpalign_ctx_create or warpalign_ctx_create_cpu (NULL is ignored). No batch may be running on it.
#[no_mangle]
pub extern "C" fn warpalign_ctx_destroy(ctx: *mut WarpalignCtx) {
    if !ctx.is_null() {
        // SAFETY: ctx came from Box::into_raw in warpalign_ctx_create and is destroyed once.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(unsafe { Box::from_raw(ctx) })));
    }
}

/// Loads every GPU kernel of the context now, so that the first batch does not wait for it (optional; any
/// thread). NULL or a CPU context: nothing to do.
#[no_mangle]
pub extern "C" fn warpalign_ctx_prepare(ctx: *const WarpalignCtx) {
    // SAFETY: a live context or NULL.
    if let Some(c) = unsafe { ctx.as_ref() } {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| c.engine.prepare()));
    }
}

/// The backend the context runs on.
#[no_mangle]
pub extern "C" fn warpalign_ctx_backend(ctx: *const WarpalignCtx) -> WarpalignBackend {
    // SAFETY: a null context reads as CPU; otherwise it is live.
    match unsafe { ctx.as_ref() }.map(|c| c.engine.backend()) {
        Some(warpalign::Backend::Gpu) => WarpalignBackend::Gpu,
        _ => WarpalignBackend::Cpu,
    }
}
