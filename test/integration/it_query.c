/*
 * it_query: PMIx_Query_info answers and the job's node keys.
 *
 *  - the PMIx Standard ABI levels (PMIX_QUERY_STABLE/PROVISIONAL_ABI_VERSION)
 *    are answered before PMIx_Init, after it (alone and mixed with other
 *    keys) and after PMIx_Finalize, always the same "MAJOR.MINOR" lists;
 *    other keys before init are PMIX_ERR_INIT;
 *  - a query of which some keys are answered returns those answers with
 *    PMIX_ERR_PARTIAL_SUCCESS (blocking and _nb; keys answered from the job
 *    info, by the server, and by the library), one answered by nobody
 *    PMIX_ERR_NOT_FOUND;
 *  - no process set is defined: PMIX_QUERY_NUM_PSETS is 0 (size_t) and
 *    PMIX_QUERY_PSET_NAMES the empty list ("", char*), PMIX_SUCCESS, blocking
 *    and _nb with PMIX_QUERY_REFRESH_CACHE as OpenPMIx's hello example asks,
 *    and with PMIX_NSPACE; with an unknown key, PMIX_ERR_PARTIAL_SUCCESS;
 *  - PMIX_NODE_LIST is the job's nodes in node-map order: as many as
 *    PMIX_NUM_NODES, the same list as PMIx_Resolve_nodes, entry PMIX_NODEID
 *    of every rank is that rank's PMIX_HOSTNAME, and every node holds a rank;
 *    this node's PMIX_HOSTNAME and PMIX_NODEID (rank WILDCARD) are this rank's.
 * Prints "it_query: N ranks on M nodes: OK" from rank 0.
 */
#include "itest.h"

#include <ctype.h>
#include <pthread.h>

#define NOKEY "spmix.it.nosuchkey"

/* A comma-separated list of MAJOR.MINOR pairs. */
static int is_version_list(const char *s)
{
    while (*s) {
        if (!isdigit((unsigned char)*s))
            return 0;
        while (isdigit((unsigned char)*s))
            s++;
        if (*s++ != '.' || !isdigit((unsigned char)*s))
            return 0;
        while (isdigit((unsigned char)*s))
            s++;
        if (*s == ',' && s[1])
            s++;
        else if (*s)
            return 0;
    }
    return 1;
}

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

/* Builds nq queries of one key each; qualified ones carry our nspace. */
static pmix_query_t *queries(const char *const *keys, size_t nq, int qualified)
{
    pmix_query_t *q;

    PMIX_QUERY_CREATE(q, nq);
    IT_CHECK(q != NULL, "PMIX_QUERY_CREATE");
    for (size_t i = 0; i < nq; i++) {
        q[i].keys = calloc(2, sizeof(char *));
        IT_CHECK(q[i].keys && (q[i].keys[0] = strdup(keys[i])), "out of memory");
        if (qualified) {
            PMIX_INFO_CREATE(q[i].qualifiers, 1);
            q[i].nqual = 1;
            PMIX_INFO_LOAD(&q[i].qualifiers[0], PMIX_NSPACE, it_me.nspace, PMIX_STRING);
        }
    }
    return q;
}

static char stable[64], provisional[64];

/* The ABI queries: answered, well-formed, equal to what was seen first. */
static void check_abi(const char *when)
{
    static const char *const keys[] = { PMIX_QUERY_STABLE_ABI_VERSION,
                                        PMIX_QUERY_PROVISIONAL_ABI_VERSION };
    pmix_query_t *q = queries(keys, 2, 0);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    char what[128];

    snprintf(what, sizeof(what), "PMIx_Query_info(ABI versions) %s", when);
    IT_RC(PMIx_Query_info(q, 2, &res, &nres), PMIX_SUCCESS, what);
    IT_CHECK(nres == 2, "%s: %zu results", what, nres);
    for (int i = 0; i < 2; i++) {
        const pmix_info_t *a = find(res, nres, keys[i]);
        char *seen = i ? provisional : stable;
        IT_CHECK(a && a->value.type == PMIX_STRING && a->value.data.string,
                 "%s: no string for %s", what, keys[i]);
        IT_CHECK(is_version_list(a->value.data.string), "%s: %s is \"%s\"", what, keys[i],
                 a->value.data.string);
        if (!seen[0])
            snprintf(seen, 64, "%s", a->value.data.string);
        IT_CHECK(strcmp(seen, a->value.data.string) == 0, "%s: %s is \"%s\", was \"%s\"",
                 what, keys[i], a->value.data.string, seen);
    }
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_FREE(q, 2);
}

