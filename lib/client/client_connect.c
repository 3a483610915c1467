/* client_connect.c - PMIx_Connect and PMIx_Disconnect (blocking and _nb): a
 * construct / destruct of a group named after the set of processes
 * (client_group.c's requests), so that every participant derives the same
 * group id from the same set, in any order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "proto/msg.h"
#include "util/compiler.h"
#include "util/strhash.h"

static int proc_order(const void *x, const void *y)
{
    const pmix_proc_t *a = x, *b = y;
    int c = strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
    return c ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

/* The group id every participant derives from the same set of processes
 * (in any order): "spx.connect." and a 64-bit FNV-1a hash of the sorted,
 * deduplicated set (group ids expanded to their members first). */
static pmix_status_t connect_id(const pmix_proc_t procs[], size_t nprocs, char id[64])
{
    if (!procs || nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
    pmix_proc_t *set = NULL;
    size_t n = 0;
    pmix_status_t rc = spx_client_group_expand(procs, nprocs, &set, &n);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!set) {
        if (!(set = malloc(nprocs * sizeof(*set))))
            return PMIX_ERR_NOMEM;
        memcpy(set, procs, nprocs * sizeof(*set));
        n = nprocs;
    }
    qsort(set, n, sizeof(*set), proc_order);
    uint64_t h = SPX_STRHASH_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i && proc_order(&set[i - 1], &set[i]) == 0)
            continue;
        char one[PMIX_MAX_NSLEN + 16];
        int len = snprintf(one, sizeof(one), "%.*s:%u;", PMIX_MAX_NSLEN, set[i].nspace,
                           (unsigned)set[i].rank);
        h = spx_strhash_add(h, one, (size_t)len);
    }
    free(set);
    snprintf(id, 64, "spx.connect.%016llx", (unsigned long long)h);
    return PMIX_SUCCESS;
}

struct connect_req {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
};

static void connect_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    struct connect_req *c = cbdata;
    if (release_fn)
        release_fn(release_cbdata);
    c->cbfunc(status, c->cbdata);
    free(c);
}

SPX_EXPORT pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs,
                                         const pmix_info_t info[], size_t ninfo,
                                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char id[64];
    pmix_status_t rc = connect_id(procs, nprocs, id);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!cbfunc) /* fire and forget, as OpenPMIx allows */
        return spx_client_group_send(SPX_GRP_OP_CONSTRUCT, id, procs, nprocs, info, ninfo, NULL,
                                     NULL, NULL);
    struct connect_req *c = calloc(1, sizeof(*c));
    if (!c)
        return PMIX_ERR_NOMEM;
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    rc = spx_client_group_send(SPX_GRP_OP_CONSTRUCT, id, procs, nprocs, info, ninfo, connect_done,
                               NULL, c);
    if (rc != PMIX_SUCCESS)
        free(c);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
                                      const pmix_info_t info[], size_t ninfo)
{
    char id[64];
    pmix_status_t rc = connect_id(procs, nprocs, id);
    if (rc != PMIX_SUCCESS)
        return rc;
    return spx_client_group_wait_results("PMIx_Connect", SPX_GRP_OP_CONSTRUCT, id, procs, nprocs,
                                         info, ninfo, NULL, NULL);
}

SPX_EXPORT pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t nprocs,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char id[64]; /* cbfunc may be NULL (fire and forget) */
    pmix_status_t rc = connect_id(procs, nprocs, id);
    if (rc != PMIX_SUCCESS)
        return rc;
    return spx_client_group_send(SPX_GRP_OP_DESTRUCT, id, NULL, 0, info, ninfo, NULL, cbfunc,
                                 cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs,
                                         const pmix_info_t info[], size_t ninfo)
{
    char id[64];
    pmix_status_t rc = connect_id(procs, nprocs, id);
    if (rc != PMIX_SUCCESS)
        return rc;
    return spx_client_group_wait("PMIx_Disconnect", SPX_GRP_OP_DESTRUCT, id, info, ninfo);
}

