/* conn.c - a framed, non-blocking stream connection on a libevent loop.
 *
 * Reading: header bytes accumulate in hdr[]; once complete they are checked
 * by spx_frame_hdr_decode (magic, version, length cap) and the payload is read
 * into a buffer grown as bytes arrive (a header alone never makes us reserve
 * its full length). A complete frame is lent to on_frame as a spx_buf_t.
 * Writing: spx_conn_send queues header+payload, tries to write at once and
 * leaves the rest to the write event (partial writes resume where they
 * stopped). spx_conn_sendv writes a payload made of several borrowed pieces
 * straight from where they lie (sendmsg) and queues a copy of only what the
 * socket did not take. A frame handler may take the payload block
 * (spx_buf_release) instead of letting it be freed. Any failure closes the connection: events removed, fd closed,
 * on_close called exactly once; the struct itself is freed by a zero-timeout
 * reap event on a later loop turn (mark and reap), never inside a callback.
 *
 * Ends that are no error: EOF, and a read failing with ECONNRESET, which only
 * says the peer closed before reading everything we had sent it (a client
 * or tool that ended while a reply, an event or output was on its way, a
 * server that stopped with our last request unread) - both logged at debug
 * level, unless a frame was cut in half. The final close of a connection
 * whose socket nobody keeps (spx_conn_close_final) first reads away what the
 * peer sent and we did not read (bounded), so that the peer sees the end of
 * the stream rather than such a reset.
 */
#include "config.h"
#include "net/conn.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define SPX_CONN_READ_CHUNK (64u << 10)
#define SPX_CONN_READ_BUDGET 64 /* frames dispatched per readable event */
#define SPX_CONN_DRAIN_MAX (256u << 10) /* unread bytes dropped before an orderly close */

typedef struct spx_conn_out {
    STAILQ_ENTRY(spx_conn_out) link; /* in spx_conn.out */
    uint8_t hdr[SPX_FRAME_HDR_LEN];
    uint8_t *data; /* owned */
    size_t len;
    size_t off; /* bytes of hdr+data already written */
} spx_conn_out_t;

struct spx_conn {
    struct event_base *base;
    int fd;
    char *label;
    spx_conn_frame_f on_frame;
    spx_conn_close_f on_close;
    void *arg;
    struct event *ev_read, *ev_write, *ev_reap;
    int closed;
    int write_error; /* errno of a failed immediate write, reported from the write event */
    /* reading */
    uint8_t hdr[SPX_FRAME_HDR_LEN];
    size_t hdr_got;
    spx_frame_hdr_t cur;
    uint8_t *payload;
    size_t payload_cap, payload_got;
    size_t spare_max; /* keep a frame's block the handler left, up to this size */
    size_t max_payload; /* longest frame payload accepted (<= SPX_FRAME_MAX_PAYLOAD) */
    /* writing */
    STAILQ_HEAD(, spx_conn_out) out; /* frames not fully written, oldest first */
    /* counters */
    uint64_t bytes_out, frames_out, bytes_in, frames_in;
};

static void conn_free_queue(spx_conn_t *c)
{
    spx_conn_out_t *o;
    while ((o = STAILQ_FIRST(&c->out)) != NULL) {
        STAILQ_REMOVE_HEAD(&c->out, link);
        free(o->data);
        free(o);
    }
}

static void conn_reap_cb(evutil_socket_t fd, short what, void *arg)
{
    spx_conn_t *c = arg;
    (void)fd;
    (void)what;
    event_free(c->ev_read);
    event_free(c->ev_write);
    event_free(c->ev_reap);
    conn_free_queue(c);
    free(c->payload);
    free(c->label);
    free(c);
}

/* Reads away (and drops) what the peer sent that was not read yet, at most
 * SPX_CONN_DRAIN_MAX bytes, without waiting: a socket closed with unread
 * bytes makes the peer's next read fail with ECONNRESET instead of seeing
 * the end of the stream. */
static void conn_drop_unread(int fd)
{
    char buf[4096];
    size_t total = 0;
    while (total < SPX_CONN_DRAIN_MAX) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* nothing more now (EAGAIN), the peer's end, or an error */
        total += (size_t)n;
    }
}

