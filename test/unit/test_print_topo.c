/* test_print_topo.c - how PMIx_Data_print and PMIx_Value_string show a
 * PMIX_TOPO (lib/types/print.c, spx_td_print_topo): a summary of the hwloc
 * topology - the root's type and number of children (OpenPMIx's first line),
 * the counts of packages, NUMA nodes, cores and PUs, the root's cpus - not
 * the address of the object, which is what it printed before.
 *
 * The machines are hand-written hwloc XML (so the text is known exactly),
 * plus this host's own topology, whose counts hwloc gives.
 */
#include "config.h"

#include <check.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

/* hwloc XML of one package of `cores` cores with 2 PUs each and one NUMA
 * node (cores <= 8). */
static char *package_xml(unsigned cores)
{
    char *xml = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&xml, &len);
    ck_assert_ptr_nonnull(f);
    unsigned all = (1u << (2 * cores)) - 1, gp = 1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<topology version=\"2.0\">\n"
               " <object type=\"Machine\" os_index=\"0\" cpuset=\"0x%x\" complete_cpuset=\"0x%x\""
               " allowed_cpuset=\"0x%x\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
               " allowed_nodeset=\"0x1\" gp_index=\"%u\">\n"
               "  <object type=\"Package\" os_index=\"0\" cpuset=\"0x%x\" complete_cpuset=\"0x%x\""
               " nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"%u\">\n"
               "   <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x%x\" complete_cpuset=\"0x%x\""
               " nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"%u\""
               " local_memory=\"1073741824\"/>\n",
            all, all, all, gp, all, all, gp + 1, all, all, gp + 2);
    gp += 3;
    for (unsigned c = 0; c < cores; c++) {
        unsigned cs = 3u << (2 * c);
        fprintf(f, "   <object type=\"Core\" os_index=\"%u\" cpuset=\"0x%x\""
                   " complete_cpuset=\"0x%x\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
                   " gp_index=\"%u\">\n", c, cs, cs, gp++);
        for (unsigned p = 2 * c; p < 2 * c + 2; p++)
            fprintf(f, "    <object type=\"PU\" os_index=\"%u\" cpuset=\"0x%x\""
                       " complete_cpuset=\"0x%x\" nodeset=\"0x1\" complete_nodeset=\"0x1\""
                       " gp_index=\"%u\"/>\n", p, 1u << p, 1u << p, gp++);
        fputs("   </object>\n", f);
    }
    fputs("  </object>\n </object>\n</topology>\n", f);
    ck_assert_int_eq(fclose(f), 0);
    return xml;
}

static hwloc_topology_t load_xml(const char *xml)
{
    hwloc_topology_t t;
    ck_assert_int_eq(hwloc_topology_init(&t), 0);
    ck_assert_int_eq(hwloc_topology_set_xmlbuffer(t, xml, (int)strlen(xml) + 1), 0);
    ck_assert_int_eq(hwloc_topology_load(t), 0);
    return t;
}

/* Data_print and Value_string of a known machine: the exact text. */
START_TEST(summary_of_a_known_machine)
{
    static const char *const want[] = {
        "source=\"hwloc\" Type: Machine Number of child objects: 1 Packages: 1 NUMA nodes: 1"
        " Cores: 1 PUs: 2 cpus=0-1",
        "source=\"hwloc\" Type: Machine Number of child objects: 1 Packages: 1 NUMA nodes: 1"
        " Cores: 4 PUs: 8 cpus=0-7",
    };
    const unsigned cores[] = { 1, 4 };
    for (size_t k = 0; k < 2; k++) {
        char *xml = package_xml(cores[k]), *ds = NULL, *vs, *exp = NULL;
        hwloc_topology_t t = load_xml(xml);
        pmix_topology_t pt = { .source = "hwloc", .topology = t };
        ck_assert_int_eq(PMIx_Data_print(&ds, ">", &pt, PMIX_TOPO), PMIX_SUCCESS);
        ck_assert_int_ge(asprintf(&exp, ">Data type: PMIX_TOPO\tValue: %s", want[k]), 0);
        ck_assert_str_eq(ds, exp);
        pmix_value_t v = { .type = PMIX_TOPO, .data.topo = &pt };
        vs = PMIx_Value_string(&v);
        ck_assert_ptr_nonnull(vs);
        free(exp);
        ck_assert_int_ge(asprintf(&exp, "PMIX_TOPO: %s", want[k]), 0);
        ck_assert_str_eq(vs, exp);
        free(exp);
        free(vs);
        free(ds);
        hwloc_topology_destroy(t);
        free(xml);
    }
}
END_TEST

/* This host: the counts are hwloc's own. */
START_TEST(summary_of_this_host)
{
    hwloc_topology_t t;
    ck_assert_int_eq(hwloc_topology_init(&t), 0);
    ck_assert_int_eq(hwloc_topology_load(t), 0);
    pmix_topology_t pt = { .source = "hwloc", .topology = t };
    char *ds = NULL, *counts = NULL;
    ck_assert_int_eq(PMIx_Data_print(&ds, NULL, &pt, PMIX_TOPO), PMIX_SUCCESS);
    int pk = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    int nu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    int co = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    int pu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    ck_assert_int_gt(pu, 0);
    ck_assert_int_ge(asprintf(&counts, " Packages: %d NUMA nodes: %d Cores: %d PUs: %d cpus=",
                              pk, nu, co, pu), 0);
    ck_assert_msg(strstr(ds, counts) != NULL, "\"%s\" lacks \"%s\"", ds, counts);
    ck_assert_ptr_nonnull(strstr(ds, "Type: Machine Number of child objects: "));
    free(counts);
    free(ds);
    hwloc_topology_destroy(t);
}
END_TEST

/* Nothing to read: no object, or a source that is not hwloc. */
START_TEST(no_hwloc_object)
{
    char *ds = NULL;
    pmix_topology_t none = { .source = "hwloc", .topology = NULL };
    ck_assert_int_eq(PMIx_Data_print(&ds, "", &none, PMIX_TOPO), PMIX_SUCCESS);
    ck_assert_str_eq(ds, "Data type: PMIX_TOPO\tValue: source=\"hwloc\" topology=NULL");
    free(ds);
    int dummy = 0;
    pmix_topology_t other = { .source = "other", .topology = &dummy };
    ck_assert_int_eq(PMIx_Data_print(&ds, "", &other, PMIX_TOPO), PMIX_SUCCESS);
    ck_assert_str_eq(ds, "Data type: PMIX_TOPO\tValue: source=\"other\" topology=(not hwloc)");
    free(ds);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("print_topo");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, summary_of_a_known_machine);
    tcase_add_test(tc, summary_of_this_host);
    tcase_add_test(tc, no_hwloc_object);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
