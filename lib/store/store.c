/* store.c - the key/value store: (nspace, rank) -> key -> value or tombstone.
 *
 * Layout: a chained hash table of processes keyed by (nspace, rank), each
 * bucket an SLIST. Each process holds an open-addressing (linear probing)
 * table of entry pointers keyed by key, and a TAILQ of the same entries in
 * sequence order. Entries are never removed one by one (a deletion turns the
 * entry into a tombstone), so the key table needs no deletion logic; only
 * remove_proc / remove_nspace free entries, and they free a whole process at
 * once.
 *
 * Every put/delete takes the next store-wide sequence number and moves the
 * entry to the tail of its process's list, so the list is always sorted by
 * sequence. foreach_since(since) walks back from the tail to the first entry
 * with seq > since and visits forward: cost O(changes), not O(keys).
 *
 * Values are deep-copied in with PMIx_Value_xfer (put) or moved in as they
 * are (put_owned: the caller's value struct is emptied, nothing is copied),
 * and released with PMIx_Value_destruct; get hands the caller a fresh copy.
 */
#include "config.h"

#include "store/store.h"

#include <pmix.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

struct entry {
    TAILQ_ENTRY(entry) link; /* in proc.entries once stamped (seq != 0) */
    uint64_t seq; /* 0 until the first put/delete stamps it */
    uint64_t hash;
    pmix_scope_t scope;
    bool live; /* false: tombstone (val is empty) */
    pmix_value_t val;
    size_t keylen;
    char key[]; /* NUL-terminated */
};

struct proc {
    SLIST_ENTRY(proc) chain; /* in the store's bucket */
    uint64_t hash;
    pmix_rank_t rank;
    size_t live_count;
    size_t nentries;
    size_t cap; /* slots in table, power of two (0 before the first key) */
    struct entry **table;
    TAILQ_HEAD(entry_list, entry) entries; /* owned; stamped entries, sequence order */
    char nspace[];
};

SLIST_HEAD(proc_bucket, proc); /* all zero bytes: empty */

struct spx_store {
    struct proc_bucket *buckets; /* owned, with the processes in them */
    size_t nbuckets; /* power of two */
    size_t nprocs;
    uint64_t seq;
};

#define STORE_INIT_BUCKETS 64
#define PROC_INIT_SLOTS 16

/* FNV-1a, 64 bit, over a NUL-terminated string bounded by max; *len gets the
 * length (max + 1 if the string is longer than max). */
