/* client_event.c - event handlers of a process and the runs of their chain.
 *
 * Handlers live in one list on the progress thread, each with a category that
 * fixes its place in the chain: FIRST, then handlers for one code, then for
 * several codes, then default handlers (no codes), then LAST; PREPEND puts a
 * handler at the front of its category. An event (pushed by the server,
 * raised by this process - client_notify.c -, or passed on by the server of a
 * server process - lib/server/events.c) runs the chain: each handler gets a
 * completion callback; calling it with PMIX_EVENT_ACTION_COMPLETE ends the
 * chain, anything else moves on to the next handler (on a later loop turn,
 * never re-entrantly). As in OpenPMIx, a true PMIX_EVENT_NON_DEFAULT in the
 * event's info keeps the default handlers out (FIRST and LAST handlers
 * registered for no code still take it).
 * A handler registered later gets the kept PROC_LOCAL events it takes
 * (client_evcache.c) before its registration completes, each on that handler
 * alone: a handler that already ran for an event never gets it again.
 * A handler registered with PMIX_EVENT_RETURN_OBJECT finds the very pointer it
 * registered appended to the info array of each call. When the chain of a
 * group event ends, client_group.c tells the server what the handlers decided
 * (an invitation's leader acknowledges each answer, or aborts).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "client/client.h"
#include "client/event_local.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/role.h"

enum hdlr_category { CAT_FIRST, CAT_SINGLE, CAT_MULTI, CAT_DEFAULT, CAT_LAST };

struct spx_evhdlr {
    TAILQ_ENTRY(spx_evhdlr) link; /* in spx_client.handlers */
    size_t id;
    enum hdlr_category cat;
    pmix_status_t *codes; /* owned */
    size_t ncodes;
    pmix_notification_fn_t fn;
    void *return_object;  /* PMIX_EVENT_RETURN_OBJECT */
    bool has_return_object;
};

static bool hdlr_matches(const struct spx_evhdlr *h, pmix_status_t status)
{
    if (h->ncodes == 0)
        return true;
    for (size_t i = 0; i < h->ncodes; i++)
        if (h->codes[i] == status)
            return true;
    return false;
}

/* Does h take this event? nondefault: PMIX_EVENT_NON_DEFAULT was true. */
static bool hdlr_takes(const struct spx_evhdlr *h, pmix_status_t status, bool nondefault)
{
    if (nondefault && h->cat == CAT_DEFAULT)
        return false;
    return hdlr_matches(h, status);
}

static void hdlr_free(struct spx_evhdlr *h)
{
    free(h->codes);
    free(h);
}

void spx_client_event_clear(void)
{
    struct spx_evhdlr *h;
    while ((h = TAILQ_FIRST(&spx_client.handlers)) != NULL) {
        TAILQ_REMOVE(&spx_client.handlers, h, link);
        hdlr_free(h);
    }
    spx_evcache_clear();
}

void spx_event_local_server_done(void)
{
    if (!spx_client_initialized())
        spx_client_event_clear();
}

/* Inserts by category; prepend puts h first among its category, otherwise it
 * goes last among its category. */
static void hdlr_insert(struct spx_evhdlr *h, bool prepend)
{
    struct spx_evhdlr *at;
    TAILQ_FOREACH(at, &spx_client.handlers, link)
        if (at->cat > h->cat || (at->cat == h->cat && prepend))
            break;
    if (at)
        TAILQ_INSERT_BEFORE(at, h, link);
    else
        TAILQ_INSERT_TAIL(&spx_client.handlers, h, link);
}

/* ---- running a chain ---- */

struct event_run {
    pmix_status_t status;
    pmix_proc_t source;
    pmix_info_t *info; /* owned; one extra slot for the return object */
    size_t ninfo;
    size_t next_id;    /* handlers with id >= next_id ... see chain_step */
    size_t *ids;       /* snapshot of matching handler ids, in chain order */
    size_t nids;
    size_t pos;
    bool abort;        /* a handler returned PMIX_GROUP_CONSTRUCT_ABORT */
    bool lead;         /* a handler returned PMIX_GROUP_LEADER (true) in its results */
    bool told;         /* the server already heard how the chain ends */
};

