/* misc.c - the small PMIx_server_* entry points: setup_application,
 * setup_local_support, and those this server does not support yet
 * (inventory, process sets, resources), which say so honestly with
 * PMIX_ERR_NOT_SUPPORTED and never call back. (IOF delivery: iof_pull.c.)
 *
 * Callbacks of the supported ones run later on the progress thread.
 */
#include "config.h"
#include "server/core.h"
#include "server/server.h"

#include <stdlib.h>

#include "progress/progress.h"

struct misc_cb {
    pmix_setup_application_cbfunc_t app_cb;
    pmix_op_cbfunc_t op_cb;
    void *cbdata;
};

static void run_app_cb(void *arg)
{
    struct misc_cb *m = arg;
    m->app_cb(PMIX_SUCCESS, NULL, 0, m->cbdata, NULL, NULL);
    free(m);
}

static void run_op_cb(void *arg)
{
    struct misc_cb *m = arg;
    m->op_cb(PMIX_SUCCESS, m->cbdata);
    free(m);
}

static pmix_status_t shift_cb(struct misc_cb *m, void (*fn)(void *))
{
    if (spx_progress_shift(fn, m) != 0) {
        free(m);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return PMIX_SUCCESS;
}

/* Nothing to add for an application: the callback gets an empty info list. */
SPX_EXPORT pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace,
                                                       pmix_info_t info[], size_t ninfo,
                                                       pmix_setup_application_cbfunc_t cbfunc,
                                                       void *cbdata)
{
    (void)info;
    (void)ninfo;
    if (!spx_server_active())
        return PMIX_ERR_INIT;
    if (!nspace || !cbfunc)
        return PMIX_ERR_BAD_PARAM;
    struct misc_cb *m = calloc(1, sizeof(*m));
    if (!m)
        return PMIX_ERR_NOMEM;
    m->app_cb = cbfunc;
    m->cbdata = cbdata;
    return shift_cb(m, run_app_cb);
}

/* No local support is needed by this server. */
SPX_EXPORT pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace,
                                                         pmix_info_t info[], size_t ninfo,
                                                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    if (!spx_server_active())
        return PMIX_ERR_INIT;
    if (!nspace)
        return PMIX_ERR_BAD_PARAM;
    if (!cbfunc)
        return PMIX_SUCCESS;
    struct misc_cb *m = calloc(1, sizeof(*m));
    if (!m)
        return PMIX_ERR_NOMEM;
    m->op_cb = cbfunc;
    m->cbdata = cbdata;
    return shift_cb(m, run_op_cb);
}

SPX_EXPORT pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[], size_t ndirs,
                                                       pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)directives, (void)ndirs, (void)cbfunc, (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[], size_t ninfo,
                                                       pmix_info_t directives[], size_t ndirs,
                                                       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info, (void)ninfo, (void)directives, (void)ndirs, (void)cbfunc, (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_server_define_process_set(const pmix_proc_t *members,
                                                        size_t nmembers, const char *pset_name)
{
    (void)members, (void)nmembers, (void)pset_name;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_server_delete_process_set(char *pset_name)
{
    (void)pset_name;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_server_register_resources(pmix_info_t info[], size_t ninfo,
                                                        pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}
