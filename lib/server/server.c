/* server.c - life of the PMIx server of this process: PMIx_server_init and
 * PMIx_server_finalize, the server's state (spx_srv points to it), PMIx_server_setup_fork
 * and the small setup entry points.
 *
 * Init reads its directives on the caller's thread, acquires the progress
 * thread, makes the private directory, then creates the store, sets up the
 * engines (spx_srv_engines, each through its ops table), the network
 * (multi-node mode, nodes.c) and the listener on the progress thread (they
 * belong to it).
 * Finalize undoes that in reverse order on the progress thread (engines'
 * stop hooks while the network and the clients are there, their teardown
 * after the clients are closed), then removes the directory and releases
 * the thread.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_events.h"
#include "server/engine_fence.h"
#include "server/engine_get.h"
#include "server/engine_group.h"
#include "server/engine_pmi.h"
#include "server/engine_pubsub.h"
#include "server/engine_query.h"
#include "server/server.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <spmix.h>

#include "client/event_local.h"
#include "proto/msg.h"
#include "progress/progress.h"
#include "types/types.h"
#include "util/log.h"

#define SPX_SERVER_VERSION_STR "4.2.2-spmix"

/* The engines, in the order they are set up and hear of a gone node. */
static const struct spx_srv_engine_ops *const server_engines[] = {
    &spx_srv_fence_engine, &spx_srv_dmx_engine, &spx_srv_pubsub_engine, &spx_srv_relay_engine,
    &spx_srv_group_engine, &spx_srv_iof_engine, &spx_srv_pmi_engine, &spx_srv_query_engine,
    NULL};

/* Why a lock here, where the progress thread owns the state: init and
 * finalize run on the host's threads (any of them; they refuse to run on the
 * progress thread), and they are what creates and ends the progress thread's
 * part. Init fills the context before that thread has it (reset, host module,
 * directives) and finalize hands it back after the thread let go, then
 * releases the thread; the whole change of life must be one step, so that a
 * second init waits for the first to succeed (then is refused) or fail (then
 * starts), and a finalize waits for an init in progress. The progress thread
 * never takes the lock (finalize waits for it while holding it), nor does
 * anything else. spx_server_active (util/role.c) answers "is there a
 * server" without the lock. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

struct sync_call {
    void (*fn)(void *);
    void *arg;
    spx_wait_t wait;
};

static void sync_trampoline(void *arg)
{
    struct sync_call *s = arg;
    s->fn(s->arg);
    spx_wait_signal(&s->wait, PMIX_SUCCESS);
}

void spx_srv_run_sync(void (*fn)(void *), void *arg)
{
    struct sync_call s = {.fn = fn, .arg = arg};
    spx_wait_init(&s.wait);
    if (spx_progress_shift(sync_trampoline, &s) == 0)
        spx_wait_block(&s.wait);
    spx_wait_fini(&s.wait);
}

/* ---- init / finalize ---- */

struct start_ctx {
    pmix_status_t rc;
};

static void start_on_thread(void *arg)
{
    struct start_ctx *st = arg;
    st->rc = PMIX_ERR_NOMEM;
    if (!(spx_srv->store = spx_store_create()))
        return;
    spx_srv->engines = server_engines;
    for (size_t i = 0; server_engines[i]; i++)
        if (server_engines[i]->setup && server_engines[i]->setup(spx_srv) != 0)
            return;
    if (spx_srv_mn_start(spx_srv) != 0) {
        st->rc = PMIX_ERR_INIT;
        return;
    }
    spx_srv->listener = spx_listener_create(spx_progress_base(), spx_srv->sock_path, spx_srv->uid,
                                           spx_srv_accept, spx_srv);
    if (!spx_srv->listener) {
        spx_error("server: cannot listen on %s: %s", spx_srv->sock_path, strerror(errno));
        st->rc = PMIX_ERR_INIT;
        return;
    }
    spx_srv->active = true;
    st->rc = PMIX_SUCCESS;
}

static void stop_on_thread(void *arg)
{
    (void)arg;
    spx_srv->active = false;
    size_t n = 0;
    while (server_engines[n])
        n++;
    /* what waits in the engines (lookups for node 0, direct modex requests)
     * is answered while clients are connected */
    for (size_t i = n; i-- > 0;)
        if (server_engines[i]->stop)
            server_engines[i]->stop(spx_srv);
    spx_srv_mn_stop(spx_srv); /* pending fences are answered while clients are connected */
    if (spx_srv->listener)
        spx_listener_destroy(spx_srv->listener);
    spx_srv->listener = NULL;
    spx_srv_close_all(spx_srv);
    spx_srv_get_fail_all(spx_srv);
    for (size_t i = n; i-- > 0;)
        if (server_engines[i]->teardown)
            server_engines[i]->teardown(spx_srv);
    spx_srv_ns_free_all(spx_srv);
    if (spx_srv->store)
        spx_store_destroy(spx_srv->store);
    spx_srv->store = NULL;
    spx_event_local_server_done(); /* the process's handlers and kept events */
}

