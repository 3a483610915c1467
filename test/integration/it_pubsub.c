/*
 * it_pubsub: publish/lookup/unpublish between ranks, PMIx_Query_info,
 * PMIx_Job_control_nb cleanup registrations with a NULL callback, and
 * PMIx_Store_internal then PMIx_Get.
 */
#include "itest.h"

static void it_lookup_from(const char *key, pmix_status_t want_rc, const char *want, bool wait,
                           pmix_rank_t publisher)
{
    pmix_pdata_t pd;
    pmix_info_t info;
    pmix_status_t rc;
    bool yes = true;

    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    PMIX_INFO_LOAD(&info, PMIX_WAIT, &yes, PMIX_BOOL);
    rc = PMIx_Lookup(&pd, 1, &info, wait ? 1 : 0);
    IT_CHECK(rc == want_rc, "lookup %s: %s, expected %s", key, PMIx_Error_string(rc),
             PMIx_Error_string(want_rc));
    if (want != NULL) {
        IT_CHECK(pd.value.type == PMIX_STRING && strcmp(pd.value.data.string, want) == 0,
                 "lookup %s: wrong value", key);
        IT_CHECK(pd.proc.rank == publisher && PMIX_CHECK_NSPACE(pd.proc.nspace, it_me.nspace),
                 "lookup %s: publisher %s:%u, expected rank %u", key, pd.proc.nspace,
                 pd.proc.rank, publisher);
    }
    PMIX_INFO_DESTRUCT(&info);
    PMIX_PDATA_DESTRUCT(&pd);
}

static void it_lookup(const char *key, pmix_status_t want_rc, const char *want, bool wait)
{
    it_lookup_from(key, want_rc, want, wait, 0);
}

static void it_query(void)
{
    pmix_query_t *q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    bool found = false;

    PMIX_QUERY_CREATE(q, 1);
    q[0].keys = calloc(2, sizeof(char *));
    q[0].keys[0] = strdup(PMIX_QUERY_NAMESPACES);
    IT_RC(PMIx_Query_info(q, 1, &res, &nres), PMIX_SUCCESS, "PMIx_Query_info(namespaces)");
    for (size_t i = 0; i < nres; i++)
        if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_NAMESPACES) && res[i].value.type == PMIX_STRING &&
            strstr(res[i].value.data.string, it_me.nspace) != NULL)
            found = true;
    IT_CHECK(found, "query of namespaces does not list %s", it_me.nspace);
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_FREE(q, 1);
}

int main(void)
{
    uint32_t size = it_init();
    pmix_info_t pub[2], jc[2];
    pmix_value_t v, *got = NULL;
    char dir[512];
    bool yes = true;

    IT_CHECK(size >= 2, "needs at least 2 ranks");
    /* rank 1 waits for a key rank 0 publishes only after a while */
    if (it_me.rank == 0) {
        it_sleep_ms(300);
        PMIX_INFO_LOAD(&pub[0], "it.service", "port-of-rank-0", PMIX_STRING);
        PMIX_INFO_LOAD(&pub[1], "it.other", "other-value", PMIX_STRING);
        IT_RC(PMIx_Publish(pub, 2), PMIX_SUCCESS, "PMIx_Publish");
        PMIX_INFO_DESTRUCT(&pub[0]);
        PMIX_INFO_DESTRUCT(&pub[1]);
    } else if (it_me.rank == 1) {
        it_lookup("it.service", PMIX_SUCCESS, "port-of-rank-0", true);
    }
    /* with 3 ranks or more: rank 1 waits for what rank 2 publishes late (on
     * several nodes both requests travel to the directory on node 0) */
    if (size >= 3 && it_me.rank == 2) {
        it_sleep_ms(200);
        PMIX_INFO_LOAD(&pub[0], "it.from2", "value-of-rank-2", PMIX_STRING);
        IT_RC(PMIx_Publish(pub, 1), PMIX_SUCCESS, "PMIx_Publish (rank 2)");
        PMIX_INFO_DESTRUCT(&pub[0]);
    } else if (size >= 3 && it_me.rank == 1) {
        it_lookup_from("it.from2", PMIX_SUCCESS, "value-of-rank-2", true, 2);
    }
    it_fence();
    it_lookup("it.service", PMIX_SUCCESS, "port-of-rank-0", false);
    if (size >= 3) {
        it_lookup_from("it.from2", PMIX_SUCCESS, "value-of-rank-2", false, 2);
        /* the same key again from another rank: refused */
        if (it_me.rank == 0) {
            PMIX_INFO_LOAD(&pub[0], "it.from2", "other", PMIX_STRING);
            IT_RC(PMIx_Publish(pub, 1), PMIX_ERR_DUPLICATE_KEY, "PMIx_Publish of a taken key");
            PMIX_INFO_DESTRUCT(&pub[0]);
        }
    }
    it_lookup("it.missing", PMIX_ERR_NOT_FOUND, NULL, false);
    it_fence();
    if (it_me.rank == 0)
        IT_RC(PMIx_Unpublish(NULL, NULL, 0), PMIX_SUCCESS, "PMIx_Unpublish");
    it_fence();
    it_lookup("it.service", PMIX_ERR_NOT_FOUND, NULL, false);

    it_query();

    /* what Open MPI does in MPI_Init: both must return PMIX_SUCCESS */
    snprintf(dir, sizeof(dir), "/tmp/it_pubsub.%d", (int)getpid());
    PMIX_INFO_LOAD(&jc[0], PMIX_REGISTER_CLEANUP_DIR, dir, PMIX_STRING);
    PMIX_INFO_LOAD(&jc[1], PMIX_CLEANUP_RECURSIVE, &yes, PMIX_BOOL);
    IT_RC(PMIx_Job_control_nb(NULL, 0, jc, 2, NULL, NULL), PMIX_SUCCESS,
          "PMIx_Job_control_nb(cleanup dir, NULL cbfunc)");
    PMIX_INFO_DESTRUCT(&jc[0]);
    PMIX_INFO_DESTRUCT(&jc[1]);
    PMIX_INFO_LOAD(&jc[0], PMIX_REGISTER_CLEANUP, dir, PMIX_STRING);
    IT_RC(PMIx_Job_control_nb(NULL, 0, jc, 1, NULL, NULL), PMIX_SUCCESS,
          "PMIx_Job_control_nb(cleanup file, NULL cbfunc)");
    PMIX_INFO_DESTRUCT(&jc[0]);

    /* Store_internal then Get (Open MPI stores pmix.loc this way) */
    memset(&v, 0, sizeof(v));
    v.type = PMIX_UINT16;
    v.data.uint16 = (uint16_t)(500 + it_me.rank);
    IT_RC(PMIx_Store_internal(&it_me, "it.internal", &v), PMIX_SUCCESS, "PMIx_Store_internal");
    IT_RC(PMIx_Get(&it_me, "it.internal", NULL, 0, &got), PMIX_SUCCESS, "Get of stored key");
    IT_CHECK(got->type == PMIX_UINT16 && got->data.uint16 == 500 + it_me.rank,
             "stored key read back wrong (type %d)", got->type);
    PMIX_VALUE_RELEASE(got);

    it_fence();
    if (it_me.rank == 0)
        printf("it_pubsub: %u ranks: OK\n", size);
    it_finalize();
    return 0;
}
