//! The ksw engine's batch path against direct calls of upstream's functions (the oracle), on random jobs
//! with fixed seeds: every output field and the CIGAR must be equal, for every flag combination.

use crate::check::{out_of, Extd2, Exts2, Extz2, Kernel};
use crate::common::{mm2_matrix, Rng};
use warpalign::ksw::{self, flag, KswExtd2Job, KswExts2Job, KswExtz2Job, KswResult};
use warpalign::Engine;

struct Case {
    q: Vec<u8>,
    t: Vec<u8>,
    mat: Vec<i8>,
    junc: Vec<u8>,
    w: i32,
    zdrop: i32,
    end_bonus: i32,
    flag: i32,
}

fn random_case(rng: &mut Rng, splice: bool) -> Case {
    let qlen = rng.range(0, 600) as usize;
    let q = rng.nt4_seq(qlen, 0.01);
    let t = if rng.chance(0.8) {
        let rate = [0.02, 0.1, 0.3][rng.below(3) as usize];
        rng.mutate(&q, rate)
    } else {
        let tlen = rng.range(0, 600) as usize;
        rng.nt4_seq(tlen, 0.01)
    };
    let mut f = 0;
    for (bit, p) in [(flag::SCORE_ONLY, 0.1), (flag::RIGHT, 0.3), (flag::APPROX_MAX, 0.4), (flag::APPROX_DROP, 0.2), (flag::EXTZ_ONLY, 0.4), (flag::REV_CIGAR, 0.3), (flag::GENERIC_SC, 0.2)] {
        if rng.chance(p) {
            f |= bit;
        }
    }
    if splice {
        f |= [flag::SPLICE_FOR, flag::SPLICE_REV][rng.below(2) as usize];
        if rng.chance(0.5) {
            f |= flag::SPLICE_CMPLX;
        }
    }
    let (a, b) = [(2, 4), (1, 2), (1, 4), (2, 8)][rng.below(4) as usize];
    let tlen = t.len();
    Case {
        junc: (0..tlen + 1).map(|_| rng.below(4) as u8).collect(),
        q,
        t,
        mat: mm2_matrix(a, b, 1),
        w: [-1, 10, 51, 200, 500][rng.below(5) as usize],
        zdrop: [-1, 50, 100, 400][rng.below(4) as usize],
        end_bonus: [-1, 0, 10][rng.below(3) as usize],
        flag: f,
    }
}

#[test]
fn extd2_batch_equals_upstream() {
    let mut rng = Rng::new(2);
    let cases: Vec<Case> = (0..3000).map(|_| random_case(&mut rng, false)).collect();
    let gaps = [(4i8, 2i8, 24i8, 1i8), (6, 2, 26, 1), (4, 2, 40, 1), (5, 4, 32, 2)];
    let jobs: Vec<KswExtd2Job> = cases
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let (q, e, q2, e2) = gaps[i % gaps.len()];
            KswExtd2Job { qlen: k.q.len() as i32, query: k.q.as_ptr(), tlen: k.t.len() as i32, target: k.t.as_ptr(), m: 5, mat: k.mat.as_ptr(), q, e, q2, e2, w: k.w, zdrop: k.zdrop, end_bonus: k.end_bonus, flag: k.flag }
        })
        .collect();
    let mut results: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    ksw::extd2_batch(&Engine::cpu(), &jobs, &mut results).unwrap();
    for (i, (j, r)) in jobs.iter().zip(results.iter_mut()).enumerate() {
        assert_eq!(out_of(r), Extd2::oracle(j), "extd2 case {i}");
    }
}

#[test]
fn exts2_batch_equals_upstream() {
    let mut rng = Rng::new(3);
    let cases: Vec<Case> = (0..1500).map(|_| random_case(&mut rng, true)).collect();
    let jobs: Vec<KswExts2Job> = cases
        .iter()
        .enumerate()
        .map(|(i, k)| KswExts2Job {
            qlen: k.q.len() as i32, query: k.q.as_ptr(), tlen: k.t.len() as i32, target: k.t.as_ptr(), m: 5, mat: k.mat.as_ptr(),
            q: 2, e: 1, q2: 32, noncan: 9, zdrop: k.zdrop, end_bonus: k.end_bonus, junc_bonus: 9, junc_pen: 5, flag: k.flag,
            junc: if i % 2 == 0 { k.junc.as_ptr() } else { std::ptr::null() },
        })
        .collect();
    let mut results: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    ksw::exts2_batch(&Engine::cpu(), &jobs, &mut results).unwrap();
    for (i, (j, r)) in jobs.iter().zip(results.iter_mut()).enumerate() {
        assert_eq!(out_of(r), Exts2::oracle(j), "exts2 case {i}");
    }
}

#[test]
fn extz2_batch_equals_upstream() {
    let mut rng = Rng::new(4);
    let cases: Vec<Case> = (0..1500).map(|_| random_case(&mut rng, false)).collect();
    let jobs: Vec<KswExtz2Job> = cases
        .iter()
        .map(|k| KswExtz2Job { qlen: k.q.len() as i32, query: k.q.as_ptr(), tlen: k.t.len() as i32, target: k.t.as_ptr(), m: 5, mat: k.mat.as_ptr(), q: 4, e: 2, w: k.w, zdrop: k.zdrop, end_bonus: k.end_bonus, flag: k.flag })
        .collect();
    let mut results: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    ksw::extz2_batch(&Engine::cpu(), &jobs, &mut results).unwrap();
    for (i, (j, r)) in jobs.iter().zip(results.iter_mut()).enumerate() {
        assert_eq!(out_of(r), Extz2::oracle(j), "extz2 case {i}");
    }
}

#[test]
fn bad_jobs_are_rejected_with_a_message() {
    let mat = mm2_matrix(2, 4, 1);
    let job = KswExtd2Job { qlen: 10, query: std::ptr::null(), tlen: 0, target: std::ptr::null(), m: 5, mat: mat.as_ptr(), q: 4, e: 2, q2: 24, e2: 1, w: -1, zdrop: -1, end_bonus: -1, flag: 0 };
    let mut res = [KswResult::EMPTY];
    let err = ksw::extd2_batch(&Engine::cpu(), &[job], &mut res).unwrap_err();
    assert!(err.to_string().contains("ksw job 0"), "{err}");
}

