/* fuzz_tree_auth.c - libFuzzer entry point for what a connection to a tree
 * engine's port may send before it is authenticated: the servers' HELLO /
 * CHALLENGE / PROOF (HMAC of the step's secret) and a tool's TOOL_HELLO /
 * TOOL_CHALLENGE / TOOL_CRED / TOOL_ACK (lib/tree/proto.h, handshake.c),
 * in any order, cut short, with any lengths and any bytes.
 *
 * Each input builds one engine (node `self` of n) listening on 127.0.0.1 on
 * a private event base, and opens real TCP connections to it (up to 4 at a
 * time, FZ_MAX_CONNS in all), through the listener's own accept path. The
 * munge credential is replaced by tool_auth_stub.c (linked before the core
 * library, it takes the place of lib/tree/tool_auth.c): the credential for a
 * nonce is "spmix-fuzz-cred:" + the nonce in hex, so a valid one exists only
 * for a nonce the engine sent. The harness reads everything the engine
 * writes after each record.
 *
 * Input: 3 bytes of configuration (n = 2 + b0 % 3, self = b1 % n, bit 0 of
 * b2: no ops.tool_accept, tools refused), then records, each an op byte
 * (% 10) and a slot byte (% 4) and fields (u16/u32 little endian; `len`
 * bytes follow, cut short at the end of the input):
 *   0 OPEN      a new connection in the slot (an open one is reset first)
 *   1 RAW       u16 len, bytes                        written as they are
 *   2 FRAME     u8 tsel [u8 type if tsel & 1], u8 how, u16 len, payload
 *               a frame (type AUTH unless tsel & 1); how: bit 0 the header's
 *               length is an u32 of the input instead, bit 1 bad magic,
 *               bit 2 bad version, bit 3 flags and seq not 0
 *   3 HELLO     u8 v: a TOOL_HELLO (v 1: u32 version of the input; v 2: one
 *               byte too many; else version 1)
 *   4 CRED      u8 mode, mode-specific, u8 xlen, xlen bytes sent in the same
 *               write after the frame. mode % 6: 0 the valid credential for
 *               this connection's TOOL_CHALLENGE (zeros if none came),
 *               1 the valid one of the next slot's challenge, 2 u16 len +
 *               bytes as the string, 3 u32 string length + u16 len bytes,
 *               4 valid but padded past SPX_TREE_TOOL_MAX_CRED, 5 valid and
 *               one more byte in the payload
 *   5 THELLO    u8 from, u8 to (>= 250: an u32 of the input, else % (n + 1)):
 *               a servers' HELLO with a nonce of the harness
 *   6 PROOF     u8 mode % 4: 0 the valid PROOF for this connection's
 *               CHALLENGE, 1 32 bytes of the input, 2 valid + one byte,
 *               3 the CHALLENGE's own HMAC sent back (a reflection)
 *   7 SHUT      shutdown(SHUT_WR): the engine sees the end of the stream
 *   8 CLOSE     the connection is reset (SO_LINGER 0)
 *   9 LOOP      nothing but the loop
 * Checks: the engine writes only well-formed AUTH frames before a link is
 * ready, flags and seq 0, a CHALLENGE whose HMAC is right when the harness
 * sent a clean HELLO (and none for a HELLO naming a wrong node), at most one
 * challenge per connection, nothing after a TOOL_ACK; a TOOL_ACK of 0 only
 * on a connection handed over, any other with a "tool refused: " reason;
 * ops.tool_accept only for a connection whose bytes begin with exactly a
 * TOOL_HELLO of version 1 and a TOOL_CRED holding the stub's credential for
 * the nonce the engine sent on that connection (and the stub accepted it),
 * with the stub's uid/gid, once; the bytes sent after that credential all
 * reach the handed socket. After the records the engine must still work: a
 * new tool gets through (or is refused with an ACK when tools are off) and
 * a node not lost completes the servers' handshake (its link is ready).
 * The engine is destroyed, the loop run, and no event may be left on the
 * base; ASan/UBSan and LeakSanitizer see everything. fuzz_replay.c replays
 * corpus-tree-auth in make check; gen_tree_auth_seeds.c writes the seeds.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
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
#include "util/sha256.h"
#include "fuzz_input.h"
#include "tool_auth_stub.h"

#define FZ_SLOTS 4
#define FZ_MAX_CONNS 24
#define FZ_MAX_OPS 256
#define FZ_LOG_MAX 16384
#define FZ_RX_MAX 8192
#define FZ_NONCE SPX_TREE_NONCE_LEN

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fz_secret[] = "fuzz-tree-auth-secret";

typedef struct fz_conn {
    int fd;             /* harness end; -1 once closed by the harness */
    uint16_t port;      /* its local port: names it in tool_accept */
    bool shut, eof;     /* harness half-closed; engine closed (read 0 / error) */
    uint8_t sent[FZ_LOG_MAX];
    size_t nsent;
    bool sent_full;     /* the log overflowed: no byte checks */
    uint8_t rx[FZ_RX_MAX];
    size_t nrx;
    int challenges;     /* CHALLENGE + TOOL_CHALLENGE received */
    bool tool_chal, tree_chal;
    uint8_t tool_nonce[FZ_NONCE], nonce_a[FZ_NONCE], chal_mac[SPX_SHA256_LEN];
    bool thello, clean;     /* sent a servers' HELLO; it was the first and only bytes */
    uint32_t from, to;
    uint8_t nonce_c[FZ_NONCE];
    bool proof_ok;          /* sent a valid PROOF after a CHALLENGE: tree frames may come */
    bool acked;
    int32_t ack_status;
    bool handed;
    int handed_fd;
} fz_conn_t;

