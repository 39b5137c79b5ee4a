//! The shared genome pairs (`$WARPALIGN_DATA/wga`): the first sequence of the target file against every
//! sequence of the query file, both strands, under several option sets; skipped, saying so, when the data
//! is not there.

use crate::common::tools::data_dir;
use crate::oracle::{compare, options, oracle, rev_comp, twin};
use std::path::Path;
use warpalign::search::twin::scoring::ScoreMatrix;
use warpalign::search::{Extension, HitFilter, SearchOptions, Seed};

/// The records of a FASTA file (gzip'ed or not): header-less sequences, bytes as in the file.
fn read_fasta(path: &Path) -> Vec<Vec<u8>> {
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let out = std::process::Command::new("gzip").arg("-dc").arg(path).output().expect("run gzip");
        assert!(out.status.success(), "gzip -dc {}", path.display());
        out.stdout
    } else {
        std::fs::read(path).unwrap()
    };
    let mut recs: Vec<Vec<u8>> = Vec::new();
    for line in text.split(|&c| c == b'\n') {
        if line.first() == Some(&b'>') {
            recs.push(Vec::new());
        } else if let Some(r) = recs.last_mut() {
            r.extend(line.iter().filter(|c| !c.is_ascii_whitespace()));
        }
    }
    recs
}

const PAIRS: &[(&str, &str)] = &[
    ("MT-human.fa", "MT-orang.fa"),
    ("dwv_NC_004830.fasta.gz", "vdv1_NC_006494.fasta.gz"),
    ("D_melanogaster_2Rslice.fasta.gz", "D_pseudoobscura_contigs.fasta.gz"),
    ("B_anthracis_Mslice.fasta.gz", "B_anthracis_contigs.fasta.gz"),
    ("hpylori_G27.fasta.gz", "hpylori_SJM180.fasta.gz"),
];

/// How a genome set presents the target: as read, soft-masked (lowercase, which no seed word covers, as
/// LASTZ reads a soft-masked file without `[unmask]`), or a subrange (`target[from..to]`, as LASTZ's
/// `[from..to]` cuts it).
#[derive(Clone, Copy, Debug)]
pub enum TargetForm {
    AsRead,
    /// Lowercase in every third block of this many bases.
    SoftMasked(usize),
    /// From and to, in thousandths of the target's length.
    Subrange(usize, usize),
}

impl TargetForm {
    pub fn apply<'a>(self, target: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        match self {
            TargetForm::AsRead => target.into(),
            TargetForm::SoftMasked(block) => {
                target.iter().enumerate().map(|(i, &c)| if (i / block) % 3 == 0 { c.to_ascii_lowercase() } else { c }).collect::<Vec<u8>>().into()
            }
            TargetForm::Subrange(from, to) => target[target.len() * from / 1000..target.len() * to / 1000].into(),
        }
    }
}

