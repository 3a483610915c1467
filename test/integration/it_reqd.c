/*
 * it_reqd: a directive flagged PMIX_INFO_REQD that a call does not honour
 * fails the call with PMIX_ERR_NOT_SUPPORTED (and the non-blocking form never
 * calls back); the same directive not flagged is ignored; a required
 * directive the call does honour is accepted. Every call that takes
 * directives is tried; each rank runs them all, the job must end normally.
 */
#include "itest.h"

#define BOGUS "spmix.test.no.such.directive"
/* where user data and directives share one array (publish, notify), only a
 * reserved key is a directive */
#define BOGUS_RESERVED "pmix.spmix.test.no.such.directive"

static int it_cb_calls;

static void it_op_cb(pmix_status_t status, void *cbdata)
{
    (void)status, (void)cbdata;
    __atomic_add_fetch(&it_cb_calls, 1, __ATOMIC_RELEASE);
}

static void it_lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    (void)status, (void)data, (void)ndata, (void)cbdata;
    __atomic_add_fetch(&it_cb_calls, 1, __ATOMIC_RELEASE);
}

static void it_value_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    (void)status, (void)kv, (void)cbdata;
    __atomic_add_fetch(&it_cb_calls, 1, __ATOMIC_RELEASE);
}

static void it_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void it_reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)status, (void)ref, (void)cbdata;
    __atomic_add_fetch(&it_cb_calls, 1, __ATOMIC_RELEASE);
}

static void it_query_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                        pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)status, (void)info, (void)ninfo, (void)cbdata;
    if (release_fn)
        release_fn(release_cbdata);
    __atomic_add_fetch(&it_cb_calls, 1, __ATOMIC_RELEASE);
}

static void it_dist_cb(pmix_status_t status, pmix_device_distance_t *dist, size_t ndist,
                       void *cbdata, pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)status, (void)dist, (void)ndist, (void)cbdata;
    if (release_fn)
        release_fn(release_cbdata);
    __atomic_add_fetch(&it_cb_calls, 1, __ATOMIC_RELEASE);
}