typedef struct fz_world {
    struct event_base *base;
    spx_tree_t *t;
    uint32_t n, self;
    bool tools;
    fz_conn_t conns[FZ_MAX_CONNS];
    int nconns;
    int slot[FZ_SLOTS]; /* index into conns, -1 */
    int lost[8], left[8];
    unsigned long stub_before;
} fz_world_t;

static struct event_base *fz_base;
static fz_world_t fz_w;

/* ---- the engine's callbacks ---- */

static void on_recv(uint32_t from, uint8_t ch, const void *data, size_t len, void *arg)
{
    fz_world_t *w = arg;
    (void)ch, (void)data, (void)len;
    if (from >= w->n || from == w->self)
        abort();
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

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Splits the first frame off log[0..len): its header and payload; 0 or -1. */
static int next_frame(const uint8_t *log, size_t len, size_t *at, spx_frame_hdr_t *h,
                      const uint8_t **payload)
{
    if (len - *at < SPX_FRAME_HDR_LEN || spx_frame_hdr_decode(log + *at, h) < 0)
        return -1;
    if (len - *at - SPX_FRAME_HDR_LEN < h->length)
        return -1;
    *payload = log + *at + SPX_FRAME_HDR_LEN;
    *at += SPX_FRAME_HDR_LEN + h->length;
    return 0;
}

static void read_conn(fz_world_t *w, fz_conn_t *c);

/* A tool handed over: it must have sent exactly a TOOL_HELLO of version 1,
 * then the stub's credential for the nonce of this connection. */
static void on_tool(int fd, uid_t uid, gid_t gid, const char *label, void *arg)
{
    fz_world_t *w = arg;
    struct sockaddr_in a;
    socklen_t al = sizeof(a);
    if (!w->tools || uid != FZ_STUB_UID || gid != FZ_STUB_GID || !label || fd < 0 ||
        getpeername(fd, (struct sockaddr *)&a, &al) < 0)
        abort();
    fz_conn_t *c = NULL;
    for (int i = w->nconns - 1; i >= 0 && !c; i--)
        if (w->conns[i].port == ntohs(a.sin_port))
            c = &w->conns[i];
    if (!c || c->handed || !c->tool_chal)
        abort();
    c->handed = true;
    c->handed_fd = fd;
    size_t at = 0;
    spx_frame_hdr_t h;
    const uint8_t *p;
    static const uint8_t hello[5] = { SPX_TREE_AUTH_TOOL_HELLO, SPX_TREE_TOOL_VERSION, 0, 0, 0 };
    if (c->sent_full && c->nsent < 2 * SPX_FRAME_HDR_LEN + sizeof(hello) + 5 + FZ_STUB_CRED_LEN)
        abort(); /* the log cannot be short of the two frames the engine read */
    if (next_frame(c->sent, c->nsent, &at, &h, &p) < 0 || h.type != SPX_TREE_FRAME_AUTH ||
        h.length != sizeof(hello) || memcmp(p, hello, sizeof(hello)) != 0)
        abort(); /* handed over without a proper hello */
    char want[FZ_STUB_CRED_LEN + 1];
    fz_stub_cred(c->tool_nonce, want);
    if (next_frame(c->sent, c->nsent, &at, &h, &p) < 0 || h.type != SPX_TREE_FRAME_AUTH ||
        h.length != 5 + FZ_STUB_CRED_LEN || p[0] != SPX_TREE_AUTH_TOOL_CRED ||
        le32(p + 1) != FZ_STUB_CRED_LEN || memcmp(p + 5, want, FZ_STUB_CRED_LEN) != 0)
        abort(); /* handed over without this connection's credential */
    if (fz_stub_accepted != w->stub_before + 1 ||
        memcmp(fz_stub_last_nonce, c->tool_nonce, FZ_NONCE) != 0)
        abort();
    w->stub_before = fz_stub_accepted;
    if (c->fd >= 0)
        read_conn(w, c); /* the ACK was written before the hand-over */
}

/* ---- what the engine writes ---- */

static void mac_of(const char *label, const fz_conn_t *c, uint32_t connector, uint32_t acceptor,
                   uint8_t out[SPX_SHA256_LEN])
{
    uint8_t idx[8];
    for (int i = 0; i < 4; i++) {
        idx[i] = (uint8_t)(connector >> (8 * i));
        idx[4 + i] = (uint8_t)(acceptor >> (8 * i));
    }
    spx_hmac_sha256_t h;
    spx_hmac_sha256_init(&h, fz_secret, sizeof(fz_secret) - 1);
    spx_hmac_sha256_update(&h, label, strlen(label));
    spx_hmac_sha256_update(&h, c->nonce_c, FZ_NONCE);
    spx_hmac_sha256_update(&h, c->nonce_a, FZ_NONCE);
    spx_hmac_sha256_update(&h, idx, sizeof(idx));
    spx_hmac_sha256_final(&h, out);
}

static void check_auth_frame(fz_world_t *w, fz_conn_t *c, const uint8_t *p, uint32_t len)
{
    if (len < 1 || c->acked)
        abort(); /* nothing after an ACK */
    if (p[0] == SPX_TREE_AUTH_CHALLENGE) {
        if (len != 1 + FZ_NONCE + SPX_SHA256_LEN || c->challenges++)
            abort();
        c->tree_chal = true;
        memcpy(c->nonce_a, p + 1, FZ_NONCE);
        memcpy(c->chal_mac, p + 1 + FZ_NONCE, SPX_SHA256_LEN);
        if (c->clean) { /* the engine answered our HELLO alone: it must be right */
            uint8_t want[SPX_SHA256_LEN];
            if (c->to != w->self || c->from >= w->n || c->from == w->self)
                abort();
            mac_of(SPX_TREE_AUTH_LABEL_ACCEPTOR, c, c->from, w->self, want);
            if (memcmp(want, c->chal_mac, sizeof(want)) != 0)
                abort();
        }
    } else if (p[0] == SPX_TREE_AUTH_TOOL_CHALLENGE) {
        if (len != 1 + FZ_NONCE || c->challenges++ || !w->tools)
            abort();
        c->tool_chal = true;
        memcpy(c->tool_nonce, p + 1, FZ_NONCE);
    } else if (p[0] == SPX_TREE_AUTH_TOOL_ACK) {
        spx_buf_t b;
        spx_buf_init(&b);
        spx_buf_push_raw(&b, p + 1, len - 1);
        int32_t st = spx_buf_pull_i32(&b);
        char why[SPX_TREE_TOOL_MAX_REASON];
        spx_buf_pull_str_into(&b, why, sizeof(why));
        if (spx_buf_finish(&b) < 0)
            abort();
        spx_buf_fini(&b);
        c->acked = true;
        c->ack_status = st;
        if (st == PMIX_SUCCESS ? (!c->handed || why[0]) :
                                 (c->handed || strncmp(why, "tool refused: ", 14) != 0))
            abort();
    } else {
        abort(); /* the engine sends no other step to an acceptor's peer */
    }
}

/* Parses the complete frames in c->rx. */
static void parse_rx(fz_world_t *w, fz_conn_t *c)
{
    size_t at = 0;
    spx_frame_hdr_t h;
    const uint8_t *p;
    while (at < c->nrx) {
        if (next_frame(c->rx, c->nrx, &at, &h, &p) < 0) {
            if (c->nrx - at >= SPX_FRAME_HDR_LEN && spx_frame_hdr_decode(c->rx + at, &h) < 0)
                abort(); /* a bad header from the engine */
            break;
        }
        if (h.flags || h.seq)
            abort();
        if (h.type == SPX_TREE_FRAME_AUTH)
            check_auth_frame(w, c, p, h.length);
        else if (!c->proof_ok)
            abort(); /* tree frames before the link could be ready */
    }
    memmove(c->rx, c->rx + at, c->nrx - at);
    c->nrx -= at;
    if (c->nrx == sizeof(c->rx))
        abort(); /* a frame this large before authentication */
}

static void read_conn(fz_world_t *w, fz_conn_t *c)
{
    while (c->fd >= 0 && !c->eof) {
        ssize_t r = recv(c->fd, c->rx + c->nrx, sizeof(c->rx) - c->nrx, MSG_DONTWAIT);
        if (r > 0 && c->proof_ok) {
            c->nrx = 0; /* the link may be ready: tree traffic, fuzz_tree's part */
        } else if (r > 0) {
            c->nrx += (size_t)r;
            parse_rx(w, c);
        } else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            c->eof = true;
        } else if (errno != EINTR) {
            return;
        }
    }
}

