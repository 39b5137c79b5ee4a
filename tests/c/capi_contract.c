/* The C API's argument contract: jobs outside it are refused with WARPALIGN_STATUS_INVALID_ARGUMENT and a
 * message before any work, never crash the host nor write to its stderr; warpalign_last_error() is "" after
 * a call that succeeded; the ksw cache refuses a bad call when it is recorded, so that computing the others
 * succeeds; packed anchors unpack only as the anchors they hold; the index's sketch refuses bad w, k, threads and
 * sequences; the HSP search refuses bad options and
 * sequences. Exits 0 and prints "capi contract: ok". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <warpalign.h>

static warpalign_ctx *ctx;
static int8_t mat[25];
static uint8_t query[200], target[200];
static int32_t sub[256 * 256];
static uint8_t ya[1001], yb[1001];
static int stderr_copy;

static void fail(const char *what)
{
	dup2(stderr_copy, 2);
	fprintf(stderr, "capi contract: %s (last error: \"%s\")\n", what, warpalign_last_error());
	exit(1);
}

/* A refusal: the status, and a message naming the call and the fault. */
static void refused(int st, const char *what, const char *needle)
{
	if (st != WARPALIGN_STATUS_INVALID_ARGUMENT) fail(what);
	if (strstr(warpalign_last_error(), needle) == NULL) fail(what);
}

static void succeeded(int st, const char *what)
{
	if (st != WARPALIGN_STATUS_OK || warpalign_last_error()[0] != '\0') fail(what);
}

static warpalign_ksw_extd2_job extd2(void)
{
	warpalign_ksw_extd2_job j = { 200, query, 200, target, 5, mat, 4, 2, 24, 1, -1, 400, -1, 0 };
	return j;
}

static warpalign_ydrop_job ydrop(void)
{
	warpalign_ydrop_job j;
	memset(&j, 0, sizeof(j));
	j.a = ya, j.m = 1000, j.b = yb, j.n = 1000, j.sub = sub;
	j.gap_open = 400, j.gap_extend = 30, j.y_drop = 9400, j.trim_to_peak = 1, j.tb_size = 1 << 20;
	return j;
}

static void ksw_jobs(void)
{
	warpalign_ksw_extd2_job d[3];
	warpalign_ksw_extz2_job z = { 200, query, 200, target, 5, mat, 4, 2, -1, 400, -1, 0 };
	warpalign_ksw_exts2_job s = { 200, query, 200, target, 5, mat, 4, 2, 24, 0, 400, -1, 0, 0, 0, NULL };
	warpalign_ksw_result r[3];

	d[0] = extd2(), d[0].w = INT32_MAX;
	refused(warpalign_ksw_extd2_batch(ctx, d, 1, r), "extd2 w = INT32_MAX", "band");
	d[0] = extd2(), d[0].qlen = -1;
	refused(warpalign_ksw_extd2_batch(ctx, d, 1, r), "extd2 negative qlen", "negative length");
	d[0] = extd2(), d[0].tlen = -7;
	refused(warpalign_ksw_extd2_batch(ctx, d, 1, r), "extd2 negative tlen", "negative length");
	d[0] = extd2(), d[0].m = 1;
	refused(warpalign_ksw_extd2_batch(ctx, d, 1, r), "extd2 m = 1", "alphabet size 1");
	d[0] = extd2(), d[0].zdrop = INT32_MAX;
	refused(warpalign_ksw_extd2_batch(ctx, d, 1, r), "extd2 zdrop = INT32_MAX", "zdrop");
	d[0] = extd2(), d[0].end_bonus = INT32_MIN;
	refused(warpalign_ksw_extd2_batch(ctx, d, 1, r), "extd2 end_bonus = INT32_MIN", "end_bonus");
	d[0] = extd2(), d[0].query = NULL;
	refused(warpalign_ksw_extd2_batch(ctx, d, 1, r), "extd2 NULL query", "null sequence");
	/* one bad job fails the batch before any work, named by its index */
	d[0] = d[2] = extd2(), d[1] = extd2(), d[1].w = INT32_MAX - 100;
	refused(warpalign_ksw_extd2_batch(ctx, d, 3, r), "extd2 batch with a bad job", "ksw job 1:");
	d[1].w = 100;
	succeeded(warpalign_ksw_extd2_batch(ctx, d, 3, r), "extd2 batch after a refusal");
	warpalign_ksw_results_free(r, 3);

	s.e = 0;
	refused(warpalign_ksw_exts2_batch(ctx, &s, 1, r), "exts2 e = 0", "e = 0");
	s.e = 2, s.flag = 0x100 | 0x200; /* KSW_EZ_SPLICE_FOR | KSW_EZ_SPLICE_REV */
	refused(warpalign_ksw_exts2_batch(ctx, &s, 1, r), "exts2 both splice strands", "SPLICE_FOR");
	s.flag = 0x100;
	succeeded(warpalign_ksw_exts2_batch(ctx, &s, 1, r), "exts2");
	warpalign_ksw_results_free(r, 1);

	z.flag = 0x04; /* KSW_EZ_GENERIC_SC: bases index the m*m matrix */
	query[50] = 9;
	refused(warpalign_ksw_extz2_batch(ctx, &z, 1, r), "extz2 GENERIC_SC base past m", "GENERIC_SC");
	query[50] = 2;
	succeeded(warpalign_ksw_extz2_batch(ctx, &z, 1, r), "extz2 GENERIC_SC");
	warpalign_ksw_results_free(r, 1);
}

