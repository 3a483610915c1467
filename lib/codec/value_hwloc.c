/* value_hwloc.c - encoding of the two PMIx types that wrap hwloc objects.
 *
 * A cpuset is its source string, a flag, and (source "hwloc") the bitmap in
 * hwloc's list syntax ("0-3,8"), checked strictly before hwloc parses it. A
 * topology is its source string, a flag, and (source "hwloc") hwloc's XML
 * export. Decoded bitmaps are owned by the cpuset; decoded topologies are
 * interned (see topo_intern) because every pmix_topology_t borrows its object.
 */
#include "config.h"
#include "codec/value_int.h"

#include <errno.h>
#include <hwloc.h>
#include <hwloc/export.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SPX_CODEC_MAX_CPU (1u << 20) /* highest cpu index accepted in a cpuset string */

/* Reads a cpu index at *s (digits only, <= SPX_CODEC_MAX_CPU). */
static int cpu_index(const char **s, unsigned long *out)
{
    const char *p = *s;
    unsigned long v = 0;
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > SPX_CODEC_MAX_CPU)
            return 0;
        p++;
    }
    *s = p;
    *out = v;
    return 1;
}

/* hwloc list syntax, strictly: "" or RANGE(,RANGE)* with RANGE = N | N-M (N <= M),
 * and "N-" (up to infinity) only as the last range. Anything else could ask
 * hwloc for absurd bitmaps, so it is refused before hwloc sees it. */
static int cpuset_str_ok(const char *s)
{
    if (!*s)
        return 1;
    for (;;) {
        unsigned long lo, hi;
        if (!cpu_index(&s, &lo))
            return 0;
        if (*s == '-') {
            s++;
            if (!*s)
                return 1; /* "N-": open end, last range */
            if (!cpu_index(&s, &hi) || hi < lo)
                return 0;
        }
        if (!*s)
            return 1;
        if (*s != ',')
            return 0;
        s++;
    }
}

void spx_codec_pack_cpuset(spx_buf_t *b, const void *p, int depth)
{
    const pmix_cpuset_t *c = p;
    if (spx_codec_too_deep(b, depth, EPROTO))
        return;
    spx_buf_push_str(b, c->source);
    int live = c->source && strcmp(c->source, "hwloc") == 0 && c->bitmap;
    spx_buf_push_u8(b, (uint8_t)live);
    if (!live)
        return;
    char *s = NULL;
    if (hwloc_bitmap_list_asprintf(&s, (hwloc_const_bitmap_t)c->bitmap) < 0 || !s) {
        spx_buf_set_error(b, ENOMEM);
        return;
    }
    spx_buf_push_str(b, s);
    free(s);
}

