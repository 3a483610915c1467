/* coll.c - the collective state machine (see coll.h for the protocol); its
 * records are coll_records.c's, its data's pieces coll_data.c's
 * (coll_internal.h).
 *
 * Data flow: spx_coll_start fills a collective record (creating it, or
 * taking over the PENDING one that holds messages which came early), replays
 * those messages through coll_process, and checks whether the gather is
 * complete. coll_process applies one UP/DOWN: UPs from children are merged
 * (first error wins, flags compared, data added as a piece that stays in
 * the frame it arrived in: no copy); a DOWN from the parent
 * or an ABORT ends the collective and is passed on. Every completion goes
 * through coll_complete, which unlinks the record before calling done so a
 * callback may start the next collective. Records of finished collectives
 * are freed; a per-set_id counter of local starts tells a finished
 * (set_id, seq) (dropped) from a future one (kept as PENDING).
 * Ownership: a received frame (spx_coll_msg_t.frame) is taken by
 * spx_coll_recv only when its data must outlive the call (an UP in the
 * gather, a message kept for a later start), and freed with the stored
 * message or the collective; the result goes out and to done as the list
 * of pieces.
 */
#include "config.h"
#include "tree/coll_internal.h"
#include "util/log.h"

#include <pmix.h>

#include <stdlib.h>
#include <string.h>

/* Ends c with status and the result segs[0..n) (borrowed; their bytes are
 * c's own or, outside start, a message's lent for the call). Unlinks c from
 * e->active (c is always there: only active collectives are completed), then
 * calls done (or defers the call when inside start). */
static void coll_complete(spx_coll_t *c, pmix_status_t status, const struct iovec *segs, size_t n)
{
    spx_coll_engine_t *e = c->e;
    if (c->timer) {
        if (e->io.timer_disarm)
            e->io.timer_disarm(e->arg, c->timer);
        c->timer = NULL;
    }
    TAILQ_REMOVE(&e->active, c, link);
    c->state = SPX_COLL_DONE;
    e->cnt.done++;
    e->cnt.last_msgs_sent = c->msgs_sent;
    e->cnt.last_bytes_sent = c->bytes_sent;
    e->cnt.last_payload = c->payload;
    spx_debug("tree: node %u: collective %s#%u done: %s (%zu pieces)", e->self, c->set_id,
              c->seq, PMIx_Error_string(status), n);
    if (e->in_start) {
        /* inside start every result lies in c (gather pieces, or a kept
         * DOWN taken into c->down_own): keep the array, not the bytes */
        c->final_status = status;
        if (n > 0) {
            c->final_segs = malloc(n * sizeof(*segs));
            if (c->final_segs) {
                memcpy(c->final_segs, segs, n * sizeof(*segs));
                c->final_nsegs = n;
            } else if (status == PMIX_SUCCESS) {
                c->final_status = PMIX_ERR_NOMEM;
            }
        }
        TAILQ_INSERT_TAIL(&e->deferred, c, link);
        if (e->io.defer)
            e->io.defer(e->arg);
        return;
    }
    spx_coll_deliver(c, status, segs, n);
    spx_coll_free(c);
}

/* DOWN to every child but `except`, then complete. segs borrowed. */
static void coll_finish(spx_coll_t *c, pmix_status_t status, const struct iovec *segs,
                        size_t nsegs, long except)
{
    if (status)
        nsegs = 0;
    for (uint32_t i = 0; i < c->nchild; i++)
        if ((long)c->child[i] != except)
            spx_coll_send(c, c->child[i], SPX_COLL_DOWN, status, 0, segs, nsegs);
    coll_complete(c, status, segs, nsegs);
}

/* Ends c now with an error and tells every tree neighbour but `except`. */
static void coll_abort(spx_coll_t *c, pmix_status_t status, long except)
{
    if (c->parent >= 0 && c->parent != except)
        spx_coll_send(c, (uint32_t)c->parent, SPX_COLL_UP, status, SPX_COLL_UP_ABORT, NULL, 0);
    coll_finish(c, status, NULL, 0, except);
}

