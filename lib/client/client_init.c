/* client_init.c - PMIx_Init / PMIx_Finalize and connecting to a server.
 *
 * Init (first, non-nested call): start the progress thread; if the
 * environment names an spmix server, connect to its unix socket, do the HELLO
 * handshake synchronously on the caller's thread (fast: no thread hops), load
 * the job info from the reply into a store, then hand the socket to the
 * connection code (client_conn.c) as this process's one server; a tool's
 * further servers connect the same way (spx_client_tool_connect). Without any server variable the process is
 * a singleton: rank 0 of a one-process job. Server variables that name no
 * spmix server (another PMIx server's URI, an identity without an address)
 * fail init with a one-line reason and fix, and so does an spmix server that
 * cannot be reached (its launcher gone): PMIX_ERR_INIT, never the
 * PMIX_ERR_UNREACH a caller may take for "run as a singleton" (a tool keeps
 * UNREACH: it has no job to run alone in). Nested calls only count.
 * Finalize (last call): FINALIZE request to each server (a tool may hold
 * several), wait for its reply, close it; tear down on the progress thread,
 * stop the thread.
 */
#include "config.h"

#if defined(HAVE_MALLOC_H) && defined(HAVE_MALLOC_TRIM)
#include <malloc.h>
#endif

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sched.h>
#include <unistd.h>

#include "client/client.h"
#include "client/client_remote.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "net/unix_sock.h"
#include "store/jobparts.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/log.h"

#define SPX_HELLO_TIMEOUT_MS 30000

/* The handlers of what a server sends unasked, and of a lost connection:
 * the connection code (client_conn.c) reaches them through client_state.c. */
static void spx_client_handlers_install(void)
{
    spx_client_frames_set(SPX_MSG_EVENT, spx_client_event_dispatch);
    spx_client_frames_set(SPX_MSG_IOF_DATA, spx_client_iof_data);
    spx_client_on_lost_set(spx_client_event_conn_lost);
    spx_client_on_chain_end_set(spx_client_group_event_done);
}

/* ---- init ---- */

/* Which server this process was started for. Server variables are the
 * addresses a PMIx server gives its clients - PMIX_SERVER_URI followed by
 * digits or nothing (41, 4, 3, 21 and 2 from servers of PMIx v2 to v4, the
 * bare name from v1) - and the identity a launcher gives, PMIX_NAMESPACE and
 * PMIX_RANK. Any of them set (non-empty) means a launcher started this process
 * as a member of a job, so it must reach that job's server or fail: turning it
 * into a singleton would run every rank as a job of one and let the job
 * "succeed". Only a process with none of them is a singleton. The other
 * PMIX_* variables (PMIX_SERVER_TMPDIR, PMIX_SYSTEM_TMPDIR, PMIX_MCA_*,
 * PMIX_VERSION, ...) are rendezvous hints for tools and settings that login
 * environments carry too; they make nobody a client. */
struct server_env {
    const char *path;  /* socket of an spmix server (borrowed from environ) or NULL */
    const char *path_var; /* the variable that gave path */
    const char *name;  /* else the first other server variable (not terminated) or NULL */
    size_t name_len;
    const char *value; /* its value */
    bool is_uri;       /* name is an address, not an identity */
};

static const char *const uri_vars[] = {SPX_ENV_SERVER_URI, "PMIX_SERVER_URI4",
                                       "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
                                       "PMIX_SERVER_URI2"};

/* 1 if environ entry e (name of n characters) is PMIX_SERVER_URI[0-9]*. */
static bool is_uri_name(const char *e, size_t n)
{
    static const char base[] = "PMIX_SERVER_URI";
    if (n < sizeof(base) - 1 || strncmp(e, base, sizeof(base) - 1) != 0)
        return false;
    for (size_t i = sizeof(base) - 1; i < n; i++)
        if (e[i] < '0' || e[i] > '9')
            return false;
    return true;
}

