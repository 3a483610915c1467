/* internal.h - the engine state shared by tree.c (public functions, routing,
 * broadcast, node loss), transport.c (listening, connecting, framing,
 * per-node send queues) and handshake.c (the links' authentication).
 * Calls go tree.c -> transport.c -> handshake.c; transport.c calls up into
 * tree.c only through t->up (struct spx_tree_upcalls).
 *
 * A "link" is one TCP connection (spx_conn) to a peer engine, incoming or
 * outgoing. A node may have up to two ready links (when both ends connected
 * at once); all traffic *to* a node goes on one of them (peer->send_link,
 * the first to become ready) so per-pair ordering holds; frames arrive on
 * either. Frames for a node without a ready link wait in peer->pending.
 * Links are never freed inside a callback: closed ones move to t->graveyard
 * and are freed from the engine's deferred event.
 */
#ifndef SPX_TREE_INTERNAL_H
#define SPX_TREE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <event2/event.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "net/conn.h"
#include "tree/coll.h"
#include "tree/proto.h"
#include "tree/tree.h"

#define SPX_TREE_MAX_NODES (1u << 20)
#define SPX_TREE_MAX_WIDTH 1024u
#define SPX_TREE_MAX_UNAUTH 64          /* connections still authenticating */
#define SPX_TREE_AUTH_TIMEOUT 10.0      /* seconds to finish the handshake */
#define SPX_TREE_RETRY_INTERVAL 0.05    /* seconds between connect attempts */
#define SPX_TREE_MAX_PENDING (64u << 20) /* bytes queued for a node not yet connected */
#define SPX_TREE_SPARE_MAX (16u << 20)  /* a link keeps a frame block up to this for the next */

/* A link's life: outgoing CONNECTING -> HELLO_SENT -> READY, incoming
 * WAIT_HELLO -> WAIT_PROOF -> READY; any -> CLOSED (link_bury, then reaped).
 * A tool's connection: WAIT_HELLO -> TOOL_WAIT_CRED -> handed to
 * ops.tool_accept (the link closes, the socket lives on) or CLOSED. */
typedef enum spx_tree_link_state {
    SPX_TREE_LINK_CONNECTING, /* outgoing: TCP connect in progress */
    SPX_TREE_LINK_HELLO_SENT, /* outgoing: waiting for the acceptor's CHALLENGE */
    SPX_TREE_LINK_WAIT_HELLO, /* incoming: waiting for HELLO */
    SPX_TREE_LINK_WAIT_PROOF, /* incoming: CHALLENGE sent, waiting for PROOF */
    SPX_TREE_LINK_TOOL_WAIT_CRED, /* incoming tool: TOOL_CHALLENGE sent, waiting for TOOL_CRED */
    SPX_TREE_LINK_READY,      /* authenticated: frames go to spx_tree_dispatch */
    SPX_TREE_LINK_CLOSED,     /* in t->graveyard */
} spx_tree_link_state_t;

/* For log lines (handshake.c). */
const char *spx_tree_link_state_str(spx_tree_link_state_t s);

/* A node as this engine sees it: UP -> LEAVING (it said NODE_LEFT) -> LEFT
 * (its links closed or SPX_TREE_LEAVE_SETTLE passed: ops->node_left called),
 * or UP -> LOST (ops->node_lost called). LEFT and LOST are final ("gone"). */
typedef enum spx_tree_peer_state {
    SPX_TREE_PEER_UP,
    SPX_TREE_PEER_LEAVING,
    SPX_TREE_PEER_LEFT,
    SPX_TREE_PEER_LOST,
} spx_tree_peer_state_t;

const char *spx_tree_peer_state_str(spx_tree_peer_state_t s);

/* LEFT or LOST: no more traffic to or from it. */
static inline bool spx_tree_peer_gone(spx_tree_peer_state_t s)
{
    return s == SPX_TREE_PEER_LEFT || s == SPX_TREE_PEER_LOST;
}

