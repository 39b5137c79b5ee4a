#ifndef WARPALIGN_MM2_H
#define WARPALIGN_MM2_H

/* warpalign glue for minimap2: drop-in replacements for ksw_ext{d,s,z}2_sse() and mg_lchain_dp() that
 * run on warpalign's engines (GPU when available) and leave every output, including km-allocated
 * buffers, in exactly the state the upstream functions leave. See warpalign_mm2.c. */

#include <stdint.h>
#include <stdio.h>
#include "minimap.h"
#include "bseq.h"
#include "ksw2.h"

#ifdef __cplusplus
extern "C" {
#endif

void mmw_ksw_extz2(void *km, int qlen, const uint8_t *query, int tlen, const uint8_t *target, int8_t m, const int8_t *mat,
				   int8_t q, int8_t e, int w, int zdrop, int end_bonus, int flag, ksw_extz_t *ez);

void mmw_ksw_extd2(void *km, int qlen, const uint8_t *query, int tlen, const uint8_t *target, int8_t m, const int8_t *mat,
				   int8_t gapo, int8_t gape, int8_t gapo2, int8_t gape2, int w, int zdrop, int end_bonus, int flag, ksw_extz_t *ez);

void mmw_ksw_exts2(void *km, int qlen, const uint8_t *query, int tlen, const uint8_t *target, int8_t m, const int8_t *mat,
				   int8_t gapo, int8_t gape, int8_t gapo2, int8_t noncan, int zdrop, int end_bonus, int8_t junc_bonus, int8_t junc_pen, int flag, const uint8_t *junc, ksw_extz_t *ez);

mm128_t *mmw_lchain_dp(int max_dist_x, int max_dist_y, int bw, int max_skip, int max_iter, int min_cnt, int min_sc, float chn_pen_gap, float chn_pen_skip,
					   int is_cdna, int n_seg, int64_t n, mm128_t *a, int *n_u_, uint64_t **_u, void *km);
mm128_t *mmw_lchain_rmq(int max_dist, int max_dist_inner, int bw, int max_chn_skip, int cap_rmq_size, int min_cnt, int min_sc,
						float chn_pen_gap, float chn_pen_skip, int64_t n, mm128_t *a, int *n_u_, uint64_t **_u, void *km);

/* Speculative batching of one batch of reads (see warpalign_mm2.c). mmw_batch_begin() returns NULL when
 * batching is off: no CIGAR, debug output, or WARPALIGN_SPECULATE=0 (default "auto": on with a GPU);
 * frag_len[i] is fragment i's length in bases. Per pass: kt_for over the fragments, each worker calling
 * mmw_frag_begin() (0: skip the fragment in this pass) and mmw_frag_end(). In the mapping step: record
 * passes, their outputs thrown away, while mmw_batch_next() says 1. In the output step: mmw_batch_final(),
 * the final pass (its output is minimap2's), mmw_batch_end(). */
typedef struct mmw_batch_s mmw_batch_t;
/* Checks the library's variables; starts the GPU in the background when the query files are large. */
void mmw_start_early(const mm_mapopt_t *opt, int n_files, char *const *files);
void mmw_exit_ready(void); /* before main() returns 0: waits for GPU batches; a GPU start in flight ends the process */
/* Reading a pipeline's batches (mmw_read_chunk in warpalign_mm2.c): mmw_reads_begin() before kt_pipeline;
 * each read asks for mmw_read_chunk() bases in place of -K's, then mmw_read_done() gives the count of
 * upstream's "mapped N sequences" line to write once that part is written (0: none yet); after kt_pipeline,
 * mmw_reads_end() gives the count of a line still owed (0: none). */
void mmw_reads_begin(const mm_mapopt_t *opt, int frag_mode);
int64_t mmw_read_chunk(const mm_mapopt_t *opt);
int mmw_read_done(const mm_bseq1_t *seq, int n_seq);
int mmw_reads_end(void);
int mmw_trace_on(void); /* WARPALIGN_TRACE=1: per part its reading, wait for its seeds and mapping on stderr */
int mmw_pipeline_threads(const mm_mapopt_t *opt, int n_threads, int upstream); /* kt_pipeline's threads */
mmw_batch_t *mmw_batch_begin(const mm_mapopt_t *opt, long n_frag, const int64_t *frag_len);
int mmw_batch_next(mmw_batch_t *b);
void mmw_batch_final(mmw_batch_t *b);
void mmw_batch_end(mmw_batch_t *b);
int mmw_frag_begin(mmw_batch_t *b, long i);
void mmw_frag_end(void);

/* mm_map_frag_core's state where alignment starts: saved in the first pass (mmw_frag_snapshot), restored
 * in later passes (mmw_frag_resume returns 1: continue from there; a, regs newly allocated in km / malloc). */
void mmw_frag_snapshot(int n_regs, const mm_reg1_t *regs, int64_t n_a, const mm128_t *a, int rep_len, int frag_gap);
int mmw_frag_resume(void *km, int *n_regs, mm_reg1_t **regs, mm128_t **a, int *rep_len, int *frag_gap);

/* Batched chaining (WARPALIGN_CHAIN_BATCH=1; off by default): in a seed pass before the others,
 * mm_map_frag_core stops at its first mg_lchain_dp call, which mmw_chain_defer saves with the state it needs
 * (returns 1: free a, mv.a and mini_pos and return); the batch's calls are computed in one batch call; the
 * next pass resumes there (mmw_chain_resume returns 1: skip seeding; mv.a, a, mini_pos newly allocated in
 * km) and its mmw_lchain_dp call takes the batch's answer when it is the same call. */
int mmw_chain_defer(int max_dist_x, int max_dist_y, int bw, int max_skip, int max_iter, int min_cnt, int min_sc, float chn_pen_gap, float chn_pen_skip,
					int is_cdna, int n_seg, int64_t n_a, const mm128_t *a, const mm128_v *mv, int rep_len, int n_mini_pos, const uint64_t *mini_pos);
int mmw_chain_resume(void *km, mm128_v *mv, mm128_t **a, int64_t *n_a, int *rep_len, int *n_mini_pos, uint64_t **mini_pos);

/* Seeding on the GPU (see warpalign_mm2.c): mmw_seed_index(mi, opt) as an index is loaded for mapping (its
 * upload begins); mmw_seed_begin(mi) before a pipeline (NULL when it does not map); mmw_seed_part() starts the
 * seeding of a part's one-segment reads as it is read (NULL: none seeded), mmw_seed_wait() before its mapping,
 * mmw_seed_part_free() once its output is written; each worker calls mmw_seed_frag() for its fragment, and
 * mm_map_frag_core mmw_seed_take() where it would seed (returns 1: mv.a, a, mini_pos newly allocated in km). */
typedef struct mmw_seed_part_s mmw_seed_part_t;
void mmw_seed_index(const mm_idx_t *mi, const mm_mapopt_t *opt);
void mmw_seed_begin(const mm_idx_t *mi);
mmw_seed_part_t *mmw_seed_part(const mm_idx_t *mi, const mm_mapopt_t *opt, const mm_bseq1_t *seq, int n_frag, const int *seg_off, const int *n_seg);
void mmw_seed_wait(mmw_seed_part_t *part);
void mmw_seed_frag(const mmw_seed_part_t *part, long i);
int mmw_seed_take(void *km, int n_segs, const int *qlens, const char **seqs, mm128_v *mv, mm128_t **a, int64_t *n_a, int *rep_len, int *n_mini_pos, uint64_t **mini_pos);
void mmw_seed_part_free(mmw_seed_part_t *part);

/* The index's loading, sketching and statistics by -t threads (mmw_index.c, included at index.c's end): main tells
 * mmw_idx_set_threads its -t; mm_idx_reader_read loads a prebuilt index by mmw_idx_load with its n_threads;
 * mm_idx_gen's steps 0, 1 and 2 pack a batch of sequences, sketch them and add them to the buckets by
 * mmw_idx_pack, mmw_idx_sketch and mmw_idx_add;
 * mm_mapopt_update's mid_occ is mmw_idx_cal_max_occ's, main's statistics mmw_idx_stat's. Each gives upstream's index and numbers.
 * WARPALIGN_INDEX_LOAD (mmw_index_mode): auto (threads), upstream, or verify (threads, checked against upstream's
 * functions: a difference stops the run). */
enum { MMW_INDEX_UPSTREAM, MMW_INDEX_THREADS, MMW_INDEX_VERIFY };
int mmw_index_mode(void);
void mmw_idx_set_threads(int n_threads);
mm_idx_t *mmw_idx_load(FILE *fp, int n_threads);
uint32_t mmw_idx_pack(uint32_t *S, uint64_t off, const char *seq, uint32_t len);
int mmw_idx_sketch(const mm_bseq1_t *seq, int n_seq, const mm_idx_t *mi, mm128_v *a);
void mmw_idx_add(mm_idx_t *mi, int n, const mm128_t *a);
/* warpalign_seed_sketch: 1 with *out malloc'ed (NULL when *n_out is 0), 0 when the call failed */
int mmw_sketch_by_threads(const char **seqs, const int32_t *lens, const uint32_t *rids, int n, int w, int k, int is_hpc, int n_threads,
						  mm128_t **out, size_t *n_out);
int32_t mmw_idx_cal_max_occ(const mm_idx_t *mi, float f);
void mmw_idx_stat(const mm_idx_t *mi);

/* 1 when the last ksw answer of this thread was a record pass's stand-in: its Z-drop test is skipped. */
int mmw_zdrop_test_skipped(void);

/* --version's note on stderr: the linked warpalign library's version (stdout stays upstream's, which
 * pipelines record); touches no engine. */
void mmw_version_note(void);

#ifdef __cplusplus
}
#endif

#endif
