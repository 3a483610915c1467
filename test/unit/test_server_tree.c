/* test_server_tree.c - two PMIx servers joined by the real tree engine.
 *
 * The test forks: the parent is node 0, the child node 1, each a server
 * (PMIx_server_init with the SPMIX_TREE_* attributes on loopback ports) with
 * one local client, rank 0 and rank 1 of one job, played by the test over the
 * server's unix socket. Both run the same script: a collecting fence makes
 * the other rank's key visible; a second one with nothing new contributes no
 * key (counters say so); a key committed after the fence arrives by direct
 * modex (held until the other rank commits it); a deletion travels with the
 * next collecting fence and the key is gone on the other node; a barrier;
 * then both finalize.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix_server.h>
#include <spmix.h>

#include "codec/buf.h"
#include "codec/value.h"
#include "net/conn.h"
#include "net/unix_sock.h"
#include "proto/msg.h"
#include "proto/records.h"
#include "store/store.h"

#define NS "tjob"
#define REQ(c)                                                                          \
    do {                                                                                \
        if (!(c)) {                                                                     \
            fprintf(stderr, "node %u: %s:%d: failed: %s\n", me, __FILE__, __LINE__, #c); \
            return -1;                                                                  \
        }                                                                               \
    } while (0)

static unsigned me;
static char sock_path[512];
static uint32_t next_seq = 1;

static pmix_proc_t P(pmix_rank_t r)
{
    pmix_proc_t p;
    memset(&p, 0, sizeof(p));
    snprintf(p.nspace, sizeof(p.nspace), "%s", NS);
    p.rank = r;
    return p;
}

static uint32_t send_req(int fd, uint8_t type, spx_buf_t *b)
{
    uint32_t seq = next_seq++;
    if (spx_frame_send_blocking(fd, type, 0, seq, b) != 0)
        seq = 0;
    spx_buf_fini(b);
    return seq;
}

static int recv_reply(int fd, uint8_t type, uint32_t seq, spx_buf_t *out)
{
    for (;;) {
        spx_frame_hdr_t h;
        if (spx_frame_recv_blocking(fd, &h, out, 20000) != 0)
            return -1;
        if (h.type == type && (h.flags & SPX_FRAME_F_REPLY) && h.seq == seq)
            return 0;
        spx_buf_fini(out);
    }
}

static pmix_status_t status_of(int fd, uint8_t type, uint32_t seq)
{
    spx_buf_t r;
    if (recv_reply(fd, type, seq, &r) != 0)
        return PMIX_ERR_TIMEOUT;
    pmix_status_t st = spx_buf_pull_i32(&r);
    spx_buf_fini(&r);
    return st;
}

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

static pmix_status_t fence(int fd, bool collect)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, NULL, 0);
    pmix_info_t info[2];
    memset(info, 0, sizeof(info));
    bool t = true;
    int to = 20;
    PMIx_Info_load(&info[0], PMIX_TIMEOUT, &to, PMIX_INT);
    PMIx_Info_load(&info[1], PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    spx_codec_push_info_array(&b, info, collect ? 2 : 1);
    PMIx_Value_destruct(&info[0].value);
    PMIx_Value_destruct(&info[1].value);
    return status_of(fd, SPX_MSG_FENCE, send_req(fd, SPX_MSG_FENCE, &b));
}

static pmix_status_t get(int fd, pmix_rank_t rank, const char *key, bool optional, int *v)
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
    uint32_t seq = send_req(fd, SPX_MSG_GET, &b);
    spx_buf_t r;
    if (recv_reply(fd, SPX_MSG_GET, seq, &r) != 0)
        return PMIX_ERR_TIMEOUT;
    pmix_status_t st = spx_buf_pull_i32(&r);
    if (st == PMIX_SUCCESS) {
        pmix_value_t val;
        if (spx_codec_pull_value(&r, &val) == 0) {
            *v = val.data.integer;
            PMIx_Value_destruct(&val);
        }
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
    uint64_t v = UINT64_MAX;
    if (recv_reply(fd, SPX_MSG_QUERY, seq, &r) != 0)
        return v;
    pmix_info_t *info = NULL;
    size_t n = 0;
    if (spx_buf_pull_i32(&r) == PMIX_SUCCESS && spx_codec_pull_info_array(&r, &info, &n) == 0 &&
        n == 1 && info[0].value.type == PMIX_UINT64)
        v = info[0].value.data.uint64;
    if (info)
        PMIX_INFO_FREE(info, n);
    spx_buf_fini(&r);
    return v;
}

static int node_main(unsigned node, const char *addrs, const char *tmpdir)
{
    me = node;
    pmix_info_t init[4];
    memset(init, 0, sizeof(init));
    uint32_t idx = node;
    pmix_byte_object_t secret = {.bytes = "test-secret-0123456789", .size = 22};
    PMIx_Info_load(&init[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIx_Info_load(&init[1], SPMIX_TREE_NODE_INDEX, &idx, PMIX_UINT32);
    PMIx_Info_load(&init[2], SPMIX_TREE_ADDRS, addrs, PMIX_STRING);
    PMIx_Info_load(&init[3], SPMIX_TREE_SECRET, &secret, PMIX_BYTE_OBJECT);
    static pmix_server_module_t module;
    pmix_status_t irc = PMIx_server_init(&module, init, 4);
    for (int i = 0; i < 4; i++)
        PMIx_Value_destruct(&init[i].value);
    REQ(irc == PMIX_SUCCESS);
    pmix_info_t job[4];
    memset(job, 0, sizeof(job));
    uint32_t size = 2;
    char local[16];
    snprintf(local, sizeof(local), "%u", node);
    PMIx_Info_load(&job[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIx_Info_load(&job[1], PMIX_LOCAL_PEERS, local, PMIX_STRING);
    PMIx_Info_load(&job[2], PMIX_NODE_MAP, "spmix:n0,n1", PMIX_STRING);
    PMIx_Info_load(&job[3], PMIX_PROC_MAP, "spmix:0;1", PMIX_STRING);
    pmix_nspace_t nsname = NS;
    irc = PMIx_server_register_nspace(nsname, 1, job, 4, NULL, NULL);
    for (int i = 0; i < 4; i++)
        PMIx_Value_destruct(&job[i].value);
    REQ(irc == PMIX_SUCCESS);
    pmix_proc_t mine = P(node);
    REQ(PMIx_server_register_client(&mine, geteuid(), getegid(), NULL, NULL, NULL) ==
        PMIX_SUCCESS);
    char **env = NULL;
    REQ(PMIx_server_setup_fork(&mine, &env) == PMIX_SUCCESS);
    for (size_t i = 0; env && env[i]; i++) {
        const char *pre = SPX_ENV_SERVER_URI "=" SPX_URI_PREFIX;
        if (strncmp(env[i], pre, strlen(pre)) == 0)
            snprintf(sock_path, sizeof(sock_path), "%s", env[i] + strlen(pre));
        free(env[i]);
    }
    free(env);

    int fd = spx_unix_connect(sock_path);
    REQ(fd >= 0);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, SPX_PROTO_VERSION);
    spx_buf_push_u8(&b, SPX_PEER_CLIENT);
    spx_buf_push_str(&b, NS);
    spx_buf_push_u32(&b, node);
    spx_buf_push_u32(&b, (uint32_t)getpid());
    REQ(status_of(fd, SPX_MSG_HELLO, send_req(fd, SPX_MSG_HELLO, &b)) == PMIX_SUCCESS);

    pmix_rank_t other = 1 - node;
    int v = 0;
    commit(fd, node, "k", 100 + (int)node, PMIX_GLOBAL);
    commit(fd, node, "loc", 1, PMIX_LOCAL);
    REQ(fence(fd, true) == PMIX_SUCCESS);
    REQ(get(fd, other, "k", true, &v) == PMIX_SUCCESS && v == 100 + (int)other);
    REQ(query(fd, SPMIX_QUERY_LAST_COLL_KEYS) == 1);
    REQ(query(fd, SPMIX_QUERY_TREE_MSGS_SENT) > 0);
    REQ(query(fd, SPMIX_QUERY_LAST_COLL_PAYLOAD) > 0);
    uint64_t full_payload = query(fd, SPMIX_QUERY_LAST_COLL_PAYLOAD);

    /* nothing new: no key on the wire */
    REQ(fence(fd, true) == PMIX_SUCCESS);
    REQ(query(fd, SPMIX_QUERY_LAST_COLL_KEYS) == 0);
    REQ(query(fd, SPMIX_QUERY_LAST_COLL_PAYLOAD) < full_payload);
    REQ(get(fd, other, "k", true, &v) == PMIX_SUCCESS && v == 100 + (int)other);

    /* direct modex: the other rank commits "late" without a fence */
    commit(fd, node, "late", 200 + (int)node, PMIX_REMOTE);
    REQ(get(fd, other, "late", false, &v) == PMIX_SUCCESS && v == 200 + (int)other);
    REQ(get(fd, other, "loc", true, &v) == PMIX_ERR_NOT_FOUND); /* LOCAL stays home */

    /* a deletion travels with the next collecting fence */
    commit(fd, node, "k", 0, PMIX_DEL_GLOBAL);
    REQ(fence(fd, true) == PMIX_SUCCESS);
    REQ(query(fd, SPMIX_QUERY_LAST_COLL_DELS) == 1);
    REQ(query(fd, SPMIX_QUERY_LAST_COLL_KEYS) == 1); /* "late" was still owed */
    REQ(get(fd, other, "k", true, &v) == PMIX_ERR_NOT_FOUND);
    REQ(get(fd, other, "late", true, &v) == PMIX_SUCCESS && v == 200 + (int)other);

    REQ(fence(fd, false) == PMIX_SUCCESS);
    spx_buf_init(&b);
    REQ(status_of(fd, SPX_MSG_FINALIZE, send_req(fd, SPX_MSG_FINALIZE, &b)) == PMIX_SUCCESS);
    close(fd);
    REQ(PMIx_server_finalize() == PMIX_SUCCESS);
    return 0;
}

/* Whether 127.0.0.1:base and base+1 can be bound now. */
static bool ports_free(unsigned base)
{
    bool ok = true;
    for (unsigned k = 0; k < 2 && ok; k++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)(base + k))};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
        if (fd >= 0)
            close(fd);
    }
    return ok;
}

START_TEST(two_nodes)
{
    char tmpdir[64];
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/spx-test-tree.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    /* two free ports in a row (other tests may run beside this one) */
    unsigned base = 30000 + (unsigned)(getpid() % 15000) * 2;
    for (int tries = 0; tries < 50 && !ports_free(base); tries++)
        base = 30000 + (base - 30000 + 2 * 7919) % 30000;
    char addrs[64];
    snprintf(addrs, sizeof(addrs), "127.0.0.1:%u,127.0.0.1:%u", base, base + 1);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0)
        _exit(node_main(1, addrs, tmpdir) == 0 ? 0 : 1);
    int rc = node_main(0, addrs, tmpdir);
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    rmdir(tmpdir);
    ck_assert_int_eq(rc, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_tree");
    TCase *tc = tcase_create("two nodes");
    tcase_set_timeout(tc, 90);
    tcase_add_test(tc, two_nodes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
