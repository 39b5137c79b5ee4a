/* Jobs too large for the memory left (the address space capped with setrlimit(RLIMIT_AS), as `ulimit -v`
 * does) return WARPALIGN_STATUS_OUT_OF_MEMORY with a message naming the job and the bytes asked for, leave
 * every result of their batch empty, write nothing to stderr and leave the process able to run the next
 * batch: ksw extd2, exts2 and extz2 of 1 Mb x 1 Mb without a band (issue 25's example: 2000031000000 bytes
 * of traceback), the ksw cache computing such a call, a chain of 64 M anchors, and y-drop extensions the
 * y-drop never stops. After each, a small job of the same kind gives the result it gave before the cap.
 * Exits 0 and prints "capi memory: ok". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <warpalign.h>

#define KSW_BIG 1000000             /* 1 Mb: a full matrix's traceback is 2 TB */
#define HEADROOM (256L << 20)       /* address space left to the jobs once capped */
#define CHAIN_BIG (64L << 20)       /* anchors: the fill alone needs 20 bytes each */
#define YDROP_LONG 100000           /* 10^10 cells, one traceback byte each */
#define YDROP_HUGE (1L << 30)       /* a first row of 2^30 cells */
#define TB_MAX 0x7fffffffu          /* the largest traceback LASTZ's int holds */

static warpalign_ctx *ctx;
static int8_t mat[25];
static uint8_t query[200], target[200];
static uint8_t *big_query, *big_target;
static int32_t sub[256 * 256];
static uint8_t ya[1001], yb[1001];
static uint8_t *long_a, *long_b, *huge_a, *huge_b;
static warpalign_anchor small_anchors[50];
static warpalign_anchor *big_anchors;
static int stderr_copy;

static void fail(const char *what)
{
	dup2(stderr_copy, 2);
	fprintf(stderr, "capi memory: %s (last error: \"%s\")\n", what, warpalign_last_error());
	exit(1);
}

/* Address space that reads as zeros and costs no memory until written (the jobs fail before they read it). */
static void *untouched(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) fail("mmap");
	return p;
}

/* Caps the address space at what the process maps now plus HEADROOM; returns the limit it had. */
static struct rlimit cap_address_space(void)
{
	struct rlimit old, cap;
	long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f == NULL || fscanf(f, "%ld", &pages) != 1) fail("reading /proc/self/statm");
	fclose(f);
	if (getrlimit(RLIMIT_AS, &old) != 0) fail("getrlimit");
	cap = old;
	cap.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + HEADROOM;
	if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < cap.rlim_cur) cap.rlim_cur = old.rlim_cur;
	if (setrlimit(RLIMIT_AS, &cap) != 0) fail("setrlimit");
	return old;
}

static void out_of_memory(int st, const char *what, const char *needle)
{
	if (st != WARPALIGN_STATUS_OUT_OF_MEMORY || strstr(warpalign_last_error(), needle) == NULL) fail(what);
}

static void ok(int st, const char *what)
{
	if (st != WARPALIGN_STATUS_OK || warpalign_last_error()[0] != '\0') fail(what);
}

static warpalign_ksw_extd2_job extd2(int32_t len, const uint8_t *q, const uint8_t *t)
{
	warpalign_ksw_extd2_job j = { len, q, len, t, 5, mat, 4, 2, 24, 1, -1, 400, -1, 0 };
	return j;
}

static int same_ksw(const warpalign_ksw_result *a, const warpalign_ksw_result *b)
{
	return a->score == b->score && a->max == b->max && a->n_cigar == b->n_cigar
		&& memcmp(a->cigar, b->cigar, (size_t)a->n_cigar * sizeof(uint32_t)) == 0;
}

static void ksw_all_empty(const warpalign_ksw_result *r, int n, const char *what)
{
	int i;
	for (i = 0; i < n; ++i)
		if (r[i].n_cigar != 0 || r[i].cigar != NULL) fail(what);
}

static warpalign_chain_dp_job chain(int64_t n, const warpalign_anchor *a)
{
	warpalign_chain_dp_job j;
	memset(&j, 0, sizeof(j));
	j.max_dist_x = j.max_dist_y = 5000, j.bw = 500, j.max_skip = 25, j.max_iter = 5000;
	j.min_cnt = 3, j.min_sc = 40, j.chn_pen_gap = 0.8f, j.n_seg = 1;
	j.n_anchors = n, j.anchors = a;
	return j;
}

static warpalign_ydrop_job ydrop(uint32_t len, const uint8_t *a, const uint8_t *b)
{
	warpalign_ydrop_job j;
	memset(&j, 0, sizeof(j));
	j.a = a, j.m = len, j.b = b, j.n = len, j.sub = sub;
	j.gap_open = 400, j.gap_extend = 30, j.y_drop = 9400, j.trim_to_peak = 1, j.tb_size = 1 << 20;
	return j;
}

