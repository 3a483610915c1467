/* v5_objects.c - the PMIx v5 object functions: PMIx_<Type>_create / _free /
 * _construct / _destruct (and _load, _xfer, _release where PMIx v5 has them)
 * for every PMIx struct type.
 *
 * OpenPMIx 5 made the object macros of pmix_common.h call these, so programs
 * built against its headers (Open MPI 5, python3-pmix) need them in the
 * library.  Each element is constructed and destructed the way our header
 * macros (PMIX_<TYPE>_CONSTRUCT / _DESTRUCT) do it, so an object built by a
 * macro can be released by a function and the other way round.  The array
 * forms follow PMIx v5: _create(n) returns n constructed elements (NULL for
 * n == 0 or no memory; the caller frees with _free), _free(a, n) destructs n
 * elements and frees the array (a NULL array is a no-op).  Nothing here
 * touches library state: every function is safe from any thread.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/types.h"
#include "util/compiler.h"

/* The four array/element functions of one type, from its construct and
 * destruct (macros or functions taking a T *). */
#define SPX_V5_OBJECT(Name, T, CONSTRUCT, DESTRUCT)                      \
    SPX_EXPORT void PMIx_##Name##_construct(T *p)                       \
    {                                                                   \
        if (p)                                                          \
            CONSTRUCT(p);                                               \
    }                                                                   \
    SPX_EXPORT void PMIx_##Name##_destruct(T *p)                        \
    {                                                                   \
        if (p)                                                          \
            DESTRUCT(p);                                                \
    }                                                                   \
    SPX_V5_ARRAY(Name, T, CONSTRUCT, DESTRUCT)

/* Only _create and _free (the type's destruct exists elsewhere). */
#define SPX_V5_ARRAY(Name, T, CONSTRUCT, DESTRUCT)                       \
    SPX_EXPORT T *PMIx_##Name##_create(size_t n)                        \
    {                                                                   \
        T *a;                                                           \
        if (n == 0 || n > SIZE_MAX / sizeof(T) || !(a = malloc(n * sizeof(T)))) \
            return NULL;                                                \
        for (size_t i = 0; i < n; i++)                                  \
            CONSTRUCT(&a[i]);                                           \
        return a;                                                       \
    }                                                                   \
    SPX_EXPORT void PMIx_##Name##_free(T *a, size_t n)                  \
    {                                                                   \
        if (a == NULL)                                                  \
            return;                                                     \
        for (size_t i = 0; i < n; i++)                                  \
            DESTRUCT(&a[i]);                                            \
        free(a);                                                        \
    }

/* Constructs that the header macros do not spell the v5 way. */
static void proc_construct(pmix_proc_t *p)
{
    memset(p, 0, sizeof(*p));
    p->rank = PMIX_RANK_UNDEF;
}

static void proc_destruct(pmix_proc_t *p)
{
    (void)p; /* a proc owns nothing */
}

static void info_construct(pmix_info_t *p)
{
    PMIX_INFO_CONSTRUCT(p);
}

static void info_destruct(pmix_info_t *p)
{
    PMIX_INFO_DESTRUCT(p);
}

static void value_construct(pmix_value_t *p)
{
    PMIX_VALUE_CONSTRUCT(p);
}

static void regattr_construct(pmix_regattr_t *p)
{
    PMIX_REGATTR_CONSTRUCT(p);
}

static void regattr_destruct(pmix_regattr_t *p)
{
    PMIX_REGATTR_DESTRUCT(p);
    p->type = PMIX_UNDEF;
    memset(p->string, 0, sizeof(p->string));
}

static void proc_info_destruct(pmix_proc_info_t *p)
{
    PMIX_PROC_INFO_DESTRUCT(p);
    PMIX_PROC_INFO_CONSTRUCT(p);
}

static void device_distance_construct(pmix_device_distance_t *p)
{
    PMIX_DEVICE_DIST_CONSTRUCT(p);
    p->type = PMIX_DEVTYPE_UNKNOWN;
}

static void coord_construct(pmix_coord_t *p)
{
    PMIX_COORD_CONSTRUCT(p);
}

static void coord_destruct(pmix_coord_t *p)
{
    PMIX_COORD_DESTRUCT(p);
}

static void buffer_construct(pmix_data_buffer_t *p)
{
    PMIX_DATA_BUFFER_CONSTRUCT(p);
}

static void buffer_destruct(pmix_data_buffer_t *p)
{
    PMIX_DATA_BUFFER_DESTRUCT(p);
}

