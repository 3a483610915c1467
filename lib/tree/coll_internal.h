/* coll_internal.h - the collective engine's records, shared by its three
 * files (the interface is coll.h):
 *   coll.c          the state machine: start, a message applied, gather,
 *                   completion, abort, timeout, a node lost or gone;
 *   coll_data.c     a collective's data as pieces: gathered without copies,
 *                   sent on as pieces (or joined), handed to done;
 *   coll_records.c  the bookkeeping: collectives by (set_id, seq), the sets'
 *                   start counters, messages kept for collectives not started
 *                   yet, the lost nodes, counters and queries, names.
 * Calls go coll.c -> coll_data.c -> coll_records.c (and coll.c ->
 * coll_records.c); none the other way.
 */
#ifndef SPX_TREE_COLL_INTERNAL_H
#define SPX_TREE_COLL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/uio.h>

#include "codec/frame.h"
#include "tree/coll.h"

/* gathered bytes at most: leaves room for the frames' headers */
#define SPX_COLL_MAX_DATA (SPX_FRAME_MAX_PAYLOAD - 65536u)

/* A message kept for a collective not started here yet (PENDING), replayed
 * at its start. */
typedef struct spx_coll_stored {
    STAILQ_ENTRY(spx_coll_stored) link; /* in its collective's stored list, arrival order */
    uint32_t from;
    uint8_t kind, up_flags;
    pmix_status_t status;
    uint32_t flags;
    void *own;        /* owned: the received frame data lies in (or a copy of a lent one) */
    const void *data; /* into own */
    size_t len;
} spx_coll_stored_t;

STAILQ_HEAD(spx_coll_stored_list, spx_coll_stored);

struct spx_coll {
    TAILQ_ENTRY(spx_coll) link; /* in e->active or, once done, e->deferred */
    spx_coll_engine_t *e;
    char *set_id; /* owned */
    uint32_t seq;
    spx_coll_state_t state;
    struct spx_coll_stored_list stored; /* PENDING: messages kept until start */
    /* filled by start */
    uint32_t *nodes; /* owned, sorted */
    uint32_t m, pos;
    long parent;     /* node index, -1 at the root */
    uint32_t nchild;
    uint32_t *child; /* owned: node indices */
    uint8_t *got;    /* owned: per child, UP received */
    uint32_t ngot;
    uint32_t flags;
    bool ghost;      /* started with SPX_TREE_F_ANY: no participant of this node's own */
    bool mismatch, overflow;
    pmix_status_t status;
    /* gathered data: nsegs pieces (own contribution, then each child's UP in
     * arrival order), segs[i] lying in owns[i]; both arrays owned, width + 1
     * slots, and every owns[i] owned (a received frame taken over, or a copy) */
    struct iovec *segs;
    void **owns;
    uint32_t nsegs;
    size_t acc_len; /* sum of the pieces' lengths, <= SPX_COLL_MAX_DATA */
    void *down_own; /* owned: the DOWN frame whose data is the result, or NULL */
    spx_tree_done_f done;           /* exactly one of done, done_segs is set */
    spx_tree_done_segs_f done_segs;
    void *arg;
    void *timer;
    uint64_t msgs_sent, bytes_sent, payload;
    /* a completion deferred out of start: its pieces' bytes are c's own
     * (segs/owns or down_own), only the array is kept */
    pmix_status_t final_status;
    struct iovec *final_segs; /* owned array, bytes borrowed from c */
    size_t final_nsegs;
};

/* A set_id this node started collectives of: started counts the local
 * starts, so seq < started is a finished collective (its messages dropped). */
#define SPX_COLL_SET_BUCKETS 256 /* power of two */
typedef struct spx_coll_set {
    SLIST_ENTRY(spx_coll_set) link; /* in its bucket of e->sets, last used first */
    char *set_id; /* owned */
    uint64_t hash; /* spx_strhash(set_id), compared first */
    uint32_t started;
} spx_coll_set_t;
SLIST_HEAD(spx_coll_set_bucket, spx_coll_set);

