/* warpalign glue for minimap2.
 *
 * Every wrapper runs its call as a one-job warpalign batch and then writes the caller's outputs exactly
 * as the upstream function would have left them:
 *
 * - ksw_ext{d,s,z}2_sse() start with ksw_reset_extz() (all scalar fields and n_cigar), and only ever
 *   touch ez->cigar/ez->m_cigar through ksw_push_cigar(), which grows the km buffer by doubling (4 when
 *   empty) and never shrinks or frees it. The wrappers set every scalar field from the result and, when
 *   the result has a CIGAR, grow ez->cigar along the same doubling sequence with krealloc(km) and copy
 *   it in; with no CIGAR (score only, early return, zdrop before any cell) cigar/m_cigar are untouched.
 * - mg_lchain_dp() frees its input a[] (km) and returns km-allocated chains u[] and compacted anchors;
 *   with no chain it returns NULL with *_u == NULL (kmalloc(km, 0) is NULL) and *n_u_ == 0.
 *
 * Speculative batching (mmw_batch_*): within one batch of reads (worker_pipeline step 1) the reads are
 * mapped in several passes of minimap2's own kt_for:
 *   1. first pass: seeding and chaining
 *      as upstream; mm_map_frag_core saves its state where alignment starts (regions, anchors, rep_len,
 *      frag_gap; mmw_frag_snapshot) and goes on with upstream's alignment code in record mode: every ksw
 *      call is looked up in a warpalign speculation cache, unknown ones are recorded and answered by a
 *      stand-in (no extension / an ungapped-then-gap CIGAR, no Z-drop, and no Z-drop test on it). The
 *      outputs are thrown away. Each time another slice of the batch's bases is through, a background
 *      thread takes what was recorded so far and computes it on the GPU while the threads record the rest;
 *      at the end the GPU and the CPU compute what is left, the GPU's share less what it still has to do;
 *   2. record rounds: each read that met an unknown call resumes from its snapshot (mmw_frag_resume) and
 *      runs the alignment code again, finding the calls that depended on real answers (second passes,
 *      split regions, inversions), computed as one batch per round;
 *   3. final pass: each read resumes once more and runs upstream's code unchanged, every ksw call
 *      answered from the cache or, for the rare unknown one, computed on the spot. The output is therefore
 *      upstream's: every answer is the exact result for exactly the call's bytes.
 * Batched chaining (mmw_chain_*) adds a seed pass before these: each read is seeded as upstream and stops at
 * its first mg_lchain_dp call, which is saved with the state the rest of mm_map_frag_core needs (minimizers,
 * anchors, rep_len, mini_pos); the batch's calls then run as one batch call, on the GPU when there is one;
 * the next pass (the first, or the final one without ksw speculation, e.g. without -c) resumes each read
 * there, and its mg_lchain_dp call takes the batch's answer when it is the very same call (every argument
 * and anchor compared). Later calls (the short-read re-chain) run on the spot.
 * Passes 1 and 2 run in minimap2's mapping step. Without record rounds, what is left when the first pass
 * ends goes to the thread computing ahead at once, and the output step (mmw_batch_final), which begins only
 * once the batch before has been written, waits for it and runs the final pass: the GPU's last work of a
 * batch overlaps the final pass of the batch before and the CPU's first pass of the next. Each batch in flight has a speculation cache of its own.
 * The engine context of speculation rounds is process-wide, started in the background while the first
 * batch is seeded and chained; a CPU one runs single chaining calls (and single ksw calls while the engine
 * dumps its jobs: otherwise they run upstream's own ksw2). Any engine failure is
 * fatal: minimap2 must never print anything different from upstream, so we stop instead of guessing. */

#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <malloc.h>
#include "mmpriv.h"
#include <warpalign.h>
#include "kalloc.h"
#include "warpalign_mm2.h"

typedef char mmw_anchor_layout_check[sizeof(warpalign_anchor) == sizeof(mm128_t) && sizeof(mm128_t) == 16? 1 : -1];

static warpalign_ctx *mmw_ctx;     /* WARPALIGN_BACKEND's choice: batches of a speculation round */
static warpalign_ctx *mmw_cpu_ctx; /* one call at a time: chaining, and ksw calls while they are dumped */
static pthread_once_t mmw_ctx_once = PTHREAD_ONCE_INIT, mmw_cpu_ctx_once = PTHREAD_ONCE_INIT;

static void mmw_die(const char *msg)
{
	fprintf(stderr, "[ERROR] warpalign: %s\n", msg && *msg? msg : "unknown error");
	exit(1);
}

static void mmw_ctx_init(void)
{
	mmw_ctx = warpalign_ctx_create();
	if (mmw_ctx == 0) mmw_die(warpalign_last_error());
}

static const warpalign_ctx *mmw_get_ctx(void)
{
	pthread_once(&mmw_ctx_once, mmw_ctx_init);
	return mmw_ctx;
}

static void mmw_cpu_ctx_init(void)
{
	mmw_cpu_ctx = warpalign_ctx_create_cpu();
}

static const warpalign_ctx *mmw_get_cpu_ctx(void)
{
	pthread_once(&mmw_cpu_ctx_once, mmw_cpu_ctx_init);
	return mmw_cpu_ctx;
}


static void mmw_check(warpalign_status st)
{
	if (st != WARPALIGN_STATUS_OK) mmw_die(warpalign_last_error());
}

void mmw_version_note(void)
{
	fprintf(stderr, "[M::warpalign] version %s\n", warpalign_version());
}

/* The CUDA driver registers exit handlers while the GPU starts (in its thread), and those run first: an
 * exit while another thread is inside the driver hangs or aborts. warpalign_shutdown_for_exit() waits for
 * batches on the GPU and keeps it out from then on; a start still in flight (a run too short to use the
 * GPU) it abandons, ending the process itself. minimap2 is linked with -Wl,--wrap=exit, so that every
 * exit() calls it first, and main() calls mmw_exit_ready() before it returns 0. */
void mmw_exit_ready(void)
{
	warpalign_shutdown_for_exit(0);
}

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status)
{
	warpalign_shutdown_for_exit(status);
	__real_exit(status);
}

/* Copies a result into ez as ksw would have left it (the result keeps its CIGAR). */
static void mmw_ksw_copy(void *km, const warpalign_ksw_result *r, ksw_extz_t *ez)
{
	if (r->n_cigar < 0 || (r->n_cigar > 0 && r->cigar == 0))
		mmw_die("ksw result with an invalid CIGAR");
	ez->max = r->max, ez->zdropped = !!r->zdropped;
	ez->max_q = r->max_q, ez->max_t = r->max_t;
	ez->mqe = r->mqe, ez->mqe_t = r->mqe_t;
	ez->mte = r->mte, ez->mte_q = r->mte_q;
	ez->score = r->score;
	ez->reach_end = r->reach_end;
	ez->n_cigar = r->n_cigar;
	if (r->n_cigar > 0) {
		int m = ez->m_cigar;
		while (m < r->n_cigar) m = m? m << 1 : 4; /* ksw_push_cigar()'s growth */
		if (m != ez->m_cigar) {
			ez->m_cigar = m;
			ez->cigar = (uint32_t*)krealloc(km, ez->cigar, (size_t)m << 2);
		}
		memcpy(ez->cigar, r->cigar, (size_t)r->n_cigar * sizeof(uint32_t));
	}
}

/* ---- speculative batching (see the top of this file) ---- */

#define MMW_MAX_ROUNDS 6      /* record rounds; what a later round would still find is computed on the spot */
#define MMW_MAX_SLICES 16     /* hand-offs of the first pass's calls to the GPU, plus one */
#define MMW_SLICE_BASES 8e6   /* and at least this many read bases per slice, */
#define MMW_MIN_SLICES 4      /* except that a smaller batch still gets this many slices */
#define MMW_MIN_SLICE_BASES 1e6 /* of at least this many bases: the GPU computes during its first pass too */

enum { MMW_PASS_SEED, MMW_PASS_FIRST, MMW_PASS_RECORD, MMW_PASS_FINAL };
typedef enum { MMW_EXTD2, MMW_EXTS2, MMW_EXTZ2 } mmw_kind_t;

typedef struct { /* mm_map_frag_core's state where alignment starts */
	int n_regs, rep_len, frag_gap;
	int64_t n_a;
	mm_reg1_t *regs;
	uint8_t *a_packed;            /* the n_a anchors, packed (warpalign_anchors_pack): most of the snapshot */
	size_t a_len;
} mmw_snap_t;

typedef struct { /* mm_map_frag_core's state where chaining starts, its mg_lchain_dp call and the answer */
	mm128_v mv;                   /* minimizers (a malloc'ed copy): a short-read re-chain seeds from them again */
	int rep_len, n_mini_pos;
	uint64_t *mini_pos;           /* malloc'ed copy */
	warpalign_chain_dp_job job;   /* its anchors: a malloc'ed copy of a[], also the state to resume with */
	warpalign_chain_dp_result res;
} mmw_seeds_t;

typedef struct { /* one fragment (read or read pair) of the batch */
	int n_snap, m_snap, missed;
	mmw_snap_t *snap;
	int n_seeds, m_seeds;         /* one per mm_map_frag_core call that reached chaining in the seed pass */
	mmw_seeds_t *seeds;
} mmw_frag_t;

