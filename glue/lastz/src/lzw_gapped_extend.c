//-------+---------+---------+---------+---------+---------+---------+--------=
//
// File: lzw_gapped_extend.c
//
//----------
//
// lzw_gapped_extend--
//	warpalign's glue for gapped_extend.c, included at its end (so that it
//	reaches that file's statics).  Only in the build configuration
//	lzw_glue.h routes.
//
//	ydrop_align's two ydrop_one_sided_align calls go through
//	routed_one_sided_align:  one call of libwarpalign's y-drop schedule
//	(warpalign_ydrop_schedule_extend) gives exactly what ydrop_one_sided_align
//	would, and the score, end1/end2 and edit script are rebuilt from it.  The
//	schedule decides what runs ahead of the anchor loop, when a call may take a
//	result computed ahead and what runs in place (see src/ydrop/schedule.rs
//	and docs/ydrop.md);  this file only adapts LASTZ's types to it:  the jobs
//	of an anchor under the limits the loop sets (lzw_anchor_jobs), the earlier
//	alignments a call can reach as a flat block (lzw_flatten_bounds),
//	containment of an anchor by an alignment (lzw_contains), and LASTZ's
//	truncation report.  The hooks the patches add (lzw_loop_begin,
//	lzw_ahead_ensure, lzw_ahead_inserted, lzw_early_*) hand the schedule the
//	loop's events and keep the LASTZ context its questions need.
//
//	A call whose links break LASTZ's own invariant (a segment pointer that is
//	not a segment of the alignment it comes with), and one whose traceback
//	memory cannot hold the first row (LASTZ dies with its own message), runs
//	the original.
//
//----------

#ifdef lzwRouting

static warpalign_ydrop_schedule* lzw_schedule (void);

// lzw_check--
//	A schedule call that fails is a bug or a bad setting:  LASTZ dies with
//	warpalign's message.