static void ydrop_jobs(void)
{
	warpalign_ydrop_job j = ydrop();
	warpalign_ydrop_result r;
	j.gap_open = j.gap_extend = INT32_MAX;
	refused(warpalign_ydrop_batch(ctx, &j, 1, &r), "ydrop gap_open = gap_extend = INT32_MAX", "gap_open");
	j = ydrop(), j.gap_extend = -1;
	refused(warpalign_ydrop_batch(ctx, &j, 1, &r), "ydrop negative gap_extend", "gap_extend");
	j = ydrop(), j.gap_open = 214748365 - 29;
	refused(warpalign_ydrop_batch(ctx, &j, 1, &r), "ydrop gap_open + gap_extend past negInfinity's room", "gap_open");
	j = ydrop(), j.y_drop = -1;
	refused(warpalign_ydrop_batch(ctx, &j, 1, &r), "ydrop negative y_drop", "y_drop");
	j = ydrop(), j.gap_extend = 1, j.y_drop = INT32_MAX;
	refused(warpalign_ydrop_batch(ctx, &j, 1, &r), "ydrop yDropTail overflow", "y_drop");
	j = ydrop(), j.gap_open = 214748365 - 30; /* the largest accepted */
	succeeded(warpalign_ydrop_batch(ctx, &j, 1, &r), "ydrop at the edge of the contract");
	warpalign_ydrop_results_free(&r, 1);
}

/* Bad calls refused at record time (-1) are never recorded: compute succeeds and answers every good call. */
static void cache(void)
{
	warpalign_ksw_cache *c = warpalign_ksw_cache_create();
	warpalign_ksw_extd2_job good[3], bad[3];
	warpalign_ksw_result got, want;
	size_t n = 0;
	int i;
	for (i = 0; i < 3; ++i) good[i] = bad[i] = extd2(), good[i].tlen = 150 + i;
	bad[0].query = NULL, bad[1].w = INT32_MAX, bad[2].mat = NULL;
	for (i = 0; i < 3; ++i) {
		if (warpalign_ksw_cache_extd2(c, &good[i], 1, &got) != 0 || warpalign_last_error()[0] != '\0') fail("cache record");
		if (warpalign_ksw_cache_extd2(c, &bad[i], 1, &got) != -1 || strstr(warpalign_last_error(), "lookup") == NULL)
			fail("cache recorded a call outside the contract");
	}
	succeeded(warpalign_ksw_cache_compute(ctx, c, &n), "cache compute beside refused calls");
	if (n != 3) fail("cache computed other than the 3 good calls");
	for (i = 0; i < 3; ++i) {
		if (warpalign_ksw_cache_extd2(c, &good[i], 0, &got) != 1) fail("cache lost a good call");
		if (warpalign_ksw_extd2_batch(ctx, &good[i], 1, &want) != WARPALIGN_STATUS_OK || got.score != want.score)
			fail("cache answer differs from the batch call");
		warpalign_ksw_results_free(&want, 1);
	}
	warpalign_ksw_cache_destroy(c);
}

