//-------+---------+---------+---------+---------+---------+---------+--------=
//
// File: lzw_search.h
//
//----------
//
// lzw_search--
//	What lastz.c's start_one_strand calls in place of seed_hit_search
//	(lzw_search_strand, in lzw_lastz.c, which lastz.c includes at its end),
//	and what main calls where it builds the target's position table
//	(lzw_search_warm_up, lzw_search_skips_table, and lzw_search_table for a
//	strand left to upstream's search), and what dynamic masking's
//	remove_interval_seeds calls for each interval it masks (lzw_search_mask).
//	Must be included after lzw_glue.h and seed_search.h.  In a build
//	lzw_glue.h does not route, the call is false:  upstream's search runs.
//
//----------

#ifndef lzw_search_H		// (prevent multiple inclusion)
#define lzw_search_H

#ifdef lzwRouting
static int  lzw_search_strand  (seq* target, seq* query, hitprocessor hitProc, void* hitProcInfo, u32 searchLimit);
static void lzw_search_warm_up (seq* target);
static int  lzw_search_skips_table (seq* target);
static postable* lzw_search_table  (seq* target, postable* targPositions);
static void lzw_search_mask    (unspos b, unspos e);
#else
#define lzw_search_strand(target,query,hitProc,hitProcInfo,searchLimit) (false)
#define lzw_search_warm_up(target)
#define lzw_search_skips_table(target) (false)
#define lzw_search_table(target,targPositions) (targPositions)
#define lzw_search_mask(b,e)
#endif // lzwRouting

#endif // lzw_search_H
