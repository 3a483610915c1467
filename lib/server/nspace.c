/* nspace.c - registered namespaces and clients: PMIx_server_register_nspace,
 * deregister_nspace, register_client, deregister_client.
 *
 * The job info given by the host is parsed on the caller's thread into a new
 * spx_srv_ns (its own store: rank WILDCARD gets job-level keys and the node
 * info of this node, each rank its PMIX_PROC_DATA keys, SPX_RANK_JOBPARTS
 * the info of every node and app and of the session for Gets qualified with
 * PMIX_NODE_INFO, PMIX_APP_INFO or PMIX_SESSION_INFO, store/jobparts.h) and
 * the HELLO reply blocks are encoded there once; the finished object is then
 * shifted onto the progress thread and linked in, so a client's HELLO only
 * copies bytes.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_events.h"
#include "server/engine_fence.h"
#include "server/engine_get.h"
#include "server/engine_group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "server/server.h"
#include "store/jobparts.h"
#include "types/types.h"
#include "util/log.h"

struct spx_srv_ns *spx_srv_ns_find(const struct spx_srv_ctx *ctx, const char *name)
{
    struct spx_srv_ns *ns;
    LIST_FOREACH(ns, &ctx->nspaces, link)
        if (strncmp(ns->name, name, PMIX_MAX_NSLEN) == 0)
            return ns;
    return NULL;
}

struct spx_srv_client *spx_srv_client_find(const struct spx_srv_ctx *ctx, const char *nspace,
                                           pmix_rank_t rank)
{
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, nspace);
    for (struct spx_srv_client *c = ns ? SLIST_FIRST(&ns->clients) : NULL; c;
         c = SLIST_NEXT(c, link))
        if (c->rank == rank)
            return c;
    return NULL;
}

bool spx_srv_proc_is_local(const struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank)
{
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, nspace);
    if (!ns)
        return false;
    for (size_t i = 0; i < ns->nlocal; i++)
        if (ns->local[i] == rank)
            return true;
    return spx_srv_client_find(ctx, nspace, rank) != NULL;
}

static int rank_cmp(const void *a, const void *b)
{
    pmix_rank_t x = *(const pmix_rank_t *)a, y = *(const pmix_rank_t *)b;
    return x < y ? -1 : x > y;
}

size_t spx_srv_ns_local_ranks(const struct spx_srv_ns *ns, pmix_rank_t **out)
{
    size_t n = ns->nlocal;
    const struct spx_srv_client *c;
    SLIST_FOREACH(c, &ns->clients, link)
        n++;
    pmix_rank_t *r = malloc((n ? n : 1) * sizeof(*r));
    *out = r;
    if (!r)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < ns->nlocal; i++)
        r[k++] = ns->local[i];
    SLIST_FOREACH(c, &ns->clients, link)
        r[k++] = c->rank;
    qsort(r, k, sizeof(*r), rank_cmp);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || r[u - 1] != r[i])
            r[u++] = r[i];
    return u;
}

/* ---- building a namespace from the host's info (caller's thread) ---- */

static const pmix_info_t *darray_infos(const pmix_value_t *v, size_t *n)
{
    if (v->type != PMIX_DATA_ARRAY || !v->data.darray || v->data.darray->type != PMIX_INFO) {
        *n = 0;
        return NULL;
    }
    *n = v->data.darray->size;
    return v->data.darray->array;
}

static int ns_add_rank(struct spx_srv_ns *ns, pmix_rank_t rank)
{
    for (size_t i = 0; i < ns->ninfo_ranks; i++)
        if (ns->info_ranks[i] == rank)
            return 0;
    pmix_rank_t *r = realloc(ns->info_ranks, (ns->ninfo_ranks + 1) * sizeof(*r));
    if (!r)
        return -1;
    ns->info_ranks = r;
    r[ns->ninfo_ranks++] = rank;
    return 0;
}

