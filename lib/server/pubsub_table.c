/*
 * pubsub_table: the publish/lookup/unpublish table of the server's own
 * directory (lib/server/pubsub.c).
 *
 * Data flow: publish copies each info into an entry (key, value, publisher,
 * range, persistence) on spx_pubsub_entries, then retries the parked lookups;
 * lookup collects the visible entries for its keys into a pdata array and
 * answers, or parks itself (keys copied) when PMIX_WAIT asked for more than
 * is there. FIRST_READ entries are removed when they are read, PROC entries
 * when their publisher goes away. Answers are sent once the table is
 * consistent again (a callback may call back into it).
 *
 * Progress-thread state, no lock: the directory engine (pubsub.c) is the only
 * caller, from client requests, tree messages and the server's stop, all on
 * the progress thread; every entry point asserts it.
 */
#include "config.h"
#include "server/pubsub_table.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "progress/progress.h"

struct spx_pubsub_entry {
    TAILQ_ENTRY(spx_pubsub_entry) link; /* in spx_pubsub_entries, newest first */
    pmix_proc_t owner;
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_value_t *value;             /* owned, PMIX_VALUE_RELEASE */
    pmix_data_range_t range;
    pmix_persistence_t persist;
};

struct spx_pubsub_wait {
    TAILQ_ENTRY(spx_pubsub_wait) link; /* in spx_pubsub_waits (newest first) or a batch */
    pmix_proc_t requester;
    char **keys;                     /* owned, NULL-terminated */
    size_t nkeys, want;              /* answer once want keys are found */
    pmix_data_range_t range;
    pmix_lookup_cbfunc_t cbfunc;
    void *cbdata;
    pmix_pdata_t *res;               /* the answer, once found */
    size_t nres;
};

TAILQ_HEAD(spx_pubsub_entry_list, spx_pubsub_entry);
TAILQ_HEAD(spx_pubsub_wait_list, spx_pubsub_wait);
static struct spx_pubsub_entry_list spx_pubsub_entries = TAILQ_HEAD_INITIALIZER(spx_pubsub_entries);
static struct spx_pubsub_wait_list spx_pubsub_waits = TAILQ_HEAD_INITIALIZER(spx_pubsub_waits);

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
    struct spx_pubsub_entry *e;
    TAILQ_FOREACH(e, &spx_pubsub_entries, link)
        if (strcmp(e->key, key) == 0 && spx_pubsub_visible(e, req, range))
            return e;
    return NULL;
}

static void spx_pubsub_entry_free(struct spx_pubsub_entry *e)
{
    PMIX_VALUE_RELEASE(e->value);
    free(e);
}

/* victim is in spx_pubsub_entries. */
static void spx_pubsub_unlink(struct spx_pubsub_entry *victim)
{
    TAILQ_REMOVE(&spx_pubsub_entries, victim, link);
    spx_pubsub_entry_free(victim);
}

/* Build the answer for keys, or return NULL with *nfound
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

/* Answers (status NOT_FOUND and no data unless w->res is set) and frees
 * every wait of batch, in its order. */
static void spx_pubsub_answer_all(struct spx_pubsub_wait_list *batch)
{
    struct spx_pubsub_wait *w;
    while ((w = TAILQ_FIRST(batch))) {
        TAILQ_REMOVE(batch, w, link);
        if (w->res != NULL)
            spx_pubsub_answer(w->cbfunc, w->cbdata, w->res, w->nres);
        else
            w->cbfunc(PMIX_ERR_NOT_FOUND, NULL, 0, w->cbdata);
        spx_pubsub_wait_free(w);
    }
}

/* Retry parked lookups, newest first (the newest takes a FIRST_READ entry);
 * answer the satisfied ones, oldest first. */
