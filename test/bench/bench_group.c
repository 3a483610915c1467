/*
 * bench_group: PMIx group costs against a collecting fence, run as
 *     spmix-run -n N [--nodes M] test/bench/bench_group [iterations] [bytes]
 * Every rank takes part; rank 0 prints a header line ("# bench_group: ...")
 * and then one "name value unit" line per measurement, each the median (and
 * for construct and fence also the p90) over the iterations after a warm-up
 * of iterations/10 (at least 2) untimed ones:
 *   construct  PMIx_Group_construct over every rank (listed explicitly) with
 *              PMIX_GROUP_ASSIGN_CONTEXT_ID and a PMIX_GROUP_INFO holding
 *              the rank's PMIX_GROUP_LOCAL_CID (size_t), group id
 *              "bc-<iteration>";
 *   destruct   PMIx_Group_destruct of that group, timed on its own;
 *   fence      a collecting PMIx_Fence (PMIX_COLLECT_DATA) over every rank;
 *   ratio      construct median / fence median;
 *   fence_request  the same collecting fence with a PMIX_TIMEOUT (an hour),
 *              which makes it a FENCE request over the client's socket like
 *              a construct, instead of the shared-memory arrival a plain
 *              whole-job fence uses: it tells the transport apart from the
 *              group engine.
 * Before each construct and each fence, every rank puts (PMIX_GLOBAL) and
 * commits a fresh value of `bytes` bytes (default 64) under one key, outside
 * the timed region: the fence exchanges what was committed since the last
 * one, a construct all of it, so both carry the same bytes. The four steps
 * (construct, destruct, fence, fence_request) alternate within an
 * iteration, so a change of load hits them alike.
 * SPX_BENCH_GROUP_ONLY=construct or =invite runs only that part.
 *   invite_K   rank 0 PMIx_Group_invite (blocking, with a context id) of
 *              ranks 0..K (itself listed: a member), each invitee joining with PMIx_Group_join_nb
 *              from its PMIX_GROUP_INVITED handler; the time from the call
 *              to its return at rank 0, which is when the group is complete
 *              (PMIX_GROUP_CONSTRUCT_COMPLETE). K = 2, 4, 8, ... below
 *              N - 1, and N - 1 (K = 1 on 2 ranks). Group id
 *              "bi-<K>-<iteration>"; the members destruct it and every
 *              rank meets in a barrier fence before the next (not timed).
 * Results are checked (membership size, a context id) so that a broken
 * library fails the run instead of giving numbers.
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pmix_proc_t me;
static uint32_t nranks;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "bench_group[%u]: %s failed: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(1);
}

/* Sorts t (n values) and returns its median. */
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    return t[n / 2];
}

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

/* Checks the results of a construct, invite or join: nmembers members and a context id. */
static void check_results(const char *what, const pmix_info_t *res, size_t nres, size_t nmembers)
{
    const pmix_info_t *mb = find(res, nres, PMIX_GROUP_MEMBERSHIP);
    const pmix_info_t *cid = find(res, nres, PMIX_GROUP_CONTEXT_ID);

    if (!mb || mb->value.type != PMIX_DATA_ARRAY || mb->value.data.darray->size != nmembers)
        die(what, PMIX_ERR_BAD_PARAM); /* wrong membership */
    if (!cid || cid->value.type != PMIX_SIZE || cid->value.data.size == 0)
        die(what, PMIX_ERR_NOT_FOUND); /* no context id */
}

/* Puts and commits a fresh value of size bytes (content depends on i). */
static void put_endpoint(char *blob, size_t size, int i)
{
    pmix_value_t v;
    pmix_status_t rc;

    memset(blob, 'a' + (i % 26), size);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = blob;
    v.data.bo.size = size;
    if ((rc = PMIx_Put(PMIX_GLOBAL, "bench.grp.ep", &v)) != PMIX_SUCCESS)
        die("PMIx_Put", rc);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        die("PMIx_Commit", rc);
}

static void barrier(void)
{
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);

    if (rc != PMIX_SUCCESS)
        die("PMIx_Fence(barrier)", rc);
}

/* ---- construct / destruct / fence ---- */

