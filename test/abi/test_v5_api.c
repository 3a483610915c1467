/* test_v5_api.c - every function PMIx v5 added to libpmix.so.2, called
 * through the real library with its results checked: the object functions
 * (create/free/construct/destruct/load/xfer/release of every type), keys,
 * namespaces and process ids, argv and environments, info flags and truth,
 * sizes, strings, the info list additions, and the two calls we answer with
 * PMIX_ERR_NOT_SUPPORTED.  Every create has its free, so ASan/valgrind runs
 * show any leak or bad free.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

extern char *pmix_framework_names[];

static char *dup_s(const char *s)
{
    char *d = strdup(s);
    ck_assert_ptr_nonnull(d);
    return d;
}

START_TEST(keys_nspaces_procs)
{
    pmix_key_t key;
    pmix_nspace_t ns, cl, nn;
    pmix_proc_t a, b;
    char longkey[600];

    PMIx_Load_key(key, "pmix.my.key");
    ck_assert_str_eq(key, "pmix.my.key");
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    PMIx_Load_key(key, longkey);
    ck_assert_uint_eq(strlen(key), PMIX_MAX_KEYLEN);
    ck_assert(PMIx_Check_key("pmix.x", "pmix.x"));
    ck_assert(!PMIx_Check_key("pmix.x", "pmix.y"));
    ck_assert(PMIx_Check_reserved_key("pmix.x"));
    ck_assert(!PMIx_Check_reserved_key("user.x"));

    PMIx_Load_nspace(ns, "job-1");
    ck_assert_str_eq(ns, "job-1");
    ck_assert(PMIx_Check_nspace(ns, "job-1"));
    ck_assert(!PMIx_Check_nspace(ns, "job-2"));
    ck_assert(PMIx_Check_nspace(ns, "")); /* empty matches any */
    ck_assert(PMIx_Nspace_invalid(""));
    ck_assert(PMIx_Nspace_invalid(NULL));
    ck_assert(!PMIx_Nspace_invalid(ns));

    PMIx_Load_procid(&a, "job-1", 3);
    ck_assert_str_eq(a.nspace, "job-1");
    ck_assert_uint_eq(a.rank, 3);
    PMIx_Xfer_procid(&b, &a);
    ck_assert(PMIx_Check_procid(&a, &b));
    b.rank = 4;
    ck_assert(!PMIx_Check_procid(&a, &b));
    b.rank = PMIX_RANK_WILDCARD;
    ck_assert(PMIx_Check_procid(&a, &b));
    ck_assert(PMIx_Check_rank(2, 2));
    ck_assert(PMIx_Check_rank(2, PMIX_RANK_WILDCARD));
    ck_assert(!PMIx_Check_rank(2, 3));
    ck_assert(!PMIx_Procid_invalid(&a));
    a.rank = PMIX_RANK_INVALID;
    ck_assert(PMIx_Procid_invalid(&a));

    PMIx_Proc_construct(&a);
    ck_assert_str_eq(a.nspace, "");
    ck_assert_uint_eq(a.rank, PMIX_RANK_UNDEF);
    PMIx_Proc_load(&a, "job-9", 7);
    ck_assert_str_eq(a.nspace, "job-9");
    ck_assert_uint_eq(a.rank, 7);
    PMIx_Proc_destruct(&a);
    char *s = PMIx_Proc_string(&a);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(strstr(s, "job-9"));
    ck_assert_ptr_nonnull(strstr(s, "7"));
    free(s);

    pmix_proc_t *procs = PMIx_Proc_create(3);
    ck_assert_ptr_nonnull(procs);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(procs[i].rank, PMIX_RANK_UNDEF);
    PMIx_Proc_free(procs, 3);
    ck_assert_ptr_null(PMIx_Proc_create(0));
    PMIx_Proc_free(NULL, 3);

    PMIx_Load_nspace(cl, "clusterA");
    PMIx_Load_nspace(nn, "job-5");
    PMIx_Multicluster_nspace_construct(ns, cl, nn);
    ck_assert_str_eq(ns, "clusterA:job-5");
    memset(cl, 'x', sizeof(cl));
    memset(nn, 'x', sizeof(nn));
    PMIx_Multicluster_nspace_parse(ns, cl, nn);
    ck_assert_str_eq(cl, "clusterA");
    ck_assert_str_eq(nn, "job-5");
}
END_TEST

