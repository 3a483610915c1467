/* test_tree_tool.c - a PMIx tool's munge steps on a tree engine's port
 * (lib/tree/proto.h TOOL_*; handshake.c), over real TCP on 127.0.0.1 with
 * raw sockets, without munged: an engine without ops.tool_accept answers a
 * TOOL_HELLO with a TOOL_ACK of PMIX_ERR_NOT_SUPPORTED; with it, a wrong
 * version is refused the same way, a TOOL_HELLO gets a 32-byte challenge, a
 * credential munge cannot decode gets an ACK of PMIX_ERR_NO_PERMISSIONS with
 * a reason; a credential before the hello, one over the length bound, a
 * truncated one, a tree HELLO after a tool's, random bytes and a truncated
 * frame are closed without an ACK. Every refusal counts as a rejected
 * handshake, no tool is ever handed over, and the engine goes on accepting.
 * (The accepted path needs munged: test/slurm/test_remote_tool.sh.)
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "codec/buf.h"
#include "net/conn.h"
#include "tree/proto.h"
#include "tree/tool_auth.h"
#include "tree/tree.h"

#define SECRET "0123456789abcdef-step-secret"

static int accepted;

static void on_tool(int fd, uid_t uid, gid_t gid, const char *label, void *arg)
{
    (void)uid, (void)gid, (void)label, (void)arg;
    accepted++;
    close(fd);
}

static void on_recv(uint32_t from, uint8_t ch, const void *data, size_t len, void *arg)
{
    (void)from, (void)ch, (void)data, (void)len, (void)arg;
}

static void on_lost(uint32_t node, const char *reason, void *arg)
{
    (void)node, (void)reason, (void)arg;
}

static struct event_base *base;

/* Destroys the engine, then lets the loop run once: a connection the engine
 * closed (one still open at the end is closed by spx_tree_destroy) is freed by
 * its reap event on a later turn of the loop (net/conn.c), not at once. */
static void teardown(spx_tree_t *t)
{
    spx_tree_destroy(t);
    event_base_loop(base, EVLOOP_NONBLOCK);
    event_base_free(base);
    base = NULL;
}

static spx_tree_t *engine(int with_tools)
{
    static const char *const addrs[] = {"127.0.0.1:0"};
    spx_tree_config_t c = {.node_index = 0, .nnodes = 1, .addrs = addrs,
                           .secret = SECRET, .secret_len = strlen(SECRET),
                           .connect_timeout = 1.0};
    spx_tree_ops_t ops = {.recv = on_recv, .node_lost = on_lost,
                          .tool_accept = with_tools ? on_tool : NULL};
    spx_tree_t *t = spx_tree_create(base, &c, &ops, NULL);
    ck_assert_ptr_nonnull(t);
    return t;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs the engine's loop until fd is readable (or closed); 1, or 0 after 3 s. */
static int wait_readable(int fd)
{
    int64_t end = now_ms() + 3000;
    while (now_ms() < end) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 0) == 1)
            return 1;
        event_base_loop(base, EVLOOP_NONBLOCK);
        usleep(1000);
    }
    return 0;
}

/* 1 when the engine closed fd (after whatever it sent first was read). */
static int closed_by_engine(int fd)
{
    char b[512];
    for (;;) {
        if (!wait_readable(fd))
            return 0;
        ssize_t r = recv(fd, b, sizeof(b), MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
            return 1;
    }
}

static int raw_connect(spx_tree_t *t)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(spx_tree_port(t))};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

static void send_auth(int fd, spx_buf_t *b)
{
    ck_assert(!spx_buf_failed(b));
    ck_assert_int_eq(spx_frame_send_blocking(fd, SPX_TREE_FRAME_AUTH, 0, 0, b), 0);
    spx_buf_fini(b);
}

static void send_tool_hello(int fd, uint32_t version)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_HELLO);
    spx_buf_push_u32(&b, version);
    send_auth(fd, &b);
}

/* Reads the engine's next AUTH frame; its step, the rest in *b. */
static uint8_t recv_step(int fd, spx_buf_t *b)
{
    spx_frame_hdr_t h;
    ck_assert(wait_readable(fd));
    ck_assert_int_eq(spx_frame_recv_blocking(fd, &h, b, 1000), 0);
    ck_assert_uint_eq(h.type, SPX_TREE_FRAME_AUTH);
    return spx_buf_pull_u8(b);
}

/* Expects a TOOL_ACK of status want with a reason, then the close. */
static void expect_ack(int fd, int32_t want)
{
    spx_buf_t b;
    ck_assert_uint_eq(recv_step(fd, &b), SPX_TREE_AUTH_TOOL_ACK);
    int32_t st = spx_buf_pull_i32(&b);
    char why[SPX_TREE_TOOL_MAX_REASON];
    spx_buf_pull_str_into(&b, why, sizeof(why));
    ck_assert_int_eq(spx_buf_finish(&b), 0);
    spx_buf_fini(&b);
    ck_assert_int_eq(st, want);
    ck_assert_msg(strstr(why, "tool refused: ") == why, "reason '%s'", why);
    ck_assert(closed_by_engine(fd));
}

/* A TOOL_HELLO answered by a challenge (fd open, waiting for the credential). */
static int challenged(spx_tree_t *t)
{
    int fd = raw_connect(t);
    send_tool_hello(fd, SPX_TREE_TOOL_VERSION);
    spx_buf_t b;
    ck_assert_uint_eq(recv_step(fd, &b), SPX_TREE_AUTH_TOOL_CHALLENGE);
    uint8_t nonce[SPX_TREE_NONCE_LEN];
    spx_buf_pull_raw(&b, nonce, sizeof(nonce));
    ck_assert_int_eq(spx_buf_finish(&b), 0);
    spx_buf_fini(&b);
    return fd;
}

