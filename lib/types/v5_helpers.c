/* v5_helpers.c - the small PMIx v5 helper functions: keys, namespaces and
 * process ids (load, check, transfer), argv arrays and environments, the
 * info flag setters/testers and truth tests.
 *
 * PMIx v4 gave these as macros and static inline functions in pmix_common.h
 * (PMIX_LOAD_KEY, PMIX_CHECK_PROCID, pmix_argv_split, pmix_setenv, ...);
 * OpenPMIx 5 made them library functions.  Each one here is that macro or
 * inline helper of our header, so both forms give the same results; NULL
 * object pointers are tolerated (no-op / false) where a macro would crash.
 * Ownership is the helper's: arrays and strings returned are malloc'd and
 * the caller's (PMIx_Argv_free, free).  No library state: any thread.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/types.h"
#include "util/compiler.h"

/* ---- keys, namespaces, process ids */

SPX_EXPORT void PMIx_Load_key(pmix_key_t key, const char *src)
{
    if (key)
        PMIX_LOAD_KEY(key, src);
}

SPX_EXPORT bool PMIx_Check_key(const char *key, const char *str)
{
    if (key == NULL || str == NULL)
        return key == str;
    return strncmp(key, str, PMIX_MAX_KEYLEN) == 0;
}

SPX_EXPORT bool PMIx_Check_reserved_key(const char *key)
{
    return key != NULL && PMIX_CHECK_RESERVED_KEY(key);
}

SPX_EXPORT void PMIx_Load_nspace(pmix_nspace_t nspace, const char *str)
{
    if (nspace)
        PMIX_LOAD_NSPACE(nspace, str);
}

/* An empty or NULL namespace matches any. */
SPX_EXPORT bool PMIx_Check_nspace(const char *key1, const char *key2)
{
    return PMIX_CHECK_NSPACE(key1, key2);
}

SPX_EXPORT bool PMIx_Nspace_invalid(const char *nspace)
{
    return PMIX_NSPACE_INVALID(nspace);
}

SPX_EXPORT void PMIx_Load_procid(pmix_proc_t *p, const char *ns, pmix_rank_t rk)
{
    if (p)
        PMIX_LOAD_PROCID(p, ns, rk);
}

SPX_EXPORT void PMIx_Xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src)
{
    if (dst && src)
        PMIX_XFER_PROCID(dst, src);
}

/* Same namespace (or either empty) and same rank (or either a wildcard). */
SPX_EXPORT bool PMIx_Check_procid(const pmix_proc_t *a, const pmix_proc_t *b)
{
    if (a == NULL || b == NULL)
        return false;
    return PMIX_CHECK_PROCID(a, b);
}

SPX_EXPORT bool PMIx_Check_rank(pmix_rank_t a, pmix_rank_t b)
{
    return PMIX_CHECK_RANK(a, b);
}

SPX_EXPORT bool PMIx_Procid_invalid(const pmix_proc_t *p)
{
    return p == NULL || PMIX_PROCID_INVALID(p);
}

/* target = "cluster:nspace" (empty when that does not fit). */
SPX_EXPORT void PMIx_Multicluster_nspace_construct(pmix_nspace_t target, pmix_nspace_t cluster,
                                                   pmix_nspace_t nspace)
{
    if (target && cluster && nspace)
        PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(target, cluster, nspace);
}

/* The reverse: cluster and nspace from "cluster:nspace". Both are cleared
 * first, so each ends up terminated. */
SPX_EXPORT void PMIx_Multicluster_nspace_parse(pmix_nspace_t target, pmix_nspace_t cluster,
                                               pmix_nspace_t nspace)
{
    if (!target || !cluster || !nspace)
        return;
    memset(cluster, 0, PMIX_MAX_NSLEN + 1);
    memset(nspace, 0, PMIX_MAX_NSLEN + 1);
    size_t i = 0, j = 0;
    while (i < PMIX_MAX_NSLEN && target[i] != '\0' && target[i] != ':') {
        cluster[i] = target[i];
        i++;
    }
    if (target[i] != ':')
        return;
    for (i++; i < PMIX_MAX_NSLEN && target[i] != '\0'; i++)
        nspace[j++] = target[i];
}

/* ---- argv arrays and environments (the pmix_argv_* helpers) */

