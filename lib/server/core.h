/* core.h - the server core: the context object of the PMIx server of this
 * process and what every engine may use of it (not for other modules: they
 * use server.h).
 *
 * Layout of lib/server: the core (server.c life cycle, nspace.c namespaces,
 * peer.c connections and requests, upcalls.c host forwarding, topo.c,
 * cleanup.c, util.c, nodes.c the other nodes over the net-ops seam net.h)
 * plus engines, each with its own header that includes this one:
 *   engine_fence.h   fence glue (collect.c) and shared-memory fence (shmfence.c)
 *   engine_get.h     GET (get.c) and direct modex over the nodes (dmodex.c)
 *   engine_events.h  events to clients (events.c) and their relay (relay.c)
 *   engine_pubsub.h  the publish/lookup directory (pubsub.c)
 *   engine_group.h   group construct/destruct and context ids (group.c)
 *   engine_pmi.h     the PMI-1/PMI-2 wire protocols on a task's PMI_FD (pmi_wire.c, pmi_cmds.c)
 *   engine_query.h   the query keys the server answers itself, across nodes
 *                    where they span them (query_own.c, query_gather.c,
 *                    query_facts.c; upcalls.c decodes the QUERY request)
 * This header includes no engine header (scripts/check-server-includes.sh
 * checks it). Engines reach other nodes only through nodes.c's functions,
 * which reach them only through the net-ops seam.
 *
 * One server per process. Everything in the context is owned by the progress
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
#ifndef SPX_SERVER_CORE_H
#define SPX_SERVER_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <pmix_server.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "net/conn.h"
#include "net/unix_sock.h"
#include "store/jobmap.h"
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
    SLIST_ENTRY(spx_srv_client) link; /* in its namespace's clients */
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
    bool aborted;                   /* called PMIx_Abort */
    pid_t pid;                      /* its connection's (SO_PEERCRED) at HELLO; 0: not known
                                     * (never connected, or a PMI wire task) */
    char *exe;                      /* argv[0] of /proc/PID/cmdline, read while it was
                                     * connected and kept (query_facts.c); owned, may be NULL */
};

struct spx_srv_cleanup {            /* a JOBCTL cleanup registration */
    SLIST_ENTRY(spx_srv_cleanup) link; /* in its namespace's cleanups */
    char *path;                     /* owned */
    bool is_dir, recursive, leave_top, only_empty;
    char **ignore;                  /* NULL-terminated, owned */
    uid_t owner;                    /* uid of the registering client */
};

struct spx_srv_ns {
    LIST_ENTRY(spx_srv_ns) link;    /* in ctx->nspaces */
    char name[PMIX_MAX_NSLEN + 1];
    int nlocalprocs;
    spx_store_t *info;              /* job info: WILDCARD = job + this node; rank = proc keys */
    pmix_rank_t *info_ranks;        /* ranks with proc-level info (owned) */
    size_t ninfo_ranks;
    pmix_rank_t *local;             /* local ranks from PMIX_LOCAL_PEERS (owned, may be NULL) */
    size_t nlocal;
    uint8_t *hello;                 /* the blocks every client is sent (owned, hello.c) */
    size_t hello_len;
    uint32_t hello_nblocks;
    SLIST_HEAD(, spx_srv_client) clients;   /* newest first (owned, nspace.c) */
    SLIST_HEAD(, spx_srv_cleanup) cleanups; /* newest first, run in that order (owned, cleanup.c) */
    /* PMIX_NODE_MAP + PMIX_PROC_MAP, compact (nspace_maps.c) */
    spx_jobmap_t map;               /* owned; valid when mapped */
    bool mapped;
    uint32_t my_node;               /* this node's index in the maps, UINT32_MAX unknown */
    uint32_t *nodes;                /* sorted unique nodes hosting ranks (owned) */
    size_t nnodes;
    struct spx_srv_shmf *shmf;      /* shared-memory fence (shmfence.c), NULL when none */
    pmix_rank_t *departed;          /* ranks whose client was deregistered here (owned) */
    size_t ndeparted, cdeparted;
    char *cmd_line;                 /* a local process's /proc/PID/cmdline, read once
                                     * (query_facts.c); owned, may be NULL */
};

