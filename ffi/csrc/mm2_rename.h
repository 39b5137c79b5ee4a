/* Forced-included into every minimap2 file the oracle compiles: gives each global symbol a
 * warpalign_oracle_ prefix so the oracle can live in libwarpalign.a next to minimap2's own copies. */
#ifndef WARPALIGN_MM2_RENAME_H
#define WARPALIGN_MM2_RENAME_H
#define ksw_extd2_sse       warpalign_oracle_ksw_extd2_sse
#define ksw_extd2_sse41     warpalign_oracle_ksw_extd2_sse41
#define ksw_extd2_sse2      warpalign_oracle_ksw_extd2_sse2
#define ksw_exts2_sse       warpalign_oracle_ksw_exts2_sse
#define ksw_exts2_sse41     warpalign_oracle_ksw_exts2_sse41
#define ksw_exts2_sse2      warpalign_oracle_ksw_exts2_sse2
#define ksw_extz2_sse       warpalign_oracle_ksw_extz2_sse
#define ksw_extz2_sse41     warpalign_oracle_ksw_extz2_sse41
#define ksw_extz2_sse2      warpalign_oracle_ksw_extz2_sse2
#define __cpuidex           warpalign_oracle___cpuidex
#define mg_lchain_dp        warpalign_oracle_mg_lchain_dp
#define mg_lchain_rmq       warpalign_oracle_mg_lchain_rmq
#define mg_chain_backtrack  warpalign_oracle_mg_chain_backtrack
#define krmq_erase_lc_elem          warpalign_oracle_krmq_erase_lc_elem
#define krmq_find_lc_elem           warpalign_oracle_krmq_find_lc_elem
#define krmq_insert_lc_elem         warpalign_oracle_krmq_insert_lc_elem
#define krmq_interval_lc_elem       warpalign_oracle_krmq_interval_lc_elem
#define krmq_itr_find_lc_elem       warpalign_oracle_krmq_itr_find_lc_elem
#define krmq_itr_first_lc_elem      warpalign_oracle_krmq_itr_first_lc_elem
#define krmq_itr_next_bidir_lc_elem warpalign_oracle_krmq_itr_next_bidir_lc_elem
#define krmq_rmq_lc_elem            warpalign_oracle_krmq_rmq_lc_elem
#define kcalloc      warpalign_oracle_kcalloc
#define kfree        warpalign_oracle_kfree
#define km_destroy   warpalign_oracle_km_destroy
#define km_init      warpalign_oracle_km_init
#define km_init2     warpalign_oracle_km_init2
#define km_stat      warpalign_oracle_km_stat
#define km_stat_print warpalign_oracle_km_stat_print
#define kmalloc      warpalign_oracle_kmalloc
#define krealloc     warpalign_oracle_krealloc
#define krelocate    warpalign_oracle_krelocate
#define radix_sort_128x  warpalign_oracle_radix_sort_128x
#define rs_insertsort_128x warpalign_oracle_rs_insertsort_128x
#define rs_sort_128x     warpalign_oracle_rs_sort_128x
#define cputime              warpalign_oracle_cputime
#define realtime             warpalign_oracle_realtime
#define peakrss              warpalign_oracle_peakrss
#define ks_heapdown_uint32_t warpalign_oracle_ks_heapdown_uint32_t
#define ks_heapdown_uint64_t warpalign_oracle_ks_heapdown_uint64_t
#define ks_heapmake_uint32_t warpalign_oracle_ks_heapmake_uint32_t
#define ks_heapmake_uint64_t warpalign_oracle_ks_heapmake_uint64_t
#define ks_ksmall_uint32_t   warpalign_oracle_ks_ksmall_uint32_t
#define ks_ksmall_uint64_t   warpalign_oracle_ks_ksmall_uint64_t
#define mm_dbg_flag          warpalign_oracle_mm_dbg_flag
#define mm_realtime0         warpalign_oracle_mm_realtime0
#define mm_verbose           warpalign_oracle_mm_verbose
#define mm_err_fread         warpalign_oracle_mm_err_fread
#define mm_err_fwrite        warpalign_oracle_mm_err_fwrite
#define mm_err_puts          warpalign_oracle_mm_err_puts
#define radix_sort_64        warpalign_oracle_radix_sort_64
#define rs_insertsort_64     warpalign_oracle_rs_insertsort_64
#define rs_sort_64           warpalign_oracle_rs_sort_64
#endif
