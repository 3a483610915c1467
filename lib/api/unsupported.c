/* unsupported.c - the PMIx v4 and v5 functions spmix does not implement yet.
 *
 * Each exists so that programs linked against libpmix.so.2 load and run; each
 * returns PMIX_ERR_NOT_SUPPORTED at once and never calls its callback (a
 * non-blocking call that returns an error does not call back). doc/api-status.md lists
 * them. The cpuset/topology destructors are real: they only release memory.
 */
#include "config.h"

#include <stdlib.h>
#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include "util/compiler.h"

SPX_EXPORT void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset)
{
    if (!cpuset)
        return;
    if (cpuset->bitmap)
        hwloc_bitmap_free((hwloc_bitmap_t)cpuset->bitmap);
    free(cpuset->source);
    cpuset->bitmap = NULL;
    cpuset->source = NULL;
}

SPX_EXPORT pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t directive, pmix_info_t *info, size_t ninfo, pmix_info_t **results, size_t *nresults)
{
    (void)directive;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t directive, pmix_info_t *info, size_t ninfo, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)directive;
    (void)info;
    (void)ninfo;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t *fabric)
{
    (void)fabric;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t *fabric, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)fabric;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Fabric_register(pmix_fabric_t *fabric, const pmix_info_t directives[], size_t ndirs)
{
    (void)fabric;
    (void)directives;
    (void)ndirs;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t *fabric, const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)fabric;
    (void)directives;
    (void)ndirs;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Fabric_update(pmix_fabric_t *fabric)
{
    (void)fabric;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t *fabric, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)fabric;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Get_credential(const pmix_info_t info[], size_t ninfo, pmix_byte_object_t *credential)
{
    (void)info;
    (void)ninfo;
    (void)credential;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[], size_t ninfo, pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Process_monitor(const pmix_info_t *monitor, pmix_status_t error, const pmix_info_t directives[], size_t ndirs, pmix_info_t **results, size_t *nresults)
{
    (void)monitor;
    (void)error;
    (void)directives;
    (void)ndirs;
    (void)results;
    (void)nresults;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor, pmix_status_t error, const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)monitor;
    (void)error;
    (void)directives;
    (void)ndirs;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Register_attributes(char *function, char *attrs[])
{
    (void)function;
    (void)attrs;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[], size_t napps, pmix_nspace_t nspace)
{
    (void)job_info;
    (void)ninfo;
    (void)apps;
    (void)napps;
    (void)nspace;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    (void)job_info;
    (void)ninfo;
    (void)apps;
    (void)napps;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}


SPX_EXPORT pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t *cred, const pmix_info_t info[], size_t ninfo, pmix_info_t **results, size_t *nresults)
{
    (void)cred;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t *cred, const pmix_info_t info[], size_t ninfo, pmix_validation_cbfunc_t cbfunc, void *cbdata)
{
    (void)cred;
    (void)info;
    (void)ninfo;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}


/* PMIx v5. OpenPMIx 5.0 answers PMIX_ERR_NOT_SUPPORTED too (through the
 * callback); a host's session_control upcall is never called. */
SPX_EXPORT pmix_status_t PMIx_Session_control(uint32_t sessionID, const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)sessionID;
    (void)directives;
    (void)ndirs;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

/* PMIx v5: our tools cannot act as servers; the module is not read. */
SPX_EXPORT pmix_status_t PMIx_tool_set_server_module(pmix_server_module_t *module)
{
    (void)module;
    return PMIX_ERR_NOT_SUPPORTED;
}
