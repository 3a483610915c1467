/* value.c - typed encoding of PMIx data: the element and array dispatch
 * through the type table, and the encodings of scalars, strings, byte
 * objects, procs, values, infos and (nested) data arrays.
 *
 * Push walks caller data (borrowed) and appends to a spx_buf_t; pull reads
 * the buffer into zeroed caller storage. Every element is encoded the same way
 * wherever it appears: in a value (u16 type + payload), in a data array
 * (u16 type + u32 count + payloads) or in a PMIx_Data_pack call. Which
 * function encodes a type, and how it is released, is in the type's row
 * (types/typedesc.h); the composite structs are in value_ext.c and
 * value_hwloc.c. Release is the row's release, the same one PMIx_Value_destruct
 * uses, so decoded data and copied data are freed the same way.
 */
#include "config.h"
#include "codec/value_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <pmix.h>

/* The row of an encodable type, or NULL (unknown types and PMIX_UNDEF). */
static inline const struct spx_typedesc *wire_type(pmix_data_type_t t)
{
    const struct spx_typedesc *td = spx_typedesc_get(t);
    return td && td->pack ? td : NULL;
}

size_t spx_codec_type_size(pmix_data_type_t t)
{
    const struct spx_typedesc *td = wire_type(t);
    return td ? td->size : 0;
}

size_t spx_codec_type_min_wire(pmix_data_type_t t)
{
    const struct spx_typedesc *td = wire_type(t);
    return td ? td->wire_min : 1;
}

const char *spx_codec_type_str(pmix_data_type_t t)
{
    if (t == PMIX_UNDEF)
        return "PMIX_UNDEF";
    const struct spx_typedesc *td = wire_type(t);
    return td ? td->name : "PMIX_UNKNOWN";
}

/* ---- fixed-width scalars: the native size is the wire width ---- */

void spx_codec_pack_u8(spx_buf_t *b, const void *p, int depth)
{
    (void)depth;
    spx_buf_push_u8(b, *(const uint8_t *)p);
}

void spx_codec_unpack_u8(spx_buf_t *b, void *p, int depth)
{
    (void)depth;
    *(uint8_t *)p = spx_buf_pull_u8(b);
}

void spx_codec_pack_u16(spx_buf_t *b, const void *p, int depth)
{
    uint16_t x;
    (void)depth;
    memcpy(&x, p, sizeof(x));
    spx_buf_push_u16(b, x);
}

void spx_codec_unpack_u16(spx_buf_t *b, void *p, int depth)
{
    uint16_t x = spx_buf_pull_u16(b);
    (void)depth;
    memcpy(p, &x, sizeof(x));
}

void spx_codec_pack_u32(spx_buf_t *b, const void *p, int depth)
{
    uint32_t x;
    (void)depth;
    memcpy(&x, p, sizeof(x));
    spx_buf_push_u32(b, x);
}

void spx_codec_unpack_u32(spx_buf_t *b, void *p, int depth)
{
    uint32_t x = spx_buf_pull_u32(b);
    (void)depth;
    memcpy(p, &x, sizeof(x));
}

void spx_codec_pack_u64(spx_buf_t *b, const void *p, int depth)
{
    uint64_t x;
    (void)depth;
    memcpy(&x, p, sizeof(x));
    spx_buf_push_u64(b, x);
}

void spx_codec_unpack_u64(spx_buf_t *b, void *p, int depth)
{
    uint64_t x = spx_buf_pull_u64(b);
    (void)depth;
    memcpy(p, &x, sizeof(x));
}

void spx_codec_pack_flag(spx_buf_t *b, const void *p, int depth)
{
    (void)depth;
    spx_buf_push_u8(b, *(const bool *)p ? 1 : 0);
}

void spx_codec_unpack_flag(spx_buf_t *b, void *p, int depth)
{
    uint8_t v = spx_buf_pull_u8(b);
    (void)depth;
    if (v > 1)
        spx_buf_set_error(b, EBADMSG);
    *(bool *)p = v == 1;
}

void spx_codec_pack_timeval(spx_buf_t *b, const void *p, int depth)
{
    const struct timeval *tv = p;
    (void)depth;
    spx_buf_push_u64(b, (uint64_t)(int64_t)tv->tv_sec);
    spx_buf_push_u64(b, (uint64_t)(int64_t)tv->tv_usec);
}

void spx_codec_unpack_timeval(spx_buf_t *b, void *p, int depth)
{
    struct timeval *tv = p;
    (void)depth;
    tv->tv_sec = (time_t)(int64_t)spx_buf_pull_u64(b);
    tv->tv_usec = (suseconds_t)(int64_t)spx_buf_pull_u64(b);
}

