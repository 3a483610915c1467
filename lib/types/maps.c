/* maps.c - node and process maps in compact form (see maps.h): the
 * parsers, the lookups and the compressors PMIx_generate_regex / _ppn use.
 */
#include "config.h"
#include "types/maps.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types.h"
#include "util/compiler.h"
#include "util/ranklist.h"

/* Characters that end a name in our texts: a name holding one is never
 * grouped, and a compressed map cannot hold it. */
#define MAPS_SPECIAL ",[]*@;"
#define MAPS_MAX_DIGITS 9 /* numbers below 10^9 are grouped */

/* The text after a known prefix: the compact one (*compact set), our older
 * one, OpenPMIx's "raw:", or a bare list. NULL for a foreign form. */
static const char *maps_body(const char *s, bool *compact)
{
    *compact = false;
    if (strncmp(s, SPX_MAPS_PREFIX, strlen(SPX_MAPS_PREFIX)) == 0) {
        *compact = true;
        return s + strlen(SPX_MAPS_PREFIX);
    }
    if (strncmp(s, SPX_REGEX_PREFIX, strlen(SPX_REGEX_PREFIX)) == 0)
        return s + strlen(SPX_REGEX_PREFIX);
    if (strncmp(s, "raw:", 4) == 0)
        return s + 4;
    if (strpbrk(s, ":[]"))
        return NULL; /* "pmix[...]", "blob:..." or something else */
    return s;
}

/* Reads a decimal number of 1..MAPS_MAX_DIGITS digits at *p (no sign);
 * advances *p. false when there is none. */
static bool read_u32(const char **p, uint32_t *v, size_t *ndigits)
{
    const char *s = *p;
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > MAPS_MAX_DIGITS)
        return false;
    uint32_t x = 0;
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (uint32_t)(s[i] - '0');
    *v = x;
    if (ndigits)
        *ndigits = n;
    *p = s + n;
    return true;
}

/* ---- node map ---------------------------------------------------------- */

void spx_nodemap_fini(spx_nodemap_t *m)
{
    for (size_t i = 0; m->g && i < m->ng; i++) {
        free(m->g[i].prefix);
        free(m->g[i].suffix);
    }
    free(m->g);
    memset(m, 0, sizeof(*m));
}

static struct spx_hostgroup *nodemap_add(spx_nodemap_t *m, size_t *cap)
{
    if (m->ng == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        struct spx_hostgroup *g = realloc(m->g, nc * sizeof(*g));
        if (!g)
            return NULL;
        m->g = g;
        *cap = nc;
    }
    struct spx_hostgroup *g = &m->g[m->ng++];
    memset(g, 0, sizeof(*g));
    return g;
}

/* One entry of len bytes at e into a new group. */
static pmix_status_t nodemap_entry(spx_nodemap_t *m, size_t *cap, const char *e, size_t len,
                                   bool compact)
{
    const char *open = compact ? memchr(e, '[', len) : NULL;
    struct spx_hostgroup *g = nodemap_add(m, cap);
    if (!g)
        return PMIX_ERR_NOMEM;
    if (!open) {
        if (len == 0 || memchr(e, '[', len) || memchr(e, ']', len))
            return PMIX_ERR_BAD_PARAM;
        g->prefix = strndup(e, len);
        g->suffix = strdup("");
        g->count = 1;
        if (!g->prefix || !g->suffix)
            return PMIX_ERR_NOMEM;
        return m->nnodes++ < SPX_MAPS_MAX_NODES ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
    }
    /* PFX[LO-HI]SFX */
    const char *p = open + 1, *end = e + len;
    uint32_t lo, hi;
    size_t w;
    if (!read_u32(&p, &lo, &w) || *p != '-' || (++p, !read_u32(&p, &hi, NULL)) || *p != ']' ||
        hi < lo)
        return PMIX_ERR_BAD_PARAM;
    p++;
    if (p > end || memchr(p, '[', (size_t)(end - p)) || memchr(p, ']', (size_t)(end - p)))
        return PMIX_ERR_BAD_PARAM;
    g->prefix = strndup(e, (size_t)(open - e));
    g->suffix = strndup(p, (size_t)(end - p));
    if (!g->prefix || !g->suffix)
        return PMIX_ERR_NOMEM;
    g->numbered = true;
    g->lo = lo;
    g->count = hi - lo + 1;
    g->width = (uint8_t)w;
    if (g->count > SPX_MAPS_MAX_NODES - m->nnodes)
        return PMIX_ERR_BAD_PARAM;
    m->nnodes += g->count;
    return PMIX_SUCCESS;
}

