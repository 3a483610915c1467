/*
 * host/stdin_cache: what the ranks' stdin keeps and drops, without I/O (see
 * stdin_cache.h): a push's directives, the per-rank cache with its bound and
 * drop policies, block buffering, pushes released into a done list.
 * Everything runs on the caller's thread with the caller's locking; nothing
 * here reads a clock, touches an fd or calls a push back.
 */
#include "config.h"
#include "host/stdin_cache.h"

#include <stdlib.h>
#include <string.h>

/* ---- pushes ---- */

static bool spx_stdin_size_arg(const pmix_value_t *v, size_t *out)
{
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; return true;
    case PMIX_SIZE: *out = v->data.size; return true;
    case PMIX_UINT64: *out = (size_t)v->data.uint64; return true;
    case PMIX_INT: *out = v->data.integer > 0 ? (size_t)v->data.integer : 0; return true;
    default: return false;
    }
}

pmix_status_t spx_stdin_push_directives(struct spx_stdin_push *p, const pmix_info_t dirs[],
                                        size_t ndirs)
{
    bool oldest = false, newest = false;

    for (size_t i = 0; dirs != NULL && i < ndirs; i++) {
        const pmix_info_t *d = &dirs[i];

        if (PMIX_CHECK_KEY(d, PMIX_IOF_CACHE_SIZE)) {
            if (!spx_stdin_size_arg(&d->value, &p->cache) || p->cache == 0)
                return PMIX_ERR_BAD_PARAM;
        } else if (PMIX_CHECK_KEY(d, PMIX_IOF_DROP_OLDEST)) {
            oldest = PMIX_INFO_TRUE(d);
        } else if (PMIX_CHECK_KEY(d, PMIX_IOF_DROP_NEWEST)) {
            newest = PMIX_INFO_TRUE(d);
        } else if (PMIX_CHECK_KEY(d, PMIX_IOF_BUFFERING_SIZE)) {
            if (!spx_stdin_size_arg(&d->value, &p->bsize))
                return PMIX_ERR_BAD_PARAM;
        } else if (PMIX_CHECK_KEY(d, PMIX_IOF_BUFFERING_TIME)) {
            size_t secs;
            if (!spx_stdin_size_arg(&d->value, &secs))
                return PMIX_ERR_BAD_PARAM;
            p->btime = (double)secs;
        } else if (PMIX_CHECK_KEY(d, PMIX_IOF_COMPLETE)) {
            p->eof |= PMIX_INFO_TRUE(d);
        }
    }
    if (oldest && newest)
        return PMIX_ERR_BAD_PARAM;
    p->policy = oldest ? SPX_STDIN_DROP_OLDEST : newest ? SPX_STDIN_DROP_NEWEST : SPX_STDIN_BLOCK;
    return PMIX_SUCCESS;
}

void spx_stdin_push_release(struct spx_stdin_push *p, pmix_status_t st,
                            struct spx_stdin_done_list *done)
{
    if (st != PMIX_SUCCESS && p->status == PMIX_SUCCESS)
        p->status = st;
    if (--p->left > 0)
        return;
    p->next = NULL;
    if (done->tail)
        done->tail->next = p;
    else
        done->head = p;
    done->tail = p;
}

struct spx_stdin_push *spx_stdin_done_take(struct spx_stdin_done_list *done)
{
    struct spx_stdin_push *p = done->head;

    if (p == NULL)
        return NULL;
    done->head = p->next;
    if (done->head == NULL)
        done->tail = NULL;
    return p;
}

/* ---- the cache ---- */

void spx_stdin_cache_init(struct spx_stdin_cache *c)
{
    memset(c, 0, sizeof(*c));
    c->limit = SPX_HOST_STDIN_CACHE_DEFAULT;
}

int spx_stdin_cache_enqueue(struct spx_stdin_cache *c, struct spx_stdin_push *p)
{
    struct spx_stdin_pend *pe = calloc(1, sizeof(*pe));

    if (pe == NULL)
        return -1;
    pe->p = p;
    if (c->tail)
        c->tail->next = pe;
    else
        c->head = pe;
    c->tail = pe;
    return 0;
}

