/* tree.c - the public face of the tree engine: creation, the collective
 * hooks (coll.c driven over transport.c), point-to-point and broadcast
 * messages, and node loss.
 *
 * Data flow: frames from authenticated peers arrive in tree_dispatch
 * (transport.c calls up through t->up), which decodes them (every length bounded) and hands UP/DOWN to the
 * collective engine, MSG/BCAST to ops->recv, NODE_LOST to
 * tree_declare_lost. BCAST and NODE_LOST are flooded along the full tree:
 * each node forwards to its tree neighbours except the direction the frame
 * came from (subtrees are contiguous position ranges, so the direction of any
 * node is known). A lost neighbour is "transparent": the frame goes to that
 * node's other neighbours instead, so a dead interior node does not cut the
 * tree in two. Node loss: links dropped, the news flooded, the collectives
 * involving the node failed, ops->node_lost called once. Orderly departure
 * (spx_tree_leave): NODE_LEFT on every ready link, flooded on like NODE_LOST;
 * a receiver settles the departure when the leaver's links to it have closed
 * (whatever it sent before, a collective's DOWN say, is read by then), or
 * after SPX_TREE_LEAVE_SETTLE seconds, and then calls ops->node_left.
 *
 * Receive path: a frame's payload (malloc'd by the connection, net/conn.h)
 * is read in place: the data of UP/DOWN, MSG and BCAST is handed on as a
 * pointer into the frame (pull_bytes_lent); nothing is copied here. MSG and
 * BCAST are lent to ops->recv for the call. An UP or DOWN frame is handed
 * over to the collective engine with its data (spx_coll_msg_t.frame): what
 * must outlive the frame - each child's contribution until the gather is
 * complete, a message for a collective not started here - stays in it, and
 * the gathered pieces go out again from there (io_sendv: a small head with
 * the fields, then the pieces, one sendmsg). Copies of a modex payload
 * between the socket and the client that reads it: 2 on every node, the
 * root included (the server decodes it into its store, which takes the
 * decoded value as is; the server encodes it into the client's reply); see
 * lib/server/collect.c.
 */
#include "config.h"
#include "tree/auth.h"
#include "tree/internal.h"
#include "util/log.h"
#include "util/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SPX_TREE_LEAVE_SETTLE 2.0   /* s to wait for a leaving node's links to close */
#define SPX_TREE_LEAVE_FLUSH_MS 100 /* ms the leaver waits for its last frames to go */

/* ------------------------------------------------------- collective hooks */

typedef struct coll_timer {
    spx_tree_t *t;
    spx_coll_t *c;
    struct event *ev;
} coll_timer_t;

/* UP/DOWN (proto.h): the fields and the data's u32 length are encoded into a
 * small head; the data's pieces (borrowed) follow it on the wire as they
 * are, written by the connection straight from where they lie. */
static long io_sendv(void *arg, uint32_t to, const spx_coll_msg_t *m, const struct iovec *segs,
                     size_t nsegs)
{
    spx_tree_t *t = arg;
    size_t len = 0;
    for (size_t i = 0; i < nsegs; i++)
        len += segs[i].iov_len;
    if (len > SPX_BUF_MAX_BLOB || nsegs > SPX_TREE_MAX_WIDTH + 1)
        return -1; /* as spx_buf_push_bytes refuses it */
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_str(&b, m->set_id);
    spx_buf_push_u32(&b, m->seq);
    spx_buf_push_i32(&b, m->status);
    if (m->kind == SPX_COLL_UP) {
        spx_buf_push_u32(&b, m->flags);
        spx_buf_push_u8(&b, m->up_flags);
    }
    spx_buf_push_u32(&b, (uint32_t)len);
    long n = -1;
    struct iovec small[18], *v = nsegs < 18 ? small : malloc((nsegs + 1) * sizeof(*v));
    bool up = m->kind == SPX_COLL_UP;
    if (v && !spx_buf_failed(&b)) {
        v[0] = (struct iovec){ .iov_base = b.data, .iov_len = b.len };
        size_t k = 1;
        for (size_t i = 0; i < nsegs; i++)
            if (segs[i].iov_len)
                v[k++] = segs[i];
        spx_trace(up ? SPX_TR_T_UP_SEND : SPX_TR_T_DOWN_SEND, m->seq, to,
                  spx_trace_enabled ? spx_trace_hash(m->set_id) : 0);
        n = spx_tree_send_framev(t, to, up ? SPX_TREE_FRAME_UP : SPX_TREE_FRAME_DOWN, v, k);
        spx_trace(up ? SPX_TR_T_UP_SENT : SPX_TR_T_DOWN_SENT, m->seq, to, 0);
    }
    if (v != small)
        free(v);
    spx_buf_fini(&b);
    return n;
}

