//! Random target/query pairs with fixed seeds: every HSP of each query strand, twin vs oracle, over the
//! option sets of the default path, and pairs built for diagonal-hash collisions. Knobs:
//! `WARPALIGN_SEARCH_CASES` (default 1000 random pairs, a quarter as many collision pairs),
//! `WARPALIGN_SEARCH_SEED`.

use crate::common::{env_u64, failing_cases, pick, Rng};
use std::ffi::CString;
use warpalign::search::twin::pos_table::PosTable;
use warpalign::search::twin::scoring::{entropy, ScoreMatrix};
use warpalign::search::{self, Extension, HitFilter, Hsp, SearchOptions, Seed, SelfCompare};
use warpalign_ffi::lastz as lz;

/// Upstream's search of each query strand against `target` (one table): each strand's HSPs.
pub fn oracle(target: &[u8], queries: &[&[u8]], pattern: &str, o: &SearchOptions) -> Vec<Vec<Hsp>> {
    oracle_masked(target, queries, pattern, o, &[])
}

/// As [`oracle`], with LASTZ's dynamic masking after strand k of the census intervals `masks[k]` (1-based,
/// inclusive; none where `masks` is shorter).
pub fn oracle_masked(target: &[u8], queries: &[&[u8]], pattern: &str, o: &SearchOptions, masks: &[Vec<(u32, u32)>]) -> Vec<Vec<Hsp>> {
    run_oracle(target, queries, pattern, o, masks, 0, 0).into_iter().map(|q| q.into_iter().map(|(h, _)| h).collect()).collect()
}

/// As [`oracle`] with an adaptive threshold, `--hspthresh=top<top>` (`o.hsp_threshold` unread): the HSPs of
/// every strand go to one table of anchors limited to `top` bases, as LASTZ collects a query's two strands.
/// Each HSP comes with the table's `(len, lowScore)` when it was reported, which its entropy adjustment read.
pub fn oracle_adaptive(target: &[u8], queries: &[&[u8]], pattern: &str, o: &SearchOptions, top: u32) -> Vec<Vec<(Hsp, (u32, i32))>> {
    assert!(top > 0);
    run_oracle(target, queries, pattern, o, &[], top, 0)
}

/// As [`oracle`] with a search limit: `seed_hit_search`'s `searchLimit` for each strand (`--queryhsplimit`).
pub fn oracle_limited(target: &[u8], queries: &[&[u8]], pattern: &str, o: &SearchOptions, limit: u32) -> Vec<Vec<Hsp>> {
    run_oracle(target, queries, pattern, o, &[], 0, limit).into_iter().map(|q| q.into_iter().map(|(h, _)| h).collect()).collect()
}

/// What the rebuilt LASTZ reports of a strand's whole list under a search limit (`lzw_search_strand`): it
/// counts the HSPs the reporter takes (`collect_hsps` returns their length), and once they exceed the limit,
/// stops where the query position's hits are done, as `seed_hit_search` does.
pub fn cut_at_limit(hsps: &[Hsp], limit: u32) -> Vec<Hsp> {
    let mut to_go = limit as i64;
    for (k, h) in hsps.iter().enumerate() {
        if h.length > 0 {
            to_go -= 1;
        }
        if to_go < 0 && hsps.get(k + 1).is_none_or(|next| next.hit_pos2 != h.hit_pos2) {
            return hsps[..=k].to_vec();
        }
    }
    hsps.to_vec()
}

fn run_oracle(
    target: &[u8],
    queries: &[&[u8]],
    pattern: &str,
    o: &SearchOptions,
    masks: &[Vec<(u32, u32)>],
    top: u32,
    limit: u32,
) -> Vec<Vec<(Hsp, (u32, i32))>> {
    let seed = CString::new(pattern).unwrap();
    // as LASTZ holds them: a NUL after each sequence
    let with_nul = |s: &[u8]| s.iter().copied().chain([0]).collect::<Vec<u8>>();
    let target = with_nul(target);
    let target = &target[..target.len() - 1];
    let queries: Vec<Vec<u8>> = queries.iter().map(|q| with_nul(q)).collect();
    let parts: Vec<u32> = o.partitions.iter().flat_map(|&(b, a)| [b, a]).collect();
    let opts = lz::warpalign_oracle_lastz_search_options {
        seed: seed.as_ptr(),
        // (a resolving seed indexes exactly --word's bits)
        max_index_bits: if o.seed.resolving_mask != 0 { o.seed.weight } else { 0 },
        with_trans: o.with_trans as i32,
        step: o.step,
        x_drop: o.x_drop,
        hsp_threshold: o.hsp_threshold,
        hsp_threshold_top: top,
        entropic: o.entropic as i32,
        word_count_limit: o.max_word_count,
        word_count_chasm: o.max_word_count_chasm,
        min_matches: o.filter.map_or(-1, |f| f.min_matches),
        max_transversions: o.filter.map_or(-1, |f| f.max_transversions),
        filter_cares_only: o.filter.is_some_and(|f| f.cares_only) as i32,
        gf_extend: match o.extension {
            Extension::XDrop => -1,
            Extension::Exact => 0,
            Extension::Mismatch(m) => m as i32,
            Extension::None | Extension::Plain => -2,
        },
        plain_hits: (o.extension == Extension::Plain) as i32,
        recover_hits: o.recover_hits as i32,
        self_compare: match o.self_compare {
            SelfCompare::No => 0,
            SelfCompare::SameStrand => 1,
            SelfCompare::OppositeStrand => 2,
        },
        band_width: o.band_width,
        search_limit: limit,
        partitions: parts.as_ptr(),
        n_partitions: o.partitions.len() as u32,
    };
    let ptrs: Vec<*const u8> = queries.iter().map(|q| q.as_ptr()).collect();
    let lens: Vec<u32> = queries.iter().map(|q| q.len() as u32 - 1).collect();
    let mut counts = vec![0u32; queries.len()];
    let mut out: *mut lz::warpalign_oracle_lastz_hsp = std::ptr::null_mut();
    let flat: Vec<u32> = masks.iter().flatten().flat_map(|&(b, e)| [b, e]).collect();
    let mask_counts: Vec<u32> = (0..queries.len()).map(|k| masks.get(k).map_or(0, |m| m.len() as u32)).collect();
    unsafe {
        lz::warpalign_oracle_lastz_search_masked(
            target.as_ptr(),
            target.len() as u32,
            ptrs.as_ptr(),
            lens.as_ptr(),
            queries.len() as u32,
            &opts,
            flat.as_ptr(),
            mask_counts.as_ptr(),
            &mut out,
            counts.as_mut_ptr(),
        )
    };
    let mut next = 0usize;
    let per_query = counts
        .iter()
        .map(|&n| {
            let hsps = (next..next + n as usize)
                .map(|i| {
                    let h = unsafe { &*out.add(i) };
                    let hsp = Hsp { pos1: h.pos1, pos2: h.pos2, length: h.length, score: h.score, hit_pos2: h.hit_pos2 };
                    (hsp, (h.anchors_before, h.low_score_before))
                })
                .collect();
            next += n as usize;
            hsps
        })
        .collect();
    unsafe { lz::warpalign_oracle_lastz_free(out.cast()) };
    per_query
}

