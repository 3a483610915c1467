/*
 * it_iof.c: tools push bytes into the ranks' stdin of a running spmix-run
 * job (iof.sh).
 *   it_iof job DIR [gated|closed]
 *       a rank: rank 0 writes the namespace to DIR/ready; each rank (after
 *       DIR/go.R exists, when gated: then reading slowly) copies its stdin to
 *       DIR/got.R until EOF (the size and CLOCK_MONOTONIC time of each read
 *       to DIR/reads.R), writes DIR/done.R and finalizes; closed: rank 0
 *       closes its stdin at once, every rank waits for DIR/go.R and exits
 *       without reading
 *   it_iof tool basic|slow|refused|closed|blocks DIR NSPACE
 *       a tool (PMIx_tool_init, default discovery, or the server at
 *       $IT_IOF_URI when set: a job on several nodes) pushes to the job and
 *       writes what each rank must receive to DIR/expect.R (basic, and rank
 *       2 of slow) or what was pushed to DIR/sent.R (ranks 0 and 1 of slow:
 *       drop policies); touches DIR/go.R when a gated rank may read
 *   it_iof check GOT SENT DROPPED newest|oldest
 *       GOT must be SENT less DROPPED bytes: a prefix of SENT (newest), or a
 *       prefix followed by a suffix of SENT (oldest)
 * Exits 1 on a failed check (message on stderr).
 */
#include "itest.h"

#include <errno.h>
#include <fcntl.h>
#include <pmix_tool.h>
#include <sys/stat.h>

#define IT_BLOCK (64u << 10)

static const char *dir;

static void path_of(char *out, size_t len, const char *name, int rank)
{
    if (rank >= 0)
        snprintf(out, len, "%s/%s.%d", dir, name, rank);
    else
        snprintf(out, len, "%s/%s", dir, name);
}

static void touch(const char *name, int rank)
{
    char p[4096];
    int fd;

    path_of(p, sizeof(p), name, rank);
    fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    IT_CHECK(fd >= 0, "cannot create %s", p);
    close(fd);
}

static bool exists(const char *name, int rank)
{
    char p[4096];
    struct stat st;

    path_of(p, sizeof(p), name, rank);
    return stat(p, &st) == 0;
}

static void append(const char *name, int rank, const void *data, size_t n)
{
    char p[4096];
    FILE *f;

    path_of(p, sizeof(p), name, rank);
    f = fopen(p, "ab");
    IT_CHECK(f != NULL, "cannot open %s", p);
    IT_CHECK(n == 0 || fwrite(data, 1, n, f) == n, "cannot write %s", p);
    fclose(f);
}

/* ---- the job ---- */