/* Empties the parsed map *m (size bytes) and returns the text of s after its
 * prefix, or NULL for a foreign form; *compact as maps_body. */
static const char *maps_start(const char *s, void *m, size_t size, bool *compact)
{
    memset(m, 0, size);
    return s ? maps_body(s, compact) : NULL;
}

pmix_status_t spx_nodemap_parse(const char *s, spx_nodemap_t *m)
{
    bool compact;
    const char *body = maps_start(s, m, sizeof(*m), &compact);
    if (!body)
        return PMIX_ERR_BAD_PARAM;
    size_t cap = 0;
    while (*body) {
        size_t len = strcspn(body, ",");
        if (len > 0) { /* empty entries are dropped, as they always were */
            pmix_status_t rc = nodemap_entry(m, &cap, body, len, compact);
            if (rc != PMIX_SUCCESS)
                return rc;
        }
        body += len;
        if (*body == ',')
            body++;
    }
    return PMIX_SUCCESS;
}

static char *group_name(const struct spx_hostgroup *g, uint32_t k)
{
    if (!g->numbered)
        return strdup(g->prefix);
    char *s = NULL;
    if (asprintf(&s, "%s%0*u%s", g->prefix, (int)g->width, g->lo + k, g->suffix) < 0)
        return NULL;
    return s;
}

char *spx_nodemap_name(const spx_nodemap_t *m, uint32_t i)
{
    for (size_t k = 0; k < m->ng; k++) {
        if (i < m->g[k].count)
            return group_name(&m->g[k], i);
        i -= m->g[k].count;
    }
    return NULL;
}

/* Whether name is one of g's; *k its place there. */
static bool group_has(const struct spx_hostgroup *g, const char *name, uint32_t *k)
{
    if (!g->numbered) {
        *k = 0;
        return strcmp(g->prefix, name) == 0;
    }
    size_t pl = strlen(g->prefix), sl = strlen(g->suffix), nl = strlen(name);
    if (nl < pl + sl + 1 || strncmp(name, g->prefix, pl) != 0 ||
        strcmp(name + nl - sl, g->suffix) != 0)
        return false;
    size_t dl = nl - pl - sl;
    const char *d = name + pl;
    uint32_t v;
    size_t got;
    if (!read_u32(&d, &v, &got) || got != dl || v < g->lo || v - g->lo >= g->count)
        return false;
    /* written as the group writes it: width digits at least, no extra zeros */
    char buf[16];
    snprintf(buf, sizeof(buf), "%0*u", (int)g->width, v);
    if (strlen(buf) != dl)
        return false;
    *k = v - g->lo;
    return true;
}

bool spx_nodemap_find(const spx_nodemap_t *m, const char *name, uint32_t *i)
{
    uint32_t base = 0, k;
    if (!name)
        return false;
    for (size_t j = 0; j < m->ng; j++) {
        if (group_has(&m->g[j], name, &k)) {
            *i = base + k;
            return true;
        }
        base += m->g[j].count;
    }
    return false;
}

/* ---- process map ------------------------------------------------------- */

void spx_procmap_fini(spx_procmap_t *m)
{
    for (size_t i = 0; m->runs && i < m->nruns; i++)
        free(m->runs[i].r);
    free(m->runs);
    memset(m, 0, sizeof(*m));
}

/* The ranges of a rank list of len bytes at s, into run->r / nr / size. */
static pmix_status_t ranges_of(const char *s, size_t len, struct spx_rankrun *run)
{
    char *text = strndup(s, len);
    if (!text)
        return PMIX_ERR_NOMEM;
    hwloc_bitmap_t set = spx_ranklist_parse(text, SPX_MAPS_MAX_LOCAL);
    free(text);
    if (!set)
        return PMIX_ERR_BAD_PARAM;
    int w = hwloc_bitmap_weight(set);
    int last = hwloc_bitmap_last(set);
    pmix_status_t rc = PMIX_SUCCESS;
    run->size = w > 0 ? (uint32_t)w : 0;
    run->nr = 0;
    if (w > 0 && (uint32_t)last >= PMIX_RANK_VALID)
        rc = PMIX_ERR_BAD_PARAM;
    else if (w > 0 && !(run->r = malloc((size_t)w * sizeof(*run->r))))
        rc = PMIX_ERR_NOMEM;
    int cur = w > 0 ? hwloc_bitmap_first(set) : -1;
    while (rc == PMIX_SUCCESS && cur >= 0) {
        int stop = hwloc_bitmap_next_unset(set, cur); /* first absent after cur */
        run->r[run->nr].lo = (uint32_t)cur;
        run->r[run->nr].hi = (uint32_t)(stop - 1);
        run->nr++;
        cur = hwloc_bitmap_next(set, stop - 1);
    }
    hwloc_bitmap_free(set);
    if (rc == PMIX_SUCCESS && run->nr) { /* keep what is used */
        struct spx_rankrange *r = realloc(run->r, run->nr * sizeof(*r));
        if (r)
            run->r = r;
    }
    return rc;
}

