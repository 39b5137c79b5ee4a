//! A CPU model of kernels/ydrop_one_sided.cu: the columns of a chunk are arrays, a scan is an index, the ring
//! is the kernel's. The kernel's chunks are 512 columns (a block of 256 threads, 2 columns each, a thread-local
//! scan then a block scan); the model's are 32, one per array slot: the scans are max and max-plus, so the
//! chunking changes no value. The insertion scan is int32, as the kernel's: the model checks that nothing it
//! computes overflows (the kernel's header says why nothing can). Its outcome and envelope must equal the twin's wherever the kernel does not give
//! up, which checks the kernel's algorithm (the row scans, the carries from chunk to chunk, the closed-form
//! prolongation, the ring, the two passes and each row's envelope) on machines without a GPU;
//! tests/ydrop/gpu.rs then checks the CUDA code itself against the twin on a GPU. Keep the two in step.

use super::ydrop_cases::Outcome;
use warpalign::ydrop::gpu::Plan;
use warpalign::ydrop::twin::shadow::Envelope;
use warpalign::ydrop::{YdropJob, TRUNC_MIDWAY, TRUNC_NONE};

const NEG_INF: i32 = -1_932_735_283;
const NO_Y: i32 = i32::MIN;
const BEST_MAX: i32 = 1 << 30;
const ROW_GAP_MAX: i64 = 1 << 24;
const FROM_C: u8 = 0;
const FROM_I: u8 = 1;
const FROM_D: u8 = 2;
const I_EXTEND: u8 = 4;
const D_EXTEND: u8 = 8;

/// What the device memory holds before the kernel writes it: any read of it shows as a mismatch.
const POISON_CELL: (i32, i32) = (0x3A5A_5A5A, 0x3A5A_5A5A);
const POISON_TB: u8 = 0xEE;

/// What pass 1 returns.
struct Pass1 {
    score: i32,
    end1: u32,
    end2: u32,
    truncated: bool,
    tb_need: u32,
    /// The first row whose traceback bytes were not written (pass 1's pool ran out there).
    tb_rows: u32,
    /// Each row's (ly, ry) as it began and the right bounds its end compared with n (the kernel's P_ENV).
    rows: Vec<(u32, u32, Option<(u32, u32)>)>,
}

fn incl_max<T: Copy + Ord>(v: [T; 32]) -> [T; 32] {
    let mut out = v;
    for l in 1..32 {
        out[l] = out[l].max(out[l - 1]);
    }
    out
}

/// The exclusive form of an inclusive scan, with `first` in lane 0 (a shuffle up by one).
fn shift<T: Copy>(v: [T; 32], first: T) -> [T; 32] {
    std::array::from_fn(|l| if l == 0 { first } else { v[l - 1] })
}

/// `e * cols`, which the kernel computes in int32: within ROW_GAP_MAX for every column of a row it sweeps.
fn gap_cost(e: i32, cols: i32) -> i32 {
    e.checked_mul(cols).expect("a row's gap cost fits i32")
}

fn last_set(bits: [bool; 32]) -> Option<usize> {
    (0..32).rev().find(|&l| bits[l])
}

/// Where the kernel's sweep writes traceback bytes: pass 2 at the job's own offset (every row), or pass 1 into
/// a pool of `tb.len()` bytes, claiming from `top` on (other jobs' claims come before) while claims fit.
struct Trace<'a> {
    tb: &'a mut [u8],
    tb_row: &'a mut [u32],
    last_row: u32,
    pool: Option<u64>,
}