START_TEST(argv_and_env)
{
    char **argv = NULL;

    ck_assert_int_eq(PMIx_Argv_append_nosize(&argv, "b"), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Argv_prepend_nosize(&argv, "a"), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Argv_append_unique_nosize(&argv, "b"), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Argv_append_unique_nosize(&argv, "c"), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Argv_count(argv), 3);
    char *j = PMIx_Argv_join(argv, ',');
    ck_assert_str_eq(j, "a,b,c");
    free(j);
    char **copy = PMIx_Argv_copy(argv);
    ck_assert_int_eq(PMIx_Argv_count(copy), 3);
    ck_assert_str_eq(copy[2], "c");
    ck_assert_ptr_ne(copy[2], argv[2]);
    PMIx_Argv_free(copy);
    PMIx_Argv_free(argv);
    ck_assert_int_eq(PMIx_Argv_count(NULL), 0);

    char **sp = PMIx_Argv_split("x,,y", ',');
    ck_assert_int_eq(PMIx_Argv_count(sp), 2);
    PMIx_Argv_free(sp);
    sp = PMIx_Argv_split_with_empty("x,,y", ',');
    ck_assert_int_eq(PMIx_Argv_count(sp), 3);
    ck_assert_str_eq(sp[1], "");
    PMIx_Argv_free(sp);
    sp = PMIx_Argv_split_inter("x,,y", ',', true);
    ck_assert_int_eq(PMIx_Argv_count(sp), 3);
    PMIx_Argv_free(sp);
    sp = PMIx_Argv_split_inter("x,,y", ',', false);
    ck_assert_int_eq(PMIx_Argv_count(sp), 2);
    PMIx_Argv_free(sp);

    char **env = NULL;
    ck_assert_int_eq(PMIx_Setenv("FOO", "1", true, &env), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Setenv("FOO", "2", false, &env), PMIX_ERR_EXISTS);
    ck_assert_str_eq(env[0], "FOO=1");
    ck_assert_int_eq(PMIx_Setenv("FOO", "3", true, &env), PMIX_SUCCESS);
    ck_assert_str_eq(env[0], "FOO=3");
    ck_assert_int_eq(PMIx_Argv_count(env), 1);
    PMIx_Argv_free(env);
}
END_TEST

START_TEST(values_and_infos)
{
    pmix_value_t v;
    pmix_info_t info;
    size_t sz = 0;
    bool t = true;

    PMIx_Value_construct(&v);
    ck_assert_int_eq(v.type, PMIX_UNDEF);
    ck_assert_int_eq(PMIx_Value_true(&v), PMIX_BOOL_TRUE);
    ck_assert_int_eq(PMIx_Value_get_size(&v, &sz), PMIX_ERR_UNKNOWN_DATA_TYPE);
    ck_assert_int_eq(PMIx_Value_load(&v, "no", PMIX_STRING), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Value_true(&v), PMIX_BOOL_FALSE);
    ck_assert_int_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
    ck_assert_uint_eq(sz, sizeof(pmix_value_t) + 3);
    PMIx_Value_destruct(&v);
    uint32_t u = 5;
    PMIx_Value_load(&v, &u, PMIX_UINT32);
    ck_assert_int_eq(PMIx_Value_true(&v), PMIX_NON_BOOL);
    ck_assert_int_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
    ck_assert_uint_eq(sz, sizeof(pmix_value_t));
    PMIx_Value_destruct(&v);

    pmix_value_t *vals = PMIx_Value_create(2);
    ck_assert_ptr_nonnull(vals);
    ck_assert_int_eq(vals[1].type, PMIX_UNDEF);
    PMIx_Value_load(&vals[0], "abc", PMIX_STRING);
    PMIx_Value_free(vals, 2); /* frees the string too */

    PMIx_Info_construct(&info);
    ck_assert_int_eq(info.value.type, PMIX_UNDEF);
    ck_assert_uint_eq(info.flags, 0);
    ck_assert_int_eq(PMIx_Info_load(&info, "pmix.flag", &t, PMIX_BOOL), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Info_true(&info), PMIX_BOOL_TRUE);
    ck_assert_int_eq(PMIx_Info_get_size(&info, &sz), PMIX_SUCCESS);
    ck_assert_uint_eq(sz, sizeof(pmix_info_t));
    ck_assert(!PMIx_Info_is_required(&info));
    ck_assert(PMIx_Info_is_optional(&info));
    PMIx_Info_required(&info);
    ck_assert(PMIx_Info_is_required(&info));
    ck_assert(!PMIx_Info_is_optional(&info));
    PMIx_Info_optional(&info);
    ck_assert(PMIx_Info_is_optional(&info));
    ck_assert(!PMIx_Info_was_processed(&info));
    PMIx_Info_processed(&info);
    ck_assert(PMIx_Info_was_processed(&info));
    ck_assert(!PMIx_Info_is_end(&info));
    PMIx_Info_set_end(&info);
    ck_assert(PMIx_Info_is_end(&info));
    ck_assert(!PMIx_Info_is_qualifier(&info));
    PMIx_Info_qualifier(&info);
    ck_assert(PMIx_Info_is_qualifier(&info));
    ck_assert(!PMIx_Info_is_persistent(&info));
    PMIx_Info_persistent(&info);
    ck_assert(PMIx_Info_is_persistent(&info));
    info.flags = 0;
    PMIx_Info_destruct(&info);

    /* a nested array: the strings and the array storage count */
    pmix_info_t *arr = PMIx_Info_create(3);
    ck_assert_ptr_nonnull(arr);
    ck_assert(!PMIx_Info_is_end(&arr[2])); /* as OpenPMIx 5: no end mark */
    PMIx_Info_load(&arr[0], "k0", "hello", PMIX_STRING);
    PMIx_Info_load(&arr[1], "k1", &u, PMIX_UINT32);
    pmix_data_array_t da = { .type = PMIX_INFO, .size = 2, .array = arr };
    PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY);
    ck_assert_int_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
    ck_assert_uint_eq(sz, sizeof(pmix_value_t) + sizeof(pmix_data_array_t) +
                              2 * sizeof(pmix_info_t) + strlen("hello") + 1);
    PMIx_Value_destruct(&v);
    PMIx_Info_free(arr, 3);
    PMIx_Info_free(NULL, 1);
    ck_assert_ptr_null(PMIx_Info_create(0));
}
END_TEST

