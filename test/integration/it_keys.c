/*
 * it_keys: the reserved job, node and process keys spmix-run registers have
 * the expected values and exact types (Open MPI checks types strictly), and
 * PMIx_Resolve_peers / PMIx_Resolve_nodes agree with them. One node, N ranks.
 */
#include "itest.h"

/* Get key of rank (PMIX_RANK_WILDCARD for job level) and check its type. */
static pmix_value_t *it_get(pmix_rank_t rank, const char *key, pmix_data_type_t type)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;

    PMIX_LOAD_PROCID(&p, it_me.nspace, rank);
    IT_RC(PMIx_Get(&p, key, NULL, 0, &v), PMIX_SUCCESS, key);
    IT_CHECK(v->type == type, "%s of rank %d has type %d, expected %d", key, (int)rank,
             v->type, type);
    return v;
}

static void it_u32(pmix_rank_t rank, const char *key, uint32_t want)
{
    pmix_value_t *v = it_get(rank, key, PMIX_UINT32);
    IT_CHECK(v->data.uint32 == want, "%s = %u, expected %u", key, v->data.uint32, want);
    PMIX_VALUE_RELEASE(v);
}

static void it_u16(pmix_rank_t rank, const char *key, uint16_t want)
{
    pmix_value_t *v = it_get(rank, key, PMIX_UINT16);
    IT_CHECK(v->data.uint16 == want, "%s of %u = %u, expected %u", key, rank,
             v->data.uint16, want);
    PMIX_VALUE_RELEASE(v);
}

static void it_rank(pmix_rank_t rank, const char *key, pmix_rank_t want)
{
    pmix_value_t *v = it_get(rank, key, PMIX_PROC_RANK);
    IT_CHECK(v->data.rank == want, "%s of %u = %u, expected %u", key, rank, v->data.rank, want);
    PMIX_VALUE_RELEASE(v);
}

static void it_str(pmix_rank_t rank, const char *key, const char *want)
{
    pmix_value_t *v = it_get(rank, key, PMIX_STRING);
    IT_CHECK(strcmp(v->data.string, want) == 0, "%s = '%s', expected '%s'", key,
             v->data.string, want);
    PMIX_VALUE_RELEASE(v);
}

int main(void)
{
    uint32_t size = it_init();
    pmix_rank_t W = PMIX_RANK_WILDCARD;
    char host[256] = "", peers[4096] = "", *nodes = NULL;
    pmix_value_t *v;
    pmix_proc_t *procs = NULL;
    size_t nprocs = 0, off = 0;

    gethostname(host, sizeof(host) - 1);
    for (uint32_t r = 0; r < size; r++)
        off += (size_t)snprintf(peers + off, sizeof(peers) - off, "%s%u", r ? "," : "", r);

    /* job level */
    it_u32(W, PMIX_MAX_PROCS, size);
    it_u32(W, PMIX_UNIV_SIZE, size);
    it_u32(W, PMIX_NUM_NODES, 1);
    it_u32(W, PMIX_LOCAL_SIZE, size);
    it_str(W, PMIX_LOCAL_PEERS, peers);
    it_str(W, PMIX_JOBID, it_me.nspace);
    v = it_get(W, PMIX_TMPDIR, PMIX_STRING);
    IT_CHECK(access(v->data.string, F_OK) == 0, "PMIX_TMPDIR %s does not exist", v->data.string);
    PMIX_VALUE_RELEASE(v);
    v = it_get(W, PMIX_NSDIR, PMIX_STRING);
    PMIX_VALUE_RELEASE(v);
    v = it_get(W, PMIX_TDIR_RMCLEAN, PMIX_BOOL);
    PMIX_VALUE_RELEASE(v);
    v = it_get(W, PMIX_MAPBY, PMIX_STRING);
    PMIX_VALUE_RELEASE(v);

    /* per process, own and every peer's */
    for (uint32_t r = 0; r < size; r++) {
        it_u16(r, PMIX_LOCAL_RANK, (uint16_t)r);
        it_u16(r, PMIX_NODE_RANK, (uint16_t)r);
        it_u32(r, PMIX_APPNUM, 0);
        it_rank(r, PMIX_GLOBAL_RANK, r);
        it_rank(r, PMIX_APP_RANK, r);
        it_u32(r, PMIX_NODEID, 0);
        it_str(r, PMIX_HOSTNAME, host);
    }

    /* resolve */
    IT_RC(PMIx_Resolve_peers(host, it_me.nspace, &procs, &nprocs), PMIX_SUCCESS,
          "PMIx_Resolve_peers");
    IT_CHECK(nprocs == size, "Resolve_peers gave %zu procs, expected %u", nprocs, size);
    for (size_t i = 0; i < nprocs; i++) {
        int seen = 0;
        for (size_t k = 0; k < nprocs; k++)
            seen += procs[k].rank == i && PMIX_CHECK_NSPACE(procs[k].nspace, it_me.nspace);
        IT_CHECK(seen == 1, "Resolve_peers lists rank %zu %d times", i, seen);
    }
    PMIX_PROC_FREE(procs, nprocs);
    IT_RC(PMIx_Resolve_nodes(it_me.nspace, &nodes), PMIX_SUCCESS, "PMIx_Resolve_nodes");
    IT_CHECK(nodes != NULL && strcmp(nodes, host) == 0, "Resolve_nodes gave '%s', expected '%s'",
             nodes ? nodes : "(null)", host);
    free(nodes);

    it_fence();
    if (it_me.rank == 0)
        printf("it_keys: %u ranks: OK\n", size);
    it_finalize();
    return 0;
}
