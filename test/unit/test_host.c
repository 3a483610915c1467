/*
 * test_host: the pure parts of lib/host, the code both hosts of our server
 * (the Slurm plugin and spmix-run) share.
 *   - job info for a small layout (3 nodes, 5 ranks, unordered placement):
 *     node map, proc map, local peers and leader, per-node and per-rank data,
 *     and the tree address list in the same node order as PMIX_NODE_MAP;
 *     the session array only when the host gives its allocation's size;
 *   - layouts that must be refused;
 *   - hex encoding and decoding;
 *   - the default upcalls: job_control accepts every cleanup directive the
 *     server honours (PMIX_CLEANUP_EMPTY included) and refuses others; abort
 *     runs record, release, act in that order.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "host/hex.h"
#include "host/jobinfo.h"
#include "host/module.h"
#include "types/types.h"

/* ---- a small layout: n0 {0,3}, n1 {1,4}, n2 {2}; this server is n1 ---- */

static const pmix_rank_t r0[] = { 0, 3 }, r1[] = { 1, 4 }, r2[] = { 2 };
static const struct spx_host_node nodes3[] = {
    { .hostname = "n0", .addr = "10.0.0.7:4000", .ranks = r0, .nranks = 2 },
    { .hostname = "n1", .addr = "10.0.0.3:4000", .ranks = r1, .nranks = 2 },
    { .hostname = "n2", .addr = "10.0.0.5:4000", .ranks = r2, .nranks = 1 },
};

static struct spx_host_job job3(void)
{
    return (struct spx_host_job){ .nspace = "test.host", .job_size = 5, .nodes = nodes3,
                                  .nnodes = 3, .local_node = 1, .tmpdir = "/tmp/t",
                                  .nsdir = "/tmp/t/ns", .tdir_rmclean = true };
}

static const pmix_value_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i].value;
    return NULL;
}

static const char *find_str(const pmix_info_t *info, size_t n, const char *key)
{
    const pmix_value_t *v = find(info, n, key);

    ck_assert_msg(v != NULL, "%s missing", key);
    ck_assert_int_eq(v->type, PMIX_STRING);
    return v->data.string;
}

static uint32_t find_u32(const pmix_info_t *info, size_t n, const char *key)
{
    const pmix_value_t *v = find(info, n, key);

    ck_assert_msg(v != NULL, "%s missing", key);
    ck_assert_int_eq(v->type, PMIX_UINT32);
    return v->data.uint32;
}

static pmix_rank_t find_rank(const pmix_info_t *info, size_t n, const char *key)
{
    const pmix_value_t *v = find(info, n, key);

    ck_assert_msg(v != NULL, "%s missing", key);
    ck_assert_int_eq(v->type, PMIX_PROC_RANK);
    return v->data.rank;
}

static uint16_t find_u16(const pmix_info_t *info, size_t n, const char *key)
{
    const pmix_value_t *v = find(info, n, key);

    ck_assert_msg(v != NULL, "%s missing", key);
    ck_assert_int_eq(v->type, PMIX_UINT16);
    return v->data.uint16;
}

/* Splits "a,b,c" (a copy) into at most max entries; returns the count. */
static size_t split_commas(char *s, char **out, size_t max)
{
    size_t n = 0;

    for (char *save = NULL, *t = strtok_r(s, ",", &save); t != NULL && n < max;
         t = strtok_r(NULL, ",", &save))
        out[n++] = t;
    return n;
}

START_TEST(test_node_lists_one_order)
{
    char *names = spx_host_node_list(nodes3, 3, SPX_HOST_LIST_NAMES);
    char *addrs = spx_host_node_list(nodes3, 3, SPX_HOST_LIST_ADDRS);

    ck_assert_ptr_nonnull(names);
    ck_assert_ptr_nonnull(addrs);
    ck_assert_str_eq(names, "n0,n1,n2");
    ck_assert_str_eq(addrs, "10.0.0.7:4000,10.0.0.3:4000,10.0.0.5:4000");
    free(names);
    free(addrs);
    ck_assert_str_eq(spx_host_list_str(SPX_HOST_LIST_ADDRS), "addrs");
}
END_TEST

