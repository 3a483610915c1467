/*
 * run_stdin: spmix-run --stdin tool. Each local rank's fd 0 is the read end
 * of a pipe whose write end the node keeps; tools push bytes into it with
 * PMIx_IOF_push, which reaches this node's server and its host's push_stdin
 * upcall (spx_run_stdin_push, on the library's progress thread). The upcall
 * checks the request and queues it; the node's main loop (run_node) moves
 * queued bytes into a cache per rank (PMIX_IOF_CACHE_SIZE, default 1 MiB;
 * PMIX_IOF_DROP_OLDEST / _NEWEST, or back-pressure), writes the cache into
 * the pipe when it is writable (PMIX_IOF_BUFFERING_SIZE / _TIME: in blocks), and calls the push's callback once the bytes
 * are in every target's cache. A zero-byte push, or one carrying
 * PMIX_IOF_COMPLETE, ends the targets' stdin (after its bytes).
 *
 * The work is lib/host's (host/stdin.h, shared with the Slurm plugin); this
 * module is spmix-run's face of it.
 *
 * Threads: spx_run_stdin_push runs on the library's thread; every other
 * function on the node's main thread. Callbacks are called on the main
 * thread, never with the module's lock held.
 */
#ifndef SPX_RUN_STDIN_H
#define SPX_RUN_STDIN_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_server.h>

#define SPX_RUN_STDIN_CACHE_DEFAULT (1024u * 1024u)   /* = SPX_HOST_STDIN_CACHE_DEFAULT */

/* Set up the module before PMIx_server_init. enabled: --stdin tool (without
 * it every push is refused with PMIX_ERR_NOT_AVAILABLE). nspace (copied), the
 * job's size, the node's ranks (local[0..nlocal), copied: slot i is local[i]),
 * wake_fd (borrowed, the main loop's wake pipe), prefix (copied: the start of
 * every log line). With enabled, creates one pipe per local rank. 0 or -1
 * with errno. */
int spx_run_stdin_init(bool enabled, const char *nspace, uint32_t nprocs, const uint32_t *local,
                       uint32_t nlocal, int wake_fd, const char *prefix);

/* The read end rank slot's child dup2()s onto fd 0, or -1 when the rank
 * inherits spmix-run's stdin. Borrowed. */
int spx_run_stdin_child_fd(uint32_t slot);
/* After slot's fork (ok: the child exists): the node closes its copy of the
 * read end; a rank that did not start has no stdin any more. */
void spx_run_stdin_spawned(uint32_t slot, bool ok);

/* The host's push_stdin upcall (pmix_server_stdin_fn_t). Never blocks. */
pmix_status_t spx_run_stdin_push(const pmix_proc_t *source, const pmix_proc_t targets[],
                                 size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                 const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                 void *cbdata);

/* How many poll entries the module needs (the number of local ranks, 0
 * without --stdin tool). */
size_t spx_run_stdin_npoll(void);
/* Fill pfd[0..npoll) before poll(). */
void spx_run_stdin_poll_fill(struct pollfd *pfd);
/* ms until a buffered block must go out anyway (PMIX_IOF_BUFFERING_TIME),
 * -1: no such time. */
int spx_run_stdin_poll_ms(void);
/* After poll() (any wake-up): take queued pushes, cache, write, call back. */
void spx_run_stdin_service(const struct pollfd *pfd);
/* Rank slot is gone (reaped): its stdin ends, its cache goes, pushes still
 * waiting for it complete with PMIX_ERR_UNREACH. */
void spx_run_stdin_rank_gone(uint32_t slot);

/* The job is over, before the server is finalized: every push still held
 * completes with PMIX_ERR_UNREACH, the pipes close, later pushes are refused. */
void spx_run_stdin_close(void);
/* After PMIx_server_finalize: frees what is left. */
void spx_run_stdin_fini(void);

#endif /* SPX_RUN_STDIN_H */
