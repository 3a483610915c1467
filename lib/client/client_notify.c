/* client_notify.c - PMIx_Notify_event.
 *
 * In a server process the call belongs to the server (its notify, reached
 * through util/role.h: spx_server_notify,
 * lib/server/events.c). Elsewhere, as in OpenPMIx, the notifier's own
 * handlers run once for its event (source: the given one, or this process)
 * whenever the process is in the event's range: always for
 * PMIX_RANGE_PROC_LOCAL and the ranges beyond it (LOCAL, NAMESPACE, SESSION,
 * GLOBAL, RM, UNDEF), for PMIX_RANGE_CUSTOM when PMIX_EVENT_CUSTOM_RANGE names
 * this process (itself, its namespace with rank WILDCARD, or through a group
 * id it constructed), never for PMIX_RANGE_INVALID. A range beyond the process
 * also goes to the server as a NOTIFY, which delivers it to the *other*
 * processes in range (never back to the notifier: no second delivery); the
 * own run starts once the NOTIFY is on its way, and the call completes with
 * the server's answer. PROC_LOCAL stays in the process, and is kept for
 * handlers registered later (client_evcache.c) unless PMIX_EVENT_DO_NOT_CACHE
 * is true; the call then completes with PMIX_SUCCESS once the run started. A
 * singleton has no server: only its own run. A tool's events are refused by
 * its server (PMIX_ERR_NOT_SUPPORTED), so a tool runs its own handlers for
 * PROC_LOCAL only.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/event_local.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/role.h"

/* The directives PMIx_Notify_event honours (lib/server/events.c and relay.c
 * read them too). The array also carries user data: only reserved keys count
 * as directives. */
static const char *const notify_directives[] = {PMIX_EVENT_CUSTOM_RANGE, PMIX_EVENT_AFFECTED_PROC,
                                                PMIX_EVENT_NON_DEFAULT, PMIX_EVENT_DO_NOT_CACHE,
                                                NULL};

struct notify_req {
    pmix_status_t status;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info; /* owned copy for the own run; NULL once it ran */
    size_t ninfo;
    bool run_here;     /* this process is in range: its handlers run */
    bool send;         /* payload goes to the server */
    spx_buf_t payload; /* the NOTIFY */
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    spx_wait_t wait;   /* used when cbfunc is NULL */
};

static void req_free(struct notify_req *n)
{
    spx_info_array_free(n->info, n->ninfo);
    spx_buf_fini(&n->payload);
    free(n);
}

/* Completes the call (progress thread), exactly once. */
static void req_done(struct notify_req *n, pmix_status_t rc)
{
    if (n->cbfunc) {
        n->cbfunc(rc, n->cbdata);
        req_free(n);
    } else {
        spx_wait_signal(&n->wait, rc); /* the caller frees n */
    }
}

static void notify_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (spx_buf_failed(payload) || spx_buf_finish(payload) != 0) {
            status = PMIX_ERR_UNPACK_FAILURE;
            spx_client_conn_fail("malformed reply");
        }
    }
    req_done(arg, status);
}

static void notify_on_thread(void *arg)
{
    struct notify_req *n = arg;
    if (n->send) {
        pmix_status_t rc = spx_client_request(SPX_MSG_NOTIFY, &n->payload, notify_reply, n);
        if (rc != PMIX_SUCCESS) { /* nothing happened: no own run either */
            req_done(n, rc);
            return;
        }
    }
    /* n stays ours until notify_reply (or req_done below) */
    if (n->run_here)
        spx_event_local_raised(n->status, &n->source, n->range, n->info, n->ninfo, 0);
    spx_info_array_free(n->info, n->ninfo);
    n->info = NULL;
    if (!n->send)
        req_done(n, PMIX_SUCCESS);
}

