/*
 * host/stdin: the ranks' stdin fed by tools (spmix-run --stdin tool, the
 * Slurm plugin's opt-in stdin; see stdin.h): the pump, which moves bytes
 * between fds on the owner's loop. What each rank's cache keeps and drops
 * is host/stdin_cache.c's (no I/O there); this file holds the pipes, the
 * second sources, the upcall's queue and lock, and the callbacks.
 *
 * Data flow: the push_stdin upcall (library thread) checks a push (targets of
 * this job, directives), notes an EOF it asks for and appends one struct
 * spx_stdin_push to the incoming queue (lock), then wakes the owner's loop.
 * The loop (spx_host_stdin_service) takes the queue and hands each push to
 * its local targets' caches, where it waits until its bytes enter the cache
 * as its policy allows (stdin_cache.h: back-pressure, or dropping the newest
 * or oldest bytes while the pipe is full). A target's second source (src:
 * Slurm's stdin of the task) is read into the same cache while it has room,
 * never dropped; while the cache is empty and no push waits, splice(2) moves
 * its bytes straight into the pipe. The cache is written into the rank's
 * pipe (non-blocking) whenever it is writable, as much as the cache says is
 * ready (PMIX_IOF_BUFFERING_SIZE / _TIME: in blocks). A push whose bytes sit
 * in every target's cache is done: its callback runs on the loop's thread,
 * the library's bytes are no longer used. A target whose rank exited, or
 * closed its stdin, ends: its waiting pushes complete with PMIX_ERR_UNREACH,
 * and so do later pushes to it.
 *
 * Locking: S.lock guards the incoming queue, S.closed and each target's
 * eof_req, ended and tty flags (read by the upcall to refuse a push).
 * Everything else belongs to the loop's thread. Callbacks run with the lock
 * released.
 *
 * Ownership: a push borrows the library's byte object until its callback
 * (the library keeps it valid until then); the push itself is freed by the
 * loop's thread right after its callback.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "host/stdin.h"
#include "host/stdin_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SPX_STDIN_READ_MAX (64u * 1024u)   /* one read of a second source */

struct spx_stdin_target {
    uint32_t rank;
    int fd, rfd;                      /* write end (ours), read end until the fork */
    int src;                          /* second source (Slurm's stdin), -1: none */
    bool attached;                    /* fd given (make_pipes: at init) */
    struct spx_stdin_cache cache;     /* what is kept for the rank (stdin_cache.h) */
    bool pipe_full;                   /* the last write met a full pipe */
    bool eof_req, ended, tty;         /* under S.lock (written by the loop's thread) */
    bool tty_logged;                  /* under S.lock */
    bool no_splice;                   /* splice(2) refused these fds: read instead */
};

static struct {
    pthread_mutex_t lock;
    bool enabled, closed;             /* closed: under lock */
    bool make_pipes;
    void (*log)(const char *line);
    char nspace[PMIX_MAX_NSLEN + 1];
    char prefix[64];
    uint32_t nprocs, nlocal;
    int32_t *slot_of;                 /* rank -> slot, -1: another node's */
    struct spx_stdin_target *t;
    struct spx_stdin_push *in_head, *in_tail;   /* under lock */
    struct spx_stdin_done_list done;  /* pushes to call back */
    int wake_fd;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake_fd = -1 };

static double spx_stdin_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void spx_stdin_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void spx_stdin_log(const char *fmt, ...)
{
    char line[512];
    int n = snprintf(line, sizeof(line), "%s", S.prefix);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    if (S.log != NULL)
        S.log(line);
    else
        fprintf(stderr, "%s\n", line);
}

/* ---- set-up ---- */

