/* fence_standin.c - a node whose local processes of a namespace have all
 * finalized stands in for them in that namespace's whole-namespace fences.
 *
 * Why: a fence goes on without processes that finalized (the fence engine
 * stops expecting them, spx_fence_proc_departed). Across nodes that is not
 * enough: the tree collective of a fence over {nspace, WILDCARD} runs over
 * every node of the namespace, and a node none of whose processes is left
 * would never start its part, so the others would wait for ever.
 *
 * How: once the last local process of a namespace finalized and has exited
 * (a process that finalizes may initialize again: then it fences for itself,
 * and a stand-in that had started for it would contribute twice; the check
 * is repeated every SPX_STANDIN_CHECK seconds while finalized processes
 * live), and the job spans other nodes, this node starts its part of the
 * next "ns:*;" tree collective, contributing what those processes committed and the
 * others have not had yet (delta.h), and starts the next one each time one
 * completes: a fence of the others completes without waiting. The part is
 * started with SPX_SRV_NET_F_ANY: it agrees with whatever flags the others
 * use (collecting or not), and it does not keep this node from ending in
 * order. It stops when a round fails (a lost node or process: the others'
 * fences fail too; PMIX_ERR_NOT_AVAILABLE: every node of the job only stood
 * in, nobody is left to fence), when the namespace goes away, or when the
 * network stops (its collective completes with PMIX_ERR_UNREACH then).
 *
 * Explicit rank lists that name only finalized processes of a node are not
 * covered (the node cannot know such a set before it is used).
 * Everything runs on the server's progress thread. Memory: one struct
 * standin (about 300 bytes) per namespace whose local processes all left.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_fence.h"

#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "progress/progress.h"
#include "proto/records.h"
#include "types/types.h"
#include "server/net.h"
#include "util/log.h"

#define SPX_STANDIN_CHECK 0.1 /* s between looks at whether finalized processes exited */

struct standin {
    LIST_ENTRY(standin) link;       /* in standins */
    struct spx_srv_ctx *ctx;        /* borrowed: the server it belongs to */
    char nspace[PMIX_MAX_NSLEN + 1];
    unsigned rounds;                /* collectives completed so far */
    bool running;                   /* a collective is with the network */
    bool stop;                      /* free once the running one completes */
    spx_timer_t *wait;              /* waiting for finalized processes to exit, or NULL */
};

static LIST_HEAD(, standin) standins = LIST_HEAD_INITIALIZER(standins);

static void standin_free(struct standin *s)
{
    LIST_REMOVE(s, link);
    if (s->wait)
        spx_timer_cancel(s->wait);
    free(s);
}

/* Has process pid ended (gone, or a zombie not reaped yet)? pid <= 0: not
 * known, taken as ended. */
static bool pid_ended(pid_t pid)
{
    if (pid <= 0)
        return true;
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')'); /* the state follows the command's name */
    return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* Every local process of ns finalized (all_left), and whether each has also
 * ended (all_ended). */
static void local_state(struct spx_srv_ctx *ctx, struct spx_srv_ns *ns, bool *all_left,
                        bool *all_ended)
{
    pmix_rank_t *ranks = NULL;
    size_t nr = spx_srv_ns_local_ranks(ns, &ranks);
    *all_left = nr > 0;
    *all_ended = true;
    for (size_t i = 0; i < nr && *all_left; i++) {
        struct spx_srv_client *cl = spx_srv_client_find(ctx, ns->name, ranks[i]);
        *all_left = cl && cl->finalized;
        if (*all_left && !pid_ended(cl->pid))
            *all_ended = false;
    }
    free(ranks);
}

static void standin_start(struct standin *s);

static void standin_done(pmix_status_t status, const void *data, size_t len, void *arg)
{
    (void)data;
    (void)len;
    struct standin *s = arg;
    s->running = false;
    struct spx_srv_ctx *ctx = s->ctx;
    if (s->stop || !ctx->mn || !ctx->active || (status != PMIX_SUCCESS &&
                                                 status != PMIX_ERR_TIMEOUT)) {
        spx_debug("namespace %s: stand-in for its finalized processes ends after %u "
                  "fence(s) (%s)", s->nspace, s->rounds, PMIx_Error_string(status));
        standin_free(s);
        return;
    }
    s->rounds++;
    standin_start(s);
}

/* The next round: what the finalized processes committed and the others have
 * not had yet, from the first round on (later rounds find nothing new). */
