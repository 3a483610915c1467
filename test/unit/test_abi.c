/*
 * test_abi.c - Check tests for the public headers.
 *
 * 1. ABI: the size of every public type and the offset/size of every struct
 *    member must equal what OpenPMIx 4.2's headers give on x86_64 (numbers
 *    measured once with abi_dump built against those headers), and a sample
 *    of constants and key strings must carry OpenPMIx's values.
 * 2. Behaviour of the header-only macros (key/nspace loading, proc checks,
 *    argv/env helpers, boolean parsing, array construction, nested frees).
 *    The test links no PMIx library: the one library function the free
 *    macros reach, PMIx_Value_destruct, is replaced below by a recording
 *    double, so the tests can check which values the macros destruct.
 */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>
#include <pmix_tool.h>

struct size_case { const char *name; size_t got, want; };
struct field_case { const char *name; size_t got_off, got_size, want_off, want_size; };
struct num_case { const char *name; long long got, want; };
struct str_case { const char *name; const char *got, *want; };

#define FIELD(T, m, off, sz) { #T "." #m, offsetof(T, m), sizeof(((T *) 0)->m), off, sz }
#define COUNT(a) ((int) (sizeof(a) / sizeof((a)[0])))

/* Recording double for the library's PMIx_Value_destruct: counts calls and
 * releases string values (the only kind the tests below load). */
static int value_destructs;

void PMIx_Value_destruct(pmix_value_t *val)
{
    value_destructs++;
    if (val->type == PMIX_STRING)
        free(val->data.string);
    val->type = PMIX_UNDEF;
    val->data.ptr = NULL;
}

static void info_set_string(pmix_info_t *info, const char *key, const char *s)
{
    PMIX_LOAD_KEY(info->key, key);
    info->value.type = PMIX_STRING;
    info->value.data.string = strdup(s);
}

/* Expected layouts: sizes of the public types (OpenPMIx 4.2, x86_64). */
static const struct size_case size_cases[] = {
    { "pmix_nspace_t", sizeof(pmix_nspace_t), 256 },
    { "pmix_key_t", sizeof(pmix_key_t), 512 },
    { "pmix_rank_t", sizeof(pmix_rank_t), 4 },
    { "pmix_proc_state_t", sizeof(pmix_proc_state_t), 1 },
    { "pmix_job_state_t", sizeof(pmix_job_state_t), 1 },
    { "pmix_status_t", sizeof(pmix_status_t), 4 },
    { "pmix_data_type_t", sizeof(pmix_data_type_t), 2 },
    { "pmix_scope_t", sizeof(pmix_scope_t), 1 },
    { "pmix_data_range_t", sizeof(pmix_data_range_t), 1 },
    { "pmix_persistence_t", sizeof(pmix_persistence_t), 1 },
    { "pmix_info_directives_t", sizeof(pmix_info_directives_t), 4 },
    { "pmix_alloc_directive_t", sizeof(pmix_alloc_directive_t), 1 },
    { "pmix_iof_channel_t", sizeof(pmix_iof_channel_t), 2 },
    { "pmix_storage_medium_t", sizeof(pmix_storage_medium_t), 8 },
    { "pmix_storage_accessibility_t", sizeof(pmix_storage_accessibility_t), 8 },
    { "pmix_storage_persistence_t", sizeof(pmix_storage_persistence_t), 8 },
    { "pmix_storage_access_type_t", sizeof(pmix_storage_access_type_t), 2 },
    { "pmix_coord_view_t", sizeof(pmix_coord_view_t), 1 },
    { "pmix_link_state_t", sizeof(pmix_link_state_t), 1 },
    { "pmix_bind_envelope_t", sizeof(pmix_bind_envelope_t), 1 },
    { "pmix_locality_t", sizeof(pmix_locality_t), 2 },
    { "pmix_device_type_t", sizeof(pmix_device_type_t), 8 },
    { "pmix_value_cmp_t", sizeof(pmix_value_cmp_t), 4 },
    { "pmix_group_opt_t", sizeof(pmix_group_opt_t), 4 },
    { "pmix_group_operation_t", sizeof(pmix_group_operation_t), 4 },
    { "pmix_fabric_operation_t", sizeof(pmix_fabric_operation_t), 4 },
    { "pmix_boolean_t", sizeof(pmix_boolean_t), 4 },
    { "pmix_proc_t", sizeof(pmix_proc_t), 260 },
    { "pmix_byte_object_t", sizeof(pmix_byte_object_t), 16 },
    { "pmix_data_array_t", sizeof(pmix_data_array_t), 24 },
    { "pmix_coord_t", sizeof(pmix_coord_t), 24 },
    { "pmix_cpuset_t", sizeof(pmix_cpuset_t), 16 },
    { "pmix_topology_t", sizeof(pmix_topology_t), 16 },
    { "pmix_geometry_t", sizeof(pmix_geometry_t), 40 },
    { "pmix_device_distance_t", sizeof(pmix_device_distance_t), 32 },
    { "pmix_endpoint_t", sizeof(pmix_endpoint_t), 32 },
    { "pmix_envar_t", sizeof(pmix_envar_t), 24 },
    { "pmix_data_buffer_t", sizeof(pmix_data_buffer_t), 40 },
    { "pmix_proc_info_t", sizeof(pmix_proc_info_t), 296 },
    { "pmix_proc_stats_t", sizeof(pmix_proc_stats_t), 352 },
    { "pmix_disk_stats_t", sizeof(pmix_disk_stats_t), 96 },
    { "pmix_net_stats_t", sizeof(pmix_net_stats_t), 56 },
    { "pmix_node_stats_t", sizeof(pmix_node_stats_t), 104 },
    { "pmix_value_t", sizeof(pmix_value_t), 32 },
    { "pmix_info_t", sizeof(pmix_info_t), 552 },
    { "pmix_pdata_t", sizeof(pmix_pdata_t), 808 },
    { "pmix_app_t", sizeof(pmix_app_t), 56 },
    { "pmix_query_t", sizeof(pmix_query_t), 24 },
    { "pmix_regattr_t", sizeof(pmix_regattr_t), 536 },
    { "pmix_fabric_t", sizeof(pmix_fabric_t), 40 },
    /* OpenPMIx 4.2 has 224: PMIx v5 appended session_control (OpenPMIx 5.0: 232) */
    { "pmix_server_module_t", sizeof(pmix_server_module_t), 232 },
};