/* Life of a connection (peer.c sets it, through one function):
 * NEW (accepted) -> HANDSHAKE (HELLO being authorized) -> READY -> CLOSED. */
enum spx_srv_peer_state { SPX_PEER_NEW, SPX_PEER_HANDSHAKE, SPX_PEER_READY, SPX_PEER_CLOSED };
/* Name of a state for log lines ("new", "handshake", "ready", "closed"). */
const char *spx_srv_peer_state_str(enum spx_srv_peer_state s);

/* How replies reach a peer that has no PMIx connection, and how it closes:
 * the core calls these and names no engine (a PMI wire peer's are
 * pmi_wire.c's). Progress thread. reply takes payload (may be NULL). */
struct spx_srv_peer_ops {
    void (*reply)(struct spx_srv_peer *p, uint8_t type, uint32_t seq, spx_buf_t *payload);
    void (*close)(struct spx_srv_peer *p, const char *reason);
};

struct spx_srv_peer {
    LIST_ENTRY(spx_srv_peer) link;  /* in ctx->peers */
    struct spx_srv_ctx *ctx;        /* the server it belongs to (borrowed) */
    spx_conn_t *conn;               /* NULL once closed */
    enum spx_srv_peer_state state;
    uid_t uid;
    gid_t gid;
    pid_t pid;
    pmix_proc_t proc;               /* valid from HELLO on */
    struct spx_srv_client *client;  /* NULL before HELLO or after deregistration, or a tool */
    bool tool;                      /* a tool's connection (HELLO kind TOOL accepted) */
    int refs;
    char *cpus;                     /* cpu list sent with HELLO, or NULL (owned) */
    /* a peer without a PMIx connection (a PMI wire one) carries the ops its
     * replies and its closing go through, and their argument (engine_pmi.h) */
    const struct spx_srv_peer_ops *ops;
    struct spx_srv_pmi_conn *pmi;   /* a PMI wire connection's peer (engine_pmi.h):
                                     * no conn; replies and closing go there (borrowed) */
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
    pmix_byte_object_t bo;          /* IOF_PUSH: the bytes (in msg) handed to the host */
    void *extra;                    /* the host's answer (borrowed until relfn) */
    size_t nextra;
    void *owned;                    /* freed with owned_free when the request is freed */
    void (*owned_free)(void *);
    spx_buf_t reply;                /* encoded reply tail */
    pmix_release_cbfunc_t relfn;    /* host release of its answer, called after use */
    void *relarg;
};

struct spx_srv_get;                 /* get.c */
struct spx_srv_mn;                  /* nodes.c: multi-node state */
struct spx_srv_mn_cfg;
struct spx_srv_dmx;                 /* dmodex.c: direct modex state */
struct spx_srv_iof;                 /* iof.c: the IOF engine's state */
struct spx_srv_pmi;                 /* pmi_wire.c: the PMI wire engine's state */
struct spx_srv_pmi_conn;
struct spx_srv_pubsub;              /* pubsub.c: requests waiting for node 0 */
struct spx_srv_grp;                 /* group.c: groups, their collectives and context ids */
struct spx_srv_qry;                 /* query_int.h: queries waiting for other nodes */
struct spx_srv_ctx;

/* An engine of the server, as the core sees it: its life and what the
 * other nodes send it. Each engine defines one const table (in its engine
 * header); server.c lists them in ctx->engines. Every hook runs on the
 * progress thread and may be NULL.
 *   setup      server start, in list order, before the network is made:
 *              creates the engine's state in ctx; 0, or -1 (start fails).
 *   stop       server stop, in reverse order, while the network and the
 *              clients are still there (ctx->active is already false):
 *              answers what waits in the engine.
 *   teardown   after the clients are closed, in reverse order: frees the
 *              engine's state (every hook but setup tolerates its absence).
 *   recv       a message from node `from` on one of `channels` (bit 1 << ch
 *              of enum spx_srv_channel); b holds the payload (borrowed).
 *   node_gone  node is gone (lost: it failed; else it ended in order), in
 *              list order, only while the server is active.
 *   routes     the client messages the engine handles (hooks.c routes each
 *              type to the first engine listing it), ended by type 0. */
