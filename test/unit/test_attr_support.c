/* test_attr_support.c - the table of attributes each function honours
 * (lib/api/attr_support.c) and its PMIx_Query_info answer
 * (PMIX_QUERY_ATTRIBUTE_SUPPORT, lib/client/client_query.c), without a server:
 *  - every attribute of the table is a PMIx attribute (PMIx_Get_attribute_name
 *    and _string map its name and key string to each other) and its type is
 *    the one include/pmix_common.h gives it;
 *  - no function of the table is one lib/api/unsupported.c answers with
 *    PMIX_ERR_NOT_SUPPORTED;
 *  - the query's answer: PMIx_Fence has PMIX_COLLECT_DATA and PMIX_TIMEOUT,
 *    PMIx_IOF_push PMIX_IOF_COMPLETE and PMIX_IOF_PUSH_STDIN, "all", function
 *    lists, a function honouring nothing; unknown functions and malformed
 *    qualifiers fail with a clear status.
 * The sources are read from $SPX_TOP_SRCDIR (set by make check).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "api/attr_support.h"

static const char *srcdir(void)
{
    const char *d = getenv("SPX_TOP_SRCDIR");
    return d && *d ? d : ".";
}

static char *slurp(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", srcdir(), rel);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s (set SPX_TOP_SRCDIR)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc(1, (size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

START_TEST(attrs_exist)
{
    size_t count = 0;
    for (size_t l = 0; l < spx_attr_nlevels; l++)
        for (size_t i = 0; i < spx_attr_levels[l].nfns; i++)
            for (const struct spx_attr *const *a = spx_attr_levels[l].fns[i].attrs; *a; a++) {
                ck_assert_msg(strcmp(PMIx_Get_attribute_name((*a)->string), (*a)->name) == 0,
                              "%s: '%s' is not the key of a PMIx attribute named %s",
                              spx_attr_levels[l].fns[i].function, (*a)->string, (*a)->name);
                ck_assert_str_eq(PMIx_Get_attribute_string((*a)->name), (*a)->string);
                ck_assert_msg((*a)->descr && (*a)->descr[0], "%s has no description", (*a)->name);
                count++;
            }
    ck_assert_uint_gt(count, 50);
}
END_TEST

/* The PMIx type the header's comment after name gives, or PMIX_UNDEF. */
static pmix_data_type_t header_type(const char *hdr, const char *name)
{
    static const struct {
        const char *c;
        pmix_data_type_t t;
    } map[] = {{"bool", PMIX_BOOL},
               {"int", PMIX_INT},
               {"uint32_t", PMIX_UINT32},
               {"size_t", PMIX_SIZE},
               {"char*", PMIX_STRING},
               {"pmix_data_range_t", PMIX_DATA_RANGE},
               {"pmix_persistence_t", PMIX_PERSIST},
               {"pmix_data_array_t*", PMIX_DATA_ARRAY},
               {"pmix_proc_t*", PMIX_PROC},
               {"pmix_topology_t*", PMIX_TOPO},
               {"void*", PMIX_POINTER},
               {"time_t", PMIX_TIME},
               {"pmix_device_type_t", PMIX_DEVTYPE},
               {"pid_t", PMIX_PID},
               {"pmix_rank_t", PMIX_PROC_RANK}};
    char pat[256];
    snprintf(pat, sizeof(pat), "#define %s ", name);
    const char *p = strstr(hdr, pat);
    ck_assert_msg(p != NULL, "%s is not defined in pmix_common.h", name);
    const char *c = strstr(p, "/*"), *eol = strchr(p, '\n');
    if (!c || (eol && c > eol))
        return PMIX_UNDEF;
    c += 2;
    while (*c == ' ')
        c++;
    size_t len = strcspn(c, " *\n");
    if (c[len] == '*' && c[len + 1] != '/')
        len++; /* "char*" */
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strlen(map[i].c) == len && strncmp(map[i].c, c, len) == 0)
            return map[i].t;
    return PMIX_UNDEF;
}

START_TEST(attr_types_match_header)
{
    char *hdr = slurp("include/pmix_common.h");
    for (size_t l = 0; l < spx_attr_nlevels; l++)
        for (size_t i = 0; i < spx_attr_levels[l].nfns; i++)
            for (const struct spx_attr *const *a = spx_attr_levels[l].fns[i].attrs; *a; a++) {
                pmix_data_type_t t = header_type(hdr, (*a)->name);
                ck_assert_msg(t == (*a)->type, "%s: type %s, pmix_common.h says %s", (*a)->name,
                              PMIx_Data_type_string((*a)->type), PMIx_Data_type_string(t));
            }
    free(hdr);
}
END_TEST

