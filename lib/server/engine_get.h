/* engine_get.h - the data engine of the server: GET requests of local
 * clients (get.c: answered from the store, held until the target commits,
 * or handed to the direct modex) and the direct modex between nodes
 * (dmodex.c, over nodes.c's send). Requests waiting here hold a reference
 * on their peer; ctx->gets belongs to get.c. Progress thread only.
 */
#ifndef SPX_SERVER_ENGINE_GET_H
#define SPX_SERVER_ENGINE_GET_H

#include "server/core.h"

/* ---- get.c ---- */
/* GET frame of p (0, or -1 for a malformed payload: the caller closes). */
int spx_srv_handle_get(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b);
/* A local process committed or went away: answer held requests. */
void spx_srv_get_committed(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank);
/* (nspace, rank) completed its HELLO: GETs waiting for its locality are answered. */
void spx_srv_get_target_hello(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank);
void spx_srv_get_target_gone(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank);
/* nspace was deregistered: what waits for any of its ranks fails (the
 * engine's nspace_gone hook, dmodex.c). */
void spx_srv_get_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace);
void spx_srv_get_requester_gone(struct spx_srv_peer *p);
void spx_srv_get_fail_all(struct spx_srv_ctx *ctx);
/* Host dmodex support (PMIx_server_dmodex_request) on the progress thread. */
bool spx_srv_proc_visible(const struct spx_srv_ctx *ctx, const pmix_proc_t *requester,
                          const char *nspace, pmix_rank_t rank, pmix_scope_t scope);

/* Borrowed pointer to the value of (target, key) requester may see, or NULL. */
const pmix_value_t *spx_srv_get_lookup(struct spx_srv_ctx *ctx, const pmix_proc_t *requester,
                                      const pmix_proc_t *target, const char *key);
/* Sends a GET reply (value v when st is PMIX_SUCCESS). */
void spx_srv_get_reply(struct spx_srv_peer *p, uint32_t seq, pmix_status_t st,
                       const pmix_value_t *v);

/* ---- dmodex.c: direct modex over the tree ---- */
/* A GET of a remote target missed locally: ask its node. True when taken over. */
bool spx_srv_dmx_get(struct spx_srv_peer *p, uint32_t seq, const pmix_proc_t *requester,
                     const pmix_proc_t *target, const char *key, bool optional, long timeout);
/* PMIx_server_dmodex_request for a remote process. True when taken over. */
bool spx_srv_dmx_host(struct spx_srv_ctx *ctx, const pmix_proc_t *target,
                      pmix_dmodex_response_fn_t cb, void *cbarg);
/* (nspace, rank) committed: held requests of other nodes are re-checked. */
void spx_srv_dmx_committed(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank);
/* (nspace, rank) went away: held requests answered, waiting ones fail NOT_FOUND. */
void spx_srv_dmx_target_gone(struct spx_srv_ctx *ctx, const char *nspace, pmix_rank_t rank);
/* The engine's ops (core.h): state ctx->dmx; both DMX channels; a gone node
 * fails what waits for it (PMIX_ERR_UNREACH); a gone namespace fails what
 * waits for its ranks (PMIX_ERR_NOT_FOUND); stop fails what waits
 * (PMIX_ERR_NOT_AVAILABLE). */
extern const struct spx_srv_engine_ops spx_srv_dmx_engine;

#endif
