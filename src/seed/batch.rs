//! The seed engine's batch call: for each read (one or more segments, as `collect_seed_hits` takes them), what
//! minimap2's seeding makes of it: the minimizers after `--q-occ-frac` (which minimap2 keeps for its second round
//! of seeding) and the anchors with `rep_len` and `mini_pos`. On the GPU when one runs, the index is uploaded
//! ([`DeviceIndex`]) and the batch is large enough; else, and with the heap variant of the short-read presets
//! (`MM_F_HEAP_SORT`), on the CPU twin.

use super::gpu::{self, DeviceIndex};
use super::index::FlatIndex;
use super::twin::hits::{self, flag, HitOpt, SeedHits};
use super::twin;
use super::Minimizer;
use crate::gpu::GPU_MIN_JOBS;
use crate::{Engine, Error, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// What the seeding reads of minimap2's options: the index's sketch (`w`, `k`, HPC) and the mapping options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeedOpt {
    pub w: usize,
    pub k: usize,
    pub is_hpc: bool,
    /// `--sdust-thres` (0: off).
    pub sdust_thres: i32,
    /// `--q-occ-frac`, with `mid_occ` as its count limit (`mm_seed_mz_flt(.., opt->mid_occ, ..)`).
    pub q_occ_frac: f32,
    pub mid_occ: i32,
    /// The occurrence limit of this round (`mid_occ`, or `max_occ` when minimap2 seeds again).
    pub max_occ: i32,
    pub hit: HitOpt,
    /// Whether the results keep the minimizers (minimap2 seeds again from them only when its `max_occ` is above
    /// `mid_occ`): else [`ReadSeeds::mv`] is empty, and the GPU does not copy them back.
    pub keep_mv: bool,
}

/// One read: its segments (non-empty) and its name (for `-X` and all-vs-all mapping).
#[derive(Debug, Clone, Copy)]
pub struct SeedRead<'a> {
    pub segs: &'a [&'a [u8]],
    pub qname: Option<&'a [u8]>,
}

/// A read's seeding.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReadSeeds {
    /// The minimizers after `--q-occ-frac` (none without [`SeedOpt::keep_mv`]).
    pub mv: Vec<Minimizer>,
    pub hits: SeedHits,
}

/// One read on the CPU: the twin's steps, as minimap2's `mm_map_frag` calls them.
pub fn seed_cpu(idx: &FlatIndex, opt: &SeedOpt, read: &SeedRead) -> ReadSeeds {
    let mut mv = vec![];
    hits::collect_minimizers(opt.w, opt.k, opt.is_hpc, opt.sdust_thres, read.segs, &mut mv);
    if opt.q_occ_frac > 0.0 {
        hits::seed_mz_flt(&mut mv, opt.mid_occ, opt.q_occ_frac);
    }
    let qlen = read.segs.iter().fold(0i32, |s, g| s.wrapping_add(g.len() as i32));
    let h = if opt.hit.flag & flag::HEAP_SORT != 0 {
        hits::collect_seed_hits_heap(&opt.hit, opt.max_occ, idx, read.qname, &mv, qlen)
    } else {
        hits::collect_seed_hits(&opt.hit, opt.max_occ, idx, read.qname, &mv, qlen)
    };
    if !opt.keep_mv {
        mv = vec![];
    }
    ReadSeeds { mv, hits: h }
}

/// Why the batch cannot be seeded at all (upstream would abort), or None.
fn refusal(opt: &SeedOpt, reads: &[SeedRead]) -> Option<String> {
    if !(1..256).contains(&opt.w) || !(1..=28).contains(&opt.k) {
        return Some(format!("seed: w {} and k {} must be in 1..=255 and 1..=28", opt.w, opt.k));
    }
    let bad = reads.iter().position(|r| r.segs.is_empty() || r.segs.iter().any(|s| s.is_empty() || s.len() > i32::MAX as usize))?;
    Some(format!("seed read {bad}: no segment, or an empty or longer than 2^31-1 one"))
}

/// Whether the GPU path takes this batch: the heap variant and name comparisons against an index without
/// names stay on the CPU.
fn gpu_takes(dev: &DeviceIndex, opt: &SeedOpt, reads: &[SeedRead]) -> bool {
    let names = opt.hit.flag & (flag::NO_DIAG | flag::NO_DUAL) != 0 && reads.iter().any(|r| r.qname.is_some());
    reads.len() >= GPU_MIN_JOBS && opt.hit.flag & flag::HEAP_SORT == 0 && (!names || dev.all_named())
}

