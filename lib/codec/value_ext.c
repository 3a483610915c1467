/* value_ext.c - encoding of the composite PMIx structs: envars, apps,
 * queries, pdata, proc infos, regattrs, coords, geometries, device distances,
 * endpoints, statistics and data buffers (cpusets and topologies: value_hwloc.c).
 *
 * Each struct is its fields in declaration order, using the element codec of
 * value.c for nested procs, values, infos and arrays; the type table
 * (types/typedesc.c) names these functions in each type's row. Every struct
 * refuses nesting beyond SPX_CODEC_MAX_DEPTH. Unpack writes into zeroed
 * storage and keeps it releasable at every step (see value_int.h).
 */
#include "config.h"
#include "codec/value_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- string vectors ---- */

void spx_codec_push_argv(spx_buf_t *b, char *const *argv)
{
    size_t n = 0;
    while (argv && argv[n])
        n++;
    if (n > SPX_BUF_MAX_COUNT) {
        spx_buf_set_error(b, EMSGSIZE);
        return;
    }
    spx_buf_push_u32(b, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        spx_buf_push_str(b, argv[i]);
}

void spx_codec_pull_argv(spx_buf_t *b, char ***out)
{
    uint32_t n = spx_codec_pull_count(b, PMIX_STRING);
    if (spx_buf_failed(b) || n == 0)
        return;
    char **argv = calloc((size_t)n + 1, sizeof(char *));
    if (!argv) {
        spx_buf_set_error(b, ENOMEM);
        return;
    }
    *out = argv;
    for (uint32_t i = 0; i < n; i++) {
        argv[i] = spx_buf_pull_str(b);
        if (!argv[i]) { /* error, or a NULL inside a vector: both invalid */
            spx_buf_set_error(b, EBADMSG);
            return;
        }
    }
}

/* ---- small helpers ---- */

static void push_f32(spx_buf_t *b, float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    spx_buf_push_u32(b, x);
}

static float pull_f32(spx_buf_t *b)
{
    uint32_t x = spx_buf_pull_u32(b);
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static void push_key(spx_buf_t *b, const char *key)
{
    char k[PMIX_MAX_KEYLEN + 1];
    memcpy(k, key, PMIX_MAX_KEYLEN);
    k[PMIX_MAX_KEYLEN] = '\0';
    spx_buf_push_str(b, k);
}

/* Runs of same-typed consecutive fields in the stats structs, copied through
 * char pointers so no field is indexed beyond itself. */
_Static_assert(offsetof(pmix_disk_stats_t, weighted_milliseconds_io) ==
               offsetof(pmix_disk_stats_t, num_reads_completed) + 10 * sizeof(uint64_t), "disk");
_Static_assert(offsetof(pmix_net_stats_t, num_send_errs) ==
               offsetof(pmix_net_stats_t, num_bytes_recvd) + 5 * sizeof(uint64_t), "net");
_Static_assert(offsetof(pmix_node_stats_t, mapped) ==
               offsetof(pmix_node_stats_t, la) + 10 * sizeof(float), "node");

static void push_u64_run(spx_buf_t *b, const void *first, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, (const char *)first + i * sizeof(v), sizeof(v));
        spx_buf_push_u64(b, v);
    }
}

static void pull_u64_run(spx_buf_t *b, void *first, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t v = spx_buf_pull_u64(b);
        memcpy((char *)first + i * sizeof(v), &v, sizeof(v));
    }
}

static void push_f32_run(spx_buf_t *b, const void *first, int n)
{
    for (int i = 0; i < n; i++) {
        float v;
        memcpy(&v, (const char *)first + i * sizeof(v), sizeof(v));
        push_f32(b, v);
    }
}

static void pull_f32_run(spx_buf_t *b, void *first, int n)
{
    for (int i = 0; i < n; i++) {
        float v = pull_f32(b);
        memcpy((char *)first + i * sizeof(v), &v, sizeof(v));
    }
}

/* ---- the structs: pack and unpack of each ---- */

#define GUARD_PACK()                                 \
    do {                                             \
        if (spx_codec_too_deep(b, depth, EPROTO))    \
            return;                                  \
    } while (0)
#define GUARD_UNPACK()                               \
    do {                                             \
        if (spx_codec_too_deep(b, depth, EBADMSG))   \
            return;                                  \
    } while (0)

