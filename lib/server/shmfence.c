/* shmfence.c - the server's side of the shared-memory fence
 * (proto/shm_barrier.h): one segment per namespace whose local processes
 * are all known (PMIX_LOCAL_PEERS names nlocalprocs ranks).
 *
 * Whole-namespace fences of such a namespace all go through the segment:
 *   - a client's blocking PMIx_Fence arrives there directly;
 *   - a FENCE request on the socket (PMIx_Fence_nb with a callback, or a
 *     PMIX_TIMEOUT directive) is arrived by this server on the client's
 *     behalf and answered when its generation is released;
 *   - when the last arrival cannot release by itself, the gather is closed
 *     and this server finishes it (FENCE_LOCAL frame, or at once when the
 *     last arrival came through the socket): it waits until every COMMIT
 *     the clients counted has been applied, then releases at once (all of
 *     the job on this node) or hands the fence to the fence engine as one
 *     arrival per local process, exactly as if each had sent FENCE, so the
 *     tree, delta exchange and timeouts work unchanged; the engine's
 *     answers release the generation.
 * A lost local process, a lost remote process or node of the namespace, and
 * the namespace's end break the segment: waiters and later arrivals fail.
 * A node of the namespace that ended in order does not: its processes all
 * finalized, and fences go on without it. A local process
 * that finalized retires the segment (spx_srv_shmf_retire): arrivals then
 * get SPX_SHMB_USE_SOCKET and go through the fence engine, which counts only
 * the processes that have not finalized (the segment counts them all).
 * Everything here runs on the server's progress thread.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_fence.h"

#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "proto/shm_barrier.h"
#include "types/types.h"
#include "util/log.h"
#include "util/trace.h"

/* A FENCE request that came through the socket. */
struct sock_waiter {
    TAILQ_ENTRY(sock_waiter) link; /* in its shmf's waiters, in arrival order */
    char nspace[PMIX_MAX_NSLEN + 1];
    struct spx_srv_peer *peer;    /* referenced */
    uint32_t seq;
    uint32_t slot;
    bool collect;
    bool arrived;                 /* false: deferred (its slot was busy) */
    uint32_t gen;
    long timeout;                 /* seconds asked, 0 for none */
    spx_timer_t *timer;           /* the timeout, or NULL */
};

struct spx_srv_shmf {
    struct spx_srv_ctx *ctx;      /* borrowed: the server it belongs to */
    char nspace[PMIX_MAX_NSLEN + 1];
    spx_shmb_t *seg;
    pmix_rank_t *ranks;           /* local ranks, ascending: slot i is ranks[i] (owned) */
    uint32_t nlocal;
    TAILQ_HEAD(, sock_waiter) waiters; /* FENCE requests of the socket, oldest first (owned) */
    spx_timer_t *retry;           /* re-tries deferred socket arrivals, or NULL */
    bool recoverable;             /* broken only because a local process went away */
    bool parked;                  /* a closed gather waits for commits */
    uint32_t parked_gen, parked_ncollect;
    bool retired;                 /* a local process finalized: fences take the socket */
};

struct spx_srv_shmf_batch {       /* one engine run of a closed gather */
    struct spx_srv_ctx *ctx;      /* borrowed */
    char nspace[PMIX_MAX_NSLEN + 1];
    uint32_t gen;
    size_t remaining;
    pmix_status_t status;
};

static int rank_cmp(const void *a, const void *b)
{
    pmix_rank_t x = *(const pmix_rank_t *)a, y = *(const pmix_rank_t *)b;
    return x < y ? -1 : x > y;
}

static bool shm_fence_enabled(void)
{
    const char *e = getenv(SPX_SHMB_ENV);
    return !e || strcmp(e, "0") != 0;
}

