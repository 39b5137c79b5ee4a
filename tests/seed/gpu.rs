//! The seed engine's GPU path (`warpalign::seed::gpu`, kernels/seed.cu) and batch call (`warpalign::seed::batch`)
//! against the twin, every field of every read: the minimizers after `--q-occ-frac`, the anchors in order,
//! `rep_len`, `mini_pos`; the first difference is printed.
//!
//! Without a GPU (they print "skipped: no GPU"): `sketch_chunks_model_equals_twin` checks a Rust copy of the
//! sketch kernel's chunk rule (each chunk restarts upstream's loop before its start and emits once its state
//! provably equals upstream's) on the sketch tests' sequences with chunks of 1 to 1024 bases; the host's layout,
//! offsets and launch plan, and the CPU path of the batch call, are checked too.
//!
//! With a GPU: `gpu_sketch_random_sequences` (the sketch tests' sequences, one or two segments, chunks of 1, 7, 64
//! and 1024 bases), `gpu_random_queries` (the hits tests' random cases, 16 queries each, every preset, filters and
//! limits; the heap variant's cases run the radix variant, which the GPU computes), `gpu_real_reads` (the real
//! reads onto E. coli under the hits tests' presets, through the launch plan, with reads/s and anchors/s against
//! the twin on all cores) and `gpu_batch_call_routes` (`seed_batch` on a GPU engine, the heap variant and a
//! mismatched index included). `SEED_GPU_CASES=N` sets the random cases (default 400 each).

use crate::common::gpu::start_gpu;
use crate::common::{env_u64, failing_cases, Rng};
use crate::hits::{flat_of, random_case, Case};
use crate::index::Idx;
use crate::sketch::{random_params, random_seq};
use crate::{preset_opts, preset_sketches, read_seqs, Sketch};
use rayon::prelude::*;
use std::ffi::CString;
use std::time::Instant;
use warpalign::seed::batch::{seed_batch, seed_cpu, ReadSeeds, SeedOpt, SeedRead};
use warpalign::seed::gpu::{launch_plan, offsets, seed_batch_gpu, seed_launch, DeviceIndex, Layout, LAUNCH_BASES};
use warpalign::seed::index::FlatIndex;
use warpalign::seed::twin::hits::{collect_minimizers, flag, HitOpt};
use warpalign::seed::twin::{hash64, SEQ_NT4_TABLE};
use warpalign::seed::Minimizer;
use warpalign::{BackendChoice, Engine};
use warpalign_ffi::mm2 as c;

const EMPTY: Minimizer = Minimizer { x: u64::MAX, y: u64::MAX };

