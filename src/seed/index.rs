//! A flat view of an upstream index (`mm_idx_t`, minimap2 2.31), for uploading once and looking up on a device.
//!
//! Upstream keeps, per bucket (the low `b` bits of a minimizer's hash), a khash table from the remaining bits to
//! either the one position of a minimizer seen once or a slice of the bucket's position array. [`FlatIndex`]
//! lays the same content out as plain arrays: per bucket, its keys sorted ascending, each with its positions
//! in upstream's order, so that [`FlatIndex::get`] answers exactly what `mm_idx_get` answers.
//!
//! The `#[repr(C)]` mirrors below are upstream 2.31's layouts (`mm_idx_t` in minimap.h, the bucket and the
//! `KHASH_INIT(idx, uint64_t, uint64_t, 1, ...)` table in index.c); the seed tests check them against the C.

use rayon::prelude::*;
use std::ffi::c_void;

/// `mm_idx_t` (minimap.h): the fields the flat view reads, and the rest for the layout.
#[repr(C)]
pub struct MmIdx {
    pub b: i32,
    pub w: i32,
    pub k: i32,
    pub flag: i32,
    pub n_seq: u32,
    pub index: i32,
    pub n_alt: i32,
    pub seq: *mut MmIdxSeq,
    pub s: *mut u32,
    pub buckets: *mut MmIdxBucket,
    pub intervals: *mut c_void,
    pub spsc: *mut c_void,
    pub jumps: *mut c_void,
    pub km: *mut c_void,
    pub h: *mut c_void,
}

/// `mm_idx_seq_t` (minimap.h): one reference sequence.
#[repr(C)]
pub struct MmIdxSeq {
    pub name: *mut std::ffi::c_char,
    pub offset: u64,
    pub len: u32,
    pub is_alt: u32,
}

/// `mm_idx_bucket_t` (index.c). After indexing, `a` is empty and `h` (null for an empty bucket) holds the keys.
#[repr(C)]
pub struct MmIdxBucket {
    pub a_n: usize,
    pub a_m: usize,
    pub a: *mut c_void,
    /// The length of `p`.
    pub n: i32,
    /// The positions of the minimizers seen more than once, each one's sorted.
    pub p: *mut u64,
    pub h: *mut KhIdx,
}

/// `khash_t(idx)`: keys are `minimizer>>b<<1`, with bit 0 set for a minimizer seen once (then the value is
/// its position); otherwise the value is `offset_in_p<<32 | count`.
#[repr(C)]
pub struct KhIdx {
    pub n_buckets: u32,
    pub size: u32,
    pub n_occupied: u32,
    pub upper_bound: u32,
    pub flags: *mut u32,
    pub keys: *mut u64,
    pub vals: *mut u64,
}

/// An index's minimizers as flat arrays. Bucket `i` (of `1<<b`) owns `keys[bucket_start[i]..bucket_start[i+1]]`,
/// each key being `minimizer>>b` (upstream's hash drops the key's top bit: see [`FlatIndex::get`]); key `j`'s
/// positions (`rid<<32 | last_pos<<1 | strand`, as `mm_idx_get` returns them) are
/// `pos[pos_start[j]..pos_start[j+1]]`. The references' lengths and names are there for the anchors' filters
/// (`skip_seed`) and the query-strand coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatIndex {
    pub b: u32,
    pub seq_len: Vec<u32>,
    /// None where the index has no names (`MM_I_NO_NAME`).
    pub seq_name: Vec<Option<Vec<u8>>>,
    pub bucket_start: Vec<u64>,
    pub keys: Vec<u64>,
    pub pos_start: Vec<u64>,
    pub pos: Vec<u64>,
}

/// One bucket's keys (sorted) with their positions, before concatenation.
struct Bucket {
    keys: Vec<u64>,
    counts: Vec<u64>,
    pos: Vec<u64>,
}

/// Reads bucket `bk`'s hash table.
///
/// # Safety
/// `bk` is a bucket of an index that upstream finished building (`mm_idx_post` ran) and still owns.
unsafe fn read_bucket(bk: &MmIdxBucket) -> Bucket {
    let mut out = Bucket { keys: vec![], counts: vec![], pos: vec![] };
    let Some(h) = bk.h.as_ref() else { return out };
    let nb = h.n_buckets as usize;
    let mut entries: Vec<(u64, u64)> = Vec::with_capacity(h.size as usize);
    for i in 0..nb {
        // kh_exist: neither empty nor deleted (two flag bits per slot).
        if (*h.flags.add(i >> 4) >> ((i & 0xf) << 1)) & 3 == 0 {
            entries.push((*h.keys.add(i), *h.vals.add(i)));
        }
    }
    entries.sort_unstable_by_key(|&(key, _)| key >> 1);
    for (key, val) in entries {
        out.keys.push(key >> 1);
        if key & 1 != 0 {
            out.counts.push(1);
            out.pos.push(val);
        } else {
            let n = val as u32 as usize;
            out.counts.push(n as u64);
            out.pos.extend_from_slice(std::slice::from_raw_parts(bk.p.add((val >> 32) as usize), n));
        }
    }
    out
}