/* Packed anchors come back as they were; bytes that do not hold the anchors asked for are refused. */
static void anchors(void)
{
	warpalign_anchor a[3] = { { 1ULL << 63 | 5ULL << 32 | 1000, 15ULL << 32 | 20 }, { 1ULL << 63 | 5ULL << 32 | 1011, 15ULL << 32 | 31 }, { 3, ~0ULL } }, back[4];
	uint8_t *packed = (uint8_t*)1;
	size_t len = 1;
	succeeded(warpalign_anchors_pack(a, 0, &packed, &len), "pack no anchors");
	if (packed != NULL || len != 0) fail("no anchors packed into bytes");
	succeeded(warpalign_anchors_pack(a, 3, &packed, &len), "pack anchors");
	succeeded(warpalign_anchors_unpack(packed, len, back, 3), "unpack anchors");
	if (memcmp(a, back, sizeof(a)) != 0) fail("anchors changed by packing");
	refused(warpalign_anchors_unpack(packed, len, back, 4), "unpack too many", "are not 4 packed anchors");
	refused(warpalign_anchors_unpack(packed, len - 1, back, 3), "unpack cut bytes", "packed anchors");
	refused(warpalign_anchors_pack(NULL, 3, &packed, &len), "pack NULL anchors", "null");
	free(packed);
}

/* The index's sketch by threads: minimizers of two sequences in turn (the second's rid in their y); w, k, thread
 * counts and sequences outside the contract refused, the outputs cleared. */
static void sketch(void)
{
	static char s1[3000], s2[500];
	const char *seqs[2] = { s1, s2 }, *bad[2] = { s1, NULL };
	int32_t lens[2] = { sizeof(s1), sizeof(s2) }, empty[2] = { sizeof(s1), 0 };
	uint32_t rids[2] = { 0, 9 };
	warpalign_anchor *m = (warpalign_anchor*)1;
	size_t n = 1, i;
	for (i = 0; i < sizeof(s1); ++i) s1[i] = "ACGT"[(i * 7 + i / 3) % 4];
	for (i = 0; i < sizeof(s2); ++i) s2[i] = "ACGT"[(i * 5 + i / 7) % 4];
	succeeded(warpalign_seed_sketch(seqs, lens, rids, 2, 10, 15, 0, 4, &m, &n), "sketch two sequences");
	if (m == NULL || n < 2 || m[n - 1].y >> 32 != 9 || m[0].y >> 32 != 0) fail("sketch: minimizers and rids");
	free(m);
	refused(warpalign_seed_sketch(seqs, lens, rids, 2, 0, 15, 0, 4, &m, &n), "sketch w 0", "w 0");
	if (m != NULL || n != 0) fail("sketch: outputs not cleared on a refusal");
	refused(warpalign_seed_sketch(seqs, lens, rids, 2, 10, 29, 0, 4, &m, &n), "sketch k 29", "k 29");
	refused(warpalign_seed_sketch(seqs, lens, rids, 2, 10, 15, 0, 0, &m, &n), "sketch no threads", "n_threads");
	refused(warpalign_seed_sketch(seqs, empty, rids, 2, 10, 15, 0, 4, &m, &n), "sketch an empty sequence", "sequence 1");
	refused(warpalign_seed_sketch(bad, lens, rids, 2, 10, 15, 0, 4, &m, &n), "sketch a NULL sequence", "sequence 1");
	refused(warpalign_seed_sketch(seqs, lens, NULL, 2, 10, 15, 0, 4, &m, &n), "sketch NULL rids", "null");
	refused(warpalign_seed_sketch(seqs, lens, rids, 2, 10, 15, 0, 4, NULL, &n), "sketch NULL out", "null");
}

