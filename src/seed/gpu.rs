//! minimap2's seeding on the GPU (kernels/seed.cu), bit-exact with [`super::twin::hits`]: the index uploaded once
//! ([`DeviceIndex`]), then per launch of reads the sketch, `--q-occ-frac`, the lookups, the occurrence limits,
//! the anchors and their sort, each a kernel over the whole launch; the host only sums counts between them
//! (offsets of each read's minimizers and anchors) and, with `--sdust-thres`, computes the minimizers itself
//! (the twin's sketch and dust filter, uploaded in place of the sketch kernel's).

use super::batch::{ReadSeeds, SeedOpt, SeedRead};
use super::index::{seq_info, write_mm_bucket, FlatIndex, IndexTables, MmIdx, MmIdxBucket};
use super::twin::hits::{collect_minimizers, flag, SeedHits};
use super::Minimizer;
use crate::chain::twin::radix_sort_128x;
use crate::gpu::fault::{self, Step};
use crate::gpu::{gate, GpuRuntime};
use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::sync::Arc;

const MODULE_NAME: &str = "seed";
/// Bases per launch at most (a longer read runs alone): bounds the launch's device memory, about 15 bytes a
/// base with minimap2's presets (w = 10), then about 40 an anchor (the anchors and their sort's ranges).
pub const LAUNCH_BASES: usize = 1 << 26;
/// Bases a sketch thread owns (a part of 8 Mb in 32,000 threads: the sketch is latency-bound).
pub const CHUNK_BASES: usize = 256;
/// The page-locked buffer a launch's bases go up through, at least (a part of minimap2's is 8 Mb).
const BASES_STAGING: usize = 16 << 20;
/// Items (minimizers, seeds, anchors) of a read in a chunk of the later steps (a block of that many threads, or
/// one thread walking them).
pub const CHUNK_ITEMS: usize = 256;
/// kernels/seed.cu's `RS_MIN_SIZE`: ranges of the sort this small are insertion-sorted.
const RS_MIN_SIZE: usize = 64;
/// kernels/seed.cu's `RS_THREADS`: the sort walk's block size.
const RS_THREADS: u32 = 8;
const READ_THREADS: u32 = 128;

/// The device's copy of an index ([`IndexTables`]' layout; one part of a multi-part index: upload the next part in its
/// place), kept for the run; the references' lengths and names go with it for the anchors' filters.
pub struct DeviceIndex {
    bufs: Option<IndexBufs>,
    /// The device holding it ([`GpuRuntime::ordinal`]).
    ordinal: usize,
    b: u32,
    /// What [`DeviceIndex::matches`] checks against the host's index: buckets + 1, keys, positions.
    shape: (usize, usize, usize),
    all_named: bool,
}

struct IndexBufs {
    slot_start: CudaSlice<u64>,
    p_start: CudaSlice<u64>,
    keys: CudaSlice<u64>,
    words: CudaSlice<u64>,
    seq_len: CudaSlice<u32>,
    name_off: CudaSlice<u64>,
    names: CudaSlice<u8>,
}

impl Drop for DeviceIndex {
    fn drop(&mut self) {
        if let Some(b) = self.bufs.take() {
            gate::dispose(b);
        }
    }
}

/// The host's copy of `v`, one element at least (a device buffer is never empty).
fn non_empty<T: Copy + Default>(v: &[T]) -> Vec<T> {
    if v.is_empty() {
        vec![T::default()]
    } else {
        v.to_vec()
    }
}

/// The references' names back to back, and where each starts.
fn names_of(seq_name: &[Option<Vec<u8>>]) -> (Vec<u64>, Vec<u8>) {
    let mut name_off = vec![0u64];
    let mut names = Vec::new();
    for n in seq_name {
        names.extend_from_slice(n.as_deref().unwrap_or_default());
        name_off.push(names.len() as u64);
    }
    (name_off, names)
}

/// An error when `bytes` would take more than three quarters of the free device memory (the rest is for the
/// batches).
fn fits(rt: &GpuRuntime, bytes: usize) -> Result<(), String> {
    let (free, _) = rt.context().mem_get_info().map_err(|e| format!("seed index: mem_get_info: {e:?}"))?;
    if bytes > free / 4 * 3 {
        return Err(format!("seed index: {bytes} bytes do not fit the GPU ({free} bytes free)"));
    }
    Ok(())
}

/// Bytes of each of the two page-locked buffers an upstream index goes up through: one is written while the other's
/// copies run.
const INDEX_STAGING: usize = 32 << 20;

impl DeviceIndex {
    /// Uploads `idx` (in [`IndexTables`]' layout). An error when it does not fit ([`fits`]) or on a CUDA error: the
    /// caller seeds on the CPU instead.
    pub fn upload(rt: &GpuRuntime, idx: &FlatIndex) -> Result<DeviceIndex, String> {
        let t = IndexTables::from_flat(idx);
        let (name_off, names) = names_of(&idx.seq_name);
        let bytes = 8 * (t.slot_start.len() + t.p_start.len() + t.keys.len() + t.words.len() + name_off.len())
            + 4 * idx.seq_len.len()
            + names.len();
        fits(rt, bytes)?;
        let err = |e: cudarc::driver::DriverError| format!("seed index upload: {e:?}");
        let st = rt.lease_stream()?;
        let bufs = IndexBufs {
            slot_start: st.clone_htod(&t.slot_start).map_err(err)?,
            p_start: st.clone_htod(&t.p_start).map_err(err)?,
            keys: st.clone_htod(&non_empty(&t.keys)).map_err(err)?,
            words: st.clone_htod(&non_empty(&t.words)).map_err(err)?,
            seq_len: st.clone_htod(&non_empty(&idx.seq_len)).map_err(err)?,
            name_off: st.clone_htod(&name_off).map_err(err)?,
            names: st.clone_htod(&non_empty(&names)).map_err(err)?,
        };
        st.synchronize().map_err(err)?;
        Ok(DeviceIndex {
            bufs: Some(bufs),
            ordinal: rt.ordinal(),
            b: idx.b,
            shape: Self::shape_of(idx),
            all_named: idx.seq_name.iter().all(Option::is_some),
        })
    }

