/* query_own.c - the query engine's runs (engine_query.h): the keys of a
 * QUERY that the server library answers itself, where its host's answer
 * (or the server's table of job keys) lacks them.
 *
 * A run is one QUERY's own keys, a slot per key (per key and namespace).
 * A slot is answered at once from this node (the process-set keys, spawn
 * support, the namespaces' info, this node's process table, this server's
 * URI) or gathered over the nodes its answer spans (query_gather.c: the
 * process table and the job's status over the namespace's nodes, the groups
 * over every node, another node's URI from that node). The run ends when
 * its last part came; its slots' parts become answers here:
 *   PROC_TABLE   every rank of the job in rank order; a rank no node
 *                described (its node gone, or its part malformed) stands in
 *                from the job info: host, no pid, state TERMINATED when its
 *                node ended in order, COMM_FAILED when it was lost, else UNDEF;
 *   GROUP_NAMES  the sorted union of the nodes' group ids, a data array of
 *                strings (the type of OpenPMIx's header; PRRTE answers a
 *                comma-delimited char*); NUM_GROUPS their number (size_t);
 *   JOB_STATUS   the worst of the nodes' statuses (query_gather.c);
 *   SERVER_URI   the named node's "spmix:<socket>".
 * A key without an answer (an unknown namespace, one a tool may not see, a
 * node that did not answer) is left out, and the run says so (all false).
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_query.h"
#include "server/query_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/psets.h"
#include "codec/value.h"
#include "store/jobparts.h"
#include "types/types.h"

/* ---- ending a run ---- */

