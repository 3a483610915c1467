/*
 * layout.c - encode/decode of the step's rank placement (format in layout.h).
 *
 * Encoding walks each node's task ids and cuts them into arithmetic runs.
 * Decoding is strict: numbers are bounded, every rank is checked against a
 * bitmap so a rank on two nodes, a missing rank or trailing junk is an error,
 * and nothing is allocated from a count that was not checked first.
 */
#include "config.h"
#include "plugin/layout.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct spx_plg_sbuf {
    char *s;
    size_t len, cap;
    bool failed;
};

static void spx_plg_sbuf_add(struct spx_plg_sbuf *b, const char *fmt, uint32_t x, uint32_t y,
                             uint32_t z)
{
    char tmp[48];
    int n = snprintf(tmp, sizeof(tmp), fmt, x, y, z);

    if (b->failed || n < 0)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        char *s;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        s = realloc(b->s, cap);
        if (s == NULL) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, tmp, (size_t)n + 1);
    b->len += (size_t)n;
}

char *spx_plg_map_encode(uint32_t nnodes, const uint16_t *tasks, uint32_t *const *tids)
{
    struct spx_plg_sbuf b = { 0 };

    spx_plg_sbuf_add(&b, "", 0, 0, 0);
    for (uint32_t n = 0; n < nnodes; n++) {
        const uint32_t *t = tids[n];
        uint32_t cnt = tasks[n], i = 0;
        bool first = true;

        if (n > 0)
            spx_plg_sbuf_add(&b, ";", 0, 0, 0);
        while (i < cnt) {
            uint32_t j = i + 1;
            if (j < cnt && t[j] > t[i]) {
                uint32_t step = t[j] - t[i];
                while (j + 1 < cnt && t[j + 1] > t[j] && t[j + 1] - t[j] == step)
                    j++;
                if (step == 1)
                    spx_plg_sbuf_add(&b, first ? "%u-%u" : ",%u-%u", t[i], t[j], 0);
                else
                    spx_plg_sbuf_add(&b, first ? "%u-%u:%u" : ",%u-%u:%u", t[i], t[j], step);
                i = j + 1;
            } else {
                spx_plg_sbuf_add(&b, first ? "%u" : ",%u", t[i], 0, 0);
                i++;
            }
            first = false;
        }
    }
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

void spx_plg_map_free(struct spx_plg_map *m)
{
    for (uint32_t i = 0; m->ranks != NULL && i < m->nnodes; i++)
        free(m->ranks[i]);
    free(m->ranks);
    free(m->count);
    memset(m, 0, sizeof(*m));
}

static int spx_plg_map_alloc(struct spx_plg_map *m, uint32_t nnodes, uint32_t ntasks)
{
    memset(m, 0, sizeof(*m));
    m->nnodes = nnodes;
    m->ntasks = ntasks;
    m->count = calloc(nnodes, sizeof(*m->count));
    m->ranks = calloc(nnodes, sizeof(*m->ranks));
    return m->count && m->ranks ? 0 : -1;
}

bool spx_plg_num(const char **p, uint32_t *out)
{
    uint64_t v = 0;
    const char *s = *p;

    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > UINT32_MAX)
            return false;
        s++;
    }
    *out = (uint32_t)v;
    *p = s;
    return true;
}

static int spx_plg_map_push(struct spx_plg_map *m, uint32_t node, uint32_t rank,
                            unsigned char *seen)
{
    uint32_t *r;

    if (rank >= m->ntasks || seen[rank] || m->count[node] >= m->ntasks)
        return -1;
    seen[rank] = 1;
    r = realloc(m->ranks[node], ((size_t)m->count[node] + 1) * sizeof(*r));
    if (r == NULL)
        return -1;
    m->ranks[node] = r;
    r[m->count[node]++] = rank;
    return 0;
}

static int spx_plg_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

