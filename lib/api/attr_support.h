/* attr_support.h - the attributes (directives, qualifiers) each PMIx function
 * of this library honours, and the answer to PMIx_Query_info's
 * PMIX_QUERY_ATTRIBUTE_SUPPORT built from them (attr_support.c).
 *
 * The table is a property of the library: any process (client, tool,
 * server, before or after init) gets the same answer, with no server
 * round trip. It lists what the code reads: for a function that checks
 * PMIX_INFO_REQD directives, exactly the list it checks
 * (types/directives.c); test/integration/attrs.sh compares the two.
 */
#ifndef SPX_API_ATTR_SUPPORT_H
#define SPX_API_ATTR_SUPPORT_H

#include <stddef.h>

#include <pmix.h>

/* One attribute: its macro name, key string, value type, one line on what
 * this library does with it. Static data. */
struct spx_attr {
    const char *name;
    const char *string;
    pmix_data_type_t type;
    const char *descr;
};

/* One function and the attributes it honours (NULL-terminated; empty when it
 * takes none). Static data. */
struct spx_attr_fn {
    const char *function;
    const struct spx_attr *const *attrs;
};

/* One level of the query: client, server, tool or host functions. */
struct spx_attr_level {
    const char *attrs_key; /* PMIX_CLIENT_ATTRIBUTES, ... (qualifier) */
    const char *fns_key;   /* PMIX_CLIENT_FUNCTIONS, ... (qualifier and answer key) */
    const struct spx_attr_fn *fns;
    size_t nfns;
};

/* The four levels: client, server, tool, host (the host's own functions are
 * not known to the library: that level is empty). */
extern const struct spx_attr_level spx_attr_levels[];
extern const size_t spx_attr_nlevels;

/* Checks the qualifiers of a PMIX_QUERY_ATTRIBUTE_SUPPORT query on the
 * caller's thread: PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a *_ATTRIBUTES
 * qualifier that is not a string (or bool); PMIX_ERR_NOT_FOUND when a
 * function it names is not in that level's table or when the answer would
 * be empty. Qualifiers not of this query (e.g. PMIX_NSPACE) are ignored. */
pmix_status_t spx_attr_support_check(const pmix_info_t *qual, size_t nqual);

/* Loads out (constructed by the caller, who destructs it) with key
 * PMIX_QUERY_ATTRIBUTE_SUPPORT and a PMIX_DATA_ARRAY of pmix_info_t: per
 * function asked, key = function name, value = PMIX_DATA_ARRAY of
 * PMIX_REGATTR (one named "NONE" when it honours none); per *_FUNCTIONS
 * asked, key = that qualifier, value = comma-separated function names. No
 * qualifier: every function of every level and every level's list.
 * PMIX_SUCCESS, PMIX_ERR_NOMEM, or what spx_attr_support_check returns. */
pmix_status_t spx_attr_support_answer(const pmix_info_t *qual, size_t nqual, pmix_info_t *out);

#endif
