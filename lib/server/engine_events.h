/* engine_events.h - the event engine of the server: events delivered to
 * local clients (events.c) and events and failures relayed between nodes
 * (relay.c, over nodes.c's bcast). Every function works on the server context
 * it is given (never the global). Arguments are borrowed for the call;
 * nothing is kept after return except what is copied. Progress thread only.
 */
#ifndef SPX_SERVER_ENGINE_EVENTS_H
#define SPX_SERVER_ENGINE_EVENTS_H

#include "server/core.h"

/* ---- events.c ---- */
/* NOTIFY frame of p (0, or -1 for a malformed payload: the caller closes). */
int spx_srv_handle_notify(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b);
/* Sends the EVENT frame to ctx's local clients in range, except `except` (may be NULL),
 * then runs the server process's own handlers when it hears the event (events.c). */
void spx_srv_event_deliver(struct spx_srv_ctx *ctx, pmix_status_t status, const pmix_proc_t *source,
                           pmix_data_range_t range, const pmix_info_t *info, size_t ninfo,
                           const struct spx_srv_peer *except);

/* ---- relay.c: events and failures across nodes ---- */
/* A client of this node left without PMIx_Finalize (or a PROC_ABORTED notification
 * named it): fail what needs it here and everywhere, tell every client of its job. */
void spx_srv_relay_proc_lost(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool tell_others);

/* An event with range beyond this node: broadcast it (no-op in single-node mode or
 * for node-local ranges). Returns true when it was relayed. */
bool spx_srv_relay_event(struct spx_srv_ctx *ctx, pmix_status_t status, const pmix_proc_t *source,
                         pmix_data_range_t range, const pmix_info_t *info, size_t ninfo);
/* PMIx_Notify_event of the host in multi-node mode: true when handled here. */
bool spx_srv_relay_host_event(struct spx_srv_ctx *ctx, pmix_status_t status, const pmix_proc_t *source,
                              pmix_data_range_t range, const pmix_info_t *info, size_t ninfo);
/* The event engine's ops (core.h): recv takes SPX_SRV_CH_EVENT (deliver to
 * the clients in range) and SPX_SRV_CH_PROC_LOST; node_gone marks the node's
 * processes lost, ends their jobs' shared-memory fences and, for a lost node
 * (not one that ended in order), raises PMIX_ERR_UNREACH naming them. */
extern const struct spx_srv_engine_ops spx_srv_relay_engine;

#endif
