/*
 * run_out: forwarding of children's output arriving on pipes (see run_out.h).
 *
 * Data flow, by lines (the default, and --tag-output): spx_run_out_pump()
 * reads into one buffer of the main loop's; every complete line in it goes
 * out as it is (tagged "[rank] " with --tag-output), and the bytes after the
 * last newline are kept in the stream's own part buffer until the rest of
 * their line comes. A held line that reaches SPX_RUN_OUT_MAX_LINE bytes is
 * written as it is and holding starts again; at EOF the held bytes are
 * written (a tagged piece gets a newline, an untagged one stays byte for
 * byte). Lines are gathered into writes of at most PIPE_BUF bytes, each
 * ending at a line's end: a write that size is not mixed with the writes of
 * another process sharing dest (the nodes of a multi-node job), even on a
 * pipe; a longer line is written alone, in one writev.
 * Raw (--unbuffered with --output-tap): it reads up to CHUNK bytes into
 * chunk and writes them on unchanged.
 * With tap, the bytes read (as the rank wrote them, before any tag) then go
 * to PMIx_server_IOF_deliver: borrowed until its callback (which frees
 * them; the stream reads into a new chunk meanwhile), or, read into the
 * shared line buffer, copied by the server if (and only if) a tool pulls
 * them. At EOF the server hears PMIX_IOF_COMPLETE for the stream.
 * Everything here runs on spmix-run's main thread (the static buffers).
 */
#include "run_out.h"

#include <pmix_server.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK (64u << 10)

/* Whole lines waiting to be written to fd, at most PIPE_BUF bytes. */
static struct {
    int fd;
    size_t len;
    char buf[PIPE_BUF];
} spx_run_out_batch = { .fd = -1 };

/* Writes every byte of iov (cnt entries, modified); errors (a closed
 * stdout) drop the rest. */
