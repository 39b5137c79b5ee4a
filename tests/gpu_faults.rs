//! GPU faults (warpalign::gpu::fault): for each engine and each step of its GPU path (allocation, upload, launch,
//! synchronisation), the GPU batch whose step fails returns the error, the engine's batch call redoes it on the
//! CPU with the twin's results, and the batches after the failure run on the GPU again, with the twin's results.
//! The y-drop pool's GPU thread (LASTZ's path) too. Without a GPU each test prints "skipped: no GPU" and passes.
//!
//! Faults are armed for the whole process: this binary holds only these tests, and they run one at a time.

mod common;

use common::{chain_cases, ksw_cases, ydrop_cases, Rng};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use warpalign::chain::{self, ChainDpJob, ChainDpResult};
use warpalign::gpu::fault::{self, Fault};
use warpalign::gpu::GpuRuntime;
use warpalign::ksw::{self, KswExtd2Job, KswResult};
use warpalign::ydrop::ahead::{Ahead, Taken};
use warpalign::seed::batch::{seed_batch, seed_cpu, ReadSeeds, SeedOpt, SeedRead};
use warpalign::seed::gpu::{seed_batch_gpu, DeviceIndex};
use warpalign::seed::index::FlatIndex;
use warpalign::seed::twin::hits::HitOpt;
use warpalign::ydrop::{self, YdropJob, YdropResult};
use warpalign::{BackendChoice, Engine};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A GPU engine, or None after printing "skipped: no GPU".
fn gpu_engine() -> Option<Engine> {
    let engine = Engine::new(BackendChoice::Auto);
    if !engine.has_gpu() {
        println!("skipped: no GPU");
        return None;
    }
    Some(engine)
}

/// One engine's batch, three ways: through the engine's batch call (the GPU with the CPU as fallback), through
/// its GPU path alone, and on the twin; each result as a comparable value.
trait Batch {
    type Out: PartialEq + std::fmt::Debug;
    const ENGINE: fault::Engine;
    fn engine_call(&self, engine: &Engine) -> Vec<Self::Out>;
    fn gpu_call(&self, rt: &GpuRuntime) -> Result<Vec<Self::Out>, String>;
    fn twin(&self) -> Vec<Self::Out>;
}

/// For every step: with the fault at the second batch, the first GPU batch succeeds, the second returns the
/// injected error and the third (an engine call) returns the twin's results; with the fault at the first
/// batch, the engine call redoes it on the CPU with the twin's results and the next GPU batch succeeds.
fn each_step_fails_once<B: Batch>(b: &B) {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let Some(engine) = gpu_engine() else { return };
    let want = b.twin();
    let name = B::ENGINE.name();
    for step in fault::STEPS {
        let at = |batch| fault::arm(&[Fault { engine: B::ENGINE, step, batch }]);
        let what = |n: &str| format!("{name}:{}: {n}", step.name());
        let gpu = |n: &str| {
            let rt = engine.gpu().expect("the engine has a GPU");
            b.gpu_call(&rt).map_err(|e| format!("{}: {e}", what(n)))
        };

        let armed = at(2);
        assert_eq!(gpu("batch 1 (before the fault)").unwrap(), want, "{}", what("batch 1"));
        let e = gpu("batch 2 (the fault)").expect_err(&what("the fault at batch 2 did not fail it"));
        assert!(e.contains("fault injected"), "{}: another error: {e}", what("batch 2"));
        assert_eq!(b.engine_call(&engine), want, "{}", what("batch 3 (after the fault)"));
        assert_eq!((armed.fired(), armed.batches(B::ENGINE)), (1, 3), "{}: (faults fired, GPU batches)", what("at 2"));
        drop(armed);

        let armed = at(1);
        assert_eq!(b.engine_call(&engine), want, "{}", what("batch 1 (the fault), redone on the CPU"));
        assert_eq!(armed.fired(), 1, "{}: the fault did not fire", what("at 1"));
        assert_eq!(gpu("batch 2 (after the fault)").unwrap(), want, "{}", what("batch 2"));
        assert_eq!((armed.fired(), armed.batches(B::ENGINE)), (1, 2), "{}: (faults fired, GPU batches)", what("at 1"));
    }
}

