/* test_topology.c - PMIx_Load_topology, PMIx_Topology_destruct and
 * PMIx_Compute_distances (lib/api/topology.c).
 *
 * Loading: this machine's topology comes back as the caller's own copy
 * (source "hwloc:<version>", as many PUs as hwloc finds here), bad arguments
 * are refused. Distances: a hand-made topology (two packages of one core and
 * one PU, a network card and a GPU under package 0, an InfiniBand HCA under
 * package 1, a disk under the machine) checks the measure (closer devices get
 * smaller numbers; min/max over the cpuset's PUs; a device under the machine
 * only is further than any under a package), the default device types (no
 * disk), selection by PMIX_DEVICE_TYPE and PMIX_DEVICE_ID, the uuid forms,
 * PMIX_ERR_NOT_FOUND when nothing matches, and bad parameters.
 */
#include "config.h"

#include <check.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define BITS(c) "cpuset=\"" c "\" complete_cpuset=\"" c "\" nodeset=\"0x1\" complete_nodeset=\"0x1\""

static const char xml_with_devices[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
    "<topology version=\"2.0\">\n"
    " <object type=\"Machine\" os_index=\"0\" " BITS("0x3") " allowed_cpuset=\"0x3\""
    " allowed_nodeset=\"0x1\" gp_index=\"1\">\n"
    "  <object type=\"NUMANode\" os_index=\"0\" " BITS("0x3") " gp_index=\"8\""
    " local_memory=\"1073741824\"/>\n"
    "  <object type=\"Package\" os_index=\"0\" " BITS("0x1") " gp_index=\"4\">\n"
    "   <object type=\"Core\" os_index=\"0\" " BITS("0x1") " gp_index=\"3\">\n"
    "    <object type=\"PU\" os_index=\"0\" " BITS("0x1") " gp_index=\"2\"/>\n"
    "   </object>\n"
    "   <object type=\"PCIDev\" gp_index=\"20\" pci_busid=\"0000:01:00.0\""
    " pci_type=\"0200 [8086:100e] [8086:001e] 02\" pci_link_speed=\"0.000000\">\n"
    "    <object type=\"OSDev\" gp_index=\"21\" name=\"eth0\" osdev_type=\"2\">\n"
    "     <info name=\"Address\" value=\"00:11:22:33:44:55\"/>\n"
    "    </object>\n"
    "   </object>\n"
    "   <object type=\"PCIDev\" gp_index=\"22\" pci_busid=\"0000:02:00.0\""
    " pci_type=\"0302 [10de:1db6] [10de:1212] a1\" pci_link_speed=\"0.000000\">\n"
    "    <object type=\"OSDev\" gp_index=\"23\" name=\"card0\" osdev_type=\"1\"/>\n"
    "   </object>\n"
    "  </object>\n"
    "  <object type=\"Package\" os_index=\"1\" " BITS("0x2") " gp_index=\"7\">\n"
    "   <object type=\"Core\" os_index=\"1\" " BITS("0x2") " gp_index=\"6\">\n"
    "    <object type=\"PU\" os_index=\"1\" " BITS("0x2") " gp_index=\"5\"/>\n"
    "   </object>\n"
    "   <object type=\"PCIDev\" gp_index=\"30\" pci_busid=\"0000:81:00.0\""
    " pci_type=\"0207 [15b3:1017] [15b3:0007] 00\" pci_link_speed=\"0.000000\">\n"
    "    <object type=\"OSDev\" gp_index=\"31\" name=\"mlx5_0\" osdev_type=\"3\">\n"
    "     <info name=\"NodeGUID\" value=\"aaaa:bbbb:cccc:dddd\"/>\n"
    "     <info name=\"SysImageGUID\" value=\"1111:2222:3333:4444\"/>\n"
    "    </object>\n"
    "   </object>\n"
    "  </object>\n"
    "  <object type=\"PCIDev\" gp_index=\"40\" pci_busid=\"0000:00:1f.2\""
    " pci_type=\"0106 [8086:2922] [8086:2922] 02\" pci_link_speed=\"0.000000\">\n"
    "   <object type=\"OSDev\" gp_index=\"41\" name=\"sda\" osdev_type=\"0\"/>\n"
    "  </object>\n"
    " </object>\n"
    "</topology>\n";

static pmix_topology_t devices_topology(void)
{
    hwloc_topology_t t;
    ck_assert_int_eq(hwloc_topology_init(&t), 0);
    ck_assert_int_eq(hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL), 0);
    ck_assert_int_eq(hwloc_topology_set_xmlbuffer(t, xml_with_devices, (int)sizeof(xml_with_devices)), 0);
    ck_assert_int_eq(hwloc_topology_load(t), 0);
    ck_assert_int_eq(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_OS_DEVICE), 4);
    pmix_topology_t topo = {strdup("hwloc"), t};
    return topo;
}

static pmix_cpuset_t cpuset_of(const char *list)
{
    pmix_cpuset_t c = {strdup("hwloc"), hwloc_bitmap_alloc()};
    ck_assert_int_eq(hwloc_bitmap_list_sscanf(c.bitmap, list), 0);
    return c;
}

