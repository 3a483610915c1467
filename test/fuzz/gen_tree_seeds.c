/* gen_tree_seeds.c - writes the seed corpus of fuzz_tree (see fuzz_tree.c for
 * the input format): well-formed frames of every type on a ready link, the
 * server's channels inside MSG and BCAST, collectives that complete, abort,
 * disagree or lose a node, orderly departures. Usage: gen_tree_seeds <dir>.
 * The output is committed in test/fuzz/corpus-tree. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/buf.h"

enum { OP_RAW, OP_FRAME, OP_START, OP_COLL, OP_SEND, OP_BCAST, OP_CLOSE, OP_LEAVE };
enum { T_AUTH, T_UP, T_DOWN, T_MSG, T_BCAST, T_NODE_LOST, T_NODE_LEFT }; /* 0xA0 + */

static const char *outdir;
static spx_buf_t in;

static void begin(uint8_t n_sel, uint8_t self, uint8_t width_sel)
{
    spx_buf_init(&in);
    spx_buf_push_u8(&in, n_sel);
    spx_buf_push_u8(&in, self);
    spx_buf_push_u8(&in, width_sel);
}

static void emit(const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f || spx_buf_failed(&in)) {
        perror(path);
        exit(1);
    }
    fwrite(in.data, 1, in.len, f);
    fclose(f);
    spx_buf_fini(&in);
}

/* OP_FRAME from peer with the payload built in p (consumed). */
static void frame(uint8_t peer, uint8_t type, spx_buf_t *p)
{
    spx_buf_push_u8(&in, OP_FRAME);
    spx_buf_push_u8(&in, peer);
    spx_buf_push_u8(&in, type);
    spx_buf_push_u16(&in, (uint16_t)p->len);
    spx_buf_push_raw(&in, p->data, p->len);
    spx_buf_fini(p);
}

static void start(uint8_t set, uint8_t mask, uint8_t flags, uint8_t status, const char *data)
{
    spx_buf_push_u8(&in, OP_START);
    spx_buf_push_u8(&in, set);
    spx_buf_push_u8(&in, mask);
    spx_buf_push_u8(&in, flags);
    spx_buf_push_u8(&in, status);
    spx_buf_push_u8(&in, (uint8_t)strlen(data));
    spx_buf_push_raw(&in, data, strlen(data));
}

static void coll(uint8_t peer, int up, uint8_t set, uint8_t seq, uint8_t status, uint8_t flags,
                 uint8_t up_flags, const char *data)
{
    spx_buf_push_u8(&in, OP_COLL);
    spx_buf_push_u8(&in, peer);
    spx_buf_push_u8(&in, (uint8_t)up);
    spx_buf_push_u8(&in, set);
    spx_buf_push_u8(&in, seq);
    spx_buf_push_u8(&in, status);
    spx_buf_push_u8(&in, flags);
    spx_buf_push_u8(&in, up_flags);
    spx_buf_push_u8(&in, (uint8_t)strlen(data));
    spx_buf_push_raw(&in, data, strlen(data));
}

static void op2(uint8_t op, uint8_t arg)
{
    spx_buf_push_u8(&in, op);
    spx_buf_push_u8(&in, arg);
}

static void push_proc(spx_buf_t *b, const char *ns, uint32_t rank)
{
    spx_buf_push_str(b, ns);
    spx_buf_push_u32(b, rank);
}