struct KswBatch {
    cases: Vec<ksw_cases::Case>,
}

type KswOut = (u32, i32, [i32; 8], Vec<u32>);

fn ksw_out(r: &mut KswResult) -> KswOut {
    let o = (r.max, r.zdropped, [r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end], r.cigar().to_vec());
    r.release();
    o
}

impl KswBatch {
    fn jobs(&self) -> Vec<KswExtd2Job> {
        self.cases.iter().map(ksw_cases::Case::job).collect()
    }
}

impl Batch for KswBatch {
    type Out = KswOut;
    const ENGINE: fault::Engine = fault::Engine::Ksw;
    fn engine_call(&self, engine: &Engine) -> Vec<KswOut> {
        let jobs = self.jobs();
        let mut res: Vec<KswResult> = jobs.iter().map(|_| KswResult::EMPTY).collect();
        ksw::extd2_batch(engine, &jobs, &mut res).expect("extd2_batch");
        res.iter_mut().map(ksw_out).collect()
    }
    fn gpu_call(&self, rt: &GpuRuntime) -> Result<Vec<KswOut>, String> {
        let jobs = self.jobs();
        let mut res: Vec<KswResult> = jobs.iter().map(|_| KswResult::EMPTY).collect();
        ksw::gpu::extd2_batch_gpu(rt, &jobs, &mut res)?;
        Ok(res.iter_mut().map(ksw_out).collect())
    }
    fn twin(&self) -> Vec<KswOut> {
        self.jobs()
            .iter()
            .map(|j| {
                let mut r = KswResult::EMPTY;
                ksw::twin::extd2(j, &mut r).expect("twin");
                ksw_out(&mut r)
            })
            .collect()
    }
}

#[test]
fn ksw_batch_recovers_from_each_step() {
    let mut rng = Rng::new(25);
    each_step_fails_once(&KswBatch { cases: (0..600).map(|_| ksw_cases::random_case(&mut rng)).collect() });
}

struct ChainBatch {
    cases: Vec<(chain_cases::Cfg, Vec<chain::Anchor>)>,
}

type ChainOut = (Vec<u64>, Vec<chain::Anchor>);

fn chain_out(r: &mut ChainDpResult) -> ChainOut {
    let o = (r.chains().to_vec(), r.anchors().to_vec());
    r.release();
    o
}

impl ChainBatch {
    fn jobs(&self) -> Vec<ChainDpJob> {
        self.cases.iter().map(|(cfg, a)| cfg.job(a)).collect()
    }
}

impl Batch for ChainBatch {
    type Out = ChainOut;
    const ENGINE: fault::Engine = fault::Engine::Chain;
    fn engine_call(&self, engine: &Engine) -> Vec<ChainOut> {
        let jobs = self.jobs();
        let mut res: Vec<ChainDpResult> = jobs.iter().map(|_| ChainDpResult::EMPTY).collect();
        chain::dp_batch(engine, &jobs, &mut res).expect("dp_batch");
        res.iter_mut().map(chain_out).collect()
    }
    fn gpu_call(&self, rt: &GpuRuntime) -> Result<Vec<ChainOut>, String> {
        let jobs = self.jobs();
        let mut res: Vec<ChainDpResult> = jobs.iter().map(|_| ChainDpResult::EMPTY).collect();
        chain::gpu::dp_batch_gpu(rt, &jobs, &mut res)?;
        Ok(res.iter_mut().map(chain_out).collect())
    }
    fn twin(&self) -> Vec<ChainOut> {
        self.jobs()
            .iter()
            .map(|j| {
                let mut r = ChainDpResult::EMPTY;
                chain::twin::lchain_dp(j, &mut r).expect("twin");
                chain_out(&mut r)
            })
            .collect()
    }
}

