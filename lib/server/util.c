/* util.c - small helpers of the server: integer directives, rank lists, argv.
 * Pure functions: no server state is touched. */
#include "config.h"
#include "server/core.h"
#include "types/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

long spx_srv_info_int(const pmix_info_t *info, size_t n, const char *key, long dflt)
{
    const pmix_info_t *i = spx_info_find(info, n, key);
    int64_t v;
    if (!i || spx_value_to_i64(&i->value, &v) != PMIX_SUCCESS)
        return dflt;
    return (long)v;
}

static int rank_cmp(const void *a, const void *b)
{
    pmix_rank_t x = *(const pmix_rank_t *)a, y = *(const pmix_rank_t *)b;
    return x < y ? -1 : x > y;
}

int spx_srv_parse_ranks(const char *s, pmix_rank_t **out, size_t *n)
{
    size_t cap = 0, cnt = 0;
    pmix_rank_t *r = NULL;
    const char *p = s;
    *out = NULL;
    *n = 0;
    while (p && *p) {
        char *end;
        errno = 0;
        unsigned long lo = strtoul(p, &end, 10), hi;
        if (end == p || errno || lo >= PMIX_RANK_VALID)
            goto bad;
        hi = lo;
        if (*end == '-') {
            p = end + 1;
            hi = strtoul(p, &end, 10);
            if (end == p || errno || hi < lo || hi >= PMIX_RANK_VALID || hi - lo > (1u << 24))
                goto bad;
        }
        for (unsigned long v = lo; v <= hi; v++) {
            if (cnt == cap) {
                cap = cap ? 2 * cap : 16;
                pmix_rank_t *nr = realloc(r, cap * sizeof(*nr));
                if (!nr)
                    goto bad;
                r = nr;
            }
            r[cnt++] = (pmix_rank_t)v;
        }
        if (*end == ',')
            end++;
        else if (*end)
            goto bad;
        p = end;
    }
    if (cnt)
        qsort(r, cnt, sizeof(*r), rank_cmp);
    *out = r;
    *n = cnt;
    return 0;
bad:
    free(r);
    return -1;
}

void spx_srv_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}
