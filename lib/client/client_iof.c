/* client_iof.c - PMIx_IOF_push: bytes to the stdin of processes of a job,
 * through this process's server (proto/msg.h IOF_PUSH), which hands them to
 * its host; behaviour: PMIx_IOF_push(3).
 *
 * A push is cut into requests of at most SPX_IOF_MAX_CHUNK bytes, at most
 * PUSH_WINDOW of them in flight; each is answered when the host took its
 * bytes, so a pusher is held to the pace of the slowest target when the host
 * applies back-pressure. The callback (or the blocking return) comes when
 * every request was answered: bo is no longer needed - not "delivered".
 * A zero-byte push, or PMIX_IOF_COMPLETE, ends the targets' stdin (the last
 * request carries SPX_IOF_F_EOF). PMIX_IOF_PUSH_STDIN starts a thread that
 * reads this process's stdin (a file, pipe or terminal) and pushes what it
 * reads to the targets, one chunk after another, until end of file (then
 * EOF to the targets) or a push with PMIX_IOF_COMPLETE (which stops it and
 * sends EOF); PMIx_Finalize stops it too. One such forwarding at a time.
 * The blocking form on the progress thread answers PMIX_ERR_WOULD_BLOCK.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"

#define PUSH_WINDOW 4
#define STDIN_CHUNK (64u << 10)

static const char *const push_directives[] = {
    PMIX_IOF_CACHE_SIZE, PMIX_IOF_DROP_OLDEST, PMIX_IOF_DROP_NEWEST, PMIX_IOF_BUFFERING_SIZE,
    PMIX_IOF_BUFFERING_TIME, PMIX_IOF_PUSH_STDIN, PMIX_IOF_COMPLETE, NULL};

/* One push in flight: its bytes are borrowed from the caller until done. */
struct push {
    pmix_proc_t *targets;     /* owned copy */
    size_t ntargets;
    pmix_info_t *dirs;        /* owned copy (without PUSH_STDIN/COMPLETE) */
    size_t ndirs;
    const char *bytes;        /* borrowed: the caller's bo */
    size_t size, sent;        /* bytes, and how many went out in requests */
    bool eof;                 /* the last request ends the targets' stdin */
    bool eof_sent;
    unsigned inflight;
    pmix_status_t status;     /* first failure */
    uint32_t server;          /* where every chunk goes: the primary at the call */
    pmix_op_cbfunc_t cb;
    void *cbdata;
};

static void push_free(struct push *ps)
{
    free(ps->targets);
    spx_info_array_free(ps->dirs, ps->ndirs);
    free(ps);
}

static void push_pump(struct push *ps);

static void push_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct push *ps = arg;
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (spx_buf_failed(payload) || spx_buf_finish(payload) != 0)
            status = PMIX_ERR_UNPACK_FAILURE;
    }
    if (status != PMIX_SUCCESS && ps->status == PMIX_SUCCESS)
        ps->status = status;
    ps->inflight--;
    push_pump(ps);
}

/* Sends what the window allows; calls back and frees once all is answered.
 * Progress thread, or the caller's before any request went out. */
static void push_pump(struct push *ps)
{
    while (ps->status == PMIX_SUCCESS && ps->inflight < PUSH_WINDOW &&
           (ps->sent < ps->size || (ps->eof && !ps->eof_sent))) {
        size_t n = ps->size - ps->sent;
        if (n > SPX_IOF_MAX_CHUNK)
            n = SPX_IOF_MAX_CHUNK;
        bool last = ps->sent + n == ps->size;
        uint8_t flags = last && ps->eof ? SPX_IOF_F_EOF : 0;
        spx_buf_t b;
        spx_buf_init(&b);
        spx_codec_push_proc_array(&b, ps->targets, ps->ntargets);
        spx_codec_push_info_array(&b, ps->dirs, ps->ndirs);
        spx_buf_push_u8(&b, flags);
        spx_buf_push_bytes(&b, ps->bytes ? ps->bytes + ps->sent : "", n);
        if (spx_buf_failed(&b)) {
            spx_buf_fini(&b);
            ps->status = PMIX_ERR_NOMEM;
            break;
        }
        pmix_status_t rc = spx_client_request_to(ps->server, SPX_MSG_IOF_PUSH, &b, push_reply, ps);
        if (rc != PMIX_SUCCESS) {
            ps->status = rc;
            break;
        }
        ps->sent += n;
        ps->inflight++;
        if (flags)
            ps->eof_sent = true;
        if (last && !ps->eof)
            break;
    }
    if (ps->inflight == 0 &&
        (ps->status != PMIX_SUCCESS || (ps->sent == ps->size && (!ps->eof || ps->eof_sent)))) {
        if (ps->cb)
            ps->cb(ps->status, ps->cbdata);
        push_free(ps);
    }
}

