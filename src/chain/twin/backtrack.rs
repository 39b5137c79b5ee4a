//! `mg_chain_backtrack` and `compact_a` (lchain.c:9-111) with the sort they use: `radix_sort_128x`
//! (ksort.h `KRADIX_SORT_INIT`, misc.c:156), an in-place MSD radix sort that is NOT stable; its order of
//! equal keys is part of minimap2's output, so it is ported step for step.

use crate::chain::Anchor;
use crate::memory::{try_push, try_with_capacity, OutOfMemory};

const RS_MIN_SIZE: usize = 64;
const RS_MAX_BITS: u32 = 8;

fn rs_insertsort(a: &mut [Anchor]) {
    for i in 1..a.len() {
        if a[i].x < a[i - 1].x {
            let tmp = a[i];
            let mut j = i;
            while j > 0 && tmp.x < a[j - 1].x {
                a[j] = a[j - 1];
                j -= 1;
            }
            a[j] = tmp;
        }
    }
}

fn rs_sort(a: &mut [Anchor], n_bits: u32, s: u32) {
    let size = 1usize << n_bits;
    let m = (size - 1) as u64;
    let bucket = |x: u64| (x >> s & m) as usize;
    // b[k].b and b[k].e of ksort.h as offsets from beg
    let mut bb = [0usize; 1 << RS_MAX_BITS];
    let mut be = [0usize; 1 << RS_MAX_BITS];
    for e in a.iter() {
        be[bucket(e.x)] += 1;
    }
    for k in 1..size {
        be[k] += be[k - 1];
        bb[k] = be[k - 1];
    }
    let mut k = 0;
    while k < size {
        if bb[k] != be[k] {
            let mut l = bucket(a[bb[k]].x);
            if l != k {
                let mut tmp = a[bb[k]];
                loop {
                    let swap = tmp;
                    tmp = a[bb[l]];
                    a[bb[l]] = swap;
                    bb[l] += 1;
                    l = bucket(tmp.x);
                    if l == k {
                        break;
                    }
                }
                a[bb[k]] = tmp;
                bb[k] += 1;
            } else {
                bb[k] += 1;
            }
        } else {
            k += 1;
        }
    }
    bb[0] = 0;
    for k in 1..size {
        bb[k] = be[k - 1];
    }
    if s != 0 {
        let s = if s > n_bits { s - n_bits } else { 0 };
        for k in 0..size {
            let len = be[k] - bb[k];
            if len > RS_MIN_SIZE {
                rs_sort(&mut a[bb[k]..be[k]], n_bits, s);
            } else if len > 1 {
                rs_insertsort(&mut a[bb[k]..be[k]]);
            }
        }
    }
}

/// minimap2's `radix_sort_128x`: sorts by `.x`, equal keys in exactly upstream's (unstable) order.
pub fn radix_sort_128x(a: &mut [Anchor]) {
    if a.len() <= RS_MIN_SIZE {
        rs_insertsort(a);
        return;
    }
    // A level where every key has the same digit fills one bucket: its swap loop moves nothing and it recurses
    // on the whole range, so upstream's order is the same when the sort starts at the first level whose digits
    // differ (backtrack's keys are scores: their top four bytes are equal).
    let x0 = a[0].x;
    let diff = a.iter().fold(0u64, |d, e| d | (e.x ^ x0));
    if diff == 0 {
        return;
    }
    let top = 63 - diff.leading_zeros();
    rs_sort(a, RS_MAX_BITS, top / RS_MAX_BITS * RS_MAX_BITS);
}

/// `mg_chain_bk_end` (lchain.c:9).
fn bk_end<P: Copy + Into<i64>>(max_drop: i32, z: &[Anchor], f: &[i32], p: &[P], t: &mut [i32], k: usize) -> i64 {
    let zx = z[k].x as i32;
    let mut i = z[k].y as i64;
    let mut end_i: i64;
    let mut max_i = i;
    let mut max_s: i32 = 0;
    if i < 0 || t[i as usize] != 0 {
        return i;
    }
    loop {
        t[i as usize] = 2;
        i = p[i as usize].into();
        end_i = i;
        let s = if i < 0 { zx } else { zx.wrapping_sub(f[i as usize]) };
        if s > max_s {
            max_s = s;
            max_i = i;
        } else if max_s.wrapping_sub(s) > max_drop {
            break;
        }
        if !(i >= 0 && t[i as usize] == 0) {
            break;
        }
    }
    let mut i = z[k].y as i64;
    while i >= 0 && i != end_i {
        t[i as usize] = 0;
        i = p[i as usize].into();
    }
    max_i
}

