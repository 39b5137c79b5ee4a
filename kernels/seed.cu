// minimap2 2.31's seeding for batches of reads, element by element equal to warpalign::seed::twin (src/seed/gpu.rs
// runs the steps in this order):
//  seed_sketch      mm_sketch per segment, in chunks of bases, one thread each (twice: count, then write)
//  seed_qocc_pairs  mm_seed_mz_flt, part 1: each read's (hash, index) pairs, sorted as the anchors are
//  seed_qocc_mark   part 2: the minimizers of groups too frequent get x = 0
//  seed_compact_mv  part 3: those dropped, in place (a thread per read)
//  seed_lookup      mm_seed_collect_all's lookups (FlatIndex::get) and tandem flags
//  seed_select      the rest of mm_collect_matches (mm_seed_select, rep_len, mini_pos), a thread per read
//  seed_expand      collect_seed_hits' anchors (skip_seed, strands, flags), a warp per seed
//  seed_compact_a   the anchors skip_seed dropped, in place (only with -X, all-vs-all, --for/rev-only)
//  seed_rs_diff, seed_tasks_init, seed_rs_hist, seed_rs_permute, seed_rs_small  radix_sort_128x per read, level by level
// Per-read arrays are at offsets the host gives (a read's share of a buffer is contiguous, its length a count).

typedef unsigned long long u64;
typedef unsigned int u32;

struct mm128 {
	u64 x, y;
};

#define U64_MAX 0xffffffffffffffffULL

// seq_nt4_table: A/C/G/T/U either case to 0..3, bytes 0..3 to themselves, the rest to 4
__device__ __forceinline__ int nt4(unsigned char c)
{
	if (c < 4) return c;
	switch (c | 0x20) {
	case 'a': return 0;
	case 'c': return 1;
	case 'g': return 2;
	case 't':
	case 'u': return 3;
	}
	return 4;
}

__device__ __forceinline__ u64 hash64(u64 key, u64 mask)
{
	key = (~key + (key << 21)) & mask;
	key = key ^ key >> 24;
	key = ((key + (key << 3)) + (key << 8)) & mask;
	key = key ^ key >> 14;
	key = ((key + (key << 2)) + (key << 4)) & mask;
	key = key ^ key >> 28;
	key = (key + (key << 31)) & mask;
	return key;
}

// ---- mm_sketch in chunks ----------------------------------------------------------------------------------
//
// A chunk [s, e) of a segment owns the minimizers pushed by the loop iterations that start in it (and, for the
// last chunk, the final push). Its thread runs upstream's loop from p < s with a fresh state and emits from s on,
// once its state provably equals upstream's there ("synced"):
//  - the k-mer registers are exact after k bases (an ambiguous base does not clear them), and with them whether
//    a k-mer is symmetric (skipped: no write, l unchanged); the HPC run queue after k+1 bases (the first run may
//    be cut) or after an ambiguous base;
//  - l is exact after an ambiguous base met with exact registers; else lx, the k-mers counted with exact
//    registers since the last ambiguous base, is a lower bound of both the thread's l and upstream's;
//  - a write to buf is exact if it is an ambiguous base's, or its k-mer and span are exact and l >= k on both
//    sides; after w exact writes in a row buf is exact, and so is min: always the newest of the window's
//    smallest;
//  - the pushes compare l with w+k-1 and w+k: exact once l is, or once lx >= w+k.
// If the state is not synced when the first owned iteration starts, the thread starts again twice as far back;
// from the segment's start (p = 0) the state is upstream's. (A chunk inside a long run of symmetric k-mers, which
// only even k have, goes back to the run's start.)

__device__ __forceinline__ void push_out(mm128 *out, u64 &n, bool emit, mm128 m, u64 add)
{
	if (!emit) return;
	if (out) {
		m.y += add;
		out[n] = m;
	}
	++n;
}

