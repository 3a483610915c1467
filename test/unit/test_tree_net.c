/* test_tree_net.c - tree engines over real TCP on 127.0.0.1, all in this one
 * process on one event_base: collectives over 1, 3, 16 and 64 nodes with data,
 * a subset collective, back-to-back and overlapping collectives, send and
 * broadcast, large binary payloads read in place (intact at the receiver), the loss of an interior node mid-collective, a wrong secret,
 * raw sockets that speak the handshake right (accepted) or wrong, or send
 * hostile bytes (closed, the engine goes on). Prints latency figures.
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "codec/buf.h"
#include "net/conn.h"
#include "tree/proto.h"
#include "tree/tree.h"
#include "util/sha256.h"

#define MAXN 64
#define SECRET "0123456789abcdef-step-secret"

typedef struct node {
    spx_tree_t *t;
    uint32_t idx;
    int lost_calls[MAXN];
    int left_calls[MAXN];
    int recv_calls;
    uint32_t recv_from[256];
    uint8_t recv_ch[256];
    char recv_data[256][32];
    int big_ok, big_bad; /* BIG_CH payloads checked in the callback */
} node_t;

typedef struct cluster {
    struct event_base *base;
    uint32_t n;
    node_t nodes[MAXN];
} cluster_t;

typedef struct result {
    int calls;
    pmix_status_t status;
    char *data;
    size_t len;
} result_t;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void tick_cb(evutil_socket_t fd, short w, void *arg) { (void)fd, (void)w, (void)arg; }

typedef int (*pred_f)(void *arg);

/* Runs the loop until pred(arg) or timeout; returns pred's last value. */
static int run_until(struct event_base *base, pred_f pred, void *arg, int timeout_ms)
{
    struct event *tick = event_new(base, -1, EV_PERSIST, tick_cb, NULL);
    struct timeval tv = { 0, 2000 };
    event_add(tick, &tv);
    int64_t deadline = now_ms() + timeout_ms;
    int ok;
    while (!(ok = pred(arg)) && now_ms() < deadline)
        event_base_loop(base, EVLOOP_ONCE);
    event_free(tick);
    return ok;
}

static void run_for(struct event_base *base, int ms)
{
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    event_base_loopexit(base, &tv);
    event_base_dispatch(base);
}

#define BIG_CH 200 /* a channel no other test uses */
#define BIG_LEN (200u * 1024u + 3u)

/* Byte i of node `from`'s test payload: every byte value, NULs included. */
static uint8_t big_byte(uint32_t from, size_t i)
{
    return (uint8_t)((i * 131u + from * 7u + (i >> 9)) & 0xffu);
}

static void big_fill(uint8_t *p, size_t len, uint32_t from)
{
    for (size_t i = 0; i < len; i++)
        p[i] = big_byte(from, i);
}

static bool big_check(const uint8_t *p, size_t len, uint32_t from)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != big_byte(from, i))
            return false;
    return true;
}

static void on_recv(uint32_t from, uint8_t ch, const void *data, size_t len, void *arg)
{
    node_t *nd = arg;
    if (ch == BIG_CH) { /* checked here: data is lent only for this call */
        if (len == BIG_LEN && data && big_check(data, len, from))
            nd->big_ok++;
        else
            nd->big_bad++;
        return;
    }
    int k = nd->recv_calls++;
    ck_assert_int_lt(k, 256);
    nd->recv_from[k] = from;
    nd->recv_ch[k] = ch;
    ck_assert_uint_lt(len, 32);
    memcpy(nd->recv_data[k], data, len);
    nd->recv_data[k][len] = 0;
}

static void on_lost(uint32_t node, const char *reason, void *arg)
{
    node_t *nd = arg;
    ck_assert_ptr_nonnull(reason);
    ck_assert_uint_lt(node, MAXN);
    nd->lost_calls[node]++;
}

static void on_left(uint32_t node, void *arg)
{
    node_t *nd = arg;
    ck_assert_uint_lt(node, MAXN);
    nd->left_calls[node]++;
}

static const spx_tree_ops_t ops = { on_recv, on_lost, on_left };

static spx_tree_t *make_engine(cluster_t *cl, uint32_t i, uint32_t width, const char *secret,
                               double connect_timeout)
{
    const char *addrs[MAXN];
    for (uint32_t k = 0; k < cl->n; k++)
        addrs[k] = "127.0.0.1:0";
    spx_tree_config_t cfg = { .node_index = i, .nnodes = cl->n, .width = width, .addrs = addrs,
                              .secret = secret, .secret_len = strlen(secret),
                              .connect_timeout = connect_timeout };
    cl->nodes[i].idx = i;
    return spx_tree_create(cl->base, &cfg, &ops, &cl->nodes[i]);
}

static void set_all_addrs(cluster_t *cl)
{
    static char buf[MAXN][32];
    const char *addrs[MAXN];
    for (uint32_t i = 0; i < cl->n; i++) {
        uint16_t port = cl->nodes[i].t ? spx_tree_port(cl->nodes[i].t) : 1;
        snprintf(buf[i], sizeof(buf[i]), "127.0.0.1:%u", port);
        addrs[i] = buf[i];
    }
    for (uint32_t i = 0; i < cl->n; i++)
        if (cl->nodes[i].t)
            ck_assert_int_eq(spx_tree_set_addrs(cl->nodes[i].t, addrs), 0);
}

