/* group_invite.c - groups built by invitation (PMIx_Group_invite /
 * PMIx_Group_join) and PMIx_Group_leave, in the group engine (group_int.h).
 *
 * An invitation lives on its leader's node: the leader's INVITE request
 * makes it (the leader is a member; its MEMBER item - group info and endpoint
 * data - is the first of the outcome) and raises PMIX_GROUP_INVITED to the
 * invitees (source: the leader). A joiner's JOIN_ACCEPT makes its MEMBER item
 * on its own node and sends it to the leader's node in an ANSWER; a decline
 * sends an ANSWER without one and is answered at once, as is an accept that
 * names no leader. The leader gets PMIX_GROUP_INVITE_ACCEPTED /
 * _DECLINED (source: the joiner); its client reports when its handlers are
 * through with each (ANSWER_SEEN), or that they abort (ABORT: a handler
 * returned PMIX_GROUP_CONSTRUCT_ABORT; the leader raising that event does the
 * same). Once every invitee has answered, failed (died, its node was lost) or
 * the invitation's PMIX_TIMEOUT ran out, and the leader saw every answer:
 *   - all accepted, or PMIX_GROUP_OPTIONAL: the leader's node adds the
 *     context id (if any member asked for one), applies and records the
 *     outcome, answers the leader's INVITE with it, broadcasts DONE with it
 *     (every node applies it; the joins waiting there are answered with it)
 *     and raises PMIX_GROUP_CONSTRUCT_COMPLETE to the members (with
 *     PMIX_GROUP_MEMBERSHIP and PMIX_GROUP_CONTEXT_ID), and
 *     PMIX_GROUP_INVITE_FAILED to the leader for each invitee not in;
 *   - else PMIX_GROUP_CONSTRUCT_ABORT: to the invitees as an event, to the
 *     leader and the waiting joins as their status.
 * A construct with PMIX_GROUP_OPTIONAL, PMIX_GROUP_FT_COLLECTIVE or
 * PMIX_GROUP_ADD_MEMBERS runs the same way without events ("silent"): its
 * lowest member leads, the others' CONSTRUCTs are accepts, the added members
 * (the leader's list) get PMIX_GROUP_INVITED and join, and with OPTIONAL or
 * FT_COLLECTIVE members that die, are lost or never come (PMIX_TIMEOUT) are
 * left out of the outcome.
 * A leader that goes away (dies, finalizes, its node is lost) ends its
 * invitations with PMIX_GROUP_LEADER_FAILED: an event to the invitees and
 * the status of their joins. An answer that comes before its invitation is
 * kept (struct grp_answer) until the invitation comes or the leader goes.
 *
 * Messages on SPX_SRV_CH_GROUP (u8 kind first; every field bounded by the codec):
 *   ANSWER  str id, proc leader, proc joiner, u8 accept, bytes item
 *   VOTE    (to node 0) str id, proc failed leader, proc voter, u8 steps up,
 *           proc[] participants: node 0 raises PMIX_GROUP_LEADER_SELECTED from
 *           the first that steps up, or with PMIX_ERR_NOT_FOUND when all
 *           participants declined
 *   DONE    str id, proc leader, proc target (nspace "": every joiner),
 *           i32 status, bytes outcome (empty unless PMIX_SUCCESS),
 *           proc[] the invitees that had not answered (struct grp_late)
 */
#include "config.h"
#include "server/core.h"
#include "server/group_int.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/group.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"

enum { GRP_MSG_ANSWER = 1, GRP_MSG_DONE = 2, GRP_MSG_VOTE = 3, GRP_MSG_WATCH = 4 };
enum grp_ans_state { ANS_PENDING, ANS_ACCEPTED, ANS_DECLINED, ANS_FAILED };

struct grp_invite {
    LIST_ENTRY(grp_invite) link;    /* in spx_srv_grp.invites */
    struct spx_srv_grp *g;          /* borrowed */
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader;
    struct spx_srv_peer *peer;      /* the leader's connection (referenced) */
    uint32_t seq;                   /* of its INVITE */
    pmix_proc_t *invitees;          /* sorted, unique, leader excluded (owned) */
    uint8_t *state;                 /* [i]: enum grp_ans_state (owned) */
    size_t n;
    spx_buf_t items;                /* MEMBER items: the leader's, the acceptors' */
    bool optional;
    bool silent;                    /* a fault-tolerant construct run this way: no events */
    bool leader_member;             /* the leader listed itself (else it only invites) */
    unsigned leader_flags;          /* SPX_GRP_F_* a leader that is no member asked for */
    unsigned unseen;                /* answers raised to the leader, not yet seen by its
                                     * handlers (ANSWER_SEEN): they may still abort */
    spx_timer_t *timer;             /* PMIX_TIMEOUT, or NULL */
};

struct grp_join {
    LIST_ENTRY(grp_join) link;      /* in spx_srv_grp.joins */
    struct spx_srv_peer *peer;      /* referenced */
    uint32_t seq;
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader, joiner;
};

/* An invitee that had not answered when its invitation ended (on the
 * leader's node, and on the invitee's own node): its join, when it comes,
 * ends at once with the invitation's status (PMIX_ERR_TIMEOUT if the group
 * was built without it) instead of waiting for an outcome already given.
 * Used up by that join; at most GRP_MAX_LATE kept, the oldest dropped. */
struct grp_late {
    TAILQ_ENTRY(grp_late) link;     /* in spx_srv_grp.late, oldest first */
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader, invitee;
    pmix_status_t status;
};
#define GRP_MAX_LATE 4096

/* Node 0's record of a leader selection after a leader failed: the first
 * participant that steps up (PMIX_GROUP_LEADER in its handler's results) is
 * the new leader; when every participant declined, nobody is. */
struct grp_select {
    TAILQ_ENTRY(grp_select) link;   /* in spx_srv_grp.selects, oldest first */
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t old;                /* the failed leader */
    pmix_proc_t *parts;             /* participants (owned) */
    uint8_t *voted;                 /* [i]: participant i answered */
    size_t n;
    bool decided;
};
#define GRP_MAX_SELECTS 256

struct grp_answer {
    LIST_ENTRY(grp_answer) link;    /* in spx_srv_grp.answers */
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader, joiner;
    uint8_t accept;                 /* enum spx_grp_answer */
    uint8_t *item;                  /* owned */
    size_t nitem;
};

