#include "ksw_lanes.cuh"
// the cell update alone, 4 words a thread, fed back for n steps (mode 1: CIGAR, ksw_extd2)
extern "C" __global__ void k8(unsigned *io, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned s = io[8 * i], x = io[8 * i + 1], x2 = io[8 * i + 2], v = io[8 * i + 3], u = io[8 * i + 4], y = io[8 * i + 5], y2 = io[8 * i + 6];
	const LaneConsts k = {0x02020202u, 0x04040404u, 0x18181818u, 0x06060606u, 0x19191919u};
	unsigned d = 0;
	for (int r = 0; r < n; ++r) {
		const LaneCells c = lanes_cells(1, 0, s, x, x2, v, u, y, y2, 0, 0, &k);
		x = c.x, x2 = c.x2, v = c.v, u = c.u, y = c.y, y2 = c.y2, d ^= c.d;
		s = __funnelshift_l(s, d, 3);
	}
	io[8 * i] = x ^ x2 ^ v ^ u ^ y ^ y2 ^ d;
}

// the same update on two 16-bit lanes a word (where no difference leaves int8, the same values): DPX's max with
// choice (__vibmax_s16x2) for the direction, packed 16-bit adds, subtracts and maxima
__device__ __forceinline__ unsigned add2(unsigned a, unsigned b) { unsigned d; asm("add.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
__device__ __forceinline__ unsigned sub2(unsigned a, unsigned b) { return __vsub2(a, b); }
__device__ __forceinline__ unsigned max2(unsigned a, unsigned b) { unsigned d; asm("max.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
__device__ __forceinline__ unsigned min2(unsigned a, unsigned b) { unsigned d; asm("min.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
__device__ __forceinline__ void take2(unsigned *z, unsigned *d, unsigned c, unsigned dir)
{
	bool hi, lo;
	*z = __vibmax_s16x2(*z, c, &hi, &lo); // hi, lo: the old z >= c (mode 1 keeps the first of equal ones)
	const unsigned keep = (hi ? 0xffff0000u : 0u) | (lo ? 0xffffu : 0u);
	*d = (*d & keep) | (dir & ~keep);
}
// 1 in bit 3 (+16) of each half whose value is > 0
__device__ __forceinline__ unsigned pos2(unsigned a) { return (sub2(0, a) >> 12) & 0x00080008u; }
extern "C" __global__ void k16(unsigned *io, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned s = io[8 * i], x = io[8 * i + 1], x2 = io[8 * i + 2], v = io[8 * i + 3], u = io[8 * i + 4], y = io[8 * i + 5], y2 = io[8 * i + 6];
	const unsigned mch = 0x00020002u, q = 0x00040004u, q2 = 0x00180018u, qe = 0x00060006u, qe2 = 0x00190019u;
	unsigned dd = 0;
	for (int r = 0; r < n; ++r) {
		unsigned z = s, d = 0;
		unsigned a = add2(x, v), b = add2(y, u), a2 = add2(x2, v), b2 = add2(y2, u);
		take2(&z, &d, a, 0x00010001u);
		take2(&z, &d, b, 0x00020002u);
		take2(&z, &d, a2, 0x00030003u);
		take2(&z, &d, b2, 0x00040004u);
		z = min2(z, mch);
		const unsigned tq = sub2(z, q), tq2 = sub2(z, q2);
		a = sub2(a, tq), b = sub2(b, tq), a2 = sub2(a2, tq2), b2 = sub2(b2, tq2);
		d |= pos2(a) | pos2(b) << 1 | pos2(a2) << 2 | pos2(b2) << 3;
		x2 = sub2(max2(a2, 0), qe2), y2 = sub2(max2(b2, 0), qe2);
		const unsigned un = sub2(z, v), vn = sub2(z, u);
		u = un, v = vn, x = sub2(max2(a, 0), qe), y = sub2(max2(b, 0), qe);
		dd ^= d;
		s = __funnelshift_l(s, dd, 3);
	}
	io[8 * i] = x ^ x2 ^ v ^ u ^ y ^ y2 ^ dd;
}
