//! `gen`: deterministic benchmark workloads grown from small real inputs (bench/run calls it on the GPU
//! machine, which has the real files but no room to carry large ones).
//!
//! usage:
//!   gen reads  --ref FA --profile READS --bases N -o OUT.fq [--mode ont|clr|hifi] [--identity LO-HI]
//!              [--len L] [--spliced] [--genes N] [--seed S] [--threads T] [--stats FILE]
//!   gen genome -o OUT.fa [--size N] [--repeat-frac F] [--copy-len LO-HI] [--copy-div LO-HI] [--seed S] FA...
//!   gen pair   -o OUT.fa --divergence D [--inversions N] [--translocations N] [--seed S] IN.fa
//!   gen split  --pieces N -o PREFIX IN.fa
//!
//! `reads` samples long reads from both strands of the reference. Read lengths are drawn from the real read
//! set (`--profile`, FASTA or FASTQ, gzip or plain) with a +-10% jitter, or are `--len` +-10%. Each read's
//! error rate is, in order: uniform in `--identity`; in HiFi mode uniform in 99.5-99.95%; the error rate of a
//! real read drawn with its length (mean of 10^(-Q/10) over its quality string) when the profile has
//! informative qualities; else uniform in the mode's default identity range. Errors are substitutions,
//! insertions and deletions in a per-mode mix, indels biased towards homopolymer runs. `--spliced` plants
//! `--genes` gene models on the reference (exons from the reference, GT-AG introns spliced out) and samples
//! reads from their transcripts. Output is FASTQ whose qualities follow each read's error rate.
//!
//! `genome` concatenates the records of the given FASTA files and inserts `--repeat-frac` times their size
//! as diverged copies of their own segments, so chaining sees many repeated anchors. With `--size`, input
//! sequence stops at size / (1 + repeat-frac) bases, so the output is about `--size` (at most).
//!
//! `pair` writes a diverged copy of a genome: per record (of 50 kb or more) inversions and translocations of
//! real segments, then substitutions and short indels at rate `--divergence`.
//!
//! `split` cuts a genome into N pieces of equal size, PREFIX.1.fa to PREFIX.N.fa, for single-threaded tools
//! run side by side (as LASTZ users split a target); a record cut in parts names each part NAME_OFFSET.
//!
//! Everything is a function of the inputs and `--seed`: reads are made in chunks of fixed template size,
//! each with its own seed, so the output does not depend on the thread count. Sizes take k, M, G suffixes.

use flate2::read::MultiGzDecoder;
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::exit;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

fn die(msg: impl std::fmt::Display) -> ! {
    eprintln!("gen: {msg}");
    exit(2)
}

/// xoshiro256++ seeded through splitmix64: small, fast, and the same on every machine.
struct Rng([u64; 4]);

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// One independent stream per (seed, stream), e.g. per chunk.
    fn new(seed: u64, stream: u64) -> Rng {
        let mut s = stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut x = seed ^ splitmix(&mut s);
        Rng([splitmix(&mut x), splitmix(&mut x), splitmix(&mut x), splitmix(&mut x)])
    }
    fn next(&mut self) -> u64 {
        let s = &mut self.0;
        let r = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        r
    }
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    fn uniform(&mut self, (lo, hi): (f64, f64)) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// Log-uniform in [lo, hi]: segment lengths spread over orders of magnitude.
    fn log_uniform(&mut self, (lo, hi): (f64, f64)) -> usize {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp() as usize
    }
    fn base(&mut self) -> u8 {
        b"ACGT"[self.below(4) as usize]
    }
}

struct Record {
    name: String,
    seq: Vec<u8>,
    qual: Option<Vec<u8>>,
}

fn open(path: &str) -> Box<dyn BufRead> {
    let mut f = BufReader::new(File::open(path).unwrap_or_else(|e| die(format!("{path}: {e}"))));
    let gz = f.fill_buf().map(|b| b.starts_with(&[0x1f, 0x8b])).unwrap_or(false);
    if gz {
        Box::new(BufReader::with_capacity(1 << 20, MultiGzDecoder::new(f)))
    } else {
        Box::new(f)
    }
}

