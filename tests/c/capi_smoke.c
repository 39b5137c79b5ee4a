/* Links libwarpalign.a through pkg-config and runs batches from several threads at once, as a C aligner
 * would. Exits 0 and prints "capi: ok" when every result is as expected. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <warpalign.h>

#define N_THREADS 4
#define N_JOBS 64

static warpalign_ctx *ctx;
static int8_t mat[25];
static uint8_t query[200], target[200];

static void fail(const char *what)
{
	fprintf(stderr, "capi: %s: %s\n", what, warpalign_last_error());
	exit(1);
}

/* Extends the query against a target that differs at one base: 199 matches, 1 mismatch. */
static void *extend(void *arg)
{
	warpalign_ksw_extd2_job jobs[N_JOBS];
	warpalign_ksw_result res[N_JOBS];
	int i;
	(void)arg;
	for (i = 0; i < N_JOBS; ++i) {
		warpalign_ksw_extd2_job j = { 200, query, 200, target, 5, mat, 4, 2, 24, 1, -1, 400, -1, 0 };
		jobs[i] = j;
	}
	if (warpalign_ksw_extd2_batch(ctx, jobs, N_JOBS, res) != WARPALIGN_STATUS_OK) fail("ksw batch");
	for (i = 0; i < N_JOBS; ++i) {
		/* ksw2 CIGAR: len<<4 | op, op 0 = M */
		if (res[i].score != 199 * 2 - 4 || res[i].n_cigar != 1 || res[i].cigar[0] != (200u << 4 | 0)) {
			fprintf(stderr, "capi: job %d: score %d, %d CIGAR ops\n", i, res[i].score, res[i].n_cigar);
			exit(1);
		}
	}
	warpalign_ksw_results_free(res, N_JOBS);
	return 0;
}

/* The speculation cache: a recorded call, once computed, is answered as a batch call answers it; the
 * answer's CIGAR is lent by the cache. Shifted target offsets make the calls distinct. */
static void speculate(void)
{
	warpalign_ksw_cache *cache = warpalign_ksw_cache_create();
	warpalign_ksw_cache_counters c;
	warpalign_ksw_extd2_job jobs[N_JOBS];
	warpalign_ksw_result got, want[N_JOBS];
	size_t n = 0;
	int i;
	for (i = 0; i < N_JOBS; ++i) {
		warpalign_ksw_extd2_job j = { 150, query, 150, target + i % 50, 5, mat, 4, 2, 24, 1, -1, 400, -1, 0 };
		jobs[i] = j;
		if (i % 50 < 20 && warpalign_ksw_cache_extd2(cache, &jobs[i], 1, &got) != 0) fail("cache knew a call before compute");
	}
	/* 20 computed ahead (as on a background thread), then the other 30 recorded and computed */
	if (warpalign_ksw_cache_compute_background(ctx, cache, &n) != WARPALIGN_STATUS_OK || n != 20) fail("cache compute ahead");
	for (i = 0; i < N_JOBS; ++i)
		if (warpalign_ksw_cache_extd2(cache, &jobs[i], 1, &got) != (i % 50 < 20)) fail("cache answer after computing ahead");
	if (warpalign_ksw_cache_compute(ctx, cache, &n) != WARPALIGN_STATUS_OK || n != 30) fail("cache compute");
	if (warpalign_ksw_extd2_batch(ctx, jobs, N_JOBS, want) != WARPALIGN_STATUS_OK) fail("ksw batch");
	for (i = 0; i < N_JOBS; ++i) {
		if (warpalign_ksw_cache_extd2(cache, &jobs[i], 0, &got) != 1) fail("cache lost a call");
		if (got.score != want[i].score || got.max != want[i].max || got.n_cigar != want[i].n_cigar
			|| memcmp(got.cigar, want[i].cigar, (size_t)got.n_cigar * 4) != 0) {
			fprintf(stderr, "capi: cache answer %d differs from the batch result\n", i);
			exit(1);
		}
	}
	warpalign_ksw_results_free(want, N_JOBS);
	warpalign_ksw_cache_clear(cache);
	warpalign_ksw_cache_stats(cache, &c);
	if (c.recorded != 50 || c.hits != N_JOBS || c.misses != 0 || c.unused != 0) fail("cache counters");
	warpalign_ksw_cache_destroy(cache);
}

