/*
 * stepd.c - the slurmstepd side of mpi/spmix: one PMIx server per node of
 * the step, joined to the other nodes' servers by the library's tree.
 *
 * prefork (root, before the tasks are forked), from the step environment:
 *   SLURM_STEP_NODELIST      -> node names in step order (slurm_hostlist_*);
 *   SLURM_TOPOLOGY_ADDR      -> this node, hence the node index;
 *   SPMIX_STEP_MAP           -> the ranks of every node (from srun; without
 *                               it, block placement from SLURM_STEP_TASKS_PER_NODE);
 *   SPMIX_STEP_AUTH          -> "munge": the tree links and the abort report
 *                               carry munge credentials, accepted from the
 *                               job's user, root or SlurmUser (step_auth.h);
 *                               else SPMIX_STEP_SECRET -> the tree secret;
 *   SPMIX_STEP_APPS          -> the application of every rank (apps.h; absent:
 *                               one application);
 *   SPMIX_STEP_HET           -> a heterogeneous step: Slurm gives every
 *                               component's slurmstepds the whole step's
 *                               node list, task count and tasks per node,
 *                               the leader's job id and one step id, so the
 *                               components' servers form one tree and serve
 *                               one namespace; the components' reserved
 *                               ports differ, so the tree port is the hashed
 *                               one; components sharing a node are refused;
 *   SLURM_STEP_RESV_PORTS    -> the tree port (Slurm-reserved, MpiParams=ports=),
 *                               else SpmixPortRange hashed by job and step id:
 *                               every node derives the same port;
 *   node names -> IPv4 addresses (getaddrinfo) -> each node's tree address.
 * These make one job layout (struct spx_host_job: names, addresses, ranks
 * per node, lib/host/jobinfo.h), from which lib/host takes both
 * SPMIX_TREE_ADDRS and PMIX_NODE_MAP. It then loads libpmix.so.2
 * (pmix_dl.h), starts the server for the job's uid (spx_host_server_start),
 * registers the namespace "slurm.spmix.<job>.<step>" with the job, node and
 * process keys, registers this node's ranks and keeps each one's
 * PMIx_server_setup_fork environment (host/server.h). The server takes tools:
 * its own namespace is "slurm.spmix.srv.<job>.<step>.<node>" and its
 * rendezvous file spmix.tool.<slurmstepd pid> is in the step's TMPDIR or
 * /tmp (spmix-push JOBID.STEP finds it by that namespace).
 * Opt-in stdin (SpmixStdinTool=yes in mpi.conf, or SPMIX_STDIN=tool in the
 * step's environment, taken out of it; SPMIX_STDIN=srun turns it off): before
 * the server starts, stepd_stdin.c listens on the step directory's
 * stdin.sock and starts the stdin pump, a thread of its own with its own
 * poll loop - the library's progress thread, which runs the push_stdin
 * upcall, must never block on the tasks' pipes, and slurmstepd's main thread
 * is Slurm's. Without the option none of it exists. The opt-in output tap
 * (SpmixOutputTap=yes, SPMIX_OUTPUT=tool|srun) is the same shape in
 * stepd_output.c: output.sock and the output pump, which writes the tasks'
 * stdout/stderr on to Slurm and hands it to PMIx_server_IOF_deliver.
 * task (in the task child, as the user, before exec): copies that
 * environment for the task's rank and puts SpmixLibDir first in
 * LD_LIBRARY_PATH; with the opt-in stdin, hands fd 0 to the pump and reads a
 * pipe the pump feeds instead (stepd_stdin.h); with the tap, fd 1 and 2
 * become pipes the output pump reads (stepd_output.h); nothing in the child
 * touches the library.
 * fini (the step is over): the pump stops (held pushes fail), deregister,
 * PMIx_server_finalize (threads, sockets and the server's directory go),
 * unload, remove the step directory.
 */
#include "config.h"
#include "plugin/abort_msg.h"
#include "plugin/apps.h"
#include "plugin/conf.h"
#include "plugin/layout.h"
#include "plugin/plugin.h"
#include "plugin/pmix_dl.h"
#include "plugin/stepd_output.h"
#include "plugin/stepd_stdin.h"
#include "plugin/step_auth.h"
#include "host/server.h"
#include "host/pmi_fd.h"
#include "util/munge_cred.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>
#if defined(HAVE_MALLOC_H) && defined(HAVE_MALLOC_TRIM)
#include <malloc.h>
#endif

