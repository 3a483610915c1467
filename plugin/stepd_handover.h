/*
 * stepd_handover.h - how a task child hands descriptors to a pump thread of
 * slurmstepd (the opt-in stdin, stepd_stdin.c, and the output tap,
 * stepd_output.c): a unix socket in the step directory, one message per
 * task (a small fixed header and up to SPX_PLG_HANDOVER_MAX_FDS descriptors,
 * SCM_RIGHTS), answered by one byte ('K' taken, 'N' refused).
 */
#ifndef SPX_PLG_STEPD_HANDOVER_H
#define SPX_PLG_STEPD_HANDOVER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define SPX_PLG_HANDOVER_MAX_FDS 4
#define SPX_PLG_HANDOVER_MS 10000   /* how long either side waits for the other */

/* slurmstepd: a listening socket at path, owned by uid, mode 0600. The fd,
 * or -1 with errno set. */
int spx_plg_handover_listen(const char *path, uint32_t uid);

/* slurmstepd: starts fn(NULL) in a thread that takes no signal
 * (slurmstepd's own threads handle them). 0 or an errno value. */
int spx_plg_handover_thread(pthread_t *tid, void *(*fn)(void *));

/* Pump, on an accepted connection c: checks the peer is uid or root, reads
 * one message of exactly len bytes into msg and its descriptors into fds
 * (*nfds of them, owned by the caller from here on, also on failure). NULL
 * when all is well, else why not (a static string; the caller logs it and
 * answers 'N'). */
const char *spx_plg_handover_recv(int c, uint32_t uid, void *msg, size_t len,
                                  int fds[SPX_PLG_HANDOVER_MAX_FDS], int *nfds);

/* Pump: the answer, one byte. */
void spx_plg_handover_reply(int c, char answer);

/* Task child: sends msg (len bytes) and nfds descriptors (borrowed: the
 * pump gets copies) to the pump at path and waits for its answer. NULL when
 * the pump took them, else why not (a static string; errno may tell more). */
const char *spx_plg_handover_send(const char *path, const void *msg, size_t len,
                                  const int *fds, int nfds);

#endif
