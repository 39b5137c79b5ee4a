//! The seed engine's GPU path (`warpalign::seed::gpu`, kernels/seed.cu) and batch call (`warpalign::seed::batch`)
//! against the twin, every field of every read: the minimizers after `--q-occ-frac`, the anchors in order,
//! `rep_len`, `mini_pos`; the first difference is printed.
//!
//! Without a GPU: `sketch_chunks_model_equals_twin` checks the twin's `sketch_chunk`, the sketch kernel's chunk rule
//! line for line (each chunk restarts upstream's loop before its start and emits once its state provably equals
//! upstream's; the index's sketch by threads uses it too), on the sketch tests' sequences, chunks of 1 to 1024
//! bases, first warm-ups down to one base;
//! `emulated_kernels_equal_twin` and `emulated_kernels_on_real_reads` run kernels/seed.cu itself on the host
//! (tests/seed/emu.cpp, built with the host's C++ compiler: no kernel synchronizes its threads, so one thread after
//! another is a legal schedule) on the hits tests' random cases (8 queries each, sketch chunks of 1, 5, 37 and 1024
//! bases, item chunks of 1 to 256, host sorts past 100 anchors and more) and on the real reads under map-ont, sr and
//! ava-ont (every sort on the emulated device); the host's layout, chunk tables, offsets and launch plan, and the
//! CPU path of the batch call, are checked too.
//!
//! With a GPU (else they print "skipped: no GPU"): `gpu_sketch_random_sequences` (the sketch tests' sequences, one
//! or two segments, chunks of 1, 7, 64 and 1024 bases), `gpu_random_queries` (the hits tests' random cases, 16
//! queries each, every preset, filters and limits, `--sdust-thres` included; the heap variant's cases run the radix
//! variant, which the GPU computes), `gpu_real_reads` (the real reads onto E. coli under the hits tests' presets,
//! through the launch plan, with reads/s and anchors/s against the twin on all cores) and `gpu_batch_call_routes`
//! (`seed_batch` on a GPU engine, the heap variant and another index's upload included). `SEED_GPU_CASES=N` sets
//! the random cases of the GPU tests (default 400 each); the emulated ones take a tenth of `SEED_HITS_CASES`.

use crate::common::gpu::start_gpu;
use crate::common::{env_u64, failing_cases, Rng};
use crate::hits::{diff, flat_of, oracle, random_case, Case, MapOpt};
use crate::index::Idx;
use crate::sketch::{random_params, random_seq};
use crate::{preset_opts, preset_sketches, read_seqs, Sketch};
use rayon::prelude::*;
use std::ffi::CString;
use std::time::Instant;
use warpalign::gpu::fault;
use warpalign::seed::batch::{seed_batch, seed_batch_on_gpu, seed_cpu, ReadSeeds, SeedOpt, SeedRead};
use warpalign::seed::gpu::{finish_sort, launch_plan, offsets, qocc_tables, seed_batch_gpu, seed_launch, Chunks, DeviceIndex, ItemChunks, Layout, CHUNKS, CHUNK_ITEMS, LAUNCH_BASES, SORT_GPU_MAX};
use warpalign::seed::index::{FlatIndex, IndexTables, MmIdx};
use warpalign::seed::twin::hits::{collect_minimizers, flag, HitOpt};
use warpalign::seed::twin::sketch_chunk;
use warpalign::seed::Minimizer;
use warpalign::{BackendChoice, Engine};
use warpalign_ffi::mm2 as c;