static pmix_status_t ns_put(struct spx_srv_ns *ns, pmix_rank_t rank, const pmix_info_t *i)
{
    if (spx_key_eq(i->key, PMIX_LOCAL_PEERS) && rank == PMIX_RANK_WILDCARD &&
        i->value.type == PMIX_STRING && i->value.data.string) {
        free(ns->local);
        ns->local = NULL;
        if (spx_srv_parse_ranks(i->value.data.string, &ns->local, &ns->nlocal) != 0)
            spx_warn("namespace %s: unreadable %s \"%s\"", ns->name, PMIX_LOCAL_PEERS,
                     i->value.data.string);
    }
    return spx_store_put(ns->info, ns->name, rank, i->key, &i->value, PMIX_GLOBAL);
}

static bool node_is_mine(const struct spx_srv_ctx *ctx, const pmix_info_t *in, size_t n)
{
    const pmix_info_t *h = spx_info_find(in, n, PMIX_HOSTNAME);
    if (h && h->value.type == PMIX_STRING && h->value.data.string) {
        const char *a = h->value.data.string, *b = ctx->hostname;
        size_t la = strcspn(a, "."), lb = strcspn(b, ".");
        if (strcmp(a, b) == 0 || (la == lb && strncmp(a, b, la) == 0 && (!a[la] || !b[lb])))
            return true;
    }
    const pmix_info_t *id = spx_info_find(in, n, PMIX_NODEID);
    uint32_t v;
    return id && ctx->have_nodeid && spx_value_to_u32(&id->value, &v) == PMIX_SUCCESS &&
           v == ctx->nodeid;
}

/* Which kind of entry of the host's info an entry is. */
enum ns_entry { NS_JOB, NS_NODE, NS_PROC, NS_LATER };

static enum ns_entry ns_entry_kind(const pmix_info_t *i)
{
    if (spx_key_eq(i->key, PMIX_NODE_INFO_ARRAY))
        return NS_NODE;
    if (spx_key_eq(i->key, PMIX_PROC_DATA))
        return NS_PROC;
    if (spx_key_eq(i->key, PMIX_APP_INFO_ARRAY) || spx_key_eq(i->key, PMIX_SESSION_INFO_ARRAY))
        return NS_LATER;
    return NS_JOB;
}

static pmix_status_t ns_put_node(const struct spx_srv_ctx *ctx, struct spx_srv_ns *ns,
                                 const pmix_info_t *in, size_t n)
{
    if (!in)
        return PMIX_SUCCESS;
    bool mine = node_is_mine(ctx, in, n);
    if (!mine && spx_srv_ns_part_derivable(ns, in, n))
        return PMIX_SUCCESS; /* the maps give it (nspace_maps.c) */
    pmix_status_t rc = spx_jobparts_add_node(ns->info, ns->name, in, n);
    for (size_t k = 0; mine && k < n && rc == PMIX_SUCCESS; k++)
        rc = ns_put(ns, PMIX_RANK_WILDCARD, &in[k]);
    return rc;
}

static pmix_status_t ns_put_proc(struct spx_srv_ns *ns, const pmix_info_t *in, size_t n)
{
    uint32_t rank;
    if (!in || n == 0 || !spx_key_eq(in[0].key, PMIX_RANK) ||
        spx_value_to_u32(&in[0].value, &rank) != PMIX_SUCCESS) {
        spx_warn("namespace %s: %s without a leading %s ignored", ns->name, PMIX_PROC_DATA,
                 PMIX_RANK);
        return PMIX_SUCCESS;
    }
    if (spx_srv_ns_block_derivable(ns, rank, in + 1, n - 1))
        return PMIX_SUCCESS; /* another node's process, as the maps place it */
    if (ns_add_rank(ns, rank) != 0)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t k = 1; k < n && rc == PMIX_SUCCESS; k++)
        rc = ns_put(ns, rank, &in[k]);
    return rc;
}