#[test]
fn chain_batch_recovers_from_each_step() {
    let cases = (0..400).map(|i| chain_cases::random_case(25, i)).map(|(_, cfg, a)| (cfg, a)).collect();
    each_step_fails_once(&ChainBatch { cases });
}

struct YdropBatch {
    cases: Vec<ydrop_cases::Case>,
}

impl YdropBatch {
    fn jobs(&self) -> Vec<YdropJob> {
        self.cases.iter().map(ydrop_cases::Case::job).collect()
    }
}

impl Batch for YdropBatch {
    type Out = ydrop_cases::Outcome;
    const ENGINE: fault::Engine = fault::Engine::Ydrop;
    fn engine_call(&self, engine: &Engine) -> Vec<Self::Out> {
        let jobs = self.jobs();
        let mut res: Vec<YdropResult> = jobs.iter().map(|_| YdropResult::EMPTY).collect();
        ydrop::one_sided_batch(engine, &jobs, &mut res).expect("one_sided_batch");
        res.iter_mut().map(ydrop_cases::checked_outcome).collect()
    }
    fn gpu_call(&self, rt: &GpuRuntime) -> Result<Vec<Self::Out>, String> {
        let jobs = self.jobs();
        let mut res: Vec<YdropResult> = jobs.iter().map(|_| YdropResult::EMPTY).collect();
        ydrop::gpu::one_sided_batch_gpu(rt, &jobs, &mut res)?;
        Ok(res.iter_mut().map(ydrop_cases::checked_outcome).collect())
    }
    fn twin(&self) -> Vec<Self::Out> {
        self.jobs().iter().map(ydrop_cases::twin).collect()
    }
}

fn ydrop_cases(seed: u64, n: u64, max_len: usize) -> Vec<ydrop_cases::Case> {
    let pool = ydrop_cases::matrix_pool(seed, 4);
    (0..n).map(|i| ydrop_cases::random_case(&mut Rng::for_case(seed, i), &pool, max_len)).collect()
}

#[test]
fn ydrop_batch_recovers_from_each_step() {
    each_step_fails_once(&YdropBatch { cases: ydrop_cases(25, 1000, 2000) });
}

/// Reads cut from random references (mutated, either segment count) and an index of the references made from the
/// twin's minimizers (its layout, not upstream's index: GPU and twin read the same one).
struct SeedBatch {
    index: FlatIndex,
    reads: Vec<Vec<Vec<u8>>>,
    opt: SeedOpt,
}

impl SeedBatch {
    fn new(seed: u64) -> SeedBatch {
        let mut rng = Rng::new(seed);
        let (w, k) = (10, 15);
        let refs: Vec<Vec<u8>> = (0..3).map(|_| (0..20_000).map(|_| b"ACGT"[rng.below(4) as usize]).collect()).collect();
        let b = 10;
        let mut all: Vec<(u64, u64, u64)> = vec![];
        for (rid, r) in refs.iter().enumerate() {
            let mut mv = vec![];
            warpalign::seed::twin::sketch(r, w, k, rid as u32, false, &mut mv);
            all.extend(mv.iter().map(|m| (m.x >> 8 & ((1 << b) - 1), m.x >> 8 >> b, m.y)));
        }
        all.sort_unstable();
        let mut index = FlatIndex {
            b: b as u32,
            seq_len: refs.iter().map(|r| r.len() as u32).collect(),
            seq_name: (0..refs.len()).map(|i| Some(format!("r{i}").into_bytes())).collect(),
            bucket_start: vec![0],
            keys: vec![],
            pos_start: vec![0],
            pos: vec![],
        };
        let mut at = 0;
        for bucket in 0..1u64 << b {
            while at < all.len() && all[at].0 == bucket {
                let key = all[at].1;
                index.keys.push(key);
                while at < all.len() && (all[at].0, all[at].1) == (bucket, key) {
                    index.pos.push(all[at].2);
                    at += 1;
                }
                index.pos_start.push(index.pos.len() as u64);
            }
            index.bucket_start.push(index.keys.len() as u64);
        }
        let reads = (0..200)
            .map(|_| {
                (0..rng.range(1, 2))
                    .map(|_| {
                        let r = &refs[rng.below(3) as usize];
                        let len = rng.range(50, 5000) as usize;
                        let st = rng.below((r.len() - len) as u64) as usize;
                        r[st..st + len].iter().map(|&c| if rng.chance(0.05) { b"ACGT"[rng.below(4) as usize] } else { c }).collect()
                    })
                    .collect()
            })
            .collect();
        let opt = SeedOpt {
            w,
            k,
            is_hpc: false,
            sdust_thres: 0,
            q_occ_frac: 0.01,
            mid_occ: 3,
            max_occ: 3,
            hit: HitOpt { flag: 0, max_max_occ: 4095, occ_dist: 500 },
            keep_mv: true,
        };
        SeedBatch { index, reads, opt }
    }

