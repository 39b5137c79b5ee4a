//! The batched search engine on the GPU (`SearchEngine::search_gpu`, kernels/search.cu) against the twin, on
//! the engine tests' families and configurations (tests/search/engine.rs), errors not hidden by the CPU
//! fallback; and the time per strand on the largest genome pair, GPU vs the CPU backend. Without a GPU each
//! test prints "skipped: no GPU" and passes (the kernel is compiled wherever NVRTC is found: tests/gpu.rs).

use crate::common::{env_u64, Rng};
use crate::engine::{engine_run, family_vs_twin, genomes_vs_twin};
use crate::oracle::{collision_pair, random_pair, twin};
use std::time::Instant;
use warpalign::search::twin::pos_table::PosTable;
use warpalign::search::twin::scoring::ScoreMatrix;
use warpalign::search::{SearchConfig, SearchEngine, SearchOptions};
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
    family_vs_twin("GPU random pairs", n, env_u64("WARPALIGN_SEARCH_SEED", 23) + 20, random_pair, &engine, true);
}

#[test]
fn gpu_hash_collisions_vs_twin() {
    let Some(engine) = gpu_engine() else { return };
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    family_vs_twin("GPU collision pairs", n, env_u64("WARPALIGN_SEARCH_SEED", 23) + 21, collision_pair, &engine, true);
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
    let pt = PosTable::for_options(&target, &o);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let e = SearchEngine::new(&engine, &target, &pt, &o, &scoring, SearchConfig::with_threads(threads));
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
