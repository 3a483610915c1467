/* group_watch.c - invitees that live on another node than their leader, in
 * the group engine (group_int.h).
 *
 * Why: an invitation lives on its leader's node, which hears of a remote
 * invitee's death (the lost-process relay) but not of an invitee that calls
 * PMIx_Finalize and leaves without answering: that invitation would never
 * resolve. On one node the leader's own server sees it go.
 *
 * How: when an invitation starts, the leader's node sends each other node
 * hosting invitees one WATCH message naming them. That node keeps a watch
 * per invitee until the invitee answers (its JOIN goes out), the invitation
 * ends (DONE), or its leader goes away. If a watched invitee finalizes or
 * dies first - or already had when the WATCH came - this node sends the
 * leader's node an ANSWER of kind SPX_GRP_ANSWER_GONE, which counts as a
 * failed invitee there: the invitation aborts (or, PMIX_GROUP_OPTIONAL,
 * completes without it), as on one node.
 *
 * Message (SPX_SRV_CH_GROUP, after the kind byte GRP_MSG_WATCH = 4):
 *   str id, proc leader, proc[] invitees (this node's; bounded by the codec)
 * Memory: one struct grp_watch (about 560 bytes) per local invitee with an
 * invitation pending, at most GRP_MAX_WATCH (the oldest dropped beyond).
 * Everything runs on the progress thread.
 */
#include "config.h"
#include "server/core.h"
#include "server/group_int.h"

#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "types/types.h"
#include "util/log.h"

#define GRP_MSG_WATCH 4u      /* the kind byte (group_wire.c's enum) */
#define GRP_MAX_WATCH 65536u

struct grp_watch {
    LIST_ENTRY(grp_watch) link;     /* in spx_srv_grp.watches, newest first */
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader, invitee;
};

static bool same_proc(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return a->rank == b->rank && strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN) == 0;
}

static uint32_t node_of(struct spx_srv_ctx *ctx, const pmix_proc_t *proc)
{
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, proc->nspace);
    return ns ? spx_srv_ns_node_of(ns, proc->rank) : UINT32_MAX;
}

static void watch_free(struct spx_srv_grp *g, struct grp_watch *w)
{
    LIST_REMOVE(w, link);
    g->nwatches--;
    free(w);
}

