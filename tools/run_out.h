/*
 * run_out: forwarding of children's stdout and stderr for spmix-run, when
 * they arrive on pipes: with --tag-output, complete lines are written to our
 * own stdout or stderr prefixed with "[rank] " (a partial last line is
 * flushed at EOF); with --output-tap (tap), the bytes are written on as they
 * are (or tagged, with both options) and also handed to this node's PMIx
 * server (PMIx_server_IOF_deliver) for the tools that pull them.
 */
#ifndef SPX_RUN_OUT_H
#define SPX_RUN_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

struct spx_run_out {
    int fd;             /* read end, -1 once closed */
    int dest;           /* 1 or 2 */
    uint32_t rank;
    bool tag;           /* --tag-output: lines prefixed "[rank] " */
    bool tap;           /* --output-tap: also PMIx_server_IOF_deliver */
    pmix_proc_t src;    /* the rank, for the server */
    pmix_iof_channel_t channel;
    char *chunk;        /* untagged reads (owned; handed to the server while it
                         * delivers them, then a new one is made) */
    size_t len;
    char buf[4096];
};

/* Init an output stream reading fd (owned from now on: closed at EOF).
 * nspace: copied. channel: PMIX_FWD_STDOUT_CHANNEL or _STDERR_CHANNEL. */
void spx_run_out_init(struct spx_run_out *o, int fd, int dest, uint32_t rank, bool tag, bool tap,
                      const char *nspace, pmix_iof_channel_t channel);

/* Read what is available and forward it. Returns false once the stream is
 * closed (EOF or error). */
bool spx_run_out_pump(struct spx_run_out *o);

/* Flush the pending partial line, tell the server the stream ended (tap),
 * and close the stream. */
void spx_run_out_close(struct spx_run_out *o);

#endif /* SPX_RUN_OUT_H */
