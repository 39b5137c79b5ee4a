// Batched ksw_extd2_sse (minimap2 2.31, SSE4.1 build), bit-exact with the Rust twin
// (src/ksw/twin/extd2.rs), which is verified against upstream.
//
// ksw_extd2_dp: one thread block per job. The block walks the anti-diagonals r = 0..qlen+tlen-2 as the SSE
// code does; the threads take the cells t of the padded band [st, en] (16-aligned) and of the scored bytes
// [st0, E] (E = end of the 16-byte score stores from st0). Cell t reads the old x, x2, v at t - 1 and the old
// u, y, y2 at t, and writes all six at t. x, x2, v are double-buffered by the parity of r, so one barrier per
// anti-diagonal suffices: every read of x/x2/v at t - 1 is of a cell written on r - 1 or never written (the
// band only moves forward), so both buffers agree wherever they are read. u, y, y2 and H are single buffers
// (stale lanes kept as in the SSE code), read and written by the same cell; the one cross-cell read of H
// (H[en0 - 1] for cell en0) is handed over through shared memory from the diagonal before. s[], sf[], qr[]
// are one zeroed image per job laid out as the kcalloc block of the C code (score stores past the end of s[]
// land in sf[0..15] as in C; those writes are deferred past the barrier so that every read of this diagonal
// sees the old bytes).
//
// The per-anti-diagonal max reproduces the 4-lane epi32 scan of the SSE code and its tie-break as a priority:
// on equal H, cell en0 wins, then scan cells ordered by (lane = (t - st0) % 4, t), then tail cells by t.
// It is a 64-bit max-reduction of (H, ~rank). The z-drop/mte/mqe/score logic runs redundantly in every
// thread (uniform control flow).
//
// ksw_extd2_bt: one thread per job, ksw_backtrack with is_rot = 1 over the per-cell traceback bytes p; the
// off/off_end of each row are recomputed from r. CIGAR ops are written in backtrack order (last op first);
// ksw_extd2_pack copies them into a compact buffer, reversed unless KSW_EZ_REV_CIGAR.

typedef signed char i8;
typedef unsigned char u8;

#define NEG_INF (-0x40000000)
#define F_SCORE_ONLY 0x01
#define F_RIGHT 0x02
#define F_GENERIC_SC 0x04
#define F_APPROX_MAX 0x08
#define F_APPROX_DROP 0x10
#define F_EXTZ_ONLY 0x40
#define F_REV_CIGAR 0x80

// per-job parameters (int32), as written by src/ksw/gpu.rs
#define P_QLEN 0
#define P_TLEN 1
#define P_M 2
#define P_MAT_OFF 3
#define P_Q 4
#define P_E 5
#define P_Q2 6
#define P_E2 7
#define P_QE_H 8
#define P_W 9
#define P_ZDROP 10
#define P_END_BONUS 11
#define P_FLAG 12
#define P_ROW_BYTES 13
#define P_TT16 14
#define P_LONG_THRES 15
#define P_LONG_DIFF 16
#define P_MCH 17
#define P_MIS 18
#define P_SCN 19
#define NP 20

// per-job offsets (uint64)
#define O_IMG 0
#define O_WS 1
#define O_H 2
#define O_P 3
#define O_CIG 4
#define NO 5

// per-job results (int32)
#define R_MAX 0
#define R_ZDROPPED 1
#define R_MAX_Q 2
#define R_MAX_T 3
#define R_MQE 4
#define R_MQE_T 5
#define R_MTE 6
#define R_MTE_Q 7
#define R_SCORE 8
#define R_REACH_END 9
#define R_N_CIGAR 10
#define NR 12

#define MAX_WARPS 32

// int8 wrap-around, as _mm_add_epi8 / _mm_sub_epi8
__device__ __forceinline__ int w8(int x) { return (int)(i8)(u8)(x & 0xff); }
__device__ __forceinline__ int wadd(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int wsub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }

struct Ez {
	int max; // the 31-bit field, always >= 0
	int zdropped, max_q, max_t, mqe, mqe_t, mte, mte_q, score;
};

__device__ __forceinline__ bool apply_zdrop(Ez &ez, int h, int r, int t, int zdrop, int e2)
{
	if (h > ez.max) {
		ez.max = h & 0x7fffffff;
		ez.max_t = t;
		ez.max_q = r - t;
	} else if (t >= ez.max_t && r - t >= ez.max_q) {
		int tl = t - ez.max_t, ql = (r - t) - ez.max_q;
		int l = tl > ql ? tl - ql : ql - tl;
		if (zdrop >= 0 && wsub(ez.max, h) > wadd(zdrop, (int)((unsigned)l * (unsigned)e2))) {
			ez.zdropped = 1;
			return true;
		}
	}
	return false;
}

