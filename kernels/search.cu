// LASTZ 1.04.52's HSP search (seed_search.c's private_hit_search, find_table_matches,
// process_for_simple_hit, xdrop_extend_seed_hit) as the batched decomposition of src/search/engine.rs,
// exact with the Rust twin (src/search/twin/, verified against upstream):
//  - search_count: per query position, the seed hits it makes (every word variant's list length);
//  - scan_*: exclusive prefix sums (positions -> hit ordinals, histograms, flags -> compacted slots);
//  - search_fill: the hits in upstream's processing order (the ordinal is the index);
//  - sort_hist / sort_scatter: a stable LSD radix sort of the ordinals by hashed diagonal, two 8-bit digits;
//  - bucket_count: hits per hashed diagonal, whose scan gives each diagonal's run in the sorted order;
//  - search_extend: one thread per hashed diagonal, its hits in ordinal order against its own diagEnd
//    (the only state upstream carries from hit to hit), writing each hit's extension before the entropy step;
//  - search_compact: the extensions that reach the threshold, in ordinal order, with their hits' query ends
//    (the host applies the entropy adjustment, which needs the CPU's log to round as the twin's).
// The twin's arithmetic is int32 (the host keeps sequences under 2^31 bases).

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;

#define FULL 0xffffffffu
#define INACTIVE 0xffffffffu
#define HASH_BITS 16
#define HASH_SIZE (1u << HASH_BITS)
#define NO_EXTENSION (-2147483647 - 1)

// per-strand parameters, as src/search/gpu.rs writes them (its SearchParams)
struct SearchParams {
	int seed_len, base_bits, resolving_mask, n_parts, n_variants, x_drop, threshold, min_matches, max_transversions, cares_only, target_len, query_len;
};

// seed words: n_parts (shift, mask) pairs of apply_seed, then n_variants (mask, transitions) pairs: the mask
// XORed into a packed word (0 first, then the transition flips in the twin's order) and the transitions a
// resolving seed's resolved bases may still take

// A base's 2 bits as upper_nuc_to_bits gives them; other bytes (LASTZ's asBits: ww & 3 of -1) 3.
__device__ __forceinline__ u32 base_bits_of(u8 c) {
	return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3;
}

// find_table_matches_resolve's check (Seed::resolves): the resolved bases' high bits in the target's 16
// bases before pos1 (before its start: 0) against the query window's differ at most allowed times.
__device__ __forceinline__ bool resolves(const SearchParams& p, const u8* target, u32 pos1, u32 word, u32 allowed) {
	if (p.resolving_mask == 0) return true;
	u32 bits1 = 0;
	for (int k = 16; k > 0; k--) bits1 = (bits1 << 2) | ((int)pos1 - k < 0 ? 0 : base_bits_of(target[pos1 - k]));
	u32 x = (bits1 ^ word) & (u32)p.resolving_mask;
	x += x >> 17;
	return (u32)__popc(x & 0xffff) <= allowed;
}

// The packed word of the seed-long window ending at pos2 (upper_nuc_to_bits on each byte, its base_bits low
// bits: 2, or 1 for a half-weight seed) and its last 16 bases' 2 bits (for resolving); false when a byte is
// not A, C, G or T (no hit ends there).
__device__ __forceinline__ bool window_word(const SearchParams& p, const u32* seed, const u8* query, u32 pos2, u32* packed, u32* word) {
	u64 w = 0;
	for (int k = 0; k < p.seed_len; k++) {
		u8 c = query[pos2 - p.seed_len + k];
		u32 b;
		if (c == 'A') b = 0;
		else if (c == 'C') b = 1;
		else if (c == 'G') b = 2;
		else if (c == 'T') b = 3;
		else return false;
		w = (w << p.base_bits) | (b & ((1u << p.base_bits) - 1));
	}
	u32 out = 0;
	for (int k = 0; k < p.n_parts; k++) out |= (u32)(w >> seed[2 * k]) & seed[2 * k + 1];
	*packed = out;
	*word = (u32)w;
	return true;
}

