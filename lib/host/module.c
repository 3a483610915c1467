/*
 * host/module: the default job_control and abort upcalls (see module.h).
 * job_control only checks the directives and answers at once: the server
 * library itself records and carries out the cleanup registrations.
 */
#include "config.h"
#include "host/module.h"

#include <string.h>

static struct spx_host_abort_ops spx_host_abort_ops;

bool spx_host_job_control_accepts(const char *key)
{
    static const char *const keys[] = {
        PMIX_REGISTER_CLEANUP, PMIX_REGISTER_CLEANUP_DIR, PMIX_CLEANUP_RECURSIVE,
        PMIX_CLEANUP_EMPTY,    PMIX_CLEANUP_IGNORE,       PMIX_CLEANUP_LEAVE_TOPDIR,
    };

    for (size_t i = 0; key != NULL && i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strncmp(key, keys[i], PMIX_MAX_KEYLEN) == 0)
            return true;
    return false;
}

static pmix_status_t spx_host_job_control(const pmix_proc_t *requestor,
                                          const pmix_proc_t targets[], size_t ntargets,
                                          const pmix_info_t directives[], size_t ndirs,
                                          pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)requestor;
    (void)targets;
    (void)ntargets;
    for (size_t i = 0; i < ndirs; i++)
        if (!spx_host_job_control_accepts(directives[i].key))
            return PMIX_ERR_NOT_SUPPORTED;
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

static pmix_status_t spx_host_abort(const pmix_proc_t *proc, void *obj, int status,
                                    const char msg[], pmix_proc_t procs[], size_t nprocs,
                                    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    const struct spx_host_abort_ops *ops = &spx_host_abort_ops;
    const char *text = msg ? msg : "";

    (void)obj;
    (void)procs;
    (void)nprocs;   /* both hosts end the whole job on an abort */
    if (ops->record != NULL)
        ops->record(proc, status, text, ops->arg);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    if (ops->act != NULL)
        ops->act(proc, status, text, ops->arg);
    return PMIX_SUCCESS;
}

void spx_host_module_init(pmix_server_module_t *mod, const struct spx_host_abort_ops *ops)
{
    if (ops != NULL)
        spx_host_abort_ops = *ops;
    else
        memset(&spx_host_abort_ops, 0, sizeof(spx_host_abort_ops));
    mod->abort = spx_host_abort;
    mod->job_control = spx_host_job_control;
}
