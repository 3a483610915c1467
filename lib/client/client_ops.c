/* client_ops.c - client calls that are one request and one reply: Abort,
 * Publish, Unpublish, Lookup, Job_control (Notify_event: client_notify.c).
 *
 * Each public call encodes its arguments on the caller's thread into a
 * payload, then submit() shifts the request to the progress thread; the reply
 * handler decodes the answer and calls the user back. A NULL callback makes the
 * call blocking: it waits on a spx_wait_t (after the WOULD_BLOCK guard).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/log.h"

/* What a reply decoder hands back besides the status. */
struct op_result {
    pmix_info_t *info;   /* owned until handed over */
    size_t ninfo;
    pmix_pdata_t *pdata; /* owned */
    size_t npdata;
};

typedef void (*op_done_f)(pmix_status_t status, struct op_result *res, void *arg);

struct op_req {
    uint8_t type;
    spx_buf_t payload;
    bool reply_has_info;  /* status then info[] */
    bool reply_has_pdata; /* status then pdata list */
    op_done_f done;
    void *arg;
};

static void op_result_fini(struct op_result *res)
{
    if (res->info)
        PMIX_INFO_FREE(res->info, res->ninfo);
    if (res->pdata)
        PMIX_PDATA_FREE(res->pdata, res->npdata);
    memset(res, 0, sizeof(*res));
}

static int pull_pdata(spx_buf_t *b, struct op_result *res)
{
    uint32_t n = spx_buf_pull_u32(b);
    if (spx_buf_failed(b) || n > SPX_BUF_MAX_COUNT || n > spx_buf_remaining(b)) {
        spx_buf_set_error(b, EBADMSG);
        return -1;
    }
    if (n == 0)
        return 0;
    PMIX_PDATA_CREATE(res->pdata, n);
    if (!res->pdata)
        return -1;
    res->npdata = n;
    for (uint32_t i = 0; i < n; i++) {
        spx_codec_pull_proc(b, &res->pdata[i].proc);
        spx_buf_pull_str_into(b, res->pdata[i].key, sizeof(res->pdata[i].key));
        if (spx_buf_failed(b) || spx_codec_pull_value(b, &res->pdata[i].value) != 0)
            return -1;
    }
    return 0;
}

static void op_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct op_req *r = arg;
    struct op_result res = {0};
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (r->reply_has_info && !spx_buf_failed(payload))
            spx_codec_pull_info_array(payload, &res.info, &res.ninfo);
        if (r->reply_has_pdata && !spx_buf_failed(payload))
            pull_pdata(payload, &res);
        if (spx_buf_failed(payload) || spx_buf_finish(payload) != 0) {
            op_result_fini(&res);
            status = PMIX_ERR_UNPACK_FAILURE;
            spx_client_conn_fail("malformed reply");
        }
    }
    r->done(status, &res, r->arg);
    op_result_fini(&res);
    spx_buf_fini(&r->payload);
    free(r);
}

static void op_on_thread(void *arg)
{
    struct op_req *r = arg;
    pmix_status_t rc = spx_client_request(r->type, &r->payload, op_reply, r);
    if (rc != PMIX_SUCCESS) {
        struct op_result res = {0};
        r->done(rc, &res, r->arg);
        spx_buf_fini(&r->payload);
        free(r);
    }
}

/* payload: bytes taken. Returns PMIX_SUCCESS when the request is on its way (done will
 * run exactly once), else an error (done never runs). */
