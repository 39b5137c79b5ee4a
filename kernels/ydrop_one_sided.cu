// Batched ydrop_one_sided_align (LASTZ 1.04.52, gapped_extend.c), unconstrained jobs, bit-exact with the Rust
// twin (src/ydrop/twin/), which is verified against upstream. One block of 8 warps per job, rows in order, each
// thread holding 2 consecutive columns of a chunk of 512. A job's rows are sequential, so its latency is a row's
// dependent instructions: with one warp per scheduler nothing hides them (4.8 cycles an instruction under Nsight
// Compute), and 8 warps of 2 columns each took 1.2-1.26x less time than 4 of 4 on H. pylori's calls (16 warps
// of 1 column: slower than 4 of 4; 1 warp of 4 columns: 2.8x slower). One or two launches per batch
// (FastZ-style):
//  - pass 1 (trace = 0): the whole sweep: score, end, truncation, and the traceback bytes the rows up to the
//    end row take (LASTZ's `used` after that row); for a job with env, also each
//    row's envelope (the bounds it began with and the right bounds its end compared with n), which the host
//    checks against a call's real earlier alignments (src/ydrop/twin/shadow.rs);
//    pass 1 also writes the traceback bytes into the launch's pool, each job claiming bytes as its rows need
//    them (a long job takes what it uses, not a share fixed beforehand), and when the rows up
//    to the end are written (all, unless the pool ran out), traces back at once;
//    a job past row_cap rows ends with ST_LONG: its rows are sequential, so it would hold the launch, and the
//    host's caller runs it on the CPU;
//  - pass 2 (trace = 1), for the others: rows 1..end1 again (a row depends only on the rows above), writing
//    the traceback bytes in the twin's layout, then the first warp traces back and writes the edit script.
//
// A row of the twin is sequential through the running insertion score i, the running best and the leading
// prunes. Here it is two scans (valid for gapOpen >= 0, which the host checks):
//  - i ignoring prunes: i' after column c = max(i' before - E, S >= D ? S - OE : -inf), a max-plus scan
//    (S >= D alone decides the open term: when S >= D but i > S, i - E > S - OE because gapOpen >= 0).
//    Where the twin resets i to NEG after a pruned cell, i' differs from it, but then both stay below
//    best - yDrop, so every cell where they differ is pruned either way or decided by D or S alone, and the
//    only bit that differs is the I_EXTEND of a cell whose I state is below best - yDrop: off every path.
//  - best before a cell: the exclusive prefix max of S over substitution-ended cells, seeded with the best so
//    far (a pruned one lies below best - yDrop, so it never raises it). Taken over the cells with S >= D, it is
//    the same max (where i > S >= D, i came from an earlier S >= D above S, and so on down to a
//    substitution-ended one), so it needs no i and both scans run at once.
// Then the prune decisions, the leading prunes (LASTZ's LY), the last live column, the events that move the
// end (a later cell wins a tie; with --noytrim a boundary cell wins over a best one in the same cell) and the
// stores follow without dependencies. Prolongation is closed form: i - k*E while it stays >= best - yDrop.
//
// The twin's arithmetic is int32 with wrap-around; the host admits only jobs where nothing the scans compute
// can wrap (|sub| <= 2^27, gapOpen + gapExtend <= 2^24, 0 <= yDrop <= 2^30), and a job gives up (status
// BAIL, the host runs the twin) when a row would be wider than its ring, wider than 2^24 / E, or best passes
// 2^30; one that reads past the uploaded prefix of a sequence ends with status SHORT (the host runs it again
// with longer prefixes). So the insertion scan runs in int32 too: S lies above NEG_INF - 2^27 (C is NEG_INF or
// within yDrop of best), and E times a row's width stays within 2^24 (the model in
// tests/common/ydrop_kernel_model.rs checks both on every job it runs).
//
// Each scan is a thread-local one over the thread's columns, then one scan of the threads' totals (shuffles in a
// warp, shared memory across the block's warps), the two side by side with one barrier. 1 warp of 16 or 8 columns
// and 2 of 8 took 1.8-3x longer than 8 warps of 2 on H. pylori's calls.
//
// Memory per job: two rows of (C, D) in a ring of W cells each (column c at c & (W - 1)), in the block's shared
// memory when W is at most the launch's sh_cells (a row's loads then wait tens of cycles, not hundreds), else in
// global memory; the substitution scores of the row's base of a, loaded a row ahead into shared memory; pass 2
// also the traceback bytes, the row offsets and the edit script. Blocks never share memory; a block's threads
// meet at a barrier per block scan and per row (the next row reads what other threads wrote).

