/* bench_pmi.c - a small client of the PMI wire protocols (MPICH's simple
 * PMI-1 and PMI-2 over PMI_FD) for test/slurm/bench_pmi.sh, run under
 * srun --mpi=spmix and srun --mpi=pmi2 (Slurm's plugin serves both on
 * PMI_FD). No PMI library: the commands are written by hand.
 *
 * Usage: bench_pmi v1|v2 N. After init (PMI-1: init, get_maxes,
 * get_my_kvsname; PMI-2: the init line, fullinit, job-getid) it times
 *   barrier  N barriers (PMI-1 barrier_in, PMI-2 kvs-fence), after 5;
 *   pg64     N rounds of: put 64 B under a new key, barrier, get the value
 *            of the next rank (checked), after 3;
 *   pg8k     the same with 8 KiB per rank, in 512-byte values (8192 B in
 *            16 keys: Slurm's mpi/pmi2 reads a PMI-1 line of at most 1024
 *            bytes);
 * then checks that a barrier synchronises (the last rank enters 0.2 s late,
 * every other must wait >= 0.18 s) and finalizes. Rank 0 prints
 * "init MS", "barrier US", "pg64 US", "pg8k US" (medians of its own
 * rounds) and every rank "sync ok" or "sync FAIL"; a wrong answer or value
 * prints "FAIL ..." on stderr and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 512
static int fd, rank, size, v2;
static char kvsname[256];
static char reply[16384];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "FAIL rank %d: %s %s\n", rank, what, detail ? detail : "");
    exit(1);
}

static void write_all(const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("write to PMI_FD failed", NULL);
        p += w;
        n -= (size_t)w;
    }
}

/* Bytes read from PMI_FD and not taken yet (answers are read in blocks). */
static char inbuf[32768];
static size_t inpos, inlen;

static void fill_in(void)
{
    if (inpos == inlen)
        inpos = inlen = 0;
    for (;;) {
        ssize_t r = read(fd, inbuf + inlen, sizeof(inbuf) - inlen);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            die("read from PMI_FD failed", NULL);
        inlen += (size_t)r;
        return;
    }
}

static void read_n(char *p, size_t n)
{
    while (n) {
        if (inpos == inlen)
            fill_in();
        size_t k = inlen - inpos < n ? inlen - inpos : n;
        memcpy(p, inbuf + inpos, k);
        inpos += k;
        p += k;
        n -= k;
    }
}

/* Sends one command (PMI-1 line or PMI-2 message, as mode says) and reads
 * one answer into reply (NUL-terminated, without '\n' or header). */
static void cmd(int as_v2, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cmd(int as_v2, const char *fmt, ...)
{
    static char msg[16384];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg + 6, sizeof(msg) - 7, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof(msg) - 8)
        die("command too long", NULL);
    if (as_v2) {
        char hdr[8];
        snprintf(hdr, sizeof(hdr), "%-6d", n);
        memcpy(msg, hdr, 6);
        write_all(msg, (size_t)n + 6);
        char h[7] = { 0 };
        read_n(h, 6);
        long len = strtol(h, NULL, 10);
        if (len <= 0 || len >= (long)sizeof(reply))
            die("bad PMI-2 answer header", h);
        read_n(reply, (size_t)len);
        reply[len] = '\0';
        return;
    }
    msg[6 + n] = '\n';
    write_all(msg + 6, (size_t)n + 1);
    size_t got = 0;
    for (;;) {
        if (inpos == inlen)
            fill_in();
        char ch = inbuf[inpos++];
        if (ch == '\n')
            break;
        if (got + 1 >= sizeof(reply))
            die("PMI-1 answer too long", NULL);
        reply[got++] = ch;
    }
    reply[got] = '\0';
}

/* The value of key in reply ("key=" after a separator), copied to out. */
static const char *field(const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = reply; (p = strstr(p, key)); p++) {
        if ((p != reply && p[-1] != ' ' && p[-1] != ';') || p[kl] != '=')
            continue;
        p += kl + 1;
        size_t i = 0;
        while (*p && *p != (v2 ? ';' : ' ') && i + 1 < cap)
            out[i++] = *p++;
        out[i] = '\0';
        return out;
    }
    return NULL;
}

static void expect_rc0(const char *what)
{
    char rc[16];
    if (!field("rc", rc, sizeof(rc)) || strcmp(rc, "0") != 0)
        die(what, reply);
}

static void barrier(void)
{
    char rc[16];
    if (v2)
        cmd(1, "cmd=kvs-fence;");
    else
        cmd(0, "cmd=barrier_in");
    /* a barrier_out may come without rc */
    if (!v2 && strncmp(reply, "cmd=barrier_out", 15) == 0 && !field("rc", rc, sizeof(rc)))
        return;
    expect_rc0("barrier");
}

static void fill(char *v, size_t n, int r, int round, int chunk)
{
    for (size_t i = 0; i < n; i++)
        v[i] = "0123456789ABCDEF"[(unsigned)(r * 31 + round * 7 + chunk * 3 + (int)i) % 16];
    v[n] = '\0';
}

