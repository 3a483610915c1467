/* wait.c - wait objects: the progress thread hands one status to a blocked caller.
 *
 * The caller initialises an spx_wait_t (usually on its stack), shifts work that
 * ends with spx_wait_signal(), blocks in spx_wait_block(), then finalises it.
 * The signal sets done/status under the mutex and broadcasts, so a signal that
 * arrives before the wait starts is not lost.
 */
#include "config.h"

#include "progress/progress.h"

#include <time.h>

/* How long a waiter spins before sleeping on the condition, in nanoseconds.
 * Bounded in time, not iterations: a pause instruction costs 10 to 140 cycles
 * depending on the CPU. */
#ifndef SPX_WAIT_SPIN_NS
#define SPX_WAIT_SPIN_NS 30000
#endif

/* The spin of this process (spx_wait_set_spin); read by every waiter. */
static long wait_spin_ns = SPX_WAIT_SPIN_NS;

void spx_wait_set_spin(long ns)
{
    __atomic_store_n(&wait_spin_ns, ns < 0 ? SPX_WAIT_SPIN_NS : ns, __ATOMIC_RELAXED);
}

void spx_wait_init(spx_wait_t *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->done = false;
    w->status = PMIX_SUCCESS;
}

void spx_wait_fini(spx_wait_t *w)
{
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
}

void spx_wait_signal(spx_wait_t *w, pmix_status_t status)
{
    pthread_mutex_lock(&w->lock);
    w->status = status;
    __atomic_store_n(&w->done, true, __ATOMIC_RELEASE); /* read unlocked by the spin */
    /* Broadcast while holding the lock: the waiter may fini (and free) w as soon
     * as it sees done, which it can only do after we unlock. */
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

pmix_status_t spx_wait_block(spx_wait_t *w)
{
    /* Most waits end within microseconds (one round trip to the progress
     * thread); sleeping on the condition costs a scheduler wake-up on each side.
     * Spin a short, bounded while first, then block. Either way we take the
     * lock before returning so the signaller has left the mutex/cond before
     * the caller may spx_wait_fini() them. */
    long spin_ns = __atomic_load_n(&wait_spin_ns, __ATOMIC_RELAXED);
    if (spin_ns > 0 && !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (unsigned i = 1; !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE); i++) {
            cpu_relax();
            if (i % 32 == 0) {
                clock_gettime(CLOCK_MONOTONIC, &t);
                if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > spin_ns)
                    break;
            }
        }
    }
    pthread_mutex_lock(&w->lock);
    while (!w->done)
        pthread_cond_wait(&w->cond, &w->lock);
    pmix_status_t status = w->status;
    pthread_mutex_unlock(&w->lock);
    return status;
}