static void server_env_read(struct server_env *se)
{
    memset(se, 0, sizeof(*se));
    for (size_t i = 0; i < SPX_ARRAY_LEN(uri_vars); i++) { /* ours wins, 41 first */
        const char *v = getenv(uri_vars[i]);
        if (v && strncmp(v, SPX_URI_PREFIX, strlen(SPX_URI_PREFIX)) == 0) {
            se->path = v + strlen(SPX_URI_PREFIX);
            se->path_var = uri_vars[i];
            return;
        }
        if (v && *v && !se->name) {
            se->name = uri_vars[i];
            se->name_len = strlen(uri_vars[i]);
            se->value = v;
            se->is_uri = true;
        }
    }
    if (se->name)
        return;
    for (char **e = environ; e && *e; e++) { /* v1's bare name, later versions' */
        const char *eq = strchr(*e, '=');
        if (eq && eq[1] && is_uri_name(*e, (size_t)(eq - *e))) {
            se->name = *e;
            se->name_len = (size_t)(eq - *e);
            se->value = eq + 1;
            se->is_uri = true;
            return;
        }
    }
    static const char *const ident[] = {SPX_ENV_NSPACE, SPX_ENV_RANK};
    for (size_t i = 0; i < SPX_ARRAY_LEN(ident); i++) {
        const char *v = getenv(ident[i]);
        if (v && *v) {
            se->name = ident[i];
            se->name_len = strlen(ident[i]);
            se->value = v;
            return;
        }
    }
}

/* Explains, in one line, why this process cannot run with this library and
 * how to fix it; returns the status PMIx_Init fails with. Not
 * PMIX_ERR_UNREACH: Open MPI (and other callers) take UNREACH from PMIx_Init
 * to mean "no server, run as a singleton", the very silent failure this
 * refuses. An address of another PMIx server (OpenPMIx's "tcp4://..." under
 * Slurm's --mpi=pmix, when LD_LIBRARY_PATH makes the task load this library)
 * is PMIX_ERR_NOT_SUPPORTED: that server exists, but this library does not
 * speak its protocol. An identity without any address is PMIX_ERR_INIT: the
 * environment is incomplete, there is nothing to connect to. */