static pmix_status_t procmap_entry(spx_procmap_t *m, size_t *cap, const char *e, size_t len,
                                   bool compact)
{
    if (m->nruns == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        struct spx_rankrun *r = realloc(m->runs, nc * sizeof(*r));
        if (!r)
            return PMIX_ERR_NOMEM;
        m->runs = r;
        *cap = nc;
    }
    struct spx_rankrun *run = &m->runs[m->nruns++];
    memset(run, 0, sizeof(*run));
    run->nnodes = 1;
    const char *star = compact ? memchr(e, '*', len) : NULL;
    size_t listlen = star ? (size_t)(star - e) : len;
    pmix_status_t rc = ranges_of(e, listlen, run);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (star) {
        const char *p = star + 1, *end = e + len;
        if (!read_u32(&p, &run->nnodes, NULL) || *p != '@' || (++p, !read_u32(&p, &run->shift, NULL)) ||
            p != end || run->nnodes == 0 || (run->shift == 0 && run->nnodes > 1 && run->size))
            return PMIX_ERR_BAD_PARAM;
        if (run->nr &&
            (uint64_t)run->r[run->nr - 1].hi + (uint64_t)(run->nnodes - 1) * run->shift >=
                PMIX_RANK_VALID)
            return PMIX_ERR_BAD_PARAM;
    }
    if (run->nnodes > SPX_MAPS_MAX_NODES - m->nnodes)
        return PMIX_ERR_BAD_PARAM;
    m->nnodes += run->nnodes;
    m->nranks += (uint64_t)run->size * run->nnodes;
    if (run->nr) {
        uint64_t top = (uint64_t)run->r[run->nr - 1].hi + (uint64_t)(run->nnodes - 1) * run->shift + 1;
        if (top > m->top)
            m->top = (pmix_rank_t)top;
    }
    return PMIX_SUCCESS;
}

pmix_status_t spx_procmap_parse(const char *s, spx_procmap_t *m)
{
    bool compact;
    const char *body = maps_start(s, m, sizeof(*m), &compact);
    if (!body)
        return PMIX_ERR_BAD_PARAM;
    size_t cap = 0;
    if (*body == '\0')
        return PMIX_SUCCESS; /* no nodes */
    for (;;) { /* empty entries are nodes without ranks */
        size_t len = strcspn(body, ";");
        pmix_status_t rc = procmap_entry(m, &cap, body, len, compact);
        if (rc != PMIX_SUCCESS)
            return rc;
        body += len;
        if (*body != ';')
            break;
        body++;
    }
    return PMIX_SUCCESS;
}

/* The run holding node and node's place j in it. */
static const struct spx_rankrun *run_of(const spx_procmap_t *m, uint32_t node, uint32_t *j)
{
    for (size_t k = 0; k < m->nruns; k++) {
        if (node < m->runs[k].nnodes) {
            *j = node;
            return &m->runs[k];
        }
        node -= m->runs[k].nnodes;
    }
    return NULL;
}

bool spx_procmap_locate(const spx_procmap_t *m, pmix_rank_t rank, uint32_t *node, uint32_t *pos)
{
    uint32_t base = 0;
    if (rank >= PMIX_RANK_VALID || rank >= m->top)
        return false;
    for (size_t k = 0; k < m->nruns; k++) {
        const struct spx_rankrun *run = &m->runs[k];
        uint32_t before = 0; /* ranks of the ranges before this one */
        for (uint32_t i = 0; i < run->nr; i++) {
            const struct spx_rankrange *rg = &run->r[i];
            if (rank >= rg->lo) {
                /* a j in [0, N) with rank - j*D in [lo, hi] */
                uint64_t jmin = 0, jmax = 0;
                if (run->shift) {
                    jmin = rank > rg->hi ? ((uint64_t)rank - rg->hi + run->shift - 1) / run->shift
                                         : 0;
                    jmax = ((uint64_t)rank - rg->lo) / run->shift;
                    if (jmax > run->nnodes - 1)
                        jmax = run->nnodes - 1;
                } else if (rank > rg->hi) {
                    jmin = 1; /* none */
                }
                if (jmin <= jmax) {
                    uint32_t at = (uint32_t)(rank - jmin * run->shift);
                    *node = base + (uint32_t)jmin;
                    *pos = before + (at - rg->lo);
                    return true;
                }
            }
            before += rg->hi - rg->lo + 1;
        }
        base += run->nnodes;
    }
    return false;
}

