/* strings.c - names of PMIx enumerations: data types, proc and job states,
 * scopes, persistence, ranges, info directives, allocation directives, IOF
 * channels, link states, device types and value comparisons.
 *
 * Each function maps a number to a static string (never NULL; unknown
 * numbers get a fixed "UNKNOWN..." label) with the wording OpenPMIx 4.2
 * shows, so logs and tools read the same. PMIx_Info_directives_string is
 * the exception: it builds a malloc'd string the caller frees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/typedesc.h"
#include "types/types.h"
#include "util/compiler.h"

struct name_entry {
    unsigned long long code;
    const char *name;
};

static const char *lookup(const struct name_entry *t, size_t n, unsigned long long code,
                          const char *dflt)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].code == code)
            return t[i].name;
    return dflt;
}

#define LOOKUP(t, code, dflt) lookup((t), sizeof(t) / sizeof((t)[0]), (code), (dflt))

SPX_EXPORT const char *PMIx_Data_type_string(pmix_data_type_t type)
{
    const struct spx_typedesc *td = spx_typedesc_get(type);

    if (td)
        return td->name;
    switch (type) {
    case 26: return "PMIX_BUFFER"; /* deprecated types without a descriptor */
    case 28: return "PMIX_KVAL";
    default: return "UNKNOWN";
    }
}

static const struct name_entry proc_states[] = {
    { PMIX_PROC_STATE_UNDEF, "UNDEFINED" },
    { PMIX_PROC_STATE_PREPPED, "PREPPED FOR LAUNCH" },
    { PMIX_PROC_STATE_LAUNCH_UNDERWAY, "LAUNCH UNDERWAY" },
    { PMIX_PROC_STATE_RESTART, "PROC READY FOR RESTART" },
    { PMIX_PROC_STATE_TERMINATE, "PROC MARKED FOR TERMINATION" },
    { PMIX_PROC_STATE_RUNNING, "PROC EXECUTING" },
    { PMIX_PROC_STATE_CONNECTED, "PROC HAS CONNECTED TO LOCAL PMIX SERVER" },
    { PMIX_PROC_STATE_UNTERMINATED, "PROC HAS NOT TERMINATED" },
    { PMIX_PROC_STATE_TERMINATED, "PROC HAS TERMINATED" },
    { PMIX_PROC_STATE_ERROR, "PROC ERROR" },
    { PMIX_PROC_STATE_KILLED_BY_CMD, "PROC KILLED BY CMD" },
    { PMIX_PROC_STATE_ABORTED, "PROC ABNORMALLY ABORTED" },
    { PMIX_PROC_STATE_FAILED_TO_START, "PROC FAILED TO START" },
    { PMIX_PROC_STATE_ABORTED_BY_SIG, "PROC ABORTED BY SIGNAL" },
    { PMIX_PROC_STATE_TERM_WO_SYNC, "PROC TERMINATED WITHOUT CALLING PMIx_Finalize" },
    { PMIX_PROC_STATE_COMM_FAILED, "PROC LOST COMMUNICATION" },
    { PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED, "PROC SENSOR BOUND EXCEEDED" },
    { PMIX_PROC_STATE_CALLED_ABORT, "PROC CALLED PMIx_Abort" },
    { PMIX_PROC_STATE_HEARTBEAT_FAILED, "PROC FAILED TO REPORT HEARTBEAT" },
    { PMIX_PROC_STATE_MIGRATING, "PROC WAITING TO MIGRATE" },
    { PMIX_PROC_STATE_CANNOT_RESTART, "PROC CANNOT BE RESTARTED" },
    { PMIX_PROC_STATE_TERM_NON_ZERO, "PROC TERMINATED WITH NON-ZERO STATUS" },
    { PMIX_PROC_STATE_FAILED_TO_LAUNCH, "PROC FAILED TO LAUNCH" },
};

SPX_EXPORT const char *PMIx_Proc_state_string(pmix_proc_state_t state)
{
    return LOOKUP(proc_states, state, "UNKNOWN STATE");
}

