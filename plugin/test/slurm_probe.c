/*
 * slurm_probe: a PMIx client for the Slurm tests of mpi/spmix
 * (test/slurm/test_plugin.sh). One mode per run, chosen by argv[1]:
 *   keys       the job/node/process keys agree with Slurm's own view
 *              (SLURM_PROCID, SLURM_NTASKS, SLURM_NNODES, SLURM_NODEID,
 *              SLURM_LOCALID, the host name) and every peer's PMIX_HOSTNAME
 *              and PMIX_NODEID agree with a collecting fence exchange;
 *              prints which libpmix.so.2 the process loaded
 *   barrier R  rank R sleeps 1 s before a fence; the others print how long
 *              the fence held them ("fence_wait <rank> <seconds>")
 *   killfence  rank 1 kills itself with SIGKILL while the others are in a
 *              fence; they print "fence_failed <rank> <status> <seconds>"
 *   abort S    rank 1 calls PMIx_Abort(S, "probe abort"); the others wait
 *   env F      writes the PMIx environment of rank 0 to file F, then sleeps
 *              until F is removed (at most 60 s)
 *   early_end  the ranks of the last node finalize and exit after a first
 *              fence; the others count the events they get for 3 s, then
 *              fence over the whole job, which goes on without the
 *              finalized ranks (their node ended in order) and must not
 *              hang; they print
 *              "early_end <rank> events <n> fence <status> <seconds>"
 * Exit status 0 when the mode's checks pass; failures print "FAIL ...".
 */
#include <pmix.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define FAIL(...) \
    do { fprintf(stderr, "FAIL [rank %u] ", me.rank); fprintf(stderr, __VA_ARGS__); \
         fputc('\n', stderr); fflush(NULL); _exit(1); } while (0)

static uint32_t env_u32(const char *name)
{
    const char *s = getenv(name);

    if (s == NULL)
        FAIL("%s is not set", name);
    return (uint32_t)strtoul(s, NULL, 10);
}

static pmix_value_t *get(pmix_rank_t rank, const char *key, pmix_data_type_t type)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_Get(%u, %s): %s", rank, key, PMIx_Error_string(rc));
    if (v->type != type)
        FAIL("%s of %u has type %u, expected %u", key, rank, v->type, type);
    return v;
}

static void want_u32(pmix_rank_t rank, const char *key, uint32_t want)
{
    pmix_value_t *v = get(rank, key, PMIX_UINT32);

    if (v->data.uint32 != want)
        FAIL("%s of %u is %u, expected %u", key, rank, v->data.uint32, want);
    PMIX_VALUE_RELEASE(v);
}

static void fence(void)
{
    pmix_info_t info;
    bool yes = true;
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_Fence: %s", PMIx_Error_string(rc));
}

static const char *libpmix_path(void)
{
    static char line[4096];
    FILE *f = fopen("/proc/self/maps", "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        char *p = strchr(line, '/');
        if (p != NULL && strstr(p, "libpmix.so") != NULL) {
            p[strcspn(p, "\n")] = '\0';
            fclose(f);
            return p;
        }
    }
    if (f != NULL)
        fclose(f);
    return "(not found)";
}

static int mode_keys(void)
{
    uint32_t size = env_u32("SLURM_NTASKS"), nnodes = env_u32("SLURM_NNODES");
    uint32_t nodeid = env_u32("SLURM_NODEID"), lrank = env_u32("SLURM_LOCALID");
    char host[256] = "", key[64];
    pmix_value_t *v, val;

    gethostname(host, sizeof(host) - 1);
    if (me.rank != env_u32("SLURM_PROCID"))
        FAIL("PMIx rank %u but SLURM_PROCID %u", me.rank, env_u32("SLURM_PROCID"));
    want_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, size);
    want_u32(PMIX_RANK_WILDCARD, PMIX_NUM_NODES, nnodes);
    want_u32(me.rank, PMIX_NODEID, nodeid);
    v = get(me.rank, PMIX_LOCAL_RANK, PMIX_UINT16);
    if (v->data.uint16 != lrank)
        FAIL("local rank %u, SLURM_LOCALID %u", v->data.uint16, lrank);
    PMIX_VALUE_RELEASE(v);
    v = get(me.rank, PMIX_HOSTNAME, PMIX_STRING);
    if (strcmp(v->data.string, host) != 0)
        FAIL("PMIX_HOSTNAME %s, gethostname %s", v->data.string, host);
    PMIX_VALUE_RELEASE(v);
    /* publish what this process sees and compare with every peer's registration */
    snprintf(key, sizeof(key), "probe.host");
    val.type = PMIX_STRING;
    val.data.string = host;
    if (PMIx_Put(PMIX_GLOBAL, key, &val) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        FAIL("put/commit");
    fence();
    for (uint32_t r = 0; r < size; r++) {
        pmix_value_t *seen = get(r, key, PMIX_STRING), *reg = get(r, PMIX_HOSTNAME, PMIX_STRING);
        if (strcmp(seen->data.string, reg->data.string) != 0)
            FAIL("rank %u runs on %s but is registered on %s", r, seen->data.string,
                 reg->data.string);
        PMIX_VALUE_RELEASE(seen);
        PMIX_VALUE_RELEASE(reg);
    }
    printf("keys ok rank %u node %u host %s lib %s\n", me.rank, nodeid, host, libpmix_path());
    return 0;
}

