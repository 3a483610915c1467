/* pmi_wire.c - connections of the PMI wire engine (engine_pmi.h): the
 * socket pair made for a task at PMIx_server_setup_fork, reading and
 * framing what the task writes (a PMI-1 line, or a PMI-2 length-prefixed
 * message once the task asked for version 2), writing the answers, binding
 * the connection's peer to its registered client, and closing (a task that
 * goes without finalize is a lost client, as for PMIx).
 *
 * Data flow: task -> read_cb -> in[] -> process() -> proto/pmi_text.h ->
 * spx_pmi_dispatch (pmi_cmds.c) -> the server's handlers -> spx_srv_reply
 * (peer.c) -> the peer ops' pmi_peer_reply -> spx_pmi_answer -> spx_pmi_send -> task.
 * One request at a time: while one waits for the server, further input
 * waits in in[] (a task that fills it meanwhile is closed).
 */
#include "config.h"
#include "server/pmi_int.h"
#include "server/engine_fence.h"
#include "server/engine_get.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "progress/progress.h"
#include "types/types.h"
#include "util/log.h"

static void process(struct spx_srv_pmi_conn *c);

/* ---- closing and reaping ---- */

static void conn_free(struct spx_srv_pmi_conn *c)
{
    if (c->rev)
        event_free(c->rev);
    if (c->wev)
        event_free(c->wev);
    if (c->fd >= 0)
        close(c->fd);
    if (c->task_fd >= 0)
        close(c->task_fd);
    if (c->peer) {
        c->peer->pmi = NULL;
        c->peer->ops = NULL;
        spx_srv_peer_unref(c->peer);
    }
    free(c->out);
    free(c);
}

static void reap_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct spx_srv_pmi *st = arg;
    struct spx_srv_pmi_conn *c;
    st->reap_armed = false;
    while ((c = LIST_FIRST(&st->dead))) {
        LIST_REMOVE(c, link);
        conn_free(c);
    }
}

void spx_pmi_conn_close(struct spx_srv_pmi_conn *c, const char *reason, bool is_error)
{
    if (c->closed)
        return;
    c->closed = true;
    if (is_error)
        spx_warn("%s: PMI connection closed: %s", c->peer->name, reason);
    else
        spx_debug("%s: PMI connection closed: %s", c->peer->name, reason);
    event_del(c->rev);
    event_del(c->wev);
    close(c->fd);
    c->fd = -1;
    if (c->task_fd >= 0)
        close(c->task_fd);
    c->task_fd = -1;
    if (c->bound)
        spx_srv_peer_closed(c->peer, reason);
    LIST_REMOVE(c, link);
    struct spx_srv_pmi *st = c->ctx->pmi;
    if (!st) { /* teardown: the caller frees */
        conn_free(c);
        return;
    }
    LIST_INSERT_HEAD(&st->dead, c, link);
    if (!st->reap_armed) {
        struct timeval now = {0, 0};
        st->reap_armed = evtimer_add(st->reap, &now) == 0;
    }
}

static void pmi_peer_close(struct spx_srv_peer *p, const char *reason)
{
    if (p->pmi)
        spx_pmi_conn_close(p->pmi, reason, true);
}

/* ---- writing ---- */

static void flush_out(struct spx_srv_pmi_conn *c)
{
    size_t done = 0;
    while (done < c->outlen) {
        ssize_t n = write(c->fd, c->out + done, c->outlen - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            spx_pmi_conn_close(c, "write to the task failed", false);
            return;
        }
        done += (size_t)n;
    }
    memmove(c->out, c->out + done, c->outlen - done);
    c->outlen -= done;
    if (c->outlen)
        event_add(c->wev, NULL);
    else
        event_del(c->wev);
}

static void write_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    flush_out(arg);
}

void spx_pmi_send(struct spx_srv_pmi_conn *c, const char *text, size_t n)
{
    if (c->closed)
        return;
    char hdr[SPX_PMI_V2_HDR + 1];
    size_t h = 0;
    if (c->mode == SPX_PMI_MODE_V2) {
        snprintf(hdr, sizeof(hdr), "%-6zu", n);
        h = SPX_PMI_V2_HDR;
    }
    if (c->outlen + h + n > c->outcap) {
        size_t cap = (c->outlen + h + n) * 2;
        char *o = realloc(c->out, cap);
        if (!o) {
            spx_pmi_conn_close(c, "out of memory", true);
            return;
        }
        c->out = o;
        c->outcap = cap;
    }
    memcpy(c->out + c->outlen, hdr, h);
    memcpy(c->out + c->outlen + h, text, n);
    c->outlen += h + n;
    flush_out(c);
}

