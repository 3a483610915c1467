/* typedesc.c - the table of PMIx data types and the generic element
 * operations built on it (see typedesc.h).
 *
 * Lookups are by type number into a sparse static table; the generic
 * copy/free/cmp dispatch to the per-struct functions in elem.c and
 * elem_cmp.c, or fall back to memcpy and numeric comparison for scalars.
 */
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "types/typedesc.h"
#include "types/types.h"

#define TD_SCALAR(t, ty, k) \
    [t] = { .type = (t), .name = #t, .size = sizeof(ty), .store = SPX_TD_INLINE, .num = (k) }
#define TD_FULL(t, ty, st, cp, fr, cm) \
    [t] = { .type = (t), .name = #t, .size = sizeof(ty), .store = (st), .copy = (cp), \
            .release = (fr), .cmp = (cm) }

static const struct spx_typedesc table[] = {
    [PMIX_UNDEF] = { .type = PMIX_UNDEF, .name = "PMIX_UNDEF", .size = 0, .store = SPX_TD_INLINE },
    TD_SCALAR(PMIX_BOOL, bool, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_BYTE, uint8_t, SPX_NUM_UNSIGNED),
    TD_FULL(PMIX_STRING, char *, SPX_TD_INLINE, spx_elem_copy_string, spx_elem_free_string,
            spx_elem_cmp_string),
    TD_SCALAR(PMIX_SIZE, size_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_PID, pid_t, SPX_NUM_SIGNED),
    TD_SCALAR(PMIX_INT, int, SPX_NUM_SIGNED),
    TD_SCALAR(PMIX_INT8, int8_t, SPX_NUM_SIGNED),
    TD_SCALAR(PMIX_INT16, int16_t, SPX_NUM_SIGNED),
    TD_SCALAR(PMIX_INT32, int32_t, SPX_NUM_SIGNED),
    TD_SCALAR(PMIX_INT64, int64_t, SPX_NUM_SIGNED),
    TD_SCALAR(PMIX_UINT, unsigned int, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_UINT8, uint8_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_UINT16, uint16_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_UINT32, uint32_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_UINT64, uint64_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_FLOAT, float, SPX_NUM_FLOAT),
    TD_SCALAR(PMIX_DOUBLE, double, SPX_NUM_FLOAT),
    TD_FULL(PMIX_TIMEVAL, struct timeval, SPX_TD_INLINE, NULL, NULL, spx_elem_cmp_timeval),
    TD_SCALAR(PMIX_TIME, time_t, SPX_NUM_SIGNED),
    TD_SCALAR(PMIX_STATUS, pmix_status_t, SPX_NUM_SIGNED),
    TD_FULL(PMIX_VALUE, pmix_value_t, SPX_TD_ARRAY_ONLY, spx_elem_copy_value, spx_elem_free_value,
            spx_elem_cmp_value),
    TD_FULL(PMIX_PROC, pmix_proc_t, SPX_TD_BOXED, NULL, NULL, spx_elem_cmp_proc),
    TD_FULL(PMIX_APP, pmix_app_t, SPX_TD_ARRAY_ONLY, spx_elem_copy_app, spx_elem_free_app,
            spx_elem_cmp_app),
    TD_FULL(PMIX_INFO, pmix_info_t, SPX_TD_ARRAY_ONLY, spx_elem_copy_info, spx_elem_free_info,
            spx_elem_cmp_info),
    TD_FULL(PMIX_PDATA, pmix_pdata_t, SPX_TD_ARRAY_ONLY, spx_elem_copy_pdata, spx_elem_free_pdata,
            spx_elem_cmp_pdata),
    TD_FULL(PMIX_BYTE_OBJECT, pmix_byte_object_t, SPX_TD_INLINE, spx_elem_copy_bo, spx_elem_free_bo,
            spx_elem_cmp_bo),
    TD_SCALAR(PMIX_PERSIST, pmix_persistence_t, SPX_NUM_UNSIGNED),
    /* pointer targets are borrowed: the pointer itself is the element */
    TD_FULL(PMIX_POINTER, void *, SPX_TD_INLINE, NULL, NULL, NULL),
    TD_SCALAR(PMIX_SCOPE, pmix_scope_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_DATA_RANGE, pmix_data_range_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_COMMAND, uint8_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_INFO_DIRECTIVES, pmix_info_directives_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_DATA_TYPE, pmix_data_type_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_PROC_STATE, pmix_proc_state_t, SPX_NUM_UNSIGNED),
    TD_FULL(PMIX_PROC_INFO, pmix_proc_info_t, SPX_TD_BOXED, spx_elem_copy_pinfo, spx_elem_free_pinfo,
            spx_elem_cmp_pinfo),
    TD_FULL(PMIX_DATA_ARRAY, pmix_data_array_t, SPX_TD_BOXED, spx_elem_copy_darray,
            spx_elem_free_darray, spx_elem_cmp_darray),
    TD_SCALAR(PMIX_PROC_RANK, pmix_rank_t, SPX_NUM_UNSIGNED),
    TD_FULL(PMIX_QUERY, pmix_query_t, SPX_TD_ARRAY_ONLY, spx_elem_copy_query, spx_elem_free_query,
            spx_elem_cmp_query),
    TD_FULL(PMIX_COMPRESSED_STRING, pmix_byte_object_t, SPX_TD_INLINE, spx_elem_copy_bo,
            spx_elem_free_bo, spx_elem_cmp_bo),
    TD_SCALAR(PMIX_ALLOC_DIRECTIVE, pmix_alloc_directive_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_IOF_CHANNEL, pmix_iof_channel_t, SPX_NUM_UNSIGNED),
    TD_FULL(PMIX_ENVAR, pmix_envar_t, SPX_TD_INLINE, spx_elem_copy_envar, spx_elem_free_envar,
            spx_elem_cmp_envar),
    TD_FULL(PMIX_COORD, pmix_coord_t, SPX_TD_BOXED, spx_elem_copy_coord, spx_elem_free_coord,
            spx_elem_cmp_coord),
    TD_FULL(PMIX_REGATTR, pmix_regattr_t, SPX_TD_BOXED, spx_elem_copy_regattr,
            spx_elem_free_regattr, spx_elem_cmp_regattr),
    /* a regex is kept as a byte object holding the NUL-terminated string */
    TD_FULL(PMIX_REGEX, pmix_byte_object_t, SPX_TD_INLINE, spx_elem_copy_bo, spx_elem_free_bo,
            spx_elem_cmp_bo),
    TD_SCALAR(PMIX_JOB_STATE, pmix_job_state_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_LINK_STATE, pmix_link_state_t, SPX_NUM_UNSIGNED),
    TD_FULL(PMIX_PROC_CPUSET, pmix_cpuset_t, SPX_TD_BOXED, spx_elem_copy_cpuset,
            spx_elem_free_cpuset, spx_elem_cmp_cpuset),
    TD_FULL(PMIX_GEOMETRY, pmix_geometry_t, SPX_TD_BOXED, spx_elem_copy_geometry,
            spx_elem_free_geometry, spx_elem_cmp_geometry),
    TD_FULL(PMIX_DEVICE_DIST, pmix_device_distance_t, SPX_TD_BOXED, spx_elem_copy_devdist,
            spx_elem_free_devdist, spx_elem_cmp_devdist),
    TD_FULL(PMIX_ENDPOINT, pmix_endpoint_t, SPX_TD_BOXED, spx_elem_copy_endpoint,
            spx_elem_free_endpoint, spx_elem_cmp_endpoint),
    TD_FULL(PMIX_TOPO, pmix_topology_t, SPX_TD_BOXED, spx_elem_copy_topo, spx_elem_free_topo,
            spx_elem_cmp_topo),
    TD_SCALAR(PMIX_DEVTYPE, pmix_device_type_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_LOCTYPE, pmix_locality_t, SPX_NUM_UNSIGNED),
    TD_FULL(PMIX_COMPRESSED_BYTE_OBJECT, pmix_byte_object_t, SPX_TD_INLINE, spx_elem_copy_bo,
            spx_elem_free_bo, spx_elem_cmp_bo),
    TD_FULL(PMIX_PROC_NSPACE, pmix_nspace_t, SPX_TD_BOXED, spx_elem_copy_nspace, NULL,
            spx_elem_cmp_nspace),
    TD_FULL(PMIX_PROC_STATS, pmix_proc_stats_t, SPX_TD_BOXED, spx_elem_copy_pstats,
            spx_elem_free_pstats, spx_elem_cmp_pstats),
    TD_FULL(PMIX_DISK_STATS, pmix_disk_stats_t, SPX_TD_BOXED, spx_elem_copy_dkstats,
            spx_elem_free_dkstats, spx_elem_cmp_dkstats),
    TD_FULL(PMIX_NET_STATS, pmix_net_stats_t, SPX_TD_BOXED, spx_elem_copy_netstats,
            spx_elem_free_netstats, spx_elem_cmp_netstats),
    TD_FULL(PMIX_NODE_STATS, pmix_node_stats_t, SPX_TD_BOXED, spx_elem_copy_ndstats,
            spx_elem_free_ndstats, spx_elem_cmp_ndstats),
    TD_FULL(PMIX_DATA_BUFFER, pmix_data_buffer_t, SPX_TD_BOXED, spx_elem_copy_dbuf,
            spx_elem_free_dbuf, spx_elem_cmp_dbuf),
    TD_SCALAR(PMIX_STOR_MEDIUM, pmix_storage_medium_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_STOR_ACCESS, pmix_storage_accessibility_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_STOR_PERSIST, pmix_storage_persistence_t, SPX_NUM_UNSIGNED),
    TD_SCALAR(PMIX_STOR_ACCESS_TYPE, pmix_storage_access_type_t, SPX_NUM_UNSIGNED),
};

const struct spx_typedesc *spx_typedesc_get(pmix_data_type_t type)
{
    if (type >= sizeof(table) / sizeof(table[0]))
        return NULL;
    if (table[type].name == NULL)
        return NULL; /* a hole in the numbering (29, 44, ...) */
    return &table[type];
}

size_t spx_type_size(pmix_data_type_t type)
{
    const struct spx_typedesc *td = spx_typedesc_get(type);

    return td ? td->size : 0;
}

pmix_status_t spx_td_elem_copy(const struct spx_typedesc *td, void *dst, const void *src)
{
    if (td->copy)
        return td->copy(dst, src);
    if (td->size)
        memcpy(dst, src, td->size);
    return PMIX_SUCCESS;
}

void spx_td_elem_free(const struct spx_typedesc *td, void *elem)
{
    if (td->release)
        td->release(elem);
}

static pmix_value_cmp_t cmp_signed(const void *a, const void *b, size_t size)
{
    int64_t x, y;

    switch (size) {
    case 1: x = *(const int8_t *)a; y = *(const int8_t *)b; break;
    case 2: { int16_t p, q; memcpy(&p, a, 2); memcpy(&q, b, 2); x = p; y = q; break; }
    case 4: { int32_t p, q; memcpy(&p, a, 4); memcpy(&q, b, 4); x = p; y = q; break; }
    default: memcpy(&x, a, 8); memcpy(&y, b, 8); break;
    }
    return x == y ? PMIX_EQUAL : (x > y ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
}

static pmix_value_cmp_t cmp_unsigned(const void *a, const void *b, size_t size)
{
    uint64_t x = 0, y = 0;

    switch (size) {
    case 1: x = *(const uint8_t *)a; y = *(const uint8_t *)b; break;
    case 2: { uint16_t p, q; memcpy(&p, a, 2); memcpy(&q, b, 2); x = p; y = q; break; }
    case 4: { uint32_t p, q; memcpy(&p, a, 4); memcpy(&q, b, 4); x = p; y = q; break; }
    default: memcpy(&x, a, 8); memcpy(&y, b, 8); break;
    }
    return spx_td_cmp_u64(x, y);
}

pmix_value_cmp_t spx_td_elem_cmp(const struct spx_typedesc *td, const void *a, const void *b)
{
    int r;

    if (td->cmp)
        return td->cmp(a, b);
    switch (td->num) {
    case SPX_NUM_SIGNED:
        return cmp_signed(a, b, td->size);
    case SPX_NUM_UNSIGNED:
        if (td->type == PMIX_BOOL)
            return cmp_unsigned(&(uint8_t){ *(const bool *)a }, &(uint8_t){ *(const bool *)b }, 1);
        return cmp_unsigned(a, b, td->size);
    case SPX_NUM_FLOAT:
        if (td->size == sizeof(float)) {
            float x, y;
            memcpy(&x, a, sizeof(x));
            memcpy(&y, b, sizeof(y));
            return spx_td_cmp_dbl(x, y);
        } else {
            double x, y;
            memcpy(&x, a, sizeof(x));
            memcpy(&y, b, sizeof(y));
            return spx_td_cmp_dbl(x, y);
        }
    case SPX_NUM_NONE:
        break;
    }
    if (td->size == 0)
        return PMIX_EQUAL;
    r = memcmp(a, b, td->size);
    return r == 0 ? PMIX_EQUAL : (r > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
}

pmix_value_cmp_t spx_td_cmp_u64(uint64_t a, uint64_t b)
{
    return a == b ? PMIX_EQUAL : (a > b ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
}

pmix_value_cmp_t spx_td_cmp_dbl(double a, double b)
{
    if (a > b)
        return PMIX_VALUE1_GREATER;
    if (a < b)
        return PMIX_VALUE2_GREATER;
    if (a == b)
        return PMIX_EQUAL;
    return PMIX_VALUE_COMPARISON_NOT_AVAIL; /* NaN */
}