/* Y-drop extensions computed ahead by the worker pool: each one a worker ran equals the batch call's result
 * and a call without earlier alignments accepts it. */
static void ydrop_ahead(void)
{
	static int32_t sub[256 * 256];
	static uint8_t a[300], b[301];
	warpalign_ydrop_ahead *pool = warpalign_ydrop_ahead_create(2);
	warpalign_ydrop_job job;
	warpalign_ydrop_result want, got;
	warpalign_ydrop_envelope *env;
	uint64_t t[8];
	int i;
	if (pool == NULL) fail("ydrop ahead pool");
	warpalign_ydrop_ahead_adopt_scratch(pool); /* (may find it not ready yet: it never waits) */
	warpalign_ydrop_ahead_adopt_scratch(NULL);
	for (i = 0; i < 256 * 256; ++i) sub[i] = (i >> 8) == (i & 255) ? 91 : -114;
	for (i = 0; i < 300; ++i) a[i] = b[i] = (uint8_t)"ACGT"[i * 7 % 4];
	a[150] = 'T' + 'A' - a[150];
	memset(&job, 0, sizeof(job));
	job.a = a, job.m = 300, job.b = b, job.n = 300, job.sub = sub;
	job.gap_open = 400, job.gap_extend = 30, job.y_drop = 9400, job.trim_to_peak = 1, job.tb_size = 1 << 20;
	if (warpalign_ydrop_batch(ctx, &job, 1, &want) != WARPALIGN_STATUS_OK) fail("ydrop batch");
	for (i = 0; i < 8; ++i)
		if (warpalign_ydrop_ahead_submit(pool, &job, (uint64_t)i, &t[i]) != WARPALIGN_STATUS_OK) fail("ydrop submit");
	for (i = 0; i < 8; ++i) {
		int32_t kept_ahead = -1;
		int64_t rows_ahead = -1;
		if (warpalign_ydrop_ahead_finished(pool, t[i])) {
			/* a finished job's rows, before it is taken, are its envelope's */
			rows_ahead = warpalign_ydrop_ahead_rows(pool, t[i], &kept_ahead);
			if (rows_ahead < 0) fail("ydrop rows of a finished job");
		}
		if (warpalign_ydrop_ahead_take(pool, t[i], &got, &env) != WARPALIGN_STATUS_OK) fail("ydrop take");
		if (warpalign_ydrop_ahead_rows(pool, t[i], NULL) != -1) fail("ydrop rows of a taken job");
		if (env == NULL) continue; /* no worker had started it */
		if (got.score != want.score || got.end1 != want.end1 || got.end2 != want.end2 || got.n_ops != want.n_ops
			|| memcmp(got.ops, want.ops, (size_t)got.n_ops * 4) != 0) {
			fprintf(stderr, "capi: ydrop job computed ahead differs from the batch result\n");
			exit(1);
		}
		if (warpalign_ydrop_unaffected(env, &job) != 1) fail("ydrop result computed ahead rejected");
		{ /* unconstrained: no kept bounds; the sweep entered at least the extension's rows */
			int32_t kept = -1;
			uint32_t rows = warpalign_ydrop_envelope_rows(env, &kept);
			if (kept != 0 || rows < got.end1 || rows > job.m) fail("ydrop envelope rows");
			if (rows_ahead >= 0 && (rows_ahead != rows || kept_ahead != kept)) fail("ydrop rows before the take");
		}
		warpalign_ydrop_results_free(&got, 1);
		warpalign_ydrop_envelopes_free(&env, 1);
	}
	{ /* a job dropped before it started is gone; a started or taken one is left as it is */
		uint64_t late;
		if (warpalign_ydrop_ahead_submit(pool, &job, 0, &late) != WARPALIGN_STATUS_OK) fail("ydrop submit");
		if (warpalign_ydrop_ahead_cancel_queued(pool, late) == 1) {
			if (warpalign_ydrop_ahead_take(pool, late, &got, &env) == WARPALIGN_STATUS_OK) fail("ydrop take of a dropped job");
		} else {
			if (warpalign_ydrop_ahead_take(pool, late, &got, &env) != WARPALIGN_STATUS_OK) fail("ydrop take of a started job");
			warpalign_ydrop_results_free(&got, 1);
			warpalign_ydrop_envelopes_free(&env, 1);
		}
		if (warpalign_ydrop_ahead_cancel_queued(pool, t[0]) != 0) fail("ydrop cancel_queued of a taken job");
		if (warpalign_ydrop_ahead_cancel_queued(NULL, 0) != 0) fail("ydrop cancel_queued of a NULL pool");
	}
	if (warpalign_ydrop_envelope_rows(NULL, NULL) != 0) fail("ydrop envelope rows of NULL");
	if (warpalign_ydrop_ahead_rows(NULL, 0, NULL) != -1) fail("ydrop rows of a NULL pool");
	warpalign_ydrop_results_free(&want, 1);
	warpalign_ydrop_ahead_destroy(pool);
}