#define SPX_PLG_SYNC_SEC 30
/* hwloc plugins slurmstepd need not load for the server (see prefork) */
#define SPX_PLG_HWLOC_SKIP "hwloc_gl,hwloc_xml_libxml"

struct spx_plg_stepd {
    bool loaded, up, registered;
    char nspace[PMIX_MAX_NSLEN + 1];
    uint32_t jobid, stepid, uid, gid, me, nnodes, ntasks;
    char **names;               /* nnodes node names (malloc'd) */
    char (*addrs)[INET_ADDRSTRLEN + 8];   /* nnodes tree addresses "ip:port" */
    struct spx_host_node *nodes; /* nnodes: names, addrs and map, by node index */
    struct spx_host_job job;    /* the layout the server and the job info share */
    char nsdir[PATH_MAX + PMIX_MAX_NSLEN + 2];
    struct spx_plg_map map;
    char dir[PATH_MAX];         /* per-step directory; "" when none */
    char ***task_env;           /* map.count[me] environments, by local index */
    uint32_t *app_of, napps;    /* from SPMIX_STEP_APPS; NULL: one application */
    bool het;                   /* a heterogeneous step */
};

static struct spx_plg_stepd S;

/* ---- reading the step environment ---- */

static int spx_plg_env_u32(char **env, const char *name, uint32_t *out)
{
    const char *s = slurm_getenvp(env, name);
    char *end;
    unsigned long v;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* This node's name: SLURM_TOPOLOGY_ADDR is "a.b.node" when a topology plugin
 * is used; SLURM_TOPOLOGY_ADDR_PATTERN ("switch.switch.node") says which part. */
static int spx_plg_my_name(char **env, char *out, size_t len)
{
    const char *addr = slurm_getenvp(env, "SLURM_TOPOLOGY_ADDR");
    const char *pat = slurm_getenvp(env, "SLURM_TOPOLOGY_ADDR_PATTERN");
    const char *p = addr;

    if (addr == NULL || *addr == '\0')
        return -1;
    if (pat != NULL && strchr(pat, '.') != NULL) {
        const char *last = strrchr(addr, '.');
        p = last ? last + 1 : addr;
    }
    return snprintf(out, len, "%s", p) < (int)len ? 0 : -1;
}

static int spx_plg_expand_nodes(const char *nodelist)
{
    spx_hostlist_t hl = slurm_hostlist_create(nodelist);
    char *h;
    int n;

    if (hl == NULL)
        return -1;
    n = slurm_hostlist_count(hl);
    if (n <= 0 || n > 65536 || !(S.names = calloc((size_t)n, sizeof(char *)))) {
        slurm_hostlist_destroy(hl);
        return -1;
    }
    while ((h = slurm_hostlist_shift(hl)) != NULL && S.nnodes < (uint32_t)n) {
        S.names[S.nnodes++] = strdup(h);
        free(h);   /* slurm_hostlist_shift returns malloc'd memory */
    }
    slurm_hostlist_destroy(hl);
    for (uint32_t i = 0; i < S.nnodes; i++) {
        if (S.names[i] == NULL)
            return -1;
        /* a node twice: components of a heterogeneous step sharing it */
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(S.names[i], S.names[j]) == 0) {
                spx_plg_err("node %s appears twice in the step's node list %s: components "
                            "of a heterogeneous step sharing a node are not supported",
                            S.names[i], nodelist);
                return -2;
            }
    }
    return S.nnodes == (uint32_t)n ? 0 : -1;
}

/* The tree port every node of the step derives alike. */
static uint16_t spx_plg_tree_port(char **env)
{
    const char *resv = slurm_getenvp(env, "SLURM_STEP_RESV_PORTS");
    uint32_t n = (uint32_t)spx_plg_conf.port_hi - spx_plg_conf.port_lo + 1;

    if (!S.het && resv != NULL && *resv >= '1' && *resv <= '9') {
        unsigned long p = strtoul(resv, NULL, 10);
        if (p > 0 && p < 65536)
            return (uint16_t)p;
    }
    return (uint16_t)(spx_plg_conf.port_lo +
                      ((uint64_t)S.jobid * 2654435761u + (uint64_t)S.stepid * 40503u) % n);
}