struct spx_srv_peer;
struct spx_srv_route {
    uint8_t type;                   /* SPX_MSG_*, 0 ends a table */
    bool tools;                     /* tools may send it too */
    /* 0, or -1 for a malformed payload (the connection is then closed) */
    int (*handle)(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *payload);
};
struct spx_srv_engine_ops {
    const char *name;
    uint32_t channels;
    const struct spx_srv_route *routes;
    int (*setup)(struct spx_srv_ctx *ctx);
    void (*stop)(struct spx_srv_ctx *ctx);
    void (*teardown)(struct spx_srv_ctx *ctx);
    void (*recv)(struct spx_srv_ctx *ctx, uint32_t from, uint8_t channel, spx_buf_t *b);
    void (*node_gone)(struct spx_srv_ctx *ctx, uint32_t node, bool lost);
    /* proc_gone  a process went away: a local one (connection lost, or its
 *              namespace or itself deregistered; finalized: it had called
 *              PMIx_Finalize), or one of another node that failed (finalized
 *              false). proc: borrowed. */
    void (*proc_gone)(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool finalized);
    /* nspace_gone  the host deregistered namespace nspace (borrowed), after
     *              proc_gone for each of its local clients: drop what was
     *              kept for its processes. */
    void (*nspace_gone)(struct spx_srv_ctx *ctx, const char *nspace);
    /* client_ready  local client cl finished its handshake (a PMIx HELLO, or
     *               a PMI task's first command): it is connected and its
     *               cpuset known. cl: borrowed. */
    void (*client_ready)(struct spx_srv_ctx *ctx, struct spx_srv_client *cl);
    /* client_finalized  local client cl called PMIx_Finalize (it is still
     *               connected; what waits for it goes on without it). */
    void (*client_finalized)(struct spx_srv_ctx *ctx, struct spx_srv_client *cl);
};
/* ---- hooks.c: the core's view of the engines, which server.c lists in
 * ctx->engines at init; the core names no engine ---- */
/* Tells every engine with a proc_gone hook. */
void spx_srv_engines_proc_gone(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool finalized);
/* Every engine with a client_ready / client_finalized hook, in list order. */
void spx_srv_engines_client_ready(struct spx_srv_ctx *ctx, struct spx_srv_client *cl);
void spx_srv_engines_client_finalized(struct spx_srv_ctx *ctx, struct spx_srv_client *cl);
/* Every engine with a node_gone hook, in list order. */
void spx_srv_engines_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost);
/* The engine that takes messages of channel, or NULL. */
const struct spx_srv_engine_ops *spx_srv_engine_of_channel(const struct spx_srv_ctx *ctx,
                                                           uint8_t channel);
/* The route of a client message type, or NULL: no engine handles it. */
const struct spx_srv_route *spx_srv_route_of(const struct spx_srv_ctx *ctx, uint8_t type);
/* A request of peer p handled as if it had come on its connection (peer.c:
 * the engine's route, else the host's upcalls): 0, or -1 for a malformed
 * payload or a type nobody handles. For peers that speak another protocol
 * (the PMI wire engine turns its commands into these). */
int spx_srv_request(struct spx_srv_peer *p, uint8_t type, uint32_t seq, spx_buf_t *payload);
/* The tools' rendezvous files (rendezvous.c): written in dir (0, or -1 with a
 * log line) when the first namespace is registered (progress thread);
 * removed at finalize (no file: nothing). */
int spx_srv_rendezvous_write(struct spx_srv_ctx *ctx, const char *dir);
void spx_srv_rendezvous_remove(struct spx_srv_ctx *ctx);
/* An IOF_PUSH request of r's peer (iof.c): 0, or -1 for a malformed payload
 * (r untouched by the host: the caller frees it). */
int spx_srv_handle_iof_push(struct spx_srv_req *r, spx_buf_t *b);
/* The IOF engine (iof.c): pushes to hosts of this and other nodes. */
extern const struct spx_srv_engine_ops spx_srv_iof_engine;
/* Tells every engine with a nspace_gone hook. */
void spx_srv_engines_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace);