/// Seeds every read of `reads` against `idx` (whose upload, when there is one, is `dev`): `out[i]` is read i's.
/// An invalid batch (w, k, an empty segment) is [`Error::InvalidArgument`]; a GPU failure is redone on the CPU
/// (one notice per process).
pub fn seed_batch(engine: &Engine, idx: &FlatIndex, dev: Option<&DeviceIndex>, opt: &SeedOpt, reads: &[SeedRead]) -> Result<Vec<ReadSeeds>> {
    if let Some(why) = refusal(opt, reads) {
        return Err(Error::InvalidArgument(why));
    }
    if let Some(dev) = dev.filter(|d| gpu_takes(d, opt, reads) && d.matches(idx)) {
        if let Some(rt) = engine.gpu_on(dev.ordinal()) {
            match gpu::seed_batch_gpu(&rt, dev, opt, reads) {
                Ok(out) => return Ok(out),
                Err(e) => crate::engine::gpu_failed_notice(&e),
            }
        }
    }
    Ok(reads.par_iter().with_max_len(1).map(|r| seed_cpu(idx, opt, r)).collect())
}

/// As [`seed_batch`] with an index that lives on the GPU only ([`DeviceIndex::upload_mm_idx`]): None where the
/// GPU does not take the batch (the heap variant, fewer than `GPU_MIN_JOBS` reads, names against an index
/// without them, an engine off that GPU) or fails it (after the engines' one notice): the caller seeds those
/// reads itself.
pub fn seed_batch_on_gpu(engine: &Engine, dev: &DeviceIndex, opt: &SeedOpt, reads: &[SeedRead]) -> Result<Option<Vec<ReadSeeds>>> {
    if let Some(why) = refusal(opt, reads) {
        return Err(Error::InvalidArgument(why));
    }
    if !gpu_takes(dev, opt, reads) {
        return Ok(None);
    }
    let Some(rt) = engine.gpu_on(dev.ordinal()) else { return Ok(None) };
    match gpu::seed_batch_gpu(&rt, dev, opt, reads) {
        Ok(out) => Ok(Some(out)),
        Err(e) => {
            crate::engine::gpu_failed_notice(&e);
            Ok(None)
        }
    }
}

/// Bases a thread sketches at a time in [`sketch_by_threads`]: each chunk starts upstream's loop about
/// [`chunk_warm_up`] bases early (82 of 65,536 with map-ont's w and k).
const SKETCH_CHUNK_BASES: usize = 1 << 16;

/// `mm_sketch` of each sequence `(bases, rid)` in turn into one list, as minimap2's index step sketches a batch
/// of the target's sequences, by `threads` threads over chunks of the sequences ([`twin::sketch_chunk`]): the
/// same minimizers in the same order, returned as the chunks' lists in order. A batch that upstream's
/// `mm_sketch` would abort on (an empty sequence, w outside 1..=255, k outside 1..=28) is
/// [`Error::InvalidArgument`].
pub fn sketch_by_threads(seqs: &[(&[u8], u32)], w: usize, k: usize, is_hpc: bool, threads: usize) -> Result<Vec<Vec<Minimizer>>> {
    if !(1..256).contains(&w) || !(1..=28).contains(&k) {
        return Err(Error::InvalidArgument(format!("sketch: w {w} and k {k} must be in 1..=255 and 1..=28")));
    }
    if let Some(i) = seqs.iter().position(|(s, _)| s.is_empty() || s.len() > i32::MAX as usize) {
        return Err(Error::InvalidArgument(format!("sketch: sequence {i} is empty or longer than 2^31-1")));
    }
    let chunks: Vec<(usize, usize, usize)> = seqs
        .iter()
        .enumerate()
        .flat_map(|(i, (s, _))| (0..s.len()).step_by(SKETCH_CHUNK_BASES).map(move |b| (i, b, (b + SKETCH_CHUNK_BASES).min(s.len()))))
        .collect();
    let next = AtomicUsize::new(0);
    let warm = twin::chunk_warm_up(w, k);
    let work = || {
        let mut done = vec![];
        loop {
            let c = next.fetch_add(1, Relaxed);
            let Some(&(i, b, e)) = chunks.get(c) else { return done };
            let (seq, rid) = seqs[i];
            // minimizers come about 2 / (w + 1) a base: room for a little more, so that a chunk is not copied
            let mut v = Vec::with_capacity(2 * (e - b) / w + (e - b) / 64 + 64);
            twin::sketch_chunk(seq, b, e, w, k, is_hpc, rid, warm, &mut v);
            done.push((c, v));
        }
    };
    let mut parts: Vec<(usize, Vec<Minimizer>)> = std::thread::scope(|sc| {
        let helpers: Vec<_> = (1..threads.clamp(1, chunks.len().max(1)))
            .map(|_| std::thread::Builder::new().name("warpalign-sketch".into()).spawn_scoped(sc, work))
            .collect::<std::io::Result<_>>()
            .map_err(|e| Error::Internal(format!("sketch: cannot start a thread: {e}")))?;
        let mut all = work();
        for h in helpers {
            all.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        Ok::<_, Error>(all)
    })?;
    parts.sort_unstable_by_key(|&(c, _)| c);
    Ok(parts.into_iter().map(|(_, v)| v).collect())
}