void spx_codec_pack_envar(spx_buf_t *b, const void *p, int depth)
{
    const pmix_envar_t *e = p;
    GUARD_PACK();
    spx_buf_push_str(b, e->envar);
    spx_buf_push_str(b, e->value);
    spx_buf_push_u8(b, (uint8_t)e->separator);
}

void spx_codec_unpack_envar(spx_buf_t *b, void *p, int depth)
{
    pmix_envar_t *e = p;
    GUARD_UNPACK();
    e->envar = spx_buf_pull_str(b);
    e->value = spx_buf_pull_str(b);
    e->separator = (char)spx_buf_pull_u8(b);
}

void spx_codec_pack_app(spx_buf_t *b, const void *p, int depth)
{
    const pmix_app_t *a = p;
    GUARD_PACK();
    spx_buf_push_str(b, a->cmd);
    spx_codec_push_argv(b, a->argv);
    spx_codec_push_argv(b, a->env);
    spx_buf_push_str(b, a->cwd);
    spx_buf_push_i32(b, a->maxprocs);
    spx_codec_push_array(b, PMIX_INFO, a->info, a->info ? a->ninfo : 0, depth + 1);
}

void spx_codec_unpack_app(spx_buf_t *b, void *p, int depth)
{
    pmix_app_t *a = p;
    GUARD_UNPACK();
    a->cmd = spx_buf_pull_str(b);
    spx_codec_pull_argv(b, &a->argv);
    spx_codec_pull_argv(b, &a->env);
    a->cwd = spx_buf_pull_str(b);
    a->maxprocs = spx_buf_pull_i32(b);
    spx_codec_pull_array(b, PMIX_INFO, (void **)&a->info, &a->ninfo, depth + 1);
}

void spx_codec_pack_query(spx_buf_t *b, const void *p, int depth)
{
    const pmix_query_t *q = p;
    GUARD_PACK();
    spx_codec_push_argv(b, q->keys);
    spx_codec_push_array(b, PMIX_INFO, q->qualifiers, q->qualifiers ? q->nqual : 0, depth + 1);
}

void spx_codec_unpack_query(spx_buf_t *b, void *p, int depth)
{
    pmix_query_t *q = p;
    GUARD_UNPACK();
    spx_codec_pull_argv(b, &q->keys);
    spx_codec_pull_array(b, PMIX_INFO, (void **)&q->qualifiers, &q->nqual, depth + 1);
}

void spx_codec_pack_pdata(spx_buf_t *b, const void *p, int depth)
{
    const pmix_pdata_t *d = p;
    GUARD_PACK();
    spx_codec_pack_proc(b, &d->proc, depth);
    push_key(b, d->key);
    spx_codec_pack_value(b, &d->value, depth + 1);
}

void spx_codec_unpack_pdata(spx_buf_t *b, void *p, int depth)
{
    pmix_pdata_t *d = p;
    GUARD_UNPACK();
    spx_codec_unpack_proc(b, &d->proc, depth);
    spx_buf_pull_str_into(b, d->key, sizeof(d->key));
    spx_codec_unpack_value(b, &d->value, depth + 1);
}

void spx_codec_pack_pinfo(spx_buf_t *b, const void *p, int depth)
{
    const pmix_proc_info_t *i = p;
    GUARD_PACK();
    spx_codec_pack_proc(b, &i->proc, depth);
    spx_buf_push_str(b, i->hostname);
    spx_buf_push_str(b, i->executable_name);
    spx_buf_push_i32(b, i->pid);
    spx_buf_push_i32(b, i->exit_code);
    spx_buf_push_u8(b, i->state);
}

void spx_codec_unpack_pinfo(spx_buf_t *b, void *p, int depth)
{
    pmix_proc_info_t *i = p;
    GUARD_UNPACK();
    spx_codec_unpack_proc(b, &i->proc, depth);
    i->hostname = spx_buf_pull_str(b);
    i->executable_name = spx_buf_pull_str(b);
    i->pid = spx_buf_pull_i32(b);
    i->exit_code = spx_buf_pull_i32(b);
    i->state = spx_buf_pull_u8(b);
}

void spx_codec_pack_regattr(spx_buf_t *b, const void *p, int depth)
{
    const pmix_regattr_t *r = p;
    GUARD_PACK();
    spx_buf_push_str(b, r->name);
    push_key(b, r->string);
    spx_buf_push_u16(b, r->type);
    spx_codec_push_argv(b, r->description);
}