/// Calls `f` on each record of a FASTA or FASTQ file (multi-line sequences allowed in both).
fn for_each_record(path: &str, mut f: impl FnMut(Record)) {
    let mut lines = open(path).split(b'\n').map(|l| {
        let mut l = l.unwrap_or_else(|e| die(format!("{path}: {e}")));
        if l.last() == Some(&b'\r') {
            l.pop();
        }
        l
    });
    let mut header = lines.next();
    while let Some(h) = header.take() {
        if h.is_empty() {
            header = lines.next();
            continue;
        }
        let name = String::from_utf8_lossy(&h[1..]).split_whitespace().next().unwrap_or("").to_string();
        let mut seq = Vec::new();
        match h[0] {
            b'>' => {
                for l in lines.by_ref() {
                    if l.first() == Some(&b'>') {
                        header = Some(l);
                        break;
                    }
                    seq.extend(l.iter().map(u8::to_ascii_uppercase));
                }
                f(Record { name, seq, qual: None });
            }
            b'@' => {
                for l in lines.by_ref() {
                    if l.first() == Some(&b'+') {
                        break;
                    }
                    seq.extend(l.iter().map(u8::to_ascii_uppercase));
                }
                let mut qual = Vec::with_capacity(seq.len());
                while qual.len() < seq.len() {
                    match lines.next() {
                        Some(l) => qual.extend(l),
                        None => die(format!("{path}: truncated FASTQ record {name}")),
                    }
                }
                header = lines.next();
                f(Record { name, seq, qual: Some(qual) });
            }
            _ => die(format!("{path}: neither FASTA nor FASTQ")),
        }
    }
}

fn read_fasta(paths: &[String]) -> Vec<Record> {
    let mut v = Vec::new();
    for p in paths {
        for_each_record(p, |r| v.push(r));
    }
    if v.iter().all(|r| r.seq.is_empty()) {
        die(format!("no sequence in {}", paths.join(" ")));
    }
    v
}

fn write_fasta(path: &str, recs: &[Record]) {
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path).unwrap_or_else(|e| die(format!("{path}: {e}"))));
    for r in recs {
        writeln!(w, ">{}", r.name).unwrap();
        for line in r.seq.chunks(80) {
            w.write_all(line).unwrap();
            w.write_all(b"\n").unwrap();
        }
    }
    w.flush().unwrap_or_else(|e| die(format!("{path}: {e}")));
}

fn revcomp(s: &[u8]) -> Vec<u8> {
    s.iter()
        .rev()
        .map(|&c| match c {
            b'A' => b'T',
            b'C' => b'G',
            b'G' => b'C',
            b'T' => b'A',
            x => x,
        })
        .collect()
}

/// Picks an index with probability proportional to its weight (cumulative sums, binary search).
struct Weighted(Vec<u64>);
impl Weighted {
    fn new(w: impl Iterator<Item = usize>) -> Weighted {
        Weighted(w.scan(0u64, |s, x| {
            *s += x as u64;
            Some(*s)
        })
        .collect())
    }
    fn pick(&self, rng: &mut Rng) -> usize {
        let x = rng.below(*self.0.last().unwrap());
        self.0.partition_point(|&c| c <= x)
    }
}

/// Substitutions (80% of events) and short indels (geometric length, mean 2) at `rate` per base.
fn diverge(s: &[u8], rate: f64, rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + s.len() / 16);
    let mut i = 0;
    while i < s.len() {
        if rng.unit() >= rate {
            out.push(s[i]);
            i += 1;
            continue;
        }
        let mut len = 1;
        while len < 30 && rng.below(2) == 0 {
            len += 1;
        }
        match rng.below(10) {
            0 => out.extend((0..len).map(|_| rng.base())),
            1 => i += len,
            _ => {
                out.push(loop {
                    let b = rng.base();
                    if b != s[i] {
                        break b;
                    }
                });
                i += 1;
            }
        }
    }
    out
}

