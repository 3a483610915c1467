/*
 * run_clock: the monotonic clock the spmix-run launcher and its nodes use
 * for their timers (grace periods, --timeout).
 */
#ifndef SPX_RUN_CLOCK_H
#define SPX_RUN_CLOCK_H

#include <time.h>

static inline double spx_run_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif /* SPX_RUN_CLOCK_H */
