// Batched ksw_extd2_sse and ksw_exts2_sse (minimap2 2.31, SSE4.1 builds), bit-exact with the Rust twins
// (src/ksw/twin/extd2.rs, exts2.rs), which are verified against upstream.
//
// ksw_extd2_dp: one thread block per job. The block walks the anti-diagonals r = 0..qlen+tlen-2 as the SSE
// code does; each thread takes words of 4 cells t of the padded band [st, en] (16-aligned) and of the scored
// bytes [st0, E] (E = end of the 16-byte score stores from st0), striding by the block. Cell t reads the old
// x, x2, v at t - 1 and the old u, y, y2 at t, and writes all six at t.
//
// Every array the DP reads back (u, y, y2, x, x2, v, s, H) lives in a window of W cells (a power of two, at
// least the widest padded band plus 64) in shared memory, cell t at t & (W - 1): the band only moves forward,
// so the cells of the current band, the cell st - 1 and the stale lanes of the SSE code still readable never
// collide. Cells above every band so far (t > last_en) read the kcalloc'ed init values, and s[] bytes above
// every score store so far read zero, exactly what the C arrays hold there. x, x2, v are double-buffered by
// the parity of r, so one barrier per anti-diagonal suffices; u, y, y2, s and H are read and written by the
// cell's owner; the one cross-cell read of H (H[en0 - 1] for cell en0) is handed over through shared memory
// from the diagonal before. The scores come from the sf/qr part of the C allocation, as an image in global
// memory (read only: the C code's score stores past the end of s[] land in sf[] below every later band
// start, where no cell reads; the query reads start at most 4 bytes before qr, inside sf).
// ksw_extd2_dp_g is the same with the window in global memory, for bands too wide for shared memory.
//
// ksw_exts2_dp(_g) is the same walk for ksw_exts2_sse (template SPL): no band (the host passes w >=
// qlen + tlen, which makes the band test a no-op), e2 = 0 (the boundary past long_thres, the x2 init -q2 and
// the z-drop all follow from it), no y2 state and no min(z, mat[0]) clamp; x2 is the intron state: a2 + the
// acceptor signal competes in the max (d = 3), x2 = max(a2 - (z - q2), donor) - q2 (bit 0x20: a2 > donor,
// >= when RIGHT). The donor and acceptor arrays (int8 per target position, built by the host as the twin
// does) follow qr in the image.
//
// The per-anti-diagonal max reproduces the 4-lane epi32 scan of the SSE code and its tie-break as a priority:
// on equal H, cell en0 wins, then scan cells ordered by (lane = (t - st0) % 4, t), then tail cells by t:
// a max of H then a min of the rank among the ties, per warp (redux.sync) and across warps. The
// z-drop/mte/mqe/score logic runs redundantly in every thread (uniform control flow).
//
// ksw_bt: one thread per job, ksw_backtrack with is_rot = 1 over the per-cell traceback bytes p; the
// off/off_end of each row are recomputed from r; min_intron_len is long_thres for exts2, 0 for extd2. CIGAR
// ops are written in backtrack order (last op first); ksw_cigar_offsets places each job's CIGAR in a compact
// buffer, and ksw_pack copies them there, reversed unless KSW_EZ_REV_CIGAR.

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

// per-job parameters, as src/ksw/gpu.rs writes them (its KswParams, field for field: tests/gpu.rs compares
// the two); sig: exts2's image offset of the donor array (the acceptor array follows, tt16 bytes on)
struct KswParams {
	int qlen, tlen, m, mat_off, q, e, q2, e2, qe_h, w, zdrop, end_bonus, flag, row_bytes, tt16, long_thres,
	    long_diff, mch, mis, sc_n, win, min_intron, sig;
};

// per-job offsets (uint64)
#define O_IMG 0
#define O_WS 1
#define O_P 2
#define O_CIG 3
#define NO 4

// per-job results, as src/ksw/gpu.rs reads them (its KswOut): ksw_extz_t's fields
struct KswOut {
	int max, zdropped, max_q, max_t, mqe, mqe_t, mte, mte_q, score, reach_end, n_cigar;
};

#define MAX_WARPS 32

// int8 wrap-around, as _mm_add_epi8 / _mm_sub_epi8
__device__ __forceinline__ int w8(int x) { return (int)(i8)(u8)(x & 0xff); }

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

// 4 int8 lanes per word: byte k sign-extended, and 4 bytes packed (the cells' update itself: ksw_lanes.cuh)
__device__ __forceinline__ int sx(unsigned w, int k) { return (int)(i8)(u8)(w >> (8 * k)); }
__device__ __forceinline__ unsigned pack4(int a, int b, int c, int d)
{
	return __byte_perm(__byte_perm((unsigned)a, (unsigned)b, 0x0040), __byte_perm((unsigned)c, (unsigned)d, 0x0040), 0x5410);
}
// bytes [lo, hi) of a word set, lo and hi clamped to [0, 4]
__device__ __forceinline__ unsigned bytes_mask(int lo, int hi)
{
	lo = max(lo, 0);
	hi = min(hi, 4);
	if (lo >= hi) return 0;
	const unsigned up = hi >= 4 ? 0xffffffffu : (1u << (8 * hi)) - 1;
	return up & ~((1u << (8 * lo)) - 1);
}