static pmix_status_t op_submit(uint8_t type, spx_buf_t *payload, bool has_info, bool has_pdata,
                               op_done_f done, void *arg)
{
    if (spx_buf_failed(payload)) {
        spx_buf_fini(payload);
        return PMIX_ERR_NOMEM;
    }
    if (spx_client.singleton) {
        spx_buf_fini(payload);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    struct op_req *r = calloc(1, sizeof(*r));
    if (!r) {
        spx_buf_fini(payload);
        return PMIX_ERR_NOMEM;
    }
    r->type = type;
    r->payload = *payload;
    spx_buf_init(payload);
    r->reply_has_info = has_info;
    r->reply_has_pdata = has_pdata;
    r->done = done;
    r->arg = arg;
    if (spx_progress_shift(op_on_thread, r) != 0) {
        spx_buf_fini(&r->payload);
        free(r);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return PMIX_SUCCESS;
}

/* ---- status-only operations ---- */

struct op_cb {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    spx_wait_t wait; /* blocking form */
};

static void op_cb_done(pmix_status_t status, struct op_result *res, void *arg)
{
    (void)res;
    struct op_cb *cb = arg;
    if (cb->cbfunc) {
        cb->cbfunc(status, cb->cbdata);
        free(cb);
    } else {
        spx_wait_signal(&cb->wait, status);
    }
}

/* Runs a status-only operation, blocking when cbfunc is NULL. */
static pmix_status_t op_status(const char *call, uint8_t type, spx_buf_t *payload,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!cbfunc) {
        pmix_status_t rc = spx_progress_guard(call);
        if (rc != PMIX_SUCCESS) {
            spx_buf_fini(payload);
            return rc;
        }
    }
    struct op_cb *cb = calloc(1, sizeof(*cb));
    if (!cb) {
        spx_buf_fini(payload);
        return PMIX_ERR_NOMEM;
    }
    cb->cbfunc = cbfunc;
    cb->cbdata = cbdata;
    if (!cbfunc)
        spx_wait_init(&cb->wait);
    pmix_status_t rc = op_submit(type, payload, false, false, op_cb_done, cb);
    if (rc == PMIX_SUCCESS && !cbfunc)
        rc = spx_wait_block(&cb->wait);
    if (!cbfunc) {
        spx_wait_fini(&cb->wait);
        free(cb);
    } else if (rc != PMIX_SUCCESS) {
        free(cb);
    }
    return rc;
}

/* Directives honoured by the calls below (pubsub_table.c reads them). Publish
 * arrays also carry user data: for them only reserved keys count as
 * directives. */
static const char *const publish_directives[] = {PMIX_RANGE, PMIX_PERSISTENCE, NULL};
static const char *const unpublish_directives[] = {PMIX_RANGE, NULL};
static const char *const lookup_directives[] = {PMIX_RANGE, PMIX_WAIT, NULL};

SPX_EXPORT pmix_status_t PMIx_Abort(int status, const char msg[], pmix_proc_t procs[],
                                    size_t nprocs)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    pmix_status_t rc = spx_progress_guard("PMIx_Abort");
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!procs && nprocs > 0)
        return PMIX_ERR_BAD_PARAM;
    if (spx_client.singleton) {
        fprintf(stderr, "PMIx_Abort (singleton %s.%u, status %d): %s\n", spx_client.myproc.nspace,
                spx_client.myproc.rank, status, msg ? msg : "");
        _exit(status ? status : 1);
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, status);
    spx_buf_push_str(&b, msg);
    spx_codec_push_proc_array(&b, procs, nprocs);
    return op_status("PMIx_Abort", SPX_MSG_ABORT, &b, NULL, NULL);
}

SPX_EXPORT pmix_status_t PMIx_Publish_nb(const pmix_info_t info[], size_t ninfo,
                                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!info || ninfo == 0)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t drc =
        spx_directives_check_reserved("PMIx_Publish", info, ninfo, publish_directives);
    if (drc != PMIX_SUCCESS)
        return drc;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_info_array(&b, info, ninfo);
    return op_status("PMIx_Publish_nb", SPX_MSG_PUBLISH, &b, cbfunc, cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    pmix_status_t rc = spx_progress_guard("PMIx_Publish");
    return rc != PMIX_SUCCESS ? rc : PMIx_Publish_nb(info, ninfo, NULL, NULL);
}

static void push_keys(spx_buf_t *b, char **keys)
{
    uint32_t n = 0;
    while (keys && keys[n])
        n++;
    spx_buf_push_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        spx_buf_push_str(b, keys[i]);
}

SPX_EXPORT pmix_status_t PMIx_Unpublish_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                           pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!info && ninfo > 0)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t drc =
        spx_directives_check("PMIx_Unpublish", info, ninfo, unpublish_directives);
    if (drc != PMIX_SUCCESS)
        return drc;
    spx_buf_t b;
    spx_buf_init(&b);
    push_keys(&b, keys);
    spx_codec_push_info_array(&b, info, ninfo);
    return op_status("PMIx_Unpublish_nb", SPX_MSG_UNPUBLISH, &b, cbfunc, cbdata);
}

