//! The ksw scheduler: a speculation cache that lets a tool keep its own control flow and still run its ksw
//! calls as large batches (on the GPU when there is one).
//!
//! 1. Record passes: the tool runs its unchanged control flow and asks the cache for every call
//!    ([`KswCache::get_extd2`] etc. with `record = true`). A known call is answered exactly; an unknown one
//!    is recorded and the tool goes on with a stand-in result of its own, so later calls that depend on it
//!    may be guesses (recorded too, possibly wasted work).
//! 2. [`KswCache::compute`] runs every recorded call, one batch per kind.
//! 3. More record passes find the calls that depended on earlier answers; then the final pass asks with
//!    `record = false` and computes its rare misses itself. Its output is exact by construction: every
//!    answer is the engine's result for exactly the bytes the call passed (the key is the whole call,
//!    compared byte for byte, not a hash of it).
//!
//! Answers stay until [`KswCache::clear`]; an answer's CIGAR is lent to the caller until the thread's next
//! lookup.
//!
//! Stored compactly (a batch of minimap2's reads records about four calls per kb): a key is the call's dump
//! record (dump.rs) with its query and target packed four bases to a byte when every base is below 4 (A, C,
//! G, T; minimap2's N is 4). Each record has one key and each key one record, so keys are still equal
//! exactly when the calls are. Answers are varints. Keys and answers go into blocks that each shard keeps from
//! batch to batch ([`Slab`]): a lookup allocates nothing, and the next batch writes into pages already mapped
//! (16 threads recording through malloc took about 5 us a call against 0.8 on one, and the fresh pages' faults
//! cost system time on the GPU machine).

use super::dump::{self, record_job, DumpKind, RecordJob, FIXED};
use super::{KswExtd2Job, KswExts2Job, KswExtz2Job, KswResult};
use crate::memory::try_from_fn;
use crate::varint;
use crate::{Backend, Engine, Result};
use hashbrown::HashTable;
use std::cell::RefCell;
use std::hash::Hasher;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use rayon::prelude::*;
use std::sync::Mutex;
use std::time::Instant;

const SHARDS: usize = 64;

/// extd2 rates (cells per second) before any is measured: an H100 runs minimap2's jobs at 20-50 GCUPS,
/// 16 cores of the twin at about 7 beside the GPU's host work (6.7 measured on the ultra-long ONT set).
const INITIAL_GPU_RATE: f64 = 30e9;
const INITIAL_CPU_RATE: f64 = 7e9;

/// `WARPALIGN_TRACE=1`: one stderr line per compute step, for tuning.
fn trace() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| crate::env::TRACE.get().unwrap_or(false))
}

/// A speculation cache's counters since they were last taken.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct KswCacheStats {
    /// Calls recorded (distinct).
    pub recorded: u64,
    /// DP cells of the recorded calls (band-limited `qlen * tlen`).
    pub recorded_cells: u64,
    /// `compute` calls that had work (rounds).
    pub rounds: u64,
    /// Recorded calls computed on the GPU / on the CPU.
    pub gpu_jobs: u64,
    pub cpu_jobs: u64,
    /// Wall time inside `compute`, nanoseconds.
    pub compute_ns: u64,
    /// Final-pass (`record = false`) lookups answered / missed.
    pub hits: u64,
    pub misses: u64,
    /// Recorded calls no final-pass lookup used (speculation that turned out wrong), counted at `clear`.
    pub unused: u64,
    pub unused_cells: u64,
}

#[derive(Default)]
struct Counters {
    /// A shard's lookups count under its lock (see [`Shard`]); these get them at `clear`.
    recorded: AtomicU64,
    recorded_cells: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    rounds: AtomicU64,
    gpu_jobs: AtomicU64,
    cpu_jobs: AtomicU64,
    compute_ns: AtomicU64,
    unused: AtomicU64,
    unused_cells: AtomicU64,
}

