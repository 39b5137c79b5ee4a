//! `ydrop_fuzz`: the Rust twin of LASTZ's `ydrop_one_sided_align` against LASTZ's own function (the oracle)
//! on random jobs (tests/common/ydrop_cases.rs: LASTZ-shaped and random matrices, random gap costs with zero
//! and negative opens, small y-drops, truncating tracebacks; up to 3,000 bases a side), on all cores.
//! With `constrained`, every job also sees random earlier alignments around its anchor (bounds and masks).
//!
//! usage: ydrop_fuzz CASES SEED [constrained]
//!
//! Prints `cases N, mismatches M` (and the first mismatching jobs, with their index); exit status 1 on any
//! mismatch. Case i depends only on (SEED, i).

#[path = "../../../tests/common/mod.rs"]
mod common;

use common::ydrop_cases::{matrix_pool, oracle, random_case, random_constrained_case, twin};
use common::Rng;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

const MAX_LEN: usize = 3000;
const RANDOM_MATRICES: usize = 32;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let constrained = args.len() == 4 && args[3] == "constrained";
    let (cases, seed) = match (args.get(1).and_then(|v| v.parse::<u64>().ok()), args.get(2).and_then(|v| v.parse::<u64>().ok())) {
        (Some(c), Some(s)) if args.len() == 3 || constrained => (c, s),
        _ => {
            eprintln!("usage: ydrop_fuzz CASES SEED [constrained]");
            std::process::exit(2);
        }
    };
    let pool = matrix_pool(seed, RANDOM_MATRICES);
    let threads = std::thread::available_parallelism().map(|x| x.get()).unwrap_or(2);
    let next = AtomicU64::new(0);
    let mismatches = Mutex::new(Vec::new());
    let start = std::time::Instant::now();
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= cases {
                    break;
                }
                let rng = &mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i));
                let case =
                    if constrained { random_constrained_case(rng, &pool, MAX_LEN) } else { random_case(rng, &pool, MAX_LEN) };
                let j = case.job();
                let (o, t) = (oracle(&j), twin(&j));
                if o != t {
                    let mut bad = mismatches.lock().unwrap();
                    if bad.len() < 5 {
                        eprintln!("MISMATCH case {i}\n  oracle {o:?}\n  twin   {t:?}\n  {}", case.describe());
                    }
                    bad.push(i);
                }
            });
        }
    });
    let bad = mismatches.into_inner().unwrap().len();
    eprintln!("{:.1}s on {threads} threads", start.elapsed().as_secs_f64());
    println!("cases {cases}, mismatches {bad}");
    std::process::exit((bad > 0) as i32);
}
