/* client_kv.c - PMIx_Put, PMIx_Commit, PMIx_Store_internal, PMIx_Get(_nb).
 *
 * Put writes into this process's own store on the progress thread; Commit
 * sends everything put (or deleted) since the previous commit to the server
 * as one record. Get looks locally first - own data, job info delivered at
 * init, internal data, values cached from earlier gets - and otherwise asks
 * the server, caching the answer until the next fence. A Get of the job
 * (rank WILDCARD) qualified with PMIX_NODE_INFO, PMIX_APP_INFO or
 * PMIX_SESSION_INFO reads that node's, app's or the session's part of the
 * job info (store/jobparts.h): the HELLO brings the parts of every node and
 * app and the session's, so a miss there is final too. Keys the
 * job info implies (PMIX_LOCAL_PROCS) are computed from it at each Get of
 * the own job (store/jobderived.h), a miss final as well. A Get
 * qualified with PMIX_GROUP_CONTEXT_ID reads a member's group info
 * (client_group_table.c), and a group id as namespace names that group's member.
 * A NULL proc and the own namespace with PMIX_RANK_INVALID name the caller,
 * whose PMIX_RANK is answered here (no store holds it).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "proto/records.h"
#include "store/jobderived.h"
#include "store/jobmap.h"
#include "store/jobparts.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/log.h"

static bool key_ok(const char *key)
{
    return key && key[0] && strnlen(key, PMIX_MAX_KEYLEN + 1) <= PMIX_MAX_KEYLEN;
}

void spx_client_cache_reset(void)
{
    pthread_mutex_lock(&spx_client.lock);
    if (spx_client.cache) {
        spx_store_destroy(spx_client.cache);
        spx_client.cache = spx_store_create();
    }
    spx_client_group_drop_pending();
    pthread_mutex_unlock(&spx_client.lock);
}

/* ---- put / store internal: on the caller's thread, under the client lock ---- */

/* store_sel: which store (own puts or internal data). */
static pmix_status_t put_locked(spx_store_t **store_sel, const pmix_proc_t *proc, const char *key,
                                const pmix_value_t *val, pmix_scope_t scope)
{
    pthread_mutex_lock(&spx_client.lock);
    pmix_status_t rc;
    if (!*store_sel)
        rc = PMIX_ERR_INIT;
    else if (spx_scope_is_delete(scope))
        rc = spx_store_delete(*store_sel, proc->nspace, proc->rank, key, scope);
    else
        rc = spx_store_put(*store_sel, proc->nspace, proc->rank, key, val, scope);
    pthread_mutex_unlock(&spx_client.lock);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[], pmix_value_t *val)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!key_ok(key) || scope == PMIX_SCOPE_UNDEF || scope > PMIX_DEL_INTERNAL)
        return PMIX_ERR_BAD_PARAM;
    if (!spx_scope_is_delete(scope) && !val)
        return PMIX_ERR_BAD_PARAM;
    return put_locked(&spx_client.own, &spx_client.myproc, key, val, scope);
}

SPX_EXPORT pmix_status_t PMIx_Store_internal(const pmix_proc_t *proc, const char key[],
                                             pmix_value_t *val)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!proc || !key_ok(key) || !val)
        return PMIX_ERR_BAD_PARAM;
    return put_locked(&spx_client.internal, proc, key, val, PMIX_INTERNAL);
}

/* ---- commit: encoded under the lock, sent from the caller's thread (no reply) ---- */

SPX_EXPORT pmix_status_t PMIx_Commit(void)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (spx_client.singleton)
        return PMIX_SUCCESS;
    spx_buf_t b;
    spx_buf_init(&b);
    pthread_mutex_lock(&spx_client.lock);
    uint64_t max_seq = spx_client.committed_seq;
    size_t n = 0;
    if (spx_client.own)
        n = spx_records_push_proc(&b, spx_client.own, spx_client.myproc.nspace,
                                  spx_client.myproc.rank, spx_client.committed_seq,
                                  SPX_SCOPES_COMMIT, false, &max_seq);
    pthread_mutex_unlock(&spx_client.lock);
    pmix_status_t rc = PMIX_SUCCESS;
    if (spx_buf_failed(&b))
        rc = PMIX_ERR_NOMEM;
    else if (n > 0) {
        if (spx_client.shmb) /* counted before it can reach the server */
            spx_shmb_commit_sent(spx_client.shmb, spx_client.shmb_slot);
        rc = spx_client_request(SPX_MSG_COMMIT, &b, NULL, NULL);
    }
    spx_buf_fini(&b);
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&spx_client.lock);
        if (max_seq > spx_client.committed_seq)
            spx_client.committed_seq = max_seq;
        pthread_mutex_unlock(&spx_client.lock);
    }
    return rc;
}

