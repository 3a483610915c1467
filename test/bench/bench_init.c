/*
 * bench_init.c: what a process pays for PMIx_Init, and what its node's
 * server holds, against the size of the job (run by run_scale.sh under
 * spmix-run --nodes M). Each rank measures:
 *   - PMIx_Init's wall time and the resident memory it added (/proc/self/statm
 *     before and after);
 *   - an empty fence, then the resident memory of its parent (the node's
 *     server under spmix-run --nodes: /proc/PPID/status VmRSS): what the
 *     server holds for the job before any data;
 *   - a Put of 64 bytes, Commit and a collecting fence over the job, timed;
 *   - the server's resident memory again (with every rank's 64 B);
 *   - PMIx_Get of PMIX_HOSTNAME and PMIX_NODEID of the next rank and of the
 *     last rank (values of other nodes: computed from the job's maps) and of
 *     its value from the fence, checked;
 *   - a PMIx_Group_construct over the job with PMIX_GROUP_ASSIGN_CONTEXT_ID
 *     (its membership and context id checked), timed;
 *   - its own CPU time (user + system) from start to after the group, and
 *     its parent's (the node server's) so far;
 * and prints one line:
 *   bench_init: rank R init_us T rss_kb K server_rss0_kb S0 server_rss_kb S fence_us F group_us G
 *               cpu_ms C server_cpu_ms D
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

/* CPU time (ms) of process pid so far (the scheduler's count, in ns, from
 * /proc/PID/schedstat), -1 when unknown. */
static double cpu_ms_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
    FILE *f = fopen(path, "r");
    unsigned long long ns = 0;
    if (!f)
        return -1;
    int ok = fscanf(f, "%llu", &ns) == 1;
    fclose(f);
    return ok ? (double)ns / 1e6 : -1;
}

/* A group of the whole job with a context id: every member, in rank order,
 * and an id. Returns its time in us. */
static double group_once(const pmix_proc_t *me, uint32_t n)
{
    pmix_proc_t *all = calloc(n, sizeof(*all));
    if (!all)
        exit(1);
    for (uint32_t r = 0; r < n; r++)
        PMIX_LOAD_PROCID(&all[r], me->nspace, r);
    pmix_info_t ask;
    bool yes = true;
    PMIX_INFO_LOAD(&ask, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    double t0 = now_us();
    pmix_status_t rc = PMIx_Group_construct("bench.init.grp", all, n, &ask, 1, &res, &nres);
    double t1 = now_us();
    PMIX_INFO_DESTRUCT(&ask);
    if (rc != PMIX_SUCCESS)
        die("PMIx_Group_construct", rc);
    bool have_id = false, members_ok = false;
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID))
            have_id = true;
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP) &&
            res[i].value.type == PMIX_DATA_ARRAY && res[i].value.data.darray->size == n) {
            const pmix_proc_t *m = res[i].value.data.darray->array;
            members_ok = true;
            for (uint32_t r = 0; r < n; r++)
                members_ok = members_ok && m[r].rank == r;
        }
    }
    if (!have_id || !members_ok) {
        fprintf(stderr, "bench_init: group of %u: context id %s, membership %s\n", n,
                have_id ? "given" : "missing", members_ok ? "right" : "wrong");
        exit(1);
    }
    PMIX_INFO_FREE(res, nres);
    if ((rc = PMIx_Group_destruct("bench.init.grp", NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Group_destruct", rc);
    free(all);
    return t1 - t0;
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
    /* the server's memory before any data: its state for the job */
    if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Fence (empty)", rc);
    long srv0 = rss_kb_of(getppid());
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
    double g = group_once(&me, n);
    printf("bench_init: rank %u init_us %.0f rss_kb %ld server_rss0_kb %ld server_rss_kb %ld fence_us %.0f "
           "group_us %.0f cpu_ms %.1f server_cpu_ms %.0f\n",
           (unsigned)me.rank, t1 - t0, rss1 - rss0, srv0, srv, f1 - f0, g, cpu_ms_of(getpid()),
           cpu_ms_of(getppid()));
    fflush(stdout);
    if ((rc = PMIx_Fence(&wild, 1, NULL, 0)) != PMIX_SUCCESS) /* all measured before any leaves */
        die("PMIx_Fence (end)", rc);
    PMIx_Finalize(NULL, 0);
    return 0;
}
