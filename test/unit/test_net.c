/* test_net.c - unit tests of the net layer with a real event loop in the test:
 * framed connections over socketpairs (large and many frames, partial writes),
 * hostile bytes on one connection while another on the same loop keeps
 * working, the ends of a connection that are no error (a peer that leaves
 * bytes of ours unread, our orderly close with the peer's bytes unread), the
 * unix listener's uid check (a child that becomes nobody), the
 * private directory, path length limits and the blocking handshake helpers.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net/conn.h"
#include "net/unix_sock.h"

/* ---- a small harness: loop with a tick, received frames, closes ---- */

typedef struct peer {
    spx_conn_t *conn;
    int frames;
    int closes;
    char reason[256];
    int echo;            /* reply to every frame with the same payload */
    int close_in_frame;  /* call spx_conn_close from on_frame */
    uint32_t next_seq;   /* expected seq of the next frame */
    int bad;             /* a frame arrived damaged or out of order */
    uint64_t bytes;
} peer_t;

static void tick_cb(evutil_socket_t fd, short w, void *arg) { (void)fd, (void)w, (void)arg; }

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs base until *flag >= want or timeout; returns 1 if reached. */
static int run_until(struct event_base *base, const int *flag, int want, int timeout_ms)
{
    struct event *tick = event_new(base, -1, EV_PERSIST, tick_cb, NULL);
    struct timeval tv = { 0, 5000 };
    event_add(tick, &tv);
    int64_t deadline = now_ms() + timeout_ms;
    while (*flag < want && now_ms() < deadline)
        event_base_loop(base, EVLOOP_ONCE);
    event_free(tick);
    return *flag >= want;
}

/* Turns the loop a few times so reap events run. */
static void drain(struct event_base *base)
{
    for (int i = 0; i < 4; i++)
        event_base_loop(base, EVLOOP_NONBLOCK);
}

static uint8_t pattern(uint32_t seq, size_t i) { return (uint8_t)(seq * 31 + i * 7); }

static void fill_payload(spx_buf_t *b, uint32_t seq, size_t len)
{
    spx_buf_init(b);
    ck_assert_int_eq(spx_buf_reserve(b, len), 0);
    for (size_t i = 0; i < len; i++)
        b->data[i] = pattern(seq, i);
    b->len = len;
}

static void on_frame(spx_conn_t *c, const spx_frame_hdr_t *h, spx_buf_t *payload, void *arg)
{
    peer_t *p = arg;
    if (h->seq != p->next_seq || h->type != (uint8_t)h->seq)
        p->bad = 1;
    for (size_t i = 0; i < payload->len; i++)
        if (payload->data[i] != pattern(h->seq, i)) {
            p->bad = 1;
            break;
        }
    p->next_seq = h->seq + 1;
    p->bytes += payload->len;
    p->frames++;
    if (p->echo) {
        spx_buf_t copy;
        spx_buf_init(&copy);
        spx_buf_push_raw(&copy, payload->data, payload->len);
        spx_conn_send(c, h->type, SPX_FRAME_F_REPLY, h->seq, &copy);
    }
    if (p->close_in_frame) {
        spx_conn_close(c, "handler closes", 0);
        /* the conn stays valid until we return; sending now fails cleanly */
        ck_assert_int_eq(spx_conn_send(c, 1, 0, 1, NULL), -1);
    }
}

static void on_close(spx_conn_t *c, const char *reason, void *arg)
{
    peer_t *p = arg;
    (void)c;
    p->closes++;
    snprintf(p->reason, sizeof(p->reason), "%s", reason);
    p->conn = NULL;
}

/* stderr capture, to check the log lines */
static int saved_stderr = -1;
static char cap_path[64];

static void capture_start(void)
{
    strcpy(cap_path, "/tmp/spx-test-net-log.XXXXXX");
    int fd = mkstemp(cap_path);
    ck_assert_int_ge(fd, 0);
    fflush(stderr);
    saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
}

