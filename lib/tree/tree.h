/* tree.h - the engine that joins the PMIx servers of one job step (one per
 * node) into a tree and runs collectives, point-to-point messages and
 * broadcasts over it. Slurm-agnostic: spmix-run's simulated nodes and the
 * Slurm plugin's slurmstepds drive the very same code.
 *
 * Shape: Slurm's reverse tree of width W over a list of node indices; a
 * node's parent and children are computed from its position in the list alone
 * (spx_tree_topo_*). A collective over a subset of nodes uses the tree built
 * over exactly that subset (sorted node indices), so only nodes hosting
 * participants take part and depth is O(log_W m).
 *
 * Transport: TCP; each node listens on its own address. Connections are made
 * on demand and kept; each starts with a mutual challenge/response proving
 * both ends belong to the step (auth.h: an HMAC-SHA256 of the step's secret,
 * or a munge credential of an allowed uid); a peer that fails it, or
 * sends anything malformed, is closed with a log line and the engine goes on.
 * Every node keeps a connection to its parent in the full tree, so the death of
 * a node is noticed by its parent (or children) and broadcast to everybody
 * (ops->node_lost on every surviving node). A node that ends in order says so
 * first (spx_tree_leave): the others call ops->node_left instead and fail only
 * the collectives that still wait for it.
 *
 * Threading: everything runs on the event_base given at creation (the PMIx
 * progress thread). No function may be called from another thread.
 */
#ifndef SPX_TREE_TREE_H
#define SPX_TREE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <pmix_common.h>
#include <event2/event.h>

#define SPX_TREE_DEFAULT_WIDTH 16

/* ---- topology (pure functions) ---- */
/* Parent position of position pos (0 is the root) in a tree of width w; -1 for the root. */
long spx_tree_topo_parent(uint32_t pos, uint32_t n, uint32_t w);
/* Writes the children positions of pos (at most w) into out; returns their count. */
uint32_t spx_tree_topo_children(uint32_t pos, uint32_t n, uint32_t w, uint32_t *out);
/* Depth of the tree (root alone = 0). */
uint32_t spx_tree_topo_depth(uint32_t n, uint32_t w);
/* Added: level of position pos (root = 0), and the number of positions in
 * the subtree rooted at pos (itself included). In this layout a subtree is
 * the contiguous range [pos, pos + size) (positions are in pre-order). */
uint32_t spx_tree_topo_level(uint32_t pos, uint32_t n, uint32_t w);
uint32_t spx_tree_topo_subtree_size(uint32_t pos, uint32_t n, uint32_t w);

/* ---- engine ---- */
typedef struct spx_tree spx_tree_t;

typedef struct spx_tree_ops {
    /* A message sent with spx_tree_send/spx_tree_bcast arrived. data borrowed. */
    void (*recv)(uint32_t from_node, uint8_t channel, const void *data, size_t len, void *arg);
    /* Node node_index is gone (connection lost, or told so by another node). Called
     * once per lost node, on every surviving node. */
    void (*node_lost)(uint32_t node_index, const char *reason, void *arg);
    /* Node node_index ended in order (spx_tree_leave): its links are closed and
     * collectives that still waited for it failed. Called once, instead of
     * node_lost; may be NULL. */
    void (*node_left)(uint32_t node_index, void *arg);
    /* A PMIx tool authenticated by munge on this node's tree port (proto.h,
     * AUTH steps TOOL_*): fd, a connected socket now owned by the callee,
     * carries the client protocol from its next frame, as uid/gid; label
     * names the peer for log lines (borrowed). May be NULL: tools are then
     * refused. */
    void (*tool_accept)(int fd, uid_t uid, gid_t gid, const char *label, void *arg);
} spx_tree_ops_t;

typedef struct spx_tree_config {
    uint32_t node_index;      /* this node */
    uint32_t nnodes;
    uint32_t width;           /* 0: SPX_TREE_DEFAULT_WIDTH */
    const char *const *addrs; /* nnodes entries "a.b.c.d:port"; copied */
    int auth;                 /* spx_tree_auth_kind_t (auth.h): 0 secret, 1 munge */
    const void *secret;       /* secret: the per-step secret, >= 16 bytes; copied */
    size_t secret_len;
    const uint32_t *auth_uids; /* munge: uids whose credentials are accepted; copied */
    size_t auth_nuids;
    const char *auth_id;      /* munge: the step's name bound into the credentials; copied */
    double connect_timeout;   /* seconds to keep retrying a connect (peer not up yet) */
} spx_tree_config_t;

/* Creates the engine and starts listening on addrs[node_index] (port 0 =
 * ephemeral; spx_tree_port tells which). NULL on failure (logged). */
spx_tree_t *spx_tree_create(struct event_base *base, const spx_tree_config_t *cfg,
                            const spx_tree_ops_t *ops, void *ops_arg);