static int rank_cmp(const void *a, const void *b)
{
    pmix_rank_t x = ((const pmix_proc_info_t *)a)->proc.rank;
    pmix_rank_t y = ((const pmix_proc_info_t *)b)->proc.rank;
    return x < y ? -1 : x > y;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void data_array_answer(struct qslot *s, pmix_data_type_t type, void *array, size_t n)
{
    pmix_data_array_t *d = calloc(1, sizeof(*d));
    if (!d) {
        spx_codec_release_elems(type, array, n);
        free(array);
        return;
    }
    d->type = type;
    d->size = n;
    d->array = n ? array : NULL;
    if (!n)
        free(array);
    spx_key_load(s->out.key, s->key);
    s->out.value.type = PMIX_DATA_ARRAY;
    s->out.value.data.darray = d;
    s->answered = true;
}

/* A rank no node described: what the job info and its node's fate say. */
static pmix_proc_state_t stand_in_state(struct spx_srv_ctx *ctx, const struct spx_srv_ns *ns,
                                        pmix_rank_t rank)
{
    uint32_t node = spx_srv_ns_node_of(ns, rank);
    if (node == UINT32_MAX)
        return PMIX_PROC_STATE_UNDEF;
    if (spx_srv_mn_node_ended(ctx, node))
        return PMIX_PROC_STATE_TERMINATED;
    return spx_srv_mn_node_is_lost(ctx, node) ? PMIX_PROC_STATE_COMM_FAILED
                                              : PMIX_PROC_STATE_UNDEF;
}

static void procs_finish(struct spx_srv_ctx *ctx, struct qslot *s)
{
    pmix_proc_info_t *p = s->procs;
    size_t w = 0;
    qsort(p, s->nprocs, sizeof(*p), rank_cmp);
    for (size_t i = 0; i < s->nprocs; i++) {
        if (w && p[w - 1].proc.rank == p[i].proc.rank)
            spx_codec_release_elems(PMIX_PROC_INFO, &p[i], 1); /* told twice */
        else
            p[w++] = p[i];
    }
    const struct spx_srv_ns *ns = spx_srv_ns_find(ctx, s->nspace);
    uint32_t size = ns ? spx_srv_qry_job_size(ns) : 0;
    size_t total = w > size ? w : size, j = 0, k = 0;
    pmix_proc_info_t *res = calloc(total ? total : 1, sizeof(*res));
    if (!res)
        return; /* s->procs is released with the slot */
    for (pmix_rank_t r = 0; r < size; r++) {
        if (j < w && p[j].proc.rank == r)
            res[k++] = p[j++];
        else
            spx_srv_qry_proc_stand_in(ns, r, stand_in_state(ctx, ns, r), &res[k++]);
    }
    while (j < w)
        res[k++] = p[j++];
    free(s->procs);
    s->procs = NULL;
    s->nprocs = s->cprocs = 0;
    data_array_answer(s, PMIX_PROC_INFO, res, k);
}

static void groups_finish(struct qslot *s)
{
    size_t w = 0;
    if (s->nnames)
        qsort(s->names, s->nnames, sizeof(char *), str_cmp);
    for (size_t i = 0; i < s->nnames; i++) {
        if (w && strcmp(s->names[w - 1], s->names[i]) == 0)
            free(s->names[i]);
        else
            s->names[w++] = s->names[i];
    }
    s->nnames = w;
    if (spx_key_eq(s->key, PMIX_QUERY_NUM_GROUPS)) {
        spx_key_load(s->out.key, s->key);
        s->out.value.type = PMIX_SIZE;
        s->out.value.data.size = w;
        s->answered = true;
        return;
    }
    char **names = s->names;
    s->names = NULL;
    s->nnames = s->cnames = 0;
    data_array_answer(s, PMIX_STRING, names, w);
}

static void slot_finish(struct spx_srv_ctx *ctx, struct qslot *s)
{
    switch (s->part) {
    case SPX_QRY_PROCS:
        procs_finish(ctx, s);
        break;
    case SPX_QRY_GROUPS:
        groups_finish(s);
        break;
    case SPX_QRY_JOB_STATUS:
        if (s->any) {
            spx_key_load(s->out.key, s->key);
            s->out.value.type = PMIX_STATUS;
            s->out.value.data.status = s->status;
            s->answered = true;
        }
        break;
    default: /* answered at once, or a URI that came or not */
        break;
    }
}

static void slot_release(struct qslot *s)
{
    spx_codec_release_elems(PMIX_PROC_INFO, s->procs, s->nprocs);
    free(s->procs);
    for (size_t i = 0; i < s->nnames; i++)
        free(s->names[i]);
    free(s->names);
}

void spx_qry_run_end(struct spx_srv_ctx *ctx, struct qrun *run)
{
    LIST_REMOVE(run, link);
    size_t n = 0;
    bool all = !run->unanswered;
    for (size_t i = 0; i < run->nslots; i++) {
        slot_finish(ctx, &run->slots[i]);
        n += run->slots[i].answered;
        all &= run->slots[i].answered;
    }
    pmix_info_t *own = n ? calloc(n, sizeof(*own)) : NULL;
    size_t k = 0;
    for (size_t i = 0; i < run->nslots; i++) {
        struct qslot *s = &run->slots[i];
        if (s->answered && own)
            own[k++] = s->out; /* moved */
        else if (s->answered)
            PMIx_Value_destruct(&s->out.value);
        slot_release(s);
    }
    if (n && !own)
        all = false;
    spx_srv_query_own_f done = run->done;
    void *arg = run->arg;
    free(run->slots);
    free(run);
    done(own, k, all, arg);
}

/* ---- starting a run ---- */

static const struct spx_srv_ns *visible_ns(struct spx_srv_ctx *ctx, const struct spx_srv_peer *p,
                                           const char *nspace)
{
    const struct spx_srv_ns *ns = nspace[0] ? spx_srv_ns_find(ctx, nspace) : NULL;
    return ns && (!p || !p->tool || spx_srv_tool_may_see(p, ns->name)) ? ns : NULL;
}

/* The node a PMIX_SERVER_URI query names by PMIX_NODEID or PMIX_HOSTNAME
 * (this node when neither), UINT32_MAX when it names none of the step. */
static uint32_t uri_node(struct spx_srv_ctx *ctx, const pmix_query_t *q)
{
    uint32_t id;
    const pmix_info_t *i = spx_info_find(q->qualifiers, q->nqual, PMIX_NODEID);
    if (i)
        return spx_value_to_u32(&i->value, &id) == PMIX_SUCCESS && id < spx_srv_mn_nnodes(ctx)
                   ? id
                   : UINT32_MAX;
    i = spx_info_find(q->qualifiers, q->nqual, PMIX_HOSTNAME);
    if (!i)
        return spx_srv_mn_me(ctx);
    if (i->value.type != PMIX_STRING || !i->value.data.string)
        return UINT32_MAX;
    bool yes = true;
    pmix_info_t nq[2]; /* the job info knows the nodes' names and ids */
    PMIx_Info_load(&nq[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
    nq[1] = *i; /* borrowed: not destructed */
    const struct spx_srv_ns *ns;
    LIST_FOREACH(ns, &ctx->nspaces, link) {
        pmix_status_t rc;
        const pmix_value_t *v = NULL;
        if (spx_jobparts_lookup(ns->info, ns->name, PMIX_NODEID, nq, 2, &rc, &v) &&
            rc == PMIX_SUCCESS && v && spx_value_to_u32(v, &id) == PMIX_SUCCESS)
            return id < spx_srv_mn_nnodes(ctx) ? id : UINT32_MAX;
        if (spx_srv_ns_node_by_name(ns, i->value.data.string, &id))
            return id < spx_srv_mn_nnodes(ctx) ? id : UINT32_MAX;
    }
    /* a name the job info lacks: this machine's own */
    return strcmp(i->value.data.string, ctx->hostname) == 0 ? spx_srv_mn_me(ctx) : UINT32_MAX;
}

/* Answers or starts slot si for query q of requester p; false when the
 * key is none of the server's. */
static bool slot_start(struct spx_srv_ctx *ctx, const struct spx_srv_peer *p, struct qrun *run,
                       size_t si, const pmix_query_t *q, bool qualified)
{
    struct qslot *s = &run->slots[si];
    const char *key = s->key;
    const struct spx_srv_ns *ns;
    pmix_value_t *v = &s->out.value;
    spx_key_load(s->out.key, key);
    if (spx_psets_query_answer(key, &s->out)) {
        s->answered = true;
    } else if (spx_key_eq(key, PMIX_QUERY_SPAWN_SUPPORT)) {
        /* PMIx_Spawn is not supported: no spawn attribute is honoured */
        v->type = PMIX_STRING;
        s->answered = (v->data.string = strdup("")) != NULL;
    } else if (spx_key_eq(key, PMIX_QUERY_NAMESPACE_INFO)) {
        s->answered = spx_srv_qry_nsinfo(ctx, p, qualified ? s->nspace : NULL, v) == PMIX_SUCCESS;
    } else if (spx_key_eq(key, PMIX_QUERY_LOCAL_PROC_TABLE)) {
        s->answered = (ns = visible_ns(ctx, p, s->nspace)) &&
                      spx_srv_qry_part(ctx, SPX_QRY_PROCS, ns->name, v) == PMIX_SUCCESS;
    } else if (spx_key_eq(key, PMIX_QUERY_PROC_TABLE) || spx_key_eq(key, PMIX_QUERY_JOB_STATUS)) {
        uint8_t part = spx_key_eq(key, PMIX_QUERY_PROC_TABLE) ? SPX_QRY_PROCS : SPX_QRY_JOB_STATUS;
        uint32_t me = spx_srv_mn_me(ctx);
        if ((ns = visible_ns(ctx, p, s->nspace))) {
            bool spread = ctx->mn && ns->nnodes; /* its nodes, or this one without maps */
            spx_qry_gather(ctx, run, si, part, spread ? ns->nodes : &me, spread ? ns->nnodes : 1);
        }
    } else if (spx_key_eq(key, PMIX_QUERY_GROUP_NAMES) || spx_key_eq(key, PMIX_QUERY_NUM_GROUPS)) {
        spx_qry_gather(ctx, run, si, SPX_QRY_GROUPS, NULL, spx_srv_mn_nnodes(ctx));
    } else if (spx_key_eq(key, PMIX_SERVER_URI)) {
        uint32_t node = uri_node(ctx, q);
        if (node != UINT32_MAX)
            spx_qry_gather(ctx, run, si, SPX_QRY_URI, &node, 1);
    } else {
        return false;
    }
    return true;
}

static bool slot_dup(const struct qrun *run, const char *key, const char *nspace)
{
    for (size_t i = 0; i < run->nslots; i++)
        if (spx_key_eq(run->slots[i].key, key) && strcmp(run->slots[i].nspace, nspace) == 0)
            return true;
    return false;
}

void spx_srv_query_own_run(struct spx_srv_ctx *ctx, const struct spx_srv_peer *p,
                           const pmix_query_t *q, size_t nq, const pmix_info_t *ans, size_t nans,
                           spx_srv_query_own_f done, void *arg)
{
    size_t nkeys = 0;
    for (size_t i = 0; i < nq; i++)
        for (size_t k = 0; q[i].keys && q[i].keys[k]; k++)
            nkeys++;
    struct qrun *run = calloc(1, sizeof(*run));
    if (!run || !ctx->qry || !(run->slots = calloc(nkeys ? nkeys : 1, sizeof(*run->slots)))) {
        free(run);
        done(NULL, 0, false, arg);
        return;
    }
    run->done = done;
    run->arg = arg;
    run->pending = 1; /* held while the slots start: asks cannot end it */
    LIST_INSERT_HEAD(&ctx->qry->runs, run, link);
    for (size_t i = 0; i < nq; i++) {
        const char *nsq = spx_info_string(q[i].qualifiers, q[i].nqual, PMIX_NSPACE);
        const char *nspace = nsq ? nsq : p ? p->proc.nspace : "";
        for (size_t k = 0; q[i].keys && q[i].keys[k]; k++) {
            const char *key = q[i].keys[k];
            if (spx_info_find(ans, nans, key) || slot_dup(run, key, nspace))
                continue;
            struct qslot *s = &run->slots[run->nslots];
            s->key = key;
            snprintf(s->nspace, sizeof(s->nspace), "%s", nspace);
            run->nslots++;
            if (!slot_start(ctx, p, run, run->nslots - 1, &q[i], nsq != NULL)) {
                run->nslots--;
                memset(s, 0, sizeof(*s));
                run->unanswered = true; /* neither the host nor the server knows it */
            }
        }
    }
    if (--run->pending == 0)
        spx_qry_run_end(ctx, run);
}