static char *capture_stop(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    FILE *f = fopen(cap_path, "r");
    char *text = calloc(1, 65536);
    size_t n = fread(text, 1, 65535, f);
    text[n] = '\0';
    fclose(f);
    unlink(cap_path);
    fputs(text, stderr); /* keep it visible in the test log */
    return text;
}

/* ---- tests ---- */

START_TEST(frames_large_and_many)
{
    struct event_base *base = event_base_new();
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int small = 4096; /* force partial writes */
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    peer_t a = { 0 }, b = { 0 };
    a.conn = spx_conn_create(base, sv[0], "side a", on_frame, on_close, &a);
    b.conn = spx_conn_create(base, sv[1], "side b", on_frame, on_close, &b);
    ck_assert_ptr_nonnull(a.conn);
    ck_assert_ptr_nonnull(b.conn);
    b.echo = 1;
    const int nframes = 300;
    uint64_t total = 0;
    for (uint32_t seq = 0; seq < (uint32_t)nframes; seq++) {
        size_t len = seq % 50 == 0 ? (size_t)(3u << 20) + seq : (seq * 37) % 3000;
        if (seq == 7)
            len = 0;
        spx_buf_t p;
        fill_payload(&p, seq, len);
        ck_assert_int_eq(spx_conn_send(a.conn, (uint8_t)seq, 0, seq, &p), 0);
        ck_assert_ptr_null(p.data); /* taken */
        total += len;
    }
    ck_assert(run_until(base, &a.frames, nframes, 60000));
    ck_assert_int_eq(b.frames, nframes);
    ck_assert_int_eq(a.bad, 0);
    ck_assert_int_eq(b.bad, 0);
    ck_assert(a.bytes == total && b.bytes == total);
    uint64_t bo, fo, bi, fi;
    spx_conn_counters(a.conn, &bo, &fo, &bi, &fi);
    ck_assert(fo == (uint64_t)nframes && fi == (uint64_t)nframes);
    ck_assert(bo == total + (uint64_t)nframes * SPX_FRAME_HDR_LEN);
    ck_assert(bi == bo);
    ck_assert_str_eq(spx_conn_label(a.conn), "side a");
    /* orderly close from one side: the other sees "peer closed" once */
    spx_conn_close(a.conn, "test done", 0);
    ck_assert_int_eq(a.closes, 1);
    ck_assert_ptr_null(a.conn);
    ck_assert(run_until(base, &b.closes, 1, 5000));
    ck_assert_str_eq(b.reason, "peer closed");
    drain(base);
    ck_assert_int_eq(a.closes, 1);
    ck_assert_int_eq(b.closes, 1);
    event_base_free(base);
}
END_TEST

START_TEST(close_inside_callback)
{
    struct event_base *base = event_base_new();
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    peer_t a = { 0 };
    a.close_in_frame = 1;
    a.conn = spx_conn_create(base, sv[0], "closer", on_frame, on_close, &a);
    /* two frames in one write: the second must not be dispatched after close */
    for (uint32_t seq = 0; seq < 2; seq++) {
        spx_buf_t p;
        fill_payload(&p, seq, 10);
        ck_assert_int_eq(spx_frame_send_blocking(sv[1], (uint8_t)seq, 0, seq, &p), 0);
        spx_buf_fini(&p);
    }
    ck_assert(run_until(base, &a.closes, 1, 5000));
    drain(base);
    ck_assert_int_eq(a.frames, 1);
    ck_assert_int_eq(a.closes, 1);
    ck_assert_str_eq(a.reason, "handler closes");
    close(sv[1]);
    event_base_free(base);
}
END_TEST

/* A peer that closes with a frame of ours unread resets the connection: our
 * read fails with ECONNRESET, an end like EOF (no warning). Our final close
 * with the peer's frame unread drops it first: the peer sees EOF. A plain
 * close leaves it to another descriptor of the socket (a hand-over). */