START_TEST(test_node_list_refused)
{
    struct spx_host_node two[2] = { nodes3[0], nodes3[1] };

    two[1].addr = NULL;   /* a node without a tree address: no list */
    errno = 0;
    ck_assert_ptr_null(spx_host_node_list(two, 2, SPX_HOST_LIST_ADDRS));
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_ptr_null(spx_host_node_list(two, 0, SPX_HOST_LIST_NAMES));
    ck_assert_ptr_null(spx_host_node_list(NULL, 1, SPX_HOST_LIST_NAMES));
}
END_TEST

/* PMIX_NODE_MAP, decoded, lists the nodes in the order of the tree's
 * address list: node i of the map is the node at address i. */
START_TEST(test_jobinfo_maps)
{
    struct spx_host_job job = job3();
    pmix_info_t *info = NULL;
    size_t n = 0;
    char **map = NULL, **ppn = NULL, *addrs, *addr_v[8];

    ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_SUCCESS);
    ck_assert_int_eq(spx_regex_parse(find_str(info, n, PMIX_NODE_MAP), &map), PMIX_SUCCESS);
    ck_assert_int_eq(spx_ppn_parse(find_str(info, n, PMIX_PROC_MAP), &ppn), PMIX_SUCCESS);
    addrs = spx_host_node_list(job.nodes, job.nnodes, SPX_HOST_LIST_ADDRS);
    ck_assert_ptr_nonnull(addrs);
    ck_assert_uint_eq(split_commas(addrs, addr_v, 8), 3);
    ck_assert_uint_eq(spx_regex_count(map), 3);
    ck_assert_uint_eq(spx_regex_count(ppn), 3);
    for (uint32_t i = 0; i < 3; i++) {
        ck_assert_str_eq(map[i], nodes3[i].hostname);
        ck_assert_str_eq(addr_v[i], nodes3[i].addr);
    }
    ck_assert_str_eq(ppn[0], "0,3");
    ck_assert_str_eq(ppn[1], "1,4");
    ck_assert_str_eq(ppn[2], "2");
    free(addrs);
    spx_regex_free(map);
    spx_regex_free(ppn);
    PMIX_INFO_FREE(info, n);
}
END_TEST

START_TEST(test_jobinfo_job_level)
{
    struct spx_host_job job = job3();
    pmix_info_t *info = NULL;
    size_t n = 0;

    ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_SUCCESS);
    ck_assert_str_eq(find_str(info, n, PMIX_JOBID), "test.host");
    ck_assert_uint_eq(find_u32(info, n, PMIX_JOB_SIZE), 5);
    ck_assert_uint_eq(find_u32(info, n, PMIX_UNIV_SIZE), 5);
    ck_assert_uint_eq(find_u32(info, n, PMIX_NUM_NODES), 3);
    /* this node's part, at job level */
    ck_assert_str_eq(find_str(info, n, PMIX_LOCAL_PEERS), "1,4");
    ck_assert_uint_eq(find_rank(info, n, PMIX_LOCALLDR), 1);
    ck_assert_uint_eq(find_u32(info, n, PMIX_LOCAL_SIZE), 2);
    ck_assert_uint_eq(find_u32(info, n, PMIX_NODEID), 1);
    ck_assert_str_eq(find_str(info, n, PMIX_HOSTNAME), "n1");
    ck_assert_str_eq(find_str(info, n, PMIX_TMPDIR), "/tmp/t");
    ck_assert_str_eq(find_str(info, n, PMIX_NSDIR), "/tmp/t/ns");
    ck_assert_str_eq(find_str(info, n, PMIX_MAPBY), "slot");
    PMIX_INFO_FREE(info, n);
}
END_TEST

