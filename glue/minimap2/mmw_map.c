/* warpalign glue for map.c, included at its end (it reaches map.c's pipeline_t, step_t and worker_for):
 * worker_pipeline's step 1 runs the batch's passes (map_batch), step 2 the final one (map_batch_final). */

#include <pthread.h>

typedef struct {
	step_t *s;
	const int64_t *order; /* fragments, longest first */
} longest_first_t;

static void worker_longest_first(void *data, long i, int tid)
{
	longest_first_t *l = (longest_first_t*)data;
	worker_for(l->s, (long)l->order[i], tid);
}

static int frag_longer(const void *a, const void *b) /* (length, index) pairs: longer first, then by index */
{
	const int64_t *x = (const int64_t*)a, *y = (const int64_t*)b;
	return x[0] != y[0]? (x[0] > y[0]? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Each fragment's length (its segments' bases) into frag_len, and the fragments' indices, longest first (ties by
 * index): a new array. */
static int64_t *frag_order(const step_t *s, int64_t *frag_len)
{
	int64_t *pairs = (int64_t*)malloc((s->n_frag > 0? s->n_frag : 1) * 2 * sizeof(int64_t));
	int i, j;
	for (i = 0; i < s->n_frag; ++i) {
		for (j = 0, frag_len[i] = 0; j < s->n_seg[i]; ++j) frag_len[i] += s->seq[s->seg_off[i] + j].l_seq;
		pairs[2*i] = frag_len[i], pairs[2*i+1] = i;
	}
	qsort(pairs, s->n_frag, 2 * sizeof(int64_t), frag_longer);
	for (i = 0; i < s->n_frag; ++i) pairs[i] = pairs[2*i+1]; /* the indices, packed in place */
	return pairs;
}

/* kt_for over the fragments in `order`: each fragment's mapping is its own (its output goes to its slot; a thread's
 * kalloc changes no result), so handing out the longest first only shortens the tail of threads finishing alone (the
 * debug lines' order, which threads already make vary, aside; a speculating pass has none). */
static void map_in_order(const pipeline_t *p, step_t *s, const int64_t *order)
{
	longest_first_t l;
	l.s = s, l.order = order;
	kt_for(p->n_threads, worker_longest_first, &l, s->n_frag);
}

static void finish_start(const pipeline_t *p, step_t *s, int64_t *order);

static void map_batch(const pipeline_t *p, step_t *s) // kt_for over the fragments, in speculative-batching passes when warpalign can
{
	int i, j;
	int64_t *frag_len = (int64_t*)malloc((s->n_frag > 0? s->n_frag : 1) * sizeof(int64_t)), *order;
	double t0 = realtime(), t1;
	mmw_seed_wait(s->mmw_seeds); // its reads seeded on the GPU while it was read
	t1 = realtime();

	order = frag_order(s, frag_len);
	s->mmw = mmw_batch_begin(p->opt, s->n_frag, frag_len);
	free(frag_len);
	if (s->mmw == 0) {
		if (p->n_threads > 1 && !mm_dbg_flag) map_in_order(p, s, order);
		else kt_for(p->n_threads, worker_for, s, s->n_frag); // one thread's debug lines in upstream's order
		free(order);
		if (mmw_trace_on())
			fprintf(stderr, "[warpalign %.3f] mapped %d fragments in %.3f s after %.3f s waiting for their seeds\n", realtime() - mm_realtime0, s->n_frag, realtime() - t1, t1 - t0);
		return;
	}
	if (mmw_trace_on()) fprintf(stderr, "[warpalign %.3f] waited %.3f s for the part's seeds\n", t1 - mm_realtime0, t1 - t0);
	do {
		map_in_order(p, s, order);
		for (i = 0; i < s->n_seq; ++i) { // a record pass's output
			for (j = 0; j < s->n_reg[i]; ++j) free(s->reg[i][j].p);
			free(s->reg[i]);
			s->reg[i] = 0, s->n_reg[i] = 0;
		}
	} while (mmw_batch_next(s->mmw));
	for (i = 0; i < p->n_threads; ++i) { // kalloc keeps each thread's largest read's memory (8 MB cores), idle until the final pass
		mm_tbuf_destroy(s->buf[i]);
		s->buf[i] = mm_tbuf_init();
	}
	finish_start(p, s, order);
}

