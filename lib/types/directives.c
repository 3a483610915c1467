/* directives.c - the PMIX_INFO_REQD rule for every call that takes directives.
 *
 * A caller flags a directive PMIX_INFO_REQD when the call must not go ahead
 * without honouring it. Each public entry point that takes directives names
 * the keys it honours (a NULL-terminated list next to the call) and asks
 * spx_directives_check() on the caller's thread, before any work is queued:
 * a required directive outside that list fails the call at once with
 * PMIX_ERR_NOT_SUPPORTED (a non-blocking form then never calls back).
 * Directives not flagged required are hints and are ignored when unknown,
 * as the PMIx Standard says.
 */
#include "config.h"

#include <string.h>

#include "types/types.h"
#include "util/log.h"

static bool key_listed(const char *key, const char *const supported[])
{
    for (size_t i = 0; supported && supported[i]; i++)
        if (strncmp(key, supported[i], PMIX_MAX_KEYLEN) == 0)
            return true;
    return false;
}

pmix_status_t spx_directives_check(const char *call, const pmix_info_t info[], size_t ninfo,
                                   const char *const supported[])
{
    if (!info)
        return PMIX_SUCCESS;
    for (size_t i = 0; i < ninfo; i++) {
        if (!PMIX_INFO_IS_REQUIRED(&info[i]) || key_listed(info[i].key, supported))
            continue;
        spx_error("%s: required directive '%.*s' is not supported", call, PMIX_MAX_KEYLEN,
                  info[i].key);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return PMIX_SUCCESS;
}
