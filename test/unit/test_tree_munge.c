/* test_tree_munge.c - tree links authenticated by munge (tree/auth.h), and
 * the plugin's abort report proven by munge (plugin/abort_msg.h), against a
 * munged this test starts itself (own key and socket in a temporary
 * directory; stopped at the end). Engines on 127.0.0.1 in this process:
 * links come up and a collective completes; raw sockets posing as node 2
 * are accepted with a right credential and refused with a forged one, one
 * whose payload is for another role or step, a replayed one, or one of a
 * uid outside the list (made by a child that became `nobody`; root only);
 * with munged gone an engine is refused at creation, and running engines
 * fail their links and their collective promptly. Skipped (77) only when
 * the build or the machine has no munge.
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "net/conn.h"
#include "plugin/abort_msg.h"
#include "tree/auth.h"
#include "tree/proto.h"
#include "tree/tree.h"
#include "util/munge_cred.h"

#define STEP_ID "slurm.spmix.77.0"
#define N 3 /* engines 0 and 1; raw sockets pose as node 2 */

static char mdir[64], msock[96];
static pid_t munged_pid = -1;
static uint32_t allowed[1];

/* ---- munged ---- */

static const char *munged_path(void)
{
    static const char *c[] = { "/usr/sbin/munged", "/usr/local/sbin/munged", "/sbin/munged" };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        if (access(c[i], X_OK) == 0)
            return c[i];
    return NULL;
}

static int munged_start(const char *exe)
{
    char key[96], a[5][160];
    snprintf(mdir, sizeof(mdir), "/tmp/spx-munge-XXXXXX");
    if (!mkdtemp(mdir) || chmod(mdir, 0755) != 0)
        return -1;
    snprintf(key, sizeof(key), "%s/key", mdir);
    snprintf(msock, sizeof(msock), "%s/sock", mdir);
    uint8_t k[1024];
    int fd = open(key, O_WRONLY | O_CREAT | O_EXCL, 0400);
    if (fd < 0 || getrandom(k, sizeof(k), 0) != (ssize_t)sizeof(k) ||
        write(fd, k, sizeof(k)) != (ssize_t)sizeof(k))
        return -1;
    close(fd);
    snprintf(a[0], sizeof(a[0]), "--socket=%s", msock);
    snprintf(a[1], sizeof(a[1]), "--key-file=%s", key);
    snprintf(a[2], sizeof(a[2]), "--pid-file=%s/pid", mdir);
    snprintf(a[3], sizeof(a[3]), "--seed-file=%s/seed", mdir);
    snprintf(a[4], sizeof(a[4]), "--log-file=%s/log", mdir);
    munged_pid = fork();
    if (munged_pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) { /* munged's own log: its log file */
            dup2(null, 1);
            dup2(null, 2);
        }
        execl(exe, exe, "--foreground", a[0], a[1], a[2], a[3], a[4], (char *)NULL);
        _exit(127);
    }
    if (munged_pid < 0)
        return -1;
    setenv(SPX_MUNGE_SOCKET_ENV, msock, 1);
    char err[256];
    for (int i = 0; i < 100; i++) { /* 5 s at most */
        char *c = spx_munge_encode(NULL, "up", 2, err, sizeof(err));
        if (c) {
            free(c);
            return 0;
        }
        usleep(50000);
    }
    fprintf(stderr, "munged did not answer: %s\n", err);
    return -1;
}

