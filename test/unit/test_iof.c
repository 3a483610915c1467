/* test_iof.c - PMIx_IOF_push from a tool through the server to the host's
 * push_stdin (lib/client/client_iof.c, lib/server/iof.c), with a host of its
 * own here: it records, per rank of a registered two-rank job, the bytes it
 * was handed (count and FNV-1a hash) and the EOFs (PMIX_IOF_COMPLETE).
 *
 * The tool is a forked child (forked before the server starts) that reaches
 * the server by PMIX_SERVER_URI and pushes: blocking to rank 1; a push of
 * 1 MiB + 100 bytes non-blocking to WILDCARD (several requests, its callback
 * only after the host took every byte - the host holds its callbacks for a
 * while, the tool checks the time); the blocking form from inside that
 * callback (PMIX_ERR_WOULD_BLOCK); refusals (rank out of the job, unknown
 * namespace, no targets); its own stdin forwarded with PMIX_IOF_PUSH_STDIN:
 * a pipe to rank 0 until its end (EOF follows), then a file to rank 1 until
 * its end, then a pipe that stays open until a PMIX_IOF_COMPLETE to rank 0
 * stops the forwarding (EOF); data with PMIX_IOF_COMPLETE to rank 1 (EOF
 * after it). The host tells the tool each bytes/EOF it got, so the tool
 * knows when a forwarding has delivered. The tool writes what each rank must have received;
 * the server side compares with what the host saw.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix_server.h>
#include <pmix_tool.h>

#define NS "iofjob"
#define HOLD_MS 50 /* the host holds each callback this long */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}
#define FNV0 14695981039346656037ull

static void fail(const char *who, int line, const char *what)
{
    fprintf(stderr, "FAIL %s:%d: %s\n", who, line, what);
    _exit(1);
}
#define CHECK(c, who) do { if (!(c)) fail(who, __LINE__, #c); } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- the host ---- */

struct rank_seen {
    uint64_t bytes, hash;
    int eofs;
};
static struct rank_seen seen[2];
static int event_fd = -1; /* the host writes '0'+rank for bytes, 'a'+rank for an EOF */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

struct held {
    pmix_op_cbfunc_t cb;
    void *cbdata;
};

static void *release_later(void *arg)
{
    struct held *h = arg;
    struct timespec ts = {0, HOLD_MS * 1000000L};
    nanosleep(&ts, NULL);
    h->cb(PMIX_SUCCESS, h->cbdata);
    free(h);
    return NULL;
}

static pmix_status_t host_push(const pmix_proc_t *source, const pmix_proc_t targets[],
                               size_t ntargets, const pmix_info_t dirs[], size_t ndirs,
                               const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                               void *cbdata)
{
    (void)source;
    bool eof = false;
    for (size_t i = 0; i < ndirs; i++)
        if (PMIX_CHECK_KEY(&dirs[i], PMIX_IOF_COMPLETE))
            eof = PMIX_INFO_TRUE(&dirs[i]);
    pthread_mutex_lock(&seen_lock);
    for (size_t t = 0; t < ntargets; t++)
        for (pmix_rank_t r = 0; r < 2; r++)
            if (targets[t].rank == r || targets[t].rank == PMIX_RANK_WILDCARD) {
                seen[r].bytes += bo->size;
                seen[r].hash = fnv(seen[r].hash, bo->bytes, bo->size);
                seen[r].eofs += eof;
                char ev[2] = {(char)('0' + r), (char)('a' + r)};
                if ((bo->size && write(event_fd, &ev[0], 1) != 1) ||
                    (eof && write(event_fd, &ev[1], 1) != 1))
                    fail("host", __LINE__, "cannot tell the tool");
            }
    pthread_mutex_unlock(&seen_lock);
    struct held *h = malloc(sizeof(*h));
    pthread_t th;
    if (!h)
        return PMIX_ERR_NOMEM;
    h->cb = cbfunc;
    h->cbdata = cbdata;
    if (pthread_create(&th, NULL, release_later, h) != 0) {
        free(h);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    pthread_detach(th);
    return PMIX_SUCCESS;
}

/* ---- the tool ---- */

static volatile int nb_done;
static pmix_status_t nb_status, nested_status;

static void nb_cb(pmix_status_t status, void *cbdata)
{
    char *buf = cbdata;
    pmix_proc_t t;
    PMIX_LOAD_PROCID(&t, NS, 0);
    pmix_byte_object_t bo = {.bytes = "x", .size = 1};
    nested_status = PMIx_IOF_push(&t, 1, &bo, NULL, 0, NULL, NULL); /* on the progress thread */
    memset(buf, 0xee, 100); /* bo is ours again */
    nb_status = status;
    __atomic_store_n(&nb_done, 1, __ATOMIC_RELEASE);
}

/* The server's end: the progress thread waits in the callback of a refused
 * push until the server is gone, then pushes (its write meets a closed
 * socket before the thread has seen the close). */
static int gone_fd = -1;
static volatile int after_done;
static pmix_status_t after_status = PMIX_SUCCESS;

static void after_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    after_status = status;
    __atomic_store_n(&after_done, 1, __ATOMIC_RELEASE);
}