static uint64_t hash_str(const char *s, size_t max, size_t *len, uint64_t h)
{
    size_t i = 0;
    for (; s[i] != '\0'; i++) {
        if (i == max) {
            *len = max + 1;
            return h;
        }
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    *len = i;
    return h;
}

#define FNV_BASIS 0xcbf29ce484222325ULL

static uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static bool proc_hash(const char *nspace, pmix_rank_t rank, uint64_t *out)
{
    if (!nspace)
        return false;
    size_t len;
    uint64_t h = hash_str(nspace, PMIX_MAX_NSLEN, &len, FNV_BASIS);
    if (len > PMIX_MAX_NSLEN)
        return false;
    *out = mix64(h ^ ((uint64_t)rank * 0x9e3779b97f4a7c15ULL));
    return true;
}

static bool key_hash(const char *key, uint64_t *out, size_t *len)
{
    if (!key)
        return false;
    uint64_t h = hash_str(key, PMIX_MAX_KEYLEN, len, FNV_BASIS);
    if (*len == 0 || *len > PMIX_MAX_KEYLEN)
        return false;
    *out = mix64(h);
    return true;
}

spx_store_t *spx_store_create(void)
{
    spx_store_t *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->buckets = calloc(STORE_INIT_BUCKETS, sizeof(*s->buckets));
    if (!s->buckets) {
        free(s);
        return NULL;
    }
    s->nbuckets = STORE_INIT_BUCKETS;
    return s;
}

/* Frees every entry through the key table, which holds them all: an entry
 * whose first put failed was never stamped, so it is not in the list. */
static void proc_free(struct proc *p)
{
    for (size_t j = 0; j < p->cap; j++) {
        struct entry *e = p->table[j];
        if (!e)
            continue;
        if (e->live)
            PMIx_Value_destruct(&e->val);
        free(e);
    }
    free(p->table);
    free(p);
}

void spx_store_destroy(spx_store_t *s)
{
    if (!s)
        return;
    for (size_t b = 0; b < s->nbuckets; b++) {
        struct proc *p;
        while ((p = SLIST_FIRST(&s->buckets[b])) != NULL) {
            SLIST_REMOVE_HEAD(&s->buckets[b], chain);
            proc_free(p);
        }
    }
    free(s->buckets);
    free(s);
}

/* ---- process table ---- */

static struct proc *proc_find(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                              uint64_t h)
{
    struct proc *p;
    SLIST_FOREACH(p, &s->buckets[h & (s->nbuckets - 1)], chain)
        if (p->hash == h && p->rank == rank && strcmp(p->nspace, nspace) == 0)
            return p;
    return NULL;
}

static void store_grow(spx_store_t *s)
{
    size_t nb = s->nbuckets * 2;
    struct proc_bucket *nbk = calloc(nb, sizeof(*nbk));
    if (!nbk)
        return; /* keep the longer chains; still correct */
    for (size_t b = 0; b < s->nbuckets; b++) {
        struct proc *p;
        while ((p = SLIST_FIRST(&s->buckets[b])) != NULL) {
            SLIST_REMOVE_HEAD(&s->buckets[b], chain);
            SLIST_INSERT_HEAD(&nbk[p->hash & (nb - 1)], p, chain);
        }
    }
    free(s->buckets);
    s->buckets = nbk;
    s->nbuckets = nb;
}

static struct proc *proc_get_or_add(spx_store_t *s, const char *nspace, pmix_rank_t rank,
                                    uint64_t h)
{
    struct proc *p = proc_find(s, nspace, rank, h);
    if (p)
        return p;
    size_t nslen = strlen(nspace); /* bounded by proc_hash */
    p = calloc(1, sizeof(*p) + nslen + 1);
    if (!p)
        return NULL;
    memcpy(p->nspace, nspace, nslen + 1);
    TAILQ_INIT(&p->entries);
    p->hash = h;
    p->rank = rank;
    if (s->nprocs >= s->nbuckets)
        store_grow(s);
    SLIST_INSERT_HEAD(&s->buckets[h & (s->nbuckets - 1)], p, chain);
    s->nprocs++;
    return p;
}

/* Unlinks p from its bucket and frees it. */
static void proc_remove(spx_store_t *s, struct proc *p)
{
    SLIST_REMOVE(&s->buckets[p->hash & (s->nbuckets - 1)], p, proc, chain);
    s->nprocs--;
    proc_free(p);
}

/* ---- key table of one process ---- */

static struct entry *entry_find(const struct proc *p, const char *key, size_t keylen, uint64_t h)
{
    if (p->cap == 0)
        return NULL;
    size_t mask = p->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct entry *e = p->table[i];
        if (!e)
            return NULL;
        if (e->hash == h && e->keylen == keylen && memcmp(e->key, key, keylen) == 0)
            return e;
    }
}

static bool proc_table_grow(struct proc *p)
{
    size_t ncap = p->cap ? p->cap * 2 : PROC_INIT_SLOTS;
    struct entry **nt = calloc(ncap, sizeof(*nt));
    if (!nt)
        return false;
    size_t mask = ncap - 1;
    for (size_t j = 0; j < p->cap; j++) {
        struct entry *e = p->table[j];
        if (!e)
            continue;
        size_t i = e->hash & mask;
        while (nt[i])
            i = (i + 1) & mask;
        nt[i] = e;
    }
    free(p->table);
    p->table = nt;
    p->cap = ncap;
    return true;
}

