/* test_jobparts.c - unit tests of lib/store/jobparts: node and app parts of
 * the job info and the answer to Gets qualified with PMIX_NODE_INFO /
 * PMIX_APP_INFO; and of lib/store/jobderived, PMIX_LOCAL_PROCS computed
 * from PMIX_LOCAL_PEERS.
 *
 * Part 1 fills a store directly: merging (keys a node has stay), lookup by
 * host name (exact, short form), by node id, this node by default, unknown
 * nodes and keys, malformed qualifiers, app parts, the session part (by
 * PMIX_SESSION_INFO alone and with its PMIX_SESSION_ID); PMIX_LOCAL_PROCS of this
 * node and of a node the qualifiers name, a host's own value, bad lists.
 * Part 2 runs a server (PMIx_server_init) whose host registers a job of
 * three nodes with the node and proc maps but the node array of one node
 * only: the HELLO brings every node's part with what the maps say (host's
 * keys first), and the server answers qualified GETs from those parts
 * (PMIX_LOCAL_PROCS too); the host's session array becomes the session
 * part, its keys also the job level's where that lacks them.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "codec/value.h"
#include "net/conn.h"
#include "net/unix_sock.h"
#include "proto/msg.h"
#include "store/jobderived.h"
#include "store/jobparts.h"
#include "store/store.h"

static const pmix_nspace_t NS = "jp-test";

static void load_u32(pmix_info_t *i, const char *key, uint32_t v)
{
    PMIx_Info_load(i, key, &v, PMIX_UINT32);
}

static void add_node(spx_store_t *s, const char *host, long id, const char *key, uint32_t v)
{
    pmix_info_t in[3];
    size_t n = 0;
    memset(in, 0, sizeof(in));
    if (host)
        PMIx_Info_load(&in[n++], PMIX_HOSTNAME, host, PMIX_STRING);
    if (id >= 0)
        load_u32(&in[n++], PMIX_NODEID, (uint32_t)id);
    if (key)
        load_u32(&in[n++], key, v);
    ck_assert_int_eq(spx_jobparts_add_node(s, NS, in, n), PMIX_SUCCESS);
    for (size_t i = 0; i < n; i++)
        PMIx_Value_destruct(&in[i].value);
}

/* The lookup with qualifiers {PMIX_NODE_INFO, which=val}; which NULL: NODE_INFO alone. */
static bool ask_node(const spx_store_t *s, const char *key, const char *which, const void *val,
                     pmix_data_type_t type, pmix_status_t *rc, const pmix_value_t **out)
{
    pmix_info_t q[2];
    memset(q, 0, sizeof(q));
    PMIx_Info_load(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
    if (which)
        PMIx_Info_load(&q[1], which, val, type);
    bool handled = spx_jobparts_lookup(s, NS, key, q, which ? 2 : 1, rc, out);
    /* a node whose part the store does not hold: what a Get answers from the
     * maps (store/jobderived.h), kept here until the next question */
    static pmix_value_t derived = {.type = PMIX_UNDEF};
    pmix_status_t drc;
    PMIx_Value_destruct(&derived);
    if (handled && *rc == PMIX_ERR_NOT_FOUND &&
        spx_jobderived_get(s, NS, PMIX_RANK_WILDCARD, key, q, which ? 2 : 1, &drc, &derived)) {
        *rc = drc;
        *out = &derived;
    }
    PMIx_Value_destruct(&q[1].value);
    return handled;
}

static uint32_t node_u32(const spx_store_t *s, const char *key, const char *which,
                         const void *val, pmix_data_type_t type)
{
    pmix_status_t rc;
    const pmix_value_t *v = NULL;
    ck_assert(ask_node(s, key, which, val, type, &rc, &v));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_int_eq(v->type, PMIX_UINT32);
    return v->data.uint32;
}

static pmix_status_t node_rc(const spx_store_t *s, const char *key, const char *which,
                             const void *val, pmix_data_type_t type)
{
    pmix_status_t rc;
    const pmix_value_t *v = NULL;
    ck_assert(ask_node(s, key, which, val, type, &rc, &v));
    return rc;
}

START_TEST(parts_nodes)
{
    spx_store_t *s = spx_store_create();
    uint32_t id;
    ck_assert(!spx_jobparts_any(s, NS));
    add_node(s, "n0.example.org", 0, PMIX_LOCAL_SIZE, 2);
    add_node(s, "n1", 1, PMIX_LOCAL_SIZE, 5);
    add_node(s, "n1", 1, PMIX_LOCAL_SIZE, 9);  /* n1 has one: stays 5 */
    add_node(s, "n1", -1, PMIX_LOCALLDR, 3);   /* n1 lacks one: added */
    add_node(s, NULL, 2, PMIX_LOCAL_SIZE, 1);  /* a node known by id only */
    add_node(s, NULL, -1, PMIX_LOCAL_SIZE, 8); /* names no node: ignored */
    ck_assert(spx_jobparts_any(s, NS));

    ck_assert_uint_eq(node_u32(s, PMIX_LOCAL_SIZE, PMIX_HOSTNAME, "n1", PMIX_STRING), 5);
    ck_assert_uint_eq(node_u32(s, PMIX_LOCALLDR, PMIX_HOSTNAME, "n1", PMIX_STRING), 3);
    id = 1;
    ck_assert_uint_eq(node_u32(s, PMIX_LOCAL_SIZE, PMIX_NODEID, &id, PMIX_UINT32), 5);
    ck_assert_uint_eq(node_u32(s, PMIX_NODEID, PMIX_HOSTNAME, "n1", PMIX_STRING), 1);
    id = 2;
    ck_assert_uint_eq(node_u32(s, PMIX_LOCAL_SIZE, PMIX_NODEID, &id, PMIX_UINT32), 1);
    /* short and fully qualified names */
    ck_assert_uint_eq(node_u32(s, PMIX_LOCAL_SIZE, PMIX_HOSTNAME, "n0", PMIX_STRING), 2);
    ck_assert_uint_eq(node_u32(s, PMIX_LOCAL_SIZE, PMIX_HOSTNAME, "n1.example.org", PMIX_STRING),
                      5);
    /* a node id given as another integer type */
    uint16_t id16 = 0;
    ck_assert_uint_eq(node_u32(s, PMIX_LOCAL_SIZE, PMIX_NODEID, &id16, PMIX_UINT16), 2);

    /* unknown nodes and keys, malformed qualifiers */
    ck_assert_int_eq(node_rc(s, PMIX_LOCAL_SIZE, PMIX_HOSTNAME, "n9", PMIX_STRING),
                     PMIX_ERR_NOT_FOUND);
    id = 3;
    ck_assert_int_eq(node_rc(s, PMIX_LOCAL_SIZE, PMIX_NODEID, &id, PMIX_UINT32),
                     PMIX_ERR_NOT_FOUND);
    ck_assert_int_eq(node_rc(s, PMIX_LOCAL_PEERS, PMIX_HOSTNAME, "n1", PMIX_STRING),
                     PMIX_ERR_NOT_FOUND);
    ck_assert_int_eq(node_rc(s, PMIX_LOCAL_SIZE, PMIX_NODEID, "x", PMIX_STRING),
                     PMIX_ERR_BAD_PARAM);
    ck_assert_int_eq(node_rc(s, PMIX_LOCAL_SIZE, PMIX_HOSTNAME, &id, PMIX_UINT32),
                     PMIX_ERR_BAD_PARAM);

    /* no node qualifier, or PMIX_NODE_INFO false: not a node lookup */
    pmix_status_t rc;
    const pmix_value_t *v;
    ck_assert(!spx_jobparts_lookup(s, NS, PMIX_LOCAL_SIZE, NULL, 0, &rc, &v));
    pmix_info_t q[2];
    memset(q, 0, sizeof(q));
    bool no = false;
    PMIx_Info_load(&q[0], PMIX_NODE_INFO, &no, PMIX_BOOL);
    PMIx_Info_load(&q[1], PMIX_HOSTNAME, "n1", PMIX_STRING);
    ck_assert(!spx_jobparts_lookup(s, NS, PMIX_LOCAL_SIZE, q, 2, &rc, &v));
    PMIx_Value_destruct(&q[1].value);

    /* PMIX_NODE_INFO alone: this node, once the job level says which it is */
    ck_assert(!ask_node(s, PMIX_LOCAL_SIZE, NULL, NULL, PMIX_UNDEF, &rc, &v));
    pmix_value_t hv = {.type = PMIX_STRING};
    hv.data.string = "n0.example.org";
    ck_assert_int_eq(spx_store_put(s, NS, PMIX_RANK_WILDCARD, PMIX_HOSTNAME, &hv, PMIX_GLOBAL),
                     PMIX_SUCCESS);
    ck_assert_uint_eq(node_u32(s, PMIX_LOCAL_SIZE, NULL, NULL, PMIX_UNDEF), 2);
    pmix_value_t iv = {.type = PMIX_UINT32};
    iv.data.uint32 = 1;
    ck_assert_int_eq(spx_store_put(s, NS, PMIX_RANK_WILDCARD, PMIX_NODEID, &iv, PMIX_GLOBAL),
                     PMIX_SUCCESS);
    ck_assert_uint_eq(node_u32(s, PMIX_LOCAL_SIZE, NULL, NULL, PMIX_UNDEF), 5);
    spx_store_destroy(s);
}
END_TEST

START_TEST(parts_apps)
{
    spx_store_t *s = spx_store_create();
    pmix_info_t in[2], q[2];
    pmix_status_t rc;
    const pmix_value_t *v;
    memset(in, 0, sizeof(in));
    memset(q, 0, sizeof(q));
    load_u32(&in[0], PMIX_APPNUM, 0);
    load_u32(&in[1], PMIX_APP_SIZE, 4);
    ck_assert_int_eq(spx_jobparts_add_app(s, NS, in, 2), PMIX_SUCCESS);
    PMIx_Info_load(&q[0], PMIX_APP_INFO, NULL, PMIX_BOOL);
    load_u32(&q[1], PMIX_APPNUM, 0);
    ck_assert(spx_jobparts_lookup(s, NS, PMIX_APP_SIZE, q, 2, &rc, &v));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_uint_eq(v->data.uint32, 4);
    ck_assert(spx_jobparts_lookup(s, NS, PMIX_LOCAL_SIZE, q, 2, &rc, &v));
    ck_assert_int_eq(rc, PMIX_ERR_NOT_FOUND);
    load_u32(&q[1], PMIX_APPNUM, 3);
    ck_assert(spx_jobparts_lookup(s, NS, PMIX_APP_SIZE, q, 2, &rc, &v));
    ck_assert_int_eq(rc, PMIX_ERR_NOT_FOUND);
    /* this app: the job level's PMIX_APPNUM */
    ck_assert(!spx_jobparts_lookup(s, NS, PMIX_APP_SIZE, q, 1, &rc, &v));
    pmix_value_t av = {.type = PMIX_UINT32};
    av.data.uint32 = 0;
    ck_assert_int_eq(spx_store_put(s, NS, PMIX_RANK_WILDCARD, PMIX_APPNUM, &av, PMIX_GLOBAL),
                     PMIX_SUCCESS);
    ck_assert(spx_jobparts_lookup(s, NS, PMIX_APP_SIZE, q, 1, &rc, &v));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_uint_eq(v->data.uint32, 4);
    spx_store_destroy(s);
}
END_TEST

/* The lookup with qualifiers {PMIX_SESSION_INFO[, PMIX_SESSION_ID=id]}; id < 0: none. */
static pmix_status_t ask_session(const spx_store_t *s, const char *key, long id, uint32_t *out)
{
    pmix_info_t q[2];
    pmix_status_t rc;
    const pmix_value_t *v = NULL;
    memset(q, 0, sizeof(q));
    PMIx_Info_load(&q[0], PMIX_SESSION_INFO, NULL, PMIX_BOOL);
    if (id >= 0)
        load_u32(&q[1], PMIX_SESSION_ID, (uint32_t)id);
    ck_assert(spx_jobparts_qualified(q, 1));
    ck_assert(spx_jobparts_lookup(s, NS, key, q, id >= 0 ? 2 : 1, &rc, &v));
    if (rc == PMIX_SUCCESS) {
        ck_assert_int_eq(v->type, PMIX_UINT32);
        *out = v->data.uint32;
    }
    return rc;
}

START_TEST(parts_session)
{
    spx_store_t *s = spx_store_create();
    uint32_t u = 0;
    /* no session info: nothing at session level */
    ck_assert_int_eq(ask_session(s, PMIX_NUM_ALLOCATED_NODES, -1, &u), PMIX_ERR_NOT_FOUND);
    ck_assert(!spx_jobparts_any(s, NS));
    pmix_info_t in[2];
    memset(in, 0, sizeof(in));
    load_u32(&in[0], PMIX_NUM_ALLOCATED_NODES, 4);
    ck_assert_int_eq(spx_jobparts_add_session(s, NS, in, 1), PMIX_SUCCESS);
    ck_assert(spx_jobparts_any(s, NS));
    ck_assert_int_eq(ask_session(s, PMIX_NUM_ALLOCATED_NODES, -1, &u), PMIX_SUCCESS);
    ck_assert_uint_eq(u, 4);
    /* no id registered: any id is another session's */
    ck_assert_int_eq(ask_session(s, PMIX_NUM_ALLOCATED_NODES, 0, &u), PMIX_ERR_NOT_FOUND);
    /* merged: the id is added, the node count stays */
    load_u32(&in[0], PMIX_SESSION_ID, 17);
    load_u32(&in[1], PMIX_NUM_ALLOCATED_NODES, 9);
    ck_assert_int_eq(spx_jobparts_add_session(s, NS, in, 2), PMIX_SUCCESS);
    ck_assert_int_eq(ask_session(s, PMIX_NUM_ALLOCATED_NODES, 17, &u), PMIX_SUCCESS);
    ck_assert_uint_eq(u, 4);
    ck_assert_int_eq(ask_session(s, PMIX_NUM_ALLOCATED_NODES, 16, &u), PMIX_ERR_NOT_FOUND);
    ck_assert_int_eq(ask_session(s, PMIX_JOB_SIZE, -1, &u), PMIX_ERR_NOT_FOUND);
    /* a session id that is not a number */
    pmix_info_t q[2];
    pmix_status_t rc;
    const pmix_value_t *v = NULL;
    memset(q, 0, sizeof(q));
    PMIx_Info_load(&q[0], PMIX_SESSION_INFO, NULL, PMIX_BOOL);
    PMIx_Info_load(&q[1], PMIX_SESSION_ID, "x", PMIX_STRING);
    ck_assert(spx_jobparts_lookup(s, NS, PMIX_NUM_ALLOCATED_NODES, q, 2, &rc, &v));
    ck_assert_int_eq(rc, PMIX_ERR_BAD_PARAM);
    PMIx_Value_destruct(&q[1].value);
    /* PMIX_SESSION_INFO false: not a session lookup */
    bool no = false;
    PMIx_Info_load(&q[0], PMIX_SESSION_INFO, &no, PMIX_BOOL);
    ck_assert(!spx_jobparts_qualified(q, 1));
    ck_assert(!spx_jobparts_lookup(s, NS, PMIX_NUM_ALLOCATED_NODES, q, 1, &rc, &v));
    spx_store_destroy(s);
}
END_TEST

/* The ranks of a PMIX_LOCAL_PROCS value as "r1,r2" (every proc of NS), into buf. */
static void procs_str(const pmix_value_t *v, char *buf, size_t cap)
{
    ck_assert_int_eq(v->type, PMIX_DATA_ARRAY);
    ck_assert_ptr_nonnull(v->data.darray);
    ck_assert_int_eq(v->data.darray->type, PMIX_PROC);
    const pmix_proc_t *p = v->data.darray->array;
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < v->data.darray->size; i++) {
        ck_assert_str_eq(p[i].nspace, NS);
        off += (size_t)snprintf(buf + off, cap - off, "%s%u", i ? "," : "", p[i].rank);
        ck_assert_uint_lt(off, cap);
    }
}

