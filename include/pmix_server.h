/*
 * pmix_server.h - the PMIx server API of spmix (PMIx v4, OpenPMIx 4.2 ABI).
 *
 * A host (here: the Slurm plugin, or spmix-run) calls PMIx_server_init with
 * a table of upcalls, registers namespaces and clients, prepares each
 * client's environment with PMIx_server_setup_fork, and then serves the
 * upcalls the library makes when clients fence, spawn, publish, join
 * groups, and so on.  Upcalls run on the library's progress thread.  An
 * upcall that returns PMIX_SUCCESS must invoke its callback exactly once;
 * PMIX_OPERATION_SUCCEEDED means "done, no callback"; any error means the
 * callback is never invoked.  Entries the host leaves NULL are
 * "not supported".  The table layout (28 pointers, 224 bytes) is ABI.
 */
#ifndef PMIx_SERVER_API_H
#define PMIx_SERVER_API_H

#include <pmix_common.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* ------------------------------------------------ host upcall types */
typedef pmix_status_t (*pmix_server_client_connected_fn_t)(const pmix_proc_t *proc,
                                                           void *server_object,
                                                           pmix_op_cbfunc_t cbfunc,
                                                           void *cbdata);
typedef pmix_status_t (*pmix_server_client_connected2_fn_t)(const pmix_proc_t *proc,
                                                            void *server_object,
                                                            pmix_info_t info[], size_t ninfo,
                                                            pmix_op_cbfunc_t cbfunc,
                                                            void *cbdata);
typedef pmix_status_t (*pmix_server_client_finalized_fn_t)(const pmix_proc_t *proc,
                                                           void *server_object,
                                                           pmix_op_cbfunc_t cbfunc,
                                                           void *cbdata);
typedef pmix_status_t (*pmix_server_abort_fn_t)(const pmix_proc_t *proc, void *server_object,
                                                int status, const char msg[],
                                                pmix_proc_t procs[], size_t nprocs,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);
/* data/ndata: the local contribution; the callback returns everyone's */
typedef pmix_status_t (*pmix_server_fencenb_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  char *data, size_t ndata,
                                                  pmix_modex_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_dmodex_req_fn_t)(const pmix_proc_t *proc,
                                                     const pmix_info_t info[], size_t ninfo,
                                                     pmix_modex_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_publish_fn_t)(const pmix_proc_t *proc,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_lookup_fn_t)(const pmix_proc_t *proc, char **keys,
                                                 const pmix_info_t info[], size_t ninfo,
                                                 pmix_lookup_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_unpublish_fn_t)(const pmix_proc_t *proc, char **keys,
                                                    const pmix_info_t info[], size_t ninfo,
                                                    pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_spawn_fn_t)(const pmix_proc_t *proc,
                                                const pmix_info_t job_info[], size_t ninfo,
                                                const pmix_app_t apps[], size_t napps,
                                                pmix_spawn_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_connect_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_disconnect_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                     const pmix_info_t info[], size_t ninfo,
                                                     pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_register_events_fn_t)(pmix_status_t *codes, size_t ncodes,
                                                          const pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc,
                                                          void *cbdata);
typedef pmix_status_t (*pmix_server_deregister_events_fn_t)(pmix_status_t *codes,
                                                            size_t ncodes,
                                                            pmix_op_cbfunc_t cbfunc,
                                                            void *cbdata);