void spx_conn_close(spx_conn_t *c, const char *reason, int is_error)
{
    if (!c || c->closed)
        return;
    c->closed = 1;
    if (is_error)
        spx_warn("connection %s closed: %s", c->label, reason);
    else
        spx_debug("connection %s closed: %s", c->label, reason);
    event_del(c->ev_read);
    event_del(c->ev_write);
    close(c->fd);
    c->fd = -1;
    if (c->on_close)
        c->on_close(c, reason, c->arg);
    event_active(c->ev_reap, EV_TIMEOUT, 0);
}

void spx_conn_close_final(spx_conn_t *c, const char *reason)
{
    if (!c || c->closed)
        return;
    conn_drop_unread(c->fd);
    spx_conn_close(c, reason, 0);
}

static void conn_close_errno(spx_conn_t *c, const char *what, int err)
{
    char reason[160];
    snprintf(reason, sizeof(reason), "%s: %s", what, strerror(err));
    spx_conn_close(c, reason, 1);
}

/* ---- reading ---- */

static void conn_dispatch(spx_conn_t *c)
{
    spx_buf_t payload;
    spx_buf_init(&payload);
    uint8_t *block = c->payload;
    size_t cap = c->payload_cap;
    spx_buf_adopt(&payload, c->payload, c->cur.length);
    c->payload = NULL;
    c->payload_cap = c->payload_got = 0;
    c->hdr_got = 0;
    c->frames_in++;
    spx_frame_hdr_t h = c->cur;
    c->on_frame(c, &h, &payload, c->arg);
    /* a block the handler left (not taken, not replaced) is read into again
     * by the next frame, if allowed: no free and fresh pages per frame */
    if (block && payload.data == block && cap <= c->spare_max && !c->closed && !c->payload &&
        c->hdr_got == 0) {
        c->payload = block;
        c->payload_cap = cap;
        return;
    }
    spx_buf_fini(&payload);
}

/* One read(2) into the header or the payload. 1: progress, 0: would block, -1: closed. */
static int conn_read_some(spx_conn_t *c)
{
    uint8_t *dst;
    size_t want;
    if (c->hdr_got < SPX_FRAME_HDR_LEN) {
        dst = c->hdr + c->hdr_got;
        want = SPX_FRAME_HDR_LEN - c->hdr_got;
    } else {
        size_t left = c->cur.length - c->payload_got;
        if (c->payload_got == c->payload_cap) {
            size_t cap = c->payload_cap ? c->payload_cap * 2 : SPX_CONN_READ_CHUNK;
            if (cap > c->cur.length)
                cap = c->cur.length;
            uint8_t *p = realloc(c->payload, cap);
            if (!p) {
                spx_conn_close(c, "out of memory for a payload", 1);
                return -1;
            }
            c->payload = p;
            c->payload_cap = cap;
        }
        dst = c->payload + c->payload_got;
        want = c->payload_cap - c->payload_got;
        if (want > left)
            want = left;
    }
    ssize_t n = read(c->fd, dst, want);
    if (n < 0) {
        if (errno == EINTR)
            return 1;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        if (errno == ECONNRESET) { /* an end like EOF: the peer left bytes of ours unread */
            int mid = c->hdr_got > 0;
            spx_conn_close(c, mid ? "peer reset the connection in the middle of a frame"
                                  : "peer closed (before reading all we sent)", mid);
            return -1;
        }
        conn_close_errno(c, "read failed", errno);
        return -1;
    }
    if (n == 0) {
        int mid = c->hdr_got > 0;
        spx_conn_close(c, mid ? "peer closed in the middle of a frame" : "peer closed", mid);
        return -1;
    }
    c->bytes_in += (uint64_t)n;
    if (c->hdr_got < SPX_FRAME_HDR_LEN) {
        c->hdr_got += (size_t)n;
        if (c->hdr_got < SPX_FRAME_HDR_LEN)
            return 1;
        if (spx_frame_hdr_decode(c->hdr, &c->cur) < 0) {
            char reason[128];
            if (errno == EMSGSIZE)
                snprintf(reason, sizeof(reason), "frame length %u over the cap of %u",
                         (unsigned)(c->hdr[12] | c->hdr[13] << 8 | c->hdr[14] << 16 |
                                    (uint32_t)c->hdr[15] << 24),
                         SPX_FRAME_MAX_PAYLOAD);
            else
                snprintf(reason, sizeof(reason), "bad frame header (magic/version)");
            spx_conn_close(c, reason, 1);
            return -1;
        }
        if (c->cur.length > c->max_payload) {
            char reason[128];
            snprintf(reason, sizeof(reason), "frame length %u over this connection's cap of %zu",
                     (unsigned)c->cur.length, c->max_payload);
            spx_conn_close(c, reason, 1);
            return -1;
        }
    } else {
        c->payload_got += (size_t)n;
    }
    if (c->hdr_got == SPX_FRAME_HDR_LEN && c->payload_got == c->cur.length) {
        conn_dispatch(c);
        if (c->closed)
            return -1;
    }
    return 1;
}

