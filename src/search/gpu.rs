//! The batched search on the GPU (kernels/search.cu): the decomposition of [`super::engine`], step by step
//! on the device. The target's table (contiguous lists), bytes, matrix and seed go up once per target
//! ([`DeviceTable`]); each strand uploads its query and keeps `diagEnd[]` on the device from chunk to chunk.
//! Per block of query positions: hit counts and their prefix sum (downloaded only when the block holds more
//! than `max_hits` hits, to cut it into chunks); per chunk: the hits at their ordinals, a stable radix sort by
//! hashed diagonal, one thread per hashed diagonal extending its hits in ordinal order, and the extensions
//! that reach the threshold compacted in ordinal order. The host applies the entropy adjustment to those (with
//! the twin's code: the device's `log` may round differently).

use super::engine::{chunks, SearchEngine};
use super::twin::hits::{Extended, HitProcessor, DIAG_HASH_SIZE, INACTIVE};
use super::Hsp;
use crate::gpu::fault::{self, Step};
use crate::gpu::GpuRuntime;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits};
use std::sync::Arc;

const MODULE_NAME: &str = "search";
crate::kernel_struct! {
    /// Per-strand parameters, as the kernels read them (`SearchParams` in kernels/search.cu).
    struct Params { seed_len, base_bits, resolving_mask, n_parts, n_variants, x_drop, threshold, min_matches, max_transversions, cares_only, target_len, query_len }
}

