/* fence.h - the local fence engine of the server: one tracker per collective,
 * with no sockets and no host in it. Everything the engine needs from the
 * outside world goes through an ops table (which local processes a set
 * covers, what a process contributes, handing the node's contribution to the
 * host, timers, answering a participant), so unit tests drive it directly.
 *
 * Flow: each local participant's FENCE becomes spx_fence_arrive(). A tracker
 * is keyed by the exact participant set (sorted, duplicates removed; a
 * WILDCARD entry is a different set from an explicit listing) and by the
 * order of that set's collectives: an arrival joins the oldest gathering
 * tracker of its set that it has not joined yet. When every expected local
 * participant has arrived, the contribution is built and ops->host_fence is
 * called once; the host's answer comes back through spx_fence_host_done().
 * Every arrival is answered exactly once through ops->reply, also on
 * failure (timeout, lost participant, engine destroyed).
 *
 * All functions run on one thread (the progress thread in the server).
 */
#ifndef SPX_SERVER_FENCE_H
#define SPX_SERVER_FENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

#include "codec/buf.h"

typedef struct spx_fence_engine spx_fence_engine_t;

/* The options a fence handed to the host runs with (what the participants
 * agreed on). host_fence gets them also as pmix_info_t for the host's
 * fence_nb; the server's own paths read this struct instead. */
typedef struct spx_fence_opts {
    bool collect;           /* PMIX_COLLECT_DATA */
    double timeout;         /* seconds, largest asked; 0 for none */
} spx_fence_opts_t;

typedef struct spx_fence_ops {
    /* Appends to *out (malloc'd array, the engine frees it) the local processes
     * covered by the participant set and returns their count (may be 0). Sets
     * *gone (left PMIX_SUCCESS otherwise) when a member has already gone away:
     * the fence then fails at once with that status (PMIX_ERR_PROC_ABORTED for
     * a process that died, PMIX_ERR_UNREACH for one on a node that is gone).
     * set: borrowed. */
    size_t (*local_members)(const pmix_proc_t *set, size_t nset, pmix_proc_t **out,
                            pmix_status_t *gone, void *arg);
    /* Appends proc's contribution for a collecting fence to out. set_key: borrowed
     * canonical name of the participant set (for delta bookkeeping). Returns the
     * boundary handed back to ops->contributed if the fence succeeds. */
    uint64_t (*contribute)(const pmix_proc_t *proc, const char *set_key, spx_buf_t *out,
                           void *arg);
    /* Optional (may be NULL): a collecting fence completed with PMIX_SUCCESS; called
     * once per local participant with what contribute returned for it. */
    void (*contributed)(const pmix_proc_t *proc, const char *set_key, uint64_t upto, void *arg);
    /* Optional (may be NULL): the tracker failed with status before it was handed to
     * host_fence (lost participant, collect disagreement, local timeout): the
     * multi-node glue tells the other nodes. collect: any arrival asked to collect. */
    void (*local_failed)(const pmix_proc_t *set, size_t nset, const char *set_key, bool collect,
                         pmix_status_t status, double timeout, void *arg);
    /* Hands the node's contribution to the host. set/info/data: borrowed; data stays
     * valid until spx_fence_host_done(token) or the engine is destroyed. Returns
     * PMIX_SUCCESS (the host answers later through spx_fence_host_done(token)),
     * PMIX_OPERATION_SUCCEEDED or PMIX_ERR_NOT_SUPPORTED (complete with local data
     * only), or an error that fails the fence. */
    pmix_status_t (*host_fence)(const pmix_proc_t *set, size_t nset, const char *set_key,
                                const pmix_info_t *info, size_t ninfo, char *data, size_t ndata,
                                void *token, void *arg);
    /* Applies the data of all nodes (borrowed), or one piece of it (called
     * once per piece, in order, for spx_fence_host_done_segs; each piece is
     * whole contributions). PMIX_SUCCESS or an error status that becomes the
     * fence's result (the pieces after it are not applied). */
    pmix_status_t (*deliver)(const char *data, size_t ndata, void *arg);
    /* deliver reads the data piece by piece; false: several pieces are
     * joined into one block (a copy) before deliver sees them. */
    bool deliver_pieces;
    /* Answers one arrival; called exactly once per spx_fence_arrive(). */
    void (*reply)(void *requester, pmix_status_t status, void *arg);
    /* Timers: arm returns a handle (NULL on failure) and later calls
     * spx_fence_timeout(engine, id) unless cancelled first. */
    void *(*timer_arm)(double seconds, uint64_t id, void *arg);
    void (*timer_cancel)(void *handle, void *arg);
} spx_fence_ops_t;