fn parse_size(s: &str) -> u64 {
    let (num, mult) = match s.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&s[..s.len() - 1], 1e3),
        Some('M') => (&s[..s.len() - 1], 1e6),
        Some('G') => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    num.parse::<f64>().map(|x| (x * mult) as u64).unwrap_or_else(|_| die(format!("bad size {s}")))
}

fn parse_range(s: &str) -> (f64, f64) {
    let r = s.split_once('-').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
    match r {
        Some((a, b)) if a <= b => (a, b),
        _ => die(format!("bad range {s} (want LO-HI)")),
    }
}

/// `--key value` options, bare flags and positional arguments.
struct Args {
    opts: HashMap<String, String>,
    flags: Vec<String>,
    pos: Vec<String>,
}
impl Args {
    fn parse(args: impl Iterator<Item = String>, known_flags: &[&str]) -> Args {
        let mut a = Args { opts: HashMap::new(), flags: Vec::new(), pos: Vec::new() };
        let mut it = args.peekable();
        while let Some(x) = it.next() {
            if known_flags.contains(&x.as_str()) {
                a.flags.push(x);
            } else if x.starts_with('-') && x.len() > 1 {
                let v = it.next().unwrap_or_else(|| die(format!("{x} needs a value")));
                a.opts.insert(x.trim_start_matches('-').to_string(), v);
            } else {
                a.pos.push(x);
            }
        }
        a
    }
    fn get(&self, k: &str) -> Option<&str> {
        self.opts.get(k).map(String::as_str)
    }
    fn need(&self, k: &str) -> &str {
        self.get(k).unwrap_or_else(|| die(format!("--{k} is required")))
    }
    fn num<T: std::str::FromStr>(&self, k: &str, default: T) -> T {
        self.get(k).map_or(default, |v| v.parse().unwrap_or_else(|_| die(format!("bad --{k} {v}"))))
    }
    fn check(&self, allowed: &[&str]) {
        if let Some(k) = self.opts.keys().find(|k| !allowed.contains(&k.as_str())) {
            die(format!("unknown option --{k}"));
        }
    }
}

#[derive(Clone, Copy)]
struct Mode {
    /// substitution, insertion, deletion shares of errors
    mix: [f64; 3],
    /// share of indels moved onto the next homopolymer run
    homopolymer: f64,
    /// identity range when neither --identity nor informative qualities say
    identity: (f64, f64),
}

fn mode(name: &str) -> Mode {
    match name {
        "ont" => Mode { mix: [0.35, 0.25, 0.40], homopolymer: 0.6, identity: (0.87, 0.95) },
        "clr" => Mode { mix: [0.15, 0.55, 0.30], homopolymer: 0.4, identity: (0.85, 0.92) },
        "hifi" => Mode { mix: [0.30, 0.30, 0.40], homopolymer: 0.8, identity: (0.995, 0.9995) },
        _ => die(format!("unknown --mode {name} (ont, clr or hifi)")),
    }
}

/// What a read is cut from: reference records, or transcripts of planted genes.
struct Template {
    name: String,
    seq: Vec<u8>,
}