/* Counters of the last collective (answered to SPMIX_QUERY_* keys). */
struct spx_srv_stats {
    uint64_t colls;                 /* fences this server completed over the tree */
    uint64_t last_keys, last_dels;  /* entries this node contributed to its last one */
    uint64_t last_payload;          /* contribution bytes of the last one */
};

/* The server's own publish/lookup directory, which the core's upcalls use
 * when the host module has none (the publish/lookup engine sets ctx->directory
 * at its setup): the host module's contracts, on ctx. proc_done: proc
 * finalized or was lost (used: it used the directory from this node). */
struct spx_srv_directory {
    pmix_status_t (*publish)(struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                             const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                             void *cbdata);
    pmix_status_t (*lookup)(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, char **keys,
                            const pmix_info_t info[], size_t ninfo, pmix_lookup_cbfunc_t cbfunc,
                            void *cbdata);
    pmix_status_t (*unpublish)(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, char **keys,
                               const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                               void *cbdata);
    void (*proc_done)(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool used);
};

/* The end of a run of the server's own query answers: own[0..nown) the
 * answers (handed to the callee: spx_info_array_free(own, nown); NULL when
 * none), all: every key asked is answered, by the caller's answers or by
 * own. */
typedef void (*spx_srv_query_own_f)(pmix_info_t *own, size_t nown, bool all, void *arg);
/* Answers the keys of q[0..nq) that ans[0..nans) lacks and the server
 * library knows (the query engine's spx_srv_query_own_run, engine_query.h,
 * which it sets in ctx->query_own at setup). */
typedef void (*spx_srv_query_own_run_f)(struct spx_srv_ctx *ctx, const struct spx_srv_peer *p,
                                        const pmix_query_t *q, size_t nq,
                                        const pmix_info_t *ans, size_t nans,
                                        spx_srv_query_own_f done, void *arg);

struct spx_srv_ctx {
    bool active;
    spx_srv_query_own_run_f query_own; /* NULL: none (the core's upcalls answer only the host's) */
    const struct spx_srv_directory *directory; /* NULL: none (borrowed, static) */
    /* the engines in order, NULL-terminated (borrowed: server.c's list) */
    const struct spx_srv_engine_ops *const *engines;
    pmix_server_module_t host;      /* the host module (copied at init; its pointers borrowed) */
    pmix_proc_t me;
    char hostname[256];
    uint32_t nodeid;
    bool have_nodeid;
    char *dir;                      /* private directory (owned) */
    char *sock_path;                /* owned */
    bool tool_support;              /* PMIX_SERVER_TOOL_SUPPORT: tools may connect */
    char *tool_file;                /* the tools' rendezvous file (rendezvous.c), or NULL (owned) */
    char *alias_file;               /* the one named after alias_pid, or NULL (owned) */
    char *tool_dir;                 /* where it goes (the system tmpdir; owned) */
    uint32_t tools_seen;            /* tools connected so far: names the next one */
    long tool_pid;                  /* names the rendezvous file: this process */
    long alias_pid;                 /* names a second one (SPMIX_SERVER_RENDEZVOUS_PID), or 0 */
    long launcher_pid;              /* the launcher this server is a node of
                                     * (SPMIX_SERVER_LAUNCHER_PID), or 0 */
    uid_t uid;                      /* the user allowed to connect */
    gid_t gid;
    spx_listener_t *listener;       /* owned */
    spx_store_t *store;             /* committed data of local clients + fence data (owned) */
    LIST_HEAD(, spx_srv_ns) nspaces; /* registered namespaces, newest first (owned, nspace.c) */
    LIST_HEAD(, spx_srv_peer) peers; /* accepted connections, newest first (one reference each,
                                      * peer.c) */
    struct spx_fence_engine *fence; /* fence engine (engine_fence.h, collect.c; owned) */
    struct spx_srv_fence_glue *fglue; /* collect.c's state, the fence ops' argument (owned) */
    LIST_HEAD(, spx_srv_get) gets;  /* GETs waiting for data, newest first (get.c; owned) */
    struct spx_delta *delta;        /* delta bookkeeping of collecting fences (owned) */
    struct spx_srv_mn *mn;          /* NULL in single-node mode (nodes.c; owned) */
    struct spx_srv_mn_cfg *mn_cfg;  /* SPMIX_TREE_* directives until the network is made (owned) */
    struct spx_srv_dmx *dmx;        /* direct modex state (dmodex.c's engine; owned) */
    struct spx_srv_pubsub *pubsub;  /* directory requests for node 0 (pubsub.c's engine; owned) */
    struct spx_srv_grp *grp;        /* groups of this node (group.c's engine; owned) */
    struct spx_srv_iof *iof;        /* pushes waiting for other nodes (iof.c's engine; owned) */
    struct spx_srv_pulls *iof_pulls; /* output pulled by tools (iof_pull.c; owned by iof.c's
                                      * engine) */
    struct spx_srv_pmi *pmi;        /* PMI wire connections (pmi_wire.c's engine; owned) */
    struct spx_srv_qry *qry;        /* queries waiting for other nodes (query engine; owned) */
    struct spx_srv_stats stats;
    bool local_fences;              /* SPMIX_SERVER_LOCAL_FENCES */
    bool local_failure;             /* a local process ended without PMIx_Finalize:
                                     * the tree then does not announce an orderly end */
};