int spx_host_stdin_init(const struct spx_host_stdin_cfg *cfg)
{
    PMIX_LOAD_NSPACE(S.nspace, cfg->nspace);
    snprintf(S.prefix, sizeof(S.prefix), "%s", cfg->prefix ? cfg->prefix : "");
    S.wake_fd = cfg->wake_fd;
    S.make_pipes = cfg->make_pipes;
    S.log = cfg->log;
    S.slot_of = malloc((cfg->nprocs ? cfg->nprocs : 1) * sizeof(*S.slot_of));
    S.t = calloc(cfg->nlocal ? cfg->nlocal : 1, sizeof(*S.t));
    S.enabled = true;
    if (S.slot_of == NULL || S.t == NULL)
        goto fail;
    S.nprocs = cfg->nprocs;
    for (uint32_t r = 0; r < cfg->nprocs; r++)
        S.slot_of[r] = -1;
    for (uint32_t i = 0; i < cfg->nlocal; i++) {
        struct spx_stdin_target *t = &S.t[i];
        int fds[2];

        if (cfg->local[i] >= cfg->nprocs) {
            errno = EINVAL;
            goto fail;
        }
        t->rank = cfg->local[i];
        t->fd = t->rfd = t->src = -1;
        spx_stdin_cache_init(&t->cache);
        S.slot_of[cfg->local[i]] = (int32_t)i;
        S.nlocal = i + 1;
        if (!cfg->make_pipes)
            continue;
        if (pipe2(fds, O_CLOEXEC) < 0 || fcntl(fds[1], F_SETFL, O_NONBLOCK) < 0)
            goto fail;
        t->rfd = fds[0];
        t->fd = fds[1];
        t->attached = true;
    }
    return 0;
fail:
    spx_stdin_log("cannot set up the ranks' stdin: %s", strerror(errno));
    spx_host_stdin_fini();
    errno = ENOMEM;
    return -1;
}

bool spx_host_stdin_enabled(void)
{
    return S.enabled;
}

int spx_host_stdin_slot(uint32_t rank)
{
    return S.enabled && rank < S.nprocs ? S.slot_of[rank] : -1;
}

int spx_host_stdin_child_fd(uint32_t slot)
{
    return S.enabled && slot < S.nlocal ? S.t[slot].rfd : -1;
}

static void spx_stdin_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- completion ---- */

/* Call back the finished pushes (main thread, no lock held). */
static void spx_stdin_call_back(void)
{
    struct spx_stdin_push *p;

    while ((p = spx_stdin_done_take(&S.done)) != NULL) {
        if (p->cbfunc)
            p->cbfunc(p->status, p->cbdata);
        free(p->slots);
        free(p);
    }
}

/* The stdin of t ends: pipe closed, cache gone, waiting pushes released with
 * st (PMIX_SUCCESS when they were all cached and written: EOF). */
static void spx_stdin_end(struct spx_stdin_target *t, pmix_status_t st, const char *why)
{
    pthread_mutex_lock(&S.lock);
    t->ended = true;
    pthread_mutex_unlock(&S.lock);
    spx_stdin_close_fd(&t->fd);
    spx_stdin_close_fd(&t->rfd);
    spx_stdin_close_fd(&t->src);
    if (t->cache.dropped > 0)
        spx_stdin_log("rank %u: stdin ended (%s); %llu bytes pushed by tools were dropped "
                      "(cache full)", t->rank, why, (unsigned long long)t->cache.dropped);
    if (t->cache.len > 0 && st != PMIX_SUCCESS)
        spx_stdin_log("rank %u: stdin ended (%s) with %zu bytes pushed by tools unread",
                      t->rank, why, t->cache.len);
    spx_stdin_cache_end(&t->cache, st, &S.done);
}

void spx_host_stdin_spawned(uint32_t slot, bool ok)
{
    if (!S.enabled || !S.make_pipes || slot >= S.nlocal)
        return;
    spx_stdin_close_fd(&S.t[slot].rfd);
    if (!ok)
        spx_stdin_end(&S.t[slot], PMIX_ERR_UNREACH, "the rank did not start");
    spx_stdin_call_back();
}

void spx_host_stdin_rank_gone(uint32_t slot)
{
    if (!S.enabled || slot >= S.nlocal || S.t[slot].ended)
        return;
    spx_stdin_end(&S.t[slot], PMIX_ERR_UNREACH, "the rank exited");
    spx_stdin_call_back();
}

int spx_host_stdin_attach(uint32_t slot, int wfd, int src)
{
    struct spx_stdin_target *t = slot < S.nlocal ? &S.t[slot] : NULL;

    if (!S.enabled || t == NULL || t->attached || t->ended || wfd < 0 ||
        fcntl(wfd, F_SETFL, fcntl(wfd, F_GETFL) | O_NONBLOCK) < 0 ||
        (src >= 0 && fcntl(src, F_SETFL, fcntl(src, F_GETFL) | O_NONBLOCK) < 0)) {
        spx_stdin_close_fd(&wfd);
        spx_stdin_close_fd(&src);
        return -1;
    }
    fcntl(wfd, F_SETFD, FD_CLOEXEC);
    if (src >= 0)
        fcntl(src, F_SETFD, FD_CLOEXEC);
    t->fd = wfd;
    t->src = src;
    t->attached = true;
    return 0;
}