static cluster_t *cluster_new(uint32_t n, uint32_t width)
{
    cluster_t *cl = calloc(1, sizeof(*cl));
    cl->base = event_base_new();
    cl->n = n;
    for (uint32_t i = 0; i < n; i++) {
        cl->nodes[i].t = make_engine(cl, i, width, SECRET, 10.0);
        ck_assert_ptr_nonnull(cl->nodes[i].t);
        ck_assert_uint_ne(spx_tree_port(cl->nodes[i].t), 0);
        ck_assert_uint_eq(spx_tree_node_index(cl->nodes[i].t), i);
        ck_assert_uint_eq(spx_tree_nnodes(cl->nodes[i].t), n);
    }
    set_all_addrs(cl);
    for (uint32_t i = 0; i < n; i++)
        ck_assert_int_eq(spx_tree_start(cl->nodes[i].t), 0);
    return cl;
}

static void cluster_free(cluster_t *cl)
{
    for (uint32_t i = 0; i < cl->n; i++)
        spx_tree_destroy(cl->nodes[i].t);
    run_for(cl->base, 20); /* let the net layer reap closed connections */
    event_base_free(cl->base);
    free(cl);
}

static void done_cb(pmix_status_t st, const void *data, size_t len, void *arg)
{
    result_t *r = arg;
    r->calls++;
    r->status = st;
    free(r->data);
    r->data = malloc(len + 1);
    if (len)
        memcpy(r->data, data, len);
    r->data[len] = 0;
    r->len = len;
}

typedef struct waitn {
    result_t *res;
    size_t n;
} waitn_t;

static int all_done(void *arg)
{
    waitn_t *w = arg;
    for (size_t i = 0; i < w->n; i++)
        if (w->res[i].calls == 0)
            return 0;
    return 1;
}

static void free_results(result_t *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].data);
        r[i].data = NULL;
        r[i].calls = 0;
    }
}

/* Runs one collective over nodes (indices in cl) and checks every result. */
static void run_coll(cluster_t *cl, const char *set, const uint32_t *nodes, size_t m,
                     int timeout_ms)
{
    result_t res[MAXN] = { { 0 } };
    for (size_t k = 0; k < m; k++) {
        char contrib[32];
        int len = snprintf(contrib, sizeof(contrib), "<%u>", nodes[k]);
        ck_assert_int_eq(spx_tree_coll_start(cl->nodes[nodes[k]].t, set, nodes, m,
                                             SPX_TREE_F_COLLECT, PMIX_SUCCESS, contrib,
                                             (size_t)len, 30.0, done_cb, &res[k]),
                         0);
    }
    waitn_t w = { res, m };
    ck_assert_msg(run_until(cl->base, all_done, &w, timeout_ms), "collective %s incomplete", set);
    run_for(cl->base, 1);
    for (size_t k = 0; k < m; k++) {
        ck_assert_int_eq(res[k].calls, 1);
        ck_assert_int_eq(res[k].status, PMIX_SUCCESS);
        size_t want = 0;
        for (size_t j = 0; j < m; j++) {
            char tag[32];
            want += (size_t)snprintf(tag, sizeof(tag), "<%u>", nodes[j]);
            ck_assert_msg(strstr(res[k].data, tag), "node %u lacks %s", nodes[k], tag);
        }
        ck_assert_uint_eq(res[k].len, want);
    }
    free_results(res, m);
}

static void check_msg_counts(cluster_t *cl, uint32_t width)
{
    uint32_t kids[1024];
    for (uint32_t i = 0; i < cl->n; i++) {
        spx_tree_stats_t st;
        spx_tree_get_stats(cl->nodes[i].t, &st);
        uint32_t k = spx_tree_topo_children(i, cl->n, width, kids);
        ck_assert_uint_eq(st.last_coll_msgs_sent, k + (i ? 1 : 0));
        ck_assert_uint_gt(st.last_coll_bytes_sent, 0 + (cl->n > 1));
        ck_assert_uint_eq(st.last_coll_payload_bytes, i < 10 ? 3 : 4);
    }
}

static void all_nodes(uint32_t n, uint32_t *out)
{
    for (uint32_t i = 0; i < n; i++)
        out[i] = i;
}

START_TEST(net_coll_1_3_16)
{
    uint32_t nodes[MAXN];
    cluster_t *cl = cluster_new(1, 0);
    all_nodes(1, nodes);
    run_coll(cl, "one", nodes, 1, 5000);
    cluster_free(cl);

    cl = cluster_new(3, 2);
    all_nodes(3, nodes);
    run_coll(cl, "three", nodes, 3, 5000);
    check_msg_counts(cl, 2);
    cluster_free(cl);

    cl = cluster_new(16, 2);
    all_nodes(16, nodes);
    run_coll(cl, "sixteen", nodes, 16, 10000);
    check_msg_counts(cl, 2);
    spx_tree_stats_t st;
    spx_tree_get_stats(cl->nodes[0].t, &st);
    ck_assert_uint_eq(st.colls_done, 1);
    ck_assert_uint_gt(st.msgs_recv, 0);
    ck_assert_uint_gt(st.bytes_recv, st.msgs_recv * 16 - 1);
    cluster_free(cl);
}
END_TEST