static const struct name_entry scopes[] = {
    { PMIX_SCOPE_UNDEF, "UNDEFINED" },
    { PMIX_LOCAL, "SHARE ON LOCAL NODE ONLY" },
    { PMIX_REMOTE, "SHARE ON REMOTE NODES ONLY" },
    { PMIX_GLOBAL, "SHARE ACROSS ALL NODES" },
    { PMIX_INTERNAL, "STORE INTERNALLY" },
    /* the deletion scopes of the spmix extension (PMIX_DEL_*) */
    { 5, "DELETE FROM LOCAL NODE" },
    { 6, "DELETE FROM REMOTE NODES" },
    { 7, "DELETE FROM ALL NODES" },
    { 8, "DELETE FROM INTERNAL STORE" },
};

SPX_EXPORT const char *PMIx_Scope_string(pmix_scope_t scope)
{
    return LOOKUP(scopes, scope, "UNKNOWN SCOPE");
}

static const struct name_entry persistences[] = {
    { PMIX_PERSIST_INDEF, "INDEFINITE" },
    { PMIX_PERSIST_FIRST_READ, "DELETE ON FIRST ACCESS" },
    { PMIX_PERSIST_PROC, "RETAIN UNTIL PUBLISHING PROCESS TERMINATES" },
    { PMIX_PERSIST_APP, "RETAIN UNTIL APPLICATION OF PUBLISHING PROCESS TERMINATES" },
    { PMIX_PERSIST_SESSION, "RETAIN UNTIL ALLOCATION OF PUBLISHING PROCESS TERMINATES" },
    { PMIX_PERSIST_INVALID, "INVALID" },
};

SPX_EXPORT const char *PMIx_Persistence_string(pmix_persistence_t persist)
{
    return LOOKUP(persistences, persist, "UNKNOWN PERSISTENCE");
}

static const struct name_entry ranges[] = {
    { PMIX_RANGE_UNDEF, "UNDEFINED" },
    { PMIX_RANGE_RM, "INTENDED FOR HOST RESOURCE MANAGER ONLY" },
    { PMIX_RANGE_LOCAL, "AVAIL ON LOCAL NODE ONLY" },
    { PMIX_RANGE_NAMESPACE, "AVAIL TO PROCESSES IN SAME JOB ONLY" },
    { PMIX_RANGE_SESSION, "AVAIL TO PROCESSES IN SAME ALLOCATION ONLY" },
    { PMIX_RANGE_GLOBAL, "AVAIL TO ANYONE WITH AUTHORIZATION" },
    { PMIX_RANGE_CUSTOM, "AVAIL AS SPECIFIED IN DIRECTIVES" },
    { PMIX_RANGE_PROC_LOCAL, "AVAIL ON LOCAL PROC ONLY" },
    { PMIX_RANGE_INVALID, "INVALID" },
};

SPX_EXPORT const char *PMIx_Data_range_string(pmix_data_range_t range)
{
    return LOOKUP(ranges, range, "UNKNOWN");
}

/* Malloc'd; caller frees with free(). NULL only when out of memory. */
SPX_EXPORT char *PMIx_Info_directives_string(pmix_info_directives_t directives)
{
    char buf[64];

    if (directives & PMIX_INFO_QUALIFIER)
        return strdup("QUALIFIER");
    snprintf(buf, sizeof(buf), "%s%s%s", (directives & PMIX_INFO_REQD) ? "REQUIRED" : "OPTIONAL",
             (directives & PMIX_INFO_REQD_PROCESSED) ? ":PROCESSED" : "",
             (directives & PMIX_INFO_ARRAY_END) ? ":END" : "");
    return strdup(buf);
}

static const struct name_entry alloc_directives[] = {
    { PMIX_ALLOC_NEW, "NEW" },
    { PMIX_ALLOC_EXTEND, "EXTEND" },
    { PMIX_ALLOC_RELEASE, "RELEASE" },
    { PMIX_ALLOC_REAQUIRE, "REACQUIRE" },
};

SPX_EXPORT const char *PMIx_Alloc_directive_string(pmix_alloc_directive_t directive)
{
    return LOOKUP(alloc_directives, directive, "UNSPECIFIED");
}

/* One constant string per combination of the four channel bits (bit 0
 * stdin, 1 stdout, 2 stderr, 3 stddiag), each name followed by a space. */
