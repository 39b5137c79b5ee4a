// The fill of minimap2 2.31's mg_lchain_dp (lchain.c:169-207): f, p, v, t of every anchor, bit-exact with
// warpalign::chain::twin::fill_anchors. A warp per job, jobs taken longest first from a shared counter by
// persistent warps; anchors i in order (f[i] needs every earlier f); predecessors j = i-1 down to st in
// chunks of 32, one per lane. A job's time is its anchors times the latency of one anchor (a batch's
// longest job sets the launch's length), so the last 32 anchors (x, y, f, p, v) stay in registers, lane l
// holding anchor i-1-l, and the first chunk, which is all that most anchors visit, reads no memory.
// A chunk is scored in parallel, then upstream's sequential update is replayed with scans in visiting order:
//  - max_f: candidate j improves iff its score beats the carried max_f and every score visited before it
//    (an exclusive prefix max), so max_j is the first lane reaching the chunk's maximum (ties: larger j);
//  - t[j] == i holds iff an already visited valid j' > j has p[j'] == j (p[j'] < j' always): marks from
//    earlier chunks of anchor i are in t (written before this chunk), marks inside the chunk are ORed;
//  - n_skip is a composition of x -> max(x + a, b) steps (-1 floored at 0 on an improvement, +1 on a
//    marked non-improving candidate), prefix-composed, so the first lane with n_skip > max_skip breaks.
// Only candidates visited before the break write t, as upstream does. Float code uses explicit _rn
// intrinsics (and the module is compiled with --fmad=false): no contraction, the x86 SSE rounding.

#define FULL 0xffffffffu
#define SC_MIN (-2147483647 - 1)
// "no floor" in the n_skip steps; far below any count plus 32 steps of -1
#define NO_FLOOR (-(1 << 29))
#define KEY_NONE (-9223372036854775807LL - 1)

__device__ __forceinline__ unsigned long long shfl_u64(unsigned long long x, int src)
{
	return __shfl_sync(FULL, x, src);
}

__device__ __forceinline__ unsigned long long shfl_up_u64(unsigned long long x, int d)
{
	return __shfl_up_sync(FULL, x, d);
}

// per job, as src/chain/gpu.rs writes them (its ChainParams): the clamped parameters (twin::Params), the two
// penalties as float bits
struct ChainParams {
	int max_dist_x, max_dist_y, bw, max_skip, max_iter, n_seg, is_cdna, gap_bits, skip_bits;
};

// the same, the penalties as floats
struct Par {
	int max_dist_x, max_dist_y, bw, max_skip, max_iter, n_seg, is_cdna;
	float gap, skip;
};


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


