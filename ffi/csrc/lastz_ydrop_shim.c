/* The oracle's entry into LASTZ 1.04.52's ydrop_one_sided_align, which is static in gapped_extend.c: this
 * file #includes the unmodified gapped_extend.c and exports one one-sided extension per call
 * (see lastz_ydrop_shim.h). Built by ffi/build/lastz.rs with lastz_rename.h force-included, like every
 * LASTZ file of the oracle, so all of the copy's global symbols carry a warpalign_oracle_lastz_ prefix.
 *
 * Two things are added around the unmodified source, both outside it:
 *  - truncation is observed, not reported: gapped_extend_inhibitTruncationReport is read at exactly one
 *    place in gapped_extend.c (the traceback-memory check of each DP row), so defining it here as an
 *    expression that records the event and yields true makes the copy take LASTZ's own silent path
 *    (--notruncationreport) and lets us return a truncated flag;
 *  - output.c is not compiled (it would pull in the whole program through infer_scores.c and lastz.c); the
 *    two printers gapped_extend.c references, reachable only from gappily_extend_hsps, are stubs that abort.
 */

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

/* gapped_extend.c's own includes, in its order, so that gapped_extend.h (which owns, i.e. defines, the
 * module's globals) is read before gapped_extend_inhibitTruncationReport is redefined below. */
#include <stdlib.h>
#define  true  1
#define  false 0
#include <string.h>
#include <limits.h>
#include "build_options.h"
#include "utilities.h"
#include "dna_utilities.h"
#include "sequences.h"
#include "segment.h"
#include "edit_script.h"
#include "diag_hash.h"
#include "identity_dist.h"
#include "coverage_dist.h"
#include "continuity_dist.h"
#include "output.h"
#define  gapped_extend_owner
#include "gapped_extend.h"

static int shimTruncated = false;
#undef  gapped_extend_inhibitTruncationReport
#define gapped_extend_inhibitTruncationReport (shimTruncated = true)

#include "gapped_extend.c"

#undef  gapped_extend_inhibitTruncationReport

#include "lastz_ydrop_shim.h"

_Static_assert (sizeof(score)  == sizeof(int32_t),  "the oracle expects LASTZ's default score_type=I");
_Static_assert (sizeof(unspos) == sizeof(uint32_t), "the oracle expects LASTZ's default 31-bit unspos");

//=== stubs for output.c (never reached: only gappily_extend_hsps prints) ===

void print_align_list_segments (alignel* alignList)
	{
	(void) alignList;
	fprintf (stderr, "warpalign oracle: print_align_list_segments is not part of the oracle\n");
	abort ();
	}

void print_align_list (alignel* alignList)
	{
	(void) alignList;
	fprintf (stderr, "warpalign oracle: print_align_list is not part of the oracle\n");
	abort ();
	}

//=== the exported call ===

// rebuild_bounds--
//	LASTZ's structures from a flat bounds block, pointing into the two arrays it fills (freed by the caller);
//	sets io's anchor and bounding fields.

static galign* rebuild_bounds (const warpalign_oracle_lastz_ydrop_bounds* b, alignio* io, aliseg** _segs);
static galign* rebuild_bounds (const warpalign_oracle_lastz_ydrop_bounds* b, alignio* io, aliseg** _segs)
	{
	aliseg*	segs   = zalloc_or_die ("warpalign oracle segments",   (b->n_segments+1)   * sizeof(aliseg));
	galign*	aligns = zalloc_or_die ("warpalign oracle alignments", (b->n_alignments+1) * sizeof(galign));
	u32		k;

	#define seg_at(ix)   (((ix) == WARPALIGN_ORACLE_LASTZ_NONE)? NULL : &segs[ix])
	#define align_at(ix) (((ix) == WARPALIGN_ORACLE_LASTZ_NONE)? NULL : &aligns[ix])

	for (k=0 ; k<b->n_segments ; k++)
		{
		const warpalign_oracle_lastz_ydrop_segment*   f     = &b->segments[k];
		const warpalign_oracle_lastz_ydrop_alignment* owner = &b->alignments[f->owner];
		segs[k].type    = (char) f->kind;
		segs[k].b1      = f->b1;  segs[k].b2 = f->b2;
		segs[k].e1      = f->e1;  segs[k].e2 = f->e2;
		segs[k].nextSeg = (k < owner->last_seg)?  &segs[k+1] : NULL;
		segs[k].prevSeg = (k > owner->first_seg)? &segs[k-1] : NULL;
		}

	for (k=0 ; k<b->n_alignments ; k++)
		{
		const warpalign_oracle_lastz_ydrop_alignment* f = &b->alignments[k];
		galign* a = &aligns[k];
		a->pos1        = f->pos1;
		a->end1        = f->end1;
		a->firstSeg    = &segs[f->first_seg];
		a->lastSeg     = &segs[f->last_seg];
		a->leftAlign1  = align_at (f->left_align1);
		a->rightAlign1 = align_at (f->right_align1);
		a->leftAlign2  = align_at (f->left_align2);
		a->rightAlign2 = align_at (f->right_align2);
		a->leftSeg1    = seg_at (f->left_seg1);
		a->rightSeg1   = seg_at (f->right_seg1);
		a->leftSeg2    = seg_at (f->left_seg2);
		a->rightSeg2   = seg_at (f->right_seg2);
		a->next        = align_at (f->next);
		a->prev        = align_at (f->prev);
		}

	io->anchor1    = b->anchor1;
	io->anchor2    = b->anchor2;
	io->leftAlign  = align_at (b->left_align);
	io->rightAlign = align_at (b->right_align);
	io->leftSeg    = seg_at (b->left_seg);
	io->rightSeg   = seg_at (b->right_seg);
	io->aboveList  = align_at (b->above_list);
	io->belowList  = align_at (b->below_list);

	#undef seg_at
	#undef align_at

	*_segs = segs;
	return aligns;
	}