struct mmw_batch_s {
	int pass, round;
	int ksw;                    /* ksw calls speculated on (passes first, record, final) */
	int chain;                  /* chaining batched (a seed pass first) */
	int final_chains;           /* the seed pass's chaining is computed by mmw_batch_final */
	int64_t chain_jobs, chain_anchors;
	double chain_sec;
	int trace;                  /* WARPALIGN_TRACE=1: each pass's wall time on stderr */
	/* first pass: once slice_end[k] bases are mapped, slice k's calls are handed to the thread computing
	 * ahead (the last slice's at the end of the pass, unless record rounds follow) */
	warpalign_ksw_cache *cache; /* this batch's calls, taken from mmw_caches */
	int final_computes;         /* the calls left after the first pass are computed by mmw_batch_final */
	int n_slice, next_slice;    /* next_slice: the first not handed over (atomic) */
	int64_t *frag_len, *slice_end, bases_done; /* bases_done: atomic */
	pthread_t ahead;
	int ahead_started;
	pthread_mutex_t lock;       /* guards the four below */
	pthread_cond_t handed_over;
	int handed, taken, computing, finish;
	double t_pass;
	long n_frag;
	mmw_frag_t *frag;
};

static void mmw_seeds_free(mmw_seeds_t *s)
{
	free(s->mv.a), free(s->mini_pos), free((void*)s->job.anchors);
	warpalign_chain_dp_results_free(&s->res, 1);
	memset(s, 0, sizeof(*s));
}

/* Speculation caches not in use: a batch takes one for its life (kt_pipeline has two or three in flight). */
static warpalign_ksw_cache *mmw_caches[4];
static int mmw_n_caches;
static pthread_mutex_t mmw_caches_lock = PTHREAD_MUTEX_INITIALIZER;
/* Whether record rounds pay: a round reruns the alignment code of every read that met an unknown call
 * to find the few calls that depend on real answers. With many reads the final pass computes those on
 * the spot, spread over all threads; with few (assemblies) it would compute long chains of them in one
 * thread. Learnt from each batch's final pass: on once it computed more than 1% of its calls. */
static int mmw_rounds_pay; /* atomic: set by one batch's output step, read by the next's mapping step */
#define MMW_FEW_FRAGS 64
static pthread_t mmw_prepare_thread;    /* GPU start-up, overlapping index loading and the first batches */
static int mmw_prepare_state;           /* 0 not started, 1 running, 2 joined or never to be (atomic) */
static int mmw_prepare_done;            /* the thread has finished (atomic) */
static pthread_mutex_t mmw_prepare_lock = PTHREAD_MUTEX_INITIALIZER;

