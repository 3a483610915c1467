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
#include <pthread.h>
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
 * the process. The table is small; a peer cannot make us hold more. */
#define SPX_CODEC_MAX_TOPOS 8

static struct {
    char *xml;
    size_t len;
    hwloc_topology_t topo;
} topo_cache[SPX_CODEC_MAX_TOPOS];
static int topo_count;
static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;

/* xml: NUL-terminated, len without the NUL; ownership passes here. Returns the
 * borrowed topology or NULL with *err set. */
static hwloc_topology_t topo_intern(char *xml, size_t len, int *err)
{
    hwloc_topology_t topo = NULL;
    pthread_mutex_lock(&topo_lock);
    for (int i = 0; i < topo_count; i++) {
        if (topo_cache[i].len == len && memcmp(topo_cache[i].xml, xml, len) == 0) {
            topo = topo_cache[i].topo;
            goto out;
        }
    }
    if (topo_count == SPX_CODEC_MAX_TOPOS) {
        *err = ENOSPC;
        goto out;
    }
    if (hwloc_topology_init(&topo) < 0) {
        *err = ENOMEM;
        topo = NULL;
        goto out;
    }
    if (hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1) < 0 || hwloc_topology_load(topo) < 0) {
        hwloc_topology_destroy(topo);
        topo = NULL;
        *err = EBADMSG;
        goto out;
    }
    topo_cache[topo_count].xml = xml;
    topo_cache[topo_count].len = len;
    topo_cache[topo_count].topo = topo;
    topo_count++;
    xml = NULL;
out:
    pthread_mutex_unlock(&topo_lock);
    free(xml);
    return topo;
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
