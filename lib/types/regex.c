/* regex.c - PMIx_generate_regex / PMIx_generate_ppn and their parsers, and
 * the pmix_regex2_t forms of later PMIx releases (PMIx_generate_regex2,
 * PMIx_parse_regex2, PMIx_Regex2_construct/destruct).
 *
 * A host passes the node list ("n1,n2,n3") and the per-node rank lists
 * ("0,1;2,3") to the generators and puts the results in PMIX_NODE_MAP and
 * PMIX_PROC_MAP; the resolve functions and the job-info code parse them back
 * with spx_regex_parse / spx_ppn_parse. Our format is deliberately simple:
 * SPX_REGEX_PREFIX followed by the list unchanged. Parsers accept that, the
 * bare list, and OpenPMIx's uncompressed "raw:" form; OpenPMIx's compressed
 * "pmix[...]" and "blob:" forms are refused.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "types/maps.h"
#include "types/types.h"
#include "util/compiler.h"

/* *out: malloc'd prefix + input; caller frees with free(). */
static pmix_status_t wrap(const char *input, char **out)
{
    size_t plen = strlen(SPX_REGEX_PREFIX), ilen;
    char *s;

    if (out == NULL)
        return PMIX_ERR_BAD_PARAM;
    *out = NULL;
    if (input == NULL)
        return PMIX_ERR_BAD_PARAM;
    ilen = strlen(input);
    s = malloc(plen + ilen + 1);
    if (s == NULL)
        return PMIX_ERR_NOMEM;
    memcpy(s, SPX_REGEX_PREFIX, plen);
    memcpy(s + plen, input, ilen + 1);
    *out = s;
    return PMIX_SUCCESS;
}

/* The compact forms of types/maps.h when the input fits them, else our
 * older form (the list unchanged). */
SPX_EXPORT pmix_status_t PMIx_generate_regex(const char *input, char **regex)
{
    if (regex && input && spx_nodemap_compress(input, regex) == PMIX_SUCCESS)
        return PMIX_SUCCESS;
    return wrap(input, regex);
}

SPX_EXPORT pmix_status_t PMIx_generate_ppn(const char *input, char **ppn)
{
    if (ppn && input && spx_procmap_compress(input, ppn) == PMIX_SUCCESS)
        return PMIX_SUCCESS;
    return wrap(input, ppn);
}

/* The type name of our regex2 encoding: the bytes are our regex string. */
#define SPX_REGEX2_TYPE "spmix"

/* Returns the list part of a regex, or NULL for a foreign format. */
static const char *strip_prefix(const char *s)
{
    static const char *const known[] = { SPX_REGEX_PREFIX, "raw:" };

    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strncmp(s, known[i], strlen(known[i])) == 0)
            return s + strlen(known[i]);
    if (strchr(s, ':') || strchr(s, '[') || strchr(s, ']'))
        return NULL; /* "pmix[...]", "blob:..." or something else */
    return s;
}

/* Splits s at sep into a NULL-terminated malloc'd argv; empty items are
 * dropped unless keep_empty. An empty s gives an empty argv. */
static pmix_status_t split(const char *s, char sep, bool keep_empty, char ***argv)
{
    size_t n = 1, k = 0, len;
    const char *p, *end;
    char **v;

    for (p = s; *p; p++)
        if (*p == sep)
            n++;
    v = calloc(n + 1, sizeof(*v));
    if (v == NULL)
        return PMIX_ERR_NOMEM;
    if (*s == '\0') {
        *argv = v;
        return PMIX_SUCCESS;
    }
    for (p = s;; p = end + 1) {
        end = strchr(p, sep);
        len = end ? (size_t)(end - p) : strlen(p);
        if (len || keep_empty) {
            v[k] = strndup(p, len);
            if (v[k] == NULL) {
                spx_regex_free(v);
                return PMIX_ERR_NOMEM;
            }
            k++;
        }
        if (end == NULL)
            break;
    }
    *argv = v;
    return PMIX_SUCCESS;
}

/* The compact forms written out, one argv entry per node. */
static pmix_status_t expand_nodes(const char *s, char ***argv)
{
    spx_nodemap_t m;
    pmix_status_t rc = spx_nodemap_parse(s, &m);
    char **v = rc == PMIX_SUCCESS ? calloc((size_t)m.nnodes + 1, sizeof(*v)) : NULL;
    if (rc == PMIX_SUCCESS && !v)
        rc = PMIX_ERR_NOMEM;
    for (uint32_t i = 0; rc == PMIX_SUCCESS && i < m.nnodes; i++)
        if (!(v[i] = spx_nodemap_name(&m, i)))
            rc = PMIX_ERR_NOMEM;
    spx_nodemap_fini(&m);
    if (rc != PMIX_SUCCESS)
        spx_argv_free(v);
    else
        *argv = v;
    return rc;
}

