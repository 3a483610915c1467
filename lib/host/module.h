/*
 * host/module: the upcalls every host of our server answers alike, filled
 * into the host's pmix_server_module_t:
 *   job_control - the cleanup registrations clients make (Open MPI at init):
 *                 PMIX_REGISTER_CLEANUP(_DIR) with the PMIX_CLEANUP_*
 *                 modifiers the server library honours (lib/server/cleanup.c)
 *                 are accepted; any other directive is PMIX_ERR_NOT_SUPPORTED;
 *   abort       - PMIx_Abort of a rank: the host's record hook, then the
 *                 caller is released, then the host's act hook.
 * The host sets its other upcalls (fence, query, ...) itself. Upcalls run on
 * the library's progress thread; the hooks must not wait for the library.
 */
#ifndef SPX_HOST_MODULE_H
#define SPX_HOST_MODULE_H

#include <stdbool.h>
#include <pmix_server.h>

/* What a host does on PMIx_Abort. Both hooks optional; msg is never NULL
 * ("" when the rank gave none); everything is borrowed for the call. */
struct spx_host_abort_ops {
    /* before the aborting rank is released: record it, report it upwards */
    void (*record)(const pmix_proc_t *proc, int status, const char *msg, void *arg);
    /* after the rank is released: end the job */
    void (*act)(const pmix_proc_t *proc, int status, const char *msg, void *arg);
    void *arg;
};

/* Sets mod->abort and mod->job_control; ops is copied (one server per
 * process, so one set of hooks). Other fields of mod are left alone. */
void spx_host_module_init(pmix_server_module_t *mod, const struct spx_host_abort_ops *ops);

/* Is key a job-control directive the default job_control accepts? */
bool spx_host_job_control_accepts(const char *key);

#endif /* SPX_HOST_MODULE_H */