START_TEST(tool_not_taken)
{
    base = event_base_new();
    spx_tree_t *t = engine(0);
    int fd = raw_connect(t);
    send_tool_hello(fd, SPX_TREE_TOOL_VERSION);
    expect_ack(fd, PMIX_ERR_NOT_SUPPORTED);
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(t), 1);
    teardown(t);
}
END_TEST

START_TEST(tool_hostile)
{
    base = event_base_new();
    spx_tree_t *t = engine(1);
    uint64_t n = 0;
    accepted = 0;
    /* another version of the tool steps */
    int fd = raw_connect(t);
    send_tool_hello(fd, SPX_TREE_TOOL_VERSION + 1);
    expect_ack(fd, PMIX_ERR_NOT_SUPPORTED);
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(t), ++n);
    if (!spx_tool_auth_supported()) { /* built without libmunge: every tool refused so */
        fd = raw_connect(t);
        send_tool_hello(fd, SPX_TREE_TOOL_VERSION);
        expect_ack(fd, PMIX_ERR_NOT_SUPPORTED);
        close(fd);
        teardown(t);
        return;
    }
    /* a credential munge cannot decode (munged or not): refused with a reason */
    setenv(SPX_MUNGE_SOCKET_ENV, "/nonexistent/munge.socket", 1);
    fd = challenged(t);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_CRED);
    spx_buf_push_str(&b, "MUNGE:forged:");
    send_auth(fd, &b);
    expect_ack(fd, PMIX_ERR_NO_PERMISSIONS);
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(t), ++n);
    /* a credential before the hello */
    fd = raw_connect(t);
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_CRED);
    spx_buf_push_str(&b, "MUNGE:early:");
    send_auth(fd, &b);
    ck_assert(closed_by_engine(fd));
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(t), ++n);
    /* a credential over the bound */
    fd = challenged(t);
    char *big = malloc(SPX_TREE_TOOL_MAX_CRED + 2);
    memset(big, 'A', SPX_TREE_TOOL_MAX_CRED + 1);
    big[SPX_TREE_TOOL_MAX_CRED + 1] = '\0';
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_CRED);
    spx_buf_push_str(&b, big);
    free(big);
    send_auth(fd, &b);
    ck_assert(closed_by_engine(fd));
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(t), ++n);
    /* a credential whose length says more than the frame holds */
    fd = challenged(t);
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_TOOL_CRED);
    spx_buf_push_u32(&b, 100);
    spx_buf_push_raw(&b, "abc", 3);
    send_auth(fd, &b);
    ck_assert(closed_by_engine(fd));
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(t), ++n);
    /* a tree node's HELLO after a tool's */
    fd = challenged(t);
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_HELLO);
    spx_buf_push_u32(&b, 1);
    spx_buf_push_u32(&b, 0);
    spx_buf_push_raw(&b, "0123456789abcdef0123456789abcdef", 32);
    send_auth(fd, &b);
    ck_assert(closed_by_engine(fd));
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(t), ++n);
    /* random bytes, and a tool frame cut short */
    fd = raw_connect(t);
    ck_assert_int_eq(write(fd, "\x13\x37 not a frame header at all", 29), 29);
    ck_assert(closed_by_engine(fd));
    close(fd);
    fd = raw_connect(t);
    uint8_t hdr[SPX_FRAME_HDR_LEN];
    spx_frame_hdr_t h = {.version = SPX_FRAME_VERSION, .type = SPX_TREE_FRAME_AUTH, .length = 40};
    spx_frame_hdr_encode(&h, hdr);
    ck_assert_int_eq(write(fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
    ck_assert_int_eq(write(fd, "\x06\x10\0\0\0ab", 7), 7);
    shutdown(fd, SHUT_WR);
    ck_assert(closed_by_engine(fd));
    close(fd);
    /* nobody got in, and the port still answers tools */
    ck_assert_int_eq(accepted, 0);
    fd = challenged(t);
    close(fd);
    teardown(t);
    unsetenv(SPX_MUNGE_SOCKET_ENV);
}
END_TEST

/* A peer not yet authenticated that announces a long frame is closed at
 * once, before any of it is read in (up to 64 such peers could otherwise
 * make the engine buffer 64 MiB each until the handshake's timeout). */
START_TEST(unauth_long_frame)
{
    base = event_base_new();
    spx_tree_t *t = engine(1);
    uint64_t lengths[] = {SPX_FRAME_MAX_PAYLOAD, 1u << 20, SPX_TREE_MAX_AUTH_FRAME + 1};
    for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
        int fd = raw_connect(t);
        uint8_t hdr[SPX_FRAME_HDR_LEN];
        spx_frame_hdr_t h = {.version = SPX_FRAME_VERSION, .type = SPX_TREE_FRAME_AUTH,
                             .length = (uint32_t)lengths[i]};
        spx_frame_hdr_encode(&h, hdr);
        ck_assert_int_eq(write(fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
        ck_assert_int_eq(write(fd, "\x01", 1), 1);   /* the payload's start, no more */
        ck_assert_msg(closed_by_engine(fd), "a %llu-byte frame before authentication was not refused",
                      (unsigned long long)lengths[i]);
        close(fd);
    }
    /* the port still answers */
    if (spx_tool_auth_supported())
        close(challenged(t));
    ck_assert_int_eq(accepted, 0);
    teardown(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tree_tool");
    TCase *tc = tcase_create("tool");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, tool_not_taken);
    tcase_add_test(tc, tool_hostile);
    tcase_add_test(tc, unauth_long_frame);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