// The minimizers the chunk [s, e) of seq[0..len) owns: their count, written to out when out is not null.
// buf: w slots of scratch.
__device__ u64 sketch_chunk(const unsigned char *seq, int len, int s, int e, int w, int k, int is_hpc, u32 rid,
                            u64 add, mm128 *buf, mm128 *out)
{
	// An ambiguous base pushes nothing (l = 0), and after w of them the window and min are empty: a chunk of
	// ambiguous bases owns no minimizer, whatever came before (its thread would otherwise go back past the run).
	if (e != len || e - s >= w) {
		int j = s;
		while (j < e && nt4(seq[j]) == 4) ++j;
		if (j == e) return 0;
	}
	const mm128 EMPTY = {U64_MAX, U64_MAX};
	const u64 mask = (1ULL << 2 * k) - 1;
	const int shift1 = 2 * (k - 1);
	for (long long warm = 2 * (w + k) + 32;; warm *= 2) {
		const int p = s > warm ? (int)(s - warm) : 0;
		u64 kmer0 = 0, kmer1 = 0, n = 0;
		int l = 0, buf_pos = 0, min_pos = 0, kmer_span = 0;
		int tq[32], tq_front = 0, tq_count = 0;
		mm128 mn = EMPTY;
		for (int j = 0; j < w; ++j) buf[j] = EMPTY;
		// rx: l is exact; cleared: an ambiguous base was met (the run queue is exact)
		bool synced = p == 0, rx = false, cleared = false;
		int n_valid = 0, lx = 0, good = 0;
		bool lost = false;
		int i = p;
		for (; i < len; ++i) {
			const int start = i;
			if (start >= e) break;
			const bool emit = start >= s;
			if (emit && !synced) {
				if (good >= w && (rx || lx >= w + k)) synced = true;
				else {
					lost = true;
					break;
				}
			}
			const int c = nt4(seq[i]);
			mm128 info = EMPTY;
			bool exact;
			if (c < 4) {
				if (is_hpc) {
					int skip_len = 1;
					if (i + 1 < len && nt4(seq[i + 1]) == c) {
						for (skip_len = 2; i + skip_len < len; ++skip_len)
							if (nt4(seq[i + skip_len]) != c) break;
						i += skip_len - 1;
					}
					tq[(tq_count + tq_front) & 0x1f] = skip_len;
					++tq_count;
					kmer_span += skip_len;
					if (tq_count > k) {
						kmer_span -= tq[tq_front];
						tq_front = (tq_front + 1) & 0x1f;
						--tq_count;
					}
				} else kmer_span = l + 1 < k ? l + 1 : k;
				kmer0 = (kmer0 << 2 | (u64)c) & mask;
				kmer1 = (kmer1 >> 2) | (u64)(3 ^ c) << shift1;
				const bool kx = ++n_valid >= k;
				if (kmer0 == kmer1) { // symmetric: skipped
					if (!kx) good = 0;
					continue;
				}
				const int z = kmer0 < kmer1 ? 0 : 1;
				++l;
				if (kx) ++lx;
				if (l >= k && kmer_span < 256) {
					info.x = hash64(z ? kmer1 : kmer0, mask) << 8 | (u64)kmer_span;
					info.y = (u64)rid << 32 | (u64)((u32)i << 1) | (u64)z;
				}
				exact = kx && (!is_hpc || cleared || n_valid > k) && (rx || lx >= k);
			} else {
				l = 0, tq_count = 0, tq_front = 0, kmer_span = 0;
				lx = 0, cleared = true, exact = true;
				if (n_valid >= k) rx = true;
			}
			good = exact ? good + 1 : 0;
			buf[buf_pos] = info;
			if (l == w + k - 1 && mn.x != U64_MAX) {
				for (int j = buf_pos + 1; j < w; ++j)
					if (mn.x == buf[j].x && buf[j].y != mn.y) push_out(out, n, emit, buf[j], add);
				for (int j = 0; j < buf_pos; ++j)
					if (mn.x == buf[j].x && buf[j].y != mn.y) push_out(out, n, emit, buf[j], add);
			}
			if (info.x <= mn.x) {
				if (l >= w + k && mn.x != U64_MAX) push_out(out, n, emit, mn, add);
				mn = info, min_pos = buf_pos;
			} else if (buf_pos == min_pos) {
				if (l >= w + k - 1 && mn.x != U64_MAX) push_out(out, n, emit, mn, add);
				mn.x = U64_MAX;
				for (int j = buf_pos + 1; j < w; ++j)
					if (mn.x >= buf[j].x) mn = buf[j], min_pos = j;
				for (int j = 0; j <= buf_pos; ++j)
					if (mn.x >= buf[j].x) mn = buf[j], min_pos = j;
				if (l >= w + k - 1 && mn.x != U64_MAX) {
					for (int j = buf_pos + 1; j < w; ++j)
						if (mn.x == buf[j].x && mn.y != buf[j].y) push_out(out, n, emit, buf[j], add);
					for (int j = 0; j <= buf_pos; ++j)
						if (mn.x == buf[j].x && mn.y != buf[j].y) push_out(out, n, emit, buf[j], add);
				}
			}
			if (++buf_pos == w) buf_pos = 0;
		}
		if (lost) continue;
		if (e == len) {
			// the final push is the last chunk's
			if (!synced && !(good >= w && (rx || lx >= w + k))) continue;
			if (mn.x != U64_MAX) push_out(out, n, true, mn, add);
		}
		return n;
	}
}