pmix_status_t spx_srv_shmf_setup(struct spx_srv_ctx *ctx, struct spx_srv_ns *ns)
{
    static unsigned serial;
    if (!shm_fence_enabled() || !ctx->dir || !ns->local || ns->nlocal == 0 ||
        ns->nlocalprocs < 0 || (size_t)ns->nlocalprocs != ns->nlocal ||
        ns->nlocal > SPX_SHMB_MAX_LOCAL)
        return PMIX_SUCCESS;
    struct spx_srv_shmf *f = calloc(1, sizeof(*f));
    if (!f || !(f->ranks = malloc(ns->nlocal * sizeof(*f->ranks)))) {
        free(f);
        return PMIX_ERR_NOMEM;
    }
    f->ctx = ctx;
    TAILQ_INIT(&f->waiters);
    memcpy(f->ranks, ns->local, ns->nlocal * sizeof(*f->ranks));
    snprintf(f->nspace, sizeof(f->nspace), "%s", ns->name);
    qsort(f->ranks, ns->nlocal, sizeof(*f->ranks), rank_cmp);
    for (size_t i = 1; i < ns->nlocal; i++)
        if (f->ranks[i] == f->ranks[i - 1]) { /* a repeated rank: no fast path */
            free(f->ranks);
            free(f);
            return PMIX_SUCCESS;
        }
    f->nlocal = (uint32_t)ns->nlocal;
    const pmix_value_t *js = spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL);
    uint32_t jobsize = 0;
    /* releasing without the server skips the host's fence_nb: only when the
     * host does not need to see local fences */
    bool host_free = ctx->mn || ctx->mn_cfg || ctx->local_fences || !ctx->host.fence_nb;
    bool all_here = host_free && js && spx_value_to_u32(js, &jobsize) == PMIX_SUCCESS &&
                    jobsize == f->nlocal;
    char path[4096];
    snprintf(path, sizeof(path), "%s/f%u", ctx->dir, serial++);
    f->seg = spx_shmb_create(path, f->nlocal, all_here, ctx->uid, ctx->gid);
    if (!f->seg) { /* the socket path still works */
        free(f->ranks);
        free(f);
        return PMIX_SUCCESS;
    }
    pmix_value_t v = {.type = PMIX_STRING};
    v.data.string = path;
    pmix_status_t rc = spx_store_put(ns->info, ns->name, PMIX_RANK_WILDCARD, SPX_SHMB_KEY, &v,
                                     PMIX_GLOBAL);
    if (rc != PMIX_SUCCESS) {
        spx_shmb_close(f->seg);
        free(f->ranks);
        free(f);
        return rc;
    }
    spx_debug("namespace %s: shared-memory fence %s for %u local processes%s", ns->name, path,
              f->nlocal, all_here ? " (whole job here)" : "");
    ns->shmf = f;
    return PMIX_SUCCESS;
}

struct spx_srv_shmf *spx_srv_shmf_take(struct spx_srv_ns *ns)
{
    struct spx_srv_shmf *f = ns->shmf;
    ns->shmf = NULL;
    return f;
}

static void waiter_free(struct sock_waiter *w)
{
    if (w->timer)
        spx_timer_cancel(w->timer);
    spx_srv_peer_unref(w->peer);
    free(w);
}

/* A socket waiter answered with SPX_SHMB_USE_SOCKET arrives in the fence
 * engine instead (the segment is retired); w is freed. */
static void waiter_to_engine(struct sock_waiter *w)
{
    pmix_proc_t set;
    spx_proc_load(&set, w->nspace, PMIX_RANK_WILDCARD);
    spx_srv_fence_socket_arrive(w->peer, w->seq, &set, 1, w->collect, w->timeout);
    waiter_free(w);
}

/* Answers and frees the socket waiters of generation gen that have arrived
 * (every waiter, deferred ones included, when all is true). */
static void answer_waiters(struct spx_srv_shmf *f, bool all, uint32_t gen, pmix_status_t st)
{
    struct sock_waiter *prev = NULL, *w;
    /* the one after prev is read again after each answer, as the list stands then */
    while ((w = prev ? TAILQ_NEXT(prev, link) : TAILQ_FIRST(&f->waiters))) {
        if (all || (w->arrived && w->gen == gen)) {
            TAILQ_REMOVE(&f->waiters, w, link);
            if (st == SPX_SHMB_USE_SOCKET) {
                waiter_to_engine(w);
                continue;
            }
            spx_trace(SPX_TR_S_REPLY, gen, w->peer->proc.rank, st);
            spx_srv_reply_status(w->peer, SPX_MSG_FENCE, w->seq, st);
            waiter_free(w);
        } else {
            prev = w;
        }
    }
}

void spx_srv_shmf_free(struct spx_srv_shmf *f)
{
    if (!f)
        return;
    if (f->seg)
        spx_shmb_break(f->seg, PMIX_ERR_NOT_AVAILABLE);
    answer_waiters(f, true, 0, PMIX_ERR_NOT_AVAILABLE);
    if (f->retry)
        spx_timer_cancel(f->retry);
    spx_shmb_close(f->seg);
    free(f->ranks);
    free(f);
}