static void push_start_on_thread(void *arg)
{
    push_pump(arg);
}

/* A push of size bytes (borrowed until cb) to the targets through server;
 * cb(status) once every request was answered. The struct is freed after cb. */
static pmix_status_t push_start(uint32_t server, const pmix_proc_t *targets, size_t ntargets,
                                const void *bytes, size_t size, bool eof,
                                const pmix_info_t *dirs, size_t ndirs, pmix_op_cbfunc_t cb,
                                void *cbdata)
{
    struct push *ps = calloc(1, sizeof(*ps));
    if (!ps || !(ps->targets = malloc(ntargets * sizeof(*targets)))) {
        free(ps);
        return PMIX_ERR_NOMEM;
    }
    memcpy(ps->targets, targets, ntargets * sizeof(*targets));
    ps->ntargets = ntargets;
    size_t keep = 0;
    for (size_t i = 0; i < ndirs; i++)
        keep += !PMIX_CHECK_KEY(&dirs[i], PMIX_IOF_PUSH_STDIN) &&
                !PMIX_CHECK_KEY(&dirs[i], PMIX_IOF_COMPLETE);
    if (keep && !(ps->dirs = calloc(keep, sizeof(*ps->dirs)))) {
        push_free(ps);
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < ndirs; i++)
        if (!PMIX_CHECK_KEY(&dirs[i], PMIX_IOF_PUSH_STDIN) &&
            !PMIX_CHECK_KEY(&dirs[i], PMIX_IOF_COMPLETE))
            PMIx_Info_xfer(&ps->dirs[ps->ndirs++], &dirs[i]);
    ps->bytes = bytes;
    ps->size = size;
    ps->eof = eof;
    ps->server = server;
    ps->cb = cb;
    ps->cbdata = cbdata;
    if (spx_progress_shift(push_start_on_thread, ps) != 0) {
        push_free(ps);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return PMIX_SUCCESS;
}

/* ---- forwarding this process's stdin (PMIX_IOF_PUSH_STDIN) ---- */

static struct {
    pthread_mutex_t lock;
    bool running;             /* a forwarding thread exists (join it) */
    bool finished;            /* it reads no more (stdin's end, a failure, a stop) */
    pthread_t thread;
    int wake[2];              /* the thread polls wake[0] with stdin */
    bool eof_on_stop;         /* a stop also ends the targets' stdin (finalize) */
    uint32_t server;          /* the server it pushes through */
    pmix_proc_t *targets;     /* owned by the thread */
    size_t ntargets;
    pmix_info_t *dirs;        /* owned by the thread */
    size_t ndirs;
} fwd = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = {-1, -1}};

static void wait_cb(pmix_status_t status, void *cbdata)
{
    spx_wait_signal(cbdata, status);
}

/* Pushes and waits (not on the progress thread). */
static pmix_status_t push_wait(const void *bytes, size_t n, bool eof)
{
    spx_wait_t w;
    spx_wait_init(&w);
    pmix_status_t rc = push_start(fwd.server, fwd.targets, fwd.ntargets, bytes, n, eof,
                                  fwd.dirs, fwd.ndirs, wait_cb, &w);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&w);
    spx_wait_fini(&w);
    return rc;
}

