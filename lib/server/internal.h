/* internal.h - state of the PMIx server side of this process, shared by the
 * files of lib/server/ (not for other modules: they use server.h).
 *
 * One server per process. Everything in `spx_srv` is owned by the progress
 * thread: public PMIx_server_* calls copy their inputs and shift the work
 * there. Objects:
 *   spx_srv_ns      a registered namespace: its job info (a store plus the HELLO
 *                   reply bytes encoded once) and its registered local clients;
 *   spx_srv_client  one registered local process (rank, uid, host object);
 *   spx_srv_peer    one accepted connection; after HELLO it points to its client.
 * Peers are reference counted: the peer list holds one reference, every
 * request waiting for the host or for data holds one; a closed peer is freed
 * when the last reference goes (mark and reap), so late host callbacks are safe.
 */
#ifndef SPX_SERVER_INTERNAL_H
#define SPX_SERVER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmix_server.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "net/conn.h"
#include "net/unix_sock.h"
#include "server/delta.h"
#include "server/fence.h"
#include "store/store.h"
#include "util/compiler.h"

#ifndef PMIX_DEL_LOCAL
#define PMIX_DEL_LOCAL 5
#define PMIX_DEL_REMOTE 6
#define PMIX_DEL_GLOBAL 7
#define PMIX_DEL_INTERNAL 8
#endif

struct spx_srv_ns;
struct spx_srv_peer;
struct spx_srv_shmf;
struct spx_srv_shmf_batch;

struct spx_srv_client {
    struct spx_srv_client *next;
    struct spx_srv_ns *ns;          /* back pointer (borrowed) */
    pmix_rank_t rank;
    uid_t uid;
    gid_t gid;
    void *server_object;            /* the host's (borrowed) */
    struct spx_srv_peer *peer;      /* connected peer or NULL (borrowed) */
    bool connected_once;            /* a peer completed HELLO for it */
    bool finalized;
    bool committed;                 /* committed at least once */
    bool used_directory;            /* published or looked up in the server's own directory */
};

struct spx_srv_cleanup {            /* a JOBCTL cleanup registration */
    struct spx_srv_cleanup *next;
    char *path;                     /* owned */
    bool is_dir, recursive, leave_top, only_empty;
    char **ignore;                  /* NULL-terminated, owned */
    uid_t owner;                    /* uid of the registering client */
};

struct spx_srv_ns {
    struct spx_srv_ns *next;
    char name[PMIX_MAX_NSLEN + 1];
    int nlocalprocs;
    spx_store_t *info;              /* job info: WILDCARD = job + this node; rank = proc keys */
    pmix_rank_t *info_ranks;        /* ranks with proc-level info (owned) */
    size_t ninfo_ranks;
    pmix_rank_t *local;             /* local ranks from PMIX_LOCAL_PEERS (owned, may be NULL) */
    size_t nlocal;
    uint8_t *hello;                 /* u32 nblocks + blocks (owned) */
    size_t hello_len;
    struct spx_srv_client *clients;
    struct spx_srv_cleanup *cleanups;
    /* node of each rank from PMIX_NODE_MAP + PMIX_PROC_MAP (multi-node mode) */
    uint32_t *rank_node;            /* [rank] = node index, UINT32_MAX unknown (owned) */
    size_t nrank_node;
    uint32_t *nodes;                /* sorted unique nodes hosting ranks (owned) */
    size_t nnodes;
    struct spx_srv_shmf *shmf;      /* shared-memory fence (shmfence.c), NULL when none */
};

enum spx_srv_peer_state { SPX_PEER_NEW, SPX_PEER_HANDSHAKE, SPX_PEER_READY, SPX_PEER_CLOSED };

struct spx_srv_peer {
    struct spx_srv_peer *next;
    spx_conn_t *conn;               /* NULL once closed */
    enum spx_srv_peer_state state;
    uid_t uid;
    gid_t gid;
    pid_t pid;
    pmix_proc_t proc;               /* valid from HELLO on */
    struct spx_srv_client *client;  /* NULL before HELLO or after deregistration */
    int refs;
    char *cpus;                     /* cpu list sent with HELLO, or NULL (owned) */
    char name[PMIX_MAX_NSLEN + 64]; /* for log lines */
};

