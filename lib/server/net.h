/* net.h - the one seam through which the server reaches other nodes.
 *
 * In multi-node mode the server's engines (fence, direct modex, event relay,
 * publish/lookup) talk to the servers of the other nodes only through a
 * spx_srv_net_ops_t: send to a node, broadcast, run a collective, counters,
 * an orderly leave. The network calls back up through spx_srv_net_up_t
 * (a message arrived, a node was lost, a node left in order). nodes.c owns
 * the network handle and is the only user of these ops inside the server.
 *
 * tree_net.c fills the ops from the tree engine (lib/tree) and is the only
 * file of lib/server that includes a tree/ header. Unit tests install a fake
 * network with spx_srv_net_set_factory() before PMIx_server_init and drive
 * every engine through it, including lost and departed nodes.
 *
 * Threading: every op and every upcall runs on the progress thread.
 */
#ifndef SPX_SERVER_NET_H
#define SPX_SERVER_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmix_common.h>

struct event_base;

/* The collective carries data; every node must agree (else PMIX_ERR_BAD_PARAM). */
#define SPX_SRV_NET_F_COLLECT 0x1u
/* This node stands in for local processes that finalized (tree.h's SPX_TREE_F_ANY). */
#define SPX_SRV_NET_F_ANY 0x2u

/* How this node joins the others (parsed from the SPMIX_TREE_* directives). */
typedef struct spx_srv_net_cfg {
    uint32_t node_index;        /* this node */
    uint32_t nnodes;
    uint32_t width;             /* fan-out, 0: the network's default */
    double connect_timeout;     /* seconds */
    const char *const *addrs;   /* nnodes entries "ip:port" (borrowed for the create call) */
    int auth;                   /* 0: secret, 1: munge (tree/auth.h's kinds) */
    const void *secret;         /* secret: per-step secret (borrowed for the create call) */
    size_t secret_len;
    const uint32_t *auth_uids;  /* munge: accepted uids (borrowed for the create call) */
    size_t auth_nuids;
    const char *auth_id;        /* munge: the step's name (borrowed for the create call) */
} spx_srv_net_cfg_t;

/* Counters the SPMIX_QUERY_* keys and SPMIX_STATS=1 report. */
typedef struct spx_srv_net_stats {
    uint64_t colls_done, msgs_sent, bytes_sent;
    uint64_t last_coll_msgs_sent, last_coll_bytes_sent, last_coll_payload_bytes;
} spx_srv_net_stats_t;

/* Upcalls of the network into the server (progress thread). data: borrowed
 * for the call; reason: borrowed, may be NULL. */
typedef struct spx_srv_net_up {
    void (*recv)(uint32_t from, uint8_t channel, const void *data, size_t len, void *arg);
    void (*node_lost)(uint32_t node, const char *reason, void *arg);
    void (*node_left)(uint32_t node, void *arg);
    /* A tool the network authenticated on its port (fd owned by the callee
     * from now on, uid/gid its proven identity, label for log lines); may be
     * NULL: the network then refuses tools. */
    void (*tool_accept)(int fd, uid_t uid, gid_t gid, const char *label, void *arg);
} spx_srv_net_up_t;

/* Completion of a collective: data is every node's contribution concatenated
 * (borrowed for the call). Runs exactly once, later. */
typedef void (*spx_srv_net_coll_f)(pmix_status_t status, const void *data, size_t len,
                                   void *arg);
/* The same data as nsegs pieces (segs and their bytes borrowed for the
 * call), each one or more whole contributions. */
struct iovec;
typedef void (*spx_srv_net_coll_segs_f)(pmix_status_t status, const struct iovec *segs,
                                        size_t nsegs, void *arg);

/* What the server asks of the network. `net` is the handle the factory
 * returned. Data pointers are borrowed (the network copies what it keeps). */
typedef struct spx_srv_net_ops {
    /* 0, or -1 (node unknown or lost). */
    int (*send)(void *net, uint32_t node, uint8_t channel, const void *data, size_t len);
    /* To every other node. 0 or -1. */
    int (*bcast)(void *net, uint8_t channel, const void *data, size_t len);
    /* This node's part of a collective over the sorted nodes (own node included);
     * set_id and nodes copied. 0 (done runs later, once) or -1 (done never runs). */
    int (*coll_start)(void *net, const char *set_id, const uint32_t *nodes, size_t nnodes,
                      uint32_t flags, pmix_status_t status, const void *data, size_t len,
                      double timeout, spx_srv_net_coll_f done, void *arg);
    /* Optional (NULL: coll_start is used): as coll_start, with the result as
     * pieces, in the frames they arrived in (the tree's root gathers them
     * from several), so that nobody copies them to join them. */
    int (*coll_start_segs)(void *net, const char *set_id, const uint32_t *nodes, size_t nnodes,
                           uint32_t flags, pmix_status_t status, const void *data, size_t len,
                           double timeout, spx_srv_net_coll_segs_f done, void *arg);
    void (*stats)(void *net, spx_srv_net_stats_t *out);
    /* Announce an orderly end (then destroy). 0, or -1 when refused. */
    int (*leave)(void *net);
    /* Pending collectives complete with PMIX_ERR_UNREACH, then everything is freed.
     * Never from inside one of the network's own upcalls. */
    void (*destroy)(void *net);
} spx_srv_net_ops_t;

/* Creates and starts a network on base. up/up_arg: borrowed, outlive the
 * network. Sets *ops (static, borrowed) and returns the handle, or NULL
 * (logged; *ops untouched). */
typedef void *(*spx_srv_net_create_f)(struct event_base *base, const spx_srv_net_cfg_t *cfg,
                                      const spx_srv_net_up_t *up, void *up_arg,
                                      const spx_srv_net_ops_t **ops);

/* tree_net.c: the network made of the tree engine. */
void *spx_srv_tree_net_create(struct event_base *base, const spx_srv_net_cfg_t *cfg,
                              const spx_srv_net_up_t *up, void *up_arg,
                              const spx_srv_net_ops_t **ops);

/* Test seam: the factory the next PMIx_server_init uses in multi-node mode
 * (NULL restores spx_srv_tree_net_create). Call only while no server runs. */
void spx_srv_net_set_factory(spx_srv_net_create_f create);

#endif