static void *mmw_prepare_main(void *arg)
{
	(void)arg;
	warpalign_ctx_prepare(mmw_get_ctx());
	__atomic_store_n(&mmw_prepare_done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* WARPALIGN_SPECULATE: -1 auto (with a GPU), 0 off, 1 on. */
static int mmw_speculate(void)
{
	const char *env = getenv("WARPALIGN_SPECULATE");
	if (env == 0 || *env == 0 || strcmp(env, "auto") == 0) return -1;
	if (strcmp(env, "0") != 0 && strcmp(env, "1") != 0) mmw_die("WARPALIGN_SPECULATE must be 0, 1 or auto");
	return env[0] == '1';
}

/* WARPALIGN_CHAIN_BATCH: 1 on, 0 off (default). Off by default: on an H100 with 16 cores the real ultra-long
 * E. coli set took 1.14-1.17 s with it against 1.00-1.08 s without (-c), 0.76-0.78 s against 0.59-0.61 s
 * (mapping only, which then also starts the GPU): its one batch's 371 calls took 0.056 s on the GPU while
 * the CPU waited. */
static int mmw_chain_batch(void)
{
	const char *env = getenv("WARPALIGN_CHAIN_BATCH");
	if (env == 0 || *env == 0) return 0;
	if (strcmp(env, "0") != 0 && strcmp(env, "1") != 0) mmw_die("WARPALIGN_CHAIN_BATCH must be 0 or 1");
	return env[0] == '1';
}

/* Whether ksw calls may be speculated on: nothing to batch without CIGARs; debug output would print
 * once per pass. */
static int mmw_ksw_may(const mm_mapopt_t *opt)
{
	return (opt->flag & MM_F_CIGAR) && !mm_dbg_flag && mmw_speculate() != 0;
}

/* Whether chaining may be batched: mg_lchain_dp's presets (--rmq, the asm presets', is upstream's code). */
static int mmw_chain_may(const mm_mapopt_t *opt)
{
	return !(opt->flag & MM_F_RMQ) && !mm_dbg_flag && mmw_chain_batch();
}

int mmw_index_mode(void)
{
	const char *env = getenv("WARPALIGN_INDEX_LOAD");
	if (env == 0 || *env == 0 || strcmp(env, "auto") == 0) return MMW_INDEX_THREADS;
	if (strcmp(env, "upstream") == 0) return MMW_INDEX_UPSTREAM;
	if (strcmp(env, "verify") == 0) return MMW_INDEX_VERIFY;
	{
		char msg[256];
		snprintf(msg, sizeof(msg), "WARPALIGN_INDEX_LOAD=\"%.100s\": expected auto, upstream or verify", env);
		mmw_die(msg);
	}
	return MMW_INDEX_THREADS;
}

static int mmw_seed_may(const mm_mapopt_t *opt);

static void mmw_start(const mm_mapopt_t *opt)
{
	pthread_mutex_lock(&mmw_prepare_lock);
	if ((mmw_ksw_may(opt) || mmw_chain_may(opt) || mmw_seed_may(opt)) && mmw_prepare_state == 0)
		__atomic_store_n(&mmw_prepare_state, pthread_create(&mmw_prepare_thread, 0, mmw_prepare_main, 0) == 0? 1 : 2, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&mmw_prepare_lock);
}

static void mmw_wait_gpu(void)
{
	pthread_mutex_lock(&mmw_prepare_lock);
	if (mmw_prepare_state == 1) {
		pthread_join(mmw_prepare_thread, 0);
		__atomic_store_n(&mmw_prepare_state, 2, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&mmw_prepare_lock);
}

/* Without waiting: 1 the GPU runs batches, -1 it may (starting, or not started and not the CPU backend),
 * 0 it never will (CPU backend, no GPU). */
static int mmw_gpu_state(void)
{
	int st = __atomic_load_n(&mmw_prepare_state, __ATOMIC_ACQUIRE);
	if (st == 0) return warpalign_requested_backend() == WARPALIGN_BACKEND_REQUEST_CPU? 0 : -1;
	if (st == 1 && !__atomic_load_n(&mmw_prepare_done, __ATOMIC_ACQUIRE)) return -1;
	return warpalign_ctx_backend(mmw_get_ctx()) == WARPALIGN_BACKEND_GPU;
}

/* Query files of this many bytes in all start the GPU while the index loads. A run that starts CUDA pays
 * for it even when it never uses the GPU: on an H200 with 16 cores, lambda's 1.7 Mb of R7 reads (-c) took
 * 0.24 s against upstream's 0.15 s, most of it tearing CUDA down at exit. Smaller inputs, and inputs of
 * unknown size (pipes), start it with their first full batch, if they have one. WARPALIGN_BACKEND=gpu
 * starts it in any case. */
#define MMW_EARLY_START_BYTES (32LL << 20)

void mmw_start_early(const mm_mapopt_t *opt, int n_files, char *const *files)
{
	int64_t bytes = 0;
	int i;
	struct stat st;
	/* The GPU's context keeps about 10 MB resident per hardware queue (8 by default): 2 save 37 MB (H200)
	 * and cost the unspliced presets nothing measurable. Spliced alignment keeps the GPU busiest with ksw
	 * launches, whose streams share the queues and wait on each other's work: with 4, 40 Mb of spliced reads
	 * took 2.8-3.2 s against 3.6-4.4 s with 2, in three calls (H200, -t16; bench/results/2026-11-28h-output).
	 * Set here, before any thread runs, unless the user chose. */
	setenv("CUDA_DEVICE_MAX_CONNECTIONS", opt->flag & MM_F_SPLICE? "4" : "2", 0);
	mmw_check(warpalign_env_check()); /* the library's variables, before any output */
	mmw_index_mode();
	if (warpalign_requested_backend() != WARPALIGN_BACKEND_REQUEST_GPU) {
		for (i = 0; i < n_files; ++i) {
			if (stat(files[i], &st) != 0 || !S_ISREG(st.st_mode)) return;
			bytes += st.st_size;
		}
		if (bytes < MMW_EARLY_START_BYTES) return;
	}
	mmw_start(opt);
}

/* Batches of at most this many bases while speculating, whatever -K says (WARPALIGN_BATCH_BASES: another
 * cap, 0 for none). minimap2 reads a batch, maps it, then writes it, each step one batch at a time in
 * its own thread: the first batch's reading and the last one's writing overlap nothing, and with -K's
 * default of 500M they were a quarter of the rebuilt tool's time on a 500 Mb read set. A batch's first
 * pass, its GPU work and its final pass run one after another, so an input of one batch overlaps nothing,
 * and every batch in flight holds its reads, cache and kalloc cores. On an H200 with 16 cores, parts of 8 Mb
 * against 16 took 32-100 Mb inputs 0-15% faster with 30-100 MB less peak RSS, 200 Mb of ultra-long reads as
 * fast with 80 MB less, splice 40 Mb as fast with 110 MB less (bench/results/2026-11-26g-memory, call 5);
 * 16 against 50 had done the same before. The output is the same (reads are mapped independently), and so
 * is the log (mmw_read_chunk). */
#define MMW_BATCH_BASES 8000000

static int64_t mmw_batch_cap(void)
{
	static int64_t cap = -1; /* atomic: the same value whichever thread parses it */
	int64_t c = __atomic_load_n(&cap, __ATOMIC_RELAXED);
	if (c < 0) {
		const char *env = getenv("WARPALIGN_BATCH_BASES");
		c = MMW_BATCH_BASES;
		if (env && *env) {
			char *end;
			errno = 0;
			c = strtoll(env, &end, 10);
			if (*end != 0 || c < 0 || errno == ERANGE) mmw_die("WARPALIGN_BATCH_BASES must be a number of bases (0: no cap)");
		}
		__atomic_store_n(&cap, c, __ATOMIC_RELAXED);
	}
	return c;
}

/* Blocks of at least this many bytes are mmap'ed, so that freeing them gives them back to the system, and
 * free memory at the top of a heap beyond 128 kB is too. glibc's default raises both thresholds with the
 * largest block freed so far (to 32 and 64 MB): then the 8 MB cores of each thread's kalloc, made anew
 * after a batch's record passes (map_batch), and the ksw cache's compute buffers stay in the heaps of the
 * threads that freed them, while up to three batches are in flight. 100 Mb of ultra-long reads, -t16 on 2
 * cores, WARPALIGN_SPECULATE=1: peak RSS 372 MB, against 545 MB with the defaults (491 MB without the
 * kalloc reset); the reference peaks at 317 MB. Set once, by the first batch that speculates. */
#define MMW_MMAP_THRESHOLD (4 << 20)
/* glibc gives each of up to 8 x cores threads its own heap, and a thread's heap keeps what it freed: at most 4
 * heaps took the peak RSS of HiFi, 32 Mb of 1 kb reads and 64 Mb of ultra-long reads on the GPU down by
 * 30-70 MB (H200, -t16) at the same speed (the mapping threads allocate through kalloc). */
#define MMW_ARENA_MAX 4
static pthread_once_t mmw_malloc_once = PTHREAD_ONCE_INIT;

static void mmw_malloc_init(void)
{
	mallopt(M_MMAP_THRESHOLD, MMW_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, 128 << 10);
	mallopt(M_ARENA_MAX, MMW_ARENA_MAX);
}

/* Whether batches may be speculated on: ksw calls when asked (WARPALIGN_SPECULATE=1) or with a GPU that
 * runs or may, chaining when asked. Never waits. */
static int mmw_may_speculate(const mm_mapopt_t *opt)
{
	return mmw_chain_may(opt) || ((mmw_ksw_may(opt) || mmw_seed_may(opt)) && (mmw_speculate() == 1 || mmw_gpu_state() != 0));
}

/* What one batch does: speculate on its ksw calls and batch its chaining. In auto mode speculation runs
 * only on the GPU (on the CPU one call at a time is as fast), and only with more than a few fragments:
 * with a few long ones (asm presets) it computes long chains of dependent calls in one thread (H. pylori
 * asm5 on an H200 with 16 cores: 0.69x upstream). A batch that finds the GPU not started or still starting
 * does not wait for it, but runs as upstream's would; once full batches have brought MMW_START_BASES, the
 * GPU starts for the batches that follow (a wait would not pay for 8 Mb parts, nor for kernels still
 * compiling on a machine's first run; an input below 16 Mb pays the context's start and memory for a batch
 * or none). WARPALIGN_BACKEND=gpu: every batch on the GPU, waiting for it. */
#define MMW_START_BASES 16000000

static void mmw_modes(const mm_mapopt_t *opt, long n_frag, int64_t bases, int *ksw, int *chain)
{
	static int64_t full_bases; /* atomic: batches begin in order, but in the pipeline's threads */
	int gpu, asked = warpalign_requested_backend() == WARPALIGN_BACKEND_REQUEST_GPU;
	int64_t full = mmw_batch_cap() > 0 && mmw_batch_cap() < opt->mini_batch_size? mmw_batch_cap() : opt->mini_batch_size;
	*ksw = mmw_ksw_may(opt), *chain = mmw_chain_may(opt);
	if (!*ksw || mmw_speculate() == 1) return;
	if (bases >= full) __atomic_add_fetch(&full_bases, bases, __ATOMIC_RELAXED);
	if (asked || __atomic_load_n(&full_bases, __ATOMIC_RELAXED) >= MMW_START_BASES) mmw_start(opt); /* if not started early */
	if (asked) mmw_wait_gpu();
	gpu = mmw_gpu_state();
	*ksw = gpu > 0 && (asked || n_frag > MMW_FEW_FRAGS);
}

/* Reading: upstream reads a batch until it holds -K bases (or the input ends) and logs "mapped N
 * sequences" once it is written. While batches may be speculated on, each of upstream's batches is read in
 * parts of at most the cap: a part ends where upstream's batch would (its last part reads until the batch
 * holds -K bases) or at the cap, and the log line is written with the last part, with upstream's count.
 * Not in fragment mode (paired reads), whose reading looks past a part's end for mates, nor with
 * --split-prefix, whose merge reads the batches again: upstream's batches there. One pipeline at a time. */
static struct {
	int parts;      /* upstream's batches may be read in parts */
	int64_t left;   /* bases upstream's current batch lacks; 0: none begun */
	int64_t chunk;  /* what the last read was asked for */
	int n_seq;      /* reads of upstream's current batch so far */
} mmw_reads;

void mmw_reads_begin(const mm_mapopt_t *opt, int frag_mode)
{
	mmw_reads.parts = !frag_mode && !opt->split_prefix;
	mmw_reads.left = 0, mmw_reads.n_seq = 0;
	mmw_reads.chunk = opt->mini_batch_size;
}

int mmw_trace_on(void)
{
	static int on = -1;
	const char *t;
	if (__atomic_load_n(&on, __ATOMIC_RELAXED) < 0) {
		int v = 0;
		if ((t = getenv("WARPALIGN_TRACE")) != 0) { /* "1" with spaces around it, as the library reads it */
			t += strspn(t, " \t\n\r\v\f");
			v = t[0] == '1' && t[1 + strspn(t + 1, " \t\n\r\v\f")] == 0;
		}
		__atomic_store_n(&on, v, __ATOMIC_RELAXED);
	}
	return on;
}

#define MMW_STARTING_PART_BASES 2000000

static double mmw_read_t0; /* when the part being read began (step 0 reads one part at a time) */

int64_t mmw_read_chunk(const mm_mapopt_t *opt)
{
	int64_t cap = mmw_batch_cap();
	mmw_read_t0 = realtime();
	if (mmw_reads.left <= 0) mmw_reads.left = opt->mini_batch_size;
	mmw_reads.chunk = mmw_reads.left;
	if (!mmw_reads.parts || cap <= 0 || !mmw_may_speculate(opt)) return mmw_reads.chunk;
	/* Until the GPU is asked to start (mmw_modes), parts of the start's size: an input too small to start it
	 * runs upstream's path, in upstream's batches up to that size (a last part of a few long reads leaves
	 * threads idle: 8.6 Mb of real ultra-long reads, -c, 0.92x upstream in parts of 8 Mb). */
	if (cap < MMW_START_BASES && mmw_speculate() != 1 && !mmw_chain_may(opt) && __atomic_load_n(&mmw_prepare_state, __ATOMIC_ACQUIRE) == 0)
		cap = MMW_START_BASES;
	/* While it starts, small parts: a part that finds the GPU starting runs upstream's path (mmw_modes), and
	 * a small one frees the threads soon after the GPU is up. 40 Mb of spliced reads, -t16 on an H200 host:
	 * a first part of 8 Mb on that path took 1.74 s of a 3.85 s run, the GPU being up 0.2 s after it began. */
	else if (cap > MMW_STARTING_PART_BASES && mmw_speculate() != 1 && warpalign_requested_backend() != WARPALIGN_BACKEND_REQUEST_GPU
			&& __atomic_load_n(&mmw_prepare_state, __ATOMIC_ACQUIRE) == 1 && !__atomic_load_n(&mmw_prepare_done, __ATOMIC_ACQUIRE))
		cap = MMW_STARTING_PART_BASES;
	if (cap < mmw_reads.left) mmw_reads.chunk = cap;
	return mmw_reads.chunk;
}

int mmw_read_done(const mm_bseq1_t *seq, int n_seq)
{
	int64_t bases = 0;
	int i, n;
	if (n_seq == 0) return 0; /* the input's end: no batch to write it with (mmw_reads_end) */
	for (i = 0; i < n_seq; ++i) bases += seq[i].l_seq;
	if (mmw_trace_on())
		fprintf(stderr, "[warpalign %.3f] read %d reads (%lld bases) in %.3f s\n", realtime() - mm_realtime0, n_seq, (long long)bases, realtime() - mmw_read_t0);
	mmw_reads.n_seq += n_seq, mmw_reads.left -= bases;
	if (mmw_reads.left > 0 && bases >= mmw_reads.chunk) return 0; /* a part: upstream's batch goes on */
	n = mmw_reads.n_seq;
	mmw_reads.left = 0, mmw_reads.n_seq = 0;
	return n;
}

int mmw_reads_end(void)
{
	int n = mmw_reads.n_seq;
	mmw_reads.left = 0, mmw_reads.n_seq = 0;
	return n;
}

/* minimap2's pipeline threads (kt_pipeline): 2 unless -2 asks for 3. While speculating, a batch's output
 * step also waits for its last GPU work and final pass, and a part is seeded on the GPU from its reading on:
 * with 3 threads the part after the one being mapped was read only once the output step before ended, and
 * its mapping then waited 20-40 ms for its seeds (E. coli, 8 Mb parts of UL reads, -c). With 4, and a thread
 * reading one part ahead of them (mmw_map.c), the seeds are mostly ready when the mapping reaches them; 5 or
 * 6 were no faster and held 30-150 MB more (bench/results/2026-11-28h-output, call 5). */
int mmw_pipeline_threads(const mm_mapopt_t *opt, int n_threads, int upstream)
{
	return n_threads > 1 && upstream < 4 && !opt->split_prefix && mmw_may_speculate(opt)? 4 : upstream;
}

static __thread struct { /* the fragment this thread is mapping in a batched pass */
	mmw_batch_t *batch;
	mmw_frag_t *frag;
	int next_snap, stand_in;
	int next_seeds;
	mmw_seeds_t *chain_answer; /* what the next mg_lchain_dp call takes when it is the same call */
} mmw_cur;

/* Slices the batch's bases evenly. */
static void mmw_slice(mmw_batch_t *b)
{
	double total = 0.0;
	const char *env = getenv("WARPALIGN_SLICES"); /* for tests: the number of slices */
	long i;
	int k;
	for (i = 0; i < b->n_frag; ++i) total += b->frag_len[i];
	if (env && *env) {
		b->n_slice = atoi(env);
		if (b->n_slice < 1 || b->n_slice > 64) mmw_die("WARPALIGN_SLICES must be 1 to 64");
	} else {
		b->n_slice = (int)(total / MMW_SLICE_BASES);
		if (b->n_slice < MMW_MIN_SLICES) {
			int small = (int)(total / MMW_MIN_SLICE_BASES);
			b->n_slice = small < MMW_MIN_SLICES? small : MMW_MIN_SLICES;
		}
		b->n_slice = b->n_slice < 1? 1 : b->n_slice > MMW_MAX_SLICES? MMW_MAX_SLICES : b->n_slice;
	}
	b->slice_end = (int64_t*)calloc(b->n_slice, sizeof(int64_t));
	for (k = 0; k < b->n_slice; ++k) b->slice_end[k] = (int64_t)(total * (k + 1) / b->n_slice);
}

static void *mmw_ahead_main(void *arg)
{
	mmw_batch_t *b = (mmw_batch_t*)arg;
	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (!b->finish && b->taken == b->handed) pthread_cond_wait(&b->handed_over, &b->lock);
		if (b->taken == b->handed) break; /* finished, with nothing handed over that it has not taken */
		b->taken = b->handed, b->computing = 1;
		pthread_mutex_unlock(&b->lock);
		mmw_check(warpalign_ksw_cache_compute_background(mmw_get_ctx(), b->cache, 0));
		pthread_mutex_lock(&b->lock);
		b->computing = 0;
	}
	pthread_mutex_unlock(&b->lock);
	return 0;
}

/* A fragment of the first pass is through: hands the calls over when a slice is complete. */
static void mmw_slice_progress(mmw_batch_t *b, long i)
{
	int64_t done = __atomic_add_fetch(&b->bases_done, b->frag_len[i], __ATOMIC_RELAXED);
	int k = __atomic_load_n(&b->next_slice, __ATOMIC_RELAXED);
	while (k < b->n_slice - 1 && done >= b->slice_end[k]) {
		if (__atomic_compare_exchange_n(&b->next_slice, &k, k + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			pthread_mutex_lock(&b->lock);
			++b->handed;
			pthread_cond_signal(&b->handed_over);
			pthread_mutex_unlock(&b->lock);
			k = k + 1;
		}
	}
}

mmw_batch_t *mmw_batch_begin(const mm_mapopt_t *opt, long n_frag, const int64_t *frag_len)
{
	mmw_batch_t *b;
	int ksw, chain;
	double t = realtime();
	long i;
	int64_t bases = 0;
	for (i = 0; i < n_frag; ++i) bases += frag_len[i];
	mmw_modes(opt, n_frag, bases, &ksw, &chain);
	if (!ksw && !chain) return 0;
	pthread_once(&mmw_malloc_once, mmw_malloc_init);
	if (ksw) mmw_start(opt), mmw_wait_gpu(); /* with WARPALIGN_SPECULATE=1 the GPU may not have started */
	b = (mmw_batch_t*)calloc(1, sizeof(mmw_batch_t));
	b->ksw = ksw, b->chain = chain;
	if (ksw) {
		pthread_mutex_lock(&mmw_caches_lock);
		b->cache = mmw_n_caches > 0? mmw_caches[--mmw_n_caches] : warpalign_ksw_cache_create();
		pthread_mutex_unlock(&mmw_caches_lock);
		if (b->cache == 0) mmw_die(warpalign_last_error());
	}
	b->frag = (mmw_frag_t*)calloc(n_frag, sizeof(mmw_frag_t));
	b->n_frag = n_frag, b->pass = chain? MMW_PASS_SEED : MMW_PASS_FIRST;
	b->frag_len = (int64_t*)malloc((n_frag > 0? n_frag : 1) * sizeof(int64_t));
	if (n_frag > 0) memcpy(b->frag_len, frag_len, n_frag * sizeof(int64_t));
	mmw_slice(b);
	pthread_mutex_init(&b->lock, 0);
	pthread_cond_init(&b->handed_over, 0);
	if (ksw && b->n_slice > 1) {
		if (pthread_create(&b->ahead, 0, mmw_ahead_main, b) != 0) mmw_die("cannot start a thread");
		b->ahead_started = 1;
	}
	b->trace = mmw_trace_on();
	b->t_pass = realtime();
	if (b->trace) {
		fprintf(stderr, "[warpalign %.3f] waited for the GPU start: %.3f s; %s", b->t_pass - mm_realtime0, b->t_pass - t, chain? "seed pass, then " : "");
		if (ksw) fprintf(stderr, "first pass in %d slice%s\n", b->n_slice, b->n_slice == 1? "" : "s");
		else fprintf(stderr, "final pass\n");
	}
	return b;
}

/* Ends the ahead thread's taking of new calls (what it computes now goes on); with rest, it takes every call
 * recorded so far first. */
static void mmw_ahead_finish(mmw_batch_t *b, int rest)
{
	pthread_mutex_lock(&b->lock);
	b->handed += rest;
	b->finish = 1;
	pthread_cond_signal(&b->handed_over);
	pthread_mutex_unlock(&b->lock);
}

/* Computes every call recorded so far and waits for the ahead thread; returns how many it computed. With
 * cpu_too the CPU takes a share beside the GPU: for record rounds, which the mapping step waits for; the
 * final pass's computing leaves the CPU to the next batch's first pass. */
static size_t mmw_compute_rest(mmw_batch_t *b, int cpu_too)
{
	size_t n = 0;
	double t = realtime();
	mmw_check(cpu_too? warpalign_ksw_cache_compute(mmw_get_ctx(), b->cache, &n) : warpalign_ksw_cache_compute_background(mmw_get_ctx(), b->cache, &n));
	if (b->trace) fprintf(stderr, "[warpalign %.3f] computed %ld calls: %.3f s\n", realtime() - mm_realtime0, (long)n, realtime() - t);
	if (b->ahead_started) {
		pthread_join(b->ahead, 0);
		b->ahead_started = 0;
		if (b->trace) fprintf(stderr, "[warpalign %.3f] waited for the computing ahead: %.3f s\n", realtime() - mm_realtime0, realtime() - t);
	}
	return n;
}

/* The seed pass's mg_lchain_dp calls, all in one batch call (on the GPU when there is one). */
static void mmw_chain_compute(mmw_batch_t *b)
{
	warpalign_chain_dp_job *jobs;
	warpalign_chain_dp_result *res;
	int64_t n = 0, k = 0;
	long i;
	int j;
	double t = realtime();
	for (i = 0; i < b->n_frag; ++i) n += b->frag[i].n_seeds;
	jobs = (warpalign_chain_dp_job*)malloc((n > 0? n : 1) * sizeof(*jobs));
	res = (warpalign_chain_dp_result*)calloc(n > 0? n : 1, sizeof(*res));
	for (i = 0; i < b->n_frag; ++i)
		for (j = 0; j < b->frag[i].n_seeds; ++j) {
			jobs[k++] = b->frag[i].seeds[j].job;
			b->chain_anchors += b->frag[i].seeds[j].job.n_anchors;
		}
	mmw_check(warpalign_chain_dp_batch(mmw_get_ctx(), jobs, n, res));
	for (i = 0, k = 0; i < b->n_frag; ++i)
		for (j = 0; j < b->frag[i].n_seeds; ++j)
			b->frag[i].seeds[j].res = res[k++];
	free(jobs), free(res);
	b->chain_jobs += n;
	b->chain_sec += realtime() - t;
	if (b->trace) fprintf(stderr, "[warpalign %.3f] chained %ld calls: %.3f s\n", realtime() - mm_realtime0, (long)n, realtime() - t);
}

int mmw_batch_next(mmw_batch_t *b)
{
	size_t n;
	double t = realtime();
	if (b->trace) {
		static const char *name[] = { "seed", "first", "record", "final" };
		fprintf(stderr, "[warpalign %.3f] %s pass: %.3f s\n", t - mm_realtime0, name[b->pass], t - b->t_pass);
	}
	if (b->pass == MMW_PASS_SEED) {
		if (!b->ksw) { /* the output step chains, beside the next batch's seed pass */
			b->pass = MMW_PASS_FINAL, b->final_chains = 1;
			return 0;
		}
		mmw_chain_compute(b);
		b->pass = MMW_PASS_FIRST;
		b->t_pass = realtime();
		return 1;
	}
	if (b->pass == MMW_PASS_FIRST) {
		++b->round;
		if (!__atomic_load_n(&mmw_rounds_pay, __ATOMIC_RELAXED) && b->n_frag > MMW_FEW_FRAGS) {
			/* the ahead thread computes the rest now: the output step, which waits for it, begins only once
			 * the batch before has been written */
			if (b->ahead_started) mmw_ahead_finish(b, 1);
			b->pass = MMW_PASS_FINAL, b->final_computes = 1;
			return 0;
		}
		if (b->ahead_started) mmw_ahead_finish(b, 0);
		mmw_compute_rest(b, 1);
		n = 1; /* the calls computed ahead count too: their reads may have more to find */
	} else {
		n = mmw_compute_rest(b, 1);
		++b->round;
	}
	b->t_pass = realtime();
	b->pass = n > 0 && b->round < MMW_MAX_ROUNDS? MMW_PASS_RECORD : MMW_PASS_FINAL;
	return b->pass == MMW_PASS_RECORD;
}

void mmw_batch_final(mmw_batch_t *b)
{
	if (b->final_chains) mmw_chain_compute(b);
	if (b->final_computes) mmw_compute_rest(b, 0);
	b->t_pass = realtime();
}

void mmw_batch_end(mmw_batch_t *b)
{
	warpalign_ksw_cache_counters c;
	long i;
	int j;
	double t = realtime();
	if (b->trace) fprintf(stderr, "[warpalign %.3f] final pass: %.3f s\n", t - mm_realtime0, t - b->t_pass);
	if (mm_verbose >= 3 && b->chain_jobs > 0)
		fprintf(stderr, "[M::warpalign::%.3f*%.2f] %lld chaining calls (%lld anchors) computed in one batch on the %s, %.3f sec\n",
				realtime() - mm_realtime0, cputime() / (realtime() - mm_realtime0), (long long)b->chain_jobs, (long long)b->chain_anchors,
				warpalign_ctx_backend(mmw_get_ctx()) == WARPALIGN_BACKEND_GPU? "GPU" : "CPU", b->chain_sec);
	for (i = 0; i < b->n_frag; ++i) {
		for (j = 0; j < b->frag[i].n_seeds; ++j) mmw_seeds_free(&b->frag[i].seeds[j]);
		free(b->frag[i].seeds);
	}
	memset(&c, 0, sizeof(c));
	if (b->ksw) {
		warpalign_ksw_cache_clear(b->cache);
		warpalign_ksw_cache_stats(b->cache, &c);
	}
	if (c.misses * 100 > c.hits + c.misses) __atomic_store_n(&mmw_rounds_pay, 1, __ATOMIC_RELAXED);
	if (mm_verbose >= 3 && c.recorded + c.hits + c.misses > 0)
		fprintf(stderr, "[M::warpalign::%.3f*%.2f] %llu ksw calls (%.3g cells) computed ahead in %d batch%s (GPU %llu, CPU %llu), %.3f sec in all; "
				"final pass: %llu answered, %llu computed on the spot; %.1f%% of the cells computed ahead unused\n",
				realtime() - mm_realtime0, cputime() / (realtime() - mm_realtime0),
				(unsigned long long)c.recorded, (double)c.recorded_cells, (int)c.rounds, c.rounds == 1? "" : "es",
				(unsigned long long)c.gpu_jobs, (unsigned long long)c.cpu_jobs, c.compute_ns * 1e-9,
				(unsigned long long)c.hits, (unsigned long long)c.misses,
				c.recorded_cells? 100.0 * c.unused_cells / c.recorded_cells : 0.0);
	if (b->trace) {
		int64_t n_snap = 0, n_a = 0, n_regs = 0, a_bytes = 0;
		for (i = 0; i < b->n_frag; ++i)
			for (j = 0, n_snap += b->frag[i].n_snap; j < b->frag[i].n_snap; ++j)
				n_a += b->frag[i].snap[j].n_a, a_bytes += b->frag[i].snap[j].a_len, n_regs += b->frag[i].snap[j].n_regs;
		fprintf(stderr, "[warpalign %.3f] snapshots: %lld, %lld anchors in %.1f MB, %lld regions in %.1f MB\n", realtime() - mm_realtime0,
				(long long)n_snap, (long long)n_a, a_bytes * 1e-6, (long long)n_regs, n_regs * sizeof(mm_reg1_t) * 1e-6);
	}
	for (i = 0; i < b->n_frag; ++i) {
		for (j = 0; j < b->frag[i].n_snap; ++j)
			free(b->frag[i].snap[j].regs), free(b->frag[i].snap[j].a_packed);
		free(b->frag[i].snap);
	}
	if (b->trace) fprintf(stderr, "[warpalign %.3f] batch end: %.3f s\n", realtime() - mm_realtime0, realtime() - t);
	if (b->ksw) {
		pthread_mutex_lock(&mmw_caches_lock);
		if (mmw_n_caches < (int)(sizeof(mmw_caches) / sizeof(mmw_caches[0]))) mmw_caches[mmw_n_caches++] = b->cache;
		else warpalign_ksw_cache_destroy(b->cache);
		pthread_mutex_unlock(&mmw_caches_lock);
	}
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->handed_over);
	free(b->frag_len), free(b->slice_end);
	free(b->frag);
	free(b);
}

int mmw_frag_begin(mmw_batch_t *b, long i)
{
	mmw_frag_t *f;
	if (b == 0) return 1;
	f = &b->frag[i];
	if (b->pass == MMW_PASS_RECORD && !f->missed) return 0; /* it would find nothing new */
	f->missed = 0;
	memset(&mmw_cur, 0, sizeof(mmw_cur));
	mmw_cur.batch = b, mmw_cur.frag = f;
	return 1;
}

void mmw_frag_end(void)
{
	mmw_batch_t *b = mmw_cur.batch;
	if (b && b->pass == MMW_PASS_FIRST && b->n_slice > 1) mmw_slice_progress(b, mmw_cur.frag - b->frag);
	memset(&mmw_cur, 0, sizeof(mmw_cur));
}

void mmw_frag_snapshot(int n_regs, const mm_reg1_t *regs, int64_t n_a, const mm128_t *a, int rep_len, int frag_gap)
{
	mmw_frag_t *f = mmw_cur.frag;
	mmw_snap_t *s;
	int i;
	if (mmw_cur.batch == 0 || mmw_cur.batch->pass != MMW_PASS_FIRST) return;
	for (i = 0; i < n_regs; ++i)
		if (regs[i].p) mmw_die("region with alignment data before alignment");
	if (f->n_snap == f->m_snap) {
		f->m_snap = f->m_snap? f->m_snap << 1 : 2;
		f->snap = (mmw_snap_t*)realloc(f->snap, f->m_snap * sizeof(mmw_snap_t));
	}
	s = &f->snap[f->n_snap++];
	s->n_regs = n_regs, s->n_a = n_a, s->rep_len = rep_len, s->frag_gap = frag_gap;
	s->regs = (mm_reg1_t*)malloc((n_regs > 0? n_regs : 1) * sizeof(mm_reg1_t));
	if (n_regs > 0) memcpy(s->regs, regs, n_regs * sizeof(mm_reg1_t));
	mmw_check(warpalign_anchors_pack((const warpalign_anchor*)a, (size_t)n_a, &s->a_packed, &s->a_len));
}

int mmw_frag_resume(void *km, int *n_regs, mm_reg1_t **regs, mm128_t **a, int *rep_len, int *frag_gap)
{
	mmw_snap_t *s;
	if (mmw_cur.batch == 0 || mmw_cur.batch->pass <= MMW_PASS_FIRST || mmw_cur.next_snap >= mmw_cur.frag->n_snap) return 0;
	s = &mmw_cur.frag->snap[mmw_cur.next_snap++];
	*n_regs = s->n_regs, *rep_len = s->rep_len, *frag_gap = s->frag_gap;
	*regs = (mm_reg1_t*)malloc((s->n_regs > 0? s->n_regs : 1) * sizeof(mm_reg1_t));
	*a = Kmalloc(km, mm128_t, s->n_a > 0? s->n_a : 1);
	if (s->n_regs > 0) memcpy(*regs, s->regs, s->n_regs * sizeof(mm_reg1_t));
	mmw_check(warpalign_anchors_unpack(s->a_packed, s->a_len, (warpalign_anchor*)*a, (size_t)s->n_a));
	if (mmw_cur.batch->pass == MMW_PASS_FINAL) { /* last use */
		free(s->regs), free(s->a_packed);
		s->regs = 0, s->a_packed = 0;
	}
	return 1;
}

int mmw_chain_defer(int max_dist_x, int max_dist_y, int bw, int max_skip, int max_iter, int min_cnt, int min_sc, float chn_pen_gap, float chn_pen_skip,
					int is_cdna, int n_seg, int64_t n_a, const mm128_t *a, const mm128_v *mv, int rep_len, int n_mini_pos, const uint64_t *mini_pos)
{
	mmw_frag_t *f = mmw_cur.frag;
	mmw_seeds_t *s;
	warpalign_chain_dp_job *j;
	if (mmw_cur.batch == 0 || mmw_cur.batch->pass != MMW_PASS_SEED) return 0;
	if (f->n_seeds == f->m_seeds) {
		f->m_seeds = f->m_seeds? f->m_seeds << 1 : 1;
		f->seeds = (mmw_seeds_t*)realloc(f->seeds, f->m_seeds * sizeof(mmw_seeds_t));
	}
	s = &f->seeds[f->n_seeds++];
	memset(s, 0, sizeof(*s));
	s->mv.n = s->mv.m = mv->n;
	s->mv.a = (mm128_t*)malloc((mv->n > 0? mv->n : 1) * sizeof(mm128_t));
	if (mv->n > 0) memcpy(s->mv.a, mv->a, mv->n * sizeof(mm128_t));
	s->rep_len = rep_len, s->n_mini_pos = n_mini_pos;
	s->mini_pos = (uint64_t*)malloc((n_mini_pos > 0? n_mini_pos : 1) * sizeof(uint64_t));
	if (n_mini_pos > 0) memcpy(s->mini_pos, mini_pos, n_mini_pos * sizeof(uint64_t));
	j = &s->job;
	j->max_dist_x = max_dist_x, j->max_dist_y = max_dist_y, j->bw = bw, j->max_skip = max_skip, j->max_iter = max_iter;
	j->min_cnt = min_cnt, j->min_sc = min_sc, j->chn_pen_gap = chn_pen_gap, j->chn_pen_skip = chn_pen_skip;
	j->is_cdna = is_cdna, j->n_seg = n_seg, j->n_anchors = n_a;
	if (n_a > 0) {
		mm128_t *copy = (mm128_t*)malloc(n_a * sizeof(mm128_t));
		memcpy(copy, a, n_a * sizeof(mm128_t));
		j->anchors = (const warpalign_anchor*)copy;
	}
	return 1;
}

int mmw_chain_resume(void *km, mm128_v *mv, mm128_t **a, int64_t *n_a, int *rep_len, int *n_mini_pos, uint64_t **mini_pos)
{
	mmw_seeds_t *s;
	if (mmw_cur.batch == 0 || mmw_cur.batch->pass == MMW_PASS_SEED || mmw_cur.next_seeds >= mmw_cur.frag->n_seeds) return 0;
	s = &mmw_cur.frag->seeds[mmw_cur.next_seeds++];
	mv->n = mv->m = s->mv.n;
	mv->a = Kmalloc(km, mm128_t, s->mv.n > 0? s->mv.n : 1);
	if (s->mv.n > 0) memcpy(mv->a, s->mv.a, s->mv.n * sizeof(mm128_t));
	*rep_len = s->rep_len, *n_mini_pos = s->n_mini_pos;
	*mini_pos = Kmalloc(km, uint64_t, s->n_mini_pos > 0? s->n_mini_pos : 1);
	if (s->n_mini_pos > 0) memcpy(*mini_pos, s->mini_pos, s->n_mini_pos * sizeof(uint64_t));
	*n_a = s->job.n_anchors;
	*a = Kmalloc(km, mm128_t, *n_a > 0? *n_a : 1);
	if (*n_a > 0) memcpy(*a, s->job.anchors, *n_a * sizeof(mm128_t));
	free(s->mv.a), free(s->mini_pos); /* only the chaining call is left to come */
	s->mv.a = 0, s->mini_pos = 0;
	mmw_cur.chain_answer = s;
	return 1;
}

int mmw_zdrop_test_skipped(void)
{
	int skip = mmw_cur.stand_in;
	mmw_cur.stand_in = 0;
	return skip;
}

/* What a record pass answers for an unknown call: an extension that extends nothing, or a gap fill that
 * aligns the shorter side ungapped and puts the rest in one gap; no Z-drop. Any answer would do (the
 * record pass's output is thrown away); these keep minimap2's later calls where the real answers will
 * most often put them. */
static void mmw_stand_in(void *km, int qlen, int tlen, int flag, ksw_extz_t *ez)
{
	ksw_reset_extz(ez);
	if (flag & KSW_EZ_EXTZ_ONLY) return;
	ez->score = 0;
	if (qlen > 0 && tlen > 0) ez->cigar = ksw_push_cigar(km, &ez->n_cigar, &ez->m_cigar, ez->cigar, KSW_CIGAR_MATCH, qlen < tlen? qlen : tlen);
	if (qlen > tlen) ez->cigar = ksw_push_cigar(km, &ez->n_cigar, &ez->m_cigar, ez->cigar, KSW_CIGAR_INS, qlen - tlen);
	else if (tlen > qlen) ez->cigar = ksw_push_cigar(km, &ez->n_cigar, &ez->m_cigar, ez->cigar, KSW_CIGAR_DEL, tlen - qlen);
}

/* A call outside warpalign's contract (e.g. -E 0 with splicing: upstream divides by zero) runs upstream's own
 * function, which answers it as unpatched minimap2 does. */
static void mmw_ksw_upstream(void *km, mmw_kind_t kind, const void *job, ksw_extz_t *ez)
{
	if (kind == MMW_EXTD2) {
		const warpalign_ksw_extd2_job *j = (const warpalign_ksw_extd2_job*)job;
		ksw_extd2_sse(km, j->qlen, j->query, j->tlen, j->target, j->m, j->mat, j->q, j->e, j->q2, j->e2, j->w, j->zdrop, j->end_bonus, j->flag, ez);
	} else if (kind == MMW_EXTS2) {
		const warpalign_ksw_exts2_job *j = (const warpalign_ksw_exts2_job*)job;
		ksw_exts2_sse(km, j->qlen, j->query, j->tlen, j->target, j->m, j->mat, j->q, j->e, j->q2, j->noncan, j->zdrop, j->end_bonus,
					  j->junc_bonus, j->junc_pen, j->flag, j->junc, ez);
	} else {
		const warpalign_ksw_extz2_job *j = (const warpalign_ksw_extz2_job*)job;
		ksw_extz2_sse(km, j->qlen, j->query, j->tlen, j->target, j->m, j->mat, j->q, j->e, j->w, j->zdrop, j->end_bonus, j->flag, ez);
	}
}

/* Whether the engine dumps its ksw jobs (WARPALIGN_KSW_DUMP set and not empty). */
static int mmw_ksw_dumping(void)
{
	static int dumping = -1; /* atomic: the same value whichever thread reads the variable */
	int d = __atomic_load_n(&dumping, __ATOMIC_RELAXED);
	if (d < 0) {
		const char *env = getenv("WARPALIGN_KSW_DUMP");
		d = env != 0 && *env != 0;
		__atomic_store_n(&dumping, d, __ATOMIC_RELAXED);
	}
	return d;
}

static void mmw_ksw(void *km, mmw_kind_t kind, const void *job, int qlen, int tlen, int flag, ksw_extz_t *ez)
{
	warpalign_ksw_result r;
	mmw_batch_t *b = mmw_cur.batch;
	warpalign_status st;
	memset(&r, 0, sizeof(r));
	mmw_cur.stand_in = 0;
	if (b && b->ksw) {
		int record = b->pass != MMW_PASS_FINAL, hit;
		hit = kind == MMW_EXTD2? warpalign_ksw_cache_extd2(b->cache, (const warpalign_ksw_extd2_job*)job, record, &r)
			: kind == MMW_EXTS2? warpalign_ksw_cache_exts2(b->cache, (const warpalign_ksw_exts2_job*)job, record, &r)
			: warpalign_ksw_cache_extz2(b->cache, (const warpalign_ksw_extz2_job*)job, record, &r);
		if (hit < 0) { /* outside warpalign's contract: upstream answers it */
			mmw_ksw_upstream(km, kind, job, ez);
			return;
		}
		if (hit) { /* the CIGAR is the cache's */
			mmw_ksw_copy(km, &r, ez);
			return;
		}
		if (record) {
			mmw_cur.frag->missed = 1, mmw_cur.stand_in = 1;
			mmw_stand_in(km, qlen, tlen, flag, ez);
			return;
		}
	}
	/* one call at a time: upstream's own SSE code, so that a run that batches nothing costs what upstream's
	 * does (the twin on one thread measured 0.95-1.08x of it, depending on the read set); the engine's twin
	 * while the engine dumps its jobs (WARPALIGN_KSW_DUMP: real jobs for tests and benchmarks) */
	if (!mmw_ksw_dumping()) {
		mmw_ksw_upstream(km, kind, job, ez);
		return;
	}
	st = kind == MMW_EXTD2? warpalign_ksw_extd2_batch(mmw_get_cpu_ctx(), (const warpalign_ksw_extd2_job*)job, 1, &r)
		: kind == MMW_EXTS2? warpalign_ksw_exts2_batch(mmw_get_cpu_ctx(), (const warpalign_ksw_exts2_job*)job, 1, &r)
		: warpalign_ksw_extz2_batch(mmw_get_cpu_ctx(), (const warpalign_ksw_extz2_job*)job, 1, &r);
	if (st == WARPALIGN_STATUS_INVALID_ARGUMENT) {
		mmw_ksw_upstream(km, kind, job, ez);
		return;
	}
	mmw_check(st);
	mmw_ksw_copy(km, &r, ez);
	warpalign_ksw_results_free(&r, 1);
}

void mmw_ksw_extz2(void *km, int qlen, const uint8_t *query, int tlen, const uint8_t *target, int8_t m, const int8_t *mat,
				   int8_t q, int8_t e, int w, int zdrop, int end_bonus, int flag, ksw_extz_t *ez)
{
	warpalign_ksw_extz2_job j;
	j.qlen = qlen, j.query = query, j.tlen = tlen, j.target = target, j.m = m, j.mat = mat;
	j.q = q, j.e = e, j.w = w, j.zdrop = zdrop, j.end_bonus = end_bonus, j.flag = flag;
	mmw_ksw(km, MMW_EXTZ2, &j, qlen, tlen, flag, ez);
}

void mmw_ksw_extd2(void *km, int qlen, const uint8_t *query, int tlen, const uint8_t *target, int8_t m, const int8_t *mat,
				   int8_t gapo, int8_t gape, int8_t gapo2, int8_t gape2, int w, int zdrop, int end_bonus, int flag, ksw_extz_t *ez)
{
	warpalign_ksw_extd2_job j;
	j.qlen = qlen, j.query = query, j.tlen = tlen, j.target = target, j.m = m, j.mat = mat;
	j.q = gapo, j.e = gape, j.q2 = gapo2, j.e2 = gape2, j.w = w, j.zdrop = zdrop, j.end_bonus = end_bonus, j.flag = flag;
	mmw_ksw(km, MMW_EXTD2, &j, qlen, tlen, flag, ez);
}

void mmw_ksw_exts2(void *km, int qlen, const uint8_t *query, int tlen, const uint8_t *target, int8_t m, const int8_t *mat,
				   int8_t gapo, int8_t gape, int8_t gapo2, int8_t noncan, int zdrop, int end_bonus, int8_t junc_bonus, int8_t junc_pen, int flag, const uint8_t *junc, ksw_extz_t *ez)
{
	warpalign_ksw_exts2_job j;
	j.qlen = qlen, j.query = query, j.tlen = tlen, j.target = target, j.m = m, j.mat = mat;
	j.q = gapo, j.e = gape, j.q2 = gapo2, j.noncan = noncan, j.zdrop = zdrop, j.end_bonus = end_bonus;
	j.junc_bonus = junc_bonus, j.junc_pen = junc_pen, j.flag = flag, j.junc = junc;
	mmw_ksw(km, MMW_EXTS2, &j, qlen, tlen, flag, ez);
}

/* Whether two calls are the same: every argument and every anchor. */
static int mmw_chain_same_job(const warpalign_chain_dp_job *x, const warpalign_chain_dp_job *y)
{
	if (x->max_dist_x != y->max_dist_x || x->max_dist_y != y->max_dist_y || x->bw != y->bw || x->max_skip != y->max_skip
		|| x->max_iter != y->max_iter || x->min_cnt != y->min_cnt || x->min_sc != y->min_sc
		|| memcmp(&x->chn_pen_gap, &y->chn_pen_gap, sizeof(float)) != 0 || memcmp(&x->chn_pen_skip, &y->chn_pen_skip, sizeof(float)) != 0
		|| x->is_cdna != y->is_cdna || x->n_seg != y->n_seg || x->n_anchors != y->n_anchors)
		return 0;
	if (x->n_anchors > 0 && (x->anchors == 0 || y->anchors == 0)) return 0;
	return x->n_anchors == 0 || memcmp(x->anchors, y->anchors, x->n_anchors * sizeof(mm128_t)) == 0;
}

/* A chain engine's answer handed over as upstream's chainers return theirs: u[] and the compacted anchors in
 * km, the input anchors a freed. */
static mm128_t *mmw_chain_answer(warpalign_chain_dp_result *res, mm128_t *a, int *n_u_, uint64_t **_u, void *km)
{
	warpalign_chain_dp_result r = *res;
	int32_t i, n_u;
	int64_t n_v;
	uint64_t *u;
	mm128_t *b;

	n_u = r.n_chains, n_v = -1;
	if (n_u == 0) n_v = 0;
	else if (n_u > 0 && r.chains && r.anchors)
		for (i = 0, n_v = 0; i < n_u; ++i) n_v += (uint32_t)r.chains[i];
	if (n_u < 0 || n_v < 0 || (n_u > 0 && n_v != r.n_anchors)) {
		warpalign_chain_dp_results_free(res, 1);
		mmw_die("chain result with inconsistent chains and anchors");
	}
	u = n_u > 0? Kmalloc(km, uint64_t, n_u) : 0; /* upstream: Kmalloc(km, uint64_t, 0) is NULL */
	if (n_u > 0) memcpy(u, r.chains, (size_t)n_u * sizeof(uint64_t));
	*n_u_ = n_u, *_u = u;
	if (n_u == 0) {
		kfree(km, a);
		warpalign_chain_dp_results_free(res, 1);
		return 0;
	}
	b = Kmalloc(km, mm128_t, n_v);
	memcpy(b, r.anchors, (size_t)n_v * sizeof(mm128_t));
	kfree(km, a);
	warpalign_chain_dp_results_free(res, 1);
	return b;
}

mm128_t *mmw_lchain_dp(int max_dist_x, int max_dist_y, int bw, int max_skip, int max_iter, int min_cnt, int min_sc, float chn_pen_gap, float chn_pen_skip,
					   int is_cdna, int n_seg, int64_t n, mm128_t *a, int *n_u_, uint64_t **_u, void *km)
{
	warpalign_chain_dp_job j;
	warpalign_chain_dp_result r;
	mmw_seeds_t *s = mmw_cur.chain_answer;

	mmw_cur.chain_answer = 0;
	if (_u) *_u = 0, *n_u_ = 0;
	j.max_dist_x = max_dist_x, j.max_dist_y = max_dist_y, j.bw = bw, j.max_skip = max_skip, j.max_iter = max_iter;
	j.min_cnt = min_cnt, j.min_sc = min_sc, j.chn_pen_gap = chn_pen_gap, j.chn_pen_skip = chn_pen_skip;
	j.is_cdna = is_cdna, j.n_seg = n_seg, j.n_anchors = n, j.anchors = (const warpalign_anchor*)a;
	memset(&r, 0, sizeof(r));
	if (s && mmw_chain_same_job(&s->job, &j)) { /* the seed pass's call, computed in the batch */
		r = s->res;
		memset(&s->res, 0, sizeof(s->res));
	} else if (n == 0 || a == 0) {
		if (s) mmw_seeds_free(s);
		kfree(km, a);
		return 0;
	} else mmw_check(warpalign_chain_dp_batch(mmw_get_cpu_ctx(), &j, 1, &r));
	if (s) mmw_seeds_free(s);

	return mmw_chain_answer(&r, a, n_u_, _u, km);
}

/* mg_lchain_rmq by the chain engine on the CPU (the fill without krmq's trees where it gives the trees' result,
 * else by them): the same chains and anchors, in km. Where the engine stops (upstream's asserts, memory), upstream's
 * own function runs the call, so that it fails as upstream fails. */
mm128_t *mmw_lchain_rmq(int max_dist, int max_dist_inner, int bw, int max_chn_skip, int cap_rmq_size, int min_cnt, int min_sc,
						float chn_pen_gap, float chn_pen_skip, int64_t n, mm128_t *a, int *n_u_, uint64_t **_u, void *km)
{
	warpalign_chain_rmq_job j;
	warpalign_chain_dp_result r;

	if (_u) *_u = 0, *n_u_ = 0;
	if (n == 0 || a == 0) {
		kfree(km, a);
		return 0;
	}
	j.max_dist = max_dist, j.max_dist_inner = max_dist_inner, j.bw = bw, j.max_chn_skip = max_chn_skip, j.cap_rmq_size = cap_rmq_size;
	j.min_cnt = min_cnt, j.min_sc = min_sc, j.chn_pen_gap = chn_pen_gap, j.chn_pen_skip = chn_pen_skip;
	j.n_anchors = n, j.anchors = (const warpalign_anchor*)a;
	memset(&r, 0, sizeof(r));
	if (warpalign_chain_rmq_batch(mmw_get_cpu_ctx(), &j, 1, &r) != WARPALIGN_STATUS_OK)
		return mg_lchain_rmq(max_dist, max_dist_inner, bw, max_chn_skip, cap_rmq_size, min_cnt, min_sc, chn_pen_gap, chn_pen_skip, n, a, n_u_, _u, km);
	return mmw_chain_answer(&r, a, n_u_, _u, km);
}

/* Seeding on the GPU (WARPALIGN_SEED_GPU: auto, the default, with a GPU that runs; 1 also waits for its start;
 * 0 off). The index goes to the GPU in the background, from when it is loaded (mmw_seed_index); as each part of
 * the input is read (worker_pipeline's step 0), a thread seeds its one-segment reads in one batch call
 * (mmw_seed_part), beside the reading of the next part and the mapping of the previous one; the part's mapping
 * step waits for it (mmw_seed_wait), and mm_map_frag_core takes a read's minimizers, anchors, rep_len and
 * mini_pos from it (mmw_seed_take) where it would seed: the engine's are upstream's, field for field. Not with
 * the short-read presets' heap merge, --sdust-thres (a CPU scan), debug output, or for the reads of a pair
 * (mm_map_frag_core sees them otherwise than as read); those, parts read while the index is not yet on the GPU
 * (in auto mode nothing waits for it), and batches the GPU fails seed as upstream. */
static int mmw_seed_gpu(void)
{
	const char *env = getenv("WARPALIGN_SEED_GPU");
	if (env == 0 || *env == 0 || strcmp(env, "auto") == 0) return -1;
	if (strcmp(env, "0") != 0 && strcmp(env, "1") != 0) mmw_die("WARPALIGN_SEED_GPU must be 0, 1 or auto");
	return env[0] == '1';
}

static int mmw_seed_may(const mm_mapopt_t *opt)
{
	return !(opt->flag & MM_F_HEAP_SORT) && opt->sdust_thres <= 0 && !mm_dbg_flag && mmw_seed_gpu() != 0;
}

static struct {
	pthread_mutex_t lock;
	const mm_idx_t *mi;        /* the index of the pipeline (NULL: none maps) */
	warpalign_seed_index *idx; /* its upload (NULL: not on the GPU) */
	pthread_t thread;          /* uploading it */
	int started;               /* the thread exists, not joined */
	int done;                  /* the upload is over (atomic) */
	int64_t bases;             /* read bases seen, for the GPU's start */
} mmw_seed = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, 0 };

static void *mmw_seed_index_main(void *arg)
{
	warpalign_seed_index *idx = 0;
	double t0 = realtime(), t1;
	const warpalign_ctx *ctx = mmw_get_ctx();
	t1 = realtime();
	mmw_check(warpalign_seed_index_create(ctx, arg, 1, &idx));
	if (idx && mm_verbose >= 3)
		fprintf(stderr, "[M::warpalign::%.3f*%.2f] the index is on the GPU: %.3f sec waiting for its start, %.3f sec uploading\n",
				realtime() - mm_realtime0, cputime() / (realtime() - mm_realtime0), t1 - t0, realtime() - t1);
	else if (mm_verbose >= 3 && mmw_gpu_state() == 1) /* (no GPU: the engines' notice says so) */
		fprintf(stderr, "[M::warpalign::%.3f*%.2f] the index is not on the GPU (it needs more than three quarters of the free memory, or its upload failed): seeding on the CPU\n",
				realtime() - mm_realtime0, cputime() / (realtime() - mm_realtime0));
	mmw_seed.idx = idx;
	__atomic_store_n(&mmw_seed.done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Starts the upload of the pipeline's index unless begun; with the lock held. */
static void mmw_seed_upload(void)
{
	if (mmw_seed.started || mmw_seed.done || mmw_seed.mi == 0) return;
	if (pthread_create(&mmw_seed.thread, 0, mmw_seed_index_main, (void*)mmw_seed.mi) == 0) mmw_seed.started = 1;
	else mmw_seed.done = 1;
}

/* Waits for the upload when it runs; with the lock held. */
static void mmw_seed_join(void)
{
	if (mmw_seed.started) pthread_join(mmw_seed.thread, 0);
	mmw_seed.started = 0;
}

/* Forgets the index (the pipelines that used it are over); with the lock held. */
static void mmw_seed_reset(const mm_idx_t *mi)
{
	mmw_seed_join();
	warpalign_seed_index_destroy(mmw_seed.idx);
	mmw_seed.idx = 0, mmw_seed.done = 0, mmw_seed.mi = mi;
}

int mmw_sketch_by_threads(const char **seqs, const int32_t *lens, const uint32_t *rids, int n, int w, int k, int is_hpc, int n_threads,
						  mm128_t **out, size_t *n_out)
{
	warpalign_anchor *a = 0;
	if (warpalign_seed_sketch(seqs, lens, rids, n, w, k, is_hpc, n_threads, &a, n_out) != WARPALIGN_STATUS_OK) return 0;
	*out = (mm128_t*)a;
	return 1;
}

void mmw_seed_index(const mm_idx_t *mi, const mm_mapopt_t *opt)
{
	pthread_mutex_lock(&mmw_seed.lock);
	mmw_seed_reset(mi);
	/* at once when the GPU is starting or asked for: the upload overlaps the index's statistics */
	if (mi && mmw_seed_may(opt) && (__atomic_load_n(&mmw_prepare_state, __ATOMIC_ACQUIRE) != 0 || mmw_seed_gpu() == 1
			|| warpalign_requested_backend() == WARPALIGN_BACKEND_REQUEST_GPU))
		mmw_seed_upload();
	pthread_mutex_unlock(&mmw_seed.lock);
}

void mmw_seed_begin(const mm_idx_t *mi)
{
	pthread_mutex_lock(&mmw_seed.lock);
	if (mi != mmw_seed.mi) mmw_seed_reset(mi); /* a pipeline main() did not name (the merge of --split-prefix: none) */
	pthread_mutex_unlock(&mmw_seed.lock);
}

struct mmw_seed_part_s {
	warpalign_seed_results *res; /* NULL: none seeded */
	long n_reads;
	double sec;                  /* the batch call's wall time */
	long *frag_read;             /* fragment -> read of the results, -1: none */
	const char **seq;            /* what each read was */
	int *len;
	warpalign_seed_read *reads;
	warpalign_seed_options o;
	const warpalign_seed_index *idx;
	pthread_t thread;
	int running;
};

static __thread struct { /* the seeded read of the fragment this thread maps */
	const warpalign_seed_results *res;
	long r;
	const char *seq;
	int len;
} mmw_seed_cur;

static void *mmw_seed_part_main(void *arg)
{
	mmw_seed_part_t *part = (mmw_seed_part_t*)arg;
	double t = realtime();
	mmw_check(warpalign_seed_batch(mmw_get_ctx(), part->idx, &part->o, part->reads, part->n_reads, &part->res));
	part->sec = realtime() - t;
	free(part->reads);
	part->reads = 0;
	return 0;
}

mmw_seed_part_t *mmw_seed_part(const mm_idx_t *mi, const mm_mapopt_t *opt, const mm_bseq1_t *seq, int n_frag, const int *seg_off, const int *n_seg)
{
	int asked = warpalign_requested_backend() == WARPALIGN_BACKEND_REQUEST_GPU || mmw_seed_gpu() == 1;
	long i, n = 0;
	int64_t bases = 0;
	const warpalign_seed_index *idx = 0;
	mmw_seed_part_t *part;
	if (mi == 0 || n_frag <= MMW_FEW_FRAGS || !mmw_seed_may(opt)) return 0;
	for (i = 0; i < n_frag; ++i) bases += seq[seg_off[i]].l_seq;
	if (asked || __atomic_add_fetch(&mmw_seed.bases, bases, __ATOMIC_RELAXED) >= MMW_START_BASES) mmw_start(opt);
	if (asked) mmw_wait_gpu();
	if (mmw_gpu_state() != 1) return 0;
	pthread_mutex_lock(&mmw_seed.lock);
	if (mmw_seed.mi == mi) {
		mmw_seed_upload();
		if (asked) mmw_seed_join();
		if (__atomic_load_n(&mmw_seed.done, __ATOMIC_ACQUIRE)) idx = mmw_seed.idx;
	}
	pthread_mutex_unlock(&mmw_seed.lock);
	if (idx == 0) return 0;
	part = (mmw_seed_part_t*)calloc(1, sizeof(mmw_seed_part_t));
	part->frag_read = (long*)malloc(n_frag * sizeof(long));
	part->seq = (const char**)malloc(n_frag * sizeof(const char*));
	part->len = (int*)malloc(n_frag * sizeof(int));
	part->reads = (warpalign_seed_read*)malloc(n_frag * sizeof(warpalign_seed_read));
	for (i = 0; i < n_frag; ++i) {
		const mm_bseq1_t *t = &seq[seg_off[i]];
		part->frag_read[i] = -1;
		if (n_seg[i] != 1 || t->l_seq <= 0) continue;
		part->frag_read[i] = n, part->seq[n] = t->seq, part->len[n] = t->l_seq;
		part->reads[n].n_segs = 1, part->reads[n].qlens = &t->l_seq, part->reads[n].seqs = (const char *const*)&t->seq;
		part->reads[n].qname = (opt->flag & (MM_F_NO_DIAG | MM_F_NO_DUAL))? t->name : 0;
		++n;
	}
	part->n_reads = n, part->idx = idx;
	part->o.w = mi->w, part->o.k = mi->k, part->o.is_hpc = !!(mi->flag & MM_I_HPC), part->o.sdust_thres = opt->sdust_thres;
	part->o.q_occ_frac = opt->q_occ_frac, part->o.mid_occ = opt->mid_occ, part->o.max_occ = opt->mid_occ;
	part->o.max_max_occ = opt->max_max_occ, part->o.occ_dist = opt->occ_dist, part->o.flag = opt->flag;
	part->o.keep_mv = opt->max_occ > opt->mid_occ; /* the re-chain seeds again from them; nothing else reads them */
	if (pthread_create(&part->thread, 0, mmw_seed_part_main, part) == 0) part->running = 1;
	else mmw_seed_part_main(part);
	return part;
}

void mmw_seed_wait(mmw_seed_part_t *part)
{
	if (part && part->running) {
		pthread_join(part->thread, 0);
		part->running = 0;
	}
}

void mmw_seed_frag(const mmw_seed_part_t *part, long i)
{
	memset(&mmw_seed_cur, 0, sizeof(mmw_seed_cur));
	if (part == 0 || part->res == 0 || part->frag_read[i] < 0) return;
	mmw_seed_cur.res = part->res, mmw_seed_cur.r = part->frag_read[i];
	mmw_seed_cur.seq = part->seq[mmw_seed_cur.r], mmw_seed_cur.len = part->len[mmw_seed_cur.r];
}

int mmw_seed_take(void *km, int n_segs, const int *qlens, const char **seqs, mm128_v *mv, mm128_t **a, int64_t *n_a, int *rep_len, int *n_mini_pos, uint64_t **mini_pos)
{
	warpalign_seed_view v;
	if (mmw_seed_cur.res == 0 || n_segs != 1 || qlens[0] != mmw_seed_cur.len || seqs[0] != mmw_seed_cur.seq) return 0;
	/* taken once (a later pass that seeds the read again, rare, seeds it as upstream) */
	if (warpalign_seed_results_get(mmw_seed_cur.res, mmw_seed_cur.r, &v) != WARPALIGN_STATUS_OK) return 0;
	mv->n = mv->m = v.n_mv;
	mv->a = Kmalloc(km, mm128_t, v.n_mv > 0? v.n_mv : 1);
	if (v.n_mv > 0) memcpy(mv->a, v.mv, v.n_mv * sizeof(mm128_t));
	*n_a = (int64_t)v.n_a;
	*a = Kmalloc(km, mm128_t, v.n_a > 0? v.n_a : 1);
	if (v.n_a > 0) memcpy(*a, v.a, v.n_a * sizeof(mm128_t));
	*rep_len = v.rep_len, *n_mini_pos = (int)v.n_mini_pos;
	*mini_pos = Kmalloc(km, uint64_t, v.n_mini_pos > 0? v.n_mini_pos : 1);
	if (v.n_mini_pos > 0) memcpy(*mini_pos, v.mini_pos, v.n_mini_pos * sizeof(uint64_t));
	warpalign_seed_results_release(mmw_seed_cur.res, mmw_seed_cur.r);
	return 1;
}

void mmw_seed_part_free(mmw_seed_part_t *part)
{
	if (part == 0) return;
	mmw_seed_wait(part);
	if (mm_verbose >= 3 && part->res)
		fprintf(stderr, "[M::warpalign::%.3f*%.2f] %ld reads seeded in one batch call on the GPU, %.3f sec\n",
				realtime() - mm_realtime0, cputime() / (realtime() - mm_realtime0), part->n_reads, part->sec);
	warpalign_seed_results_free(part->res);
	free(part->frag_read), free(part->seq), free(part->len), free(part->reads);
	free(part);
}