typedef unsigned char u8;
typedef long long i64;

#define FULL 0xffffffffu
#define NEG_INF (-1932735283)
#define NO_Y I32_MIN
#define BEST_MAX (1 << 30)
#define NO_FIRST 2147483647 // (no live column in a thread)
#define ROW_GAP_MAX (1LL << 24)

// traceback links (LASTZ's cFromC, cFromI, cFromD, iExtend, dExtend) and editops
#define FROM_C 0
#define FROM_I 1
#define FROM_D 2
#define I_EXTEND 4
#define D_EXTEND 8
#define OP_INS 1u
#define OP_DEL 2u
#define OP_SUB 3u
#define MAX_RUN ((1u << 30) - 1)

// per-job parameters, as src/ydrop/gpu.rs writes them (its YdropParams)
struct YdropParams {
	int m, n, a_len, b_len, mat, gap_open, gap_extend, y_drop, trim, tb_len, y_drop_tail, ring,
	    env, // (1: pass 1 writes the rows' envelope)
	    row_cap; // (rows pass 1 may enter: a longer job ends with ST_LONG, for the CPU)
};

// per-job offsets (uint64): bytes into seqs, cells into ring, bytes into tb, entries into tb_row and ops
#define O_A 0
#define O_B 1
#define O_RING 2
#define O_TB 3
#define O_TB_ROW 4
#define O_OPS 5
#define O_ENV 6
#define NO 7

// per-job results, as src/ydrop/gpu.rs reads them (its YdropOut)
struct YdropOut {
	int status, score, end1, end2, trunc, tb_need, n_ops,
	    rows, // (rows entered, with env)
	    traced; // (pass 1 wrote the whole traceback and the edit script)
};
// an envelope row: ly, ry as the row began, and the right bounds lo..hi its end compared with n (hi | TESTED)
#define TESTED 0x80000000u

#define ST_DONE 0
#define ST_BAIL 1
#define ST_SHORT 2 // (read past an uploaded prefix: longer ones may finish it)
#define ST_LONG 3 // (past row_cap rows: a job's rows are sequential, so a long one holds its batch; the CPU runs it)

// Pass 1's traceback bytes a job claims from the pool: 16 rows of its ring's width at first (a row takes at most
// that width), then twice what it claimed last, up to TB_CLAIM_MAX (a claim is an atomic and a barrier; a job
// leaves at most its last claim unused).
#define TB_CLAIM_MAX (1u << 20)
#define NO_CLAIM 0xffffffffu


// Exclusive prefix max over the block's threads in order (NW warps), and the block's total.
template <int NW, typename T>
__device__ __forceinline__ T block_excl_max(T v, T none, T *sh, T &total)
{
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	T inc = v;
	// (a lane below o gets its own value back, which max leaves as it is)
	for (int o = 1; o < 32; o <<= 1) inc = max(inc, __shfl_up_sync(FULL, inc, o));
	T ex = __shfl_up_sync(FULL, inc, 1);
	if (lane == 0) ex = none;
	if (NW == 1) {
		total = __shfl_sync(FULL, inc, 31);
		return ex;
	}
	if (lane == 31) sh[w] = inc;
	__syncthreads();
	// the warps before this one, and all: trees of max, whose depth (not NW) is on the row's critical path
	T before[NW], all[NW];
#pragma unroll
	for (int k = 0; k < NW; ++k) {
		all[k] = sh[k];
		before[k] = k < w ? all[k] : none;
	}
#pragma unroll
	for (int d = 1; d < NW; d <<= 1)
#pragma unroll
		for (int k = 0; k + d < NW; k += 2 * d) {
			before[k] = max(before[k], before[k + d]);
			all[k] = max(all[k], all[k + d]);
		}
	total = all[0];
	return max(ex, before[0]);
}