START_TEST(net_subset_and_back_to_back)
{
    cluster_t *cl = cluster_new(8, 2);
    static const uint32_t sub[] = { 1, 4, 6, 7 };
    run_coll(cl, "sub", sub, 4, 5000);
    uint32_t nodes[8];
    all_nodes(8, nodes);
    for (int k = 0; k < 5; k++)
        run_coll(cl, "b2b", nodes, 8, 5000);
    /* five collectives of one set started at once, completing in any order */
    result_t res[5][8];
    memset(res, 0, sizeof(res));
    for (int k = 0; k < 5; k++)
        for (uint32_t i = 0; i < 8; i++) {
            char c[16];
            snprintf(c, sizeof(c), "%d", k);
            ck_assert_int_eq(spx_tree_coll_start(cl->nodes[i].t, "overlap", nodes, 8, 0, 0, c, 1,
                                                 30.0, done_cb, &res[k][i]),
                             0);
        }
    waitn_t w = { &res[0][0], 40 };
    ck_assert(run_until(cl->base, all_done, &w, 5000));
    for (int k = 0; k < 5; k++)
        for (uint32_t i = 0; i < 8; i++) {
            ck_assert_int_eq(res[k][i].calls, 1);
            ck_assert_int_eq(res[k][i].status, PMIX_SUCCESS);
            ck_assert_uint_eq(res[k][i].len, 8);
            for (size_t j = 0; j < 8; j++)
                ck_assert_int_eq(res[k][i].data[j], '0' + k); /* no mix-up between seqs */
        }
    free_results(&res[0][0], 40);
    cluster_free(cl);
}
END_TEST

static int recv_total(void *arg)
{
    cluster_t *cl = arg;
    int want = (int)(cl->n - 1) * 2 + 1; /* two broadcasts and one send */
    int got = 0;
    for (uint32_t i = 0; i < cl->n; i++)
        got += cl->nodes[i].recv_calls;
    return got >= want;
}

START_TEST(net_send_bcast)
{
    cluster_t *cl = cluster_new(10, 2);
    ck_assert_int_eq(spx_tree_send(cl->nodes[3].t, 8, 7, "hello", 5), 0);
    ck_assert_int_eq(spx_tree_send(cl->nodes[3].t, 3, 7, "self", 4), -1);
    ck_assert_int_eq(spx_tree_send(cl->nodes[3].t, 99, 7, "x", 1), -1);
    ck_assert_int_eq(spx_tree_bcast(cl->nodes[0].t, 1, "from0", 5), 0);
    ck_assert_int_eq(spx_tree_bcast(cl->nodes[6].t, 2, "from6", 5), 0);
    ck_assert(run_until(cl->base, recv_total, cl, 5000));
    run_for(cl->base, 50); /* nothing more must arrive */
    for (uint32_t i = 0; i < cl->n; i++) {
        node_t *nd = &cl->nodes[i];
        int b0 = 0, b6 = 0, p2p = 0;
        for (int k = 0; k < nd->recv_calls; k++) {
            if (nd->recv_ch[k] == 1) {
                ck_assert_uint_eq(nd->recv_from[k], 0);
                ck_assert_str_eq(nd->recv_data[k], "from0");
                b0++;
            } else if (nd->recv_ch[k] == 2) {
                ck_assert_uint_eq(nd->recv_from[k], 6);
                ck_assert_str_eq(nd->recv_data[k], "from6");
                b6++;
            } else {
                ck_assert_uint_eq(nd->recv_ch[k], 7);
                ck_assert_uint_eq(nd->recv_from[k], 3);
                ck_assert_str_eq(nd->recv_data[k], "hello");
                p2p++;
            }
        }
        ck_assert_int_eq(b0, i == 0 ? 0 : 1);
        ck_assert_int_eq(b6, i == 6 ? 0 : 1);
        ck_assert_int_eq(p2p, i == 8 ? 1 : 0);
    }
    cluster_free(cl);
}
END_TEST

static int big_total(void *arg)
{
    cluster_t *cl = arg;
    int got = 0;
    for (uint32_t i = 0; i < cl->n; i++)
        got += cl->nodes[i].big_ok + cl->nodes[i].big_bad;
    return got >= (int)(cl->n - 1) + 1; /* one broadcast, one send */
}

/* Large binary payloads, read in place out of the received frames, reach the
 * receivers byte for byte: a send, a broadcast (forwarded on by interior
 * nodes before their own delivery) and a collective whose contributions are
 * gathered at the root and whose result goes down through interior nodes. */