static void event_run_free(struct event_run *ev)
{
    if (ev->info)
        PMIX_INFO_FREE(ev->info, ev->ninfo + 1);
    free(ev->ids);
    free(ev);
}

static struct spx_evhdlr *hdlr_find(size_t id)
{
    struct spx_evhdlr *h;
    TAILQ_FOREACH(h, &spx_client.handlers, link)
        if (h->id == id)
            return h;
    return NULL;
}

static void chain_step(void *arg);

/* The chain of ev ended: whoever observes chain ends (the group code, which
 * tells the server what the handlers decided of a group event) hears it. */
static void chain_end(struct event_run *ev)
{
    if (!ev->told)
        spx_client_chain_ended(ev->status, &ev->source, ev->info, ev->ninfo, ev->abort,
                               ev->lead);
    event_run_free(ev);
}

static void chain_continue(pmix_status_t status, pmix_info_t *results, size_t nresults,
                           pmix_op_cbfunc_t cbfunc, void *thiscbdata, void *notification_cbdata)
{
    struct event_run *ev = notification_cbdata;
    /* a participant steps up as the new leader of a group whose leader failed */
    const pmix_info_t *lead = spx_info_find(results, results ? nresults : 0, PMIX_GROUP_LEADER);
    if (lead && spx_info_true(lead))
        ev->lead = true;
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, thiscbdata);
    if (status == PMIX_GROUP_CONSTRUCT_ABORT)
        ev->abort = true;
    if (status == PMIX_EVENT_ACTION_COMPLETE)
        ev->pos = ev->nids; /* ends the chain */
    if (spx_progress_shift(chain_step, ev) != 0)
        event_run_free(ev);
}

static void chain_step(void *arg)
{
    struct event_run *ev = arg;
    while (ev->pos < ev->nids) {
        struct spx_evhdlr *h = hdlr_find(ev->ids[ev->pos++]);
        if (!h)
            continue; /* deregistered meanwhile */
        size_t n = ev->ninfo;
        if (h->has_return_object) {
            /* PMIX_POINTER stores the data argument itself: the handler gets
             * exactly the pointer it registered */
            PMIX_INFO_LOAD(&ev->info[n], PMIX_EVENT_RETURN_OBJECT, h->return_object,
                           PMIX_POINTER);
            n++;
        }
        h->fn(h->id, ev->status, &ev->source, ev->info, n, NULL, 0, chain_continue, ev);
        return;
    }
    chain_end(ev);
}

/* Starts a run of the handlers that take the event, or of handler *only
 * alone. */
static void run_start(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t *info,
                      size_t ninfo, unsigned flags, const size_t *only)
{
    if ((flags & SPX_EVRUN_QUIET) && TAILQ_EMPTY(&spx_client.handlers))
        return; /* nothing to run, nobody to tell: most server processes */
    struct event_run *ev = calloc(1, sizeof(*ev));
    if (!ev)
        return;
    ev->status = status;
    if (source)
        ev->source = *source;
    bool nondefault = spx_info_flag(info, ninfo, PMIX_EVENT_NON_DEFAULT);
    size_t count = 0;
    struct spx_evhdlr *h;
    TAILQ_FOREACH(h, &spx_client.handlers, link)
        count += hdlr_takes(h, status, nondefault);
    ev->ids = count ? calloc(count, sizeof(size_t)) : NULL;
    PMIX_INFO_CREATE(ev->info, ninfo + 1);
    if ((count && !ev->ids) || !ev->info) {
        event_run_free(ev);
        return;
    }
    ev->ninfo = ninfo;
    for (size_t i = 0; i < ninfo; i++)
        PMIx_Info_xfer(&ev->info[i], &info[i]);
    TAILQ_FOREACH(h, &spx_client.handlers, link)
        if ((!only || h->id == *only) && hdlr_takes(h, status, nondefault))
            ev->ids[ev->nids++] = h->id;
    ev->told = (flags & SPX_EVRUN_QUIET) != 0;
    if (ev->nids == 0) {
        spx_debug("event %s had no handler", PMIx_Error_string(status));
        chain_end(ev);
        return;
    }
    /* Only a handler registered for this very code may abort a group from
     * it: with none, the server hears at once that the chain will not, so
     * that an invitation never waits on catch-all handlers (a language
     * binding's may need a lock the leader's blocking call holds). */
    bool specific = false;
    TAILQ_FOREACH(h, &spx_client.handlers, link)
        specific |= h->ncodes > 0 && hdlr_matches(h, status);
    if (!specific && !ev->told) {
        spx_client_chain_ended(status, &ev->source, ev->info, ev->ninfo, false, false);
        ev->told = true;
    }
    chain_step(ev);
}