template <int MODE, bool SPL>
__device__ __forceinline__ void dp_job(const KswParams *__restrict__ P, const i8 *__restrict__ mat,
                                       const u8 *__restrict__ im, u8 *win, u8 *pj, KswOut *res)
{
	const int tid = threadIdx.x, bs = blockDim.x, lane = tid & 31, warp = tid >> 5, nwarps = (bs + 31) >> 5;
	const int qlen = P->qlen, tlen = P->tlen, m = P->m;
	const int q = P->q, e = P->e, q2 = P->q2, e2 = P->e2, qe_h = P->qe_h, w = P->w;
	const int zdrop = P->zdrop, flag = P->flag;
	const long long row_bytes = P->row_bytes;
	const int tt16 = P->tt16, long_thres = P->long_thres, long_diff = P->long_diff;
	const int mch = P->mch, sc_mis = P->mis, sc_n = P->sc_n, W = P->win;
	const int qe = w8(q + e), qe2 = w8(q2 + e2), neg_qe = w8(-q - e), neg_qe2 = w8(-q2 - e2);
	const unsigned nqe4 = (u8)neg_qe * 0x01010101u, nqe24 = (u8)neg_qe2 * 0x01010101u;
	const unsigned m14 = (u8)(m - 1) * 0x01010101u, mch4 = (u8)mch * 0x01010101u, mis4 = (u8)sc_mis * 0x01010101u,
	               scn4 = (u8)sc_n * 0x01010101u;
	const bool approx = (flag & F_APPROX_MAX) != 0, generic = (flag & F_GENERIC_SC) != 0;
	const LaneConsts lk = {mch4, (u8)q * 0x01010101u, (u8)q2 * 0x01010101u, (u8)qe * 0x01010101u, (u8)qe2 * 0x01010101u};
	const int sf_off = 0, qr_off = tt16, wm = W - 1;
	const int don_off = P->sig, acc_off = don_off + tt16;

	// the band window: cell t of each array lives at byte (t & wm); X, X2, V are double-buffered by parity
	unsigned *const U = (unsigned *)win, *const Y = U + W / 4, *const Y2 = Y + W / 4, *const S = Y2 + W / 4;
	unsigned *const X0 = S + W / 4, *const X20 = X0 + W / 2, *const V0 = X20 + W / 2; // then X1, X21, V1
	int *const H = (int *)(V0 + W / 2);
	const u8 *const Ub = (const u8 *)U;

	__shared__ int s_m[2][MAX_WARPS];
	__shared__ unsigned s_r[2][MAX_WARPS];
	__shared__ int s_hst[2], s_hen[2], s_a0[2], s_a1[2], s_hprev[2];

	Ez ez;
	ez.max = 0; ez.zdropped = 0; ez.max_q = -1; ez.max_t = -1; ez.mqe = NEG_INF; ez.mqe_t = -1;
	ez.mte = NEG_INF; ez.mte_q = -1; ez.score = NEG_INF;
	int last_st = -1, last_en = -1, h0 = 0, last_h0_t = 0;
	int sfront = -1; // the highest cell of s[] ever scored: s[t] for t above it is kcalloc's zero

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
		// scores stored at t >= tt16 land in sf[] in C, below every later band start: no cell reads them
		const int hi = min(max(E, en), tt16 - 1);
		const int bnd_r = r == 0 ? w8(-q - e) : r < long_thres ? w8(-e) : r == long_thres ? w8(long_diff) : w8(-e2);
		const int ob = b * (W / 4);
		const unsigned *const Xr = X0 + (W / 4 - ob), *const X2r = X20 + (W / 4 - ob), *const Vr = V0 + (W / 4 - ob);
		unsigned *const Xw = X0 + ob, *const X2w = X20 + ob, *const Vw = V0 + ob;
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
		int bh = I32_MIN;
		unsigned br = 0xffffffffu;

		if (!approx && tid == 0 && (pn < st0 || pn > en0) && pn >= 0) s_hprev[b ^ 1] = H[pn & wm];
		if (approx && tid == 0 && r > 0) {
			// u at last_h0_t + 1 outside [st, en] is a stale byte nobody writes on this diagonal
			int p2 = last_h0_t + 1;
			if ((p2 < st || p2 > en) && p2 >= 0 && p2 < tt16) s_a1[b] = p2 > last_en ? neg_qe : (int)(i8)Ub[p2 & wm];
		}

		for (int t0 = st + 4 * tid; t0 <= hi; t0 += 4 * bs) {
			const int wi = (t0 & wm) >> 2;
			// s[t0..t0+3]: fresh scores on [st0, E], else the old byte (zero above sfront)
			const unsigned smask = bytes_mask(st0 - t0, E - t0 + 1);
			unsigned sw = 0;
			if (smask != 0xffffffffu && sfront >= t0) sw = S[wi] & bytes_mask(0, sfront - t0 + 1);
			if (smask) {
				const unsigned tw = *(const unsigned *)(im + sf_off + t0);
				const int qi = qrr + t0;
				const unsigned *qa = (const unsigned *)(im + (qi & ~3));
				const unsigned qw = __funnelshift_r(qa[0], qa[1], (qi & 3) * 8);
				unsigned sc;
				if (!generic) {
					const unsigned eq = __vcmpeq4(tw, qw), nn = __vcmpeq4(tw, m14) | __vcmpeq4(qw, m14);
					sc = (nn & scn4) | (~nn & ((eq & mch4) | (~eq & mis4)));
				} else {
					sc = pack4(mat[(tw & 0xff) * m + (qw & 0xff)], mat[(tw >> 8 & 0xff) * m + (qw >> 8 & 0xff)],
					           mat[(tw >> 16 & 0xff) * m + (qw >> 16 & 0xff)], mat[(tw >> 24) * m + (qw >> 24)]);
				}
				sw = (sc & smask) | (sw & ~smask);
				S[wi] = sw;
			}
			if (t0 > en) continue;

			// the old u, y, y2 at t and x, x2, v at t - 1 (kcalloc'ed init values where never written)
			const bool fresh = t0 > last_en;
			unsigned uw = fresh ? nqe4 : U[wi], yw = fresh ? nqe4 : Y[wi], y2w = fresh ? nqe24 : Y2[wi];
			if (r >= t0 && r <= t0 + 3) { // the cell t == r starts from the boundary
				const int sh = 8 * (r - t0);
				const unsigned km = ~(0xffu << sh);
				uw = (uw & km) | (unsigned)(u8)bnd_r << sh;
				yw = (yw & km) | (unsigned)(u8)neg_qe << sh;
				y2w = (y2w & km) | (unsigned)(u8)neg_qe2 << sh;
			}
			unsigned xp, x2p, vp; // byte 3: x, x2, v at t0 - 1
			if (t0 == st) {
				if (st > 0) {
					if (st - 1 >= last_st && st - 1 <= last_en) {
						const int wp = ((st - 4) & wm) >> 2;
						xp = Xr[wp], x2p = X2r[wp], vp = Vr[wp];
					} else {
						xp = nqe4, x2p = nqe24, vp = nqe4;
					}
				} else {
					xp = nqe4, x2p = nqe24, vp = (unsigned)(u8)bnd_r << 24;
				}
			} else if (t0 - 1 > last_en) {
				xp = nqe4, x2p = nqe24, vp = nqe4;
			} else {
				const int wp = ((t0 - 4) & wm) >> 2;
				xp = Xr[wp], x2p = X2r[wp], vp = Vr[wp];
			}
			unsigned donw = 0, accw = 0;
			if (SPL) donw = *(const unsigned *)(im + don_off + t0), accw = *(const unsigned *)(im + acc_off + t0);
			const unsigned xw = __funnelshift_l(xp, fresh ? nqe4 : Xr[wi], 8);
			const unsigned x2w = __funnelshift_l(x2p, fresh ? nqe24 : X2r[wi], 8);
			const unsigned vw = __funnelshift_l(vp, fresh ? nqe4 : Vr[wi], 8);

			const LaneCells c = lanes_cells(MODE, SPL, sw, xw, x2w, vw, uw, yw, y2w, donw, accw, &lk);
			const unsigned uwn = c.u, vwn = c.v, xwn = c.x, ywn = c.y, x2wn = c.x2, y2wn = c.y2, dwn = c.d;
			U[wi] = uwn;
			Y[wi] = ywn;
			if (!SPL) Y2[wi] = y2wn;
			Xw[wi] = xwn;
			X2w[wi] = x2wn;
			Vw[wi] = vwn;
			if (MODE != 0) *(unsigned *)(prow + t0) = dwn;

			if (!approx) {
#pragma unroll
				for (int k = 0; k < 4; ++k) {
					const int t = t0 + k;
					if (t < st0 || t > en0) continue;
					int hv;
					unsigned rank;
					const int vk = sx(vwn, k);
					if (r == 0) hv = vk - qe_h;
					else if (t < en0) hv = wadd(H[t & wm], vk);
					else hv = en0 > 0 ? wadd(s_hprev[b], sx(uwn, k)) : wadd(H[en0 & wm], vk);
					H[t & wm] = hv;
					if (t == pn) s_hprev[b ^ 1] = hv;
					if (t == st0) s_hst[b] = hv;
					if (t == en0) s_hen[b] = hv;
					if (t == en0) rank = 0;
					else if (t < en1) rank = 1u + ((unsigned)((t - st0) & 3) << 28) + (unsigned)((t - st0) >> 2);
					else rank = 1u + (4u << 28) + (unsigned)(t - en1);
					if (hv > bh || (hv == bh && rank < br)) bh = hv, br = rank;
				}
			} else {
				const int k0 = last_h0_t - t0, k1 = k0 + 1;
				if (k0 >= 0 && k0 < 4) s_a0[b] = sx(vwn, k0);
				if (k1 >= 0 && k1 < 4) s_a1[b] = sx(uwn, k1);
			}
		}
		if (!approx) {
			const int wmx = __reduce_max_sync(0xffffffffu, bh);
			const unsigned wr = __reduce_min_sync(0xffffffffu, bh == wmx ? br : 0xffffffffu);
			if (lane == 0) s_m[b][warp] = wmx, s_r[b][warp] = wr;
		}
		__syncthreads();

		if (!approx) {
			const int mw = lane < nwarps ? s_m[b][lane] : I32_MIN;
			const unsigned rw = lane < nwarps ? s_r[b][lane] : 0xffffffffu;
			const int max_h = __reduce_max_sync(0xffffffffu, mw);
			const unsigned rank = __reduce_min_sync(0xffffffffu, mw == max_h ? rw : 0xffffffffu);
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
		sfront = max(sfront, E);
	}
	if (tid == 0) {
		res->max = ez.max;
		res->zdropped = ez.zdropped;
		res->max_q = ez.max_q;
		res->max_t = ez.max_t;
		res->mqe = ez.mqe;
		res->mqe_t = ez.mqe_t;
		res->mte = ez.mte;
		res->mte_q = ez.mte_q;
		res->score = ez.score;
		res->reach_end = 0;
		res->n_cigar = 0;
	}
}