START_TEST(normal_ends_are_quiet)
{
    struct event_base *base = event_base_new();
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    peer_t a = { 0 };
    a.conn = spx_conn_create(base, sv[0], "leaver's server", on_frame, on_close, &a);
    spx_buf_t p;
    fill_payload(&p, 0, 100);
    ck_assert_int_eq(spx_conn_send(a.conn, 0, 0, 0, &p), 0);
    close(sv[1]); /* the frame is unread there */
    capture_start();
    int ok = run_until(base, &a.closes, 1, 5000);
    char *log = capture_stop();
    ck_assert(ok);
    ck_assert_ptr_nonnull(strstr(a.reason, "peer closed"));
    ck_assert_ptr_null(strstr(log, "warning"));
    free(log);
    drain(base);

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    peer_t b = { 0 };
    b.conn = spx_conn_create(base, sv[0], "closer", on_frame, on_close, &b);
    fill_payload(&p, 0, 100);
    ck_assert_int_eq(spx_frame_send_blocking(sv[1], 0, 0, 0, &p), 0);
    spx_buf_fini(&p);
    spx_conn_close_final(b.conn, "done with it"); /* before the loop read the frame */
    char c;
    ssize_t n = read(sv[1], &c, 1);
    ck_assert_msg(n == 0, "the peer's read after our final close: %zd (%s)", n,
                  n < 0 ? strerror(errno) : "data");
    close(sv[1]);
    drain(base);

    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int kept = dup(sv[0]);
    ck_assert_int_ge(kept, 0);
    peer_t h = { 0 };
    h.conn = spx_conn_create(base, sv[0], "handing over", on_frame, on_close, &h);
    ck_assert_int_eq(write(sv[1], "after", 5), 5);
    spx_conn_close(h.conn, "handed over", 0);
    char got[8];
    ck_assert_int_eq(read(kept, got, sizeof(got)), 5); /* still there for the new owner */
    close(kept);
    close(sv[1]);
    drain(base);
    event_base_free(base);
}
END_TEST

/* Hostile bytes on several connections of one listener; a good client on the
 * same loop keeps getting answers, and each bad one is closed with a log line. */
typedef struct server {
    struct event_base *base;
    peer_t peers[8];
    int accepted;
    uid_t last_uid;
} server_t;

static void on_accept(int fd, uid_t uid, gid_t gid, pid_t pid, void *arg)
{
    server_t *s = arg;
    (void)gid, (void)pid;
    peer_t *p = &s->peers[s->accepted];
    p->echo = 1;
    char label[32];
    snprintf(label, sizeof(label), "client %d", s->accepted);
    p->conn = spx_conn_create(s->base, fd, label, on_frame, on_close, p);
    ck_assert_ptr_nonnull(p->conn);
    s->last_uid = uid;
    s->accepted++;
}

static int count_closes(server_t *s)
{
    int n = 0;
    for (int i = 0; i < s->accepted; i++)
        n += s->peers[i].closes;
    return n;
}

