//! C entry points of the seed engine: minimap2 2.31's seeding (minimizers, `--q-occ-frac`, index lookups,
//! occurrence limits, anchors and their sort) for whole batches of reads, against an index minimap2 built or
//! loaded.

use crate::{clear_last_error, guard, guard_here, WarpalignCtx, WarpalignStatus};
use rayon::prelude::*;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;
use warpalign::chain::Anchor;
use warpalign::seed::batch::{seed_batch, seed_batch_on_gpu, sketch_by_threads, ReadSeeds, SeedOpt, SeedRead};
use warpalign::seed::gpu::DeviceIndex;
use warpalign::seed::index::{FlatIndex, MmIdx};
use warpalign::seed::twin::hits::HitOpt;
use warpalign::Error;

/// The options the seeding reads: the index's `w`, `k` and `MM_I_HPC` (`is_hpc` nonzero), and the mapping
/// options' fields of the same names (`max_occ`: the limit of this round, minimap2's `mid_occ` for its first;
/// `flag`: `mm_mapopt_t.flag`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct WarpalignSeedOptions {
    pub w: i32,
    pub k: i32,
    pub is_hpc: i32,
    pub sdust_thres: i32,
    pub q_occ_frac: f32,
    pub mid_occ: i32,
    pub max_occ: i32,
    pub max_max_occ: i32,
    pub occ_dist: i32,
    pub flag: i64,
    /// Nonzero: the results keep the minimizers (minimap2 seeds again from them only when its `max_occ` is above
    /// `mid_occ`); 0: `n_mv` is 0.
    pub keep_mv: i32,
}

/// One read as `mm_map_frag_core` takes it: `n_segs` segments (`seqs[i]`, `qlens[i]` bases, none empty) and its
/// name (NUL-terminated; NULL when `-X` and all-vs-all mapping do not compare names).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct WarpalignSeedRead {
    pub n_segs: i32,
    pub qlens: *const i32,
    pub seqs: *const *const c_char,
    pub qname: *const c_char,
}

/// What minimap2's seeding makes of one read, borrowed from its results: the minimizers after `--q-occ-frac`
/// (`mv`), the anchors sorted as `radix_sort_128x` leaves them, `mini_pos` and `rep_len`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct WarpalignSeedView {
    pub mv: *const Anchor,
    pub n_mv: usize,
    pub a: *const Anchor,
    pub n_a: usize,
    pub mini_pos: *const u64,
    pub n_mini_pos: usize,
    pub rep_len: i32,
}

/// An index for the seed engine, opaque: made by warpalign_seed_index_create, freed by
/// warpalign_seed_index_destroy. Any number of threads may seed with it.
pub enum WarpalignSeedIndex {
    /// On the GPU only.
    Gpu(DeviceIndex),
    /// A copy on the host (and its upload when the context has a GPU that holds it).
    Host(FlatIndex, Option<DeviceIndex>),
}

/// A batch's seeding, opaque: made by warpalign_seed_batch, freed by warpalign_seed_results_free; each read's
/// share may go sooner (warpalign_seed_results_release).
pub struct WarpalignSeedResults {
    reads: Vec<Mutex<Option<ReadSeeds>>>,
}

/// Makes the seed engine's copy of `mi`, a `const mm_idx_t *` of minimap2 2.31 (one part of a multi-part index),
/// alive for the call only. With `gpu_only` nonzero it is uploaded to the context's GPU straight from `mi`,
/// keeping nothing on the host, and `*out` is NULL (status OK) when the context has no GPU or the GPU cannot
/// hold it; otherwise a host copy is made (the CPU seeds with it), and uploaded as well when the context has a
/// GPU that holds it. Sets `*out` (NULL on failure).
#[no_mangle]
pub extern "C" fn warpalign_seed_index_create(
    ctx: *const WarpalignCtx,
    mi: *const c_void,
    gpu_only: i32,
    out: *mut *mut WarpalignSeedIndex,
) -> WarpalignStatus {
    guard("warpalign_seed_index_create", || {
        if out.is_null() {
            return Err(Error::InvalidArgument("null out".into()));
        }
        // SAFETY: out is non-null and writable.
        unsafe { *out = std::ptr::null_mut() };
        if ctx.is_null() || mi.is_null() {
            return Err(Error::InvalidArgument("null context or index".into()));
        }
        // SAFETY: ctx is non-null and was made by warpalign_ctx_create.
        let engine = unsafe { &(*ctx).engine };
        let mi = mi.cast::<MmIdx>();
        let index = if gpu_only != 0 {
            // SAFETY: mi is minimap2 2.31's index, alive for the call.
            match engine.gpu().and_then(|rt| unsafe { DeviceIndex::upload_mm_idx(&rt, mi) }.ok()) {
                Some(dev) => WarpalignSeedIndex::Gpu(dev),
                None => return Ok(()),
            }
        } else {
            // SAFETY: as above.
            let flat = unsafe { FlatIndex::from_mm_idx(mi) };
            let dev = engine.gpu().and_then(|rt| DeviceIndex::upload(&rt, &flat).ok());
            WarpalignSeedIndex::Host(flat, dev)
        };
        // SAFETY: as above.
        unsafe { *out = Box::into_raw(Box::new(index)) };
        Ok(())
    })
}

