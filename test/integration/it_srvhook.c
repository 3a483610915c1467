/*
 * it_srvhook.so: preloaded (LD_PRELOAD) into spmix-run, it makes every server
 * process of the job - spmix-run itself with one node, each node daemon with
 * --nodes - a server with event handlers of its own. Its PMIx_server_init
 * calls the library's, then, on the host's main thread:
 *   - raises IT_SRV_EARLY with PMIX_RANGE_PROC_LOCAL while no handler is
 *     registered, then registers one handler for it (it must get the kept
 *     event) and a default handler;
 *   - every call of either handler appends one line to the file named by
 *     $SPX_IT_SRVLOG: "node K: CODE from NSPACE:RANK tag TAG" (K: the
 *     SPMIX_TREE_NODE_INDEX the server was started with, 0 without one; TAG:
 *     the string of it.evsrv.tag, "-" without one);
 *   - on node 0, when the default handler gets IT_EVSRV_TRIGGER (rank 0 of
 *     it_evsrv raises it), the server raises IT_EVSRV_LOCAL with
 *     PMIX_RANGE_PROC_LOCAL and then IT_EVSRV_GLOBAL with PMIX_RANGE_GLOBAL
 *     (source: the server itself), both from the handler (progress thread,
 *     with a callback).
 * The other PMIx functions are looked up at run time, so the library loads
 * into the wrapper shells and into the ranks without effect.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <fcntl.h>
#include <pmix_server.h>
#include <spmix.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "it_evsrv.h"

#define EXPORT __attribute__((visibility("default")))

typedef pmix_status_t (*init_f)(pmix_server_module_t *, pmix_info_t[], size_t);
typedef pmix_status_t (*notify_f)(pmix_status_t, const pmix_proc_t *, pmix_data_range_t,
                                  const pmix_info_t[], size_t, pmix_op_cbfunc_t, void *);
typedef pmix_status_t (*register_f)(pmix_status_t[], size_t, pmix_info_t[], size_t,
                                    pmix_notification_fn_t, pmix_hdlr_reg_cbfunc_t, void *);

static notify_f notify;
static uint32_t node;
static int logfd = -1;

static void say(const char *fmt, pmix_status_t code, const pmix_proc_t *source, const char *tag)
{
    char line[PMIX_MAX_NSLEN + 160];
    int n = snprintf(line, sizeof(line), fmt, (unsigned)node, (int)code,
                     source ? source->nspace : "-", source ? (unsigned)source->rank : 0u, tag);
    if (logfd >= 0 && n > 0 && (size_t)n < sizeof(line) && write(logfd, line, (size_t)n) != n)
        fprintf(stderr, "it_srvhook: cannot write the log\n");
}

static const char *tag_of(const pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], IT_EVSRV_TAG) && info[i].value.type == PMIX_STRING)
            return info[i].value.data.string;
    return "-";
}

static void notified(pmix_status_t status, void *cbdata)
{
    if (status != PMIX_SUCCESS)
        say("node %u: notify of %d failed (%s:%u %s)\n", (pmix_status_t)(intptr_t)cbdata, NULL,
            "-");
}

static void raise_here(pmix_status_t code, pmix_data_range_t range, const char *tag)
{
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, IT_EVSRV_TAG, tag, PMIX_STRING);
    pmix_status_t rc = notify(code, NULL, range, &info, 1, notified, (void *)(intptr_t)code);
    if (rc != PMIX_SUCCESS)
        say("node %u: raising %d failed (%s:%u %s)\n", code, NULL, "-");
    PMIX_INFO_DESTRUCT(&info);
}

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)results, (void)nresults;
    say("node %u: %d from %s:%u tag %s\n", status, source, tag_of(info, ninfo));
    if (status == IT_EVSRV_TRIGGER && node == 0) {
        raise_here(IT_EVSRV_LOCAL, PMIX_RANGE_PROC_LOCAL, "srv-local");
        raise_here(IT_EVSRV_GLOBAL, PMIX_RANGE_GLOBAL, "srv-global");
    }
    if (cbfunc) /* ends the chain: the default handler does not log the early event again */
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module, pmix_info_t info[],
                                      size_t ninfo)
{
    init_f real = (init_f)dlsym(RTLD_NEXT, "PMIx_server_init");
    register_f reg = (register_f)dlsym(RTLD_DEFAULT, "PMIx_Register_event_handler");
    notify = (notify_f)dlsym(RTLD_DEFAULT, "PMIx_Notify_event");
    if (!real || !reg || !notify) {
        fprintf(stderr, "it_srvhook: the PMIx functions are not found\n");
        return PMIX_ERR_INIT;
    }
    pmix_status_t rc = real(module, info, ninfo);
    if (rc != PMIX_SUCCESS)
        return rc;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], SPMIX_TREE_NODE_INDEX) && info[i].value.type == PMIX_UINT32)
            node = info[i].value.data.uint32;
    const char *path = getenv("SPX_IT_SRVLOG");
    if (path)
        logfd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    raise_here(IT_EVSRV_EARLY, PMIX_RANGE_PROC_LOCAL, "early");
    pmix_status_t early = IT_EVSRV_EARLY;
    if (reg(&early, 1, NULL, 0, handler, NULL, NULL) < 0 ||
        reg(NULL, 0, NULL, 0, handler, NULL, NULL) < 0)
        fprintf(stderr, "it_srvhook: cannot register the handlers\n");
    return PMIX_SUCCESS;
}