static void lzw_check (warpalign_status status);
static void lzw_check (warpalign_status status)
	{
	if (status != WARPALIGN_STATUS_OK)
		suicidef ("%s (status %d)", warpalign_last_error (), (int) status);
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


// the LASTZ context of the schedule's questions

static alignio*   lzwCallIo = NULL;	// (the routed call's)
static alignio    lzwLoopIo;		// (the ensure's, for the anchors after it)
static alignio    lzwKnown;			// (the anchor lzw_host_know named)
static galign**   lzwMsp;
static u32        lzwCurrent;
static galign*    lzwObi;
static galign*    lzwOed;
static partition* lzwPart;
static seq*       lzwSeq1;
static seq*       lzwSeq2;

static alignio    lzwEarlyIo;		// (the io fields gapped_extend will set)
static seq*       lzwEarlySeq1;
static seq*       lzwEarlySeq2;
static u8*        lzwEarlyRev2 = NULL;	// (the query's reverse, until finish_one_strand takes it)


//----------
//
// The schedule's host:  what only LASTZ's data answers.
//
//----------

// anchor k of the loop, with the limits the loop will set for it:  0 when
// the loop skips it (outside them, or an earlier alignment contains it)

static int32_t lzw_host_anchor (void* ctx, uint32_t k, warpalign_ydrop_anchor* out);
static int32_t lzw_host_anchor (void* ctx, uint32_t k, warpalign_ydrop_anchor* out)
	{
	galign*		mp = lzwMsp[k];
	unspos		a1 = mp->pos1, a2 = mp->pos2, low1, high1, low2, high2;
	partition*	p1 = lzwPart, *p2;

	(void) ctx;
	low1 = lzwLoopIo.low1;  high1 = lzwLoopIo.high1;  low2 = lzwLoopIo.low2;  high2 = lzwLoopIo.high2;
	if ((p1 == NULL) && (lzwSeq1->partition.p != NULL))
		p1 = lookup_partition_no_die (lzwSeq1, a1);
	if (p1 != NULL)
		{ low1 = p1->sepBefore + 1;  high1 = p1->sepAfter; }
	else if (lzwSeq1->partition.p != NULL) return 0;
	if (lzwSeq2->partition.p != NULL)
		{
		p2 = lookup_partition_no_die (lzwSeq2, a2);
		if (p2 == NULL) return 0;
		low2 = p2->sepBefore + 1;  high2 = p2->sepAfter;
		}
	if (lzwSeq2->choresFile != NULL)
		{
		interval tInt = lzwSeq2->chore.targetInterval;
		interval qInt = lzwSeq2->chore.queryInterval;
		if (tInt.s > low1)  low1  = tInt.s;
		if (tInt.e < high1) high1 = tInt.e;
		if (qInt.s > low2)  low2  = qInt.s;
		if (qInt.e < high2) high2 = qInt.e;
		}
	if ((a1 < low1) || (a1+1 > high1) || (a2 < low2) || (a2+1 > high2)) return 0;
	if (lzw_covered (lzwObi, a1, a2)) return 0;
	out->pos1 = a1;
	out->pos2 = a2;
	lzw_anchor_jobs (&lzwLoopIo, a1, a2, low1, high1, low2, high2, out->jobs);
	return 1;
	}

// the earlier alignments of anchor k as the loop would find them now (the
// current anchor's:  the loop's own);  0 when one contains the anchor

static int32_t lzw_host_know (void* ctx, uint32_t k);
static int32_t lzw_host_know (void* ctx, uint32_t k)
	{
	galign m;

	(void) ctx;
	lzwKnown = lzwLoopIo;
	if (k == lzwCurrent) return 1;
	m = *lzwMsp[k];	// (msp_left_right writes its neighbours into a copy)
	if (!msp_left_right (lzwObi, &m)) return 0;
	lzwKnown.leftAlign  = m.leftAlign1;   lzwKnown.leftSeg  = m.leftSeg1;
	lzwKnown.rightAlign = m.rightAlign1;  lzwKnown.rightSeg = m.rightSeg1;
	lzwKnown.anchor1    = lzwMsp[k]->pos1;
	lzwKnown.anchor2    = lzwMsp[k]->pos2;
	get_above_below (&lzwKnown, lzwObi, lzwOed);
	return 1;
	}

static int32_t lzw_host_bounds (void* ctx, int32_t of, int32_t reversed, uint32_t m, uint32_t depth,
                               warpalign_ydrop_bounds* out);
static int32_t lzw_host_bounds (void* ctx, int32_t of, int32_t reversed, uint32_t m, uint32_t depth,
                               warpalign_ydrop_bounds* out)
	{
	alignio* io = (of)? &lzwKnown : lzwCallIo;

	(void) ctx;
	if (lzw_unconstrained (io, reversed, m)) return 0;
	return (lzw_flatten_bounds (io, reversed, m, depth, out))? 1 : -1;
	}

static int32_t lzw_host_contains (void* ctx, const void* align, uint32_t pos1, uint32_t pos2);
static int32_t lzw_host_contains (void* ctx, const void* align, uint32_t pos1, uint32_t pos2)
	{
	(void) ctx;
	return lzw_contains ((galign*) align, pos1, pos2);
	}

static int32_t lzw_host_covered (void* ctx, uint32_t pos1, uint32_t pos2);
static int32_t lzw_host_covered (void* ctx, uint32_t pos1, uint32_t pos2)
	{
	(void) ctx;
	return lzw_covered (lzwObi, pos1, pos2);
	}

// the jobs of an anchor from the search:  the limits the loop will set for
// it are its partitions'

static int32_t lzw_host_early_jobs (void* ctx, uint32_t pos1, uint32_t pos2, warpalign_ydrop_job* jobs);
static int32_t lzw_host_early_jobs (void* ctx, uint32_t pos1, uint32_t pos2, warpalign_ydrop_job* jobs)
	{
	unspos low1 = lzwEarlyIo.low1, high1 = lzwEarlyIo.high1, low2 = lzwEarlyIo.low2, high2 = lzwEarlyIo.high2;

	(void) ctx;
	if (lzwEarlySeq1->partition.p != NULL)
		{
		partition* p1 = lookup_partition_no_die (lzwEarlySeq1, pos1);
		if (p1 == NULL) return 0;
		low1 = p1->sepBefore + 1;  high1 = p1->sepAfter;
		}
	if (lzwEarlySeq2->partition.p != NULL)
		{
		partition* p2 = lookup_partition_no_die (lzwEarlySeq2, pos2);
		if (p2 == NULL) return 0;
		low2 = p2->sepBefore + 1;  high2 = p2->sepAfter;
		}
	if ((pos1 < low1) || (pos1+1 > high1) || (pos2 < low2) || (pos2+1 > high2)) return 0;
	lzw_anchor_jobs (&lzwEarlyIo, pos1, pos2, low1, high1, low2, high2, jobs);
	return 1;
	}

// the HSP's peak, as reduce_to_points will find it

static uint32_t lzw_host_peak (void* ctx, uint32_t pos1, uint32_t pos2, uint32_t length);
static uint32_t lzw_host_peak (void* ctx, uint32_t pos1, uint32_t pos2, uint32_t length)
	{
	(void) ctx;
	return segment_peak (lzwEarlySeq1->v+pos1, lzwEarlySeq2->v+pos2, length, lzwEarlyIo.scoring);
	}

//----------
//
// The hooks.
//
//----------

static warpalign_ydrop_schedule* lzwSchedule = NULL;

static void lzw_report (void);
static void lzw_report (void)
	{
	warpalign_ydrop_schedule_report (lzwSchedule);
	}

static warpalign_ydrop_schedule* lzw_schedule (void)
	{
	static const warpalign_ydrop_host host =
		{ NULL, lzw_host_anchor, lzw_host_know, lzw_host_bounds, lzw_host_contains,
		  lzw_host_covered, lzw_host_early_jobs, lzw_host_peak };

	if (lzwSchedule == NULL)
		{
		lzwSchedule = warpalign_ydrop_schedule_create (&host);
		if (lzwSchedule == NULL)
			suicidef ("%s", warpalign_last_error ());
		atexit (lzw_report);	// (WARPALIGN_STATS=1)
		}
	return lzwSchedule;
	}

// lzw_ahead_start--
//	Called by main once the options are parsed:  the schedule's workers start
//	now and ready their scratch memory while LASTZ reads and seeds, rather
//	than during the first anchor loop, whose first extensions are the largest;
//	and the GPU's hardware queues are limited before anything starts it.

void lzw_ahead_start (void)
	{
	// the CUDA context keeps about 10 MB resident per hardware queue (8 by
	// default);  the search and the y-drop batches use one stream at a time.
	// Set before anything starts the GPU, unless the user chose.
	setenv ("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
	lzw_schedule ();
	}

// an anchor loop starts or ends:  nothing queued survives it (the target may
// be masked between gapped_extend calls)

static void lzw_loop_begin (galign* orderBegInc)
	{
	lzw_check (warpalign_ydrop_schedule_loop_begin (lzw_schedule (), orderBegInc == NULL));
	}

static void lzw_loop_end (void)
	{
	lzw_check (warpalign_ydrop_schedule_loop_end (lzw_schedule ()));
	}

// the loop is about to extend anchor i (io set for it)

static void lzw_ahead_ensure (alignio* io, galign** msp, u32 i, u32 endIx, galign* orderBegInc,
                                    galign* orderEndDec, partition* batchPart, seq* seq1, seq* seq2)
	{
	warpalign_ydrop_anchor current;

	lzwLoopIo = *io;
	lzwMsp    = msp;			lzwCurrent = i;
	lzwObi    = orderBegInc;	lzwOed     = orderEndDec;
	lzwPart   = batchPart;		lzwSeq1    = seq1;			lzwSeq2 = seq2;
	current.pos1 = io->anchor1;
	current.pos2 = io->anchor2;
	lzw_anchor_jobs (io, io->anchor1, io->anchor2, io->low1, io->high1, io->low2, io->high2, current.jobs);
	lzw_check (warpalign_ydrop_schedule_ensure (lzw_schedule (), i, endIx, &current));
	}

static void lzw_ahead_inserted (galign* mp)
	{
	lzw_check (warpalign_ydrop_schedule_inserted (lzw_schedule (), mp,
	                                              mp->pos1, mp->end1, mp->pos2, mp->end2));
	}

// lzw_early_begin--
//	Called by start_one_strand before the search, when lastz.c allows it (the
//	strand's HSPs are its anchors as they are);  seq1, rev1, scoring, yDrop,
//	trimToPeak and tb are what finish_one_strand will give gapped_extend.  The
//	left extensions read the query's reverse, made here and handed to
//	finish_one_strand (lzw_early_query_rev).

void lzw_early_begin (seq* seq1, u8* rev1, seq* seq2, scoreset* scoring, score yDrop,
                            int trimToPeak, tback* tb)
	{
	lzw_early_end ();
	if ((rev1 == NULL) || (tb == NULL)) return;
	if (!warpalign_ydrop_schedule_early_begin (lzw_schedule ())) return;
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
	}

// lzw_early_hsp--
//	Called by collect_hsps for each HSP it adds to the anchors (pos1, pos2
//	its start).

void lzw_early_hsp (unspos pos1, unspos pos2, unspos length, score s)
	{
	lzw_check (warpalign_ydrop_schedule_early_hsp (lzw_schedule (), pos1, pos2, length, s));
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
	if (lzwSchedule != NULL) lzw_check (warpalign_ydrop_schedule_early_end (lzwSchedule));
	if (lzwEarlyRev2 != NULL)
		{ free_if_valid ("warpalign query reverse", lzwEarlyRev2);  lzwEarlyRev2 = NULL; }
	}

//----------
//
// routed_one_sided_align--
//	(added by warpalign's patch series)  Same arguments and results as
//	ydrop_one_sided_align, from warpalign's schedule:  a result computed ahead
//	or one computed now, exactly ydrop_one_sided_align's;  when the traceback
//	memory ran out midway, with LASTZ's report.  ydrop_one_sided_align itself
//	runs when the schedule says so.
//
//----------

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
	warpalign_ydrop_schedule* schedule = lzw_schedule ();
	warpalign_ydrop_job		job;
	warpalign_ydrop_result	res;
	int32_t					done;
	u32						opIx;
	score					s;

	lzw_fill_job (io, reversed, A, B, M, N, trimToPeak, &job);
	lzwCallIo = io;
	lzw_check (warpalign_ydrop_schedule_extend (schedule, &job, io->anchor1,
	                                            !lzw_unconstrained (io, reversed, M), &res, &done));
	if (!done)
		{
		s = ydrop_one_sided_align (io, reversed, A, B, M, N, trimToPeak, script, _end1, _end2);
		lzw_check (warpalign_ydrop_schedule_original_done (schedule));
		return s;
		}
	if (res.truncated == WARPALIGN_YDROP_TRUNC_MIDWAY)
		lzw_report_truncation (io, reversed, res.end1, res.end2);

	// rebuild the edit script exactly as the traceback would have (the ops
	// are its op[], maximal runs in traceback order)

	for (opIx=0 ; opIx<res.n_ops ; opIx++)
		edit_script_add (script, edit_op_operation (res.ops[opIx]),
		                         edit_op_repeat    (res.ops[opIx]));
	*(_end1) = res.end1;
	*(_end2) = res.end2;
	return res.score;
	}

#endif // lzwRouting
