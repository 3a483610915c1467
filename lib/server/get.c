/* get.c - GET requests from clients and dmodex requests from the host.
 *
 * A GET looks for (target, key) in the server's store (committed data of
 * local processes, filtered by scope; data fences delivered for remote ones)
 * and then in the namespace's job info; a GET of rank WILDCARD qualified
 * with PMIX_NODE_INFO or PMIX_APP_INFO is answered from that node's or
 * app's part of the job info alone (store/jobparts.h), and a key the job
 * info implies (PMIX_LOCAL_PROCS) is computed from it (store/jobderived.h).
 * A miss on a local target that has not said its last word is held on
 * ctx->gets until that process commits the key, its PMIX_TIMEOUT expires,
 * or it finalizes / goes away. Misses that nobody will fill are
 * PMIX_ERR_NOT_FOUND at once, without a request to another node: a
 * reserved ("pmix.") key, which comes from the host's job info or not at
 * all (except a local peer's cpuset and locality, which its HELLO brings:
 * waited for until then, briefly), and any key asked for with
 * PMIX_IMMEDIATE (the answer is what this server holds now). A dmodex request
 * of the host for a local process that has not committed yet is held the
 * same way (without timeout) and answered at its first commit (not at its
 * HELLO); one for a process that will never commit (finalized, gone,
 * deregistered, its namespace deregistered) fails with PMIX_ERR_NOT_FOUND.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_get.h"

#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "proto/records.h"
#include "server/server.h"
#include "store/jobderived.h"
#include "store/jobparts.h"
#include "types/types.h"
#include "util/log.h"

struct spx_srv_get {
    struct spx_srv_ctx *ctx;        /* borrowed: the server holding it (on ctx->gets) */
    LIST_ENTRY(spx_srv_get) link;   /* in ctx->gets, newest first */
    struct spx_srv_peer *peer;      /* referenced; NULL for a dmodex request */
    uint32_t seq;
    pmix_proc_t requester;
    pmix_proc_t target;
    char key[PMIX_MAX_KEYLEN + 1];
    spx_timer_t *timer;             /* NULL when no timeout */
    bool until_hello;               /* answered when the target has said hello */
    pmix_dmodex_response_fn_t dmx_cb;
    void *dmx_arg;
};

bool spx_srv_proc_visible(const struct spx_srv_ctx *ctx, const pmix_proc_t *requester,
                          const char *nspace, pmix_rank_t rank, pmix_scope_t scope)
{
    if (!spx_srv_proc_is_local(ctx, nspace, rank))
        return scope != PMIX_INTERNAL; /* what fences delivered was meant to travel */
    if (requester && requester->rank == rank &&
        strncmp(requester->nspace, nspace, PMIX_MAX_NSLEN) == 0)
        return true;
    return scope == PMIX_LOCAL || scope == PMIX_GLOBAL;
}

const pmix_value_t *spx_srv_get_lookup(struct spx_srv_ctx *ctx, const pmix_proc_t *requester,
                                      const pmix_proc_t *target, const char *key)
{
    pmix_scope_t scope;
    const pmix_value_t *v;
    if (target->rank != PMIX_RANK_WILDCARD) {
        v = spx_store_peek(ctx->store, target->nspace, target->rank, key, &scope);
        if (v && spx_srv_proc_visible(ctx, requester, target->nspace, target->rank, scope))
            return v;
    }
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, target->nspace);
    if (!ns)
        return NULL;
    if ((v = spx_store_peek(ns->info, ns->name, target->rank, key, NULL)))
        return v;
    if (target->rank != PMIX_RANK_WILDCARD && spx_key_is_reserved(key))
        return spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, key, NULL);
    return NULL;
}

void spx_srv_get_reply(struct spx_srv_peer *p, uint32_t seq, pmix_status_t st,
                      const pmix_value_t *v)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, st);
    if (st == PMIX_SUCCESS)
        spx_codec_push_value(&b, v);
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        spx_buf_init(&b);
        spx_buf_push_i32(&b, PMIX_ERR_NOMEM);
    }
    spx_srv_reply(p, SPX_MSG_GET, seq, &b);
}

/* The rest of a process's record, sent with a GET's answer so that the
 * client's next reads of that process need no round trip. */
#define SPX_SRV_RECORD_MAX_ENTRIES 256
#define SPX_SRV_RECORD_MAX_BYTES (64u << 10)

struct record_ctx {
    const struct spx_srv_ctx *ctx;
    const pmix_proc_t *requester;
    const pmix_proc_t *target;
    const char *skip;            /* the key answered already */
    bool past;                   /* the walk is past that key */
    spx_buf_t *entries;
    uint32_t n;
};