/* spx_jobderived_get of PMIX_LOCAL_PROCS: handled, with rc want, and the
 * ranks (want_ranks) when it succeeds. */
static void expect_procs(const spx_store_t *s, pmix_rank_t rank, const pmix_info_t *q, size_t nq,
                         pmix_status_t want, const char *want_ranks)
{
    pmix_status_t rc = PMIX_ERROR;
    pmix_value_t v = {.type = PMIX_UNDEF};
    char buf[256];
    ck_assert(spx_jobderived_get(s, NS, rank, PMIX_LOCAL_PROCS, q, nq, &rc, &v));
    ck_assert_int_eq(rc, want);
    if (want == PMIX_SUCCESS) {
        procs_str(&v, buf, sizeof(buf));
        ck_assert_str_eq(buf, want_ranks);
    } else {
        ck_assert_int_eq(v.type, PMIX_UNDEF);
    }
    PMIx_Value_destruct(&v);
}

static void put_job_str(spx_store_t *s, const char *key, const char *str)
{
    pmix_value_t v = {.type = PMIX_STRING};
    v.data.string = (char *)str;
    ck_assert_int_eq(spx_store_put(s, NS, PMIX_RANK_WILDCARD, key, &v, PMIX_GLOBAL),
                     PMIX_SUCCESS);
}