/* Expected layouts: offset and size of every struct member. */
static const struct field_case field_cases[] = {
    FIELD(pmix_proc_t, nspace, 0, 256),
    FIELD(pmix_proc_t, rank, 256, 4),
    FIELD(pmix_byte_object_t, bytes, 0, 8),
    FIELD(pmix_byte_object_t, size, 8, 8),
    FIELD(pmix_data_array_t, type, 0, 2),
    FIELD(pmix_data_array_t, size, 8, 8),
    FIELD(pmix_data_array_t, array, 16, 8),
    FIELD(pmix_coord_t, view, 0, 1),
    FIELD(pmix_coord_t, coord, 8, 8),
    FIELD(pmix_coord_t, dims, 16, 8),
    FIELD(pmix_cpuset_t, source, 0, 8),
    FIELD(pmix_cpuset_t, bitmap, 8, 8),
    FIELD(pmix_topology_t, source, 0, 8),
    FIELD(pmix_topology_t, topology, 8, 8),
    FIELD(pmix_geometry_t, fabric, 0, 8),
    FIELD(pmix_geometry_t, uuid, 8, 8),
    FIELD(pmix_geometry_t, osname, 16, 8),
    FIELD(pmix_geometry_t, coordinates, 24, 8),
    FIELD(pmix_geometry_t, ncoords, 32, 8),
    FIELD(pmix_device_distance_t, uuid, 0, 8),
    FIELD(pmix_device_distance_t, osname, 8, 8),
    FIELD(pmix_device_distance_t, type, 16, 8),
    FIELD(pmix_device_distance_t, mindist, 24, 2),
    FIELD(pmix_device_distance_t, maxdist, 26, 2),
    FIELD(pmix_endpoint_t, uuid, 0, 8),
    FIELD(pmix_endpoint_t, osname, 8, 8),
    FIELD(pmix_endpoint_t, endpt, 16, 16),
    FIELD(pmix_envar_t, envar, 0, 8),
    FIELD(pmix_envar_t, value, 8, 8),
    FIELD(pmix_envar_t, separator, 16, 1),
    FIELD(pmix_data_buffer_t, base_ptr, 0, 8),
    FIELD(pmix_data_buffer_t, pack_ptr, 8, 8),
    FIELD(pmix_data_buffer_t, unpack_ptr, 16, 8),
    FIELD(pmix_data_buffer_t, bytes_allocated, 24, 8),
    FIELD(pmix_data_buffer_t, bytes_used, 32, 8),
    FIELD(pmix_proc_info_t, proc, 0, 260),
    FIELD(pmix_proc_info_t, hostname, 264, 8),
    FIELD(pmix_proc_info_t, executable_name, 272, 8),
    FIELD(pmix_proc_info_t, pid, 280, 4),
    FIELD(pmix_proc_info_t, exit_code, 284, 4),
    FIELD(pmix_proc_info_t, state, 288, 1),
    FIELD(pmix_proc_stats_t, node, 0, 8),
    FIELD(pmix_proc_stats_t, proc, 8, 260),
    FIELD(pmix_proc_stats_t, pid, 268, 4),
    FIELD(pmix_proc_stats_t, cmd, 272, 8),
    FIELD(pmix_proc_stats_t, state, 280, 1),
    FIELD(pmix_proc_stats_t, time, 288, 16),
    FIELD(pmix_proc_stats_t, percent_cpu, 304, 4),
    FIELD(pmix_proc_stats_t, priority, 308, 4),
    FIELD(pmix_proc_stats_t, num_threads, 312, 2),
    FIELD(pmix_proc_stats_t, pss, 316, 4),
    FIELD(pmix_proc_stats_t, vsize, 320, 4),
    FIELD(pmix_proc_stats_t, rss, 324, 4),
    FIELD(pmix_proc_stats_t, peak_vsize, 328, 4),
    FIELD(pmix_proc_stats_t, processor, 332, 2),
    FIELD(pmix_proc_stats_t, sample_time, 336, 16),
    FIELD(pmix_disk_stats_t, disk, 0, 8),
    FIELD(pmix_disk_stats_t, num_reads_completed, 8, 8),
    FIELD(pmix_disk_stats_t, num_reads_merged, 16, 8),
    FIELD(pmix_disk_stats_t, num_sectors_read, 24, 8),
    FIELD(pmix_disk_stats_t, milliseconds_reading, 32, 8),
    FIELD(pmix_disk_stats_t, num_writes_completed, 40, 8),
    FIELD(pmix_disk_stats_t, num_writes_merged, 48, 8),
    FIELD(pmix_disk_stats_t, num_sectors_written, 56, 8),
    FIELD(pmix_disk_stats_t, milliseconds_writing, 64, 8),
    FIELD(pmix_disk_stats_t, num_ios_in_progress, 72, 8),
    FIELD(pmix_disk_stats_t, milliseconds_io, 80, 8),
    FIELD(pmix_disk_stats_t, weighted_milliseconds_io, 88, 8),
    FIELD(pmix_net_stats_t, net_interface, 0, 8),
    FIELD(pmix_net_stats_t, num_bytes_recvd, 8, 8),
    FIELD(pmix_net_stats_t, num_packets_recvd, 16, 8),
    FIELD(pmix_net_stats_t, num_recv_errs, 24, 8),
    FIELD(pmix_net_stats_t, num_bytes_sent, 32, 8),
    FIELD(pmix_net_stats_t, num_packets_sent, 40, 8),
    FIELD(pmix_net_stats_t, num_send_errs, 48, 8),
    FIELD(pmix_node_stats_t, node, 0, 8),
    FIELD(pmix_node_stats_t, la, 8, 4),
    FIELD(pmix_node_stats_t, la5, 12, 4),
    FIELD(pmix_node_stats_t, la15, 16, 4),
    FIELD(pmix_node_stats_t, total_mem, 20, 4),
    FIELD(pmix_node_stats_t, free_mem, 24, 4),
    FIELD(pmix_node_stats_t, buffers, 28, 4),
    FIELD(pmix_node_stats_t, cached, 32, 4),
    FIELD(pmix_node_stats_t, swap_cached, 36, 4),
    FIELD(pmix_node_stats_t, swap_total, 40, 4),
    FIELD(pmix_node_stats_t, swap_free, 44, 4),
    FIELD(pmix_node_stats_t, mapped, 48, 4),
    FIELD(pmix_node_stats_t, sample_time, 56, 16),
    FIELD(pmix_node_stats_t, diskstats, 72, 8),
    FIELD(pmix_node_stats_t, ndiskstats, 80, 8),
    FIELD(pmix_node_stats_t, netstats, 88, 8),
    FIELD(pmix_node_stats_t, nnetstats, 96, 8),
    FIELD(pmix_value_t, data, 8, 24),
    FIELD(pmix_value_t, data.flag, 8, 1),
    FIELD(pmix_value_t, data.byte, 8, 1),
    FIELD(pmix_value_t, data.string, 8, 8),
    FIELD(pmix_value_t, data.size, 8, 8),
    FIELD(pmix_value_t, data.pid, 8, 4),
    FIELD(pmix_value_t, data.integer, 8, 4),
    FIELD(pmix_value_t, data.int8, 8, 1),
    FIELD(pmix_value_t, data.int16, 8, 2),
    FIELD(pmix_value_t, data.int32, 8, 4),
    FIELD(pmix_value_t, data.int64, 8, 8),
    FIELD(pmix_value_t, data.uint, 8, 4),
    FIELD(pmix_value_t, data.uint8, 8, 1),
    FIELD(pmix_value_t, data.uint16, 8, 2),
    FIELD(pmix_value_t, data.uint32, 8, 4),
    FIELD(pmix_value_t, data.uint64, 8, 8),
    FIELD(pmix_value_t, data.fval, 8, 4),
    FIELD(pmix_value_t, data.dval, 8, 8),
    FIELD(pmix_value_t, data.tv, 8, 16),
    FIELD(pmix_value_t, data.time, 8, 8),
    FIELD(pmix_value_t, data.status, 8, 4),
    FIELD(pmix_value_t, data.rank, 8, 4),
    FIELD(pmix_value_t, data.nspace, 8, 8),
    FIELD(pmix_value_t, data.proc, 8, 8),
    FIELD(pmix_value_t, data.bo, 8, 16),
    FIELD(pmix_value_t, data.persist, 8, 1),
    FIELD(pmix_value_t, data.scope, 8, 1),
    FIELD(pmix_value_t, data.range, 8, 1),
    FIELD(pmix_value_t, data.state, 8, 1),
    FIELD(pmix_value_t, data.pinfo, 8, 8),
    FIELD(pmix_value_t, data.darray, 8, 8),
    FIELD(pmix_value_t, data.ptr, 8, 8),
    FIELD(pmix_value_t, data.adir, 8, 1),
    FIELD(pmix_value_t, data.envar, 8, 24),
    FIELD(pmix_value_t, data.coord, 8, 8),
    FIELD(pmix_value_t, data.linkstate, 8, 1),
    FIELD(pmix_value_t, data.jstate, 8, 1),
    FIELD(pmix_value_t, data.topo, 8, 8),
    FIELD(pmix_value_t, data.cpuset, 8, 8),
    FIELD(pmix_value_t, data.locality, 8, 2),
    FIELD(pmix_value_t, data.geometry, 8, 8),
    FIELD(pmix_value_t, data.devtype, 8, 8),
    FIELD(pmix_value_t, data.devdist, 8, 8),
    FIELD(pmix_value_t, data.endpoint, 8, 8),
    FIELD(pmix_value_t, data.dbuf, 8, 8),
    FIELD(pmix_value_t, data.pstats, 8, 8),
    FIELD(pmix_value_t, data.dkstats, 8, 8),
    FIELD(pmix_value_t, data.netstats, 8, 8),
    FIELD(pmix_value_t, data.ndstats, 8, 8),
    FIELD(pmix_value_t, type, 0, 2),
    FIELD(pmix_info_t, key, 0, 512),
    FIELD(pmix_info_t, flags, 512, 4),
    FIELD(pmix_info_t, value, 520, 32),
    FIELD(pmix_pdata_t, proc, 0, 260),
    FIELD(pmix_pdata_t, key, 260, 512),
    FIELD(pmix_pdata_t, value, 776, 32),
    FIELD(pmix_app_t, cmd, 0, 8),
    FIELD(pmix_app_t, argv, 8, 8),
    FIELD(pmix_app_t, env, 16, 8),
    FIELD(pmix_app_t, cwd, 24, 8),
    FIELD(pmix_app_t, maxprocs, 32, 4),
    FIELD(pmix_app_t, info, 40, 8),
    FIELD(pmix_app_t, ninfo, 48, 8),
    FIELD(pmix_query_t, keys, 0, 8),
    FIELD(pmix_query_t, qualifiers, 8, 8),
    FIELD(pmix_query_t, nqual, 16, 8),
    FIELD(pmix_regattr_t, name, 0, 8),
    FIELD(pmix_regattr_t, string, 8, 512),
    FIELD(pmix_regattr_t, type, 520, 2),
    FIELD(pmix_regattr_t, description, 528, 8),
    FIELD(pmix_fabric_t, name, 0, 8),
    FIELD(pmix_fabric_t, index, 8, 8),
    FIELD(pmix_fabric_t, info, 16, 8),
    FIELD(pmix_fabric_t, ninfo, 24, 8),
    FIELD(pmix_fabric_t, module, 32, 8),
    FIELD(pmix_server_module_t, client_connected, 0, 8),
    FIELD(pmix_server_module_t, client_finalized, 8, 8),
    FIELD(pmix_server_module_t, abort, 16, 8),
    FIELD(pmix_server_module_t, fence_nb, 24, 8),
    FIELD(pmix_server_module_t, direct_modex, 32, 8),
    FIELD(pmix_server_module_t, publish, 40, 8),
    FIELD(pmix_server_module_t, lookup, 48, 8),
    FIELD(pmix_server_module_t, unpublish, 56, 8),
    FIELD(pmix_server_module_t, spawn, 64, 8),
    FIELD(pmix_server_module_t, connect, 72, 8),
    FIELD(pmix_server_module_t, disconnect, 80, 8),
    FIELD(pmix_server_module_t, register_events, 88, 8),
    FIELD(pmix_server_module_t, deregister_events, 96, 8),
    FIELD(pmix_server_module_t, listener, 104, 8),
    FIELD(pmix_server_module_t, notify_event, 112, 8),
    FIELD(pmix_server_module_t, query, 120, 8),
    FIELD(pmix_server_module_t, tool_connected, 128, 8),
    FIELD(pmix_server_module_t, log, 136, 8),
    FIELD(pmix_server_module_t, allocate, 144, 8),
    FIELD(pmix_server_module_t, job_control, 152, 8),
    FIELD(pmix_server_module_t, monitor, 160, 8),
    FIELD(pmix_server_module_t, get_credential, 168, 8),
    FIELD(pmix_server_module_t, validate_credential, 176, 8),
    FIELD(pmix_server_module_t, iof_pull, 184, 8),
    FIELD(pmix_server_module_t, push_stdin, 192, 8),
    FIELD(pmix_server_module_t, group, 200, 8),
    FIELD(pmix_server_module_t, fabric, 208, 8),
    FIELD(pmix_server_module_t, client_connected2, 216, 8),
};