static void pump(fz_world_t *w)
{
    for (int i = 0; i < 4; i++) {
        event_base_loop(w->base, EVLOOP_NONBLOCK);
        for (int k = 0; k < w->nconns; k++)
            read_conn(w, &w->conns[k]);
    }
}

/* ---- what the harness sends ---- */

static fz_conn_t *slot_conn(fz_world_t *w, uint8_t s)
{
    int i = w->slot[s % FZ_SLOTS];
    return i >= 0 && w->conns[i].fd >= 0 ? &w->conns[i] : NULL;
}

static void send_bytes(fz_world_t *w, fz_conn_t *c, const void *data, size_t len)
{
    if (!c || c->shut)
        return;
    if (c->sent_full || len > sizeof(c->sent) - c->nsent) {
        c->sent_full = true; /* the log stops here: later bytes are not checked */
    } else {
        memcpy(c->sent + c->nsent, data, len);
        c->nsent += len;
    }
    size_t off = 0;
    for (int stalls = 0; off < len && stalls < 4;) {
        ssize_t r = send(c->fd, (const uint8_t *)data + off, len - off, MSG_NOSIGNAL);
        if (r > 0) {
            off += (size_t)r;
        } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pump(w);
            stalls++;
        } else {
            break; /* the engine closed it */
        }
    }
    if (off < len)
        c->sent_full = true; /* not all of it went out: no byte checks */
}

