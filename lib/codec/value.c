/* value.c - typed encoding of PMIx data: the type table, scalars, strings,
 * byte objects, procs, values, infos and (nested) data arrays.
 *
 * Push walks caller data (borrowed) and appends to a spx_buf_t; pull reads
 * the buffer into zeroed caller storage. Every element is encoded the same way
 * wherever it appears: in a value (u16 type + payload), in a data array
 * (u16 type + u32 count + payloads) or in a PMIx_Data_pack call. Composite
 * structs are delegated to value_ext.c and freed by value_free.c.
 */
#include "config.h"
#include "codec/value_int.h"
#include "util/compiler.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define T(type, kind, slot, size, minw) \
    [type] = { SPX_K_##kind, SPX_SLOT_##slot, size, minw, #type }

/* Indexed by pmix_data_type_t; gaps are unsupported types. */
static const spx_codec_type_t type_table[] = {
    T(PMIX_BOOL, BOOL, INLINE, sizeof(bool), 1),
    T(PMIX_BYTE, U8, INLINE, 1, 1),
    T(PMIX_STRING, STRING, INLINE, sizeof(char *), 4),
    T(PMIX_SIZE, U64, INLINE, sizeof(size_t), 8),
    T(PMIX_PID, U32, INLINE, sizeof(pid_t), 4),
    T(PMIX_INT, U32, INLINE, sizeof(int), 4),
    T(PMIX_INT8, U8, INLINE, 1, 1),
    T(PMIX_INT16, U16, INLINE, 2, 2),
    T(PMIX_INT32, U32, INLINE, 4, 4),
    T(PMIX_INT64, U64, INLINE, 8, 8),
    T(PMIX_UINT, U32, INLINE, sizeof(unsigned int), 4),
    T(PMIX_UINT8, U8, INLINE, 1, 1),
    T(PMIX_UINT16, U16, INLINE, 2, 2),
    T(PMIX_UINT32, U32, INLINE, 4, 4),
    T(PMIX_UINT64, U64, INLINE, 8, 8),
    T(PMIX_FLOAT, U32, INLINE, sizeof(float), 4),
    T(PMIX_DOUBLE, U64, INLINE, sizeof(double), 8),
    T(PMIX_TIMEVAL, TIMEVAL, INLINE, sizeof(struct timeval), 16),
    T(PMIX_TIME, U64, INLINE, sizeof(time_t), 8),
    T(PMIX_STATUS, U32, INLINE, sizeof(pmix_status_t), 4),
    T(PMIX_VALUE, VALUE, NONE, sizeof(pmix_value_t), 2),
    T(PMIX_PROC, PROC, PTR, sizeof(pmix_proc_t), 8),
    T(PMIX_APP, EXT, NONE, sizeof(pmix_app_t), 24),
    T(PMIX_INFO, INFO, NONE, sizeof(pmix_info_t), 10),
    T(PMIX_PDATA, EXT, NONE, sizeof(pmix_pdata_t), 14),
    T(PMIX_BYTE_OBJECT, BO, INLINE, sizeof(pmix_byte_object_t), 4),
    T(PMIX_PERSIST, U8, INLINE, sizeof(pmix_persistence_t), 1),
    T(PMIX_POINTER, POINTER, INLINE, sizeof(void *), 8),
    T(PMIX_SCOPE, U8, INLINE, sizeof(pmix_scope_t), 1),
    T(PMIX_DATA_RANGE, U8, INLINE, sizeof(pmix_data_range_t), 1),
    T(PMIX_COMMAND, U8, INLINE, 1, 1),
    T(PMIX_INFO_DIRECTIVES, U32, INLINE, sizeof(pmix_info_directives_t), 4),
    T(PMIX_DATA_TYPE, U16, INLINE, sizeof(pmix_data_type_t), 2),
    T(PMIX_PROC_STATE, U8, INLINE, sizeof(pmix_proc_state_t), 1),
    T(PMIX_PROC_INFO, EXT, PTR, sizeof(pmix_proc_info_t), 25),
    T(PMIX_DATA_ARRAY, DARRAY, PTR, sizeof(pmix_data_array_t), 6),
    T(PMIX_PROC_RANK, U32, INLINE, sizeof(pmix_rank_t), 4),
    T(PMIX_QUERY, EXT, NONE, sizeof(pmix_query_t), 8),
    T(PMIX_COMPRESSED_STRING, BO, INLINE, sizeof(pmix_byte_object_t), 4),
    T(PMIX_ALLOC_DIRECTIVE, U8, INLINE, sizeof(pmix_alloc_directive_t), 1),
    T(PMIX_IOF_CHANNEL, U16, INLINE, sizeof(pmix_iof_channel_t), 2),
    T(PMIX_ENVAR, EXT, INLINE, sizeof(pmix_envar_t), 9),
    T(PMIX_COORD, EXT, PTR, sizeof(pmix_coord_t), 5),
    T(PMIX_REGATTR, EXT, PTR, sizeof(pmix_regattr_t), 14),
    T(PMIX_REGEX, BO, INLINE, sizeof(pmix_byte_object_t), 4),
    T(PMIX_JOB_STATE, U8, INLINE, sizeof(pmix_job_state_t), 1),
    T(PMIX_LINK_STATE, U8, INLINE, sizeof(pmix_link_state_t), 1),
    T(PMIX_PROC_CPUSET, EXT, PTR, sizeof(pmix_cpuset_t), 5),
    T(PMIX_GEOMETRY, EXT, PTR, sizeof(pmix_geometry_t), 20),
    T(PMIX_DEVICE_DIST, EXT, PTR, sizeof(pmix_device_distance_t), 20),
    T(PMIX_ENDPOINT, EXT, PTR, sizeof(pmix_endpoint_t), 12),
    T(PMIX_TOPO, EXT, PTR, sizeof(pmix_topology_t), 5),
    T(PMIX_DEVTYPE, U64, INLINE, sizeof(pmix_device_type_t), 8),
    T(PMIX_LOCTYPE, U16, INLINE, sizeof(pmix_locality_t), 2),
    T(PMIX_COMPRESSED_BYTE_OBJECT, BO, INLINE, sizeof(pmix_byte_object_t), 4),
    T(PMIX_PROC_NSPACE, NSPACE, PTR, sizeof(pmix_nspace_t), 4),
    T(PMIX_PROC_STATS, EXT, PTR, sizeof(pmix_proc_stats_t), 4),
    T(PMIX_DISK_STATS, EXT, PTR, sizeof(pmix_disk_stats_t), 92),
    T(PMIX_NET_STATS, EXT, PTR, sizeof(pmix_net_stats_t), 52),
    T(PMIX_NODE_STATS, EXT, PTR, sizeof(pmix_node_stats_t), 4),
    T(PMIX_DATA_BUFFER, EXT, PTR, sizeof(pmix_data_buffer_t), 4),
    T(PMIX_STOR_MEDIUM, U64, INLINE, sizeof(pmix_storage_medium_t), 8),
    T(PMIX_STOR_ACCESS, U64, INLINE, sizeof(pmix_storage_accessibility_t), 8),
    T(PMIX_STOR_PERSIST, U64, INLINE, sizeof(pmix_storage_persistence_t), 8),
    T(PMIX_STOR_ACCESS_TYPE, U16, INLINE, sizeof(pmix_storage_access_type_t), 2),
};
#undef T

const spx_codec_type_t *spx_codec_type_get(pmix_data_type_t t)
{
    if (t >= SPX_ARRAY_LEN(type_table) || type_table[t].kind == SPX_K_NONE)
        return NULL;
    return &type_table[t];
}

size_t spx_codec_type_size(pmix_data_type_t t)
{
    const spx_codec_type_t *ty = spx_codec_type_get(t);
    return ty ? ty->size : 0;
}

size_t spx_codec_type_min_wire(pmix_data_type_t t)
{
    const spx_codec_type_t *ty = spx_codec_type_get(t);
    return ty ? ty->min_wire : 1;
}

const char *spx_codec_type_str(pmix_data_type_t t)
{
    if (t == PMIX_UNDEF)
        return "PMIX_UNDEF";
    const spx_codec_type_t *ty = spx_codec_type_get(t);
    return ty ? ty->name : "PMIX_UNKNOWN";
}

/* ---- scalars of fixed width: copied through native storage of that width ---- */

static void push_fixed(spx_buf_t *b, const void *p, size_t size, enum spx_codec_kind kind)
{
    uint64_t v = 0;
    switch (size) {
    case 1: v = *(const uint8_t *)p; break;
    case 2: { uint16_t x; memcpy(&x, p, 2); v = x; break; }
    case 4: { uint32_t x; memcpy(&x, p, 4); v = x; break; }
    case 8: memcpy(&v, p, 8); break;
    }
    switch (kind) {
    case SPX_K_U8: spx_buf_push_u8(b, (uint8_t)v); break;
    case SPX_K_U16: spx_buf_push_u16(b, (uint16_t)v); break;
    case SPX_K_U32: spx_buf_push_u32(b, (uint32_t)v); break;
    default: spx_buf_push_u64(b, v); break;
    }
}

static void pull_fixed(spx_buf_t *b, void *p, size_t size, enum spx_codec_kind kind)
{
    uint64_t v;
    switch (kind) {
    case SPX_K_U8: v = spx_buf_pull_u8(b); break;
    case SPX_K_U16: v = spx_buf_pull_u16(b); break;
    case SPX_K_U32: v = spx_buf_pull_u32(b); break;
    default: v = spx_buf_pull_u64(b); break;
    }
    switch (size) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case 8: memcpy(p, &v, 8); break;
    }
}

