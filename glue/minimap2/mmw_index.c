/* warpalign glue for index.c, included at its end (it reaches idxhash_t and the kh_*_idx functions): a prebuilt
 * index loaded by -t threads, an index built from sequences packed, sketched and added to its buckets by -t threads, and mid_occ and the index's
 * statistics counted by -t threads. Each bucket's table is
 * built by upstream's calls in upstream's order (kh_init, kh_resize to the file's size, kh_put of each key in file
 * order), so it is upstream's slot for slot; mid_occ is an order statistic and the statistics integer sums, so
 * the order the buckets are visited in does not change them. Anything the threads cannot read as upstream
 * would (not a regular file, a truncated or inconsistent one) is read again from its start by mm_idx_load. */

#include <errno.h>
#include <sys/stat.h>
#include "warpalign_mm2.h"

static int mmw_idx_threads = 1; /* the -t of the last index read */

typedef struct {
	int32_t n;        /* the bucket's positions */
	uint32_t size;    /* its keys */
	int64_t p_off;    /* file offset of its positions */
	int64_t h_off;    /* of its (key, value) pairs */
} mmw_idx_bucket_at_t;

typedef struct {
	mm_idx_t *mi;
	int fd;
	const mmw_idx_bucket_at_t *at;
	int64_t s_off;    /* of the sequences (mi->S) */
	size_t s_bytes;
	uint64_t **buf;   /* a pair buffer per thread */
	int failed;       /* atomic: a short read or a key twice */
} mmw_idx_load_t;

#define MMW_IDX_PAIRS 65536
#define MMW_IDX_SEQ_PIECE (64 << 20) /* bytes of the sequences a task reads */

static int mmw_pread_all(int fd, void *dst, size_t len, int64_t off)
{
	char *d = (char*)dst;
	while (len > 0) {
		ssize_t r = pread(fd, d, len, (off_t)off);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) return -1;
		d += r, len -= (size_t)r, off += r;
	}
	return 0;
}

static void mmw_idx_load_bucket(void *data, long i, int tid)
{
	mmw_idx_load_t *g = (mmw_idx_load_t*)data;
	mm_idx_t *mi = g->mi;
	uint32_t j, m, size;
	idxhash_t *h;
	uint64_t *x;
	if (__atomic_load_n(&g->failed, __ATOMIC_RELAXED)) return;
	if (i >= 1L<<mi->b) { /* a piece of the sequences, beside the buckets */
		size_t beg = (size_t)(i - (1L<<mi->b)) * MMW_IDX_SEQ_PIECE, len = g->s_bytes - beg < MMW_IDX_SEQ_PIECE? g->s_bytes - beg : MMW_IDX_SEQ_PIECE;
		if (mmw_pread_all(g->fd, (char*)mi->S + beg, len, g->s_off + (int64_t)beg) < 0) __atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
		return;
	}
	mi->B[i].n = g->at[i].n;
	mi->B[i].p = (uint64_t*)malloc(g->at[i].n * 8);
	if (g->at[i].n > 0 && mmw_pread_all(g->fd, mi->B[i].p, (size_t)g->at[i].n * 8, g->at[i].p_off) < 0) {
		__atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
		return;
	}
	size = g->at[i].size;
	if (size == 0) return;
	mi->B[i].h = h = kh_init(idx);
	kh_resize(idx, h, size);
	if (g->buf[tid] == 0) g->buf[tid] = (uint64_t*)malloc(MMW_IDX_PAIRS * 16);
	x = g->buf[tid];
	for (j = 0; j < size; j += m) {
		uint32_t t;
		m = size - j < MMW_IDX_PAIRS? size - j : MMW_IDX_PAIRS;
		if (mmw_pread_all(g->fd, x, (size_t)m * 16, g->at[i].h_off + (int64_t)j * 16) < 0) {
			__atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
			return;
		}
		for (t = 0; t < m; ++t) {
			int absent;
			khint_t k = kh_put(idx, h, x[t<<1], &absent);
			if (!absent) { /* upstream's assert fails: let it fail there */
				__atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
				return;
			}
			kh_val(h, k) = x[t<<1|1];
		}
	}
}

