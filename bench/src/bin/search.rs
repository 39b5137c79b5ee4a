//! `search`: LASTZ's HSP search on one target against every record of a query file (both strands, LASTZ's
//! defaults): the time per strand of the twin, the batched engine's CPU backend at each
//! thread count, and its GPU backend when `WARPALIGN_BACKEND` and the machine give one; every backend's HSPs
//! are checked against the twin's.
//!
//! usage: search TARGET.fa[.gz] QUERY.fa[.gz] [THREADS,...]     (default: 1 and all CPUs)

use flate2::read::MultiGzDecoder;
use std::io::Read;
use std::time::Instant;
use warpalign::search::twin::pos_table::PosTable;
use warpalign::search::twin::scoring::ScoreMatrix;
use warpalign::search::{self, Hsp, SearchConfig, SearchEngine, SearchOptions, SeedIndex};
use warpalign::{Backend, BackendChoice, Engine};

/// The records of a FASTA file (gzip'ed or not), bytes as in the file.
fn read_fasta(path: &str) -> Vec<Vec<u8>> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = if path.ends_with(".gz") {
        let mut t = Vec::new();
        MultiGzDecoder::new(&raw[..]).read_to_end(&mut t).unwrap_or_else(|e| panic!("{path}: {e}"));
        t
    } else {
        raw
    };
    let mut recs: Vec<Vec<u8>> = Vec::new();
    for line in text.split(|&c| c == b'\n') {
        if line.first() == Some(&b'>') {
            recs.push(Vec::new());
        } else if let Some(r) = recs.last_mut() {
            r.extend(line.iter().filter(|c| !c.is_ascii_whitespace()));
        }
    }
    recs
}

fn rev_comp(s: &[u8]) -> Vec<u8> {
    let comp = |c: u8| match c {
        b'A' => b'T',
        b'C' => b'G',
        b'G' => b'C',
        b'T' => b'A',
        b'a' => b't',
        b'c' => b'g',
        b'g' => b'c',
        b't' => b'a',
        other => other,
    };
    s.iter().rev().map(|&c| comp(c)).collect()
}

/// Runs `f` on every strand: seconds per strand, and the HSPs.
fn timed(strands: &[Vec<u8>], f: impl Fn(&[u8]) -> Vec<Hsp>) -> (f64, Vec<Vec<Hsp>>) {
    let t0 = Instant::now();
    let out: Vec<Vec<Hsp>> = strands.iter().map(|s| f(s)).collect();
    (t0.elapsed().as_secs_f64() / strands.len() as f64, out)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: search TARGET.fa[.gz] QUERY.fa[.gz] [THREADS,...]");
        std::process::exit(2);
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads: Vec<usize> =
        args.get(3).map_or(vec![1, cpus], |a| a.split(',').map(|t| t.parse().expect("THREADS: numbers")).collect());
    let target = read_fasta(&args[1]).swap_remove(0);
    let strands: Vec<Vec<u8>> = read_fasta(&args[2]).into_iter().flat_map(|q| [rev_comp(&q), q]).filter(|s| !s.is_empty()).collect();
    let (o, scoring) = (SearchOptions::lastz_default(), ScoreMatrix::masked_hoxd70());
    let t0 = Instant::now();
    let pt = PosTable::for_options(&target, &o);
    println!("target {} bp, {} strands ({} bp), table {:.2} s", target.len(), strands.len(), strands.iter().map(Vec::len).sum::<usize>(), t0.elapsed().as_secs_f64());

    let t0 = Instant::now();
    let index = SeedIndex::for_options(&target, &o);
    println!("index (as the rebuilt LASTZ builds it) {:.1} ms, {} positions", 1e3 * t0.elapsed().as_secs_f64(), index.positions.len());
    drop(index);

    let (t_twin, want) = timed(&strands, |s| search::search(&target, &pt, s, &o, &scoring));
    println!("twin: {:.2} ms per strand, {} HSPs", 1e3 * t_twin, want.iter().map(Vec::len).sum::<usize>());
    let cpu = Engine::cpu();
    for &n in &threads {
        let e = SearchEngine::new(&cpu, &target, SeedIndex::new(&pt), &o, &scoring, SearchConfig::with_threads(n));
        let (t, got) = timed(&strands, |s| e.search_cpu(s));
        assert!(got == want, "CPU backend, {n} threads: HSPs differ from the twin's");
        println!("CPU backend, {n} threads: {:.2} ms per strand ({:.2}x the twin)", 1e3 * t, t_twin / t);
    }
    let engine = Engine::new(BackendChoice::from_env().unwrap_or_else(|e| panic!("{e}")));
    let t0 = Instant::now();
    let e = SearchEngine::new(&engine, &target, SeedIndex::for_options(&target, &o), &o, &scoring, SearchConfig::with_threads(cpus));
    if e.backend() == Backend::Gpu {
        let upload = t0.elapsed().as_secs_f64();
        let _ = e.search_gpu(&strands[0]);
        let (t, got) = timed(&strands, |s| e.search_gpu(s).expect("on the GPU").unwrap_or_else(|err| panic!("{err}")));
        assert!(got == want, "GPU backend: HSPs differ from the twin's");
        println!("GPU backend ({}): table upload {:.1} ms, {:.2} ms per strand ({:.2}x the twin)", engine.describe(), 1e3 * upload, 1e3 * t, t_twin / t);
    }
}
