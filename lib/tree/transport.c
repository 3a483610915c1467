/* transport.c - TCP links between tree engines: listening, lazy connects
 * with retries, the mutual challenge/response (a proof of auth.h: HMAC of
 * the step secret, or a munge credential), per-node send queues.
 *
 * Outgoing: spx_tree_send_frame queues a frame for a node without a ready
 * link and starts a non-blocking connect (retried every
 * SPX_TREE_RETRY_INTERVAL until the node's deadline, since peers start in
 * any order). Once TCP is up the link sends HELLO, checks the CHALLENGE's
 * proof, sends PROOF and becomes ready: the queue is flushed onto it.
 * Incoming: accept, wait for HELLO, answer CHALLENGE, check PROOF. Before
 * that only AUTH frames are accepted; a bad proof, a foreign frame or a
 * timeout closes the connection with a log line and counts an auth reject.
 * A PMIx tool may come in on the same port (proto.h, TOOL_* steps): its
 * munge credential for this connection's nonce is checked (tool_auth.h),
 * answered with an ACK, and the socket handed to ops.tool_accept with the
 * credential's uid/gid. The connection never read past the credential's
 * frame (spx_conn reads one frame at a time), so nothing the tool sends
 * after the ACK is lost; it counts among the unauthenticated connections
 * (SPX_TREE_MAX_UNAUTH, SPX_TREE_AUTH_TIMEOUT) until then.
 * A ready link that closes means the node is lost (tree.c broadcasts it);
 * an outgoing attempt that fails is retried until the deadline, then the
 * node is declared lost too.
 */
#include "config.h"
#include "tree/auth.h"
#include "tree/internal.h"
#include "tree/tool_auth.h"
#include "util/log.h"
#include "util/sha256.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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