/// kernels/seed.cu's `sketch_chunk`, line for line: the minimizers that the chunk `[s, e)` of `seq` owns. Its first
/// try starts `warm` bases before the chunk (the kernel's `2 * (w + k) + 32`; shorter ones test the rule harder).
#[allow(clippy::too_many_arguments)]
fn model_chunk(seq: &[u8], s: usize, e: usize, w: usize, k: usize, hpc: bool, rid: u32, mut warm: usize, out: &mut Vec<Minimizer>) {
    let len = seq.len();
    let nt4 = |i: usize| SEQ_NT4_TABLE[seq[i] as usize] as u64;
    let (mask, shift1) = ((1u64 << (2 * k)) - 1, 2 * (k - 1));
    'attempt: loop {
        let p = s.saturating_sub(warm);
        warm *= 2;
        let mut found = vec![];
        let (mut kmer0, mut kmer1) = (0u64, 0u64);
        let (mut l, mut buf_pos, mut min_pos, mut kmer_span) = (0usize, 0usize, 0usize, 0usize);
        let (mut tq, mut tq_front, mut tq_count) = ([0usize; 32], 0usize, 0usize);
        let mut mn = EMPTY;
        let mut buf = vec![EMPTY; w];
        let (mut synced, mut rx, mut cleared) = (p == 0, false, false);
        let (mut n_valid, mut lx, mut good) = (0usize, 0usize, 0usize);
        let mut i = p;
        while i < len {
            let start = i;
            if start >= e {
                break;
            }
            let emit = start >= s;
            if emit && !synced {
                if good >= w && (rx || lx >= w + k) {
                    synced = true;
                } else {
                    continue 'attempt;
                }
            }
            let mut push = |m: Minimizer| {
                if emit {
                    found.push(m)
                }
            };
            let c = nt4(i);
            let mut info = EMPTY;
            let exact;
            if c < 4 {
                if hpc {
                    let mut skip_len = 1;
                    if i + 1 < len && nt4(i + 1) == c {
                        skip_len = 2;
                        while i + skip_len < len && nt4(i + skip_len) == c {
                            skip_len += 1;
                        }
                        i += skip_len - 1;
                    }
                    tq[(tq_count + tq_front) & 0x1f] = skip_len;
                    tq_count += 1;
                    kmer_span += skip_len;
                    if tq_count > k {
                        kmer_span -= tq[tq_front];
                        tq_front = (tq_front + 1) & 0x1f;
                        tq_count -= 1;
                    }
                } else {
                    kmer_span = (l + 1).min(k);
                }
                kmer0 = (kmer0 << 2 | c) & mask;
                kmer1 = (kmer1 >> 2) | (3 ^ c) << shift1;
                n_valid += 1;
                let kx = n_valid >= k;
                if kmer0 == kmer1 {
                    if !kx {
                        good = 0;
                    }
                    i += 1;
                    continue;
                }
                let z = (kmer0 >= kmer1) as u64;
                l += 1;
                if kx {
                    lx += 1;
                }
                if l >= k && kmer_span < 256 {
                    info.x = hash64(if z == 1 { kmer1 } else { kmer0 }, mask) << 8 | kmer_span as u64;
                    info.y = (rid as u64) << 32 | ((i as u32) << 1) as u64 | z;
                }
                exact = kx && (!hpc || cleared || n_valid > k) && (rx || lx >= k);
            } else {
                (l, tq_count, tq_front, kmer_span) = (0, 0, 0, 0);
                (lx, cleared, exact) = (0, true, true);
                if n_valid >= k {
                    rx = true;
                }
            }
            good = if exact { good + 1 } else { 0 };
            buf[buf_pos] = info;
            if l == w + k - 1 && mn.x != u64::MAX {
                for j in (buf_pos + 1..w).chain(0..buf_pos) {
                    if mn.x == buf[j].x && buf[j].y != mn.y {
                        push(buf[j]);
                    }
                }
            }
            if info.x <= mn.x {
                if l >= w + k && mn.x != u64::MAX {
                    push(mn);
                }
                (mn, min_pos) = (info, buf_pos);
            } else if buf_pos == min_pos {
                if l + 1 >= w + k && mn.x != u64::MAX {
                    push(mn);
                }
                mn.x = u64::MAX;
                for j in (buf_pos + 1..w).chain(0..=buf_pos) {
                    if mn.x >= buf[j].x {
                        (mn, min_pos) = (buf[j], j);
                    }
                }
                if l + 1 >= w + k && mn.x != u64::MAX {
                    for j in (buf_pos + 1..w).chain(0..=buf_pos) {
                        if mn.x == buf[j].x && mn.y != buf[j].y {
                            push(buf[j]);
                        }
                    }
                }
            }
            buf_pos += 1;
            if buf_pos == w {
                buf_pos = 0;
            }
            i += 1;
        }
        if e == len {
            if !synced && !(good >= w && (rx || lx >= w + k)) {
                continue 'attempt;
            }
            if mn.x != u64::MAX {
                found.push(mn);
            }
        }
        out.extend(found);
        return;
    }
}

/// The model's minimizers of `seq` in chunks of `chunk` bases.
fn model_sketch(seq: &[u8], s: Sketch, rid: u32, chunk: usize, warm: usize) -> Vec<Minimizer> {
    let mut out = vec![];
    for beg in (0..seq.len()).step_by(chunk) {
        model_chunk(seq, beg, (beg + chunk).min(seq.len()), s.w, s.k, s.hpc, rid, warm, &mut out);
    }
    out
}

fn twin_sketch(seq: &[u8], s: Sketch, rid: u32) -> Vec<Minimizer> {
    let mut v = vec![];
    warpalign::seed::twin::sketch(seq, s.w, s.k, rid, s.hpc, &mut v);
    v
}

