/* group_int.h - what the files of the group engine share. Not for other
 * files: they use engine_group.h. From the bottom up:
 *   group_records.c  the groups this node knows, context ids, and what the
 *                    other files build on (sets of processes, MEMBER items,
 *                    outcomes, replies, events);
 *   group_wire.c     the group channel between the nodes: its messages'
 *                    encoding, sending (this node's own handled at once),
 *                    and handing what comes to its handler;
 *   group_host.c     a construct or destruct handed to the host's `group`
 *                    upcall;
 *   group_coll.c     the construct and destruct collectives;
 *   group_shm.c      the shared-memory construct of whole namespaces;
 *   group_watch.c    invitees on other nodes than their leader;
 *   group_join.c     the joiner's side of an invitation, invitees too late;
 *   group_vote.c     choosing a new leader after one failed (node 0);
 *   group_invite.c   the invitation on its leader's node;
 *   group.c          the engine: its ops and the GROUP requests.
 * Calls between them run from a file to the files before it in this list;
 * what must go the other way - a message of the group channel to its handler
 * (also one this node sends itself), a collective's answer to the
 * shared-memory construct - goes through struct spx_srv_grp_upcalls, which
 * group.c fills.
 * Everything runs on the progress thread.
 */
#ifndef SPX_SERVER_GROUP_INT_H
#define SPX_SERVER_GROUP_INT_H

#include <string.h>
#include <sys/queue.h>

#include "server/core.h"
#include "server/fence.h"

/* A group this node knows (constructed, not yet destructed). */
struct grp_record {
    LIST_ENTRY(grp_record) link;    /* in spx_srv_grp.groups */
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t *members;           /* sorted (owned) */
    size_t nmembers;
    bool have_cid;
    uint64_t cid;
    bool notify_term;               /* PMIX_GROUP_NOTIFY_TERMINATION: members hear of a death */
    uint8_t *outcome;               /* the construct's outcome bytes (owned) */
    size_t noutcome;
};

/* A local member's GROUP request inside a construct or destruct collective. */
struct grp_arrival {
    LIST_ENTRY(grp_arrival) link;   /* in spx_srv_grp.arrivals */
    struct spx_srv_peer *peer;      /* referenced */
    uint32_t seq;
    uint8_t op;                     /* enum spx_grp_op */
    char id[PMIX_MAX_NSLEN + 1];
    char tag[PMIX_MAX_NSLEN + 3];   /* "C:<id>" or "D:<id>" */
    pmix_proc_t proc;
    unsigned flags;                 /* SPX_GRP_F_* it asked for */
    pmix_info_t *ginfo;             /* its PMIX_GROUP_INFO entries (owned) */
    size_t nginfo;
    struct spx_srv_gshm_batch *batch; /* answered there (shared-memory construct), or NULL:
                                     * answered on peer (borrowed: lives until its last answer) */
    bool socket_whole;              /* counted in its namespace's spx_srv_gshm socket_pending */
};

/* What an invitee answered (the ANSWER message's u8). */
enum spx_grp_answer {
    SPX_GRP_ANSWER_DECLINE = 0,
    SPX_GRP_ANSWER_ACCEPT = 1,
    SPX_GRP_ANSWER_GONE = 2,        /* it finalized or died without answering */
};

struct grp_invite;                  /* group_invite.c */
struct grp_answer;                  /* group_invite.c */
struct grp_watch;                   /* group_watch.c */
struct grp_join;                    /* group_join.c */
struct grp_late;                    /* group_join.c */
struct grp_select;                  /* group_vote.c */

/* Same process? Order of processes (namespace, then rank)? */
static inline bool grp_proc_eq(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return a->rank == b->rank && strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN) == 0;
}

static inline int grp_proc_cmp(const void *x, const void *y)
{
    const pmix_proc_t *a = x, *b = y;
    int c = strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
    return c ? c : (a->rank > b->rank) - (a->rank < b->rank);
}

struct spx_srv_gshm;
struct spx_srv_gshm_batch;

/* The calls that go from a lower file of the engine up to a higher one
 * (the list above), through pointers so that calls between the files run
 * one way: group.c fills them (static, the same for every server). */
