// minimap2 2.31's seeding for batches of reads, element by element equal to warpalign::seed::twin (src/seed/gpu.rs
// runs the steps in this order):
//  seed_sketch         mm_sketch per segment, in chunks of bases, one thread each (twice: count, then write)
//  seed_qocc_count     mm_seed_mz_flt, part 1: each read's groups of equal x counted in a hash table
//  seed_qocc_mark      part 2: the minimizers of groups too frequent get x = 0
//  seed_count_mv, seed_scan_reads, seed_write_mv   part 3: those dropped
//  seed_lookup         mm_seed_collect_all's lookups (FlatIndex::get) and tandem flags
//  seed_count_found, seed_scan_reads, seed_write_found   the minimizers the index has, in order
//  seed_select_flag    mm_seed_select (a thread per streak) or the plain max_occ limit
//  seed_select_chunks, seed_select_reads, seed_select_write   the rest of mm_collect_matches: rep_len, mini_pos,
//                      the kept seeds and their anchors' offsets
//  seed_expand         collect_seed_hits' anchors (skip_seed, strands, flags), a thread per seed
//  seed_count_kept, seed_scan_reads, seed_write_kept   the anchors skip_seed dropped (-X, all-vs-all, --for/rev-only)
//  seed_rs_diff, seed_tasks_init, seed_rs_hist, seed_rs_walk, seed_rs_copy, seed_rs_scatter, seed_rs_small
//                      radix_sort_128x per read, level by level
// Per-read arrays are at offsets the host gives (a read's share of a buffer is contiguous, its length a count).
// Threads exchange values only through memory written by an earlier launch, or atomics whose order does not matter
// (slot counters, counts, a bitwise or, hash slots claimed): no barriers, no shuffles, so tests/seed/emu.cpp runs
// the threads one after another on the host.

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

// ---- a block per chunk of a read's items, or a thread per chunk -------------------------------------------
//
// Steps after the sketch see each read's items (minimizers, seeds, anchors) in chunks of C: chunk c is items
// ck_beg[c].. of read ck_read[c], and read r's chunks are rd_ck[r]..rd_ck[r + 1]. A kernel runs either a block per
// chunk and a thread per item, or a thread per chunk walking its items in order; a read's count may shrink
// between kernels, so each checks it.

// This thread's read and item, in a launch of a block per chunk (blockDim.x = C).
__device__ __forceinline__ void chunk_item(const u32 *ck_read, const u32 *ck_beg, u32 &r, u64 &i)
{
	r = ck_read[blockIdx.x];
	i = (u64)ck_beg[blockIdx.x] + threadIdx.x;
}

// This thread's chunk in a launch of a thread per chunk (false: none), its read and items [b, e).
__device__ __forceinline__ bool chunk_range(const u32 *ck_read, const u32 *ck_beg, int n_chunks, int C,
                                            const u64 *r_n, int &c, u32 &r, u64 &b, u64 &e)
{
	c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= n_chunks) return false;
	r = ck_read[c];
	b = ck_beg[c];
	e = b + (u64)C < r_n[r] ? b + (u64)C : r_n[r];
	return true;
}

// Compaction in order, out of place, in three launches: each chunk counts what it keeps, each read sums its
// chunks (seed_scan_reads), each chunk writes its kept items at its offset.
struct KeepMv {
	__device__ static bool keep(const mm128 *a, const unsigned char *, u64 j) { return a[j].x != 0; }
};

template <class T, class P>
__device__ void compact_count(const T *a, const unsigned char *kp, const u64 *r_off, const u64 *r_n,
                              const u32 *ck_read, const u32 *ck_beg, int n_chunks, int C, u32 *ck_n)
{
	int c;
	u32 r;
	u64 b, e;
	if (!chunk_range(ck_read, ck_beg, n_chunks, C, r_n, c, r, b, e)) return;
	u32 k = 0;
	for (u64 j = b; j < e; ++j) k += P::keep(a, kp, r_off[r] + j);
	ck_n[c] = k;
}