/* The index at fp's position by threads, or NULL where mm_idx_load must read it (fp then where it was). */
static mm_idx_t *mmw_idx_load_threads(FILE *fp, int n_threads)
{
	char magic[4];
	uint32_t x[5], i, nb;
	uint64_t sum_len = 0;
	int64_t off0, pos;
	struct stat st;
	mm_idx_t *mi;
	mmw_idx_bucket_at_t *at;
	mmw_idx_load_t g;
	int fd = fileno(fp), t;

	off0 = ftello(fp);
	if (off0 < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
	if (fread(magic, 1, 4, fp) != 4 || strncmp(magic, MM_IDX_MAGIC, 4) != 0 || fread(x, 4, 5, fp) != 5)
		goto upstream;
	mi = mm_idx_init(x[0], x[1], x[2], x[4]);
	mi->n_seq = x[3];
	mi->seq = (mm_idx_seq_t*)kcalloc(mi->km, mi->n_seq, sizeof(mm_idx_seq_t));
	for (i = 0; i < mi->n_seq; ++i) {
		uint8_t l;
		mm_idx_seq_t *s = &mi->seq[i];
		if (fread(&l, 1, 1, fp) != 1) goto upstream_destroy;
		if (l) {
			s->name = (char*)kmalloc(mi->km, l + 1);
			if (fread(s->name, 1, l, fp) != l) goto upstream_destroy;
			s->name[l] = 0;
		}
		if (fread(&s->len, 4, 1, fp) != 1) goto upstream_destroy;
		s->offset = sum_len;
		s->is_alt = 0;
		sum_len += s->len;
	}
	/* where each bucket lies: its n, positions, size and pairs, back to back */
	nb = 1U << mi->b;
	at = (mmw_idx_bucket_at_t*)calloc(nb, sizeof(mmw_idx_bucket_at_t));
	pos = ftello(fp);
	for (i = 0; i < nb; ++i) {
		if (pos + 4 > st.st_size || mmw_pread_all(fd, &at[i].n, 4, pos) < 0 || at[i].n < 0 || at[i].n > INT32_MAX / 8) break;
		at[i].p_off = pos + 4;
		pos = at[i].p_off + (int64_t)at[i].n * 8;
		if (pos + 4 > st.st_size || mmw_pread_all(fd, &at[i].size, 4, pos) < 0) break;
		at[i].h_off = pos + 4;
		pos = at[i].h_off + (int64_t)at[i].size * 16;
		if (pos > st.st_size) break;
	}
	if (i < nb || (!(mi->flag & MM_I_NO_SEQ) && pos + (int64_t)((sum_len + 7) / 8 * 4) > st.st_size)) {
		free(at);
		goto upstream_destroy;
	}
	memset(&g, 0, sizeof(g));
	g.mi = mi, g.fd = fd, g.at = at, g.s_off = pos;
	g.s_bytes = mi->flag & MM_I_NO_SEQ? 0 : (sum_len + 7) / 8 * 4;
	if (!(mi->flag & MM_I_NO_SEQ)) mi->S = (uint32_t*)malloc(g.s_bytes);
	g.buf = (uint64_t**)calloc(n_threads, sizeof(uint64_t*));
	kt_for(n_threads, mmw_idx_load_bucket, &g, (long)nb + (long)((g.s_bytes + MMW_IDX_SEQ_PIECE - 1) / MMW_IDX_SEQ_PIECE));
	for (t = 0; t < n_threads; ++t) free(g.buf[t]);
	free(g.buf);
	free(at);
	if (g.failed || fseeko(fp, pos + (int64_t)g.s_bytes, SEEK_SET) != 0) goto upstream_destroy;
	return mi;

upstream_destroy:
	mm_idx_destroy(mi);
upstream:
	if (fseeko(fp, off0, SEEK_SET) != 0) {
		fprintf(stderr, "[ERROR] warpalign: cannot seek back in the index file\n");
		exit(1);
	}
	return 0;
}

/* Whether two indexes hold the same tables, positions and sequences (WARPALIGN_INDEX_LOAD=verify). */
static const char *mmw_idx_differs(const mm_idx_t *a, const mm_idx_t *b)
{
	uint32_t i;
	khint_t j;
	uint64_t sum_len = 0;
	if (a->w != b->w || a->k != b->k || a->b != b->b || a->flag != b->flag || a->n_seq != b->n_seq) return "its header";
	for (i = 0; i < a->n_seq; ++i) {
		const mm_idx_seq_t *s = &a->seq[i], *t = &b->seq[i];
		if (s->len != t->len || s->offset != t->offset || s->is_alt != t->is_alt || (s->name == 0) != (t->name == 0)
				|| (s->name && strcmp(s->name, t->name) != 0)) return "a sequence's name, length or offset";
		sum_len += s->len;
	}
	for (i = 0; i < 1U<<a->b; ++i) {
		const mm_idx_bucket_t *x = &a->B[i], *y = &b->B[i];
		const idxhash_t *h = (const idxhash_t*)x->h, *k = (const idxhash_t*)y->h;
		if (x->n != y->n || (x->n > 0 && memcmp(x->p, y->p, (size_t)x->n * 8) != 0)) return "a bucket's positions";
		if ((h == 0) != (k == 0)) return "a bucket's table";
		if (h == 0) continue;
		if (h->n_buckets != k->n_buckets || h->size != k->size || h->n_occupied != k->n_occupied || h->upper_bound != k->upper_bound
				|| memcmp(h->flags, k->flags, __ac_fsize(h->n_buckets) * 4) != 0) return "a bucket's table";
		for (j = 0; j < h->n_buckets; ++j) /* an empty slot's key and value are whatever malloc left */
			if (kh_exist(h, j) && (h->keys[j] != k->keys[j] || h->vals[j] != k->vals[j])) return "a bucket's keys";
	}
	if ((a->S == 0) != (b->S == 0) || (a->S && memcmp(a->S, b->S, (sum_len + 7) / 8 * 4) != 0)) return "the sequences";
	return 0;
}

mm_idx_t *mmw_idx_load(FILE *fp, int n_threads)
{
	int mode = mmw_index_mode();
	int64_t off0 = ftello(fp);
	mm_idx_t *mi, *up;
	const char *diff = 0;
	if (mode == MMW_INDEX_UPSTREAM || n_threads <= 1) return mm_idx_load(fp);
	mi = mmw_idx_load_threads(fp, n_threads);
	if (mi == 0) return mm_idx_load(fp);
	if (mode != MMW_INDEX_VERIFY) return mi;
	int64_t end = ftello(fp);
	fseeko(fp, off0, SEEK_SET);
	up = mm_idx_load(fp);
	if (up == 0 || ftello(fp) != end || (diff = mmw_idx_differs(mi, up)) != 0) {
		fprintf(stderr, "[ERROR] warpalign: WARPALIGN_INDEX_LOAD=verify: the index read by threads differs from mm_idx_load's in %s\n",
				up == 0? "being read at all" : ftello(fp) != end? "where it ends" : diff);
		exit(1);
	}
	mm_idx_destroy(up);
	return mi;
}

void mmw_idx_set_threads(int n_threads)
{
	mmw_idx_threads = n_threads > 1? n_threads : 1;
}

/* Per range of buckets: the keys, singletons, occurrences, and a histogram of the occurrence counts (below
 * MMW_OCC_DENSE; larger counts listed). */
#define MMW_OCC_DENSE 4096
#define MMW_OCC_RANGES 256

typedef struct {
	int64_t n, n1;
	uint64_t sum;
	uint64_t *hist;   /* MMW_OCC_DENSE counts, or NULL: not asked */
	uint32_t *big, n_big, m_big;
} mmw_occ_part_t;

typedef struct {
	const mm_idx_t *mi;
	mmw_occ_part_t *part;
	int want_hist;
} mmw_occ_t;

static void mmw_occ_range(void *data, long r, int tid)
{
	mmw_occ_t *g = (mmw_occ_t*)data;
	mmw_occ_part_t *p = &g->part[r];
	uint32_t nb = 1U << g->mi->b, i, beg = (uint32_t)((uint64_t)nb * r / MMW_OCC_RANGES), end = (uint32_t)((uint64_t)nb * (r + 1) / MMW_OCC_RANGES);
	if (g->want_hist) p->hist = (uint64_t*)calloc(MMW_OCC_DENSE, 8);
	for (i = beg; i < end; ++i) {
		idxhash_t *h = (idxhash_t*)g->mi->B[i].h;
		khint_t k;
		if (h == 0) continue;
		p->n += kh_size(h);
		for (k = 0; k < kh_end(h); ++k) {
			uint32_t c;
			if (!kh_exist(h, k)) continue;
			c = kh_key(h, k)&1? 1 : (uint32_t)kh_val(h, k);
			p->sum += c;
			if (kh_key(h, k)&1) ++p->n1;
			if (!g->want_hist) continue;
			if (c < MMW_OCC_DENSE) ++p->hist[c];
			else {
				if (p->n_big == p->m_big) {
					p->m_big = p->m_big? p->m_big << 1 : 64;
					p->big = (uint32_t*)realloc(p->big, p->m_big * 4);
				}
				p->big[p->n_big++] = c;
			}
		}
	}
}

static int mmw_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
	return x < y? -1 : x > y;
}