START_TEST(buffers_and_arrays)
{
    pmix_data_buffer_t *b = PMIx_Data_buffer_create();
    pmix_data_buffer_t b2;
    int32_t x = 42, y = 0, n = 1;
    char *bytes;
    size_t sz;

    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(PMIx_Data_pack(NULL, b, &x, 1, PMIX_INT32), PMIX_SUCCESS);
    PMIx_Data_buffer_unload(b, &bytes, &sz);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_uint_gt(sz, 0);
    PMIx_Data_buffer_construct(&b2);
    ck_assert_ptr_null(b2.base_ptr);
    PMIx_Data_buffer_load(&b2, bytes, sz); /* b2 owns bytes now */
    ck_assert_int_eq(PMIx_Data_unpack(NULL, &b2, &y, &n, PMIX_INT32), PMIX_SUCCESS);
    ck_assert_int_eq(y, 42);
    PMIx_Data_buffer_destruct(&b2);
    ck_assert_ptr_null(b2.base_ptr);
    PMIx_Data_buffer_unload(&b2, &bytes, &sz);
    ck_assert_ptr_null(bytes);
    ck_assert_uint_eq(sz, 0);
    PMIx_Data_buffer_release(b);
    PMIx_Data_buffer_release(NULL);

    pmix_data_array_t d;
    PMIx_Data_array_init(&d, PMIX_STRING);
    ck_assert_int_eq(d.type, PMIX_STRING);
    ck_assert_uint_eq(d.size, 0);
    ck_assert_ptr_null(d.array);
    PMIx_Data_array_construct(&d, 2, PMIX_STRING);
    ck_assert_uint_eq(d.size, 2);
    ((char **)d.array)[1] = dup_s("s");
    PMIx_Data_array_destruct(&d);
    pmix_data_array_t *dp = PMIx_Data_array_create(4, PMIX_UINT64);
    ck_assert_ptr_nonnull(dp);
    ck_assert_uint_eq(dp->size, 4);
    ck_assert_uint_eq(((uint64_t *)dp->array)[3], 0);
    PMIx_Data_array_free(dp);
    ck_assert_ptr_null(PMIx_Data_array_create(0, PMIX_INT));
}
END_TEST