/* It said it ends in order (settled or not): its closing links are no failure,
 * and floods go around it. */
static inline bool spx_tree_peer_said_left(spx_tree_peer_state_t s)
{
    return s == SPX_TREE_PEER_LEAVING || s == SPX_TREE_PEER_LEFT;
}

typedef struct spx_tree_link {
    LIST_ENTRY(spx_tree_link) entry; /* in t->links or t->graveyard */
    spx_tree_t *t;
    spx_conn_t *conn;   /* NULL while connecting; not used once closed */
    int fd;             /* outgoing, while connecting */
    int sock;           /* incoming: the accepted socket (the conn's; not owned) */
    struct event *ev;   /* connect completion */
    struct event *auth_ev;
    bool outgoing;
    spx_tree_link_state_t state;
    uint32_t peer;      /* known from the start (outgoing) or from HELLO (incoming) */
    uint8_t nonce_c[SPX_TREE_NONCE_LEN], nonce_a[SPX_TREE_NONCE_LEN];
} spx_tree_link_t;

typedef struct spx_tree_pend {
    STAILQ_ENTRY(spx_tree_pend) entry; /* in its peer's pending queue */
    uint8_t type;
    void *data; /* owned */
    size_t len;
} spx_tree_pend_t;

typedef struct spx_tree_peer {
    spx_tree_t *t;                /* back pointers for the retry timer */
    uint32_t idx;
    spx_tree_link_t *send_link;  /* ready link all frames to this node go on */
    spx_tree_link_t *connecting; /* our outgoing attempt, until ready or failed */
    STAILQ_HEAD(, spx_tree_pend) pending; /* frames queued until a link is ready, FIFO */
    size_t pending_bytes;
    double deadline;             /* monotonic seconds: stop retrying connects */
    struct event *retry_ev;
    spx_tree_peer_state_t state; /* LEAVING is settled once its links are closed */
    struct event *leave_ev;      /* settles a leaving node whose links stay open */
} spx_tree_peer_t;

struct spx_tree {
    struct event_base *base;
    uint32_t self, n, width;
    char **addrs; /* owned */
    struct spx_tree_auth *auth; /* owned: the links' proofs (auth.h) */
    double connect_timeout;
    spx_tree_ops_t ops;
    void *ops_arg;
    int listen_fd;
    struct event *listen_ev;
    uint16_t port;
    spx_tree_peer_t *peers; /* n entries */
    const struct spx_tree_upcalls *up; /* tree.c's (transport.c calls up through it) */
    LIST_HEAD(, spx_tree_link) links;     /* newest first */
    LIST_HEAD(, spx_tree_link) graveyard; /* closed, freed by spx_tree_reap */
    int n_unauth;
    spx_coll_engine_t *coll;
    struct event *defer_ev;
    bool destroying;
    spx_tree_stats_t stats;
    uint64_t auth_rejects;
};

/* seconds -> the struct timeval event_add takes */
static inline struct timeval spx_tree_timeval(double s)
{
    struct timeval tv = { (time_t)s, (suseconds_t)((s - (double)(time_t)s) * 1e6) };
    return tv;
}

/* Sends one frame on connection c of engine t and counts it in t->stats:
 * the payload is iov[0..niov) (borrowed for the call), len their total. The
 * connection writes what the socket takes straight from iov and copies only
 * the rest. Returns the bytes put on the wire, or -1. */
static inline long spx_tree_link_sendv(spx_tree_t *t, spx_conn_t *c, uint8_t type,
                                       const struct iovec *iov, size_t niov, size_t len)
{
    if (spx_conn_sendv(c, type, 0, 0, iov, niov) < 0)
        return -1;
    t->stats.msgs_sent++;
    t->stats.bytes_sent += SPX_FRAME_HDR_LEN + len;
    return (long)(SPX_FRAME_HDR_LEN + len);
}

