/* tool_auth.h - munge credentials of tools that reach a step's server over
 * the tree's TCP port (a tool on a host without a server of the step, e.g.
 * a login node). Both ends: the tool encodes (lib/client/client_remote.c),
 * the tree's listener decodes (transport.c). The wire steps are in proto.h
 * (SPX_TREE_AUTH_TOOL_*).
 *
 * The credential's payload is SPX_TREE_TOOL_LABEL followed by the server's
 * nonce of this connection (the TOOL_CHALLENGE): a credential is good for
 * the one connection it was made for. munged's own rules apply on top
 * (time-to-live, replay detection on the decoding host).
 *
 * munged's socket: $SPMIX_MUNGE_SOCKET when set (the servers inherit it
 * from slurmd's environment; spmix-push sets it from Slurm's
 * AuthInfo=socket=...), else libmunge's default. Without libmunge at build
 * time every function fails with a message saying so (SPX_HAVE_MUNGE 0).
 * The libmunge calls are util/munge_cred.c's.
 *
 * These calls block on munged's local socket (milliseconds); the listener
 * calls decode on the progress thread.
 */
#ifndef SPX_TREE_TOOL_AUTH_H
#define SPX_TREE_TOOL_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tree/proto.h"
#include "util/munge_cred.h" /* SPX_MUNGE_SOCKET_ENV */

/* 1 when built with libmunge. */
int spx_tool_auth_supported(void);

/* A credential (malloc'd, NUL-terminated; free()) for nonce, or NULL with
 * the reason in err. */
char *spx_tool_auth_encode(const uint8_t nonce[SPX_TREE_NONCE_LEN], char *err, size_t errlen);

/* Checks cred (NUL-terminated) against nonce: 0 with the credential's
 * uid/gid, or -1 with the reason in err (expired, replayed, bound to another
 * connection, munged unreachable, ...). */
int spx_tool_auth_decode(const char *cred, const uint8_t nonce[SPX_TREE_NONCE_LEN], uid_t *uid,
                         gid_t *gid, char *err, size_t errlen);

#endif