/* A request waiting for the host (or for data): holds a peer reference. */
struct spx_srv_req;
typedef void (*spx_srv_req_f)(struct spx_srv_req *r);
struct spx_srv_req {
    struct spx_srv_peer *peer;      /* referenced, may be NULL (server-originated) */
    uint8_t type;
    uint32_t seq;
    pmix_status_t status;           /* host answer */
    spx_srv_req_f done;             /* runs on the progress thread after the host answered */
    pmix_info_t *info;              /* decoded request infos (owned) */
    size_t ninfo;
    pmix_proc_t *procs;             /* owned */
    size_t nprocs;
    char **keys;                    /* NULL-terminated (owned) */
    char *msg;                      /* owned */
    void *extra;                    /* the host's answer (borrowed until relfn) */
    size_t nextra;
    void *owned;                    /* freed with owned_free when the request is freed */
    void (*owned_free)(void *);
    spx_buf_t reply;                /* encoded reply tail */
    pmix_release_cbfunc_t relfn;    /* host release of its answer, called after use */
    void *relarg;
};

struct spx_srv_get;                 /* get.c */
struct spx_srv_mn;                  /* tree_glue.c: multi-node state */
struct spx_srv_mn_cfg;

/* Counters of the last collective (answered to SPMIX_QUERY_* keys). */
struct spx_srv_stats {
    uint64_t colls;                 /* fences this server completed over the tree */
    uint64_t last_keys, last_dels;  /* entries this node contributed to its last one */
    uint64_t last_payload;          /* contribution bytes of the last one */
};

struct spx_srv {
    bool active;
    pmix_server_module_t host;
    pmix_proc_t me;
    char hostname[256];
    uint32_t nodeid;
    bool have_nodeid;
    char *dir;                      /* private directory (owned) */
    char *sock_path;                /* owned */
    uid_t uid;                      /* the user allowed to connect */
    gid_t gid;
    spx_listener_t *listener;
    spx_store_t *store;             /* committed data of local clients + fence data */
    struct spx_srv_ns *nspaces;
    struct spx_srv_peer *peers;
    spx_fence_engine_t *fence;
    struct spx_srv_get *gets;
    spx_delta_t *delta;             /* delta bookkeeping of collecting fences */
    struct spx_srv_mn *mn;          /* NULL in single-node mode */
    struct spx_srv_mn_cfg *mn_cfg;  /* SPMIX_TREE_* directives until the tree is made */
    struct spx_srv_stats stats;
    bool local_fences;              /* SPMIX_SERVER_LOCAL_FENCES */
    bool local_failure;             /* a local process ended without PMIx_Finalize:
                                     * the tree then does not announce an orderly end */
};

extern struct spx_srv spx_srv;

/* ---- server.c ---- */
/* Runs fn(arg) on the progress thread and waits for it to return (not on that thread). */
void spx_srv_run_sync(void (*fn)(void *), void *arg);

/* ---- util.c: helpers on infos and procs ---- */
/* An integer directive (any integer type), or dflt when absent or not an integer.
 * (Flags, lookups and copies come from types/types.h.) */
long spx_srv_info_int(const pmix_info_t *info, size_t n, const char *key, long dflt);
/* Parses a comma list of ranks with ranges ("0,2-4"); *out malloc'd. 0 or -1. */
int spx_srv_parse_ranks(const char *s, pmix_rank_t **out, size_t *n);
/* Frees a NULL-terminated string array. */
void spx_srv_argv_free(char **argv);

/* ---- nspace.c ---- */
struct spx_srv_ns *spx_srv_ns_find(const char *name);
struct spx_srv_client *spx_srv_client_find(const char *nspace, pmix_rank_t rank);
/* True when (nspace, rank) is a process of this node (registered or in local peers). */
bool spx_srv_proc_is_local(const char *nspace, pmix_rank_t rank);
/* Local processes of a namespace: *out malloc'd, sorted, unique. */
size_t spx_srv_ns_local_ranks(const struct spx_srv_ns *ns, pmix_rank_t **out);
void spx_srv_ns_free_all(void);

/* ---- peer.c ---- */
void spx_srv_accept(int fd, uid_t uid, gid_t gid, pid_t pid, void *arg);
void spx_srv_peer_ref(struct spx_srv_peer *p);
void spx_srv_peer_unref(struct spx_srv_peer *p);
void spx_srv_peer_close(struct spx_srv_peer *p, const char *reason);
void spx_srv_close_all(void);
/* Replies (no-ops when the peer is gone). payload: bytes taken. */
void spx_srv_reply(struct spx_srv_peer *p, uint8_t type, uint32_t seq, spx_buf_t *payload);
void spx_srv_reply_status(struct spx_srv_peer *p, uint8_t type, uint32_t seq,
                          pmix_status_t status);
