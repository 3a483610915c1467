/*
 * it_iofpull.c: tools pull the ranks' output of a running spmix-run
 * --output-tap job (iofpull.sh).
 *   it_iofpull job DIR SIZE
 *       a rank: rank 0 writes the namespace to DIR/ready; each rank waits
 *       for DIR/go.1, writes DIR/exp.R (SIZE bytes of lines of its own) and
 *       then the same bytes to its stdout (in writes of varied sizes) and
 *       "stderr-line rank R\n" to its stderr; waits for DIR/go.2 (rank 0
 *       also for DIR/go.3), writes "after rank R\n" to its stdout, finalizes
 *   it_iofpull tool DIR NSPACE SIZE
 *       a tool (PMIx_tool_init, default discovery or the server of
 *       $IT_IOFPULL_SERVER_NSPACE) pulls: A rank 1's stdout
 *       (blocking form), B WILDCARD stdout (regcbfunc), C rank 0's stdout and
 *       stderr with TAG and TIMESTAMP, D rank 2's stdout with XML, E
 *       WILDCARD stdout (kept); touches go.1, waits for SIZE bytes per rank,
 *       writes A's bytes to DIR/one.1 and B's to DIR/all.R, checks C's and
 *       D's formatting and content against DIR/exp.R; deregisters A
 *       (blocking) and B (callback), touches go.2, waits for every rank's
 *       "after" line through E and until the stream ends (PMIX_IOF_COMPLETE),
 *       ranks 2 and 1 first, then (go.3) rank 0, whose node's server the tool
 *       talks to: it stays until the other nodes' output reached the tool,
 *       then checks A and B got nothing more
 *   it_iofpull hang DIR NSPACE
 *       a tool that pulls WILDCARD stdout, touches DIR/hung once bytes came,
 *       and then never returns from its callback (the test kills it)
 *   it_iofpull emit SIZE FILE
 *       one rank: writes SIZE bytes of lines to FILE and to its stdout
 * Exits 1 on a failed check (message on stderr).
 */
#include "itest.h"

#include <errno.h>
#include <fcntl.h>
#include <pmix_tool.h>
#include <pthread.h>
#include <sys/stat.h>

static const char *dir;

/* Polls cond every 10 ms, fails after sec seconds. */
#define WAIT_UNTIL(cond, sec, what)                                       \
    do {                                                                  \
        double t0_ = it_now();                                            \
        while (!(cond)) {                                                 \
            IT_CHECK(it_now() - t0_ < (sec), "timeout waiting for %s", what); \
            it_sleep_ms(10);                                              \
        }                                                                 \
    } while (0)

static void path_of(char *out, size_t len, const char *name, int rank)
{
    if (rank >= 0)
        snprintf(out, len, "%s/%s.%d", dir, name, rank);
    else
        snprintf(out, len, "%s/%s", dir, name);
}

static void put_file(const char *name, int rank, const void *data, size_t n)
{
    char p[4096];
    FILE *f;

    path_of(p, sizeof(p), name, rank);
    f = fopen(p, "wb");
    IT_CHECK(f != NULL, "cannot open %s", p);
    IT_CHECK(n == 0 || fwrite(data, 1, n, f) == n, "cannot write %s", p);
    fclose(f);
}

static bool exists(const char *name, int rank)
{
    char p[4096];
    struct stat st;

    path_of(p, sizeof(p), name, rank);
    return stat(p, &st) == 0;
}

static char *get_file(const char *name, int rank, size_t *n)
{
    char p[4096];
    FILE *f;
    char *buf;
    long len;

    path_of(p, sizeof(p), name, rank);
    f = fopen(p, "rb");
    IT_CHECK(f != NULL, "cannot open %s", p);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)len + 1);
    IT_CHECK(buf != NULL && fread(buf, 1, (size_t)len, f) == (size_t)len, "read %s", p);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