struct spx_srv_grp_upcalls {
    /* group_wire.c -> the handlers of the group channel's messages (after
     * the kind byte; remote: from another node, else this node's own): the
     * declarations below, under each file */
    void (*answer_recv)(struct spx_srv_grp *g, spx_buf_t *b);            /* group_invite.c */
    void (*done_recv)(struct spx_srv_grp *g, spx_buf_t *b, bool remote); /* group_join.c */
    void (*vote_recv)(struct spx_srv_grp *g, spx_buf_t *b);              /* group_vote.c */
    void (*watch_recv)(struct spx_srv_grp *g, spx_buf_t *b);             /* group_watch.c */
    /* group_coll.c -> group_shm.c (which enters its arrivals through
     * spx_srv_grp_arrive): the declarations below, under group_shm.c */
    bool (*gshm_socket_start)(struct spx_srv_grp *g, const pmix_proc_t *proc,
                              const pmix_proc_t *set, size_t nset);
    void (*gshm_socket_done)(struct spx_srv_grp *g, const char *nspace, unsigned n);
    void (*gshm_answer)(struct spx_srv_grp *g, struct spx_srv_gshm_batch *batch,
                        pmix_status_t status, const void *outcome, size_t noutcome);
};

struct spx_srv_grp {
    struct spx_srv_ctx *ctx;        /* borrowed */
    const struct spx_srv_grp_upcalls *up; /* group.c's (static) */
    spx_fence_engine_t *coll;       /* construct/destruct collectives (owned) */
    LIST_HEAD(, grp_record) groups;
    LIST_HEAD(, grp_arrival) arrivals;
    LIST_HEAD(, grp_invite) invites;  /* invitations led from this node (group_invite.c) */
    LIST_HEAD(, grp_join) joins;      /* local joins waiting for their outcome (group_join.c) */
    LIST_HEAD(, grp_answer) answers;  /* answers that came before their invitation
                                       * (group_invite.c) */
    LIST_HEAD(, grp_watch) watches;   /* local invitees of remote leaders (group_watch.c) */
    size_t nwatches;
    TAILQ_HEAD(, grp_late) late;      /* invitees whose invitation ended without them
                                       * (group_join.c) */
    size_t nlate;
    TAILQ_HEAD(, grp_select) selects; /* node 0: leader selections after a failure
                                       * (group_vote.c) */
    size_t nselects;
    LIST_HEAD(, spx_srv_gshm) shms;   /* shared-memory constructs by namespace (group_shm.c) */
    uint64_t next_slot;             /* context ids: see spx_srv_grp_cid_take */
};

/* ---- group_records.c ---- */
/* A new context id of this node, never handed out before; 0 when none is left. */
uint64_t spx_srv_grp_cid_take(struct spx_srv_grp *g);
struct grp_record *spx_srv_grp_find(struct spx_srv_grp *g, const char *id);
bool spx_srv_grp_has(const struct grp_record *r, const pmix_proc_t *p);
/* Unlinks and frees r; all of them (server stop). */
void spx_srv_grp_record_free(struct grp_record *r);
void spx_srv_grp_records_free(struct spx_srv_grp *g);
/* Applies an outcome (proto/group.h; data borrowed): the endpoint data of the
 * members of other nodes goes into ctx->store, and the group is recorded
 * (replacing one of that name) when keep or one of its members is local.
 * *out (may be NULL) gets the record, or NULL when none was kept. */
pmix_status_t spx_srv_grp_apply_outcome(struct spx_srv_grp *g, const void *data, size_t ndata,
                                        bool keep, struct grp_record **out);
/* Appends proc's MEMBER item (its group info and its REMOTE/GLOBAL data). */
void spx_srv_grp_push_member(struct spx_srv_grp *g, spx_buf_t *out, const char *id,
                             const pmix_proc_t *proc, unsigned flags, const pmix_info_t *ginfo,
                             size_t nginfo);
/* The SPX_GRP_F_* flags a request's directives ask for. */
unsigned spx_srv_grp_flags(const pmix_info_t *info, size_t ninfo);
/* The PMIX_GROUP_INFO entries of info (each a data array of infos, or one
 * info) copied into *out (malloc'd, spx_info_array_free) and *nout. */
pmix_status_t spx_srv_grp_take_info(const pmix_info_t *info, size_t n, pmix_info_t **out,
                                    size_t *nout);
/* Replies to a GROUP request: status, and the outcome bytes when given. */
void spx_srv_grp_reply(struct spx_srv_peer *p, uint32_t seq, pmix_status_t status,
                       const void *outcome, size_t noutcome);
/* Raises an event from source to the processes targets (RANGE_CUSTOM), here
 * and on the other nodes, with PMIX_GROUP_ID = id and the extra infos. */
void spx_srv_grp_event(struct spx_srv_ctx *ctx, pmix_status_t status, const pmix_proc_t *source,
                       const pmix_proc_t *targets, size_t ntargets, const char *id,
                       const pmix_info_t *extra, size_t nextra);