/// Per bucket of `mi`: its keys and its positions, counted without copying them.
///
/// # Safety
/// `mi` points to an index that upstream (minimap2 2.31) built or loaded, alive for the call.
pub unsafe fn bucket_sizes(mi: *const MmIdx) -> Vec<(u64, u64)> {
    let mi = &*mi;
    let base = mi.buckets as usize;
    (0..1usize << mi.b)
        .into_par_iter()
        .map(|i| {
            let bk = &*(base as *const MmIdxBucket).add(i);
            let Some(h) = bk.h.as_ref() else { return (0, 0) };
            let singletons = (0..h.n_buckets as usize)
                .filter(|&j| (*h.flags.add(j >> 4) >> ((j & 0xf) << 1)) & 3 == 0 && *h.keys.add(j) & 1 != 0)
                .count();
            (h.size as u64, bk.n as u64 + singletons as u64)
        })
        .collect()
}

/// Buckets `range` of `mi`, back to back: their keys, each key's count of positions, and the positions.
///
/// # Safety
/// As [`bucket_sizes`].
pub unsafe fn read_buckets(mi: *const MmIdx, range: std::ops::Range<usize>) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let base = (*mi).buckets as usize;
    let parts: Vec<Bucket> = range.into_par_iter().map(|i| read_bucket(&*(base as *const MmIdxBucket).add(i))).collect();
    let n_keys = parts.iter().map(|p| p.keys.len()).sum();
    let n_pos = parts.iter().map(|p| p.pos.len()).sum();
    let (mut keys, mut counts, mut pos) = (Vec::with_capacity(n_keys), Vec::with_capacity(n_keys), Vec::with_capacity(n_pos));
    for p in parts {
        keys.extend_from_slice(&p.keys);
        counts.extend_from_slice(&p.counts);
        pos.extend_from_slice(&p.pos);
    }
    (keys, counts, pos)
}

/// The references' lengths and names (None where the index has none).
///
/// # Safety
/// As [`bucket_sizes`].
pub unsafe fn seq_info(mi: *const MmIdx) -> (Vec<u32>, Vec<Option<Vec<u8>>>) {
    let mi = &*mi;
    let seqs = if mi.n_seq == 0 { &[][..] } else { std::slice::from_raw_parts(mi.seq, mi.n_seq as usize) };
    (
        seqs.iter().map(|s| s.len).collect(),
        seqs.iter().map(|s| (!s.name.is_null()).then(|| std::ffi::CStr::from_ptr(s.name).to_bytes().to_vec())).collect(),
    )
}

impl FlatIndex {
    /// The flat view of `mi`.
    ///
    /// # Safety
    /// `mi` points to an index that upstream (minimap2 2.31) built or loaded, alive for the call.
    pub unsafe fn from_mm_idx(mi: *const MmIdx) -> FlatIndex {
        let nb = 1usize << (*mi).b;
        let sizes = bucket_sizes(mi);
        let bucket_start = std::iter::once(0).chain(sizes.iter().scan(0u64, |at, s| {
            *at += s.0;
            Some(*at)
        }));
        let (keys, counts, pos) = read_buckets(mi, 0..nb);
        let pos_start = std::iter::once(0).chain(counts.iter().scan(0u64, |at, c| {
            *at += c;
            Some(*at)
        }));
        let (seq_len, seq_name) = seq_info(mi);
        FlatIndex { b: (*mi).b as u32, seq_len, seq_name, bucket_start: bucket_start.collect(), keys, pos_start: pos_start.collect(), pos }
    }

    /// `mm_idx_get(mi, minier, &n)`: the positions of minimizer hash `minier` (empty when absent).
    pub fn get(&self, minier: u64) -> &[u64] {
        let bucket = (minier & ((1u64 << self.b) - 1)) as usize;
        // Upstream looks up `minier>>b<<1` and compares keys `>>1`: the top bit of `minier>>b` is lost (only
        // possible when b = 0; minimizer hashes have at most 56 bits).
        let key = (minier >> self.b) & (u64::MAX >> 1);
        let (st, en) = (self.bucket_start[bucket] as usize, self.bucket_start[bucket + 1] as usize);
        match self.keys[st..en].binary_search(&key) {
            Ok(j) => {
                let j = st + j;
                &self.pos[self.pos_start[j] as usize..self.pos_start[j + 1] as usize]
            }
            Err(_) => &[],
        }
    }