/// The kernel's declaration of [`Params`], for the test that compares them.
pub fn kernel_structs() -> [(&'static str, &'static [&'static str]); 1] {
    [("SearchParams", Params::FIELDS)]
}

/// Elements one scan block takes (`SCAN_TILE`), elements of a radix-sort tile (`SORT_TILE`) and its warps
/// per block (`SORT_WARPS`).
const SCAN_TILE: usize = 1024;
const SORT_TILE: usize = 1024;
const SORT_WARPS: usize = 8;
/// Threads per block of the one-thread-per-item kernels.
const BLOCK: u32 = 256;

/// What one target's search keeps on the device for every strand.
pub struct DeviceTable {
    /// The device holding it ([`GpuRuntime::ordinal`]): its strands run there.
    ordinal: usize,
    stream: Arc<CudaStream>,
    target: CudaSlice<u8>,
    offsets: CudaSlice<u32>,
    positions: CudaSlice<u32>,
    matrix: CudaSlice<i32>,
    /// apply_seed's (shift, mask) pairs, then the variant masks.
    seed: CudaSlice<u32>,
    pattern: CudaSlice<u8>,
    params: Params,
    k: Kernels,
}

struct Kernels {
    count: CudaFunction,
    fill: CudaFunction,
    scan_tiles_u32: CudaFunction,
    scan_tiles_u64: CudaFunction,
    scan_add_u32: CudaFunction,
    scan_add_u64: CudaFunction,
    sort_hist: CudaFunction,
    sort_scatter: CudaFunction,
    bucket_count: CudaFunction,
    extend: CudaFunction,
    flags: CudaFunction,
    compact: CudaFunction,
}

fn driver(what: &str) -> impl Fn(cudarc::driver::DriverError) -> String + '_ {
    move |e| format!("search gpu {what}: {e:?}")
}

impl DeviceTable {
    /// The device holding it.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Uploads `e`'s table, target, matrix and seed.
    pub(super) fn upload(rt: &GpuRuntime, e: &SearchEngine) -> Result<DeviceTable, String> {
        let module = rt.module(MODULE_NAME)?;
        let f = |name: &str| module.load_function(name).map_err(|err| format!("loading {name}: {err:?}"));
        let k = Kernels {
            count: f("search_count")?,
            fill: f("search_fill")?,
            scan_tiles_u32: f("scan_tiles_u32")?,
            scan_tiles_u64: f("scan_tiles_u64")?,
            scan_add_u32: f("scan_add_u32")?,
            scan_add_u64: f("scan_add_u64")?,
            sort_hist: f("sort_hist")?,
            sort_scatter: f("sort_scatter")?,
            bucket_count: f("bucket_count")?,
            extend: f("search_extend")?,
            flags: f("extension_flags")?,
            compact: f("search_compact")?,
        };
        let o = &e.options;
        let seed_words: Vec<u32> = o.seed.parts.iter().flat_map(|&(shift, mask)| [shift, mask]).chain(e.variants.iter().flat_map(|&(m, allowed)| [m, allowed])).collect();
        let filter = o.filter;
        let params = Params {
            seed_len: o.seed.length as i32,
            base_bits: o.seed.base_bits as i32,
            resolving_mask: o.seed.resolving_mask as i32,
            n_parts: o.seed.parts.len() as i32,
            n_variants: e.variants.len() as i32,
            x_drop: o.x_drop,
            threshold: o.hsp_threshold,
            min_matches: filter.map_or(-1, |f| f.min_matches),
            max_transversions: filter.map_or(-1, |f| f.max_transversions),
            cares_only: filter.is_some_and(|f| f.cares_only) as i32,
            target_len: e.target.len() as i32,
            query_len: 0,
        };
        let matrix: Vec<i32> = e.scoring.0.iter().flatten().copied().collect();
        // (held until the upload ends: a lease given back at once let other threads queue on this stream)
        let lease = rt.lease_stream()?;
        let stream = Arc::clone(&lease);
        let up = driver("upload");
        let table = DeviceTable {
            ordinal: rt.ordinal(),
            target: stream.clone_htod(e.target.as_ref()).map_err(&up)?,
            offsets: stream.clone_htod(&e.index().offsets).map_err(&up)?,
            // (never empty: a device pointer must be valid)
            positions: stream.clone_htod(if e.index().positions.is_empty() { &[0][..] } else { &e.index().positions }).map_err(&up)?,
            matrix: stream.clone_htod(&matrix).map_err(&up)?,
            seed: stream.clone_htod(&seed_words).map_err(&up)?,
            pattern: stream.clone_htod(&o.seed.pattern).map_err(&up)?,
            params,
            k,
            stream,
        };
        table.stream.synchronize().map_err(driver("upload"))?;
        drop(lease);
        Ok(table)
    }
}

/// One launch of `f` over `n` items, `BLOCK` threads a block.
fn grid(n: usize) -> LaunchConfig {
    LaunchConfig { grid_dim: (n.div_ceil(BLOCK as usize).max(1) as u32, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// Device memory of `n` elements, uninitialised (every kernel writes what it later reads).
fn alloc<T: DeviceRepr>(st: &Arc<CudaStream>, n: usize) -> Result<CudaSlice<T>, String> {
    // SAFETY: callers only read what a kernel or copy wrote first.
    unsafe { st.alloc::<T>(n.max(1)) }.map_err(driver("alloc"))
}

/// The strand `query`'s HSPs, as [`SearchEngine::search_cpu`] finds them.
pub(super) fn search_strand(rt: &GpuRuntime, t: &DeviceTable, e: &SearchEngine, query: &[u8]) -> Result<Vec<Hsp>, String> {
    let seed_len = e.options.seed.length;
    let mut hsps = Vec::new();
    if (query.len() as u32) < seed_len {
        return Ok(hsps);
    }
    let st = rt.lease_stream()?;
    let fault = fault::batch(fault::Engine::Search);
    let hit = HitProcessor { target: &e.target, query, options: &e.options, scoring: &e.scoring };
    let params = Params { query_len: query.len() as i32, ..t.params };
    fault.check(Step::Copy)?;
    let up = driver("upload");
    let d_query = st.clone_htod(query).map_err(&up)?;
    let d_params = st.clone_htod(params.as_ints()).map_err(&up)?;
    let mut d_diag_end = st.clone_htod(&vec![INACTIVE; DIAG_HASH_SIZE as usize]).map_err(&up)?;
    let ends = seed_len..query.len() as u32 + 1;
    let mut block = ends.start;
    let mut first_launch = true;
    while block < ends.end {
        let block_end = ends.end.min(block.saturating_add(e.config.block_positions.max(1) as u32));
        let n = (block_end - block) as usize;
        fault.check(Step::Alloc)?;
        let mut d_counts = alloc::<u64>(&st, n)?;
        if std::mem::take(&mut first_launch) {
            fault.check(Step::Launch)?;
        }
        let mut l = st.launch_builder(&t.k.count);
        let n32 = n as u32;
        l.arg(&d_params).arg(&t.seed).arg(&t.offsets).arg(&t.positions).arg(&t.target).arg(&d_query).arg(&block).arg(&n32).arg(&mut d_counts);
        // SAFETY: the arguments match search_count's; counts holds n entries, the windows lie in the query.
        unsafe { l.launch(grid(n)) }.map_err(driver("launch"))?;
        let mut d_offs = alloc::<u64>(&st, n + 1)?;
        scan(&st, (&t.k.scan_tiles_u64, &t.k.scan_add_u64), &d_counts, n, &mut d_offs)?;
        let mut total = [0u64];
        fault.check(Step::Sync)?;
        st.memcpy_dtoh(&d_offs.slice(n..n + 1), &mut total).map_err(driver("download"))?;
        // the block in chunks of at most max_hits hits: the counts come down only when it must be cut
        let parts = if total[0] <= e.config.max_hits as u64 {
            vec![(0..n32, total[0] as usize)]
        } else {
            let counts = st.clone_dtoh(&d_counts).map_err(driver("download"))?;
            chunks(&counts, e.config.max_hits)
        };
        let mut first_hit = 0u64;
        for (r, n_hits) in parts {
            if n_hits > 0 {
                assert!(n_hits < u32::MAX as usize, "a chunk's ordinals are u32");
                let kept = chunk(&st, t, &d_params, &d_query, &d_offs, block, r, first_hit, n_hits, &mut d_diag_end)?;
                hsps.extend(kept.chunks_exact(5).filter_map(|k| {
                    let [pos1, pos2, length, similarity, hit_pos2] = [k[0], k[1], k[2], k[3], k[4]];
                    hit.threshold(Extended { pos1: pos1 as u32, pos2: pos2 as u32, length: length as u32, similarity }, hit_pos2 as u32)
                }));
            }
            first_hit += n_hits as u64;
        }
        block = block_end;
    }
    Ok(hsps)
}

/// Steps 1 to 4 for the positions `block + r` (ordinals from `first_hit` in `offs`, `n_hits` of them):
/// the extensions that reach the threshold before the entropy step, in ordinal order, as (start1, start2,
/// length, similarity, the seed hit's end in the query).
#[allow(clippy::too_many_arguments)]
fn chunk(
    st: &Arc<CudaStream>,
    t: &DeviceTable,
    d_params: &CudaSlice<i32>,
    d_query: &CudaSlice<u8>,
    d_offs: &CudaSlice<u64>,
    block: u32,
    r: std::ops::Range<u32>,
    first_hit: u64,
    n_hits: usize,
    d_diag_end: &mut CudaSlice<u32>,
) -> Result<Vec<i32>, String> {
    let launch = driver("launch");
    let n = n_hits as u32;
    // 1. hits
    let (mut hit1, mut hit2) = (alloc::<u32>(st, n_hits)?, alloc::<u32>(st, n_hits)?);
    let (pos_base, n_pos) = (block + r.start, r.end - r.start);
    let offs = d_offs.slice(r.start as usize..r.end as usize);
    let mut l = st.launch_builder(&t.k.fill);
    l.arg(d_params).arg(&t.seed).arg(&t.offsets).arg(&t.positions).arg(&t.target).arg(d_query).arg(&pos_base).arg(&n_pos).arg(&offs).arg(&first_hit);
    l.arg(&mut hit1).arg(&mut hit2);
    // SAFETY: the arguments match search_fill's; the positions' ordinals minus first_hit lie in 0..n_hits.
    unsafe { l.launch(grid(n_pos as usize)) }.map_err(&launch)?;

    // 2. group: two stable passes of 8 bits
    let n_tiles = n_hits.div_ceil(SORT_TILE);
    let tiles_cfg = LaunchConfig { grid_dim: (n_tiles.div_ceil(SORT_WARPS) as u32, 1, 1), block_dim: (32 * SORT_WARPS as u32, 1, 1), shared_mem_bytes: 0 };
    let (mut tmp, mut sorted) = (alloc::<u32>(st, n_hits)?, alloc::<u32>(st, n_hits)?);
    let mut hist = alloc::<u32>(st, 256 * n_tiles)?;
    let mut hist_ex = alloc::<u32>(st, 256 * n_tiles + 1)?;
    let n_tiles32 = n_tiles as u32;
    for (shift, identity) in [(0i32, 1i32), (8, 0)] {
        let (input, output) = if identity == 1 { (&sorted, &mut tmp) } else { (&tmp, &mut sorted) };
        let mut l = st.launch_builder(&t.k.sort_hist);
        l.arg(&hit1).arg(&hit2).arg(input).arg(&identity).arg(&n).arg(&shift).arg(&mut hist).arg(&n_tiles32);
        // SAFETY: the arguments match sort_hist's; hist holds 256 entries per tile.
        unsafe { l.launch(tiles_cfg) }.map_err(&launch)?;
        scan(st, (&t.k.scan_tiles_u32, &t.k.scan_add_u32), &hist, 256 * n_tiles, &mut hist_ex)?;
        let mut l = st.launch_builder(&t.k.sort_scatter);
        l.arg(&hit1).arg(&hit2).arg(input).arg(&identity).arg(&n).arg(&shift).arg(&hist_ex).arg(&n_tiles32).arg(output);
        // SAFETY: the arguments match sort_scatter's; the slots hist_ex gives lie in 0..n_hits.
        unsafe { l.launch(tiles_cfg) }.map_err(&launch)?;
    }
    let mut buckets = st.alloc_zeros::<u32>(DIAG_HASH_SIZE as usize).map_err(driver("alloc"))?;
    let mut starts = alloc::<u32>(st, DIAG_HASH_SIZE as usize + 1)?;
    let mut l = st.launch_builder(&t.k.bucket_count);
    l.arg(&hit1).arg(&hit2).arg(&n).arg(&mut buckets);
    // SAFETY: the arguments match bucket_count's; buckets holds every hashed diagonal.
    unsafe { l.launch(grid(n_hits)) }.map_err(&launch)?;
    scan(st, (&t.k.scan_tiles_u32, &t.k.scan_add_u32), &buckets, DIAG_HASH_SIZE as usize, &mut starts)?;

    // 3. extend
    let (mut sim, mut start1, mut len) = (alloc::<i32>(st, n_hits)?, alloc::<u32>(st, n_hits)?, alloc::<u32>(st, n_hits)?);
    let mut l = st.launch_builder(&t.k.extend);
    l.arg(d_params).arg(&t.target).arg(d_query).arg(&t.matrix).arg(&t.pattern).arg(&hit1).arg(&hit2).arg(&sorted).arg(&starts);
    l.arg(&mut *d_diag_end).arg(&mut sim).arg(&mut start1).arg(&mut len);
    // SAFETY: the arguments match search_extend's; every hit is in one hashed diagonal's run of sorted.
    unsafe { l.launch(grid(DIAG_HASH_SIZE as usize)) }.map_err(&launch)?;

    // 4. order: the kept extensions compacted by ordinal
    let mut flags = alloc::<u32>(st, n_hits)?;
    let mut l = st.launch_builder(&t.k.flags);
    l.arg(&sim).arg(&n).arg(&mut flags);
    // SAFETY: the arguments match extension_flags'.
    unsafe { l.launch(grid(n_hits)) }.map_err(&launch)?;
    let mut slots = alloc::<u32>(st, n_hits + 1)?;
    scan(st, (&t.k.scan_tiles_u32, &t.k.scan_add_u32), &flags, n_hits, &mut slots)?;
    let mut n_kept = [0u32];
    st.memcpy_dtoh(&slots.slice(n_hits..n_hits + 1), &mut n_kept).map_err(driver("download"))?;
    let n_kept = n_kept[0] as usize;
    if n_kept == 0 {
        return Ok(Vec::new());
    }
    let mut kept = alloc::<i32>(st, 5 * n_kept)?;
    let mut l = st.launch_builder(&t.k.compact);
    l.arg(&slots).arg(&hit1).arg(&hit2).arg(&sim).arg(&start1).arg(&len).arg(&n).arg(&mut kept);
    // SAFETY: the arguments match search_compact's; the slots lie in 0..n_kept.
    unsafe { l.launch(grid(n_hits)) }.map_err(&launch)?;
    st.clone_dtoh(&kept).map_err(driver("download"))
}

/// Exclusive prefix sums of `input[..n]` into `out[..=n]` (`out[n]`: the total), a tile per block, the
/// tiles' totals scanned the same way.
fn scan<T: DeviceRepr + ValidAsZeroBits>(
    st: &Arc<CudaStream>,
    (tiles, add): (&CudaFunction, &CudaFunction),
    input: &CudaSlice<T>,
    n: usize,
    out: &mut CudaSlice<T>,
) -> Result<(), String> {
    let n_blocks = (n + 1).div_ceil(SCAN_TILE);
    let cfg = LaunchConfig { grid_dim: (n_blocks as u32, 1, 1), block_dim: ((SCAN_TILE / 4) as u32, 1, 1), shared_mem_bytes: 0 };
    let mut sums = alloc::<T>(st, n_blocks)?;
    let n64 = n as u64;
    let mut l = st.launch_builder(tiles);
    l.arg(input).arg(&n64).arg(&mut *out).arg(&mut sums);
    // SAFETY: the arguments match scan_tiles_*'s; out holds n + 1 entries, sums one per block.
    unsafe { l.launch(cfg) }.map_err(driver("launch"))?;
    if n_blocks > 1 {
        let mut sums_ex = alloc::<T>(st, n_blocks + 1)?;
        scan(st, (tiles, add), &sums, n_blocks, &mut sums_ex)?;
        let mut l = st.launch_builder(add);
        l.arg(&mut *out).arg(&n64).arg(&sums_ex);
        // SAFETY: the arguments match scan_add_*'s.
        unsafe { l.launch(cfg) }.map_err(driver("launch"))?;
    }
    Ok(())
}
