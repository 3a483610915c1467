/* test_types.c - unit tests of lib/types: value load/unload/xfer/compare/
 * destruct for every type a pmix_value_t holds, info and info-list
 * semantics, deep data arrays, the string functions, the attribute map,
 * the regex generators/parsers and the internal helpers.
 *
 * Run under valgrind with CK_FORK=no to check that every copy is released.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include <pmix.h>
#include <pmix_server.h>

#include "types/types.h"

/* ---- samples: one (or two) values of every type --------------------------- */

enum unload_kind { U_INPLACE, U_STRING, U_BYTES, U_PTR, U_BOXED, U_ENVAR };

struct sample {
    pmix_data_type_t type;
    const void *data;  /* what PMIx_Value_load takes */
    const void *other; /* a different value of the same type (compare test) */
    enum unload_kind unload;
};

static bool s_bool = true, s_bool2 = false;
static uint8_t s_byte = 0xab, s_byte2 = 1;
static const char s_str[] = "hello", s_str2[] = "help";
static size_t s_size = 123456789, s_size2 = 5;
static pid_t s_pid = 4242, s_pid2 = 1;
static int s_int = -7, s_int2 = 7;
static int8_t s_i8 = -8, s_i8b = 8;
static int16_t s_i16 = -1600, s_i16b = 1600;
static int32_t s_i32 = -320000, s_i32b = 2;
static int64_t s_i64 = -6400000000LL, s_i64b = 6400000000LL;
static unsigned int s_uint = 7, s_uint2 = 8;
static uint8_t s_u8 = 200, s_u8b = 201;
static uint16_t s_u16 = 60000, s_u16b = 2;
static uint32_t s_u32 = 4000000000u, s_u32b = 3;
static uint64_t s_u64 = 18000000000000000000ULL, s_u64b = 1;
static float s_flt = 1.5f, s_flt2 = -1.5f;
static double s_dbl = -2.25, s_dbl2 = 2.25;
static struct timeval s_tv = { 12, 34 }, s_tv2 = { 12, 35 };
static time_t s_time = 1700000000, s_time2 = 1;
static pmix_status_t s_status = PMIX_ERR_NOT_FOUND, s_status2 = PMIX_SUCCESS;
static pmix_proc_t s_proc = { "nsA", 3 }, s_proc2 = { "nsA", 4 };
static pmix_byte_object_t s_bo = { "\x01\x02\x00\x03", 4 }, s_bo2 = { "\x01\x02", 2 };
static pmix_persistence_t s_persist = PMIX_PERSIST_PROC, s_persist2 = PMIX_PERSIST_APP;
static pmix_scope_t s_scope = PMIX_GLOBAL, s_scope2 = PMIX_LOCAL;
static pmix_data_range_t s_range = PMIX_RANGE_SESSION, s_range2 = PMIX_RANGE_LOCAL;
static uint8_t s_cmd = 3, s_cmd2 = 4;
static pmix_info_directives_t s_dirs = PMIX_INFO_REQD, s_dirs2 = 0;
static pmix_data_type_t s_dtype = PMIX_UINT32, s_dtype2 = PMIX_STRING;
static pmix_proc_state_t s_pstate = PMIX_PROC_STATE_RUNNING, s_pstate2 = PMIX_PROC_STATE_ERROR;
static pmix_proc_info_t s_pinfo = { { "nsP", 1 }, "host1", "/bin/true", 99, 0, PMIX_PROC_STATE_RUNNING };
static pmix_proc_info_t s_pinfo2 = { { "nsP", 1 }, "host2", "/bin/true", 99, 0, PMIX_PROC_STATE_RUNNING };
static uint32_t s_u32arr[] = { 1, 2, 3 }, s_u32arr2[] = { 1, 2, 4 };
static pmix_data_array_t s_darray = { PMIX_UINT32, 3, s_u32arr }, s_darray2 = { PMIX_UINT32, 3, s_u32arr2 };
static pmix_rank_t s_rank = 5, s_rank2 = PMIX_RANK_WILDCARD;
static pmix_alloc_directive_t s_adir = PMIX_ALLOC_EXTEND, s_adir2 = PMIX_ALLOC_NEW;
static pmix_iof_channel_t s_iof = PMIX_FWD_STDOUT_CHANNEL, s_iof2 = PMIX_FWD_STDERR_CHANNEL;
static pmix_envar_t s_envar = { "PATH", "/bin", ':' }, s_envar2 = { "PATH", "/usr/bin", ':' };
static uint32_t s_c3[] = { 1, 2, 3 }, s_c3b[] = { 1, 2, 9 };
static pmix_coord_t s_coord = { PMIX_COORD_LOGICAL_VIEW, s_c3, 3 };
static pmix_coord_t s_coord2 = { PMIX_COORD_LOGICAL_VIEW, s_c3b, 3 };
static char *s_desc[] = { "line one", "line two", NULL };
static pmix_regattr_t s_regattr = { "PMIX_JOB_SIZE", "pmix.job.size", PMIX_UINT32, s_desc };
static pmix_regattr_t s_regattr2 = { "PMIX_JOB_SIZE", "pmix.job.size", PMIX_UINT64, s_desc };
static const char s_regex[] = "spmix:n1,n2", s_regex2[] = "spmix:n1,n3";
static pmix_job_state_t s_jstate = PMIX_JOB_STATE_RUNNING, s_jstate2 = PMIX_JOB_STATE_TERMINATED;
static pmix_link_state_t s_lstate = PMIX_LINK_UP, s_lstate2 = PMIX_LINK_DOWN;
static pmix_cpuset_t s_cpuset = { "hwloc", NULL }, s_cpuset2 = { "hwloc", NULL }; /* bitmaps set in setup */
static pmix_geometry_t s_geo = { 1, "uuid-1", "ib0", &s_coord, 1 }, s_geo2 = { 1, "uuid-2", "ib0", &s_coord, 1 };
static pmix_device_distance_t s_dd = { "uuid-d", "mlx5_0", PMIX_DEVTYPE_NETWORK, 10, 20 };
static pmix_device_distance_t s_dd2 = { "uuid-d", "mlx5_0", PMIX_DEVTYPE_NETWORK, 10, 21 };
static pmix_endpoint_t s_ep = { "uuid-e", "eth0", { "\x0a\x0b", 2 } }, s_ep2 = { "uuid-e", "eth0", { "\x0a\x0c", 2 } };
static int s_topo_obj;
static pmix_topology_t s_topo = { "hwloc", &s_topo_obj }, s_topo2 = { "other", &s_topo_obj };
static pmix_device_type_t s_devtype = PMIX_DEVTYPE_GPU, s_devtype2 = PMIX_DEVTYPE_DMA;
static pmix_locality_t s_loc = PMIX_LOCALITY_SHARE_NODE, s_loc2 = PMIX_LOCALITY_SHARE_L3CACHE;
static pmix_nspace_t s_nspace = "nsNamespace", s_nspace2 = "nsOther";
static pmix_proc_stats_t s_pstats = { .node = "n1", .proc = { "nsS", 2 }, .pid = 7, .cmd = "a.out", .rss = 1.5f };
static pmix_proc_stats_t s_pstats2 = { .node = "n1", .proc = { "nsS", 2 }, .pid = 8, .cmd = "a.out" };
static pmix_disk_stats_t s_dk = { .disk = "sda", .num_reads_completed = 10 }, s_dk2 = { .disk = "sdb" };
static pmix_net_stats_t s_net = { .net_interface = "eth0", .num_bytes_sent = 99 }, s_net2 = { .net_interface = "eth1" };
static pmix_node_stats_t s_nd = { .node = "n1", .la = 0.5f, .diskstats = &s_dk, .ndiskstats = 1,
                                  .netstats = &s_net, .nnetstats = 1 };