    /// Uploads `mi` (minimap2 2.31's index, one part of a multi-part one) straight from upstream's tables as they
    /// are ([`IndexTables::from_mm_idx`]'s content), through two page-locked buffers in turn, written by threads
    /// a range of buckets at a time; the host keeps no copy. Errors as [`DeviceIndex::upload`].
    ///
    /// # Safety
    /// `mi` points to an index that upstream built or loaded, alive for the call.
    pub unsafe fn upload_mm_idx(rt: &GpuRuntime, mi: *const MmIdx) -> Result<DeviceIndex, String> {
        let nb = 1usize << (*mi).b;
        let base = (*mi).buckets as usize;
        let bucket = |i: usize| &*(base as *const MmIdxBucket).add(i);
        let (slot_start, p_start) = IndexTables::mm_shape(mi);
        let (n_slots, n_words) = (slot_start[nb] as usize, p_start[nb] as usize);
        let n_keys: u64 = (0..nb).map(|i| bucket(i).h.as_ref().map_or(0, |h| h.size as u64)).sum();
        let (seq_len, seq_name) = seq_info(mi);
        let (name_off, names) = names_of(&seq_name);
        fits(rt, 8 * (2 * (nb + 1) + n_slots + n_words + name_off.len()) + 4 * seq_len.len() + names.len())?;
        let err = |e: cudarc::driver::DriverError| format!("seed index upload: {e:?}");
        let st = rt.lease_stream()?;
        // SAFETY: every slot and position is written by the ranges below before any batch reads them.
        let mut bufs = IndexBufs {
            slot_start: st.clone_htod(&slot_start).map_err(err)?,
            p_start: st.clone_htod(&p_start).map_err(err)?,
            keys: st.alloc::<u64>(n_slots.max(1)).map_err(err)?,
            words: st.alloc::<u64>(n_words.max(1)).map_err(err)?,
            seq_len: st.clone_htod(&non_empty(&seq_len)).map_err(err)?,
            name_off: st.clone_htod(&name_off).map_err(err)?,
            names: st.clone_htod(&non_empty(&names)).map_err(err)?,
        };
        // ranges of buckets that fill a buffer at most (a larger bucket alone)
        let bucket_bytes = |i: usize| 16 * (slot_start[i + 1] - slot_start[i]) as usize + 8 * (p_start[i + 1] - p_start[i]) as usize;
        let mut ranges = vec![];
        let (mut beg, mut acc) = (0, 0);
        for i in 0..nb {
            if acc + bucket_bytes(i) > INDEX_STAGING && i > beg {
                ranges.push(beg..i);
                (beg, acc) = (i, 0);
            }
            acc += bucket_bytes(i);
        }
        ranges.push(beg..nb);
        let mut stages: [Option<(cudarc::driver::PinnedHostSlice<u8>, Option<CudaEvent>)>; 2] = [None, None];
        let mut singletons = 0u64;
        let copied = (|| -> Result<(), String> {
            for (ri, r) in ranges.iter().enumerate() {
                let (s0, s1, p0, p1) = (slot_start[r.start] as usize, slot_start[r.end] as usize, p_start[r.start] as usize, p_start[r.end] as usize);
                let (ns, np) = (s1 - s0, p1 - p0);
                let need = 8 * (2 * ns + np);
                let slot = &mut stages[ri % 2];
                // the buffer's copies are over before it is written again
                if let Some((_, Some(ev))) = slot.as_ref() {
                    ev.synchronize().map_err(err)?;
                }
                if slot.as_ref().is_none_or(|(b, _)| b.len() < need) {
                    *slot = None;
                    *slot = Some((rt.take_staging(need, INDEX_STAGING)?, None));
                }
                let (buf, ev) = slot.as_mut().expect("a staging buffer");
                let bytes = buf.as_mut_slice().map_err(err)?;
                // SAFETY: the buffer is page-aligned and holds at least need bytes.
                let words = std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<u64>(), need / 8);
                let (mut kw, rest) = words.split_at_mut(ns);
                let (mut vw, mut pw) = rest.split_at_mut(ns);
                let mut views = Vec::with_capacity(r.len());
                for i in r.clone() {
                    let s = (slot_start[i + 1] - slot_start[i]) as usize;
                    let (k, kr) = std::mem::take(&mut kw).split_at_mut(s);
                    let (v, vr) = std::mem::take(&mut vw).split_at_mut(s);
                    let (p, pr) = std::mem::take(&mut pw).split_at_mut((p_start[i + 1] - p_start[i]) as usize);
                    views.push((i, k, v, p));
                    (kw, vw, pw) = (kr, vr, pr);
                }
                singletons += views.into_par_iter().map(|(i, k, v, p)| write_mm_bucket(bucket(i), k, v, p)).sum::<u64>();
                let src = buf.as_mut_slice().map_err(err)?;
                for (to_keys, from, len) in [(true, (s0, 0), ns), (false, (s0, ns), ns), (false, (p0, 2 * ns), np)] {
                    if len == 0 {
                        continue;
                    }
                    let dst = if to_keys { &mut bufs.keys } else { &mut bufs.words };
                    let mut piece = dst.slice_mut(from.0..from.0 + len);
                    let (ptr, _record) = piece.device_ptr_mut(&st);
                    // SAFETY: the piece holds len words and the buffer's words from.1 on; the buffer is not written
                    // again before the event recorded after these copies.
                    cudarc::driver::result::memcpy_htod_async(ptr, &src[8 * from.1..8 * (from.1 + len)], st.cu_stream()).map_err(err)?;
                }
                *ev = Some(st.record_event(None).map_err(err)?);
            }
            st.synchronize().map_err(err)
        })();
        // freed, not kept: the batches' buffers are smaller
        drop(stages);
        copied?;
        let n_pos = n_words - n_slots;
        Ok(DeviceIndex {
            bufs: Some(bufs),
            ordinal: rt.ordinal(),
            b: (*mi).b as u32,
            shape: (nb + 1, n_keys as usize, n_pos + singletons as usize),
            all_named: seq_name.iter().all(Option::is_some),
        })
    }

    fn shape_of(idx: &FlatIndex) -> (usize, usize, usize) {
        (idx.bucket_start.len(), idx.keys.len(), idx.pos.len())
    }

    /// Whether this is the upload of `idx` (its size: a cheap check against passing another part).
    pub fn matches(&self, idx: &FlatIndex) -> bool {
        self.b == idx.b && self.shape == Self::shape_of(idx)
    }

    /// The device holding it: its batches run there.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Whether every reference has a name (`-X` and all-vs-all mapping compare them).
    pub fn all_named(&self) -> bool {
        self.all_named
    }

    fn bufs(&self) -> &IndexBufs {
        self.bufs.as_ref().expect("an index holds its buffers until dropped")
    }

    fn context(&self) -> &Arc<CudaContext> {
        self.bufs().words.stream().context()
    }
}

/// The segments' layout and the sketch's chunks: what the host computes before the first kernel.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// The reads' bases back to back.
    pub bases: Vec<u8>,
    /// Per segment: its offset in `bases`, its length, its index in its read (`rid`), and what its minimizers'
    /// `y` get added (upstream's `sum << 1`, the segments before it).
    pub seg_off: Vec<u64>,
    pub seg_len: Vec<u32>,
    pub seg_rid: Vec<u32>,
    pub seg_add: Vec<u64>,
    /// Per chunk: its segment and its first base.
    pub chunk_seg: Vec<u32>,
    pub chunk_beg: Vec<u32>,
    /// Per read: its first chunk (and one past the last read's).
    pub read_chunk: Vec<usize>,
    /// Per read: the sum of its segments' lengths (upstream's `int qlen_sum`).
    pub qlen: Vec<i32>,
}

impl Layout {
    /// The layout of `reads` with chunks of `chunk` bases (segments non-empty).
    pub fn new(reads: &[SeedRead], chunk: usize) -> Layout {
        let mut l = Layout::tables(reads, chunk);
        l.bases = vec![0; l.n_bases()];
        gather_bases(reads, &mut l.bases);
        l
    }