static void read_directives(const pmix_info_t *info, size_t ninfo, const char **tmpdir,
                            const char **systmp)
{
    spx_srv->uid = geteuid();
    spx_srv->gid = getegid();
    *tmpdir = NULL;
    const pmix_info_t *i;
    uint32_t u;
    *systmp = NULL;
    if ((i = spx_info_find(info, ninfo, PMIX_SERVER_TMPDIR)) && i->value.type == PMIX_STRING)
        *tmpdir = i->value.data.string;
    if ((i = spx_info_find(info, ninfo, PMIX_SYSTEM_TMPDIR)) && i->value.type == PMIX_STRING)
        *systmp = i->value.data.string;
    spx_srv->tool_support = spx_info_flag(info, ninfo, PMIX_SERVER_TOOL_SUPPORT);
    spx_srv->tool_pid = (long)getpid();
    spx_srv->alias_pid = spx_srv->launcher_pid = 0;
    if ((i = spx_info_find(info, ninfo, SPMIX_SERVER_RENDEZVOUS_PID)) &&
        spx_value_to_u32(&i->value, &u) == PMIX_SUCCESS && u > 0 && (long)u != spx_srv->tool_pid)
        spx_srv->alias_pid = (long)u;
    if ((i = spx_info_find(info, ninfo, SPMIX_SERVER_LAUNCHER_PID)) &&
        spx_value_to_u32(&i->value, &u) == PMIX_SUCCESS && u > 0 && (long)u != spx_srv->tool_pid)
        spx_srv->launcher_pid = (long)u;
    if ((i = spx_info_find(info, ninfo, PMIX_USERID)) &&
        spx_value_to_u32(&i->value, &u) == PMIX_SUCCESS)
        spx_srv->uid = (uid_t)u;
    if ((i = spx_info_find(info, ninfo, PMIX_GRPID)) &&
        spx_value_to_u32(&i->value, &u) == PMIX_SUCCESS)
        spx_srv->gid = (gid_t)u;
    snprintf(spx_srv->me.nspace, sizeof(spx_srv->me.nspace), "spmix-server.%ld", (long)getpid());
    spx_srv->me.rank = 0;
    if ((i = spx_info_find(info, ninfo, PMIX_SERVER_NSPACE)) && i->value.type == PMIX_STRING &&
        i->value.data.string)
        snprintf(spx_srv->me.nspace, sizeof(spx_srv->me.nspace), "%s", i->value.data.string);
    if ((i = spx_info_find(info, ninfo, PMIX_SERVER_RANK)) &&
        spx_value_to_u32(&i->value, &u) == PMIX_SUCCESS)
        spx_srv->me.rank = u;
    if ((i = spx_info_find(info, ninfo, PMIX_HOSTNAME)) && i->value.type == PMIX_STRING &&
        i->value.data.string)
        snprintf(spx_srv->hostname, sizeof(spx_srv->hostname), "%s", i->value.data.string);
    else if (gethostname(spx_srv->hostname, sizeof(spx_srv->hostname) - 1) != 0)
        snprintf(spx_srv->hostname, sizeof(spx_srv->hostname), "localhost");
    spx_srv->local_fences = spx_info_flag(info, ninfo, SPMIX_SERVER_LOCAL_FENCES);
    if ((i = spx_info_find(info, ninfo, PMIX_NODEID)) &&
        spx_value_to_u32(&i->value, &u) == PMIX_SUCCESS) {
        spx_srv->nodeid = u;
        spx_srv->have_nodeid = true;
    }
    spx_srv_topo_from_host(NULL);
    if ((i = spx_info_find(info, ninfo, PMIX_TOPOLOGY2)) && i->value.type == PMIX_TOPO &&
        i->value.data.topo && i->value.data.topo->topology && i->value.data.topo->source &&
        strncmp(i->value.data.topo->source, "hwloc", 5) == 0)
        spx_srv_topo_from_host(i->value.data.topo->topology);
    if (!*tmpdir || !**tmpdir)
        *tmpdir = getenv("TMPDIR");
    if (!*tmpdir || !**tmpdir)
        *tmpdir = "/tmp";
    if (!*systmp || !**systmp)
        *systmp = *tmpdir;
}

