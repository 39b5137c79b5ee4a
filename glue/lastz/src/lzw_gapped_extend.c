//-------+---------+---------+---------+---------+---------+---------+--------=
//
// File: lzw_gapped_extend.c
//
//----------
//
// lzw_gapped_extend--
//	warpalign's glue for gapped_extend.c, included at its end (so that it
//	reaches that file's statics):  routed_one_sided_align, the pool computing
//	extensions ahead of the anchor loop, and the extensions queued while LASTZ
//	searches for HSPs.  Only in the build configuration lzw_glue.h routes.
//
//	Routing (patch 0002):
//
//	ydrop_align's two ydrop_one_sided_align calls go through
//	routed_one_sided_align, which sends each call to warpalign_ydrop_batch
//	(one job) and rebuilds LASTZ's score, end1/end2 and edit script from the
//	result. A call that no earlier alignment can bound or mask (leftSeg and
//	rightSeg NULL, and the direction's aboveList/belowList empty or starting
//	beyond the last DP row) goes as an unconstrained job; any other carries
//	a flat copy (warpalign_ydrop_bounds) of the earlier alignments its first
//	rows can reach: their segment chains, the neighbour links its sweep can
//	follow and the part of aboveList/belowList those rows reach
//	(lzw_flatten_bounds). The rows end before the 33rd alignment of the list
//	(the depth; WARPALIGN_YDROP_DEPTH=N sets another, for tests), so that a
//	call does not copy every alignment up to the end of the sequence; a call
//	whose sweep goes on past them (warpalign says TRUNC_BOUNDS) runs again
//	with a copy 4 times as deep. Each alignment's segment chain is copied
//	into flat segments once per gapped_extend call (an inserted alignment
//	does not change until the call frees it) and each block takes its copy
//	from there. A call whose links break LASTZ's own invariant (a segment
//	pointer that is not a segment of the alignment it comes with), and one
//	whose traceback memory cannot hold the first row (LASTZ dies with its
//	own message), runs the original; when the memory runs out later
//	(TRUNC_MIDWAY), warpalign's result is LASTZ's and its "truncating
//	alignment" report is printed here, word for word. A process-wide
//	warpalign context on the CPU (each call is one job, which a GPU would
//	only slow down by its start-up) is created on first use. lzw_glue.h
//	enables this only for the default build configuration;
//	WARPALIGN_STATS=1 prints routed/original counts to stderr at exit.
//
//	Extensions ahead of the anchor loop (patch 0004):
//
//	While LASTZ extends anchor i, a pool of worker threads
//	(lzw_ydrop_ahead_*) computes the two one-sided extensions of the anchors
//	after it (up to WARPALIGN_YDROP_AHEAD of them, default 255 with 8 cores
//	or more, 0 turns it off), nearest first, each under the earlier
//	alignments known when it was queued, with the envelope of each sweep;
//	anchors an earlier alignment contains are not queued (and cancelled once
//	one does), and anchors near an earlier queued one wait until LASTZ has
//	passed it. After LASTZ inserts an alignment, the finished jobs of queued
//	anchors near it that the earlier alignments known then would change are
//	queued again under those (warpalign_ydrop_ahead_still_holds), so they do
//	not run in the loop later; a finished job whose rows no alignment
//	inserted since meets is left alone, and one found to hold is checked at
//	its call from then on. routed_one_sided_align takes a computed result
//	only for the same call (sequences, lengths, scoring, direction,
//	traceback size) and only when warpalign_ydrop_unaffected says the call's
//	real earlier alignments would not change it (or, without that replay,
//	when the job ran under the alignments known when it was queued and no
//	alignment inserted since meets the rows its sweep entered: see
//	lzw_untouched; WARPALIGN_YDROP_VERIFY=1 replays those too and dies on a
//	disagreement); every other call runs as before (a job no worker started
//	is dropped, not run twice). LASTZ's loop, skip test and order are
//	unchanged. Each anchor's ensure queues what is needed now (at least 64
//	anchors ahead); further anchors are queued while the loop waits for a
//	result. Queued jobs live for one gapped_extend call (the target may be
//	masked between calls). The pool starts once LASTZ has parsed its
//	options, so that its workers ready their scratch memory (and one readies
//	LASTZ's own, adopted at the first anchor loop) while LASTZ reads and
//	seeds. WARPALIGN_STATS=1 adds their counts. WARPALIGN_YDROP_DUMP (a record of
//	every call as LASTZ makes it) turns this off.
//
//	Extensions queued while LASTZ searches for HSPs (patch 0005):
//
//	Each HSP collect_hsps adds becomes an anchor to be (its peak, as
//	reduce_to_points will find it); of those within lzwEarlySameDiag (100)
//	diagonals and lzwDeferBand positions of one another only the highest-
//	scoring is kept, and a kept one's two extensions are queued to the pool,
//	under no earlier alignments, once the search has passed its
//	neighbourhood, highest scores first. The loop's first extensions, the
//	largest, and those of anchors it defers behind a near one and then
//	extends are then done or running when it starts; the workers are idle
//	during the search. At its start the jobs no worker started are dropped;
//	lzw_ahead_queue takes the others for the anchor with the same jobs: as
//	they are when no earlier alignment is near that anchor or none meets the
//	rows they entered, else only when they still hold for the alignments
//	known then (warpalign_ydrop_ahead_still_holds), else they are cancelled
//	and the anchor queued as before. The left extensions read the query's
//	reverse: start_one_strand makes it before the search and
//	finish_one_strand takes it (after checking it is still the query's).
//	Only for a gapped query strand whose HSPs are its anchors as they are:
//	no chores, quantum DNA, HSP limits or anchors collected from both
//	strands; the jobs end once the strand's gapped extension does (or its
//	search aborts), before LASTZ changes or frees the sequences.
//	WARPALIGN_YDROP_EARLY=0 turns this off; WARPALIGN_STATS=1 counts them.
//
//----------

#ifdef lzwRouting
//----------
//
// routed_one_sided_align--
//	(added by warpalign's patch series)  Same arguments and results as
//	ydrop_one_sided_align, computed by libwarpalign (warpalign_ydrop_batch, one
//	job), which gives exactly what ydrop_one_sided_align would.  A call that no
//	earlier alignment can bound or mask goes as an unconstrained job;  any other
//	carries a flat copy of the earlier alignments it can reach in its first
//	rows (see lzw_flatten_bounds), and runs again with a deeper copy if
//	its sweep goes on past them.  ydrop_one_sided_align itself runs when that
//	copy cannot be made, and when the traceback memory cannot hold the first row
//	(LASTZ's fatal error);  when it runs out later, warpalign's result is
//	LASTZ's and the truncation report is printed here, as LASTZ words it.
//
//	With WARPALIGN_STATS=1 in the environment, the number of extensions routed
//	each way is written to stderr at exit ("run again deeper" counts the runs
//	stopped at the end of their copy, "truncated" the routed calls whose
//	traceback memory ran out).  WARPALIGN_YDROP_DEPTH=N
//	(tests) sets the depth of a call's first copy (default 32 alignments).
//
//----------


static warpalign_ctx* lzwCtx = NULL;
static int lzwStats = -1;		// -1 => WARPALIGN_STATS not read yet
static u64 lzwRouted      = 0;
static u64 lzwConstrained = 0;	// (routed calls that carried bounds)
static u64 lzwDeeper      = 0;	// (runs stopped at the end of their bounds)
static u32 lzwDepth       = 0;	// 0 => WARPALIGN_YDROP_DEPTH not read yet
static u64 lzwUnroutable  = 0;
static u64 lzwTruncated   = 0;

static void lzw_report_stats (void);
static u64 lzwSpecJobs       = 0;	// (extensions queued to run ahead)
static u64 lzwSpecHits       = 0;	// (calls answered by one)
static u64 lzwSpecRejected   = 0;	// (calls whose earlier alignments would change it)
static u64 lzwSpecNotStarted = 0;	// (calls that came before a worker took theirs)
static u64 lzwSpecCancelled  = 0;	// (queued for anchors LASTZ then skipped)
static u64 lzwSpecRequeued   = 0;	// (finished, changed by an alignment inserted since)
static double lzwLoopSecs    = 0;	// (wall time in gapped_extend's anchor loops)
static double lzwWaitSecs    = 0;	// (.. of it waiting for extensions computed ahead)
static u64    lzwSpotCalls[4] = {0, 0, 0, 0};	// (calls the loop ran itself:  none queued,
static double lzwSpotSecs[4]  = {0, 0, 0, 0};	//  one not started, one rejected;  LASTZ's own)
static double lzwQueueSecs    = 0;	// (in the loop:  queueing anchors ahead,
static double lzwCheckSecs    = 0;	//  checking results computed ahead against the call)
static double lzwFillSecs     = 0;	// (queueing anchors ahead while waiting for a result)
static u64    lzwSpecUntouched = 0;	// (results taken without a replay)
static u64    lzwEarlyJobs      = 0;	// (queued while LASTZ searched for HSPs,
static u64    lzwEarlyTaken     = 0;	//  taken by the loop,
static u64    lzwEarlyUnstarted = 0;	//  dropped at its start:  no worker had started them)