static const char *const iof_channels[16] = {
    "NONE", "STDIN ", "STDOUT ", "STDIN STDOUT ", "STDERR ", "STDIN STDERR ",
    "STDOUT STDERR ", "STDIN STDOUT STDERR ", "STDDIAG ", "STDIN STDDIAG ",
    "STDOUT STDDIAG ", "STDIN STDOUT STDDIAG ", "STDERR STDDIAG ", "STDIN STDERR STDDIAG ",
    "STDOUT STDERR STDDIAG ", "STDIN STDOUT STDERR STDDIAG ",
};

SPX_EXPORT const char *PMIx_IOF_channel_string(pmix_iof_channel_t channel)
{
    unsigned idx = 0;

    if (channel & PMIX_FWD_STDIN_CHANNEL)
        idx |= 1;
    if (channel & PMIX_FWD_STDOUT_CHANNEL)
        idx |= 2;
    if (channel & PMIX_FWD_STDERR_CHANNEL)
        idx |= 4;
    if (channel & PMIX_FWD_STDDIAG_CHANNEL)
        idx |= 8;
    return iof_channels[idx];
}

static const struct name_entry job_states[] = {
    { PMIX_JOB_STATE_UNDEF, "UNDEFINED" },
    { 1, "PREPPED FOR LAUNCH" }, /* PMIX_JOB_STATE_AWAITING_ALLOC */
    { PMIX_JOB_STATE_LAUNCH_UNDERWAY, "LAUNCHING" },
    { PMIX_JOB_STATE_RUNNING, "RUNNING" },
    { PMIX_JOB_STATE_SUSPENDED, "SUSPENDED" },
    { PMIX_JOB_STATE_CONNECTED, "CONNECTED" },
    { PMIX_JOB_STATE_UNTERMINATED, "UNTERMINATED" },
    { PMIX_JOB_STATE_TERMINATED, "TERMINATED" },
    { PMIX_JOB_STATE_TERMINATED_WITH_ERROR, "TERMINATED WITH ERROR" },
};

SPX_EXPORT const char *PMIx_Job_state_string(pmix_job_state_t state)
{
    return LOOKUP(job_states, state, "UNKNOWN");
}

static const struct name_entry link_states[] = {
    { PMIX_LINK_STATE_UNKNOWN, "UNKNOWN" },
    { PMIX_LINK_DOWN, "INACTIVE" },
    { PMIX_LINK_UP, "ACTIVE" },
};

SPX_EXPORT const char *PMIx_Link_state_string(pmix_link_state_t state)
{
    return LOOKUP(link_states, state, "UNKNOWN");
}

static const struct name_entry device_types[] = {
    { PMIX_DEVTYPE_UNKNOWN, "UNKNOWN" },
    { PMIX_DEVTYPE_BLOCK, "BLOCK" },
    { PMIX_DEVTYPE_GPU, "GPU" },
    { PMIX_DEVTYPE_NETWORK, "NETWORK" },
    { PMIX_DEVTYPE_OPENFABRICS, "OPENFABRICS" },
    { PMIX_DEVTYPE_DMA, "DMA" },
    { PMIX_DEVTYPE_COPROC, "COPROCESSOR" },
};

SPX_EXPORT const char *PMIx_Device_type_string(pmix_device_type_t type)
{
    return LOOKUP(device_types, type, "UNKNOWN");
}

static const struct name_entry comparisons[] = {
    { PMIX_EQUAL, "EQUAL" },
    { PMIX_VALUE1_GREATER, "VALUE1 GREATER" },
    { PMIX_VALUE2_GREATER, "VALUE2 GREATER" },
    { PMIX_VALUE_TYPE_DIFFERENT, "DIFFERENT TYPES" },
    { PMIX_VALUE_INCOMPATIBLE_OBJECTS, "INCOMPATIBLE OBJECTS" },
    { PMIX_VALUE_COMPARISON_NOT_AVAIL, "COMPARISON NOT AVAILABLE" },
};

SPX_EXPORT const char *PMIx_Value_comparison_string(pmix_value_cmp_t cmp)
{
    if ((int)cmp < 0)
        return "UNKNOWN VALUE";
    return LOOKUP(comparisons, (unsigned long long)cmp, "UNKNOWN VALUE");
}