START_TEST(local_procs)
{
    spx_store_t *s = spx_store_create();
    pmix_status_t rc;
    pmix_value_t v = {.type = PMIX_UNDEF};
    /* not a derived key; no peers known yet */
    ck_assert(!spx_jobderived_get(s, NS, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL, 0, &rc, &v));
    expect_procs(s, PMIX_RANK_WILDCARD, NULL, 0, PMIX_ERR_NOT_FOUND, NULL);
    /* this node: the job level's peers, for the job and for a rank */
    put_job_str(s, PMIX_LOCAL_PEERS, "0,2-3");
    expect_procs(s, PMIX_RANK_WILDCARD, NULL, 0, PMIX_SUCCESS, "0,2,3");
    expect_procs(s, 2, NULL, 0, PMIX_SUCCESS, "0,2,3");

    /* another node, by name and by id; unknown ones; a node without peers */
    pmix_info_t in[3], q[2];
    memset(in, 0, sizeof(in));
    memset(q, 0, sizeof(q));
    PMIx_Info_load(&in[0], PMIX_HOSTNAME, "n1", PMIX_STRING);
    load_u32(&in[1], PMIX_NODEID, 1);
    PMIx_Info_load(&in[2], PMIX_LOCAL_PEERS, "1,4", PMIX_STRING);
    ck_assert_int_eq(spx_jobparts_add_node(s, NS, in, 3), PMIX_SUCCESS);
    add_node(s, "n2", 2, PMIX_LOCAL_SIZE, 0);
    PMIx_Info_load(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
    PMIx_Info_load(&q[1], PMIX_HOSTNAME, "n1", PMIX_STRING);
    expect_procs(s, PMIX_RANK_WILDCARD, q, 2, PMIX_SUCCESS, "1,4");
    expect_procs(s, 0, q, 2, PMIX_SUCCESS, "0,2,3"); /* node qualifiers: rank WILDCARD only */
    PMIx_Value_destruct(&q[1].value);
    PMIx_Info_load(&q[1], PMIX_HOSTNAME, "n9", PMIX_STRING);
    expect_procs(s, PMIX_RANK_WILDCARD, q, 2, PMIX_ERR_NOT_FOUND, NULL);
    PMIx_Value_destruct(&q[1].value);
    load_u32(&q[1], PMIX_NODEID, 1);
    expect_procs(s, PMIX_RANK_WILDCARD, q, 2, PMIX_SUCCESS, "1,4");
    load_u32(&q[1], PMIX_NODEID, 2);
    expect_procs(s, PMIX_RANK_WILDCARD, q, 2, PMIX_ERR_NOT_FOUND, NULL);
    PMIx_Info_load(&q[1], PMIX_NODEID, "x", PMIX_STRING);
    expect_procs(s, PMIX_RANK_WILDCARD, q, 2, PMIX_ERR_BAD_PARAM, NULL);
    PMIx_Value_destruct(&q[1].value);

    /* a list that is not one: refused, never read past */
    put_job_str(s, PMIX_LOCAL_PEERS, "0,x");
    expect_procs(s, PMIX_RANK_WILDCARD, NULL, 0, PMIX_ERR_BAD_PARAM, NULL);
    put_job_str(s, PMIX_LOCAL_PEERS, "0-70000");
    expect_procs(s, PMIX_RANK_WILDCARD, NULL, 0, PMIX_ERR_BAD_PARAM, NULL);

    /* the host's own value wins, at the job level and in a node's part */
    pmix_proc_t mine[1];
    PMIX_LOAD_PROCID(&mine[0], NS, 7);
    pmix_data_array_t da = {.type = PMIX_PROC, .size = 1, .array = mine};
    pmix_value_t hv = {.type = PMIX_DATA_ARRAY};
    hv.data.darray = &da;
    ck_assert_int_eq(
        spx_store_put(s, NS, PMIX_RANK_WILDCARD, PMIX_LOCAL_PROCS, &hv, PMIX_GLOBAL),
        PMIX_SUCCESS);
    ck_assert(!spx_jobderived_get(s, NS, PMIX_RANK_WILDCARD, PMIX_LOCAL_PROCS, NULL, 0, &rc, &v));
    ck_assert(!spx_jobderived_get(s, NS, 3, PMIX_LOCAL_PROCS, NULL, 0, &rc, &v));
    PMIx_Value_destruct(&in[2].value);
    PMIx_Info_load(&in[2], PMIX_LOCAL_PROCS, &da, PMIX_DATA_ARRAY);
    ck_assert_int_eq(spx_jobparts_add_node(s, NS, in, 3), PMIX_SUCCESS);
    load_u32(&q[1], PMIX_NODEID, 1);
    ck_assert(!spx_jobderived_get(s, NS, PMIX_RANK_WILDCARD, PMIX_LOCAL_PROCS, q, 2, &rc, &v));
    ck_assert_int_eq(v.type, PMIX_UNDEF);
    for (size_t i = 0; i < 3; i++)
        PMIx_Value_destruct(&in[i].value);
    spx_store_destroy(s);
}
END_TEST

/* ================= part 2: a server whose host describes one node ================= */

static char tmpdir[64];
static char sock_path[512];
static pmix_server_module_t module;
static uint32_t next_seq = 1;

static void server_setup(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/spx-test-jobparts.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    pmix_info_t init;
    memset(&init, 0, sizeof(init));
    PMIx_Info_load(&init, PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    ck_assert_int_eq(PMIx_server_init(&module, &init, 1), PMIX_SUCCESS);
    PMIx_Value_destruct(&init.value);

    /* h0: ranks 0,1; h1: rank 2 (described by the host); h2: ranks 3-5 */
    char *nodemap = NULL, *procmap = NULL;
    ck_assert_int_eq(PMIx_generate_regex("h0,h1,h2", &nodemap), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_generate_ppn("0,1;2;3,4,5", &procmap), PMIX_SUCCESS);
    pmix_info_t node[3], job[5], sess[2];
    memset(node, 0, sizeof(node));
    memset(job, 0, sizeof(job));
    memset(sess, 0, sizeof(sess));
    load_u32(&sess[0], PMIX_SESSION_ID, 5);
    load_u32(&sess[1], PMIX_NUM_ALLOCATED_NODES, 4); /* one node runs none of the job */
    pmix_data_array_t sda = {.type = PMIX_INFO, .size = 2, .array = sess};
    PMIx_Info_load(&node[0], PMIX_HOSTNAME, "h1", PMIX_STRING);
    load_u32(&node[1], PMIX_NODEID, 1);
    load_u32(&node[2], PMIX_NODE_SIZE, 7); /* other jobs run there too */
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 3, .array = node};
    load_u32(&job[0], PMIX_JOB_SIZE, 6);
    PMIx_Info_load(&job[1], PMIX_NODE_MAP, nodemap, PMIX_STRING);
    PMIx_Info_load(&job[2], PMIX_PROC_MAP, procmap, PMIX_STRING);
    PMIX_LOAD_KEY(job[3].key, PMIX_NODE_INFO_ARRAY);
    job[3].value.type = PMIX_DATA_ARRAY;
    job[3].value.data.darray = &da;
    PMIX_LOAD_KEY(job[4].key, PMIX_SESSION_INFO_ARRAY);
    job[4].value.type = PMIX_DATA_ARRAY;
    job[4].value.data.darray = &sda;
    ck_assert_int_eq(PMIx_server_register_nspace(NS, 1, job, 5, NULL, NULL), PMIX_SUCCESS);
    PMIx_Value_destruct(&job[1].value);
    PMIx_Value_destruct(&job[2].value);
    PMIx_Value_destruct(&node[0].value);
    free(nodemap);
    free(procmap);

    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, NS, 2);
    ck_assert_int_eq(PMIx_server_register_client(&p, geteuid(), getegid(), NULL, NULL, NULL),
                     PMIX_SUCCESS);
    char **env = NULL;
    ck_assert_int_eq(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
    sock_path[0] = '\0';
    for (size_t i = 0; env && env[i]; i++) {
        const char *pre = SPX_ENV_SERVER_URI "=" SPX_URI_PREFIX;
        if (strncmp(env[i], pre, strlen(pre)) == 0)
            snprintf(sock_path, sizeof(sock_path), "%s", env[i] + strlen(pre));
        free(env[i]);
    }
    free(env);
    ck_assert_str_ne(sock_path, "");
}

static void server_teardown(void)
{
    ck_assert_int_eq(PMIx_server_finalize(), PMIX_SUCCESS);
    rmdir(tmpdir);
}

static uint32_t send_req(int fd, uint8_t type, spx_buf_t *b)
{
    uint32_t seq = next_seq++;
    ck_assert_int_eq(spx_frame_send_blocking(fd, type, 0, seq, b), 0);
    spx_buf_fini(b);
    return seq;
}

static void recv_reply(int fd, uint8_t type, uint32_t seq, spx_buf_t *out)
{
    for (;;) {
        spx_frame_hdr_t h;
        ck_assert_int_eq(spx_frame_recv_blocking(fd, &h, out, 5000), 0);
        if (h.type == type && (h.flags & SPX_FRAME_F_REPLY) && h.seq == seq)
            return;
        spx_buf_fini(out);
    }
}

/* HELLO as rank 2; the reply's blocks go into s as a client stores them. */
static int hello_into(spx_store_t *s)
{
    int fd = spx_unix_connect(sock_path);
    ck_assert_int_ge(fd, 0);
    spx_buf_t b, r;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, SPX_PROTO_VERSION);
    spx_buf_push_u8(&b, SPX_PEER_CLIENT);
    spx_buf_push_str(&b, NS);
    spx_buf_push_u32(&b, 2);
    spx_buf_push_u32(&b, (uint32_t)getpid());
    recv_reply(fd, SPX_MSG_HELLO, send_req(fd, SPX_MSG_HELLO, &b), &r);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    uint32_t nblocks = spx_buf_pull_u32(&r);
    for (uint32_t k = 0; k < nblocks; k++) {
        pmix_rank_t rank = spx_buf_pull_u32(&r);
        pmix_info_t *info = NULL;
        size_t n = 0;
        ck_assert_int_eq(spx_codec_pull_info_array(&r, &info, &n), 0);
        for (size_t i = 0; i < n; i++)
            spx_store_put(s, NS, rank, info[i].key, &info[i].value, PMIX_INTERNAL);
        if (info)
            PMIX_INFO_FREE(info, n);
    }
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    spx_buf_fini(&r);
    return fd;
}