// dpw_job: the same walk with one warp per job and the band window in registers (NS words of 4 cells a lane,
// W = 128 * NS cells): window word i (cells t with (t & (W - 1)) >> 2 == i) lives in lane i % 32, slot i / 32,
// so each slot's words are consecutive across the lanes. The old x, x2, v (and H) at t - 1 come from lane - 1
// by shuffles taken before the diagonal's update (slot - 1 of lane 31 for lane 0), which makes the parity
// buffers unneeded: every x, x2, v the walk reads was written on the diagonal before. The cross-cell reads
// (H at en0 - 1, st0, en0; the approximate max's v and u) are shuffles from the owning lane. No shared
// memory, no barrier; slots holding no cell of the diagonal are skipped (warp-uniform).
template <int NS>
__device__ __forceinline__ unsigned slot_pick(const unsigned (&a)[NS], int k)
{
	unsigned v = a[0];
#pragma unroll
	for (int i = 1; i < NS; ++i)
		if (k == i) v = a[i];
	return v;
}

template <int MODE, bool SPL, bool APX, int NS>
__device__ __forceinline__ void dpw_job(const KswParams *__restrict__ P, const i8 *__restrict__ mat,
                                        const u8 *__restrict__ im, u8 *pj, KswOut *res)
{
	constexpr int W = NS * 128, wm = W - 1;
	constexpr unsigned FULL = 0xffffffffu;
	const int lane = threadIdx.x & 31;
	const int qlen = P->qlen, tlen = P->tlen, m = P->m;
	const int q = P->q, e = P->e, q2 = P->q2, e2 = P->e2, qe_h = P->qe_h, w = P->w;
	const int zdrop = P->zdrop, flag = P->flag;
	const long long row_bytes = P->row_bytes;
	const int tt16 = P->tt16, long_thres = P->long_thres, long_diff = P->long_diff;
	const int mch = P->mch, sc_mis = P->mis, sc_n = P->sc_n;
	const int qe = w8(q + e), qe2 = w8(q2 + e2), neg_qe = w8(-q - e), neg_qe2 = w8(-q2 - e2);
	const unsigned nqe4 = (u8)neg_qe * 0x01010101u, nqe24 = (u8)neg_qe2 * 0x01010101u;
	const unsigned m14 = (u8)(m - 1) * 0x01010101u, mch4 = (u8)mch * 0x01010101u, mis4 = (u8)sc_mis * 0x01010101u,
	               scn4 = (u8)sc_n * 0x01010101u;
	const bool generic = (flag & F_GENERIC_SC) != 0;
	const LaneConsts lk = {mch4, (u8)q * 0x01010101u, (u8)q2 * 0x01010101u, (u8)qe * 0x01010101u, (u8)qe2 * 0x01010101u};
	const int qr_off = tt16;
	const int don_off = P->sig, acc_off = don_off + tt16;

	unsigned U[NS], Y[NS], Y2[NS], S[NS], X[NS], X2[NS], V[NS];
	int H[NS][4];
#pragma unroll
	for (int k = 0; k < NS; ++k) {
		U[k] = Y[k] = Y2[k] = S[k] = X[k] = X2[k] = V[k] = 0;
#pragma unroll
		for (int c = 0; c < 4; ++c) H[k][c] = 0;
	}

	Ez ez;
	ez.max = 0; ez.zdropped = 0; ez.max_q = -1; ez.max_t = -1; ez.mqe = NEG_INF; ez.mqe_t = -1;
	ez.mte = NEG_INF; ez.mte_q = -1; ez.score = NEG_INF;
	int last_st = -1, last_en = -1, h0 = 0, last_h0_t = 0;
	int sfront = -1;
	int a1_even = 0, a1_odd = 0; // the approximate max's u at last_h0_t + 1, by parity (kept when not refreshed)

	for (int r = 0; r < qlen + tlen - 1; ++r) {
		const int b = r & 1;
		int st0, en0;
		band(r, qlen, tlen, w, st0, en0);
		if (st0 > en0) {
			ez.zdropped = 1;
			break;
		}
		const int st = st0 / 16 * 16, en = (en0 + 16) / 16 * 16 - 1;
		const int E = generic ? en0 : st0 + ((en0 - st0) / 16 + 1) * 16 - 1;
		const int hi = min(max(E, en), tt16 - 1);
		const int bnd_r = r == 0 ? w8(-q - e) : r < long_thres ? w8(-e) : r == long_thres ? w8(long_diff) : w8(-e2);
		const int qrr = qr_off + qlen - 1 - r;
		const int en1 = st0 + (en0 - st0) / 4 * 4;
		u8 *prow = pj + (long long)r * row_bytes - st;
		int bh = I32_MIN;
		unsigned br = 0xffffffffu;
		int c_hst = 0, c_hen = 0;

		// the old x, x2, v (and H at byte 3) of word i - 1
		unsigned xs[NS], x2s[NS], vs[NS];
		int hs[NS];
		const int src = (lane + 31) & 31;
#pragma unroll
		for (int k = 0; k < NS; ++k) {
			xs[k] = __shfl_sync(FULL, X[k], src);
			x2s[k] = __shfl_sync(FULL, X2[k], src);
			vs[k] = __shfl_sync(FULL, V[k], src);
			if (!APX) hs[k] = __shfl_sync(FULL, H[k][3], src);
		}

#pragma unroll
		for (int k = 0; k < NS; ++k) {
			const int t0 = st + ((4 * (32 * k + lane) - st) & wm);
			if (!__any_sync(FULL, t0 <= hi)) continue;
			const int kp = (k + NS - 1) % NS;
			const unsigned xq = lane == 0 ? xs[kp] : xs[k], x2q = lane == 0 ? x2s[kp] : x2s[k], vq = lane == 0 ? vs[kp] : vs[k];
			const int hq = APX ? 0 : (lane == 0 ? hs[kp] : hs[k]);
			if (t0 > hi) continue;
			const unsigned smask = bytes_mask(st0 - t0, E - t0 + 1);
			unsigned sw = 0;
			if (smask != 0xffffffffu && sfront >= t0) sw = S[k] & bytes_mask(0, sfront - t0 + 1);
			if (smask) {
				const unsigned tw = *(const unsigned *)(im + t0);
				const int qi = qrr + t0;
				const unsigned *qa = (const unsigned *)(im + (qi & ~3));
				const unsigned qw = __funnelshift_r(qa[0], qa[1], (qi & 3) * 8);
				unsigned sc;
				if (!generic) {
					const unsigned eq = __vcmpeq4(tw, qw), nn = __vcmpeq4(tw, m14) | __vcmpeq4(qw, m14);
					sc = (nn & scn4) | (~nn & ((eq & mch4) | (~eq & mis4)));
				} else {
					sc = pack4(mat[(tw & 0xff) * m + (qw & 0xff)], mat[(tw >> 8 & 0xff) * m + (qw >> 8 & 0xff)],
					           mat[(tw >> 16 & 0xff) * m + (qw >> 16 & 0xff)], mat[(tw >> 24) * m + (qw >> 24)]);
				}
				sw = (sc & smask) | (sw & ~smask);
				S[k] = sw;
			}
			if (t0 > en) continue;

			const bool fresh = t0 > last_en;
			unsigned uw = fresh ? nqe4 : U[k], yw = fresh ? nqe4 : Y[k], y2w = fresh ? nqe24 : Y2[k];
			if (r >= t0 && r <= t0 + 3) {
				const int sh = 8 * (r - t0);
				const unsigned km = ~(0xffu << sh);
				uw = (uw & km) | (unsigned)(u8)bnd_r << sh;
				yw = (yw & km) | (unsigned)(u8)neg_qe << sh;
				y2w = (y2w & km) | (unsigned)(u8)neg_qe2 << sh;
			}
			unsigned xp, x2p, vp;
			if (t0 == st) {
				if (st > 0) {
					if (st - 1 >= last_st && st - 1 <= last_en) xp = xq, x2p = x2q, vp = vq;
					else xp = nqe4, x2p = nqe24, vp = nqe4;
				} else {
					xp = nqe4, x2p = nqe24, vp = (unsigned)(u8)bnd_r << 24;
				}
			} else if (t0 - 1 > last_en) {
				xp = nqe4, x2p = nqe24, vp = nqe4;
			} else {
				xp = xq, x2p = x2q, vp = vq;
			}
			unsigned donw = 0, accw = 0;
			if (SPL) donw = *(const unsigned *)(im + don_off + t0), accw = *(const unsigned *)(im + acc_off + t0);
			const unsigned xw = __funnelshift_l(xp, fresh ? nqe4 : X[k], 8);
			const unsigned x2w = __funnelshift_l(x2p, fresh ? nqe24 : X2[k], 8);
			const unsigned vw = __funnelshift_l(vp, fresh ? nqe4 : V[k], 8);

			const LaneCells c = lanes_cells(MODE, SPL, sw, xw, x2w, vw, uw, yw, y2w, donw, accw, &lk);
			U[k] = c.u;
			Y[k] = c.y;
			if (!SPL) Y2[k] = c.y2;
			X[k] = c.x;
			X2[k] = c.x2;
			V[k] = c.v;
			if (MODE != 0) *(unsigned *)(prow + t0) = c.d;

			if (!APX) {
				int hold = hq; // H before this diagonal at t - 1
#pragma unroll
				for (int kk = 0; kk < 4; ++kk) {
					const int t = t0 + kk;
					const int hcur = H[k][kk];
					if (t >= st0 && t <= en0) {
						int hv;
						unsigned rank;
						const int vk = sx(c.v, kk);
						if (r == 0) hv = vk - qe_h;
						else if (t < en0) hv = wadd(hcur, vk);
						else hv = en0 > 0 ? wadd(hold, sx(c.u, kk)) : wadd(hcur, vk);
						H[k][kk] = hv;
						if (t == st0) c_hst = hv;
						if (t == en0) c_hen = hv;
						if (t == en0) rank = 0;
						else if (t < en1) rank = 1u + ((unsigned)((t - st0) & 3) << 28) + (unsigned)((t - st0) >> 2);
						else rank = 1u + (4u << 28) + (unsigned)(t - en1);
						if (hv > bh || (hv == bh && rank < br)) bh = hv, br = rank;
					}
					hold = hcur;
				}
			}
		}

		if (!APX) {
			const int max_h = __reduce_max_sync(FULL, bh);
			const unsigned rank = __reduce_min_sync(FULL, bh == max_h ? br : 0xffffffffu);
			int max_t;
			if (rank == 0) max_t = en0;
			else if (rank < 1u + (4u << 28)) max_t = st0 + (int)((rank - 1u) >> 28) + 4 * (int)((rank - 1u) & 0x0fffffffu);
			else max_t = en1 + (int)(rank - 1u - (4u << 28));
			const int hen = en0 == tlen - 1 ? __shfl_sync(FULL, c_hen, (en0 >> 2) & 31) : 0;
			if (en0 == tlen - 1 && hen > ez.mte) ez.mte = hen, ez.mte_q = r - en0;
			if (r - st0 == qlen - 1) {
				const int hst = __shfl_sync(FULL, c_hst, (st0 >> 2) & 31);
				if (hst > ez.mqe) ez.mqe = hst, ez.mqe_t = st0;
			}
			if (apply_zdrop(ez, max_h, r, max_t, zdrop, e2)) break;
			if (r == qlen + tlen - 2 && en0 == tlen - 1) ez.score = hen;
		} else {
			// v at last_h0_t and u at last_h0_t + 1 as the window holds them after the diagonal (u outside
			// [st, en]: the stale byte, or the init value above every band so far)
			const int p0 = last_h0_t, p2 = last_h0_t + 1;
			const unsigned vwd = __shfl_sync(FULL, slot_pick<NS>(V, ((p0 & wm) >> 7)), (p0 >> 2) & 31);
			const unsigned uwd = __shfl_sync(FULL, slot_pick<NS>(U, ((p2 & wm) >> 7)), (p2 >> 2) & 31);
			const int a0 = sx(vwd, p0 & 3);
			int a1 = b ? a1_odd : a1_even;
			if (r == 0 || (p2 >= st && p2 <= en)) a1 = sx(uwd, p2 & 3);
			else if (p2 >= 0 && p2 < tt16) a1 = p2 > last_en ? neg_qe : sx(uwd, p2 & 3);
			if (b) a1_odd = a1;
			else a1_even = a1;
			if (r > 0) {
				if (last_h0_t >= st0 && last_h0_t <= en0 && last_h0_t + 1 >= st0 && last_h0_t + 1 <= en0) {
					if (a0 > a1) h0 = wadd(h0, a0);
					else h0 = wadd(h0, a1), ++last_h0_t;
				} else if (last_h0_t >= st0 && last_h0_t <= en0) {
					h0 = wadd(h0, a0);
				} else {
					++last_h0_t;
					h0 = wadd(h0, a1);
				}
			} else {
				h0 = a0 - qe_h;
				last_h0_t = 0;
			}
			if ((flag & F_APPROX_DROP) && apply_zdrop(ez, h0, r, last_h0_t, zdrop, e2)) break;
			if (r == qlen + tlen - 2 && en0 == tlen - 1) ez.score = h0;
		}
		last_st = st;
		last_en = en;
		sfront = max(sfront, E);
	}
	if (lane == 0) {
		res->max = ez.max;
		res->zdropped = ez.zdropped;
		res->max_q = ez.max_q;
		res->max_t = ez.max_t;
		res->mqe = ez.mqe;
		res->mqe_t = ez.mqe_t;
		res->mte = ez.mte;
		res->mte_q = ez.mte_q;
		res->score = ez.score;
		res->reach_end = 0;
		res->n_cigar = 0;
	}
}