/* In passes, so that what is filtered is filtered whatever the host's
 * order: the job level (the maps, this node's id and peers), then the node
 * arrays (this node's may hold its peers), then the process blocks, then
 * app and session keys where the job level did not say them. */
static pmix_status_t ns_parse(const struct spx_srv_ctx *ctx, struct spx_srv_ns *ns,
                              const pmix_info_t *info, size_t ninfo)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < ninfo && rc == PMIX_SUCCESS; i++)
        if (ns_entry_kind(&info[i]) == NS_JOB)
            rc = ns_put(ns, PMIX_RANK_WILDCARD, &info[i]);
    if (rc == PMIX_SUCCESS)
        spx_srv_ns_maps_load(ns);
    for (size_t i = 0; i < ninfo && rc == PMIX_SUCCESS; i++) {
        size_t n;
        const pmix_info_t *in = darray_infos(&info[i].value, &n);
        if (ns_entry_kind(&info[i]) == NS_NODE)
            rc = ns_put_node(ctx, ns, in, n);
    }
    if (rc == PMIX_SUCCESS && ns->my_node == UINT32_MAX) /* a node array said it */
        spx_srv_ns_maps_my_node(ns);
    for (size_t i = 0; i < ninfo && rc == PMIX_SUCCESS; i++) {
        size_t n;
        const pmix_info_t *in = darray_infos(&info[i].value, &n);
        if (ns_entry_kind(&info[i]) == NS_PROC)
            rc = ns_put_proc(ns, in, n);
    }
    /* app and session keys fill in what the job level did not say
     * (one app per job is what clients can ask for through rank WILDCARD) */
    for (size_t i = 0; i < ninfo && rc == PMIX_SUCCESS; i++) {
        if (ns_entry_kind(&info[i]) != NS_LATER)
            continue;
        size_t n;
        const pmix_info_t *in = darray_infos(&info[i].value, &n);
        if (in && spx_key_eq(info[i].key, PMIX_APP_INFO_ARRAY))
            rc = spx_jobparts_add_app(ns->info, ns->name, in, n);
        else if (in)
            rc = spx_jobparts_add_session(ns->info, ns->name, in, n);
        for (size_t k = 0; in && k < n && rc == PMIX_SUCCESS; k++)
            if (!spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, in[k].key, NULL))
                rc = ns_put(ns, PMIX_RANK_WILDCARD, &in[k]);
    }
    if (rc == PMIX_SUCCESS)
        rc = spx_srv_ns_derive_keys(ns);
    if (rc == PMIX_SUCCESS && ns->nlocalprocs >= 0 &&
        !spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, NULL)) {
        pmix_value_t v = {.type = PMIX_UINT32};
        v.data.uint32 = (uint32_t)ns->nlocalprocs;
        rc = spx_store_put(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, &v,
                           PMIX_GLOBAL);
    }
    return rc;
}

static void ns_free(struct spx_srv_ns *ns)
{
    if (!ns)
        return;
    struct spx_srv_client *c;
    while ((c = SLIST_FIRST(&ns->clients))) {
        SLIST_REMOVE_HEAD(&ns->clients, link);
        if (c->peer)
            c->peer->client = NULL;
        free(c->exe);
        free(c);
    }
    spx_srv_cleanup_free(ns);
    free(ns->cmd_line);
    if (ns->info)
        spx_store_destroy(ns->info);
    free(ns->info_ranks);
    free(ns->local);
    free(ns->hello);
    spx_jobmap_fini(&ns->map);
    free(ns->nodes);
    spx_srv_shmf_free(ns->shmf);
    free(ns->departed);
    free(ns);
}

