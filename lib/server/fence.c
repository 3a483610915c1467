/* fence.c - the local fence engine (contract in fence.h).
 *
 * Trackers live on one list (a <sys/queue.h> TAILQ) in creation order. A
 * tracker gathers arrivals until all expected local participants are in
 * (GATHER), then waits for the host (HOST), then answers everybody and is
 * unlinked. Host tokens are kept on their own list (a LIST, newest first;
 * they are found by address): they carry the contribution bytes and the id
 * of their tracker, so an answer that comes after the tracker timed out finds
 * no tracker and is dropped without touching freed memory.
 */
#include "config.h"
#include "server/fence.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/uio.h>

#include "util/log.h"
#include "util/strhash.h"

const char *spx_fence_trk_state_str(spx_fence_trk_state_t s)
{
    switch (s) {
    case SPX_FENCE_TRK_GATHER:
        return "gather";
    case SPX_FENCE_TRK_HOST:
        return "host";
    }
    return "unknown";
}

struct arrival {
    pmix_proc_t proc;
    void *requester;
    bool collect;
};

struct tracker {
    TAILQ_ENTRY(tracker) link; /* in its engine's trackers, oldest first */
    uint64_t id;
    uint64_t seq;           /* n-th collective of this set */
    spx_fence_trk_state_t state;
    char *key;              /* canonical set name (owned) */
    pmix_proc_t *set;       /* sorted, unique (owned) */
    size_t nset;
    pmix_proc_t *local;     /* expected local participants (owned) */
    size_t nlocal;
    struct arrival *arr;    /* owned, capacity nlocal + 1 grows as needed */
    size_t narr, carr;
    void *timer;            /* ops handle or NULL */
    double timeout;         /* seconds asked by the participants (largest), 0 for none */
    bool collect;           /* handed to the host as a collecting fence */
    uint64_t *upto;         /* per local participant: what contribute returned (owned) */
};

struct host_token {
    LIST_ENTRY(host_token) link; /* in its engine's tokens, newest first */
    uint64_t tracker_id;
    spx_fence_opts_t opts;  /* what the fence runs with */
    char *data;             /* contribution bytes (owned) */
    size_t ndata;
    size_t cap;             /* bytes allocated at data */
};

struct set_counter {        /* how many collectives each set has had */
    SLIST_ENTRY(set_counter) link; /* in its engine's counters, last used first */
    char *key;
    uint64_t hash;                 /* spx_strhash(key), compared first */
    uint64_t count;
};

struct spx_fence_engine {
    const spx_fence_ops_t *ops;
    void *arg;
    TAILQ_HEAD(, tracker) trackers;     /* owned, in creation order */
    LIST_HEAD(, host_token) tokens;     /* owned */
    SLIST_HEAD(, set_counter) counters; /* owned, freed with the engine only */
    uint64_t next_id;
    /* the block of a finished fence's contribution, written into by the next
     * one (owned, spare_cap bytes; NULL if none): no free and fresh pages
     * per fence */
    char *spare;
    size_t spare_cap;
};

#define SPX_FENCE_SPARE_MAX (16u << 20) /* largest contribution block kept */

/* tok's contribution is no longer needed: keep its block as the spare if it
 * is the larger, else free it. */
static void token_data_done(spx_fence_engine_t *e, struct host_token *tok)
{
    if (tok->data && tok->cap <= SPX_FENCE_SPARE_MAX && tok->cap > e->spare_cap) {
        free(e->spare);
        e->spare = tok->data;
        e->spare_cap = tok->cap;
    } else {
        free(tok->data);
    }
    tok->data = NULL;
}

static int proc_cmp(const void *a, const void *b)
{
    const pmix_proc_t *x = a, *y = b;
    int c = strncmp(x->nspace, y->nspace, PMIX_MAX_NSLEN);
    if (c)
        return c;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static bool proc_eq(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return a->rank == b->rank && strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN) == 0;
}

