/*
 * bench_pmix: the PMIx client side of test/slurm/bench_compare.sh. The same
 * source is built twice - against spmix's headers and library (run under
 * srun --mpi=spmix) and against Debian's OpenPMIx (srun --mpi=pmix) - so both
 * Slurm plugins are measured with identical client work.
 *
 *   bench_pmix [bench [ITERS [small]]]  PMIx_Init wall time (rank 0's and
 *                                the maximum over all ranks), then medians
 *                                of ITERS empty fences and of ITERS
 *                                collecting fences with 64 B and (without
 *                                "small") 8 KiB put per rank, each after
 *                                WARMUP untimed fences of the same kind.
 *                                Rank 0 prints "name value unit".
 *   bench_pmix late              the last rank sleeps 1 s before an empty
 *                                fence; every rank prints
 *                                "fence_wait RANK SECONDS". A fence that
 *                                really synchronises shows >= ~1 s in all
 *                                other ranks.
 *
 * With SPMIX_BENCH_HOLD=DIR in the environment (bench_scale32.sh), every
 * rank, after the fences and before PMIx_Finalize, writes DIR/ready.RANK
 * holding its parent's pid (slurmstepd's: the script reads its memory then)
 * and waits until DIR/go exists (at most 120 s).
 *
 * Data flow: each rank puts its own init time under "bench.init" before the
 * first collecting fence; rank 0 reads them all back to report the maximum.
 * All buffers are owned by the function that allocates them.
 */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    fprintf(stderr, "bench_pmix[%u]: %s failed: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(1);
}

/* One fence; with size > 0, put a fresh blob of size bytes and commit first
 * and ask for the data to be collected. Returns the fence's wall time (s). */
static double one_fence(char *blob, size_t size, int round)
{
    pmix_info_t info;
    pmix_value_t v;
    pmix_status_t rc;
    bool yes = true;
    double t0, dt;

    if (size) {
        memset(blob, 'a' + (round % 26), size);
        v.type = PMIX_BYTE_OBJECT;
        v.data.bo.bytes = blob;
        v.data.bo.size = size;
        if ((rc = PMIx_Put(PMIX_GLOBAL, "bench.blob", &v)) != PMIX_SUCCESS)
            die("PMIx_Put", rc);
        if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
            die("PMIx_Commit", rc);
        PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    }
    t0 = now();
    rc = PMIx_Fence(NULL, 0, size ? &info : NULL, size ? 1 : 0);
    dt = now() - t0;
    if (size)
        PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        die("PMIx_Fence", rc);
    return dt;
}

/* Median (microseconds) of iters fences of one kind after WARMUP untimed ones. */
static void bench_fence(const char *name, int iters, size_t size)
{
    double *t = calloc((size_t)iters, sizeof(double));
    char *blob = size ? malloc(size) : NULL;

    if (t == NULL || (size && blob == NULL))
        die("malloc", PMIX_ERR_NOMEM);
    for (int i = 0; i < WARMUP; i++)
        (void)one_fence(blob, size, i);
    for (int i = 0; i < iters; i++)
        t[i] = one_fence(blob, size, i) * 1e6;
    qsort(t, (size_t)iters, sizeof(double), cmp_double);
    if (me.rank == 0)
        printf("%s %.1f us\n", name, t[iters / 2]);
    free(blob);
    free(t);
}

/* Every rank puts its init time; after a collecting fence rank 0 prints the
 * maximum over all ranks. */
static void report_init_max(double init_s, uint32_t size)
{
    pmix_value_t v, *got;
    pmix_proc_t peer;
    pmix_status_t rc;
    pmix_info_t info;
    bool yes = true;
    double max = init_s;

    v.type = PMIX_DOUBLE;
    v.data.dval = init_s;
    if ((rc = PMIx_Put(PMIX_GLOBAL, "bench.init", &v)) != PMIX_SUCCESS)
        die("PMIx_Put(bench.init)", rc);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        die("PMIx_Commit", rc);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Fence(NULL, 0, &info, 1)) != PMIX_SUCCESS)
        die("PMIx_Fence(init)", rc);
    PMIX_INFO_DESTRUCT(&info);
    if (me.rank != 0)
        return;
    for (uint32_t r = 0; r < size; r++) {
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        if ((rc = PMIx_Get(&peer, "bench.init", NULL, 0, &got)) != PMIX_SUCCESS)
            die("PMIx_Get(bench.init)", rc);
        if (got->type != PMIX_DOUBLE)
            die("PMIx_Get(bench.init): type", PMIX_ERR_TYPE_MISMATCH);
        if (got->data.dval > max)
            max = got->data.dval;
        PMIX_VALUE_RELEASE(got);
    }
    printf("init_max %.2f ms\n", max * 1e3);
}

/* SPMIX_BENCH_HOLD=DIR: report the parent's pid in DIR/ready.RANK, then
 * wait for DIR/go (polled every 10 ms, 120 s at most). */
static void hold(void)
{
    const char *dir = getenv("SPMIX_BENCH_HOLD");
    char path[4096], tmp[4200];
    FILE *f;

    if (dir == NULL || *dir == '\0')
        return;
    snprintf(path, sizeof(path), "%s/ready.%u", dir, me.rank);
    snprintf(tmp, sizeof(tmp), "%s/tmp.%u", dir, me.rank);
    if ((f = fopen(tmp, "w")) == NULL || fprintf(f, "%ld\n", (long)getppid()) < 0 ||
        fclose(f) != 0 || rename(tmp, path) != 0) {
        perror(path);
        exit(1);
    }
    snprintf(path, sizeof(path), "%s/go", dir);
    for (int i = 0; i < 12000 && access(path, F_OK) != 0; i++)
        usleep(10000);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "bench";
    int iters = argc > 2 ? atoi(argv[2]) : 50;
    pmix_proc_t wild;
    pmix_value_t *got;
    pmix_status_t rc;
    uint32_t size;
    double t0, init_s;

    if (iters < 5 || iters > 100000)
        iters = 50;
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

    if (strcmp(mode, "late") == 0) {
        char blob[1];
        double dt;

        (void)one_fence(blob, 0, 0); /* everybody is up */
        if (me.rank == size - 1)
            sleep(1);
        dt = one_fence(blob, 0, 0);
        printf("fence_wait %u %.3f\n", me.rank, dt);
    } else if (strcmp(mode, "bench") == 0) {
        if (me.rank == 0) {
            printf("ranks %u\n", size);
            printf("library %s\n", PMIx_Get_version());
            printf("init %.2f ms\n", init_s * 1e3);
        }
        report_init_max(init_s, size);
        bench_fence("fence_empty", iters, 0);
        bench_fence("fence_64B", iters, 64);
        if (argc <= 3 || strcmp(argv[3], "small") != 0)
            bench_fence("fence_8KiB", iters, 8192);
    } else {
        fprintf(stderr, "usage: bench_pmix [bench [ITERS [small]] | late]\n");
        PMIx_Finalize(NULL, 0);
        return 2;
    }
    fflush(stdout);
    hold();
    if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Finalize", rc);
    return 0;
}
