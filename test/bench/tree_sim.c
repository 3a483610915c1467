/* tree_sim.c - the simulated network of tree_sim.h: the engines' io (frames
 * encoded as the tree transport does, queued), the delivery loop, node loss.
 */
#include "config.h"

#include "tree_sim.h"

#include "codec/buf.h"
#include "codec/frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the queue ---- */

static int q_push(tsim_t *s, const tsim_msg_t *m)
{
    if (s->qlen == s->qcap) {
        size_t ncap = s->qcap ? 2 * s->qcap : 1024;
        tsim_msg_t *nq = malloc(ncap * sizeof(*nq));
        if (!nq)
            return -1;
        for (size_t i = 0; i < s->qlen; i++)
            nq[i] = s->q[(s->qhead + i) % s->qcap];
        free(s->q);
        s->q = nq;
        s->qcap = ncap;
        s->qhead = 0;
    }
    s->q[(s->qhead + s->qlen) % s->qcap] = *m;
    s->qlen++;
    s->q_bytes += m->len;
    if (s->q_bytes > s->q_peak_bytes)
        s->q_peak_bytes = s->q_bytes;
    return 0;
}

/* Takes the next message to deliver (s->qlen > 0). */
static tsim_msg_t q_pop(tsim_t *s)
{
    tsim_msg_t m;
    if (s->fifo) {
        m = s->q[s->qhead];
        s->qhead = (s->qhead + 1) % s->qcap;
    } else {
        m = s->q[(s->qhead + s->qlen - 1) % s->qcap];
    }
    s->qlen--;
    s->q_bytes -= m.len;
    return m;
}

/* ---- the engines' io ---- */

/* As lib/tree/tree.c io_sendv: the fields, the data's length, the pieces
 * (borrowed) copied after them into one frame, queued for `to`. */
static long sim_sendv(void *arg, uint32_t to, const spx_coll_msg_t *m, const struct iovec *segs,
                      size_t nsegs)
{
    tsim_ep_t *ep = arg;
    tsim_t *s = ep->sim;
    if (to >= s->n || s->ep[to].dead) {
        s->lost_msgs++;
        return -1;
    }
    size_t len = 0;
    for (size_t i = 0; i < nsegs; i++)
        len += segs[i].iov_len;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_reserve(&b, 64 + strlen(m->set_id) + len);
    spx_buf_push_str(&b, m->set_id);
    spx_buf_push_u32(&b, m->seq);
    spx_buf_push_i32(&b, m->status);
    if (m->kind == SPX_COLL_UP) {
        spx_buf_push_u32(&b, m->flags);
        spx_buf_push_u8(&b, m->up_flags);
    }
    spx_buf_push_u32(&b, (uint32_t)len);
    size_t head = b.len;
    for (size_t i = 0; i < nsegs; i++)
        spx_buf_push_raw(&b, segs[i].iov_base, segs[i].iov_len);
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        return -1;
    }
    tsim_msg_t q = { .from = ep->idx, .to = to, .kind = m->kind };
    q.frame = spx_buf_release(&b, &q.len); /* now the queue's */
    long wire = (long)(SPX_FRAME_HDR_LEN + q.len);
    ep->msgs++;
    ep->bytes += (uint64_t)wire;
    if (s->sabotage == 1 && m->kind == SPX_COLL_DOWN && len > 0) {
        ((uint8_t *)q.frame)[head + len / 2] ^= 0x5a;
        s->sabotage = 0;
    } else if (s->sabotage == 2 && m->kind == SPX_COLL_UP) {
        free(q.frame); /* lost on the wire: the sender believes it went */
        s->sabotage = 0;
        return wire;
    }
    if (q_push(s, &q) < 0) {
        free(q.frame);
        return -1;
    }
    return wire;
}

static long sim_send(void *arg, uint32_t to, const spx_coll_msg_t *m)
{
    struct iovec v = { .iov_base = (void *)m->data, .iov_len = m->len };
    return sim_sendv(arg, to, m, &v, m->len ? 1 : 0);
}

static void sim_defer(void *arg)
{
    tsim_ep_t *ep = arg;
    if (!ep->deferred) {
        ep->deferred = true;
        ep->sim->defer[ep->sim->ndefer++] = ep->idx;
    }
}

