//! The twin of map.c's seeding (`warpalign::seed::twin::hits`: `collect_minimizers`, `mm_seed_mz_flt`,
//! `collect_seed_hits` and its heap variant, with seed.c's `mm_collect_matches`) against upstream's, on indexes
//! upstream builds: the minimizers before and after `--q-occ-frac`, then every anchor (`x`, `y` with its flags)
//! in order, `rep_len` and `mini_pos` must be equal.
//!
//! Random cases start from a preset (`mm_set_opt`, then `mm_mapopt_update` on the index for `mid_occ`) and vary what
//! the seeding reads: `--sdust-thres`, the occurrence limits (`mid_occ`, `max_occ`, `max_max_occ`, `occ_dist`),
//! `q_occ_frac`, the heap variant, `-X`/all-vs-all (`MM_F_NO_DIAG`, `MM_F_NO_DUAL`), `--for-only`/`--rev-only`,
//! `--qstrand`; references are repeat-rich (many high-occurrence minimizers), queries are one or two segments cut from
//! them (either strand, mutated), whole references (also as all-vs-all self-mapping), or random. `SEED_HITS_CASES=N`
//! sets their number (default 3000), `SEED_HITS_SEED=S` their seed base, `SEED_HITS_ONLY=i` replays case i alone. The
//! real reads, and the genome itself, are mapped onto E. coli under several presets (map-ont also with `--sdust-thres
//! 20`).

use crate::common::{env_u64, failing_cases, pick, Rng};
use crate::index::{nt, repeat_ref, Idx};
use crate::{preset_opts, read_seqs, Sketch, PRESETS};
use rayon::prelude::*;
use std::ffi::CString;
use warpalign::chain::Anchor;
use warpalign::seed::index::{FlatIndex, MmIdx};
use warpalign::seed::twin::hits::{self, flag, HitOpt, SeedHits};
use warpalign::seed::Minimizer;
use warpalign_ffi::mm2 as c;

/// The minimizers before and after `mm_seed_mz_flt`, and the hits.
pub(crate) type Out = (Vec<Minimizer>, Vec<Minimizer>, SeedHits);

/// # Safety
/// `p` holds `n` readable elements (or n == 0).
unsafe fn copy<T: Copy>(p: *const T, n: usize) -> Vec<T> {
    if n == 0 {
        vec![]
    } else {
        std::slice::from_raw_parts(p, n).to_vec()
    }
}

pub(crate) fn oracle(idx: &Idx, mo: &c::mm_mapopt_t, segs: &[&[u8]], qname: Option<&CString>, max_occ: i32) -> Out {
    let qlens: Vec<i32> = segs.iter().map(|s| s.len() as i32).collect();
    let seqs: Vec<*const i8> = segs.iter().map(|s| s.as_ptr().cast()).collect();
    // SAFETY: km = NULL: every array upstream returns is malloc'ed; each is read by its count, then freed.
    unsafe {
        let mut mv: c::mm128_v = std::mem::zeroed();
        c::warpalign_oracle_collect_minimizers(
            std::ptr::null_mut(),
            mo,
            idx.0,
            segs.len() as i32,
            qlens.as_ptr(),
            seqs.as_ptr() as *mut *const i8,
            &mut mv,
        );
        let before = copy(mv.a as *const Minimizer, mv.n);
        if mo.q_occ_frac > 0.0 {
            c::warpalign_oracle_mm_seed_mz_flt(std::ptr::null_mut(), &mut mv, mo.mid_occ, mo.q_occ_frac);
        }
        let after = copy(mv.a as *const Minimizer, mv.n);
        let f = if mo.flag & flag::HEAP_SORT != 0 {
            c::warpalign_oracle_collect_seed_hits_heap
        } else {
            c::warpalign_oracle_collect_seed_hits
        };
        let (mut n_a, mut rep_len, mut n_mini_pos, mut mini_pos) = (0i64, 0, 0, std::ptr::null_mut());
        let a = f(
            std::ptr::null_mut(),
            mo,
            max_occ,
            idx.0,
            qname.map_or(std::ptr::null(), |q| q.as_ptr()),
            &mv,
            qlens.iter().sum(),
            &mut n_a,
            &mut rep_len,
            &mut n_mini_pos,
            &mut mini_pos,
        );
        let hits = SeedHits {
            a: copy(a as *const Anchor, n_a as usize),
            rep_len,
            mini_pos: copy(mini_pos, n_mini_pos as usize),
        };
        libc::free(a.cast());
        libc::free(mini_pos.cast());
        libc::free(mv.a.cast());
        (before, after, hits)
    }
}

