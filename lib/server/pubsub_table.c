/*
 * pubsub_table: the publish/lookup/unpublish table of the server's own
 * directory (lib/server/pubsub.c).
 *
 * Data flow: publish copies each info into an entry (key, value, publisher,
 * range, persistence) on spx_pubsub_entries, then retries the parked lookups;
 * lookup collects the visible entries for its keys into a pdata array and
 * answers, or parks itself (keys copied) when PMIX_WAIT asked for more than
 * is there. FIRST_READ entries are removed when they are read, PROC entries
 * when their publisher goes away. Answers are sent after the lock is dropped.
 */
#include "config.h"
#include "server/pubsub_table.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct spx_pubsub_entry {
    struct spx_pubsub_entry *next;
    pmix_proc_t owner;
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_value_t *value;             /* owned, PMIX_VALUE_RELEASE */
    pmix_data_range_t range;
    pmix_persistence_t persist;
};

struct spx_pubsub_wait {
    struct spx_pubsub_wait *next;
    pmix_proc_t requester;
    char **keys;                     /* owned, NULL-terminated */
    size_t nkeys, want;              /* answer once want keys are found */
    pmix_data_range_t range;
    pmix_lookup_cbfunc_t cbfunc;
    void *cbdata;
    pmix_pdata_t *res;               /* the answer, once found */
    size_t nres;
};

static pthread_mutex_t spx_pubsub_lock = PTHREAD_MUTEX_INITIALIZER;
static struct spx_pubsub_entry *spx_pubsub_entries;
static struct spx_pubsub_wait *spx_pubsub_waits;

/* Info directives shared by the three calls. */
static void spx_pubsub_directives(const pmix_info_t info[], size_t ninfo,
                                  pmix_data_range_t *range, pmix_persistence_t *persist,
                                  size_t *want, bool *wait)
{
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_value_t *v = &info[i].value;
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE) && v->type == PMIX_DATA_RANGE)
            *range = v->data.range;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_PERSISTENCE) && v->type == PMIX_PERSIST)
            *persist = v->data.persist;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_WAIT)) {
            if (v->type == PMIX_BOOL)
                *wait = v->data.flag;
            else if (v->type == PMIX_INT) {
                *wait = true;
                *want = v->data.integer > 0 ? (size_t)v->data.integer : 0;
            } else if (v->type == PMIX_UNDEF)
                *wait = true;
        }
    }
}

/* Can requester see e, asking within range? */
static bool spx_pubsub_visible(const struct spx_pubsub_entry *e, const pmix_proc_t *req,
                               pmix_data_range_t range)
{
    if (e->range == PMIX_RANGE_PROC_LOCAL || range == PMIX_RANGE_PROC_LOCAL)
        return PMIX_CHECK_PROCID(&e->owner, req);
    if (e->range == PMIX_RANGE_NAMESPACE || range == PMIX_RANGE_NAMESPACE)
        return PMIX_CHECK_NSPACE(e->owner.nspace, req->nspace);
    return true;
}

static struct spx_pubsub_entry *spx_pubsub_find(const char *key, const pmix_proc_t *req,
                                                pmix_data_range_t range)
{
    for (struct spx_pubsub_entry *e = spx_pubsub_entries; e; e = e->next)
        if (strcmp(e->key, key) == 0 && spx_pubsub_visible(e, req, range))
            return e;
    return NULL;
}

static void spx_pubsub_entry_free(struct spx_pubsub_entry *e)
{
    PMIX_VALUE_RELEASE(e->value);
    free(e);
}

static void spx_pubsub_unlink(struct spx_pubsub_entry *victim)
{
    for (struct spx_pubsub_entry **pp = &spx_pubsub_entries; *pp; pp = &(*pp)->next)
        if (*pp == victim) {
            *pp = victim->next;
            spx_pubsub_entry_free(victim);
            return;
        }
}

/* Under the lock: build the answer for keys, or return NULL with *nfound
 * counted when fewer than want are there and must_wait is set. The caller
 * frees the result with PMIX_PDATA_FREE(res, *nfound). */