/// `sketch_chunk`'s minimizers of `seq` in chunks of `chunk` bases.
fn model_sketch(seq: &[u8], s: Sketch, rid: u32, chunk: usize, warm: usize) -> Vec<Minimizer> {
    let mut out = vec![];
    for beg in (0..seq.len()).step_by(chunk) {
        sketch_chunk(seq, beg, (beg + chunk).min(seq.len()), s.w, s.k, s.hpc, rid, warm, &mut out);
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
    // the later steps' chunks of items: every item of every read in exactly one, in order
    let c = ItemChunks::new(&[5, 0, 3, 1], 2);
    assert_eq!((c.read, c.beg, c.first), (vec![0, 0, 0, 2, 2, 3], vec![0, 2, 4, 0, 2, 0], vec![0, 3, 3, 5, 6]));
    assert_eq!(ItemChunks::new(&[], 256), ItemChunks { read: vec![], beg: vec![], first: vec![0] });
    // --q-occ-frac's tables: only reads above mid_occ, a power of two at least twice their minimizers
    assert_eq!(qocc_tables(&[10, 11, 64, 0], 10), (vec![0, 0, 32, 160], vec![0, 31, 127, 0], 160));
    assert_eq!(qocc_tables(&[10, 11], 0), (vec![0, 0], vec![0, 0], 0));
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
        keep_mv: true,
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
            keep_mv: true,
        };
        for chunk in [1, 7, 64, 1024] {
            let chunks = Chunks { bases: chunk, ..CHUNKS };
            let got = seed_launch(&rt, &dev, &opt, &reads, chunks, &fault::Batch::default()).unwrap_or_else(|e| panic!("case {i}: {e}"));
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
        let chunks = Chunks {
            bases: if i % 2 == 0 { 1024 } else { 37 },
            items: [CHUNK_ITEMS, 1, 7][i as usize % 3],
            sort_max: [SORT_GPU_MAX, 100][i as usize % 2],
        };
        let got = seed_launch(&rt, &dev, &opt, &reads, chunks, &fault::Batch::default()).unwrap_or_else(|e| panic!("case {i} ({chunks:?}): {e}"));
        for (j, r) in reads.iter().enumerate() {
            if let Some(d) = seeds_diff(&got[j], &seed_cpu(&flat, &opt, r)) {
                bad.push(format!("case {i} ({preset}, {s:?}, flag {:#x}, max_occ {max_occ}, sdust {}, q_occ_frac {}, {chunks:?}) read {j}: {d}", mo.flag, mo.sdust_thres, mo.q_occ_frac));
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
        // the reads alone, without the genome (one query of 4.6 Mb, which bounds both sides' time)
        let only = &batch[..batch.len() - 1];
        let t = Instant::now();
        let got_only = seed_batch_gpu(&rt, &dev, &opt, only).unwrap();
        let t_gpu_only = t.elapsed().as_secs_f64();
        assert!(got_only.iter().zip(&got).all(|(a, b)| a == b), "{preset}: the reads alone seed as in the batch");
        let t = Instant::now();
        let cpu_only: Vec<ReadSeeds> = only.par_iter().map(|r| seed_cpu(&flat, &opt, r)).collect();
        let t_cpu_only = t.elapsed().as_secs_f64();
        drop(cpu_only);
        // every sort on the device, the genome's too
        let t = Instant::now();
        let all_dev = seed_launch(&rt, &dev, &opt, &batch, Chunks { sort_max: usize::MAX, ..CHUNKS }, &fault::Batch::default()).unwrap();
        let t_all_dev = t.elapsed().as_secs_f64();
        assert!(all_dev == got, "{preset}: the device's sorts equal the host's");
        drop(all_dev);
        println!(
            "seed gpu {preset} (sdust {sdust_thres}): {} reads, {anchors} anchors equal; GPU {:.0} reads/s, {:.3e} anchors/s; twin on {} threads {:.0} reads/s, {:.3e} anchors/s; without the genome: GPU {:.1} ms, twin {:.1} ms; every sort on the device: GPU {:.1} ms",
            batch.len(),
            batch.len() as f64 / t_gpu,
            anchors as f64 / t_gpu,
            rayon::current_num_threads(),
            batch.len() as f64 / t_cpu,
            anchors as f64 / t_cpu,
            t_gpu_only * 1e3,
            t_cpu_only * 1e3,
            t_all_dev * 1e3
        );
    }
}

/// The GPU's seeds against upstream's own functions (through `ffi/`), read by read, at volume: the hits tests'
/// random cases (every preset, the filters and limits varied; 2,048 queries a case on its index, the heap variant's
/// cases run the radix variant) through the batch call's launch plan, then the real reads onto E. coli under the
/// presets of `gpu_real_reads`. `SEED_GPU_VOLUME_READS=N` sets the random reads (default 20,000).
#[test]
fn gpu_volume_against_upstream() {
    let Some(rt) = start_gpu() else { return };
    let want = env_u64("SEED_GPU_VOLUME_READS", 20_000);
    let (mut reads, mut cases, mut anchors) = (0u64, 0u64, 0usize);
    let mut presets = std::collections::BTreeMap::<&str, u64>::new();
    let t = Instant::now();
    while reads < want {
        let i = cases;
        cases += 1;
        let Case { preset, idx, s, mut mo, max_occ, queries } = random_case(77, i, 2047);
        mo.flag &= !flag::HEAP_SORT;
        let flat = flat_of(&idx);
        let dev = DeviceIndex::upload(&rt, &flat).unwrap();
        let opt = opt_of(s, &mo, max_occ);
        let (segs, names) = reads_of(&queries);
        let batch: Vec<SeedRead> = segs.iter().zip(&names).map(|(s, n)| SeedRead { segs: s, qname: *n }).collect();
        let got = seed_batch_gpu(&rt, &dev, &opt, &batch).unwrap_or_else(|e| panic!("case {i}: {e}"));
        let shared = &MapOpt(mo);
        let bad: Vec<String> = (0..queries.len())
            .into_par_iter()
            .filter_map(|j| {
                let (q, qname) = &queries[j];
                let q: Vec<&[u8]> = q.iter().map(|g| &g[..]).collect();
                let o = oracle(&idx, &shared.0, &q, qname.as_ref(), max_occ);
                let g = (o.0.clone(), got[j].mv.clone(), got[j].hits.clone());
                diff(&g, &o).map(|d| format!("case {i} ({preset}, {s:?}, flag {:#x}, max_occ {max_occ}) read {j}: {d}", mo.flag))
            })
            .collect();
        assert!(bad.is_empty(), "{} reads differ from upstream; first: {}", bad.len(), bad[..bad.len().min(3)].join("\n"));
        anchors += got.iter().map(|r| r.hits.a.len()).sum::<usize>();
        reads += queries.len() as u64;
        *presets.entry(preset).or_default() += queries.len() as u64;
    }
    println!(
        "seed gpu vs upstream: {reads} random reads in {cases} cases, {anchors} anchors, all equal ({:.0} s); reads by preset: {presets:?}",
        t.elapsed().as_secs_f64()
    );
    let Some((genome, real)) = real_reads() else {
        println!("skipped: no E. coli genome (WARPALIGN_DATA)");
        return;
    };
    let names: Vec<CString> = real.iter().map(|(n, _)| CString::new(n.as_bytes()).unwrap()).collect();
    let segs: Vec<[&[u8]; 1]> = real.iter().map(|(_, q)| [&q[..]]).collect();
    let batch: Vec<SeedRead> = segs.iter().zip(&names).map(|(s, n)| SeedRead { segs: s, qname: Some(n.as_bytes()) }).collect();
    let mut n_real = 0;
    for (preset, sdust_thres) in [("map-ont", 0), ("map-ont", 20), ("map-pb", 0), ("map-hifi", 0), ("sr", 0), ("splice", 0), ("lr:hqae", 0), ("ava-ont", 0)] {
        let (io, mut mo) = crate::preset_opts(preset);
        mo.sdust_thres = sdust_thres;
        mo.flag &= !flag::HEAP_SORT;
        let s = Sketch { k: io.k as usize, w: io.w as usize, hpc: io.flag as u32 & c::MM_I_HPC != 0 };
        let idx = Idx::build_named(&genome, s, io.bucket_bits as i32, true);
        // SAFETY: the options and a live index.
        unsafe { c::warpalign_oracle_mm_mapopt_update(&mut mo, idx.0) };
        let flat = flat_of(&idx);
        let dev = DeviceIndex::upload(&rt, &flat).unwrap();
        let got = seed_batch_gpu(&rt, &dev, &opt_of(s, &mo, mo.mid_occ), &batch).unwrap();
        let shared = &MapOpt(mo);
        let bad: Vec<String> = (0..batch.len())
            .into_par_iter()
            .filter_map(|j| {
                let o = oracle(&idx, &shared.0, &segs[j], Some(&names[j]), shared.0.mid_occ);
                let g = (o.0.clone(), got[j].mv.clone(), got[j].hits.clone());
                diff(&g, &o).map(|d| format!("{preset} (sdust {sdust_thres}) read {}: {d}", real[j].0))
            })
            .collect();
        assert!(bad.is_empty(), "{} real reads differ from upstream; first: {}", bad.len(), bad[..bad.len().min(3)].join("\n"));
        n_real += batch.len();
    }
    println!("seed gpu vs upstream: {n_real} real reads (8 presets, the genome itself among them) equal");
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

#[test]
fn gpu_index_straight_from_upstream() {
    if start_gpu().is_none() {
        return;
    }
    let engine = Engine::new(BackendChoice::Gpu);
    for case in 0..6 {
        let Case { idx, s, mut mo, max_occ, queries, .. } = random_case(23, case, 99);
        mo.flag &= !flag::HEAP_SORT;
        let flat = flat_of(&idx);
        // SAFETY: the index is alive and finished.
        let dev = unsafe { DeviceIndex::upload_mm_idx(&engine.gpu().unwrap(), idx.0 as *const MmIdx) }.unwrap();
        assert!(dev.matches(&flat), "case {case}: the streamed upload's shape");
        let (segs, names) = reads_of(&queries);
        let reads: Vec<SeedRead> = segs.iter().zip(&names).map(|(s, n)| SeedRead { segs: s, qname: *n }).collect();
        let opt = opt_of(s, &mo, max_occ);
        let got = seed_batch_on_gpu(&engine, &dev, &opt, &reads).unwrap().expect("the GPU takes the batch");
        for (i, r) in reads.iter().enumerate() {
            assert_eq!(seeds_diff(&got[i], &seed_cpu(&flat, &opt, r)), None, "case {case}, read {i}");
        }
        // without the minimizers: the same hits, and the twin's too
        let no_mv = SeedOpt { keep_mv: false, ..opt };
        let lean = seed_batch_on_gpu(&engine, &dev, &no_mv, &reads).unwrap().expect("the GPU takes the batch");
        for (i, r) in reads.iter().enumerate() {
            assert!(lean[i].mv.is_empty() && lean[i].hits == got[i].hits, "case {case}, read {i}, without minimizers");
            assert_eq!(seed_cpu(&flat, &no_mv, r), lean[i], "case {case}, read {i}: the twin without minimizers");
        }
        // what it leaves to the caller: the heap variant, fewer reads than a GPU batch takes
        let heap = SeedOpt { hit: HitOpt { flag: mo.flag | flag::HEAP_SORT, ..opt.hit }, ..opt };
        assert!(seed_batch_on_gpu(&engine, &dev, &heap, &reads).unwrap().is_none());
        assert!(seed_batch_on_gpu(&engine, &dev, &opt, &reads[..3]).unwrap().is_none());
    }
    println!("seed gpu: an index uploaded straight from upstream's tables seeds as the twin (6 random cases)");
}


#[repr(C)]
struct EmuIndex {
    b: i32,
    slot_start: *const u64,
    keys: *const u64,
    p_start: *const u64,
    words: *const u64,
    seq_len: *const u32,
    name_off: *const u64,
    names: *const u8,
}

#[repr(C)]
struct EmuOpt {
    w: i32,
    k: i32,
    is_hpc: i32,
    mid_occ: i32,
    max_occ: i32,
    max_max_occ: i32,
    occ_dist: i32,
    chunk: i32,
    items: i32,
    sort_max: i32,
    q_occ_frac: f32,
    flag: i64,
}

#[repr(C)]
struct EmuOut {
    mv: *mut u64,
    mv_off: *mut u64,
    mv_n: *mut u64,
    a: *mut u64,
    a_off: *mut u64,
    a_n: *mut u64,
    mini_pos: *mut u64,
    n_mini: *mut u64,
    rep: *mut i32,
}

type EmuFn = unsafe extern "C" fn(
    i32,
    *const u8,
    *const u32,
    *const u32,
    *const u8,
    *const u64,
    *const u8,
    *const EmuIndex,
    *const EmuOpt,
    *mut EmuOut,
);

/// tests/seed/emu.cpp (kernels/seed.cu on the host) built by the host's C++ compiler (`CXX`, else `c++`), or None
/// after printing "skipped: ...".
fn emulator() -> Option<EmuFn> {
    static LIB: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let f = LIB.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("warpalign-seed-emu-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let lib = dir.join("libseedemu.so");
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/seed/emu.cpp");
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        let built = std::process::Command::new(&cxx)
            .args(["-O2", "-std=c++17", "-shared", "-fPIC", "-ffp-contract=off", "-o"])
            .arg(&lib)
            .arg(src)
            .status()
            .is_ok_and(|s| s.success());
        if !built {
            return None;
        }
        let path = CString::new(lib.to_str()?).ok()?;
        // SAFETY: a library this test just built; its one symbol is looked up by name and kept for the process.
        unsafe {
            let h = libc::dlopen(path.as_ptr(), libc::RTLD_NOW);
            let sym = if h.is_null() { std::ptr::null_mut() } else { libc::dlsym(h, c"emu_seed".as_ptr()) };
            (!sym.is_null()).then_some(sym as usize)
        }
    });
    match f {
        // SAFETY: emu_seed's address, with the signature EmuFn declares (tests/seed/emu.cpp).
        Some(p) => Some(unsafe { std::mem::transmute::<usize, EmuFn>(*p) }),
        None => {
            println!("skipped: no C++ compiler to build tests/seed/emu.cpp (set CXX)");
            None
        }
    }
}

/// `reads` seeded by the emulated kernels with work units `chunks` (without --sdust-thres).
fn emu_seed(emu: EmuFn, idx: &FlatIndex, opt: &SeedOpt, reads: &[SeedRead], chunks: Chunks) -> Vec<ReadSeeds> {
    assert_eq!(opt.sdust_thres, 0);
    let bases: Vec<u8> = reads.iter().flat_map(|r| r.segs.iter().flat_map(|s| s.iter().copied())).collect();
    let read_nseg: Vec<u32> = reads.iter().map(|r| r.segs.len() as u32).collect();
    let seg_len: Vec<u32> = reads.iter().flat_map(|r| r.segs.iter().map(|s| s.len() as u32)).collect();
    let has_qname: Vec<u8> = reads.iter().map(|r| r.qname.is_some() as u8).collect();
    let qnames: Vec<u8> = reads.iter().flat_map(|r| r.qname.unwrap_or_default().iter().copied()).collect();
    let qname_off = offsets(reads.iter().map(|r| r.qname.map_or(0, |q| q.len() as u64)));
    let names: Vec<u8> = idx.seq_name.iter().flat_map(|n| n.as_deref().unwrap_or_default().iter().copied()).collect();
    let name_off = offsets(idx.seq_name.iter().map(|n| n.as_ref().map_or(0, |n| n.len() as u64)));
    let t = IndexTables::from_flat(idx);
    let ix = EmuIndex {
        b: idx.b as i32,
        slot_start: t.slot_start.as_ptr(),
        keys: t.keys.as_ptr(),
        p_start: t.p_start.as_ptr(),
        words: t.words.as_ptr(),
        seq_len: idx.seq_len.as_ptr(),
        name_off: name_off.as_ptr(),
        names: names.as_ptr(),
    };
    let eo = EmuOpt {
        w: opt.w as i32,
        k: opt.k as i32,
        is_hpc: opt.is_hpc as i32,
        mid_occ: opt.mid_occ,
        max_occ: opt.max_occ,
        max_max_occ: opt.hit.max_max_occ,
        occ_dist: opt.hit.occ_dist,
        chunk: chunks.bases as i32,
        items: chunks.items as i32,
        sort_max: chunks.sort_max.min(i32::MAX as usize) as i32,
        q_occ_frac: opt.q_occ_frac,
        flag: opt.hit.flag,
    };
    let null = std::ptr::null_mut();
    let mut o = EmuOut { mv: null, mv_off: null, mv_n: null, a: null, a_off: null, a_n: null, mini_pos: null, n_mini: null, rep: std::ptr::null_mut() };
    let n = reads.len();
    // the emulator's thread and block indices are globals: one call at a time
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: the arrays are as emu_seed reads them (tests/seed/emu.cpp); its outputs are malloc'ed, read by their
    // counts, then freed.
    unsafe {
        emu(n as i32, bases.as_ptr(), read_nseg.as_ptr(), seg_len.as_ptr(), has_qname.as_ptr(), qname_off.as_ptr(), qnames.as_ptr(), &ix, &eo, &mut o);
        let v = |p: *mut u64, len: usize| std::slice::from_raw_parts(p, len).to_vec();
        let (mv_off, mv_n, a_off, a_n, n_mini) = (v(o.mv_off, n), v(o.mv_n, n), v(o.a_off, n), v(o.a_n, n), v(o.n_mini, n));
        let rep = std::slice::from_raw_parts(o.rep, n).to_vec();
        let pairs = |p: *mut u64, off: u64, len: u64| {
            std::slice::from_raw_parts(p.add(2 * off as usize), 2 * len as usize).chunks_exact(2).map(|w| Minimizer { x: w[0], y: w[1] }).collect()
        };
        let out = (0..n)
            .map(|r| ReadSeeds {
                mv: pairs(o.mv, mv_off[r], mv_n[r]),
                hits: warpalign::seed::twin::hits::SeedHits {
                    a: {
                        let mut a = pairs(o.a, a_off[r], a_n[r]);
                        finish_sort(&mut a, chunks.sort_max);
                        a
                    },
                    rep_len: rep[r],
                    mini_pos: std::slice::from_raw_parts(o.mini_pos.add(mv_off[r] as usize), n_mini[r] as usize).to_vec(),
                },
            })
            .collect();
        for p in [o.mv, o.mv_off, o.mv_n, o.a, o.a_off, o.a_n, o.mini_pos, o.n_mini] {
            libc::free(p.cast());
        }
        libc::free(o.rep.cast());
        out
    }
}

#[test]
fn emulated_kernels_equal_twin() {
    let Some(emu) = emulator() else { return };
    let n = env_u64("SEED_HITS_CASES", 3000) / 10;
    let failed = failing_cases(n, |i| {
        let Case { preset, idx, s, mut mo, max_occ, queries } = random_case(21, i, 7);
        mo.flag &= !flag::HEAP_SORT;
        mo.sdust_thres = 0;
        let flat = flat_of(&idx);
        let opt = opt_of(s, &mo, max_occ);
        let (segs, names) = reads_of(&queries);
        let reads: Vec<SeedRead> = segs.iter().zip(&names).map(|(s, n)| SeedRead { segs: s, qname: *n }).collect();
        let chunks = Chunks {
            bases: [1024, 37, 5, 1][i as usize % 4],
            items: [CHUNK_ITEMS, 3, 1, 64, 17][i as usize % 5],
            sort_max: [SORT_GPU_MAX, 100, 1000][i as usize % 3],
        };
        let got = emu_seed(emu, &flat, &opt, &reads, chunks);
        reads.iter().enumerate().find_map(|(j, r)| {
            seeds_diff(&got[j], &seed_cpu(&flat, &opt, r)).map(|d| {
                format!("case {i} ({preset}, {s:?}, flag {:#x}, max_occ {max_occ}, q_occ_frac {}, {chunks:?}) read {j}: {d}", mo.flag, mo.q_occ_frac)
            })
        })
    });
    assert!(failed.is_empty(), "{} of {n} cases differ: {:?}", failed.len(), &failed[..failed.len().min(20)]);
    eprintln!("seed gpu: the emulated kernels equal the twin on {n} random cases x 8 queries");
}

#[test]
fn emulated_kernels_on_real_reads() {
    let Some(emu) = emulator() else { return };
    let Some((genome, reads)) = real_reads() else {
        println!("skipped: no E. coli genome (WARPALIGN_DATA)");
        return;
    };
    let names: Vec<CString> = reads.iter().map(|(n, _)| CString::new(n.as_bytes()).unwrap()).collect();
    let segs: Vec<[&[u8]; 1]> = reads.iter().map(|(_, q)| [&q[..]]).collect();
    let batch: Vec<SeedRead> = segs.iter().zip(&names).map(|(s, n)| SeedRead { segs: s, qname: Some(n.as_bytes()) }).collect();
    for preset in ["map-ont", "sr", "ava-ont"] {
        let (io, mut mo) = preset_opts(preset);
        mo.flag &= !flag::HEAP_SORT;
        let s = Sketch { k: io.k as usize, w: io.w as usize, hpc: io.flag as u32 & c::MM_I_HPC != 0 };
        let idx = Idx::build_named(&genome, s, io.bucket_bits as i32, true);
        // SAFETY: the options and a live index.
        unsafe { c::warpalign_oracle_mm_mapopt_update(&mut mo, idx.0) };
        let flat = flat_of(&idx);
        let opt = opt_of(s, &mo, mo.mid_occ);
        // every read's sort on the emulated device, the genome's too (the random cases cover the host's)
        let got = emu_seed(emu, &flat, &opt, &batch, Chunks { sort_max: usize::MAX, ..CHUNKS });
        let bad: Vec<String> = batch
            .par_iter()
            .enumerate()
            .filter_map(|(i, r)| seeds_diff(&got[i], &seed_cpu(&flat, &opt, r)).map(|d| format!("{preset} read {}: {d}", reads[i].0)))
            .collect();
        assert!(bad.is_empty(), "{} reads differ; first: {}", bad.len(), bad[..bad.len().min(3)].join("\n"));
        let anchors: usize = got.iter().map(|r| r.hits.a.len()).sum();
        eprintln!("seed gpu: the emulated kernels equal the twin on {} real reads under {preset} ({anchors} anchors)", batch.len());
    }
}