static pmix_status_t expand_procs(const char *s, char ***argv)
{
    spx_procmap_t m;
    pmix_status_t rc = spx_procmap_parse(s, &m);
    char **v = rc == PMIX_SUCCESS ? calloc((size_t)m.nnodes + 1, sizeof(*v)) : NULL;
    if (rc == PMIX_SUCCESS && !v)
        rc = PMIX_ERR_NOMEM;
    for (uint32_t i = 0; rc == PMIX_SUCCESS && i < m.nnodes; i++)
        if (!(v[i] = spx_procmap_node_list(&m, i)))
            rc = PMIX_ERR_NOMEM;
    spx_procmap_fini(&m);
    if (rc != PMIX_SUCCESS)
        spx_argv_free(v);
    else
        *argv = v;
    return rc;
}

static bool is_compact(const char *s)
{
    return strncmp(s, SPX_MAPS_PREFIX, strlen(SPX_MAPS_PREFIX)) == 0;
}

pmix_status_t spx_regex_parse(const char *regex, char ***argv)
{
    const char *list;

    if (argv == NULL)
        return PMIX_ERR_BAD_PARAM;
    *argv = NULL;
    if (regex != NULL && is_compact(regex))
        return expand_nodes(regex, argv);
    if (regex == NULL || (list = strip_prefix(regex)) == NULL)
        return PMIX_ERR_BAD_PARAM;
    return split(list, ',', false, argv);
}

pmix_status_t spx_ppn_parse(const char *ppn, char ***argv)
{
    const char *list;

    if (argv == NULL)
        return PMIX_ERR_BAD_PARAM;
    *argv = NULL;
    if (ppn != NULL && is_compact(ppn))
        return expand_procs(ppn, argv);
    if (ppn == NULL || (list = strip_prefix(ppn)) == NULL)
        return PMIX_ERR_BAD_PARAM;
    return split(list, ';', true, argv);
}

size_t spx_regex_count(char *const *argv)
{
    size_t n = 0;

    while (argv && argv[n])
        n++;
    return n;
}

void spx_regex_free(char **argv)
{
    spx_argv_free(argv);
}

SPX_EXPORT void PMIx_Regex2_construct(pmix_regex2_t *d)
{
    if (d)
        memset(d, 0, sizeof(*d));
}

SPX_EXPORT void PMIx_Regex2_destruct(pmix_regex2_t *d)
{
    if (!d)
        return;
    free(d->type);
    free(d->bytes);
    memset(d, 0, sizeof(*d));
}

/* regex->type "spmix", regex->bytes our regex string with its NUL (len
 * counts it). info is ignored: there is one encoding. */
SPX_EXPORT pmix_status_t PMIx_generate_regex2(const char *input, pmix_info_t info[], size_t ninfo,
                                              pmix_regex2_t *regex)
{
    char *s;
    pmix_status_t rc;

    (void)info;
    (void)ninfo;
    if (regex == NULL)
        return PMIX_ERR_BAD_PARAM;
    PMIx_Regex2_construct(regex);
    if ((rc = wrap(input, &s)) != PMIX_SUCCESS)
        return rc;
    regex->type = strdup(SPX_REGEX2_TYPE);
    if (regex->type == NULL) {
        free(s);
        return PMIX_ERR_NOMEM;
    }
    regex->bytes = (uint8_t *)s;
    regex->len = strlen(s) + 1;
    return PMIX_SUCCESS;
}

/* Accepts our "spmix" encoding and the uncompressed "raw" one; the bytes
 * need not end in a NUL, but may hold none before their end. */
SPX_EXPORT pmix_status_t PMIx_parse_regex2(const pmix_regex2_t *regex, pmix_info_t info[],
                                           size_t ninfo, char **output)
{
    const char *list;
    char *text;
    size_t len;

    (void)info;
    (void)ninfo;
    if (output == NULL)
        return PMIX_ERR_BAD_PARAM;
    *output = NULL;
    if (regex == NULL || regex->type == NULL || (regex->bytes == NULL && regex->len > 0))
        return PMIX_ERR_BAD_PARAM;
    if (strcmp(regex->type, SPX_REGEX2_TYPE) != 0 && strcmp(regex->type, "raw") != 0)
        return PMIX_ERR_NOT_SUPPORTED; /* OpenPMIx's compressed encodings */
    len = regex->len;
    if (len > 0 && regex->bytes[len - 1] == '\0')
        len--;
    if (len > 0 && memchr(regex->bytes, '\0', len) != NULL)
        return PMIX_ERR_BAD_PARAM;
    text = malloc(len + 1);
    if (text == NULL)
        return PMIX_ERR_NOMEM;
    if (len > 0)
        memcpy(text, regex->bytes, len);
    text[len] = '\0';
    list = strip_prefix(text);
    if (list == NULL) {
        free(text);
        return PMIX_ERR_BAD_PARAM;
    }
    memmove(text, list, strlen(list) + 1);
    *output = text;
    return PMIX_SUCCESS;
}
