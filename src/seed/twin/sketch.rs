//! `mm_sketch` (sketch.c): the symmetric (w,k)-minimizers of a sequence, optionally homopolymer-compressed.
//!
//! The port keeps upstream's control flow (its ring buffer of the last `w` k-mers, its two scans for ties)
//! because which of several equal minimizers are written, and in which order, is part of the output.

use crate::seed::Minimizer;

/// `seq_nt4_table`: A/C/G/T (either case, and U/u as T) to 0..3, bytes 0..3 to themselves (sequences already
/// coded), everything else to 4 (ambiguous).
pub const SEQ_NT4_TABLE: [u8; 256] = {
    let mut t = [4u8; 256];
    let mut i = 0;
    while i < 4 {
        t[i] = i as u8;
        i += 1;
    }
    i = 0;
    while i < 8 {
        let (c, v) = [(b'A', 0), (b'C', 1), (b'G', 2), (b'T', 3), (b'U', 3), (b'a', 0), (b'c', 1), (b'g', 2)][i];
        t[c as usize] = v;
        i += 1;
    }
    t[b't' as usize] = 3;
    t[b'u' as usize] = 3;
    t
};

/// Upstream's invertible integer hash of a k-mer (`mask` = 2k one bits).
#[inline]
pub fn hash64(key: u64, mask: u64) -> u64 {
    let mut key = (!key).wrapping_add(key << 21) & mask;
    key ^= key >> 24;
    key = key.wrapping_add(key << 3).wrapping_add(key << 8) & mask;
    key ^= key >> 14;
    key = key.wrapping_add(key << 2).wrapping_add(key << 4) & mask;
    key ^= key >> 28;
    key.wrapping_add(key << 31) & mask
}

/// The run lengths of the last k homopolymer-compressed bases (`tiny_queue_t`: k <= 28 < 32 slots).
struct TinyQueue {
    front: usize,
    count: usize,
    a: [usize; 32],
}

impl TinyQueue {
    fn push(&mut self, x: usize) {
        self.a[(self.count + self.front) & 0x1f] = x;
        self.count += 1;
    }

    /// Only called with `count > k >= 1`, so never on an empty queue (where upstream returns -1).
    fn shift(&mut self) -> usize {
        let x = self.a[self.front];
        self.front = (self.front + 1) & 0x1f;
        self.count -= 1;
        x
    }
}

const EMPTY: Minimizer = Minimizer { x: u64::MAX, y: u64::MAX };