void spx_codec_unpack_regattr(spx_buf_t *b, void *p, int depth)
{
    pmix_regattr_t *r = p;
    GUARD_UNPACK();
    r->name = spx_buf_pull_str(b);
    spx_buf_pull_str_into(b, r->string, sizeof(r->string));
    r->type = spx_buf_pull_u16(b);
    spx_codec_pull_argv(b, &r->description);
}

void spx_codec_pack_coord(spx_buf_t *b, const void *p, int depth)
{
    const pmix_coord_t *c = p;
    GUARD_PACK();
    spx_buf_push_u8(b, c->view);
    spx_codec_push_array(b, PMIX_UINT32, c->coord, c->coord ? c->dims : 0, depth);
}

void spx_codec_unpack_coord(spx_buf_t *b, void *p, int depth)
{
    pmix_coord_t *c = p;
    GUARD_UNPACK();
    c->view = spx_buf_pull_u8(b);
    spx_codec_pull_array(b, PMIX_UINT32, (void **)&c->coord, &c->dims, depth);
}

void spx_codec_pack_geometry(spx_buf_t *b, const void *p, int depth)
{
    const pmix_geometry_t *g = p;
    GUARD_PACK();
    spx_buf_push_u64(b, g->fabric);
    spx_buf_push_str(b, g->uuid);
    spx_buf_push_str(b, g->osname);
    spx_codec_push_array(b, PMIX_COORD, g->coordinates, g->coordinates ? g->ncoords : 0,
                         depth + 1);
}

void spx_codec_unpack_geometry(spx_buf_t *b, void *p, int depth)
{
    pmix_geometry_t *g = p;
    GUARD_UNPACK();
    g->fabric = spx_buf_pull_u64(b);
    g->uuid = spx_buf_pull_str(b);
    g->osname = spx_buf_pull_str(b);
    spx_codec_pull_array(b, PMIX_COORD, (void **)&g->coordinates, &g->ncoords, depth + 1);
}

void spx_codec_pack_devdist(spx_buf_t *b, const void *p, int depth)
{
    const pmix_device_distance_t *d = p;
    GUARD_PACK();
    spx_buf_push_str(b, d->uuid);
    spx_buf_push_str(b, d->osname);
    spx_buf_push_u64(b, d->type);
    spx_buf_push_u16(b, d->mindist);
    spx_buf_push_u16(b, d->maxdist);
}

void spx_codec_unpack_devdist(spx_buf_t *b, void *p, int depth)
{
    pmix_device_distance_t *d = p;
    GUARD_UNPACK();
    d->uuid = spx_buf_pull_str(b);
    d->osname = spx_buf_pull_str(b);
    d->type = spx_buf_pull_u64(b);
    d->mindist = spx_buf_pull_u16(b);
    d->maxdist = spx_buf_pull_u16(b);
}

void spx_codec_pack_endpoint(spx_buf_t *b, const void *p, int depth)
{
    const pmix_endpoint_t *e = p;
    GUARD_PACK();
    spx_buf_push_str(b, e->uuid);
    spx_buf_push_str(b, e->osname);
    spx_codec_pack_bo(b, &e->endpt, depth);
}

void spx_codec_unpack_endpoint(spx_buf_t *b, void *p, int depth)
{
    pmix_endpoint_t *e = p;
    GUARD_UNPACK();
    e->uuid = spx_buf_pull_str(b);
    e->osname = spx_buf_pull_str(b);
    spx_codec_unpack_bo(b, &e->endpt, depth);
}

void spx_codec_pack_pstats(spx_buf_t *b, const void *p, int depth)
{
    const pmix_proc_stats_t *s = p;
    GUARD_PACK();
    spx_buf_push_str(b, s->node);
    spx_codec_pack_proc(b, &s->proc, depth);
    spx_buf_push_i32(b, s->pid);
    spx_buf_push_str(b, s->cmd);
    spx_buf_push_u8(b, (uint8_t)s->state);
    spx_codec_pack_timeval(b, &s->time, depth);
    push_f32(b, s->percent_cpu);
    spx_buf_push_i32(b, s->priority);
    spx_buf_push_u16(b, s->num_threads);
    push_f32(b, s->pss);
    push_f32(b, s->vsize);
    push_f32(b, s->rss);
    push_f32(b, s->peak_vsize);
    spx_buf_push_u16(b, s->processor);
    spx_codec_pack_timeval(b, &s->sample_time, depth);
}

