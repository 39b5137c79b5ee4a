//! The shared genome pairs (`$WARPALIGN_DATA/wga`): the first sequence of the target file against every
//! sequence of the query file, both strands, under several option sets; skipped, saying so, when the data
//! is not there.

use crate::common::tools::data_dir;
use crate::oracle::{compare, options, oracle, rev_comp, twin};
use std::path::Path;
use warpalign::search::twin::scoring::ScoreMatrix;
use warpalign::search::{HitFilter, SearchOptions, Seed};

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

/// The option sets the genome pairs run under: the seed's pattern (for the oracle) and the options.
pub fn genome_option_sets() -> Vec<(String, SearchOptions)> {
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
    ];
    sets[6].1.max_word_count = 4;
    (sets[7].1.max_word_count, sets[7].1.max_word_count_chasm) = (2, 40);
    sets[8].1.filter = Some(HitFilter { min_matches: 15, max_transversions: 1, cares_only: false });
    sets[9].1.filter = Some(HitFilter { min_matches: 12, max_transversions: 0, cares_only: true });
    sets
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
        for (pattern, o) in &sets {
            let (tw, or) = (twin(target, strands, o, &scoring), oracle(target, strands, pattern, o));
            for (k, (tw, or)) in tw.iter().zip(&or).enumerate() {
                if let Some(why) = compare(tw, or) {
                    panic!("{tf} vs {qf} record {} strand {}, seed {pattern} {o:?}: {why}", k / 2, ['+', '-'][k % 2]);
                }
                hsps += or.len();
            }
        }
    });
    eprintln!("{pairs} genome pairs x {} option sets, {hsps} HSPs compared", sets.len());
}