/* The one server context of this process (hooks.c), for the PMIx_server_*
 * entry points (and PMIx_Notify_event in a server) that start a request, and
 * for host callbacks that get nothing else back. Every other function gets
 * the context from its caller: engines as their ops' argument, through the
 * peer they serve (p->ctx) or the request they work on. */
extern struct spx_srv_ctx *const spx_srv;

/* ---- server.c ---- */
/* Runs fn(arg) on the progress thread and waits for it to return (not on that thread). */
void spx_srv_run_sync(void (*fn)(void *), void *arg);

/* ---- util.c: helpers on infos and procs ---- */
/* An integer directive (any integer type), or dflt when absent or not an integer.
 * (Flags, lookups and copies come from types/types.h.) */
long spx_srv_info_int(const pmix_info_t *info, size_t n, const char *key, long dflt);
/* Reads a rank list ("0,2-4", util/ranklist.h; at most 2^24 ranks) into *out
 * (malloc'd, ascending, unique; NULL when empty) and *n. 0, or -1 when s is
 * not a rank list. (NULL-terminated string arrays are freed with
 * spx_argv_free, types/types.h.) */
int spx_srv_parse_ranks(const char *s, pmix_rank_t **out, size_t *n);

/* (fence_timer.c) A timer for tracker id of a fence engine (fence.h timer_arm): when it
 * fires, spx_fence_timeout(engine_of(ctx), id), nothing if that is NULL by
 * then. The handle (NULL on failure) goes to spx_srv_fence_timer_cancel
 * unless the timer fired. */
struct spx_fence_engine;
void *spx_srv_fence_timer_arm(struct spx_srv_ctx *ctx,
                              struct spx_fence_engine *(*engine_of)(struct spx_srv_ctx *),
                              double seconds, uint64_t id);
void spx_srv_fence_timer_cancel(void *handle);

/* ---- nspace.c ---- */
struct spx_srv_ns *spx_srv_ns_find(const struct spx_srv_ctx *ctx, const char *name);
/* Was a client of rank deregistered from ns on this node? (A rank without a
 * client record either has not been registered yet or went away.) */
bool spx_srv_ns_departed(const struct spx_srv_ns *ns, pmix_rank_t rank);
struct spx_srv_client *spx_srv_client_find(const struct spx_srv_ctx *ctx, const char *nspace,
                                           pmix_rank_t rank);
/* True when (nspace, rank) is a process of this node (registered or in local peers). */
bool spx_srv_proc_is_local(const struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank);
/* The local processes a participant set covers (WILDCARD entries expanded):
 * *out malloc'd (caller frees), unique; returns their count. Sets *gone (left
 * as it is otherwise) when one of them has gone away (PMIX_ERR_PROC_ABORTED)
 * or the set names a process on a node that is gone (PMIX_ERR_UNREACH).
 * without_finalized: processes that called PMIx_Finalize are left out (a
 * fence goes on without them); else one of them counts as gone too. */
size_t spx_srv_set_local_members(struct spx_srv_ctx *ctx, const pmix_proc_t *set, size_t nset,
                                 bool without_finalized, pmix_proc_t **out, pmix_status_t *gone);
