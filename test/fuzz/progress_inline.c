/* progress_inline.c - the progress module (progress/progress.h) on the
 * caller's own thread, for fuzz_server: linked before the core library, its
 * definitions replace lib/progress/progress.c and timer.c (wait.c stays), so
 * the server runs without a thread and an input is handled the same way
 * every time, with no round trip between threads per request.
 *
 * "The progress thread" is whoever is inside spx_fz_pump() (or inside a job
 * run by spx_progress_shift from outside it): there spx_progress_on_thread()
 * is true and a shifted job is queued, to run later in the same pump, in
 * submission order. A shift from outside runs the job at once, then what it
 * queued - as if the caller had waited for the thread (so the blocking forms
 * of the PMIx_server_* calls, which shift and wait, work unchanged).
 * Timers never fire by themselves: spx_fz_fire_timers() fires every pending
 * one, as if its time had come (the fuzz input decides when).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/queue.h>

#include "progress/progress.h"
#include "progress/progress_int.h"
#include "progress_inline.h"
#include "util/log.h"

struct fz_job {
    STAILQ_ENTRY(fz_job) link;
    spx_shift_f fn;
    void *arg;
};

struct spx_timer {
    LIST_ENTRY(spx_timer) live;
    spx_shift_f fn;
    void *arg;
};

static struct event_base *fz_base;
static int fz_refs;
static bool fz_in_loop;
static STAILQ_HEAD(, fz_job) fz_jobs = STAILQ_HEAD_INITIALIZER(fz_jobs);
static LIST_HEAD(, spx_timer) fz_timers = LIST_HEAD_INITIALIZER(fz_timers);

/* Runs queued jobs (and those they queue) until none is left; true if any ran. */
static bool run_jobs(void)
{
    bool ran = false;
    struct fz_job *j;
    while ((j = STAILQ_FIRST(&fz_jobs)) != NULL) {
        STAILQ_REMOVE_HEAD(&fz_jobs, link);
        spx_shift_f fn = j->fn;
        void *arg = j->arg;
        free(j);
        fn(arg);
        ran = true;
    }
    return ran;
}

int spx_progress_acquire(void)
{
    if (fz_in_loop) {
        errno = EDEADLK;
        return -1;
    }
    if (!fz_base && !(fz_base = event_base_new()))
        return -1;
    fz_refs++;
    return 0;
}

void spx_progress_release(void)
{
    if (fz_refs <= 0 || --fz_refs > 0)
        return;
    fz_in_loop = true;
    run_jobs(); /* every shifted job runs exactly once */
    fz_in_loop = false;
    spx_timer_drop_all();
    event_base_free(fz_base);
    fz_base = NULL;
}

struct event_base *spx_progress_base(void)
{
    return fz_base;
}

bool spx_progress_on_thread(void)
{
    return fz_in_loop;
}

int spx_progress_shift(spx_shift_f fn, void *arg)
{
    if (!fn) {
        errno = EINVAL;
        return -1;
    }
    if (!fz_base) {
        errno = ESRCH;
        return -1;
    }
    if (!fz_in_loop) {
        fz_in_loop = true;
        fn(arg);
        run_jobs();
        fz_in_loop = false;
        return 0;
    }
    struct fz_job *j = malloc(sizeof(*j));
    if (!j) {
        errno = ENOMEM;
        return -1;
    }
    j->fn = fn;
    j->arg = arg;
    STAILQ_INSERT_TAIL(&fz_jobs, j, link);
    return 0;
}

pmix_status_t spx_progress_guard(const char *call)
{
    if (!fz_in_loop)
        return PMIX_SUCCESS;
    spx_error("%s called from the PMIx progress thread (event handler or callback): it would "
              "block; returning PMIX_ERR_WOULD_BLOCK",
              call ? call : "(unknown call)");
    return PMIX_ERR_WOULD_BLOCK;
}

void spx_progress_atfork_child_reset(void)
{
}

void spx_fz_pump(int rounds)
{
    if (!fz_base)
        return;
    bool outer = !fz_in_loop;
    fz_in_loop = true;
    for (int quiet = 0; quiet < rounds;) {
        bool ran = run_jobs();
        event_base_loop(fz_base, EVLOOP_NONBLOCK);
        ran = run_jobs() || ran;
        quiet = ran ? 0 : quiet + 1;
    }
    if (outer)
        fz_in_loop = false;
}

/* ---- timers ---- */

spx_timer_t *spx_timer_start(double seconds, spx_shift_f fn, void *arg)
{
    (void)seconds;
    if (!fz_base || !fn)
        return NULL;
    spx_timer_t *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->fn = fn;
    t->arg = arg;
    LIST_INSERT_HEAD(&fz_timers, t, live);
    return t;
}

void spx_timer_cancel(spx_timer_t *t)
{
    if (!t)
        return;
    LIST_REMOVE(t, live);
    free(t);
}

size_t spx_fz_fire_timers(void)
{
    size_t n = 0;
    bool outer = !fz_in_loop;
    fz_in_loop = true;
    /* only those pending now: a timer a callback starts waits for the next call */
    LIST_HEAD(, spx_timer) due = LIST_HEAD_INITIALIZER(due);
    spx_timer_t *t;
    while ((t = LIST_FIRST(&fz_timers)) != NULL) {
        LIST_REMOVE(t, live);
        LIST_INSERT_HEAD(&due, t, live);
    }
    while ((t = LIST_FIRST(&due)) != NULL) {
        LIST_REMOVE(t, live);
        spx_shift_f fn = t->fn;
        void *arg = t->arg;
        free(t); /* before fn, as lib/progress/timer.c does */
        fn(arg);
        n++;
    }
    run_jobs();
    if (outer)
        fz_in_loop = false;
    return n;
}

size_t spx_fz_timer_count(void)
{
    size_t n = 0;
    spx_timer_t *t;
    LIST_FOREACH(t, &fz_timers, live)
        n++;
    return n;
}

void spx_timer_drop_all(void)
{
    spx_timer_t *t;
    while ((t = LIST_FIRST(&fz_timers)) != NULL) {
        LIST_REMOVE(t, live);
        free(t);
    }
}

void spx_timer_forget_all(void)
{
    LIST_INIT(&fz_timers);
}
