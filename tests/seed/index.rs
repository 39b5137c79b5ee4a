//! The flat index view (`warpalign::seed::index::FlatIndex`) against upstream's `mm_idx_get`, on indexes that
//! upstream builds (`mm_idx_str`) from the E. coli genome and from random references full of repeats: every key
//! of the index (its positions, in order) and absent keys must be answered alike, and the view must hold exactly
//! the minimizers upstream's `mm_sketch` finds in the references. Indexes written and read back through upstream's
//! index file (`mm_idx_dump`, `mm_idx_load`) give the same view. The device's layout (`IndexTables`: upstream's
//! tables copied, as the GPU gets them, and the tables built from the flat view, as the tests' uploads get them)
//! answers alike too.

use crate::common::{env_u64, pick, Rng};
use crate::{oracle_sketch, preset_sketch, read_seqs, Sketch};
use std::collections::HashSet;
use std::ffi::CString;
use warpalign::seed::index::{bucket_sizes, read_buckets, FlatIndex, IndexTables, MmIdx};
use warpalign_ffi::mm2 as c;

/// An index upstream built from `seqs`, freed on drop.
pub(crate) struct Idx(pub(crate) *mut c::mm_idx_t);

// SAFETY: a finished index is only read (mm_idx_get and the seeding take it const).
unsafe impl Sync for Idx {}

impl Idx {
    /// Without names (`MM_I_NO_NAME`).
    pub(crate) fn build(seqs: &[Vec<u8>], s: Sketch, bucket_bits: i32) -> Idx {
        Idx::build_named(seqs, s, bucket_bits, false)
    }

    /// With `names`, sequence i is named `r<i>`.
    pub(crate) fn build_named(seqs: &[Vec<u8>], s: Sketch, bucket_bits: i32, names: bool) -> Idx {
        let cs: Vec<CString> = seqs.iter().map(|q| CString::new(q.clone()).unwrap()).collect();
        let ptrs: Vec<*const i8> = cs.iter().map(|q| q.as_ptr()).collect();
        let ns: Vec<CString> = (0..seqs.len()).map(|i| CString::new(format!("r{i}")).unwrap()).collect();
        let nptrs: Vec<*const i8> = ns.iter().map(|q| q.as_ptr()).collect();
        // SAFETY: n NUL-terminated sequences and names; the index is upstream's until mm_idx_destroy.
        let mi = unsafe {
            c::warpalign_oracle_mm_idx_str(
                s.w as i32,
                s.k as i32,
                s.hpc as i32,
                bucket_bits,
                ptrs.len() as i32,
                ptrs.as_ptr() as *mut *const i8,
                if names { nptrs.as_ptr() as *mut *const i8 } else { std::ptr::null_mut() },
            )
        };
        assert!(!mi.is_null());
        Idx(mi)
    }

    /// Through upstream's index file: `mm_idx_dump`, then `mm_idx_load` (as minimap2 reads a prebuilt `.mmi`).
    fn dumped_and_loaded(&self, path: &std::path::Path) -> Idx {
        let fname = CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a live index, written to and read back from a file this test owns.
        unsafe {
            let fp = libc::fopen(fname.as_ptr(), c"wb".as_ptr());
            assert!(!fp.is_null());
            c::warpalign_oracle_mm_idx_dump(fp.cast(), self.0);
            libc::fclose(fp);
            let fp = libc::fopen(fname.as_ptr(), c"rb".as_ptr());
            assert!(!fp.is_null());
            let mi = c::warpalign_oracle_mm_idx_load(fp.cast());
            libc::fclose(fp);
            assert!(!mi.is_null());
            Idx(mi)
        }
    }

    fn get(&self, minier: u64) -> Vec<u64> {
        let mut n = 0;
        // SAFETY: mm_idx_get returns n readable positions owned by the index (or null with n = 0).
        unsafe {
            let p = c::warpalign_oracle_mm_idx_get(self.0, minier, &mut n);
            if n == 0 {
                vec![]
            } else {
                std::slice::from_raw_parts(p, n as usize).to_vec()
            }
        }
    }
}

impl Drop for Idx {
    fn drop(&mut self) {
        // SAFETY: built by mm_idx_str, destroyed once.
        unsafe { c::warpalign_oracle_mm_idx_destroy(self.0) }
    }
}

