/* group_vote.c - choosing a new leader after one failed, in the group engine
 * (group_int.h). The participants of an invitation whose leader failed hear
 * PMIX_GROUP_LEADER_FAILED; each one's client tells its server whether it
 * steps up (LEAD: PMIX_GROUP_LEADER in a handler's results) or not
 * (NO_LEAD), and that server sends a VOTE to node 0 (group_wire.c), which
 * decides alone: the first participant that steps up is the new leader
 * (PMIX_GROUP_LEADER_SELECTED to the participants), and when every
 * participant declined the participants hear PMIX_ERR_NOT_FOUND.
 * Everything runs on the progress thread.
 */
#include "config.h"
#include "server/core.h"
#include "server/group_int.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "util/log.h"

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
        if (strcmp(x->id, id) == 0 && grp_proc_eq(&x->old, old))
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
        if (grp_proc_eq(&x->parts[i], voter))
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
    spx_srv_grp_push_vote(&b, id, &procs[0], voter, lead, procs + 1, nprocs - 1);
    if (spx_buf_failed(&b) || spx_srv_grp_send(g, 0, &b) != 0)
        spx_warn("group %s: could not send a leader selection to node 0", id);
    spx_buf_fini(&b);
}

void spx_srv_grp_vote_recv(struct spx_srv_grp *g, spx_buf_t *b)
{
    struct grp_msg_vote m;
    if (spx_srv_grp_pull_vote(b, &m) != 0 || spx_srv_mn_me(g->ctx) != 0) {
        spx_warn("group: malformed leader selection dropped");
        free(m.parts); /* pulled, but this is not node 0; else NULL */
        return;
    }
    vote_apply(g, m.id, &m.old, &m.voter, m.lead, m.parts, m.nparts);
    free(m.parts);
}

void spx_srv_grp_votes_free(struct spx_srv_grp *g)
{
    while (!TAILQ_EMPTY(&g->selects))
        select_free(g, TAILQ_FIRST(&g->selects));
}