static pmix_node_stats_t s_nd2 = { .node = "n1", .la = 0.5f, .diskstats = &s_dk2, .ndiskstats = 1 };
static char s_dbuf_bytes[] = "packed-bytes";
static pmix_data_buffer_t s_dbuf = { s_dbuf_bytes, s_dbuf_bytes + 12, s_dbuf_bytes + 3, 13, 12 };
static pmix_data_buffer_t s_dbuf2 = { s_dbuf_bytes, s_dbuf_bytes + 5, s_dbuf_bytes, 13, 5 };
static uint64_t s_stor = 0x4, s_stor2 = 0x8;
static uint16_t s_stor_at = 1, s_stor_at2 = 2;
static int s_pointee;

static const struct sample samples[] = {
    { PMIX_BOOL, &s_bool, &s_bool2, U_INPLACE },
    { PMIX_BYTE, &s_byte, &s_byte2, U_INPLACE },
    { PMIX_STRING, s_str, s_str2, U_STRING },
    { PMIX_SIZE, &s_size, &s_size2, U_INPLACE },
    { PMIX_PID, &s_pid, &s_pid2, U_INPLACE },
    { PMIX_INT, &s_int, &s_int2, U_INPLACE },
    { PMIX_INT8, &s_i8, &s_i8b, U_INPLACE },
    { PMIX_INT16, &s_i16, &s_i16b, U_INPLACE },
    { PMIX_INT32, &s_i32, &s_i32b, U_INPLACE },
    { PMIX_INT64, &s_i64, &s_i64b, U_INPLACE },
    { PMIX_UINT, &s_uint, &s_uint2, U_INPLACE },
    { PMIX_UINT8, &s_u8, &s_u8b, U_INPLACE },
    { PMIX_UINT16, &s_u16, &s_u16b, U_INPLACE },
    { PMIX_UINT32, &s_u32, &s_u32b, U_INPLACE },
    { PMIX_UINT64, &s_u64, &s_u64b, U_INPLACE },
    { PMIX_FLOAT, &s_flt, &s_flt2, U_INPLACE },
    { PMIX_DOUBLE, &s_dbl, &s_dbl2, U_INPLACE },
    { PMIX_TIMEVAL, &s_tv, &s_tv2, U_INPLACE },
    { PMIX_TIME, &s_time, &s_time2, U_INPLACE },
    { PMIX_STATUS, &s_status, &s_status2, U_INPLACE },
    { PMIX_PROC, &s_proc, &s_proc2, U_INPLACE },
    { PMIX_BYTE_OBJECT, &s_bo, &s_bo2, U_BYTES },
    { PMIX_PERSIST, &s_persist, &s_persist2, U_INPLACE },
    { PMIX_POINTER, &s_pointee, &s_int, U_PTR },
    { PMIX_SCOPE, &s_scope, &s_scope2, U_INPLACE },
    { PMIX_DATA_RANGE, &s_range, &s_range2, U_INPLACE },
    { PMIX_COMMAND, &s_cmd, &s_cmd2, U_INPLACE },
    { PMIX_INFO_DIRECTIVES, &s_dirs, &s_dirs2, U_INPLACE },
    { PMIX_DATA_TYPE, &s_dtype, &s_dtype2, U_INPLACE },
    { PMIX_PROC_STATE, &s_pstate, &s_pstate2, U_INPLACE },
    { PMIX_PROC_INFO, &s_pinfo, &s_pinfo2, U_BOXED },
    { PMIX_DATA_ARRAY, &s_darray, &s_darray2, U_BOXED },
    { PMIX_PROC_RANK, &s_rank, &s_rank2, U_INPLACE },
    { PMIX_COMPRESSED_STRING, &s_bo, &s_bo2, U_BYTES },
    { PMIX_ALLOC_DIRECTIVE, &s_adir, &s_adir2, U_INPLACE },
    { PMIX_IOF_CHANNEL, &s_iof, &s_iof2, U_INPLACE },
    { PMIX_ENVAR, &s_envar, &s_envar2, U_ENVAR },
    { PMIX_COORD, &s_coord, &s_coord2, U_BOXED },
    { PMIX_REGATTR, &s_regattr, &s_regattr2, U_BOXED },
    { PMIX_REGEX, s_regex, s_regex2, U_BYTES },
    { PMIX_JOB_STATE, &s_jstate, &s_jstate2, U_INPLACE },
    { PMIX_LINK_STATE, &s_lstate, &s_lstate2, U_INPLACE },
    { PMIX_PROC_CPUSET, &s_cpuset, &s_cpuset2, U_BOXED },
    { PMIX_GEOMETRY, &s_geo, &s_geo2, U_BOXED },
    { PMIX_DEVICE_DIST, &s_dd, &s_dd2, U_BOXED },
    { PMIX_ENDPOINT, &s_ep, &s_ep2, U_BOXED },
    { PMIX_TOPO, &s_topo, &s_topo2, U_BOXED },
    { PMIX_DEVTYPE, &s_devtype, &s_devtype2, U_INPLACE },
    { PMIX_LOCTYPE, &s_loc, &s_loc2, U_INPLACE },
    { PMIX_COMPRESSED_BYTE_OBJECT, &s_bo, &s_bo2, U_BYTES },
    { PMIX_PROC_NSPACE, &s_nspace, &s_nspace2, U_INPLACE },
    { PMIX_PROC_STATS, &s_pstats, &s_pstats2, U_BOXED },
    { PMIX_DISK_STATS, &s_dk, &s_dk2, U_BOXED },
    { PMIX_NET_STATS, &s_net, &s_net2, U_BOXED },
    { PMIX_NODE_STATS, &s_nd, &s_nd2, U_BOXED },
    { PMIX_DATA_BUFFER, &s_dbuf, &s_dbuf2, U_BOXED },
    { PMIX_STOR_MEDIUM, &s_stor, &s_stor2, U_INPLACE },
    { PMIX_STOR_ACCESS, &s_stor, &s_stor2, U_INPLACE },
    { PMIX_STOR_PERSIST, &s_stor, &s_stor2, U_INPLACE },
    { PMIX_STOR_ACCESS_TYPE, &s_stor_at, &s_stor_at2, U_INPLACE },
};
#define NSAMPLES ((int)(sizeof(samples) / sizeof(samples[0])))

