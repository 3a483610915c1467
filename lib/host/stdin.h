/*
 * host/stdin: the ranks' stdin fed by tools' PMIx_IOF_push, for hosts of our
 * server (spmix-run --stdin tool, tools/run_stdin.c; the Slurm plugin's
 * opt-in stdin, plugin/stepd_stdin.c). Each local rank's fd 0 is the read end
 * of a pipe whose write end this module holds. The host's push_stdin upcall
 * (spx_host_stdin_push, library thread) checks a push and queues it; the
 * owner's loop (one thread: spmix-run's node main loop, or the plugin's
 * stdin pump) moves queued bytes into a cache per rank (PMIX_IOF_CACHE_SIZE,
 * default 1 MiB; PMIX_IOF_DROP_OLDEST / _NEWEST, or back-pressure), writes
 * the cache into the pipe when it is writable (PMIX_IOF_BUFFERING_SIZE /
 * _TIME: in blocks), and calls the push's callback once the bytes are in
 * every target's cache. A zero-byte push, or one carrying PMIX_IOF_COMPLETE,
 * ends the targets' stdin (after its bytes).
 *
 * A rank may have a second source, an fd whose bytes are copied into the
 * same cache (the plugin: Slurm's own stdin of the task). It is read only
 * while the cache has room (back-pressure to its writer); its EOF closes that
 * source only. Such a rank's stdin ends once both sources ended (a pushed
 * EOF and the second source's EOF, whichever comes last: nothing either sent
 * is lost), or when the rank closes it or exits. Each source's bytes stay in
 * order; how the two sources interleave is not defined.
 *
 * Pipes: either the module makes them at init (make_pipes: spmix-run forks
 * the ranks itself), or the owner attaches each rank's write end later
 * (spx_host_stdin_attach: the plugin gets it from the task). Pushes to a rank
 * not attached yet wait. A rank whose stdin is a terminal (set_tty) refuses
 * pushes with PMIX_ERR_NOT_SUPPORTED.
 *
 * Threads: spx_host_stdin_push runs on the library's thread; every other
 * function on the owner's loop thread. Callbacks are called on that thread,
 * never with the module's lock held.
 */
#ifndef SPX_HOST_STDIN_H
#define SPX_HOST_STDIN_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_server.h>

#define SPX_HOST_STDIN_CACHE_DEFAULT (1024u * 1024u)

struct spx_host_stdin_cfg {
    const char *nspace;         /* copied */
    uint32_t nprocs;            /* the job's size */
    const uint32_t *local;      /* the node's ranks, slot i is local[i]; copied */
    uint32_t nlocal;
    int wake_fd;                /* borrowed: the owner loop's wake pipe */
    const char *prefix;         /* copied: the start of every log line */
    bool make_pipes;            /* one pipe per rank now (else attach) */
    void (*log)(const char *line);   /* NULL: stderr; any thread */
};

/* Set up before PMIx_server_init. 0 or -1 with errno. Until it ran (and
 * after fini) every function does nothing and npoll is 0. */
int spx_host_stdin_init(const struct spx_host_stdin_cfg *cfg);
bool spx_host_stdin_enabled(void);
/* The slot of a local rank, or -1. */
int spx_host_stdin_slot(uint32_t rank);

/* make_pipes: the read end rank slot's child dup2()s onto fd 0. Borrowed. */
int spx_host_stdin_child_fd(uint32_t slot);
/* make_pipes, after slot's fork (ok: the child exists): the module closes
 * its copy of the read end; a rank that did not start has no stdin. */
void spx_host_stdin_spawned(uint32_t slot, bool ok);

/* !make_pipes: slot's pipe write end wfd and its second source src (-1:
 * none); both taken (closed by the module, made non-blocking here). -1 when
 * the slot is unknown or was attached already (the fds are then closed). */
int spx_host_stdin_attach(uint32_t slot, int wfd, int src);
/* slot's stdin is a terminal: pushes to it fail with PMIX_ERR_NOT_SUPPORTED. */
void spx_host_stdin_set_tty(uint32_t slot);

/* The host's push_stdin upcall (pmix_server_stdin_fn_t). Never blocks. */
pmix_status_t spx_host_stdin_push(const pmix_proc_t *source, const pmix_proc_t targets[],
                                  size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                  const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata);

/* How many poll entries the module needs (2 per local rank). */
size_t spx_host_stdin_npoll(void);
/* Fill pfd[0..npoll) before poll(). */
void spx_host_stdin_poll_fill(struct pollfd *pfd);
/* ms until a buffered block must go out anyway (PMIX_IOF_BUFFERING_TIME),
 * -1: no such time. */
int spx_host_stdin_poll_ms(void);
/* After poll() (any wake-up; pfd may be NULL): take queued pushes, read the
 * second sources, cache, write, call back. */
void spx_host_stdin_service(const struct pollfd *pfd);
/* Rank slot is gone (reaped): its stdin ends, its cache goes, pushes still
 * waiting for it complete with PMIX_ERR_UNREACH. */
void spx_host_stdin_rank_gone(uint32_t slot);

/* The job is over, before the server is finalized: every push still held
 * completes with PMIX_ERR_UNREACH, the pipes close, later pushes are refused. */
void spx_host_stdin_close(void);
/* After PMIx_server_finalize: frees what is left. */
void spx_host_stdin_fini(void);

#endif /* SPX_HOST_STDIN_H */