SPX_EXPORT pmix_status_t PMIx_Unpublish(char **keys, const pmix_info_t info[], size_t ninfo)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    pmix_status_t rc = spx_progress_guard("PMIx_Unpublish");
    return rc != PMIX_SUCCESS ? rc : PMIx_Unpublish_nb(keys, info, ninfo, NULL, NULL);
}

/* ---- lookup ---- */

struct lookup_cb {
    pmix_lookup_cbfunc_t cbfunc;
    void *cbdata;
    spx_wait_t wait;      /* blocking form */
    pmix_pdata_t *target; /* blocking form: caller's array to fill */
    size_t ntarget;
};

static void lookup_done(pmix_status_t status, struct op_result *res, void *arg)
{
    struct lookup_cb *cb = arg;
    if (cb->cbfunc) {
        cb->cbfunc(status, res->pdata, res->npdata, cb->cbdata);
        free(cb);
        return;
    }
    size_t found = 0;
    for (size_t i = 0; status == PMIX_SUCCESS && i < res->npdata; i++) {
        for (size_t k = 0; k < cb->ntarget; k++) {
            if (PMIX_CHECK_KEY(&cb->target[k], res->pdata[i].key)) {
                cb->target[k].proc = res->pdata[i].proc;
                PMIx_Value_xfer(&cb->target[k].value, &res->pdata[i].value);
                found++;
            }
        }
    }
    if (status == PMIX_SUCCESS && found == 0)
        status = PMIX_ERR_NOT_FOUND;
    spx_wait_signal(&cb->wait, status);
}

SPX_EXPORT pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                        pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!cbfunc || !keys || !keys[0] || (!info && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t drc = spx_directives_check("PMIx_Lookup_nb", info, ninfo, lookup_directives);
    if (drc != PMIX_SUCCESS)
        return drc;
    struct lookup_cb *cb = calloc(1, sizeof(*cb));
    if (!cb)
        return PMIX_ERR_NOMEM;
    cb->cbfunc = cbfunc;
    cb->cbdata = cbdata;
    spx_buf_t b;
    spx_buf_init(&b);
    push_keys(&b, keys);
    spx_codec_push_info_array(&b, info, ninfo);
    pmix_status_t rc = op_submit(SPX_MSG_LOOKUP, &b, false, true, lookup_done, cb);
    if (rc != PMIX_SUCCESS)
        free(cb);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata, const pmix_info_t info[],
                                     size_t ninfo)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    pmix_status_t rc = spx_progress_guard("PMIx_Lookup");
    if (rc != PMIX_SUCCESS)
        return rc;
    if (!data || ndata == 0 || (!info && ninfo > 0))
        return PMIX_ERR_BAD_PARAM;
    if ((rc = spx_directives_check("PMIx_Lookup", info, ninfo, lookup_directives)) !=
        PMIX_SUCCESS)
        return rc;
    char **keys = calloc(ndata + 1, sizeof(char *));
    if (!keys)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < ndata; i++)
        keys[i] = data[i].key;
    struct lookup_cb cb = {.target = data, .ntarget = ndata};
    spx_wait_init(&cb.wait);
    spx_buf_t b;
    spx_buf_init(&b);
    push_keys(&b, keys);
    free(keys);
    spx_codec_push_info_array(&b, info, ninfo);
    rc = op_submit(SPX_MSG_LOOKUP, &b, false, true, lookup_done, &cb);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&cb.wait);
    spx_wait_fini(&cb.wait);
    return rc;
}

/* ---- job control ---- */

/* A singleton has no server to record cleanup registrations: they are accepted
 * (the process removes nothing) so that MPI_Init-style callers proceed. */
static bool only_cleanup(const pmix_info_t *dirs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!PMIX_CHECK_KEY(&dirs[i], PMIX_REGISTER_CLEANUP) &&
            !PMIX_CHECK_KEY(&dirs[i], PMIX_REGISTER_CLEANUP_DIR) &&
            !PMIX_CHECK_KEY(&dirs[i], PMIX_CLEANUP_RECURSIVE) &&
            !PMIX_CHECK_KEY(&dirs[i], PMIX_CLEANUP_EMPTY) &&
            !PMIX_CHECK_KEY(&dirs[i], PMIX_CLEANUP_IGNORE) &&
            !PMIX_CHECK_KEY(&dirs[i], PMIX_CLEANUP_LEAVE_TOPDIR))
            return false;
    return n > 0;
}

