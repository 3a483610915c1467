/*
 * it_nodeinfo: PMIx_Get of node-level and app-level info qualified with
 * PMIX_NODE_INFO (+ PMIX_HOSTNAME or PMIX_NODEID) and PMIX_APP_INFO
 * (+ PMIX_APPNUM), as the PMIx Standard describes for rank WILDCARD.
 *
 * Every rank publishes what it sees of its own node without qualifiers
 * (PMIX_HOSTNAME, PMIX_NODEID, PMIX_LOCAL_SIZE, PMIX_NODE_SIZE,
 * PMIX_LOCALLDR, PMIX_LOCAL_PEERS, PMIX_LOCAL_PROCS) and fences with data
 * collection. Then
 * every rank, for every node of PMIX_NODE_LIST, asks those keys of that node
 * by host name and by node id (blocking and _nb) and checks that
 *  - they equal what each rank on that node sees of itself (and every node
 *    of the list holds a rank), PMIX_LOCAL_PEERS is the set of ranks
 *    PMIx_Resolve_peers gives for that host and PMIX_LOCAL_PROCS those
 *    ranks of this namespace in the same order; PMIX_LOCAL_PROCS asked of
 *    this rank equals the job's (PMIx_Value_compare);
 *  - PMIX_NODE_INFO alone means this node; no qualifier: this node, as before;
 *  - an unknown host name or node id is PMIX_ERR_NOT_FOUND, a key the node
 *    does not have (a job-level key) too, a node id that is not a number
 *    PMIX_ERR_BAD_PARAM, and the qualifiers flagged PMIX_INFO_REQD are honoured;
 *  - PMIX_APP_INFO (with PMIX_APPNUM 0, or alone) gives the app's size, the
 *    job size here (one app); an unknown app number is PMIX_ERR_NOT_FOUND;
 *  - PMIX_SESSION_INFO gives the session spmix-run registers (a singleton
 *    has its own): PMIX_NUM_ALLOCATED_NODES, the node count (also without
 *    the qualifier), and PMIX_UNIV_SIZE, the job level's; a key the session
 *    lacks, or a PMIX_SESSION_ID (the session has none), is
 *    PMIX_ERR_NOT_FOUND, a PMIX_SESSION_ID that is not a number
 *    PMIX_ERR_BAD_PARAM.
 * Also run as a singleton (one node: the host name). Prints
 * "it_nodeinfo: N ranks on M nodes: OK" from rank 0.
 */
#include "itest.h"

#define VIEW_KEY "spmix.it.nodeview"
#define NKEYS 7

static const char *const node_keys[NKEYS] = {PMIX_HOSTNAME,    PMIX_NODEID,   PMIX_LOCAL_SIZE,
                                             PMIX_NODE_SIZE,   PMIX_LOCALLDR, PMIX_LOCAL_PEERS,
                                             PMIX_LOCAL_PROCS};

/* An array of procs as "r1,r2,..." ("?ns" for a process of another namespace). */
static void procs_text(const pmix_data_array_t *da, char *buf, size_t cap)
{
    const pmix_proc_t *p = da ? da->array : NULL;
    size_t off = 0;

    buf[0] = '\0';
    if (!da || da->type != PMIX_PROC || (da->size && !p)) {
        snprintf(buf, cap, "?array");
        return;
    }
    for (size_t i = 0; i < da->size && off < cap; i++)
        off += PMIX_CHECK_NSPACE(p[i].nspace, it_me.nspace)
                   ? (size_t)snprintf(buf + off, cap - off, "%s%u", i ? "," : "", p[i].rank)
                   : (size_t)snprintf(buf + off, cap - off, "%s?ns", i ? "," : "");
}