/* warpalign_last_error() is "" after any call that succeeded, whatever failed before it. */
/* The HSP search: bad options, empty sequences and NULLs refused, the outputs cleared; a query equal to its
 * target has HSPs. */
static void search(void)
{
	warpalign_search_options o;
	warpalign_search_target *t = NULL;
	warpalign_hsp dummy, *h = &dummy;
	size_t n = 1;
	memset(&o, 0, sizeof(o));
	o.seed = "1110100110010101111", o.with_trans = 1, o.step = 1, o.x_drop = 910, o.hsp_threshold = 3000;
	o.entropic = 1, o.filter_min_matches = -1, o.filter_max_transversions = -1, o.scores = sub;
	refused(warpalign_search_target_create(&o, ya, 0, &t), "search empty target", "target of 0 bytes");
	if (t != NULL) fail("search target made on a refusal");
	o.seed = "11Q1";
	refused(warpalign_search_target_create(&o, ya, 1000, &t), "search seed of an unknown character", "seed");
	o.seed = "1110100110010101111", o.resolving_mask = 1;
	refused(warpalign_search_target_create(&o, ya, 1000, &t), "search resolving a low bit", "Unresolvable");
	o.resolving_mask = 0;
	o.seed = "111111111111111";
	refused(warpalign_search_target_create(&o, ya, 1000, &t), "search seed over 28 bits", "Overweight");
	o.seed = "1110100110010101111", o.step = 0;
	refused(warpalign_search_target_create(&o, ya, 1000, &t), "search step 0", "step");
	o.step = 1, o.x_drop = -1;
	refused(warpalign_search_target_create(&o, ya, 1000, &t), "search negative x-drop", "x-drop");
	o.x_drop = 910, o.scores = NULL;
	refused(warpalign_search_target_create(&o, ya, 1000, &t), "search NULL matrix", "score matrix");
	o.scores = sub, o.extension = 2, o.mismatches = 0;
	refused(warpalign_search_target_create(&o, ya, 1000, &t), "search mismatches without a count", "extension");
	o.extension = 5, o.mismatches = 1;
	refused(warpalign_search_target_create(&o, ya, 1000, &t), "search extension 5", "extension");
	o.extension = 0, o.mismatches = 0;
	succeeded(warpalign_search_target_create(&o, ya, 1000, &t), "search target");
	refused(warpalign_search_strand(t, yb, 0, &h, &n), "search empty query", "query of 0 bytes");
	if (h != NULL || n != 0) fail("search outputs left set on a refusal");
	refused(warpalign_search_strand(NULL, yb, 1000, &h, &n), "search NULL target", "null search");
	succeeded(warpalign_search_strand(t, yb, 1000, &h, &n), "search strand");
	if (h == NULL || n == 0) fail("search found nothing in a query equal to its target");
	warpalign_search_hsps_free(h);
	/* --self on the target's own strand: the main diagonal (the query's only HSP above) is skipped */
	refused(warpalign_search_self_strand(NULL, ya, 1000, 0, &h, &n), "self search NULL target", "null search");
	if (h != NULL || n != 0) fail("self search outputs left set on a refusal");
	succeeded(warpalign_search_self_strand(t, ya, 1000, 0, &h, &n), "self search strand");
	for (size_t i = 0; i < n; ++i)
		if (h[i].pos1 >= h[i].pos2) fail("self search kept a hit on or below the main diagonal");
	warpalign_search_hsps_free(h);
	/* LASTZ's dynamic masking and a [multiple] target's partitions: NULLs and what lies outside the target
	 * refused; the whole target masked leaves no HSP */
	{
		uint32_t from0[2] = { 0, 5 }, past[2] = { 990, 1001 }, all[2] = { 1, 1000 }, parts[4] = { 0, 600, 500, 1000 };
		refused(warpalign_search_target_mask(NULL, all, 1), "mask NULL target", "null search");
		refused(warpalign_search_target_mask(t, NULL, 1), "mask NULL intervals", "null intervals");
		refused(warpalign_search_target_mask(t, from0, 1), "mask an interval from 0", "outside the target");
		refused(warpalign_search_target_mask(t, past, 1), "mask an interval past the end", "outside the target");
		refused(warpalign_search_target_partitions(NULL, parts, 2), "partitions NULL target", "null search");
		refused(warpalign_search_target_partitions(t, NULL, 2), "partitions NULL", "null seps");
		refused(warpalign_search_target_partitions(t, parts, 2), "partitions overlapping", "out of order");
		succeeded(warpalign_search_target_mask(t, all, 1), "mask the whole target");
		succeeded(warpalign_search_strand(t, yb, 1000, &h, &n), "search the masked target");
		if (n != 0) fail("HSPs found in a target masked whole");
		warpalign_search_hsps_free(h);
	}
	warpalign_search_target_destroy(t);
}