/* ---- get ---- */

struct get_req {
    pmix_proc_t proc;
    char key[PMIX_MAX_KEYLEN + 1];
    long slot;          /* the target's slot when it is a local peer, else -1 */
    uint64_t epoch;     /* cache_epoch[slot] when the server was asked */
    pmix_info_t *info; /* owned copy */
    size_t ninfo;
    pmix_value_cbfunc_t cbfunc;
    void *cbdata;
    bool final_miss;    /* get_local: a miss nobody else can answer */
};

static void get_req_free(struct get_req *r)
{
    if (r->info)
        PMIX_INFO_FREE(r->info, r->ninfo);
    free(r);
}

/* Delivers the result and frees the request. val: borrowed for the callback. */
static void get_finish(struct get_req *r, pmix_status_t status, pmix_value_t *val)
{
    r->cbfunc(status, status == PMIX_SUCCESS ? val : NULL, r->cbdata);
    get_req_free(r);
}

/* Called with spx_client.lock held. Values cached from a local peer are
 * current while the server has applied no further commit of that peer (the
 * count is in the shared-memory segment): a newer commit (an update or a
 * deletion) drops them, so the peer's change is seen at once. Returns the
 * peer's slot, or -1 for anything else. */
static long cache_check_peer(const char *nspace, pmix_rank_t rank)
{
    if (!spx_client.cache_epoch || rank == PMIX_RANK_WILDCARD ||
        rank == spx_client.myproc.rank || !PMIX_CHECK_NSPACE(nspace, spx_client.myproc.nspace))
        return -1;
    long slot = spx_client_local_slot(rank);
    if (slot < 0)
        return -1;
    uint64_t now = spx_shmb_commits_applied(spx_client.shmb, (uint32_t)slot);
    if (now != spx_client.cache_epoch[slot]) {
        spx_store_remove_proc(spx_client.cache, nspace, rank);
        spx_client.cache_epoch[slot] = now;
    }
    return slot;
}

/* Called with spx_client.lock held; the result is borrowed until it is released. */
static const pmix_value_t *lookup_local(const struct get_req *r)
{
    const char *ns = r->proc.nspace;
    pmix_rank_t rank = r->proc.rank;
    const pmix_value_t *v = NULL;
    bool mine = PMIX_CHECK_NSPACE(ns, spx_client.myproc.nspace);
    if (mine && rank == spx_client.myproc.rank)
        v = spx_store_peek(spx_client.own, ns, rank, r->key, NULL);
    if (!v)
        v = spx_store_peek(spx_client.internal, ns, rank, r->key, NULL);
    if (!v && mine)
        v = spx_store_peek(spx_client.jobinfo, ns, rank, r->key, NULL);
    bool left_out = !v && mine && rank != PMIX_RANK_WILDCARD && spx_key_is_reserved(r->key) &&
                    spx_store_count(spx_client.jobinfo, ns, rank) == 0;
    if (left_out && spx_store_peek(spx_client.jobinfo, ns, spx_client.myproc.rank, r->key, NULL)) {
        /* a process key (this process's block has it) of a process whose block
         * PMIx_Init left out and the maps do not give (store/jobderived.h):
         * its server may have it */
        return spx_store_peek(spx_client.cache, ns, rank, r->key, NULL);
    }
    if (!v && mine && rank != PMIX_RANK_WILDCARD && spx_key_is_reserved(r->key))
        v = spx_store_peek(spx_client.jobinfo, ns, PMIX_RANK_WILDCARD, r->key, NULL);
    if (!v) {
        cache_check_peer(ns, rank);
        /* a group construct's data of that process goes in at its first look-up */
        spx_client_group_apply_pending(ns, rank);
        v = spx_store_peek(spx_client.cache, ns, rank, r->key, NULL);
    }
    return v;
}

