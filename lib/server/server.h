/* server.h - what the rest of the library may ask of the PMIx server side
 * (lib/server/). The server itself is started by PMIx_server_init.
 */
#ifndef SPX_SERVER_SERVER_H
#define SPX_SERVER_SERVER_H

#include <stdbool.h>
#include <pmix_common.h>

#include "util/role.h" /* spx_server_active() */

/* Delivers an event raised in this (server) process to the local clients in
 * range (PMIx_Notify_event of a server), to the other nodes for ranges beyond
 * this one, and to this process's own handlers (a PROC_LOCAL event is also
 * kept for handlers registered later; lib/server/events.c). Thread-safe;
 * status/source/info are copied before return. PMIX_SUCCESS: delivered later
 * on the progress thread, then cbfunc (may be NULL) runs once there with the
 * result. An error return means cbfunc will not be called (PMIX_ERR_INIT when
 * no server is running, PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM). */
pmix_status_t spx_server_notify(pmix_status_t status, const pmix_proc_t *source,
                                pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif
