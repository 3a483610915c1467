/* elem_cmp.c - ordering of two elements of one composite PMIx type, the
 * engine behind PMIx_Value_compare.
 *
 * Fields are compared in declaration order; the first difference decides.
 * Strings order NULL before any string, then by strcmp; numbers by value.
 * Objects that cannot be ordered meaningfully answer
 * PMIX_VALUE_INCOMPATIBLE_OBJECTS (coords of different views, geometries of
 * different fabrics, ...) or PMIX_VALUE_COMPARISON_NOT_AVAIL (borrowed
 * topologies that are not the same object).
 */
#include <string.h>
#include <hwloc.h>

#include <pmix.h>

#include "types/typedesc.h"
#include "types/types.h"

/* Return from the enclosing function on the first difference. */
#define CMP_STEP(expr)                       \
    do {                                     \
        pmix_value_cmp_t r_ = (expr);        \
        if (r_ != PMIX_EQUAL)                \
            return r_;                       \
    } while (0)
#define CMP_NUM(a, b) CMP_STEP(spx_td_cmp_dbl((double)(a), (double)(b)))
#define CMP_U64(a, b) CMP_STEP(spx_td_cmp_u64((uint64_t)(a), (uint64_t)(b)))

pmix_value_cmp_t spx_td_cmp_str(const char *a, const char *b)
{
    int r;

    if (a == NULL || b == NULL)
        return a == b ? PMIX_EQUAL : (a ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
    r = strcmp(a, b);
    return r == 0 ? PMIX_EQUAL : (r > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
}

static pmix_value_cmp_t cmp_argv(char *const *a, char *const *b)
{
    size_t i;

    if (a == NULL || b == NULL)
        return a == b ? PMIX_EQUAL : (a ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
    for (i = 0; a[i] && b[i]; i++)
        CMP_STEP(spx_td_cmp_str(a[i], b[i]));
    return a[i] ? PMIX_VALUE1_GREATER : (b[i] ? PMIX_VALUE2_GREATER : PMIX_EQUAL);
}

static pmix_value_cmp_t cmp_mem(const void *a, const void *b, size_t n)
{
    int r = n ? memcmp(a, b, n) : 0;

    return r == 0 ? PMIX_EQUAL : (r > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
}

/* Compares two element arrays of one type: length first, then elements. */
static pmix_value_cmp_t cmp_elems(const void *a, size_t na, const void *b, size_t nb,
                                  pmix_data_type_t type)
{
    const pmix_data_array_t da = { .type = type, .size = a ? na : 0, .array = (void *)a };
    const pmix_data_array_t db = { .type = type, .size = b ? nb : 0, .array = (void *)b };

    return spx_elem_cmp_darray(&da, &db);
}

pmix_value_cmp_t spx_elem_cmp_string(const void *a, const void *b)
{
    return spx_td_cmp_str(*(char *const *)a, *(char *const *)b);
}

pmix_value_cmp_t spx_elem_cmp_bo(const void *a, const void *b)
{
    const pmix_byte_object_t *x = a, *y = b;
    size_t nx = x->bytes ? x->size : 0, ny = y->bytes ? y->size : 0;

    CMP_U64(nx, ny);
    return cmp_mem(x->bytes, y->bytes, nx);
}

pmix_value_cmp_t spx_elem_cmp_nspace(const void *a, const void *b)
{
    int r = strncmp(a, b, PMIX_MAX_NSLEN + 1);

    return r == 0 ? PMIX_EQUAL : (r > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
}

pmix_value_cmp_t spx_elem_cmp_proc(const void *a, const void *b)
{
    const pmix_proc_t *x = a, *y = b;

    CMP_STEP(spx_elem_cmp_nspace(x->nspace, y->nspace));
    return spx_td_cmp_u64(x->rank, y->rank);
}

pmix_value_cmp_t spx_elem_cmp_timeval(const void *a, const void *b)
{
    const struct timeval *x = a, *y = b;

    CMP_NUM(x->tv_sec, y->tv_sec);
    CMP_NUM(x->tv_usec, y->tv_usec);
    return PMIX_EQUAL;
}

pmix_value_cmp_t spx_elem_cmp_value(const void *a, const void *b)
{
    return PMIx_Value_compare((pmix_value_t *)a, (pmix_value_t *)b);
}

pmix_value_cmp_t spx_elem_cmp_info(const void *a, const void *b)
{
    const pmix_info_t *x = a, *y = b;
    int r = strncmp(x->key, y->key, PMIX_MAX_KEYLEN + 1);

    if (r != 0)
        return r > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER;
    return spx_elem_cmp_value(&x->value, &y->value);
}

pmix_value_cmp_t spx_elem_cmp_pdata(const void *a, const void *b)
{
    const pmix_pdata_t *x = a, *y = b;
    int r;

    CMP_STEP(spx_elem_cmp_proc(&x->proc, &y->proc));
    r = strncmp(x->key, y->key, PMIX_MAX_KEYLEN + 1);
    if (r != 0)
        return r > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER;
    return spx_elem_cmp_value(&x->value, &y->value);
}

pmix_value_cmp_t spx_elem_cmp_app(const void *a, const void *b)
{
    const pmix_app_t *x = a, *y = b;

    CMP_STEP(spx_td_cmp_str(x->cmd, y->cmd));
    CMP_STEP(cmp_argv(x->argv, y->argv));
    CMP_STEP(cmp_argv(x->env, y->env));
    CMP_STEP(spx_td_cmp_str(x->cwd, y->cwd));
    CMP_NUM(x->maxprocs, y->maxprocs);
    return cmp_elems(x->info, x->ninfo, y->info, y->ninfo, PMIX_INFO);
}

pmix_value_cmp_t spx_elem_cmp_query(const void *a, const void *b)
{
    const pmix_query_t *x = a, *y = b;

    CMP_STEP(cmp_argv(x->keys, y->keys));
    return cmp_elems(x->qualifiers, x->nqual, y->qualifiers, y->nqual, PMIX_INFO);
}

pmix_value_cmp_t spx_elem_cmp_pinfo(const void *a, const void *b)
{
    const pmix_proc_info_t *x = a, *y = b;

    CMP_STEP(spx_elem_cmp_proc(&x->proc, &y->proc));
    CMP_STEP(spx_td_cmp_str(x->hostname, y->hostname));
    CMP_STEP(spx_td_cmp_str(x->executable_name, y->executable_name));
    CMP_NUM(x->pid, y->pid);
    CMP_NUM(x->exit_code, y->exit_code);
    CMP_NUM(x->state, y->state);
    return PMIX_EQUAL;
}

pmix_value_cmp_t spx_elem_cmp_darray(const void *a, const void *b)
{
    const pmix_data_array_t *x = a, *y = b;
    const struct spx_typedesc *td;
    size_t nx, ny, i;

    if (x->type != y->type)
        return PMIX_VALUE_TYPE_DIFFERENT;
    nx = x->array ? x->size : 0;
    ny = y->array ? y->size : 0;
    CMP_U64(nx, ny);
    if (nx == 0)
        return PMIX_EQUAL;
    td = spx_typedesc_get(x->type);
    if (td == NULL || td->size == 0)
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    for (i = 0; i < nx; i++)
        CMP_STEP(spx_td_elem_cmp(td, (const char *)x->array + i * td->size,
                                 (const char *)y->array + i * td->size));
    return PMIX_EQUAL;
}

pmix_value_cmp_t spx_elem_cmp_envar(const void *a, const void *b)
{
    const pmix_envar_t *x = a, *y = b;

    CMP_STEP(spx_td_cmp_str(x->envar, y->envar));
    CMP_STEP(spx_td_cmp_str(x->value, y->value));
    CMP_NUM(x->separator, y->separator);
    return PMIX_EQUAL;
}

pmix_value_cmp_t spx_elem_cmp_coord(const void *a, const void *b)
{
    const pmix_coord_t *x = a, *y = b;
    size_t nx = x->coord ? x->dims : 0, ny = y->coord ? y->dims : 0, i;

    if (x->view != y->view)
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    CMP_U64(nx, ny);
    for (i = 0; i < nx; i++)
        CMP_U64(x->coord[i], y->coord[i]);
    return PMIX_EQUAL;
}

pmix_value_cmp_t spx_elem_cmp_regattr(const void *a, const void *b)
{
    const pmix_regattr_t *x = a, *y = b;
    int r;

    CMP_STEP(spx_td_cmp_str(x->name, y->name));
    r = strncmp(x->string, y->string, PMIX_MAX_KEYLEN + 1);
    if (r != 0)
        return r > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER;
    CMP_U64(x->type, y->type);
    return cmp_argv(x->description, y->description);
}

pmix_value_cmp_t spx_elem_cmp_geometry(const void *a, const void *b)
{
    const pmix_geometry_t *x = a, *y = b;

    if (x->fabric != y->fabric)
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    CMP_STEP(spx_td_cmp_str(x->uuid, y->uuid));
    CMP_STEP(spx_td_cmp_str(x->osname, y->osname));
    return cmp_elems(x->coordinates, x->ncoords, y->coordinates, y->ncoords, PMIX_COORD);
}

pmix_value_cmp_t spx_elem_cmp_devdist(const void *a, const void *b)
{
    const pmix_device_distance_t *x = a, *y = b;

    if (x->type != y->type)
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    CMP_STEP(spx_td_cmp_str(x->uuid, y->uuid));
    CMP_STEP(spx_td_cmp_str(x->osname, y->osname));
    CMP_U64(x->mindist, y->mindist);
    CMP_U64(x->maxdist, y->maxdist);
    return PMIX_EQUAL;
}

pmix_value_cmp_t spx_elem_cmp_endpoint(const void *a, const void *b)
{
    const pmix_endpoint_t *x = a, *y = b;

    CMP_STEP(spx_td_cmp_str(x->uuid, y->uuid));
    CMP_STEP(spx_td_cmp_str(x->osname, y->osname));
    return spx_elem_cmp_bo(&x->endpt, &y->endpt);
}

pmix_value_cmp_t spx_elem_cmp_cpuset(const void *a, const void *b)
{
    const pmix_cpuset_t *x = a, *y = b;

    if (x->source == NULL && y->source == NULL)
        return x->bitmap == y->bitmap ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
    if (spx_td_cmp_str(x->source, y->source) != PMIX_EQUAL)
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    if (x->bitmap == y->bitmap)
        return PMIX_EQUAL;
    if (x->bitmap == NULL || y->bitmap == NULL)
        return x->bitmap ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER;
    if (strcmp(x->source, "hwloc") != 0)
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    switch (hwloc_bitmap_compare((hwloc_const_bitmap_t)x->bitmap,
                                 (hwloc_const_bitmap_t)y->bitmap)) {
    case 0: return PMIX_EQUAL;
    case 1: return PMIX_VALUE1_GREATER;
    default: return PMIX_VALUE2_GREATER;
    }
}

pmix_value_cmp_t spx_elem_cmp_topo(const void *a, const void *b)
{
    const pmix_topology_t *x = a, *y = b;

    if (spx_td_cmp_str(x->source, y->source) != PMIX_EQUAL)
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    /* topologies are borrowed objects: only identity can be decided */
    return x->topology == y->topology ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
}

pmix_value_cmp_t spx_elem_cmp_dbuf(const void *a, const void *b)
{
    const pmix_data_buffer_t *x = a, *y = b;
    size_t nx = x->base_ptr ? x->bytes_used : 0, ny = y->base_ptr ? y->bytes_used : 0;

    CMP_U64(nx, ny);
    return cmp_mem(x->base_ptr, y->base_ptr, nx);
}

pmix_value_cmp_t spx_elem_cmp_pstats(const void *a, const void *b)
{
    const pmix_proc_stats_t *x = a, *y = b;

    CMP_STEP(spx_td_cmp_str(x->node, y->node));
    CMP_STEP(spx_elem_cmp_proc(&x->proc, &y->proc));
    CMP_NUM(x->pid, y->pid);
    CMP_STEP(spx_td_cmp_str(x->cmd, y->cmd));
    CMP_NUM(x->state, y->state);
    CMP_STEP(spx_elem_cmp_timeval(&x->time, &y->time));
    CMP_NUM(x->percent_cpu, y->percent_cpu);
    CMP_NUM(x->priority, y->priority);
    CMP_NUM(x->num_threads, y->num_threads);
    CMP_NUM(x->pss, y->pss);
    CMP_NUM(x->vsize, y->vsize);
    CMP_NUM(x->rss, y->rss);
    CMP_NUM(x->peak_vsize, y->peak_vsize);
    CMP_NUM(x->processor, y->processor);
    return spx_elem_cmp_timeval(&x->sample_time, &y->sample_time);
}

pmix_value_cmp_t spx_elem_cmp_dkstats(const void *a, const void *b)
{
    const pmix_disk_stats_t *x = a, *y = b;

    CMP_STEP(spx_td_cmp_str(x->disk, y->disk));
    CMP_U64(x->num_reads_completed, y->num_reads_completed);
    CMP_U64(x->num_reads_merged, y->num_reads_merged);
    CMP_U64(x->num_sectors_read, y->num_sectors_read);
    CMP_U64(x->milliseconds_reading, y->milliseconds_reading);
    CMP_U64(x->num_writes_completed, y->num_writes_completed);
    CMP_U64(x->num_writes_merged, y->num_writes_merged);
    CMP_U64(x->num_sectors_written, y->num_sectors_written);
    CMP_U64(x->milliseconds_writing, y->milliseconds_writing);
    CMP_U64(x->num_ios_in_progress, y->num_ios_in_progress);
    CMP_U64(x->milliseconds_io, y->milliseconds_io);
    CMP_U64(x->weighted_milliseconds_io, y->weighted_milliseconds_io);
    return PMIX_EQUAL;
}

pmix_value_cmp_t spx_elem_cmp_netstats(const void *a, const void *b)
{
    const pmix_net_stats_t *x = a, *y = b;

    CMP_STEP(spx_td_cmp_str(x->net_interface, y->net_interface));
    CMP_U64(x->num_bytes_recvd, y->num_bytes_recvd);
    CMP_U64(x->num_packets_recvd, y->num_packets_recvd);
    CMP_U64(x->num_recv_errs, y->num_recv_errs);
    CMP_U64(x->num_bytes_sent, y->num_bytes_sent);
    CMP_U64(x->num_packets_sent, y->num_packets_sent);
    CMP_U64(x->num_send_errs, y->num_send_errs);
    return PMIX_EQUAL;
}

pmix_value_cmp_t spx_elem_cmp_ndstats(const void *a, const void *b)
{
    const pmix_node_stats_t *x = a, *y = b;

    CMP_STEP(spx_td_cmp_str(x->node, y->node));
    CMP_NUM(x->la, y->la);
    CMP_NUM(x->la5, y->la5);
    CMP_NUM(x->la15, y->la15);
    CMP_NUM(x->total_mem, y->total_mem);
    CMP_NUM(x->free_mem, y->free_mem);
    CMP_NUM(x->buffers, y->buffers);
    CMP_NUM(x->cached, y->cached);
    CMP_NUM(x->swap_cached, y->swap_cached);
    CMP_NUM(x->swap_total, y->swap_total);
    CMP_NUM(x->swap_free, y->swap_free);
    CMP_NUM(x->mapped, y->mapped);
    CMP_STEP(spx_elem_cmp_timeval(&x->sample_time, &y->sample_time));
    CMP_STEP(cmp_elems(x->diskstats, x->ndiskstats, y->diskstats, y->ndiskstats,
                       PMIX_DISK_STATS));
    return cmp_elems(x->netstats, x->nnetstats, y->netstats, y->nnetstats, PMIX_NET_STATS);
}