SPX_V5_OBJECT(Info, pmix_info_t, info_construct, info_destruct)
SPX_V5_OBJECT(Proc, pmix_proc_t, proc_construct, proc_destruct)
SPX_V5_OBJECT(Pdata, pmix_pdata_t, PMIX_PDATA_CONSTRUCT, PMIX_PDATA_DESTRUCT)
SPX_V5_OBJECT(App, pmix_app_t, PMIX_APP_CONSTRUCT, PMIX_APP_DESTRUCT)
SPX_V5_OBJECT(Query, pmix_query_t, PMIX_QUERY_CONSTRUCT, PMIX_QUERY_DESTRUCT)
SPX_V5_OBJECT(Regattr, pmix_regattr_t, regattr_construct, regattr_destruct)
SPX_V5_OBJECT(Envar, pmix_envar_t, PMIX_ENVAR_CONSTRUCT, PMIX_ENVAR_DESTRUCT)
SPX_V5_OBJECT(Byte_object, pmix_byte_object_t, PMIX_BYTE_OBJECT_CONSTRUCT,
              PMIX_BYTE_OBJECT_DESTRUCT)
SPX_V5_OBJECT(Geometry, pmix_geometry_t, PMIX_GEOMETRY_CONSTRUCT, PMIX_GEOMETRY_DESTRUCT)
SPX_V5_OBJECT(Device_distance, pmix_device_distance_t, device_distance_construct,
              PMIX_DEVICE_DIST_DESTRUCT)
SPX_V5_OBJECT(Endpoint, pmix_endpoint_t, PMIX_ENDPOINT_CONSTRUCT, PMIX_ENDPOINT_DESTRUCT)
SPX_V5_OBJECT(Proc_info, pmix_proc_info_t, PMIX_PROC_INFO_CONSTRUCT, proc_info_destruct)
SPX_V5_OBJECT(Proc_stats, pmix_proc_stats_t, PMIX_PROC_STATS_CONSTRUCT,
              PMIX_PROC_STATS_DESTRUCT)
SPX_V5_OBJECT(Disk_stats, pmix_disk_stats_t, PMIX_DISK_STATS_CONSTRUCT,
              PMIX_DISK_STATS_DESTRUCT)
SPX_V5_OBJECT(Net_stats, pmix_net_stats_t, PMIX_NET_STATS_CONSTRUCT, PMIX_NET_STATS_DESTRUCT)
SPX_V5_OBJECT(Node_stats, pmix_node_stats_t, PMIX_NODE_STATS_CONSTRUCT,
              PMIX_NODE_STATS_DESTRUCT)
/* PMIx_Value_destruct, PMIx_Cpuset_destruct and PMIx_Topology_destruct are
 * PMIx v4 functions (lib/types/value.c, lib/api/cpuset.c, topology.c). */
SPX_V5_ARRAY(Value, pmix_value_t, value_construct, PMIx_Value_destruct)
SPX_V5_ARRAY(Cpuset, pmix_cpuset_t, PMIX_CPUSET_CONSTRUCT, PMIx_Cpuset_destruct)
SPX_V5_ARRAY(Topology, pmix_topology_t, PMIX_TOPOLOGY_CONSTRUCT, PMIx_Topology_destruct)

SPX_EXPORT void PMIx_Value_construct(pmix_value_t *val)
{
    if (val)
        value_construct(val);
}

SPX_EXPORT void PMIx_Cpuset_construct(pmix_cpuset_t *cpuset)
{
    if (cpuset)
        PMIX_CPUSET_CONSTRUCT(cpuset);
}

SPX_EXPORT void PMIx_Topology_construct(pmix_topology_t *t)
{
    if (t)
        PMIX_TOPOLOGY_CONSTRUCT(t);
}

/* ---- coordinates: number elements of dims zeroed values each */

SPX_EXPORT void PMIx_Coord_construct(pmix_coord_t *m)
{
    if (m)
        coord_construct(m);
}

SPX_EXPORT void PMIx_Coord_destruct(pmix_coord_t *m)
{
    if (m)
        coord_destruct(m);
}

SPX_EXPORT pmix_coord_t *PMIx_Coord_create(size_t dims, size_t number)
{
    pmix_coord_t *m;

    if (number == 0 || number > SIZE_MAX / sizeof(*m) || !(m = malloc(number * sizeof(*m))))
        return NULL;
    for (size_t i = 0; i < number; i++) {
        coord_construct(&m[i]);
        if (dims == 0)
            continue;
        if (!(m[i].coord = calloc(dims, sizeof(uint32_t)))) {
            PMIx_Coord_free(m, i);
            return NULL;
        }
        m[i].dims = dims;
    }
    return m;
}

SPX_EXPORT void PMIx_Coord_free(pmix_coord_t *m, size_t number)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < number; i++)
        coord_destruct(&m[i]);
    free(m);
}

/* ---- data buffers */

