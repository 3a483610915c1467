/* info_list.c - PMIx_Info_list_*: an opaque growable list of infos that an
 * application fills and finally converts into a pmix_data_array_t of
 * PMIX_INFO.
 *
 * add and xfer copy into the list (the list owns the copies); insert keeps
 * the caller's info by reference (the entry is marked PMIX_INFO_PERSISTENT,
 * so neither the list nor a converted array frees its value: the caller
 * still owns it). convert copies everything out; release frees the list and
 * what it owns. PMIx v5 adds prepend (add at the front) and get_info (walk
 * the entries in order).
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/types.h"
#include "util/compiler.h"

#define SPX_INFO_LIST_MAGIC 0x5350494cu /* "SPIL": catches foreign pointers */

struct spx_info_list {
    uint32_t magic;
    size_t n, cap;
    pmix_info_t *items;
};

static struct spx_info_list *as_list(void *ptr)
{
    struct spx_info_list *l = ptr;

    return (l && l->magic == SPX_INFO_LIST_MAGIC) ? l : NULL;
}

/* Returns a zeroed slot at the end, growing the array; NULL on ENOMEM. */
static pmix_info_t *grow(struct spx_info_list *l)
{
    pmix_info_t *items;
    size_t cap;

    if (l->n == l->cap) {
        cap = l->cap ? l->cap * 2 : 8;
        if (cap > SIZE_MAX / sizeof(*items))
            return NULL;
        items = realloc(l->items, cap * sizeof(*items));
        if (items == NULL)
            return NULL;
        l->items = items;
        l->cap = cap;
    }
    memset(&l->items[l->n], 0, sizeof(l->items[0]));
    return &l->items[l->n];
}

SPX_EXPORT void *PMIx_Info_list_start(void)
{
    struct spx_info_list *l = calloc(1, sizeof(*l));

    if (l)
        l->magic = SPX_INFO_LIST_MAGIC;
    return l;
}

SPX_EXPORT pmix_status_t PMIx_Info_list_add(void *ptr, const char *key, const void *value,
                                            pmix_data_type_t type)
{
    struct spx_info_list *l = as_list(ptr);
    pmix_info_t *slot;
    pmix_status_t rc;

    if (l == NULL || key == NULL)
        return PMIX_ERR_BAD_PARAM;
    if ((slot = grow(l)) == NULL)
        return PMIX_ERR_NOMEM;
    rc = PMIx_Info_load(slot, key, value, type);
    if (rc == PMIX_SUCCESS)
        l->n++;
    return rc;
}

/* PMIx v5: as _add, but the new entry goes first. */
SPX_EXPORT pmix_status_t PMIx_Info_list_prepend(void *ptr, const char *key, const void *value,
                                                pmix_data_type_t type)
{
    struct spx_info_list *l = as_list(ptr);
    pmix_info_t entry;
    pmix_status_t rc;

    if (l == NULL || key == NULL)
        return PMIX_ERR_BAD_PARAM;
    if (grow(l) == NULL)
        return PMIX_ERR_NOMEM;
    memset(&entry, 0, sizeof(entry));
    if ((rc = PMIx_Info_load(&entry, key, value, type)) != PMIX_SUCCESS)
        return rc;
    memmove(&l->items[1], &l->items[0], l->n * sizeof(l->items[0]));
    l->items[0] = entry;
    l->n++;
    return PMIX_SUCCESS;
}

/* PMIx v5 iteration: prev NULL gives the first entry, else prev is what the
 * last call put into *next; *next becomes the following entry or NULL after
 * the last.  Returns the entry (borrowed, valid until the list changes), or
 * NULL (and *next NULL) for an empty list or a prev that is not an entry. */
SPX_EXPORT pmix_info_t *PMIx_Info_list_get_info(void *ptr, void *prev, void **next)
{
    struct spx_info_list *l = as_list(ptr);
    size_t i = 0;

    if (next)
        *next = NULL;
    if (l == NULL || l->n == 0)
        return NULL;
    if (prev) {
        pmix_info_t *p = prev;
        if (p < l->items || p >= l->items + l->n)
            return NULL;
        i = (size_t)(p - l->items);
    }
    if (next && i + 1 < l->n)
        *next = &l->items[i + 1];
    return &l->items[i];
}

SPX_EXPORT pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info)
{
    struct spx_info_list *l = as_list(ptr);
    pmix_info_t *slot;

    if (l == NULL || info == NULL)
        return PMIX_ERR_BAD_PARAM;
    if ((slot = grow(l)) == NULL)
        return PMIX_ERR_NOMEM;
    memcpy(slot, info, sizeof(*slot));
    slot->flags |= PMIX_INFO_PERSISTENT;
    l->n++;
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info)
{
    struct spx_info_list *l = as_list(ptr);
    pmix_info_t *slot;
    pmix_status_t rc;

    if (l == NULL || info == NULL)
        return PMIX_ERR_BAD_PARAM;
    if ((slot = grow(l)) == NULL)
        return PMIX_ERR_NOMEM;
    rc = PMIx_Info_xfer(slot, info);
    if (rc == PMIX_SUCCESS)
        l->n++;
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par)
{
    struct spx_info_list *l = as_list(ptr);
    pmix_info_t *array;
    pmix_status_t rc;
    size_t i;

    if (l == NULL || par == NULL)
        return PMIX_ERR_BAD_PARAM;
    par->type = PMIX_INFO;
    par->size = 0;
    par->array = NULL;
    if (l->n == 0)
        return PMIX_ERR_EMPTY;
    array = calloc(l->n, sizeof(*array));
    if (array == NULL)
        return PMIX_ERR_NOMEM;
    for (i = 0; i < l->n; i++) {
        rc = PMIx_Info_xfer(&array[i], &l->items[i]);
        if (rc != PMIX_SUCCESS) {
            spx_info_array_free(array, i);
            return rc;
        }
    }
    par->size = l->n;
    par->array = array;
    return PMIX_SUCCESS;
}

SPX_EXPORT void PMIx_Info_list_release(void *ptr)
{
    struct spx_info_list *l = as_list(ptr);

    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n; i++)
        if (!(l->items[i].flags & PMIX_INFO_PERSISTENT))
            PMIx_Value_destruct(&l->items[i].value);
    free(l->items);
    l->magic = 0;
    free(l);
}