/// The kernel's `sweep`, writing traceback bytes as `trace` says (none: pass 1 without a pool). None: the job
/// bails.
fn sweep(j: &YdropJob, p: &Plan, mut trace: Option<Trace>) -> Option<Pass1> {
    // SAFETY: the job's contract (the kernel only reads the uploaded prefixes).
    let (a, b, sub) = unsafe {
        (
            std::slice::from_raw_parts(j.a, p.a_len as usize),
            std::slice::from_raw_parts(j.b, p.b_len as usize),
            std::slice::from_raw_parts(j.sub, 256 * 256),
        )
    };
    let (m, n) = (j.m as i32, j.n as i32);
    let (e, y_drop) = (j.gap_extend, j.y_drop);
    let oe = j.gap_open.wrapping_add(e);
    let trim = j.trim_to_peak != 0;
    let ydt = warpalign_y_drop_tail(j);
    let (w, wm) = (p.ring as i32, p.ring - 1);
    let mut prev = vec![POISON_CELL; p.ring];
    let mut cur = vec![POISON_CELL; p.ring];

    let cnt: i32 = if y_drop < oe {
        1
    } else if e == 0 {
        n
    } else {
        ((y_drop - oe) as i64 / e as i64 + 2).min(n as i64) as i32
    };
    if cnt + 1 > w {
        return None;
    }
    // pass 1's claims: 16 rows of the ring's width, then twice the last, up to the kernel's TB_CLAIM_MAX
    let pass2 = trace.as_ref().is_some_and(|t| t.pool.is_none());
    let (mut pos, mut lim, mut claim) = (0u32, if pass2 { u32::MAX } else { 0 }, 16 * w as u32);
    let mut wtb = trace.is_some();
    let mut claim_more = |trace: &mut Option<Trace>, pos: &mut u32, lim: &mut u32, wtb: &mut bool| {
        let Some(Trace { tb, pool: Some(top), .. }) = trace else { return };
        if !*wtb || lim.wrapping_sub(*pos) >= w as u32 {
            return;
        }
        let at = *top;
        *top += claim as u64;
        if at + claim as u64 <= tb.len() as u64 {
            (*pos, *lim) = (at as u32, at as u32 + claim);
            claim = (2 * claim).min(1 << 20);
        } else {
            *wtb = false;
        }
    };
    claim_more(&mut trace, &mut pos, &mut lim, &mut wtb);
    for col in 0..=cnt {
        let c = if col == 0 { 0 } else { 0i32.wrapping_sub(oe).wrapping_sub(((col - 1) as u32).wrapping_mul(e as u32) as i32) };
        prev[col as usize & wm] = (c, c.wrapping_sub(oe));
        if let (Some(t), true) = (trace.as_mut(), wtb) {
            t.tb[(pos + col as u32) as usize] = if col == 0 { 0 } else { FROM_I };
        }
    }
    let mut tb_rows = 0u32;
    if let (Some(t), true) = (trace.as_mut(), wtb) {
        t.tb_row[0] = pos;
        tb_rows = 1;
    }
    pos = pos.wrapping_add((cnt + 1) as u32);
    let mut used = (cnt + 1) as u32;
    let (mut ly, mut ry) = (0i32, cnt + 1);
    let (mut best, mut boundary, mut end1, mut end2) = (0i32, NEG_INF, 0i32, 0i32);
    let (mut end_is_boundary, mut truncated) = (false, false);
    let mut tb_need = 0u32;
    let mut env = Vec::new();

    let rows = match &trace {
        Some(t) if pass2 => t.last_row as i32,
        _ => m,
    };
    for row in 1..=rows {
        let (ly_in, ry_in) = (ly as u32, ry as u32);
        let tb_needed = ((ry - ly) as u32).wrapping_add(ydt as u32) as i32;
        if used as i64 + tb_needed as i64 >= j.tb_size as i32 as i64 {
            truncated = true;
            env.push((ly_in, ry_in, None));
            break;
        }
        if row > p.a_len as i32 {
            return None;
        }
        claim_more(&mut trace, &mut pos, &mut lim, &mut wtb);
        let row_base = (if pass2 { used } else { pos }).wrapping_sub(ly as u32);
        if let (Some(t), true) = (trace.as_mut(), wtb) {
            t.tb_row[row as usize] = row_base;
            tb_rows = row as u32 + 1;
        }
        let (ly0, stop) = (ly, ry.min(n + 1));
        let width_max = if e > 0 { (ROW_GAP_MAX / e as i64) as i32 } else { i32::MAX };
        if stop > p.b_len as i32 + 1 || stop - ly0 > width_max {
            return None;
        }
        let srow = &sub[a[row as usize - 1] as usize * 256..][..256];

        let mut ymax = NO_Y;
        let (mut best_c, mut bnd_c, mut cp_left, mut np_col, mut new_ly) = (best, boundary, 0i32, ly0, ly0);
        let (mut ev_best, mut ev_bnd) = (-1i32, -1i32);
        let mut leading = true;
        let mut col0 = ly0;
        while col0 < stop {
            let col: [i32; 32] = std::array::from_fn(|l| col0 + l as i32);
            let act: [bool; 32] = std::array::from_fn(|l| col[l] < stop);
            let cd: [(i32, i32); 32] = std::array::from_fn(|l| if act[l] { prev[col[l] as usize & wm] } else { (NEG_INF, NEG_INF) });
            let cp: [i32; 32] = std::array::from_fn(|l| cd[l].0);
            let d: [i32; 32] = std::array::from_fn(|l| cd[l].1);
            let cl = shift(cp, cp_left);
            let s: [i32; 32] = std::array::from_fn(|l| {
                if act[l] && col[l] > ly0 {
                    cl[l].wrapping_add(srow[b[col[l] as usize - 1] as usize])
                } else {
                    NEG_INF
                }
            });
            let y: [i32; 32] = std::array::from_fn(|l| {
                if act[l] && s[l] >= d[l] {
                    s[l].wrapping_sub(oe).checked_add(gap_cost(e, col[l] + 1 - ly0)).expect("the insertion scan fits i32")
                } else {
                    NO_Y
                }
            });
            let yi = incl_max(y);
            let yx = shift(yi, NO_Y);
            // (past the row's end the kernel's value wraps and nothing reads it)
            let iv: [i32; 32] = std::array::from_fn(|l| {
                let top = NEG_INF.max(yx[l].max(ymax));
                if act[l] {
                    top.checked_sub(gap_cost(e, col[l] - ly0)).expect("the insertion scan fits i32")
                } else {
                    top.wrapping_sub(e.wrapping_mul(col[l] - ly0))
                }
            });
            let gap: [bool; 32] = std::array::from_fn(|l| d[l] > s[l] || iv[l] > s[l]);
            let c: [i32; 32] = std::array::from_fn(|l| if gap[l] { if d[l] >= iv[l] { d[l] } else { iv[l] } } else { s[l] });
            // the kernel's best before a column: S over the cells with S >= D, which must equal S over the
            // substitution-ended ones (an I above S came from an earlier S >= D above it)
            let bi = incl_max(std::array::from_fn(|l| if act[l] && s[l] >= d[l] { s[l] } else { i32::MIN }));
            let bi_sub = incl_max(std::array::from_fn(|l| if act[l] && !gap[l] { s[l] } else { i32::MIN }));
            assert!(
                (0..32).all(|l| bi[l].max(best_c) == bi_sub[l].max(best_c)),
                "S >= D and substitution-ended cells give the same best"
            );
            let bx: [i32; 32] = shift(bi, i32::MIN).map(|v| v.max(best_c));
            let pruned: [bool; 32] = std::array::from_fn(|l| act[l] && c[l] < bx[l].wrapping_sub(y_drop));
            let live_sub: [bool; 32] = std::array::from_fn(|l| act[l] && !gap[l] && !pruned[l]);
            let bcand: [bool; 32] = std::array::from_fn(|l| live_sub[l] && !trim && (row == m || col[l] == n));
            let bbi = incl_max(std::array::from_fn(|l| if bcand[l] { s[l] } else { i32::MIN }));
            let bbx: [i32; 32] = shift(bbi, i32::MIN).map(|v| v.max(bnd_c));

            let live: [bool; 32] = std::array::from_fn(|l| act[l] && !pruned[l]);
            let eb: [bool; 32] = std::array::from_fn(|l| live_sub[l] && s[l] >= bx[l]);
            let ebb: [bool; 32] = std::array::from_fn(|l| bcand[l] && s[l] >= bbx[l]);
            if leading {
                match (0..32).find(|&l| live[l]) {
                    Some(f) => {
                        new_ly = col0 + f as i32;
                        leading = false;
                    }
                    None => new_ly = (col0 + 32).min(stop),
                }
            }
            if let Some(l) = last_set(live) {
                np_col = col0 + l as i32;
            }
            if let Some(l) = last_set(eb) {
                ev_best = col0 + l as i32;
            }
            if let Some(l) = last_set(ebb) {
                ev_bnd = col0 + l as i32;
            }
            for l in (0..32).filter(|&l| act[l]) {
                let (dn, link) = if gap[l] {
                    (d[l].wrapping_sub(e), (if d[l] >= iv[l] { FROM_D } else { FROM_I }) | I_EXTEND | D_EXTEND)
                } else {
                    let (o, d2) = (c[l].wrapping_sub(oe), d[l].wrapping_sub(e));
                    let dn = if o > d2 { o } else { d2 };
                    let link = (if o > d2 { FROM_C } else { FROM_C | D_EXTEND }) | if o > iv[l].wrapping_sub(e) { 0 } else { I_EXTEND };
                    (dn, link)
                };
                cur[col[l] as usize & wm] = if pruned[l] { (NEG_INF, NEG_INF) } else { (c[l], dn) };
                if let (Some(t), true) = (trace.as_mut(), wtb) {
                    t.tb[row_base.wrapping_add(col[l] as u32) as usize] = if pruned[l] { 0 } else { link };
                }
            }
            ymax = ymax.max(yi[31]);
            best_c = best_c.max(bi[31]);
            bnd_c = bnd_c.max(bbi[31]);
            cp_left = cp[31];
            col0 += 32;
        }
        used = used.wrapping_add((stop - ly0) as u32);
        pos = pos.wrapping_add((stop - ly0) as u32);
        ly = new_ly;
        if ly >= ry {
            env.push((ly_in, ry_in, None));
            break;
        }
        best = best_c;
        boundary = bnd_c;
        if ev_best >= 0 || ev_bnd >= 0 {
            end1 = row;
            end_is_boundary = ev_bnd >= ev_best;
            end2 = if end_is_boundary { ev_bnd } else { ev_best };
        }
        if best > BEST_MAX {
            return None;
        }
        if ry > np_col + 1 {
            env.push((ly_in, ry_in, Some(((np_col + 1) as u32, (np_col + 1) as u32))));
            ry = np_col + 2;
        } else {
            let i_end = NEG_INF.max(ymax) as i64 - e as i64 * (stop - ly0) as i64;
            let (floor, room) = (best.wrapping_sub(y_drop) as i64, n as i64 - ry as i64 + 1);
            let mut k = 0i64;
            if i_end >= floor && room > 0 {
                k = if e == 0 { room } else { ((i_end - floor) / e as i64 + 1).min(room) };
            }
            if ry as i64 + k + 1 - ly0 as i64 > w as i64 {
                return None;
            }
            for jj in 0..k {
                let (c, col) = ((i_end - e as i64 * jj) as i32, ry + jj as i32);
                cur[col as usize & wm] = (c, c.wrapping_sub(oe));
                if let (Some(t), true) = (trace.as_mut(), wtb) {
                    t.tb[row_base.wrapping_add(col as u32) as usize] = FROM_I;
                }
            }
            used = used.wrapping_add(k as u32);
            pos = pos.wrapping_add(k as u32);
            ry += k as i32;
            env.push((ly_in, ry_in, Some((ry_in, ry as u32))));
            if ry <= n {
                cur[ry as usize & wm] = (NEG_INF, NEG_INF);
                ry += 1;
            }
        }
        if end1 == row {
            tb_need = used;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(Pass1 {
        score: if end_is_boundary { boundary } else { best },
        end1: end1 as u32,
        end2: end2 as u32,
        truncated,
        tb_need,
        tb_rows,
        rows: env,
    })
}

fn warpalign_y_drop_tail(j: &YdropJob) -> i32 {
    if j.gap_extend != 0 {
        j.y_drop.wrapping_div(j.gap_extend).wrapping_add(6)
    } else {
        j.n.wrapping_add(1).min(500_000) as i32
    }
}

/// The kernel's `trace_back`: a warp's lanes load the 16 x 16 bytes up and left of the path's cell (lane l: row
/// - l / 2, 8 columns from the window's left + 8 * (l % 2), packed 4 to a word, none at tb_end or beyond), then
/// the walk takes up to 16 steps through them, each reading its byte from a lane's word.
fn trace_back(tb: &[u8], tb_row: &[u32], tb_end: u32, end1: u32, end2: u32) -> Vec<u32> {
    let (mut row, mut col, mut prev) = (end1 as i32, end2 as i32, FROM_C);
    let mut ops: Vec<u32> = Vec::new();
    while row >= 1 || col > 0 {
        let (r0, c_lo) = (row, col - 15);
        let words: [(u32, u32); 32] = std::array::from_fn(|lane| {
            let (lr, lc) = (r0 - (lane as i32 >> 1), c_lo + (lane as i32 & 1) * 8);
            let (mut lo, mut hi) = (0u32, 0u32);
            if lr >= 0 {
                let base = tb_row[lr as usize];
                for t in 0..8 {
                    let at = base.wrapping_add((lc + t) as u32);
                    let v = if lc + t >= 0 && at < tb_end { tb[at as usize] as u32 } else { 0 };
                    if t < 4 {
                        lo |= v << (8 * t);
                    } else {
                        hi |= v << (8 * (t - 4));
                    }
                }
            }
            (lo, hi)
        });
        let mut steps = 0;
        while steps < 16 && (row >= 1 || col > 0) {
            let (dc, lane) = (col - c_lo, (((r0 - row) << 1) | ((col - c_lo) >> 3)) as usize);
            let b = dc & 7;
            let word = if b & 4 != 0 { words[lane].1 } else { words[lane].0 };
            let link = ((word >> (8 * (b & 3))) & 0xff) as u8;
            let mut step = link & (FROM_I | FROM_D);
            if prev == FROM_I && link & I_EXTEND != 0 {
                step = FROM_I;
            }
            if prev == FROM_D && link & D_EXTEND != 0 {
                step = FROM_D;
            }
            let kind = match step {
                FROM_I => {
                    col -= 1;
                    1
                }
                FROM_D => {
                    row -= 1;
                    2
                }
                _ => {
                    row -= 1;
                    col -= 1;
                    3
                }
            };
            match ops.last_mut() {
                Some(t) if *t & 3 == kind && (*t >> 2) < (1 << 30) - 1 => *t += 4,
                _ => ops.push(4 | kind),
            }
            prev = step;
            steps += 1;
        }
    }
    ops
}

/// Both passes as the host runs them for a job it hands the kernel; None where the kernel gives up.
pub fn run(j: &YdropJob, p: &Plan) -> Option<Outcome> {
    run_recorded(j, p).map(|(o, _)| o)
}

/// [`run`] with the envelope pass 1 writes.
pub fn run_recorded(j: &YdropJob, p: &Plan) -> Option<(Outcome, Envelope)> {
    run_recorded_pool(j, p, 0, 0)
}

/// [`run_recorded`] with pass 1 writing the traceback into a pool of `pool` bytes, its claims starting at
/// `start` (other jobs' claims come first): a job whose rows up to the end were written traces back from them,
/// the others take pass 2.
pub fn run_recorded_pool(j: &YdropJob, p: &Plan, pool: usize, start: u64) -> Option<(Outcome, Envelope)> {
    let (mut tb1, mut row1) = (vec![POISON_TB; pool], vec![u32::MAX; p.a_len as usize + 1]);
    let p1 = if pool > 0 {
        sweep(j, p, Some(Trace { tb: &mut tb1, tb_row: &mut row1, last_row: j.m, pool: Some(start) }))?
    } else {
        sweep(j, p, None)?
    };
    let env = Envelope::unconstrained(j.n, p1.rows.iter().copied());
    let trunc = if p1.truncated { TRUNC_MIDWAY } else { TRUNC_NONE };
    if p1.end1 == 0 {
        return Some(((p1.score, p1.end1, p1.end2, trunc, Vec::new()), env));
    }
    if p1.end1 < p1.tb_rows {
        return Some(((p1.score, p1.end1, p1.end2, trunc, trace_back(&tb1, &row1, pool as u32, p1.end1, p1.end2)), env));
    }
    let mut tb = vec![POISON_TB; p1.tb_need as usize];
    let mut tb_row = vec![u32::MAX; p1.end1 as usize + 1];
    sweep(j, p, Some(Trace { tb: &mut tb, tb_row: &mut tb_row, last_row: p1.end1, pool: None })).expect("pass 2 repeats pass 1");
    Some(((p1.score, p1.end1, p1.end2, trunc, trace_back(&tb, &tb_row, p1.tb_need, p1.end1, p1.end2)), env))
}