// Two exclusive prefix maxes over the block's threads in order (NW warps) and their totals, with one barrier.
template <int NW>
__device__ __forceinline__ void block_excl_max2(int v0, int none0, int v1, int none1, int2 *sh, int &ex0, int &tot0,
                                                int &ex1, int &tot1)
{
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	int i0 = v0, i1 = v1;
	for (int o = 1; o < 32; o <<= 1) {
		i0 = max(i0, __shfl_up_sync(FULL, i0, o));
		i1 = max(i1, __shfl_up_sync(FULL, i1, o));
	}
	ex0 = __shfl_up_sync(FULL, i0, 1);
	ex1 = __shfl_up_sync(FULL, i1, 1);
	if (lane == 0) {
		ex0 = none0;
		ex1 = none1;
	}
	if (NW == 1) {
		tot0 = __shfl_sync(FULL, i0, 31);
		tot1 = __shfl_sync(FULL, i1, 31);
		return;
	}
	if (lane == 31) sh[w] = make_int2(i0, i1);
	__syncthreads();
	int b0[NW], b1[NW], a0[NW], a1[NW];
#pragma unroll
	for (int k = 0; k < NW; ++k) {
		const int2 v = sh[k];
		a0[k] = v.x;
		a1[k] = v.y;
		b0[k] = k < w ? v.x : none0;
		b1[k] = k < w ? v.y : none1;
	}
#pragma unroll
	for (int d = 1; d < NW; d <<= 1)
#pragma unroll
		for (int k = 0; k + d < NW; k += 2 * d) {
			b0[k] = max(b0[k], b0[k + d]);
			b1[k] = max(b1[k], b1[k + d]);
			a0[k] = max(a0[k], a0[k + d]);
			a1[k] = max(a1[k], a1[k + d]);
		}
	tot0 = a0[0];
	tot1 = a1[0];
	ex0 = max(ex0, b0[0]);
	ex1 = max(ex1, b1[0]);
}

// The block's min of lo and maxes of hi and hi2 (each thread's): the first and last of some columns.
template <int NW>
__device__ __forceinline__ void block_min_max(int &lo, int &hi, int &hi2, int *sh)
{
	lo = __reduce_min_sync(FULL, lo);
	hi = __reduce_max_sync(FULL, hi);
	hi2 = __reduce_max_sync(FULL, hi2);
	if (NW == 1) return;
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	if (lane == 0) {
		sh[w] = lo;
		sh[NW + w] = hi;
		sh[2 * NW + w] = hi2;
	}
	__syncthreads();
	int l[NW], h[NW], h2[NW];
#pragma unroll
	for (int k = 0; k < NW; ++k) {
		l[k] = sh[k];
		h[k] = sh[NW + k];
		h2[k] = sh[2 * NW + k];
	}
#pragma unroll
	for (int d = 1; d < NW; d <<= 1)
#pragma unroll
		for (int k = 0; k + d < NW; k += 2 * d) {
			l[k] = min(l[k], l[k + d]);
			h[k] = max(h[k], h[k + d]);
			h2[k] = max(h2[k], h2[k + d]);
		}
	lo = l[0];
	hi = h[0];
	hi2 = h2[0];
}

template <int NW>
__device__ __forceinline__ void block_sync()
{
	if (NW == 1) __syncwarp();
	else __syncthreads();
}