    /// The number of distinct minimizers.
    pub fn n_keys(&self) -> usize {
        self.keys.len()
    }
}

/// A slot of [`IndexTables::keys`] that upstream's flags mark empty (a lookup stops there).
pub const SLOT_EMPTY: u64 = u64::MAX;
/// A slot upstream's flags mark deleted (a lookup goes on past it). Keys are below 2^57 (minimizer hashes have at
/// most 56 bits), so neither is a key.
pub const SLOT_DELETED: u64 = u64::MAX - 1;

/// The device's layout of an index: each bucket's khash table as upstream keeps it, its slots' keys (empty and
/// deleted slots marked in the key, in place of upstream's flags) and values, and its position array, so that the
/// tables of an upstream index go up as they are, with no sort. Bucket `i` owns slots
/// `slot_start[i]..slot_start[i+1]` of `keys` and `words` (a power of two of them, or none); `words` holds every
/// slot's value, then the buckets' position arrays, bucket `i`'s from `p_start[i]`. [`IndexTables::get`] probes as
/// `kh_get` does and answers as `mm_idx_get`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexTables {
    pub b: u32,
    pub slot_start: Vec<u64>,
    pub p_start: Vec<u64>,
    pub keys: Vec<u64>,
    pub words: Vec<u64>,
}

/// Where the probe for `key` (upstream's `minimizer>>b<<1`) in a table of `n` slots (a power of two) ends:
/// the key's slot, or None. `kh_get`'s probe: from the key's hash (`key>>1`, as a 32-bit `khint_t`) by steps of
/// 1, 2, 3, ... until an empty slot, the key, or the first slot again.
pub fn probe(keys: &[u64], key: u64) -> Option<usize> {
    let n = keys.len() as u32;
    if n == 0 {
        return None;
    }
    let mask = n - 1;
    let (mut i, mut step) = ((key >> 1) as u32 & mask, 0u32);
    let last = i;
    loop {
        let k = keys[i as usize];
        if k == SLOT_EMPTY {
            return None;
        }
        if k != SLOT_DELETED && k >> 1 == key >> 1 {
            return Some(i as usize);
        }
        step += 1;
        i = (i.wrapping_add(step)) & mask;
        if i == last {
            return None;
        }
    }
}

/// Writes upstream bucket `bk`'s table into `keys` and `vals` (its `n_buckets` slots each) and its position array
/// into `p` (its `n` positions); returns its singletons.
///
/// # Safety
/// As [`read_bucket`]; the slices have exactly those lengths.
pub unsafe fn write_mm_bucket(bk: &MmIdxBucket, keys: &mut [u64], vals: &mut [u64], p: &mut [u64]) -> u64 {
    if !p.is_empty() {
        std::ptr::copy_nonoverlapping(bk.p, p.as_mut_ptr(), p.len());
    }
    let Some(h) = bk.h.as_ref() else { return 0 };
    // an empty slot's value is whatever malloc left (never read): copied as bytes
    std::ptr::copy_nonoverlapping(h.vals, vals.as_mut_ptr(), vals.len());
    let mut singletons = 0;
    for (j, k) in keys.iter_mut().enumerate() {
        // khash's two flag bits per slot: 2 empty, 1 deleted
        let f = (*h.flags.add(j >> 4) >> ((j & 0xf) << 1)) & 3;
        *k = if f & 2 != 0 {
            SLOT_EMPTY
        } else if f & 1 != 0 {
            SLOT_DELETED
        } else {
            let key = *h.keys.add(j);
            singletons += key & 1;
            key
        };
    }
    singletons
}

impl IndexTables {
    /// Slots per bucket: upstream's table sizes.
    ///
    /// # Safety
    /// As [`bucket_sizes`].
    pub unsafe fn mm_shape(mi: *const MmIdx) -> (Vec<u64>, Vec<u64>) {
        let buckets = std::slice::from_raw_parts((*mi).buckets, 1usize << (*mi).b);
        let slots = buckets.iter().map(|bk| bk.h.as_ref().map_or(0, |h| h.n_buckets as u64));
        let slot_start: Vec<u64> = std::iter::once(0).chain(slots.scan(0u64, |at, s| {
            *at += s;
            Some(*at)
        })).collect();
        let n_slots = *slot_start.last().unwrap();
        let p_start = std::iter::once(n_slots).chain(buckets.iter().scan(n_slots, |at, bk| {
            *at += bk.n.max(0) as u64;
            Some(*at)
        }));
        (slot_start, p_start.collect())
    }

