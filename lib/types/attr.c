/* attr.c - PMIx_Get_attribute_string / PMIx_Get_attribute_name: the two-way
 * map between attribute macro names ("PMIX_JOB_SIZE") and the key strings
 * they stand for ("pmix.job.size").
 *
 * The table is generated at build time from include/pmix_common.h by
 * attr_gen.awk (attr_table.c in the build directory), so it always matches
 * the header the library is built with. When several names share a key
 * string the first in header order wins. Unknown input comes back
 * unchanged, as OpenPMIx does.
 */
#include <string.h>

#include <pmix.h>

#include "types/types.h"
#include "util/compiler.h"

extern const char *const spx_attr_table[][2];
extern const size_t spx_attr_table_len;

SPX_EXPORT const char *PMIx_Get_attribute_string(const char *attribute)
{
    if (attribute == NULL)
        return "UNKNOWN";
    for (size_t i = 0; i < spx_attr_table_len; i++)
        if (strcmp(spx_attr_table[i][0], attribute) == 0)
            return spx_attr_table[i][1];
    return attribute;
}

SPX_EXPORT const char *PMIx_Get_attribute_name(const char *attrstring)
{
    if (attrstring == NULL)
        return "UNKNOWN";
    for (size_t i = 0; i < spx_attr_table_len; i++)
        if (strcmp(spx_attr_table[i][1], attrstring) == 0)
            return spx_attr_table[i][0];
    return attrstring;
}
