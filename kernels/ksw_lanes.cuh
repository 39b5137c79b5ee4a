// The ksw DP's cell update on 4 cells at once: each 32-bit word holds 4 int8 lanes, and every operation wraps
// as _mm_add_epi8 / _mm_sub_epi8 do and compares as _mm_max_epi8 does (signed), so a word of 4 cells comes
// out exactly as the 4 cells one by one. Plain C as well as CUDA: tests/ksw/lanes.rs compiles this file on
// the host and compares it with the cell-by-cell form on random words (every byte value, every constant).

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#define __device__
#define __forceinline__ static inline
#endif

#define LANE_HI 0x80808080u
#define LANE_LO 0x7f7f7f7fu

// a + b and a - b in each byte, mod 256
__device__ __forceinline__ unsigned lanes_add(unsigned a, unsigned b) { return ((a & LANE_LO) + (b & LANE_LO)) ^ ((a ^ b) & LANE_HI); }
__device__ __forceinline__ unsigned lanes_sub(unsigned a, unsigned b) { return ((a | LANE_HI) - (b & LANE_LO)) ^ ((a ^ ~b) & LANE_HI); }

// 0xff in each byte whose bit 7 is set, else 0
__device__ __forceinline__ unsigned lanes_sign(unsigned a)
{
#ifdef __CUDA_ARCH__
	unsigned r;
	asm("prmt.b32 %0, %1, 0, 0xBA98;" : "=r"(r) : "r"(a));
	return r;
#else
	return ((a >> 7) & 0x01010101u) * 0xffu;
#endif
}

// 0xff in each byte where a > b (signed): the sign of the exact b - a, from the wrapped one and its overflow
__device__ __forceinline__ unsigned lanes_gt(unsigned a, unsigned b)
{
	const unsigned d = lanes_sub(b, a);
	return lanes_sign(d ^ ((b ^ a) & (b ^ d)));
}

__device__ __forceinline__ unsigned lanes_pick(unsigned m, unsigned a, unsigned b) { return (a & m) | (b & ~m); }
__device__ __forceinline__ unsigned lanes_max0(unsigned a) { return a & ~lanes_sign(a); }
// bit 7 of each byte: byte > 0, byte >= 0 (signed)
__device__ __forceinline__ unsigned lanes_pos7(unsigned a) { return ((a & LANE_LO) + LANE_LO) & ~a & LANE_HI; }
__device__ __forceinline__ unsigned lanes_nonneg7(unsigned a) { return ~a & LANE_HI; }

// A job's constants, each byte repeated in all 4 lanes: mat[0], q, q2, (int8)(q + e), (int8)(q2 + e2).
typedef struct {
	unsigned mch, q, q2, qe, qe2;
} LaneConsts;

// The new u, v, x, y, x2, y2 and direction bytes of 4 cells.
typedef struct {
	unsigned u, v, x, y, x2, y2, d;
} LaneCells;

// One candidate of the cells' max, in ksw2's order (see take in ksw.cu): mode 1 keeps the first of equal
// scores' directions, mode 2 the last, mode 0 none.
__device__ __forceinline__ void lanes_take(int mode, unsigned *z, unsigned *d, unsigned c, unsigned dir)
{
	if (mode == 2) {
		const unsigned keep = lanes_gt(*z, c);
		*d = lanes_pick(keep, *d, dir);
		*z = lanes_pick(keep, *z, c);
	} else {
		const unsigned m = lanes_gt(c, *z);
		if (mode == 1) *d = lanes_pick(m, dir, *d);
		*z = lanes_pick(m, c, *z);
	}
}

// ksw_extd2 (spl 0) or ksw_exts2 (spl 1) on 4 cells: s the scores; x, x2, v the old values at t - 1; u, y,
// y2 the old values at t; don, acc the splice signals (exts2). mode as lanes_take; a constant where inlined.
__device__ __forceinline__ LaneCells lanes_cells(int mode, int spl, unsigned s, unsigned x, unsigned x2, unsigned v,
                                                 unsigned u, unsigned y, unsigned y2, unsigned don, unsigned acc,
                                                 const LaneConsts *k)
{
	LaneCells o;
	unsigned z = s, d = 0;
	unsigned a = lanes_add(x, v), b = lanes_add(y, u), a2 = lanes_add(x2, v);
	if (spl) {
		lanes_take(mode, &z, &d, a, 0x01010101u);
		lanes_take(mode, &z, &d, b, 0x02020202u);
		lanes_take(mode, &z, &d, lanes_add(a2, acc), 0x03030303u);
		const unsigned tq = lanes_sub(z, k->q);
		a = lanes_sub(a, tq);
		b = lanes_sub(b, tq);
		a2 = lanes_sub(a2, lanes_sub(z, k->q2));
		if (mode == 1) d |= lanes_pos7(a) >> 4 | lanes_pos7(b) >> 3 | (lanes_gt(a2, don) & LANE_HI) >> 2;
		else if (mode == 2) d |= lanes_nonneg7(a) >> 4 | lanes_nonneg7(b) >> 3 | (~lanes_gt(don, a2) & LANE_HI) >> 2;
		o.x2 = lanes_sub(lanes_pick(lanes_gt(a2, don), a2, don), k->q2);
		o.y2 = 0;
	} else {
		unsigned b2 = lanes_add(y2, u);
		lanes_take(mode, &z, &d, a, 0x01010101u);
		lanes_take(mode, &z, &d, b, 0x02020202u);
		lanes_take(mode, &z, &d, a2, 0x03030303u);
		lanes_take(mode, &z, &d, b2, 0x04040404u);
		z = lanes_pick(lanes_gt(z, k->mch), k->mch, z);
		const unsigned tq = lanes_sub(z, k->q), tq2 = lanes_sub(z, k->q2);
		a = lanes_sub(a, tq);
		b = lanes_sub(b, tq);
		a2 = lanes_sub(a2, tq2);
		b2 = lanes_sub(b2, tq2);
		if (mode == 1) d |= lanes_pos7(a) >> 4 | lanes_pos7(b) >> 3 | lanes_pos7(a2) >> 2 | lanes_pos7(b2) >> 1;
		else if (mode == 2) d |= lanes_nonneg7(a) >> 4 | lanes_nonneg7(b) >> 3 | lanes_nonneg7(a2) >> 2 | lanes_nonneg7(b2) >> 1;
		o.x2 = lanes_sub(lanes_max0(a2), k->qe2);
		o.y2 = lanes_sub(lanes_max0(b2), k->qe2);
	}
	o.u = lanes_sub(z, v);
	o.v = lanes_sub(z, u);
	o.x = lanes_sub(lanes_max0(a), k->qe);
	o.y = lanes_sub(lanes_max0(b), k->qe);
	o.d = d;
	return o;
}