START_TEST(no_unsupported_function)
{
    char *src = slurp("lib/api/unsupported.c");
    size_t nfns = 0;
    for (size_t l = 0; l < spx_attr_nlevels; l++)
        for (size_t i = 0; i < spx_attr_levels[l].nfns; i++, nfns++) {
            char pat[256];
            snprintf(pat, sizeof(pat), " %s(", spx_attr_levels[l].fns[i].function);
            ck_assert_msg(strstr(src, pat) == NULL,
                          "%s is in the table but lib/api/unsupported.c makes it fail",
                          spx_attr_levels[l].fns[i].function);
        }
    ck_assert_uint_gt(nfns, 30);
    free(src);
}
END_TEST

/* Runs the query with one qualifier (key NULL: none); returns its status,
 * the answer in *res. */
static pmix_status_t ask(const char *qkey, const char *qval, pmix_info_t **res, size_t *nres)
{
    pmix_query_t q;
    char *keys[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL};
    pmix_info_t qual;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = keys;
    if (qkey) {
        PMIX_INFO_LOAD(&qual, qkey, qval, PMIX_STRING);
        q.qualifiers = &qual;
        q.nqual = 1;
    }
    *res = NULL;
    *nres = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    if (qkey)
        PMIX_INFO_DESTRUCT(&qual);
    return rc;
}

/* The entry key of the answer (an info array), or NULL. */
static const pmix_info_t *entry(const pmix_info_t *res, size_t nres, const char *key)
{
    ck_assert_uint_eq(nres, 1);
    ck_assert_str_eq(res[0].key, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    ck_assert_int_eq(res[0].value.type, PMIX_DATA_ARRAY);
    const pmix_data_array_t *d = res[0].value.data.darray;
    ck_assert_int_eq(d->type, PMIX_INFO);
    const pmix_info_t *e = d->array;
    for (size_t i = 0; i < d->size; i++)
        if (strcmp(e[i].key, key) == 0)
            return &e[i];
    return NULL;
}

/* True if function entry e lists attribute name with key string key. */
static bool has_attr(const pmix_info_t *e, const char *name, const char *key)
{
    ck_assert_int_eq(e->value.type, PMIX_DATA_ARRAY);
    const pmix_data_array_t *d = e->value.data.darray;
    ck_assert_int_eq(d->type, PMIX_REGATTR);
    const pmix_regattr_t *ra = d->array;
    for (size_t i = 0; i < d->size; i++)
        if (strcmp(ra[i].name, name) == 0 && strcmp(ra[i].string, key) == 0 &&
            ra[i].description && ra[i].description[0])
            return true;
    return false;
}

START_TEST(query_one_function)
{
    pmix_info_t *res;
    size_t nres;
    ck_assert_int_eq(ask(PMIX_CLIENT_ATTRIBUTES, "PMIx_Fence", &res, &nres), PMIX_SUCCESS);
    const pmix_info_t *f = entry(res, nres, "PMIx_Fence");
    ck_assert_ptr_nonnull(f);
    ck_assert(has_attr(f, "PMIX_COLLECT_DATA", PMIX_COLLECT_DATA));
    ck_assert(has_attr(f, "PMIX_TIMEOUT", PMIX_TIMEOUT));
    ck_assert_uint_eq(res[0].value.data.darray->size, 1); /* only what was asked */
    PMIX_INFO_FREE(res, nres);

    ck_assert_int_eq(ask(PMIX_TOOL_ATTRIBUTES, "PMIx_IOF_push,PMIx_tool_init", &res, &nres),
                     PMIX_SUCCESS);
    const pmix_info_t *p = entry(res, nres, "PMIx_IOF_push");
    ck_assert_ptr_nonnull(p);
    ck_assert(has_attr(p, "PMIX_IOF_COMPLETE", PMIX_IOF_COMPLETE));
    ck_assert(has_attr(p, "PMIX_IOF_PUSH_STDIN", PMIX_IOF_PUSH_STDIN));
    ck_assert_ptr_nonnull(entry(res, nres, "PMIx_tool_init"));
    ck_assert_uint_eq(res[0].value.data.darray->size, 2);
    PMIX_INFO_FREE(res, nres);
}
END_TEST

START_TEST(query_all_and_lists)
{
    pmix_info_t *res;
    size_t nres;
    /* no qualifier: every level's functions and lists */
    ck_assert_int_eq(ask(NULL, NULL, &res, &nres), PMIX_SUCCESS);
    ck_assert_ptr_nonnull(entry(res, nres, "PMIx_Get"));
    ck_assert_ptr_nonnull(entry(res, nres, "PMIx_server_init"));
    ck_assert_ptr_nonnull(entry(res, nres, "PMIx_IOF_push"));
    const pmix_info_t *fl = entry(res, nres, PMIX_CLIENT_FUNCTIONS);
    ck_assert_ptr_nonnull(fl);
    ck_assert_int_eq(fl->value.type, PMIX_STRING);
    ck_assert_ptr_nonnull(strstr(fl->value.data.string, "PMIx_Fence,"));
    ck_assert_ptr_null(entry(res, nres, PMIX_HOST_FUNCTIONS)); /* none known */
    PMIX_INFO_FREE(res, nres);

    /* a function honouring nothing: one regattr named NONE */
    ck_assert_int_eq(ask(PMIX_CLIENT_ATTRIBUTES, "PMIx_Finalize", &res, &nres), PMIX_SUCCESS);
    const pmix_info_t *f = entry(res, nres, "PMIx_Finalize");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->value.data.darray->size, 1);
    ck_assert_str_eq(((pmix_regattr_t *)f->value.data.darray->array)[0].name, "NONE");
    PMIX_INFO_FREE(res, nres);

    /* "all" of one level */
    ck_assert_int_eq(ask(PMIX_SERVER_ATTRIBUTES, "all", &res, &nres), PMIX_SUCCESS);
    ck_assert_ptr_nonnull(entry(res, nres, "PMIx_server_init"));
    ck_assert_ptr_null(entry(res, nres, "PMIx_Fence"));
    PMIX_INFO_FREE(res, nres);
}
END_TEST

