/* gen_tree_auth_seeds.c - writes the seed corpus of fuzz_tree_auth (the input
 * format is in fuzz_tree_auth.c): each step of a tool's handshake and of the
 * servers' handshake done right, then the hostile variants - a credential
 * before the hello, of another connection, empty, over the bound, cut short,
 * with a length that lies; a servers' HELLO after a tool's and the reverse;
 * wrong nodes, a wrong or reflected PROOF; frames of other types, bad
 * headers, over-long lengths, random bytes; bytes after the credential;
 * tools refused. Deterministic (the random bytes come from a fixed LCG).
 * Usage: gen_tree_auth_seeds <dir>. The output is committed in
 * test/fuzz/corpus-tree-auth. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/frame.h"
#include "tree/proto.h"

enum { OP_OPEN, OP_RAW, OP_FRAME, OP_HELLO, OP_CRED, OP_THELLO, OP_PROOF, OP_SHUT, OP_CLOSE,
       OP_LOOP };
enum { CRED_VALID, CRED_OTHER, CRED_STR, CRED_LIE, CRED_LONG, CRED_TRAIL };

static const char *outdir;
static uint8_t in[8192];
static size_t len;

static void u8(uint8_t v)
{
    if (len < sizeof(in))
        in[len++] = v;
}

static void u16(uint16_t v)
{
    u8((uint8_t)v);
    u8((uint8_t)(v >> 8));
}

static void u32(uint32_t v)
{
    u16((uint16_t)v);
    u16((uint16_t)(v >> 16));
}

static void raw(const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        u8(((const uint8_t *)p)[i]);
}

/* n = 2 + nsel % 3, self, tools (0: taken, 1: refused) */
static void begin(uint8_t nsel, uint8_t self, uint8_t no_tools)
{
    len = 0;
    u8(nsel);
    u8(self);
    u8(no_tools);
}