/* ---- values ---- */

static void push_value(spx_buf_t *b, const pmix_value_t *v, int depth)
{
    if (v->type == PMIX_UNDEF) {
        spx_buf_push_u16(b, PMIX_UNDEF);
        return;
    }
    const spx_codec_type_t *ty = spx_codec_type_get(v->type);
    if (!ty || ty->slot == SPX_SLOT_NONE) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    spx_buf_push_u16(b, v->type);
    if (ty->slot == SPX_SLOT_INLINE) {
        spx_codec_push_elem(b, v->type, &v->data, depth);
    } else {
        spx_buf_push_u8(b, v->data.ptr != NULL);
        if (v->data.ptr)
            spx_codec_push_elem(b, v->type, v->data.ptr, depth);
    }
}

static void pull_value(spx_buf_t *b, pmix_value_t *v, int depth)
{
    pmix_data_type_t t = spx_buf_pull_u16(b);
    if (spx_buf_failed(b) || t == PMIX_UNDEF)
        return;
    const spx_codec_type_t *ty = spx_codec_type_get(t);
    if (!ty || ty->slot == SPX_SLOT_NONE) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    if (ty->slot == SPX_SLOT_INLINE) {
        v->type = t;
        spx_codec_pull_elem(b, t, &v->data, depth);
        return;
    }
    uint8_t present = spx_buf_pull_u8(b);
    if (spx_buf_failed(b) || present > 1) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    v->type = t;
    if (!present)
        return;
    void *p = calloc(1, ty->size);
    if (!p) {
        spx_buf_set_error(b, ENOMEM);
        return;
    }
    v->data.ptr = p;
    spx_codec_pull_elem(b, t, p, depth);
}

