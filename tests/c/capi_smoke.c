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

/* A LASTZ-like anchor loop through the y-drop schedule: anchors far apart on one sequence pair, no earlier
 * alignments; each call's result equals the batch call's. */
#define YD_LEN 4000
#define YD_ANCHORS 8
static int32_t yd_sub[256 * 256];
static uint8_t yd_seq1[YD_LEN + 1], yd_seq2[YD_LEN + 1], yd_rev1[YD_LEN + 1], yd_rev2[YD_LEN + 1];

static void yd_jobs(uint32_t a1, uint32_t a2, warpalign_ydrop_job jobs[2])
{
	int side;
	memset(jobs, 0, 2 * sizeof(jobs[0]));
	jobs[0].a = yd_rev1 + YD_LEN - 1 - a1, jobs[0].m = a1 + 1, jobs[0].b = yd_rev2 + YD_LEN - 1 - a2, jobs[0].n = a2 + 1;
	jobs[1].a = yd_seq1 + a1 + 1, jobs[1].m = YD_LEN - a1 - 1, jobs[1].b = yd_seq2 + a2 + 1, jobs[1].n = YD_LEN - a2 - 1;
	for (side = 0; side < 2; ++side) {
		jobs[side].sub = yd_sub, jobs[side].gap_open = 400, jobs[side].gap_extend = 30, jobs[side].y_drop = 9400;
		jobs[side].trim_to_peak = 1, jobs[side].reversed = side == 0, jobs[side].tb_size = 1 << 20;
	}
}

static uint32_t yd_pos(uint32_t k) { return 200 + 450 * k; }

static int32_t yd_anchor(void *ctx, uint32_t k, warpalign_ydrop_anchor *out)
{
	(void)ctx;
	out->pos1 = out->pos2 = yd_pos(k);
	yd_jobs(out->pos1, out->pos2, out->jobs);
	return 1;
}
static int32_t yd_know(void *ctx, uint32_t k) { (void)ctx, (void)k; return 1; }
static int32_t yd_bounds(void *ctx, int32_t of, int32_t reversed, uint32_t m, uint32_t depth, warpalign_ydrop_bounds *out)
{
	(void)ctx, (void)of, (void)reversed, (void)m, (void)depth, (void)out;
	return 0;
}
static int32_t yd_contains(void *ctx, const void *align, uint32_t pos1, uint32_t pos2)
{
	(void)ctx, (void)align, (void)pos1, (void)pos2;
	return 0;
}
static int32_t yd_covered(void *ctx, uint32_t pos1, uint32_t pos2) { (void)ctx, (void)pos1, (void)pos2; return 0; }
static int32_t yd_early_jobs(void *ctx, uint32_t pos1, uint32_t pos2, warpalign_ydrop_job *jobs)
{
	(void)ctx;
	yd_jobs(pos1, pos2, jobs);
	return 1;
}
static uint32_t yd_peak(void *ctx, uint32_t pos1, uint32_t pos2, uint32_t length)
{
	(void)ctx, (void)pos1, (void)pos2;
	return length / 2;
}