static void spx_run_out_writev(int fd, struct iovec *iov, int cnt)
{
    while (cnt > 0) {
        ssize_t w = writev(fd, iov, cnt);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        while (cnt > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            cnt--;
        }
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
}

static void spx_run_out_write(int fd, const char *p, size_t n)
{
    struct iovec iov = { .iov_base = (void *)p, .iov_len = n };

    if (n > 0)
        spx_run_out_writev(fd, &iov, 1);
}

static void spx_run_out_batch_flush(void)
{
    spx_run_out_write(spx_run_out_batch.fd, spx_run_out_batch.buf, spx_run_out_batch.len);
    spx_run_out_batch.len = 0;
}

/* One line (or a piece of one: an overlong line, the end of a stream) of
 * o's: into the batch, or alone if it does not fit in one. p is borrowed. */
static void spx_run_out_emit(struct spx_run_out *o, const char *p, size_t n)
{
    char tag[24];
    size_t tl = o->tag ? (size_t)snprintf(tag, sizeof(tag), "[%u] ", o->rank) : 0;
    bool nl = o->tag && (n == 0 || p[n - 1] != '\n');   /* a tagged piece ends its line */
    size_t total = tl + n + (nl ? 1 : 0);

    if (spx_run_out_batch.fd != o->dest ||
        spx_run_out_batch.len + total > sizeof(spx_run_out_batch.buf))
        spx_run_out_batch_flush();
    spx_run_out_batch.fd = o->dest;
    if (total <= sizeof(spx_run_out_batch.buf)) {
        char *b = spx_run_out_batch.buf + spx_run_out_batch.len;
        memcpy(b, tag, tl);
        memcpy(b + tl, p, n);
        if (nl)
            b[tl + n] = '\n';
        spx_run_out_batch.len += total;
        return;
    }
    struct iovec iov[3] = { { .iov_base = tag, .iov_len = tl },
                            { .iov_base = (void *)p, .iov_len = n },
                            { .iov_base = "\n", .iov_len = nl ? 1 : 0 } };
    spx_run_out_writev(o->dest, iov, 3);
}

/* Keep n bytes at p in the held line; false when it cannot grow (no memory). */
static bool spx_run_out_hold(struct spx_run_out *o, const char *p, size_t n)
{
    if (o->plen + n > o->pcap) {
        size_t cap = o->pcap ? o->pcap : 256;
        char *g;
        while (cap < o->plen + n)
            cap *= 2;
        if (cap > SPX_RUN_OUT_MAX_LINE)
            cap = SPX_RUN_OUT_MAX_LINE;
        if ((g = realloc(o->part, cap)) == NULL)
            return false;
        o->part = g;
        o->pcap = cap;
    }
    memcpy(o->part + o->plen, p, n);
    o->plen += n;
    return true;
}

/* Forward n bytes read at p by lines; what follows the last newline is held. */
static void spx_run_out_lines(struct spx_run_out *o, const char *p, size_t n)
{
    while (n > 0) {
        const char *eol = memchr(p, '\n', n);
        size_t l = eol ? (size_t)(eol - p) + 1 : n;
        size_t take;

        if (o->plen == 0 && eol) {   /* a whole line in this read */
            spx_run_out_emit(o, p, l);
            p += l;
            n -= l;
            continue;
        }
        /* the end of the held line, or bytes to hold */
        take = SPX_RUN_OUT_MAX_LINE - o->plen;
        if (take > l)
            take = l;
        if (!spx_run_out_hold(o, p, take)) {   /* no memory: on as it is */
            if (o->plen > 0)
                spx_run_out_emit(o, o->part, o->plen);
            spx_run_out_emit(o, p, take);
            o->plen = 0;
        } else if ((take == l && eol) || o->plen == SPX_RUN_OUT_MAX_LINE) {
            spx_run_out_emit(o, o->part, o->plen);   /* complete, or too long to hold */
            o->plen = 0;
        }
        p += take;
        n -= take;
    }
}

static void spx_run_out_delivered(pmix_status_t status, void *cbdata)
{
    (void)status;
    free(cbdata);
}

/* Hands n bytes at p to the server. owned: p is o->chunk, which the server
 * keeps until its callback frees it (o->chunk is then NULL); otherwise the
 * bytes are copied by the server if (and only if) a tool pulls them. */
static void spx_run_out_deliver(struct spx_run_out *o, char *p, size_t n, bool owned)
{
    pmix_byte_object_t bo = { .bytes = p, .size = n };
    pmix_status_t rc;

    rc = PMIx_server_IOF_deliver(&o->src, o->channel, &bo, NULL, 0,
                                 owned ? spx_run_out_delivered : NULL, owned ? p : NULL);
    if (rc == PMIX_SUCCESS && owned)
        o->chunk = NULL;   /* the callback frees it */
}

/* The end of the stream, for the tools that pull it. */
static void spx_run_out_deliver_eof(struct spx_run_out *o)
{
    pmix_byte_object_t bo = { .bytes = NULL, .size = 0 };
    pmix_info_t info;
    bool yes = true;

    PMIx_Info_load(&info, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    PMIx_server_IOF_deliver(&o->src, o->channel, &bo, &info, 1, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info);
}

void spx_run_out_init(struct spx_run_out *o, int fd, int dest, uint32_t rank, bool tag,
                      bool lines, bool tap, const char *nspace, pmix_iof_channel_t channel)
{
    o->fd = fd;
    o->dest = dest;
    o->rank = rank;
    o->tag = tag;
    o->lines = lines || tag;
    o->tap = tap;
    PMIX_LOAD_PROCID(&o->src, nspace, rank);
    o->channel = channel;
    o->chunk = NULL;
    o->part = NULL;
    o->plen = o->pcap = 0;
}

/* Raw: the bytes go on exactly as read. */
static bool spx_run_out_pump_raw(struct spx_run_out *o)
{
    ssize_t n;

    if (o->chunk == NULL && (o->chunk = malloc(CHUNK)) == NULL)
        return true;   /* try again at the next turn */
    n = read(o->fd, o->chunk, CHUNK);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0) {
        spx_run_out_close(o);
        return false;
    }
    spx_run_out_write(o->dest, o->chunk, (size_t)n);
    if (o->tap)
        spx_run_out_deliver(o, o->chunk, (size_t)n, true);
    return true;
}

bool spx_run_out_pump(struct spx_run_out *o)
{
    static char buf[CHUNK];   /* the main thread's reads, by lines */
    ssize_t n;

    if (o->fd < 0)
        return false;
    if (!o->lines)
        return spx_run_out_pump_raw(o);
    n = read(o->fd, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0) {
        spx_run_out_close(o);
        return false;
    }
    if (o->tap)   /* as the rank wrote them; copied by the server if needed */
        spx_run_out_deliver(o, buf, (size_t)n, false);
    spx_run_out_lines(o, buf, (size_t)n);
    spx_run_out_batch_flush();
    return true;
}

void spx_run_out_close(struct spx_run_out *o)
{
    if (o->plen > 0)
        spx_run_out_emit(o, o->part, o->plen);
    spx_run_out_batch_flush();
    o->plen = 0;
    if (o->fd >= 0) {
        close(o->fd);
        if (o->tap)
            spx_run_out_deliver_eof(o);
    }
    o->fd = -1;
    free(o->chunk);
    o->chunk = NULL;
    free(o->part);
    o->part = NULL;
    o->pcap = 0;
}
