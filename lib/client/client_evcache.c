/* client_evcache.c - the events a process keeps for handlers registered later.
 *
 * As in OpenPMIx, a PMIX_RANGE_PROC_LOCAL event the process raises itself
 * (client, singleton or server process) is kept unless its info has a true
 * PMIX_EVENT_DO_NOT_CACHE, whether or not a handler ran for it. At most
 * SPX_EVCACHE_MAX events are kept (OpenPMIx's max_events default), the oldest
 * going first when full, and none older than SPX_EVCACHE_AGE seconds (its
 * event_eviction_time default; dropped lazily, no timer). A handler
 * registered later gets every kept event it takes, oldest first, and each
 * leaves the cache then: a kept event reaches one later handler, once
 * (client_event.c runs it on that handler alone).
 *
 * Progress thread only.
 */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "client/client.h"
#include "types/types.h"
#include "util/log.h"

#define SPX_EVCACHE_MAX 512
#define SPX_EVCACHE_AGE 120.0 /* s */

static TAILQ_HEAD(, spx_evkept) kept = TAILQ_HEAD_INITIALIZER(kept); /* owned; oldest first */
static size_t nkept;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void spx_evcache_free(struct spx_evkept *e)
{
    if (!e)
        return;
    spx_info_array_free(e->info, e->ninfo);
    free(e);
}

static void drop(struct spx_evkept *e)
{
    TAILQ_REMOVE(&kept, e, link);
    nkept--;
    spx_evcache_free(e);
}

/* Drops the events past their age (they are in age order). */
static void expire(double now)
{
    struct spx_evkept *e;
    while ((e = TAILQ_FIRST(&kept)) != NULL && now - e->when > SPX_EVCACHE_AGE)
        drop(e);
}

void spx_evcache_keep(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t *info,
                      size_t ninfo)
{
    if (spx_info_flag(info, ninfo, PMIX_EVENT_DO_NOT_CACHE))
        return;
    struct spx_evkept *e = calloc(1, sizeof(*e));
    if (!e || spx_info_array_dup(&e->info, info, ninfo) != PMIX_SUCCESS) {
        free(e);
        spx_warn("event %s: out of memory, not kept for handlers registered later",
                 PMIx_Error_string(status));
        return;
    }
    e->ninfo = ninfo;
    e->status = status;
    if (source)
        e->source = *source;
    e->nondefault = spx_info_flag(info, ninfo, PMIX_EVENT_NON_DEFAULT);
    e->when = now_s();
    expire(e->when);
    if (nkept == SPX_EVCACHE_MAX)
        drop(TAILQ_FIRST(&kept));
    TAILQ_INSERT_TAIL(&kept, e, link);
    nkept++;
}

struct spx_evkept *spx_evcache_take(spx_evcache_want_f want, void *arg)
{
    expire(now_s());
    struct spx_evkept *e;
    TAILQ_FOREACH(e, &kept, link)
        if (want(e, arg)) {
            TAILQ_REMOVE(&kept, e, link);
            nkept--;
            return e;
        }
    return NULL;
}

void spx_evcache_clear(void)
{
    struct spx_evkept *e;
    while ((e = TAILQ_FIRST(&kept)) != NULL)
        drop(e);
}