static int record_entry(const char *key, const pmix_value_t *val, pmix_scope_t scope,
                        uint64_t seq, void *arg)
{
    (void)seq;
    struct record_ctx *c = arg;
    /* the entries written after the one asked for: a process reading a
     * peer's keys in the order they were put finds the next ones cached */
    if (!c->past) {
        c->past = strcmp(key, c->skip) == 0;
        return 0;
    }
    if (!val ||
        !spx_srv_proc_visible(c->ctx, c->requester, c->target->nspace, c->target->rank, scope))
        return 0;
    if (c->n >= SPX_SRV_RECORD_MAX_ENTRIES || c->entries->len >= SPX_SRV_RECORD_MAX_BYTES)
        return 1;
    spx_buf_push_str(c->entries, key);
    spx_codec_push_value(c->entries, val);
    c->n++;
    return 0;
}

/* A successful GET answer plus, for another process's committed or
 * delivered data, the rest of its record (msg.h). */
static void reply_with_record(struct spx_srv_peer *p, uint32_t seq, const pmix_proc_t *target,
                              const char *key, const pmix_value_t *v)
{
    spx_buf_t b, entries;
    spx_buf_init(&b);
    spx_buf_init(&entries);
    spx_buf_push_i32(&b, PMIX_SUCCESS);
    spx_codec_push_value(&b, v);
    struct record_ctx c = {.ctx = p->ctx, .requester = &p->proc, .target = target, .skip = key,
                           .past = false, .entries = &entries, .n = 0};
    if (target->rank != PMIX_RANK_WILDCARD && !spx_proc_eq(&p->proc, target))
        spx_store_foreach_since(p->ctx->store, target->nspace, target->rank, 0, record_entry,
                                &c);
    if (c.n > 0 && !spx_buf_failed(&entries)) {
        spx_buf_push_u32(&b, c.n);
        spx_buf_push_raw(&b, entries.data, entries.len);
    }
    spx_buf_fini(&entries);
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        spx_srv_get_reply(p, seq, PMIX_SUCCESS, v);
        return;
    }
    spx_srv_reply(p, SPX_MSG_GET, seq, &b);
}

static void held_unlink(struct spx_srv_get *g)
{
    struct spx_srv_get *x;
    LIST_FOREACH(x, &g->ctx->gets, link)
        if (x == g) {
            LIST_REMOVE(g, link);
            return;
        }
}

/* Answers a held request with st (value v for a GET) and frees it. */
static void held_finish(struct spx_srv_get *g, pmix_status_t st, const pmix_value_t *v)
{
    held_unlink(g);
    if (g->timer)
        spx_timer_cancel(g->timer);
    if (g->peer) {
        spx_srv_get_reply(g->peer, g->seq, st, v);
        spx_srv_peer_unref(g->peer);
    } else if (g->dmx_cb) {
        g->dmx_cb(st, NULL, 0, g->dmx_arg);
    }
    free(g);
}

static void held_timeout(void *arg)
{
    struct spx_srv_get *g = arg;
    g->timer = NULL; /* fired */
    spx_debug("GET %s of %s:%u timed out", g->key, g->target.nspace, (unsigned)g->target.rank);
    /* a peer that never said hello has no cpuset or locality to give */
    held_finish(g, g->until_hello ? PMIX_ERR_NOT_FOUND : PMIX_ERR_TIMEOUT, NULL);
}

/* The target may still commit a (non-reserved) key: it is local, registered and alive. */
static bool target_may_commit(const struct spx_srv_ctx *ctx, const pmix_proc_t *target)
{
    if (target->rank == PMIX_RANK_WILDCARD ||
        !spx_srv_proc_is_local(ctx, target->nspace, target->rank))
        return false;
    struct spx_srv_client *cl = spx_srv_client_find(ctx, target->nspace, target->rank);
    return !(cl && (cl->finalized || (cl->connected_once && !cl->peer)));
}

/* seconds a Get of a local peer's cpuset or locality waits for its HELLO */
#define SPX_SRV_EARLY_LOCALITY_WAIT 2

