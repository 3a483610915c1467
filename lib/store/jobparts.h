/* jobparts.h - the node-level, app-level and session-level parts of a job's
 * registered info, and the answer to a PMIx_Get qualified with
 * PMIX_NODE_INFO (plus PMIX_HOSTNAME or PMIX_NODEID), PMIX_APP_INFO (plus
 * PMIX_APPNUM) or PMIX_SESSION_INFO (plus PMIX_SESSION_ID).
 *
 * The parts live in the job info store of the namespace, beside its
 * job-level keys (rank WILDCARD), under the pseudo-rank SPX_RANK_JOBPARTS
 * (above PMIX_RANK_VALID: never a process):
 *   "spx.node.<i>"     PMIX_DATA_ARRAY of PMIX_INFO, all that is known of
 *                      node i (i counts the nodes in the order added)
 *   "spx.host.<name>"  uint32 i (also under the short name, when free)
 *   "spx.nodeid.<id>"  uint32 i
 *   "spx.nnodes"       uint32, the number of nodes
 *   "spx.app.<appnum>" PMIX_DATA_ARRAY of PMIX_INFO, that app's info
 *   "spx.session"      PMIX_DATA_ARRAY of PMIX_INFO, the info of the job's
 *                      session (the host's PMIX_SESSION_INFO_ARRAY; its
 *                      PMIX_SESSION_ID, when given, names it)
 * The server fills them at namespace registration and sends that rank's
 * block in the HELLO like any other, so the client stores it as received
 * and both sides answer qualified Gets with the same code.
 * Like the store, not thread-safe: callers hold what guards the store.
 */
#ifndef SPX_STORE_JOBPARTS_H
#define SPX_STORE_JOBPARTS_H

#include <stdbool.h>
#include <pmix_common.h>

#include "store/store.h"

#define SPX_RANK_JOBPARTS 0xfffffff1u

/* Adds node info (the content of a PMIX_NODE_INFO_ARRAY; borrowed, copied)
 * for the node named by its PMIX_HOSTNAME (else its PMIX_NODEID). A node
 * already known by that name (id) gets the keys it lacks; keys it has stay;
 * a name or id already taken by another node keeps pointing there.
 * Info naming no node is ignored. PMIX_SUCCESS or PMIX_ERR_NOMEM. */
pmix_status_t spx_jobparts_add_node(spx_store_t *s, const char *nspace, const pmix_info_t *in,
                                    size_t n);

/* Adds app info (the content of a PMIX_APP_INFO_ARRAY, which names the app
 * by PMIX_APPNUM; without one it is app 0), merged the same way. */
pmix_status_t spx_jobparts_add_app(spx_store_t *s, const char *nspace, const pmix_info_t *in,
                                   size_t n);

/* Adds the job's session info (the content of a PMIX_SESSION_INFO_ARRAY),
 * merged the same way: a job belongs to one session. */
pmix_status_t spx_jobparts_add_session(spx_store_t *s, const char *nspace, const pmix_info_t *in,
                                       size_t n);

/* True when the job has any node, app or session part (its block is worth sending). */
bool spx_jobparts_any(const spx_store_t *s, const char *nspace);

/* True when qual[0..nqual) asks for a node, app or session part
 * (PMIX_NODE_INFO, PMIX_APP_INFO or PMIX_SESSION_INFO set): such an answer is
 * not the job-level value of the key. */
bool spx_jobparts_qualified(const pmix_info_t *qual, size_t nqual);

/* Answers a Get of key for (nspace, rank WILDCARD) given qualifiers
 * qual[0..nqual). Returns false when the qualifiers ask for no node, app or
 * session part, or for this node's / this app's when the job info does not
 * say which that is: the caller then looks as without qualifiers. Otherwise
 * true with *rc = PMIX_SUCCESS and *out (borrowed from s until its next
 * write), PMIX_ERR_NOT_FOUND (no such node, app or session, or it lacks the
 * key), or PMIX_ERR_BAD_PARAM (a PMIX_NODEID/PMIX_APPNUM/PMIX_SESSION_ID that
 * is not a number, a PMIX_HOSTNAME that is not a string). PMIX_NODE_INFO
 * without PMIX_HOSTNAME or PMIX_NODEID means this node (the job level's
 * PMIX_NODEID/PMIX_HOSTNAME), PMIX_APP_INFO without PMIX_APPNUM this app (the
 * job level's PMIX_APPNUM), PMIX_SESSION_INFO without PMIX_SESSION_ID the
 * job's session; a PMIX_SESSION_ID must be the one the job's session info
 * names. The node qualifiers come first, then the app's, then the session's. */
bool spx_jobparts_lookup(const spx_store_t *s, const char *nspace, const char *key,
                         const pmix_info_t *qual, size_t nqual, pmix_status_t *rc,
                         const pmix_value_t **out);

#endif
