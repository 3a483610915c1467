/* client_query.c - PMIx_Query_info(_nb), PMIx_Resolve_peers, PMIx_Resolve_nodes.
 *
 * Each key of a query is answered by the first of: the library itself (the
 * PMIx Standard ABI levels and PMIX_QUERY_ATTRIBUTE_SUPPORT, the attributes
 * each function honours, api/attr_support.h; also before PMIx_Init and in
 * any process, client, tool or server), the job info received at
 * init (PMIX_QUERY_NAMESPACES, any job-level key such as PMIX_JOB_SIZE, for
 * queries without qualifiers; not for a tool connected to a server), the
 * server (a singleton answers the process-set keys itself: api/psets.h).
 * Keys left over go to the server as one QUERY request holding only them;
 * its answers are appended to the local ones. Some keys answered:
 * PMIX_ERR_PARTIAL_SUCCESS with those answers.
 * Resolve_* read the node map (PMIX_NODE_MAP) and process map (PMIX_PROC_MAP)
 * of the job info through their parsed compact forms (types/maps.h): a
 * node's ranks are found by its name, read into an hwloc bitmap
 * (util/ranklist.h) and returned in ascending order; Resolve_nodes writes
 * every name of the node map out.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/attr_support.h"
#include "api/psets.h"
#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "store/jobmap.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/ranklist.h"

/* More ranks than this on one node means a damaged map. */
#define SPX_RESOLVE_MAX_RANKS (1u << 24)

/* The PMIx Standard ABI levels ("MAJOR.MINOR" lists) this library implements:
 * none, as OpenPMIx 4.2, whose libpmix.so.2 ABI it follows, reports. */
#define SPX_STD_ABI_STABLE      "0.0"
#define SPX_STD_ABI_PROVISIONAL "0.0"

struct query_req {
    pmix_query_t *queries; /* borrowed: valid until the callback (API contract) */
    size_t nqueries;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    spx_wait_t wait;       /* blocking form */
    pmix_info_t **results; /* blocking form: handed over */
    size_t *nresults;
    pmix_info_t *local;    /* answers found here (calloc'd, nlocal used); owned */
    size_t nlocal;
    bool *forward;         /* per key, in query order: asked of the server; owned */
};

struct query_answer {
    pmix_info_t *info;
    size_t ninfo;
};

static void answer_release(void *cbdata)
{
    struct query_answer *a = cbdata;
    if (a->info)
        PMIX_INFO_FREE(a->info, a->ninfo);
    free(a);
}

static void req_free_local(struct query_req *r)
{
    for (size_t i = 0; r->local && i < r->nlocal; i++)
        PMIX_INFO_DESTRUCT(&r->local[i]);
    free(r->local);
    free(r->forward);
    r->local = NULL;
    r->nlocal = 0;
    r->forward = NULL;
}

/* Hands (status, info) to the requester; takes ownership of info. */
static void query_finish(struct query_req *r, pmix_status_t status, pmix_info_t *info,
                         size_t ninfo)
{
    req_free_local(r);
    if (r->cbfunc) {
        struct query_answer *a = calloc(1, sizeof(*a));
        if (!a) {
            if (info)
                PMIX_INFO_FREE(info, ninfo);
            r->cbfunc(PMIX_ERR_NOMEM, NULL, 0, r->cbdata, NULL, NULL);
        } else {
            a->info = info;
            a->ninfo = ninfo;
            r->cbfunc(status, info, ninfo, r->cbdata, answer_release, a);
        }
        free(r);
        return;
    }
    if (r->results) {
        *r->results = info;
        *r->nresults = ninfo;
    } else if (info) {
        PMIX_INFO_FREE(info, ninfo);
    }
    spx_wait_signal(&r->wait, status);
}

