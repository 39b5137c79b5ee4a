/* The oracle's entry into LASTZ 1.04.52's HSP search: pos_table.c, seed_search.c, diag_hash.c and seeds.c
 * are compiled unmodified next to this file, which sets up what lastz.c would (the seed, the masked
 * HOXD70 score set, the hit processor's info) and records each HSP through a reporter that does what
 * lastz.c's collect_hsps does with it (start = end - length), without the rest of the program. */

#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#define  true  1
#define  false 0
#include "build_options.h"
#include "utilities.h"
#include "dna_utilities.h"
#include "sequences.h"
#include "seeds.h"
#include "pos_table.h"
#include "segment.h"
#include "seed_search.h"
#include "lastz_search_shim.h"

_Static_assert (sizeof(score)  == sizeof(int32_t),  "the oracle expects LASTZ's default score_type=I");
_Static_assert (sizeof(unspos) == sizeof(uint32_t), "the oracle expects LASTZ's default 31-bit unspos");

typedef struct collected {
	warpalign_oracle_lastz_hsp* v;
	u32 len, size;
	segtable* anchors;	// (an adaptive threshold's table, else NULL)
} collected;

// the seed hit the hit processor is at (its query end), which the reporter records with each HSP
static unspos       hitPos2;
static hitprocessor hitProcessor;

static u64 processing (void* info, unspos pos1, unspos pos2, unspos length)
	{
	hitPos2 = pos2;
	return (*hitProcessor) (info, pos1, pos2, length);
	}

// the reporter: collect_hsps' add_segment, without lastz.c's globals (mirroring is for --self only);  the
// HSPs are recorded as they come, and with an adaptive threshold also added to its table
static u32 collect (void* info, unspos pos1, unspos pos2, unspos length, score s)
	{
	collected* c = (collected*) info;
	if (c->len == c->size)
		{
		c->size = (c->size == 0)? 256 : 2*c->size;
		c->v = realloc_or_die ("warpalign oracle hsps", c->v, c->size * sizeof(c->v[0]));
		}
	c->v[c->len].pos1   = pos1 - length;
	c->v[c->len].pos2   = pos2 - length;
	c->v[c->len].length = length;
	c->v[c->len].score  = s;
	c->v[c->len].anchors_before   = 0;
	c->v[c->len].low_score_before = 0;
	c->v[c->len].hit_pos2         = hitPos2;
	if (c->anchors != NULL)
		{
		c->v[c->len].anchors_before   = c->anchors->len;
		c->v[c->len].low_score_before = c->anchors->lowScore;
		c->anchors = add_segment (c->anchors, pos1 - length, pos2 - length, length, s, /*id*/ 0, /*hspId*/ 0);
		}
	c->len++;
	return length;
	}

static scoreset* masked_hoxd70 (void)
	{
	// parse_options' default set (HOXD70 with X and fill scores), then the copy the hit processor gets
	scoreset* scoring = new_dna_score_set (HOXD70, HOXD70_X, HOXD70_fill, HOXD70_open, HOXD70_extend);
	scoreset* masked  = masked_score_set (scoring);
	free_score_set ("warpalign oracle scoring", scoring);
	return masked;
	}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

// lastz.c's remove_interval_seeds (a static function there):  the census interval b..e (origin-1,
// inclusive) widened by the seed's length less one on both sides, then mask_seed_position_table;  and
// masking.c's mask_interval, which then writes 'x' over the interval's bases
static void mask_census_interval (postable* pt, seq* target, seed* hitSeed, unspos b, unspos e)
	{
	u32    seedLen = (unsigned) hitSeed->length;
	unspos beg = b, end = e, j;
	if (b < seedLen) b =  1;
	            else b -= seedLen - 1;
	if (e >= target->len - (seedLen-1)) e =  target->len;
	                               else e += seedLen - 1;
	mask_seed_position_table (pt, target, b-1, e, upper_nuc_to_bits, hitSeed);
	for (j=beg-1 ; j<end ; j++) target->v[j] = 'x';
	}

