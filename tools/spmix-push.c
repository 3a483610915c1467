/* spmix-push: sends a file, or this command's stdin, to the stdin of ranks of
 * a running job, through PMIx_IOF_push as a PMIx tool (see spmix-push.1).
 *
 *   spmix-push [--ranks LIST|all] [--eof] [--pid PID | --uri URI]
 *              [--nspace NSPACE] [FILE|-] [JOBID.STEP]
 *
 * The server: the job's launcher's (--pid), an address (--uri), this node's
 * server of Slurm step JOBID.STEP (PMIX_SERVER_NSPACE
 * "slurm.spmix.srv.JOBID.STEP.<node>", the node being $SLURMD_NODENAME or
 * the short host name: mpi/spmix names its servers so), or the one server
 * whose rendezvous file is in $TMPDIR (or /tmp). The job: --nspace, the
 * step's "slurm.spmix.JOBID.STEP", or the one namespace the server serves.
 * The bytes go in pushes of 1 MiB, up to INFLIGHT at once (reading the
 * input overlaps pushing), each buffer reused once the job's host took its
 * bytes (so a rank that reads slowly slows this command down, nothing is
 * lost); --eof ends the ranks' stdin afterwards. Exit status 0, or 1 with a message on stderr.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>
#include <pmix_tool.h>

#define CHUNK (1u << 20)
#define INFLIGHT 4 /* pushes in flight: reading the input overlaps the pushing */

/* The buffers of the pushes in flight; the push callback frees its slot. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool busy[INFLIGHT];
    pmix_status_t status;       /* first failure of a push */
} fl = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void pushed(pmix_status_t status, void *cbdata)
{
    int slot = (int)(intptr_t)cbdata;
    pthread_mutex_lock(&fl.lock);
    if (status != PMIX_SUCCESS && fl.status == PMIX_SUCCESS)
        fl.status = status;
    fl.busy[slot] = false;
    pthread_cond_broadcast(&fl.cond);
    pthread_mutex_unlock(&fl.lock);
}

/* A free slot (waits for one), or -1 once a push failed. */
static int free_slot(void)
{
    pthread_mutex_lock(&fl.lock);
    for (;;) {
        if (fl.status != PMIX_SUCCESS) {
            pthread_mutex_unlock(&fl.lock);
            return -1;
        }
        for (int i = 0; i < INFLIGHT; i++)
            if (!fl.busy[i]) {
                fl.busy[i] = true;
                pthread_mutex_unlock(&fl.lock);
                return i;
            }
        pthread_cond_wait(&fl.cond, &fl.lock);
    }
}

/* Waits for every push in flight; their first failure. */
static pmix_status_t drain(void)
{
    pthread_mutex_lock(&fl.lock);
    for (int i = 0; i < INFLIGHT; i++)
        while (fl.busy[i])
            pthread_cond_wait(&fl.cond, &fl.lock);
    pmix_status_t st = fl.status;
    pthread_mutex_unlock(&fl.lock);
    return st;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: spmix-push [--ranks LIST|all] [--eof] [--pid PID | --uri URI]\n"
               "                  [--nspace NSPACE] [FILE|-] [JOBID.STEP]\n"
               "Sends FILE (or stdin) to the stdin of the ranks of a job started with\n"
               "spmix-run --stdin tool, or of Slurm step JOBID.STEP (srun --mpi=spmix;\n"
               "run on a node of the step).\n"
               "  --ranks LIST|all  ranks to feed: \"0,2-4\" or all (default: all)\n"
               "  --eof             end the ranks' stdin after the data\n"
               "  --pid PID         the job's spmix-run (default: the only job in $TMPDIR or /tmp)\n"
               "  --uri URI         the server's address (spmix:<socket>, or file:<path>)\n"
               "  --nspace NSPACE   the job (default: the only one the server serves)\n"
               "  -h, --help        this text\n");
}

static int fail(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "spmix-push: %s: %s\n", what, PMIx_Error_string(rc));
    return 1;
}

