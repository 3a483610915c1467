/* engine_pubsub.h - the publish/lookup engine of the server: the server's
 * own directory (pubsub.c, table in pubsub_table.h), used when the host
 * module has none; node 0 holds it, other nodes ask it over nodes.c's send.
 * Requests waiting for node 0 are owned by pubsub.c until answered or failed.
 * Progress thread only.
 */
#ifndef SPX_SERVER_ENGINE_PUBSUB_H
#define SPX_SERVER_ENGINE_PUBSUB_H

#include "server/core.h"

/* ---- pubsub.c: the server's own publish/lookup directory (no host module one) ---- */
/* Same contracts as the host module's publish/lookup/unpublish, on ctx's
 * directory (the table here, or node 0's through ctx->pubsub). */
pmix_status_t spx_srv_pubsub_publish(struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                                     const pmix_info_t info[], size_t ninfo,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t spx_srv_pubsub_lookup(struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                                    char **keys, const pmix_info_t info[], size_t ninfo,
                                    pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t spx_srv_pubsub_unpublish(struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                                       char **keys, const pmix_info_t info[], size_t ninfo,
                                       pmix_op_cbfunc_t cbfunc, void *cbdata);
/* proc finalized or was lost; used: it used the directory from this node. */
void spx_srv_pubsub_proc_done(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool used);
/* The engine's ops (core.h): state ctx->pubsub (requests waiting for node
 * 0); the three PUBSUB channels; node 0 gone: waiting requests fail
 * (PMIX_ERR_UNREACH); stop: they fail (PMIX_ERR_NOT_AVAILABLE) and the
 * table is emptied. */
extern const struct spx_srv_engine_ops spx_srv_pubsub_engine;
#endif