static void send_frame(fz_world_t *w, fz_conn_t *c, spx_buf_t *b, const uint8_t *extra,
                       size_t xlen)
{
    static uint8_t out[SPX_FRAME_HDR_LEN + 65536 + 2 * SPX_TREE_TOOL_MAX_CRED];
    spx_frame_hdr_t h = { .version = SPX_FRAME_VERSION, .type = SPX_TREE_FRAME_AUTH,
                          .length = (uint32_t)b->len };
    if (!spx_buf_failed(b) && b->len + xlen <= sizeof(out) - SPX_FRAME_HDR_LEN) {
        spx_frame_hdr_encode(&h, out);
        memcpy(out + SPX_FRAME_HDR_LEN, b->data, b->len);
        if (xlen)
            memcpy(out + SPX_FRAME_HDR_LEN + b->len, extra, xlen);
        send_bytes(w, c, out, SPX_FRAME_HDR_LEN + b->len + xlen);
    }
    spx_buf_fini(b);
}

/* connect(2) that a signal may interrupt (libFuzzer's SIGALRM): the
 * connection then completes in the background. */
static int connect_fd(int fd, const struct sockaddr_in *a)
{
    if (connect(fd, (const struct sockaddr *)a, sizeof(*a)) == 0)
        return 0;
    if (errno != EINTR)
        return -1;
    struct pollfd pf = { .fd = fd, .events = POLLOUT };
    int err = 0;
    socklen_t el = sizeof(err);
    while (poll(&pf, 1, 5000) < 0 && errno == EINTR)
        ;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
        errno = err ? err : errno;
        return -1;
    }
    return 0;
}

