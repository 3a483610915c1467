/* transport.c - TCP links between tree engines: listening, lazy connects
 * with retries, framing and sending, per-node send queues. How a link
 * proves itself before it carries frames (the mutual challenge/response,
 * a tool's munge steps, the deadline) is handshake.c's.
 *
 * Outgoing: spx_tree_send_frame queues a frame for a node without a ready
 * link and starts a non-blocking connect (retried every
 * SPX_TREE_RETRY_INTERVAL until the node's deadline, since peers start in
 * any order). Once TCP is up handshake.c sends HELLO; when it says the link
 * is authenticated the link becomes ready: the queue is flushed onto it.
 * Incoming: accept (at most SPX_TREE_MAX_UNAUTH connections still
 * authenticating), then every frame goes to handshake.c until the link is
 * ready; a PMIx tool's connection leaves the tree there (handed to
 * ops.tool_accept) and counts among the unauthenticated ones until then.
 * A ready link's frames go up to tree.c (t->up->dispatch).
 * A ready link that closes means the node is lost (tree.c broadcasts it),
 * or, for a node that said it leaves, that its departure may settle
 * (t->up->left_check); an outgoing attempt that fails is retried until the
 * deadline, then the node is declared lost too.
 */
#include "config.h"
#include "tree/internal.h"
#include "util/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static void link_on_frame(spx_conn_t *c, const spx_frame_hdr_t *h, spx_buf_t *p, void *arg);
static void link_on_close(spx_conn_t *c, const char *reason, void *arg);

double spx_tree_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void spx_tree_kick(spx_tree_t *t)
{
    struct timeval zero = { 0, 0 };
    event_add(t->defer_ev, &zero);
}

