/* test_tree.c - the tree topology and the collective state machine, without
 * sockets.
 *
 * Topology: hand-checked shapes (n = 1, 3, 16, 17, 64; widths 2 and 16) and
 * invariants over many (n, w). Collectives: a simulated network holds every
 * message sent by the engines (coll.h's io hooks); tests deliver them in
 * chosen or random orders, duplicate them, drop nodes, fire timers by hand,
 * and check that every live node's done ran exactly once with the right
 * status and every contribution.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/coll.h"
#include "tree/tree.h"

/* ------------------------------------------------------------------ topology */

static void expect_children(uint32_t pos, uint32_t n, uint32_t w, const uint32_t *want,
                            uint32_t nwant)
{
    uint32_t out[64];
    uint32_t k = spx_tree_topo_children(pos, n, w, out);
    ck_assert_msg(k == nwant, "n=%u w=%u pos=%u: %u children, want %u", n, w, pos, k, nwant);
    for (uint32_t i = 0; i < k; i++)
        ck_assert_uint_eq(out[i], want[i]);
}

START_TEST(topo_shapes)
{
    uint32_t out[64];
    /* n = 1 */
    ck_assert_int_eq(spx_tree_topo_parent(0, 1, 2), -1);
    ck_assert_uint_eq(spx_tree_topo_children(0, 1, 16, out), 0);
    ck_assert_uint_eq(spx_tree_topo_depth(1, 2), 0);
    ck_assert_uint_eq(spx_tree_topo_depth(1, 16), 0);
    /* n = 3: a star for both widths */
    expect_children(0, 3, 2, (uint32_t[]){ 1, 2 }, 2);
    expect_children(0, 3, 16, (uint32_t[]){ 1, 2 }, 2);
    ck_assert_int_eq(spx_tree_topo_parent(2, 3, 2), 0);
    ck_assert_uint_eq(spx_tree_topo_depth(3, 2), 1);
    /* n = 16, w = 16: root + 15 leaves */
    uint32_t r15[15];
    for (uint32_t i = 0; i < 15; i++)
        r15[i] = i + 1;
    expect_children(0, 16, 16, r15, 15);
    ck_assert_uint_eq(spx_tree_topo_depth(16, 16), 1);
    /* n = 17, w = 16: root + 16 leaves */
    uint32_t r16[16];
    for (uint32_t i = 0; i < 16; i++)
        r16[i] = i + 1;
    expect_children(0, 17, 16, r16, 16);
    ck_assert_int_eq(spx_tree_topo_parent(16, 17, 16), 0);
    ck_assert_uint_eq(spx_tree_topo_depth(17, 16), 1);
    /* n = 18, w = 16: depth 2, full subtrees of 17 -> the root has one child */
    expect_children(0, 18, 16, (uint32_t[]){ 1 }, 1);
    uint32_t r2_17[16];
    for (uint32_t i = 0; i < 16; i++)
        r2_17[i] = i + 2;
    expect_children(1, 18, 16, r2_17, 16);
    ck_assert_uint_eq(spx_tree_topo_depth(18, 16), 2);
    /* n = 16, w = 2: pre-order complete binary tree of height 4 (sizes 15, 7, 3, 1) */
    ck_assert_uint_eq(spx_tree_topo_depth(16, 2), 4);
    expect_children(0, 16, 2, (uint32_t[]){ 1 }, 1);
    expect_children(1, 16, 2, (uint32_t[]){ 2, 9 }, 2);
    expect_children(2, 16, 2, (uint32_t[]){ 3, 6 }, 2);
    expect_children(3, 16, 2, (uint32_t[]){ 4, 5 }, 2);
    expect_children(6, 16, 2, (uint32_t[]){ 7, 8 }, 2);
    expect_children(9, 16, 2, (uint32_t[]){ 10, 13 }, 2);
    expect_children(13, 16, 2, (uint32_t[]){ 14, 15 }, 2);
    expect_children(15, 16, 2, NULL, 0);
    ck_assert_int_eq(spx_tree_topo_parent(15, 16, 2), 13);
    ck_assert_int_eq(spx_tree_topo_parent(9, 16, 2), 1);
    ck_assert_uint_eq(spx_tree_topo_level(15, 16, 2), 4);
    /* n = 17, w = 2: the root's second subtree starts at 1 + 15 = 16 */
    expect_children(0, 17, 2, (uint32_t[]){ 1, 16 }, 2);
    expect_children(16, 17, 2, NULL, 0);
    /* n = 64, w = 2: depth 6; n = 64, w = 16: depth 2, root children 1, 18, 35, 52 */
    ck_assert_uint_eq(spx_tree_topo_depth(64, 2), 6);
    expect_children(0, 64, 2, (uint32_t[]){ 1 }, 1);
    expect_children(1, 64, 2, (uint32_t[]){ 2, 33 }, 2);
    ck_assert_int_eq(spx_tree_topo_parent(63, 64, 2), 61);
    ck_assert_int_eq(spx_tree_topo_parent(33, 64, 2), 1);
    ck_assert_uint_eq(spx_tree_topo_depth(64, 16), 2);
    expect_children(0, 64, 16, (uint32_t[]){ 1, 18, 35, 52 }, 4);
    uint32_t c52[11];
    for (uint32_t i = 0; i < 11; i++)
        c52[i] = 53 + i;
    expect_children(52, 64, 16, c52, 11);
    ck_assert_int_eq(spx_tree_topo_parent(17, 64, 16), 1);
    ck_assert_int_eq(spx_tree_topo_parent(18, 64, 16), 0);
    ck_assert_uint_eq(spx_tree_topo_subtree_size(52, 64, 16), 12);
    ck_assert_uint_eq(spx_tree_topo_subtree_size(1, 64, 16), 17);
    /* width 0 means the default */
    ck_assert_uint_eq(spx_tree_topo_depth(64, 0), 2);
}
END_TEST