static void push_info(spx_buf_t *b, const pmix_info_t *info, int depth)
{
    char key[PMIX_MAX_KEYLEN + 1];
    memcpy(key, info->key, PMIX_MAX_KEYLEN);
    key[PMIX_MAX_KEYLEN] = '\0';
    spx_buf_push_str(b, key);
    spx_buf_push_u32(b, info->flags);
    push_value(b, &info->value, depth);
}

static void pull_info(spx_buf_t *b, pmix_info_t *info, int depth)
{
    spx_buf_pull_str_into(b, info->key, sizeof(info->key));
    /* "persistent" describes memory in the sender; what we decode is ours. */
    info->flags = spx_buf_pull_u32(b) & ~(pmix_info_directives_t)PMIX_INFO_PERSISTENT;
    if (!spx_buf_failed(b))
        pull_value(b, &info->value, depth);
}

static void push_proc(spx_buf_t *b, const pmix_proc_t *p)
{
    char ns[PMIX_MAX_NSLEN + 1];
    memcpy(ns, p->nspace, PMIX_MAX_NSLEN);
    ns[PMIX_MAX_NSLEN] = '\0';
    spx_buf_push_str(b, ns);
    spx_buf_push_u32(b, p->rank);
}

static void pull_proc(spx_buf_t *b, pmix_proc_t *p)
{
    spx_buf_pull_str_into(b, p->nspace, sizeof(p->nspace));
    p->rank = spx_buf_pull_u32(b);
}

/* ---- data arrays ---- */

static void push_darray(spx_buf_t *b, const pmix_data_array_t *d, int depth)
{
    if (depth >= SPX_CODEC_MAX_DEPTH) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    size_t n = d->array ? d->size : 0;
    if (n > 0 && !spx_codec_type_get(d->type)) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    spx_buf_push_u16(b, d->type);
    spx_codec_push_array(b, d->type, d->array, n, depth + 1);
}

static void pull_darray(spx_buf_t *b, pmix_data_array_t *d, int depth)
{
    if (depth >= SPX_CODEC_MAX_DEPTH) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    pmix_data_type_t t = spx_buf_pull_u16(b);
    if (spx_buf_failed(b))
        return;
    if (t != PMIX_UNDEF && !spx_codec_type_get(t)) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    d->type = t;
    spx_codec_pull_array(b, t, &d->array, &d->size, depth + 1);
}