/* A server channel's payload, roughly as lib/server builds it. */
static void channel_payload(spx_buf_t *b, uint8_t ch)
{
    spx_buf_init(b);
    switch (ch) {
    case 1: /* DMX_REQ: u32 id, proc, str key, u8 optional */
        spx_buf_push_u32(b, 7);
        push_proc(b, "job", 3);
        spx_buf_push_str(b, "key");
        spx_buf_push_u8(b, 0);
        break;
    case 2: /* DMX_REP: u32 id, i32 status, records */
        spx_buf_push_u32(b, 7);
        spx_buf_push_i32(b, 0);
        spx_buf_push_u32(b, 0);
        break;
    case 3: /* EVENT: i32 status, proc source, u8 range, info[] */
        spx_buf_push_i32(b, -1);
        push_proc(b, "job", 0);
        spx_buf_push_u8(b, 1);
        spx_buf_push_u32(b, 0);
        break;
    case 5: /* PUBSUB_REQ: u64 id, u8 op, proc, u32 nkeys, keys, info[] */
        spx_buf_push_u64(b, 9);
        spx_buf_push_u8(b, 2);
        push_proc(b, "job", 1);
        spx_buf_push_u32(b, 1);
        spx_buf_push_str(b, "svc");
        spx_buf_push_u32(b, 0);
        break;
    case 6: /* PUBSUB_REP: u64 id, i32 status, u32 n */
        spx_buf_push_u64(b, 9);
        spx_buf_push_i32(b, -46);
        spx_buf_push_u32(b, 0);
        break;
    default: /* PROC_LOST, PUBSUB_GONE: proc */
        push_proc(b, "job", 2);
        break;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <dir>\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    char name[64];
    spx_buf_t p, c;

    for (uint8_t ch = 1; ch <= 7; ch++) { /* MSG and BCAST for every server channel */
        begin(2, 1, 1); /* 4 nodes, self 1, width 2 */
        channel_payload(&c, ch);
        spx_buf_init(&p);
        spx_buf_push_u8(&p, ch);
        spx_buf_push_bytes(&p, c.data, c.len);
        frame(0, T_MSG, &p);
        spx_buf_init(&p);
        spx_buf_push_u32(&p, 3);
        spx_buf_push_u8(&p, ch);
        spx_buf_push_bytes(&p, c.data, c.len);
        frame(0, T_BCAST, &p);
        spx_buf_fini(&c);
        snprintf(name, sizeof(name), "channel-%u", ch);
        emit(name);
    }

    begin(3, 0, 1); /* node loss told by a neighbour, then an end notice */
    spx_buf_init(&p);
    spx_buf_push_u32(&p, 2);
    spx_buf_push_str(&p, "connection reset");
    frame(1, T_NODE_LOST, &p);
    spx_buf_init(&p);
    spx_buf_push_u32(&p, 3);
    frame(1, T_NODE_LEFT, &p);
    emit("node-lost-left");

    begin(1, 0, 0); /* a neighbour that says it ends, then closes */
    spx_buf_init(&p);
    spx_buf_push_u32(&p, 1);
    frame(1, T_NODE_LEFT, &p);
    op2(OP_CLOSE, 1);
    emit("node-left-own");

    begin(0, 0, 0); /* AUTH on a ready link, and a frame of no type */
    spx_buf_init(&p);
    spx_buf_push_u8(&p, 1);
    frame(1, T_AUTH, &p);
    emit("auth-on-ready");

    begin(2, 0, 1); /* root of 4 (width 2): gather from children 1, 2 then done */
    start(0, 0x0f, 1, 0, "r0");
    coll(1, 1, 0, 0, 0, 1, 0, "c1");
    coll(2, 1, 0, 0, 0, 1, 0, "c2");
    emit("coll-root");

    begin(2, 1, 1); /* interior node 1: UP from child 3, DOWN from parent 0 */
    coll(3, 1, 0, 0, 0, 1, 0, "c3");
    start(0, 0x0f, 1, 0, "n1");
    coll(0, 0, 0, 0, 0, 0, 0, "all");
    emit("coll-pending-first");

    begin(2, 1, 1); /* an abort from below, an error DOWN, flags that disagree */
    start(1, 0x0f, 1, 0, "x");
    coll(3, 1, 1, 0, 5, 1, 1, "");
    start(2, 0x0f, 0, 0, "");
    coll(3, 1, 2, 0, 0, 1, 0, "y");
    coll(0, 0, 2, 0, 25, 0, 0, "");
    emit("coll-abort-mismatch");

    begin(2, 1, 1); /* a child lost in the middle of a collective, then leave */
    start(3, 0x0f, 1, 0, "z");
    op2(OP_CLOSE, 3);
    op2(OP_LEAVE, 1);
    emit("coll-lost-child");

    begin(1, 2, 0); /* sends and broadcasts of our own, leave when idle */
    spx_buf_push_u8(&in, OP_SEND);
    spx_buf_push_u8(&in, 0);
    spx_buf_push_u8(&in, 1);
    spx_buf_push_u8(&in, 2);
    spx_buf_push_raw(&in, "hi", 2);
    spx_buf_push_u8(&in, OP_BCAST);
    spx_buf_push_u8(&in, 3);
    spx_buf_push_u8(&in, 0);
    op2(OP_LEAVE, 1);
    emit("send-bcast-leave");

    begin(6, 3, 0); /* 8 nodes width 1 (a chain): a broadcast forwarded both ways */
    spx_buf_init(&p);
    spx_buf_push_u32(&p, 0);
    spx_buf_push_u8(&p, 3);
    spx_buf_push_bytes(&p, "evt", 3);
    frame(2, T_BCAST, &p);
    spx_buf_init(&p);
    spx_buf_push_u32(&p, 7);
    spx_buf_push_str(&p, "gone");
    frame(4, T_NODE_LOST, &p);
    emit("chain-bcast");

    begin(0, 0, 0); /* malformed: trailing bytes, a huge length, an unknown type */
    spx_buf_init(&p);
    spx_buf_push_u8(&p, 1);
    spx_buf_push_u32(&p, 0xffffffffu);
    frame(1, T_MSG, &p);
    spx_buf_push_u8(&in, OP_RAW);
    spx_buf_push_u8(&in, 1);
    spx_buf_push_u8(&in, 0x42);
    spx_buf_push_u16(&in, 0);
    emit("malformed");
    return 0;
}
