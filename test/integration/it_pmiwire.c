/* it_pmiwire.c - a client of the PMI wire protocols themselves (no
 * library): under spmix-run, on the PMI_FD the server gave it.
 *   it_pmiwire v1   PMI-1: init, maxes, kvsname, universe size, put, barrier,
 *                   get of every rank's key (and a missing one), the
 *                   process mapping, a second round, finalize
 *   it_pmiwire v2   PMI-2: init then fullinit, job-getid, kvs-put / -fence /
 *                   -get, node attributes, job attribute, finalize
 *   it_pmiwire bad  an unknown command gets rc=-1; an over-long line closes
 *                   the connection (EOF here)
 * Prints "ok <mode> <rank>" on success; exits 1 with a reason otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd = -1, rank = -1, size = -1;

static void die(const char *what, const char *got)
{
    fprintf(stderr, "it_pmiwire rank %d: %s (got \"%s\")\n", rank, what, got ? got : "");
    exit(1);
}

static void wr(const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            die("write failed", strerror(errno));
        s += w;
        n -= (size_t)w;
    }
}

/* PMI-1: one line out, one line back (without '\n'); NULL on EOF. */
static char *v1(const char *fmt, const char *a, const char *b, const char *c)
{
    static char line[8192];
    char out[8192];
    snprintf(out, sizeof(out), fmt, a, b, c);
    wr(out, strlen(out));
    size_t n = 0;
    while (n < sizeof(line) - 1) {
        ssize_t r = read(fd, line + n, 1);
        if (r <= 0)
            return NULL;
        if (line[n] == '\n')
            break;
        n++;
    }
    line[n] = '\0';
    return line;
}

/* PMI-2: a length-prefixed message out, one back. */
static char *v2(const char *fmt, const char *a, const char *b)
{
    static char msg[8192];
    char body[8000], out[8192];
    int n = snprintf(body, sizeof(body), fmt, a, b);
    snprintf(out, sizeof(out), "%-6d%s", n, body);
    wr(out, strlen(out));
    char hdr[7] = {0};
    if (read(fd, hdr, 6) != 6)
        die("no PMI-2 answer", NULL);
    long len = strtol(hdr, NULL, 10);
    if (len <= 0 || len >= (long)sizeof(msg))
        die("bad PMI-2 length", hdr);
    for (long got = 0; got < len;) {
        ssize_t r = read(fd, msg + got, (size_t)(len - got));
        if (r <= 0)
            die("short PMI-2 answer", NULL);
        got += r;
    }
    msg[len] = '\0';
    return msg;
}

/* The value of key in an answer (space or ';' separated). */
static const char *val(const char *line, const char *key, char sep)
{
    static char v[4096];
    size_t kl = strlen(key);
    for (const char *p = line; p && *p; p = strchr(p, sep), p = p ? p + 1 : NULL)
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t n = strcspn(p + kl + 1, sep == ' ' ? " " : ";");
            snprintf(v, sizeof(v), "%.*s", (int)n, p + kl + 1);
            return v;
        }
    return NULL;
}

static void expect(const char *line, const char *key, const char *want, char sep)
{
    const char *v = line ? val(line, key, sep) : NULL;
    if (!v || strcmp(v, want) != 0) {
        char what[256];
        snprintf(what, sizeof(what), "expected %s=%s", key, want);
        die(what, line);
    }
}

static void run_v1(void)
{
    char key[64], value[64], rs[16];
    expect(v1("cmd=init pmi_version=1 pmi_subversion=1\n", 0, 0, 0), "rc", "0", ' ');
    char *l = v1("cmd=get_maxes\n", 0, 0, 0);
    expect(l, "cmd", "maxes", ' ');
    l = v1("cmd=get_my_kvsname\n", 0, 0, 0);
    expect(l, "kvsname", getenv("PMI_JOBID"), ' ');
    char kvs[300];
    snprintf(kvs, sizeof(kvs), "%s", val(l, "kvsname", ' '));
    snprintf(rs, sizeof(rs), "%d", size);
    expect(v1("cmd=get_universe_size\n", 0, 0, 0), "size", rs, ' ');
    expect(v1("cmd=get_appnum\n", 0, 0, 0), "appnum", "0", ' ');
    for (int round = 0; round < 2; round++) {
        snprintf(key, sizeof(key), "wire-r%d-%d", round, rank);
        snprintf(value, sizeof(value), "v%d=%d", round, rank * 7);
        expect(v1("cmd=put kvsname=%s key=%s value=%s\n", kvs, key, value), "rc", "0", ' ');
        expect(v1("cmd=barrier_in\n", 0, 0, 0), "cmd", "barrier_out", ' ');
        for (int r = 0; r < size; r++) {
            snprintf(key, sizeof(key), "wire-r%d-%d", round, r);
            snprintf(value, sizeof(value), "v%d=%d", round, r * 7);
            l = v1("cmd=get kvsname=%s key=%s\n", kvs, key, 0);
            expect(l, "rc", "0", ' ');
            expect(l, "value", value, ' ');
        }
    }
    expect(v1("cmd=get kvsname=%s key=%s\n", kvs, "no-such-key", 0), "rc", "-1", ' ');
    l = v1("cmd=get kvsname=%s key=PMI_process_mapping\n", kvs, 0, 0);
    expect(l, "rc", "0", ' ');
    if (strncmp(val(l, "value", ' '), "(vector,(", 9) != 0)
        die("process mapping", l);
    if (rank == 0)
        printf("mapping %s\n", val(l, "value", ' '));
    expect(v1("cmd=finalize\n", 0, 0, 0), "cmd", "finalize_ack", ' ');
}