START_TEST(struct_objects)
{
    /* byte objects */
    pmix_byte_object_t bo;
    PMIx_Byte_object_construct(&bo);
    ck_assert_ptr_null(bo.bytes);
    PMIx_Byte_object_load(&bo, dup_s("abc"), 4);
    ck_assert_uint_eq(bo.size, 4);
    PMIx_Byte_object_destruct(&bo);
    ck_assert_ptr_null(bo.bytes);
    pmix_byte_object_t *bos = PMIx_Byte_object_create(2);
    ck_assert_ptr_nonnull(bos);
    PMIx_Byte_object_load(&bos[1], dup_s("x"), 2);
    PMIx_Byte_object_free(bos, 2);

    /* coordinates */
    pmix_coord_t *c = PMIx_Coord_create(3, 2);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c[1].dims, 3);
    ck_assert_uint_eq(c[1].coord[2], 0);
    PMIx_Coord_destruct(&c[0]);
    ck_assert_ptr_null(c[0].coord);
    PMIx_Coord_construct(&c[0]);
    PMIx_Coord_free(c, 2);

    /* cpusets and topologies */
    pmix_cpuset_t cs;
    memset(&cs, 0xff, sizeof(cs));
    PMIx_Cpuset_construct(&cs);
    ck_assert_ptr_null(cs.source);
    ck_assert_ptr_null(cs.bitmap);
    pmix_cpuset_t *css = PMIx_Cpuset_create(2);
    ck_assert_ptr_nonnull(css);
    css[0].source = dup_s("none");
    PMIx_Cpuset_free(css, 2);
    pmix_topology_t tp;
    memset(&tp, 0xff, sizeof(tp));
    PMIx_Topology_construct(&tp);
    ck_assert_ptr_null(tp.source);
    pmix_topology_t *tps = PMIx_Topology_create(1);
    ck_assert_ptr_nonnull(tps);
    ck_assert_ptr_null(tps[0].topology);
    PMIx_Topology_free(tps, 1);

    /* geometry, device distances, endpoints */
    pmix_geometry_t g;
    PMIx_Geometry_construct(&g);
    g.uuid = dup_s("u");
    g.coordinates = PMIx_Coord_create(2, 1);
    g.ncoords = 1;
    PMIx_Geometry_destruct(&g);
    ck_assert_ptr_null(g.uuid);
    ck_assert_ptr_null(g.coordinates);
    pmix_geometry_t *gs = PMIx_Geometry_create(2);
    ck_assert_ptr_nonnull(gs);
    gs[1].osname = dup_s("eth0");
    PMIx_Geometry_free(gs, 2);

    pmix_device_distance_t dd;
    PMIx_Device_distance_construct(&dd);
    ck_assert_uint_eq(dd.mindist, UINT16_MAX);
    ck_assert_uint_eq(dd.maxdist, UINT16_MAX);
    ck_assert_uint_eq(dd.type, PMIX_DEVTYPE_UNKNOWN);
    dd.uuid = dup_s("d");
    PMIx_Device_distance_destruct(&dd);
    ck_assert_ptr_null(dd.uuid);
    pmix_device_distance_t *dds = PMIx_Device_distance_create(2);
    ck_assert_uint_eq(dds[1].mindist, UINT16_MAX);
    dds[0].osname = dup_s("mlx5_0");
    PMIx_Device_distance_free(dds, 2);

    pmix_endpoint_t ep;
    PMIx_Endpoint_construct(&ep);
    ep.uuid = dup_s("e");
    PMIx_Byte_object_load(&ep.endpt, dup_s("addr"), 5);
    PMIx_Endpoint_destruct(&ep);
    ck_assert_ptr_null(ep.endpt.bytes);
    pmix_endpoint_t *eps = PMIx_Endpoint_create(1);
    eps[0].osname = dup_s("ib0");
    PMIx_Endpoint_free(eps, 1);

    /* envars */
    pmix_envar_t e;
    PMIx_Envar_construct(&e);
    PMIx_Envar_load(&e, "PATH", "/bin", ':');
    ck_assert_str_eq(e.envar, "PATH");
    ck_assert_str_eq(e.value, "/bin");
    ck_assert_int_eq(e.separator, ':');
    PMIx_Envar_destruct(&e);
    ck_assert_ptr_null(e.envar);
    pmix_envar_t *es = PMIx_Envar_create(2);
    PMIx_Envar_load(&es[1], "A", "B", ',');
    PMIx_Envar_free(es, 2);

    /* registered attributes */
    pmix_regattr_t r, r2;
    PMIx_Regattr_construct(&r);
    ck_assert_int_eq(r.type, PMIX_UNDEF);
    PMIx_Regattr_load(&r, "PMIX_X", "pmix.x", PMIX_BOOL, "an attribute");
    ck_assert_str_eq(r.name, "PMIX_X");
    ck_assert_str_eq(r.string, "pmix.x");
    ck_assert_str_eq(r.description[0], "an attribute");
    PMIx_Regattr_xfer(&r2, &r);
    ck_assert_str_eq(r2.name, "PMIX_X");
    ck_assert_ptr_ne(r2.name, r.name);
    ck_assert_int_eq(r2.type, PMIX_BOOL);
    PMIx_Regattr_destruct(&r);
    ck_assert_ptr_null(r.name);
    PMIx_Regattr_destruct(&r2);
    pmix_regattr_t *rs = PMIx_Regattr_create(2);
    PMIx_Regattr_load(&rs[0], "N", "k", PMIX_INT, "d");
    PMIx_Regattr_free(rs, 2);
}
END_TEST