/* Called when something arrived in GATHER: sends UP or decides at the root. */
static void coll_check_gather(spx_coll_t *c)
{
    if (c->state != SPX_COLL_GATHER || c->ngot < c->nchild)
        return;
    if (c->parent < 0) {
        pmix_status_t st = c->status;
        if (st == PMIX_SUCCESS && (c->flags & SPX_TREE_F_ANY))
            st = PMIX_ERR_NOT_AVAILABLE; /* stand-ins only: nobody to complete it for */
        if (st == PMIX_SUCCESS && c->mismatch) {
            spx_warn("tree: collective %s#%u: nodes disagree on the collective's flags",
                     c->set_id, c->seq);
            st = PMIX_ERR_BAD_PARAM;
        }
        coll_finish(c, st, c->segs, c->nsegs, -1);
        return;
    }
    c->state = SPX_COLL_WAIT_DOWN;
    if (spx_coll_send(c, (uint32_t)c->parent, SPX_COLL_UP, c->status,
                      c->mismatch ? SPX_COLL_UP_MISMATCH : 0, c->status ? NULL : c->segs,
                      c->status ? 0 : c->nsegs) < 0)
        coll_abort(c, PMIX_ERR_UNREACH, c->parent);
}

/* Applies one message to a started collective. Returns whether it took
 * m->frame (kept with the data it holds, freed with c); if not, the frame
 * stays the caller's. */
static bool coll_process(spx_coll_t *c, uint32_t from, const spx_coll_msg_t *m)
{
    spx_coll_engine_t *e = c->e;
    if (m->kind == SPX_COLL_DOWN) {
        if ((long)from != c->parent) {
            spx_warn("tree: node %u: collective %s#%u: DOWN from node %u, not my parent: dropped",
                     e->self, c->set_id, c->seq, from);
            e->cnt.dropped++;
            return false;
        }
        if (c->state == SPX_COLL_GATHER && m->status == PMIX_SUCCESS) {
            spx_warn("tree: node %u: collective %s#%u: result from node %u before my UP: dropped",
                     e->self, c->set_id, c->seq, from);
            e->cnt.dropped++;
            return false;
        }
        /* the result goes on to the children and to done in the frame's
         * bytes, during this call; only a completion deferred out of start
         * reads them later, so then the frame stays with c */
        struct iovec v = { .iov_base = (void *)m->data, .iov_len = m->len };
        bool take = e->in_start && m->frame;
        if (take) {
            c->down_own = m->frame;
        } else if (e->in_start && m->len) { /* lent bytes must outlive the call */
            if (!(c->down_own = malloc(m->len))) {
                coll_abort(c, PMIX_ERR_NOMEM, (long)from);
                return false;
            }
            memcpy(c->down_own, m->data, m->len);
            v.iov_base = c->down_own;
            e->cnt.bytes_copied += m->len;
        }
        coll_finish(c, m->status, &v, m->len ? 1 : 0, (long)from);
        return take;
    }
    uint32_t i;
    for (i = 0; i < c->nchild && c->child[i] != from; i++)
        ;
    if (i == c->nchild) {
        spx_warn("tree: node %u: collective %s#%u: UP from node %u, not my child: dropped",
                 e->self, c->set_id, c->seq, from);
        e->cnt.dropped++;
        return false;
    }
    if (m->up_flags & SPX_COLL_UP_ABORT) {
        spx_info("tree: node %u: collective %s#%u aborted by node %u: %s", e->self, c->set_id,
                 c->seq, from, PMIx_Error_string(m->status));
        coll_abort(c, m->status ? m->status : PMIX_ERROR, (long)from);
        return false;
    }
    if (c->got[i] || c->state != SPX_COLL_GATHER) {
        spx_info("tree: node %u: collective %s#%u: duplicate UP from node %u dropped", e->self,
                 c->set_id, c->seq, from);
        e->cnt.dropped++;
        return false;
    }
    c->got[i] = 1;
    c->ngot++;
    if (c->status == PMIX_SUCCESS && m->status != PMIX_SUCCESS)
        c->status = m->status;
    /* a node that contributes for departed processes only (SPX_TREE_F_ANY)
     * agrees with any flags: it takes those of the first real ones it meets */
    if ((c->flags & SPX_TREE_F_ANY) && !(m->flags & SPX_TREE_F_ANY))
        c->flags = m->flags;
    else if ((m->flags != c->flags && !(m->flags & SPX_TREE_F_ANY)) ||
             (m->up_flags & SPX_COLL_UP_MISMATCH))
        c->mismatch = true;
    spx_coll_gather_add(c, m->frame, m->data, m->len, true);
    coll_check_gather(c);
    return m->frame != NULL;
}