static bool proc_eq(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return a->rank == b->rank && strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN) == 0;
}

static int proc_cmp(const void *x, const void *y)
{
    const pmix_proc_t *a = x, *b = y;
    int c = strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
    return c ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

/* Node of proc, UINT32_MAX when unknown; this node in single-node mode. */
static uint32_t node_of(struct spx_srv_ctx *ctx, const pmix_proc_t *proc)
{
    if (!ctx->mn)
        return 0;
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, proc->nspace);
    return ns ? spx_srv_ns_node_of(ns, proc->rank) : UINT32_MAX;
}

static void group_recv_local(struct spx_srv_grp *g, spx_buf_t *b);

/* Sends b to node (handled right here when it is this node). 0 or -1. */
static int send_to(struct spx_srv_grp *g, uint32_t node, spx_buf_t *b)
{
    if (node == spx_srv_mn_me(g->ctx)) {
        spx_buf_t in;
        spx_buf_init_borrowed(&in, b->data, b->len);
        group_recv_local(g, &in);
        spx_buf_fini(&in);
        return 0;
    }
    return spx_srv_mn_send(g->ctx, node, SPX_SRV_CH_GROUP, b);
}

void spx_srv_grp_push_answer(spx_buf_t *b, const char *id, const pmix_proc_t *leader,
                             const pmix_proc_t *joiner, uint8_t answer, const void *item,
                             size_t nitem)
{
    spx_buf_push_u8(b, GRP_MSG_ANSWER);
    spx_buf_push_str(b, id);
    spx_codec_push_proc(b, leader);
    spx_codec_push_proc(b, joiner);
    spx_buf_push_u8(b, answer);
    spx_buf_push_bytes(b, item, item ? nitem : 0);
}

/* ---- DONE: the outcome of an invitation, to every node ---- */

static void push_done(spx_buf_t *b, const char *id, const pmix_proc_t *leader,
                      const pmix_proc_t *target, pmix_status_t status, const void *outcome,
                      size_t n, const pmix_proc_t *unanswered, size_t nun)
{
    pmix_proc_t all;
    memset(&all, 0, sizeof(all));
    spx_buf_push_u8(b, GRP_MSG_DONE);
    spx_buf_push_str(b, id);
    spx_codec_push_proc(b, leader);
    spx_codec_push_proc(b, target ? target : &all);
    spx_buf_push_i32(b, status);
    spx_buf_push_bytes(b, outcome, outcome ? n : 0);
    spx_codec_push_proc_array(b, unanswered, nun);
}

/* Ends joiner's join of (id, leader) on its node with status. */
static void tell_joiner(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                        const pmix_proc_t *joiner, pmix_status_t status)
{
    spx_buf_t d;
    spx_buf_init(&d);
    push_done(&d, id, leader, joiner, status, NULL, 0, NULL, 0);
    uint32_t node = node_of(g->ctx, joiner);
    if (!spx_buf_failed(&d) && node != UINT32_MAX)
        send_to(g, node, &d);
    spx_buf_fini(&d);
}

/* ---- invitees too late ---- */

static void late_add(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                     const pmix_proc_t *invitee, pmix_status_t status)
{
    struct grp_late *l = calloc(1, sizeof(*l));
    if (!l)
        return;
    snprintf(l->id, sizeof(l->id), "%s", id);
    l->leader = *leader;
    l->invitee = *invitee;
    l->status = status == PMIX_SUCCESS ? PMIX_ERR_TIMEOUT : status;
    TAILQ_INSERT_TAIL(&g->late, l, link);
    if (++g->nlate > GRP_MAX_LATE) {
        struct grp_late *old = TAILQ_FIRST(&g->late);
        TAILQ_REMOVE(&g->late, old, link);
        free(old);
        g->nlate--;
    }
}

/* Uses up the record of invitee for (id, leader): its status, or PMIX_SUCCESS when none. */
static pmix_status_t late_take(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                               const pmix_proc_t *invitee)
{
    struct grp_late *l;
    TAILQ_FOREACH(l, &g->late, link)
        if (strcmp(l->id, id) == 0 && proc_eq(&l->leader, leader) &&
            proc_eq(&l->invitee, invitee)) {
            pmix_status_t st = l->status;
            TAILQ_REMOVE(&g->late, l, link);
            free(l);
            g->nlate--;
            return st;
        }
    return PMIX_SUCCESS;
}

/* Remembers the unanswered invitees (all on the leader's node, this node's
 * elsewhere) whose join was not waiting here already (answered just now). */
static void late_remember(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                          pmix_status_t status, const pmix_proc_t *unanswered, size_t nun,
                          bool leader_node)
{
    for (size_t i = 0; i < nun; i++) {
        bool waiting = false;
        struct grp_join *j;
        LIST_FOREACH(j, &g->joins, link)
            waiting |= strcmp(j->id, id) == 0 && proc_eq(&j->leader, leader) &&
                       proc_eq(&j->joiner, &unanswered[i]);
        if (!waiting && (leader_node || spx_srv_proc_is_local(g->ctx, unanswered[i].nspace,
                                                              unanswered[i].rank)))
            late_add(g, id, leader, &unanswered[i], status);
    }
}

/* Answers the local joins of (id, leader) - only target's when given. */
static void joins_finish(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                         const pmix_proc_t *target, pmix_status_t status, const void *outcome,
                         size_t n)
{
    struct grp_join *j, *next;
    for (j = LIST_FIRST(&g->joins); j; j = next) {
        next = LIST_NEXT(j, link);
        if (strcmp(j->id, id) != 0 || !proc_eq(&j->leader, leader) ||
            (target && !proc_eq(&j->joiner, target)))
            continue;
        spx_srv_grp_reply(j->peer, j->seq, status, status == PMIX_SUCCESS ? outcome : NULL, n);
        LIST_REMOVE(j, link);
        spx_srv_peer_unref(j->peer);
        free(j);
    }
}