static double lzw_now (void);
static double lzw_now (void)
	{
	struct timespec t;
	clock_gettime (CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
	}

static void lzw_report_stats (void)
	{
	fprintf (stderr, "warpalign: %llu of %llu one-sided extensions routed"
	                 " (%llu constrained, %llu run again deeper, %llu truncated; %llu unroutable: run by lastz)\n",
	                 (unsigned long long) lzwRouted,
	                 (unsigned long long) (lzwRouted + lzwUnroutable),
	                 (unsigned long long) lzwConstrained,
	                 (unsigned long long) lzwDeeper,
	                 (unsigned long long) lzwTruncated,
	                 (unsigned long long) lzwUnroutable);
	fprintf (stderr, "warpalign: %llu extensions queued ahead; %llu calls answered by them,"
	                 " %llu rejected (an earlier alignment would change them), %llu came first,"
	                 " %llu cancelled (anchor skipped), %llu queued again (an alignment inserted since changed them)\n",
	                 (unsigned long long) lzwSpecJobs,
	                 (unsigned long long) lzwSpecHits,
	                 (unsigned long long) lzwSpecRejected,
	                 (unsigned long long) lzwSpecNotStarted,
	                 (unsigned long long) lzwSpecCancelled,
	                 (unsigned long long) lzwSpecRequeued);
	fprintf (stderr, "warpalign: %llu extensions queued while LASTZ searched for HSPs; %llu taken by the loop,"
	                 " %llu dropped before a worker started them\n",
	                 (unsigned long long) lzwEarlyJobs, (unsigned long long) lzwEarlyTaken,
	                 (unsigned long long) lzwEarlyUnstarted);
	fprintf (stderr, "warpalign: %.3f s in gapped extension's anchor loops, %.3f s of it waiting for"
	                 " extensions computed ahead; %.3f Gcells swept\n",
	                 lzwLoopSecs, lzwWaitSecs, warpalign_ydrop_cells () / 1e9);
	fprintf (stderr, "warpalign: calls the loop ran itself: %llu none queued (%.3f s), %llu not started"
	                 " (%.3f s), %llu rejected (%.3f s); %llu by LASTZ's own code (%.3f s)\n",
	                 (unsigned long long) lzwSpotCalls[0], lzwSpotSecs[0],
	                 (unsigned long long) lzwSpotCalls[1], lzwSpotSecs[1],
	                 (unsigned long long) lzwSpotCalls[2], lzwSpotSecs[2],
	                 (unsigned long long) lzwSpotCalls[3], lzwSpotSecs[3]);
	fprintf (stderr, "warpalign: the loop's bookkeeping: %.3f s queueing anchors ahead (and %.3f s while"
	                 " waiting for a result), %.3f s checking results computed ahead against their calls"
	                 " (%llu taken without a replay: no alignment inserted since they were queued meets their rows)\n",
	                 lzwQueueSecs, lzwFillSecs, lzwCheckSecs,
	                 (unsigned long long) lzwSpecUntouched);
	}

// lzw_report_truncation--
//	ydrop_one_sided_align's report when traceback memory runs out mid-sweep
//	(end1,end2 are the call's returned ends:  the sweep stops there)

static void lzw_report_truncation (alignio* io, int reversed, unspos end1, unspos end2);
static void lzw_report_truncation (alignio* io, int reversed, unspos end1, unspos end2)
	{
	unspos anchor1 = io->anchor1, anchor2 = io->anchor2;

	if (gapped_extend_inhibitTruncationReport) return;
	if (!reversed)
		fprintf (stderr, "truncating alignment ending at (" unsposCommaFmt ");",
		                 end1 + anchor1 + 1, end2 + anchor2 + 1);
	else
		fprintf (stderr, "truncating alignment starting at (" unsposCommaFmt ");",
		                 anchor1 + 2 - end1, anchor2 + 2 - end2);
	fprintf(stderr, "  anchor at (" unsposCommaFmt ")\n", anchor1, anchor2);

	if (!haveReportedTruncation)
		{
		haveReportedTruncation = true;
		fprintf(stderr, "truncation can be reduced by using --allocate:traceback to increase traceback memory\n");
		}
	}

// lzw_unconstrained--
//	true when ydrop_one_sided_align(io,reversed,..,M,..) cannot see any earlier
//	alignment, i.e. it computes exactly the unconstrained DP:
//	  - with leftSeg and rightSeg NULL, L and R keep their initial 0 and N+1 (the
//	    reversed swap needs a non-NULL segment), update_LR_bounds never changes
//	    LY/RY (it only follows non-NULL segments, so leftAlign and rightAlign are
//	    never read), and the prolongation bound NN is N;
//	  - update_active_segs only activates the head of aboveList (forward) or
//	    belowList (reversed), at the single row where pos1-anchor1 (resp.
//	    anchor1-end1) equals the row, and the head only advances when activated;
//	    rows run 1..M, so a head beyond row M is never activated, no cell is ever
//	    masked, and active stays NULL;  the test below is that loop's own
//	    (unsigned) difference, so it holds for any head get_above_below picks.

static int lzw_unconstrained (alignio* io, int reversed, unspos M);
static int lzw_unconstrained (alignio* io, int reversed, unspos M)
	{
	if ((io->leftSeg != NULL) || (io->rightSeg != NULL))
		return false;
	if (!reversed)
		return (io->aboveList == NULL) || (io->aboveList->pos1 - io->anchor1 > M);
	else
		return (io->belowList == NULL) || (io->anchor1 - io->belowList->end1 > M);
	}

// the alignments a bounds block copies at first (WARPALIGN_YDROP_DEPTH)

static void lzw_read_depth (void);
static void lzw_read_depth (void)
	{
	if (lzwDepth == 0)
		{
		char* v = getenv ("WARPALIGN_YDROP_DEPTH");
		lzwDepth = ((v != NULL) && (atoi (v) > 0))? (u32) atoi (v) : 32;
		}
	}

//----------
//
// lzw_flatten_bounds--
//	Copy the earlier alignments ydrop_one_sided_align(io,reversed,..,M,..) can
//	reach in its first rows DP rows into warpalign's flat form (arrays linked
//	by index;  see warpalign_ydrop_bounds in warpalign.h), and set rows:  M,
//	unless more than depth alignments of aboveList (belowList) are entered
//	within M rows, then the row before the one that enters the next (a sweep
//	rarely gets that far, and copying every alignment up to row M would copy
//	most of the list for every call).  Everything those rows can read is
//	copied as is;  a pointer they can never follow is left out (NONE):
//	  - an alignment's segment chain is copied whole;
//	  - next_sweep_seg (forward) follows an alignment's leftAlign2/rightAlign2
//	    (and Seg2) only once the sweep row passes its last segment, i.e. only if
//	    lastSeg->e1 < anchor1+rows;  prev_sweep_seg (reversed) follows the ...1
//	    links only once the row passes below its first segment, i.e. only if
//	    firstSeg->b1 > anchor1-row for some row <= rows;  the other pair is
//	    never read;
//	  - update_active_segs walks aboveList by next (belowList by prev) only past
//	    alignments whose pos1-anchor1 (anchor1-end1) is a row in 1..rows, so
//	    the walk is cut at the first alignment outside that range;
//	  - leftAlign/rightAlign are only read along with a non-NULL leftSeg/rightSeg.
//	The copy relies on each segment pointer naming a segment of the alignment it
//	comes with (leftSeg of leftAlign, leftSeg2 of leftAlign2, ...), which
//	ydrop_one_sided_align also relies on;  when that does not hold, this
//	returns false and the call runs in lastz.
//
//----------

typedef struct lzwSlot
	{
	const void*	key;			// a galign*
	u32			ix;				// its index in the flat arrays
	u32			gen;			// the call that filled the slot
	} lzwSlot;

static lzwSlot* lzwSlots     = NULL;	// open addressing, power-of-2 size
static u32            lzwSlotsLen  = 0;
static u32            lzwSlotsUsed = 0;
static u32            lzwGen       = 0;	// (slots of other generations are empty)

static warpalign_ydrop_segment*   lzwSegs      = NULL;
static u32                        lzwSegsLen   = 0;
static u32                        lzwSegsCap   = 0;
static aliseg**                   lzwSegPtr    = NULL;	// (the aliseg of each flat segment)
// each alignment's segment chain, copied at its first use in a gapped_extend
// call (an inserted alignment's chain does not change until the call frees it)

typedef struct lzwCachedAlign
	{
	const galign* key;
	u32			start;			// (its segments:  lzwCacheSegs[start..start+count))
	u32			count;
	u32			gen;			// (the gapped_extend call that copied it)
	} lzwCachedAlign;

static lzwCachedAlign*         lzwCached       = NULL;	// open addressing, power-of-2 size
static u32                      lzwCachedLen    = 0;
static u32                      lzwCachedUsed   = 0;
static u32                      lzwCacheGen     = 1;
static warpalign_ydrop_segment* lzwCacheSegs    = NULL;
static aliseg**                 lzwCacheSegPtr  = NULL;
static u32                      lzwCacheSegsLen = 0;
static u32                      lzwCacheSegsCap = 0;

// the seq1 positions a block's sweep can read segments at:  a block copies
// each chain from the segment before the first ending at lzwLo or later
// through the first starting past lzwHi (see lzw_flatten_bounds)
static u64                      lzwLo = 0, lzwHi = 0;

static warpalign_ydrop_alignment* lzwAligns    = NULL;
static galign**                   lzwAlignPtr  = NULL;	// (the galign of each flat alignment)
static u32                        lzwAlignsLen = 0;
static u32                        lzwAlignsCap = 0;

static u32 lzw_slot (const void* key);
static u32 lzw_slot (const void* key)
	{
	u32 h = (u32) ((((u64) (uintptr_t) key) * 0x9E3779B97F4A7C15ull) >> 32);	// (high bits: aligned keys share low ones)
	u32 k = h & (lzwSlotsLen-1);
	while ((lzwSlots[k].gen == lzwGen) && (lzwSlots[k].key != key))
		k = (k+1) & (lzwSlotsLen-1);
	return k;
	}

static u32 lzw_lookup (const void* key);
static u32 lzw_lookup (const void* key)
	{
	u32 k = lzw_slot (key);
	return (lzwSlots[k].gen == lzwGen)? lzwSlots[k].ix : WARPALIGN_YDROP_NONE;
	}

static void lzw_insert (const void* key, u32 ix);
static void lzw_insert (const void* key, u32 ix)
	{
	u32 k;

	if (2*(lzwSlotsUsed+1) > lzwSlotsLen)
		{ // grow, moving this call's slots
		lzwSlot* old    = lzwSlots;
		u32            oldLen = lzwSlotsLen;
		lzwSlotsLen = 2*oldLen;
		lzwSlots    = zalloc_or_die ("warpalign slots", lzwSlotsLen * sizeof(lzwSlot));
		for (k=0 ; k<oldLen ; k++)
			{
			if (old[k].gen == lzwGen) lzwSlots[lzw_slot (old[k].key)] = old[k];
			}
		free_if_valid ("warpalign slots", old);
		}

	k = lzw_slot (key);
	lzwSlots[k].key = key;
	lzwSlots[k].ix  = ix;
	lzwSlots[k].gen = lzwGen;
	lzwSlotsUsed++;
	}

// lzw_forget_alignments--
//	Empties the copies of segment chains (at the start of each gapped_extend
//	call:  its alignments are new).

static void lzw_forget_alignments (void)
	{
	lzwCacheSegsLen = 0;
	if (++lzwCacheGen == 0)
		{
		if (lzwCached != NULL) memset (lzwCached, 0, lzwCachedLen * sizeof(lzwCachedAlign));
		lzwCacheGen = 1;
		}
	lzwCachedUsed = 0;
	}

static u32 lzw_cached_slot (const galign* a);
static u32 lzw_cached_slot (const galign* a)
	{
	u32 h = (u32) ((((u64) (uintptr_t) a) * 0x9E3779B97F4A7C15ull) >> 32);
	u32 k = h & (lzwCachedLen-1);
	while ((lzwCached[k].gen == lzwCacheGen) && (lzwCached[k].key != a))
		k = (k+1) & (lzwCachedLen-1);
	return k;
	}

// lzw_cached--
//	Alignment a's segment chain as flat segments (owner not set), copied on
//	its first use in this gapped_extend call.

static lzwCachedAlign* lzw_cached (const galign* a);
static lzwCachedAlign* lzw_cached (const galign* a)
	{
	lzwCachedAlign* c;
	aliseg*	s;
	u32		k;

	if (lzwCached == NULL)
		{
		lzwCachedLen = 1024;
		lzwCached    = zalloc_or_die ("warpalign cached alignments", lzwCachedLen * sizeof(lzwCachedAlign));
		}
	if (2*(lzwCachedUsed+1) > lzwCachedLen)
		{ // grow, moving this call's entries
		lzwCachedAlign* old    = lzwCached;
		u32              oldLen = lzwCachedLen;
		lzwCachedLen = 2*oldLen;
		lzwCached    = zalloc_or_die ("warpalign cached alignments", lzwCachedLen * sizeof(lzwCachedAlign));
		for (k=0 ; k<oldLen ; k++)
			{
			if (old[k].gen == lzwCacheGen) lzwCached[lzw_cached_slot (old[k].key)] = old[k];
			}
		free_if_valid ("warpalign cached alignments", old);
		}

	c = &lzwCached[lzw_cached_slot (a)];
	if (c->gen == lzwCacheGen) return c;

	c->key   = a;
	c->gen   = lzwCacheGen;
	c->start = lzwCacheSegsLen;
	for (s=a->firstSeg ; s!=NULL ; s=s->nextSeg)
		{
		if (lzwCacheSegsLen == lzwCacheSegsCap)
			{
			lzwCacheSegsCap = 2*lzwCacheSegsCap + 1024;
			lzwCacheSegs    = realloc_or_die ("warpalign cached segments", lzwCacheSegs,   lzwCacheSegsCap * sizeof(lzwCacheSegs[0]));
			lzwCacheSegPtr  = realloc_or_die ("warpalign cached segments", lzwCacheSegPtr, lzwCacheSegsCap * sizeof(lzwCacheSegPtr[0]));
			}
		lzwCacheSegs[lzwCacheSegsLen].kind  = (u32) s->type;
		lzwCacheSegs[lzwCacheSegsLen].b1    = s->b1;  lzwCacheSegs[lzwCacheSegsLen].b2 = s->b2;
		lzwCacheSegs[lzwCacheSegsLen].e1    = s->e1;  lzwCacheSegs[lzwCacheSegsLen].e2 = s->e2;
		lzwCacheSegs[lzwCacheSegsLen].owner = 0;
		lzwCacheSegPtr[lzwCacheSegsLen]     = s;
		lzwCacheSegsLen++;
		}
	c->count = lzwCacheSegsLen - c->start;
	lzwCachedUsed++;
	return c;
	}

// lzw_align--
//	The flat index of alignment a, copying it (and its segment chain) in if
//	this call has not yet.

static u32 lzw_align (galign* a);
static u32 lzw_align (galign* a)
	{
	warpalign_ydrop_alignment* f;
	lzwCachedAlign* c;
	warpalign_ydrop_segment* chain;
	u32		k, lo, hi, first, last, count, ix = lzw_lookup (a);

	if (ix != WARPALIGN_YDROP_NONE) return ix;

	ix = lzwAlignsLen++;
	if (lzwAlignsLen > lzwAlignsCap)
		{
		lzwAlignsCap = 2*lzwAlignsLen + 64;
		lzwAligns    = realloc_or_die ("warpalign alignments", lzwAligns,   lzwAlignsCap * sizeof(lzwAligns[0]));
		lzwAlignPtr  = realloc_or_die ("warpalign alignments", lzwAlignPtr, lzwAlignsCap * sizeof(lzwAlignPtr[0]));
		}
	lzw_insert (a, ix);
	lzwAlignPtr[ix] = a;

	// the window of the chain (c->count >= 1:  inserted alignments are not
	// empty);  a chain runs in increasing seq1 positions, and neither starts
	// nor ends with a horizontal segment nor has two in a row
	c = lzw_cached (a);
	chain = lzwCacheSegs + c->start;
	lo = 0;  hi = c->count;
	while (lo < hi)
		{ u32 mid = lo + (hi-lo)/2;  if ((u64) chain[mid].e1 < lzwLo) lo = mid+1;  else hi = mid; }
	first = (lo > 0)? lo-1 : 0;
	if ((chain[first].kind == horzSeg) && (first > 0)) first--;
	lo = first;  hi = c->count;
	while (lo < hi)
		{ u32 mid = lo + (hi-lo)/2;  if ((u64) chain[mid].b1 <= lzwHi) lo = mid+1;  else hi = mid; }
	last = (lo < c->count)? lo : c->count-1;
	if ((chain[last].kind == horzSeg) && (last+1 < c->count)) last++;
	count = last - first + 1;

	if (lzwSegsLen + count > lzwSegsCap)
		{
		lzwSegsCap = 2*(lzwSegsLen + count) + 256;
		lzwSegs    = realloc_or_die ("warpalign segments", lzwSegs,   lzwSegsCap * sizeof(lzwSegs[0]));
		lzwSegPtr  = realloc_or_die ("warpalign segments", lzwSegPtr, lzwSegsCap * sizeof(lzwSegPtr[0]));
		}
	memcpy (lzwSegs   + lzwSegsLen, chain + first,                         count * sizeof(lzwSegs[0]));
	memcpy (lzwSegPtr + lzwSegsLen, lzwCacheSegPtr + c->start + first,      count * sizeof(lzwSegPtr[0]));
	for (k=lzwSegsLen ; k<lzwSegsLen+count ; k++) lzwSegs[k].owner = ix;

	f = &lzwAligns[ix];
	f->pos1      = a->pos1;
	f->end1      = a->end1;
	f->first_seg = lzwSegsLen;
	lzwSegsLen   += count;
	f->last_seg     = lzwSegsLen - 1;
	f->left_align1  = f->right_align1 = f->left_align2 = f->right_align2 = WARPALIGN_YDROP_NONE;
	f->left_seg1    = f->right_seg1   = f->left_seg2   = f->right_seg2   = WARPALIGN_YDROP_NONE;
	f->next         = f->prev         = WARPALIGN_YDROP_NONE;
	return ix;
	}

// lzw_link--
//	Copy the link (a,s) into *alignIx, *segIx;  false if s is not a segment of a.

static int lzw_link (galign* a, aliseg* s, u32* alignIx, u32* segIx);
static int lzw_link (galign* a, aliseg* s, u32* alignIx, u32* segIx)
	{
	u32		ax, sx, lo, hi;

	if (s == NULL) return true;		// (a is then never read)
	if (a == NULL) return false;
	ax = lzw_align (a);

	// s among a's copied segments (only alignments go in the pointer table:
	// a long one's segments would fill it):  a binary search by start, as a
	// chain runs in increasing (b1,b2), then a scan of the copy if that misses;
	// false when s lies outside the copied window (the call runs in lastz)

	lo = lzwAligns[ax].first_seg;
	hi = lzwAligns[ax].last_seg + 1;		// (u32: empty when a has no segments)
	while (lo < hi)
		{
		u32 mid = lo + (hi-lo)/2;
		if (((u64) lzwSegs[mid].b1 < (u64) s->b1)
		 || (((u64) lzwSegs[mid].b1 == (u64) s->b1) && ((u64) lzwSegs[mid].b2 < (u64) s->b2)))
			lo = mid+1;
		else hi = mid;
		}
	if ((lo != lzwAligns[ax].last_seg + 1) && (lzwSegPtr[lo] == s)) sx = lo;
	else
		{
		for (sx=lzwAligns[ax].first_seg ; (sx<=lzwAligns[ax].last_seg)&&(lzwSegPtr[sx]!=s) ; sx++) ;
		if (sx > lzwAligns[ax].last_seg) return false;
		}
	*alignIx = ax;
	*segIx   = sx;
	return true;
	}

static int lzw_flatten_bounds (alignio* io, int reversed, unspos M, u32 depth, warpalign_ydrop_bounds* b);
static int lzw_flatten_bounds (alignio* io, int reversed, unspos M, u32 depth, warpalign_ydrop_bounds* b)
	{
	u64		anchor1 = io->anchor1;
	unspos	rows    = M;
	u32		ix, prevIx, count = 0;
	galign*	a;

	// a fresh generation empties the pointer table

	if (lzwSlots == NULL)
		{
		lzwSlotsLen = 1024;
		lzwSlots    = zalloc_or_die ("warpalign slots", lzwSlotsLen * sizeof(lzwSlot));
		}
	if (++lzwGen == 0)
		{
		memset (lzwSlots, 0, lzwSlotsLen * sizeof(lzwSlot));
		lzwGen = 1;
		}
	lzwSlotsUsed = 0;
	lzwSegsLen = lzwAlignsLen = 0;

	// the rows:  they end before the list's (depth+1)th alignment;  the
	// sweep then reads segments only at positions anchor1-rows-1 .. anchor1+1
	// (reversed) or anchor1-1 .. anchor1+rows+1, so each chain is copied from
	// the segment before the first ending at the low one through the first
	// starting past the high one (a chain never leaves that copy in those rows)

	if (!reversed)
		{
		for (a=io->aboveList ; (a!=NULL) && (a->pos1-io->anchor1 >= 1) && (a->pos1-io->anchor1 <= M) ; a=a->next)
			{ if (++count > depth) { rows = a->pos1-io->anchor1 - 1;  break; } }
		lzwLo = (anchor1 >= 1)? anchor1-1 : 0;
		lzwHi = anchor1 + rows + 1;
		}
	else
		{
		for (a=io->belowList ; (a!=NULL) && (io->anchor1-a->end1 >= 1) && (io->anchor1-a->end1 <= M) ; a=a->prev)
			{ if (++count > depth) { rows = io->anchor1-a->end1 - 1;  break; } }
		lzwLo = (anchor1 >= (u64) rows+1)? anchor1-rows-1 : 0;
		lzwHi = anchor1 + 1;
		}
	count = 0;

	b->anchor1    = io->anchor1;
	b->anchor2    = io->anchor2;
	b->left_align = b->right_align = b->left_seg = b->right_seg = WARPALIGN_YDROP_NONE;
	b->above_list = b->below_list = WARPALIGN_YDROP_NONE;

	if (!lzw_link (io->leftAlign,  io->leftSeg,  &b->left_align,  &b->left_seg))  return false;
	if (!lzw_link (io->rightAlign, io->rightSeg, &b->right_align, &b->right_seg)) return false;

	// the list of alignments the sweep row reaches, cut where the walk stops
	// or, past depth alignments, where the block's rows end

	prevIx = WARPALIGN_YDROP_NONE;
	if (!reversed)
		{
		for (a=io->aboveList ; (a!=NULL) && (a->pos1-io->anchor1 >= 1) && (a->pos1-io->anchor1 <= M) ; a=a->next)
			{
			if (++count > depth) { rows = a->pos1-io->anchor1 - 1;  break; }
			ix = lzw_align (a);
			if (prevIx == WARPALIGN_YDROP_NONE) b->above_list = ix;
			                               else lzwAligns[prevIx].next = ix;
			prevIx = ix;
			}
		}
	else
		{
		for (a=io->belowList ; (a!=NULL) && (io->anchor1-a->end1 >= 1) && (io->anchor1-a->end1 <= M) ; a=a->prev)
			{
			if (++count > depth) { rows = io->anchor1-a->end1 - 1;  break; }
			ix = lzw_align (a);
			if (prevIx == WARPALIGN_YDROP_NONE) b->below_list = ix;
			                               else lzwAligns[prevIx].prev = ix;
			prevIx = ix;
			}
		}

	// the neighbour links a sweep can follow (this loop also visits the
	// alignments they add)

	for (ix=0 ; ix<lzwAlignsLen ; ix++)
		{
		galign* g = lzwAlignPtr[ix];
		warpalign_ydrop_alignment f = lzwAligns[ix];
		int ok = true;
		if ((!reversed) && ((u64) g->lastSeg->e1 < anchor1 + rows))
			{
			ok = lzw_link (g->leftAlign2,  g->leftSeg2,  &f.left_align2,  &f.left_seg2)
			  && lzw_link (g->rightAlign2, g->rightSeg2, &f.right_align2, &f.right_seg2);
			}
		else if ((reversed) && ((u64) g->firstSeg->b1 + rows > anchor1))
			{
			ok = lzw_link (g->leftAlign1,  g->leftSeg1,  &f.left_align1,  &f.left_seg1)
			  && lzw_link (g->rightAlign1, g->rightSeg1, &f.right_align1, &f.right_seg1);
			}
		if (!ok) return false;
		lzwAligns[ix].left_align1  = f.left_align1;   lzwAligns[ix].left_seg1  = f.left_seg1;
		lzwAligns[ix].right_align1 = f.right_align1;  lzwAligns[ix].right_seg1 = f.right_seg1;
		lzwAligns[ix].left_align2  = f.left_align2;   lzwAligns[ix].left_seg2  = f.left_seg2;
		lzwAligns[ix].right_align2 = f.right_align2;  lzwAligns[ix].right_seg2 = f.right_seg2;
		}

	b->segments     = lzwSegs;
	b->n_segments   = lzwSegsLen;
	b->alignments   = lzwAligns;
	b->n_alignments = lzwAlignsLen;
	b->rows         = rows;
	return true;
	}

//----------
//
// Speculation ahead of the anchor loop (the design's "speculate, then
// replay"):  while LASTZ extends anchor i, a pool of worker threads computes
// the two one-sided extensions of the anchors after it (up to lzwAheadN of
// them), nearest first, each under the earlier alignments known when it was
// queued and with the envelope of its sweep (what it asked them, what they
// answered).  routed_one_sided_align takes a computed result only
// for the very same call (sequences, lengths, scoring, direction, traceback
// size) and only when warpalign_ydrop_unaffected says the call's real earlier
// alignments would not have changed it;  any other call runs as before (a job
// no worker has started is dropped, not run twice).  LASTZ's own loop, its
// skip test and its order are unchanged, so the extra work (anchors LASTZ then
// skips) costs time, never output.  An anchor an earlier alignment contains is
// not queued, and a queued one is cancelled once one does;  an anchor within
// lzwDiagBand diagonals and lzwDeferBand positions of an earlier queued one waits
// until LASTZ has passed that one (it is likely inside its alignment).  There
// is no barrier:  a long extension holds up only the calls that need it.
// WARPALIGN_YDROP_AHEAD=N sets how many anchors run ahead (0 turns this off;
// default 255 with 8 cores or more, else 0).
//
//----------

#define lzwAheadMax  256
#define lzwScanMax   1024		// (anchors past i looked at, at most)
#define lzwDeferMax  1024
#define lzwDiagBand  2000
#define lzwPosBand   100000		// (new alignments this near a finished job re-check it)
#define lzwDeferBand 50000		// (H. pylori: 100000 made more anchors wait, 20000 wasted more work)

typedef struct lzwAheadSlot
	{
	u32					ix;			// (the anchor's index in msp[])
	unspos				pos1, pos2;
	warpalign_ydrop_job	job[2];		// (left, right;  bounds NULL)
	u64					ticket[2];
	int					live[2];	// (ticket neither taken nor cancelled)
	int					own[2];		// (queued under:  0 a block that is not the
									//  alignments then, 1 none (there were none),
									//  2 the block of the alignments then;  3 found
									//  to hold for the alignments at logAt)
	u32					logAt[2];	// (lzwLogLen when queued)
	} lzwAheadSlot;

typedef struct lzwDeferred
	{
	u32		ix;
	u32		blocker;				// (a queued anchor it is near)
	unspos	pos1, pos2;
	unspos	low1, high1, low2, high2;
	} lzwDeferred;

static warpalign_ydrop_ahead* lzwPool = NULL;
static lzwAheadSlot    lzwWin[lzwAheadMax];		// (queued anchors, any order)
static u32               lzwWinLen   = 0;
static lzwDeferred lzwDef[lzwDeferMax];
static u32               lzwDefLen   = 0;
static u32               lzwFrontier = 0;		// (next anchor not looked at yet)
static int               lzwAheadN   = -1;		// -1 => WARPALIGN_YDROP_AHEAD not read yet
#define lzwNewMax 16
static galign*           lzwNew[lzwNewMax];		// (alignments inserted since the last ensure)
static u32               lzwNewLen   = 0;

// every alignment the loop inserted, in order (rows only)
typedef struct lzwSpan { unspos pos1, end1; } lzwSpan;
static lzwSpan*    lzwLog      = NULL;
static u32               lzwLogLen   = 0;
static u32               lzwLogCap   = 0;
static int               lzwVerify   = -1;	// (WARPALIGN_YDROP_VERIFY=1:  replay those too)

// extensions queued while LASTZ searched for HSPs (see lzw_early_begin)

#define lzwEarlyMax      4096
#define lzwEarlySameDiag 100		// (H. pylori:  of the anchors the loop deferred within this many
								//  diagonals of their blocker, 99 were extended and 610 skipped)
typedef struct lzwEarlyAnchor
	{
	unspos				pos1, pos2;		// (the anchor:  the HSP's peak)
	score				s;
	int					queued;			// (its jobs submitted)
	int					live[2];		// (ticket neither taken nor cancelled)
	u64					ticket[2];
	warpalign_ydrop_job	job[2];			// (left, right;  bounds NULL)
	} lzwEarlyAnchor;

static lzwEarlyAnchor	lzwEarly[lzwEarlyMax];
static u32				lzwEarlyLen    = 0;
static int				lzwEarlyOn     = -1;		// -1 => WARPALIGN_YDROP_EARLY not read yet
static int				lzwEarlySearch = false;	// (taking HSPs from the search)
static int				lzwEarlyLive   = false;	// (its jobs may be in the pool)
static alignio			lzwEarlyIo;				// (the io fields gapped_extend will set)
static seq*				lzwEarlySeq1;
static seq*				lzwEarlySeq2;
static u8*				lzwEarlyRev2   = NULL;	// (the query's reverse, until finish_one_strand takes it)
static unspos			lzwEarlyScan   = 0;		// (the search's query position, at least)
static unspos			lzwEarlyFlushedAt = 0;

static int lzw_early_adopt (lzwAheadSlot* w, u32 side, warpalign_ydrop_job* constrained, int haveBounds);

// once the loop starts the table is sorted by position:  the first entry at
// (pos1,pos2) or after it

static u32 lzw_early_at (unspos pos1, unspos pos2);
static u32 lzw_early_at (unspos pos1, unspos pos2)
	{
	u32 lo = 0, hi = lzwEarlyLen;
	while (lo < hi)
		{
		u32 mid = lo + (hi-lo)/2;
		lzwEarlyAnchor* e = &lzwEarly[mid];
		if ((e->pos1 < pos1) || ((e->pos1 == pos1) && (e->pos2 < pos2))) lo = mid+1;  else hi = mid;
		}
	return lo;
	}

// whether the left job of the anchor at (pos1,pos2) was queued while LASTZ searched

static int lzw_early_left (unspos pos1, unspos pos2);
static int lzw_early_left (unspos pos1, unspos pos2)
	{
	u32 ix;
	for (ix=lzw_early_at (pos1, pos2) ; ix<lzwEarlyLen ; ix++)
		{
		if ((lzwEarly[ix].pos1 != pos1) || (lzwEarly[ix].pos2 != pos2)) break;
		if (lzwEarly[ix].live[0]) return true;
		}
	return false;
	}

// the context of the last ensure, for queueing anchors past the frontier
// later (valid until the next insert)

#define lzwAheadSoon 64			// (anchors ahead an ensure queues, at least)
static u32				lzwAhead = 0;		// (queued anchors past i)
static int				lzwFillLive = false;
static alignio			lzwFillCtx;
static galign**			lzwFillMsp;
static u32				lzwFillI, lzwFillEnd;
static galign*			lzwFillObi;
static galign*			lzwFillOed;
static partition*		lzwFillPart;
static seq*				lzwFillSeq1;
static seq*				lzwFillSeq2;

static int lzw_ahead_fill_one (void);

static void lzw_fill_job (alignio* io, int reversed, u8* A, u8* B, unspos M, unspos N,
                         int trimToPeak, warpalign_ydrop_job* job);
static void lzw_fill_job (alignio* io, int reversed, u8* A, u8* B, unspos M, unspos N,
                         int trimToPeak, warpalign_ydrop_job* job)
	{
	// LASTZ's A and B are 1-based (A[1..M]);  warpalign's are 0-based

	job->a            = A + 1;
	job->m            = M;
	job->b            = B + 1;
	job->n            = N;
	job->sub          = (const int32_t*) &io->scoring->sub[0][0];
	job->gap_open     = io->scoring->gapOpen;
	job->gap_extend   = io->scoring->gapExtend;
	job->y_drop       = io->yDrop;
	job->trim_to_peak = trimToPeak;
	job->reversed     = reversed;
	job->tb_size      = io->tb->size;
	job->bounds       = NULL;
	}

static int lzw_same_job (const warpalign_ydrop_job* x, const warpalign_ydrop_job* y);
static int lzw_same_job (const warpalign_ydrop_job* x, const warpalign_ydrop_job* y)
	{
	return (x->a == y->a) && (x->m == y->m) && (x->b == y->b) && (x->n == y->n)
	    && (x->sub == y->sub) && (x->gap_open == y->gap_open)
	    && (x->gap_extend == y->gap_extend) && (x->y_drop == y->y_drop)
	    && (x->trim_to_peak == y->trim_to_peak) && (x->reversed == y->reversed)
	    && (x->tb_size == y->tb_size);
	}

// the queued job equal to job, if any (its ticket is then the caller's)

static int lzw_ahead_find (const warpalign_ydrop_job* job, u64* ticket, int* own, u32* logAt);
static int lzw_ahead_find (const warpalign_ydrop_job* job, u64* ticket, int* own, u32* logAt)
	{
	u32 ix, side;
	for (ix=0 ; ix<lzwWinLen ; ix++)
		for (side=0 ; side<2 ; side++)
			{
			if ((!lzwWin[ix].live[side]) || (!lzw_same_job (&lzwWin[ix].job[side], job))) continue;
			lzwWin[ix].live[side] = false;
			*ticket = lzwWin[ix].ticket[side];
			*own    = lzwWin[ix].own[side];
			*logAt  = lzwWin[ix].logAt[side];
			return true;
			}
	return false;
	}

// lzw_untouched--
//	Whether no alignment inserted since lzwLog[logAt] meets the rows (seq1
//	positions, with a margin of one on each side) of a sweep from anchor1 that
//	entered the given rows.  LASTZ's bound and mask logic for those rows reads
//	only alignments that meet them (the neighbours at the anchor's row, the
//	aboveList or belowList up to the last row, masks of those) and the links
//	each alignment got when it was inserted, which name alignments that
//	existed then;  so alignments that do not meet the rows change none of its
//	answers there, and a sweep computed under the alignments known when it was
//	queued (its envelope) is the call's.

static int lzw_untouched (u32 logAt, unspos anchor1, int reversed, u32 rows);
static int lzw_untouched (u32 logAt, unspos anchor1, int reversed, u32 rows)
	{
	u64 lo, hi;
	u32 k;

	if (!reversed) { lo = (anchor1 >= 1)? anchor1-1 : 0;                        hi = (u64) anchor1 + rows + 2; }
	          else { lo = ((u64) anchor1 >= (u64) rows+2)? anchor1-rows-2 : 0;  hi = (u64) anchor1 + 1; }
	for (k=logAt ; k<lzwLogLen ; k++)
		{ if (((u64) lzwLog[k].pos1 <= hi) && ((u64) lzwLog[k].end1 >= lo)) return false; }
	return true;
	}

// whether a result was exact for the alignments known at its logAt:  it ran
// under none (there were none) or under their block (not a partial one), or
// was found to hold for them

static int lzw_known_exact (int own, int ranUnder);
static int lzw_known_exact (int own, int ranUnder)
	{
	return (own == 1) || (own == 3) || ((own == 2) && (ranUnder));
	}

static void lzw_ahead_drop (u32 winIx);
static void lzw_ahead_drop (u32 winIx)
	{
	u32 side;
	for (side=0 ; side<2 ; side++)
		{
		if (!lzwWin[winIx].live[side]) continue;
		warpalign_ydrop_ahead_cancel (lzwPool, lzwWin[winIx].ticket[side]);
		lzwSpecCancelled++;
		}
	lzwWin[winIx] = lzwWin[--lzwWinLen];
	}

static void lzw_ahead_end (void);
static void lzw_ahead_end (void)
	{
	if (lzwPool != NULL) warpalign_ydrop_ahead_drain (lzwPool);
	lzwWinLen = lzwDefLen = lzwFrontier = lzwNewLen = lzwLogLen = 0;
	lzwFillLive = false;
	lzwEarlyLen = 0;  lzwEarlySearch = lzwEarlyLive = false;
	}

// an anchor loop starts or ends:  nothing queued survives it (the target may
// be masked between gapped_extend calls)

static double lzwLoopStart = -1;

static void lzw_early_loop_begin (void);

static int lzwEarlyNoneBefore = false;	// (no alignment existed when the loop started)

static void lzw_loop_begin (galign* orderBegInc)
	{
	lzwEarlyNoneBefore = (orderBegInc == NULL);
	if (lzwEarlyLive)
		{ // (the pool holds only the jobs queued while LASTZ searched)
		lzwWinLen = lzwDefLen = lzwFrontier = lzwNewLen = lzwLogLen = 0;
		lzwFillLive = false;
		lzw_early_loop_begin ();
		}
	else lzw_ahead_end ();
	// (the scratch memory a worker touched for this thread's own calls)
	if (lzwPool != NULL) warpalign_ydrop_ahead_adopt_scratch (lzwPool);
	lzwLoopStart = lzw_now ();
	}

static void lzw_loop_end (void)
	{
	lzw_ahead_end ();
	if (lzwLoopStart >= 0) lzwLoopSecs += lzw_now () - lzwLoopStart;
	lzwLoopStart = -1;
	}

// the jobs ydrop_align gives for an anchor and its limits (left, then right)

static void lzw_anchor_jobs (alignio* io, unspos anchor1, unspos anchor2,
                            unspos low1, unspos high1, unspos low2, unspos high2,
                            warpalign_ydrop_job* jobs);
static void lzw_anchor_jobs (alignio* io, unspos anchor1, unspos anchor2,
                            unspos low1, unspos high1, unspos low2, unspos high2,
                            warpalign_ydrop_job* jobs)
	{
	lzw_fill_job (io, true,
	             io->rev1 + io->len1 - anchor1 - 2, io->rev2 + io->len2 - anchor2 - 2,
	             (anchor1+1) - low1, (anchor2+1) - low2, io->trimToPeak, &jobs[0]);
	lzw_fill_job (io, false, io->seq1 + anchor1, io->seq2 + anchor2,
	             high1 - (anchor1+1), high2 - (anchor2+1), io->trimToPeak, &jobs[1]);
	}

// queue an anchor's jobs (both, or only the right one), each under the
// earlier alignments known now (the anchor's bounds, as the loop would find
// them now);  priorities follow LASTZ's order (anchor, then left before right)

static int lzw_ahead_queue (alignio* io, u32 ix, galign* mp, unspos a1, unspos a2,
                           unspos low1, unspos high1, unspos low2, unspos high2, int bothSides,
                           galign* orderBegInc, galign* orderEndDec);
static int lzw_ahead_queue (alignio* io, u32 ix, galign* mp, unspos a1, unspos a2,
                           unspos low1, unspos high1, unspos low2, unspos high2, int bothSides,
                           galign* orderBegInc, galign* orderEndDec)
	{
	lzwAheadSlot*			w = &lzwWin[lzwWinLen];
	warpalign_ydrop_bounds	bounds;
	warpalign_ydrop_job		job;
	warpalign_status		status;
	alignio					known = *io;
	galign					m;
	u32						side;

	if (mp != NULL)
		{ // (msp_left_right writes its neighbours into a copy)
		m = *mp;
		if (!msp_left_right (orderBegInc, &m)) return false;	// (contained)
		known.leftAlign  = m.leftAlign1;   known.leftSeg  = m.leftSeg1;
		known.rightAlign = m.rightAlign1;  known.rightSeg = m.rightSeg1;
		known.anchor1    = a1;             known.anchor2  = a2;
		get_above_below (&known, orderBegInc, orderEndDec);
		}

	lzwWinLen++;
	w->ix   = ix;
	w->pos1 = a1;
	w->pos2 = a2;
	lzw_anchor_jobs (io, a1, a2, low1, high1, low2, high2, w->job);
	for (side=0 ; side<2 ; side++)
		{
		w->live[side] = false;
		if ((side == 0) && (!bothSides)) continue;
		job = w->job[side];
		w->own[side] = 1;
		if (!lzw_unconstrained (&known, side == 0, job.m))
			{
			w->own[side] = 0;
			if (lzw_flatten_bounds (&known, side == 0, job.m, lzwDepth, &bounds))
				{ job.bounds = &bounds;  w->own[side] = 2; }
			}
		w->logAt[side] = lzwLogLen;
		w->live[side]  = true;
		if ((lzwEarlyLen > 0) && (lzw_early_adopt (w, side, &job, w->own[side] == 2))) continue;
		status = warpalign_ydrop_ahead_submit (lzwPool, &job, 2*(u64)ix + side, &w->ticket[side]);
		if (status != WARPALIGN_STATUS_OK)
			suicidef ("warpalign_ydrop_ahead_submit failed (status %d): %s",
			          (int) status, warpalign_last_error ());
		lzwSpecJobs++;
		}
	return true;
	}

// msp_left_right's "an earlier alignment contains this anchor" test, without
// its writes

static int lzw_contains (galign* a, unspos pos1, unspos pos2);
static int lzw_contains (galign* a, unspos pos1, unspos pos2)
	{
	lzwCachedAlign* c;
	aliseg* bp;
	sgnpos	x;
	u32		lo, hi;

	if ((a->pos1 > pos1) || (a->end1 < pos1)) return false;
	// (the first segment ending at pos1 or later, by a binary search of the
	// chain's copy:  ends do not decrease along a chain)
	c  = lzw_cached (a);
	lo = 0;  hi = c->count;
	while (lo < hi)
		{
		u32 mid = lo + (hi-lo)/2;
		if ((u64) lzwCacheSegs[c->start+mid].e1 < (u64) pos1) lo = mid+1;  else hi = mid;
		}
	bp = (lo < c->count)? lzwCacheSegPtr[c->start+lo] : NULL;
	if ((bp == NULL) || (bp->type == horzSeg)) return false;
	if (bp->type == diagSeg)
		x = signed_difference (bp->b2, pos2) + signed_difference (pos1, bp->b1);
	else
		x = signed_difference (bp->b2, pos2);
	return (x == 0);
	}

static int lzw_covered (galign* obi, unspos pos1, unspos pos2);
static int lzw_covered (galign* obi, unspos pos1, unspos pos2)
	{
	for ( ; (obi!=NULL)&&(obi->pos1<=pos1) ; obi=obi->next)
		{ if (lzw_contains (obi, pos1, pos2)) return true; }
	return false;
	}

// a queued anchor was not contained when queued, so only the alignments the
// loop inserted since (lzwNew) can contain it now (past lzwNewMax, every one is
// looked at)

static void lzw_ahead_inserted (galign* mp)
	{
	if (lzwPool == NULL) return;
	lzwFillLive = false;
	if (lzwNewLen < lzwNewMax) lzwNew[lzwNewLen] = mp;
	lzwNewLen++;
	if (lzwLogLen == lzwLogCap)
		{
		lzwLogCap = 2*lzwLogCap + 256;
		lzwLog    = realloc_or_die ("warpalign inserted", lzwLog, lzwLogCap * sizeof(lzwLog[0]));
		}
	lzwLog[lzwLogLen].pos1 = mp->pos1;
	lzwLog[lzwLogLen].end1 = mp->end1;
	lzwLogLen++;
	}

static int lzw_newly_covered (galign* orderBegInc, unspos pos1, unspos pos2);
static int lzw_newly_covered (galign* orderBegInc, unspos pos1, unspos pos2)
	{
	u32 k;
	if (lzwNewLen > lzwNewMax) return lzw_covered (orderBegInc, pos1, pos2);
	for (k=0 ; k<lzwNewLen ; k++)
		{ if (lzw_contains (lzwNew[k], pos1, pos2)) return true; }
	return false;
	}

// whether (a1,a2) lies within lzwPosBand positions of an alignment inserted
// since the last ensure, and within lzwDiagBand of its diagonals

static int lzw_near_new (unspos a1, unspos a2);
static int lzw_near_new (unspos a1, unspos a2)
	{
	s64	d = (s64) a1 - (s64) a2;
	u32	k;

	for (k=0 ; (k<lzwNewLen)&&(k<lzwNewMax) ; k++)
		{
		galign* a = lzwNew[k];
		s64 dBeg = (s64) a->pos1 - (s64) a->pos2;
		s64 dEnd = (s64) a->end1 - (s64) a->end2;
		s64 dLo  = ((dBeg < dEnd)? dBeg : dEnd) - lzwDiagBand;
		s64 dHi  = ((dBeg > dEnd)? dBeg : dEnd) + lzwDiagBand;
		if ((s64) a1 + lzwPosBand < (s64) a->pos1) continue;
		if ((s64) a1 > (s64) a->end1 + lzwPosBand) continue;
		if ((d >= dLo) && (d <= dHi)) return true;
		}
	return false;
	}

// a queued anchor's finished jobs that the earlier alignments known now would
// change are queued again now (under those), rather than run in the loop when
// LASTZ reaches them;  the check at the call stays as it is

static void lzw_ahead_requeue (alignio* io, lzwAheadSlot* w, galign* mp,
                              galign* orderBegInc, galign* orderEndDec);
static void lzw_ahead_requeue (alignio* io, lzwAheadSlot* w, galign* mp,
                              galign* orderBegInc, galign* orderEndDec)
	{
	warpalign_ydrop_bounds	bounds;
	warpalign_ydrop_job		job;
	warpalign_status		status;
	alignio					known = *io;
	galign					m;
	u32						side;
	int						check[2] = {false, false};
	int						ranUnder, holds;
	s64						rows;

	// (a finished job whose rows no alignment inserted since has met still
	// holds, as at the call:  see lzw_untouched)
	for (side=0 ; side<2 ; side++)
		{
		if (!w->live[side]) continue;
		rows = warpalign_ydrop_ahead_rows (lzwPool, w->ticket[side], &ranUnder);
		if (rows < 0) continue;
		check[side] = !(lzw_known_exact (w->own[side], ranUnder)
		             && lzw_untouched (w->logAt[side], w->pos1, side == 0, (u32) rows));
		}
	if ((!check[0]) && (!check[1])) return;

	m = *mp;	// (msp_left_right writes its neighbours into a copy)
	if (!msp_left_right (orderBegInc, &m)) return;	// (contained:  dropped at the next ensure)
	known.leftAlign  = m.leftAlign1;   known.leftSeg  = m.leftSeg1;
	known.rightAlign = m.rightAlign1;  known.rightSeg = m.rightSeg1;
	known.anchor1    = w->pos1;        known.anchor2  = w->pos2;
	get_above_below (&known, orderBegInc, orderEndDec);

	for (side=0 ; side<2 ; side++)
		{
		if (!check[side]) continue;
		job = w->job[side];
		if (lzw_unconstrained (&known, side == 0, job.m)) continue;
		if (!lzw_flatten_bounds (&known, side == 0, job.m, lzwDepth, &bounds)) continue;
		job.bounds = &bounds;
		holds = warpalign_ydrop_ahead_still_holds (lzwPool, w->ticket[side], &job);
		if (holds == 1)
			{ // (for the alignments known now)
			w->own[side]   = 3;
			w->logAt[side] = lzwLogLen;
			}
		if (holds != 0) continue;
		warpalign_ydrop_ahead_cancel (lzwPool, w->ticket[side]);
		status = warpalign_ydrop_ahead_submit (lzwPool, &job, 2*(u64)w->ix + side, &w->ticket[side]);
		if (status != WARPALIGN_STATUS_OK)
			suicidef ("warpalign_ydrop_ahead_submit failed (status %d): %s",
			          (int) status, warpalign_last_error ());
		w->own[side]   = 2;
		w->logAt[side] = lzwLogLen;
		lzwSpecRequeued++;
		}
	}

// the index of the last queued anchor in [i,k) near (a1,a2), or k if none

static u32 lzw_near_queued (u32 i, u32 k, unspos a1, unspos a2);
static u32 lzw_near_queued (u32 i, u32 k, unspos a1, unspos a2)
	{
	u32 ix, blocker = k;
	for (ix=0 ; ix<lzwWinLen ; ix++)
		{
		lzwAheadSlot* w = &lzwWin[ix];
		unspos dd, dp;
		if ((w->ix < i) || (w->ix >= k)) continue;
		if ((blocker != k) && (w->ix <= blocker)) continue;
		dd = (a1-a2 > w->pos1-w->pos2)? (a1-a2) - (w->pos1-w->pos2) : (w->pos1-w->pos2) - (a1-a2);
		dp = (a1 > w->pos1)? a1 - w->pos1 : w->pos1 - a1;
		if ((dd <= lzwDiagBand) && (dp <= lzwDeferBand)) blocker = w->ix;
		}
	return blocker;
	}

// lzw_pool_ready--
//	Whether extensions run ahead (WARPALIGN_YDROP_AHEAD);  if so, the pool is
//	started (once).

static int lzw_pool_ready (void);
static int lzw_pool_ready (void)
	{
	if (lzwAheadN < 0)
		{ // default: on with 8 cores or more (with fewer, the work wasted on
		  // anchors LASTZ then skips costs more than the parallelism gains)
		char* v    = getenv ("WARPALIGN_YDROP_AHEAD");
		char* dump = getenv ("WARPALIGN_YDROP_DUMP");
		if ((dump != NULL) && (*dump != 0))  lzwAheadN = 0;	// (a dump records each call;  empty:  none, as in the library)
		else if ((v != NULL) && (*v != 0))
			{
			char* end;
			long  n = strtol (v, &end, 10);
			if ((*end != 0) || (n < 0) || (n > lzwAheadMax-1))
				suicidef ("WARPALIGN_YDROP_AHEAD=%s: expected 0..%d anchors", v, lzwAheadMax-1);
			lzwAheadN = (int) n;
			}
		else lzwAheadN = (sysconf (_SC_NPROCESSORS_ONLN) >= 8)? lzwAheadMax-1 : 0;
		}
	if (lzwAheadN == 0) return false;
	if (lzwPool == NULL)
		{
		lzwPool = warpalign_ydrop_ahead_create (0);
		if (lzwPool == NULL)
			suicidef ("warpalign_ydrop_ahead_create failed: %s", warpalign_last_error ());
		}
	return true;
	}

// lzw_ahead_start--
//	Called by main once the options are parsed:  the workers start now and
//	ready their scratch memory while LASTZ reads and seeds, rather than during
//	the first anchor loop, whose first extensions are the largest.

void lzw_ahead_start (void)
	{
	lzw_pool_ready ();
	}

//----------
//
// Extensions queued while LASTZ searches for HSPs:  the anchor loop's first
// extensions are its largest (the top-scoring anchors of long similar
// regions), and without this the workers start them only when the loop does;
// the workers are idle during the search.  Each HSP the search collects is an
// anchor to be (its peak, as reduce_to_points will find it);  of those within
// lzwEarlySameDiag diagonals and lzwDeferBand positions of one another only the
// highest-scoring is kept (it likely contains the others), and a kept one is
// queued, under no earlier alignments, once the search has passed its
// neighbourhood, highest scores first.  That includes anchors the loop will
// defer behind a near one (see lzw_near_queued) which are then extended, not
// skipped:  their jobs are ready when the loop lets them go.  At the loop's
// start, jobs no worker has started are dropped;  lzw_ahead_queue takes the
// others for the anchor with the same jobs, as it would have queued them then:
// as they are when that anchor has no earlier alignment near, or no alignment
// meets the rows they entered, else only if they still hold for the
// alignments known then (warpalign_ydrop_ahead_still_holds).  The left
// extensions read the query's reverse, made here before the search and handed
// to finish_one_strand (lzw_early_query_rev).  Only for a query strand
// whose HSPs are its anchors as they are, without chores (lastz.c decides);
// WARPALIGN_YDROP_EARLY=0 turns this off.
//
//----------

static void lzw_early_drop (u32 ix);
static void lzw_early_drop (u32 ix)
	{
	u32 side;
	for (side=0 ; side<2 ; side++)
		{ if (lzwEarly[ix].live[side]) warpalign_ydrop_ahead_cancel (lzwPool, lzwEarly[ix].ticket[side]); }
	lzwEarly[ix] = lzwEarly[--lzwEarlyLen];
	}

// the jobs of the ones the search has passed (none can come near them now,
// but for an HSP reaching back past its seed)

static void lzw_early_flush (void);
static void lzw_early_flush (void)
	{
	warpalign_status status;
	unspos low1, high1, low2, high2;
	u32 ix, side;
	for (ix=0 ; ix<lzwEarlyLen ; ix++)
		{
		lzwEarlyAnchor* e = &lzwEarly[ix];
		if (e->queued) continue;
		if ((u64) lzwEarlyScan <= (u64) e->pos2 + lzwDeferBand + lzwDiagBand) continue;
		e->queued = true;
		// (the limits the loop will set for it:  its partitions')
		low1 = lzwEarlyIo.low1;  high1 = lzwEarlyIo.high1;  low2 = lzwEarlyIo.low2;  high2 = lzwEarlyIo.high2;
		if (lzwEarlySeq1->partition.p != NULL)
			{
			partition* p1 = lookup_partition_no_die (lzwEarlySeq1, e->pos1);
			if (p1 == NULL) continue;
			low1 = p1->sepBefore + 1;  high1 = p1->sepAfter;
			}
		if (lzwEarlySeq2->partition.p != NULL)
			{
			partition* p2 = lookup_partition_no_die (lzwEarlySeq2, e->pos2);
			if (p2 == NULL) continue;
			low2 = p2->sepBefore + 1;  high2 = p2->sepAfter;
			}
		if ((e->pos1 < low1) || (e->pos1+1 > high1) || (e->pos2 < low2) || (e->pos2+1 > high2)) continue;
		lzw_anchor_jobs (&lzwEarlyIo, e->pos1, e->pos2, low1, high1, low2, high2, e->job);
		for (side=0 ; side<2 ; side++)
			{
			// (after every job of the loop's:  higher scores first, as the loop)
			u64 priority = ((u64) 1 << 62) - ((e->s > 0)? (u64) e->s : 0);
			status = warpalign_ydrop_ahead_submit (lzwPool, &e->job[side], priority, &e->ticket[side]);
			if (status != WARPALIGN_STATUS_OK)
				suicidef ("warpalign_ydrop_ahead_submit failed (status %d): %s",
				          (int) status, warpalign_last_error ());
			e->live[side] = true;
			lzwEarlyJobs++;
			}
		}
	lzwEarlyFlushedAt = lzwEarlyScan;
	}

// lzw_early_begin--
//	Called by start_one_strand before the search, when lastz.c allows it (see
//	above);  seq1, rev1, scoring, yDrop, trimToPeak and tb are what
//	finish_one_strand will give gapped_extend.

void lzw_early_begin (seq* seq1, u8* rev1, seq* seq2, scoreset* scoring, score yDrop,
                            int trimToPeak, tback* tb)
	{
	lzw_early_end ();
	if (lzwEarlyOn < 0)
		{
		char* v = getenv ("WARPALIGN_YDROP_EARLY");
		lzwEarlyOn = !((v != NULL) && (strcmp (v, "0") == 0));
		}
	if ((!lzwEarlyOn) || (!lzw_pool_ready ())) return;
	if ((rev1 == NULL) || (tb == NULL)) return;
	lzwEarlyRev2 = (u8*) copy_reverse_of_string ((char*) seq2->v, seq2->len);
	lzwEarlySeq1 = seq1;  lzwEarlySeq2 = seq2;
	memset (&lzwEarlyIo, 0, sizeof(lzwEarlyIo));
	lzwEarlyIo.seq1 = seq1->v;  lzwEarlyIo.rev1 = rev1;
	lzwEarlyIo.seq2 = seq2->v;  lzwEarlyIo.rev2 = lzwEarlyRev2;
	lzwEarlyIo.low1 = 0;  lzwEarlyIo.len1 = lzwEarlyIo.high1 = seq1->len;
	lzwEarlyIo.low2 = 0;  lzwEarlyIo.len2 = lzwEarlyIo.high2 = seq2->len;
	lzwEarlyIo.scoring    = scoring;
	lzwEarlyIo.yDrop      = yDrop;
	lzwEarlyIo.trimToPeak = trimToPeak;
	lzwEarlyIo.tb         = tb;
	lzwEarlyLen = 0;  lzwEarlyScan = lzwEarlyFlushedAt = 0;
	lzwEarlySearch = lzwEarlyLive = true;
	}

// lzw_early_hsp--
//	Called by collect_hsps for each HSP it adds to the anchors (pos1, pos2
//	its start).

void lzw_early_hsp (unspos pos1, unspos pos2, unspos length, score s)
	{
	unspos	a1, a2;
	s64		d;
	u32		ix, low = 0;

	if (!lzwEarlySearch) return;
	if (pos2 + length > lzwEarlyScan) lzwEarlyScan = pos2 + length;
	if (lzwEarlyScan >= lzwEarlyFlushedAt + 1000) lzw_early_flush ();
	if (lzwEarlyLen == lzwEarlyMax)
		{
		for (ix=1 ; ix<lzwEarlyLen ; ix++) { if (lzwEarly[ix].s < lzwEarly[low].s) low = ix; }
		if (s <= lzwEarly[low].s) return;
		}

	a1 = pos1 + segment_peak (lzwEarlySeq1->v+pos1, lzwEarlySeq2->v+pos2, length, lzwEarlyIo.scoring);
	a2 = pos2 + (a1 - pos1);
	d  = (s64) a1 - (s64) a2;

	// (kept ones on nearly its diagonal, near:  one scoring at least as high
	// likely contains it, else it likely contains them)
	for (ix=0 ; ix<lzwEarlyLen ; ix++)
		{
		lzwEarlyAnchor* e = &lzwEarly[ix];
		s64 dd = d - ((s64) e->pos1 - (s64) e->pos2);
		s64 dp = (s64) a1 - (s64) e->pos1;
		if ((dd < -lzwEarlySameDiag) || (dd > lzwEarlySameDiag) || (dp < -lzwDeferBand) || (dp > lzwDeferBand)) continue;
		if (e->s >= s) return;
		}
	for (ix=0 ; ix<lzwEarlyLen ; )
		{
		lzwEarlyAnchor* e = &lzwEarly[ix];
		s64 dd = d - ((s64) e->pos1 - (s64) e->pos2);
		s64 dp = (s64) a1 - (s64) e->pos1;
		if ((dd < -lzwEarlySameDiag) || (dd > lzwEarlySameDiag) || (dp < -lzwDeferBand) || (dp > lzwDeferBand)) ix++;
		else lzw_early_drop (ix);
		}
	if (lzwEarlyLen == lzwEarlyMax)
		{
		for (ix=1,low=0 ; ix<lzwEarlyLen ; ix++) { if (lzwEarly[ix].s < lzwEarly[low].s) low = ix; }
		lzw_early_drop (low);
		}

	memset (&lzwEarly[lzwEarlyLen], 0, sizeof(lzwEarly[0]));
	lzwEarly[lzwEarlyLen].pos1 = a1;
	lzwEarly[lzwEarlyLen].pos2 = a2;
	lzwEarly[lzwEarlyLen].s    = s;
	lzwEarlyLen++;
	}

// the search is over and the loop starts:  jobs no worker started are
// dropped (the loop queues what it needs in its own order), the rest wait
// for lzw_ahead_queue

static int lzw_early_by_pos (const void* x, const void* y);
static int lzw_early_by_pos (const void* x, const void* y)
	{
	const lzwEarlyAnchor* a = (const lzwEarlyAnchor*) x;
	const lzwEarlyAnchor* b = (const lzwEarlyAnchor*) y;
	if (a->pos1 != b->pos1) return (a->pos1 < b->pos1)? -1 : 1;
	if (a->pos2 != b->pos2) return (a->pos2 < b->pos2)? -1 : 1;
	return 0;
	}

static void lzw_early_loop_begin (void)
	{
	u32 ix, side;
	lzwEarlySearch = false;
	for (ix=0 ; ix<lzwEarlyLen ; )
		{
		lzwEarlyAnchor* e = &lzwEarly[ix];
		for (side=0 ; side<2 ; side++)
			{
			if ((e->live[side]) && (warpalign_ydrop_ahead_cancel_queued (lzwPool, e->ticket[side]) == 1))
				{ e->live[side] = false;  lzwEarlyUnstarted++; }
			}
		if ((e->live[0]) || (e->live[1])) ix++;
		else lzwEarly[ix] = lzwEarly[--lzwEarlyLen];
		}
	qsort (lzwEarly, lzwEarlyLen, sizeof(lzwEarly[0]), lzw_early_by_pos);
	}

// lzw_early_adopt--
//	Give w's job on this side the ticket of the same job queued while LASTZ
//	searched, if there is one and it is (or may be, when no earlier alignment
//	is near) the job's result under the alignments known now;  job carries
//	their bounds when haveBounds.  An early job that would not do is cancelled.

static int lzw_early_adopt (lzwAheadSlot* w, u32 side, warpalign_ydrop_job* job, int haveBounds);
static int lzw_early_adopt (lzwAheadSlot* w, u32 side, warpalign_ydrop_job* job, int haveBounds)
	{
	lzwEarlyAnchor* e = NULL;
	u64 ticket;
	u32 ix;

	for (ix=lzw_early_at (w->pos1, w->pos2) ; ix<lzwEarlyLen ; ix++)
		{
		e = &lzwEarly[ix];
		if ((e->pos1 != w->pos1) || (e->pos2 != w->pos2)) return false;
		if ((e->live[side]) && (lzw_same_job (&e->job[side], &w->job[side]))) break;
		}
	if (ix == lzwEarlyLen) return false;
	ticket = e->ticket[side];
	e->live[side] = false;

	// (no earlier alignment near:  it ran as the loop would queue it now)
	if (w->own[side] == 1)
		{ w->ticket[side] = ticket;  lzwEarlyTaken++;  return true; }

	// (every alignment is in the log, and none meets its rows:  see lzw_untouched)
	if (lzwEarlyNoneBefore)
		{
		int ranUnder;
		s64 rows = warpalign_ydrop_ahead_rows (lzwPool, ticket, &ranUnder);
		if ((rows >= 0) && (lzw_untouched (0, w->pos1, side == 0, (u32) rows)))
			{
			w->ticket[side] = ticket;
			w->own[side]    = 1;
			w->logAt[side]  = 0;
			lzwEarlyTaken++;
			return true;
			}
		}
	if ((haveBounds) && (warpalign_ydrop_ahead_still_holds (lzwPool, ticket, job) == 1))
		{
		w->ticket[side] = ticket;
		w->own[side]    = 3;
		lzwEarlyTaken++;
		return true;
		}
	warpalign_ydrop_ahead_cancel (lzwPool, ticket);
	return false;
	}

// lzw_early_query_rev--
//	Called by finish_one_strand for the query's reverse:  the copy made before
//	the search (the caller frees it), or NULL when there is none or the query
//	has changed since (then the jobs reading it are ended first).

u8* lzw_early_query_rev (seq* seq2)
	{
	u8*		rev = lzwEarlyRev2;
	unspos	ix;

	if (rev == NULL) return NULL;
	if ((seq2 != lzwEarlySeq2) || (seq2->v != lzwEarlyIo.seq2) || (seq2->len != lzwEarlyIo.len2))
		goto changed;
	for (ix=0 ; ix<seq2->len ; ix++)
		{ if (rev[ix] != seq2->v[seq2->len-1-ix]) goto changed; }
	lzwEarlyRev2 = NULL;
	return rev;

changed:
	lzw_early_end ();
	return NULL;
	}

// lzw_early_end--
//	Called once gapped extension of a strand is over, or its search aborted:
//	no job queued while it searched reads the sequences afterwards.

void lzw_early_end (void)
	{
	if (lzwEarlyLive) lzw_ahead_end ();
	lzwEarlyLen = 0;  lzwEarlySearch = lzwEarlyLive = false;
	if (lzwEarlyRev2 != NULL)
		{ free_if_valid ("warpalign query reverse", lzwEarlyRev2);  lzwEarlyRev2 = NULL; }
	}

static void lzw_ahead_ensure_now (alignio* io, galign** msp, u32 i, u32 endIx, galign* orderBegInc,
                             galign* orderEndDec, partition* batchPart, seq* seq1, seq* seq2);
static void lzw_ahead_ensure (alignio* io, galign** msp, u32 i, u32 endIx, galign* orderBegInc,
                                    galign* orderEndDec, partition* batchPart, seq* seq1, seq* seq2)
	{
	double t0 = (lzwStats > 0)? lzw_now () : 0;
	lzw_ahead_ensure_now (io, msp, i, endIx, orderBegInc, orderEndDec, batchPart, seq1, seq2);
	if (lzwStats > 0) lzwQueueSecs += lzw_now () - t0;
	}

static void lzw_ahead_ensure_now (alignio* io, galign** msp, u32 i, u32 endIx, galign* orderBegInc,
                             galign* orderEndDec, partition* batchPart, seq* seq1, seq* seq2)
	{
	u32		ix, ahead, found;

	if (!lzw_pool_ready ()) return;
	lzw_read_depth ();

	// anchors LASTZ has passed (or skipped) need nothing more

	for (ix=0 ; ix<lzwWinLen ; )
		{ if (lzwWin[ix].ix < i) lzw_ahead_drop (ix);  else ix++; }
	for (ix=0 ; ix<lzwDefLen ; )
		{ if (lzwDef[ix].ix <= i) lzwDef[ix] = lzwDef[--lzwDefLen];  else ix++; }
	if (lzwFrontier <= i) lzwFrontier = i+1;

	// anchor i itself:  LASTZ runs its left half now (unless it was queued
	// while LASTZ searched), a worker its right half

	for (ix=0,found=false ; (ix<lzwWinLen)&&(!found) ; ix++) found = (lzwWin[ix].ix == i);
	if (!found)
		lzw_ahead_queue (io, i, NULL, io->anchor1, io->anchor2, io->low1, io->high1, io->low2, io->high2,
		                lzw_early_left (io->anchor1, io->anchor2), orderBegInc, orderEndDec);

	// queued anchors an earlier alignment now contains

	for (ix=0 ; ix<lzwWinLen ; )
		{
		if ((lzwWin[ix].ix > i) && (lzw_newly_covered (orderBegInc, lzwWin[ix].pos1, lzwWin[ix].pos2)))
			lzw_ahead_drop (ix);
		else ix++;
		}
	for (ix=0 ; ix<lzwWinLen ; ix++)
		{
		if ((lzwWin[ix].ix > i) && (lzw_near_new (lzwWin[ix].pos1, lzwWin[ix].pos2)))
			lzw_ahead_requeue (io, &lzwWin[ix], msp[lzwWin[ix].ix], orderBegInc, orderEndDec);
		}
	lzwNewLen = 0;
	for (ix=0,ahead=0 ; ix<lzwWinLen ; ix++) ahead += (lzwWin[ix].ix > i);

	// anchors that waited for one LASTZ has now passed

	for (ix=0 ; (ix<lzwDefLen) && (ahead<(u32)lzwAheadN) ; )
		{
		lzwDeferred* d = &lzwDef[ix];
		if (d->blocker >= i) { ix++;  continue; }
		if (lzw_covered (orderBegInc, d->pos1, d->pos2))
			{ *d = lzwDef[--lzwDefLen];  continue; }
		d->blocker = lzw_near_queued (i, d->ix, d->pos1, d->pos2);
		if (d->blocker != d->ix) { ix++;  continue; }
		ahead += lzw_ahead_queue (io, d->ix, msp[d->ix], d->pos1, d->pos2, d->low1, d->high1, d->low2, d->high2,
		                         true, orderBegInc, orderEndDec);
		*d = lzwDef[--lzwDefLen];
		}

	// the following anchors:  enough now that the workers have some, the rest
	// while the loop waits for a result (see lzw_ahead_fill)

	lzwAhead    = ahead;
	lzwFillCtx  = *io;
	lzwFillMsp  = msp;		lzwFillI    = i;			lzwFillEnd  = endIx;
	lzwFillObi  = orderBegInc;	lzwFillOed  = orderEndDec;
	lzwFillPart = batchPart;	lzwFillSeq1 = seq1;		lzwFillSeq2 = seq2;
	lzwFillLive = true;
	while ((lzwAhead < lzwAheadSoon) && (lzw_ahead_fill_one ())) ;
	}

// lzw_ahead_fill_one--
//	Look at the next anchor past the frontier, with the limits the loop would
//	set for it, and queue it (or defer it behind a near queued one);  false
//	when there is nothing more to look at until the next ensure.  The
//	alignments do not change between an ensure and the next insert, so
//	queueing an anchor while the loop waits for a result queues it as the
//	ensure would have.

static int lzw_ahead_fill_one (void)
	{
	galign*		mp;
	unspos		a1, a2, low1, high1, low2, high2;
	partition*	p1 = lzwFillPart, *p2;
	u32			k, blocker;

	if ((!lzwFillLive) || (lzwFrontier >= lzwFillEnd) || (lzwFrontier >= lzwFillI+lzwScanMax)
	 || (lzwAhead >= (u32) lzwAheadN))
		return false;
	k  = lzwFrontier++;
	mp = lzwFillMsp[k];
	a1 = mp->pos1;  a2 = mp->pos2;
	low1 = lzwFillCtx.low1;  high1 = lzwFillCtx.high1;  low2 = lzwFillCtx.low2;  high2 = lzwFillCtx.high2;
	if ((p1 == NULL) && (lzwFillSeq1->partition.p != NULL))
		p1 = lookup_partition_no_die (lzwFillSeq1, a1);
	if (p1 != NULL)
		{ low1 = p1->sepBefore + 1;  high1 = p1->sepAfter; }
	else if (lzwFillSeq1->partition.p != NULL) return true;
	if (lzwFillSeq2->partition.p != NULL)
		{
		p2 = lookup_partition_no_die (lzwFillSeq2, a2);
		if (p2 == NULL) return true;
		low2 = p2->sepBefore + 1;  high2 = p2->sepAfter;
		}
	if (lzwFillSeq2->choresFile != NULL)
		{
		interval tInt = lzwFillSeq2->chore.targetInterval;
		interval qInt = lzwFillSeq2->chore.queryInterval;
		if (tInt.s > low1)  low1  = tInt.s;
		if (tInt.e < high1) high1 = tInt.e;
		if (qInt.s > low2)  low2  = qInt.s;
		if (qInt.e < high2) high2 = qInt.e;
		}
	if ((a1 < low1) || (a1+1 > high1) || (a2 < low2) || (a2+1 > high2)) return true;
	if (lzw_covered (lzwFillObi, a1, a2)) return true;

	blocker = lzw_near_queued (lzwFillI, k, a1, a2);
	if (blocker != k)
		{
		if (lzwDefLen < lzwDeferMax)
			{
			lzwDeferred* d = &lzwDef[lzwDefLen++];
			d->ix = k;  d->blocker = blocker;  d->pos1 = a1;  d->pos2 = a2;
			d->low1 = low1;  d->high1 = high1;  d->low2 = low2;  d->high2 = high2;
			}
		return true;
		}
	lzwAhead += lzw_ahead_queue (&lzwFillCtx, k, mp, a1, a2, low1, high1, low2, high2, true,
	                           lzwFillObi, lzwFillOed);
	return true;
	}

// while the loop would wait for ticket's result, queue more anchors ahead

static void lzw_ahead_fill_while_waiting (u64 ticket);
static void lzw_ahead_fill_while_waiting (u64 ticket)
	{
	double t0 = (lzwStats > 0)? lzw_now () : 0;
	while ((!warpalign_ydrop_ahead_finished (lzwPool, ticket)) && (lzw_ahead_fill_one ())) ;
	if (lzwStats > 0) lzwFillSecs += lzw_now () - t0;
	}

static score routed_one_sided_align
   (alignio*	io,
	int			reversed,
	u8*			A,
	u8*			B,
	unspos		M,
	unspos		N,
	int			trimToPeak,
	editscript** script,
	unspos*		_end1,
	unspos*		_end2)
	{
	warpalign_ydrop_job		job;
	warpalign_ydrop_bounds	bounds;
	warpalign_ydrop_result	res;
	warpalign_status		status;
	int						constrained;
	u32						depth, opIx;
	score					s;
	u64						ticket;
	int						own;
	u32						logAt;
	int						spot = 0;	// (lzwSpotCalls' index)
	double					spotStart;

	if (lzwStats < 0)
		{
		char* v = getenv ("WARPALIGN_STATS");
		lzwStats = ((v != NULL) && (strcmp (v, "1") == 0));
		if (lzwStats) atexit (lzw_report_stats);
		}
	lzw_read_depth ();

	if (lzwCtx == NULL)
		{
		lzwCtx = warpalign_ctx_create_cpu ();	// (one job a call: a GPU would only add its start)
		if (lzwCtx == NULL)
			suicidef ("warpalign_ctx_create_cpu failed: %s", warpalign_last_error ());
		}

	lzw_fill_job (io, reversed, A, B, M, N, trimToPeak, &job);

	// a constrained call carries the alignments near its anchor, and deeper
	// copies while its sweep goes on past them (see lzw_flatten_bounds)

	constrained = !lzw_unconstrained (io, reversed, M);

	// a result computed ahead, if the earlier alignments leave it as it is

	if ((lzwPool != NULL) && (lzw_ahead_find (&job, &ticket, &own, &logAt)))
		{
		warpalign_ydrop_envelope* env;
		double t0;
		lzw_ahead_fill_while_waiting (ticket);
		t0 = lzw_now ();
		status = warpalign_ydrop_ahead_take (lzwPool, ticket, &res, &env);
		lzwWaitSecs += lzw_now () - t0;
		if (status != WARPALIGN_STATUS_OK)
			suicidef ("warpalign_ydrop_ahead_take failed (status %d): %s",
			          (int) status, warpalign_last_error ());
		spot = 1;
		if (env == NULL)
			lzwSpecNotStarted++;
		else
			{
			// (a sweep the traceback memory cut short is LASTZ's result too, with
			// its report)
			int trunc = (res.truncated == WARPALIGN_YDROP_TRUNC_MIDWAY);
			int ok = (res.truncated == 0) || (trunc);
			if ((ok) && (constrained))
				{
				double t1 = (lzwStats > 0)? lzw_now () : 0;
				int ranUnder, untouched = false;
				u32 rows = warpalign_ydrop_envelope_rows (env, &ranUnder);
				if ((lzw_known_exact (own, ranUnder))
				 && (lzw_untouched (logAt, io->anchor1, reversed, rows)))
					{ untouched = true;  lzwSpecUntouched++; }
				if (lzwVerify < 0)
					{
					char* v = getenv ("WARPALIGN_YDROP_VERIFY");
					lzwVerify = ((v != NULL) && (strcmp (v, "1") == 0));
					}
				if ((!untouched) || (lzwVerify))
					{
					job.bounds = &bounds;
					ok = lzw_flatten_bounds (io, reversed, M, lzwDepth, &bounds)
					  && warpalign_ydrop_unaffected (env, &job);
					if ((untouched) && (!ok))
						suicidef ("warpalign: a result taken without a replay fails it (anchor %u)",
						          (unsigned) io->anchor1);
					}
				if (lzwStats > 0) lzwCheckSecs += lzw_now () - t1;
				}
			warpalign_ydrop_envelopes_free (&env, 1);
			if (ok)
				{
				if (trunc)
					{
					lzw_report_truncation (io, reversed, res.end1, res.end2);
					lzwTruncated++;
					}
				for (opIx=0 ; opIx<res.n_ops ; opIx++)
					edit_script_add (script, edit_op_operation (res.ops[opIx]),
					                         edit_op_repeat    (res.ops[opIx]));
				*(_end1) = res.end1;
				*(_end2) = res.end2;
				s = res.score;
				warpalign_ydrop_results_free (&res, 1);
				lzwSpecHits++;
				lzwRouted++;
				if (constrained) lzwConstrained++;
				return s;
				}
			warpalign_ydrop_results_free (&res, 1);
			lzwSpecRejected++;
			spot = 2;
			}
		}

	spotStart = (lzwPool != NULL)? lzw_now () : 0;
	job.bounds  = (constrained)? &bounds : NULL;
	for (depth=lzwDepth ; ; depth*=4)
		{
		if ((constrained) && (!lzw_flatten_bounds (io, reversed, M, depth, &bounds)))
			{ lzwUnroutable++;  goto run_original; }
		status = warpalign_ydrop_batch (lzwCtx, &job, 1, &res);
		if (status != WARPALIGN_STATUS_OK)
			suicidef ("warpalign_ydrop_batch failed (status %d): %s",
			          (int) status, warpalign_last_error ());
		if (res.truncated != WARPALIGN_YDROP_TRUNC_BOUNDS) break;
		lzwDeeper++;
		}

	if ((res.truncated != 0) && (res.truncated != WARPALIGN_YDROP_TRUNC_MIDWAY))
		{ // (the first row does not fit:  LASTZ dies with its own message)
		warpalign_ydrop_results_free (&res, 1);
		lzwUnroutable++;
		goto run_original;
		}
	if (res.truncated == WARPALIGN_YDROP_TRUNC_MIDWAY)
		{
		lzw_report_truncation (io, reversed, res.end1, res.end2);
		lzwTruncated++;
		}

	// rebuild the edit script exactly as the traceback would have (the ops
	// are its op[], maximal runs in traceback order)

	for (opIx=0 ; opIx<res.n_ops ; opIx++)
		edit_script_add (script, edit_op_operation (res.ops[opIx]),
		                         edit_op_repeat    (res.ops[opIx]));
	*(_end1) = res.end1;
	*(_end2) = res.end2;
	s = res.score;
	warpalign_ydrop_results_free (&res, 1);
	lzwRouted++;
	if (constrained) lzwConstrained++;
	if (lzwPool != NULL)
		{
		lzwSpotCalls[spot]++;
		lzwSpotSecs[spot] += lzw_now () - spotStart;
		}
	return s;

run_original:
	s = ydrop_one_sided_align (io, reversed, A, B, M, N, trimToPeak, script, _end1, _end2);
	if (lzwPool != NULL)
		{ // (an unroutable call)
		lzwSpotCalls[3]++;
		lzwSpotSecs[3] += lzw_now () - spotStart;
		}
	return s;
	}

#endif // lzwRouting