/* A sample of constant values (OpenPMIx 4.2), plus the post-4.2 additions. */
static const struct num_case num_cases[] = {
    { "PMIX_SUCCESS", (long long) (PMIX_SUCCESS), 0LL },
    { "PMIX_ERROR", (long long) (PMIX_ERROR), -1LL },
    { "PMIX_ERR_EXISTS", (long long) (PMIX_ERR_EXISTS), -11LL },
    { "PMIX_ERR_INVALID_CRED", (long long) (PMIX_ERR_INVALID_CRED), -12LL },
    { "PMIX_ERR_WOULD_BLOCK", (long long) (PMIX_ERR_WOULD_BLOCK), -15LL },
    { "PMIX_ERR_UNKNOWN_DATA_TYPE", (long long) (PMIX_ERR_UNKNOWN_DATA_TYPE), -16LL },
    { "PMIX_ERR_TYPE_MISMATCH", (long long) (PMIX_ERR_TYPE_MISMATCH), -18LL },
    { "PMIX_ERR_UNPACK_INADEQUATE_SPACE", (long long) (PMIX_ERR_UNPACK_INADEQUATE_SPACE), -19LL },
    { "PMIX_ERR_NO_PERMISSIONS", (long long) (PMIX_ERR_NO_PERMISSIONS), -23LL },
    { "PMIX_ERR_TIMEOUT", (long long) (PMIX_ERR_TIMEOUT), -24LL },
    { "PMIX_ERR_UNREACH", (long long) (PMIX_ERR_UNREACH), -25LL },
    { "PMIX_ERR_BAD_PARAM", (long long) (PMIX_ERR_BAD_PARAM), -27LL },
    { "PMIX_ERR_OUT_OF_RESOURCE", (long long) (PMIX_ERR_OUT_OF_RESOURCE), -29LL },
    { "PMIX_ERR_INIT", (long long) (PMIX_ERR_INIT), -31LL },
    { "PMIX_ERR_NOMEM", (long long) (PMIX_ERR_NOMEM), -32LL },
    { "PMIX_ERR_NOT_FOUND", (long long) (PMIX_ERR_NOT_FOUND), -46LL },
    { "PMIX_ERR_NOT_SUPPORTED", (long long) (PMIX_ERR_NOT_SUPPORTED), -47LL },
    { "PMIX_ERR_COMM_FAILURE", (long long) (PMIX_ERR_COMM_FAILURE), -49LL },
    { "PMIX_ERR_PARTIAL_SUCCESS", (long long) (PMIX_ERR_PARTIAL_SUCCESS), -52LL },
    { "PMIX_ERR_LOST_CONNECTION", (long long) (PMIX_ERR_LOST_CONNECTION), -61LL },
    { "PMIX_ERR_NOT_AVAILABLE", (long long) (PMIX_ERR_NOT_AVAILABLE), -64LL },
    { "PMIX_OPERATION_IN_PROGRESS", (long long) (PMIX_OPERATION_IN_PROGRESS), -156LL },
    { "PMIX_OPERATION_SUCCEEDED", (long long) (PMIX_OPERATION_SUCCEEDED), -157LL },
    { "PMIX_ERR_INVALID_OPERATION", (long long) (PMIX_ERR_INVALID_OPERATION), -158LL },
    { "PMIX_GROUP_INVITED", (long long) (PMIX_GROUP_INVITED), -159LL },
    { "PMIX_GROUP_LEFT", (long long) (PMIX_GROUP_LEFT), -160LL },
    { "PMIX_GROUP_INVITE_ACCEPTED", (long long) (PMIX_GROUP_INVITE_ACCEPTED), -161LL },
    { "PMIX_GROUP_INVITE_DECLINED", (long long) (PMIX_GROUP_INVITE_DECLINED), -162LL },
    { "PMIX_GROUP_INVITE_FAILED", (long long) (PMIX_GROUP_INVITE_FAILED), -163LL },
    { "PMIX_GROUP_MEMBERSHIP_UPDATE", (long long) (PMIX_GROUP_MEMBERSHIP_UPDATE), -164LL },
    { "PMIX_GROUP_CONSTRUCT_ABORT", (long long) (PMIX_GROUP_CONSTRUCT_ABORT), -165LL },
    { "PMIX_GROUP_CONSTRUCT_COMPLETE", (long long) (PMIX_GROUP_CONSTRUCT_COMPLETE), -166LL },
    { "PMIX_GROUP_LEADER_SELECTED", (long long) (PMIX_GROUP_LEADER_SELECTED), -167LL },
    { "PMIX_GROUP_LEADER_FAILED", (long long) (PMIX_GROUP_LEADER_FAILED), -168LL },
    { "PMIX_GROUP_CONTEXT_ID_ASSIGNED", (long long) (PMIX_GROUP_CONTEXT_ID_ASSIGNED), -169LL },
    { "PMIX_GROUP_MEMBER_FAILED", (long long) (PMIX_GROUP_MEMBER_FAILED), -170LL },
    { "PMIX_ERR_IOF_FAILURE", (long long) (PMIX_ERR_IOF_FAILURE), -172LL },
    { "PMIX_ERR_IOF_COMPLETE", (long long) (PMIX_ERR_IOF_COMPLETE), -173LL },
    { "PMIX_MODEL_DECLARED", (long long) (PMIX_MODEL_DECLARED), -147LL },
    { "PMIX_EVENT_JOB_END", (long long) (PMIX_EVENT_JOB_END), -145LL },
    { "PMIX_ERR_PROC_ABORTED", (long long) (PMIX_ERR_PROC_ABORTED), -7LL },
    { "PMIX_EVENT_PROC_TERMINATED", (long long) (PMIX_EVENT_PROC_TERMINATED), -201LL },
    { "PMIX_EVENT_ACTION_COMPLETE", (long long) (PMIX_EVENT_ACTION_COMPLETE), -334LL },
    { "PMIX_EVENT_SYS_BASE", (long long) (PMIX_EVENT_SYS_BASE), -230LL },
    { "PMIX_EVENT_SYS_OTHER", (long long) (PMIX_EVENT_SYS_OTHER), -330LL },
    { "PMIX_EXTERNAL_ERR_BASE", (long long) (PMIX_EXTERNAL_ERR_BASE), -3000LL },
    { "PMIX_ERR_LOST_CONNECTION_TO_SERVER", (long long) (PMIX_ERR_LOST_CONNECTION_TO_SERVER), -101LL },
    { "PMIX_UNDEF", (long long) (PMIX_UNDEF), 0LL },
    { "PMIX_BOOL", (long long) (PMIX_BOOL), 1LL },
    { "PMIX_BYTE", (long long) (PMIX_BYTE), 2LL },
    { "PMIX_STRING", (long long) (PMIX_STRING), 3LL },
    { "PMIX_SIZE", (long long) (PMIX_SIZE), 4LL },
    { "PMIX_PID", (long long) (PMIX_PID), 5LL },
    { "PMIX_INT", (long long) (PMIX_INT), 6LL },
    { "PMIX_UINT32", (long long) (PMIX_UINT32), 14LL },
    { "PMIX_UINT64", (long long) (PMIX_UINT64), 15LL },
    { "PMIX_DOUBLE", (long long) (PMIX_DOUBLE), 17LL },
    { "PMIX_STATUS", (long long) (PMIX_STATUS), 20LL },
    { "PMIX_VALUE", (long long) (PMIX_VALUE), 21LL },
    { "PMIX_PROC", (long long) (PMIX_PROC), 22LL },
    { "PMIX_APP", (long long) (PMIX_APP), 23LL },
    { "PMIX_INFO", (long long) (PMIX_INFO), 24LL },
    { "PMIX_PDATA", (long long) (PMIX_PDATA), 25LL },
    { "PMIX_BYTE_OBJECT", (long long) (PMIX_BYTE_OBJECT), 27LL },
    { "PMIX_POINTER", (long long) (PMIX_POINTER), 31LL },
    { "PMIX_PROC_RANK", (long long) (PMIX_PROC_RANK), 40LL },
    { "PMIX_DATA_ARRAY", (long long) (PMIX_DATA_ARRAY), 39LL },
    { "PMIX_ENVAR", (long long) (PMIX_ENVAR), 46LL },
    { "PMIX_PROC_CPUSET", (long long) (PMIX_PROC_CPUSET), 52LL },
    { "PMIX_TOPO", (long long) (PMIX_TOPO), 56LL },
    { "PMIX_PROC_NSPACE", (long long) (PMIX_PROC_NSPACE), 60LL },
    { "PMIX_DATA_BUFFER", (long long) (PMIX_DATA_BUFFER), 65LL },
    { "PMIX_STOR_ACCESS_TYPE", (long long) (PMIX_STOR_ACCESS_TYPE), 69LL },
    { "PMIX_DATA_TYPE_MAX", (long long) (PMIX_DATA_TYPE_MAX), 500LL },
    { "PMIX_RANK_UNDEF", (long long) (PMIX_RANK_UNDEF), 4294967295LL },
    { "PMIX_RANK_WILDCARD", (long long) (PMIX_RANK_WILDCARD), 4294967294LL },
    { "PMIX_RANK_LOCAL_NODE", (long long) (PMIX_RANK_LOCAL_NODE), 4294967293LL },
    { "PMIX_RANK_LOCAL_PEERS", (long long) (PMIX_RANK_LOCAL_PEERS), 4294967291LL },
    { "PMIX_RANK_INVALID", (long long) (PMIX_RANK_INVALID), 4294967292LL },
    { "PMIX_RANK_VALID", (long long) (PMIX_RANK_VALID), 4294967245LL },
    { "PMIX_SCOPE_UNDEF", (long long) (PMIX_SCOPE_UNDEF), 0LL },
    { "PMIX_LOCAL", (long long) (PMIX_LOCAL), 1LL },
    { "PMIX_REMOTE", (long long) (PMIX_REMOTE), 2LL },
    { "PMIX_GLOBAL", (long long) (PMIX_GLOBAL), 3LL },
    { "PMIX_INTERNAL", (long long) (PMIX_INTERNAL), 4LL },
    { "PMIX_RANGE_RM", (long long) (PMIX_RANGE_RM), 1LL },
    { "PMIX_RANGE_LOCAL", (long long) (PMIX_RANGE_LOCAL), 2LL },
    { "PMIX_RANGE_NAMESPACE", (long long) (PMIX_RANGE_NAMESPACE), 3LL },
    { "PMIX_RANGE_SESSION", (long long) (PMIX_RANGE_SESSION), 4LL },
    { "PMIX_RANGE_GLOBAL", (long long) (PMIX_RANGE_GLOBAL), 5LL },
    { "PMIX_RANGE_CUSTOM", (long long) (PMIX_RANGE_CUSTOM), 6LL },
    { "PMIX_RANGE_PROC_LOCAL", (long long) (PMIX_RANGE_PROC_LOCAL), 7LL },
    { "PMIX_RANGE_INVALID", (long long) (PMIX_RANGE_INVALID), 255LL },
    { "PMIX_PERSIST_SESSION", (long long) (PMIX_PERSIST_SESSION), 4LL },
    { "PMIX_INFO_REQD", (long long) (PMIX_INFO_REQD), 1LL },
    { "PMIX_INFO_ARRAY_END", (long long) (PMIX_INFO_ARRAY_END), 2LL },
    { "PMIX_INFO_PERSISTENT", (long long) (PMIX_INFO_PERSISTENT), 16LL },
    { "PMIX_FWD_STDIN_CHANNEL", (long long) (PMIX_FWD_STDIN_CHANNEL), 1LL },
    { "PMIX_FWD_ALL_CHANNELS", (long long) (PMIX_FWD_ALL_CHANNELS), 255LL },
    { "PMIX_PROC_STATE_TERMINATED", (long long) (PMIX_PROC_STATE_TERMINATED), 20LL },
    { "PMIX_PROC_STATE_ABORTED_BY_SIG", (long long) (PMIX_PROC_STATE_ABORTED_BY_SIG), 54LL },
    { "PMIX_JOB_STATE_TERMINATED_WITH_ERROR", (long long) (PMIX_JOB_STATE_TERMINATED_WITH_ERROR), 50LL },
    { "PMIX_MAX_NSLEN", (long long) (PMIX_MAX_NSLEN), 255LL },
    { "PMIX_MAX_KEYLEN", (long long) (PMIX_MAX_KEYLEN), 511LL },
    { "PMIX_GROUP_DECLINE", (long long) (PMIX_GROUP_DECLINE), 0LL },
    { "PMIX_GROUP_ACCEPT", (long long) (PMIX_GROUP_ACCEPT), 1LL },
    { "PMIX_NUMERIC_VERSION", (long long) (PMIX_NUMERIC_VERSION), 262658LL },
    { "PMIX_VERSION_MAJOR", (long long) (PMIX_VERSION_MAJOR), 4LL },
    { "PMIX_LOCALITY_SHARE_NODE", (long long) (PMIX_LOCALITY_SHARE_NODE), 16384LL },
    { "PMIX_DEVTYPE_GPU", (long long) (PMIX_DEVTYPE_GPU), 2LL },
    { "PMIX_DEL_LOCAL", (long long) (PMIX_DEL_LOCAL), 5LL },
    { "PMIX_DEL_REMOTE", (long long) (PMIX_DEL_REMOTE), 6LL },
    { "PMIX_DEL_GLOBAL", (long long) (PMIX_DEL_GLOBAL), 7LL },
    { "PMIX_DEL_INTERNAL", (long long) (PMIX_DEL_INTERNAL), 8LL },
    { "PMIX_ERR_NOT_A_MEMBER", (long long) (PMIX_ERR_NOT_A_MEMBER), -66LL },
    { "PMIX_CAP_GROUP_JOIN_COMPLETES", (long long) (PMIX_CAP_GROUP_JOIN_COMPLETES), 13LL },
    { "PMIX_CAP_DATA_DELETE", (long long) (PMIX_CAP_DATA_DELETE), 17LL },
};

