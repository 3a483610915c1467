/* upcalls.c - requests a client makes of the host: PUBLISH, LOOKUP,
 * UNPUBLISH, QUERY, JOBCTL, ABORT and FINALIZE.
 *
 * Each request is decoded into a spx_srv_req (which keeps the decoded arrays
 * alive while the host holds them), the host's upcall is called with the 4.2
 * signature, and the reply is sent from the request's done function once the
 * host's callback was shifted onto the progress thread. A missing upcall is
 * answered PMIX_ERR_NOT_SUPPORTED, except FINALIZE (success), JOBCTL cleanup
 * registrations (kept by the server) and QUERY of what the server knows. A
 * QUERY of only spmix's counter keys (SPMIX_QUERY_*) is always answered here,
 * and the keys the server library knows (process sets, process tables, the
 * namespaces' info, job status, spawn support, groups, its URI:
 * engine_query.h) are whenever the host's answer lacks them, after it.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_fence.h"
#include "server/engine_get.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"

/* u32 n, n x str -> NULL-terminated argv (caller frees with spx_argv_free), NULL
 * for n == 0 (UNPUBLISH: "every key of mine"). 0 or -1. */
static int pull_keys(spx_buf_t *b, char ***out)
{
    uint32_t n = spx_buf_pull_u32(b);
    *out = NULL;
    if (spx_buf_failed(b) || n > SPX_BUF_MAX_COUNT || n > spx_buf_remaining(b) / 4)
        return -1;
    if (n == 0)
        return 0;
    char **keys = calloc((size_t)n + 1, sizeof(*keys));
    if (!keys)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        keys[i] = spx_buf_pull_str(b);
        if (!keys[i] || strlen(keys[i]) > PMIX_MAX_KEYLEN) {
            spx_buf_set_error(b, EBADMSG);
            spx_argv_free(keys);
            return -1;
        }
    }
    *out = keys;
    return 0;
}

/* Calls the upcall's result through the request: SUCCESS waits for the callback,
 * anything else completes now. */
static void upcall_result(struct spx_srv_req *r, pmix_status_t rc)
{
    if (rc != PMIX_SUCCESS)
        spx_srv_req_finish_now(r, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
}

/* ---- host callbacks carrying data ---- */

static void req_run_done(void *arg)
{
    struct spx_srv_req *r = arg;
    r->done(r);
}

/* pmix_lookup_cbfunc_t: data valid only during the call, so encode it here. */
static void lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    struct spx_srv_req *r = cbdata;
    r->status = status;
    spx_buf_push_u32(&r->reply, status == PMIX_SUCCESS ? (uint32_t)ndata : 0);
    for (size_t i = 0; status == PMIX_SUCCESS && i < ndata; i++) {
        spx_codec_push_proc(&r->reply, &data[i].proc);
        spx_buf_push_str(&r->reply, data[i].key);
        spx_codec_push_value(&r->reply, &data[i].value);
    }
    if (spx_progress_shift(req_run_done, r) != 0)
        spx_warn("host callback after the server stopped: dropped");
}

/* pmix_info_cbfunc_t: keep the host's array until done, then release it. */
static void info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t relfn, void *relarg)
{
    struct spx_srv_req *r = cbdata;
    r->status = status;
    r->extra = info;
    r->nextra = ninfo;
    r->relfn = relfn;
    r->relarg = relarg;
    if (spx_progress_shift(req_run_done, r) != 0)
        spx_warn("host callback after the server stopped: dropped");
}

static void reply_with_tail(struct spx_srv_req *r)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, r->status);
    spx_buf_push_raw(&b, r->reply.data, r->reply.len);
    if (spx_buf_failed(&b) || spx_buf_failed(&r->reply)) {
        spx_buf_fini(&b);
        spx_srv_reply_status(r->peer, r->type, r->seq, PMIX_ERR_NOMEM);
        return;
    }
    spx_srv_reply(r->peer, r->type, r->seq, &b);
}