int main(void)
{
	pthread_t th[N_THREADS];
	warpalign_anchor a[50];
	warpalign_chain_dp_job job;
	warpalign_chain_dp_result res;
	int i, j;

	ctx = warpalign_ctx_create();
	if (ctx == NULL) fail("warpalign_ctx_create");
	for (i = 0; i < 5; ++i)
		for (j = 0; j < 5; ++j)
			mat[i * 5 + j] = i == 4 || j == 4 ? -1 : i == j ? 2 : -4;
	for (i = 0; i < 200; ++i) query[i] = target[i] = (uint8_t)(i * 7 % 4);
	target[100] = (uint8_t)((target[100] + 1) % 4);

	for (i = 0; i < N_THREADS; ++i) pthread_create(&th[i], 0, extend, 0);
	for (i = 0; i < N_THREADS; ++i) pthread_join(th[i], 0);

	/* 50 colinear anchors of span 15 every 20 bases make one chain of all of them. */
	for (i = 0; i < 50; ++i) a[i].x = 1000 + 20 * i, a[i].y = (uint64_t)15 << 32 | (uint64_t)(20 * i);
	memset(&job, 0, sizeof(job));
	job.max_dist_x = job.max_dist_y = 5000, job.bw = 500, job.max_skip = 25, job.max_iter = 5000;
	job.min_cnt = 3, job.min_sc = 40, job.chn_pen_gap = 0.8f, job.n_seg = 1;
	job.n_anchors = 50, job.anchors = a;
	if (warpalign_chain_dp_batch(ctx, &job, 1, &res) != WARPALIGN_STATUS_OK) fail("chain batch");
	if (res.n_chains != 1 || res.n_anchors != 50 || (uint32_t)res.chains[0] != 50) {
		fprintf(stderr, "capi: chain: %d chains, %ld anchors\n", res.n_chains, (long)res.n_anchors);
		return 1;
	}
	warpalign_chain_dp_results_free(&res, 1);

	speculate();
	ydrop_ahead();
	if (warpalign_ksw_extd2_batch(NULL, NULL, 0, NULL) != WARPALIGN_STATUS_INVALID_ARGUMENT) fail("null context accepted");
	printf("capi: ok (warpalign %s, %s backend, %d threads x %d jobs)\n", warpalign_version(),
	       warpalign_ctx_backend(ctx) == WARPALIGN_BACKEND_GPU ? "GPU" : "CPU", N_THREADS, N_JOBS);
	warpalign_ctx_destroy(ctx);
	/* as a tool ends: no thread may be inside the GPU driver when its exit handlers run; after it, GPU work
	 * runs on the CPU with the same results */
	warpalign_shutdown();
	warpalign_shutdown();
	ctx = warpalign_ctx_create();
	if (ctx == NULL || warpalign_ctx_backend(ctx) != WARPALIGN_BACKEND_CPU) fail("a context made after warpalign_shutdown is not on the CPU");
	warpalign_ctx_destroy(ctx);
	return 0;
}