template <bool SPL>
__device__ __forceinline__ void dp_dispatch(const unsigned long long *__restrict__ offs, const KswParams *__restrict__ par,
                                            const i8 *__restrict__ mats, const u8 *__restrict__ img, u8 *win, u8 *p,
                                            KswOut *res, int j)
{
	const KswParams *P = par + j;
	const unsigned long long *O = offs + (long long)j * NO;
	const int flag = P->flag;
	const i8 *mat = mats + P->mat_off;
	KswOut *R = res + j;
	if (flag & F_SCORE_ONLY) dp_job<0, SPL>(P, mat, img + O[O_IMG], win, p, R);
	else if (!(flag & F_RIGHT)) dp_job<1, SPL>(P, mat, img + O[O_IMG], win, p + O[O_P], R);
	else dp_job<2, SPL>(P, mat, img + O[O_IMG], win, p + O[O_P], R);
}

// The band window in shared memory (dynamic size: 10 or 14 bytes per window cell, see dp_job).
#define DP_KERNEL(name, spl)                                                                                           \
	extern "C" __global__ void __launch_bounds__(1024)                                                                 \
	    name(const unsigned long long *__restrict__ offs, const KswParams *__restrict__ par, const i8 *__restrict__ mats, \
	         const u8 *__restrict__ img, u8 *p, KswOut *res, int n_jobs)                                               \
	{                                                                                                                  \
		extern __shared__ __align__(16) u8 dsm[];                                                                      \
		if (blockIdx.x < n_jobs) dp_dispatch<spl>(offs, par, mats, img, dsm, p, res, blockIdx.x);                      \
	}
