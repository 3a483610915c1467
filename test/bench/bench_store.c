/* bench_store.c - throughput of the key/value store.
 *
 * Puts then gets 1e6 operations (default) spread round-robin over 1000
 * processes x 16 keys, each value a 64-byte byte object (so every put
 * replaces a live value after the first 16000), and prints puts/s and gets/s
 * for both the copying get and the borrowing peek.
 * Usage: bench_store [ops] [procs] [keys]
 */
#include "config.h"

#include "store/store.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long arg_or(int argc, char **argv, int i, long dflt)
{
    if (argc <= i)
        return dflt;
    long v = strtol(argv[i], NULL, 10);
    return v > 0 && v <= 100000000L ? v : dflt;
}

int main(int argc, char **argv)
{
    long ops = arg_or(argc, argv, 1, 1000000);
    long nprocs = arg_or(argc, argv, 2, 1000);
    long nkeys = arg_or(argc, argv, 3, 16);
    spx_store_t *s = spx_store_create();
    if (!s)
        return 1;
    char (*keys)[48] = calloc((size_t)nkeys, sizeof(*keys));
    if (!keys)
        return 1;
    for (long k = 0; k < nkeys; k++)
        snprintf(keys[k], sizeof(keys[k]), "spmix.bench.key.%ld", k);
    const char *ns = "bench-job-0123456789";

    unsigned char bytes[64];
    memset(bytes, 0x5a, sizeof(bytes));
    pmix_value_t v;
    memset(&v, 0, sizeof(v));
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)bytes;
    v.data.bo.size = sizeof(bytes);

    double t0 = now_s();
    for (long i = 0; i < ops; i++) {
        pmix_rank_t r = (pmix_rank_t)(i % nprocs);
        long k = (i / nprocs) % nkeys;
        if (spx_store_put(s, ns, r, keys[k], &v, PMIX_GLOBAL) != PMIX_SUCCESS) {
            fprintf(stderr, "put failed at %ld\n", i);
            return 1;
        }
    }
    double t_put = now_s() - t0;

    t0 = now_s();
    size_t check = 0;
    for (long i = 0; i < ops; i++) {
        pmix_rank_t r = (pmix_rank_t)(i % nprocs);
        long k = (i / nprocs) % nkeys;
        pmix_value_t *out = NULL;
        if (spx_store_get(s, ns, r, keys[k], &out) != PMIX_SUCCESS) {
            fprintf(stderr, "get failed at %ld\n", i);
            return 1;
        }
        check += out->data.bo.size;
        PMIX_VALUE_RELEASE(out);
    }
    double t_get = now_s() - t0;

    t0 = now_s();
    for (long i = 0; i < ops; i++) {
        pmix_rank_t r = (pmix_rank_t)(i % nprocs);
        long k = (i / nprocs) % nkeys;
        const pmix_value_t *pv = spx_store_peek(s, ns, r, keys[k], NULL);
        if (!pv) {
            fprintf(stderr, "peek failed at %ld\n", i);
            return 1;
        }
        check += pv->data.bo.size;
    }
    double t_peek = now_s() - t0;

    printf("store: %ld ops over %ld procs x %ld keys, 64-byte values\n", ops, nprocs, nkeys);
    printf("  put : %10.0f ops/s (%.0f ns/op)\n", (double)ops / t_put, t_put * 1e9 / (double)ops);
    printf("  get : %10.0f ops/s (%.0f ns/op, copy out)\n", (double)ops / t_get,
           t_get * 1e9 / (double)ops);
    printf("  peek: %10.0f ops/s (%.0f ns/op, borrowed)\n", (double)ops / t_peek,
           t_peek * 1e9 / (double)ops);
    if (check != (size_t)ops * 2 * sizeof(bytes))
        return 1;
    spx_store_destroy(s);
    free(keys);
    return 0;
}