void spx_codec_pack_pointer(spx_buf_t *b, const void *p, int depth)
{
    void *ptr;
    (void)depth;
    memcpy(&ptr, p, sizeof(ptr));
    spx_buf_push_u64(b, (uint64_t)(uintptr_t)ptr);
}

void spx_codec_unpack_pointer(spx_buf_t *b, void *p, int depth)
{
    void *ptr = (void *)(uintptr_t)spx_buf_pull_u64(b);
    (void)depth;
    memcpy(p, &ptr, sizeof(ptr));
}

/* ---- strings, byte objects, names ---- */

void spx_codec_pack_string(spx_buf_t *b, const void *p, int depth)
{
    (void)depth;
    spx_buf_push_str(b, *(char *const *)p);
}

void spx_codec_unpack_string(spx_buf_t *b, void *p, int depth)
{
    (void)depth;
    *(char **)p = spx_buf_pull_str(b);
}

void spx_codec_pack_bo(spx_buf_t *b, const void *p, int depth)
{
    const pmix_byte_object_t *bo = p;
    (void)depth;
    spx_buf_push_bytes(b, bo->bytes, bo->bytes ? bo->size : 0);
}

void spx_codec_unpack_bo(spx_buf_t *b, void *p, int depth)
{
    pmix_byte_object_t *bo = p;
    (void)depth;
    bo->bytes = spx_buf_pull_bytes(b, &bo->size);
}

/* A fixed name array (nspace, key) need not be NUL-terminated in memory. */
_Static_assert(PMIX_MAX_KEYLEN >= PMIX_MAX_NSLEN, "name buffer");
static void push_name(spx_buf_t *b, const char *name, size_t max)
{
    char s[PMIX_MAX_KEYLEN + 1];
    memcpy(s, name, max);
    s[max] = '\0';
    spx_buf_push_str(b, s);
}

void spx_codec_pack_nspace(spx_buf_t *b, const void *p, int depth)
{
    (void)depth;
    push_name(b, p, PMIX_MAX_NSLEN);
}

void spx_codec_unpack_nspace(spx_buf_t *b, void *p, int depth)
{
    (void)depth;
    spx_buf_pull_str_into(b, p, sizeof(pmix_nspace_t));
}

void spx_codec_pack_proc(spx_buf_t *b, const void *p, int depth)
{
    const pmix_proc_t *pr = p;
    (void)depth;
    push_name(b, pr->nspace, PMIX_MAX_NSLEN);
    spx_buf_push_u32(b, pr->rank);
}

void spx_codec_unpack_proc(spx_buf_t *b, void *p, int depth)
{
    pmix_proc_t *pr = p;
    (void)depth;
    spx_buf_pull_str_into(b, pr->nspace, sizeof(pr->nspace));
    pr->rank = spx_buf_pull_u32(b);
}

/* ---- values and infos ---- */

void spx_codec_pack_value(spx_buf_t *b, const void *p, int depth)
{
    const pmix_value_t *v = p;
    if (v->type == PMIX_UNDEF) {
        spx_buf_push_u16(b, PMIX_UNDEF);
        return;
    }
    const struct spx_typedesc *td = wire_type(v->type);
    if (!td || td->store == SPX_TD_ARRAY_ONLY) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    spx_buf_push_u16(b, v->type);
    if (td->store == SPX_TD_INLINE) {
        td->pack(b, &v->data, depth);
    } else {
        spx_buf_push_u8(b, v->data.ptr != NULL);
        if (v->data.ptr)
            td->pack(b, v->data.ptr, depth);
    }
}