bool spx_fence_proc_in_set(const pmix_proc_t *proc, const pmix_proc_t *set, size_t nset)
{
    for (size_t i = 0; i < nset; i++)
        if (strncmp(proc->nspace, set[i].nspace, PMIX_MAX_NSLEN) == 0 &&
            (set[i].rank == proc->rank || set[i].rank == PMIX_RANK_WILDCARD))
            return true;
    return false;
}

/* Sorted unique copy of set and its name "ns:rank;ns:*;..." (both malloc'd). */
static int canonical_set(const pmix_proc_t *set, size_t nset, const char *tag, pmix_proc_t **out,
                         size_t *nout, char **key)
{
    pmix_proc_t *s = malloc(nset * sizeof(*s));
    if (!s)
        return -1;
    memcpy(s, set, nset * sizeof(*s));
    for (size_t i = 0; i < nset; i++)
        s[i].nspace[PMIX_MAX_NSLEN] = '\0';
    qsort(s, nset, sizeof(*s), proc_cmp);
    size_t n = 0;
    for (size_t i = 0; i < nset; i++)
        if (n == 0 || !proc_eq(&s[n - 1], &s[i]))
            s[n++] = s[i];
    size_t cap = 2 + (tag ? strlen(tag) : 0);
    for (size_t i = 0; i < n; i++)
        cap += strlen(s[i].nspace) + 13;
    char *k = malloc(cap), *p = k;
    if (!k) {
        free(s);
        return -1;
    }
    *p = '\0';
    if (tag)
        p += sprintf(p, "%s|", tag);
    for (size_t i = 0; i < n; i++)
        p += s[i].rank == PMIX_RANK_WILDCARD ? sprintf(p, "%s:*;", s[i].nspace)
                                             : sprintf(p, "%s:%u;", s[i].nspace, (unsigned)s[i].rank);
    *out = s;
    *nout = n;
    *key = k;
    return 0;
}

static uint64_t next_set_seq(spx_fence_engine_t *e, const char *key)
{
    struct set_counter *c;
    uint64_t h = spx_strhash(key);
    SLIST_FOREACH(c, &e->counters, link)
        if (c->hash == h && strcmp(c->key, key) == 0) {
            if (c != SLIST_FIRST(&e->counters)) { /* the sets in use stay in front */
                SLIST_REMOVE(&e->counters, c, set_counter, link);
                SLIST_INSERT_HEAD(&e->counters, c, link);
            }
            return ++c->count;
        }
    c = calloc(1, sizeof(*c));
    if (c && (c->key = strdup(key))) {
        c->hash = h;
        SLIST_INSERT_HEAD(&e->counters, c, link);
        return ++c->count;
    }
    free(c);
    return 0;
}

spx_fence_engine_t *spx_fence_engine_create(const spx_fence_ops_t *ops, void *arg)
{
    spx_fence_engine_t *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->ops = ops;
    e->arg = arg;
    e->next_id = 1;
    TAILQ_INIT(&e->trackers);
    return e;
}

static void tracker_free(struct tracker *t)
{
    free(t->key);
    free(t->set);
    free(t->local);
    free(t->arr);
    free(t->upto);
    free(t);
}

/* Answers every arrival with status, then unlinks and frees the tracker. */
static void tracker_finish(spx_fence_engine_t *e, struct tracker *t, pmix_status_t status)
{
    TAILQ_REMOVE(&e->trackers, t, link); /* on the list from tracker_create until here */
    if (t->timer)
        e->ops->timer_cancel(t->timer, e->arg);
    t->timer = NULL;
    spx_debug("fence %s#%llu: done in state %s, status %d, %zu participants", t->key,
              (unsigned long long)t->seq, spx_fence_trk_state_str(t->state), status, t->narr);
    if (status == PMIX_SUCCESS && t->collect && t->upto && e->ops->contributed)
        for (size_t i = 0; i < t->nlocal; i++)
            e->ops->contributed(&t->local[i], t->key, t->upto[i], e->arg);
    for (size_t i = 0; i < t->narr; i++)
        e->ops->reply(t->arr[i].requester, status, e->arg);
    tracker_free(t);
}