static struct spx_srv_ns *ns_build(const struct spx_srv_ctx *ctx, const char *name,
                                   int nlocalprocs, const pmix_info_t *info, size_t ninfo,
                                   pmix_status_t *rc)
{
    struct spx_srv_ns *ns = calloc(1, sizeof(*ns));
    if (!ns || !(ns->info = spx_store_create())) {
        free(ns);
        *rc = PMIX_ERR_NOMEM;
        return NULL;
    }
    snprintf(ns->name, sizeof(ns->name), "%s", name);
    ns->nlocalprocs = nlocalprocs;
    *rc = ns_parse(ctx, ns, info, ninfo);
    if (*rc == PMIX_SUCCESS)
        *rc = spx_srv_topo_add_xml(ns);
    if (*rc == PMIX_SUCCESS)
        *rc = spx_srv_ns_encode_hello(ns);
    if (*rc != PMIX_SUCCESS) {
        ns_free(ns);
        return NULL;
    }
    return ns;
}

/* ---- shifted operations ---- */

struct ns_call {
    struct spx_srv_ctx *ctx;      /* borrowed: the server of the entry point */
    spx_wait_t wait;
    bool blocking;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    struct spx_srv_ns *ns;        /* built namespace (register) */
    char name[PMIX_MAX_NSLEN + 1];
    pmix_proc_t proc;
    uid_t uid;
    gid_t gid;
    void *object;
};

static void call_finish(struct ns_call *c, pmix_status_t st)
{
    if (c->blocking) {
        spx_wait_signal(&c->wait, st);
        return;
    }
    if (c->cbfunc)
        c->cbfunc(st, c->cbdata);
    free(c);
}

/* Runs fn on the progress thread; blocking when c->blocking. */
static pmix_status_t call_run(struct ns_call *c, void (*fn)(void *))
{
    c->ctx = spx_srv; /* only the PMIx_server_* entry points below run calls */
    if (!c->blocking)
        return spx_progress_shift(fn, c) == 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_AVAILABLE;
    spx_wait_init(&c->wait);
    pmix_status_t rc = PMIX_ERR_NOT_AVAILABLE;
    if (spx_progress_shift(fn, c) == 0)
        rc = spx_wait_block(&c->wait);
    spx_wait_fini(&c->wait);
    return rc;
}

static void do_register_nspace(void *arg)
{
    struct ns_call *c = arg;
    struct spx_srv_ctx *ctx = c->ctx;
    struct spx_srv_ns *old = spx_srv_ns_find(ctx, c->ns->name);
    /* the shared-memory fence is made here, on the progress thread, so that a
     * re-registration can end the old one first (its clients mapped it) */
    if (old)
        spx_srv_shmf_break(old, PMIX_ERR_NOT_AVAILABLE, false);
    if (spx_srv_shmf_setup(ctx, c->ns) == PMIX_SUCCESS && c->ns->shmf &&
        (spx_srv_gshm_setup(ctx, c->ns) != PMIX_SUCCESS ||
         spx_srv_ns_encode_hello(c->ns) != PMIX_SUCCESS))
        spx_srv_shmf_free(spx_srv_shmf_take(c->ns));
    if (old) { /* re-registration: new job info, same clients and cleanups */
        c->ns->clients = old->clients; /* an SLIST head moves as it is */
        c->ns->cleanups = old->cleanups;
        SLIST_INIT(&old->clients);
        SLIST_INIT(&old->cleanups);
        struct spx_srv_client *cl;
        SLIST_FOREACH(cl, &c->ns->clients, link)
            cl->ns = c->ns;
        struct spx_srv_ns *x;
        LIST_FOREACH(x, &ctx->nspaces, link)
            if (x == old) {
                LIST_REMOVE(old, link);
                break;
            }
        ns_free(old);
    }
    LIST_INSERT_HEAD(&ctx->nspaces, c->ns, link);
    c->ns = NULL;
    /* tools find the server once it has a job to show them: a tool that
     * came between init and the job's registration would not find it */
    if (ctx->tool_support && ctx->tool_dir && !ctx->tool_file)
        (void)spx_srv_rendezvous_write(ctx, ctx->tool_dir);
    call_finish(c, PMIX_SUCCESS);
}

