/* directives.c - the PMIX_INFO_REQD rule for every call that takes directives.
 *
 * A caller flags a directive PMIX_INFO_REQD when the call must not go ahead
 * without honouring it. Each public entry point that takes directives names
 * the keys it honours (a NULL-terminated list next to the call) and asks
 * spx_directives_check() on the caller's thread, before any work is queued:
 * a required directive outside that list fails the call at once with
 * PMIX_ERR_NOT_SUPPORTED (a non-blocking form then never calls back).
 * Directives not flagged required are hints and are ignored when unknown,
 * as the PMIx Standard says. Calls whose array mixes user data with
 * directives (PMIx_Publish, PMIx_Notify_event) apply the rule to reserved
 * ("pmix."-prefixed) keys only: a user's own key is data, not a directive.
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

static pmix_status_t check(const char *call, const pmix_info_t info[], size_t ninfo,
                           const char *const supported[], bool reserved_only)
{
    if (!info)
        return PMIX_SUCCESS;
    for (size_t i = 0; i < ninfo; i++) {
        if (!PMIX_INFO_IS_REQUIRED(&info[i]) || key_listed(info[i].key, supported))
            continue;
        if (reserved_only && strncmp(info[i].key, "pmix.", 5) != 0)
            continue;
        spx_error("%s: required directive '%.*s' is not supported", call, PMIX_MAX_KEYLEN,
                  info[i].key);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return PMIX_SUCCESS;
}

pmix_status_t spx_directives_check(const char *call, const pmix_info_t info[], size_t ninfo,
                                   const char *const supported[])
{
    return check(call, info, ninfo, supported, false);
}

pmix_status_t spx_directives_check_reserved(const char *call, const pmix_info_t info[],
                                            size_t ninfo, const char *const supported[])
{
    return check(call, info, ninfo, supported, true);
}