void spx_codec_unpack_value(spx_buf_t *b, void *p, int depth)
{
    pmix_value_t *v = p;
    pmix_data_type_t t = spx_buf_pull_u16(b);
    if (spx_buf_failed(b) || t == PMIX_UNDEF)
        return;
    const struct spx_typedesc *td = wire_type(t);
    if (!td || td->store == SPX_TD_ARRAY_ONLY) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    if (td->store == SPX_TD_INLINE) {
        v->type = t;
        td->unpack(b, &v->data, depth);
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
    void *box = calloc(1, td->size);
    if (!box) {
        spx_buf_set_error(b, ENOMEM);
        return;
    }
    v->data.ptr = box;
    td->unpack(b, box, depth);
}

void spx_codec_pack_info(spx_buf_t *b, const void *p, int depth)
{
    const pmix_info_t *info = p;
    push_name(b, info->key, PMIX_MAX_KEYLEN);
    spx_buf_push_u32(b, info->flags);
    spx_codec_pack_value(b, &info->value, depth);
}

void spx_codec_unpack_info(spx_buf_t *b, void *p, int depth)
{
    pmix_info_t *info = p;
    spx_buf_pull_str_into(b, info->key, sizeof(info->key));
    /* "persistent" describes memory in the sender; what we decode is ours. */
    info->flags = spx_buf_pull_u32(b) & ~(pmix_info_directives_t)PMIX_INFO_PERSISTENT;
    if (!spx_buf_failed(b))
        spx_codec_unpack_value(b, &info->value, depth);
}

/* ---- data arrays ---- */

void spx_codec_pack_darray(spx_buf_t *b, const void *p, int depth)
{
    const pmix_data_array_t *d = p;
    if (depth >= SPX_CODEC_MAX_DEPTH) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    size_t n = d->array ? d->size : 0;
    if (n > 0 && !wire_type(d->type)) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    spx_buf_push_u16(b, d->type);
    spx_codec_push_array(b, d->type, d->array, n, depth + 1);
}

void spx_codec_unpack_darray(spx_buf_t *b, void *p, int depth)
{
    pmix_data_array_t *d = p;
    if (depth >= SPX_CODEC_MAX_DEPTH) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    pmix_data_type_t t = spx_buf_pull_u16(b);
    if (spx_buf_failed(b))
        return;
    if (t != PMIX_UNDEF && !wire_type(t)) {
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
    if (n == 0)
        return;
    const struct spx_typedesc *td = wire_type(t);
    if (!td) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    for (size_t i = 0; i < n && !spx_buf_failed(b); i++)
        td->pack(b, (const char *)src + i * td->size, depth);
}

void spx_codec_pull_array(spx_buf_t *b, pmix_data_type_t t, void **out, size_t *nout, int depth)
{
    uint32_t n = spx_codec_pull_count(b, t);
    if (spx_buf_failed(b) || n == 0)
        return;
    const struct spx_typedesc *td = wire_type(t);
    if (!td) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    char *arr = calloc(n, td->size);
    if (!arr) {
        spx_buf_set_error(b, ENOMEM);
        return;
    }
    *out = arr;
    *nout = n;
    for (uint32_t i = 0; i < n && !spx_buf_failed(b); i++)
        td->unpack(b, arr + (size_t)i * td->size, depth);
}

/* ---- one element of any type ---- */

void spx_codec_push_elem(spx_buf_t *b, pmix_data_type_t t, const void *p, int depth)
{
    const struct spx_typedesc *td = wire_type(t);
    if (!td) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    td->pack(b, p, depth);
}

void spx_codec_pull_elem(spx_buf_t *b, pmix_data_type_t t, void *p, int depth)
{
    const struct spx_typedesc *td = wire_type(t);
    if (!td) {
        spx_buf_set_error(b, EBADMSG);
        return;
    }
    td->unpack(b, p, depth);
}

/* ---- public entry points ---- */

void spx_codec_release_elems(pmix_data_type_t t, void *p, size_t n)
{
    const struct spx_typedesc *td = wire_type(t);
    if (!td || !p)
        return;
    for (size_t i = 0; i < n; i++) {
        void *e = (char *)p + i * td->size;
        if (td->release)
            td->release(e);
        memset(e, 0, td->size);
    }
}

void spx_codec_value_release(pmix_value_t *v)
{
    if (v)
        PMIx_Value_destruct(v);
}

void spx_codec_push_elems(spx_buf_t *b, pmix_data_type_t t, const void *src, size_t n)
{
    const struct spx_typedesc *td = wire_type(t);
    if (!td) {
        spx_buf_set_error(b, EPROTO);
        return;
    }
    for (size_t i = 0; i < n && !spx_buf_failed(b); i++)
        td->pack(b, (const char *)src + i * td->size, 0);
}

int spx_codec_pull_elems(spx_buf_t *b, pmix_data_type_t t, void *dst, size_t n)
{
    const struct spx_typedesc *td = wire_type(t);
    if (!td) {
        spx_buf_set_error(b, EBADMSG);
        return -1;
    }
    memset(dst, 0, n * td->size);
    for (size_t i = 0; i < n && !spx_buf_failed(b); i++)
        td->unpack(b, (char *)dst + i * td->size, 0);
    if (spx_buf_failed(b)) {
        spx_codec_release_elems(t, dst, n);
        return -1;
    }
    return 0;
}

void spx_codec_push_value(spx_buf_t *b, const pmix_value_t *v) { spx_codec_pack_value(b, v, 0); }

int spx_codec_pull_value(spx_buf_t *b, pmix_value_t *v)
{
    return spx_codec_pull_elems(b, PMIX_VALUE, v, 1);
}

void spx_codec_push_proc(spx_buf_t *b, const pmix_proc_t *p) { spx_codec_pack_proc(b, p, 0); }

int spx_codec_pull_proc(spx_buf_t *b, pmix_proc_t *p)
{
    return spx_codec_pull_elems(b, PMIX_PROC, p, 1);
}

void spx_codec_push_info(spx_buf_t *b, const pmix_info_t *info)
{
    spx_codec_pack_info(b, info, 0);
}

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