static pmix_pdata_t *spx_pubsub_collect(const pmix_proc_t *req, char **keys,
                                        pmix_data_range_t range, size_t want,
                                        bool must_wait, size_t *nfound)
{
    size_t nkeys = 0, n = 0;
    pmix_pdata_t *res;

    while (keys[nkeys] != NULL)
        nkeys++;
    for (size_t i = 0; i < nkeys; i++)
        if (spx_pubsub_find(keys[i], req, range) != NULL)
            n++;
    *nfound = n;
    if (must_wait && n < (want ? want : nkeys))
        return NULL;
    if (n == 0)
        return NULL;
    PMIX_PDATA_CREATE(res, n);
    if (res == NULL) {
        *nfound = 0;
        return NULL;
    }
    n = 0;
    for (size_t i = 0; i < nkeys; i++) {
        struct spx_pubsub_entry *e = spx_pubsub_find(keys[i], req, range);
        if (e == NULL)
            continue;
        res[n].proc = e->owner;
        PMIX_LOAD_KEY(res[n].key, e->key);
        PMIx_Value_xfer(&res[n].value, e->value);
        n++;
        if (e->persist == PMIX_PERSIST_FIRST_READ)
            spx_pubsub_unlink(e);
    }
    return res;
}

static void spx_pubsub_answer(pmix_lookup_cbfunc_t cb, void *cbdata, pmix_pdata_t *res, size_t n)
{
    cb(n ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, res, n, cbdata);
    if (res != NULL)
        PMIX_PDATA_FREE(res, n);
}

static void spx_pubsub_wait_free(struct spx_pubsub_wait *w)
{
    for (size_t i = 0; i < w->nkeys; i++)
        free(w->keys[i]);
    free(w->keys);
    free(w);
}

/* Retry parked lookups; answer the satisfied ones. Takes the lock. */
static void spx_pubsub_retry(void)
{
    struct spx_pubsub_wait *done = NULL;

    pthread_mutex_lock(&spx_pubsub_lock);
    for (struct spx_pubsub_wait **pp = &spx_pubsub_waits; *pp;) {
        struct spx_pubsub_wait *w = *pp;
        size_t n;
        pmix_pdata_t *res = spx_pubsub_collect(&w->requester, w->keys, w->range,
                                               w->want, true, &n);
        if (res == NULL) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        w->res = res;
        w->nres = n;
        w->next = done;
        done = w;
    }
    pthread_mutex_unlock(&spx_pubsub_lock);
    while (done != NULL) {
        struct spx_pubsub_wait *w = done;
        done = w->next;
        spx_pubsub_answer(w->cbfunc, w->cbdata, w->res, w->nres);
        spx_pubsub_wait_free(w);
    }
}

pmix_status_t spx_pubsub_publish(const pmix_proc_t *proc,
                                 const pmix_info_t info[], size_t ninfo,
                                 pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_data_range_t range = PMIX_RANGE_SESSION;
    pmix_persistence_t persist = PMIX_PERSIST_SESSION;
    size_t want = 0;
    bool wait = false;
    struct spx_pubsub_entry *added = NULL;

    if (proc == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    spx_pubsub_directives(info, ninfo, &range, &persist, &want, &wait);
    pthread_mutex_lock(&spx_pubsub_lock);
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE) || PMIX_CHECK_KEY(&info[i], PMIX_PERSISTENCE) ||
            PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT))
            continue;
        if (spx_pubsub_find(info[i].key, proc, range) != NULL) {
            pthread_mutex_unlock(&spx_pubsub_lock);
            return PMIX_ERR_DUPLICATE_KEY;
        }
    }
    for (size_t i = 0; i < ninfo; i++) {
        struct spx_pubsub_entry *e;
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE) || PMIX_CHECK_KEY(&info[i], PMIX_PERSISTENCE) ||
            PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT))
            continue;
        e = calloc(1, sizeof(*e));
        if (e == NULL)
            break;
        e->owner = *proc;
        PMIX_LOAD_KEY(e->key, info[i].key);
        e->range = range;
        e->persist = persist;
        e->value = calloc(1, sizeof(*e->value));
        if (e->value == NULL || PMIx_Value_xfer(e->value, &info[i].value) != PMIX_SUCCESS) {
            free(e->value);
            free(e);
            break;
        }
        e->next = spx_pubsub_entries;
        spx_pubsub_entries = e;
        added = e;
    }
    pthread_mutex_unlock(&spx_pubsub_lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    if (added != NULL)
        spx_pubsub_retry();
    return PMIX_SUCCESS;
}

