//-------+---------+---------+---------+---------+---------+---------+--------=
//
// File: lzw_gapped_extend.h
//
//----------
//
// lzw_gapped_extend--
//	What gapped_extend.c calls of warpalign's glue (lzw_gapped_extend.c, which
//	it includes at its end).  In a build lzw_glue.h does not route,
//	routed_one_sided_align is ydrop_one_sided_align and the other calls are
//	empty.
//
//----------

#ifndef lzw_gapped_extend_H		// (prevent multiple inclusion)
#define lzw_gapped_extend_H

#ifndef lzwRouting
#define routed_one_sided_align ydrop_one_sided_align
#define lzw_forget_alignments()           ((void) 0)
#define lzw_ahead_ensure(io,msp,i,e,b,d,p,s1,s2) ((void) 0)
#define lzw_loop_begin(orderBegInc)       ((void) 0)
#define lzw_loop_end()                    ((void) 0)
#define lzw_ahead_inserted(mp)            ((void) 0)
#else
static void     lzw_forget_alignments (void);
static void lzw_ahead_ensure (alignio* io, galign** msp, u32 i, u32 endIx, galign* orderBegInc,
                                    galign* orderEndDec, partition* batchPart, seq* seq1, seq* seq2);
static void lzw_loop_begin (galign* orderBegInc);
static void lzw_loop_end (void);
static void lzw_ahead_inserted (galign* mp);
static score    routed_one_sided_align (alignio* io, int reversed,
                                    u8* A, u8* B, unspos M, unspos N,
                                    int trimToPeak,
                                    editscript** script,
                                    unspos* end1, unspos* end2);
#endif // lzwRouting

#endif // lzw_gapped_extend_H