START_TEST(topo_invariants)
{
    static const uint32_t widths[] = { 1, 2, 3, 4, 7, 16 };
    uint32_t out[64];
    for (size_t wi = 0; wi < sizeof(widths) / sizeof(widths[0]); wi++) {
        uint32_t w = widths[wi];
        for (uint32_t n = 1; n <= 300; n++) {
            uint32_t depth = spx_tree_topo_depth(n, w);
            uint32_t *nparents = calloc(n, sizeof(uint32_t));
            uint32_t maxlevel = 0, total = 0;
            for (uint32_t p = 0; p < n; p++) {
                uint32_t k = spx_tree_topo_children(p, n, w, out);
                ck_assert_uint_le(k, w);
                total += k;
                uint32_t sub = 1;
                for (uint32_t i = 0; i < k; i++) {
                    ck_assert_uint_lt(out[i], n);
                    ck_assert_uint_gt(out[i], p);
                    ck_assert_int_eq(spx_tree_topo_parent(out[i], n, w), (long)p);
                    ck_assert_uint_eq(spx_tree_topo_level(out[i], n, w),
                                      spx_tree_topo_level(p, n, w) + 1);
                    nparents[out[i]]++;
                    sub += spx_tree_topo_subtree_size(out[i], n, w);
                }
                ck_assert_uint_eq(sub, spx_tree_topo_subtree_size(p, n, w));
                uint32_t lv = spx_tree_topo_level(p, n, w);
                if (lv > maxlevel)
                    maxlevel = lv;
            }
            ck_assert_uint_eq(total, n - 1);
            ck_assert_uint_eq(nparents[0], 0);
            ck_assert_int_eq(spx_tree_topo_parent(0, n, w), -1);
            for (uint32_t p = 1; p < n; p++)
                ck_assert_msg(nparents[p] == 1, "n=%u w=%u: pos %u has %u parents", n, w, p,
                              nparents[p]);
            ck_assert_uint_eq(maxlevel, depth);
            ck_assert_uint_eq(spx_tree_topo_subtree_size(0, n, w), n);
            if (w >= 2 && n > 1) {
                /* depth = O(log_w n): w^(depth-1) < n */
                uint64_t pw = 1;
                for (uint32_t i = 1; i < depth; i++)
                    pw *= w;
                ck_assert_uint_lt(pw, n);
            }
            free(nparents);
        }
    }
}
END_TEST

/* ------------------------------------------------------------ simulated net */

#define MAXN 64

typedef struct smsg {
    struct smsg *next;
    uint32_t from, to;
    uint8_t kind, up_flags;
    char *set_id;
    uint32_t seq, flags;
    pmix_status_t status;
    void *data;
    size_t len;
} smsg_t;

typedef struct stimer {
    uint32_t node;
    spx_coll_t *c;
    int armed;
} stimer_t;

typedef struct result {
    int calls;
    pmix_status_t status;
    char data[8192];
    size_t len;
} result_t;