static pmix_status_t server_env_refuse(const struct server_env *se)
{
    Dl_info dl;
    const char *lib = dladdr(&spx_client, &dl) && dl.dli_fname ? dl.dli_fname : "libpmix.so.2";
    if (se->is_uri) {
        spx_error("PMIx_Init: %.*s=%.256s is not an spmix server; this library (%s) is "
                  "spmix's libpmix.so.2 and speaks only to spmix servers: run under "
                  "srun --mpi=spmix or spmix-run, or remove its directory from "
                  "LD_LIBRARY_PATH to use the launcher's own PMIx library (OpenPMIx "
                  "under srun --mpi=pmix)",
                  (int)se->name_len, se->name, se->value, lib);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    spx_error("PMIx_Init: %.*s=%.256s is set but no PMIx server address "
              "(PMIX_SERVER_URI41 ... PMIX_SERVER_URI2) is, so a launcher started this "
              "process for a job without giving it a server; this library (%s) is spmix's "
              "libpmix.so.2: run under srun --mpi=spmix or spmix-run, or unset "
              "PMIX_NAMESPACE and PMIX_RANK to run as a singleton",
              (int)se->name_len, se->name, se->value, lib);
    return PMIX_ERR_INIT;
}

/* The environment names our server (var = "spmix:path") but it cannot be
 * reached (what: "cannot connect to", ...; err: the errno): one line naming
 * the address and the cause. PMIX_ERR_INIT, not PMIX_ERR_UNREACH, which Open
 * MPI takes for "no server: run as a singleton" - a rank whose launcher is
 * gone would then run alone and "succeed". */
static pmix_status_t server_unreachable(const char *var, const char *path, const char *what,
                                        int err)
{
    spx_error("PMIx_Init: %s this process's PMIx server at %.512s (%s): %s; not running "
              "as a singleton (has the launcher that started this process, srun or "
              "spmix-run, ended?)",
              what, path, var ? var : SPX_ENV_SERVER_URI, strerror(err));
    return PMIX_ERR_INIT;
}

static void put_job_u32(const char *key, uint32_t v)
{
    pmix_value_t val = {.type = PMIX_UINT32};
    val.data.uint32 = v;
    spx_store_put(spx_client.jobinfo, spx_client.myproc.nspace, PMIX_RANK_WILDCARD, key, &val,
                  PMIX_INTERNAL);
}

void spx_client_singleton_jobinfo(void)
{
    put_job_u32(PMIX_JOB_SIZE, 1);
    put_job_u32(PMIX_UNIV_SIZE, 1);
    put_job_u32(PMIX_MAX_PROCS, 1);
    put_job_u32(PMIX_LOCAL_SIZE, 1);
    put_job_u32(PMIX_NODE_SIZE, 1);
    put_job_u32(PMIX_NUM_NODES, 1);
    put_job_u32(PMIX_NUM_ALLOCATED_NODES, 1);
    put_job_u32(PMIX_APPNUM, 0);
    pmix_value_t val = {.type = PMIX_STRING};
    val.data.string = "0";
    spx_store_put(spx_client.jobinfo, spx_client.myproc.nspace, PMIX_RANK_WILDCARD,
                  PMIX_LOCAL_PEERS, &val, PMIX_INTERNAL);
    char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    val.data.string = host;
    spx_store_put(spx_client.jobinfo, spx_client.myproc.nspace, PMIX_RANK_WILDCARD,
                  PMIX_HOSTNAME, &val, PMIX_INTERNAL);
    spx_store_put(spx_client.jobinfo, spx_client.myproc.nspace, PMIX_RANK_WILDCARD,
                  PMIX_NODE_LIST, &val, PMIX_INTERNAL);
    put_job_u32(PMIX_NODEID, 0);
    pmix_value_t ldr = {.type = PMIX_PROC_RANK};
    ldr.data.rank = 0;
    spx_store_put(spx_client.jobinfo, spx_client.myproc.nspace, PMIX_RANK_WILDCARD,
                  PMIX_LOCALLDR, &ldr, PMIX_INTERNAL);
    /* the one node, app and session, for Gets qualified with PMIX_NODE_INFO,
     * PMIX_APP_INFO or PMIX_SESSION_INFO */
    uint32_t zero = 0, one = 1;
    pmix_rank_t r0 = 0;
    pmix_info_t part[6];
    PMIx_Info_load(&part[0], PMIX_HOSTNAME, host, PMIX_STRING);
    PMIx_Info_load(&part[1], PMIX_NODEID, &zero, PMIX_UINT32);
    PMIx_Info_load(&part[2], PMIX_LOCAL_SIZE, &one, PMIX_UINT32);
    PMIx_Info_load(&part[3], PMIX_NODE_SIZE, &one, PMIX_UINT32);
    PMIx_Info_load(&part[4], PMIX_LOCAL_PEERS, "0", PMIX_STRING);
    PMIx_Info_load(&part[5], PMIX_LOCALLDR, &r0, PMIX_PROC_RANK);
    spx_jobparts_add_node(spx_client.jobinfo, spx_client.myproc.nspace, part, 6);
    for (size_t i = 0; i < 6; i++)
        PMIx_Value_destruct(&part[i].value);
    PMIx_Info_load(&part[0], PMIX_APPNUM, &zero, PMIX_UINT32);
    PMIx_Info_load(&part[1], PMIX_APP_SIZE, &one, PMIX_UINT32);
    PMIx_Info_load(&part[2], PMIX_APPLDR, &r0, PMIX_PROC_RANK);
    spx_jobparts_add_app(spx_client.jobinfo, spx_client.myproc.nspace, part, 3);
    for (size_t i = 0; i < 3; i++)
        PMIx_Value_destruct(&part[i].value);
    /* its session: this one node, this one process (no session id: no scheduler) */
    PMIx_Info_load(&part[0], PMIX_NUM_ALLOCATED_NODES, &one, PMIX_UINT32);
    PMIx_Info_load(&part[1], PMIX_UNIV_SIZE, &one, PMIX_UINT32);
    spx_jobparts_add_session(spx_client.jobinfo, spx_client.myproc.nspace, part, 2);
    for (size_t i = 0; i < 2; i++)
        PMIx_Value_destruct(&part[i].value);
    pmix_value_t v16 = {.type = PMIX_UINT16};
    v16.data.uint16 = 0;
    spx_store_put(spx_client.jobinfo, spx_client.myproc.nspace, 0, PMIX_LOCAL_RANK, &v16,
                  PMIX_INTERNAL);
    spx_store_put(spx_client.jobinfo, spx_client.myproc.nspace, 0, PMIX_NODE_RANK, &v16,
                  PMIX_INTERNAL);
}

/* Parses the HELLO reply blocks into the jobinfo store. */
static pmix_status_t load_hello_reply(spx_buf_t *b)
{
    pmix_status_t status = spx_buf_pull_i32(b);
    if (spx_buf_failed(b))
        return PMIX_ERR_UNPACK_FAILURE;
    if (status != PMIX_SUCCESS)
        return status;
    uint32_t nblocks = spx_buf_pull_u32(b);
    if (spx_buf_failed(b) || nblocks > SPX_BUF_MAX_COUNT)
        return PMIX_ERR_UNPACK_FAILURE;
    for (uint32_t i = 0; i < nblocks; i++) {
        pmix_rank_t rank = spx_buf_pull_u32(b);
        pmix_info_t *info = NULL;
        size_t ninfo = 0;
        if (spx_codec_pull_info_array(b, &info, &ninfo) != 0)
            return PMIX_ERR_UNPACK_FAILURE;
        for (size_t k = 0; k < ninfo; k++)
            spx_store_put(spx_client.jobinfo, spx_client.myproc.nspace, rank, info[k].key,
                          &info[k].value, PMIX_INTERNAL);
        if (info)
            PMIX_INFO_FREE(info, ninfo);
    }
    return spx_buf_finish(b) == 0 ? PMIX_SUCCESS : PMIX_ERR_UNPACK_FAILURE;
}

/* The cpus this process may run on as a list ("0-3,8"), written into buf;
 * "" when unknown. */
static void my_cpu_list(char *buf, size_t cap)
{
    cpu_set_t set;
    size_t n = 0;
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        int w = last > c ? snprintf(buf + n, cap - n, "%s%d-%d", n ? "," : "", c, last)
                         : snprintf(buf + n, cap - n, "%s%d", n ? "," : "", c);
        if (w < 0 || (size_t)w >= cap - n) {
            buf[0] = '\0'; /* too long to be worth sending */
            return;
        }
        n += (size_t)w;
        c = last;
    }
}

