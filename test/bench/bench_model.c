/*
 * bench_model.c: the measured points of the cost model (test/bench/run_model.sh,
 * test/bench/cost_model.py, doc/scale.md "Cost model and projection"), run as
 *     spmix-run --nodes M -n N [--width W] test/bench/bench_model [ROUNDS [BYTES]]
 * Every rank measures, on CLOCK_MONOTONIC and on CPU clocks (its own process,
 * and its parent's: the node's server under spmix-run --nodes):
 *   - PMIx_Init: wall time, its own CPU time, the server's CPU time meanwhile;
 *   - then, after an untimed empty fence (everybody is up), ROUNDS times
 *     (default 3): an empty fence, and a Put of BYTES (default 64) + Commit + a
 *     collecting fence over the job, each with wall time, own CPU time and
 *     the server's CPU time from just before to just after it;
 *   - after the last collecting fence, what its server sent for it
 *     (SPMIX_QUERY_LAST_COLL_BYTES, SPMIX_QUERY_LAST_COLL_PAYLOAD: the key and
 *     value bytes this node contributed).
 * Medians over the rounds; one line per rank:
 *   bench_model: rank R nodes M ranks N init_us I init_cpu_us IC init_srv_cpu_us IS
 *     barrier_us B barrier_srv_cpu_us BS fence_us F fence_cpu_us FC fence_srv_cpu_us FS
 *     coll_bytes_sent CB coll_payload CP value BYTES
 * (one line; the server's figures cover all of its node's ranks, which run
 * the same steps at the same time). On a machine with fewer cores than
 * processes the wall times include waiting for a core; the CPU times are
 * what a node spends.
 */
#include <pmix.h>
#include <spmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 64
#define MAX_BYTES (16 << 20)

static clockid_t srv_clock;
static int have_srv_clock;

static double wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double cpu_us(clockid_t c)
{
    struct timespec ts;
    if (clock_gettime(c, &ts) != 0)
        return 0;
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double srv_cpu_us(void)
{
    return have_srv_clock ? cpu_us(srv_clock) : 0;
}

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "bench_model: %s: %s\n", what, PMIx_Error_string(rc));
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t query_u64(const char *key)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {(char *)key, NULL};
    q.keys = keys;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    uint64_t v = 0;
    if (PMIx_Query_info(&q, 1, &res, &nres) == PMIX_SUCCESS && nres == 1 &&
        res[0].value.type == PMIX_UINT64)
        v = res[0].value.data.uint64;
    q.keys = NULL;
    if (res)
        PMIX_INFO_FREE(res, nres);
    return v;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    if (rounds < 1 || rounds > MAX_ROUNDS)
        rounds = 3;
    long vlen = argc > 2 ? atol(argv[2]) : 64;
    if (vlen < 1 || vlen > MAX_BYTES)
        vlen = 64;
    char *bytes = malloc((size_t)vlen);
    if (!bytes)
        die("malloc", PMIX_ERR_NOMEM);
    pmix_proc_t me, wild;
    have_srv_clock = clock_getcpuclockid(getppid(), &srv_clock) == 0;
    double s0 = srv_cpu_us(), c0 = cpu_us(CLOCK_PROCESS_CPUTIME_ID), t0 = wall_us();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    double t1 = wall_us(), c1 = cpu_us(CLOCK_PROCESS_CPUTIME_ID), s1 = srv_cpu_us();
    if (rc != PMIX_SUCCESS)
        die("PMIx_Init", rc);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    uint32_t nranks = 0, nnodes = 0;
    if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v)) != PMIX_SUCCESS)
        die("PMIx_Get(PMIX_JOB_SIZE)", rc);
    nranks = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    if ((rc = PMIx_Get(&wild, PMIX_NUM_NODES, NULL, 0, &v)) != PMIX_SUCCESS)
        die("PMIx_Get(PMIX_NUM_NODES)", rc);
    nnodes = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS) /* everybody is up */
        die("PMIx_Fence (start)", rc);
    double bw[MAX_ROUNDS], bs[MAX_ROUNDS], fw[MAX_ROUNDS], fc[MAX_ROUNDS], fs[MAX_ROUNDS];
    pmix_info_t col;
    bool yes = true;
    PMIX_INFO_LOAD(&col, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    char key[64];
    for (int r = 0; r < rounds; r++) {
        double a = srv_cpu_us(), b = wall_us();
        if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS)
            die("PMIx_Fence (empty)", rc);
        bw[r] = wall_us() - b;
        bs[r] = srv_cpu_us() - a;
        memset(bytes, (int)((me.rank + (uint32_t)r) & 0xff), (size_t)vlen);
        pmix_value_t val = {.type = PMIX_BYTE_OBJECT};
        val.data.bo.bytes = bytes;
        val.data.bo.size = (size_t)vlen;
        snprintf(key, sizeof(key), "bench.model.%d", r); /* new data every round */
        double sa = srv_cpu_us(), ca = cpu_us(CLOCK_PROCESS_CPUTIME_ID), wa = wall_us();
        if ((rc = PMIx_Put(PMIX_GLOBAL, key, &val)) != PMIX_SUCCESS)
            die("PMIx_Put", rc);
        if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
            die("PMIx_Commit", rc);
        if ((rc = PMIx_Fence(&wild, 1, &col, 1)) != PMIX_SUCCESS)
            die("PMIx_Fence (collect)", rc);
        fw[r] = wall_us() - wa;
        fc[r] = cpu_us(CLOCK_PROCESS_CPUTIME_ID) - ca;
        fs[r] = srv_cpu_us() - sa;
    }
    PMIX_INFO_DESTRUCT(&col);
    uint64_t cb = query_u64(SPMIX_QUERY_LAST_COLL_BYTES);
    uint64_t cp = query_u64(SPMIX_QUERY_LAST_COLL_PAYLOAD);
    /* a value of another node from the last round, as a check */
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + nranks / 2) % nranks);
    snprintf(key, sizeof(key), "bench.model.%d", rounds - 1);
    if ((rc = PMIx_Get(&peer, key, NULL, 0, &v)) != PMIX_SUCCESS || v->type != PMIX_BYTE_OBJECT ||
        v->data.bo.size != (size_t)vlen ||
        (unsigned char)v->data.bo.bytes[0] != (unsigned char)((peer.rank + (uint32_t)rounds - 1) & 0xff))
        die("PMIx_Get of another rank's fenced value", rc ? rc : PMIX_ERR_BAD_PARAM);
    PMIX_VALUE_RELEASE(v);
    free(bytes);
    printf("bench_model: rank %u nodes %u ranks %u init_us %.0f init_cpu_us %.0f init_srv_cpu_us %.0f "
           "barrier_us %.1f barrier_srv_cpu_us %.1f fence_us %.1f fence_cpu_us %.1f "
           "fence_srv_cpu_us %.1f coll_bytes_sent %llu coll_payload %llu value %ld\n",
           (unsigned)me.rank, nnodes, nranks, t1 - t0, c1 - c0, s1 - s0, median(bw, rounds),
           median(bs, rounds), median(fw, rounds), median(fc, rounds), median(fs, rounds),
           (unsigned long long)cb, (unsigned long long)cp, vlen);
    fflush(stdout);
    if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS) /* all measured before any leaves */
        die("PMIx_Fence (end)", rc);
    PMIx_Finalize(NULL, 0);
    return 0;
}