/* Sums over all ranges into part[0]; with the histograms, mid_occ's order statistic (the value at 0-based
 * rank r among all counts). */
static uint32_t mmw_occ_count(const mm_idx_t *mi, mmw_occ_t *g, int want_hist, size_t rank)
{
	long r;
	uint32_t v = 0;
	memset(g, 0, sizeof(*g));
	g->mi = mi, g->want_hist = want_hist;
	g->part = (mmw_occ_part_t*)calloc(MMW_OCC_RANGES, sizeof(mmw_occ_part_t));
	kt_for(mmw_idx_threads, mmw_occ_range, g, MMW_OCC_RANGES);
	for (r = 1; r < MMW_OCC_RANGES; ++r)
		g->part[0].n += g->part[r].n, g->part[0].n1 += g->part[r].n1, g->part[0].sum += g->part[r].sum;
	if (want_hist) {
		size_t below = 0, n_big = 0;
		uint32_t c, *big, j;
		for (c = 0; c < MMW_OCC_DENSE; ++c) {
			uint64_t h = 0;
			for (r = 0; r < MMW_OCC_RANGES; ++r) h += g->part[r].hist[c];
			if (rank < below + h) { v = c; goto found; }
			below += h;
		}
		for (r = 0; r < MMW_OCC_RANGES; ++r) n_big += g->part[r].n_big;
		big = (uint32_t*)malloc((n_big > 0? n_big : 1) * 4);
		for (r = 0, j = 0; r < MMW_OCC_RANGES; ++r)
			memcpy(big + j, g->part[r].big, g->part[r].n_big * 4), j += g->part[r].n_big;
		qsort(big, n_big, 4, mmw_u32_cmp);
		v = big[rank - below];
		free(big);
	}
found:
	for (r = 0; r < MMW_OCC_RANGES; ++r) free(g->part[r].hist), free(g->part[r].big);
	return v;
}