static long io_send(void *arg, uint32_t to, const spx_coll_msg_t *m)
{
    struct iovec v = { .iov_base = (void *)m->data, .iov_len = m->len };
    return io_sendv(arg, to, m, &v, m->len ? 1 : 0);
}

static void coll_timer_cb(evutil_socket_t fd, short w, void *arg)
{
    coll_timer_t *ct = arg;
    spx_tree_t *t = ct->t;
    spx_coll_t *c = ct->c;
    (void)fd, (void)w;
    event_free(ct->ev);
    free(ct);
    spx_coll_timeout(t->coll, c);
}

static void *io_timer_arm(void *arg, double seconds, spx_coll_t *c)
{
    spx_tree_t *t = arg;
    coll_timer_t *ct = calloc(1, sizeof(*ct));
    if (!ct)
        return NULL;
    ct->t = t;
    ct->c = c;
    ct->ev = evtimer_new(t->base, coll_timer_cb, ct);
    struct timeval tv = { (time_t)seconds, (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6) };
    if (!ct->ev || evtimer_add(ct->ev, &tv) < 0) {
        if (ct->ev)
            event_free(ct->ev);
        free(ct);
        spx_warn("tree: node %u: cannot arm a collective timer", t->self);
        return NULL;
    }
    return ct;
}

static void io_timer_disarm(void *arg, void *timer)
{
    coll_timer_t *ct = timer;
    (void)arg;
    event_free(ct->ev);
    free(ct);
}

static void io_defer(void *arg) { spx_tree_kick(arg); }

static const spx_coll_io_t tree_coll_io = { io_send, io_timer_arm, io_timer_disarm, io_defer,
                                            io_sendv };

static void defer_cb(evutil_socket_t fd, short w, void *arg)
{
    spx_tree_t *t = arg;
    (void)fd, (void)w;
    spx_coll_run_deferred(t->coll);
    spx_tree_reap(t);
}

/* ------------------------------------------------------------- flooding */

/* Tree neighbours of position x in the full tree; out has width + 1 slots. */
static uint32_t neighbours(const spx_tree_t *t, uint32_t x, uint32_t *out)
{
    uint32_t k = 0;
    long p = spx_tree_topo_parent(x, t->n, t->width);
    if (p >= 0)
        out[k++] = (uint32_t)p;
    return k + spx_tree_topo_children(x, t->n, t->width, out + k);
}

/* Sends to x, a tree neighbour of via; through x's other neighbours if x is lost. */
static void flood_to(spx_tree_t *t, uint32_t x, uint32_t via, uint8_t type, const void *d,
                     size_t len)
{
    if (t->peers[x].state == SPX_TREE_PEER_UP) {
        spx_tree_send_frame(t, x, type, d, len);
        return;
    }
    uint32_t *nb = malloc((t->width + 1) * sizeof(uint32_t));
    if (!nb)
        return;
    uint32_t k = neighbours(t, x, nb);
    for (uint32_t i = 0; i < k; i++)
        if (nb[i] != via && nb[i] != t->self)
            flood_to(t, nb[i], x, type, d, len);
    free(nb);
}

/* Does the part of the tree behind my neighbour x contain node s? */
static int behind(const spx_tree_t *t, uint32_t x, uint32_t s)
{
    if ((long)x == spx_tree_topo_parent(t->self, t->n, t->width)) {
        uint32_t mine = spx_tree_topo_subtree_size(t->self, t->n, t->width);
        return s < t->self || s >= t->self + mine;
    }
    return s >= x && s < x + spx_tree_topo_subtree_size(x, t->n, t->width);
}

/* Forwards a frame to every direction except the one `from` lies in (-1: all). */
static void flood(spx_tree_t *t, uint8_t type, const void *d, size_t len, long from)
{
    uint32_t *nb = malloc((t->width + 1) * sizeof(uint32_t));
    if (!nb)
        return;
    uint32_t k = neighbours(t, t->self, nb);
    for (uint32_t i = 0; i < k; i++)
        if (from < 0 || !behind(t, nb[i], (uint32_t)from))
            flood_to(t, nb[i], t->self, type, d, len);
    free(nb);
}

/* ------------------------------------------------------------ node loss */