SPX_EXPORT int PMIx_Argv_count(char **a)
{
    return pmix_argv_count(a);
}

SPX_EXPORT pmix_status_t PMIx_Argv_append_nosize(char ***argv, const char *arg)
{
    return pmix_argv_append_nosize(argv, arg);
}

SPX_EXPORT pmix_status_t PMIx_Argv_prepend_nosize(char ***argv, const char *arg)
{
    return pmix_argv_prepend_nosize(argv, arg);
}

SPX_EXPORT pmix_status_t PMIx_Argv_append_unique_nosize(char ***argv, const char *arg)
{
    return pmix_argv_append_unique_nosize(argv, arg);
}

SPX_EXPORT void PMIx_Argv_free(char **argv)
{
    pmix_argv_free(argv);
}

SPX_EXPORT char **PMIx_Argv_split_inter(const char *src_string, int delimiter,
                                        bool include_empty)
{
    return pmix_argv_split_inter(src_string, delimiter, include_empty);
}

SPX_EXPORT char **PMIx_Argv_split_with_empty(const char *src_string, int delimiter)
{
    return pmix_argv_split_with_empty(src_string, delimiter);
}

SPX_EXPORT char **PMIx_Argv_split(const char *src_string, int delimiter)
{
    return pmix_argv_split(src_string, delimiter);
}

SPX_EXPORT char *PMIx_Argv_join(char **argv, int delimiter)
{
    return pmix_argv_join(argv, delimiter);
}

SPX_EXPORT char **PMIx_Argv_copy(char **argv)
{
    return pmix_argv_copy(argv);
}

SPX_EXPORT pmix_status_t PMIx_Setenv(const char *name, const char *value, bool overwrite,
                                     char ***env)
{
    return pmix_setenv(name, value, overwrite, env);
}

/* ---- truth of values and infos (pmix_check_true) */

SPX_EXPORT pmix_boolean_t PMIx_Value_true(const pmix_value_t *v)
{
    return v ? pmix_check_true(v) : PMIX_NON_BOOL;
}

SPX_EXPORT pmix_boolean_t PMIx_Info_true(const pmix_info_t *p)
{
    return p ? pmix_check_true(&p->value) : PMIX_NON_BOOL;
}

/* ---- info flags */

SPX_EXPORT void PMIx_Info_required(pmix_info_t *p)
{
    if (p)
        PMIX_INFO_REQUIRED(p);
}

SPX_EXPORT bool PMIx_Info_is_required(const pmix_info_t *p)
{
    return p && PMIX_INFO_IS_REQUIRED(p);
}

SPX_EXPORT void PMIx_Info_optional(pmix_info_t *p)
{
    if (p)
        PMIX_INFO_OPTIONAL(p);
}

SPX_EXPORT bool PMIx_Info_is_optional(const pmix_info_t *p)
{
    return p && PMIX_INFO_IS_OPTIONAL(p);
}

SPX_EXPORT void PMIx_Info_processed(pmix_info_t *p)
{
    if (p)
        PMIX_INFO_PROCESSED(p);
}

SPX_EXPORT bool PMIx_Info_was_processed(const pmix_info_t *p)
{
    return p && PMIX_INFO_WAS_PROCESSED(p);
}

SPX_EXPORT void PMIx_Info_set_end(pmix_info_t *p)
{
    if (p)
        PMIX_INFO_SET_END(p);
}

SPX_EXPORT bool PMIx_Info_is_end(const pmix_info_t *p)
{
    return p && PMIX_INFO_IS_END(p);
}

SPX_EXPORT void PMIx_Info_qualifier(pmix_info_t *p)
{
    if (p)
        PMIX_INFO_SET_QUALIFIER(p);
}

SPX_EXPORT bool PMIx_Info_is_qualifier(const pmix_info_t *p)
{
    return p && PMIX_INFO_IS_QUALIFIER(p);
}

SPX_EXPORT void PMIx_Info_persistent(pmix_info_t *p)
{
    if (p)
        PMIX_INFO_SET_PERSISTENT(p);
}

SPX_EXPORT bool PMIx_Info_is_persistent(const pmix_info_t *p)
{
    return p && PMIX_INFO_IS_PERSISTENT(p);
}