static void conn_read_cb(evutil_socket_t fd, short what, void *arg)
{
    spx_conn_t *c = arg;
    (void)fd;
    (void)what;
    uint64_t start = c->frames_in;
    while (!c->closed && c->frames_in - start < SPX_CONN_READ_BUDGET) {
        if (conn_read_some(c) <= 0)
            return;
    }
}

void spx_conn_drain(spx_conn_t *c)
{
    if (c && !c->closed)
        conn_read_cb(c->fd, EV_READ, c);
}

/* ---- writing ---- */

/* Writes what the socket takes. 0: queue empty or would block, -1: failed (errno). */
static int conn_flush(spx_conn_t *c)
{
    spx_conn_out_t *o;
    while ((o = STAILQ_FIRST(&c->out)) != NULL) {
        struct iovec iov[2];
        int cnt = 0;
        if (o->off < SPX_FRAME_HDR_LEN) {
            iov[cnt].iov_base = o->hdr + o->off;
            iov[cnt++].iov_len = SPX_FRAME_HDR_LEN - o->off;
            if (o->len) {
                iov[cnt].iov_base = o->data;
                iov[cnt++].iov_len = o->len;
            }
        } else {
            size_t done = o->off - SPX_FRAME_HDR_LEN;
            iov[cnt].iov_base = o->data + done;
            iov[cnt++].iov_len = o->len - done;
        }
        struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)cnt };
        ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return -1;
        }
        c->bytes_out += (uint64_t)n;
        o->off += (size_t)n;
        if (o->off == SPX_FRAME_HDR_LEN + o->len) {
            STAILQ_REMOVE_HEAD(&c->out, link);
            free(o->data);
            free(o);
            c->frames_out++;
        }
    }
    return 0;
}

static void conn_write_cb(evutil_socket_t fd, short what, void *arg)
{
    spx_conn_t *c = arg;
    (void)fd;
    (void)what;
    if (c->closed)
        return;
    int err = c->write_error;
    if (!err && conn_flush(c) < 0)
        err = errno;
    if (err) {
        /* The peer went away; what it sent before that is still worth
         * reading (its last frames may explain why, or end it in order). */
        conn_read_cb(c->fd, EV_READ, c);
        if (!c->closed)
            conn_close_errno(c, "write failed", err);
        return;
    }
    if (STAILQ_EMPTY(&c->out))
        event_del(c->ev_write);
}

int spx_conn_flush_wait(spx_conn_t *c, int timeout_ms)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (c && !c->closed && !c->write_error && !STAILQ_EMPTY(&c->out)) {
        if (conn_flush(c) < 0)
            return -1;
        if (STAILQ_EMPTY(&c->out))
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = timeout_ms - ((now.tv_sec - t0.tv_sec) * 1000L +
                                  (now.tv_nsec - t0.tv_nsec) / 1000000L);
        if (left <= 0)
            return -1;
        struct pollfd pfd = { .fd = c->fd, .events = POLLOUT };
        if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
            return -1;
    }
    return c && !c->closed && !c->write_error && STAILQ_EMPTY(&c->out) ? 0 : -1;
}