const char *spx_tree_peer_state_str(spx_tree_peer_state_t s)
{
    switch (s) {
    case SPX_TREE_PEER_UP: return "UP";
    case SPX_TREE_PEER_LEAVING: return "LEAVING";
    case SPX_TREE_PEER_LEFT: return "LEFT";
    case SPX_TREE_PEER_LOST: return "LOST";
    }
    return "UNKNOWN";
}

static void settle_left(spx_tree_t *t, uint32_t node);

static void tree_declare_lost(spx_tree_t *t, uint32_t node, const char *reason, long informer)
{
    if (node >= t->n || t->destroying)
        return;
    if (node == t->self) {
        spx_warn("tree: node %u: told that I am lost (%s); ignored", t->self, reason);
        return;
    }
    spx_tree_peer_t *p = &t->peers[node];
    if (spx_tree_peer_gone(p->state))
        return;
    if (p->state == SPX_TREE_PEER_LEAVING) { /* it said it ends in order: its closing links are no failure */
        spx_debug("tree: node %u: leaving node %u: %s", t->self, node, reason);
        settle_left(t, node);
        return;
    }
    p->state = SPX_TREE_PEER_LOST;
    spx_warn("tree: node %u: node %u lost: %s", t->self, node, reason);
    spx_tree_drop_node(t, node);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, node);
    spx_buf_push_str(&b, reason);
    if (!spx_buf_failed(&b))
        flood(t, SPX_TREE_FRAME_NODE_LOST, b.data, b.len, informer);
    spx_buf_fini(&b);
    spx_coll_node_lost(t->coll, node);
    if (t->ops.node_lost)
        t->ops.node_lost(node, reason, t->ops_arg);
}

/* ------------------------------------------------------ orderly departure */

static void settle_left(spx_tree_t *t, uint32_t node)
{
    spx_tree_peer_t *p = &t->peers[node];
    if (spx_tree_peer_gone(p->state) || t->destroying)
        return;
    p->state = SPX_TREE_PEER_LEFT;
    if (p->leave_ev)
        event_del(p->leave_ev);
    spx_info("tree: node %u: node %u ended in order", t->self, node);
    spx_tree_drop_node(t, node);
    spx_coll_node_left(t->coll, node);
    if (t->ops.node_left)
        t->ops.node_left(node, t->ops_arg);
}

static void leave_settle_cb(evutil_socket_t fd, short w, void *arg)
{
    spx_tree_peer_t *p = arg;
    (void)fd, (void)w;
    spx_info("tree: node %u: node %u said it ends but its links stay open; settling", p->t->self,
             p->idx);
    settle_left(p->t, p->idx);
}

static void tree_left_check(spx_tree_t *t, uint32_t node)
{
    spx_tree_peer_t *p = &t->peers[node];
    if (p->state != SPX_TREE_PEER_LEAVING || t->destroying)
        return;
    if (!spx_tree_has_ready_link(t, node)) {
        settle_left(t, node);
        return;
    }
    if (!p->leave_ev)
        p->leave_ev = evtimer_new(t->base, leave_settle_cb, p);
    if (p->leave_ev && !evtimer_pending(p->leave_ev, NULL)) {
        struct timeval tv = { (time_t)SPX_TREE_LEAVE_SETTLE, 0 };
        evtimer_add(p->leave_ev, &tv);
    }
}

/* NODE_LEFT about node, told by informer: pass it on once, then settle when
 * node's links to us are closed. */
static void note_left(spx_tree_t *t, uint32_t node, long informer, const void *d, size_t len)
{
    spx_tree_peer_t *p = &t->peers[node];
    if (p->state != SPX_TREE_PEER_UP) {
        spx_debug("tree: node %u: node %u says it ends, already %s", t->self, node,
                  spx_tree_peer_state_str(p->state));
        return;
    }
    p->state = SPX_TREE_PEER_LEAVING;
    spx_debug("tree: node %u: node %u says it ends (told by node %ld)", t->self, node, informer);
    flood(t, SPX_TREE_FRAME_NODE_LEFT, d, len, informer);
    tree_left_check(t, node);
}

