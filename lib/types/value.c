/* value.c - pmix_value_t: PMIx_Value_load/unload/xfer/destruct/compare and
 * spmix's own deep copy, free and coercing readers.
 *
 * A value holds one element of its type (typedesc.h): inline in the data
 * union or boxed behind data.ptr. Load copies the caller's data in (deep),
 * xfer copies value to value (deep), destruct frees what the value owns and
 * leaves it UNDEF. Unload hands data out: scalars, PMIX_PROC and
 * PMIX_PROC_NSPACE are written into the caller's storage at *data; strings,
 * byte-object bytes and every composite type come back malloc'd at *data
 * (caller frees: free() for strings and bytes, the type's destruct + free()
 * for structs); PMIX_POINTER hands the stored pointer back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pmix.h>

#include "types/typedesc.h"
#include "types/types.h"
#include "util/compiler.h"

static void **boxp(pmix_value_t *v)
{
    return &v->data.ptr; /* every boxed pointer sits at offset 0 of the union */
}

static bool is_bo_type(pmix_data_type_t t)
{
    return t == PMIX_BYTE_OBJECT || t == PMIX_COMPRESSED_STRING ||
           t == PMIX_COMPRESSED_BYTE_OBJECT || t == PMIX_REGEX;
}

SPX_EXPORT pmix_status_t PMIx_Value_load(pmix_value_t *v, const void *data, pmix_data_type_t type)
{
    const struct spx_typedesc *td;
    void *box;
    pmix_status_t rc;

    if (v == NULL)
        return PMIX_ERR_BAD_PARAM;
    memset(v, 0, sizeof(*v));
    td = spx_typedesc_get(type);
    if (td == NULL || td->store == SPX_TD_ARRAY_ONLY) {
        v->type = PMIX_UNDEF;
        return PMIX_ERR_NOT_SUPPORTED;
    }
    v->type = type;
    if (data == NULL) {
        /* a flag given without data means "set" */
        if (type == PMIX_BOOL)
            v->data.flag = true;
        return PMIX_SUCCESS;
    }
    switch (type) {
    case PMIX_STRING:
        /* data is the string itself */
        if ((v->data.string = strdup(data)) == NULL)
            goto nomem;
        return PMIX_SUCCESS;
    case PMIX_POINTER:
        v->data.ptr = (void *)data;
        return PMIX_SUCCESS;
    case PMIX_REGEX:
        /* data is the regex string; kept with its NUL in a byte object */
        if ((v->data.bo.bytes = strdup(data)) == NULL)
            goto nomem;
        v->data.bo.size = strlen(data) + 1;
        return PMIX_SUCCESS;
    default:
        break;
    }
    if (td->store == SPX_TD_INLINE) {
        rc = spx_td_elem_copy(td, &v->data, data);
    } else {
        box = calloc(1, td->size);
        if (box == NULL)
            goto nomem;
        rc = spx_td_elem_copy(td, box, data);
        if (rc == PMIX_SUCCESS)
            *boxp(v) = box;
        else
            free(box);
    }
    if (rc != PMIX_SUCCESS) {
        memset(v, 0, sizeof(*v));
        v->type = PMIX_UNDEF;
    }
    return rc;
nomem:
    memset(v, 0, sizeof(*v));
    v->type = PMIX_UNDEF;
    return PMIX_ERR_NOMEM;
}