void spx_srv_shmf_break(struct spx_srv_ns *ns, pmix_status_t status, bool recoverable)
{
    struct spx_srv_shmf *f = ns ? ns->shmf : NULL;
    if (!f)
        return;
    if (spx_shmb_broken(f->seg) != PMIX_SUCCESS) {
        f->recoverable = f->recoverable && recoverable;
        return;
    }
    f->recoverable = recoverable;
    bool closed;
    uint32_t ncollect = 0;
    spx_shmb_generation(f->seg, &closed, &ncollect);
    if (f->ctx->mn && !closed && spx_shmb_gathering(f->seg) && status != SPX_SHMB_USE_SOCKET) {
        /* this node's part never reached the tree: fail it there too, as a
         * tracker that failed while gathering does */
        pmix_proc_t set;
        spx_proc_load(&set, ns->name, PMIX_RANK_WILDCARD);
        char key[PMIX_MAX_NSLEN + 8];
        snprintf(key, sizeof(key), "%s:*;", ns->name);
        spx_srv_mn_fence_failed(f->ctx, &set, 1, key, ncollect > 0, status, 0);
    }
    spx_debug("namespace %s: shared-memory fence broken (%s)", ns->name,
              PMIx_Error_string(status));
    spx_shmb_break(f->seg, status);
    f->parked = false;
    answer_waiters(f, true, 0, status);
}

void spx_srv_shmf_retire(struct spx_srv_ns *ns)
{
    struct spx_srv_shmf *f = ns ? ns->shmf : NULL;
    if (!f || f->retired)
        return;
    f->retired = true;
    if (spx_shmb_broken(f->seg) != PMIX_SUCCESS)
        return; /* broken for good already */
    bool closed = false;
    uint32_t gen = spx_shmb_generation(f->seg, &closed, NULL);
    spx_debug("namespace %s: a local process finalized; whole-namespace fences go through "
              "the socket (generation %u %s)", ns->name, gen, closed ? "closed" : "open");
    if (closed && !f->parked) {
        /* with the engine: it completes as decided; later arrivals take the socket */
        spx_shmb_poison(f->seg, SPX_SHMB_USE_SOCKET);
        return;
    }
    spx_srv_shmf_break(ns, SPX_SHMB_USE_SOCKET, false);
}

void spx_srv_shmf_client_ready(struct spx_srv_ns *ns)
{
    struct spx_srv_shmf *f = ns ? ns->shmf : NULL;
    if (!f || f->retired || !f->recoverable || spx_shmb_broken(f->seg) == PMIX_SUCCESS)
        return;
    uint32_t here = 0;
    struct spx_srv_client *cl;
    SLIST_FOREACH(cl, &ns->clients, link)
        if (cl->peer && cl->peer->state == SPX_PEER_READY &&
            spx_shmb_slot_of(f->ranks, f->nlocal, cl->rank) >= 0)
            here++;
    if (here == f->nlocal) {
        spx_debug("namespace %s: every local process is back, shared-memory fence usable",
                  ns->name);
        spx_shmb_unbreak(f->seg);
    }
}

/* true when w is answered or in the fence; false when it is (still) deferred */
static bool try_arrive(struct spx_srv_ns *ns, struct sock_waiter *w);

/* Socket arrivals that found their slot busy are tried again, in order,
 * after every release this server sees, and every millisecond while one
 * waits (a release made by a client itself is not seen here). */
static void retry_deferred(struct spx_srv_ns *ns)
{
    for (;;) {
        struct sock_waiter *w = ns->shmf ? TAILQ_FIRST(&ns->shmf->waiters) : NULL;
        while (w && w->arrived)
            w = TAILQ_NEXT(w, link);
        if (!w || !try_arrive(ns, w))
            return;
    }
}

/* The retry timer's argument is the fence itself: spx_srv_shmf_free cancels
 * the timer before it frees f. */
static void retry_tick(void *arg)
{
    struct spx_srv_shmf *f = arg;
    f->retry = NULL;
    struct spx_srv_ns *ns = spx_srv_ns_find(f->ctx, f->nspace);
    if (ns && ns->shmf == f)
        retry_deferred(ns);
}

static void arm_retry(struct spx_srv_ns *ns)
{
    struct spx_srv_shmf *f = ns->shmf;
    if (!f->retry)
        f->retry = spx_timer_start(0.001, retry_tick, f);
}

/* Releases generation gen with st and answers its socket waiters. */
static void server_release(struct spx_srv_ns *ns, uint32_t gen, pmix_status_t st)
{
    struct spx_srv_shmf *f = ns->shmf;
    if (f->parked && f->parked_gen == gen)
        f->parked = false;
    spx_trace(SPX_TR_S_RELEASE, gen, 0, st);
    spx_shmb_release(f->seg, gen, st);
    answer_waiters(f, false, gen, st);
    retry_deferred(ns);
}