static void before_init(void)
{
    static const char *const other[] = { PMIX_QUERY_STABLE_ABI_VERSION, PMIX_JOB_SIZE };
    pmix_query_t *q = queries(other, 2, 0);
    pmix_info_t *res = NULL;
    size_t nres = 0;

    check_abi("before PMIx_Init");
    IT_RC(PMIx_Query_info(q, 2, &res, &nres), PMIX_ERR_INIT,
          "PMIx_Query_info(ABI + job size) before PMIx_Init");
    IT_CHECK(res == NULL && nres == 0, "results before init");
    PMIX_QUERY_FREE(q, 2);
}

/* Blocking query: status want, exactly the keys of answered[] in the results. */
static void expect(const char *const *keys, size_t nq, int qualified, pmix_status_t want,
                   const char *const *answered, size_t nanswered, const char *what)
{
    pmix_query_t *q = queries(keys, nq, qualified);
    pmix_info_t *res = NULL;
    size_t nres = 0;

    IT_RC(PMIx_Query_info(q, nq, &res, &nres), want, what);
    IT_CHECK(nres == nanswered, "%s: %zu results, expected %zu", what, nres, nanswered);
    for (size_t i = 0; i < nanswered; i++)
        IT_CHECK(find(res, nres, answered[i]) != NULL, "%s: no answer for %s", what,
                 answered[i]);
    if (res)
        PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_FREE(q, nq);
}

struct nb_result {
    pthread_mutex_t lock;
    pmix_status_t status;
    size_t ninfo;
    int has_size;
    volatile int done;
};

static void nb_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                  pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct nb_result *r = cbdata;
    const pmix_info_t *sz = find(info, ninfo, PMIX_JOB_SIZE);

    pthread_mutex_lock(&r->lock);
    r->status = status;
    r->ninfo = ninfo;
    r->has_size = sz && sz->value.type == PMIX_UINT32;
    r->done = 1;
    pthread_mutex_unlock(&r->lock);
    if (release_fn)
        release_fn(release_cbdata);
}

static void partial(void)
{
    static const char *const size_nokey[] = { PMIX_JOB_SIZE, NOKEY };
    static const char *const size_only[] = { PMIX_JOB_SIZE };
    static const char *const abi_size_nokey[] = { PMIX_QUERY_STABLE_ABI_VERSION,
                                                  PMIX_JOB_SIZE, NOKEY };
    static const char *const abi_size[] = { PMIX_QUERY_STABLE_ABI_VERSION, PMIX_JOB_SIZE };
    static const char *const abi_nokey[] = { PMIX_QUERY_PROVISIONAL_ABI_VERSION, NOKEY };
    static const char *const abi_only[] = { PMIX_QUERY_PROVISIONAL_ABI_VERSION };
    static const char *const nokey[] = { NOKEY };

    /* job size from the job info, the other key unknown */
    expect(size_nokey, 2, 0, PMIX_ERR_PARTIAL_SUCCESS, size_only, 1, "query(size, unknown)");
    /* qualified: both go to the server, which answers one */
    expect(size_nokey, 2, 1, PMIX_ERR_PARTIAL_SUCCESS, size_only, 1,
           "query(size, unknown) with PMIX_NSPACE");
    expect(size_only, 1, 1, PMIX_SUCCESS, size_only, 1, "query(size) with PMIX_NSPACE");
    expect(abi_size_nokey, 3, 0, PMIX_ERR_PARTIAL_SUCCESS, abi_size, 2,
           "query(ABI, size, unknown)");
    expect(abi_size, 2, 1, PMIX_SUCCESS, abi_size, 2, "query(ABI, size) with PMIX_NSPACE");
    expect(abi_nokey, 2, 1, PMIX_ERR_PARTIAL_SUCCESS, abi_only, 1,
           "query(ABI, unknown) with PMIX_NSPACE");
    expect(nokey, 1, 0, PMIX_ERR_NOT_FOUND, NULL, 0, "query(unknown)");

    for (int qualified = 0; qualified < 2; qualified++) {
        struct nb_result r = { .lock = PTHREAD_MUTEX_INITIALIZER };
        pmix_query_t *q = queries(size_nokey, 2, qualified);
        int done = 0;

        IT_RC(PMIx_Query_info_nb(q, 2, nb_cb, &r), PMIX_SUCCESS, "PMIx_Query_info_nb");
        for (double t0 = it_now(); !done && it_now() - t0 < 20;) {
            pthread_mutex_lock(&r.lock);
            done = r.done;
            pthread_mutex_unlock(&r.lock);
            if (!done)
                it_sleep_ms(2);
        }
        IT_CHECK(done, "PMIx_Query_info_nb never called back");
        IT_RC(r.status, PMIX_ERR_PARTIAL_SUCCESS, "PMIx_Query_info_nb(size, unknown)");
        IT_CHECK(r.ninfo == 1 && r.has_size, "PMIx_Query_info_nb: %zu results, job size %s",
                 r.ninfo, r.has_size ? "there" : "missing");
        PMIX_QUERY_FREE(q, 2);
    }
}

