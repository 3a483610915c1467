/* munge_cred.h - one small API over libmunge for every place spmix proves
 * an identity with a munge credential: the tree links of a Slurm step
 * (lib/tree/auth.c), remote tools (lib/tree/tool_auth.c) and the plugin's
 * abort report to srun (plugin/abort_msg.c). Compiled into the library and
 * into the plugin (like sha256.c).
 *
 * A credential carries a payload the caller builds from what binds it to
 * one exchange (labels, the connection's nonces, ids); the checker rebuilds
 * the payload it expects and compares. munged's own rules apply on top:
 * time-to-live, and replay detection on the decoding host (a credential
 * decoded twice there is refused as replayed).
 *
 * munged's socket: the socket argument when not NULL, else
 * $SPMIX_MUNGE_SOCKET when set, else libmunge's default. The calls block on
 * munged's local socket (a fraction of a millisecond when it runs; when its
 * socket is absent they fail at once). Without libmunge at build time
 * (SPX_HAVE_MUNGE 0) every call fails with a message saying so.
 */
#ifndef SPX_UTIL_MUNGE_CRED_H
#define SPX_UTIL_MUNGE_CRED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SPX_MUNGE_SOCKET_ENV "SPMIX_MUNGE_SOCKET"

/* 1 when built with libmunge. */
int spx_munge_supported(void);

/* A credential (malloc'd, NUL-terminated; caller frees with free()) whose
 * payload is the len bytes at payload (borrowed), or NULL with the reason in
 * err. */
char *spx_munge_encode(const char *socket, const void *payload, size_t len, char *err,
                       size_t errlen);

/* Decodes cred (NUL-terminated, borrowed) and checks that its payload is
 * exactly the wlen bytes at want: 0 with the credential's uid/gid, or -1
 * with the reason in err (munged unreachable, forged, expired, replayed,
 * payload for another exchange). */
int spx_munge_check(const char *socket, const char *cred, const void *want, size_t wlen,
                    uid_t *uid, gid_t *gid, char *err, size_t errlen);

/* Whether uid is one of the n uids at allowed (borrowed). */
int spx_munge_uid_allowed(uid_t uid, const uint32_t *allowed, size_t n);

#endif