uint32_t spx_procmap_node_size(const spx_procmap_t *m, uint32_t node)
{
    uint32_t j;
    const struct spx_rankrun *run = run_of(m, node, &j);
    return run ? run->size : 0;
}

pmix_rank_t spx_procmap_node_first(const spx_procmap_t *m, uint32_t node)
{
    uint32_t j;
    const struct spx_rankrun *run = run_of(m, node, &j);
    if (!run || run->nr == 0)
        return PMIX_RANK_UNDEF;
    return run->r[0].lo + j * run->shift;
}

int spx_procmap_node_ranks(const spx_procmap_t *m, uint32_t node, pmix_rank_t **out, size_t *n)
{
    uint32_t j;
    const struct spx_rankrun *run = run_of(m, node, &j);
    *out = NULL;
    *n = 0;
    if (!run)
        return -1;
    if (run->size == 0)
        return 0;
    pmix_rank_t *r = malloc((size_t)run->size * sizeof(*r));
    if (!r)
        return -1;
    size_t c = 0;
    for (uint32_t i = 0; i < run->nr; i++)
        for (uint64_t v = run->r[i].lo; v <= run->r[i].hi; v++)
            r[c++] = (pmix_rank_t)(v + (uint64_t)j * run->shift);
    *out = r;
    *n = c;
    return 0;
}

char *spx_procmap_node_list(const spx_procmap_t *m, uint32_t node)
{
    pmix_rank_t *r;
    size_t n;
    if (spx_procmap_node_ranks(m, node, &r, &n) != 0)
        return NULL;
    char *s = malloc(n * 11 + 1);
    size_t off = 0;
    if (s) {
        s[0] = '\0';
        for (size_t i = 0; i < n; i++)
            off += (size_t)sprintf(s + off, "%s%u", i ? "," : "", (unsigned)r[i]);
    }
    free(r);
    return s;
}

/* ---- compressors ------------------------------------------------------- */

/* A growing text (malloc'd). */
struct maps_text {
    char *s;
    size_t len, cap;
    bool failed;
};

static void text_add(struct maps_text *t, const char *fmt, ...) SPX_PRINTF(2, 3);
static void text_add(struct maps_text *t, const char *fmt, ...)
{
    va_list ap;
    for (int tries = 0; tries < 2 && !t->failed; tries++) {
        size_t room = t->cap - t->len;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if ((size_t)n < room) {
            t->len += (size_t)n;
            return;
        }
        size_t nc = (t->cap + (size_t)n + 1) * 2;
        char *s = realloc(t->s, nc);
        if (!s) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = nc;
    }
}

static pmix_status_t text_done(struct maps_text *t, char **out)
{
    if (t->failed || !t->s) {
        free(t->s);
        return PMIX_ERR_NOMEM;
    }
    *out = t->s;
    return PMIX_SUCCESS;
}

/* A name split at its last run of digits. */
struct split_name {
    const char *name;
    size_t plen, dlen; /* prefix, digits (0: no number) */
    uint32_t v;
};

static void split_name(const char *name, size_t len, struct split_name *sn)
{
    size_t end = len;
    while (end > 0 && (name[end - 1] < '0' || name[end - 1] > '9'))
        end--;
    size_t start = end;
    while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
        start--;
    sn->name = name;
    sn->plen = start;
    sn->dlen = end - start;
    const char *d = name + start;
    if (sn->dlen == 0 || sn->dlen > MAPS_MAX_DIGITS || !read_u32(&d, &sn->v, NULL))
        sn->dlen = 0;
}