/* Fails a tracker that never reached the host: the other nodes are told first. */
static void tracker_fail_local(spx_fence_engine_t *e, struct tracker *t, pmix_status_t status)
{
    if (t->state == SPX_FENCE_TRK_GATHER && e->ops->local_failed) {
        bool collect = false;
        for (size_t i = 0; i < t->narr; i++)
            collect |= t->arr[i].collect;
        e->ops->local_failed(t->set, t->nset, t->key, collect, status, t->timeout, e->arg);
    }
    tracker_finish(e, t, status);
}

static struct tracker *tracker_find_id(spx_fence_engine_t *e, uint64_t id)
{
    struct tracker *t;
    TAILQ_FOREACH(t, &e->trackers, link)
        if (t->id == id)
            return t;
    return NULL;
}

static bool tracker_has_arrived(const struct tracker *t, const pmix_proc_t *p)
{
    for (size_t i = 0; i < t->narr; i++)
        if (proc_eq(&t->arr[i].proc, p))
            return true;
    return false;
}

static struct tracker *tracker_create(spx_fence_engine_t *e, const pmix_proc_t *set, size_t nset,
                                      const char *tag, pmix_status_t *gone)
{
    struct tracker *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    if (canonical_set(set, nset, tag, &t->set, &t->nset, &t->key) != 0) {
        free(t);
        return NULL;
    }
    *gone = PMIX_SUCCESS;
    t->nlocal = e->ops->local_members(t->set, t->nset, &t->local, gone, e->arg);
    t->id = e->next_id++;
    /* the number of a set's collective is for log lines; a tagged one (a
     * group's, usually of a set used once) is not counted, so that a job
     * building many groups does not grow the counters */
    t->seq = tag ? 0 : next_set_seq(e, t->key);
    t->state = SPX_FENCE_TRK_GATHER;
    /* append: older trackers of a set are matched first */
    TAILQ_INSERT_TAIL(&e->trackers, t, link);
    return t;
}

/* All local participants are in: check the collect flags, build the
 * contribution and hand it to the host. */
static void tracker_local_complete(spx_fence_engine_t *e, struct tracker *t)
{
    size_t ncollect = 0;
    for (size_t i = 0; i < t->narr; i++)
        ncollect += t->arr[i].collect;
    if (ncollect != 0 && ncollect != t->narr) {
        spx_warn("fence %s#%llu: %zu of %zu participants asked to collect data: bad parameter",
                 t->key, (unsigned long long)t->seq, ncollect, t->narr);
        tracker_fail_local(e, t, PMIX_ERR_BAD_PARAM);
        return;
    }
    bool collect = ncollect != 0;
    struct host_token *tok = calloc(1, sizeof(*tok));
    if (!tok) {
        tracker_fail_local(e, t, PMIX_ERR_NOMEM);
        return;
    }
    if (collect) {
        spx_buf_t b;
        spx_buf_init(&b);
        if (e->spare) { /* an empty buffer writing into the spare block (taken) */
            b.data = (uint8_t *)e->spare;
            b.cap = e->spare_cap;
            e->spare = NULL;
            e->spare_cap = 0;
        }
        t->upto = calloc(t->nlocal ? t->nlocal : 1, sizeof(*t->upto));
        for (size_t i = 0; t->upto && i < t->nlocal; i++)
            t->upto[i] = e->ops->contribute(&t->local[i], t->key, &b, e->arg);
        if (spx_buf_failed(&b) || !t->upto) {
            spx_buf_fini(&b);
            free(tok);
            tracker_fail_local(e, t, PMIX_ERR_NOMEM);
            return;
        }
        tok->cap = b.cap;
        tok->data = spx_buf_release(&b, &tok->ndata);
    }
    tok->tracker_id = t->id;
    tok->opts = (spx_fence_opts_t){.collect = collect, .timeout = t->timeout};
    LIST_INSERT_HEAD(&e->tokens, tok, link);
    t->state = SPX_FENCE_TRK_HOST;
    t->collect = collect;

    pmix_info_t info[2];
    size_t ninfo = 0;
    memset(info, 0, sizeof(info));
    if (collect) {
        snprintf(info[ninfo].key, sizeof(info[ninfo].key), "%s", PMIX_COLLECT_DATA);
        info[ninfo].value.type = PMIX_BOOL;
        info[ninfo].value.data.flag = true;
        ninfo++;
    }
    if (t->timeout > 0) {
        snprintf(info[ninfo].key, sizeof(info[ninfo].key), "%s", PMIX_TIMEOUT);
        info[ninfo].value.type = PMIX_INT;
        info[ninfo].value.data.integer = (int)t->timeout;
        ninfo++;
    }
    pmix_status_t rc = e->ops->host_fence(t->set, t->nset, t->key, ninfo ? info : NULL, ninfo,
                                          tok->data, tok->ndata, tok, e->arg);
    if (rc == PMIX_SUCCESS)
        return; /* the host answers through spx_fence_host_done */
    /* no answer will come: complete now (host_done finds the tracker by id, so
     * this is safe even if host_fence re-entered the engine) */
    if (rc == PMIX_OPERATION_SUCCEEDED || rc == PMIX_ERR_NOT_SUPPORTED)
        rc = PMIX_SUCCESS;
    spx_fence_host_done(e, tok, rc, NULL, 0);
}