static void emit(const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(in, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void op(uint8_t o, uint8_t slot)
{
    u8(o);
    u8(slot);
}

static void open_(uint8_t s) { op(OP_OPEN, s); }
static void hello(uint8_t s) { op(OP_HELLO, s); u8(0); }
static void shut(uint8_t s) { op(OP_SHUT, s); }
static void close_(uint8_t s) { op(OP_CLOSE, s); }

static void cred(uint8_t s, uint8_t mode, const char *extra)
{
    op(OP_CRED, s);
    u8(mode);
    u8((uint8_t)strlen(extra));
    raw(extra, strlen(extra));
}

static void cred_str(uint8_t s, const void *str, uint16_t n)
{
    op(OP_CRED, s);
    u8(CRED_STR);
    u16(n);
    raw(str, n);
    u8(0);
}

static void cred_lie(uint8_t s, uint32_t said, const void *str, uint16_t n)
{
    op(OP_CRED, s);
    u8(CRED_LIE);
    u32(said);
    u16(n);
    raw(str, n);
    u8(0);
}

static void thello(uint8_t s, uint8_t from, uint8_t to)
{
    op(OP_THELLO, s);
    u8(from);
    u8(to);
}

static void proof(uint8_t s, uint8_t mode)
{
    op(OP_PROOF, s);
    u8(mode);
    if (mode == 1)
        for (int i = 0; i < 32; i++)
            u8((uint8_t)(0x5a ^ i));
}

static void rawbytes(uint8_t s, const void *p, uint16_t n)
{
    op(OP_RAW, s);
    u16(n);
    raw(p, n);
}

/* A frame of type type (AUTH when 0) with payload p; how as in the format. */
static void frame(uint8_t s, uint8_t type, uint8_t how, uint32_t lie, const void *p, uint16_t n)
{
    op(OP_FRAME, s);
    if (type) {
        u8(1);
        u8(type);
    } else {
        u8(0);
    }
    u8(how);
    if (how & 1u)
        u32(lie);
    u16(n);
    raw(p, n);
}

static uint32_t lcg = 12345;

static uint8_t rnd(void)
{
    lcg = lcg * 1103515245u + 12345u;
    return (uint8_t)(lcg >> 16);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <dir>\n", argv[0]);
        return 1;
    }
    outdir = argv[1];

    /* a tool, each step right: handed over */
    begin(0, 0, 0);
    open_(0);
    hello(0);
    cred(0, CRED_VALID, "");
    emit("tool-ok");

    /* ... with the client protocol's first bytes in the credential's write */
    begin(1, 1, 0);
    open_(2);
    hello(2);
    cred(2, CRED_VALID, "SPMX after the credential");
    rawbytes(2, "and more later", 14);
    emit("tool-ok-bytes-after");

    /* tools refused by an engine without tool_accept */
    begin(0, 0, 1);
    open_(0);
    hello(0);
    cred(0, CRED_VALID, "");
    emit("tool-not-taken");

    /* a TOOL_HELLO of another version, one with a byte too many */
    begin(0, 0, 0);
    open_(0);
    op(OP_HELLO, 0);
    u8(1);
    u32(2);
    open_(1);
    op(OP_HELLO, 1);
    u8(2);
    emit("tool-hello-version");

    /* a credential before the hello; a second hello instead of a credential */
    begin(0, 1, 0);
    open_(0);
    cred(0, CRED_VALID, "");
    open_(1);
    hello(1);
    hello(1);
    emit("tool-cred-early");

    /* a forged credential, an empty one, one with a NUL inside */
    begin(2, 0, 0);
    open_(0);
    hello(0);
    cred_str(0, "MUNGE:forged:", 13);
    open_(1);
    hello(1);
    cred_str(1, "", 0);
    open_(2);
    hello(2);
    cred_str(2, "spmix-fuzz-cred:\0abc", 20);
    emit("tool-cred-forged");

    /* credential of another connection (a replay); then the right one, too late */
    begin(0, 0, 0);
    open_(0);
    open_(1);
    hello(0);
    hello(1);
    cred(0, CRED_OTHER, "");
    cred(1, CRED_VALID, "");
    cred(0, CRED_VALID, "");
    emit("tool-cred-other-conn");

    /* over the bound; a valid one with a byte after it in the payload */
    begin(0, 0, 0);
    open_(0);
    hello(0);
    cred(0, CRED_LONG, "");
    open_(1);
    hello(1);
    cred(1, CRED_TRAIL, "");
    emit("tool-cred-long-trailing");

    /* string lengths that lie: more than the frame, u32 max, the NULL string */
    begin(0, 0, 0);
    open_(0);
    hello(0);
    cred_lie(0, 100, "abc", 3);
    open_(1);
    hello(1);
    cred_lie(1, 0xffffffffu, "abc", 3);
    open_(2);
    hello(2);
    cred_lie(2, 0x7fffffffu, "", 0);
    emit("tool-cred-length-lies");

    /* a credential frame cut short, then the end of the stream */
    begin(0, 0, 0);
    open_(0);
    hello(0);
    frame(0, 0, 1, 40, "\x06\x10\0\0\0ab", 7);
    shut(0);
    open_(1);
    hello(1);
    shut(1);
    emit("tool-cred-truncated");

    /* a servers' HELLO after a tool's, and a tool's after a servers' */
    begin(1, 0, 0);
    open_(0);
    hello(0);
    thello(0, 1, 0);
    open_(1);
    thello(1, 1, 0);
    hello(1);
    open_(2);
    thello(2, 2, 0);
    cred(2, CRED_VALID, "");
    emit("tree-hello-after-tool");

    /* the servers' handshake right, then a tool's steps on the ready link */
    begin(0, 0, 0);
    open_(0);
    thello(0, 1, 0);
    proof(0, 0);
    hello(0);
    emit("tree-ok");

    /* a ready link that closes: its node is lost */
    begin(2, 3, 0);
    open_(1);
    thello(1, 0, 3);
    proof(1, 0);
    close_(1);
    open_(2);
    thello(2, 0, 3);
    emit("tree-ok-lost");

    /* a wrong PROOF, a reflected one, one with a byte too many */
    begin(1, 2, 0);
    open_(0);
    thello(0, 1, 2);
    proof(0, 1);
    open_(1);
    thello(1, 0, 2);
    proof(1, 3);
    open_(2);
    thello(2, 1, 2);
    proof(2, 2);
    emit("tree-proof-bad");

    /* HELLOs naming wrong nodes: itself, out of range, another acceptor */
    begin(0, 0, 0);
    open_(0);
    thello(0, 0, 0);
    open_(1);
    op(OP_THELLO, 1);
    u8(250);
    u32(0xffffffffu);
    u8(0);
    open_(2);
    thello(2, 1, 1);
    open_(3);
    thello(3, 1, 0);
    thello(3, 1, 0);
    emit("tree-hello-wrong-node");

    /* a PROOF with no HELLO, a CHALLENGE and a TOOL_ACK sent to the acceptor */
    begin(0, 0, 0);
    open_(0);
    proof(0, 0);
    open_(1);
    frame(1, 0, 0, 0, "\x02", 1);
    open_(2);
    frame(2, 0, 0, 0, "\x07\0\0\0\0\0\0\0\0", 9);
    open_(3);
    frame(3, 0, 0, 0, "", 0);
    emit("auth-wrong-steps");

    /* tree frames of every other type before authentication */
    begin(0, 0, 0);
    for (uint8_t i = 0; i < 4; i++) {
        open_(i);
        frame(i, (uint8_t)(SPX_TREE_FRAME_UP + i), 0, 0, "\x01\x02\x03\x04", 4);
    }
    open_(0);
    frame(0, 0x10, 0, 0, "", 0);
    emit("frames-before-auth");

    /* headers: bad magic, bad version, over the cap, a length never sent,
     * flags and seq not 0 on a good hello */
    begin(0, 0, 0);
    open_(0);
    frame(0, 0, 2, 0, "\x04\x01\0\0\0", 5);
    open_(1);
    frame(1, 0, 4, 0, "\x04\x01\0\0\0", 5);
    open_(2);
    frame(2, 0, 1, 0xffffffffu, "", 0);
    open_(3);
    frame(3, 0, 1, 1u << 20, "\x04\x01\0\0\0", 5);
    shut(3);
    open_(0);
    frame(0, 0, 8, 0, "\x04\x01\0\0\0", 5);
    cred(0, CRED_VALID, "");
    emit("headers");

    /* random bytes, on a fresh connection and after a hello */
    begin(0, 0, 0);
    uint8_t junk[600];
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = rnd();
    open_(0);
    rawbytes(0, junk, 200);
    open_(1);
    hello(1);
    rawbytes(1, junk + 200, 200);
    open_(2);
    rawbytes(2, "\x13\x37 not a frame header at all", 29);
    open_(3);
    thello(3, 1, 0);
    rawbytes(3, junk + 400, 200);
    emit("random-bytes");

    /* connections reset at each step */
    begin(0, 0, 0);
    open_(0);
    close_(0);
    open_(1);
    hello(1);
    close_(1);
    open_(2);
    thello(2, 1, 0);
    close_(2);
    open_(3);
    hello(3);
    op(OP_LOOP, 0);
    cred(3, CRED_VALID, "x");
    close_(3);
    emit("resets");
    return 0;
}
