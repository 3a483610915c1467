/* group_join.c - the joiner's side of an invitation, in the group engine
 * (group_int.h): a local process's JOIN_ACCEPT / JOIN_DECLINE goes to its
 * leader's node as an ANSWER (group_wire.c; an accept carries the joiner's
 * MEMBER item, made here), and an accept waits here (struct grp_join) for the
 * invitation's DONE, which every node gets from the leader's node and applies.
 * A decline, and an accept that names no leader, is answered at once.
 *
 * Invitees too late: an invitee that had not answered when its invitation
 * ended is remembered (struct grp_late, on the leader's node and on the
 * invitee's own), so that its join, when it comes, ends at once with the
 * invitation's status instead of waiting for an outcome already given.
 * A join whose leader goes away (dies, finalizes, its node is lost) ends with
 * PMIX_GROUP_LEADER_FAILED, an event to the joiner and its status.
 * Everything runs on the progress thread.
 */
#include "config.h"
#include "server/core.h"
#include "server/group_int.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/types.h"
#include "util/log.h"

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
pmix_status_t spx_srv_grp_late_take(struct spx_srv_grp *g, const char *id,
                                    const pmix_proc_t *leader, const pmix_proc_t *invitee)
{
    struct grp_late *l;
    TAILQ_FOREACH(l, &g->late, link)
        if (strcmp(l->id, id) == 0 && grp_proc_eq(&l->leader, leader) &&
            grp_proc_eq(&l->invitee, invitee)) {
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
void spx_srv_grp_late_remember(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                               pmix_status_t status, const pmix_proc_t *unanswered, size_t nun,
                               bool leader_node)
{
    for (size_t i = 0; i < nun; i++) {
        bool waiting = false;
        struct grp_join *j;
        LIST_FOREACH(j, &g->joins, link)
            waiting |= strcmp(j->id, id) == 0 && grp_proc_eq(&j->leader, leader) &&
                       grp_proc_eq(&j->joiner, &unanswered[i]);
        if (!waiting && (leader_node || spx_srv_proc_is_local(g->ctx, unanswered[i].nspace,
                                                              unanswered[i].rank)))
            late_add(g, id, leader, &unanswered[i], status);
    }
}

/* Answers the local joins of (id, leader) - only target's when given. */
void spx_srv_grp_joins_finish(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                              const pmix_proc_t *target, pmix_status_t status,
                              const void *outcome, size_t n)
{
    struct grp_join *j, *next;
    for (j = LIST_FIRST(&g->joins); j; j = next) {
        next = LIST_NEXT(j, link);
        if (strcmp(j->id, id) != 0 || !grp_proc_eq(&j->leader, leader) ||
            (target && !grp_proc_eq(&j->joiner, target)))
            continue;
        spx_srv_grp_reply(j->peer, j->seq, status, status == PMIX_SUCCESS ? outcome : NULL, n);
        LIST_REMOVE(j, link);
        spx_srv_peer_unref(j->peer);
        free(j);
    }
}

/* ---- joins ---- */

pmix_status_t spx_srv_grp_join_start(struct spx_srv_grp *g, struct spx_srv_peer *p, uint32_t seq,
                                     const char *id, bool accept, const pmix_proc_t *leader,
                                     const pmix_info_t *info, size_t ninfo)
{
    struct spx_srv_ctx *ctx = g->ctx;
    uint32_t node = leader ? spx_srv_grp_node_of(ctx, leader) : UINT32_MAX;
    if (leader && node == UINT32_MAX)
        return PMIX_ERR_NOT_FOUND; /* a leader no node of this step hosts */
    if (leader && grp_proc_eq(leader, &p->proc))
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t late = leader ? spx_srv_grp_late_take(g, id, leader, &p->proc) : PMIX_SUCCESS;
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
        if (leader && spx_srv_grp_send(g, node, &b) != 0)
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
    if (spx_srv_mn_node_is_lost(ctx, node) || spx_srv_grp_send(g, node, &b) != 0)
        spx_srv_grp_joins_finish(g, id, leader, &p->proc, PMIX_GROUP_LEADER_FAILED, NULL, 0);
    spx_buf_fini(&b);
    return PMIX_SUCCESS;
}

void spx_srv_grp_tell_joiner(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                              const pmix_proc_t *joiner, pmix_status_t status)
{
    spx_buf_t d;
    spx_buf_init(&d);
    spx_srv_grp_push_done(&d, id, leader, joiner, status, NULL, 0, NULL, 0);
    uint32_t node = spx_srv_grp_node_of(g->ctx, joiner);
    if (!spx_buf_failed(&d) && node != UINT32_MAX)
        spx_srv_grp_send(g, node, &d);
    spx_buf_fini(&d);
}

void spx_srv_grp_done_recv(struct spx_srv_grp *g, spx_buf_t *b, bool remote)
{
    struct grp_msg_done m;
    if (spx_srv_grp_pull_done(b, &m) != 0) {
        spx_warn("group: malformed invitation outcome dropped");
        return;
    }
    pmix_status_t applied = m.status;
    if (m.status == PMIX_SUCCESS && remote &&
        (applied = spx_srv_grp_apply_outcome(g, m.outcome, m.noutcome, false, NULL)) !=
            PMIX_SUCCESS)
        spx_warn("group %s: the outcome could not be applied here", m.id);
    if (remote && !m.target.nspace[0]) {
        spx_srv_grp_late_remember(g, m.id, &m.leader, m.status, m.unanswered, m.nunanswered,
                                  false);
        spx_srv_grp_watch_drop(g, m.id, &m.leader, NULL); /* the invitation ended */
    }
    spx_srv_grp_joins_finish(g, m.id, &m.leader, m.target.nspace[0] ? &m.target : NULL, applied,
                             m.outcome, m.noutcome);
    free(m.outcome);
    free(m.unanswered);
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
    spx_srv_grp_joins_finish(g, id, &leader, &joiner, PMIX_GROUP_LEADER_FAILED, NULL, 0);
}

void spx_srv_grp_joins_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc)
{
    struct grp_join *j, *jn;
    for (j = LIST_FIRST(&g->joins); j; j = jn) {
        jn = LIST_NEXT(j, link);
        if (grp_proc_eq(&j->leader, proc)) {
            leader_failed(g, j);
            jn = LIST_FIRST(&g->joins); /* the list changed */
        }
    }
}

void spx_srv_grp_joins_node_gone(struct spx_srv_grp *g, uint32_t node)
{
    struct grp_join *j, *jn;
    for (j = LIST_FIRST(&g->joins); j; j = jn) {
        jn = LIST_NEXT(j, link);
        if (spx_srv_grp_node_of(g->ctx, &j->leader) == node) {
            leader_failed(g, j);
            jn = LIST_FIRST(&g->joins); /* the list changed */
        }
    }
}

void spx_srv_grp_joins_nspace_gone(struct spx_srv_grp *g, const char *nspace)
{
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

void spx_srv_grp_joins_free(struct spx_srv_grp *g)
{
    while (!LIST_EMPTY(&g->joins)) {
        struct grp_join *j = LIST_FIRST(&g->joins);
        spx_srv_grp_reply(j->peer, j->seq, PMIX_ERR_NOT_AVAILABLE, NULL, 0);
        LIST_REMOVE(j, link);
        spx_srv_peer_unref(j->peer);
        free(j);
    }
    while (!TAILQ_EMPTY(&g->late)) {
        struct grp_late *l = TAILQ_FIRST(&g->late);
        TAILQ_REMOVE(&g->late, l, link);
        free(l);
    }
    g->nlate = 0;
}