pmix_status_t spx_pubsub_lookup(const pmix_proc_t *proc, char **keys,
                                const pmix_info_t info[], size_t ninfo,
                                pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    pmix_data_range_t range = PMIX_RANGE_SESSION;
    pmix_persistence_t persist = PMIX_PERSIST_SESSION;
    size_t want = 0, n, nkeys = 0;
    bool wait = false;
    pmix_pdata_t *res;
    struct spx_pubsub_wait *w;

    if (proc == NULL || keys == NULL || keys[0] == NULL || cbfunc == NULL)
        return PMIX_ERR_BAD_PARAM;
    while (keys[nkeys] != NULL)
        nkeys++;
    spx_pubsub_directives(info, ninfo, &range, &persist, &want, &wait);
    pthread_mutex_lock(&spx_pubsub_lock);
    res = spx_pubsub_collect(proc, keys, range, want, wait, &n);
    if (res != NULL || !wait) {
        pthread_mutex_unlock(&spx_pubsub_lock);
        spx_pubsub_answer(cbfunc, cbdata, res, n);
        return PMIX_SUCCESS;
    }
    /* park it until enough keys are published */
    w = calloc(1, sizeof(*w));
    if (w != NULL)
        w->keys = calloc(nkeys + 1, sizeof(char *));
    if (w == NULL || w->keys == NULL) {
        pthread_mutex_unlock(&spx_pubsub_lock);
        free(w);
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < nkeys; i++) {
        w->keys[i] = strdup(keys[i]);
        if (w->keys[i] == NULL) {
            pthread_mutex_unlock(&spx_pubsub_lock);
            w->nkeys = i;
            spx_pubsub_wait_free(w);
            return PMIX_ERR_NOMEM;
        }
    }
    w->nkeys = nkeys;
    w->want = want;
    w->requester = *proc;
    w->range = range;
    w->cbfunc = cbfunc;
    w->cbdata = cbdata;
    w->next = spx_pubsub_waits;
    spx_pubsub_waits = w;
    pthread_mutex_unlock(&spx_pubsub_lock);
    return PMIX_SUCCESS;
}

pmix_status_t spx_pubsub_unpublish(const pmix_proc_t *proc, char **keys,
                                   const pmix_info_t info[], size_t ninfo,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (proc == NULL)
        return PMIX_ERR_BAD_PARAM;
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&spx_pubsub_lock);
    for (struct spx_pubsub_entry **pp = &spx_pubsub_entries; *pp;) {
        struct spx_pubsub_entry *e = *pp;
        bool match = PMIX_CHECK_PROCID(&e->owner, proc);
        if (match && keys != NULL) {
            match = false;
            for (size_t i = 0; keys[i] != NULL && !match; i++)
                match = strcmp(keys[i], e->key) == 0;
        }
        if (match) {
            *pp = e->next;
            spx_pubsub_entry_free(e);
        } else {
            pp = &e->next;
        }
    }
    pthread_mutex_unlock(&spx_pubsub_lock);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

void spx_pubsub_proc_gone(const pmix_proc_t *proc)
{
    struct spx_pubsub_wait *dropped = NULL;

    pthread_mutex_lock(&spx_pubsub_lock);
    for (struct spx_pubsub_entry **pp = &spx_pubsub_entries; *pp;) {
        struct spx_pubsub_entry *e = *pp;
        if (e->persist == PMIX_PERSIST_PROC && PMIX_CHECK_PROCID(&e->owner, proc)) {
            *pp = e->next;
            spx_pubsub_entry_free(e);
        } else {
            pp = &e->next;
        }
    }
    for (struct spx_pubsub_wait **pp = &spx_pubsub_waits; *pp;) {
        struct spx_pubsub_wait *w = *pp;
        if (PMIX_CHECK_PROCID(&w->requester, proc)) {
            *pp = w->next;
            w->next = dropped;
            dropped = w;
        } else {
            pp = &w->next;
        }
    }
    pthread_mutex_unlock(&spx_pubsub_lock);
    /* the requester is gone: nobody waits for the answer any more */
    while (dropped != NULL) {
        struct spx_pubsub_wait *w = dropped;
        dropped = w->next;
        w->cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, w->cbdata);
        spx_pubsub_wait_free(w);
    }
}

void spx_pubsub_fini(void)
{
    struct spx_pubsub_wait *waits;
    struct spx_pubsub_entry *entries;

    pthread_mutex_lock(&spx_pubsub_lock);
    waits = spx_pubsub_waits;
    entries = spx_pubsub_entries;
    spx_pubsub_waits = NULL;
    spx_pubsub_entries = NULL;
    pthread_mutex_unlock(&spx_pubsub_lock);
    while (waits != NULL) {
        struct spx_pubsub_wait *w = waits;
        waits = w->next;
        w->cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, w->cbdata);
        spx_pubsub_wait_free(w);
    }
    while (entries != NULL) {
        struct spx_pubsub_entry *e = entries;
        entries = e->next;
        spx_pubsub_entry_free(e);
    }
}