/* Every node's tree address "ip:port" (S.addrs), by node index. */
static int spx_plg_tree_addrs(uint16_t port)
{
    if (!(S.addrs = calloc(S.nnodes, sizeof(*S.addrs))))
        return -1;
    for (uint32_t i = 0; i < S.nnodes; i++) {
        struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
        char ip[INET_ADDRSTRLEN];
        int rc = getaddrinfo(S.names[i], NULL, &hints, &res);
        if (rc != 0) {
            spx_plg_err("cannot resolve node %s: %s", S.names[i], gai_strerror(rc));
            return -1;
        }
        inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, ip, sizeof(ip));
        freeaddrinfo(res);
        snprintf(S.addrs[i], sizeof(S.addrs[i]), "%s:%u", ip, port);
    }
    return 0;
}

/* The job layout lib/host builds the tree addresses and the job info from:
 * node i is S.names[i] at S.addrs[i] with the ranks S.map gives it. */
static int spx_plg_describe_job(void)
{
    if (!(S.nodes = calloc(S.nnodes, sizeof(*S.nodes))))
        return -1;
    for (uint32_t i = 0; i < S.nnodes; i++)
        S.nodes[i] = (struct spx_host_node){ .hostname = S.names[i], .addr = S.addrs[i],
                                             .ranks = S.map.ranks[i], .nranks = S.map.count[i] };
    snprintf(S.nsdir, sizeof(S.nsdir), "%s/%s", S.dir, S.nspace);
    S.job = (struct spx_host_job){ .nspace = S.nspace, .job_size = S.ntasks, .nodes = S.nodes,
                                   .nnodes = S.nnodes, .local_node = S.me, .tmpdir = S.dir,
                                   .nsdir = S.nsdir, .tdir_rmclean = true,
                                   .napps = S.napps, .app_of = S.app_of };
    return 0;
}

/* ---- the per-step directory ---- */