SPX_EXPORT void PMIx_Data_buffer_construct(pmix_data_buffer_t *b)
{
    if (b)
        buffer_construct(b);
}

SPX_EXPORT void PMIx_Data_buffer_destruct(pmix_data_buffer_t *b)
{
    if (b)
        buffer_destruct(b);
}

SPX_EXPORT pmix_data_buffer_t *PMIx_Data_buffer_create(void)
{
    return calloc(1, sizeof(pmix_data_buffer_t));
}

SPX_EXPORT void PMIx_Data_buffer_release(pmix_data_buffer_t *b)
{
    if (b == NULL)
        return;
    buffer_destruct(b);
    free(b);
}

/* The buffer takes ownership of bytes[0..sz) (malloc'd by the caller). */
SPX_EXPORT void PMIx_Data_buffer_load(pmix_data_buffer_t *b, char *bytes, size_t sz)
{
    pmix_byte_object_t bo = { .bytes = bytes, .size = sz };

    if (b)
        (void)PMIx_Data_load(b, &bo);
}

/* *bytes: the unread bytes, caller frees; NULL and 0 when there are none. */
SPX_EXPORT void PMIx_Data_buffer_unload(pmix_data_buffer_t *b, char **bytes, size_t *sz)
{
    pmix_byte_object_t bo = { .bytes = NULL, .size = 0 };

    if (bytes == NULL || sz == NULL)
        return;
    if (b == NULL || PMIx_Data_unload(b, &bo) != PMIX_SUCCESS) {
        bo.bytes = NULL;
        bo.size = 0;
    }
    *bytes = bo.bytes;
    *sz = bo.size;
}

/* ---- data arrays */

SPX_EXPORT void PMIx_Data_array_init(pmix_data_array_t *p, pmix_data_type_t type)
{
    if (p)
        PMIX_DATA_ARRAY_INIT(p, type);
}

SPX_EXPORT void PMIx_Data_array_construct(pmix_data_array_t *p, size_t num,
                                          pmix_data_type_t type)
{
    if (p)
        spx_hdr_darray_construct(p, num, type);
}

SPX_EXPORT pmix_data_array_t *PMIx_Data_array_create(size_t n, pmix_data_type_t type)
{
    pmix_data_array_t *p;

    if (n == 0 || !(p = malloc(sizeof(*p))))
        return NULL;
    spx_hdr_darray_construct(p, n, type);
    return p;
}

SPX_EXPORT void PMIx_Data_array_free(pmix_data_array_t *p)
{
    if (p == NULL)
        return;
    PMIx_Data_array_destruct(p);
    free(p);
}

/* ---- loads, transfers and single-element releases */

/* b takes ownership of d (malloc'd, sz bytes). */
SPX_EXPORT void PMIx_Byte_object_load(pmix_byte_object_t *b, char *d, size_t sz)
{
    if (b == NULL)
        return;
    b->bytes = d;
    b->size = sz;
}

SPX_EXPORT void PMIx_Envar_load(pmix_envar_t *e, char *var, char *value, char separator)
{
    if (e)
        PMIX_ENVAR_LOAD(e, var, value, separator);
}

SPX_EXPORT void PMIx_Regattr_load(pmix_regattr_t *info, const char *name, const char *key,
                                  pmix_data_type_t type, const char *description)
{
    if (info)
        PMIX_REGATTR_LOAD(info, name, key, type, description);
}

SPX_EXPORT void PMIx_Regattr_xfer(pmix_regattr_t *dest, const pmix_regattr_t *src)
{
    if (dest && src)
        PMIX_REGATTR_XFER(dest, src);
}

SPX_EXPORT void PMIx_Proc_load(pmix_proc_t *p, char *nspace, pmix_rank_t rank)
{
    if (p == NULL)
        return;
    proc_construct(p);
    PMIX_LOAD_NSPACE(p->nspace, nspace);
    p->rank = rank;
}

/* n constructed infos for an app / a query (replacing none it had). */
SPX_EXPORT void PMIx_App_info_create(pmix_app_t *p, size_t n)
{
    if (p == NULL)
        return;
    p->info = PMIx_Info_create(n);
    p->ninfo = p->info ? n : 0;
}

SPX_EXPORT void PMIx_Query_qualifiers_create(pmix_query_t *p, size_t n)
{
    if (p == NULL)
        return;
    p->qualifiers = PMIx_Info_create(n);
    p->nqual = p->qualifiers ? n : 0;
}

SPX_EXPORT void PMIx_App_release(pmix_app_t *p)
{
    PMIx_App_free(p, 1);
}

SPX_EXPORT void PMIx_Query_release(pmix_query_t *p)
{
    PMIx_Query_free(p, 1);
}