static uint32_t search
   (const uint8_t* target, uint32_t tlen,
	const uint8_t* const* queries, const uint32_t* qlens, uint32_t n_queries,
	const warpalign_oracle_lastz_search_options* options,
	const uint32_t* masks, const uint32_t* mask_counts,
	warpalign_oracle_lastz_hsp** hsps, uint32_t* counts)
	{
	u8*				targetCopy;
	u32				m;
	partition*		parts;
	seq				seq1, seq2;
	seed*			hitSeed;
	postable*		pt;
	scoreset*		scoring;
	hitprocsimple	info;
	collected		c = { NULL, 0, 0, NULL };
	char*			pattern;
	u32				k, before;

	pthread_mutex_lock (&lock);

	memset (&seq1, 0, sizeof(seq1));
	memset (&seq2, 0, sizeof(seq2));
	// (a copy:  dynamic masking writes into the target, as LASTZ does into its own)
	targetCopy = malloc_or_die ("warpalign oracle target", tlen + 1);
	memcpy (targetCopy, target, tlen + 1);
	seq1.v = targetCopy;  seq1.len = seq1.size = tlen;  seq1.revCompFlags = rcf_forward;
	seq1.fileType = seq2.fileType = seq_type_fasta;

	// a [multiple] target's partitions, as load_sequence leaves them (entry len: the final separator)
	parts = NULL;
	if (options->n_partitions > 0)
		{
		parts = zalloc_or_die ("warpalign oracle partitions", (options->n_partitions + 1) * sizeof(partition));
		for (k=0 ; k<options->n_partitions ; k++)
			{
			parts[k].sepBefore = options->partitions[2*k];
			parts[k].sepAfter  = options->partitions[2*k+1];
			}
		parts[options->n_partitions].sepBefore = tlen;
		seq1.partition.p     = parts;
		seq1.partition.len   = options->n_partitions;
		seq1.partition.size  = options->n_partitions + 1;
		seq1.partition.state = seqpart_ready;
		seq2.partition       = seq1.partition;
		}

	pattern = copy_string ((char*) options->seed);
	parse_seeds_string (pattern, &hitSeed, (options->max_index_bits > 0)? (int) options->max_index_bits : 28);
	hitSeed->withTrans = options->with_trans;

	scoring = masked_hoxd70 ();

	// set_up_hit_processor's branches for process_for_simple_hit (gfexXDrop's sets every field the others do)
	memset (&info, 0, sizeof(info));
	info.hp.reporter         = collect;
	info.hp.reporterInfo     = &c;
	info.hp.posFilter        = false;
	// and its --filter part
	info.hp.minMatches       = options->min_matches;
	info.hp.maxTransversions = options->max_transversions;
	info.hp.filterPattern    = (options->filter_cares_only)? hitSeed->pattern : NULL;
	info.hp.charToBits       = nuc_to_bits;
	info.hp.gfExtend         = options->gf_extend;
	info.hp.seq1             = &seq1;
	info.hp.seq2             = &seq2;
	info.hp.scoring          = scoring;
	info.hp.xDrop            = options->x_drop;
	info.hp.hspThreshold.t   = 'S';
	info.hp.hspThreshold.s   = options->hsp_threshold;
	info.hp.hspZeroThreshold = (options->hsp_threshold > 0)? options->hsp_threshold : 0;
	info.hp.anchors          = NULL;
	if (options->hsp_threshold_top > 0)
		{
		// resolve_score_thresh's 'C', and lastz.c's anchors limited to its coverage
		info.hp.hspThreshold.t   = 'C';
		info.hp.hspThreshold.s   = 0;
		info.hp.hspThreshold.c   = options->hsp_threshold_top;
		info.hp.hspZeroThreshold = 0;
		c.anchors                = new_segment_table (/*numDefaultAnchors*/ 4000, options->hsp_threshold_top);
		info.hp.anchors          = &c.anchors;
		}
	info.hp.entropicHsp      = options->entropic;
	info.hp.reportEntropy    = false;

	pt = build_seed_position_table (&seq1, 0, tlen, upper_nuc_to_bits, hitSeed, options->step);
	if (options->word_count_limit > 0)
		limit_position_table (pt, options->word_count_limit, options->word_count_chasm);
	for (k=0 ; k<n_queries ; k++)
		{
		seq2.v = (u8*) queries[k];  seq2.len = seq2.size = qlens[k];
		seq2.revCompFlags = (options->self_compare == 2)? rcf_revcomp : rcf_forward;
		before = c.len;
		hitProcessor = (options->plain_hits)?   process_for_plain_hit
		             : (options->recover_hits)? process_for_recoverable_hit : process_for_simple_hit;
		seed_hit_search (&seq1, pt, &seq2, 0, qlens[k], /*selfCompare*/ options->self_compare != 0,
		                 upper_nuc_to_bits, hitSeed, options->search_limit, /*reportSearchLimit*/ 0,
		                 options->band_width, processing, &info);
		counts[k] = c.len - before;
		// the census's masking after the strand (mask_interval calls remove_interval_seeds first, which
		// reads the bases as yet unmasked, then writes the 'x's)
		if (masks != NULL)
			for (m=0 ; m<mask_counts[k] ; m++, masks+=2)
				mask_census_interval (pt, &seq1, hitSeed, masks[0], masks[1]);
		}

	free_position_table (pt);
	if (c.anchors != NULL) free_segment_table (c.anchors);
	free (targetCopy);
	free (parts);
	free_score_set ("warpalign oracle masked scoring", scoring);
	free_seeds (hitSeed);
	free_if_valid ("warpalign oracle seed", pattern);

	pthread_mutex_unlock (&lock);

	*hsps = c.v;
	return c.len;
	}

uint32_t warpalign_oracle_lastz_search
   (const uint8_t* target, uint32_t tlen,
	const uint8_t* const* queries, const uint32_t* qlens, uint32_t n_queries,
	const warpalign_oracle_lastz_search_options* options,
	warpalign_oracle_lastz_hsp** hsps, uint32_t* counts)
	{
	return search (target, tlen, queries, qlens, n_queries, options, NULL, NULL, hsps, counts);
	}

uint32_t warpalign_oracle_lastz_search_masked
   (const uint8_t* target, uint32_t tlen,
	const uint8_t* const* queries, const uint32_t* qlens, uint32_t n_queries,
	const warpalign_oracle_lastz_search_options* options,
	const uint32_t* masks, const uint32_t* mask_counts,
	warpalign_oracle_lastz_hsp** hsps, uint32_t* counts)
	{
	return search (target, tlen, queries, qlens, n_queries, options, masks, mask_counts, hsps, counts);
	}

void warpalign_oracle_lastz_masked_hoxd70 (int32_t* out)
	{
	scoreset* masked = masked_hoxd70 ();
	int r, c;
	for (r=0 ; r<256 ; r++)
		for (c=0 ; c<256 ; c++)
			out[256*r+c] = masked->sub[r][c];
	free_score_set ("warpalign oracle masked scoring", masked);
	}

void warpalign_oracle_lastz_free (void* p) { free (p); }