/* A value of the node keys' types as text ("?" for another type). */
static void value_text(const pmix_value_t *v, char *buf, size_t cap)
{
    switch (v->type) {
    case PMIX_STRING:
        snprintf(buf, cap, "%s", v->data.string ? v->data.string : "(null)");
        break;
    case PMIX_UINT32:
        snprintf(buf, cap, "%u", v->data.uint32);
        break;
    case PMIX_PROC_RANK:
        snprintf(buf, cap, "%u", v->data.rank);
        break;
    case PMIX_DATA_ARRAY:
        procs_text(v->data.darray, buf, cap);
        break;
    default:
        snprintf(buf, cap, "?type%d", (int)v->type);
    }
}

/* The node keys as "host|id|size|nodesize|ldr|peers|procs", asked of the job with
 * the given qualifiers (NULL: none). buf: caller's. */
static void node_view(const pmix_info_t *qual, size_t nqual, char *buf, size_t cap)
{
    pmix_proc_t wild;
    size_t off = 0;

    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    buf[0] = '\0';
    for (int k = 0; k < NKEYS; k++) {
        pmix_value_t *v = NULL;
        char one[4096];
        pmix_status_t rc = PMIx_Get(&wild, node_keys[k], qual, nqual, &v);
        IT_CHECK(rc == PMIX_SUCCESS, "PMIx_Get(%s, %zu qualifiers%s%s): %s", node_keys[k], nqual,
                 nqual > 1 ? ", " : "", nqual > 1 ? qual[1].key : "", PMIx_Error_string(rc));
        value_text(v, one, sizeof(one));
        PMIX_VALUE_RELEASE(v);
        off += (size_t)snprintf(buf + off, cap > off ? cap - off : 0, "%s%s", k ? "|" : "", one);
    }
    IT_CHECK(off < cap, "node view too long");
}

struct nb_get {
    volatile int done;
    pmix_status_t rc;
    char text[4096];
};

static void nb_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    struct nb_get *g = cbdata;

    g->rc = status;
    if (status == PMIX_SUCCESS && kv)
        value_text(kv, g->text, sizeof(g->text));
    __atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
}

/* The same view through PMIx_Get_nb (the request goes through the progress thread). */
static void node_view_nb(const pmix_info_t *qual, size_t nqual, char *buf, size_t cap)
{
    pmix_proc_t wild;
    size_t off = 0;

    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    for (int k = 0; k < NKEYS; k++) {
        struct nb_get g = {.done = 0};
        IT_RC(PMIx_Get_nb(&wild, node_keys[k], qual, nqual, nb_cb, &g), PMIX_SUCCESS,
              "PMIx_Get_nb");
        IT_WAIT_FOR(g.done, 10, "PMIx_Get_nb callback");
        IT_RC(g.rc, PMIX_SUCCESS, node_keys[k]);
        off += (size_t)snprintf(buf + off, cap > off ? cap - off : 0, "%s%s", k ? "|" : "",
                                g.text);
    }
    IT_CHECK(off < cap, "node view too long");
}

static pmix_status_t get_status(const char *key, const pmix_info_t *qual, size_t nqual)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, key, qual, nqual, &v);
    if (v)
        PMIX_VALUE_RELEASE(v);
    return rc;
}

static uint32_t get_u32_q(const char *key, const pmix_info_t *qual, size_t nqual)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    uint32_t u;

    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Get(&wild, key, qual, nqual, &v), PMIX_SUCCESS, key);
    IT_CHECK(v->type == PMIX_UINT32, "%s has type %d", key, v->type);
    u = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return u;
}

/* The field'th '|'-separated field of a view, into out. */
static void view_field(const char *view, int field, char *out, size_t cap)
{
    const char *p = view;
    size_t n;

    for (int i = 0; i < field && p; i++)
        if ((p = strchr(p, '|')))
            p++;
    IT_CHECK(p != NULL, "view \"%s\" lacks field %d", view, field);
    n = strcspn(p, "|");
    IT_CHECK(n < cap, "field too long");
    memcpy(out, p, n);
    out[n] = '\0';
}