/* Every local process is in generation gen (the gather is closed). */
static void gathered(struct spx_srv_ns *ns, uint32_t gen, uint32_t ncollect)
{
    struct spx_srv_shmf *f = ns->shmf;
    if (spx_shmb_commits_pending(f->seg)) {
        f->parked = true;
        f->parked_gen = gen;
        f->parked_ncollect = ncollect;
        return;
    }
    f->parked = false;
    spx_trace(SPX_TR_S_GATHERED, gen, ncollect, 0);
    if (spx_shmb_self_complete(f->seg)) {
        bool agree = ncollect == 0 || ncollect == f->nlocal;
        server_release(ns, gen, agree ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM);
        return;
    }
    struct spx_srv_shmf_batch *batch = calloc(1, sizeof(*batch));
    if (!batch) {
        server_release(ns, gen, PMIX_ERR_NOMEM);
        return;
    }
    batch->ctx = f->ctx;
    snprintf(batch->nspace, sizeof(batch->nspace), "%s", ns->name);
    batch->gen = gen;
    batch->remaining = f->nlocal;
    long timeout = 0;
    struct sock_waiter *w;
    TAILQ_FOREACH(w, &f->waiters, link)
        if (w->arrived && w->gen == gen && w->timeout > timeout)
            timeout = w->timeout;
    pmix_proc_t set, proc;
    spx_proc_load(&set, ns->name, PMIX_RANK_WILDCARD);
    /* the engine may answer (and release) before the loop ends: copy what it needs */
    uint32_t nlocal = f->nlocal;
    pmix_rank_t *ranks = malloc(nlocal * sizeof(*ranks));
    if (!ranks) {
        free(batch);
        server_release(ns, gen, PMIX_ERR_NOMEM);
        return;
    }
    memcpy(ranks, f->ranks, nlocal * sizeof(*ranks));
    char name[PMIX_MAX_NSLEN + 1];
    snprintf(name, sizeof(name), "%s", ns->name);
    struct spx_srv_ctx *ctx = f->ctx;
    for (uint32_t i = 0; i < nlocal; i++) {
        spx_proc_load(&proc, name, ranks[i]);
        spx_srv_fence_arrive_for(ctx, &proc, &set, 1, i < ncollect, (double)timeout, batch);
    }
    free(ranks);
}

void spx_srv_shmf_batch_done(struct spx_srv_shmf_batch *batch, pmix_status_t status)
{
    if (status != PMIX_SUCCESS && batch->status == PMIX_SUCCESS)
        batch->status = status;
    if (--batch->remaining > 0)
        return;
    struct spx_srv_ns *ns = spx_srv_ns_find(batch->ctx, batch->nspace);
    if (ns && ns->shmf)
        server_release(ns, batch->gen, batch->status);
    free(batch);
}

/* The timeout's argument is the waiter: waiter_free cancels the timer. */
static void waiter_timeout(void *arg)
{
    struct sock_waiter *w = arg;
    w->timer = NULL;
    struct spx_srv_ns *ns = spx_srv_ns_find(w->peer->ctx, w->nspace);
    if (!ns || !ns->shmf)
        return;
    bool closed;
    uint32_t cur = spx_shmb_generation(ns->shmf->seg, &closed, NULL);
    if (w->arrived && cur == w->gen && !closed) { /* still gathering: all of it times out */
        spx_debug("namespace %s: fence generation %u timed out after %ld s", ns->name,
                  (unsigned)cur, w->timeout);
        server_release(ns, cur, PMIX_ERR_TIMEOUT);
    }
}

static void arm_timeout(struct spx_srv_ns *ns, struct sock_waiter *w)
{
    (void)ns;
    if (!w->timer)
        w->timer = spx_timer_start((double)w->timeout, waiter_timeout, w);
}