static void *forward_stdin(void *arg)
{
    (void)arg;
    char *buf = malloc(STDIN_CHUNK);
    pmix_status_t rc = buf ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    bool stopped = false;
    while (rc == PMIX_SUCCESS) {
        struct pollfd pfd[2] = {{.fd = 0, .events = POLLIN}, {.fd = fwd.wake[0], .events = POLLIN}};
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            rc = PMIX_ERR_IOF_FAILURE;
            break;
        }
        if (pfd[1].revents) {
            stopped = true; /* COMPLETE (its push ends the stream) or finalize */
            break;
        }
        ssize_t n = read(0, buf, STDIN_CHUNK);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            rc = n < 0 ? PMIX_ERR_IOF_FAILURE : PMIX_SUCCESS;
            break;
        }
        rc = push_wait(buf, (size_t)n, false);
    }
    free(buf);
    pthread_mutex_lock(&fwd.lock);
    fwd.finished = true; /* a later PUSH_STDIN may start a new one (after a join) */
    bool eof = rc == PMIX_SUCCESS && (!stopped || fwd.eof_on_stop);
    pthread_mutex_unlock(&fwd.lock);
    if (rc != PMIX_SUCCESS)
        spx_warn("PMIx_IOF_push: forwarding stdin stopped: %s", PMIx_Error_string(rc));
    else if (eof)
        push_wait(NULL, 0, true); /* end of file: the targets' stdin ends too */
    return NULL;
}

/* Frees what a forwarding holds (its wake pipe, targets, directives); fwd.lock held. */
static void forward_state_clear(void)
{
    if (fwd.wake[0] >= 0) {
        close(fwd.wake[0]);
        close(fwd.wake[1]);
    }
    fwd.wake[0] = fwd.wake[1] = -1;
    free(fwd.targets);
    spx_info_array_free(fwd.dirs, fwd.ndirs);
    fwd.targets = NULL;
    fwd.dirs = NULL;
    fwd.ntargets = fwd.ndirs = 0;
}

/* Joins the forwarding thread and frees its state; fwd.lock held (released
 * while joining: the thread takes it once, to say it reads no more). */
static void forward_reap_locked(void)
{
    pthread_mutex_unlock(&fwd.lock); /* the thread takes it to set finished */
    pthread_join(fwd.thread, NULL);
    pthread_mutex_lock(&fwd.lock);
    fwd.running = fwd.finished = false;
    forward_state_clear();
}

void spx_client_iof_stop(bool send_eof, uint32_t server)
{
    pthread_mutex_lock(&fwd.lock);
    if (!fwd.running || (server && fwd.server != server)) {
        pthread_mutex_unlock(&fwd.lock);
        return;
    }
    fwd.eof_on_stop = send_eof; /* read by the thread after the wake-up */
    if (!fwd.finished && write(fwd.wake[1], "x", 1) < 0)
        spx_warn("PMIx_IOF_push: cannot wake the stdin forwarding: %s", strerror(errno));
    forward_reap_locked();
    pthread_mutex_unlock(&fwd.lock);
}