/* Does PMIX_EVENT_CUSTOM_RANGE in info name this process? Caller's thread. */
static bool custom_names_me(const pmix_info_t *info, size_t ninfo)
{
    const pmix_info_t *r = spx_info_find(info, ninfo, PMIX_EVENT_CUSTOM_RANGE);
    const pmix_proc_t *procs = NULL;
    size_t n = 0;
    if (r && r->value.type == PMIX_PROC && r->value.data.proc) {
        procs = r->value.data.proc;
        n = 1;
    } else if (r && r->value.type == PMIX_DATA_ARRAY && r->value.data.darray &&
               r->value.data.darray->type == PMIX_PROC && r->value.data.darray->array) {
        procs = r->value.data.darray->array;
        n = r->value.data.darray->size;
    }
    pmix_proc_t *expanded = NULL; /* group ids replaced by their members */
    size_t nexp = 0;
    if (n && spx_client_group_expand(procs, n, &expanded, &nexp) == PMIX_SUCCESS && expanded) {
        procs = expanded;
        n = nexp;
    }
    bool named = false;
    for (size_t i = 0; i < n && !named; i++)
        named = spx_proc_match(&procs[i], &spx_client.myproc);
    free(expanded);
    return named;
}

static bool in_own_range(pmix_data_range_t range, const pmix_info_t *info, size_t ninfo)
{
    if (range == PMIX_RANGE_PROC_LOCAL)
        return true;
    if (spx_client.tool || range == PMIX_RANGE_INVALID)
        return false;
    return range != PMIX_RANGE_CUSTOM || custom_names_me(info, ninfo);
}

SPX_EXPORT pmix_status_t PMIx_Notify_event(pmix_status_t status, const pmix_proc_t *source,
                                           pmix_data_range_t range, const pmix_info_t info[],
                                           size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!info && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc =
        spx_directives_check_reserved("PMIx_Notify_event", info, ninfo, notify_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!spx_client_initialized()) {
        spx_role_notify_f server_notify = spx_role_server_notify();
        if (spx_server_active() && server_notify)
            return server_notify(status, source, range, info, ninfo, cbfunc, cbdata);
        return PMIX_ERR_INIT;
    }
    bool run_here = in_own_range(range, info, ninfo);
    bool send = range != PMIX_RANGE_PROC_LOCAL && !spx_client.singleton;
    if (!run_here && !send)
        return PMIX_OPERATION_SUCCEEDED; /* nobody is in range */
    if (!cbfunc && (rc = spx_progress_guard("PMIx_Notify_event")) != PMIX_SUCCESS)
        return rc;
    struct notify_req *n = calloc(1, sizeof(*n));
    if (!n)
        return PMIX_ERR_NOMEM;
    spx_buf_init(&n->payload);
    n->status = status;
    n->source = source ? *source : spx_client.myproc;
    n->range = range;
    n->run_here = run_here;
    n->send = send;
    n->cbfunc = cbfunc;
    n->cbdata = cbdata;
    if (run_here && (rc = spx_info_array_dup(&n->info, info, ninfo)) != PMIX_SUCCESS) {
        req_free(n);
        return rc;
    }
    n->ninfo = n->info ? ninfo : 0;
    if (send) {
        spx_buf_push_i32(&n->payload, status);
        spx_codec_push_proc(&n->payload, &n->source);
        spx_buf_push_u8(&n->payload, range);
        spx_codec_push_info_array(&n->payload, info, ninfo);
        if (spx_buf_failed(&n->payload)) {
            req_free(n);
            return PMIX_ERR_NOMEM;
        }
    }
    if (!cbfunc)
        spx_wait_init(&n->wait);
    if (spx_progress_shift(notify_on_thread, n) != 0) {
        if (!cbfunc)
            spx_wait_fini(&n->wait);
        req_free(n);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    if (cbfunc)
        return PMIX_SUCCESS;
    rc = spx_wait_block(&n->wait);
    spx_wait_fini(&n->wait);
    req_free(n);
    return rc;
}