/* Every node has ranks and every rank was seen; sorts each node's ranks. */
static int spx_plg_map_finish(struct spx_plg_map *m, const unsigned char *seen, const char **why)
{
    for (uint32_t i = 0; i < m->ntasks; i++)
        if (!seen[i]) {
            *why = "a rank of the step is on no node";
            return -1;
        }
    for (uint32_t n = 0; n < m->nnodes; n++) {
        if (m->count[n] == 0) {
            *why = "a node of the step has no rank";
            return -1;
        }
        qsort(m->ranks[n], m->count[n], sizeof(uint32_t), spx_plg_cmp_u32);
    }
    return 0;
}

int spx_plg_map_decode(const char *s, uint32_t nnodes, uint32_t ntasks,
                       struct spx_plg_map *m, const char **why)
{
    unsigned char *seen = NULL;
    const char *p = s;
    uint32_t node = 0;

    *why = "malformed map";
    if (s == NULL || nnodes == 0 || ntasks == 0 || ntasks > SPX_PLG_MAP_MAX_TASKS ||
        nnodes > ntasks || strlen(s) > SPX_PLG_MAP_MAX_LEN) {
        *why = "missing map or impossible step size";
        memset(m, 0, sizeof(*m));
        return -1;
    }
    if (spx_plg_map_alloc(m, nnodes, ntasks) != 0 || !(seen = calloc(ntasks, 1)))
        goto nomem;
    for (;;) {
        uint32_t a, b, step = 1;
        if (!spx_plg_num(&p, &a))
            goto fail;
        b = a;
        if (*p == '-') {
            p++;
            if (!spx_plg_num(&p, &b) || b < a)
                goto fail;
            if (*p == ':') {
                p++;
                if (!spx_plg_num(&p, &step) || step == 0)
                    goto fail;
            }
        }
        if (b >= ntasks) {
            *why = "a rank in the map is outside the step";
            goto fail;
        }
        for (uint64_t r = a; r <= b; r += step)
            if (spx_plg_map_push(m, node, (uint32_t)r, seen) != 0) {
                *why = "a rank appears twice in the map";
                goto fail;
            }
        if (*p == ',') {
            p++;
        } else if (*p == ';') {
            p++;
            if (++node >= nnodes) {
                *why = "the map has more nodes than the step";
                goto fail;
            }
        } else if (*p == '\0') {
            break;
        } else {
            goto fail;
        }
    }
    if (node + 1 != nnodes) {
        *why = "the map has fewer nodes than the step";
        goto fail;
    }
    if (spx_plg_map_finish(m, seen, why) != 0)
        goto fail;
    free(seen);
    return 0;
nomem:
    *why = "out of memory";
fail:
    free(seen);
    spx_plg_map_free(m);
    return -1;
}

int spx_plg_map_from_tpn(const char *tpn, uint32_t nnodes, uint32_t ntasks,
                         struct spx_plg_map *m, const char **why)
{
    unsigned char *seen = NULL;
    const char *p = tpn;
    uint32_t node = 0, rank = 0;

    *why = "malformed tasks-per-node";
    memset(m, 0, sizeof(*m));
    if (tpn == NULL || nnodes == 0 || ntasks == 0 || ntasks > SPX_PLG_MAP_MAX_TASKS ||
        nnodes > ntasks)
        return -1;
    if (spx_plg_map_alloc(m, nnodes, ntasks) != 0 || !(seen = calloc(ntasks, 1))) {
        *why = "out of memory";
        goto fail;
    }
    while (*p) {
        uint32_t cnt, rep = 1;
        if (!spx_plg_num(&p, &cnt) || cnt == 0)
            goto fail;
        if (p[0] == '(' && p[1] == 'x') {
            p += 2;
            if (!spx_plg_num(&p, &rep) || rep == 0 || *p != ')')
                goto fail;
            p++;
        }
        for (uint32_t k = 0; k < rep; k++, node++) {
            if (node >= nnodes)
                goto fail;
            for (uint32_t t = 0; t < cnt; t++)
                if (spx_plg_map_push(m, node, rank++, seen) != 0)
                    goto fail;
        }
        if (*p == ',')
            p++;
        else if (*p != '\0')
            goto fail;
    }
    if (node != nnodes || spx_plg_map_finish(m, seen, why) != 0)
        goto fail;
    free(seen);
    return 0;
fail:
    free(seen);
    spx_plg_map_free(m);
    return -1;
}
