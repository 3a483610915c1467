/* later_abi.c - PMIx functions of releases after OpenPMIx 5.0 that programs
 * built on OpenPMIx 7 import (Debian forky's python3-pmix binds 15 of them),
 * so that such programs load on our library.
 *
 * Real: the string functions, PMIx_server_generate_cpuset (the parser of
 * PMIx_server_generate_cpuset_string's strings). The regex2 functions live
 * with the other regex code in lib/types/regex.c.
 * Not supported (doc/api-status.md lists them): resource blocks, IOF flow control,
 * collecting job info into a buffer (PMIX_ERR_NOT_SUPPORTED, no callback);
 * PMIx_Heartbeat sends through PMIx_Process_monitor_nb, which is not
 * supported either; PMIx_Progress_thread_stop leaves our one progress thread
 * running (every call of the library needs it) and says so in the debug log.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <pmix.h>
#include <pmix_server.h>

#include "util/compiler.h"
#include "util/log.h"

SPX_EXPORT void PMIx_Heartbeat(void)
{
    pmix_info_t beat;

    PMIX_INFO_CONSTRUCT(&beat);
    PMIX_INFO_LOAD(&beat, PMIX_SEND_HEARTBEAT, NULL, PMIX_POINTER);
    (void)PMIx_Process_monitor_nb(&beat, PMIX_SUCCESS, NULL, 0, NULL, NULL);
    PMIX_INFO_DESTRUCT(&beat);
}

SPX_EXPORT void PMIx_Progress_thread_stop(const pmix_info_t *info, size_t ninfo)
{
    (void)info;
    (void)ninfo;
    spx_debug("PMIx_Progress_thread_stop: not supported; the progress thread keeps running");
}

SPX_EXPORT pmix_status_t PMIx_Resource_block(pmix_resource_block_directive_t directive, char *block,
                                             const pmix_resource_unit_t *res, size_t nres,
                                             const pmix_info_t *info, size_t ninfo)
{
    (void)directive;
    (void)block;
    (void)res;
    (void)nres;
    (void)info;
    (void)ninfo;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_Resource_block_nb(pmix_resource_block_directive_t directive,
                                                char *block, const pmix_resource_unit_t *res,
                                                size_t nres, const pmix_info_t *info, size_t ninfo,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)directive;
    (void)block;
    (void)res;
    (void)nres;
    (void)info;
    (void)ninfo;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_server_IOF_flow_control(const pmix_proc_t *source,
                                                      pmix_iof_channel_t channel, bool xoff,
                                                      const pmix_info_t directives[], size_t ndirs,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)source;
    (void)channel;
    (void)xoff;
    (void)directives;
    (void)ndirs;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_server_collect_job_info(pmix_proc_t *procs, size_t nprocs,
                                                      pmix_data_buffer_t *dbuf)
{
    (void)procs;
    (void)nprocs;
    (void)dbuf;
    return PMIX_ERR_NOT_SUPPORTED;
}

SPX_EXPORT pmix_status_t PMIx_server_generate_cpuset(const char *cpuset_string,
                                                     pmix_cpuset_t *cpuset)
{
    return PMIx_Parse_cpuset_string(cpuset_string, cpuset);
}

SPX_EXPORT const char *PMIx_Resource_block_directive_string(pmix_resource_block_directive_t d)
{
    switch (d) {
    case PMIX_RESOURCE_BLOCK_DEFINE: return "DEFINE";
    case PMIX_RESOURCE_BLOCK_EXTEND: return "EXTEND";
    case PMIX_RESOURCE_BLOCK_REMOVE: return "REMOVE";
    case PMIX_RESOURCE_BLOCK_DELETE: return "DELETE";
    default: return d >= PMIX_RESOURCE_BLOCK_EXTERNAL ? "EXTERNAL" : "UNKNOWN";
    }
}

SPX_EXPORT const char *PMIx_Alloc_inheritance_string(pmix_alloc_inheritance_t inheritance)
{
    switch (inheritance) {
    case PMIX_ALLOC_INHERIT_NONE: return "NONE";
    case PMIX_ALLOC_INHERIT_CHILD: return "CHILD";
    case PMIX_ALLOC_INHERIT_DEFAULT: return "DEFAULT";
    case PMIX_ALLOC_INHERIT_CHILD_DEFAULT: return "CHILD DEFAULT";
    default: return "UNKNOWN";
    }
}

/* The values of later releases' enum: CONSTRUCT 0, DESTRUCT 1, NONE 2,
 * CANCEL 3 (ours names the first two). */
SPX_EXPORT const char *PMIx_Group_operation_string(pmix_group_operation_t op)
{
    switch ((int)op) {
    case 0: return "CONSTRUCT";
    case 1: return "DESTRUCT";
    case 2: return "NONE";
    case 3: return "CANCEL";
    default: return "UNKNOWN";
    }
}

/* malloc'd "TYPE x COUNT" text, caller frees; NULL for a NULL unit. */
SPX_EXPORT char *PMIx_Resource_unit_string(const pmix_resource_unit_t *unit)
{
    char *s;

    if (unit == NULL)
        return NULL;
    if (asprintf(&s, "%s x %zu", PMIx_Device_type_string(unit->type), unit->count) < 0)
        return NULL;
    return s;
}