// The sweep of one job by a block of NW warps, thread t holding K columns from col0 + t*K of each chunk of a
// row (every thread holds the same row state). With TRACE, rows 1..last_row only, writing traceback bytes and
// row offsets; without, every row, writing the row offsets and traceback bytes into the pool (pool_size bytes
// at tb, pool_top the next unclaimed; none when pool_size is 0) while its claims succeed: tb_rows is the first
// row not written. Returns ST_DONE, ST_SHORT, ST_LONG or ST_BAIL (every thread alike); the outcome goes to res
// (thread 0).
template <bool TRACE, int K, int NW, bool SHARED_RING>
__device__ int sweep(const YdropParams &P, const unsigned long long *__restrict__ O, const int *__restrict__ mats,
                     const u8 *__restrict__ seqs, int2 *ring, u8 *tb, unsigned *tb_row, uint4 *env, YdropOut *res,
                     int last_row, unsigned long long *pool_top, unsigned pool_size, int &tb_rows)
{
	constexpr int NT = 32 * NW, CHUNK = NT * K, SUB_PER_THREAD = (256 + NT - 1) / NT;
	extern __shared__ int2 sh_ring[];
	// the substitution scores of row r's base of a in sh_sub[r & 1], loaded while row r - 1 runs
	__shared__ int sh_sub[2][256];
	__shared__ int2 sh_yb[NW];
	__shared__ int sh_bb[NW], sh_ev[3 * NW], sh_ebb[NW];
	__shared__ unsigned sh_claim;
	const int tid = threadIdx.x;
	const int m = P.m, n = P.n, a_len = P.a_len, b_len = P.b_len;
	const int E = P.gap_extend, OE = wadd(P.gap_open, E), Y = P.y_drop, row_cap = P.row_cap;
	// the widest row whose gap cost E * width stays within ROW_GAP_MAX (any, with E = 0)
	const int width_max = E > 0 ? (int)(ROW_GAP_MAX / E) : 0x7fffffff;
	const bool trim = P.trim != 0;
	const int tb_len = P.tb_len, ydt = P.y_drop_tail, W = P.ring, wm = W - 1;
	const u8 *const a = seqs + O[O_A], *const b = seqs + O[O_B];
	const int *const sub = mats + (i64)P.mat * 65536;
	int2 *prev = SHARED_RING ? sh_ring : ring + O[O_RING], *cur = prev + W;
	// pass 2 writes every traceback byte of its rows at its own offset; pass 1 into the pool at pos, claiming
	// claim bytes whenever fewer than a row's W are left before lim (pass 2: a claim without end)
	unsigned claim = 16u * (unsigned)W, pos = 0, lim = TRACE ? NO_CLAIM : 0;
	bool wtb = TRACE || pool_size > 0;
	tb_rows = 0;
	if (TRACE) tb += O[O_TB];
	if (wtb) tb_row += O[O_TB_ROW];
	// (uniform: every thread takes the branch alike)
	auto claim_more = [&]() {
		if (TRACE || !wtb || lim - pos >= (unsigned)W) return;
		if (tid == 0) {
			const unsigned long long at = atomicAdd(pool_top, (unsigned long long)claim);
			sh_claim = at + claim <= pool_size ? (unsigned)at : NO_CLAIM;
		}
		block_sync<NW>();
		// (the next claim's store comes after a row's barrier, so every thread has read this one)
		const unsigned at = sh_claim;
		if (at == NO_CLAIM) {
			wtb = false;
		} else {
			pos = at;
			lim = at + claim;
			claim = min(2 * claim, TB_CLAIM_MAX);
		}
	};
	// what each row asked of its bounds (the host's shadow::Envelope): pass 1 only
	const bool rec = !TRACE && P.env != 0 && tid == 0;
	if (rec) env += O[O_ENV];
	int rows_entered = 0;

	// row 0: C = 0 at column 0, then an insertion run while the previous C is within y-drop
	int cnt; // columns 1.. of row 0
	if (Y < OE) cnt = 1;
	else if (E == 0) cnt = n;
	else cnt = (int)min((i64)(Y - OE) / E + 2, (i64)n);
	if (cnt + 1 > W) return ST_BAIL;
	claim_more();
	for (int col = tid; col <= cnt; col += NT) {
		const int c = col == 0 ? 0 : wsub(wsub(0, OE), (int)((unsigned)(col - 1) * (unsigned)E));
		prev[col & wm] = make_int2(c, wsub(c, OE));
		if (wtb) tb[pos + (unsigned)col] = col == 0 ? 0 : FROM_I;
	}
	if (wtb && tid == 0) tb_row[0] = pos;
	if (wtb) tb_rows = 1;
	pos += (unsigned)(cnt + 1);
	if (a_len > 0)
		for (int t = tid; t < 256; t += NT) sh_sub[1][t] = sub[(int)a[0] * 256 + t];
	// row 1 reads what other threads wrote
	block_sync<NW>();
	unsigned used = cnt + 1;
	int ly = 0, ry = cnt + 1;
	int best = 0, boundary = NEG_INF, end1 = 0, end2 = 0;
	bool end_is_boundary = false, truncated = false;
	unsigned tb_need = 0;

	const int rows = TRACE ? last_row : m;
	for (int row = 1; row <= rows; ++row) {
		const int ly_in = ly, ry_in = ry;
		const int tb_needed = (int)((unsigned)(ry - ly) + (unsigned)ydt);
		if ((i64)used + tb_needed >= (i64)tb_len) {
			truncated = true;
			if (rec) env[row - 1] = make_uint4(ly_in, ry_in, 0, 0);
			rows_entered = row;
			break;
		}
		if (!TRACE && row > row_cap) return ST_LONG;
		if (row > a_len) return ST_SHORT;
		claim_more();
		const unsigned row_base = (TRACE ? used : pos) - (unsigned)ly;
		if (wtb && tid == 0) tb_row[row] = row_base;
		if (wtb) tb_rows = row + 1;
		const int ly0 = ly, stop = min(ry, n + 1);
		if (stop > b_len + 1) return ST_SHORT;
		if (stop - ly0 > width_max) return ST_BAIL;
		const int *const srow = sh_sub[row & 1];
		// the next row's scores, stored at the row's end: their loads wait while the row runs
		const bool next_sub = row < rows && row < a_len;
		int sub_next[SUB_PER_THREAD];
		if (next_sub) {
			const int *const snext = sub + (int)a[row] * 256;
#pragma unroll
			for (int t = 0; t < SUB_PER_THREAD; ++t)
				if (tid + t * NT < 256) sub_next[t] = snext[tid + t * NT];
		}

		// carried from chunk to chunk
		int ymax = NO_Y;
		int best_c = best, bnd_c = boundary, np_col = ly0, new_ly = ly0;
		int ev_best = -1, ev_bnd = -1;
		bool leading = true;
		for (int col0 = ly0; col0 < stop; col0 += CHUNK) {
			// each scan is a thread-local one over its K columns, then one block scan of the threads' totals
			const int base = col0 + tid * K;
			int cp[K], d[K], s[K];
#pragma unroll
			for (int t = 0; t < K; ++t) {
				cp[t] = NEG_INF;
				d[t] = NEG_INF;
				if (base + t < stop) {
					const int2 v = prev[(base + t) & wm];
					cp[t] = v.x;
					d[t] = v.y;
				}
			}
			// the diagonal proposal from the row above; the row's first column gets NEG
			const int cl = (base > ly0 && base - 1 < stop) ? prev[(base - 1) & wm].x : NEG_INF;

			// i before each column (ignoring prunes), as max(NEG, max_k y_k) - E*(col - ly0), y_k the open
			// terms shifted by E*(k + 1 - ly0); yl: the thread's own terms before the column
			// bl: the thread's own S before the column over the cells with S >= D. That max equals the one over
			// substitution-ended cells (S >= D and S >= I): where I > S, I came from an earlier S >= D above S, so
			// the scan of best needs no I and runs beside the scan of i.
			int yl[K], yrun = NO_Y, bl[K], brun = I32_MIN;
#pragma unroll
			for (int t = 0; t < K; ++t) {
				const int col = base + t;
				const bool act = col < stop;
				s[t] = (act && col > ly0) ? wadd(t == 0 ? cl : cp[t - 1], srow[b[col - 1]]) : NEG_INF;
				yl[t] = yrun;
				bl[t] = brun;
				if (act && s[t] >= d[t]) {
					yrun = max(yrun, wsub(s[t], OE) + E * (col + 1 - ly0));
					brun = max(brun, s[t]);
				}
			}
			int ytot, btot, yex, bex;
			block_excl_max2<NW>(yrun, NO_Y, brun, I32_MIN, sh_yb, yex, ytot, bex, btot);
			const int yx = max(yex, ymax), bx = max(bex, best_c);

			// C
			int iv[K], c[K];
			unsigned gapm = 0;
#pragma unroll
			for (int t = 0; t < K; ++t) {
				const int col = base + t;
				// (wrapping: past the row's end the product may not fit, and nothing reads that column's iv)
				iv[t] = wsub(max(NEG_INF, max(yx, yl[t])), (int)((unsigned)E * (unsigned)(col - ly0)));
				const bool gap = d[t] > s[t] || iv[t] > s[t];
				if (gap) gapm |= 1u << t;
				c[t] = gap ? (d[t] >= iv[t] ? d[t] : iv[t]) : s[t];
			}

			// prunes, the end events of substitution-ended cells, the stores; boundary candidates (bbl: the
			// thread's own before the column)
			int bbl[K], bbrun = I32_MIN;
			unsigned bcandm = 0;
			int first_live = NO_FIRST, last_live = -1, last_eb = -1;
#pragma unroll
			for (int t = 0; t < K; ++t) {
				const int col = base + t;
				const bool act = col < stop;
				const bool gap = (gapm >> t) & 1u;
				const int bxt = max(bx, bl[t]);
				const bool pruned = act && c[t] < wsub(bxt, Y);
				const bool live_sub = act && !gap && !pruned;
				const bool bcand = live_sub && !trim && (row == m || col == n);
				bbl[t] = bbrun;
				if (bcand) {
					bbrun = max(bbrun, s[t]);
					bcandm |= 1u << t;
				}
				if (act && !pruned) {
					first_live = min(first_live, col);
					last_live = col;
				}
				if (live_sub && s[t] >= bxt) last_eb = col;
				if (act) {
					int dn, link;
					if (gap) {
						// no gap opens from a gap-ended C (no back-to-back gaps)
						dn = wsub(d[t], E);
						link = (d[t] >= iv[t] ? FROM_D : FROM_I) | I_EXTEND | D_EXTEND;
					} else {
						// strict: a tie records the extension
						const int o = wsub(c[t], OE), d2 = wsub(d[t], E);
						dn = o > d2 ? o : d2;
						link = (o > d2 ? FROM_C : FROM_C | D_EXTEND) | (o > wsub(iv[t], E) ? 0 : I_EXTEND);
					}
					cur[col & wm] = pruned ? make_int2(NEG_INF, NEG_INF) : make_int2(c[t], dn);
					if (wtb) tb[row_base + (unsigned)col] = pruned ? 0 : (u8)link;
				}
			}
			int w_first = first_live, w_last = last_live, w_eb = last_eb;
			block_min_max<NW>(w_first, w_last, w_eb, sh_ev);
			if (leading) {
				if (w_last >= 0) {
					new_ly = w_first;
					leading = false;
				} else {
					new_ly = min(col0 + CHUNK, stop);
				}
			}
			if (w_last >= 0) np_col = w_last;
			if (w_eb >= 0) ev_best = w_eb;
			// boundary cells (row m, column n) exist only without trimming, in the last row or at column n
			int bbtot = I32_MIN;
			if (!trim && (row == m || (col0 <= n && n < min(stop, col0 + CHUNK)))) {
				const int bbx = max(block_excl_max<NW, int>(bbrun, I32_MIN, sh_bb, bbtot), bnd_c);
				int last_ebb = -1, w_ebb;
#pragma unroll
				for (int t = 0; t < K; ++t)
					if (((bcandm >> t) & 1u) && s[t] >= max(bbx, bbl[t])) last_ebb = base + t;
				block_excl_max<NW, int>(last_ebb, -1, sh_ebb, w_ebb);
				if (w_ebb >= 0) ev_bnd = w_ebb;
			}

			ymax = max(ymax, ytot);
			best_c = max(best_c, btot);
			bnd_c = max(bnd_c, bbtot);
		}
		used += (unsigned)(stop - ly0);
		pos += (unsigned)(stop - ly0);
		ly = new_ly;
		rows_entered = row;
		if (ly >= ry) {
			// every cell pruned
			if (rec) env[row - 1] = make_uint4(ly_in, ry_in, 0, 0);
			break;
		}

		best = best_c;
		boundary = bnd_c;
		if (ev_best >= 0 || ev_bnd >= 0) {
			end1 = row;
			end_is_boundary = ev_bnd >= ev_best;
			end2 = end_is_boundary ? ev_bnd : ev_best;
		}
		if (best > BEST_MAX) return ST_BAIL;

		if (ry > np_col + 1) {
			// trailing prunes pull the bound in; the pruned cell at np_col + 1 (a column <= n) is the terminator
			if (rec) env[row - 1] = make_uint4(ly_in, ry_in, np_col + 1, (unsigned)(np_col + 1) | TESTED);
			ry = np_col + 2;
		} else {
			// the row reached its right bound: prolong it with insertions while i stays within y-drop
			const i64 i_end = (i64)max(NEG_INF, ymax) - (i64)E * (stop - ly0);
			const i64 floor = (i64)wsub(best, Y), room = (i64)n - ry + 1;
			i64 k = 0;
			if (i_end >= floor && room > 0) k = E == 0 ? room : min((i_end - floor) / E + 1, room);
			if (ry + k + 1 - ly0 > W) return ST_BAIL;
			for (int j = tid; j < k; j += NT) {
				const int c = (int)(i_end - (i64)E * j), col = ry + j;
				cur[col & wm] = make_int2(c, wsub(c, OE));
				if (wtb) tb[row_base + (unsigned)col] = FROM_I;
			}
			used += (unsigned)k;
			pos += (unsigned)k;
			ry += (int)k;
			if (rec) env[row - 1] = make_uint4(ly_in, ry_in, ry_in, (unsigned)ry | TESTED);
			// the terminator: a dead cell nothing steps from, with no traceback byte
			if (ry <= n) {
				if (tid == 0) cur[ry & wm] = make_int2(NEG_INF, NEG_INF);
				++ry;
			}
		}
		if (end1 == row) tb_need = used;
		if (next_sub) {
#pragma unroll
			for (int t = 0; t < SUB_PER_THREAD; ++t)
				if (tid + t * NT < 256) sh_sub[(row + 1) & 1][tid + t * NT] = sub_next[t];
		}
		int2 *const t = prev;
		prev = cur;
		cur = t;
		// the next row reads what other threads wrote
		block_sync<NW>();
	}
	if (!TRACE && tid == 0) {
		res->score = end_is_boundary ? boundary : best;
		res->end1 = end1;
		res->end2 = end2;
		res->trunc = truncated;
		res->tb_need = (int)tb_need;
		res->rows = rows_entered;
	}
	return ST_DONE;
}