/* Finishes r with its local answers followed by the server's (moved out of
 * srv, whose array shell is freed). Status: SUCCESS when the server answered
 * all it was asked (or was asked nothing), the server's error (NOT_FOUND when
 * it answered with nothing) when there is no answer at all, else
 * PMIX_ERR_PARTIAL_SUCCESS. */
static void query_finish_merged(struct query_req *r, pmix_status_t srv_status, pmix_info_t *srv,
                                size_t nsrv)
{
    bool srv_ok = srv_status == PMIX_SUCCESS || srv_status == PMIX_ERR_PARTIAL_SUCCESS ||
                  srv_status == PMIX_QUERY_PARTIAL_SUCCESS;
    if (!srv_ok && srv) {
        spx_info_array_free(srv, nsrv);
        srv = NULL;
    }
    if (!srv_ok)
        nsrv = 0;
    size_t total = r->nlocal + nsrv;
    pmix_status_t status;
    if (total == 0)
        status = srv_ok ? PMIX_ERR_NOT_FOUND : srv_status;
    else if (srv_status == PMIX_SUCCESS)
        status = PMIX_SUCCESS;
    else
        status = PMIX_ERR_PARTIAL_SUCCESS;
    pmix_info_t *all = NULL;
    if (total > 0)
        PMIX_INFO_CREATE(all, total);
    if (total > 0 && !all) {
        spx_info_array_free(srv, nsrv);
        query_finish(r, PMIX_ERR_NOMEM, NULL, 0);
        return;
    }
    for (size_t i = 0; i < r->nlocal; i++) { /* shallow moves */
        PMIX_LOAD_KEY(all[i].key, r->local[i].key);
        all[i].value = r->local[i].value;
    }
    for (size_t i = 0; i < nsrv; i++) {
        PMIX_LOAD_KEY(all[r->nlocal + i].key, srv[i].key);
        all[r->nlocal + i].value = srv[i].value;
    }
    free(srv);
    free(r->local); /* contents moved */
    r->local = NULL;
    r->nlocal = 0;
    query_finish(r, status, all, total);
}

/* True if key is one the library answers by itself (usable before
 * PMIx_Init). */
static bool library_key(const char *key)
{
    return strcmp(key, PMIX_QUERY_STABLE_ABI_VERSION) == 0 ||
           strcmp(key, PMIX_QUERY_PROVISIONAL_ABI_VERSION) == 0 ||
           strcmp(key, PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0;
}

/* Answers a library key of query q into out (zeroed by the caller): 1, or
 * -1 when the answer could not be built (out left empty); 0 if key is not
 * the library's. */
static int answer_from_library(const pmix_query_t *q, const char *key, pmix_info_t *out)
{
    const char *v;
    if (strcmp(key, PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0) {
        /* the qualifiers were checked by query_check */
        if (spx_attr_support_answer(q->qualifiers, q->nqual, out) == PMIX_SUCCESS)
            return 1;
        PMIX_INFO_DESTRUCT(out);
        memset(out, 0, sizeof(*out));
        return -1;
    }
    if (strcmp(key, PMIX_QUERY_STABLE_ABI_VERSION) == 0)
        v = SPX_STD_ABI_STABLE;
    else if (strcmp(key, PMIX_QUERY_PROVISIONAL_ABI_VERSION) == 0)
        v = SPX_STD_ABI_PROVISIONAL;
    else
        return 0;
    PMIX_INFO_LOAD(out, key, v, PMIX_STRING);
    return out->value.data.string ? 1 : -1;
}

/* Answers one key from the job info into out; true if it could. */
static bool answer_locally(const char *key, pmix_info_t *out)
{
    if (strcmp(key, PMIX_QUERY_NAMESPACES) == 0) {
        PMIX_INFO_LOAD(out, key, spx_client.myproc.nspace, PMIX_STRING);
        return true;
    }
    const pmix_value_t *v = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                           PMIX_RANK_WILDCARD, key, NULL);
    if (!v)
        return false;
    PMIX_LOAD_KEY(out->key, key);
    if (PMIx_Value_xfer(&out->value, v) == PMIX_SUCCESS)
        return true;
    memset(out, 0, sizeof(*out)); /* out of memory: leave the slot empty */
    return false;
}

static void query_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct query_req *r = arg;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        spx_codec_pull_info_array(payload, &info, &ninfo);
        if (spx_buf_failed(payload) || spx_buf_finish(payload) != 0) {
            status = PMIX_ERR_UNPACK_FAILURE;
            spx_client_conn_fail("malformed QUERY reply");
        }
    }
    query_finish_merged(r, status, info, ninfo);
}