typedef struct sim sim_t;
typedef struct snode {
    sim_t *s;
    uint32_t idx;
    int defer;
    int dead;
    uint64_t sent;
} snode_t;

struct sim {
    uint32_t n;
    spx_coll_engine_t *e[MAXN];
    snode_t nodes[MAXN];
    smsg_t *q; /* FIFO */
    size_t nq;
    stimer_t timers[256];
    int ntimers;
    result_t res[MAXN][4]; /* per node, per seq */
    uint64_t total_msgs;
};

static long sim_send(void *arg, uint32_t to, const spx_coll_msg_t *m)
{
    snode_t *sn = arg;
    sim_t *s = sn->s;
    smsg_t *x = calloc(1, sizeof(*x));
    x->from = sn->idx;
    x->to = to;
    x->kind = m->kind;
    x->up_flags = m->up_flags;
    x->set_id = strdup(m->set_id);
    x->seq = m->seq;
    x->flags = m->flags;
    x->status = m->status;
    if (m->len) {
        x->data = malloc(m->len);
        memcpy(x->data, m->data, m->len);
    }
    x->len = m->len;
    smsg_t **p = &s->q;
    while (*p)
        p = &(*p)->next;
    *p = x;
    s->nq++;
    sn->sent++;
    s->total_msgs++;
    return (long)(m->len + 32);
}

static void *sim_timer_arm(void *arg, double sec, spx_coll_t *c)
{
    snode_t *sn = arg;
    (void)sec;
    stimer_t *t = &sn->s->timers[sn->s->ntimers++];
    t->node = sn->idx;
    t->c = c;
    t->armed = 1;
    return t;
}

static void sim_timer_disarm(void *arg, void *tm)
{
    (void)arg;
    ((stimer_t *)tm)->armed = 0;
}

static void sim_defer(void *arg) { ((snode_t *)arg)->defer = 1; }

static const spx_coll_io_t sim_io = { sim_send, sim_timer_arm, sim_timer_disarm, sim_defer };

static sim_t *sim_new(uint32_t n, uint32_t w)
{
    sim_t *s = calloc(1, sizeof(*s));
    s->n = n;
    for (uint32_t i = 0; i < n; i++) {
        s->nodes[i].s = s;
        s->nodes[i].idx = i;
        s->e[i] = spx_coll_engine_create(i, n, w, &sim_io, &s->nodes[i]);
        ck_assert_ptr_nonnull(s->e[i]);
    }
    return s;
}

static void smsg_free(smsg_t *x)
{
    free(x->set_id);
    free(x->data);
    free(x);
}

static void sim_free(sim_t *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->e[i])
            spx_coll_engine_destroy(s->e[i]);
    while (s->q) {
        smsg_t *x = s->q;
        s->q = x->next;
        smsg_free(x);
    }
    free(s);
}

static void run_defers(sim_t *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->nodes[i].defer && s->e[i]) {
            s->nodes[i].defer = 0;
            spx_coll_run_deferred(s->e[i]);
        }
}

static void deliver_msg(sim_t *s, smsg_t *x, int dup)
{
    if (s->e[x->to] && !s->nodes[x->to].dead) {
        spx_coll_msg_t m = { .kind = x->kind, .set_id = x->set_id, .seq = x->seq,
                             .status = x->status, .flags = x->flags, .up_flags = x->up_flags,
                             .data = x->data, .len = x->len };
        spx_coll_recv(s->e[x->to], x->from, &m);
        if (dup)
            spx_coll_recv(s->e[x->to], x->from, &m);
    }
    smsg_free(x);
    run_defers(s);
}

/* Removes and delivers the k-th queued message. */
static void deliver_nth(sim_t *s, size_t k, int dup)
{
    smsg_t **p = &s->q;
    while (k--)
        p = &(*p)->next;
    smsg_t *x = *p;
    *p = x->next;
    s->nq--;
    deliver_msg(s, x, dup);
}

/* Delivers the first queued message from -> to; 0 if none. */
static int deliver_from(sim_t *s, uint32_t from, uint32_t to)
{
    size_t k = 0;
    for (smsg_t *x = s->q; x; x = x->next, k++)
        if (x->from == from && x->to == to) {
            deliver_nth(s, k, 0);
            return 1;
        }
    return 0;
}

static void pump(sim_t *s)
{
    run_defers(s);
    while (s->q)
        deliver_nth(s, 0, 0);
}

