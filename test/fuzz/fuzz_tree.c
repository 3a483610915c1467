/* fuzz_tree.c - libFuzzer entry point for the tree engine's frames after the
 * handshake: every frame type (UP/DOWN of the collectives, MSG and BCAST that
 * carry the server's channels - direct modex, publish/lookup, events -,
 * NODE_LOST, NODE_LEFT, and AUTH on a ready link) arriving on authenticated
 * links, interleaved with this node's own calls.
 *
 * Each input builds one engine (node `self` of n, width w) on a private
 * event base and gives it one ready link per peer through
 * spx_tree_adopt_link: the engine's end of a socketpair, the harness holding
 * the other end. No handshake, no TCP: bytes the harness writes go through
 * the real connection reader (net/conn.c), link_on_frame and
 * spx_tree_dispatch, and the engine's answers are read back and thrown away.
 *
 * Input: 3 bytes of configuration (n = 2 + b0 % 7, self = b1 % n,
 * width = 1 + b2 % 4), then records, each an op byte and its fields (u16
 * little endian; `len` bytes follow, cut short at the end of the input):
 *   0 RAW     peer, type, u16 len, payload     a frame of any type
 *   1 FRAME   peer, type % 7 (0xA0..), u16 len, payload
 *   2 START   set, nodes mask, flags, status, len, data   spx_tree_coll_start
 *   3 COLL    peer, kind, set, seq, status, flags, up_flags, len, data
 *             a well-formed UP (kind odd) or DOWN for set "s<set % 4>"
 *   4 SEND    to, channel, len, data           spx_tree_send
 *   5 BCAST   channel, len, data               spx_tree_bcast
 *   6 CLOSE   peer                             the peer's end closes (EOF)
 *   7 LEAVE   b: bit 0 set -> spx_tree_leave, else only run the loop
 * Checks: every collective started here calls done exactly once by the time
 * the engine is destroyed; recv never names self or a node out of range;
 * node_lost/node_left at most once per node, never for self; ASan/UBSan and
 * LeakSanitizer see everything. fuzz_replay.c replays corpus-tree in make check.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "tree/internal.h"
#include "util/log.h"
#include "fuzz_input.h"

#define FZ_MAX_NODES 8
#define FZ_MAX_STARTS 64
#define FZ_MAX_OPS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_start {
    int calls;
} fz_start_t;

typedef struct fz_world {
    struct event_base *base;
    spx_tree_t *t;
    uint32_t n, self;
    int fd[FZ_MAX_NODES]; /* harness end of each peer's socketpair, -1 if none */
    fz_start_t starts[FZ_MAX_STARTS];
    int nstarts;
    int lost[FZ_MAX_NODES], left[FZ_MAX_NODES];
} fz_world_t;

static void on_recv(uint32_t from, uint8_t channel, const void *data, size_t len, void *arg)
{
    fz_world_t *w = arg;
    (void)channel;
    if (from >= w->n || from == w->self || (len && !data))
        abort();
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < len; i++) /* ASan checks the whole payload is readable */
        sink ^= ((const uint8_t *)data)[i];
    (void)sink;
}

static void on_lost(uint32_t node, const char *reason, void *arg)
{
    fz_world_t *w = arg;
    if (node >= w->n || node == w->self || !reason || w->lost[node]++ || w->left[node])
        abort();
}

static void on_left(uint32_t node, void *arg)
{
    fz_world_t *w = arg;
    if (node >= w->n || node == w->self || w->left[node]++ || w->lost[node])
        abort();
}

static void on_done(pmix_status_t status, const void *data, size_t len, void *arg)
{
    fz_start_t *s = arg;
    (void)status;
    if (s->calls++ || (len && !data))
        abort();
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < len; i++)
        sink ^= ((const uint8_t *)data)[i];
    (void)sink;
}

/* Reads and drops whatever the engine wrote to the peers. Only at the end of
 * an input and when the engine's writes would fill a socket buffer: a read
 * per peer after every record was most of the target's time. */
static void drain_fd(int fd);

static void drain_peers(fz_world_t *w)
{
    for (uint32_t i = 0; i < w->n; i++)
        drain_fd(w->fd[i]);
}

/* Runs the engine's loop: a frame written by the harness is read, dispatched
 * and its answers written within two rounds (the socketpair carries it at
 * once). */
static void pump(fz_world_t *w)
{
    for (int i = 0; i < 2; i++)
        event_base_loop(w->base, EVLOOP_NONBLOCK);
}