/* The directives read_directives() and spx_srv_mn_parse() honour. */
static const char *const init_directives[] = {
    PMIX_SERVER_TMPDIR,  PMIX_USERID,           PMIX_GRPID,         PMIX_SERVER_NSPACE,
    PMIX_SERVER_RANK,    PMIX_HOSTNAME,         PMIX_NODEID,        SPMIX_SERVER_LOCAL_FENCES,
    SPMIX_TREE_NODE_INDEX, SPMIX_TREE_ADDRS,    SPMIX_TREE_SECRET,  SPMIX_TREE_WIDTH,
    SPMIX_TREE_TIMEOUT,  PMIX_SERVER_TOOL_SUPPORT, PMIX_SYSTEM_TMPDIR,
    SPMIX_SERVER_RENDEZVOUS_PID, SPMIX_SERVER_LAUNCHER_PID, PMIX_TOPOLOGY2, NULL};

SPX_EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module, pmix_info_t info[],
                                          size_t ninfo)
{
    if (spx_progress_guard("PMIx_server_init") != PMIX_SUCCESS)
        return PMIX_ERR_WOULD_BLOCK;
    if (ninfo && !info)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t drc = spx_directives_check("PMIx_server_init", info, ninfo, init_directives);
    if (drc != PMIX_SUCCESS)
        return drc;
    pthread_mutex_lock(&init_lock);
    if (spx_server_active()) {
        pthread_mutex_unlock(&init_lock);
        spx_error("PMIx_server_init: a server is already running in this process");
        return PMIX_ERR_INIT;
    }
    memset(spx_srv, 0, sizeof(*spx_srv));
    /* only the PMIx v4 part: a host built against v4 headers passes a table
     * that ends before session_control (which we never call; it stays NULL) */
    if (module)
        memcpy(&spx_srv->host, module, offsetof(pmix_server_module_t, session_control));
    const char *tmpdir, *systmp;
    read_directives(info, ninfo, &tmpdir, &systmp);
    pmix_status_t mrc = spx_srv_mn_parse(spx_srv, info, ninfo);
    if (mrc != PMIX_SUCCESS) {
        pthread_mutex_unlock(&init_lock);
        return mrc;
    }
    if (spx_progress_acquire() != 0) {
        spx_srv_mn_stop(spx_srv); /* frees the parsed directives */
        pthread_mutex_unlock(&init_lock);
        return PMIX_ERR_INIT;
    }
    if (spx_private_dir_create(tmpdir, "srv", spx_srv->uid, spx_srv->gid, &spx_srv->dir) != 0) {
        spx_error("PMIx_server_init: cannot create a directory under %s: %s", tmpdir,
                  strerror(errno));
        spx_srv_mn_stop(spx_srv);
        spx_progress_release();
        pthread_mutex_unlock(&init_lock);
        return PMIX_ERR_INIT;
    }
    size_t len = strlen(spx_srv->dir) + 3;
    struct start_ctx st = {.rc = PMIX_ERR_NOMEM};
    if ((spx_srv->sock_path = malloc(len))) {
        snprintf(spx_srv->sock_path, len, "%s/s", spx_srv->dir);
        spx_srv_run_sync(start_on_thread, &st);
        /* the file itself is written at the first namespace's registration
         * (nspace.c); without it tools can still come with PMIX_SERVER_URI */
        if (st.rc == PMIX_SUCCESS && spx_srv->tool_support &&
            !(spx_srv->tool_dir = strdup(systmp)))
            st.rc = PMIX_ERR_NOMEM;
    }
    if (st.rc != PMIX_SUCCESS) {
        spx_srv_run_sync(stop_on_thread, NULL);
        free(spx_srv->tool_dir);
        spx_srv->tool_dir = NULL;
        spx_private_dir_remove(spx_srv->dir);
        free(spx_srv->dir);
        free(spx_srv->sock_path);
        spx_srv->dir = spx_srv->sock_path = NULL;
        spx_progress_release();
        pthread_mutex_unlock(&init_lock);
        return st.rc;
    }
    spx_role_server_set(true, spx_server_notify);
    pthread_mutex_unlock(&init_lock);
    spx_info("server %s:%u listening on %s (uid %ld)", spx_srv->me.nspace, spx_srv->me.rank,
             spx_srv->sock_path, (long)spx_srv->uid);
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_server_finalize(void)
{
    if (spx_progress_guard("PMIx_server_finalize") != PMIX_SUCCESS)
        return PMIX_ERR_WOULD_BLOCK;
    pthread_mutex_lock(&init_lock);
    if (!spx_server_active()) {
        pthread_mutex_unlock(&init_lock);
        return PMIX_ERR_INIT;
    }
    spx_role_server_set(false, NULL);
    spx_srv_run_sync(stop_on_thread, NULL);
    spx_srv_rendezvous_remove(spx_srv);
    free(spx_srv->tool_dir);
    spx_srv->tool_dir = NULL;
    spx_private_dir_remove(spx_srv->dir);
    free(spx_srv->dir);
    free(spx_srv->sock_path);
    spx_srv->dir = spx_srv->sock_path = NULL;
    spx_progress_release();
    pthread_mutex_unlock(&init_lock);
    return PMIX_SUCCESS;
}

/* ---- setup_fork ---- */

/* Sets name=value in the NULL-terminated array *env (malloc'd strings, as the
 * host's argv helpers make them), replacing an existing entry. 0 or -1. */
static int env_set(char ***env, const char *name, const char *value)
{
    size_t nl = strlen(name), n = 0;
    char *entry = malloc(nl + strlen(value) + 2);
    if (!entry)
        return -1;
    sprintf(entry, "%s=%s", name, value);
    for (char **e = *env; e && *e; e++, n++)
        if (strncmp(*e, name, nl) == 0 && (*e)[nl] == '=') {
            free(*e);
            *e = entry;
            return 0;
        }
    char **ne = realloc(*env, (n + 2) * sizeof(*ne));
    if (!ne) {
        free(entry);
        return -1;
    }
    ne[n] = entry;
    ne[n + 1] = NULL;
    *env = ne;
    return 0;
}

/* The PMI wire connection of proc (engine_pmi.h) and what MPICH's PMI-1
 * and PMI-2 clients read at start; none when SPMIX_PMI=0 in the server's
 * environment or the server cannot make it (PMIx works as before). */
struct pmi_fork {
    const pmix_proc_t *proc;
    int fd, rc;
    uint32_t size;
};

static void pmi_fork_on_thread(void *arg)
{
    struct pmi_fork *f = arg;
    f->rc = spx_srv_pmi_setup_fork(spx_srv, f->proc, &f->fd, &f->size);
}

static int pmi_setup_fork(const pmix_proc_t *proc, char ***env)
{
    const char *off = getenv("SPMIX_PMI");
    struct pmi_fork f = {.proc = proc, .fd = -1, .rc = -1};
    if (off && strcmp(off, "0") == 0)
        return 0;
    spx_srv_run_sync(pmi_fork_on_thread, &f);
    if (f.rc != 0) {
        spx_info("no PMI connection for %s:%u", proc->nspace, (unsigned)proc->rank);
        return 0;
    }
    char fd[16], rank[16], size[16], nspace[PMIX_MAX_NSLEN + 1];
    snprintf(fd, sizeof(fd), "%d", f.fd);
    snprintf(rank, sizeof(rank), "%u", (unsigned)proc->rank);
    snprintf(size, sizeof(size), "%u", (unsigned)f.size);
    snprintf(nspace, sizeof(nspace), "%s", proc->nspace);
    return env_set(env, "PMI_FD", fd) | env_set(env, "PMI_RANK", rank) |
           env_set(env, "PMI_SIZE", size) | env_set(env, "PMI_JOBID", nspace) |
           env_set(env, "PMI_SPAWNED", "0");
}

SPX_EXPORT pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env)
{
    if (!spx_server_active())
        return PMIX_ERR_INIT;
    if (!proc || !env)
        return PMIX_ERR_BAD_PARAM;
    char rank[16], *uri;
    snprintf(rank, sizeof(rank), "%u", (unsigned)proc->rank);
    size_t ul = strlen(SPX_URI_PREFIX) + strlen(spx_srv->sock_path) + 1;
    if (!(uri = malloc(ul)))
        return PMIX_ERR_NOMEM;
    snprintf(uri, ul, "%s%s", SPX_URI_PREFIX, spx_srv->sock_path);
    char nspace[PMIX_MAX_NSLEN + 1];
    snprintf(nspace, sizeof(nspace), "%s", proc->nspace);
    int bad = env_set(env, SPX_ENV_NSPACE, nspace) | env_set(env, SPX_ENV_RANK, rank) |
              env_set(env, SPX_ENV_SERVER_URI, uri) | env_set(env, "PMIX_SERVER_URI4", uri) |
              env_set(env, "PMIX_SERVER_URI3", uri) | env_set(env, "PMIX_SERVER_URI2", uri) |
              env_set(env, "PMIX_SERVER_URI21", uri) |
              env_set(env, SPX_ENV_SECURITY, "native") |
              env_set(env, "PMIX_VERSION", SPX_SERVER_VERSION_STR) |
              env_set(env, "PMIX_SERVER_TMPDIR", spx_srv->dir);
    free(uri);
    if (!bad)
        bad = pmi_setup_fork(proc, env);
    return bad ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}
