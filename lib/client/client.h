/* client.h - state of the PMIx client side of this process, shared by the
 * files of lib/client/.
 *
 * Hot paths avoid thread hops: the key/value stores, the pending-request table
 * and the sending side of the socket are guarded by one mutex
 * (spx_client.lock), so PMIx_Put, a PMIx_Get answered locally, PMIx_Commit and
 * the sending of any request run on the caller's thread. Only the reading side
 * of the connection (replies, events), event handlers and completion callbacks
 * live on the progress thread. Lock order: never call out (user callbacks,
 * progress shifts that wait) while holding spx_client.lock.
 *
 * Requests to the server go through spx_client_request(): it numbers the
 * frame, remembers the reply handler under that number and writes the frame
 * (from whatever thread calls it) on the primary server's connection.
 * Replies are matched by number and connection on the progress thread;
 * unprompted EVENT and IOF_DATA frames of any connection go to the event and
 * output code. An application client has one server; a tool may hold
 * several (struct spx_server, client_conn.c), one of them the primary. When
 * a connection is lost every request pending on it completes with
 * PMIX_ERR_UNREACH; the others carry on.
 */
#ifndef SPX_CLIENT_CLIENT_H
#define SPX_CLIENT_CLIENT_H

#include <pthread.h>
#include <sys/types.h>
#include <stdbool.h>
#include <sys/queue.h>
#include <pmix.h>

#include "codec/buf.h"
#include "net/conn.h"
#include "proto/shm_barrier.h"
#include "store/store.h"

/* Reply handler: status is PMIX_SUCCESS with payload positioned after nothing
 * (handler pulls the status itself), or PMIX_ERR_UNREACH with payload NULL when
 * the connection went away. Runs on the progress thread. */
typedef void (*spx_reply_f)(pmix_status_t status, spx_buf_t *payload, void *arg);

struct spx_pending {
    TAILQ_ENTRY(spx_pending) link; /* in spx_client.pending */
    uint32_t seq;
    uint32_t server;          /* id of the server it was sent to */
    spx_reply_f fn;
    void *arg;
};

/* One server connection (client_conn.c). In spx_client.servers from its
 * HELLO to its loss or closing; created, changed and freed on the progress
 * thread with spx_client.lock held, so any thread may read one under the
 * lock. */
struct spx_server {
    uint32_t id;              /* 1, 2, ...: never reused in this process */
    pmix_proc_t proc;         /* a tool's server (its HELLO reply); empty for a client */
    char *path;               /* owned: the address it was reached at */
    dev_t dev;                /* the socket file's identity (have_ino: a local socket) */
    ino_t ino;
    bool have_ino;
    int send_fd;              /* our dup of the socket for writing */
    spx_conn_t *conn;         /* reading side (progress thread) */
    bool quiet;               /* closed on purpose: no lost-connection event (progress thread) */
};

/* How many servers a tool may hold at once. */
#define SPX_CLIENT_MAX_SERVERS 16

struct spx_evhdlr; /* client_event.c */

struct spx_client {
    pthread_mutex_t init_lock;
    int init_count;           /* guarded by init_lock; read atomically elsewhere */
    bool singleton;
    bool tool;                /* started by PMIx_tool_init (client_tool.c) */
    pmix_proc_t myproc;
    uint32_t job_size;

    /* guarded by lock */
    pthread_mutex_t lock;
    struct spx_server *primary; /* where requests go: one of servers, or NULL */
    struct spx_server *servers[SPX_CLIENT_MAX_SERVERS]; /* owned; oldest first */
    size_t nservers;
    uint32_t next_server_id;
    uint32_t next_seq;
    TAILQ_HEAD(, spx_pending) pending; /* owned; newest first */
    spx_store_t *own;         /* this process's puts (all scopes) */
    uint64_t committed_seq;   /* own-store sequence already sent to the server */
    spx_store_t *jobinfo;     /* registered job/node/proc info (rank WILDCARD = job level) */
    spx_store_t *internal;    /* PMIx_Store_internal data */
    spx_store_t *cache;       /* values fetched from the server; dropped after each fence */
    /* shared-memory fence (proto/shm_barrier.h): set by PMIx_Init, cleared by
     * PMIx_Finalize; NULL when the server offers none */
    spx_shmb_t *shmb;
    uint32_t shmb_slot;       /* this process's slot */
    long shmb_spin_ns;        /* how long a waiter spins before sleeping */
    pthread_mutex_t shmb_lock; /* one direct arrival of this process at a time */
    pmix_rank_t *shmb_ranks;  /* local ranks, ascending: slot i is shmb_ranks[i] (owned) */
    uint64_t *cache_epoch;    /* [slot]: that peer's applied commits when its cached
                               * values were current (guarded by lock; owned) */
    /* progress-thread state */
    struct spx_server *rx;    /* the server whose frame is being handled, or NULL */
    volatile bool conn_lost;  /* no primary left after a loss (direct fence waiters) */
    TAILQ_HEAD(, spx_evhdlr) handlers; /* owned; in chain order (client_event.c) */
    size_t next_handler_id;
};