/* Local processes of a namespace: *out malloc'd, sorted, unique. */
size_t spx_srv_ns_local_ranks(const struct spx_srv_ns *ns, pmix_rank_t **out);
void spx_srv_ns_free_all(struct spx_srv_ctx *ctx);

/* ---- peer.c ---- */
/* The listener's accept callback; arg: the struct spx_srv_ctx (borrowed). */
void spx_srv_accept(int fd, uid_t uid, gid_t gid, pid_t pid, void *arg);
/* May tool peer p see the data and events of namespace nspace? Root's tools
 * see every namespace; another user's only those whose registered local
 * processes all run as that user (a namespace unknown here: yes, the answer
 * says it is unknown). */
bool spx_srv_tool_may_see(const struct spx_srv_peer *p, const char *nspace);
void spx_srv_peer_ref(struct spx_srv_peer *p);
void spx_srv_peer_unref(struct spx_srv_peer *p);
void spx_srv_peer_close(struct spx_srv_peer *p, const char *reason);
/* p's connection has gone (reason: borrowed): a client that had not
 * finalized is lost (fences, gets, relay, engines hear of it); p leaves the
 * peer list. For the framed connection's close callback and the PMI
 * engine's (engine_pmi.h). */
void spx_srv_peer_closed(struct spx_srv_peer *p, const char *reason);
void spx_srv_close_all(struct spx_srv_ctx *ctx);
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
/* The host's hwloc topology (PMIX_TOPOLOGY2 at PMIx_server_init; borrowed
 * for the server's life) replaces the server's own discovery. */
void spx_srv_topo_from_host(void *hwloc_topo);
/* Adds PMIX_HWLOC_XML_V2 to ns's job info unless the host gave a topology. */
pmix_status_t spx_srv_topo_add_xml(struct spx_srv_ns *ns);
/* Stores PMIX_CPUSET and (bound processes) PMIX_LOCALITY_STRING of rank from
 * the cpu list its HELLO carried ("0-3,8"). cpulist: borrowed. */
void spx_srv_topo_client_cpus(struct spx_srv_ns *ns, pmix_rank_t rank, const char *cpulist);

/* ---- hello.c ---- */
/* Encodes what all of ns's clients are sent at PMIx_Init into ns->hello (see hello.c). */
pmix_status_t spx_srv_ns_encode_hello(struct spx_srv_ns *ns);
/* The HELLO reply's blocks for process rank of ns into b. */
void spx_srv_hello_push(spx_buf_t *b, const struct spx_srv_ns *ns, pmix_rank_t rank);

/* ---- nspace_maps.c ---- */
/* Parses ns's maps from its job-level info into ns->map and ns->nodes, and
 * this node's index from the job level's PMIX_NODEID. */
void spx_srv_ns_maps_load(struct spx_srv_ns *ns);
/* This node's index from the node parts registered (when the job level
 * did not say it). */
void spx_srv_ns_maps_my_node(struct spx_srv_ns *ns);
/* Node index of (ns, rank), UINT32_MAX when unknown. */
uint32_t spx_srv_ns_node_of(const struct spx_srv_ns *ns, pmix_rank_t rank);
/* Ranks of node, ascending, into *out (malloc'd, caller frees); 0 when none. */
size_t spx_srv_ns_node_ranks(const struct spx_srv_ns *ns, uint32_t node, pmix_rank_t **out);
/* Highest rank the maps place + 1 (0: unmapped). */
pmix_rank_t spx_srv_ns_rank_top(const struct spx_srv_ns *ns);
/* Name of node (malloc'd, caller frees), NULL when unmapped or past the end. */
char *spx_srv_ns_node_name(const struct spx_srv_ns *ns, uint32_t node);
/* Index of the node called name in ns's map. */
bool spx_srv_ns_node_by_name(const struct spx_srv_ns *ns, const char *name, uint32_t *node);
/* Whether a process block (in: its entries after PMIX_RANK) or a node
 * array of the host need not be stored: another node's, and all the maps
 * say. */
bool spx_srv_ns_block_derivable(const struct spx_srv_ns *ns, pmix_rank_t rank,
                                const pmix_info_t *in, size_t n);