/* SIZE bytes of lines of varied length, different for every rank. */
static char *lines_of(uint32_t rank, size_t size)
{
    char *b = malloc(size + 1);
    size_t at = 0;
    uint32_t x = 2463534242u + rank * 7919u;

    IT_CHECK(b != NULL, "malloc");
    for (unsigned k = 0; at < size; k++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        int len = snprintf(b + at, size + 1 - at, "rank %u line %u <&> %.*s\n", rank, k,
                           (int)(x % 150), "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP");
        at += (size_t)len < size - at ? (size_t)len : size - at;
    }
    return b;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        IT_CHECK(w > 0, "write: %s", strerror(errno));
        p += w;
        n -= (size_t)w;
    }
}

/* ---- the job ---- */

static int job(size_t size)
{
    it_init();
    uint32_t rank = it_me.rank;
    char *data;
    size_t at = 0, step = 1;

    if (rank == 0) {
        char p[4096], tmp[4200];
        path_of(p, sizeof(p), "ready", -1);
        snprintf(tmp, sizeof(tmp), "%s.tmp", p);
        FILE *f = fopen(tmp, "w");
        IT_CHECK(f != NULL, "cannot write %s", tmp);
        fprintf(f, "%s", it_me.nspace);
        fclose(f);
        IT_CHECK(rename(tmp, p) == 0, "rename");
    }
    WAIT_UNTIL(exists("go", 1), 60, "go.1");
    data = lines_of(rank, size);
    put_file("exp", (int)rank, data, size);
    while (at < size) {   /* writes of 1 byte .. 256 KiB: lines cut anywhere */
        size_t n = size - at < step ? size - at : step;
        write_all(1, data + at, n);
        at += n;
        step = step * 7 % 262139 + 1;
    }
    fprintf(stderr, "stderr-line rank %u\n", rank);
    fflush(stderr);
    free(data);
    WAIT_UNTIL(exists("go", 2), 60, "go.2");
    if (rank == 0) /* node 0's server stays until the others' ends reached the tool */
        WAIT_UNTIL(exists("go", 3), 60, "go.3");
    printf("after rank %u\n", rank);
    fflush(stdout);
    it_finalize();
    return 0;
}

/* ---- the tool ---- */

#define NR 3
enum { A, B, C, D, E, NREG };

struct got {
    char *p;
    size_t len, cap;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct got g[NREG][NR][2]; /* [registration][rank][stdout, stderr] */
static size_t ids[NREG];
static size_t calls[NREG];
static bool complete[NR];
static volatile bool hang;

/* p may be NULL when n is 0: the end of a stream comes as zero bytes */
static void got_add(struct got *x, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (x->len + n > x->cap) {
        x->cap = (x->len + n) * 2;
        x->p = realloc(x->p, x->cap);
        IT_CHECK(x->p != NULL, "realloc");
    }
    memcpy(x->p + x->len, p, n);
    x->len += n;
}

static void on_output(size_t id, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
                      pmix_info_t info[], size_t ninfo)
{
    int reg = -1;

    pthread_mutex_lock(&lock);
    for (int i = 0; i < NREG; i++)
        if (ids[i] == id)
            reg = i;
    IT_CHECK(reg >= 0 && src->rank < NR, "output for handler %zu from rank %u", id, src->rank);
    calls[reg]++;
    got_add(&g[reg][src->rank][ch == PMIX_FWD_STDERR_CHANNEL], bo->bytes, bo->size);
    for (size_t i = 0; i < ninfo; i++)
        if (reg == E && PMIX_CHECK_KEY(&info[i], PMIX_IOF_COMPLETE) && ch == PMIX_FWD_STDOUT_CHANNEL)
            complete[src->rank] = true;
    pthread_mutex_unlock(&lock);
    while (hang)
        sleep(1);
}

static size_t got_len(int reg, int rank, int ch)
{
    pthread_mutex_lock(&lock);
    size_t n = g[reg][rank][ch].len;
    pthread_mutex_unlock(&lock);
    return n;
}

static void reg_done(pmix_status_t st, size_t id, void *cbdata)
{
    IT_CHECK(st == PMIX_SUCCESS, "registration: %s", PMIx_Error_string(st));
    *(volatile size_t *)cbdata = id;
}

static void dereg_done(pmix_status_t st, void *cbdata)
{
    IT_CHECK(st == PMIX_SUCCESS, "deregistration: %s", PMIx_Error_string(st));
    *(volatile int *)cbdata = 1;
}

static pmix_proc_t proc_of(const char *ns, pmix_rank_t r)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, ns, r);
    return p;
}