static void samples_setup(void)
{
    s_cpuset.bitmap = hwloc_bitmap_alloc();
    s_cpuset2.bitmap = hwloc_bitmap_alloc();
    hwloc_bitmap_set_range(s_cpuset.bitmap, 0, 3);
    hwloc_bitmap_set_range(s_cpuset2.bitmap, 0, 5);
}

static void samples_teardown(void)
{
    hwloc_bitmap_free(s_cpuset.bitmap);
    hwloc_bitmap_free(s_cpuset2.bitmap);
    s_cpuset.bitmap = s_cpuset2.bitmap = NULL;
}

/* Load, xfer, compare, unload and destruct one sample. */
START_TEST(test_value_roundtrip)
{
    const struct sample *s = &samples[_i];
    pmix_value_t v, w, o, back;
    char inplace[sizeof(pmix_proc_t) + sizeof(pmix_nspace_t)];
    void *out;
    size_t sz = 0;

    ck_assert_int_eq(PMIx_Value_load(&v, s->data, s->type), PMIX_SUCCESS);
    ck_assert_uint_eq(v.type, s->type);

    /* a copy compares equal and shares nothing with the original */
    ck_assert_int_eq(PMIx_Value_xfer(&w, &v), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Value_compare(&v, &w), PMIX_EQUAL);
    if (s->unload == U_BOXED) {
        ck_assert_ptr_nonnull(v.data.ptr);
        ck_assert_ptr_ne(v.data.ptr, s->data);
        ck_assert_ptr_ne(v.data.ptr, w.data.ptr);
    }
    if (s->unload == U_STRING)
        ck_assert_ptr_ne(v.data.string, w.data.string);
    if (s->unload == U_BYTES)
        ck_assert_ptr_ne(v.data.bo.bytes, w.data.bo.bytes);

    /* a different value of the type does not compare equal, both ways */
    ck_assert_int_eq(PMIx_Value_load(&o, s->other, s->type), PMIX_SUCCESS);
    ck_assert_int_ne(PMIx_Value_compare(&v, &o), PMIX_EQUAL);
    ck_assert_int_ne(PMIx_Value_compare(&o, &v), PMIX_EQUAL);
    PMIx_Value_destruct(&o);
    ck_assert_uint_eq(o.type, PMIX_UNDEF);

    /* unload hands the data out; loading it back gives an equal value */
    memset(inplace, 0, sizeof(inplace));
    out = (s->unload == U_INPLACE) ? inplace : NULL;
    ck_assert_int_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_SUCCESS);
    ck_assert_ptr_nonnull(out);
    switch (s->unload) {
    case U_INPLACE:
        ck_assert_ptr_eq(out, inplace);
        if (s->type == PMIX_PROC_NSPACE)
            ck_assert_uint_eq(sz, strlen(s_nspace));
        ck_assert_int_eq(PMIx_Value_load(&back, inplace, s->type), PMIX_SUCCESS);
        break;
    case U_STRING:
        ck_assert_str_eq(out, s->data);
        ck_assert_uint_eq(sz, strlen(s->data));
        ck_assert_int_eq(PMIx_Value_load(&back, out, s->type), PMIX_SUCCESS);
        free(out);
        break;
    case U_BYTES:
        ck_assert_uint_eq(sz, v.data.bo.size);
        ck_assert_ptr_ne(out, v.data.bo.bytes);
        ck_assert_int_eq(memcmp(out, v.data.bo.bytes, sz), 0);
        back.type = s->type;
        back.data.bo.bytes = out;
        back.data.bo.size = sz;
        break;
    case U_PTR:
        ck_assert_ptr_eq(out, s->data);
        ck_assert_int_eq(PMIx_Value_load(&back, out, s->type), PMIX_SUCCESS);
        break;
    case U_BOXED:
        ck_assert_ptr_ne(out, v.data.ptr);
        back.type = s->type;
        back.data.ptr = out; /* destruct below frees it deep */
        break;
    case U_ENVAR:
        back.type = s->type;
        memcpy(&back.data.envar, out, sizeof(pmix_envar_t));
        free(out);
        break;
    }
    ck_assert_int_eq(PMIx_Value_compare(&v, &back), PMIX_EQUAL);

    PMIx_Value_destruct(&back);
    PMIx_Value_destruct(&w);
    PMIx_Value_destruct(&v);
    ck_assert_uint_eq(v.type, PMIX_UNDEF);
    ck_assert_ptr_null(v.data.ptr);
}
END_TEST