// One thread per chunk. Chunk c covers [chunk_beg[c], min(chunk_beg[c] + chunk_len, len)) of segment
// chunk_seg[c]; a segment's bases start at seg_off, its y's get seg_rid << 32 and seg_add (the segments before
// it, as collect_minimizers shifts them). Counts go to count[c] (out null), else the minimizers to
// out[out_off[c]..]. Dynamic shared memory: w slots per thread.
extern "C" __global__ void seed_sketch(const unsigned char *bases, const u32 *chunk_seg, const u32 *chunk_beg,
                                       int n_chunks, int chunk_len, const u64 *seg_off, const u32 *seg_len,
                                       const u32 *seg_rid, const u64 *seg_add, int w, int k, int is_hpc,
                                       u64 *count, const u64 *out_off, mm128 *out)
{
	extern __shared__ mm128 slots[];
	const int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= n_chunks) return;
	const u32 sg = chunk_seg[c];
	const int len = (int)seg_len[sg], s = (int)chunk_beg[c];
	const int e = len - s > chunk_len ? s + chunk_len : len;
	mm128 *buf = slots + (size_t)threadIdx.x * w;
	const u64 n = sketch_chunk(bases + seg_off[sg], len, s, e, w, k, is_hpc, seg_rid[sg], seg_add[sg], buf,
	                           out ? out + out_off[c] : 0);
	if (!out) count[c] = n;
}

// ---- mm_seed_mz_flt --------------------------------------------------------------------------------------

// A block per read: pairs (x, index in the read) at the read's minimizers' offset, or none (n = 0 for the sort)
// when the filter does not apply to it.
extern "C" __global__ void seed_qocc_pairs(const mm128 *mv, const u64 *r_off, const u64 *r_n, int q_occ_max,
                                           mm128 *pairs, u64 *pair_n)
{
	const int r = blockIdx.x;
	const u64 off = r_off[r], n = r_n[r];
	const bool on = n > (u64)(long long)q_occ_max;
	if (threadIdx.x == 0) pair_n[r] = on ? n : 0;
	if (!on) return;
	for (u64 i = threadIdx.x; i < n; i += blockDim.x) {
		mm128 p = {mv[off + i].x, i};
		pairs[off + i] = p;
	}
}

