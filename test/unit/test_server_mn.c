/* test_server_mn.c - the server in multi-node mode, with a fake tree engine.
 *
 * The test plugs a fake network into the server's net-ops seam (server/net.h,
 * spx_srv_net_set_factory): the fake records every collective, message and
 * broadcast the server asks for, and the test plays node 1 by completing
 * collectives and injecting messages on the progress thread (where the real
 * network would call back). A real server (node 0 of 2)
 * runs in the test process; the test talks to it as its clients over the unix
 * socket. Covered: fence over the tree with delta exchange and deletions (and
 * the counters the query keys report), direct modex both ways, event relay,
 * a client lost before PMIx_Finalize, a lost node (a fence still gathering
 * here fails, a GET waiting for that node's answer fails at once), a node
 * ending in order, the publish/lookup directory held here (node 0) and, with
 * the server as node 1, requests forwarded to node 0 and failed when it is lost;
 * the group channel: hostile messages dropped, a join answered by the
 * outcome the leader's node sends; queries whose answers span the nodes
 * (the process table, the job status): node 1's part asked, malformed
 * answers dropped, a lost node stood in for.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>
#include <spmix.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "codec/value.h"
#include "net/conn.h"
#include "net/unix_sock.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "proto/records.h"
#include "server/net.h"
#include "server/server.h"
#include "store/store.h"

#define NS "mns"

/* ====================== the fake network ====================== */

struct fake_coll {
    char set_id[128];
    uint32_t nodes[4];
    size_t nnodes;
    uint32_t flags;
    pmix_status_t status;
    spx_buf_t data;
    double timeout;
    spx_srv_net_coll_f done;
    void *arg;
};

struct fake_msg {
    uint32_t dst;  /* UINT32_MAX for a broadcast */
    uint8_t channel;
    spx_buf_t data;
};

static struct {
    pthread_mutex_t lock;
    spx_srv_net_up_t ops;
    void *ops_arg;
    int created, started, destroyed, left;
    struct fake_coll colls[16];
    int ncolls;
    struct fake_msg msgs[32];
    int nmsgs;
} T = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int fake_tree_obj;

/* The node this test's server is (0, or 1 in the "node1" case); the other
 * node of the two is the one the test plays. */
static uint32_t me_node;
#define OTHER_NODE (1u - me_node)

static const spx_srv_net_ops_t fake_net_ops;

static void *fake_net_create(struct event_base *base, const spx_srv_net_cfg_t *cfg,
                             const spx_srv_net_up_t *ops, void *ops_arg,
                             const spx_srv_net_ops_t **out)
{
    ck_assert_ptr_nonnull(base);
    ck_assert_uint_eq(cfg->node_index, me_node);
    ck_assert_uint_eq(cfg->nnodes, 2);
    ck_assert_str_eq(cfg->addrs[1], "127.0.0.1:2");
    ck_assert_uint_eq(cfg->secret_len, 16);
    T.ops = *ops;
    T.ops_arg = ops_arg;
    T.created++;
    T.started++; /* a network is started when made */
    *out = &fake_net_ops;
    return &fake_tree_obj;
}

static void fake_destroy(void *t)
{
    ck_assert_ptr_eq(t, &fake_tree_obj);
    pthread_mutex_lock(&T.lock);
    T.destroyed++;
    for (int i = 0; i < T.ncolls; i++)
        if (T.colls[i].done) { /* pending collectives complete with UNREACH */
            spx_srv_net_coll_f d = T.colls[i].done;
            T.colls[i].done = NULL;
            pthread_mutex_unlock(&T.lock);
            d(PMIX_ERR_UNREACH, NULL, 0, T.colls[i].arg);
            pthread_mutex_lock(&T.lock);
        }
    pthread_mutex_unlock(&T.lock);
}

static int fake_leave(void *t)
{
    (void)t;
    pthread_mutex_lock(&T.lock);
    T.left++;
    pthread_mutex_unlock(&T.lock);
    return 0;
}

static int fake_coll_start(void *t, const char *set_id, const uint32_t *nodes, size_t nnodes,
                           uint32_t flags, pmix_status_t status, const void *data, size_t len,
                           double timeout, spx_srv_net_coll_f done, void *arg)
{
    (void)t;
    pthread_mutex_lock(&T.lock);
    ck_assert_int_lt(T.ncolls, 16);
    struct fake_coll *c = &T.colls[T.ncolls];
    snprintf(c->set_id, sizeof(c->set_id), "%s", set_id);
    ck_assert_uint_le(nnodes, 4);
    memcpy(c->nodes, nodes, nnodes * sizeof(*nodes));
    c->nnodes = nnodes;
    c->flags = flags;
    c->status = status;
    spx_buf_init(&c->data);
    spx_buf_push_raw(&c->data, data, len);
    c->timeout = timeout;
    c->done = done;
    c->arg = arg;
    T.ncolls++;
    pthread_mutex_unlock(&T.lock);
    return 0;
}

static int record_msg(uint32_t dst, uint8_t channel, const void *data, size_t len)
{
    pthread_mutex_lock(&T.lock);
    ck_assert_int_lt(T.nmsgs, 32);
    struct fake_msg *m = &T.msgs[T.nmsgs++];
    m->dst = dst;
    m->channel = channel;
    spx_buf_init(&m->data);
    spx_buf_push_raw(&m->data, data, len);
    pthread_mutex_unlock(&T.lock);
    return 0;
}

static int fake_send(void *t, uint32_t dst, uint8_t channel, const void *data, size_t len)
{
    (void)t;
    ck_assert_uint_eq(dst, OTHER_NODE);
    return record_msg(dst, channel, data, len);
}

static int fake_bcast(void *t, uint8_t channel, const void *data, size_t len)
{
    (void)t;
    return record_msg(UINT32_MAX, channel, data, len);
}

static void fake_stats(void *t, spx_srv_net_stats_t *out)
{
    (void)t;
    memset(out, 0, sizeof(*out));
    out->msgs_sent = 11;
    out->bytes_sent = 1234;
    out->last_coll_msgs_sent = 1;
}

static const spx_srv_net_ops_t fake_net_ops = {
    .send = fake_send,
    .bcast = fake_bcast,
    .coll_start = fake_coll_start,
    .stats = fake_stats,
    .leave = fake_leave,
    .destroy = fake_destroy,
};

static void fake_reset(void)
{
    pthread_mutex_lock(&T.lock);
    for (int i = 0; i < T.ncolls; i++)
        spx_buf_fini(&T.colls[i].data);
    for (int i = 0; i < T.nmsgs; i++)
        spx_buf_fini(&T.msgs[i].data);
    T.ncolls = T.nmsgs = 0;
    T.created = T.started = T.destroyed = T.left = 0;
    pthread_mutex_unlock(&T.lock);
}

/* Waits until the fake saw n collectives / m messages (5 s at most). */
static void wait_colls(int n)
{
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&T.lock);
        int k = T.ncolls;
        pthread_mutex_unlock(&T.lock);
        if (k >= n)
            return;
        usleep(10000);
    }
    ck_abort_msg("no collective %d started", n);
}

static void wait_msgs(int n)
{
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&T.lock);
        int k = T.nmsgs;
        pthread_mutex_unlock(&T.lock);
        if (k >= n)
            return;
        usleep(10000);
    }
    ck_abort_msg("no message %d sent", n);
}

/* ---- running things on the progress thread, as the engine would ---- */

struct loop_call {
    void (*fn)(void *);
    void *arg;
    spx_wait_t w;
};

static void loop_tramp(void *arg)
{
    struct loop_call *c = arg;
    c->fn(c->arg);
    spx_wait_signal(&c->w, PMIX_SUCCESS);
}