/// The twin's search of each query strand, one table built as the engine builds it.
pub fn twin(target: &[u8], queries: &[&[u8]], o: &SearchOptions, scoring: &ScoreMatrix) -> Vec<Vec<Hsp>> {
    let pt = PosTable::for_options(target, o);
    queries.iter().map(|q| search::search(target, &pt, q, o, scoring)).collect()
}

/// The first difference of two HSP lists, if any.
pub fn compare(twin: &[Hsp], oracle: &[Hsp]) -> Option<String> {
    if let Some(i) = (0..twin.len().min(oracle.len())).find(|&i| twin[i] != oracle[i]) {
        return Some(format!("HSP {i} of {}: twin {:?}, oracle {:?}", oracle.len(), twin[i], oracle[i]));
    }
    (twin.len() != oracle.len()).then(|| {
        let i = twin.len().min(oracle.len());
        format!("twin {} HSPs, oracle {}; first extra: {:?}", twin.len(), oracle.len(), twin.get(i).or(oracle.get(i)))
    })
}

/// LASTZ's reverse complement of a strand (nuc_to_complement on A, C, G, T, N in both cases).
pub fn rev_comp(s: &[u8]) -> Vec<u8> {
    s.iter()
        .rev()
        .map(|&c| match c {
            b'A' => b'T',
            b'C' => b'G',
            b'G' => b'C',
            b'T' => b'A',
            b'a' => b't',
            b'c' => b'g',
            b'g' => b'c',
            b't' => b'a',
            other => other,
        })
        .collect()
}

/// An option set: the seed's pattern (for the oracle) and the options.
pub fn options(
    pattern: &str,
    with_trans: u32,
    step: u32,
    x_drop: i32,
    hsp_threshold: i32,
    entropic: bool,
) -> (String, SearchOptions) {
    let seed = Seed::parse(pattern).unwrap();
    let o = SearchOptions {
        seed,
        with_trans,
        step,
        x_drop,
        hsp_threshold,
        entropic,
        max_word_count: 0,
        max_word_count_chasm: 0,
        filter: None,
        extension: Extension::XDrop,
        self_compare: SelfCompare::No,
        band_width: 0,
        partitions: Vec::new(),
        recover_hits: false,
    };
    (pattern.to_string(), o)
}

/// A seed with Ts: half-weight (Ts and 0s; one bit a base, up to 63 positions) or mixed (1s and Ts). The
/// light ones (10 and 13 bits) only on small targets.
pub fn t_seed(rng: &mut Rng, target_len: usize) -> &'static str {
    if target_len < 5_000 && rng.chance(0.3) {
        return pick(rng, &["TTT0T0T0TTT00T0T", "11T1T0T11"]);
    }
    pick(
        rng,
        &[
            "TTTTTTTTTTTTTTTTTTTTTTTT",
            "TTTTT0TTTT0TTTTTT00TTTTTTT0TTTT",
            "TTTTT000TTTTT000TTTTT000TTTTT000TTTTT000",
            "1T1T0111T011T0T11",
            "T1110100110010101111T",
        ],
    )
}