int spx_srv_handle_get(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    struct spx_srv_ctx *ctx = p->ctx;
    pmix_proc_t target;
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    if (spx_codec_pull_proc(b, &target) != 0)
        return -1;
    spx_buf_pull_str_into(b, key, sizeof(key));
    if (spx_buf_failed(b) || spx_codec_pull_info_array(b, &info, &ninfo) != 0)
        return -1;
    if (spx_buf_finish(b) != 0) {
        spx_info_array_free(info, ninfo);
        return -1;
    }
    target.nspace[PMIX_MAX_NSLEN] = '\0';
    bool optional = spx_info_flag(info, ninfo, PMIX_OPTIONAL);
    bool immediate = spx_info_flag(info, ninfo, PMIX_IMMEDIATE);
    long timeout = spx_srv_info_int(info, ninfo, PMIX_TIMEOUT, 0);
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, target.nspace);
    pmix_status_t qrc;
    pmix_value_t dv = {.type = PMIX_UNDEF};
    if (ns && spx_jobderived_get(ns->info, ns->name, target.rank, key, info, ninfo, &qrc, &dv)) {
        spx_info_array_free(info, ninfo); /* computed from the job info, all there is */
        spx_srv_get_reply(p, seq, qrc, &dv);
        PMIx_Value_destruct(&dv);
        return 0;
    }
    if (target.rank != PMIX_RANK_WILDCARD)
        ns = NULL;
    const pmix_value_t *v = NULL;
    bool qualified = ns && spx_jobparts_lookup(ns->info, ns->name, key, info, ninfo, &qrc, &v);
    spx_info_array_free(info, ninfo);
    if (qualified) { /* node or app info: the registered info is all there is */
        if (qrc == PMIX_SUCCESS)
            reply_with_record(p, seq, &target, key, v);
        else
            spx_srv_get_reply(p, seq, qrc, NULL);
        return 0;
    }

    v = spx_srv_get_lookup(ctx, &p->proc, &target, key);
    if (v) {
        reply_with_record(p, seq, &target, key, v);
        return 0;
    }
    /* reserved keys come from the host's job info or not at all: never
     * waited for, never asked of another node; PMIX_OPTIONAL and
     * PMIX_IMMEDIATE: only what is here already */
    bool reserved = spx_key_is_reserved(key);
    if (ctx->mn && !optional && !immediate && !reserved && target.rank != PMIX_RANK_WILDCARD &&
        !spx_srv_proc_is_local(ctx, target.nspace, target.rank) &&
        spx_srv_dmx_get(p, seq, &p->proc, &target, key, optional, timeout))
        return 0; /* asked of the target's node */
    /* but a local peer reports its cpus with its HELLO: an ask for its
     * cpuset or locality before that waits for it, briefly */
    struct spx_srv_client *tc =
        immediate ? NULL : spx_srv_client_find(ctx, target.nspace, target.rank);
    bool early_locality = tc && !tc->connected_once &&
                          (spx_key_eq(key, PMIX_LOCALITY_STRING) || spx_key_eq(key, PMIX_CPUSET));
    if (early_locality && timeout <= 0)
        timeout = SPX_SRV_EARLY_LOCALITY_WAIT;
    if (!early_locality &&
        (optional || immediate || reserved || !target_may_commit(ctx, &target))) {
        spx_srv_get_reply(p, seq, PMIX_ERR_NOT_FOUND, NULL);
        return 0;
    }
    struct spx_srv_get *g = calloc(1, sizeof(*g));
    if (!g) {
        spx_srv_get_reply(p, seq, PMIX_ERR_NOMEM, NULL);
        return 0;
    }
    g->ctx = ctx;
    g->peer = p;
    spx_srv_peer_ref(p);
    g->seq = seq;
    g->until_hello = early_locality;
    g->requester = p->proc;
    g->target = target;
    memcpy(g->key, key, sizeof(g->key));
    if (timeout > 0 && !(g->timer = spx_timer_start((double)timeout, held_timeout, g))) {
        spx_srv_peer_unref(p);
        free(g);
        spx_srv_get_reply(p, seq, PMIX_ERR_NOMEM, NULL);
        return 0;
    }
    LIST_INSERT_HEAD(&ctx->gets, g, link);
    spx_debug("%s: GET %s of %s:%u held until it is committed", p->name, key, target.nspace,
              (unsigned)target.rank);
    return 0;
}

/* Answers a held dmodex request: the target's record with what may leave the node. */
static void dmodex_answer(struct spx_srv_get *g)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_records_push_proc(&b, g->ctx->store, g->target.nspace, g->target.rank, 0,
                          SPX_SCOPES_REMOTE, true, NULL);
    held_unlink(g);
    if (spx_buf_failed(&b)) {
        g->dmx_cb(PMIX_ERR_NOMEM, NULL, 0, g->dmx_arg);
    } else {
        g->dmx_cb(PMIX_SUCCESS, (char *)b.data, b.len, g->dmx_arg);
    }
    spx_buf_fini(&b);
    free(g);
}

static void recheck_held(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank);

void spx_srv_get_committed(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank)
{
    if (ctx->mn)
        spx_srv_dmx_committed(ctx, nspace, rank);
    recheck_held(ctx, nspace, rank);
}

void spx_srv_get_target_hello(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank)
{
    recheck_held(ctx, nspace, rank);
}