/* Tells every node (this one answers its joins; the others also apply the outcome). */
static void done_everywhere(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                            pmix_status_t status, const void *outcome, size_t n,
                            const pmix_proc_t *unanswered, size_t nun)
{
    late_remember(g, id, leader, status, unanswered, nun, true);
    joins_finish(g, id, leader, NULL, status, outcome, n);
    if (!g->ctx->mn)
        return;
    spx_buf_t b;
    spx_buf_init(&b);
    push_done(&b, id, leader, NULL, status, outcome, n, unanswered, nun);
    if (spx_buf_failed(&b) || spx_srv_mn_bcast(g->ctx, SPX_SRV_CH_GROUP, &b) != 0)
        spx_warn("group %s: could not tell the other nodes the outcome (status %d)", id, status);
    spx_buf_fini(&b);
}

/* ---- invitations ---- */

static void invite_free(struct grp_invite *inv)
{
    LIST_REMOVE(inv, link);
    if (inv->timer)
        spx_timer_cancel(inv->timer);
    spx_srv_peer_unref(inv->peer);
    free(inv->invitees);
    free(inv->state);
    spx_buf_fini(&inv->items);
    free(inv);
}

static struct grp_invite *invite_find(struct spx_srv_grp *g, const char *id,
                                      const pmix_proc_t *leader)
{
    struct grp_invite *inv;
    LIST_FOREACH(inv, &g->invites, link)
        if (strcmp(inv->id, id) == 0 && proc_eq(&inv->leader, leader))
            return inv;
    return NULL;
}

/* The invitees of inv that have not answered (pending, or failed: timed
 * out, gone): malloc'd, may be NULL with *n = 0. */
static pmix_proc_t *unanswered(const struct grp_invite *inv, size_t *n)
{
    pmix_proc_t *out = inv->n ? malloc(inv->n * sizeof(*out)) : NULL;
    *n = 0;
    for (size_t i = 0; out && i < inv->n; i++)
        if (inv->state[i] == ANS_PENDING || inv->state[i] == ANS_FAILED)
            out[(*n)++] = inv->invitees[i];
    return out;
}

/* Ends inv with an error: the invitees hear it (event), the waiting joins and
 * the leader get it as their status. */
static void invite_fail(struct grp_invite *inv, pmix_status_t status)
{
    struct spx_srv_grp *g = inv->g;
    pmix_info_t aff;
    PMIX_INFO_LOAD(&aff, PMIX_EVENT_AFFECTED_PROC, &inv->leader, PMIX_PROC);
    spx_warn("group %s: invitation of %s:%u ends: %s", inv->id, inv->leader.nspace,
             (unsigned)inv->leader.rank, PMIx_Error_string(status));
    if (!inv->silent) {
        /* the invitees hear it, and the leader too unless it is the one gone */
        pmix_proc_t *to = malloc((inv->n + 1) * sizeof(*to));
        size_t nto = inv->n;
        if (to) {
            memcpy(to, inv->invitees, inv->n * sizeof(*to));
            if (status != PMIX_GROUP_LEADER_FAILED)
                to[nto++] = inv->leader;
        }
        spx_srv_grp_event(g->ctx, status, &inv->leader, to ? to : inv->invitees,
                          to ? nto : inv->n, inv->id, &aff, 1);
        free(to);
    }
    PMIX_INFO_DESTRUCT(&aff);
    size_t nun = 0;
    pmix_proc_t *un = unanswered(inv, &nun);
    done_everywhere(g, inv->id, &inv->leader, status, NULL, 0, un, nun);
    free(un);
    spx_srv_grp_reply(inv->peer, inv->seq, status, NULL, 0);
    invite_free(inv);
}

/* Every invitee has answered (or failed): complete or abort. */
static void invite_resolve(struct grp_invite *inv)
{
    struct spx_srv_grp *g = inv->g;
    size_t failed = 0;
    if (inv->unseen)
        return; /* the leader's handlers have not seen every answer: they may abort */
    for (size_t i = 0; i < inv->n; i++) {
        if (inv->state[i] == ANS_PENDING)
            return;
        failed += inv->state[i] != ANS_ACCEPTED;
    }
    if (failed && !inv->optional) {
        invite_fail(inv, PMIX_GROUP_CONSTRUCT_ABORT);
        return;
    }
    if (inv->items.len == 0) { /* a leader that only invited, and nobody came */
        invite_fail(inv, PMIX_GROUP_CONSTRUCT_ABORT);
        return;
    }
    /* the leader's node assigns the context id when a member asked for one */
    spx_grp_outcome_t o;
    pmix_status_t rc = PMIX_SUCCESS;
    if (spx_grp_outcome_parse(inv->items.data, inv->items.len, &o) != 0) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    } else {
        if (inv->leader_flags)
            spx_grp_push_asked(&inv->items, inv->id, inv->leader_flags);
        if (o.want_cid || (inv->leader_flags & SPX_GRP_F_WANT_CID)) {
            uint64_t cid = spx_srv_grp_cid_take(g);
            if (cid)
                spx_grp_push_cid(&inv->items, inv->id, cid);
            else
                rc = PMIX_ERR_OUT_OF_RESOURCE;
        }
        spx_grp_outcome_fini(&o);
    }
    struct grp_record *r = NULL;
    if (rc == PMIX_SUCCESS && spx_buf_failed(&inv->items))
        rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS)
        rc = spx_srv_grp_apply_outcome(g, inv->items.data, inv->items.len, true, &r);
    if (rc != PMIX_SUCCESS || !r) {
        invite_fail(inv, rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM);
        return;
    }
    for (size_t i = 0; i < inv->n && !inv->silent; i++) {
        if (inv->state[i] == ANS_ACCEPTED)
            continue;
        pmix_info_t aff;
        PMIX_INFO_LOAD(&aff, PMIX_EVENT_AFFECTED_PROC, &inv->invitees[i], PMIX_PROC);
        spx_srv_grp_event(g->ctx, PMIX_GROUP_INVITE_FAILED, &inv->invitees[i], &inv->leader, 1,
                          inv->id, &aff, 1);
        PMIX_INFO_DESTRUCT(&aff);
    }
    pmix_info_t extra[2];
    size_t nextra = 0;
    pmix_data_array_t members = {.type = PMIX_PROC, .size = r->nmembers, .array = r->members};
    PMIX_INFO_LOAD(&extra[nextra++], PMIX_GROUP_MEMBERSHIP, &members, PMIX_DATA_ARRAY);
    size_t cid = (size_t)r->cid;
    if (r->have_cid)
        PMIX_INFO_LOAD(&extra[nextra++], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    spx_debug("group %s: invitation of %s:%u complete, %zu members", inv->id,
              inv->leader.nspace, (unsigned)inv->leader.rank, r->nmembers);
    spx_srv_grp_reply(inv->peer, inv->seq, PMIX_SUCCESS, r->outcome, r->noutcome);
    size_t nun = 0;
    pmix_proc_t *un = unanswered(inv, &nun);
    done_everywhere(g, inv->id, &inv->leader, PMIX_SUCCESS, r->outcome, r->noutcome, un, nun);
    free(un);
    if (!inv->silent) {
        /* the members hear it, and a leader that only invited */
        pmix_proc_t *to = inv->leader_member ? NULL : malloc((r->nmembers + 1) * sizeof(*to));
        if (to) {
            memcpy(to, r->members, r->nmembers * sizeof(*to));
            to[r->nmembers] = inv->leader;
        }
        spx_srv_grp_event(g->ctx, PMIX_GROUP_CONSTRUCT_COMPLETE, &inv->leader,
                          to ? to : r->members, r->nmembers + (to ? 1 : 0), inv->id, extra,
                          nextra);
        free(to);
    }
    for (size_t i = 0; i < nextra; i++)
        PMIX_INFO_DESTRUCT(&extra[i]);
    invite_free(inv);
}

