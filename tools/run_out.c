/*
 * run_out: line-tagged forwarding of children's output (--tag-output).
 *
 * Data flow: spx_run_out_pump() appends what read() returns to buf, writes
 * out every complete line as "[rank] line\n", keeps the remainder; a line
 * longer than buf is written in pieces, each tagged.
 */
#include "run_out.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

void spx_run_out_init(struct spx_run_out *o, int fd, int dest, uint32_t rank)
{
    o->fd = fd;
    o->dest = dest;
    o->rank = rank;
    o->len = 0;
}

bool spx_run_out_pump(struct spx_run_out *o)
{
    ssize_t n;
    char *nl;
    size_t start = 0;

    if (o->fd < 0)
        return false;
    n = read(o->fd, o->buf + o->len, sizeof(o->buf) - o->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0) {
        spx_run_out_close(o);
        return false;
    }
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
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
}