static void bench_construct(int warm, int iters, size_t size)
{
    double *tc = calloc((size_t)iters, sizeof(double));
    double *td = calloc((size_t)iters, sizeof(double));
    double *tf = calloc((size_t)iters, sizeof(double));
    double *ts = calloc((size_t)iters, sizeof(double));
    pmix_proc_t *all = calloc(nranks, sizeof(*all));
    char *blob = malloc(size);
    size_t lcid = 100 + me.rank;
    pmix_info_t ginfo, dirs[2], coll, sock[2];
    int tmo = 3600;
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = &ginfo};
    bool yes = true;
    pmix_status_t rc;
    char grp[64];

    if (!tc || !td || !tf || !ts || !all || !blob)
        die("malloc", PMIX_ERR_NOMEM);
    for (uint32_t r = 0; r < nranks; r++)
        PMIX_LOAD_PROCID(&all[r], me.nspace, r);
    PMIX_INFO_LOAD(&ginfo, PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    PMIX_INFO_LOAD(&dirs[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_GROUP_INFO, &da, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&sock[0], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&sock[1], PMIX_TIMEOUT, &tmo, PMIX_INT);
    for (int i = 0; i < warm + iters; i++) {
        pmix_info_t *res = NULL;
        size_t nres = 0;
        double t0, t1, t2, t3;

        snprintf(grp, sizeof(grp), "bc-%d", i);
        put_endpoint(blob, size, 2 * i);
        t0 = now();
        rc = PMIx_Group_construct(grp, all, nranks, dirs, 2, &res, &nres);
        t1 = now();
        if (rc != PMIX_SUCCESS)
            die("PMIx_Group_construct", rc);
        check_results("PMIx_Group_construct results", res, nres, nranks);
        PMIX_INFO_FREE(res, nres);
        t2 = now();
        rc = PMIx_Group_destruct(grp, NULL, 0);
        t3 = now();
        if (rc != PMIX_SUCCESS)
            die("PMIx_Group_destruct", rc);

        put_endpoint(blob, size, 2 * i + 1);
        double f0 = now();
        rc = PMIx_Fence(NULL, 0, &coll, 1);
        double f1 = now();
        if (rc != PMIX_SUCCESS)
            die("PMIx_Fence(collect)", rc);
        put_endpoint(blob, size, 2 * i);
        double s0 = now();
        rc = PMIx_Fence(NULL, 0, sock, 2);
        double s1 = now();
        if (rc != PMIX_SUCCESS)
            die("PMIx_Fence(collect, timeout)", rc);
        if (i >= warm) {
            tc[i - warm] = (t1 - t0) * 1e6;
            td[i - warm] = (t3 - t2) * 1e6;
            tf[i - warm] = (f1 - f0) * 1e6;
            ts[i - warm] = (s1 - s0) * 1e6;
        }
    }
    double c = median(tc, iters), d = median(td, iters), f = median(tf, iters);
    double fs = median(ts, iters);
    if (me.rank == 0) {
        printf("construct_median %.1f us\n", c);
        printf("construct_p90 %.1f us\n", tc[(iters * 9) / 10]);
        printf("destruct_median %.1f us\n", d);
        printf("fence_median %.1f us\n", f);
        printf("fence_p90 %.1f us\n", tf[(iters * 9) / 10]);
        printf("construct_fence_ratio %.2f x\n", f > 0 ? c / f : 0.0);
        printf("fence_request_median %.1f us\n", fs);
    }
    PMIX_INFO_DESTRUCT(&sock[1]);
    PMIX_INFO_DESTRUCT(&sock[0]);
    PMIX_INFO_DESTRUCT(&coll);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&ginfo);
    free(blob);
    free(all);
    free(ts);
    free(tf);
    free(td);
    free(tc);
}

/* ---- invite / join ---- */

static char invited_grp[64];     /* set by the handler, read by main after joins_done moved */
static volatile int joins_done;  /* joins completed at this rank (atomic) */
static volatile int join_failed; /* status of a failed join, 0 if none */
static pmix_info_t join_info[1];

static void join_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    size_t nmembers = (size_t)cbdata;
    const pmix_info_t *mb = find(info, ninfo, PMIX_GROUP_MEMBERSHIP);

    if (status == PMIX_SUCCESS &&
        (!mb || mb->value.type != PMIX_DATA_ARRAY || mb->value.data.darray->size != nmembers))
        status = PMIX_ERR_BAD_PARAM;
    if (status != PMIX_SUCCESS)
        __atomic_store_n(&join_failed, status, __ATOMIC_RELEASE);
    if (release_fn)
        release_fn(release_cbdata);
    __atomic_add_fetch(&joins_done, 1, __ATOMIC_ACQ_REL);
}

/* PMIX_GROUP_INVITED: accept at once, from the handler, without blocking.
 * The group id "bi-K-i" says how many members the group will have. */