void spx_codec_unpack_cpuset(spx_buf_t *b, void *p, int depth)
{
    pmix_cpuset_t *c = p;
    if (spx_codec_too_deep(b, depth, EBADMSG))
        return;
    c->source = spx_buf_pull_str(b);
    uint8_t live = spx_buf_pull_u8(b);
    if (spx_buf_failed(b))
        return;
    if (live > 1 || (live && (!c->source || strcmp(c->source, "hwloc") != 0))) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    if (!live)
        return;
    char *s = spx_buf_pull_str(b);
    if (!s || !cpuset_str_ok(s)) {
        free(s);
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    hwloc_bitmap_t bm = hwloc_bitmap_alloc();
    if (!bm || hwloc_bitmap_list_sscanf(bm, s) < 0) {
        hwloc_bitmap_free(bm);
        spx_buf_set_error(b, bm ? EBADMSG : ENOMEM);
    } else {
        c->bitmap = bm;
    }
    free(s);
}

void spx_codec_pack_topo(spx_buf_t *b, const void *p, int depth)
{
    const pmix_topology_t *t = p;
    if (spx_codec_too_deep(b, depth, EPROTO))
        return;
    spx_buf_push_str(b, t->source);
    int live = t->source && strcmp(t->source, "hwloc") == 0 && t->topology;
    spx_buf_push_u8(b, (uint8_t)live);
    if (!live)
        return;
    char *xml = NULL;
    int len = 0;
    hwloc_topology_t topo = (hwloc_topology_t)t->topology;
    if (hwloc_topology_export_xmlbuffer(topo, &xml, &len, 0) < 0 || !xml) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    spx_buf_push_bytes(b, xml, strnlen(xml, (size_t)len));
    hwloc_free_xmlbuffer(topo, xml);
}

/* Topology objects are borrowed by every pmix_topology_t (PMIx_Value_destruct
 * and copies never destroy them), so a topology that arrives on the wire is
 * interned: one live hwloc object per distinct XML text, kept for the life of
 * the process. The table is small; a peer cannot make us hold more.
 *
 * The table is not progress-thread state: PMIx_Data_unpack, PMIx_Data_copy
 * and PMIx_Value_xfer decode on their caller's thread, the progress thread
 * decodes what arrives on sockets, and a server decodes for its host. So it
 * takes no lock: each slot is filled once with a compare-and-swap and
 * read-only after that. A thread that meets an empty slot builds its entry
 * first (outside any critical section: hwloc parses the XML) and then tries
 * to publish it; if another thread filled the slot meanwhile and with the
 * same XML, the loser frees its copy and uses the winner's, else it moves on
 * to the next slot. So every distinct XML still has exactly one object. */
#define SPX_CODEC_MAX_TOPOS 8

struct spx_codec_topo {
    char *xml;   /* owned, NUL-terminated */
    size_t len;  /* without the NUL */
    hwloc_topology_t topo;
};

/* Each slot is NULL or an entry, set once (compare-and-swap), never freed. */
static struct spx_codec_topo *topo_cache[SPX_CODEC_MAX_TOPOS];

/* An entry for xml (ownership passes to it), or NULL with *err set and xml
 * still the caller's. */
static struct spx_codec_topo *topo_entry_create(char *xml, size_t len, int *err)
{
    struct spx_codec_topo *e = malloc(sizeof(*e));
    if (!e) {
        *err = ENOMEM;
        return NULL;
    }
    if (hwloc_topology_init(&e->topo) < 0) {
        free(e);
        *err = ENOMEM;
        return NULL;
    }
    if (hwloc_topology_set_xmlbuffer(e->topo, xml, (int)len + 1) < 0 ||
        hwloc_topology_load(e->topo) < 0) {
        hwloc_topology_destroy(e->topo);
        free(e);
        *err = EBADMSG;
        return NULL;
    }
    e->xml = xml;
    e->len = len;
    return e;
}

static void topo_entry_destroy(struct spx_codec_topo *e)
{
    hwloc_topology_destroy(e->topo);
    free(e->xml);
    free(e);
}

/* xml: NUL-terminated, len without the NUL; ownership passes here. Returns the
 * borrowed topology or NULL with *err set. */
static hwloc_topology_t topo_intern(char *xml, size_t len, int *err)
{
    struct spx_codec_topo *mine = NULL; /* built once, on the first empty slot */
    for (int i = 0; i < SPX_CODEC_MAX_TOPOS; i++) {
        struct spx_codec_topo *e = __atomic_load_n(&topo_cache[i], __ATOMIC_ACQUIRE);
        if (!e) {
            if (!mine && !(mine = topo_entry_create(xml, len, err))) {
                free(xml);
                return NULL;
            }
            if (__atomic_compare_exchange_n(&topo_cache[i], &e, mine, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return mine->topo;
            /* another thread filled slot i first: e is its entry */
        }
        if (e->len == len && memcmp(e->xml, xml, len) == 0) {
            if (mine)
                topo_entry_destroy(mine); /* frees xml too */
            else
                free(xml);
            return e->topo;
        }
    }
    *err = ENOSPC;
    if (mine)
        topo_entry_destroy(mine);
    else
        free(xml);
    return NULL;
}

void spx_codec_unpack_topo(spx_buf_t *b, void *p, int depth)
{
    pmix_topology_t *t = p;
    if (spx_codec_too_deep(b, depth, EBADMSG))
        return;
    t->source = spx_buf_pull_str(b);
    uint8_t live = spx_buf_pull_u8(b);
    if (spx_buf_failed(b))
        return;
    if (live > 1 || (live && (!t->source || strcmp(t->source, "hwloc") != 0))) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    if (!live)
        return;
    size_t n = 0;
    char *xml = spx_buf_pull_bytes(b, &n);
    if (!xml || n >= (size_t)INT32_MAX || memchr(xml, '\0', n)) {
        free(xml);
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    char *z = realloc(xml, n + 1);
    if (!z) {
        free(xml);
        spx_buf_set_error(b, ENOMEM);
        return;
    }
    z[n] = '\0';
    int err = 0;
    t->topology = topo_intern(z, n, &err);
    if (!t->topology)
        spx_buf_set_error(b, err);
}