START_TEST(hostile_bytes_close_only_that_connection)
{
    server_t s = { 0 };
    s.base = event_base_new();
    char *dir = NULL;
    ck_assert_int_eq(spx_private_dir_create("/tmp", "test", getuid(), getgid(), &dir), 0);
    char path[256];
    snprintf(path, sizeof(path), "%s/sock", dir);
    spx_listener_t *l = spx_listener_create(s.base, path, getuid(), on_accept, &s);
    ck_assert_ptr_nonnull(l);

    int good = spx_unix_connect(path);
    ck_assert_int_ge(good, 0);
    ck_assert(run_until(s.base, &s.accepted, 1, 5000));
    ck_assert(s.last_uid == getuid());

    /* the hostile ones: bad magic, over-cap length, garbage, a truncated frame */
    uint8_t bad_magic[SPX_FRAME_HDR_LEN] = "XXXX";
    uint8_t huge[SPX_FRAME_HDR_LEN];
    spx_frame_hdr_t h = { .version = SPX_FRAME_VERSION, .length = 0xfffffff0u };
    spx_frame_hdr_encode(&h, huge);
    uint8_t garbage[300];
    for (size_t i = 0; i < sizeof(garbage); i++)
        garbage[i] = (uint8_t)(i * 131 + 17);
    h.length = 100;
    uint8_t trunc[SPX_FRAME_HDR_LEN + 10];
    spx_frame_hdr_encode(&h, trunc);
    memset(trunc + SPX_FRAME_HDR_LEN, 0, 10);
    struct { const void *p; size_t n; int close_after; } bad[] = {
        { bad_magic, sizeof(bad_magic), 0 }, { huge, sizeof(huge), 0 },
        { garbage, sizeof(garbage), 0 }, { trunc, sizeof(trunc), 1 },
    };
    int fds[4];
    capture_start();
    for (int i = 0; i < 4; i++) {
        fds[i] = spx_unix_connect(path);
        ck_assert_int_ge(fds[i], 0);
        ck_assert_int_eq(write(fds[i], bad[i].p, bad[i].n), (ssize_t)bad[i].n);
        if (bad[i].close_after)
            shutdown(fds[i], SHUT_WR);
    }
    int ok = run_until(s.base, &s.accepted, 5, 5000);
    int closed = 0;
    for (int64_t end = now_ms() + 5000; ok && (closed = count_closes(&s)) < 4 && now_ms() < end;)
        run_until(s.base, &closed, 99, 20);
    char *log = capture_stop();
    ck_assert(ok);
    ck_assert_int_eq(count_closes(&s), 4);
    ck_assert_int_eq(s.peers[0].closes, 0); /* the good one is untouched */
    ck_assert_ptr_nonnull(strstr(log, "bad frame header"));
    ck_assert_ptr_nonnull(strstr(log, "over the cap"));
    ck_assert_ptr_nonnull(strstr(log, "middle of a frame"));
    ck_assert_ptr_nonnull(strstr(log, "client 1"));
    free(log);
    for (int i = 0; i < 4; i++) { /* their sockets see EOF (or a reset: unread bytes) */
        char c;
        ssize_t n = read(fds[i], &c, 1);
        ck_assert(n == 0 || (n < 0 && errno == ECONNRESET));
        close(fds[i]);
    }
    /* the good client still works: one round trip through the echo */
    spx_buf_t p;
    fill_payload(&p, 0, 1000);
    ck_assert_int_eq(spx_frame_send_blocking(good, 0, 0, 0, &p), 0);
    spx_buf_fini(&p);
    ck_assert(run_until(s.base, &s.peers[0].frames, 1, 5000));
    spx_frame_hdr_t rh;
    ck_assert_int_eq(spx_frame_recv_blocking(good, &rh, &p, 2000), 0);
    ck_assert_uint_eq(rh.flags, SPX_FRAME_F_REPLY);
    ck_assert_uint_eq(p.len, 1000);
    ck_assert_uint_eq(p.data[999], pattern(0, 999));
    spx_buf_fini(&p);
    close(good);
    ck_assert(run_until(s.base, &s.peers[0].closes, 1, 5000));
    drain(s.base);
    spx_listener_destroy(l);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), -1); /* socket unlinked */
    spx_private_dir_remove(dir);
    ck_assert_int_eq(stat(dir, &st), -1);
    free(dir);
    event_base_free(s.base);
}
END_TEST

