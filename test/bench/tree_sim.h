/* tree_sim.h - a simulated network for the tree engine's collectives: N
 * collective engines (lib/tree/coll.c, one per simulated node) in one
 * process, joined by a message queue instead of sockets. Used by
 * test/bench/tree_harness.c.
 *
 * A message an engine sends (io send/sendv) is encoded as the tree transport
 * encodes an UP/DOWN frame (lib/tree/tree.c io_sendv: set_id, seq, status,
 * for an UP flags and up_flags, then the data's u32 length and the data)
 * into one malloc'd frame the queue owns. Delivering it decodes the fields
 * and offers the frame to the destination's spx_coll_recv, which takes it
 * (and frees it later) or leaves it to the queue to free - coll.h's rule.
 * tsim_step does one thing: runs one endpoint's deferred completions
 * (io->defer asked for it; they go first, as the event loop would run them),
 * or delivers one message, newest first (LIFO: depth first, few frames in
 * flight) or oldest first (FIFO). Counted per sender: messages, and bytes
 * as on the wire (the 16-byte frame header plus the payload).
 * A killed node's queued messages are dropped (its links died), sends to it
 * fail (-1, as the transport's to a lost node), and every other live engine
 * is told (spx_coll_node_lost).
 */
#ifndef SPX_TEST_TREE_SIM_H
#define SPX_TEST_TREE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tree/coll.h"

typedef struct tsim tsim_t;

typedef struct tsim_ep {
    tsim_t *sim;          /* borrowed back pointer */
    uint32_t idx;
    spx_coll_engine_t *e; /* owned (NULL until tsim_create_engines) */
    bool dead;            /* killed: never called again but destroyed at the end */
    bool deferred;        /* waiting in the sim's defer list */
    uint64_t msgs, bytes; /* sent since tsim_reset_counts */
} tsim_ep_t;

typedef struct tsim_msg {
    uint32_t from, to;
    uint8_t kind;         /* SPX_COLL_UP / SPX_COLL_DOWN (the frame type) */
    size_t len;           /* payload bytes in frame */
    void *frame;          /* owned by the queue until delivered */
} tsim_msg_t;

struct tsim {
    uint32_t n, width;
    bool fifo;
    tsim_ep_t *ep;        /* n endpoints, owned */
    tsim_msg_t *q;        /* ring buffer of qcap, qlen queued from qhead; owned */
    size_t qcap, qhead, qlen;
    uint32_t *defer;      /* endpoints wanting run_deferred (n slots), owned */
    size_t ndefer;
    uint64_t delivered;   /* messages handed to spx_coll_recv */
    uint64_t lost_msgs;   /* dropped with a killed node, or refused to it */
    uint64_t q_bytes, q_peak_bytes; /* payload bytes queued now / at most (since reset) */
    bool count_early;     /* count deliveries to a node that has not started (a query each) */
    uint64_t early;       /* such deliveries, if counted */
    /* test hooks for the harness's self-check: 1 = corrupt the data of the
     * next DOWN with data (one byte), 2 = drop the next UP; then back to 0 */
    int sabotage;
};

/* Endpoint records and queue, no engines yet. 0 or -1. */
int tsim_init(tsim_t *s, uint32_t n, uint32_t width, bool fifo);
/* One engine per endpoint. 0 or -1. */
int tsim_create_engines(tsim_t *s);
/* Destroys the engines (their running collectives complete with
 * PMIX_ERR_UNREACH: done callbacks run) and frees every queued frame. */
void tsim_fini(tsim_t *s);
/* One deferred run or one delivery; false when there was nothing to do. */
bool tsim_step(tsim_t *s);
/* Node is lost: see the file comment. */
void tsim_kill(tsim_t *s, uint32_t node);
/* Zeroes every endpoint's msgs/bytes and the queue's peak. */
void tsim_reset_counts(tsim_t *s);

#endif