/// Where `got` first differs from `want`, or None.
fn first_diff<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Option<String> {
    (got != want).then(|| {
        let i = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
        format!("{what}: {} vs twin {}, first difference at {i}: {:x?} vs {:x?}", got.len(), want.len(), got.get(i), want.get(i))
    })
}

/// Where a read's seeding first differs from the twin's, every field compared, or None.
fn seeds_diff(got: &ReadSeeds, want: &ReadSeeds) -> Option<String> {
    first_diff("minimizers", &got.mv, &want.mv)
        .or_else(|| first_diff("anchors", &got.hits.a, &want.hits.a))
        .or_else(|| first_diff("mini_pos", &got.hits.mini_pos, &want.hits.mini_pos))
        .or_else(|| (got.hits.rep_len != want.hits.rep_len).then(|| format!("rep_len {} vs twin {}", got.hits.rep_len, want.hits.rep_len)))
}

#[test]
fn sketch_chunks_model_equals_twin() {
    let n = env_u64("SEED_SKETCH_CASES", 20_000) / 4;
    let presets = preset_sketches();
    let failed = failing_cases(n, |i| {
        let mut rng = Rng::for_case(77, i);
        let s = random_params(&mut rng, &presets);
        let hi = if rng.chance(0.1) { 20_000 } else { 3000 };
        let len = rng.range(1, hi) as usize;
        let seq = random_seq(&mut rng, len);
        let want = twin_sketch(&seq, s, 3);
        [(1, 1), (2, 2 * (s.w + s.k) + 32), (3, 5), (7, 1), (50, 2 * (s.w + s.k) + 32), (1024, 2 * (s.w + s.k) + 32)]
            .into_iter()
            .find_map(|(chunk, warm)| {
                first_diff("minimizers", &model_sketch(&seq, s, 3, chunk, warm), &want)
                    .map(|d| format!("case {i} ({s:?}, len {len}, chunks of {chunk}, first warm-up {warm}): {d}"))
            })
    });
    assert!(failed.is_empty(), "{} of {n} cases differ: {:?}", failed.len(), &failed[..failed.len().min(20)]);
    eprintln!("seed gpu: the sketch kernel's chunk rule equals the twin on {n} sequences");
}

#[test]
fn layout_offsets_and_launch_plan() {
    let mut rng = Rng::new(5);
    let seqs: Vec<Vec<u8>> = (0..300)
        .map(|_| {
            let len = rng.range(1, 5000) as usize;
            random_seq(&mut rng, len)
        }).collect();
    let segs: Vec<Vec<&[u8]>> = (0..150).map(|i| if i % 3 == 0 { vec![&seqs[2 * i][..], &seqs[2 * i + 1][..]] } else { vec![&seqs[2 * i][..]] }).collect();
    let reads: Vec<SeedRead> = segs.iter().map(|s| SeedRead { segs: s, qname: None }).collect();
    for chunk in [1, 7, 1024] {
        let l = Layout::new(&reads, chunk);
        assert_eq!(l.bases, segs.iter().flatten().flat_map(|s| s.iter().copied()).collect::<Vec<u8>>());
        let mut sg = 0;
        for (r, read) in reads.iter().enumerate() {
            let mut chunks = l.read_chunk[r]..l.read_chunk[r + 1];
            let mut sum = 0i32;
            for (i, s) in read.segs.iter().enumerate() {
                assert_eq!((l.seg_len[sg] as usize, l.seg_rid[sg]), (s.len(), i as u32));
                assert_eq!(&l.bases[l.seg_off[sg] as usize..][..s.len()], *s);
                // collect_minimizers adds `sum << 1` to the y of the segment's minimizers
                assert_eq!(l.seg_add[sg], ((sum as i64) << 1) as u64);
                for beg in (0..s.len()).step_by(chunk) {
                    let c = chunks.next().expect("a chunk for every `chunk` bases");
                    assert_eq!((l.chunk_seg[c], l.chunk_beg[c] as usize), (sg as u32, beg));
                }
                sum += s.len() as i32;
                sg += 1;
            }
            assert_eq!(chunks.next(), None, "read {r}: chunks left over");
            assert_eq!(l.qlen[r], sum);
        }
    }
    assert_eq!(offsets([3, 0, 5]), vec![0, 3, 3, 8]);
    assert_eq!(offsets([]), vec![0]);
    // launches: at most LAUNCH_BASES bases (a longer read alone) and LAUNCH_JOBS reads, in order
    let big = vec![b'A'; LAUNCH_BASES + 1];
    let sizes = [LAUNCH_BASES / 2, LAUNCH_BASES / 2, 1, LAUNCH_BASES + 1, 10, 10];
    let segs: Vec<[&[u8]; 1]> = sizes.iter().map(|&n| [&big[..n]]).collect();
    let reads: Vec<SeedRead> = segs.iter().map(|s| SeedRead { segs: s, qname: None }).collect();
    assert_eq!(launch_plan(&reads), vec![0..2, 2..3, 3..4, 4..6]);
    let tiny: Vec<SeedRead> = (0..40_000).map(|_| SeedRead { segs: &segs[4], qname: None }).collect();
    assert_eq!(launch_plan(&tiny), vec![0..warpalign::gpu::LAUNCH_JOBS, warpalign::gpu::LAUNCH_JOBS..40_000]);
}

