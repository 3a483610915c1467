/* client_state.c - the client's state (struct spx_client, client.h), the
 * bottom of lib/client: every other client file reads it, this file calls
 * none of them. It also holds the tables through which the connection code
 * reaches the handlers of unasked messages and of a lost connection, which
 * the files above set at init.
 */
#include "config.h"
#include "client/client.h"

#include "proto/msg.h"
#include "proto/shm_barrier.h"

struct spx_client spx_client = {.init_lock = PTHREAD_MUTEX_INITIALIZER,
                                .lock = PTHREAD_MUTEX_INITIALIZER,
                                .shmb_lock = PTHREAD_MUTEX_INITIALIZER,
                                .pending = TAILQ_HEAD_INITIALIZER(spx_client.pending),
                                .handlers = TAILQ_HEAD_INITIALIZER(spx_client.handlers)};

/* Set at init, read on the progress thread afterwards (the thread starts
 * after they are set). */
static spx_client_frame_f frame_handlers[SPX_MSG_TYPE_MAX];
static spx_client_lost_f lost_handler;
static spx_client_chain_end_f chain_end_handler;

bool spx_client_initialized(void)
{
    return __atomic_load_n(&spx_client.init_count, __ATOMIC_ACQUIRE) > 0;
}

void spx_client_frames_set(uint8_t type, spx_client_frame_f fn)
{
    if (type < SPX_MSG_TYPE_MAX)
        __atomic_store_n(&frame_handlers[type], fn, __ATOMIC_RELEASE);
}

spx_client_frame_f spx_client_frame_handler(uint8_t type)
{
    return type < SPX_MSG_TYPE_MAX ? __atomic_load_n(&frame_handlers[type], __ATOMIC_ACQUIRE)
                                   : NULL;
}

void spx_client_on_lost_set(spx_client_lost_f fn)
{
    __atomic_store_n(&lost_handler, fn, __ATOMIC_RELEASE);
}

void spx_client_lost(const pmix_proc_t *affected)
{
    spx_client_lost_f fn = __atomic_load_n(&lost_handler, __ATOMIC_ACQUIRE);
    if (fn)
        fn(affected);
}

void spx_client_on_chain_end_set(spx_client_chain_end_f fn)
{
    __atomic_store_n(&chain_end_handler, fn, __ATOMIC_RELEASE);
}

void spx_client_chain_ended(pmix_status_t status, const pmix_proc_t *source,
                            const pmix_info_t *info, size_t ninfo, bool abort, bool lead)
{
    spx_client_chain_end_f fn = __atomic_load_n(&chain_end_handler, __ATOMIC_ACQUIRE);
    if (fn)
        fn(status, source, info, ninfo, abort, lead);
}

long spx_client_local_slot(pmix_rank_t rank)
{
    if (!spx_client.shmb || !spx_client.shmb_ranks)
        return -1;
    size_t lo = 0, hi = spx_shmb_nlocal(spx_client.shmb);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (spx_client.shmb_ranks[mid] == rank)
            return (long)mid;
        if (spx_client.shmb_ranks[mid] < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}
