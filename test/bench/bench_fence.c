/*
 * bench_fence: fence latency across simulated nodes, run as
 *     spmix-run --nodes M -n N test/bench/bench_fence [iterations]
 * Three series, each preceded by a few warm-up fences: a barrier (no data),
 * and collecting fences after every rank put and committed a fresh 64 B or
 * 8 KiB blob (so every fence carries N blobs). Rank 0 times each fence and
 * prints "name median_us p90_us" per series; run_scaling.sh aggregates runs.
 */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARMUP 5

static pmix_proc_t me;

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
    fprintf(stderr, "bench_fence[%u]: %s failed: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(1);
}

/* One series: size 0 = barrier; else a size-byte blob put before each fence. */
static void series(const char *name, int iters, size_t size)
{
    double *t = calloc((size_t)iters, sizeof(double));
    char *blob = malloc(size ? size : 1);
    bool yes = true;
    pmix_info_t info;
    pmix_status_t rc;

    if (t == NULL || blob == NULL)
        die("malloc", PMIX_ERR_NOMEM);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    for (int i = -WARMUP; i < iters; i++) {
        double t0;
        if (size) {
            pmix_value_t v = { .type = PMIX_BYTE_OBJECT };
            memset(blob, 'a' + ((i + WARMUP) % 26), size);
            v.data.bo.bytes = blob;
            v.data.bo.size = size;
            if ((rc = PMIx_Put(PMIX_GLOBAL, "bench.blob", &v)) != PMIX_SUCCESS)
                die("PMIx_Put", rc);
            if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
                die("PMIx_Commit", rc);
        }
        t0 = now();
        rc = PMIx_Fence(NULL, 0, size ? &info : NULL, size ? 1 : 0);
        if (rc != PMIX_SUCCESS)
            die("PMIx_Fence", rc);
        if (i >= 0)
            t[i] = (now() - t0) * 1e6;
    }
    qsort(t, (size_t)iters, sizeof(double), cmp_double);
    if (me.rank == 0)
        printf("%s %.1f %.1f\n", name, t[iters / 2], t[(iters * 9) / 10]);
    PMIX_INFO_DESTRUCT(&info);
    free(blob);
    free(t);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    pmix_status_t rc;

    if (iters < 5 || iters > 100000)
        iters = 100;
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Init", rc);
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS)   /* everybody is up */
        die("PMIx_Fence", rc);
    series("barrier", iters, 0);
    series("collect_64B", iters, 64);
    series("collect_8KiB", iters, 8192);
    fflush(stdout);
    if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Finalize", rc);
    return 0;
}
