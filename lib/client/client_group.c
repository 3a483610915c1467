/* client_group.c - PMIx groups on the client side: PMIx_Group_construct,
 * _destruct, _invite, _join and _leave (each blocking and _nb), and what the
 * handlers of group events decided (spx_client_group_event_done).
 *
 * Each call is one GROUP request (proto/msg.h); the server runs the
 * collective over the members' nodes, or the invitation on the leader's node
 * (lib/server/group_coll.c, group_invite.c). The reply to a construct, an
 * invite and an accepted join (once the leader's invitation resolved)
 * carries the outcome (proto/group.h): every member's group info and
 * endpoint data and the context id, which client_group_table.c keeps. A
 * decline, or an accept that names no leader, is answered at once with
 * empty results. Results of a construct, an invite or a join: PMIX_GROUP_ID,
 * PMIX_GROUP_MEMBERSHIP and, when a member asked for one
 * (PMIX_GROUP_ASSIGN_CONTEXT_ID), PMIX_GROUP_CONTEXT_ID. A blocking
 * construct of a whole namespace goes through shared memory when the server
 * offers it (client_group_shm.c). PMIx_Connect / PMIx_Disconnect use these
 * requests (client_connect.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/group.h"
#include "proto/group_shm.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/log.h"

/* ---- the request and its reply ---- */

/* A GROUP request waiting for its reply: group_reply's arg, which frees it. */
struct grp_req {
    uint8_t op;
    char id[PMIX_MAX_NSLEN + 1];
    pmix_info_cbfunc_t info_cb;   /* construct */
    pmix_op_cbfunc_t op_cb;       /* destruct */
    void *cbdata;
};

/* The results handed to an info_cb (owned: results_release frees them). */
struct results {
    pmix_info_t *info;
    size_t n;
};

static void results_release(void *arg)
{
    struct results *r = arg;
    spx_info_array_free(r->info, r->n);
    free(r);
}

static void group_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct grp_req *r = arg;
    uint8_t *bytes = NULL;
    size_t n = 0;
    bool need = r->op == SPX_GRP_OP_CONSTRUCT || r->op == SPX_GRP_OP_INVITE;
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (status == PMIX_SUCCESS && spx_buf_remaining(payload) > 0)
            bytes = spx_buf_pull_bytes(payload, &n);
        if (spx_buf_failed(payload) || spx_buf_finish(payload) != 0 ||
            (status == PMIX_SUCCESS && need && !bytes)) {
            spx_client_conn_fail("malformed GROUP reply");
            status = PMIX_ERR_UNPACK_FAILURE;
            free(bytes);
            bytes = NULL;
        }
    }
    if (r->op == SPX_GRP_OP_DESTRUCT || r->op == SPX_GRP_OP_LEAVE) {
        free(bytes);
        if (status == PMIX_SUCCESS)
            spx_client_group_ended(r->id);
        if (r->op_cb)
            r->op_cb(status, r->cbdata);
        free(r);
        return;
    }
    struct results *res = NULL;
    if (status == PMIX_SUCCESS && bytes) {
        pmix_info_t *info = NULL;
        size_t k = 0;
        status = spx_client_group_take_outcome(bytes, n, &info, &k); /* bytes taken */
        if (status == PMIX_SUCCESS && !(res = calloc(1, sizeof(*res)))) {
            spx_info_array_free(info, k);
            status = PMIX_ERR_NOMEM;
        }
        if (res) {
            res->info = info;
            res->n = k;
        }
    }
    if (!r->info_cb) { /* no callback: the outcome is absorbed, events tell the rest */
        if (res)
            results_release(res);
    } else if (res) {
        r->info_cb(status, res->info, res->n, r->cbdata, results_release, res);
    } else {
        r->info_cb(status, NULL, 0, r->cbdata, NULL, NULL);
    }
    free(r);
}

/* The directives each operation honours (client and server together); a
 * PMIX_INFO_REQD one outside its list refuses the call (types/directives.c). */
static const char *const construct_directives[] = {
    PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_INFO, PMIX_TIMEOUT, PMIX_GROUP_NOTIFY_TERMINATION,
    PMIX_GROUP_LOCAL_ONLY, PMIX_GROUP_OPTIONAL, PMIX_GROUP_FT_COLLECTIVE, PMIX_GROUP_ADD_MEMBERS,
    NULL};
static const char *const invite_directives[] = {
    PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_INFO, PMIX_TIMEOUT, PMIX_GROUP_NOTIFY_TERMINATION,
    PMIX_GROUP_OPTIONAL, NULL};
static const char *const destruct_directives[] = {PMIX_TIMEOUT, NULL};
static const char *const no_directives[] = {NULL};

