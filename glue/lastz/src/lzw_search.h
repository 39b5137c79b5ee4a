//-------+---------+---------+---------+---------+---------+---------+--------=
//
// File: lzw_search.h
//
//----------
//
// lzw_search--
//	What lastz.c's start_one_strand calls in place of seed_hit_search
//	(lzw_search_strand, in lzw_lastz.c, which lastz.c includes at its end).
//	Must be included after lzw_glue.h and seed_search.h.  In a build
//	lzw_glue.h does not route, the call is false:  upstream's search runs.
//
//----------

#ifndef lzw_search_H		// (prevent multiple inclusion)
#define lzw_search_H

#ifdef lzwRouting
static int lzw_search_strand (seq* target, seq* query, hitprocessor hitProc, void* hitProcInfo);
#else
#define lzw_search_strand(target,query,hitProc,hitProcInfo) (false)
#endif // lzwRouting

#endif // lzw_search_H