/* C: every line "[ctime][ns,0]<stdout>: " + a line of rank 0 */
static void check_tagged(const char *ns, const char *exp, size_t nexp)
{
    struct got out = {0}, err = {0};
    const struct got *t = &g[C][0][0];
    char tagged[PMIX_MAX_NSLEN + 64];
    size_t i = 0;

    /* both channels of C went to [0][0] or [0][1] by channel: check each */
    for (int ch = 0; ch < 2; ch++) {
        t = &g[C][0][ch];
        snprintf(tagged, sizeof(tagged), "[%s,0]<%s>: ", ns, ch ? "stderr" : "stdout");
        for (i = 0; i < t->len;) {
            const char *l = t->p + i;
            const char *nl = memchr(l, '\n', t->len - i);
            size_t n = nl ? (size_t)(nl - l) + 1 : t->len - i;
            /* "[Thu Dec  3 18:36:09 2026]" then the tag */
            IT_CHECK(n > 26 && l[0] == '[' && l[25] == ']' && l[14] == ':' && l[17] == ':',
                     "C: no timestamp before \"%.*s\"", (int)(n < 80 ? n : 80), l);
            IT_CHECK(strncmp(l + 26, tagged, strlen(tagged)) == 0, "C: no tag in \"%.*s\"",
                     (int)(n < 80 ? n : 80), l);
            size_t skip = 26 + strlen(tagged);
            got_add(ch ? &err : &out, l + skip, n - skip);
            i += n;
        }
    }
    IT_CHECK(out.len == nexp && memcmp(out.p, exp, nexp) == 0,
             "C: rank 0's stdout lines differ (%zu bytes, %zu expected)", out.len, nexp);
    IT_CHECK(err.len == strlen("stderr-line rank 0\n") &&
                 memcmp(err.p, "stderr-line rank 0\n", err.len) == 0,
             "C: rank 0's stderr: \"%.*s\"", (int)err.len, err.p);
    free(out.p);
    free(err.p);
}

/* D: elements <stdout rank="2">escaped piece</stdout>\n */
static void check_xml(const char *exp, size_t nexp)
{
    const struct got *t = &g[D][2][0];
    const char *open = "<stdout rank=\"2\">", *close = "</stdout>\n";
    struct got back = {0};
    size_t i = 0, elems = 0;

    while (i < t->len) {
        IT_CHECK(t->len - i > strlen(open) && strncmp(t->p + i, open, strlen(open)) == 0,
                 "D: no element at byte %zu: \"%.40s\"", i, t->p + i);
        i += strlen(open);
        while (i < t->len && t->p[i] != '<') {
            char c = t->p[i];
            if (c == '&') {
                const char *s = t->p + i;
                if (strncmp(s, "&amp;", 5) == 0)
                    c = '&', i += 5;
                else if (strncmp(s, "&lt;", 4) == 0)
                    c = '<', i += 4;
                else if (strncmp(s, "&gt;", 4) == 0)
                    c = '>', i += 4;
                else if (strncmp(s, "&#010;", 6) == 0)
                    c = '\n', i += 6;
                else
                    IT_CHECK(0, "D: unknown escape \"%.8s\"", s);
            } else {
                IT_CHECK(c != '\n' && c != '>', "D: unescaped byte 0x%02x", (unsigned)c);
                i++;
            }
            got_add(&back, &c, 1);
        }
        IT_CHECK(t->len - i >= strlen(close) && strncmp(t->p + i, close, strlen(close)) == 0,
                 "D: element not closed at byte %zu", i);
        i += strlen(close);
        elems++;
    }
    IT_CHECK(back.len == nexp && memcmp(back.p, exp, nexp) == 0,
             "D: rank 2's stdout differs after unescaping (%zu bytes, %zu expected)", back.len,
             nexp);
    IT_CHECK(elems > 1, "D: one element only");
    free(back.p);
}

/* Default discovery, or the server of $IT_IOFPULL_SERVER_NSPACE (a Slurm
 * step's node server). */