/// `mm_sketch(km, str, len, w, k, rid, is_hpc, p)`: appends the minimizers of `seq` to `p`, as upstream does.
///
/// Panics where upstream's `assert` aborts: an empty sequence, `w` outside 1..=255, `k` outside 1..=28; and on a
/// sequence longer than `i32::MAX` (upstream's `int len`).
pub fn sketch(seq: &[u8], w: usize, k: usize, rid: u32, is_hpc: bool, p: &mut Vec<Minimizer>) {
    let len = seq.len();
    assert!(len > 0 && (1..256).contains(&w) && (1..=28).contains(&k), "mm_sketch: len {len}, w {w}, k {k}");
    assert!(len <= i32::MAX as usize, "mm_sketch: sequence longer than INT32_MAX");
    let nt4 = |i: usize| SEQ_NT4_TABLE[seq[i] as usize];
    let (shift1, mask) = (2 * (k - 1), (1u64 << (2 * k)) - 1);
    let mut kmer = [0u64; 2];
    let (mut l, mut buf_pos, mut min_pos, mut kmer_span) = (0usize, 0usize, 0usize, 0usize);
    let mut buf = [EMPTY; 256];
    let mut min = EMPTY;
    let mut tq = TinyQueue { front: 0, count: 0, a: [0; 32] };
    p.reserve(len / w);

    let mut i = 0;
    while i < len {
        let c = nt4(i);
        let mut info = EMPTY;
        if c < 4 {
            if is_hpc {
                let mut skip_len = 1;
                if i + 1 < len && nt4(i + 1) == c {
                    skip_len = 2;
                    while i + skip_len < len && nt4(i + skip_len) == c {
                        skip_len += 1;
                    }
                    i += skip_len - 1; // $i at the end of the run
                }
                tq.push(skip_len);
                kmer_span += skip_len;
                if tq.count > k {
                    kmer_span -= tq.shift();
                }
            } else {
                kmer_span = (l + 1).min(k);
            }
            kmer[0] = (kmer[0] << 2 | c as u64) & mask;
            kmer[1] = (kmer[1] >> 2) | (3 ^ c as u64) << shift1;
            if kmer[0] == kmer[1] {
                // A symmetric k-mer has no strand: skipped, without moving the window (upstream's `continue`).
                i += 1;
                continue;
            }
            let z = usize::from(kmer[0] >= kmer[1]);
            l += 1;
            if l >= k && kmer_span < 256 {
                info.x = hash64(kmer[z], mask) << 8 | kmer_span as u64;
                info.y = (rid as u64) << 32 | ((i as u32) << 1) as u64 | z as u64;
            }
        } else {
            l = 0;
            tq.count = 0;
            tq.front = 0;
            kmer_span = 0;
        }
        buf[buf_pos] = info;
        if l == w + k - 1 && min.x != u64::MAX {
            // The first full window: the minimum's earlier equal k-mers were not written yet.
            for j in (buf_pos + 1..w).chain(0..buf_pos) {
                if min.x == buf[j].x && buf[j].y != min.y {
                    p.push(buf[j]);
                }
            }
        }
        if info.x <= min.x {
            if l >= w + k && min.x != u64::MAX {
                p.push(min);
            }
            min = info;
            min_pos = buf_pos;
        } else if buf_pos == min_pos {
            // The minimum left the window: rescan it, oldest first; `>=` keeps the newest of equal k-mers.
            if l >= w + k - 1 && min.x != u64::MAX {
                p.push(min);
            }
            min.x = u64::MAX;
            for j in (buf_pos + 1..w).chain(0..=buf_pos) {
                if min.x >= buf[j].x {
                    min = buf[j];
                    min_pos = j;
                }
            }
            if l >= w + k - 1 && min.x != u64::MAX {
                for j in (buf_pos + 1..w).chain(0..=buf_pos) {
                    if min.x == buf[j].x && min.y != buf[j].y {
                        p.push(buf[j]);
                    }
                }
            }
        }
        buf_pos += 1;
        if buf_pos == w {
            buf_pos = 0;
        }
        i += 1;
    }
    if min.x != u64::MAX {
        p.push(min);
    }
}

/// The first warm-up of [`sketch_chunk`]: how far before its chunk its first try starts (the seed kernel's).
pub const fn chunk_warm_up(w: usize, k: usize) -> usize {
    2 * (w + k) + 32
}

