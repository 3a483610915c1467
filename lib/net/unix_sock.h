/* unix_sock.h - unix-domain rendezvous: private directory, listener with a
 * peer-credential check, and the client side connect.
 */
#ifndef SPX_NET_UNIX_SOCK_H
#define SPX_NET_UNIX_SOCK_H

#include <stdbool.h>
#include <sys/types.h>
#include <event2/event.h>

typedef struct spx_listener spx_listener_t;

/* Called on the loop thread for each accepted connection whose peer passed the
 * uid check. fd: ownership passes to the callee. */
typedef void (*spx_accept_f)(int fd, uid_t uid, gid_t gid, pid_t pid, void *arg);

/* Creates a directory "<parent>/spmix.<tag>.XXXXXX" with mode 0700 owned by owner_uid
 * (chown only when running as root and owner differs). *out_path: malloc'd, caller frees.
 * 0 or -1 with errno. */
int spx_private_dir_create(const char *parent, const char *tag, uid_t owner_uid, gid_t owner_gid,
                           char **out_path);
/* Removes the files directly inside path and then path; best effort. */
void spx_private_dir_remove(const char *path);

/* Binds and listens on path (unlinking a stale socket first). Only peers whose
 * SO_PEERCRED uid is allowed_uid or 0 are passed to on_accept; others are closed
 * with a warning line naming their uid and pid. NULL on failure (errno set). */
spx_listener_t *spx_listener_create(struct event_base *base, const char *path, uid_t allowed_uid,
                                    spx_accept_f on_accept, void *arg);
/* Stops listening, closes the fd and unlinks the socket path. */
void spx_listener_destroy(spx_listener_t *l);

/* Blocking connect to a unix socket path; returns the fd or -1 with errno. */
int spx_unix_connect(const char *path);
/* Peer credentials of a connected unix socket; 0 or -1. */
int spx_peercred(int fd, uid_t *uid, gid_t *gid, pid_t *pid);

#endif