/* A tool's HELLO reply after the status: its identity (*me) and its
 * server's (*server). */
static pmix_status_t load_tool_reply(spx_buf_t *b, pmix_proc_t *me, pmix_proc_t *server)
{
    pmix_status_t status = spx_buf_pull_i32(b);
    if (spx_buf_failed(b))
        return PMIX_ERR_UNPACK_FAILURE;
    if (status != PMIX_SUCCESS)
        return status;
    char ns[PMIX_MAX_NSLEN + 1], sns[PMIX_MAX_NSLEN + 1];
    spx_buf_pull_str_into(b, ns, sizeof(ns));
    pmix_rank_t rank = spx_buf_pull_u32(b);
    spx_buf_pull_str_into(b, sns, sizeof(sns));
    pmix_rank_t srank = spx_buf_pull_u32(b);
    if (spx_buf_finish(b) != 0 || !ns[0])
        return PMIX_ERR_UNPACK_FAILURE;
    PMIX_LOAD_PROCID(me, ns, rank);
    PMIX_LOAD_PROCID(server, sns, srank);
    return PMIX_SUCCESS;
}

/* HELLO on fd, asking for spx_client.myproc. A tool's reply gives its
 * identity (*me) and its server's (*server); a client's, its job info.
 * When the server cannot be talked to: PMIX_ERR_UNREACH with *io_err (errno)
 * and *io_what (static) set and nothing logged: the caller says it. */