    /// Upstream's tables of `mi`, copied (the host's mirror of [`super::gpu::DeviceIndex::upload_mm_idx`]).
    ///
    /// # Safety
    /// As [`bucket_sizes`].
    pub unsafe fn from_mm_idx(mi: *const MmIdx) -> IndexTables {
        let (slot_start, p_start) = Self::mm_shape(mi);
        let nb = 1usize << (*mi).b;
        let n_slots = slot_start[nb] as usize;
        let mut keys = vec![0u64; n_slots];
        let mut words = vec![0u64; p_start[nb] as usize];
        let (vals, mut p) = words.split_at_mut(n_slots);
        let (mut k, mut v): (&mut [u64], &mut [u64]) = (&mut keys, vals);
        for i in 0..nb {
            let bk = &*(*mi).buckets.add(i);
            let s = (slot_start[i + 1] - slot_start[i]) as usize;
            let (kb, kr) = std::mem::take(&mut k).split_at_mut(s);
            let (vb, vr) = std::mem::take(&mut v).split_at_mut(s);
            let (pb, pr) = std::mem::take(&mut p).split_at_mut((p_start[i + 1] - p_start[i]) as usize);
            write_mm_bucket(bk, kb, vb, pb);
            (k, v, p) = (kr, vr, pr);
        }
        IndexTables { b: (*mi).b as u32, slot_start, p_start, keys, words }
    }

    /// The same content as `idx` in tables of this layout (built by `kh_put`'s probe, so [`probe`] finds each
    /// key): for the tests' indexes, which come as [`FlatIndex`].
    pub fn from_flat(idx: &FlatIndex) -> IndexTables {
        let nb = idx.bucket_start.len() - 1;
        let slots = |i: usize| {
            let n = (idx.bucket_start[i + 1] - idx.bucket_start[i]) as usize;
            if n == 0 { 0 } else { (n * 2).next_power_of_two().max(4) }
        };
        let slot_start: Vec<u64> = std::iter::once(0).chain((0..nb).scan(0u64, |at, i| {
            *at += slots(i) as u64;
            Some(*at)
        })).collect();
        let n_slots = slot_start[nb] as usize;
        let (mut keys, mut words) = (vec![SLOT_EMPTY; n_slots], vec![0u64; n_slots]);
        let mut p_start = vec![n_slots as u64];
        for i in 0..nb {
            let (st, en) = (slot_start[i] as usize, slot_start[i + 1] as usize);
            let p0 = words.len() as u64;
            for j in idx.bucket_start[i] as usize..idx.bucket_start[i + 1] as usize {
                let pos = &idx.pos[idx.pos_start[j] as usize..idx.pos_start[j + 1] as usize];
                let key = idx.keys[j] << 1 | (pos.len() == 1) as u64;
                let val = if pos.len() == 1 { pos[0] } else { (words.len() as u64 - p0) << 32 | pos.len() as u64 };
                let table = &mut keys[st..en];
                let mask = (en - st) as u32 - 1;
                let (mut s, mut step) = ((key >> 1) as u32 & mask, 0u32);
                while table[s as usize] != SLOT_EMPTY {
                    step += 1;
                    s = s.wrapping_add(step) & mask;
                }
                table[s as usize] = key;
                words[st + s as usize] = val;
                if pos.len() != 1 {
                    words.extend_from_slice(pos);
                }
            }
            p_start.push(words.len() as u64);
        }
        IndexTables { b: idx.b, slot_start, p_start, keys, words }
    }

    /// `mm_idx_get(mi, minier, &n)`: the positions of minimizer hash `minier` (empty when absent), as the kernels'
    /// `index_get` finds them.
    pub fn get(&self, minier: u64) -> &[u64] {
        let bucket = (minier & ((1u64 << self.b) - 1)) as usize;
        let (st, en) = (self.slot_start[bucket] as usize, self.slot_start[bucket + 1] as usize);
        let Some(s) = probe(&self.keys[st..en], (minier >> self.b) << 1) else { return &[] };
        let (key, val) = (self.keys[st + s], self.words[st + s]);
        if key & 1 != 0 {
            std::slice::from_ref(&self.words[st + s])
        } else {
            let at = (self.p_start[bucket] + (val >> 32)) as usize;
            &self.words[at..at + val as u32 as usize]
        }
    }
}