/* no timer_arm: collectives have no timers here (the harness bounds its loops) */
static const spx_coll_io_t sim_io = { .send = sim_send, .defer = sim_defer, .sendv = sim_sendv };

/* ---- delivery ---- */

/* Decodes m's frame as tree.c dispatch_coll does and offers it to the
 * destination; frees it unless the engine took it. */
static void deliver(tsim_t *s, tsim_msg_t *q)
{
    tsim_ep_t *ep = &s->ep[q->to];
    spx_buf_t b;
    spx_buf_init_borrowed(&b, q->frame, q->len);
    spx_coll_msg_t m = { .kind = q->kind };
    char *set_id = spx_buf_pull_str(&b);
    m.seq = spx_buf_pull_u32(&b);
    m.status = spx_buf_pull_i32(&b);
    if (q->kind == SPX_COLL_UP) {
        m.flags = spx_buf_pull_u32(&b);
        m.up_flags = spx_buf_pull_u8(&b);
    }
    m.len = spx_buf_pull_u32(&b);
    if (spx_buf_failed(&b) || !set_id || m.len != spx_buf_remaining(&b)) {
        fprintf(stderr, "tree_sim: undecodable frame from %u to %u (a bug of the sim)\n",
                q->from, q->to);
        abort();
    }
    m.data = (const uint8_t *)q->frame + b.pos;
    m.set_id = set_id;
    m.frame = q->frame;
    spx_buf_fini(&b);
    s->delivered++;
    if (s->count_early) {
        int st = spx_coll_query(ep->e, set_id, m.seq);
        s->early += st < 0 || st == SPX_COLL_PENDING;
    }
    if (!spx_coll_recv(ep->e, q->from, &m))
        free(q->frame);
    free(set_id);
}

bool tsim_step(tsim_t *s)
{
    if (s->ndefer) {
        tsim_ep_t *ep = &s->ep[s->defer[--s->ndefer]];
        ep->deferred = false;
        if (!ep->dead)
            spx_coll_run_deferred(ep->e);
        return true;
    }
    if (!s->qlen)
        return false;
    tsim_msg_t q = q_pop(s);
    deliver(s, &q);
    return true;
}

void tsim_kill(tsim_t *s, uint32_t node)
{
    if (node >= s->n || s->ep[node].dead)
        return;
    s->ep[node].dead = true;
    size_t keep = 0;
    for (size_t i = 0; i < s->qlen; i++) {
        tsim_msg_t m = s->q[(s->qhead + i) % s->qcap];
        if (m.from == node || m.to == node) {
            free(m.frame);
            s->q_bytes -= m.len;
            s->lost_msgs++;
        } else {
            s->q[(s->qhead + keep++) % s->qcap] = m;
        }
    }
    s->qlen = keep;
    for (uint32_t i = 0; i < s->n; i++)
        if (!s->ep[i].dead)
            spx_coll_node_lost(s->ep[i].e, node);
}

void tsim_reset_counts(tsim_t *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        s->ep[i].msgs = s->ep[i].bytes = 0;
    s->q_peak_bytes = s->q_bytes;
}

/* ---- life ---- */

int tsim_init(tsim_t *s, uint32_t n, uint32_t width, bool fifo)
{
    memset(s, 0, sizeof(*s));
    s->n = n;
    s->width = width;
    s->fifo = fifo;
    s->ep = calloc(n, sizeof(*s->ep));
    s->defer = calloc(n, sizeof(*s->defer));
    if (!s->ep || !s->defer) {
        free(s->ep);
        free(s->defer);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        s->ep[i].sim = s;
        s->ep[i].idx = i;
    }
    return 0;
}

int tsim_create_engines(tsim_t *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (!(s->ep[i].e = spx_coll_engine_create(i, s->n, s->width, &sim_io, &s->ep[i])))
            return -1;
    return 0;
}

void tsim_fini(tsim_t *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        spx_coll_engine_destroy(s->ep[i].e); /* NULL-safe */
    while (s->qlen) {
        tsim_msg_t m = q_pop(s);
        free(m.frame);
    }
    free(s->q);
    free(s->ep);
    free(s->defer);
    memset(s, 0, sizeof(*s));
}