/* Step 2's output formatted by threads: upstream's loop formats and writes one line at a time in the one thread of
 * the output step, which runs one part at a time. With -c an 8 Mb part of ultra-long reads writes about 4 MB of
 * CIGARs, 20 ms a part in that step (E. coli, 200 Mb, -t16: 0.48 s of 2.18). Here each fragment's lines go into its
 * own buffer as puts() writes them (the line up to its NUL, then a newline), fragments formatted by threads, and the
 * buffers are written in order: the same bytes. Not for --split-prefix's temporary files, nor with one thread. */
#define WRITE_WINDOW_BASES 4000000 /* step 2 formats a batch in windows: -K bases of SAM are never held whole */
#define WRITE_WINDOW_FRAGS 65536

typedef struct {
	const pipeline_t *p;
	step_t *s;
	long first;      /* the first fragment formatted */
	kstring_t *out;  /* a buffer a fragment */
	kstring_t *line; /* a line a thread */
	void **km;       /* a kalloc arena a thread, where upstream's step has one (--cs) */
} part_writer_t;

static void put_line(kstring_t *out, const char *line)
{
	size_t n = strlen(line);
	if (out->l + n + 1 > out->m) {
		size_t m = out->l + n + 1;
		m += m >> 1;
		out->s = (char*)realloc(out->s, m);
		if (out->s == 0) {
			fprintf(stderr, "[ERROR] out of memory formatting the results\n");
			exit(EXIT_FAILURE);
		}
		out->m = m;
	}
	memcpy(out->s + out->l, line, n);
	out->l += n;
	out->s[out->l++] = '\n';
}

static void write_frag(void *data, long w_i, int tid) // upstream's step 2 for one fragment, into its buffer
{
	part_writer_t *w = (part_writer_t*)data;
	const pipeline_t *p = w->p;
	step_t *s = w->s;
	const mm_idx_t *mi = p->mi;
	kstring_t *str = &w->line[tid], *out = &w->out[w_i];
	void *km = w->km[tid];
	long k = w->first + w_i;
	int i, j, seg_st = s->seg_off[k], seg_en = s->seg_off[k] + s->n_seg[k];
	out->l = 0;
	for (i = seg_st; i < seg_en; ++i) {
		mm_bseq1_t *t = &s->seq[i];
		if (p->opt->flag & MM_F_OUT_JUNC) {
			for (j = 0; j < s->n_reg[i]; ++j) {
				const mm_reg1_t *r = &s->reg[i][j];
				if (r->id != r->parent || r->mapq < 10) continue;
				mm_write_junc(str, mi, t, r);
				if (str->l > 0) put_line(out, str->s);
			}
		} else if (s->n_reg[i] > 0) {
			for (j = 0; j < s->n_reg[i]; ++j) {
				const mm_reg1_t *r = &s->reg[i][j];
				assert(!r->sam_pri || r->id == r->parent);
				if ((p->opt->flag & MM_F_NO_PRINT_2ND) && r->id != r->parent)
					continue;
				if (p->opt->flag & MM_F_OUT_SAM)
					mm_write_sam3(str, mi, t, i - seg_st, j, s->n_seg[k], &s->n_reg[seg_st], (const mm_reg1_t*const*)&s->reg[seg_st], km, p->opt->flag, s->rep_len[i]);
				else
					mm_write_paf4(str, mi, t, r, km, p->opt->flag, s->rep_len[i], s->n_seg[k], i - seg_st);
				put_line(out, str->s);
			}
		} else if ((p->opt->flag & MM_F_PAF_NO_HIT) || ((p->opt->flag & MM_F_OUT_SAM) && !(p->opt->flag & MM_F_SAM_HIT_ONLY))) {
			if (p->opt->flag & MM_F_OUT_SAM)
				mm_write_sam3(str, mi, t, i - seg_st, -1, s->n_seg[k], &s->n_reg[seg_st], (const mm_reg1_t*const*)&s->reg[seg_st], km, p->opt->flag, s->rep_len[i]);
			else
				mm_write_paf4(str, mi, t, 0, 0, p->opt->flag, s->rep_len[i], s->n_seg[k], i - seg_st);
			put_line(out, str->s);
		}
	}
	for (i = seg_st; i < seg_en; ++i) {
		for (j = 0; j < s->n_reg[i]; ++j) free(s->reg[i][j].p);
		free(s->reg[i]);
		free(s->seq[i].seq); free(s->seq[i].name);
		if (s->seq[i].qual) free(s->seq[i].qual);
		if (s->seq[i].comment) free(s->seq[i].comment);
	}
}

