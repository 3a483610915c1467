/*
 * run_sync: the main thread of an spmix-run node waits here for the server
 * library's callbacks (which run on the library's progress thread): a mutex,
 * a condition variable and the status the callback delivered. Also the
 * monotonic clock the launcher and the nodes use for their timers.
 */
#ifndef SPX_RUN_SYNC_H
#define SPX_RUN_SYNC_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#include <pmix_common.h>

struct spx_run_sync {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool done;
    pmix_status_t status;
};

#define SPX_RUN_SYNC_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0 }

static inline double spx_run_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A pmix_op_cbfunc_t; cbdata is a struct spx_run_sync (borrowed). */
static inline void spx_run_sync_cb(pmix_status_t status, void *cbdata)
{
    struct spx_run_sync *s = cbdata;

    pthread_mutex_lock(&s->m);
    s->status = status;
    s->done = true;
    pthread_cond_signal(&s->c);
    pthread_mutex_unlock(&s->m);
}

/* Wait for the callback of an operation that returned rc; limit > 0 bounds
 * the wait (seconds): on expiry PMIX_ERR_TIMEOUT is returned and s must stay
 * valid, since the callback may still come. */
static inline pmix_status_t spx_run_sync_wait_for(struct spx_run_sync *s, pmix_status_t rc,
                                                  int limit)
{
    struct timespec until;

    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += limit;
    pthread_mutex_lock(&s->m);
    while (!s->done) {
        if (limit <= 0) {
            pthread_cond_wait(&s->c, &s->m);
        } else if (pthread_cond_timedwait(&s->c, &s->m, &until) == ETIMEDOUT) {
            pthread_mutex_unlock(&s->m);
            return PMIX_ERR_TIMEOUT;
        }
    }
    rc = s->status;
    pthread_mutex_unlock(&s->m);
    return rc;
}

static inline pmix_status_t spx_run_sync_wait(struct spx_run_sync *s, pmix_status_t rc)
{
    return spx_run_sync_wait_for(s, rc, 0);
}

#endif /* SPX_RUN_SYNC_H */