fn twin(
    flat: &FlatIndex,
    s: Sketch,
    mo: &c::mm_mapopt_t,
    segs: &[&[u8]],
    qname: Option<&CString>,
    max_occ: i32,
) -> Out {
    let mut mv = vec![];
    hits::collect_minimizers(s.w, s.k, s.hpc, mo.sdust_thres, segs, &mut mv);
    let before = mv.clone();
    if mo.q_occ_frac > 0.0 {
        hits::seed_mz_flt(&mut mv, mo.mid_occ, mo.q_occ_frac);
    }
    let opt = HitOpt { flag: mo.flag, max_max_occ: mo.max_max_occ, occ_dist: mo.occ_dist };
    let qname = qname.map(|q| q.as_bytes());
    let qlen = segs.iter().map(|s| s.len() as i32).sum();
    let h = if mo.flag & flag::HEAP_SORT != 0 {
        hits::collect_seed_hits_heap(&opt, max_occ, flat, qname, &mv, qlen)
    } else {
        hits::collect_seed_hits(&opt, max_occ, flat, qname, &mv, qlen)
    };
    (before, mv, h)
}

/// Where the twin's output first differs from upstream's, or None.
pub(crate) fn diff(t: &Out, o: &Out) -> Option<String> {
    fn first<T: PartialEq + std::fmt::Debug>(what: &str, t: &[T], o: &[T]) -> Option<String> {
        (t != o).then(|| {
            let i = t.iter().zip(o).position(|(a, b)| a != b).unwrap_or(t.len().min(o.len()));
            format!(
                "{what}: {} vs upstream {}, first difference at {i}: {:x?} vs {:x?}",
                t.len(),
                o.len(),
                t.get(i),
                o.get(i)
            )
        })
    }
    first("minimizers", &t.0, &o.0)
        .or_else(|| first("filtered minimizers", &t.1, &o.1))
        .or_else(|| first("anchors", &t.2.a, &o.2.a))
        .or_else(|| first("mini_pos", &t.2.mini_pos, &o.2.mini_pos))
        .or_else(|| {
            (t.2.rep_len != o.2.rep_len).then(|| format!("rep_len {} vs upstream {}", t.2.rep_len, o.2.rep_len))
        })
}

fn sketch_of(idx: &Idx) -> Sketch {
    // SAFETY: a live index.
    let mi = unsafe { &*idx.0 };
    Sketch { k: mi.k as usize, w: mi.w as usize, hpc: mi.flag as u32 & c::MM_I_HPC != 0 }
}

pub(crate) fn flat_of(idx: &Idx) -> FlatIndex {
    // SAFETY: a live, finished index.
    unsafe { FlatIndex::from_mm_idx(idx.0 as *const MmIdx) }
}

fn revcomp(s: &[u8]) -> Vec<u8> {
    s.iter()
        .rev()
        .map(|&c| match c {
            b'A' => b'T',
            b'C' => b'G',
            b'G' => b'C',
            b'T' => b'A',
            b'a' => b't',
            b'c' => b'g',
            b'g' => b'c',
            b't' => b'a',
            x => x,
        })
        .collect()
}

/// A query segment: a piece of a reference (either strand, mutated), a whole reference, or random bases.
fn segment(rng: &mut Rng, refs: &[Vec<u8>]) -> Vec<u8> {
    let r = &refs[rng.below(refs.len() as u64) as usize];
    let mut s = match rng.below(10) {
        0 => r.clone(),
        1 => (0..rng.range(1, 2000)).map(|_| nt(rng)).collect(),
        _ => {
            let len = rng.range(1, 4000.min(r.len() as i64)) as usize;
            let st = rng.below((r.len() - len + 1) as u64) as usize;
            r[st..st + len].to_vec()
        }
    };
    if rng.chance(0.5) {
        s = revcomp(&s);
    }
    let rate = pick(rng, &[0.0, 0.0, 0.01, 0.05]);
    for c in &mut s {
        if rng.chance(rate) {
            *c = nt(rng);
        }
    }
    s
}

