/*
 * ompi_check.c - an ordinary MPI program, built with Debian's mpicc.openmpi
 * and run unchanged under `srun --mpi=spmix` by test/slurm/test_openmpi.sh.
 *
 * Usage: ompi_check hello|ring|allreduce|alltoall|abort
 * Every mode first checks, after MPI_Init, that the libpmix.so.2 mapped into
 * the process (Open MPI's pmix component loads it while MPI_Init runs) lives
 * in the directory named by SPMIX_EXPECT_LIBDIR, and that no other libpmix is
 * mapped; a process that runs on someone else's PMIx fails. Each mode then
 * verifies its result on every rank and rank 0 prints one line
 * "<mode> ok size N ..." only when every rank agreed (MPI_Allreduce of a
 * per-rank ok flag). Any failure prints "FAIL ..." to stderr and ends the job
 * with MPI_Abort(…, 3). The abort mode has rank 1 (or 0 in a 1-rank job)
 * call MPI_Abort(MPI_COMM_WORLD, 5) while every other rank waits in a
 * receive that never completes; the others print "waiting" first so the
 * test can tell they had started.
 */
#include <mpi.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me, np;

static void die(const char *what)
{
    fprintf(stderr, "FAIL rank %d: %s\n", me, what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

/* Checks that exactly the expected libpmix is mapped; fills where (caller's
 * buffer) with the path found. Returns 1 when it is ours. */
static int check_libpmix(char *where, size_t wlen)
{
    const char *want = getenv("SPMIX_EXPECT_LIBDIR");
    char wantreal[PATH_MAX], line[PATH_MAX + 256];
    int ours = 0, foreign = 0;
    FILE *f;

    snprintf(where, wlen, "none");
    if (want == NULL || realpath(want, wantreal) == NULL)
        return 0;
    f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *path = strchr(line, '/'), *slash;
        size_t dl;
        if (path == NULL || strstr(path, "/libpmix.so") == NULL)
            continue;
        path[strcspn(path, "\n")] = '\0';
        slash = strrchr(path, '/');
        dl = (size_t)(slash - path);
        snprintf(where, wlen, "%s", path);
        if (dl == strlen(wantreal) && strncmp(path, wantreal, dl) == 0)
            ours = 1;
        else
            foreign = 1;
    }
    fclose(f);
    return ours && !foreign;
}

static int all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

static int do_hello(void)
{
    int flag = 0, *sizes = NULL, *ranks = NULL, ok = 1;
    char msg[64];

    MPI_Initialized(&flag);
    if (!flag || me < 0 || me >= np)
        return 0;
    if (me == 0) {
        sizes = malloc(sizeof(int) * (size_t)np);
        ranks = malloc(sizeof(int) * (size_t)np);
        if (sizes == NULL || ranks == NULL)
            die("malloc");
    }
    MPI_Gather(&np, 1, MPI_INT, sizes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&me, 1, MPI_INT, ranks, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0) {
        for (int i = 0; i < np; i++)
            if (sizes[i] != np || ranks[i] != i) {
                snprintf(msg, sizeof(msg), "hello: slot %d says rank %d size %d", i, ranks[i], sizes[i]);
                fprintf(stderr, "FAIL %s\n", msg);
                ok = 0;
            }
        free(sizes);
        free(ranks);
    }
    return ok;
}

/* A token goes twice round the ring; each hop adds the receiver's rank + 1. */
static int do_ring(long *out)
{
    long tok = 0, want = 2L * np * (np + 1) / 2;
    int next = (me + 1) % np, prev = (me + np - 1) % np;

    if (np == 1) {
        *out = want;
        return 1;
    }
    for (int lap = 0; lap < 2; lap++) {
        if (me == 0) {
            if (lap == 0)
                tok = 1;    /* rank 0's own contribution for lap 0 */
            MPI_Send(&tok, 1, MPI_LONG, next, 10 + lap, MPI_COMM_WORLD);
            MPI_Recv(&tok, 1, MPI_LONG, prev, 10 + lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (lap == 0)
                tok += 1;   /* and for lap 1 */
        } else {
            MPI_Recv(&tok, 1, MPI_LONG, prev, 10 + lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            tok += me + 1;
            MPI_Send(&tok, 1, MPI_LONG, next, 10 + lap, MPI_COMM_WORLD);
        }
    }
    /* rank 0 holds the token; everyone learns it */
    MPI_Bcast(&tok, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    *out = tok;
    return tok == want;
}

static int do_allreduce(long *out)
{
    long v[3] = { me + 1, (long)me * me, me == np - 1 ? 7 : 0 }, s[3] = { 0, 0, 0 };
    long n = np;

    MPI_Allreduce(v, s, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    *out = s[0];
    return s[0] == n * (n + 1) / 2 && s[1] == (n - 1) * n * (2 * n - 1) / 6 && s[2] == 7;
}

/* Element j sent by rank i is i * 100000 + j * 10 + 3; rank j checks the np
 * values it received, K per peer. */
static int do_alltoall(void)
{
    enum { K = 4 };
    int *sb = malloc(sizeof(int) * (size_t)np * K), *rb = malloc(sizeof(int) * (size_t)np * K);
    int ok = 1;

    if (sb == NULL || rb == NULL)
        die("malloc");
    for (int j = 0; j < np; j++)
        for (int k = 0; k < K; k++)
            sb[j * K + k] = me * 100000 + j * 10 + k;
    memset(rb, 0xff, sizeof(int) * (size_t)np * K);
    MPI_Alltoall(sb, K, MPI_INT, rb, K, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < np; i++)
        for (int k = 0; k < K; k++)
            if (rb[i * K + k] != i * 100000 + me * 10 + k) {
                fprintf(stderr, "FAIL rank %d: alltoall element from %d [%d] = %d\n", me, i, k, rb[i * K + k]);
                ok = 0;
            }
    free(sb);
    free(rb);
    return ok;
}

int main(int argc, char **argv)
{
    char lib[PATH_MAX + 64], host[256] = "?";
    const char *mode = argc > 1 ? argv[1] : "hello";
    int ok, libok;
    long val = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    gethostname(host, sizeof(host));
    libok = check_libpmix(lib, sizeof(lib));
    if (!libok)
        fprintf(stderr, "FAIL rank %d on %s: libpmix mapped is %s, expected in %s\n", me, host, lib,
                getenv("SPMIX_EXPECT_LIBDIR") ? getenv("SPMIX_EXPECT_LIBDIR") : "(SPMIX_EXPECT_LIBDIR unset)");
    if (!all_ok(libok))
        die("not every rank runs on the expected libpmix.so.2");

    if (strcmp(mode, "hello") == 0) {
        ok = do_hello();
    } else if (strcmp(mode, "ring") == 0) {
        ok = do_ring(&val);
    } else if (strcmp(mode, "allreduce") == 0) {
        ok = do_allreduce(&val);
    } else if (strcmp(mode, "alltoall") == 0) {
        ok = do_alltoall();
    } else if (strcmp(mode, "abort") == 0) {
        int victim = np > 1 ? 1 : 0, dummy;
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == victim) {
            usleep(200000);
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
        printf("waiting rank %d\n", me);
        fflush(stdout);
        MPI_Recv(&dummy, 1, MPI_INT, victim, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("UNEXPECTED rank %d got past the abort\n", me);
        MPI_Finalize();
        return 0;
    } else {
        die("unknown mode");
        return 3;
    }
    if (!ok)
        fprintf(stderr, "FAIL rank %d on %s: %s check failed (value %ld)\n", me, host, mode, val);
    if (!all_ok(ok))
        die("result check failed");
    if (me == 0) {
        printf("%s ok size %d", mode, np);
        if (val != 0)
            printf(" value %ld", val);
        printf(" lib %s\n", lib);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