START_TEST(net_payload_intact)
{
    cluster_t *cl = cluster_new(7, 2);
    uint8_t *big = malloc(BIG_LEN);
    ck_assert_ptr_nonnull(big);
    big_fill(big, BIG_LEN, 5);
    ck_assert_int_eq(spx_tree_send(cl->nodes[5].t, 2, BIG_CH, big, BIG_LEN), 0);
    big_fill(big, BIG_LEN, 3);
    ck_assert_int_eq(spx_tree_bcast(cl->nodes[3].t, BIG_CH, big, BIG_LEN), 0);
    ck_assert(run_until(cl->base, big_total, cl, 10000));
    run_for(cl->base, 20);
    for (uint32_t i = 0; i < cl->n; i++) {
        ck_assert_int_eq(cl->nodes[i].big_bad, 0);
        ck_assert_int_eq(cl->nodes[i].big_ok, (i == 3 ? 0 : 1) + (i == 2 ? 1 : 0));
    }

    /* each contribution: u32 node, u32 length, then that node's bytes */
    enum { PIECE = 40000 };
    uint32_t nodes[7];
    all_nodes(7, nodes);
    result_t res[7] = { { 0 } };
    uint8_t *contrib[7];
    for (uint32_t k = 0; k < 7; k++) {
        size_t n = PIECE + k;
        contrib[k] = malloc(8 + n);
        ck_assert_ptr_nonnull(contrib[k]);
        uint32_t hdr[2] = { k, (uint32_t)n };
        memcpy(contrib[k], hdr, 8);
        big_fill(contrib[k] + 8, n, k);
        ck_assert_int_eq(spx_tree_coll_start(cl->nodes[k].t, "big", nodes, 7, SPX_TREE_F_COLLECT,
                                             PMIX_SUCCESS, contrib[k], 8 + n, 30.0, done_cb,
                                             &res[k]),
                         0);
    }
    waitn_t w = { res, 7 };
    ck_assert(run_until(cl->base, all_done, &w, 10000));
    for (uint32_t k = 0; k < 7; k++) {
        ck_assert_int_eq(res[k].status, PMIX_SUCCESS);
        int seen[7] = { 0 };
        size_t off = 0;
        while (off < res[k].len) {
            uint32_t hdr[2];
            ck_assert_uint_le(off + 8, res[k].len);
            memcpy(hdr, res[k].data + off, 8);
            ck_assert_uint_lt(hdr[0], 7);
            ck_assert_uint_eq(hdr[1], PIECE + hdr[0]);
            ck_assert_uint_le(off + 8 + hdr[1], res[k].len);
            ck_assert_msg(big_check((const uint8_t *)res[k].data + off + 8, hdr[1], hdr[0]),
                          "node %u: node %u's contribution damaged", k, hdr[0]);
            seen[hdr[0]]++;
            off += 8 + hdr[1];
        }
        for (uint32_t j = 0; j < 7; j++)
            ck_assert_int_eq(seen[j], 1);
    }
    free_results(res, 7);
    for (uint32_t k = 0; k < 7; k++)
        free(contrib[k]);
    free(big);
    cluster_free(cl);
}
END_TEST

static int recv_200(void *arg)
{
    cluster_t *cl = arg;
    return cl->nodes[1].recv_calls >= 100 && cl->nodes[2].recv_calls >= 100;
}

START_TEST(net_simultaneous_links)
{
    /* siblings 1 and 2 (no tree link between them) send to each other in the
     * same loop turn: both connect, two links exist, order still holds */
    cluster_t *cl = cluster_new(3, 2);
    for (int k = 0; k < 100; k++) {
        char m[16];
        int len = snprintf(m, sizeof(m), "m%d", k);
        ck_assert_int_eq(spx_tree_send(cl->nodes[1].t, 2, 3, m, (size_t)len), 0);
        ck_assert_int_eq(spx_tree_send(cl->nodes[2].t, 1, 3, m, (size_t)len), 0);
    }
    ck_assert(run_until(cl->base, recv_200, cl, 5000));
    run_for(cl->base, 30);
    for (uint32_t i = 1; i <= 2; i++) {
        ck_assert_int_eq(cl->nodes[i].recv_calls, 100);
        for (int k = 0; k < 100; k++) {
            char m[16];
            snprintf(m, sizeof(m), "m%d", k);
            ck_assert_str_eq(cl->nodes[i].recv_data[k], m);
            ck_assert_uint_eq(cl->nodes[i].recv_from[k], 3 - i);
        }
    }
    uint32_t nodes[3];
    all_nodes(3, nodes);
    run_coll(cl, "after", nodes, 3, 5000);
    cluster_free(cl);
}
END_TEST

START_TEST(net_late_parent)
{
    /* node 1 starts while node 0 is not listening yet: it retries until 0 is up */
    cluster_t *cl = calloc(1, sizeof(*cl));
    cl->base = event_base_new();
    cl->n = 2;
    spx_tree_t *probe = make_engine(cl, 0, 2, SECRET, 5.0);
    ck_assert_ptr_nonnull(probe);
    uint16_t port0 = spx_tree_port(probe);
    spx_tree_destroy(probe);
    char a0[32];
    snprintf(a0, sizeof(a0), "127.0.0.1:%u", port0);
    const char *addrs[2] = { a0, "127.0.0.1:0" };
    spx_tree_config_t cfg = { .node_index = 1, .nnodes = 2, .width = 2, .addrs = addrs,
                              .secret = SECRET, .secret_len = strlen(SECRET),
                              .connect_timeout = 10.0 };
    cl->nodes[1].t = spx_tree_create(cl->base, &cfg, &ops, &cl->nodes[1]);
    ck_assert_ptr_nonnull(cl->nodes[1].t);
    ck_assert_int_eq(spx_tree_start(cl->nodes[1].t), 0);
    result_t res[2] = { { 0 } };
    uint32_t nodes[2] = { 0, 1 };
    ck_assert_int_eq(spx_tree_coll_start(cl->nodes[1].t, "late", nodes, 2, 0, 0, "<1>", 3, 30.0,
                                         done_cb, &res[1]),
                     0);
    run_for(cl->base, 300); /* connects refused meanwhile */
    ck_assert_int_eq(res[1].calls, 0);
    char a1[32];
    snprintf(a1, sizeof(a1), "127.0.0.1:%u", spx_tree_port(cl->nodes[1].t));
    addrs[1] = a1;
    cfg.node_index = 0;
    cl->nodes[0].t = spx_tree_create(cl->base, &cfg, &ops, &cl->nodes[0]);
    ck_assert_ptr_nonnull(cl->nodes[0].t);
    ck_assert_int_eq(spx_tree_port(cl->nodes[0].t), port0);
    ck_assert_int_eq(spx_tree_start(cl->nodes[0].t), 0);
    ck_assert_int_eq(spx_tree_coll_start(cl->nodes[0].t, "late", nodes, 2, 0, 0, "<0>", 3, 30.0,
                                         done_cb, &res[0]),
                     0);
    waitn_t w = { res, 2 };
    ck_assert(run_until(cl->base, all_done, &w, 5000));
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(res[i].status, PMIX_SUCCESS);
        ck_assert_uint_eq(res[i].len, 6);
    }
    ck_assert_int_eq(cl->nodes[1].lost_calls[0], 0);
    free_results(res, 2);
    cluster_free(cl);
}
END_TEST

