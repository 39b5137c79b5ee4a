//! The batched search engine on the GPU (`SearchEngine::search_gpu`, kernels/search.cu) against the twin, on
//! the engine tests' families and configurations (tests/search/engine.rs), errors not hidden by the CPU
//! fallback; and the time per strand on the largest genome pair, GPU vs the CPU backend. Without a GPU those
//! tests print "skipped: no GPU" and pass (the kernel is compiled wherever NVRTC is found: tests/gpu.rs); a
//! CPU model of the kernels' grouping runs everywhere.

use crate::common::{env_u64, Rng};
use crate::engine::{engine_run, family_vs_twin, genomes_vs_twin, masking_vs_upstream};
use crate::oracle::{collision_pair, random_options, random_pair, twin};
use std::time::Instant;
use warpalign::search::twin::scoring::ScoreMatrix;
use warpalign::search::{SearchConfig, SearchEngine, SearchOptions, SeedIndex};
use warpalign::{Backend, BackendChoice, Engine};

/// An engine with a GPU, or None after printing "skipped: no GPU".
fn gpu_engine() -> Option<Engine> {
    let engine = Engine::new(BackendChoice::Auto);
    if !engine.has_gpu() {
        println!("skipped: no GPU");
        return None;
    }
    Some(engine)
}

#[test]
fn gpu_random_pairs_vs_twin() {
    let Some(engine) = gpu_engine() else { return };
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    family_vs_twin("GPU random pairs", n, env_u64("WARPALIGN_SEARCH_SEED", 23) + 20, random_pair, random_options, &engine, true);
}

/// Dynamic masking with the table on the GPU: the first strand there, the later ones on the CPU after the
/// first mask, against upstream (a few cases: each uploads a table, and the CPU test has the volume).
#[test]
fn gpu_engine_with_dynamic_masking_vs_upstream() {
    let Some(engine) = gpu_engine() else { return };
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 40;
    masking_vs_upstream("GPU, then masking", n, env_u64("WARPALIGN_SEARCH_SEED", 23) + 41, &engine);
}

#[test]
fn gpu_hash_collisions_vs_twin() {
    let Some(engine) = gpu_engine() else { return };
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    family_vs_twin("GPU collision pairs", n, env_u64("WARPALIGN_SEARCH_SEED", 23) + 21, collision_pair, random_options, &engine, true);
}

#[test]
fn gpu_genome_pairs_vs_twin() {
    let Some(engine) = gpu_engine() else { return };
    genomes_vs_twin(&engine, true);
}

/// A chunk of one hit per position and a block of one position: every kernel on its smallest input, and
/// `diagEnd` carried on the device across thousands of chunks.
#[test]
fn gpu_tiny_chunks_vs_twin() {
    let Some(engine) = gpu_engine() else { return };
    let scoring = ScoreMatrix::masked_hoxd70();
    let mut rng = Rng::new(5);
    let (t, q) = collision_pair(&mut rng);
    let o = SearchOptions::lastz_default();
    let tw = twin(&t, &[&q], &o, &scoring);
    for (block_positions, max_hits) in [(1, 1), (3, 1), (1000, 2), (1 << 20, 1)] {
        let config = SearchConfig { threads: 1, block_positions, max_hits };
        assert_eq!(engine_run(&engine, &t, &[&q], &o, &scoring, config, true), tw, "{config:?}");
    }
}