static void lookup_done(struct spx_srv_req *r)
{
    if (r->reply.len == 0) /* completed without the callback */
        spx_buf_push_u32(&r->reply, 0);
    reply_with_tail(r);
    spx_srv_req_free(r);
}

/* ---- QUERY ---- */

struct query_set {
    pmix_query_t *q;
    size_t n;
};

static void query_set_free(struct query_set *qs)
{
    for (size_t i = 0; qs && i < qs->n; i++) {
        spx_argv_free(qs->q[i].keys);
        spx_info_array_free(qs->q[i].qualifiers, qs->q[i].nqual);
    }
    if (qs)
        free(qs->q);
    free(qs);
}

static void query_set_free_v(void *qs)
{
    query_set_free(qs);
}

/* The end of a QUERY: the answers r->extra (the host's) or r->info (the
 * server's own table), as r->nextra / r->ninfo say, followed by the
 * library's own[0..nown) (query_own.c). */
static void query_own_done(pmix_info_t *own, size_t nown, bool all, void *arg)
{
    struct spx_srv_req *r = arg;
    const pmix_info_t *base = r->extra ? r->extra : r->info;
    size_t nbase = r->extra ? r->nextra : r->ninfo;
    pmix_info_t *merged = NULL;
    if (nown > 0) /* a key the library answered: its answer is what counts */
        r->status = all ? PMIX_SUCCESS : PMIX_ERR_PARTIAL_SUCCESS;
    if (nown > 0 && nbase > 0 && (merged = calloc(nbase + nown, sizeof(*merged)))) {
        memcpy(merged, base, nbase * sizeof(*merged)); /* shallow: only encoded */
        memcpy(merged + nbase, own, nown * sizeof(*merged));
        spx_codec_push_info_array(&r->reply, merged, nbase + nown);
        free(merged); /* the shell: the entries stay the host's and own's */
    } else if (nown > 0 && nbase > 0) {
        r->status = PMIX_ERR_NOMEM;
        spx_codec_push_info_array(&r->reply, NULL, 0);
    } else {
        spx_codec_push_info_array(&r->reply, nown ? own : base, nown ? nown : nbase);
    }
    spx_info_array_free(own, nown);
    reply_with_tail(r);
    spx_srv_req_free(r);
}

/* The server library's own answers (the query engine's, ctx->query_own)
 * after ans[0..nans): query_own_done runs once, now or later. */
static void query_own(struct spx_srv_req *r, const struct query_set *qs, const pmix_info_t *ans,
                      size_t nans)
{
    struct spx_srv_ctx *ctx = r->peer->ctx;
    if (ctx->query_own)
        ctx->query_own(ctx, r->peer, qs->q, qs->n, ans, nans, query_own_done, r);
    else
        query_own_done(NULL, 0, false, r);
}

static void query_done(struct spx_srv_req *r)
{
    /* r->extra: the host's answer (released by spx_srv_req_free through relfn) */
    /* a partial answer keeps its results (hosts use either partial status) */
    bool ok = r->status == PMIX_SUCCESS || r->status == PMIX_ERR_PARTIAL_SUCCESS ||
              r->status == PMIX_QUERY_PARTIAL_SUCCESS;
    if (!ok || !r->extra)
        r->nextra = 0;
    if (!ok)
        r->extra = NULL; /* still released through relfn */
    const struct query_set *qs = r->owned;
    /* the library's own keys the host left unanswered */
    query_own(r, qs, r->extra, r->nextra);
}

/* Answers from what the server knows: namespaces, its counters and
 * job-level keys; then the library's own keys (query_own.c). */