static const pmix_device_distance_t *find(const pmix_device_distance_t *d, size_t n,
                                          const char *osname)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(d[i].osname, osname) == 0)
            return &d[i];
    return NULL;
}

START_TEST(load_this_machine)
{
    pmix_topology_t topo = {NULL, NULL};
    ck_assert_int_eq(PMIx_Load_topology(&topo), PMIX_SUCCESS);
    ck_assert_ptr_nonnull(topo.topology);
    ck_assert_str_eq(topo.source, "hwloc:" HWLOC_VERSION);
    hwloc_topology_t here;
    ck_assert_int_eq(hwloc_topology_init(&here), 0);
    ck_assert_int_eq(hwloc_topology_load(here), 0);
    ck_assert_int_eq(hwloc_get_nbobjs_by_type((hwloc_topology_t)topo.topology, HWLOC_OBJ_PU),
                     hwloc_get_nbobjs_by_type(here, HWLOC_OBJ_PU));
    hwloc_topology_destroy(here);
    /* a second load is another copy: destroying one leaves the other intact */
    pmix_topology_t again = {strdup("hwloc"), NULL};
    ck_assert_int_eq(PMIx_Load_topology(&again), PMIX_SUCCESS);
    ck_assert_ptr_ne(again.topology, topo.topology);
    PMIx_Topology_destruct(&topo);
    ck_assert_ptr_null(topo.topology);
    ck_assert_ptr_null(topo.source);
    ck_assert_int_ge(hwloc_get_nbobjs_by_type((hwloc_topology_t)again.topology, HWLOC_OBJ_PU), 1);
    PMIx_Topology_destruct(&again);
    PMIx_Topology_destruct(NULL);
}
END_TEST

START_TEST(load_bad_params)
{
    ck_assert_int_eq(PMIx_Load_topology(NULL), PMIX_ERR_BAD_PARAM);
    pmix_topology_t other = {"other-source", NULL};
    ck_assert_int_eq(PMIx_Load_topology(&other), PMIX_ERR_NOT_SUPPORTED);
    ck_assert_ptr_null(other.topology);
}
END_TEST

START_TEST(distances_measure)
{
    pmix_topology_t topo = devices_topology();
    pmix_cpuset_t pu0 = cpuset_of("0"), both = cpuset_of("0-1");
    pmix_device_distance_t *d = NULL;
    size_t n = 0;
    char host[256];
    ck_assert_int_eq(gethostname(host, sizeof(host)), 0);

    ck_assert_int_eq(PMIx_Compute_distances(&topo, &pu0, NULL, 0, &d, &n), PMIX_SUCCESS);
    ck_assert_uint_eq(n, 3); /* network, GPU, fabric: no disk by default */
    const pmix_device_distance_t *eth = find(d, n, "eth0"), *gpu = find(d, n, "card0"),
                                 *ib = find(d, n, "mlx5_0");
    ck_assert_ptr_nonnull(eth);
    ck_assert_ptr_nonnull(gpu);
    ck_assert_ptr_nonnull(ib);
    ck_assert_ptr_null(find(d, n, "sda"));
    ck_assert_int_eq(eth->type, PMIX_DEVTYPE_NETWORK);
    ck_assert_int_eq(gpu->type, PMIX_DEVTYPE_GPU);
    ck_assert_int_eq(ib->type, PMIX_DEVTYPE_OPENFABRICS);
    ck_assert_str_eq(eth->uuid, "ipv4://00:11:22:33:44:55");
    ck_assert_str_eq(ib->uuid, "fab://aaaa:bbbb:cccc:dddd::1111:2222:3333:4444");
    char want[300];
    snprintf(want, sizeof(want), "gpu://%s::card0", host);
    ck_assert_str_eq(gpu->uuid, want);
    /* PU 0 shares package 0 with eth0 and card0, only the machine with mlx5_0 */
    ck_assert_uint_eq(eth->mindist, eth->maxdist);
    ck_assert_uint_eq(eth->mindist, gpu->mindist);
    ck_assert_uint_lt(eth->mindist, ib->mindist);
    ck_assert_uint_ne(ib->mindist, UINT16_MAX);
    uint16_t near = eth->mindist, far = ib->mindist;
    PMIX_DEVICE_DIST_FREE(d, n);

    /* bound to both PUs: every device is near one and far from the other */
    ck_assert_int_eq(PMIx_Compute_distances(&topo, &both, NULL, 0, &d, &n), PMIX_SUCCESS);
    ck_assert_uint_eq(n, 3);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(d[i].mindist, near);
        ck_assert_uint_eq(d[i].maxdist, far);
    }
    PMIX_DEVICE_DIST_FREE(d, n);
    PMIx_Cpuset_destruct(&pu0);
    PMIx_Cpuset_destruct(&both);
    PMIx_Topology_destruct(&topo);
}
END_TEST

