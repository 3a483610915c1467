/*
 * run_proto: what the spmix-run launcher and its node daemons agree on: the
 * records on their pipes (see run_node.h) and where each rank runs.
 *
 * Records are three 32-bit integers in host order (both ends are forks of one
 * program). A reader accumulates bytes until a whole record is there.
 */
#include "run_node.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *spx_run_msg_type_str(uint32_t type)
{
    switch (type) {
    case SPX_RUN_MSG_SPAWNED: return "SPAWNED";
    case SPX_RUN_MSG_END: return "END";
    case SPX_RUN_MSG_DONE: return "DONE";
    case SPX_RUN_MSG_FINISH: return "FINISH";
    default: return "UNKNOWN";
    }
}

int spx_run_msg_send(int fd, uint32_t type, uint32_t a, int32_t b)
{
    struct spx_run_msg m = { .type = type, .a = a, .b = b };
    ssize_t w;

    do {
        w = write(fd, &m, sizeof(m));
    } while (w < 0 && errno == EINTR);
    return w == (ssize_t)sizeof(m) ? 0 : -1;
}

int spx_run_msg_recv(int fd, struct spx_run_msgbuf *mb,
                     void (*fn)(const struct spx_run_msg *m, void *arg), void *arg)
{
    for (;;) {
        ssize_t n = read(fd, mb->buf + mb->len, sizeof(mb->buf) - mb->len);
        size_t off = 0;

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 1;
        if (n <= 0)
            return 0;
        mb->len += (size_t)n;
        while (mb->len - off >= sizeof(struct spx_run_msg)) {
            struct spx_run_msg m;
            memcpy(&m, mb->buf + off, sizeof(m));
            off += sizeof(m);
            fn(&m, arg);
        }
        memmove(mb->buf, mb->buf + off, mb->len - off);
        mb->len -= off;
    }
}

/* block: node k holds a contiguous range, the first n % nodes nodes one rank
 * more; cyclic: rank r is on node r % nodes. */
uint32_t spx_run_node_of(const struct spx_run_opts *o, uint32_t rank)
{
    uint32_t base = o->n / o->nodes, extra = o->n % o->nodes;

    if (o->cyclic)
        return rank % o->nodes;
    if (rank < extra * (base + 1))
        return rank / (base + 1);
    return extra + (rank - extra * (base + 1)) / base;
}

uint32_t spx_run_node_ranks(const struct spx_run_opts *o, uint32_t node, uint32_t *out)
{
    uint32_t k = 0;

    for (uint32_t r = 0; r < o->n; r++)
        if (spx_run_node_of(o, r) == node)
            out[k++] = r;
    return k;
}

void spx_run_node_addr(uint32_t node, uint16_t port, char *out, size_t len)
{
    snprintf(out, len, "127.0.0.%u:%u", node + 1, (unsigned)port);
}
