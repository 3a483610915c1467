/* role.h - whether this process runs a PMIx server: the one fact of the
 * server side that the client side needs (a server process's own event
 * handlers and notifications), kept below both so that neither names the
 * other's top file for it. */
#ifndef SPX_UTIL_ROLE_H
#define SPX_UTIL_ROLE_H

#include <stdbool.h>
#include <pmix_common.h>

/* True between a successful PMIx_server_init and PMIx_server_finalize. Any thread. */
bool spx_server_active(void);
/* How a server process's PMIx_Notify_event is carried out (the server's
 * spx_server_notify, lib/server/server.h). */
typedef pmix_status_t (*spx_role_notify_f)(pmix_status_t status, const pmix_proc_t *source,
                                           pmix_data_range_t range, const pmix_info_t info[],
                                           size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);
/* Set by PMIx_server_init / _finalize (lib/server/server.c) only: up, and
 * the server's notify (NULL when down). */
void spx_role_server_set(bool up, spx_role_notify_f notify);
/* The server's notify while one runs, else NULL. */
spx_role_notify_f spx_role_server_notify(void);

#endif