START_TEST(disallowed_uid_rejected)
{
    if (geteuid() != 0) {
        fprintf(stderr, "disallowed_uid_rejected: not root, cannot become another uid; skipped\n");
        return;
    }
    server_t s = { 0 };
    s.base = event_base_new();
    char dir[] = "/tmp/spx-test-uid.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    chmod(dir, 0755);
    char path[256];
    snprintf(path, sizeof(path), "%s/sock", dir);
    const uid_t allowed = 4242; /* neither us nor nobody */
    spx_listener_t *l = spx_listener_create(s.base, path, allowed, on_accept, &s);
    ck_assert_ptr_nonnull(l);
    chmod(path, 0777); /* let nobody reach the uid check itself */
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        if (setgid(65534) < 0 || setuid(65534) < 0)
            _exit(2);
        int fd = spx_unix_connect(path);
        if (fd < 0)
            _exit(3);
        char c;
        struct timeval tv = { 5, 0 };
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        ssize_t n = read(fd, &c, 1);
        _exit(n == 0 ? 0 : 4); /* closed by the server */
    }
    capture_start();
    int status = -1, done = 0;
    for (int64_t end = now_ms() + 10000; !done && now_ms() < end;) {
        run_until(s.base, &done, 1, 20);
        if (waitpid(child, &status, WNOHANG) == child)
            done = 1;
    }
    char *log = capture_stop();
    ck_assert(done);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    ck_assert_int_eq(s.accepted, 0);
    ck_assert_ptr_nonnull(strstr(log, "uid 65534"));
    ck_assert_ptr_nonnull(strstr(log, "pid "));
    free(log);
    /* root is always let in */
    int fd = spx_unix_connect(path);
    ck_assert_int_ge(fd, 0);
    ck_assert(run_until(s.base, &s.accepted, 1, 5000));
    ck_assert(s.last_uid == 0);
    close(fd);
    ck_assert(run_until(s.base, &s.peers[0].closes, 1, 5000));
    drain(s.base);
    spx_listener_destroy(l);
    rmdir(dir);
    event_base_free(s.base);
}
END_TEST

START_TEST(private_dir_and_paths)
{
    char *dir = NULL;
    ck_assert_int_eq(spx_private_dir_create("/tmp", "tag", getuid(), getgid(), &dir), 0);
    ck_assert_ptr_nonnull(strstr(dir, "/tmp/spmix.tag."));
    struct stat st;
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0700);
    ck_assert_uint_eq(st.st_uid, getuid());
    char file[512];
    snprintf(file, sizeof(file), "%s/leftover", dir);
    fclose(fopen(file, "w"));
    spx_private_dir_remove(dir);
    ck_assert_int_eq(stat(dir, &st), -1);
    free(dir);
    if (geteuid() == 0) { /* owned by the job user when we are root */
        ck_assert_int_eq(spx_private_dir_create("/tmp", "own", 65534, 65534, &dir), 0);
        ck_assert_int_eq(stat(dir, &st), 0);
        ck_assert_uint_eq(st.st_uid, 65534);
        spx_private_dir_remove(dir);
        free(dir);
    }
    ck_assert_int_eq(spx_private_dir_create("/nonexistent/dir", "x", 0, 0, &dir), -1);
    ck_assert_ptr_null(dir);

    /* a path that does not fit sun_path fails clearly */
    char longp[200];
    memset(longp, 'a', sizeof(longp) - 1);
    longp[0] = '/';
    longp[sizeof(longp) - 1] = '\0';
    struct event_base *base = event_base_new();
    errno = 0;
    ck_assert_ptr_null(spx_listener_create(base, longp, 0, on_accept, NULL));
    ck_assert_int_eq(errno, ENAMETOOLONG);
    errno = 0;
    ck_assert_int_eq(spx_unix_connect(longp), -1);
    ck_assert_int_eq(errno, ENAMETOOLONG);
    /* a non-socket in the way is not unlinked */
    char tmpf[] = "/tmp/spx-test-notsock.XXXXXX";
    int fd = mkstemp(tmpf);
    close(fd);
    ck_assert_ptr_null(spx_listener_create(base, tmpf, 0, on_accept, NULL));
    ck_assert_int_eq(errno, EEXIST);
    ck_assert_int_eq(stat(tmpf, &st), 0);
    unlink(tmpf);
    event_base_free(base);
}
END_TEST