typedef struct lostwait {
    cluster_t *cl;
    uint32_t dead;
    result_t *res;
} lostwait_t;

static int lost_seen(void *arg)
{
    lostwait_t *w = arg;
    for (uint32_t i = 0; i < w->cl->n; i++) {
        if (i == w->dead)
            continue;
        if (w->cl->nodes[i].lost_calls[w->dead] == 0 || w->res[i].calls == 0)
            return 0;
    }
    return 1;
}

START_TEST(net_node_loss)
{
    /* n = 8, w = 2: 0 <- 1 <- {2 <- {3, 4}, 5 <- {6, 7}}; node 2 dies mid-collective */
    cluster_t *cl = cluster_new(8, 2);
    uint32_t nodes[8];
    all_nodes(8, nodes);
    run_coll(cl, "warm", nodes, 8, 5000); /* every tree link is up */
    result_t res[8] = { { 0 } };
    for (uint32_t i = 0; i < 8; i++)
        if (i != 4) /* node 4 is late: the collective cannot finish */
            ck_assert_int_eq(spx_tree_coll_start(cl->nodes[i].t, "lossy", nodes, 8, 0, 0, "x", 1,
                                                 60.0, done_cb, &res[i]),
                             0);
    run_for(cl->base, 50);
    for (uint32_t i = 0; i < 8; i++)
        ck_assert_int_eq(res[i].calls, 0);
    int64_t t0 = now_ms();
    spx_tree_destroy(cl->nodes[2].t);
    cl->nodes[2].t = NULL;
    /* node 4 starts now: it learns of the loss or has learnt it already */
    ck_assert_int_eq(spx_tree_coll_start(cl->nodes[4].t, "lossy", nodes, 8, 0, 0, "x", 1, 60.0,
                                         done_cb, &res[4]),
                     0);
    lostwait_t w = { cl, 2, res };
    ck_assert_msg(run_until(cl->base, lost_seen, &w, 3000), "survivors did not all notice");
    int64_t dt = now_ms() - t0;
    fprintf(stderr, "node loss noticed by all 7 survivors in %lld ms\n", (long long)dt);
    run_for(cl->base, 50);
    for (uint32_t i = 0; i < 8; i++) {
        if (i == 2)
            continue;
        ck_assert_int_eq(res[i].calls, 1);
        ck_assert_int_eq(res[i].status, PMIX_ERR_UNREACH);
        ck_assert_int_eq(cl->nodes[i].lost_calls[2], 1);
        for (uint32_t j = 0; j < 8; j++)
            if (j != 2)
                ck_assert_int_eq(cl->nodes[i].lost_calls[j], 0);
        ck_assert(spx_tree_node_is_lost(cl->nodes[i].t, 2));
    }
    free_results(res, 8);
    /* the survivors still work together (3 and 4 lost their parent) */
    static const uint32_t surv[] = { 0, 1, 3, 4, 5, 6, 7 };
    run_coll(cl, "after", surv, 7, 5000);
    ck_assert_int_eq(spx_tree_send(cl->nodes[0].t, 2, 1, "x", 1), -1);
    cluster_free(cl);
}
END_TEST

static int left_seen(void *arg)
{
    lostwait_t *w = arg;
    for (uint32_t i = 0; i < w->cl->n; i++)
        if (i != w->dead && w->cl->nodes[i].left_calls[w->dead] == 0)
            return 0;
    return w->res[0].calls && w->res[1].calls;
}