    fn run<T>(&self, f: impl FnOnce(&[SeedRead]) -> T) -> T {
        let segs: Vec<Vec<&[u8]>> = self.reads.iter().map(|r| r.iter().map(|s| &s[..]).collect()).collect();
        let reads: Vec<SeedRead> = segs.iter().map(|s| SeedRead { segs: s, qname: None }).collect();
        f(&reads)
    }
}

impl Batch for SeedBatch {
    type Out = ReadSeeds;
    const ENGINE: fault::Engine = fault::Engine::Seed;
    fn engine_call(&self, engine: &Engine) -> Vec<ReadSeeds> {
        let dev = DeviceIndex::upload(&engine.gpu().expect("a GPU"), &self.index).expect("upload");
        self.run(|reads| seed_batch(engine, &self.index, Some(&dev), &self.opt, reads)).expect("seed_batch")
    }
    fn gpu_call(&self, rt: &GpuRuntime) -> Result<Vec<ReadSeeds>, String> {
        let dev = DeviceIndex::upload(rt, &self.index)?;
        self.run(|reads| seed_batch_gpu(rt, &dev, &self.opt, reads))
    }
    fn twin(&self) -> Vec<ReadSeeds> {
        self.run(|reads| reads.iter().map(|r| seed_cpu(&self.index, &self.opt, r)).collect())
    }
}

#[test]
fn seed_batch_recovers_from_each_step() {
    each_step_fails_once(&SeedBatch::new(27));
}

/// LASTZ's path: the pool's GPU thread, its first batch failing at each step in turn, goes on with GPU batches,
/// and every job it or a CPU worker ran comes back as the twin's result.
#[test]
fn ydrop_pool_gpu_thread_goes_on_after_a_failed_batch() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let Some(_engine) = gpu_engine() else { return };
    let cases = ydrop_cases(26, 8000, 600);
    let jobs: Vec<YdropJob> = cases.iter().map(ydrop_cases::Case::job).collect();
    for step in fault::STEPS {
        let armed = fault::arm(&[Fault { engine: fault::Engine::Ydrop, step, batch: 1 }]);
        let ahead = Ahead::with_gpu(1, true).expect("pool");
        // the failed batch is redone on the twin by the GPU thread while the CPU worker may drain the queue:
        // jobs keep coming (job i % n as ticket i) until a second GPU batch has begun
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut tickets = Vec::new();
        let mut submit = |n: usize| {
            for _ in 0..n {
                let i = tickets.len();
                tickets.push(ahead.submit(&jobs[i % jobs.len()], i as u64).expect("submit"));
            }
        };
        submit(jobs.len());
        while armed.batches(fault::Engine::Ydrop) < 2 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            if armed.fired() > 0 {
                submit(1000);
            }
        }
        let gpu_batches = armed.batches(fault::Engine::Ydrop);
        let (mut done, submitted) = (0, tickets.len());
        for (i, t) in tickets.into_iter().enumerate() {
            if let Taken::Done(mut r, _) = ahead.take(t).expect("take") {
                let job = &jobs[i % jobs.len()];
                assert_eq!(ydrop_cases::checked_outcome(&mut r), ydrop_cases::twin(job), "{}: ticket {i}", step.name());
                done += 1;
            }
        }
        drop(ahead);
        assert!(gpu_batches >= 2, "{}: {gpu_batches} GPU batches: the thread stopped after the failed one", step.name());
        assert_eq!(armed.fired(), 1, "{}: the fault did not fire", step.name());
        eprintln!("{}: {gpu_batches} GPU batches, {done} of {submitted} jobs done", step.name());
    }
}

