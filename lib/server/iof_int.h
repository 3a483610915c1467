/* iof_int.h - what the two halves of the server's IOF engine share: iof.c
 * (pushes to stdin, the engine's life) and iof_pull.c (output pulled by
 * tools and clients: IOF_PULL registrations, PMIx_server_IOF_deliver).
 * Everything runs on the progress thread unless said otherwise.
 */
#ifndef SPX_SERVER_IOF_INT_H
#define SPX_SERVER_IOF_INT_H

#include "server/core.h"

struct spx_srv_pulls; /* iof_pull.c: the registrations of this server's pullers
                       * (ctx->iof_pulls, which iof.c's engine sets up) */

/* Creates the (empty) registry; NULL when out of memory. */
struct spx_srv_pulls *spx_srv_pulls_create(void);
/* Drops every registration (their peer references) and frees the registry; NULL: no-op. */
void spx_srv_pulls_destroy(struct spx_srv_pulls *pl);

/* An IOF_PULL request of peer p (iof_pull.c): 0 (answered), or -1 for a
 * malformed payload (the caller closes the connection). */
int spx_srv_handle_iof_pull(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b);

/* A message of another node on channel IOF_SUB or IOF_OUT (b borrowed). */
void spx_srv_pulls_recv(struct spx_srv_ctx *ctx, uint32_t from, uint8_t channel, spx_buf_t *b);
/* The server stops (progress thread): what waits in the pullers'
 * connections is written out first (at most 2 s in all). */
void spx_srv_pulls_flush(struct spx_srv_ctx *ctx);
/* Node is gone: its pulls end here, and no reply waits for it. */
void spx_srv_pulls_node_gone(struct spx_srv_ctx *ctx, uint32_t node);

#endif