struct spx_srv_req *spx_srv_req_create(struct spx_srv_peer *p, uint8_t type, uint32_t seq);
void spx_srv_req_free(struct spx_srv_req *r);
/* Host callbacks: store the answer and shift r->done onto the progress thread. */
void spx_srv_req_op_cb(pmix_status_t status, void *cbdata);
/* Completes r now (upcall returned without a callback coming): status goes to r. */
void spx_srv_req_finish_now(struct spx_srv_req *r, pmix_status_t status);
/* The usual done: reply r->status and free. */
void spx_srv_req_reply_done(struct spx_srv_req *r);

/* ---- topo.c: this node's topology for the clients ---- */
/* Adds PMIX_HWLOC_XML_V2 to ns's job info unless the host gave a topology. */
pmix_status_t spx_srv_topo_add_xml(struct spx_srv_ns *ns);
/* Stores PMIX_CPUSET and (bound processes) PMIX_LOCALITY_STRING of rank from
 * the cpu list its HELLO carried ("0-3,8"). cpulist: borrowed. */
void spx_srv_topo_client_cpus(struct spx_srv_ns *ns, pmix_rank_t rank, const char *cpulist);

/* ---- shmfence.c: the shared-memory fence of a namespace ---- */
/* Creates ns's segment when every local process is known and adds its path
 * to ns's job info (before the HELLO bytes are encoded). No segment (and
 * PMIX_SUCCESS) when it does not apply or cannot be made. */
pmix_status_t spx_srv_shmf_setup(struct spx_srv_ns *ns);
/* Detaches ns's fence (re-registration hands it to the new ns). */
struct spx_srv_shmf *spx_srv_shmf_take(struct spx_srv_ns *ns);
/* Breaks, answers every waiter with PMIX_ERR_NOT_AVAILABLE, removes the file. */
void spx_srv_shmf_free(struct spx_srv_shmf *f);
/* Every whole-namespace fence of ns fails with status from now on (ns may be
 * NULL); recoverable: a local process went away, and the fence works again
 * once every local process is connected (spx_srv_shmf_client_ready). */
void spx_srv_shmf_break(struct spx_srv_ns *ns, pmix_status_t status, bool recoverable);
/* A client of ns completed its HELLO. */
void spx_srv_shmf_client_ready(struct spx_srv_ns *ns);
/* A node of ns ended in order: break the segment with status now, or, when
 * the current generation is with the fence engine, once it is released. */
void spx_srv_shmf_end(struct spx_srv_ns *ns, pmix_status_t status);
/* Does a FENCE from p over set go through p's namespace's segment? */
bool spx_srv_shmf_covers(const struct spx_srv_peer *p, const pmix_proc_t *set, size_t nset);
/* A FENCE request that spx_srv_shmf_covers: arrives on p's behalf. */
void spx_srv_shmf_socket_fence(struct spx_srv_peer *p, uint32_t seq, bool collect, long timeout);
/* One COMMIT frame of p was applied. */
void spx_srv_shmf_commit_applied(struct spx_srv_peer *p);
/* FENCE_LOCAL frame (0, or -1 when malformed). */
int spx_srv_handle_fence_local(struct spx_srv_peer *p, spx_buf_t *b);
/* The fence engine answered one of a closed gather's arrivals. */
void spx_srv_shmf_batch_done(struct spx_srv_shmf_batch *batch, pmix_status_t status);
/* collect.c: enters proc (a local process) into the fence engine for a
 * closed gather; the answer goes to spx_srv_shmf_batch_done(batch). */
void spx_srv_fence_arrive_for(const pmix_proc_t *proc, const pmix_proc_t *set, size_t nset,
                              bool collect, double timeout, struct spx_srv_shmf_batch *batch);

/* ---- handlers (return 0, or -1 for a malformed payload: the caller closes) ---- */
int spx_srv_handle_commit(struct spx_srv_peer *p, spx_buf_t *b);
int spx_srv_handle_fence(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b);
int spx_srv_handle_get(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b);
int spx_srv_handle_notify(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b);
int spx_srv_handle_upcall(struct spx_srv_peer *p, uint8_t type, uint32_t seq, spx_buf_t *b);

/* ---- fence glue (collect.c) ---- */
int spx_srv_fence_setup(void);
void spx_srv_fence_teardown(void);

