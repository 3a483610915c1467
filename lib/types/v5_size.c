/* v5_size.c - PMIx_Value_get_size and PMIx_Info_get_size (PMIx v5): how
 * many bytes of memory a value or an info occupies, its own struct included.
 *
 * The walk follows the type table (typedesc.h): a value holds its element
 * inline or boxed behind a pointer (then the box counts), and owned_bytes()
 * adds what an element owns beyond its struct: strings with their NUL, byte
 * object payloads, coordinate vectors, nested arrays and the values inside
 * infos, pdata, apps and queries.  Borrowed memory (PMIX_POINTER targets,
 * hwloc topologies and bitmaps) is not counted, so for those the result is a
 * lower bound.  Nested data arrays deeper than SIZE_MAX_DEPTH fail with
 * PMIX_ERR_BAD_PARAM (the codec refuses them too).  Any thread.
 */
#include <string.h>

#include <pmix.h>

#include "types/typedesc.h"
#include "types/types.h"
#include "util/compiler.h"

#define SIZE_MAX_DEPTH 16

static pmix_status_t owned_bytes(pmix_data_type_t type, const void *elem, int depth,
                                 size_t *sz);

static size_t str_bytes(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

static size_t argv_bytes(char **argv)
{
    size_t n = 0;

    if (argv == NULL)
        return 0;
    for (size_t i = 0; argv[i]; i++)
        n += sizeof(char *) + str_bytes(argv[i]);
    return n + sizeof(char *);
}

/* What a value owns: the box of a boxed element, and what the element owns. */
static pmix_status_t value_owned(const pmix_value_t *v, int depth, size_t *sz)
{
    const struct spx_typedesc *td = spx_typedesc_get(v->type);
    const void *elem;

    if (v->type == PMIX_UNDEF)
        return PMIX_SUCCESS;
    if (td == NULL || td->store == SPX_TD_ARRAY_ONLY)
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    elem = &v->data;
    if (td->store == SPX_TD_BOXED) {
        if (v->data.ptr == NULL)
            return PMIX_SUCCESS;
        *sz += td->size;
        elem = v->data.ptr;
    }
    return owned_bytes(v->type, elem, depth, sz);
}

static pmix_status_t array_owned(const pmix_data_array_t *d, int depth, size_t *sz)
{
    const struct spx_typedesc *td;
    pmix_status_t rc;

    if (depth >= SIZE_MAX_DEPTH)
        return PMIX_ERR_BAD_PARAM;
    if (d->array == NULL || d->size == 0)
        return PMIX_SUCCESS;
    if ((td = spx_typedesc_get(d->type)) == NULL || td->size == 0)
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    *sz += d->size * td->size;
    for (size_t i = 0; i < d->size; i++) {
        rc = owned_bytes(d->type, (const char *)d->array + i * td->size, depth + 1, sz);
        if (rc != PMIX_SUCCESS)
            return rc;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t infos_owned(const pmix_info_t *info, size_t n, int depth, size_t *sz)
{
    pmix_status_t rc;

    if (info == NULL)
        return PMIX_SUCCESS;
    *sz += n * sizeof(*info);
    for (size_t i = 0; i < n; i++)
        if ((rc = owned_bytes(PMIX_INFO, &info[i], depth + 1, sz)) != PMIX_SUCCESS)
            return rc;
    return PMIX_SUCCESS;
}

static pmix_status_t owned_bytes(pmix_data_type_t type, const void *elem, int depth,
                                 size_t *sz)
{
    switch (type) {
    case PMIX_STRING:
        *sz += str_bytes(*(char *const *)elem);
        return PMIX_SUCCESS;
    case PMIX_BYTE_OBJECT: case PMIX_COMPRESSED_STRING: case PMIX_COMPRESSED_BYTE_OBJECT:
    case PMIX_REGEX: {
        const pmix_byte_object_t *bo = elem;
        *sz += bo->bytes ? bo->size : 0;
        return PMIX_SUCCESS;
    }
    case PMIX_VALUE:
        return value_owned(elem, depth, sz);
    case PMIX_INFO: {
        const pmix_info_t *i = elem;
        return i->value.type != PMIX_UNDEF ? value_owned(&i->value, depth, sz) : PMIX_SUCCESS;
    }
    case PMIX_PDATA: {
        const pmix_pdata_t *p = elem;
        return p->value.type != PMIX_UNDEF ? value_owned(&p->value, depth, sz) : PMIX_SUCCESS;
    }
    case PMIX_APP: {
        const pmix_app_t *a = elem;
        *sz += str_bytes(a->cmd) + argv_bytes(a->argv) + argv_bytes(a->env) + str_bytes(a->cwd);
        return infos_owned(a->info, a->ninfo, depth, sz);
    }
    case PMIX_QUERY: {
        const pmix_query_t *q = elem;
        *sz += argv_bytes(q->keys);
        return infos_owned(q->qualifiers, q->nqual, depth, sz);
    }
    case PMIX_PROC_INFO: {
        const pmix_proc_info_t *p = elem;
        *sz += str_bytes(p->hostname) + str_bytes(p->executable_name);
        return PMIX_SUCCESS;
    }
    case PMIX_DATA_ARRAY:
        return array_owned(elem, depth, sz);
    case PMIX_ENVAR: {
        const pmix_envar_t *e = elem;
        *sz += str_bytes(e->envar) + str_bytes(e->value);
        return PMIX_SUCCESS;
    }
    case PMIX_COORD: {
        const pmix_coord_t *c = elem;
        *sz += c->coord ? c->dims * sizeof(uint32_t) : 0;
        return PMIX_SUCCESS;
    }
    case PMIX_REGATTR: {
        const pmix_regattr_t *r = elem;
        *sz += str_bytes(r->name) + argv_bytes(r->description);
        return PMIX_SUCCESS;
    }
    case PMIX_GEOMETRY: {
        const pmix_geometry_t *g = elem;
        *sz += str_bytes(g->uuid) + str_bytes(g->osname);
        if (g->coordinates)
            for (size_t i = 0; i < g->ncoords; i++) {
                *sz += sizeof(pmix_coord_t);
                (void)owned_bytes(PMIX_COORD, &g->coordinates[i], depth, sz);
            }
        return PMIX_SUCCESS;
    }
    case PMIX_DEVICE_DIST: {
        const pmix_device_distance_t *d = elem;
        *sz += str_bytes(d->uuid) + str_bytes(d->osname);
        return PMIX_SUCCESS;
    }
    case PMIX_ENDPOINT: {
        const pmix_endpoint_t *e = elem;
        *sz += str_bytes(e->uuid) + str_bytes(e->osname) + (e->endpt.bytes ? e->endpt.size : 0);
        return PMIX_SUCCESS;
    }
    case PMIX_PROC_CPUSET: {
        const pmix_cpuset_t *c = elem;
        *sz += str_bytes(c->source);
        return PMIX_SUCCESS;
    }
    case PMIX_TOPO: {
        const pmix_topology_t *t = elem;
        *sz += str_bytes(t->source);
        return PMIX_SUCCESS;
    }
    case PMIX_DATA_BUFFER: {
        const pmix_data_buffer_t *b = elem;
        *sz += b->base_ptr ? b->bytes_allocated : 0;
        return PMIX_SUCCESS;
    }
    case PMIX_PROC_STATS: {
        const pmix_proc_stats_t *p = elem;
        *sz += str_bytes(p->node) + str_bytes(p->cmd);
        return PMIX_SUCCESS;
    }
    case PMIX_DISK_STATS:
        *sz += str_bytes(((const pmix_disk_stats_t *)elem)->disk);
        return PMIX_SUCCESS;
    case PMIX_NET_STATS:
        *sz += str_bytes(((const pmix_net_stats_t *)elem)->net_interface);
        return PMIX_SUCCESS;
    case PMIX_NODE_STATS: {
        const pmix_node_stats_t *n = elem;
        *sz += str_bytes(n->node);
        if (n->diskstats)
            for (size_t i = 0; i < n->ndiskstats; i++)
                *sz += sizeof(pmix_disk_stats_t) + str_bytes(n->diskstats[i].disk);
        if (n->netstats)
            for (size_t i = 0; i < n->nnetstats; i++)
                *sz += sizeof(pmix_net_stats_t) + str_bytes(n->netstats[i].net_interface);
        return PMIX_SUCCESS;
    }
    default: /* scalars, procs, nspaces, pointers (targets borrowed) */
        return PMIX_SUCCESS;
    }
}

SPX_EXPORT pmix_status_t PMIx_Value_get_size(const pmix_value_t *val, size_t *size)
{
    size_t sz = sizeof(pmix_value_t);
    pmix_status_t rc;

    if (val == NULL || size == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (val->type == PMIX_UNDEF)
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    if ((rc = value_owned(val, 0, &sz)) != PMIX_SUCCESS)
        return rc;
    *size = sz;
    return PMIX_SUCCESS;
}

/* The info struct (its key and value are inside it) and what its value owns. */
SPX_EXPORT pmix_status_t PMIx_Info_get_size(const pmix_info_t *val, size_t *size)
{
    size_t sz = sizeof(pmix_info_t);
    pmix_status_t rc;

    if (val == NULL || size == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (val->value.type == PMIX_UNDEF)
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    if ((rc = value_owned(&val->value, 0, &sz)) != PMIX_SUCCESS)
        return rc;
    *size = sz;
    return PMIX_SUCCESS;
}
