/* psets.c - the answer to the process-set queries (psets.h). */
#include "config.h"

#include "api/psets.h"

#include "types/types.h"

bool spx_psets_query_answer(const char *key, pmix_info_t *out)
{
    if (spx_key_eq(key, PMIX_QUERY_NUM_PSETS)) {
        size_t none = 0;
        PMIx_Info_load(out, PMIX_QUERY_NUM_PSETS, &none, PMIX_SIZE);
        return true;
    }
    if (spx_key_eq(key, PMIX_QUERY_PSET_NAMES)) {
        PMIx_Info_load(out, PMIX_QUERY_PSET_NAMES, "", PMIX_STRING);
        return out->value.data.string != NULL; /* else out of memory */
    }
    return false;
}
