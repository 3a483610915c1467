/* jobderived.h - job keys computed at each Get from the job info the
 * process (client) or the server already holds, rather than stored: the
 * HELLO does not carry them, so PMIx_Init's reply does not grow with them.
 *
 * PMIX_LOCAL_PROCS: the processes of the job on a node, a PMIX_DATA_ARRAY
 * of PMIX_PROC in ascending rank order, read from that node's
 * PMIX_LOCAL_PEERS. Which node: at rank WILDCARD the one PMIX_NODE_INFO
 * with PMIX_HOSTNAME or PMIX_NODEID selects (store/jobparts.h), else this
 * node (the job level's PMIX_LOCAL_PEERS, also when asked of a process, as
 * every node key is). A value the host registered under that key wins.
 * Like the store, not thread-safe: callers hold what guards the store.
 */
#ifndef SPX_STORE_JOBDERIVED_H
#define SPX_STORE_JOBDERIVED_H

#include <stdbool.h>
#include <pmix_common.h>

#include "store/store.h"

/* Answers a Get of key for (nspace, rank) with qualifiers qual[0..nqual)
 * when key is one computed here and the job info in s does not hold it.
 * Returns false otherwise (the caller looks key up as usual). Else true
 * with *rc: PMIX_SUCCESS and *out filled (the caller's: PMIx_Value_destruct;
 * untouched on error), PMIX_ERR_NOT_FOUND (no such node, or no local peers
 * known), PMIX_ERR_BAD_PARAM (a malformed node qualifier or peer list), or
 * PMIX_ERR_NOMEM. s, qual: borrowed. */
bool spx_jobderived_get(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                        const char *key, const pmix_info_t *qual, size_t nqual,
                        pmix_status_t *rc, pmix_value_t *out);

#endif