static void last_error(void)
{
	warpalign_ksw_result r;
	refused(warpalign_ksw_extd2_batch(NULL, NULL, 0, NULL), "NULL context", "null context");
	(void)warpalign_version();
	if (warpalign_last_error()[0] != '\0') fail("last error kept after warpalign_version");
	refused(warpalign_ksw_extd2_batch(NULL, NULL, 0, NULL), "NULL context", "null context");
	(void)warpalign_ctx_backend(ctx);
	if (warpalign_last_error()[0] != '\0') fail("last error kept after warpalign_ctx_backend");
	refused(warpalign_ksw_extd2_batch(NULL, NULL, 0, NULL), "NULL context", "null context");
	succeeded(warpalign_ksw_extd2_batch(ctx, NULL, 0, &r), "empty batch");
}

int main(void)
{
	FILE *err = tmpfile();
	char buf[4096];
	size_t len;
	int i;
	for (i = 0; i < 25; ++i) mat[i] = i / 5 == 4 || i % 5 == 4 ? -1 : i / 5 == i % 5 ? 2 : -4;
	for (i = 0; i < 200; ++i) query[i] = target[i] = (uint8_t)(i * 7 % 4);
	for (i = 0; i < 256 * 256; ++i) sub[i] = (i >> 8) == (i & 255) ? 91 : -114;
	for (i = 0; i < 1000; ++i) ya[i] = yb[i] = (uint8_t)"ACGT"[(i * 7 + i / 5) % 4];

	/* everything the library writes to stderr lands in err: a refusal must write nothing */
	stderr_copy = dup(2);
	if (err == NULL || stderr_copy < 0 || dup2(fileno(err), 2) < 0) return 1;
	ctx = warpalign_ctx_create_cpu();
	ksw_jobs();
	ydrop_jobs();
	cache();
	anchors();
	sketch();
	search();
	last_error();
	warpalign_ctx_destroy(ctx);
	fflush(stderr);
	dup2(stderr_copy, 2);
	rewind(err);
	len = fread(buf, 1, sizeof(buf) - 1, err);
	if (len > 0) {
		buf[len] = '\0';
		fprintf(stderr, "capi contract: stray output on stderr:\n%s", buf);
		return 1;
	}
	printf("capi contract: ok\n");
	return 0;
}