static pmix_status_t handshake(int fd, pmix_proc_t *me, pmix_proc_t *server, int *io_err,
                               const char **io_what)
{
    spx_buf_t req;
    char cpus[2048];
    my_cpu_list(cpus, sizeof(cpus));
    spx_buf_init(&req);
    spx_buf_push_u32(&req, SPX_PROTO_VERSION);
    spx_buf_push_u8(&req, spx_client.tool ? SPX_PEER_TOOL : SPX_PEER_CLIENT);
    spx_buf_push_str(&req, spx_client.myproc.nspace);
    spx_buf_push_u32(&req, spx_client.myproc.rank);
    spx_buf_push_u32(&req, (uint32_t)getpid());
    if (cpus[0])
        spx_buf_push_str(&req, cpus);
    int rc = spx_buf_failed(&req) ? -1 : spx_frame_send_blocking(fd, SPX_MSG_HELLO, 0, 1, &req);
    spx_buf_fini(&req);
    if (rc != 0) {
        *io_err = errno;
        *io_what = "cannot send the handshake to";
        return PMIX_ERR_UNREACH;
    }
    spx_frame_hdr_t h;
    spx_buf_t rep;
    if (spx_frame_recv_blocking(fd, &h, &rep, SPX_HELLO_TIMEOUT_MS) != 0) {
        *io_err = errno;
        *io_what = "no handshake reply from";
        return PMIX_ERR_UNREACH;
    }
    pmix_status_t status = PMIX_ERR_UNPACK_FAILURE;
    if (h.type == SPX_MSG_HELLO && (h.flags & SPX_FRAME_F_REPLY) && h.seq == 1) {
        spx_debug("handshake reply: %u bytes", (unsigned)h.length); /* the scale bench reads it */
        status = spx_client.tool ? load_tool_reply(&rep, me, server) : load_hello_reply(&rep);
    }
    spx_buf_fini(&rep);
    if (status != PMIX_SUCCESS)
        spx_error("the PMIx server refused %s.%u: %s", spx_client.myproc.nspace,
                  spx_client.myproc.rank, PMIx_Error_string(status));
    return status;
}

static pmix_status_t read_identity(void)
{
    const char *ns = getenv(SPX_ENV_NSPACE);
    const char *rank = getenv(SPX_ENV_RANK);
    if (!ns || !rank || strlen(ns) > PMIX_MAX_NSLEN) {
        spx_error("PMIX_NAMESPACE/PMIX_RANK missing or invalid in the environment");
        return PMIX_ERR_INIT;
    }
    char *end;
    errno = 0;
    unsigned long r = strtoul(rank, &end, 10);
    if (errno || *end || r >= PMIX_RANK_LOCAL_NODE) {
        spx_error("invalid PMIX_RANK '%s'", rank);
        return PMIX_ERR_INIT;
    }
    PMIX_LOAD_PROCID(&spx_client.myproc, ns, (pmix_rank_t)r);
    return PMIX_SUCCESS;
}

static void free_stores(void)
{
    spx_store_destroy(spx_client.own);
    spx_store_destroy(spx_client.jobinfo);
    spx_store_destroy(spx_client.internal);
    spx_store_destroy(spx_client.cache);
    spx_client.own = spx_client.jobinfo = spx_client.internal = spx_client.cache = NULL;
}

/* A blocking call waits for this process's progress thread, which needs a
 * core to read the server's reply: the caller spins before sleeping only
 * when every local process can have two cores (caller and progress thread)
 * and this process may run on two (its affinity).
 * On a node with fewer, every spinning caller takes the core a progress
 * thread or the server needs (a group construct of 6 ranks on 2 cores took
 * 1.3x longer with the spin, doc/groups-benchmark.md). SPMIX_WAIT_SPIN_NS
 * overrides it, for measurements. */
static void wait_spin_tune(void)
{
    const pmix_value_t *v = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                           PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, NULL);
    long nlocal = (v && v->type == PMIX_UINT32) ? (long)v->data.uint32 : 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t mine;
    long allowed = sched_getaffinity(0, sizeof(mine), &mine) == 0 ? CPU_COUNT(&mine) : cpus;
    const char *env = getenv("SPMIX_WAIT_SPIN_NS");
    if (env && *env)
        spx_wait_set_spin(strtol(env, NULL, 10));
    else
        spx_wait_set_spin(cpus >= 2 * nlocal && allowed >= 2 ? -1 : 0);
}

