/* role.h - whether this process runs a PMIx server: the one fact of the
 * server side that the client side needs (a server process's own event
 * handlers and notifications), kept below both so that neither names the
 * other's top file for it. */
#ifndef SPX_UTIL_ROLE_H
#define SPX_UTIL_ROLE_H

#include <stdbool.h>

/* True between a successful PMIx_server_init and PMIx_server_finalize. Any thread. */
bool spx_server_active(void);
/* Set by PMIx_server_init / _finalize (lib/server/server.c) only. */
void spx_role_server_set(bool up);

#endif
