/*
 * it_multiserver.c: one tool holding the servers of two spmix-run jobs at
 * once (multiserver.sh).
 *   it_multiserver job DIR
 *       a rank: rank 0 writes the namespace to DIR/ready; each rank copies
 *       its stdin to DIR/got.R until EOF (then DIR/done.R), slowly (100 ms
 *       after each read, so the tool must wait for DIR/done.R), prints "said R"
 *       on stdout once DIR/say.R exists, exits without finalizing once
 *       DIR/abort.R exists, leaves once its server is gone (lost connection)
 *       and finalizes once DIR/end exists
 *   it_multiserver tool RDVDIR PID_A FILE_B DIR_A DIR_B
 *       the tool: PMIx_tool_init finds A by PMIX_SERVER_PIDINFO,
 *       PMIx_tool_attach_to_server adds B by PMIX_SERVER_URI "file:FILE_B";
 *       get_servers lists both (the primary first); Query of the namespaces
 *       and Get of the job size go to the primary chosen by set_server (and
 *       by an attach with PMIX_PRIMARY_SERVER); IOF pushes to rank 1 of A
 *       and rank 2 of B (what each must receive in DIR/expect.R); B's output
 *       and B's event (rank 1 aborts) reach the tool while A is the primary;
 *       disconnecting B, then the primary A, leaves the other working;
 *       then A's server is stopped, a query sent to it, and the server
 *       killed: the query fails at once, the tool hears the lost connection
 *       (PMIX_EVENT_AFFECTED_PROC: A's server), B is the primary and works
 *       (a push to its rank 0: DIR_B/expect.0). A push returns when the
 *       host took its bytes, not when the rank read them: the tool waits for
 *       DIR/done.R of each target (its EOF read) before that rank may leave
 *       (A killed, DIR/end). Prints "multiserver ok".
 * Exits 1 on a failed check (message on stderr).
 */
#include "itest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pmix_tool.h>
#include <signal.h>
#include <sys/stat.h>

static char path_buf[4096];

static const char *path_of(const char *dir, const char *name, int rank)
{
    if (rank >= 0)
        snprintf(path_buf, sizeof(path_buf), "%s/%s.%d", dir, name, rank);
    else
        snprintf(path_buf, sizeof(path_buf), "%s/%s", dir, name);
    return path_buf;
}

static bool exists(const char *dir, const char *name, int rank)
{
    struct stat st;
    return stat(path_of(dir, name, rank), &st) == 0;
}