static const char *const *honoured(uint8_t op, const char **name)
{
    switch (op) {
    case SPX_GRP_OP_CONSTRUCT: *name = "PMIx_Group_construct"; return construct_directives;
    case SPX_GRP_OP_INVITE: *name = "PMIx_Group_invite"; return invite_directives;
    case SPX_GRP_OP_JOIN_ACCEPT:
    case SPX_GRP_OP_JOIN_DECLINE: *name = "PMIx_Group_join"; return construct_directives;
    case SPX_GRP_OP_DESTRUCT: *name = "PMIx_Group_destruct"; return destruct_directives;
    default: *name = "PMIx_Group_leave"; return no_directives;
    }
}

pmix_status_t spx_client_group_send(uint8_t op, const char grp[], const pmix_proc_t procs[],
                                    size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                    pmix_info_cbfunc_t info_cb, pmix_op_cbfunc_t op_cb,
                                    void *cbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    const char *name;
    const char *const *known = honoured(op, &name);
    pmix_status_t drc = info ? spx_directives_check(name, info, ninfo, known) : PMIX_SUCCESS;
    if (drc != PMIX_SUCCESS)
        return drc;
    if (!grp || !grp[0] || strnlen(grp, PMIX_MAX_NSLEN + 1) > PMIX_MAX_NSLEN ||
        (ninfo && !info) ||
        ((op == SPX_GRP_OP_CONSTRUCT || op == SPX_GRP_OP_INVITE) && (!procs || nprocs == 0)))
        return PMIX_ERR_BAD_PARAM;
    if (spx_client.singleton)
        return PMIX_ERR_NOT_SUPPORTED; /* no server to run the collective */
    struct grp_req *r = calloc(1, sizeof(*r));
    if (!r)
        return PMIX_ERR_NOMEM;
    r->op = op;
    memcpy(r->id, grp, strlen(grp) + 1);
    r->info_cb = info_cb;
    r->op_cb = op_cb;
    r->cbdata = cbdata;
    pmix_proc_t *expanded = NULL;
    size_t nexp = 0;
    pmix_status_t rc = op == SPX_GRP_OP_CONSTRUCT || op == SPX_GRP_OP_INVITE
                           ? spx_client_group_expand(procs, nprocs, &expanded, &nexp)
                           : PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) {
        free(r);
        return rc;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, op);
    spx_buf_push_str(&b, grp);
    if (expanded)
        spx_codec_push_proc_array(&b, expanded, nexp);
    else
        spx_codec_push_proc_array(&b, procs, procs ? nprocs : 0);
    spx_codec_push_info_array(&b, info, ninfo);
    free(expanded);
    rc = spx_buf_failed(&b) ? PMIX_ERR_NOMEM
                            : spx_client_request(SPX_MSG_GROUP, &b, group_reply, r);
    spx_buf_fini(&b);
    if (rc != PMIX_SUCCESS)
        free(r);
    return rc;
}

/* ---- the blocking forms ---- */

struct info_wait {
    spx_wait_t wait;
    pmix_info_t *results;       /* copy handed to the caller */
    size_t nresults;
};

static void info_wait_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct info_wait *w = cbdata;
    if (status == PMIX_SUCCESS && ninfo > 0 &&
        spx_info_array_dup(&w->results, info, ninfo) == PMIX_SUCCESS)
        w->nresults = ninfo;
    else if (status == PMIX_SUCCESS && ninfo > 0)
        status = PMIX_ERR_NOMEM;
    if (release_fn)
        release_fn(release_cbdata);
    spx_wait_signal(&w->wait, status);
}

static void op_wait_cb(pmix_status_t status, void *cbdata)
{
    spx_wait_signal(cbdata, status);
}