static void done_cb(pmix_status_t st, const void *data, size_t len, void *arg)
{
    result_t *r = arg;
    r->calls++;
    r->status = st;
    ck_assert_uint_lt(len, sizeof(r->data));
    if (len)
        memcpy(r->data, data, len);
    r->len = len;
}

static void start(sim_t *s, uint32_t i, const char *set, const uint32_t *nodes, size_t m,
                  uint32_t flags, pmix_status_t st, uint32_t seq, double timeout)
{
    char contrib[32];
    int n = snprintf(contrib, sizeof(contrib), "<%u>", i);
    ck_assert_int_eq(spx_coll_start(s->e[i], set, nodes, m, flags, st, contrib, (size_t)n,
                                    timeout, done_cb, &s->res[i][seq]),
                     0);
}

static void start_all(sim_t *s, const char *set, const uint32_t *nodes, size_t m, uint32_t seq)
{
    for (size_t k = 0; k < m; k++)
        start(s, nodes[k], set, nodes, m, SPX_TREE_F_COLLECT, PMIX_SUCCESS, seq, 0);
}

/* Every node in nodes finished seq once with success and saw each "<i>" once. */
static void check_ok(sim_t *s, const uint32_t *nodes, size_t m, uint32_t seq)
{
    for (size_t k = 0; k < m; k++) {
        result_t *r = &s->res[nodes[k]][seq];
        ck_assert_msg(r->calls == 1, "node %u seq %u: done called %d times", nodes[k], seq,
                      r->calls);
        ck_assert_int_eq(r->status, PMIX_SUCCESS);
        r->data[r->len] = 0;
        size_t want = 0;
        for (size_t j = 0; j < m; j++) {
            char tag[32];
            want += (size_t)snprintf(tag, sizeof(tag), "<%u>", nodes[j]);
            char *hit = strstr(r->data, tag);
            ck_assert_msg(hit, "node %u lacks %s in %s", nodes[k], tag, r->data);
            ck_assert_ptr_null(strstr(hit + 1, tag));
        }
        ck_assert_uint_eq(r->len, want);
    }
}

static void check_status(sim_t *s, const uint32_t *nodes, size_t m, uint32_t seq,
                         pmix_status_t st)
{
    for (size_t k = 0; k < m; k++) {
        result_t *r = &s->res[nodes[k]][seq];
        ck_assert_msg(r->calls == 1, "node %u: done called %d times", nodes[k], r->calls);
        ck_assert_msg(r->status == st, "node %u: status %d, want %d", nodes[k], r->status, st);
        ck_assert_uint_eq(r->len, 0);
    }
}

static const uint32_t all4[] = { 0, 1, 2, 3 };
static const uint32_t all3[] = { 0, 1, 2 };

/* Root 0 with leaves 1, 2, 3 (w = 3): every order of the root's four inputs
 * (its own start and each leaf's UP). */
START_TEST(coll_all_orders_root)
{
    int perm[4] = { 0, 1, 2, 3 }, count = 0;
    /* iterate all 24 permutations (Heap's algorithm, iterative) */
    int c[4] = { 0 }, i = 0;
    for (;;) {
        sim_t *s = sim_new(4, 3);
        for (uint32_t l = 1; l < 4; l++)
            start(s, l, "set", all4, 4, SPX_TREE_F_COLLECT, PMIX_SUCCESS, 0, 0);
        ck_assert_uint_eq(s->nq, 3);
        for (int k = 0; k < 4; k++) {
            if (perm[k] == 0) {
                start(s, 0, "set", all4, 4, SPX_TREE_F_COLLECT, PMIX_SUCCESS, 0, 0);
                ck_assert_int_eq(s->res[0][0].calls, 0); /* never inside start */
                run_defers(s);
            } else {
                ck_assert(deliver_from(s, (uint32_t)perm[k], 0));
            }
            ck_assert_int_eq(s->res[0][0].calls, k == 3 ? 1 : 0);
        }
        pump(s);
        check_ok(s, all4, 4, 0);
        ck_assert_uint_eq(s->total_msgs, 6); /* 3 UP + 3 DOWN */
        ck_assert_uint_eq(spx_coll_active(s->e[0]), 0);
        sim_free(s);
        count++;
        while (i < 4 && c[i] >= i) {
            c[i] = 0;
            i++;
        }
        if (i >= 4)
            break;
        int j = (i % 2 == 0) ? 0 : c[i];
        int t = perm[j];
        perm[j] = perm[i];
        perm[i] = t;
        c[i]++;
        i = 0;
    }
    ck_assert_int_eq(count, 24);
}
END_TEST

