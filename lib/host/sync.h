/*
 * host/sync: a host's main thread waits here for the server library's
 * callbacks (pmix_op_cbfunc_t, run on the library's progress thread): a
 * mutex, a condition variable and the status the callback delivered.
 * Never used on the progress thread itself (it would wait for itself).
 *
 * Why a lock, when only the client's documented locks should remain: this
 * object exists to carry one result across threads. The waiter is the
 * host's own thread (spmix-run's main thread; in the plugin, the
 * slurmstepd thread that runs the MPI hooks), which the library does not
 * own and which must sleep until the progress thread calls back; the
 * library offers no event loop the host could run on instead, and sleeping
 * needs a condition variable, which needs its mutex. The mutex guards only
 * done and status, is held for a few instructions on either side and never
 * across a call into the library.
 */
#ifndef SPX_HOST_SYNC_H
#define SPX_HOST_SYNC_H

#include <pthread.h>
#include <stdbool.h>
#include <pmix_common.h>

struct spx_host_sync {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool done;
    pmix_status_t status;
};

#define SPX_HOST_SYNC_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0 }

/* A pmix_op_cbfunc_t; cbdata is a struct spx_host_sync (borrowed: it must
 * stay valid until this runs). */
void spx_host_sync_cb(pmix_status_t status, void *cbdata);

/*
 * Wait for the callback of a non-blocking call that returned rc:
 * PMIX_OPERATION_SUCCEEDED is PMIX_SUCCESS at once (no callback comes), any
 * other error is returned as it is; PMIX_SUCCESS waits for the callback and
 * returns its status. limit > 0 bounds the wait (seconds): on expiry
 * PMIX_ERR_TIMEOUT is returned and s must stay valid, since the callback may
 * still come. limit <= 0 waits without bound.
 */
pmix_status_t spx_host_sync_wait(struct spx_host_sync *s, pmix_status_t rc, int limit);

#endif /* SPX_HOST_SYNC_H */