struct singleton_cb {
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
};

static void singleton_jobctl_on_thread(void *arg)
{
    struct singleton_cb *s = arg;
    s->cbfunc(PMIX_SUCCESS, NULL, 0, s->cbdata, NULL, NULL);
    free(s);
}

struct info_cb {
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    spx_wait_t wait;       /* blocking form */
    pmix_info_t **results; /* blocking form: handed over */
    size_t *nresults;
};

static void info_release(void *cbdata)
{
    struct op_result *res = cbdata;
    op_result_fini(res);
    free(res);
}

static void info_cb_done(pmix_status_t status, struct op_result *res, void *arg)
{
    struct info_cb *cb = arg;
    if (cb->cbfunc) {
        struct op_result *keep = malloc(sizeof(*keep));
        if (!keep) {
            cb->cbfunc(PMIX_ERR_NOMEM, NULL, 0, cb->cbdata, NULL, NULL);
        } else {
            *keep = *res;
            memset(res, 0, sizeof(*res));
            cb->cbfunc(status, keep->info, keep->ninfo, cb->cbdata, info_release, keep);
        }
        free(cb);
        return;
    }
    if (cb->results) {
        *cb->results = res->info;
        *cb->nresults = res->ninfo;
        res->info = NULL;
        res->ninfo = 0;
    }
    spx_wait_signal(&cb->wait, status);
}

SPX_EXPORT pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t ntargets,
                                             const pmix_info_t directives[], size_t ndirs,
                                             pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if ((!targets && ntargets > 0) || (!directives && ndirs > 0))
        return PMIX_ERR_BAD_PARAM;
    if (!cbfunc)
        return PMIx_Job_control(targets, ntargets, directives, ndirs, NULL, NULL);
    if (spx_client.singleton && only_cleanup(directives, ndirs)) {
        struct singleton_cb *s = malloc(sizeof(*s));
        if (!s)
            return PMIX_ERR_NOMEM;
        s->cbfunc = cbfunc;
        s->cbdata = cbdata;
        if (spx_progress_shift(singleton_jobctl_on_thread, s) != 0) {
            free(s);
            return PMIX_ERR_NOT_AVAILABLE;
        }
        return PMIX_SUCCESS;
    }
    struct info_cb *cb = calloc(1, sizeof(*cb));
    if (!cb)
        return PMIX_ERR_NOMEM;
    cb->cbfunc = cbfunc;
    cb->cbdata = cbdata;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, targets, ntargets);
    spx_codec_push_info_array(&b, directives, ndirs);
    pmix_status_t rc = op_submit(SPX_MSG_JOBCTL, &b, false, false, info_cb_done, cb);
    if (rc != PMIX_SUCCESS)
        free(cb);
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t ntargets,
                                          const pmix_info_t directives[], size_t ndirs,
                                          pmix_info_t **results, size_t *nresults)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    pmix_status_t rc = spx_progress_guard("PMIx_Job_control");
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((!targets && ntargets > 0) || (!directives && ndirs > 0))
        return PMIX_ERR_BAD_PARAM;
    if (results) {
        *results = NULL;
        *nresults = 0;
    }
    if (spx_client.singleton && only_cleanup(directives, ndirs))
        return PMIX_SUCCESS;
    struct info_cb cb = {.results = results, .nresults = nresults};
    spx_wait_init(&cb.wait);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, targets, ntargets);
    spx_codec_push_info_array(&b, directives, ndirs);
    rc = op_submit(SPX_MSG_JOBCTL, &b, false, false, info_cb_done, &cb);
    if (rc == PMIX_SUCCESS)
        rc = spx_wait_block(&cb.wait);
    spx_wait_fini(&cb.wait);
    return rc;
}

SPX_EXPORT void PMIx_Progress(void)
{
    /* nothing to do: the progress thread always runs */
}