void spx_host_stdin_set_tty(uint32_t slot)
{
    if (!S.enabled || slot >= S.nlocal || S.t[slot].attached)
        return;
    pthread_mutex_lock(&S.lock);
    S.t[slot].tty = true;
    pthread_mutex_unlock(&S.lock);
    /* nothing can be written to a terminal: the pushes waiting fail */
    spx_stdin_end(&S.t[slot], PMIX_ERR_NOT_SUPPORTED, "its stdin is a terminal");
    spx_stdin_call_back();
}

/* ---- the upcall (library thread) ---- */

static void spx_stdin_wake(void)
{
    ssize_t rc;

    do {
        rc = write(S.wake_fd, "s", 1);
    } while (rc < 0 && errno == EINTR);   /* EAGAIN: already awake */
}

/* Under the lock: a push to t, whose stdin is a terminal, is refused;
 * logged once per rank. */
static void spx_stdin_tty_refused(struct spx_stdin_target *t)
{
    if (t->tty_logged)
        return;
    t->tty_logged = true;
    spx_stdin_log("rank %u: its stdin is a terminal (srun --pty): pushes to it are refused "
                  "(PMIX_ERR_NOT_SUPPORTED)", t->rank);
}

/* Under the lock: the local slots of targets into p (each once). Targets of
 * this job on another node are skipped: the library routes the push to
 * their node's server, whose host delivers it there. */
static pmix_status_t spx_stdin_targets(struct spx_stdin_push *p, const pmix_proc_t targets[],
                                       size_t ntargets)
{
    unsigned char *seen = calloc(S.nlocal ? S.nlocal : 1, 1);
    bool wildcard = false;

    p->slots = calloc(S.nlocal ? S.nlocal : 1, sizeof(*p->slots));
    if (seen == NULL || p->slots == NULL) {
        free(seen);
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < ntargets; i++) {
        const pmix_proc_t *tp = &targets[i];
        int32_t s;

        if (!PMIX_CHECK_NSPACE(tp->nspace, S.nspace) ||
            (tp->rank != PMIX_RANK_WILDCARD && tp->rank >= S.nprocs)) {
            free(seen);
            return PMIX_ERR_BAD_PARAM;
        }
        if (tp->rank == PMIX_RANK_WILDCARD) {
            wildcard = true;
            continue;
        }
        s = S.slot_of[tp->rank];
        if (s < 0 || seen[s])
            continue;
        if (S.t[s].tty) {
            spx_stdin_tty_refused(&S.t[s]);
            free(seen);
            return PMIX_ERR_NOT_SUPPORTED;   /* srun --pty: a terminal */
        }
        if (S.t[s].ended || S.t[s].eof_req) {
            free(seen);
            return PMIX_ERR_UNREACH;   /* that rank's stdin is over */
        }
        seen[s] = 1;
        p->slots[p->nslots++] = (uint32_t)s;
    }
    if (wildcard) {
        /* every local rank whose stdin is still open; none left: unreachable
         * when this node holds the whole job; with other nodes it is just
         * nothing to do here (their servers answer for their ranks) */
        uint32_t open = 0, tty = 0;
        for (uint32_t s = 0; s < S.nlocal; s++) {
            if (S.t[s].tty) {
                spx_stdin_tty_refused(&S.t[s]);
                tty++;
            }
            if (S.t[s].ended || S.t[s].eof_req)
                continue;
            open++;
            if (!seen[s]) {
                seen[s] = 1;
                p->slots[p->nslots++] = s;
            }
        }
        if (open == 0 && S.nlocal == S.nprocs) {
            free(seen);
            return tty > 0 ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_UNREACH;
        }
    }
    free(seen);
    return PMIX_SUCCESS;
}

pmix_status_t spx_host_stdin_push(const pmix_proc_t *source, const pmix_proc_t targets[],
                                 size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                 const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                 void *cbdata)
{
    struct spx_stdin_push *p;
    pmix_status_t rc;

    (void)source;
    if (!S.enabled)
        return PMIX_ERR_NOT_AVAILABLE;
    if (targets == NULL || ntargets == 0)
        return PMIX_ERR_BAD_PARAM;
    p = calloc(1, sizeof(*p));
    if (p == NULL)
        return PMIX_ERR_NOMEM;
    p->cbfunc = cbfunc;
    p->cbdata = cbdata;
    if (bo != NULL && bo->size > 0) {
        p->data = (const unsigned char *)bo->bytes;
        p->size = bo->size;
    }
    p->eof = p->size == 0;   /* a zero-byte push is EOF */
    rc = spx_stdin_push_directives(p, directives, ndirs);
    pthread_mutex_lock(&S.lock);
    if (rc == PMIX_SUCCESS)
        rc = S.closed ? PMIX_ERR_UNREACH : spx_stdin_targets(p, targets, ntargets);
    if (rc != PMIX_SUCCESS) {
        pthread_mutex_unlock(&S.lock);
        free(p->slots);
        free(p);
        return rc;
    }
    for (uint32_t i = 0; p->eof && i < p->nslots; i++)
        S.t[p->slots[i]].eof_req = true;
    if (S.in_tail)
        S.in_tail->next = p;
    else
        S.in_head = p;
    S.in_tail = p;
    pthread_mutex_unlock(&S.lock);
    spx_stdin_wake();
    return PMIX_SUCCESS;
}

