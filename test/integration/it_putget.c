/*
 * it_putget: put/commit/fence/get of every value type between the ranks of a
 * job (run with 4). Each rank puts values derived from its rank; after a
 * collecting fence every rank reads every other rank's values and checks
 * type and value. Also: scopes, a Get that waits for a peer's later commit,
 * PMIX_OPTIONAL and PMIX_TIMEOUT on a missing key.
 */
#include "itest.h"


static const pmix_data_type_t it_types[] = {
    PMIX_BOOL, PMIX_BYTE, PMIX_STRING, PMIX_SIZE, PMIX_PID, PMIX_INT, PMIX_INT8,
    PMIX_INT16, PMIX_INT32, PMIX_INT64, PMIX_UINT, PMIX_UINT8, PMIX_UINT16, PMIX_UINT32,
    PMIX_UINT64, PMIX_FLOAT, PMIX_DOUBLE, PMIX_TIMEVAL, PMIX_TIME, PMIX_STATUS,
    PMIX_PROC_RANK, PMIX_PROC, PMIX_BYTE_OBJECT, PMIX_PERSIST, PMIX_SCOPE,
    PMIX_DATA_RANGE, PMIX_PROC_STATE, PMIX_DATA_ARRAY,
};
#define IT_NTYPES (sizeof(it_types) / sizeof(it_types[0]))

/* The value rank r puts for type t. Strings/bytes/arrays are malloc'd and
 * released with PMIX_VALUE_DESTRUCT by the caller. */
static void it_make(pmix_value_t *v, pmix_data_type_t t, uint32_t r)
{
    memset(v, 0, sizeof(*v));
    v->type = t;
    switch (t) {
    case PMIX_BOOL: v->data.flag = r % 2; break;
    case PMIX_BYTE: v->data.byte = (uint8_t)(0xA0 + r); break;
    case PMIX_STRING:
        v->data.string = malloc(32);
        snprintf(v->data.string, 32, "string-of-rank-%u", r);
        break;
    case PMIX_SIZE: v->data.size = (size_t)1 << 40 | r; break;
    case PMIX_PID: v->data.pid = (pid_t)(1000 + r); break;
    case PMIX_INT: v->data.integer = -100 - (int)r; break;
    case PMIX_INT8: v->data.int8 = (int8_t)(-8 - (int)r); break;
    case PMIX_INT16: v->data.int16 = (int16_t)(-1600 - (int)r); break;
    case PMIX_INT32: v->data.int32 = -320000 - (int32_t)r; break;
    case PMIX_INT64: v->data.int64 = -((int64_t)1 << 40) - r; break;
    case PMIX_UINT: v->data.uint = 4000000000u + r; break;
    case PMIX_UINT8: v->data.uint8 = (uint8_t)(200 + r); break;
    case PMIX_UINT16: v->data.uint16 = (uint16_t)(60000 + r); break;
    case PMIX_UINT32: v->data.uint32 = 0xDEAD0000u + r; break;
    case PMIX_UINT64: v->data.uint64 = 0xFEEDFACE00000000ull + r; break;
    case PMIX_FLOAT: v->data.fval = 1.5f + (float)r; break;
    case PMIX_DOUBLE: v->data.dval = -3.25 + r * 0.5; break;
    case PMIX_TIMEVAL: v->data.tv.tv_sec = 1700000000 + r; v->data.tv.tv_usec = 123 + r; break;
    case PMIX_TIME: v->data.time = (time_t)1600000000 + r; break;
    case PMIX_STATUS: v->data.status = -5000 - (int)r; break;
    case PMIX_PROC_RANK: v->data.rank = 77 + r; break;
    case PMIX_PROC:
        v->data.proc = calloc(1, sizeof(pmix_proc_t));
        PMIX_LOAD_PROCID(v->data.proc, "it.some.nspace", 9 + r);
        break;
    case PMIX_BYTE_OBJECT:
        v->data.bo.size = 100 + r;
        v->data.bo.bytes = malloc(v->data.bo.size);
        for (size_t i = 0; i < v->data.bo.size; i++)
            v->data.bo.bytes[i] = (char)(i * 7 + r);
        v->data.bo.bytes[3] = 0;   /* embedded NUL */
        break;
    case PMIX_PERSIST: v->data.persist = PMIX_PERSIST_APP; break;
    case PMIX_SCOPE: v->data.scope = PMIX_REMOTE; break;
    case PMIX_DATA_RANGE: v->data.range = PMIX_RANGE_GLOBAL; break;
    case PMIX_PROC_STATE: v->data.state = (pmix_proc_state_t)(3 + r); break;
    case PMIX_DATA_ARRAY: {
        uint32_t *a = malloc(5 * sizeof(uint32_t));
        for (uint32_t i = 0; i < 5; i++)
            a[i] = r * 10 + i;
        v->data.darray = calloc(1, sizeof(pmix_data_array_t));
        v->data.darray->type = PMIX_UINT32;
        v->data.darray->size = 5;
        v->data.darray->array = a;
        break;
    }
    default: break;
    }
}