static void munged_stop(void)
{
    if (munged_pid > 0) {
        kill(munged_pid, SIGTERM);
        waitpid(munged_pid, NULL, 0);
        munged_pid = -1;
    }
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", mdir);
    if (mdir[0] && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", mdir);
}

/* ---- engines ---- */

typedef struct node {
    spx_tree_t *t;
    int lost[N];
} node_t;

typedef struct cl {
    struct event_base *base;
    node_t nodes[N];
} cl_t;

static void on_recv(uint32_t f, uint8_t c, const void *d, size_t l, void *a)
{
    (void)f, (void)c, (void)d, (void)l, (void)a;
}

static void on_lost(uint32_t node, const char *reason, void *arg)
{
    (void)reason;
    ((node_t *)arg)->lost[node]++;
}

static const spx_tree_ops_t ops = { on_recv, on_lost, NULL, NULL };

static spx_tree_t *engine(cl_t *cl, uint32_t i, const uint32_t *uids, size_t nuids,
                          double timeout)
{
    const char *addrs[N] = { "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0" };
    spx_tree_config_t cfg = { .node_index = i, .nnodes = N, .width = 2, .addrs = addrs,
                              .auth = SPX_TREE_AUTH_KIND_MUNGE, .auth_uids = uids,
                              .auth_nuids = nuids, .auth_id = STEP_ID,
                              .connect_timeout = timeout };
    return spx_tree_create(cl->base, &cfg, &ops, &cl->nodes[i]);
}

static void set_addrs(cl_t *cl)
{
    char buf[N][32];
    const char *addrs[N];
    for (uint32_t i = 0; i < N; i++) {
        snprintf(buf[i], sizeof(buf[i]), "127.0.0.1:%u",
                 cl->nodes[i].t ? spx_tree_port(cl->nodes[i].t) : 1);
        addrs[i] = buf[i];
    }
    for (uint32_t i = 0; i < N; i++)
        if (cl->nodes[i].t)
            ck_assert_int_eq(spx_tree_set_addrs(cl->nodes[i].t, addrs), 0);
}

static cl_t *cl_new(const uint32_t *uids, size_t nuids, double timeout)
{
    cl_t *cl = calloc(1, sizeof(*cl));
    cl->base = event_base_new();
    for (uint32_t i = 0; i < 2; i++) {
        cl->nodes[i].t = engine(cl, i, uids, nuids, timeout);
        ck_assert_ptr_nonnull(cl->nodes[i].t);
    }
    set_addrs(cl);
    for (uint32_t i = 0; i < 2; i++)
        ck_assert_int_eq(spx_tree_start(cl->nodes[i].t), 0);
    return cl;
}

static void cl_free(cl_t *cl)
{
    for (uint32_t i = 0; i < N; i++)
        if (cl->nodes[i].t)
            spx_tree_destroy(cl->nodes[i].t);
    struct timeval tv = { 0, 20000 };
    event_base_loopexit(cl->base, &tv);
    event_base_dispatch(cl->base);
    event_base_free(cl->base);
    free(cl);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void tick(evutil_socket_t fd, short w, void *arg) { (void)fd, (void)w, (void)arg; }

typedef int (*pred_f)(void *arg);
static int run_until(struct event_base *base, pred_f pred, void *arg, int ms)
{
    struct event *t = event_new(base, -1, EV_PERSIST, tick, NULL);
    struct timeval tv = { 0, 2000 };
    event_add(t, &tv);
    int64_t end = now_ms() + ms;
    int ok;
    while (!(ok = pred(arg)) && now_ms() < end)
        event_base_loop(base, EVLOOP_ONCE);
    event_free(t);
    return ok;
}

typedef struct res {
    int calls;
    pmix_status_t st;
} res_t;

static void done(pmix_status_t st, const void *d, size_t l, void *arg)
{
    (void)d, (void)l;
    ((res_t *)arg)->calls++;
    ((res_t *)arg)->st = st;
}

static int two_done(void *arg)
{
    res_t *r = arg;
    return r[0].calls && r[1].calls;
}

/* a collective of nodes 0 and 1; returns its status on node 1 */
static pmix_status_t coll01(cl_t *cl, const char *set, int ms)
{
    res_t r[2] = { { 0 } };
    uint32_t nodes[2] = { 0, 1 };
    for (uint32_t i = 0; i < 2; i++)
        ck_assert_int_eq(spx_tree_coll_start(cl->nodes[i].t, set, nodes, 2, 0, 0, "x", 1, 20.0,
                                             done, &r[i]), 0);
    ck_assert(run_until(cl->base, two_done, r, ms));
    ck_assert_int_eq(r[0].st, r[1].st);
    return r[1].st;
}

static int one_done(void *arg)
{
    return ((res_t *)arg)->calls;
}

/* the same when the link cannot be proven: node 1 (the connector) fails it
 * once its connect timeout passed; node 0 fails it when destroyed */
static pmix_status_t coll01_fails(cl_t *cl, int ms)
{
    static res_t r[2];
    uint32_t nodes[2] = { 0, 1 };
    memset(r, 0, sizeof(r));
    for (uint32_t i = 0; i < 2; i++)
        ck_assert_int_eq(spx_tree_coll_start(cl->nodes[i].t, "f", nodes, 2, 0, 0, "x", 1, 20.0,
                                             done, &r[i]), 0);
    ck_assert(run_until(cl->base, one_done, &r[1], ms));
    return r[1].st;
}

/* ---- raw sockets posing as node 2 ---- */

static size_t transcript(const char *label, const uint8_t *nc, const uint8_t *na, uint32_t c,
                         uint32_t a, const char *id, uint8_t *out)
{
    size_t n = strlen(label);
    memcpy(out, label, n);
    memcpy(out + n, nc, 32);
    memcpy(out + n + 32, na, 32);
    n += 64;
    for (int i = 0; i < 4; i++) {
        out[n + i] = (uint8_t)(c >> (8 * i));
        out[n + 4 + i] = (uint8_t)(a >> (8 * i));
    }
    n += 8;
    memcpy(out + n, id, strlen(id));
    return n + strlen(id);
}

static int readable(void *arg)
{
    struct pollfd p = { .fd = *(int *)arg, .events = POLLIN };
    return poll(&p, 1, 0) == 1;
}

/* 1 when the engine closed fd */
static int closed(void *arg)
{
    char b[64];
    ssize_t r = recv(*(int *)arg, b, sizeof(b), MSG_DONTWAIT);
    return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* A credential as user nobody (a child that drops to it) of payload. */
static char *cred_as_nobody(const uint8_t *pl, size_t len)
{
    struct passwd *pw = getpwnam("nobody");
    int p[2];
    ck_assert_ptr_nonnull(pw);
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char err[256];
        close(p[0]);
        if (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
            _exit(2);
        char *c = spx_munge_encode(NULL, pl, len, err, sizeof(err));
        if (!c || write(p[1], c, strlen(c)) != (ssize_t)strlen(c))
            _exit(3);
        _exit(0);
    }
    close(p[1]);
    static char buf[SPX_TREE_MAX_PROOF + 1];
    size_t got = 0;
    ssize_t r;
    while ((r = read(p[0], buf + got, sizeof(buf) - 1 - got)) > 0)
        got += (size_t)r;
    buf[got] = 0;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return strdup(buf);
}

enum proof_kind { PROOF_RIGHT, PROOF_FORGED, PROOF_ROLE, PROOF_STEP, PROOF_GIVEN, PROOF_NOBODY };

/* HELLO as node 2 to engine 0, checks engine 0's credential, sends a PROOF
 * of the given kind (PROOF_GIVEN: *cred); returns the fd (open). The
 * credential sent is left in *cred (malloc'd) when cred is not NULL. */
static int raw_handshake(cl_t *cl, enum proof_kind kind, char **cred)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_port = htons(spx_tree_port(cl->nodes[0].t)) };
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    uint8_t nc[32], na[32], msg[512];
    char err[256];
    ck_assert_int_eq(getrandom(nc, 32, 0), 32);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_HELLO);
    spx_buf_push_u32(&b, 2);
    spx_buf_push_u32(&b, 0);
    spx_buf_push_raw(&b, nc, 32);
    ck_assert_int_eq(spx_frame_send_blocking(fd, SPX_TREE_FRAME_AUTH, 0, 0, &b), 0);
    spx_buf_fini(&b);
    ck_assert(run_until(cl->base, readable, &fd, 3000));
    spx_frame_hdr_t h;
    ck_assert_int_eq(spx_frame_recv_blocking(fd, &h, &b, 1000), 0);
    ck_assert_uint_eq(spx_buf_pull_u8(&b), SPX_TREE_AUTH_CHALLENGE);
    spx_buf_pull_raw(&b, na, 32);
    char *theirs = spx_buf_pull_str(&b);
    ck_assert_int_eq(spx_buf_finish(&b), 0);
    spx_buf_fini(&b);
    /* the engine's credential is for this connection, role and step */
    size_t n = transcript(SPX_TREE_AUTH_LABEL_ACCEPTOR, nc, na, 2, 0, STEP_ID, msg);
    uid_t uid;
    gid_t gid;
    ck_assert_msg(spx_munge_check(NULL, theirs, msg, n, &uid, &gid, err, sizeof(err)) == 0,
                  "%s", err);
    ck_assert_uint_eq(uid, geteuid());
    free(theirs);
    char *mine = NULL;
    switch (kind) {
    case PROOF_RIGHT:
    case PROOF_ROLE:
    case PROOF_STEP:
        n = transcript(kind == PROOF_ROLE ? SPX_TREE_AUTH_LABEL_ACCEPTOR
                                          : SPX_TREE_AUTH_LABEL_CONNECTOR,
                       nc, na, 2, 0, kind == PROOF_STEP ? "slurm.spmix.78.0" : STEP_ID, msg);
        mine = spx_munge_encode(NULL, msg, n, err, sizeof(err));
        ck_assert_ptr_nonnull(mine);
        break;
    case PROOF_NOBODY:
        n = transcript(SPX_TREE_AUTH_LABEL_CONNECTOR, nc, na, 2, 0, STEP_ID, msg);
        mine = cred_as_nobody(msg, n);
        break;
    case PROOF_FORGED:
        mine = strdup("MUNGE:AwQDAACo7Jd+forged+credential+bytes+not+from+munged==:");
        break;
    case PROOF_GIVEN:
        mine = strdup(*cred);
        break;
    }
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_TREE_AUTH_PROOF);
    spx_buf_push_str(&b, mine);
    ck_assert_int_eq(spx_frame_send_blocking(fd, SPX_TREE_FRAME_AUTH, 0, 0, &b), 0);
    spx_buf_fini(&b);
    if (cred && kind != PROOF_GIVEN)
        *cred = mine;
    else
        free(mine);
    return fd;
}