/* Random interleavings of starts and deliveries (any message may overtake any
 * other) over trees with interior nodes. */
START_TEST(coll_random_orders)
{
    static const struct { uint32_t n, w; } shapes[] = { { 7, 2 }, { 5, 2 }, { 6, 3 }, { 4, 1 } };
    unsigned seed = 12345;
    for (size_t sh = 0; sh < 4; sh++) {
        for (int round = 0; round < 300; round++) {
            uint32_t n = shapes[sh].n;
            sim_t *s = sim_new(n, shapes[sh].w);
            uint32_t nodes[8];
            for (uint32_t i = 0; i < n; i++)
                nodes[i] = i;
            int started[8] = { 0 }, nstarted = 0;
            while (nstarted < (int)n || s->q) {
                size_t choices = (size_t)(n - nstarted) + s->nq;
                size_t pick = (size_t)rand_r(&seed) % choices;
                if (pick < (size_t)(n - nstarted)) {
                    for (uint32_t i = 0; i < n; i++)
                        if (!started[i] && pick-- == 0) {
                            started[i] = 1;
                            nstarted++;
                            start(s, i, "r", nodes, n, 0, PMIX_SUCCESS, 0, 0);
                            run_defers(s);
                            break;
                        }
                } else {
                    deliver_nth(s, pick - (size_t)(n - nstarted), 0);
                }
            }
            check_ok(s, nodes, n, 0);
            ck_assert_uint_eq(s->total_msgs, 2 * (n - 1));
            sim_free(s);
        }
    }
}
END_TEST

START_TEST(coll_single_node)
{
    sim_t *s = sim_new(4, 2);
    uint32_t me[] = { 2 };
    start(s, 2, "solo", me, 1, 0, PMIX_SUCCESS, 0, 0);
    ck_assert_int_eq(s->res[2][0].calls, 0);
    ck_assert(s->nodes[2].defer);
    run_defers(s);
    check_ok(s, me, 1, 0);
    ck_assert_uint_eq(s->total_msgs, 0);
    sim_free(s);
}
END_TEST

START_TEST(coll_bad_args)
{
    sim_t *s = sim_new(4, 2);
    uint32_t unsorted[] = { 2, 1 }, notme[] = { 0, 1 }, range[] = { 0, 9 };
    ck_assert_int_eq(spx_coll_start(s->e[1], "x", unsorted, 2, 0, 0, NULL, 0, 0, done_cb,
                                    &s->res[1][0]), -1);
    ck_assert_int_eq(spx_coll_start(s->e[2], "x", notme, 2, 0, 0, NULL, 0, 0, done_cb,
                                    &s->res[2][0]), -1);
    ck_assert_int_eq(spx_coll_start(s->e[0], "x", range, 2, 0, 0, NULL, 0, 0, done_cb,
                                    &s->res[0][0]), -1);
    ck_assert_int_eq(spx_coll_start(s->e[0], NULL, all4, 4, 0, 0, NULL, 0, 0, done_cb,
                                    &s->res[0][0]), -1);
    ck_assert_int_eq(spx_coll_start(s->e[0], "x", all4, 4, 0, 0, NULL, 0, 0, NULL, NULL), -1);
    /* a failed start does not consume a sequence number */
    start_all(s, "x", all4, 4, 0);
    pump(s);
    check_ok(s, all4, 4, 0);
    sim_free(s);
}
END_TEST