/* ---- get.c ---- */
/* A local process committed or went away: answer held requests. */
void spx_srv_get_committed(const char *nspace, pmix_rank_t rank);
/* (nspace, rank) completed its HELLO: GETs waiting for its locality are answered. */
void spx_srv_get_target_hello(const char *nspace, pmix_rank_t rank);
void spx_srv_get_target_gone(const char *nspace, pmix_rank_t rank);
void spx_srv_get_requester_gone(struct spx_srv_peer *p);
void spx_srv_get_fail_all(void);
/* Host dmodex support (PMIx_server_dmodex_request) on the progress thread. */
bool spx_srv_proc_visible(const pmix_proc_t *requester, const char *nspace, pmix_rank_t rank,
                          pmix_scope_t scope);

/* ---- events.c ---- */
/* Sends the EVENT frame to local clients in range, except `except` (may be NULL). */
void spx_srv_event_deliver(pmix_status_t status, const pmix_proc_t *source,
                           pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
                           const struct spx_srv_peer *except);

/* Borrowed pointer to the value of (target, key) requester may see, or NULL. */
const pmix_value_t *spx_srv_get_lookup(const pmix_proc_t *requester, const pmix_proc_t *target,
                                       const char *key);
/* Sends a GET reply (value v when st is PMIX_SUCCESS). */
void spx_srv_get_reply(struct spx_srv_peer *p, uint32_t seq, pmix_status_t st,
                       const pmix_value_t *v);

/* ---- nspace.c ---- */
/* Node index of (ns, rank), UINT32_MAX when unknown. */
uint32_t spx_srv_ns_node_of(const struct spx_srv_ns *ns, pmix_rank_t rank);

/* ---- tree_glue.c: multi-node mode (everything is a no-op / false in single-node) ---- */
/* Channels of spx_tree_send / spx_tree_bcast used by the server. */
enum spx_srv_channel {
    SPX_SRV_CH_DMX_REQ = 1,  /* u32 id, proc target, str key ("" = any), u8 optional,
                              * u32 timeout */
    SPX_SRV_CH_DMX_REP = 2,  /* u32 id, i32 status, records (proto/records.h) */
    SPX_SRV_CH_EVENT = 3,    /* i32 status, proc source, u8 range, info[] */
    SPX_SRV_CH_PROC_LOST = 4, /* proc: a process died without PMIx_Finalize */
    SPX_SRV_CH_PUBSUB_REQ = 5, /* pubsub.c: a publish/lookup/unpublish for node 0 */
    SPX_SRV_CH_PUBSUB_REP = 6, /* pubsub.c: node 0's answer */
    SPX_SRV_CH_PUBSUB_GONE = 7 /* pubsub.c: a process that used the directory finalized */
};
/* Reads the SPMIX_TREE_* directives (caller's thread) into spx_srv.mn_cfg; PMIX_SUCCESS
 * also when there are none (single node), PMIX_ERR_BAD_PARAM when incomplete. */
pmix_status_t spx_srv_mn_parse(const pmix_info_t *info, size_t ninfo);
/* On the progress thread: creates and starts the tree (0), or -1. No-op without cfg. */
int spx_srv_mn_start(void);
/* On the progress thread: prints the totals if SPMIX_STATS=1, destroys the tree (its
 * pending collectives complete with PMIX_ERR_UNREACH first), frees the state. */
void spx_srv_mn_stop(void);
/* Nodes hosting the participants of set (sorted, own node included): *out malloc'd.
 * 0, or -1 when a participant's node is unknown. */
int spx_srv_mn_set_nodes(const pmix_proc_t *set, size_t nset, uint32_t **out, size_t *n);
/* Whether set names a process on a node that is gone (lost or ended:
 * PMIX_ERR_UNREACH) or a process known to be lost (PMIX_ERR_PROC_ABORTED);
 * PMIX_SUCCESS when neither. */
pmix_status_t spx_srv_mn_set_gone(const pmix_proc_t *set, size_t nset);
bool spx_srv_mn_node_is_lost(uint32_t node);
/* Records proc as lost; false when it already was (or no memory). */
bool spx_srv_mn_mark_lost(const pmix_proc_t *proc);
uint32_t spx_srv_mn_me(void);
/* The fence engine's host_fence and local_failed in multi-node mode. */
pmix_status_t spx_srv_mn_fence(const char *set_key, const pmix_proc_t *set, size_t nset,
                               bool collect, double timeout, const char *data, size_t ndata,
                               void *token);
