/* query_own.c - the query keys the server library answers itself, with or
 * without the host's query upcall: process sets (api/psets.h: there are
 * none). A host that answers such a key itself keeps its answer.
 */
#include "config.h"
#include "server/core.h"

#include <stdlib.h>
#include <string.h>

#include "api/psets.h"
#include "types/types.h"

bool spx_srv_query_own_key(const char *key, pmix_info_t *out)
{
    return spx_psets_query_answer(key, out);
}

static bool answered(const pmix_info_t *ans, size_t nans, const char *key)
{
    return spx_info_find(ans, nans, key) != NULL;
}

pmix_status_t spx_srv_query_own_fill(const pmix_query_t *q, size_t nq, const pmix_info_t *ans,
                                     size_t nans, pmix_info_t **own, size_t *nown, bool *all)
{
    size_t nkeys = 0;
    *own = NULL;
    *nown = 0;
    *all = true;
    for (size_t i = 0; i < nq; i++)
        for (size_t k = 0; q[i].keys && q[i].keys[k]; k++)
            nkeys++;
    pmix_info_t *out = calloc(nkeys ? nkeys : 1, sizeof(*out));
    if (!out)
        return PMIX_ERR_NOMEM;
    size_t n = 0;
    for (size_t i = 0; i < nq; i++)
        for (size_t k = 0; q[i].keys && q[i].keys[k]; k++) {
            const char *key = q[i].keys[k];
            if (answered(ans, nans, key) || answered(out, n, key))
                continue;
            if (spx_srv_query_own_key(key, &out[n]))
                n++;
            else
                *all = false; /* neither the host nor the library knows it */
        }
    if (n == 0) {
        free(out);
        return PMIX_SUCCESS;
    }
    *own = out; /* handed to the caller */
    *nown = n;
    return PMIX_SUCCESS;
}