/* The process-set answers: none defined. */
static void check_no_psets(const pmix_info_t *res, size_t nres, const char *what)
{
    const pmix_info_t *num = find(res, nres, PMIX_QUERY_NUM_PSETS);
    const pmix_info_t *names = find(res, nres, PMIX_QUERY_PSET_NAMES);

    IT_CHECK(num && num->value.type == PMIX_SIZE && num->value.data.size == 0,
             "%s: PMIX_QUERY_NUM_PSETS %s (type %d)", what, num ? "not 0" : "missing",
             num ? num->value.type : -1);
    IT_CHECK(names && names->value.type == PMIX_STRING && names->value.data.string &&
                 names->value.data.string[0] == '\0',
             "%s: PMIX_QUERY_PSET_NAMES %s (type %d)", what, names ? "not \"\"" : "missing",
             names ? names->value.type : -1);
}

struct pset_nb {
    pthread_mutex_t lock;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
    int done;
};

static void pset_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct pset_nb *r = cbdata;

    pthread_mutex_lock(&r->lock);
    r->status = status;
    r->ninfo = ninfo;
    if (ninfo) {
        PMIX_INFO_CREATE(r->info, ninfo);
        for (size_t i = 0; i < ninfo; i++)
            PMIX_INFO_XFER(&r->info[i], &info[i]);
    }
    r->done = 1;
    pthread_mutex_unlock(&r->lock);
    if (release_fn)
        release_fn(release_cbdata);
}

static void psets(void)
{
    static const char *const both[] = { PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES };
    static const char *const with_nokey[] = { PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES,
                                              NOKEY };
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    bool refresh = true;

    it_no_psets("query(psets) in one query");
    for (int qualified = 0; qualified < 2; qualified++) {
        pmix_query_t *qs = queries(both, 2, qualified);
        IT_RC(PMIx_Query_info(qs, 2, &res, &nres), PMIX_SUCCESS, "query(psets)");
        IT_CHECK(nres == 2, "query(psets): %zu results", nres);
        check_no_psets(res, nres, qualified ? "query(psets) with PMIX_NSPACE" : "query(psets)");
        PMIX_INFO_FREE(res, nres);
        PMIX_QUERY_FREE(qs, 2);
    }
    /* as OpenPMIx's hello example: one query of both keys, refresh, _nb */
    struct pset_nb r = { .lock = PTHREAD_MUTEX_INITIALIZER };
    int done = 0;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_NUM_PSETS);
    IT_RC(rc, PMIX_SUCCESS, "PMIX_ARGV_APPEND");
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_PSET_NAMES);
    IT_RC(rc, PMIX_SUCCESS, "PMIX_ARGV_APPEND");
    PMIX_INFO_CREATE(q.qualifiers, 1);
    q.nqual = 1;
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_QUERY_REFRESH_CACHE, &refresh, PMIX_BOOL);
    IT_RC(PMIx_Query_info_nb(&q, 1, pset_cb, &r), PMIX_SUCCESS, "PMIx_Query_info_nb(psets)");
    for (double t0 = it_now(); !done && it_now() - t0 < 20;) {
        pthread_mutex_lock(&r.lock);
        done = r.done;
        pthread_mutex_unlock(&r.lock);
        if (!done)
            it_sleep_ms(2);
    }
    IT_CHECK(done, "PMIx_Query_info_nb(psets) never called back");
    IT_RC(r.status, PMIX_SUCCESS, "PMIx_Query_info_nb(psets, refresh)");
    IT_CHECK(r.ninfo == 2, "PMIx_Query_info_nb(psets): %zu results", r.ninfo);
    check_no_psets(r.info, r.ninfo, "PMIx_Query_info_nb(psets, refresh)");
    PMIX_INFO_FREE(r.info, r.ninfo);
    PMIX_QUERY_DESTRUCT(&q);
    /* with a key nobody knows: the others kept */
    expect(with_nokey, 3, 0, PMIX_ERR_PARTIAL_SUCCESS, both, 2, "query(psets, unknown)");
}

