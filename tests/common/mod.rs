//! Shared helpers of the integration tests (and of bench's fuzz binaries): a fixed-seed generator and
//! sequence mutators, the knobs' parsing, the parallel case loop, and each engine's case generators.
#![allow(dead_code)]

use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// xorshift64*: deterministic, so every failing case can be replayed from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The generator of case `i` of a seeded family, so that one case replays alone.
    pub fn for_case(seed: u64, i: u64) -> Self {
        Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// Bases as minimap2 codes them: 0..3 = A, C, G, T; 4 = N (rare).
    pub fn nt4_seq(&mut self, len: usize, n_rate: f64) -> Vec<u8> {
        (0..len).map(|_| if self.chance(n_rate) { 4 } else { self.below(4) as u8 }).collect()
    }

    /// A copy of `s` with substitutions and short indels at `rate` each.
    pub fn mutate(&mut self, s: &[u8], rate: f64) -> Vec<u8> {
        let mut out = Vec::with_capacity(s.len() + 16);
        for &c in s {
            if self.chance(rate) {
                match self.below(3) {
                    0 => out.push((c + 1 + self.below(3) as u8) % 4),
                    1 => {}
                    _ => {
                        out.push(c);
                        for _ in 0..self.range(1, 4) {
                            out.push(self.below(4) as u8);
                        }
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }
}

/// minimap2's scoring matrix for match `a`, mismatch `-b`, N scored `sc_ambi` (ksw_gen_simple_mat with ambiguity).
pub fn mm2_matrix(a: i8, b: i8, sc_ambi: i8) -> Vec<i8> {
    let m = 5;
    let mut mat = vec![0i8; m * m];
    for i in 0..m - 1 {
        for j in 0..m - 1 {
            mat[i * m + j] = if i == j { a } else { -b };
        }
        mat[i * m + m - 1] = -sc_ambi;
    }
    for j in 0..m {
        mat[(m - 1) * m + j] = -sc_ambi;
    }
    mat
}
/// One of `xs`, uniformly.
pub fn pick<T: Copy>(rng: &mut Rng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u64) as usize]
}

/// A test's size or seed knob: the variable's value, else `default`.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Runs `check` on cases `0..n` on all cores; returns the indices it reported (in order), printing the first
/// three reports.
pub fn failing_cases(n: u64, check: impl Fn(u64) -> Option<String> + Sync) -> Vec<u64> {
    let printed = AtomicUsize::new(0);
    (0..n)
        .into_par_iter()
        .filter_map(|i| {
            let report = check(i)?;
            if printed.fetch_add(1, Relaxed) < 3 {
                eprintln!("{report}");
            }
            Some(i)
        })
        .collect()
}

pub mod chain_cases;
pub mod gpu;
pub mod ksw_cases;
pub mod ksw_exts2_cases;
pub mod ksw_extz2_cases;
pub mod tools;
pub mod ydrop_cases;
pub mod ydrop_kernel_model;