/* mm_idx_cal_max_occ's number, counted by threads. */
int32_t mmw_idx_cal_max_occ(const mm_idx_t *mi, float f)
{
	uint32_t i;
	size_t n = 0;
	mmw_occ_t g;
	uint32_t thres;
	if (mmw_index_mode() == MMW_INDEX_UPSTREAM || mmw_idx_threads <= 1) return mm_idx_cal_max_occ(mi, f);
	if (f <= 0.) return INT32_MAX;
	for (i = 0; i < 1U<<mi->b; ++i)
		if (mi->B[i].h) n += kh_size((idxhash_t*)mi->B[i].h);
	if (n == 0) return INT32_MAX;
	thres = mmw_occ_count(mi, &g, 1, (size_t)(uint32_t)((1. - f) * n)) + 1;
	free(g.part);
	if (mmw_index_mode() == MMW_INDEX_VERIFY && (int32_t)thres != mm_idx_cal_max_occ(mi, f)) {
		fprintf(stderr, "[ERROR] warpalign: WARPALIGN_INDEX_LOAD=verify: mid_occ %u by threads, %d by mm_idx_cal_max_occ\n", thres, mm_idx_cal_max_occ(mi, f));
		exit(1);
	}
	return thres;
}

/* mm_idx_stat's lines, counted by threads. */
void mmw_idx_stat(const mm_idx_t *mi)
{
	int64_t n, n1;
	uint32_t i;
	uint64_t sum, len = 0;
	mmw_occ_t g;
	if (mmw_index_mode() == MMW_INDEX_UPSTREAM || mmw_idx_threads <= 1) {
		mm_idx_stat(mi);
		return;
	}
	fprintf(stderr, "[M::%s] kmer size: %d; skip: %d; is_hpc: %d; #seq: %d\n", "mm_idx_stat", mi->k, mi->w, mi->flag&MM_I_HPC, mi->n_seq);
	for (i = 0; i < mi->n_seq; ++i)
		len += mi->seq[i].len;
	mmw_occ_count(mi, &g, 0, 0);
	n = g.part[0].n, n1 = g.part[0].n1, sum = g.part[0].sum;
	free(g.part);
	fprintf(stderr, "[M::%s::%.3f*%.2f] distinct minimizers: %ld (%.2f%% are singletons); average occurrences: %.3lf; average spacing: %.3lf; total length: %ld\n",
			"mm_idx_stat", realtime() - mm_realtime0, cputime() / (realtime() - mm_realtime0), (long)n, 100.0*n1/n, (double)sum / n, (double)len / sum, (long)len);
}