const spx_fence_opts_t *spx_fence_token_opts(const void *token)
{
    return &((const struct host_token *)token)->opts;
}

void spx_fence_arrive(spx_fence_engine_t *e, const pmix_proc_t *caller, const pmix_proc_t *set,
                      size_t nset, bool collect, double timeout, void *requester)
{
    spx_fence_arrive_tagged(e, caller, set, nset, NULL, collect, timeout, requester);
}

void spx_fence_arrive_tagged(spx_fence_engine_t *e, const pmix_proc_t *caller,
                             const pmix_proc_t *set, size_t nset, const char *tag, bool collect,
                             double timeout, void *requester)
{
    if (nset == 0 || !set) {
        e->ops->reply(requester, PMIX_ERR_BAD_PARAM, e->arg);
        return;
    }
    if (!spx_fence_proc_in_set(caller, set, nset)) {
        e->ops->reply(requester, PMIX_ERR_NOT_A_MEMBER, e->arg);
        return;
    }
    pmix_proc_t *cs;
    size_t ncs;
    char *key;
    if (canonical_set(set, nset, tag, &cs, &ncs, &key) != 0) {
        e->ops->reply(requester, PMIX_ERR_NOMEM, e->arg);
        return;
    }
    struct tracker *t;
    TAILQ_FOREACH(t, &e->trackers, link)
        if (t->state == SPX_FENCE_TRK_GATHER && strcmp(t->key, key) == 0 &&
            !tracker_has_arrived(t, caller))
            break;
    free(cs);
    free(key);
    pmix_status_t gone = PMIX_SUCCESS;
    if (!t && !(t = tracker_create(e, set, nset, tag, &gone))) {
        e->ops->reply(requester, PMIX_ERR_NOMEM, e->arg);
        return;
    }
    /* an arrival not in the expected list (should not happen) is added to it */
    bool expected = false;
    for (size_t i = 0; i < t->nlocal && !expected; i++)
        expected = proc_eq(&t->local[i], caller);
    if (!expected) {
        pmix_proc_t *l = realloc(t->local, (t->nlocal + 1) * sizeof(*l));
        if (!l) {
            e->ops->reply(requester, PMIX_ERR_NOMEM, e->arg);
            return;
        }
        t->local = l;
        t->local[t->nlocal++] = *caller;
    }
    if (t->narr == t->carr) {
        size_t nc = t->carr ? 2 * t->carr : t->nlocal + 1;
        struct arrival *a = realloc(t->arr, nc * sizeof(*a));
        if (!a) {
            e->ops->reply(requester, PMIX_ERR_NOMEM, e->arg);
            return;
        }
        t->arr = a;
        t->carr = nc;
    }
    t->arr[t->narr++] = (struct arrival){.proc = *caller, .requester = requester,
                                         .collect = collect};
    spx_debug("fence %s#%llu: %s:%u arrived (%zu/%zu)", t->key, (unsigned long long)t->seq,
              caller->nspace, (unsigned)caller->rank, t->narr, t->nlocal);
    if (timeout > t->timeout)
        t->timeout = timeout;
    if (gone != PMIX_SUCCESS) {
        tracker_fail_local(e, t, gone);
        return;
    }
    if (timeout > 0 && !t->timer)
        t->timer = e->ops->timer_arm(timeout, t->id, e->arg);
    if (t->narr >= t->nlocal)
        tracker_local_complete(e, t);
}