/* Append n bytes to c (room checked by the caller). */
static int spx_stdin_append(struct spx_stdin_cache *c, const unsigned char *src, size_t n)
{
    if (n == 0)
        return 0;
    if (c->off + c->len + n > c->cap && c->off > 0) {
        memmove(c->buf, c->buf + c->off, c->len);
        c->off = 0;
    }
    if (c->len + n > c->cap) {
        size_t cap = c->cap ? c->cap : 4096;
        unsigned char *nb;

        while (cap < c->len + n)
            cap *= 2;
        nb = realloc(c->buf, cap);
        if (nb == NULL)
            return -1;
        c->buf = nb;
        c->cap = cap;
    }
    memcpy(c->buf + c->off + c->len, src, n);
    c->len += n;
    return 0;
}

bool spx_stdin_cache_admit(struct spx_stdin_cache *c, bool pipe_full, double now,
                           struct spx_stdin_done_list *done, int *err)
{
    bool moved = false;

    while (c->head != NULL) {
        struct spx_stdin_pend *pe = c->head;
        struct spx_stdin_push *p = pe->p;
        const unsigned char *src = p->data + pe->done;
        size_t rem = p->size - pe->done, space, n;

        if (p->cache)
            c->limit = p->cache;   /* the target keeps the sizes asked last */
        if (p->bsize)
            c->bsize = p->bsize;
        if (p->btime > 0)
            c->btime = p->btime;
        space = c->len < c->limit ? c->limit - c->len : 0;
        if (p->policy == SPX_STDIN_DROP_OLDEST && rem > space && pipe_full) {
            if (rem >= c->limit) {   /* the new bytes alone fill it: keep their end */
                size_t skip = rem - c->limit;
                c->dropped += c->len + skip;
                c->off = c->len = 0;
                src += skip;
                pe->done += skip;
                rem = c->limit;
            } else {
                size_t k = c->len + rem - c->limit;
                c->dropped += k;
                c->off += k;
                c->len -= k;
            }
            space = rem;
        }
        n = rem < space ? rem : space;
        if (c->len == 0 && n > 0)
            c->held_at = now;
        if (spx_stdin_append(c, src, n) < 0) {
            *err = -1;
            return moved;
        }
        pe->done += n;
        moved |= n > 0;
        if (n < rem && p->policy == SPX_STDIN_DROP_NEWEST && pipe_full) {
            c->dropped += rem - n;
            pe->done = p->size;
        }
        if (pe->done < p->size)
            return moved;   /* wait until the rank reads (or, dropping, until full) */
        if (p->eof)
            c->eof_queued = true;
        c->head = pe->next;
        if (c->head == NULL)
            c->tail = NULL;
        spx_stdin_push_release(p, PMIX_SUCCESS, done);
        free(pe);
        moved = true;
    }
    return moved;
}

int spx_stdin_cache_put(struct spx_stdin_cache *c, const unsigned char *bytes, size_t n,
                        double now)
{
    if (c->len == 0)
        c->held_at = now;
    return spx_stdin_append(c, bytes, n);
}

size_t spx_stdin_cache_room(const struct spx_stdin_cache *c)
{
    return c->len < c->limit ? c->limit - c->len : 0;
}

size_t spx_stdin_cache_ready(const struct spx_stdin_cache *c, double now)
{
    if (c->bsize == 0 || c->eof_queued || c->len >= c->limit ||
        (c->btime > 0 && now >= c->held_at + c->btime))
        return c->len;
    return c->len - c->len % c->bsize;
}

void spx_stdin_cache_consumed(struct spx_stdin_cache *c, size_t n)
{
    c->off += n;
    c->len -= n;
    if (c->len == 0)
        c->off = 0;
}

double spx_stdin_cache_deadline(const struct spx_stdin_cache *c)
{
    return c->len > 0 && c->btime > 0 ? c->held_at + c->btime : -1;
}

bool spx_stdin_cache_bypassable(const struct spx_stdin_cache *c)
{
    return c->len == 0 && c->head == NULL && c->bsize == 0;
}

bool spx_stdin_cache_drained_to_eof(const struct spx_stdin_cache *c)
{
    return c->len == 0 && c->eof_queued;
}

void spx_stdin_cache_end(struct spx_stdin_cache *c, pmix_status_t st,
                         struct spx_stdin_done_list *done)
{
    while (c->head != NULL) {
        struct spx_stdin_pend *pe = c->head;

        c->head = pe->next;
        spx_stdin_push_release(pe->p, st, done);
        free(pe);
    }
    c->tail = NULL;
    c->dropped = 0;
    free(c->buf);
    c->buf = NULL;
    c->off = c->len = c->cap = 0;
    c->eof_queued = false;
}