static void on_loop(void (*fn)(void *), void *arg)
{
    struct loop_call c = {.fn = fn, .arg = arg};
    spx_wait_init(&c.w);
    ck_assert_int_eq(spx_progress_shift(loop_tramp, &c), 0);
    spx_wait_block(&c.w);
    spx_wait_fini(&c.w);
}

struct complete {
    int idx;
    pmix_status_t st;
    spx_buf_t *extra; /* node 1's contribution */
};

static void do_complete(void *arg)
{
    struct complete *c = arg;
    struct fake_coll *fc = &T.colls[c->idx];
    spx_buf_t all;
    spx_buf_init(&all);
    spx_buf_push_raw(&all, fc->data.data, fc->data.len);
    if (c->extra)
        spx_buf_push_raw(&all, c->extra->data, c->extra->len);
    spx_srv_net_coll_f d = fc->done;
    fc->done = NULL;
    ck_assert_ptr_nonnull(d);
    d(c->st, all.data, all.len, fc->arg);
    spx_buf_fini(&all);
}

static void complete(int idx, pmix_status_t st, spx_buf_t *extra)
{
    struct complete c = {idx, st, extra};
    on_loop(do_complete, &c);
}

struct inject {
    uint8_t channel;
    spx_buf_t *b;
    int node_lost;
};

static void do_inject(void *arg)
{
    struct inject *in = arg;
    if (in->node_lost >= 0 && in->b == (spx_buf_t *)&in->node_lost) /* marks "left" */
        T.ops.node_left((uint32_t)in->node_lost, T.ops_arg);
    else if (in->node_lost >= 0)
        T.ops.node_lost((uint32_t)in->node_lost, "test", T.ops_arg);
    else
        T.ops.recv(OTHER_NODE, in->channel, in->b->data, in->b->len, T.ops_arg);
}

static void inject(uint8_t channel, spx_buf_t *b)
{
    struct inject in = {channel, b, -1};
    on_loop(do_inject, &in);
}

/* ====================== server and clients ====================== */

static char tmpdir[64];
static char sock_path[512];
static pmix_server_module_t module;

static pmix_proc_t P(pmix_rank_t r)
{
    pmix_proc_t p;
    memset(&p, 0, sizeof(p));
    snprintf(p.nspace, sizeof(p.nspace), "%s", NS);
    p.rank = r;
    return p;
}