/* One round: put `bytes` under new keys, barrier, get and check the next rank's. */
static void put_fence_get(size_t bytes, int round)
{
    static char val[CHUNK + 1], want[CHUNK + 1], got[CHUNK + 8];
    int chunks = (int)((bytes + CHUNK - 1) / CHUNK);
    for (int c = 0; c < chunks; c++) {
        size_t n = bytes - (size_t)c * CHUNK < CHUNK ? bytes - (size_t)c * CHUNK : CHUNK;
        fill(val, n, rank, round, c);
        if (v2)
            cmd(1, "cmd=kvs-put;key=b%zu-%d-%d-%d;value=%s;", bytes, round, c, rank, val);
        else
            cmd(0, "cmd=put kvsname=%s key=b%zu-%d-%d-%d value=%s", kvsname, bytes, round, c,
                rank, val);
        expect_rc0("put");
    }
    barrier();
    int peer = (rank + 1) % size;
    for (int c = 0; c < chunks; c++) {
        size_t n = bytes - (size_t)c * CHUNK < CHUNK ? bytes - (size_t)c * CHUNK : CHUNK;
        if (v2)
            cmd(1, "cmd=kvs-get;jobid=%s;srcid=%d;key=b%zu-%d-%d-%d;", kvsname, peer, bytes, round,
                c, peer);
        else
            cmd(0, "cmd=get kvsname=%s key=b%zu-%d-%d-%d", kvsname, bytes, round, c, peer);
        expect_rc0("get");
        fill(want, n, peer, round, c);
        if (!field("value", got, sizeof(got)) || strcmp(got, want) != 0)
            die("wrong value from get:", reply);
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    double t0 = now();
    const char *e_fd = getenv("PMI_FD"), *e_rank = getenv("PMI_RANK"), *e_size = getenv("PMI_SIZE");
    if (argc != 3 || (strcmp(argv[1], "v1") && strcmp(argv[1], "v2"))) {
        fprintf(stderr, "usage: bench_pmi v1|v2 N\n");
        return 2;
    }
    if (!e_fd || !e_rank || !e_size)
        die("PMI_FD, PMI_RANK or PMI_SIZE missing", NULL);
    fd = atoi(e_fd);
    rank = atoi(e_rank);
    size = atoi(e_size);
    int iters = atoi(argv[2]);
    if (iters < 1 || iters > 100000)
        iters = 50;
    if (strcmp(argv[1], "v2") == 0) {
        cmd(0, "cmd=init pmi_version=2 pmi_subversion=0");
        expect_rc0("init");
        v2 = 1;
        const char *jobid = getenv("PMI_JOBID");
        cmd(1, "cmd=fullinit;pmijobid=%s;pmirank=%d;threaded=FALSE;", jobid ? jobid : "0", rank);
        expect_rc0("fullinit");
        cmd(1, "cmd=job-getid;");
        expect_rc0("job-getid");
        if (!field("jobid", kvsname, sizeof(kvsname)))
            die("no jobid", reply);
    } else {
        cmd(0, "cmd=init pmi_version=1 pmi_subversion=1");
        expect_rc0("init");
        cmd(0, "cmd=get_maxes");
        expect_rc0("get_maxes");
        cmd(0, "cmd=get_my_kvsname");
        expect_rc0("get_my_kvsname");
        if (!field("kvsname", kvsname, sizeof(kvsname)))
            die("no kvsname", reply);
    }
    double init_ms = (now() - t0) * 1e3;
    double *t = calloc((size_t)iters, sizeof(*t));
    if (!t)
        return 1;
    for (int i = 0; i < 5; i++)
        barrier();
    for (int i = 0; i < iters; i++) {
        double a = now();
        barrier();
        t[i] = (now() - a) * 1e6;
    }
    double bar = median(t, iters);
    double pg[2];
    size_t sizes[2] = { 64, 8192 };
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < 3; i++)
            put_fence_get(sizes[s], -1 - i);
        for (int i = 0; i < iters; i++) {
            double a = now();
            put_fence_get(sizes[s], i);
            t[i] = (now() - a) * 1e6;
        }
        pg[s] = median(t, iters);
    }
    free(t);
    /* a barrier must hold everybody until the last rank enters */
    barrier();
    if (rank == size - 1)
        usleep(200000);
    double a = now();
    barrier();
    double waited = now() - a;
    if (rank == 0)
        printf("init %.3f ms\nbarrier %.1f us\npg64 %.1f us\npg8k %.1f us\n", init_ms, bar, pg[0],
               pg[1]);
    printf("sync %s rank %d waited %.3f s\n", rank == size - 1 || waited >= 0.18 ? "ok" : "FAIL",
           rank, waited);
    fflush(stdout);
    cmd(v2, v2 ? "cmd=finalize;" : "cmd=finalize");
    expect_rc0("finalize");
    return 0;
}
