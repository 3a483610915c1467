/* demo_group.c - the demo's PMIx group (scripts/demo.sh): every rank puts an
 * endpoint value, then all ranks build the group "demo" with a context id,
 * each giving its own PMIX_GROUP_LOCAL_CID as group info; each rank then
 * reads its right neighbour's endpoint (brought by the construct, no fence
 * ran) and local context id by the group's context id, prints one line, and
 * the group is destructed. Exit status 0 when everything held. */
#include <stdio.h>
#include <string.h>

#include <pmix.h>

static pmix_proc_t me;

static int fail(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "rank %u: %s: %s\n", (unsigned)me.rank, what, PMIx_Error_string(rc));
    return 1;
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return fail("PMIx_Init", rc);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v)) != PMIX_SUCCESS)
        return fail("PMIx_Get(job size)", rc);
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);

    char ep[64];
    snprintf(ep, sizeof(ep), "endpoint-of-rank-%u", (unsigned)me.rank);
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, ep, PMIX_STRING);
    PMIx_Put(PMIX_GLOBAL, "demo.ep", &val);
    PMIX_VALUE_DESTRUCT(&val);
    PMIx_Commit();

    size_t mycid = 100 + me.rank;
    pmix_info_t gi, dirs[2];
    PMIX_INFO_LOAD(&gi, PMIX_GROUP_LOCAL_CID, &mycid, PMIX_SIZE);
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = &gi};
    bool yes = true;
    PMIX_INFO_LOAD(&dirs[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_GROUP_INFO, &da, PMIX_DATA_ARRAY);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    rc = PMIx_Group_construct("demo", &wild, 1, dirs, 2, &res, &nres);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    PMIX_INFO_DESTRUCT(&gi);
    if (rc != PMIX_SUCCESS)
        return fail("PMIx_Group_construct", rc);
    size_t cid = 0, members = 0;
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID))
            cid = res[i].value.data.size;
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP))
            members = res[i].value.data.darray->size;
    }
    PMIX_INFO_FREE(res, nres);

    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % n);
    pmix_info_t imm;
    PMIX_INFO_LOAD(&imm, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    if ((rc = PMIx_Get(&peer, "demo.ep", &imm, 1, &v)) != PMIX_SUCCESS)
        return fail("PMIx_Get(peer's endpoint, immediate)", rc);
    char peer_ep[64];
    snprintf(peer_ep, sizeof(peer_ep), "%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    pmix_info_t q;
    PMIX_INFO_LOAD(&q, PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    PMIX_INFO_SET_QUALIFIER(&q);
    if ((rc = PMIx_Get(&peer, PMIX_GROUP_LOCAL_CID, &q, 1, &v)) != PMIX_SUCCESS)
        return fail("PMIx_Get(peer's local cid by context id)", rc);
    size_t peer_cid = v->data.size;
    PMIX_VALUE_RELEASE(v);
    printf("rank %u: group demo of %zu, context id %zu; rank %u's endpoint %s, local cid %zu\n",
           (unsigned)me.rank, members, cid, (unsigned)peer.rank, peer_ep, peer_cid);
    fflush(stdout);
    if ((rc = PMIx_Group_destruct("demo", NULL, 0)) != PMIX_SUCCESS)
        return fail("PMIx_Group_destruct", rc);
    int ok = members == n && cid != 0 && peer_cid == 100 + peer.rank;
    PMIx_Finalize(NULL, 0);
    return ok ? 0 : 1;
}
