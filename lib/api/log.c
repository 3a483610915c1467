/* log.c - PMIx_Log and PMIx_Log_nb: the channels a process can write to
 * itself.
 *
 * Each data entry names a channel and carries the message (a string):
 *   PMIX_LOG_STDERR, PMIX_LOG_STDOUT      this process's stderr / stdout (under
 *                                         Slurm or spmix-run they reach the
 *                                         job's output like any other line)
 *   PMIX_LOG_SYSLOG, PMIX_LOG_LOCAL_SYSLOG this node's syslog (priority from
 *                                         PMIX_LOG_SYSLOG_PRI, default LOG_ERR)
 * Channels that need a service spmix does not run (global syslog, email, the
 * global data store, job records) are not supported. Directives:
 * PMIX_LOG_ONCE (stop at the first channel that worked), PMIX_LOG_TIMESTAMP /
 * PMIX_LOG_GENERATE_TIMESTAMP (prefix a time), PMIX_LOG_TAG_OUTPUT (prefix
 * "[nspace,rank]"). Result: PMIX_SUCCESS when every entry was logged,
 * PMIX_ERR_PARTIAL_SUCCESS when some were, else the reason none was
 * (PMIX_ERR_NOT_SUPPORTED for unknown channels, PMIX_ERR_BAD_PARAM for a
 * message that is not a string).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <pmix.h>

#include "client/client.h"
#include "progress/progress.h"
#include "types/types.h"
#include "util/compiler.h"

struct log_opts {
    bool once, tag;
    bool stamp;
    time_t when;
    int syslog_pri;
};

static void read_directives(const pmix_info_t *dirs, size_t ndirs, struct log_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->syslog_pri = LOG_ERR;
    for (size_t i = 0; dirs && i < ndirs; i++) {
        const pmix_value_t *v = &dirs[i].value;
        bool flag = v->type == PMIX_UNDEF || (v->type == PMIX_BOOL && v->data.flag);
        if (PMIX_CHECK_KEY(&dirs[i], PMIX_LOG_ONCE)) {
            o->once = flag;
        } else if (PMIX_CHECK_KEY(&dirs[i], PMIX_LOG_TAG_OUTPUT)) {
            o->tag = flag;
        } else if (PMIX_CHECK_KEY(&dirs[i], PMIX_LOG_GENERATE_TIMESTAMP) && flag && !o->stamp) {
            o->stamp = true;
            o->when = time(NULL);
        } else if (PMIX_CHECK_KEY(&dirs[i], PMIX_LOG_TIMESTAMP) && v->type == PMIX_TIME) {
            o->stamp = true;
            o->when = v->data.time;
        } else if (PMIX_CHECK_KEY(&dirs[i], PMIX_LOG_SYSLOG_PRI) && v->type == PMIX_INT) {
            o->syslog_pri = v->data.integer;
        }
    }
}

/* "2026-12-03 03:04:05 [ns,3] " as the directives ask; into buf. */
static const char *prefix(const struct log_opts *o, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    if (o->stamp) {
        struct tm tm;
        if (localtime_r(&o->when, &tm))
            n = strftime(buf, len, "%Y-%m-%d %H:%M:%S ", &tm);
    }
    if (o->tag && spx_client_initialized() && n < len)
        snprintf(buf + n, len - n, "[%s,%u] ", spx_client.myproc.nspace,
                 (unsigned)spx_client.myproc.rank);
    return buf;
}

/* One entry: PMIX_SUCCESS when written, else why not. */
static pmix_status_t log_one(const pmix_info_t *d, const struct log_opts *o)
{
    bool out = PMIX_CHECK_KEY(d, PMIX_LOG_STDOUT), err = PMIX_CHECK_KEY(d, PMIX_LOG_STDERR);
    bool sys = PMIX_CHECK_KEY(d, PMIX_LOG_SYSLOG) || PMIX_CHECK_KEY(d, PMIX_LOG_LOCAL_SYSLOG);
    if (!out && !err && !sys)
        return PMIX_ERR_NOT_SUPPORTED;
    if (d->value.type != PMIX_STRING || !d->value.data.string)
        return PMIX_ERR_BAD_PARAM;
    const char *msg = d->value.data.string;
    size_t len = strlen(msg);
    const char *nl = len && msg[len - 1] == '\n' ? "" : "\n";
    char pre[PMIX_MAX_NSLEN + 64];
    prefix(o, pre, sizeof(pre));
    if (sys) {
        syslog(o->syslog_pri, "%s%s", pre, msg);
        return PMIX_SUCCESS;
    }
    FILE *f = out ? stdout : stderr;
    if (fprintf(f, "%s%s%s", pre, msg, nl) < 0 || fflush(f) != 0)
        return PMIX_ERR_IOF_FAILURE;
    return PMIX_SUCCESS;
}

static pmix_status_t do_log(const pmix_info_t data[], size_t ndata, const pmix_info_t dirs[],
                            size_t ndirs)
{
    if (!data || ndata == 0 || (ndirs && !dirs))
        return PMIX_ERR_BAD_PARAM;
    struct log_opts o;
    read_directives(dirs, ndirs, &o);
    size_t done = 0, tried = 0;
    pmix_status_t why = PMIX_ERR_NOT_SUPPORTED;
    for (size_t i = 0; i < ndata; i++) {
        pmix_status_t rc = log_one(&data[i], &o);
        tried++;
        if (rc == PMIX_SUCCESS) {
            done++;
            if (o.once)
                return PMIX_SUCCESS;
        } else {
            why = rc;
        }
    }
    if (done == tried)
        return PMIX_SUCCESS;
    return done ? PMIX_ERR_PARTIAL_SUCCESS : why;
}

/* The directives read_directives() honours. */
static const char *const log_directives[] = {PMIX_LOG_ONCE, PMIX_LOG_TAG_OUTPUT,
                                             PMIX_LOG_GENERATE_TIMESTAMP, PMIX_LOG_TIMESTAMP,
                                             PMIX_LOG_SYSLOG_PRI, NULL};

SPX_EXPORT pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata,
                                  const pmix_info_t directives[], size_t ndirs)
{
    pmix_status_t rc = spx_progress_guard("PMIx_Log");
    if (rc != PMIX_SUCCESS)
        return rc;
    if ((rc = spx_directives_check("PMIx_Log", directives, ndirs, log_directives)) != PMIX_SUCCESS)
        return rc;
    return do_log(data, ndata, directives, ndirs);
}

struct log_job {
    pmix_status_t status;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
};

static void log_report(void *arg)
{
    struct log_job *j = arg;
    j->cbfunc(j->status, j->cbdata);
    free(j);
}

SPX_EXPORT pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
                                     const pmix_info_t directives[], size_t ndirs,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!cbfunc) { /* nothing to report to: the blocking form, with its guard */
        return PMIx_Log(data, ndata, directives, ndirs);
    }
    pmix_status_t rc = spx_directives_check("PMIx_Log_nb", directives, ndirs, log_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = do_log(data, ndata, directives, ndirs);
    struct log_job *j = calloc(1, sizeof(*j));
    if (!j)
        return PMIX_ERR_NOMEM;
    j->status = rc;
    j->cbfunc = cbfunc;
    j->cbdata = cbdata;
    if (spx_progress_shift(log_report, j) != 0) { /* no progress thread: done now */
        free(j);
        return rc == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : rc;
    }
    return PMIX_SUCCESS;
}