// A block per read: each group of equal x in the sorted pairs, seen from its first element, zeroes its
// minimizers' x when it occurs more than q_occ_max times and in more than q_occ_frac of the read.
extern "C" __global__ void seed_qocc_mark(mm128 *mv, const u64 *r_off, const u64 *pair_n, const mm128 *pairs,
                                          int q_occ_max, float q_occ_frac)
{
	const int r = blockIdx.x;
	const u64 off = r_off[r], n = pair_n[r];
	const mm128 *a = pairs + off;
	for (u64 i = threadIdx.x; i < n; i += blockDim.x) {
		if (i > 0 && a[i - 1].x == a[i].x) continue;
		u64 j = i + 1;
		while (j < n && a[j].x == a[i].x) ++j;
		const int cnt = (int)(j - i);
		// upstream: int cnt against the int limit, then cnt > mv->n * q_occ_frac in float
		if (cnt > q_occ_max && __int2float_rn(cnt) > __fmul_rn(__ull2float_rn(n), q_occ_frac))
			for (u64 t = i; t < j; ++t) mv[off + a[t].y].x = 0;
	}
}

// A thread per read: keeps the minimizers with x != 0, in order.
extern "C" __global__ void seed_compact_mv(mm128 *mv, const u64 *r_off, u64 *r_n, int n_reads)
{
	const int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= n_reads) return;
	mm128 *a = mv + r_off[r];
	const u64 n = r_n[r];
	u64 k = 0;
	for (u64 i = 0; i < n; ++i)
		if (a[i].x != 0) a[k++] = a[i];
	r_n[r] = k;
}

// ---- mm_seed_collect_all, mm_seed_select, mm_collect_matches ----------------------------------------------

// mm_seed_t: cr is the index of the first position in the index's pos array; q_span's bit 31 is flt, info holds
// seg_id (31 bits) and is_tandem (bit 31).
struct Seed {
	u64 cr;
	u32 n, q_pos, q_span, info;
};

#define FLT (1u << 31)
#define TANDEM (1u << 31)

// FlatIndex::get: the number of positions of hash minier and the index of the first.
__device__ __forceinline__ u32 index_get(u64 minier, int b, const u64 *bucket_start, const u64 *keys,
                                         const u64 *pos_start, u64 *cr)
{
	const u64 bucket = minier & ((1ULL << b) - 1);
	const u64 key = (minier >> b) & (U64_MAX >> 1);
	u64 lo = bucket_start[bucket], hi = bucket_start[bucket + 1];
	while (lo < hi) {
		const u64 mid = lo + (hi - lo) / 2;
		if (keys[mid] < key) lo = mid + 1;
		else hi = mid;
	}
	if (lo == bucket_start[bucket + 1] || keys[lo] != key) return 0;
	*cr = pos_start[lo];
	return (u32)(pos_start[lo + 1] - pos_start[lo]);
}

// A block per read: seeds[i] for minimizer i (n = 0 when the index has none).
extern "C" __global__ void seed_lookup(const mm128 *mv, const u64 *r_off, const u64 *r_n, int b,
                                       const u64 *bucket_start, const u64 *keys, const u64 *pos_start, Seed *seeds)
{
	const int r = blockIdx.x;
	const u64 off = r_off[r], n = r_n[r];
	const mm128 *m = mv + off;
	for (u64 i = threadIdx.x; i < n; i += blockDim.x) {
		Seed q;
		q.cr = 0;
		q.n = index_get(m[i].x >> 8, b, bucket_start, keys, pos_start, &q.cr);
		const u64 h = m[i].x >> 8;
		const bool tandem = (i > 0 && h == m[i - 1].x >> 8) || (i + 1 < n && h == m[i + 1].x >> 8);
		q.q_pos = (u32)m[i].y;
		q.q_span = (u32)(m[i].x & 0xff);
		q.info = ((u32)(m[i].y >> 32) & 0x7fffffffu) | (tandem ? TANDEM : 0);
		seeds[off + i] = q;
	}
}