/* "host:port" -> sockaddr (numeric hosts, or names through the resolver). */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *sl)
{
    const char *colon = addr ? strrchr(addr, ':') : NULL;
    if (!colon || colon == addr || (size_t)(colon - addr) >= 256)
        return -1;
    char host[256];
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = 0;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -1;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *sl = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---------------------------------------------------------------- links */

static void link_bury(spx_tree_link_t *l)
{
    spx_tree_t *t = l->t;
    LIST_REMOVE(l, entry); /* from t->links */
    LIST_INSERT_HEAD(&t->graveyard, l, entry);
    l->state = SPX_TREE_LINK_CLOSED;
    l->conn = NULL;
    if (l->ev)
        event_del(l->ev);
    if (l->auth_ev)
        event_del(l->auth_ev);
    if (l->fd >= 0) {
        close(l->fd);
        l->fd = -1;
    }
    spx_tree_kick(t);
}

void spx_tree_reap(spx_tree_t *t)
{
    spx_tree_link_t *l;
    while ((l = LIST_FIRST(&t->graveyard))) {
        LIST_REMOVE(l, entry);
        if (l->ev)
            event_free(l->ev);
        if (l->auth_ev)
            event_free(l->auth_ev);
        free(l);
    }
}

static spx_tree_link_t *link_new(spx_tree_t *t, bool outgoing, uint32_t peer)
{
    spx_tree_link_t *l = calloc(1, sizeof(*l));
    if (!l)
        return NULL;
    l->t = t;
    l->fd = -1;
    l->sock = -1;
    l->outgoing = outgoing;
    l->peer = peer;
    l->auth_ev = evtimer_new(t->base, spx_tree_handshake_timeout_cb, l);
    if (!l->auth_ev) {
        free(l);
        return NULL;
    }
    LIST_INSERT_HEAD(&t->links, l, entry);
    return l;
}

static void flush_pending(spx_tree_peer_t *p)
{
    spx_tree_pend_t *x;
    while ((x = STAILQ_FIRST(&p->pending)) && p->send_link) {
        STAILQ_REMOVE_HEAD(&p->pending, entry);
        p->pending_bytes -= x->len;
        /* counted when queued */
        struct iovec v = { .iov_base = x->data, .iov_len = x->len };
        spx_conn_sendv(p->send_link->conn, x->type, 0, 0, &v, x->len ? 1 : 0);
        free(x->data);
        free(x);
    }
}

static void free_pending(spx_tree_peer_t *p)
{
    spx_tree_pend_t *x;
    while ((x = STAILQ_FIRST(&p->pending))) {
        STAILQ_REMOVE_HEAD(&p->pending, entry);
        free(x->data);
        free(x);
    }
    p->pending_bytes = 0;
}

static void link_ready(spx_tree_link_t *l)
{
    spx_tree_t *t = l->t;
    spx_tree_peer_t *p = &t->peers[l->peer];
    l->state = SPX_TREE_LINK_READY;
    spx_conn_set_max_payload(l->conn, SIZE_MAX);   /* authenticated: any frame */
    event_del(l->auth_ev);
    if (!l->outgoing)
        t->n_unauth--;
    if (p->connecting == l)
        p->connecting = NULL;
    if (spx_tree_peer_gone(p->state)) {
        spx_conn_close(l->conn, "tree: node already declared lost", 1);
        return;
    }
    spx_debug("tree: node %u: link to node %u ready (%s)", t->self, l->peer,
              l->outgoing ? "outgoing" : "incoming");
    /* frames the engine does not keep (a DOWN, MSG, BCAST): their block is
     * read into again, so a fence's large frames do not fault in fresh
     * pages each time */
    spx_conn_keep_spare(l->conn, SPX_TREE_SPARE_MAX);
    if (!p->send_link) {
        p->send_link = l;
        flush_pending(p);
    }
}

static void link_on_frame(spx_conn_t *c, const spx_frame_hdr_t *h, spx_buf_t *p, void *arg)
{
    spx_tree_link_t *l = arg;
    spx_tree_t *t = l->t;
    (void)c;
    t->stats.msgs_recv++;
    t->stats.bytes_recv += SPX_FRAME_HDR_LEN + h->length;
    if (l->state != SPX_TREE_LINK_READY) {
        if (spx_tree_handshake_frame(l, h->type, p))
            link_ready(l);
        return;
    }
    if (h->type == SPX_TREE_FRAME_AUTH) {
        spx_conn_close(l->conn, "tree: authentication frame on an authenticated link", 1);
        return;
    }
    /* NODE_LEFT about the sender itself is the last frame on this link */
    bool own_end = h->type == SPX_TREE_FRAME_NODE_LEFT && p->len >= 4 &&
                   ((uint32_t)p->data[0] | (uint32_t)p->data[1] << 8 |
                    (uint32_t)p->data[2] << 16 | (uint32_t)p->data[3] << 24) == l->peer;
    if (t->up->dispatch(t, l->peer, h->type, p) < 0 && l->state == SPX_TREE_LINK_READY) {
        spx_warn("tree: node %u: malformed frame (type 0x%x, %s) from node %u; closing",
                 t->self, h->type, spx_tree_frame_type_str(h->type), l->peer);
        spx_conn_close(l->conn, "tree: malformed frame", 1);
    } else if (own_end && l->state == SPX_TREE_LINK_READY && l->conn) {
        spx_conn_close(l->conn, "tree: node ended in order", 0);
    }
}

static void retry_cb(evutil_socket_t fd, short w, void *arg);

/* An outgoing attempt failed: retry until the deadline, then the node is lost. */
static void attempt_failed(spx_tree_t *t, uint32_t node, const char *reason)
{
    spx_tree_peer_t *p = &t->peers[node];
    p->connecting = NULL;
    if (t->destroying || spx_tree_peer_gone(p->state) || p->send_link)
        return;
    if (spx_tree_now() < p->deadline) {
        struct timeval tv = spx_tree_timeval(SPX_TREE_RETRY_INTERVAL);
        event_add(p->retry_ev, &tv);
        return;
    }
    char why[300];
    snprintf(why, sizeof(why), "cannot connect to node %u (%s): %s", node,
             t->addrs[node] ? t->addrs[node] : "?", reason);
    t->up->declare_lost(t, node, why, -1);
}

static void link_on_close(spx_conn_t *c, const char *reason, void *arg)
{
    spx_tree_link_t *l = arg;
    spx_tree_t *t = l->t;
    (void)c;
    spx_tree_link_state_t state = l->state;
    uint32_t node = l->peer;
    if (!l->outgoing && state != SPX_TREE_LINK_READY)
        t->n_unauth--;
    link_bury(l);
    if (t->destroying)
        return;
    spx_tree_peer_t *p = state == SPX_TREE_LINK_READY || l->outgoing ? &t->peers[node] : NULL;
    if (p && p->send_link == l)
        p->send_link = NULL;
    if (state == SPX_TREE_LINK_READY && spx_tree_peer_said_left(t->peers[node].state)) {
        t->up->left_check(t, node); /* it said it ends: settled once all its links closed */
    } else if (state == SPX_TREE_LINK_READY) {
        /* A node that ends normally closes all its links at once; its last
         * frames (a collective's DOWN) may still wait unread on another link
         * whose end has not been seen yet: read them before calling it lost. */
        spx_tree_link_t *others[4];
        size_t n = 0;
        for (spx_tree_link_t *o = LIST_FIRST(&t->links); o && n < 4; o = LIST_NEXT(o, entry))
            if (o != l && o->peer == node && o->state == SPX_TREE_LINK_READY && o->conn)
                others[n++] = o; /* draining may bury links: pick them first */
        for (size_t i = 0; i < n; i++)
            if (others[i]->state == SPX_TREE_LINK_READY && others[i]->conn)
                spx_conn_drain(others[i]->conn);
        char why[300];
        snprintf(why, sizeof(why), "connection to node %u lost: %s", node, reason);
        t->up->declare_lost(t, node, why, -1);
    } else if (l->outgoing && p->connecting == l) {
        attempt_failed(t, node, reason);
    } else {
        spx_debug("tree: node %u: unauthenticated connection closed in state %s: %s", t->self,
                  spx_tree_link_state_str(state), reason);
    }
}

/* For tests and the fuzz target: fd becomes an authenticated link to node,
 * as if its handshake had just succeeded. */
int spx_tree_adopt_link(spx_tree_t *t, uint32_t node, int fd)
{
    if (node >= t->n || node == t->self || t->destroying) {
        close(fd);
        return -1;
    }
    spx_tree_link_t *l = link_new(t, true, node);
    if (!l) {
        close(fd);
        return -1;
    }
    char label[64];
    snprintf(label, sizeof(label), "tree node %u (adopted)", node);
    l->conn = spx_conn_create(t->base, fd, label, link_on_frame, link_on_close, l);
    if (!l->conn) { /* spx_conn_create closed fd */
        link_bury(l);
        return -1;
    }
    link_ready(l);
    return 0;
}

/* ---- outgoing connects ---- */

static void connected_cb(evutil_socket_t fd, short w, void *arg)
{
    spx_tree_link_t *l = arg;
    spx_tree_t *t = l->t;
    (void)w;
    int err = 0;
    socklen_t el = sizeof(err);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
        err = errno;
    if (err) {
        uint32_t node = l->peer;
        link_bury(l);
        attempt_failed(t, node, strerror(err));
        return;
    }
    char label[300];
    snprintf(label, sizeof(label), "tree node %u (%s)", l->peer, t->addrs[l->peer]);
    l->fd = -1; /* the connection owns it now */
    l->conn = spx_conn_create(t->base, fd, label, link_on_frame, link_on_close, l);
    if (!l->conn) {
        uint32_t node = l->peer;
        link_bury(l);
        attempt_failed(t, node, "cannot create connection");
        return;
    }
    spx_tree_handshake_connect(l); /* HELLO: the link is ready once it is answered */
}

static void connect_now(spx_tree_t *t, uint32_t node)
{
    spx_tree_peer_t *p = &t->peers[node];
    struct sockaddr_storage ss;
    socklen_t sl;
    if (parse_addr(t->addrs[node], &ss, &sl) < 0) {
        char why[300];
        snprintf(why, sizeof(why), "bad address for node %u: %s", node,
                 t->addrs[node] ? t->addrs[node] : "(none)");
        t->up->declare_lost(t, node, why, -1);
        return;
    }
    spx_tree_link_t *l = link_new(t, true, node);
    if (!l) {
        attempt_failed(t, node, "out of memory");
        return;
    }
    p->connecting = l;
    l->state = SPX_TREE_LINK_CONNECTING;
    l->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0) {
        int e = errno;
        link_bury(l);
        attempt_failed(t, node, strerror(e));
        return;
    }
    set_nodelay(l->fd);
    if (connect(l->fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
        int e = errno;
        link_bury(l);
        attempt_failed(t, node, strerror(e));
        return;
    }
    l->ev = event_new(t->base, l->fd, EV_WRITE, connected_cb, l);
    if (!l->ev || event_add(l->ev, NULL) < 0) {
        link_bury(l);
        attempt_failed(t, node, "cannot watch the socket");
    }
}

static void retry_cb(evutil_socket_t fd, short w, void *arg)
{
    spx_tree_peer_t *p = arg;
    (void)fd, (void)w;
    if (!spx_tree_peer_gone(p->state) && !p->send_link && !p->connecting && !p->t->destroying)
        connect_now(p->t, p->idx);
}

void spx_tree_ensure_link(spx_tree_t *t, uint32_t node)
{
    spx_tree_peer_t *p = &t->peers[node];
    if (node == t->self || spx_tree_peer_gone(p->state) || p->send_link || p->connecting ||
        evtimer_pending(p->retry_ev, NULL))
        return;
    p->deadline = spx_tree_now() + t->connect_timeout;
    connect_now(t, node);
}

long spx_tree_send_frame(spx_tree_t *t, uint32_t node, uint8_t type, const void *payload,
                         size_t len)
{
    struct iovec v = { .iov_base = (void *)payload, .iov_len = len };
    return spx_tree_send_framev(t, node, type, &v, len ? 1 : 0);
}

long spx_tree_send_framev(spx_tree_t *t, uint32_t node, uint8_t type, const struct iovec *iov,
                          size_t niov)
{
    if (node >= t->n || node == t->self || t->destroying)
        return -1;
    spx_tree_peer_t *p = &t->peers[node];
    if (spx_tree_peer_gone(p->state))
        return -1;
    size_t len = 0;
    for (size_t i = 0; i < niov; i++) {
        if (iov[i].iov_len > SPX_FRAME_MAX_PAYLOAD - len)
            return -1;
        len += iov[i].iov_len;
    }
    if (p->send_link)
        return spx_tree_link_sendv(t, p->send_link->conn, type, iov, niov, len);
    if (len > SPX_TREE_MAX_PENDING - p->pending_bytes) {
        spx_warn("tree: node %u: more than %u bytes queued for unconnected node %u", t->self,
                 SPX_TREE_MAX_PENDING, node);
        return -1;
    }
    spx_tree_pend_t *x = calloc(1, sizeof(*x));
    if (!x || (len && !(x->data = malloc(len)))) {
        free(x);
        return -1;
    }
    for (size_t i = 0, at = 0; i < niov; at += iov[i].iov_len, i++) /* no link yet: kept */
        if (iov[i].iov_len)
            memcpy((uint8_t *)x->data + at, iov[i].iov_base, iov[i].iov_len);
    x->len = len;
    x->type = type;
    STAILQ_INSERT_TAIL(&p->pending, x, entry);
    p->pending_bytes += len;
    t->stats.msgs_sent++;
    t->stats.bytes_sent += SPX_FRAME_HDR_LEN + len;
    spx_tree_ensure_link(t, node);
    return (long)(SPX_FRAME_HDR_LEN + len);
}

bool spx_tree_has_ready_link(const spx_tree_t *t, uint32_t node)
{
    const spx_tree_link_t *l;
    LIST_FOREACH(l, &t->links, entry)
        if (l->peer == node && l->state == SPX_TREE_LINK_READY && l->conn)
            return true;
    return false;
}

void spx_tree_drop_node(spx_tree_t *t, uint32_t node)
{
    spx_tree_peer_t *p = &t->peers[node];
    free_pending(p);
    event_del(p->retry_ev);
    p->send_link = NULL;
    p->connecting = NULL;
    for (;;) {
        spx_tree_link_t *l;
        LIST_FOREACH(l, &t->links, entry)
            if (l->peer == node && (l->outgoing || l->state == SPX_TREE_LINK_READY ||
                                    l->state == SPX_TREE_LINK_WAIT_PROOF))
                break;
        if (!l)
            return;
        if (l->conn)
            spx_conn_close(l->conn, "tree: node lost", 0);
        else
            link_bury(l);
    }
}

/* ---- listening ---- */

static void accept_cb(evutil_socket_t lfd, short w, void *arg)
{
    spx_tree_t *t = arg;
    (void)w;
    for (int i = 0; i < 16; i++) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        char host[INET6_ADDRSTRLEN] = "?", label[128];
        uint16_t port = 0;
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
            port = ntohs(a->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
            port = ntohs(a->sin6_port);
        }
        snprintf(label, sizeof(label), "tree peer %s:%u", host, port);
        if (t->n_unauth >= SPX_TREE_MAX_UNAUTH) {
            spx_warn("tree: node %u: too many unauthenticated connections; refusing %s", t->self,
                     label);
            close(fd);
            continue;
        }
        set_nodelay(fd);
        spx_tree_link_t *l = link_new(t, false, UINT32_MAX);
        if (!l) {
            close(fd);
            continue;
        }
        l->state = SPX_TREE_LINK_WAIT_HELLO;
        l->sock = fd;
        t->n_unauth++;
        l->conn = spx_conn_create(t->base, fd, label, link_on_frame, link_on_close, l);
        if (!l->conn) {
            t->n_unauth--;
            link_bury(l);
            continue;
        }
        /* unauthenticated: no frame longer than a handshake's is read in */
        spx_tree_handshake_accept(l);
    }
}

