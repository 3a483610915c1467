/*
 * run_out: --tag-output forwarding for spmix-run. Each child's stdout and
 * stderr arrive on pipes; complete lines are written to our own stdout or
 * stderr prefixed with "[rank] ". A partial last line is flushed at EOF.
 */
#ifndef SPX_RUN_OUT_H
#define SPX_RUN_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spx_run_out {
    int fd;             /* read end, -1 once closed */
    int dest;           /* 1 or 2 */
    uint32_t rank;
    size_t len;
    char buf[4096];
};

/* Init an output stream reading fd (owned from now on: closed at EOF). */
void spx_run_out_init(struct spx_run_out *o, int fd, int dest, uint32_t rank);

/* Read what is available and forward complete lines. Returns false once
 * the stream is closed (EOF or error). */
bool spx_run_out_pump(struct spx_run_out *o);

/* Flush the pending partial line and close the stream. */
void spx_run_out_close(struct spx_run_out *o);

#endif /* SPX_RUN_OUT_H */
