/* timer.c - one-shot timers on an event base (the progress thread's:
 * progress.c's spx_timer_start passes it).
 *
 * spx_timer_arm() creates a libevent timer that, when it fires, unlinks
 * itself from the live list, frees itself and then calls fn(arg). The live
 * list (touched only on the base's loop thread, so without a lock) lets that
 * thread free timers that are still pending when the loop stops.
 */
#include "config.h"

#include "progress/progress_int.h"

#include <math.h>
#include <stdlib.h>
#include <sys/queue.h>

struct spx_timer {
    LIST_ENTRY(spx_timer) live; /* in live_timers */
    struct event *ev;
    void (*fn)(void *);
    void *arg;
};

static LIST_HEAD(, spx_timer) live_timers = LIST_HEAD_INITIALIZER(live_timers);

static void timer_free(spx_timer_t *t)
{
    LIST_REMOVE(t, live);
    event_free(t->ev);
    free(t);
}

static void timer_fire(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    spx_timer_t *t = arg;
    void (*fn)(void *) = t->fn;
    void *fn_arg = t->arg;
    timer_free(t); /* before fn: fn may start new timers or stop the loop */
    fn(fn_arg);
}

spx_timer_t *spx_timer_arm(struct event_base *base, double seconds, void (*fn)(void *),
                           void *arg)
{
    if (!base || !fn)
        return NULL;
    if (!(seconds > 0.0)) /* also catches NaN */
        seconds = 0.0;
    if (seconds > 1e9)
        seconds = 1e9;
    spx_timer_t *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    t->ev = evtimer_new(base, timer_fire, t);
    if (!t->ev) {
        free(t);
        return NULL;
    }
    double whole = floor(seconds);
    struct timeval tv = {
        .tv_sec = (time_t)whole,
        .tv_usec = (suseconds_t)((seconds - whole) * 1e6),
    };
    if (evtimer_add(t->ev, &tv) != 0) {
        event_free(t->ev);
        free(t);
        return NULL;
    }
    LIST_INSERT_HEAD(&live_timers, t, live);
    return t;
}

void spx_timer_disarm(spx_timer_t *t)
{
    if (!t)
        return;
    timer_free(t); /* event_free also removes the pending timeout */
}

void spx_timer_drop_all(void)
{
    while (!LIST_EMPTY(&live_timers))
        timer_free(LIST_FIRST(&live_timers));
}

void spx_timer_forget_all(void)
{
    LIST_INIT(&live_timers);
}