static pmix_status_t first_init(const struct spx_tool_start *tool)
{
    spx_log_set_role(tool ? "tool" : "client");
    spx_client_handlers_install();
    spx_client.tool = tool != NULL;
    spx_client.own = spx_store_create();
    spx_client.jobinfo = spx_store_create();
    spx_client.internal = spx_store_create();
    spx_client.cache = spx_store_create();
    spx_client.committed_seq = 0;
    spx_client.next_seq = 0;
    spx_client.conn_lost = false;
    if (!spx_client.own || !spx_client.jobinfo || !spx_client.internal || !spx_client.cache) {
        free_stores();
        return PMIX_ERR_NOMEM;
    }
    struct server_env se = {0};
    const char *path;
    if (tool) {
        path = tool->path;
    } else {
        server_env_read(&se);
        path = se.path;
        if (!path && se.name) {
            free_stores();
            return server_env_refuse(&se);
        }
    }
    pmix_status_t rc;
    if (!path) {
        spx_client.singleton = true;
        char ns[PMIX_MAX_NSLEN + 1];
        snprintf(ns, sizeof(ns), "%s.%d", tool ? "spmix-tool" : "singleton", (int)getpid());
        if (tool && tool->ask.nspace[0])
            PMIX_LOAD_PROCID(&spx_client.myproc, tool->ask.nspace, tool->ask.rank);
        else
            PMIX_LOAD_PROCID(&spx_client.myproc, ns, 0);
        spx_client_singleton_jobinfo();
        rc = PMIX_SUCCESS;
    } else {
        spx_client.singleton = false;
        if (tool)
            spx_client.myproc = tool->ask;
        rc = tool ? PMIX_SUCCESS : read_identity();
        /* the progress thread starts while the handshake's round trip runs */
        bool progress = rc == PMIX_SUCCESS && spx_progress_acquire() == 0;
        if (rc == PMIX_SUCCESS && !progress)
            rc = PMIX_ERR_INIT;
        int fd = -1, io_err = 0;
        const char *io_what = NULL;
        if (rc == PMIX_SUCCESS) {
            fd = spx_client_connect(path); /* unix socket or spmix-tcp:// */
            if (fd < 0) {
                io_err = errno;
                io_what = "cannot connect to";
                rc = tool ? spx_client_connect_status(io_err) : PMIX_ERR_UNREACH;
            }
        }
        pmix_proc_t server;
        memset(&server, 0, sizeof(server));
        if (rc == PMIX_SUCCESS)
            rc = handshake(fd, &spx_client.myproc, &server, &io_err, &io_what);
        if (io_what) { /* the server could not be talked to (set only then) */
            if (tool)
                spx_error("%s the PMIx server at %s: %s", io_what, path, strerror(io_err));
            else
                rc = server_unreachable(se.path_var, path, io_what, io_err);
        }
        if (rc == PMIX_SUCCESS) {
            rc = spx_client_server_add(fd, tool ? &server : NULL, path, true, NULL);
            fd = -1; /* taken */
        }
        if (rc != PMIX_SUCCESS && progress)
            spx_progress_release();
        if (fd >= 0)
            close(fd);
    }
    if (rc == PMIX_SUCCESS && spx_client.singleton && spx_progress_acquire() != 0)
        rc = PMIX_ERR_INIT;
    if (rc != PMIX_SUCCESS) {
        free_stores();
        return rc;
    }
    const pmix_value_t *v = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                           PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL);
    spx_client.job_size = (v && v->type == PMIX_UINT32) ? v->data.uint32 : 0;
    if (!spx_client.singleton && !tool) {
        spx_client_shmb_attach();
        spx_client_gshm_attach();
    }
    wait_spin_tune();
    return PMIX_SUCCESS;
}

/* PMIx_Init's directives: a programming model declaring itself asks for
 * nothing more than being accepted. No PMIx_Finalize directive is honoured
 * (PMIX_EMBED_BARRIER is not: a program that needs the barrier fences). */
static const char *const init_directives[] = {PMIX_PROGRAMMING_MODEL, PMIX_MODEL_LIBRARY_NAME,
                                              PMIX_MODEL_LIBRARY_VERSION, PMIX_THREADING_MODEL,
                                              NULL};

SPX_EXPORT pmix_status_t PMIx_Init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
    pmix_status_t rc = spx_directives_check("PMIx_Init", info, ninfo, init_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    return spx_client_init(NULL, proc);
}

