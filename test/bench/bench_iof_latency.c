/* bench_iof_latency.c - round-trip latency of small writes into a task's
 * stdin, through PMIx_IOF_push or through a plain pipe (srun's own stdin), for
 * test/bench/run_iof_slurm.sh.
 *
 * The task copies its stdin into a FIFO (`cat > FIFO`); this program writes
 * SIZE bytes (a line) into the task's stdin, then reads SIZE bytes back from
 * the FIFO, COUNT times, and prints the median, 90th and 99th percentile of
 * the round trip in microseconds:
 *   bench_iof_latency push SERVER_NSPACE JOB_NSPACE RANK FIFO COUNT SIZE
 *       a PMIx tool of the server named SERVER_NSPACE, pushing to JOB_NSPACE
 *       rank RANK with the blocking PMIx_IOF_push; an EOF push at the end
 *   bench_iof_latency pipe FIFO COUNT SIZE
 *       writes to its stdout (e.g. srun's stdin); closes it at the end
 * Output, one line on stderr (stdout may be the task's stdin): "MODE n=COUNT size=SIZE median_us=M p90_us=A p99_us=B".
 */
#include <errno.h>
#include <fcntl.h>
#include <pmix_tool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_iof_latency: %s: %s\n", what, why);
    exit(1);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Reads exactly n bytes from fd; the task echoing them must not end first. */
static void read_exact(int fd, char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            die("reading the FIFO", r == 0 ? "the task closed it early" : strerror(errno));
        got += (size_t)r;
    }
}

static void write_exact(int fd, const char *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("writing stdin", strerror(errno));
        done += (size_t)w;
    }
}

int main(int argc, char **argv)
{
    int push = argc == 8 && strcmp(argv[1], "push") == 0;
    if (!push && !(argc == 5 && strcmp(argv[1], "pipe") == 0)) {
        fprintf(stderr, "usage: bench_iof_latency push SERVER_NSPACE JOB_NSPACE RANK FIFO COUNT SIZE\n"
                        "       bench_iof_latency pipe FIFO COUNT SIZE\n");
        return 2;
    }
    const char *fifo = argv[push ? 5 : 2];
    long count = atol(argv[push ? 6 : 3]), size = atol(argv[push ? 7 : 4]);
    if (count < 1 || count > 1000000 || size < 1 || size > 65536)
        die("arguments", "COUNT 1..1000000, SIZE 1..65536");

    pmix_proc_t me, target;
    if (push) {
        pmix_info_t srv;
        PMIX_INFO_LOAD(&srv, PMIX_SERVER_NSPACE, argv[2], PMIX_STRING);
        pmix_status_t rc = PMIx_tool_init(&me, &srv, 1);
        PMIX_INFO_DESTRUCT(&srv);
        if (rc != PMIX_SUCCESS)
            die("PMIx_tool_init", PMIx_Error_string(rc));
        PMIX_LOAD_PROCID(&target, argv[3], (pmix_rank_t)atol(argv[4]));
    }
    /* blocks until the task opened its end */
    int in = open(fifo, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        die(fifo, strerror(errno));

    char *line = malloc((size_t)size), *back = malloc((size_t)size);
    double *us = malloc(sizeof(double) * (size_t)count);
    if (!line || !back || !us)
        die("memory", "out of memory");
    memset(line, 'x', (size_t)size);
    line[size - 1] = '\n';
    for (long i = 0; i < count; i++) {
        double t0 = now_us();
        if (push) {
            pmix_byte_object_t bo = {.bytes = line, .size = (size_t)size};
            pmix_status_t rc = PMIx_IOF_push(&target, 1, &bo, NULL, 0, NULL, NULL);
            if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
                die("PMIx_IOF_push", PMIx_Error_string(rc));
        } else {
            write_exact(1, line, (size_t)size);
        }
        read_exact(in, back, (size_t)size);
        us[i] = now_us() - t0;
        if (memcmp(back, line, (size_t)size) != 0)
            die("the FIFO", "the bytes read back differ from those written");
    }
    if (push) {
        pmix_byte_object_t none = {.bytes = NULL, .size = 0};
        pmix_status_t rc = PMIx_IOF_push(&target, 1, &none, NULL, 0, NULL, NULL);
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
            die("PMIx_IOF_push (EOF)", PMIx_Error_string(rc));
        PMIx_tool_finalize();
    } else {
        close(1);
    }
    qsort(us, (size_t)count, sizeof(double), cmp_double);
    fprintf(stderr, "%s n=%ld size=%ld median_us=%.0f p90_us=%.0f p99_us=%.0f\n", push ? "push" : "pipe",
           count, size, us[count / 2], us[count * 9 / 10], us[count * 99 / 100]);
    close(in);
    free(line);
    free(back);
    free(us);
    return 0;
}
