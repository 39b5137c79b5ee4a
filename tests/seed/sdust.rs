//! The twin of `sdust_core` (`warpalign::seed::twin::sdust`) against upstream's `sdust` on fixed-seed random
//! sequences rich in low-complexity stretches (short tandem repeats, homopolymers, mutated, broken by N), under
//! random thresholds and window sizes (mostly minimap2's 64): every interval must be equal. Upstream's own time
//! grows fast with low thresholds on long low-complexity runs, hence short runs and few cases by default:
//! `SEED_SDUST_CASES=N` sets their number (default 2000), `SEED_SDUST_SEED=S` their seed base.

use crate::common::{env_u64, failing_cases, pick, Rng};
use warpalign_ffi::mm2 as c;

fn oracle(seq: &[u8], thres: i32, win: i32) -> Vec<u64> {
    let mut n = 0;
    // SAFETY: km = NULL: the intervals are malloc'ed; read by their count, then freed.
    unsafe {
        let p = c::warpalign_oracle_sdust(std::ptr::null_mut(), seq.as_ptr(), seq.len() as i32, thres, win, &mut n);
        let out = if n == 0 { vec![] } else { std::slice::from_raw_parts(p, n as usize).to_vec() };
        libc::free(p.cast());
        out
    }
}

/// Random stretches: plain bases, short tandem repeats (mutated or not), homopolymers, N runs.
fn low_complexity(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut s = Vec::with_capacity(len + 200);
    let nt = |rng: &mut Rng| b"ACGTacgt"[rng.below(8) as usize];
    while s.len() < len {
        match rng.below(5) {
            0 => s.extend((0..rng.range(1, 200)).map(|_| nt(rng))),
            1 => s.extend(std::iter::repeat_n(b'N', rng.range(1, 5) as usize)),
            2 => s.extend(std::iter::repeat_n(nt(rng), rng.range(1, 30) as usize)),
            _ => {
                let unit: Vec<u8> = (0..rng.range(1, 6)).map(|_| nt(rng)).collect();
                let rate = pick(rng, &[0.0, 0.02, 0.1]);
                for _ in 0..rng.range(2, 20) {
                    for &c in &unit {
                        s.push(if rng.chance(rate) { nt(rng) } else { c });
                    }
                }
            }
        }
    }
    s.truncate(len);
    s
}

#[test]
fn random_sequences() {
    let n = env_u64("SEED_SDUST_CASES", 2_000);
    let seed = env_u64("SEED_SDUST_SEED", 21);
    let failed = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let max_len = if rng.chance(0.05) { 6_000 } else { 1_500 };
        let len = rng.range(0, max_len) as usize;
        let seq = low_complexity(&mut rng, len);
        let thres = if rng.chance(0.7) { pick(&mut rng, &[10, 20, 30]) } else { rng.range(1, 60) as i32 };
        let win = if rng.chance(0.7) { 64 } else { rng.range(3, 128) as i32 };
        let (t, o) = (warpalign::seed::twin::sdust(&seq, thres, win), oracle(&seq, thres, win));
        (t != o).then(|| {
            format!(
                "case {i} (len {len}, T {thres}, W {win}): {} intervals, upstream {}: {t:x?} vs {o:x?}",
                t.len(),
                o.len()
            )
        })
    });
    assert!(failed.is_empty(), "{} of {n} cases differ: {:?}", failed.len(), &failed[..failed.len().min(20)]);
    eprintln!("sdust: {n} random cases equal");
}