static struct entry *entry_add(struct proc *p, const char *key, size_t keylen, uint64_t h)
{
    /* keep the load factor at or below 3/4 */
    if ((p->nentries + 1) * 4 > p->cap * 3 && !proc_table_grow(p))
        return NULL;
    struct entry *e = calloc(1, sizeof(*e) + keylen + 1);
    if (!e)
        return NULL;
    memcpy(e->key, key, keylen + 1);
    e->keylen = keylen;
    e->hash = h;
    size_t mask = p->cap - 1;
    size_t i = h & mask;
    while (p->table[i])
        i = (i + 1) & mask;
    p->table[i] = e;
    p->nentries++;
    return e;
}

/* Finds or creates the entry for a write; NULL on bad parameters or ENOMEM
 * (*st says which). */
static struct entry *entry_for_write(spx_store_t *s, const char *nspace, pmix_rank_t rank,
                                     const char *key, struct proc **pout, pmix_status_t *st)
{
    uint64_t ph, kh;
    size_t keylen;
    *st = PMIX_ERR_BAD_PARAM;
    if (!s || !proc_hash(nspace, rank, &ph) || !key_hash(key, &kh, &keylen))
        return NULL;
    *st = PMIX_ERR_NOMEM;
    struct proc *p = proc_get_or_add(s, nspace, rank, ph);
    if (!p)
        return NULL;
    struct entry *e = entry_find(p, key, keylen, kh);
    if (!e)
        e = entry_add(p, key, keylen, kh);
    /* a new process left without entries stays: harmless, removed with its nspace */
    *pout = p;
    return e;
}

/* Gives e the next sequence number and moves it to the tail of p's list. */
static void entry_stamp(spx_store_t *s, struct proc *p, struct entry *e)
{
    if (e->seq != 0) /* stamped before: in the list */
        TAILQ_REMOVE(&p->entries, e, link);
    e->seq = ++s->seq;
    TAILQ_INSERT_TAIL(&p->entries, e, link);
}

/* Makes e live with val (its contents taken as they are), stamped. */
static void entry_set_value(spx_store_t *s, struct proc *p, struct entry *e, pmix_value_t *val,
                            pmix_scope_t scope)
{
    if (e->live)
        PMIx_Value_destruct(&e->val);
    else
        p->live_count++;
    e->val = *val;
    e->live = true;
    e->scope = scope;
    entry_stamp(s, p, e);
}

pmix_status_t spx_store_put(spx_store_t *s, const char *nspace, pmix_rank_t rank, const char *key,
                            const pmix_value_t *val, pmix_scope_t scope)
{
    if (!val)
        return PMIX_ERR_BAD_PARAM;
    struct proc *p;
    pmix_status_t st;
    struct entry *e = entry_for_write(s, nspace, rank, key, &p, &st);
    if (!e)
        return st;
    /* Copy first so a failed copy leaves the old value in place. */
    pmix_value_t copy;
    memset(&copy, 0, sizeof(copy));
    st = PMIx_Value_xfer(&copy, val);
    if (st != PMIX_SUCCESS) {
        PMIx_Value_destruct(&copy);
        return st;
    }
    entry_set_value(s, p, e, &copy, scope);
    return PMIX_SUCCESS;
}

pmix_status_t spx_store_put_owned(spx_store_t *s, const char *nspace, pmix_rank_t rank,
                                  const char *key, pmix_value_t *val, pmix_scope_t scope)
{
    if (!val)
        return PMIX_ERR_BAD_PARAM;
    struct proc *p;
    pmix_status_t st;
    struct entry *e = entry_for_write(s, nspace, rank, key, &p, &st);
    if (!e)
        return st; /* val untouched: still the caller's */
    entry_set_value(s, p, e, val, scope);
    memset(val, 0, sizeof(*val));
    val->type = PMIX_UNDEF;
    return PMIX_SUCCESS;
}