/* PMIX_LOCAL_PEERS "a,b,c" equals the ranks PMIx_Resolve_peers gives for host. */
static void check_peers(const char *host, const char *peers)
{
    pmix_proc_t *procs = NULL;
    size_t nprocs = 0, count = 0;
    char *copy = strdup(peers), *save = NULL;

    IT_CHECK(copy != NULL, "strdup");
    IT_RC(PMIx_Resolve_peers(host, it_me.nspace, &procs, &nprocs), PMIX_SUCCESS,
          "PMIx_Resolve_peers");
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t i;
        for (i = 0; i < nprocs && procs[i].rank != (pmix_rank_t)strtoul(t, NULL, 10); i++)
            ;
        IT_CHECK(i < nprocs, "rank %s of %s's PMIX_LOCAL_PEERS \"%s\" not resolved there", t,
                 host, peers);
        count++;
    }
    IT_CHECK(count == nprocs, "%s: PMIX_LOCAL_PEERS \"%s\", %zu peers resolved", host, peers,
             nprocs);
    free(copy);
    if (procs)
        PMIX_PROC_FREE(procs, nprocs);
}

int main(void)
{
    uint32_t size = it_init(), nnodes = 0;
    pmix_proc_t wild, p;
    pmix_value_t *v = NULL, val;
    char mine[8192], view[8192], other[8192], procs[8192], host[512], idtxt[32];
    pmix_info_t q[3], coll;
    bool flag = true;

    /* this rank's own, unqualified view of its node, for everyone */
    node_view(NULL, 0, mine, sizeof(mine));
    val.type = PMIX_STRING;
    val.data.string = mine;
    IT_RC(PMIx_Put(PMIX_GLOBAL, VIEW_KEY, &val), PMIX_SUCCESS, "PMIx_Put");
    IT_RC(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit");
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    IT_RC(PMIx_Fence(NULL, 0, &coll, 1), PMIX_SUCCESS, "PMIx_Fence(collect)");
    PMIX_INFO_DESTRUCT(&coll);

    /* PMIX_LOCAL_PROCS of this rank: the job's, as OpenPMIx's client example checks */
    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Get(&wild, PMIX_LOCAL_PROCS, NULL, 0, &v), PMIX_SUCCESS, "local procs (job)");
    pmix_value_t *v2 = NULL;
    IT_RC(PMIx_Get(&it_me, PMIX_LOCAL_PROCS, NULL, 0, &v2), PMIX_SUCCESS, "local procs (me)");
    IT_CHECK(PMIx_Value_compare(v, v2) == PMIX_EQUAL, "PMIX_LOCAL_PROCS of the job and of me differ");
    PMIX_VALUE_RELEASE(v);
    PMIX_VALUE_RELEASE(v2);

    /* PMIX_NODE_INFO alone: this node */
    PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
    node_view(q, 1, view, sizeof(view));
    IT_CHECK(strcmp(view, mine) == 0, "PMIX_NODE_INFO alone: \"%s\", own view \"%s\"", view,
             mine);

    PMIX_LOAD_PROCID(&wild, it_me.nspace, PMIX_RANK_WILDCARD);
    IT_RC(PMIx_Get(&wild, PMIX_NODE_LIST, NULL, 0, &v), PMIX_SUCCESS, "PMIx_Get(node list)");
    IT_CHECK(v->type == PMIX_STRING && v->data.string, "node list type %d", v->type);
    char *list = strdup(v->data.string), *save = NULL;
    PMIX_VALUE_RELEASE(v);
    IT_CHECK(list != NULL, "strdup");

    for (char *node = strtok_r(list, ",", &save); node; node = strtok_r(NULL, ",", &save)) {
        int ranks_here = 0;
        nnodes++;
        /* by host name (blocking and _nb) */
        PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, node, PMIX_STRING);
        node_view(q, 2, view, sizeof(view));
        node_view_nb(q, 2, other, sizeof(other));
        IT_CHECK(strcmp(view, other) == 0, "%s: Get \"%s\", Get_nb \"%s\"", node, view, other);
        view_field(view, 0, host, sizeof(host));
        IT_CHECK(strcmp(host, node) == 0, "PMIX_HOSTNAME of node %s is %s", node, host);
        /* a key the node does not have: a job-level one */
        IT_RC(get_status(PMIX_JOB_SIZE, q, 2), PMIX_ERR_NOT_FOUND, "job size of a node");
        PMIX_INFO_DESTRUCT(&q[1]);
        /* by node id */
        view_field(view, 1, idtxt, sizeof(idtxt));
        uint32_t id = (uint32_t)strtoul(idtxt, NULL, 10);
        PMIX_INFO_LOAD(&q[1], PMIX_NODEID, &id, PMIX_UINT32);
        node_view(q, 2, other, sizeof(other));
        IT_CHECK(strcmp(view, other) == 0, "node %s: by name \"%s\", by id %u \"%s\"", node, view,
                 id, other);
        node_view_nb(q, 2, other, sizeof(other));
        IT_CHECK(strcmp(view, other) == 0, "node %s: by name \"%s\", by id (nb) \"%s\"", node,
                 view, other);
        PMIX_INFO_DESTRUCT(&q[1]);
        /* what each rank on that node sees of itself */
        for (uint32_t r = 0; r < size; r++) {
            PMIX_LOAD_PROCID(&p, it_me.nspace, r);
            IT_RC(PMIx_Get(&p, VIEW_KEY, NULL, 0, &v), PMIX_SUCCESS, "PMIx_Get(view of a rank)");
            view_field(v->data.string, 0, host, sizeof(host));
            if (strcmp(host, node) == 0) {
                IT_CHECK(strcmp(v->data.string, view) == 0,
                         "node %s: asked \"%s\", rank %u there sees \"%s\"", node, view, r,
                         v->data.string);
                ranks_here++;
            }
            PMIX_VALUE_RELEASE(v);
        }
        IT_CHECK(ranks_here > 0, "node %s of PMIX_NODE_LIST holds no rank", node);
        view_field(view, 5, other, sizeof(other));
        check_peers(node, other);
        view_field(view, 6, procs, sizeof(procs));
        IT_CHECK(strcmp(procs, other) == 0, "node %s: PMIX_LOCAL_PROCS %s, PMIX_LOCAL_PEERS %s",
                 node, procs, other);
    }
    free(list);
    IT_CHECK(nnodes == it_num_nodes(), "%u nodes listed, PMIX_NUM_NODES %u", nnodes,
             it_num_nodes());

    /* unknown nodes, bad ids, and the Get without qualifiers stays this node's */
    PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, "no-such-node.invalid", PMIX_STRING);
    IT_RC(get_status(PMIX_LOCAL_SIZE, q, 2), PMIX_ERR_NOT_FOUND, "an unknown host");
    PMIX_INFO_DESTRUCT(&q[1]);
    uint32_t bad = 4000000;
    PMIX_INFO_LOAD(&q[1], PMIX_NODEID, &bad, PMIX_UINT32);
    IT_RC(get_status(PMIX_LOCAL_SIZE, q, 2), PMIX_ERR_NOT_FOUND, "an unknown node id");
    PMIX_INFO_DESTRUCT(&q[1]);
    PMIX_INFO_LOAD(&q[1], PMIX_NODEID, "not-a-number", PMIX_STRING);
    IT_RC(get_status(PMIX_LOCAL_SIZE, q, 2), PMIX_ERR_BAD_PARAM, "a node id not a number");
    PMIX_INFO_DESTRUCT(&q[1]);
    node_view(NULL, 0, view, sizeof(view));
    IT_CHECK(strcmp(view, mine) == 0, "unqualified view changed: \"%s\", was \"%s\"", view, mine);

    /* the qualifiers as required directives: honoured, so accepted */
    view_field(mine, 0, host, sizeof(host));
    PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, host, PMIX_STRING);
    PMIX_INFO_REQUIRED(&q[0]);
    PMIX_INFO_REQUIRED(&q[1]);
    node_view(q, 2, view, sizeof(view));
    IT_CHECK(strcmp(view, mine) == 0, "required qualifiers: \"%s\", own \"%s\"", view, mine);
    PMIX_INFO_DESTRUCT(&q[1]);
    PMIX_INFO_DESTRUCT(&q[0]);

    /* the app: the one app is the whole job */
    uint32_t app = 0;
    PMIX_INFO_LOAD(&q[0], PMIX_APP_INFO, NULL, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&q[0]);
    IT_CHECK(get_u32_q(PMIX_APP_SIZE, q, 1) == size, "app size (this app) is not %u", size);
    PMIX_INFO_LOAD(&q[1], PMIX_APPNUM, &app, PMIX_UINT32);
    PMIX_INFO_REQUIRED(&q[1]);
    IT_CHECK(get_u32_q(PMIX_APP_SIZE, q, 2) == size, "app size (app 0) is not %u", size);
    IT_CHECK(get_u32_q(PMIX_APPNUM, q, 2) == 0, "appnum of app 0");
    IT_RC(get_status(PMIX_NODE_LIST, q, 2), PMIX_ERR_NOT_FOUND, "an app's node list");
    PMIX_INFO_DESTRUCT(&q[1]);
    app = 7;
    PMIX_INFO_LOAD(&q[1], PMIX_APPNUM, &app, PMIX_UINT32);
    IT_RC(get_status(PMIX_APP_SIZE, q, 2), PMIX_ERR_NOT_FOUND, "an unknown app");
    PMIX_INFO_DESTRUCT(&q[1]);
    PMIX_INFO_DESTRUCT(&q[0]);

    /* the session: spmix-run's allocation is its nodes; the Slurm plugin
     * registers none (its servers know the step, not the allocation) */
    if (getenv("SLURM_STEP_ID")) {
        IT_RC(get_status(PMIX_NUM_ALLOCATED_NODES, NULL, 0), PMIX_ERR_NOT_FOUND,
              "PMIX_NUM_ALLOCATED_NODES under Slurm");
        it_fence();
        if (it_me.rank == 0)
            printf("it_nodeinfo: %u ranks on %u nodes: OK\n", size, nnodes);
        it_finalize();
        return 0;
    }
    IT_CHECK(get_u32_q(PMIX_NUM_ALLOCATED_NODES, NULL, 0) == nnodes,
             "PMIX_NUM_ALLOCATED_NODES is not %u", nnodes);
    PMIX_INFO_LOAD(&q[0], PMIX_SESSION_INFO, NULL, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&q[0]);
    IT_CHECK(get_u32_q(PMIX_NUM_ALLOCATED_NODES, q, 1) == nnodes,
             "the session's PMIX_NUM_ALLOCATED_NODES is not %u", nnodes);
    IT_CHECK(get_u32_q(PMIX_UNIV_SIZE, q, 1) == get_u32_q(PMIX_UNIV_SIZE, NULL, 0),
             "the session's PMIX_UNIV_SIZE is not the job's");
    IT_RC(get_status(PMIX_JOB_SIZE, q, 1), PMIX_ERR_NOT_FOUND, "a job key of the session");
    uint32_t sid = 0;
    PMIX_INFO_LOAD(&q[1], PMIX_SESSION_ID, &sid, PMIX_UINT32);
    IT_RC(get_status(PMIX_NUM_ALLOCATED_NODES, q, 2), PMIX_ERR_NOT_FOUND, "a session by id");
    PMIX_INFO_DESTRUCT(&q[1]);
    PMIX_INFO_LOAD(&q[1], PMIX_SESSION_ID, "x", PMIX_STRING);
    IT_RC(get_status(PMIX_NUM_ALLOCATED_NODES, q, 2), PMIX_ERR_BAD_PARAM,
          "a session id not a number");
    PMIX_INFO_DESTRUCT(&q[1]);
    PMIX_INFO_DESTRUCT(&q[0]);

    it_fence();
    if (it_me.rank == 0)
        printf("it_nodeinfo: %u ranks on %u nodes: OK\n", size, nnodes);
    it_finalize();
    return 0;
}