pmix_status_t spx_client_group_wait_results(const char *name, uint8_t op, const char grp[],
                                            const pmix_proc_t procs[], size_t nprocs,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_info_t **results, size_t *nresults)
{
    if (results)
        *results = NULL;
    if (nresults)
        *nresults = 0;
    pmix_status_t rc = spx_progress_guard(name);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (op == SPX_GRP_OP_CONSTRUCT && spx_client_initialized() && grp && grp[0] &&
        strnlen(grp, PMIX_MAX_NSLEN + 1) <= PMIX_MAX_NSLEN && procs && nprocs > 0 &&
        (info || ninfo == 0)) {
        /* the whole namespace: through shared memory when the server offers it */
        pmix_proc_t *expanded = NULL;
        size_t nexp = 0;
        if (spx_client_group_expand(procs, nprocs, &expanded, &nexp) == PMIX_SUCCESS) {
            uint8_t *outcome = NULL;
            size_t noutcome = 0;
            rc = expanded ? spx_client_group_construct_shm(grp, expanded, nexp, info, ninfo,
                                                           &outcome, &noutcome)
                          : spx_client_group_construct_shm(grp, procs, nprocs, info, ninfo,
                                                           &outcome, &noutcome);
            free(expanded);
            if (rc == PMIX_SUCCESS) /* outcome taken */
                return spx_client_group_take_outcome(outcome, noutcome, results, nresults);
            if (rc != SPX_GSHM_RETRY)
                return rc;
        }
    }
    struct info_wait w = {.results = NULL};
    spx_wait_init(&w.wait);
    rc = spx_client_group_send(op, grp, procs, nprocs, info, ninfo, info_wait_cb, NULL, &w);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&w.wait);
    spx_wait_fini(&w.wait);
    if (rc == PMIX_SUCCESS && results && nresults) {
        *results = w.results;
        *nresults = w.nresults;
    } else {
        spx_info_array_free(w.results, w.nresults);
    }
    return rc;
}

pmix_status_t spx_client_group_wait(const char *name, uint8_t op, const char grp[],
                                    const pmix_info_t info[], size_t ninfo)
{
    pmix_status_t rc = spx_progress_guard(name);
    if (rc != PMIX_SUCCESS)
        return rc;
    spx_wait_t w;
    spx_wait_init(&w);
    rc = spx_client_group_send(op, grp, NULL, 0, info, ninfo, NULL, op_wait_cb, &w);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&w);
    spx_wait_fini(&w);
    return rc;
}

/* ---- construct / destruct ---- */