#define MAX_MAX_HIGH_OCC 128
#define SELECT_THREADS 32

__device__ void heap_down(u64 *h, int i, int n)
{
	const u64 tmp = h[i];
	for (int k; (k = 2 * i + 1) < n; i = k) {
		if (k + 1 < n && h[k + 1] > h[k]) ++k;
		if (h[k] <= tmp) break;
		h[i] = h[k];
	}
	h[i] = tmp;
}

__device__ void heap_up(u64 *h, int i)
{
	const u64 tmp = h[i];
	for (; i > 0 && h[(i - 1) / 2] < tmp; i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
	h[i] = tmp;
}

// mm_seed_select on a's n seeds: in each streak of seeds above max_occ, the (streak length)/dist rarest (at most
// 128; ties: the earlier) are kept, none above max_max_occ. heap: 128 slots.
__device__ void seed_select_streaks(Seed *a, u32 n, int len, int max_occ, int max_max_occ, int dist, u64 *heap)
{
	if (n <= 1) return;
	bool any = false;
	for (u32 i = 0; i < n; ++i) any |= a[i].n > (u32)max_occ;
	if (!any) return;
	long long last0 = -1;
	for (u32 i = 0; i <= n; ++i) {
		if (i == n || a[i].n <= (u32)max_occ) {
			if ((long long)i - last0 > 1) {
				const int ps = last0 < 0 ? 0 : (int)(a[last0].q_pos >> 1);
				const int pe = i == n ? len : (int)(a[i].q_pos >> 1);
				const u32 st = (u32)(last0 + 1), en = i;
				int mho = (int)(__dadd_rn(__ddiv_rn((double)(int)((u32)pe - (u32)ps), (double)dist), .499));
				if (mho > 0) {
					if (mho > MAX_MAX_HIGH_OCC) mho = MAX_MAX_HIGH_OCC;
					int hn = 0;
					for (u32 j = st; j < en && hn < mho; ++j) {
						heap[hn] = (u64)a[j].n << 32 | j;
						heap_up(heap, hn++);
					}
					for (u32 j = st + mho; j < en; ++j) {
						if (a[j].n < (u32)(heap[0] >> 32)) {
							heap[0] = (u64)a[j].n << 32 | j;
							heap_down(heap, 0, hn);
						}
					}
					for (int j = 0; j < hn; ++j) a[(u32)heap[j]].q_span |= FLT;
				}
				for (u32 j = st; j < en; ++j) {
					a[j].q_span ^= FLT;
					if (a[j].n > (u32)max_max_occ) a[j].q_span |= FLT;
				}
			}
			last0 = i;
		}
	}
}

// A thread per read: the read's found seeds (in query order), filtered by the occurrence limits; the kept ones
// compacted in place with their anchors' offsets in the read (a_rel), mini_pos, rep_len, and the counts.
extern "C" __global__ void seed_select(Seed *seeds, const u64 *r_off, const u64 *r_n, const int *r_qlen,
                                       int n_reads, int max_occ, int max_max_occ, int dist, u64 *a_rel,
                                       u64 *mini_pos, u64 *r_nseed, u64 *r_na, int *r_rep)
{
	__shared__ u64 heaps[SELECT_THREADS * MAX_MAX_HIGH_OCC];
	const int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= n_reads) return;
	const u64 off = r_off[r], n = r_n[r];
	Seed *a = seeds + off;
	u32 m = 0;
	for (u64 i = 0; i < n; ++i)
		if (a[i].n > 0) a[m++] = a[i];
	if (dist > 0 && max_max_occ > max_occ)
		seed_select_streaks(a, m, r_qlen[r], max_occ, max_max_occ, dist, heaps + threadIdx.x * MAX_MAX_HIGH_OCC);
	else
		for (u32 i = 0; i < m; ++i)
			if (a[i].n > (u32)max_occ) a[i].q_span |= FLT;
	int rep_st = 0, rep_en = 0, rep_len = 0;
	u64 n_a = 0;
	u32 kept = 0;
	for (u32 i = 0; i < m; ++i) {
		Seed q = a[i];
		if (q.q_span & FLT) {
			const int en = (int)((q.q_pos >> 1) + 1), st = (int)((u32)en - (q.q_span & ~FLT));
			if (st > rep_en) {
				rep_len = (int)((u32)rep_len + (u32)(rep_en - rep_st));
				rep_st = st, rep_en = en;
			} else rep_en = en;
		} else {
			mini_pos[off + kept] = (u64)q.q_span << 32 | (q.q_pos >> 1);
			a_rel[off + kept] = n_a;
			n_a += q.n;
			a[kept++] = q;
		}
	}
	rep_len = (int)((u32)rep_len + (u32)(rep_en - rep_st));
	r_nseed[r] = kept;
	r_na[r] = n_a;
	r_rep[r] = rep_len;
}