static int formats_by_threads(const pipeline_t *p)
{
	return !(p->opt->split_prefix && p->n_parts == 0) && p->n_threads > 1;
}

/* Formats fragments first.. first + n - 1 into out[0..n) and frees their reads and regions. */
static void format_frags(const pipeline_t *p, step_t *s, long first, long n, kstring_t *out)
{
	part_writer_t w;
	int t;
	w.p = p, w.s = s, w.first = first, w.out = out;
	w.line = (kstring_t*)calloc(p->n_threads, sizeof(kstring_t));
	w.km = (void**)calloc(p->n_threads, sizeof(void*));
	for (t = 0; t < p->n_threads; ++t)
		if ((p->opt->flag & MM_F_OUT_CS) && !(mm_dbg_flag & MM_DBG_NO_KALLOC)) w.km[t] = km_init();
	kt_for(p->n_threads, write_frag, &w, n);
	for (t = 0; t < p->n_threads; ++t) free(w.line[t].s), km_destroy(w.km[t]);
	free(w.line), free(w.km);
}

static void put_frags(const kstring_t *out, long n)
{
	long j;
	for (j = 0; j < n; ++j)
		if (out[j].l > 0 && fwrite(out[j].s, 1, out[j].l, stdout) != out[j].l) {
			perror("[ERROR] failed to write the results");
			exit(EXIT_FAILURE);
		}
}

/* A speculating batch's final pass, its end and its output's formatting run in a thread of their own from the end
 * of its mapping step (finish_start): step 2, which runs one part at a time, then only waits for it and writes. The
 * final pass waits for the batch's last GPU work; meanwhile the part before is written and the next is mapped.
 * The formatted output of a part held whole: parts of at most FINISH_FORMAT_BASES (speculating batches are read in
 * parts of 8 Mb); a larger one is formatted by step 2. */
#define FINISH_FORMAT_BASES 32000000

struct part_finish_s {
	pthread_t thread;
	int64_t *order; /* the fragments, longest first */
	kstring_t *out; /* each fragment's lines (NULL: step 2 formats them) */
};

static void *finish_main(void *arg)
{
	step_t *s = (step_t*)arg;
	const pipeline_t *p = s->p;
	int64_t bases = 0;
	int i;
	mmw_batch_final(s->mmw);
	map_in_order(p, s, s->finish->order);
	free(s->finish->order);
	s->finish->order = 0;
	mmw_batch_end(s->mmw);
	s->mmw = 0;
	for (i = 0; i < p->n_threads; ++i) { // the final pass's kalloc cores, freed here rather than in step 2
		mm_tbuf_destroy(s->buf[i]);
		s->buf[i] = mm_tbuf_init();
	}
	for (i = 0; i < s->n_seq; ++i) bases += s->seq[i].l_seq;
	if (formats_by_threads(p) && bases <= FINISH_FORMAT_BASES) {
		s->finish->out = (kstring_t*)calloc(s->n_frag > 0? s->n_frag : 1, sizeof(kstring_t));
		format_frags(p, s, 0, s->n_frag, s->finish->out);
	}
	return 0;
}

static void finish_start(const pipeline_t *p, step_t *s, int64_t *order) // takes order
{
	if (s->mmw == 0 || p->n_threads < 2) {
		free(order);
		return;
	}
	s->finish = (struct part_finish_s*)calloc(1, sizeof(struct part_finish_s));
	s->finish->order = order;
	if (pthread_create(&s->finish->thread, 0, finish_main, s) != 0) {
		fprintf(stderr, "[ERROR] warpalign: cannot start a thread\n");
		exit(EXIT_FAILURE);
	}
}

static void map_batch_final(const pipeline_t *p, step_t *s) // step 2: the final pass, while the next batch records
{
	if (s->finish) {
		pthread_join(s->finish->thread, 0);
		return;
	}
	if (s->mmw == 0) return;
	mmw_batch_final(s->mmw);
	kt_for(p->n_threads, worker_for, s, s->n_frag);
	mmw_batch_end(s->mmw);
	s->mmw = 0;
}

