/* query_facts.c - what this node's server knows, for the query keys the
 * server answers itself (engine_query.h): its processes of a namespace,
 * its namespaces' info, a namespace's status here, the groups it knows,
 * its URI. Nothing here sends a message; query_own.c gathers the parts.
 *
 * A process of this node, from what the server saw of it:
 *   host        its PMIX_HOSTNAME in the job info, else its node's in the maps
 *               (else this node's name);
 *   pid         its connection's (SO_PEERCRED at HELLO); 0 when it never
 *               connected, or speaks PMI over PMI_FD (a socket pair the
 *               server made, whose credentials are the server's own);
 *   executable  the first word of its app's PMIX_APP_ARGV when the host
 *               registered one (spmix-run does), else argv[0] of
 *               /proc/PID/cmdline, read while it is connected and kept
 *               (a Slurm step's tasks: the plugin registers no command line);
 *   state       in PMIX_LOCAL_PEERS, not registered       PREPPED
 *               registered, never connected              LAUNCH_UNDERWAY
 *               connected (PMIx or PMI)                  CONNECTED
 *               called PMIx_Abort                        CALLED_ABORT
 *               finalized, or deregistered by the host   TERMINATED
 *               gone without PMIx_Finalize               TERM_WO_SYNC
 *               (PMIX_PROC_STATE_*; exit codes are the host's, not known: 0).
 * A namespace's status here (the JOB_STATUS part): PMIX_ERR_JOB_ABORTED
 * when a local process called PMIx_Abort, else PMIX_ERR_JOB_TERM_WO_SYNC
 * when one went without PMIx_Finalize, else PMIX_EVENT_JOB_END when every
 * local process finalized, else PMIX_SUCCESS (running).
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_group.h"
#include "server/engine_query.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/value.h"
#include "proto/msg.h"
#include "store/jobparts.h"
#include "types/types.h"

#define CMDLINE_MAX 4096 /* bytes of /proc/PID/cmdline read */

static const char *proc_string(const struct spx_srv_ns *ns, pmix_rank_t rank, const char *key)
{
    const pmix_value_t *v = spx_store_peek(ns->info, ns->name, rank, key, NULL);
    return v && v->type == PMIX_STRING ? v->data.string : NULL;
}

/* The host of rank (malloc'd, the caller frees), or NULL: its
 * PMIX_HOSTNAME, else that of its node in the maps. */
static char *rank_host(const struct spx_srv_ns *ns, pmix_rank_t rank)
{
    const char *h = proc_string(ns, rank, PMIX_HOSTNAME);
    return h ? strdup(h) : spx_srv_ns_node_name(ns, spx_srv_ns_node_of(ns, rank));
}

/* The local rank of rank: its block's, else its place on its node by the
 * maps; false when neither says. */
static bool rank_local_rank(const struct spx_srv_ns *ns, pmix_rank_t rank, uint16_t *out)
{
    const pmix_value_t *lr = spx_store_peek(ns->info, ns->name, rank, PMIX_LOCAL_RANK, NULL);
    uint32_t v, node;
    if (lr && spx_value_to_u32(lr, &v) == PMIX_SUCCESS && v <= UINT16_MAX) {
        *out = (uint16_t)v;
        return true;
    }
    if (!lr && ns->mapped && spx_procmap_locate(&ns->map.procs, rank, &node, &v) &&
        v <= UINT16_MAX) {
        *out = (uint16_t)v;
        return true;
    }
    return false;
}

uint32_t spx_srv_qry_job_size(const struct spx_srv_ns *ns)
{
    const pmix_value_t *v =
        spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL);
    uint32_t n;
    if (!v || spx_value_to_u32(v, &n) != PMIX_SUCCESS)
        n = spx_srv_ns_rank_top(ns) > SPX_QRY_MAX_RANKS ? SPX_QRY_MAX_RANKS
                                                         : (uint32_t)spx_srv_ns_rank_top(ns);
    return n > SPX_QRY_MAX_RANKS ? SPX_QRY_MAX_RANKS : n;
}

/* Makes *out a data array of n elements of type (array and its contents
 * taken; released here on failure). */