/* Writes one frame from peer (header + payload) into the engine's link. */
static void write_frame(fz_world_t *w, uint32_t peer, uint8_t type, const void *payload,
                        size_t len)
{
    if (w->fd[peer] < 0)
        return;
    static uint8_t frame[SPX_FRAME_HDR_LEN + 65536]; /* one send per frame */
    if (len > sizeof(frame) - SPX_FRAME_HDR_LEN)
        return;
    spx_frame_hdr_t h = { .type = type, .length = (uint32_t)len };
    spx_frame_hdr_encode(&h, frame);
    if (len)
        memcpy(frame + SPX_FRAME_HDR_LEN, payload, len);
    size_t off = 0, total = SPX_FRAME_HDR_LEN + len;
    int stalls = 0;
    while (off < total && stalls < 4) { /* a link the engine closed stays full */
        ssize_t r = send(w->fd[peer], frame + off, total - off, MSG_NOSIGNAL);
        if (r > 0) {
            off += (size_t)r;
            stalls = 0;
        } else if (r < 0 && errno == EAGAIN) {
            drain_peers(w); /* the engine may wait to write before it reads */
            pump(w);        /* the engine reads, the buffer empties */
            stalls++;
        } else {
            return;
        }
    }
}

static uint32_t pick_peer(const fz_world_t *w, uint8_t b)
{
    uint32_t p = b % w->n;
    return p == w->self ? (p + 1) % w->n : p;
}

static void op_coll_start(fz_world_t *w, fz_in_t *in)
{
    char set_id[8];
    snprintf(set_id, sizeof(set_id), "s%u", in_u8(in) % 4u);
    uint8_t mask = in_u8(in);
    uint32_t flags = in_u8(in) & 1u ? SPX_TREE_F_COLLECT : 0;
    uint8_t st = in_u8(in);
    size_t len = in_u8(in);
    const uint8_t *d = in_bytes(in, &len);
    uint32_t nodes[FZ_MAX_NODES];
    size_t k = 0;
    for (uint32_t i = 0; i < w->n; i++)
        if (i == w->self || (mask >> i) & 1u)
            nodes[k++] = i;
    if (w->nstarts >= FZ_MAX_STARTS)
        return;
    fz_start_t *s = &w->starts[w->nstarts];
    if (spx_tree_coll_start(w->t, set_id, nodes, k, flags, st ? -(pmix_status_t)st : PMIX_SUCCESS,
                            d, len, 0, on_done, s) == 0)
        w->nstarts++;
}

static void op_coll_frame(fz_world_t *w, fz_in_t *in)
{
    uint32_t peer = pick_peer(w, in_u8(in));
    bool up = in_u8(in) & 1u;
    char set_id[8];
    snprintf(set_id, sizeof(set_id), "s%u", in_u8(in) % 4u);
    uint32_t seq = in_u8(in) % 8u;
    uint8_t st = in_u8(in), flags = in_u8(in), up_flags = in_u8(in);
    size_t len = in_u8(in);
    const uint8_t *d = in_bytes(in, &len);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_str(&b, set_id);
    spx_buf_push_u32(&b, seq);
    spx_buf_push_i32(&b, st ? -(int32_t)st : 0);
    if (up) {
        spx_buf_push_u32(&b, flags & 1u);
        spx_buf_push_u8(&b, up_flags & 3u);
    }
    spx_buf_push_bytes(&b, d, len);
    if (!spx_buf_failed(&b))
        write_frame(w, peer, up ? SPX_TREE_FRAME_UP : SPX_TREE_FRAME_DOWN, b.data, b.len);
    spx_buf_fini(&b);
}

/* Kept for the whole run (making them was a third of an input's time): the
 * event base, and one socketpair per node slot. The engine is handed a dup of
 * the pair's engine end, so destroying it leaves the pair open; a pair whose
 * harness end was closed (CLOSE) is replaced by a new one. */
static struct event_base *fz_base;
static int fz_pair[FZ_MAX_NODES][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 },
                                        { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };

static void drain_fd(int fd)
{
    static uint8_t junk[65536];
    while (fd >= 0 && read(fd, junk, sizeof(junk)) > 0)
        ;
}