SPX_EXPORT pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace, int nlocalprocs,
                                                     pmix_info_t info[], size_t ninfo,
                                                     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_server_active())
        return PMIX_ERR_INIT;
    if (!nspace || (ninfo && !info))
        return PMIX_ERR_BAD_PARAM;
    if (!cbfunc && spx_progress_guard("PMIx_server_register_nspace") != PMIX_SUCCESS)
        return PMIX_ERR_WOULD_BLOCK;
    struct ns_call *c = calloc(1, sizeof(*c));
    if (!c)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc;
    c->ns = ns_build(spx_srv, nspace, nlocalprocs, info, ninfo, &rc);
    if (!c->ns) {
        free(c);
        return rc;
    }
    spx_debug("namespace %s registered: %d local procs, %zu info, hello %zu bytes", nspace,
              nlocalprocs, ninfo, c->ns->hello_len);
    c->blocking = !cbfunc;
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    bool blocking = c->blocking; /* c may be freed by the callback once shifted */
    rc = call_run(c, do_register_nspace);
    if (blocking || rc != PMIX_SUCCESS) {
        ns_free(c->ns);
        free(c);
    }
    return rc;
}

static void do_deregister_nspace(void *arg)
{
    struct ns_call *c = arg;
    struct spx_srv_ctx *ctx = c->ctx;
    struct spx_srv_ns *ns;
    LIST_FOREACH(ns, &ctx->nspaces, link)
        if (strncmp(ns->name, c->name, PMIX_MAX_NSLEN) == 0) {
            LIST_REMOVE(ns, link);
            break;
        }
    if (ns) {
        struct spx_srv_client *cl;
        SLIST_FOREACH(cl, &ns->clients, link) {
            pmix_proc_t p;
            spx_proc_load(&p, ns->name, cl->rank);
            spx_srv_get_target_gone(ctx, ns->name, cl->rank);
            if (ctx->fence)
                spx_fence_proc_lost(ctx->fence, &p);
            spx_srv_engines_proc_gone(ctx, &p, cl->finalized);
            if (cl->connected_once && !cl->finalized)
                ctx->local_failure = true;
        }
        spx_srv_engines_nspace_gone(ctx, ns->name);
        spx_srv_shmf_break(ns, PMIX_ERR_NOT_AVAILABLE, false);
        spx_srv_cleanup_run(ns);
        spx_store_remove_nspace(ctx->store, ns->name);
        ns_free(ns);
    }
    call_finish(c, PMIX_SUCCESS);
}

SPX_EXPORT void PMIx_server_deregister_nspace(const pmix_nspace_t nspace,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_status_t rc = PMIX_ERR_INIT;
    struct ns_call *c = NULL;
    if (spx_server_active() && nspace && (c = calloc(1, sizeof(*c)))) {
        snprintf(c->name, sizeof(c->name), "%s", nspace);
        /* without a callback: wait, unless that would block the progress thread */
        c->blocking = !cbfunc && !spx_progress_on_thread();
        c->cbfunc = cbfunc;
        c->cbdata = cbdata;
        bool blocking = c->blocking; /* c may be freed by the callback once shifted */
        rc = call_run(c, do_deregister_nspace);
        if (blocking || rc != PMIX_SUCCESS)
            free(c);
        if (!cbfunc || rc == PMIX_SUCCESS)
            return;
    } else if (!c && nspace && spx_server_active()) {
        rc = PMIX_ERR_NOMEM;
    }
    if (cbfunc)
        cbfunc(rc, cbdata);
}

