// The fill of minimap2 2.31's mg_lchain_dp (lchain.c:169-207): f, p, v, t of every anchor, bit-exact with
// warpalign::chain::twin::fill_anchors. A group of W warps per job (eight for long jobs, else one), jobs taken longest first from a shared counter; anchors i in order (f[i] needs every
// earlier f); predecessors j = i-1 down to st in chunks of 32*W, one per thread. A chunk is scored in
// parallel, then upstream's sequential update is replayed with scans in visiting order:
//  - max_f: candidate j improves iff its score beats the carried max_f and every score visited before it
//    (an exclusive prefix max), so max_j is the first thread reaching the chunk's maximum (ties: larger j);
//  - t[j] == i holds iff an already visited valid j' > j has p[j'] == j (p[j'] < j' always): marks from
//    earlier chunks are in t (written before this chunk), marks inside the chunk are ORed in shared memory;
//  - n_skip is a composition of x -> max(x + a, b) steps (-1 floored at 0 on an improvement, +1 on a
//    marked non-improving candidate), prefix-composed, so the first thread with n_skip > max_skip breaks.
// Only candidates visited before the break write t, as upstream does. Float code uses explicit _rn
// intrinsics (and the module is compiled with --fmad=false): no contraction, the x86 SSE rounding.

#define FULL 0xffffffffu
#define SC_MIN (-2147483647 - 1)
// "no floor" in the n_skip steps; far below any count plus 32 steps of -1
#define NO_FLOOR (-(1 << 29))
#define KEY_NONE (-9223372036854775807LL - 1)

// per job: the clamped parameters (twin::Params) as ints, the two penalties as float bits
#define NPAR 10
struct Par {
	int max_dist_x, max_dist_y, bw, max_skip, max_iter, n_seg, is_cdna;
	float gap, skip;
};

__device__ __forceinline__ int wadd(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int wsub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }

// C's (int)f on x86-64 (cvttss2si): INT32_MIN for NaN and out of range; CUDA's conversion saturates instead.
__device__ __forceinline__ int cvtt(float x)
{
	return (x >= -2147483648.0f && x < 2147483648.0f) ? (int)x : SC_MIN;
}

// mmpriv.h:139
__device__ __forceinline__ float mg_log2(float x)
{
	unsigned zi = __float_as_uint(x);
	// uint32 arithmetic in C, converted to float afterwards
	float log_2 = __uint2float_rn(((zi >> 23) & 255u) - 128u);
	zi &= ~(255u << 23);
	zi += 127u << 23;
	float z = __uint_as_float(zi);
	float poly = __fadd_rn(__fmul_rn(__fadd_rn(__fmul_rn(-0.34484843f, z), 2.02466578f), z), -0.67487759f);
	return __fadd_rn(log_2, poly);
}

// lchain.c:113
__device__ __forceinline__ int comput_sc(ulonglong2 ai, ulonglong2 aj, const Par &pr)
{
	int dq = wsub((int)(unsigned)ai.y, (int)(unsigned)aj.y);
	if (dq <= 0 || dq > pr.max_dist_x) return SC_MIN;
	bool same_seg = ((ai.y >> 48) & 0xff) == ((aj.y >> 48) & 0xff);
	int dr = (int)(unsigned)(ai.x - aj.x);
	if (same_seg && (dr == 0 || dq > pr.max_dist_y)) return SC_MIN;
	int dd = dr > dq ? wsub(dr, dq) : wsub(dq, dr);
	if (same_seg && dd > pr.bw) return SC_MIN;
	if (pr.n_seg > 1 && !pr.is_cdna && same_seg && dr > pr.max_dist_y) return SC_MIN;
	int dg = dr < dq ? dr : dq;
	int q_span = (int)((aj.y >> 32) & 0xff);
	int sc = q_span < dg ? q_span : dg;
	if (dd != 0 || dg > q_span) {
		float lin_pen = __fadd_rn(__fmul_rn(pr.gap, __int2float_rn(dd)), __fmul_rn(pr.skip, __int2float_rn(dg)));
		float log_pen = dd >= 1 ? mg_log2(__int2float_rn(wadd(dd, 1))) : 0.0f;
		float pen;
		if (pr.is_cdna || !same_seg) {
			if (!same_seg && dr == 0) return wadd(sc, 1);
			pen = (dr > dq || !same_seg) ? (lin_pen < log_pen ? lin_pen : log_pen)
			                             : __fadd_rn(lin_pen, __fmul_rn(0.5f, log_pen));
		} else {
			pen = __fadd_rn(lin_pen, __fmul_rn(0.5f, log_pen));
		}
		sc = wsub(sc, cvtt(pen));
	}
	return sc;
}

