/* value_free.c - releases what the value codec allocated.
 *
 * Used on every pull failure (partial results) and by callers that own
 * decoded data. The rules match PMIx_Value_destruct: strings, vectors, arrays
 * and the single element behind a pointer-held value are malloc'd; cpusets
 * whose source is "hwloc" own an hwloc bitmap; topology objects and
 * PMIX_POINTER targets are borrowed, never freed here. Released storage is zeroed, so releasing twice is harmless.
 */
#include "config.h"
#include "codec/value_int.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

static void free_array(pmix_data_type_t t, void *arr, size_t n)
{
    if (!arr)
        return;
    spx_codec_release_elems(t, arr, n);
    free(arr);
}

static void release_value(pmix_value_t *v)
{
    const spx_codec_type_t *ty = spx_codec_type_get(v->type);
    if (ty && ty->slot == SPX_SLOT_INLINE) {
        spx_codec_release_elems(v->type, &v->data, 1);
    } else if (ty && ty->slot == SPX_SLOT_PTR && v->data.ptr) {
        spx_codec_release_elems(v->type, v->data.ptr, 1);
        free(v->data.ptr);
    }
    memset(v, 0, sizeof(*v));
}

void spx_codec_value_release(pmix_value_t *v)
{
    if (v)
        release_value(v);
}

void spx_codec_release_ext(pmix_data_type_t t, void *p)
{
    switch (t) {
    case PMIX_ENVAR: {
        pmix_envar_t *e = p;
        free(e->envar);
        free(e->value);
        break;
    }
    case PMIX_APP: {
        pmix_app_t *a = p;
        free(a->cmd);
        spx_codec_free_argv(a->argv);
        spx_codec_free_argv(a->env);
        free(a->cwd);
        free_array(PMIX_INFO, a->info, a->ninfo);
        break;
    }
    case PMIX_QUERY: {
        pmix_query_t *q = p;
        spx_codec_free_argv(q->keys);
        free_array(PMIX_INFO, q->qualifiers, q->nqual);
        break;
    }
    case PMIX_PDATA:
        release_value(&((pmix_pdata_t *)p)->value);
        break;
    case PMIX_PROC_INFO: {
        pmix_proc_info_t *i = p;
        free(i->hostname);
        free(i->executable_name);
        break;
    }
    case PMIX_REGATTR: {
        pmix_regattr_t *r = p;
        free(r->name);
        spx_codec_free_argv(r->description);
        break;
    }
    case PMIX_COORD:
        free(((pmix_coord_t *)p)->coord);
        break;
    case PMIX_GEOMETRY: {
        pmix_geometry_t *g = p;
        free(g->uuid);
        free(g->osname);
        free_array(PMIX_COORD, g->coordinates, g->ncoords);
        break;
    }
    case PMIX_DEVICE_DIST: {
        pmix_device_distance_t *d = p;
        free(d->uuid);
        free(d->osname);
        break;
    }
    case PMIX_ENDPOINT: {
        pmix_endpoint_t *e = p;
        free(e->uuid);
        free(e->osname);
        free(e->endpt.bytes);
        break;
    }
    case PMIX_PROC_CPUSET: {
        pmix_cpuset_t *c = p;
        if (c->bitmap && c->source && strcmp(c->source, "hwloc") == 0)
            hwloc_bitmap_free((hwloc_bitmap_t)c->bitmap);
        free(c->source);
        break;
    }
    case PMIX_TOPO: /* the topology object is borrowed (see value_ext.c) */
        free(((pmix_topology_t *)p)->source);
        break;
    case PMIX_PROC_STATS: {
        pmix_proc_stats_t *s = p;
        free(s->node);
        free(s->cmd);
        break;
    }
    case PMIX_DISK_STATS:
        free(((pmix_disk_stats_t *)p)->disk);
        break;
    case PMIX_NET_STATS:
        free(((pmix_net_stats_t *)p)->net_interface);
        break;
    case PMIX_NODE_STATS: {
        pmix_node_stats_t *n = p;
        free(n->node);
        free_array(PMIX_DISK_STATS, n->diskstats, n->ndiskstats);
        free_array(PMIX_NET_STATS, n->netstats, n->nnetstats);
        break;
    }
    case PMIX_DATA_BUFFER:
        free(((pmix_data_buffer_t *)p)->base_ptr);
        break;
    default:
        break;
    }
}

void spx_codec_release_elems(pmix_data_type_t t, void *p, size_t n)
{
    const spx_codec_type_t *ty = spx_codec_type_get(t);
    if (!ty || !p)
        return;
    for (size_t i = 0; i < n; i++) {
        void *e = (char *)p + i * ty->size;
        switch (ty->kind) {
        case SPX_K_STRING:
            free(*(char **)e);
            break;
        case SPX_K_BO:
            free(((pmix_byte_object_t *)e)->bytes);
            break;
        case SPX_K_VALUE:
            release_value(e);
            break;
        case SPX_K_INFO:
            release_value(&((pmix_info_t *)e)->value);
            break;
        case SPX_K_DARRAY: {
            pmix_data_array_t *d = e;
            free_array(d->type, d->array, d->size);
            break;
        }
        case SPX_K_EXT:
            spx_codec_release_ext(t, e);
            break;
        default:
            break;
        }
        memset(e, 0, ty->size);
    }
}
