/* progress_int.h - private links between the files of lib/progress (not for
 * other modules). timer.c is the lower file: it knows an event base and
 * nothing of the progress thread; progress.c hands it its base. */
#ifndef SPX_PROGRESS_PROGRESS_INT_H
#define SPX_PROGRESS_PROGRESS_INT_H

#include <event2/event.h>

typedef struct spx_timer spx_timer_t;

/* One-shot timer on base: fn(arg) after seconds (clamped to 0..1e9), the
 * timer freed just before. NULL on ENOMEM. Call on base's loop thread. */
spx_timer_t *spx_timer_arm(struct event_base *base, double seconds, void (*fn)(void *),
                           void *arg);
/* Frees a timer that has not fired (it never will). */
void spx_timer_disarm(spx_timer_t *t);
/* After base's loop stopped: frees every timer still pending (they never
 * fire; their handles become invalid). */
void spx_timer_drop_all(void);
/* Forked child: forget the pending timers without touching the parent's base. */
void spx_timer_forget_all(void);

#endif