/* ---- the main loop's side ---- */

/* Write what is ready into the pipe until it is written or the pipe is full.
 * Bytes written, or -1 when the rank no longer reads (EPIPE). */
static ssize_t spx_stdin_write(struct spx_stdin_target *t)
{
    size_t total = 0, ready = spx_stdin_cache_ready(&t->cache, spx_stdin_now());

    t->pipe_full = false;
    while (ready > 0) {
        ssize_t w = write(t->fd, t->cache.buf + t->cache.off, ready);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            t->pipe_full = true;
            break;
        }
        if (w <= 0)
            return -1;
        spx_stdin_cache_consumed(&t->cache, (size_t)w);
        ready -= (size_t)w;
        total += (size_t)w;
    }
    return (ssize_t)total;
}

/* The second source's bytes straight into the rank's pipe, when nothing
 * else must go first (cache empty, no pushed bytes queued, no block
 * buffering; a pushed EOF waits for this source's end anyway): splice(2) moves them in the kernel, they never enter this
 * process. 1: bytes moved; 0: not now (EAGAIN: the source is empty or the
 * pipe full; or splice does not take these fds): the caller reads instead;
 * -1: the source ended. */
static int spx_stdin_splice_src(struct spx_stdin_target *t, size_t room)
{
    ssize_t n;

    if (!spx_stdin_cache_bypassable(&t->cache) || t->no_splice)
        return 0;
    do {
        n = splice(t->src, NULL, t->fd, NULL, room, SPLICE_F_NONBLOCK);
    } while (n < 0 && errno == EINTR);
    if (n > 0)
        return 1;
    if (n == 0)
        return -1;
    if (errno != EAGAIN)
        t->no_splice = true;
    return 0;
}

/* The second source's bytes into the rank's pipe (spliced) or t's cache, as
 * many as fit (one read). Its EOF or an error closes that source only. */
static void spx_stdin_read_src(struct spx_stdin_target *t)
{
    size_t room = spx_stdin_cache_room(&t->cache);
    unsigned char tmp[SPX_STDIN_READ_MAX];
    ssize_t n;
    int spliced;

    if (room == 0)
        return;
    spliced = spx_stdin_splice_src(t, room);
    if (spliced > 0)
        return;
    if (spliced < 0) {
        spx_stdin_close_fd(&t->src);
        return;
    }
    if (room > sizeof(tmp))
        room = sizeof(tmp);
    do {
        n = read(t->src, tmp, room);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN)
        return;
    if (n <= 0) {
        /* that source is over; the rank's stdin ends with a pushed EOF (or
         * now, when one came already: spx_stdin_pump) */
        spx_stdin_close_fd(&t->src);
        return;
    }
    if (spx_stdin_cache_put(&t->cache, tmp, (size_t)n, spx_stdin_now()) < 0)
        spx_stdin_end(t, PMIX_ERR_NOMEM, "out of memory");
}