extern "C" __global__ void search_count(const int* par, const u32* seed, const u32* offsets, const u32* positions, const u8* target,
                                        const u8* query, u32 pos_base, u32 n, u64* counts) {
	u32 t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n) return;
	const SearchParams p = *(const SearchParams*)par;
	u32 packed, word;
	u64 c = 0;
	if (window_word(p, seed, query, pos_base + t, &packed, &word)) {
		const u32* variants = seed + 2 * p.n_parts;
		for (int v = 0; v < p.n_variants; v++) {
			u32 w = packed ^ variants[2 * v];
			if (p.resolving_mask == 0) {
				c += offsets[w + 1] - offsets[w];
			} else {
				for (u32 k = offsets[w]; k < offsets[w + 1]; k++) c += resolves(p, target, positions[k], word, variants[2 * v + 1]);
			}
		}
	}
	counts[t] = c;
}

// hits of the positions pos_base .. pos_base + n, from ordinal base on: offs[t] - base is position t's first
extern "C" __global__ void search_fill(const int* par, const u32* seed, const u32* offsets, const u32* positions, const u8* target,
                                       const u8* query, u32 pos_base, u32 n, const u64* offs, u64 base, u32* hit1, u32* hit2) {
	u32 t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n) return;
	const SearchParams p = *(const SearchParams*)par;
	u32 pos2 = pos_base + t, packed, word;
	if (!window_word(p, seed, query, pos2, &packed, &word)) return;
	u64 o = offs[t] - base;
	const u32* variants = seed + 2 * p.n_parts;
	for (int v = 0; v < p.n_variants; v++) {
		u32 w = packed ^ variants[2 * v];
		for (u32 k = offsets[w]; k < offsets[w + 1]; k++) {
			if (!resolves(p, target, positions[k], word, variants[2 * v + 1])) continue;
			hit1[o] = positions[k];
			hit2[o] = pos2;
			o++;
		}
	}
}

// ---- exclusive scan: out[i] = in[0] + ... + in[i-1] for i <= n_in (out[n_in] is the total) ----

#define SCAN_THREADS 256
#define SCAN_ITEMS 4
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)

// one tile per block; sums[block] = the tile's total
template <typename T> __device__ void scan_tile(const T* in, u64 n_in, T* out, T* sums) {
	__shared__ T warp_total[SCAN_THREADS / 32];
	u64 base = (u64)blockIdx.x * SCAN_TILE + threadIdx.x * SCAN_ITEMS;
	T v[SCAN_ITEMS], sum = 0;
	for (int k = 0; k < SCAN_ITEMS; k++) {
		v[k] = base + k < n_in ? in[base + k] : 0;
		sum += v[k];
	}
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	T x = sum;
	for (int d = 1; d < 32; d <<= 1) {
		T y = __shfl_up_sync(FULL, x, d);
		if (lane >= d) x += y;
	}
	if (lane == 31) warp_total[warp] = x;
	__syncthreads();
	if (warp == 0) {
		T y = lane < SCAN_THREADS / 32 ? warp_total[lane] : 0;
		for (int d = 1; d < 32; d <<= 1) {
			T z = __shfl_up_sync(FULL, y, d);
			if (lane >= d) y += z;
		}
		if (lane < SCAN_THREADS / 32) warp_total[lane] = y;
	}
	__syncthreads();
	T prefix = x - sum + (warp > 0 ? warp_total[warp - 1] : 0);
	for (int k = 0; k < SCAN_ITEMS; k++) {
		if (base + k <= n_in) out[base + k] = prefix;
		prefix += v[k];
	}
	if (threadIdx.x == SCAN_THREADS - 1) sums[blockIdx.x] = prefix;
}

template <typename T> __device__ void scan_add(T* out, u64 n_in, const T* sums_ex) {
	u64 base = (u64)blockIdx.x * SCAN_TILE + threadIdx.x * SCAN_ITEMS;
	T add = sums_ex[blockIdx.x];
	for (int k = 0; k < SCAN_ITEMS; k++)
		if (base + k <= n_in) out[base + k] += add;
}