/* An answer of joiner to inv (enum spx_grp_answer); item: its MEMBER item
 * (borrowed) when it accepted. */
static void invite_answer(struct grp_invite *inv, const pmix_proc_t *joiner, uint8_t answer,
                          const uint8_t *item, size_t nitem)
{
    struct spx_srv_grp *g = inv->g;
    pmix_proc_t *hit = bsearch(joiner, inv->invitees, inv->n, sizeof(*joiner), proc_cmp);
    if (!hit || inv->state[hit - inv->invitees] != ANS_PENDING) {
        if (answer != SPX_GRP_ANSWER_GONE)
            spx_warn("group %s: answer of %s:%u, who is not invited or answered already: "
                     "ignored", inv->id, joiner->nspace, (unsigned)joiner->rank);
        return;
    }
    size_t i = (size_t)(hit - inv->invitees);
    if (answer == SPX_GRP_ANSWER_GONE) {
        /* finalized or died on its node without answering: as on one node */
        spx_debug("group %s: invitee %s:%u went away without answering", inv->id,
                  joiner->nspace, (unsigned)joiner->rank);
        inv->state[i] = ANS_FAILED;
        invite_resolve(inv);
        return;
    }
    bool accept = answer == SPX_GRP_ANSWER_ACCEPT;
    if (accept) {
        /* the item must be exactly one MEMBER item of the joiner, for this group */
        spx_grp_outcome_t o;
        bool ok = spx_grp_outcome_parse(item, nitem, &o) == 0;
        ok = ok && o.n == 1 && !o.have_cid && proc_eq(&o.m[0].proc, joiner) &&
             strcmp(o.grp, inv->id) == 0;
        if (o.n)
            spx_grp_outcome_fini(&o);
        if (!ok) {
            spx_warn("group %s: malformed acceptance of %s:%u: counted as failed", inv->id,
                     joiner->nspace, (unsigned)joiner->rank);
            accept = false;
        } else {
            spx_buf_push_raw(&inv->items, item, nitem);
        }
    }
    inv->state[i] = accept ? ANS_ACCEPTED : ANS_DECLINED;
    if (!inv->silent) {
        inv->unseen++;
        spx_srv_grp_event(g->ctx,
                          accept ? PMIX_GROUP_INVITE_ACCEPTED : PMIX_GROUP_INVITE_DECLINED,
                          joiner, &inv->leader, 1, inv->id, NULL, 0);
    }
    invite_resolve(inv);
}

static void invite_timeout(void *arg)
{
    struct grp_invite *inv = arg;
    inv->timer = NULL; /* fired */
    inv->unseen = 0;   /* the leader's handlers had their time too */
    spx_warn("group %s: invitation timed out", inv->id);
    for (size_t i = 0; i < inv->n; i++)
        if (inv->state[i] == ANS_PENDING)
            inv->state[i] = ANS_FAILED;
    invite_resolve(inv);
}

/* The invitees as sorted unique procs without the leader (WILDCARD expanded
 * by the namespace's PMIX_JOB_SIZE). */
static pmix_status_t expand_invitees(struct spx_srv_ctx *ctx, const pmix_proc_t *leader,
                                     const pmix_proc_t *procs, size_t nprocs, pmix_proc_t **out,
                                     size_t *nout)
{
    size_t n = 0, cap = 0;
    pmix_proc_t *res = NULL;
    for (size_t i = 0; i < nprocs; i++) {
        size_t first = procs[i].rank, count = 1;
        if (procs[i].rank == PMIX_RANK_WILDCARD) {
            struct spx_srv_ns *ns = spx_srv_ns_find(ctx, procs[i].nspace);
            const pmix_value_t *v = ns ? spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD,
                                                        PMIX_JOB_SIZE, NULL)
                                       : NULL;
            if (!v || v->type != PMIX_UINT32) {
                free(res);
                return PMIX_ERR_BAD_PARAM; /* a namespace this server does not know */
            }
            first = 0;
            count = v->data.uint32;
        } else if (procs[i].rank >= PMIX_RANK_VALID) {
            free(res);
            return PMIX_ERR_BAD_PARAM;
        }
        if (count > SPX_GRP_MAX_MEMBERS || n + count > SPX_GRP_MAX_MEMBERS) {
            free(res);
            return PMIX_ERR_BAD_PARAM;
        }
        if (n + count > cap) {
            size_t nc = 2 * (n + count);
            pmix_proc_t *p = realloc(res, nc * sizeof(*p));
            if (!p) {
                free(res);
                return PMIX_ERR_NOMEM;
            }
            res = p;
            cap = nc;
        }
        for (size_t k = 0; k < count; k++)
            spx_proc_load(&res[n++], procs[i].nspace, (pmix_rank_t)(first + k));
    }
    if (n)
        qsort(res, n, sizeof(*res), proc_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!proc_eq(&res[i], leader) && (m == 0 || !proc_eq(&res[m - 1], &res[i])))
            res[m++] = res[i];
    *out = res;
    *nout = m;
    return PMIX_SUCCESS;
}