/* expects engine 0 to refuse the PROOF kind: closed, one reject more */
static void expect_refused(cl_t *cl, enum proof_kind kind, char **cred)
{
    uint64_t before = spx_tree_auth_rejects(cl->nodes[0].t);
    int fd = raw_handshake(cl, kind, cred);
    ck_assert_msg(run_until(cl->base, closed, &fd, 3000), "proof kind %d not refused", kind);
    close(fd);
    ck_assert_uint_eq(spx_tree_auth_rejects(cl->nodes[0].t), before + 1);
}

/* ---- tests ---- */

START_TEST(links_and_collective)
{
    cl_t *cl = cl_new(allowed, 1, 10.0);
    ck_assert_int_eq(coll01(cl, "a", 5000), PMIX_SUCCESS);
    ck_assert_int_eq(coll01(cl, "a", 5000), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_tree_auth_rejects(cl->nodes[0].t), 0);
    ck_assert_uint_eq(spx_tree_auth_rejects(cl->nodes[1].t), 0);
    cl_free(cl);
    /* what one side of a link costs: an encode and a decode (printed) */
    char err[256];
    double best = 1e9;
    for (int i = 0; i < 20; i++) {
        struct timespec a, b;
        uid_t u;
        gid_t g;
        clock_gettime(CLOCK_MONOTONIC, &a);
        char *c = spx_munge_encode(NULL, "cost", 4, err, sizeof(err));
        ck_assert_ptr_nonnull(c);
        ck_assert_int_eq(spx_munge_check(NULL, c, "cost", 4, &u, &g, err, sizeof(err)), 0);
        clock_gettime(CLOCK_MONOTONIC, &b);
        free(c);
        double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
        best = ms < best ? ms : best;
    }
    printf("munge encode + decode: %.3f ms (best of 20)\n", best);
}
END_TEST