START_TEST(net_orderly_leave)
{
    /* n = 8, w = 2: 0 <- 1 <- {2 <- {3, 4}, 5 <- {6, 7}}; node 2 (interior) ends in order */
    cluster_t *cl = cluster_new(8, 2);
    uint32_t nodes[8];
    all_nodes(8, nodes);
    run_coll(cl, "warm", nodes, 8, 5000);
    /* a collective not finished here: leaving is refused */
    static const uint32_t pair[] = { 6, 7 };
    result_t busy[2] = { { 0 } };
    ck_assert_int_eq(spx_tree_coll_start(cl->nodes[7].t, "busy", pair, 2, 0, 0, "x", 1, 60.0,
                                         done_cb, &busy[1]), 0);
    ck_assert_int_eq(spx_tree_leave(cl->nodes[7].t), -1);
    ck_assert_int_eq(spx_tree_coll_start(cl->nodes[6].t, "busy", pair, 2, 0, 0, "x", 1, 60.0,
                                         done_cb, &busy[0]), 0);
    waitn_t wb = { busy, 2 };
    ck_assert(run_until(cl->base, all_done, &wb, 3000));
    ck_assert_int_eq(busy[0].status, PMIX_SUCCESS);
    free_results(busy, 2);
    /* {0, 1, 2}: 0 is the root, 1 and 2 its children; 0 and 1 start, 2 never
     * does and ends: 0 (waiting for 2's UP) fails it and tells 1 */
    static const uint32_t trio[] = { 0, 1, 2 };
    result_t res[2] = { { 0 } };
    for (uint32_t i = 0; i < 2; i++)
        ck_assert_int_eq(spx_tree_coll_start(cl->nodes[i].t, "trio", trio, 3, 0, 0, "x", 1, 60.0,
                                             done_cb, &res[i]), 0);
    run_for(cl->base, 50);
    ck_assert_int_eq(res[0].calls + res[1].calls, 0);
    int64_t t0 = now_ms();
    ck_assert_int_eq(spx_tree_leave(cl->nodes[2].t), 0);
    spx_tree_destroy(cl->nodes[2].t);
    cl->nodes[2].t = NULL;
    lostwait_t w = { cl, 2, res };
    ck_assert_msg(run_until(cl->base, left_seen, &w, 3000), "the others did not all see node 2 end");
    fprintf(stderr, "orderly end seen by all 7 others in %lld ms\n", (long long)(now_ms() - t0));
    run_for(cl->base, 100);
    ck_assert_int_eq(res[0].status, PMIX_ERR_UNREACH);
    ck_assert_int_eq(res[1].status, PMIX_ERR_UNREACH);
    free_results(res, 2);
    for (uint32_t i = 0; i < 8; i++) {
        if (i == 2)
            continue;
        ck_assert_int_eq(cl->nodes[i].left_calls[2], 1);
        for (uint32_t j = 0; j < 8; j++)
            ck_assert_msg(cl->nodes[i].lost_calls[j] == 0, "node %u calls node %u lost", i, j);
        ck_assert(spx_tree_node_is_lost(cl->nodes[i].t, 2));
    }
    /* a later collective naming node 2 fails at once; the others still work together */
    result_t late = { 0 };
    ck_assert_int_eq(spx_tree_coll_start(cl->nodes[0].t, "trio", trio, 3, 0, 0, "x", 1, 60.0,
                                         done_cb, &late), 0);
    run_for(cl->base, 20);
    ck_assert_int_eq(late.calls, 1);
    ck_assert_int_eq(late.status, PMIX_ERR_UNREACH);
    free_results(&late, 1);
    static const uint32_t surv[] = { 0, 1, 3, 4, 5, 6, 7 };
    run_coll(cl, "after", surv, 7, 5000);
    cluster_free(cl);
}
END_TEST

static int node_lost_1_0(void *arg)
{
    cluster_t *cl = arg;
    return cl->nodes[1].lost_calls[0] > 0;
}

START_TEST(net_wrong_secret)
{
    cluster_t *cl = calloc(1, sizeof(*cl));
    cl->base = event_base_new();
    cl->n = 2;
    cl->nodes[0].t = make_engine(cl, 0, 2, SECRET, 10.0);
    cl->nodes[1].t = make_engine(cl, 1, 2, "another-secret-of-16+", 0.3);
    ck_assert_ptr_nonnull(cl->nodes[0].t);
    ck_assert_ptr_nonnull(cl->nodes[1].t);
    set_all_addrs(cl);
    spx_tree_start(cl->nodes[0].t);
    spx_tree_start(cl->nodes[1].t);
    result_t r = { 0 };
    uint32_t nodes[2] = { 0, 1 };
    ck_assert_int_eq(spx_tree_coll_start(cl->nodes[1].t, "s", nodes, 2, 0, 0, "x", 1, 30.0,
                                         done_cb, &r),
                     0);
    /* node 1 keeps failing the handshake until its connect timeout, then gives up */
    ck_assert(run_until(cl->base, node_lost_1_0, cl, 5000));
    run_for(cl->base, 20);
    ck_assert_int_eq(r.calls, 1);
    ck_assert_int_eq(r.status, PMIX_ERR_UNREACH);
    ck_assert_uint_ge(spx_tree_auth_rejects(cl->nodes[1].t), 1);
    ck_assert_int_eq(cl->nodes[0].lost_calls[1], 0); /* never authenticated: not a member */
    ck_assert_int_eq(cl->nodes[0].recv_calls, 0);
    free(r.data);
    /* a short secret is refused outright */
    spx_tree_t *bad = make_engine(cl, 0, 2, "short", 1.0);
    ck_assert_ptr_null(bad);
    cluster_free(cl);
}
END_TEST

/* ---- raw sockets against engine 0 ---- */