static void standin_start(struct standin *s)
{
    struct spx_srv_ctx *ctx = s->ctx;
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, s->nspace);
    char key[PMIX_MAX_NSLEN + 8];
    snprintf(key, sizeof(key), "%s:*;", s->nspace); /* the fence engine's set key */
    spx_buf_t b;
    spx_buf_init(&b);
    pmix_rank_t *ranks = NULL;
    size_t nr = ns ? spx_srv_ns_local_ranks(ns, &ranks) : 0;
    for (size_t i = 0; i < nr && ctx->delta; i++) {
        pmix_proc_t p;
        spx_proc_load(&p, s->nspace, ranks[i]);
        spx_delta_contrib_t r;
        spx_delta_contribute(ctx->delta, ctx->store, &p, key, SPX_SCOPES_REMOTE, &b, &r);
    }
    free(ranks);
    pmix_proc_t set;
    spx_proc_load(&set, s->nspace, PMIX_RANK_WILDCARD);
    uint32_t *nodes = NULL;
    size_t nn = 0;
    if (ns && spx_srv_mn_set_nodes(ctx, &set, 1, true, &nodes, &nn) == 0 && nn < 2) {
        /* every other node of the job has ended: nobody left to fence */
        spx_debug("namespace %s: no other node left; the stand-in ends after %u fence(s)",
                  s->nspace, s->rounds);
        free(nodes);
        spx_buf_fini(&b);
        standin_free(s);
        return;
    }
    free(nodes);
    if (!ns || spx_buf_failed(&b) ||
        spx_srv_mn_coll_plain(ctx, key, &set, 1, SPX_SRV_NET_F_ANY, (const char *)b.data, b.len,
                              standin_done, s) != 0) {
        spx_warn("namespace %s: cannot stand in for its finalized processes in fences; "
                 "a whole-namespace fence of the other nodes may fail", s->nspace);
        standin_free(s);
    } else {
        s->running = true;
    }
    spx_buf_fini(&b);
}

/* The wait timer: start when every finalized process ended, look again
 * later while some live, give up when one initialized again. */
static void standin_wait_tick(void *arg)
{
    struct standin *s = arg;
    s->wait = NULL; /* fired */
    struct spx_srv_ns *ns = spx_srv_ns_find(s->ctx, s->nspace);
    bool all_left = false, all_ended = false;
    if (ns && s->ctx->mn && s->ctx->active)
        local_state(s->ctx, ns, &all_left, &all_ended);
    if (!all_left) { /* one came back (or the job went): it fences itself */
        standin_free(s);
        return;
    }
    if (!all_ended) {
        if (!(s->wait = spx_timer_start(SPX_STANDIN_CHECK, standin_wait_tick, s)))
            standin_free(s);
        return;
    }
    spx_debug("namespace %s: every local process finalized and ended; this node stands in "
              "for them in whole-namespace fences", s->nspace);
    standin_start(s);
}

void spx_srv_fence_standin_check(struct spx_srv_ctx *ctx, struct spx_srv_ns *ns)
{
    if (!ctx->mn || !ns || ns->nnodes < 2)
        return;
    struct standin *s;
    LIST_FOREACH(s, &standins, link)
        if (s->ctx == ctx && strcmp(s->nspace, ns->name) == 0)
            return;
    bool all_left, all_ended;
    local_state(ctx, ns, &all_left, &all_ended);
    if (!all_left || !(s = calloc(1, sizeof(*s))))
        return;
    s->ctx = ctx;
    snprintf(s->nspace, sizeof(s->nspace), "%s", ns->name);
    LIST_INSERT_HEAD(&standins, s, link);
    /* a process finalizing is still alive here: look again shortly */
    if (!(s->wait = spx_timer_start(SPX_STANDIN_CHECK, standin_wait_tick, s)))
        standin_free(s);
}

void spx_srv_fence_standin_stop(struct spx_srv_ctx *ctx, const char *nspace)
{
    struct standin *s, *next;
    for (s = LIST_FIRST(&standins); s; s = next) {
        next = LIST_NEXT(s, link);
        if (s->ctx != ctx || (nspace && strcmp(s->nspace, nspace) != 0))
            continue;
        if (s->running)
            s->stop = true; /* freed when its collective completes */
        else
            standin_free(s); /* a wait timer is cancelled there */
    }
}
