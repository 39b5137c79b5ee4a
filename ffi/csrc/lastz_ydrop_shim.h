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

/* The earlier alignments a constrained call sees, flattened: warpalign's YdropBounds, YdropAlignment and
 * YdropSegment (src/ydrop/mod.rs documents the fields), field for field. Indices link the two arrays;
 * WARPALIGN_ORACLE_LASTZ_NONE is NULL. */
#define WARPALIGN_ORACLE_LASTZ_NONE UINT32_MAX

typedef struct warpalign_oracle_lastz_ydrop_segment {
	uint32_t  kind;       /* aliseg.type: 0 diagSeg, 1 horzSeg, 2 vertSeg */
	uint32_t  b1, b2, e1, e2;
	uint32_t  owner;      /* the alignment whose chain (first_seg..last_seg) holds it */
} warpalign_oracle_lastz_ydrop_segment;

typedef struct warpalign_oracle_lastz_ydrop_alignment {
	uint32_t  pos1, end1;
	uint32_t  first_seg, last_seg;
	uint32_t  left_align1, right_align1, left_align2, right_align2;
	uint32_t  left_seg1, right_seg1, left_seg2, right_seg2;
	uint32_t  next, prev;
} warpalign_oracle_lastz_ydrop_alignment;

typedef struct warpalign_oracle_lastz_ydrop_bounds {
	uint32_t  anchor1, anchor2;
	const warpalign_oracle_lastz_ydrop_segment*   segments;
	uint32_t  n_segments;
	const warpalign_oracle_lastz_ydrop_alignment* alignments;
	uint32_t  n_alignments;
	uint32_t  left_align, right_align, left_seg, right_seg;
	uint32_t  above_list, below_list;
	uint32_t  rows;       /* not read: LASTZ's code cannot stop at a row, so the oracle answers for the
	                       * whole block (the twin's TRUNC_BOUNDS has no oracle) */
} warpalign_oracle_lastz_ydrop_bounds;

/* One one-sided y-drop extension; bounds NULL: unconstrained (alignio's leftSeg/rightSeg, leftAlign/
 * rightAlign and aboveList/belowList all NULL), else LASTZ's galign/aliseg structures are rebuilt from the
 * (well-formed) flat block and the call sees them. LASTZ's other arguments: A and B are 1-based
 * (A[1..M], B[1..N]; pass a pointer to the byte BEFORE the first base) and B[N+1] must be readable (LASTZ
 * reads it, its value is never used); sub is the 256x256 scoreset.sub matrix, row-major, indexed
 * [A byte][B byte]; tbSize is tback.size (traceback cells, one byte each). Thread safe: calls are
 * serialized by a lock (the copy's statics, e.g. tbRow, are shared). Never prints; LASTZ's fatal errors
 * (allocation failure) still exit. Returns 0. */
int warpalign_oracle_lastz_ydrop_one_sided(const uint8_t* A, const uint8_t* B, uint32_t M, uint32_t N,
                                           int reversed, int trimToPeak, const int32_t* sub,
                                           int32_t gapOpen, int32_t gapExtend, int32_t yDrop,
                                           uint32_t tbSize, const warpalign_oracle_lastz_ydrop_bounds* bounds,
                                           warpalign_oracle_lastz_ydrop_out* out);

#endif
