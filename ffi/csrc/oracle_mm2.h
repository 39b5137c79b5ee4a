/* What bindgen binds from minimap2: the ksw2 extension functions, the chaining DP and its radix sort. */
#include <stdint.h>
#include "kalloc.h"
#include "ksw2.h"
#include "mmpriv.h"