static void query_local(struct spx_srv_req *r, const struct query_set *qs)
{
    size_t nkeys = 0, found = 0;
    for (size_t i = 0; i < qs->n; i++)
        for (size_t k = 0; qs->q[i].keys && qs->q[i].keys[k]; k++)
            nkeys++;
    pmix_info_t *res = calloc(nkeys ? nkeys : 1, sizeof(*res));
    for (size_t i = 0; res && i < qs->n; i++) {
        const pmix_info_t *nsq = spx_info_find(qs->q[i].qualifiers, qs->q[i].nqual, PMIX_NSPACE);
        const char *nsname = nsq && nsq->value.type == PMIX_STRING && nsq->value.data.string
                                 ? nsq->value.data.string
                                 : r->peer->proc.nspace;
        for (size_t k = 0; qs->q[i].keys && qs->q[i].keys[k]; k++) {
            const char *key = qs->q[i].keys[k];
            pmix_info_t *out = &res[found];
            if (spx_key_eq(key, PMIX_QUERY_NAMESPACES)) {
                size_t len = 1;
                const struct spx_srv_ns *ns;
                LIST_FOREACH(ns, &r->peer->ctx->nspaces, link)
                    len += strlen(ns->name) + 1;
                char *s = calloc(1, len);
                for (ns = s ? LIST_FIRST(&r->peer->ctx->nspaces) : NULL; ns;
                     ns = LIST_NEXT(ns, link))
                    snprintf(s + strlen(s), len - strlen(s), "%s%s", *s ? "," : "", ns->name);
                if (!s)
                    continue;
                spx_key_load(out->key, key);
                out->value.type = PMIX_STRING;
                out->value.data.string = s;
                found++;
                continue;
            }
            if (spx_srv_mn_query(r->peer->ctx, key, out)) { /* spmix counters */
                found++;
                continue;
            }
            struct spx_srv_ns *ns = spx_srv_ns_find(r->peer->ctx, nsname);
            const pmix_value_t *v =
                ns ? spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, key, NULL) : NULL;
            pmix_value_t *copy = NULL;
            if (v && spx_value_copy(&copy, v) == PMIX_SUCCESS) {
                spx_key_load(out->key, key);
                out->value = *copy;
                free(copy); /* contents moved into out->value */
                found++;
            }
        }
    }
    r->status = !res ? PMIX_ERR_NOMEM
                : found == nkeys ? PMIX_SUCCESS
                : found ? PMIX_ERR_PARTIAL_SUCCESS
                : PMIX_ERR_NOT_FOUND;
    r->info = res; /* the request's from now on (spx_srv_req_free) */
    r->ninfo = found;
    query_own(r, qs, res, found);
}

static int handle_query(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    uint32_t nq = spx_buf_pull_u32(b);
    if (spx_buf_failed(b) || nq > SPX_BUF_MAX_COUNT || nq > spx_buf_remaining(b) / 8)
        return -1;
    struct query_set *qs = calloc(1, sizeof(*qs));
    if (!qs || !(qs->q = calloc(nq ? nq : 1, sizeof(*qs->q)))) {
        free(qs);
        spx_srv_reply_status(p, SPX_MSG_QUERY, seq, PMIX_ERR_NOMEM);
        return 0;
    }
    for (uint32_t i = 0; i < nq; i++, qs->n++)
        if (pull_keys(b, &qs->q[i].keys) != 0 ||
            spx_codec_pull_info_array(b, &qs->q[i].qualifiers, &qs->q[i].nqual) != 0) {
            qs->n++;
            query_set_free(qs);
            return -1;
        }
    if (spx_buf_finish(b) != 0) {
        query_set_free(qs);
        return -1;
    }
    struct spx_srv_req *r = spx_srv_req_create(p, SPX_MSG_QUERY, seq);
    if (!r) {
        query_set_free(qs);
        spx_srv_reply_status(p, SPX_MSG_QUERY, seq, PMIX_ERR_NOMEM);
        return 0;
    }
    bool only_ours = qs->n > 0;
    for (size_t i = 0; i < qs->n && only_ours; i++)
        for (size_t k = 0; qs->q[i].keys && qs->q[i].keys[k] && only_ours; k++)
            only_ours = spx_srv_mn_is_query_key(qs->q[i].keys[k]);
    const pmix_server_module_t *host = &p->ctx->host;
    r->owned = qs; /* the host and the library may read it until the reply */
    r->owned_free = query_set_free_v;
    if (!host->query || only_ours) {
        query_local(r, qs);
        return 0;
    }
    r->done = query_done;
    upcall_result(r, host->query(&p->proc, qs->q, qs->n, info_cb, r));
    return 0;
}