/// kernels/seed.cu's `sketch_chunk`, line for line: appends the minimizers that the chunk `[s, e)` of `seq` owns,
/// those that [`sketch`] pushes in the iterations starting in the chunk (and, for the last chunk, its final push),
/// in [`sketch`]'s order, so that the chunks' in order are [`sketch`]'s. It runs upstream's loop from `warm`
/// bases before `s` (at first; [`chunk_warm_up`]) with a fresh state and emits from `s` on once that state
/// provably equals upstream's there (docs/seed.md, "The sketch in chunks"), else starts again twice as far back.
#[allow(clippy::too_many_arguments)]
pub fn sketch_chunk(seq: &[u8], s: usize, e: usize, w: usize, k: usize, hpc: bool, rid: u32, mut warm: usize, out: &mut Vec<Minimizer>) {
    let len = seq.len();
    let nt4 = |i: usize| SEQ_NT4_TABLE[seq[i] as usize] as u64;
    let (mask, shift1) = ((1u64 << (2 * k)) - 1, 2 * (k - 1));
    if (e != len || e - s >= w) && (s..e).all(|j| nt4(j) == 4) {
        return;
    }
    let kept = out.len();
    'attempt: loop {
        let p = s.saturating_sub(warm);
        warm *= 2;
        out.truncate(kept); // a try that restarts leaves nothing
        let (mut kmer0, mut kmer1) = (0u64, 0u64);
        let (mut l, mut buf_pos, mut min_pos, mut kmer_span) = (0usize, 0usize, 0usize, 0usize);
        let (mut tq, mut tq_front, mut tq_count) = ([0usize; 32], 0usize, 0usize);
        let mut mn = EMPTY;
        let mut buf = vec![EMPTY; w];
        let (mut synced, mut rx, mut cleared) = (p == 0, false, false);
        let (mut n_valid, mut lx, mut good) = (0usize, 0usize, 0usize);
        let mut i = p;
        while i < len {
            let start = i;
            if start >= e {
                break;
            }
            let emit = start >= s;
            if emit && !synced {
                if good >= w && (rx || lx >= w + k) {
                    synced = true;
                } else {
                    continue 'attempt;
                }
            }
            let mut push = |m: Minimizer| {
                if emit {
                    out.push(m)
                }
            };
            let c = nt4(i);
            let mut info = EMPTY;
            let exact;
            if c < 4 {
                if hpc {
                    let mut skip_len = 1;
                    if i + 1 < len && nt4(i + 1) == c {
                        skip_len = 2;
                        while i + skip_len < len && nt4(i + skip_len) == c {
                            skip_len += 1;
                        }
                        i += skip_len - 1;
                    }
                    tq[(tq_count + tq_front) & 0x1f] = skip_len;
                    tq_count += 1;
                    kmer_span += skip_len;
                    if tq_count > k {
                        kmer_span -= tq[tq_front];
                        tq_front = (tq_front + 1) & 0x1f;
                        tq_count -= 1;
                    }
                } else {
                    kmer_span = (l + 1).min(k);
                }
                kmer0 = (kmer0 << 2 | c) & mask;
                kmer1 = (kmer1 >> 2) | (3 ^ c) << shift1;
                n_valid += 1;
                let kx = n_valid >= k;
                if kmer0 == kmer1 {
                    if !kx {
                        good = 0;
                    }
                    i += 1;
                    continue;
                }
                let z = (kmer0 >= kmer1) as u64;
                l += 1;
                if kx {
                    lx += 1;
                }
                if l >= k && kmer_span < 256 {
                    info.x = hash64(if z == 1 { kmer1 } else { kmer0 }, mask) << 8 | kmer_span as u64;
                    info.y = (rid as u64) << 32 | ((i as u32) << 1) as u64 | z;
                }
                exact = kx && (!hpc || cleared || n_valid > k) && (rx || lx >= k);
            } else {
                (l, tq_count, tq_front, kmer_span) = (0, 0, 0, 0);
                (lx, cleared, exact) = (0, true, true);
                if n_valid >= k {
                    rx = true;
                }
            }
            good = if exact { good + 1 } else { 0 };
            buf[buf_pos] = info;
            if l == w + k - 1 && mn.x != u64::MAX {
                for j in (buf_pos + 1..w).chain(0..buf_pos) {
                    if mn.x == buf[j].x && buf[j].y != mn.y {
                        push(buf[j]);
                    }
                }
            }
            if info.x <= mn.x {
                if l >= w + k && mn.x != u64::MAX {
                    push(mn);
                }
                (mn, min_pos) = (info, buf_pos);
            } else if buf_pos == min_pos {
                if l + 1 >= w + k && mn.x != u64::MAX {
                    push(mn);
                }
                mn.x = u64::MAX;
                for j in (buf_pos + 1..w).chain(0..=buf_pos) {
                    if mn.x >= buf[j].x {
                        (mn, min_pos) = (buf[j], j);
                    }
                }
                if l + 1 >= w + k && mn.x != u64::MAX {
                    for j in (buf_pos + 1..w).chain(0..=buf_pos) {
                        if mn.x == buf[j].x && mn.y != buf[j].y {
                            push(buf[j]);
                        }
                    }
                }
            }
            buf_pos += 1;
            if buf_pos == w {
                buf_pos = 0;
            }
            i += 1;
        }
        if e == len {
            if !synced && !(good >= w && (rx || lx >= w + k)) {
                continue 'attempt;
            }
            if mn.x != u64::MAX {
                out.push(mn);
            }
        }
        return;
    }
}