/* The session array: only when the host knows its allocation's size. */
START_TEST(test_jobinfo_session)
{
    struct spx_host_job job = job3();
    pmix_info_t *info = NULL;
    size_t n = 0;

    ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_SUCCESS);
    ck_assert_ptr_null(find(info, n, PMIX_SESSION_INFO_ARRAY));
    PMIX_INFO_FREE(info, n);
    job.alloc_nnodes = 3;
    job.univ_size = 8;
    ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_SUCCESS);
    const pmix_value_t *v = find(info, n, PMIX_SESSION_INFO_ARRAY);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->type, PMIX_DATA_ARRAY);
    ck_assert_int_eq(v->data.darray->type, PMIX_INFO);
    const pmix_info_t *a = v->data.darray->array;
    size_t na = v->data.darray->size;
    ck_assert_uint_eq(find_u32(a, na, PMIX_NUM_ALLOCATED_NODES), 3);
    ck_assert_uint_eq(find_u32(a, na, PMIX_UNIV_SIZE), 8);
    ck_assert_ptr_null(find(a, na, PMIX_SESSION_ID)); /* no scheduler gave one */
    PMIX_INFO_FREE(info, n);
}
END_TEST

/* The app's command line (PMIX_APP_ARGV, the argv joined by spaces) in its
 * PMIX_APP_INFO_ARRAY when the host gives it, nothing when not. */
START_TEST(test_jobinfo_app_argv)
{
    struct spx_host_job job = job3();
    pmix_info_t *info = NULL;
    size_t n = 0;
    char *argv[] = { "./prog", "-x", "a b", NULL };
    char *line = spx_host_argv_join(argv);
    const char *apps[1] = { line };

    ck_assert_str_eq(line, "./prog -x a b");
    for (int with = 0; with < 2; with++) {
        job.app_argv = with ? apps : NULL;
        ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_SUCCESS);
        const pmix_value_t *v = find(info, n, PMIX_APP_INFO_ARRAY);
        ck_assert_ptr_nonnull(v);
        const pmix_info_t *a = v->data.darray->array;
        size_t na = v->data.darray->size;
        ck_assert_uint_eq(find_u32(a, na, PMIX_APPNUM), 0);
        if (with)
            ck_assert_str_eq(find_str(a, na, PMIX_APP_ARGV), "./prog -x a b");
        else
            ck_assert_ptr_null(find(a, na, PMIX_APP_ARGV));
        PMIX_INFO_FREE(info, n);
    }
    free(line);
}
END_TEST

/* The node arrays and process blocks of job: nodes and ranks in the order
 * given, each checked against the layout. */
