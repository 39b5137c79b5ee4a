// kernels/seed.cu on the host, for tests/seed/gpu.rs (`emulated_kernels_equal_twin`): no kernel there synchronizes
// its threads or exchanges values between them but through atomics whose order does not matter (counters that hand
// out slots, sums, bitwise ors), so running the threads one after another is one of their legal schedules, and
// the kernels' arithmetic is plain C++. emu_seed does what src/seed/gpu.rs's seed_launch does, step for step
// (without --sdust-thres, whose minimizers the host makes).

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

struct Dim {
	unsigned x, y, z;
};
static Dim threadIdx, blockIdx, blockDim;

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
static unsigned atomicAdd(unsigned *p, unsigned v)
{
	unsigned o = *p;
	*p += v;
	return o;
}
static unsigned long long atomicOr(unsigned long long *p, unsigned long long v)
{
	unsigned long long o = *p;
	*p |= v;
	return o;
}
static unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v)
{
	unsigned long long o = *p;
	if (o == cmp) *p = v;
	return o;
}
static int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static float __int2float_rn(int x) { return (float)x; }
static float __ull2float_rn(unsigned long long x) { return (float)x; }
static float __fmul_rn(float a, float b) { return a * b; }
static double __ddiv_rn(double a, double b) { return a / b; }
static double __dadd_rn(double a, double b) { return a + b; }

#include "../../kernels/common.cuh"
#include "../../kernels/seed.cu"

// seed_sketch's dynamic shared memory: w slots for each of up to 128 threads
mm128 slots[128 * 256];

template <class F> static void launch(size_t grid, unsigned block, F f)
{
	blockDim = {block, 1, 1};
	for (size_t b = 0; b < grid; ++b)
		for (unsigned t = 0; t < block; ++t) {
			blockIdx = {(unsigned)b, 0, 0};
			threadIdx = {t, 0, 0};
			f();
		}
}

static size_t blocks(size_t n, unsigned threads) { return n ? (n + threads - 1) / threads : 1; }

static std::vector<u64> offsets(const std::vector<u64> &n)
{
	std::vector<u64> o(1, 0);
	for (u64 x : n) o.push_back(o.back() + x);
	return o;
}

static void sort_ranges(mm128 *a, const u64 *off, const u64 *n, int n_reads, size_t total, u64 max_n)
{
	const size_t cap = (size_t)n_reads > total / 65 + 1 ? (size_t)n_reads : total / 65 + 1;
	std::vector<u64> tasks(3 * cap), next(3 * cap), small(2 * (total / 2 + 1)), diff(n_reads);
	std::vector<u32> hist(256 * cap), dst(total + 1);
	std::vector<unsigned char> dig(total + 8);
	std::vector<mm128> tmp(total + 1);
	u32 counts[2 + 8] = {0, (u32)n_reads}; // as src/seed/gpu.rs: the insertion sorts' ranges, then each level's tasks
	launch(n_reads, 128, [&] { seed_rs_diff(a, off, n, diff.data()); });
	launch(blocks(n_reads, 128), 128, [&] { seed_tasks_init(off, n, diff.data(), n_reads, max_n, tasks.data()); });
	for (int level = 0; level < 8; ++level) { // every level's grid for cap tasks, the counts read on the "device"
		const u32 *this_n = counts + 1 + level;
		std::fill(hist.begin(), hist.end(), 0);
		launch(cap, 128, [&] { seed_rs_hist(a, tasks.data(), this_n, hist.data(), dig.data()); });
		launch(blocks(cap, 8), 8, [&] {
			seed_rs_walk(a, tasks.data(), this_n, hist.data(), dig.data(), dst.data(), next.data(), small.data(),
			             counts + 2 + level, counts);
		});
		launch(cap, 128, [&] { seed_rs_copy(a, tasks.data(), this_n, hist.data(), dig.data(), tmp.data()); });
		launch(cap, 128, [&] { seed_rs_scatter(a, tasks.data(), this_n, hist.data(), dig.data(), dst.data(), tmp.data()); });
		tasks.swap(next);
	}
	launch(blocks(total / 2 + 1, 128), 128, [&] { seed_rs_small(a, small.data(), counts); });
}