uint32_t spx_codec_pull_count(spx_buf_t *b, pmix_data_type_t t)
{
    uint32_t n = spx_buf_pull_u32(b);
    if (spx_buf_failed(b))
        return 0;
    if (n > SPX_BUF_MAX_COUNT) {
        spx_buf_set_error(b, EMSGSIZE);
        return 0;
    }
    if (n > spx_buf_remaining(b) / spx_codec_type_min_wire(t)) {
        spx_buf_set_error(b, EBADMSG);
        return 0;
    }
    return n;
}

void spx_codec_push_array(spx_buf_t *b, pmix_data_type_t t, const void *src, size_t n, int depth)
{
    if (n > SPX_BUF_MAX_COUNT) {
        spx_buf_set_error(b, EMSGSIZE);
        return;
    }
    spx_buf_push_u32(b, (uint32_t)n);
    size_t size = spx_codec_type_size(t);
    for (size_t i = 0; i < n && !spx_buf_failed(b); i++)
        spx_codec_push_elem(b, t, (const char *)src + i * size, depth);
}

void spx_codec_pull_array(spx_buf_t *b, pmix_data_type_t t, void **out, size_t *nout, int depth)
{
    uint32_t n = spx_codec_pull_count(b, t);
    if (spx_buf_failed(b) || n == 0)
        return;
    size_t size = spx_codec_type_size(t);
    if (size == 0) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    char *arr = calloc(n, size);
    if (!arr) {
        spx_buf_set_error(b, ENOMEM);
        return;
    }
    *out = arr;
    *nout = n;
    for (uint32_t i = 0; i < n && !spx_buf_failed(b); i++)
        spx_codec_pull_elem(b, t, arr + (size_t)i * size, depth);
}

/* ---- one element of any type ---- */

void spx_codec_push_elem(spx_buf_t *b, pmix_data_type_t t, const void *p, int depth)
{
    const spx_codec_type_t *ty = spx_codec_type_get(t);
    if (!ty) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    switch (ty->kind) {
    case SPX_K_U8: case SPX_K_U16: case SPX_K_U32: case SPX_K_U64:
        push_fixed(b, p, ty->size, ty->kind);
        break;
    case SPX_K_BOOL:
        spx_buf_push_u8(b, *(const bool *)p ? 1 : 0);
        break;
    case SPX_K_TIMEVAL: {
        const struct timeval *tv = p;
        spx_buf_push_u64(b, (uint64_t)(int64_t)tv->tv_sec);
        spx_buf_push_u64(b, (uint64_t)(int64_t)tv->tv_usec);
        break;
    }
    case SPX_K_STRING:
        spx_buf_push_str(b, *(char *const *)p);
        break;
    case SPX_K_BO: {
        const pmix_byte_object_t *bo = p;
        spx_buf_push_bytes(b, bo->bytes, bo->bytes ? bo->size : 0);
        break;
    }
    case SPX_K_PROC:
        push_proc(b, p);
        break;
    case SPX_K_NSPACE: {
        char ns[PMIX_MAX_NSLEN + 1];
        memcpy(ns, p, PMIX_MAX_NSLEN);
        ns[PMIX_MAX_NSLEN] = '\0';
        spx_buf_push_str(b, ns);
        break;
    }
    case SPX_K_VALUE:
        push_value(b, p, depth);
        break;
    case SPX_K_INFO:
        push_info(b, p, depth);
        break;
    case SPX_K_DARRAY:
        push_darray(b, p, depth);
        break;
    case SPX_K_POINTER: {
        void *ptr;
        memcpy(&ptr, p, sizeof(ptr));
        spx_buf_push_u64(b, (uint64_t)(uintptr_t)ptr);
        break;
    }
    case SPX_K_EXT:
        spx_codec_push_ext(b, t, p, depth);
        break;
    case SPX_K_NONE:
        spx_buf_set_error(b, EPROTO);
        break;
    }
}