START_TEST(distances_selection)
{
    pmix_topology_t topo = devices_topology();
    pmix_cpuset_t pu1 = cpuset_of("1");
    pmix_device_distance_t *d = NULL;
    size_t n = 0;
    pmix_info_t info[2];
    pmix_device_type_t blk = PMIX_DEVTYPE_BLOCK, gpu = PMIX_DEVTYPE_GPU;

    PMIX_INFO_LOAD(&info[0], PMIX_DEVICE_TYPE, &blk, PMIX_DEVTYPE);
    ck_assert_int_eq(PMIx_Compute_distances(&topo, &pu1, info, 1, &d, &n), PMIX_SUCCESS);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(d[0].osname, "sda");
    ck_assert_int_eq(d[0].type, PMIX_DEVTYPE_BLOCK);
    PMIX_DEVICE_DIST_FREE(d, n);
    PMIX_INFO_DESTRUCT(&info[0]);

    /* two types at once */
    PMIX_INFO_LOAD(&info[0], PMIX_DEVICE_TYPE, &blk, PMIX_DEVTYPE);
    PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_TYPE, &gpu, PMIX_DEVTYPE);
    ck_assert_int_eq(PMIx_Compute_distances(&topo, &pu1, info, 2, &d, &n), PMIX_SUCCESS);
    ck_assert_uint_eq(n, 2);
    ck_assert_ptr_nonnull(find(d, n, "sda"));
    ck_assert_ptr_nonnull(find(d, n, "card0"));
    PMIX_DEVICE_DIST_FREE(d, n);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);

    /* by name and by uuid */
    PMIX_INFO_LOAD(&info[0], PMIX_DEVICE_ID, "MLX5_0", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_DEVICE_ID, "ipv4://00:11:22:33:44:55", PMIX_STRING);
    ck_assert_int_eq(PMIx_Compute_distances(&topo, &pu1, info, 2, &d, &n), PMIX_SUCCESS);
    ck_assert_uint_eq(n, 2);
    const pmix_device_distance_t *ib = find(d, n, "mlx5_0"), *eth = find(d, n, "eth0");
    ck_assert_ptr_nonnull(ib);
    ck_assert_ptr_nonnull(eth);
    ck_assert_uint_lt(ib->mindist, eth->mindist); /* PU 1 sits in the HCA's package */
    PMIX_DEVICE_DIST_FREE(d, n);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);

    /* nothing of that name */
    PMIX_INFO_LOAD(&info[0], PMIX_DEVICE_ID, "nosuchdev", PMIX_STRING);
    d = (pmix_device_distance_t *)1;
    ck_assert_int_eq(PMIx_Compute_distances(&topo, &pu1, info, 1, &d, &n), PMIX_ERR_NOT_FOUND);
    ck_assert_ptr_null(d);
    ck_assert_uint_eq(n, 0);
    PMIX_INFO_DESTRUCT(&info[0]);

    /* bad parameters */
    ck_assert_int_eq(PMIx_Compute_distances(&topo, &pu1, NULL, 0, NULL, &n), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(PMIx_Compute_distances(&topo, &pu1, NULL, 0, &d, NULL), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(PMIx_Compute_distances(&topo, &pu1, NULL, 2, &d, &n), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_LOAD(&info[0], PMIX_DEVICE_TYPE, "gpu", PMIX_STRING); /* wrong value type */
    ck_assert_int_eq(PMIx_Compute_distances(&topo, &pu1, info, 1, &d, &n), PMIX_ERR_BAD_PARAM);
    PMIX_INFO_DESTRUCT(&info[0]);
    pmix_topology_t other = {"other-source", topo.topology};
    ck_assert_int_eq(PMIx_Compute_distances(&other, &pu1, NULL, 0, &d, &n), PMIX_ERR_NOT_SUPPORTED);
    /* the non-blocking form needs the library initialized */
    ck_assert_int_eq(PMIx_Compute_distances_nb(&topo, &pu1, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
    PMIx_Cpuset_destruct(&pu1);
    PMIx_Topology_destruct(&topo);
}
END_TEST

START_TEST(distances_this_machine)
{
    /* NULL topology and cpuset: this node and this process's binding; a
     * machine may have no such device at all (NOT_FOUND), but never fails */
    pmix_device_distance_t *d = NULL;
    size_t n = 0;
    pmix_status_t rc = PMIx_Compute_distances(NULL, NULL, NULL, 0, &d, &n);
    ck_assert_msg(rc == PMIX_SUCCESS || rc == PMIX_ERR_NOT_FOUND, "rc %d", rc);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        ck_assert_ptr_nonnull(d[i].uuid);
        ck_assert_ptr_nonnull(d[i].osname);
        ck_assert_uint_le(d[i].mindist, d[i].maxdist);
    }
    if (rc == PMIX_SUCCESS)
        PMIX_DEVICE_DIST_FREE(d, n);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("topology");
    TCase *tc = tcase_create("topology");
    tcase_add_test(tc, load_this_machine);
    tcase_add_test(tc, load_bad_params);
    tcase_add_test(tc, distances_measure);
    tcase_add_test(tc, distances_selection);
    tcase_add_test(tc, distances_this_machine);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
