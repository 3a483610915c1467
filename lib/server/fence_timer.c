/* fence_timer.c - the timers of a fence engine's trackers (fence.h
 * timer_arm) on the progress thread: the glue between the tracker engine
 * (fence.c) and the two servers' engines that use it (collect.c's fences,
 * group.c's group collectives), below both of them. */
#include "config.h"
#include "server/core.h"
#include "server/fence.h"

#include <stdlib.h>

#include "progress/progress.h"

struct fence_timer {
    struct spx_srv_ctx *ctx;        /* borrowed */
    struct spx_fence_engine *(*engine_of)(struct spx_srv_ctx *ctx);
    spx_timer_t *timer;
    uint64_t id;
};

static void fence_timer_fired(void *arg)
{
    struct fence_timer *t = arg;
    struct spx_fence_engine *e = t->engine_of(t->ctx);
    if (e)
        spx_fence_timeout(e, t->id);
    free(t);
}

void *spx_srv_fence_timer_arm(struct spx_srv_ctx *ctx,
                              struct spx_fence_engine *(*engine_of)(struct spx_srv_ctx *),
                              double seconds, uint64_t id)
{
    struct fence_timer *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    *t = (struct fence_timer){.ctx = ctx, .engine_of = engine_of, .id = id};
    if (!(t->timer = spx_timer_start(seconds, fence_timer_fired, t))) {
        free(t);
        return NULL;
    }
    return t;
}

void spx_srv_fence_timer_cancel(void *handle)
{
    struct fence_timer *t = handle;
    spx_timer_cancel(t->timer);
    free(t);
}