static void touch(const char *dir, const char *name, int rank)
{
    int fd = open(path_of(dir, name, rank), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    IT_CHECK(fd >= 0, "cannot create %s", path_buf);
    close(fd);
}

/* Waits up to sec s for dir/name.rank, made by another process. */
static void wait_file(const char *dir, const char *name, int rank, double sec, const char *what)
{
    double t0 = it_now();
    while (!exists(dir, name, rank)) {
        IT_CHECK(it_now() - t0 < sec, "no %s after %.0f s (%s)", path_buf, sec, what);
        it_sleep_ms(5);
    }
}

/* ---- a rank ---- */

static volatile int lost;

static void on_lost(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results;
    (void)nresults;
    __atomic_store_n(&lost, 1, __ATOMIC_RELEASE);
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int job(const char *dir)
{
    IT_RC(PMIx_Init(&it_me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    int r = (int)it_me.rank;
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    IT_CHECK(PMIx_Register_event_handler(&code, 1, NULL, 0, on_lost, NULL, NULL) >= 0,
             "PMIx_Register_event_handler");
    if (r == 0) {
        char tmp[4096];
        snprintf(tmp, sizeof(tmp), "%s/ready.tmp", dir);
        FILE *f = fopen(tmp, "w");
        IT_CHECK(f != NULL, "cannot write %s", tmp);
        fprintf(f, "%s\n", it_me.nspace);
        fclose(f);
        IT_CHECK(rename(tmp, path_of(dir, "ready", -1)) == 0, "rename");
    }
    FILE *got = fopen(path_of(dir, "got", r), "wb");
    IT_CHECK(got != NULL, "cannot write %s", path_buf);
    bool eof = false, said = false;
    double t0 = it_now();
    char buf[65536];
    while (!exists(dir, "end", -1)) {
        IT_CHECK(it_now() - t0 < 100, "rank %d: no %s/end after 100 s", r, dir);
        if (__atomic_load_n(&lost, __ATOMIC_ACQUIRE))
            _exit(0); /* the server was killed: nothing left to do */
        if (exists(dir, "abort", r))
            _exit(5); /* dies: the server tells the tools */
        if (!said && exists(dir, "say", r)) {
            printf("said %d\n", r);
            fflush(stdout);
            said = true;
        }
        struct pollfd pfd = {.fd = 0, .events = POLLIN};
        if (eof || poll(&pfd, 1, 20) <= 0) {
            if (eof)
                it_sleep_ms(20);
            continue;
        }
        ssize_t n = read(0, buf, sizeof(buf));
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        IT_CHECK(n >= 0, "read stdin: %s", strerror(errno));
        if (n > 0) {
            IT_CHECK(fwrite(buf, 1, (size_t)n, got) == (size_t)n, "write got");
            it_sleep_ms(100); /* a slow reader: the last bytes and the EOF come
                               * well after the push returned to the tool */
            continue;
        }
        eof = true;
        fclose(got);
        got = NULL;
        touch(dir, "done", r);
    }
    if (got)
        fclose(got);
    IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    return 0;
}

/* ---- the tool ---- */

static char *read_line(const char *file)
{
    char line[4096];
    FILE *f = fopen(file, "r");
    IT_CHECK(f != NULL, "cannot read %s", file);
    IT_CHECK(fgets(line, sizeof(line), f) != NULL, "%s is empty", file);
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    return strdup(line);
}

/* The namespaces the primary server knows (malloc'd), or NULL with *rc. */
static char *query_ns(pmix_status_t *rc)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_NAMESPACES, NULL};
    q.keys = keys;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    *rc = PMIx_Query_info(&q, 1, &res, &nres);
    q.keys = NULL;
    char *out = NULL;
    if (*rc == PMIX_SUCCESS && nres == 1 && res[0].value.type == PMIX_STRING)
        out = strdup(res[0].value.data.string);
    if (res)
        PMIX_INFO_FREE(res, nres);
    return out;
}

/* The primary must be the server of job ns (and know nothing of other). */
static void expect_primary(const char *ns, const char *other, const char *when)
{
    pmix_status_t rc;
    char *nss = query_ns(&rc);
    IT_CHECK(rc == PMIX_SUCCESS && nss, "%s: query of the namespaces: %s", when,
             PMIx_Error_string(rc));
    IT_CHECK(strstr(nss, ns) && !strstr(nss, other), "%s: namespaces '%s', expected %s", when,
             nss, ns);
    free(nss);
}

static uint32_t job_size(const char *ns)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, ns, PMIX_RANK_WILDCARD);
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    IT_CHECK(rc == PMIX_SUCCESS && val && val->type == PMIX_UINT32, "PMIx_Get(%s job size): %s",
             ns, PMIx_Error_string(rc));
    uint32_t n = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return n;
}

/* get_servers must list exactly want[0..n) (the primary first). */
static void expect_servers(const pmix_proc_t *want, size_t n, const char *when)
{
    pmix_proc_t *s = NULL;
    size_t ns = 0;
    IT_RC(PMIx_tool_get_servers(&s, &ns), PMIX_SUCCESS, "PMIx_tool_get_servers");
    IT_CHECK(ns == n, "%s: %zu servers listed, expected %zu", when, ns, n);
    for (size_t i = 0; i < n; i++)
        IT_CHECK(PMIX_CHECK_PROCID(&s[i], &want[i]), "%s: server %zu is %s:%u, expected %s:%u",
                 when, i, s[i].nspace, (unsigned)s[i].rank, want[i].nspace,
                 (unsigned)want[i].rank);
    PMIX_PROC_FREE(s, ns);
}

/* Pushes size deterministic bytes (seed) and EOF to rank of ns through the
 * primary; writes them to dir/expect.rank for the script to compare. */
static void push_to(const char *dir, const char *ns, int rank, size_t size, unsigned seed)
{
    char *bytes = malloc(size);
    IT_CHECK(bytes != NULL, "malloc");
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < size; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        bytes[i] = (char)x;
    }
    FILE *f = fopen(path_of(dir, "expect", rank), "wb");
    IT_CHECK(f && fwrite(bytes, 1, size, f) == size, "cannot write %s", path_buf);
    fclose(f);
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, ns, (pmix_rank_t)rank);
    pmix_byte_object_t bo = {.bytes = bytes, .size = size};
    bool yes = true;
    pmix_info_t done;
    PMIX_INFO_LOAD(&done, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    IT_RC(PMIx_IOF_push(&p, 1, &bo, &done, 1, NULL, NULL), PMIX_SUCCESS, "PMIx_IOF_push");
    PMIX_INFO_DESTRUCT(&done);
    free(bytes);
}

