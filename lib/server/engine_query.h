/* engine_query.h - the query engine of the server: the query keys the
 * server library answers itself, whatever its host answers or lacks
 * (query_own.c), from what this node knows (query_facts.c) and, where an
 * answer spans the nodes, from the parts every node gives when asked
 * (query_gather.c):
 *
 *   QUERY_REQ  u64 id, u8 part (enum spx_qry_part), str nspace ("" none)
 *                                                   (asking node -> node)
 *   QUERY_REP  u64 id, i32 status, value (only with PMIX_SUCCESS)
 *                                                   (node -> asking node)
 *
 * Parts: PROCS, the node's processes of the namespace (PMIX_DATA_ARRAY of
 * PMIX_PROC_INFO); GROUPS, the ids of the groups the node knows (data
 * array of PMIX_STRING); JOB_STATUS, the namespace's status there
 * (PMIX_STATUS); URI, the node's server URI (PMIX_STRING). A query asks
 * only the nodes its answer needs (those hosting the namespace, every node
 * for the groups, the one node named for a URI) and only when one of those
 * keys is asked: nothing is sent otherwise. A node that is gone (or goes
 * before answering) is answered for from the job info (its ranks, their
 * hosts, a state saying it ended or was lost). Everything runs on the
 * progress thread; ctx->qry (query_int.h) belongs to the engine.
 */
#ifndef SPX_SERVER_ENGINE_QUERY_H
#define SPX_SERVER_ENGINE_QUERY_H

#include "server/core.h"

/* What a node is asked for (the QUERY_REQ's u8). */
enum spx_qry_part {
    SPX_QRY_PROCS = 1,
    SPX_QRY_GROUPS = 2,
    SPX_QRY_JOB_STATUS = 3,
    SPX_QRY_URI = 4,
};

/* ---- query_own.c: the keys the server answers itself ---- */

/* Answers the keys of q[0..nq) that ans[0..nans) (the host's or the
 * server's own answers) lacks and that the server library knows: the
 * process-set keys (api/psets.h), PMIX_QUERY_NAMESPACE_INFO,
 * PMIX_QUERY_PROC_TABLE, PMIX_QUERY_LOCAL_PROC_TABLE, PMIX_QUERY_JOB_STATUS
 * (PMIX_NSPACE, else the requester's own namespace), PMIX_QUERY_SPAWN_SUPPORT,
 * PMIX_QUERY_GROUP_NAMES, PMIX_QUERY_NUM_GROUPS and PMIX_SERVER_URI (this
 * server's, or with PMIX_HOSTNAME/PMIX_NODEID that node's). p is the
 * requester (a tool sees only the namespaces it may: spx_srv_tool_may_see);
 * q, ans and p are borrowed until done runs. done runs exactly once, later or
 * before this returns. */
void spx_srv_query_own_run(struct spx_srv_ctx *ctx, const struct spx_srv_peer *p,
                           const pmix_query_t *q, size_t nq, const pmix_info_t *ans, size_t nans,
                           spx_srv_query_own_f done, void *arg);

/* The engine's ops (core.h; query_gather.c): setup creates ctx->qry; the
 * QUERY channels; a node gone answers for its part; stop ends every query
 * waiting for nodes with what it has; teardown frees ctx->qry. */
extern const struct spx_srv_engine_ops spx_srv_query_engine;

/* ---- query_facts.c: what this node knows ---- */

/* This node's part (enum spx_qry_part) for nspace (borrowed; "" or NULL
 * for none) into *out (zeroed by the caller; PMIx_Value_destruct after):
 * PMIX_SUCCESS, PMIX_ERR_NOT_FOUND (a namespace this server does not have:
 * PROCS and JOB_STATUS), PMIX_ERR_BAD_PARAM (an unknown part) or
 * PMIX_ERR_NOMEM. */
pmix_status_t spx_srv_qry_part(struct spx_srv_ctx *ctx, uint8_t part, const char *nspace,
                               pmix_value_t *out);

/* PMIX_QUERY_NAMESPACE_INFO, as PRRTE answers it: a data array of infos,
 * one PMIX_JOB_INFO_ARRAY per namespace (PMIX_NSPACE, PMIX_CMD_LINE when
 * known, PMIX_JOB_SIZE, then one PMIX_PROC_INFO_ARRAY per rank: PMIX_RANK,
 * PMIX_HOSTNAME, PMIX_LOCAL_RANK), of nspace only when given (else of every
 * namespace p may see). Into *out as spx_srv_qry_part; PMIX_ERR_NOT_FOUND
 * when nspace is not one of this server's or p may not see it. */
pmix_status_t spx_srv_qry_nsinfo(struct spx_srv_ctx *ctx, const struct spx_srv_peer *p,
                                 const char *nspace, pmix_value_t *out);

/* An entry of the process table for a rank of ns that no node described
 * (its node gone, or it is on no node the maps know): the rank, its host
 * from the job info, no pid, state. Strings malloc'd into pi (zeroed by the
 * caller). */
void spx_srv_qry_proc_stand_in(const struct spx_srv_ns *ns, pmix_rank_t rank,
                               pmix_proc_state_t state, pmix_proc_info_t *pi);

/* The job size of ns (PMIX_JOB_SIZE, else the ranks its maps place), at
 * most SPX_QRY_MAX_RANKS. */
uint32_t spx_srv_qry_job_size(const struct spx_srv_ns *ns);
#define SPX_QRY_MAX_RANKS (1u << 24)

#endif