static void run_v2(void)
{
    char key[64], value[64], rs[16], me[16];
    expect(v1("cmd=init pmi_version=2 pmi_subversion=0\n", 0, 0, 0), "rc", "0", ' ');
    snprintf(me, sizeof(me), "%d", rank);
    char *l = v2("cmd=fullinit;pmirank=%s;threaded=FALSE;", me, 0);
    expect(l, "rc", "0", ';');
    snprintf(rs, sizeof(rs), "%d", size);
    expect(l, "size", rs, ';');
    expect(l, "rank", me, ';');
    expect(v2("cmd=job-getid;", 0, 0), "jobid", getenv("PMI_JOBID"), ';');
    snprintf(key, sizeof(key), "k2-%d", rank);
    snprintf(value, sizeof(value), "semi;;colon=%d", rank); /* ";;" is an escaped ';' */
    expect(v2("cmd=kvs-put;key=%s;value=%s;", key, value), "rc", "0", ';');
    char nkey[32], nval[32];
    snprintf(nkey, sizeof(nkey), "nattr-%d", rank);
    snprintf(nval, sizeof(nval), "n%d", rank);
    expect(v2("cmd=info-putnodeattr;key=%s;value=%s;", nkey, nval), "rc", "0", ';');
    expect(v2("cmd=kvs-fence;", 0, 0), "cmd", "kvs-fence-response", ';');
    for (int r = 0; r < size; r++) {
        char want[64], src[16];
        snprintf(key, sizeof(key), "k2-%d", r);
        snprintf(src, sizeof(src), "%d", r);
        snprintf(want, sizeof(want), "semi");   /* the answer escapes it again: "semi;;colon" */
        l = v2("cmd=kvs-get;key=%s;srcid=%s;", key, src);
        expect(l, "found", "TRUE", ';');
        snprintf(want, sizeof(want), "semi;;colon=%d;", r);
        if (!strstr(l, want))
            die("PMI-2 value with ';'", l);
    }
    expect(v2("cmd=kvs-get;key=%s;", "none-such", 0), "found", "FALSE", ';');
    l = v2("cmd=info-getjobattr;key=PMI_process_mapping;", 0, 0);
    expect(l, "found", "TRUE", ';');
    l = v2("cmd=info-getnodeattr;key=%s;wait=TRUE;", nkey, 0);
    expect(l, "value", nval, ';');
    /* node attributes are each node's own: rank 0's is seen on its node only */
    l = v2("cmd=info-getnodeattr;key=nattr-0;wait=FALSE;", 0, 0);
    if (strcmp(val(l, "found", ';'), "TRUE") == 0)
        expect(l, "value", "n0", ';');
    expect(v2("cmd=no-such-command;", 0, 0), "rc", "-1", ';');
    expect(v2("cmd=finalize;", 0, 0), "cmd", "finalize-response", ';');
}

static void run_bad(void)
{
    expect(v1("cmd=init pmi_version=1 pmi_subversion=1\n", 0, 0, 0), "rc", "0", ' ');
    expect(v1("cmd=no_such_command a=b\n", 0, 0, 0), "rc", "-1", ' ');
    expect(v1("cmd=put kvsname=x key=%s value=\n", "", 0, 0), "rc", "-1", ' ');
    static char big[6000];
    memset(big, 'x', sizeof(big) - 1);
    if (v1("cmd=put kvsname=x key=k value=%s\n", big, 0, 0) != NULL)
        die("an over-long line was answered", NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "v1";
    const char *s;
    if (!(s = getenv("PMI_FD")) || !getenv("PMI_RANK") || !getenv("PMI_SIZE") ||
        !getenv("PMI_JOBID") || !getenv("PMI_SPAWNED"))
        die("PMI_FD, PMI_RANK, PMI_SIZE, PMI_JOBID or PMI_SPAWNED missing", NULL);
    fd = atoi(s);
    rank = atoi(getenv("PMI_RANK"));
    size = atoi(getenv("PMI_SIZE"));
    if (strcmp(mode, "v1") == 0)
        run_v1();
    else if (strcmp(mode, "v2") == 0)
        run_v2();
    else
        run_bad();
    printf("ok %s %d\n", mode, rank);
    return 0;
}
