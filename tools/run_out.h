/*
 * run_out: forwarding of children's stdout and stderr for spmix-run, when
 * they arrive on pipes (always, unless --unbuffered without --output-tap):
 * by default by whole lines, as srun does - a partial line is held per rank
 * and per stream until its newline (or its stream's end, or until it is
 * SPX_RUN_OUT_MAX_LINE long) so lines of different ranks never mix; with
 * --tag-output each line prefixed "[rank] "; with --unbuffered (raw) the
 * bytes go on as they are read. With --output-tap (tap) the bytes, as the
 * rank wrote them, are also handed to this node's PMIx server
 * (PMIx_server_IOF_deliver) for the tools that pull them.
 */
#ifndef SPX_RUN_OUT_H
#define SPX_RUN_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* A partial line longer than this is written on without waiting for its end. */
#define SPX_RUN_OUT_MAX_LINE (64u << 10)

struct spx_run_out {
    int fd;             /* read end, -1 once closed */
    int dest;           /* 1 or 2 (or the launcher's stderr) */
    uint32_t rank;
    bool tag;           /* --tag-output: lines prefixed "[rank] " */
    bool lines;         /* by whole lines (not --unbuffered) */
    bool tap;           /* --output-tap: also PMIx_server_IOF_deliver */
    pmix_proc_t src;    /* the rank, for the server */
    pmix_iof_channel_t channel;
    char *chunk;        /* raw reads (owned; handed to the server while it
                         * delivers them, then a new one is made) */
    char *part;         /* lines: the partial line held, plen bytes of pcap
                         * (owned; grown up to SPX_RUN_OUT_MAX_LINE) */
    size_t plen, pcap;
};

/* Init an output stream reading fd (owned from now on: closed at EOF).
 * nspace: copied. channel: PMIX_FWD_STDOUT_CHANNEL or _STDERR_CHANNEL.
 * tag implies lines. */
void spx_run_out_init(struct spx_run_out *o, int fd, int dest, uint32_t rank, bool tag,
                      bool lines, bool tap, const char *nspace, pmix_iof_channel_t channel);

/* Read what is available and forward it. Returns false once the stream is
 * closed (EOF or error). */
bool spx_run_out_pump(struct spx_run_out *o);

/* Flush the pending partial line, tell the server the stream ended (tap),
 * and close the stream. */
void spx_run_out_close(struct spx_run_out *o);

#endif /* SPX_RUN_OUT_H */
