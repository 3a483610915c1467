/* progress.c - the process-wide progress thread and its job queue.
 *
 * Data flow: any thread calls spx_progress_shift(fn, arg); the job is
 * appended to one mutex-protected FIFO and, if no wake-up is pending yet, the
 * user event `wake` is activated (event_active is thread-safe once
 * evthread_use_pthreads() ran before the base was created). On the progress
 * thread the wake callback detaches the whole queue and runs it in order;
 * jobs queued meanwhile form the next batch, so FIFO order holds across
 * batches and I/O events get a turn between them.
 *
 * Lifecycle: the first acquire creates the base and starts the thread; the
 * last release queues a "stop" job (event_base_loopbreak), joins the thread
 * and frees the base. After the loop returns the thread drains whatever was
 * queued behind the stop job, then closes the queue under its lock, so every
 * job accepted by spx_progress_shift runs exactly once. A later acquire
 * starts everything afresh.
 *
 * The loop runs with EVLOOP_NO_EXIT_ON_EMPTY and sleeps in the backend
 * (epoll) when idle: no busy-spin.
 */
#include "config.h"

#include "progress/progress.h"
#include "progress/progress_int.h"
#include "util/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <event2/thread.h>

struct job {
    STAILQ_ENTRY(job) link;
    spx_shift_f fn;
    void *arg;
};
STAILQ_HEAD(job_list, job);

/* Lifecycle state: protected by life_lock (held across start and stop). */
static pthread_mutex_t life_lock = PTHREAD_MUTEX_INITIALIZER;
static int life_refs;
static pthread_t life_thread;
static struct event_base *life_base; /* read by spx_progress_base() */
static struct event *life_wake;

/* Queue state: protected by q_lock. */
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static struct job_list q_jobs = STAILQ_HEAD_INITIALIZER(q_jobs);
static bool q_open;         /* shifts accepted */
static bool q_wake_pending; /* wake event activated and not yet handled */

static __thread bool on_progress_thread;

/* A forked child's inheritance from the parent, kept reachable (never used). */
static struct event_base *volatile fork_orphan_base;
static struct event *volatile fork_orphan_wake;
static struct job *volatile fork_orphan_jobs;

static pthread_once_t evthread_once = PTHREAD_ONCE_INIT;
static int evthread_rc;

static void evthread_setup(void)
{
    evthread_rc = evthread_use_pthreads();
}

bool spx_progress_on_thread(void)
{
    return on_progress_thread;
}

struct event_base *spx_progress_base(void)
{
    return __atomic_load_n(&life_base, __ATOMIC_ACQUIRE);
}

/* Moves the queue into *list (empty before); caller holds q_lock, then runs
 * and frees what it took with run_jobs. */
static void queue_take_locked(struct job_list *list)
{
    STAILQ_CONCAT(list, &q_jobs); /* leaves q_jobs empty */
}

static void run_jobs(struct job_list *list)
{
    struct job *j;
    while ((j = STAILQ_FIRST(list)) != NULL) {
        STAILQ_REMOVE_HEAD(list, link);
        spx_shift_f fn = j->fn;
        void *arg = j->arg;
        free(j);
        fn(arg);
    }
}

/* Wake callback on the progress thread: run one batch. */
static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    struct job_list list = STAILQ_HEAD_INITIALIZER(list);
    pthread_mutex_lock(&q_lock);
    queue_take_locked(&list);
    q_wake_pending = false;
    pthread_mutex_unlock(&q_lock);
    run_jobs(&list);
}

static void stop_job(void *arg)
{
    (void)arg;
    event_base_loopbreak(life_base);
}

static void *thread_main(void *arg)
{
    (void)arg;
    on_progress_thread = true;
    int rc = event_base_loop(life_base, EVLOOP_NO_EXIT_ON_EMPTY);
    if (rc < 0)
        spx_error("progress: event loop failed");
    /* Drain jobs queued behind the stop job (or during it), then close the queue. */
    for (;;) {
        struct job_list list = STAILQ_HEAD_INITIALIZER(list);
        pthread_mutex_lock(&q_lock);
        queue_take_locked(&list);
        if (STAILQ_EMPTY(&list)) {
            q_open = false;
            q_wake_pending = false;
            pthread_mutex_unlock(&q_lock);
            break;
        }
        pthread_mutex_unlock(&q_lock);
        run_jobs(&list);
    }
    spx_timer_drop_all();
    on_progress_thread = false;
    return NULL;
}