__device__ __forceinline__ void band(int r, int qlen, int tlen, int w, int &st0, int &en0)
{
	int st = 0, en = tlen - 1;
	if (st < r - qlen + 1) st = r - qlen + 1;
	if (en > r) en = r;
	if (st < (r - w + 1) >> 1) st = (r - w + 1) >> 1;
	if (en > (r + w) >> 1) en = (r + w) >> 1;
	st0 = st;
	en0 = en;
}

template <int MODE>
__device__ __forceinline__ void dp_job(const int *__restrict__ P, const i8 *__restrict__ mat, u8 *im, i8 *ws, int *Hbuf,
                                       u8 *pj, int *res)
{
	const int tid = threadIdx.x, bs = blockDim.x, lane = tid & 31, warp = tid >> 5, nwarps = (bs + 31) >> 5;
	const int qlen = P[P_QLEN], tlen = P[P_TLEN], m = P[P_M];
	const int q = P[P_Q], e = P[P_E], q2 = P[P_Q2], e2 = P[P_E2], qe_h = P[P_QE_H], w = P[P_W];
	const int zdrop = P[P_ZDROP], flag = P[P_FLAG];
	const long long row_bytes = P[P_ROW_BYTES];
	const int tt16 = P[P_TT16], long_thres = P[P_LONG_THRES], long_diff = P[P_LONG_DIFF];
	const int mch = P[P_MCH], sc_mis = P[P_MIS], sc_n = P[P_SCN];
	const int qe = w8(q + e), qe2 = w8(q2 + e2), neg_qe = w8(-q - e), neg_qe2 = w8(-q2 - e2);
	const int m1 = m - 1;
	const bool approx = (flag & F_APPROX_MAX) != 0, generic = (flag & F_GENERIC_SC) != 0;
	const int sf_off = tt16, qr_off = 2 * tt16;

	i8 *U = ws, *Y = U + tt16, *Y2 = Y + tt16;
	i8 *const X0 = Y2 + tt16, *const X1 = Y2 + 2 * tt16, *const V0 = Y2 + 3 * tt16, *const V1 = Y2 + 4 * tt16;
	i8 *const X20 = Y2 + 5 * tt16, *const X21 = Y2 + 6 * tt16;
	int *const H = Hbuf;

	__shared__ unsigned long long s_key[2][MAX_WARPS];
	__shared__ int s_hst[2], s_hen[2], s_a0[2], s_a1[2], s_hprev[2];

	for (int i = tid; i < tt16; i += bs) {
		U[i] = Y[i] = X0[i] = X1[i] = V0[i] = V1[i] = (i8)neg_qe;
		Y2[i] = X20[i] = X21[i] = (i8)neg_qe2;
		if (!approx) H[i] = NEG_INF;
	}
	__syncthreads();

	Ez ez;
	ez.max = 0; ez.zdropped = 0; ez.max_q = -1; ez.max_t = -1; ez.mqe = NEG_INF; ez.mqe_t = -1;
	ez.mte = NEG_INF; ez.mte_q = -1; ez.score = NEG_INF;
	int last_st = -1, last_en = -1, h0 = 0, last_h0_t = 0;

	for (int r = 0; r < qlen + tlen - 1; ++r) {
		const int b = r & 1;
		int st0, en0;
		band(r, qlen, tlen, w, st0, en0);
		if (st0 > en0) {
			ez.zdropped = 1;
			break;
		}
		const int st = st0 / 16 * 16, en = (en0 + 16) / 16 * 16 - 1;
		const int E = generic ? en0 : st0 + ((en0 - st0) / 16 + 1) * 16 - 1; // last byte the score stores write
		const int hi = E > en ? E : en;
		const int bnd_r = r == 0 ? w8(-q - e) : r < long_thres ? w8(-e) : r == long_thres ? w8(long_diff) : w8(-e2);
		const i8 *Xr = b ? X0 : X1, *X2r = b ? X20 : X21, *Vr = b ? V0 : V1;
		i8 *Xw = b ? X1 : X0, *X2w = b ? X21 : X20, *Vw = b ? V1 : V0;
		// H[en0(r + 1) - 1] as it stands after this diagonal, for the next one (its only read of a cell that
		// another thread updates on the same diagonal)
		int pn;
		{
			int st0n, en0n;
			band(r + 1, qlen, tlen, w, st0n, en0n);
			pn = en0n - 1;
		}
		const int qrr = qr_off + qlen - 1 - r;
		const int en1 = st0 + (en0 - st0) / 4 * 4;
		u8 *prow = pj + (long long)r * row_bytes - st;
		unsigned long long kbest = 0;
		int spill_t = -1, spill_v = 0;

		if (!approx && tid == 0 && (pn < st0 || pn > en0) && pn >= 0) s_hprev[b ^ 1] = H[pn];
		if (approx && tid == 0 && r > 0) {
			// u at last_h0_t + 1 outside [st, en] is a stale byte nobody writes on this diagonal
			int p2 = last_h0_t + 1;
			if ((p2 < st || p2 > en) && p2 >= 0 && p2 < tt16) s_a1[b] = U[p2];
		}

		for (int t = st + tid; t <= hi; t += bs) {
			int sc = 0;
			const bool scored = t >= st0 && t <= E;
			if (scored) {
				if (!generic) {
					int sq = im[sf_off + t], sr = im[qrr + t];
					sc = (sq == m1 || sr == m1) ? sc_n : sq == sr ? mch : sc_mis;
				} else {
					sc = mat[im[sf_off + t] * m + im[qrr + t]];
				}
				if (t < tt16) im[t] = (u8)sc;
				else spill_t = t, spill_v = sc;
			}
			if (t > en) continue;
			int z = scored ? w8(sc) : (int)(i8)im[t];
			int xt1, x2t1, vt1;
			if (t == st) {
				if (st > 0) {
					if (st - 1 >= last_st && st - 1 <= last_en) {
						xt1 = Xr[st - 1], x2t1 = X2r[st - 1], vt1 = Vr[st - 1];
					} else {
						xt1 = neg_qe, x2t1 = neg_qe2, vt1 = neg_qe;
					}
				} else {
					xt1 = neg_qe, x2t1 = neg_qe2, vt1 = bnd_r;
				}
			} else {
				xt1 = Xr[t - 1], x2t1 = X2r[t - 1], vt1 = Vr[t - 1];
			}
			int uo, yo, y2o;
			if (t == r) { // en >= r here
				uo = bnd_r, yo = neg_qe, y2o = neg_qe2;
			} else {
				uo = U[t], yo = Y[t], y2o = Y2[t];
			}
			int a = w8(xt1 + vt1), bb = w8(yo + uo), a2 = w8(x2t1 + vt1), b2 = w8(y2o + uo);
			int d = 0;
			if (MODE == 0) {
				z = max(max(max(max(z, a), bb), a2), b2);
			} else if (MODE == 1) {
				d = a > z ? 1 : 0;
				z = max(z, a);
				d = bb > z ? 2 : d;
				z = max(z, bb);
				d = a2 > z ? 3 : d;
				z = max(z, a2);
				d = b2 > z ? 4 : d;
				z = max(z, b2);
			} else {
				d = z > a ? 0 : 1;
				z = max(z, a);
				d = z > bb ? d : 2;
				z = max(z, bb);
				d = z > a2 ? d : 3;
				z = max(z, a2);
				d = z > b2 ? d : 4;
				z = max(z, b2);
			}
			z = min(z, mch);
			const int un = w8(z - vt1), vn = w8(z - uo);
			const int tq = w8(z - q), tq2 = w8(z - q2);
			a = w8(a - tq);
			bb = w8(bb - tq);
			a2 = w8(a2 - tq2);
			b2 = w8(b2 - tq2);
			U[t] = (i8)un;
			Vw[t] = (i8)vn;
			Xw[t] = (i8)w8(max(a, 0) - qe);
			Y[t] = (i8)w8(max(bb, 0) - qe);
			X2w[t] = (i8)w8(max(a2, 0) - qe2);
			Y2[t] = (i8)w8(max(b2, 0) - qe2);
			if (MODE == 1) {
				d |= (a > 0) << 3 | (bb > 0) << 4 | (a2 > 0) << 5 | (b2 > 0) << 6;
				prow[t] = (u8)d;
			} else if (MODE == 2) {
				d |= (a >= 0) << 3 | (bb >= 0) << 4 | (a2 >= 0) << 5 | (b2 >= 0) << 6;
				prow[t] = (u8)d;
			}
			if (!approx) {
				if (t >= st0 && t <= en0) {
					int hv;
					unsigned rank;
					if (r == 0) hv = vn - qe_h;
					else if (t < en0) hv = wadd(H[t], vn);
					else hv = en0 > 0 ? wadd(s_hprev[b], un) : wadd(H[en0], vn);
					H[t] = hv;
					if (t == pn) s_hprev[b ^ 1] = hv;
					if (t == st0) s_hst[b] = hv;
					if (t == en0) s_hen[b] = hv;
					if (t == en0) rank = 0;
					else if (t < en1) rank = 1u + ((unsigned)((t - st0) & 3) << 28) + (unsigned)((t - st0) >> 2);
					else rank = 1u + (4u << 28) + (unsigned)(t - en1);
					unsigned long long key = (unsigned long long)((unsigned)hv ^ 0x80000000u) << 32 | (0xffffffffu - rank);
					kbest = key > kbest ? key : kbest;
				}
			} else {
				if (t == last_h0_t) s_a0[b] = vn;
				if (t == last_h0_t + 1) s_a1[b] = un;
			}
		}
		if (!approx) {
			for (int o = 16; o > 0; o >>= 1) {
				unsigned long long k2 = __shfl_xor_sync(0xffffffffu, kbest, o);
				kbest = k2 > kbest ? k2 : kbest;
			}
			if (lane == 0) s_key[b][warp] = kbest;
		}
		__syncthreads();
		if (E >= tt16) { // score stores past s[] land in sf[]: after every read of this diagonal
			if (spill_t >= 0) im[spill_t] = (u8)spill_v;
			__syncthreads();
		}

		if (!approx) {
			unsigned long long kk = 0;
			for (int i = 0; i < nwarps; ++i) kk = s_key[b][i] > kk ? s_key[b][i] : kk;
			const int max_h = (int)((unsigned)(kk >> 32) ^ 0x80000000u);
			const unsigned rank = 0xffffffffu - (unsigned)kk;
			int max_t;
			if (rank == 0) max_t = en0;
			else if (rank < 1u + (4u << 28)) max_t = st0 + (int)((rank - 1u) >> 28) + 4 * (int)((rank - 1u) & 0x0fffffffu);
			else max_t = en1 + (int)(rank - 1u - (4u << 28));
			const int hen = s_hen[b], hst = s_hst[b];
			if (en0 == tlen - 1 && hen > ez.mte) ez.mte = hen, ez.mte_q = r - en0;
			if (r - st0 == qlen - 1 && hst > ez.mqe) ez.mqe = hst, ez.mqe_t = st0;
			if (apply_zdrop(ez, max_h, r, max_t, zdrop, e2)) break;
			if (r == qlen + tlen - 2 && en0 == tlen - 1) ez.score = hen;
		} else {
			if (r > 0) {
				if (last_h0_t >= st0 && last_h0_t <= en0 && last_h0_t + 1 >= st0 && last_h0_t + 1 <= en0) {
					int d0 = s_a0[b], d1 = s_a1[b];
					if (d0 > d1) h0 = wadd(h0, d0);
					else h0 = wadd(h0, d1), ++last_h0_t;
				} else if (last_h0_t >= st0 && last_h0_t <= en0) {
					h0 = wadd(h0, s_a0[b]);
				} else {
					++last_h0_t;
					h0 = wadd(h0, s_a1[b]);
				}
			} else {
				h0 = s_a0[b] - qe_h;
				last_h0_t = 0;
			}
			if ((flag & F_APPROX_DROP) && apply_zdrop(ez, h0, r, last_h0_t, zdrop, e2)) break;
			if (r == qlen + tlen - 2 && en0 == tlen - 1) ez.score = h0;
		}
		last_st = st;
		last_en = en;
	}
	if (tid == 0) {
		res[R_MAX] = ez.max;
		res[R_ZDROPPED] = ez.zdropped;
		res[R_MAX_Q] = ez.max_q;
		res[R_MAX_T] = ez.max_t;
		res[R_MQE] = ez.mqe;
		res[R_MQE_T] = ez.mqe_t;
		res[R_MTE] = ez.mte;
		res[R_MTE_Q] = ez.mte_q;
		res[R_SCORE] = ez.score;
		res[R_REACH_END] = 0;
		res[R_N_CIGAR] = 0;
	}
}