void spx_srv_grp_watch_send(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                            const pmix_proc_t *invitees, size_t n)
{
    struct spx_srv_ctx *ctx = g->ctx;
    if (!ctx->mn || n == 0)
        return;
    uint32_t me = spx_srv_mn_me(ctx);
    uint32_t *node = malloc(n * sizeof(*node));
    pmix_proc_t *batch = malloc(n * sizeof(*batch));
    uint8_t *sent = calloc(n, 1);
    if (!node || !batch || !sent) {
        spx_warn("group %s: out of memory: invitees on other nodes are not watched", id);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        node[i] = node_of(ctx, &invitees[i]);
    for (size_t i = 0; i < n; i++) { /* one message per node, its invitees in it */
        if (sent[i] || node[i] == me || node[i] == UINT32_MAX)
            continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (!sent[j] && node[j] == node[i]) {
                batch[k++] = invitees[j];
                sent[j] = 1;
            }
        spx_buf_t b;
        spx_buf_init(&b);
        spx_buf_push_u8(&b, GRP_MSG_WATCH);
        spx_buf_push_str(&b, id);
        spx_codec_push_proc(&b, leader);
        spx_codec_push_proc_array(&b, batch, k);
        if (spx_buf_failed(&b) || spx_srv_mn_send(ctx, node[i], SPX_SRV_CH_GROUP, &b) != 0)
            spx_warn("group %s: node %u was not asked to watch its %zu invitee(s)", id,
                     (unsigned)node[i], k);
        spx_buf_fini(&b);
    }
out:
    free(node);
    free(batch);
    free(sent);
}

/* Has the local process p finalized or gone away? */
static bool local_gone(struct spx_srv_ctx *ctx, const pmix_proc_t *p)
{
    struct spx_srv_client *cl = spx_srv_client_find(ctx, p->nspace, p->rank);
    if (!cl) { /* never registered here, or deregistered: gone if its job ran here */
        struct spx_srv_ns *ns = spx_srv_ns_find(ctx, p->nspace);
        return !ns || spx_srv_ns_departed(ns, p->rank);
    }
    return cl->finalized || (cl->connected_once && !cl->peer);
}

/* Tells the leader's node that invitee went away without answering. */
static void send_gone(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                      const pmix_proc_t *invitee)
{
    uint32_t node = node_of(g->ctx, leader);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_srv_grp_push_answer(&b, id, leader, invitee, SPX_GRP_ANSWER_GONE, NULL, 0);
    spx_debug("group %s: invitee %s:%u went away without answering: telling node %u", id,
              invitee->nspace, (unsigned)invitee->rank, (unsigned)node);
    if (node == UINT32_MAX || spx_buf_failed(&b) ||
        spx_srv_mn_send(g->ctx, node, SPX_SRV_CH_GROUP, &b) != 0)
        spx_warn("group %s: could not tell the leader's node that %s:%u went away", id,
                 invitee->nspace, (unsigned)invitee->rank);
    spx_buf_fini(&b);
}

void spx_srv_grp_watch_recv(struct spx_srv_grp *g, spx_buf_t *b)
{
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader, *inv = NULL;
    size_t n = 0;
    spx_buf_pull_str_into(b, id, sizeof(id));
    int bad = spx_codec_pull_proc(b, &leader);
    if (bad || spx_buf_failed(b) || spx_codec_pull_proc_array(b, &inv, &n) != 0 ||
        spx_buf_finish(b) != 0 || !id[0]) {
        spx_warn("group: malformed watch request dropped");
        free(inv);
        return;
    }
    leader.nspace[PMIX_MAX_NSLEN] = '\0';
    for (size_t i = 0; i < n; i++) {
        inv[i].nspace[PMIX_MAX_NSLEN] = '\0';
        if (!spx_srv_proc_is_local(g->ctx, inv[i].nspace, inv[i].rank))
            continue; /* not ours: nothing to watch */
        if (local_gone(g->ctx, &inv[i])) {
            send_gone(g, id, &leader, &inv[i]);
            continue;
        }
        if (g->nwatches >= GRP_MAX_WATCH) {
            struct grp_watch *old = LIST_FIRST(&g->watches), *w;
            while (old && (w = LIST_NEXT(old, link)))
                old = w;
            spx_warn("group: more than %u invitees watched: the oldest watch dropped",
                     GRP_MAX_WATCH);
            watch_free(g, old);
        }
        struct grp_watch *w = calloc(1, sizeof(*w));
        if (!w)
            break;
        memcpy(w->id, id, sizeof(w->id));
        w->leader = leader;
        w->invitee = inv[i];
        LIST_INSERT_HEAD(&g->watches, w, link);
        g->nwatches++;
    }
    free(inv);
}

void spx_srv_grp_watch_drop(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                            const pmix_proc_t *joiner)
{
    struct grp_watch *w, *next;
    for (w = LIST_FIRST(&g->watches); w; w = next) {
        next = LIST_NEXT(w, link);
        if (strcmp(w->id, id) == 0 && same_proc(&w->leader, leader) &&
            (!joiner || same_proc(&w->invitee, joiner)))
            watch_free(g, w);
    }
}

void spx_srv_grp_watch_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc)
{
    struct grp_watch *w, *next;
    for (w = LIST_FIRST(&g->watches); w; w = next) {
        next = LIST_NEXT(w, link);
        if (same_proc(&w->invitee, proc))
            send_gone(g, w->id, &w->leader, &w->invitee);
        if (same_proc(&w->invitee, proc) || same_proc(&w->leader, proc))
            watch_free(g, w);
    }
}

void spx_srv_grp_watch_node_gone(struct spx_srv_grp *g, uint32_t node)
{
    struct grp_watch *w, *next;
    for (w = LIST_FIRST(&g->watches); w; w = next) {
        next = LIST_NEXT(w, link);
        if (node_of(g->ctx, &w->leader) == node)
            watch_free(g, w);
    }
}

void spx_srv_grp_watch_nspace_gone(struct spx_srv_grp *g, const char *nspace)
{
    struct grp_watch *w, *next;
    for (w = LIST_FIRST(&g->watches); w; w = next) {
        next = LIST_NEXT(w, link);
        if (!nspace || strncmp(w->leader.nspace, nspace, PMIX_MAX_NSLEN) == 0 ||
            strncmp(w->invitee.nspace, nspace, PMIX_MAX_NSLEN) == 0)
            watch_free(g, w);
    }
}