static void check_arrays(const struct spx_host_job *job, uint32_t *nodes, size_t *nnode,
                         pmix_rank_t *ranks, size_t *nproc)
{
    pmix_info_t *info = NULL;
    size_t n = 0;
    *nnode = *nproc = 0;
    ck_assert_int_eq(spx_host_jobinfo_build(job, &info, &n), PMIX_SUCCESS);
    for (size_t i = 0; i < n; i++) {
        const pmix_data_array_t *da;
        const pmix_info_t *a;
        if (!PMIX_CHECK_KEY(&info[i], PMIX_NODE_INFO_ARRAY) &&
            !PMIX_CHECK_KEY(&info[i], PMIX_PROC_DATA))
            continue;
        ck_assert_int_eq(info[i].value.type, PMIX_DATA_ARRAY);
        da = info[i].value.data.darray;
        ck_assert_int_eq(da->type, PMIX_INFO);
        a = da->array;
        if (PMIX_CHECK_KEY(&info[i], PMIX_NODE_INFO_ARRAY)) {
            uint32_t id = find_u32(a, da->size, PMIX_NODEID);
            ck_assert_uint_lt(id, job->nnodes);
            const struct spx_host_node *nd = &job->nodes[id];
            ck_assert_str_eq(find_str(a, da->size, PMIX_HOSTNAME), nd->hostname);
            ck_assert_uint_eq(find_u32(a, da->size, PMIX_LOCAL_SIZE), nd->nranks);
            ck_assert_uint_eq(find_rank(a, da->size, PMIX_LOCALLDR), nd->ranks[0]);
            ck_assert_uint_lt(*nnode, 8);
            nodes[(*nnode)++] = id;
        } else {
            pmix_rank_t r = find_rank(a, da->size, PMIX_RANK);
            uint32_t id = find_u32(a, da->size, PMIX_NODEID);
            ck_assert_uint_lt(id, job->nnodes);
            const struct spx_host_node *nd = &job->nodes[id];
            uint16_t k = find_u16(a, da->size, PMIX_LOCAL_RANK);
            ck_assert_uint_lt(k, nd->nranks);
            ck_assert_uint_eq(nd->ranks[k], r);
            ck_assert_str_eq(find_str(a, da->size, PMIX_HOSTNAME), nd->hostname);
            ck_assert_uint_eq(find_u16(a, da->size, PMIX_NODE_RANK), k);
            ck_assert_uint_lt(*nproc, 8);
            ranks[(*nproc)++] = r;
        }
    }
    PMIX_INFO_FREE(info, n);
}

/* This node's PMIX_NODE_INFO_ARRAY and its ranks' PMIX_PROC_DATA; another
 * node's only where the maps would not give the same: its ranks not in
 * ascending order, or a job of several apps (then every node and rank). */
START_TEST(test_jobinfo_nodes_and_procs)
{
    struct spx_host_job job = job3();
    uint32_t nodes[8];
    pmix_rank_t ranks[8];
    size_t nnode, nproc;

    check_arrays(&job, nodes, &nnode, ranks, &nproc);
    ck_assert_uint_eq(nnode, 1);
    ck_assert_uint_eq(nodes[0], 1);
    ck_assert_uint_eq(nproc, 2);
    ck_assert_uint_eq(ranks[0], 1);
    ck_assert_uint_eq(ranks[1], 4);

    static const pmix_rank_t down[] = { 3, 0 };
    struct spx_host_node nd[3] = { nodes3[0], nodes3[1], nodes3[2] };
    nd[0].ranks = down;
    job.nodes = nd;
    check_arrays(&job, nodes, &nnode, ranks, &nproc);
    ck_assert_uint_eq(nnode, 2);
    ck_assert_uint_eq(nodes[0], 0);
    ck_assert_uint_eq(nodes[1], 1);
    ck_assert_uint_eq(nproc, 4);
    ck_assert_uint_eq(ranks[0], 3);
    ck_assert_uint_eq(ranks[1], 0);

    static const uint32_t apps[] = { 0, 1, 0, 1, 0 };
    job = job3();
    job.app_of = apps;
    job.napps = 2;
    check_arrays(&job, nodes, &nnode, ranks, &nproc);
    ck_assert_uint_eq(nnode, 3);
    ck_assert_uint_eq(nproc, 5);
}
END_TEST

START_TEST(test_jobinfo_refused)
{
    static const pmix_rank_t dup[] = { 1, 4 }, big[] = { 2, 5 }, short2[] = { 2 };
    struct spx_host_node nd[3] = { nodes3[0], nodes3[1], nodes3[2] };
    struct spx_host_job job = job3();
    pmix_info_t *info = NULL;
    size_t n = 0;

    job.nodes = nd;
    nd[0].ranks = dup;   /* ranks 1 and 4 on two nodes; 0 and 3 on none */
    ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_ERR_BAD_PARAM);
    nd[0] = nodes3[0];
    nd[2].ranks = big;   /* rank 5 outside a job of 5 */
    nd[2].nranks = 2;
    ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_ERR_BAD_PARAM);
    nd[2] = nodes3[2];
    job.job_size = 6;    /* rank 5 nowhere */
    ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_ERR_BAD_PARAM);
    job = job3();
    job.nodes = nd;
    job.local_node = 3;
    ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_ERR_BAD_PARAM);
    job.local_node = 0;
    nd[2].hostname = NULL;
    nd[2].ranks = short2;
    ck_assert_int_eq(spx_host_jobinfo_build(&job, &info, &n), PMIX_ERR_BAD_PARAM);
    ck_assert_ptr_null(info);
}
END_TEST