extern "C" __global__ void __launch_bounds__(1024) ksw_extd2_dp(const unsigned long long *__restrict__ offs,
                                                                const int *__restrict__ par,
                                                                const i8 *__restrict__ mats, u8 *img, i8 *ws, int *H,
                                                                u8 *p, int *res, int n_jobs)
{
	const int j = blockIdx.x;
	if (j >= n_jobs) return;
	const int *P = par + (long long)j * NP;
	const unsigned long long *O = offs + (long long)j * NO;
	const int flag = P[P_FLAG];
	const i8 *mat = mats + P[P_MAT_OFF];
	int *R = res + (long long)j * NR;
	if (flag & F_SCORE_ONLY) dp_job<0>(P, mat, img + O[O_IMG], ws + O[O_WS], H + O[O_H], p, R);
	else if (!(flag & F_RIGHT)) dp_job<1>(P, mat, img + O[O_IMG], ws + O[O_WS], H + O[O_H], p + O[O_P], R);
	else dp_job<2>(P, mat, img + O[O_IMG], ws + O[O_WS], H + O[O_H], p + O[O_P], R);
}

// ksw_backtrack (is_rot = 1, min_intron_len = 0, off_end given); one thread per job.
extern "C" __global__ void ksw_extd2_bt(const unsigned long long *__restrict__ offs, const int *__restrict__ par,
                                        const u8 *__restrict__ p, int *res, unsigned *cig, int n_jobs)
{
	const int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n_jobs) return;
	const int *P = par + (long long)j * NP;
	int *R = res + (long long)j * NR;
	const int flag = P[P_FLAG];
	if (flag & F_SCORE_ONLY) return;
	const int qlen = P[P_QLEN], tlen = P[P_TLEN], w = P[P_W];
	const long long row_bytes = P[P_ROW_BYTES];
	const u8 *pj = p + offs[(long long)j * NO + O_P];
	unsigned *c = cig + offs[(long long)j * NO + O_CIG];
	const int zdropped = R[R_ZDROPPED], max = R[R_MAX], max_q = R[R_MAX_Q], max_t = R[R_MAX_T];
	const int mqe = R[R_MQE], mqe_t = R[R_MQE_T];
	int i, jj;
	if (!zdropped && !(flag & F_EXTZ_ONLY)) {
		i = tlen - 1, jj = qlen - 1;
	} else if (!zdropped && (flag & F_EXTZ_ONLY) && wadd(mqe, P[P_END_BONUS]) > max) {
		R[R_REACH_END] = 1;
		i = mqe_t, jj = qlen - 1;
	} else if (max_t >= 0 && max_q >= 0) {
		i = max_t, jj = max_q;
	} else {
		return;
	}
	int n = 0;
	unsigned last = 0;