static pmix_status_t forward_start(uint32_t server, const pmix_proc_t *targets,
                                   size_t ntargets, const pmix_info_t *dirs, size_t ndirs)
{
    pthread_mutex_lock(&fwd.lock);
    if (fwd.running && fwd.finished)
        forward_reap_locked(); /* the last one ended by itself */
    if (fwd.running) {
        pthread_mutex_unlock(&fwd.lock);
        spx_error("PMIx_IOF_push: stdin is already being forwarded (PMIX_IOF_COMPLETE first)");
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = PMIX_ERR_NOMEM;
    fwd.targets = malloc(ntargets * sizeof(*targets));
    if (fwd.targets && pipe2(fwd.wake, O_CLOEXEC) == 0) {
        memcpy(fwd.targets, targets, ntargets * sizeof(*targets));
        fwd.ntargets = ntargets;
        fwd.server = server;
        fwd.ndirs = 0;
        fwd.dirs = ndirs ? calloc(ndirs, sizeof(*fwd.dirs)) : NULL;
        for (size_t i = 0; fwd.dirs && i < ndirs; i++)
            if (!PMIX_CHECK_KEY(&dirs[i], PMIX_IOF_PUSH_STDIN) &&
                !PMIX_CHECK_KEY(&dirs[i], PMIX_IOF_COMPLETE))
                PMIx_Info_xfer(&fwd.dirs[fwd.ndirs++], &dirs[i]);
        if ((!ndirs || fwd.dirs) && pthread_create(&fwd.thread, NULL, forward_stdin, NULL) == 0) {
            fwd.running = true;
            rc = PMIX_SUCCESS;
        }
    }
    if (rc != PMIX_SUCCESS)
        forward_state_clear();
    pthread_mutex_unlock(&fwd.lock);
    return rc;
}

/* Does the running forwarding feed exactly these targets (in any order)? */
static bool forward_feeds(const pmix_proc_t *targets, size_t n)
{
    pthread_mutex_lock(&fwd.lock);
    bool same = fwd.running && !fwd.finished && fwd.ntargets == n;
    for (size_t i = 0; same && i < n; i++) {
        bool found = false;
        for (size_t k = 0; !found && k < n; k++)
            found = PMIX_CHECK_PROCID(&targets[i], &fwd.targets[k]) &&
                    targets[i].rank == fwd.targets[k].rank;
        same = found;
    }
    pthread_mutex_unlock(&fwd.lock);
    return same;
}

/* ---- the call ---- */

SPX_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                       pmix_byte_object_t *bo, const pmix_info_t directives[],
                                       size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!cbfunc && spx_progress_guard("PMIx_IOF_push") != PMIX_SUCCESS)
        return PMIX_ERR_WOULD_BLOCK;
    if ((ndirs && !directives) || (ntargets && !targets) || (bo && bo->size && !bo->bytes))
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = spx_directives_check("PMIx_IOF_push", directives, ndirs, push_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    bool complete = spx_info_flag(directives, ndirs, PMIX_IOF_COMPLETE);
    bool fwd_stdin = spx_info_flag(directives, ndirs, PMIX_IOF_PUSH_STDIN);
    if (!bo && !complete && !fwd_stdin)
        return PMIX_ERR_BAD_PARAM; /* nothing to do */
    if (spx_client.singleton)
        return PMIX_ERR_UNREACH; /* no server: nobody to push to */
    if (complete && fwd_stdin)
        return PMIX_ERR_BAD_PARAM;
    if (complete && cbfunc && spx_progress_on_thread())
        return PMIX_ERR_WOULD_BLOCK; /* stopping the forwarding waits for its thread */
    /* COMPLETE ends the forwarding of stdin when it names the forwarding's
     * targets (this push then sends their EOF) or none (EOF from the stop);
     * to other targets it is only their EOF */
    if (complete && ntargets == 0) {
        spx_client_iof_stop(true, 0);
        return bo ? PMIX_ERR_BAD_PARAM : PMIX_OPERATION_SUCCEEDED;
    }
    if (complete && forward_feeds(targets, ntargets))
        spx_client_iof_stop(false, 0);
    if (bo && ntargets == 0)
        return PMIX_ERR_BAD_PARAM;
    if (fwd_stdin && ntargets == 0)
        return PMIX_ERR_BAD_PARAM;
    uint32_t server = spx_client_primary_id(); /* a push stays with it (a tool's primary) */
    if (server == 0)
        return PMIX_ERR_UNREACH;
    if (fwd_stdin &&
        (rc = forward_start(server, targets, ntargets, directives, ndirs)) != PMIX_SUCCESS)
        return rc;
    bool eof = complete || (bo && bo->size == 0);
    if (!bo && !eof) /* PUSH_STDIN alone: started, nothing of the caller's held */
        return PMIX_OPERATION_SUCCEEDED;
    const void *bytes = bo ? bo->bytes : NULL;
    size_t size = bo ? bo->size : 0;
    if (cbfunc)
        return push_start(server, targets, ntargets, bytes, size, eof, directives, ndirs, cbfunc,
                          cbdata);
    spx_wait_t w;
    spx_wait_init(&w);
    rc = push_start(server, targets, ntargets, bytes, size, eof, directives, ndirs, wait_cb, &w);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&w);
    spx_wait_fini(&w);
    return rc;
}