START_TEST(hostile_credentials)
{
    cl_t *cl = cl_new(allowed, 1, 10.0);
    ck_assert_int_eq(coll01(cl, "before", 5000), PMIX_SUCCESS);
    char *good = NULL;
    expect_refused(cl, PROOF_FORGED, NULL);          /* random bytes */
    expect_refused(cl, PROOF_ROLE, NULL);            /* payload of the other direction */
    expect_refused(cl, PROOF_STEP, NULL);            /* payload of another step */
    /* a right one is accepted: the link to "node 2" becomes ready */
    int fd = raw_handshake(cl, PROOF_RIGHT, &good);
    ck_assert_int_eq(spx_tree_send(cl->nodes[0].t, 2, 9, "p", 1), 0); /* flushed once ready */
    ck_assert(run_until(cl->base, readable, &fd, 3000));
    spx_frame_hdr_t h;
    spx_buf_t b;
    ck_assert_int_eq(spx_frame_recv_blocking(fd, &h, &b, 1000), 0);
    ck_assert_uint_eq(h.type, SPX_TREE_FRAME_MSG);
    spx_buf_fini(&b);
    /* ... and the same credential again, on a new connection: refused */
    expect_refused(cl, PROOF_GIVEN, &good);
    close(fd);
    /* the engines keep working */
    ck_assert_int_eq(coll01(cl, "after", 5000), PMIX_SUCCESS);
    /* munged itself refuses a credential decoded twice */
    char err[256];
    uid_t u;
    gid_t g;
    char *c = spx_munge_encode(NULL, "twice", 5, err, sizeof(err));
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(spx_munge_check(NULL, c, "twice", 5, &u, &g, err, sizeof(err)), 0);
    ck_assert_int_eq(spx_munge_check(NULL, c, "twice", 5, &u, &g, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "replayed") != NULL, "%s", err);
    free(c);
    free(good);
    cl_free(cl);
}
END_TEST