static int mode_barrier(pmix_rank_t late)
{
    double t0;

    fence();   /* everyone is up */
    if (me.rank == late)
        sleep(1);
    t0 = now();
    fence();
    printf("fence_wait %u %.3f\n", me.rank, now() - t0);
    return 0;
}

static int mode_killfence(void)
{
    pmix_status_t rc;
    double t0;

    fence();
    if (me.rank == 1) {
        usleep(300000);   /* the others are inside the next fence by now */
        kill(getpid(), SIGKILL);
    }
    t0 = now();
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    printf("fence_failed %u %s %.3f\n", me.rank, PMIx_Error_string(rc), now() - t0);
    fflush(stdout);
    return rc == PMIX_SUCCESS ? 1 : 0;
}

static int mode_abort(int status)
{
    fence();
    if (me.rank == 1)
        PMIx_Abort(status, "probe abort", NULL, 0);
    sleep(30);
    return 3;
}

static volatile int nevents;

static void count_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    nevents++;
    fprintf(stderr, "rank %u: event %s\n", me.rank, PMIx_Error_string(status));
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int mode_early_end(void)
{
    pmix_value_t *v = get(me.rank, PMIX_NODEID, PMIX_UINT32);
    uint32_t node = v->data.uint32, nnodes;
    pmix_status_t rc;
    double t0;

    PMIX_VALUE_RELEASE(v);
    v = get(PMIX_RANK_WILDCARD, PMIX_NUM_NODES, PMIX_UINT32);
    nnodes = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, count_event, NULL, NULL);
    if (rc < 0)
        FAIL("PMIx_Register_event_handler: %s", PMIx_Error_string(rc));
    fence();
    if (node == nnodes - 1)
        return 0;
    sleep(3);
    t0 = now();
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    printf("early_end %u events %d fence %s %.3f\n", me.rank, nevents, PMIx_Error_string(rc),
           now() - t0);
    return 0;
}

static int mode_env(const char *file)
{
    extern char **environ;
    FILE *f;

    if (me.rank == 0) {
        char tmp[4096];
        snprintf(tmp, sizeof(tmp), "%s.tmp", file);
        if ((f = fopen(tmp, "w")) == NULL)
            FAIL("cannot write %s", tmp);
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "PMIX_", 5) == 0 || strncmp(*e, "LD_LIBRARY_PATH=", 16) == 0 ||
                strncmp(*e, "SPMIX", 5) == 0)
                fprintf(f, "%s\n", *e);
        fclose(f);
        rename(tmp, file);
        for (int i = 0; i < 600 && access(file, F_OK) == 0; i++)
            usleep(100000);
    }
    fence();
    return 0;
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    int ret = 2;

    if (argc < 2) {
        fprintf(stderr, "usage: slurm_probe keys|barrier R|killfence|abort S|env FILE|early_end\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (strcmp(argv[1], "keys") == 0)
        ret = mode_keys();
    else if (strcmp(argv[1], "barrier") == 0 && argc > 2)
        ret = mode_barrier((pmix_rank_t)atoi(argv[2]));
    else if (strcmp(argv[1], "killfence") == 0)
        ret = mode_killfence();
    else if (strcmp(argv[1], "abort") == 0 && argc > 2)
        ret = mode_abort(atoi(argv[2]));
    else if (strcmp(argv[1], "env") == 0 && argc > 2)
        ret = mode_env(argv[2]);
    else if (strcmp(argv[1], "early_end") == 0)
        ret = mode_early_end();
    if (ret == 0)
        PMIx_Finalize(NULL, 0);
    return ret;
}