static void op_open(fz_world_t *w, uint8_t s)
{
    s %= FZ_SLOTS;
    fz_conn_t *old = slot_conn(w, s);
    if (old) {
        close(old->fd);
        old->fd = -1;
    }
    w->slot[s] = -1;
    if (w->nconns >= FZ_MAX_CONNS)
        return;
    fz_conn_t *c = &w->conns[w->nconns];
    memset(c, 0, sizeof(*c));
    c->handed_fd = -1;
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(spx_tree_port(w->t)) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct linger lg = { 1, 0 }; /* closes with a reset: no TIME_WAIT left behind */
    int one = 1;                 /* every write leaves at once (no Nagle) */
    socklen_t al = sizeof(a);
    if (c->fd < 0 || setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0 ||
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
        connect_fd(c->fd, &a) < 0 ||
        fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0 ||
        getsockname(c->fd, (struct sockaddr *)&a, &al) < 0) {
        fprintf(stderr, "fuzz_tree_auth: cannot connect to the engine: %s\n", strerror(errno));
        abort();
    }
    c->port = ntohs(a.sin_port);
    w->slot[s] = w->nconns++;
}

static void op_frame(fz_world_t *w, fz_conn_t *c, fz_in_t *in)
{
    uint8_t tsel = in_u8(in);
    uint8_t type = tsel & 1u ? in_u8(in) : SPX_TREE_FRAME_AUTH;
    uint8_t how = in_u8(in);
    uint32_t lie = how & 1u ? in_u32(in) : 0;
    size_t len = in_u16(in);
    const uint8_t *d = in_bytes(in, &len);
    static uint8_t out[SPX_FRAME_HDR_LEN + 65536];
    spx_frame_hdr_t h = { .version = SPX_FRAME_VERSION, .type = type,
                          .length = how & 1u ? lie : (uint32_t)len };
    if (how & 8u) {
        h.flags = 0xffff;
        h.seq = 0x12345678;
    }
    spx_frame_hdr_encode(&h, out);
    if (how & 2u)
        out[0] ^= 0xff;
    if (how & 4u)
        out[4] ^= 0x7f;
    memcpy(out + SPX_FRAME_HDR_LEN, d, len);
    send_bytes(w, c, out, SPX_FRAME_HDR_LEN + len);
}

static void op_hello(fz_world_t *w, fz_conn_t *c, fz_in_t *in)
{
    uint8_t v = in_u8(in);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_HELLO);
    spx_buf_push_u32(&b, v == 1 ? in_u32(in) : SPX_TREE_TOOL_VERSION);
    if (v == 2)
        spx_buf_push_u8(&b, 0);
    send_frame(w, c, &b, NULL, 0);
}

static void op_cred(fz_world_t *w, fz_conn_t *c, uint8_t s, fz_in_t *in)
{
    uint8_t mode = in_u8(in) % 6u;
    static const uint8_t zeros[FZ_NONCE];
    char cred[FZ_STUB_CRED_LEN + 1];
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_CRED);
    if (mode == 1) {
        fz_conn_t *o = slot_conn(w, (uint8_t)(s + 1));
        fz_stub_cred(o && o->tool_chal ? o->tool_nonce : zeros, cred);
    } else {
        fz_stub_cred(c && c->tool_chal ? c->tool_nonce : zeros, cred);
    }
    if (mode == 2 || mode == 3) {
        uint32_t said = mode == 3 ? in_u32(in) : 0;
        size_t len = in_u16(in);
        const uint8_t *d = in_bytes(in, &len);
        spx_buf_push_u32(&b, mode == 3 ? said : (uint32_t)len);
        spx_buf_push_raw(&b, d, len);
    } else if (mode == 4) {
        char big[SPX_TREE_TOOL_MAX_CRED + 2];
        memset(big, 'A', sizeof(big) - 1);
        memcpy(big, cred, FZ_STUB_CRED_LEN);
        big[sizeof(big) - 1] = '\0';
        spx_buf_push_str(&b, big);
    } else {
        spx_buf_push_str(&b, cred);
        if (mode == 5)
            spx_buf_push_u8(&b, 0);
    }
    size_t xlen = in_u8(in);
    const uint8_t *x = in_bytes(in, &xlen);
    send_frame(w, c, &b, x, xlen);
}

