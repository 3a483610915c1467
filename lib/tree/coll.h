/* coll.h - the collective state machine of the tree engine, without sockets.
 *
 * One engine per node. Collectives are keyed by (set_id, seq): seq counts the
 * local starts of that set_id (0, 1, ...). A collective gathers up the tree
 * built over its sorted node list (positions in that list) and the root
 * broadcasts the result down:
 *
 *   start + every child's UP  ->  UP to parent        (state GATHER -> WAIT_DOWN)
 *   root: start + every UP    ->  decide, DOWN to children, done (-> DONE)
 *   DOWN from parent          ->  DOWN to children, done
 *
 * A message for a (set_id, seq) this node has not started yet is kept
 * (state PENDING) and replayed at start; one for a finished (set_id, seq)
 * is dropped. An ABORT (an UP with SPX_COLL_UP_ABORT, or any DOWN with an
 * error status) ends the collective at once and is passed on to every other
 * tree neighbour, so a timeout or error reaches everybody promptly. A lost
 * node fails every collective whose node list holds it (PMIX_ERR_UNREACH).
 *
 * The engine talks to the world only through spx_coll_io_t: the tree
 * transport in production, a simulated network in the unit test. done
 * callbacks run inside spx_coll_recv/node_lost/timeout/run_deferred; a
 * completion decided inside spx_coll_start is deferred (io->defer asks the
 * host to call spx_coll_run_deferred soon), so done never runs inside start.
 * Callbacks may call spx_coll_start again.
 *
 * Data without copies: a received UP's data is kept, until the collective
 * is freed, in the very block it arrived in when the caller hands that
 * block over (spx_coll_msg_t.frame); the gathered result is the list of
 * those pieces (own contribution first, then the children's UPs in arrival
 * order), sent on with io->sendv as pieces and given to a done_segs
 * callback as pieces. A DOWN's result is passed on in its frame too. Bytes
 * are copied only when a caller lends them without a block (frame NULL),
 * for an io without sendv, for a plain done wanting one block of several
 * pieces, and this node's own contribution at start; counted (but the last)
 * in spx_coll_counters_t.bytes_copied.
 */
#ifndef SPX_TREE_COLL_H
#define SPX_TREE_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <pmix_common.h>

#include "tree/tree.h"

#define SPX_COLL_MAX_SET_ID 4096u      /* longest set_id accepted */
#define SPX_COLL_MAX_PENDING 65536u    /* messages kept for unstarted collectives */

enum spx_coll_kind { SPX_COLL_UP = 1, SPX_COLL_DOWN = 2 };
const char *spx_coll_kind_str(uint8_t kind);

#define SPX_COLL_UP_ABORT 0x1u    /* end the collective now with status */
#define SPX_COLL_UP_MISMATCH 0x2u /* flags disagreed somewhere below */

typedef struct spx_coll_msg {
    uint8_t kind;           /* SPX_COLL_UP / SPX_COLL_DOWN */
    const char *set_id;     /* borrowed */
    uint32_t seq;
    pmix_status_t status;
    uint32_t flags;         /* UP: the sender's collective flags */
    uint8_t up_flags;       /* UP: SPX_COLL_UP_* */
    const void *data;       /* borrowed, or lies in frame */
    size_t len;
    /* Received messages: the malloc'd block data lies in (the frame the
     * transport read it into), offered to spx_coll_recv, which takes it
     * (frees it later with free()) when it keeps data beyond the call and
     * says so. NULL: data is lent for the call only and copied if kept.
     * Unused in sends. */
    void *frame;
} spx_coll_msg_t;

typedef enum spx_coll_state {
    SPX_COLL_PENDING,   /* messages arrived, not started here */
    SPX_COLL_GATHER,    /* started, waiting for children */
    SPX_COLL_WAIT_DOWN, /* UP sent, waiting for the parent's DOWN */
    SPX_COLL_DONE,      /* finished (done called or about to be) */
} spx_coll_state_t;

const char *spx_coll_state_str(spx_coll_state_t s);

typedef struct spx_coll spx_coll_t;
typedef struct spx_coll_engine spx_coll_engine_t;

