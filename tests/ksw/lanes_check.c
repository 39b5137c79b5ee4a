/* kernels/ksw_lanes.cuh against the cell-by-cell update of kernels/ksw.cu (its form before the 4-lane words,
 * verified against the twins), on random words: every byte value in every input and constant, and small
 * values, where ties are frequent. usage: lanes_check N SEED; prints the first difference, exits 1 on any. */
#include <stdio.h>
#include <stdlib.h>
#include "ksw_lanes.cuh"

static int w8(int x) { return (int)(signed char)(unsigned char)(x & 0xff); }
static int sx(unsigned w, int k) { return (int)(signed char)(unsigned char)(w >> (8 * k)); }
static unsigned put(unsigned w, int v, int k) { return (w & ~(0xffu << (8 * k))) | (unsigned)(unsigned char)v << (8 * k); }
static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

static void take(int mode, int *z, int *d, int c, int dir)
{
	if (mode == 1) *d = c > *z ? dir : *d;
	else if (mode == 2) *d = *z > c ? *d : dir;
	*z = imax(*z, c);
}

/* the loop body of dp_job in kernels/ksw.cu before lanes_cells */
static LaneCells cells_one_by_one(int mode, int spl, unsigned sw, unsigned xw, unsigned x2w, unsigned vw, unsigned uw,
                                  unsigned yw, unsigned y2w, unsigned donw, unsigned accw, int q, int q2, int qe, int qe2, int mch)
{
	LaneCells o = {0, 0, 0, 0, 0, 0, 0};
	for (int k = 0; k < 4; ++k) {
		int z = sx(sw, k);
		const int xt1 = sx(xw, k), x2t1 = sx(x2w, k), vt1 = sx(vw, k);
		const int uo = sx(uw, k), yo = sx(yw, k), y2o = sx(y2w, k);
		int a = w8(xt1 + vt1), bb = w8(yo + uo), a2 = w8(x2t1 + vt1), b2 = w8(y2o + uo);
		int d = 0;
		if (spl) {
			const int don = sx(donw, k), a2a = w8(a2 + sx(accw, k));
			take(mode, &z, &d, a, 1);
			take(mode, &z, &d, bb, 2);
			take(mode, &z, &d, a2a, 3);
			const int tq = w8(z - q);
			a = w8(a - tq);
			bb = w8(bb - tq);
			a2 = w8(a2 - w8(z - q2));
			if (mode == 1) d |= (a > 0) << 3 | (bb > 0) << 4 | (a2 > don) << 5;
			else if (mode == 2) d |= (a >= 0) << 3 | (bb >= 0) << 4 | (a2 >= don) << 5;
			o.u = put(o.u, z - vt1, k);
			o.v = put(o.v, z - uo, k);
			o.x = put(o.x, imax(a, 0) - qe, k);
			o.y = put(o.y, imax(bb, 0) - qe, k);
			o.x2 = put(o.x2, imax(a2, don) - q2, k);
			o.d = put(o.d, d, k);
			continue;
		}
		take(mode, &z, &d, a, 1);
		take(mode, &z, &d, bb, 2);
		take(mode, &z, &d, a2, 3);
		take(mode, &z, &d, b2, 4);
		z = imin(z, mch);
		const int tq = w8(z - q), tq2 = w8(z - q2);
		a = w8(a - tq);
		bb = w8(bb - tq);
		a2 = w8(a2 - tq2);
		b2 = w8(b2 - tq2);
		if (mode == 1) d |= (a > 0) << 3 | (bb > 0) << 4 | (a2 > 0) << 5 | (b2 > 0) << 6;
		else if (mode == 2) d |= (a >= 0) << 3 | (bb >= 0) << 4 | (a2 >= 0) << 5 | (b2 >= 0) << 6;
		o.u = put(o.u, z - vt1, k);
		o.v = put(o.v, z - uo, k);
		o.x = put(o.x, imax(a, 0) - qe, k);
		o.y = put(o.y, imax(bb, 0) - qe, k);
		o.x2 = put(o.x2, imax(a2, 0) - qe2, k);
		o.y2 = put(o.y2, imax(b2, 0) - qe2, k);
		o.d = put(o.d, d, k);
	}
	return o;
}

static unsigned long long rng;
static unsigned next32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 16);
}
/* a random word: every byte value, or small values (ties), or a mix */
static unsigned word(void)
{
	const unsigned r = next32(), kind = r & 3;
	if (kind == 0) return next32();
	unsigned w = 0;
	for (int k = 0; k < 4; ++k) {
		const int v = kind == 1 ? (int)(next32() % 9) - 4 : (int)(next32() % 41) - 20;
		w |= (unsigned)(unsigned char)v << (8 * k);
	}
	return w;
}
static int byte_const(void) { return (next32() & 1) ? (int)(next32() % 13) - 2 : sx(next32(), 0); }

int main(int argc, char **argv)
{
	const long n = argc > 1 ? atol(argv[1]) : 1000000;
	rng = argc > 2 ? strtoull(argv[2], 0, 10) * 2654435761ull + 1 : 1;
	for (long i = 0; i < n; ++i) {
		const int q = byte_const(), q2 = byte_const(), e = byte_const(), e2 = byte_const(), mch = byte_const();
		const int qe = w8(q + e), qe2 = w8(q2 + e2);
		const LaneConsts k = {(unsigned char)mch * 0x01010101u, (unsigned char)q * 0x01010101u, (unsigned char)q2 * 0x01010101u,
		                      (unsigned char)qe * 0x01010101u, (unsigned char)qe2 * 0x01010101u};
		const unsigned s = word(), x = word(), x2 = word(), v = word(), u = word(), y = word(), y2 = word(), don = word(), acc = word();
		for (int spl = 0; spl < 2; ++spl)
			for (int mode = 0; mode < 3; ++mode) {
				const LaneCells a = lanes_cells(mode, spl, s, x, x2, v, u, y, y2, don, acc, &k);
				const LaneCells b = cells_one_by_one(mode, spl, s, x, x2, v, u, y, y2, don, acc, q, q2, qe, qe2, mch);
				const int same = a.u == b.u && a.v == b.v && a.x == b.x && a.y == b.y && a.x2 == b.x2 && (spl || a.y2 == b.y2) &&
				                 (mode == 0 || a.d == b.d);
				if (!same) {
					printf("differ: word %ld spl %d mode %d, s %08x x %08x x2 %08x v %08x u %08x y %08x y2 %08x don %08x acc %08x, "
					       "q %d q2 %d e %d e2 %d mch %d\n  lanes   u %08x v %08x x %08x y %08x x2 %08x y2 %08x d %08x\n"
					       "  one by one u %08x v %08x x %08x y %08x x2 %08x y2 %08x d %08x\n",
					       i, spl, mode, s, x, x2, v, u, y, y2, don, acc, q, q2, e, e2, mch, a.u, a.v, a.x, a.y, a.x2, a.y2, a.d, b.u,
					       b.v, b.x, b.y, b.x2, b.y2, b.d);
					return 1;
				}
			}
	}
	printf("%ld words, 6 forms each: all equal\n", n);
	return 0;
}
