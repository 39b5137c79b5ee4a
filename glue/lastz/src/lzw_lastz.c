//-------+---------+---------+---------+---------+---------+---------+--------=
//
// File: lzw_lastz.c
//
//----------
//
// lzw_lastz--
//	warpalign's glue for lastz.c, included at its end.
//
//----------

#ifdef lzwRouting
//----------
//
// lzw_exit_ready--
//	Before main returns:  waits for any thread inside the GPU driver (see
//	__wrap_exit).
//
//----------

void lzw_exit_ready (void)
	{
	warpalign_shutdown ();
	}

//----------
//
// lzw_version_line--
//	The line --version adds on stderr:  the linked warpalign's version
//	(stdout stays upstream's:  pipelines record it).
//
//----------

void lzw_version_line (FILE* f)
	{
	fprintf (f, "[M::warpalign] version %s\n", warpalign_version ());
	}

//----------
//
// __wrap_exit--
//	Every exit() of lastz (linked with -Wl,--wrap=exit) waits first for any
//	thread inside the GPU driver: the driver's own exit handlers, registered
//	as the GPU starts, run before any of LASTZ's.
//
//----------

void __real_exit (int status) __attribute__((noreturn));
void __wrap_exit (int status) __attribute__((noreturn));
void __wrap_exit (int status)
	{
	warpalign_shutdown ();
	__real_exit (status);
	}
//----------
//
// lzw_search_strand--
//	start_one_strand's seed_hit_search, where warpalign's search covers the
//	strand (lzw_search_covers):  the strand's HSPs, found by warpalign in
//	upstream's order, go to the hit processor's reporter as
//	process_for_simple_hit would hand them on (end positions, length,
//	score), with the one other thing the search changes (the anchors'
//	haveScores), so the anchors, the early extensions and any output are
//	upstream's;  with a search limit (--queryhsplimit), only as many as
//	upstream's search reports before it stops.  Returns false, having done
//	nothing, where upstream's search must run.
//
//----------

static warpalign_search_target* lzwSearch    = NULL;	// (the target's search)
static u8*                      lzwSearchV   = NULL;	// .. made for these bytes
static unspos                   lzwSearchLen = 0;
static u64                      lzwUpstreamStrands = 0;	// (WARPALIGN_STATS=1)

static void lzw_search_report (void);
static void lzw_search_report (void)
	{
	warpalign_search_report (lzwUpstreamStrands);
	}

// lzw_search_covers_params--
//	Whether the run's parameters let warpalign's search reproduce upstream's:
//	the simple or recoverable (--recoverhits) hit processor with its
//	gap-free extension (x-drop, exact match, mismatches or none) and a fixed
//	threshold (no twins), a strict seed of at most 28 bits,
//	the ACGT alphabet, and nothing that reads or changes the search's state
//	beside the reporter (no entropy report, inference, capsule, quantum,
//	anchors file or search debugging;  dynamic masking reaches the search
//	through lzw_search_mask, and a search limit is counted as the hit
//	processors count it, whether the reporter collects the HSPs or extends
//	them at once, as --anyornone and --limitperquery have it).  --self and its --band are covered for
//	targets of one sequence (lzw_search_covers), without dynamic masking.

