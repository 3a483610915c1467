/* client_query.c - PMIx_Query_info(_nb), PMIx_Resolve_peers, PMIx_Resolve_nodes.
 *
 * Queries whose keys the client can answer from the job info it received at
 * init (PMIX_QUERY_NAMESPACES, any job-level key such as PMIX_JOB_SIZE) are
 * answered on the progress thread without traffic; anything else goes to the
 * server as one QUERY request. Resolve_* read the node map (PMIX_NODE_MAP) and
 * process map (PMIX_PROC_MAP) of the job info: "spmix:" lists, nodes separated
 * by ',' and the ranks of successive nodes by ';'.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/compiler.h"

struct query_req {
    pmix_query_t *queries; /* borrowed: valid until the callback (API contract) */
    size_t nqueries;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    spx_wait_t wait;       /* blocking form */
    pmix_info_t **results; /* blocking form: handed over */
    size_t *nresults;
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

/* Hands (status, info) to the requester; takes ownership of info. */
static void query_finish(struct query_req *r, pmix_status_t status, pmix_info_t *info,
                         size_t ninfo)
{
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

/* Answers one key locally into out; true if it could. */
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
    return PMIx_Value_xfer(&out->value, v) == PMIX_SUCCESS;
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
            if (spx_client.conn)
                spx_conn_close(spx_client.conn, "malformed QUERY reply", 1);
        }
    }
    query_finish(r, status, info, ninfo);
}

static void query_on_thread(void *arg)
{
    struct query_req *r = arg;
    size_t nkeys = 0;
    for (size_t q = 0; q < r->nqueries; q++)
        for (size_t k = 0; r->queries[q].keys && r->queries[q].keys[k]; k++)
            nkeys++;
    pmix_info_t *info = NULL;
    if (nkeys > 0)
        PMIX_INFO_CREATE(info, nkeys);
    bool all_local = info != NULL;
    size_t n = 0;
    pthread_mutex_lock(&spx_client.lock);
    for (size_t q = 0; all_local && spx_client.jobinfo && q < r->nqueries; q++) {
        if (r->queries[q].nqual > 0)
            all_local = false; /* qualified queries go to the server */
        for (size_t k = 0; all_local && r->queries[q].keys && r->queries[q].keys[k]; k++)
            all_local = answer_locally(r->queries[q].keys[k], &info[n++]);
    }
    pthread_mutex_unlock(&spx_client.lock);
    if (all_local) {
        query_finish(r, PMIX_SUCCESS, info, nkeys);
        return;
    }
    if (info)
        PMIX_INFO_FREE(info, nkeys);
    if (spx_client.singleton) {
        query_finish(r, PMIX_ERR_NOT_FOUND, NULL, 0);
        return;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, (uint32_t)r->nqueries);
    for (size_t q = 0; q < r->nqueries; q++) {
        uint32_t nk = 0;
        while (r->queries[q].keys && r->queries[q].keys[nk])
            nk++;
        spx_buf_push_u32(&b, nk);
        for (uint32_t k = 0; k < nk; k++)
            spx_buf_push_str(&b, r->queries[q].keys[k]);
        spx_codec_push_info_array(&b, r->queries[q].qualifiers, r->queries[q].nqual);
    }
    pmix_status_t rc = spx_buf_failed(&b) ? PMIX_ERR_NOMEM
                                          : spx_client_request(SPX_MSG_QUERY, &b, query_reply, r);
    spx_buf_fini(&b);
    if (rc != PMIX_SUCCESS)
        query_finish(r, rc, NULL, 0);
}

static pmix_status_t query_check(pmix_query_t queries[], size_t nqueries)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!queries || nqueries == 0)
        return PMIX_ERR_BAD_PARAM;
    for (size_t q = 0; q < nqueries; q++)
        if (!queries[q].keys || !queries[q].keys[0] ||
            (!queries[q].qualifiers && queries[q].nqual > 0))
            return PMIX_ERR_BAD_PARAM;
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries,
                                            pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    pmix_status_t rc = query_check(queries, nqueries);
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

SPX_EXPORT pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries,
                                         pmix_info_t **results, size_t *nresults)
{
    pmix_status_t rc = query_check(queries, nqueries);
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((rc = spx_progress_guard("PMIx_Query_info")) != PMIX_SUCCESS)
        return rc;
    if (!results || !nresults)
        return PMIX_ERR_BAD_PARAM;
    *results = NULL;
    *nresults = 0;
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

/* Splits s at sep into a NULL-terminated malloc'd array of malloc'd strings. */
static char **split(const char *s, char sep)
{
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == sep;
    char **out = calloc(n + 1, sizeof(char *));
    if (!out)
        return NULL;
    size_t i = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == sep || *p == '\0') {
            out[i] = strndup(start, (size_t)(p - start));
            if (!out[i]) {
                for (size_t k = 0; k < i; k++)
                    free(out[k]);
                free(out);
                return NULL;
            }
            i++;
            start = p + 1;
            if (*p == '\0')
                break;
        }
    }
    return out;
}

static void split_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static const char *map_string(const char *key)
{
    const pmix_value_t *v = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                           PMIX_RANK_WILDCARD, key, NULL);
    if (!v || (v->type != PMIX_STRING && v->type != PMIX_REGEX) || !v->data.string)
        return NULL;
    const char *s = v->data.string;
    return strncmp(s, "spmix:", 6) == 0 ? s + 6 : s;
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
    char **nv = split(nodes, ',');
    char **pv = split(ppn, ';');
    char *out = NULL;
    for (size_t i = 0; nv && pv && nv[i] && pv[i]; i++)
        if (strcmp(nv[i], nodename) == 0) {
            out = strdup(pv[i]);
            break;
        }
    split_free(nv);
    split_free(pv);
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
        const char *nodes = map_string(PMIX_NODE_MAP);
        if (!nodes) {
            const pmix_value_t *h = spx_store_peek(spx_client.jobinfo, spx_client.myproc.nspace,
                                                   PMIX_RANK_WILDCARD, PMIX_HOSTNAME, NULL);
            nodes = (h && h->type == PMIX_STRING) ? h->data.string : NULL;
        }
        r->nodelist = nodes ? strdup(nodes) : NULL;
        rc = r->nodelist ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
        r->status = rc;
        return;
    }
    char *ranks = ranks_of_node(r->nodename);
    char **rv = (ranks && ranks[0]) ? split(ranks, ',') : NULL;
    free(ranks);
    size_t n = 0;
    while (rv && rv[n])
        n++;
    if (n == 0) {
        split_free(rv);
        r->status = PMIX_ERR_NOT_FOUND;
        return;
    }
    r->procs = calloc(n, sizeof(pmix_proc_t));
    for (size_t i = 0; r->procs && i < n; i++)
        PMIX_LOAD_PROCID(&r->procs[i], spx_client.myproc.nspace,
                         (pmix_rank_t)strtoul(rv[i], NULL, 10));
    r->nprocs = r->procs ? n : 0;
    split_free(rv);
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