/* The same with one payload of len bytes (borrowed for the call). */
static inline long spx_tree_link_send(spx_tree_t *t, spx_conn_t *c, uint8_t type,
                                      const void *data, size_t len)
{
    struct iovec v = { .iov_base = (void *)data, .iov_len = len };
    return spx_tree_link_sendv(t, c, type, &v, len ? 1 : 0, len);
}

/* handshake.c: a link's authentication (the link and its conn stay
 * transport.c's; a failure closes the conn, whose close callback is
 * transport.c's). */
/* The auth timer's callback (link->auth_ev, arg the link): closes a link
 * that has not finished its handshake in time. */
void spx_tree_handshake_timeout_cb(evutil_socket_t fd, short what, void *arg);
/* Outgoing link l, TCP just up (l->conn set): sends HELLO, arms the deadline. */
void spx_tree_handshake_connect(spx_tree_link_t *l);
/* Incoming link l, just accepted (l->conn set, state WAIT_HELLO): bounds the
 * frames it reads until authenticated, arms the deadline. */
void spx_tree_handshake_accept(spx_tree_link_t *l);
/* A frame of type with payload p (borrowed) on link l, not ready yet: the
 * next handshake step, or a reject (the conn closed). True when the link
 * has just proven itself: the caller makes it ready. */
bool spx_tree_handshake_frame(spx_tree_link_t *l, uint8_t type, spx_buf_t *p);

/* transport.c */
/* Sets up the peers' retry timers and starts listening; 0 or -1 (logged). */
int spx_tree_transport_init(spx_tree_t *t);
double spx_tree_now(void);
/* Sends one frame to node; payload borrowed for the call (what the socket
 * does not take at once, or all of it while no link is ready, is copied).
 * Returns the bytes it puts on the wire, or -1 (lost, unknown, or queue over
 * SPX_TREE_MAX_PENDING). Starts a connection if there is none. */
long spx_tree_send_frame(spx_tree_t *t, uint32_t node, uint8_t type, const void *payload,
                         size_t len);
/* The same with the payload the concatenation of iov[0..niov) (borrowed for
 * the call; written straight from there, see spx_conn_sendv). */
long spx_tree_send_framev(spx_tree_t *t, uint32_t node, uint8_t type, const struct iovec *iov,
                          size_t niov);
/* Starts connecting to node if no link exists or is under way. */
void spx_tree_ensure_link(spx_tree_t *t, uint32_t node);
/* Closes every link to node and drops its queue (node lost). */
void spx_tree_drop_node(spx_tree_t *t, uint32_t node);
/* For tests and the fuzz target: adopts fd (a connected stream socket, e.g. one
 * end of a socketpair; always taken, closed on failure) as a ready link to
 * node, as if the handshake had just succeeded. 0 or -1. */
int spx_tree_adopt_link(spx_tree_t *t, uint32_t node, int fd);
/* Closes everything (destroy). */
void spx_tree_transport_fini(spx_tree_t *t);
void spx_tree_reap(spx_tree_t *t);
/* Schedules the deferred event (coll completions, link reaping). */
void spx_tree_kick(spx_tree_t *t);

/* What transport.c tells the tree (tree.c's, set in t->up at create):
 *   dispatch      a non-AUTH frame from an authenticated peer; -1 if
 *                 malformed (the link is closed);
 *   declare_lost  node is lost (informer: the node that told us, -1: we saw
 *                 it ourselves);
 *   left_check    a link to a leaving node closed: settle its departure once
 *                 none is left. */
struct spx_tree_upcalls {
    int (*dispatch)(spx_tree_t *t, uint32_t from, uint8_t type, spx_buf_t *payload);
    void (*declare_lost)(spx_tree_t *t, uint32_t node, const char *reason, long informer);
    void (*left_check)(spx_tree_t *t, uint32_t node);
};
/* Whether an authenticated link to node is still open (transport.c). */
bool spx_tree_has_ready_link(const spx_tree_t *t, uint32_t node);

#endif