static int lzw_search_covers_params (void);
static int lzw_search_covers_params (void)
	{
	control*     p  = currParams;
	seed*        hs = p->hitSeed;
	const char*  c;

	// (a search limit with dynamic masking could split a run between both
	// searches, and their warnings' "first report" between two flags)
	if ((p != &lzParams) || (p->inferScores) || (p->capsule != NULL)
	 || (p->targetIsQuantum) || (p->anchorsFile != NULL)
	 || ((p->searchLimit != 0) && (p->dynamicMasking != 0))
	 || ((p->dynamicMasking != 0) && (p->selfCompare)))
		return false;
	if ((seed_search_dbgDumpRawHits) || (seed_search_dbgShowRawHits)
	 || (seed_search_dbgShowHits)    || (seed_search_dbgShowCoverage))
		return false;
	if (p->upperCharToBits != (s8*) upper_nuc_to_bits)
		return false;
	// (the hit processor set_up_hit_processor will choose:  process_for_simple_hit,
	// or process_for_recoverable_hit with --recoverhits)
	if (p->twinMinSpan > 0)
		return false;
	if ((p->gfExtend != gfexXDrop) && (p->gfExtend != gfexExact) && (p->gfExtend != gfexNoExtend)
	 && ((p->gfExtend < gfexMismatch_min) || (p->gfExtend > gfexMismatch_max)))
		return false;
	// an adaptive threshold (--hspthresh=top<n>) reaches x-drop extension
	// alone (which reports every HSP then, adjusted as lzw_adaptive_score
	// says) and the processors that read no threshold
	if (p->reportEntropy)
		return false;
	if ((p->hspThreshold.t != 'S') && (p->gfExtend != gfexXDrop) && (p->gfExtend != gfexNoExtend))
		return false;

	// strict, half-weight (Ts and 0s), mixed (1s and Ts) and resolving (--word) seeds
	if ((hs == NULL) || (hs->next != NULL)
	 || ((hs->type != 'S') && (hs->type != 'H') && (hs->type != '_') && (hs->type != 'R'))
	 || (hs->isHalfweight != (hs->type == 'H'))
	 || ((hs->resolvingMask != 0) != (hs->type == 'R')) || (hs->revComp)
	 // (every 1 resolved leaves no flips, which LASTZ's search reads with transitions)
	 || ((hs->type == 'R') && (hs->transFlips == NULL) && (hs->withTrans > 0))
	 || (hs->pattern == NULL) || (hs->length < 2) || (hs->weight > 28)
	 || (hs->withTrans < 0) || (hs->withTrans > 2) || (p->step < 1))
		return false;
	for (c=hs->pattern ; *c!=0 ; c++)
		{ if ((*c != '1') && (*c != 'T') && (*c != '0')) return false; }

	return true;
	}

// lzw_same_partitions--
//	Whether two sequences are partitioned alike (or both not at all), as far
//	as seed_hit_below_diagonal reads them (lookup_partition's separators).

static int lzw_same_partitions (seq* a, seq* b)
	{
	seqpartition* pa = &a->partition;
	seqpartition* pb = &b->partition;
	u32           ix;

	if ((pa->p == NULL) && (pb->p == NULL)) return true;
	if ((pa->p == NULL) || (pb->p == NULL) || (pa->len == 0) || (pa->len != pb->len))
		return false;
	for (ix=0 ; ix<pa->len ; ix++)
		{
		if ((pa->p[ix].sepBefore != pb->p[ix].sepBefore) || (pa->p[ix].sepAfter != pb->p[ix].sepAfter))
			return false;
		}
	return (pa->p[pa->len].sepBefore == pb->p[pb->len].sepBefore);
	}

// lzw_search_covers--
//	Whether this strand's search is one warpalign's reproduces:  the run's
//	parameters (lzw_search_covers_params), process_for_simple_hit (or
//	process_for_recoverable_hit) with the run's extension and a fixed
//	threshold, and no chores or entropy report.

static int lzw_search_covers (seq* target, seq* query, hitprocessor hitProc, hitprocsimple* info)
	{
	hitprocinfo* hp = &info->hp;

	if (!warpalign_search_takes (target->len)) return false;
	if (!lzw_search_covers_params ()) return false;
	if ((query->fileType == seq_type_qdna) || (query->choresFile != NULL))
		return false;
	// --self:  on the opposite strand seed_hit_below_diagonal compares the
	// partitions of a [multiple] target, which warpalign's search takes when it
	// is made (lzw_search_strand);  the query, the target's clone, has the same
	// (on the target's own strand it compares positions alone)
	if ((currParams->selfCompare)
	 && (query->revCompFlags != target->revCompFlags)
	 && (!lzw_same_partitions (target, query)))
		return false;

	if (((hitProc != process_for_simple_hit) && (hitProc != process_for_recoverable_hit)
	  && ((hitProc != process_for_plain_hit) || (hp->gfExtend != gfexNoExtend)))
	 || (hp->posFilter) || (hp->gfExtend != currParams->gfExtend)
	 || (hp->seq1 != target) || (hp->seq2 != query))
		return false;
	// set_up_hit_processor sets the threshold for the extensions that read
	// it, the matrix, x-drop and entropy for x-drop alone;  the search's
	// options take the run's matrix then, which the others do not read
	if ((hp->gfExtend != gfexNoExtend)
	 && (((hp->hspThreshold.t != 'S') && (hp->gfExtend != gfexXDrop))
	  || ((hp->hspThreshold.t == 'S')
	   && ((hp->hspThreshold.s > INT32_MAX/3) || (hp->hspThreshold.s < -(INT32_MAX/3))))))
		return false;
	if ((hp->gfExtend == gfexXDrop)
	 && ((hp->scoring == NULL) || (hp->xDrop < 0) || (hp->reportEntropy)))
		return false;
	if ((hp->gfExtend != gfexXDrop) && (currParams->maskedScoring == NULL))
		return false;
	if (hp->charToBits != (s8*) nuc_to_bits)
		return false;

	return (target->len > 0) && (query->len > 0);
	}