/* The rest of the target's record that came with a GET answer (msg.h):
 * cached like the answer itself. 0, or -1 when malformed. */
static int cache_record(const struct get_req *r, spx_buf_t *payload)
{
    uint32_t n = spx_buf_pull_u32(payload);
    if (spx_buf_failed(payload) || n > 4096)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        char key[PMIX_MAX_KEYLEN + 1];
        pmix_value_t v = {.type = PMIX_UNDEF};
        spx_buf_pull_str_into(payload, key, sizeof(key));
        if (spx_buf_failed(payload) || spx_codec_pull_value(payload, &v) != 0)
            return -1;
        pthread_mutex_lock(&spx_client.lock);
        if (spx_client.cache && (r->slot < 0 || !spx_client.cache_epoch ||
                                 spx_client.cache_epoch[r->slot] == r->epoch))
            spx_store_put(spx_client.cache, r->proc.nspace, r->proc.rank, key, &v, PMIX_GLOBAL);
        pthread_mutex_unlock(&spx_client.lock);
        PMIx_Value_destruct(&v);
    }
    return 0;
}

static void get_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct get_req *r = arg;
    if (status != PMIX_SUCCESS) {
        get_finish(r, status, NULL);
        return;
    }
    status = spx_buf_pull_i32(payload);
    pmix_value_t val = {.type = PMIX_UNDEF};
    if (!spx_buf_failed(payload) && status == PMIX_SUCCESS &&
        spx_codec_pull_value(payload, &val) != 0)
        status = PMIX_ERR_UNPACK_FAILURE;
    if (status == PMIX_SUCCESS && !spx_buf_failed(payload) && spx_buf_remaining(payload) > 0 &&
        cache_record(r, payload) != 0)
        status = PMIX_ERR_UNPACK_FAILURE;
    if (spx_buf_failed(payload) || spx_buf_finish(payload) != 0) {
        spx_client_conn_fail("malformed GET reply");
        status = PMIX_ERR_UNPACK_FAILURE;
    }
    /* cached only if no newer commit of that peer was seen meanwhile, and
     * not a node's or app's value (the cache holds the job level's) */
    bool part = r->proc.rank == PMIX_RANK_WILDCARD && spx_jobparts_qualified(r->info, r->ninfo);
    pthread_mutex_lock(&spx_client.lock);
    bool cache = status == PMIX_SUCCESS && spx_client.cache && !part &&
                 (r->slot < 0 || !spx_client.cache_epoch ||
                  spx_client.cache_epoch[r->slot] == r->epoch);
    if (cache)
        spx_store_put(spx_client.cache, r->proc.nspace, r->proc.rank, r->key, &val, PMIX_GLOBAL);
    pthread_mutex_unlock(&spx_client.lock);
    get_finish(r, status, &val);
    PMIx_Value_destruct(&val);
}

/* Local answer, on any thread; info[0..ninfo): the Get's qualifiers. PMIX_SUCCESS
 * with *copy filled (caller destructs), PMIX_ERR_NOT_FOUND when the server must be
 * asked (unless miss_is_final), or a final error. */
