/* test_coll_copies.c - the tree's collectives keep received data where it
 * arrived. A tree engine is driven through socketpairs adopted as links (no
 * TCP, no handshake): the test writes its children's UP frames, reads what
 * the engine sends, and watches every read(2) of the engine's sockets (the
 * link is built with -Wl,--wrap=read). Checked: at the root, each child's
 * contribution handed to done ends exactly where a read of that child's
 * frame ended, i.e. it lies in the buffer the frame was received in (the
 * gather copied nothing), and no copy is counted; the DOWN and an interior
 * node's UP carry the pieces intact (sent from several places at once).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <event2/event.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "tree/internal.h"

#define BIG (1u << 20) /* a child's contribution: many reads, partial writes */
#define MAXN 3

/* ---- reads of the engine's sockets ---- */

ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n);

static int watched[MAXN];
static struct { const uint8_t *end; } reads[100000];
static size_t nreads;

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
    ssize_t r = __real_read(fd, buf, n);
    for (int i = 0; i < MAXN && r > 0; i++)
        if (watched[i] >= 0 && fd == watched[i] && nreads < sizeof(reads) / sizeof(reads[0]))
            reads[nreads++].end = (const uint8_t *)buf + r;
    return r;
}

static bool ends_where_a_read_ended(const void *data, size_t len)
{
    for (size_t i = 0; i < nreads; i++)
        if (reads[i].end == (const uint8_t *)data + len)
            return true;
    return false;
}

/* ---- a world: one engine, the test playing the other nodes ---- */

typedef struct world {
    struct event_base *base;
    spx_tree_t *t;
    uint32_t n;
    int fd[MAXN];         /* the test's end per node, -1 for self */
    spx_buf_t rx[MAXN];   /* bytes the engine sent to each node */
} world_t;

static void world_init(world_t *w, uint32_t n, uint32_t self, uint32_t width)
{
    static const char secret[] = "0123456789abcdef-copies";
    const char *addrs[MAXN] = { "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0" };
    memset(w, 0, sizeof(*w));
    w->n = n;
    w->base = event_base_new();
    ck_assert_ptr_nonnull(w->base);
    spx_tree_config_t cfg = { .node_index = self, .nnodes = n, .width = width, .addrs = addrs,
                              .secret = secret, .secret_len = sizeof(secret) - 1,
                              .connect_timeout = 30 };
    spx_tree_ops_t ops = { 0 };
    w->t = spx_tree_create(w->base, &cfg, &ops, NULL);
    ck_assert_ptr_nonnull(w->t);
    for (uint32_t i = 0; i < MAXN; i++) {
        w->fd[i] = watched[i] = -1;
        spx_buf_init(&w->rx[i]);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (i == self)
            continue;
        int sv[2];
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv),
                         0);
        watched[i] = sv[0];
        w->fd[i] = sv[1];
        ck_assert_int_eq(spx_tree_adopt_link(w->t, i, sv[0]), 0);
    }
    nreads = 0;
}

static void world_fini(world_t *w)
{
    spx_tree_destroy(w->t);
    event_base_free(w->base);
    for (uint32_t i = 0; i < MAXN; i++) {
        if (w->fd[i] >= 0)
            close(w->fd[i]);
        watched[i] = -1;
        spx_buf_fini(&w->rx[i]);
    }
}

/* One loop turn, then whatever the engine wrote is read into rx. */
static void pump(world_t *w)
{
    event_base_loop(w->base, EVLOOP_NONBLOCK);
    for (uint32_t i = 0; i < w->n; i++) {
        if (w->fd[i] < 0)
            continue;
        uint8_t tmp[65536];
        ssize_t r;
        while ((r = __real_read(w->fd[i], tmp, sizeof(tmp))) > 0)
            spx_buf_push_raw(&w->rx[i], tmp, (size_t)r);
        ck_assert(!spx_buf_failed(&w->rx[i]));
    }
}

/* Node `from` sends an UP frame (set_id, seq 0, success, SPX_TREE_F_COLLECT)
 * with data. */
static void send_up(world_t *w, uint32_t from, const char *set_id, const void *data, size_t len)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_reserve(&b, SPX_FRAME_HDR_LEN);
    b.len = SPX_FRAME_HDR_LEN; /* header filled below */
    spx_buf_push_str(&b, set_id);
    spx_buf_push_u32(&b, 0);
    spx_buf_push_i32(&b, PMIX_SUCCESS);
    spx_buf_push_u32(&b, SPX_TREE_F_COLLECT);
    spx_buf_push_u8(&b, 0);
    spx_buf_push_bytes(&b, data, len);
    ck_assert(!spx_buf_failed(&b));
    spx_frame_hdr_t h = { .type = SPX_TREE_FRAME_UP,
                          .length = (uint32_t)(b.len - SPX_FRAME_HDR_LEN) };
    spx_frame_hdr_encode(&h, b.data);
    size_t off = 0;
    for (int spins = 0; off < b.len && spins < 100000; spins++) {
        ssize_t r = write(w->fd[from], b.data + off, b.len - off);
        if (r > 0)
            off += (size_t)r;
        else
            ck_assert(r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
        pump(w);
    }
    ck_assert_uint_eq(off, b.len);
    spx_buf_fini(&b);
}