static void spx_pubsub_retry(void)
{
    struct spx_pubsub_wait_list done = TAILQ_HEAD_INITIALIZER(done);

    for (struct spx_pubsub_wait *w = TAILQ_FIRST(&spx_pubsub_waits), *next; w; w = next) {
        next = TAILQ_NEXT(w, link);
        size_t n;
        pmix_pdata_t *res = spx_pubsub_collect(&w->requester, w->keys, w->range,
                                               w->want, true, &n);
        if (res == NULL)
            continue;
        TAILQ_REMOVE(&spx_pubsub_waits, w, link);
        w->res = res;
        w->nres = n;
        TAILQ_INSERT_HEAD(&done, w, link);
    }
    spx_pubsub_answer_all(&done);
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

    assert(spx_progress_on_thread());
    if (proc == NULL || (info == NULL && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    spx_pubsub_directives(info, ninfo, &range, &persist, &want, &wait);
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE) || PMIX_CHECK_KEY(&info[i], PMIX_PERSISTENCE) ||
            PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT))
            continue;
        if (spx_pubsub_find(info[i].key, proc, range) != NULL)
            return PMIX_ERR_DUPLICATE_KEY;
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
        TAILQ_INSERT_HEAD(&spx_pubsub_entries, e, link);
        added = e;
    }
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

    assert(spx_progress_on_thread());
    if (proc == NULL || keys == NULL || keys[0] == NULL || cbfunc == NULL)
        return PMIX_ERR_BAD_PARAM;
    while (keys[nkeys] != NULL)
        nkeys++;
    spx_pubsub_directives(info, ninfo, &range, &persist, &want, &wait);
    res = spx_pubsub_collect(proc, keys, range, want, wait, &n);
    if (res != NULL || !wait) {
        spx_pubsub_answer(cbfunc, cbdata, res, n);
        return PMIX_SUCCESS;
    }
    /* park it until enough keys are published */
    w = calloc(1, sizeof(*w));
    if (w != NULL)
        w->keys = calloc(nkeys + 1, sizeof(char *));
    if (w == NULL || w->keys == NULL) {
        free(w);
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < nkeys; i++) {
        w->keys[i] = strdup(keys[i]);
        if (w->keys[i] == NULL) {
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
    TAILQ_INSERT_HEAD(&spx_pubsub_waits, w, link);
    return PMIX_SUCCESS;
}

pmix_status_t spx_pubsub_unpublish(const pmix_proc_t *proc, char **keys,
                                   const pmix_info_t info[], size_t ninfo,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    assert(spx_progress_on_thread());
    if (proc == NULL)
        return PMIX_ERR_BAD_PARAM;
    (void)info;
    (void)ninfo;
    for (struct spx_pubsub_entry *e = TAILQ_FIRST(&spx_pubsub_entries), *next; e; e = next) {
        next = TAILQ_NEXT(e, link);
        bool match = PMIX_CHECK_PROCID(&e->owner, proc);
        if (match && keys != NULL) {
            match = false;
            for (size_t i = 0; keys[i] != NULL && !match; i++)
                match = strcmp(keys[i], e->key) == 0;
        }
        if (match)
            spx_pubsub_unlink(e);
    }
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

void spx_pubsub_proc_gone(const pmix_proc_t *proc)
{
    struct spx_pubsub_wait_list dropped = TAILQ_HEAD_INITIALIZER(dropped);

    assert(spx_progress_on_thread());
    for (struct spx_pubsub_entry *e = TAILQ_FIRST(&spx_pubsub_entries), *next; e; e = next) {
        next = TAILQ_NEXT(e, link);
        if (e->persist == PMIX_PERSIST_PROC && PMIX_CHECK_PROCID(&e->owner, proc))
            spx_pubsub_unlink(e);
    }
    for (struct spx_pubsub_wait *w = TAILQ_FIRST(&spx_pubsub_waits), *next; w; w = next) {
        next = TAILQ_NEXT(w, link);
        if (PMIX_CHECK_PROCID(&w->requester, proc)) {
            TAILQ_REMOVE(&spx_pubsub_waits, w, link);
            TAILQ_INSERT_HEAD(&dropped, w, link); /* answered oldest first */
        }
    }
    /* the requester is gone: nobody waits for the answer any more */
    spx_pubsub_answer_all(&dropped);
}

void spx_pubsub_fini(void)
{
    struct spx_pubsub_wait_list waits = TAILQ_HEAD_INITIALIZER(waits);
    struct spx_pubsub_entry_list entries = TAILQ_HEAD_INITIALIZER(entries);
    struct spx_pubsub_entry *e;

    assert(spx_progress_on_thread());
    /* taken whole first: an answer's callback may reach the table again */
    TAILQ_CONCAT(&waits, &spx_pubsub_waits, link);
    TAILQ_CONCAT(&entries, &spx_pubsub_entries, link);
    spx_pubsub_answer_all(&waits); /* newest first */
    while ((e = TAILQ_FIRST(&entries))) {
        TAILQ_REMOVE(&entries, e, link);
        spx_pubsub_entry_free(e);
    }
}