/* Building an index: step 1 of mm_idx_gen's pipeline sketches a batch of the target's sequences into a, in one
 * thread. Here -t threads sketch them in chunks (warpalign_seed_sketch: upstream's minimizers in upstream's order),
 * and a takes the result (mmw_sketch_by_threads). 0: upstream's mm_sketch is to run (one thread, WARPALIGN_INDEX_LOAD=upstream, a batch too
 * small to pay for the threads, w or k that its assert refuses, so that it aborts as upstream does, or the call
 * failed). verify: mm_sketch runs as well, and a difference stops the run. */
#define MMW_IDX_SKETCH_MIN_BASES (1 << 18)

int mmw_idx_sketch(const mm_bseq1_t *seq, int n_seq, const mm_idx_t *mi, mm128_v *a)
{
	int64_t bases = 0;
	int i, n = 0;
	const char **seqs;
	int32_t *lens;
	uint32_t *rids;
	mm128_t *out = 0;
	size_t n_out = 0;
	double t0;
	int ok, mode = mmw_index_mode();
	if (mode == MMW_INDEX_UPSTREAM || mmw_idx_threads <= 1 || a->n != 0 || mi->w < 1 || mi->w > 255 || mi->k < 1 || mi->k > 28) return 0;
	for (i = 0; i < n_seq; ++i)
		if (seq[i].l_seq > 0) bases += seq[i].l_seq;
	if (bases < MMW_IDX_SKETCH_MIN_BASES) return 0;
	seqs = (const char**)malloc(n_seq * sizeof(char*));
	lens = (int32_t*)malloc(n_seq * sizeof(int32_t));
	rids = (uint32_t*)malloc(n_seq * sizeof(uint32_t));
	if (seqs == 0 || lens == 0 || rids == 0) {
		free(seqs), free(lens), free(rids);
		return 0;
	}
	for (i = 0; i < n_seq; ++i)
		if (seq[i].l_seq > 0) seqs[n] = seq[i].seq, lens[n] = seq[i].l_seq, rids[n++] = seq[i].rid;
	t0 = realtime();
	ok = mmw_sketch_by_threads(seqs, lens, rids, n, mi->w, mi->k, mi->flag & MM_I_HPC, mmw_idx_threads, &out, &n_out);
	free(seqs), free(lens), free(rids);
	if (!ok) return 0;
	if (mmw_trace_on())
		fprintf(stderr, "[warpalign %.3f] index: %d sequences (%ld bases) sketched by %d threads in %.3f s, %zu minimizers\n",
				realtime() - mm_realtime0, n, (long)bases, mmw_idx_threads, realtime() - t0, n_out);
	if (mode == MMW_INDEX_VERIFY) {
		mm128_v u = {0, 0, 0};
		for (i = 0; i < n_seq; ++i)
			if (seq[i].l_seq > 0) mm_sketch(0, seq[i].seq, seq[i].l_seq, mi->w, mi->k, seq[i].rid, mi->flag&MM_I_HPC, &u);
		if (u.n != n_out || (n_out > 0 && memcmp(u.a, out, n_out * sizeof(mm128_t)) != 0)) {
			fprintf(stderr, "[ERROR] warpalign: WARPALIGN_INDEX_LOAD=verify: the sketch by threads differs from mm_sketch's (%zu minimizers against %zu)\n", n_out, u.n);
			exit(1);
		}
		free(u.a);
	}
	a->a = out, a->n = a->m = n_out;
	return 1;
}

/* Step 2 of mm_idx_gen's pipeline, mm_idx_add by -t threads: each thread pushes the batch's minimizers of its own
 * range of buckets, in the batch's order, so that each bucket grows by the same pushes in the same order as in
 * upstream's loop (the same contents and capacities). Upstream's one thread meets a cache miss at nearly every push
 * (2^b buckets growing at once): on a 333 Mb genome, batches of 66 Mb took that step about 0.7 s each. A thread
 * reads the whole batch and skips the others' buckets, so ranges are few. */
