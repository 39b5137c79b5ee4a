//! `sdust_core` (sdust.c): the low-complexity intervals of a sequence (symmetric DUST), as `start<<32 | end`.
//! minimap2 drops the minimizers that fall mostly in them when `--sdust-thres` is set.
//!
//! The port keeps upstream's state as it is: the window of triplets, its counts and the list of "perfect"
//! intervals survive an ambiguous base (only the run length and the current word restart).

use super::SEQ_NT4_TABLE;
use std::collections::VecDeque;

const WLEN: i32 = 3;
const WTOT: usize = 1 << (WLEN << 1);
const WMSK: u32 = WTOT as u32 - 1;

/// `perf_intv_t`.
#[derive(Debug, Clone, Copy)]
struct PerfIntv {
    start: i32,
    finish: i32,
    r: i32,
    l: i32,
}

/// The window's state (`sdust_core`'s locals and `sdust_buf_t`).
struct State {
    w: VecDeque<usize>,
    /// Sorted by descending start, then ascending finish.
    p: Vec<PerfIntv>,
    res: Vec<u64>,
    rv: i32,
    rw: i32,
    l: i32,
    cv: [i32; WTOT],
    cw: [i32; WTOT],
}

impl State {
    fn shift_window(&mut self, t: usize, thres: i32, win: i32) {
        if self.w.len() as i32 > win - WLEN {
            let s = self.w.pop_front().unwrap();
            self.cw[s] -= 1;
            self.rw -= self.cw[s];
            if self.l > self.w.len() as i32 {
                self.l -= 1;
                self.cv[s] -= 1;
                self.rv -= self.cv[s];
            }
        }
        self.w.push_back(t);
        self.l += 1;
        self.rw += self.cw[t];
        self.cw[t] += 1;
        self.rv += self.cv[t];
        self.cv[t] += 1;
        if self.cv[t] * 10 > thres << 1 {
            loop {
                let s = self.w[self.w.len() - self.l as usize];
                self.cv[s] -= 1;
                self.rv -= self.cv[s];
                self.l -= 1;
                if s == t {
                    break;
                }
            }
        }
    }

    fn save_masked_regions(&mut self, start: i32) {
        let Some(&p) = self.p.last().filter(|p| p.start < start) else { return };
        let mut saved = false;
        if let Some(last) = self.res.last_mut() {
            let (s, f) = ((*last >> 32) as i32, *last as u32 as i32);
            if p.start <= f {
                // Overlapping with, or adjacent to, the previous interval.
                saved = true;
                *last = (s as i64 as u64) << 32 | f.max(p.finish) as i64 as u64;
            }
        }
        if !saved {
            self.res.push((p.start as i64 as u64) << 32 | p.finish as i64 as u64);
        }
        while self.p.last().is_some_and(|q| q.start < start) {
            self.p.pop();
        }
    }

    fn find_perfect(&mut self, thres: i32, start: i32) {
        let mut c = self.cv;
        let (mut r, mut max_r, mut max_l) = (self.rv, 0i32, 0i32);
        let n = self.w.len() as i64;
        for i in (0..n - self.l as i64).rev() {
            let t = self.w[i as usize];
            r += c[t];
            c[t] += 1;
            let (new_r, new_l) = (r, (n - i - 1) as i32);
            if new_r * 10 > thres * new_l {
                // The insertion position; the best ratio so far carries over from earlier positions, as upstream's.
                let mut j = 0;
                while j < self.p.len() && self.p[j].start >= i as i32 + start {
                    let p = self.p[j];
                    if max_r == 0 || p.r * max_l > max_r * p.l {
                        max_r = p.r;
                        max_l = p.l;
                    }
                    j += 1;
                }
                if max_r == 0 || new_r * max_l >= max_r * new_l {
                    max_r = new_r;
                    max_l = new_l;
                    let finish = n as i32 + (WLEN - 1) + start;
                    self.p.insert(j, PerfIntv { start: i as i32 + start, finish, r: new_r, l: new_l });
                }
            }
        }
    }
}

/// `sdust_core(seq, len, T, W, &n, buf)`: the intervals, in order.
pub fn sdust(seq: &[u8], thres: i32, win: i32) -> Vec<u64> {
    let mut st = State { w: VecDeque::new(), p: vec![], res: vec![], rv: 0, rw: 0, l: 0, cv: [0; WTOT], cw: [0; WTOT] };
    let l_seq = seq.len() as i32;
    let (mut l, mut t) = (0i32, 0u32);
    for i in 0..=l_seq {
        let b = if i < l_seq { SEQ_NT4_TABLE[seq[i as usize] as usize] } else { 4 };
        if b < 4 {
            l += 1;
            t = (t << 2 | b as u32) & WMSK;
            if l >= WLEN {
                let start = (l - win).max(0) + (i + 1 - l);
                st.save_masked_regions(start);
                st.shift_window(t as usize, thres, win);
                if st.rw * 10 > st.l * thres {
                    st.find_perfect(thres, start);
                }
            }
        } else {
            // An ambiguous base, or the end: flush the perfect intervals left.
            let mut start = (l - win + 1).max(0) + (i + 1 - l);
            while !st.p.is_empty() {
                st.save_masked_regions(start);
                start += 1;
            }
            l = 0;
            t = 0;
        }
    }
    st.res
}