static pmix_status_t get_local(struct get_req *r, const pmix_info_t *info, size_t ninfo,
                               pmix_value_t *copy)
{
    pthread_mutex_lock(&spx_client.lock);
    pmix_status_t rc = PMIX_ERR_INIT;
    const pmix_value_t *v = NULL;
    uint64_t cid;
    if (spx_client.own && spx_key_eq(r->key, PMIX_RANK) &&
        PMIX_CHECK_PROCID(&r->proc, &spx_client.myproc)) {
        copy->type = PMIX_PROC_RANK; /* the caller's rank, which no store holds */
        copy->data.rank = spx_client.myproc.rank;
        rc = PMIX_SUCCESS;
    } else if (spx_client.own && spx_client_group_qualifier(info, ninfo, &cid)) {
        /* a group's info by context id: what the construct brought is all */
        v = spx_client_group_lookup(cid, &r->proc, r->key);
        rc = v ? PMIx_Value_xfer(copy, v) : PMIX_ERR_NOT_FOUND;
        r->final_miss = true;
    } else if (spx_client.own && PMIX_CHECK_NSPACE(r->proc.nspace, spx_client.myproc.nspace) &&
               spx_jobderived_get(spx_client.jobinfo, r->proc.nspace, r->proc.rank, r->key, info,
                                  ninfo, &rc, copy)) {
        r->final_miss = true; /* computed from the job info, which is all there is */
    } else if (spx_client.own && r->proc.rank == PMIX_RANK_WILDCARD &&
        PMIX_CHECK_NSPACE(r->proc.nspace, spx_client.myproc.nspace) &&
        spx_jobparts_lookup(spx_client.jobinfo, r->proc.nspace, r->key, info, ninfo, &rc, &v)) {
        if (rc == PMIX_SUCCESS)
            rc = PMIx_Value_xfer(copy, v);
        else if (rc == PMIX_ERR_NOT_FOUND &&
                 spx_jobmap_qualified(spx_client.jobinfo, r->proc.nspace, r->key, info, ninfo,
                                      copy))
            rc = PMIX_SUCCESS; /* a node whose part PMIx_Init left out: by the maps */
    } else if (spx_client.own && r->proc.rank == PMIX_RANK_WILDCARD &&
               spx_jobparts_qualified(info, ninfo)) {
        rc = PMIX_ERR_NOT_FOUND; /* another job's node or app: its server knows */
    } else if (spx_client.own) {
        v = lookup_local(r);
        rc = v ? PMIx_Value_xfer(copy, v) : PMIX_ERR_NOT_FOUND;
    }
    pthread_mutex_unlock(&spx_client.lock);
    return rc;
}

/* True when a miss is final: nobody else can know the key. Job-level data of
 * our own namespace (rank WILDCARD) came whole with the HELLO: the server
 * would look in the same registered info (Open MPI asks for a dozen such
 * optional keys in MPI_Init, each a round trip otherwise). */
static bool miss_is_final(const struct get_req *r)
{
    bool self = PMIX_CHECK_PROCID(&r->proc, &spx_client.myproc);
    bool own_job = r->proc.rank == PMIX_RANK_WILDCARD &&
                   PMIX_CHECK_NSPACE(r->proc.nspace, spx_client.myproc.nspace);
    return spx_client.singleton || (self && !spx_key_is_reserved(r->key)) || own_job ||
           r->final_miss;
}

static void get_ask_server(struct get_req *r)
{
    pthread_mutex_lock(&spx_client.lock);
    r->slot = cache_check_peer(r->proc.nspace, r->proc.rank);
    r->epoch = r->slot >= 0 ? spx_client.cache_epoch[r->slot] : 0;
    pthread_mutex_unlock(&spx_client.lock);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_proc(&b, &r->proc);
    spx_buf_push_str(&b, r->key);
    spx_codec_push_info_array(&b, r->info, r->ninfo);
    pmix_status_t rc = spx_buf_failed(&b) ? PMIX_ERR_NOMEM
                                          : spx_client_request(SPX_MSG_GET, &b, get_reply, r);
    spx_buf_fini(&b);
    if (rc != PMIX_SUCCESS)
        get_finish(r, rc, NULL);
}

/* Completes a request on the progress thread (callbacks always run there). */
static void get_on_thread(void *arg)
{
    struct get_req *r = arg;
    pmix_value_t copy = {.type = PMIX_UNDEF};
    pmix_status_t rc = get_local(r, r->info, r->ninfo, &copy);
    if (rc == PMIX_SUCCESS) {
        get_finish(r, PMIX_SUCCESS, &copy);
        PMIx_Value_destruct(&copy);
    } else if (rc != PMIX_ERR_NOT_FOUND || miss_is_final(r)) {
        get_finish(r, rc, NULL);
    } else {
        get_ask_server(r);
    }
}

/* Fills target proc and key of r (NULL proc, or the own namespace (or "")
 * with rank INVALID: this process; UNDEF rank: wildcard; a group id: that
 * member of the group). */