struct spx_coll_engine {
    uint32_t self, nnodes, width;
    spx_coll_io_t io;
    void *arg;
    TAILQ_HEAD(, spx_coll) active;   /* pending and running collectives, newest first */
    TAILQ_HEAD(, spx_coll) deferred; /* completed inside start, done not yet called (FIFO) */
    /* every set this node took part in, by hash: groups make a new set per
     * construct (unique ids), and a first collective of a set looks up a
     * set that is not there yet; one list made that a walk of them all */
    struct spx_coll_set_bucket sets[SPX_COLL_SET_BUCKETS];
    /* nodes lost or gone, sorted (owned, nlost of lost_cap): few, so an
     * engine costs the same at any job size (one flag per node made it
     * nnodes bytes, and every start looked each of its nodes up there) */
    uint32_t *lost;
    size_t nlost, lost_cap;
    size_t nstored;
    bool in_start;
    spx_coll_counters_t cnt;
};

/* ---- coll_records.c ---- */

/* A new PENDING collective (set_id copied) at the head of e->active; NULL
 * when out of memory. */
spx_coll_t *spx_coll_new(spx_coll_engine_t *e, const char *set_id, uint32_t seq);
/* The collective (set_id, seq) in e->active, or NULL. */
spx_coll_t *spx_coll_find(const spx_coll_engine_t *e, const char *set_id, uint32_t seq);
/* Frees c and all it owns (c no longer in a list). */
void spx_coll_free(spx_coll_t *c);
/* Frees the kept messages of list (and their frames); e counts them. */
void spx_coll_free_stored(spx_coll_engine_t *e, struct spx_coll_stored_list *list);
/* Keeps m (borrowed) from node `from` for the start of PENDING c: in
 * m->frame if there is one (then taken: returns true), else in a copy.
 * False when m is not taken (dropped: duplicate, or over
 * SPX_COLL_MAX_PENDING kept messages, logged and counted). */
bool spx_coll_store_msg(spx_coll_t *c, uint32_t from, const spx_coll_msg_t *m);
/* The record of set_id (moved to the front of its bucket), or NULL. */
spx_coll_set_t *spx_coll_set_find(spx_coll_engine_t *e, const char *set_id);
/* The record of set_id, made if there is none yet; NULL when out of memory. */
spx_coll_set_t *spx_coll_set_get(spx_coll_engine_t *e, const char *set_id);
/* Is node in the sorted list nodes[0..n)? */
bool spx_coll_sorted_has(const uint32_t *nodes, size_t n, uint32_t node);
/* Adds node to e->lost (kept sorted, no duplicates). -1: out of memory. */
int spx_coll_lost_add(spx_coll_engine_t *e, uint32_t node);
/* Frees e with every record left in it (collectives still in e->active are
 * freed without done: the caller completed those that had a starter). */
void spx_coll_engine_free(spx_coll_engine_t *e);

/* ---- coll_data.c ---- */

/* Adds one piece to c's gather: own (owned, or NULL) is the block data
 * lies in, kept with the piece until c is freed; data lent without a block
 * is copied (counted in cnt.bytes_copied when count). Over SPX_COLL_MAX_DATA
 * or out of memory: c's status becomes PMIX_ERR_OUT_OF_RESOURCE. */
void spx_coll_gather_add(spx_coll_t *c, void *own, const void *data, size_t len, bool count);
/* Sends c's message of kind to node `to` with the payload segs[0..nsegs)
 * (borrowed for the call). 0, or -1 (not sent, logged). */
int spx_coll_send(spx_coll_t *c, uint32_t to, uint8_t kind, pmix_status_t status,
                  uint8_t up_flags, const struct iovec *segs, size_t nsegs);
/* Calls c's done or done_segs with status and the result segs[0..n)
 * (borrowed for the call). */
void spx_coll_deliver(spx_coll_t *c, pmix_status_t status, const struct iovec *segs, size_t n);

#endif