/// Checks the view of `idx`, an index of `seqs`, against upstream; returns the number of keys checked.
fn check(label: &str, idx: &Idx, seqs: &[Vec<u8>], s: Sketch, rng: &mut Rng) -> usize {
    // SAFETY: the index is alive and finished.
    let (flat, mi) = unsafe { (FlatIndex::from_mm_idx(idx.0 as *const MmIdx), &*idx.0) };
    // The mirror's layout: the fields it reads sit where upstream's header puts them.
    assert_eq!(std::mem::size_of::<MmIdx>(), std::mem::size_of::<c::mm_idx_t>());
    // SAFETY: the same index, read through the mirror.
    let m = unsafe { &*(idx.0 as *const MmIdx) };
    assert_eq!((m.b, m.w, m.k, m.flag, m.n_seq), (mi.b, mi.w, mi.k, mi.flag, mi.n_seq));
    assert_eq!(m.buckets as usize, mi.B as usize);
    let b = mi.b as u32;
    assert_eq!(flat.b, b);
    assert_eq!(flat.bucket_start.len(), (1usize << b) + 1);
    // what the flat view counts before reading the buckets, and reads in ranges
    // SAFETY: as above.
    let sizes = unsafe { bucket_sizes(idx.0 as *const MmIdx) };
    for (i, &(n_keys, n_pos)) in sizes.iter().enumerate() {
        let (st, en) = (flat.bucket_start[i] as usize, flat.bucket_start[i + 1] as usize);
        assert_eq!((n_keys, n_pos), ((en - st) as u64, flat.pos_start[en] - flat.pos_start[st]), "{label}: bucket {i}");
    }
    let nb = 1usize << b;
    for r in [0..nb / 3, nb / 3..nb] {
        // SAFETY: as above.
        let (keys, counts, pos) = unsafe { read_buckets(idx.0 as *const MmIdx, r.clone()) };
        let (st, en) = (flat.bucket_start[r.start] as usize, flat.bucket_start[r.end] as usize);
        assert_eq!(keys, flat.keys[st..en], "{label}: keys of buckets {r:?}");
        assert_eq!(counts, flat.pos_start[st..en + 1].windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>());
        assert_eq!(pos, flat.pos[flat.pos_start[st] as usize..flat.pos_start[en] as usize]);
    }

    // Every key of the view, against mm_idx_get.
    // SAFETY: as above.
    let (copied, built) = (unsafe { IndexTables::from_mm_idx(idx.0 as *const MmIdx) }, IndexTables::from_flat(&flat));
    let mut keys = HashSet::with_capacity(flat.n_keys());
    let mut n_pos = 0;
    for bucket in 0..1u64 << b {
        let (st, en) = (flat.bucket_start[bucket as usize] as usize, flat.bucket_start[bucket as usize + 1] as usize);
        assert!(flat.keys[st..en].windows(2).all(|w| w[0] < w[1]), "{label}: bucket {bucket} keys not sorted");
        for &key in &flat.keys[st..en] {
            let minier = key << b | bucket;
            let want = idx.get(minier);
            assert!(!want.is_empty(), "{label}: key {minier:#x} in the view, absent upstream");
            assert_eq!(flat.get(minier), &want[..], "{label}: positions of {minier:#x}");
            assert_eq!(copied.get(minier), &want[..], "{label}: positions of {minier:#x} in upstream's tables copied");
            assert_eq!(built.get(minier), &want[..], "{label}: positions of {minier:#x} in tables built from the view");
            n_pos += want.len();
            keys.insert(minier);
        }
    }
    assert_eq!(n_pos, flat.pos.len(), "{label}: positions not all reachable");

    // The view holds exactly the minimizers of the references, each with all its occurrences.
    let mut all: Vec<(u64, u64)> = vec![];
    for (rid, q) in seqs.iter().enumerate().filter(|(_, q)| !q.is_empty()) {
        all.extend(oracle_sketch(q, s, rid as u32).iter().map(|m| (m.x >> 8, m.y)));
    }
    let sketched: HashSet<u64> = all.iter().map(|&(h, _)| h).collect();
    assert_eq!(sketched.len(), keys.len(), "{label}: distinct minimizers");
    assert!(sketched.iter().all(|h| keys.contains(h)), "{label}: a minimizer missing from the view");
    assert_eq!(all.len(), flat.pos.len(), "{label}: occurrences");

    // Absent keys: random hashes of 2k bits, present keys with one bit flipped, and anything in empty buckets.
    let hash_mask = if s.k >= 32 { u64::MAX } else { (1u64 << (2 * s.k)) - 1 };
    let present: Vec<u64> = keys.iter().copied().take(20_000).collect();
    for i in 0..60_000usize {
        let minier = match i % 3 {
            0 => rng.next_u64() & hash_mask,
            1 if !present.is_empty() => present[i % present.len()] ^ 1u64 << rng.below(2 * s.k as u64),
            _ => rng.next_u64(),
        };
        assert_eq!(flat.get(minier), &idx.get(minier)[..], "{label}: lookup of {minier:#x}");
        assert_eq!(copied.get(minier), flat.get(minier), "{label}: copied tables' lookup of {minier:#x}");
        assert_eq!(built.get(minier), flat.get(minier), "{label}: built tables' lookup of {minier:#x}");
    }
    flat.n_keys()
}

pub(crate) fn nt(rng: &mut Rng) -> u8 {
    b"ACGT"[rng.below(4) as usize]
}