// The edit script from (end1, end2) back to (0, 0), in traceback order, as LASTZ's edit_script_add builds it,
// walked by one warp (every lane alike; lane 0 stores): a step of the path moves at most one row up and one
// column left, so the lanes load the 16 x 16 traceback bytes up and left of the path's cell at once (lane l: row
// - l / 2, 8 consecutive columns) and the walk takes up to 16 steps through them with a shuffle each. Serially,
// each step waited for two dependent loads (its row's offset, then its byte): 10-15% of the kernel's time. Bytes
// at tb_end or beyond are not read (the rows up to end1 lie below it); the path reads only bytes its rows wrote.
// The last op stays in a register until the next one differs from it (or its run is full).
__device__ int trace_back(const u8 *tb, const unsigned *tb_row, unsigned tb_end, unsigned *ops, int end1, int end2)
{
	const int lane = threadIdx.x & 31;
	int row = end1, col = end2, prev = FROM_C, n_ops = 0;
	unsigned run = 0; // (the last op, not yet stored; 0: none)
	while (row >= 1 || col > 0) {
		const int r0 = row, c_lo = col - 15;
		const int lr = r0 - (lane >> 1), lc = c_lo + (lane & 1) * 8;
		unsigned lo = 0, hi = 0;
		if (lr >= 0) {
			const unsigned base = tb_row[lr];
#pragma unroll
			for (int t = 0; t < 8; ++t) {
				const unsigned at = base + (unsigned)(lc + t);
				const unsigned v = (lc + t >= 0 && at < tb_end) ? tb[at] : 0u;
				if (t < 4) lo |= v << (8 * t);
				else hi |= v << (8 * (t - 4));
			}
		}
		for (int step_i = 0; step_i < 16 && (row >= 1 || col > 0); ++step_i) {
			const int dc = col - c_lo, b = dc & 7;
			const unsigned word = __shfl_sync(FULL, (b & 4) ? hi : lo, ((r0 - row) << 1) | (dc >> 3));
			const int link = (word >> (8 * (b & 3))) & 0xff;
			int step = link & (FROM_I | FROM_D);
			if (prev == FROM_I && (link & I_EXTEND)) step = FROM_I;
			if (prev == FROM_D && (link & D_EXTEND)) step = FROM_D;
			unsigned kind;
			if (step == FROM_I) {
				--col;
				kind = OP_INS;
			} else if (step == FROM_D) {
				--row;
				kind = OP_DEL;
			} else {
				--row;
				--col;
				kind = OP_SUB;
			}
			if (run != 0 && (run & 3u) == kind && (run >> 2) < MAX_RUN) {
				run += 4u;
			} else {
				if (run != 0) {
					if (lane == 0) ops[n_ops] = run;
					++n_ops;
				}
				run = 4u | kind;
			}
			prev = step;
		}
	}
	if (run != 0) {
		if (lane == 0) ops[n_ops] = run;
		++n_ops;
	}
	return n_ops;
}

