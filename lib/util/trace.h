/* trace.h - timestamps along a fence's path, for finding where its time goes.
 *
 * Off unless the environment variable SPMIX_TRACE_FENCE names a file prefix
 * when the library is loaded; then each process keeps its records in memory
 * and writes them to PREFIX.<pid> when the library is unloaded or the process
 * exits (or on spx_trace_flush). Off, a trace point is one load and a
 * branch predicted not taken: no call, no clock read.
 *
 * A record: the event, CLOCK_MONOTONIC in nanoseconds (one clock for every
 * network namespace of a machine), the CPU the thread ran on, and three
 * numbers whose meaning the event gives (see enum spx_trace_ev). The file's
 * lines are "EVENT NS CPU A B C" after a header
 * "# spmix fence trace pid P ppid Q host H"; test/bench/fence_trace.py reads
 * them.
 * Up to SPX_TRACE_MAX records per process are kept; later ones are dropped
 * and counted (the last line, "# dropped N"). A forked child starts with an
 * empty buffer.
 *
 * Thread safety: any thread may record at any time (one atomic increment
 * reserves a slot). A flush writes the records reserved so far; call it when
 * no other thread records (the unload and exit paths do).
 */
#ifndef SPX_UTIL_TRACE_H
#define SPX_UTIL_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#define SPX_TRACE_ENV "SPMIX_TRACE_FENCE"
#define SPX_TRACE_MAX (1u << 18)

enum spx_trace_ev {
    /* client (a = its count of PMIx_Fence calls, b = its rank unless said) */
    SPX_TR_C_CALL = 1,   /* PMIx_Fence entered */
    SPX_TR_C_ARRIVED,    /* arrived in the shared-memory gather; c = generation */
    SPX_TR_C_SEND,       /* about to write FENCE_LOCAL (c = generation) or FENCE (c = 0) */
    SPX_TR_C_REPLY,      /* progress thread: the FENCE reply read */
    SPX_TR_C_WOKE,       /* the waiting caller runs again */
    SPX_TR_C_RET,        /* PMIx_Fence returns; c = status */
    /* server (a = generation of the shared-memory gather, or 0) */
    SPX_TR_S_REQ,        /* FENCE_LOCAL (b = 1) or FENCE (b = 0) read; c = the client's rank */
    SPX_TR_S_GATHERED,   /* every local process is in (b = how many collect) */
    SPX_TR_S_RELEASE,    /* the gather released (clients woken); c = status */
    SPX_TR_S_REPLY,      /* a FENCE answered through the socket; b = rank, c = status */
    /* tree (a = the collective's seq, b = the other node, c = hash of its set id) */
    SPX_TR_T_START,      /* this node's part starts (b = number of nodes) */
    SPX_TR_T_UP_SEND,    /* an UP about to be written */
    SPX_TR_T_UP_SENT,    /* ... written */
    SPX_TR_T_UP_RECV,    /* an UP read (the whole frame) */
    SPX_TR_T_DOWN_SEND,
    SPX_TR_T_DOWN_SENT,
    SPX_TR_T_DOWN_RECV,
    SPX_TR_T_DONE,       /* a fence's collective completed here (a = 0, b = this node,
                          * c = status) */
    SPX_TR_EV_COUNT
};

const char *spx_trace_ev_str(enum spx_trace_ev ev);

/* True while tracing (set once at load). */
extern bool spx_trace_enabled;

void spx_trace_record(enum spx_trace_ev ev, uint32_t a, uint32_t b, uint32_t c);

/* The trace point. */
#define spx_trace(ev, a, b, c)                                                       \
    do {                                                                             \
        if (__builtin_expect(spx_trace_enabled, 0))                                  \
            spx_trace_record((ev), (uint32_t)(a), (uint32_t)(b), (uint32_t)(c));     \
    } while (0)

/* Writes what is recorded and not yet written (also done at unload and exit). */
void spx_trace_flush(void);

/* A short hash of a set id, for the c of tree records. */
uint32_t spx_trace_hash(const char *s);

#endif