/// The options of a preset on `idx`, as minimap2 seeds its first round.
fn opt_of(s: Sketch, mo: &c::mm_mapopt_t, max_occ: i32) -> SeedOpt {
    SeedOpt {
        w: s.w,
        k: s.k,
        is_hpc: s.hpc,
        sdust_thres: mo.sdust_thres,
        q_occ_frac: mo.q_occ_frac,
        mid_occ: mo.mid_occ,
        max_occ,
        hit: HitOpt { flag: mo.flag, max_max_occ: mo.max_max_occ, occ_dist: mo.occ_dist },
    }
}

/// Each query's segments and name, borrowed.
type Borrowed<'a> = (Vec<Vec<&'a [u8]>>, Vec<Option<&'a [u8]>>);

fn reads_of(queries: &[(Vec<Vec<u8>>, Option<CString>)]) -> Borrowed<'_> {
    (queries.iter().map(|(s, _)| s.iter().map(|g| &g[..]).collect()).collect(), queries.iter().map(|(_, n)| n.as_ref().map(|n| n.as_bytes())).collect())
}

#[test]
fn batch_cpu_path_equals_twin_and_refuses_bad_input() {
    let Case { idx, s, mo, max_occ, queries, .. } = random_case(21, 4, 80);
    let flat = flat_of(&idx);
    let opt = opt_of(s, &mo, max_occ);
    let (segs, names) = reads_of(&queries);
    let reads: Vec<SeedRead> = segs.iter().zip(&names).map(|(s, n)| SeedRead { segs: s, qname: *n }).collect();
    let got = seed_batch(&Engine::cpu(), &flat, None, &opt, &reads).unwrap();
    for (i, r) in reads.iter().enumerate() {
        assert_eq!(got[i], seed_cpu(&flat, &opt, r), "read {i}");
    }
    let empty: [&[u8]; 2] = [b"ACGT", b""];
    let bad = [SeedRead { segs: &empty, qname: None }];
    assert!(seed_batch(&Engine::cpu(), &flat, None, &opt, &bad).is_err());
    assert!(seed_batch(&Engine::cpu(), &flat, None, &SeedOpt { w: 0, ..opt }, &reads).is_err());
    assert!(seed_batch(&Engine::cpu(), &flat, None, &SeedOpt { k: 29, ..opt }, &reads).is_err());
}

/// An index with no minimizers (the sketch tests need none).
fn empty_index() -> FlatIndex {
    FlatIndex { b: 0, seq_len: vec![], seq_name: vec![], bucket_start: vec![0, 0], keys: vec![], pos_start: vec![0], pos: vec![] }
}