static const struct str_case str_cases[] = {
    { "PMIX_COLLECT_DATA", PMIX_COLLECT_DATA, "pmix.collect" },
    { "PMIX_TIMEOUT", PMIX_TIMEOUT, "pmix.timeout" },
    { "PMIX_OPTIONAL", PMIX_OPTIONAL, "pmix.optional" },
    { "PMIX_IMMEDIATE", PMIX_IMMEDIATE, "pmix.immediate" },
    { "PMIX_WAIT", PMIX_WAIT, "pmix.wait" },
    { "PMIX_EVENT_HDLR_PREPEND", PMIX_EVENT_HDLR_PREPEND, "pmix.evprepend" },
    { "PMIX_PROGRAMMING_MODEL", PMIX_PROGRAMMING_MODEL, "pmix.pgm.model" },
    { "PMIX_LOCAL_RANK", PMIX_LOCAL_RANK, "pmix.lrank" },
    { "PMIX_NODE_RANK", PMIX_NODE_RANK, "pmix.nrank" },
    { "PMIX_JOB_SIZE", PMIX_JOB_SIZE, "pmix.job.size" },
    { "PMIX_MAX_PROCS", PMIX_MAX_PROCS, "pmix.max.size" },
    { "PMIX_UNIV_SIZE", PMIX_UNIV_SIZE, "pmix.univ.size" },
    { "PMIX_LOCAL_SIZE", PMIX_LOCAL_SIZE, "pmix.local.size" },
    { "PMIX_LOCAL_PEERS", PMIX_LOCAL_PEERS, "pmix.lpeers" },
    { "PMIX_LOCALITY_STRING", PMIX_LOCALITY_STRING, "pmix.locstr" },
    { "PMIX_CPUSET", PMIX_CPUSET, "pmix.cpuset" },
    { "PMIX_HOSTNAME", PMIX_HOSTNAME, "pmix.hname" },
    { "PMIX_APPNUM", PMIX_APPNUM, "pmix.appnum" },
    { "PMIX_NSDIR", PMIX_NSDIR, "pmix.nsdir" },
    { "PMIX_PROCDIR", PMIX_PROCDIR, "pmix.pdir" },
    { "PMIX_TMPDIR", PMIX_TMPDIR, "pmix.tmpdir" },
    { "PMIX_TDIR_RMCLEAN", PMIX_TDIR_RMCLEAN, "pmix.tdir.rmclean" },
    { "PMIX_NUM_NODES", PMIX_NUM_NODES, "pmix.num.nodes" },
    { "PMIX_MAPBY", PMIX_MAPBY, "pmix.mapby" },
    { "PMIX_REGISTER_CLEANUP", PMIX_REGISTER_CLEANUP, "pmix.reg.cleanup" },
    { "PMIX_REGISTER_CLEANUP_DIR", PMIX_REGISTER_CLEANUP_DIR, "pmix.reg.cleanupdir" },
    { "PMIX_CLEANUP_RECURSIVE", PMIX_CLEANUP_RECURSIVE, "pmix.clnup.recurse" },
    { "PMIX_GROUP_ID", PMIX_GROUP_ID, "pmix.grp.id" },
    { "PMIX_GROUP_LEADER", PMIX_GROUP_LEADER, "pmix.grp.ldr" },
    { "PMIX_GROUP_MEMBERSHIP", PMIX_GROUP_MEMBERSHIP, "pmix.grp.mbrs" },
    { "PMIX_GROUP_CONTEXT_ID", PMIX_GROUP_CONTEXT_ID, "pmix.grp.ctxid" },
    { "PMIX_GROUP_ASSIGN_CONTEXT_ID", PMIX_GROUP_ASSIGN_CONTEXT_ID, "pmix.grp.actxid" },
    { "PMIX_GROUP_NOTIFY_TERMINATION", PMIX_GROUP_NOTIFY_TERMINATION, "pmix.grp.notterm" },
    { "PMIX_GROUP_OPTIONAL", PMIX_GROUP_OPTIONAL, "pmix.grp.opt" },
    { "PMIX_IOF_PUSH_STDIN", PMIX_IOF_PUSH_STDIN, "pmix.iof.stdin" },
    { "PMIX_IOF_COMPLETE", PMIX_IOF_COMPLETE, "pmix.iof.cmp" },
    { "PMIX_IOF_CACHE_SIZE", PMIX_IOF_CACHE_SIZE, "pmix.iof.csize" },
    { "PMIX_IOF_DROP_OLDEST", PMIX_IOF_DROP_OLDEST, "pmix.iof.old" },
    { "PMIX_IOF_DROP_NEWEST", PMIX_IOF_DROP_NEWEST, "pmix.iof.new" },
    { "PMIX_IOF_BUFFERING_SIZE", PMIX_IOF_BUFFERING_SIZE, "pmix.iof.bsize" },
    { "PMIX_IOF_BUFFERING_TIME", PMIX_IOF_BUFFERING_TIME, "pmix.iof.btime" },
    { "PMIX_ALL_CLONES_PARTICIPATE", PMIX_ALL_CLONES_PARTICIPATE, "pmix.clone.part" },
    { "PMIX_COLLECT_GENERATED_JOB_INFO", PMIX_COLLECT_GENERATED_JOB_INFO, "pmix.collect.gen" },
    { "PMIX_COLLECTIVE_ALGO", PMIX_COLLECTIVE_ALGO, "pmix.calgo" },
    { "PMIX_LOCALITY", PMIX_LOCALITY, "pmix.loc" },
    { "PMIX_SEND_HEARTBEAT", PMIX_SEND_HEARTBEAT, "pmix.monitor.beat" },
    { "PMIX_NODE_MAP", PMIX_NODE_MAP, "pmix.nmap" },
    { "PMIX_PROC_MAP", PMIX_PROC_MAP, "pmix.pmap" },
    { "PMIX_ANL_MAP", PMIX_ANL_MAP, "pmix.anlmap" },
    { "PMIX_SERVER_TOOL_SUPPORT", PMIX_SERVER_TOOL_SUPPORT, "pmix.srvr.tool" },
    { "PMIX_SERVER_RANK", PMIX_SERVER_RANK, "pmix.srv.rank" },
    { "PMIX_SERVER_NSPACE", PMIX_SERVER_NSPACE, "pmix.srv.nspace" },
    { "PMIX_ATTR_UNDEF", PMIX_ATTR_UNDEF, "pmix.undef" },
    { "PMIX_LAUNCHER_RNDZ_URI", PMIX_LAUNCHER_RNDZ_URI, "PMIX_LAUNCHER_RNDZ_URI" },
    { "PMIX_QUERY_NAMESPACES", PMIX_QUERY_NAMESPACES, "pmix.qry.ns" },
    { "PMIX_QUERY_ATTRIBUTE_SUPPORT", PMIX_QUERY_ATTRIBUTE_SUPPORT, "pmix.qry.attrs" },
    { "PMIX_EVENT_AFFECTED_PROC", PMIX_EVENT_AFFECTED_PROC, "pmix.evproc" },
    { "PMIX_EVENT_NON_DEFAULT", PMIX_EVENT_NON_DEFAULT, "pmix.evnondef" },
    { "PMIX_NOTIFY_COMPLETION", PMIX_NOTIFY_COMPLETION, "pmix.notecomp" },
    { "PMIX_SPAWNED", PMIX_SPAWNED, "pmix.spawned" },
    { "PMIX_JOBID", PMIX_JOBID, "pmix.jobid" },
    { "PMIX_NODEID", PMIX_NODEID, "pmix.nodeid" },
    { "PMIX_GLOBAL_RANK", PMIX_GLOBAL_RANK, "pmix.grank" },
    { "PMIX_APP_RANK", PMIX_APP_RANK, "pmix.apprank" },
    { "PMIX_RANK", PMIX_RANK, "pmix.rank" },
    { "PMIX_NSPACE", PMIX_NSPACE, "pmix.nspace" },
    { "PMIX_PARENT_ID", PMIX_PARENT_ID, "pmix.parent" },
    { "PMIX_TOPOLOGY2", PMIX_TOPOLOGY2, "pmix.topo2" },
    { "PMIX_USERID", PMIX_USERID, "pmix.euid" },
    { "PMIX_GRPID", PMIX_GRPID, "pmix.egid" },
    { "PMIX_CREDENTIAL", PMIX_CREDENTIAL, "pmix.cred" },
    { "PMIX_PERSISTENCE", PMIX_PERSISTENCE, "pmix.persist" },
};