/* The first frame the engine sent to node i, once complete: its type and
 * payload (the test frees it); NULL while incomplete. */
static uint8_t *take_frame(world_t *w, uint32_t i, uint8_t *type, size_t *len)
{
    spx_buf_t *rx = &w->rx[i];
    spx_frame_hdr_t h;
    if (rx->len < SPX_FRAME_HDR_LEN || spx_frame_hdr_decode(rx->data, &h) < 0 ||
        rx->len < SPX_FRAME_HDR_LEN + h.length)
        return NULL;
    uint8_t *p = malloc(h.length + 1);
    ck_assert_ptr_nonnull(p);
    memcpy(p, rx->data + SPX_FRAME_HDR_LEN, h.length);
    memmove(rx->data, rx->data + SPX_FRAME_HDR_LEN + h.length,
            rx->len - SPX_FRAME_HDR_LEN - h.length);
    rx->len -= SPX_FRAME_HDR_LEN + h.length;
    *type = h.type;
    *len = h.length;
    return p;
}

/* Pumps until node i has a whole frame of `type`; returns its data field
 * (after the UP/DOWN fields), copied; *n its length. */
static uint8_t *wait_coll_frame(world_t *w, uint32_t i, uint8_t type, size_t *n)
{
    for (int spins = 0; spins < 100000; spins++) {
        uint8_t t;
        size_t len;
        uint8_t *p = take_frame(w, i, &t, &len);
        if (p) {
            ck_assert_uint_eq(t, type);
            spx_buf_t b;
            spx_buf_init_borrowed(&b, p, len);
            free(spx_buf_pull_str(&b));
            spx_buf_pull_u32(&b);
            ck_assert_int_eq(spx_buf_pull_i32(&b), PMIX_SUCCESS);
            if (type == SPX_TREE_FRAME_UP) {
                spx_buf_pull_u32(&b);
                spx_buf_pull_u8(&b);
            }
            uint8_t *d = spx_buf_pull_bytes(&b, n);
            ck_assert_int_eq(spx_buf_finish(&b), 0);
            spx_buf_fini(&b);
            free(p);
            return d;
        }
        pump(w);
    }
    ck_abort_msg("no frame from the engine for node %u", i);
    return NULL;
}

static uint8_t *pattern(size_t len, uint8_t seed)
{
    uint8_t *p = malloc(len);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)(seed + i * 7 + (i >> 9));
    return p;
}

/* ---- results ---- */

static struct {
    int calls;
    pmix_status_t status;
    size_t nsegs, len;
    bool in_frames[4];   /* piece i ends where a read of a frame ended */
    uint8_t *joined;     /* the pieces concatenated (a copy made here) */
} res;

static void done_plain(pmix_status_t status, const void *data, size_t len, void *arg)
{
    (void)arg;
    res.calls++;
    res.status = status;
    res.nsegs = len ? 1 : 0;
    res.len = len;
    res.in_frames[0] = len && ends_where_a_read_ended(data, len);
    res.joined = malloc(len + 1);
    if (len)
        memcpy(res.joined, data, len);
}

static void done_segs(pmix_status_t status, const struct iovec *segs, size_t nsegs, void *arg)
{
    (void)arg;
    res.calls++;
    res.status = status;
    res.nsegs = nsegs;
    res.len = 0;
    for (size_t i = 0; i < nsegs; i++)
        res.len += segs[i].iov_len;
    res.joined = malloc(res.len + 1);
    for (size_t i = 0, at = 0; i < nsegs; at += segs[i].iov_len, i++) {
        if (i < 4)
            res.in_frames[i] = ends_where_a_read_ended(segs[i].iov_base, segs[i].iov_len);
        memcpy(res.joined + at, segs[i].iov_base, segs[i].iov_len);
    }
}

static void wait_done(world_t *w)
{
    for (int spins = 0; spins < 100000 && res.calls == 0; spins++)
        pump(w);
    ck_assert_int_eq(res.calls, 1);
}

/* Root of two nodes, contributing nothing: the result is the child's UP, and
 * done reads it in the frame it came in (before: in a copy, the gather's). */