static int raw_connect(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

/* 1 when fd was closed by the other end (EOF or reset). */
static int raw_closed(void *arg)
{
    int fd = *(int *)arg;
    char b[256];
    ssize_t r = recv(fd, b, sizeof(b), MSG_DONTWAIT);
    return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

static int raw_readable(void *arg)
{
    struct pollfd p = { .fd = *(int *)arg, .events = POLLIN };
    return poll(&p, 1, 0) == 1;
}

static void mac_of(const char *label, const uint8_t *nc, const uint8_t *na, uint32_t conn,
                   uint32_t acc, uint8_t *out)
{
    uint8_t idx[8];
    for (int i = 0; i < 4; i++) {
        idx[i] = (uint8_t)(conn >> (8 * i));
        idx[4 + i] = (uint8_t)(acc >> (8 * i));
    }
    spx_hmac_sha256_t h;
    spx_hmac_sha256_init(&h, SECRET, strlen(SECRET));
    spx_hmac_sha256_update(&h, label, strlen(label));
    spx_hmac_sha256_update(&h, nc, 32);
    spx_hmac_sha256_update(&h, na, 32);
    spx_hmac_sha256_update(&h, idx, 8);
    spx_hmac_sha256_final(&h, out);
}

/* Speaks the handshake as node `as` to engine 0; corrupts the proof if bad.
 * Returns the fd (open). */
static int raw_handshake(cluster_t *cl, uint32_t as, int bad)
{
    int fd = raw_connect(spx_tree_port(cl->nodes[0].t));
    uint8_t nc[32], na[32], mac[32], want[32];
    memset(nc, 0x5a, sizeof(nc));
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_HELLO);
    spx_buf_push_u32(&b, as);
    spx_buf_push_u32(&b, 0);
    spx_buf_push_raw(&b, nc, 32);
    ck_assert_int_eq(spx_frame_send_blocking(fd, SPX_TREE_FRAME_AUTH, 0, 0, &b), 0);
    spx_buf_fini(&b);
    ck_assert(run_until(cl->base, raw_readable, &fd, 3000));
    spx_frame_hdr_t h;
    ck_assert_int_eq(spx_frame_recv_blocking(fd, &h, &b, 1000), 0);
    ck_assert_uint_eq(h.type, SPX_TREE_FRAME_AUTH);
    ck_assert_uint_eq(spx_buf_pull_u8(&b), SPX_TREE_AUTH_CHALLENGE);
    spx_buf_pull_raw(&b, na, 32);
    spx_buf_pull_raw(&b, mac, 32);
    ck_assert_int_eq(spx_buf_finish(&b), 0);
    spx_buf_fini(&b);
    /* the engine proved it knows the secret */
    mac_of(SPX_TREE_AUTH_LABEL_ACCEPTOR, nc, na, as, 0, want);
    ck_assert_mem_eq(mac, want, 32);
    mac_of(SPX_TREE_AUTH_LABEL_CONNECTOR, nc, na, as, 0, mac);
    if (bad)
        mac[0] ^= 0x80;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_PROOF);
    spx_buf_push_raw(&b, mac, 32);
    ck_assert_int_eq(spx_frame_send_blocking(fd, SPX_TREE_FRAME_AUTH, 0, 0, &b), 0);
    spx_buf_fini(&b);
    return fd;
}

static int node0_recv1(void *arg)
{
    cluster_t *cl = arg;
    return cl->nodes[0].recv_calls >= 1;
}