/// `pattern` parsed with `--word` below its weight (at least LASTZ's 8 bits, and on larger targets 20, so that
/// the index's hits stay few), resolving up to 16 of its 1s but not all (LASTZ's search then reads the
/// transition flips the seed does not have); as it is when it has no 1 to resolve.
pub fn resolving_seed(rng: &mut Rng, pattern: &str, target_len: usize) -> Seed {
    let whole = Seed::parse_for_index(pattern, 0).expect("a seed of at most 28 bits");
    let ones = whole.pattern.iter().filter(|&&c| c == b'1').count() as u32;
    let lowest = (whole.weight - (ones.max(1) - 1).min(16)).max(if target_len < 20_000 { 12 } else { 20 }).max(8);
    if ones == 0 || lowest >= whole.weight {
        return whole;
    }
    // (LASTZ refuses resolved 1s spread over more than 16 bases: more bits then)
    let bits = rng.range(lowest as i64, whole.weight as i64 - 1) as u32;
    (bits..whole.weight).find_map(|b| Seed::parse_for_index(pattern, b).ok()).expect("one 1 resolved")
}

pub fn random_options(rng: &mut Rng, target_len: usize) -> (String, SearchOptions) {
    let mut pattern = pick(
        rng,
        &[Seed::PATTERN_12OF19, Seed::PATTERN_12OF19, "111111111111", "1101100111011", "x1110100110010101111xx"],
    )
    .to_string();
    // short seeds hit everywhere, and 14of22's table has 2^28 entries: only on small targets
    if target_len < 20_000 && rng.chance(0.2) {
        pattern = pick(rng, &["11111111", "1101100111"]).to_string();
    } else if target_len < 20_000 && rng.chance(0.05) {
        pattern = Seed::PATTERN_14OF22.to_string();
    } else if rng.chance(0.1) {
        pattern = t_seed(rng, target_len).to_string();
    }
    let with_trans = pick(rng, &[0, 1, 1, 1, 2]);
    let step = if rng.chance(0.7) { 1 } else { pick(rng, &[2, 3, 7, 19, 20, 25, 64]) };
    let x_drop = if rng.chance(0.6) { 910 } else { pick(rng, &[1, 100, 400, 2000, 10_000]) };
    // a threshold of 1 makes nearly every seed hit an HSP: only on small targets
    let hsp_threshold = if target_len < 10_000 && rng.chance(0.05) {
        1
    } else if rng.chance(0.5) {
        3000
    } else {
        pick(rng, &[500, 1500, 2200, 6000])
    };
    let entropic = rng.chance(0.8);
    // threshold 0 without entropy: every extension an HSP, as the rebuilt LASTZ searches for `top<n>`
    let (hsp_threshold, entropic) = if rng.chance(0.05) { (0, false) } else { (hsp_threshold, entropic) };
    let (pattern, mut o) = options(&pattern, with_trans, step, x_drop, hsp_threshold, entropic);
    if rng.chance(0.08) {
        o.seed = resolving_seed(rng, &pattern, target_len);
    }
    if rng.chance(0.15) {
        // --maxwordcount: limits the repeats' words (the target's repeats have a few copies each)
        o.max_word_count = pick(rng, &[1, 2, 3, 5, 20]);
        if rng.chance(0.5) {
            o.max_word_count_chasm = pick(rng, &[1, 2, 10, 50, 300]);
        }
    }
    if rng.chance(0.15) {
        // --filter: at most the seed's (care) positions
        let cares_only = rng.chance(0.5);
        let positions =
            if cares_only { o.seed.pattern.iter().filter(|&&c| c == b'1').count() } else { o.seed.length as usize };
        let min_matches = rng.range(0, positions as i64) as i32;
        let max_transversions = if rng.chance(0.5) { -1 } else { rng.range(0, 3) as i32 };
        o.filter = Some(HitFilter { min_matches, max_transversions, cares_only });
    }
    (pattern, o)
}

/// Bases in LASTZ's text form: mostly ACGT, with runs of N, lowercase (soft-masked) runs, a few other
/// characters (IUPAC, X) that stop seeds and score as fill or X.
fn dress(rng: &mut Rng, codes: &[u8]) -> Vec<u8> {
    let mut v: Vec<u8> = codes.iter().map(|&c| b"ACGTN"[c.min(4) as usize]).collect();
    for _ in 0..rng.below(4) {
        if v.is_empty() {
            break;
        }
        let s = rng.below(v.len() as u64) as usize;
        let e = (s + rng.range(1, 2000) as usize).min(v.len());
        v[s..e].make_ascii_lowercase();
    }
    for _ in 0..rng.below(3) {
        if v.is_empty() {
            break;
        }
        let s = rng.below(v.len() as u64) as usize;
        let e = (s + rng.range(1, 300) as usize).min(v.len());
        v[s..e].fill(b'N');
    }
    for _ in 0..rng.below(5) {
        if v.is_empty() {
            break;
        }
        let i = rng.below(v.len() as u64) as usize;
        v[i] = pick(rng, &[b'R', b'Y', b'X', b'n', b'W']);
    }
    v
}

/// Log-uniform in `lo..=hi`.
fn size(rng: &mut Rng, lo: f64, hi: f64) -> usize {
    let u = rng.below(1 << 20) as f64 / (1u64 << 20) as f64;
    (lo * (hi / lo).powf(u)) as usize
}