pmix_status_t spx_store_delete(spx_store_t *s, const char *nspace, pmix_rank_t rank,
                               const char *key, pmix_scope_t scope)
{
    struct proc *p;
    pmix_status_t st;
    struct entry *e = entry_for_write(s, nspace, rank, key, &p, &st);
    if (!e)
        return st;
    if (e->live) {
        PMIx_Value_destruct(&e->val);
        memset(&e->val, 0, sizeof(e->val));
        e->live = false;
        p->live_count--;
    }
    e->scope = scope;
    entry_stamp(s, p, e);
    return PMIX_SUCCESS;
}

static const struct proc *proc_lookup(const spx_store_t *s, const char *nspace, pmix_rank_t rank)
{
    uint64_t ph;
    if (!s || !proc_hash(nspace, rank, &ph))
        return NULL;
    return proc_find(s, nspace, rank, ph);
}

static const struct entry *entry_lookup(const spx_store_t *s, const char *nspace,
                                        pmix_rank_t rank, const char *key)
{
    uint64_t kh;
    size_t keylen;
    if (!key_hash(key, &kh, &keylen))
        return NULL;
    const struct proc *p = proc_lookup(s, nspace, rank);
    return p ? entry_find(p, key, keylen, kh) : NULL;
}

const pmix_value_t *spx_store_peek(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                                   const char *key, pmix_scope_t *scope_out)
{
    const struct entry *e = entry_lookup(s, nspace, rank, key);
    if (!e || !e->live)
        return NULL;
    if (scope_out)
        *scope_out = e->scope;
    return &e->val;
}

pmix_status_t spx_store_get(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                            const char *key, pmix_value_t **out)
{
    if (!out)
        return PMIX_ERR_BAD_PARAM;
    *out = NULL;
    const struct entry *e = entry_lookup(s, nspace, rank, key);
    if (!e || !e->live)
        return PMIX_ERR_NOT_FOUND;
    pmix_value_t *v = calloc(1, sizeof(*v));
    if (!v)
        return PMIX_ERR_NOMEM;
    pmix_status_t st = PMIx_Value_xfer(v, &e->val);
    if (st != PMIX_SUCCESS) {
        PMIx_Value_destruct(v);
        free(v);
        return st;
    }
    *out = v;
    return PMIX_SUCCESS;
}

int spx_store_foreach_since(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                            uint64_t since, spx_store_visit_f fn, void *arg)
{
    const struct proc *p = proc_lookup(s, nspace, rank);
    if (!p || !fn)
        return 0;
    /* Find the first entry after since, walking back from the newest. */
    const struct entry *first = NULL;
    for (const struct entry *e = TAILQ_LAST(&p->entries, entry_list); e && e->seq > since;
         e = TAILQ_PREV(e, entry_list, link))
        first = e;
    for (const struct entry *e = first; e; e = TAILQ_NEXT(e, link)) {
        int rc = fn(e->key, e->live ? &e->val : NULL, e->scope, e->seq, arg);
        if (rc != 0)
            return rc;
    }
    return 0;
}

uint64_t spx_store_seq(const spx_store_t *s)
{
    return s ? s->seq : 0;
}

size_t spx_store_count(const spx_store_t *s, const char *nspace, pmix_rank_t rank)
{
    const struct proc *p = proc_lookup(s, nspace, rank);
    return p ? p->live_count : 0;
}

void spx_store_remove_proc(spx_store_t *s, const char *nspace, pmix_rank_t rank)
{
    struct proc *p = (struct proc *)proc_lookup(s, nspace, rank);
    if (p)
        proc_remove(s, p);
}

void spx_store_remove_nspace(spx_store_t *s, const char *nspace)
{
    if (!s || !nspace)
        return;
    /* Rare (job end): one pass over the buckets. */
    for (size_t b = 0; b < s->nbuckets; b++) {
        struct proc *p = SLIST_FIRST(&s->buckets[b]);
        while (p) {
            struct proc *next = SLIST_NEXT(p, chain);
            if (strcmp(p->nspace, nspace) == 0)
                proc_remove(s, p);
            p = next;
        }
    }
}
