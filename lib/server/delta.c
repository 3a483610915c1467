/* delta.c - delta-exchange bookkeeping (contract in delta.h).
 *
 * A small linked list keyed by (nspace, rank): a node hosts few processes, and
 * it is walked once per local participant per collecting fence. The record
 * itself is written by proto/records.c; this file only chooses where it starts
 * and counts what went out (value entries vs deletion entries).
 */
#include "config.h"
#include "server/delta.h"

#include <stdlib.h>
#include <string.h>

#include "proto/records.h"

struct entry {
    struct entry *next;
    pmix_proc_t proc;
    char *set_key;      /* owned */
    uint64_t upto;
};

struct spx_delta {
    struct entry *head;
};

spx_delta_t *spx_delta_create(void)
{
    return calloc(1, sizeof(spx_delta_t));
}

void spx_delta_destroy(spx_delta_t *d)
{
    if (!d)
        return;
    while (d->head) {
        struct entry *e = d->head;
        d->head = e->next;
        free(e->set_key);
        free(e);
    }
    free(d);
}

static struct entry **find(const spx_delta_t *d, const pmix_proc_t *proc)
{
    struct entry **pp = (struct entry **)&d->head;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->proc.rank == proc->rank &&
            strncmp((*pp)->proc.nspace, proc->nspace, PMIX_MAX_NSLEN) == 0)
            return pp;
    return NULL;
}

uint64_t spx_delta_since(const spx_delta_t *d, const pmix_proc_t *proc, const char *set_key)
{
    struct entry **pp = d ? find(d, proc) : NULL;
    if (!pp || !set_key || strcmp((*pp)->set_key, set_key) != 0)
        return 0;
    return (*pp)->upto;
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
    struct entry **pp = find(d, proc), *e;
    char *k = strdup(set_key);
    if (!k) {
        spx_delta_forget(d, proc);
        return PMIX_ERR_NOMEM;
    }
    if (pp) {
        e = *pp;
        free(e->set_key);
    } else {
        if (!(e = calloc(1, sizeof(*e)))) {
            free(k);
            return PMIX_ERR_NOMEM;
        }
        e->proc = *proc;
        e->proc.nspace[PMIX_MAX_NSLEN] = '\0';
        e->next = d->head;
        d->head = e;
    }
    e->set_key = k;
    e->upto = upto;
    return PMIX_SUCCESS;
}

void spx_delta_forget(spx_delta_t *d, const pmix_proc_t *proc)
{
    struct entry **pp = d ? find(d, proc) : NULL;
    if (!pp)
        return;
    struct entry *e = *pp;
    *pp = e->next;
    free(e->set_key);
    free(e);
}
