/* The oracle's entry into LASTZ 1.04.52's HSP search (see lastz_search_shim.c): the target's position
 * table (build_seed_position_table) and one seed_hit_search over one query strand, with the hit processor
 * LASTZ picks by default (process_for_simple_hit, by default with x-drop extension). What bindgen binds: only
 * this header. */
#ifndef WARPALIGN_LASTZ_SEARCH_SHIM_H
#define WARPALIGN_LASTZ_SEARCH_SHIM_H
#include <stdint.h>

/* One HSP as LASTZ's collect_hsps adds it to the anchors: start in target and query (0-based), length,
 * score (entropy-adjusted when --entropy). */
typedef struct warpalign_oracle_lastz_hsp {
	uint32_t  pos1, pos2, length;
	int32_t   score;
	/* with an adaptive threshold (hsp_threshold_top): the anchors' len and lowScore when the HSP was
	 * reported, which the entropy adjustment read (0 otherwise) */
	uint32_t  anchors_before;
	int32_t   low_score_before;
	/* where the seed hit that made it ends in the query (seed_hit_search's pos2 of that hit) */
	uint32_t  hit_pos2;
} warpalign_oracle_lastz_hsp;

/* The options of the search, as LASTZ's parse_options leaves them. */
typedef struct warpalign_oracle_lastz_search_options {
	const char* seed;          /* the seed pattern (--seed=12of19 is "1110100110010101111", match12 is
	                            * "111111111111"); parsed by parse_seeds_string with max_index_bits */
	uint32_t    max_index_bits; /* --word=<bits> (0: LASTZ's default, 28) */
	int32_t     with_trans;    /* --transition: 0 (--notransition), 1, 2 (=2) */
	uint32_t    step;          /* --step */
	int32_t     x_drop;        /* --xdrop */
	int32_t     hsp_threshold; /* --hspthresh (a fixed score) */
	uint32_t    hsp_threshold_top; /* --hspthresh=top<n> (nonzero: an adaptive threshold, hsp_threshold unread):
	                                * the HSPs go to one segment table limited to n bases of coverage, kept
	                                * across the queries, as lastz.c's collect_hsps adds them to its anchors */
	int32_t     entropic;      /* --entropy (1) / --noentropy (0) */
	uint32_t    word_count_limit;  /* --maxwordcount=<limit>[,<chasm>]: limit_position_table's limit (0: the
	                                * table is not limited) and chasm */
	uint32_t    word_count_chasm;
	int32_t     min_matches;       /* --filter=[cares:][<transversions>,]<matches>: minMatches (-1: no
	                                * filter), maxTransversions (-1: any), filterCaresOnly */
	int32_t     max_transversions;
	int32_t     filter_cares_only;
	int32_t     gf_extend;         /* gfExtend: -1 x-drop (--xdrop), 0 exact match (--exact=<hsp_threshold>), 1..50
	                                * mismatches (--mismatch=<M>,<hsp_threshold>), -2 none (--nogfextend with gapped
	                                * extension: process_for_simple_hit's branch) */
	int32_t     plain_hits;        /* nonzero: process_for_plain_hit (--nogfextend --nogapped) instead of
	                                * process_for_simple_hit */
	int32_t     recover_hits;      /* nonzero (and not plain_hits): process_for_recoverable_hit (--recoverhits) */
	int32_t     self_compare;      /* --self: 0 no, 1 every query is the target itself (sameStrand), 2 every
	                                * query is the target's reverse complement (unpartitioned) */
	uint32_t    band_width;        /* --band (0: none) */
	uint32_t    search_limit;      /* seed_hit_search's searchLimit for each query (0: none), its warning off */
	const uint32_t* partitions;    /* a [multiple] target: n_partitions (sepBefore, sepAfter) pairs, the
	                                * positions of the NULs around each sequence (the first at 0, the last
	                                * at tlen); every query gets the same partitions (--self: the target, or
	                                * its reverse complement taken partition by partition). NULL/0: none */
	uint32_t    n_partitions;
} warpalign_oracle_lastz_search_options;

/* Builds the position table of target[0..tlen) once and searches each query strand against it in turn,
 * as LASTZ searches the strands of its queries (selfCompare and bandWidth as the options say, no search
 * limit): queries[k] has
 * qlens[k] bytes (> 0), and like the target a NUL after them (LASTZ's sequences end in one, which the exact
 * match extension reads). Sequences are bytes as LASTZ holds them (case kept); scoring is HOXD70 as LASTZ
 * builds it, through masked_score_set (lowercase and N penalized), as the hit processor gets it. Returns
 * the number of HSPs; *hsps (malloc'ed, free with warpalign_oracle_lastz_free; NULL when none) holds them
 * query by query, each query's in the order LASTZ collects them, and counts[k] is query k's number.
 * Calls are serialized by a lock (the copy's statics, e.g. the diagonal hash, are shared). */
uint32_t warpalign_oracle_lastz_search(const uint8_t* target, uint32_t tlen,
                                       const uint8_t* const* queries, const uint32_t* qlens, uint32_t n_queries,
                                       const warpalign_oracle_lastz_search_options* options,
                                       warpalign_oracle_lastz_hsp** hsps, uint32_t* counts);

/* As warpalign_oracle_lastz_search, with LASTZ's dynamic masking (--masking) after each query:
 * mask_counts[k] census intervals after query k, as (beg, end) pairs (origin-1, inclusive, as lastz.c's
 * remove_interval_seeds gets them), taken from masks in order. Each is applied as remove_interval_seeds
 * (widened, then mask_seed_position_table) and mask_interval ('x' over its bases) apply it, to a copy of the
 * target. The intervals must lie in the target. */
uint32_t warpalign_oracle_lastz_search_masked(const uint8_t* target, uint32_t tlen,
                                              const uint8_t* const* queries, const uint32_t* qlens, uint32_t n_queries,
                                              const warpalign_oracle_lastz_search_options* options,
                                              const uint32_t* masks, const uint32_t* mask_counts,
                                              warpalign_oracle_lastz_hsp** hsps, uint32_t* counts);

/* The matrix the hit processor scores with (maskedScoring->sub of the default HOXD70 set), 256x256
 * row-major [target byte][query byte], into out[65536]. */
void warpalign_oracle_lastz_masked_hoxd70(int32_t* out);

void warpalign_oracle_lastz_free(void* p);

#endif