static uint32_t node_sel(const fz_world_t *w, fz_in_t *in)
{
    uint8_t v = in_u8(in);
    return v >= 250 ? in_u32(in) : v % (w->n + 1);
}

static void op_thello(fz_world_t *w, fz_conn_t *c, fz_in_t *in)
{
    uint32_t from = node_sel(w, in), to = node_sel(w, in);
    if (!c)
        return;
    c->clean = c->nsent == 0 && !c->thello;
    c->thello = true;
    c->from = from;
    c->to = to;
    for (int i = 0; i < FZ_NONCE; i++)
        c->nonce_c[i] = (uint8_t)(i * 7 + c->port);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_HELLO);
    spx_buf_push_u32(&b, from);
    spx_buf_push_u32(&b, to);
    spx_buf_push_raw(&b, c->nonce_c, FZ_NONCE);
    send_frame(w, c, &b, NULL, 0);
}

static void op_proof(fz_world_t *w, fz_conn_t *c, fz_in_t *in)
{
    uint8_t mode = in_u8(in) % 4u;
    uint8_t mac[SPX_SHA256_LEN] = { 0 };
    if (mode == 1) {
        size_t len = sizeof(mac);
        memcpy(mac, in_bytes(in, &len), len);
    }
    if (!c)
        return;
    if (mode == 0 || mode == 2)
        mac_of(SPX_TREE_AUTH_LABEL_CONNECTOR, c, c->from, w->self, mac);
    else if (mode == 3)
        memcpy(mac, c->chal_mac, sizeof(mac));
    if (mode == 0 && c->tree_chal)
        c->proof_ok = true;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_PROOF);
    spx_buf_push_raw(&b, mac, sizeof(mac));
    if (mode == 2)
        spx_buf_push_u8(&b, 1);
    send_frame(w, c, &b, NULL, 0);
}

/* ---- one input ---- */

static int world_init(fz_world_t *w, fz_in_t *in)
{
    const char *addrs[4] = { "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0" };
    memset(w, 0, sizeof(*w));
    w->n = 2 + in_u8(in) % 3u;
    w->self = in_u8(in) % w->n;
    w->tools = !(in_u8(in) & 1u);
    for (int i = 0; i < FZ_SLOTS; i++)
        w->slot[i] = -1;
    if (!fz_base && !(fz_base = event_base_new()))
        abort();
    w->base = fz_base;
    w->stub_before = fz_stub_accepted;
    spx_tree_config_t cfg = { .node_index = w->self, .nnodes = w->n, .addrs = addrs,
                              .secret = fz_secret, .secret_len = sizeof(fz_secret) - 1,
                              .connect_timeout = 30 };
    spx_tree_ops_t ops = { .recv = on_recv, .node_lost = on_lost, .node_left = on_left,
                           .tool_accept = w->tools ? on_tool : NULL };
    w->t = spx_tree_create(w->base, &cfg, &ops, w);
    return w->t ? 0 : -1;
}

/* The engine still works: a new tool gets through (or its refusal), and a
 * node that is not gone completes the servers' handshake. */