START_TEST(test_size)
{
    const struct size_case *c = &size_cases[_i];
    ck_assert_msg(c->got == c->want, "sizeof(%s) = %zu, OpenPMIx 4.2 has %zu",
                  c->name, c->got, c->want);
}
END_TEST

START_TEST(test_field)
{
    const struct field_case *c = &field_cases[_i];
    ck_assert_msg(c->got_off == c->want_off && c->got_size == c->want_size,
                  "%s at %zu size %zu, OpenPMIx 4.2: at %zu size %zu", c->name,
                  c->got_off, c->got_size, c->want_off, c->want_size);
}
END_TEST

START_TEST(test_num)
{
    const struct num_case *c = &num_cases[_i];
    ck_assert_msg(c->got == c->want, "%s = %lld, expected %lld", c->name, c->got, c->want);
}
END_TEST

START_TEST(test_str)
{
    const struct str_case *c = &str_cases[_i];
    ck_assert_msg(strcmp(c->got, c->want) == 0, "%s = \"%s\", expected \"%s\"",
                  c->name, c->got, c->want);
}
END_TEST

/* Every member of the module table is a function pointer, in 4.2's order. */
START_TEST(test_server_module_order)
{
    ck_assert_uint_eq(offsetof(pmix_server_module_t, client_connected), 0);
    ck_assert_uint_eq(offsetof(pmix_server_module_t, listener), 13 * sizeof(void *));
    ck_assert_uint_eq(offsetof(pmix_server_module_t, notify_event), 14 * sizeof(void *));
    ck_assert_uint_eq(offsetof(pmix_server_module_t, group), 25 * sizeof(void *));
    ck_assert_uint_eq(offsetof(pmix_server_module_t, client_connected2), 27 * sizeof(void *));
    ck_assert_uint_eq(offsetof(pmix_server_module_t, session_control), 28 * sizeof(void *));
    ck_assert_uint_eq(sizeof(pmix_server_module_t), 29 * sizeof(void *));
}
END_TEST