// ---- collect_seed_hits' anchors ----------------------------------------------------------------------------

#define F_NO_DIAG 0x001LL
#define F_NO_DUAL 0x002LL
#define F_FOR_ONLY 0x100000LL
#define F_REV_ONLY 0x200000LL
#define F_QSTRAND 0x100000000LL
#define SEED_TANDEM (1ULL << 42)
#define SEED_SELF (1ULL << 43)
#define SEED_SEG_SHIFT 48
#define HI32 0xffffffff00000000ULL

// strcmp's sign on byte strings (unsigned bytes; a prefix sorts first)
__device__ int bytes_cmp(const unsigned char *a, u64 na, const unsigned char *b, u64 nb)
{
	const u64 n = na < nb ? na : nb;
	for (u64 i = 0; i < n; ++i)
		if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
	return na < nb ? -1 : na > nb ? 1 : 0;
}

// A block per read, a warp per kept seed, a lane per position: the anchors at a_off[r] + a_rel[seed] + t, with
// keep[...] = 0 where skip_seed drops one (keep is null unless the flags can drop). The read's name, when it has
// one, is qnames[qname_off[r]..qname_off[r + 1]] (has_qname[r]); the index's names likewise.
extern "C" __global__ void seed_expand(const Seed *seeds, const u64 *r_off, const u64 *r_nseed, const u64 *a_rel,
                                       const u64 *a_off, const int *r_qlen, const unsigned char *has_qname,
                                       const u64 *qname_off, const unsigned char *qnames, const u64 *pos,
                                       const u32 *seq_len, const u64 *name_off, const unsigned char *names,
                                       long long flag, mm128 *anchors, unsigned char *keep)
{
	const int r = blockIdx.x;
	const u64 off = r_off[r], ns = r_nseed[r];
	const int qlen = r_qlen[r];
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n_warps = blockDim.x >> 5;
	const bool names_used = has_qname[r] && (flag & (F_NO_DIAG | F_NO_DUAL));
	const unsigned char *qn = qnames + qname_off[r];
	const u64 qn_len = qname_off[r + 1] - qname_off[r];
	for (u64 j = warp; j < ns; j += n_warps) {
		const Seed q = seeds[off + j];
		const u32 q_span = q.q_span & ~FLT;
		const u64 base = a_off[r] + a_rel[off + j];
		for (u32 t = lane; t < q.n; t += 32) {
			const u64 rr = pos[q.cr + t];
			bool skip = false, is_self = false;
			// skip_seed
			if (names_used) {
				const u64 rid = rr >> 32;
				const int cmp = bytes_cmp(qn, qn_len, names + name_off[rid], name_off[rid + 1] - name_off[rid]);
				if ((flag & F_NO_DIAG) && cmp == 0 && (int)seq_len[rid] == qlen) {
					if ((u32)rr >> 1 == q.q_pos >> 1) skip = true;
					else if ((rr & 1) == (q.q_pos & 1)) is_self = true;
				}
				if (!skip && (flag & F_NO_DUAL) && cmp > 0) skip = true;
			}
			if (!skip && (flag & (F_FOR_ONLY | F_REV_ONLY))) {
				if ((rr & 1) == (q.q_pos & 1)) {
					if (flag & F_REV_ONLY) skip = true;
				} else if (flag & F_FOR_ONLY) skip = true;
			}
			if (keep) keep[base + t] = !skip;
			if (skip) continue;
			const u32 rpos = (u32)rr >> 1;
			mm128 p;
			if ((rr & 1) == (q.q_pos & 1)) {
				p.x = (rr & HI32) | rpos;
				p.y = (u64)q_span << 32 | (q.q_pos >> 1);
			} else if (!(flag & F_QSTRAND)) {
				p.x = 1ULL << 63 | (rr & HI32) | rpos;
				p.y = (u64)q_span << 32 | (u32)((u32)qlen - (((q.q_pos >> 1) + 1) - q_span) - 1);
			} else {
				const int len = (int)seq_len[rr >> 32];
				const int x = (int)((u32)len - ((rpos + 1) - q_span) - 1);
				p.x = 1ULL << 63 | (rr & HI32) | (u64)(long long)x;
				p.y = (u64)q_span << 32 | (q.q_pos >> 1);
			}
			p.y |= (u64)(q.info & 0x7fffffffu) << SEED_SEG_SHIFT;
			if (q.info & TANDEM) p.y |= SEED_TANDEM;
			if (is_self) p.y |= SEED_SELF;
			anchors[base + t] = p;
		}
	}
}