START_TEST(query_errors)
{
    pmix_info_t *res;
    size_t nres;
    ck_assert_int_eq(ask(PMIX_CLIENT_ATTRIBUTES, "PMIx_No_such_call", &res, &nres),
                     PMIX_ERR_NOT_FOUND);
    ck_assert_ptr_null(res);
    /* one unknown among known ones fails too */
    ck_assert_int_eq(ask(PMIX_CLIENT_ATTRIBUTES, "PMIx_Fence,PMIx_Fencee", &res, &nres),
                     PMIX_ERR_NOT_FOUND);
    /* a tool function asked at the client level */
    ck_assert_int_eq(ask(PMIX_CLIENT_ATTRIBUTES, "PMIx_IOF_push", &res, &nres),
                     PMIX_ERR_NOT_FOUND);
    /* unsupported functions are not in the table */
    ck_assert_int_eq(ask(PMIX_CLIENT_ATTRIBUTES, "PMIx_Spawn", &res, &nres), PMIX_ERR_NOT_FOUND);
    /* the host's functions are not known to the library */
    ck_assert_int_eq(ask(PMIX_HOST_ATTRIBUTES, "all", &res, &nres), PMIX_ERR_NOT_FOUND);
    /* a qualifier of the wrong type */
    pmix_query_t q;
    char *keys[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL};
    pmix_info_t qual;
    uint32_t u = 3;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = keys;
    PMIX_INFO_LOAD(&qual, PMIX_CLIENT_ATTRIBUTES, &u, PMIX_UINT32);
    q.qualifiers = &qual;
    q.nqual = 1;
    ck_assert_int_eq(PMIx_Query_info(&q, 1, &res, &nres), PMIX_ERR_BAD_PARAM);
    /* a required qualifier the query honours is accepted */
    PMIX_INFO_LOAD(&qual, PMIX_CLIENT_ATTRIBUTES, "PMIx_Get", PMIX_STRING);
    PMIX_INFO_REQUIRED(&qual);
    ck_assert_int_eq(PMIx_Query_info(&q, 1, &res, &nres), PMIX_SUCCESS);
    PMIX_INFO_FREE(res, nres);
    PMIX_INFO_DESTRUCT(&qual);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("attr_support");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, attrs_exist);
    tcase_add_test(tc, attr_types_match_header);
    tcase_add_test(tc, no_unsupported_function);
    tcase_add_test(tc, query_one_function);
    tcase_add_test(tc, query_all_and_lists);
    tcase_add_test(tc, query_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