static void check_alive(fz_world_t *w)
{
    fz_in_t none = { NULL, 0 };
    w->slot[0] = w->slot[1] = -1; /* new connections; the input's stay as they are */
    op_open(w, 0);
    fz_conn_t *c = slot_conn(w, 0);
    if (!c)
        return; /* FZ_MAX_CONNS used up */
    op_hello(w, c, &none);
    pump(w);
    if (!w->tools) {
        if (!c->acked || c->ack_status != PMIX_ERR_NOT_SUPPORTED)
            abort();
    } else {
        if (!c->tool_chal)
            abort();
        uint8_t rec[2] = { 0, 0 }; /* mode 0, no extra bytes */
        fz_in_t r = { rec, sizeof(rec) };
        op_cred(w, c, 0, &r);
        pump(w);
        if (!c->handed || !c->acked || c->ack_status != PMIX_SUCCESS)
            abort();
    }
    uint32_t from = w->n;
    for (uint32_t i = 0; i < w->n; i++)
        if (i != w->self && !w->lost[i] && !w->left[i] &&
            w->t->peers[i].state == SPX_TREE_PEER_UP)
            from = i;
    if (from == w->n)
        return;
    op_open(w, 1);
    c = slot_conn(w, 1);
    if (!c)
        return;
    uint8_t rec[2] = { (uint8_t)from, (uint8_t)w->self };
    fz_in_t r = { rec, sizeof(rec) };
    op_thello(w, c, &r);
    pump(w);
    if (!c->tree_chal)
        abort();
    fz_in_t none2 = { NULL, 0 };
    op_proof(w, c, &none2);
    pump(w);
    if (!spx_tree_has_ready_link(w->t, from))
        abort();
}

static void world_fini(fz_world_t *w)
{
    pump(w);
    check_alive(w);
    for (int i = 0; i < w->nconns; i++) {
        fz_conn_t *c = &w->conns[i];
        if (c->handed) {
            if (c->fd >= 0 && (!c->acked || c->ack_status != PMIX_SUCCESS))
                abort();
            /* what the tool sent after its credential reached the handed socket */
            if (c->fd >= 0 && !c->sent_full) {
                size_t at = 0;
                spx_frame_hdr_t h;
                const uint8_t *p;
                next_frame(c->sent, c->nsent, &at, &h, &p);
                next_frame(c->sent, c->nsent, &at, &h, &p);
                static uint8_t got[FZ_LOG_MAX];
                size_t n = 0;
                struct pollfd pf = { .fd = c->handed_fd, .events = POLLIN };
                while (n < c->nsent - at && poll(&pf, 1, 2000) == 1) { /* all sent: 2 s at most */
                    ssize_t r = recv(c->handed_fd, got + n, sizeof(got) - n, MSG_DONTWAIT);
                    if (r <= 0)
                        break;
                    n += (size_t)r;
                }
                if (n != c->nsent - at || memcmp(got, c->sent + at, n) != 0)
                    abort();
            }
            close(c->handed_fd);
        }
        if (c->fd >= 0)
            close(c->fd);
        c->fd = -1;
    }
    pump(w);
    if (w->t->n_unauth != 0)
        abort(); /* every connection is gone: none may still count as authenticating */
    spx_tree_destroy(w->t);
    for (int i = 0; i < 4; i++)
        event_base_loop(w->base, EVLOOP_NONBLOCK); /* the net layer reaps closed conns */
    if (event_base_get_num_events(w->base, EVENT_BASE_COUNT_ADDED | EVENT_BASE_COUNT_ACTIVE))
        abort();
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
    fz_world_t *w = &fz_w;
    if (size < 3 || world_init(w, &in) < 0)
        return 0;
    for (int ops = 0; in.left && ops < FZ_MAX_OPS; ops++) {
        uint8_t op = in_u8(&in) % 10u, s = in_u8(&in) % FZ_SLOTS;
        fz_conn_t *c = slot_conn(w, s);
        switch (op) {
        case 0:
            op_open(w, s);
            break;
        case 1: {
            size_t len = in_u16(&in);
            const uint8_t *p = in_bytes(&in, &len);
            send_bytes(w, c, p, len);
            break;
        }
        case 2:
            op_frame(w, c, &in);
            break;
        case 3:
            op_hello(w, c, &in);
            break;
        case 4:
            op_cred(w, c, s, &in);
            break;
        case 5:
            op_thello(w, c, &in);
            break;
        case 6:
            op_proof(w, c, &in);
            break;
        case 7:
            if (c && !c->shut) {
                shutdown(c->fd, SHUT_WR);
                c->shut = true;
            }
            break;
        case 8:
            if (c) {
                close(c->fd);
                c->fd = -1;
                w->slot[s] = -1;
            }
            break;
        default:
            break;
        }
        pump(w);
    }
    world_fini(w);
    return 0;
}