/// Gene models on the reference: 2-10 exons of 60-360 bp (last one up to 1.5 kb), introns of 80 bp-5 kb that
/// start with GT and end with AG on the forward strand. Returns the spliced transcripts.
fn plant_genes(refs: &[Record], n: usize, rng: &mut Rng) -> Vec<Template> {
    let pick = Weighted::new(refs.iter().map(|r| r.seq.len()));
    let find = |s: &[u8], from: usize, motif: &[u8]| (from..(from + 64).min(s.len().saturating_sub(1))).find(|&i| &s[i..i + 2] == motif);
    let mut genes = Vec::with_capacity(n);
    let mut tries = 0;
    while genes.len() < n {
        tries += 1;
        if tries > 100 * n + 1000 {
            die("reference too short to plant the gene models");
        }
        let r = pick.pick(rng);
        let s = &refs[r].seq;
        let start = rng.below(s.len() as u64) as usize;
        let exons = 2 + rng.below(9) as usize;
        let (mut pos, mut tx, mut ok) = (start, Vec::new(), true);
        for k in 0..exons {
            let last = k + 1 == exons;
            let len = if last { rng.log_uniform((200.0, 1500.0)) } else { 60 + rng.below(300) as usize };
            if pos + len + 64 >= s.len() {
                ok = false;
                break;
            }
            if last {
                tx.extend_from_slice(&s[pos..pos + len]);
                break;
            }
            let intron = rng.log_uniform((80.0, 5000.0));
            let donor = find(s, pos + len, b"GT");
            let acceptor = donor.and_then(|d| if d + intron + 66 < s.len() { find(s, d + intron, b"AG") } else { None });
            match (donor, acceptor) {
                (Some(d), Some(a)) => {
                    tx.extend_from_slice(&s[pos..d]);
                    pos = a + 2;
                }
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            genes.push(Template { name: format!("gene{}:{}:{}", genes.len(), refs[r].name, start), seq: tx });
        }
    }
    genes
}

/// The real read set: (length, error rate or NaN when its qualities say nothing).
fn load_profile(path: &str) -> Vec<(u32, f32)> {
    let p: Vec<f64> = (0..94).map(|q| 10f64.powf(-(q as f64) / 10.0)).collect();
    let mut v = Vec::new();
    let (mut lo, mut hi) = (u8::MAX, 0u8);
    for_each_record(path, |r| {
        if r.seq.is_empty() {
            return;
        }
        let err = match &r.qual {
            Some(q) => {
                lo = lo.min(*q.iter().min().unwrap());
                hi = hi.max(*q.iter().max().unwrap());
                (q.iter().map(|&c| p[c.saturating_sub(33).min(93) as usize]).sum::<f64>() / q.len() as f64) as f32
            }
            None => f32::NAN,
        };
        v.push((r.seq.len() as u32, err));
    });
    if v.is_empty() {
        die(format!("{path}: no reads"));
    }
    // Qualities that are all one value (e.g. PacBio subreads, all '!') carry no error profile.
    if lo >= hi {
        v.iter_mut().for_each(|x| x.1 = f32::NAN);
    }
    v
}

struct ReadGen<'a> {
    templates: &'a [Template],
    pick: Weighted,
    profile: &'a [(u32, f32)],
    fixed_len: Option<usize>,
    identity: Option<(f64, f64)>,
    mode: Mode,
}