/* Is got equal (type and value) to want? */
static int it_same(const pmix_value_t *got, const pmix_value_t *want)
{
    const pmix_value_t *g = got, *w = want;

    if (g->type != w->type)
        return 0;
    switch (w->type) {
    case PMIX_BOOL: return g->data.flag == w->data.flag;
    case PMIX_BYTE: return g->data.byte == w->data.byte;
    case PMIX_STRING: return g->data.string && strcmp(g->data.string, w->data.string) == 0;
    case PMIX_SIZE: return g->data.size == w->data.size;
    case PMIX_PID: return g->data.pid == w->data.pid;
    case PMIX_INT: return g->data.integer == w->data.integer;
    case PMIX_INT8: return g->data.int8 == w->data.int8;
    case PMIX_INT16: return g->data.int16 == w->data.int16;
    case PMIX_INT32: return g->data.int32 == w->data.int32;
    case PMIX_INT64: return g->data.int64 == w->data.int64;
    case PMIX_UINT: return g->data.uint == w->data.uint;
    case PMIX_UINT8: return g->data.uint8 == w->data.uint8;
    case PMIX_UINT16: return g->data.uint16 == w->data.uint16;
    case PMIX_UINT32: return g->data.uint32 == w->data.uint32;
    case PMIX_UINT64: return g->data.uint64 == w->data.uint64;
    case PMIX_FLOAT: return g->data.fval == w->data.fval;
    case PMIX_DOUBLE: return g->data.dval == w->data.dval;
    case PMIX_TIMEVAL:
        return g->data.tv.tv_sec == w->data.tv.tv_sec && g->data.tv.tv_usec == w->data.tv.tv_usec;
    case PMIX_TIME: return g->data.time == w->data.time;
    case PMIX_STATUS: return g->data.status == w->data.status;
    case PMIX_PROC_RANK: return g->data.rank == w->data.rank;
    case PMIX_PROC:
        return g->data.proc && PMIX_CHECK_PROCID(g->data.proc, w->data.proc);
    case PMIX_BYTE_OBJECT:
        return g->data.bo.size == w->data.bo.size &&
               memcmp(g->data.bo.bytes, w->data.bo.bytes, w->data.bo.size) == 0;
    case PMIX_PERSIST: return g->data.persist == w->data.persist;
    case PMIX_SCOPE: return g->data.scope == w->data.scope;
    case PMIX_DATA_RANGE: return g->data.range == w->data.range;
    case PMIX_PROC_STATE: return g->data.state == w->data.state;
    case PMIX_DATA_ARRAY:
        return g->data.darray && g->data.darray->type == PMIX_UINT32 &&
               g->data.darray->size == w->data.darray->size &&
               memcmp(g->data.darray->array, w->data.darray->array,
                      w->data.darray->size * sizeof(uint32_t)) == 0;
    default: return 0;
    }
}

static void it_key(char *key, pmix_data_type_t t)
{
    snprintf(key, PMIX_MAX_KEYLEN, "it.type.%u", (unsigned)t);
}

static void it_put_str(pmix_scope_t scope, const char *key, const char *s)
{
    pmix_value_t v;

    memset(&v, 0, sizeof(v));
    v.type = PMIX_STRING;
    v.data.string = (char *)s;
    IT_RC(PMIx_Put(scope, key, &v), PMIX_SUCCESS, key);
}

/* Get a string key of peer and compare. want NULL: expect status instead. */
static void it_get_str(uint32_t peer, const char *key, const char *want, pmix_status_t st,
                       const pmix_info_t *info, size_t ninfo)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&p, it_me.nspace, peer);
    rc = PMIx_Get(&p, key, info, ninfo, &v);
    if (want == NULL) {
        IT_CHECK(rc == st, "get %s of rank %u: %s, expected %s", key, peer,
                 PMIx_Error_string(rc), PMIx_Error_string(st));
        return;
    }
    IT_CHECK(rc == PMIX_SUCCESS, "get %s of rank %u: %s", key, peer, PMIx_Error_string(rc));
    IT_CHECK(v->type == PMIX_STRING && strcmp(v->data.string, want) == 0,
             "get %s of rank %u: wrong value (type %d)", key, peer, v->type);
    PMIX_VALUE_RELEASE(v);
}

