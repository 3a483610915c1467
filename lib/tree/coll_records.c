/* coll_records.c - the collective engine's bookkeeping (coll_internal.h):
 * the collectives by (set_id, seq), made, found and freed (and, at the
 * engine's end, whatever it still holds);
 * the sets' counters of local starts, which tell a finished (set_id, seq)
 * (its messages dropped) from one not started yet; the messages kept for a
 * collective not started here yet (PENDING, bounded by
 * SPX_COLL_MAX_PENDING); the sorted list of nodes lost or gone; counters,
 * queries and names for log lines. No protocol here: nothing is sent and no
 * done is called (that is coll.c's and coll_data.c's).
 * Ownership: a collective owns its set_id copy, node arrays, gathered pieces
 * and kept messages (spx_coll_free frees them all); a kept message owns
 * the frame its data lies in (taken from spx_coll_recv) or a copy.
 */
#include "config.h"
#include "tree/coll_internal.h"
#include "util/log.h"
#include "util/strhash.h"

#include <stdlib.h>
#include <string.h>

const char *spx_coll_state_str(spx_coll_state_t s)
{
    switch (s) {
    case SPX_COLL_PENDING: return "PENDING";
    case SPX_COLL_GATHER: return "GATHER";
    case SPX_COLL_WAIT_DOWN: return "WAIT_DOWN";
    case SPX_COLL_DONE: return "DONE";
    }
    return "UNKNOWN";
}

const char *spx_coll_kind_str(uint8_t kind)
{
    switch (kind) {
    case SPX_COLL_UP: return "UP";
    case SPX_COLL_DOWN: return "DOWN";
    }
    return "UNKNOWN";
}

void spx_coll_engine_free(spx_coll_engine_t *e)
{
    spx_coll_t *c;
    while ((c = TAILQ_FIRST(&e->active))) {
        TAILQ_REMOVE(&e->active, c, link);
        spx_coll_free(c);
    }
    for (size_t i = 0; i < SPX_COLL_SET_BUCKETS; i++) {
        spx_coll_set_t *s;
        while ((s = SLIST_FIRST(&e->sets[i]))) {
            SLIST_REMOVE_HEAD(&e->sets[i], link);
            free(s->set_id);
            free(s);
        }
    }
    free(e->lost);
    free(e);
}

void spx_coll_free_stored(spx_coll_engine_t *e, struct spx_coll_stored_list *list)
{
    spx_coll_stored_t *s;
    while ((s = STAILQ_FIRST(list))) {
        STAILQ_REMOVE_HEAD(list, link);
        free(s->own);
        free(s);
        e->nstored--;
    }
}

void spx_coll_free(spx_coll_t *c)
{
    spx_coll_free_stored(c->e, &c->stored);
    free(c->set_id);
    free(c->nodes);
    free(c->child);
    free(c->got);
    for (uint32_t i = 0; i < c->nsegs; i++)
        free(c->owns[i]);
    free(c->owns);
    free(c->segs);
    free(c->down_own);
    free(c->final_segs);
    free(c);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Is node in the sorted list nodes[0..n)? */
bool spx_coll_sorted_has(const uint32_t *nodes, size_t n, uint32_t node)
{
    return n && bsearch(&node, nodes, n, sizeof(*nodes), cmp_u32) != NULL;
}

/* Adds node to e->lost (kept sorted, no duplicates). -1: out of memory. */
int spx_coll_lost_add(spx_coll_engine_t *e, uint32_t node)
{
    size_t lo = 0, hi = e->nlost;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->lost[mid] < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < e->nlost && e->lost[lo] == node)
        return 0;
    if (e->nlost == e->lost_cap) {
        size_t cap = e->lost_cap ? 2 * e->lost_cap : 8;
        uint32_t *l = realloc(e->lost, cap * sizeof(*l));
        if (!l)
            return -1;
        e->lost = l;
        e->lost_cap = cap;
    }
    memmove(e->lost + lo + 1, e->lost + lo, (e->nlost - lo) * sizeof(*e->lost));
    e->lost[lo] = node;
    e->nlost++;
    return 0;
}

static spx_coll_set_t *set_peek(const spx_coll_engine_t *e, const char *set_id)
{
    spx_coll_set_t *s;
    uint64_t h = spx_strhash(set_id);
    SLIST_FOREACH(s, &e->sets[h & (SPX_COLL_SET_BUCKETS - 1)], link)
        if (s->hash == h && strcmp(s->set_id, set_id) == 0)
            return s;
    return NULL;
}