static void setup(void)
{
    fake_reset();
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/spx-test-mn.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    pmix_info_t init[4];
    memset(init, 0, sizeof(init));
    uint32_t idx = me_node;
    pmix_byte_object_t secret = {.bytes = "0123456789abcdef", .size = 16};
    PMIx_Info_load(&init[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIx_Info_load(&init[1], SPMIX_TREE_NODE_INDEX, &idx, PMIX_UINT32);
    PMIx_Info_load(&init[2], SPMIX_TREE_ADDRS, "127.0.0.1:1,127.0.0.1:2", PMIX_STRING);
    PMIx_Info_load(&init[3], SPMIX_TREE_SECRET, &secret, PMIX_BYTE_OBJECT);
    ck_assert_int_eq(PMIx_server_init(&module, init, 4), PMIX_SUCCESS);
    for (int i = 0; i < 4; i++)
        PMIx_Value_destruct(&init[i].value);
    ck_assert_int_eq(T.created, 1);
    ck_assert_int_eq(T.started, 1);

    pmix_info_t job[4];
    memset(job, 0, sizeof(job));
    uint32_t size = 4;
    PMIx_Info_load(&job[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIx_Info_load(&job[1], PMIX_LOCAL_PEERS, "0,1", PMIX_STRING);
    PMIx_Info_load(&job[2], PMIX_NODE_MAP, "spmix:nodeA,nodeB", PMIX_STRING);
    /* the local ranks 0 and 1 live on this node, 2 and 3 on the other one */
    PMIx_Info_load(&job[3], PMIX_PROC_MAP, me_node ? "spmix:2,3;0,1" : "spmix:0,1;2,3",
                   PMIX_STRING);
    pmix_nspace_t nsname = NS;
    ck_assert_int_eq(PMIx_server_register_nspace(nsname, 2, job, 4, NULL, NULL), PMIX_SUCCESS);
    for (int i = 0; i < 4; i++)
        PMIx_Value_destruct(&job[i].value);
    for (pmix_rank_t r = 0; r < 2; r++) {
        pmix_proc_t p = P(r);
        ck_assert_int_eq(PMIx_server_register_client(&p, geteuid(), getegid(), NULL, NULL, NULL),
                         PMIX_SUCCESS);
    }
    pmix_proc_t p0 = P(0);
    char **env = NULL;
    ck_assert_int_eq(PMIx_server_setup_fork(&p0, &env), PMIX_SUCCESS);
    sock_path[0] = '\0';
    for (size_t i = 0; env && env[i]; i++) {
        const char *pre = SPX_ENV_SERVER_URI "=" SPX_URI_PREFIX;
        if (strncmp(env[i], pre, strlen(pre)) == 0)
            snprintf(sock_path, sizeof(sock_path), "%s", env[i] + strlen(pre));
        free(env[i]);
    }
    free(env);
}

/* Whether the test ends with every client finalized, so that the server must
 * announce an orderly end to the network (ops->leave) before destroying it. */
static int expect_leave;

static void teardown(void)
{
    ck_assert_int_eq(PMIx_server_finalize(), PMIX_SUCCESS);
    ck_assert_int_eq(T.destroyed, 1);
    ck_assert_int_eq(T.left, expect_leave);
    expect_leave = 0;
    rmdir(tmpdir);
    fake_reset();
    me_node = 0;
}

static void setup_node1(void)
{
    me_node = 1;
    setup();
}

static uint32_t next_seq = 1;

static uint32_t send_req(int fd, uint8_t type, spx_buf_t *b)
{
    uint32_t seq = next_seq++;
    ck_assert_int_eq(spx_frame_send_blocking(fd, type, 0, seq, b), 0);
    spx_buf_fini(b);
    return seq;
}

/* Next frame of type (a reply to seq, or an EVENT push when seq == 0). */
static int recv_frame(int fd, uint8_t type, uint32_t seq, spx_buf_t *out)
{
    for (;;) {
        spx_frame_hdr_t h;
        if (spx_frame_recv_blocking(fd, &h, out, 5000) != 0)
            return -1;
        if (h.type == type && (seq == 0 || ((h.flags & SPX_FRAME_F_REPLY) && h.seq == seq)))
            return 0;
        spx_buf_fini(out);
    }
}

static int client(pmix_rank_t rank)
{
    int fd = spx_unix_connect(sock_path);
    ck_assert_int_ge(fd, 0);
    spx_buf_t b, r;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, SPX_PROTO_VERSION);
    spx_buf_push_u8(&b, SPX_PEER_CLIENT);
    spx_buf_push_str(&b, NS);
    spx_buf_push_u32(&b, rank);
    spx_buf_push_u32(&b, (uint32_t)getpid());
    uint32_t seq = send_req(fd, SPX_MSG_HELLO, &b);
    ck_assert_int_eq(recv_frame(fd, SPX_MSG_HELLO, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    spx_buf_fini(&r);
    return fd;
}

/* COMMIT of rank: put key=v with scope, or a deletion when scope is a PMIX_DEL_*. */
static void commit(int fd, pmix_rank_t rank, const char *key, int v, pmix_scope_t scope)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t val = {.type = PMIX_INT};
    val.data.integer = v;
    if (spx_scope_is_delete(scope))
        spx_store_delete(s, NS, rank, key, scope);
    else
        spx_store_put(s, NS, rank, key, &val, scope);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_records_push_proc(&b, s, NS, rank, 0, SPX_SCOPES_COMMIT, true, NULL);
    spx_store_destroy(s);
    send_req(fd, SPX_MSG_COMMIT, &b);
}

static uint32_t fence_send(int fd, bool collect)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, NULL, 0);
    pmix_info_t info;
    memset(&info, 0, sizeof(info));
    bool t = true;
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    spx_codec_push_info_array(&b, collect ? &info : NULL, collect ? 1 : 0);
    return send_req(fd, SPX_MSG_FENCE, &b);
}

static pmix_status_t status_reply(int fd, uint8_t type, uint32_t seq)
{
    spx_buf_t r;
    ck_assert_int_eq(recv_frame(fd, type, seq, &r), 0);
    pmix_status_t st = spx_buf_pull_i32(&r);
    spx_buf_fini(&r);
    return st;
}

static uint32_t get_send(int fd, pmix_rank_t rank, const char *key, bool optional)
{
    spx_buf_t b;
    spx_buf_init(&b);
    pmix_proc_t t = P(rank);
    spx_codec_push_proc(&b, &t);
    spx_buf_push_str(&b, key);
    pmix_info_t info;
    memset(&info, 0, sizeof(info));
    bool on = true;
    PMIx_Info_load(&info, PMIX_OPTIONAL, &on, PMIX_BOOL);
    spx_codec_push_info_array(&b, optional ? &info : NULL, optional ? 1 : 0);
    return send_req(fd, SPX_MSG_GET, &b);
}

/* GET reply: status, and the int value in *v when found. */
static pmix_status_t get_reply(int fd, uint32_t seq, int *v)
{
    spx_buf_t r;
    ck_assert_int_eq(recv_frame(fd, SPX_MSG_GET, seq, &r), 0);
    pmix_status_t st = spx_buf_pull_i32(&r);
    if (st == PMIX_SUCCESS) {
        pmix_value_t val;
        ck_assert_int_eq(spx_codec_pull_value(&r, &val), 0);
        *v = val.data.integer;
        PMIx_Value_destruct(&val);
    }
    spx_buf_fini(&r);
    return st;
}

static uint64_t query(int fd, const char *key)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_str(&b, key);
    spx_codec_push_info_array(&b, NULL, 0);
    uint32_t seq = send_req(fd, SPX_MSG_QUERY, &b);
    spx_buf_t r;
    ck_assert_int_eq(recv_frame(fd, SPX_MSG_QUERY, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    pmix_info_t *info = NULL;
    size_t n = 0;
    ck_assert_int_eq(spx_codec_pull_info_array(&r, &info, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(info[0].value.type, PMIX_UINT64);
    uint64_t v = info[0].value.data.uint64;
    PMIX_INFO_FREE(info, n);
    spx_buf_fini(&r);
    return v;
}

/* Node 1's contribution: rank 2's keys (value v) or deletions (v < 0). */
static void node1_record(spx_buf_t *b, const char *key, int v)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t val = {.type = PMIX_INT};
    val.data.integer = v;
    if (v < 0)
        spx_store_delete(s, NS, 2, key, PMIX_DEL_GLOBAL);
    else
        spx_store_put(s, NS, 2, key, &val, PMIX_GLOBAL);
    spx_buf_init(b);
    spx_records_push_proc(b, s, NS, 2, 0, SPX_SCOPES_REMOTE, true, NULL);
    spx_store_destroy(s);
}

/* Entries of a contribution: key entries and deletion entries (applied to a scratch store). */
static void count_entries(const spx_buf_t *data, size_t *keys, size_t *dels)
{
    *keys = *dels = 0;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_raw(&b, data->data, data->len);
    while (spx_buf_remaining(&b) > 0) {
        char ns[PMIX_MAX_NSLEN + 1];
        spx_buf_pull_str_into(&b, ns, sizeof(ns));
        spx_buf_pull_u32(&b);
        uint32_t n = spx_buf_pull_u32(&b);
        for (uint32_t i = 0; i < n; i++) {
            pmix_scope_t sc = spx_buf_pull_u8(&b);
            char key[PMIX_MAX_KEYLEN + 1];
            spx_buf_pull_str_into(&b, key, sizeof(key));
            if (spx_scope_is_delete(sc)) {
                (*dels)++;
            } else {
                pmix_value_t v;
                ck_assert_int_eq(spx_codec_pull_value(&b, &v), 0);
                PMIx_Value_destruct(&v);
                (*keys)++;
            }
        }
        ck_assert(!spx_buf_failed(&b));
    }
    spx_buf_fini(&b);
}

/* ====================== tests ====================== */

START_TEST(mn_fence_delta_and_deletions)
{
    int c0 = client(0), c1 = client(1);
    commit(c0, 0, "g", 1, PMIX_GLOBAL);
    commit(c1, 1, "h", 2, PMIX_REMOTE);
    commit(c0, 0, "l", 3, PMIX_LOCAL);
    uint32_t s0 = fence_send(c0, true), s1 = fence_send(c1, true);
    wait_colls(1);
    ck_assert_str_eq(T.colls[0].set_id, NS ":*;");
    ck_assert_uint_eq(T.colls[0].nnodes, 2);
    ck_assert_uint_eq(T.colls[0].nodes[0], 0);
    ck_assert_uint_eq(T.colls[0].nodes[1], 1);
    ck_assert_uint_eq(T.colls[0].flags, SPX_SRV_NET_F_COLLECT);
    ck_assert_int_eq(T.colls[0].status, PMIX_SUCCESS);
    size_t keys, dels;
    count_entries(&T.colls[0].data, &keys, &dels);
    ck_assert_uint_eq(keys, 2); /* g and h: the LOCAL key stays here */
    ck_assert_uint_eq(dels, 0);
    spx_buf_t n1;
    node1_record(&n1, "rk", 7);
    complete(0, PMIX_SUCCESS, &n1);
    spx_buf_fini(&n1);
    ck_assert_int_eq(status_reply(c0, SPX_MSG_FENCE, s0), PMIX_SUCCESS);
    ck_assert_int_eq(status_reply(c1, SPX_MSG_FENCE, s1), PMIX_SUCCESS);
    ck_assert_uint_eq(query(c0, SPMIX_QUERY_LAST_COLL_KEYS), 2);
    ck_assert_uint_eq(query(c0, SPMIX_QUERY_LAST_COLL_DELS), 0);
    ck_assert_uint_eq(query(c0, SPMIX_QUERY_TREE_MSGS_SENT), 11);
    ck_assert_uint_eq(query(c0, SPMIX_QUERY_TREE_BYTES_SENT), 1234);
    int v = 0;
    ck_assert_int_eq(get_reply(c1, get_send(c1, 2, "rk", false), &v), PMIX_SUCCESS);
    ck_assert_int_eq(v, 7);

    /* nothing new: an empty contribution */
    s0 = fence_send(c0, true);
    s1 = fence_send(c1, true);
    wait_colls(2);
    ck_assert_uint_eq(T.colls[1].data.len, 0);
    complete(1, PMIX_SUCCESS, NULL);
    ck_assert_int_eq(status_reply(c0, SPX_MSG_FENCE, s0), PMIX_SUCCESS);
    ck_assert_int_eq(status_reply(c1, SPX_MSG_FENCE, s1), PMIX_SUCCESS);
    ck_assert_uint_eq(query(c1, SPMIX_QUERY_LAST_COLL_KEYS), 0);
    /* data of the earlier fence is still there */
    ck_assert_int_eq(get_reply(c1, get_send(c1, 2, "rk", false), &v), PMIX_SUCCESS);

    /* a deletion: local peers stop seeing it at commit, the fence carries it */
    commit(c0, 0, "g", 0, PMIX_DEL_GLOBAL);
    query(c0, SPMIX_QUERY_LAST_COLL_KEYS); /* a round trip on c0: the commit is in */
    ck_assert_int_eq(get_reply(c1, get_send(c1, 0, "g", true), &v), PMIX_ERR_NOT_FOUND);
    s0 = fence_send(c0, true);
    s1 = fence_send(c1, true);
    wait_colls(3);
    count_entries(&T.colls[2].data, &keys, &dels);
    ck_assert_uint_eq(keys, 0);
    ck_assert_uint_eq(dels, 1);
    node1_record(&n1, "rk", -1); /* node 1's process deleted rk */
    complete(2, PMIX_SUCCESS, &n1);
    spx_buf_fini(&n1);
    ck_assert_int_eq(status_reply(c0, SPX_MSG_FENCE, s0), PMIX_SUCCESS);
    ck_assert_int_eq(status_reply(c1, SPX_MSG_FENCE, s1), PMIX_SUCCESS);
    ck_assert_uint_eq(query(c0, SPMIX_QUERY_LAST_COLL_DELS), 1);
    ck_assert_uint_eq(query(c0, SPMIX_QUERY_LAST_COLL_KEYS), 0);
    /* rk is gone here: an optional GET answers from what is here, at once and
     * without a message; a plain one asks node 1, which has nothing either */
    ck_assert_int_eq(get_reply(c0, get_send(c0, 2, "rk", true), &v), PMIX_ERR_NOT_FOUND);
    pthread_mutex_lock(&T.lock);
    ck_assert_int_eq(T.nmsgs, 0);
    pthread_mutex_unlock(&T.lock);
    uint32_t gs = get_send(c0, 2, "rk", false);
    wait_msgs(1);
    ck_assert_int_eq(T.msgs[0].channel, 1);
    spx_buf_t req;
    spx_buf_init(&req);
    spx_buf_push_raw(&req, T.msgs[0].data.data, T.msgs[0].data.len);
    uint32_t id = spx_buf_pull_u32(&req);
    spx_buf_fini(&req);
    spx_buf_t rep;
    spx_buf_init(&rep);
    spx_buf_push_u32(&rep, id);
    spx_buf_push_i32(&rep, PMIX_ERR_NOT_FOUND);
    inject(2, &rep);
    spx_buf_fini(&rep);
    ck_assert_int_eq(get_reply(c0, gs, &v), PMIX_ERR_NOT_FOUND);

    /* a barrier exchanges nothing and says so */
    s0 = fence_send(c0, false);
    s1 = fence_send(c1, false);
    wait_colls(4);
    ck_assert_uint_eq(T.colls[3].flags, 0);
    ck_assert_uint_eq(T.colls[3].data.len, 0);
    complete(3, PMIX_SUCCESS, NULL);
    ck_assert_int_eq(status_reply(c0, SPX_MSG_FENCE, s0), PMIX_SUCCESS);
    ck_assert_int_eq(status_reply(c1, SPX_MSG_FENCE, s1), PMIX_SUCCESS);
    close(c0);
    close(c1);
}
END_TEST

static uint32_t msg_u32_at(int i)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_raw(&b, T.msgs[i].data.data, T.msgs[i].data.len);
    uint32_t v = spx_buf_pull_u32(&b);
    spx_buf_fini(&b);
    return v;
}

static void inject_request(uint32_t id, pmix_rank_t rank, const char *key, bool optional)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, id);
    pmix_proc_t t = P(rank);
    spx_codec_push_proc(&b, &t);
    spx_buf_push_str(&b, key);
    spx_buf_push_u8(&b, optional);
    spx_buf_push_u32(&b, 0);
    inject(1, &b);
    spx_buf_fini(&b);
}

/* Status of the answer message i, and the int value of key for rank 0 in it (-1 if none). */
static pmix_status_t answer_at(int i, uint32_t id, const char *key, int *v)
{
    ck_assert_int_eq(T.msgs[i].channel, 2);
    ck_assert_uint_eq(T.msgs[i].dst, 1);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_raw(&b, T.msgs[i].data.data, T.msgs[i].data.len);
    ck_assert_uint_eq(spx_buf_pull_u32(&b), id);
    pmix_status_t st = spx_buf_pull_i32(&b);
    spx_store_t *s = spx_store_create();
    ck_assert_int_eq(spx_records_apply(&b, s, NULL, NULL), 0);
    const pmix_value_t *pv = spx_store_peek(s, NS, 0, key, NULL);
    *v = pv ? pv->data.integer : -1;
    spx_store_destroy(s);
    spx_buf_fini(&b);
    return st;
}

START_TEST(mn_direct_modex)
{
    int c0 = client(0);
    /* asking: rank 3 lives on node 1 */
    uint32_t gs = get_send(c0, 3, "x", false);
    wait_msgs(1);
    ck_assert_uint_eq(T.msgs[0].dst, 1);
    ck_assert_int_eq(T.msgs[0].channel, 1);
    uint32_t id = msg_u32_at(0);
    spx_store_t *s = spx_store_create();
    pmix_value_t val = {.type = PMIX_INT};
    val.data.integer = 9;
    spx_store_put(s, NS, 3, "x", &val, PMIX_REMOTE);
    spx_buf_t rep;
    spx_buf_init(&rep);
    spx_buf_push_u32(&rep, id);
    spx_buf_push_i32(&rep, PMIX_SUCCESS);
    spx_records_push_proc(&rep, s, NS, 3, 0, SPX_SCOPES_REMOTE, true, NULL);
    spx_store_destroy(s);
    inject(2, &rep);
    spx_buf_fini(&rep);
    int v = 0;
    ck_assert_int_eq(get_reply(c0, gs, &v), PMIX_SUCCESS);
    ck_assert_int_eq(v, 9);
    /* now stored: a second GET needs no message */
    ck_assert_int_eq(get_reply(c0, get_send(c0, 3, "x", false), &v), PMIX_SUCCESS);
    ck_assert_int_eq(T.nmsgs, 1);

    /* serving: held until rank 0 commits the key */
    inject_request(77, 0, "y", false);
    usleep(50000);
    ck_assert_int_eq(T.nmsgs, 1);
    commit(c0, 0, "y", 5, PMIX_REMOTE);
    wait_msgs(2);
    ck_assert_int_eq(answer_at(1, 77, "y", &v), PMIX_SUCCESS);
    ck_assert_int_eq(v, 5);
    /* OPTIONAL and absent: at once; a LOCAL key is not visible remotely */
    inject_request(78, 0, "zz", true);
    wait_msgs(3);
    ck_assert_int_eq(answer_at(2, 78, "zz", &v), PMIX_ERR_NOT_FOUND);
    commit(c0, 0, "lo", 1, PMIX_LOCAL);
    inject_request(79, 0, "lo", true);
    wait_msgs(4);
    ck_assert_int_eq(answer_at(3, 79, "lo", &v), PMIX_ERR_NOT_FOUND);
    /* a held request is answered NOT_FOUND when the process goes away */
    inject_request(80, 0, "never", false);
    usleep(50000);
    ck_assert_int_eq(T.nmsgs, 4);
    close(c0);
    wait_msgs(5);
    int k = -1;
    for (int i = 4; i < T.nmsgs; i++)
        if (T.msgs[i].channel == 2)
            k = i;
    ck_assert_int_ge(k, 0);
    ck_assert_int_eq(answer_at(k, 80, "never", &v), PMIX_ERR_NOT_FOUND);
}
END_TEST

static pmix_status_t next_event(int fd, pmix_proc_t *source)
{
    spx_buf_t r;
    ck_assert_int_eq(recv_frame(fd, SPX_MSG_EVENT, 0, &r), 0);
    pmix_status_t st = spx_buf_pull_i32(&r);
    ck_assert_int_eq(spx_codec_pull_proc(&r, source), 0);
    spx_buf_fini(&r);
    return st;
}

START_TEST(mn_lost_client)
{
    int c0 = client(0), c1 = client(1);
    uint32_t s1 = fence_send(c1, true);
    usleep(50000);
    ck_assert_int_eq(T.ncolls, 0);
    close(c0); /* no PMIx_Finalize */
    ck_assert_int_eq(status_reply(c1, SPX_MSG_FENCE, s1), PMIX_ERR_PROC_ABORTED);
    wait_colls(1);
    ck_assert_int_eq(T.colls[0].status, PMIX_ERR_PROC_ABORTED); /* every node fails it */
    wait_msgs(1);
    bool told = false;
    for (int i = 0; i < T.nmsgs; i++)
        told |= T.msgs[i].channel == 4 && T.msgs[i].dst == UINT32_MAX;
    ck_assert(told);
    pmix_proc_t src;
    ck_assert_int_eq(next_event(c1, &src), PMIX_ERR_PROC_ABORTED);
    ck_assert_uint_eq(src.rank, 0);
    /* a later fence naming it fails at once */
    ck_assert_int_eq(status_reply(c1, SPX_MSG_FENCE, fence_send(c1, false)),
                     PMIX_ERR_PROC_ABORTED);
    /* a remote process lost: event once, even if reported twice */
    spx_buf_t b;
    spx_buf_init(&b);
    pmix_proc_t r2 = P(2);
    spx_codec_push_proc(&b, &r2);
    inject(4, &b);
    inject(4, &b);
    spx_buf_fini(&b);
    ck_assert_int_eq(next_event(c1, &src), PMIX_ERR_PROC_ABORTED);
    ck_assert_uint_eq(src.rank, 2);
    close(c1);
}
END_TEST

START_TEST(mn_events_and_lost_node)
{
    int c0 = client(0), c1 = client(1);
    /* a NAMESPACE event of a client is broadcast */
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, -4321);
    pmix_proc_t me = P(0);
    spx_codec_push_proc(&b, &me);
    spx_buf_push_u8(&b, PMIX_RANGE_NAMESPACE);
    spx_codec_push_info_array(&b, NULL, 0);
    uint32_t ns = send_req(c0, SPX_MSG_NOTIFY, &b);
    ck_assert_int_eq(status_reply(c0, SPX_MSG_NOTIFY, ns), PMIX_SUCCESS);
    pmix_proc_t src;
    ck_assert_int_eq(next_event(c1, &src), -4321);
    ck_assert_int_eq(T.nmsgs, 1);
    ck_assert_int_eq(T.msgs[0].channel, 3);
    ck_assert_uint_eq(T.msgs[0].dst, UINT32_MAX);
    /* an event relayed by node 1 reaches both clients */
    spx_buf_t ev;
    spx_buf_init(&ev);
    spx_buf_push_raw(&ev, T.msgs[0].data.data, T.msgs[0].data.len);
    inject(3, &ev);
    spx_buf_fini(&ev);
    ck_assert_int_eq(next_event(c0, &src), -4321);
    ck_assert_int_eq(next_event(c1, &src), -4321);

    /* node 1 lost while a fence over it is in flight */
    uint32_t s0 = fence_send(c0, true), s1 = fence_send(c1, true);
    wait_colls(1);
    struct inject in = {0, NULL, 1};
    on_loop(do_inject, &in);
    ck_assert_int_eq(status_reply(c0, SPX_MSG_FENCE, s0), PMIX_ERR_UNREACH);
    ck_assert_int_eq(status_reply(c1, SPX_MSG_FENCE, s1), PMIX_ERR_UNREACH);
    ck_assert_int_eq(next_event(c0, &src), PMIX_ERR_UNREACH);
    /* and a GET of one of its processes does not hang */
    int v;
    ck_assert_int_eq(get_reply(c0, get_send(c0, 3, "x", false), &v), PMIX_ERR_NOT_FOUND);
    close(c0);
    close(c1);
}
END_TEST