int main(void)
{
    uint32_t size = it_init(), me;
    char key[PMIX_MAX_KEYLEN + 1], buf[64];
    pmix_info_t info;
    bool yes = true;
    double t0;
    int timeout = 1;

    me = it_me.rank;
    IT_CHECK(size >= 2, "needs at least 2 ranks, job size is %u", size);

    /* 1. a Get of a key the peer has not committed yet waits for it (after a
     * fence, so that a slow start of rank 0 - e.g. under valgrind - cannot
     * let the commit happen before the Get is even asked) */
    it_fence();
    if (me == 1) {
        it_sleep_ms(400);
        it_put_str(PMIX_LOCAL, "it.late", "late-value");
        IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    } else if (me == 0) {
        t0 = it_now();
        it_get_str(1, "it.late", "late-value", 0, NULL, 0);
        IT_CHECK(it_now() - t0 > 0.2, "get returned before the peer committed");
    }
    it_fence();

    /* 2. every type, in every scope that reaches a local peer */
    for (size_t i = 0; i < IT_NTYPES; i++) {
        pmix_value_t v;
        it_make(&v, it_types[i], me);
        it_key(key, it_types[i]);
        IT_RC(PMIx_Put(PMIX_GLOBAL, key, &v), PMIX_SUCCESS, key);
        PMIX_VALUE_DESTRUCT(&v);
    }
    snprintf(buf, sizeof(buf), "local-%u", me);
    it_put_str(PMIX_LOCAL, "it.scope.local", buf);
    snprintf(buf, sizeof(buf), "remote-%u", me);
    it_put_str(PMIX_REMOTE, "it.scope.remote", buf);
    snprintf(buf, sizeof(buf), "global-%u", me);
    it_put_str(PMIX_GLOBAL, "it.scope.global", buf);
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");

    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    IT_RC(PMIx_Fence(NULL, 0, &info, 1), PMIX_SUCCESS, "PMIx_Fence(collect)");
    PMIX_INFO_DESTRUCT(&info);

    for (uint32_t peer = 0; peer < size; peer++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, it_me.nspace, peer);
        for (size_t i = 0; i < IT_NTYPES; i++) {
            pmix_value_t want, *got = NULL;
            it_make(&want, it_types[i], peer);
            it_key(key, it_types[i]);
            IT_RC(PMIx_Get(&p, key, NULL, 0, &got), PMIX_SUCCESS, key);
            IT_CHECK(it_same(got, &want), "key %s of rank %u: wrong type (%d) or value",
                     key, peer, got->type);
            PMIX_VALUE_RELEASE(got);
            PMIX_VALUE_DESTRUCT(&want);
        }
        snprintf(buf, sizeof(buf), "local-%u", peer);
        it_get_str(peer, "it.scope.local", buf, 0, NULL, 0);
        snprintf(buf, sizeof(buf), "global-%u", peer);
        it_get_str(peer, "it.scope.global", buf, 0, NULL, 0);
        if (peer != me) {   /* REMOTE data is for other nodes only */
            PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
            it_get_str(peer, "it.scope.remote", NULL, PMIX_ERR_NOT_FOUND, &info, 1);
            PMIX_INFO_DESTRUCT(&info);
        }
    }

    /* 3. a missing key: PMIX_OPTIONAL answers at once, PMIX_TIMEOUT times out */
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    t0 = it_now();
    it_get_str((me + 1) % size, "it.never.put", NULL, PMIX_ERR_NOT_FOUND, &info, 1);
    IT_CHECK(it_now() - t0 < 1.0, "optional get of a missing key took %.2f s", it_now() - t0);
    PMIX_INFO_DESTRUCT(&info);

    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
    t0 = it_now();
    it_get_str((me + 1) % size, "it.never.put", NULL, PMIX_ERR_TIMEOUT, &info, 1);
    IT_CHECK(it_now() - t0 < 5.0, "get with a 1 s timeout took %.2f s", it_now() - t0);
    PMIX_INFO_DESTRUCT(&info);

    /* a peer's values this process has read (and cached, with the rest of the
     * peer's record) change or go away when the peer commits an update or a
     * deletion: seen after the next plain barrier, no collecting fence needed */
    uint32_t src = (me + 1) % size;
    it_fence();
    it_put_str(PMIX_GLOBAL, "it.upd", "old");
    it_put_str(PMIX_GLOBAL, "it.gone", "here");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit (it.upd, it.gone)");
    it_fence();
    it_get_str(src, "it.upd", "old", PMIX_SUCCESS, NULL, 0);
    it_get_str(src, "it.gone", "here", PMIX_SUCCESS, NULL, 0);
    it_fence();
    it_put_str(PMIX_GLOBAL, "it.upd", "new");
    IT_RC(PMIx_Put(PMIX_DEL_GLOBAL, "it.gone", NULL), PMIX_SUCCESS, "Put(PMIX_DEL_GLOBAL)");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "Commit (update and deletion)");
    it_fence();
    it_get_str(src, "it.upd", "new", PMIX_SUCCESS, NULL, 0);
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    it_get_str(src, "it.gone", NULL, PMIX_ERR_NOT_FOUND, &info, 1);
    PMIX_INFO_DESTRUCT(&info);

    it_fence();
    if (me == 0)
        printf("it_putget: %u ranks, %zu types: OK\n", size, IT_NTYPES);
    it_finalize();
    return 0;
}