    /// [`Layout::new`] without the bases (`bases` empty; [`gather_bases`] writes them where they go).
    pub fn tables(reads: &[SeedRead], chunk: usize) -> Layout {
        let mut l = Layout::default();
        let (segs, chunks) = reads.iter().flat_map(|r| r.segs.iter()).fold((0, 0), |(n, c), s| (n + 1, c + s.len().div_ceil(chunk)));
        l.seg_off.reserve_exact(segs);
        l.seg_len.reserve_exact(segs);
        l.seg_rid.reserve_exact(segs);
        l.seg_add.reserve_exact(segs);
        l.chunk_seg.reserve_exact(chunks);
        l.chunk_beg.reserve_exact(chunks);
        let mut at = 0u64;
        for r in reads {
            l.read_chunk.push(l.chunk_seg.len());
            let mut sum = 0i32;
            for (i, s) in r.segs.iter().enumerate() {
                let sg = l.seg_len.len() as u32;
                l.seg_off.push(at);
                l.seg_len.push(s.len() as u32);
                l.seg_rid.push(i as u32);
                l.seg_add.push(sum.wrapping_shl(1) as i64 as u64);
                at += s.len() as u64;
                for beg in (0..s.len()).step_by(chunk) {
                    l.chunk_seg.push(sg);
                    l.chunk_beg.push(beg as u32);
                }
                sum = sum.wrapping_add(s.len() as i32);
            }
            l.qlen.push(sum);
        }
        l.read_chunk.push(l.chunk_seg.len());
        l
    }

    /// The reads' bases in all.
    pub fn n_bases(&self) -> usize {
        self.seg_off.last().map_or(0, |&o| o as usize + *self.seg_len.last().expect("a length per offset") as usize)
    }
}

/// The reads' segments back to back into `out` (of [`Layout::n_bases`] bytes).
pub fn gather_bases(reads: &[SeedRead], out: &mut [u8]) {
    let mut at = 0;
    for s in reads.iter().flat_map(|r| r.segs.iter()) {
        out[at..at + s.len()].copy_from_slice(s);
        at += s.len();
    }
}

/// Exclusive prefix sums of `n` (one more element: the total).
pub fn offsets(n: impl IntoIterator<Item = u64>) -> Vec<u64> {
    let mut o = vec![0u64];
    for x in n {
        o.push(o.last().unwrap() + x);
    }
    o
}

/// The work units of a launch: bases a sketch thread owns, items a chunk of the later steps holds, and the most
/// anchors a read's sort runs on the device with (one thread walks each level of a read's sort, so a longer one
/// is sorted on the host, by the twin's `radix_sort_128x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunks {
    pub bases: usize,
    pub items: usize,
    pub sort_max: usize,
}

/// What launches use.
pub const CHUNKS: Chunks = Chunks { bases: CHUNK_BASES, items: CHUNK_ITEMS, sort_max: SORT_GPU_MAX };

/// The levels of the anchors' radix sort: 8 bits of a 64-bit key each.
const RS_LEVELS: usize = 8;

/// Reads with more anchors than this are sorted on the host.
pub const SORT_GPU_MAX: usize = 16384;

/// A read's anchors as the launch leaves them sorted: those the device did not sort (more than `sort_max`) are
/// sorted here.
pub fn finish_sort(a: &mut [Minimizer], sort_max: usize) {
    if a.len() > sort_max {
        radix_sort_128x(a);
    }
}

/// Each read's items in chunks of `items`: chunk c is items `beg[c]..` of read `read[c]`, read r's chunks are
/// `first[r]..first[r + 1]` (a read without items has none).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ItemChunks {
    pub read: Vec<u32>,
    pub beg: Vec<u32>,
    pub first: Vec<u32>,
}

impl ItemChunks {
    pub fn new(counts: &[u64], items: usize) -> ItemChunks {
        let mut c = ItemChunks::default();
        for (r, &n) in counts.iter().enumerate() {
            c.first.push(c.read.len() as u32);
            for b in (0..n).step_by(items) {
                c.read.push(r as u32);
                c.beg.push(b as u32);
            }
        }
        c.first.push(c.read.len() as u32);
        c
    }
}

/// An [`ItemChunks`] on the device.
struct DeviceChunks {
    read: CudaSlice<u32>,
    beg: CudaSlice<u32>,
    first: CudaSlice<u32>,
    n: usize,
    items: u32,
}

impl DeviceChunks {
    fn upload(st: &Arc<CudaStream>, counts: &[u64], items: usize) -> DResult<DeviceChunks> {
        let c = ItemChunks::new(counts, items);
        Ok(DeviceChunks {
            read: st.clone_htod(&non_empty(&c.read)).map_err(derr("upload"))?,
            beg: st.clone_htod(&non_empty(&c.beg)).map_err(derr("upload"))?,
            first: st.clone_htod(&c.first).map_err(derr("upload"))?,
            n: c.read.len(),
            items: items as u32,
        })
    }

    /// A block per chunk, a thread per item: none when there are no chunks.
    fn per_item(&self) -> Option<LaunchConfig> {
        (self.n > 0).then_some(LaunchConfig { grid_dim: (self.n as u32, 1, 1), block_dim: (self.items, 1, 1), shared_mem_bytes: 0 })
    }

    /// A thread per chunk.
    fn per_chunk(&self) -> LaunchConfig {
        grid(self.n, READ_THREADS)
    }

    fn n_i32(&self) -> i32 {
        self.n as i32
    }
}

fn grid(n: usize, threads: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: ((n as u32).div_ceil(threads).max(1), 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }
}

fn per_read(n_reads: usize, threads: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (n_reads as u32, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }
}

/// `Minimizer`s (or anchors, the same type) from their words.
fn pairs(words: &[u64]) -> Vec<Minimizer> {
    words.chunks_exact(2).map(|w| Minimizer { x: w[0], y: w[1] }).collect()
}

/// The functions of the module, loaded once per launch.
struct Kernels {
    sketch: CudaFunction,
    scan_reads: CudaFunction,
    qocc_count: CudaFunction,
    qocc_mark: CudaFunction,
    count_mv: CudaFunction,
    write_mv: CudaFunction,
    lookup: CudaFunction,
    count_found: CudaFunction,
    write_found: CudaFunction,
    select_flag: CudaFunction,
    select_chunks: CudaFunction,
    select_reads: CudaFunction,
    select_write: CudaFunction,
    expand: CudaFunction,
    count_kept: CudaFunction,
    write_kept: CudaFunction,
    rs_diff: CudaFunction,
    tasks_init: CudaFunction,
    rs_hist: CudaFunction,
    rs_walk: CudaFunction,
    rs_copy: CudaFunction,
    rs_scatter: CudaFunction,
    rs_small: CudaFunction,
}