// src/seed/gpu.rs's ItemChunks
struct Chunks {
	std::vector<u32> read, beg, first;
	int n() const { return (int)read.size(); }
};

static Chunks item_chunks(const std::vector<u64> &counts, int items)
{
	Chunks c;
	for (size_t r = 0; r < counts.size(); ++r) {
		c.first.push_back((u32)c.read.size());
		for (u64 b = 0; b < counts[r]; b += items) {
			c.read.push_back((u32)r);
			c.beg.push_back((u32)b);
		}
	}
	c.first.push_back((u32)c.read.size());
	return c;
}

template <class T> static T *out(const std::vector<T> &v)
{
	T *p = (T *)malloc(v.size() * sizeof(T) + 1);
	if (!v.empty()) memcpy(p, v.data(), v.size() * sizeof(T));
	return p;
}

struct EmuIndex {
	int b;
	const u64 *slot_start, *keys, *p_start, *words;
	const u32 *seq_len;
	const u64 *name_off;
	const unsigned char *names;
};

struct EmuOpt {
	int w, k, is_hpc, mid_occ, max_occ, max_max_occ, occ_dist, chunk, items, sort_max;
	float q_occ_frac;
	long long flag;
};

// What a launch returns, malloc'ed: per read its minimizers (mv, 2 words each, at mv_off, mv_n of them), its
// anchors (likewise a, a_off, a_n), its mini_pos (at mv_off, n_mini of them) and rep_len.
struct EmuOut {
	u64 *mv, *mv_off, *mv_n, *a, *a_off, *a_n, *mini_pos, *n_mini;
	int *rep;
};