/* Answers the held GETs of (nspace, rank) that can be answered now. */
static void recheck_held(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank)
{
    struct spx_srv_get *g, *next;
    for (g = LIST_FIRST(&ctx->gets); g; g = next) {
        next = LIST_NEXT(g, link);
        if (g->target.rank != rank || strncmp(g->target.nspace, nspace, PMIX_MAX_NSLEN) != 0)
            continue;
        if (!g->peer) {
            /* a dmodex request waits for a commit: a HELLO (or a PMI
             * client's connect) brings no data */
            struct spx_srv_client *cl = spx_srv_client_find(ctx, nspace, rank);
            if (!cl || !cl->committed)
                continue;
            dmodex_answer(g);
            next = LIST_FIRST(&ctx->gets); /* list changed */
            continue;
        }
        const pmix_value_t *v = spx_srv_get_lookup(ctx, &g->requester, &g->target, g->key);
        struct spx_srv_client *tc = g->until_hello && !v
                                        ? spx_srv_client_find(ctx, nspace, rank) : NULL;
        if (v || (tc && tc->connected_once)) {
            held_finish(g, v ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, v);
            next = LIST_FIRST(&ctx->gets);
        }
    }
}

/* Fails the held requests of every target (all), of peer, or of target
 * (nspace, rank) - of every rank of nspace for rank WILDCARD (no request
 * held here targets WILDCARD). */
static void fail_matching(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank,
                          const struct spx_srv_peer *peer, bool all, pmix_status_t st)
{
    struct spx_srv_get *g, *next;
    for (g = LIST_FIRST(&ctx->gets); g; g = next) {
        next = LIST_NEXT(g, link);
        bool hit = all || (peer && g->peer == peer) ||
                   (nspace && (rank == PMIX_RANK_WILDCARD || g->target.rank == rank) &&
                    strncmp(g->target.nspace, nspace, PMIX_MAX_NSLEN) == 0);
        if (!hit)
            continue;
        held_finish(g, st, NULL);
        next = LIST_FIRST(&ctx->gets);
    }
}

void spx_srv_get_target_gone(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank)
{
    fail_matching(ctx, nspace, rank, NULL, false, PMIX_ERR_NOT_FOUND);
    if (ctx->mn)
        spx_srv_dmx_target_gone(ctx, nspace, rank);
}

void spx_srv_get_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace)
{
    fail_matching(ctx, nspace, PMIX_RANK_WILDCARD, NULL, false, PMIX_ERR_NOT_FOUND);
}

void spx_srv_get_requester_gone(struct spx_srv_peer *p)
{
    fail_matching(p->ctx, NULL, 0, p, false, PMIX_ERR_UNREACH); /* reply goes nowhere */
}

void spx_srv_get_fail_all(struct spx_srv_ctx *ctx)
{
    fail_matching(ctx, NULL, 0, NULL, true, PMIX_ERR_NOT_AVAILABLE);
}

/* ---- PMIx_server_dmodex_request ---- */

static void do_dmodex(void *arg)
{
    struct spx_srv_get *g = arg;
    struct spx_srv_ctx *ctx = g->ctx;
    struct spx_srv_client *cl = spx_srv_client_find(ctx, g->target.nspace, g->target.rank);
    if (ctx->active && ctx->mn &&
        !spx_srv_proc_is_local(ctx, g->target.nspace, g->target.rank) &&
        spx_srv_dmx_host(ctx, &g->target, g->dmx_cb, g->dmx_arg)) {
        free(g); /* asked of the target's node */
        return;
    }
    /* a client gone without committing, or deregistered, will never commit */
    struct spx_srv_ns *ns = cl ? NULL : spx_srv_ns_find(ctx, g->target.nspace);
    if (!ctx->active || !spx_srv_proc_is_local(ctx, g->target.nspace, g->target.rank) ||
        (cl && (cl->finalized || (cl->connected_once && !cl->peer)) && !cl->committed) ||
        (!cl && ns && spx_srv_ns_departed(ns, g->target.rank))) {
        g->dmx_cb(PMIX_ERR_NOT_FOUND, NULL, 0, g->dmx_arg);
        free(g);
        return;
    }
    LIST_INSERT_HEAD(&ctx->gets, g, link);
    if (cl && cl->committed)
        dmodex_answer(g);
}

SPX_EXPORT pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
                                                    pmix_dmodex_response_fn_t cbfunc,
                                                    void *cbdata)
{
    if (!spx_server_active())
        return PMIX_ERR_INIT;
    if (!proc || !cbfunc || proc->rank == PMIX_RANK_WILDCARD)
        return PMIX_ERR_BAD_PARAM;
    struct spx_srv_get *g = calloc(1, sizeof(*g));
    if (!g)
        return PMIX_ERR_NOMEM;
    g->ctx = spx_srv; /* the entry point's server */
    spx_proc_load(&g->target, proc->nspace, proc->rank);
    g->dmx_cb = cbfunc;
    g->dmx_arg = cbdata;
    if (spx_progress_shift(do_dmodex, g) != 0) {
        free(g);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return PMIX_SUCCESS;
}