START_TEST(blocking_helpers)
{
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    spx_frame_hdr_t h;
    spx_buf_t p;
    /* timeout */
    int64_t t0 = now_ms();
    errno = 0;
    ck_assert_int_eq(spx_frame_recv_blocking(sv[0], &h, &p, 150), -1);
    ck_assert_int_eq(errno, ETIMEDOUT);
    ck_assert_int_ge(now_ms() - t0, 140);
    ck_assert_ptr_null(p.data);
    /* a frame */
    spx_buf_t out;
    spx_buf_init(&out);
    spx_buf_push_str(&out, "hello");
    ck_assert_int_eq(spx_frame_send_blocking(sv[1], 3, 0, 77, &out), 0);
    ck_assert_int_eq(spx_frame_send_blocking(sv[1], 4, 0, 78, NULL), 0);
    spx_buf_fini(&out);
    ck_assert_int_eq(spx_frame_recv_blocking(sv[0], &h, &p, 1000), 0);
    ck_assert_uint_eq(h.type, 3);
    ck_assert_uint_eq(h.seq, 77);
    char *s = spx_buf_pull_str(&p);
    ck_assert_str_eq(s, "hello");
    free(s);
    ck_assert_int_eq(spx_buf_finish(&p), 0);
    spx_buf_fini(&p);
    ck_assert_int_eq(spx_frame_recv_blocking(sv[0], &h, &p, 1000), 0);
    ck_assert_uint_eq(h.length, 0);
    spx_buf_fini(&p);
    /* a header that arrives but whose payload never completes: timeout */
    h = (spx_frame_hdr_t){ .version = SPX_FRAME_VERSION, .length = 50 };
    uint8_t raw[SPX_FRAME_HDR_LEN];
    spx_frame_hdr_encode(&h, raw);
    ck_assert_int_eq(write(sv[1], raw, sizeof(raw)), (ssize_t)sizeof(raw));
    ck_assert_int_eq(write(sv[1], "12345", 5), 5);
    ck_assert_int_eq(spx_frame_recv_blocking(sv[0], &h, &p, 100), -1);
    ck_assert_int_eq(errno, ETIMEDOUT);
    ck_assert_ptr_null(p.data);
    close(sv[0]);
    close(sv[1]);
    /* bad magic, over-cap length, EOF */
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    raw[0] ^= 0xff;
    ck_assert_int_eq(write(sv[1], raw, sizeof(raw)), (ssize_t)sizeof(raw));
    ck_assert_int_eq(spx_frame_recv_blocking(sv[0], &h, &p, 1000), -1);
    ck_assert_int_eq(errno, EBADMSG);
    h.length = SPX_FRAME_MAX_PAYLOAD + 1;
    spx_frame_hdr_encode(&h, raw);
    ck_assert_int_eq(write(sv[1], raw, sizeof(raw)), (ssize_t)sizeof(raw));
    ck_assert_int_eq(spx_frame_recv_blocking(sv[0], &h, &p, 1000), -1);
    ck_assert_int_eq(errno, EMSGSIZE);
    close(sv[1]);
    ck_assert_int_eq(spx_frame_recv_blocking(sv[0], &h, &p, 1000), -1);
    ck_assert_int_eq(errno, ECONNRESET);
    close(sv[0]);
}
END_TEST

static Suite *net_suite(void)
{
    Suite *s = suite_create("net");
    TCase *tc = tcase_create("conn");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, frames_large_and_many);
    tcase_add_test(tc, close_inside_callback);
    tcase_add_test(tc, normal_ends_are_quiet);
    tcase_add_test(tc, hostile_bytes_close_only_that_connection);
    suite_add_tcase(s, tc);
    tc = tcase_create("unix");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, disallowed_uid_rejected);
    tcase_add_test(tc, private_dir_and_paths);
    tcase_add_test(tc, blocking_helpers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    SRunner *sr = srunner_create(net_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