// A thread per read: the anchors not dropped, in order; r_na becomes their count.
extern "C" __global__ void seed_compact_a(mm128 *anchors, const unsigned char *keep, const u64 *a_off, u64 *r_na,
                                          int n_reads)
{
	const int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= n_reads) return;
	const u64 off = a_off[r], n = r_na[r];
	u64 k = 0;
	for (u64 i = 0; i < n; ++i)
		if (keep[off + i]) anchors[off + k++] = anchors[off + i];
	r_na[r] = k;
}

// ---- radix_sort_128x ---------------------------------------------------------------------------------------
//
// ksort.h's in-place MSD radix sort (8 bits a level, insertion sort at 64 elements or fewer), which is not stable:
// its order of equal keys is part of the output, so each range is sorted by upstream's own steps. A task is a range
// (beg, end, shift) of the array, sorted level by level, a launch pair per level: seed_rs_hist counts its digits
// (a block per task), seed_rs_permute distributes it as upstream does (its thread walks the cycles) and queues its
// buckets of more than 64 for the next level and the others of two or more for seed_rs_small's insertion sort
// after the last level (upstream's order of work differs, but the buckets are disjoint). A level whose keys all
// fall in one bucket moves nothing and recurses on the whole range, as upstream does; so a read's sort starts at
// the first level whose digits differ (seed_rs_diff), and at the last level nothing recurses.

#define RS_MIN_SIZE 64
#define RS_THREADS 16

__device__ void rs_insertsort(mm128 *a, u32 n)
{
	for (u32 i = 1; i < n; ++i) {
		if (a[i].x < a[i - 1].x) {
			const mm128 tmp = a[i];
			u32 j = i;
			for (; j > 0 && tmp.x < a[j - 1].x; --j) a[j] = a[j - 1];
			a[j] = tmp;
		}
	}
}

// A block per read: the bits where the read's keys differ from its first (diff zeroed before).
extern "C" __global__ void seed_rs_diff(const mm128 *a, const u64 *off, const u64 *n, u64 *diff)
{
	const int r = blockIdx.x;
	const mm128 *b = a + off[r];
	u64 d = 0;
	for (u64 i = threadIdx.x; i < n[r]; i += blockDim.x) d |= b[i].x ^ b[0].x;
	if (d) atomicOr(diff + r, d);
}