static const char *rdv_dir;

static pmix_status_t attach(const char *key, const void *v, pmix_data_type_t t, bool primary,
                            pmix_proc_t *srv)
{
    pmix_info_t info[3];
    size_t n = 0;
    PMIX_INFO_LOAD(&info[n], key, v, t);
    n++;
    PMIX_INFO_LOAD(&info[n], PMIX_SERVER_TMPDIR, rdv_dir, PMIX_STRING);
    n++;
    if (primary) {
        PMIX_INFO_LOAD(&info[n], PMIX_PRIMARY_SERVER, &primary, PMIX_BOOL);
        n++;
    }
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_attach_to_server(&me, srv, info, n);
    IT_CHECK(PMIX_CHECK_PROCID(&me, &it_me), "attach changed the tool's identity");
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    return rc;
}

static volatile int aborted, lost_seen, said_seen;
static pmix_proc_t aborted_src, lost_srv;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)results, (void)nresults;
    if (status == PMIX_ERR_PROC_ABORTED && source) {
        aborted_src = *source;
        __atomic_store_n(&aborted, 1, __ATOMIC_RELEASE);
    }
    if (status == PMIX_ERR_LOST_CONNECTION) {
        for (size_t i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
                info[i].value.type == PMIX_PROC)
                lost_srv = *info[i].value.data.proc;
        __atomic_store_n(&lost_seen, 1, __ATOMIC_RELEASE);
    }
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_output(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void)id, (void)channel, (void)source, (void)info, (void)ninfo;
    for (size_t i = 0; payload && i + 6 <= payload->size; i++)
        if (memcmp(payload->bytes + i, "said 0", 6) == 0)
            __atomic_store_n(&said_seen, 1, __ATOMIC_RELEASE);
}

static volatile int query_done;
static pmix_status_t query_status;
static char query_answer[1024];

static void on_query(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                     pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)cbdata;
    if (ninfo == 1 && info[0].value.type == PMIX_STRING)
        snprintf(query_answer, sizeof(query_answer), "%s", info[0].value.data.string);
    query_status = status;
    __atomic_store_n(&query_done, 1, __ATOMIC_RELEASE);
    if (release_fn)
        release_fn(release_cbdata);
}

/* Waits until every thread of process pid has stopped: the kernel stops
 * them one after another, so a thread may still run (and answer) for a while
 * after kill() returns. */
static void wait_stopped(pid_t pid)
{
    char dir[64];
    snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
    double t0 = it_now();
    for (;;) {
        DIR *d = opendir(dir);
        IT_CHECK(d != NULL, "cannot read %s", dir);
        bool all = true;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char p[600], line[512];
            snprintf(p, sizeof(p), "%s/%s/stat", dir, e->d_name);
            FILE *f = fopen(p, "r");
            const char *close_paren = NULL;
            if (f && fgets(line, sizeof(line), f))
                close_paren = strrchr(line, ')');
            if (f)
                fclose(f);
            if (close_paren && close_paren[1] == ' ' && close_paren[2] != 'T' &&
                close_paren[2] != 't')
                all = false;
        }
        closedir(d);
        if (all)
            return;
        IT_CHECK(it_now() - t0 < 10, "process %d did not stop in 10 s", (int)pid);
        it_sleep_ms(5);
    }
}