/* proc went away (finalized: it called PMIx_Finalize first): the members of
 * its groups with PMIX_GROUP_NOTIFY_TERMINATION here hear of a death, and a
 * group left without a live member here is forgotten. */
void spx_srv_grp_records_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc,
                                   bool finalized);
/* PMIx_Group_leave of p: the other members hear PMIX_GROUP_LEFT. */
pmix_status_t spx_srv_grp_leave(struct spx_srv_grp *g, struct spx_srv_peer *p, const char *id);
/* procs as sorted unique processes without leader (WILDCARD entries
 * expanded by the namespace's PMIX_JOB_SIZE) into *out (malloc'd, may be
 * NULL with *nout = 0); PMIX_ERR_BAD_PARAM when a namespace is unknown. */
pmix_status_t spx_srv_grp_expand_procs(struct spx_srv_ctx *ctx, const pmix_proc_t *leader,
                                       const pmix_proc_t *procs, size_t nprocs,
                                       pmix_proc_t **out, size_t *nout);
/* The lowest process of procs (WILDCARD entries expanded by the namespace's
 * size) into *low; PMIX_ERR_BAD_PARAM when a namespace is unknown. */
pmix_status_t spx_srv_grp_lowest(struct spx_srv_ctx *ctx, const pmix_proc_t *procs, size_t n,
                                 pmix_proc_t *low);

/* ---- group_wire.c: the group channel ---- */
/* Node of proc, UINT32_MAX when unknown; 0 (this node) in single-node mode. */
uint32_t spx_srv_grp_node_of(struct spx_srv_ctx *ctx, const pmix_proc_t *proc);
/* Sends the message b (borrowed) to node; this node's own is handled at once
 * (as if it came, not remote). 0 or -1. */
int spx_srv_grp_send(struct spx_srv_grp *g, uint32_t node, spx_buf_t *b);
/* A message on the group channel from node `from`: to its handler. */
void spx_srv_grp_recv(struct spx_srv_grp *g, uint32_t from, spx_buf_t *b);
/* The messages, each pulled after its kind byte by the handler: 0, or -1
 * when malformed (then nothing of it is owned). */
struct grp_msg_answer {
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader, joiner;
    uint8_t answer;                 /* enum spx_grp_answer */
    uint8_t *item;                  /* the joiner's MEMBER item for an accept (owned), or NULL */
    size_t nitem;
};
struct grp_msg_done {
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t leader;
    pmix_proc_t target;             /* nspace "": every joiner */
    pmix_status_t status;
    uint8_t *outcome;               /* owned; NULL unless PMIX_SUCCESS */
    size_t noutcome;
    pmix_proc_t *unanswered;        /* the invitees that had not answered (owned) */
    size_t nunanswered;
};
struct grp_msg_vote {
    char id[PMIX_MAX_NSLEN + 1];
    pmix_proc_t old;                /* the failed leader */
    pmix_proc_t voter;
    uint8_t lead;                   /* it steps up */
    pmix_proc_t *parts;             /* the participants (owned) */
    size_t nparts;
};
/* Appends an ANSWER message (item: the joiner's MEMBER item, borrowed, for an accept). */
void spx_srv_grp_push_answer(spx_buf_t *b, const char *id, const pmix_proc_t *leader,
                             const pmix_proc_t *joiner, uint8_t answer, const void *item,
                             size_t nitem);
int spx_srv_grp_pull_answer(spx_buf_t *b, struct grp_msg_answer *m);
/* Appends a DONE message (target NULL: every joiner; all borrowed). */
void spx_srv_grp_push_done(spx_buf_t *b, const char *id, const pmix_proc_t *leader,
                           const pmix_proc_t *target, pmix_status_t status,
                           const void *outcome, size_t n, const pmix_proc_t *unanswered,
                           size_t nun);
int spx_srv_grp_pull_done(spx_buf_t *b, struct grp_msg_done *m);
/* Appends a VOTE message (all borrowed). */
void spx_srv_grp_push_vote(spx_buf_t *b, const char *id, const pmix_proc_t *old,
                           const pmix_proc_t *voter, bool lead, const pmix_proc_t *parts,
                           size_t nparts);
int spx_srv_grp_pull_vote(spx_buf_t *b, struct grp_msg_vote *m);

/* ---- group_host.c ---- */
/* Hands a construct (this node's items in data, borrowed) or a destruct to
 * the host's `group` upcall; its answer completes token through the engine.
 * PMIX_SUCCESS (answer later), or the host's refusal: PMIX_OPERATION_SUCCEEDED
 * or PMIX_ERR_NOT_SUPPORTED (the engine then goes on without the host), or
 * an error that fails the collective. */