static pmix_status_t darray_into(pmix_value_t *out, pmix_data_type_t type, void *array, size_t n)
{
    pmix_data_array_t *d = calloc(1, sizeof(*d));
    if (!d) {
        if (array)
            spx_codec_release_elems(type, array, n);
        free(array);
        return PMIX_ERR_NOMEM;
    }
    d->type = type;
    d->size = n;
    d->array = n ? array : NULL;
    if (!n)
        free(array);
    out->type = PMIX_DATA_ARRAY;
    out->data.darray = d;
    return PMIX_SUCCESS;
}

/* /proc/PID/cmdline, at most CMDLINE_MAX bytes: argv[0], or with whole
 * the arguments joined by spaces. malloc'd, or NULL. */
static char *pid_cmdline(pid_t pid, bool whole)
{
    char path[64], buf[CMDLINE_MAX + 1];
    ssize_t len = 0, n;
    if (pid <= 0)
        return NULL;
    snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    while (len < CMDLINE_MAX &&
           ((n = read(fd, buf + len, (size_t)(CMDLINE_MAX - len))) > 0 || (n < 0 && errno == EINTR)))
        len += n > 0 ? n : 0;
    close(fd);
    if (len <= 0)
        return NULL;
    buf[len] = '\0';
    while (len > 0 && buf[len - 1] == '\0') /* the last argument's terminator */
        len--;
    for (ssize_t i = 0; whole && i < len; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    return buf[0] ? strdup(buf) : NULL;
}

/* PMIX_APP_ARGV of app (borrowed from ns's store), or NULL: the app's part's,
 * else the job level's (a host may give it there only). */
static const char *app_argv(const struct spx_srv_ns *ns, uint32_t app)
{
    bool yes = true;
    pmix_info_t q[2];
    pmix_status_t rc;
    const pmix_value_t *a = NULL;
    PMIx_Info_load(&q[0], PMIX_APP_INFO, &yes, PMIX_BOOL);
    PMIx_Info_load(&q[1], PMIX_APPNUM, &app, PMIX_UINT32);
    if (spx_jobparts_lookup(ns->info, ns->name, PMIX_APP_ARGV, q, 2, &rc, &a) &&
        rc == PMIX_SUCCESS && a && a->type == PMIX_STRING)
        return a->data.string;
    a = spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_APP_ARGV, NULL);
    return a && a->type == PMIX_STRING ? a->data.string : NULL;
}

static uint32_t app_of(const struct spx_srv_ns *ns, pmix_rank_t rank)
{
    const pmix_value_t *v = spx_store_peek(ns->info, ns->name, rank, PMIX_APPNUM, NULL);
    uint32_t app;
    return v && spx_value_to_u32(v, &app) == PMIX_SUCCESS ? app : 0;
}

/* The executable of rank (cl: its client here, or NULL): malloc'd or NULL.
 * What /proc says is kept in cl: read only while the process is connected
 * (a pid of a process gone may be another's), it stays known after. */
static char *exe_of(const struct spx_srv_ns *ns, pmix_rank_t rank, struct spx_srv_client *cl)
{
    const char *a = app_argv(ns, app_of(ns, rank));
    if (a && *a)
        return strndup(a, strcspn(a, " "));
    if (cl && !cl->exe && cl->peer)
        cl->exe = pid_cmdline(cl->pid, false);
    return cl && cl->exe ? strdup(cl->exe) : NULL;
}

static pmix_proc_state_t proc_state(const struct spx_srv_ns *ns, pmix_rank_t rank,
                                    const struct spx_srv_client *cl)
{
    if (!cl)
        return spx_srv_ns_departed(ns, rank) ? PMIX_PROC_STATE_TERMINATED
                                             : PMIX_PROC_STATE_PREPPED;
    if (cl->aborted)
        return PMIX_PROC_STATE_CALLED_ABORT;
    if (cl->finalized)
        return PMIX_PROC_STATE_TERMINATED;
    if (cl->peer)
        return PMIX_PROC_STATE_CONNECTED;
    return cl->connected_once ? PMIX_PROC_STATE_TERM_WO_SYNC : PMIX_PROC_STATE_LAUNCH_UNDERWAY;
}