/* Splits s at ',' into a NULL-terminated array (free with free_split); *n entries. */
static char **split(const char *s, uint32_t *n)
{
    char **v = calloc(strlen(s) + 2, sizeof(char *));
    const char *p = s;

    IT_CHECK(v != NULL, "out of memory");
    *n = 0;
    while (*s) {
        size_t len = strcspn(p, ",");
        v[(*n)++] = strndup(p, len);
        if (!p[len])
            break;
        p += len + 1;
    }
    return v;
}

static void free_split(char **v)
{
    for (size_t i = 0; v[i]; i++)
        free(v[i]);
    free(v);
}

static char *get_string(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    char *s;

    PMIX_LOAD_PROCID(&p, it_me.nspace, rank);
    IT_RC(PMIx_Get(&p, key, NULL, 0, &v), PMIX_SUCCESS, key);
    IT_CHECK(v->type == PMIX_STRING && v->data.string, "%s is not a string", key);
    s = strdup(v->data.string);
    PMIX_VALUE_RELEASE(v);
    return s;
}

static uint32_t get_u32(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    uint32_t x;

    PMIX_LOAD_PROCID(&p, it_me.nspace, rank);
    IT_RC(PMIx_Get(&p, key, NULL, 0, &v), PMIX_SUCCESS, key);
    IT_CHECK(v->type == PMIX_UINT32, "%s has type %d, not UINT32", key, v->type);
    x = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return x;
}

static uint32_t node_list(uint32_t size)
{
    char *list = get_string(PMIX_RANK_WILDCARD, PMIX_NODE_LIST);
    char *resolved = NULL;
    uint32_t nn;
    char **nodes = split(list, &nn);
    uint32_t num = get_u32(PMIX_RANK_WILDCARD, PMIX_NUM_NODES);
    int *used = calloc(nn ? nn : 1, sizeof(*used));

    IT_CHECK(nn > 0 && nn == num, "PMIX_NODE_LIST \"%s\" has %u nodes, PMIX_NUM_NODES %u",
             list, nn, num);
    IT_RC(PMIx_Resolve_nodes(it_me.nspace, &resolved), PMIX_SUCCESS, "PMIx_Resolve_nodes");
    IT_CHECK(strcmp(resolved, list) == 0, "PMIX_NODE_LIST \"%s\", node map \"%s\"", list,
             resolved);
    for (pmix_rank_t r = 0; r < size; r++) {
        char *host = get_string(r, PMIX_HOSTNAME);
        uint32_t id = get_u32(r, PMIX_NODEID);
        IT_CHECK(id < nn && strcmp(nodes[id], host) == 0,
                 "rank %u: host %s, node id %u, PMIX_NODE_LIST \"%s\"", r, host, id, list);
        used[id] = 1;
        free(host);
    }
    for (uint32_t i = 0; i < nn; i++)
        IT_CHECK(used[i], "node %s of PMIX_NODE_LIST \"%s\" holds no rank", nodes[i], list);
    /* this node's name and id (rank WILDCARD) are those of this rank */
    char *myhost = get_string(it_me.rank, PMIX_HOSTNAME);
    char *nodehost = get_string(PMIX_RANK_WILDCARD, PMIX_HOSTNAME);
    IT_CHECK(strcmp(myhost, nodehost) == 0, "PMIX_HOSTNAME: node %s, rank %s", nodehost,
             myhost);
    IT_CHECK(get_u32(PMIX_RANK_WILDCARD, PMIX_NODEID) == get_u32(it_me.rank, PMIX_NODEID),
             "PMIX_NODEID of the node and of the rank differ");
    free(myhost);
    free(nodehost);
    free(used);
    free(resolved);
    free_split(nodes);
    free(list);
    return nn;
}

int main(void)
{
    uint32_t size, nodes;

    before_init();
    size = it_init();
    check_abi("after PMIx_Init");
    partial();
    psets();
    nodes = node_list(size);
    IT_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    check_abi("after PMIx_Finalize");
    if (it_me.rank == 0)
        printf("it_query: %u ranks on %u nodes: OK\n", size, nodes);
    return 0;
}