impl ReadGen<'_> {
    /// One chunk of reads, about `budget` template bases, as FASTQ text; returns (text, reads, bases).
    fn chunk(&self, seed: u64, chunk: u64, budget: u64) -> (Vec<u8>, u64, u64) {
        let mut rng = Rng::new(seed, chunk + 1);
        let mut out = Vec::with_capacity(budget as usize * 2 + budget as usize / 500);
        let (mut reads, mut bases, mut done) = (0u64, 0u64, 0u64);
        let (mut seq, mut qual) = (Vec::new(), Vec::new());
        while done < budget {
            let t = &self.templates[self.pick.pick(&mut rng)];
            let (len0, perr) = self.profile[rng.below(self.profile.len() as u64) as usize];
            let len = (self.fixed_len.unwrap_or(len0 as usize) as f64 * rng.uniform((0.9, 1.1))) as usize;
            let len = len.clamp(1, t.seq.len());
            let start = rng.below((t.seq.len() - len + 1) as u64) as usize;
            let reverse = rng.below(2) == 1;
            let err = match self.identity {
                Some(id) => 1.0 - rng.uniform(id),
                None if !perr.is_nan() => perr as f64,
                None => 1.0 - rng.uniform(self.mode.identity),
            }
            .clamp(0.0, 0.3);
            let piece = &t.seq[start..start + len];
            let tmpl = if reverse { revcomp(piece) } else { piece.to_vec() };
            self.mutate(&tmpl, err, &mut rng, &mut seq, &mut qual);
            if seq.is_empty() {
                continue;
            }
            writeln!(out, "@r{chunk}_{reads} {}:{start}:{}", t.name, if reverse { '-' } else { '+' }).unwrap();
            out.extend_from_slice(&seq);
            out.extend_from_slice(b"\n+\n");
            out.extend_from_slice(&qual);
            out.push(b'\n');
            reads += 1;
            bases += seq.len() as u64;
            done += len as u64;
        }
        (out, reads, bases)
    }

    /// Applies errors at rate `err` and writes the read and its qualities: one random draw per template base
    /// (low 32 bits: error or not; high bits: error type, homopolymer choice, quality noise).
    fn mutate(&self, t: &[u8], err: f64, rng: &mut Rng, seq: &mut Vec<u8>, qual: &mut Vec<u8>) {
        seq.clear();
        qual.clear();
        let thr = (err * 4294967296.0) as u64;
        let [s, i, _] = self.mode.mix;
        let (sub_thr, ins_thr) = ((s * 65536.0) as u64, ((s + i) * 65536.0) as u64);
        let hp_thr = (self.mode.homopolymer * 256.0) as u64;
        let q = (-10.0 * err.max(1e-5).log10()).round().clamp(3.0, 50.0) as i64;
        let mut pending: Option<bool> = None; // an indel waiting for a homopolymer run: Some(is_insertion)
        let push = |seq: &mut Vec<u8>, qual: &mut Vec<u8>, b: u8, qv: i64| {
            seq.push(b);
            qual.push((qv.clamp(2, 60) + 33) as u8);
        };
        for k in 0..t.len() {
            let r = rng.next();
            let b = t[k];
            let noise = ((r >> 56) % 7) as i64 - 3;
            if pending.is_some() && k > 0 && t[k - 1] == b {
                if pending.take() == Some(true) {
                    push(seq, qual, b, q - 6 + noise);
                    push(seq, qual, b, q + noise);
                }
                continue;
            }
            if r & 0xffff_ffff >= thr {
                push(seq, qual, b, q + noise);
                continue;
            }
            let kind = (r >> 32) & 0xffff;
            let to_run = (r >> 48) & 0xff < hp_thr;
            if kind < sub_thr {
                let x = b"ACGT"[((r >> 60) & 3) as usize];
                push(seq, qual, if x == b { b"CATG"[((r >> 60) & 3) as usize] } else { x }, q - 6 + noise);
            } else if to_run && pending.is_none() {
                pending = Some(kind < ins_thr);
                push(seq, qual, b, q + noise);
            } else if kind < ins_thr {
                push(seq, qual, b"ACGT"[((r >> 58) & 3) as usize], q - 6 + noise);
                push(seq, qual, b, q + noise);
            }
        }
    }
}