/// Hashes a call's bytes a word at a time: keys hold whole sequences (hundreds of bytes to megabytes), so
/// SipHash cost more than the lookups themselves. Equality is still checked byte for byte.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut h = self.0;
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            h = (h ^ u64::from_le_bytes(w.try_into().unwrap())).wrapping_mul(K).rotate_left(29);
        }
        let mut tail = [0u8; 8];
        tail[..words.remainder().len()].copy_from_slice(words.remainder());
        self.0 = (h ^ u64::from_le_bytes(tail) ^ bytes.len() as u64).wrapping_mul(K);
    }

    fn finish(&self) -> u64 {
        // murmur3's finaliser: every output bit depends on every input bit
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

fn key_hash(key: &[u8]) -> u64 {
    let mut h = KeyHasher::default();
    h.write(key);
    h.finish()
}

/// Bytes in a shard's [`Slab`]: they stay where they are, unchanged, until the cache is cleared.
#[derive(Clone, Copy)]
struct Bytes {
    ptr: *const u8,
    len: usize,
}

// SAFETY: a `Bytes` is only read, and its slab block outlives every reader: blocks are reset or freed by
// `clear`, which no lookup or compute overlaps, and by drop.
unsafe impl Send for Bytes {}
unsafe impl Sync for Bytes {}

impl Bytes {
    fn get(&self) -> &[u8] {
        // SAFETY: written once by `Slab::put` before this `Bytes` was made, then never changed or moved until
        // `clear` (see above).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// Blocks that keys and answers are copied into, never moved: a recorded key can be read by a compute while
/// lookups go on writing. `reset` keeps the small blocks for the next batch.
#[derive(Default)]
struct Slab {
    blocks: Vec<Box<[u8]>>,
    /// The block being filled and the bytes used in it.
    at: usize,
    used: usize,
    /// Values too large for a block, each in its own allocation, freed at `reset`.
    large: Vec<Box<[u8]>>,
}

impl Slab {
    /// 64 shards of a few blocks hold a batch of ultra-long ONT reads (about 8 MB of keys and answers).
    const BLOCK: usize = 64 << 10;
    /// Blocks a shard keeps across batches; more are freed.
    const KEEP: usize = 8;

    /// A copy of `bytes`; None when the memory cannot be had.
    fn put(&mut self, bytes: &[u8]) -> Option<Bytes> {
        let len = bytes.len();
        let dst: &mut [u8] = if len > Self::BLOCK / 4 {
            let mut b = crate::memory::try_zeroed::<u8>(len).ok()?.into_boxed_slice();
            let ptr: *mut [u8] = &mut *b;
            crate::memory::try_push(&mut self.large, b).ok()?;
            // SAFETY: the box's heap block does not move when the box does.
            unsafe { &mut *ptr }
        } else {
            if self.blocks.is_empty() || self.used + len > Self::BLOCK {
                if !self.blocks.is_empty() {
                    self.at += 1;
                }
                if self.at == self.blocks.len() {
                    let b = crate::memory::try_zeroed::<u8>(Self::BLOCK).ok()?.into_boxed_slice();
                    crate::memory::try_push(&mut self.blocks, b).ok()?;
                }
                self.used = 0;
            }
            let at = self.used;
            self.used += len;
            &mut self.blocks[self.at][at..at + len]
        };
        dst.copy_from_slice(bytes);
        Some(Bytes { ptr: dst.as_ptr(), len })
    }

    /// Forgets every value, keeping up to `KEEP` blocks for the next batch.
    fn reset(&mut self) {
        self.blocks.truncate(Self::KEEP);
        self.large = Vec::new();
        (self.at, self.used) = (0, 0);
    }
}

/// A call: its key's hash, its key and, once computed, its answer (`pack_answer`).
struct Entry {
    hash: u64,
    key: Bytes,
    answer: Option<Bytes>,
    /// A final-pass lookup took the answer.
    used: bool,
}

/// A recorded call not yet computed: its key's hash and its key.
type Pending = (u64, Bytes);

/// Calls by their keys, the recorded ones not yet computed, and their bytes; the lookups' counters are kept
/// here, under the shard's lock, rather than in atomics that every lookup of every thread would write.
#[derive(Default)]
struct Shard {
    map: HashTable<Entry>,
    pending: Vec<Pending>,
    slab: Slab,
    recorded: u64,
    recorded_cells: u64,
    hits: u64,
    misses: u64,
}

// SAFETY: the raw pointers of a shard's entries and pending keys point into its own slab (see `Bytes`).
unsafe impl Send for Shard {}

/// A shard's lock and data on cache lines of their own: threads looking up in different shards do not
/// write the same line.
#[repr(align(128))]
struct PaddedShard(Mutex<Shard>);

impl Shard {
    fn find_mut(&mut self, hash: u64, key: &[u8]) -> Option<&mut Entry> {
        self.map.find_mut(hash, |e| e.key.get() == key)
    }
}

pub struct KswCache {
    shards: Box<[PaddedShard]>,
    counters: Counters,
    /// The latest measured extd2 rates (cells per second) of the GPU and of the CPU twin: a split gives
    /// each side its share of the cells.
    rates: Mutex<(f64, f64)>,
    /// When the extd2 batch a background compute is running on the GPU should be done, by those rates:
    /// a split meanwhile gives the GPU that much less.
    gpu_busy_until: Mutex<Option<Instant>>,
}

impl Default for KswCache {
    fn default() -> Self {
        Self::new()
    }
}

/// A thread's lookup: the call's record and key, and the CIGAR of the answer it lends.
#[derive(Default)]
struct Lookup {
    record: Vec<u8>,
    key: Vec<u8>,
    cigar: Vec<u32>,
}

thread_local! {
    static LOOKUP: RefCell<Lookup> = RefCell::new(Lookup::default());
}

/// Recorded calls computed at a time, at most this many and this many bytes of their records: a compute
/// unpacks their sequences and keeps a few hundred bytes of results and bookkeeping per call, so this bounds
/// what it adds to the cache's memory. On an H200, GPU batches of 10 to 63 thousand calls of ultra-long ONT
/// reads (about 700 bytes a record: the call count binds) ran at 11 to 34 GCUPS, with no trend in their
/// size; splice calls (several kb a record: the bytes bind) ran 15-25% faster end to end in chunks of 64 MB
/// than of 16 MB.
const COMPUTE_CHUNK_JOBS: usize = 32 << 10;
const COMPUTE_CHUNK_BYTES: usize = 64 << 20;

/// Buffers that computes unpack their records into, kept for the next compute: a batch's records are tens of
/// MB, and pages mapped afresh for each cost more (in faults) than writing zeros over kept ones.
static RECORDS_BUFFERS: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
const RECORDS_BUFFERS_KEPT: usize = 2;

/// `n` zero bytes, in a kept buffer when there is one.
fn records_buffer(n: usize) -> std::result::Result<Vec<u8>, crate::memory::OutOfMemory> {
    let kept = RECORDS_BUFFERS.lock().unwrap_or_else(|p| p.into_inner()).pop();
    let Some(mut b) = kept else {
        return crate::memory::try_zeroed(n);
    };
    b.clear();
    crate::memory::try_resize(&mut b, n, 0)?;
    Ok(b)
}

fn give_back_records_buffer(b: Vec<u8>) {
    let mut kept = RECORDS_BUFFERS.lock().unwrap_or_else(|p| p.into_inner());
    if kept.len() < RECORDS_BUFFERS_KEPT {
        kept.push(b);
    }
}

/// The key's byte after the record's fixed part: how the sequences follow.
const SEQ_PACKED: u8 = 1; // four bases to a byte, the first in the low bits
const SEQ_RAW: u8 = 0; // as in the record

/// Bytes of the query and target that follow a record's (or key's) fixed part.
fn seq_len(fixed: &[u8]) -> usize {
    let len = |at: usize| i32::from_le_bytes(fixed[at..at + 4].try_into().unwrap()).max(0) as usize;
    len(26) + len(30)
}

/// Appends `seq` packed four bases to a byte (the first in the low bits) and returns true, or returns false
/// leaving `out` as it was when a byte is 4 or more. 32 bases a step: keys are packed at every lookup.
fn pack_bases(seq: &[u8], out: &mut Vec<u8>) -> bool {
    // each byte's two bits gathered: pairs of bytes, then of pairs, then of quads; None if a byte is over 3
    let pack8 = |w: &[u8]| {
        let mut x = u64::from_le_bytes(w.try_into().unwrap());
        if x & 0xfcfc_fcfc_fcfc_fcfc != 0 {
            return None;
        }
        x = (x | x >> 6) & 0x000f_000f_000f_000f;
        x = (x | x >> 12) & 0x0000_00ff_0000_00ff;
        Some((x | x >> 24) & 0xffff)
    };
    let start = out.len();
    out.reserve(seq.len().div_ceil(4));
    let blocks = seq.chunks_exact(32);
    let rest = blocks.remainder();
    for b in blocks {
        match (pack8(&b[..8]), pack8(&b[8..16]), pack8(&b[16..24]), pack8(&b[24..])) {
            (Some(w0), Some(w1), Some(w2), Some(w3)) => out.extend_from_slice(&(w0 | w1 << 16 | w2 << 32 | w3 << 48).to_le_bytes()),
            _ => {
                out.truncate(start);
                return false;
            }
        }
    }
    let words = rest.chunks_exact(8);
    let last = words.remainder();
    for w in words {
        let Some(x) = pack8(w) else {
            out.truncate(start);
            return false;
        };
        out.extend_from_slice(&(x as u16).to_le_bytes());
    }
    if last.iter().any(|&b| b > 3) {
        out.truncate(start);
        return false;
    }
    out.extend(last.chunks(4).map(|quad| quad.iter().rev().fold(0, |byte, &b| byte << 2 | b)));
    true
}

/// Four bases of each packed byte.
const UNPACKED: [[u8; 4]; 256] = {
    let mut t = [[0; 4]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [i as u8 & 3, i as u8 >> 2 & 3, i as u8 >> 4 & 3, i as u8 >> 6];
        i += 1;
    }
    t
};

/// The key of a record made by `encode_*`.
fn pack_key(record: &[u8], key: &mut Vec<u8>) {
    let (fixed, rest) = record.split_at(FIXED);
    let (seq, tail) = rest.split_at(seq_len(fixed));
    key.clear();
    key.extend_from_slice(fixed);
    key.push(SEQ_PACKED);
    if !pack_bases(seq, key) {
        key[FIXED] = SEQ_RAW;
        key.extend_from_slice(seq);
    }
    key.extend_from_slice(tail);
}

/// The length of a key's record; None for a malformed key.
fn record_len(key: &[u8]) -> Option<usize> {
    let n = seq_len(key.get(..FIXED)?);
    let packed = match *key.get(FIXED)? {
        SEQ_PACKED => n.div_ceil(4),
        SEQ_RAW => n,
        _ => return None,
    };
    (key.len() - FIXED - 1).checked_sub(packed).map(|tail| FIXED + n + tail)
}

/// Writes a key's record into `record` (exactly `record_len(key)` bytes).
fn unpack_key(key: &[u8], record: &mut [u8]) {
    let n = seq_len(&key[..FIXED]);
    let (fixed, seq_tail) = record.split_at_mut(FIXED);
    let (seq, tail) = seq_tail.split_at_mut(n);
    fixed.copy_from_slice(&key[..FIXED]);
    let body = &key[FIXED + 1..];
    let packed = if key[FIXED] == SEQ_PACKED { n.div_ceil(4) } else { n };
    if key[FIXED] == SEQ_PACKED {
        let (quads, last) = seq.split_at_mut(n / 4 * 4);
        for (quad, &byte) in quads.chunks_exact_mut(4).zip(body) {
            quad.copy_from_slice(&UNPACKED[byte as usize]);
        }
        if !last.is_empty() {
            last.copy_from_slice(&UNPACKED[body[n / 4] as usize][..last.len()]);
        }
    } else {
        seq.copy_from_slice(&body[..n]);
    }
    tail.copy_from_slice(&body[packed..]);
}

/// Appends an answer: every field but the CIGAR pointer, then the CIGAR's operations, each a varint (a run
/// under 8 takes one byte): about a third of a `KswResult` and its `malloc`ed CIGAR.
fn pack_answer(r: &KswResult, out: &mut Vec<u8>) {
    let fields = [r.max as i32, r.zdropped, r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end, r.n_cigar];
    for v in fields {
        varint::put(out, varint::zigzag(v as i64));
    }
    for &op in r.cigar() {
        varint::put(out, op as u64);
    }
}

/// An answer as `pack_answer` stored it, its CIGAR in `cigar` (null when it has none); None when malformed.
fn unpack_answer(bytes: &[u8], cigar: &mut Vec<u32>) -> Option<KswResult> {
    let mut at = 0;
    let mut field = || varint::take(bytes, &mut at).and_then(|v| i32::try_from(varint::unzigzag(v)).ok());
    let (max, zdropped, max_q, max_t, mqe) = (field()? as u32, field()?, field()?, field()?, field()?);
    let (mqe_t, mte, mte_q, score, reach_end, n_cigar) = (field()?, field()?, field()?, field()?, field()?, field()?);
    cigar.clear();
    for _ in 0..n_cigar.max(0) {
        cigar.push(u32::try_from(varint::take(bytes, &mut at)?).ok()?);
    }
    if at != bytes.len() {
        return None;
    }
    let cigar = if n_cigar > 0 { cigar.as_mut_ptr() } else { std::ptr::null_mut() };
    Some(KswResult { max, zdropped, max_q, max_t, mqe, mqe_t, mte, mte_q, score, reach_end, n_cigar, cigar })
}

/// DP cells of a call inside its band (`w < 0` or no band: the whole matrix); ignores Z-drop.
pub fn band_cells(qlen: i32, tlen: i32, w: i32) -> u64 {
    if qlen <= 0 || tlen <= 0 {
        return 0;
    }
    let (q, t) = (qlen as i64, tlen as i64);
    if w < 0 || w as i64 >= q.max(t) {
        return (q * t) as u64;
    }
    let w = w as i64;
    // Rows i of the target with columns max(0, i-w) ..= min(q-1, i+w).
    let row = |i: i64| ((i + w).min(q - 1) - (i - w).max(0) + 1).max(0);
    let (full_from, full_to) = (w, (q - 1 - w).min(t - 1)); // rows whose band is 2w+1 wide
    if full_from > full_to {
        return (0..t).map(row).sum::<i64>() as u64;
    }
    let edges: i64 = (0..full_from).chain(full_to + 1..t).map(row).sum();
    (edges + (full_to - full_from + 1) * (2 * w + 1)) as u64
}

fn key_cells(key: &[u8]) -> u64 {
    let i = |k: usize| i32::from_le_bytes(key[10 + 4 * k..14 + 4 * k].try_into().unwrap());
    let (w, qlen, tlen) = (i(0), i(4), i(5));
    band_cells(qlen, tlen, if key[0] == DumpKind::Exts2 as u8 { -1 } else { w })
}

/// Runs one kind's jobs (`(index into results, job)`) with `f`, which says how many ran on the GPU and CPU.
fn run_kind<J>(
    counters: &Counters,
    results: &mut [KswResult],
    idx_jobs: Vec<(usize, J)>,
    f: impl FnOnce(&[J], &mut [KswResult]) -> Result<(usize, usize)>,
) -> Result<()> {
    if idx_jobs.is_empty() {
        return Ok(());
    }
    let (idx, jobs): (Vec<usize>, Vec<J>) = idx_jobs.into_iter().unzip();
    let mut out = try_from_fn(idx.len(), |_| KswResult::EMPTY).map_err(|e| e.in_batch("ksw cache results"))?;
    let (on_gpu, on_cpu) = f(&jobs, &mut out)?;
    counters.gpu_jobs.fetch_add(on_gpu as u64, Relaxed);
    counters.cpu_jobs.fetch_add(on_cpu as u64, Relaxed);
    for (i, r) in idx.into_iter().zip(out) {
        results[i] = r;
    }
    Ok(())
}

impl KswCache {
    pub fn new() -> Self {
        KswCache {
            shards: (0..SHARDS).map(|_| PaddedShard(Mutex::new(Shard::default()))).collect(),
            counters: Counters::default(),
            rates: Mutex::new((INITIAL_GPU_RATE, INITIAL_CPU_RATE)),
            gpu_busy_until: Mutex::new(None),
        }
    }

    /// The shard of a key's hash: bits that the shard's table uses neither for buckets (low) nor tags (top 7).
    fn shard_of(hash: u64) -> usize {
        (hash >> 40) as usize % SHARDS
    }

    fn lock(&self, shard: usize) -> std::sync::MutexGuard<'_, Shard> {
        self.shards[shard].0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Answers the call of `key` into `out` (its CIGAR in `cigar`) and returns true; or returns false,
    /// recording the call when `record`.
    fn get(&self, key: &[u8], record: bool, out: &mut KswResult, cigar: &mut Vec<u32>) -> bool {
        let hash = key_hash(key);
        let mut shard = self.lock(Self::shard_of(hash));
        if let Some(e) = shard.find_mut(hash, key) {
            if let Some(answer) = e.answer {
                *out = unpack_answer(answer.get(), cigar).expect("ksw cache: a malformed answer");
                if !record {
                    e.used = true;
                    shard.hits += 1;
                }
                return true;
            }
        } else if record {
            // without the memory the call stays unknown: the final pass computes it on the spot
            let Shard { map, pending, slab, recorded, recorded_cells, .. } = &mut *shard;
            if let Some(bytes) = slab.put(key) {
                if crate::memory::try_push(pending, (hash, bytes)).is_ok() {
                    *recorded += 1;
                    *recorded_cells += key_cells(key);
                    map.insert_unique(hash, Entry { hash, key: bytes, answer: None, used: false }, |e| e.hash);
                }
            }
        }
        if !record {
            shard.misses += 1;
        }
        false
    }

    fn get_encoded<J>(&self, job: &J, record: bool, out: &mut KswResult, encode: unsafe fn(&mut Vec<u8>, &J)) -> bool {
        LOOKUP.with(|l| {
            let Lookup { record: record_bytes, key, cigar } = &mut *l.borrow_mut();
            record_bytes.clear();
            // SAFETY: the caller guarantees the job's pointers cover its lengths.
            unsafe { encode(record_bytes, job) };
            pack_key(record_bytes, key);
            self.get(key, record, out, cigar)
        })
    }

    /// Looks a `ksw_extd2_sse` call up (see the module doc). On a hit `out` is overwritten without freeing
    /// what it held, and its CIGAR belongs to the cache: do not free it; it is valid until this thread's next
    /// lookup (of any cache).
    ///
    /// # Safety
    /// The job's pointers cover its lengths (as for a batch call).
    pub unsafe fn get_extd2(&self, job: &KswExtd2Job, record: bool, out: &mut KswResult) -> bool {
        self.get_encoded(job, record, out, dump::encode_extd2)
    }

    /// As [`KswCache::get_extd2`], for `ksw_exts2_sse`.
    ///
    /// # Safety
    /// As [`KswCache::get_extd2`].
    pub unsafe fn get_exts2(&self, job: &KswExts2Job, record: bool, out: &mut KswResult) -> bool {
        self.get_encoded(job, record, out, dump::encode_exts2)
    }

    /// As [`KswCache::get_extd2`], for `ksw_extz2_sse`.
    ///
    /// # Safety
    /// As [`KswCache::get_extd2`].
    pub unsafe fn get_extz2(&self, job: &KswExtz2Job, record: bool, out: &mut KswResult) -> bool {
        self.get_encoded(job, record, out, dump::encode_extz2)
    }

    /// Computes every recorded call, one batch per kind; returns how many it computed. extd2 calls are
    /// split between the GPU and the CPU twin by their measured rates. Lookups and other `compute` calls
    /// may run meanwhile (lookups see the recorded calls as unknown until their batch is done).
    pub fn compute(&self, engine: &Engine) -> Result<usize> {
        self.compute_with(engine, true)
    }

    /// As [`KswCache::compute`], but extd2 calls run on the context's backend alone (the GPU when there is
    /// one), leaving the CPU to the caller: for computing ahead while the tool's threads record more.
    pub fn compute_background(&self, engine: &Engine) -> Result<usize> {
        self.compute_with(engine, false)
    }

    /// Runs `f`, whose parallel loops are short and never wait on GPU work, on the GPU's host threads when a
    /// background compute has a GPU (the global pool may be busy with the twin's share of a batch). A whole
    /// compute must not run there: it waits on GPU lanes, which need those threads to pack their launches.
    fn host_side<R: Send>(engine: &Engine, split: bool, f: impl FnOnce() -> R + Send) -> R {
        if !split && engine.has_gpu() {
            super::gpu::host_pool().install(f)
        } else {
            f()
        }
    }

    fn compute_with(&self, engine: &Engine, split: bool) -> Result<usize> {
        let t0 = Instant::now();
        // taken whole: a shard's list would keep its largest size
        let pending: Vec<Vec<Pending>> = (0..SHARDS).map(|i| std::mem::take(&mut self.lock(i).pending)).collect();
        let mut keys: Vec<Pending> = Vec::with_capacity(pending.iter().map(Vec::len).sum());
        pending.into_iter().for_each(|p| keys.extend(p));
        let n = keys.len();
        if n == 0 {
            return Ok(0);
        }
        let bad = || crate::Error::Internal("ksw cache: a malformed key".into());
        while !keys.is_empty() {
            // the calls taken and not yet computed when one fails stay unanswered: lookups miss them
            let (mut end, mut bytes) = (0, 0);
            let mut lens = Vec::new();
            while end < keys.len() && end < COMPUTE_CHUNK_JOBS {
                let len = record_len(keys[end].1.get()).ok_or_else(bad)?;
                if end > 0 && bytes + len > COMPUTE_CHUNK_BYTES {
                    break;
                }
                (bytes, end) = (bytes + len, end + 1);
                lens.push(len);
            }
            let chunk: Vec<_> = keys.drain(..end).collect();
            self.compute_chunk(engine, split, &chunk, &lens)?;
        }
        self.counters.rounds.fetch_add(1, Relaxed);
        self.counters.compute_ns.fetch_add(t0.elapsed().as_nanos() as u64, Relaxed);
        Ok(n)
    }

    /// Computes the calls of `keys` (their records `lens[i]` bytes long) and stores their answers.
    fn compute_chunk(&self, engine: &Engine, split: bool, keys: &[Pending], lens: &[usize]) -> Result<()> {
        let t0 = Instant::now();
        let mut records = records_buffer(lens.iter().sum()).map_err(|e| e.in_batch("ksw cache records"))?;
        let mut parts: Vec<&mut [u8]> = Vec::with_capacity(keys.len());
        let mut rest = records.as_mut_slice();
        for &len in lens {
            let (part, tail) = rest.split_at_mut(len);
            parts.push(part);
            rest = tail;
        }
        Self::host_side(engine, split, || parts.par_iter_mut().zip(keys).for_each(|(part, (_, k))| unpack_key(k.get(), part)));
        let (mut extd2, mut exts2, mut extz2) = (Vec::new(), Vec::new(), Vec::new());
        for (i, r) in parts.iter().enumerate() {
            match record_job(r).ok_or_else(|| crate::Error::Internal("ksw cache: a malformed key".into()))? {
                RecordJob::Extd2(j) => extd2.push((i, j)),
                RecordJob::Exts2(j) => exts2.push((i, j)),
                RecordJob::Extz2(j) => extz2.push((i, j)),
            }
        }
        let mut results = try_from_fn(keys.len(), |_| KswResult::EMPTY).map_err(|e| e.in_batch("ksw cache results"))?;
        let t_unpacked = Instant::now();
        let c = &self.counters;
        let ran = run_kind(c, &mut results, extd2, |js, out| if split { self.extd2_split(engine, js, out) } else { self.extd2_alone(engine, js, out) })
            .and_then(|()| {
                run_kind(c, &mut results, exts2, |js, out| {
                    super::exts2_run(engine, js, out).map(|b| if b == Backend::Gpu { (js.len(), 0) } else { (0, js.len()) })
                })
            })
            .and_then(|()| run_kind(c, &mut results, extz2, |js, out| super::extz2_batch(engine, js, out).map(|_| (0, js.len()))));
        drop(parts); // the jobs pointed into the records
        give_back_records_buffer(records);
        if let Err(e) = ran {
            results.iter_mut().for_each(KswResult::release);
            return Err(e);
        }
        let t_ran = Instant::now();
        let mut by_shard: Vec<Vec<(&Pending, KswResult)>> = (0..SHARDS).map(|_| Vec::new()).collect();
        for (k, result) in keys.iter().zip(results) {
            by_shard[Self::shard_of(k.0)].push((k, result));
        }
        Self::host_side(engine, split, || by_shard.into_par_iter().enumerate().for_each(|(i, answers)| {
            // packed before the shard is locked: lookups wait only for the copies
            let mut packed = Vec::new();
            let mut ends = Vec::with_capacity(answers.len());
            for (_, result) in &answers {
                pack_answer(result, &mut packed);
                ends.push(packed.len());
            }
            let mut shard = self.lock(i);
            let Shard { map, slab, .. } = &mut *shard;
            let mut start = 0;
            for (((hash, key), mut result), end) in answers.into_iter().zip(ends) {
                // a call recorded is in its shard until `clear`, which no lookup or compute overlaps; its key is
                // the very bytes the entry holds. Without the memory for the answer, the call stays unknown.
                if let Some(e) = map.find_mut(*hash, |e| e.key.ptr == key.ptr) {
                    e.answer = slab.put(&packed[start..end]);
                }
                start = end;
                result.release();
            }
        }));
        if trace() {
            let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
            eprintln!(
                "[warpalign] ksw cache chunk: {} calls, keys {:.1} ms, run {:.1} ms, answers {:.1} ms",
                keys.len(),
                ms(t0, t_unpacked),
                ms(t_unpacked, t_ran),
                ms(t_ran, Instant::now())
            );
        }
        Ok(())
    }

    fn rates(&self) -> std::sync::MutexGuard<'_, (f64, f64)> {
        self.rates.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs extd2 jobs on the engine's backend alone, measuring the GPU's rate. Returns (GPU jobs, CPU jobs).
    fn extd2_alone(&self, engine: &Engine, jobs: &[KswExtd2Job], out: &mut [KswResult]) -> Result<(usize, usize)> {
        let t = Instant::now();
        let cells: u64 = jobs.iter().map(|j| band_cells(j.qlen, j.tlen, j.w)).sum();
        let busy = |until| *self.gpu_busy_until.lock().unwrap_or_else(|p| p.into_inner()) = until;
        if engine.has_gpu() {
            busy(Some(t + std::time::Duration::from_secs_f64(cells as f64 / self.rates().0)));
        }
        let ran = super::extd2_run(engine, jobs, out);
        busy(None);
        let backend = ran?;
        let secs = t.elapsed().as_secs_f64();
        if trace() {
            eprintln!("[warpalign] extd2 ahead: {backend:?} {} jobs {:.3e} cells {secs:.3} s", jobs.len(), cells as f64);
        }
        Ok(match backend {
            Backend::Gpu => {
                // small batches do not show the GPU's rate
                if jobs.len() >= 16 * crate::gpu::GPU_MIN_JOBS && secs > 0.0 {
                    self.rates().0 = cells as f64 / secs;
                }
                (jobs.len(), 0)
            }
            Backend::Cpu => (0, jobs.len()),
        })
    }

    /// Runs extd2 jobs on the GPU and the CPU twin at once, splitting the cells by the rates both sides
    /// had last round (both are exact, so the split changes only the time). Returns (GPU jobs, CPU jobs).
    fn extd2_split(&self, engine: &Engine, jobs: &[KswExtd2Job], out: &mut [KswResult]) -> Result<(usize, usize)> {
        if !engine.has_gpu() || jobs.len() < 2 * crate::gpu::GPU_MIN_JOBS {
            return match super::extd2_run(engine, jobs, out)? {
                Backend::Gpu => Ok((jobs.len(), 0)),
                Backend::Cpu => Ok((0, jobs.len())),
            };
        }
        let cells: Vec<u64> = jobs.iter().map(|j| band_cells(j.qlen, j.tlen, j.w).max(1)).collect();
        // both sides should finish together: gpu/g + busy = cpu/c
        let share = {
            let (g, c) = *self.rates();
            let busy = self.gpu_busy_until.lock().unwrap_or_else(|p| p.into_inner()).map_or(0.0, |u| u.saturating_duration_since(Instant::now()).as_secs_f64());
            let total = cells.iter().sum::<u64>() as f64;
            ((total / c - busy) / (1.0 / g + 1.0 / c) / total).clamp(0.0, 0.98)
        };
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.par_sort_unstable_by_key(|&i| (std::cmp::Reverse(cells[i]), i));
        // Largest first, each job to the side furthest below its share: both get a mix of sizes.
        let (mut to_gpu, mut to_cpu) = (Vec::new(), Vec::new());
        let (mut gpu_cells, mut all_cells) = (0u64, 0u64);
        for i in order {
            all_cells += cells[i];
            if (gpu_cells as f64) < share * all_cells as f64 {
                gpu_cells += cells[i];
                to_gpu.push(i);
            } else {
                to_cpu.push(i);
            }
        }
        let pick = |ix: &[usize]| ix.iter().map(|&i| jobs[i]).collect::<Vec<_>>();
        let (gpu_jobs, cpu_jobs) = (pick(&to_gpu), pick(&to_cpu));
        let results = |n| try_from_fn(n, |_| KswResult::EMPTY).map_err(|e| e.in_batch("ksw cache results"));
        let (mut gpu_out, mut cpu_out) = (results(gpu_jobs.len())?, results(cpu_jobs.len())?);
        let timed = |f: &mut dyn FnMut() -> Result<Backend>| {
            let t = Instant::now();
            (f(), t.elapsed().as_secs_f64())
        };
        let cpu = Engine::cpu();
        let ((gpu_ran, gpu_secs), (cpu_ran, cpu_secs)) = std::thread::scope(|s| {
            let gpu_side = s.spawn(|| timed(&mut || super::extd2_run(engine, &gpu_jobs, &mut gpu_out)));
            let cpu_side = timed(&mut || super::extd2_run(&cpu, &cpu_jobs, &mut cpu_out));
            (gpu_side.join().expect("GPU side panicked"), cpu_side)
        });
        let (gpu_backend, _) = match (gpu_ran, cpu_ran) {
            (Ok(g), Ok(c)) => (g, c),
            // a failed side left its results empty; the other side's are not handed out
            (Err(e), _) | (_, Err(e)) => {
                gpu_out.iter_mut().chain(&mut cpu_out).for_each(KswResult::release);
                return Err(e);
            }
        };
        let cpu_cells = all_cells - gpu_cells;
        if trace() {
            eprintln!(
                "[warpalign] extd2 round: GPU {} jobs {:.3e} cells {:.3} s, CPU {} jobs {:.3e} cells {:.3} s (GPU share was {share:.2})",
                gpu_jobs.len(), gpu_cells as f64, gpu_secs, cpu_jobs.len(), cpu_cells as f64, cpu_secs
            );
        }
        if gpu_backend == Backend::Gpu && gpu_secs > 0.0 && cpu_secs > 0.0 && gpu_cells > 0 && cpu_cells > 0 {
            *self.rates() = (gpu_cells as f64 / gpu_secs, cpu_cells as f64 / cpu_secs);
        }
        for (i, r) in to_gpu.into_iter().zip(gpu_out).chain(to_cpu.into_iter().zip(cpu_out)) {
            out[i] = r;
        }
        Ok(match gpu_backend {
            Backend::Gpu => (gpu_jobs.len(), cpu_jobs.len()),
            Backend::Cpu => (0, jobs.len()),
        })
    }

    /// Forgets every call (ends a batch of the tool); no lent CIGAR may be in use. Counts the unused ones.
    /// The shards keep their tables and some of their blocks for the next batch.
    pub fn clear(&self) {
        let trace = trace();
        let sizes: Vec<(usize, usize, usize, usize)> = (0..SHARDS)
            .into_par_iter()
            .map(|i| {
                let mut shard = self.lock(i);
                let (mut unused, mut unused_cells, mut key_bytes, mut answer_bytes) = (0, 0, 0, 0);
                for e in shard.map.iter() {
                    if !e.used {
                        unused += 1;
                        unused_cells += key_cells(e.key.get());
                    }
                    key_bytes += e.key.len;
                    answer_bytes += e.answer.map_or(0, |a| a.len);
                }
                let c = &self.counters;
                c.unused.fetch_add(unused, Relaxed);
                c.unused_cells.fetch_add(unused_cells, Relaxed);
                c.recorded.fetch_add(std::mem::take(&mut shard.recorded), Relaxed);
                c.recorded_cells.fetch_add(std::mem::take(&mut shard.recorded_cells), Relaxed);
                c.hits.fetch_add(std::mem::take(&mut shard.hits), Relaxed);
                c.misses.fetch_add(std::mem::take(&mut shard.misses), Relaxed);
                let sizes = (shard.map.len(), shard.map.capacity(), key_bytes, answer_bytes);
                shard.map.clear();
                shard.pending = Vec::new();
                shard.slab.reset();
                sizes
            })
            .collect();
        if trace {
            let sum = |f: fn(&(usize, usize, usize, usize)) -> usize| sizes.iter().map(f).sum::<usize>();
            eprintln!(
                "[warpalign] cache cleared: {} calls in {} slots of {} bytes, keys {:.1} MB, answers {:.1} MB",
                sum(|s| s.0),
                sum(|s| s.1),
                std::mem::size_of::<Entry>(),
                sum(|s| s.2) as f64 / 1e6,
                sum(|s| s.3) as f64 / 1e6
            );
        }
    }

    /// The counters since the last call, reset.
    pub fn take_stats(&self) -> KswCacheStats {
        let c = &self.counters;
        let t = |a: &AtomicU64| a.swap(0, Relaxed);
        let mut stats = KswCacheStats {
            rounds: t(&c.rounds),
            gpu_jobs: t(&c.gpu_jobs),
            cpu_jobs: t(&c.cpu_jobs),
            compute_ns: t(&c.compute_ns),
            unused: t(&c.unused),
            unused_cells: t(&c.unused_cells),
            recorded: t(&c.recorded),
            recorded_cells: t(&c.recorded_cells),
            hits: t(&c.hits),
            misses: t(&c.misses),
        };
        for i in 0..SHARDS {
            let mut shard = self.lock(i);
            stats.recorded += std::mem::take(&mut shard.recorded);
            stats.recorded_cells += std::mem::take(&mut shard.recorded_cells);
            stats.hits += std::mem::take(&mut shard.hits);
            stats.misses += std::mem::take(&mut shard.misses);
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record as `encode_extd2` makes it, with `seq` as query and target and a 2x2 matrix after them.
    fn record(qlen: usize, seq: &[u8]) -> Vec<u8> {
        let (query, target) = seq.split_at(qlen);
        let mat = [1i8, -2, -2, 1];
        let job = KswExtd2Job {
            qlen: query.len() as i32,
            query: query.as_ptr(),
            tlen: target.len() as i32,
            target: target.as_ptr(),
            m: 2,
            mat: mat.as_ptr(),
            q: 4,
            e: 2,
            q2: 24,
            e2: 1,
            w: 7,
            zdrop: 400,
            end_bonus: 0,
            flag: 0,
        };
        let mut r = Vec::new();
        // SAFETY: the job points into `seq` and `mat`, alive here.
        unsafe { dump::encode_extd2(&mut r, &job) };
        r
    }

    fn round_trip(record: &[u8]) -> Vec<u8> {
        let mut key = Vec::new();
        pack_key(record, &mut key);
        let mut back = vec![0xaa; record_len(&key).unwrap()];
        unpack_key(&key, &mut back);
        back
    }

    #[test]
    fn keys_pack_acgt_and_give_their_records_back() {
        for n in 0..=75 {
            for qlen in [0, n / 2, n] {
                let seq: Vec<u8> = (0..n).map(|i| (i * 7 % 4 ^ i / 4 % 4) as u8).collect();
                let r = record(qlen, &seq);
                let mut key = Vec::new();
                pack_key(&r, &mut key);
                assert_eq!((key[FIXED], key.len()), (SEQ_PACKED, r.len() + 1 - n + n.div_ceil(4)));
                assert_eq!(round_trip(&r), r);
            }
        }
    }

    #[test]
    fn keys_with_other_bytes_keep_them() {
        let with = |at: usize, b: u8| -> Vec<u8> { (0..45).map(|i| if i == at { b } else { (i % 4) as u8 }).collect() };
        for seq in [vec![0, 1, 4, 3, 2], vec![3, 0, 255], vec![5], with(0, 4), with(12, 4), with(31, 4), with(33, 4), with(41, 128), with(44, 4)] {
            let r = record(1, &seq);
            let mut key = Vec::new();
            pack_key(&r, &mut key);
            assert_eq!(key[FIXED], SEQ_RAW);
            assert_eq!(round_trip(&r), r);
        }
    }

    #[test]
    fn answers_come_back_exactly() {
        let mut ops = vec![3 << 4, 1 << 4 | 1, 100_000 << 4 | 2, u32::MAX];
        let mut r = KswResult {
            max: u32::MAX,
            zdropped: 1,
            max_q: -1,
            max_t: i32::MAX,
            mqe: i32::MIN,
            mqe_t: 7,
            mte: -0x4000_0000,
            mte_q: 0,
            score: -50,
            reach_end: 1,
            n_cigar: ops.len() as i32,
            cigar: ops.as_mut_ptr(),
        };
        let fields = |r: &KswResult| (r.max, [r.zdropped, r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end, r.n_cigar], r.cigar().to_vec());
        let mut cigar = vec![9; 2];
        for n in [4, 0] {
            r.n_cigar = n;
            let mut bytes = Vec::new();
            pack_answer(&r, &mut bytes);
            let back = unpack_answer(&bytes, &mut cigar).unwrap();
            assert_eq!(fields(&back), fields(&r));
            assert_eq!(back.cigar.is_null(), n == 0);
            assert!(unpack_answer(&bytes[..bytes.len() - 1], &mut cigar).is_none(), "cut off");
            bytes.push(0);
            assert!(unpack_answer(&bytes, &mut cigar).is_none(), "bytes left over");
        }
    }

    #[test]
    fn keys_differ_where_records_do() {
        let seqs: Vec<Vec<u8>> = vec![vec![], vec![0], vec![0, 0], vec![1, 0], vec![0, 1], vec![0, 0, 0, 0, 0], vec![4], vec![0, 4], vec![4, 0]];
        let mut keys = std::collections::HashSet::new();
        let mut n = 0;
        for s in &seqs {
            for qlen in 0..=s.len() {
                let mut key = Vec::new();
                pack_key(&record(qlen, s), &mut key);
                keys.insert(key);
                n += 1;
            }
        }
        assert_eq!(keys.len(), n);
    }
}