/// Frees an index (and its upload). NULL is ignored.
#[no_mangle]
pub extern "C" fn warpalign_seed_index_destroy(index: *mut WarpalignSeedIndex) {
    clear_last_error();
    if !index.is_null() {
        // SAFETY: made by warpalign_seed_index_create, not used after.
        drop(unsafe { Box::from_raw(index) });
    }
}

/// Seeds `n` reads against `index` as minimap2's `mm_map_frag_core` seeds each (`collect_minimizers`,
/// `mm_seed_mz_flt` when `q_occ_frac > 0`, then `collect_seed_hits`, or its heap variant with
/// `MM_F_HEAP_SORT`), on the GPU where the index is uploaded and the batch is large enough, else on the CPU.
/// Sets `*out` (NULL on failure): read i's seeding through warpalign_seed_results_get. With an index on the GPU
/// only, `*out` is NULL (status OK) where the GPU does not take the batch (the heap variant, fewer than 64
/// reads, names compared against an index without them) or fails it (one notice on stderr): the caller seeds
/// those reads itself. w outside 1..255, k outside 1..28, a read without segments or with an empty one:
/// WARPALIGN_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn warpalign_seed_batch(
    ctx: *const WarpalignCtx,
    index: *const WarpalignSeedIndex,
    opt: *const WarpalignSeedOptions,
    reads: *const WarpalignSeedRead,
    n: usize,
    out: *mut *mut WarpalignSeedResults,
) -> WarpalignStatus {
    guard("warpalign_seed_batch", || {
        if out.is_null() {
            return Err(Error::InvalidArgument("null out".into()));
        }
        // SAFETY: out is non-null and writable.
        unsafe { *out = std::ptr::null_mut() };
        if ctx.is_null() || index.is_null() || opt.is_null() || (n > 0 && reads.is_null()) {
            return Err(Error::InvalidArgument("null context, index, options or reads".into()));
        }
        // SAFETY: non-null, made by their create calls; opt and the n reads are readable.
        let (engine, index, o) = unsafe { (&(*ctx).engine, &*index, *opt) };
        let raw = if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(reads, n) } };
        let mut segs: Vec<Vec<&[u8]>> = Vec::with_capacity(n);
        for (i, r) in raw.iter().enumerate() {
            if r.n_segs < 1 || r.qlens.is_null() || r.seqs.is_null() {
                return Err(Error::InvalidArgument(format!("read {i}: no segments")));
            }
            // SAFETY: the read's n_segs lengths and sequence pointers are readable.
            let (lens, seqs) = unsafe {
                (std::slice::from_raw_parts(r.qlens, r.n_segs as usize), std::slice::from_raw_parts(r.seqs, r.n_segs as usize))
            };
            let mut s = Vec::with_capacity(lens.len());
            for (&l, &p) in lens.iter().zip(seqs) {
                if l < 1 || p.is_null() {
                    return Err(Error::InvalidArgument(format!("read {i}: an empty segment")));
                }
                // SAFETY: the segment has l readable bytes.
                s.push(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), l as usize) });
            }
            segs.push(s);
        }
        let batch: Vec<SeedRead> = raw
            .iter()
            .zip(&segs)
            // SAFETY: a non-null name is NUL-terminated.
            .map(|(r, s)| SeedRead { segs: s, qname: (!r.qname.is_null()).then(|| unsafe { CStr::from_ptr(r.qname) }.to_bytes()) })
            .collect();
        let opt = SeedOpt {
            w: usize::try_from(o.w).unwrap_or(0),
            k: usize::try_from(o.k).unwrap_or(0),
            is_hpc: o.is_hpc != 0,
            sdust_thres: o.sdust_thres,
            q_occ_frac: o.q_occ_frac,
            mid_occ: o.mid_occ,
            max_occ: o.max_occ,
            hit: HitOpt { flag: o.flag, max_max_occ: o.max_max_occ, occ_dist: o.occ_dist },
            keep_mv: o.keep_mv != 0,
        };
        let seeds = match index {
            WarpalignSeedIndex::Gpu(dev) => seed_batch_on_gpu(engine, dev, &opt, &batch)?,
            WarpalignSeedIndex::Host(flat, dev) => Some(seed_batch(engine, flat, dev.as_ref(), &opt, &batch)?),
        };
        if let Some(reads) = seeds {
            let reads = reads.into_iter().map(|r| Mutex::new(Some(r))).collect();
            // SAFETY: out is writable.
            unsafe { *out = Box::into_raw(Box::new(WarpalignSeedResults { reads })) };
        }
        Ok(())
    })
}