START_TEST(coll_duplicates)
{
    /* 0 <- 1 <- {2, 3} (n = 4, w = 2): duplicate every message once */
    sim_t *s = sim_new(4, 2);
    start_all(s, "d", all4, 4, 0);
    while (s->q)
        deliver_nth(s, 0, 1);
    check_ok(s, all4, 4, 0);
    spx_coll_counters_t cnt;
    uint64_t dropped = 0;
    for (int i = 0; i < 4; i++) {
        spx_coll_get_counters(s->e[i], &cnt);
        dropped += cnt.dropped;
    }
    ck_assert_uint_eq(dropped, 6); /* one per message */
    sim_free(s);

    /* duplicates kept before the start are dropped too */
    s = sim_new(4, 2);
    start(s, 2, "d", all4, 4, 0, PMIX_SUCCESS, 0, 0);
    start(s, 3, "d", all4, 4, 0, PMIX_SUCCESS, 0, 0);
    deliver_nth(s, 0, 1);
    deliver_nth(s, 0, 1);
    ck_assert_int_eq(spx_coll_query(s->e[1], "d", 0), SPX_COLL_PENDING);
    spx_coll_get_counters(s->e[1], &cnt);
    ck_assert_uint_eq(cnt.dropped, 2);
    start(s, 1, "d", all4, 4, 0, PMIX_SUCCESS, 0, 0);
    ck_assert_int_eq(spx_coll_query(s->e[1], "d", 0), SPX_COLL_WAIT_DOWN);
    start(s, 0, "d", all4, 4, 0, PMIX_SUCCESS, 0, 0);
    pump(s);
    check_ok(s, all4, 4, 0);
    ck_assert_int_eq(spx_coll_query(s->e[1], "d", 0), SPX_COLL_DONE);
    ck_assert_int_eq(spx_coll_query(s->e[1], "d", 1), -1);
    sim_free(s);
}
END_TEST

static void kill_node(sim_t *s, uint32_t dead)
{
    s->nodes[dead].dead = 1;
    for (uint32_t i = 0; i < s->n; i++)
        if (i != dead)
            spx_coll_node_lost(s->e[i], dead);
    run_defers(s);
}

START_TEST(coll_lost_child)
{
    /* 0 <- 1 <- {2, 3}; leaf 3 dies before contributing */
    sim_t *s = sim_new(4, 2);
    for (uint32_t i = 0; i < 3; i++)
        start(s, i, "l", all4, 4, 0, PMIX_SUCCESS, 0, 0);
    pump(s);
    kill_node(s, 3);
    pump(s);
    check_status(s, all3, 3, 0, PMIX_ERR_UNREACH);
    /* the next collective over the survivors works */
    start_all(s, "l2", all3, 3, 1);
    pump(s);
    check_ok(s, all3, 3, 1);
    sim_free(s);
}
END_TEST

START_TEST(coll_lost_parent)
{
    /* interior node 1 dies after its UP, leaves wait for DOWN */
    sim_t *s = sim_new(4, 2);
    for (uint32_t i = 1; i < 4; i++)
        start(s, i, "p", all4, 4, 0, PMIX_SUCCESS, 0, 0);
    pump(s); /* 1's UP sits at 0, pending */
    ck_assert_int_eq(spx_coll_query(s->e[0], "p", 0), SPX_COLL_PENDING);
    kill_node(s, 1);
    static const uint32_t surv[] = { 2, 3 };
    check_status(s, surv, 2, 0, PMIX_ERR_UNREACH);
    /* the root learnt of the loss before starting: its start fails at once (deferred) */
    start(s, 0, "p", all4, 4, 0, PMIX_SUCCESS, 0, 0);
    ck_assert_int_eq(s->res[0][0].calls, 0);
    run_defers(s);
    ck_assert_int_eq(s->res[0][0].calls, 1);
    ck_assert_int_eq(s->res[0][0].status, PMIX_ERR_UNREACH);
    ck_assert_uint_eq(spx_coll_active(s->e[0]), 0);
    sim_free(s);
}
END_TEST

START_TEST(coll_timeout_then_next)
{
    /* root 0 of leaves 1, 2; the root is slow: the leaves time out */
    sim_t *s = sim_new(3, 2);
    start(s, 1, "t", all3, 3, 0, PMIX_SUCCESS, 0, 5.0);
    start(s, 2, "t", all3, 3, 0, PMIX_SUCCESS, 0, 5.0);
    pump(s); /* both UPs kept at 0 */
    ck_assert_int_eq(s->ntimers, 2);
    for (int k = 0; k < 2; k++) {
        stimer_t *t = &s->timers[k];
        ck_assert(t->armed);
        t->armed = 0;
        spx_coll_timeout(s->e[t->node], t->c);
    }
    pump(s);
    check_status(s, (uint32_t[]){ 1, 2 }, 2, 0, PMIX_ERR_TIMEOUT);
    /* the leaves go on with #1 before the root even started #0 */
    start(s, 1, "t", all3, 3, 0, PMIX_SUCCESS, 1, 5.0);
    start(s, 2, "t", all3, 3, 0, PMIX_SUCCESS, 1, 5.0);
    pump(s);
    ck_assert_int_eq(spx_coll_query(s->e[0], "t", 1), SPX_COLL_PENDING);
    /* the root arrives late: #0 timed out everywhere (its kept aborts say so), so
     * its participants join #1 with the leaves instead of failing once more */
    start(s, 0, "t", all3, 3, 0, PMIX_SUCCESS, 1, 5.0);
    pump(s);
    ck_assert_int_eq(s->res[0][0].calls, 0);
    check_ok(s, all3, 3, 1);
    /* late messages for #0 are dropped, the timers of finished collectives disarmed */
    spx_coll_counters_t cnt;
    uint64_t dropped = 0;
    for (int i = 1; i < 3; i++) {
        spx_coll_get_counters(s->e[i], &cnt);
        dropped += cnt.dropped;
    }
    ck_assert_uint_eq(dropped, 1); /* the root's DOWN(TIMEOUT) for #0 */
    for (int k = 0; k < s->ntimers; k++)
        ck_assert(!s->timers[k].armed);
    sim_free(s);
}
END_TEST

