/* group_invite.c - groups built by invitation (PMIx_Group_invite /
 * PMIx_Group_join), in the group engine (group_int.h): the invitation on its
 * leader's node. The joiner's side is group_join.c, the messages between the
 * nodes group_wire.c, choosing a new leader group_vote.c.
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
 */
#include "config.h"
#include "server/core.h"
#include "server/group_int.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "progress/progress.h"
#include "proto/group.h"
#include "types/types.h"
#include "util/log.h"

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

/* An ANSWER that came before its invitation: kept until the invitation
 * comes or its leader goes. */
struct grp_answer {
    LIST_ENTRY(grp_answer) link;    /* in spx_srv_grp.answers */
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader, joiner;
    uint8_t accept;                 /* enum spx_grp_answer */
    uint8_t *item;                  /* owned */
    size_t nitem;
};

/* ---- DONE: the outcome of an invitation, to every node ---- */

/* Tells every node (this one answers its joins; the others also apply the outcome). */
static void done_everywhere(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                            pmix_status_t status, const void *outcome, size_t n,
                            const pmix_proc_t *unanswered, size_t nun)
{
    spx_srv_grp_late_remember(g, id, leader, status, unanswered, nun, true);
    spx_srv_grp_joins_finish(g, id, leader, NULL, status, outcome, n);
    if (!g->ctx->mn)
        return;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_srv_grp_push_done(&b, id, leader, NULL, status, outcome, n, unanswered, nun);
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
        if (strcmp(inv->id, id) == 0 && grp_proc_eq(&inv->leader, leader))
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
    pmix_proc_t *hit = bsearch(joiner, inv->invitees, inv->n, sizeof(*joiner), grp_proc_cmp);
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
        ok = ok && o.n == 1 && !o.have_cid && grp_proc_eq(&o.m[0].proc, joiner) &&
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
    pmix_status_t rc =
        spx_srv_grp_expand_procs(g->ctx, &p->proc, procs, nprocs, &inv->invitees, &inv->n);
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
        if (strcmp(a->id, id) != 0 || !grp_proc_eq(&a->leader, &p->proc))
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

/* ---- answers ---- */

void spx_srv_grp_answer_recv(struct spx_srv_grp *g, spx_buf_t *b)
{
    struct grp_msg_answer m;
    if (spx_srv_grp_pull_answer(b, &m) != 0) {
        spx_warn("group: malformed invitation answer dropped");
        return;
    }
    struct grp_invite *inv = invite_find(g, m.id, &m.leader);
    if (inv) {
        invite_answer(inv, &m.joiner, m.answer, m.item, m.nitem);
        free(m.item);
        return;
    }
    pmix_status_t late = spx_srv_grp_late_take(g, m.id, &m.leader, &m.joiner);
    if (late != PMIX_SUCCESS) {
        /* the invitation ended before this answer came: the joiner learns how */
        if (m.answer != SPX_GRP_ANSWER_GONE)
            spx_srv_grp_tell_joiner(g, m.id, &m.leader, &m.joiner, late);
        free(m.item);
        return;
    }
    struct spx_srv_client *cl = spx_srv_client_find(g->ctx, m.leader.nspace, m.leader.rank);
    /* a namespace this node has not registered yet, or a leader it has not
     * registered yet (hosts register a namespace, then its clients: a joiner
     * on a faster node may answer in between), may still come: the answer
     * waits for it; a leader whose client went away fails it */
    struct spx_srv_ns *lns = cl ? NULL : spx_srv_ns_find(g->ctx, m.leader.nspace);
    bool unknown_yet = !cl && (!lns || !spx_srv_ns_departed(lns, m.leader.rank));
    if (!unknown_yet && (!cl || cl->finalized || (!cl->peer && cl->connected_once))) {
        /* no such leader here (any more; one that has not connected yet
         * may still invite): the joiner must not wait */
        if (m.answer != SPX_GRP_ANSWER_GONE)
            spx_srv_grp_tell_joiner(g, m.id, &m.leader, &m.joiner, PMIX_GROUP_LEADER_FAILED);
        free(m.item);
        return;
    }
    struct grp_answer *a = calloc(1, sizeof(*a));
    if (!a) {
        free(m.item);
        return;
    }
    memcpy(a->id, m.id, sizeof(a->id));
    a->leader = m.leader;
    a->joiner = m.joiner;
    a->accept = m.answer;
    a->item = m.item; /* taken */
    a->nitem = m.nitem;
    LIST_INSERT_HEAD(&g->answers, a, link);
}

/* ---- losses ---- */

void spx_srv_grp_invites_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc)
{
    struct grp_invite *inv, *next;
    for (inv = LIST_FIRST(&g->invites); inv; inv = next) {
        next = LIST_NEXT(inv, link);
        if (grp_proc_eq(&inv->leader, proc)) {
            invite_fail(inv, PMIX_GROUP_LEADER_FAILED);
            continue;
        }
        pmix_proc_t *hit = bsearch(proc, inv->invitees, inv->n, sizeof(*proc), grp_proc_cmp);
        if (hit && inv->state[hit - inv->invitees] == ANS_PENDING) {
            inv->state[hit - inv->invitees] = ANS_FAILED;
            invite_resolve(inv); /* may free inv */
        }
    }
    struct grp_answer *a, *an;
    for (a = LIST_FIRST(&g->answers); a; a = an) {
        an = LIST_NEXT(a, link);
        if (grp_proc_eq(&a->leader, proc) || grp_proc_eq(&a->joiner, proc)) {
            if (grp_proc_eq(&a->leader, proc) && a->accept == SPX_GRP_ANSWER_ACCEPT)
                /* waits for an invitation */
                spx_srv_grp_tell_joiner(g, a->id, &a->leader, &a->joiner,
                                        PMIX_GROUP_LEADER_FAILED);
            LIST_REMOVE(a, link);
            free(a->item);
            free(a);
        }
    }
}

void spx_srv_grp_invites_node_gone(struct spx_srv_grp *g, uint32_t node)
{
    struct grp_invite *inv, *next;
    for (inv = LIST_FIRST(&g->invites); inv; inv = next) {
        next = LIST_NEXT(inv, link);
        bool changed = false;
        for (size_t i = 0; i < inv->n; i++)
            if (inv->state[i] == ANS_PENDING &&
                spx_srv_grp_node_of(g->ctx, &inv->invitees[i]) == node) {
                inv->state[i] = ANS_FAILED;
                changed = true;
            }
        if (changed)
            invite_resolve(inv);
    }
}

void spx_srv_grp_invites_free(struct spx_srv_grp *g)
{
    while (!LIST_EMPTY(&g->invites)) {
        struct grp_invite *inv = LIST_FIRST(&g->invites);
        spx_srv_grp_reply(inv->peer, inv->seq, PMIX_ERR_NOT_AVAILABLE, NULL, 0);
        invite_free(inv);
    }
    while (!LIST_EMPTY(&g->answers)) {
        struct grp_answer *a = LIST_FIRST(&g->answers);
        LIST_REMOVE(a, link);
        free(a->item);
        free(a);
    }
}