pmix_status_t spx_srv_grp_lowest(struct spx_srv_ctx *ctx, const pmix_proc_t *procs, size_t n,
                                 pmix_proc_t *low)
{
    pmix_proc_t none, *all = NULL;
    size_t nall = 0;
    memset(&none, 0, sizeof(none));
    pmix_status_t rc = expand_invitees(ctx, &none, procs, n, &all, &nall);
    if (rc == PMIX_SUCCESS && nall == 0)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc == PMIX_SUCCESS)
        *low = all[0]; /* sorted */
    free(all);
    return rc;
}

/* Whether an invitee can no longer answer: lost (died, its node lost), or a
 * local client that connected and went away or finalized. */
static bool invitee_gone(struct spx_srv_ctx *ctx, const pmix_proc_t *proc)
{
    if (ctx->mn && spx_srv_mn_set_gone(ctx, proc, 1, false) != PMIX_SUCCESS)
        return true;
    struct spx_srv_client *cl = spx_srv_client_find(ctx, proc->nspace, proc->rank);
    return cl && cl->connected_once && (!cl->peer || cl->finalized);
}

pmix_status_t spx_srv_grp_invite_start(struct spx_srv_grp *g, struct spx_srv_peer *p, uint32_t seq,
                                       const char *id, const pmix_proc_t *procs, size_t nprocs,
                                       const pmix_info_t *info, size_t ninfo, bool silent,
                                       const pmix_proc_t *announce, size_t nannounce)
{
    if (nprocs == 0)
        return PMIX_ERR_BAD_PARAM;
    if (invite_find(g, id, &p->proc))
        return PMIX_ERR_EXISTS;
    struct grp_invite *inv = calloc(1, sizeof(*inv));
    if (!inv)
        return PMIX_ERR_NOMEM;
    inv->g = g;
    memcpy(inv->id, id, strlen(id) + 1);
    inv->leader = p->proc;
    inv->peer = p;
    spx_srv_peer_ref(p);
    inv->seq = seq;
    inv->optional = spx_info_flag(info, ninfo, PMIX_GROUP_OPTIONAL) ||
                    (silent && spx_info_flag(info, ninfo, PMIX_GROUP_FT_COLLECTIVE));
    inv->silent = silent;
    spx_buf_init(&inv->items);
    LIST_INSERT_HEAD(&g->invites, inv, link);
    pmix_info_t *ginfo = NULL;
    size_t nginfo = 0;
    pmix_status_t rc = expand_invitees(g->ctx, &p->proc, procs, nprocs, &inv->invitees, &inv->n);
    if (rc == PMIX_SUCCESS && inv->n && !(inv->state = calloc(inv->n, 1)))
        rc = PMIX_ERR_NOMEM;
    /* a leader that does not list itself invites others into a group it is
     * not in (OpenPMIx master): its item is left out of the outcome */
    for (size_t i = 0; i < nprocs && !inv->leader_member; i++)
        inv->leader_member = strncmp(procs[i].nspace, p->proc.nspace, PMIX_MAX_NSLEN) == 0 &&
                             (procs[i].rank == p->proc.rank ||
                              procs[i].rank == PMIX_RANK_WILDCARD);
    inv->leader_member |= silent; /* a construct's lowest member leads it */
    if (rc == PMIX_SUCCESS)
        rc = spx_srv_grp_take_info(info, ninfo, &ginfo, &nginfo);
    if (rc == PMIX_SUCCESS && inv->leader_member) {
        spx_srv_grp_push_member(g, &inv->items, id, &p->proc, spx_srv_grp_flags(info, ninfo),
                                ginfo, nginfo);
        if (spx_buf_failed(&inv->items))
            rc = PMIX_ERR_NOMEM;
    } else {
        /* no item of its own: a context id it asks for is still assigned */
        inv->leader_flags = spx_srv_grp_flags(info, ninfo);
    }
    spx_info_array_free(ginfo, nginfo);
    long timeout = spx_srv_info_int(info, ninfo, PMIX_TIMEOUT, 0);
    if (rc == PMIX_SUCCESS && timeout > 0 &&
        !(inv->timer = spx_timer_start((double)timeout, invite_timeout, inv)))
        rc = PMIX_ERR_NOMEM;
    if (rc != PMIX_SUCCESS) {
        invite_free(inv);
        return rc;
    }
    spx_debug("group %s: %s:%u invites %zu processes", id, p->proc.nspace,
              (unsigned)p->proc.rank, inv->n);
    if (!silent)
        spx_srv_grp_event(g->ctx, PMIX_GROUP_INVITED, &p->proc, inv->invitees, inv->n, id, NULL,
                          0);
    else if (nannounce) /* a construct's PMIX_GROUP_ADD_MEMBERS: they are invited */
        spx_srv_grp_event(g->ctx, PMIX_GROUP_INVITED, &p->proc, announce, nannounce, id, NULL, 0);
    /* the invitees' nodes answer for those that go away without answering */
    spx_srv_grp_watch_send(g, id, &p->proc, inv->invitees, inv->n);
    for (size_t i = 0; i < inv->n; i++) /* invitees that went away before it */
        if (invitee_gone(g->ctx, &inv->invitees[i]))
            inv->state[i] = ANS_FAILED;
    /* answers that came first */
    struct grp_answer *a, *next;
    for (a = LIST_FIRST(&g->answers); a; a = next) {
        next = LIST_NEXT(a, link);
        if (strcmp(a->id, id) != 0 || !proc_eq(&a->leader, &p->proc))
            continue;
        LIST_REMOVE(a, link);
        struct grp_invite *still = invite_find(g, id, &p->proc);
        if (still)
            invite_answer(still, &a->joiner, a->accept, a->item, a->nitem);
        free(a->item);
        free(a);
    }
    if (invite_find(g, id, &p->proc) == inv)
        invite_resolve(inv); /* nobody else invited, or all answered already */
    return PMIX_SUCCESS;
}

/* ---- joins ---- */