/// A random case of `random_queries`: an index upstream built, the options, the occurrence limit and the query
/// (segments, name); `extra` more queries drawn after it on the same index (the GPU tests batch them).
pub(crate) struct Case {
    pub(crate) preset: &'static str,
    pub(crate) idx: Idx,
    pub(crate) s: Sketch,
    pub(crate) mo: c::mm_mapopt_t,
    pub(crate) max_occ: i32,
    pub(crate) queries: Vec<(Vec<Vec<u8>>, Option<CString>)>,
}

/// Case `i` of the family seeded `seed`.
pub(crate) fn random_case(seed: u64, i: u64, extra: usize) -> Case {
    let mut rng = Rng::for_case(seed, i);
    let preset = pick(&mut rng, PRESETS);
    let (io, mut mo) = preset_opts(preset);
    let s = if rng.chance(0.3) {
        Sketch { k: rng.range(8, 24) as usize, w: rng.range(1, 20) as usize, hpc: rng.chance(0.5) }
    } else {
        Sketch { k: io.k as usize, w: io.w as usize, hpc: io.flag as u32 & c::MM_I_HPC != 0 }
    };
    let refs: Vec<Vec<u8>> = (0..rng.range(1, 4))
        .map(|_| {
            let len = rng.range(100, 40_000) as usize;
            repeat_ref(&mut rng, len)
        })
        .collect();
    let idx = Idx::build_named(&refs, s, pick(&mut rng, &[14, 14, 4, 0]), true);
    // SAFETY: the options and a live index.
    unsafe { c::warpalign_oracle_mm_mapopt_update(&mut mo, idx.0) };
    if rng.chance(0.5) {
        mo.mid_occ = rng.range(1, 60) as i32;
    }
    if rng.chance(0.3) {
        mo.max_max_occ = rng.range(1, 300) as i32;
    }
    if rng.chance(0.3) {
        mo.occ_dist = pick(&mut rng, &[0, 1, 50, 500, 5000]);
    }
    if rng.chance(0.2) {
        mo.q_occ_frac = pick(&mut rng, &[0.0, 0.001, 0.05, 0.3]);
    }
    if rng.chance(0.2) {
        mo.sdust_thres = pick(&mut rng, &[1, 10, 20, 30]);
    }
    if rng.chance(0.3) {
        mo.flag ^= flag::HEAP_SORT;
    }
    if rng.chance(0.2) {
        mo.flag |= pick(&mut rng, &[flag::NO_DIAG, flag::NO_DUAL, flag::NO_DIAG | flag::NO_DUAL]);
    }
    if rng.chance(0.1) {
        mo.flag |= pick(&mut rng, &[flag::FOR_ONLY, flag::REV_ONLY]);
    }
    if rng.chance(0.15) && mo.flag & flag::HEAP_SORT == 0 {
        mo.flag |= flag::QSTRAND;
    }
    let max_occ = if rng.chance(0.3) { rng.range(1, 5000) as i32 } else { mo.mid_occ };
    let mut queries = vec![];
    for q in 0..=extra {
        let mut segs: Vec<Vec<u8>> =
            (0..if rng.chance(0.3) { 2 } else { 1 }).map(|_| segment(&mut rng, &refs)).collect();
        let mut qname = match rng.below(3) {
            0 => None,
            1 => Some(CString::new("q").unwrap()),
            _ => Some(CString::new(format!("r{}", rng.below(refs.len() as u64))).unwrap()),
        };
        if q == 0 && rng.chance(0.1) {
            // All-vs-all: a reference against itself (substitutions keep its length), so that the diagonal and
            // self hits are there to filter and flag.
            let j = rng.below(refs.len() as u64) as usize;
            let mut seq = refs[j].clone();
            for c in &mut seq {
                if rng.chance(0.01) {
                    *c = nt(&mut rng);
                }
            }
            segs = vec![seq];
            qname = Some(CString::new(format!("r{j}")).unwrap());
            mo.flag |= flag::NO_DIAG;
        }
        queries.push((segs, qname));
    }
    Case { preset, idx, s, mo, max_occ, queries }
}