#define PUSH(op, len)                                                                                                  \
	do {                                                                                                               \
		if (n > 0 && (last & 0xf) == (unsigned)(op)) last += (unsigned)(len) << 4;                                    \
		else {                                                                                                         \
			if (n > 0) c[n - 1] = last;                                                                                \
			last = (unsigned)(len) << 4 | (unsigned)(op);                                                              \
			++n;                                                                                                       \
		}                                                                                                              \
	} while (0)
	int state = 0;
	while (i >= 0 && jj >= 0) {
		const int r = i + jj;
		int st0, en0;
		band(r, qlen, tlen, w, st0, en0);
		const int off = st0 / 16 * 16, off_end = (en0 + 16) / 16 * 16 - 1;
		int force = -1;
		if (i < off) force = 2;
		if (i > off_end) force = 1;
		const unsigned tmp = force < 0 ? pj[r * row_bytes + (i - off)] : 0;
		if (state == 0) state = tmp & 7;
		else if (!(tmp >> (state + 2) & 1)) state = 0;
		if (state == 0) state = tmp & 7;
		if (force >= 0) state = force;
		if (state == 0) {
			PUSH(0, 1);
			--i, --jj;
		} else if (state == 1 || state == 3) {
			PUSH(2, 1);
			--i;
		} else {
			PUSH(1, 1);
			--jj;
		}
	}
	if (i >= 0) PUSH(2, i + 1);
	if (jj >= 0) PUSH(1, jj + 1);
	if (n > 0) c[n - 1] = last;
	R[R_N_CIGAR] = n;
#undef PUSH
}

// Compacts the CIGARs (block per job): out[out_off[j] + k] = op k in final order.
extern "C" __global__ void ksw_extd2_pack(const unsigned long long *__restrict__ offs, const int *__restrict__ par,
                                          const int *__restrict__ res, const unsigned *__restrict__ cig,
                                          const unsigned long long *__restrict__ out_off, unsigned *out, int n_jobs)
{
	const int j = blockIdx.x;
	if (j >= n_jobs) return;
	const int n = res[(long long)j * NR + R_N_CIGAR];
	const bool rev = (par[(long long)j * NP + P_FLAG] & F_REV_CIGAR) != 0;
	const unsigned *c = cig + offs[(long long)j * NO + O_CIG];
	unsigned *o = out + out_off[j];
	for (int k = threadIdx.x; k < n; k += blockDim.x) o[k] = rev ? c[k] : c[n - 1 - k];
}
