/* group_host.c - a construct or destruct handed to the host's `group`
 * upcall (pmix_server_module_t.group), for a third-party host that runs
 * groups across its own nodes: used in single-node mode when the host
 * module has one (the servers of a tree run the collective themselves).
 *
 * The host gets the members and directives: PMIX_GROUP_ENDPT_DATA, a byte
 * object holding this node's MEMBER items (proto/group.h: each local
 * member's group info and endpoint data), PMIX_GROUP_ASSIGN_CONTEXT_ID when a
 * member asked for one, PMIX_TIMEOUT when one was given. It answers (any
 * thread; the answer is copied at once) with, optionally, PMIX_GROUP_ENDPT_DATA - every node's items
 * concatenated, as the data of a fence is - and PMIX_GROUP_CONTEXT_ID. The
 * answer is shifted to the progress thread and becomes the collective's
 * outcome (the host's items, or this node's when it sent none, plus the
 * host's context id), which the group engine applies as any other.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_group.h"
#include "server/group_int.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "progress/progress.h"
#include "proto/group.h"
#include "types/types.h"
#include "util/log.h"

struct host_call {
    struct spx_srv_ctx *ctx;        /* borrowed */
    void *token;                    /* the collective's fence-engine token */
    bool construct;
    char id[PMIX_MAX_NSLEN + 1];
    uint8_t *local;                 /* this node's items (owned) */
    size_t nlocal;
    /* the host's answer, copied (the host may free it once the callback returns) */
    pmix_status_t status;
    pmix_info_t *info;              /* owned */
    size_t ninfo;
};

static void call_free(struct host_call *c)
{
    spx_info_array_free(c->info, c->ninfo);
    free(c->local);
    free(c);
}

/* The outcome of a construct the host answered: its items (or ours) and its id. */
static pmix_status_t host_outcome(struct host_call *c, spx_buf_t *out)
{
    const pmix_info_t *e = spx_info_find(c->info, c->ninfo, PMIX_GROUP_ENDPT_DATA);
    if (e && e->value.type == PMIX_BYTE_OBJECT && e->value.data.bo.size)
        spx_buf_push_raw(out, e->value.data.bo.bytes, e->value.data.bo.size);
    else
        spx_buf_push_raw(out, c->local, c->nlocal);
    const pmix_info_t *id = spx_info_find(c->info, c->ninfo, PMIX_GROUP_CONTEXT_ID);
    if (id) {
        uint64_t cid = id->value.type == PMIX_SIZE     ? id->value.data.size
                       : id->value.type == PMIX_UINT64 ? id->value.data.uint64
                       : id->value.type == PMIX_UINT32 ? id->value.data.uint32
                                                       : 0;
        if (!cid)
            return PMIX_ERR_BAD_PARAM;
        spx_grp_outcome_t o;
        bool has = spx_grp_outcome_parse(out->data, out->len, &o) == 0 && o.have_cid;
        if (o.n)
            spx_grp_outcome_fini(&o);
        if (!has)
            spx_grp_push_cid(out, c->id, cid);
    }
    return spx_buf_failed(out) ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

static void answer_on_thread(void *arg)
{
    struct host_call *c = arg;
    struct spx_fence_engine *e = spx_srv_group_coll_engine(c->ctx);
    spx_buf_t out;
    spx_buf_init(&out);
    pmix_status_t st = c->status;
    if (st == PMIX_SUCCESS && c->construct)
        st = host_outcome(c, &out);
    if (st != PMIX_SUCCESS)
        spx_warn("group %s: the host's %s answered %s", c->id,
                 c->construct ? "construct" : "destruct", PMIx_Error_string(st));
    if (e)
        spx_fence_host_done(e, c->token, st, (const char *)out.data, out.len);
    spx_buf_fini(&out);
    call_free(c);
}

/* The host's pmix_info_cbfunc_t (any thread). cbdata: the struct host_call. */
static void host_answer(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                        pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct host_call *c = cbdata;
    c->status = status;
    if (ninfo && info && spx_info_array_dup(&c->info, info, ninfo) == PMIX_SUCCESS)
        c->ninfo = ninfo;
    else if (ninfo && c->status == PMIX_SUCCESS)
        c->status = PMIX_ERR_NOMEM;
    if (release_fn)
        release_fn(release_cbdata);
    if (spx_progress_shift(answer_on_thread, c) != 0) {
        spx_error("group %s: the host's answer could not reach the progress thread", c->id);
        call_free(c);
    }
}

pmix_status_t spx_srv_grp_host_start(struct spx_srv_grp *g, bool construct, const char *id,
                                     const pmix_proc_t *set, size_t nset, const void *data,
                                     size_t ndata, double timeout, void *token)
{
    struct spx_srv_ctx *ctx = g->ctx;
    struct host_call *c = calloc(1, sizeof(*c));
    if (!c || (ndata && !(c->local = malloc(ndata)))) {
        free(c);
        return PMIX_ERR_NOMEM;
    }
    c->ctx = ctx;
    c->token = token;
    c->construct = construct;
    snprintf(c->id, sizeof(c->id), "%s", id);
    if (ndata)
        memcpy(c->local, data, ndata);
    c->nlocal = ndata;
    pmix_info_t dirs[3];
    size_t nd = 0;
    bool yes = true;
    int to = (int)timeout;
    if (construct) {
        pmix_byte_object_t bo = {.bytes = (char *)c->local, .size = c->nlocal};
        PMIX_INFO_LOAD(&dirs[nd], PMIX_GROUP_ENDPT_DATA, &bo, PMIX_BYTE_OBJECT);
        nd++;
        spx_grp_outcome_t o;
        bool want = spx_grp_outcome_parse(data, ndata, &o) == 0 && o.want_cid;
        if (o.n)
            spx_grp_outcome_fini(&o);
        if (want)
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    }
    if (to > 0)
        PMIX_INFO_LOAD(&dirs[nd++], PMIX_TIMEOUT, &to, PMIX_INT);
    char grp[PMIX_MAX_NSLEN + 1];
    snprintf(grp, sizeof(grp), "%s", id);
    pmix_status_t rc = ctx->host.group(construct ? PMIX_GROUP_CONSTRUCT : PMIX_GROUP_DESTRUCT,
                                       grp, set, nset, dirs, nd, host_answer, c);
    for (size_t i = 0; i < nd; i++)
        PMIX_INFO_DESTRUCT(&dirs[i]);
    if (rc == PMIX_SUCCESS)
        return PMIX_SUCCESS; /* the answer comes through host_answer */
    call_free(c);
    return rc;
}