// The copy's statics (tbRow, tbRowLen, shimTruncated) and the scratch below are shared by all callers, so
// calls are serialized.

static pthread_mutex_t shimLock    = PTHREAD_MUTEX_INITIALIZER;
static scoreset*       shimScoring = NULL;	// allocated once; sub[][] and gaps set per call
static tback*          shimTb      = NULL;	// grown as needed; size set per call
static size_t          shimTbBytes = 0;

int warpalign_oracle_lastz_ydrop_one_sided
   (const uint8_t* A, const uint8_t* B, uint32_t M, uint32_t N,
	int reversed, int trimToPeak, const int32_t* sub,
	int32_t gapOpen, int32_t gapExtend, int32_t yDrop,
	uint32_t tbSize, const warpalign_oracle_lastz_ydrop_bounds* bounds,
	warpalign_oracle_lastz_ydrop_out* out)
	{
	alignio		io;
	aliseg*		segs   = NULL;
	galign*		aligns = NULL;
	editscript*	script;
	unspos		end1 = 0, end2 = 0;
	score		s;
	size_t		needBytes;

	out->score = 0;  out->end1 = out->end2 = 0;  out->truncated = 0;
	out->n_ops = 0;  out->ops = NULL;

	// ydrop_one_sided_align dies ("not enough space in trace_back array") when the first row's traceback
	// cannot fit; report that instead, computing yDropTail and the test exactly as it does

	if ((M > 0) && (N > 0))
		{
		int yDropTail, tbLen = (int) tbSize;
		if (gapExtend != 0)
			yDropTail = (yDrop/gapExtend) + 6;
		else
			{
			int maxYDropTail = 500*1000;
			if (N < (unsigned int) maxYDropTail) yDropTail = N+1;
			                                else yDropTail = maxYDropTail;
			}
		if (yDropTail > tbLen)
			{ out->truncated = 2;  return 0; }
		}

	pthread_mutex_lock (&shimLock);

	if (shimScoring == NULL)
		shimScoring = zalloc_or_die ("warpalign oracle scoring", sizeof(scoreset));
	memcpy (shimScoring->sub, sub, sizeof(shimScoring->sub));
	shimScoring->gapOpen   = gapOpen;
	shimScoring->gapExtend = gapExtend;

	needBytes = offsetof(tback, space) + (size_t) tbSize + 1;
	if (needBytes > shimTbBytes)
		{
		shimTb      = realloc_or_die ("warpalign oracle traceback", shimTb, needBytes);
		shimTbBytes = needBytes;
		}
	shimTb->size = tbSize;

	memset (&io, 0, sizeof(io));	// without bounds: leftSeg, rightSeg, leftAlign,
	io.scoring    = shimScoring;	// .. rightAlign, aboveList and belowList are
	io.yDrop      = yDrop;			// .. all NULL
	io.trimToPeak = trimToPeak;
	io.tb         = shimTb;
	if (bounds != NULL)
		aligns = rebuild_bounds (bounds, &io, &segs);

	script = edit_script_new();
	shimTruncated = false;
	s = ydrop_one_sided_align (&io, reversed, (u8*) A, (u8*) B, M, N, trimToPeak,
	                           &script, &end1, &end2);

	out->score     = s;
	out->end1      = end1;
	out->end2      = end2;
	out->truncated = (shimTruncated)? 1 : 0;
	out->n_ops     = script->len;
	if (script->len > 0)
		{
		out->ops = malloc_or_die ("warpalign oracle ops", script->len * sizeof(editop));
		memcpy (out->ops, script->op, script->len * sizeof(editop));
		}
	free_if_valid ("warpalign oracle script", script);
	free_if_valid ("warpalign oracle segments",   segs);
	free_if_valid ("warpalign oracle alignments", aligns);

	pthread_mutex_unlock (&shimLock);
	return 0;
	}
