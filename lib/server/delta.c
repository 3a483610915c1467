/* delta.c - delta-exchange bookkeeping (contract in delta.h).
 *
 * A small list (<sys/queue.h> LIST, newest first; lookups are by key, so the order
 * matters to nobody) keyed by (nspace, rank): a node hosts few processes, and
 * it is walked once per local participant per collecting fence. The record
 * itself is written by proto/records.c; this file only chooses where it starts
 * and counts what went out (value entries vs deletion entries).
 */
#include "config.h"
#include "server/delta.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "proto/records.h"

struct entry {
    LIST_ENTRY(entry) link;     /* in its spx_delta's entries */
    pmix_proc_t proc;
    char *set_key;      /* owned */
    uint64_t upto;
};

struct spx_delta {
    LIST_HEAD(, entry) entries; /* owned */
};

spx_delta_t *spx_delta_create(void)
{
    return calloc(1, sizeof(spx_delta_t));
}

void spx_delta_destroy(spx_delta_t *d)
{
    if (!d)
        return;
    struct entry *e;
    while ((e = LIST_FIRST(&d->entries))) {
        LIST_REMOVE(e, link);
        free(e->set_key);
        free(e);
    }
    free(d);
}

static struct entry *find(const spx_delta_t *d, const pmix_proc_t *proc)
{
    struct entry *e;
    LIST_FOREACH(e, &d->entries, link)
        if (e->proc.rank == proc->rank &&
            strncmp(e->proc.nspace, proc->nspace, PMIX_MAX_NSLEN) == 0)
            return e;
    return NULL;
}

uint64_t spx_delta_since(const spx_delta_t *d, const pmix_proc_t *proc, const char *set_key)
{
    const struct entry *e = d ? find(d, proc) : NULL;
    if (!e || !set_key || strcmp(e->set_key, set_key) != 0)
        return 0;
    return e->upto;
}

struct count_ctx {
    unsigned mask;
    size_t ndels;
};

static int count_dels(const char *key, const pmix_value_t *val, pmix_scope_t scope, uint64_t seq,
                      void *arg)
{
    (void)key, (void)seq;
    struct count_ctx *c = arg;
    if (!val && (c->mask & SPX_SCOPE_BIT(scope)))
        c->ndels++;
    return 0;
}

void spx_delta_contribute(const spx_delta_t *d, const spx_store_t *s, const pmix_proc_t *proc,
                          const char *set_key, unsigned scope_mask, spx_buf_t *out,
                          spx_delta_contrib_t *res)
{
    spx_delta_contrib_t r = {0};
    r.since = spx_delta_since(d, proc, set_key);
    uint64_t max = r.since;
    size_t n = spx_records_push_proc(out, s, proc->nspace, proc->rank, r.since, scope_mask,
                                     false, &max);
    struct count_ctx c = {.mask = scope_mask, .ndels = 0};
    if (n)
        spx_store_foreach_since(s, proc->nspace, proc->rank, r.since, count_dels, &c);
    r.ndels = c.ndels;
    r.nkeys = n - c.ndels;
    /* Everything of proc up to the store's current sequence has been considered:
     * entries not sent had a scope that stays on the node. */
    r.upto = spx_store_seq(s);
    if (r.upto < max)
        r.upto = max;
    if (res)
        *res = r;
}

pmix_status_t spx_delta_commit(spx_delta_t *d, const pmix_proc_t *proc, const char *set_key,
                               uint64_t upto)
{
    struct entry *e = find(d, proc);
    char *k = strdup(set_key);
    if (!k) {
        spx_delta_forget(d, proc);
        return PMIX_ERR_NOMEM;
    }
    if (e) {
        free(e->set_key);
    } else {
        if (!(e = calloc(1, sizeof(*e)))) {
            free(k);
            return PMIX_ERR_NOMEM;
        }
        e->proc = *proc;
        e->proc.nspace[PMIX_MAX_NSLEN] = '\0';
        LIST_INSERT_HEAD(&d->entries, e, link);
    }
    e->set_key = k;
    e->upto = upto;
    return PMIX_SUCCESS;
}

void spx_delta_forget(spx_delta_t *d, const pmix_proc_t *proc)
{
    struct entry *e = d ? find(d, proc) : NULL;
    if (!e)
        return;
    LIST_REMOVE(e, link);
    free(e->set_key);
    free(e);
}