int spx_tree_transport_init(spx_tree_t *t)
{
    for (uint32_t i = 0; i < t->n; i++) /* all first: fini empties every one */
        STAILQ_INIT(&t->peers[i].pending);
    for (uint32_t i = 0; i < t->n; i++) {
        t->peers[i].t = t;
        t->peers[i].idx = i;
        t->peers[i].retry_ev = evtimer_new(t->base, retry_cb, &t->peers[i]);
        if (!t->peers[i].retry_ev)
            return -1;
    }
    struct sockaddr_storage ss;
    socklen_t sl;
    if (parse_addr(t->addrs[t->self], &ss, &sl) < 0) {
        spx_error("tree: node %u: bad listen address '%s'", t->self,
                  t->addrs[t->self] ? t->addrs[t->self] : "(none)");
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
        bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 128) < 0) {
        spx_error("tree: node %u: cannot listen on %s: %s", t->self, t->addrs[t->self],
                  strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    sl = sizeof(ss);
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    t->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
    t->listen_fd = fd;
    t->listen_ev = event_new(t->base, fd, EV_READ | EV_PERSIST, accept_cb, t);
    if (!t->listen_ev || event_add(t->listen_ev, NULL) < 0) {
        spx_error("tree: node %u: cannot watch the listening socket", t->self);
        return -1;
    }
    return 0;
}

void spx_tree_transport_fini(spx_tree_t *t)
{
    t->destroying = true;
    spx_tree_link_t *l;
    while ((l = LIST_FIRST(&t->links))) {
        if (l->conn)
            spx_conn_close(l->conn, "tree: engine shut down", 0);
        else
            link_bury(l);
    }
    for (uint32_t i = 0; t->peers && i < t->n; i++) {
        free_pending(&t->peers[i]);
        if (t->peers[i].retry_ev)
            event_free(t->peers[i].retry_ev);
        if (t->peers[i].leave_ev)
            event_free(t->peers[i].leave_ev);
    }
    if (t->listen_ev)
        event_free(t->listen_ev);
    if (t->listen_fd >= 0)
        close(t->listen_fd);
    t->listen_ev = NULL;
    t->listen_fd = -1;
    spx_tree_reap(t);
}
