/* What bindgen binds from minimap2: the ksw2 extension functions and the chaining DP. */
#include <stdint.h>
#include "kalloc.h"
#include "ksw2.h"
#include "mmpriv.h"
