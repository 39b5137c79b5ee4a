//-------+---------+---------+---------+---------+---------+---------+--------=
//
// File: lzw_glue.h
//
//----------
//
// lzw_glue--
//	warpalign's glue for LASTZ.  Decides whether this build routes
//	one-sided y-drop extensions through libwarpalign: only the
//	configuration warpalign reproduces bit for bit (the default lastz build:
//	integer scores, 31-bit positions, no back-to-back gaps, no stats or
//	gapped-extension timing instrumentation; upstream's stage timers, dbgTiming,
//	are allowed, for bench/lastz:  the counters of what warpalign runs stay 0).
//	Other builds (lastz_D, lastz_32, lastz_40, ...) compile and link exactly as
//	upstream.  Must be included after dna_utilities.h,
//	sequences.h and gapped_extend.h.
//
//----------

#ifndef lzw_glue_H		// (prevent multiple inclusion)
#define lzw_glue_H

#if ((scoreType == 'I') && (maxSequenceIndex == 31) \
  && (!defined allowBackToBackGaps) && (!defined collect_stats) \
  && (!defined dbgTimingGappedExtend))
#define lzwRouting
#include "warpalign.h"			// libwarpalign's C API (pkg-config warpalign)
// (lzw_gapped_extend.c)
void lzw_ahead_start     (void);
void lzw_early_begin     (seq* seq1, u8* rev1, seq* seq2, scoreset* scoring, score yDrop,
                                int trimToPeak, tback* tb);
void lzw_early_hsp       (unspos pos1, unspos pos2, unspos length, score s);
u8*  lzw_early_query_rev (seq* seq2);
void lzw_early_end       (void);
// (lzw_lastz.c)
void lzw_exit_ready      (void);
void lzw_version_line    (FILE* f);
#else					// (other builds:  the calls are empty)
#define lzw_ahead_start()                 ((void) 0)
#define lzw_early_begin(s1,r1,s2,sc,y,t,tb) ((void) 0)
#define lzw_early_hsp(p1,p2,len,s)        ((void) 0)
#define lzw_early_query_rev(s2)           ((u8*) NULL)
#define lzw_early_end()                   ((void) 0)
#define lzw_exit_ready()                  ((void) 0)
#define lzw_version_line(f)               ((void) 0)
#endif

#endif // lzw_glue_H