static int same_ydrop(const warpalign_ydrop_result *a, const warpalign_ydrop_result *b)
{
	return a->score == b->score && a->end1 == b->end1 && a->end2 == b->end2 && a->n_ops == b->n_ops
		&& memcmp(a->ops, b->ops, (size_t)a->n_ops * sizeof(uint32_t)) == 0;
}

int main(void)
{
	FILE *err = tmpfile();
	warpalign_ksw_result want_ksw[2], got_ksw[3];
	warpalign_chain_dp_result want_chain, got_chain;
	warpalign_ydrop_result want_ydrop, got_ydrop;
	warpalign_ksw_extd2_job d[3];
	warpalign_ksw_exts2_job s = { KSW_BIG, NULL, KSW_BIG, NULL, 5, mat, 4, 2, 32, 9, 400, -1, 0, 0, 0x100, NULL };
	warpalign_ksw_extz2_job z = { KSW_BIG, NULL, KSW_BIG, NULL, 5, mat, 4, 2, -1, 400, -1, 0 };
	warpalign_chain_dp_job cj;
	warpalign_ydrop_job yj;
	warpalign_ksw_cache *cache;
	struct rlimit old;
	size_t n = 0;
	char buf[4096];
	long i;

	for (i = 0; i < 25; ++i) mat[i] = i / 5 == 4 || i % 5 == 4 ? -1 : i / 5 == i % 5 ? 2 : -4;
	for (i = 0; i < 200; ++i) query[i] = target[i] = (uint8_t)(i * 7 % 4);
	target[100] = (uint8_t)((target[100] + 1) % 4);
	big_query = malloc(KSW_BIG), big_target = malloc(KSW_BIG);
	long_a = malloc(YDROP_LONG + 1), long_b = malloc(YDROP_LONG + 1);
	if (!big_query || !big_target || !long_a || !long_b) fail("malloc");
	for (i = 0; i < KSW_BIG; ++i) big_query[i] = big_target[i] = (uint8_t)(i * 7 % 4);
	s.query = z.query = big_query, s.target = z.target = big_target;
	for (i = 0; i < 256 * 256; ++i) sub[i] = (i >> 8) == (i & 255) ? 91 : -114;
	for (i = 0; i <= 1000; ++i) ya[i] = yb[i] = (uint8_t)"ACGT"[(i * 7 + i / 5) % 4];
	for (i = 0; i <= YDROP_LONG; ++i) long_a[i] = long_b[i] = (uint8_t)"ACGT"[(i * 7 + i / 5) % 4];
	huge_a = untouched(YDROP_HUGE + 4096), huge_b = untouched(YDROP_HUGE + 4096);
	big_anchors = untouched(CHAIN_BIG * sizeof(warpalign_anchor));
	for (i = 0; i < 50; ++i) small_anchors[i].x = 1000 + 20 * i, small_anchors[i].y = (uint64_t)15 << 32 | (uint64_t)(20 * i);

	/* everything the library writes to stderr lands in err: running out of memory must write nothing */
	stderr_copy = dup(2);
	if (err == NULL || stderr_copy < 0 || dup2(fileno(err), 2) < 0) return 1;
	ctx = warpalign_ctx_create_cpu();

	/* each kind's small job before the cap (a batch of two also starts the worker threads) */
	d[0] = d[1] = extd2(200, query, target);
	ok(warpalign_ksw_extd2_batch(ctx, d, 2, want_ksw), "small extd2 before the cap");
	cj = chain(50, small_anchors);
	ok(warpalign_chain_dp_batch(ctx, &cj, 1, &want_chain), "small chain before the cap");
	if (want_chain.n_chains != 1 || want_chain.n_anchors != 50) fail("small chain: not one chain of 50 anchors");
	yj = ydrop(1000, ya, yb);
	ok(warpalign_ydrop_batch(ctx, &yj, 1, &want_ydrop), "small ydrop before the cap");

	old = cap_address_space();

	/* issue 25's example, between two small jobs of its batch: named by its index, every result empty */
	d[0] = d[2] = extd2(200, query, target), d[1] = extd2(KSW_BIG, big_query, big_target);
	memset(got_ksw, 0xa5, sizeof(got_ksw));
	out_of_memory(warpalign_ksw_extd2_batch(ctx, d, 3, got_ksw), "extd2 1 Mb x 1 Mb", "ksw job 1: 2000031000000 bytes");
	ksw_all_empty(got_ksw, 3, "extd2 batch out of memory: a result not empty");
	ok(warpalign_ksw_extd2_batch(ctx, d, 1, got_ksw), "small extd2 after running out of memory");
	if (!same_ksw(&got_ksw[0], &want_ksw[0])) fail("small extd2 after running out of memory: another result");
	warpalign_ksw_results_free(got_ksw, 1);

	out_of_memory(warpalign_ksw_exts2_batch(ctx, &s, 1, got_ksw), "exts2 1 Mb x 1 Mb", "ksw job 0: 2000031000000 bytes");
	ksw_all_empty(got_ksw, 1, "exts2 out of memory: a result not empty");
	out_of_memory(warpalign_ksw_extz2_batch(ctx, &z, 1, got_ksw), "extz2 1 Mb x 1 Mb", "ksw job 0: 2000031000000 bytes");
	ksw_all_empty(got_ksw, 1, "extz2 out of memory: a result not empty");

	/* the speculation cache: compute fails, the call stays unknown */
	cache = warpalign_ksw_cache_create();
	if (warpalign_ksw_cache_extd2(cache, &d[1], 1, &got_ksw[0]) != 0) fail("cache record of a 1 Mb call");
	out_of_memory(warpalign_ksw_cache_compute(ctx, cache, &n), "cache compute of a 1 Mb call", "2000031000000 bytes");
	if (warpalign_ksw_cache_extd2(cache, &d[1], 0, &got_ksw[0]) != 0) fail("cache answered a call it could not compute");
	warpalign_ksw_cache_clear(cache);
	if (warpalign_ksw_cache_extd2(cache, &d[0], 1, &got_ksw[0]) != 0) fail("cache record after running out of memory");
	ok(warpalign_ksw_cache_compute(ctx, cache, &n), "cache compute after running out of memory");
	if (n != 1 || warpalign_ksw_cache_extd2(cache, &d[0], 0, &got_ksw[0]) != 1 || !same_ksw(&got_ksw[0], &want_ksw[0]))
		fail("cache answer after running out of memory");
	warpalign_ksw_cache_destroy(cache);

	cj = chain(CHAIN_BIG, big_anchors);
	memset(&got_chain, 0xa5, sizeof(got_chain));
	out_of_memory(warpalign_chain_dp_batch(ctx, &cj, 1, &got_chain), "chain of 64 M anchors", "chain job 0: ");
	if (got_chain.n_chains != 0 || got_chain.chains != NULL || got_chain.anchors != NULL) fail("chain out of memory: result not empty");
	cj = chain(50, small_anchors);
	ok(warpalign_chain_dp_batch(ctx, &cj, 1, &got_chain), "small chain after running out of memory");
	if (got_chain.n_chains != want_chain.n_chains || got_chain.chains[0] != want_chain.chains[0]
	    || memcmp(got_chain.anchors, want_chain.anchors, 50 * sizeof(warpalign_anchor)) != 0)
		fail("small chain after running out of memory: another result");
	warpalign_chain_dp_results_free(&got_chain, 1);

	/* no y-drop stop: the traceback grows row by row until it cannot, or the first row cannot be held */
	yj = ydrop(YDROP_LONG, long_a, long_b), yj.y_drop = 1 << 30, yj.tb_size = TB_MAX;
	memset(&got_ydrop, 0xa5, sizeof(got_ydrop));
	out_of_memory(warpalign_ydrop_batch(ctx, &yj, 1, &got_ydrop), "ydrop without a y-drop stop", "ydrop job 0: ");
	if (got_ydrop.n_ops != 0 || got_ydrop.ops != NULL) fail("ydrop out of memory: result not empty");
	yj = ydrop(YDROP_HUGE, huge_a, huge_b), yj.y_drop = 1 << 30, yj.tb_size = TB_MAX;
	out_of_memory(warpalign_ydrop_batch(ctx, &yj, 1, &got_ydrop), "ydrop of 1 Gb x 1 Gb", "ydrop job 0: ");
	yj = ydrop(1000, ya, yb);
	ok(warpalign_ydrop_batch(ctx, &yj, 1, &got_ydrop), "small ydrop after running out of memory");
	if (!same_ydrop(&got_ydrop, &want_ydrop)) fail("small ydrop after running out of memory: another result");
	warpalign_ydrop_results_free(&got_ydrop, 1);

	if (setrlimit(RLIMIT_AS, &old) != 0) fail("restoring the address-space limit");
	warpalign_ksw_results_free(want_ksw, 2);
	warpalign_chain_dp_results_free(&want_chain, 1);
	warpalign_ydrop_results_free(&want_ydrop, 1);
	warpalign_ctx_destroy(ctx);
	fflush(stderr);
	dup2(stderr_copy, 2);
	rewind(err);
	n = fread(buf, 1, sizeof(buf) - 1, err);
	if (n > 0) {
		buf[n] = '\0';
		fprintf(stderr, "capi memory: stray output on stderr:\n%s", buf);
		return 1;
	}
	printf("capi memory: ok\n");
	return 0;
}
