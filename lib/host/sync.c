/*
 * host/sync: the callback/wait pair of host/sync.h. The callback stores the
 * status and signals under the mutex; the waiter sleeps on the condition
 * variable (CLOCK_REALTIME deadline when bounded).
 */
#include "config.h"
#include "host/sync.h"

#include <errno.h>
#include <time.h>

void spx_host_sync_cb(pmix_status_t status, void *cbdata)
{
    struct spx_host_sync *s = cbdata;

    pthread_mutex_lock(&s->m);
    s->status = status;
    s->done = true;
    pthread_cond_signal(&s->c);
    pthread_mutex_unlock(&s->m);
}

pmix_status_t spx_host_sync_wait(struct spx_host_sync *s, pmix_status_t rc, int limit)
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
        } else if (pthread_cond_timedwait(&s->c, &s->m, &until) == ETIMEDOUT && !s->done) {
            pthread_mutex_unlock(&s->m);
            return PMIX_ERR_TIMEOUT;
        }
    }
    rc = s->status;
    pthread_mutex_unlock(&s->m);
    return rc;
}