/// minimap2's `mm_sketch` of `n` sequences in turn (`seqs[i]`, `lens[i]` bases, rid `rids[i]`) into one list, as
/// minimap2's index step sketches a batch of the target's sequences, by `n_threads` threads over chunks of the
/// sequences: the same minimizers in the same order. `*out` gets a `malloc`ed array of `*n_out` minimizers (NULL
/// when there are none; free it with free()). w outside 1..255, k outside 1..28, n_threads below 1, a null or empty
/// sequence: WARPALIGN_STATUS_INVALID_ARGUMENT; WARPALIGN_STATUS_OUT_OF_MEMORY: nothing allocated.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn warpalign_seed_sketch(
    seqs: *const *const c_char,
    lens: *const i32,
    rids: *const u32,
    n: usize,
    w: i32,
    k: i32,
    is_hpc: i32,
    n_threads: i32,
    out: *mut *mut Anchor,
    n_out: *mut usize,
) -> WarpalignStatus {
    guard("warpalign_seed_sketch", || {
        if out.is_null() || n_out.is_null() {
            return Err(Error::InvalidArgument("null out or n_out".into()));
        }
        // SAFETY: out and n_out are non-null and writable.
        unsafe { (*out, *n_out) = (std::ptr::null_mut(), 0) };
        if n > 0 && (seqs.is_null() || lens.is_null() || rids.is_null()) {
            return Err(Error::InvalidArgument("null sequences, lengths or rids".into()));
        }
        if n_threads < 1 {
            return Err(Error::InvalidArgument(format!("n_threads {n_threads}: at least 1")));
        }
        // SAFETY: the caller passes n sequence pointers, lengths and rids.
        let (ps, ls, rs) = if n == 0 {
            (&[][..], &[][..], &[][..])
        } else {
            unsafe { (std::slice::from_raw_parts(seqs, n), std::slice::from_raw_parts(lens, n), std::slice::from_raw_parts(rids, n)) }
        };
        let mut batch = Vec::with_capacity(n);
        for (i, ((&p, &l), &rid)) in ps.iter().zip(ls).zip(rs).enumerate() {
            if p.is_null() || l < 1 {
                return Err(Error::InvalidArgument(format!("sequence {i}: null or empty")));
            }
            // SAFETY: sequence i has l readable bytes.
            batch.push((unsafe { std::slice::from_raw_parts(p.cast::<u8>(), l as usize) }, rid));
        }
        let (w, k) = (usize::try_from(w).unwrap_or(0), usize::try_from(k).unwrap_or(0));
        let parts = sketch_by_threads(&batch, w, k, is_hpc != 0, n_threads as usize)?;
        let total: usize = parts.iter().map(Vec::len).sum();
        if total == 0 {
            return Ok(());
        }
        let bytes = total.checked_mul(std::mem::size_of::<Anchor>()).ok_or_else(|| Error::OutOfMemory("sketch: too many minimizers".into()))?;
        // SAFETY: malloc of a non-zero size.
        let p = unsafe { libc::malloc(bytes) }.cast::<Anchor>();
        if p.is_null() {
            return Err(Error::OutOfMemory(format!("sketch: {bytes} bytes could not be allocated")));
        }
        gather_by_threads(parts, p, n_threads as usize);
        // SAFETY: out and n_out are writable.
        unsafe { (*out, *n_out) = (p, total) };
        Ok(())
    })
}