/// A target with repeats, and a query of mutated copies of its pieces (either orientation), random
/// stretches and repeats, so that HSPs, overlapping hits and hash collisions (diagonals 65,536 apart)
/// occur.
pub fn random_pair(rng: &mut Rng) -> (Vec<u8>, Vec<u8>) {
    let tlen = size(rng, 1000.0, 200_000.0);
    let mut t = rng.nt4_seq(tlen, 0.0);
    // tandem and dispersed repeats in the target
    for _ in 0..rng.below(6) {
        let len = rng.range(20, 3000).min(tlen as i64 / 2) as usize;
        let from = rng.below((tlen - len) as u64 + 1) as usize;
        let to = rng.below((tlen - len) as u64 + 1) as usize;
        let rate = pick(rng, &[0.0, 0.02, 0.1]);
        let piece = rng.mutate(&t[from..from + len], rate);
        for (k, &c) in piece.iter().enumerate().take(tlen - to) {
            t[to + k] = c;
        }
    }
    let mut q = Vec::new();
    let qlen = size(rng, 1000.0, 200_000.0);
    while q.len() < qlen {
        match rng.below(4) {
            0 => {
                let len = rng.range(1, 5000) as usize;
                q.extend(rng.nt4_seq(len, 0.0))
            }
            _ => {
                let len = rng.range(30, 20_000).min(tlen as i64) as usize;
                let from = rng.below((tlen - len) as u64 + 1) as usize;
                let rate = pick(rng, &[0.0, 0.01, 0.05, 0.1, 0.15, 0.25]);
                let mut piece = rng.mutate(&t[from..from + len], rate);
                if rng.chance(0.3) {
                    piece = piece.iter().rev().map(|&c| 3 - c).collect();
                }
                q.extend(piece);
            }
        }
    }
    (dress(rng, &t), dress(rng, &q))
}

#[test]
fn masked_hoxd70_is_upstreams() {
    let mut up = vec![0i32; 65536];
    unsafe { lz::warpalign_oracle_lastz_masked_hoxd70(up.as_mut_ptr()) };
    let ours = ScoreMatrix::masked_hoxd70();
    for r in 0..256 {
        for c in 0..256 {
            assert_eq!(ours.0[r][c], up[256 * r + c], "sub[{r}][{c}]");
        }
    }
}

#[test]
fn defaults_are_lastzs() {
    let d = SearchOptions::lastz_default();
    assert_eq!(d.seed, Seed::parse("1110100110010101111").unwrap());
    // --xdrop's default: 10 times the score of the first row and column characters (A vs A)
    assert_eq!(d.x_drop, 10 * ScoreMatrix::masked_hoxd70().get(b'A', b'A'));
}

#[test]
fn random_pairs_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000);
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23);
    let scoring = ScoreMatrix::masked_hoxd70();
    let hsps = std::sync::atomic::AtomicU64::new(0);
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let (t, q) = random_pair(&mut rng);
        let (pattern, o) = random_options(&mut rng, t.len());
        let rc = rev_comp(&q);
        let strands: [&[u8]; 2] = [&q, &rc];
        let (tw, or) = (twin(&t, &strands, &o, &scoring), oracle(&t, &strands, &pattern, &o));
        for (k, strand) in ['+', '-'].into_iter().enumerate() {
            hsps.fetch_add(or[k].len() as u64, std::sync::atomic::Ordering::Relaxed);
            if let Some(why) = compare(&tw[k], &or[k]) {
                return Some(format!(
                    "case {i} (seed {seed}; target {} bp, query {} bp, strand {strand}, seed {pattern}, T={} step={} X={} K={} entropy={} maxwordcount={},{} filter={:?}): {why}",
                    t.len(), q.len(), o.with_trans, o.step, o.x_drop, o.hsp_threshold, o.entropic, o.max_word_count, o.max_word_count_chasm, o.filter
                ));
            }
        }
        None
    });
    eprintln!("{n} random pairs (both strands), {} HSPs compared", hsps.into_inner());
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
}


/// `--queryhsplimit`: upstream's search of each strand with a limit against the twin's whole list cut where the
/// rebuilt LASTZ stops reporting it.
#[test]
fn search_limit_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23) + 8;
    let scoring = ScoreMatrix::masked_hoxd70();
    let (hsps, cut) = (std::sync::atomic::AtomicU64::new(0), std::sync::atomic::AtomicU64::new(0));
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let (t, q) = if i % 4 == 3 { collision_pair(&mut rng) } else { random_pair(&mut rng) };
        let (pattern, o) = if i % 3 == 2 { random_other_extension(&mut rng, t.len()) } else { random_options(&mut rng, t.len()) };
        let limit = pick(&mut rng, &[1, 2, 5, 20, 100, 1000]);
        let rc = rev_comp(&q);
        let strands: [&[u8]; 2] = [&q, &rc];
        let (tw, or) = (twin(&t, &strands, &o, &scoring), oracle_limited(&t, &strands, &pattern, &o, limit));
        for k in 0..2 {
            let want = cut_at_limit(&tw[k], limit);
            hsps.fetch_add(want.len() as u64, std::sync::atomic::Ordering::Relaxed);
            cut.fetch_add((want.len() < tw[k].len()) as u64, std::sync::atomic::Ordering::Relaxed);
            if let Some(why) = compare(&want, &or[k]) {
                return Some(format!("case {i} (seed {seed}; target {} bp, query {} bp, seed {pattern}, limit {limit}, {o:?}): {why}", t.len(), q.len()));
            }
        }
        None
    });
    eprintln!("{n} pairs with a search limit (both strands), {} HSPs compared, {} strands cut", hsps.into_inner(), cut.into_inner());
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