void spx_codec_unpack_pstats(spx_buf_t *b, void *p, int depth)
{
    pmix_proc_stats_t *s = p;
    GUARD_UNPACK();
    s->node = spx_buf_pull_str(b);
    spx_codec_unpack_proc(b, &s->proc, depth);
    s->pid = spx_buf_pull_i32(b);
    s->cmd = spx_buf_pull_str(b);
    s->state = (char)spx_buf_pull_u8(b);
    spx_codec_unpack_timeval(b, &s->time, depth);
    s->percent_cpu = pull_f32(b);
    s->priority = spx_buf_pull_i32(b);
    s->num_threads = spx_buf_pull_u16(b);
    s->pss = pull_f32(b);
    s->vsize = pull_f32(b);
    s->rss = pull_f32(b);
    s->peak_vsize = pull_f32(b);
    s->processor = spx_buf_pull_u16(b);
    spx_codec_unpack_timeval(b, &s->sample_time, depth);
}

void spx_codec_pack_dkstats(spx_buf_t *b, const void *p, int depth)
{
    const pmix_disk_stats_t *d = p;
    GUARD_PACK();
    spx_buf_push_str(b, d->disk);
    push_u64_run(b, &d->num_reads_completed, 11);
}

void spx_codec_unpack_dkstats(spx_buf_t *b, void *p, int depth)
{
    pmix_disk_stats_t *d = p;
    GUARD_UNPACK();
    d->disk = spx_buf_pull_str(b);
    pull_u64_run(b, &d->num_reads_completed, 11);
}

void spx_codec_pack_netstats(spx_buf_t *b, const void *p, int depth)
{
    const pmix_net_stats_t *n = p;
    GUARD_PACK();
    spx_buf_push_str(b, n->net_interface);
    push_u64_run(b, &n->num_bytes_recvd, 6);
}

void spx_codec_unpack_netstats(spx_buf_t *b, void *p, int depth)
{
    pmix_net_stats_t *n = p;
    GUARD_UNPACK();
    n->net_interface = spx_buf_pull_str(b);
    pull_u64_run(b, &n->num_bytes_recvd, 6);
}

void spx_codec_pack_ndstats(spx_buf_t *b, const void *p, int depth)
{
    const pmix_node_stats_t *n = p;
    GUARD_PACK();
    spx_buf_push_str(b, n->node);
    push_f32_run(b, &n->la, 11);
    spx_codec_pack_timeval(b, &n->sample_time, depth);
    spx_codec_push_array(b, PMIX_DISK_STATS, n->diskstats, n->diskstats ? n->ndiskstats : 0,
                         depth + 1);
    spx_codec_push_array(b, PMIX_NET_STATS, n->netstats, n->netstats ? n->nnetstats : 0,
                         depth + 1);
}

void spx_codec_unpack_ndstats(spx_buf_t *b, void *p, int depth)
{
    pmix_node_stats_t *n = p;
    GUARD_UNPACK();
    n->node = spx_buf_pull_str(b);
    pull_f32_run(b, &n->la, 11);
    spx_codec_unpack_timeval(b, &n->sample_time, depth);
    spx_codec_pull_array(b, PMIX_DISK_STATS, (void **)&n->diskstats, &n->ndiskstats, depth + 1);
    spx_codec_pull_array(b, PMIX_NET_STATS, (void **)&n->netstats, &n->nnetstats, depth + 1);
}

void spx_codec_pack_dbuf(spx_buf_t *b, const void *p, int depth)
{
    const pmix_data_buffer_t *d = p;
    GUARD_PACK();
    spx_buf_push_bytes(b, d->base_ptr, d->base_ptr ? d->bytes_used : 0);
}

void spx_codec_unpack_dbuf(spx_buf_t *b, void *p, int depth)
{
    pmix_data_buffer_t *d = p;
    size_t n = 0;
    GUARD_UNPACK();
    char *bytes = spx_buf_pull_bytes(b, &n);
    d->base_ptr = bytes;
    d->unpack_ptr = bytes;
    d->pack_ptr = bytes ? bytes + n : NULL;
    d->bytes_allocated = n;
    d->bytes_used = n;
}
