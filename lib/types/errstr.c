/* errstr.c - PMIx_Error_string: status and event codes to their constant
 * names ("PMIX_ERR_NOT_FOUND"), as OpenPMIx 4.2 (from 4.2.5 on) reports them.
 *
 * The table lists the codes of the 4.2 headers in header order, then names
 * that only survive as deprecated aliases, then codes newer OpenPMIx adds;
 * when several names share a code the first listed wins. Unknown codes give
 * "ERROR STRING NOT FOUND". Numbers are literal so the table does not depend
 * on which aliases a header still defines.
 */
#include <stddef.h>
#include <stdint.h>
#include <strings.h>

#include <pmix.h>

#include "types/types.h"
#include "util/compiler.h"

struct err_name {
    pmix_status_t code;
    const char *name;
};

static const struct err_name err_names[] = {
    { 0, "PMIX_SUCCESS" },
    { -1, "PMIX_ERROR" },
    { -4, "PMIX_ERR_PROC_RESTART" },
    { -5, "PMIX_ERR_PROC_CHECKPOINT" },
    { -6, "PMIX_ERR_PROC_MIGRATE" },
    { -11, "PMIX_ERR_EXISTS" },
    { -12, "PMIX_ERR_INVALID_CRED" },
    { -15, "PMIX_ERR_WOULD_BLOCK" },
    { -16, "PMIX_ERR_UNKNOWN_DATA_TYPE" },
    { -18, "PMIX_ERR_TYPE_MISMATCH" },
    { -19, "PMIX_ERR_UNPACK_INADEQUATE_SPACE" },
    { -20, "PMIX_ERR_UNPACK_FAILURE" },
    { -21, "PMIX_ERR_PACK_FAILURE" },
    { -23, "PMIX_ERR_NO_PERMISSIONS" },
    { -24, "PMIX_ERR_TIMEOUT" },
    { -25, "PMIX_ERR_UNREACH" },
    { -27, "PMIX_ERR_BAD_PARAM" },
    { -28, "PMIX_ERR_RESOURCE_BUSY" },
    { -29, "PMIX_ERR_OUT_OF_RESOURCE" },
    { -31, "PMIX_ERR_INIT" },
    { -32, "PMIX_ERR_NOMEM" },
    { -46, "PMIX_ERR_NOT_FOUND" },
    { -47, "PMIX_ERR_NOT_SUPPORTED" },
    { -59, "PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED" },
    { -49, "PMIX_ERR_COMM_FAILURE" },
    { -50, "PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER" },
    { -51, "PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES" },
    { -52, "PMIX_ERR_PARTIAL_SUCCESS" },
    { -53, "PMIX_ERR_DUPLICATE_KEY" },
    { -60, "PMIX_ERR_EMPTY" },
    { -61, "PMIX_ERR_LOST_CONNECTION" },
    { -62, "PMIX_ERR_EXISTS_OUTSIDE_SCOPE" },
    { -55, "PMIX_PROCESS_SET_DEFINE" },
    { -56, "PMIX_PROCESS_SET_DELETE" },
    { -3, "PMIX_DEBUGGER_RELEASE" },
    { -58, "PMIX_READY_FOR_DEBUG" },
    { -104, "PMIX_QUERY_PARTIAL_SUCCESS" },
    { -106, "PMIX_JCTRL_CHECKPOINT" },
    { -107, "PMIX_JCTRL_CHECKPOINT_COMPLETE" },
    { -108, "PMIX_JCTRL_PREEMPT_ALERT" },
    { -109, "PMIX_MONITOR_HEARTBEAT_ALERT" },
    { -110, "PMIX_MONITOR_FILE_ALERT" },
    { -111, "PMIX_PROC_TERMINATED" },
    { -144, "PMIX_ERR_EVENT_REGISTRATION" },
    { -147, "PMIX_MODEL_DECLARED" },
    { -151, "PMIX_MODEL_RESOURCES" },
    { -152, "PMIX_OPENMP_PARALLEL_ENTERED" },
    { -153, "PMIX_OPENMP_PARALLEL_EXITED" },
    { -155, "PMIX_LAUNCHER_READY" },
    { -156, "PMIX_OPERATION_IN_PROGRESS" },
    { -157, "PMIX_OPERATION_SUCCEEDED" },
    { -158, "PMIX_ERR_INVALID_OPERATION" },
    { -159, "PMIX_GROUP_INVITED" },
    { -160, "PMIX_GROUP_LEFT" },
    { -161, "PMIX_GROUP_INVITE_ACCEPTED" },
    { -162, "PMIX_GROUP_INVITE_DECLINED" },
    { -163, "PMIX_GROUP_INVITE_FAILED" },
    { -164, "PMIX_GROUP_MEMBERSHIP_UPDATE" },
    { -165, "PMIX_GROUP_CONSTRUCT_ABORT" },
    { -166, "PMIX_GROUP_CONSTRUCT_COMPLETE" },
    { -167, "PMIX_GROUP_LEADER_SELECTED" },
    { -168, "PMIX_GROUP_LEADER_FAILED" },
    { -169, "PMIX_GROUP_CONTEXT_ID_ASSIGNED" },
    { -170, "PMIX_GROUP_MEMBER_FAILED" },
    { -171, "PMIX_ERR_REPEAT_ATTR_REGISTRATION" },
    { -172, "PMIX_ERR_IOF_FAILURE" },
    { -173, "PMIX_ERR_IOF_COMPLETE" },
    { -174, "PMIX_LAUNCH_COMPLETE" },
    { -175, "PMIX_FABRIC_UPDATED" },
    { -176, "PMIX_FABRIC_UPDATE_PENDING" },
    { -113, "PMIX_FABRIC_UPDATE_ENDPOINTS" },
    { -177, "PMIX_ERR_JOB_APP_NOT_EXECUTABLE" },
    { -178, "PMIX_ERR_JOB_NO_EXE_SPECIFIED" },
    { -179, "PMIX_ERR_JOB_FAILED_TO_MAP" },
    { -180, "PMIX_ERR_JOB_CANCELED" },
    { -181, "PMIX_ERR_JOB_FAILED_TO_LAUNCH" },
    { -182, "PMIX_ERR_JOB_ABORTED" },
    { -183, "PMIX_ERR_JOB_KILLED_BY_CMD" },
    { -184, "PMIX_ERR_JOB_ABORTED_BY_SIG" },
    { -185, "PMIX_ERR_JOB_TERM_WO_SYNC" },
    { -186, "PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED" },
    { -187, "PMIX_ERR_JOB_NON_ZERO_TERM" },
    { -188, "PMIX_ERR_JOB_ALLOC_FAILED" },
    { -189, "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT" },
    { -190, "PMIX_ERR_JOB_EXE_NOT_FOUND" },
    { -233, "PMIX_ERR_JOB_WDIR_NOT_FOUND" },
    { -234, "PMIX_ERR_JOB_INSUFFICIENT_RESOURCES" },
    { -235, "PMIX_ERR_JOB_SYS_OP_FAILED" },
    { -191, "PMIX_EVENT_JOB_START" },
    { -145, "PMIX_EVENT_JOB_END" },
    { -192, "PMIX_EVENT_SESSION_START" },
    { -193, "PMIX_EVENT_SESSION_END" },
    { -8, "PMIX_ERR_PROC_REQUESTED_ABORT" },
    { -200, "PMIX_ERR_PROC_TERM_WO_SYNC" },
    { -201, "PMIX_EVENT_PROC_TERMINATED" },
    { -400, "PMIX_ERR_PROC_KILLED_BY_CMD" },
    { -401, "PMIX_ERR_PROC_FAILED_TO_START" },
    { -402, "PMIX_ERR_PROC_ABORTED_BY_SIG" },
    { -403, "PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED" },
    { -404, "PMIX_ERR_EXIT_NONZERO_TERM" },
    { -230, "PMIX_EVENT_SYS_BASE" },
    { -231, "PMIX_EVENT_NODE_DOWN" },
    { -232, "PMIX_EVENT_NODE_OFFLINE" },
    { -330, "PMIX_EVENT_SYS_OTHER" },
    { -331, "PMIX_EVENT_NO_ACTION_TAKEN" },
    { -332, "PMIX_EVENT_PARTIAL_ACTION_TAKEN" },
    { -333, "PMIX_EVENT_ACTION_DEFERRED" },
    { -334, "PMIX_EVENT_ACTION_COMPLETE" },
    { -2, "PMIX_ERR_SILENT" },
    { -7, "PMIX_ERR_PROC_ABORTED" },
    { -9, "PMIX_ERR_PROC_ABORTING" },
    { -10, "PMIX_ERR_SERVER_FAILED_REQUEST" },
    { -13, "PMIX_ERR_HANDSHAKE_FAILED" },
    { -14, "PMIX_ERR_READY_FOR_HANDSHAKE" },
    { -17, "PMIX_ERR_PROC_ENTRY_NOT_FOUND" },
    { -22, "PMIX_ERR_PACK_MISMATCH" },
    { -26, "PMIX_ERR_IN_ERRNO" },
    { -30, "PMIX_ERR_DATA_VALUE_NOT_FOUND" },
    { -33, "PMIX_ERR_INVALID_ARG" },
    { -34, "PMIX_ERR_INVALID_KEY" },
    { -35, "PMIX_ERR_INVALID_KEY_LENGTH" },
    { -36, "PMIX_ERR_INVALID_VAL" },
    { -37, "PMIX_ERR_INVALID_VAL_LENGTH" },
    { -38, "PMIX_ERR_INVALID_LENGTH" },
    { -39, "PMIX_ERR_INVALID_NUM_ARGS" },
    { -40, "PMIX_ERR_INVALID_ARGS" },
    { -41, "PMIX_ERR_INVALID_NUM_PARSED" },
    { -42, "PMIX_ERR_INVALID_KEYVALP" },
    { -43, "PMIX_ERR_INVALID_SIZE" },
    { -44, "PMIX_ERR_INVALID_NAMESPACE" },
    { -45, "PMIX_ERR_SERVER_NOT_AVAIL" },
    { -48, "PMIX_ERR_NOT_IMPLEMENTED" },
    { -63, "PMIX_ERR_FATAL" },
    { -64, "PMIX_ERR_NOT_AVAILABLE" },
    { -65, "PMIX_ERR_VALUE_OUT_OF_BOUNDS" },
    { -67, "PMIX_ERR_FILE_OPEN_FAILURE" },
    { -68, "PMIX_ERR_FILE_READ_FAILURE" },
    { -69, "PMIX_ERR_FILE_WRITE_FAILURE" },
    { -70, "PMIX_ERR_SYS_LIMITS_PIPES" },
    { -71, "PMIX_ERR_SYS_LIMITS_CHILDREN" },
    { -72, "PMIX_ERR_PIPE_SETUP_FAILURE" },
    { -73, "PMIX_ERR_EXE_NOT_ACCESSIBLE" },
    { -74, "PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE" },
    { -75, "PMIX_ERR_SYS_LIMITS_FILES" },
    { -101, "PMIX_ERR_LOST_CONNECTION_TO_SERVER" },
    { -102, "PMIX_ERR_LOST_PEER_CONNECTION" },
    { -103, "PMIX_ERR_LOST_CONNECTION_TO_CLIENT" },
    { -105, "PMIX_NOTIFY_ALLOC_COMPLETE" },
    { -112, "PMIX_ERR_INVALID_TERMINATION" },
    { -146, "PMIX_ERR_UPDATE_ENDPOINTS" },
    { -148, "PMIX_GDS_ACTION_COMPLETE" },
    { -149, "PMIX_PROC_HAS_CONNECTED" },
    { -150, "PMIX_CONNECT_REQUESTED" },
    { -66, "PMIX_ERR_NOT_A_MEMBER" },
    { -114, "PMIX_MONITOR_RESUSAGE_UPDATE" },
    { -405, "PMIX_ERR_IOF_XOFF" },
    { -196, "PMIX_ERR_DVM_MOD" },
    { -194, "PMIX_ALLOC_TIMEOUT_WARNING" },
    { -195, "PMIX_DVM_IS_READY" },
    { -202, "PMIX_ERR_LOST_PRECISION" },
    { -203, "PMIX_ERR_CHANGE_SIGN" },
};

SPX_EXPORT const char *PMIx_Error_string(pmix_status_t status)
{
    for (size_t i = 0; i < sizeof(err_names) / sizeof(err_names[0]); i++)
        if (err_names[i].code == status)
            return err_names[i].name;
    return "ERROR STRING NOT FOUND";
}

/* PMIx v5: the reverse lookup, ignoring case; the first code listed under a
 * name wins (as for the strings); INT32_MIN for a name not in the table. */
SPX_EXPORT pmix_status_t PMIx_Error_code(const char *errname)
{
    if (errname == NULL)
        return INT32_MIN;
    for (size_t i = 0; i < sizeof(err_names) / sizeof(err_names[0]); i++)
        if (strcasecmp(err_names[i].name, errname) == 0)
            return err_names[i].code;
    return INT32_MIN;
}