START_TEST(test_load_key_nspace)
{
    pmix_info_t info;
    pmix_proc_t p, q;
    char longkey[PMIX_MAX_KEYLEN + 50];

    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    memset(&info, 0x55, sizeof(info));
    PMIX_LOAD_KEY(info.key, longkey);
    ck_assert_uint_eq(strlen(info.key), PMIX_MAX_KEYLEN);
    PMIX_LOAD_KEY(info.key, PMIX_JOB_SIZE);
    ck_assert_str_eq(info.key, "pmix.job.size");
    ck_assert(PMIX_CHECK_KEY(&info, PMIX_JOB_SIZE));
    ck_assert(!PMIX_CHECK_KEY(&info, PMIX_LOCAL_SIZE));
    ck_assert(PMIX_CHECK_RESERVED_KEY(info.key));
    ck_assert(!PMIX_CHECK_RESERVED_KEY("btl.tcp.4.1"));
    PMIX_LOAD_KEY(info.key, NULL);
    ck_assert_str_eq(info.key, "");

    PMIX_PROC_LOAD(&p, "job-1", 3);
    ck_assert_str_eq(p.nspace, "job-1");
    ck_assert_uint_eq(p.rank, 3);
    PMIX_LOAD_PROCID(&q, "job-1", PMIX_RANK_WILDCARD);
    ck_assert(PMIX_CHECK_PROCID(&p, &q));          /* wildcard matches */
    q.rank = 4;
    ck_assert(!PMIX_CHECK_PROCID(&p, &q));
    PMIX_LOAD_NSPACE(q.nspace, "job-2");
    q.rank = 3;
    ck_assert(!PMIX_CHECK_PROCID(&p, &q));
    PMIX_LOAD_NSPACE(q.nspace, NULL);              /* empty nspace matches any */
    ck_assert(PMIX_CHECK_NSPACE(p.nspace, q.nspace));
    ck_assert(PMIX_NSPACE_INVALID(q.nspace));
    ck_assert(PMIX_PROCID_INVALID(&q));
    ck_assert(PMIX_CHECK_RANK(PMIX_RANK_WILDCARD, 7));
    ck_assert(!PMIX_CHECK_RANK(6, 7));
    ck_assert(PMIX_RANK_IS_VALID(12));
    ck_assert(!PMIX_RANK_IS_VALID(PMIX_RANK_WILDCARD));
    PMIX_XFER_PROCID(&q, &p);
    ck_assert_int_eq(memcmp(&q, &p, sizeof(p)), 0);
}
END_TEST