/// The search engine: each query strand is a GPU batch; for every step, the strand whose step fails returns
/// the error through `search_gpu` and is redone on the CPU through `search_strand`, with the twin's HSPs, and
/// the next strand runs on the GPU again.
#[test]
fn search_strand_recovers_from_each_step() {
    use warpalign::search::twin::pos_table::PosTable;
    use warpalign::search::twin::scoring::ScoreMatrix;
    use warpalign::search::{self, SearchConfig, SearchEngine, SearchOptions, SeedIndex};
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let Some(engine) = gpu_engine() else { return };
    let mut rng = Rng::new(27);
    let acgt = |codes: &[u8]| -> Vec<u8> { codes.iter().map(|&c| b"ACGT"[c as usize]).collect() };
    let codes = rng.nt4_seq(20_000, 0.0);
    let mut query = rng.nt4_seq(300, 0.0);
    query.extend(rng.mutate(&codes[5000..9000], 0.05));
    let (t, q) = (acgt(&codes), acgt(&query));
    let (o, scoring) = (SearchOptions::lastz_default(), ScoreMatrix::masked_hoxd70());
    let pt = PosTable::for_options(&t, &o);
    let want = search::search(&t, &pt, &q, &o, &scoring);
    assert!(!want.is_empty());
    let e = SearchEngine::new(&engine, &t, SeedIndex::for_options(&t, &o), &o, &scoring, SearchConfig { block_positions: 1000, ..SearchConfig::with_threads(2) });
    let gpu = |n: &str| e.search_gpu(&q).expect("the table is on the GPU").map_err(|err| format!("{n}: {err}"));
    for step in fault::STEPS {
        let at = |batch| fault::arm(&[Fault { engine: fault::Engine::Search, step, batch }]);
        let what = |n: &str| format!("search:{}: {n}", step.name());

        let armed = at(2);
        assert_eq!(gpu("batch 1").unwrap(), want, "{}", what("batch 1 (before the fault)"));
        let err = gpu("batch 2").expect_err(&what("the fault at batch 2 did not fail it"));
        assert!(err.contains("fault injected"), "{}: another error: {err}", what("batch 2"));
        assert_eq!(e.search_strand(&q), want, "{}", what("batch 3 (after the fault)"));
        assert_eq!((armed.fired(), armed.batches(fault::Engine::Search)), (1, 3), "{}: (faults fired, GPU batches)", what("at 2"));
        drop(armed);

        let armed = at(1);
        assert_eq!(e.search_strand(&q), want, "{}", what("batch 1 (the fault), redone on the CPU"));
        assert_eq!(armed.fired(), 1, "{}: the fault did not fire", what("at 1"));
        assert_eq!(gpu("batch 2").unwrap(), want, "{}", what("batch 2 (after the fault)"));
        assert_eq!((armed.fired(), armed.batches(fault::Engine::Search)), (1, 2), "{}: (faults fired, GPU batches)", what("at 1"));
    }
}