/* Hostile bytes on the group channel are dropped; a join whose leader is on
 * the other node sends its answer there, and the outcome that comes back
 * (here: the invitation aborted) ends the join. */
START_TEST(mn_group_channel)
{
    int c0 = client(0);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_GRP_OP_JOIN_ACCEPT);
    spx_buf_push_str(&b, "gj");
    pmix_proc_t leader = P(3);
    spx_codec_push_proc_array(&b, &leader, 1);
    spx_codec_push_info_array(&b, NULL, 0);
    uint32_t js = send_req(c0, SPX_MSG_GROUP, &b);
    /* the answer goes to node 1 on the group channel */
    bool sent = false;
    for (int i = 0; i < 500 && !sent; i++) {
        pthread_mutex_lock(&T.lock);
        for (int k = 0; k < T.nmsgs; k++)
            sent |= T.msgs[k].channel == 8 && T.msgs[k].dst == OTHER_NODE;
        pthread_mutex_unlock(&T.lock);
        if (!sent)
            usleep(10000);
    }
    ck_assert_msg(sent, "no answer went to the leader's node");
    /* hostile: empty, unknown kind, a cut answer, a successful outcome
     * without its bytes, a bad vote */
    spx_buf_t h;
    spx_buf_init(&h);
    inject(8, &h);
    spx_buf_push_u8(&h, 9);
    inject(8, &h);
    spx_buf_fini(&h);
    spx_buf_push_u8(&h, 1);
    spx_buf_push_str(&h, "gj");
    inject(8, &h);
    spx_buf_fini(&h);
    pmix_proc_t none;
    memset(&none, 0, sizeof(none));
    spx_buf_push_u8(&h, 2);
    spx_buf_push_str(&h, "gj");
    spx_codec_push_proc(&h, &leader);
    spx_codec_push_proc(&h, &none);
    spx_buf_push_i32(&h, PMIX_SUCCESS);
    inject(8, &h);
    spx_buf_fini(&h);
    spx_buf_push_u8(&h, 3);
    spx_buf_push_str(&h, "gj");
    spx_codec_push_proc(&h, &leader);
    spx_codec_push_proc(&h, &leader);
    spx_buf_push_u8(&h, 5);
    inject(8, &h);
    spx_buf_fini(&h);
    /* the invitation's outcome: aborted; the join ends with it */
    spx_buf_push_u8(&h, 2);
    spx_buf_push_str(&h, "gj");
    spx_codec_push_proc(&h, &leader);
    spx_codec_push_proc(&h, &none);
    spx_buf_push_i32(&h, PMIX_GROUP_CONSTRUCT_ABORT);
    spx_buf_push_bytes(&h, NULL, 0);
    spx_codec_push_proc_array(&h, NULL, 0);
    inject(8, &h);
    spx_buf_fini(&h);
    ck_assert_int_eq(status_reply(c0, SPX_MSG_GROUP, js), PMIX_GROUP_CONSTRUCT_ABORT);
    close(c0);
}
END_TEST