START_TEST(apps_queries_pdata_stats)
{
    pmix_app_t *apps = PMIx_App_create(2);
    ck_assert_ptr_nonnull(apps);
    apps[0].cmd = dup_s("hostname");
    PMIx_Argv_append_nosize(&apps[0].argv, "hostname");
    apps[0].maxprocs = 2;
    PMIx_App_info_create(&apps[0], 2);
    ck_assert_uint_eq(apps[0].ninfo, 2);
    PMIx_Info_load(&apps[0].info[0], "pmix.k", "v", PMIX_STRING);
    char *s = PMIx_App_string(&apps[0]);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(strstr(s, "hostname"));
    free(s);
    PMIx_App_destruct(&apps[1]);
    PMIx_App_free(apps, 2);
    pmix_app_t app;
    PMIx_App_construct(&app);
    ck_assert_ptr_null(app.cmd);
    PMIx_App_destruct(&app);
    pmix_app_t *one = PMIx_App_create(1);
    one->cwd = dup_s("/tmp");
    PMIx_App_release(one);

    pmix_query_t *q = PMIx_Query_create(1);
    ck_assert_ptr_nonnull(q);
    PMIx_Argv_append_nosize(&q->keys, PMIX_QUERY_NAMESPACES);
    PMIx_Query_qualifiers_create(q, 1);
    ck_assert_uint_eq(q->nqual, 1);
    PMIx_Info_load(&q->qualifiers[0], PMIX_NSPACE, "job", PMIX_STRING);
    PMIx_Query_release(q);
    pmix_query_t qq;
    PMIx_Query_construct(&qq);
    ck_assert_ptr_null(qq.keys);
    PMIx_Query_destruct(&qq);
    pmix_query_t *qs = PMIx_Query_create(2);
    PMIx_Query_free(qs, 2);

    pmix_pdata_t pd;
    PMIx_Pdata_construct(&pd);
    ck_assert_int_eq(pd.value.type, PMIX_UNDEF);
    PMIx_Value_load(&pd.value, "pub", PMIX_STRING);
    PMIx_Pdata_destruct(&pd);
    pmix_pdata_t *pds = PMIx_Pdata_create(2);
    PMIx_Value_load(&pds[1].value, "pub", PMIX_STRING);
    PMIx_Pdata_free(pds, 2);

    pmix_proc_info_t pi;
    PMIx_Proc_info_construct(&pi);
    pi.hostname = dup_s("node1");
    PMIx_Proc_info_destruct(&pi);
    ck_assert_ptr_null(pi.hostname);
    pmix_proc_info_t *pis = PMIx_Proc_info_create(2);
    pis[1].executable_name = dup_s("a.out");
    PMIx_Proc_info_free(pis, 2);

    pmix_proc_stats_t ps;
    PMIx_Proc_stats_construct(&ps);
    ps.cmd = dup_s("cmd");
    PMIx_Proc_stats_destruct(&ps);
    ck_assert_ptr_null(ps.cmd);
    pmix_proc_stats_t *pss = PMIx_Proc_stats_create(1);
    pss[0].node = dup_s("n");
    PMIx_Proc_stats_free(pss, 1);

    pmix_disk_stats_t ds;
    PMIx_Disk_stats_construct(&ds);
    ds.disk = dup_s("sda");
    PMIx_Disk_stats_destruct(&ds);
    ck_assert_ptr_null(ds.disk);
    pmix_disk_stats_t *dss = PMIx_Disk_stats_create(1);
    dss[0].disk = dup_s("sdb");
    PMIx_Disk_stats_free(dss, 1);

    pmix_net_stats_t ns;
    PMIx_Net_stats_construct(&ns);
    ns.net_interface = dup_s("eth0");
    PMIx_Net_stats_destruct(&ns);
    ck_assert_ptr_null(ns.net_interface);
    pmix_net_stats_t *nss = PMIx_Net_stats_create(1);
    nss[0].net_interface = dup_s("eth1");
    PMIx_Net_stats_free(nss, 1);

    pmix_node_stats_t nd;
    PMIx_Node_stats_construct(&nd);
    nd.node = dup_s("n1");
    nd.diskstats = PMIx_Disk_stats_create(1);
    nd.diskstats[0].disk = dup_s("sdc");
    nd.ndiskstats = 1;
    PMIx_Node_stats_destruct(&nd);
    ck_assert_ptr_null(nd.diskstats);
    pmix_node_stats_t *nds = PMIx_Node_stats_create(2);
    nds[1].netstats = PMIx_Net_stats_create(1);
    nds[1].nnetstats = 1;
    PMIx_Node_stats_free(nds, 2);
}
END_TEST