static size_t count_keys(const pmix_query_t *q)
{
    size_t n = 0;
    while (q->keys && q->keys[n])
        n++;
    return n;
}

/* Sends the keys marked in r->forward (and their queries' qualifiers). */
static pmix_status_t query_forward(struct query_req *r)
{
    spx_buf_t b;
    spx_buf_init(&b);
    uint32_t nq = 0;
    for (size_t q = 0, idx = 0; q < r->nqueries; q++) {
        size_t nk = count_keys(&r->queries[q]);
        for (size_t k = 0; k < nk; k++)
            if (r->forward[idx + k]) {
                nq++;
                break;
            }
        idx += nk;
    }
    spx_buf_push_u32(&b, nq);
    for (size_t q = 0, idx = 0; q < r->nqueries; q++) {
        size_t nk = count_keys(&r->queries[q]);
        uint32_t nf = 0;
        for (size_t k = 0; k < nk; k++)
            nf += r->forward[idx + k];
        if (nf > 0) {
            spx_buf_push_u32(&b, nf);
            for (size_t k = 0; k < nk; k++)
                if (r->forward[idx + k])
                    spx_buf_push_str(&b, r->queries[q].keys[k]);
            spx_codec_push_info_array(&b, r->queries[q].qualifiers, r->queries[q].nqual);
        }
        idx += nk;
    }
    pmix_status_t rc = spx_buf_failed(&b) ? PMIX_ERR_NOMEM
                                          : spx_client_request(SPX_MSG_QUERY, &b, query_reply, r);
    spx_buf_fini(&b);
    return rc;
}

static void query_on_thread(void *arg)
{
    struct query_req *r = arg;
    size_t nkeys = 0, nforward = 0;
    for (size_t q = 0; q < r->nqueries; q++)
        nkeys += count_keys(&r->queries[q]);
    r->local = calloc(nkeys ? nkeys : 1, sizeof(*r->local));
    r->forward = calloc(nkeys ? nkeys : 1, sizeof(*r->forward));
    if (!r->local || !r->forward) {
        query_finish(r, PMIX_ERR_NOMEM, NULL, 0);
        return;
    }
    pthread_mutex_lock(&spx_client.lock);
    for (size_t q = 0, idx = 0; q < r->nqueries; q++) {
        /* qualified queries go to the server, except for the library's keys;
         * a connected tool has no job of its own: its server answers */
        bool plain = r->queries[q].nqual == 0 && spx_client.jobinfo &&
                     !(spx_client.tool && !spx_client.singleton);
        for (size_t k = 0; r->queries[q].keys[k]; k++, idx++) {
            const char *key = r->queries[q].keys[k];
            int lib = answer_from_library(&r->queries[q], key, &r->local[r->nlocal]);
            if (lib > 0 || (lib == 0 && plain && answer_locally(key, &r->local[r->nlocal])) ||
                (lib == 0 && spx_client.singleton &&
                 spx_psets_query_answer(key, &r->local[r->nlocal])))
                r->nlocal++;
            else if (lib == 0) {
                r->forward[idx] = true;
                nforward++;
            }
        }
    }
    pthread_mutex_unlock(&spx_client.lock);
    if (nforward == 0) {
        query_finish_merged(r, PMIX_SUCCESS, NULL, 0);
        return;
    }
    if (spx_client.singleton) {
        query_finish_merged(r, PMIX_ERR_NOT_FOUND, NULL, 0);
        return;
    }
    pmix_status_t rc = query_forward(r);
    if (rc != PMIX_SUCCESS)
        query_finish_merged(r, rc, NULL, 0);
}