/* Reads frames until the reply to seq; fails on any EVENT push before it. */
static pmix_status_t reply_without_event(int fd, uint8_t type, uint32_t seq)
{
    for (;;) {
        spx_frame_hdr_t h;
        spx_buf_t r;
        ck_assert_int_eq(spx_frame_recv_blocking(fd, &h, &r, 5000), 0);
        ck_assert_msg(h.type != SPX_MSG_EVENT, "an event reached the client");
        if (h.type == type && (h.flags & SPX_FRAME_F_REPLY) && h.seq == seq) {
            pmix_status_t st = spx_buf_pull_i32(&r);
            spx_buf_fini(&r);
            return st;
        }
        spx_buf_fini(&r);
    }
}

START_TEST(mn_orderly_end)
{
    int c0 = client(0), c1 = client(1);
    /* node 1 (ranks 2, 3) ends in order - every process there finalized -
     * while a fence over the whole job waits here for rank 1: the fence goes
     * on without node 1 (its collective runs over node 0 alone), and nobody
     * gets an event */
    uint32_t s0 = fence_send(c0, false);
    usleep(50000);
    struct inject in = {0, NULL, 1};
    in.b = (spx_buf_t *)&in.node_lost;
    on_loop(do_inject, &in);
    uint32_t s1 = fence_send(c1, false);
    wait_colls(1);
    ck_assert_str_eq(T.colls[0].set_id, NS ":*;");
    ck_assert_uint_eq(T.colls[0].nnodes, 1);
    ck_assert_uint_eq(T.colls[0].nodes[0], 0);
    complete(0, PMIX_SUCCESS, NULL);
    ck_assert_int_eq(reply_without_event(c0, SPX_MSG_FENCE, s0), PMIX_SUCCESS);
    ck_assert_int_eq(reply_without_event(c1, SPX_MSG_FENCE, s1), PMIX_SUCCESS);
    /* every local client finalizes: the server says so to the tree at the end */
    for (int i = 0; i < 2; i++) {
        int fd = i ? c1 : c0;
        spx_buf_t b;
        spx_buf_init(&b);
        ck_assert_int_eq(reply_without_event(fd, SPX_MSG_FINALIZE, send_req(fd, SPX_MSG_FINALIZE, &b)),
                         PMIX_SUCCESS);
    }
    close(c0);
    close(c1);
    usleep(50000);
    expect_leave = 1;
}
END_TEST