// a: every job's anchors back to back (x, y); off[k]: job k's first anchor; n[k]: its count; par: each job's
// parameters; order[0, n_jobs): the jobs, longest first; f, p, v, t: per anchor like a (t zeroed); next: the work
// counter (zeroed). out and info are page-locked host memory: as a job ends, its first `arrays` of f, p, v, t
// go to out (array k of anchor i at k * total + i) and info[4 * job + 1..4) gets its counters (pairs scored in
// the main scan, skip breaks, rescues), then info[4 * job] = 1 says that all of it is there, so the host can
// take each job as it ends. Any grid of whole warps.
extern "C" __global__ void __launch_bounds__(256)
chain_fill(const ulonglong2 *__restrict__ a, const long long *__restrict__ off, const int *__restrict__ n_anchors,
           const ChainParams *__restrict__ par, const int *__restrict__ order, int n_jobs, int *f, int *p, int *v, int *t,
           int *next, int *out, long long total, int arrays, unsigned long long *info)
{
	const int lane = threadIdx.x & 31;
	for (;;) {
		int wj = 0;
		if (lane == 0) wj = atomicAdd(next, 1);
		wj = __shfl_sync(FULL, wj, 0);
		if (wj >= n_jobs) return;
		const int job = order[wj];
		const long long o = off[job];
		const int n = n_anchors[job];
		const ChainParams &pp = par[job];
		Par pr;
		pr.max_dist_x = pp.max_dist_x;
		pr.max_dist_y = pp.max_dist_y;
		pr.bw = pp.bw;
		pr.max_skip = pp.max_skip;
		pr.max_iter = pp.max_iter;
		pr.n_seg = pp.n_seg;
		pr.is_cdna = pp.is_cdna;
		pr.gap = __int_as_float(pp.gap_bits);
		pr.skip = __int_as_float(pp.skip_bits);
		const ulonglong2 *A = a + o;
		int *F = f + o, *P = p + o, *V = v + o, *T = t + o;
		// the uint64 image of C's int64 max_dist_x in the x comparisons
		const unsigned long long mdx = (unsigned long long)(long long)pr.max_dist_x;
		unsigned long long n_visited = 0, n_breaks = 0, n_rescued = 0;
		long long st = 0;
		// the window: lane l holds anchor i-1-l (x, y, f, p, v)
		unsigned long long wx = 0, wy = 0;
		int wf = 0, wp = -1, wv = 0;
		// anchors i..i+31 and the next 32, loaded a block ahead
		ulonglong2 cur = make_ulonglong2(0, 0), nxt = make_ulonglong2(0, 0);
		if (lane < n) cur = __ldg(&A[lane]);
		if (32 + lane < n) nxt = __ldg(&A[32 + lane]);
		// max_ii of upstream, with its anchor, f and v at hand
		int max_ii = -1, f_ii = 0, v_ii = 0;
		unsigned long long x_ii = 0, y_ii = 0;
		for (int i = 0; i < n; ++i) {
			if ((i & 31) == 0 && i > 0) {
				cur = nxt;
				nxt = make_ulonglong2(0, 0);
				if (i + 32 + lane < n) nxt = __ldg(&A[i + 32 + lane]);
			}
			ulonglong2 ai;
			ai.x = shfl_u64(cur.x, i & 31);
			ai.y = shfl_u64(cur.y, i & 31);
			// while (st < i && (other target/strand || too far)) ++st, 32 candidates at a time
			for (;;) {
				long long s = st + lane;
				bool adv = false;
				if (s < i) {
					unsigned long long x = __ldg(&A[s].x);
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
			int max_f = (int)((ai.y >> 32) & 0xff), max_j = -1, v_j = 0, n_skip = 0;
			long long end_j = st - 1;
			for (long long top = (long long)i - 1; top >= st; top -= 32) {
				const long long j = top - lane;
				const bool first_chunk = top == (long long)i - 1;
				bool valid = false, marked = false;
				int s = SC_MIN, pj = -1, vj = 0;
				if (j >= st) {
					ulonglong2 aj;
					int fj;
					if (first_chunk) {
						aj.x = wx;
						aj.y = wy;
						fj = wf;
						pj = wp;
						vj = wv;
					} else {
						aj = __ldg(&A[j]);
						fj = F[j];
						pj = P[j];
						vj = V[j];
						// marks of this anchor's earlier chunks
						marked = T[j] == i;
					}
					int sc = comput_sc(ai, aj, pr);
					if (sc != SC_MIN) {
						valid = true;
						s = wadd(sc, fj);
					} else {
						pj = -1;
					}
				}
				// marks inside the chunk: p[j] is at lane top - p[j] when that is below 32 (always above this lane)
				const long long dp_ = top - pj;
				// (every lane must reach the reduction: no short circuit)
				const unsigned in_chunk = __reduce_or_sync(FULL, valid && pj >= 0 && dp_ < 32 ? 1u << dp_ : 0u);
				marked = marked || ((in_chunk >> lane) & 1);
				// prefix max of the scores visited so far (invalid lanes are neutral)
				int m = s;
				for (int d = 1; d < 32; d <<= 1) {
					int u = __shfl_up_sync(FULL, m, d);
					if (lane >= d) m = max(m, u);
				}
				int before = __shfl_up_sync(FULL, m, 1);
				if (lane == 0) before = SC_MIN;
				const bool imp = valid && s > max(max_f, before);
				const unsigned imp_mask = __ballot_sync(FULL, imp);
				const unsigned mark_mask = __ballot_sync(FULL, valid && !imp && marked);
				const int n_in = (int)min(32LL, top - st + 1);
				int first = 32, ns_last;
				if (mark_mask == 0) {
					// only floored -1 steps: no break, n_skip drops by the improvements
					ns_last = max(n_skip - __popc(imp_mask), 0);
				} else {
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
					const int ns = max(n_skip + sa, sb);
					const unsigned brk = __ballot_sync(FULL, valid && !imp && marked && ns > pr.max_skip);
					if (brk) first = __ffs(brk) - 1;
					ns_last = __shfl_sync(FULL, ns, first < 32 ? first : n_in - 1);
				}
				const int last = first < 32 ? first : n_in - 1; // the last lane visited
				const int chunk_max = __shfl_sync(FULL, m, last);
				if (chunk_max > max_f) {
					// the first lane reaching it improves (a later one with an equal score does not)
					const int k = __ffs(__ballot_sync(FULL, imp && s == chunk_max)) - 1;
					max_f = chunk_max;
					max_j = (int)(top - k);
					v_j = __shfl_sync(FULL, vj, k);
				}
				n_skip = ns_last;
				n_visited += last + 1;
				// upstream's t update, for the candidates visited before the break
				if (valid && pj >= 0 && (lane < last || first == 32)) T[pj] = i;
				__syncwarp();
				if (first < 32) {
					end_j = top - last;
					++n_breaks;
					break;
				}
			}
			if (max_ii < 0 || ai.x - x_ii > mdx) {
				// argmax of f over [st, i-1], ties to the larger j (upstream scans down with a strict <)
				long long best = KEY_NONE;
				for (long long j = (long long)i - 1 - lane; j >= st; j -= 32) {
					int fj = j >= (long long)i - 32 ? wf : F[j];
					long long key = (long long)fj << 32 | (unsigned)j;
					if (fj != SC_MIN && key > best) best = key;
				}
				for (int d = 16; d > 0; d >>= 1) best = max(best, __shfl_xor_sync(FULL, best, d));
				max_ii = best == KEY_NONE ? -1 : (int)(unsigned)best;
				if (max_ii >= 0) {
					// from the window's lane i-1-max_ii when it is there
					const int from = i - 1 - max_ii;
					const bool in_window = from < 32;
					unsigned long long wxs = shfl_u64(wx, in_window ? from : 0), wys = shfl_u64(wy, in_window ? from : 0);
					int wvs = __shfl_sync(FULL, wv, in_window ? from : 0);
					if (in_window) {
						x_ii = wxs;
						y_ii = wys;
						v_ii = wvs;
					} else {
						const ulonglong2 aii = __ldg(&A[max_ii]);
						x_ii = aii.x;
						y_ii = aii.y;
						v_ii = V[max_ii];
					}
					f_ii = (int)(best >> 32);
				}
			}
			if (max_ii >= 0 && max_ii < end_j) {
				int tmp = comput_sc(ai, make_ulonglong2(x_ii, y_ii), pr);
				if (tmp != SC_MIN && max_f < wadd(tmp, f_ii)) {
					max_f = wadd(tmp, f_ii);
					max_j = max_ii;
					v_j = v_ii;
					++n_rescued;
				}
			}
			const int vi = max_j >= 0 && v_j > max_f ? v_j : max_f;
			if (max_ii < 0 || (ai.x - x_ii <= mdx && f_ii < max_f)) {
				max_ii = i;
				x_ii = ai.x;
				y_ii = ai.y;
				f_ii = max_f;
				v_ii = vi;
			}
			if (lane == 0) {
				F[i] = max_f;
				P[i] = max_j;
				V[i] = vi;
			}
			// anchor i enters the window at lane 0
			wx = shfl_up_u64(wx, 1);
			wy = shfl_up_u64(wy, 1);
			wf = __shfl_up_sync(FULL, wf, 1);
			wp = __shfl_up_sync(FULL, wp, 1);
			wv = __shfl_up_sync(FULL, wv, 1);
			if (lane == 0) {
				wx = ai.x;
				wy = ai.y;
				wf = max_f;
				wp = max_j;
				wv = vi;
			}
			__syncwarp();
		}
		for (int k = lane; k < n; k += 32) {
			int *to = out + o + k;
			to[0] = F[k];
			to[total] = P[k];
			if (arrays == 4) {
				to[2 * total] = V[k];
				to[3 * total] = T[k];
			}
		}
		if (lane == 0) {
			info[4 * (long long)job + 1] = n_visited;
			info[4 * (long long)job + 2] = n_breaks;
			info[4 * (long long)job + 3] = n_rescued;
		}
		// every lane's writes reach the host before the flag
		__threadfence_system();
		__syncwarp();
		if (lane == 0) {
			__threadfence_system();
			*(volatile unsigned long long *)&info[4 * (long long)job] = 1;
		}
	}
}