/// Seeds heavier than `--word` (their last 1s resolved against the target at each hit, with the transitions
/// the word's flips leave): random pairs and collision pairs, twin vs oracle.
#[test]
fn resolving_seeds_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23) + 7;
    let scoring = ScoreMatrix::masked_hoxd70();
    let hsps = std::sync::atomic::AtomicU64::new(0);
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let (t, q) = if i % 4 == 3 { collision_pair(&mut rng) } else { random_pair(&mut rng) };
        let (_, o) = if i % 3 == 2 { random_other_extension(&mut rng, t.len()) } else { random_options(&mut rng, t.len()) };
        let pattern = pick(
            &mut rng,
            &[Seed::PATTERN_12OF19, Seed::PATTERN_14OF22, "11111111111111", "1T1T0111T011T0T11", "T1110100110010101111T", "1101100111011"],
        );
        let o = SearchOptions { seed: resolving_seed(&mut rng, pattern, t.len()), filter: None, ..o };
        let rc = rev_comp(&q);
        let strands: [&[u8]; 2] = [&q, &rc];
        let (tw, or) = (twin(&t, &strands, &o, &scoring), oracle(&t, &strands, pattern, &o));
        hsps.fetch_add((or[0].len() + or[1].len()) as u64, std::sync::atomic::Ordering::Relaxed);
        (0..2).find_map(|k| compare(&tw[k], &or[k])).map(|why| {
            format!("case {i} (seed {seed}; target {} bp, query {} bp, seed {pattern}, {o:?}): {why}", t.len(), q.len())
        })
    });
    eprintln!("{n} pairs with resolving seeds (both strands), {} HSPs compared", hsps.into_inner());
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

/// What the rebuilt LASTZ hands the search (the seed LASTZ parsed: its pattern with the resolved 1s as Ts, and
/// its resolving mask) is the seed the pattern and `--word` give.
#[test]
fn resolving_seeds_from_lastz() {
    let mut rng = Rng::new(8);
    for pattern in [Seed::PATTERN_12OF19, Seed::PATTERN_14OF22, "11111111111111", "1T1T0111T011T0T11", "111111111111", "10000000000000000000111"] {
        for bits in 8..=28 {
            let Ok(seed) = Seed::parse_for_index(pattern, bits) else { continue };
            let parsed = String::from_utf8(seed.pattern.clone()).unwrap();
            assert_eq!(Seed::from_lastz(&parsed, seed.resolving_mask).unwrap(), seed, "{pattern} --word={bits}");
        }
    }
    // all of 12 1s resolved: a T pattern of two bits a base, not a half-weight seed
    let all = Seed::parse_for_index("111111111111", 12).unwrap();
    assert_eq!((all.base_bits, all.resolving_mask.count_ones()), (2, 12));
    assert!(rng.chance(1.0));
}

/// Seeds with Ts (`--seed=half<N>`, patterns with T): random pairs and collision pairs, twin vs oracle.
#[test]
fn t_seeds_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23) + 6;
    let scoring = ScoreMatrix::masked_hoxd70();
    let hsps = std::sync::atomic::AtomicU64::new(0);
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let (t, q) = if i % 4 == 3 { collision_pair(&mut rng) } else { random_pair(&mut rng) };
        let (_, o) = if i % 3 == 2 { random_other_extension(&mut rng, t.len()) } else { random_options(&mut rng, t.len()) };
        let pattern = t_seed(&mut rng, t.len());
        let o = SearchOptions { seed: Seed::parse(pattern).unwrap(), filter: None, ..o };
        let rc = rev_comp(&q);
        let strands: [&[u8]; 2] = [&q, &rc];
        let (tw, or) = (twin(&t, &strands, &o, &scoring), oracle(&t, &strands, pattern, &o));
        hsps.fetch_add((or[0].len() + or[1].len()) as u64, std::sync::atomic::Ordering::Relaxed);
        (0..2).find_map(|k| compare(&tw[k], &or[k])).map(|why| {
            format!("case {i} (seed {seed}; target {} bp, query {} bp, seed {pattern}, {o:?}): {why}", t.len(), q.len())
        })
    });
    eprintln!("{n} pairs with seeds with Ts (both strands), {} HSPs compared", hsps.into_inner());
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

/// `--hspthresh=top<n>` (x-drop extension): every extension is an HSP, and its score is entropy-adjusted when
/// it would make the anchors collected so far. The rebuilt LASTZ searches with threshold 0 and no entropy (an
/// x-drop score is never negative), then adjusts each score as it reports it, reading its own anchors
/// (`lzw_adaptive_score`). Here the anchors are upstream's in the oracle: the twin's list so adjusted with the
/// table's state at each HSP must be upstream's list.
#[test]
fn adaptive_threshold_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23) + 5;
    let scoring = ScoreMatrix::masked_hoxd70();
    let (hsps, adjusted) = (std::sync::atomic::AtomicU64::new(0), std::sync::atomic::AtomicU64::new(0));
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let (t, q) = if i % 4 == 3 { collision_pair(&mut rng) } else { random_pair(&mut rng) };
        let (pattern, o) = random_options(&mut rng, t.len());
        let top = pick(&mut rng, &[1, 30, 500, 5000, 100_000]);
        let rc = rev_comp(&q);
        let strands: [&[u8]; 2] = [&q, &rc];
        let or = oracle_adaptive(&t, &strands, &pattern, &o, top);
        let raw = twin(&t, &strands, &SearchOptions { hsp_threshold: 0, entropic: false, ..o.clone() }, &scoring);
        for k in 0..2 {
            hsps.fetch_add(or[k].len() as u64, std::sync::atomic::Ordering::Relaxed);
            let replayed: Vec<Hsp> = raw[k]
                .iter()
                .zip(&or[k])
                .map(|(h, &(_, (len, low)))| {
                    let mut h = *h;
                    if o.entropic && h.score > 0 && len > 0 && h.score >= low {
                        let (s1, s2, n) = (h.pos1 as usize, h.pos2 as usize, h.length as usize);
                        h.score = (h.score as f64 * entropy(&t[s1..s1 + n], &strands[k][s2..s2 + n])) as i32;
                        adjusted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    h
                })
                .chain(raw[k].iter().skip(or[k].len()).copied())
                .collect();
            let up: Vec<Hsp> = or[k].iter().map(|&(h, _)| h).collect();
            if let Some(why) = compare(&replayed, &up) {
                return Some(format!("case {i} (seed {seed}; target {} bp, query {} bp, seed {pattern}, top{top}, {o:?}): {why}", t.len(), q.len()));
            }
        }
        None
    });
    eprintln!("{n} pairs with top thresholds (both strands), {} HSPs compared, {} adjusted", hsps.into_inner(), adjusted.into_inner());
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