#define MMW_IDX_ADD_MIN (1 << 16)

typedef struct {
	mm_idx_t *mi;
	int n, n_ranges;
	const mm128_t *a;
} mmw_idx_add_t;

static void mmw_idx_add_range(void *data, long r, int tid)
{
	mmw_idx_add_t *g = (mmw_idx_add_t*)data;
	int i, mask = (1<<g->mi->b) - 1;
	int lo = (int)((int64_t)(mask + 1) * r / g->n_ranges), hi = (int)((int64_t)(mask + 1) * (r + 1) / g->n_ranges);
	(void)tid;
	for (i = 0; i < g->n; ++i) {
		int b = g->a[i].x>>8&mask;
		if (b >= lo && b < hi) kv_push(mm128_t, 0, g->mi->B[b].a, g->a[i]);
	}
}

void mmw_idx_add(mm_idx_t *mi, int n, const mm128_t *a)
{
	mmw_idx_add_t g;
	double t0 = realtime();
	g.mi = mi, g.n = n, g.a = a, g.n_ranges = mmw_idx_threads < 1<<mi->b? mmw_idx_threads : 1<<mi->b;
	if (mmw_index_mode() == MMW_INDEX_UPSTREAM || mmw_idx_threads <= 1 || n < MMW_IDX_ADD_MIN) {
		mm_idx_add(mi, n, a);
		g.n_ranges = 1;
	} else kt_for(g.n_ranges, mmw_idx_add_range, &g, g.n_ranges);
	if (mmw_trace_on())
		fprintf(stderr, "[warpalign %.3f] index: %d minimizers added to the buckets by %d threads in %.3f s\n",
				realtime() - mm_realtime0, n, g.n_ranges, realtime() - t0);
}

/* Step 0 of mm_idx_gen's pipeline packs each sequence into the index's copy mi->S, 4 bits a base, one base at a
 * time. Here -t threads fill its whole 32-bit words (8 bases each: the same bits, ORed into the zeros the reading
 * step left there), and this thread the bases of the words it shares with the sequences before and after, as
 * upstream sets them. Returns len (packed), or 0: upstream's loop is to run (one thread, upstream's functions, a
 * sequence under MMW_IDX_PACK_MIN). */
#define MMW_IDX_PACK_MIN (1 << 20)
#define MMW_IDX_PACK_WORDS (1 << 17) /* words a task fills */

typedef struct {
	uint32_t *S;
	uint64_t off, first_word, end_word;
	const char *seq;
} mmw_idx_pack_t;

static void mmw_idx_pack_words(void *data, long t, int tid)
{
	mmw_idx_pack_t *g = (mmw_idx_pack_t*)data;
	uint64_t w = g->first_word + (uint64_t)t * MMW_IDX_PACK_WORDS;
	uint64_t end = w + MMW_IDX_PACK_WORDS < g->end_word? w + MMW_IDX_PACK_WORDS : g->end_word;
	(void)tid;
	for (; w < end; ++w) {
		const uint8_t *q = (const uint8_t*)g->seq + (w * 8 - g->off);
		uint32_t x = 0;
		int k;
		for (k = 0; k < 8; ++k) x |= (uint32_t)seq_nt4_table[q[k]] << (k << 2);
		g->S[w] |= x;
	}
}

uint32_t mmw_idx_pack(uint32_t *S, uint64_t off, const char *seq, uint32_t len)
{
	mmw_idx_pack_t g;
	uint64_t o;
	if (mmw_index_mode() == MMW_INDEX_UPSTREAM || mmw_idx_threads <= 1 || len < MMW_IDX_PACK_MIN) return 0;
	g.S = S, g.off = off, g.seq = seq, g.first_word = (off + 7) >> 3, g.end_word = (off + len) >> 3;
	for (o = off; o < g.first_word << 3; ++o) mm_seq4_set(S, o, seq_nt4_table[(uint8_t)seq[o - off]]);
	for (o = g.end_word << 3; o < off + len; ++o) mm_seq4_set(S, o, seq_nt4_table[(uint8_t)seq[o - off]]);
	kt_for(mmw_idx_threads, mmw_idx_pack_words, &g, (long)((g.end_word - g.first_word + MMW_IDX_PACK_WORDS - 1) / MMW_IDX_PACK_WORDS));
	return len;
}