// One block of NW warps per job of order[]. trace = 0: pass 1 for every listed job, tb its pool of pool_size bytes
// (pool_top zero at the launch); trace = 1: pass 2 for the listed jobs (each with end1 > 0 and room for tb_need
// bytes at its offset), reading pass 1's results. A job whose ring is at most sh_cells keeps it in the dynamic
// shared memory (2 * sh_cells cells), the others at their ring offset.
template <int NW, int K>
__device__ void run_job(const unsigned long long *__restrict__ offs, const YdropParams *__restrict__ par,
                        const int *__restrict__ mats, const u8 *__restrict__ seqs, int2 *ring, u8 *tb,
                        unsigned *tb_row, unsigned *ops, uint4 *env, YdropOut *res, const int *__restrict__ order,
                        int n_order, int trace, int sh_cells, unsigned long long *pool_top, unsigned pool_size)
{
	const int k = blockIdx.x;
	if (k >= n_order) return;
	const int j = order[k];
	const YdropParams &P = par[j];
	const unsigned long long *O = offs + (i64)j * NO;
	YdropOut *R = res + j;
	int tb_rows;
	if (!trace) {
		const int st = P.ring <= sh_cells
		                   ? sweep<false, K, NW, true>(P, O, mats, seqs, ring, tb, tb_row, env, R, 0, pool_top, pool_size, tb_rows)
		                   : sweep<false, K, NW, false>(P, O, mats, seqs, ring, tb, tb_row, env, R, 0, pool_top, pool_size, tb_rows);
		// when the rows up to the end are written, pass 1 traces back here, in the first warp
		block_sync<NW>();
		if (threadIdx.x >= 32) return;
		const bool traced = st == ST_DONE && R->end1 > 0 && R->end1 < tb_rows;
		const int n_ops = traced ? trace_back(tb, tb_row + O[O_TB_ROW], pool_size, ops + O[O_OPS], R->end1, R->end2) : 0;
		if (threadIdx.x == 0) {
			R->status = st;
			R->traced = traced;
			if (traced) R->n_ops = n_ops;
		}
		return;
	}
	const int st = P.ring <= sh_cells
	                   ? sweep<true, K, NW, true>(P, O, mats, seqs, ring, tb, tb_row, env, R, R->end1, pool_top, 0, tb_rows)
	                   : sweep<true, K, NW, false>(P, O, mats, seqs, ring, tb, tb_row, env, R, R->end1, pool_top, 0, tb_rows);
	// the traceback (the first warp) reads what every thread wrote
	block_sync<NW>();
	if (threadIdx.x >= 32) return;
	// pass 1 finished this job, so pass 2 (the same rows) cannot bail
	const int n_ops =
	    st == ST_DONE ? trace_back(tb + O[O_TB], tb_row + O[O_TB_ROW], (unsigned)R->tb_need, ops + O[O_OPS], R->end1, R->end2) : 0;
	if (threadIdx.x == 0) {
		R->status = st;
		if (st == ST_DONE) R->n_ops = n_ops;
	}
}