/// Options of `random_options` with the other gap-free extensions: `--exact=<length>` or
/// `--mismatch=<M>,<length>` (M mostly 1 to 6, now and then up to 50; the length from the seed's to 3 times
/// it, or now and then 1), or `--nogfextend` with or without the gapped stage (the simple or the plain hit
/// processor; on small targets: every seed hit is an HSP).
pub fn random_other_extension(rng: &mut Rng, target_len: usize) -> (String, SearchOptions) {
    let (pattern, mut o) = random_options(rng, target_len);
    if target_len < 20_000 && rng.chance(0.2) {
        o.extension = if rng.chance(0.5) { Extension::None } else { Extension::Plain };
    } else {
        o.extension = if rng.chance(0.5) {
            Extension::Exact
        } else {
            Extension::Mismatch(if rng.chance(0.1) { rng.range(7, 50) } else { rng.range(1, 6) } as u8)
        };
        let len = o.seed.length as i64;
        o.hsp_threshold = if rng.chance(0.05) { 1 } else { rng.range(len, 3 * len) as i32 };
    }
    (pattern, o)
}

/// `--exact`, `--mismatch` and `--nogfextend`: random pairs and collision pairs, twin vs oracle.
#[test]
fn other_extensions_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 2;
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23) + 2;
    let scoring = ScoreMatrix::masked_hoxd70();
    let hsps = std::sync::atomic::AtomicU64::new(0);
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let (t, q) = if i % 4 == 3 { collision_pair(&mut rng) } else { random_pair(&mut rng) };
        let (pattern, o) = random_other_extension(&mut rng, t.len());
        let rc = rev_comp(&q);
        let strands: [&[u8]; 2] = [&q, &rc];
        let (tw, or) = (twin(&t, &strands, &o, &scoring), oracle(&t, &strands, &pattern, &o));
        hsps.fetch_add((or[0].len() + or[1].len()) as u64, std::sync::atomic::Ordering::Relaxed);
        (0..2).find_map(|k| compare(&tw[k], &or[k])).map(|why| {
            format!("case {i} (seed {seed}; target {} bp, query {} bp, seed {pattern}, {o:?}): {why}", t.len(), q.len())
        })
    });
    eprintln!("{n} pairs with --exact, --mismatch or --nogfextend (both strands), {} HSPs compared", hsps.into_inner());
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

/// `--recoverhits` over random options: x-drop (with its filters and thresholds) or the other extensions.
pub fn recover_options(rng: &mut Rng, target_len: usize) -> (String, SearchOptions) {
    let (pattern, o) = if rng.chance(0.5) { random_options(rng, target_len) } else { random_other_extension(rng, target_len) };
    (pattern, SearchOptions { recover_hits: true, ..o })
}

/// `process_for_recoverable_hit` (`--recoverhits`): random pairs and, every other one, pairs built for the hash's
/// collisions, where it extends what `process_for_simple_hit` drops. The twin against upstream, both strands; and
/// the recovered hits must change some lists.
#[test]
fn recover_hits_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 2;
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23) + 9;
    let scoring = ScoreMatrix::masked_hoxd70();
    let (hsps, changed) = (std::sync::atomic::AtomicU64::new(0), std::sync::atomic::AtomicU64::new(0));
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let (t, q) = if i % 2 == 1 { collision_pair(&mut rng) } else { random_pair(&mut rng) };
        let (pattern, o) = recover_options(&mut rng, t.len());
        let rc = rev_comp(&q);
        let strands: [&[u8]; 2] = [&q, &rc];
        let (tw, or) = (twin(&t, &strands, &o, &scoring), oracle(&t, &strands, &pattern, &o));
        hsps.fetch_add((or[0].len() + or[1].len()) as u64, std::sync::atomic::Ordering::Relaxed);
        let simple = twin(&t, &strands, &SearchOptions { recover_hits: false, ..o.clone() }, &scoring);
        changed.fetch_add((simple != tw) as u64, std::sync::atomic::Ordering::Relaxed);
        (0..2).find_map(|k| compare(&tw[k], &or[k])).map(|why| {
            format!("case {i} (seed {seed}; target {} bp, query {} bp, seed {pattern}, {o:?}): {why}", t.len(), q.len())
        })
    });
    let changed = changed.into_inner();
    eprintln!("{n} pairs with --recoverhits (both strands), {} HSPs compared, {changed} lists unlike the simple processor's", hsps.into_inner());
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
    assert!(changed * 10 >= n, "--recoverhits changed only {changed} of {n} lists");
}