// Reads: read r has read_nseg[r] segments, each seg_len[] bases taken in order from bases; its name, when
// has_qname[r], is qnames[qname_off[r]..qname_off[r + 1]].
extern "C" void emu_seed(int n_reads, const unsigned char *bases, const u32 *read_nseg, const u32 *seg_len,
                         const unsigned char *has_qname, const u64 *qname_off, const unsigned char *qnames,
                         const EmuIndex *ix, const EmuOpt *opt, EmuOut *res)
{
	// Layout::new
	std::vector<u64> seg_off, seg_add;
	std::vector<u32> seg_rid, chunk_seg, chunk_beg, s_len;
	std::vector<size_t> read_chunk;
	std::vector<int> qlen;
	u64 at = 0;
	size_t sg = 0;
	for (int r = 0; r < n_reads; ++r) {
		read_chunk.push_back(chunk_seg.size());
		int sum = 0;
		for (u32 i = 0; i < read_nseg[r]; ++i, ++sg) {
			seg_off.push_back(at);
			s_len.push_back(seg_len[sg]);
			seg_rid.push_back(i);
			seg_add.push_back((u64)(long long)(int)((u32)sum << 1));
			for (u32 beg = 0; beg < seg_len[sg]; beg += opt->chunk) {
				chunk_seg.push_back((u32)sg);
				chunk_beg.push_back(beg);
			}
			at += seg_len[sg];
			sum = (int)((u32)sum + seg_len[sg]);
		}
		qlen.push_back(sum);
	}
	read_chunk.push_back(chunk_seg.size());
	const int n_chunks = (int)chunk_seg.size();
	// sketch: count, offsets, write
	std::vector<u64> count(n_chunks);
	const unsigned threads = 128;
	launch(blocks(n_chunks, threads), threads, [&] {
		seed_sketch(bases, chunk_seg.data(), chunk_beg.data(), n_chunks, opt->chunk, seg_off.data(), s_len.data(),
		            seg_rid.data(), seg_add.data(), opt->w, opt->k, opt->is_hpc, count.data(), 0, 0);
	});
	std::vector<u64> chunk_off = offsets(count);
	const size_t total = chunk_off[n_chunks];
	std::vector<mm128> mv(total + 1);
	launch(blocks(n_chunks, threads), threads, [&] {
		seed_sketch(bases, chunk_seg.data(), chunk_beg.data(), n_chunks, opt->chunk, seg_off.data(), s_len.data(),
		            seg_rid.data(), seg_add.data(), opt->w, opt->k, opt->is_hpc, count.data(), chunk_off.data(),
		            mv.data());
	});
	std::vector<u64> r_off(n_reads), r_n(n_reads);
	for (int r = 0; r < n_reads; ++r) {
		r_off[r] = chunk_off[read_chunk[r]];
		r_n[r] = chunk_off[read_chunk[r + 1]] - r_off[r];
	}
	const int C = opt->items;
	const Chunks ck = item_chunks(r_n, C);
	const int nck = ck.n();
	std::vector<u32> ck_n(nck + 1), ck_at(nck + 1);
	// --q-occ-frac
	std::vector<u64> tab_off(n_reads), tab_mask(n_reads);
	u64 slots = 0;
	for (int r = 0; r < n_reads; ++r) {
		u64 size = 0;
		if (opt->mid_occ > 0 && r_n[r] > (u64)opt->mid_occ)
			for (size = 1; size < 2 * r_n[r]; size *= 2) {}
		tab_off[r] = slots;
		tab_mask[r] = size ? size - 1 : 0;
		slots += size;
	}
	if (opt->q_occ_frac > 0.0f && slots > 0) {
		std::vector<u64> tab_key(slots);
		std::vector<u32> tab_cnt(slots), max_cnt(n_reads);
		launch(nck, C, [&] {
			seed_qocc_count(mv.data(), r_off.data(), r_n.data(), ck.read.data(), ck.beg.data(), tab_off.data(),
			                tab_mask.data(), tab_key.data(), tab_cnt.data(), max_cnt.data());
		});
		launch(nck, C, [&] {
			seed_qocc_mark(mv.data(), r_off.data(), r_n.data(), ck.read.data(), ck.beg.data(), tab_off.data(),
			               tab_mask.data(), tab_key.data(), tab_cnt.data(), max_cnt.data(), opt->mid_occ, opt->q_occ_frac);
		});
		std::vector<u64> r_kept(n_reads);
		std::vector<mm128> mv2(total + 1);
		launch(blocks(nck, 128), 128, [&] { seed_count_mv(mv.data(), r_off.data(), r_n.data(), ck.read.data(), ck.beg.data(), nck, C, ck_n.data()); });
		launch(blocks(n_reads, 128), 128, [&] { seed_scan_reads(ck.first.data(), ck_n.data(), n_reads, ck_at.data(), r_kept.data()); });
		launch(blocks(nck, 128), 128, [&] {
			seed_write_mv(mv.data(), r_off.data(), r_n.data(), ck.read.data(), ck.beg.data(), nck, C, ck_at.data(), mv2.data());
		});
		mv.swap(mv2);
		r_n = r_kept;
	}
	// lookups, limits
	std::vector<Seed> seeds(total + 1), found(total + 1);
	launch(nck, C, [&] {
		seed_lookup(mv.data(), r_off.data(), r_n.data(), ck.read.data(), ck.beg.data(), ix->b, ix->slot_start, ix->keys,
		            ix->p_start, ix->words, seeds.data());
	});
	std::vector<u64> r_m(n_reads), heaps(total + 1);
	launch(blocks(nck, 128), 128, [&] { seed_count_found(seeds.data(), r_off.data(), r_n.data(), ck.read.data(), ck.beg.data(), nck, C, ck_n.data()); });
	launch(blocks(n_reads, 128), 128, [&] { seed_scan_reads(ck.first.data(), ck_n.data(), n_reads, ck_at.data(), r_m.data()); });
	launch(blocks(nck, 128), 128, [&] {
		seed_write_found(seeds.data(), r_off.data(), r_n.data(), ck.read.data(), ck.beg.data(), nck, C, ck_at.data(), found.data());
	});
	launch(nck, C, [&] {
		seed_select_flag(found.data(), r_off.data(), r_m.data(), qlen.data(), ck.read.data(), ck.beg.data(), opt->max_occ,
		                 opt->max_max_occ, opt->occ_dist, heaps.data());
	});
	std::vector<SelChunk> sel(nck + 1);
	launch(blocks(nck, 128), 128, [&] { seed_select_chunks(found.data(), r_off.data(), r_m.data(), ck.read.data(), ck.beg.data(), nck, C, sel.data()); });
	std::vector<u64> a_rel(total + 1), mini_pos(total + 1), r_nseed(n_reads), r_na(n_reads);
	std::vector<int> r_rep(n_reads);
	launch(blocks(n_reads, 128), 128, [&] { seed_select_reads(ck.first.data(), n_reads, sel.data(), r_nseed.data(), r_na.data(), r_rep.data()); });
	launch(blocks(nck, 128), 128, [&] {
		seed_select_write(found.data(), r_off.data(), r_m.data(), ck.read.data(), ck.beg.data(), nck, C, sel.data(),
		                  seeds.data(), a_rel.data(), mini_pos.data());
	});
	// anchors
	std::vector<u64> a_off = offsets(r_na);
	const size_t total_a = a_off[n_reads];
	std::vector<mm128> anchors(total_a + 1);
	const bool drops = opt->flag & (F_NO_DIAG | F_NO_DUAL | F_FOR_ONLY | F_REV_ONLY);
	std::vector<unsigned char> keep(total_a + 1);
	launch(nck, C, [&] {
		seed_expand(seeds.data(), r_off.data(), r_nseed.data(), ck.read.data(), ck.beg.data(), a_rel.data(), a_off.data(),
		            qlen.data(), has_qname, qname_off, qnames, ix->words, ix->seq_len, ix->name_off, ix->names, opt->flag,
		            anchors.data(), drops ? keep.data() : 0);
	});
	if (drops) {
		const Chunks ack = item_chunks(r_na, C);
		const int nack = ack.n();
		std::vector<u32> ack_n(nack + 1), ack_at(nack + 1);
		std::vector<u64> r_kept(n_reads);
		std::vector<mm128> anchors2(total_a + 1);
		launch(blocks(nack, 128), 128, [&] { seed_count_kept(keep.data(), a_off.data(), r_na.data(), ack.read.data(), ack.beg.data(), nack, C, ack_n.data()); });
		launch(blocks(n_reads, 128), 128, [&] { seed_scan_reads(ack.first.data(), ack_n.data(), n_reads, ack_at.data(), r_kept.data()); });
		launch(blocks(nack, 128), 128, [&] {
			seed_write_kept(anchors.data(), keep.data(), a_off.data(), r_na.data(), ack.read.data(), ack.beg.data(), nack, C,
			                ack_at.data(), anchors2.data());
		});
		anchors.swap(anchors2);
		r_na = r_kept;
	}
	sort_ranges(anchors.data(), a_off.data(), r_na.data(), n_reads, total_a, opt->sort_max);
	res->mv = out(std::vector<u64>((u64 *)mv.data(), (u64 *)(mv.data() + total)));
	res->mv_off = out(r_off);
	res->mv_n = out(r_n);
	res->a = out(std::vector<u64>((u64 *)anchors.data(), (u64 *)(anchors.data() + total_a)));
	res->a_off = out(std::vector<u64>(a_off.begin(), a_off.end() - 1));
	res->a_n = out(r_na);
	res->mini_pos = out(mini_pos);
	res->n_mini = out(r_nseed);
	res->rep = out(r_rep);
}