typedef pmix_status_t (*pmix_server_notify_event_fn_t)(pmix_status_t code,
                                                       const pmix_proc_t *source,
                                                       pmix_data_range_t range,
                                                       pmix_info_t info[], size_t ninfo,
                                                       pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef void (*pmix_connection_cbfunc_t)(int incoming_sd, void *cbdata);
typedef pmix_status_t (*pmix_server_listener_fn_t)(int listening_sd,
                                                   pmix_connection_cbfunc_t cbfunc,
                                                   void *cbdata);
typedef pmix_status_t (*pmix_server_query_fn_t)(pmix_proc_t *proct,
                                                pmix_query_t *queries, size_t nqueries,
                                                pmix_info_cbfunc_t cbfunc, void *cbdata);
typedef void (*pmix_tool_connection_cbfunc_t)(pmix_status_t status,
                                              pmix_proc_t *proc, void *cbdata);
typedef void (*pmix_server_tool_connection_fn_t)(pmix_info_t *info, size_t ninfo,
                                                 pmix_tool_connection_cbfunc_t cbfunc,
                                                 void *cbdata);
typedef void (*pmix_server_log_fn_t)(const pmix_proc_t *client,
                                     const pmix_info_t data[], size_t ndata,
                                     const pmix_info_t directives[], size_t ndirs,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_alloc_fn_t)(const pmix_proc_t *client,
                                                pmix_alloc_directive_t directive,
                                                const pmix_info_t data[], size_t ndata,
                                                pmix_info_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_job_control_fn_t)(const pmix_proc_t *requestor,
                                                      const pmix_proc_t targets[],
                                                      size_t ntargets,
                                                      const pmix_info_t directives[],
                                                      size_t ndirs,
                                                      pmix_info_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_monitor_fn_t)(const pmix_proc_t *requestor,
                                                  const pmix_info_t *monitor,
                                                  pmix_status_t error,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_get_cred_fn_t)(const pmix_proc_t *proc,
                                                   const pmix_info_t directives[], size_t ndirs,
                                                   pmix_credential_cbfunc_t cbfunc,
                                                   void *cbdata);
typedef pmix_status_t (*pmix_server_validate_cred_fn_t)(const pmix_proc_t *proc,
                                                        const pmix_byte_object_t *cred,
                                                        const pmix_info_t directives[],
                                                        size_t ndirs,
                                                        pmix_validation_cbfunc_t cbfunc,
                                                        void *cbdata);
typedef pmix_status_t (*pmix_server_iof_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_iof_channel_t channels,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_stdin_fn_t)(const pmix_proc_t *source,
                                                const pmix_proc_t targets[], size_t ntargets,
                                                const pmix_info_t directives[], size_t ndirs,
                                                const pmix_byte_object_t *bo,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_grp_fn_t)(pmix_group_operation_t op, char grp[],
                                              const pmix_proc_t procs[], size_t nprocs,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_fabric_fn_t)(const pmix_proc_t *requestor,
                                                 pmix_fabric_operation_t op,
                                                 const pmix_info_t directives[], size_t ndirs,
                                                 pmix_info_cbfunc_t cbfunc, void *cbdata);
/* PMIx v5: a session control request (pause, resume, terminate, ... a
 * session).  spmix never calls it: see session_control below. */
typedef pmix_status_t (*pmix_server_session_control_fn_t)(const pmix_proc_t *requestor,
                                                          uint32_t sessionID,
                                                          const pmix_info_t directives[],
                                                          size_t ndirs,
                                                          pmix_info_cbfunc_t cbfunc,
                                                          void *cbdata);

/* The upcall table; member order is ABI.  PMIx v5 appended session_control:
 * hosts built against PMIx v4 headers pass a table that ends after
 * client_connected2 (224 bytes on LP64), so the library reads only the
 * members up to client_connected2 and never session_control (it has no
 * session control to offer: PMIx_Session_control answers
 * PMIX_ERR_NOT_SUPPORTED, as OpenPMIx 5.0 does without asking its host). */
typedef struct pmix_server_module_4_0_0_t {
    pmix_server_client_connected_fn_t client_connected;
    pmix_server_client_finalized_fn_t client_finalized;
    pmix_server_abort_fn_t abort;
    pmix_server_fencenb_fn_t fence_nb;
    pmix_server_dmodex_req_fn_t direct_modex;
    pmix_server_publish_fn_t publish;
    pmix_server_lookup_fn_t lookup;
    pmix_server_unpublish_fn_t unpublish;
    pmix_server_spawn_fn_t spawn;
    pmix_server_connect_fn_t connect;
    pmix_server_disconnect_fn_t disconnect;
    pmix_server_register_events_fn_t register_events;
    pmix_server_deregister_events_fn_t deregister_events;
    pmix_server_listener_fn_t listener;
    pmix_server_notify_event_fn_t notify_event;
    pmix_server_query_fn_t query;
    pmix_server_tool_connection_fn_t tool_connected;
    pmix_server_log_fn_t log;
    pmix_server_alloc_fn_t allocate;
    pmix_server_job_control_fn_t job_control;
    pmix_server_monitor_fn_t monitor;
    pmix_server_get_cred_fn_t get_credential;
    pmix_server_validate_cred_fn_t validate_credential;
    pmix_server_iof_fn_t iof_pull;
    pmix_server_stdin_fn_t push_stdin;
    pmix_server_grp_fn_t group;
    pmix_server_fabric_fn_t fabric;
    pmix_server_client_connected2_fn_t client_connected2;
    /* PMIx v5 */
    pmix_server_session_control_fn_t session_control;
} pmix_server_module_t;

/* --------------------------------------------------- library callbacks */
typedef void (*pmix_dmodex_response_fn_t)(pmix_status_t status,
                                          char *data, size_t sz, void *cbdata);
typedef void (*pmix_setup_application_cbfunc_t)(pmix_status_t status,
                                                pmix_info_t info[], size_t ninfo,
                                                void *provided_cbdata,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ------------------------------------------------------------- calls */
PMIX_EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module,
                                           pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_server_finalize(void);
PMIX_EXPORT pmix_status_t PMIx_generate_regex(const char *input, char **regex);
PMIX_EXPORT pmix_status_t PMIx_generate_ppn(const char *input, char **ppn);
/* Later PMIx releases: the encoded list in a pmix_regex2_t (release it with
 * PMIx_Regex2_destruct), and back to the comma-separated list (*output
 * malloc'd, caller frees). */
PMIX_EXPORT pmix_status_t PMIx_generate_regex2(const char *input,
                                               pmix_info_t info[], size_t ninfo,
                                               pmix_regex2_t *regex);
PMIX_EXPORT pmix_status_t PMIx_parse_regex2(const pmix_regex2_t *regex,
                                            pmix_info_t info[], size_t ninfo,
                                            char **output);
PMIX_EXPORT pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace,
                                                      int nlocalprocs,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT void PMIx_server_deregister_nspace(const pmix_nspace_t nspace,
                                               pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc,
                                                      uid_t uid, gid_t gid,
                                                      void *server_object,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT void PMIx_server_deregister_client(const pmix_proc_t *proc,
                                               pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env);
PMIX_EXPORT pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
                                                     pmix_dmodex_response_fn_t cbfunc,
                                                     void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace,
                                                        pmix_info_t info[], size_t ninfo,
                                                        pmix_setup_application_cbfunc_t cbfunc,
                                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace,
                                                          pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc,
                                                          void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source,
                                                  pmix_iof_channel_t channel,
                                                  const pmix_byte_object_t *bo,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[], size_t ndirs,
                                                        pmix_info_cbfunc_t cbfunc,
                                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[], size_t ninfo,
                                                        pmix_info_t directives[], size_t ndirs,
                                                        pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Register_attributes(char *function, char *attrs[]);
PMIX_EXPORT pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset,
                                                               char **locality);
PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset,
                                                             char **cpuset_string);
/* Later PMIx releases: the cpuset a PMIx_server_generate_cpuset_string
 * string describes (as PMIx_Parse_cpuset_string). */
PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset(const char *cpuset_string,
                                                      pmix_cpuset_t *cpuset);
/* Later PMIx releases: flow control of a forwarded output stream, and the
 * job-level information of procs packed into a buffer (not supported). */
PMIX_EXPORT pmix_status_t PMIx_server_IOF_flow_control(const pmix_proc_t *source,
                                                       pmix_iof_channel_t channel, bool xoff,
                                                       const pmix_info_t directives[], size_t ndirs,
                                                       pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_collect_job_info(pmix_proc_t *procs, size_t nprocs,
                                                       pmix_data_buffer_t *dbuf);
PMIX_EXPORT pmix_status_t PMIx_server_define_process_set(const pmix_proc_t *members,
                                                         size_t nmembers,
                                                         const char *pset_name);
PMIX_EXPORT pmix_status_t PMIx_server_delete_process_set(char *pset_name);
PMIX_EXPORT pmix_status_t PMIx_server_register_resources(pmix_info_t info[], size_t ninfo,
                                                         pmix_op_cbfunc_t cbfunc,
                                                         void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[], size_t ninfo,
                                                           pmix_op_cbfunc_t cbfunc,
                                                           void *cbdata);
/* PMIx v5: control a session (pause, resume, terminate, provision...).
 * spmix has no session control: always PMIX_ERR_NOT_SUPPORTED (cbfunc is
 * never called). */
PMIX_EXPORT pmix_status_t PMIx_Session_control(uint32_t sessionID,
                                               const pmix_info_t directives[], size_t ndirs,
                                               pmix_info_cbfunc_t cbfunc, void *cbdata);

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif
#endif /* PMIx_SERVER_API_H */