/// A pair for the diagonal hash's collisions: copies of a piece 65,536 x k (+ a small shift) apart in the
/// target and a mutated copy in the query.
pub fn collision_pair(rng: &mut Rng) -> (Vec<u8>, Vec<u8>) {
    let len = rng.range(100, 3000) as usize;
    let piece = rng.nt4_seq(len, 0.0);
    let mut t = {
        let l = rng.range(0, 2000) as usize;
        rng.nt4_seq(l, 0.0)
    };
    for _ in 0..rng.range(2, 3) {
        let rate = pick(rng, &[0.0, 0.0, 0.02, 0.1]);
        t.extend(rng.mutate(&piece, rate));
        let shift = if rng.chance(0.5) { 0 } else { rng.range(-40, 40) };
        let gap = (65_536 * rng.range(1, 2) + shift) as usize - len;
        t.extend(rng.nt4_seq(gap, 0.0));
    }
    let l = rng.range(0, 500) as usize;
    let mut q = rng.nt4_seq(l, 0.0);
    let rate = pick(rng, &[0.0, 0.02, 0.05]);
    q.extend(rng.mutate(&piece, rate));
    let l = rng.range(0, 500) as usize;
    q.extend(rng.nt4_seq(l, 0.0));
    (dress(rng, &t), dress(rng, &q))
}

/// The diagonal hash's collisions: copies of a piece 65,536 x k (+ a small shift) apart in the target,
/// so that the query's hits on the two diagonals share (or nearly share) one hashed diagonal.
#[test]
fn hash_collisions_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23) + 1;
    let scoring = ScoreMatrix::masked_hoxd70();
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let (t, q) = collision_pair(&mut rng);
        let (pattern, o) = random_options(&mut rng, t.len());
        let rc = rev_comp(&q);
        let strands: [&[u8]; 2] = [&q, &rc];
        let (tw, or) = (twin(&t, &strands, &o, &scoring), oracle(&t, &strands, &pattern, &o));
        (0..2).find_map(|k| compare(&tw[k], &or[k])).map(|why| format!("collision case {i} (seed {seed}): {why}"))
    });
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

/// Two exact copies 65,536 apart: the right copy's HSP blocks the left copy's hits (same hashed diagonal),
/// so LASTZ reports one HSP, and so does the twin.
#[test]
fn hash_collision_drops_the_second_copy() {
    let mut rng = Rng::new(65_536);
    let piece = rng.nt4_seq(1000, 0.0);
    let mut codes = rng.nt4_seq(500, 0.0);
    codes.extend(&piece);
    codes.extend(rng.nt4_seq(65_536 - 1000, 0.0));
    codes.extend(&piece);
    codes.extend(rng.nt4_seq(500, 0.0));
    let t: Vec<u8> = codes.iter().map(|&c| b"ACGT"[c as usize]).collect();
    let q: Vec<u8> = piece.iter().map(|&c| b"ACGT"[c as usize]).collect();
    let (pattern, o) = (Seed::PATTERN_12OF19.to_string(), SearchOptions::lastz_default());
    let or = oracle(&t, &[&q], &pattern, &o).swap_remove(0);
    assert_eq!(or.len(), 1, "{or:?}");
    assert_eq!((or[0].pos1, or[0].pos2, or[0].length), (500 + 65_536, 0, 1000));
    assert_eq!(twin(&t, &[&q], &o, &ScoreMatrix::masked_hoxd70()).swap_remove(0), or);
}

/// A target for `--self`: a random pair's target with copies of its own pieces added: anywhere, some
/// reverse-complemented (inverted repeats); tandem, at `self_options`' band widths (hits exactly at the band's
/// edge); and palindromes, a piece then its reverse complement, right after it or one base on (hits next to
/// the reverse strand's main diagonal; a strict seed hits nothing exactly on it, whose windows would pair a
/// base with its own complement).
pub fn self_target(rng: &mut Rng) -> Vec<u8> {
    let (mut t, _) = random_pair(rng);
    let tlen = t.len();
    let put = |t: &mut Vec<u8>, piece: &[u8], to: usize| {
        let n = piece.len().min(tlen - to);
        t[to..to + n].copy_from_slice(&piece[..n]);
    };
    for _ in 0..rng.range(1, 8) {
        let len = rng.range(20, 4000).min(tlen as i64 / 2) as usize;
        let (from, to) = (rng.below((tlen - len) as u64 + 1) as usize, rng.below((tlen - len) as u64 + 1) as usize);
        let mut piece = t[from..from + len].to_vec();
        match rng.below(3) {
            0 => put(&mut t, &piece, to),
            1 => {
                piece = rev_comp(&piece);
                put(&mut t, &piece, to)
            }
            _ => {
                let gap = rng.below(2) as usize;
                let rc = rev_comp(&piece);
                put(&mut t, &rc, (from + len + gap).min(tlen - 1))
            }
        }
        // a short palindrome alone: its only hits lie next to the reverse strand's main diagonal
        let arm = rng.range(6, 14) as usize;
        let at = rng.below((tlen - 2 * arm - 1) as u64) as usize;
        let left = t[at..at + arm].to_vec();
        let gap = rng.below(2) as usize;
        put(&mut t, &rev_comp(&left), at + arm + gap);
        let d = pick(rng, &BAND_WIDTHS) as usize;
        if from + d < tlen {
            let piece = t[from..from + len.min(300)].to_vec();
            put(&mut t, &piece, from + d);
        }
    }
    t
}