void spx_event_local_run(pmix_status_t status, const pmix_proc_t *source,
                         const pmix_info_t *info, size_t ninfo, unsigned flags)
{
    run_start(status, source, info, ninfo, flags, NULL);
}

void spx_event_local_raised(pmix_status_t status, const pmix_proc_t *source,
                            pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
                            unsigned flags)
{
    if (range == PMIX_RANGE_PROC_LOCAL)
        spx_evcache_keep(status, source, info, ninfo);
    run_start(status, source, info, ninfo, flags, NULL);
}

void spx_client_event_deliver(pmix_status_t status, const pmix_proc_t *source,
                              const pmix_info_t *info, size_t ninfo)
{
    run_start(status, source, info, ninfo, 0, NULL);
}

/* The kept events a newly registered handler takes, each run on it alone:
 * as in OpenPMIx, a handler for no code (of any category) takes every kept
 * event but the PMIX_EVENT_NON_DEFAULT ones. */
static bool kept_taken_by(const struct spx_evkept *e, void *arg)
{
    const struct spx_evhdlr *h = arg;
    return h->ncodes == 0 ? !e->nondefault : hdlr_matches(h, e->status);
}

static void replay_kept(struct spx_evhdlr *h)
{
    struct spx_evkept *e;
    while ((e = spx_evcache_take(kept_taken_by, h)) != NULL) {
        run_start(e->status, &e->source, e->info, e->ninfo, SPX_EVRUN_QUIET, &h->id);
        spx_evcache_free(e);
    }
}

void spx_client_event_dispatch(spx_buf_t *payload)
{
    pmix_status_t status = spx_buf_pull_i32(payload);
    pmix_proc_t source;
    spx_codec_pull_proc(payload, &source);
    (void)spx_buf_pull_u8(payload); /* range: already applied by the server */
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    if (spx_codec_pull_info_array(payload, &info, &ninfo) != 0 || spx_buf_finish(payload) != 0) {
        if (info)
            PMIX_INFO_FREE(info, ninfo);
        spx_client_conn_fail("malformed EVENT message");
        return;
    }
    spx_client_event_deliver(status, &source, info, ninfo);
    if (info)
        PMIX_INFO_FREE(info, ninfo);
}

/* ---- registration ---- */

struct reg_req {
    struct spx_evhdlr *h;
    bool prepend;
    pmix_hdlr_reg_cbfunc_t cbfunc;
    void *cbdata;
    spx_wait_t wait; /* used when cbfunc is NULL */
    size_t id;
};

static void reg_on_thread(void *arg)
{
    struct reg_req *r = arg;
    r->h->id = spx_client.next_handler_id++;
    r->id = r->h->id;
    hdlr_insert(r->h, r->prepend);
    replay_kept(r->h); /* as OpenPMIx: before the registration completes */
    if (r->cbfunc) {
        r->cbfunc(PMIX_SUCCESS, r->id, r->cbdata);
        free(r);
    } else {
        spx_wait_signal(&r->wait, PMIX_SUCCESS);
    }
}

/* The registration directives read below. */
static const char *const register_directives[] = {PMIX_EVENT_HDLR_FIRST, PMIX_EVENT_HDLR_LAST,
                                                  PMIX_EVENT_HDLR_PREPEND,
                                                  PMIX_EVENT_RETURN_OBJECT, NULL};

