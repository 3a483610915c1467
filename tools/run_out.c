/*
 * run_out: forwarding of children's output arriving on pipes (--tag-output,
 * --output-tap).
 *
 * Data flow: tagged, spx_run_out_pump() appends what read() returns to buf,
 * writes out every complete line as "[rank] line\n", keeps the remainder; a
 * line longer than buf is written in pieces, each tagged. Untagged (tap
 * alone), it reads up to CHUNK bytes into chunk and writes them on
 * unchanged, byte for byte. With tap, the bytes read (as the rank wrote
 * them, before any tag) then go to PMIx_server_IOF_deliver: borrowed until
 * its callback (which frees them; the stream reads into a new chunk
 * meanwhile), or kept when the server needs nothing (no tool pulls:
 * PMIX_OPERATION_SUCCEEDED, no copy). At EOF the server hears
 * PMIX_IOF_COMPLETE for the stream.
 */
#include "run_out.h"

#include <pmix_server.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (64u << 10)

static void spx_run_out_write(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* One write per line, so lines of different writers sharing dest (the
 * nodes of a multi-node job) do not interleave. */
static void spx_run_out_line(struct spx_run_out *o, const char *p, size_t n)
{
    char line[sizeof(o->buf) + 40];
    int t = snprintf(line, sizeof(line), "[%u] ", o->rank);
    size_t len = (size_t)t;

    memcpy(line + len, p, n);
    len += n;
    if (n == 0 || p[n - 1] != '\n')
        line[len++] = '\n';
    spx_run_out_write(o->dest, line, len);
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

void spx_run_out_init(struct spx_run_out *o, int fd, int dest, uint32_t rank, bool tag, bool tap,
                      const char *nspace, pmix_iof_channel_t channel)
{
    o->fd = fd;
    o->dest = dest;
    o->rank = rank;
    o->tag = tag;
    o->tap = tap;
    PMIX_LOAD_PROCID(&o->src, nspace, rank);
    o->channel = channel;
    o->chunk = NULL;
    o->len = 0;
}

/* Untagged: the bytes go on exactly as read. */
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
    ssize_t n;
    char *nl;
    size_t start = 0;

    if (o->fd < 0)
        return false;
    if (!o->tag)
        return spx_run_out_pump_raw(o);
    n = read(o->fd, o->buf + o->len, sizeof(o->buf) - o->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0) {
        spx_run_out_close(o);
        return false;
    }
    if (o->tap)   /* as the rank wrote them; copied by the server if needed */
        spx_run_out_deliver(o, o->buf + o->len, (size_t)n, false);
    o->len += (size_t)n;
    while ((nl = memchr(o->buf + start, '\n', o->len - start)) != NULL) {
        size_t l = (size_t)(nl - (o->buf + start)) + 1;
        spx_run_out_line(o, o->buf + start, l);
        start += l;
    }
    if (start == 0 && o->len == sizeof(o->buf)) {   /* overlong line */
        spx_run_out_line(o, o->buf, o->len);
        start = o->len;
    }
    memmove(o->buf, o->buf + start, o->len - start);
    o->len -= start;
    return true;
}

void spx_run_out_close(struct spx_run_out *o)
{
    if (o->len > 0)
        spx_run_out_line(o, o->buf, o->len);
    o->len = 0;
    if (o->fd >= 0) {
        close(o->fd);
        if (o->tap)
            spx_run_out_deliver_eof(o);
    }
    o->fd = -1;
    free(o->chunk);
    o->chunk = NULL;
}