static int world_init(fz_world_t *w, fz_in_t *in)
{
    static const uint8_t secret[16] = "fuzz-tree-secret";
    const char *addrs[FZ_MAX_NODES];
    memset(w, 0, sizeof(*w));
    w->n = 2 + in_u8(in) % (FZ_MAX_NODES - 1);
    w->self = in_u8(in) % w->n;
    uint32_t width = 1 + in_u8(in) % 4u;
    for (uint32_t i = 0; i < FZ_MAX_NODES; i++) {
        addrs[i] = "127.0.0.1:0";
        w->fd[i] = -1;
    }
    if (!fz_base && !(fz_base = event_base_new()))
        abort();
    w->base = fz_base;
    spx_tree_config_t cfg = { .node_index = w->self, .nnodes = w->n, .width = width,
                              .addrs = addrs, .secret = secret, .secret_len = sizeof(secret),
                              .connect_timeout = 30 };
    spx_tree_ops_t ops = { .recv = on_recv, .node_lost = on_lost, .node_left = on_left };
    w->t = spx_tree_create(w->base, &cfg, &ops, w);
    if (!w->t)
        return -1;
    for (uint32_t i = 0; i < w->n; i++) {
        if (i == w->self)
            continue;
        if (fz_pair[i][1] < 0 &&
            socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fz_pair[i]) < 0)
            abort();
        int fd = fcntl(fz_pair[i][0], F_DUPFD_CLOEXEC, 0);
        if (fd < 0 || spx_tree_adopt_link(w->t, i, fd) < 0)
            abort();
        w->fd[i] = fz_pair[i][1];
    }
    return 0;
}

static void world_fini(fz_world_t *w)
{
    drain_peers(w);
    pump(w);
    spx_tree_destroy(w->t);
    for (int i = 0; i < 4; i++)
        event_base_loop(w->base, EVLOOP_NONBLOCK); /* the net layer reaps closed conns */
    for (int i = 0; i < w->nstarts; i++)
        if (w->starts[i].calls != 1)
            abort(); /* a collective that never completed (or twice) */
    /* a destroyed engine leaves nothing behind on the base */
    if (event_base_get_num_events(w->base, EVENT_BASE_COUNT_ADDED | EVENT_BASE_COUNT_ACTIVE))
        abort();
    for (uint32_t i = 0; i < FZ_MAX_NODES; i++) {
        if (fz_pair[i][1] < 0 && fz_pair[i][0] >= 0) {
            close(fz_pair[i][0]); /* CLOSE closed the harness end: a new pair next time */
            fz_pair[i][0] = -1;
        }
        drain_fd(fz_pair[i][0]); /* what the engine did not read */
        drain_fd(fz_pair[i][1]); /* what it wrote */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        once = 1;
        if (!getenv("SPMIX_DEBUG"))
            spx_log_set_level(SPX_LOG_ERROR);
    }
    fz_in_t in = { data, size };
    fz_world_t w;
    if (size < 3 || world_init(&w, &in) < 0)
        return 0;
    for (int ops = 0; in.left && ops < FZ_MAX_OPS; ops++) {
        uint8_t op = in_u8(&in) % 8u;
        switch (op) {
        case 0:
        case 1: {
            uint32_t peer = pick_peer(&w, in_u8(&in));
            uint8_t type = in_u8(&in);
            if (op == 1)
                type = (uint8_t)(SPX_TREE_FRAME_AUTH + type % 7u);
            size_t len = in_u16(&in);
            const uint8_t *p = in_bytes(&in, &len);
            write_frame(&w, peer, type, p, len);
            break;
        }
        case 2:
            op_coll_start(&w, &in);
            break;
        case 3:
            op_coll_frame(&w, &in);
            break;
        case 4: {
            uint32_t to = in_u8(&in) % (w.n + 1); /* n: out of range */
            uint8_t ch = in_u8(&in);
            size_t len = in_u8(&in);
            const uint8_t *p = in_bytes(&in, &len);
            spx_tree_send(w.t, to, ch, p, len);
            break;
        }
        case 5: {
            uint8_t ch = in_u8(&in);
            size_t len = in_u8(&in);
            const uint8_t *p = in_bytes(&in, &len);
            spx_tree_bcast(w.t, ch, p, len);
            break;
        }
        case 6: {
            uint32_t peer = pick_peer(&w, in_u8(&in));
            if (w.fd[peer] >= 0) {
                close(w.fd[peer]);
                w.fd[peer] = fz_pair[peer][1] = -1;
            }
            break;
        }
        default:
            if (in_u8(&in) & 1u)
                spx_tree_leave(w.t);
            break;
        }
        pump(&w);
    }
    world_fini(&w);
    return 0;
}