START_TEST(test_value_null_data)
{
    pmix_value_t v;
    pmix_info_t info;

    ck_assert_int_eq(PMIx_Value_load(&v, NULL, PMIX_BOOL), PMIX_SUCCESS);
    ck_assert(v.data.flag);
    ck_assert_int_eq(PMIx_Info_load(&info, "pmix.collect", NULL, PMIX_BOOL), PMIX_SUCCESS);
    ck_assert_str_eq(info.key, "pmix.collect");
    ck_assert_uint_eq(info.value.type, PMIX_BOOL);
    ck_assert(info.value.data.flag);
    ck_assert(spx_info_true(&info));

    ck_assert_int_eq(PMIx_Value_load(&v, NULL, PMIX_STRING), PMIX_SUCCESS);
    ck_assert_uint_eq(v.type, PMIX_STRING);
    ck_assert_ptr_null(v.data.string);
    PMIx_Value_destruct(&v);

    ck_assert_int_eq(PMIx_Info_load(&info, NULL, &s_int, PMIX_INT), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(PMIx_Value_load(&v, &s_int, PMIX_INFO), PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(PMIx_Value_load(&v, &s_int, 29), PMIX_ERR_NOT_SUPPORTED);
    ck_assert_uint_eq(v.type, PMIX_UNDEF);
}
END_TEST

START_TEST(test_value_unload_errors)
{
    pmix_value_t v = { .type = PMIX_UNDEF };
    void *out = NULL;
    size_t sz;

    ck_assert_int_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_ERR_UNKNOWN_DATA_TYPE);
    PMIx_Value_load(&v, &s_u32, PMIX_UINT32);
    ck_assert_int_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_ERR_BAD_PARAM); /* no storage */
    ck_assert_int_eq(PMIx_Value_unload(&v, NULL, &sz), PMIX_ERR_BAD_PARAM);
}
END_TEST

START_TEST(test_value_compare_order)
{
    pmix_value_t a, b;
    int neg = -1, pos = 1;
    uint32_t big = 0x100, small = 0xff;

    PMIx_Value_load(&a, &neg, PMIX_INT);
    PMIx_Value_load(&b, &pos, PMIX_INT);
    ck_assert_int_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE2_GREATER);
    ck_assert_int_eq(PMIx_Value_compare(&b, &a), PMIX_VALUE1_GREATER);
    PMIx_Value_load(&a, &big, PMIX_UINT32);
    PMIx_Value_load(&b, &small, PMIX_UINT32);
    ck_assert_int_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE1_GREATER);
    PMIx_Value_load(&b, &pos, PMIX_INT);
    ck_assert_int_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE_TYPE_DIFFERENT);
    PMIx_Value_load(&a, &s_coord, PMIX_COORD);
    s_coord2.view = PMIX_COORD_PHYSICAL_VIEW;
    PMIx_Value_load(&b, &s_coord2, PMIX_COORD);
    s_coord2.view = PMIX_COORD_LOGICAL_VIEW;
    ck_assert_int_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE_INCOMPATIBLE_OBJECTS);
    PMIx_Value_destruct(&a);
    PMIx_Value_destruct(&b);
}
END_TEST

/* info[0] holds a data array of infos whose second entry holds a data array
 * of strings: three levels, all copied, none shared. */
START_TEST(test_darray_nested_deep)
{
    char *strs[] = { "a", "bb", "ccc" };
    pmix_data_array_t inner = { PMIX_STRING, 3, strs };
    pmix_info_t mid[2];
    pmix_data_array_t middle = { PMIX_INFO, 2, mid };
    pmix_value_t v, w;
    pmix_info_t *cmid;
    pmix_data_array_t *cinner;
    char **cstrs;

    PMIx_Info_load(&mid[0], "k.one", &s_u32, PMIX_UINT32);
    PMIx_Info_load(&mid[1], "k.two", &inner, PMIX_DATA_ARRAY);
    ck_assert_int_eq(PMIx_Value_load(&v, &middle, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Value_xfer(&w, &v), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Value_compare(&v, &w), PMIX_EQUAL);

    cmid = w.data.darray->array;
    ck_assert_ptr_ne(cmid, mid);
    ck_assert_ptr_ne(cmid, v.data.darray->array);
    ck_assert_str_eq(cmid[1].key, "k.two");
    cinner = cmid[1].value.data.darray;
    ck_assert_ptr_ne(cinner, mid[1].value.data.darray);
    cstrs = cinner->array;
    ck_assert_ptr_ne(cstrs, strs);
    ck_assert_ptr_ne(cstrs[2], strs[2]);
    ck_assert_str_eq(cstrs[2], "ccc");

    /* change the copy deep down: the original does not follow */
    cstrs[2][0] = 'X';
    ck_assert_str_eq(((char **)((pmix_info_t *)v.data.darray->array)[1].value.data.darray->array)[2],
                     "ccc");
    ck_assert_int_ne(PMIx_Value_compare(&v, &w), PMIX_EQUAL);

    PMIx_Value_destruct(&w);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&mid[0].value);
    PMIx_Value_destruct(&mid[1].value);
}
END_TEST