/* A directory request as node 1 forwards it (lib/server/pubsub.c). */
static void pubsub_req(uint64_t id, uint8_t op, pmix_rank_t rank, const char *key, int value)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, id);
    spx_buf_push_u8(&b, op);
    pmix_proc_t p = P(rank);
    spx_codec_push_proc(&b, &p);
    pmix_info_t info;
    memset(&info, 0, sizeof(info));
    if (op == 1) { /* publish key=value */
        spx_buf_push_u32(&b, 0);
        PMIx_Info_load(&info, key, &value, PMIX_INT);
        spx_codec_push_info_array(&b, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    } else {
        spx_buf_push_u32(&b, 1);
        spx_buf_push_str(&b, key);
        spx_codec_push_info_array(&b, NULL, 0);
    }
    inject(5, &b);
    spx_buf_fini(&b);
}

/* The answer node 0 sent back in message k: checks id and status; returns the
 * value of its single entry (or -1 when it has none). */
static int pubsub_answer(int k, uint64_t id, pmix_status_t want)
{
    wait_msgs(k + 1);
    ck_assert_uint_eq(T.msgs[k].dst, 1);
    ck_assert_int_eq(T.msgs[k].channel, 6);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_raw(&b, T.msgs[k].data.data, T.msgs[k].data.len);
    ck_assert_uint_eq(spx_buf_pull_u64(&b), id);
    ck_assert_int_eq(spx_buf_pull_i32(&b), want);
    uint32_t n = spx_buf_pull_u32(&b);
    int v = -1;
    if (n == 1) {
        pmix_proc_t p;
        pmix_value_t val;
        ck_assert_int_eq(spx_codec_pull_proc(&b, &p), 0);
        ck_assert_uint_eq(p.rank, 2);
        char *key = spx_buf_pull_str(&b);
        ck_assert_str_eq(key, "svc");
        free(key);
        ck_assert_int_eq(spx_codec_pull_value(&b, &val), 0);
        ck_assert_int_eq(val.type, PMIX_INT);
        v = val.data.integer;
        spx_codec_value_release(&val);
    }
    ck_assert_int_eq(spx_buf_finish(&b), 0);
    spx_buf_fini(&b);
    return v;
}

START_TEST(mn_pubsub_directory)
{
    int c0 = client(0);
    /* this server is node 0: it holds the job's directory. Garbage on the
     * directory's channels is dropped with a log line and nothing answered */
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, 7);
    inject(5, &b);
    inject(6, &b);
    spx_buf_fini(&b);
    spx_buf_init(&b);
    spx_buf_push_u64(&b, 1);
    spx_buf_push_u8(&b, 2);
    pmix_proc_t p2 = P(2);
    spx_codec_push_proc(&b, &p2);
    spx_buf_push_u32(&b, 100000); /* more keys than any request may carry */
    inject(5, &b);
    spx_buf_fini(&b);
    usleep(50000);
    ck_assert_int_eq(T.nmsgs, 0);
    /* node 1 forwards rank 2's publish, then a lookup, a duplicate, an unknown key */
    pubsub_req(7, 1, 2, "svc", 42);
    ck_assert_int_eq(pubsub_answer(0, 7, PMIX_SUCCESS), -1);
    pubsub_req(8, 2, 3, "svc", 0);
    ck_assert_int_eq(pubsub_answer(1, 8, PMIX_SUCCESS), 42);
    pubsub_req(9, 1, 3, "svc", 43);
    ck_assert_int_eq(pubsub_answer(2, 9, PMIX_ERR_DUPLICATE_KEY), -1);
    pubsub_req(10, 2, 3, "nothing", 0);
    ck_assert_int_eq(pubsub_answer(3, 10, PMIX_ERR_NOT_FOUND), -1);
    /* and a local client sees what rank 2 published */
    spx_buf_init(&b);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_str(&b, "svc");
    spx_codec_push_info_array(&b, NULL, 0);
    uint32_t seq = send_req(c0, SPX_MSG_LOOKUP, &b);
    spx_buf_t r;
    ck_assert_int_eq(recv_frame(c0, SPX_MSG_LOOKUP, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_buf_pull_u32(&r), 1);
    spx_buf_fini(&r);
    /* a lookup left waiting when the server finalizes (the teardown): it is
     * answered and nothing is touched after it is gone (ASan run) */
    spx_buf_init(&b);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_str(&b, "never");
    pmix_info_t wait;
    bool yes = true;
    PMIX_INFO_LOAD(&wait, PMIX_WAIT, &yes, PMIX_BOOL);
    spx_codec_push_info_array(&b, &wait, 1);
    PMIX_INFO_DESTRUCT(&wait);
    send_req(c0, SPX_MSG_LOOKUP, &b);
    usleep(50000);
    /* c0 stays open: the server goes first */
}
END_TEST

START_TEST(mn_lost_node_fails_gathering_fence)
{
    int c0 = client(0), c1 = client(1);
    /* a fence over the whole job still gathering here (c1 has not arrived,
     * so nothing went to the network): node 1 is lost, the fence fails */
    uint32_t s0 = fence_send(c0, true);
    usleep(50000);
    ck_assert_int_eq(T.ncolls, 0);
    struct inject in = {0, NULL, 1};
    on_loop(do_inject, &in);
    ck_assert_int_eq(status_reply(c0, SPX_MSG_FENCE, s0), PMIX_ERR_UNREACH);
    pmix_proc_t src;
    ck_assert_int_eq(next_event(c1, &src), PMIX_ERR_UNREACH);
    /* and a later fence naming its processes fails at once */
    ck_assert_int_eq(status_reply(c1, SPX_MSG_FENCE, fence_send(c1, false)), PMIX_ERR_UNREACH);
    close(c0);
    close(c1);
}
END_TEST