int main(void)
{
    pmix_info_t req, opt, known;
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    bool flag = true;
    char *keys[] = {"it_reqd.key", NULL};
    pmix_pdata_t pd;
    uint32_t size;

    PMIX_INFO_LOAD(&req, BOGUS, &flag, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&req);
    IT_RC(PMIx_Init(&it_me, &req, 1), PMIX_ERR_NOT_SUPPORTED, "PMIx_Init(REQD unknown)");
    IT_CHECK(!PMIx_Initialized(), "a refused PMIx_Init left the library initialized");
    size = it_init();
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&opt, BOGUS, &flag, PMIX_BOOL); /* same key, a hint only */

    /* fence: unknown required directive refused, known required accepted */
    IT_RC(PMIx_Fence(NULL, 0, &req, 1), PMIX_ERR_NOT_SUPPORTED, "PMIx_Fence(REQD unknown)");
    IT_RC(PMIx_Fence_nb(NULL, 0, &req, 1, it_op_cb, NULL), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Fence_nb(REQD unknown)");
    IT_RC(PMIx_Fence(NULL, 0, &opt, 1), PMIX_SUCCESS, "PMIx_Fence(unknown hint)");
    PMIX_INFO_LOAD(&known, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&known);
    IT_RC(PMIx_Fence(NULL, 0, &known, 1), PMIX_SUCCESS, "PMIx_Fence(REQD collect)");
    PMIX_INFO_DESTRUCT(&known);

    /* get */
    IT_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, &req, 1, &v), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Get(REQD unknown)");
    IT_RC(PMIx_Get_nb(&wild, PMIX_JOB_SIZE, &req, 1, it_value_cb, NULL), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Get_nb(REQD unknown)");
    IT_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, &opt, 1, &v), PMIX_SUCCESS, "PMIx_Get(unknown hint)");
    PMIX_VALUE_RELEASE(v);

    /* publish / lookup / unpublish: directives beside the data */
    pmix_info_t pub[2];
    PMIX_INFO_LOAD(&pub[0], "it_reqd.key", "x", PMIX_STRING);
    PMIX_INFO_LOAD(&pub[1], BOGUS_RESERVED, &flag, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&pub[1]);
    IT_RC(PMIx_Publish(pub, 2), PMIX_ERR_NOT_SUPPORTED, "PMIx_Publish(REQD unknown)");
    IT_RC(PMIx_Publish_nb(pub, 2, it_op_cb, NULL), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Publish_nb(REQD unknown)");
    PMIX_INFO_DESTRUCT(&pub[0]);
    PMIX_INFO_DESTRUCT(&pub[1]);
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, "it_reqd.key");
    IT_RC(PMIx_Lookup(&pd, 1, &req, 1), PMIX_ERR_NOT_SUPPORTED, "PMIx_Lookup(REQD unknown)");
    IT_RC(PMIx_Lookup_nb(keys, &req, 1, it_lookup_cb, NULL), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Lookup_nb(REQD unknown)");
    PMIX_PDATA_DESTRUCT(&pd);
    IT_RC(PMIx_Unpublish(keys, &req, 1), PMIX_ERR_NOT_SUPPORTED, "PMIx_Unpublish(REQD unknown)");
    IT_RC(PMIx_Unpublish_nb(keys, &req, 1, it_op_cb, NULL), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Unpublish_nb(REQD unknown)");

    /* events */
    pmix_status_t code = PMIX_EXTERNAL_ERR_BASE - 40;
    IT_RC(PMIx_Register_event_handler(&code, 1, &req, 1, it_handler, NULL, NULL),
          PMIX_ERR_NOT_SUPPORTED, "PMIx_Register_event_handler(REQD unknown)");
    IT_RC(PMIx_Register_event_handler(&code, 1, &req, 1, it_handler, it_reg_cb, NULL),
          PMIX_ERR_NOT_SUPPORTED, "PMIx_Register_event_handler(cb, REQD unknown)");
    pmix_info_t evreq;
    PMIX_INFO_LOAD(&evreq, BOGUS_RESERVED, &flag, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&evreq);
    IT_RC(PMIx_Notify_event(code, &it_me, PMIX_RANGE_PROC_LOCAL, &evreq, 1, it_op_cb, NULL),
          PMIX_ERR_NOT_SUPPORTED, "PMIx_Notify_event(REQD unknown)");
    PMIX_INFO_DESTRUCT(&evreq);

    /* query: a required qualifier nobody honours */
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_status_t arc;
    PMIX_ARGV_APPEND(arc, q.keys, PMIX_QUERY_NAMESPACES);
    IT_RC(arc, PMIX_SUCCESS, "PMIX_ARGV_APPEND");
    PMIX_INFO_CREATE(q.qualifiers, 1);
    q.nqual = 1;
    PMIX_INFO_LOAD(&q.qualifiers[0], BOGUS, &flag, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&q.qualifiers[0]);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    IT_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Query_info(REQD unknown qualifier)");
    IT_RC(PMIx_Query_info_nb(&q, 1, it_query_cb, NULL), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Query_info_nb(REQD unknown qualifier)");
    PMIX_QUERY_DESTRUCT(&q);

    /* log, distances */
    pmix_info_t line;
    PMIX_INFO_LOAD(&line, PMIX_LOG_STDERR, "it_reqd: must not be logged\n", PMIX_STRING);
    IT_RC(PMIx_Log(&line, 1, &req, 1), PMIX_ERR_NOT_SUPPORTED, "PMIx_Log(REQD unknown)");
    IT_RC(PMIx_Log_nb(&line, 1, &req, 1, it_op_cb, NULL), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Log_nb(REQD unknown)");
    PMIX_INFO_DESTRUCT(&line);
    pmix_device_distance_t *dist = NULL;
    size_t ndist = 0;
    IT_RC(PMIx_Compute_distances(NULL, NULL, &req, 1, &dist, &ndist), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Compute_distances(REQD unknown)");
    IT_RC(PMIx_Compute_distances_nb(NULL, NULL, &req, 1, it_dist_cb, NULL),
          PMIX_ERR_NOT_SUPPORTED, "PMIx_Compute_distances_nb(REQD unknown)");

    /* a refused non-blocking call never calls back */
    it_sleep_ms(200);
    IT_CHECK(__atomic_load_n(&it_cb_calls, __ATOMIC_ACQUIRE) == 0,
             "%d callbacks of refused calls ran", it_cb_calls);

    /* finalize: the same rule; the plain finalize then succeeds */
    IT_RC(PMIx_Finalize(&req, 1), PMIX_ERR_NOT_SUPPORTED, "PMIx_Finalize(REQD unknown)");
    PMIX_INFO_DESTRUCT(&req);
    PMIX_INFO_DESTRUCT(&opt);
    if (it_me.rank == 0)
        printf("it_reqd: %u ranks: OK\n", size);
    IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    return 0;
}