START_TEST(coll_timeout_interior)
{
    /* 0 <- 1 <- {2, 3}: leaf 3 never starts; node 1 times out and tells 0 and 2 */
    sim_t *s = sim_new(4, 2);
    for (uint32_t i = 0; i < 3; i++)
        start(s, i, "ti", all4, 4, 0, PMIX_SUCCESS, 0, 1.0);
    pump(s);
    stimer_t *t1 = NULL;
    for (int k = 0; k < s->ntimers; k++)
        if (s->timers[k].node == 1)
            t1 = &s->timers[k];
    ck_assert_ptr_nonnull(t1);
    t1->armed = 0;
    spx_coll_timeout(s->e[1], t1->c);
    pump(s);
    check_status(s, all3, 3, 0, PMIX_ERR_TIMEOUT);
    /* node 3 starts late: #0 had timed out (its DOWN(TIMEOUT) is kept), so node 3
     * joins #1, the next collective of the set, together with the others */
    start(s, 3, "ti", all4, 4, 0, PMIX_SUCCESS, 1, 1.0);
    run_defers(s);
    ck_assert_int_eq(s->res[3][0].calls, 0);
    for (uint32_t i = 0; i < 3; i++)
        start(s, i, "ti", all4, 4, 0, PMIX_SUCCESS, 1, 1.0);
    pump(s);
    check_ok(s, all4, 4, 1);
    sim_free(s);
}
END_TEST

START_TEST(coll_flags_mismatch)
{
    /* leaf 3 (under interior 1) disagrees: everybody gets BAD_PARAM */
    sim_t *s = sim_new(4, 2);
    for (uint32_t i = 0; i < 4; i++)
        start(s, i, "f", all4, 4, i == 3 ? 0 : SPX_TREE_F_COLLECT, PMIX_SUCCESS, 0, 0);
    pump(s);
    check_status(s, all4, 4, 0, PMIX_ERR_BAD_PARAM);
    sim_free(s);
}
END_TEST

START_TEST(coll_error_status)
{
    sim_t *s = sim_new(4, 2);
    for (uint32_t i = 0; i < 4; i++)
        start(s, i, "e", all4, 4, 0, i == 2 ? PMIX_ERR_PROC_ABORTED : PMIX_SUCCESS, 0, 0);
    pump(s);
    check_status(s, all4, 4, 0, PMIX_ERR_PROC_ABORTED);
    /* an error status also beats a flags disagreement */
    for (uint32_t i = 0; i < 4; i++)
        start(s, i, "e", all4, 4, i == 1 ? 1 : 0, i == 3 ? PMIX_ERR_NOMEM : PMIX_SUCCESS, 1, 0);
    pump(s);
    check_status(s, all4, 4, 1, PMIX_ERR_NOMEM);
    sim_free(s);
}
END_TEST

START_TEST(coll_bogus_senders)
{
    /* 0 <- 1 <- {2, 3}: an UP from a non-child and a DOWN from a non-parent are ignored */
    sim_t *s = sim_new(4, 2);
    start_all(s, "b", all4, 4, 0);
    spx_coll_msg_t up = { .kind = SPX_COLL_UP, .set_id = "b", .seq = 0, .data = "<9>", .len = 3 };
    spx_coll_recv(s->e[0], 3, &up); /* 3 is 1's child, not 0's */
    spx_coll_msg_t down = { .kind = SPX_COLL_DOWN, .set_id = "b", .seq = 0,
                            .status = PMIX_ERR_TIMEOUT };
    spx_coll_recv(s->e[2], 0, &down); /* 2's parent is 1 */
    spx_coll_msg_t bad = { .kind = 7, .set_id = "b" };
    spx_coll_recv(s->e[0], 1, &bad);
    spx_coll_recv(s->e[0], 0, &up); /* from self */
    pump(s);
    check_ok(s, all4, 4, 0);
    spx_coll_counters_t cnt;
    spx_coll_get_counters(s->e[0], &cnt);
    ck_assert_uint_eq(cnt.dropped, 3);
    spx_coll_get_counters(s->e[2], &cnt);
    ck_assert_uint_eq(cnt.dropped, 1);
    sim_free(s);
}
END_TEST