static bool try_arrive(struct spx_srv_ns *ns, struct sock_waiter *w)
{
    struct spx_srv_shmf *f = ns->shmf;
    uint32_t gen = 0, nc = 0;
    pmix_status_t st = PMIX_SUCCESS;
    switch (spx_shmb_arrive(f->seg, w->slot, w->collect, true, &gen, &nc, &st)) {
    case SPX_SHMB_BROKEN:
        TAILQ_REMOVE(&f->waiters, w, link); /* on the list since its FENCE came */
        if (st == SPX_SHMB_USE_SOCKET) {
            waiter_to_engine(w);
            return true;
        }
        spx_srv_reply_status(w->peer, SPX_MSG_FENCE, w->seq, st);
        waiter_free(w);
        return true;
    case SPX_SHMB_BUSY:
        w->arrived = false;
        arm_retry(ns);
        return false;
    case SPX_SHMB_WAIT:
        w->arrived = true;
        w->gen = gen;
        if (w->timeout > 0)
            arm_timeout(ns, w);
        return true;
    case SPX_SHMB_LAST_SELF:   /* not returned for an arrival through the server */
    case SPX_SHMB_LAST_SERVER:
        w->arrived = true;
        w->gen = gen;
        gathered(ns, gen, nc);
        return true;
    }
    return true;
}

bool spx_srv_shmf_covers(const struct spx_srv_peer *p, const pmix_proc_t *set, size_t nset)
{
    if (!p->client || !p->client->ns || !p->client->ns->shmf || p->client->ns->shmf->retired ||
        nset != 1 || set[0].rank != PMIX_RANK_WILDCARD)
        return false;
    return strncmp(set[0].nspace, p->client->ns->name, PMIX_MAX_NSLEN) == 0;
}

void spx_srv_shmf_socket_fence(struct spx_srv_peer *p, uint32_t seq, bool collect, long timeout)
{
    struct spx_srv_ns *ns = p->client->ns;
    struct spx_srv_shmf *f = ns->shmf;
    long slot = spx_shmb_slot_of(f->ranks, f->nlocal, p->proc.rank);
    struct sock_waiter *w = slot < 0 ? NULL : calloc(1, sizeof(*w));
    if (!w) {
        spx_srv_reply_status(p, SPX_MSG_FENCE, seq, slot < 0 ? PMIX_ERR_NOT_A_MEMBER
                                                             : PMIX_ERR_NOMEM);
        return;
    }
    w->peer = p;
    spx_srv_peer_ref(p);
    snprintf(w->nspace, sizeof(w->nspace), "%s", ns->name);
    w->seq = seq;
    w->slot = (uint32_t)slot;
    w->collect = collect;
    w->timeout = timeout;
    TAILQ_INSERT_TAIL(&f->waiters, w, link); /* keep arrival order */
    /* an earlier deferred arrival goes first */
    for (struct sock_waiter *d = TAILQ_FIRST(&f->waiters); d != w; d = TAILQ_NEXT(d, link))
        if (!d->arrived) {
            w->arrived = false;
            arm_retry(ns);
            return;
        }
    try_arrive(ns, w);
}

int spx_srv_handle_fence_local(struct spx_srv_peer *p, spx_buf_t *b)
{
    uint32_t gen = spx_buf_pull_u32(b);
    if (spx_buf_finish(b) != 0)
        return -1;
    spx_trace(SPX_TR_S_REQ, gen, 1, p->proc.rank);
    struct spx_srv_ns *ns = p->client ? p->client->ns : NULL;
    if (!ns || !ns->shmf) {
        spx_debug("%s: FENCE_LOCAL without a shared-memory fence ignored", p->name);
        return 0;
    }
    bool closed;
    uint32_t nc = 0;
    uint32_t cur = spx_shmb_generation(ns->shmf->seg, &closed, &nc);
    if (!closed || cur != gen || (ns->shmf->parked && ns->shmf->parked_gen == gen)) {
        spx_debug("%s: FENCE_LOCAL for generation %u ignored (current %u, %s)", p->name,
                  (unsigned)gen, (unsigned)cur, closed ? "closed" : "open");
        return 0;
    }
    gathered(ns, gen, nc);
    return 0;
}

bool spx_srv_shmf_commits_pending(const struct spx_srv_ns *ns)
{
    return ns->shmf && spx_shmb_commits_pending(ns->shmf->seg);
}

void spx_srv_shmf_commit_applied(struct spx_srv_peer *p)
{
    struct spx_srv_ns *ns = p->client ? p->client->ns : NULL;
    struct spx_srv_shmf *f = ns ? ns->shmf : NULL;
    if (!f)
        return;
    long slot = spx_shmb_slot_of(f->ranks, f->nlocal, p->proc.rank);
    if (slot < 0)
        return;
    spx_shmb_commit_applied(f->seg, (uint32_t)slot);
    if (f->parked && !spx_shmb_commits_pending(f->seg))
        gathered(ns, f->parked_gen, f->parked_ncollect);
}