static void invited(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    const pmix_info_t *g = find(info, ninfo, PMIX_GROUP_ID);
    unsigned k = 0;
    pmix_status_t rc;

    (void)id;
    (void)status;
    (void)results;
    (void)nresults;
    if (!g || g->value.type != PMIX_STRING || sscanf(g->value.data.string, "bi-%u-", &k) != 1)
        die("PMIX_GROUP_INVITED without a bench group id", PMIX_ERR_BAD_PARAM);
    snprintf(invited_grp, sizeof(invited_grp), "%s", g->value.data.string);
    rc = PMIx_Group_join_nb(invited_grp, source, PMIX_GROUP_ACCEPT, join_info, 1, join_cb,
                            (void *)(size_t)(k + 1));
    if (rc != PMIX_SUCCESS)
        die("PMIx_Group_join_nb", rc);
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void bench_invite(uint32_t k, int warm, int iters)
{
    double *t = calloc((size_t)iters, sizeof(double));
    pmix_proc_t *inv = calloc(k + 1, sizeof(*inv)); /* rank 0 lists itself: a member */
    size_t lcid = 100 + me.rank;
    pmix_info_t ginfo, dirs[2];
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = &ginfo};
    bool yes = true;
    pmix_status_t rc;
    char grp[64];

    if (!t || !inv)
        die("malloc", PMIX_ERR_NOMEM);
    for (uint32_t r = 0; r <= k; r++)
        PMIX_LOAD_PROCID(&inv[r], me.nspace, r);
    PMIX_INFO_LOAD(&ginfo, PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    PMIX_INFO_LOAD(&dirs[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_GROUP_INFO, &da, PMIX_DATA_ARRAY);
    for (int i = 0; i < warm + iters; i++) {
        snprintf(grp, sizeof(grp), "bi-%u-%d", k, i);
        barrier(); /* everyone's previous group is gone */
        if (me.rank == 0) {
            pmix_info_t *res = NULL;
            size_t nres = 0;
            double t0 = now();
            rc = PMIx_Group_invite(grp, inv, k + 1, dirs, 2, &res, &nres);
            double t1 = now();
            if (rc != PMIX_SUCCESS)
                die("PMIx_Group_invite", rc);
            check_results("PMIx_Group_invite results", res, nres, k + 1);
            PMIX_INFO_FREE(res, nres);
            if (i >= warm)
                t[i - warm] = (t1 - t0) * 1e6;
        } else if (me.rank <= k) {
            while (__atomic_load_n(&joins_done, __ATOMIC_ACQUIRE) == 0) {
                struct timespec ts = {0, 20000};
                nanosleep(&ts, NULL);
            }
            __atomic_sub_fetch(&joins_done, 1, __ATOMIC_ACQ_REL);
            if (join_failed)
                die("PMIx_Group_join_nb (callback)", join_failed);
            if (strcmp(invited_grp, grp) != 0)
                die("PMIX_GROUP_INVITED of another group", PMIX_ERR_BAD_PARAM);
        } else {
            continue; /* not invited: only the barrier */
        }
        if ((rc = PMIx_Group_destruct(grp, NULL, 0)) != PMIX_SUCCESS)
            die("PMIx_Group_destruct(invited group)", rc);
    }
    if (me.rank == 0) {
        char name[32];
        snprintf(name, sizeof(name), "invite_%u_median", k);
        printf("%s %.1f us\n", name, median(t, iters));
    }
    PMIX_INFO_DESTRUCT(&dirs[1]);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&ginfo);
    free(inv);
    free(t);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 50;
    long bytes = argc > 2 ? atol(argv[2]) : 64;
    pmix_proc_t wild;
    pmix_value_t *got;
    pmix_status_t rc;
    uint32_t nnodes = 0;

    if (iters < 1 || iters > 1000000 || bytes < 1 || bytes > (16L << 20)) {
        fprintf(stderr, "usage: bench_group [iterations 1..1e6] [bytes 1..16 MiB]\n");
        return 2;
    }
    int warm = iters / 10 < 2 ? 2 : iters / 10;
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Init", rc);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got)) != PMIX_SUCCESS)
        die("PMIx_Get(job size)", rc);
    nranks = got->data.uint32;
    PMIX_VALUE_RELEASE(got);
    if (PMIx_Get(&wild, PMIX_NUM_NODES, NULL, 0, &got) == PMIX_SUCCESS) {
        nnodes = got->data.uint32;
        PMIX_VALUE_RELEASE(got);
    }
    if (nranks < 2)
        die("bench_group needs at least 2 ranks", PMIX_ERR_BAD_PARAM);
    if (me.rank == 0)
        printf("# bench_group: ranks %u nodes %u iterations %d warm-up %d bytes %ld\n", nranks,
               nnodes, iters, warm, bytes);

    /* SPX_BENCH_GROUP_ONLY=construct|invite runs one part (for profiling) */
    const char *only = getenv("SPX_BENCH_GROUP_ONLY");
    if (!only || strcmp(only, "invite") != 0)
        bench_construct(warm, iters, (size_t)bytes);

    size_t lcid = 100 + me.rank;
    pmix_info_t lc;
    pmix_data_array_t lda = {.type = PMIX_INFO, .size = 1, .array = &lc};
    PMIX_INFO_LOAD(&lc, PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    PMIX_INFO_LOAD(&join_info[0], PMIX_GROUP_INFO, &lda, PMIX_DATA_ARRAY);
    pmix_status_t code = PMIX_GROUP_INVITED;
    if ((rc = PMIx_Register_event_handler(&code, 1, NULL, 0, invited, NULL, NULL)) < 0)
        die("PMIx_Register_event_handler", rc);
    barrier(); /* every handler is in place before the first invitation */
    for (uint32_t k = 2; k < nranks - 1 && !(only && strcmp(only, "construct") == 0); k *= 2)
        bench_invite(k, warm, iters);
    if (!only || strcmp(only, "construct") != 0)
        bench_invite(nranks - 1, warm, iters); /* K = 1 on 2 ranks */

    barrier();
    PMIX_INFO_DESTRUCT(&join_info[0]);
    PMIX_INFO_DESTRUCT(&lc);
    if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Finalize", rc);
    return 0;
}