int spx_conn_send(spx_conn_t *c, uint8_t type, uint16_t flags, uint32_t seq, spx_buf_t *payload)
{
    if (!c || c->closed) {
        if (payload)
            spx_buf_fini(payload);
        errno = ENOTCONN;
        return -1;
    }
    size_t len = 0;
    uint8_t *data = payload ? spx_buf_release(payload, &len) : NULL;
    if (len > SPX_FRAME_MAX_PAYLOAD) {
        free(data);
        errno = EMSGSIZE;
        return -1;
    }
    spx_conn_out_t *o = calloc(1, sizeof(*o));
    if (!o) {
        free(data);
        errno = ENOMEM;
        return -1;
    }
    spx_frame_hdr_t h = { .version = SPX_FRAME_VERSION, .type = type, .flags = flags,
                          .seq = seq, .length = (uint32_t)len };
    spx_frame_hdr_encode(&h, o->hdr);
    o->data = data;
    o->len = len;
    int was_idle = STAILQ_EMPTY(&c->out);
    STAILQ_INSERT_TAIL(&c->out, o, link);
    /* Write now if nothing is pending; errors are reported from the write event
     * so that on_close never runs inside spx_conn_send. */
    if (was_idle && !c->write_error && conn_flush(c) < 0)
        c->write_error = errno ? errno : EIO;
    if (c->write_error)
        event_active(c->ev_write, EV_WRITE, 0);
    else if (!STAILQ_EMPTY(&c->out))
        event_add(c->ev_write, NULL);
    return 0;
}

/* ---- sending from several pieces ---- */

#define SPX_CONN_SENDV_IOV 64 /* iovecs per sendmsg (well under IOV_MAX) */

/* Fills out[] with what is left of hdr + iov[] after skipping `skip` bytes
 * (at most SPX_CONN_SENDV_IOV entries); returns the count. */
static size_t iov_from(const uint8_t *hdr, const struct iovec *iov, size_t niov, size_t skip,
                       struct iovec *out)
{
    size_t k = 0;
    if (skip < SPX_FRAME_HDR_LEN) {
        out[k].iov_base = (void *)(hdr + skip);
        out[k++].iov_len = SPX_FRAME_HDR_LEN - skip;
        skip = 0;
    } else {
        skip -= SPX_FRAME_HDR_LEN;
    }
    for (size_t i = 0; i < niov && k < SPX_CONN_SENDV_IOV; i++) {
        if (skip >= iov[i].iov_len) {
            skip -= iov[i].iov_len;
            continue;
        }
        out[k].iov_base = (uint8_t *)iov[i].iov_base + skip;
        out[k++].iov_len = iov[i].iov_len - skip;
        skip = 0;
    }
    return k;
}

/* Writes hdr + iov[] straight to the socket until it would block; returns
 * the bytes written, sets c->write_error on a failure. */
static size_t sendv_direct(spx_conn_t *c, const uint8_t *hdr, const struct iovec *iov,
                           size_t niov, size_t total)
{
    size_t sent = 0;
    while (sent < total) {
        struct iovec v[SPX_CONN_SENDV_IOV];
        struct msghdr msg = { .msg_iov = v, .msg_iovlen = iov_from(hdr, iov, niov, sent, v) };
        ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                c->write_error = errno ? errno : EIO;
            break;
        }
        sent += (size_t)n;
    }
    c->bytes_out += sent;
    return sent;
}