START_TEST(test_darray_types)
{
    pmix_value_t vals[2];
    pmix_app_t app = { "a.out", (char *[]){ "a.out", "-x", NULL }, (char *[]){ "A=1", NULL }, "/tmp", 4,
                       NULL, 0 };
    pmix_query_t q = { (char *[]){ "pmix.qry.ns", NULL }, NULL, 0 };
    pmix_pdata_t pd;
    pmix_data_array_t src, dst;
    pmix_info_t qual;

    PMIx_Value_load(&vals[0], s_str, PMIX_STRING);
    PMIx_Value_load(&vals[1], &s_darray, PMIX_DATA_ARRAY);
    src = (pmix_data_array_t){ PMIX_VALUE, 2, vals };
    ck_assert_int_eq(spx_darray_copy(&dst, &src), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Value_compare(&vals[1], &((pmix_value_t *)dst.array)[1]), PMIX_EQUAL);
    PMIx_Data_array_destruct(&dst);
    ck_assert_ptr_null(dst.array);
    ck_assert_uint_eq(dst.size, 0);
    PMIx_Value_destruct(&vals[0]);
    PMIx_Value_destruct(&vals[1]);

    PMIx_Info_load(&qual, "pmix.nspace", "ns", PMIX_STRING);
    app.info = &qual;
    app.ninfo = 1;
    q.qualifiers = &qual;
    q.nqual = 1;
    src = (pmix_data_array_t){ PMIX_APP, 1, &app };
    ck_assert_int_eq(spx_darray_copy(&dst, &src), PMIX_SUCCESS);
    ck_assert_str_eq(((pmix_app_t *)dst.array)->argv[1], "-x");
    ck_assert_ptr_ne(((pmix_app_t *)dst.array)->info, &qual);
    PMIx_Data_array_destruct(&dst);
    src = (pmix_data_array_t){ PMIX_QUERY, 1, &q };
    ck_assert_int_eq(spx_darray_copy(&dst, &src), PMIX_SUCCESS);
    ck_assert_str_eq(((pmix_query_t *)dst.array)->qualifiers[0].value.data.string, "ns");
    PMIx_Data_array_destruct(&dst);

    memset(&pd, 0, sizeof(pd));
    spx_proc_load(&pd.proc, "nsX", 2);
    spx_key_load(pd.key, "my.key");
    PMIx_Value_load(&pd.value, s_str, PMIX_STRING);
    src = (pmix_data_array_t){ PMIX_PDATA, 1, &pd };
    ck_assert_int_eq(spx_darray_copy(&dst, &src), PMIX_SUCCESS);
    ck_assert_str_eq(((pmix_pdata_t *)dst.array)->value.data.string, "hello");
    PMIx_Data_array_destruct(&dst);
    PMIx_Value_destruct(&pd.value);
    PMIx_Value_destruct(&qual.value);

    /* an empty array copies to an empty array of the same type */
    src = (pmix_data_array_t){ PMIX_INFO, 0, NULL };
    ck_assert_int_eq(spx_darray_copy(&dst, &src), PMIX_SUCCESS);
    ck_assert_uint_eq(dst.type, PMIX_INFO);
    ck_assert_ptr_null(dst.array);
}
END_TEST

START_TEST(test_info_xfer_persistent)
{
    pmix_info_t src, dst;

    PMIx_Info_load(&src, "k", s_str, PMIX_STRING);
    ck_assert_int_eq(PMIx_Info_xfer(&dst, &src), PMIX_SUCCESS);
    ck_assert_ptr_ne(dst.value.data.string, src.value.data.string);
    PMIx_Value_destruct(&dst.value);
    src.flags |= PMIX_INFO_PERSISTENT;
    ck_assert_int_eq(PMIx_Info_xfer(&dst, &src), PMIX_SUCCESS);
    ck_assert_ptr_eq(dst.value.data.string, src.value.data.string);
    ck_assert(dst.flags & PMIX_INFO_PERSISTENT);
    PMIx_Value_destruct(&src.value);
}
END_TEST

