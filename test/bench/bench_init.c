/*
 * bench_init.c: what a process pays for PMIx_Init, and what its node's
 * server holds, against the size of the job (run by run_scale.sh under
 * spmix-run --nodes M). Each rank measures:
 *   - PMIx_Init's wall time and the resident memory it added (/proc/self/statm
 *     before and after);
 *   - a Put of 64 bytes, Commit and a collecting fence over the job, timed;
 *   - the resident memory of its parent (the node's server under spmix-run
 *     --nodes: /proc/PPID/status VmRSS) after the fence;
 *   - PMIx_Get of PMIX_HOSTNAME and PMIX_NODEID of the next rank and of the
 *     last rank (values of other nodes: computed from the job's maps) and of
 *     its value from the fence, checked.
 * and prints one line:
 *   bench_init: rank R init_us T rss_kb K server_rss_kb S fence_us F
 * The size of PMIx_Init's reply is in the library's debug line
 * "handshake reply: N bytes" (SPMIX_DEBUG=3).
 */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static long rss_kb_self(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &size, &res) != 2)
        res = -1;
    fclose(f);
    return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

static long rss_kb_of(pid_t pid)
{
    char path[64], line[256];
    long kb = -1;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "bench_init: %s: %s\n", what, PMIx_Error_string(rc));
    exit(1);
}

static void check_peer(const pmix_proc_t *me, pmix_rank_t r)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, me->nspace, r);
    pmix_status_t rc = PMIx_Get(&p, PMIX_HOSTNAME, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_STRING)
        die("PMIx_Get(PMIX_HOSTNAME) of another rank", rc);
    PMIX_VALUE_RELEASE(v);
    rc = PMIx_Get(&p, PMIX_NODEID, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_UINT32)
        die("PMIx_Get(PMIX_NODEID) of another rank", rc);
    PMIX_VALUE_RELEASE(v);
    rc = PMIx_Get(&p, "bench.init.v", NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_BYTE_OBJECT || v->data.bo.size != 64 ||
        (unsigned char)v->data.bo.bytes[0] != (unsigned char)r)
        die("PMIx_Get of another rank's fenced value", rc ? rc : PMIX_ERR_BAD_PARAM);
    PMIX_VALUE_RELEASE(v);
}

int main(void)
{
    pmix_proc_t me, wild;
    long rss0 = rss_kb_self();
    double t0 = now_us();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    double t1 = now_us();
    long rss1 = rss_kb_self();
    if (rc != PMIX_SUCCESS)
        die("PMIx_Init", rc);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *sz = NULL;
    if ((rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &sz)) != PMIX_SUCCESS)
        die("PMIx_Get(PMIX_JOB_SIZE)", rc);
    uint32_t n = sz->data.uint32;
    PMIX_VALUE_RELEASE(sz);
    char bytes[64];
    memset(bytes, (int)(me.rank & 0xff), sizeof(bytes));
    pmix_value_t v;
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = bytes;
    v.data.bo.size = sizeof(bytes);
    if ((rc = PMIx_Put(PMIX_GLOBAL, "bench.init.v", &v)) != PMIX_SUCCESS)
        die("PMIx_Put", rc);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        die("PMIx_Commit", rc);
    pmix_info_t col;
    bool yes = true;
    PMIX_INFO_LOAD(&col, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    double f0 = now_us();
    if ((rc = PMIx_Fence(&wild, 1, &col, 1)) != PMIX_SUCCESS)
        die("PMIx_Fence", rc);
    double f1 = now_us();
    PMIX_INFO_DESTRUCT(&col);
    if (n > 1) {
        check_peer(&me, (me.rank + 1) % n);
        check_peer(&me, n - 1 == me.rank ? 0 : n - 1);
    }
    long srv = rss_kb_of(getppid());
    printf("bench_init: rank %u init_us %.0f rss_kb %ld server_rss_kb %ld fence_us %.0f\n",
           (unsigned)me.rank, t1 - t0, rss1 - rss0, srv, f1 - f0);
    fflush(stdout);
    if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS) /* all measured before any leaves */
        die("PMIx_Fence (end)", rc);
    PMIx_Finalize(NULL, 0);
    return 0;
}
