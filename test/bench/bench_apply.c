/* bench_apply.c - what a node's server spends on a collecting fence's result,
 * by the number of ranks in it (a measured point of the cost model:
 * test/bench/cost_model.py, doc/scale.md "Cost model and projection").
 *
 * For each count M given (default 1000 10000 100000 1000000): writes the
 * record stream of M ranks with one value each (64 bytes, or -v BYTES) under the key
 * "bench.model.0" (proto/records.h, as the servers' contributions are
 * concatenated into a fence's result), then times, on the CPU clock of this
 * thread, reading it into a fresh store (spx_records_apply: decode every
 * value and put it, as op_deliver does at every node), and prints
 *   bench_apply: ranks M bytes B apply_cpu_us T per_rank_ns X per_byte_ns Y heap_per_rank H value V
 * where H is the heap the filled store holds per rank (glibc mallinfo2; 0
 * elsewhere). Usage:
 *   bench_apply [-v BYTES] [M...]
 */
#include "config.h"

#include "proto/records.h"
#include "store/store.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static double cpu_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static size_t heap_bytes(void)
{
#ifdef __GLIBC__
    return mallinfo2().uordblks;
#else
    return 0;
#endif
}

static size_t value_len = 64;

static int one(long m)
{
    const char *ns = "slurm.spmix.123456.0"; /* a namespace name of the plugin's length */
    spx_store_t *src = spx_store_create();
    spx_buf_t b;
    spx_buf_init(&b);
    if (!src)
        return -1;
    char *bytes = malloc(value_len);
    if (!bytes)
        return -1;
    pmix_value_t v = {.type = PMIX_BYTE_OBJECT};
    v.data.bo.bytes = bytes;
    v.data.bo.size = value_len;
    /* one source store per rank would cost the same; one put, re-encoded per rank */
    for (long r = 0; r < m; r++) {
        memset(bytes, (int)(r & 0xff), value_len);
        if (spx_store_put(src, ns, (pmix_rank_t)r, "bench.model.0", &v, PMIX_GLOBAL) != PMIX_SUCCESS)
            return -1;
        spx_records_push_proc(&b, src, ns, (pmix_rank_t)r, 0, SPX_SCOPES_REMOTE, false, NULL);
    }
    spx_store_destroy(src);
    free(bytes);
    if (spx_buf_failed(&b))
        return -1;
    spx_store_t *dst = spx_store_create();
    if (!dst)
        return -1;
    size_t heap0 = heap_bytes();
    spx_buf_t in;
    spx_buf_init_borrowed(&in, b.data, b.len);
    double t0 = cpu_us();
    int rc = spx_records_apply(&in, dst, NULL, NULL);
    double t1 = cpu_us();
    size_t heap1 = heap_bytes();
    spx_buf_fini(&in);
    if (rc != 0) {
        fprintf(stderr, "bench_apply: the stream of %ld ranks did not apply\n", m);
        return -1;
    }
    printf("bench_apply: ranks %ld bytes %zu apply_cpu_us %.0f per_rank_ns %.1f per_byte_ns %.3f "
           "heap_per_rank %.0f value %zu\n",
           m, b.len, t1 - t0, (t1 - t0) * 1e3 / (double)m, (t1 - t0) * 1e3 / (double)b.len,
           heap1 > heap0 ? (double)(heap1 - heap0) / (double)m : 0.0, value_len);
    fflush(stdout);
    spx_store_destroy(dst);
    spx_buf_fini(&b);
    return 0;
}

int main(int argc, char **argv)
{
    static const long dflt[] = {1000, 10000, 100000, 1000000};
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "-v") == 0) {
        long v = strtol(argv[2], NULL, 10);
        if (v < 1 || v > (16L << 20)) {
            fprintf(stderr, "bench_apply: -v takes 1 .. 16 MiB\n");
            return 2;
        }
        value_len = (size_t)v;
        first = 3;
    }
    int n = argc > first ? argc - first : (int)(sizeof(dflt) / sizeof(dflt[0]));
    for (int i = 0; i < n; i++) {
        long m = argc > first ? strtol(argv[first + i], NULL, 10) : dflt[i];
        if (m < 1 || m > 100000000L || one(m) != 0)
            return 1;
    }
    return 0;
}