/* The job's namespace: the only one the server serves. */
static pmix_status_t only_nspace(char *out, size_t cap)
{
    pmix_query_t q;
    char *keys[] = {PMIX_QUERY_NAMESPACES, NULL};
    pmix_info_t *res = NULL;
    size_t n = 0;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = keys;
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &n);
    q.keys = NULL;
    if (rc == PMIX_ERR_NOT_FOUND || (rc == PMIX_SUCCESS && n == 1 &&
                                     res[0].value.type == PMIX_STRING &&
                                     (!res[0].value.data.string || !res[0].value.data.string[0]))) {
        if (rc == PMIX_SUCCESS)
            PMIX_INFO_FREE(res, n);
        return PMIX_ERR_NOT_FOUND; /* no job registered yet */
    }
    if (rc != PMIX_SUCCESS)
        return rc;
    if (n != 1 || res[0].value.type != PMIX_STRING || !res[0].value.data.string ||
        strchr(res[0].value.data.string, ',') || !res[0].value.data.string[0]) {
        fprintf(stderr, "spmix-push: the server serves %s: name one with --nspace\n",
                n == 1 && res[0].value.type == PMIX_STRING ? res[0].value.data.string
                                                           : "no job");
        PMIX_INFO_FREE(res, n);
        return PMIX_ERR_BAD_PARAM;
    }
    snprintf(out, cap, "%s", res[0].value.data.string);
    PMIX_INFO_FREE(res, n);
    return PMIX_SUCCESS;
}

/* Is arg a Slurm step "JOBID.STEP" (and no file of that name)? Then the
 * numbers go to *job and *step. */
static int slurm_step_of(const char *arg, unsigned long *job, unsigned long *step)
{
    struct stat st;
    char *end;

    if (arg[0] < '0' || arg[0] > '9' || stat(arg, &st) == 0)
        return 0;
    *job = strtoul(arg, &end, 10);
    if (*end != '.' || end[1] < '0' || end[1] > '9')
        return 0;
    *step = strtoul(end + 1, &end, 10);
    return *end == '\0' && *job <= UINT32_MAX && *step <= UINT32_MAX;
}

/* This node's Slurm name: $SLURMD_NODENAME (in a step), else the host name
 * up to its first dot. */
static void node_name(char *out, size_t cap)
{
    const char *e = getenv("SLURMD_NODENAME");

    if (e != NULL && *e != '\0') {
        snprintf(out, cap, "%s", e);
        return;
    }
    if (gethostname(out, cap) != 0)
        out[0] = '\0';
    out[cap - 1] = '\0';
    out[strcspn(out, ".")] = '\0';
}

