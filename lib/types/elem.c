/* elem.c - deep copy and release of one element of each composite PMIx
 * type (strings, byte objects, infos, apps, queries, proc infos, data
 * arrays, envars, coords, regattrs, geometries, device distances,
 * endpoints, cpusets, topologies, data buffers and the stats structs).
 *
 * Contract (typedesc.h): copy writes into zeroed storage and on failure
 * releases what it built, leaving the storage zeroed again; release frees
 * what the element owns and zeroes it, never the storage itself.
 */
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include <pmix.h>

#include "types/typedesc.h"
#include "types/types.h"

char *spx_td_strdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

pmix_status_t spx_argv_dup(char ***dst, char *const *src)
{
    size_t n = 0, i;
    char **out;

    *dst = NULL;
    if (src == NULL)
        return PMIX_SUCCESS;
    while (src[n])
        n++;
    out = calloc(n + 1, sizeof(*out));
    if (out == NULL)
        return PMIX_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        out[i] = strdup(src[i]);
        if (out[i] == NULL) {
            spx_argv_free(out);
            return PMIX_ERR_NOMEM;
        }
    }
    *dst = out;
    return PMIX_SUCCESS;
}

void spx_argv_free(char **argv)
{
    if (argv == NULL)
        return;
    for (size_t i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

/* NULL-safe string duplication that reports allocation failure. */
static pmix_status_t dup_str(char **dst, const char *src)
{
    *dst = NULL;
    if (src && (*dst = strdup(src)) == NULL)
        return PMIX_ERR_NOMEM;
    return PMIX_SUCCESS;
}

/* Deep copy of an element array of a given type; *dst NULL when n == 0. */
static pmix_status_t dup_elems(void **dst, const void *src, size_t n, pmix_data_type_t type)
{
    pmix_data_array_t tmp;
    const pmix_data_array_t in = { .type = type, .size = n, .array = (void *)src };
    pmix_status_t rc;

    *dst = NULL;
    if (n == 0 || src == NULL)
        return PMIX_SUCCESS;
    rc = spx_darray_copy(&tmp, &in);
    if (rc == PMIX_SUCCESS)
        *dst = tmp.array;
    return rc;
}

static void free_elems(void *array, size_t n, pmix_data_type_t type)
{
    pmix_data_array_t d = { .type = type, .size = n, .array = array };

    if (array)
        PMIx_Data_array_destruct(&d);
}

pmix_status_t spx_elem_copy_string(void *dst, const void *src)
{
    return dup_str((char **)dst, *(char *const *)src);
}

void spx_elem_free_string(void *elem)
{
    free(*(char **)elem);
    *(char **)elem = NULL;
}

pmix_status_t spx_elem_copy_bo(void *dst, const void *src)
{
    pmix_byte_object_t *d = dst;
    const pmix_byte_object_t *s = src;

    d->bytes = NULL;
    d->size = 0;
    if (s->bytes == NULL || s->size == 0)
        return PMIX_SUCCESS;
    d->bytes = malloc(s->size);
    if (d->bytes == NULL)
        return PMIX_ERR_NOMEM;
    memcpy(d->bytes, s->bytes, s->size);
    d->size = s->size;
    return PMIX_SUCCESS;
}

void spx_elem_free_bo(void *elem)
{
    pmix_byte_object_t *bo = elem;

    free(bo->bytes);
    bo->bytes = NULL;
    bo->size = 0;
}

/* The source may be a shorter C string than a full pmix_nspace_t: never
 * read past its NUL. */
pmix_status_t spx_elem_copy_nspace(void *dst, const void *src)
{
    size_t len = strnlen(src, PMIX_MAX_NSLEN);

    memset(dst, 0, sizeof(pmix_nspace_t));
    memcpy(dst, src, len);
    return PMIX_SUCCESS;
}

pmix_status_t spx_elem_copy_value(void *dst, const void *src)
{
    return PMIx_Value_xfer(dst, src);
}

void spx_elem_free_value(void *elem)
{
    PMIx_Value_destruct(elem);
}

pmix_status_t spx_elem_copy_info(void *dst, const void *src)
{
    return PMIx_Info_xfer(dst, src);
}

void spx_elem_free_info(void *elem)
{
    pmix_info_t *info = elem;

    if (!(info->flags & PMIX_INFO_PERSISTENT))
        PMIx_Value_destruct(&info->value);
    memset(info, 0, sizeof(*info));
}

pmix_status_t spx_elem_copy_pdata(void *dst, const void *src)
{
    pmix_pdata_t *d = dst;
    const pmix_pdata_t *s = src;

    memcpy(&d->proc, &s->proc, sizeof(d->proc));
    spx_key_load(d->key, s->key);
    return PMIx_Value_xfer(&d->value, &s->value);
}

void spx_elem_free_pdata(void *elem)
{
    pmix_pdata_t *pd = elem;

    PMIx_Value_destruct(&pd->value);
    memset(pd, 0, sizeof(*pd));
}

pmix_status_t spx_elem_copy_app(void *dst, const void *src)
{
    pmix_app_t *d = dst;
    const pmix_app_t *s = src;

    d->maxprocs = s->maxprocs;
    if (dup_str(&d->cmd, s->cmd) || dup_str(&d->cwd, s->cwd) ||
        spx_argv_dup(&d->argv, s->argv) || spx_argv_dup(&d->env, s->env) ||
        dup_elems((void **)&d->info, s->info, s->ninfo, PMIX_INFO)) {
        spx_elem_free_app(d);
        return PMIX_ERR_NOMEM;
    }
    d->ninfo = d->info ? s->ninfo : 0;
    return PMIX_SUCCESS;
}

void spx_elem_free_app(void *elem)
{
    pmix_app_t *ap = elem;

    free(ap->cmd);
    free(ap->cwd);
    spx_argv_free(ap->argv);
    spx_argv_free(ap->env);
    free_elems(ap->info, ap->ninfo, PMIX_INFO);
    memset(ap, 0, sizeof(*ap));
}

pmix_status_t spx_elem_copy_query(void *dst, const void *src)
{
    pmix_query_t *d = dst;
    const pmix_query_t *s = src;

    if (spx_argv_dup(&d->keys, s->keys) ||
        dup_elems((void **)&d->qualifiers, s->qualifiers, s->nqual, PMIX_INFO)) {
        spx_elem_free_query(d);
        return PMIX_ERR_NOMEM;
    }
    d->nqual = d->qualifiers ? s->nqual : 0;
    return PMIX_SUCCESS;
}

void spx_elem_free_query(void *elem)
{
    pmix_query_t *q = elem;

    spx_argv_free(q->keys);
    free_elems(q->qualifiers, q->nqual, PMIX_INFO);
    memset(q, 0, sizeof(*q));
}

pmix_status_t spx_elem_copy_pinfo(void *dst, const void *src)
{
    pmix_proc_info_t *d = dst;
    const pmix_proc_info_t *s = src;

    *d = *s;
    d->hostname = d->executable_name = NULL;
    if (dup_str(&d->hostname, s->hostname) || dup_str(&d->executable_name, s->executable_name)) {
        spx_elem_free_pinfo(d);
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

void spx_elem_free_pinfo(void *elem)
{
    pmix_proc_info_t *pi = elem;

    free(pi->hostname);
    free(pi->executable_name);
    memset(pi, 0, sizeof(*pi));
}

pmix_status_t spx_elem_copy_darray(void *dst, const void *src)
{
    return spx_darray_copy(dst, src);
}

void spx_elem_free_darray(void *elem)
{
    PMIx_Data_array_destruct(elem);
}

pmix_status_t spx_elem_copy_envar(void *dst, const void *src)
{
    pmix_envar_t *d = dst;
    const pmix_envar_t *s = src;

    d->separator = s->separator;
    if (dup_str(&d->envar, s->envar) || dup_str(&d->value, s->value)) {
        spx_elem_free_envar(d);
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

void spx_elem_free_envar(void *elem)
{
    pmix_envar_t *e = elem;

    free(e->envar);
    free(e->value);
    memset(e, 0, sizeof(*e));
}

pmix_status_t spx_elem_copy_coord(void *dst, const void *src)
{
    pmix_coord_t *d = dst;
    const pmix_coord_t *s = src;

    d->view = s->view;
    d->coord = NULL;
    d->dims = 0;
    if (s->coord == NULL || s->dims == 0)
        return PMIX_SUCCESS;
    if (s->dims > SIZE_MAX / sizeof(uint32_t))
        return PMIX_ERR_BAD_PARAM;
    d->coord = malloc(s->dims * sizeof(uint32_t));
    if (d->coord == NULL)
        return PMIX_ERR_NOMEM;
    memcpy(d->coord, s->coord, s->dims * sizeof(uint32_t));
    d->dims = s->dims;
    return PMIX_SUCCESS;
}

void spx_elem_free_coord(void *elem)
{
    pmix_coord_t *c = elem;

    free(c->coord);
    memset(c, 0, sizeof(*c));
}

pmix_status_t spx_elem_copy_regattr(void *dst, const void *src)
{
    pmix_regattr_t *d = dst;
    const pmix_regattr_t *s = src;

    spx_key_load(d->string, s->string);
    d->type = s->type;
    if (dup_str(&d->name, s->name) || spx_argv_dup(&d->description, s->description)) {
        spx_elem_free_regattr(d);
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

void spx_elem_free_regattr(void *elem)
{
    pmix_regattr_t *r = elem;

    free(r->name);
    spx_argv_free(r->description);
    memset(r, 0, sizeof(*r));
}

pmix_status_t spx_elem_copy_geometry(void *dst, const void *src)
{
    pmix_geometry_t *d = dst;
    const pmix_geometry_t *s = src;

    d->fabric = s->fabric;
    if (dup_str(&d->uuid, s->uuid) || dup_str(&d->osname, s->osname) ||
        dup_elems((void **)&d->coordinates, s->coordinates, s->ncoords, PMIX_COORD)) {
        spx_elem_free_geometry(d);
        return PMIX_ERR_NOMEM;
    }
    d->ncoords = d->coordinates ? s->ncoords : 0;
    return PMIX_SUCCESS;
}

void spx_elem_free_geometry(void *elem)
{
    pmix_geometry_t *g = elem;

    free(g->uuid);
    free(g->osname);
    free_elems(g->coordinates, g->ncoords, PMIX_COORD);
    memset(g, 0, sizeof(*g));
}

pmix_status_t spx_elem_copy_devdist(void *dst, const void *src)
{
    pmix_device_distance_t *d = dst;
    const pmix_device_distance_t *s = src;

    *d = *s;
    d->uuid = d->osname = NULL;
    if (dup_str(&d->uuid, s->uuid) || dup_str(&d->osname, s->osname)) {
        spx_elem_free_devdist(d);
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

void spx_elem_free_devdist(void *elem)
{
    pmix_device_distance_t *dd = elem;

    free(dd->uuid);
    free(dd->osname);
    memset(dd, 0, sizeof(*dd));
}

pmix_status_t spx_elem_copy_endpoint(void *dst, const void *src)
{
    pmix_endpoint_t *d = dst;
    const pmix_endpoint_t *s = src;

    if (dup_str(&d->uuid, s->uuid) || dup_str(&d->osname, s->osname) ||
        spx_elem_copy_bo(&d->endpt, &s->endpt)) {
        spx_elem_free_endpoint(d);
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

void spx_elem_free_endpoint(void *elem)
{
    pmix_endpoint_t *e = elem;

    free(e->uuid);
    free(e->osname);
    free(e->endpt.bytes);
    memset(e, 0, sizeof(*e));
}

static bool is_hwloc(const char *source)
{
    return source && strcmp(source, "hwloc") == 0;
}

pmix_status_t spx_elem_copy_cpuset(void *dst, const void *src)
{
    pmix_cpuset_t *d = dst;
    const pmix_cpuset_t *s = src;

    if (dup_str(&d->source, s->source))
        return PMIX_ERR_NOMEM;
    if (s->bitmap && is_hwloc(s->source)) {
        d->bitmap = hwloc_bitmap_dup((hwloc_const_bitmap_t)s->bitmap);
        if (d->bitmap == NULL) {
            spx_elem_free_cpuset(d);
            return PMIX_ERR_NOMEM;
        }
    } else {
        d->bitmap = s->bitmap; /* unknown representation: borrowed */
    }
    return PMIX_SUCCESS;
}

void spx_elem_free_cpuset(void *elem)
{
    pmix_cpuset_t *c = elem;

    if (c->bitmap && is_hwloc(c->source))
        hwloc_bitmap_free((hwloc_bitmap_t)c->bitmap);
    free(c->source);
    memset(c, 0, sizeof(*c));
}

/* The topology object is borrowed: only the source label is ours. */
pmix_status_t spx_elem_copy_topo(void *dst, const void *src)
{
    pmix_topology_t *d = dst;
    const pmix_topology_t *s = src;

    d->topology = s->topology;
    return dup_str(&d->source, s->source);
}

void spx_elem_free_topo(void *elem)
{
    pmix_topology_t *t = elem;

    free(t->source);
    memset(t, 0, sizeof(*t));
}

/* A data buffer is copied as its used bytes with both cursors kept. */
pmix_status_t spx_elem_copy_dbuf(void *dst, const void *src)
{
    pmix_data_buffer_t *d = dst;
    const pmix_data_buffer_t *s = src;
    size_t used = s->bytes_used, pack, unpack;

    memset(d, 0, sizeof(*d));
    if (s->base_ptr == NULL || used == 0)
        return PMIX_SUCCESS;
    pack = s->pack_ptr ? (size_t)(s->pack_ptr - s->base_ptr) : 0;
    unpack = s->unpack_ptr ? (size_t)(s->unpack_ptr - s->base_ptr) : 0;
    d->base_ptr = malloc(used);
    if (d->base_ptr == NULL)
        return PMIX_ERR_NOMEM;
    memcpy(d->base_ptr, s->base_ptr, used);
    d->bytes_allocated = used;
    d->bytes_used = used;
    d->pack_ptr = d->base_ptr + (pack <= used ? pack : used);
    d->unpack_ptr = d->base_ptr + (unpack <= used ? unpack : used);
    return PMIX_SUCCESS;
}

void spx_elem_free_dbuf(void *elem)
{
    pmix_data_buffer_t *b = elem;

    free(b->base_ptr);
    memset(b, 0, sizeof(*b));
}

pmix_status_t spx_elem_copy_pstats(void *dst, const void *src)
{
    pmix_proc_stats_t *d = dst;
    const pmix_proc_stats_t *s = src;

    *d = *s;
    d->node = d->cmd = NULL;
    if (dup_str(&d->node, s->node) || dup_str(&d->cmd, s->cmd)) {
        spx_elem_free_pstats(d);
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

void spx_elem_free_pstats(void *elem)
{
    pmix_proc_stats_t *p = elem;

    free(p->node);
    free(p->cmd);
    memset(p, 0, sizeof(*p));
}

pmix_status_t spx_elem_copy_dkstats(void *dst, const void *src)
{
    pmix_disk_stats_t *d = dst;
    const pmix_disk_stats_t *s = src;

    *d = *s;
    d->disk = NULL;
    return dup_str(&d->disk, s->disk);
}

void spx_elem_free_dkstats(void *elem)
{
    pmix_disk_stats_t *d = elem;

    free(d->disk);
    memset(d, 0, sizeof(*d));
}

pmix_status_t spx_elem_copy_netstats(void *dst, const void *src)
{
    pmix_net_stats_t *d = dst;
    const pmix_net_stats_t *s = src;

    *d = *s;
    d->net_interface = NULL;
    return dup_str(&d->net_interface, s->net_interface);
}

void spx_elem_free_netstats(void *elem)
{
    pmix_net_stats_t *n = elem;

    free(n->net_interface);
    memset(n, 0, sizeof(*n));
}

pmix_status_t spx_elem_copy_ndstats(void *dst, const void *src)
{
    pmix_node_stats_t *d = dst;
    const pmix_node_stats_t *s = src;

    *d = *s;
    d->node = NULL;
    d->diskstats = NULL;
    d->netstats = NULL;
    d->ndiskstats = d->nnetstats = 0;
    if (dup_str(&d->node, s->node))
        goto fail;
    if (dup_elems((void **)&d->diskstats, s->diskstats, s->ndiskstats, PMIX_DISK_STATS))
        goto fail;
    d->ndiskstats = d->diskstats ? s->ndiskstats : 0;
    if (dup_elems((void **)&d->netstats, s->netstats, s->nnetstats, PMIX_NET_STATS))
        goto fail;
    d->nnetstats = d->netstats ? s->nnetstats : 0;
    return PMIX_SUCCESS;
fail:
    spx_elem_free_ndstats(d);
    return PMIX_ERR_NOMEM;
}

void spx_elem_free_ndstats(void *elem)
{
    pmix_node_stats_t *n = elem;

    free(n->node);
    free_elems(n->diskstats, n->ndiskstats, PMIX_DISK_STATS);
    free_elems(n->netstats, n->nnetstats, PMIX_NET_STATS);
    memset(n, 0, sizeof(*n));
}