static int tool(char **argv)
{
    const char *rdv = argv[2], *file_b = argv[4], *dir_a = argv[5], *dir_b = argv[6];
    pid_t pid_a = (pid_t)atol(argv[3]);
    rdv_dir = rdv;
    char *ns_a = read_line(path_of(dir_a, "ready", -1));
    char *ns_b = read_line(path_of(dir_b, "ready", -1));
    char uri_b[4200];
    snprintf(uri_b, sizeof(uri_b), "file:%s", file_b);

    /* A by its pid, B added by its URI file; A stays the primary */
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid_a, PMIX_PID);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, rdv, PMIX_STRING);
    IT_RC(PMIx_tool_init(&it_me, info, 2), PMIX_SUCCESS, "PMIx_tool_init(A by pid)");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    pmix_proc_t srv[2], srv_a, srv_b, again;
    pmix_proc_t *one = NULL;
    size_t n1 = 0;
    IT_RC(PMIx_tool_get_servers(&one, &n1), PMIX_SUCCESS, "get_servers after init");
    IT_CHECK(n1 == 1, "%zu servers after init", n1);
    srv_a = one[0];
    PMIX_PROC_FREE(one, n1);
    IT_RC(attach(PMIX_SERVER_URI, uri_b, PMIX_STRING, false, &srv_b), PMIX_SUCCESS,
          "attach(B by URI file) while A is held");
    printf("servers A %s:%u B %s:%u\n", srv_a.nspace, (unsigned)srv_a.rank, srv_b.nspace,
           (unsigned)srv_b.rank);
    IT_CHECK(!PMIX_CHECK_PROCID(&srv_a, &srv_b), "A and B have the same server id");
    IT_CHECK(PMIx_tool_is_connected(), "not connected");
    srv[0] = srv_a, srv[1] = srv_b;
    expect_servers(srv, 2, "after attach(B)");
    expect_primary(ns_a, ns_b, "A primary after attach(B)");
    /* attaching to a held server again: its id, no second connection */
    IT_RC(attach(PMIX_SERVER_URI, uri_b, PMIX_STRING, false, &again), PMIX_SUCCESS,
          "attach(B) again");
    IT_CHECK(PMIX_CHECK_PROCID(&again, &srv_b), "attach(B) again gave another id");
    expect_servers(srv, 2, "after attach(B) again");

    /* the primary answers: A's size 2, B's 3 */
    uint32_t sa = job_size(ns_a);
    IT_RC(PMIx_tool_set_server(&srv_b, NULL, 0), PMIX_SUCCESS, "set_server(B)");
    expect_primary(ns_b, ns_a, "after set_server(B)");
    srv[0] = srv_b, srv[1] = srv_a;
    expect_servers(srv, 2, "B primary");
    uint32_t sb = job_size(ns_b);
    IT_CHECK(sa == 2 && sb == 3, "job sizes A %u, B %u (expected 2 and 3)", sa, sb);
    printf("job sizes A %u B %u\n", sa, sb);
    push_to(dir_b, ns_b, 2, 300000, 2); /* through B */
    /* B's output, pulled at B, arrives while A is the primary */
    pmix_proc_t b0;
    PMIX_LOAD_PROCID(&b0, ns_b, 0);
    pmix_status_t pull = PMIx_IOF_pull(&b0, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL,
                                       NULL);
    IT_CHECK(pull >= 0, "PMIx_IOF_pull(B rank 0): %s", PMIx_Error_string(pull));
    IT_RC(attach(PMIX_SERVER_PIDINFO, &pid_a, PMIX_PID, true, &again), PMIX_SUCCESS,
          "attach(A, PMIX_PRIMARY_SERVER)");
    IT_CHECK(PMIX_CHECK_PROCID(&again, &srv_a), "attach(A) again gave another id");
    expect_primary(ns_a, ns_b, "A primary by PMIX_PRIMARY_SERVER");
    push_to(dir_a, ns_a, 1, 200000, 1); /* through A */
    pmix_status_t code[2] = {PMIX_ERR_PROC_ABORTED, PMIX_ERR_LOST_CONNECTION};
    IT_CHECK(PMIx_Register_event_handler(code, 2, NULL, 0, on_event, NULL, NULL) >= 0,
             "PMIx_Register_event_handler");
    touch(dir_b, "say", 0);
    IT_WAIT_FOR(said_seen, 20, "B's rank 0 output while A is the primary");
    touch(dir_b, "abort", 1);
    IT_WAIT_FOR(aborted, 20, "B's PMIX_ERR_PROC_ABORTED while A is the primary");
    IT_CHECK(PMIX_CHECK_NSPACE(aborted_src.nspace, ns_b) && aborted_src.rank == 1,
             "the abort's source is %s:%u", aborted_src.nspace, (unsigned)aborted_src.rank);
    printf("from B while A is the primary: output and PMIX_ERR_PROC_ABORTED\n");
    IT_RC(PMIx_IOF_deregister((size_t)pull, NULL, 0, NULL, NULL), PMIX_SUCCESS,
          "PMIx_IOF_deregister at B");

    /* disconnect B (not the primary): A works; again with B back, A (the
     * primary) goes: B becomes the primary */
    IT_RC(PMIx_tool_disconnect(&srv_b), PMIX_SUCCESS, "disconnect(B)");
    expect_servers(&srv_a, 1, "after disconnect(B)");
    expect_primary(ns_a, ns_b, "after disconnect(B)");
    IT_RC(PMIx_tool_set_server(&srv_b, NULL, 0), PMIX_ERR_UNREACH, "set_server(B) disconnected");
    IT_RC(PMIx_tool_disconnect(&srv_b), PMIX_ERR_NOT_FOUND, "disconnect(B) twice");
    IT_RC(attach(PMIX_SERVER_URI, uri_b, PMIX_STRING, false, &again), PMIX_SUCCESS,
          "attach(B) after disconnect");
    IT_CHECK(PMIX_CHECK_PROCID(&again, &srv_b), "B came back as %s", again.nspace);
    expect_primary(ns_a, ns_b, "A primary after attach(B) again");
    IT_RC(PMIx_tool_disconnect(&srv_a), PMIX_SUCCESS, "disconnect(A, the primary)");
    IT_CHECK(PMIx_tool_is_connected(), "not connected with B left");
    expect_servers(&srv_b, 1, "after disconnect(A)");
    expect_primary(ns_b, ns_a, "B primary after disconnect(A)");
    IT_RC(attach(PMIX_SERVER_PIDINFO, &pid_a, PMIX_PID, true, &again), PMIX_SUCCESS,
          "attach(A, primary) after disconnect");
    expect_primary(ns_a, ns_b, "A primary again");
    printf("disconnect: the other server works\n");

    /* A push returns once the host has taken the bytes (into its cache), not
     * once the rank has read them: A's rank 1 reads the last of them and the
     * EOF only now and then, at its own pace. It leaves when A's server is
     * killed, so it must have seen the EOF before A stops. */
    wait_file(dir_a, "done", 1, 20, "A's rank 1 reads its push and the EOF");

    /* A's server stops, a query waits for it; killed, the query fails at once */
    IT_CHECK(kill(pid_a, SIGSTOP) == 0, "SIGSTOP %d", (int)pid_a);
    wait_stopped(pid_a);
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[] = {PMIX_QUERY_NAMESPACES, NULL};
    q.keys = keys;
    IT_RC(PMIx_Query_info_nb(&q, 1, on_query, NULL), PMIX_SUCCESS, "PMIx_Query_info_nb(A)");
    it_sleep_ms(300); /* q stays the library's until on_query */
    IT_CHECK(!query_done, "the query to a stopped server completed: %s (%s)",
             PMIx_Error_string(query_status), query_answer);
    double t0 = it_now();
    IT_CHECK(kill(pid_a, SIGKILL) == 0, "SIGKILL %d", (int)pid_a);
    IT_WAIT_FOR(query_done, 10, "the query in flight to the killed server");
    double took = it_now() - t0;
    q.keys = NULL;
    IT_CHECK(query_status != PMIX_SUCCESS, "the query to the killed server succeeded");
    IT_CHECK(took < 5, "the query to the killed server failed after %.1f s", took);
    printf("in flight to the killed server: %s after %.3f s\n", PMIx_Error_string(query_status),
           took);
    IT_WAIT_FOR(lost_seen, 10, "PMIX_ERR_LOST_CONNECTION");
    IT_CHECK(PMIX_CHECK_PROCID(&lost_srv, &srv_a), "the lost server is '%s:%u', A is %s:%u",
             lost_srv.nspace, (unsigned)lost_srv.rank, srv_a.nspace, (unsigned)srv_a.rank);
    expect_servers(&srv_b, 1, "after A was killed");
    IT_CHECK(PMIx_tool_is_connected(), "not connected with B left");
    expect_primary(ns_b, ns_a, "B primary after A was killed");
    IT_RC(PMIx_tool_set_server(&srv_a, NULL, 0), PMIX_ERR_UNREACH, "set_server(killed A)");
    IT_RC(PMIx_tool_disconnect(&srv_a), PMIX_ERR_NOT_FOUND, "disconnect(killed A)");
    push_to(dir_b, ns_b, 0, 100000, 3);
    /* B's ranks leave once the script sees this tool end: their pushes
     * (taken by the host, not yet read) must have reached them first */
    wait_file(dir_b, "done", 2, 20, "B's rank 2 reads its push and the EOF");
    wait_file(dir_b, "done", 0, 20, "B's rank 0 reads its push and the EOF");
    IT_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    free(ns_a);
    free(ns_b);
    printf("multiserver ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "job") == 0)
        return job(argv[2]);
    if (argc == 7 && strcmp(argv[1], "tool") == 0)
        return tool(argv);
    fprintf(stderr, "usage: it_multiserver job DIR | "
                    "it_multiserver tool RDVDIR PID_A FILE_B DIR_A DIR_B\n");
    return 1;
}