DP_KERNEL(ksw_extd2_dp, false)
DP_KERNEL(ksw_exts2_dp, true)

// The same with the window in global memory (ws), for bands too wide for shared memory.
#define DP_KERNEL_G(name, spl)                                                                                         \
	extern "C" __global__ void __launch_bounds__(1024)                                                                 \
	    name(const unsigned long long *__restrict__ offs, const KswParams *__restrict__ par, const i8 *__restrict__ mats, \
	         const u8 *__restrict__ img, u8 *ws, u8 *p, KswOut *res, int n_jobs)                                       \
	{                                                                                                                  \
		if (blockIdx.x < n_jobs)                                                                                       \
			dp_dispatch<spl>(offs, par, mats, img, ws + offs[(long long)blockIdx.x * NO + O_WS], p, res, blockIdx.x);  \
	}
DP_KERNEL_G(ksw_extd2_dp_g, false)
DP_KERNEL_G(ksw_exts2_dp_g, true)

// One warp per job (blockDim.x == 32), the window in registers: NS = W / 128 for windows of 128 to 512 cells.
template <bool SPL, int NS>
__device__ __forceinline__ void dpw_dispatch(const unsigned long long *__restrict__ offs, const KswParams *__restrict__ par,
                                             const i8 *__restrict__ mats, const u8 *__restrict__ img, u8 *p, KswOut *res, int j)
{
	const KswParams *P = par + j;
	const unsigned long long *O = offs + (long long)j * NO;
	const int flag = P->flag;
	const i8 *mat = mats + P->mat_off;
	const u8 *im = img + O[O_IMG];
	KswOut *R = res + j;
	if (flag & F_APPROX_MAX) {
		if (flag & F_SCORE_ONLY) dpw_job<0, SPL, true, NS>(P, mat, im, p, R);
		else if (!(flag & F_RIGHT)) dpw_job<1, SPL, true, NS>(P, mat, im, p + O[O_P], R);
		else dpw_job<2, SPL, true, NS>(P, mat, im, p + O[O_P], R);
	} else {
		if (flag & F_SCORE_ONLY) dpw_job<0, SPL, false, NS>(P, mat, im, p, R);
		else if (!(flag & F_RIGHT)) dpw_job<1, SPL, false, NS>(P, mat, im, p + O[O_P], R);
		else dpw_job<2, SPL, false, NS>(P, mat, im, p + O[O_P], R);
	}
}