START_TEST(root_reads_child_in_its_frame)
{
    world_t w;
    memset(&res, 0, sizeof(res));
    world_init(&w, 2, 0, 2);
    uint32_t nodes[] = { 0, 1 };
    ck_assert_int_eq(spx_tree_coll_start(w.t, "z", nodes, 2, SPX_TREE_F_COLLECT, PMIX_SUCCESS,
                                         NULL, 0, 30.0, done_plain, NULL),
                     0);
    uint8_t *up = pattern(BIG, 1);
    send_up(&w, 1, "z", up, BIG);
    wait_done(&w);
    ck_assert_int_eq(res.status, PMIX_SUCCESS);
    ck_assert_uint_eq(res.len, BIG);
    ck_assert(memcmp(res.joined, up, BIG) == 0);
    ck_assert_msg(res.in_frames[0], "the root's result is not in the received frame (copied)");
    size_t n;
    uint8_t *down = wait_coll_frame(&w, 1, SPX_TREE_FRAME_DOWN, &n);
    ck_assert_uint_eq(n, BIG);
    ck_assert(memcmp(down, up, BIG) == 0);
    free(down);
    free(up);
    free(res.joined);
    world_fini(&w);
}
END_TEST

/* Root of three nodes with its own contribution: done gets three pieces, the
 * children's in their frames; nothing copied; each child's DOWN is the
 * three pieces in order. */
START_TEST(root_gathers_pieces_without_copy)
{
    world_t w;
    memset(&res, 0, sizeof(res));
    world_init(&w, 3, 0, 2);
    uint32_t nodes[] = { 0, 1, 2 };
    static const char own[] = "the root's own contribution";
    ck_assert_int_eq(spx_tree_coll_start_segs(w.t, "z", nodes, 3, SPX_TREE_F_COLLECT,
                                              PMIX_SUCCESS, own, sizeof(own), 30.0, done_segs,
                                              NULL),
                     0);
    uint8_t *up1 = pattern(BIG, 1), *up2 = pattern(BIG / 2 + 3, 2);
    send_up(&w, 2, "z", up2, BIG / 2 + 3);
    send_up(&w, 1, "z", up1, BIG);
    wait_done(&w);
    ck_assert_int_eq(res.status, PMIX_SUCCESS);
    ck_assert_uint_eq(res.nsegs, 3);
    size_t total = sizeof(own) + BIG / 2 + 3 + BIG;
    ck_assert_uint_eq(res.len, total);
    uint8_t *want = malloc(total);
    memcpy(want, own, sizeof(own));
    memcpy(want + sizeof(own), up2, BIG / 2 + 3); /* children in arrival order */
    memcpy(want + sizeof(own) + BIG / 2 + 3, up1, BIG);
    ck_assert(memcmp(res.joined, want, total) == 0);
    ck_assert_msg(res.in_frames[1] && res.in_frames[2], "a child's piece was copied");
    spx_tree_stats_t st;
    spx_tree_get_stats(w.t, &st);
    ck_assert_uint_eq(st.coll_bytes_copied, 0);
    for (uint32_t k = 1; k <= 2; k++) {
        size_t n;
        uint8_t *down = wait_coll_frame(&w, k, SPX_TREE_FRAME_DOWN, &n);
        ck_assert_uint_eq(n, total);
        ck_assert(memcmp(down, want, total) == 0);
        free(down);
    }
    free(want);
    free(up1);
    free(up2);
    free(res.joined);
    world_fini(&w);
}
END_TEST

/* Interior node of a chain 0 - 1 - 2: its UP to the parent carries its own
 * contribution and the child's, sent as pieces; nothing copied. */
START_TEST(interior_sends_pieces_up)
{
    world_t w;
    memset(&res, 0, sizeof(res));
    world_init(&w, 3, 1, 1);
    uint32_t nodes[] = { 0, 1, 2 };
    static const char own[] = "interior";
    ck_assert_int_eq(spx_tree_coll_start_segs(w.t, "y", nodes, 3, SPX_TREE_F_COLLECT,
                                              PMIX_SUCCESS, own, sizeof(own), 30.0, done_segs,
                                              NULL),
                     0);
    uint8_t *up = pattern(BIG, 3);
    send_up(&w, 2, "y", up, BIG);
    size_t n;
    uint8_t *sent = wait_coll_frame(&w, 0, SPX_TREE_FRAME_UP, &n);
    ck_assert_uint_eq(n, sizeof(own) + BIG);
    ck_assert(memcmp(sent, own, sizeof(own)) == 0);
    ck_assert(memcmp(sent + sizeof(own), up, BIG) == 0);
    spx_tree_stats_t st;
    spx_tree_get_stats(w.t, &st);
    ck_assert_uint_eq(st.coll_bytes_copied, 0);
    ck_assert_int_eq(res.calls, 0); /* waits for the parent's DOWN */
    free(sent);
    free(up);
    world_fini(&w); /* completes it with UNREACH */
    ck_assert_int_eq(res.calls, 1);
    ck_assert_int_eq(res.status, PMIX_ERR_UNREACH);
    free(res.joined);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_copies");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, root_reads_child_in_its_frame);
    tcase_add_test(tc, root_gathers_pieces_without_copy);
    tcase_add_test(tc, interior_sends_pieces_up);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