/* The qualifiers a query's answerers (library, job info, server, host)
 * read; a required one outside this list fails the query (PMIX_INFO_REQD).
 * PMIX_NSPACE names the namespace asked about, PMIX_HOSTNAME and
 * PMIX_NODEID the node whose PMIX_SERVER_URI is asked; the others select
 * the answer to PMIX_QUERY_ATTRIBUTE_SUPPORT. */
static const char *const query_qualifiers[] = {
    PMIX_NSPACE,           PMIX_HOSTNAME,          PMIX_NODEID,
    PMIX_CLIENT_ATTRIBUTES, PMIX_SERVER_ATTRIBUTES, PMIX_TOOL_ATTRIBUTES,
    PMIX_HOST_ATTRIBUTES,  PMIX_CLIENT_FUNCTIONS,  PMIX_SERVER_FUNCTIONS,  PMIX_TOOL_FUNCTIONS,
    PMIX_HOST_FUNCTIONS,   NULL};

/* PMIX_SUCCESS when the queries are well formed; *library_only tells whether
 * the library answers every key by itself (no init needed). A query for
 * PMIX_QUERY_ATTRIBUTE_SUPPORT naming a function the library does not have
 * fails here: PMIX_ERR_NOT_FOUND. */

static pmix_status_t query_check(pmix_query_t queries[], size_t nqueries, bool *library_only)
{
    *library_only = false;
    if (!queries || nqueries == 0)
        return PMIX_ERR_BAD_PARAM;
    for (size_t q = 0; q < nqueries; q++)
        if (!queries[q].keys || !queries[q].keys[0] ||
            (!queries[q].qualifiers && queries[q].nqual > 0))
            return PMIX_ERR_BAD_PARAM;
    *library_only = true;
    for (size_t q = 0; q < nqueries; q++)
        for (size_t k = 0; queries[q].keys[k]; k++)
            *library_only = *library_only && library_key(queries[q].keys[k]);
    for (size_t q = 0; q < nqueries; q++) {
        pmix_status_t rc = spx_directives_check("PMIx_Query_info", queries[q].qualifiers,
                                                queries[q].nqual, query_qualifiers);
        if (rc != PMIX_SUCCESS)
            return rc;
        for (size_t k = 0; queries[q].keys[k]; k++)
            if (strcmp(queries[q].keys[k], PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0 &&
                (rc = spx_attr_support_check(queries[q].qualifiers, queries[q].nqual)) !=
                    PMIX_SUCCESS)
                return rc;
    }
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries,
                                            pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    bool library_only;
    if (!spx_client_initialized())
        return PMIX_ERR_INIT; /* no progress thread to call back from */
    pmix_status_t rc = query_check(queries, nqueries, &library_only);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!cbfunc)
        return PMIX_ERR_BAD_PARAM; /* results could not be handed back */
    struct query_req *r = calloc(1, sizeof(*r));
    if (!r)
        return PMIX_ERR_NOMEM;
    r->queries = queries;
    r->nqueries = nqueries;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    if (spx_progress_shift(query_on_thread, r) != 0) {
        free(r);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return PMIX_SUCCESS;
}

/* Before PMIx_Init: answers a query made only of the library's own keys on
 * the caller's thread. */
static pmix_status_t query_before_init(pmix_query_t queries[], size_t nqueries,
                                       pmix_info_t **results, size_t *nresults)
{
    size_t n = 0;
    for (size_t q = 0; q < nqueries; q++)
        n += count_keys(&queries[q]);
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, n);
    if (!info)
        return PMIX_ERR_NOMEM;
    size_t i = 0;
    for (size_t q = 0; q < nqueries; q++)
        for (size_t k = 0; queries[q].keys[k]; k++)
            i += answer_from_library(&queries[q], queries[q].keys[k], &info[i]) > 0;
    if (i == 0) {
        PMIX_INFO_FREE(info, n);
        return PMIX_ERR_NOMEM;
    }
    *results = info; /* slots past i stay empty (zeroed) */
    *nresults = i;
    return i == n ? PMIX_SUCCESS : PMIX_ERR_PARTIAL_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries,
                                         pmix_info_t **results, size_t *nresults)
{
    bool library_only;
    bool initialized = spx_client_initialized();
    pmix_status_t rc = query_check(queries, nqueries, &library_only);
    if (!initialized && !library_only)
        return PMIX_ERR_INIT;
    if (rc != PMIX_SUCCESS)
        return rc;
    if (initialized && (rc = spx_progress_guard("PMIx_Query_info")) != PMIX_SUCCESS)
        return rc;
    if (!results || !nresults)
        return PMIX_ERR_BAD_PARAM;
    *results = NULL;
    *nresults = 0;
    if (!initialized)
        return query_before_init(queries, nqueries, results, nresults);
    struct query_req r = {.queries = queries, .nqueries = nqueries, .results = results,
                          .nresults = nresults};
    spx_wait_init(&r.wait);
    if (spx_progress_shift(query_on_thread, &r) != 0) {
        spx_wait_fini(&r.wait);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    rc = spx_wait_block(&r.wait);
    spx_wait_fini(&r.wait);
    return rc;
}

/* ---- resolve ---- */

static const char *map_string(const char *key)
{
    const pmix_value_t *v = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                           PMIX_RANK_WILDCARD, key, NULL);
    if (!v || (v->type != PMIX_STRING && v->type != PMIX_REGEX) || !v->data.string)
        return NULL;
    return v->data.string;
}