// One group's scratch: per warp its chunk summaries (max score, n_skip step, first break), the chunk's marks.
template <int W> struct Shared {
	unsigned marks[W];
	int wmax[W], wa[W], wb[W], wbrk[W];
	long long best[W];
	int res_max, res_ns, res_idx, job;
};

template <int W> __device__ __forceinline__ void group_sync()
{
	if (W == 1) __syncwarp(); else __syncthreads();
}

// a: every job's anchors back to back (x, y); off[k]: job k's first anchor; n[k]: its count; par: NPAR ints
// per job; order[begin, end): the job indices this kernel takes, longest first; f, p, v, t: per anchor like
// a (t zeroed); cnt: 3 per job (pairs scored in the main scan, skip breaks, rescues); next: the work counter
// (zeroed).
template <int W>
__device__ void fill_jobs(Shared<W> &sh, const ulonglong2 *__restrict__ a, const long long *__restrict__ off,
                          const int *__restrict__ n_anchors, const int *__restrict__ par,
                          const int *__restrict__ order, int begin, int end, int *f, int *p, int *v, int *t,
                          unsigned long long *cnt, int *next)
{
	const int C = 32 * W;
	const int tid = threadIdx.x % C, lane = tid & 31, w = tid >> 5;
	if (tid < W) sh.marks[tid] = 0;
	if (tid == 0) sh.res_idx = C;
	for (;;) {
		if (tid == 0) sh.job = begin + atomicAdd(next, 1);
		group_sync<W>();
		const int wj = sh.job;
		group_sync<W>();
		if (wj >= end) return;
		const int job = order[wj];
		const long long o = off[job];
		const int n = n_anchors[job];
		const int *pp = par + (long long)job * NPAR;
		Par pr;
		pr.max_dist_x = pp[0];
		pr.max_dist_y = pp[1];
		pr.bw = pp[2];
		pr.max_skip = pp[3];
		pr.max_iter = pp[4];
		pr.n_seg = pp[5];
		pr.is_cdna = pp[6];
		pr.gap = __int_as_float(pp[7]);
		pr.skip = __int_as_float(pp[8]);
		const ulonglong2 *A = a + o;
		int *F = f + o, *P = p + o, *V = v + o, *T = t + o;
		// the uint64 image of C's int64 max_dist_x in the x comparisons
		const unsigned long long mdx = (unsigned long long)(long long)pr.max_dist_x;
		unsigned long long n_visited = 0, n_breaks = 0, n_rescued = 0;
		long long st = 0;
		int max_ii = -1;
		for (int i = 0; i < n; ++i) {
			const ulonglong2 ai = A[i];
			// while (st < i && (other target/strand || too far)) ++st, 32 candidates at a time (every warp alike)
			for (;;) {
				long long s = st + lane;
				bool adv = false;
				if (s < i) {
					unsigned long long x = A[s].x;
					adv = (ai.x >> 32) != (x >> 32) || ai.x > x + mdx;
				}
				unsigned stop = __ballot_sync(FULL, !adv);
				if (stop == 0) {
					st += 32;
				} else {
					st += __ffs(stop) - 1;
					break;
				}
			}
			if ((long long)i - st > (long long)pr.max_iter) st = (long long)i - pr.max_iter;
			int max_f = (int)((ai.y >> 32) & 0xff), max_j = -1, n_skip = 0;
			long long end_j = st - 1;
			for (long long top = (long long)i - 1; top >= st; top -= C) {
				const long long j = top - tid;
				bool valid = false, marked = false;
				int s = SC_MIN, pj = -1;
				if (j >= st) {
					int sc = comput_sc(ai, A[j], pr);
					if (sc != SC_MIN) {
						valid = true;
						s = wadd(sc, F[j]);
						pj = P[j];
						marked = T[j] == i;
					}
				}
				const long long dp_ = top - pj; // the thread of p[j] in this chunk, if there
				if (valid && pj >= 0 && dp_ < C) atomicOr(&sh.marks[dp_ >> 5], 1u << (dp_ & 31));
				// prefix max of the scores visited so far (invalid threads are neutral)
				int m = s;
				for (int d = 1; d < 32; d <<= 1) {
					int u = __shfl_up_sync(FULL, m, d);
					if (lane >= d) m = max(m, u);
				}
				if (lane == 31) sh.wmax[w] = m;
				group_sync<W>();
				marked = marked || ((sh.marks[w] >> lane) & 1);
				int pre = SC_MIN;
				for (int k = 0; k < w; ++k) pre = max(pre, sh.wmax[k]);
				int before = __shfl_up_sync(FULL, m, 1);
				if (lane == 0) before = SC_MIN;
				const bool imp = valid && s > max(max_f, max(pre, before));
				// n_skip steps x -> max(x + sa, sb), prefix-composed in visiting order
				int sa = 0, sb = NO_FLOOR;
				if (imp) {
					sa = -1;
					sb = 0;
				} else if (valid && marked) {
					sa = 1;
				}
				for (int d = 1; d < 32; d <<= 1) {
					int ua = __shfl_up_sync(FULL, sa, d), ub = __shfl_up_sync(FULL, sb, d);
					if (lane >= d) {
						sb = max(ub + sa, sb);
						sa = ua + sa;
					}
				}
				if (lane == 31) {
					sh.wa[w] = sa;
					sh.wb[w] = sb;
				}
				group_sync<W>();
				if (tid < W) sh.marks[tid] = 0; // read by every thread before the sync above
				int x = n_skip;
				for (int k = 0; k < w; ++k) x = max(x + sh.wa[k], sh.wb[k]);
				const int ns = max(x + sa, sb);
				const unsigned brk = __ballot_sync(FULL, valid && !imp && marked && ns > pr.max_skip);
				if (lane == 0) sh.wbrk[w] = brk ? 32 * w + __ffs(brk) - 1 : C;
				group_sync<W>();
				int first = C;
				for (int k = 0; k < W; ++k) first = min(first, sh.wbrk[k]);
				const int n_in = (int)min((long long)C, top - st + 1);
				const int last = first < C ? first : n_in - 1; // the last thread visited
				if (tid == last) {
					sh.res_max = max(pre, m);
					sh.res_ns = ns;
				}
				group_sync<W>();
				const int chunk_max = sh.res_max;
				if (chunk_max > max_f && imp && s == chunk_max) atomicMin(&sh.res_idx, tid);
				group_sync<W>();
				if (chunk_max > max_f) {
					max_f = chunk_max;
					max_j = (int)(top - sh.res_idx);
				}
				n_skip = sh.res_ns;
				n_visited += last + 1;
				// upstream's t update, for the candidates visited before the break
				if (valid && pj >= 0 && (tid < last || first == C)) T[pj] = i;
				group_sync<W>();
				if (tid == 0) sh.res_idx = C;
				if (first < C) {
					end_j = top - last;
					++n_breaks;
					break;
				}
			}
			if (max_ii < 0 || ai.x - A[max_ii].x > mdx) {
				// argmax of f over [st, i-1], ties to the larger j (upstream scans down with a strict <)
				long long best = KEY_NONE;
				for (long long j = (long long)i - 1 - tid; j >= st; j -= C) {
					int fj = F[j];
					long long key = (long long)fj << 32 | (unsigned)j;
					if (fj != SC_MIN && key > best) best = key;
				}
				for (int d = 16; d > 0; d >>= 1) best = max(best, __shfl_xor_sync(FULL, best, d));
				if (lane == 0) sh.best[w] = best;
				group_sync<W>();
				for (int k = 0; k < W; ++k) best = max(best, sh.best[k]);
				max_ii = best == KEY_NONE ? -1 : (int)(unsigned)best;
			}
			if (max_ii >= 0 && max_ii < end_j) {
				int tmp = comput_sc(ai, A[max_ii], pr);
				if (tmp != SC_MIN && max_f < wadd(tmp, F[max_ii])) {
					max_f = wadd(tmp, F[max_ii]);
					max_j = max_ii;
					++n_rescued;
				}
			}
			const int vi = max_j >= 0 && V[max_j] > max_f ? V[max_j] : max_f;
			if (max_ii < 0 || (ai.x - A[max_ii].x <= mdx && F[max_ii] < max_f)) max_ii = i;
			if (tid == 0) {
				F[i] = max_f;
				P[i] = max_j;
				V[i] = vi;
			}
			group_sync<W>();
		}
		if (tid == 0) {
			cnt[3 * (long long)job] = n_visited;
			cnt[3 * (long long)job + 1] = n_breaks;
			cnt[3 * (long long)job + 2] = n_rescued;
		}
	}
}

// Blocks of 256 threads. The first `wide_blocks` run the jobs order[0, n_wide) with eight warps each, then
// join the others, which run order[n_wide, n_jobs) with a warp each; next[0] and next[1] count the two ranges.
extern "C" __global__ void __launch_bounds__(256)
chain_fill(const ulonglong2 *__restrict__ a, const long long *__restrict__ off, const int *__restrict__ n_anchors,
           const int *__restrict__ par, const int *__restrict__ order, int n_wide, int n_jobs, int wide_blocks,
           int *f, int *p, int *v, int *t, unsigned long long *cnt, int *next)
{
	__shared__ union {
		Shared<8> wide;
		Shared<1> warp[8];
	} sh;
	if (blockIdx.x < wide_blocks) {
		fill_jobs<8>(sh.wide, a, off, n_anchors, par, order, 0, n_wide, f, p, v, t, cnt, next);
		__syncthreads();
	}
	fill_jobs<1>(sh.warp[threadIdx.x >> 5], a, off, n_anchors, par, order, n_wide, n_jobs, f, p, v, t, cnt, next + 1);
}