void spx_srv_qry_proc_stand_in(const struct spx_srv_ns *ns, pmix_rank_t rank,
                               pmix_proc_state_t state, pmix_proc_info_t *pi)
{
    spx_proc_load(&pi->proc, ns->name, rank);
    const char *a = app_argv(ns, app_of(ns, rank));
    pi->hostname = rank_host(ns, rank);
    pi->executable_name = a && *a ? strndup(a, strcspn(a, " ")) : NULL;
    pi->state = state;
}

/* PROCS: this node's processes of ns, in rank order. */
static pmix_status_t procs_part(const struct spx_srv_ctx *ctx, const struct spx_srv_ns *ns,
                                pmix_value_t *out)
{
    pmix_rank_t *ranks = NULL;
    size_t n = spx_srv_ns_local_ranks(ns, &ranks);
    pmix_proc_info_t *pi = calloc(n ? n : 1, sizeof(*pi));
    if (!ranks || !pi) {
        free(ranks);
        free(pi);
        return PMIX_ERR_NOMEM;
    }
    const char *here = proc_string(ns, PMIX_RANK_WILDCARD, PMIX_HOSTNAME);
    for (size_t i = 0; i < n; i++) {
        struct spx_srv_client *cl = spx_srv_client_find(ctx, ns->name, ranks[i]);
        char *h = rank_host(ns, ranks[i]);
        spx_proc_load(&pi[i].proc, ns->name, ranks[i]);
        pi[i].hostname = h ? h : strdup(here ? here : ctx->hostname);
        pi[i].executable_name = exe_of(ns, ranks[i], cl);
        pi[i].pid = cl ? cl->pid : 0;
        pi[i].state = proc_state(ns, ranks[i], cl);
    }
    free(ranks);
    return darray_into(out, PMIX_PROC_INFO, pi, n);
}

/* JOB_STATUS: ns's status on this node (see the top comment). */
static pmix_status_t status_part(const struct spx_srv_ctx *ctx, const struct spx_srv_ns *ns,
                                 pmix_value_t *out)
{
    pmix_rank_t *ranks = NULL;
    size_t n = spx_srv_ns_local_ranks(ns, &ranks);
    if (!ranks)
        return PMIX_ERR_NOMEM;
    bool aborted = false, lost = false, all_ended = n > 0;
    for (size_t i = 0; i < n; i++) {
        const struct spx_srv_client *cl = spx_srv_client_find(ctx, ns->name, ranks[i]);
        aborted |= cl && cl->aborted;
        lost |= cl && cl->connected_once && !cl->peer && !cl->finalized;
        all_ended &= cl ? cl->finalized : spx_srv_ns_departed(ns, ranks[i]);
    }
    free(ranks);
    out->type = PMIX_STATUS;
    out->data.status = aborted     ? PMIX_ERR_JOB_ABORTED
                       : lost      ? PMIX_ERR_JOB_TERM_WO_SYNC
                       : all_ended ? PMIX_EVENT_JOB_END
                                   : PMIX_SUCCESS;
    return PMIX_SUCCESS;
}

pmix_status_t spx_srv_qry_part(struct spx_srv_ctx *ctx, uint8_t part, const char *nspace,
                               pmix_value_t *out)
{
    const struct spx_srv_ns *ns = nspace && *nspace ? spx_srv_ns_find(ctx, nspace) : NULL;
    switch (part) {
    case SPX_QRY_PROCS:
        return ns ? procs_part(ctx, ns, out) : PMIX_ERR_NOT_FOUND;
    case SPX_QRY_JOB_STATUS:
        return ns ? status_part(ctx, ns, out) : PMIX_ERR_NOT_FOUND;
    case SPX_QRY_GROUPS: {
        size_t n;
        char **ids = spx_srv_group_ids(ctx, &n);
        return ids ? darray_into(out, PMIX_STRING, ids, n) : PMIX_ERR_NOMEM;
    }
    case SPX_QRY_URI: {
        char *uri = NULL;
        if (asprintf(&uri, "%s%s", SPX_URI_PREFIX, ctx->sock_path ? ctx->sock_path : "") < 0)
            return PMIX_ERR_NOMEM;
        out->type = PMIX_STRING;
        out->data.string = uri;
        return PMIX_SUCCESS;
    }
    default:
        return PMIX_ERR_BAD_PARAM;
    }
}