bool spx_coll_recv(spx_coll_engine_t *e, uint32_t from, const spx_coll_msg_t *m)
{
    if (from >= e->nnodes || from == e->self || !m->set_id ||
        (m->kind != SPX_COLL_UP && m->kind != SPX_COLL_DOWN) ||
        strlen(m->set_id) > SPX_COLL_MAX_SET_ID) {
        spx_warn("tree: node %u: malformed collective message from node %u dropped", e->self,
                 from);
        e->cnt.dropped++;
        return false;
    }
    spx_coll_t *c = spx_coll_find(e, m->set_id, m->seq);
    if (!c) {
        spx_coll_set_t *s = spx_coll_set_find(e, m->set_id);
        if (s && m->seq < s->started) {
            spx_info("tree: node %u: message for finished collective %s#%u from node %u dropped",
                     e->self, m->set_id, m->seq, from);
            e->cnt.dropped++;
            return false;
        }
        c = spx_coll_new(e, m->set_id, m->seq);
        if (!c) {
            e->cnt.dropped++;
            return false;
        }
    }
    if (c->state == SPX_COLL_PENDING)
        return spx_coll_store_msg(c, from, m);
    return coll_process(c, from, m);
}

static bool nodes_valid(const spx_coll_engine_t *e, const uint32_t *nodes, size_t n,
                        uint32_t *pos)
{
    bool self = false;
    for (size_t i = 0; i < n; i++) {
        if (nodes[i] >= e->nnodes || (i > 0 && nodes[i] <= nodes[i - 1]))
            return false;
        if (nodes[i] == e->self) {
            self = true;
            *pos = (uint32_t)i;
        }
    }
    return self;
}