static void tool_init(pmix_proc_t *me)
{
    const char *srv = getenv("IT_IOFPULL_SERVER_NSPACE");
    pmix_info_t info;
    size_t ninfo = 0;

    if (srv && *srv) {
        PMIX_INFO_LOAD(&info, PMIX_SERVER_NSPACE, srv, PMIX_STRING);
        ninfo = 1;
    }
    pmix_status_t rc = PMIx_tool_init(me, ninfo ? &info : NULL, ninfo);
    if (ninfo)
        PMIX_INFO_DESTRUCT(&info);
    IT_CHECK(rc == PMIX_SUCCESS, "PMIx_tool_init: %s", PMIx_Error_string(rc));
}

static int tool(const char *ns, size_t size)
{
    pmix_proc_t me, one = proc_of(ns, 1), all = proc_of(ns, PMIX_RANK_WILDCARD),
                zero = proc_of(ns, 0), two = proc_of(ns, 2);
    pmix_info_t dirs[2];
    volatile size_t bid = SIZE_MAX;
    volatile int bdone = 0;
    bool yes = true;
    pmix_status_t rc;

    tool_init(&me);
    for (int i = 0; i < NREG; i++)
        ids[i] = SIZE_MAX;
    rc = PMIx_IOF_pull(&one, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
    IT_CHECK(rc >= 0, "pull A: %s", PMIx_Error_string(rc));
    ids[A] = (size_t)rc;
    rc = PMIx_IOF_pull(&all, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, reg_done,
                       (void *)&bid);
    IT_RC(rc, PMIX_SUCCESS, "pull B");
    WAIT_UNTIL(bid != SIZE_MAX, 10, "B's registration callback");
    ids[B] = bid;
    PMIx_Info_load(&dirs[0], PMIX_IOF_TAG_OUTPUT, &yes, PMIX_BOOL);
    PMIx_Info_load(&dirs[1], PMIX_IOF_TIMESTAMP_OUTPUT, &yes, PMIX_BOOL);
    rc = PMIx_IOF_pull(&zero, 1, dirs, 2, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
                       on_output, NULL, NULL);
    IT_CHECK(rc >= 0, "pull C: %s", PMIx_Error_string(rc));
    ids[C] = (size_t)rc;
    PMIx_Info_load(&dirs[0], PMIX_IOF_XML_OUTPUT, &yes, PMIX_BOOL);
    rc = PMIx_IOF_pull(&two, 1, dirs, 1, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
    IT_CHECK(rc >= 0, "pull D: %s", PMIx_Error_string(rc));
    ids[D] = (size_t)rc;
    rc = PMIx_IOF_pull(&all, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
    IT_CHECK(rc >= 0, "pull E: %s", PMIx_Error_string(rc));
    ids[E] = (size_t)rc;
    /* refusals: stdin is not pulled, no sources, a handler that is not one */
    IT_RC(PMIx_IOF_pull(&all, 1, NULL, 0, PMIX_FWD_STDIN_CHANNEL, on_output, NULL, NULL),
          PMIX_ERR_NOT_SUPPORTED, "pull of stdin");
    IT_RC(PMIx_IOF_pull(NULL, 0, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL),
          PMIX_ERR_BAD_PARAM, "pull of nothing");
    IT_RC(PMIx_IOF_deregister(12345, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM, "deregister 12345");

    put_file("go", 1, "", 0);
    for (int r = 0; r < NR; r++)
        WAIT_UNTIL(got_len(B, r, 0) >= size && got_len(E, r, 0) >= size, 60, "all output");
    WAIT_UNTIL(got_len(A, 1, 0) >= size && got_len(C, 0, 1) > 0, 30, "A's and C's output");
    WAIT_UNTIL(got_len(D, 2, 0) > size, 30, "D's output");
    it_sleep_ms(200); /* anything more would come now */
    pthread_mutex_lock(&lock);
    put_file("one", 1, g[A][1][0].p, g[A][1][0].len);
    for (int r = 0; r < NR; r++)
        put_file("all", r, g[B][r][0].p, g[B][r][0].len);
    size_t n0, n2;
    char *exp0 = get_file("exp", 0, &n0), *exp2 = get_file("exp", 2, &n2);
    check_tagged(ns, exp0, n0);
    check_xml(exp2, n2);
    IT_CHECK(g[A][0][0].len == 0 && g[A][2][0].len == 0, "A got output of other ranks");
    pthread_mutex_unlock(&lock);
    free(exp0);
    free(exp2);

    /* deregistration stops delivery */
    IT_RC(PMIx_IOF_deregister(ids[A], NULL, 0, NULL, NULL), PMIX_SUCCESS, "deregister A");
    IT_RC(PMIx_IOF_deregister(ids[B], NULL, 0, dereg_done, (void *)&bdone), PMIX_SUCCESS,
          "deregister B");
    WAIT_UNTIL(bdone, 10, "B's deregistration callback");
    IT_RC(PMIx_IOF_deregister(ids[A], NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
          "deregister A again");
    pthread_mutex_lock(&lock);
    size_t ca = calls[A], cb = calls[B];
    pthread_mutex_unlock(&lock);
    put_file("go", 2, "", 0);
    for (int r = NR - 1; r >= 0; r--) { /* rank 0 ends last (go.3) */
        if (r == 0)
            put_file("go", 3, "", 0);
        char after[64];
        snprintf(after, sizeof(after), "after rank %d\n", r);
        WAIT_UNTIL(got_len(E, r, 0) >= size + strlen(after), 30, "the after lines");
        pthread_mutex_lock(&lock);
        IT_CHECK(memcmp(g[E][r][0].p + size, after, strlen(after)) == 0, "E: rank %d's last line",
                 r);
        pthread_mutex_unlock(&lock);
        WAIT_UNTIL(complete[r], 30, "the end of a rank's stdout (PMIX_IOF_COMPLETE)");
    }
    pthread_mutex_lock(&lock);
    IT_CHECK(calls[A] == ca && calls[B] == cb, "output after deregistration: A %zu->%zu, B %zu->%zu",
             ca, calls[A], cb, calls[B]);
    pthread_mutex_unlock(&lock);
    PMIx_tool_finalize();
    for (int i = 0; i < NREG; i++)
        for (int r = 0; r < NR; r++)
            for (int c = 0; c < 2; c++)
                free(g[i][r][c].p);
    return 0;
}

static int hang_tool(const char *ns)
{
    pmix_proc_t me, all = proc_of(ns, PMIX_RANK_WILDCARD);
    pmix_status_t rc;

    tool_init(&me);
    ids[E] = 0;
    rc = PMIx_IOF_pull(&all, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
    IT_CHECK(rc >= 0, "pull: %s", PMIx_Error_string(rc));
    ids[E] = (size_t)rc;
    hang = true;
    put_file("go", 1, "", 0);
    double t0 = it_now();
    while (got_len(E, 0, 0) + got_len(E, 1, 0) + got_len(E, 2, 0) == 0) {
        if (it_now() - t0 > 60) /* nothing came (the test expects that without the tap) */
            exit(3);
        it_sleep_ms(10);
    }
    put_file("hung", -1, "", 0);
    for (;;)
        pause(); /* killed by the test */
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "job") == 0) {
        dir = argv[2];
        return job(strtoul(argv[3], NULL, 10));
    }
    if (argc == 5 && strcmp(argv[1], "tool") == 0) {
        dir = argv[2];
        return tool(argv[3], strtoul(argv[4], NULL, 10));
    }
    if (argc == 4 && strcmp(argv[1], "hang") == 0) {
        dir = argv[2];
        return hang_tool(argv[3]);
    }
    if (argc == 4 && strcmp(argv[1], "emit") == 0) {
        size_t size = strtoul(argv[2], NULL, 10);
        char *data = lines_of(0, size);
        dir = ".";
        FILE *f = fopen(argv[3], "wb");
        IT_CHECK(f && fwrite(data, 1, size, f) == size, "write %s", argv[3]);
        fclose(f);
        write_all(1, data, size);
        free(data);
        return 0;
    }
    fprintf(stderr, "usage: it_iofpull job DIR SIZE | tool DIR NSPACE SIZE | hang DIR NSPACE | "
                    "emit SIZE FILE\n");
    return 2;
}
