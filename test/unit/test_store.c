/* test_store.c - unit tests of lib/store: put/get/replace/delete, tombstones and
 * sequence numbers, foreach_since delta semantics, removal, key limits, growth;
 * put_owned (moves a value in: ownership, replace, tombstones, failure). */
#include "config.h"

#include "store/store.h"

#include <check.h>
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *NS = "spx-test.job1";

static void val_u32(pmix_value_t *v, uint32_t x)
{
    memset(v, 0, sizeof(*v));
    v->type = PMIX_UINT32;
    v->data.uint32 = x;
}

/* v borrows s. */
static void val_str(pmix_value_t *v, char *s)
{
    memset(v, 0, sizeof(*v));
    v->type = PMIX_STRING;
    v->data.string = s;
}

START_TEST(test_put_get_replace)
{
    spx_store_t *s = spx_store_create();
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(spx_store_seq(s), 0);

    char buf[] = "hello";
    pmix_value_t v;
    val_str(&v, buf);
    ck_assert_int_eq(spx_store_put(s, NS, 0, "k.str", &v, PMIX_GLOBAL), PMIX_SUCCESS);
    buf[0] = 'J'; /* the store holds its own copy */

    pmix_scope_t scope = PMIX_SCOPE_UNDEF;
    const pmix_value_t *pv = spx_store_peek(s, NS, 0, "k.str", &scope);
    ck_assert_ptr_nonnull(pv);
    ck_assert_int_eq(pv->type, PMIX_STRING);
    ck_assert_str_eq(pv->data.string, "hello");
    ck_assert_ptr_ne(pv->data.string, buf);
    ck_assert_int_eq(scope, PMIX_GLOBAL);

    pmix_value_t *out = NULL;
    ck_assert_int_eq(spx_store_get(s, NS, 0, "k.str", &out), PMIX_SUCCESS);
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out->data.string, "hello");
    ck_assert_ptr_ne(out->data.string, pv->data.string); /* a deep copy */
    PMIX_VALUE_RELEASE(out);

    /* the key is per process: other rank / nspace do not see it */
    ck_assert_ptr_null(spx_store_peek(s, NS, 1, "k.str", NULL));
    ck_assert_ptr_null(spx_store_peek(s, "other", 0, "k.str", NULL));
    ck_assert_int_eq(spx_store_get(s, NS, 1, "k.str", &out), PMIX_ERR_NOT_FOUND);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(spx_store_get(s, NS, 0, "k.missing", &out), PMIX_ERR_NOT_FOUND);

    /* replace: new value, new scope, new sequence number, still one live key */
    pmix_value_t u;
    val_u32(&u, 42);
    ck_assert_int_eq(spx_store_put(s, NS, 0, "k.str", &u, PMIX_LOCAL), PMIX_SUCCESS);
    pv = spx_store_peek(s, NS, 0, "k.str", &scope);
    ck_assert_int_eq(pv->type, PMIX_UINT32);
    ck_assert_uint_eq(pv->data.uint32, 42);
    ck_assert_int_eq(scope, PMIX_LOCAL);
    ck_assert_uint_eq(spx_store_seq(s), 2);
    ck_assert_uint_eq(spx_store_count(s, NS, 0), 1);

    /* wildcard rank is a process slot like any other (job-level data) */
    ck_assert_int_eq(spx_store_put(s, NS, PMIX_RANK_WILDCARD, "job.size", &u, PMIX_GLOBAL),
                     PMIX_SUCCESS);
    ck_assert_uint_eq(spx_store_count(s, NS, PMIX_RANK_WILDCARD), 1);
    ck_assert_uint_eq(spx_store_count(s, NS, 0), 1);
    spx_store_destroy(s);
}
END_TEST

