/* info.c - pmix_info_t (PMIx_Info_load, PMIx_Info_xfer), info arrays, keys
 * and process identifiers.
 *
 * An info is a bounded key, directive flags and a value. Load and xfer copy
 * deeply, except that xfer of a PMIX_INFO_PERSISTENT source copies the value
 * by reference and keeps the flag (its owner keeps the data; destruct skips
 * it) - the contract PMIx_Info_list_insert relies on.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/typedesc.h"
#include "types/types.h"
#include "util/compiler.h"

void spx_key_load(char *dst, const char *key)
{
    size_t len = key ? strnlen(key, PMIX_MAX_KEYLEN) : 0;

    memset(dst, 0, PMIX_MAX_KEYLEN + 1);
    if (len)
        memcpy(dst, key, len);
}

bool spx_key_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strncmp(a, b, PMIX_MAX_KEYLEN + 1) == 0;
}

bool spx_key_is_reserved(const char *key)
{
    return key != NULL && strncmp(key, "pmix.", 5) == 0;
}

SPX_EXPORT pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key, const void *data,
                                        pmix_data_type_t type)
{
    if (info == NULL || key == NULL)
        return PMIX_ERR_BAD_PARAM;
    spx_key_load(info->key, key);
    info->flags = 0;
    return PMIx_Value_load(&info->value, data, type);
}

SPX_EXPORT pmix_status_t PMIx_Info_xfer(pmix_info_t *dst, const pmix_info_t *src)
{
    if (dst == NULL || src == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (dst == src)
        return PMIX_SUCCESS; /* already there */
    spx_key_load(dst->key, src->key);
    dst->flags = src->flags;
    if (src->flags & PMIX_INFO_PERSISTENT) {
        memcpy(&dst->value, &src->value, sizeof(dst->value));
        return PMIX_SUCCESS;
    }
    return PMIx_Value_xfer(&dst->value, &src->value);
}

bool spx_info_true(const pmix_info_t *info)
{
    return info != NULL && spx_value_true(&info->value);
}

const pmix_info_t *spx_info_find(const pmix_info_t *info, size_t n, const char *key)
{
    if (info == NULL || key == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (spx_key_eq(info[i].key, key))
            return &info[i];
    return NULL;
}

bool spx_info_flag(const pmix_info_t *info, size_t n, const char *key)
{
    return spx_info_true(spx_info_find(info, n, key));
}

const char *spx_info_string(const pmix_info_t *info, size_t n, const char *key)
{
    const pmix_info_t *i = spx_info_find(info, n, key);
    return i && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

pmix_status_t spx_info_array_dup(pmix_info_t **dst, const pmix_info_t *src, size_t n)
{
    pmix_info_t *out;
    pmix_status_t rc;
    size_t i;

    if (dst == NULL)
        return PMIX_ERR_BAD_PARAM;
    *dst = NULL;
    if (n == 0)
        return PMIX_SUCCESS;
    if (src == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (n > SIZE_MAX / sizeof(*out))
        return PMIX_ERR_BAD_PARAM;
    out = calloc(n, sizeof(*out));
    if (out == NULL)
        return PMIX_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        spx_key_load(out[i].key, src[i].key);
        out[i].flags = src[i].flags & ~(pmix_info_directives_t)PMIX_INFO_PERSISTENT;
        rc = PMIx_Value_xfer(&out[i].value, &src[i].value);
        if (rc != PMIX_SUCCESS) {
            spx_info_array_free(out, i);
            return rc;
        }
    }
    *dst = out;
    return PMIX_SUCCESS;
}

void spx_info_array_free(pmix_info_t *info, size_t n)
{
    if (info == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        if (!(info[i].flags & PMIX_INFO_PERSISTENT))
            PMIx_Value_destruct(&info[i].value);
    free(info);
}

void spx_proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t rank)
{
    size_t len = nspace ? strnlen(nspace, PMIX_MAX_NSLEN) : 0;

    memset(p->nspace, 0, sizeof(p->nspace));
    if (len)
        memcpy(p->nspace, nspace, len);
    p->rank = rank;
}

bool spx_nspace_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strncmp(a, b, PMIX_MAX_NSLEN + 1) == 0;
}

bool spx_proc_eq(const pmix_proc_t *a, const pmix_proc_t *b)
{
    if (a == NULL || b == NULL)
        return false;
    return a->rank == b->rank && spx_nspace_eq(a->nspace, b->nspace);
}

bool spx_proc_match(const pmix_proc_t *a, const pmix_proc_t *b)
{
    if (a == NULL || b == NULL || !spx_nspace_eq(a->nspace, b->nspace))
        return false;
    return a->rank == b->rank || a->rank == PMIX_RANK_WILDCARD || b->rank == PMIX_RANK_WILDCARD;
}