pmix_status_t spx_nodemap_compress(const char *list, char **out)
{
    struct maps_text t = {0};
    *out = NULL;
    if (!list || strpbrk(list, "[]*@;") || strchr(list, ':'))
        return PMIX_ERR_BAD_PARAM;
    text_add(&t, "%s", SPX_MAPS_PREFIX);
    const char *p = list;
    bool first = true;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            p++;
            continue;
        }
        struct split_name a;
        split_name(p, len, &a);
        const char *q = p + len;
        uint32_t count = 1;
        size_t slen = len - a.plen - a.dlen;
        /* take the following names of the same prefix, suffix and width
         * whose numbers go on one by one */
        while (a.dlen && *q == ',') {
            const char *n = q + 1;
            size_t nlen = strcspn(n, ",");
            struct split_name b;
            split_name(n, nlen, &b);
            char want[16];
            if (a.v + count < a.v)
                break;
            snprintf(want, sizeof(want), "%0*u", (int)a.dlen, a.v + count);
            if (!b.dlen || b.plen != a.plen || strncmp(n, p, a.plen) != 0 ||
                nlen - b.plen - b.dlen != slen ||
                strncmp(n + b.plen + b.dlen, p + a.plen + a.dlen, slen) != 0 ||
                b.v != a.v + count || strlen(want) != b.dlen)
                break;
            count++;
            q = n + nlen;
        }
        if (count == 1)
            text_add(&t, "%s%.*s", first ? "" : ",", (int)len, p);
        else
            text_add(&t, "%s%.*s[%.*s-%0*u]%.*s", first ? "" : ",", (int)a.plen, p, (int)a.dlen,
                     p + a.plen, (int)a.dlen, a.v + count - 1, (int)slen, p + a.plen + a.dlen);
        first = false;
        p = q;
    }
    return text_done(&t, out);
}

static bool same_shifted(const struct spx_rankrun *a, const struct spx_rankrun *b, uint64_t d)
{
    if (a->nr != b->nr)
        return false;
    for (uint32_t i = 0; i < a->nr; i++)
        if ((uint64_t)a->r[i].lo + d != b->r[i].lo || (uint64_t)a->r[i].hi + d != b->r[i].hi)
            return false;
    return true;
}

static void text_ranges(struct maps_text *t, const struct spx_rankrun *run)
{
    for (uint32_t i = 0; i < run->nr; i++) {
        if (run->r[i].lo == run->r[i].hi)
            text_add(t, "%s%u", i ? "," : "", run->r[i].lo);
        else
            text_add(t, "%s%u-%u", i ? "," : "", run->r[i].lo, run->r[i].hi);
    }
}

static void text_run(struct maps_text *t, const struct spx_rankrun *run, bool first)
{
    if (!first)
        text_add(t, ";");
    text_ranges(t, run);
    if (run->nnodes > 1)
        text_add(t, "*%u@%u", run->nnodes, run->shift);
}

pmix_status_t spx_procmap_compress(const char *list, char **out)
{
    struct maps_text t = {0};
    struct spx_rankrun cur = {0}, next = {0};
    pmix_status_t rc = PMIX_SUCCESS;
    bool have = false, first = true;
    *out = NULL;
    if (!list || strpbrk(list, "*@:[]"))
        return PMIX_ERR_BAD_PARAM;
    text_add(&t, "%s", SPX_MAPS_PREFIX);
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ";");
        memset(&next, 0, sizeof(next));
        next.nnodes = 1;
        if ((rc = ranges_of(p, len, &next)) != PMIX_SUCCESS)
            break;
        if (have && cur.nr && next.nr) {
            uint64_t d = cur.nnodes == 1 ? (next.r[0].lo > cur.r[0].lo ? next.r[0].lo - cur.r[0].lo : 0)
                                         : (uint64_t)cur.shift * cur.nnodes;
            if (d > 0 && d < PMIX_RANK_VALID && same_shifted(&cur, &next, d) &&
                (cur.nnodes == 1 || d == (uint64_t)cur.shift * cur.nnodes) &&
                cur.nnodes < SPX_MAPS_MAX_NODES) {
                if (cur.nnodes == 1)
                    cur.shift = (uint32_t)d;
                cur.nnodes++;
                free(next.r);
                goto advance;
            }
        }
        if (have)
            text_run(&t, &cur, first), first = false;
        free(cur.r);
        cur = next;
        have = true;
    advance:
        p += len;
        if (*p != ';')
            break;
        p++;
    }
    if (rc == PMIX_SUCCESS && have)
        text_run(&t, &cur, first);
    free(cur.r);
    if (rc != PMIX_SUCCESS) {
        free(t.s);
        return rc;
    }
    return text_done(&t, out);
}
