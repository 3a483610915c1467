/* client_remote.h - how the client library opens its connection to a
 * server: a unix socket path, or "spmix-tcp://HOST:PORT", a server on
 * another host reached over its tree port and authenticated by munge
 * (client_remote.c).
 */
#ifndef SPX_CLIENT_REMOTE_H
#define SPX_CLIENT_REMOTE_H

#include <stdbool.h>
#include <pmix_common.h>

#define SPX_TCP_URI_PREFIX "spmix-tcp://"

/* Is addr a "spmix-tcp://" address? */
bool spx_client_remote_uri(const char *addr);

/* A connected socket to addr, ready for the client protocol's HELLO, or -1
 * with errno (the reasons of a remote refusal logged here). Blocks. */
int spx_client_connect(const char *addr);

/* The PMIx status of spx_client_connect's errno: ENOTSUP (no libmunge)
 * PMIX_ERR_NOT_SUPPORTED, EACCES (credential or identity refused)
 * PMIX_ERR_NO_PERMISSIONS, anything else PMIX_ERR_UNREACH. */
pmix_status_t spx_client_connect_status(int err);

#endif