START_TEST(mn_dmodex_node_lost)
{
    int c0 = client(0);
    /* a GET (no timeout) waits for node 1's answer; node 1 is lost: the GET
     * fails with UNREACH at once instead of hanging */
    uint32_t gs = get_send(c0, 2, "x", false);
    wait_msgs(1);
    ck_assert_int_eq(T.msgs[0].channel, 1);
    struct inject in = {0, NULL, 1};
    on_loop(do_inject, &in);
    int v = 0;
    ck_assert_int_eq(get_reply(c0, gs, &v), PMIX_ERR_UNREACH);
    /* the late answer of the lost node is dropped */
    spx_buf_t rep;
    spx_buf_init(&rep);
    spx_buf_push_u32(&rep, msg_u32_at(0));
    spx_buf_push_i32(&rep, PMIX_ERR_NOT_FOUND);
    inject(2, &rep);
    spx_buf_fini(&rep);
    /* and no later GET of that node is sent anywhere */
    ck_assert_int_eq(get_reply(c0, get_send(c0, 3, "x", false), &v), PMIX_ERR_NOT_FOUND);
    ck_assert_int_eq(T.nmsgs, 1);
    close(c0);
}
END_TEST

/* A LOOKUP frame of one key; with PMIX_WAIT when wait. */
static uint32_t lookup_send(int fd, const char *key, bool wait)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_str(&b, key);
    pmix_info_t w;
    bool yes = true;
    PMIX_INFO_LOAD(&w, PMIX_WAIT, &yes, PMIX_BOOL);
    spx_codec_push_info_array(&b, wait ? &w : NULL, wait ? 1 : 0);
    PMIX_INFO_DESTRUCT(&w);
    return send_req(fd, SPX_MSG_LOOKUP, &b);
}

/* The request forwarded to node 0 in message k: checks op and key, returns its id. */
static uint64_t forwarded_request(int k, uint8_t op, const char *key)
{
    wait_msgs(k + 1);
    ck_assert_uint_eq(T.msgs[k].dst, 0);
    ck_assert_int_eq(T.msgs[k].channel, 5);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_raw(&b, T.msgs[k].data.data, T.msgs[k].data.len);
    uint64_t id = spx_buf_pull_u64(&b);
    ck_assert_uint_eq(spx_buf_pull_u8(&b), op);
    pmix_proc_t p;
    ck_assert_int_eq(spx_codec_pull_proc(&b, &p), 0);
    ck_assert_uint_eq(p.rank, 0);
    ck_assert_uint_eq(spx_buf_pull_u32(&b), 1);
    char *k0 = spx_buf_pull_str(&b);
    ck_assert_str_eq(k0, key);
    free(k0);
    ck_assert(!spx_buf_failed(&b));
    spx_buf_fini(&b);
    return id;
}

START_TEST(mn_pubsub_forwarded_to_node0)
{
    /* this server is node 1: the directory is node 0's */
    int c0 = client(0);
    uint32_t seq = lookup_send(c0, "svc", false);
    uint64_t id = forwarded_request(0, 2, "svc");
    /* node 0 answers: rank 2 published svc=42 */
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, id);
    spx_buf_push_i32(&b, PMIX_SUCCESS);
    spx_buf_push_u32(&b, 1);
    pmix_proc_t p2 = P(2);
    spx_codec_push_proc(&b, &p2);
    spx_buf_push_str(&b, "svc");
    pmix_value_t val = {.type = PMIX_INT};
    val.data.integer = 42;
    spx_codec_push_value(&b, &val);
    inject(6, &b);
    spx_buf_fini(&b);
    spx_buf_t r;
    ck_assert_int_eq(recv_frame(c0, SPX_MSG_LOOKUP, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_buf_pull_u32(&r), 1);
    spx_buf_fini(&r);
    /* a waiting lookup: node 0 is lost, it fails with UNREACH */
    seq = lookup_send(c0, "later", true);
    forwarded_request(1, 2, "later");
    struct inject in = {0, NULL, 0};
    on_loop(do_inject, &in);
    ck_assert_int_eq(status_reply(c0, SPX_MSG_LOOKUP, seq), PMIX_ERR_UNREACH);
    /* and a later one fails at once, nothing sent */
    ck_assert_int_eq(status_reply(c0, SPX_MSG_LOOKUP, lookup_send(c0, "svc", false)),
                     PMIX_ERR_UNREACH);
    ck_assert_int_eq(T.nmsgs, 2);
    close(c0);
}
END_TEST

/* ---- queries answered across the nodes (query_own.c, query_gather.c) ---- */

/* A QUERY of key with PMIX_NSPACE; returns its seq. */
static uint32_t query_send(int fd, const char *key)
{
    spx_buf_t b;
    pmix_info_t q;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_str(&b, key);
    PMIx_Info_load(&q, PMIX_NSPACE, NS, PMIX_STRING);
    spx_codec_push_info_array(&b, &q, 1);
    PMIx_Value_destruct(&q.value);
    return send_req(fd, SPX_MSG_QUERY, &b);
}

/* Message k must be a QUERY_REQ to the other node for part; its id. */
static uint64_t query_asked(int k, uint8_t part)
{
    wait_msgs(k + 1);
    spx_buf_t r;
    char nspace[PMIX_MAX_NSLEN + 1];
    ck_assert_uint_eq(T.msgs[k].dst, OTHER_NODE);
    ck_assert_int_eq(T.msgs[k].channel, 13);
    spx_buf_init_borrowed(&r, T.msgs[k].data.data, T.msgs[k].data.len);
    uint64_t id = spx_buf_pull_u64(&r);
    ck_assert_int_eq(spx_buf_pull_u8(&r), part);
    spx_buf_pull_str_into(&r, nspace, sizeof(nspace));
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    ck_assert_str_eq(nspace, NS);
    return id;
}

/* Node 1's answer: id, status, then v (NULL: none) cut to cut bytes (0: whole). */
static void query_answer(uint64_t id, const pmix_value_t *v, size_t cut)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, id);
    spx_buf_push_i32(&b, PMIX_SUCCESS);
    if (v)
        spx_codec_push_value(&b, v);
    if (cut)
        b.len = cut;
    inject(14, &b);
    spx_buf_fini(&b);
}

/* Node 1's processes: ranks first..first+n-1 with pid 4240 + rank. */
static void node1_procs(pmix_value_t *v, pmix_rank_t first, size_t n)
{
    pmix_proc_info_t *pi = calloc(n, sizeof(*pi));
    pmix_data_array_t *d = calloc(1, sizeof(*d));
    ck_assert(pi && d);
    for (size_t i = 0; i < n; i++) {
        pi[i].proc = P(first + (pmix_rank_t)i);
        pi[i].hostname = strdup("nodeB");
        pi[i].pid = 4240 + (pid_t)(first + i);
        pi[i].state = PMIX_PROC_STATE_CONNECTED;
    }
    *d = (pmix_data_array_t){.type = PMIX_PROC_INFO, .size = n, .array = pi};
    v->type = PMIX_DATA_ARRAY;
    v->data.darray = d;
}