pmix_status_t spx_srv_grp_host_start(struct spx_srv_grp *g, bool construct, const char *id,
                                     const pmix_proc_t *set, size_t nset, const void *data,
                                     size_t ndata, double timeout, void *token);

/* ---- group_coll.c: the construct and destruct collectives ---- */
/* Creates g->coll (PMIX_ERR_NOMEM), destroys it (every arrival answered). */
pmix_status_t spx_srv_grp_coll_create(struct spx_srv_grp *g);
void spx_srv_grp_coll_destroy(struct spx_srv_grp *g);
/* Enters proc into the construct or destruct (op: SPX_GRP_OP_*) of id over
 * set (info: its directives, all borrowed); answered on p/seq, or on batch
 * (a shared-memory construct) when p is NULL. PMIX_SUCCESS, or the status to
 * answer at once (nothing was entered). */
pmix_status_t spx_srv_grp_arrival_start(struct spx_srv_grp *g, const pmix_proc_t *proc,
                                        struct spx_srv_peer *p, uint32_t seq,
                                        struct spx_srv_gshm_batch *batch, uint8_t op,
                                        const char *id, const pmix_proc_t *set, size_t nset,
                                        const pmix_info_t *info, size_t ninfo);
/* Can proc (a local member of nspace) start a construct of id now? The
 * status the socket path would answer at once, or PMIX_SUCCESS. */
pmix_status_t spx_srv_grp_arrive_check(struct spx_srv_grp *g, const char *nspace,
                                       pmix_rank_t rank, const char *id);
/* spx_srv_grp_arrival_start of a construct (group_shm.c's entry). */
pmix_status_t spx_srv_grp_arrive(struct spx_srv_grp *g, const pmix_proc_t *proc,
                                 struct spx_srv_peer *p, uint32_t seq,
                                 struct spx_srv_gshm_batch *batch, const char *id,
                                 const pmix_proc_t *set, size_t nset, const pmix_info_t *info,
                                 size_t ninfo);
/* proc went away: the collectives that name it fail (finalized: those
 * still waiting for it). */
void spx_srv_grp_coll_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc, bool finalized);

/* ---- group_shm.c: the shared-memory construct of whole namespaces ---- */
void spx_srv_gshm_free_all(struct spx_srv_grp *g);
void spx_srv_gshm_nspace_gone(struct spx_srv_grp *g, const char *nspace);
/* A process went away: a local one sends every later construct of its
 * namespace through the socket. */
void spx_srv_gshm_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc);
/* A node was lost: gathers not yet with the engine go through the socket. */
void spx_srv_gshm_node_lost(struct spx_srv_grp *g);
/* A construct of proc over set came through the socket: true when it covers
 * proc's namespace (the shared-memory construct waits until
 * spx_srv_gshm_socket_done for that namespace). */
bool spx_srv_gshm_socket_start(struct spx_srv_grp *g, const pmix_proc_t *proc,
                               const pmix_proc_t *set, size_t nset);
/* n of them were answered. */
void spx_srv_gshm_socket_done(struct spx_srv_grp *g, const char *nspace, unsigned n);
/* The engine answered one arrival of batch (outcome: the group's outcome
 * bytes on success, borrowed). */
void spx_srv_gshm_answer(struct spx_srv_grp *g, struct spx_srv_gshm_batch *batch,
                         pmix_status_t status, const void *outcome, size_t noutcome);

/* ---- group_watch.c: invitees on other nodes than their leader ---- */
/* The leader's node tells each other node hosting invitees of invitation
 * (id, leader) which of them it must watch (invitees: borrowed). */
void spx_srv_grp_watch_send(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                            const pmix_proc_t *invitees, size_t n);
/* A WATCH message (after its kind byte). */
void spx_srv_grp_watch_recv(struct spx_srv_grp *g, spx_buf_t *b);
/* joiner answered (id, leader) itself, or (joiner NULL) the invitation ended. */
void spx_srv_grp_watch_drop(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                            const pmix_proc_t *joiner);
/* proc went away: a watched invitee's leader hears SPX_GRP_ANSWER_GONE. */
void spx_srv_grp_watch_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc);
void spx_srv_grp_watch_node_gone(struct spx_srv_grp *g, uint32_t node);
/* Forgets the watches of nspace (NULL: all of them). */
void spx_srv_grp_watch_nspace_gone(struct spx_srv_grp *g, const char *nspace);

/* ---- group_join.c: the joiner's side, invitees too late ---- */
/* JOIN_ACCEPT / JOIN_DECLINE request of p (leader NULL: none named):
 * PMIX_SUCCESS (answered later, or already), or a status to reply at once. */