/* ---- client_state.c: the state every client file reads, at the bottom ---- */
extern struct spx_client spx_client;

/* True when PMIx_Init has been called more times than PMIx_Finalize. */
bool spx_client_initialized(void);

/* What a server sends unasked (a message that is not a reply) goes to the
 * handler set for its type: the files that handle them set them at init
 * (client_init.c), so the connection code names none of them. Progress
 * thread; payload borrowed. */
typedef void (*spx_client_frame_f)(spx_buf_t *payload);
void spx_client_frames_set(uint8_t type, spx_client_frame_f fn);
spx_client_frame_f spx_client_frame_handler(uint8_t type);
/* Told when a server's connection ends other than on purpose (affected: the
 * server's process for a tool, NULL for a client's one server): set at init
 * to the event code's delivery of PMIX_ERR_LOST_CONNECTION. */
typedef void (*spx_client_lost_f)(const pmix_proc_t *affected);
void spx_client_on_lost_set(spx_client_lost_f fn);
void spx_client_lost(const pmix_proc_t *affected);
/* Told when the chain of handlers of an event ended (or will not decide
 * anything: see client_event.c), with what it decided: set at init to the
 * group code's spx_client_group_event_done, so the event code never calls
 * the group code. Borrowed arguments, progress thread. */
typedef void (*spx_client_chain_end_f)(pmix_status_t status, const pmix_proc_t *source,
                                       const pmix_info_t *info, size_t ninfo, bool abort,
                                       bool lead);
void spx_client_on_chain_end_set(spx_client_chain_end_f fn);
void spx_client_chain_ended(pmix_status_t status, const pmix_proc_t *source,
                            const pmix_info_t *info, size_t ninfo, bool abort, bool lead);

/* ---- client_conn.c: server connections, requests and replies ----
 * Any thread, without spx_client.lock held. payload: bytes taken. fn may be NULL
 * (no reply expected); fn runs later on the progress thread, exactly once, iff
 * PMIX_SUCCESS is returned. To the primary server (PMIX_ERR_UNREACH: none). */
pmix_status_t spx_client_request(uint8_t type, spx_buf_t *payload, spx_reply_f fn, void *arg);
/* The same to the server with that id (PMIX_ERR_UNREACH: not connected). */
pmix_status_t spx_client_request_to(uint32_t server, uint8_t type, spx_buf_t *payload,
                                    spx_reply_f fn, void *arg);
/* The primary server's id, 0 when none is connected. Any thread. */
uint32_t spx_client_primary_id(void);
/* Progress thread, in a reply or frame handler: the id of the server whose
 * frame is being handled (0 outside one), and closing its connection over
 * a malformed message (reason: borrowed, logged). */
uint32_t spx_client_rx_server(void);
void spx_client_conn_fail(const char *reason);
/* A connected, handshaken socket (fd: taken, closed on failure) becomes a
 * server of this process: proc its id (NULL: none known), path its address
 * (copied; NULL for none). The first one, or with make_primary, becomes
 * the primary. *id gets its id. Not on the progress thread.
 * PMIX_ERR_OUT_OF_RESOURCE past SPX_CLIENT_MAX_SERVERS. */
pmix_status_t spx_client_server_add(int fd, const pmix_proc_t *proc, const char *path,
                                    bool make_primary, uint32_t *id);
/* Tells server id we leave (FINALIZE, waiting for its answer), then closes
 * its connection without a lost-connection event; its pending requests
 * answer PMIX_ERR_UNREACH. If it was the primary, the oldest other server
 * becomes the primary. Returns FINALIZE's status. Not on the progress
 * thread. */
pmix_status_t spx_client_server_close(uint32_t id);
/* Closes every connection at once (progress thread; teardown). */
void spx_client_servers_close_all(void);
/* Lookups for the tool API (any thread): the id of the connected server
 * with that proc id, or whose address is path (the same socket file
 * however named, or the same URI); 0 when none. *proc (may be NULL) gets
 * its proc id. */
