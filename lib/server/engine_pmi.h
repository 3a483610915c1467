/* engine_pmi.h - the PMI wire engine of the server: MPICH's PMI-1 and
 * PMI-2 text protocols (proto/pmi_text.h) spoken by a task on the socket
 * PMIx_server_setup_fork gave it (PMI_FD), mapped onto the same store,
 * fence and directory as a PMIx client's requests.
 *
 * Each task's connection owns a server peer (core.h) that is no framed
 * connection: it carries pmi_wire.c's peer ops (core.h), through which the
 * core's replies and closing reach it. When the task's first command arrives
 * the peer becomes the connection of the registered client (nspace, rank),
 * as a HELLO would make it; from then on a put is a COMMIT of one key, a
 * barrier a collecting FENCE of the whole namespace, finalize / abort /
 * publish the same upcalls, and the task's end of the connection is a
 * client's connection loss (a PMIx one's). Progress thread only; the state
 * ctx->pmi belongs to pmi_wire.c.
 */
#ifndef SPX_SERVER_ENGINE_PMI_H
#define SPX_SERVER_ENGINE_PMI_H
#include "server/core.h"

/* The engine's ops (core.h): state ctx->pmi; nspace_gone closes the
 * connections of that namespace; teardown closes every one. */
extern const struct spx_srv_engine_ops spx_srv_pmi_engine;

/* For PMIx_server_setup_fork (progress thread): makes the socket pair of
 * registered client proc, serves one end, and returns the task's end in
 * *task_fd (close-on-exec: the child clears it on its own copy; the server
 * closes its copy once the task spoke or the namespace goes) and the job
 * size in *size. An earlier pair of the same proc not used yet is closed.
 * 0, or -1 (no client, no memory, no descriptors). */
int spx_srv_pmi_setup_fork(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, int *task_fd,
                           uint32_t *size);
#endif
