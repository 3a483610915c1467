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
 * whose rendezvous file is in $TMPDIR (or /tmp). On a host that is not a
 * node of the step (a login node; scontrol says which nodes are), the
 * step's first node's server over its tree port: PMIX_SERVER_URI
 * "spmix-tcp://NODEADDR:PORT" (scontrol show node: NodeAddr; the port is
 * the step's ResvPorts, else derived from SpmixPortRange of scontrol show
 * config as mpi/spmix derives it), authenticated by munge (the socket of
 * Slurm's AuthInfo=socket=..., given to the library as SPMIX_MUNGE_SOCKET
 * unless set); that server reaches every rank of the step. The job: --nspace, the
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
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
               "on a node of the step, or on another host over the step's tree port,\n"
               "authenticated by munge).\n"
               "  --ranks LIST|all  ranks to feed: \"0,2-4\" or all (default: all)\n"
               "  --eof             end the ranks' stdin after the data\n"
               "  --pid PID         the job's spmix-run (default: the only job in $TMPDIR or /tmp)\n"
               "  --uri URI         the server's address (spmix:<socket>, spmix-tcp://HOST:PORT,\n"
               "                    or file:<path>)\n"
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

/* ---- a login node: the step's first node, from scontrol ---- */

extern char **environ;

/* Runs argv (scontrol ...) and puts its stdout, at most cap - 1 bytes, in
 * out. 0 when it exited 0. */
static int run_cmd(char *const argv[], char *out, size_t cap)
{
    int p[2];
    size_t got = 0;
    pid_t pid;
    int st = -1;
    posix_spawn_file_actions_t fa;

    out[0] = '\0';
    if (pipe(p) != 0)
        return -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        return -1;
    }
    for (;;) {
        char junk[4096];
        ssize_t n = got + 1 < cap ? read(p[0], out + got, cap - 1 - got)
                                  : read(p[0], junk, sizeof(junk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (got + 1 < cap)
            got += (size_t)n;
    }
    out[got] = '\0';
    close(p[0]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The value of KEY= (a word: up to a blank) in out, or "" (text: scontrol -o). */
static void field(const char *text, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    out[0] = '\0';
    for (const char *q = text; (q = strstr(q, key)); q += kl) {
        if ((q == text || q[-1] == ' ' || q[-1] == '\n') && q[kl] == '=') {
            size_t n = strcspn(q + kl + 1, " \t\n");
            snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), q + kl + 1);
            return;
        }
    }
}

/* "KEY = VALUE" of scontrol show config: VALUE or "". */
static void config_value(const char *text, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    out[0] = '\0';
    for (const char *q = text; (q = strstr(q, key)); q += kl)
        if ((q == text || q[-1] == '\n') && (q[kl] == ' ' || q[kl] == '=')) {
            const char *v = q + kl + strspn(q + kl, " =");
            size_t n = strcspn(v, "\n");
            snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), v);
            return;
        }
}

/* Where a host without a server of step job.step reaches it: *uri set
 * ("spmix-tcp://ADDR:PORT") and 0; 1 when this host (me) is a node of the
 * step (use its own server); -1 when scontrol does not know the step. */
static int step_remote(unsigned long job, unsigned long step, const char *me, char *uri,
                       size_t cap)
{
    static char out[65536];
    char id[64], nodes[4096], resv[64], first[256], addr[256], range[64], auth[1024];
    snprintf(id, sizeof(id), "%lu.%lu", job, step);
    char *show_step[] = {"scontrol", "show", "step", id, "-o", NULL};
    if (run_cmd(show_step, out, sizeof(out)) != 0)
        return -1;
    field(out, "NodeList", nodes, sizeof(nodes));
    field(out, "ResvPorts", resv, sizeof(resv));
    if (!nodes[0])
        return -1;
    char *names[] = {"scontrol", "show", "hostnames", nodes, NULL};
    if (run_cmd(names, out, sizeof(out)) != 0 || !out[0])
        return -1;
    first[0] = '\0';
    for (char *save = NULL, *n = strtok_r(out, "\n", &save); n; n = strtok_r(NULL, "\n", &save)) {
        if (strcmp(n, me) == 0)
            return 1;
        if (!first[0])
            snprintf(first, sizeof(first), "%s", n);
    }
    char *show_node[] = {"scontrol", "show", "node", first, "-o", NULL};
    if (run_cmd(show_node, out, sizeof(out)) != 0)
        return -1;
    field(out, "NodeAddr", addr, sizeof(addr));
    if (!addr[0])
        snprintf(addr, sizeof(addr), "%s", first);
    char *show_config[] = {"scontrol", "show", "config", NULL};
    if (run_cmd(show_config, out, sizeof(out)) != 0)
        out[0] = '\0';
    config_value(out, "SpmixPortRange", range, sizeof(range));
    config_value(out, "AuthInfo", auth, sizeof(auth));
    /* munged's socket as Slurm's own daemons use it (AuthInfo=socket=PATH) */
    const char *sock = strstr(auth, "socket=");
    if (sock && !getenv("SPMIX_MUNGE_SOCKET")) {
        sock += 7;
        char path[1024];
        snprintf(path, sizeof(path), "%.*s", (int)strcspn(sock, ", "), sock);
        setenv("SPMIX_MUNGE_SOCKET", path, 1);
    }
    /* the tree port as plugin/stepd.c derives it: Slurm's reserved port
     * (MpiParams=ports=), else SpmixPortRange (default 26000-27999) hashed
     * by job and step id */
    unsigned long port = 0, lo = 26000, hi = 27999;
    if (resv[0] >= '1' && resv[0] <= '9')
        port = strtoul(resv, NULL, 10);
    if (!port || port > 65535) {
        if (range[0] && (sscanf(range, "%lu-%lu", &lo, &hi) != 2 || lo < 1 || hi > 65535 ||
                         lo > hi))
            lo = 26000, hi = 27999;
        port = lo + (((uint64_t)job * 2654435761u + (uint64_t)step * 40503u) % (hi - lo + 1));
    }
    snprintf(uri, cap, "spmix-tcp://%s%s%s:%lu", strchr(addr, ':') ? "[" : "", addr,
             strchr(addr, ':') ? "]" : "", port);
    return 0;
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
    char srvns[PMIX_MAX_NSLEN + 1], stepns[PMIX_MAX_NSLEN + 1], node[128], remote[600];
    int where = 1; /* Slurm: 1 this node's server, 0 remote[], -1 step unknown to scontrol */
    if (pid > 0)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_PIDINFO, &spid, PMIX_PID);
    else if (uri)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_URI, uri, PMIX_STRING);
    else if (slurm) {
        node_name(node, sizeof(node));
        snprintf(srvns, sizeof(srvns), "slurm.spmix.srv.%lu.%lu.%s", sjob, sstep, node);
        snprintf(stepns, sizeof(stepns), "slurm.spmix.%lu.%lu", sjob, sstep);
        where = getenv("SLURMD_NODENAME") ? 1 : step_remote(sjob, sstep, node, remote,
                                                              sizeof(remote));
        if (where == 0)
            PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_URI, remote, PMIX_STRING);
        else
            PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_NSPACE, srvns, PMIX_STRING);
        if (!nspace)
            nspace = stepns;
    }
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, ninfo ? info : NULL, ninfo);
    if (rc != PMIX_SUCCESS && slurm && where == 0)
        fprintf(stderr, "spmix-push: cannot reach step %lu.%lu from this host (%s) at %s\n",
                sjob, sstep, node, remote);
    else if (rc != PMIX_SUCCESS && slurm)
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