pmix_status_t spx_srv_grp_join_start(struct spx_srv_grp *g, struct spx_srv_peer *p, uint32_t seq,
                                     const char *id, bool accept, const pmix_proc_t *leader,
                                     const pmix_info_t *info, size_t ninfo)
{
    struct spx_srv_ctx *ctx = g->ctx;
    uint32_t node = leader ? node_of(ctx, leader) : UINT32_MAX;
    if (leader && node == UINT32_MAX)
        return PMIX_ERR_NOT_FOUND; /* a leader no node of this step hosts */
    if (leader && proc_eq(leader, &p->proc))
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t late = leader ? late_take(g, id, leader, &p->proc) : PMIX_SUCCESS;
    if (late != PMIX_SUCCESS) /* the invitation ended without this answer */
        return accept ? late : (spx_srv_grp_reply(p, seq, PMIX_SUCCESS, NULL, 0), PMIX_SUCCESS);
    spx_buf_t b;
    spx_buf_init(&b);
    pmix_status_t rc = PMIX_SUCCESS;
    if (leader) {
        spx_srv_grp_watch_drop(g, id, leader, &p->proc); /* it answers now */
        spx_buf_t item;
        spx_buf_init(&item);
        if (accept) {
            pmix_info_t *ginfo = NULL;
            size_t nginfo = 0;
            rc = spx_srv_grp_take_info(info, ninfo, &ginfo, &nginfo);
            spx_srv_grp_push_member(g, &item, id, &p->proc, spx_srv_grp_flags(info, ninfo),
                                    ginfo, nginfo);
            spx_info_array_free(ginfo, nginfo);
        }
        spx_srv_grp_push_answer(&b, id, leader, &p->proc,
                                accept ? SPX_GRP_ANSWER_ACCEPT : SPX_GRP_ANSWER_DECLINE,
                                item.data, item.len);
        spx_buf_fini(&item);
        if (rc == PMIX_SUCCESS && spx_buf_failed(&b))
            rc = PMIX_ERR_NOMEM;
    }
    if (rc != PMIX_SUCCESS) {
        spx_buf_fini(&b);
        return rc;
    }
    if (!accept || !leader) {
        /* nothing to wait for: answered now, with empty results */
        spx_srv_grp_reply(p, seq, PMIX_SUCCESS, NULL, 0);
        if (leader && send_to(g, node, &b) != 0)
            spx_warn("group %s: could not tell the leader of a decline", id);
        spx_buf_fini(&b);
        return PMIX_SUCCESS;
    }
    struct grp_join *j = calloc(1, sizeof(*j));
    if (!j) {
        spx_buf_fini(&b);
        return PMIX_ERR_NOMEM;
    }
    j->peer = p;
    spx_srv_peer_ref(p);
    j->seq = seq;
    memcpy(j->id, id, strlen(id) + 1);
    j->leader = *leader;
    j->joiner = p->proc;
    LIST_INSERT_HEAD(&g->joins, j, link);
    if (spx_srv_mn_node_is_lost(ctx, node) || send_to(g, node, &b) != 0)
        joins_finish(g, id, leader, &p->proc, PMIX_GROUP_LEADER_FAILED, NULL, 0);
    spx_buf_fini(&b);
    return PMIX_SUCCESS;
}

/* ---- the leader's handlers ---- */

void spx_srv_grp_answer_seen(struct spx_srv_grp *g, const pmix_proc_t *leader, const char *id)
{
    struct grp_invite *inv = invite_find(g, id, leader);
    if (!inv || !inv->unseen)
        return; /* resolved meanwhile (timeout), or a stray acknowledgement */
    inv->unseen--;
    invite_resolve(inv);
}

bool spx_srv_grp_abort(struct spx_srv_grp *g, const pmix_proc_t *proc, const char *id,
                       const pmix_proc_t *procs, size_t nprocs)
{
    struct grp_invite *inv = invite_find(g, id, proc);
    if (inv) {
        invite_fail(inv, PMIX_GROUP_CONSTRUCT_ABORT);
        return true;
    }
    if (nprocs) /* after the leader failed: a participant aborts for everyone */
        spx_srv_grp_event(g->ctx, PMIX_GROUP_CONSTRUCT_ABORT, proc, procs, nprocs, id, NULL, 0);
    return false;
}

/* ---- choosing a new leader (node 0 decides) ---- */

static void select_free(struct spx_srv_grp *g, struct grp_select *x)
{
    TAILQ_REMOVE(&g->selects, x, link);
    g->nselects--;
    free(x->parts);
    free(x->voted);
    free(x);
}

static struct grp_select *select_get(struct spx_srv_grp *g, const char *id,
                                     const pmix_proc_t *old, const pmix_proc_t *parts, size_t n)
{
    struct grp_select *x;
    TAILQ_FOREACH(x, &g->selects, link)
        if (strcmp(x->id, id) == 0 && proc_eq(&x->old, old))
            return x;
    if (!(x = calloc(1, sizeof(*x))) || (n && (!(x->parts = malloc(n * sizeof(*parts))) ||
                                              !(x->voted = calloc(n, 1))))) {
        if (x) {
            free(x->parts);
            free(x);
        }
        return NULL;
    }
    snprintf(x->id, sizeof(x->id), "%s", id);
    x->old = *old;
    if (n)
        memcpy(x->parts, parts, n * sizeof(*parts));
    x->n = n;
    TAILQ_INSERT_TAIL(&g->selects, x, link);
    if (++g->nselects > GRP_MAX_SELECTS)
        select_free(g, TAILQ_FIRST(&g->selects));
    return x;
}

static void vote_apply(struct spx_srv_grp *g, const char *id, const pmix_proc_t *old,
                       const pmix_proc_t *voter, bool lead, const pmix_proc_t *parts, size_t n)
{
    struct grp_select *x = select_get(g, id, old, parts, n);
    if (!x || x->decided)
        return; /* decided already: only one may lead */
    pmix_info_t aff;
    if (lead) {
        x->decided = true;
        spx_debug("group %s: %s:%u is the new leader", id, voter->nspace, (unsigned)voter->rank);
        PMIX_INFO_LOAD(&aff, PMIX_EVENT_AFFECTED_PROC, voter, PMIX_PROC);
        spx_srv_grp_event(g->ctx, PMIX_GROUP_LEADER_SELECTED, voter, x->parts, x->n, id, &aff, 1);
        PMIX_INFO_DESTRUCT(&aff);
        return;
    }
    bool all = true;
    for (size_t i = 0; i < x->n; i++) {
        if (proc_eq(&x->parts[i], voter))
            x->voted[i] = 1;
        all &= x->voted[i] != 0;
    }
    if (all) { /* nobody stepped up */
        x->decided = true;
        PMIX_INFO_LOAD(&aff, PMIX_EVENT_AFFECTED_PROC, old, PMIX_PROC);
        spx_srv_grp_event(g->ctx, PMIX_ERR_NOT_FOUND, old, x->parts, x->n, id, &aff, 1);
        PMIX_INFO_DESTRUCT(&aff);
    }
}