/* State of a tracker: gathering its local participants, then with the host
 * (or the nodes) until spx_fence_host_done; then it is freed. */
typedef enum spx_fence_trk_state {
    SPX_FENCE_TRK_GATHER,
    SPX_FENCE_TRK_HOST
} spx_fence_trk_state_t;
/* "gather" / "host", for log lines. */
const char *spx_fence_trk_state_str(spx_fence_trk_state_t s);

/* ops: borrowed, must outlive the engine. NULL on ENOMEM. */
spx_fence_engine_t *spx_fence_engine_create(const spx_fence_ops_t *ops, void *arg);
/* Answers every pending arrival with PMIX_ERR_NOT_AVAILABLE (through ops->reply),
 * cancels timers and frees everything, including host tokens not answered yet. */
void spx_fence_engine_destroy(spx_fence_engine_t *e);

/* One local participant enters a fence. caller, set: borrowed. nset == 0 is not
 * allowed (the caller expands a NULL set to its own nspace WILDCARD).
 * collect: PMIX_COLLECT_DATA was true. timeout: seconds, <= 0 for none.
 * requester: opaque, handed back to ops->reply exactly once. */
void spx_fence_arrive(spx_fence_engine_t *e, const pmix_proc_t *caller, const pmix_proc_t *set,
                      size_t nset, bool collect, double timeout, void *requester);

/* The same for a collective that is not a plain fence: tag (borrowed, may be
 * NULL; no '|') names it, so that its tracker (and the set key the ops see,
 * "tag|ns:rank;...") is apart from every fence and every other tag over the
 * same set. */
void spx_fence_arrive_tagged(spx_fence_engine_t *e, const pmix_proc_t *caller,
                             const pmix_proc_t *set, size_t nset, const char *tag, bool collect,
                             double timeout, void *requester);

/* The host's answer for token. data: borrowed for the call. A token whose
 * tracker is gone (timed out, failed) is released silently. */
void spx_fence_host_done(spx_fence_engine_t *e, void *token, pmix_status_t status,
                         const char *data, size_t ndata);
/* The same with the data as nsegs pieces (segs and their bytes borrowed for
 * the call), each handed to ops->deliver in place if ops->deliver_pieces
 * (nothing is joined), else joined into one block first. */
struct iovec;
void spx_fence_host_done_segs(spx_fence_engine_t *e, void *token, pmix_status_t status,
                              const struct iovec *segs, size_t nsegs);

/* The options of the fence token (as handed to ops->host_fence) stands for;
 * valid until spx_fence_host_done(token). token: borrowed. */
const spx_fence_opts_t *spx_fence_token_opts(const void *token);

/* The timer of tracker id fired (ops->timer_arm): every arrival gets
 * PMIX_ERR_TIMEOUT and the tracker is dropped. Unknown ids are ignored. */
void spx_fence_timeout(spx_fence_engine_t *e, uint64_t id);

/* proc (a local process) went away: every tracker still gathering that
 * expects it fails with PMIX_ERR_PROC_ABORTED. */
void spx_fence_proc_lost(spx_fence_engine_t *e, const pmix_proc_t *proc);

/* proc (a local process) finalized: it no longer takes part in fences.
 * Every tracker still gathering that expects it and has not had its arrival
 * stops expecting it, and completes if everybody else is in. */
void spx_fence_proc_departed(spx_fence_engine_t *e, const pmix_proc_t *proc);

/* Fails, with status, every tracker (gathering or waiting for the host) for which
 * pred(set, nset, pred_arg) is true; a later host answer for it is dropped.
 * Trackers still gathering also go through ops->local_failed. Returns how many. */
typedef bool (*spx_fence_pred_f)(const pmix_proc_t *set, size_t nset, void *pred_arg);
size_t spx_fence_fail_if(spx_fence_engine_t *e, spx_fence_pred_f pred, void *pred_arg,
                         pmix_status_t status);
/* The same for trackers still gathering only: those already with the host
 * are left to the host's answer (which may be a success decided already). */
size_t spx_fence_fail_gathering_if(spx_fence_engine_t *e, spx_fence_pred_f pred,
                                   void *pred_arg, pmix_status_t status);

/* Number of live trackers (for tests and statistics). */
size_t spx_fence_count(const spx_fence_engine_t *e);

/* True when proc is named by set (same nspace and same rank, or a WILDCARD entry). */
bool spx_fence_proc_in_set(const pmix_proc_t *proc, const pmix_proc_t *set, size_t nset);

#endif
