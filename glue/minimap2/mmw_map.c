/* warpalign glue for map.c, included at its end (it reaches map.c's pipeline_t, step_t and worker_for):
 * worker_pipeline's step 1 runs the batch's passes (map_batch), step 2 the final one (map_batch_final). */

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

/* kt_for over the fragments, the longest handed out first: each fragment's mapping is its own (its output goes to
 * its slot; a thread's kalloc changes no result), so only the tail of threads finishing alone gets shorter (the
 * debug lines' order, which threads already make vary, aside). */
static void map_longest_first(const pipeline_t *p, step_t *s, const int64_t *frag_len)
{
	longest_first_t l;
	int64_t *pairs = (int64_t*)malloc((s->n_frag > 0? s->n_frag : 1) * 2 * sizeof(int64_t)), *order;
	int i;
	for (i = 0; i < s->n_frag; ++i) pairs[2*i] = frag_len[i], pairs[2*i+1] = i;
	qsort(pairs, s->n_frag, 2 * sizeof(int64_t), frag_longer);
	order = pairs; /* the indices, packed in place */
	for (i = 0; i < s->n_frag; ++i) order[i] = pairs[2*i+1];
	l.s = s, l.order = order;
	kt_for(p->n_threads, worker_longest_first, &l, s->n_frag);
	free(pairs);
}

static void map_batch(const pipeline_t *p, step_t *s) // kt_for over the fragments, in speculative-batching passes when warpalign can
{
	int i, j;
	int64_t *frag_len = (int64_t*)malloc((s->n_frag > 0? s->n_frag : 1) * sizeof(int64_t));
	double t0 = realtime(), t1;
	mmw_seed_wait(s->mmw_seeds); // its reads seeded on the GPU while it was read
	t1 = realtime();

	for (i = 0; i < s->n_frag; ++i)
		for (j = 0, frag_len[i] = 0; j < s->n_seg[i]; ++j) frag_len[i] += s->seq[s->seg_off[i] + j].l_seq;
	s->mmw = mmw_batch_begin(p->opt, s->n_frag, frag_len);
	if (s->mmw == 0) {
		if (p->n_threads > 1 && !mm_dbg_flag) map_longest_first(p, s, frag_len);
		else kt_for(p->n_threads, worker_for, s, s->n_frag); // one thread's debug lines in upstream's order
		free(frag_len);
		if (mmw_trace_on())
			fprintf(stderr, "[warpalign %.3f] mapped %d fragments in %.3f s after %.3f s waiting for their seeds\n", realtime() - mm_realtime0, s->n_frag, realtime() - t1, t1 - t0);
		return;
	}
	free(frag_len);
	if (mmw_trace_on()) fprintf(stderr, "[warpalign %.3f] waited %.3f s for the part's seeds\n", t1 - mm_realtime0, t1 - t0);
	do {
		kt_for(p->n_threads, worker_for, s, s->n_frag);
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
}

static void map_batch_final(const pipeline_t *p, step_t *s) // step 2: the final pass, while the next batch records
{
	if (s->mmw == 0) return;
	mmw_batch_final(s->mmw);
	kt_for(p->n_threads, worker_for, s, s->n_frag);
	mmw_batch_end(s->mmw);
	s->mmw = 0;
}