// Tasks, three words each (beg, end, shift), one per read: its range and its first level whose digits differ
// (none when its keys are all equal).
extern "C" __global__ void seed_tasks_init(const u64 *off, const u64 *n, const u64 *diff, int n_reads, u64 *tasks)
{
	const int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= n_reads) return;
	tasks[3 * r] = off[r];
	tasks[3 * r + 1] = diff[r] ? off[r] + n[r] : off[r];
	tasks[3 * r + 2] = diff[r] ? (u64)((63 - __clzll((long long)diff[r])) / 8 * 8) : 0;
}

// A block per task of more than 64: its digits' counts (hist zeroed before, 256 a task).
extern "C" __global__ void seed_rs_hist(const mm128 *a, const u64 *tasks, u32 *hist)
{
	const u32 t = blockIdx.x;
	const u64 beg = tasks[3 * t], n = tasks[3 * t + 1] - beg;
	const int s = (int)tasks[3 * t + 2];
	if (n <= RS_MIN_SIZE) return;
	for (u64 i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(hist + 256 * t + (a[beg + i].x >> s & 255), 1u);
}

// A thread per task: upstream's distribution at the task's level (or the insertion sort of a read of 64 or fewer).
// counts[0]: next's tasks, counts[1]: small's.
extern "C" __global__ void seed_rs_permute(mm128 *a, const u64 *tasks, u32 n_tasks, const u32 *hist, u64 *next,
                                           u64 *small, u32 *counts)
{
	__shared__ u32 s_bb[RS_THREADS * 256], s_be[RS_THREADS * 256];
	const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n_tasks) return;
	u32 *bb = s_bb + threadIdx.x * 256, *be = s_be + threadIdx.x * 256;
	const u64 beg = tasks[3 * t];
	const u32 n = (u32)(tasks[3 * t + 1] - beg);
	const int s = (int)tasks[3 * t + 2];
	mm128 *b = a + beg;
	if (n <= RS_MIN_SIZE) {
		if (n > 1) rs_insertsort(b, n);
		return;
	}
	const u32 *h = hist + 256 * t;
	bb[0] = 0, be[0] = h[0];
	for (int k = 1; k < 256; ++k) {
		be[k] = be[k - 1] + h[k];
		bb[k] = be[k - 1];
	}
	if (h[b[0].x >> s & 255] != n) {
		for (int k = 0; k < 256;) {
			if (bb[k] != be[k]) {
				u32 l = b[bb[k]].x >> s & 255;
				if (l != (u32)k) {
					mm128 tmp = b[bb[k]];
					do {
						const mm128 swap = tmp;
						tmp = b[bb[l]];
						b[bb[l]++] = swap;
						l = tmp.x >> s & 255;
					} while (l != (u32)k);
					b[bb[k]++] = tmp;
				} else ++bb[k];
			} else ++k;
		}
	}
	if (s == 0) return;
	for (int k = 0; k < 256; ++k) {
		const u32 st = k ? be[k - 1] : 0, len = be[k] - st;
		if (len > RS_MIN_SIZE) {
			const u32 q = atomicAdd(counts, 1u);
			next[3 * q] = beg + st;
			next[3 * q + 1] = beg + be[k];
			next[3 * q + 2] = (u64)(s - 8);
		} else if (len > 1) {
			const u32 q = atomicAdd(counts + 1, 1u);
			small[2 * q] = beg + st;
			small[2 * q + 1] = beg + be[k];
		}
	}
}

// A thread per range (beg, end) of 2 to 64: the insertion sort.
extern "C" __global__ void seed_rs_small(mm128 *a, const u64 *small, u32 n_small)
{
	const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n_small) return;
	rs_insertsort(a + small[2 * t], (u32)(small[2 * t + 1] - small[2 * t]));
}