static void do_register_client(void *arg)
{
    struct ns_call *c = arg;
    struct spx_srv_ctx *ctx = c->ctx;
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, c->proc.nspace);
    pmix_status_t rc = PMIX_SUCCESS;
    if (!ns) { /* client before its namespace: keep a placeholder */
        ns = ns_build(ctx, c->proc.nspace, -1, NULL, 0, &rc);
        if (ns) {
            LIST_INSERT_HEAD(&ctx->nspaces, ns, link);
        }
    }
    struct spx_srv_client *cl = ns ? spx_srv_client_find(ctx, ns->name, c->proc.rank) : NULL;
    if (ns && !cl && (cl = calloc(1, sizeof(*cl)))) {
        cl->ns = ns;
        cl->rank = c->proc.rank;
        SLIST_INSERT_HEAD(&ns->clients, cl, link);
    }
    if (cl) {
        cl->uid = c->uid;
        cl->gid = c->gid;
        cl->server_object = c->object;
    } else if (rc == PMIX_SUCCESS) {
        rc = PMIX_ERR_NOMEM;
    }
    call_finish(c, rc);
}

SPX_EXPORT pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc, uid_t uid,
                                                     gid_t gid, void *server_object,
                                                     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_server_active())
        return PMIX_ERR_INIT;
    if (!proc || proc->rank >= PMIX_RANK_VALID)
        return PMIX_ERR_BAD_PARAM;
    if (!cbfunc && spx_progress_guard("PMIx_server_register_client") != PMIX_SUCCESS)
        return PMIX_ERR_WOULD_BLOCK;
    struct ns_call *c = calloc(1, sizeof(*c));
    if (!c)
        return PMIX_ERR_NOMEM;
    spx_proc_load(&c->proc, proc->nspace, proc->rank);
    c->uid = uid;
    c->gid = gid;
    c->object = server_object;
    c->blocking = !cbfunc;
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    bool blocking = c->blocking; /* c may be freed by the callback once shifted */
    pmix_status_t rc = call_run(c, do_register_client);
    if (blocking || rc != PMIX_SUCCESS)
        free(c);
    return rc;
}

bool spx_srv_ns_departed(const struct spx_srv_ns *ns, pmix_rank_t rank)
{
    for (size_t i = 0; ns && i < ns->ndeparted; i++)
        if (ns->departed[i] == rank)
            return true;
    return false;
}

/* Remembers that rank's client went (spx_srv_ns_departed). */
static void ns_note_departed(struct spx_srv_ns *ns, pmix_rank_t rank)
{
    if (spx_srv_ns_departed(ns, rank))
        return;
    if (ns->ndeparted == ns->cdeparted) {
        size_t nc = ns->cdeparted ? 2 * ns->cdeparted : 8;
        pmix_rank_t *d = realloc(ns->departed, nc * sizeof(*d));
        if (!d)
            return; /* a late join then waits for the namespace's end instead */
        ns->departed = d;
        ns->cdeparted = nc;
    }
    ns->departed[ns->ndeparted++] = rank;
}

static void do_deregister_client(void *arg)
{
    struct ns_call *c = arg;
    struct spx_srv_ctx *ctx = c->ctx;
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, c->proc.nspace);
    for (struct spx_srv_client *cl = ns ? SLIST_FIRST(&ns->clients) : NULL; cl;
         cl = SLIST_NEXT(cl, link)) {
        if (cl->rank != c->proc.rank)
            continue;
        SLIST_REMOVE(&ns->clients, cl, spx_srv_client, link); /* the first of that rank */
        ns_note_departed(ns, cl->rank);
        spx_srv_get_target_gone(ctx, ns->name, cl->rank);
        if (ctx->fence)
            spx_fence_proc_lost(ctx->fence, &c->proc);
        spx_srv_engines_proc_gone(ctx, &c->proc, cl->finalized);
        if (!cl->finalized) {
            spx_srv_shmf_break(ns, PMIX_ERR_PROC_ABORTED, true);
            ctx->local_failure |= cl->connected_once;
        }
        if (cl->peer) {
            cl->peer->client = NULL;
            spx_srv_peer_close(cl->peer, "client deregistered by the host");
        }
        if (ctx->mn && !cl->finalized && cl->connected_once)
            spx_srv_relay_proc_lost(ctx, &c->proc, true);
        spx_store_remove_proc(ctx->store, ns->name, cl->rank);
        if (ctx->delta)
            spx_delta_forget(ctx->delta, &c->proc);
        free(cl->exe);
        free(cl);
        break;
    }
    call_finish(c, PMIX_SUCCESS);
}