/* ---- reading ---- */

/* Takes one message out of in[] and dispatches it; false when none is
 * complete (or the connection closed). */
static bool process_one(struct spx_srv_pmi_conn *c)
{
    size_t blen = 0, off = 0;
    long took;
    if (c->mode == SPX_PMI_MODE_NEW) {
        int v2 = spx_pmi_looks_v2(c->in, c->inlen);
        if (v2 < 0)
            return false;
        c->mode = v2 ? SPX_PMI_MODE_V2 : SPX_PMI_MODE_V1;
    }
    if (c->mode == SPX_PMI_MODE_V2) {
        took = spx_pmi_frame_v2(c->in, c->inlen, &blen);
        off = SPX_PMI_V2_HDR;
    } else {
        took = spx_pmi_frame_v1(c->in, c->inlen, &blen);
    }
    if (took < 0) {
        spx_pmi_conn_close(c, "malformed PMI message (length)", true);
        return false;
    }
    if (took == 0)
        return false;
    char msg[SPX_PMI_MAX_MSG + 1];
    memcpy(msg, c->in + off, blen);
    memmove(c->in, c->in + took, c->inlen - (size_t)took);
    c->inlen -= (size_t)took;
    struct spx_pmi_cmd cmd;
    int rc = c->mode == SPX_PMI_MODE_V2 ? spx_pmi_parse_v2(msg, blen, &cmd)
                                        : spx_pmi_parse_v1(msg, blen, &cmd);
    if (rc != 0) {
        spx_pmi_conn_close(c, "malformed PMI command", true);
        return false;
    }
    if (spx_pmi_dispatch(c, &cmd) != 0) {
        spx_pmi_conn_close(c, "PMI command refused", true);
        return false;
    }
    return !c->closed;
}

static void process(struct spx_srv_pmi_conn *c)
{
    if (c->dispatching)
        return;
    c->dispatching = true;
    while (!c->closed && c->wait == SPX_PMI_WAIT_NONE && process_one(c))
        ;
    c->dispatching = false;
}

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct spx_srv_pmi_conn *c = arg;
    size_t cap = sizeof(c->in) - 1;
    if (c->inlen >= cap) {
        spx_pmi_conn_close(c, "PMI input while a request waits", true);
        return;
    }
    ssize_t n = read(fd, c->in + c->inlen, cap - c->inlen);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) {
        spx_pmi_conn_close(c, n == 0 ? "the task closed its PMI connection"
                                     : "read from the task failed",
                           c->bound && c->peer->client && !c->peer->client->finalized);
        return;
    }
    if (c->task_fd >= 0) { /* the task has its copy: ours goes, so its end is seen */
        close(c->task_fd);
        c->task_fd = -1;
    }
    c->inlen += (size_t)n;
    process(c);
}

/* ---- the peer side ---- */

int spx_pmi_bind(struct spx_srv_pmi_conn *c, const char **why)
{
    if (c->bound)
        return 0;
    struct spx_srv_ctx *ctx = c->ctx;
    struct spx_srv_peer *p = c->peer;
    struct spx_srv_client *cl = spx_srv_client_find(ctx, c->proc.nspace, c->proc.rank);
    if (!cl) {
        *why = "not a registered client any more";
        return -1;
    }
    if (cl->peer) {
        *why = "the process is already connected";
        return -1;
    }
    p->client = cl;
    p->uid = cl->uid;
    p->gid = cl->gid;
    cl->peer = p;
    cl->finalized = false;
    cl->connected_once = true;
    p->state = SPX_PEER_READY;
    c->bound = true;
    spx_srv_peer_ref(p); /* the peer list's */
    LIST_INSERT_HEAD(&ctx->peers, p, link);
    spx_srv_engines_client_ready(ctx, cl);
    spx_debug("%s: PMI client connected", p->name);
    return 0;
}

static void pmi_peer_reply(struct spx_srv_peer *p, uint8_t type, uint32_t seq,
                           spx_buf_t *payload)
{
    (void)seq;
    struct spx_srv_pmi_conn *c = p->pmi;
    if (c && !c->closed) {
        spx_pmi_answer(c, type, payload);
        if (!c->closed && c->wait == SPX_PMI_WAIT_NONE)
            process(c);
    }
    if (payload)
        spx_buf_fini(payload);
}

/* ---- setup_fork ---- */

/* What the core calls for a PMI peer: its replies, its closing. */
static const struct spx_srv_peer_ops pmi_peer_ops = {
    .reply = pmi_peer_reply,
    .close = pmi_peer_close,
};