int spx_conn_sendv(spx_conn_t *c, uint8_t type, uint16_t flags, uint32_t seq,
                   const struct iovec *iov, size_t niov)
{
    if (!c || c->closed) {
        errno = ENOTCONN;
        return -1;
    }
    size_t len = 0;
    for (size_t i = 0; i < niov; i++) {
        if (iov[i].iov_len > SPX_FRAME_MAX_PAYLOAD - len) {
            errno = EMSGSIZE;
            return -1;
        }
        len += iov[i].iov_len;
    }
    uint8_t hdr[SPX_FRAME_HDR_LEN];
    spx_frame_hdr_t h = { .version = SPX_FRAME_VERSION, .type = type, .flags = flags,
                          .seq = seq, .length = (uint32_t)len };
    spx_frame_hdr_encode(&h, hdr);
    size_t total = SPX_FRAME_HDR_LEN + len, sent = 0;
    if (STAILQ_EMPTY(&c->out) && !c->write_error)
        sent = sendv_direct(c, hdr, iov, niov, total);
    if (sent == total) {
        c->frames_out++;
        return 0;
    }
    /* the rest waits in the queue: copy it (only what the socket did not take) */
    spx_conn_out_t *o = calloc(1, sizeof(*o));
    size_t skip = sent > SPX_FRAME_HDR_LEN ? sent - SPX_FRAME_HDR_LEN : 0; /* payload bytes gone */
    size_t rest = len - skip;
    uint8_t *data = rest ? malloc(rest) : NULL;
    if (!o || (rest && !data)) {
        free(o);
        free(data);
        if (sent) /* half a frame is on the wire: the stream cannot go on */
            c->write_error = ENOMEM;
        if (c->write_error)
            event_active(c->ev_write, EV_WRITE, 0);
        errno = ENOMEM;
        return sent ? 0 : -1;
    }
    size_t at = 0, s = skip;
    for (size_t i = 0; i < niov && at < rest; i++) {
        if (s >= iov[i].iov_len) {
            s -= iov[i].iov_len;
            continue;
        }
        memcpy(data + at, (const uint8_t *)iov[i].iov_base + s, iov[i].iov_len - s);
        at += iov[i].iov_len - s;
        s = 0;
    }
    memcpy(o->hdr, hdr, sizeof(hdr));
    o->data = data;
    o->len = rest;
    o->off = sent < SPX_FRAME_HDR_LEN ? sent : SPX_FRAME_HDR_LEN;
    STAILQ_INSERT_TAIL(&c->out, o, link);
    if (c->write_error)
        event_active(c->ev_write, EV_WRITE, 0);
    else
        event_add(c->ev_write, NULL);
    return 0;
}

/* ---- creation and accessors ---- */

spx_conn_t *spx_conn_create(struct event_base *base, int fd, const char *label,
                            spx_conn_frame_f on_frame, spx_conn_close_f on_close, void *arg)
{
    spx_conn_t *c = calloc(1, sizeof(*c));
    int fl = fcntl(fd, F_GETFL);
    if (!c || fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        goto fail;
    c->base = base;
    c->max_payload = SPX_FRAME_MAX_PAYLOAD;
    STAILQ_INIT(&c->out);
    c->fd = fd;
    c->label = strdup(label ? label : "?");
    c->on_frame = on_frame;
    c->on_close = on_close;
    c->arg = arg;
    c->ev_read = event_new(base, fd, EV_READ | EV_PERSIST, conn_read_cb, c);
    c->ev_write = event_new(base, fd, EV_WRITE | EV_PERSIST, conn_write_cb, c);
    c->ev_reap = event_new(base, -1, 0, conn_reap_cb, c);
    if (!c->label || !c->ev_read || !c->ev_write || !c->ev_reap || event_add(c->ev_read, NULL) < 0)
        goto fail;
    return c;
fail:
    if (c) {
        if (c->ev_read)
            event_free(c->ev_read);
        if (c->ev_write)
            event_free(c->ev_write);
        if (c->ev_reap)
            event_free(c->ev_reap);
        free(c->label);
        free(c);
    }
    close(fd);
    return NULL;
}

void spx_conn_set_arg(spx_conn_t *c, void *arg) { c->arg = arg; }
void spx_conn_keep_spare(spx_conn_t *c, size_t max) { c->spare_max = max; }

void spx_conn_set_max_payload(spx_conn_t *c, size_t max)
{
    c->max_payload = max < SPX_FRAME_MAX_PAYLOAD ? max : SPX_FRAME_MAX_PAYLOAD;
}
void *spx_conn_get_arg(const spx_conn_t *c) { return c->arg; }
const char *spx_conn_label(const spx_conn_t *c) { return c->label; }

void spx_conn_counters(const spx_conn_t *c, uint64_t *bytes_out, uint64_t *frames_out,
                       uint64_t *bytes_in, uint64_t *frames_in)
{
    if (bytes_out)
        *bytes_out = c->bytes_out;
    if (frames_out)
        *frames_out = c->frames_out;
    if (bytes_in)
        *bytes_in = c->bytes_in;
    if (frames_in)
        *frames_in = c->frames_in;
}