START_TEST(test_bad_params)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t v;
    val_u32(&v, 1);
    char key[PMIX_MAX_KEYLEN + 2];
    memset(key, 'k', sizeof(key));
    key[PMIX_MAX_KEYLEN] = '\0'; /* exactly PMIX_MAX_KEYLEN characters: allowed */
    ck_assert_int_eq(spx_store_put(s, NS, 0, key, &v, PMIX_GLOBAL), PMIX_SUCCESS);
    ck_assert_ptr_nonnull(spx_store_peek(s, NS, 0, key, NULL));
    key[PMIX_MAX_KEYLEN] = 'k';
    key[PMIX_MAX_KEYLEN + 1] = '\0'; /* one more: refused */
    ck_assert_int_eq(spx_store_put(s, NS, 0, key, &v, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_store_delete(s, NS, 0, key, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_ptr_null(spx_store_peek(s, NS, 0, key, NULL));

    ck_assert_int_eq(spx_store_put(s, NS, 0, NULL, &v, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_store_put(s, NS, 0, "", &v, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_store_put(s, NS, 0, "k", NULL, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_store_put(s, NULL, 0, "k", &v, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    char ns[PMIX_MAX_NSLEN + 2];
    memset(ns, 'n', sizeof(ns));
    ns[PMIX_MAX_NSLEN + 1] = '\0';
    ck_assert_int_eq(spx_store_put(s, ns, 0, "k", &v, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ns[PMIX_MAX_NSLEN] = '\0';
    ck_assert_int_eq(spx_store_put(s, ns, 0, "k", &v, PMIX_GLOBAL), PMIX_SUCCESS);

    pmix_value_t *out = (pmix_value_t *)&v;
    ck_assert_int_eq(spx_store_get(s, NS, 0, NULL, &out), PMIX_ERR_NOT_FOUND);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(spx_store_get(s, NS, 0, "k", NULL), PMIX_ERR_BAD_PARAM);
    /* only the two successful puts took sequence numbers */
    ck_assert_uint_eq(spx_store_seq(s), 2);
    spx_store_destroy(s);
}
END_TEST

/* ---- foreach_since ---- */

#define MAX_SEEN 64
struct seen {
    int n;
    char keys[MAX_SEEN][32];
    bool deleted[MAX_SEEN];
    uint32_t vals[MAX_SEEN];
    pmix_scope_t scopes[MAX_SEEN];
    uint64_t seqs[MAX_SEEN];
    int stop_after; /* 0: never stop */
};

static int collect(const char *key, const pmix_value_t *val, pmix_scope_t scope, uint64_t seq,
                   void *arg)
{
    struct seen *s = arg;
    ck_assert_int_lt(s->n, MAX_SEEN);
    snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", key);
    s->deleted[s->n] = val == NULL;
    s->vals[s->n] = val ? val->data.uint32 : 0;
    s->scopes[s->n] = scope;
    s->seqs[s->n] = seq;
    s->n++;
    return s->stop_after && s->n >= s->stop_after ? 7 : 0;
}

START_TEST(test_foreach_since_and_tombstones)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t v;
    val_u32(&v, 1);
    ck_assert_int_eq(spx_store_put(s, NS, 3, "a", &v, PMIX_GLOBAL), PMIX_SUCCESS); /* 1 */
    val_u32(&v, 2);
    ck_assert_int_eq(spx_store_put(s, NS, 3, "b", &v, PMIX_GLOBAL), PMIX_SUCCESS); /* 2 */
    ck_assert_int_eq(spx_store_put(s, NS, 4, "x", &v, PMIX_GLOBAL), PMIX_SUCCESS); /* 3 */
    val_u32(&v, 3);
    ck_assert_int_eq(spx_store_put(s, NS, 3, "c", &v, PMIX_REMOTE), PMIX_SUCCESS); /* 4 */
    uint64_t mark = spx_store_seq(s);
    ck_assert_uint_eq(mark, 4);

    /* everything of rank 3, in sequence order */
    struct seen all = { 0 };
    ck_assert_int_eq(spx_store_foreach_since(s, NS, 3, 0, collect, &all), 0);
    ck_assert_int_eq(all.n, 3);
    ck_assert_str_eq(all.keys[0], "a");
    ck_assert_str_eq(all.keys[1], "b");
    ck_assert_str_eq(all.keys[2], "c");
    ck_assert_uint_eq(all.seqs[0], 1);
    ck_assert_uint_eq(all.seqs[2], 4);
    ck_assert_int_eq(all.scopes[2], PMIX_REMOTE);

    /* nothing after the mark yet */
    struct seen none = { 0 };
    ck_assert_int_eq(spx_store_foreach_since(s, NS, 3, mark, collect, &none), 0);
    ck_assert_int_eq(none.n, 0);

    /* changes after the mark: replace a, delete b, delete a never-seen key */
    val_u32(&v, 10);
    ck_assert_int_eq(spx_store_put(s, NS, 3, "a", &v, PMIX_GLOBAL), PMIX_SUCCESS);     /* 5 */
    ck_assert_int_eq(spx_store_delete(s, NS, 3, "b", PMIX_GLOBAL), PMIX_SUCCESS);      /* 6 */
    ck_assert_int_eq(spx_store_delete(s, NS, 3, "ghost", PMIX_LOCAL), PMIX_SUCCESS);   /* 7 */
    ck_assert_ptr_null(spx_store_peek(s, NS, 3, "b", NULL));
    pmix_value_t *out = NULL;
    ck_assert_int_eq(spx_store_get(s, NS, 3, "b", &out), PMIX_ERR_NOT_FOUND);
    ck_assert_uint_eq(spx_store_count(s, NS, 3), 2); /* a, c */

    struct seen delta = { 0 };
    ck_assert_int_eq(spx_store_foreach_since(s, NS, 3, mark, collect, &delta), 0);
    ck_assert_int_eq(delta.n, 3);
    ck_assert_str_eq(delta.keys[0], "a");
    ck_assert(!delta.deleted[0]);
    ck_assert_uint_eq(delta.vals[0], 10);
    ck_assert_uint_eq(delta.seqs[0], 5);
    ck_assert_str_eq(delta.keys[1], "b");
    ck_assert(delta.deleted[1]);
    ck_assert_uint_eq(delta.seqs[1], 6);
    ck_assert_str_eq(delta.keys[2], "ghost");
    ck_assert(delta.deleted[2]);
    ck_assert_int_eq(delta.scopes[2], PMIX_LOCAL);

    /* the boundary: since = 5 excludes seq 5, includes 6 and 7 */
    struct seen edge = { 0 };
    ck_assert_int_eq(spx_store_foreach_since(s, NS, 3, 5, collect, &edge), 0);
    ck_assert_int_eq(edge.n, 2);
    ck_assert_uint_eq(edge.seqs[0], 6);
    ck_assert_uint_eq(edge.seqs[1], 7);

    /* full listing now: c (4) a (5) b (6, tombstone) ghost (7, tombstone) */
    struct seen full = { 0 };
    spx_store_foreach_since(s, NS, 3, 0, collect, &full);
    ck_assert_int_eq(full.n, 4);
    ck_assert_str_eq(full.keys[0], "c");
    ck_assert_str_eq(full.keys[1], "a");
    for (int i = 1; i < full.n; i++)
        ck_assert_uint_gt(full.seqs[i], full.seqs[i - 1]);

    /* a put over a tombstone revives the key */
    val_u32(&v, 20);
    ck_assert_int_eq(spx_store_put(s, NS, 3, "b", &v, PMIX_GLOBAL), PMIX_SUCCESS); /* 8 */
    ck_assert_uint_eq(spx_store_peek(s, NS, 3, "b", NULL)->data.uint32, 20);
    ck_assert_uint_eq(spx_store_count(s, NS, 3), 3);

    /* the visitor can stop the walk; its value is returned */
    struct seen stop = { .stop_after = 2 };
    ck_assert_int_eq(spx_store_foreach_since(s, NS, 3, 0, collect, &stop), 7);
    ck_assert_int_eq(stop.n, 2);

    /* other process untouched; unknown process visits nothing */
    struct seen other = { 0 };
    spx_store_foreach_since(s, NS, 4, 0, collect, &other);
    ck_assert_int_eq(other.n, 1);
    ck_assert_str_eq(other.keys[0], "x");
    struct seen unknown = { 0 };
    ck_assert_int_eq(spx_store_foreach_since(s, NS, 99, 0, collect, &unknown), 0);
    ck_assert_int_eq(unknown.n, 0);
    spx_store_destroy(s);
}
END_TEST

START_TEST(test_remove_proc_nspace)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t v;
    char str[] = "payload";
    val_str(&v, str);
    for (pmix_rank_t r = 0; r < 50; r++) {
        ck_assert_int_eq(spx_store_put(s, "nsA", r, "k1", &v, PMIX_GLOBAL), PMIX_SUCCESS);
        ck_assert_int_eq(spx_store_put(s, "nsA", r, "k2", &v, PMIX_GLOBAL), PMIX_SUCCESS);
        ck_assert_int_eq(spx_store_delete(s, "nsA", r, "k3", PMIX_GLOBAL), PMIX_SUCCESS);
        ck_assert_int_eq(spx_store_put(s, "nsB", r, "k1", &v, PMIX_GLOBAL), PMIX_SUCCESS);
    }
    uint64_t seq = spx_store_seq(s);
    spx_store_remove_proc(s, "nsA", 7);
    ck_assert_uint_eq(spx_store_count(s, "nsA", 7), 0);
    ck_assert_ptr_null(spx_store_peek(s, "nsA", 7, "k1", NULL));
    struct seen gone = { 0 };
    spx_store_foreach_since(s, "nsA", 7, 0, collect, &gone);
    ck_assert_int_eq(gone.n, 0); /* no tombstones left either */
    ck_assert_uint_eq(spx_store_count(s, "nsA", 8), 2);
    spx_store_remove_proc(s, "nsA", 7);    /* again: no-op */
    spx_store_remove_proc(s, "nsC", 0);    /* unknown: no-op */

    spx_store_remove_nspace(s, "nsA");
    for (pmix_rank_t r = 0; r < 50; r++) {
        ck_assert_ptr_null(spx_store_peek(s, "nsA", r, "k1", NULL));
        ck_assert_uint_eq(spx_store_count(s, "nsA", r), 0);
        ck_assert_ptr_nonnull(spx_store_peek(s, "nsB", r, "k1", NULL));
    }
    /* sequence numbers never go back */
    ck_assert_uint_eq(spx_store_seq(s), seq);
    ck_assert_int_eq(spx_store_put(s, "nsA", 0, "k1", &v, PMIX_GLOBAL), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_store_seq(s), seq + 1);
    spx_store_destroy(s);
}
END_TEST

/* ---- growth: many processes, many keys, all retrievable, replacements in order ---- */

START_TEST(test_many_entries)
{
    spx_store_t *s = spx_store_create();
    enum { NPROCS = 700, NKEYS = 40 };
    char key[32];
    pmix_value_t v;
    for (int round = 0; round < 2; round++)
        for (pmix_rank_t r = 0; r < NPROCS; r++)
            for (int k = 0; k < NKEYS; k++) {
                snprintf(key, sizeof(key), "key.%d", k);
                val_u32(&v, (uint32_t)(r * 1000 + k + round * 1000000));
                ck_assert_int_eq(spx_store_put(s, r % 2 ? "odd" : "even", r, key, &v,
                                               PMIX_GLOBAL),
                                 PMIX_SUCCESS);
            }
    ck_assert_uint_eq(spx_store_seq(s), 2u * NPROCS * NKEYS);
    for (pmix_rank_t r = 0; r < NPROCS; r++) {
        const char *ns = r % 2 ? "odd" : "even";
        ck_assert_uint_eq(spx_store_count(s, ns, r), NKEYS);
        for (int k = 0; k < NKEYS; k++) {
            snprintf(key, sizeof(key), "key.%d", k);
            const pmix_value_t *pv = spx_store_peek(s, ns, r, key, NULL);
            ck_assert_ptr_nonnull(pv);
            ck_assert_uint_eq(pv->data.uint32, r * 1000 + k + 1000000);
        }
        ck_assert_ptr_null(spx_store_peek(s, ns, r, "key.absent", NULL));
    }
    /* a delta since the end of round one lists every key once, in put order */
    uint64_t round1_end = (uint64_t)NPROCS * NKEYS;
    struct seen d = { 0 };
    spx_store_foreach_since(s, "even", 10, round1_end, collect, &d);
    ck_assert_int_eq(d.n, NKEYS);
    for (int k = 0; k < NKEYS; k++) {
        snprintf(key, sizeof(key), "key.%d", k);
        ck_assert_str_eq(d.keys[k], key);
    }
    spx_store_remove_nspace(s, "odd");
    ck_assert_uint_eq(spx_store_count(s, "odd", 1), 0);
    ck_assert_uint_eq(spx_store_count(s, "even", 0), NKEYS);
    spx_store_destroy(s);
}
END_TEST

/* A first put that fails (a value type that cannot be copied) leaves a key
 * slot that was never stamped: it must not be found, must not show in a
 * walk, and must be freed with the store (LeakSanitizer in the ASan run and
 * valgrind catch the leak this once was). */
START_TEST(test_failed_first_put_freed)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t bad = {.type = (pmix_data_type_t)0x7777};
    pmix_value_t *out = NULL;
    pmix_value_t good;

    ck_assert_ptr_nonnull(s);
    ck_assert_int_ne(spx_store_put(s, "ns", 0, "k.bad", &bad, PMIX_GLOBAL), PMIX_SUCCESS);
    ck_assert_int_eq(spx_store_get(s, "ns", 0, "k.bad", &out), PMIX_ERR_NOT_FOUND);
    PMIX_VALUE_LOAD(&good, "v", PMIX_STRING);
    ck_assert_int_eq(spx_store_put(s, "ns", 0, "k.good", &good, PMIX_GLOBAL), PMIX_SUCCESS);
    PMIx_Value_destruct(&good);
    spx_store_destroy(s);
}
END_TEST

START_TEST(test_values_deep_copied)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t v;
    memset(&v, 0, sizeof(v));
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = malloc(64);
    v.data.bo.size = 64;
    memset(v.data.bo.bytes, 0xab, 64);
    ck_assert_int_eq(spx_store_put(s, NS, 0, "blob", &v, PMIX_GLOBAL), PMIX_SUCCESS);
    PMIx_Value_destruct(&v); /* ours is gone; the store's copy lives */
    pmix_value_t *out = NULL;
    ck_assert_int_eq(spx_store_get(s, NS, 0, "blob", &out), PMIX_SUCCESS);
    ck_assert_int_eq(out->type, PMIX_BYTE_OBJECT);
    ck_assert_uint_eq(out->data.bo.size, 64);
    for (int i = 0; i < 64; i++)
        ck_assert_uint_eq((unsigned char)out->data.bo.bytes[i], 0xab);
    spx_store_destroy(s); /* the copy handed out survives the store */
    ck_assert_uint_eq((unsigned char)out->data.bo.bytes[63], 0xab);
    PMIX_VALUE_RELEASE(out);
}
END_TEST

static int count_visits(const char *key, const pmix_value_t *val, pmix_scope_t scope,
                        uint64_t seq, void *arg)
{
    (void)key, (void)val, (void)scope, (void)seq;
    (*(int *)arg)++;
    return 0;
}

/* A malloc'd string value: what a decoder hands over. */
static void val_owned_str(pmix_value_t *v, const char *s)
{
    memset(v, 0, sizeof(*v));
    v->type = PMIX_STRING;
    v->data.string = strdup(s);
    ck_assert_ptr_nonnull(v->data.string);
}

/* put_owned moves the value in: the store keeps the very bytes the caller
 * had (no copy) and empties the caller's struct, so the usual destruct
 * afterwards frees nothing (ASan/valgrind: no double free, no leak). */
START_TEST(test_put_owned_takes_value)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t v;
    val_owned_str(&v, "moved");
    char *bytes = v.data.string;
    ck_assert_int_eq(spx_store_put_owned(s, NS, 1, "k", &v, PMIX_REMOTE), PMIX_SUCCESS);
    ck_assert_int_eq(v.type, PMIX_UNDEF);
    ck_assert_ptr_null(v.data.string);
    PMIx_Value_destruct(&v); /* no-op */
    pmix_scope_t sc = PMIX_SCOPE_UNDEF;
    const pmix_value_t *in = spx_store_peek(s, NS, 1, "k", &sc);
    ck_assert_ptr_nonnull(in);
    ck_assert_int_eq(in->type, PMIX_STRING);
    ck_assert_ptr_eq(in->data.string, bytes); /* the same bytes: moved, not copied */
    ck_assert_str_eq(in->data.string, "moved");
    ck_assert_int_eq(sc, PMIX_REMOTE);
    ck_assert_uint_eq(spx_store_seq(s), 1);
    ck_assert_uint_eq(spx_store_count(s, NS, 1), 1);

    /* byte object: the caller's buffer becomes the store's */
    memset(&v, 0, sizeof(v));
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = malloc(32);
    ck_assert_ptr_nonnull(v.data.bo.bytes);
    memset(v.data.bo.bytes, 0x5a, 32);
    v.data.bo.size = 32;
    char *blob = v.data.bo.bytes;
    ck_assert_int_eq(spx_store_put_owned(s, NS, 1, "blob", &v, PMIX_GLOBAL), PMIX_SUCCESS);
    PMIx_Value_destruct(&v);
    pmix_value_t *out = NULL;
    ck_assert_int_eq(spx_store_get(s, NS, 1, "blob", &out), PMIX_SUCCESS);
    ck_assert_ptr_ne(out->data.bo.bytes, blob); /* get still hands out a copy */
    ck_assert_uint_eq(out->data.bo.size, 32);
    ck_assert_uint_eq((unsigned char)out->data.bo.bytes[31], 0x5a);
    PMIX_VALUE_RELEASE(out);
    ck_assert_ptr_eq(spx_store_peek(s, NS, 1, "blob", NULL)->data.bo.bytes, blob);
    spx_store_destroy(s); /* frees what was moved in */
}
END_TEST

/* Replacing: an older value (copied in by put or moved in by put_owned) is
 * freed and the new one stamped with the next sequence number. */
START_TEST(test_put_owned_replace)
{
    spx_store_t *s = spx_store_create();
    char buf[] = "copied";
    pmix_value_t v;
    val_str(&v, buf);
    ck_assert_int_eq(spx_store_put(s, NS, 0, "k", &v, PMIX_GLOBAL), PMIX_SUCCESS);
    val_owned_str(&v, "second");
    ck_assert_int_eq(spx_store_put_owned(s, NS, 0, "k", &v, PMIX_LOCAL), PMIX_SUCCESS);
    PMIx_Value_destruct(&v);
    pmix_scope_t sc;
    ck_assert_str_eq(spx_store_peek(s, NS, 0, "k", &sc)->data.string, "second");
    ck_assert_int_eq(sc, PMIX_LOCAL);
    val_owned_str(&v, "third");
    ck_assert_int_eq(spx_store_put_owned(s, NS, 0, "k", &v, PMIX_GLOBAL), PMIX_SUCCESS);
    PMIx_Value_destruct(&v);
    ck_assert_str_eq(spx_store_peek(s, NS, 0, "k", NULL)->data.string, "third");
    ck_assert_uint_eq(spx_store_seq(s), 3);
    ck_assert_uint_eq(spx_store_count(s, NS, 0), 1);
    int n = 0; /* one entry, at the newest sequence */
    ck_assert_int_eq(spx_store_foreach_since(s, NS, 0, 2, count_visits, &n), 0);
    ck_assert_int_eq(n, 1);
    spx_store_destroy(s);
}
END_TEST

/* A tombstone is revived by put_owned, and a moved-in value is freed by a
 * delete (ASan/valgrind: nothing lost). */
START_TEST(test_put_owned_tombstone)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t v;
    val_owned_str(&v, "one");
    ck_assert_int_eq(spx_store_put_owned(s, NS, 2, "k", &v, PMIX_GLOBAL), PMIX_SUCCESS);
    ck_assert_int_eq(spx_store_delete(s, NS, 2, "k", PMIX_DEL_GLOBAL), PMIX_SUCCESS);
    ck_assert_ptr_null(spx_store_peek(s, NS, 2, "k", NULL));
    ck_assert_uint_eq(spx_store_count(s, NS, 2), 0);
    val_owned_str(&v, "two");
    ck_assert_int_eq(spx_store_put_owned(s, NS, 2, "k", &v, PMIX_REMOTE), PMIX_SUCCESS);
    PMIx_Value_destruct(&v);
    pmix_scope_t sc;
    ck_assert_str_eq(spx_store_peek(s, NS, 2, "k", &sc)->data.string, "two");
    ck_assert_int_eq(sc, PMIX_REMOTE);
    ck_assert_uint_eq(spx_store_count(s, NS, 2), 1);
    ck_assert_uint_eq(spx_store_seq(s), 3);
    /* a tombstone put first, then a value */
    ck_assert_int_eq(spx_store_delete(s, NS, 2, "fresh", PMIX_DEL_REMOTE), PMIX_SUCCESS);
    val_owned_str(&v, "after");
    ck_assert_int_eq(spx_store_put_owned(s, NS, 2, "fresh", &v, PMIX_REMOTE), PMIX_SUCCESS);
    ck_assert_str_eq(spx_store_peek(s, NS, 2, "fresh", NULL)->data.string, "after");
    ck_assert_uint_eq(spx_store_count(s, NS, 2), 2);
    spx_store_destroy(s);
}
END_TEST

/* A failed put_owned leaves the value to the caller, untouched, and the
 * store as it was (older value still there, no sequence number taken). */
START_TEST(test_put_owned_failure_leaves_value)
{
    spx_store_t *s = spx_store_create();
    pmix_value_t v;
    val_owned_str(&v, "old");
    ck_assert_int_eq(spx_store_put_owned(s, NS, 0, "k", &v, PMIX_GLOBAL), PMIX_SUCCESS);
    uint64_t seq = spx_store_seq(s);

    char longkey[PMIX_MAX_KEYLEN + 8];
    memset(longkey, 'x', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    val_owned_str(&v, "mine");
    char *mine = v.data.string;
    ck_assert_int_eq(spx_store_put_owned(s, NS, 0, longkey, &v, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_store_put_owned(s, NS, 0, NULL, &v, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_store_put_owned(s, NULL, 0, "k", &v, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_store_put_owned(NULL, NS, 0, "k", &v, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_store_put_owned(s, NS, 0, "k", NULL, PMIX_GLOBAL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(v.type, PMIX_STRING); /* untouched, still ours */
    ck_assert_ptr_eq(v.data.string, mine);
    ck_assert_str_eq(v.data.string, "mine");
    ck_assert_str_eq(spx_store_peek(s, NS, 0, "k", NULL)->data.string, "old");
    ck_assert_uint_eq(spx_store_seq(s), seq);
    PMIx_Value_destruct(&v); /* the caller frees it (valgrind: not leaked, not freed twice) */
    spx_store_destroy(s);
}
END_TEST

static Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_put_get_replace);
    tcase_add_test(tc, test_bad_params);
    tcase_add_test(tc, test_foreach_since_and_tombstones);
    tcase_add_test(tc, test_remove_proc_nspace);
    tcase_add_test(tc, test_many_entries);
    tcase_add_test(tc, test_values_deep_copied);
    tcase_add_test(tc, test_failed_first_put_freed);
    tcase_add_test(tc, test_put_owned_takes_value);
    tcase_add_test(tc, test_put_owned_replace);
    tcase_add_test(tc, test_put_owned_tombstone);
    tcase_add_test(tc, test_put_owned_failure_leaves_value);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(store_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