#define YDROP_ENTRY(name, NW, K)                                                                                  \
	extern "C" __global__ void __launch_bounds__(32 * NW)                                                       \
	    name(const unsigned long long *__restrict__ offs, const YdropParams *__restrict__ par, const int *__restrict__ mats, \
	         const u8 *__restrict__ seqs, int2 *ring, u8 *tb, unsigned *tb_row, unsigned *ops, uint4 *env,          \
	         YdropOut *res, const int *__restrict__ order, int n_order, int trace, int sh_cells,                \
	         unsigned long long *pool_top, unsigned pool_size)                                                  \
	{                                                                                                           \
		run_job<NW, K>(offs, par, mats, seqs, ring, tb, tb_row, ops, env, res, order, n_order, trace, sh_cells,  \
		               pool_top, pool_size);                                                                    \
	}
YDROP_ENTRY(ydrop_one_sided, 8, 2)

// Pass 1's envelopes and edit scripts gathered into one buffer each, so that the host downloads two buffers
// instead of two per job: job k's cnt[2k] envelope rows go to genv at gat[2k], its cnt[2k + 1] ops to gops
// at gat[2k + 1]. One block per job of the launch.
extern "C" __global__ void __launch_bounds__(128)
    ydrop_gather(const unsigned long long *__restrict__ offs, const unsigned long long *__restrict__ gat,
                 const int *__restrict__ cnt, const uint4 *__restrict__ env, const unsigned *__restrict__ ops,
                 uint4 *genv, unsigned *gops, int n)
{
	const int k = blockIdx.x;
	if (k >= n) return;
	const unsigned long long *O = offs + (i64)k * NO;
	const uint4 *e = env + O[O_ENV];
	uint4 *ge = genv + gat[2 * k];
	for (int i = threadIdx.x; i < cnt[2 * k]; i += blockDim.x) ge[i] = e[i];
	const unsigned *o = ops + O[O_OPS];
	unsigned *go = gops + gat[2 * k + 1];
	for (int i = threadIdx.x; i < cnt[2 * k + 1]; i += blockDim.x) go[i] = o[i];
}