extern "C" __global__ void scan_tiles_u32(const u32* in, u64 n_in, u32* out, u32* sums) { scan_tile(in, n_in, out, sums); }
extern "C" __global__ void scan_tiles_u64(const u64* in, u64 n_in, u64* out, u64* sums) { scan_tile(in, n_in, out, sums); }
extern "C" __global__ void scan_add_u32(u32* out, u64 n_in, const u32* sums_ex) { scan_add(out, n_in, sums_ex); }
extern "C" __global__ void scan_add_u64(u64* out, u64 n_in, const u64* sums_ex) { scan_add(out, n_in, sums_ex); }

// ---- stable radix sort of the ordinals 0..n by hashed diagonal, one 8-bit digit per pass ----
// Each warp owns a tile of SORT_TILE consecutive elements; hist is digit-major ([digit][tile]), so its
// exclusive scan gives each (digit, tile) its first slot, in element order within a digit.

#define SORT_TILE 1024
#define SORT_WARPS 8

__device__ __forceinline__ u32 hashed_diag(const u32* hit1, const u32* hit2, u32 i) { return (hit1[i] - hit2[i]) & (HASH_SIZE - 1); }

extern "C" __global__ void sort_hist(const u32* hit1, const u32* hit2, const u32* idx_in, int identity, u32 n, int shift, u32* hist,
                                     u32 n_tiles) {
	__shared__ u32 count[SORT_WARPS][256];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	u32 tile = blockIdx.x * SORT_WARPS + warp;
	for (int d = lane; d < 256; d += 32) count[warp][d] = 0;
	__syncwarp();
	if (tile < n_tiles) {
		u32 end = min(n, (tile + 1) * SORT_TILE);
		for (u32 k = tile * SORT_TILE + lane; k < end; k += 32) {
			u32 i = identity ? k : idx_in[k];
			atomicAdd(&count[warp][(hashed_diag(hit1, hit2, i) >> shift) & 255], 1u);
		}
	}
	__syncwarp();
	if (tile < n_tiles)
		for (int d = lane; d < 256; d += 32) hist[(u64)d * n_tiles + tile] = count[warp][d];
}

extern "C" __global__ void sort_scatter(const u32* hit1, const u32* hit2, const u32* idx_in, int identity, u32 n, int shift,
                                        const u32* hist_ex, u32 n_tiles, u32* idx_out) {
	__shared__ u32 next[SORT_WARPS][256];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	u32 tile = blockIdx.x * SORT_WARPS + warp;
	if (tile >= n_tiles) return; // (whole warps: the shuffles below see every lane)
	for (int d = lane; d < 256; d += 32) next[warp][d] = hist_ex[(u64)d * n_tiles + tile];
	__syncwarp();
	u32 lt = (1u << lane) - 1;
	for (u32 s = tile * SORT_TILE; s < min(n, (tile + 1) * SORT_TILE); s += 32) {
		u32 k = s + lane, i = 0, d = 256 + lane; // (an element past the end matches no other lane)
		if (k < n) {
			i = identity ? k : idx_in[k];
			d = (hashed_diag(hit1, hit2, i) >> shift) & 255;
		}
		u32 peers = __match_any_sync(FULL, d);
		u32 slot = k < n ? next[warp][d] + __popc(peers & lt) : 0;
		__syncwarp();
		// the lowest lane of each digit moves its next slot past the lanes that share it
		if (k < n && (peers & lt) == 0) next[warp][d] += __popc(peers);
		__syncwarp();
		if (k < n) idx_out[slot] = i;
	}
}

extern "C" __global__ void bucket_count(const u32* hit1, const u32* hit2, u32 n, u32* counts) {
	u32 i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) atomicAdd(&counts[hashed_diag(hit1, hit2, i)], 1u);
}

// ---- process_for_simple_hit, one thread per hashed diagonal ----

__device__ __forceinline__ int nuc_to_bits(u8 c) {
	switch (c) {
	case 'A': case 'a': return 0;
	case 'C': case 'c': return 1;
	case 'G': case 'g': return 2;
	case 'T': case 't': return 3;
	default: return -1;
	}
}