impl Kernels {
    fn load(rt: &GpuRuntime) -> Result<Kernels, String> {
        let m = rt.module(MODULE_NAME)?;
        let f = |name: &str| m.load_function(name).map_err(|e| format!("loading {name}: {e:?}"));
        Ok(Kernels {
            sketch: f("seed_sketch")?,
            scan_reads: f("seed_scan_reads")?,
            qocc_count: f("seed_qocc_count")?,
            qocc_mark: f("seed_qocc_mark")?,
            count_mv: f("seed_count_mv")?,
            write_mv: f("seed_write_mv")?,
            lookup: f("seed_lookup")?,
            count_found: f("seed_count_found")?,
            write_found: f("seed_write_found")?,
            select_flag: f("seed_select_flag")?,
            select_chunks: f("seed_select_chunks")?,
            select_reads: f("seed_select_reads")?,
            select_write: f("seed_select_write")?,
            expand: f("seed_expand")?,
            count_kept: f("seed_count_kept")?,
            write_kept: f("seed_write_kept")?,
            rs_diff: f("seed_rs_diff")?,
            tasks_init: f("seed_tasks_init")?,
            rs_hist: f("seed_rs_hist")?,
            rs_walk: f("seed_rs_walk")?,
            rs_copy: f("seed_rs_copy")?,
            rs_scatter: f("seed_rs_scatter")?,
            rs_small: f("seed_rs_small")?,
        })
    }
}

type DResult<T> = Result<T, String>;

/// A launch's steps timed on its stream, when `WARPALIGN_SEED_GPU_PROFILE=1`.
struct Profile {
    /// each step's end: on the stream, and on the host when it was enqueued
    marks: Option<Vec<(&'static str, CudaEvent, std::time::Instant)>>,
    t0: std::time::Instant,
}

impl Profile {
    fn new() -> Profile {
        let on = crate::env::SEED_GPU_PROFILE.get().unwrap_or(false);
        Profile { marks: on.then(Vec::new), t0: std::time::Instant::now() }
    }

    /// The end of step `name` (the first mark is the start).
    fn mark(&mut self, st: &Arc<CudaStream>, name: &'static str) -> DResult<()> {
        if let Some(m) = &mut self.marks {
            let ev = st.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(derr("event"))?;
            m.push((name, ev, std::time::Instant::now()));
        }
        Ok(())
    }

