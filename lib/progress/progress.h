/* progress.h - the one progress thread of a process, and the ways to reach it.
 *
 * The progress thread runs a libevent event_base (created with pthread
 * support). It owns all library state: public API calls encode their inputs
 * on the caller's thread and shift the work onto it with spx_progress_shift().
 * A blocking API call is its non-blocking form plus an spx_wait_t.
 *
 * Reference counted: client, server and tool sides each acquire it; the last
 * release stops the loop and joins the thread (work still queued is run first
 * so every shifted job executes exactly once). A later acquire starts a fresh
 * thread and base (PMIx_Init after PMIx_Finalize).
 *
 * Calls to acquire/release must not come from the progress thread (release
 * joins it). Timers still pending when the thread stops are freed without
 * firing; their handles become invalid.
 *
 * fork(): the child has no progress thread. It must not use the parent's
 * (no shift, timer, base or release). Either exec, or call
 * spx_progress_atfork_child_reset() first, after which acquire starts a new
 * thread in the child.
 */
#ifndef SPX_PROGRESS_PROGRESS_H
#define SPX_PROGRESS_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <pmix_common.h>
#include <event2/event.h>

typedef void (*spx_shift_f)(void *arg);

/* Starts the thread on first call. 0 or -1 (errno; EDEADLK when called on the
 * progress thread, which is refused and logged). Thread-safe. */
int spx_progress_acquire(void);
/* Must not be called on the progress thread. Thread-safe. */
void spx_progress_release(void);
/* The loop's base (valid between acquire and the last release). */
struct event_base *spx_progress_base(void);
/* True on the progress thread (i.e. inside any callback the library runs). */
bool spx_progress_on_thread(void);

/* Runs fn(arg) on the progress thread, in submission order. arg ownership is the
 * caller's contract with fn. If called on the progress thread, fn still runs
 * later (never re-entrantly). 0, or -1 if the thread is not running. */
int spx_progress_shift(spx_shift_f fn, void *arg);

/* The WOULD_BLOCK guard: call first in every blocking entry point (and every _nb
 * entry point handed a NULL callback). On the progress thread it logs one line
 * "<call> called from the PMIx progress thread (event handler or callback): it
 * would block; returning PMIX_ERR_WOULD_BLOCK" and returns PMIX_ERR_WOULD_BLOCK;
 * elsewhere PMIX_SUCCESS. call: borrowed, e.g. "PMIx_Fence". */
pmix_status_t spx_progress_guard(const char *call);

/* In a forked child only: forget the parent's thread, base and queued jobs
 * (they are leaked, never run, never freed: freeing the base would deregister
 * fds from the epoll instance the child shares with the parent). Re-initialises
 * the internal locks. Afterwards the refcount is 0. */
void spx_progress_atfork_child_reset(void);

/* ---- wait objects: a status handed from the progress thread to a waiter ---- */
typedef struct spx_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} spx_wait_t;

void spx_wait_init(spx_wait_t *w);
void spx_wait_fini(spx_wait_t *w);
/* Sets the status and wakes the waiter. Call once. */
void spx_wait_signal(spx_wait_t *w, pmix_status_t status);
/* Blocks until signalled; returns the status. Spins for the process's spin
 * time first (see spx_wait_set_spin), then sleeps on the condition. */
pmix_status_t spx_wait_block(spx_wait_t *w);
/* Sets how long spx_wait_block spins before sleeping, in nanoseconds, for the
 * whole process: 0 never spins, a negative value restores the default
 * (30 us). A spin pays only when the thread that signals has a core of its
 * own meanwhile. */
void spx_wait_set_spin(long ns);

/* ---- timers (progress thread only) ---- */
typedef struct spx_timer spx_timer_t;
/* One-shot: fn(arg) runs on the progress thread after seconds. Returns NULL on ENOMEM.
 * The timer frees itself after firing; cancel only a timer that has not fired. */
spx_timer_t *spx_timer_start(double seconds, spx_shift_f fn, void *arg);
void spx_timer_cancel(spx_timer_t *t);

#endif