static void spx_stdin_pump(struct spx_stdin_target *t, short revents, short src_revents)
{
    bool moved;
    int err = 0;

    if (t->fd < 0)
        return;
    if (revents & (POLLERR | POLLNVAL)) {
        spx_stdin_end(t, PMIX_ERR_UNREACH, "the rank closed it");
        return;
    }
    if (t->src >= 0 && (src_revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) {
        spx_stdin_read_src(t);
        if (t->fd < 0)
            return;
    }
    /* write first: a drop policy drops only while the pipe takes nothing */
    do {
        if (spx_stdin_write(t) < 0) {
            spx_stdin_end(t, PMIX_ERR_UNREACH, "the rank closed it");
            return;
        }
        moved = spx_stdin_cache_admit(&t->cache, t->pipe_full, spx_stdin_now(), &S.done, &err);
        if (err < 0) {
            spx_stdin_end(t, PMIX_ERR_NOMEM, "out of memory");
            return;
        }
    } while (moved);
    /* ends once both sources did: the pushed EOF and the second source's */
    if (spx_stdin_cache_drained_to_eof(&t->cache) && t->src < 0)
        spx_stdin_end(t, PMIX_SUCCESS, "EOF pushed");
}

/* Hand a new push to its targets' queues. */
static void spx_stdin_distribute(struct spx_stdin_push *p)
{
    p->left = p->nslots + 1;   /* + 1: held until every target has it */
    for (uint32_t i = 0; i < p->nslots; i++) {
        struct spx_stdin_target *t = &S.t[p->slots[i]];

        if (t->ended)   /* a rank not attached yet keeps its pushes */
            spx_stdin_push_release(p, t->tty ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_UNREACH,
                                   &S.done);
        else if (spx_stdin_cache_enqueue(&t->cache, p) < 0)
            spx_stdin_push_release(p, PMIX_ERR_NOMEM, &S.done);
    }
    spx_stdin_push_release(p, PMIX_SUCCESS, &S.done);
}

static struct spx_stdin_push *spx_stdin_take_incoming(void)
{
    struct spx_stdin_push *list;

    pthread_mutex_lock(&S.lock);
    list = S.in_head;
    S.in_head = S.in_tail = NULL;
    pthread_mutex_unlock(&S.lock);
    return list;
}

/* pfd layout: [0, nlocal) the pipes' write ends; without make_pipes also
 * [nlocal, 2 nlocal) the second sources. */
size_t spx_host_stdin_npoll(void)
{
    return S.enabled ? (S.make_pipes ? 1u : 2u) * S.nlocal : 0;
}

void spx_host_stdin_poll_fill(struct pollfd *pfd)
{
    for (uint32_t i = 0; S.enabled && i < S.nlocal; i++) {
        const struct spx_stdin_target *t = &S.t[i];
        /* events 0 still reports POLLERR: the rank closed its stdin */
        pfd[i] = (struct pollfd){ .fd = t->fd, .events = t->pipe_full ? POLLOUT : 0 };
        if (!S.make_pipes)   /* read the source only while the cache has room */
            pfd[S.nlocal + i] = (struct pollfd){
                .fd = t->fd >= 0 && spx_stdin_cache_room(&t->cache) > 0 ? t->src : -1,
                .events = POLLIN };
    }
}

int spx_host_stdin_poll_ms(void)
{
    double now = spx_stdin_now(), next = -1;

    for (uint32_t i = 0; S.enabled && i < S.nlocal; i++) {
        const struct spx_stdin_target *t = &S.t[i];
        double deadline = spx_stdin_cache_deadline(&t->cache);

        if (t->fd >= 0 && !t->pipe_full && deadline >= 0 && (next < 0 || deadline < next))
            next = deadline;
    }
    if (next < 0)
        return -1;
    return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

void spx_host_stdin_service(const struct pollfd *pfd)
{
    struct spx_stdin_push *list;

    if (!S.enabled)
        return;
    list = spx_stdin_take_incoming();
    while (list != NULL) {
        struct spx_stdin_push *p = list;

        list = p->next;
        p->next = NULL;
        spx_stdin_distribute(p);
    }
    for (uint32_t i = 0; i < S.nlocal; i++)
        spx_stdin_pump(&S.t[i], pfd ? pfd[i].revents : 0,
                       pfd && !S.make_pipes ? pfd[S.nlocal + i].revents : 0);
    spx_stdin_call_back();
}

void spx_host_stdin_close(void)
{
    struct spx_stdin_push *list;

    if (!S.enabled)
        return;
    pthread_mutex_lock(&S.lock);
    S.closed = true;
    pthread_mutex_unlock(&S.lock);
    list = spx_stdin_take_incoming();
    while (list != NULL) {
        struct spx_stdin_push *p = list;

        list = p->next;
        spx_stdin_distribute(p);
    }
    for (uint32_t i = 0; i < S.nlocal; i++)
        if (!S.t[i].ended)
            spx_stdin_end(&S.t[i], PMIX_ERR_UNREACH, "the job ended");
    spx_stdin_call_back();
}

void spx_host_stdin_fini(void)
{
    if (S.t != NULL) {
        spx_host_stdin_close();
        for (uint32_t i = 0; i < S.nlocal; i++) {
            spx_stdin_close_fd(&S.t[i].fd);
            spx_stdin_close_fd(&S.t[i].rfd);
            spx_stdin_close_fd(&S.t[i].src);
        }
    }
    free(S.t);
    free(S.slot_of);
    S.t = NULL;
    S.slot_of = NULL;
    S.nlocal = S.nprocs = 0;
    S.enabled = S.closed = S.make_pipes = false;
    S.in_head = S.in_tail = NULL;
}
