/* event_local.h - this process's own event handlers, as the rest of the
 * library reaches them.
 *
 * A client, a singleton and a tool keep their handlers in one list
 * (client_event.c). They run for the events a server pushes to the process
 * and for the events the process raises itself (PMIx_Notify_event:
 * client_notify.c).
 *
 * Progress thread only. Every argument is borrowed for the call; what is
 * kept is copied.
 */
#ifndef SPX_CLIENT_EVENT_LOCAL_H
#define SPX_CLIENT_EVENT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <pmix_common.h>

/* Runs this process's handlers that take status, in chain order, with
 * source (NULL: none) and info. A true PMIX_EVENT_NON_DEFAULT in info keeps
 * the default handlers (registered for no code) out. The first handler is
 * called before return; the chain goes on on later loop turns. */
void spx_event_local_run(pmix_status_t status, const pmix_proc_t *source,
                         const pmix_info_t *info, size_t ninfo);

#endif