int spx_progress_acquire(void)
{
    pthread_once(&evthread_once, evthread_setup);
    if (evthread_rc != 0) {
        spx_error("progress: libevent has no pthread support");
        errno = ENOSYS;
        return -1;
    }
    if (on_progress_thread) {
        /* a release may hold life_lock while joining this very thread */
        spx_error("progress: acquire called on the progress thread; refused");
        errno = EDEADLK;
        return -1;
    }
    pthread_mutex_lock(&life_lock);
    if (life_refs > 0) {
        life_refs++;
        pthread_mutex_unlock(&life_lock);
        return 0;
    }
    int err = ENOMEM;
    struct event_base *base = event_base_new();
    struct event *wake = base ? event_new(base, -1, 0, wake_cb, NULL) : NULL;
    if (!wake)
        goto fail;
    __atomic_store_n(&life_base, base, __ATOMIC_RELEASE);
    life_wake = wake;
    err = pthread_create(&life_thread, NULL, thread_main, NULL);
    if (err != 0) {
        __atomic_store_n(&life_base, NULL, __ATOMIC_RELEASE);
        life_wake = NULL;
        goto fail;
    }
    /* Open the queue only once the thread exists: a shift accepted is a shift run. */
    pthread_mutex_lock(&q_lock);
    q_open = true;
    q_wake_pending = false;
    pthread_mutex_unlock(&q_lock);
    life_refs = 1;
    pthread_mutex_unlock(&life_lock);
    spx_debug("progress: thread started");
    return 0;
fail:
    if (wake)
        event_free(wake);
    if (base)
        event_base_free(base);
    pthread_mutex_unlock(&life_lock);
    spx_error("progress: cannot start the progress thread: %s", strerror(err));
    errno = err;
    return -1;
}

void spx_progress_release(void)
{
    if (on_progress_thread) {
        spx_error("progress: release called on the progress thread; ignored");
        return;
    }
    pthread_mutex_lock(&life_lock);
    if (life_refs <= 0) {
        pthread_mutex_unlock(&life_lock);
        spx_warn("progress: release without acquire; ignored");
        return;
    }
    if (--life_refs > 0) {
        pthread_mutex_unlock(&life_lock);
        return;
    }
    if (spx_progress_shift(stop_job, NULL) != 0) {
        /* Out of memory for one small node: break the loop directly (thread-safe). */
        event_base_loopbreak(life_base);
    }
    int err = pthread_join(life_thread, NULL);
    if (err != 0)
        spx_error("progress: joining the progress thread failed: %s", strerror(err));
    event_free(life_wake);
    life_wake = NULL;
    struct event_base *base = life_base;
    __atomic_store_n(&life_base, NULL, __ATOMIC_RELEASE);
    event_base_free(base);
    pthread_mutex_unlock(&life_lock);
    spx_debug("progress: thread stopped");
}

int spx_progress_shift(spx_shift_f fn, void *arg)
{
    if (!fn) {
        errno = EINVAL;
        return -1;
    }
    struct job *j = malloc(sizeof(*j));
    if (!j) {
        errno = ENOMEM;
        return -1;
    }
    j->fn = fn;
    j->arg = arg;
    pthread_mutex_lock(&q_lock);
    if (!q_open) {
        pthread_mutex_unlock(&q_lock);
        free(j);
        errno = ESRCH;
        return -1;
    }
    STAILQ_INSERT_TAIL(&q_jobs, j, link);
    bool wake = !q_wake_pending;
    q_wake_pending = true;
    /* Activate under q_lock: the thread cannot free life_wake before it has
     * closed the queue, which it does under this same lock. */
    if (wake)
        event_active(life_wake, EV_READ, 0);
    pthread_mutex_unlock(&q_lock);
    return 0;
}

pmix_status_t spx_progress_guard(const char *call)
{
    if (!on_progress_thread)
        return PMIX_SUCCESS;
    spx_error("%s called from the PMIx progress thread (event handler or callback): it would "
              "block; returning PMIX_ERR_WOULD_BLOCK",
              call ? call : "(unknown call)");
    return PMIX_ERR_WOULD_BLOCK;
}

void spx_progress_atfork_child_reset(void)
{
    /* The thread does not exist here. The base shares its epoll instance with
     * the parent, so freeing it (which deregisters fds) would disturb the
     * parent: forget it instead (a bounded one-time leak). Locks may have been
     * held by parent threads at fork time: re-initialise them. */
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    life_lock = fresh;
    q_lock = fresh;
    if (life_base) {
        fork_orphan_base = life_base;
        fork_orphan_wake = life_wake;
    }
    if (!STAILQ_EMPTY(&q_jobs))
        fork_orphan_jobs = STAILQ_FIRST(&q_jobs);
    life_refs = 0;
    life_base = NULL;
    life_wake = NULL;
    STAILQ_INIT(&q_jobs);
    q_open = false;
    q_wake_pending = false;
    on_progress_thread = false;
    spx_timer_forget_all();
}

/* ---- timers: timer.c on this thread's base ---- */

spx_timer_t *spx_timer_start(double seconds, spx_shift_f fn, void *arg)
{
    if (!spx_progress_on_thread())
        spx_warn("progress: spx_timer_start called off the progress thread");
    return spx_timer_arm(spx_progress_base(), seconds, fn, arg);
}

void spx_timer_cancel(spx_timer_t *t)
{
    spx_timer_disarm(t);
}
