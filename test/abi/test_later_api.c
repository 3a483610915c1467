/* test_later_api.c - the functions of PMIx releases after 5.0 that programs
 * built on OpenPMIx 7 import (lib/api/later_abi.c, lib/types/regex.c),
 * called through the real library with their results checked: the regex2
 * round trip and its bad inputs, the cpuset parser, the strings, and the
 * calls answered with PMIX_ERR_NOT_SUPPORTED (their callbacks never run).
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

START_TEST(regex2_round_trip)
{
    pmix_regex2_t r;
    char *out = NULL;

    ck_assert_int_eq(PMIx_generate_regex2("n1,n2,node-03", NULL, 0, &r), PMIX_SUCCESS);
    ck_assert_str_eq(r.type, "spmix");
    ck_assert_uint_gt(r.len, 0);
    ck_assert_int_eq(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_SUCCESS);
    ck_assert_str_eq(out, "n1,n2,node-03");
    free(out);
    /* the bytes need not end in a NUL */
    r.len--;
    ck_assert_int_eq(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_SUCCESS);
    ck_assert_str_eq(out, "n1,n2,node-03");
    free(out);
    PMIx_Regex2_destruct(&r);
    ck_assert_ptr_null(r.type);
    ck_assert_ptr_null(r.bytes);
    ck_assert_uint_eq(r.len, 0);

    /* a ppn list keeps its ';' separators */
    ck_assert_int_eq(PMIx_generate_regex2("0,1;2,3", NULL, 0, &r), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_SUCCESS);
    ck_assert_str_eq(out, "0,1;2,3");
    free(out);
    PMIx_Regex2_destruct(&r);

    /* an empty list */
    ck_assert_int_eq(PMIx_generate_regex2("", NULL, 0, &r), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_SUCCESS);
    ck_assert_str_eq(out, "");
    free(out);
    PMIx_Regex2_destruct(&r);
}
END_TEST

START_TEST(regex2_bad_input)
{
    pmix_regex2_t r;
    char *out = (char *)"untouched";
    uint8_t nul_inside[] = { 'n', '1', '\0', 'n', '2' };
    uint8_t compressed[] = "pmix[n[1:1-3]]";

    ck_assert_int_eq(PMIx_generate_regex2(NULL, NULL, 0, &r), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(PMIx_generate_regex2("n1", NULL, 0, NULL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(PMIx_parse_regex2(NULL, NULL, 0, &out), PMIX_ERR_BAD_PARAM);
    ck_assert_ptr_null(out);

    PMIx_Regex2_construct(&r);
    ck_assert_int_eq(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_ERR_BAD_PARAM); /* no type */
    r.type = (char *)"spmix";
    r.bytes = nul_inside;
    r.len = sizeof(nul_inside);
    ck_assert_int_eq(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_ERR_BAD_PARAM);
    r.type = (char *)"pmix";
    r.bytes = compressed;
    r.len = sizeof(compressed);
    ck_assert_int_eq(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_ERR_NOT_SUPPORTED);
    ck_assert_ptr_null(out);
    /* "raw" is the uncompressed list */
    r.type = (char *)"raw";
    r.bytes = (uint8_t *)"a,b";
    r.len = 3;
    ck_assert_int_eq(PMIx_parse_regex2(&r, NULL, 0, &out), PMIX_SUCCESS);
    ck_assert_str_eq(out, "a,b");
    free(out);
}
END_TEST

START_TEST(cpuset_from_string)
{
    pmix_cpuset_t a, b;
    char *s = NULL, *t = NULL;

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    ck_assert_int_eq(PMIx_server_generate_cpuset("hwloc:0-2,5", &a), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_server_generate_cpuset_string(&a, &s), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Parse_cpuset_string(s, &b), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_server_generate_cpuset_string(&b, &t), PMIX_SUCCESS);
    ck_assert_str_eq(s, t);
    ck_assert_ptr_nonnull(strstr(s, "0-2,5"));
    free(s);
    free(t);
    PMIx_Cpuset_destruct(&a);
    PMIx_Cpuset_destruct(&b);
    ck_assert_int_eq(PMIx_server_generate_cpuset(NULL, &a), PMIX_ERR_BAD_PARAM);
}
END_TEST

START_TEST(strings)
{
    pmix_resource_unit_t unit = { .type = PMIX_DEVTYPE_GPU, .count = 4 };
    char *s;

    ck_assert_str_eq(PMIx_Resource_block_directive_string(PMIX_RESOURCE_BLOCK_EXTEND), "EXTEND");
    ck_assert_str_eq(PMIx_Resource_block_directive_string(200), "EXTERNAL");
    ck_assert_str_eq(PMIx_Resource_block_directive_string(9), "UNKNOWN");
    ck_assert_str_eq(PMIx_Alloc_inheritance_string(PMIX_ALLOC_INHERIT_CHILD), "CHILD");
    ck_assert_str_eq(PMIx_Alloc_inheritance_string(0), "UNKNOWN");
    ck_assert_str_eq(PMIx_Group_operation_string(PMIX_GROUP_DESTRUCT), "DESTRUCT");
    ck_assert_str_eq(PMIx_Group_operation_string((pmix_group_operation_t)3), "CANCEL");
    s = PMIx_Resource_unit_string(&unit);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(strstr(s, PMIx_Device_type_string(PMIX_DEVTYPE_GPU)));
    ck_assert_ptr_nonnull(strstr(s, "4"));
    free(s);
    ck_assert_ptr_null(PMIx_Resource_unit_string(NULL));
}
END_TEST

static int called;
static void op_cb(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
    called++;
}

START_TEST(not_supported)
{
    pmix_resource_unit_t unit = { .type = PMIX_DEVTYPE_GPU, .count = 1 };
    pmix_proc_t p;
    pmix_data_buffer_t buf;

    PMIX_PROC_LOAD(&p, "ns", 0);
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    ck_assert_int_eq(PMIx_Resource_block(PMIX_RESOURCE_BLOCK_DEFINE, (char *)"b", &unit, 1, NULL, 0),
                     PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(PMIx_Resource_block_nb(PMIX_RESOURCE_BLOCK_DEFINE, (char *)"b", &unit, 1,
                                            NULL, 0, op_cb, NULL),
                     PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(PMIx_server_IOF_flow_control(&p, PMIX_FWD_STDOUT_CHANNEL, true, NULL, 0,
                                                  op_cb, NULL),
                     PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(PMIx_server_collect_job_info(&p, 1, &buf), PMIX_ERR_NOT_SUPPORTED);
    ck_assert_uint_eq(buf.bytes_used, 0);
    PMIx_Heartbeat();
    PMIx_Progress_thread_stop(NULL, 0);
    ck_assert_int_eq(called, 0);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("later_api");
    TCase *tc = tcase_create("later");
    tcase_add_test(tc, regex2_round_trip);
    tcase_add_test(tc, regex2_bad_input);
    tcase_add_test(tc, cpuset_from_string);
    tcase_add_test(tc, strings);
    tcase_add_test(tc, not_supported);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
