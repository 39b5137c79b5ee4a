//! search engine: LASTZ 1.04.52's search for HSPs (pos_table.c, seed_search.c, diag_hash.c, seeds.c): the
//! target's position table of seed words, the seed hits of one query strand against it, and their
//! ungapped x-drop extension into HSPs, in the order LASTZ collects them.
//!
//! For now this is the CPU twin of the path LASTZ takes by default: a seed of up to 28 bits indexed, the rest
//! resolved at each hit (`--seed=12of19`, `14of22`, `match<N>`, `half<N>`, a pattern of 1s, Ts and 0s;
//! `--word`), `--transition`
//! none/one/two, `--step`, `--maxwordcount=<limit>[,<chasm>]`, the hit processor `process_for_simple_hit`
//! with `--filter` and x-drop extension (`--xdrop`; the twin also `--exact`, `--mismatch`, `--nogfextend` and
//! `process_for_plain_hit`), the entropy adjustment (`--[no]entropy`) and a fixed `--hspthresh` (an adaptive
//! one, `top<n>`, is threshold 0 without entropy here: LASTZ's glue adjusts each HSP against its anchors);
//! `--self` (a target of one sequence) with `--band`; dynamic masking between strands (`--masking`,
//! [`SearchEngine::mask`]); each HSP with its seed hit's query end, for LASTZ's search limit. It is checked
//! HSP by HSP against upstream's
//! own functions (`ffi`, tests/search).
//!
//! # Sequences
//! Bytes as LASTZ holds them after loading (case kept: lowercase is masked, so it starts no seed and
//! scores as LASTZ's `masked_score_set` says). The query is one strand as LASTZ searches it (for the minus
//! strand, the reverse complement).

pub mod dispatch;
pub mod engine;
pub mod gpu;
pub mod twin;

pub use engine::{SearchConfig, SearchEngine, SeedIndex};
pub use twin::search;
pub use twin::seed::{Seed, SeedError};

/// One HSP as LASTZ's `collect_hsps` adds it to its anchors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hsp {
    /// Start in the target (0-based).
    pub pos1: u32,
    /// Start in the query strand (0-based).
    pub pos2: u32,
    pub length: u32,
    /// The ungapped score, entropy-adjusted when the adjustment is on.
    pub score: i32,
    /// Where in the query strand the seed hit that made it ends (1-based, as `seed_hit_search`'s `pos2`):
    /// LASTZ checks its search limit (`--queryhsplimit`) as each query position's hits are done.
    pub hit_pos2: u32,
}

/// The search's options, as LASTZ's option parser leaves them.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    pub seed: Seed,
    /// `--transition`: 0 (`--notransition`), 1 (default), 2 (`--transition=2`).
    pub with_trans: u32,
    /// `--step` (default 1).
    pub step: u32,
    /// `--xdrop` (default for HOXD70: 10 times A-to-A, 910).
    pub x_drop: i32,
    /// `--hspthresh` (default 3000).
    pub hsp_threshold: i32,
    /// `--entropy` (default) or `--noentropy`.
    pub entropic: bool,
    /// `--maxwordcount=<limit>`: target words found more often are dropped from the table (0: no limit).
    pub max_word_count: u32,
    /// `--maxwordcount=<limit>,<chasm>`: but no more than this many bases in a row are dropped (0: none).
    pub max_word_count_chasm: u32,
    /// `--filter`: seed hits are counted before extension.
    pub filter: Option<HitFilter>,
    /// How a seed hit is extended without gaps (`--xdrop`, `--exact`, `--mismatch`, `--nogfextend`).
    pub extension: Extension,
    /// `--self`: the query strand searched is the target itself or its reverse complement.
    pub self_compare: SelfCompare,
    /// `--band=<width>` (0: none): with `--self` on the target's own strand, hits more than this many
    /// diagonals above the main one are skipped.
    pub band_width: u32,
    /// `--self` on a partitioned (`[multiple]`) target: each partition's `(sepBefore, sepAfter)`, the positions
    /// of the separating NULs around it, in order. The reverse-complement strand (each partition reversed in
    /// place, as `rev_comp_sequence` does) then compares a hit's partitions first (`seed_hit_below_diagonal`'s
    /// partitioned case). Empty: a target of one sequence.
    pub partitions: Vec<(u32, u32)>,
    /// `--recoverhits` (`process_for_recoverable_hit`): a seed hit on a diagonal that collides in the hash with
    /// the one whose extension the hash holds is extended anyway, and its left extension is never blocked. No
    /// effect on [`Extension::Plain`] (LASTZ picks `process_for_plain_hit` first).
    pub recover_hits: bool,
}

/// `--self` (`selfCompare`, `sameStrand`): which strand of the target the query strand is. Seed hits on or
/// below the main diagonal are skipped before they reach the hit processor (`seed_hit_below_diagonal`, for a
/// target of one sequence), so each alignment is found once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfCompare {
    /// Not `--self`.
    No,
    /// The query strand is the target as it is.
    SameStrand,
    /// The query strand is the target's reverse complement.
    OppositeStrand,
}

/// `gfExtend`, the gap-free extension of `process_for_simple_hit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extension {
    /// x-drop extension scored by the matrix (`--xdrop`, the default), then the entropy adjustment and
    /// `--hspthresh`.
    XDrop,
    /// `--exact=<length>`: the hit, if it is an exact match, extended both ways while the bases match; kept
    /// when at least `hsp_threshold` bases long, with its length as its score.
    Exact,
    /// `--mismatch=<M>,<length>` (M from 1 to 50): a hit with at most M mismatches, extended both ways to the
    /// longest interval around it with M mismatches; kept when at least `hsp_threshold` bases long, with its
    /// length as its score.
    Mismatch(u8),
    /// `--nogfextend` with gapped extension: the seed hit itself, score 0.
    None,
    /// `--nogfextend --nogapped` (or `--justhits`): LASTZ's other hit processor, `process_for_plain_hit`. Every
    /// seed hit that passes `--filter` is an HSP of score 0; the diagonal hash is not used.
    Plain,
}

/// `--filter=[<transversions>,]<matches>` and `--filter=cares:[<transversions>,]<matches>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HitFilter {
    /// A hit needs at least this many matches.
    pub min_matches: i32,
    /// And at most this many transversions (-1: any); a non-ACGT byte counts as one.
    pub max_transversions: i32,
    /// `cares:`: count only the seed's 1 positions.
    pub cares_only: bool,
}

impl SearchOptions {
    /// LASTZ's defaults: 12of19, one transition, step 1, HOXD70's x-drop 910, threshold 3000, entropy.
    pub fn lastz_default() -> Self {
        SearchOptions {
            seed: Seed::parse(Seed::PATTERN_12OF19).expect("12of19 is a strict seed"),
            with_trans: 1,
            step: 1,
            x_drop: 910,
            hsp_threshold: 3000,
            entropic: true,
            max_word_count: 0,
            max_word_count_chasm: 0,
            filter: None,
            extension: Extension::XDrop,
            self_compare: SelfCompare::No,
            band_width: 0,
            partitions: Vec::new(),
            recover_hits: false,
        }
    }
}