SPX_EXPORT pmix_status_t PMIx_Group_construct_nb(const char grp[], const pmix_proc_t procs[],
                                                 size_t nprocs, const pmix_info_t info[],
                                                 size_t ninfo, pmix_info_cbfunc_t cbfunc,
                                                 void *cbdata)
{
    /* cbfunc may be NULL: the outcome then comes only through events */
    return spx_client_group_send(SPX_GRP_OP_CONSTRUCT, grp, procs, nprocs, info, ninfo, cbfunc,
                                 NULL, cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Group_destruct_nb(const char grp[], const pmix_info_t info[],
                                                size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                                void *cbdata)
{
    /* cbfunc may be NULL (fire and forget) */
    return spx_client_group_send(SPX_GRP_OP_DESTRUCT, grp, NULL, 0, info, ninfo, NULL, cbfunc,
                                 cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Group_construct(const char grp[], const pmix_proc_t procs[],
                                              size_t nprocs, const pmix_info_t directives[],
                                              size_t ndirs, pmix_info_t **results,
                                              size_t *nresults)
{
    return spx_client_group_wait_results("PMIx_Group_construct", SPX_GRP_OP_CONSTRUCT, grp, procs,
                                         nprocs, directives, ndirs, results, nresults);
}

SPX_EXPORT pmix_status_t PMIx_Group_destruct(const char grp[], const pmix_info_t info[],
                                             size_t ninfo)
{
    return spx_client_group_wait("PMIx_Group_destruct", SPX_GRP_OP_DESTRUCT, grp, info, ninfo);
}

/* ---- invite / join / leave ---- */

SPX_EXPORT pmix_status_t PMIx_Group_invite_nb(const char grp[], const pmix_proc_t procs[],
                                              size_t nprocs, const pmix_info_t info[],
                                              size_t ninfo, pmix_info_cbfunc_t cbfunc,
                                              void *cbdata)
{
    if (!cbfunc)
        return PMIX_ERR_BAD_PARAM;
    return spx_client_group_send(SPX_GRP_OP_INVITE, grp, procs, nprocs, info, ninfo, cbfunc, NULL,
                                 cbdata);
}

/* The leader as the request names it: none when NULL or without a namespace. */
static const pmix_proc_t *named_leader(const pmix_proc_t *leader)
{
    return leader && leader->nspace[0] ? leader : NULL;
}

SPX_EXPORT pmix_status_t PMIx_Group_join_nb(const char grp[], const pmix_proc_t *leader,
                                            pmix_group_opt_t opt, const pmix_info_t info[],
                                            size_t ninfo, pmix_info_cbfunc_t cbfunc,
                                            void *cbdata)
{
    /* cbfunc may be NULL: an invitee accepting from its PMIX_GROUP_INVITED
     * handler learns the outcome from PMIX_GROUP_CONSTRUCT_COMPLETE/_ABORT */
    if (opt != PMIX_GROUP_ACCEPT && opt != PMIX_GROUP_DECLINE)
        return PMIX_ERR_BAD_PARAM;
    const pmix_proc_t *l = named_leader(leader);
    uint8_t op = opt == PMIX_GROUP_ACCEPT ? SPX_GRP_OP_JOIN_ACCEPT : SPX_GRP_OP_JOIN_DECLINE;
    return spx_client_group_send(op, grp, l, l ? 1 : 0, info, ninfo, cbfunc, NULL, cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Group_leave_nb(const char grp[], const pmix_info_t info[],
                                             size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    /* cbfunc may be NULL (fire and forget) */
    return spx_client_group_send(SPX_GRP_OP_LEAVE, grp, NULL, 0, info, ninfo, NULL, cbfunc,
                                 cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Group_invite(const char grp[], const pmix_proc_t procs[],
                                           size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                           pmix_info_t **results, size_t *nresult)
{
    return spx_client_group_wait_results("PMIx_Group_invite", SPX_GRP_OP_INVITE, grp, procs,
                                         nprocs, info, ninfo, results, nresult);
}

SPX_EXPORT pmix_status_t PMIx_Group_join(const char grp[], const pmix_proc_t *leader,
                                         pmix_group_opt_t opt, const pmix_info_t info[],
                                         size_t ninfo, pmix_info_t **results, size_t *nresult)
{
    if (results)
        *results = NULL;
    if (nresult)
        *nresult = 0;
    if (opt != PMIX_GROUP_ACCEPT && opt != PMIX_GROUP_DECLINE)
        return PMIX_ERR_BAD_PARAM;
    const pmix_proc_t *l = named_leader(leader);
    uint8_t op = opt == PMIX_GROUP_ACCEPT ? SPX_GRP_OP_JOIN_ACCEPT : SPX_GRP_OP_JOIN_DECLINE;
    return spx_client_group_wait_results("PMIx_Group_join", op, grp, l, l ? 1 : 0, info, ninfo,
                                         results, nresult);
}

SPX_EXPORT pmix_status_t PMIx_Group_leave(const char grp[], const pmix_info_t info[],
                                          size_t ninfo)
{
    return spx_client_group_wait("PMIx_Group_leave", SPX_GRP_OP_LEAVE, grp, info, ninfo);
}

/* ---- what the handlers of group events decided ---- */

static void ignore_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    (void)status;
    (void)payload;
    (void)arg;
}

void spx_client_group_event_done(pmix_status_t status, const pmix_proc_t *source,
                                 const pmix_info_t *info, size_t ninfo, bool abort, bool lead)
{
    uint8_t op;
    if (status == PMIX_GROUP_INVITE_ACCEPTED || status == PMIX_GROUP_INVITE_DECLINED)
        op = abort ? SPX_GRP_OP_ABORT : SPX_GRP_OP_ANSWER_SEEN;
    else if (status == PMIX_GROUP_LEADER_FAILED)
        op = abort ? SPX_GRP_OP_ABORT : lead ? SPX_GRP_OP_LEAD : SPX_GRP_OP_NO_LEAD;
    else
        return;
    const pmix_info_t *id = spx_info_find(info, ninfo, PMIX_GROUP_ID);
    if (!id || id->value.type != PMIX_STRING || !id->value.data.string || spx_client.singleton)
        return;
    /* after a leader failure, the participants are the event's custom range;
     * a selection message names the failed leader (the source) first */
    const pmix_proc_t *procs = NULL;
    size_t nprocs = 0;
    const pmix_info_t *range = spx_info_find(info, ninfo, PMIX_EVENT_CUSTOM_RANGE);
    if (status == PMIX_GROUP_LEADER_FAILED && range && range->value.type == PMIX_DATA_ARRAY &&
        range->value.data.darray && range->value.data.darray->type == PMIX_PROC) {
        procs = range->value.data.darray->array;
        nprocs = range->value.data.darray->size;
    }
    pmix_proc_t *sel = NULL;
    if (op == SPX_GRP_OP_LEAD || op == SPX_GRP_OP_NO_LEAD) {
        if (!source || !(sel = malloc((nprocs + 1) * sizeof(*sel))))
            return;
        sel[0] = *source;
        if (nprocs)
            memcpy(sel + 1, procs, nprocs * sizeof(*sel));
        procs = sel;
        nprocs++;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, op);
    spx_buf_push_str(&b, id->value.data.string);
    spx_codec_push_proc_array(&b, procs, nprocs);
    free(sel);
    spx_codec_push_info_array(&b, NULL, 0);
    if (spx_buf_failed(&b) ||
        spx_client_request(SPX_MSG_GROUP, &b, ignore_reply, NULL) != PMIX_SUCCESS)
        spx_warn("group %s: could not tell the server what the handlers decided",
                 id->value.data.string);
    spx_buf_fini(&b);
}