// filter_seed_hit_by_subs: whether the hit [pos - length, pos) is filtered out
__device__ bool filtered(const SearchParams& p, const u8* pattern, const u8* a, const u8* b) {
	int matches = 0, transversions = 0;
	for (int k = 0; k < p.seed_len; k++) {
		if (p.cares_only && pattern[k] == '0') continue;
		int x = nuc_to_bits(a[k]), y = nuc_to_bits(b[k]);
		if (x >= 0 && y >= 0 && x == y) matches++;
		else if (x >= 0 && y >= 0 && ((x ^ y) & 1) == 0) {
		} // a transition
		else transversions++;
	}
	return matches < p.min_matches || (p.max_transversions >= 0 && transversions > p.max_transversions);
}

extern "C" __global__ void search_extend(const int* par, const u8* target, const u8* query, const int* matrix, const u8* pattern,
                                         const u32* hit1, const u32* hit2, const u32* sorted, const u32* starts, u32* diag_end,
                                         int* out_sim, u32* out_start1, u32* out_len) {
	u32 h = blockIdx.x * blockDim.x + threadIdx.x;
	if (h >= HASH_SIZE) return;
	const SearchParams p = *(const SearchParams*)par;
	const int x_drop = p.x_drop;
	u32 end = diag_end[h];
	for (u32 k = starts[h]; k < starts[h + 1]; k++) {
		u32 i = sorted[k], pos1 = hit1[i], pos2 = hit2[i];
		out_sim[i] = NO_EXTENSION;
		if (end == INACTIVE) end = 0;
		if (end > pos2 - p.seed_len) continue;
		if (p.min_matches >= 0 && filtered(p, pattern, target + pos1 - p.seed_len, query + pos2 - p.seed_len)) continue;
		int diag = (int)pos1 - (int)pos2;

		// left, blocked where this hashed diagonal's last extension ended
		int block2 = (int)end;
		u32 stop = block2 + diag > 0 ? (u32)(block2 + diag) : 0;
		u32 s1 = pos1, s2 = pos2, left_start = pos1;
		int run = 0, left = 0;
		while (s1 > stop && run >= left - x_drop) {
			s1--;
			s2--;
			run += matrix[256 * target[s1] + query[s2]];
			if (run > left) {
				left_start = s1;
				left = run;
			}
		}

		// right, to the end of either sequence
		block2 = p.query_len;
		stop = p.target_len <= block2 + diag ? (u32)p.target_len : (u32)(block2 + diag);
		s1 = pos1;
		s2 = pos2;
		u32 right_stop = s1;
		int right = 0;
		run = 0;
		while (s1 < stop && run >= right - x_drop) {
			run += matrix[256 * target[s1] + query[s2]];
			s1++;
			s2++;
			if (run > right) {
				right_stop = s1;
				right = run;
			}
		}
		u32 extent = (u32)((int)s1 - diag);
		if (extent > end) end = extent;
		int sim = left + right;
		if (sim >= p.threshold) {
			out_sim[i] = sim;
			out_start1[i] = left_start;
			out_len[i] = right_stop - left_start;
		}
	}
	diag_end[h] = end;
}

extern "C" __global__ void extension_flags(const int* out_sim, u32 n, u32* flags) {
	u32 i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) flags[i] = out_sim[i] != NO_EXTENSION;
}

// the extensions kept, in ordinal order: (start1, start2, length, similarity, the hit's end in the query) at
// slot slots[i]
extern "C" __global__ void search_compact(const u32* slots, const u32* hit1, const u32* hit2, const int* out_sim, const u32* out_start1,
                                          const u32* out_len, u32 n, int* kept) {
	u32 i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n || out_sim[i] == NO_EXTENSION) return;
	u32 k = slots[i];
	int diag = (int)hit1[i] - (int)hit2[i];
	kept[5 * k] = (int)out_start1[i];
	kept[5 * k + 1] = (int)out_start1[i] - diag;
	kept[5 * k + 2] = (int)out_len[i];
	kept[5 * k + 3] = out_sim[i];
	kept[5 * k + 4] = (int)hit2[i];
}