typedef struct spx_coll_io {
    /* Sends m to node `to`. m borrowed. Returns the bytes put on the wire (>0),
     * or -1 (node unreachable). */
    long (*send)(void *arg, uint32_t to, const spx_coll_msg_t *m);
    /* Arms a one-shot timer that must call spx_coll_timeout(e, c); returns a
     * handle for disarm (NULL: no timer, the collective simply has none). */
    void *(*timer_arm)(void *arg, double seconds, spx_coll_t *c);
    void (*timer_disarm)(void *arg, void *timer);
    /* Asks for spx_coll_run_deferred(e) to be called soon from the loop. */
    void (*defer)(void *arg);
    /* Optional: sends m whose data is the concatenation of segs[0..nsegs)
     * (m->data/len unused; m, segs and their bytes borrowed for the call).
     * Returns as send. NULL: the engine joins the pieces (a copy) for send. */
    long (*sendv)(void *arg, uint32_t to, const spx_coll_msg_t *m, const struct iovec *segs,
                  size_t nsegs);
} spx_coll_io_t;

/* io copied; arg borrowed (lives as long as the engine). */
spx_coll_engine_t *spx_coll_engine_create(uint32_t self, uint32_t nnodes, uint32_t width,
                                          const spx_coll_io_t *io, void *arg);
/* Every collective still running completes with PMIX_ERR_UNREACH, then frees. */
void spx_coll_engine_destroy(spx_coll_engine_t *e);

/* Same contract as spx_tree_coll_start. */
int spx_coll_start(spx_coll_engine_t *e, const char *set_id, const uint32_t *nodes,
                   size_t nnodes, uint32_t flags, pmix_status_t status, const void *data,
                   size_t len, double timeout, spx_tree_done_f done, void *arg);
/* Same contract as spx_tree_coll_start_segs: done gets the result as pieces. */
int spx_coll_start_segs(spx_coll_engine_t *e, const char *set_id, const uint32_t *nodes,
                        size_t nnodes, uint32_t flags, pmix_status_t status, const void *data,
                        size_t len, double timeout, spx_tree_done_segs_f done, void *arg);
/* A message from node `from` (authenticated by the transport). m borrowed.
 * Returns true if it took m->frame (see spx_coll_msg_t), false if the
 * frame (if any) is still the caller's, to free or reuse. */
bool spx_coll_recv(spx_coll_engine_t *e, uint32_t from, const spx_coll_msg_t *m);
void spx_coll_node_lost(spx_coll_engine_t *e, uint32_t node);
/* node ended in order: it finished every collective it took part in, so only
 * a collective that still waits for a message from it (its UP as a child,
 * its DOWN as the parent) can no longer complete; that one is aborted with
 * PMIX_ERR_UNREACH (and the abort passed on). Later starts involving the node
 * fail as for a lost one. */
void spx_coll_node_left(spx_coll_engine_t *e, uint32_t node);
void spx_coll_timeout(spx_coll_engine_t *e, spx_coll_t *c);
void spx_coll_run_deferred(spx_coll_engine_t *e);

/* ---- introspection for counters and tests ---- */
typedef struct spx_coll_counters {
    uint64_t done;                 /* collectives completed */
    uint64_t dropped;              /* messages dropped (duplicate, stale, bogus) */
    uint64_t last_msgs_sent, last_bytes_sent, last_payload;
    uint64_t bytes_copied;         /* received data copied (see the file comment) */
} spx_coll_counters_t;
void spx_coll_get_counters(const spx_coll_engine_t *e, spx_coll_counters_t *out);
/* State of (set_id, seq): PENDING/GATHER/WAIT_DOWN if known and running,
 * DONE if finished, -1 if never seen. */
int spx_coll_query(const spx_coll_engine_t *e, const char *set_id, uint32_t seq);
/* Collectives not yet finished (started or pending), but those this node
 * runs only as a stand-in for departed processes (SPX_TREE_F_ANY). */
size_t spx_coll_active(const spx_coll_engine_t *e);
/* One of them, for log lines: its set_id (borrowed), seq and state; NULL if none. */
const char *spx_coll_some_active(const spx_coll_engine_t *e, uint32_t *seq,
                                 spx_coll_state_t *state);

#endif