SPX_EXPORT void PMIx_server_deregister_client(const pmix_proc_t *proc, pmix_op_cbfunc_t cbfunc,
                                              void *cbdata)
{
    pmix_status_t rc = PMIX_ERR_INIT;
    struct ns_call *c = NULL;
    if (spx_server_active() && proc && (c = calloc(1, sizeof(*c)))) {
        spx_proc_load(&c->proc, proc->nspace, proc->rank);
        c->blocking = !cbfunc && !spx_progress_on_thread();
        c->cbfunc = cbfunc;
        c->cbdata = cbdata;
        bool blocking = c->blocking; /* c may be freed by the callback once shifted */
        rc = call_run(c, do_deregister_client);
        if (blocking || rc != PMIX_SUCCESS)
            free(c);
        if (!cbfunc || rc == PMIX_SUCCESS)
            return;
    } else if (!c && proc && spx_server_active()) {
        rc = PMIX_ERR_NOMEM;
    }
    if (cbfunc)
        cbfunc(rc, cbdata);
}

void spx_srv_ns_free_all(struct spx_srv_ctx *ctx)
{
    struct spx_srv_ns *ns;
    while ((ns = LIST_FIRST(&ctx->nspaces))) {
        LIST_REMOVE(ns, link);
        ns_free(ns);
    }
}

/* ---- the local processes of a participant set ---- */

static int add_set_member(pmix_proc_t **out, size_t *n, size_t *cap, const char *ns,
                          pmix_rank_t r)
{
    for (size_t i = 0; i < *n; i++)
        if ((*out)[i].rank == r && strncmp((*out)[i].nspace, ns, PMIX_MAX_NSLEN) == 0)
            return 0;
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        pmix_proc_t *np = realloc(*out, nc * sizeof(*np));
        if (!np)
            return -1;
        *out = np;
        *cap = nc;
    }
    spx_proc_load(&(*out)[(*n)++], ns, r);
    return 0;
}

size_t spx_srv_set_local_members(struct spx_srv_ctx *ctx, const pmix_proc_t *set, size_t nset,
                                 bool without_finalized, pmix_proc_t **out, pmix_status_t *gone)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    for (size_t i = 0; i < nset; i++) {
        struct spx_srv_ns *ns = spx_srv_ns_find(ctx, set[i].nspace);
        if (!ns)
            continue;
        if (set[i].rank == PMIX_RANK_WILDCARD) {
            pmix_rank_t *r;
            size_t nr = spx_srv_ns_local_ranks(ns, &r);
            for (size_t k = 0; k < nr; k++)
                add_set_member(out, &n, &cap, ns->name, r[k]);
            free(r);
        } else if (spx_srv_proc_is_local(ctx, ns->name, set[i].rank)) {
            add_set_member(out, &n, &cap, ns->name, set[i].rank);
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        struct spx_srv_client *cl = spx_srv_client_find(ctx, (*out)[i].nspace, (*out)[i].rank);
        if (cl && cl->finalized && without_finalized)
            continue; /* it left the job in order: the fence goes on without it */
        if (cl && cl->finalized)
            *gone = PMIX_ERR_PROC_ABORTED;
        if (cl && cl->connected_once && !cl->peer)
            *gone = PMIX_ERR_PROC_ABORTED;
        (*out)[kept++] = (*out)[i];
    }
    n = kept;
    pmix_status_t st = ctx->mn ? spx_srv_mn_set_gone(ctx, set, nset, without_finalized) : PMIX_SUCCESS;
    if (st != PMIX_SUCCESS)
        *gone = st;
    return n;
}