SPX_EXPORT pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes,
                                                     pmix_info_t info[], size_t ninfo,
                                                     pmix_notification_fn_t evhdlr,
                                                     pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_client_initialized() && !spx_server_active())
        return PMIX_ERR_INIT;
    if (!evhdlr || (!codes && ncodes > 0) || (!info && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t drc = spx_directives_check("PMIx_Register_event_handler", info, ninfo,
                                             register_directives);
    if (drc != PMIX_SUCCESS)
        return drc;
    if (!cbfunc) {
        pmix_status_t rc = spx_progress_guard("PMIx_Register_event_handler");
        if (rc != PMIX_SUCCESS)
            return rc;
    }
    struct spx_evhdlr *h = calloc(1, sizeof(*h));
    struct reg_req *r = calloc(1, sizeof(*r));
    if (!h || !r || (ncodes && !(h->codes = malloc(ncodes * sizeof(pmix_status_t))))) {
        free(r);
        free(h);
        return PMIX_ERR_NOMEM;
    }
    if (ncodes)
        memcpy(h->codes, codes, ncodes * sizeof(pmix_status_t));
    h->ncodes = ncodes;
    h->fn = evhdlr;
    h->cat = ncodes == 0 ? CAT_DEFAULT : ncodes == 1 ? CAT_SINGLE : CAT_MULTI;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_HDLR_FIRST) && spx_info_true(&info[i]))
            h->cat = CAT_FIRST;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_HDLR_LAST) && spx_info_true(&info[i]))
            h->cat = CAT_LAST;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_HDLR_PREPEND) && spx_info_true(&info[i]))
            r->prepend = true;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_RETURN_OBJECT) &&
                 info[i].value.type == PMIX_POINTER) {
            h->return_object = info[i].value.data.ptr;
            h->has_return_object = true;
        }
    }
    r->h = h;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    if (!cbfunc)
        spx_wait_init(&r->wait);
    if (spx_progress_shift(reg_on_thread, r) != 0) {
        if (!cbfunc)
            spx_wait_fini(&r->wait);
        hdlr_free(h);
        free(r);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    if (cbfunc)
        return PMIX_SUCCESS;
    spx_wait_block(&r->wait);
    spx_wait_fini(&r->wait);
    pmix_status_t id = (pmix_status_t)r->id; /* blocking form returns the reference id */
    free(r);
    return id;
}

struct dereg_req {
    size_t id;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    spx_wait_t wait;
};

static void dereg_on_thread(void *arg)
{
    struct dereg_req *r = arg;
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    struct spx_evhdlr *h = hdlr_find(r->id);
    if (h) {
        TAILQ_REMOVE(&spx_client.handlers, h, link);
        hdlr_free(h);
        rc = PMIX_SUCCESS;
    }
    if (r->cbfunc) {
        r->cbfunc(rc, r->cbdata);
        free(r);
    } else {
        spx_wait_signal(&r->wait, rc);
    }
}

SPX_EXPORT pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref, pmix_op_cbfunc_t cbfunc,
                                                       void *cbdata)
{
    if (!spx_client_initialized() && !spx_server_active())
        return PMIX_ERR_INIT;
    if (!cbfunc) {
        pmix_status_t rc = spx_progress_guard("PMIx_Deregister_event_handler");
        if (rc != PMIX_SUCCESS)
            return rc;
    }
    struct dereg_req *r = calloc(1, sizeof(*r));
    if (!r)
        return PMIX_ERR_NOMEM;
    r->id = evhdlr_ref;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    if (!cbfunc)
        spx_wait_init(&r->wait);
    if (spx_progress_shift(dereg_on_thread, r) != 0) {
        if (!cbfunc)
            spx_wait_fini(&r->wait);
        free(r);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    if (cbfunc)
        return PMIX_SUCCESS;
    pmix_status_t rc = spx_wait_block(&r->wait);
    spx_wait_fini(&r->wait);
    free(r);
    return rc;
}

void spx_client_event_conn_lost(const pmix_proc_t *affected)
{
    if (!affected) {
        spx_client_event_deliver(PMIX_ERR_LOST_CONNECTION, &spx_client.myproc, NULL, 0);
        return;
    }
    pmix_info_t info;
    PMIx_Info_load(&info, PMIX_EVENT_AFFECTED_PROC, affected, PMIX_PROC);
    spx_client_event_deliver(PMIX_ERR_LOST_CONNECTION, &spx_client.myproc, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
}
