/* event_local.h - this process's own event handlers, as every side of the
 * library reaches them.
 *
 * A client, a singleton, a tool and a server process (PMIx_server_init) keep
 * their handlers in one list (client_event.c). They run for the events a
 * server pushes to the process, for the events the process raises itself
 * (PMIx_Notify_event: client_notify.c, or lib/server/events.c in a server
 * process) and, in a server process, for the events its server passes on
 * (lib/server/events.c). PMIX_RANGE_PROC_LOCAL events the process raises are
 * also kept for handlers registered later (client_evcache.c).
 *
 * Progress thread only. Every argument is borrowed for the call; what is
 * kept is copied.
 */
#ifndef SPX_CLIENT_EVENT_LOCAL_H
#define SPX_CLIENT_EVENT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <pmix_common.h>

/* A run whose group events never tell a server how their chain ended: a
 * server process's own runs, and events replayed from the cache (their
 * first run already told). */
#define SPX_EVRUN_QUIET 0x1u

/* Runs this process's handlers that take status, in chain order, with
 * source (NULL: none) and info. A true PMIX_EVENT_NON_DEFAULT in info keeps
 * the default handlers (registered for no code) out. The first handler is
 * called before return; the chain goes on on later loop turns. */
void spx_event_local_run(pmix_status_t status, const pmix_proc_t *source,
                         const pmix_info_t *info, size_t ninfo, unsigned flags);

/* An event this process raised with PMIx_Notify_event, for its own handlers
 * (the caller decided the process is in range): a PMIX_RANGE_PROC_LOCAL one
 * is kept for handlers registered later unless PMIX_EVENT_DO_NOT_CACHE is
 * true in info; then spx_event_local_run. */
void spx_event_local_raised(pmix_status_t status, const pmix_proc_t *source,
                            pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
                            unsigned flags);

/* PMIx_server_finalize: drops the handlers and the kept events, unless
 * PMIx_Init also holds them (a process that is a client as well). */
void spx_event_local_server_done(void);

#endif