int spx_tree_leave(spx_tree_t *t)
{
    size_t busy = spx_coll_active(t->coll);
    if (busy) {
        uint32_t seq = 0;
        spx_coll_state_t st = SPX_COLL_PENDING;
        const char *set = spx_coll_some_active(t->coll, &seq, &st);
        spx_info("tree: node %u: %zu collective(s) unfinished here (e.g. %.80s#%u, %s); "
                 "ending without notice", t->self, busy, set ? set : "?", seq,
                 spx_coll_state_str(st));
        return -1;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, t->self);
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        return -1;
    }
    spx_tree_link_t *l;
    LIST_FOREACH(l, &t->links, entry) {
        if (l->state != SPX_TREE_LINK_READY || !l->conn)
            continue;
        spx_buf_t one;
        spx_buf_init(&one);
        spx_buf_push_raw(&one, b.data, b.len);
        if (!spx_buf_failed(&one))
            spx_conn_send(l->conn, SPX_TREE_FRAME_NODE_LEFT, 0, 0, &one);
        spx_buf_fini(&one);
    }
    spx_buf_fini(&b);
    double end = spx_tree_now() + SPX_TREE_LEAVE_FLUSH_MS / 1000.0;
    LIST_FOREACH(l, &t->links, entry) {
        int ms = (int)((end - spx_tree_now()) * 1000.0);
        if (l->state == SPX_TREE_LINK_READY && l->conn &&
            spx_conn_flush_wait(l->conn, ms > 0 ? ms : 0) < 0)
            spx_debug("tree: node %u: the end notice to node %u may not have gone out",
                      t->self, l->peer);
    }
    spx_debug("tree: node %u: ends in order", t->self);
    return 0;
}

/* ------------------------------------------------------------- dispatch */

/* Pulls a u32-length byte block like spx_buf_pull_bytes (same caps and
 * errors) but lends it in place: the result points into p's data, valid while
 * p is (the frame handed to tree_dispatch). NULL with *n = 0 for empty. */
static const void *pull_bytes_lent(spx_buf_t *p, size_t *n)
{
    *n = 0;
    uint32_t len = spx_buf_pull_u32(p);
    if (spx_buf_failed(p) || len == 0)
        return NULL;
    if (len > SPX_BUF_MAX_BLOB) {
        spx_buf_set_error(p, EMSGSIZE);
        return NULL;
    }
    if (len > spx_buf_remaining(p)) {
        spx_buf_set_error(p, EBADMSG);
        return NULL;
    }
    const void *d = p->data + p->pos;
    p->pos += len;
    *n = len;
    return d;
}

static int dispatch_coll(spx_tree_t *t, uint32_t from, uint8_t type, spx_buf_t *p)
{
    spx_coll_msg_t m = { .kind = type == SPX_TREE_FRAME_UP ? SPX_COLL_UP : SPX_COLL_DOWN };
    char *set_id = spx_buf_pull_str(p);
    m.seq = spx_buf_pull_u32(p);
    m.status = spx_buf_pull_i32(p);
    if (type == SPX_TREE_FRAME_UP) {
        m.flags = spx_buf_pull_u32(p);
        m.up_flags = spx_buf_pull_u8(p);
    }
    m.data = pull_bytes_lent(p, &m.len); /* the frame's bytes */
    if (spx_buf_finish(p) < 0 || !set_id || strlen(set_id) > SPX_COLL_MAX_SET_ID) {
        free(set_id);
        return -1;
    }
    spx_trace(type == SPX_TREE_FRAME_UP ? SPX_TR_T_UP_RECV : SPX_TR_T_DOWN_RECV, m.seq, from,
              spx_trace_enabled ? spx_trace_hash(set_id) : 0);
    m.set_id = set_id;
    /* offer the frame: coll.c keeps data that must outlive this call where
     * it lies (m.data points into the frame); a frame it takes is detached
     * from p (neither moved nor freed), one it leaves goes back to the
     * connection, which reuses it for the next frame */
    m.frame = p->data;
    if (spx_coll_recv(t->coll, from, &m))
        (void)spx_buf_release(p, NULL);
    free(set_id);
    return 0;
}