static int spx_plg_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static int spx_plg_make_dir(char **env)
{
    const char *base = spx_plg_conf.tmpdir;
    const char *t = slurm_getenvp(env, "TMPDIR");

    if (base == NULL)
        base = t != NULL && t[0] == '/' ? t : "/tmp";
    if (snprintf(S.dir, sizeof(S.dir), "%s/spmix.%u.%u.XXXXXX", base, S.jobid, S.stepid) >=
            (int)sizeof(S.dir) || mkdtemp(S.dir) == NULL) {
        spx_plg_err("cannot create a step directory under %s: %s", base, strerror(errno));
        S.dir[0] = '\0';
        return -1;
    }
    if (chown(S.dir, S.uid, S.gid) < 0 || chmod(S.dir, 0700) < 0) {
        spx_plg_err("cannot hand %s to uid %u: %s", S.dir, S.uid, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- starting the server ---- */

/* After PMIx_server_init failed in munge mode (the library refuses to start
 * when munged does not answer): whether munged answers; logs why not. */
static bool spx_plg_munge_answers(void)
{
    char why[256], *probe = spx_munge_encode(NULL, "spmix-probe", 11, why, sizeof(why));

    if (probe != NULL) {
        free(probe);
        return true;
    }
    spx_plg_err("munged cannot be reached: %s; the servers prove their tree links with munge "
                "credentials (srun set %s=munge), so the step does not start", why,
                SPX_PLG_ENV_AUTH);
    return false;
}

static int spx_plg_server_start(char **env, const char *myname, const char *secret_hex,
                                bool munge)
{
    uint8_t secret[SPX_PLG_SECRET_MAX];
    size_t slen = munge ? 0 : spx_plg_hex_decode(secret_hex, secret, sizeof(secret));
    struct spx_plg_host_ctx ctx = { .jobid = S.jobid, .stepid = S.stepid, .munge = munge };
    uint16_t port = spx_plg_tree_port(env);
    char srvns[PMIX_MAX_NSLEN + 1], uidlist[3 * 12];
    uint32_t uids[SPX_PLG_AUTH_UIDS];
    size_t nuids = spx_plg_auth_uids(S.uid, uids), at = 0;
    const char *sh = slurm_getenvp(env, "SLURM_SRUN_COMM_HOST");
    uint32_t sp;
    const char *td = slurm_getenvp(env, "TMPDIR");
    enum spx_plg_width_from wfrom;
    struct spx_host_server_cfg sc = {
        .tmpdir = S.dir, .set_ids = true, .uid = S.uid, .gid = S.gid, .hostname = myname,
        /* tools of the job's user find this node's server by the rendezvous
         * file spmix.tool.<slurmstepd pid> where a tool started in the step's
         * environment looks by default: the step's TMPDIR (srun passes the
         * user's; slurmstepd sets none of its own), else /tmp. Not TmpFS: that
         * is slurmd's setting, neither given to the plugin nor to the tasks. */
        .tool_support = true, .system_tmpdir = td != NULL && td[0] == '/' ? td : "/tmp",
        .server_nspace = srvns, .tree_job = &S.job, .secret = secret, .secret_len = slen,
        .auth_munge = munge, .auth_uids = uidlist, .auth_id = S.nspace,
        .width = spx_plg_conf_tree_width(&wfrom), .timeout = spx_plg_conf.timeout,
    };
    pmix_status_t rc;

    if (wfrom != SPX_PLG_WIDTH_MPICONF && wfrom != SPX_PLG_WIDTH_SLURM)
        spx_plg_info("step %u.%u: Slurm's TreeWidth=%u is not usable as the tree's width "
                     "(%u..%u): width %u (set SpmixTreeWidth in mpi.conf to choose)", S.jobid,
                     S.stepid, (unsigned)slurm_conf.tree_width, SPX_PLG_WIDTH_MIN,
                     SPX_PLG_WIDTH_MAX, sc.width);

    for (size_t i = 0; i < nuids; i++)
        at += (size_t)snprintf(uidlist + at, sizeof(uidlist) - at, "%s%u", i ? "," : "",
                               uids[i]);
    if (munge) {
        /* the library's servers find munged the same way */
        spx_plg_auth_munge_socket(ctx.munge_sock, sizeof(ctx.munge_sock));
        if (ctx.munge_sock[0] != '\0')
            setenv(SPX_MUNGE_SOCKET_ENV, ctx.munge_sock, 1);

    } else if (slen < 16) {
        spx_plg_err("no usable step secret (%s missing or malformed): was the step "
                    "launched by srun --mpi=%s?", SPX_PLG_ENV_SECRET, SPX_PLG_TYPENAME);
        return -1;
    }
    if (spx_plg_tree_addrs(port) != 0 || spx_plg_describe_job() != 0)
        return -1;
    snprintf(ctx.hostname, sizeof(ctx.hostname), "%s", myname);
    if (sh != NULL && spx_plg_env_u32(env, SPX_PLG_ENV_SRUN_PORT, &sp) == 0 && sp < 65536) {
        snprintf(ctx.srun_host, sizeof(ctx.srun_host), "%s", sh);
        ctx.srun_port = (uint16_t)sp;
    }
    if (!munge)
        memcpy(ctx.secret, secret, slen);
    ctx.secret_len = slen;
    spx_plg_host_setup(&ctx);
    /* the server's name ends in the node's: a tool picks this node's server
     * of step J.S by PMIX_SERVER_NSPACE even where nodes share /tmp */
    snprintf(srvns, sizeof(srvns), "slurm.spmix.srv.%u.%u.%.200s", S.jobid, S.stepid, myname);
    rc = spx_host_server_start(spx_plg_host_module(), &sc);
    memset(secret, 0, sizeof(secret));
    if (rc == PMIX_SUCCESS) {
        char *addrs = spx_host_node_list(S.nodes, S.nnodes, SPX_HOST_LIST_ADDRS);
        spx_plg_dbg("node %u of %u (%s), tree %s, width %u (%s), timeout %u s, links proven "
                    "by %s%s", S.me, S.nnodes, myname, addrs ? addrs : "?", sc.width,
                    spx_plg_width_from_str(wfrom), sc.timeout,
                    munge ? "munge, uids " : "the step secret", munge ? uidlist : "");
        free(addrs);
    } else if (munge && !spx_plg_munge_answers()) {
        ; /* said why */
    } else {
        spx_plg_err("PMIx_server_init failed: %s (tree port %u: see SpmixPortRange)",
                    PMIx_Error_string(rc), port);
    }
    return rc == PMIX_SUCCESS ? 0 : -1;
}

/* Registers the namespace and this node's ranks; keeps their environments. */
static int spx_plg_register(void)
{
    uint32_t nlocal = S.map.count[S.me];
    pmix_status_t rc;

    if (!(S.task_env = calloc(nlocal, sizeof(*S.task_env))))
        return -1;
    rc = spx_host_register_job(&S.job, SPX_PLG_SYNC_SEC);
    if (rc != PMIX_SUCCESS) {
        spx_plg_err("cannot register namespace %s: %s", S.nspace, PMIx_Error_string(rc));
        return -1;
    }
    S.registered = true;
    for (uint32_t k = 0; k < nlocal; k++) {
        pmix_rank_t rank = S.map.ranks[S.me][k];
        rc = spx_host_setup_client(S.nspace, rank, S.uid, S.gid, SPX_PLG_SYNC_SEC,
                                   &S.task_env[k]);
        if (rc != PMIX_SUCCESS) {
            spx_plg_err("cannot set up rank %u: %s", rank, PMIx_Error_string(rc));
            return -1;
        }
    }
    return 0;
}

/* A step's opt-in choice: var=tool / var=srun in the step's environment over
 * mpi.conf's option (conf_default, named conf_name); the variable is for us,
 * not for the tasks, and is removed. SPMIX_STDIN (SpmixStdinTool): the opt-in
 * stdin; SPMIX_OUTPUT (SpmixOutputTap): the output tap. */
static bool spx_plg_step_wants(char **env, const char *var, bool conf_default,
                               const char *conf_name)
{
    const char *v = slurm_getenvp(env, var);
    bool on = conf_default;

    if (v != NULL && strcmp(v, "tool") == 0)
        on = true;
    else if (v != NULL && strcmp(v, "srun") == 0)
        on = false;
    else if (v != NULL)
        spx_plg_err("%s=%.60s is neither tool nor srun; ignored (%s=%s)", var, v, conf_name,
                    on ? "yes" : "no");
    slurm_unsetenvp(env, var);
    return on;
}

int spx_plg_stepd_prefork(char ***env)
{
    char myname[256], *secret = NULL, *map = NULL, *apps = NULL;
    bool munge;
    const char *nodelist, *why = NULL, *m;
    char err[512], label[320];
    bool stdin_tool = spx_plg_step_wants(*env, "SPMIX_STDIN", spx_plg_conf.stdin_tool,
                                         "SpmixStdinTool");
    bool output_tap = spx_plg_step_wants(*env, "SPMIX_OUTPUT", spx_plg_conf.output_tap,
                                         "SpmixOutputTap");
    int rc = -1;

    if (S.loaded || S.up) {
        spx_plg_err("prefork called twice in one slurmstepd");
        return SLURM_ERROR;
    }
    /* the secret and the map are for us, not for the tasks */
    munge = (m = slurm_getenvp(*env, SPX_PLG_ENV_AUTH)) != NULL && strcmp(m, "munge") == 0;
    if ((m = slurm_getenvp(*env, SPX_PLG_ENV_SECRET)) != NULL)
        secret = strdup(m);
    slurm_unsetenvp(*env, SPX_PLG_ENV_AUTH);
    if ((m = slurm_getenvp(*env, SPX_PLG_ENV_MAP)) != NULL)
        map = strdup(m);
    if ((m = slurm_getenvp(*env, SPX_PLG_ENV_APPS)) != NULL)
        apps = strdup(m);
    S.het = (m = slurm_getenvp(*env, SPX_PLG_ENV_HET)) != NULL && strcmp(m, "1") == 0;
    slurm_unsetenvp(*env, SPX_PLG_ENV_SECRET);
    slurm_unsetenvp(*env, SPX_PLG_ENV_MAP);
    slurm_unsetenvp(*env, SPX_PLG_ENV_APPS);
    slurm_unsetenvp(*env, SPX_PLG_ENV_HET);
    nodelist = slurm_getenvp(*env, "SLURM_STEP_NODELIST");
    if (spx_plg_env_u32(*env, "SLURM_JOB_ID", &S.jobid) != 0 ||
        spx_plg_env_u32(*env, "SLURM_STEP_ID", &S.stepid) != 0 ||
        spx_plg_env_u32(*env, "SLURM_JOB_UID", &S.uid) != 0 ||
        spx_plg_env_u32(*env, "SLURM_STEP_NUM_TASKS", &S.ntasks) != 0 || nodelist == NULL ||
        spx_plg_my_name(*env, myname, sizeof(myname)) != 0) {
        spx_plg_err("the step environment lacks SLURM_JOB_ID, SLURM_STEP_ID, SLURM_JOB_UID, "
                    "SLURM_STEP_NUM_TASKS, SLURM_STEP_NODELIST or SLURM_TOPOLOGY_ADDR");
        goto out;
    }
    if (spx_plg_env_u32(*env, "SLURM_JOB_GID", &S.gid) != 0)
        S.gid = S.uid;
    snprintf(S.nspace, sizeof(S.nspace), "slurm.spmix.%u.%u", S.jobid, S.stepid);
    if ((rc = spx_plg_expand_nodes(nodelist)) != 0) {
        if (rc == -1)
            spx_plg_err("cannot expand SLURM_STEP_NODELIST=%s", nodelist);
        rc = -1;
        goto out;
    }
    for (S.me = 0; S.me < S.nnodes && strcmp(S.names[S.me], myname) != 0; S.me++)
        ;
    if (S.me == S.nnodes) {
        spx_plg_err("this node (%s) is not in the step's node list %s", myname, nodelist);
        goto out;
    }
    if (map != NULL) {
        if (spx_plg_map_decode(map, S.nnodes, S.ntasks, &S.map, &why) != 0) {
            spx_plg_err("%s=%.200s: %s", SPX_PLG_ENV_MAP, map, why);
            goto out;
        }
    } else if (spx_plg_map_from_tpn(slurm_getenvp(*env, "SLURM_STEP_TASKS_PER_NODE"), S.nnodes,
                                    S.ntasks, &S.map, &why) != 0) {
        spx_plg_err("no %s and SLURM_STEP_TASKS_PER_NODE is unusable: %s", SPX_PLG_ENV_MAP, why);
        goto out;
    } else {
        spx_plg_info("no %s from srun: assuming block placement", SPX_PLG_ENV_MAP);
    }
    if (apps != NULL && spx_plg_apps_decode(apps, S.ntasks, &S.app_of, &S.napps, &why) != 0) {
        spx_plg_err("%s=%.200s: %s", SPX_PLG_ENV_APPS, apps, why);
        goto out;
    }
    if (spx_plg_make_dir(*env) != 0)
        goto out;
    /* the library logs to slurmstepd's stderr, which Slurm sends to srun: by
     * default only errors (the peers' ordinary exits would read as lost nodes);
     * SpmixDebug 1 adds warnings (rejected connections, lost nodes), 2 info,
     * 3 debug. Read once, before the library's first log line. */
    if (getenv("SPMIX_DEBUG") == NULL) {
        char lvl[2] = { (char)('0' + spx_plg_conf.debug), '\0' };
        setenv("SPMIX_DEBUG", lvl, 0);
    }
    /* The server discovers this node's topology once (hwloc) to hand its
     * XML to the tasks. hwloc loads every plugin it finds at the process's
     * first discovery; two of them only cost memory here (about 2.5 MB of
     * shared libraries mapped into slurmstepd for the step's lifetime):
     * hwloc_gl queries X displays (libX11, libxcb), and hwloc_xml_libxml
     * writes XML through libxml2 (and libicu) where hwloc's built-in writer
     * gives the same document. The XML the tasks get is unchanged. An
     * HWLOC_PLUGINS_BLACKLIST in slurmd's environment (even empty) is kept.
     * slurmstepd's own environment only: the tasks' is *env. */
    setenv("HWLOC_PLUGINS_BLACKLIST", SPX_PLG_HWLOC_SKIP, 0);
    if (spx_plg_pmix_open(spx_plg_conf.libdir, err, sizeof(err)) != 0) {
        spx_plg_err("cannot load the PMIx library: %s (see SpmixLibDir)", err);
        goto out;
    }
    S.loaded = true;
    snprintf(label, sizeof(label), "step %u.%u on %s: ", S.jobid, S.stepid, myname);
    if (stdin_tool && spx_plg_stdin_start(S.dir, S.uid, S.nspace, S.ntasks, S.map.ranks[S.me],
                                          S.map.count[S.me], label) != 0)
        goto out;
    if (output_tap && spx_plg_output_start(S.dir, S.uid, S.nspace, label) != 0)
        goto out;
    if (munge && !spx_munge_supported()) {
        spx_plg_err("srun asked for munge authentication, but this plugin was built without "
                    "libmunge");
        goto out;
    }
    if (spx_plg_server_start(*env, myname, secret, munge) != 0)
        goto out;
    S.up = true;
    if (spx_plg_register() != 0)
        goto out;
    spx_plg_dbg("step %u.%u: %s ready on %s (node %u of %u, %u local ranks, library %s)",
                S.jobid, S.stepid, S.nspace, myname, S.me, S.nnodes, S.map.count[S.me],
                spx_plg_pmix_path());
#if defined(HAVE_MALLOC_H) && defined(HAVE_MALLOC_TRIM)
    /* building and registering the job's information (per node of the step:
     * about 10 KiB freed again at 32 nodes) leaves free holes in the heaps
     * that free() keeps for the step's lifetime: give those pages back once
     * (measured: 300 KiB of slurmstepd RSS at 32 nodes x 1, 50 KiB at 3 x 2) */
    malloc_trim(0);
#endif
    rc = 0;
out:
    if (secret != NULL) {
        memset(secret, 0, strlen(secret));
        free(secret);
    }
    free(map);
    free(apps);
    if (rc != 0)
        spx_plg_stepd_fini();
    return rc == 0 ? SLURM_SUCCESS : SLURM_ERROR;
}

int spx_plg_stepd_task(const mpi_task_info_t *job, char ***env)
{
    uint32_t k, nlocal;
    const char *old;

    if (!S.up || S.task_env == NULL)
        return SLURM_ERROR;
    nlocal = S.map.count[S.me];
    for (k = 0; k < nlocal && S.map.ranks[S.me][k] != job->gtaskid; k++)
        ;
    if (k == nlocal || S.task_env[k] == NULL) {
        spx_plg_err("task %u is not one of this node's ranks", job->gtaskid);
        return SLURM_ERROR;
    }
    for (char **e = S.task_env[k]; *e != NULL; e++) {
        char name[256];
        const char *eq = strchr(*e, '=');
        if (eq == NULL || (size_t)(eq - *e) >= sizeof(name))
            continue;
        memcpy(name, *e, (size_t)(eq - *e));
        name[eq - *e] = '\0';
        slurm_env_array_overwrite(env, name, eq + 1);
    }
    if (spx_plg_conf.set_ld_library_path) {
        old = slurm_getenvp(*env, "LD_LIBRARY_PATH");
        if (old != NULL && *old != '\0') {
            size_t len = strlen(spx_plg_conf.libdir) + strlen(old) + 2;
            char *v = malloc(len);
            if (v == NULL)
                return SLURM_ERROR;
            snprintf(v, len, "%s:%s", spx_plg_conf.libdir, old);
            slurm_env_array_overwrite(env, "LD_LIBRARY_PATH", v);
            free(v);
        } else {
            slurm_env_array_overwrite(env, "LD_LIBRARY_PATH", spx_plg_conf.libdir);
        }
    }
    slurm_unsetenvp(*env, SPX_PLG_ENV_SRUN_PORT);
    /* the PMI wire connection (PMI_FD, made at prefork) survives the exec */
    if (spx_host_pmi_fd_keep(*env) != 0)
        spx_plg_err("task %u: cannot keep PMI_FD open", job->gtaskid);
    spx_plg_stdin_task(job->gtaskid);   /* opt-in: fd 0 fed by the pump */
    spx_plg_output_task(job->gtaskid);  /* opt-in: fd 1 and 2 through the tap */
    return SLURM_SUCCESS;
}

void spx_plg_stepd_fini(void)
{
    spx_plg_stdin_stop();   /* pushes still held fail before the server goes */
    spx_plg_output_stop();  /* the rest of the output to srun, then closed */
    if (S.registered) {
        if (spx_host_deregister_job(S.nspace, SPX_PLG_SYNC_SEC) == PMIX_ERR_TIMEOUT) {
            spx_plg_err("the PMIx server did not release %s; leaving it running", S.nspace);
            return;   /* unloading a library whose threads still run would crash */
        }
    }
    if (S.up)
        PMIx_server_finalize();
    spx_plg_stdin_fini();
    if (S.loaded)
        spx_plg_pmix_close();
    if (S.dir[0] != '\0')
        nftw(S.dir, spx_plg_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    for (uint32_t k = 0; S.task_env != NULL && k < S.map.count[S.me]; k++)
        spx_host_env_free(S.task_env[k]);
    free(S.task_env);
    free(S.nodes);
    free(S.addrs);
    for (uint32_t i = 0; S.names != NULL && i < S.nnodes; i++)
        free(S.names[i]);
    free(S.names);
    spx_plg_map_free(&S.map);
    free(S.app_of);
    memset(&S, 0, sizeof(S));
}