START_TEST(info_list_and_strings)
{
    void *l = PMIx_Info_list_start();
    void *next = (void *)1;
    uint32_t u = 1;

    ck_assert_ptr_null(PMIx_Info_list_get_info(l, NULL, &next));
    ck_assert_ptr_null(next);
    ck_assert_int_eq(PMIx_Info_list_add(l, "k2", &u, PMIX_UINT32), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Info_list_prepend(l, "k1", "first", PMIX_STRING), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Info_list_add(l, "k3", &u, PMIX_UINT32), PMIX_SUCCESS);
    const char *want[] = {"k1", "k2", "k3"};
    void *prev = NULL;
    for (int i = 0; i < 3; i++) {
        pmix_info_t *it = PMIx_Info_list_get_info(l, prev, &next);
        ck_assert_ptr_nonnull(it);
        ck_assert_str_eq(it->key, want[i]);
        ck_assert((next == NULL) == (i == 2));
        prev = next;
    }
    pmix_data_array_t d;
    ck_assert_int_eq(PMIx_Info_list_convert(l, &d), PMIX_SUCCESS);
    ck_assert_uint_eq(d.size, 3);
    ck_assert_str_eq(((pmix_info_t *)d.array)[0].value.data.string, "first");
    PMIx_Data_array_destruct(&d);
    PMIx_Info_list_release(l);

    ck_assert_int_eq(PMIx_Error_code("PMIX_ERR_NOT_FOUND"), PMIX_ERR_NOT_FOUND);
    ck_assert_int_eq(PMIx_Error_code("pmix_err_timeout"), PMIX_ERR_TIMEOUT);
    ck_assert_int_eq(PMIx_Error_code(PMIx_Error_string(PMIX_ERR_UNREACH)), PMIX_ERR_UNREACH);
    ck_assert_int_eq(PMIx_Error_code("NO_SUCH_CODE"), INT32_MIN);

    /* the data symbol Open MPI 5 binds: a NULL-terminated list of names */
    size_t n = 0;
    while (pmix_framework_names[n]) {
        ck_assert_uint_gt(strlen(pmix_framework_names[n]), 0);
        n++;
    }
    ck_assert_uint_gt(n, 0);
}
END_TEST

static void never_called(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)status, (void)info, (void)ninfo, (void)release_fn, (void)release_cbdata;
    *(int *)cbdata = 1;
}

START_TEST(not_supported)
{
    int called = 0;
    pmix_server_module_t module;

    memset(&module, 0, sizeof(module));
    ck_assert_int_eq(PMIx_Session_control(1, NULL, 0, never_called, &called),
                     PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(PMIx_Session_control(1, NULL, 0, NULL, NULL), PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(called, 0);
    ck_assert_int_eq(PMIx_tool_set_server_module(&module), PMIX_ERR_NOT_SUPPORTED);
    ck_assert(!PMIx_tool_is_connected());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("v5_api");
    TCase *tc = tcase_create("v5");
    tcase_add_test(tc, keys_nspaces_procs);
    tcase_add_test(tc, argv_and_env);
    tcase_add_test(tc, values_and_infos);
    tcase_add_test(tc, buffers_and_arrays);
    tcase_add_test(tc, struct_objects);
    tcase_add_test(tc, apps_queries_pdata_stats);
    tcase_add_test(tc, info_list_and_strings);
    tcase_add_test(tc, not_supported);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