static struct timeval tv_of(double s)
{
    struct timeval tv = { (time_t)s, (suseconds_t)((s - (double)(time_t)s) * 1e6) };
    return tv;
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

const char *spx_tree_link_state_str(spx_tree_link_state_t s)
{
    switch (s) {
    case SPX_TREE_LINK_CONNECTING: return "CONNECTING";
    case SPX_TREE_LINK_HELLO_SENT: return "HELLO_SENT";
    case SPX_TREE_LINK_WAIT_HELLO: return "WAIT_HELLO";
    case SPX_TREE_LINK_WAIT_PROOF: return "WAIT_PROOF";
    case SPX_TREE_LINK_TOOL_WAIT_CRED: return "TOOL_WAIT_CRED";
    case SPX_TREE_LINK_READY: return "READY";
    case SPX_TREE_LINK_CLOSED: return "CLOSED";
    }
    return "UNKNOWN";
}

const char *spx_tree_auth_step_str(uint8_t step)
{
    switch (step) {
    case SPX_TREE_AUTH_HELLO: return "HELLO";
    case SPX_TREE_AUTH_CHALLENGE: return "CHALLENGE";
    case SPX_TREE_AUTH_PROOF: return "PROOF";
    case SPX_TREE_AUTH_TOOL_HELLO: return "TOOL_HELLO";
    case SPX_TREE_AUTH_TOOL_CHALLENGE: return "TOOL_CHALLENGE";
    case SPX_TREE_AUTH_TOOL_CRED: return "TOOL_CRED";
    case SPX_TREE_AUTH_TOOL_ACK: return "TOOL_ACK";
    }
    return "UNKNOWN";
}

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

static void auth_timeout_cb(evutil_socket_t fd, short w, void *arg)
{
    spx_tree_link_t *l = arg;
    (void)fd, (void)w;
    if (l->state == SPX_TREE_LINK_READY || l->state == SPX_TREE_LINK_CLOSED || !l->conn)
        return;
    l->t->auth_rejects++;
    spx_conn_close(l->conn, "tree: authentication not completed in time", 1);
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
    l->auth_ev = evtimer_new(t->base, auth_timeout_cb, l);
    if (!l->auth_ev) {
        free(l);
        return NULL;
    }
    LIST_INSERT_HEAD(&t->links, l, entry);
    return l;
}

/* iov borrowed for the call; len is their total. The connection writes what
 * the socket takes straight from iov and copies only the rest. */
static long conn_sendv(spx_tree_t *t, spx_conn_t *c, uint8_t type, const struct iovec *iov,
                       size_t niov, size_t len)
{
    if (spx_conn_sendv(c, type, 0, 0, iov, niov) < 0)
        return -1;
    t->stats.msgs_sent++;
    t->stats.bytes_sent += SPX_FRAME_HDR_LEN + len;
    return (long)(SPX_FRAME_HDR_LEN + len);
}

static long conn_send(spx_tree_t *t, spx_conn_t *c, uint8_t type, const void *data, size_t len)
{
    struct iovec v = { .iov_base = (void *)data, .iov_len = len };
    return conn_sendv(t, c, type, &v, len ? 1 : 0, len);
}

/* The transcript a proof is made of (auth.h): role label | nonce_c |
 * nonce_a | u32 connector | u32 acceptor (little endian) | the step's id.
 * Returns its length (out holds SPX_TREE_TRANSCRIPT_MAX bytes). */
#define SPX_TREE_TRANSCRIPT_MAX (32 + 2 * SPX_TREE_NONCE_LEN + 8 + SPX_TREE_MAX_AUTH_ID)
static size_t transcript(const spx_tree_t *t, const char *label, const spx_tree_link_t *l,
                         uint32_t connector, uint32_t acceptor, uint8_t *out)
{
    size_t n = strlen(label), idlen = strlen(spx_tree_auth_id(t->auth));
    memcpy(out, label, n);
    memcpy(out + n, l->nonce_c, SPX_TREE_NONCE_LEN);
    n += SPX_TREE_NONCE_LEN;
    memcpy(out + n, l->nonce_a, SPX_TREE_NONCE_LEN);
    n += SPX_TREE_NONCE_LEN;
    for (int i = 0; i < 4; i++) {
        out[n + i] = (uint8_t)(connector >> (8 * i));
        out[n + 4 + i] = (uint8_t)(acceptor >> (8 * i));
    }
    n += 8;
    memcpy(out + n, spx_tree_auth_id(t->auth), idlen);
    return n + idlen;
}

static int fill_nonce(uint8_t *p)
{
    size_t got = 0;
    while (got < SPX_TREE_NONCE_LEN) {
        ssize_t r = getrandom(p + got, SPX_TREE_NONCE_LEN - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

/* Sends a built AUTH payload; 0 or -1. */
static int send_auth(spx_tree_link_t *l, spx_buf_t *b)
{
    int rc = -1;
    if (!spx_buf_failed(b))
        rc = conn_send(l->t, l->conn, SPX_TREE_FRAME_AUTH, b->data, b->len) < 0 ? -1 : 0;
    spx_buf_fini(b);
    return rc;
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

/* ---- the handshake ---- */

static void reject(spx_tree_link_t *l, const char *why)
{
    l->t->auth_rejects++;
    spx_warn("tree: node %u: %s: %s; closing", l->t->self, spx_conn_label(l->conn), why);
    spx_conn_close(l->conn, why, 1);
}

/* ---- tools (munge) ---- */

/* Sends a tool its TOOL_ACK and waits (a second at most) until the socket
 * took it: the link closes right after. 0 or -1. */
static int tool_ack(spx_tree_link_t *l, int32_t status, const char *why)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_ACK);
    spx_buf_push_i32(&b, status);
    spx_buf_push_str(&b, why ? why : "");
    if (send_auth(l, &b) < 0)
        return -1;
    return spx_conn_flush_wait(l->conn, 1000);
}

/* Refuses a tool that spoke the protocol: it learns why, then the close. */
static void tool_refuse(spx_tree_link_t *l, int32_t status, const char *why)
{
    char msg[SPX_TREE_TOOL_MAX_REASON];
    snprintf(msg, sizeof(msg), "tool refused: %s", why);
    tool_ack(l, status, msg);
    reject(l, msg);
}

static void tool_hello(spx_tree_link_t *l, spx_buf_t *p)
{
    spx_tree_t *t = l->t;
    uint32_t version = spx_buf_pull_u32(p);
    if (spx_buf_finish(p) < 0)
        return reject(l, "malformed tool hello");
    if (version != SPX_TREE_TOOL_VERSION)
        return tool_refuse(l, PMIX_ERR_NOT_SUPPORTED, "tool protocol version mismatch");
    if (!t->ops.tool_accept)
        return tool_refuse(l, PMIX_ERR_NOT_SUPPORTED, "this server takes no tools on its tree port");
    if (!spx_tool_auth_supported())
        return tool_refuse(l, PMIX_ERR_NOT_SUPPORTED,
                           "this server was built without libmunge (libmunge-dev)");
    if (fill_nonce(l->nonce_a) < 0)
        return reject(l, "getrandom failed");
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_CHALLENGE);
    spx_buf_push_raw(&b, l->nonce_a, SPX_TREE_NONCE_LEN);
    l->state = SPX_TREE_LINK_TOOL_WAIT_CRED;
    if (send_auth(l, &b) < 0)
        spx_conn_close(l->conn, "tree: cannot send a tool challenge", 1);
}

static void tool_cred(spx_tree_link_t *l, spx_buf_t *p)
{
    spx_tree_t *t = l->t;
    char cred[SPX_TREE_TOOL_MAX_CRED + 1], why[SPX_TREE_TOOL_MAX_REASON - 32];
    if (spx_buf_remaining(p) > 4 + SPX_TREE_TOOL_MAX_CRED)
        return reject(l, "tool credential too long");
    spx_buf_pull_str_into(p, cred, sizeof(cred));
    if (spx_buf_finish(p) < 0)
        return reject(l, "malformed tool credential");
    uid_t uid;
    gid_t gid;
    if (spx_tool_auth_decode(cred, l->nonce_a, &uid, &gid, why, sizeof(why)) != 0)
        return tool_refuse(l, PMIX_ERR_NO_PERMISSIONS, why);
    char label[160];
    snprintf(label, sizeof(label), "remote tool uid %ld (%s)", (long)uid,
             spx_conn_label(l->conn));
    int fd = dup(l->sock); /* the socket outlives this link's close */
    if (fd < 0)
        return tool_refuse(l, PMIX_ERR_NOMEM, "out of file descriptors");
    if (tool_ack(l, PMIX_SUCCESS, NULL) != 0) {
        close(fd);
        return spx_conn_close(l->conn, "tree: cannot answer a tool", 1);
    }
    spx_info("tree: node %u: %s: munge credential of uid %ld gid %ld accepted; handed to the "
             "server", t->self, spx_conn_label(l->conn), (long)uid, (long)gid);
    spx_conn_close(l->conn, "tree: handed to the server as a tool", 0);
    t->ops.tool_accept(fd, uid, gid, label, t->ops_arg);
}

static void auth_frame(spx_tree_link_t *l, spx_buf_t *p)
{
    spx_tree_t *t = l->t;
    uint8_t step = spx_buf_pull_u8(p);
    uint8_t msg[SPX_TREE_TRANSCRIPT_MAX];
    char why[400], what[480];
    if (l->state == SPX_TREE_LINK_WAIT_HELLO && step == SPX_TREE_AUTH_TOOL_HELLO)
        return tool_hello(l, p);
    if (l->state == SPX_TREE_LINK_TOOL_WAIT_CRED && step == SPX_TREE_AUTH_TOOL_CRED)
        return tool_cred(l, p);
    if (l->state == SPX_TREE_LINK_WAIT_HELLO && step == SPX_TREE_AUTH_HELLO) {
        uint32_t from = spx_buf_pull_u32(p), to = spx_buf_pull_u32(p);
        spx_buf_pull_raw(p, l->nonce_c, SPX_TREE_NONCE_LEN);
        if (spx_buf_finish(p) < 0)
            return reject(l, "malformed authentication hello");
        if (to != t->self || from >= t->n || from == t->self)
            return reject(l, "authentication hello for a wrong node");
        if (fill_nonce(l->nonce_a) < 0)
            return reject(l, "getrandom failed");
        l->peer = from;
        size_t n = transcript(t, SPX_TREE_AUTH_LABEL_ACCEPTOR, l, from, t->self, msg);
        spx_buf_t b;
        spx_buf_init(&b);
        spx_buf_push_u8(&b, SPX_TREE_AUTH_CHALLENGE);
        spx_buf_push_raw(&b, l->nonce_a, SPX_TREE_NONCE_LEN);
        if (spx_tree_auth_push_proof(t->auth, &b, msg, n, why, sizeof(why)) != 0) {
            spx_buf_fini(&b);
            snprintf(what, sizeof(what), "cannot prove this node to node %u: %s", from, why);
            return reject(l, what);
        }
        l->state = SPX_TREE_LINK_WAIT_PROOF;
        if (send_auth(l, &b) < 0)
            spx_conn_close(l->conn, "tree: cannot send challenge", 1);
        return;
    }
    if (l->state == SPX_TREE_LINK_HELLO_SENT && step == SPX_TREE_AUTH_CHALLENGE) {
        spx_buf_pull_raw(p, l->nonce_a, SPX_TREE_NONCE_LEN);
        size_t n = transcript(t, SPX_TREE_AUTH_LABEL_ACCEPTOR, l, t->self, l->peer, msg);
        if (spx_buf_failed(p))
            return reject(l, "malformed authentication challenge");
        if (spx_tree_auth_pull_check(t->auth, p, msg, n, why, sizeof(why)) != 0) {
            snprintf(what, sizeof(what), "node %u failed authentication: %s", l->peer, why);
            return reject(l, what);
        }
        if (spx_buf_finish(p) < 0)
            return reject(l, "malformed authentication challenge");
        n = transcript(t, SPX_TREE_AUTH_LABEL_CONNECTOR, l, t->self, l->peer, msg);
        spx_buf_t b;
        spx_buf_init(&b);
        spx_buf_push_u8(&b, SPX_TREE_AUTH_PROOF);
        if (spx_tree_auth_push_proof(t->auth, &b, msg, n, why, sizeof(why)) != 0) {
            spx_buf_fini(&b);
            snprintf(what, sizeof(what), "cannot prove this node to node %u: %s", l->peer, why);
            return reject(l, what);
        }
        if (send_auth(l, &b) < 0)
            return spx_conn_close(l->conn, "tree: cannot send proof", 1);
        link_ready(l);
        return;
    }
    if (l->state == SPX_TREE_LINK_WAIT_PROOF && step == SPX_TREE_AUTH_PROOF) {
        size_t n = transcript(t, SPX_TREE_AUTH_LABEL_CONNECTOR, l, l->peer, t->self, msg);
        if (spx_tree_auth_pull_check(t->auth, p, msg, n, why, sizeof(why)) != 0) {
            snprintf(what, sizeof(what), "node %u failed authentication: %s", l->peer, why);
            return reject(l, what);
        }
        if (spx_buf_finish(p) < 0)
            return reject(l, "malformed authentication proof");
        link_ready(l);
        return;
    }
    spx_debug("tree: node %u: authentication step %s (%u) in link state %s", t->self,
              spx_tree_auth_step_str(step), step, spx_tree_link_state_str(l->state));
    reject(l, "unexpected authentication step");
}

static void link_on_frame(spx_conn_t *c, const spx_frame_hdr_t *h, spx_buf_t *p, void *arg)
{
    spx_tree_link_t *l = arg;
    spx_tree_t *t = l->t;
    (void)c;
    t->stats.msgs_recv++;
    t->stats.bytes_recv += SPX_FRAME_HDR_LEN + h->length;
    if (l->state != SPX_TREE_LINK_READY) {
        if (h->type != SPX_TREE_FRAME_AUTH)
            return reject(l, "frame before authentication");
        return auth_frame(l, p);
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
        struct timeval tv = tv_of(SPX_TREE_RETRY_INTERVAL);
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
    spx_conn_set_max_payload(l->conn, SPX_TREE_MAX_AUTH_FRAME);
    l->state = SPX_TREE_LINK_HELLO_SENT;
    struct timeval tv = tv_of(SPX_TREE_AUTH_TIMEOUT);
    event_add(l->auth_ev, &tv);
    if (fill_nonce(l->nonce_c) < 0) {
        spx_conn_close(l->conn, "tree: getrandom failed", 1);
        return;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_HELLO);
    spx_buf_push_u32(&b, t->self);
    spx_buf_push_u32(&b, l->peer);
    spx_buf_push_raw(&b, l->nonce_c, SPX_TREE_NONCE_LEN);
    if (send_auth(l, &b) < 0)
        spx_conn_close(l->conn, "tree: cannot send hello", 1);
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
        return conn_sendv(t, p->send_link->conn, type, iov, niov, len);
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
        spx_conn_set_max_payload(l->conn, SPX_TREE_MAX_AUTH_FRAME);
        struct timeval tv = tv_of(SPX_TREE_AUTH_TIMEOUT);
        event_add(l->auth_ev, &tv);
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
