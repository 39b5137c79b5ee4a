/* Upstream's static seeding steps of map.c, reachable from the tests: the shim compiles map.c unmodified and
 * forwards to them. */
#ifndef WARPALIGN_MM2_SEED_HITS_SHIM_H
#define WARPALIGN_MM2_SEED_HITS_SHIM_H
#include "minimap.h"
#include "mmpriv.h"

/* collect_minimizers(km, opt, mi, n_segs, qlens, seqs, mv) */
void warpalign_oracle_collect_minimizers(void *km, const mm_mapopt_t *opt, const mm_idx_t *mi, int n_segs,
                                         const int *qlens, const char **seqs, mm128_v *mv);
/* collect_seed_hits(km, opt, max_occ, mi, qname, mv, qlen, n_a, rep_len, n_mini_pos, mini_pos) */
mm128_t *warpalign_oracle_collect_seed_hits(void *km, const mm_mapopt_t *opt, int max_occ, const mm_idx_t *mi,
                                            const char *qname, const mm128_v *mv, int qlen, int64_t *n_a,
                                            int *rep_len, int *n_mini_pos, uint64_t **mini_pos);
/* collect_seed_hits_heap(...), same arguments */
mm128_t *warpalign_oracle_collect_seed_hits_heap(void *km, const mm_mapopt_t *opt, int max_occ, const mm_idx_t *mi,
                                                 const char *qname, const mm128_v *mv, int qlen, int64_t *n_a,
                                                 int *rep_len, int *n_mini_pos, uint64_t **mini_pos);
#endif