/// `--band` widths of the `--self` tests.
const BAND_WIDTHS: [u32; 5] = [1, 5, 50, 1000, 20_000];

/// `--self` options: `random_options` (a fifth with another extension), `--band` now and then on the target's
/// own strand.
pub fn self_options(rng: &mut Rng, target_len: usize, strand: SelfCompare) -> (String, SearchOptions) {
    let (pattern, mut o) = if rng.chance(0.2) { random_other_extension(rng, target_len) } else { random_options(rng, target_len) };
    o.self_compare = strand;
    if strand == SelfCompare::SameStrand && rng.chance(0.3) {
        o.band_width = pick(rng, &BAND_WIDTHS);
    }
    (pattern, o)
}

/// `--self` (and `--band`): a target against itself and against its reverse complement, twin vs oracle.
#[test]
fn self_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23) + 3;
    let scoring = ScoreMatrix::masked_hoxd70();
    let hsps = std::sync::atomic::AtomicU64::new(0);
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let t = self_target(&mut rng);
        let rc = rev_comp(&t);
        for (strand, q) in [(SelfCompare::SameStrand, &t), (SelfCompare::OppositeStrand, &rc)] {
            let (pattern, o) = self_options(&mut rng, t.len(), strand);
            let (tw, or) = (twin(&t, &[q], &o, &scoring), oracle(&t, &[q], &pattern, &o));
            hsps.fetch_add(or[0].len() as u64, std::sync::atomic::Ordering::Relaxed);
            if let Some(why) = compare(&tw[0], &or[0]) {
                return Some(format!("case {i} (seed {seed}; target {} bp, seed {pattern}, {o:?}): {why}", t.len()));
            }
        }
        None
    });
    eprintln!("{n} targets under --self (both strands), {} HSPs compared", hsps.into_inner());
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

/// A `[multiple]` target as LASTZ loads it for `--self`: 2 to 6 sequences cut from a [`self_target`] (so that
/// they share repeats, in both orientations), a NUL before each and after the last (`v[len]`), and each
/// partition's `(sepBefore, sepAfter)`.
pub fn partitioned_self_target(rng: &mut Rng) -> (Vec<u8>, Vec<(u32, u32)>) {
    let whole = self_target(rng);
    let n = rng.range(2, 6) as usize;
    let mut cuts: Vec<usize> = (0..n - 1).map(|_| rng.below(whole.len() as u64) as usize).collect();
    cuts.extend([0, whole.len()]);
    cuts.sort_unstable();
    let (mut t, mut parts) = (Vec::new(), Vec::new());
    for w in cuts.windows(2).filter(|w| w[1] > w[0]) {
        t.push(0);
        let before = t.len() as u32 - 1;
        t.extend_from_slice(&whole[w[0]..w[1]]);
        parts.push((before, t.len() as u32));
    }
    (t, parts)
}

/// The reverse complement LASTZ's `rev_comp_sequence` makes of a partitioned strand: each partition in place.
pub fn rev_comp_partitions(t: &[u8], parts: &[(u32, u32)]) -> Vec<u8> {
    let mut rc = t.to_vec();
    for &(before, after) in parts {
        let (b, a) = (before as usize + 1, after as usize);
        rc[b..a].copy_from_slice(&rev_comp(&t[b..a]));
    }
    rc
}

/// `--self` on a `[multiple]` target: both strands, the reverse one compared by partitions first, twin vs oracle.
#[test]
fn self_partitioned_twin_vs_oracle() {
    let n = env_u64("WARPALIGN_SEARCH_CASES", 1000) / 4;
    let seed = env_u64("WARPALIGN_SEARCH_SEED", 23) + 5;
    let scoring = ScoreMatrix::masked_hoxd70();
    let hsps = std::sync::atomic::AtomicU64::new(0);
    let bad = failing_cases(n, |i| {
        let mut rng = Rng::for_case(seed, i);
        let (t, parts) = partitioned_self_target(&mut rng);
        let rc = rev_comp_partitions(&t, &parts);
        for (strand, q) in [(SelfCompare::SameStrand, &t), (SelfCompare::OppositeStrand, &rc)] {
            let (pattern, mut o) = self_options(&mut rng, t.len(), strand);
            o.partitions = parts.clone();
            let (tw, or) = (twin(&t, &[q], &o, &scoring), oracle(&t, &[q], &pattern, &o));
            hsps.fetch_add(or[0].len() as u64, std::sync::atomic::Ordering::Relaxed);
            if let Some(why) = compare(&tw[0], &or[0]) {
                return Some(format!("case {i} (seed {seed}; target {} bp, {} partitions, seed {pattern}, {o:?}): {why}", t.len(), parts.len()));
            }
        }
        None
    });
    eprintln!("{n} partitioned targets under --self (both strands), {} HSPs compared", hsps.into_inner());
    assert!(bad.is_empty(), "{} of {n} cases differ: {:?}", bad.len(), &bad[..bad.len().min(20)]);
}