/* Every name of the node map joined by ',' (malloc'd), or NULL. */
static char *map_node_names(void)
{
    char **names = NULL;
    const char *nodes = map_string(PMIX_NODE_MAP);
    if (!nodes || spx_regex_parse(nodes, &names) != PMIX_SUCCESS)
        return NULL;
    size_t len = 1, off = 0;
    for (size_t i = 0; names[i]; i++)
        len += strlen(names[i]) + 1;
    char *out = malloc(len);
    if (out) {
        out[0] = '\0';
        for (size_t i = 0; names[i]; i++)
            off += (size_t)snprintf(out + off, len - off, "%s%s", i ? "," : "", names[i]);
    }
    spx_regex_free(names);
    return out;
}

struct resolve_req {
    spx_wait_t wait;
    const char *nodename; /* NULL: this node */
    bool want_nodes;
    pmix_proc_t *procs;   /* result, malloc'd */
    size_t nprocs;
    char *nodelist;       /* result, malloc'd */
    pmix_status_t status;
};

/* Finds the ranks string of nodename (NULL: local peers). Returns malloc'd or NULL. */
static char *ranks_of_node(const char *nodename)
{
    const char *nodes = map_string(PMIX_NODE_MAP);
    const char *ppn = map_string(PMIX_PROC_MAP);
    if (!nodename || !nodes || !ppn) {
        if (nodename) {
            const pmix_value_t *h = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                                   PMIX_RANK_WILDCARD, PMIX_HOSTNAME, NULL);
            if (h && h->type == PMIX_STRING && h->data.string &&
                strcmp(h->data.string, nodename) != 0)
                return NULL;
        }
        const char *peers = map_string(PMIX_LOCAL_PEERS);
        return peers ? strdup(peers) : NULL;
    }
    spx_jobmap_t m;
    uint32_t node;
    char *out = NULL;
    if (spx_jobmap_parse(&m, nodes, ppn, false) == 0 && spx_nodemap_find(&m.hosts, nodename, &node))
        out = spx_procmap_node_list(&m.procs, node);
    spx_jobmap_fini(&m);
    return out;
}