static const char *node_str(const spx_store_t *s, const char *key, const char *host)
{
    pmix_status_t rc;
    const pmix_value_t *v = NULL;
    ck_assert(ask_node(s, key, PMIX_HOSTNAME, host, PMIX_STRING, &rc, &v));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_int_eq(v->type, PMIX_STRING);
    return v->data.string;
}

static pmix_rank_t node_rank(const spx_store_t *s, const char *key, const char *host)
{
    pmix_status_t rc;
    const pmix_value_t *v = NULL;
    ck_assert(ask_node(s, key, PMIX_HOSTNAME, host, PMIX_STRING, &rc, &v));
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_int_eq(v->type, PMIX_PROC_RANK);
    return v->data.rank;
}

START_TEST(server_derives_other_nodes)
{
    spx_store_t *s = spx_store_create();
    int fd = hello_into(s);
    static const char *const hosts[3] = {"h0", "h1", "h2"};
    static const char *const peers[3] = {"0,1", "2", "3,4,5"};
    static const uint32_t sizes[3] = {2, 1, 3}, nsizes[3] = {2, 7, 3};
    static const pmix_rank_t ldrs[3] = {0, 2, 3};
    for (uint32_t i = 0; i < 3; i++) {
        ck_assert_str_eq(node_str(s, PMIX_LOCAL_PEERS, hosts[i]), peers[i]);
        ck_assert_uint_eq(node_u32(s, PMIX_LOCAL_SIZE, PMIX_HOSTNAME, hosts[i], PMIX_STRING),
                          sizes[i]);
        ck_assert_uint_eq(node_u32(s, PMIX_NODE_SIZE, PMIX_HOSTNAME, hosts[i], PMIX_STRING),
                          nsizes[i]);
        ck_assert_uint_eq(node_rank(s, PMIX_LOCALLDR, hosts[i]), ldrs[i]);
        ck_assert_uint_eq(node_u32(s, PMIX_NODEID, PMIX_HOSTNAME, hosts[i], PMIX_STRING), i);
        pmix_status_t rc;
        const pmix_value_t *v = NULL;
        ck_assert(ask_node(s, PMIX_HOSTNAME, PMIX_NODEID, &i, PMIX_UINT32, &rc, &v));
        ck_assert_int_eq(rc, PMIX_SUCCESS);
        ck_assert_str_eq(v->data.string, hosts[i]);
    }
    uint32_t three = 3;
    ck_assert_int_eq(node_rc(s, PMIX_LOCAL_SIZE, PMIX_NODEID, &three, PMIX_UINT32),
                     PMIX_ERR_NOT_FOUND);
    /* the session: its part, and the job level where that lacks its keys */
    uint32_t u = 0;
    ck_assert_int_eq(ask_session(s, PMIX_NUM_ALLOCATED_NODES, 5, &u), PMIX_SUCCESS);
    ck_assert_uint_eq(u, 4);
    ck_assert_int_eq(ask_session(s, PMIX_NUM_ALLOCATED_NODES, 6, &u), PMIX_ERR_NOT_FOUND);
    const pmix_value_t *jv =
        spx_store_peek(s, NS, PMIX_RANK_WILDCARD, PMIX_NUM_ALLOCATED_NODES, NULL);
    ck_assert_ptr_nonnull(jv);
    ck_assert_uint_eq(jv->data.uint32, 4);

    /* the server answers qualified GETs the same way */
    static const struct {
        const char *which;
        const char *host;
        uint32_t id;
        pmix_status_t st;
        const char *peers;
    } gets[] = {{PMIX_NODEID, NULL, 2, PMIX_SUCCESS, "3,4,5"},
                {PMIX_HOSTNAME, "h0", 0, PMIX_SUCCESS, "0,1"},
                {PMIX_HOSTNAME, "nope", 0, PMIX_ERR_NOT_FOUND, NULL},
                {PMIX_NODEID, NULL, 9, PMIX_ERR_NOT_FOUND, NULL}};
    for (size_t g = 0; g < sizeof(gets) / sizeof(gets[0]); g++) {
        spx_buf_t b, r;
        pmix_proc_t t;
        pmix_info_t q[2];
        memset(q, 0, sizeof(q));
        PMIX_LOAD_PROCID(&t, NS, PMIX_RANK_WILDCARD);
        PMIx_Info_load(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
        if (gets[g].host)
            PMIx_Info_load(&q[1], PMIX_HOSTNAME, gets[g].host, PMIX_STRING);
        else
            load_u32(&q[1], PMIX_NODEID, gets[g].id);
        spx_buf_init(&b);
        spx_codec_push_proc(&b, &t);
        spx_buf_push_str(&b, PMIX_LOCAL_PEERS);
        spx_codec_push_info_array(&b, q, 2);
        PMIx_Value_destruct(&q[1].value);
        recv_reply(fd, SPX_MSG_GET, send_req(fd, SPX_MSG_GET, &b), &r);
        ck_assert_int_eq(spx_buf_pull_i32(&r), gets[g].st);
        if (gets[g].st == PMIX_SUCCESS) {
            pmix_value_t v;
            ck_assert_int_eq(spx_codec_pull_value(&r, &v), 0);
            ck_assert_int_eq(v.type, PMIX_STRING);
            ck_assert_str_eq(v.data.string, gets[g].peers);
            PMIx_Value_destruct(&v);
        }
        spx_buf_fini(&r);
    }
    /* PMIX_LOCAL_PROCS of a node, computed by the server from its peers */
    spx_buf_t b, r;
    pmix_proc_t t;
    pmix_info_t q[2];
    memset(q, 0, sizeof(q));
    PMIX_LOAD_PROCID(&t, NS, PMIX_RANK_WILDCARD);
    PMIx_Info_load(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
    PMIx_Info_load(&q[1], PMIX_HOSTNAME, "h2", PMIX_STRING);
    spx_buf_init(&b);
    spx_codec_push_proc(&b, &t);
    spx_buf_push_str(&b, PMIX_LOCAL_PROCS);
    spx_codec_push_info_array(&b, q, 2);
    PMIx_Value_destruct(&q[1].value);
    recv_reply(fd, SPX_MSG_GET, send_req(fd, SPX_MSG_GET, &b), &r);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    pmix_value_t v;
    char ranks[64];
    ck_assert_int_eq(spx_codec_pull_value(&r, &v), 0);
    procs_str(&v, ranks, sizeof(ranks));
    ck_assert_str_eq(ranks, "3,4,5");
    PMIx_Value_destruct(&v);
    spx_buf_fini(&r);
    /* and a session key, from the session part */
    PMIx_Info_load(&q[0], PMIX_SESSION_INFO, NULL, PMIX_BOOL);
    load_u32(&q[1], PMIX_SESSION_ID, 5);
    spx_buf_init(&b);
    spx_codec_push_proc(&b, &t);
    spx_buf_push_str(&b, PMIX_NUM_ALLOCATED_NODES);
    spx_codec_push_info_array(&b, q, 2);
    recv_reply(fd, SPX_MSG_GET, send_req(fd, SPX_MSG_GET, &b), &r);
    ck_assert_int_eq(spx_buf_pull_i32(&r), PMIX_SUCCESS);
    ck_assert_int_eq(spx_codec_pull_value(&r, &v), 0);
    ck_assert_int_eq(v.type, PMIX_UINT32);
    ck_assert_uint_eq(v.data.uint32, 4);
    spx_buf_fini(&r);
    close(fd);
    spx_store_destroy(s);
}
END_TEST

static Suite *jobparts_suite(void)
{
    Suite *s = suite_create("jobparts");
    TCase *tc = tcase_create("store");
    tcase_add_test(tc, parts_nodes);
    tcase_add_test(tc, parts_apps);
    tcase_add_test(tc, parts_session);
    tcase_add_test(tc, local_procs);
    suite_add_tcase(s, tc);
    tc = tcase_create("server");
    tcase_add_checked_fixture(tc, server_setup, server_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, server_derives_other_nodes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    SRunner *sr = srunner_create(jobparts_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