/// A reference with many repeats (so most minimizers occur several times), some N and lowercase.
pub(crate) fn repeat_ref(rng: &mut Rng, len: usize) -> Vec<u8> {
    let units: Vec<Vec<u8>> = (0..8).map(|_| (0..rng.range(50, 2000)).map(|_| nt(rng)).collect()).collect();
    let mut s = Vec::with_capacity(len + 2000);
    while s.len() < len {
        match rng.below(4) {
            0 => s.extend((0..rng.range(1, 500)).map(|_| nt(rng))),
            1 => s.extend(std::iter::repeat_n(b'N', rng.range(1, 50) as usize)),
            _ => {
                let u = &units[rng.below(8) as usize];
                s.extend(u.iter().map(|&c| if rng.chance(0.003) { nt(rng).to_ascii_lowercase() } else { c }));
            }
        }
    }
    s
}

/// Random references under random and preset parameters, including one-bucket and tiny-k indexes.
#[test]
fn random_references() {
    let n = env_u64("SEED_INDEX_CASES", 40);
    let seed = env_u64("SEED_INDEX_SEED", 21);
    let mut n_keys = 0;
    for i in 0..n {
        let mut rng = Rng::for_case(seed, i);
        let s = match i % 4 {
            0 => preset_sketch(["map-ont", "map-pb", "map-hifi", "sr", "splice", "lr:hqae"][(i / 4 % 6) as usize]),
            _ => Sketch { k: rng.range(1, 28) as usize, w: rng.range(1, 40) as usize, hpc: rng.chance(0.5) },
        };
        let bucket_bits = [14, 14, 0, 1, 4, 10, 20][rng.below(7) as usize];
        let seqs: Vec<Vec<u8>> = (0..rng.range(1, 5))
            .map(|_| {
                let len = rng.range(1, 60_000) as usize;
                repeat_ref(&mut rng, len)
            })
            .collect();
        let idx = Idx::build(&seqs, s, bucket_bits);
        n_keys += check(&format!("case {i} {s:?} b={bucket_bits}"), &idx, &seqs, s, &mut rng);
    }
    eprintln!("index: {n} random indexes, {n_keys} keys equal");
}

/// Indexes written by `mm_idx_dump` and read back by `mm_idx_load` (empty buckets then have an empty table rather
/// than none): the same view, and the loaded index checked as a built one.
#[test]
fn dumped_and_loaded() {
    let dir = crate::common::tools::scratch_dir("seed-index");
    let mut rng = Rng::new(2111);
    let mut cases: Vec<(String, Vec<Vec<u8>>, Sketch, i32)> = (0..6)
        .map(|i| {
            let s = Sketch { k: rng.range(5, 28) as usize, w: rng.range(1, 30) as usize, hpc: rng.chance(0.5) };
            let seqs = (0..rng.range(1, 4))
                .map(|_| {
                    let len = rng.range(1, 50_000) as usize;
                    repeat_ref(&mut rng, len)
                })
                .collect();
            (format!("random {i}"), seqs, s, pick(&mut rng, &[14, 4, 0]))
        })
        .collect();
    let genome: Vec<Vec<u8>> = read_seqs(&crate::common::tools::data_dir().join("ref/ecoli_K12_MG1655.fasta.gz"))
        .into_iter()
        .map(|s| s.1)
        .collect();
    if !genome.is_empty() {
        cases.push(("E. coli map-ont".into(), genome, preset_sketch("map-ont"), 14));
    }
    for (label, seqs, s, bucket_bits) in &cases {
        let built = Idx::build(seqs, *s, *bucket_bits);
        let loaded = built.dumped_and_loaded(&dir.join("idx.mmi"));
        // SAFETY: both indexes are alive and finished.
        let (a, b) = unsafe {
            (FlatIndex::from_mm_idx(built.0 as *const MmIdx), FlatIndex::from_mm_idx(loaded.0 as *const MmIdx))
        };
        assert!(a == b, "{label}: the loaded index's view differs from the built one's");
        let n = check(&format!("{label}, loaded"), &loaded, seqs, *s, &mut rng);
        eprintln!("index: {label} ({s:?}), dumped and loaded: {n} keys equal");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// E. coli K-12 under the presets' distinct sketch parameters.
#[test]
fn ecoli() {
    let seqs: Vec<Vec<u8>> = read_seqs(&crate::common::tools::data_dir().join("ref/ecoli_K12_MG1655.fasta.gz"))
        .into_iter()
        .map(|s| s.1)
        .collect();
    if seqs.is_empty() {
        return;
    }
    let mut rng = Rng::new(21);
    for preset in ["map-ont", "map-pb", "map-hifi", "sr", "splice", "lr:hqae"] {
        let s = preset_sketch(preset);
        let idx = Idx::build(&seqs, s, 14);
        let n = check(&format!("E. coli {preset}"), &idx, &seqs, s, &mut rng);
        eprintln!("index: E. coli {preset} ({s:?}): {n} keys equal");
    }
}
