/*
 * pmix_tool.h - the PMIx tool API of spmix (PMIx v4, OpenPMIx 4.2 ABI).
 *
 * A tool (debugger, launcher front end, stdin pusher) starts with
 * PMIx_tool_init, attaches to one or more PMIx servers, and may pull a job's
 * output (PMIx_IOF_pull) or push data to its stdin (PMIx_IOF_push).  All of
 * pmix.h is available to tools as well.
 */
#ifndef PMIx_TOOL_API_H
#define PMIx_TOOL_API_H

#include <pmix.h>
#include <pmix_server.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

PMIX_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc,
                                         pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_tool_finalize(void);
PMIX_EXPORT pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server);
PMIX_EXPORT pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc, pmix_proc_t *server,
                                                     pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t *nservers);
PMIX_EXPORT pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server,
                                               pmix_info_t info[], size_t ninfo);
/* Deprecated: same as PMIx_tool_attach_to_server without the server out-arg. */
PMIX_EXPORT pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc,
                                                      pmix_info_t info[], size_t ninfo);
/* PMIx v5: true while the tool is connected to a server. */
PMIX_EXPORT bool PMIx_tool_is_connected(void);
/* PMIx v5: make this tool a server for its own clients with the given
 * upcalls.  spmix tools cannot serve: always PMIX_ERR_NOT_SUPPORTED (the
 * module is not read). */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server_module(pmix_server_module_t *module);

/* Output delivered to a PMIx_IOF_pull handler; payload and info are
 * borrowed for the duration of the call. */
typedef void (*pmix_iof_cbfunc_t)(size_t iofhdlr, pmix_iof_channel_t channel,
                                  pmix_proc_t *source, pmix_byte_object_t *payload,
                                  pmix_info_t info[], size_t ninfo);

PMIX_EXPORT pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                                        pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata);
PMIX_EXPORT pmix_status_t PMIx_IOF_deregister(size_t iofhdlr,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata);
/* bo NULL with PMIX_IOF_COMPLETE in directives closes the targets' stdin */
PMIX_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                        pmix_byte_object_t *bo,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif
#endif /* PMIx_TOOL_API_H */
