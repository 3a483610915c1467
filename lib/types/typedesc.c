/* typedesc.c - the table of PMIx data types: one row per type with every
 * operation on its elements (see typedesc.h), and the generic element
 * operations built on it.
 *
 * Lookups are by type number into a sparse static table. Rows name the
 * per-struct functions of elem.c (copy, release), elem_cmp.c (compare),
 * print.c (print) and lib/codec/value*.c (pack, unpack); scalars fall back to
 * memcpy and numeric comparison.
 */
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "types/typedesc.h"
#include "types/types.h"

/* A plain number: memcpy copy, numeric compare, fixed-width encoding whose
 * width is the native size (wire_min = size). */
#define TD_NUM(t, ty, k, pr, w)                                                          \
    [t] = { .type = (t), .name = #t, .size = sizeof(ty), .store = SPX_TD_INLINE, .num = (k), \
            .print = spx_td_print_##pr, .pack = spx_codec_pack_##w,                         \
            .unpack = spx_codec_unpack_##w, .wire_min = sizeof(ty) }
/* Any other type: every operation named. cp/fr/cm may be NULL (see the struct);
 * OPS(x) names the copy, release and compare of elem.c / elem_cmp.c. */
#define TD_ROW(t, ...) TD_ROW_(t, #t, __VA_ARGS__) /* name before t expands */
#define TD_ROW_(t, nm, ty, st, cp, fr, cm, pr, w, wmin)                                    \
    [t] = { .type = (t), .name = nm, .size = sizeof(ty), .store = SPX_TD_##st, .copy = (cp), \
            .release = (fr), .cmp = (cm), .print = spx_td_print_##pr,                       \
            .pack = spx_codec_pack_##w, .unpack = spx_codec_unpack_##w, .wire_min = (wmin) }
#define OPS(n) spx_elem_copy_##n, spx_elem_free_##n, spx_elem_cmp_##n

static const struct spx_typedesc table[] = {
    [PMIX_UNDEF] = { .type = PMIX_UNDEF, .name = "PMIX_UNDEF", .size = 0, .store = SPX_TD_INLINE,
                     .print = spx_td_print_undef, .wire_min = 1 },
    TD_ROW(PMIX_BOOL, bool, INLINE, NULL, NULL, NULL, flag, flag, 1),
    TD_NUM(PMIX_BYTE, uint8_t, SPX_NUM_UNSIGNED, num, u8),
    TD_ROW(PMIX_STRING, char *, INLINE, OPS(string), string, string, 4),
    TD_NUM(PMIX_SIZE, size_t, SPX_NUM_UNSIGNED, num, u64),
    TD_NUM(PMIX_PID, pid_t, SPX_NUM_SIGNED, num, u32),
    TD_NUM(PMIX_INT, int, SPX_NUM_SIGNED, num, u32),
    TD_NUM(PMIX_INT8, int8_t, SPX_NUM_SIGNED, num, u8),
    TD_NUM(PMIX_INT16, int16_t, SPX_NUM_SIGNED, num, u16),
    TD_NUM(PMIX_INT32, int32_t, SPX_NUM_SIGNED, num, u32),
    TD_NUM(PMIX_INT64, int64_t, SPX_NUM_SIGNED, num, u64),
    TD_NUM(PMIX_UINT, unsigned int, SPX_NUM_UNSIGNED, num, u32),
    TD_NUM(PMIX_UINT8, uint8_t, SPX_NUM_UNSIGNED, num, u8),
    TD_NUM(PMIX_UINT16, uint16_t, SPX_NUM_UNSIGNED, num, u16),
    TD_NUM(PMIX_UINT32, uint32_t, SPX_NUM_UNSIGNED, num, u32),
    TD_NUM(PMIX_UINT64, uint64_t, SPX_NUM_UNSIGNED, num, u64),
    TD_NUM(PMIX_FLOAT, float, SPX_NUM_FLOAT, num, u32),
    TD_NUM(PMIX_DOUBLE, double, SPX_NUM_FLOAT, num, u64),
    TD_ROW(PMIX_TIMEVAL, struct timeval, INLINE, NULL, NULL, spx_elem_cmp_timeval, timeval,
           timeval, 16),
    TD_NUM(PMIX_TIME, time_t, SPX_NUM_SIGNED, num, u64),
    TD_NUM(PMIX_STATUS, pmix_status_t, SPX_NUM_SIGNED, status, u32),
    TD_ROW(PMIX_VALUE, pmix_value_t, ARRAY_ONLY, OPS(value), value, value, 2),
    TD_ROW(PMIX_PROC, pmix_proc_t, BOXED, NULL, NULL, spx_elem_cmp_proc, proc, proc, 8),
    TD_ROW(PMIX_APP, pmix_app_t, ARRAY_ONLY, OPS(app), app, app, 24),
    TD_ROW(PMIX_INFO, pmix_info_t, ARRAY_ONLY, OPS(info), info, info, 10),
    TD_ROW(PMIX_PDATA, pmix_pdata_t, ARRAY_ONLY, OPS(pdata), pdata, pdata, 14),
    TD_ROW(PMIX_BYTE_OBJECT, pmix_byte_object_t, INLINE, OPS(bo), bo, bo, 4),
    TD_NUM(PMIX_PERSIST, pmix_persistence_t, SPX_NUM_UNSIGNED, persist, u8),
    /* pointer targets are borrowed: the pointer itself is the element */
    TD_ROW(PMIX_POINTER, void *, INLINE, NULL, NULL, NULL, pointer, pointer, 8),
    TD_NUM(PMIX_SCOPE, pmix_scope_t, SPX_NUM_UNSIGNED, scope, u8),
    TD_NUM(PMIX_DATA_RANGE, pmix_data_range_t, SPX_NUM_UNSIGNED, range, u8),
    TD_NUM(PMIX_COMMAND, uint8_t, SPX_NUM_UNSIGNED, num, u8),
    TD_NUM(PMIX_INFO_DIRECTIVES, pmix_info_directives_t, SPX_NUM_UNSIGNED, num, u32),
    TD_NUM(PMIX_DATA_TYPE, pmix_data_type_t, SPX_NUM_UNSIGNED, dtype, u16),
    TD_NUM(PMIX_PROC_STATE, pmix_proc_state_t, SPX_NUM_UNSIGNED, pstate, u8),
    TD_ROW(PMIX_PROC_INFO, pmix_proc_info_t, BOXED, OPS(pinfo), pinfo, pinfo, 25),
    TD_ROW(PMIX_DATA_ARRAY, pmix_data_array_t, BOXED, OPS(darray), darray, darray, 6),
    TD_NUM(PMIX_PROC_RANK, pmix_rank_t, SPX_NUM_UNSIGNED, rank, u32),
    TD_ROW(PMIX_QUERY, pmix_query_t, ARRAY_ONLY, OPS(query), query, query, 8),
    TD_ROW(PMIX_COMPRESSED_STRING, pmix_byte_object_t, INLINE, OPS(bo), bo, bo, 4),
    TD_NUM(PMIX_ALLOC_DIRECTIVE, pmix_alloc_directive_t, SPX_NUM_UNSIGNED, adir, u8),
    TD_NUM(PMIX_IOF_CHANNEL, pmix_iof_channel_t, SPX_NUM_UNSIGNED, iof, u16),
    TD_ROW(PMIX_ENVAR, pmix_envar_t, INLINE, OPS(envar), envar, envar, 9),
    TD_ROW(PMIX_COORD, pmix_coord_t, BOXED, OPS(coord), coord, coord, 5),
    TD_ROW(PMIX_REGATTR, pmix_regattr_t, BOXED, OPS(regattr), regattr, regattr, 14),
    /* a regex is kept as a byte object holding the NUL-terminated string */
    TD_ROW(PMIX_REGEX, pmix_byte_object_t, INLINE, OPS(bo), regex, bo, 4),
    TD_NUM(PMIX_JOB_STATE, pmix_job_state_t, SPX_NUM_UNSIGNED, jstate, u8),
    TD_NUM(PMIX_LINK_STATE, pmix_link_state_t, SPX_NUM_UNSIGNED, linkstate, u8),
    TD_ROW(PMIX_PROC_CPUSET, pmix_cpuset_t, BOXED, OPS(cpuset), cpuset, cpuset, 5),
    TD_ROW(PMIX_GEOMETRY, pmix_geometry_t, BOXED, OPS(geometry), geometry, geometry, 20),
    TD_ROW(PMIX_DEVICE_DIST, pmix_device_distance_t, BOXED, OPS(devdist), devdist, devdist, 20),
    TD_ROW(PMIX_ENDPOINT, pmix_endpoint_t, BOXED, OPS(endpoint), endpoint, endpoint, 12),
    TD_ROW(PMIX_TOPO, pmix_topology_t, BOXED, OPS(topo), topo, topo, 5),
    TD_NUM(PMIX_DEVTYPE, pmix_device_type_t, SPX_NUM_UNSIGNED, devtype, u64),
    TD_NUM(PMIX_LOCTYPE, pmix_locality_t, SPX_NUM_UNSIGNED, num, u16),
    TD_ROW(PMIX_COMPRESSED_BYTE_OBJECT, pmix_byte_object_t, INLINE, OPS(bo), bo, bo, 4),
    TD_ROW(PMIX_PROC_NSPACE, pmix_nspace_t, BOXED, spx_elem_copy_nspace, NULL,
           spx_elem_cmp_nspace, nspace, nspace, 4),
    TD_ROW(PMIX_PROC_STATS, pmix_proc_stats_t, BOXED, OPS(pstats), pstats, pstats, 4),
    TD_ROW(PMIX_DISK_STATS, pmix_disk_stats_t, BOXED, OPS(dkstats), dkstats, dkstats, 92),
    TD_ROW(PMIX_NET_STATS, pmix_net_stats_t, BOXED, OPS(netstats), netstats, netstats, 52),
    TD_ROW(PMIX_NODE_STATS, pmix_node_stats_t, BOXED, OPS(ndstats), ndstats, ndstats, 4),
    TD_ROW(PMIX_DATA_BUFFER, pmix_data_buffer_t, BOXED, OPS(dbuf), dbuf, dbuf, 4),
    TD_NUM(PMIX_STOR_MEDIUM, pmix_storage_medium_t, SPX_NUM_UNSIGNED, num, u64),
    TD_NUM(PMIX_STOR_ACCESS, pmix_storage_accessibility_t, SPX_NUM_UNSIGNED, num, u64),
    TD_NUM(PMIX_STOR_PERSIST, pmix_storage_persistence_t, SPX_NUM_UNSIGNED, num, u64),
    TD_NUM(PMIX_STOR_ACCESS_TYPE, pmix_storage_access_type_t, SPX_NUM_UNSIGNED, num, u16),
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
