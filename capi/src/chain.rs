//! C entry points of the chain engine.

use crate::{batch_args, clear_last_error, guard, guard_here, WarpalignCtx, WarpalignStatus};
use warpalign::chain::pack::{pack_anchors, unpack_anchors};
use warpalign::chain::{self, Anchor, ChainDpJob, ChainDpResult, ChainRmqJob};
use warpalign::Error;

/// Runs `n` `mg_lchain_dp` jobs. `results[i]` is overwritten (not freed) with the chains and compacted
/// anchors of job i (`malloc`ed: release with warpalign_chain_dp_results_free). Input anchors are not
/// modified or freed (unlike mg_lchain_dp, which frees its input). A job whose memory (about 40 bytes per
/// anchor) cannot be allocated fails the batch with WARPALIGN_STATUS_OUT_OF_MEMORY, naming the job: every
/// result is left empty (nothing to free).
#[no_mangle]
pub extern "C" fn warpalign_chain_dp_batch(
    ctx: *const WarpalignCtx,
    jobs: *const ChainDpJob,
    n: usize,
    results: *mut ChainDpResult,
) -> WarpalignStatus {
    let run = || {
        let (engine, jobs, results) = batch_args(ctx, jobs, n, results)?;
        chain::dp_batch(engine, jobs, results)
    };
    // a tool chaining each read as it comes calls with one job, which runs on its own thread
    if n <= 1 {
        guard_here("warpalign_chain_dp_batch", run)
    } else {
        guard("warpalign_chain_dp_batch", run)
    }
}

/// Runs `n` `mg_lchain_rmq` jobs (the chaining of minimap2's asm presets, `--rmq` and long-join re-chain), on
/// the CPU. `results[i]` is overwritten (not freed) with job i's chains and compacted anchors, as
/// warpalign_chain_dp_batch writes them (release with warpalign_chain_dp_results_free). Input anchors are not
/// modified or freed. A job whose memory (about 90 bytes per anchor) cannot be allocated fails the batch with
/// WARPALIGN_STATUS_OUT_OF_MEMORY, naming the job: every result is left empty (nothing to free).
#[no_mangle]
pub extern "C" fn warpalign_chain_rmq_batch(
    ctx: *const WarpalignCtx,
    jobs: *const ChainRmqJob,
    n: usize,
    results: *mut ChainDpResult,
) -> WarpalignStatus {
    let run = || {
        let (engine, jobs, results) = batch_args(ctx, jobs, n, results)?;
        chain::rmq_batch(engine, jobs, results)
    };
    // a tool chaining each read as it comes calls with one job, which runs on its own thread
    if n <= 1 {
        guard_here("warpalign_chain_rmq_batch", run)
    } else {
        guard("warpalign_chain_rmq_batch", run)
    }
}

/// Frees the arrays of `n` chain results and zeroes them. NULL is ignored.
#[no_mangle]
pub extern "C" fn warpalign_chain_dp_results_free(results: *mut ChainDpResult, n: usize) {
    clear_last_error();
    if results.is_null() {
        return;
    }
    // SAFETY: the caller passes n results written by warpalign_chain_dp_batch.
    unsafe { std::slice::from_raw_parts_mut(results, n) }.iter_mut().for_each(ChainDpResult::release);
}

/// Packs `n` anchors into `*packed`, `malloc`ed (NULL when `*len` is 0; free it with free()), `*len` bytes:
/// for keeping anchors while they wait (a chain's anchors take about 2 bytes each instead of 16). Unpack
/// them with warpalign_anchors_unpack. WARPALIGN_STATUS_OUT_OF_MEMORY: nothing allocated.
#[no_mangle]
pub extern "C" fn warpalign_anchors_pack(anchors: *const Anchor, n: usize, packed: *mut *mut u8, len: *mut usize) -> WarpalignStatus {
    guard_here("warpalign_anchors_pack", || {
        if (n > 0 && anchors.is_null()) || packed.is_null() || len.is_null() {
            return Err(Error::InvalidArgument("null anchors or output".into()));
        }
        // SAFETY: the caller passes n readable anchors.
        let a = if n > 0 { unsafe { std::slice::from_raw_parts(anchors, n) } } else { &[] };
        let mut bytes = Vec::new();
        pack_anchors(a, &mut bytes);
        let mut p = std::ptr::null_mut::<u8>();
        if !bytes.is_empty() {
            // SAFETY: malloc of a non-zero size; p, when not null, holds bytes.len() bytes.
            p = unsafe { libc::malloc(bytes.len()) }.cast();
            if p.is_null() {
                return Err(Error::OutOfMemory(format!("packed anchors: {} bytes could not be allocated", bytes.len())));
            }
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
        }
        // SAFETY: packed and len are writable (checked non-null).
        unsafe { (*packed, *len) = (p, bytes.len()) };
        Ok(())
    })
}

/// Writes the `n` anchors that warpalign_anchors_pack packed into the `len` bytes at `packed` to `anchors`.
/// WARPALIGN_STATUS_INVALID_ARGUMENT when the bytes do not hold exactly `n` anchors.
#[no_mangle]
pub extern "C" fn warpalign_anchors_unpack(packed: *const u8, len: usize, anchors: *mut Anchor, n: usize) -> WarpalignStatus {
    guard_here("warpalign_anchors_unpack", || {
        if (len > 0 && packed.is_null()) || (n > 0 && anchors.is_null()) {
            return Err(Error::InvalidArgument("null packed anchors or output".into()));
        }
        // SAFETY: the caller passes len readable bytes and n writable anchors.
        let (bytes, out) = unsafe {
            (if len > 0 { std::slice::from_raw_parts(packed, len) } else { &[] }, if n > 0 { std::slice::from_raw_parts_mut(anchors, n) } else { &mut [] })
        };
        unpack_anchors(bytes, out).ok_or_else(|| Error::InvalidArgument(format!("{len} bytes are not {n} packed anchors")))
    })
}