void spx_srv_grp_vote(struct spx_srv_grp *g, const pmix_proc_t *voter, const char *id, bool lead,
                      const pmix_proc_t *procs, size_t nprocs)
{
    if (nprocs < 1)
        return;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, GRP_MSG_VOTE);
    spx_buf_push_str(&b, id);
    spx_codec_push_proc(&b, &procs[0]);
    spx_codec_push_proc(&b, voter);
    spx_buf_push_u8(&b, lead);
    spx_codec_push_proc_array(&b, procs + 1, nprocs - 1);
    if (spx_buf_failed(&b) || send_to(g, 0, &b) != 0)
        spx_warn("group %s: could not send a leader selection to node 0", id);
    spx_buf_fini(&b);
}

static void recv_vote(struct spx_srv_grp *g, spx_buf_t *b)
{
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t old, voter;
    spx_buf_pull_str_into(b, id, sizeof(id));
    int bad = spx_codec_pull_proc(b, &old) | spx_codec_pull_proc(b, &voter);
    uint8_t lead = spx_buf_pull_u8(b);
    pmix_proc_t *parts = NULL;
    size_t n = 0;
    if (bad || spx_buf_failed(b) || spx_codec_pull_proc_array(b, &parts, &n) != 0 ||
        spx_buf_finish(b) != 0 || !id[0] || lead > 1 || spx_srv_mn_me(g->ctx) != 0) {
        spx_warn("group: malformed leader selection dropped");
        free(parts);
        return;
    }
    vote_apply(g, id, &old, &voter, lead, parts, n);
    free(parts);
}

/* ---- the group channel ---- */

static void recv_answer(struct spx_srv_grp *g, spx_buf_t *b)
{
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader, joiner;
    spx_buf_pull_str_into(b, id, sizeof(id));
    int bad = spx_codec_pull_proc(b, &leader) | spx_codec_pull_proc(b, &joiner);
    uint8_t accept = spx_buf_pull_u8(b);
    size_t nitem = 0;
    uint8_t *item = spx_buf_pull_bytes(b, &nitem);
    if (bad || spx_buf_failed(b) || spx_buf_finish(b) != 0 || !id[0] ||
        accept > SPX_GRP_ANSWER_GONE || (accept == SPX_GRP_ANSWER_ACCEPT && !item)) {
        spx_warn("group: malformed invitation answer dropped");
        free(item);
        return;
    }
    struct grp_invite *inv = invite_find(g, id, &leader);
    if (inv) {
        invite_answer(inv, &joiner, accept, item, nitem);
        free(item);
        return;
    }
    pmix_status_t late = late_take(g, id, &leader, &joiner);
    if (late != PMIX_SUCCESS) {
        /* the invitation ended before this answer came: the joiner learns how */
        if (accept != SPX_GRP_ANSWER_GONE)
            tell_joiner(g, id, &leader, &joiner, late);
        free(item);
        return;
    }
    struct spx_srv_client *cl = spx_srv_client_find(g->ctx, leader.nspace, leader.rank);
    /* a namespace this node has not registered yet, or a leader it has not
     * registered yet (hosts register a namespace, then its clients: a joiner
     * on a faster node may answer in between), may still come: the answer
     * waits for it; a leader whose client went away fails it */
    struct spx_srv_ns *lns = cl ? NULL : spx_srv_ns_find(g->ctx, leader.nspace);
    bool unknown_yet = !cl && (!lns || !spx_srv_ns_departed(lns, leader.rank));
    if (!unknown_yet && (!cl || cl->finalized || (!cl->peer && cl->connected_once))) {
        /* no such leader here (any more; one that has not connected yet
         * may still invite): the joiner must not wait */
        if (accept != SPX_GRP_ANSWER_GONE)
            tell_joiner(g, id, &leader, &joiner, PMIX_GROUP_LEADER_FAILED);
        free(item);
        return;
    }
    struct grp_answer *a = calloc(1, sizeof(*a));
    if (!a) {
        free(item);
        return;
    }
    memcpy(a->id, id, sizeof(a->id));
    a->leader = leader;
    a->joiner = joiner;
    a->accept = accept;
    a->item = item;
    a->nitem = nitem;
    LIST_INSERT_HEAD(&g->answers, a, link);
}

static void recv_done(struct spx_srv_grp *g, spx_buf_t *b, bool remote)
{
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader, target;
    spx_buf_pull_str_into(b, id, sizeof(id));
    int bad = spx_codec_pull_proc(b, &leader) | spx_codec_pull_proc(b, &target);
    pmix_status_t status = spx_buf_pull_i32(b);
    size_t n = 0, nun = 0;
    uint8_t *outcome = spx_buf_pull_bytes(b, &n);
    pmix_proc_t *un = NULL;
    if (bad || spx_buf_failed(b) || spx_codec_pull_proc_array(b, &un, &nun) != 0 ||
        spx_buf_finish(b) != 0 || !id[0] || (status == PMIX_SUCCESS && !outcome)) {
        spx_warn("group: malformed invitation outcome dropped");
        free(outcome);
        free(un);
        return;
    }
    pmix_status_t applied = status;
    if (status == PMIX_SUCCESS && remote &&
        (applied = spx_srv_grp_apply_outcome(g, outcome, n, false, NULL)) != PMIX_SUCCESS)
        spx_warn("group %s: the outcome could not be applied here", id);
    if (remote && !target.nspace[0]) {
        late_remember(g, id, &leader, status, un, nun, false);
        spx_srv_grp_watch_drop(g, id, &leader, NULL); /* the invitation ended */
    }
    joins_finish(g, id, &leader, target.nspace[0] ? &target : NULL, applied, outcome, n);
    free(outcome);
    free(un);
}