/// Time per strand of the GPU and CPU backends on the largest genome pair found
/// (LASTZ's defaults), after one warm-up strand; checks the GPU's HSPs against the CPU backend's.
#[test]
fn gpu_time_per_strand() {
    let Some(engine) = gpu_engine() else { return };
    let scoring = ScoreMatrix::masked_hoxd70();
    let o = SearchOptions::lastz_default();
    let mut largest: Option<(String, Vec<u8>, Vec<Vec<u8>>)> = None;
    crate::real::for_each_genome_pair(|tf, qf, target, strands| {
        if largest.as_ref().is_none_or(|(_, t, _)| t.len() < target.len()) {
            largest = Some((format!("{tf} vs {qf}"), target.to_vec(), strands.iter().map(|s| s.to_vec()).collect()));
        }
    });
    let Some((name, target, strands)) = largest else {
        println!("skipped: no genome pair");
        return;
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let e = SearchEngine::new(&engine, &target, SeedIndex::for_options(&target, &o), &o, &scoring, SearchConfig::with_threads(threads));
    assert_eq!(e.backend(), Backend::Gpu);
    let _ = e.search_gpu(&strands[0]);
    let (mut t_gpu, mut t_cpu, mut hsps) = (0.0, 0.0, 0);
    for s in &strands {
        let t0 = Instant::now();
        let g = e.search_gpu(s).expect("on the GPU").unwrap_or_else(|err| panic!("{err}"));
        t_gpu += t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let c = e.search_cpu(s);
        t_cpu += t0.elapsed().as_secs_f64();
        assert_eq!(g, c, "{name}: GPU vs CPU backend");
        hsps += c.len();
    }
    let n = strands.len() as f64;
    println!(
        "search {name} ({} bp target, {} strands, {hsps} HSPs): GPU {:.2} ms per strand, CPU backend ({threads} threads) {:.2} ms per strand",
        target.len(), strands.len(), 1e3 * t_gpu / n, 1e3 * t_cpu / n
    );
}

/// A CPU model of the kernels' grouping, line by line (kernels/search.cu: `sort_hist`, `scan_tiles_*` with
/// `scan_add_*`, `sort_scatter`: tiles of 1,024 per warp, digit-major histograms, ranks among a warp's lanes
/// with the same digit), against a stable sort by hashed diagonal, on sizes around the tile and scan
/// boundaries. Runs without a GPU: it checks the index arithmetic the GPU tests then check for real.
#[test]
fn kernel_grouping_model_is_a_stable_sort_by_hashed_diagonal() {
    const TILE: usize = 1024;
    /// `scan_tiles` + `scan_add`, recursively: the exclusive sums of `v` and the total at the end.
    fn scan(v: &[u64]) -> Vec<u64> {
        let n_blocks = (v.len() + 1).div_ceil(TILE);
        let mut out = vec![0u64; v.len() + 1];
        let mut sums = vec![0u64; n_blocks];
        for (b, sum) in sums.iter_mut().enumerate() {
            let mut prefix = 0;
            for i in b * TILE..((b + 1) * TILE).min(v.len() + 1) {
                out[i] = prefix;
                prefix += v.get(i).copied().unwrap_or(0);
            }
            *sum = prefix;
        }
        if n_blocks > 1 {
            let sums_ex = scan(&sums);
            for (i, o) in out.iter_mut().enumerate() {
                *o += sums_ex[i / TILE];
            }
        }
        out
    }
    let mut rng = Rng::new(3);
    for n in [1usize, 31, 32, 33, 1023, 1024, 1025, 5000, 300_000] {
        let hits: Vec<(u32, u32)> = (0..n)
            .map(|_| {
                let pos2 = rng.range(20, 1 << 20) as u32;
                // a few hashed diagonals, many hits each, and some spread out
                let diag = if rng.chance(0.5) { rng.below(4) as u32 * 65_536 + rng.below(3) as u32 } else { rng.below(1 << 24) as u32 };
                (pos2 + diag, pos2)
            })
            .collect();
        let h = |i: u32| (hits[i as usize].0.wrapping_sub(hits[i as usize].1) & 0xffff) as u64;
        let n_tiles = n.div_ceil(TILE);
        let mut input: Vec<u32> = (0..n as u32).collect();
        for shift in [0, 8] {
            let digit = |i: u32| ((h(i) >> shift) & 255) as usize;
            let mut hist = vec![0u64; 256 * n_tiles];
            for tile in 0..n_tiles {
                for &i in &input[tile * TILE..((tile + 1) * TILE).min(n)] {
                    hist[digit(i) * n_tiles + tile] += 1;
                }
            }
            let hist_ex = scan(&hist);
            let mut output = vec![u32::MAX; n];
            for tile in 0..n_tiles {
                let mut next: Vec<u64> = (0..256).map(|d| hist_ex[d * n_tiles + tile]).collect();
                for s in (tile * TILE..((tile + 1) * TILE).min(n)).step_by(32) {
                    let lanes = &input[s..(s + 32).min(n)];
                    let slots: Vec<u64> = (0..lanes.len())
                        .map(|lane| next[digit(lanes[lane])] + lanes[..lane].iter().filter(|&&j| digit(j) == digit(lanes[lane])).count() as u64)
                        .collect();
                    for &i in lanes {
                        next[digit(i)] += 1;
                    }
                    for (&i, &slot) in lanes.iter().zip(&slots) {
                        assert_eq!(output[slot as usize], u32::MAX, "n {n}: slot {slot} written twice");
                        output[slot as usize] = i;
                    }
                }
            }
            input = output;
        }
        let mut want: Vec<u32> = (0..n as u32).collect();
        want.sort_by_key(|&i| h(i));
        assert_eq!(input, want, "n {n}");
    }
}