pmix_status_t spx_client_init(const struct spx_tool_start *tool, pmix_proc_t *proc)
{
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&spx_client.init_lock);
    if (spx_client.init_count == 0) {
        rc = first_init(tool);
        if (rc == PMIX_SUCCESS)
            __atomic_store_n(&spx_client.init_count, 1, __ATOMIC_RELEASE);
#if defined(HAVE_MALLOC_H) && defined(HAVE_MALLOC_TRIM)
        /* decoding the job's information (O(job size): ~8 KiB per process,
         * about half of it transient) leaves free holes inside the heap that
         * free() keeps; give those pages back once (thousands of ranks on
         * one host add up) */
        malloc_trim(0);
#endif
    } else {
        __atomic_add_fetch(&spx_client.init_count, 1, __ATOMIC_ACQ_REL);
    }
    if (rc == PMIX_SUCCESS && proc)
        *proc = spx_client.myproc;
    pthread_mutex_unlock(&spx_client.init_lock);
    return rc;
}

SPX_EXPORT int PMIx_Initialized(void)
{
    return spx_client_initialized() ? 1 : 0;
}

SPX_EXPORT const char *PMIx_Get_version(void)
{
    return "4.2.2 (spmix " PACKAGE_VERSION ", PMIx v4 ABI)";
}

/* ---- finalize ---- */

static void teardown_on_thread(void *arg)
{
    spx_wait_t *w = arg;
    spx_client_servers_close_all();
    spx_client_event_clear();
    spx_client_groups_clear();
    spx_client_iof_pull_clear();
    pthread_mutex_lock(&spx_client.lock);
    free_stores();
    pthread_mutex_unlock(&spx_client.lock);
    spx_wait_signal(w, PMIX_SUCCESS);
}

/* ---- a tool's later connections (client_tool.c) ---- */

pmix_status_t spx_client_tool_connect(const char *path, bool make_primary, uint32_t *id,
                                      pmix_proc_t *server)
{
    int fd = spx_client_connect(path);
    if (fd < 0) {
        int e = errno;
        spx_error("cannot connect to the PMIx server at %s: %s", path, strerror(e));
        return spx_client_connect_status(e);
    }
    pmix_proc_t me;
    int io_err = 0;
    const char *io_what = NULL;
    pmix_status_t rc = handshake(fd, &me, server, &io_err, &io_what);
    if (rc != PMIX_SUCCESS) {
        if (io_what)
            spx_error("%s the PMIx server at %s: %s", io_what, path, strerror(io_err));
        close(fd);
        return rc;
    }
    if (spx_client_primary_id() == 0)
        spx_client.myproc = me; /* the first server names the tool */
    else if (!PMIX_CHECK_PROCID(&me, &spx_client.myproc))
        spx_warn("the PMIx server %s:%u knows this tool as %s:%u, the others as %s:%u",
                 server->nspace, server->rank, me.nspace, me.rank, spx_client.myproc.nspace,
                 spx_client.myproc.rank);
    rc = spx_client_server_add(fd, server, path, make_primary, id);
    if (rc == PMIX_SUCCESS)
        spx_client.singleton = false; /* a tool started alone has a server now */
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo)
{
    pmix_status_t rc = spx_progress_guard("PMIx_Finalize");
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((rc = spx_directives_check("PMIx_Finalize", info, ninfo, NULL)) != PMIX_SUCCESS)
        return rc;
    pthread_mutex_lock(&spx_client.init_lock);
    if (spx_client.init_count == 0) {
        pthread_mutex_unlock(&spx_client.init_lock);
        return PMIX_ERR_INIT;
    }
    if (spx_client.init_count > 1) {
        __atomic_sub_fetch(&spx_client.init_count, 1, __ATOMIC_ACQ_REL);
        pthread_mutex_unlock(&spx_client.init_lock);
        return PMIX_SUCCESS;
    }
    spx_client_iof_stop(true, 0); /* before the connections go */
    __atomic_store_n(&spx_client.init_count, 0, __ATOMIC_RELEASE);
    spx_wait_t w;
    uint32_t id;
    bool first = true;
    while (!spx_client.singleton && (id = spx_client_primary_id()) != 0) {
        pmix_status_t r = spx_client_server_close(id); /* every server, primary first */
        if (first)
            rc = r == PMIX_ERR_UNREACH ? PMIX_SUCCESS : r; /* gone: nothing left to tell */
        first = false;
    }
    spx_wait_init(&w);
    spx_progress_shift(teardown_on_thread, &w);
    spx_wait_block(&w);
    spx_wait_fini(&w);
    spx_progress_release();
    spx_client_gshm_detach();
    spx_client_shmb_detach();
    pthread_mutex_unlock(&spx_client.init_lock);
    return rc;
}