void spx_fence_host_done(spx_fence_engine_t *e, void *token, pmix_status_t status,
                         const char *data, size_t ndata)
{
    struct iovec v = { .iov_base = (void *)data, .iov_len = data ? ndata : 0 };
    spx_fence_host_done_segs(e, token, status, &v, v.iov_len ? 1 : 0);
}

void spx_fence_host_done_segs(spx_fence_engine_t *e, void *token, pmix_status_t status,
                              const struct iovec *segs, size_t nsegs)
{
    struct host_token *tok;
    LIST_FOREACH(tok, &e->tokens, link)
        if (tok == token) {
            LIST_REMOVE(tok, link);
            break;
        }
    if (!tok) {
        spx_warn("fence: answer from the host for an unknown request ignored");
        return;
    }
    struct tracker *t = tracker_find_id(e, tok->tracker_id);
    token_data_done(e, tok);
    free(tok);
    if (!t || t->state != SPX_FENCE_TRK_HOST) {
        spx_debug("fence: late answer from the host ignored (tracker gone)");
        return;
    }
    if (status == PMIX_SUCCESS && nsegs > 1 && !e->ops->deliver_pieces) {
        size_t len = 0;
        for (size_t i = 0; i < nsegs; i++)
            len += segs[i].iov_len;
        char *joined = malloc(len ? len : 1);
        if (!joined) {
            status = PMIX_ERR_NOMEM;
        } else {
            for (size_t i = 0, at = 0; i < nsegs; at += segs[i].iov_len, i++)
                memcpy(joined + at, segs[i].iov_base, segs[i].iov_len);
            if (len)
                status = e->ops->deliver(joined, len, e->arg);
            free(joined);
        }
        nsegs = 0;
    }
    for (size_t i = 0; i < nsegs && status == PMIX_SUCCESS; i++)
        if (segs[i].iov_len > 0)
            status = e->ops->deliver(segs[i].iov_base, segs[i].iov_len, e->arg);
    tracker_finish(e, t, status);
}

void spx_fence_timeout(spx_fence_engine_t *e, uint64_t id)
{
    struct tracker *t = tracker_find_id(e, id);
    if (!t)
        return;
    t->timer = NULL; /* fired: must not be cancelled */
    spx_warn("fence %s#%llu: timed out with %zu of %zu local participants in", t->key,
             (unsigned long long)t->seq, t->narr, t->nlocal);
    tracker_fail_local(e, t, PMIX_ERR_TIMEOUT);
}