/// The option sets the genome pairs run under: the seed's pattern (for the oracle), the options, and the
/// target's form.
pub fn genome_option_sets() -> Vec<(String, SearchOptions, TargetForm)> {
    let mut sets = vec![
        options(Seed::PATTERN_12OF19, 1, 1, 910, 3000, true), // LASTZ's defaults
        options(Seed::PATTERN_12OF19, 0, 1, 910, 3000, true), // --notransition
        options(Seed::PATTERN_12OF19, 2, 1, 910, 2000, false), // --transition=2 --hspthresh=2000 --noentropy
        options(Seed::PATTERN_12OF19, 1, 20, 910, 3000, true), // --step=20
        options(Seed::PATTERN_14OF22, 1, 1, 400, 3000, true), // --seed=14of22 --xdrop=400
        options("11111111111", 0, 1, 910, 1500, true),        // --seed=match11 --hspthresh=1500
        options(Seed::PATTERN_12OF19, 1, 1, 910, 3000, true), // --maxwordcount=4 (set below)
        options(Seed::PATTERN_12OF19, 1, 3, 910, 3000, true), // --step=3 --maxwordcount=2,40 (set below)
        options(Seed::PATTERN_12OF19, 2, 1, 910, 3000, true), // --transition=2 --filter=1,15 (set below)
        options(Seed::PATTERN_12OF19, 1, 1, 910, 3000, true), // --filter=cares:0,12 (set below)
        options("111111111111", 1, 1, 910, 2500, true),       // --seed=match12 --hspthresh=2500
        options("1101100111011011", 0, 1, 910, 3000, true),   // --seed=1101100111011011 --notransition
        options(Seed::PATTERN_14OF22, 2, 7, 910, 3000, true), // --seed=14of22 --transition=2 --step=7
        options(Seed::PATTERN_12OF19, 1, 1, 100, 1000, true), // --xdrop=100 --hspthresh=1000
        options(Seed::PATTERN_12OF19, 1, 1, 2000, 6000, false), // --xdrop=2000 --hspthresh=6000 --noentropy
        options(Seed::PATTERN_12OF19, 1, 1, 910, 3000, true), // --maxwordcount=1 (set below)
        options(Seed::PATTERN_12OF19, 1, 2, 910, 3000, true), // --step=2 --maxwordcount=10,100 (set below)
        options(Seed::PATTERN_12OF19, 1, 1, 910, 3000, true), // --filter=2,14 (set below)
        options(Seed::PATTERN_12OF19, 1, 1, 910, 3000, true), // a soft-masked target (set below)
        options(Seed::PATTERN_12OF19, 1, 1, 910, 3000, true), // target[100..600] of 1,000 (set below)
        options(Seed::PATTERN_12OF19, 1, 1, 910, 30, true),   // --exact=30 (set below)
        options(Seed::PATTERN_12OF19, 1, 1, 910, 40, true),   // --mismatch=2,40 (set below)
    ];
    sets[6].1.max_word_count = 4;
    (sets[7].1.max_word_count, sets[7].1.max_word_count_chasm) = (2, 40);
    sets[8].1.filter = Some(HitFilter { min_matches: 15, max_transversions: 1, cares_only: false });
    sets[9].1.filter = Some(HitFilter { min_matches: 12, max_transversions: 0, cares_only: true });
    sets[15].1.max_word_count = 1;
    (sets[16].1.max_word_count, sets[16].1.max_word_count_chasm) = (10, 100);
    sets[17].1.filter = Some(HitFilter { min_matches: 14, max_transversions: 2, cares_only: false });
    sets[20].1.extension = Extension::Exact;
    sets[21].1.extension = Extension::Mismatch(2);
    let forms = |i: usize| match i {
        18 => TargetForm::SoftMasked(5000),
        19 => TargetForm::Subrange(100, 600),
        _ => TargetForm::AsRead,
    };
    sets.into_iter().enumerate().map(|(i, (p, o))| (p, o, forms(i))).collect()
}

/// `f(target file, query file, target, strands)` for each genome pair found, the strands in LASTZ's order
/// (each query record, plus strand then minus); says which pairs are missing. Returns the pairs found.
pub fn for_each_genome_pair(mut f: impl FnMut(&str, &str, &[u8], &[&[u8]])) -> usize {
    let wga = data_dir().join("wga");
    let mut pairs = 0;
    for (tf, qf) in PAIRS {
        let (tp, qp) = (wga.join(tf), wga.join(qf));
        if !tp.exists() || !qp.exists() {
            eprintln!("skipping {tf} vs {qf}: not under {}", wga.display());
            continue;
        }
        let target = read_fasta(&tp).swap_remove(0);
        let queries = read_fasta(&qp);
        let rcs: Vec<Vec<u8>> = queries.iter().map(|q| rev_comp(q)).collect();
        let strands: Vec<&[u8]> = queries.iter().zip(&rcs).flat_map(|(q, r)| [&q[..], &r[..]]).collect();
        f(tf, qf, &target, &strands);
        pairs += 1;
    }
    pairs
}

#[test]
fn genome_pairs_twin_vs_oracle() {
    let scoring = ScoreMatrix::masked_hoxd70();
    let sets = genome_option_sets();
    let mut hsps = 0;
    let pairs = for_each_genome_pair(|tf, qf, target, strands| {
        // the twins in parallel; the oracle (LASTZ's C, with its globals) one set after another
        use rayon::prelude::*;
        let twins: Vec<_> = sets.par_iter().map(|(_, o, form)| twin(&form.apply(target), strands, o, &scoring)).collect();
        for ((pattern, o, form), tw) in sets.iter().zip(&twins) {
            let or = oracle(&form.apply(target), strands, pattern, o);
            for (k, (tw, or)) in tw.iter().zip(&or).enumerate() {
                if let Some(why) = compare(tw, or) {
                    panic!("{tf} vs {qf} record {} strand {}, seed {pattern} {o:?} {form:?}: {why}", k / 2, ['+', '-'][k % 2]);
                }
                hsps += or.len();
            }
        }
    });
    eprintln!("{pairs} genome pairs x {} option sets, {hsps} HSPs compared", sets.len());
}