START_TEST(test_hex)
{
    const uint8_t in[] = { 0x00, 0xff, 0x10, 0xab, 0x5c };
    uint8_t out[8];
    char text[11];

    ck_assert_uint_eq(spx_host_hex_encode(in, sizeof(in), text, sizeof(text)), 10);
    ck_assert_str_eq(text, "00ff10ab5c");
    ck_assert_uint_eq(spx_host_hex_encode(in, sizeof(in), text, 10), 0);   /* no room for NUL */
    ck_assert_uint_eq(spx_host_hex_decode(text, out, sizeof(out)), sizeof(in));
    ck_assert_mem_eq(out, in, sizeof(in));
    ck_assert_uint_eq(spx_host_hex_decode("00FF10AB5C", out, sizeof(out)), sizeof(in));
    ck_assert_mem_eq(out, in, sizeof(in));
    ck_assert_uint_eq(spx_host_hex_decode("00ff10ab5c", out, 4), 0);   /* too long */
    ck_assert_uint_eq(spx_host_hex_decode("0g", out, sizeof(out)), 0);
    ck_assert_uint_eq(spx_host_hex_decode("012", out, sizeof(out)), 0);
    ck_assert_uint_eq(spx_host_hex_decode(NULL, out, sizeof(out)), 0);
}
END_TEST

/* ---- the default upcalls ---- */

static int info_cb_calls;
static pmix_status_t info_cb_status;

static void info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    (void)cbdata;
    info_cb_calls++;
    info_cb_status = status;
    if (release_fn != NULL)
        release_fn(release_cbdata);
}

static const char *const cleanup_keys[] = {
    PMIX_REGISTER_CLEANUP, PMIX_REGISTER_CLEANUP_DIR, PMIX_CLEANUP_RECURSIVE,
    PMIX_CLEANUP_EMPTY,    PMIX_CLEANUP_IGNORE,       PMIX_CLEANUP_LEAVE_TOPDIR,
};

/* Every cleanup directive the server library honours is accepted, alone and
 * together with PMIX_REGISTER_CLEANUP_DIR, and answered once. */
START_TEST(test_job_control_cleanup)
{
    pmix_server_module_t mod;
    pmix_info_t dirs[2];
    pmix_proc_t me;
    bool t = true;

    memset(&mod, 0, sizeof(mod));
    spx_host_module_init(&mod, NULL);
    ck_assert_ptr_nonnull(mod.job_control);
    PMIX_LOAD_PROCID(&me, "test.host", 0);
    PMIX_INFO_CONSTRUCT(&dirs[0]);
    PMIX_INFO_CONSTRUCT(&dirs[1]);
    PMIx_Info_load(&dirs[0], PMIX_REGISTER_CLEANUP_DIR, "/tmp/x", PMIX_STRING);
    PMIx_Info_load(&dirs[1], cleanup_keys[_i], &t, PMIX_BOOL);
    info_cb_calls = 0;
    ck_assert_int_eq(mod.job_control(&me, &me, 1, dirs, 2, info_cb, NULL), PMIX_SUCCESS);
    ck_assert_int_eq(info_cb_calls, 1);
    ck_assert_int_eq(info_cb_status, PMIX_SUCCESS);
    ck_assert(spx_host_job_control_accepts(cleanup_keys[_i]));
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
}
END_TEST

