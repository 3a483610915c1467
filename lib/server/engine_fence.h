/* engine_fence.h - the fence engine of the server: the glue between the
 * tracker engine (fence.h) and the server (collect.c: COMMIT and FENCE
 * frames, contributions, the host's fence_nb or the nodes' collective,
 * delivering the data of all nodes) and the shared-memory fence of a
 * namespace (shmfence.c). Everything runs on the progress thread.
 * Ownership: ctx->fence and ctx->delta belong to collect.c (setup/teardown);
 * ns->shmf belongs to shmfence.c.
 */
#ifndef SPX_SERVER_ENGINE_FENCE_H
#define SPX_SERVER_ENGINE_FENCE_H

#include "server/core.h"
#include "server/delta.h"
#include "server/fence.h"

/* ---- collect.c: the fence engine (fence.h) joined to the server ---- */
/* The engine's ops (core.h): setup creates ctx->fence and ctx->delta;
 * teardown answers every pending arrival (PMIX_ERR_NOT_AVAILABLE) and frees
 * both; node_gone fails the trackers that need the node. */
extern const struct spx_srv_engine_ops spx_srv_fence_engine;
/* The fence engine of ctx (NULL once it is torn down), for callbacks that
 * come later (timers, the network's answer). */
struct spx_fence_engine *spx_srv_fence_engine_of(struct spx_srv_ctx *ctx);
/* COMMIT and FENCE frames of p (0, or -1 for a malformed payload: the caller closes). */
int spx_srv_handle_commit(struct spx_srv_peer *p, spx_buf_t *b);
int spx_srv_handle_fence(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b);

/* ---- shmfence.c: the shared-memory fence of a namespace ---- */
/* Creates ns's segment when every local process is known and adds its path
 * to ns's job info (before the HELLO bytes are encoded). No segment (and
 * PMIX_SUCCESS) when it does not apply or cannot be made. */
pmix_status_t spx_srv_shmf_setup(struct spx_srv_ctx *ctx, struct spx_srv_ns *ns);
/* Detaches ns's fence (re-registration hands it to the new ns). */
struct spx_srv_shmf *spx_srv_shmf_take(struct spx_srv_ns *ns);
/* Breaks, answers every waiter with PMIX_ERR_NOT_AVAILABLE, removes the file. */
void spx_srv_shmf_free(struct spx_srv_shmf *f);
/* Every whole-namespace fence of ns fails with status from now on (ns may be
 * NULL); recoverable: a local process went away, and the fence works again
 * once every local process is connected (spx_srv_shmf_client_ready). */
void spx_srv_shmf_break(struct spx_srv_ns *ns, pmix_status_t status, bool recoverable);
/* A client of ns completed its HELLO. */
void spx_srv_shmf_client_ready(struct spx_srv_ns *ns);
/* A local process of ns finalized: the segment is retired for good (a
 * generation with the engine completes first); later whole-namespace fences,
 * direct or through the socket, go to the fence engine. */
void spx_srv_shmf_retire(struct spx_srv_ns *ns);
/* ---- fence_standin.c ---- */
/* A local process of ns finalized: if every local process of ns has, and
 * the job spans other nodes, this node stands in for them in ns's
 * whole-namespace fences from now on. */
void spx_srv_fence_standin_check(struct spx_srv_ctx *ctx, struct spx_srv_ns *ns);
/* Ends the stand-in for nspace (NULL: every one of ctx). */
void spx_srv_fence_standin_stop(struct spx_srv_ctx *ctx, const char *nspace);

/* A FENCE request from p (set borrowed) arrives in the fence engine. */
void spx_srv_fence_socket_arrive(struct spx_srv_peer *p, uint32_t seq, const pmix_proc_t *set,
                                 size_t nset, bool collect, long timeout);
/* Does a FENCE from p over set go through p's namespace's segment? */
bool spx_srv_shmf_covers(const struct spx_srv_peer *p, const pmix_proc_t *set, size_t nset);
/* A FENCE request that spx_srv_shmf_covers: arrives on p's behalf. */
void spx_srv_shmf_socket_fence(struct spx_srv_peer *p, uint32_t seq, bool collect, long timeout);
/* Has a local process of ns sent a COMMIT the server has not applied yet? */
bool spx_srv_shmf_commits_pending(const struct spx_srv_ns *ns);
/* One COMMIT frame of p was applied. */
void spx_srv_shmf_commit_applied(struct spx_srv_peer *p);
/* FENCE_LOCAL frame (0, or -1 when malformed). */
int spx_srv_handle_fence_local(struct spx_srv_peer *p, spx_buf_t *b);
/* The fence engine answered one of a closed gather's arrivals. */
void spx_srv_shmf_batch_done(struct spx_srv_shmf_batch *batch, pmix_status_t status);
/* collect.c: enters proc (a local process) into ctx's fence engine for a
 * closed gather; the answer goes to spx_srv_shmf_batch_done(batch). */
void spx_srv_fence_arrive_for(struct spx_srv_ctx *ctx, const pmix_proc_t *proc,
                              const pmix_proc_t *set, size_t nset, bool collect, double timeout,
                              struct spx_srv_shmf_batch *batch);

#endif