int spx_srv_pmi_setup_fork(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, int *task_fd,
                           uint32_t *size)
{
    struct spx_srv_pmi *st = ctx->pmi;
    struct spx_srv_client *cl = spx_srv_client_find(ctx, proc->nspace, proc->rank);
    if (!st || !cl)
        return -1;
    const pmix_value_t *v = spx_store_peek(cl->ns->info, cl->ns->name, PMIX_RANK_WILDCARD,
                                           PMIX_JOB_SIZE, NULL);
    if (!v || spx_value_to_u32(v, size) != PMIX_SUCCESS)
        *size = 0;
    struct spx_srv_pmi_conn *c, *next;
    for (c = LIST_FIRST(&st->conns); c; c = next) { /* an earlier pair of this proc */
        next = LIST_NEXT(c, link);
        if (!c->bound && c->proc.rank == proc->rank &&
            strncmp(c->proc.nspace, proc->nspace, PMIX_MAX_NSLEN) == 0)
            spx_pmi_conn_close(c, "set up again", false);
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    c = calloc(1, sizeof(*c));
    struct spx_srv_peer *p = calloc(1, sizeof(*p));
    if (!c || !p || fcntl(sv[0], F_SETFL, O_NONBLOCK) != 0) {
        free(c);
        free(p);
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    c->ctx = ctx;
    c->fd = sv[0];
    c->task_fd = sv[1];
    spx_proc_load(&c->proc, proc->nspace, proc->rank);
    p->ctx = ctx;
    p->refs = 1; /* the connection's */
    p->pid = 0;
    p->state = SPX_PEER_NEW;
    p->proc = c->proc;
    p->pmi = c;
    p->ops = &pmi_peer_ops;
    snprintf(p->name, sizeof(p->name), "PMI client %s:%u", c->proc.nspace,
             (unsigned)c->proc.rank);
    c->peer = p;
    c->rev = event_new(spx_progress_base(), c->fd, EV_READ | EV_PERSIST, read_cb, c);
    c->wev = event_new(spx_progress_base(), c->fd, EV_WRITE, write_cb, c);
    if (!c->rev || !c->wev || event_add(c->rev, NULL) != 0) {
        conn_free(c);
        return -1;
    }
    LIST_INSERT_HEAD(&st->conns, c, link);
    *task_fd = sv[1];
    return 0;
}

/* ---- the engine ---- */

static int pmi_setup(struct spx_srv_ctx *ctx)
{
    struct spx_srv_pmi *st = calloc(1, sizeof(*st));
    if (!st)
        return -1;
    LIST_INIT(&st->conns);
    LIST_INIT(&st->dead);
    LIST_INIT(&st->attrs);
    if (!(st->reap = evtimer_new(spx_progress_base(), reap_cb, st))) {
        free(st);
        return -1;
    }
    ctx->pmi = st;
    return 0;
}

static void attrs_drop(struct spx_srv_pmi *st, const char *nspace)
{
    struct spx_pmi_nodeattr *a, *next;
    for (a = LIST_FIRST(&st->attrs); a; a = next) {
        next = LIST_NEXT(a, link);
        if (nspace && strncmp(a->nspace, nspace, PMIX_MAX_NSLEN) != 0)
            continue;
        LIST_REMOVE(a, link);
        st->nattrs--;
        free(a->key);
        free(a->val);
        free(a);
    }
}

static void pmi_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace)
{
    struct spx_srv_pmi *st = ctx->pmi;
    if (!st)
        return;
    struct spx_srv_pmi_conn *c, *next;
    for (c = LIST_FIRST(&st->conns); c; c = next) {
        next = LIST_NEXT(c, link);
        if (strncmp(c->proc.nspace, nspace, PMIX_MAX_NSLEN) == 0)
            spx_pmi_conn_close(c, "namespace deregistered", false);
    }
    attrs_drop(st, nspace);
}

static void pmi_teardown(struct spx_srv_ctx *ctx)
{
    struct spx_srv_pmi *st = ctx->pmi;
    if (!st)
        return;
    struct spx_srv_pmi_conn *c;
    ctx->pmi = NULL; /* closing now frees at once */
    while ((c = LIST_FIRST(&st->conns)))
        spx_pmi_conn_close(c, "server finalizing", false);
    reap_cb(-1, 0, st);
    event_free(st->reap);
    attrs_drop(st, NULL);
    free(st);
}

const struct spx_srv_engine_ops spx_srv_pmi_engine = {
    .name = "pmi",
    .setup = pmi_setup,
    .teardown = pmi_teardown,
    .nspace_gone = pmi_nspace_gone,
};

void spx_pmi_resume(struct spx_srv_pmi_conn *c)
{
    if (c->peer)
        pmi_peer_reply(c->peer, 0, 0, NULL);
}