static void stall_cb(pmix_status_t status, void *cbdata)
{
    (void)status;
    char e;
    pmix_proc_t *t = cbdata;
    static pmix_byte_object_t bo = {.bytes = "after", .size = 5};
    if (read(gone_fd, &e, 1) != 1)
        fail("tool", __LINE__, "no word of the server's end");
    pmix_status_t rc = PMIx_IOF_push(t, 1, &bo, NULL, 0, after_cb, NULL);
    if (rc != PMIX_SUCCESS)
        after_cb(rc, NULL);
}

/* Reads the host's events until c (60 s at most). */
static void wait_event(int fd, char c)
{
    char e = 0;
    alarm(60);
    while (e != c)
        CHECK(read(fd, &e, 1) == 1, "tool");
    alarm(0);
}

static int tool(const char *uri, int results_fd, int stdin_data_fd, int events, int gone_in)
{
    pmix_info_t info;
    pmix_proc_t me, r0, r1, all, bad, other;
    PMIx_Info_load(&info, PMIX_SERVER_URI, uri, PMIX_STRING);
    CHECK(PMIx_tool_init(&me, &info, 1) == PMIX_SUCCESS, "tool");
    PMIX_INFO_DESTRUCT(&info);
    PMIX_LOAD_PROCID(&r0, NS, 0);
    PMIX_LOAD_PROCID(&r1, NS, 1);
    PMIX_LOAD_PROCID(&all, NS, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&bad, NS, 7);
    PMIX_LOAD_PROCID(&other, "no-such-job", 0);
    uint64_t want[2] = {FNV0, FNV0}, nbytes[2] = {0, 0};
    int eofs[2] = {0, 0};

    pmix_byte_object_t hello = {.bytes = "hello rank 1\n", .size = 13};
    CHECK(PMIx_IOF_push(&r1, 1, &hello, NULL, 0, NULL, NULL) == PMIX_SUCCESS, "tool");
    want[1] = fnv(want[1], hello.bytes, hello.size);
    nbytes[1] += hello.size;

    size_t big = (1u << 20) + 100;
    char *buf = malloc(big);
    CHECK(buf != NULL, "tool");
    for (size_t i = 0; i < big; i++)
        buf[i] = (char)(i * 7 + i / 4096);
    for (int r = 0; r < 2; r++) {
        want[r] = fnv(want[r], buf, big);
        nbytes[r] += big;
    }
    pmix_byte_object_t bo = {.bytes = buf, .size = big};
    double t0 = now();
    CHECK(PMIx_IOF_push(&all, 1, &bo, NULL, 0, nb_cb, buf) == PMIX_SUCCESS, "tool");
    while (!__atomic_load_n(&nb_done, __ATOMIC_ACQUIRE))
        usleep(1000);
    /* two requests, each held HOLD_MS by the host: the callback waited for both */
    CHECK(now() - t0 >= HOLD_MS / 1000.0, "tool");
    CHECK(nb_status == PMIX_SUCCESS, "tool");
    CHECK(nested_status == PMIX_ERR_WOULD_BLOCK, "tool");
    free(buf);

    pmix_byte_object_t one = {.bytes = "z", .size = 1};
    CHECK(PMIx_IOF_push(&bad, 1, &one, NULL, 0, NULL, NULL) == PMIX_ERR_BAD_PARAM, "tool");
    CHECK(PMIx_IOF_push(&other, 1, &one, NULL, 0, NULL, NULL) == PMIX_ERR_BAD_PARAM, "tool");
    CHECK(PMIx_IOF_push(NULL, 0, &one, NULL, 0, NULL, NULL) == PMIX_ERR_BAD_PARAM, "tool");
    CHECK(PMIx_IOF_push(&r0, 1, NULL, NULL, 0, NULL, NULL) == PMIX_ERR_BAD_PARAM, "tool");

    /* stdin forwarded to rank 0 until its end; the host sees the EOF */
    char chunk[4096];
    ssize_t n;
    uint64_t fwd_hash = want[0], fwd_bytes = 0;
    pmix_info_t dir;
    bool yes = true;
    PMIx_Info_load(&dir, PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_IOF_push(&r0, 1, NULL, &dir, 1, NULL, NULL);
    CHECK(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "tool");
    while ((n = read(stdin_data_fd, chunk, sizeof(chunk))) > 0) { /* the same bytes, for the check */
        fwd_hash = fnv(fwd_hash, chunk, (size_t)n);
        fwd_bytes += (uint64_t)n;
    }
    want[0] = fwd_hash;
    nbytes[0] += fwd_bytes;
    eofs[0]++;
    wait_event(events, 'a'); /* the forwarding ended with its EOF */

    /* stdin from a file to rank 1, until its end: a new forwarding may start */
    char file[] = "/tmp/spx-iof-in.XXXXXX";
    int ffd = mkstemp(file);
    CHECK(ffd >= 0, "tool");
    unlink(file);
    for (int i = 0; i < 100; i++) {
        char piece[1000];
        memset(piece, 'A' + i % 26, sizeof(piece));
        CHECK(write(ffd, piece, sizeof(piece)) == (ssize_t)sizeof(piece), "tool");
        want[1] = fnv(want[1], piece, sizeof(piece));
        nbytes[1] += sizeof(piece);
    }
    CHECK(lseek(ffd, 0, SEEK_SET) == 0 && dup2(ffd, 0) == 0, "tool");
    close(ffd);
    rc = PMIx_IOF_push(&r1, 1, NULL, &dir, 1, NULL, NULL);
    CHECK(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "tool");
    eofs[1]++;
    wait_event(events, 'b');

    /* a forwarding that COMPLETE ends: its stdin (a pipe) stays open */
    int p2[2];
    CHECK(pipe(p2) == 0 && dup2(p2[0], 0) == 0, "tool");
    close(p2[0]);
    CHECK(write(p2[1], "abc", 3) == 3, "tool");
    rc = PMIx_IOF_push(&r0, 1, NULL, &dir, 1, NULL, NULL);
    CHECK(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "tool");
    wait_event(events, '0'); /* "abc" reached the host */
    want[0] = fnv(want[0], "abc", 3);
    nbytes[0] += 3;
    pmix_info_t cmp;
    PMIx_Info_load(&cmp, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    rc = PMIx_IOF_push(&r0, 1, NULL, &cmp, 1, NULL, NULL);
    CHECK(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "tool");
    eofs[0]++;
    wait_event(events, 'a');
    close(p2[1]);

    /* data with COMPLETE: the bytes, then EOF */
    pmix_byte_object_t bye = {.bytes = "bye\n", .size = 4};
    CHECK(PMIx_IOF_push(&r1, 1, &bye, &cmp, 1, NULL, NULL) == PMIX_SUCCESS, "tool");
    want[1] = fnv(want[1], bye.bytes, bye.size);
    nbytes[1] += 4;
    eofs[1]++;
    wait_event(events, 'b');

    dprintf(results_fd, "%llu %llu %d %llu %llu %d\n", (unsigned long long)nbytes[0],
            (unsigned long long)want[0], eofs[0], (unsigned long long)nbytes[1],
            (unsigned long long)want[1], eofs[1]);
    close(results_fd);
    /* the server goes away: a push fails with an error, no SIGPIPE kills us */
    alarm(60);
    gone_fd = gone_in;
    CHECK(PMIx_IOF_push(&bad, 1, &one, NULL, 0, stall_cb, &r1) == PMIX_SUCCESS, "tool");
    while (!__atomic_load_n(&after_done, __ATOMIC_ACQUIRE))
        usleep(1000);
    alarm(0);
    CHECK(after_status != PMIX_SUCCESS, "tool");
    CHECK(PMIx_tool_finalize() == PMIX_SUCCESS, "tool");
    return 0;
}

int main(void)
{
    char tmpl[] = "/tmp/spx-iof.XXXXXX";
    int uri_pipe[2], res_pipe[2], in_pipe[2], copy_pipe[2], eof_pipe[2], gone_pipe[2];
    CHECK(mkdtemp(tmpl) != NULL, "main");
    CHECK(pipe(uri_pipe) == 0 && pipe(res_pipe) == 0 && pipe(in_pipe) == 0 &&
              pipe(copy_pipe) == 0 && pipe(eof_pipe) == 0 && pipe(gone_pipe) == 0,
          "main");
    pid_t child = fork();
    CHECK(child >= 0, "main");
    if (child == 0) {
        char uri[4096] = "";
        close(uri_pipe[1]);
        close(res_pipe[0]);
        close(in_pipe[1]);
        close(copy_pipe[1]);
        close(eof_pipe[1]);
        close(gone_pipe[1]);
        ssize_t n = read(uri_pipe[0], uri, sizeof(uri) - 1);
        CHECK(n > 0, "tool");
        uri[n] = '\0';
        CHECK(dup2(in_pipe[0], 0) == 0, "tool");
        _exit(tool(uri, res_pipe[1], copy_pipe[0], eof_pipe[0], gone_pipe[0]));
    }
    close(uri_pipe[0]);
    close(res_pipe[1]);
    close(in_pipe[0]);
    close(copy_pipe[0]);
    close(eof_pipe[0]);
    close(gone_pipe[0]);
    event_fd = eof_pipe[1];
    seen[0].hash = seen[1].hash = FNV0;

    static pmix_server_module_t host = {.push_stdin = host_push};
    pmix_info_t sinfo[2];
    bool yes = true;
    PMIx_Info_load(&sinfo[0], PMIX_SERVER_TMPDIR, tmpl, PMIX_STRING);
    PMIx_Info_load(&sinfo[1], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    CHECK(PMIx_server_init(&host, sinfo, 2) == PMIX_SUCCESS, "server");
    PMIX_INFO_DESTRUCT(&sinfo[0]);
    PMIX_INFO_DESTRUCT(&sinfo[1]);
    uint32_t size = 2;
    pmix_info_t ninfo;
    PMIx_Info_load(&ninfo, PMIX_JOB_SIZE, &size, PMIX_UINT32);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, NS);
    CHECK(PMIx_server_register_nspace(ns, 2, &ninfo, 1, NULL, NULL) == PMIX_SUCCESS, "server");
    PMIX_INFO_DESTRUCT(&ninfo);
    char **env = NULL;
    pmix_proc_t p0;
    PMIX_LOAD_PROCID(&p0, NS, 0);
    CHECK(PMIx_server_setup_fork(&p0, &env) == PMIX_SUCCESS, "server");
    const char *uri = NULL;
    for (char **e = env; e && *e; e++)
        if (strncmp(*e, "PMIX_SERVER_URI41=", 18) == 0)
            uri = *e + 18;
    CHECK(uri != NULL, "server");
    CHECK(write(uri_pipe[1], uri, strlen(uri)) == (ssize_t)strlen(uri), "server");
    close(uri_pipe[1]);
    /* the tool's stdin: 300 KiB in pieces, and the same bytes on a second pipe */
    for (int i = 0; i < 300; i++) {
        char piece[1024];
        for (size_t k = 0; k < sizeof(piece); k++)
            piece[k] = (char)(i + k * 13);
        CHECK(write(in_pipe[1], piece, sizeof(piece)) == (ssize_t)sizeof(piece), "server");
        CHECK(write(copy_pipe[1], piece, sizeof(piece)) == (ssize_t)sizeof(piece), "server");
    }
    close(in_pipe[1]);
    close(copy_pipe[1]);
    char line[512] = "";
    ssize_t n = read(res_pipe[0], line, sizeof(line) - 1);
    CHECK(n > 0, "server");
    unsigned long long b0, h0, b1, h1;
    int e0, e1;
    CHECK(sscanf(line, "%llu %llu %d %llu %llu %d", &b0, &h0, &e0, &b1, &h1, &e1) == 6, "server");
    usleep(200 * 1000); /* the last held callbacks */
    pthread_mutex_lock(&seen_lock);
    fprintf(stderr, "rank 0: %llu bytes, %d eof (want %llu, %d); rank 1: %llu bytes, %d eof "
            "(want %llu, %d)\n", (unsigned long long)seen[0].bytes, seen[0].eofs, b0, e0,
            (unsigned long long)seen[1].bytes, seen[1].eofs, b1, e1);
    CHECK(seen[0].bytes == b0 && seen[0].hash == h0 && seen[0].eofs == e0, "server");
    CHECK(seen[1].bytes == b1 && seen[1].hash == h1 && seen[1].eofs == e1, "server");
    pthread_mutex_unlock(&seen_lock);
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
    CHECK(PMIx_server_finalize() == PMIX_SUCCESS, "server");
    CHECK(write(gone_pipe[1], "g", 1) == 1, "server");
    int status;
    CHECK(waitpid(child, &status, 0) == child, "server");
    if (WIFSIGNALED(status))
        fprintf(stderr, "the tool died of signal %d\n", WTERMSIG(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server");
    close(event_fd);
    close(gone_pipe[1]);
    rmdir(tmpl);
    printf("PASS: pushes reach the host byte-exact, in order, with their EOFs\n");
    return 0;
}