/* Writes the part's output and frees its reads and regions as step 2's loop does; 0: that loop is to run. */
static int write_part(const pipeline_t *p, step_t *s)
{
	kstring_t *out = 0;
	long k, end, n_out = 0, j;
	int i;
	if (s->finish) {
		struct part_finish_s *f = s->finish;
		s->finish = 0;
		if (f->out) {
			put_frags(f->out, s->n_frag);
			for (j = 0; j < s->n_frag; ++j) free(f->out[j].s);
			free(f->out), free(f);
			return 1;
		}
		free(f);
	}
	if (!formats_by_threads(p)) return 0;
	for (k = 0; k < s->n_frag; k = end) {
		int64_t bases = 0;
		for (end = k; end < s->n_frag && end - k < WRITE_WINDOW_FRAGS && bases < WRITE_WINDOW_BASES; ++end)
			for (i = 0; i < s->n_seg[end]; ++i) bases += s->seq[s->seg_off[end] + i].l_seq;
		if (end - k > n_out) {
			out = (kstring_t*)realloc(out, (end - k) * sizeof(kstring_t));
			memset(out + n_out, 0, (end - k - n_out) * sizeof(kstring_t));
			n_out = end - k;
		}
		format_frags(p, s, k, end - k, out);
		put_frags(out, end - k);
	}
	for (j = 0; j < n_out; ++j) free(out[j].s);
	free(out);
	return 1;
}

/* Reading ahead: while speculating, a thread of its own reads the parts (step 0's own code) and starts their seeding
 * on the GPU, one part ahead of the pipeline's step 0, which takes them in order. Otherwise a part is read only once
 * one of the pipeline's threads is free, which is when a part's output step ends; that step waits for the part's
 * last GPU work, so about every other part was read just before its mapping step and that step waited the whole
 * seeding (E. coli, 200 Mb of ultra-long reads, -c, -t16: 0.56 s of 2.2). The parts, their order and their reading
 * are step 0's. */
#define READ_AHEAD_PARTS 1

struct read_ahead_s {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	void *part[READ_AHEAD_PARTS];
	int head, n, ended; /* ended: the reading returned NULL (the input's end) */
};

static __thread int read_ahead_reader; /* this thread is the one reading ahead */

static void *read_ahead_main(void *arg)
{
	pipeline_t *p = (pipeline_t*)arg;
	struct read_ahead_s *r = p->ahead;
	void *s;
	read_ahead_reader = 1;
	do {
		pthread_mutex_lock(&r->lock);
		while (r->n == READ_AHEAD_PARTS) pthread_cond_wait(&r->cv, &r->lock);
		pthread_mutex_unlock(&r->lock);
		s = worker_pipeline(p, 0, 0);
		pthread_mutex_lock(&r->lock);
		if (s) r->part[(r->head + r->n++) % READ_AHEAD_PARTS] = s;
		else r->ended = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->lock);
	} while (s);
	return 0;
}

static void read_ahead_start(pipeline_t *p, int pl_threads)
{
	struct read_ahead_s *r;
	if (pl_threads < 4 || p->n_parts > 0) return; /* only beside the speculating pipeline (mmw_pipeline_threads) */
	r = (struct read_ahead_s*)calloc(1, sizeof(*r));
	pthread_mutex_init(&r->lock, 0);
	pthread_cond_init(&r->cv, 0);
	p->ahead = r;
	if (pthread_create(&r->thread, 0, read_ahead_main, p) != 0) {
		fprintf(stderr, "[ERROR] warpalign: cannot start a thread\n");
		exit(EXIT_FAILURE);
	}
}

/* In step 0: 1 with the next part (NULL at the input's end) when a thread reads ahead and this is not it. */
static int read_ahead_take(pipeline_t *p, void **part)
{
	struct read_ahead_s *r = p->ahead;
	if (r == 0 || read_ahead_reader) return 0;
	pthread_mutex_lock(&r->lock);
	while (r->n == 0 && !r->ended) pthread_cond_wait(&r->cv, &r->lock);
	if (r->n > 0) {
		*part = r->part[r->head];
		r->head = (r->head + 1) % READ_AHEAD_PARTS, --r->n;
		pthread_cond_broadcast(&r->cv);
	} else *part = 0;
	pthread_mutex_unlock(&r->lock);
	return 1;
}

static void read_ahead_stop(pipeline_t *p)
{
	struct read_ahead_s *r = p->ahead;
	if (r == 0) return;
	pthread_join(r->thread, 0); /* the pipeline ended: the reader met the input's end */
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cv);
	free(r);
	p->ahead = 0;
}