/* ---- PUBLISH / LOOKUP / UNPUBLISH ---- */

static int handle_publish(struct spx_srv_req *r, spx_buf_t *b)
{
    if (spx_codec_pull_info_array(b, &r->info, &r->ninfo) != 0 || spx_buf_finish(b) != 0)
        return -1;
    /* without a host directory the server's own serves the whole job (pubsub.c) */
    struct spx_srv_ctx *ctx = r->peer->ctx;
    if (ctx->host.publish)
        upcall_result(r, ctx->host.publish(&r->peer->proc, r->info, r->ninfo,
                                           spx_srv_req_op_cb, r));
    else
        upcall_result(r, !ctx->directory ? PMIX_ERR_NOT_SUPPORTED
                                         : ctx->directory->publish(ctx, &r->peer->proc, r->info,
                                                                   r->ninfo, spx_srv_req_op_cb, r));
    return 0;
}

static int handle_lookup(struct spx_srv_req *r, spx_buf_t *b, bool unpublish)
{
    if (pull_keys(b, &r->keys) != 0 || spx_codec_pull_info_array(b, &r->info, &r->ninfo) != 0 ||
        spx_buf_finish(b) != 0)
        return -1;
    struct spx_srv_ctx *ctx = r->peer->ctx;
    if (unpublish) {
        if (ctx->host.unpublish)
            upcall_result(r, ctx->host.unpublish(&r->peer->proc, r->keys, r->info, r->ninfo,
                                                 spx_srv_req_op_cb, r));
        else
            upcall_result(r, !ctx->directory
                                 ? PMIX_ERR_NOT_SUPPORTED
                                 : ctx->directory->unpublish(ctx, &r->peer->proc, r->keys, r->info,
                                                             r->ninfo, spx_srv_req_op_cb, r));
        return 0;
    }
    r->done = lookup_done;
    if (!r->keys)
        spx_srv_req_finish_now(r, PMIX_ERR_BAD_PARAM);
    else if (ctx->host.lookup)
        upcall_result(r, ctx->host.lookup(&r->peer->proc, r->keys, r->info, r->ninfo, lookup_cb,
                                          r));
    else
        upcall_result(r, !ctx->directory ? PMIX_ERR_NOT_SUPPORTED
                                         : ctx->directory->lookup(ctx, &r->peer->proc, r->keys,
                                                                  r->info, r->ninfo, lookup_cb, r));
    return 0;
}

/* ---- JOBCTL / ABORT / FINALIZE ---- */

static int handle_jobctl(struct spx_srv_req *r, spx_buf_t *b)
{
    if (spx_codec_pull_proc_array(b, &r->procs, &r->nprocs) != 0 ||
        spx_codec_pull_info_array(b, &r->info, &r->ninfo) != 0 || spx_buf_finish(b) != 0)
        return -1;
    struct spx_srv_client *cl = r->peer->client;
    /* cleanup registrations are the server's business: OpenMPI expects them to work */
    pmix_status_t rc = cl ? spx_srv_cleanup_register(cl, r->info, r->ninfo, true)
                          : PMIX_ERR_NOT_SUPPORTED;
    if (rc == PMIX_SUCCESS) {
        spx_srv_req_finish_now(r, PMIX_SUCCESS);
        return 0;
    }
    const pmix_server_module_t *host = &r->peer->ctx->host;
    if (!host->job_control) {
        spx_srv_req_finish_now(r, PMIX_ERR_NOT_SUPPORTED);
        return 0;
    }
    if (cl) /* mixed directives: keep the cleanups, pass everything on */
        spx_srv_cleanup_register(cl, r->info, r->ninfo, false);
    upcall_result(r, host->job_control(&r->peer->proc, r->procs, r->nprocs, r->info, r->ninfo,
                                       info_cb, r));
    return 0;
}