// lzw_search_warm_up--
//	Called by main before it builds the target's position table:  where the
//	run's parameters let warpalign search this target, the GPU's start and
//	warpalign's index of the target begin in the background (taken by the
//	first strand's search if the target's bytes are still these).

static void lzw_search_warm_up (seq* target)
	{
	// (--self searches on CPU threads:  no GPU to start;  --maxwordcount=<n>%'s
	// limit is known once main has built its own table;  the warm-up takes a
	// seed by its pattern, which does not say which bases a seed resolves)
	if ((target == NULL) || (target->len == 0) || (!warpalign_search_takes (target->len))
	 || (!lzw_search_covers_params ()) || (currParams->selfCompare)
	 || (currParams->wordCountKeep > 0) || (currParams->hitSeed->resolvingMask != 0))
		return;
	(void) warpalign_search_warm_up (currParams->hitSeed->pattern, currParams->step,
	                                 currParams->wordCountLimit, currParams->maxWordCountChasm,
	                                 target->v, target->len);
	}

// lzw_search_skips_table--
//	Called by main where it would build the target's position table:  true
//	where only the seed search reads that table and warpalign searches this
//	target (lzw_search_warm_up), so main leaves it unbuilt (not with dynamic
//	masking, which masks that table as it masks warpalign's, nor with
//	--maxwordcount=<n>%, whose limit main finds in it and the search takes).  A strand that
//	warpalign's search does not cover gets it from lzw_search_table.

static int lzwTableSkipped = false;

static int lzw_search_skips_table (seq* target)
	{
	control* p = currParams;

	if ((target == NULL) || (target->len == 0) || (!warpalign_search_takes (target->len))
	 || (!lzw_search_covers_params ()) || (!p->doSeedSearch) || (p->writeCapsule)
	 || (p->showPosTable != spt_dont) || (p->reportCensus) || (p->dynamicMasking != 0)
	 || (p->wordCountKeep > 0))
		return false;
	lzwTableSkipped = true;
	return true;
	}

// lzw_search_table--
//	The position table for upstream's seed search:  main's, or where main
//	skipped it (lzw_search_skips_table), the same table built now, once, as
//	main would have built it.

static postable* lzw_search_table (seq* target, postable* targPositions)
	{
	static postable* built = NULL;

	if ((targPositions != NULL) || (!lzwTableSkipped)) return targPositions;
	if (built == NULL)
		{
		built = build_seed_position_table
		           (target, 0, target->len,
		            currParams->upperCharToBits, currParams->hitSeed,
		            currParams->step);
		if (currParams->wordCountLimit > 0)
			limit_position_table (built, currParams->wordCountLimit,
			                      currParams->maxWordCountChasm);
		}
	return built;
	}

// lzw_search_mask--
//	Called by remove_interval_seeds for each interval the census masks
//	(dynamic masking, --masking;  origin-1, inclusive):  warpalign's search
//	masks it too, before its next strand (lzw_search_strand hands the
//	intervals on).  An interval masked while warpalign's search of the target
//	does not exist would be missing from the one made later:  upstream's
//	search takes the rest of the run then.

static u32*   lzwMasks        = NULL;	// (pending intervals, two values each)
static size_t lzwMasksLen     = 0;
static size_t lzwMasksSize    = 0;
static int    lzwMaskedUnseen = false;	// (an interval warpalign's search missed)

static void lzw_search_mask (unspos b, unspos e)
	{
	if (lzwSearch == NULL)
		{ lzwMaskedUnseen = true;  return; }
	if (lzwMasksLen + 2 > lzwMasksSize)
		{
		lzwMasksSize = (lzwMasksSize == 0)? 256 : 2*lzwMasksSize;
		lzwMasks = (u32*) realloc_or_die ("lzw_search_mask", lzwMasks, lzwMasksSize * sizeof(u32));
		}
	lzwMasks[lzwMasksLen++] = b;
	lzwMasks[lzwMasksLen++] = e;
	}

