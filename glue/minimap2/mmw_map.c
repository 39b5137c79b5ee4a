/* warpalign glue for map.c, included at its end (it reaches map.c's pipeline_t, step_t and worker_for):
 * worker_pipeline's step 1 runs the batch's passes (map_batch), step 2 the final one (map_batch_final). */

static void map_batch(const pipeline_t *p, step_t *s) // kt_for over the fragments, in speculative-batching passes when warpalign can
{
	int i, j;
	int64_t *frag_len = (int64_t*)malloc((s->n_frag > 0? s->n_frag : 1) * sizeof(int64_t));
	mmw_seed_wait(s->mmw_seeds); // its reads seeded on the GPU while it was read

	for (i = 0; i < s->n_frag; ++i)
		for (j = 0, frag_len[i] = 0; j < s->n_seg[i]; ++j) frag_len[i] += s->seq[s->seg_off[i] + j].l_seq;
	s->mmw = mmw_batch_begin(p->opt, s->n_frag, frag_len);
	free(frag_len);
	if (s->mmw == 0) {
		kt_for(p->n_threads, worker_for, s, s->n_frag);
		return;
	}
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