START_TEST(another_users_credential)
{
    if (geteuid() != 0) {
        fprintf(stderr, "another_users_credential: needs root to become nobody; not run\n");
        return;
    }
    cl_t *cl = cl_new(allowed, 1, 10.0);
    expect_refused(cl, PROOF_NOBODY, NULL);
    ck_assert_int_eq(coll01(cl, "after", 5000), PMIX_SUCCESS);
    cl_free(cl);
    /* engines that do not list our own uid refuse each other: the
     * collective fails once the connect timeout passed, nothing hangs */
    uint32_t other = 4242;
    cl = cl_new(&other, 1, 0.5);
    int64_t t0 = now_ms();
    ck_assert_int_eq(coll01_fails(cl, 5000), PMIX_ERR_UNREACH);
    ck_assert_int_lt(now_ms() - t0, 3000);
    ck_assert_uint_ge(spx_tree_auth_rejects(cl->nodes[0].t) +
                      spx_tree_auth_rejects(cl->nodes[1].t), 1);
    cl_free(cl);
}
END_TEST

START_TEST(munged_down)
{
    /* engines up while munged runs, then munged is unreachable: the links
     * cannot be proven, the collective fails promptly */
    cl_t *cl = cl_new(allowed, 1, 0.5);
    setenv(SPX_MUNGE_SOCKET_ENV, "/nonexistent/munge.socket", 1);
    int64_t t0 = now_ms();
    ck_assert_int_eq(coll01_fails(cl, 5000), PMIX_ERR_UNREACH);
    ck_assert_int_lt(now_ms() - t0, 3000);
    cl_free(cl);
    /* a new engine is refused at once */
    cl = calloc(1, sizeof(*cl));
    cl->base = event_base_new();
    t0 = now_ms();
    ck_assert_ptr_null(engine(cl, 0, allowed, 1, 1.0));
    ck_assert_int_lt(now_ms() - t0, 1000);
    cl_free(cl);
    setenv(SPX_MUNGE_SOCKET_ENV, msock, 1);
}
END_TEST

START_TEST(abort_report)
{
    static const uint8_t nonce[SPX_PLG_ABORT_NONCE] = { 3 }, nonce2[SPX_PLG_ABORT_NONCE] = { 4 };
    uint32_t other = 4242;
    struct spx_plg_abort_auth au = { .munge = true, .uids = allowed, .nuids = 1 };
    struct spx_plg_abort_auth au_other = { .munge = true, .uids = &other, .nuids = 1 };
    struct spx_plg_abort a = { .jobid = 77, .stepid = 0, .rank = 3, .status = 5 }, b;
    uint8_t buf[SPX_PLG_ABORT_MAX_WIRE];
    char why[256];
    strcpy(a.host, "vn1");
    strcpy(a.text, "gone");
    size_t len = spx_plg_abort_pack(&a, &au, nonce, buf, why, sizeof(why));
    ck_assert_msg(len > 0, "%s", why);
    /* for another connection's nonce: refused (munged then sees it once) */
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len, &au, nonce2, &b, why, sizeof(why)), -2);
    len = spx_plg_abort_pack(&a, &au, nonce, buf, why, sizeof(why));
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len, &au_other, nonce, &b, why, sizeof(why)), -2);
    ck_assert_msg(strstr(why, "not the job's user") != NULL, "%s", why);
    len = spx_plg_abort_pack(&a, &au, nonce, buf, why, sizeof(why));
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len, &au, nonce, &b, why, sizeof(why)), 0);
    ck_assert_uint_eq(b.rank, 3);
    ck_assert_str_eq(b.text, "gone");
    /* the same report again: replayed */
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len, &au, nonce, &b, why, sizeof(why)), -2);
    ck_assert_msg(strstr(why, "replayed") != NULL, "%s", why);
    /* forged bytes in place of the credential */
    memset(buf + len - 20, 'A', 10);
    ck_assert_int_eq(spx_plg_abort_unpack(buf, len, &au, nonce, &b, why, sizeof(why)), -2);
}
END_TEST

int main(void)
{
    if (!spx_munge_supported()) {
        printf("SKIP: built without libmunge (libmunge-dev)\n");
        return 77;
    }
    const char *exe = munged_path();
    if (!exe) {
        printf("SKIP: munged is not installed (Debian: munge)\n");
        return 77;
    }
    if (munged_start(exe) != 0) {
        munged_stop();
        fprintf(stderr, "cannot start %s\n", exe);
        return 1;
    }
    allowed[0] = (uint32_t)geteuid();
    Suite *s = suite_create("tree_munge");
    TCase *tc = tcase_create("munge");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, links_and_collective);
    tcase_add_test(tc, hostile_credentials);
    tcase_add_test(tc, another_users_credential);
    tcase_add_test(tc, munged_down);
    tcase_add_test(tc, abort_report);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    munged_stop();
    return nf ? 1 : 0;
}