#define DPW_KERNEL(name, spl, ns)                                                                                      \
	extern "C" __global__ void __launch_bounds__(32)                                                                   \
	    name(const unsigned long long *__restrict__ offs, const KswParams *__restrict__ par, const i8 *__restrict__ mats, \
	         const u8 *__restrict__ img, u8 *p, KswOut *res, int n_jobs)                                               \
	{                                                                                                                  \
		if (blockIdx.x < n_jobs) dpw_dispatch<spl, ns>(offs, par, mats, img, p, res, blockIdx.x);                      \
	}
DPW_KERNEL(ksw_extd2_dpw1, false, 1)
DPW_KERNEL(ksw_extd2_dpw2, false, 2)
DPW_KERNEL(ksw_extd2_dpw4, false, 4)
DPW_KERNEL(ksw_exts2_dpw1, true, 1)
DPW_KERNEL(ksw_exts2_dpw2, true, 2)
DPW_KERNEL(ksw_exts2_dpw4, true, 4)

// ksw_backtrack (is_rot = 1, off_end given); one thread per job.
extern "C" __global__ void ksw_bt(const unsigned long long *__restrict__ offs, const KswParams *__restrict__ par,
                                        const u8 *__restrict__ p, KswOut *res, unsigned *cig, int n_jobs)
{
	const int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n_jobs) return;
	const KswParams *P = par + j;
	KswOut *R = res + j;
	const int flag = P->flag;
	if (flag & F_SCORE_ONLY) return;
	const int qlen = P->qlen, tlen = P->tlen, w = P->w, min_intron_len = P->min_intron;
	const long long row_bytes = P->row_bytes;
	const u8 *pj = p + offs[(long long)j * NO + O_P];
	unsigned *c = cig + offs[(long long)j * NO + O_CIG];
	const int zdropped = R->zdropped, max = R->max, max_q = R->max_q, max_t = R->max_t;
	const int mqe = R->mqe, mqe_t = R->mqe_t;
	int i, jj;
	if (!zdropped && !(flag & F_EXTZ_ONLY)) {
		i = tlen - 1, jj = qlen - 1;
	} else if (!zdropped && (flag & F_EXTZ_ONLY) && wadd(mqe, P->end_bonus) > max) {
		R->reach_end = 1;
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
		} else if (state == 1 || (state == 3 && min_intron_len <= 0)) {
			PUSH(2, 1);
			--i;
		} else if (state == 3) {
			PUSH(3, 1);
			--i;
		} else {
			PUSH(1, 1);
			--jj;
		}
	}
	if (i >= 0) PUSH(min_intron_len > 0 && i >= min_intron_len ? 3 : 2, i + 1);
	if (jj >= 0) PUSH(1, jj + 1);
	if (n > 0) c[n - 1] = last;
	R->n_cigar = n;
