/* darray.c - pmix_data_array_t deep copy and release.
 *
 * A data array is (type, size, array of size elements of that type). Copies
 * allocate one block of size * element-size bytes and copy each element
 * with the type's descriptor, so nested arrays, infos and values are deep.
 * Destruct releases each element, then the block, and leaves the struct
 * empty (UNDEF, 0, NULL); the struct itself belongs to the caller.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/typedesc.h"
#include "types/types.h"
#include "util/compiler.h"

static void release_elems(const struct spx_typedesc *td, void *array, size_t n)
{
    if (td->release == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        td->release((char *)array + i * td->size);
}

pmix_status_t spx_darray_copy(pmix_data_array_t *dst, const pmix_data_array_t *src)
{
    const struct spx_typedesc *td;
    size_t i, n;
    char *block;
    pmix_status_t rc;

    if (dst == NULL || src == NULL || dst == src)
        return PMIX_ERR_BAD_PARAM;
    memset(dst, 0, sizeof(*dst));
    n = src->array ? src->size : 0;
    if (n == 0) {
        dst->type = src->type;
        return PMIX_SUCCESS;
    }
    td = spx_typedesc_get(src->type);
    if (td == NULL || td->size == 0)
        return PMIX_ERR_NOT_SUPPORTED;
    if (n > SIZE_MAX / td->size)
        return PMIX_ERR_BAD_PARAM;
    block = calloc(n, td->size);
    if (block == NULL)
        return PMIX_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        rc = spx_td_elem_copy(td, block + i * td->size, (const char *)src->array + i * td->size);
        if (rc != PMIX_SUCCESS) {
            release_elems(td, block, i);
            free(block);
            return rc;
        }
    }
    dst->type = src->type;
    dst->size = n;
    dst->array = block;
    return PMIX_SUCCESS;
}

SPX_EXPORT void PMIx_Data_array_destruct(pmix_data_array_t *d)
{
    const struct spx_typedesc *td;

    if (d == NULL)
        return;
    td = spx_typedesc_get(d->type);
    if (d->array && td)
        release_elems(td, d->array, d->size);
    free(d->array);
    d->array = NULL;
    d->size = 0;
    d->type = PMIX_UNDEF;
}