static void group_recv_any(struct spx_srv_grp *g, spx_buf_t *b, bool remote)
{
    uint8_t kind = spx_buf_pull_u8(b);
    if (kind == GRP_MSG_ANSWER)
        recv_answer(g, b);
    else if (kind == GRP_MSG_DONE)
        recv_done(g, b, remote);
    else if (kind == GRP_MSG_VOTE)
        recv_vote(g, b);
    else if (kind == GRP_MSG_WATCH)
        spx_srv_grp_watch_recv(g, b);
    else
        spx_warn("group: message of unknown kind %u dropped", (unsigned)kind);
}

static void group_recv_local(struct spx_srv_grp *g, spx_buf_t *b)
{
    group_recv_any(g, b, false);
}

void spx_srv_grp_recv(struct spx_srv_grp *g, uint32_t from, spx_buf_t *b)
{
    (void)from;
    group_recv_any(g, b, true);
}

/* ---- losses ---- */

/* The leader of local join j is gone: the joiner hears it and its join ends (j freed). */
static void leader_failed(struct spx_srv_grp *g, struct grp_join *j)
{
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader = j->leader, joiner = j->joiner;
    memcpy(id, j->id, sizeof(id));
    pmix_info_t aff;
    PMIX_INFO_LOAD(&aff, PMIX_EVENT_AFFECTED_PROC, &leader, PMIX_PROC);
    spx_srv_grp_event(g->ctx, PMIX_GROUP_LEADER_FAILED, &leader, &joiner, 1, id, &aff, 1);
    PMIX_INFO_DESTRUCT(&aff);
    joins_finish(g, id, &leader, &joiner, PMIX_GROUP_LEADER_FAILED, NULL, 0);
}

void spx_srv_grp_invites_nspace_gone(struct spx_srv_grp *g, const char *nspace)
{
    spx_srv_grp_watch_nspace_gone(g, nspace);
    struct grp_late *l, *next;
    for (l = TAILQ_FIRST(&g->late); l; l = next) {
        next = TAILQ_NEXT(l, link);
        if (strncmp(l->leader.nspace, nspace, PMIX_MAX_NSLEN) == 0 ||
            strncmp(l->invitee.nspace, nspace, PMIX_MAX_NSLEN) == 0) {
            TAILQ_REMOVE(&g->late, l, link);
            free(l);
            g->nlate--;
        }
    }
}

void spx_srv_grp_invites_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc)
{
    spx_srv_grp_watch_proc_gone(g, proc);
    struct grp_invite *inv, *next;
    for (inv = LIST_FIRST(&g->invites); inv; inv = next) {
        next = LIST_NEXT(inv, link);
        if (proc_eq(&inv->leader, proc)) {
            invite_fail(inv, PMIX_GROUP_LEADER_FAILED);
            continue;
        }
        pmix_proc_t *hit = bsearch(proc, inv->invitees, inv->n, sizeof(*proc), proc_cmp);
        if (hit && inv->state[hit - inv->invitees] == ANS_PENDING) {
            inv->state[hit - inv->invitees] = ANS_FAILED;
            invite_resolve(inv); /* may free inv */
        }
    }
    struct grp_answer *a, *an;
    for (a = LIST_FIRST(&g->answers); a; a = an) {
        an = LIST_NEXT(a, link);
        if (proc_eq(&a->leader, proc) || proc_eq(&a->joiner, proc)) {
            if (proc_eq(&a->leader, proc) && a->accept == SPX_GRP_ANSWER_ACCEPT)
                /* waits for an invitation */
                tell_joiner(g, a->id, &a->leader, &a->joiner, PMIX_GROUP_LEADER_FAILED);
            LIST_REMOVE(a, link);
            free(a->item);
            free(a);
        }
    }
    struct grp_join *j, *jn;
    for (j = LIST_FIRST(&g->joins); j; j = jn) {
        jn = LIST_NEXT(j, link);
        if (proc_eq(&j->leader, proc)) {
            leader_failed(g, j);
            jn = LIST_FIRST(&g->joins); /* the list changed */
        }
    }
}

void spx_srv_grp_invites_node_gone(struct spx_srv_grp *g, uint32_t node)
{
    spx_srv_grp_watch_node_gone(g, node);
    struct grp_invite *inv, *next;
    for (inv = LIST_FIRST(&g->invites); inv; inv = next) {
        next = LIST_NEXT(inv, link);
        bool changed = false;
        for (size_t i = 0; i < inv->n; i++)
            if (inv->state[i] == ANS_PENDING && node_of(g->ctx, &inv->invitees[i]) == node) {
                inv->state[i] = ANS_FAILED;
                changed = true;
            }
        if (changed)
            invite_resolve(inv);
    }
    struct grp_join *j, *jn;
    for (j = LIST_FIRST(&g->joins); j; j = jn) {
        jn = LIST_NEXT(j, link);
        if (node_of(g->ctx, &j->leader) == node) {
            leader_failed(g, j);
            jn = LIST_FIRST(&g->joins); /* the list changed */
        }
    }
}

void spx_srv_grp_invites_free(struct spx_srv_grp *g)
{
    spx_srv_grp_watch_nspace_gone(g, NULL);
    while (!LIST_EMPTY(&g->invites)) {
        struct grp_invite *inv = LIST_FIRST(&g->invites);
        spx_srv_grp_reply(inv->peer, inv->seq, PMIX_ERR_NOT_AVAILABLE, NULL, 0);
        invite_free(inv);
    }
    while (!LIST_EMPTY(&g->joins)) {
        struct grp_join *j = LIST_FIRST(&g->joins);
        spx_srv_grp_reply(j->peer, j->seq, PMIX_ERR_NOT_AVAILABLE, NULL, 0);
        LIST_REMOVE(j, link);
        spx_srv_peer_unref(j->peer);
        free(j);
    }
    while (!LIST_EMPTY(&g->answers)) {
        struct grp_answer *a = LIST_FIRST(&g->answers);
        LIST_REMOVE(a, link);
        free(a->item);
        free(a);
    }
    while (!TAILQ_EMPTY(&g->selects))
        select_free(g, TAILQ_FIRST(&g->selects));
    while (!TAILQ_EMPTY(&g->late)) {
        struct grp_late *l = TAILQ_FIRST(&g->late);
        TAILQ_REMOVE(&g->late, l, link);
        free(l);
    }
    g->nlate = 0;
}