static int job(bool gated, bool closed)
{
    char p[4096], ready[4096], buf[IT_BLOCK];
    double t0 = it_now();
    FILE *out, *reads;
    int r = 0;

    IT_RC(PMIx_Init(&it_me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    r = (int)it_me.rank;
    if (r == 0) {
        path_of(p, sizeof(p), "ready.tmp", -1);
        out = fopen(p, "w");
        IT_CHECK(out != NULL, "cannot write %s", p);
        fprintf(out, "%s\n", it_me.nspace);
        fclose(out);
        path_of(ready, sizeof(ready), "ready", -1);
        IT_CHECK(rename(p, ready) == 0, "rename");
    }
    if (closed && r == 0)
        close(0);
    while ((gated || closed) && !exists("go", r)) {
        IT_CHECK(it_now() - t0 < 50, "no go.%d after 50 s", r);
        it_sleep_ms(10);
    }
    if (closed) {
        IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
        return 0;
    }
    path_of(p, sizeof(p), "got", r);
    out = fopen(p, "wb");
    IT_CHECK(out != NULL, "cannot write %s", p);
    path_of(p, sizeof(p), "reads", r);
    reads = fopen(p, "w");
    IT_CHECK(reads != NULL, "cannot write %s", p);
    for (;;) {
        /* gated ranks read slowly: 4 KiB at a time, 0.5 ms apart */
        ssize_t n = read(0, buf, gated ? 4096 : sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        IT_CHECK(n >= 0, "read stdin: %s", strerror(errno));
        if (n == 0)
            break;
        IT_CHECK(fwrite(buf, 1, (size_t)n, out) == (size_t)n, "write got");
        fprintf(reads, "%zd %.6f\n", n, it_now());
        if (gated)
            usleep(500);
    }
    fclose(out);
    fclose(reads);
    touch("done", r);
    /* stay until the tool is done: a node's server may leave with its last
     * rank (Slurm, simulated nodes), and the tool's server must outlive the
     * pushes it still makes to the other ranks */
    while (!exists("end", -1) && it_now() - t0 < 50)
        it_sleep_ms(10);
    IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    return 0;
}

/* ---- the tool ---- */

static char job_ns[PMIX_MAX_NSLEN + 1];
static int cb_count;

static void cb_done(pmix_status_t status, void *cbdata)
{
    pmix_status_t *st = cbdata;

    *st = status;
    __atomic_add_fetch(&cb_count, 1, __ATOMIC_SEQ_CST);
}

static void wait_cbs(int want, double secs, const char *what)
{
    double t0 = it_now();

    while (__atomic_load_n(&cb_count, __ATOMIC_SEQ_CST) < want) {
        IT_CHECK(it_now() - t0 < secs, "%s: %d of %d callbacks after %g s", what,
                 __atomic_load_n(&cb_count, __ATOMIC_SEQ_CST), want, secs);
        it_sleep_ms(5);
    }
}

/* Pseudo-random bytes, different for each seed. */
static void fill(unsigned char *b, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = (unsigned char)(x >> 24);
    }
}

/* A blocking push of n bytes to the ranks listed (-1: WILDCARD); the ranks'
 * expect files grow by the bytes when it succeeds. */
static pmix_status_t push(const int *ranks, size_t nr, const void *data, size_t n,
                          bool complete, bool record)
{
    pmix_proc_t t[8];
    pmix_byte_object_t bo = { .bytes = (char *)data, .size = n };
    pmix_info_t info;
    bool yes = true;
    pmix_status_t rc;

    for (size_t i = 0; i < nr; i++)
        PMIX_LOAD_PROCID(&t[i], job_ns, ranks[i] < 0 ? PMIX_RANK_WILDCARD : (pmix_rank_t)ranks[i]);
    PMIX_INFO_LOAD(&info, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    rc = PMIx_IOF_push(t, nr, &bo, complete ? &info : NULL, complete ? 1 : 0, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info);
    if (rc == PMIX_SUCCESS && record)
        for (size_t i = 0; i < nr; i++)
            for (int r = ranks[i] < 0 ? 0 : ranks[i]; r <= (ranks[i] < 0 ? 2 : ranks[i]); r++)
                append("expect", r, data, n);
    return rc;
}

/* basic: one rank, a list, WILDCARD, 1 MiB in one push, EOF by a zero-byte
 * push (rank 0) and by PMIX_IOF_COMPLETE (ranks 1 and 2). */
static void basic(void)
{
    static const int one[] = { 1 }, list[] = { 0, 2 }, all[] = { -1 }, r0[] = { 0 },
                     r12[] = { 1, 2 }, bad[] = { 7 };
    size_t big = 1u << 20;
    unsigned char *b = malloc(big);
    pmix_status_t st = PMIX_ERR_TIMEOUT;
    pmix_byte_object_t bo;
    pmix_proc_t t[2];

    IT_CHECK(b != NULL, "malloc");
    for (int r = 0; r < 3; r++)
        append("expect", r, "", 0);
    IT_RC(push(one, 1, "to rank 1\n", 10, false, true), PMIX_SUCCESS, "push to rank 1");
    /* the non-blocking form: bo stays ours until the callback */
    PMIX_LOAD_PROCID(&t[0], job_ns, 0);
    PMIX_LOAD_PROCID(&t[1], job_ns, 2);
    bo.bytes = (char *)"to ranks 0 and 2\n";
    bo.size = strlen(bo.bytes);
    IT_RC(PMIx_IOF_push(t, 2, &bo, NULL, 0, cb_done, &st), PMIX_SUCCESS, "push_nb to 0,2");
    wait_cbs(1, 20, "push_nb to 0,2");
    IT_RC(st, PMIX_SUCCESS, "push_nb to 0,2 callback");
    for (size_t i = 0; i < 2; i++)
        append("expect", list[i], bo.bytes, bo.size);
    IT_RC(push(all, 1, "to all\n", 7, false, true), PMIX_SUCCESS, "push to WILDCARD");
    fill(b, big, 1);
    IT_RC(push(all, 1, b, big, false, true), PMIX_SUCCESS, "1 MiB push to WILDCARD");
    IT_RC(push(r0, 1, NULL, 0, false, false), PMIX_SUCCESS, "zero-byte push to rank 0");
    IT_RC(push(r0, 1, "late\n", 5, false, false), PMIX_ERR_UNREACH, "push after EOF");
    /* WILDCARD reaches the ranks whose stdin is still open */
    IT_RC(push(all, 1, "to 1 and 2\n", 11, false, false), PMIX_SUCCESS, "WILDCARD after EOF");
    for (int r = 1; r <= 2; r++)
        append("expect", r, "to 1 and 2\n", 11);
    IT_RC(push(bad, 1, "x", 1, false, false), PMIX_ERR_BAD_PARAM, "push to rank 7");
    IT_RC(push(r12, 2, "last\n", 5, true, true), PMIX_SUCCESS, "push with COMPLETE to 1,2");
    IT_RC(push(r12, 2, "late\n", 5, false, false), PMIX_ERR_UNREACH, "push after COMPLETE");
    free(b);
}

/* 16 non-blocking pushes of 64 KiB to rank with a 16 KiB cache and policy
 * (NULL: back-pressure); the bytes go to DIR/<file>.rank. Returns how many
 * callbacks came within wait_s seconds, while the rank does not read. */
static int slow_pushes(int rank, const char *policy, const char *file, double wait_s,
                       unsigned char *b, pmix_status_t *st)
{
    pmix_proc_t t;
    pmix_info_t info[2];
    pmix_byte_object_t bo[16];
    uint32_t cache = 16384;
    bool yes = true;
    size_t ni = 1;
    double t0;
    int fired;

    PMIX_LOAD_PROCID(&t, job_ns, (pmix_rank_t)rank);
    PMIX_INFO_LOAD(&info[0], PMIX_IOF_CACHE_SIZE, &cache, PMIX_UINT32);
    if (policy)
        PMIX_INFO_LOAD(&info[ni++], policy, &yes, PMIX_BOOL);
    __atomic_store_n(&cb_count, 0, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 16; i++) {
        fill(b + (size_t)i * IT_BLOCK, IT_BLOCK, 100 + (uint64_t)rank * 16 + (uint64_t)i);
        bo[i] = (pmix_byte_object_t){ .bytes = (char *)b + (size_t)i * IT_BLOCK,
                                      .size = IT_BLOCK };
        st[i] = PMIX_ERR_TIMEOUT;
        IT_RC(PMIx_IOF_push(&t, 1, &bo[i], info, ni, cb_done, &st[i]), PMIX_SUCCESS,
              "push_nb to a slow rank");
        append(file, rank, bo[i].bytes, bo[i].size);
    }
    t0 = it_now();
    while (it_now() - t0 < wait_s && __atomic_load_n(&cb_count, __ATOMIC_SEQ_CST) < 16)
        it_sleep_ms(10);
    fired = __atomic_load_n(&cb_count, __ATOMIC_SEQ_CST);
    for (size_t i = 0; i < ni; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    return fired;
}

/* slow: three gated ranks. Rank 0 drops the newest bytes, rank 1 the oldest
 * (every callback comes while they do not read), rank 2 holds the pushes
 * back until it reads (nothing lost). */
static void slow(void)
{
    unsigned char *b = malloc(16 * (size_t)IT_BLOCK);
    pmix_status_t st[16];
    static const int r[] = { 0, 1, 2 };
    int fired;

    IT_CHECK(b != NULL, "malloc");
    fired = slow_pushes(0, PMIX_IOF_DROP_NEWEST, "sent", 20, b, st);
    IT_CHECK(fired == 16, "DROP_NEWEST: %d of 16 callbacks while the rank did not read", fired);
    for (int i = 0; i < 16; i++)
        IT_RC(st[i], PMIX_SUCCESS, "DROP_NEWEST push");
    IT_RC(push(&r[0], 1, NULL, 0, false, false), PMIX_SUCCESS, "EOF to rank 0");
    touch("go", 0);

    fired = slow_pushes(1, PMIX_IOF_DROP_OLDEST, "sent", 20, b, st);
    IT_CHECK(fired == 16, "DROP_OLDEST: %d of 16 callbacks while the rank did not read", fired);
    for (int i = 0; i < 16; i++)
        IT_RC(st[i], PMIX_SUCCESS, "DROP_OLDEST push");
    IT_RC(push(&r[1], 1, NULL, 0, false, false), PMIX_SUCCESS, "EOF to rank 1");
    touch("go", 1);

    /* 1 MiB against 64 KiB of pipe and 16 KiB of cache: most wait */
    fired = slow_pushes(2, NULL, "expect", 1.0, b, st);
    printf("back-pressure: %d of 16 callbacks while the rank did not read\n", fired);
    IT_CHECK(fired <= 4, "back-pressure: %d of 16 callbacks while the rank did not read", fired);
    touch("go", 2);
    wait_cbs(16, 30, "back-pressure pushes once the rank reads");
    for (int i = 0; i < 16; i++)
        IT_RC(st[i], PMIX_SUCCESS, "back-pressure push");
    IT_RC(push(&r[2], 1, NULL, 0, false, false), PMIX_SUCCESS, "EOF to rank 2");
    free(b);
}

/* closed: rank 0 closed its stdin, rank 1 exits with pushes held for it:
 * both end in PMIX_ERR_UNREACH (and spmix-run survives the broken pipe). */
static void closed(void)
{
    unsigned char *b = malloc(16 * (size_t)IT_BLOCK);
    pmix_status_t st[16];
    static const int r[] = { 0, 1 };
    int fired, unreach = 0;

    IT_CHECK(b != NULL, "malloc");
    fill(b, IT_BLOCK, 7);
    IT_RC(push(&r[0], 1, b, IT_BLOCK, false, false), PMIX_ERR_UNREACH,
          "push to a rank that closed its stdin");
    IT_RC(push(&r[0], 1, "x", 1, false, false), PMIX_ERR_UNREACH, "a second push there");
    fired = slow_pushes(1, NULL, "sent", 0.5, b, st);
    IT_CHECK(fired < 16, "%d of 16 callbacks before rank 1 exits", fired);
    touch("go", 1);   /* rank 1 exits without reading */
    wait_cbs(16, 20, "pushes held for a rank that exits");
    for (int i = 0; i < 16; i++) {
        IT_CHECK(st[i] == PMIX_SUCCESS || st[i] == PMIX_ERR_UNREACH, "push %d: %s", i,
                 PMIx_Error_string(st[i]));
        unreach += st[i] == PMIX_ERR_UNREACH;
    }
    IT_CHECK(unreach > 0, "no push held for the exited rank failed");
    IT_RC(push(&r[1], 1, "x", 1, false, false), PMIX_ERR_UNREACH, "push to an exited rank");
    printf("closed: %d of 16 pushes to the exited rank failed\n", unreach);
    touch("go", 0);
    touch("go", 2);
    free(b);
}

/* blocks: rank 0 gets 20 pushes of 100 bytes with PMIX_IOF_BUFFERING_SIZE
 * 1000 (it must read whole blocks), then 50 bytes with
 * PMIX_IOF_BUFFERING_TIME 1 (they come after a second: DIR/pushed has the
 * time of that push). */
static void blocks(void)
{
    static const int r0[] = { 0 }, r12[] = { 1, 2 };
    pmix_proc_t t;
    pmix_info_t info;
    pmix_byte_object_t bo;
    unsigned char b[100];
    uint32_t bsize = 1000, btime = 1;
    char line[64];

    PMIX_LOAD_PROCID(&t, job_ns, 0);
    PMIX_INFO_LOAD(&info, PMIX_IOF_BUFFERING_SIZE, &bsize, PMIX_UINT32);
    for (int i = 0; i < 20; i++) {
        fill(b, sizeof(b), 500 + (uint64_t)i);
        bo = (pmix_byte_object_t){ .bytes = (char *)b, .size = sizeof(b) };
        IT_RC(PMIx_IOF_push(&t, 1, &bo, &info, 1, NULL, NULL), PMIX_SUCCESS,
              "push with BUFFERING_SIZE");
        append("expect", 0, b, sizeof(b));
    }
    PMIX_INFO_DESTRUCT(&info);
    it_sleep_ms(200);
    PMIX_INFO_LOAD(&info, PMIX_IOF_BUFFERING_TIME, &btime, PMIX_UINT32);
    bo = (pmix_byte_object_t){ .bytes = (char *)b, .size = 50 };
    snprintf(line, sizeof(line), "%.6f\n", it_now());
    IT_RC(PMIx_IOF_push(&t, 1, &bo, &info, 1, NULL, NULL), PMIX_SUCCESS,
          "push with BUFFERING_TIME");
    append("expect", 0, b, 50);
    append("pushed", -1, line, strlen(line));
    PMIX_INFO_DESTRUCT(&info);
    it_sleep_ms(1500);
    IT_RC(push(r0, 1, NULL, 0, false, false), PMIX_SUCCESS, "EOF to rank 0");
    IT_RC(push(r12, 2, NULL, 0, false, false), PMIX_SUCCESS, "EOF to ranks 1 and 2");
}

static int tool(const char *what)
{
    static const int all[] = { -1 };
    /* IT_IOF_URI: that server; IT_IOF_SERVER_NSPACE: the server of that
     * namespace (a Slurm step's node server); neither: the default search */
    const char *uri = getenv("IT_IOF_URI"), *srv = getenv("IT_IOF_SERVER_NSPACE");
    pmix_info_t info;
    size_t ninfo = 0;
    pmix_status_t rc;

    if (uri && *uri) {
        PMIX_INFO_LOAD(&info, PMIX_SERVER_URI, uri, PMIX_STRING);
        ninfo = 1;
    } else if (srv && *srv) {
        PMIX_INFO_LOAD(&info, PMIX_SERVER_NSPACE, srv, PMIX_STRING);
        ninfo = 1;
    }
    rc = PMIx_tool_init(&it_me, ninfo ? &info : NULL, ninfo);
    if (ninfo)
        PMIX_INFO_DESTRUCT(&info);

    if (rc != PMIX_SUCCESS) {
        printf("tool_init %s\n", PMIx_Error_string(rc));
        return 2;
    }
    if (strcmp(what, "basic") == 0) {
        basic();
    } else if (strcmp(what, "slow") == 0) {
        slow();
    } else if (strcmp(what, "blocks") == 0) {
        blocks();
    } else if (strcmp(what, "closed") == 0) {
        closed();
    } else if (strcmp(what, "refused") == 0) {
        rc = push(all, 1, "x\n", 2, false, false);
        printf("push %s\n", PMIx_Error_string(rc));
        IT_RC(rc, PMIX_ERR_NOT_AVAILABLE, "push to a job without --stdin tool");
        for (int r = 0; r < 3; r++)
            touch("go", r);
    } else {
        IT_CHECK(false, "unknown tool test %s", what);
    }
    touch("end", -1);   /* the ranks may go */
    IT_RC(PMIx_tool_finalize(), PMIX_SUCCESS, "PMIx_tool_finalize");
    printf("tool %s done\n", what);
    return 0;
}

/* ---- checking a drop policy's result ---- */

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    size_t cap = 0;

    IT_CHECK(f != NULL, "cannot read %s", path);
    *n = 0;
    for (;;) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 65536;
            b = realloc(b, cap);
            IT_CHECK(b != NULL, "realloc");
        }
        size_t k = fread(b + *n, 1, cap - *n, f);
        if (k == 0)
            break;
        *n += k;
    }
    fclose(f);
    return b;
}

static int check(const char *got_p, const char *sent_p, const char *dropped_s, const char *pol)
{
    size_t ng, ns, a = 0, bsuf, dropped = (size_t)strtoull(dropped_s, NULL, 10);
    unsigned char *got = slurp(got_p, &ng), *sent = slurp(sent_p, &ns);

    IT_CHECK(dropped > 0, "%s: nothing was dropped", pol);
    IT_CHECK(ng + dropped == ns, "%s: received %zu + dropped %zu != pushed %zu", pol, ng, dropped,
             ns);
    while (a < ng && got[a] == sent[a])
        a++;
    bsuf = ng - a;
    IT_CHECK(memcmp(got + a, sent + ns - bsuf, bsuf) == 0,
             "%s: the %zu bytes after the first %zu are not the end of what was pushed", pol,
             bsuf, a);
    if (strcmp(pol, "newest") == 0)
        IT_CHECK(bsuf == 0, "newest: %zu bytes arrived after a gap", bsuf);
    else
        IT_CHECK(bsuf > 0 && a > 0, "oldest: prefix %zu, suffix %zu", a, bsuf);
    printf("%s: %zu bytes received (%zu first, %zu last), %zu dropped\n", pol, ng, a, bsuf,
           dropped);
    free(got);
    free(sent);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "job") == 0) {
        dir = argv[2];
        return job(argc > 3 && strcmp(argv[3], "gated") == 0,
                   argc > 3 && strcmp(argv[3], "closed") == 0);
    }
    if (argc >= 5 && strcmp(argv[1], "tool") == 0) {
        dir = argv[3];
        snprintf(job_ns, sizeof(job_ns), "%s", argv[4]);
        return tool(argv[2]);
    }
    if (argc >= 6 && strcmp(argv[1], "check") == 0)
        return check(argv[2], argv[3], argv[4], argv[5]);
    fprintf(stderr, "usage: it_iof job DIR [gated] | it_iof tool basic|slow|refused DIR NSPACE |"
                    " it_iof check GOT SENT DROPPED newest|oldest\n");
    return 1;
}