#[test]
fn gpu_sketch_random_sequences() {
    let Some(rt) = start_gpu() else { return };
    let n = env_u64("SEED_GPU_CASES", 400);
    let presets = preset_sketches();
    let dev = DeviceIndex::upload(&rt, &empty_index()).unwrap();
    let mut bad = vec![];
    for i in 0..n {
        let mut rng = Rng::for_case(91, i);
        let s = random_params(&mut rng, &presets);
        let seqs: Vec<Vec<u8>> = (0..32)
            .map(|_| {
                let hi = if rng.chance(0.1) { 20_000 } else { 3000 };
        let len = rng.range(1, hi) as usize;
                random_seq(&mut rng, len)
            })
            .collect();
        let segs: Vec<Vec<&[u8]>> = seqs.chunks(2).flat_map(|p| [vec![&p[0][..], &p[1][..]], vec![&p[0][..]]]).collect();
        let reads: Vec<SeedRead> = segs.iter().map(|g| SeedRead { segs: g, qname: None }).collect();
        let opt = SeedOpt {
            w: s.w,
            k: s.k,
            is_hpc: s.hpc,
            sdust_thres: 0,
            q_occ_frac: 0.0,
            mid_occ: 10,
            max_occ: 10,
            hit: HitOpt { flag: 0, max_max_occ: 4095, occ_dist: 500 },
        };
        for chunk in [1, 7, 64, 1024] {
            let got = seed_launch(&rt, &dev, &opt, &reads, chunk).unwrap_or_else(|e| panic!("case {i}: {e}"));
            for (j, r) in reads.iter().enumerate() {
                let mut want = vec![];
                collect_minimizers(s.w, s.k, s.hpc, 0, r.segs, &mut want);
                if let Some(d) = first_diff("minimizers", &got[j].mv, &want) {
                    bad.push(format!("case {i} ({s:?}) read {j} (segments {:?}), chunks of {chunk}: {d}", r.segs.iter().map(|g| g.len()).collect::<Vec<_>>()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{} reads differ; first: {}", bad.len(), bad[..bad.len().min(3)].join("\n"));
    println!("seed gpu: sketches of {n} x 32 random sequences equal the twin, in chunks of 1, 7, 64 and 1024");
}

#[test]
fn gpu_random_queries() {
    let Some(rt) = start_gpu() else { return };
    let n = env_u64("SEED_GPU_CASES", 400);
    let mut bad = vec![];
    for i in 0..n {
        let Case { preset, idx, s, mut mo, max_occ, queries } = random_case(21, i, 15);
        // the heap variant stays on the CPU: its cases check the radix variant
        mo.flag &= !flag::HEAP_SORT;
        let flat = flat_of(&idx);
        let dev = DeviceIndex::upload(&rt, &flat).unwrap();
        let opt = opt_of(s, &mo, max_occ);
        let (segs, names) = reads_of(&queries);
        let reads: Vec<SeedRead> = segs.iter().zip(&names).map(|(s, n)| SeedRead { segs: s, qname: *n }).collect();
        let chunk = if i % 2 == 0 { 1024 } else { 37 };
        let got = seed_launch(&rt, &dev, &opt, &reads, chunk).unwrap_or_else(|e| panic!("case {i}: {e}"));
        for (j, r) in reads.iter().enumerate() {
            if let Some(d) = seeds_diff(&got[j], &seed_cpu(&flat, &opt, r)) {
                bad.push(format!("case {i} ({preset}, {s:?}, flag {:#x}, max_occ {max_occ}, sdust {}, q_occ_frac {}) read {j}: {d}", mo.flag, mo.sdust_thres, mo.q_occ_frac));
            }
        }
    }
    assert!(bad.is_empty(), "{} reads differ; first: {}", bad.len(), bad[..bad.len().min(3)].join("\n"));
    println!("seed gpu: {n} random cases x 16 queries equal the twin");
}

/// The real read sets and the genome itself (as `r0`, for the all-vs-all filters), with their names.
type Named = (String, Vec<u8>);

fn real_reads() -> Option<(Vec<Vec<u8>>, Vec<Named>)> {
    let data = crate::common::tools::data_dir();
    let genome: Vec<Vec<u8>> = read_seqs(&data.join("ref/ecoli_K12_MG1655.fasta.gz")).into_iter().map(|s| s.1).collect();
    if genome.is_empty() {
        return None;
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
    reads.push(("r0".to_string(), genome[0].clone()));
    Some((genome, reads))
}

#[test]
fn gpu_real_reads() {
    let Some(rt) = start_gpu() else { return };
    let Some((genome, reads)) = real_reads() else {
        println!("skipped: no E. coli genome (WARPALIGN_DATA)");
        return;
    };
    let names: Vec<CString> = reads.iter().map(|(n, _)| CString::new(n.as_bytes()).unwrap()).collect();
    let segs: Vec<[&[u8]; 1]> = reads.iter().map(|(_, q)| [&q[..]]).collect();
    let batch: Vec<SeedRead> = segs.iter().zip(&names).map(|(s, n)| SeedRead { segs: s, qname: Some(n.as_bytes()) }).collect();
    for (preset, sdust_thres) in [("map-ont", 0), ("map-ont", 20), ("map-pb", 0), ("map-hifi", 0), ("sr", 0), ("splice", 0), ("lr:hqae", 0), ("ava-ont", 0)] {
        let (io, mut mo) = preset_opts(preset);
        mo.sdust_thres = sdust_thres;
        mo.flag &= !flag::HEAP_SORT;
        let s = Sketch { k: io.k as usize, w: io.w as usize, hpc: io.flag as u32 & c::MM_I_HPC != 0 };
        let idx = Idx::build_named(&genome, s, io.bucket_bits as i32, true);
        // SAFETY: the options and a live index.
        unsafe { c::warpalign_oracle_mm_mapopt_update(&mut mo, idx.0) };
        let flat = flat_of(&idx);
        let dev = DeviceIndex::upload(&rt, &flat).unwrap();
        let opt = opt_of(s, &mo, mo.mid_occ);
        // once to load the kernels, once timed
        seed_batch_gpu(&rt, &dev, &opt, &batch).unwrap();
        let t = Instant::now();
        let got = seed_batch_gpu(&rt, &dev, &opt, &batch).unwrap();
        let t_gpu = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let want: Vec<ReadSeeds> = batch.par_iter().map(|r| seed_cpu(&flat, &opt, r)).collect();
        let t_cpu = t.elapsed().as_secs_f64();
        let bad: Vec<String> = (0..batch.len()).filter_map(|i| seeds_diff(&got[i], &want[i]).map(|d| format!("{preset} (sdust {sdust_thres}) read {}: {d}", reads[i].0))).collect();
        assert!(bad.is_empty(), "{} reads differ; first: {}", bad.len(), bad[..bad.len().min(3)].join("\n"));
        let anchors: usize = got.iter().map(|r| r.hits.a.len()).sum();
        println!(
            "seed gpu {preset} (sdust {sdust_thres}): {} reads, {anchors} anchors equal; GPU {:.0} reads/s, {:.3e} anchors/s; twin on {} threads {:.0} reads/s, {:.3e} anchors/s",
            batch.len(),
            batch.len() as f64 / t_gpu,
            anchors as f64 / t_gpu,
            rayon::current_num_threads(),
            batch.len() as f64 / t_cpu,
            anchors as f64 / t_cpu
        );
    }
}

#[test]
fn gpu_batch_call_routes() {
    if start_gpu().is_none() {
        return;
    }
    let engine = Engine::new(BackendChoice::Gpu);
    let rt = engine.gpu().expect("a GPU engine");
    let Case { idx, s, mut mo, max_occ, queries, .. } = random_case(21, 9, 99);
    let flat = flat_of(&idx);
    let dev = DeviceIndex::upload(&rt, &flat).unwrap();
    drop(rt);
    let (segs, names) = reads_of(&queries);
    let reads: Vec<SeedRead> = segs.iter().zip(&names).map(|(s, n)| SeedRead { segs: s, qname: *n }).collect();
    let other = empty_index();
    for heap in [false, true] {
        mo.flag = if heap { mo.flag | flag::HEAP_SORT } else { mo.flag & !flag::HEAP_SORT };
        let opt = opt_of(s, &mo, max_occ);
        let got = seed_batch(&engine, &flat, Some(&dev), &opt, &reads).unwrap();
        // an upload of another index is not used
        let other_dev = DeviceIndex::upload(&engine.gpu().unwrap(), &other).unwrap();
        let got_other = seed_batch(&engine, &flat, Some(&other_dev), &opt, &reads).unwrap();
        for (i, r) in reads.iter().enumerate() {
            let want = seed_cpu(&flat, &opt, r);
            assert_eq!(seeds_diff(&got[i], &want), None, "heap {heap}, read {i}");
            assert_eq!(seeds_diff(&got_other[i], &want), None, "heap {heap}, read {i}, another index's upload");
        }
    }
    println!("seed gpu: the batch call equals the twin on {} reads (radix and heap variants)", reads.len());
}