fn cmd_reads(a: Args) {
    a.check(&["ref", "profile", "bases", "o", "mode", "identity", "len", "genes", "seed", "threads", "stats"]);
    let seed = a.num("seed", 1u64);
    let bases = parse_size(a.need("bases"));
    let out_path = a.need("o").to_string();
    let threads = a.num("threads", std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mode_name = a.get("mode").unwrap_or("ont");
    let m = mode(mode_name);
    let identity = a.get("identity").map(parse_range).or(if mode_name == "hifi" { Some(m.identity) } else { None });
    let t0 = Instant::now();
    let refs = read_fasta(&[a.need("ref").to_string()]);
    let profile = load_profile(a.need("profile"));
    let templates: Vec<Template> = if a.flags.iter().any(|f| f == "--spliced") {
        plant_genes(&refs, a.num("genes", 2000usize), &mut Rng::new(seed, 0))
    } else {
        refs.into_iter().filter(|r| !r.seq.is_empty()).map(|r| Template { name: r.name, seq: r.seq }).collect()
    };
    let g = ReadGen {
        pick: Weighted::new(templates.iter().map(|t| t.seq.len())),
        templates: &templates,
        profile: &profile,
        fixed_len: a.get("len").map(|v| parse_size(v) as usize),
        identity,
        mode: m,
    };
    const CHUNK: u64 = 4_000_000;
    let chunks = bases.div_ceil(CHUNK);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let wave = (threads * 4) as u64;
    let file = File::create(&out_path).unwrap_or_else(|e| die(format!("{out_path}: {e}")));
    let (tx, rx) = sync_channel::<Vec<(Vec<u8>, u64, u64)>>(1);
    let (reads, out_bases) = std::thread::scope(|sc| {
        // The writer drains one wave while the pool makes the next, so memory stays at about two waves.
        let writer = sc.spawn(move || {
            let mut w = BufWriter::with_capacity(8 << 20, file);
            let (mut n, mut b) = (0u64, 0u64);
            for wave in rx {
                for (text, r, nb) in wave {
                    w.write_all(&text).unwrap_or_else(|e| die(format!("{out_path}: {e}")));
                    n += r;
                    b += nb;
                }
            }
            w.flush().unwrap_or_else(|e| die(format!("{out_path}: {e}")));
            (n, b)
        });
        let mut c0 = 0;
        while c0 < chunks {
            let c1 = (c0 + wave).min(chunks);
            let texts = pool.install(|| (c0..c1).into_par_iter().map(|c| g.chunk(seed, c, CHUNK.min(bases - c * CHUNK))).collect());
            tx.send(texts).unwrap();
            c0 = c1;
        }
        drop(tx);
        writer.join().unwrap()
    });
    eprintln!(
        "gen reads: {reads} reads, {out_bases} bases (mean {:.0}) from {} templates in {:.1} s",
        out_bases as f64 / reads.max(1) as f64,
        templates.len(),
        t0.elapsed().as_secs_f64()
    );
    if let Some(p) = a.get("stats") {
        std::fs::write(p, format!("{reads}\t{out_bases}\n")).unwrap_or_else(|e| die(format!("{p}: {e}")));
    }
}

fn cmd_genome(a: Args) {
    a.check(&["o", "size", "repeat-frac", "copy-len", "copy-div", "seed"]);
    let mut rng = Rng::new(a.num("seed", 1u64), 0);
    let frac: f64 = a.num("repeat-frac", 0.25);
    let len_range = parse_range(a.get("copy-len").unwrap_or("500-20000"));
    let div_range = parse_range(a.get("copy-div").unwrap_or("0-0.05"));
    let mut recs = read_fasta(&a.pos);
    if let Some(size) = a.get("size") {
        let mut left = (parse_size(size) as f64 / (1.0 + frac)) as usize;
        for r in recs.iter_mut() {
            r.seq.truncate(left);
            left -= r.seq.len();
        }
    }
    recs.retain(|r| !r.seq.is_empty());
    let total: usize = recs.iter().map(|r| r.seq.len()).sum();
    let pick = Weighted::new(recs.iter().map(|r| r.seq.len()));
    // (record, position, copy): copies of original segments, placed in original coordinates.
    let mut ins: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    let mut added = 0usize;
    while (added as f64) < frac * total as f64 {
        let src = &recs[pick.pick(&mut rng)].seq;
        let len = rng.log_uniform(len_range).min(src.len());
        let at = rng.below((src.len() - len + 1) as u64) as usize;
        let mut copy = diverge(&src[at..at + len], rng.uniform(div_range), &mut rng);
        if rng.below(2) == 1 {
            copy = revcomp(&copy);
        }
        let dst = pick.pick(&mut rng);
        let pos = rng.below(recs[dst].seq.len() as u64 + 1) as usize;
        added += copy.len();
        ins.push((dst, pos, copy));
    }
    ins.sort_by_key(|x| (x.0, x.1));
    for (i, r) in recs.iter_mut().enumerate() {
        let mut seq = Vec::with_capacity(r.seq.len());
        let mut last = 0;
        for (_, pos, copy) in ins.iter().filter(|x| x.0 == i) {
            seq.extend_from_slice(&r.seq[last..*pos]);
            seq.extend_from_slice(copy);
            last = *pos;
        }
        seq.extend_from_slice(&r.seq[last..]);
        r.seq = seq;
    }
    let out = a.need("o");
    write_fasta(out, &recs);
    eprintln!("gen genome: {} records, {} bases ({} in {} repeat copies)", recs.len(), total + added, added, ins.len());
}

fn cmd_pair(a: Args) {
    a.check(&["o", "divergence", "inversions", "translocations", "seed"]);
    let mut rng = Rng::new(a.num("seed", 1u64), 0);
    let div: f64 = a.need("divergence").parse().unwrap_or_else(|_| die("bad --divergence"));
    if !(0.0..=0.5).contains(&div) {
        die("--divergence must be within 0-0.5 (0.05-0.20 is the intended use)");
    }
    let (inv, trans) = (a.num("inversions", 4usize), a.num("translocations", 4usize));
    if a.pos.len() != 1 {
        die("pair takes one input FASTA");
    }
    let mut recs = read_fasta(&a.pos);
    let (mut n_inv, mut n_trans) = (0, 0);
    for r in recs.iter_mut() {
        let mut s = std::mem::take(&mut r.seq);
        if s.len() >= 50_000 {
            let max = (s.len() / 10) as f64;
            for _ in 0..inv {
                let len = rng.log_uniform((5000.0, max.max(5001.0)));
                let at = rng.below((s.len() - len) as u64) as usize;
                let rc = revcomp(&s[at..at + len]);
                s[at..at + len].copy_from_slice(&rc);
                n_inv += 1;
            }
            for _ in 0..trans {
                let len = rng.log_uniform((5000.0, max.max(5001.0)));
                let at = rng.below((s.len() - len) as u64) as usize;
                let seg: Vec<u8> = s.drain(at..at + len).collect();
                let to = rng.below(s.len() as u64 + 1) as usize;
                s.splice(to..to, seg);
                n_trans += 1;
            }
        }
        r.seq = diverge(&s, div, &mut rng);
        r.name = format!("{}_div", r.name);
    }
    write_fasta(a.need("o"), &recs);
    let total: usize = recs.iter().map(|r| r.seq.len()).sum();
    eprintln!("gen pair: {} records, {total} bases, {n_inv} inversions, {n_trans} translocations, divergence {div}", recs.len());
}

fn cmd_split(a: Args) {
    a.check(&["o", "pieces"]);
    let pieces: usize = a.need("pieces").parse().unwrap_or_else(|_| die("bad --pieces"));
    if pieces == 0 || a.pos.len() != 1 {
        die("split takes --pieces N >= 1 and one input FASTA");
    }
    let recs = read_fasta(&a.pos);
    let total: usize = recs.iter().map(|r| r.seq.len()).sum();
    let per = total.div_ceil(pieces);
    let mut parts: Vec<Vec<Record>> = (0..pieces).map(|_| Vec::new()).collect();
    let (mut piece, mut room) = (0, per);
    for r in &recs {
        let mut at = 0;
        while at < r.seq.len() {
            if room == 0 {
                piece += 1;
                room = per;
            }
            let take = (r.seq.len() - at).min(room);
            let name = if take == r.seq.len() { r.name.clone() } else { format!("{}_{at}", r.name) };
            parts[piece].push(Record { name, seq: r.seq[at..at + take].to_vec(), qual: None });
            at += take;
            room -= take;
        }
    }
    let prefix = a.need("o");
    for (k, part) in parts.iter().enumerate() {
        write_fasta(&format!("{prefix}.{}.fa", k + 1), part);
    }
    eprintln!("gen split: {total} bases of {} records in {pieces} pieces of at most {per}", recs.len());
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: gen reads|genome|pair|split [options] (see the top of bench/src/bin/gen.rs)";
    match args.next().as_deref() {
        Some("reads") => cmd_reads(Args::parse(args, &["--spliced"])),
        Some("genome") => cmd_genome(Args::parse(args, &[])),
        Some("pair") => cmd_pair(Args::parse(args, &[])),
        Some("split") => cmd_split(Args::parse(args, &[])),
        Some("-h" | "--help") => println!("{usage}"),
        _ => die(usage),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_seq(n: usize, seed: u64) -> Vec<u8> {
        let mut rng = Rng::new(seed, 0);
        (0..n).map(|_| rng.base()).collect()
    }

    fn gen<'a>(templates: &'a [Template], profile: &'a [(u32, f32)], m: &str) -> ReadGen<'a> {
        ReadGen { pick: Weighted::new(templates.iter().map(|t| t.seq.len())), templates, profile, fixed_len: None, identity: None, mode: mode(m) }
    }

    #[test]
    fn chunks_depend_only_on_seed_and_index() {
        let t = [Template { name: "t".into(), seq: random_seq(200_000, 1) }];
        let p = [(5000, 0.1), (12000, f32::NAN)];
        let g = gen(&t, &p, "ont");
        assert_eq!(g.chunk(7, 3, 100_000).0, g.chunk(7, 3, 100_000).0);
        assert_ne!(g.chunk(7, 3, 100_000).0, g.chunk(7, 4, 100_000).0);
        let (text, reads, bases) = g.chunk(7, 0, 100_000);
        assert_eq!(text.iter().filter(|&&c| c == b'\n').count() as u64, 4 * reads);
        assert!(bases >= 90_000, "{bases}");
    }

    #[test]
    fn errors_follow_the_mode_mix() {
        let t = random_seq(1_000_000, 2);
        for (m, err) in [("ont", 0.1), ("clr", 0.12), ("hifi", 0.002)] {
            let g = gen(&[], &[], m);
            let (mut seq, mut qual) = (Vec::new(), Vec::new());
            g.mutate(&t, err, &mut Rng::new(3, 0), &mut seq, &mut qual);
            assert_eq!(seq.len(), qual.len());
            assert!(seq.iter().all(|c| b"ACGT".contains(c)));
            // length change = insertions - deletions, as a share of the template
            let [_, ins, del] = g.mode.mix;
            let expect = 1.0 + err * (ins - del);
            let got = seq.len() as f64 / t.len() as f64;
            assert!((got - expect).abs() < err * 0.05 + 1e-4, "{m}: length ratio {got}, expected {expect}");
            let q = qual.iter().map(|&c| (c - 33) as f64).sum::<f64>() / qual.len() as f64;
            assert!((q - (-10.0 * err.log10())).abs() < 2.0, "{m}: mean quality {q}");
        }
    }

    /// Whether `t` is pieces of `s` from `pos` on, each next piece after a GT...AG intron of 80 bp or more.
    fn spliced(s: &[u8], pos: usize, t: &[u8]) -> bool {
        let run = s[pos..].iter().zip(t).take_while(|(a, b)| a == b).count();
        if run == t.len() {
            return true;
        }
        (1..=run).rev().any(|e| {
            let d = pos + e;
            &s[d..d + 2] == b"GT"
                && (d + 80..s.len().min(d + 5200)).any(|a| &s[a - 2..a] == b"AG" && s[a..].starts_with(&t[e..(e + 8).min(t.len())]) && spliced(s, a, &t[e..]))
        })
    }

    #[test]
    fn genes_have_gt_ag_introns() {
        let refs = [Record { name: "r".into(), seq: random_seq(500_000, 4), qual: None }];
        let genes = plant_genes(&refs, 50, &mut Rng::new(5, 0));
        assert_eq!(genes.len(), 50);
        for g in &genes {
            let start: usize = g.name.rsplit(':').next().unwrap().parse().unwrap();
            assert!(spliced(&refs[0].seq, start, &g.seq), "{}", g.name);
        }
    }
}