static void resolve_locked(struct resolve_req *r);

static void resolve_on_thread(void *arg)
{
    struct resolve_req *r = arg;
    pthread_mutex_lock(&spx_client.lock);
    if (spx_client.jobinfo)
        resolve_locked(r);
    else
        r->status = PMIX_ERR_INIT;
    pthread_mutex_unlock(&spx_client.lock);
    spx_wait_signal(&r->wait, r->status);
}

/* Computes the answer into r (r->status); called with spx_client.lock held. */
static void resolve_locked(struct resolve_req *r)
{
    pmix_status_t rc = PMIX_SUCCESS;
    if (r->want_nodes) {
        r->nodelist = map_node_names();
        if (!r->nodelist) {
            const pmix_value_t *h = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                                   PMIX_RANK_WILDCARD, PMIX_HOSTNAME, NULL);
            r->nodelist = (h && h->type == PMIX_STRING && h->data.string) ? strdup(h->data.string)
                                                                          : NULL;
        }
        rc = r->nodelist ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
        r->status = rc;
        return;
    }
    char *ranks = ranks_of_node(r->nodename);
    hwloc_bitmap_t set = spx_ranklist_parse(ranks, SPX_RESOLVE_MAX_RANKS);
    free(ranks);
    int n = set ? hwloc_bitmap_weight(set) : 0;
    if (n <= 0) {
        hwloc_bitmap_free(set);
        r->status = PMIX_ERR_NOT_FOUND;
        return;
    }
    r->procs = calloc((size_t)n, sizeof(pmix_proc_t));
    size_t i = 0;
    unsigned rank;
    hwloc_bitmap_foreach_begin(rank, set)
    {
        if (r->procs) {
            PMIX_LOAD_PROCID(&r->procs[i], spx_client.myproc.nspace, (pmix_rank_t)rank);
            i++; /* not inside the macro: it names its first argument twice */
        }
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(set);
    r->nprocs = r->procs ? (size_t)n : 0;
    r->status = r->procs ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

static pmix_status_t run_resolve(struct resolve_req *r)
{
    spx_wait_init(&r->wait);
    if (spx_progress_shift(resolve_on_thread, r) != 0) {
        spx_wait_fini(&r->wait);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    pmix_status_t rc = spx_wait_block(&r->wait);
    spx_wait_fini(&r->wait);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Resolve_peers(const char *nodename, const pmix_nspace_t nspace,
                                            pmix_proc_t **procs, size_t *nprocs)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    pmix_status_t rc = spx_progress_guard("PMIx_Resolve_peers");
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!procs || !nprocs)
        return PMIX_ERR_BAD_PARAM;
    *procs = NULL;
    *nprocs = 0;
    if (nspace && nspace[0] && !PMIX_CHECK_NSPACE(nspace, spx_client.myproc.nspace))
        return PMIX_ERR_NOT_FOUND; /* only our own job's map is known here */
    struct resolve_req r = {.nodename = nodename};
    rc = run_resolve(&r);
    if (rc == PMIX_SUCCESS) {
        *procs = r.procs;
        *nprocs = r.nprocs;
    }
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace, char **nodelist)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    pmix_status_t rc = spx_progress_guard("PMIx_Resolve_nodes");
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!nodelist)
        return PMIX_ERR_BAD_PARAM;
    *nodelist = NULL;
    if (nspace && nspace[0] && !PMIX_CHECK_NSPACE(nspace, spx_client.myproc.nspace))
        return PMIX_ERR_NOT_FOUND;
    struct resolve_req r = {.want_nodes = true};
    rc = run_resolve(&r);
    if (rc == PMIX_SUCCESS)
        *nodelist = r.nodelist;
    return rc;
}