#undef PUSH
}

// Each job's offset in the compact CIGAR buffer, an exclusive sum of max(n_cigar, 0) in job order; one block of
// 1024 threads, each summing a run of jobs, then a scan of the runs' sums.
extern "C" __global__ void __launch_bounds__(1024) ksw_cigar_offsets(const KswOut *__restrict__ res, unsigned long long *out_off, int n_jobs)
{
	__shared__ unsigned long long run[1024];
	const int tid = threadIdx.x, per = (n_jobs + 1023) / 1024, b = tid * per, e = min(b + per, n_jobs);
	unsigned long long sum = 0;
	for (int j = b; j < e; ++j) sum += (unsigned long long)max(res[j].n_cigar, 0);
	run[tid] = sum;
	__syncthreads();
	for (int d = 1; d < 1024; d <<= 1) {
		const unsigned long long v = tid >= d ? run[tid - d] : 0;
		__syncthreads();
		run[tid] += v;
		__syncthreads();
	}
	unsigned long long o = run[tid] - sum;
	for (int j = b; j < e; ++j) {
		out_off[j] = o;
		o += (unsigned long long)max(res[j].n_cigar, 0);
	}
}

// Compacts the CIGARs (block per job): out[out_off[j] + k] = op k in final order.
extern "C" __global__ void ksw_pack(const unsigned long long *__restrict__ offs, const KswParams *__restrict__ par,
                                          const KswOut *__restrict__ res, const unsigned *__restrict__ cig,
                                          const unsigned long long *__restrict__ out_off, unsigned *out, int n_jobs)
{
	const int j = blockIdx.x;
	if (j >= n_jobs) return;
	const int n = res[j].n_cigar;
	const bool rev = (par[j].flag & F_REV_CIGAR) != 0;
	const unsigned *c = cig + offs[(long long)j * NO + O_CIG];
	unsigned *o = out + out_off[j];
	for (int k = threadIdx.x; k < n; k += blockDim.x) o[k] = rev ? c[k] : c[n - 1 - k];
}
