/* ranklist.h - rank lists as PMIx writes them ("0,2-4": decimal ranks and
 * inclusive ranges, comma separated; PMIX_LOCAL_PEERS and each node's part of
 * PMIX_PROC_MAP), read into hwloc bitmaps by hwloc_bitmap_list_sscanf. The
 * bitmap gives the set, its size (hwloc_bitmap_weight), ascending iteration
 * (hwloc_bitmap_foreach_begin) and membership; nothing here parses digits. */
#ifndef SPX_UTIL_RANKLIST_H
#define SPX_UTIL_RANKLIST_H

#include <hwloc.h>

/* The set of ranks in s, or NULL when s is NULL, not a rank list, open ended
 * ("4-") or holds more than max ranks. "" gives an empty set. The bitmap is
 * the caller's: free it with hwloc_bitmap_free. s is borrowed. */
hwloc_bitmap_t spx_ranklist_parse(const char *s, unsigned max);

/* How many ranks of set are below rank (rank's position in ascending order
 * when it is in set). set is borrowed. */
unsigned spx_ranklist_below(hwloc_const_bitmap_t set, unsigned rank);

#endif