static int tree_dispatch(spx_tree_t *t, uint32_t from, uint8_t type, spx_buf_t *p)
{
    switch (type) {
    case SPX_TREE_FRAME_UP:
    case SPX_TREE_FRAME_DOWN:
        return dispatch_coll(t, from, type, p);
    case SPX_TREE_FRAME_MSG: {
        uint8_t ch = spx_buf_pull_u8(p);
        size_t len;
        const void *data = pull_bytes_lent(p, &len);
        if (spx_buf_finish(p) < 0)
            return -1;
        if (t->ops.recv)
            t->ops.recv(from, ch, data, len, t->ops_arg);
        return 0;
    }
    case SPX_TREE_FRAME_BCAST: {
        uint32_t origin = spx_buf_pull_u32(p);
        uint8_t ch = spx_buf_pull_u8(p);
        size_t len;
        const void *data = pull_bytes_lent(p, &len);
        if (spx_buf_finish(p) < 0 || origin >= t->n || origin == t->self)
            return -1;
        flood(t, SPX_TREE_FRAME_BCAST, p->data, p->len, (long)from);
        if (t->ops.recv)
            t->ops.recv(origin, ch, data, len, t->ops_arg);
        return 0;
    }
    case SPX_TREE_FRAME_NODE_LOST: {
        uint32_t node = spx_buf_pull_u32(p);
        char *reason = spx_buf_pull_str(p);
        if (spx_buf_finish(p) < 0 || !reason || strlen(reason) > SPX_TREE_MAX_REASON ||
            node >= t->n) {
            free(reason);
            return -1;
        }
        tree_declare_lost(t, node, reason, (long)from);
        free(reason);
        return 0;
    }
    case SPX_TREE_FRAME_NODE_LEFT: {
        uint32_t node = spx_buf_pull_u32(p);
        if (spx_buf_finish(p) < 0 || node >= t->n)
            return -1;
        if (node == t->self) {
            spx_warn("tree: node %u: told by node %u that I ended; ignored", t->self, from);
            return 0;
        }
        note_left(t, node, (long)from, p->data, p->len);
        return 0;
    }
    default:
        return -1;
    }
}

/* --------------------------------------------------------------- public */

static char **copy_addrs(const char *const *addrs, uint32_t n)
{
    char **a = calloc(n, sizeof(char *));
    if (!a)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (!addrs[i] || strlen(addrs[i]) > 1024 || !(a[i] = strdup(addrs[i]))) {
            for (uint32_t j = 0; j < i; j++)
                free(a[j]);
            free(a);
            return NULL;
        }
    }
    return a;
}

static void free_addrs(char **a, uint32_t n)
{
    for (uint32_t i = 0; a && i < n; i++)
        free(a[i]);
    free(a);
}

static const struct spx_tree_upcalls tree_upcalls = {
    .dispatch = tree_dispatch,
    .declare_lost = tree_declare_lost,
    .left_check = tree_left_check,
};

spx_tree_t *spx_tree_create(struct event_base *base, const spx_tree_config_t *cfg,
                            const spx_tree_ops_t *ops, void *ops_arg)
{
    if (!base || !cfg || cfg->nnodes == 0 || cfg->nnodes > SPX_TREE_MAX_NODES ||
        cfg->node_index >= cfg->nnodes || cfg->width > SPX_TREE_MAX_WIDTH || !cfg->addrs) {
        spx_error("tree: invalid configuration");
        return NULL;
    }
    spx_tree_auth_cfg_t ac = {.kind = cfg->auth,
                              .secret = cfg->secret,
                              .secret_len = cfg->secret_len,
                              .uids = cfg->auth_uids,
                              .nuids = cfg->auth_nuids,
                              .id = cfg->auth_id};
    char why[256];
    spx_tree_auth_t *auth = spx_tree_auth_create(&ac, why, sizeof(why));
    if (!auth) {
        spx_error("tree: invalid configuration: %s", why);
        return NULL;
    }
    spx_tree_t *t = calloc(1, sizeof(*t));
    if (!t) {
        spx_tree_auth_destroy(auth);
        return NULL;
    }
    t->auth = auth;
    t->base = base;
    t->self = cfg->node_index;
    t->n = cfg->nnodes;
    t->width = cfg->width ? cfg->width : SPX_TREE_DEFAULT_WIDTH;
    t->connect_timeout = cfg->connect_timeout > 0 ? cfg->connect_timeout : 30.0;
    t->listen_fd = -1;
    if (ops)
        t->ops = *ops;
    t->ops_arg = ops_arg;
    t->up = &tree_upcalls;
    t->addrs = copy_addrs(cfg->addrs, t->n);
    t->peers = calloc(t->n, sizeof(spx_tree_peer_t));
    t->defer_ev = evtimer_new(base, defer_cb, t);
    if (!t->addrs || !t->peers || !t->defer_ev)
        goto fail;
    t->coll = spx_coll_engine_create(t->self, t->n, t->width, &tree_coll_io, t);
    if (!t->coll || spx_tree_transport_init(t) < 0)
        goto fail;
    spx_debug("tree: node %u of %u listening on port %u (width %u)", t->self, t->n, t->port,
              t->width);
    return t;
fail:
    spx_error("tree: node %u: cannot create the engine", cfg->node_index);
    spx_tree_destroy(t);
    return NULL;
}