uint32_t spx_client_server_by_proc(const pmix_proc_t *proc);
uint32_t spx_client_server_by_path(const char *path, pmix_proc_t *proc);
/* Makes server id the primary (PMIX_ERR_UNREACH: not connected). */
pmix_status_t spx_client_server_set_primary(uint32_t id);
/* The connected servers' proc ids, primary first (*out malloc'd, NULL when
 * none; PMIX_ERR_NOMEM). */
pmix_status_t spx_client_servers_list(pmix_proc_t **out, size_t *n);

/* Called by the connection code for EVENT frames (client_event.c). */
void spx_client_event_dispatch(spx_buf_t *payload);
/* Local delivery of an event to this process's handlers (progress thread):
 * spx_event_local_run (client/event_local.h) with no flags. Copies inputs. */
void spx_client_event_deliver(pmix_status_t status, const pmix_proc_t *source,
                              const pmix_info_t *info, size_t ninfo);
/* Frees every registered handler and every kept event (finalize). */
void spx_client_event_clear(void);

/* ---- client_evcache.c: events kept for handlers registered later ----
 * Progress thread only. */
struct spx_evkept {
    TAILQ_ENTRY(spx_evkept) link;
    pmix_status_t status;
    pmix_proc_t source;
    pmix_info_t *info; /* owned */
    size_t ninfo;
    bool nondefault;   /* PMIX_EVENT_NON_DEFAULT was true */
    double when;       /* CLOCK_MONOTONIC seconds when kept */
};
/* Keeps a copy, unless PMIX_EVENT_DO_NOT_CACHE is true in info. */
void spx_evcache_keep(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t *info,
                      size_t ninfo);
typedef bool (*spx_evcache_want_f)(const struct spx_evkept *e, void *arg);
/* The oldest kept event want() accepts, taken out of the cache (the caller
 * owns it: spx_evcache_free), or NULL. */
struct spx_evkept *spx_evcache_take(spx_evcache_want_f want, void *arg);
void spx_evcache_free(struct spx_evkept *e);
void spx_evcache_clear(void);

/* Slot of a local process in the shared-memory segment, or -1
 * (client_state.c: the segment's rank table is state). */
long spx_client_local_slot(pmix_rank_t rank);

/* Drops cached remote values (after a collecting fence, or on finalize). */
void spx_client_cache_reset(void);

/* client_fence.c: maps the server's shared-memory fence segment named in the
 * job info, if any (after the HELLO); unmaps it (finalize, no fence running). */
void spx_client_shmb_attach(void);
void spx_client_shmb_detach(void);
/* client_group_shm.c: the shared-memory construct (after spx_client_shmb_attach). */
void spx_client_gshm_attach(void);
void spx_client_gshm_detach(void);
/* A blocking construct of grp over procs (expanded; borrowed) through shared
 * memory; SPX_GSHM_RETRY (proto/group_shm.h) when it does not apply or the
 * server sends it to the socket: then nothing was started. On success
 * *outcome (malloc'd, the caller's: spx_client_group_take_outcome) holds the
 * encoded outcome. */
pmix_status_t spx_client_group_construct_shm(const char *grp, const pmix_proc_t *procs,
                                             size_t nprocs, const pmix_info_t *info,
                                             size_t ninfo, uint8_t **outcome, size_t *noutcome);
/* ---- client_group_table.c: the groups this process is in ----
 * Called with spx_client.lock held: puts the endpoint data a live group's
 * construct brought for (nspace, rank) into the cache if it is still
 * waiting (true when it did); drops all that waits (the cache is being
 * reset). */
bool spx_client_group_apply_pending(const char *nspace, pmix_rank_t rank);
void spx_client_group_drop_pending(void);
/* Keeps a construct's outcome (bytes: malloc'd, taken) as the socket path
 * does and makes the caller's results (may be NULL). */
pmix_status_t spx_client_group_take_outcome(uint8_t *bytes, size_t n, pmix_info_t **results,
                                            size_t *nresults);
/* The group id was destructed or left: no longer live (its members' info
 * stays readable by context id). Any thread, without the lock held. */
void spx_client_group_ended(const char *id);
/* A group id used as a namespace: procs with a live group's id become its
 * members ((id, r) the r-th member, (id, WILDCARD) all). *out malloc'd (NULL
 * when no entry names a group: use procs as they are). PMIX_ERR_BAD_PARAM for
 * a rank past the last member. Any thread, without the lock held. */
pmix_status_t spx_client_group_expand(const pmix_proc_t *procs, size_t n, pmix_proc_t **out,
                                      size_t *nout);
/* The same for one proc, in place (WILDCARD stays as it is). */
pmix_status_t spx_client_group_map(pmix_proc_t *p);
/* Does info qualify a Get with PMIX_GROUP_CONTEXT_ID? Sets *cid. */
bool spx_client_group_qualifier(const pmix_info_t *info, size_t ninfo, uint64_t *cid);
/* Group info key of member p in the group with context id cid, or NULL.
 * Called with spx_client.lock held; borrowed until it is released. */
