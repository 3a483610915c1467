/*
 * itest.h: shared helpers for the integration test programs, which run as
 * ranks under spmix-run (or alone, for the singleton test). A failed check
 * prints "FAIL [rank R] file:line: message" on stderr and exits 1 at once,
 * without PMIx_Finalize, so the launcher ends the whole job with an error.
 */
#ifndef SPX_ITEST_H
#define SPX_ITEST_H

#include <pmix.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t it_me;   /* filled by it_init */

static void it_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

static void it_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "FAIL [rank %d] %s:%d: ", (int)it_me.rank, file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(NULL);
    _exit(1);
}

#define IT_CHECK(cond, ...) \
    do { if (!(cond)) it_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

/* rc must be want; names both on failure. */
#define IT_RC(rc, want, what) \
    do { pmix_status_t it_rc_ = (rc); \
         if (it_rc_ != (want)) \
             it_fail(__FILE__, __LINE__, "%s returned %s (%d), expected %s (%d)", what, \
                     PMIx_Error_string(it_rc_), it_rc_, PMIx_Error_string(want), (int)(want)); \
    } while (0)

static inline double it_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void it_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

/* PMIx_Init and the job size (read strictly as uint32). */
static inline uint32_t it_init(void)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    uint32_t size;

    memset(&it_me, 0, sizeof(it_me));
    IT_RC(PMIx_Init(&it_me, NULL, 0), PMIX_SUCCESS, "PMIx_Init");
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS, "PMIx_Get(job size)");
    IT_CHECK(val->type == PMIX_UINT32, "job size has type %d, not UINT32", val->type);
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return size;
}

/* Wait (polling) until *flag becomes non-zero, or fail after sec seconds. */
#define IT_WAIT_FOR(flag, sec, what) \
    do { double it_end_ = it_now() + (sec); \
         while (!__atomic_load_n(&(flag), __ATOMIC_ACQUIRE)) { \
             if (it_now() > it_end_) it_fail(__FILE__, __LINE__, "timed out waiting for %s", what); \
             it_sleep_ms(5); } \
    } while (0)

static inline void it_fence(void)
{
    IT_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "PMIx_Fence");
}

static inline void it_finalize(void)
{
    IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
}

/* The job-level PMIX_NUM_NODES and the PMIX_NODEID of rank (uint32). */
static inline uint32_t it_num_nodes(void)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    uint32_t n;

    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Get(&wild, PMIX_NUM_NODES, NULL, 0, &val), PMIX_SUCCESS, "PMIx_Get(num nodes)");
    IT_CHECK(val->type == PMIX_UINT32, "num nodes has type %d, not UINT32", val->type);
    n = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return n;
}

static inline uint32_t it_nodeid(uint32_t rank)
{
    pmix_proc_t p;
    pmix_value_t *val = NULL;
    uint32_t n;

    PMIX_LOAD_PROCID(&p, it_me.nspace, rank);
    IT_RC(PMIx_Get(&p, PMIX_NODEID, NULL, 0, &val), PMIX_SUCCESS, "PMIx_Get(node id)");
    IT_CHECK(val->type == PMIX_UINT32, "node id has type %d, not UINT32", val->type);
    n = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return n;
}

/* A uint64 counter answered by the rank's own server (spmix.h query keys). */
static inline uint64_t it_query_u64(const char *key)
{
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t arc;
    uint64_t v;

    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(arc, q.keys, key);
    IT_RC(arc, PMIX_SUCCESS, "PMIX_ARGV_APPEND");
    IT_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, key);
    IT_CHECK(nres == 1 && res[0].value.type == PMIX_UINT64, "query %s: %zu answers, type %d",
             key, nres, nres ? res[0].value.type : -1);
    v = res[0].value.data.uint64;
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return v;
}

/* PMIx_Query_info of PMIX_QUERY_NUM_PSETS and PMIX_QUERY_PSET_NAMES in one
 * query, as OpenPMIx's hello example asks: PMIX_SUCCESS, no process set
 * (0, size_t) and the empty list of names ("", char*). */
static inline void it_no_psets(const char *what)
{
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t arc;
    const pmix_info_t *num = NULL, *names = NULL;

    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(arc, q.keys, PMIX_QUERY_NUM_PSETS);
    IT_RC(arc, PMIX_SUCCESS, "PMIX_ARGV_APPEND");
    PMIX_ARGV_APPEND(arc, q.keys, PMIX_QUERY_PSET_NAMES);
    IT_RC(arc, PMIX_SUCCESS, "PMIX_ARGV_APPEND");
    IT_RC(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS, what);
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_NUM_PSETS))
            num = &res[i];
        else if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_PSET_NAMES))
            names = &res[i];
    }
    IT_CHECK(nres == 2 && num && num->value.type == PMIX_SIZE && num->value.data.size == 0,
             "%s: %zu answers, PMIX_QUERY_NUM_PSETS %s", what, nres, num ? "not 0" : "missing");
    IT_CHECK(names && names->value.type == PMIX_STRING && names->value.data.string &&
                 names->value.data.string[0] == '\0',
             "%s: PMIX_QUERY_PSET_NAMES %s", what, names ? "not \"\"" : "missing");
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_DESTRUCT(&q);
}

#endif /* SPX_ITEST_H */