#[test]
fn random_queries() {
    let n = env_u64("SEED_HITS_CASES", 3000);
    let seed = env_u64("SEED_HITS_SEED", 21);
    let only = std::env::var("SEED_HITS_ONLY").ok().and_then(|s| s.parse::<u64>().ok());
    let check = |i: u64| {
        if only.is_some_and(|o| o != i) {
            return None;
        }
        let Case { preset, idx, s, mo, max_occ, queries } = random_case(seed, i, 0);
        let (segs, qname) = &queries[0];
        let segs: Vec<&[u8]> = segs.iter().map(|s| &s[..]).collect();
        let o = oracle(&idx, &mo, &segs, qname.as_ref(), max_occ);
        let t = twin(&flat_of(&idx), sketch_of(&idx), &mo, &segs, qname.as_ref(), max_occ);
        diff(&t, &o).map(|d| format!("case {i} ({preset}, {s:?}, flag {:#x}, max_occ {max_occ}): {d}", mo.flag))
    };
    let failed = failing_cases(n, check);
    assert!(failed.is_empty(), "{} of {n} cases differ: {:?}", failed.len(), &failed[..failed.len().min(20)]);
    eprintln!("hits: {n} random queries equal");
}

/// Options shared by the reads' workers.
pub(crate) struct MapOpt(pub(crate) c::mm_mapopt_t);

// SAFETY: only read; its pointers (split prefix, ...) are not used by the seeding.
unsafe impl Sync for MapOpt {}

/// The real reads onto E. coli under presets of each kind (plain and heap variant, all-vs-all filters).
#[test]
fn real_reads() {
    let data = crate::common::tools::data_dir();
    let genome: Vec<Vec<u8>> =
        read_seqs(&data.join("ref/ecoli_K12_MG1655.fasta.gz")).into_iter().map(|s| s.1).collect();
    if genome.is_empty() {
        return;
    }
    let mut reads = vec![];
    for f in [
        "ont/ecoli_ultralong_R9_nanotest.fastq.gz",
        "ont/ecoli_R9_medaka_test_reads.fasta.gz",
        "pacbio/ecoli_sequel_clr_subreads.fastq.gz",
        "lambda/lambda_ont_R7_2D_ERA476754.fastq.gz",
    ] {
        reads.extend(read_seqs(&data.join(f)).into_iter().filter(|r| !r.1.is_empty()));
    }
    // The genome onto itself, under its index name: the diagonal and self hits of all-vs-all mapping.
    reads.push(("r0".to_string(), genome[0].clone()));
    let mut n_anchors = 0;
    for (preset, sdust_thres) in [
        ("map-ont", 0),
        ("map-ont", 20),
        ("map-pb", 0),
        ("map-hifi", 0),
        ("sr", 0),
        ("splice", 0),
        ("lr:hqae", 0),
        ("ava-ont", 0),
    ] {
        let (io, mut mo) = preset_opts(preset);
        mo.sdust_thres = sdust_thres;
        let s = Sketch { k: io.k as usize, w: io.w as usize, hpc: io.flag as u32 & c::MM_I_HPC != 0 };
        let idx = Idx::build_named(&genome, s, io.bucket_bits as i32, true);
        // SAFETY: the options and a live index.
        unsafe { c::warpalign_oracle_mm_mapopt_update(&mut mo, idx.0) };
        let flat = flat_of(&idx);
        let idx = &idx;
        let mo = &MapOpt(mo);
        let results: Vec<(usize, Option<String>)> = reads
            .par_iter()
            .map(|(name, q)| {
                let qname = CString::new(name.as_bytes()).unwrap();
                let segs = [&q[..]];
                let o = oracle(idx, &mo.0, &segs, Some(&qname), mo.0.mid_occ);
                let t = twin(&flat, s, &mo.0, &segs, Some(&qname), mo.0.mid_occ);
                (o.2.a.len(), diff(&t, &o).map(|d| format!("{preset} (sdust {sdust_thres}) read {name}: {d}")))
            })
            .collect();
        let bad: Vec<&String> = results.iter().filter_map(|r| r.1.as_ref()).collect();
        assert!(bad.is_empty(), "{} reads differ; first: {}", bad.len(), bad[0]);
        let n: usize = results.iter().map(|r| r.0).sum();
        eprintln!("hits: {} real reads equal under {preset}, sdust {sdust_thres} ({n} anchors)", reads.len());
        n_anchors += n;
    }
    eprintln!("hits: {n_anchors} anchors in all");
}
