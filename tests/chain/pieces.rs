//! A lead for the chain kernel (issue 22), checked on the twin: `mg_lchain_dp`'s fill splits into independent
//! pieces where an anchor lies more than `max_dist_x` past every earlier one (x as upstream compares it). There
//! upstream's window start `st` reaches the anchor itself and its `max_ii` rescue starts afresh, so no anchor of a
//! piece reads anything of an earlier one: each piece filled alone gives the whole fill's f and v, p and t shifted
//! by the piece's start, and the counters add up. The GPU's fill takes a warp per job, so a job's anchors set its
//! latency; pieces would be the unit of work instead.
//!
//! `mg_lchain_rmq`'s trees are empty at such places too, but a piece cannot be filled alone with its own indices:
//! the range query's upper key (y, 0) admits index 0 at equal y, so the piece's first anchor would be visible where
//! upstream's anchor of that index is not (filled alone, the twin's random sets trip upstream's assert that max_j's y is
//! below the anchor's). An rmq piece must keep its global indices.
//!
//! `pieces_random_sets`: `CHAIN_PIECES_CASES` (default 5000) of the twin's random sets, the fill by pieces against
//! the twin's. `pieces_of_a_dump`: with `CHAIN_PIECES_DUMP=<file>` (a
//! `WARPALIGN_CHAIN_DUMP` of real runs), the same on every dumped call, and the longest job against the longest
//! piece.

use crate::common::chain_cases::*;
use crate::common::env_u64;
use rayon::prelude::*;
use warpalign::chain::twin::{self, Fill, Params};
use warpalign::chain::Anchor;

/// Where the pieces of `a`'s fill start (0 first): anchors c with `a[c].x` at or past every earlier x and more than
/// `max_dist` (max_dist_x, as the fill's u64 image) past their maximum, so that for every earlier j `a[c].x - a[j].x`
/// neither wraps nor is within reach.
fn cuts(max_dist: i32, a: &[Anchor]) -> Vec<usize> {
    let mdx = max_dist as i64 as u64;
    let mut starts = vec![0];
    let mut max_x = match a.first() {
        Some(f) => f.x,
        None => return starts,
    };
    for (c, ac) in a.iter().enumerate().skip(1) {
        if ac.x >= max_x && ac.x - max_x > mdx {
            starts.push(c);
        }
        max_x = max_x.max(ac.x);
    }
    starts
}

fn pieces(pr: &Params, a: &[Anchor]) -> Vec<usize> {
    cuts(pr.max_dist_x, a)
}

/// The fill of `fill` piece by piece at `starts`, stitched back: p and the written t (non-zero) shifted by each
/// piece's start.
fn fill_by_pieces_with(starts: &[usize], a: &[Anchor], fill: impl Fn(&[Anchor]) -> Fill) -> Fill {
    let mut out = Fill::default();
    for (k, &c) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(a.len());
        let part = fill(&a[c..end]);
        out.f.extend_from_slice(&part.f);
        out.v.extend_from_slice(&part.v);
        out.p.extend(part.p.iter().map(|&p| if p < 0 { p } else { p + c as i64 }));
        out.t.extend(part.t.iter().map(|&t| if t == 0 { 0 } else { t + c as i32 }));
        out.n_visited += part.n_visited;
        out.n_breaks += part.n_breaks;
        out.n_rescued += part.n_rescued;
    }
    out
}

fn fill_by_pieces(pr: &Params, a: &[Anchor]) -> Fill {
    fill_by_pieces_with(&pieces(pr, a), a, |p| twin::fill_anchors_scalar(pr, p).unwrap())
}

#[test]
fn pieces_random_sets() {
    let n = env_u64("CHAIN_PIECES_CASES", 5000);
    let results: Vec<(bool, usize)> = (0..n)
        .into_par_iter()
        .map(|i| {
            let (_, cfg, a) = random_case(7, i);
            let pr = Params::from_job(&cfg.job(&a));
            let whole = twin::fill_anchors_scalar(&pr, &a).unwrap();
            (fill_by_pieces(&pr, &a) == whole, pieces(&pr, &a).len())
        })
        .collect();
    let bad: Vec<u64> = (0..n).filter(|&i| !results[i as usize].0).collect();
    let split = results.iter().filter(|r| r.1 > 1).count();
    println!("pieces: {n} random sets, {split} in more than one piece, {} pieces in all", results.iter().map(|r| r.1).sum::<usize>());
    assert!(bad.is_empty(), "the fill by pieces differs from the whole fill in sets {:?}", &bad[..bad.len().min(10)]);
    assert!(n < 1000 || split as u64 * 10 > n, "too few sets split: the check proves little");
}

#[test]
fn pieces_of_a_dump() {
    let Ok(path) = std::env::var("CHAIN_PIECES_DUMP") else {
        println!("skipped: CHAIN_PIECES_DUMP not set");
        return;
    };
    let jobs = warpalign::chain::dump::read_dump(&path).expect("reading the dump");
    let stats: Vec<(bool, usize, usize, usize)> = jobs
        .par_iter()
        .map(|j| {
            let pr = Params::from_job(&j.job());
            let a = &j.anchors[..];
            let starts = pieces(&pr, a);
            let longest = starts.iter().zip(starts.iter().skip(1).chain(std::iter::once(&a.len()))).map(|(s, e)| e - s).max().unwrap_or(0);
            (fill_by_pieces(&pr, a) == twin::fill_anchors_scalar(&pr, a).unwrap(), a.len(), starts.len(), longest)
        })
        .collect();
    let bad = stats.iter().filter(|s| !s.0).count();
    let anchors: usize = stats.iter().map(|s| s.1).sum();
    let n_pieces: usize = stats.iter().map(|s| s.2).sum();
    let longest_job = stats.iter().map(|s| s.1).max().unwrap_or(0);
    let longest_piece = stats.iter().map(|s| s.3).max().unwrap_or(0);
    println!(
        "pieces: {} calls, {anchors} anchors, {n_pieces} pieces; longest call {longest_job} anchors, longest piece {longest_piece}; {bad} mismatches",
        jobs.len()
    );
    assert_eq!(bad, 0, "the fill by pieces differs from the whole fill");
}