pmix_status_t spx_srv_grp_join_start(struct spx_srv_grp *g, struct spx_srv_peer *p, uint32_t seq,
                                     const char *id, bool accept, const pmix_proc_t *leader,
                                     const pmix_info_t *info, size_t ninfo);
/* Answers the local joins of (id, leader) - only target's when given -
 * with status and, on success, the outcome (borrowed). */
void spx_srv_grp_joins_finish(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                              const pmix_proc_t *target, pmix_status_t status,
                              const void *outcome, size_t n);
/* Ends joiner's join of (id, leader) on its node with status (a DONE to it). */
void spx_srv_grp_tell_joiner(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                             const pmix_proc_t *joiner, pmix_status_t status);
/* Uses up the record of a late invitee for (id, leader): its status, or
 * PMIX_SUCCESS when none. */
pmix_status_t spx_srv_grp_late_take(struct spx_srv_grp *g, const char *id,
                                    const pmix_proc_t *leader, const pmix_proc_t *invitee);
/* Remembers the unanswered invitees (all on the leader's node, this node's
 * elsewhere) whose join was not waiting here already (answered just now). */
void spx_srv_grp_late_remember(struct spx_srv_grp *g, const char *id, const pmix_proc_t *leader,
                               pmix_status_t status, const pmix_proc_t *unanswered, size_t nun,
                               bool leader_node);
/* A DONE message (after its kind byte): remote ones are applied here. */
void spx_srv_grp_done_recv(struct spx_srv_grp *g, spx_buf_t *b, bool remote);
/* The leader of local joins went away (a process, a node): they end with
 * PMIX_GROUP_LEADER_FAILED. */
void spx_srv_grp_joins_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc);
void spx_srv_grp_joins_node_gone(struct spx_srv_grp *g, uint32_t node);
/* Forgets the late invitees kept for invitations of nspace (led by, or
 * inviting, one of its processes): the host deregistered it. */
void spx_srv_grp_joins_nspace_gone(struct spx_srv_grp *g, const char *nspace);
/* Answers and frees the joins, forgets the late invitees (server stop). */
void spx_srv_grp_joins_free(struct spx_srv_grp *g);

/* ---- group_vote.c: choosing a new leader ---- */
/* LEAD / NO_LEAD of voter (procs: the failed leader, then the participants):
 * sent to node 0, which decides. */
void spx_srv_grp_vote(struct spx_srv_grp *g, const pmix_proc_t *voter, const char *id, bool lead,
                      const pmix_proc_t *procs, size_t nprocs);
/* A VOTE message (after its kind byte; node 0 only). */
void spx_srv_grp_vote_recv(struct spx_srv_grp *g, spx_buf_t *b);
/* Forgets node 0's selections (server stop). */
void spx_srv_grp_votes_free(struct spx_srv_grp *g);

/* ---- group_invite.c: the invitation on its leader's node ---- */
/* INVITE request of p: PMIX_SUCCESS (answered later, or already), or a
 * status to reply at once. silent: a construct led by its lowest member (no
 * events but PMIX_GROUP_INVITED to the announce list, a construct's added
 * members). */
pmix_status_t spx_srv_grp_invite_start(struct spx_srv_grp *g, struct spx_srv_peer *p, uint32_t seq,
                                       const char *id, const pmix_proc_t *procs, size_t nprocs,
                                       const pmix_info_t *info, size_t ninfo, bool silent,
                                       const pmix_proc_t *announce, size_t nannounce);
/* ANSWER_SEEN: the leader's handlers saw one answer of its invitation id. */
void spx_srv_grp_answer_seen(struct spx_srv_grp *g, const pmix_proc_t *leader, const char *id);
/* ABORT from proc: its invitation id ends with PMIX_GROUP_CONSTRUCT_ABORT (true),
 * or, with none, the participants procs hear that status as an event. */
bool spx_srv_grp_abort(struct spx_srv_grp *g, const pmix_proc_t *proc, const char *id,
                       const pmix_proc_t *procs, size_t nprocs);
/* An ANSWER message (after its kind byte): to its invitation, or kept until it comes. */
void spx_srv_grp_answer_recv(struct spx_srv_grp *g, spx_buf_t *b);
/* A process (of any node) or a node is gone: invitations led by it end,
 * its pending answers count as failed, answers kept for its invitations go. */
void spx_srv_grp_invites_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc);
void spx_srv_grp_invites_node_gone(struct spx_srv_grp *g, uint32_t node);
/* Answers and frees the invitations and the kept answers (server stop). */
void spx_srv_grp_invites_free(struct spx_srv_grp *g);

#endif