static int handle_abort(struct spx_srv_req *r, spx_buf_t *b)
{
    int status = spx_buf_pull_i32(b);
    r->msg = spx_buf_pull_str(b);
    if (spx_buf_failed(b) || spx_codec_pull_proc_array(b, &r->procs, &r->nprocs) != 0 ||
        spx_buf_finish(b) != 0)
        return -1;
    spx_warn("%s called PMIx_Abort(%d, \"%s\")", r->peer->name, status,
             r->msg ? r->msg : "");
    if (r->peer->client)
        r->peer->client->aborted = true; /* its state in the process tables */
    const pmix_server_module_t *host = &r->peer->ctx->host;
    if (!host->abort)
        spx_srv_req_finish_now(r, PMIX_ERR_NOT_SUPPORTED);
    else
        upcall_result(r, host->abort(&r->peer->proc,
                                     r->peer->client ? r->peer->client->server_object : NULL,
                                     status, r->msg, r->procs, r->nprocs, spx_srv_req_op_cb, r));
    return 0;
}

static int handle_finalize(struct spx_srv_req *r, spx_buf_t *b)
{
    if (spx_buf_finish(b) != 0)
        return -1;
    struct spx_srv_client *cl = r->peer->client;
    struct spx_srv_ctx *ctx = r->peer->ctx;
    if (cl) {
        cl->finalized = true;
        spx_srv_engines_client_finalized(ctx, cl); /* fences go on without it, gets end */
        if (!ctx->host.publish && ctx->directory)
            ctx->directory->proc_done(ctx, &r->peer->proc, cl->used_directory);
    }
    if (!cl || !ctx->host.client_finalized)
        spx_srv_req_finish_now(r, PMIX_SUCCESS);
    else
        upcall_result(r, ctx->host.client_finalized(&r->peer->proc, cl->server_object,
                                                    spx_srv_req_op_cb, r));
    return 0;
}

bool spx_srv_upcall_handles(uint8_t type)
{
    return type == SPX_MSG_QUERY || type == SPX_MSG_PUBLISH || type == SPX_MSG_LOOKUP ||
           type == SPX_MSG_UNPUBLISH || type == SPX_MSG_JOBCTL || type == SPX_MSG_ABORT ||
           type == SPX_MSG_FINALIZE;
}

bool spx_srv_upcall_for_tools(uint8_t type)
{
    return type == SPX_MSG_QUERY || type == SPX_MSG_FINALIZE;
}

int spx_srv_handle_upcall(struct spx_srv_peer *p, uint8_t type, uint32_t seq, spx_buf_t *b)
{
    if (type == SPX_MSG_QUERY)
        return handle_query(p, seq, b);
    struct spx_srv_req *r = spx_srv_req_create(p, type, seq);
    if (!r) {
        spx_srv_reply_status(p, type, seq, PMIX_ERR_NOMEM);
        return 0;
    }
    int rc;
    switch (type) {
    case SPX_MSG_PUBLISH: rc = handle_publish(r, b); break;
    case SPX_MSG_LOOKUP: rc = handle_lookup(r, b, false); break;
    case SPX_MSG_UNPUBLISH: rc = handle_lookup(r, b, true); break;
    case SPX_MSG_JOBCTL: rc = handle_jobctl(r, b); break;
    case SPX_MSG_ABORT: rc = handle_abort(r, b); break;
    case SPX_MSG_FINALIZE: rc = handle_finalize(r, b); break;
    default: rc = -1; break;
    }
    if (rc != 0)
        spx_srv_req_free(r); /* malformed: nothing was handed to the host */
    return rc;
}