static void ydrop_schedule(void)
{
	warpalign_ydrop_host host = { NULL, yd_anchor, yd_know, yd_bounds, yd_contains, yd_covered, yd_early_jobs, yd_peak };
	warpalign_ydrop_schedule *s;
	uint32_t i;
	int side;
	for (i = 0; i < 256 * 256; ++i) yd_sub[i] = (i >> 8) == (i & 255) ? 91 : -114;
	for (i = 0; i < YD_LEN; ++i) yd_seq1[i] = yd_seq2[i] = (uint8_t)"ACGT"[(i * 7 + i / 5) % 4];
	for (i = 0; i < YD_LEN; i += 37) yd_seq2[i] = 'T' + 'A' - yd_seq2[i];
	for (i = 0; i < YD_LEN; ++i) yd_rev1[i] = yd_seq1[YD_LEN - 1 - i], yd_rev2[i] = yd_seq2[YD_LEN - 1 - i];
	host.covered = NULL;
	if (warpalign_ydrop_schedule_create(&host) != NULL) fail("ydrop schedule with a NULL callback");
	host.covered = yd_covered;
	setenv("WARPALIGN_YDROP_AHEAD", "8", 1); /* (the pool runs whatever the cores) */
	s = warpalign_ydrop_schedule_create(&host);
	if (s == NULL) fail("ydrop schedule");
	if (warpalign_ydrop_schedule_loop_begin(s, 1) != WARPALIGN_STATUS_OK) fail("ydrop loop begin");
	for (i = 0; i < YD_ANCHORS; ++i) {
		warpalign_ydrop_anchor a;
		yd_anchor(NULL, i, &a);
		if (warpalign_ydrop_schedule_ensure(s, i, YD_ANCHORS, &a) != WARPALIGN_STATUS_OK) fail("ydrop ensure");
		for (side = 0; side < 2; ++side) {
			warpalign_ydrop_result want, got;
			int32_t done = -1;
			if (warpalign_ydrop_batch(ctx, &a.jobs[side], 1, &want) != WARPALIGN_STATUS_OK) fail("ydrop batch");
			if (warpalign_ydrop_schedule_extend(s, &a.jobs[side], a.pos1, 0, &got, &done) != WARPALIGN_STATUS_OK
				|| done != 1) fail("ydrop extend");
			if (got.score != want.score || got.end1 != want.end1 || got.end2 != want.end2 || got.n_ops != want.n_ops
				|| memcmp(got.ops, want.ops, (size_t)got.n_ops * 4) != 0) {
				fprintf(stderr, "capi: ydrop schedule result %u/%d differs from the batch result\n", i, side);
				exit(1);
			}
			warpalign_ydrop_results_free(&want, 1);
		}
		if (warpalign_ydrop_schedule_inserted(s, &a, a.pos1, a.pos1 + 10, a.pos2, a.pos2 + 10) != WARPALIGN_STATUS_OK)
			fail("ydrop inserted");
	}
	if (warpalign_ydrop_schedule_loop_end(s) != WARPALIGN_STATUS_OK) fail("ydrop loop end");
	if (warpalign_ydrop_schedule_ensure(NULL, 0, 0, NULL) != WARPALIGN_STATUS_INVALID_ARGUMENT) fail("ydrop NULL schedule");
	warpalign_ydrop_schedule_destroy(s);
	warpalign_ydrop_schedule_destroy(NULL);
}

/* A variable set to a value it does not accept: every entry point that starts work refuses it, naming it. */
static void env_refused(void)
{
	const char *want = "WARPALIGN_KSW_GPU_CELLS=\"3\": expected a power of two from 4 to 64";
	if (warpalign_env_check() != WARPALIGN_STATUS_OK) fail("warpalign_env_check");
	setenv("WARPALIGN_KSW_GPU_CELLS", "3", 1);
	if (warpalign_env_check() != WARPALIGN_STATUS_INVALID_ARGUMENT || !strstr(warpalign_last_error(), want))
		fail("warpalign_env_check took WARPALIGN_KSW_GPU_CELLS=3");
	if (warpalign_ctx_create() != NULL || !strstr(warpalign_last_error(), want)) fail("warpalign_ctx_create took it");
	if (warpalign_ctx_create_cpu() != NULL || !strstr(warpalign_last_error(), want)) fail("warpalign_ctx_create_cpu took it");
	setenv("WARPALIGN_KSW_GPU_CELLS", " ", 1); /* empty: the default */
	if (warpalign_env_check() != WARPALIGN_STATUS_OK) fail("warpalign_env_check refused an empty value");
	unsetenv("WARPALIGN_KSW_GPU_CELLS");
}

int main(void)
{
	pthread_t th[N_THREADS];
	warpalign_anchor a[50];
	warpalign_chain_dp_job job;
	warpalign_chain_rmq_job rjob;
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
	/* the same anchors through mg_lchain_rmq (the asm presets' arguments): the same one chain */
	memset(&rjob, 0, sizeof(rjob));
	rjob.max_dist = 10000, rjob.max_dist_inner = 1000, rjob.bw = 1000, rjob.max_chn_skip = 25;
	rjob.cap_rmq_size = 100000, rjob.min_cnt = 3, rjob.min_sc = 40, rjob.chn_pen_gap = 0.8f;
	rjob.n_anchors = 50, rjob.anchors = a;
	if (warpalign_chain_rmq_batch(ctx, &rjob, 1, &res) != WARPALIGN_STATUS_OK) fail("chain rmq batch");
	if (res.n_chains != 1 || res.n_anchors != 50 || (uint32_t)res.chains[0] != 50) {
		fprintf(stderr, "capi: chain rmq: %d chains, %ld anchors\n", res.n_chains, (long)res.n_anchors);
		return 1;
	}
	warpalign_chain_dp_results_free(&res, 1);

	speculate();
	ydrop_schedule();
	env_refused();
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