    fn print(&self, reads: usize, bases: usize, minimizers: usize, anchors: usize) {
        let Some(m) = &self.marks else { return };
        let steps: Vec<String> = m
            .windows(2)
            .map(|w| {
                let host = (w[1].2 - w[0].2).as_secs_f64() * 1e3;
                format!("{} {:.2} ms (host {host:.2})", w[1].0, w[0].1.elapsed_ms(&w[1].1).unwrap_or(f32::NAN))
            })
            .collect();
        eprintln!(
            "seed gpu: reads {reads} bases {bases} minimizers {minimizers} anchors {anchors}: {}; {:.2} ms in all",
            steps.join(", "),
            self.t0.elapsed().as_secs_f64() * 1e3
        );
    }
}

fn derr(what: &'static str) -> impl Fn(cudarc::driver::DriverError) -> String {
    move |e| format!("seed gpu {what}: {e:?}")
}

/// Sorts `a` (pairs of words) in each read's range `off[r]..off[r] + n[r]` as `radix_sort_128x` does, `total`
/// elements in all, but the ranges longer than `sort_max`: per level the digits counted, upstream's walk on them,
/// the elements moved; then the insertion sorts. Each level's kernels read its count of tasks on the device, so the
/// host launches all [`RS_LEVELS`] levels without waiting (the stream waited for at each level took a part's sort
/// from 4-5 ms alone to 11 ms on average beside the ksw launches).
#[allow(clippy::too_many_arguments)]
fn sort_ranges(
    st: &Arc<CudaStream>,
    k: &Kernels,
    a: &mut CudaSlice<u64>,
    off: &CudaSlice<u64>,
    n: &CudaSlice<u64>,
    n_reads: usize,
    total: usize,
    sort_max: usize,
) -> DResult<()> {
    // ranges of more than 64 in a level, of 2 to 64 in all levels (they are disjoint)
    let cap = n_reads.max(total / (RS_MIN_SIZE + 1) + 1);
    let cap_small = total / 2 + 1;
    let cells = total.max(1);
    // SAFETY: the first n_reads tasks are written by seed_tasks_init, later ones by seed_rs_walk before read;
    // hist is zeroed before each level's counts; small's first counts ranges are written before read; a moving
    // task's digits, slots and copies are written (by seed_rs_hist, seed_rs_walk, seed_rs_copy) before read.
    let mut tasks = unsafe { st.alloc::<u64>(3 * cap) }.map_err(derr("alloc"))?;
    let mut next = unsafe { st.alloc::<u64>(3 * cap) }.map_err(derr("alloc"))?;
    let mut small = unsafe { st.alloc::<u64>(2 * cap_small) }.map_err(derr("alloc"))?;
    let mut hist = unsafe { st.alloc::<u32>(256 * cap) }.map_err(derr("alloc"))?;
    // a word of padding: the walk reads its digits a word at a time
    let mut dig = unsafe { st.alloc::<u8>(cells + 8) }.map_err(derr("alloc"))?;
    let mut dst = unsafe { st.alloc::<u32>(cells) }.map_err(derr("alloc"))?;
    let mut tmp = unsafe { st.alloc::<u64>(2 * cells) }.map_err(derr("alloc"))?;
    // counts[0]: the insertion sorts' ranges; counts[1 + l]: level l's tasks (the kernels take their addresses)
    let mut first = [0u32; 2 + RS_LEVELS];
    first[1] = n_reads as u32;
    let counts = st.clone_htod(&first).map_err(derr("upload"))?;
    let (counts_at, _counts_used) = counts.device_ptr(st);
    let count = |i: usize| counts_at + 4 * i as u64;
    let mut diff = st.alloc_zeros::<u64>(n_reads).map_err(derr("alloc"))?;
    let nr = n_reads as i32;
    let mut l = st.launch_builder(&k.rs_diff);
    l.arg(&*a).arg(off).arg(n).arg(&mut diff);
    // SAFETY: a block per read within its range.
    unsafe { l.launch(per_read(n_reads, READ_THREADS)) }.map_err(derr("launch"))?;
    let max_n = sort_max as u64;
    let mut l = st.launch_builder(&k.tasks_init);
    l.arg(off).arg(n).arg(&diff).arg(&nr).arg(&max_n).arg(&mut tasks);
    // SAFETY: off, n and diff hold n_reads elements, tasks 3 * cap >= 3 * n_reads.
    unsafe { l.launch(grid(n_reads, READ_THREADS)) }.map_err(derr("launch"))?;
    let per_task = per_read(cap, READ_THREADS);
    for level in 0..RS_LEVELS {
        st.memset_zeros(&mut hist).map_err(derr("memset"))?;
        let (this_n, next_n, small_n) = (count(1 + level), count(2 + level), count(0));
        let mut l = st.launch_builder(&k.rs_hist);
        l.arg(&*a).arg(&tasks).arg(&this_n).arg(&mut hist).arg(&mut dig);
        // SAFETY: a block per task (those past the level's count return), within its range; 256 counts a task; the
        // counts' addresses lie in `counts`, freed on the stream after these launches.
        unsafe { l.launch(per_task) }.map_err(derr("launch"))?;
        let mut l = st.launch_builder(&k.rs_walk);
        l.arg(&mut *a).arg(&tasks).arg(&this_n).arg(&hist).arg(&dig).arg(&mut dst).arg(&mut next).arg(&mut small);
        l.arg(&next_n).arg(&small_n);
        // SAFETY: the tasks are disjoint ranges of a; a level queues at most total/65 ranges of more than 64 (< cap),
        // and all levels at most total/2 of 2 to 64 (< cap_small).
        unsafe { l.launch(grid(cap, RS_THREADS)) }.map_err(derr("launch"))?;
        let mut l = st.launch_builder(&k.rs_copy);
        l.arg(&*a).arg(&tasks).arg(&this_n).arg(&hist).arg(&dig).arg(&mut tmp);
        // SAFETY: a block per task, within its range.
        unsafe { l.launch(per_task) }.map_err(derr("launch"))?;
        let mut l = st.launch_builder(&k.rs_scatter);
        l.arg(&mut *a).arg(&tasks).arg(&this_n).arg(&hist).arg(&dig).arg(&dst).arg(&tmp);
        // SAFETY: as above; dst maps each moving task's range onto itself.
        unsafe { l.launch(per_task) }.map_err(derr("launch"))?;
        std::mem::swap(&mut tasks, &mut next);
    }
    let small_n = count(0);
    let mut l = st.launch_builder(&k.rs_small);
    l.arg(&mut *a).arg(&small).arg(&small_n);
    // SAFETY: disjoint ranges of a; at most cap_small of them.
    unsafe { l.launch(grid(cap_small, READ_THREADS)) }.map_err(derr("launch"))?;
    Ok(())
}

/// Each read's chunks' offsets from their counts (`ck_n`), and the reads' counts: seed_scan_reads.
fn scan_reads(
    st: &Arc<CudaStream>,
    k: &Kernels,
    ck: &DeviceChunks,
    ck_n: &CudaSlice<u32>,
    n_reads: usize,
) -> DResult<(CudaSlice<u32>, CudaSlice<u64>)> {
    // SAFETY: seed_scan_reads writes every chunk's offset and every read's count.
    let mut ck_at = unsafe { st.alloc::<u32>(ck.n.max(1)) }.map_err(derr("alloc"))?;
    let mut r_out = unsafe { st.alloc::<u64>(n_reads) }.map_err(derr("alloc"))?;
    let nr = n_reads as i32;
    let mut l = st.launch_builder(&k.scan_reads);
    l.arg(&ck.first).arg(ck_n).arg(&nr).arg(&mut ck_at).arg(&mut r_out);
    // SAFETY: a thread per read over its chunks.
    unsafe { l.launch(grid(n_reads, READ_THREADS)) }.map_err(derr("launch"))?;
    Ok((ck_at, r_out))
}

/// Per read, the slots of `--q-occ-frac`'s hash table (a power of two, at least twice its minimizers; none where
/// the filter does not apply) and their offsets: (offsets, masks, slots in all).
pub fn qocc_tables(mv_n: &[u64], mid_occ: i32) -> (Vec<u64>, Vec<u64>, usize) {
    let mut off = Vec::with_capacity(mv_n.len());
    let mut mask = Vec::with_capacity(mv_n.len());
    let mut at = 0u64;
    for &n in mv_n {
        let size = if mid_occ > 0 && n > mid_occ as u64 { (2 * n).next_power_of_two() } else { 0 };
        off.push(at);
        mask.push(size.saturating_sub(1));
        at += size;
    }
    (off, mask, at as usize)
}

/// The minimizers of every read as `collect_minimizers` makes them, on the device: the buffer (pairs of words),
/// each read's offset in it and count.
fn minimizers(
    st: &Arc<CudaStream>,
    k: &Kernels,
    opt: &SeedOpt,
    reads: &[SeedRead],
    layout: &Layout,
    bases: &CudaSlice<u8>,
    chunk: usize,
    fault: &fault::Batch,
    prof: &mut Profile,
) -> DResult<(CudaSlice<u64>, Vec<u64>, Vec<u64>)> {
    let n_reads = reads.len();
    if opt.sdust_thres > 0 {
        // sdust's intervals come from a sequential scan of each segment: the twin makes these minimizers.
        let mvs: Vec<Vec<Minimizer>> = reads
            .par_iter()
            .map(|r| {
                let mut mv = vec![];
                collect_minimizers(opt.w, opt.k, opt.is_hpc, opt.sdust_thres, r.segs, &mut mv);
                mv
            })
            .collect();
        let off = offsets(mvs.iter().map(|m| m.len() as u64));
        let words: Vec<u64> = mvs.iter().flatten().flat_map(|m| [m.x, m.y]).collect();
        fault.check(Step::Copy)?;
        let mv = st.clone_htod(&non_empty(&words)).map_err(derr("upload"))?;
        let n = mvs.iter().map(|m| m.len() as u64).collect();
        return Ok((mv, off[..n_reads].to_vec(), n));
    }
    let n_chunks = layout.chunk_seg.len();
    fault.check(Step::Copy)?;
    let chunk_seg = st.clone_htod(&non_empty(&layout.chunk_seg)).map_err(derr("upload"))?;
    let chunk_beg = st.clone_htod(&non_empty(&layout.chunk_beg)).map_err(derr("upload"))?;
    let seg_off = st.clone_htod(&non_empty(&layout.seg_off)).map_err(derr("upload"))?;
    let seg_len = st.clone_htod(&non_empty(&layout.seg_len)).map_err(derr("upload"))?;
    let seg_rid = st.clone_htod(&non_empty(&layout.seg_rid)).map_err(derr("upload"))?;
    let seg_add = st.clone_htod(&non_empty(&layout.seg_add)).map_err(derr("upload"))?;
    let mut count = st.alloc_zeros::<u64>(n_chunks.max(1)).map_err(derr("alloc"))?;
    prof.mark(st, "upload")?;
    // each thread keeps w minimizers in shared memory: at most 48 KiB a block
    let threads = (49152 / (16 * opt.w)).min(128) as u32;
    let mut cfg = grid(n_chunks, threads);
    cfg.shared_mem_bytes = threads * 16 * opt.w as u32;
    let (nc, cl, w, kk, hpc) = (n_chunks as i32, chunk as i32, opt.w as i32, opt.k as i32, opt.is_hpc as i32);
    let null = 0u64;
    let sketch = |count: &mut CudaSlice<u64>, out: Option<(&CudaSlice<u64>, &mut CudaSlice<u64>)>| {
        let mut l = st.launch_builder(&k.sketch);
        l.arg(bases).arg(&chunk_seg).arg(&chunk_beg).arg(&nc).arg(&cl).arg(&seg_off).arg(&seg_len).arg(&seg_rid);
        l.arg(&seg_add).arg(&w).arg(&kk).arg(&hpc).arg(count);
        match out {
            Some((out_off, out)) => l.arg(out_off).arg(out),
            None => l.arg(&null).arg(&null),
        };
        // SAFETY: the tables hold n_chunks chunks and their segments; out (when given) holds every chunk's
        // minimizers at out_off, as the counting launch counted them; shared memory is w slots a thread.
        unsafe { l.launch(cfg) }.map_err(derr("launch"))
    };
    sketch(&mut count, None)?;
    let counts = st.clone_dtoh(&count).map_err(derr("download"))?;
    prof.mark(st, "count")?;
    let chunk_off = offsets(counts[..n_chunks].iter().copied());
    let total = chunk_off[n_chunks] as usize;
    let d_off = st.clone_htod(&non_empty(&chunk_off[..n_chunks])).map_err(derr("upload"))?;
    // SAFETY: every minimizer is written by the second launch.
    let mut mv = unsafe { st.alloc::<u64>(2 * total.max(1)) }.map_err(derr("alloc"))?;
    sketch(&mut count, Some((&d_off, &mut mv)))?;
    let off = (0..n_reads).map(|r| chunk_off[layout.read_chunk[r]]).collect();
    let n = (0..n_reads).map(|r| chunk_off[layout.read_chunk[r + 1]] - chunk_off[layout.read_chunk[r]]).collect();
    Ok((mv, off, n))
}

/// One launch: `reads` (segments non-empty) seeded against `dev` with work units `chunks`; `fault`: the GPU batch it
/// is part of (tests inject failures through it).
pub fn seed_launch(
    rt: &GpuRuntime,
    dev: &DeviceIndex,
    opt: &SeedOpt,
    reads: &[SeedRead],
    chunks: Chunks,
    fault: &fault::Batch,
) -> DResult<Vec<ReadSeeds>> {
    let n_reads = reads.len();
    if n_reads == 0 {
        return Ok(vec![]);
    }
    if !Arc::ptr_eq(dev.context(), rt.context()) {
        return Err("seed gpu: the index was uploaded through another GPU runtime".into());
    }
    let mut prof = Profile::new();
    let k = Kernels::load(rt)?;
    let ix = dev.bufs();
    // its caller waits for it (minimap2's mapping step), while ksw batches computed ahead fill the GPU
    let st = rt.lease_urgent_stream()?;
    prof.mark(&st, "start")?;
    let layout = Layout::tables(reads, chunks.bases);
    // the bases gathered into page-locked memory, uploaded without a copy on the way; the sketch's count is
    // downloaded (the stream waited for) before the buffer is given back
    let n_bases = layout.n_bases();
    let mut bases_in = rt.take_staging(n_bases, BASES_STAGING)?;
    gather_bases(reads, &mut bases_in.as_mut_slice().map_err(derr("staging"))?[..n_bases]);
    // SAFETY: every base is written by the copy below before a kernel reads it.
    let mut bases = unsafe { st.alloc::<u8>(n_bases.max(1)) }.map_err(derr("alloc"))?;
    prof.mark(&st, "layout")?;
    let sketched = (|| {
        fault.check(Step::Copy)?;
        let src = bases_in.as_slice().map_err(derr("staging"))?;
        {
            let (ptr, _record) = bases.device_ptr_mut(&st);
            // SAFETY: the device slice holds n_bases bytes; the buffer is not written before the stream is waited for.
            unsafe { cudarc::driver::result::memcpy_htod_async(ptr, &src[..n_bases], st.cu_stream()) }.map_err(derr("upload"))?;
        }
        minimizers(&st, &k, opt, reads, &layout, &bases, chunks.bases, fault, &mut prof)
    })();
    // (a copy may still read the buffer where the launch failed: then it is not given back)
    if st.synchronize().is_ok() {
        rt.give_staging(bases_in);
    }
    let (mut mv, mv_off, mv_n) = sketched?;
    prof.mark(&st, "sketch")?;
    let total = mv_off.last().map_or(0, |o| (o + mv_n[n_reads - 1]) as usize);
    let cap = total.max(1);
    let r_off = st.clone_htod(&mv_off).map_err(derr("upload"))?;
    let mut r_n = st.clone_htod(&mv_n).map_err(derr("upload"))?;
    let r_qlen = st.clone_htod(&layout.qlen).map_err(derr("upload"))?;
    let nr = n_reads as i32;
    // the minimizers' chunks; the later steps' items (found and kept seeds) are fewer, in the same chunks
    let mck = DeviceChunks::upload(&st, &mv_n, chunks.items)?;
    let (mck_n, items) = (mck.n_i32(), mck.items as i32);

    // --q-occ-frac
    let (tab_off_h, tab_mask_h, tab_slots) = qocc_tables(&mv_n, opt.mid_occ);
    if opt.q_occ_frac > 0.0 && tab_slots > 0 {
        let tab_off = st.clone_htod(&tab_off_h).map_err(derr("upload"))?;
        let tab_mask = st.clone_htod(&tab_mask_h).map_err(derr("upload"))?;
        let mut tab_key = st.alloc_zeros::<u64>(tab_slots).map_err(derr("alloc"))?;
        let mut tab_cnt = st.alloc_zeros::<u32>(tab_slots).map_err(derr("alloc"))?;
        let mut max_cnt = st.alloc_zeros::<u32>(n_reads).map_err(derr("alloc"))?;
        if let Some(cfg) = mck.per_item() {
            let mut l = st.launch_builder(&k.qocc_count);
            l.arg(&mv).arg(&r_off).arg(&r_n).arg(&mck.read).arg(&mck.beg).arg(&tab_off).arg(&tab_mask);
            l.arg(&mut tab_key).arg(&mut tab_cnt).arg(&mut max_cnt);
            // SAFETY: a thread per minimizer; each read's table at its offset, of its mask + 1 slots, more than its
            // minimizers.
            unsafe { l.launch(cfg) }.map_err(derr("launch"))?;
            let mut l = st.launch_builder(&k.qocc_mark);
            l.arg(&mut mv).arg(&r_off).arg(&r_n).arg(&mck.read).arg(&mck.beg).arg(&tab_off).arg(&tab_mask);
            l.arg(&tab_key).arg(&tab_cnt).arg(&max_cnt).arg(&opt.mid_occ).arg(&opt.q_occ_frac);
            // SAFETY: as above; every minimizer's x is in its read's table.
            unsafe { l.launch(cfg) }.map_err(derr("launch"))?;
        }
        // SAFETY: seed_count_mv writes every chunk's count.
        let mut ck_n = unsafe { st.alloc::<u32>(mck.n.max(1)) }.map_err(derr("alloc"))?;
        let mut l = st.launch_builder(&k.count_mv);
        l.arg(&mv).arg(&r_off).arg(&r_n).arg(&mck.read).arg(&mck.beg).arg(&mck_n).arg(&items).arg(&mut ck_n);
        // SAFETY: a thread per chunk, within its read's range.
        unsafe { l.launch(mck.per_chunk()) }.map_err(derr("launch"))?;
        let (ck_at, r_kept) = scan_reads(&st, &k, &mck, &ck_n, n_reads)?;
        // SAFETY: seed_write_mv writes each read's first r_kept[r] minimizers, all that is read after.
        let mut out = unsafe { st.alloc::<u64>(2 * cap) }.map_err(derr("alloc"))?;
        let mut l = st.launch_builder(&k.write_mv);
        l.arg(&mv).arg(&r_off).arg(&r_n).arg(&mck.read).arg(&mck.beg).arg(&mck_n).arg(&items).arg(&ck_at).arg(&mut out);
        // SAFETY: as above; each chunk writes its kept minimizers at its read's offset plus its own.
        unsafe { l.launch(mck.per_chunk()) }.map_err(derr("launch"))?;
        mv = out;
        r_n = r_kept;
        prof.mark(&st, "q-occ")?;
    }

    // lookups and occurrence limits
    fault.check(Step::Alloc)?;
    // SAFETY: seed_lookup writes every seed of every read's range before it is read.
    let mut seeds = unsafe { st.alloc::<u64>(3 * cap) }.map_err(derr("alloc"))?;
    let b = dev.b as i32;
    fault.check(Step::Launch)?;
    if let Some(cfg) = mck.per_item() {
        let mut l = st.launch_builder(&k.lookup);
        l.arg(&mv).arg(&r_off).arg(&r_n).arg(&mck.read).arg(&mck.beg).arg(&b).arg(&ix.slot_start).arg(&ix.keys);
        l.arg(&ix.p_start).arg(&ix.words).arg(&mut seeds);
        // SAFETY: a thread per minimizer; the index arrays are FlatIndex's.
        unsafe { l.launch(cfg) }.map_err(derr("launch"))?;
    }
    // the seeds the index has, in order
    // SAFETY: seed_count_found writes every chunk's count, seed_write_found each read's first r_m[r] seeds.
    let mut ck_n = unsafe { st.alloc::<u32>(mck.n.max(1)) }.map_err(derr("alloc"))?;
    let mut found = unsafe { st.alloc::<u64>(3 * cap) }.map_err(derr("alloc"))?;
    let mut l = st.launch_builder(&k.count_found);
    l.arg(&seeds).arg(&r_off).arg(&r_n).arg(&mck.read).arg(&mck.beg).arg(&mck_n).arg(&items).arg(&mut ck_n);
    // SAFETY: a thread per chunk, within its read's range.
    unsafe { l.launch(mck.per_chunk()) }.map_err(derr("launch"))?;
    let (ck_at, r_m) = scan_reads(&st, &k, &mck, &ck_n, n_reads)?;
    let mut l = st.launch_builder(&k.write_found);
    l.arg(&seeds).arg(&r_off).arg(&r_n).arg(&mck.read).arg(&mck.beg).arg(&mck_n).arg(&items).arg(&ck_at).arg(&mut found);
    // SAFETY: as above.
    unsafe { l.launch(mck.per_chunk()) }.map_err(derr("launch"))?;
    let (max_occ, max_max_occ, dist) = (opt.max_occ, opt.hit.max_max_occ, opt.hit.occ_dist);
    if let Some(cfg) = mck.per_item() {
        // SAFETY: a streak's heap slots are its own seeds' and written before read.
        let mut heaps = unsafe { st.alloc::<u64>(cap) }.map_err(derr("alloc"))?;
        let mut l = st.launch_builder(&k.select_flag);
        l.arg(&mut found).arg(&r_off).arg(&r_m).arg(&r_qlen).arg(&mck.read).arg(&mck.beg).arg(&max_occ);
        l.arg(&max_max_occ).arg(&dist).arg(&mut heaps);
        // SAFETY: a thread per found seed; a streak's thread writes only its streak's flags and heap slots.
        unsafe { l.launch(cfg) }.map_err(derr("launch"))?;
    }
    // SAFETY: seed_select_chunks writes every chunk's summary (4 words each).
    let mut sel = unsafe { st.alloc::<u64>(4 * mck.n.max(1)) }.map_err(derr("alloc"))?;
    let mut l = st.launch_builder(&k.select_chunks);
    l.arg(&found).arg(&r_off).arg(&r_m).arg(&mck.read).arg(&mck.beg).arg(&mck_n).arg(&items).arg(&mut sel);
    // SAFETY: a thread per chunk, within its read's found seeds.
    unsafe { l.launch(mck.per_chunk()) }.map_err(derr("launch"))?;
    let mut r_nseed = st.alloc_zeros::<u64>(n_reads).map_err(derr("alloc"))?;
    let mut r_na = st.alloc_zeros::<u64>(n_reads).map_err(derr("alloc"))?;
    let mut r_rep = st.alloc_zeros::<i32>(n_reads).map_err(derr("alloc"))?;
    let mut l = st.launch_builder(&k.select_reads);
    l.arg(&mck.first).arg(&nr).arg(&mut sel).arg(&mut r_nseed).arg(&mut r_na).arg(&mut r_rep);
    // SAFETY: a thread per read over its chunks.
    unsafe { l.launch(grid(n_reads, READ_THREADS)) }.map_err(derr("launch"))?;
    // SAFETY: seed_select_write writes the first r_nseed[r] of each read's range, all that is read.
    let mut a_rel = unsafe { st.alloc::<u64>(cap) }.map_err(derr("alloc"))?;
    let mut mini_pos = unsafe { st.alloc::<u64>(cap) }.map_err(derr("alloc"))?;
    let mut l = st.launch_builder(&k.select_write);
    l.arg(&found).arg(&r_off).arg(&r_m).arg(&mck.read).arg(&mck.beg).arg(&mck_n).arg(&items).arg(&sel);
    l.arg(&mut seeds).arg(&mut a_rel).arg(&mut mini_pos);
    // SAFETY: a thread per chunk; its kept seeds at its read's offset plus its own.
    unsafe { l.launch(mck.per_chunk()) }.map_err(derr("launch"))?;
    drop(found);
    prof.mark(&st, "lookups and limits")?;

    // anchors
    fault.check(Step::Sync)?;
    let na = st.clone_dtoh(&r_na).map_err(derr("download"))?;
    let a_off_h = offsets(na.iter().copied());
    if na.iter().any(|&n| n > u32::MAX as u64) {
        return Err("seed gpu: a read with more than 2^32 anchors".into());
    }
    let total_a = a_off_h[n_reads] as usize;
    let a_off = st.clone_htod(&a_off_h[..n_reads]).map_err(derr("upload"))?;
    let mut qname_off = vec![0u64];
    let mut qnames = Vec::new();
    let has_qname: Vec<u8> = reads.iter().map(|r| r.qname.is_some() as u8).collect();
    for r in reads {
        qnames.extend_from_slice(r.qname.unwrap_or_default());
        qname_off.push(qnames.len() as u64);
    }
    let d_has_qname = st.clone_htod(&has_qname).map_err(derr("upload"))?;
    let d_qname_off = st.clone_htod(&qname_off).map_err(derr("upload"))?;
    let d_qnames = st.clone_htod(&non_empty(&qnames)).map_err(derr("upload"))?;
    // SAFETY: seed_expand writes every anchor it keeps; the compaction (when skip_seed may drop) closes the gaps.
    let mut anchors = unsafe { st.alloc::<u64>(2 * total_a.max(1)) }.map_err(derr("alloc"))?;
    let drops = opt.hit.flag & (flag::NO_DIAG | flag::NO_DUAL | flag::FOR_ONLY | flag::REV_ONLY) != 0;
    let mut keep = if drops { Some(st.alloc_zeros::<u8>(total_a.max(1)).map_err(derr("alloc"))?) } else { None };
    let null = 0u64;
    if let Some(cfg) = mck.per_item() {
        let mut l = st.launch_builder(&k.expand);
        l.arg(&seeds).arg(&r_off).arg(&r_nseed).arg(&mck.read).arg(&mck.beg).arg(&a_rel).arg(&a_off).arg(&r_qlen);
        l.arg(&d_has_qname).arg(&d_qname_off).arg(&d_qnames).arg(&ix.words).arg(&ix.seq_len).arg(&ix.name_off);
        l.arg(&ix.names).arg(&opt.hit.flag).arg(&mut anchors);
        match keep.as_mut() {
            Some(kp) => l.arg(kp),
            None => l.arg(&null),
        };
        // SAFETY: a thread per kept seed; its anchors at a_off + a_rel, within the read's r_na.
        unsafe { l.launch(cfg) }.map_err(derr("launch"))?;
    }
    if let Some(kp) = &keep {
        let ack = DeviceChunks::upload(&st, &na, chunks.items)?;
        let ack_n = ack.n_i32();
        // SAFETY: seed_count_kept writes every chunk's count, seed_write_kept each read's first r_na[r] anchors.
        let mut ck_n = unsafe { st.alloc::<u32>(ack.n.max(1)) }.map_err(derr("alloc"))?;
        let mut l = st.launch_builder(&k.count_kept);
        l.arg(kp).arg(&a_off).arg(&r_na).arg(&ack.read).arg(&ack.beg).arg(&ack_n).arg(&items).arg(&mut ck_n);
        // SAFETY: a thread per chunk of anchors, within its read's.
        unsafe { l.launch(ack.per_chunk()) }.map_err(derr("launch"))?;
        let (ck_at, r_kept) = scan_reads(&st, &k, &ack, &ck_n, n_reads)?;
        let mut out = unsafe { st.alloc::<u64>(2 * total_a.max(1)) }.map_err(derr("alloc"))?;
        let mut l = st.launch_builder(&k.write_kept);
        l.arg(&anchors).arg(kp).arg(&a_off).arg(&r_na).arg(&ack.read).arg(&ack.beg).arg(&ack_n).arg(&items);
        l.arg(&ck_at).arg(&mut out);
        // SAFETY: as above.
        unsafe { l.launch(ack.per_chunk()) }.map_err(derr("launch"))?;
        anchors = out;
        r_na = r_kept;
    }
    prof.mark(&st, "anchors")?;
    sort_ranges(&st, &k, &mut anchors, &a_off, &r_na, n_reads, total_a, chunks.sort_max)?;
    prof.mark(&st, "sort")?;

    // results
    let mv_n = st.clone_dtoh(&r_n).map_err(derr("download"))?;
    let nseed = st.clone_dtoh(&r_nseed).map_err(derr("download"))?;
    let na = st.clone_dtoh(&r_na).map_err(derr("download"))?;
    let rep = st.clone_dtoh(&r_rep).map_err(derr("download"))?;
    // each read's minimizers and mini_pos lie at its offset in buffers of `total`: up to the last read's end
    let last = |n: &[u64]| (0..n_reads).map(|r| mv_off[r] + n[r]).max().unwrap_or(0) as usize;
    // the minimizers (when kept), mini_pos and the anchors, each in one copy into one page-locked buffer, from which
    // each read's vectors are filled
    let lens = [if opt.keep_mv { 2 * last(&mv_n) } else { 0 }, last(&nseed), 2 * total_a];
    let words: usize = lens.iter().sum();
    // half again as much pinned: the next launches, about as large, reuse it
    let mut stage = rt.take_staging(8 * words, 12 * words)?;
    let seeds = (|| {
        let buf = stage.as_mut_slice().map_err(derr("staging"))?;
        let mut at = 0;
        for (src, len) in [&mv, &mini_pos, &anchors].into_iter().zip(lens) {
            if len > 0 {
                let piece = src.slice(0..len);
                let (ptr, _record) = piece.device_ptr(&st);
                // SAFETY: buf holds words words, the piece len of them; the copies are waited for before buf is read.
                unsafe { cudarc::driver::result::memcpy_dtoh_async(&mut buf[8 * at..8 * (at + len)], ptr, st.cu_stream()) }
                    .map_err(derr("download"))?;
            }
            at += len;
        }
        st.synchronize().map_err(derr("download"))?;
        prof.mark(&st, "download")?;
        prof.print(n_reads, n_bases, total, na.iter().sum::<u64>() as usize);
        // SAFETY: page-locked memory is page-aligned; the first words words were written by the copies.
        let w = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u64>(), words) };
        let (mv_h, rest) = w.split_at(lens[0]);
        let (mini_h, a_h) = rest.split_at(lens[1]);
        Ok((0..n_reads)
            .into_par_iter()
            .map(|r| {
                let (o, a) = (mv_off[r] as usize, a_off_h[r] as usize);
                let mut anchors = pairs(&a_h[2 * a..2 * (a + na[r] as usize)]);
                finish_sort(&mut anchors, chunks.sort_max);
                ReadSeeds {
                    mv: if opt.keep_mv { pairs(&mv_h[2 * o..2 * (o + mv_n[r] as usize)]) } else { vec![] },
                    hits: SeedHits { a: anchors, rep_len: rep[r], mini_pos: mini_h[o..o + nseed[r] as usize].to_vec() },
                }
            })
            .collect())
    })();
    rt.give_staging(stage);
    seeds
}

/// Every read of `reads` on the GPU, in launches of at most [`LAUNCH_BASES`] bases and
/// [`crate::gpu::LAUNCH_JOBS`] reads.
pub fn seed_batch_gpu(rt: &GpuRuntime, dev: &DeviceIndex, opt: &SeedOpt, reads: &[SeedRead]) -> DResult<Vec<ReadSeeds>> {
    let mut out = Vec::with_capacity(reads.len());
    let fault = if reads.is_empty() { fault::Batch::default() } else { fault::batch(fault::Engine::Seed) };
    for r in launch_plan(reads) {
        out.extend(seed_launch(rt, dev, opt, &reads[r], CHUNKS, &fault)?);
    }
    Ok(out)
}

/// The launches `reads` go in, in order.
pub fn launch_plan(reads: &[SeedRead]) -> Vec<std::ops::Range<usize>> {
    crate::gpu::launches(reads.len(), crate::gpu::LAUNCH_JOBS, [LAUNCH_BASES], |i| [reads[i].segs.iter().map(|s| s.len()).sum()])
}