static void many(uint32_t n, uint32_t w)
{
    sim_t *s = sim_new(n, w);
    uint32_t nodes[MAXN];
    for (uint32_t i = 0; i < n; i++)
        nodes[i] = i;
    /* start in reverse order so most UPs arrive before their parent's start */
    for (uint32_t i = n; i-- > 0;)
        start(s, i, "many", nodes, n, SPX_TREE_F_COLLECT, PMIX_SUCCESS, 0, 0);
    pump(s);
    check_ok(s, nodes, n, 0);
    ck_assert_uint_eq(s->total_msgs, 2 * (n - 1));
    uint32_t kids[64];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = spx_tree_topo_children(i, n, w, kids);
        ck_assert_uint_eq(s->nodes[i].sent, k + (i ? 1 : 0)); /* 1 UP + 1 DOWN per child */
        spx_coll_counters_t cnt;
        spx_coll_get_counters(s->e[i], &cnt);
        ck_assert_uint_eq(cnt.last_msgs_sent, k + (i ? 1 : 0));
        ck_assert_uint_eq(cnt.done, 1);
    }
    /* a subset collective: the tree over the subset only */
    static const uint32_t sub[] = { 3, 7, 20, 21, 40, 63 };
    for (size_t k = 0; k < 6; k++)
        s->nodes[sub[k]].sent = 0;
    start_all(s, "sub", sub, 6, 1);
    pump(s);
    check_ok(s, sub, 6, 1);
    ck_assert_uint_eq(s->total_msgs, 2 * (n - 1) + 2 * 5);
    sim_free(s);
}

START_TEST(coll_many_w2) { many(64, 2); }
END_TEST
START_TEST(coll_many_w16) { many(64, 16); }
END_TEST

START_TEST(coll_destroy_completes)
{
    sim_t *s = sim_new(3, 2);
    start(s, 1, "x", all3, 3, 0, PMIX_SUCCESS, 0, 0);
    spx_coll_engine_destroy(s->e[1]);
    s->e[1] = NULL;
    ck_assert_int_eq(s->res[1][0].calls, 1);
    ck_assert_int_eq(s->res[1][0].status, PMIX_ERR_UNREACH);
    sim_free(s);
}
END_TEST

START_TEST(coll_state_str)
{
    ck_assert_str_eq(spx_coll_state_str(SPX_COLL_PENDING), "PENDING");
    ck_assert_str_eq(spx_coll_state_str(SPX_COLL_GATHER), "GATHER");
    ck_assert_str_eq(spx_coll_state_str(SPX_COLL_WAIT_DOWN), "WAIT_DOWN");
    ck_assert_str_eq(spx_coll_state_str(SPX_COLL_DONE), "DONE");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tree");
    TCase *tc = tcase_create("topo");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, topo_shapes);
    tcase_add_test(tc, topo_invariants);
    suite_add_tcase(s, tc);
    tc = tcase_create("coll");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, coll_all_orders_root);
    tcase_add_test(tc, coll_random_orders);
    tcase_add_test(tc, coll_single_node);
    tcase_add_test(tc, coll_bad_args);
    tcase_add_test(tc, coll_duplicates);
    tcase_add_test(tc, coll_lost_child);
    tcase_add_test(tc, coll_lost_parent);
    tcase_add_test(tc, coll_timeout_then_next);
    tcase_add_test(tc, coll_timeout_interior);
    tcase_add_test(tc, coll_flags_mismatch);
    tcase_add_test(tc, coll_error_status);
    tcase_add_test(tc, coll_bogus_senders);
    tcase_add_test(tc, coll_many_w2);
    tcase_add_test(tc, coll_many_w16);
    tcase_add_test(tc, coll_destroy_completes);
    tcase_add_test(tc, coll_state_str);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf ? 1 : 0;
}