/// `mg_chain_backtrack` (lchain.c:27): returns `u[]` and `n_v`, writing the chains' anchor indices (from each
/// chain's end backwards) to `v[..n_v]` (not read: the fill's `v` is not needed); `t` is scratch. `p` as the
/// fill's int64 or as int32 (the GPU's). Upstream's two passes (count, then fill) take the same
/// steps, so one pass gives the same `u[]` and `v[]`. An error when its arrays cannot be allocated.
pub fn backtrack<P: Copy + Into<i64>>(
    f: &[i32],
    p: &[P],
    v: &mut [i32],
    t: &mut [i32],
    min_cnt: i32,
    min_sc: i32,
    max_drop: i32,
) -> Result<(Vec<u64>, usize), OutOfMemory> {
    let n = f.len();
    // z[].x = f[i]: an int32 stored in a uint64 (sign-extended); counted first, as upstream sizes it
    let n_z = f.iter().filter(|&&x| x >= min_sc).count();
    let mut z = try_with_capacity::<Anchor>(n_z)?;
    z.extend((0..n).filter(|&i| f[i] >= min_sc).map(|i| Anchor { x: f[i] as i64 as u64, y: i as u64 }));
    let mut u = Vec::new();
    if z.is_empty() {
        return Ok((u, 0));
    }
    radix_sort_128x(&mut z);
    t[..n].fill(0);
    let mut n_v: i64 = 0;
    for k in (0..z.len()).rev() {
        if t[z[k].y as usize] == 0 {
            let n_v0 = n_v;
            let end_i = bk_end(max_drop, &z, f, p, t, k);
            let mut i = z[k].y as i64;
            while i != end_i {
                v[n_v as usize] = i as i32;
                n_v += 1;
                t[i as usize] = 1;
                i = p[i as usize].into();
            }
            let sc = if i < 0 { z[k].x as i32 } else { (z[k].x as i32).wrapping_sub(f[i as usize]) };
            if sc >= min_sc && n_v > n_v0 && n_v - n_v0 >= min_cnt as i64 {
                try_push(&mut u, (sc as u32 as u64) << 32 | (n_v - n_v0) as u64)?;
            } else {
                n_v = n_v0;
            }
        }
    }
    assert!(n_v < i32::MAX as i64);
    Ok((u, n_v as usize))
}

/// `compact_a` (lchain.c:78): the chains' anchors in forward order, chains sorted by the `.x` of their first
/// anchor (with `radix_sort_128x`'s order of ties); reorders `u` likewise. An error when its arrays cannot be
/// allocated.
pub fn compact(u: &mut [u64], v: &[i32], a: &[Anchor]) -> Result<Vec<Anchor>, OutOfMemory> {
    let n_u = u.len();
    let mut b = try_with_capacity(v.len())?;
    let mut k = 0usize;
    for &ui in u.iter() {
        let ni = ui as i32 as usize;
        for j in 0..ni {
            b.push(a[v[k + (ni - j - 1)] as usize]);
        }
        k += ni;
    }
    let mut w = try_with_capacity(n_u)?;
    k = 0;
    for (i, &ui) in u.iter().enumerate() {
        w.push(Anchor { x: b[k].x, y: (k as u64) << 32 | i as u64 });
        k += ui as i32 as usize;
    }
    radix_sort_128x(&mut w);
    let mut out = try_with_capacity(b.len())?;
    let mut u2 = try_with_capacity(n_u)?;
    for e in &w {
        let j = e.y as i32 as usize;
        let n = u[j] as i32 as usize;
        let s = (e.y >> 32) as usize;
        out.extend_from_slice(&b[s..s + n]);
        u2.push(u[j]);
    }
    u.copy_from_slice(&u2);
    Ok(out)
}