template <class T, class P>
__device__ void compact_write(const T *a, const unsigned char *kp, const u64 *r_off, const u64 *r_n,
                              const u32 *ck_read, const u32 *ck_beg, int n_chunks, int C, const u32 *ck_at, T *out)
{
	int c;
	u32 r;
	u64 b, e;
	if (!chunk_range(ck_read, ck_beg, n_chunks, C, r_n, c, r, b, e)) return;
	const u64 off = r_off[r];
	u64 k = off + ck_at[c];
	for (u64 j = b; j < e; ++j)
		if (P::keep(a, kp, off + j)) out[k++] = a[off + j];
}

// A thread per read: its chunks' offsets (ck_at) from their counts, and its count after the compaction.
extern "C" __global__ void seed_scan_reads(const u32 *rd_ck, const u32 *ck_n, int n_reads, u32 *ck_at, u64 *r_out)
{
	const int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= n_reads) return;
	u32 s = 0;
	for (u32 c = rd_ck[r]; c < rd_ck[r + 1]; ++c) {
		ck_at[c] = s;
		s += ck_n[c];
	}
	r_out[r] = s;
}

// ---- mm_seed_mz_flt --------------------------------------------------------------------------------------
//
// Only each group's size matters (how many of a read's minimizers share its x), so the groups are counted in a
// hash table per read (tab_mask[r] + 1 slots, a power of two at least twice its minimizers, at tab_off[r]; mask 0
// where the filter does not apply): a slot holds x + 1 (0: empty) and its count; x = ~0 is counted in max_cnt.

__device__ __forceinline__ u64 qocc_slot(u64 x, u64 mask) { return hash64(x, U64_MAX) & mask; }

extern "C" __global__ void seed_qocc_count(const mm128 *mv, const u64 *r_off, const u64 *r_n, const u32 *ck_read,
                                           const u32 *ck_beg, const u64 *tab_off, const u64 *tab_mask, u64 *tab_key,
                                           u32 *tab_cnt, u32 *max_cnt)
{
	u32 r;
	u64 i;
	chunk_item(ck_read, ck_beg, r, i);
	const u64 mask = tab_mask[r];
	if (!mask || i >= r_n[r]) return;
	const u64 x = mv[r_off[r] + i].x;
	if (x == U64_MAX) {
		atomicAdd(max_cnt + r, 1u);
		return;
	}
	u64 *key = tab_key + tab_off[r];
	for (u64 h = qocc_slot(x, mask);; h = (h + 1) & mask) {
		const u64 old = atomicCAS(key + h, 0ULL, x + 1);
		if (old == 0 || old == x + 1) {
			atomicAdd(tab_cnt + tab_off[r] + h, 1u);
			return;
		}
	}
}

// The minimizers of groups too frequent get x = 0: more than q_occ_max and more than q_occ_frac of the read.
extern "C" __global__ void seed_qocc_mark(mm128 *mv, const u64 *r_off, const u64 *r_n, const u32 *ck_read,
                                          const u32 *ck_beg, const u64 *tab_off, const u64 *tab_mask,
                                          const u64 *tab_key, const u32 *tab_cnt, const u32 *max_cnt, int q_occ_max,
                                          float q_occ_frac)
{
	u32 r;
	u64 i;
	chunk_item(ck_read, ck_beg, r, i);
	const u64 mask = tab_mask[r];
	if (!mask || i >= r_n[r]) return;
	mm128 *m = mv + r_off[r] + i;
	u32 n = max_cnt[r];
	if (m->x != U64_MAX) {
		const u64 *key = tab_key + tab_off[r];
		u64 h = qocc_slot(m->x, mask);
		while (key[h] != m->x + 1) h = (h + 1) & mask;
		n = tab_cnt[tab_off[r] + h];
	}
	const int cnt = (int)n;
	// upstream: int cnt against the int limit, then cnt > mv->n * q_occ_frac in float
	if (cnt > q_occ_max && __int2float_rn(cnt) > __fmul_rn(__ull2float_rn(r_n[r]), q_occ_frac)) m->x = 0;
}

extern "C" __global__ void seed_count_mv(const mm128 *mv, const u64 *r_off, const u64 *r_n, const u32 *ck_read,
                                         const u32 *ck_beg, int n_chunks, int C, u32 *ck_n)
{
	compact_count<mm128, KeepMv>(mv, 0, r_off, r_n, ck_read, ck_beg, n_chunks, C, ck_n);
}

