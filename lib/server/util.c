/* util.c - small helpers of the server: integer directives and rank lists
 * (read by util/ranklist.h into an hwloc bitmap, handed out as a sorted
 * array). */
#include "config.h"
#include "server/core.h"
#include "types/types.h"
#include "util/ranklist.h"

#include <stdlib.h>
#include <string.h>

long spx_srv_info_int(const pmix_info_t *info, size_t n, const char *key, long dflt)
{
    const pmix_info_t *i = spx_info_find(info, n, key);
    int64_t v;
    if (!i || spx_value_to_i64(&i->value, &v) != PMIX_SUCCESS)
        return dflt;
    return (long)v;
}

/* At most this many ranks in one list (a namespace's local peers, one node
 * of PMIX_PROC_MAP). */
#define SRV_MAX_RANKS (1u << 24)

int spx_srv_parse_ranks(const char *s, pmix_rank_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    hwloc_bitmap_t set = spx_ranklist_parse(s ? s : "", SRV_MAX_RANKS);
    if (!set)
        return -1;
    int w = hwloc_bitmap_weight(set);
    pmix_rank_t *r = NULL;
    if (w > 0 && !(r = malloc((size_t)w * sizeof(*r)))) {
        hwloc_bitmap_free(set);
        return -1;
    }
    size_t cnt = 0;
    unsigned v;
    hwloc_bitmap_foreach_begin(v, set)
    {
        r[cnt++] = (pmix_rank_t)v;
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(set);
    if (cnt && r[cnt - 1] >= PMIX_RANK_VALID) {
        free(r);
        return -1;
    }
    *out = r;
    *n = cnt;
    return 0;
}