static pmix_status_t get_req_target(struct get_req *r, const pmix_proc_t *proc, const char *key)
{
    r->proc = proc ? *proc : spx_client.myproc;
    if (r->proc.rank == PMIX_RANK_UNDEF)
        r->proc.rank = PMIX_RANK_WILDCARD;
    if (!r->proc.nspace[0])
        PMIX_LOAD_NSPACE(r->proc.nspace, spx_client.myproc.nspace);
    if (r->proc.rank == PMIX_RANK_INVALID &&
        PMIX_CHECK_NSPACE(r->proc.nspace, spx_client.myproc.nspace))
        r->proc.rank = spx_client.myproc.rank;
    PMIX_LOAD_KEY(r->key, key);
    return r->proc.rank == PMIX_RANK_WILDCARD ? PMIX_SUCCESS : spx_client_group_map(&r->proc);
}

/* The directives a Get honours (client and server side together); the node,
 * app and session qualifiers for rank WILDCARD (store/jobparts.h). */
static const char *const get_directives[] = {
    PMIX_OPTIONAL, PMIX_IMMEDIATE, PMIX_TIMEOUT,      PMIX_NODE_INFO,  PMIX_HOSTNAME,
    PMIX_NODEID,   PMIX_APP_INFO,  PMIX_APPNUM,       PMIX_SESSION_INFO, PMIX_SESSION_ID,
    PMIX_GROUP_CONTEXT_ID, NULL};

SPX_EXPORT pmix_status_t PMIx_Get_nb(const pmix_proc_t *proc, const char key[],
                                     const pmix_info_t info[], size_t ninfo,
                                     pmix_value_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!cbfunc || !key_ok(key) || (!info && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t drc = spx_directives_check("PMIx_Get_nb", info, ninfo, get_directives);
    if (drc != PMIX_SUCCESS)
        return drc;
    struct get_req *r = calloc(1, sizeof(*r));
    if (!r)
        return PMIX_ERR_NOMEM;
    if (get_req_target(r, proc, key) != PMIX_SUCCESS) {
        free(r);
        return PMIX_ERR_BAD_PARAM;
    }
    if (ninfo > 0 && spx_info_array_dup(&r->info, info, ninfo) != PMIX_SUCCESS) {
        free(r);
        return PMIX_ERR_NOMEM;
    }
    r->ninfo = ninfo;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    if (spx_progress_shift(get_on_thread, r) != 0) {
        get_req_free(r);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return PMIX_SUCCESS;
}

struct get_wait {
    spx_wait_t wait;
    pmix_value_t *val; /* malloc'd copy handed to the caller */
};

static void get_wait_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    struct get_wait *gw = cbdata;
    if (status == PMIX_SUCCESS && kv) {
        if (spx_value_copy(&gw->val, kv) != PMIX_SUCCESS)
            status = PMIX_ERR_NOMEM;
    }
    spx_wait_signal(&gw->wait, status);
}

SPX_EXPORT pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[],
                                  const pmix_info_t info[], size_t ninfo, pmix_value_t **val)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    pmix_status_t rc = spx_progress_guard("PMIx_Get");
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!val || !key_ok(key) || (!info && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    if ((rc = spx_directives_check("PMIx_Get", info, ninfo, get_directives)) != PMIX_SUCCESS)
        return rc;
    *val = NULL;
    /* fast path: answered from what this process already holds, no thread hop */
    struct get_req local = {.info = NULL};
    if (get_req_target(&local, proc, key) != PMIX_SUCCESS)
        return PMIX_ERR_BAD_PARAM;
    pmix_value_t copy = {.type = PMIX_UNDEF};
    rc = get_local(&local, info, ninfo, &copy);
    if (rc == PMIX_SUCCESS) {
        rc = spx_value_copy(val, &copy);
        PMIx_Value_destruct(&copy);
        return rc;
    }
    if (rc != PMIX_ERR_NOT_FOUND || miss_is_final(&local))
        return rc;
    struct get_wait gw = {.val = NULL};
    spx_wait_init(&gw.wait);
    rc = PMIx_Get_nb(proc, key, info, ninfo, get_wait_cb, &gw);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&gw.wait);
    spx_wait_fini(&gw.wait);
    if (rc == PMIX_SUCCESS)
        *val = gw.val;
    else if (gw.val)
        PMIX_VALUE_RELEASE(gw.val);
    return rc;
}
