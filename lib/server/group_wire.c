/* group_wire.c - the group channel between the servers' group engines
 * (SPX_SRV_CH_GROUP, group_int.h): the encoding of its messages, sending one
 * to a node (this node's own is handled at once, as if it came), and handing
 * each that comes to its handler (struct spx_srv_grp_upcalls: they live in
 * the files above this one).
 *
 * Messages (u8 kind first; every field bounded by the codec):
 *   ANSWER  str id, proc leader, proc joiner, u8 accept (enum spx_grp_answer),
 *           bytes item (the joiner's MEMBER item for an accept): to the
 *           leader's node (group_join.c, group_watch.c -> group_invite.c)
 *   DONE    str id, proc leader, proc target (nspace "": every joiner),
 *           i32 status, bytes outcome (empty unless PMIX_SUCCESS),
 *           proc[] the invitees that had not answered (struct grp_late):
 *           from the leader's node (group_invite.c -> group_join.c)
 *   VOTE    (to node 0) str id, proc failed leader, proc voter, u8 steps up,
 *           proc[] participants: node 0 raises PMIX_GROUP_LEADER_SELECTED from
 *           the first that steps up, or with PMIX_ERR_NOT_FOUND when all
 *           participants declined (group_vote.c)
 *   WATCH   str id, proc leader, proc[] invitees (group_watch.c, which
 *           encodes it itself)
 * Everything runs on the progress thread.
 */
#include "config.h"
#include "server/core.h"
#include "server/group_int.h"

#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "util/log.h"

/* The kind byte (GRP_MSG_WATCH: group_watch.c's too). */
enum { GRP_MSG_ANSWER = 1, GRP_MSG_DONE = 2, GRP_MSG_VOTE = 3, GRP_MSG_WATCH = 4 };

/* Node of proc, UINT32_MAX when unknown; this node in single-node mode. */
uint32_t spx_srv_grp_node_of(struct spx_srv_ctx *ctx, const pmix_proc_t *proc)
{
    if (!ctx->mn)
        return 0;
    struct spx_srv_ns *ns = spx_srv_ns_find(ctx, proc->nspace);
    return ns ? spx_srv_ns_node_of(ns, proc->rank) : UINT32_MAX;
}

static void group_recv_any(struct spx_srv_grp *g, spx_buf_t *b, bool remote);

int spx_srv_grp_send(struct spx_srv_grp *g, uint32_t node, spx_buf_t *b)
{
    if (node == spx_srv_mn_me(g->ctx)) {
        spx_buf_t in;
        spx_buf_init_borrowed(&in, b->data, b->len);
        group_recv_any(g, &in, false);
        spx_buf_fini(&in);
        return 0;
    }
    return spx_srv_mn_send(g->ctx, node, SPX_SRV_CH_GROUP, b);
}

/* ---- ANSWER ---- */

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

int spx_srv_grp_pull_answer(spx_buf_t *b, struct grp_msg_answer *m)
{
    spx_buf_pull_str_into(b, m->id, sizeof(m->id));
    int bad = spx_codec_pull_proc(b, &m->leader) | spx_codec_pull_proc(b, &m->joiner);
    m->answer = spx_buf_pull_u8(b);
    m->nitem = 0;
    m->item = spx_buf_pull_bytes(b, &m->nitem);
    if (bad || spx_buf_failed(b) || spx_buf_finish(b) != 0 || !m->id[0] ||
        m->answer > SPX_GRP_ANSWER_GONE || (m->answer == SPX_GRP_ANSWER_ACCEPT && !m->item)) {
        free(m->item);
        m->item = NULL;
        return -1;
    }
    return 0;
}

/* ---- DONE ---- */

void spx_srv_grp_push_done(spx_buf_t *b, const char *id, const pmix_proc_t *leader,
                           const pmix_proc_t *target, pmix_status_t status,
                           const void *outcome, size_t n, const pmix_proc_t *unanswered,
                           size_t nun)
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

int spx_srv_grp_pull_done(spx_buf_t *b, struct grp_msg_done *m)
{
    spx_buf_pull_str_into(b, m->id, sizeof(m->id));
    int bad = spx_codec_pull_proc(b, &m->leader) | spx_codec_pull_proc(b, &m->target);
    m->status = spx_buf_pull_i32(b);
    m->noutcome = 0;
    m->nunanswered = 0;
    m->outcome = spx_buf_pull_bytes(b, &m->noutcome);
    m->unanswered = NULL;
    if (bad || spx_buf_failed(b) ||
        spx_codec_pull_proc_array(b, &m->unanswered, &m->nunanswered) != 0 ||
        spx_buf_finish(b) != 0 || !m->id[0] || (m->status == PMIX_SUCCESS && !m->outcome)) {
        free(m->outcome);
        free(m->unanswered);
        m->outcome = NULL;
        m->unanswered = NULL;
        return -1;
    }
    return 0;
}

/* ---- VOTE ---- */

void spx_srv_grp_push_vote(spx_buf_t *b, const char *id, const pmix_proc_t *old,
                           const pmix_proc_t *voter, bool lead, const pmix_proc_t *parts,
                           size_t nparts)
{
    spx_buf_push_u8(b, GRP_MSG_VOTE);
    spx_buf_push_str(b, id);
    spx_codec_push_proc(b, old);
    spx_codec_push_proc(b, voter);
    spx_buf_push_u8(b, lead);
    spx_codec_push_proc_array(b, parts, nparts);
}

int spx_srv_grp_pull_vote(spx_buf_t *b, struct grp_msg_vote *m)
{
    spx_buf_pull_str_into(b, m->id, sizeof(m->id));
    int bad = spx_codec_pull_proc(b, &m->old) | spx_codec_pull_proc(b, &m->voter);
    m->lead = spx_buf_pull_u8(b);
    m->parts = NULL;
    m->nparts = 0;
    if (bad || spx_buf_failed(b) || spx_codec_pull_proc_array(b, &m->parts, &m->nparts) != 0 ||
        spx_buf_finish(b) != 0 || !m->id[0] || m->lead > 1) {
        free(m->parts);
        m->parts = NULL;
        return -1;
    }
    return 0;
}

/* ---- what comes ---- */

static void group_recv_any(struct spx_srv_grp *g, spx_buf_t *b, bool remote)
{
    uint8_t kind = spx_buf_pull_u8(b);
    if (kind == GRP_MSG_ANSWER)
        g->up->answer_recv(g, b);
    else if (kind == GRP_MSG_DONE)
        g->up->done_recv(g, b, remote);
    else if (kind == GRP_MSG_VOTE)
        g->up->vote_recv(g, b);
    else if (kind == GRP_MSG_WATCH)
        g->up->watch_recv(g, b);
    else
        spx_warn("group: message of unknown kind %u dropped", (unsigned)kind);
}

void spx_srv_grp_recv(struct spx_srv_grp *g, uint32_t from, spx_buf_t *b)
{
    (void)from;
    group_recv_any(g, b, true);
}