uint16_t spx_tree_port(const spx_tree_t *t);
/* Replaces the address table once all ports are known (nnodes entries; copied). */
int spx_tree_set_addrs(spx_tree_t *t, const char *const *addrs);
/* Connects to the parent in the full tree (retrying until connect_timeout). */
int spx_tree_start(spx_tree_t *t);
/* Closes everything; pending collectives complete with PMIX_ERR_UNREACH first. */
/* (Added note) Not from inside one of the engine's own callbacks (done, recv,
 * node_lost): the engine is still on the stack there. */
void spx_tree_destroy(spx_tree_t *t);
/* Tells every other node that this one ends in order, and waits (at most
 * about 100 ms) for the news to leave the sockets; then call spx_tree_destroy.
 * Refused (returns -1, nothing sent: the others will see a lost node) while a
 * collective involving this node is unfinished here. */
int spx_tree_leave(spx_tree_t *t);
uint32_t spx_tree_node_index(const spx_tree_t *t);
uint32_t spx_tree_nnodes(const spx_tree_t *t);

/* ---- collectives ---- */
#define SPX_TREE_F_COLLECT 0x1u /* the collective carries data; must agree on all nodes */
/* This node takes part for processes that have left (finalized) only: it
 * agrees with whatever flags the others use, and such a collective does not
 * keep the node from ending in order (spx_tree_leave). A collective whose
 * every node started it so completes with PMIX_ERR_NOT_AVAILABLE. */
#define SPX_TREE_F_ANY 0x2u

/* data: the concatenation of every participating node's contribution (node order
 * unspecified); borrowed for the duration of the call. */
typedef void (*spx_tree_done_f)(pmix_status_t status, const void *data, size_t len, void *arg);
/* The same result as nsegs pieces whose concatenation is that data (segs and
 * their bytes borrowed for the duration of the call; segs NULL when nsegs is
 * 0). Each piece is one or more whole contributions, so a reader of
 * contributions can take the pieces one by one. The pieces lie in the frames
 * they arrived in: nothing is copied to join them. */
typedef void (*spx_tree_done_segs_f)(pmix_status_t status, const struct iovec *segs,
                                     size_t nsegs, void *arg);

/* Starts this node's part of a collective.
 * set_id: canonical name of the participant set, identical on every node (copied);
 *         collectives with the same set_id are numbered in call order on each node.
 * nodes/nnodes: sorted indices of the nodes hosting participants (copied; must
 *         include this node).
 * flags: SPX_TREE_F_COLLECT or 0 - if the nodes disagree every node gets
 *         PMIX_ERR_BAD_PARAM.
 * data/len: this node's contribution (copied).
 * status: PMIX_SUCCESS, or an error this node already knows of (e.g. a local
 *         participant died): the collective then fails with it everywhere.
 * timeout: seconds (<= 0: none); on expiry PMIX_ERR_TIMEOUT on every node, and
 *         later collectives of the set still work.
 * done runs exactly once, later, on the loop thread. Returns 0, or -1 (done never runs). */
int spx_tree_coll_start(spx_tree_t *t, const char *set_id, const uint32_t *nodes, size_t nnodes,
                        uint32_t flags, pmix_status_t status, const void *data, size_t len,
                        double timeout, spx_tree_done_f done, void *arg);
/* The same, with the result given to done as pieces (no copy: the way to
 * read it at the root, where it is gathered from several frames; done
 * above gets several pieces joined into one copy). */
int spx_tree_coll_start_segs(spx_tree_t *t, const char *set_id, const uint32_t *nodes,
                             size_t nnodes, uint32_t flags, pmix_status_t status,
                             const void *data, size_t len, double timeout,
                             spx_tree_done_segs_f done, void *arg);

/* ---- messages ---- */
/* Sends to one node (data copied). 0 or -1 (node unknown or lost). */
int spx_tree_send(spx_tree_t *t, uint32_t dst_node, uint8_t channel, const void *data, size_t len);
/* Delivers to every other node (not to self) along the full tree. */
int spx_tree_bcast(spx_tree_t *t, uint8_t channel, const void *data, size_t len);

/* ---- counters ---- */
typedef struct spx_tree_stats {
    uint64_t colls_done;      /* collectives completed here */
    uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv; /* totals, all traffic */
    uint64_t last_coll_msgs_sent, last_coll_bytes_sent;    /* by this node for its last collective */
    uint64_t last_coll_payload_bytes; /* contribution bytes this node put into it */
    uint64_t coll_bytes_copied; /* received collective data copied to keep or join it
                                 * (0 unless a plain done got several pieces) */
} spx_tree_stats_t;
void spx_tree_get_stats(const spx_tree_t *t, spx_tree_stats_t *out);
/* Added: connections closed because they failed the handshake (or sent
 * anything else before it); whether node is known to be lost. */
uint64_t spx_tree_auth_rejects(const spx_tree_t *t);
bool spx_tree_node_is_lost(const spx_tree_t *t, uint32_t node);

#endif