/* The targets for LIST ("all" or "0,2-4") of nspace into *out (malloc'd). */
static int targets_of(const char *list, const char *nspace, pmix_proc_t **out, size_t *n)
{
    if (!list || strcmp(list, "all") == 0) {
        *out = malloc(sizeof(**out));
        if (!*out)
            return -1;
        PMIX_LOAD_PROCID(&(*out)[0], nspace, PMIX_RANK_WILDCARD);
        *n = 1;
        return 0;
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int w = set && hwloc_bitmap_list_sscanf(set, list) == 0 ? hwloc_bitmap_weight(set) : -1;
    if (w <= 0 || w > 1 << 20) {
        hwloc_bitmap_free(set);
        fprintf(stderr, "spmix-push: --ranks %s: not a list of ranks (\"0,2-4\" or all)\n", list);
        return -1;
    }
    *out = calloc((size_t)w, sizeof(**out));
    *n = 0;
    unsigned r;
    hwloc_bitmap_foreach_begin(r, set)
    {
        if (*out) { /* the macro evaluates its arguments more than once */
            pmix_proc_t *t = &(*out)[*n];
            PMIX_LOAD_PROCID(t, nspace, r);
            (*n)++;
        }
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(set);
    return *out ? 0 : -1;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"ranks", required_argument, NULL, 'r'}, {"eof", no_argument, NULL, 'e'},
        {"pid", required_argument, NULL, 'p'},   {"uri", required_argument, NULL, 'u'},
        {"nspace", required_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *ranks = NULL, *uri = NULL, *nspace = NULL;
    long pid = 0;
    int eof = 0, c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'r': ranks = optarg; break;
        case 'e': eof = 1; break;
        case 'p': pid = strtol(optarg, NULL, 10); break;
        case 'u': uri = optarg; break;
        case 'n': nspace = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 1;
        }
    }
    unsigned long sjob = 0, sstep = 0;
    int slurm = argc - optind >= 1 && slurm_step_of(argv[argc - 1], &sjob, &sstep);
    if (argc - optind > 1 + slurm || (pid && uri) || (slurm && (pid || uri))) {
        usage(stderr);
        return 1;
    }
    const char *file = argc - optind > slurm ? argv[optind] : "-";
    int fd = strcmp(file, "-") == 0 ? 0 : open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "spmix-push: %s: %s\n", file, strerror(errno));
        return 1;
    }
    pmix_info_t info[1];
    size_t ninfo = 0;
    pid_t spid = (pid_t)pid;
    char srvns[PMIX_MAX_NSLEN + 1], stepns[PMIX_MAX_NSLEN + 1], node[128];
    if (pid > 0)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_PIDINFO, &spid, PMIX_PID);
    else if (uri)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_URI, uri, PMIX_STRING);
    else if (slurm) {
        node_name(node, sizeof(node));
        snprintf(srvns, sizeof(srvns), "slurm.spmix.srv.%lu.%lu.%s", sjob, sstep, node);
        snprintf(stepns, sizeof(stepns), "slurm.spmix.%lu.%lu", sjob, sstep);
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_NSPACE, srvns, PMIX_STRING);
        if (!nspace)
            nspace = stepns;
    }
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, ninfo ? info : NULL, ninfo);
    if (rc != PMIX_SUCCESS && slurm)
        fprintf(stderr, "spmix-push: no server of step %lu.%lu on this node (%s): run on a "
                        "node of the step, launched with srun --mpi=spmix\n", sjob, sstep, node);
    if (rc != PMIX_SUCCESS)
        return fail("cannot reach the job's server", rc);
    char ns[PMIX_MAX_NSLEN + 1];
    if (nspace)
        snprintf(ns, sizeof(ns), "%s", nspace);
    else {
        /* a launcher starts its server before it registers the job: a tool
         * that came at once waits for the job (10 s at most) */
        for (int tries = 0; (rc = only_nspace(ns, sizeof(ns))) == PMIX_ERR_NOT_FOUND &&
                            tries < 100; tries++)
            usleep(100 * 1000);
    }
    if (!nspace && rc != PMIX_SUCCESS) {
        PMIx_tool_finalize();
        return rc == PMIX_ERR_BAD_PARAM ? 1 : fail("cannot ask the server for its job", rc);
    }
    pmix_proc_t *targets = NULL;
    size_t ntargets = 0;
    if (targets_of(ranks, ns, &targets, &ntargets) != 0) {
        PMIx_tool_finalize();
        return 1;
    }
    char *bufs[INFLIGHT] = {NULL};
    int status = 0;
    for (int i = 0; i < INFLIGHT && status == 0; i++)
        if (!(bufs[i] = malloc(CHUNK)))
            status = fail("out of memory", PMIX_ERR_NOMEM);
    pmix_byte_object_t bo[INFLIGHT];
    while (status == 0) {
        int slot = free_slot();
        if (slot < 0)
            break; /* a push failed: reported below */
        ssize_t n = read(fd, bufs[slot], CHUNK);
        if (n < 0 && errno == EINTR) {
            pushed(PMIX_SUCCESS, (void *)(intptr_t)slot);
            continue;
        }
        if (n <= 0) {
            if (n < 0) {
                fprintf(stderr, "spmix-push: reading %s: %s\n", file, strerror(errno));
                status = 1;
            }
            pushed(PMIX_SUCCESS, (void *)(intptr_t)slot);
            break;
        }
        bo[slot].bytes = bufs[slot];
        bo[slot].size = (size_t)n;
        rc = PMIx_IOF_push(targets, ntargets, &bo[slot], NULL, 0, pushed, (void *)(intptr_t)slot);
        if (rc != PMIX_SUCCESS) {
            pushed(PMIX_SUCCESS, (void *)(intptr_t)slot);
            status = fail("push", rc);
        }
    }
    if ((rc = drain()) != PMIX_SUCCESS && status == 0)
        status = fail("push", rc);
    if (status == 0 && eof) {
        pmix_byte_object_t none = {.bytes = NULL, .size = 0};
        rc = PMIx_IOF_push(targets, ntargets, &none, NULL, 0, NULL, NULL);
        /* UNREACH: a target's stdin ended already (it read what it wanted and
         * exited) - what --eof asks for holds */
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED && rc != PMIX_ERR_UNREACH)
            status = fail("end of file", rc);
    }
    for (int i = 0; i < INFLIGHT; i++)
        free(bufs[i]);
    free(targets);
    if (fd > 0)
        close(fd);
    PMIx_tool_finalize();
    return status;
}