const pmix_value_t *spx_client_group_lookup(uint64_t cid, const pmix_proc_t *p, const char *key);
/* Forgets every group (finalize). */
void spx_client_groups_clear(void);

/* ---- client_group.c: the group requests ----
 * Sends the GROUP request op (SPX_GRP_OP_*; all borrowed) for group grp: its
 * reply goes to info_cb (a construct, invite or join: the results) or op_cb
 * (a destruct or leave), either of which may be NULL. PMIX_SUCCESS, or why
 * nothing was sent. Any thread. */
pmix_status_t spx_client_group_send(uint8_t op, const char grp[], const pmix_proc_t procs[],
                                    size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                    pmix_info_cbfunc_t info_cb, pmix_op_cbfunc_t op_cb,
                                    void *cbdata);
/* The same, blocking (name: the API call, for the progress-thread guard),
 * with the results (*results malloc'd, the caller's; both may be NULL) or
 * without. A construct of whole namespaces goes through shared memory when
 * the server offers it. */
pmix_status_t spx_client_group_wait_results(const char *name, uint8_t op, const char grp[],
                                            const pmix_proc_t procs[], size_t nprocs,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_info_t **results, size_t *nresults);
pmix_status_t spx_client_group_wait(const char *name, uint8_t op, const char grp[],
                                    const pmix_info_t info[], size_t ninfo);
/* The handler chain of an event ended (progress thread); abort: a handler
 * returned PMIX_GROUP_CONSTRUCT_ABORT; lead: one put PMIX_GROUP_LEADER in its
 * results. For PMIX_GROUP_INVITE_ACCEPTED / _DECLINED (this process leads the
 * invitation) the server learns that the answer was seen, or that the leader
 * aborts; for PMIX_GROUP_LEADER_FAILED (source: the failed leader) with
 * abort, the participants hear PMIX_GROUP_CONSTRUCT_ABORT; otherwise the
 * server learns whether this process steps up as the new leader. */
void spx_client_group_event_done(pmix_status_t status, const pmix_proc_t *source,
                                 const pmix_info_t *info, size_t ninfo, bool abort, bool lead);

/* How PMIx_tool_init starts (client_tool.c -> client_init.c): the socket of
 * the server to connect to (NULL: no server, PMIX_TOOL_DO_NOT_CONNECT), and
 * the identity asked for (nspace "" lets the server choose). */
struct spx_tool_start {
    const char *path;         /* borrowed */
    pmix_proc_t ask;
};
/* PMIx_Init's and PMIx_tool_init's common part: the first one starts the
 * library (as a tool when tool is not NULL), later ones count; *proc gets
 * this process's identity. */
pmix_status_t spx_client_init(const struct spx_tool_start *tool, pmix_proc_t *proc);

/* A tool's further connections after PMIx_tool_init (client_init.c, for
 * client_tool.c's attach; caller holds init_lock, not on the progress
 * thread): connects to the server at path (borrowed) asking for
 * spx_client.myproc as identity (the first server's reply sets myproc),
 * adds it (spx_client_server_add); *id and *server get its ids. */
pmix_status_t spx_client_tool_connect(const char *path, bool make_primary, uint32_t *id,
                                      pmix_proc_t *server);

/* Stops forwarding this process's stdin (PMIX_IOF_PUSH_STDIN) when it
 * feeds server (0: whichever), waiting for its thread, which sends EOF to
 * its targets when send_eof; nothing when none runs. Not on the progress
 * thread (client_iof.c; PMIx_Finalize calls it with send_eof: a tool that
 * leaves ends the stream it fed; PMIx_tool_disconnect for its server). */
void spx_client_iof_stop(bool send_eof, uint32_t server);

/* client_iof_pull.c: an IOF_DATA frame from the server (progress thread;
 * payload lent): the output goes to the PMIx_IOF_pull registration it names. */
void spx_client_iof_data(spx_buf_t *payload);
/* The event code's end of a lost connection (spx_client_on_lost_set). */
void spx_client_event_conn_lost(const pmix_proc_t *affected);
/* Forgets every PMIx_IOF_pull registration (finalize, progress thread). */
void spx_client_iof_pull_clear(void);

/* Fills job info for singleton mode (client_init.c). */
void spx_client_singleton_jobinfo(void);

/* Blocking helper: run fn(arg) on the progress thread and wait for it to call
 * spx_wait_signal on the wait object it was handed. */
struct spx_wait;

#endif