START_TEST(net_hostile)
{
    cluster_t *cl = cluster_new(3, 2);
    uint32_t nodes[3];
    all_nodes(3, nodes);
    run_coll(cl, "before", nodes, 3, 5000);
    uint16_t port = spx_tree_port(cl->nodes[0].t);
    uint64_t rejects = spx_tree_auth_rejects(cl->nodes[0].t);

    /* garbage bytes */
    int fd = raw_connect(port);
    ck_assert_int_eq(write(fd, "GET / HTTP/1.0\r\n\r\n garbage garbage", 35), 35);
    ck_assert(run_until(cl->base, raw_closed, &fd, 3000));
    close(fd);
    /* a well-formed UP frame before authenticating */
    fd = raw_connect(port);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_str(&b, "before");
    spx_buf_push_u32(&b, 1);
    spx_buf_push_i32(&b, 0);
    spx_buf_push_u32(&b, 0);
    spx_buf_push_u8(&b, 0);
    spx_buf_push_bytes(&b, "evil", 4);
    ck_assert_int_eq(spx_frame_send_blocking(fd, SPX_TREE_FRAME_UP, 0, 0, &b), 0);
    spx_buf_fini(&b);
    ck_assert(run_until(cl->base, raw_closed, &fd, 3000));
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(cl->nodes[0].t), rejects + 1);
    /* a forged hello for a node index that does not exist */
    fd = raw_connect(port);
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_HELLO);
    spx_buf_push_u32(&b, 77);
    spx_buf_push_u32(&b, 0);
    spx_buf_push_raw(&b, "0123456789abcdef0123456789abcdef", 32);
    ck_assert_int_eq(spx_frame_send_blocking(fd, SPX_TREE_FRAME_AUTH, 0, 0, &b), 0);
    spx_buf_fini(&b);
    ck_assert(run_until(cl->base, raw_closed, &fd, 3000));
    close(fd);
    /* the handshake with a wrong proof */
    fd = raw_handshake(cl, 2, 1);
    ck_assert(run_until(cl->base, raw_closed, &fd, 3000));
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(cl->nodes[0].t), rejects + 3);
    /* a frame header announcing a huge payload is refused by the frame layer */
    fd = raw_connect(port);
    uint8_t hdr[SPX_FRAME_HDR_LEN];
    spx_frame_hdr_t h = { .version = SPX_FRAME_VERSION, .type = SPX_TREE_FRAME_AUTH,
                          .length = 0xfffffff0u };
    spx_frame_hdr_encode(&h, hdr);
    ck_assert_int_eq(write(fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
    ck_assert(run_until(cl->base, raw_closed, &fd, 3000));
    close(fd);
    /* none of that hurt: no node lost, the next collective works */
    for (uint32_t i = 0; i < 3; i++)
        for (uint32_t j = 0; j < 3; j++)
            ck_assert_int_eq(cl->nodes[i].lost_calls[j], 0);
    run_coll(cl, "after", nodes, 3, 5000);

    /* positive control: the right proof is accepted and a MSG then delivered */
    fd = raw_handshake(cl, 2, 0);
    spx_buf_init(&b);
    spx_buf_push_u8(&b, 9);
    spx_buf_push_bytes(&b, "raw", 3);
    ck_assert_int_eq(spx_frame_send_blocking(fd, SPX_TREE_FRAME_MSG, 0, 0, &b), 0);
    spx_buf_fini(&b);
    ck_assert(run_until(cl->base, node0_recv1, cl, 3000));
    ck_assert_uint_eq(cl->nodes[0].recv_from[0], 2);
    ck_assert_str_eq(cl->nodes[0].recv_data[0], "raw");
    close(fd);
    cluster_free(cl);
}
END_TEST

typedef struct bench_state {
    struct event_base *base;
    uint32_t n, done;
} bench_state_t;

static void bench_done(pmix_status_t st, const void *data, size_t len, void *arg)
{
    bench_state_t *b = arg;
    (void)data;
    ck_assert_int_eq(st, PMIX_SUCCESS);
    ck_assert_uint_eq(len, 8 * b->n);
    if (++b->done == b->n)
        event_base_loopbreak(b->base);
}

static void bench_guard_cb(evutil_socket_t fd, short w, void *arg)
{
    (void)fd, (void)w;
    event_base_loopbreak(arg);
}

/* Latency of back-to-back collectives over n in-process nodes (8 bytes each),
 * the loop run bare until every node's done has been called. */
static void bench(uint32_t n, uint32_t width, int iters)
{
    cluster_t *cl = cluster_new(n, width);
    uint32_t nodes[MAXN];
    all_nodes(n, nodes);
    run_coll(cl, "warmup", nodes, n, 20000);
    bench_state_t b = { cl->base, n, 0 };
    struct event *guard = evtimer_new(cl->base, bench_guard_cb, cl->base);
    struct timeval tv = { 20, 0 };
    struct timespec ts0, ts1;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    for (int k = 0; k < iters; k++) {
        b.done = 0;
        for (uint32_t i = 0; i < n; i++)
            ck_assert_int_eq(spx_tree_coll_start(cl->nodes[i].t, "bench", nodes, n,
                                                 SPX_TREE_F_COLLECT, 0, "12345678", 8, 30.0,
                                                 bench_done, &b),
                             0);
        evtimer_add(guard, &tv);
        event_base_dispatch(cl->base);
        ck_assert_uint_eq(b.done, n);
    }
    clock_gettime(CLOCK_MONOTONIC, &ts1);
    event_free(guard);
    double dt = (double)(ts1.tv_sec - ts0.tv_sec) * 1e3 + (double)(ts1.tv_nsec - ts0.tv_nsec) / 1e6;
    uint32_t kids[64];
    uint32_t maxmsgs = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = spx_tree_topo_children(i, n, width, kids) + (i ? 1 : 0);
        if (k > maxmsgs)
            maxmsgs = k;
    }
    spx_tree_stats_t st;
    for (uint32_t i = 0; i < n; i++) {
        spx_tree_get_stats(cl->nodes[i].t, &st);
        ck_assert_uint_eq(st.last_coll_msgs_sent,
                          spx_tree_topo_children(i, n, width, kids) + (i ? 1 : 0));
    }
    spx_tree_get_stats(cl->nodes[0].t, &st);
    fprintf(stderr,
            "tree collective n=%u w=%u depth=%u: %.3f ms each (%d back-to-back, one process, "
            "one loop); most messages sent by a node per collective: %u; root sent %llu bytes\n",
            n, width, spx_tree_topo_depth(n, width), dt / iters, iters, maxmsgs,
            (unsigned long long)st.last_coll_bytes_sent);
    cluster_free(cl);
}

START_TEST(net_bench)
{
    bench(16, 16, 200);
    bench(16, 2, 200);
    bench(64, 16, 50);
    bench(64, 2, 50);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tree_net");
    TCase *tc = tcase_create("net");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, net_coll_1_3_16);
    tcase_add_test(tc, net_subset_and_back_to_back);
    tcase_add_test(tc, net_send_bcast);
    tcase_add_test(tc, net_payload_intact);
    tcase_add_test(tc, net_simultaneous_links);
    tcase_add_test(tc, net_late_parent);
    tcase_add_test(tc, net_node_loss);
    tcase_add_test(tc, net_orderly_leave);
    tcase_add_test(tc, net_wrong_secret);
    tcase_add_test(tc, net_hostile);
    tcase_add_test(tc, net_bench);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf ? 1 : 0;
}
