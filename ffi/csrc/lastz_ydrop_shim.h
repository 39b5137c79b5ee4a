/* The oracle's entry into LASTZ 1.04.52's ydrop_one_sided_align (see lastz_ydrop_shim.c). What bindgen
 * binds from LASTZ: only this header, which needs no LASTZ header (score = int32_t, unspos = uint32_t in
 * LASTZ's default build). */
#ifndef WARPALIGN_LASTZ_YDROP_SHIM_H
#define WARPALIGN_LASTZ_YDROP_SHIM_H
#include <stdint.h>

/* What one call returns. */
typedef struct warpalign_oracle_lastz_ydrop_out {
	int32_t   score;      /* ydrop_one_sided_align's return value */
	uint32_t  end1;       /* *_end1: DP rows used (bases of A) */
	uint32_t  end2;       /* *_end2: DP columns used (bases of B) */
	int32_t   truncated;  /* 0: complete; 1: traceback memory ran out (LASTZ prints "truncating alignment
	                       * ..." and keeps this result); 2: traceback memory too small for the first row
	                       * (LASTZ dies "not enough space in trace_back array"; nothing else is set) */
	uint32_t  n_ops;      /* edit script length */
	uint32_t* ops;        /* malloc'ed (NULL when n_ops == 0): the editscript's op[], LASTZ's editop
	                       * encoding (rpt<<2 | op, op 1=ins 2=del 3=sub), in traceback order */
} warpalign_oracle_lastz_ydrop_out;

/* One UNCONSTRAINED one-sided y-drop extension (no earlier alignments: alignio's leftSeg/rightSeg,
 * leftAlign/rightAlign and aboveList/belowList all NULL), with LASTZ's arguments: A and B are 1-based
 * (A[1..M], B[1..N]; pass a pointer to the byte BEFORE the first base) and B[N+1] must be readable (LASTZ
 * reads it, its value is never used); sub is the 256x256 scoreset.sub matrix, row-major, indexed
 * [A byte][B byte]; tbSize is tback.size (traceback cells, one byte each). Thread safe: calls are
 * serialized by a lock (the copy's statics, e.g. tbRow, are shared). Never prints; LASTZ's fatal errors
 * (allocation failure) still exit. Returns 0. */
int warpalign_oracle_lastz_ydrop_one_sided(const uint8_t* A, const uint8_t* B, uint32_t M, uint32_t N,
                                           int reversed, int trimToPeak, const int32_t* sub,
                                           int32_t gapOpen, int32_t gapExtend, int32_t yDrop,
                                           uint32_t tbSize, warpalign_oracle_lastz_ydrop_out* out);

#endif