START_TEST(test_multicluster)
{
    pmix_nspace_t full, cl, ns;

    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(full, "clusterA", "job7");
    ck_assert_str_eq(full, "clusterA:job7");
    memset(cl, 0, sizeof(cl));
    memset(ns, 0, sizeof(ns));
    PMIX_MULTICLUSTER_NSPACE_PARSE(full, cl, ns);
    ck_assert_str_eq(cl, "clusterA");
    ck_assert_str_eq(ns, "job7");
}
END_TEST

START_TEST(test_info_flags)
{
    pmix_info_t *arr = NULL;
    pmix_info_t one;

    PMIX_INFO_CREATE(arr, 3);
    ck_assert_ptr_nonnull(arr);
    ck_assert(!PMIX_INFO_IS_END(&arr[0]));
    ck_assert(!PMIX_INFO_IS_END(&arr[1]));
    ck_assert(PMIX_INFO_IS_END(&arr[2]));
    ck_assert_uint_eq(arr[0].value.type, PMIX_UNDEF);
    free(arr);
    PMIX_INFO_CREATE(arr, 0);
    ck_assert_ptr_null(arr);

    PMIX_INFO_CONSTRUCT(&one);
    ck_assert(PMIX_INFO_IS_OPTIONAL(&one));
    PMIX_INFO_REQUIRED(&one);
    ck_assert(PMIX_INFO_IS_REQUIRED(&one));
    ck_assert(!PMIX_INFO_IS_OPTIONAL(&one));
    PMIX_INFO_OPTIONAL(&one);
    ck_assert(!PMIX_INFO_IS_REQUIRED(&one));
    ck_assert(!PMIX_INFO_WAS_PROCESSED(&one));
    PMIX_INFO_PROCESSED(&one);
    ck_assert(PMIX_INFO_WAS_PROCESSED(&one));
    PMIX_INFO_SET_QUALIFIER(&one);
    ck_assert(PMIX_INFO_IS_QUALIFIER(&one));
    PMIX_INFO_SET_PERSISTENT(&one);
    ck_assert(PMIX_INFO_IS_PERSISTENT(&one));
    ck_assert_uint_eq(one.flags, PMIX_INFO_REQD_PROCESSED | PMIX_INFO_QUALIFIER |
                      PMIX_INFO_PERSISTENT);
    /* an info without a value (UNDEF) counts as true */
    ck_assert(PMIX_INFO_TRUE(&one));
}
END_TEST

/* How values read as booleans. */
static const struct {
    const char *str;   /* NULL: use the bool/undef fields */
    pmix_data_type_t type;
    bool flag;
    int want_true, want_bool;
} bool_cases[] = {
    { NULL, PMIX_UNDEF, false, 1, 1 },
    { NULL, PMIX_BOOL, true, 1, 1 },
    { NULL, PMIX_BOOL, false, 0, 1 },
    { NULL, PMIX_INT, false, 0, 0 },
    { "", PMIX_STRING, false, 1, 1 },
    { "  yes", PMIX_STRING, false, 1, 1 },
    { "TRUE", PMIX_STRING, false, 1, 1 },
    { "No", PMIX_STRING, false, 0, 1 },
    { "false", PMIX_STRING, false, 0, 1 },
    { "0", PMIX_STRING, false, 0, 1 },
    { "12", PMIX_STRING, false, 1, 1 },
    { "maybe", PMIX_STRING, false, 0, 0 },
};

START_TEST(test_check_true)
{
    pmix_value_t v;

    PMIX_VALUE_CONSTRUCT(&v);
    v.type = bool_cases[_i].type;
    if (v.type == PMIX_STRING)
        v.data.string = (char *) bool_cases[_i].str;
    else
        v.data.flag = bool_cases[_i].flag;
    ck_assert_int_eq(PMIX_CHECK_TRUE(&v), bool_cases[_i].want_true);
    ck_assert_int_eq(PMIX_CHECK_BOOL(&v), bool_cases[_i].want_bool);
}
END_TEST

START_TEST(test_value_number)
{
    pmix_value_t v;
    pmix_status_t rc;
    long n = 0;

    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_UINT16;
    v.data.uint16 = 4242;
    PMIX_VALUE_GET_NUMBER(rc, &v, n, long);
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_int_eq(n, 4242);
    v.type = PMIX_STRING;
    v.data.string = (char *) "7";
    PMIX_VALUE_GET_NUMBER(rc, &v, n, long);
    ck_assert_int_eq(rc, PMIX_ERR_BAD_PARAM);
}
END_TEST

START_TEST(test_argv)
{
    char **argv = NULL, **copy = NULL;
    char *joined = NULL;
    int rc, n;

    PMIX_ARGV_SPLIT(argv, ",a,,bb,c,", ',');
    PMIX_ARGV_COUNT(n, argv);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(argv[0], "a");
    ck_assert_str_eq(argv[1], "bb");
    ck_assert_str_eq(argv[2], "c");
    ck_assert_ptr_null(argv[3]);
    PMIX_ARGV_PREPEND(rc, argv, "first");
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    PMIX_ARGV_APPEND(rc, argv, "last");
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "bb");
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    PMIX_ARGV_JOIN(joined, argv, ':');
    ck_assert_str_eq(joined, "first:a:bb:c:last");
    free(joined);
    PMIX_ARGV_COPY(copy, argv);
    PMIX_ARGV_FREE(argv);
    PMIX_ARGV_COUNT(n, copy);
    ck_assert_int_eq(n, 5);
    ck_assert_str_eq(copy[4], "last");
    PMIX_ARGV_FREE(copy);

    PMIX_ARGV_JOIN(joined, NULL, ',');
    ck_assert_str_eq(joined, "");
    free(joined);
    PMIX_ARGV_SPLIT(argv, ",,,", ',');
    ck_assert_ptr_null(argv);
}
END_TEST

START_TEST(test_setenv)
{
    char **env = NULL;
    int rc;

    PMIX_SETENV(rc, "A", "1", &env);
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    PMIX_SETENV(rc, "AB", "2", &env);
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    PMIX_SETENV(rc, "A", "3", &env);               /* overwrites, keeps AB */
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_str_eq(env[0], "A=3");
    ck_assert_str_eq(env[1], "AB=2");
    ck_assert_ptr_null(env[2]);
    PMIX_SETENV(rc, "E", NULL, &env);
    ck_assert_str_eq(env[2], "E=");
    PMIX_ARGV_FREE(env);

    PMIX_SETENV(rc, "SPX_TEST_ABI_VAR", "on", &environ);
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    ck_assert_str_eq(getenv("SPX_TEST_ABI_VAR"), "on");
}
END_TEST

START_TEST(test_data_array)
{
    pmix_data_array_t da, *dp = NULL;
    pmix_info_t *info;
    pmix_device_distance_t *dd;

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 4, PMIX_INFO);
    ck_assert_uint_eq(da.size, 4);
    ck_assert_uint_eq(da.type, PMIX_INFO);
    info = (pmix_info_t *) da.array;
    ck_assert(PMIX_INFO_IS_END(&info[3]));
    ck_assert(!PMIX_INFO_IS_END(&info[0]));
    free(da.array);

    PMIX_DATA_ARRAY_CREATE(dp, 2, PMIX_DEVICE_DIST);
    ck_assert_ptr_nonnull(dp);
    dd = (pmix_device_distance_t *) dp->array;
    ck_assert_uint_eq(dd[1].mindist, UINT16_MAX);
    ck_assert_uint_eq(dd[1].maxdist, UINT16_MAX);
    free(dp->array);
    free(dp);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 3, PMIX_UINT64);
    ck_assert_uint_eq(da.size, 3);
    ck_assert_uint_eq(((uint64_t *) da.array)[2], 0);
    free(da.array);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 3, (pmix_data_type_t) 4000);  /* unknown type */
    ck_assert_uint_eq(da.size, 0);
    ck_assert_ptr_null(da.array);

    PMIX_DATA_ARRAY_INIT(&da, PMIX_STRING);
    ck_assert_uint_eq(da.type, PMIX_STRING);
    ck_assert_uint_eq(da.size, 0);
}
END_TEST

