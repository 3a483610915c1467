/*
 * bench_client: client-side PMIx costs, run as
 *     spmix-run -n 2 test/bench/bench_client [iterations]
 * Every rank does the same work; rank 0 prints one "name value unit" line
 * per measurement: PMIx_Init wall time, median and p90 of an empty fence and
 * of collecting fences with 64 B and 8 KiB put per process, Put rate, and Get
 * rates of own keys and of a local peer's keys. test/bench/run_local.sh runs
 * it several times and reports medians. With SPX_BENCH_FENCE_SIZE=N in the
 * environment it times only collecting fences of N bytes put per process.
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "bench_client[%u]: %s failed: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(1);
}

/* Time iters fences; with blob, put blob (size bytes) and commit before each
 * and collect data. Prints median and p90 in microseconds. */
static void bench_fence(const char *name, int iters, size_t size)
{
    double *t = calloc((size_t)iters, sizeof(double));
    pmix_info_t info;
    bool yes = true;
    pmix_value_t v;
    char *blob = size ? malloc(size) : NULL;
    pmix_status_t rc;

    if (t == NULL || (size && blob == NULL))
        die("malloc", PMIX_ERR_NOMEM);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    for (int i = 0; i < iters; i++) {
        double t0;
        if (size) {
            memset(blob, 'a' + (i % 26), size);
            v.type = PMIX_BYTE_OBJECT;
            v.data.bo.bytes = blob;
            v.data.bo.size = size;
            if ((rc = PMIx_Put(PMIX_GLOBAL, "bench.blob", &v)) != PMIX_SUCCESS)
                die("PMIx_Put", rc);
            if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
                die("PMIx_Commit", rc);
        }
        t0 = now();
        rc = PMIx_Fence(NULL, 0, size ? &info : NULL, size ? 1 : 0);
        t[i] = (now() - t0) * 1e6;
        if (rc != PMIX_SUCCESS)
            die("PMIx_Fence", rc);
    }
    qsort(t, (size_t)iters, sizeof(double), cmp_double);
    if (me.rank == 0) {
        printf("%s_median %.1f us\n", name, t[iters / 2]);
        printf("%s_p90 %.1f us\n", name, t[(iters * 9) / 10]);
    }
    PMIX_INFO_DESTRUCT(&info);
    free(blob);
    free(t);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    int nkeys = 1000;
    pmix_proc_t wild, peer;
    pmix_value_t v, *got;
    pmix_status_t rc;
    pmix_info_t info;
    bool yes = true;
    uint32_t size;
    char key[64];
    double t0, init_s;

    if (iters < 10 || iters > 1000000)
        iters = 200;
    t0 = now();
    rc = PMIx_Init(&me, NULL, 0);
    init_s = now() - t0;
    if (rc != PMIX_SUCCESS)
        die("PMIx_Init", rc);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got)) != PMIX_SUCCESS)
        die("PMIx_Get(job size)", rc);
    size = got->data.uint32;
    PMIX_VALUE_RELEASE(got);
    if (me.rank == 0) {
        printf("ranks %u\n", size);
        printf("init %.2f ms\n", init_s * 1e3);
    }

    /* SPX_BENCH_FENCE_SIZE=N: only time collecting fences of N bytes per rank */
    const char *only = getenv("SPX_BENCH_FENCE_SIZE");
    if (only && *only) {
        char name[64];
        long n = atol(only);
        if (n <= 0 || n > (64L << 20))
            die("SPX_BENCH_FENCE_SIZE (1 to 64 MiB)", PMIX_ERR_BAD_PARAM);
        snprintf(name, sizeof(name), "fence_%ldB", n);
        bench_fence(name, iters, (size_t)n);
        if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS)
            die("PMIx_Finalize", rc);
        return 0;
    }
    bench_fence("fence_empty", iters, 0);
    bench_fence("fence_64B", iters, 64);
    bench_fence("fence_8KiB", iters, 8192);

    /* Put rate: distinct keys */
    t0 = now();
    for (int i = 0; i < nkeys; i++) {
        snprintf(key, sizeof(key), "bench.k%d", i);
        v.type = PMIX_UINT32;
        v.data.uint32 = (uint32_t)i;
        if ((rc = PMIx_Put(PMIX_GLOBAL, key, &v)) != PMIX_SUCCESS)
            die("PMIx_Put", rc);
    }
    if (me.rank == 0)
        printf("put_rate %.0f ops/s\n", nkeys / (now() - t0));
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        die("PMIx_Commit", rc);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Fence(NULL, 0, &info, 1)) != PMIX_SUCCESS)
        die("PMIx_Fence", rc);
    PMIX_INFO_DESTRUCT(&info);

    /* Get rates: own keys, then a local peer's */
    for (int pass = 0; pass < 2; pass++) {
        PMIX_LOAD_PROCID(&peer, me.nspace, pass == 0 ? me.rank : (me.rank + 1) % size);
        t0 = now();
        for (int i = 0; i < nkeys; i++) {
            snprintf(key, sizeof(key), "bench.k%d", i);
            if ((rc = PMIx_Get(&peer, key, NULL, 0, &got)) != PMIX_SUCCESS)
                die("PMIx_Get", rc);
            if (got->type != PMIX_UINT32 || got->data.uint32 != (uint32_t)i)
                die("PMIx_Get (wrong value)", PMIX_ERROR);
            PMIX_VALUE_RELEASE(got);
        }
        if (me.rank == 0)
            printf("%s %.0f ops/s\n", pass == 0 ? "get_own_rate" : "get_peer_rate",
                   nkeys / (now() - t0));
    }
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Fence", rc);
    if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Finalize", rc);
    return 0;
}