/* spx_coll_start and spx_coll_start_segs: exactly one of done, done_segs. */
static int coll_start(spx_coll_engine_t *e, const char *set_id, const uint32_t *nodes,
                      size_t nnodes, uint32_t flags, pmix_status_t status, const void *data,
                      size_t len, double timeout, spx_tree_done_f done,
                      spx_tree_done_segs_f done_segs, void *arg)
{
    uint32_t pos = 0;
    if (!set_id || strlen(set_id) > SPX_COLL_MAX_SET_ID || !nodes || nnodes == 0 ||
        nnodes > e->nnodes || (!done && !done_segs) || (len && !data) || e->in_start ||
        !nodes_valid(e, nodes, nnodes, &pos)) {
        spx_error("tree: node %u: invalid collective start (%s)", e->self,
                  set_id ? set_id : "no set id");
        return -1;
    }
    spx_coll_set_t *s = spx_coll_set_get(e, set_id);
    if (!s)
        return -1;
    uint32_t seq = s->started;
    spx_coll_t *c = spx_coll_find(e, set_id, seq);
    if (!c && !(c = spx_coll_new(e, set_id, seq)))
        return -1;
    uint32_t m = (uint32_t)nnodes;
    c->nodes = malloc(nnodes * sizeof(uint32_t));
    uint32_t *kids = calloc(e->width, sizeof(uint32_t));
    c->got = calloc(e->width, 1);
    c->child = calloc(e->width, sizeof(uint32_t));
    c->segs = calloc(e->width + 1, sizeof(*c->segs));
    c->owns = calloc(e->width + 1, sizeof(*c->owns));
    if (!c->nodes || !kids || !c->got || !c->child || !c->segs || !c->owns) {
        free(kids);
        if (c->state == SPX_COLL_PENDING && STAILQ_EMPTY(&c->stored)) {
            TAILQ_REMOVE(&e->active, c, link);
            spx_coll_free(c);
        }
        return -1;
    }
    s->started++;
    memcpy(c->nodes, nodes, nnodes * sizeof(uint32_t));
    c->m = m;
    c->pos = pos;
    long ppos = spx_tree_topo_parent(pos, m, e->width);
    c->parent = ppos < 0 ? -1 : (long)nodes[ppos];
    c->nchild = spx_tree_topo_children(pos, m, e->width, kids);
    for (uint32_t i = 0; i < c->nchild; i++)
        c->child[i] = nodes[kids[i]];
    free(kids);
    c->flags = flags;
    c->ghost = (flags & SPX_TREE_F_ANY) != 0;
    c->status = status;
    c->done = done;
    c->done_segs = done_segs;
    c->arg = arg;
    c->payload = len;
    c->state = SPX_COLL_GATHER;
    e->in_start = true;
    spx_coll_gather_add(c, NULL, data, len, false); /* our own contribution: copied, it is lent */

    uint32_t lost = UINT32_MAX;
    for (size_t i = 0; i < e->nlost && lost == UINT32_MAX; i++)
        if (spx_coll_sorted_has(nodes, nnodes, e->lost[i]))
            lost = e->lost[i];
    struct spx_coll_stored_list list = STAILQ_HEAD_INITIALIZER(list);
    STAILQ_CONCAT(&list, &c->stored); /* c->stored is left empty */
    if (lost != UINT32_MAX) {
        spx_info("tree: node %u: collective %s#%u involves lost node %u", e->self, set_id, seq,
                 lost);
        coll_complete(c, PMIX_ERR_UNREACH, NULL, 0);
    } else {
        /* aborts first (a neighbour gave up before we started: so do we), then the rest */
        for (int pass = 0; pass < 2; pass++)
            for (spx_coll_stored_t *st = STAILQ_FIRST(&list); st && c->state != SPX_COLL_DONE;
                 st = STAILQ_NEXT(st, link)) {
                bool is_abort = (st->kind == SPX_COLL_UP && (st->up_flags & SPX_COLL_UP_ABORT)) ||
                                (st->kind == SPX_COLL_DOWN && st->status != PMIX_SUCCESS);
                if (is_abort != (pass == 0))
                    continue;
                spx_coll_msg_t msg = { .kind = st->kind, .set_id = set_id, .seq = seq,
                                       .status = st->status, .flags = st->flags,
                                       .up_flags = st->up_flags, .data = st->data,
                                       .len = st->len, .frame = st->own };
                if (coll_process(c, st->from, &msg))
                    st->own = NULL; /* taken: now c's */
            }
        coll_check_gather(c);
        if (c->state != SPX_COLL_DONE && timeout > 0 && e->io.timer_arm)
            c->timer = e->io.timer_arm(e->arg, timeout, c);
    }
    spx_coll_free_stored(e, &list);
    e->in_start = false;
    /* This instance timed out everywhere before our participants arrived (a kept
     * abort ended it; passing it on told our children). Arriving late, they belong
     * to the next instance of the set, as on a single node: drop this one without
     * calling done and start the next. A start that itself reports an error (our
     * own local timeout) is that instance's outcome and is not moved. */
    if (c->state == SPX_COLL_DONE && c->final_status == PMIX_ERR_TIMEOUT &&
        status == PMIX_SUCCESS && lost == UINT32_MAX) {
        TAILQ_REMOVE(&e->deferred, c, link); /* done inside this start: deferred */
        spx_coll_free(c);
        return coll_start(e, set_id, nodes, nnodes, flags, status, data, len, timeout, done,
                          done_segs, arg);
    }
    return 0;
}

int spx_coll_start(spx_coll_engine_t *e, const char *set_id, const uint32_t *nodes,
                   size_t nnodes, uint32_t flags, pmix_status_t status, const void *data,
                   size_t len, double timeout, spx_tree_done_f done, void *arg)
{
    return coll_start(e, set_id, nodes, nnodes, flags, status, data, len, timeout, done, NULL,
                      arg);
}

int spx_coll_start_segs(spx_coll_engine_t *e, const char *set_id, const uint32_t *nodes,
                        size_t nnodes, uint32_t flags, pmix_status_t status, const void *data,
                        size_t len, double timeout, spx_tree_done_segs_f done, void *arg)
{
    return coll_start(e, set_id, nodes, nnodes, flags, status, data, len, timeout, NULL, done,
                      arg);
}

