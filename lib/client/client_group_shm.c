/* client_group_shm.c - a blocking PMIx_Group_construct over every rank of
 * the caller's namespace through the server's shared-memory construct
 * (proto/group_shm.h), when the server offers one: the request goes into
 * this process's slot with one pwrite, the arrival is one atomic increment,
 * the last arrival sends GROUP_LOCAL, everybody waits on the segment's futex
 * and reads the outcome with one pread - no request or reply on the socket.
 *
 * Taken only for what that path does: the whole namespace (as WILDCARD or
 * every rank listed), directives among context id / group info / termination
 * notice, a request that fits its slot, and no other shared-memory construct
 * of this process in progress (another thread's goes through the socket).
 * Otherwise, and whenever the server answers SPX_GSHM_RETRY, the caller uses
 * the socket path (client_group.c): nothing of the construct was started.
 */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "codec/value.h"
#include "proto/group_shm.h"
#include "proto/msg.h"
#include "proto/shm_barrier.h"
#include "types/types.h"
#include "util/log.h"

static struct {
    spx_shmb_t *seg;          /* NULL when the server offers none */
    int fd;                   /* the data file */
    uint32_t nlocal;
    pthread_mutex_t lock;     /* one shared-memory construct of this process at a time */
} gshm = {.fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

void spx_client_gshm_attach(void)
{
    const pmix_value_t *path = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                              PMIX_RANK_WILDCARD, SPX_GSHM_KEY, NULL);
    if (!spx_client.shmb || !path || path->type != PMIX_STRING || !path->data.string ||
        spx_client.job_size == 0)
        return;
    spx_shmb_t *seg = spx_shmb_attach(path->data.string);
    if (!seg)
        return;
    size_t n = strlen(path->data.string);
    char *dpath = malloc(n + sizeof(SPX_GSHM_DATA_SUFFIX));
    int fd = -1;
    if (dpath) {
        memcpy(dpath, path->data.string, n);
        memcpy(dpath + n, SPX_GSHM_DATA_SUFFIX, sizeof(SPX_GSHM_DATA_SUFFIX));
        fd = open(dpath, O_RDWR | O_CLOEXEC);
        free(dpath);
    }
    if (fd < 0 || spx_shmb_nlocal(seg) != spx_shmb_nlocal(spx_client.shmb)) {
        spx_debug("shared-memory construct not used");
        if (fd >= 0)
            close(fd);
        spx_shmb_close(seg);
        return;
    }
    gshm.nlocal = spx_shmb_nlocal(seg);
    gshm.fd = fd;
    gshm.seg = seg;
}

void spx_client_gshm_detach(void)
{
    pthread_mutex_lock(&gshm.lock);
    spx_shmb_close(gshm.seg);
    gshm.seg = NULL;
    if (gshm.fd >= 0)
        close(gshm.fd);
    gshm.fd = -1;
    pthread_mutex_unlock(&gshm.lock);
}

/* Arrives and waits; the generation's status (SPX_GSHM_RETRY included). */
static pmix_status_t arrive_and_wait(uint32_t *gen_out)
{
    spx_shmb_t *b = gshm.seg;
    const volatile bool *lost = &spx_client.conn_lost;
    uint32_t slot = spx_client.shmb_slot;
    for (;;) {
        uint32_t gen = 0, nc = 0;
        pmix_status_t st = PMIX_SUCCESS, rc;
        switch (spx_shmb_arrive(b, slot, false, false, &gen, &nc, &st)) {
        case SPX_SHMB_BROKEN:
            return st;
        case SPX_SHMB_BUSY: /* the previous generation is still being released */
            rc = spx_shmb_wait(b, gen, lost, 0);
            if (rc == PMIX_ERR_UNREACH && *lost)
                return rc;
            continue;
        case SPX_SHMB_WAIT:
            *gen_out = gen;
            return spx_shmb_wait(b, gen, lost, spx_client.shmb_spin_ns);
        case SPX_SHMB_LAST_SELF: /* not for a segment that never completes by itself */
            if (!spx_shmb_close_gather(b, gen)) {
                *gen_out = gen;
                return spx_shmb_wait(b, gen, lost, 0);
            }
            /* fall through */
        case SPX_SHMB_LAST_SERVER: {
            spx_buf_t m;
            spx_buf_init(&m);
            spx_buf_push_u32(&m, gen);
            rc = spx_buf_failed(&m) ? PMIX_ERR_NOMEM
                                    : spx_client_request(SPX_MSG_GROUP_LOCAL, &m, NULL, NULL);
            spx_buf_fini(&m);
            *gen_out = gen;
            /* if it could not be sent the server sees us gone and ends the construct */
            if (rc == PMIX_SUCCESS || rc == PMIX_ERR_UNREACH)
                rc = spx_shmb_wait(b, gen, lost, spx_client.shmb_spin_ns);
            return rc;
        }
        }
    }
}

pmix_status_t spx_client_group_construct_shm(const char *grp, const pmix_proc_t *procs,
                                             size_t nprocs, const pmix_info_t *info,
                                             size_t ninfo, uint8_t **outcome, size_t *noutcome)
{
    bool wildcard;
    if (!gshm.seg || spx_client.singleton || !spx_gshm_directives_ok(info, ninfo) ||
        !spx_gshm_covers(spx_client.myproc.nspace, spx_client.job_size, procs, nprocs,
                         &wildcard))
        return SPX_GSHM_RETRY;
    uint8_t slot[SPX_GSHM_SLOT_BYTES];
    if (!spx_gshm_req_encode(slot, grp, wildcard, info, ninfo))
        return SPX_GSHM_RETRY;
    if (pthread_mutex_trylock(&gshm.lock) != 0)
        return SPX_GSHM_RETRY;
    if (!gshm.seg) {
        pthread_mutex_unlock(&gshm.lock);
        return SPX_GSHM_RETRY;
    }
    uint32_t len;
    memcpy(&len, slot, 4);
    off_t off = (off_t)spx_client.shmb_slot * SPX_GSHM_SLOT_BYTES;
    if (pwrite(gshm.fd, slot, 4 + (size_t)len, off) != (ssize_t)(4 + len)) {
        pthread_mutex_unlock(&gshm.lock);
        return SPX_GSHM_RETRY;
    }
    uint32_t gen = 0;
    pmix_status_t rc = arrive_and_wait(&gen);
    uint8_t *bytes = NULL;
    size_t n = 0;
    /* read before the lock goes: the next generation cannot complete
     * (and overwrite the outcome) before this process arrives in it */
    if (rc == PMIX_SUCCESS && spx_gshm_outcome_read(gshm.fd, gshm.nlocal, gen, &bytes, &n) != 0) {
        spx_warn("group %s: the shared-memory outcome cannot be read", grp);
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    pthread_mutex_unlock(&gshm.lock);
    if (rc != PMIX_SUCCESS)
        return rc;
    *outcome = bytes; /* the caller's */
    *noutcome = n;
    return PMIX_SUCCESS;
}
