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

/* Block and cyclic alike: the first n % nodes nodes hold one rank more. */
uint32_t spx_run_node_count(const struct spx_run_opts *o, uint32_t node)
{
    if (node >= o->nodes)
        return 0;
    return o->n / o->nodes + (node < o->n % o->nodes ? 1 : 0);
}

/* Direct: block is a contiguous range, cyclic a stride (no walk over all
 * ranks, which every node would repeat for every node). */
uint32_t spx_run_node_ranks(const struct spx_run_opts *o, uint32_t node, uint32_t *out)
{
    uint32_t base = o->n / o->nodes, extra = o->n % o->nodes, first, count;

    if (node >= o->nodes)
        return 0;
    if (o->cyclic) {
        count = 0;
        for (uint32_t r = node; r < o->n; r += o->nodes)
            out[count++] = r;
        return count;
    }
    count = base + (node < extra ? 1 : 0);
    first = node < extra ? node * (base + 1) : extra * (base + 1) + (node - extra) * base;
    for (uint32_t i = 0; i < count; i++)
        out[i] = first + i;
    return count;
}

/* 127.0.B.(C+1) with B = k / 254, C = k % 254: the first 254 nodes keep
 * 127.0.0.1..127.0.0.254, and no address ends in .0 or .255. */
uint32_t spx_run_node_ip(uint32_t node)
{
    return 0x7f000000u | ((node / SPX_RUN_NODES_PER_OCTET) << 8) |
           (node % SPX_RUN_NODES_PER_OCTET + 1);
}

void spx_run_node_addr(uint32_t node, uint16_t port, char *out, size_t len)
{
    uint32_t ip = spx_run_node_ip(node);

    snprintf(out, len, "127.%u.%u.%u:%u", (ip >> 16) & 0xffu, (ip >> 8) & 0xffu, ip & 0xffu,
             (unsigned)port);
}