void spx_coll_timeout(spx_coll_engine_t *e, spx_coll_t *c)
{
    c->timer = NULL; /* fired: nothing to disarm */
    spx_warn("tree: node %u: collective %s#%u timed out in state %s (%u of %u children)",
             e->self, c->set_id, c->seq, spx_coll_state_str(c->state), c->ngot, c->nchild);
    coll_abort(c, PMIX_ERR_TIMEOUT, -1);
}

static bool coll_involves(const spx_coll_t *c, uint32_t node)
{
    return spx_coll_sorted_has(c->nodes, c->m, node);
}

/* Does c, as it stands here, still wait for a message from node? */
static bool coll_waits_on(const spx_coll_t *c, uint32_t node)
{
    if (c->state == SPX_COLL_WAIT_DOWN)
        return c->parent == (long)node;
    if (c->state == SPX_COLL_GATHER)
        for (uint32_t i = 0; i < c->nchild; i++)
            if (c->child[i] == node && !c->got[i])
                return true;
    return false;
}

/* node is gone. Lost: every running collective involving it fails here (the
 * others learn of the loss themselves). Ended in order: only those that still
 * wait for it fail, and the abort is passed on (nobody else may notice). */
static void node_gone(spx_coll_engine_t *e, uint32_t node, bool in_order)
{
    if (node >= e->nnodes)
        return;
    if (spx_coll_lost_add(e, node) < 0)
        spx_error("tree: node %u: out of memory: later collectives with node %u may wait for it",
                  e->self, node);
    for (;;) {
        spx_coll_t *c;
        TAILQ_FOREACH(c, &e->active, link)
            if (in_order ? coll_waits_on(c, node)
                         : c->state != SPX_COLL_PENDING && coll_involves(c, node))
                break;
        if (!c)
            return;
        spx_info("tree: node %u: collective %s#%u fails: node %u %s", e->self, c->set_id,
                 c->seq, node, in_order ? "ended without taking part" : "lost");
        if (in_order)
            coll_abort(c, PMIX_ERR_UNREACH, (long)node);
        else
            coll_complete(c, PMIX_ERR_UNREACH, NULL, 0);
    }
}

void spx_coll_node_lost(spx_coll_engine_t *e, uint32_t node) { node_gone(e, node, false); }

void spx_coll_node_left(spx_coll_engine_t *e, uint32_t node) { node_gone(e, node, true); }

void spx_coll_run_deferred(spx_coll_engine_t *e)
{
    spx_coll_t *c;
    while ((c = TAILQ_FIRST(&e->deferred))) {
        TAILQ_REMOVE(&e->deferred, c, link);
        spx_coll_deliver(c, c->final_status, c->final_segs, c->final_nsegs);
        spx_coll_free(c);
    }
}

spx_coll_engine_t *spx_coll_engine_create(uint32_t self, uint32_t nnodes, uint32_t width,
                                          const spx_coll_io_t *io, void *arg)
{
    if (nnodes == 0 || self >= nnodes || !io || !io->send)
        return NULL;
    spx_coll_engine_t *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    TAILQ_INIT(&e->active);
    TAILQ_INIT(&e->deferred);
    for (size_t i = 0; i < SPX_COLL_SET_BUCKETS; i++)
        SLIST_INIT(&e->sets[i]);
    e->self = self;
    e->nnodes = nnodes;
    e->width = width ? width : SPX_TREE_DEFAULT_WIDTH;
    e->io = *io;
    e->arg = arg;
    return e;
}

void spx_coll_engine_destroy(spx_coll_engine_t *e)
{
    if (!e)
        return;
    for (;;) {
        spx_coll_t *c;
        for (c = TAILQ_FIRST(&e->active); c && c->state == SPX_COLL_PENDING;
             c = TAILQ_NEXT(c, link))
            ;
        if (!c)
            break;
        coll_complete(c, PMIX_ERR_UNREACH, NULL, 0);
    }
    spx_coll_run_deferred(e);
    spx_coll_engine_free(e); /* what is left: PENDING ones (no starter, no done), sets */
}