void spx_fence_proc_lost(spx_fence_engine_t *e, const pmix_proc_t *proc)
{
    struct tracker *t, *next;
    for (t = TAILQ_FIRST(&e->trackers); t; t = next) {
        next = TAILQ_NEXT(t, link);
        if (t->state != SPX_FENCE_TRK_GATHER)
            continue; /* the host owns its completion now */
        bool member = false;
        for (size_t i = 0; i < t->nlocal && !member; i++)
            member = proc_eq(&t->local[i], proc);
        if (!member)
            continue;
        spx_warn("fence %s#%llu: participant %s:%u went away", t->key,
                 (unsigned long long)t->seq, proc->nspace, (unsigned)proc->rank);
        /* the other nodes wait for this node's contribution: local_failed tells them */
        tracker_fail_local(e, t, PMIX_ERR_PROC_ABORTED);
        next = TAILQ_FIRST(&e->trackers); /* the list changed: rescan (finished ones are gone) */
    }
}

void spx_fence_proc_departed(spx_fence_engine_t *e, const pmix_proc_t *proc)
{
    struct tracker *t, *next;
    for (t = TAILQ_FIRST(&e->trackers); t; t = next) {
        next = TAILQ_NEXT(t, link);
        if (t->state != SPX_FENCE_TRK_GATHER || tracker_has_arrived(t, proc))
            continue;
        size_t i = 0;
        while (i < t->nlocal && !proc_eq(&t->local[i], proc))
            i++;
        if (i == t->nlocal)
            continue;
        t->local[i] = t->local[--t->nlocal]; /* order of local is not used */
        spx_debug("fence %s#%llu: %s:%u finalized: no longer expected (%zu/%zu)", t->key,
                  (unsigned long long)t->seq, proc->nspace, (unsigned)proc->rank, t->narr,
                  t->nlocal);
        if (t->narr > 0 && t->narr >= t->nlocal) {
            tracker_local_complete(e, t); /* may finish t and change the list */
            next = TAILQ_FIRST(&e->trackers);
        }
    }
}

static size_t fail_matching(spx_fence_engine_t *e, spx_fence_pred_f pred, void *pred_arg,
                            pmix_status_t status, bool gathering_only)
{
    size_t n = 0;
    struct tracker *t, *next;
    for (t = TAILQ_FIRST(&e->trackers); t; t = next) {
        next = TAILQ_NEXT(t, link);
        if ((gathering_only && t->state != SPX_FENCE_TRK_GATHER) || !pred(t->set, t->nset, pred_arg))
            continue;
        spx_warn("fence %s#%llu: failed (status %d)", t->key, (unsigned long long)t->seq,
                 status);
        tracker_fail_local(e, t, status);
        n++;
        next = TAILQ_FIRST(&e->trackers); /* the list changed: rescan (finished ones are gone) */
    }
    return n;
}

size_t spx_fence_fail_if(spx_fence_engine_t *e, spx_fence_pred_f pred, void *pred_arg,
                         pmix_status_t status)
{
    return fail_matching(e, pred, pred_arg, status, false);
}

size_t spx_fence_fail_gathering_if(spx_fence_engine_t *e, spx_fence_pred_f pred,
                                   void *pred_arg, pmix_status_t status)
{
    return fail_matching(e, pred, pred_arg, status, true);
}

size_t spx_fence_count(const spx_fence_engine_t *e)
{
    size_t n = 0;
    const struct tracker *t;
    TAILQ_FOREACH(t, &e->trackers, link)
        n++;
    return n;
}

void spx_fence_engine_destroy(spx_fence_engine_t *e)
{
    if (!e)
        return;
    struct tracker *t;
    while ((t = TAILQ_FIRST(&e->trackers)))
        tracker_finish(e, t, PMIX_ERR_NOT_AVAILABLE);
    struct host_token *tok;
    while ((tok = LIST_FIRST(&e->tokens))) {
        LIST_REMOVE(tok, link);
        free(tok->data);
        free(tok);
    }
    free(e->spare);
    struct set_counter *c;
    while ((c = SLIST_FIRST(&e->counters))) {
        SLIST_REMOVE_HEAD(&e->counters, link);
        free(c->key);
        free(c);
    }
    free(e);
}