/* set_peek, and the set found moves to the front (the sets in use stay there). */
spx_coll_set_t *spx_coll_set_find(spx_coll_engine_t *e, const char *set_id)
{
    spx_coll_set_t *s = set_peek(e, set_id);
    if (s) {
        struct spx_coll_set_bucket *b = &e->sets[s->hash & (SPX_COLL_SET_BUCKETS - 1)];
        if (s != SLIST_FIRST(b)) {
            SLIST_REMOVE(b, s, spx_coll_set, link);
            SLIST_INSERT_HEAD(b, s, link);
        }
    }
    return s;
}

spx_coll_set_t *spx_coll_set_get(spx_coll_engine_t *e, const char *set_id)
{
    spx_coll_set_t *s = spx_coll_set_find(e, set_id);
    if (!s) {
        s = calloc(1, sizeof(*s));
        if (!s || !(s->set_id = strdup(set_id))) {
            free(s);
            return NULL;
        }
        s->hash = spx_strhash(set_id);
        SLIST_INSERT_HEAD(&e->sets[s->hash & (SPX_COLL_SET_BUCKETS - 1)], s, link);
    }
    return s;
}

spx_coll_t *spx_coll_find(const spx_coll_engine_t *e, const char *set_id, uint32_t seq)
{
    spx_coll_t *c;
    TAILQ_FOREACH(c, &e->active, link)
        if (c->seq == seq && strcmp(c->set_id, set_id) == 0)
            return c;
    return NULL;
}

spx_coll_t *spx_coll_new(spx_coll_engine_t *e, const char *set_id, uint32_t seq)
{
    spx_coll_t *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->set_id = strdup(set_id);
    if (!c->set_id) {
        free(c);
        return NULL;
    }
    c->e = e;
    c->seq = seq;
    c->state = SPX_COLL_PENDING;
    c->parent = -1;
    STAILQ_INIT(&c->stored);
    TAILQ_INSERT_HEAD(&e->active, c, link);
    return c;
}

/* Keeps m for the start of c, in m->frame if there is one (then taken:
 * returns true), else in a copy. Returns false when m is dropped. */
bool spx_coll_store_msg(spx_coll_t *c, uint32_t from, const spx_coll_msg_t *m)
{
    spx_coll_engine_t *e = c->e;
    uint8_t abort_bit = m->up_flags & SPX_COLL_UP_ABORT;
    spx_coll_stored_t *s;
    STAILQ_FOREACH(s, &c->stored, link)
        if (s->from == from && s->kind == m->kind && (s->up_flags & SPX_COLL_UP_ABORT) == abort_bit) {
            spx_info("tree: node %u: collective %s#%u: duplicate %s from node %u dropped",
                     e->self, c->set_id, c->seq, spx_coll_kind_str(m->kind), from);
            e->cnt.dropped++;
            return false;
        }
    if (e->nstored >= SPX_COLL_MAX_PENDING)
        goto full;
    s = calloc(1, sizeof(*s));
    if (!s)
        goto full;
    if (m->frame) {
        s->own = m->frame;
        s->data = m->data;
    } else if (m->len) {
        s->own = malloc(m->len);
        if (!s->own) {
            free(s);
            goto full;
        }
        memcpy(s->own, m->data, m->len);
        s->data = s->own;
        e->cnt.bytes_copied += m->len;
    }
    s->len = m->len;
    s->from = from;
    s->kind = m->kind;
    s->up_flags = m->up_flags;
    s->status = m->status;
    s->flags = m->flags;
    STAILQ_INSERT_TAIL(&c->stored, s, link);
    e->nstored++;
    return m->frame != NULL;
full:
    spx_warn("tree: node %u: too many messages for collectives not started here: dropped one",
             e->self);
    e->cnt.dropped++;
    return false;
}

void spx_coll_get_counters(const spx_coll_engine_t *e, spx_coll_counters_t *out)
{
    *out = e->cnt;
}

int spx_coll_query(const spx_coll_engine_t *e, const char *set_id, uint32_t seq)
{
    const spx_coll_t *c = spx_coll_find(e, set_id, seq);
    if (c)
        return (int)c->state;
    TAILQ_FOREACH(c, &e->deferred, link)
        if (c->seq == seq && strcmp(c->set_id, set_id) == 0)
            return SPX_COLL_DONE;
    const spx_coll_set_t *s = set_peek(e, set_id);
    if (s && seq < s->started)
        return SPX_COLL_DONE;
    return -1;
}

const char *spx_coll_some_active(const spx_coll_engine_t *e, uint32_t *seq,
                                 spx_coll_state_t *state)
{
    const spx_coll_t *c = TAILQ_FIRST(&e->active);
    if (!c)
        return NULL;
    *seq = c->seq;
    *state = c->state;
    return c->set_id;
}

size_t spx_coll_active(const spx_coll_engine_t *e)
{
    size_t n = 0;
    const spx_coll_t *c;
    TAILQ_FOREACH(c, &e->active, link)
        n += !c->ghost; /* a stand-in for departed processes does not hold a node back */
    return n;
}
