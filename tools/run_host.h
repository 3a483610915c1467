/*
 * run_host: the host module (pmix_server_module_t) spmix-run hands to
 * PMIx_server_init, for one job on one node.
 *
 * The upcalls run on the PMIx library's progress thread and never block: they
 * answer at once (fence, publish, query, ...) or record what the main thread
 * must act on (an abort) and wake it by writing a byte to wake_fd. The main
 * thread reads that state back with the accessors below.
 */
#ifndef SPX_RUN_HOST_H
#define SPX_RUN_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_server.h>

/* Set up the job the module serves: nspace (copied), nprocs ranks, and the
 * write end of the main loop's wake pipe (borrowed, must stay open until
 * spx_run_host_fini). Returns 0, or -1 with errno. */
int spx_run_host_init(const char *nspace, uint32_t nprocs, int wake_fd);
void spx_run_host_fini(void);

/* The module to pass to PMIx_server_init (static storage). */
pmix_server_module_t *spx_run_host_module(void);

/* Did rank connect / finalize? (safe from any thread) */
bool spx_run_host_connected(uint32_t rank);
bool spx_run_host_finalized(uint32_t rank);

/* Take the first recorded PMIx_Abort, if any not taken yet: fills rank,
 * status and msg (NUL-terminated, truncated to len). */
bool spx_run_host_take_abort(uint32_t *rank, int *status, char *msg, size_t len);

#endif /* SPX_RUN_HOST_H */