bool spx_srv_ns_part_derivable(const struct spx_srv_ns *ns, const pmix_info_t *in, size_t n);
/* Job-level keys the maps give that are stored (PMIX_NUM_NODES). */
pmix_status_t spx_srv_ns_derive_keys(struct spx_srv_ns *ns);

/* ---- nodes.c: multi-node mode, over the net-ops seam (net.h) (everything is a no-op / false in single-node) ---- */
/* Channels of the network's send / bcast used by the server; nodes.c hands a
 * message to the engine whose ops list its channel. */
enum spx_srv_channel {
    SPX_SRV_CH_DMX_REQ = 1,  /* u32 id, proc target, str key ("" = any), u8 optional,
                              * u32 timeout */
    SPX_SRV_CH_DMX_REP = 2,  /* u32 id, i32 status, records (proto/records.h) */
    SPX_SRV_CH_EVENT = 3,    /* i32 status, proc source, u8 range, info[] */
    SPX_SRV_CH_PROC_LOST = 4, /* proc: a process died without PMIx_Finalize */
    SPX_SRV_CH_PUBSUB_REQ = 5, /* pubsub.c: a publish/lookup/unpublish for node 0 */
    SPX_SRV_CH_PUBSUB_REP = 6, /* pubsub.c: node 0's answer */
    SPX_SRV_CH_PUBSUB_GONE = 7, /* pubsub.c: a process that used the directory finalized */
    SPX_SRV_CH_GROUP = 8,      /* group_wire.c: invitation answers and outcomes */
    SPX_SRV_CH_IOF_PUSH = 9,   /* iof.c: a part of a push for this node's host */
    SPX_SRV_CH_IOF_ACK = 10,   /* iof.c: that host took it (or failed) */
    SPX_SRV_CH_IOF_SUB = 11,   /* iof_pull.c: a pull of another node's tool, added or removed */
    SPX_SRV_CH_IOF_OUT = 12,   /* iof_pull.c: output of this node for that pull */
    SPX_SRV_CH_QUERY_REQ = 13, /* query_gather.c: a query's part asked of a node */
    SPX_SRV_CH_QUERY_REP = 14  /* query_gather.c: that node's part */
};
/* A channel's bit in spx_srv_engine_ops.channels. */
#define SPX_SRV_CH_BIT(ch) (1u << (ch))
/* nodes.c: the other nodes, for the server ctx (every function works on the
 * ctx it is given).
 * Reads the SPMIX_TREE_* directives (caller's thread) into ctx->mn_cfg; PMIX_SUCCESS
 * also when there are none (single node), PMIX_ERR_BAD_PARAM when incomplete. */
pmix_status_t spx_srv_mn_parse(struct spx_srv_ctx *ctx, const pmix_info_t *info, size_t ninfo);
/* On the progress thread: creates and starts the network (0), or -1. No-op
 * without cfg. The network's upcalls receive ctx (borrowed; outlives it). */
int spx_srv_mn_start(struct spx_srv_ctx *ctx);
/* On the progress thread: prints the totals if SPMIX_STATS=1, destroys the tree (its
 * pending collectives complete with PMIX_ERR_UNREACH first), frees the state. */
void spx_srv_mn_stop(struct spx_srv_ctx *ctx);
/* Nodes hosting the participants of set (sorted, own node included): *out malloc'd.
 * skip_left: leave out the nodes that ended in order (every process there
 * finalized: a fence goes on without them). 0, or -1 when a participant's
 * node is unknown. */
int spx_srv_mn_set_nodes(struct spx_srv_ctx *ctx, const pmix_proc_t *set, size_t nset,
                         bool skip_left, uint32_t **out, size_t *n);
/* Whether set names a process on a node that is gone (lost or ended:
 * PMIX_ERR_UNREACH) or a process known to be lost (PMIX_ERR_PROC_ABORTED);
 * PMIX_SUCCESS when neither. skip_left: a node that ended in order, and its
 * processes, do not count (a fence goes on without them). */
pmix_status_t spx_srv_mn_set_gone(struct spx_srv_ctx *ctx, const pmix_proc_t *set, size_t nset,
                                  bool skip_left);
