//! The twin of `mm_sketch` (`warpalign::seed::twin::sketch`) against upstream's on fixed-seed random sequences
//! and on the real reads: every minimizer (`x`, `y`), in order, must be equal.
//!
//! Random cases mix every preset's (k, w, homopolymer compression), as upstream's `mm_set_opt` sets them, with
//! any k in 1..=28 and w in 1..=255; sequences are random bases (upper and lower case, N, bytes 0..4 and others), long
//! homopolymers, tandem repeats (ties in a window, reverse-complement palindromes) and mutated repeats, from one
//! base to 20 kb. `SEED_SKETCH_CASES=N` sets their number (default 20000), `SEED_SKETCH_SEED=S` their seed base,
//! `SEED_SKETCH_ONLY=i` replays case i alone.

use crate::common::{env_u64, failing_cases, pick, Rng};
use crate::{oracle_sketch, preset_sketches, read_seqs, twin_sketch, Sketch};
use rayon::prelude::*;
use warpalign::seed::batch::sketch_by_threads;
use warpalign::seed::Minimizer;

/// Where two minimizer lists first differ, or None.
fn diff(twin: &[Minimizer], want: &[Minimizer]) -> Option<String> {
    if twin == want {
        return None;
    }
    let i = twin.iter().zip(want).position(|(a, b)| a != b).unwrap_or(twin.len().min(want.len()));
    Some(format!(
        "{} minimizers, upstream {}; first difference at {i}: twin {:x?}, upstream {:x?}",
        twin.len(),
        want.len(),
        twin.get(i),
        want.get(i)
    ))
}

fn base(rng: &mut Rng) -> u8 {
    b"ACGT"[rng.below(4) as usize]
}

/// A random sequence of one of the shapes in the header.
pub(crate) fn random_seq(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut s = Vec::with_capacity(len + 64);
    match rng.below(4) {
        0 => {
            let n_rate = pick(rng, &[0.0, 0.001, 0.02, 0.2]);
            let lower = rng.chance(0.3);
            while s.len() < len {
                let c = if rng.chance(n_rate) { pick(rng, b"NnNnRY-U u\0\x01\x02\x03\x04\xff") } else { base(rng) };
                s.push(if lower && rng.chance(0.5) { c.to_ascii_lowercase() } else { c });
            }
        }
        1 => {
            let max_run = pick(rng, &[4, 12, 40, 300]);
            while s.len() < len {
                let c = if rng.chance(0.01) { b'N' } else { base(rng) };
                let run = rng.range(1, max_run) as usize;
                s.extend(std::iter::repeat_n(c, run));
            }
        }
        2 => {
            let unit: Vec<u8> = if rng.chance(0.3) {
                pick(rng, &[&b"AT"[..], b"GC", b"ACGT", b"AATT", b"GAATTC", b"TTAA"]).to_vec()
            } else {
                (0..rng.range(1, 8)).map(|_| base(rng)).collect()
            };
            let rate = pick(rng, &[0.0, 0.0, 0.01, 0.05]);
            while s.len() < len {
                for &c in &unit {
                    s.push(if rng.chance(rate) { base(rng) } else { c });
                }
            }
        }
        _ => {
            let unit: Vec<u8> = (0..rng.range(20, 400)).map(|_| base(rng)).collect();
            while s.len() < len {
                let nt4: Vec<u8> = unit.iter().map(|&c| b"ACGT".iter().position(|&b| b == c).unwrap() as u8).collect();
                s.extend(rng.mutate(&nt4, 0.02).iter().map(|&c| b"ACGT"[c as usize]));
            }
        }
    }
    s.truncate(len);
    s
}

pub(crate) fn random_params(rng: &mut Rng, presets: &[(String, Sketch)]) -> Sketch {
    if rng.chance(0.5) {
        return presets[rng.below(presets.len() as u64) as usize].1;
    }
    let k = rng.range(1, 28) as usize;
    let w = if rng.chance(0.6) { rng.range(1, 25) } else { rng.range(1, 255) } as usize;
    Sketch { k, w, hpc: rng.chance(0.5) }
}

#[test]
fn random_sequences() {
    let n = env_u64("SEED_SKETCH_CASES", 20_000);
    let seed = env_u64("SEED_SKETCH_SEED", 21);
    let only = std::env::var("SEED_SKETCH_ONLY").ok().and_then(|s| s.parse::<u64>().ok());
    let presets = preset_sketches();
    let check = |i: u64| {
        if only.is_some_and(|o| o != i) {
            return None;
        }
        let mut rng = Rng::for_case(seed, i);
        let s = random_params(&mut rng, &presets);
        let len = match rng.below(10) {
            0 => rng.range(1, (s.w + s.k + 3) as i64),
            1 => rng.range(3000, 20_000),
            _ => rng.range(1, 3000),
        } as usize;
        let seq = random_seq(&mut rng, len);
        let rid = if rng.chance(0.5) { 0 } else { rng.next_u64() as u32 };
        diff(&twin_sketch(&seq, s, rid), &oracle_sketch(&seq, s, rid))
            .map(|d| format!("case {i} ({s:?}, len {len}, rid {rid}): {d}"))
    };
    let failed = failing_cases(n, check);
    assert!(failed.is_empty(), "{} of {n} cases differ: {:?}", failed.len(), &failed[..failed.len().min(20)]);
    eprintln!("sketch: {n} random cases equal");
}

