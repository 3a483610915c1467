/* engine_group.h - the group engine of the server (group.c and the files
 * group_int.h lists): PMIx group construct and destruct as collectives over
 * the members' nodes, invitations, the groups this node knows and the
 * context ids it hands out.
 *
 * A construct is a collecting collective of its own (a tracker of the fence
 * engine, fence.h, tagged "C:<group id>", so it never meets a fence or
 * another group over the same processes): every local member contributes its
 * group info and its endpoint data (proto/group.h), the lowest node of the
 * members assigns the context id, and every member's server gets the whole
 * outcome, applies the endpoint data of the other nodes' members to its store
 * and hands the outcome to its local members with their reply. A destruct is
 * a collective without data over the members (tag "D:<group id>"); then the
 * group is forgotten.
 *
 * Context ids: node i of n hands out 1 + i + n * k, k = 0, 1, ..., so ids
 * are unique in the step without a message, the same at every member (they
 * come with the outcome), and never reused: Open MPI goes on using a group's
 * id for its communicator after destructing the group.
 *
 * Everything runs on the progress thread. ctx->grp belongs to group.c.
 */
#ifndef SPX_SERVER_ENGINE_GROUP_H
#define SPX_SERVER_ENGINE_GROUP_H

#include "server/core.h"

/* The engine's ops (core.h): setup creates ctx->grp; stop fails what is
 * pending; teardown frees it; node_gone fails the collectives that need the
 * node; proc_gone fails the collectives still waiting for that process;
 * nspace_gone forgets the late invitees kept for the namespace's invitations. */
extern const struct spx_srv_engine_ops spx_srv_group_engine;

/* A GROUP frame of p (0, or -1 for a malformed payload: the caller closes). */
int spx_srv_handle_group(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b);

/* Does range (a PMIX_EVENT_CUSTOM_RANGE entry) name proc as a member of a
 * group this node knows - (group id, WILDCARD) or (group id, r) for the
 * r-th member? */
bool spx_srv_group_names(const struct spx_srv_ctx *ctx, const pmix_proc_t *range,
                         const pmix_proc_t *proc);

/* The ids of the groups this node knows (constructed with a member here,
 * not destructed), in no order: a NULL-terminated array (the caller's:
 * spx_argv_free) with *n entries, or NULL when out of memory. */
char **spx_srv_group_ids(const struct spx_srv_ctx *ctx, size_t *n);

/* A client raised PMIX_GROUP_CONSTRUCT_ABORT (with PMIX_GROUP_ID in info):
 * when it leads that invitation, the invitation ends with that status
 * (event to the invitees, status of their joins and of the invite) and true
 * is returned; false: deliver it as any event. */
bool spx_srv_group_notify_abort(struct spx_srv_ctx *ctx, const pmix_proc_t *from,
                                const pmix_info_t *info, size_t ninfo);

/* group_shm.c: the shared-memory construct of ns (proto/group_shm.h), made
 * with its shared-memory fence, before the HELLO bytes are encoded; adds its
 * path to ns's job info. PMIX_SUCCESS also when it does not apply. */
pmix_status_t spx_srv_gshm_setup(struct spx_srv_ctx *ctx, struct spx_srv_ns *ns);
/* GROUP_LOCAL frame of p (0, or -1 when malformed). */
int spx_srv_handle_group_local(struct spx_srv_peer *p, spx_buf_t *b);
/* One COMMIT frame of p was applied (a construct may wait for it). */
void spx_srv_gshm_commit_applied(struct spx_srv_peer *p);

/* The network's answer to one of the engine's collectives (nodes.c). */
struct spx_fence_engine *spx_srv_group_coll_engine(struct spx_srv_ctx *ctx);

#endif