void spx_codec_pull_elem(spx_buf_t *b, pmix_data_type_t t, void *p, int depth)
{
    const spx_codec_type_t *ty = spx_codec_type_get(t);
    if (!ty) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    switch (ty->kind) {
    case SPX_K_U8: case SPX_K_U16: case SPX_K_U32: case SPX_K_U64:
        pull_fixed(b, p, ty->size, ty->kind);
        break;
    case SPX_K_BOOL: {
        uint8_t v = spx_buf_pull_u8(b);
        if (v > 1)
            spx_buf_set_error(b, EBADMSG);
        *(bool *)p = v == 1;
        break;
    }
    case SPX_K_TIMEVAL: {
        struct timeval *tv = p;
        tv->tv_sec = (time_t)(int64_t)spx_buf_pull_u64(b);
        tv->tv_usec = (suseconds_t)(int64_t)spx_buf_pull_u64(b);
        break;
    }
    case SPX_K_STRING:
        *(char **)p = spx_buf_pull_str(b);
        break;
    case SPX_K_BO: {
        pmix_byte_object_t *bo = p;
        bo->bytes = spx_buf_pull_bytes(b, &bo->size);
        break;
    }
    case SPX_K_PROC:
        pull_proc(b, p);
        break;
    case SPX_K_NSPACE:
        spx_buf_pull_str_into(b, p, sizeof(pmix_nspace_t));
        break;
    case SPX_K_VALUE:
        pull_value(b, p, depth);
        break;
    case SPX_K_INFO:
        pull_info(b, p, depth);
        break;
    case SPX_K_DARRAY:
        pull_darray(b, p, depth);
        break;
    case SPX_K_POINTER: {
        void *ptr = (void *)(uintptr_t)spx_buf_pull_u64(b);
        memcpy(p, &ptr, sizeof(ptr));
        break;
    }
    case SPX_K_EXT:
        spx_codec_pull_ext(b, t, p, depth);
        break;
    case SPX_K_NONE:
        spx_buf_set_error(b, EBADMSG);
        break;
    }
}

/* ---- public entry points ---- */

void spx_codec_push_elems(spx_buf_t *b, pmix_data_type_t t, const void *src, size_t n)
{
    size_t size = spx_codec_type_size(t);
    if (size == 0) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    for (size_t i = 0; i < n && !spx_buf_failed(b); i++)
        spx_codec_push_elem(b, t, (const char *)src + i * size, 0);
}

int spx_codec_pull_elems(spx_buf_t *b, pmix_data_type_t t, void *dst, size_t n)
{
    size_t size = spx_codec_type_size(t);
    if (size == 0) {
        spx_buf_set_error(b, EBADMSG);
        return -1;
    }
    memset(dst, 0, n * size);
    for (size_t i = 0; i < n && !spx_buf_failed(b); i++)
        spx_codec_pull_elem(b, t, (char *)dst + i * size, 0);
    if (spx_buf_failed(b)) {
        spx_codec_release_elems(t, dst, n);
        return -1;
    }
    return 0;
}

void spx_codec_push_value(spx_buf_t *b, const pmix_value_t *v) { push_value(b, v, 0); }

int spx_codec_pull_value(spx_buf_t *b, pmix_value_t *v)
{
    return spx_codec_pull_elems(b, PMIX_VALUE, v, 1);
}

void spx_codec_push_proc(spx_buf_t *b, const pmix_proc_t *p) { push_proc(b, p); }

int spx_codec_pull_proc(spx_buf_t *b, pmix_proc_t *p)
{
    return spx_codec_pull_elems(b, PMIX_PROC, p, 1);
}

void spx_codec_push_info(spx_buf_t *b, const pmix_info_t *info) { push_info(b, info, 0); }

int spx_codec_pull_info(spx_buf_t *b, pmix_info_t *info)
{
    return spx_codec_pull_elems(b, PMIX_INFO, info, 1);
}

void spx_codec_push_info_array(spx_buf_t *b, const pmix_info_t *info, size_t n)
{
    spx_codec_push_array(b, PMIX_INFO, info, info ? n : 0, 0);
}

static int pull_top_array(spx_buf_t *b, pmix_data_type_t t, void **out, size_t *n)
{
    void *arr = NULL;
    size_t count = 0;
    spx_codec_pull_array(b, t, &arr, &count, 0);
    if (spx_buf_failed(b)) {
        if (arr) {
            spx_codec_release_elems(t, arr, count);
            free(arr);
        }
        *out = NULL;
        *n = 0;
        return -1;
    }
    *out = arr;
    *n = count;
    return 0;
}

int spx_codec_pull_info_array(spx_buf_t *b, pmix_info_t **out, size_t *n)
{
    return pull_top_array(b, PMIX_INFO, (void **)out, n);
}

void spx_codec_push_proc_array(spx_buf_t *b, const pmix_proc_t *procs, size_t n)
{
    spx_codec_push_array(b, PMIX_PROC, procs, procs ? n : 0, 0);
}

int spx_codec_pull_proc_array(spx_buf_t *b, pmix_proc_t **out, size_t *n)
{
    return pull_top_array(b, PMIX_PROC, (void **)out, n);
}