/// Every real read set (and the reference genomes), with every preset's sketch parameters.
#[test]
fn real_reads() {
    let data = crate::common::tools::data_dir();
    let files = [
        "ont/ecoli_ultralong_R9_nanotest.fastq.gz",
        "ont/ecoli_R9_medaka_test_reads.fasta.gz",
        "lambda/lambda_ont_R7_2D_ERA476754.fastq.gz",
        "pacbio/ecoli_sequel_clr_subreads.fastq.gz",
        "ref/ecoli_K12_MG1655.fasta.gz",
        "wga/hpylori_G27.fasta.gz",
    ];
    let presets = preset_sketches();
    let mut n_seqs = 0;
    for f in files {
        let seqs = read_seqs(&data.join(f));
        let bad: Vec<String> = presets
            .par_iter()
            .flat_map(|(name, s)| {
                seqs.par_iter().enumerate().filter(|(_, (_, q))| !q.is_empty()).filter_map(move |(rid, (qn, q))| {
                    diff(&twin_sketch(q, *s, rid as u32), &oracle_sketch(q, *s, rid as u32))
                        .map(|d| format!("{f} {qn} with {name} ({s:?}): {d}"))
                })
            })
            .collect();
        assert!(bad.is_empty(), "{} sequences differ; first: {}", bad.len(), bad[0]);
        n_seqs += seqs.len();
    }
    eprintln!("sketch: {n_seqs} real sequences equal under {} preset sketches", presets.len());
}

/// `sketch_by_threads` (the index's sketch: a batch of sequences in chunks of 64 kb, by threads) against upstream's
/// `mm_sketch` of each sequence in turn: batches of 1 to 6 sequences of the random shapes, from one base to 300 kb,
/// some with a run of N of up to 100 kb (so chunk edges fall in runs of N, homopolymers and repeats), every preset's sketch and any k and w, 1 to 8
/// threads. `SEED_SKETCH_CASES` / 50 batches (default 400).
#[test]
fn by_threads_equals_upstream() {
    let n = (env_u64("SEED_SKETCH_CASES", 20_000) / 50).max(1);
    let presets = preset_sketches();
    let failed = failing_cases(n, |i| {
        let mut rng = Rng::for_case(91, i);
        let s = random_params(&mut rng, &presets);
        let seqs: Vec<(Vec<u8>, u32)> = (0..rng.range(1, 7))
            .map(|j| {
                let len = match rng.below(4) {
                    0 => rng.range(1, 3000),
                    1 => rng.range(60_000, 140_000),
                    _ => rng.range(3000, 300_000),
                } as usize;
                let mut q = random_seq(&mut rng, len);
                if rng.chance(0.3) {
                    // a run of N up to longer than a chunk: chunks wholly inside it, and warm-ups that restart before it
                    let at = rng.below(len as u64) as usize;
                    let run = (rng.range(1, 100_000) as usize).min(len - at);
                    q[at..at + run].fill(b'N');
                }
                (q, j as u32 + 7)
            })
            .collect();
        let threads = rng.range(1, 9) as usize;
        let batch: Vec<(&[u8], u32)> = seqs.iter().map(|(q, rid)| (&q[..], *rid)).collect();
        let got: Vec<Minimizer> = sketch_by_threads(&batch, s.w, s.k, s.hpc, threads).unwrap().concat();
        let want: Vec<Minimizer> = seqs.iter().flat_map(|(q, rid)| oracle_sketch(q, s, *rid)).collect();
        diff(&got, &want).map(|d| format!("case {i} ({s:?}, {} sequences, {threads} threads): {d}", seqs.len()))
    });
    assert!(failed.is_empty(), "{} of {n} batches differ: {:?}", failed.len(), &failed[..failed.len().min(20)]);
    eprintln!("sketch: {n} random batches by threads equal upstream's");
}

/// The real genomes (one batch each, as the index step reads them) by threads against upstream, every preset's
/// sketch; and a batch that upstream would abort on is refused.
#[test]
fn by_threads_real_genomes() {
    let data = crate::common::tools::data_dir();
    let presets = preset_sketches();
    let mut n_seqs = 0;
    for f in ["ref/ecoli_K12_MG1655.fasta.gz", "wga/hpylori_G27.fasta.gz", "wga/B_anthracis_contigs.fasta.gz", "wga/D_melanogaster_2Rslice.fasta.gz"] {
        let seqs = read_seqs(&data.join(f));
        let batch: Vec<(&[u8], u32)> = seqs.iter().enumerate().filter(|(_, (_, q))| !q.is_empty()).map(|(i, (_, q))| (&q[..], i as u32)).collect();
        for (name, s) in &presets {
            let got: Vec<Minimizer> = sketch_by_threads(&batch, s.w, s.k, s.hpc, 16).unwrap().concat();
            let want: Vec<Minimizer> = batch.iter().flat_map(|&(q, rid)| oracle_sketch(q, *s, rid)).collect();
            if let Some(d) = diff(&got, &want) {
                panic!("{f} with {name} ({s:?}): {d}");
            }
        }
        n_seqs += batch.len();
    }
    assert!(sketch_by_threads(&[(b"ACGT", 0)], 0, 15, false, 2).is_err());
    assert!(sketch_by_threads(&[(b"ACGT", 0)], 10, 29, false, 2).is_err());
    assert!(sketch_by_threads(&[(b"", 0)], 10, 15, false, 2).is_err());
    eprintln!("sketch: {n_seqs} real genome sequences by threads equal upstream's under {} preset sketches", presets.len());
}