/* ---- PMIX_QUERY_NAMESPACE_INFO ---- */

/* The command line of ns: app 0's PMIX_APP_ARGV, else that of the lowest
 * connected local process (/proc), kept in ns once read. malloc'd, or NULL. */
static char *cmd_line(struct spx_srv_ns *ns)
{
    const char *a = app_argv(ns, 0);
    if (a)
        return strdup(a);
    const struct spx_srv_client *cl, *low = NULL;
    SLIST_FOREACH(cl, &ns->clients, link)
        if (cl->peer && cl->pid > 0 && (!low || cl->rank < low->rank))
            low = cl;
    if (!ns->cmd_line && low)
        ns->cmd_line = pid_cmdline(low->pid, true);
    return ns->cmd_line ? strdup(ns->cmd_line) : NULL;
}

/* One rank's PMIX_PROC_INFO_ARRAY: PMIX_RANK, PMIX_HOSTNAME, PMIX_LOCAL_RANK
 * (those the job info has). */
static pmix_status_t rank_entry(const struct spx_srv_ns *ns, pmix_rank_t rank, pmix_info_t *out)
{
    pmix_info_t *e = calloc(3, sizeof(*e));
    if (!e)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    char *h = rank_host(ns, rank);
    uint16_t l;
    PMIx_Info_load(&e[k++], PMIX_RANK, &rank, PMIX_PROC_RANK);
    if (h)
        PMIx_Info_load(&e[k++], PMIX_HOSTNAME, h, PMIX_STRING);
    free(h);
    if (rank_local_rank(ns, rank, &l))
        PMIx_Info_load(&e[k++], PMIX_LOCAL_RANK, &l, PMIX_UINT16);
    spx_key_load(out->key, PMIX_PROC_INFO_ARRAY);
    return darray_into(&out->value, PMIX_INFO, e, k);
}

/* One namespace's PMIX_JOB_INFO_ARRAY into out. */
static pmix_status_t ns_entry(struct spx_srv_ns *ns, pmix_info_t *out)
{
    uint32_t size = spx_srv_qry_job_size(ns);
    pmix_info_t *e = calloc((size_t)size + 3, sizeof(*e));
    if (!e)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    char *cmd = cmd_line(ns);
    PMIx_Info_load(&e[k++], PMIX_NSPACE, ns->name, PMIX_STRING);
    if (cmd)
        PMIx_Info_load(&e[k++], PMIX_CMD_LINE, cmd, PMIX_STRING);
    free(cmd);
    PMIx_Info_load(&e[k++], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    pmix_status_t rc = PMIX_SUCCESS;
    for (pmix_rank_t r = 0; r < size && rc == PMIX_SUCCESS; r++)
        if ((rc = rank_entry(ns, r, &e[k])) == PMIX_SUCCESS)
            k++;
    if (rc != PMIX_SUCCESS) {
        spx_info_array_free(e, k);
        return rc;
    }
    spx_key_load(out->key, PMIX_JOB_INFO_ARRAY);
    return darray_into(&out->value, PMIX_INFO, e, k);
}

pmix_status_t spx_srv_qry_nsinfo(struct spx_srv_ctx *ctx, const struct spx_srv_peer *p,
                                 const char *nspace, pmix_value_t *out)
{
    size_t n = 0, k = 0;
    struct spx_srv_ns *ns;
    LIST_FOREACH(ns, &ctx->nspaces, link)
        n++;
    pmix_info_t *all = calloc(n ? n : 1, sizeof(*all));
    if (!all)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = PMIX_SUCCESS;
    LIST_FOREACH(ns, &ctx->nspaces, link) {
        if ((nspace && !spx_nspace_eq(nspace, ns->name)) ||
            (p && p->tool && !spx_srv_tool_may_see(p, ns->name)))
            continue;
        if ((rc = ns_entry(ns, &all[k])) != PMIX_SUCCESS)
            break;
        k++;
    }
    if (rc == PMIX_SUCCESS && nspace && k == 0)
        rc = PMIX_ERR_NOT_FOUND;
    if (rc != PMIX_SUCCESS) {
        spx_info_array_free(all, k);
        return rc;
    }
    return darray_into(out, PMIX_INFO, all, k);
}