SPX_EXPORT pmix_status_t PMIx_Value_unload(pmix_value_t *v, void **data, size_t *sz)
{
    const struct spx_typedesc *td;
    const void *elem;
    void *out;
    pmix_status_t rc;

    if (v == NULL || data == NULL || sz == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (v->type == PMIX_UNDEF)
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    td = spx_typedesc_get(v->type);
    if (td == NULL || td->store == SPX_TD_ARRAY_ONLY)
        return PMIX_ERROR;

    if (v->type == PMIX_STRING) {
        *data = NULL;
        *sz = 0;
        if (v->data.string) {
            if ((*data = strdup(v->data.string)) == NULL)
                return PMIX_ERR_NOMEM;
            *sz = strlen(v->data.string);
        }
        return PMIX_SUCCESS;
    }
    if (v->type == PMIX_POINTER) {
        *data = v->data.ptr;
        *sz = sizeof(void *);
        return PMIX_SUCCESS;
    }
    if (is_bo_type(v->type)) {
        /* the bytes themselves, copied (OpenPMIx 4.2 aliases them; a copy
         * is safe for callers that free and for those that do not) */
        *data = NULL;
        *sz = 0;
        if (v->data.bo.bytes && v->data.bo.size) {
            if ((*data = malloc(v->data.bo.size)) == NULL)
                return PMIX_ERR_NOMEM;
            memcpy(*data, v->data.bo.bytes, v->data.bo.size);
            *sz = v->data.bo.size;
        }
        return PMIX_SUCCESS;
    }
    if (v->type == PMIX_PROC || v->type == PMIX_PROC_NSPACE ||
        (td->store == SPX_TD_INLINE && td->copy == NULL)) {
        /* written into caller storage */
        if (*data == NULL)
            return PMIX_ERR_BAD_PARAM;
        elem = td->store == SPX_TD_INLINE ? (const void *)&v->data : v->data.ptr;
        if (elem == NULL)
            memset(*data, 0, td->size);
        else
            spx_td_elem_copy(td, *data, elem);
        *sz = v->type == PMIX_PROC_NSPACE ? strlen(*data) : td->size;
        return PMIX_SUCCESS;
    }
    /* composite: a malloc'd deep copy */
    elem = td->store == SPX_TD_INLINE ? (const void *)&v->data : v->data.ptr;
    *data = NULL;
    *sz = 0;
    if (elem == NULL)
        return PMIX_SUCCESS;
    out = calloc(1, td->size);
    if (out == NULL)
        return PMIX_ERR_NOMEM;
    rc = spx_td_elem_copy(td, out, elem);
    if (rc != PMIX_SUCCESS) {
        free(out);
        return rc;
    }
    *data = out;
    *sz = td->size;
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Value_xfer(pmix_value_t *dst, const pmix_value_t *src)
{
    const struct spx_typedesc *td;
    void *box;
    pmix_status_t rc;

    if (dst == NULL || src == NULL || dst == src)
        return PMIX_ERR_BAD_PARAM; /* a value cannot be copied onto itself */
    memset(dst, 0, sizeof(*dst));
    td = spx_typedesc_get(src->type);
    if (td == NULL || td->store == SPX_TD_ARRAY_ONLY) {
        dst->type = PMIX_UNDEF;
        return PMIX_ERR_NOT_SUPPORTED;
    }
    dst->type = src->type;
    if (td->store == SPX_TD_INLINE)
        return spx_td_elem_copy(td, &dst->data, &src->data);
    if (src->data.ptr == NULL)
        return PMIX_SUCCESS;
    box = calloc(1, td->size);
    if (box == NULL) {
        rc = PMIX_ERR_NOMEM;
    } else if ((rc = spx_td_elem_copy(td, box, src->data.ptr)) == PMIX_SUCCESS) {
        *boxp(dst) = box;
        return PMIX_SUCCESS;
    }
    free(box);
    memset(dst, 0, sizeof(*dst));
    dst->type = PMIX_UNDEF;
    return rc;
}

SPX_EXPORT void PMIx_Value_destruct(pmix_value_t *v)
{
    const struct spx_typedesc *td;

    if (v == NULL)
        return;
    td = spx_typedesc_get(v->type);
    if (td && td->store == SPX_TD_INLINE) {
        spx_td_elem_free(td, &v->data);
    } else if (td && td->store == SPX_TD_BOXED && v->data.ptr) {
        spx_td_elem_free(td, v->data.ptr);
        free(v->data.ptr);
    }
    memset(v, 0, sizeof(*v));
    v->type = PMIX_UNDEF;
}

SPX_EXPORT pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1, pmix_value_t *v2)
{
    const struct spx_typedesc *td;

    if (v1 == NULL || v2 == NULL)
        return v1 == v2 ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
    if (v1->type != v2->type)
        return PMIX_VALUE_TYPE_DIFFERENT;
    td = spx_typedesc_get(v1->type);
    if (td == NULL || td->store == SPX_TD_ARRAY_ONLY)
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    if (v1->type == PMIX_POINTER)
        return spx_td_cmp_u64((uintptr_t)v1->data.ptr, (uintptr_t)v2->data.ptr);
    if (td->store == SPX_TD_INLINE)
        return spx_td_elem_cmp(td, &v1->data, &v2->data);
    if (v1->data.ptr == NULL || v2->data.ptr == NULL) {
        if (v1->data.ptr == v2->data.ptr)
            return PMIX_EQUAL;
        return v1->data.ptr ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER;
    }
    return spx_td_elem_cmp(td, v1->data.ptr, v2->data.ptr);
}

/* ---- spmix helpers -------------------------------------------------------- */

pmix_status_t spx_value_copy(pmix_value_t **dst, const pmix_value_t *src)
{
    pmix_value_t *v;
    pmix_status_t rc;

    if (dst == NULL)
        return PMIX_ERR_BAD_PARAM;
    *dst = NULL;
    if (src == NULL)
        return PMIX_ERR_BAD_PARAM;
    v = calloc(1, sizeof(*v));
    if (v == NULL)
        return PMIX_ERR_NOMEM;
    rc = PMIx_Value_xfer(v, src);
    if (rc != PMIX_SUCCESS) {
        free(v);
        return rc;
    }
    *dst = v;
    return PMIX_SUCCESS;
}

void spx_value_free(pmix_value_t *v)
{
    if (v == NULL)
        return;
    PMIx_Value_destruct(v);
    free(v);
}

bool spx_value_is_type(const pmix_value_t *v, pmix_data_type_t type)
{
    return v != NULL && v->type == type;
}

/* Reads any integer-like value as a sign flag plus magnitude pair. */
static pmix_status_t read_integer(const pmix_value_t *v, bool *neg, uint64_t *mag)
{
    const struct spx_typedesc *td;
    int64_t s = 0;
    uint64_t u = 0;
    char *end;

    if (v == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (v->type == PMIX_STRING) {
        const char *p = v->data.string;
        if (p == NULL || *p == '\0')
            return PMIX_ERR_BAD_PARAM;
        errno = 0;
        if (*p == '-') {
            s = strtoll(p, &end, 10);
            if (errno || *end != '\0')
                return PMIX_ERR_BAD_PARAM;
            *neg = s < 0;
            *mag = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
        } else {
            u = strtoull(p, &end, 10);
            if (errno || *end != '\0')
                return PMIX_ERR_BAD_PARAM;
            *neg = false;
            *mag = u;
        }
        return PMIX_SUCCESS;
    }
    td = spx_typedesc_get(v->type);
    if (td == NULL || (td->num != SPX_NUM_SIGNED && td->num != SPX_NUM_UNSIGNED))
        return PMIX_ERR_TYPE_MISMATCH;
    if (v->type == PMIX_BOOL) {
        *neg = false;
        *mag = v->data.flag ? 1 : 0;
        return PMIX_SUCCESS;
    }
    if (td->num == SPX_NUM_SIGNED) {
        switch (td->size) {
        case 1: s = v->data.int8; break;
        case 2: s = v->data.int16; break;
        case 4: s = v->data.int32; break;
        default: s = v->data.int64; break;
        }
        *neg = s < 0;
        *mag = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
    } else {
        switch (td->size) {
        case 1: u = v->data.uint8; break;
        case 2: u = v->data.uint16; break;
        case 4: u = v->data.uint32; break;
        default: u = v->data.uint64; break;
        }
        *neg = false;
        *mag = u;
    }
    return PMIX_SUCCESS;
}

pmix_status_t spx_value_to_u64(const pmix_value_t *v, uint64_t *out)
{
    bool neg;
    uint64_t mag;
    pmix_status_t rc = read_integer(v, &neg, &mag);

    if (rc != PMIX_SUCCESS)
        return rc;
    if (neg && mag != 0)
        return PMIX_ERR_BAD_PARAM;
    *out = mag;
    return PMIX_SUCCESS;
}

pmix_status_t spx_value_to_i64(const pmix_value_t *v, int64_t *out)
{
    bool neg;
    uint64_t mag;
    pmix_status_t rc = read_integer(v, &neg, &mag);

    if (rc != PMIX_SUCCESS)
        return rc;
    if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX)
        return PMIX_ERR_BAD_PARAM;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return PMIX_SUCCESS;
}

pmix_status_t spx_value_to_u32(const pmix_value_t *v, uint32_t *out)
{
    uint64_t u;
    pmix_status_t rc = spx_value_to_u64(v, &u);

    if (rc != PMIX_SUCCESS)
        return rc;
    if (u > UINT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    *out = (uint32_t)u;
    return PMIX_SUCCESS;
}

pmix_status_t spx_value_to_int(const pmix_value_t *v, int *out)
{
    int64_t s;
    pmix_status_t rc = spx_value_to_i64(v, &s);

    if (rc != PMIX_SUCCESS)
        return rc;
    if (s < INT32_MIN || s > INT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    *out = (int)s;
    return PMIX_SUCCESS;
}

bool spx_value_true(const pmix_value_t *v)
{
    bool neg;
    uint64_t mag;
    const char *s;

    if (v == NULL)
        return false;
    switch (v->type) {
    case PMIX_UNDEF:
        return true;
    case PMIX_BOOL:
        return v->data.flag;
    case PMIX_STRING:
        s = v->data.string;
        if (s == NULL)
            return true;
        if (strcasecmp(s, "false") == 0 || strcasecmp(s, "no") == 0 || strcmp(s, "0") == 0)
            return false;
        return true;
    default:
        if (read_integer(v, &neg, &mag) == PMIX_SUCCESS)
            return mag != 0;
        return true;
    }
}