START_TEST(test_objects)
{
    pmix_byte_object_t bo;
    char *bytes = (char *) malloc(8);
    size_t sz = 8;
    pmix_coord_t *coords = NULL;
    pmix_proc_t *procs = NULL;
    pmix_envar_t ev;
    pmix_regattr_t ra, rb;
    pmix_app_t *apps = NULL;

    PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
    PMIX_BYTE_OBJECT_LOAD(&bo, bytes, sz);          /* takes ownership */
    ck_assert_ptr_null(bytes);
    ck_assert_uint_eq(sz, 0);
    ck_assert_uint_eq(bo.size, 8);
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    ck_assert_ptr_null(bo.bytes);

    PMIX_COORD_CREATE(coords, 2, 3);
    ck_assert_ptr_nonnull(coords);
    ck_assert_uint_eq(coords[1].dims, 3);
    ck_assert_uint_eq(coords[1].view, PMIX_COORD_VIEW_UNDEF);
    ck_assert_ptr_nonnull(coords[1].coord);
    PMIX_COORD_FREE(coords, 2);
    ck_assert_ptr_null(coords);

    PMIX_PROC_CREATE(procs, 4);
    ck_assert_ptr_nonnull(procs);
    PMIX_PROC_FREE(procs, 4);
    ck_assert_ptr_null(procs);

    PMIX_ENVAR_CONSTRUCT(&ev);
    PMIX_ENVAR_LOAD(&ev, "PATH", "/bin", ':');
    ck_assert_str_eq(ev.envar, "PATH");
    ck_assert_str_eq(ev.value, "/bin");
    ck_assert_int_eq(ev.separator, ':');
    PMIX_ENVAR_DESTRUCT(&ev);
    ck_assert_ptr_null(ev.envar);

    PMIX_REGATTR_CONSTRUCT(&ra);
    PMIX_REGATTR_LOAD(&ra, "PMIX_JOB_SIZE", PMIX_JOB_SIZE, PMIX_UINT32, "size of the job");
    PMIX_REGATTR_XFER(&rb, &ra);
    ck_assert_str_eq(rb.name, "PMIX_JOB_SIZE");
    ck_assert_str_eq(rb.string, "pmix.job.size");
    ck_assert_str_eq(rb.description[0], "size of the job");
    PMIX_REGATTR_DESTRUCT(&ra);
    PMIX_REGATTR_DESTRUCT(&rb);

    PMIX_APP_CREATE(apps, 2);                        /* zeroed, nothing to free inside */
    ck_assert_ptr_null(apps[1].cmd);
    ck_assert_int_eq(apps[1].maxprocs, 0);
    free(apps);
}
END_TEST

/* FREE macros whose DESTRUCT contains another FREE: every owned pointer is
 * released (ASan/valgrind see leaks), persistent infos keep their value. */
START_TEST(test_nested_free)
{
    pmix_app_t *apps = NULL;
    pmix_query_t *q = NULL;
    pmix_geometry_t *geo = NULL;
    pmix_node_stats_t *nd = NULL;
    pmix_pdata_t *pd = NULL;
    pmix_info_t *info = NULL;
    char *keep = strdup("kept");
    int rc;

    value_destructs = 0;
    PMIX_APP_CREATE(apps, 2);
    apps[0].cmd = strdup("/bin/true");
    PMIX_ARGV_APPEND(rc, apps[0].argv, "true");
    PMIX_ARGV_APPEND(rc, apps[0].env, "A=1");
    ck_assert_int_eq(rc, PMIX_SUCCESS);
    apps[0].cwd = strdup("/");
    apps[0].maxprocs = 2;
    PMIX_APP_INFO_CREATE(&apps[1], 3);
    ck_assert_uint_eq(apps[1].ninfo, 3);
    ck_assert(PMIX_INFO_IS_END(&apps[1].info[2]));
    info_set_string(&apps[1].info[0], PMIX_WDIR, "/tmp");
    apps[1].info[1].value.type = PMIX_STRING;      /* persistent: not destructed */
    apps[1].info[1].value.data.string = keep;
    PMIX_INFO_SET_PERSISTENT(&apps[1].info[1]);
    PMIX_APP_FREE(apps, 2);
    ck_assert_ptr_null(apps);
    ck_assert_int_eq(value_destructs, 2);
    ck_assert_str_eq(keep, "kept");
    free(keep);

    value_destructs = 0;
    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_NAMESPACES);
    PMIX_QUERY_QUALIFIERS_CREATE(&q[0], 2);
    info_set_string(&q[0].qualifiers[0], PMIX_NSPACE, "job");
    PMIX_QUERY_RELEASE(q);
    ck_assert_ptr_null(q);
    ck_assert_int_eq(value_destructs, 2);

    PMIX_GEOMETRY_CREATE(geo, 2);
    geo[0].uuid = strdup("u");
    geo[1].osname = strdup("ib0");
    PMIX_COORD_CREATE(geo[1].coordinates, 2, 3);
    geo[1].ncoords = 2;
    PMIX_GEOMETRY_FREE(geo, 2);
    ck_assert_ptr_null(geo);

    PMIX_NODE_STATS_CREATE(nd, 1);
    nd[0].node = strdup("n1");
    PMIX_DISK_STATS_CREATE(nd[0].diskstats, 2);
    nd[0].diskstats[1].disk = strdup("sda");
    nd[0].ndiskstats = 2;
    PMIX_NET_STATS_CREATE(nd[0].netstats, 1);
    nd[0].netstats[0].net_interface = strdup("eth0");
    nd[0].nnetstats = 1;
    PMIX_NODE_STATS_FREE(nd, 1);
    ck_assert_ptr_null(nd);

    value_destructs = 0;
    PMIX_PDATA_CREATE(pd, 3);
    PMIX_PDATA_FREE(pd, 3);
    ck_assert_ptr_null(pd);
    ck_assert_int_eq(value_destructs, 3);

    value_destructs = 0;
    PMIX_INFO_CREATE(info, 2);
    info_set_string(&info[1], PMIX_HOSTNAME, "node1");
    PMIX_INFO_FREE(info, 2);
    ck_assert_ptr_null(info);
    ck_assert_int_eq(value_destructs, 2);
}
END_TEST

static Suite *abi_suite(void)
{
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("layout");

    tcase_add_loop_test(tc, test_size, 0, COUNT(size_cases));
    tcase_add_loop_test(tc, test_field, 0, COUNT(field_cases));
    tcase_add_loop_test(tc, test_num, 0, COUNT(num_cases));
    tcase_add_loop_test(tc, test_str, 0, COUNT(str_cases));
    tcase_add_test(tc, test_server_module_order);
    suite_add_tcase(s, tc);

    tc = tcase_create("macros");
    tcase_add_test(tc, test_load_key_nspace);
    tcase_add_test(tc, test_multicluster);
    tcase_add_test(tc, test_info_flags);
    tcase_add_loop_test(tc, test_check_true, 0, COUNT(bool_cases));
    tcase_add_test(tc, test_value_number);
    tcase_add_test(tc, test_argv);
    tcase_add_test(tc, test_setenv);
    tcase_add_test(tc, test_data_array);
    tcase_add_test(tc, test_objects);
    tcase_add_test(tc, test_nested_free);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(abi_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