uint16_t spx_tree_port(const spx_tree_t *t) { return t->port; }
uint32_t spx_tree_node_index(const spx_tree_t *t) { return t->self; }
uint32_t spx_tree_nnodes(const spx_tree_t *t) { return t->n; }

int spx_tree_set_addrs(spx_tree_t *t, const char *const *addrs)
{
    char **a = addrs ? copy_addrs(addrs, t->n) : NULL;
    if (!a)
        return -1;
    free_addrs(t->addrs, t->n);
    t->addrs = a;
    return 0;
}

int spx_tree_start(spx_tree_t *t)
{
    long parent = spx_tree_topo_parent(t->self, t->n, t->width);
    if (parent >= 0)
        spx_tree_ensure_link(t, (uint32_t)parent);
    return 0;
}

void spx_tree_destroy(spx_tree_t *t)
{
    if (!t)
        return;
    spx_coll_engine_destroy(t->coll); /* completes what is pending with UNREACH */
    t->coll = NULL;
    if (t->peers)
        spx_tree_transport_fini(t);
    if (t->defer_ev)
        event_free(t->defer_ev);
    free_addrs(t->addrs, t->n);
    spx_tree_auth_destroy(t->auth);
    free(t->peers);
    free(t);
}

int spx_tree_coll_start(spx_tree_t *t, const char *set_id, const uint32_t *nodes, size_t nnodes,
                        uint32_t flags, pmix_status_t status, const void *data, size_t len,
                        double timeout, spx_tree_done_f done, void *arg)
{
    spx_trace(SPX_TR_T_START, 0, nnodes, spx_trace_enabled ? spx_trace_hash(set_id) : 0);
    return spx_coll_start(t->coll, set_id, nodes, nnodes, flags, status, data, len, timeout,
                          done, arg);
}

int spx_tree_coll_start_segs(spx_tree_t *t, const char *set_id, const uint32_t *nodes,
                             size_t nnodes, uint32_t flags, pmix_status_t status,
                             const void *data, size_t len, double timeout,
                             spx_tree_done_segs_f done, void *arg)
{
    spx_trace(SPX_TR_T_START, 0, nnodes, spx_trace_enabled ? spx_trace_hash(set_id) : 0);
    return spx_coll_start_segs(t->coll, set_id, nodes, nnodes, flags, status, data, len,
                               timeout, done, arg);
}

int spx_tree_send(spx_tree_t *t, uint32_t dst_node, uint8_t channel, const void *data, size_t len)
{
    if (dst_node >= t->n || dst_node == t->self || spx_tree_peer_gone(t->peers[dst_node].state) ||
        len > SPX_FRAME_MAX_PAYLOAD - 16 || (len && !data))
        return -1;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, channel);
    spx_buf_push_bytes(&b, data, len);
    long n = spx_buf_failed(&b) ? -1 : spx_tree_send_frame(t, dst_node, SPX_TREE_FRAME_MSG,
                                                            b.data, b.len);
    spx_buf_fini(&b);
    return n < 0 ? -1 : 0;
}

int spx_tree_bcast(spx_tree_t *t, uint8_t channel, const void *data, size_t len)
{
    if (len > SPX_FRAME_MAX_PAYLOAD - 16 || (len && !data))
        return -1;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, t->self);
    spx_buf_push_u8(&b, channel);
    spx_buf_push_bytes(&b, data, len);
    int rc = -1;
    if (!spx_buf_failed(&b)) {
        flood(t, SPX_TREE_FRAME_BCAST, b.data, b.len, -1);
        rc = 0;
    }
    spx_buf_fini(&b);
    return rc;
}

void spx_tree_get_stats(const spx_tree_t *t, spx_tree_stats_t *out)
{
    *out = t->stats;
    spx_coll_counters_t c;
    spx_coll_get_counters(t->coll, &c);
    out->colls_done = c.done;
    out->last_coll_msgs_sent = c.last_msgs_sent;
    out->last_coll_bytes_sent = c.last_bytes_sent;
    out->last_coll_payload_bytes = c.last_payload;
    out->coll_bytes_copied = c.bytes_copied;
}

uint64_t spx_tree_auth_rejects(const spx_tree_t *t) { return t->auth_rejects; }

bool spx_tree_node_is_lost(const spx_tree_t *t, uint32_t node)
{
    return node < t->n && spx_tree_peer_gone(t->peers[node].state);
}