/* The reply to seq: the one answer's value (caller: PMIX_INFO_FREE). */
static pmix_info_t *query_result(int fd, uint32_t seq, pmix_status_t want)
{
    spx_buf_t r;
    pmix_info_t *info = NULL;
    size_t n = 0;
    ck_assert_int_eq(recv_frame(fd, SPX_MSG_QUERY, seq, &r), 0);
    ck_assert_int_eq(spx_buf_pull_i32(&r), want);
    ck_assert_int_eq(spx_codec_pull_info_array(&r, &info, &n), 0);
    spx_buf_fini(&r);
    ck_assert_uint_eq(n, 1);
    return info;
}

/* A table of ranks 0-3: 0 connected here (this process), 1 registered
 * only; 2 and 3 node 1's (pid 4240 + rank) or stood in with state st2. */
static void check_ptable(const pmix_info_t *a, bool from1, pmix_proc_state_t st2)
{
    ck_assert_str_eq(a->key, PMIX_QUERY_PROC_TABLE);
    ck_assert_int_eq(a->value.type, PMIX_DATA_ARRAY);
    const pmix_data_array_t *d = a->value.data.darray;
    ck_assert_int_eq(d->type, PMIX_PROC_INFO);
    ck_assert_uint_eq(d->size, 4);
    const pmix_proc_info_t *pi = d->array;
    for (pmix_rank_t r = 0; r < 4; r++) {
        ck_assert_uint_eq(pi[r].proc.rank, r);
        ck_assert_str_eq(pi[r].hostname, r < 2 ? "nodeA" : "nodeB");
    }
    ck_assert_int_eq(pi[0].pid, getpid());
    ck_assert_int_eq(pi[0].state, PMIX_PROC_STATE_CONNECTED);
    ck_assert_int_eq(pi[1].pid, 0);
    ck_assert_int_eq(pi[1].state, PMIX_PROC_STATE_LAUNCH_UNDERWAY);
    for (pmix_rank_t r = 2; r < 4; r++) {
        ck_assert_int_eq(pi[r].pid, from1 ? 4240 + (pid_t)r : 0);
        ck_assert_int_eq(pi[r].state, from1 ? PMIX_PROC_STATE_CONNECTED : st2);
    }
}

/* This node's processes asked by node 1 (a cut request dropped); the
 * process table and the job status asked of node 1: answers that do not
 * fit (a stray id, cut bytes, ranks of this node, more ranks than the job)
 * are dropped, and the ranks of node 1 are then stood in for; a good answer
 * is merged; a lost node answers the status (PMIX_ERR_NODE_DOWN) and stands
 * in for its ranks without a message. */
START_TEST(mn_query_parts)
{
    int c0 = client(0);
    pmix_value_t v;
    /* node 1 asks for this node's processes: a cut request is dropped, a
     * whole one answered with ranks 0 and 1 */
    spx_buf_t b, r;
    spx_buf_init(&b);
    spx_buf_push_u64(&b, 77);
    spx_buf_push_u8(&b, 1);
    spx_buf_push_str(&b, NS);
    size_t whole = b.len;
    b.len = 10;
    inject(13, &b);
    ck_assert_int_eq(T.nmsgs, 0);
    b.len = whole;
    inject(13, &b);
    spx_buf_fini(&b);
    wait_msgs(1);
    ck_assert_int_eq(T.msgs[0].channel, 14);
    spx_buf_init_borrowed(&r, T.msgs[0].data.data, T.msgs[0].data.len);
    ck_assert_uint_eq(spx_buf_pull_u64(&r), 77);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    ck_assert_int_eq(spx_codec_pull_value(&r, &v), 0);
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    ck_assert_int_eq(v.type, PMIX_DATA_ARRAY);
    ck_assert_uint_eq(v.data.darray->size, 2);
    const pmix_proc_info_t *mine = v.data.darray->array;
    ck_assert_uint_eq(mine[1].proc.rank, 1);
    ck_assert_int_eq(mine[0].pid, getpid());
    PMIx_Value_destruct(&v);
    /* a stray id, then cut bytes: dropped, the table is ours plus stand-ins */
    uint32_t seq = query_send(c0, PMIX_QUERY_PROC_TABLE);
    uint64_t id = query_asked(1, 1);
    node1_procs(&v, 2, 2);
    query_answer(id + 100, &v, 0);
    query_answer(id, &v, 30);
    pmix_info_t *a = query_result(c0, seq, PMIX_SUCCESS);
    check_ptable(a, false, PMIX_PROC_STATE_UNDEF);
    PMIX_INFO_FREE(a, 1);
    /* ranks 0 and 1 are this node's, and five are more than the job has */
    PMIx_Value_destruct(&v);
    for (int bad = 0; bad < 2; bad++) {
        seq = query_send(c0, PMIX_QUERY_PROC_TABLE);
        id = query_asked(2 + bad, 1);
        node1_procs(&v, 0, bad ? 5 : 2);
        query_answer(id, &v, 0);
        PMIx_Value_destruct(&v);
        a = query_result(c0, seq, PMIX_SUCCESS);
        check_ptable(a, false, PMIX_PROC_STATE_UNDEF);
        PMIX_INFO_FREE(a, 1);
    }
    /* node 1's own ranks: merged */
    seq = query_send(c0, PMIX_QUERY_PROC_TABLE);
    id = query_asked(4, 1);
    node1_procs(&v, 2, 2);
    query_answer(id, &v, 0);
    PMIx_Value_destruct(&v);
    a = query_result(c0, seq, PMIX_SUCCESS);
    check_ptable(a, true, 0);
    PMIX_INFO_FREE(a, 1);
    /* the job status: node 1 lost before it answered */
    seq = query_send(c0, PMIX_QUERY_JOB_STATUS);
    query_asked(5, 3);
    struct inject in = {0, NULL, 1};
    on_loop(do_inject, &in);
    a = query_result(c0, seq, PMIX_SUCCESS);
    ck_assert_int_eq(a->value.type, PMIX_STATUS);
    ck_assert_int_eq(a->value.data.status, PMIX_ERR_NODE_DOWN);
    PMIX_INFO_FREE(a, 1);
    /* node 1 gone: nothing asked, its ranks COMM_FAILED */
    int sent = T.nmsgs;
    seq = query_send(c0, PMIX_QUERY_PROC_TABLE);
    a = query_result(c0, seq, PMIX_SUCCESS);
    check_ptable(a, false, PMIX_PROC_STATE_COMM_FAILED);
    PMIX_INFO_FREE(a, 1);
    for (int i = sent; i < T.nmsgs; i++)
        ck_assert_int_ne(T.msgs[i].channel, 13);
    close(c0);
}
END_TEST

static Suite *mn_suite(void)
{
    Suite *s = suite_create("server_mn");
    TCase *tc = tcase_create("multinode");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, mn_fence_delta_and_deletions);
    tcase_add_test(tc, mn_direct_modex);
    tcase_add_test(tc, mn_lost_client);
    tcase_add_test(tc, mn_events_and_lost_node);
    tcase_add_test(tc, mn_orderly_end);
    tcase_add_test(tc, mn_pubsub_directory);
    tcase_add_test(tc, mn_lost_node_fails_gathering_fence);
    tcase_add_test(tc, mn_dmodex_node_lost);
    tcase_add_test(tc, mn_group_channel);
    tcase_add_test(tc, mn_query_parts);
    suite_add_tcase(s, tc);
    TCase *t1 = tcase_create("node1");
    tcase_add_checked_fixture(t1, setup_node1, teardown);
    tcase_set_timeout(t1, 30);
    tcase_add_test(t1, mn_pubsub_forwarded_to_node0);
    suite_add_tcase(s, t1);
    return s;
}

int main(void)
{
    spx_srv_net_set_factory(fake_net_create);
    SRunner *sr = srunner_create(mn_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