extern "C" __global__ void seed_write_mv(const mm128 *mv, const u64 *r_off, const u64 *r_n, const u32 *ck_read,
                                         const u32 *ck_beg, int n_chunks, int C, const u32 *ck_at, mm128 *out)
{
	compact_write<mm128, KeepMv>(mv, 0, r_off, r_n, ck_read, ck_beg, n_chunks, C, ck_at, out);
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

struct KeepFound {
	__device__ static bool keep(const Seed *a, const unsigned char *, u64 j) { return a[j].n > 0; }
};

#define SLOT_EMPTY U64_MAX
#define SLOT_DELETED (U64_MAX - 1)

// IndexTables::get (src/seed/index.rs): the number of positions of hash minier and the index of the first in words.
// Bucket minier & (2^b - 1) is upstream's khash table, probed as kh_get probes it.
__device__ __forceinline__ u32 index_get(u64 minier, int b, const u64 *slot_start, const u64 *keys, const u64 *p_start,
                                         const u64 *words, u64 *cr)
{
	const u64 bucket = minier & ((1ULL << b) - 1);
	const u64 key = (minier >> b) << 1;
	const u64 beg = slot_start[bucket], n = slot_start[bucket + 1] - beg;
	if (n == 0) return 0;
	const u32 mask = (u32)n - 1;
	u32 i = (u32)(key >> 1) & mask, step = 0;
	const u32 last = i;
	u64 k;
	for (;;) {
		k = keys[beg + i];
		if (k == SLOT_EMPTY) return 0;
		if (k != SLOT_DELETED && k >> 1 == key >> 1) break;
		i = (i + ++step) & mask;
		if (i == last) return 0;
	}
	if (k & 1) { // seen once: the value is its position
		*cr = beg + i;
		return 1;
	}
	const u64 v = words[beg + i];
	*cr = p_start[bucket] + (v >> 32);
	return (u32)v;
}

// A thread per minimizer: seeds[i] for minimizer i (n = 0 when the index has none).
extern "C" __global__ void seed_lookup(const mm128 *mv, const u64 *r_off, const u64 *r_n, const u32 *ck_read,
                                       const u32 *ck_beg, int b, const u64 *slot_start, const u64 *keys,
                                       const u64 *p_start, const u64 *words, Seed *seeds)
{
	u32 r;
	u64 i;
	chunk_item(ck_read, ck_beg, r, i);
	const u64 off = r_off[r], n = r_n[r];
	if (i >= n) return;
	const mm128 *m = mv + off;
	Seed q;
	q.cr = 0;
	q.n = index_get(m[i].x >> 8, b, slot_start, keys, p_start, words, &q.cr);
	const u64 h = m[i].x >> 8;
	const bool tandem = (i > 0 && h == m[i - 1].x >> 8) || (i + 1 < n && h == m[i + 1].x >> 8);
	q.q_pos = (u32)m[i].y;
	q.q_span = (u32)(m[i].x & 0xff);
	q.info = ((u32)(m[i].y >> 32) & 0x7fffffffu) | (tandem ? TANDEM : 0);
	seeds[off + i] = q;
}

extern "C" __global__ void seed_count_found(const Seed *seeds, const u64 *r_off, const u64 *r_n, const u32 *ck_read,
                                            const u32 *ck_beg, int n_chunks, int C, u32 *ck_n)
{
	compact_count<Seed, KeepFound>(seeds, 0, r_off, r_n, ck_read, ck_beg, n_chunks, C, ck_n);
}

extern "C" __global__ void seed_write_found(const Seed *seeds, const u64 *r_off, const u64 *r_n, const u32 *ck_read,
                                            const u32 *ck_beg, int n_chunks, int C, const u32 *ck_at, Seed *out)
{
	compact_write<Seed, KeepFound>(seeds, 0, r_off, r_n, ck_read, ck_beg, n_chunks, C, ck_at, out);
}

#define MAX_MAX_HIGH_OCC 128

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

// mm_seed_select on the streak [st, en) of a's m seeds (those above max_occ, between seeds at or below it): the
// (streak length)/dist rarest (at most 128; ties: the earlier) are kept, none above max_max_occ. heap: as many
// slots as the streak has seeds (its own, so streaks run side by side).
__device__ void select_streak(Seed *a, u32 st, u32 en, u32 m, int len, int max_max_occ, int dist, u64 *heap)
{
	const int ps = st == 0 ? 0 : (int)(a[st - 1].q_pos >> 1);
	const int pe = en == m ? len : (int)(a[en].q_pos >> 1);
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

// A thread per found seed (r_m[r] of read r, in query order): the occurrence limits' flags. With dist, the thread
// of each streak's first seed runs mm_seed_select on the streak (a read of one seed is left alone, as upstream
// leaves it); heaps: a slot per seed.
extern "C" __global__ void seed_select_flag(Seed *seeds, const u64 *r_off, const u64 *r_m, const int *r_qlen,
                                            const u32 *ck_read, const u32 *ck_beg, int max_occ, int max_max_occ,
                                            int dist, u64 *heaps)
{
	u32 r;
	u64 i;
	chunk_item(ck_read, ck_beg, r, i);
	const u64 m = r_m[r];
	if (i >= m) return;
	Seed *a = seeds + r_off[r];
	if (!(dist > 0 && max_max_occ > max_occ)) {
		if (a[i].n > (u32)max_occ) a[i].q_span |= FLT;
		return;
	}
	if (m <= 1 || a[i].n <= (u32)max_occ || (i > 0 && a[i - 1].n > (u32)max_occ)) return;
	u64 en = i + 1;
	while (en < m && a[en].n > (u32)max_occ) ++en;
	select_streak(a, (u32)i, (u32)en, (u32)m, r_qlen[r], max_max_occ, dist, heaps + r_off[r] + i);
}

// A chunk's share of mm_collect_matches' loop: its kept seeds and their anchors, and its filtered seeds' part of
// rep_len (the first one's interval, the last one's end, what the others add). seed_select_reads turns kept and
// na into the chunk's offsets.
struct SelChunk {
	u64 na;
	u32 kept, has;
	int first_st, first_en, last_en;
	u32 inner;
};

extern "C" __global__ void seed_select_chunks(const Seed *seeds, const u64 *r_off, const u64 *r_m, const u32 *ck_read,
                                              const u32 *ck_beg, int n_chunks, int C, SelChunk *out)
{
	int c;
	u32 r;
	u64 b, e;
	if (!chunk_range(ck_read, ck_beg, n_chunks, C, r_m, c, r, b, e)) return;
	const Seed *a = seeds + r_off[r];
	SelChunk s = {0, 0, 0, 0, 0, 0, 0};
	for (u64 i = b; i < e; ++i) {
		const Seed q = a[i];
		if (q.q_span & FLT) {
			const int en = (int)((q.q_pos >> 1) + 1), st = (int)((u32)en - (q.q_span & ~FLT));
			if (!s.has) s.has = 1, s.first_st = st, s.first_en = en;
			else s.inner += st > s.last_en ? (u32)(en - st) : (u32)(en - s.last_en);
			s.last_en = en;
		} else {
			++s.kept;
			s.na += q.n;
		}
	}
	out[c] = s;
}

// A thread per read: mm_collect_matches' rep_len (a filtered seed starts a new interval past the last one's end,
// else extends it to its own end), the kept seeds' and anchors' counts, and each chunk's offsets.
extern "C" __global__ void seed_select_reads(const u32 *rd_ck, int n_reads, SelChunk *ck, u64 *r_nseed, u64 *r_na,
                                             int *r_rep)
{
	const int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= n_reads) return;
	int last_en = 0;
	u32 rep = 0, kept = 0;
	u64 na = 0;
	for (u32 c = rd_ck[r]; c < rd_ck[r + 1]; ++c) {
		SelChunk s = ck[c];
		if (s.has) {
			rep += s.first_st > last_en ? (u32)(s.first_en - s.first_st) : (u32)(s.first_en - last_en);
			rep += s.inner;
			last_en = s.last_en;
		}
		const u32 k = s.kept;
		const u64 a = s.na;
		s.kept = kept, s.na = na;
		ck[c] = s;
		kept += k, na += a;
	}
	r_nseed[r] = kept;
	r_na[r] = na;
	r_rep[r] = (int)rep;
}

// A thread per chunk: its kept seeds, compacted into out, with their anchors' offsets in the read (a_rel) and
// mini_pos.
extern "C" __global__ void seed_select_write(const Seed *seeds, const u64 *r_off, const u64 *r_m, const u32 *ck_read,
                                             const u32 *ck_beg, int n_chunks, int C, const SelChunk *ck, Seed *out,
                                             u64 *a_rel, u64 *mini_pos)
{
	int c;
	u32 r;
	u64 b, e;
	if (!chunk_range(ck_read, ck_beg, n_chunks, C, r_m, c, r, b, e)) return;
	const u64 off = r_off[r];
	u64 k = off + ck[c].kept, na = ck[c].na;
	for (u64 i = b; i < e; ++i) {
		const Seed q = seeds[off + i];
		if (q.q_span & FLT) continue;
		mini_pos[k] = (u64)q.q_span << 32 | (q.q_pos >> 1);
		a_rel[k] = na;
		na += q.n;
		out[k++] = q;
	}
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

// A thread per kept seed: its anchors at a_off[r] + a_rel[seed] + t, with keep[...] = 0 where skip_seed drops one
// (keep is null unless the flags can drop). The read's name, when it has one, is
// qnames[qname_off[r]..qname_off[r + 1]] (has_qname[r]); the index's names likewise.
extern "C" __global__ void seed_expand(const Seed *seeds, const u64 *r_off, const u64 *r_nseed, const u32 *ck_read,
                                       const u32 *ck_beg, const u64 *a_rel, const u64 *a_off, const int *r_qlen,
                                       const unsigned char *has_qname, const u64 *qname_off,
                                       const unsigned char *qnames, const u64 *pos, const u32 *seq_len,
                                       const u64 *name_off, const unsigned char *names, long long flag,
                                       mm128 *anchors, unsigned char *keep)
{
	u32 r;
	u64 j;
	chunk_item(ck_read, ck_beg, r, j);
	const u64 off = r_off[r];
	if (j >= r_nseed[r]) return;
	const int qlen = r_qlen[r];
	const bool names_used = has_qname[r] && (flag & (F_NO_DIAG | F_NO_DUAL));
	const unsigned char *qn = qnames + qname_off[r];
	const u64 qn_len = qname_off[r + 1] - qname_off[r];
	const Seed q = seeds[off + j];
	const u32 q_span = q.q_span & ~FLT;
	const u64 base = a_off[r] + a_rel[off + j];
	for (u32 t = 0; t < q.n; ++t) {
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

struct KeepByte {
	__device__ static bool keep(const mm128 *, const unsigned char *kp, u64 j) { return kp[j]; }
};

// The anchors skip_seed dropped, compacted away (chunks of the anchors; r_off: each read's first anchor).
extern "C" __global__ void seed_count_kept(const unsigned char *keep, const u64 *r_off, const u64 *r_n,
                                           const u32 *ck_read, const u32 *ck_beg, int n_chunks, int C, u32 *ck_n)
{
	compact_count<mm128, KeepByte>(0, keep, r_off, r_n, ck_read, ck_beg, n_chunks, C, ck_n);
}

extern "C" __global__ void seed_write_kept(const mm128 *anchors, const unsigned char *keep, const u64 *r_off,
                                           const u64 *r_n, const u32 *ck_read, const u32 *ck_beg, int n_chunks,
                                           int C, const u32 *ck_at, mm128 *out)
{
	compact_write<mm128, KeepByte>(anchors, keep, r_off, r_n, ck_read, ck_beg, n_chunks, C, ck_at, out);
}

// ---- radix_sort_128x ---------------------------------------------------------------------------------------
//
// ksort.h's in-place MSD radix sort (8 bits a level, insertion sort at 64 elements or fewer), which is not stable:
// its order of equal keys is part of the output, so each range is sorted by upstream's own steps. A task is a range
// (beg, end, shift) of the array, sorted level by level: seed_rs_hist counts its digits and keeps them (a block per
// task); seed_rs_walk replays upstream's cycles on the digits alone (a thread per task), which says where each
// element goes, and queues the task's buckets of more than 64 for the next level and the others of two or more for
// seed_rs_small's insertion sort after the last level (upstream's order of work differs, but the buckets are
// disjoint); seed_rs_copy and seed_rs_scatter move the elements there (a block per task). A level whose keys all
// fall in one bucket moves nothing and recurses on the whole range, as upstream does; so a read's sort starts at
// the first level whose digits differ (seed_rs_diff), and at the last level nothing recurses. Each level's kernels
// read its count of tasks from the device (n_tasks, written by the level before): the host launches all eight
// levels' grids for the most tasks a level can have, without waiting for one.
//
// Upstream's cycles as visits: upstream reads each slot once, before anything is written there, and in each bucket's
// region in order; the element it reads goes to the next free slot of its digit's bucket (filled in order too), at
// once or, for a cycle's first, when the cycle closes, with no other element placed in between. After reading a
// slot upstream reads the next unread slot of the region of the digit it read; when that region has none left (only
// the scan's bucket can run out), the first region with slots left. So the walk needs each region's next digit:
// kept eight at a time in a word.

#define RS_MIN_SIZE 64
#define RS_THREADS 8

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
// (none when its keys are all equal, or when it has more than max_n, which the host sorts).
extern "C" __global__ void seed_tasks_init(const u64 *off, const u64 *n, const u64 *diff, int n_reads, u64 max_n,
                                           u64 *tasks)
{
	const int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= n_reads) return;
	tasks[3 * r] = off[r];
	tasks[3 * r + 1] = diff[r] && n[r] <= max_n ? off[r] + n[r] : off[r];
	tasks[3 * r + 2] = diff[r] ? (u64)((63 - __clzll((long long)diff[r])) / 8 * 8) : 0;
}

// A block per task of more than 64: its digits (dig) and their counts (hist zeroed before, 256 a task).
extern "C" __global__ void seed_rs_hist(const mm128 *a, const u64 *tasks, const u32 *n_tasks, u32 *hist,
                                        unsigned char *dig)
{
	const u32 t = blockIdx.x;
	if (t >= *n_tasks) return;
	const u64 beg = tasks[3 * t], n = tasks[3 * t + 1] - beg;
	const int s = (int)tasks[3 * t + 2];
	if (n <= RS_MIN_SIZE) return;
	for (u64 i = threadIdx.x; i < n; i += blockDim.x) {
		const unsigned d = (unsigned)(a[beg + i].x >> s & 255);
		dig[beg + i] = (unsigned char)d;
		atomicAdd(hist + 256 * t + d, 1u);
	}
}

// Whether a task's elements move at this level: more than 64 of them (fewer are insertion-sorted by the walk's
// thread) in more than one bucket.
__device__ __forceinline__ bool rs_moves(const u64 *tasks, u32 t, const u32 *hist, const unsigned char *dig)
{
	const u64 beg = tasks[3 * t], n = tasks[3 * t + 1] - beg;
	return n > RS_MIN_SIZE && hist[256 * t + dig[beg]] != n;
}

// The digits from d[i] on, the first in the low byte (at least the rest of i's word; d is padded by a word).
__device__ __forceinline__ u64 rs_digits(const unsigned char *d, u64 i)
{
	const size_t at = (size_t)(d + i);
	return *(const u64 *)(at & ~(size_t)7) >> 8 * (at & 7);
}

// A thread per task: upstream's distribution at the task's level as each element's slot (dst, relative to the
// task; or the insertion sort of a task of 64 or fewer), and the buckets queued: n_next counts next's tasks (zero
// before), n_small small's.
extern "C" __global__ void seed_rs_walk(mm128 *a, const u64 *tasks, const u32 *n_tasks, const u32 *hist,
                                        const unsigned char *dig, u32 *dst, u64 *next, u64 *small, u32 *n_next,
                                        u32 *n_small)
{
	__shared__ u32 s_vis[RS_THREADS * 256], s_fill[RS_THREADS * 256], s_be[RS_THREADS * 256];
	__shared__ u64 s_word[RS_THREADS * 256];
	const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= *n_tasks) return;
	u32 *vis = s_vis + threadIdx.x * 256, *fill = s_fill + threadIdx.x * 256, *be = s_be + threadIdx.x * 256;
	u64 *word = s_word + threadIdx.x * 256;
	const u64 beg = tasks[3 * t];
	const u32 n = (u32)(tasks[3 * t + 1] - beg);
	const int s = (int)tasks[3 * t + 2];
	if (n <= RS_MIN_SIZE) {
		if (n > 1) rs_insertsort(a + beg, n);
		return;
	}
	const u32 *h = hist + 256 * t;
	const unsigned char *d = dig + beg;
	u32 *to = dst + beg;
	for (u32 k = 0, at = 0; k < 256; ++k) {
		vis[k] = fill[k] = at;
		at += h[k];
		be[k] = at;
		word[k] = rs_digits(d, vis[k]);
	}
	if (h[d[0]] != n) {
		// the region being read (cur) in registers: its next unread slot v, its end e, its next digits w and the
		// next free slot f of its bucket; written back when the walk leaves it
		u32 k = 0;
		while (vis[k] == be[k]) ++k;
		u32 cur = k, v = vis[cur], e = be[cur], f = fill[cur];
		u64 w = word[cur];
		for (u32 step = 0; step < n; ++step) {
			if (v == e) {
				vis[cur] = v, fill[cur] = f;
				while (vis[k] == be[k]) ++k;
				cur = k, v = vis[cur], e = be[cur], f = fill[cur], w = word[cur];
			}
			const u32 l = (u32)(w & 255), q = v++;
			w = (beg + v) & 7 ? w >> 8 : rs_digits(d, v);
			if (l == cur) {
				to[q] = f++;
			} else {
				vis[cur] = v, fill[cur] = f, word[cur] = w;
				cur = l, v = vis[cur], e = be[cur], f = fill[cur], w = word[cur];
				to[q] = f++;
			}
		}
	}
	if (s == 0) return;
	for (int k = 0; k < 256; ++k) {
		const u32 st = k ? be[k - 1] : 0, len = be[k] - st;
		if (len > RS_MIN_SIZE) {
			const u32 q = atomicAdd(n_next, 1u);
			next[3 * q] = beg + st;
			next[3 * q + 1] = beg + be[k];
			next[3 * q + 2] = (u64)(s - 8);
		} else if (len > 1) {
			const u32 q = atomicAdd(n_small, 1u);
			small[2 * q] = beg + st;
			small[2 * q + 1] = beg + be[k];
		}
	}
}

// A block per task whose elements move: the task's elements copied aside...
extern "C" __global__ void seed_rs_copy(const mm128 *a, const u64 *tasks, const u32 *n_tasks, const u32 *hist,
                                        const unsigned char *dig, mm128 *tmp)
{
	const u32 t = blockIdx.x;
	if (t >= *n_tasks || !rs_moves(tasks, t, hist, dig)) return;
	const u64 beg = tasks[3 * t], n = tasks[3 * t + 1] - beg;
	for (u64 i = threadIdx.x; i < n; i += blockDim.x) tmp[beg + i] = a[beg + i];
}

// ...then each put in its slot.
extern "C" __global__ void seed_rs_scatter(mm128 *a, const u64 *tasks, const u32 *n_tasks, const u32 *hist,
                                           const unsigned char *dig, const u32 *dst, const mm128 *tmp)
{
	const u32 t = blockIdx.x;
	if (t >= *n_tasks || !rs_moves(tasks, t, hist, dig)) return;
	const u64 beg = tasks[3 * t], n = tasks[3 * t + 1] - beg;
	for (u64 i = threadIdx.x; i < n; i += blockDim.x) a[beg + dst[beg + i]] = tmp[beg + i];
}

// A thread per range (beg, end) of 2 to 64: the insertion sort.
extern "C" __global__ void seed_rs_small(mm128 *a, const u64 *small, const u32 *n_small)
{
	const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= *n_small) return;
	rs_insertsort(a + small[2 * t], (u32)(small[2 * t + 1] - small[2 * t]));
}
