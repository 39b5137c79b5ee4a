/* What bindgen binds from minimap2: the ksw2 extension functions, the chaining DP and its radix sort, the
 * seeding functions (sketch, index, seed selection, map.c's static steps through the shim), the presets and the sequence reader. */
#include <stdint.h>
#include "kalloc.h"
#include "ksw2.h"
#include "mmpriv.h"
#include "bseq.h"
#include "sdust.h"
#include "mm2_seed_hits_shim.h"