// lzw_adaptive_score--
//	The end of xdrop_extend_seed_hit under an adaptive threshold
//	(--hspthresh=top<n>):  every extension is an HSP, and a positive score is
//	adjusted for entropy when it would make the anchors collected so far, which
//	the search cannot know.  So the search reports the scores unadjusted
//	(threshold 0, no entropy;  an x-drop score is never negative), and each is
//	adjusted here just before it is reported, as upstream adjusts it.

static score lzw_adaptive_score (hitprocinfo* hp, const warpalign_hsp* h)
	{
	score     similarity = h->score;
	segtable* anchors;
	double    q;

	if ((!hp->entropicHsp) || (similarity <= 0))
		return similarity;
	anchors = *(hp->anchors);
	if ((anchors->len == 0) || (similarity < anchors->lowScore))
		return similarity;
	q = entropy (hp->seq1->v + h->pos1, hp->seq2->v + h->pos2, h->length);
	similarity *= q;
	return similarity;
	}

// lzw_warn_for_search_limit--
//	seed_search.c's warn_for_search_limit (static there), for the strands
//	warpalign's search stops:  the same count, the same warning.

static void lzw_warn_for_search_limit (seq* query, u32 reportSearchLimit)
	{
	static int firstReport = true;
	char*      name2;

	seed_search_dbgSearchLimitExceeded++;
	if (reportSearchLimit == 0) return;

	name2 = (query->useFullNames)? query->header : query->shortHeader;
	fprintf (stderr, "WARNING. Query \"%s\" contains more than %s HSPs.\n",
	                 name2, commatize(reportSearchLimit));

	if (firstReport)
		{
		fprintf (stderr, "All HSPs for this query are discarded and the query is not processed further.\n");
		firstReport = false;
		}
	}