START_TEST(test_job_control_refused)
{
    pmix_server_module_t mod;
    pmix_info_t dirs[2];
    pmix_proc_t me;
    bool t = true;

    memset(&mod, 0, sizeof(mod));
    spx_host_module_init(&mod, NULL);
    PMIX_LOAD_PROCID(&me, "test.host", 0);
    PMIX_INFO_CONSTRUCT(&dirs[0]);
    PMIX_INFO_CONSTRUCT(&dirs[1]);
    PMIx_Info_load(&dirs[0], PMIX_REGISTER_CLEANUP, "/tmp/x", PMIX_STRING);
    PMIx_Info_load(&dirs[1], PMIX_JOB_CTRL_KILL, &t, PMIX_BOOL);
    info_cb_calls = 0;
    ck_assert_int_eq(mod.job_control(&me, &me, 1, dirs, 2, info_cb, NULL),
                     PMIX_ERR_NOT_SUPPORTED);
    ck_assert_int_eq(info_cb_calls, 0);   /* an error return never calls back */
    ck_assert(!spx_host_job_control_accepts(PMIX_JOB_CTRL_KILL));
    ck_assert(!spx_host_job_control_accepts(NULL));
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
}
END_TEST

static char abort_trace[64];

static void abort_record(const pmix_proc_t *proc, int status, const char *msg, void *arg)
{
    ck_assert_uint_eq(proc->rank, 3);
    ck_assert_int_eq(status, 7);
    ck_assert_str_eq(msg, "");   /* a NULL message reaches the hooks as "" */
    ck_assert_ptr_eq(arg, abort_trace);
    strcat(abort_trace, "record,");
}

static void abort_act(const pmix_proc_t *proc, int status, const char *msg, void *arg)
{
    (void)proc;
    (void)status;
    (void)msg;
    (void)arg;
    strcat(abort_trace, "act,");
}

static void abort_released(pmix_status_t status, void *cbdata)
{
    ck_assert_int_eq(status, PMIX_SUCCESS);
    ck_assert_ptr_eq(cbdata, abort_trace);
    strcat(abort_trace, "release,");
}

START_TEST(test_abort_order)
{
    struct spx_host_abort_ops ops = { .record = abort_record, .act = abort_act,
                                      .arg = abort_trace };
    pmix_server_module_t mod;
    pmix_proc_t p;

    memset(&mod, 0, sizeof(mod));
    spx_host_module_init(&mod, &ops);
    ck_assert_ptr_nonnull(mod.abort);
    ck_assert_ptr_null(mod.fence_nb);   /* the host's own upcalls stay untouched */
    PMIX_LOAD_PROCID(&p, "test.host", 3);
    abort_trace[0] = '\0';
    ck_assert_int_eq(mod.abort(&p, NULL, 7, NULL, NULL, 0, abort_released, abort_trace),
                     PMIX_SUCCESS);
    ck_assert_str_eq(abort_trace, "record,release,act,");
}
END_TEST

static Suite *host_suite(void)
{
    Suite *s = suite_create("host");
    TCase *tc = tcase_create("host");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_node_lists_one_order);
    tcase_add_test(tc, test_node_list_refused);
    tcase_add_test(tc, test_jobinfo_maps);
    tcase_add_test(tc, test_jobinfo_job_level);
    tcase_add_test(tc, test_jobinfo_session);
    tcase_add_test(tc, test_jobinfo_app_argv);
    tcase_add_test(tc, test_jobinfo_nodes_and_procs);
    tcase_add_test(tc, test_jobinfo_refused);
    tcase_add_test(tc, test_hex);
    tcase_add_loop_test(tc, test_job_control_cleanup, 0,
                        (int)(sizeof(cleanup_keys) / sizeof(cleanup_keys[0])));
    tcase_add_test(tc, test_job_control_refused);
    tcase_add_test(tc, test_abort_order);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(host_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