bool spx_srv_mn_node_is_lost(const struct spx_srv_ctx *ctx, uint32_t node);
/* Whether node ended in order (its processes all finalized); false when up or lost. */
bool spx_srv_mn_node_ended(const struct spx_srv_ctx *ctx, uint32_t node);
/* Records proc as lost; false when it already was (or no memory). */
bool spx_srv_mn_mark_lost(struct spx_srv_ctx *ctx, const pmix_proc_t *proc);
uint32_t spx_srv_mn_me(const struct spx_srv_ctx *ctx);
/* Nodes of the step (1 in single-node mode). */
uint32_t spx_srv_mn_nnodes(const struct spx_srv_ctx *ctx);
/* The fence engine's host_fence and local_failed in multi-node mode. */
pmix_status_t spx_srv_mn_fence(struct spx_srv_ctx *ctx, const char *set_key,
                               const pmix_proc_t *set, size_t nset, bool collect, double timeout,
                               const char *data, size_t ndata, void *token);
/* The same for a collective of another fence engine (a group's): its answer
 * goes to engine_of(ctx) when it comes, dropped if that is NULL then. */
struct spx_fence_engine;
pmix_status_t spx_srv_mn_coll_for(struct spx_srv_ctx *ctx,
                                  struct spx_fence_engine *(*engine_of)(struct spx_srv_ctx *),
                                  const char *set_key, const pmix_proc_t *set, size_t nset,
                                  bool collect, double timeout, const char *data, size_t ndata,
                                  void *token);
/* Starts this node's part of a collective over set's nodes under set_key with
 * data (borrowed for the call), net_flags (net.h's SPX_SRV_NET_F_*), no
 * timeout and no fence engine: done(status, data, len, arg) gets the result
 * once, later. 0, or -1 (done never runs). */
int spx_srv_mn_coll_plain(struct spx_srv_ctx *ctx, const char *set_key, const pmix_proc_t *set,
                          size_t nset, uint32_t net_flags, const char *data, size_t ndata,
                          void (*done)(pmix_status_t status, const void *data, size_t len,
                                       void *arg),
                          void *arg);
void spx_srv_mn_fence_failed(struct spx_srv_ctx *ctx, const pmix_proc_t *set, size_t nset,
                             const char *set_key, bool collect, pmix_status_t status,
                             double timeout);
/* Node is gone: the trackers of fence engine e (may be NULL) over a set with
 * a process there fail (PMIX_ERR_UNREACH). A node that ended in order
 * finished every collective it was in: one already with the network may be
 * complete there, and the network fails it if it still needed that node; so
 * then only the trackers still gathering here fail. */
void spx_srv_mn_fail_node_colls(struct spx_srv_ctx *ctx, struct spx_fence_engine *e,
                                uint32_t node, bool lost);
/* Answers the SPMIX_QUERY_* key into *out (uint64); false for other keys. */
bool spx_srv_mn_query(const struct spx_srv_ctx *ctx, const char *key, pmix_info_t *out);
bool spx_srv_mn_is_query_key(const char *key);

/* Sends / broadcasts on a channel; 0 or -1. */
int spx_srv_mn_send(struct spx_srv_ctx *ctx, uint32_t node, uint8_t channel, const spx_buf_t *b);
int spx_srv_mn_bcast(struct spx_srv_ctx *ctx, uint8_t channel, const spx_buf_t *b);

/* ---- cleanup.c ---- */
/* Records the cleanup directives of a JOBCTL; PMIX_SUCCESS, or NOT_SUPPORTED when
 * the directives hold anything else (the host must handle them). */
pmix_status_t spx_srv_cleanup_register(struct spx_srv_client *c, const pmix_info_t *info,
                                       size_t ninfo, bool only_if_all);
void spx_srv_cleanup_run(struct spx_srv_ns *ns);
void spx_srv_cleanup_free(struct spx_srv_ns *ns);

/* ---- upcalls.c: requests forwarded to the host (0, or -1 for a malformed payload) ---- */
int spx_srv_handle_upcall(struct spx_srv_peer *p, uint8_t type, uint32_t seq, spx_buf_t *b);
/* The message types spx_srv_handle_upcall takes, and those of them tools
 * may send. */
bool spx_srv_upcall_handles(uint8_t type);
bool spx_srv_upcall_for_tools(uint8_t type);

#endif