static int lzw_search_strand (seq* target, seq* query, hitprocessor hitProc, void* hitProcInfo, u32 searchLimit)
	{
	hitprocsimple*            info = (hitprocsimple*) hitProcInfo;
	hitprocinfo*              hp;
	warpalign_search_options  o;
	warpalign_hsp*            hsps;
	size_t                    n, ix;
	warpalign_status          status;
	int                       adaptive;
	score                     s;
	s32                       searchToGo;
	u32                       basesHit;
	static int                reporting = false;

	if (!reporting)
		{ atexit (lzw_search_report);  reporting = true; }
	if ((info == NULL) || (lzwMaskedUnseen) || (!lzw_search_covers (target, query, hitProc, info)))
		{ lzwUpstreamStrands++;  return false; }
	hp = &info->hp;
	adaptive = (hp->gfExtend == gfexXDrop) && (hp->hspThreshold.t != 'S');

	// the target's search is made once (LASTZ has one target per run;  a
	// target whose bytes moved gets a new one, unless they were masked:  a
	// search made from masked bytes would miss upstream's table)

	if ((lzwSearch == NULL) || (lzwSearchV != target->v) || (lzwSearchLen != target->len))
		{
		if ((lzwSearch != NULL) && (currParams->dynamicMasking != 0))
			{ lzwMaskedUnseen = true;  lzwUpstreamStrands++;  return false; }
		warpalign_search_target_destroy (lzwSearch);
		lzwSearch = NULL;

		o.seed                     = currParams->hitSeed->pattern;
		o.with_trans               = (uint32_t) currParams->hitSeed->withTrans;
		o.step                     = currParams->step;
		o.x_drop                   = (hp->gfExtend == gfexXDrop)? hp->xDrop : 0;
		o.hsp_threshold            = ((hp->gfExtend == gfexNoExtend) || (adaptive))? 0 : hp->hspThreshold.s;
		o.entropic                 = ((hp->gfExtend == gfexXDrop) && (!adaptive))? hp->entropicHsp : false;
		o.max_word_count           = currParams->wordCountLimit;
		o.max_word_count_chasm     = currParams->maxWordCountChasm;
		o.filter_min_matches       = hp->minMatches;
		o.filter_max_transversions = hp->maxTransversions;
		o.filter_cares_only        = (hp->minMatches >= 0) && (hp->filterPattern != NULL);
		o.extension                = (hitProc == process_for_plain_hit)? 4
		                           : (hp->gfExtend == gfexXDrop)? 0
		                           : (hp->gfExtend == gfexExact)? 1
		                           : (hp->gfExtend == gfexNoExtend)? 3 : 2;
		o.mismatches               = (o.extension == 2)? (uint32_t) hp->gfExtend : 0;
		o.scores                   = (hp->gfExtend == gfexXDrop)? &hp->scoring->sub[0][0]
		                                                         : &currParams->maskedScoring->sub[0][0];
		o.self_compare             = currParams->selfCompare;
#ifndef forbidBandWidth
		o.band_width               = currParams->bandWidth;
#else
		o.band_width               = 0;
#endif // not forbidBandWidth
		o.resolving_mask           = currParams->hitSeed->resolvingMask;
		o.recover_hits             = (hitProc == process_for_recoverable_hit);

		status = warpalign_search_target_create (&o, target->v, target->len, &lzwSearch);
		if (status != WARPALIGN_STATUS_OK)
			suicidef ("%s (status %d)", warpalign_last_error (), (int) status);
		// --self on a [multiple] target:  its partitions, for the opposite strand
		if ((currParams->selfCompare) && (target->partition.p != NULL))
			{
			seqpartition* sp   = &target->partition;
			u32*          seps = (u32*) malloc_or_die ("lzw_search_strand", 2 * sp->len * sizeof(u32));
			for (ix=0 ; ix<sp->len ; ix++)
				{ seps[2*ix] = sp->p[ix].sepBefore;  seps[2*ix+1] = sp->p[ix].sepAfter; }
			status = warpalign_search_target_partitions (lzwSearch, seps, sp->len);
			free_if_valid ("lzw_search_strand", seps);
			if (status != WARPALIGN_STATUS_OK)
				suicidef ("%s (status %d)", warpalign_last_error (), (int) status);
			}
		lzwSearchV   = target->v;
		lzwSearchLen = target->len;
		}

	// the intervals dynamic masking masked since the last strand
	if (lzwMasksLen > 0)
		{
		status = warpalign_search_target_mask (lzwSearch, lzwMasks, lzwMasksLen / 2);
		if (status != WARPALIGN_STATUS_OK)
			suicidef ("%s (status %d)", warpalign_last_error (), (int) status);
		lzwMasksLen = 0;
		}

	// --self:  the query is the target, on its own strand or the other
	// (seed_search's sameStrand)
	if (currParams->selfCompare)
		status = warpalign_search_self_strand (lzwSearch, query->v, query->len,
		                                       query->revCompFlags != target->revCompFlags, &hsps, &n);
	else
		status = warpalign_search_strand (lzwSearch, query->v, query->len, &hsps, &n);
	if (status != WARPALIGN_STATUS_OK)
		suicidef ("%s (status %d)", warpalign_last_error (), (int) status);

	// as xdrop_extend_seed_hit does for each HSP it keeps:  the anchors have
	// their scores (else finish_one_strand scores them again, unadjusted);
	// the other extensions leave that to finish_one_strand.  With a search
	// limit, the HSPs the reporter takes count down as in the hit processors,
	// and upstream's search stops once the count is below zero when a query
	// position's hits are done
	searchToGo = (s32) searchLimit;
	for (ix=0 ; ix<n ; ix++)
		{
		s = (adaptive)? lzw_adaptive_score (hp, &hsps[ix]) : hsps[ix].score;
		if ((hp->anchors != NULL) && (hp->gfExtend == gfexXDrop)) (*(hp->anchors))->haveScores = true;
		basesHit = (*hp->reporter) (hp->reporterInfo,
		                            hsps[ix].pos1 + hsps[ix].length, hsps[ix].pos2 + hsps[ix].length,
		                            hsps[ix].length, s);
		if (basesHit > 0) searchToGo--;
		if ((searchLimit > 0) && (searchToGo < 0)
		 && ((ix+1 == n) || (hsps[ix+1].hit_pos2 != hsps[ix].hit_pos2)))
			{
			lzw_warn_for_search_limit (query, (currParams->searchLimitWarn)? currParams->searchLimit : 0);
			break;
			}
		}

	warpalign_search_hsps_free (hsps);
	return true;
	}
#endif // lzwRouting