/// Copies `parts` in turn to `dst` (room for all their minimizers) and frees them, in `threads` runs of consecutive
/// parts on the global pool: a genome's batch is hundreds of MB of minimizers, whose fresh pages one thread would
/// fault in and fill alone.
fn gather_by_threads(parts: Vec<Vec<Anchor>>, dst: *mut Anchor, threads: usize) {
    struct Dst(*mut Anchor);
    // SAFETY: each run writes its own disjoint range of the destination.
    unsafe impl Sync for Dst {}
    impl Dst {
        fn copy(&self, (mut at, run): (usize, Vec<Vec<Anchor>>)) {
            for part in run {
                // SAFETY: the destination holds every part's minimizers; this run's fill its own range in turn.
                unsafe { std::ptr::copy_nonoverlapping(part.as_ptr(), self.0.add(at), part.len()) };
                at += part.len();
            }
        }
    }
    let total: usize = parts.iter().map(Vec::len).sum();
    let per = total.div_ceil(threads.max(1)).max(1);
    let mut runs: Vec<(usize, Vec<Vec<Anchor>>)> = vec![];
    let mut at = 0;
    for part in parts {
        let n = part.len();
        match runs.last_mut() {
            Some((start, run)) if at - *start < per => run.push(part),
            _ => runs.push((at, vec![part])),
        }
        at += n;
    }
    let dst = Dst(dst);
    runs.into_par_iter().for_each(|run| dst.copy(run));
}

/// Read i's seeding, borrowed from `results` (valid until read i is released or the results are freed). i out of
/// range, or read i released: INVALID_ARGUMENT. Any number of threads.
#[no_mangle]
pub extern "C" fn warpalign_seed_results_get(results: *const WarpalignSeedResults, i: usize, view: *mut WarpalignSeedView) -> WarpalignStatus {
    guard_here("warpalign_seed_results_get", || {
        if results.is_null() || view.is_null() {
            return Err(Error::InvalidArgument("null results or view".into()));
        }
        // SAFETY: made by warpalign_seed_batch, not freed.
        let r = unsafe { &*results };
        let slot = r.reads.get(i).ok_or_else(|| Error::InvalidArgument(format!("read {i} of {}", r.reads.len())))?;
        let held = slot.lock().unwrap_or_else(|e| e.into_inner());
        let s = held.as_ref().ok_or_else(|| Error::InvalidArgument(format!("read {i} was released")))?;
        // SAFETY: view is writable.
        unsafe {
            *view = WarpalignSeedView {
                mv: s.mv.as_ptr(),
                n_mv: s.mv.len(),
                a: s.hits.a.as_ptr(),
                n_a: s.hits.a.len(),
                mini_pos: s.hits.mini_pos.as_ptr(),
                n_mini_pos: s.hits.mini_pos.len(),
                rep_len: s.hits.rep_len,
            }
        };
        Ok(())
    })
}

/// Frees read i's share of `results` (its views are invalid after): for a caller done with it before the rest.
/// NULL results or i out of range are ignored. Any number of threads, but not while another thread views read i.
#[no_mangle]
pub extern "C" fn warpalign_seed_results_release(results: *const WarpalignSeedResults, i: usize) {
    clear_last_error();
    if results.is_null() {
        return;
    }
    // SAFETY: made by warpalign_seed_batch, not freed.
    if let Some(slot) = unsafe { &*results }.reads.get(i) {
        drop(slot.lock().unwrap_or_else(|e| e.into_inner()).take());
    }
}

/// Frees a batch's seeding. NULL is ignored.
#[no_mangle]
pub extern "C" fn warpalign_seed_results_free(results: *mut WarpalignSeedResults) {
    clear_last_error();
    if !results.is_null() {
        // SAFETY: made by warpalign_seed_batch, not used after.
        drop(unsafe { Box::from_raw(results) });
    }
}