START_TEST(test_info_list)
{
    void *list = PMIx_Info_list_start();
    pmix_info_t mine, extra;
    pmix_data_array_t da;
    pmix_info_t *arr;

    ck_assert_ptr_nonnull(list);
    ck_assert_int_eq(PMIx_Info_list_convert(list, &da), PMIX_ERR_EMPTY);
    ck_assert_uint_eq(da.type, PMIX_INFO);
    ck_assert_int_eq(PMIx_Info_list_add(list, "a.str", s_str, PMIX_STRING), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Info_list_add(list, "a.flag", NULL, PMIX_BOOL), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Info_list_add(list, "a.arr", &s_darray, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    PMIx_Info_load(&extra, "a.xfer", &s_u32, PMIX_UINT32);
    ck_assert_int_eq(PMIx_Info_list_xfer(list, &extra), PMIX_SUCCESS);
    PMIx_Info_load(&mine, "a.mine", s_str2, PMIX_STRING);
    ck_assert_int_eq(PMIx_Info_list_insert(list, &mine), PMIX_SUCCESS);
    for (int i = 0; i < 20; i++) /* forces the list to grow */
        ck_assert_int_eq(PMIx_Info_list_add(list, "a.int", &i, PMIX_INT), PMIX_SUCCESS);

    ck_assert_int_eq(PMIx_Info_list_convert(list, &da), PMIX_SUCCESS);
    ck_assert_uint_eq(da.type, PMIX_INFO);
    ck_assert_uint_eq(da.size, 25);
    arr = da.array;
    ck_assert_str_eq(arr[0].key, "a.str");
    ck_assert_str_eq(arr[0].value.data.string, "hello");
    ck_assert(arr[1].value.data.flag);
    ck_assert_int_eq(PMIx_Value_compare(&arr[3].value, &extra.value), PMIX_EQUAL);
    /* the inserted info is still the caller's: same pointer, flagged */
    ck_assert_ptr_eq(arr[4].value.data.string, mine.value.data.string);
    ck_assert(arr[4].flags & PMIX_INFO_PERSISTENT);
    ck_assert_int_eq(arr[24].value.data.integer, 19);
    ck_assert_ptr_eq(spx_info_find(arr, da.size, "a.xfer"), &arr[3]);

    PMIx_Info_list_release(list);
    PMIx_Data_array_destruct(&da);
    ck_assert_str_eq(mine.value.data.string, "help"); /* untouched by both */
    PMIx_Value_destruct(&mine.value);
    PMIx_Value_destruct(&extra.value);
    PMIx_Info_list_release(NULL);
    ck_assert_int_eq(PMIx_Info_list_add(NULL, "k", NULL, PMIX_BOOL), PMIX_ERR_BAD_PARAM);
}
END_TEST

START_TEST(test_info_helpers)
{
    pmix_info_t info[4], *dup;
    const char *f = "false";

    PMIx_Info_load(&info[0], "pmix.evprepend", NULL, PMIX_UNDEF);
    PMIx_Info_load(&info[1], "pmix.a", &s_bool2, PMIX_BOOL);
    PMIx_Info_load(&info[2], "pmix.b", f, PMIX_STRING);
    PMIx_Info_load(&info[3], "pmix.c", "1", PMIX_STRING);
    ck_assert(spx_info_true(&info[0]));
    ck_assert(!spx_info_true(&info[1]));
    ck_assert(!spx_info_true(&info[2]));
    ck_assert(spx_info_true(&info[3]));
    ck_assert(!spx_info_true(NULL));
    ck_assert(spx_info_flag(info, 4, "pmix.evprepend"));
    ck_assert(!spx_info_flag(info, 4, "pmix.absent"));
    ck_assert_ptr_eq(spx_info_find(info, 4, "pmix.c"), &info[3]);
    ck_assert_ptr_null(spx_info_find(info, 4, "pmix.d"));
    ck_assert_ptr_null(spx_info_find(NULL, 0, "pmix.c"));

    info[3].flags |= PMIX_INFO_PERSISTENT;
    ck_assert_int_eq(spx_info_array_dup(&dup, info, 4), PMIX_SUCCESS);
    ck_assert_ptr_ne(dup[3].value.data.string, info[3].value.data.string);
    ck_assert(!(dup[3].flags & PMIX_INFO_PERSISTENT));
    ck_assert_str_eq(dup[2].value.data.string, "false");
    spx_info_array_free(dup, 4);
    ck_assert_int_eq(spx_info_array_dup(&dup, info, 0), PMIX_SUCCESS);
    ck_assert_ptr_null(dup);
    for (int i = 0; i < 4; i++)
        PMIx_Value_destruct(&info[i].value);

    ck_assert(spx_key_is_reserved("pmix.job.size"));
    ck_assert(!spx_key_is_reserved("btl.tcp.4.1"));
    ck_assert(!spx_key_is_reserved(NULL));
}
END_TEST

START_TEST(test_proc_helpers)
{
    pmix_proc_t a, b, w;

    spx_proc_load(&a, "ns1", 3);
    spx_proc_load(&b, "ns1", 3);
    spx_proc_load(&w, "ns1", PMIX_RANK_WILDCARD);
    ck_assert(spx_proc_eq(&a, &b));
    ck_assert(!spx_proc_eq(&a, &w));
    ck_assert(spx_proc_match(&a, &w));
    ck_assert(spx_proc_match(&w, &a));
    b.rank = 4;
    ck_assert(!spx_proc_match(&a, &b));
    spx_proc_load(&b, "ns2", PMIX_RANK_WILDCARD);
    ck_assert(!spx_proc_match(&a, &b));
}
END_TEST

START_TEST(test_value_coerce)
{
    pmix_value_t v;
    uint32_t u;
    int i;
    uint16_t u16 = 65535;
    int64_t big = 5000000000LL;

    PMIx_Value_load(&v, &u16, PMIX_UINT16);
    ck_assert_int_eq(spx_value_to_u32(&v, &u), PMIX_SUCCESS);
    ck_assert_uint_eq(u, 65535);
    ck_assert(spx_value_is_type(&v, PMIX_UINT16));
    ck_assert(!spx_value_is_type(&v, PMIX_UINT32));
    PMIx_Value_load(&v, &s_int, PMIX_INT);
    ck_assert_int_eq(spx_value_to_u32(&v, &u), PMIX_ERR_BAD_PARAM); /* negative */
    ck_assert_int_eq(spx_value_to_int(&v, &i), PMIX_SUCCESS);
    ck_assert_int_eq(i, -7);
    PMIx_Value_load(&v, &big, PMIX_INT64);
    ck_assert_int_eq(spx_value_to_u32(&v, &u), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(spx_value_to_int(&v, &i), PMIX_ERR_BAD_PARAM);
    PMIx_Value_load(&v, &s_dbl, PMIX_DOUBLE);
    ck_assert_int_eq(spx_value_to_u32(&v, &u), PMIX_ERR_TYPE_MISMATCH);
    PMIx_Value_load(&v, "42", PMIX_STRING);
    ck_assert_int_eq(spx_value_to_u32(&v, &u), PMIX_SUCCESS);
    ck_assert_uint_eq(u, 42);
    PMIx_Value_destruct(&v);
    PMIx_Value_load(&v, "4x", PMIX_STRING);
    ck_assert_int_eq(spx_value_to_u32(&v, &u), PMIX_ERR_BAD_PARAM);
    PMIx_Value_destruct(&v);
}
END_TEST

START_TEST(test_value_copy_free)
{
    pmix_value_t v, *c = NULL;

    PMIx_Value_load(&v, &s_pinfo, PMIX_PROC_INFO);
    ck_assert_int_eq(spx_value_copy(&c, &v), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Value_compare(&v, c), PMIX_EQUAL);
    ck_assert_ptr_ne(c->data.pinfo->hostname, v.data.pinfo->hostname);
    spx_value_free(c);
    spx_value_free(NULL);
    ck_assert_int_eq(spx_value_copy(&c, NULL), PMIX_ERR_BAD_PARAM);
    ck_assert_ptr_null(c);
    PMIx_Value_destruct(&v);
}
END_TEST

/* ---- strings ------------------------------------------------------------------ */

struct str_case {
    const char *(*fn)(int);
    int code;
    const char *want;
};

static const char *err_fn(int c) { return PMIx_Error_string(c); }
static const char *type_fn(int c) { return PMIx_Data_type_string((pmix_data_type_t)c); }
static const char *pstate_fn(int c) { return PMIx_Proc_state_string((pmix_proc_state_t)c); }
static const char *scope_fn(int c) { return PMIx_Scope_string((pmix_scope_t)c); }
static const char *persist_fn(int c) { return PMIx_Persistence_string((pmix_persistence_t)c); }
static const char *range_fn(int c) { return PMIx_Data_range_string((pmix_data_range_t)c); }
static const char *adir_fn(int c) { return PMIx_Alloc_directive_string((pmix_alloc_directive_t)c); }
static const char *iof_fn(int c) { return PMIx_IOF_channel_string((pmix_iof_channel_t)c); }
static const char *jstate_fn(int c) { return PMIx_Job_state_string((pmix_job_state_t)c); }
static const char *lstate_fn(int c) { return PMIx_Link_state_string((pmix_link_state_t)c); }
static const char *dev_fn(int c) { return PMIx_Device_type_string((pmix_device_type_t)c); }
static const char *cmp_fn(int c) { return PMIx_Value_comparison_string((pmix_value_cmp_t)c); }

static const struct str_case str_cases[] = {
    { err_fn, PMIX_SUCCESS, "PMIX_SUCCESS" },
    { err_fn, PMIX_ERR_NOT_FOUND, "PMIX_ERR_NOT_FOUND" },
    { err_fn, PMIX_ERR_WOULD_BLOCK, "PMIX_ERR_WOULD_BLOCK" },
    { err_fn, PMIX_ERR_TIMEOUT, "PMIX_ERR_TIMEOUT" },
    { err_fn, PMIX_ERR_UNREACH, "PMIX_ERR_UNREACH" },
    { err_fn, PMIX_ERR_PROC_ABORTED_BY_SIG, "PMIX_ERR_PROC_ABORTED_BY_SIG" },
    { err_fn, PMIX_EVENT_JOB_END, "PMIX_EVENT_JOB_END" },
    { err_fn, PMIX_GROUP_CONSTRUCT_COMPLETE, "PMIX_GROUP_CONSTRUCT_COMPLETE" },
    { err_fn, PMIX_DEBUGGER_RELEASE, "PMIX_DEBUGGER_RELEASE" },
    { err_fn, -2, "PMIX_ERR_SILENT" },
    { err_fn, -12345, "ERROR STRING NOT FOUND" },
    { type_fn, PMIX_UNDEF, "PMIX_UNDEF" },
    { type_fn, PMIX_UINT32, "PMIX_UINT32" },
    { type_fn, PMIX_DATA_ARRAY, "PMIX_DATA_ARRAY" },
    { type_fn, PMIX_PROC_NSPACE, "PMIX_PROC_NSPACE" },
    { type_fn, 29, "UNKNOWN" },
    { type_fn, 499, "UNKNOWN" },
    { pstate_fn, PMIX_PROC_STATE_RUNNING, "PROC EXECUTING" },
    { pstate_fn, PMIX_PROC_STATE_TERM_WO_SYNC, "PROC TERMINATED WITHOUT CALLING PMIx_Finalize" },
    { pstate_fn, 200, "UNKNOWN STATE" },
    { scope_fn, PMIX_GLOBAL, "SHARE ACROSS ALL NODES" },
    { scope_fn, 99, "UNKNOWN SCOPE" },
    { persist_fn, PMIX_PERSIST_FIRST_READ, "DELETE ON FIRST ACCESS" },
    { persist_fn, 99, "UNKNOWN PERSISTENCE" },
    { range_fn, PMIX_RANGE_NAMESPACE, "AVAIL TO PROCESSES IN SAME JOB ONLY" },
    { range_fn, 99, "UNKNOWN" },
    { adir_fn, PMIX_ALLOC_REAQUIRE, "REACQUIRE" },
    { adir_fn, 99, "UNSPECIFIED" },
    { iof_fn, 0, "NONE" },
    { iof_fn, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, "STDOUT STDERR " },
    { iof_fn, PMIX_FWD_ALL_CHANNELS, "STDIN STDOUT STDERR STDDIAG " },
    { jstate_fn, PMIX_JOB_STATE_TERMINATED_WITH_ERROR, "TERMINATED WITH ERROR" },
    { jstate_fn, 99, "UNKNOWN" },
    { lstate_fn, PMIX_LINK_UP, "ACTIVE" },
    { lstate_fn, 99, "UNKNOWN" },
    { dev_fn, PMIX_DEVTYPE_COPROC, "COPROCESSOR" },
    { dev_fn, 3, "UNKNOWN" },
    { cmp_fn, PMIX_VALUE2_GREATER, "VALUE2 GREATER" },
    { cmp_fn, 42, "UNKNOWN VALUE" },
};

START_TEST(test_strings)
{
    const struct str_case *c = &str_cases[_i];
    const char *got = c->fn(c->code);

    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, c->want);
}
END_TEST

START_TEST(test_directives_string)
{
    static const struct { pmix_info_directives_t d; const char *want; } cases[] = {
        { 0, "OPTIONAL" },
        { PMIX_INFO_REQD, "REQUIRED" },
        { PMIX_INFO_ARRAY_END, "OPTIONAL:END" },
        { PMIX_INFO_REQD | PMIX_INFO_REQD_PROCESSED | PMIX_INFO_ARRAY_END, "REQUIRED:PROCESSED:END" },
        { PMIX_INFO_QUALIFIER | PMIX_INFO_REQD, "QUALIFIER" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *s = PMIx_Info_directives_string(cases[i].d);
        ck_assert_str_eq(s, cases[i].want);
        free(s);
    }
}
END_TEST

START_TEST(test_attributes)
{
    ck_assert_str_eq(PMIx_Get_attribute_string("PMIX_JOB_SIZE"), "pmix.job.size");
    ck_assert_str_eq(PMIx_Get_attribute_name("pmix.job.size"), "PMIX_JOB_SIZE");
    ck_assert_str_eq(PMIx_Get_attribute_string("PMIX_LOCAL_PEERS"), PMIX_LOCAL_PEERS);
    ck_assert_str_eq(PMIx_Get_attribute_name(PMIX_COLLECT_DATA), "PMIX_COLLECT_DATA");
    ck_assert_str_eq(PMIx_Get_attribute_string("NOT_AN_ATTR"), "NOT_AN_ATTR");
    ck_assert_str_eq(PMIx_Get_attribute_name("not.a.key"), "not.a.key");
    ck_assert_ptr_nonnull(PMIx_Get_attribute_name(NULL));
}
END_TEST

START_TEST(test_value_info_string)
{
    pmix_info_t info;
    pmix_value_t v;
    char *s;

    PMIx_Info_load(&info, PMIX_JOB_SIZE, &s_u32b, PMIX_UINT32);
    s = PMIx_Info_string(&info);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(strstr(s, "pmix.job.size"));
    ck_assert_ptr_nonnull(strstr(s, "PMIX_JOB_SIZE"));
    ck_assert_ptr_nonnull(strstr(s, "PMIX_UINT32: 3"));
    free(s);
    PMIx_Value_load(&v, &s_darray, PMIX_DATA_ARRAY);
    s = PMIx_Value_string(&v);
    ck_assert_str_eq(s, "PMIX_DATA_ARRAY: PMIX_UINT32[3] { PMIX_UINT32: 1, PMIX_UINT32: 2, PMIX_UINT32: 3 }");
    free(s);
    PMIx_Value_destruct(&v);
    /* every sample type renders to something */
    for (int i = 0; i < NSAMPLES; i++) {
        PMIx_Value_load(&v, samples[i].data, samples[i].type);
        s = PMIx_Value_string(&v);
        ck_assert_ptr_nonnull(s);
        ck_assert_ptr_nonnull(strstr(s, PMIx_Data_type_string(samples[i].type)));
        free(s);
        PMIx_Value_destruct(&v);
    }
}
END_TEST

/* ---- regex ----------------------------------------------------------------------- */

START_TEST(test_regex_roundtrip)
{
    char *rx = NULL, **argv = NULL;

    ck_assert_int_eq(PMIx_generate_regex("node1,node2,node10", &rx), PMIX_SUCCESS);
    ck_assert_str_eq(rx, "spmix-r:node[1-2],node10");
    ck_assert_int_eq(spx_regex_parse(rx, &argv), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_regex_count(argv), 3);
    ck_assert_str_eq(argv[0], "node1");
    ck_assert_str_eq(argv[2], "node10");
    ck_assert_ptr_null(argv[3]);
    spx_regex_free(argv);
    free(rx);

    ck_assert_int_eq(PMIx_generate_ppn("0,1;2,3;;4", &rx), PMIX_SUCCESS);
    ck_assert_int_eq(spx_ppn_parse(rx, &argv), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_regex_count(argv), 4);
    ck_assert_str_eq(argv[0], "0,1");
    ck_assert_str_eq(argv[2], "");
    ck_assert_str_eq(argv[3], "4");
    spx_regex_free(argv);
    free(rx);

    /* bare and "raw:" lists parse; empty items are skipped */
    ck_assert_int_eq(spx_regex_parse("a,,b", &argv), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_regex_count(argv), 2);
    spx_regex_free(argv);
    ck_assert_int_eq(spx_regex_parse("raw:x", &argv), PMIX_SUCCESS);
    ck_assert_str_eq(argv[0], "x");
    spx_regex_free(argv);
    ck_assert_int_eq(spx_regex_parse("spmix:", &argv), PMIX_SUCCESS);
    ck_assert_uint_eq(spx_regex_count(argv), 0);
    spx_regex_free(argv);

    ck_assert_int_eq(spx_regex_parse("pmix[node[1-3]]", &argv), PMIX_ERR_BAD_PARAM);
    ck_assert_ptr_null(argv);
    ck_assert_int_eq(spx_regex_parse(NULL, &argv), PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(PMIx_generate_regex(NULL, &rx), PMIX_ERR_BAD_PARAM);
    ck_assert_ptr_null(rx);
}
END_TEST

/* The PMIX_INFO_REQD rule: only flagged entries outside the list fail. */
START_TEST(test_directives_check)
{
    static const char *const honoured[] = {PMIX_TIMEOUT, PMIX_COLLECT_DATA, NULL};
    pmix_info_t d[3];
    int t = 5;
    bool yes = true;

    PMIX_INFO_LOAD(&d[0], PMIX_TIMEOUT, &t, PMIX_INT);
    PMIX_INFO_LOAD(&d[1], "spmix.test.unknown", &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&d[2], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    ck_assert_int_eq(spx_directives_check("t", d, 3, honoured), PMIX_SUCCESS);
    PMIX_INFO_REQUIRED(&d[0]);
    PMIX_INFO_REQUIRED(&d[2]);
    ck_assert_int_eq(spx_directives_check("t", d, 3, honoured), PMIX_SUCCESS);
    PMIX_INFO_REQUIRED(&d[1]);
    ck_assert_int_eq(spx_directives_check("t", d, 3, honoured), PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(spx_directives_check("t", d, 1, honoured), PMIX_SUCCESS);
    ck_assert_int_eq(spx_directives_check("t", d, 1, NULL), PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(spx_directives_check("t", NULL, 3, NULL), PMIX_SUCCESS);
    /* arrays mixing user data and directives: only reserved keys count */
    ck_assert_int_eq(spx_directives_check_reserved("t", d, 3, honoured), PMIX_SUCCESS);
    pmix_info_t r;
    PMIX_INFO_LOAD(&r, "pmix.spmix.test.unknown", &yes, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&r);
    ck_assert_int_eq(spx_directives_check_reserved("t", &r, 1, honoured),
                     PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&r);
    /* the other flags do not make an entry required */
    PMIX_INFO_OPTIONAL(&d[1]);
    d[1].flags |= PMIX_INFO_ARRAY_END | PMIX_INFO_REQD_PROCESSED;
    ck_assert_int_eq(spx_directives_check("t", d, 3, honoured), PMIX_SUCCESS);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&d[i]);
}
END_TEST

static Suite *types_suite(void)
{
    Suite *s = suite_create("types");
    TCase *tc = tcase_create("value");

    tcase_add_unchecked_fixture(tc, samples_setup, samples_teardown);
    tcase_add_loop_test(tc, test_value_roundtrip, 0, NSAMPLES);
    tcase_add_test(tc, test_value_null_data);
    tcase_add_test(tc, test_value_unload_errors);
    tcase_add_test(tc, test_value_compare_order);
    tcase_add_test(tc, test_value_coerce);
    tcase_add_test(tc, test_value_copy_free);
    tcase_add_test(tc, test_value_info_string);
    suite_add_tcase(s, tc);

    tc = tcase_create("darray_info");
    tcase_add_test(tc, test_darray_nested_deep);
    tcase_add_test(tc, test_darray_types);
    tcase_add_test(tc, test_info_xfer_persistent);
    tcase_add_test(tc, test_info_list);
    tcase_add_test(tc, test_info_helpers);
    tcase_add_test(tc, test_proc_helpers);
    tcase_add_test(tc, test_directives_check);
    suite_add_tcase(s, tc);

    tc = tcase_create("strings");
    tcase_add_loop_test(tc, test_strings, 0, (int)(sizeof(str_cases) / sizeof(str_cases[0])));
    tcase_add_test(tc, test_directives_string);
    tcase_add_test(tc, test_attributes);
    tcase_add_test(tc, test_regex_roundtrip);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(types_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