void spx_srv_mn_fence_failed(const pmix_proc_t *set, size_t nset, const char *set_key,
                             bool collect, pmix_status_t status, double timeout);
/* Answers the SPMIX_QUERY_* key into *out (uint64); false for other keys. */
bool spx_srv_mn_query(const char *key, pmix_info_t *out);
bool spx_srv_mn_is_query_key(const char *key);
/* Sends / broadcasts on a channel; 0 or -1. */
int spx_srv_mn_send(uint32_t node, uint8_t channel, const spx_buf_t *b);
int spx_srv_mn_bcast(uint8_t channel, const spx_buf_t *b);

/* ---- relay.c: events and failures across nodes ---- */
/* A client of this node left without PMIx_Finalize (or a PROC_ABORTED notification
 * named it): fail what needs it here and everywhere, tell every client of its job. */
void spx_srv_relay_proc_lost(const pmix_proc_t *proc, bool tell_others);
/* A node is gone: fail what waits for it; notify_clients: raise PMIX_ERR_UNREACH
 * naming its processes (a lost node), not for one that ended in order. */
void spx_srv_relay_node_lost(uint32_t node, bool notify_clients);

/* ---- pubsub.c: the server's own publish/lookup directory (no host module one) ---- */
/* Same contracts as the host module's publish/lookup/unpublish. */
pmix_status_t spx_srv_pubsub_publish(const pmix_proc_t *proc, const pmix_info_t info[],
                                     size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t spx_srv_pubsub_lookup(const pmix_proc_t *proc, char **keys,
                                    const pmix_info_t info[], size_t ninfo,
                                    pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t spx_srv_pubsub_unpublish(const pmix_proc_t *proc, char **keys,
                                       const pmix_info_t info[], size_t ninfo,
                                       pmix_op_cbfunc_t cbfunc, void *cbdata);
/* proc finalized or was lost; used: it used the directory from this node. */
void spx_srv_pubsub_proc_done(const pmix_proc_t *proc, bool used);
void spx_srv_pubsub_recv(uint32_t from, uint8_t channel, spx_buf_t *b);
/* node is gone: with node 0, requests waiting for it fail (PMIX_ERR_UNREACH). */
void spx_srv_pubsub_node_gone(uint32_t node);
/* Server stop: waiting requests fail, the table is emptied. */
void spx_srv_pubsub_fini(void);
/* An event with range beyond this node: broadcast it (no-op in single-node mode or
 * for node-local ranges). Returns true when it was relayed. */
bool spx_srv_relay_event(pmix_status_t status, const pmix_proc_t *source,
                         pmix_data_range_t range, const pmix_info_t *info, size_t ninfo);
/* PMIx_Notify_event of the host in multi-node mode: true when handled here. */
bool spx_srv_relay_host_event(pmix_status_t status, const pmix_proc_t *source,
                              pmix_data_range_t range, const pmix_info_t *info, size_t ninfo);
void spx_srv_relay_recv(uint32_t from, uint8_t channel, spx_buf_t *b);

/* ---- dmodex.c: direct modex over the tree ---- */
/* A GET of a remote target missed locally: ask its node. True when taken over. */
bool spx_srv_dmx_get(struct spx_srv_peer *p, uint32_t seq, const pmix_proc_t *requester,
                     const pmix_proc_t *target, const char *key, bool optional, long timeout);
/* PMIx_server_dmodex_request for a remote process. True when taken over. */
bool spx_srv_dmx_host(const pmix_proc_t *target, pmix_dmodex_response_fn_t cb, void *cbarg);
void spx_srv_dmx_recv(uint32_t from, uint8_t channel, spx_buf_t *b);
void spx_srv_dmx_committed(const char *nspace, pmix_rank_t rank);
void spx_srv_dmx_target_gone(const char *nspace, pmix_rank_t rank);
void spx_srv_dmx_node_lost(uint32_t node);
void spx_srv_dmx_fini(void);

/* ---- cleanup.c ---- */
/* Records the cleanup directives of a JOBCTL; PMIX_SUCCESS, or NOT_SUPPORTED when
 * the directives hold anything else (the host must handle them). */
pmix_status_t spx_srv_cleanup_register(struct spx_srv_client *c, const pmix_info_t *info,
                                       size_t ninfo, bool only_if_all);
void spx_srv_cleanup_run(struct spx_srv_ns *ns);
void spx_srv_cleanup_free(struct spx_srv_ns *ns);

#endif
