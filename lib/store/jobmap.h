/* jobmap.h - what a job's node map (PMIX_NODE_MAP) and process map
 * (PMIX_PROC_MAP) say about a process or a node, so that a client need not
 * be sent it.
 *
 * Why: PMIx_Init's reply used to carry every process's block (PMIX_PROC_DATA)
 * and every node's part of the job, about 6.5 KB per node in every client.
 * The server now leaves out each block and part of another node whose every
 * value equals what the maps give (spx_jobmap_proc / spx_jobmap_node are
 * the one definition both sides use), and the client computes such a value
 * at a miss. Anything a host said differently is sent as before.
 *
 * Node i is the i-th name of the node map and holds the ranks of the i-th
 * entry of the process map (ascending); its id is i. What the maps give:
 *   a process: PMIX_RANK, PMIX_GLOBAL_RANK (the rank), PMIX_HOSTNAME,
 *     PMIX_NODEID (its node's), PMIX_LOCAL_RANK and PMIX_NODE_RANK (its
 *     position on its node, uint16), and, in a job of one app
 *     (PMIX_JOB_NUM_APPS 1), PMIX_APPNUM 0, PMIX_APP_RANK the rank and
 *     PMIX_APPLDR 0;
 *   a node: PMIX_HOSTNAME, PMIX_NODEID, PMIX_LOCAL_PEERS (its entry of the
 *     process map), PMIX_LOCAL_SIZE and PMIX_NODE_SIZE (uint32) and
 *     PMIX_LOCALLDR (its lowest rank).
 *   the job: PMIX_NODE_LIST (the names of the nodes holding ranks, joined by
 *     ',' in map order), which is O(nodes) and so never stored or sent.
 * Costs: the maps are kept in their compact form (types/maps.h): loading
 * parses the text, a lookup walks its groups; no per-node or per-rank table.
 * Not thread-safe: callers hold what guards the store the maps came from.
 */
#ifndef SPX_STORE_JOBMAP_H
#define SPX_STORE_JOBMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

#include "store/store.h"
#include "types/maps.h"

typedef struct spx_jobmap {
    spx_nodemap_t hosts;  /* owned */
    spx_procmap_t procs;  /* owned */
    uint32_t nnodes;
    bool one_app;         /* PMIX_JOB_NUM_APPS is 1 */
} spx_jobmap_t;

/* Reads the maps of nspace's job-level info in s. 0, or -1 when the job has
 * no readable pair of maps (m is then empty; spx_jobmap_fini is still fine). */
int spx_jobmap_load(spx_jobmap_t *m, const spx_store_t *s, const char *nspace);
void spx_jobmap_fini(spx_jobmap_t *m);

/* Parses the two map texts (borrowed) into *m, as spx_jobmap_load does. */
int spx_jobmap_parse(spx_jobmap_t *m, const char *nodemap, const char *procmap, bool one_app);

/* A job-level key the maps give (PMIX_NODE_LIST), into *out (caller
 * destructs); false for any other key. */
bool spx_jobmap_job(const spx_jobmap_t *m, const char *key, pmix_value_t *out);

/* The value of key for process rank, as the maps give it, into *out (the
 * caller's: PMIx_Value_destruct). false when the maps do not give that key
 * or do not place rank (out untouched). */
bool spx_jobmap_proc(const spx_jobmap_t *m, pmix_rank_t rank, const char *key, pmix_value_t *out);

/* The same for node `node`'s part. */
bool spx_jobmap_node(const spx_jobmap_t *m, uint32_t node, const char *key, pmix_value_t *out);

/* The node a PMIX_NODE_INFO qualifier names by PMIX_HOSTNAME or PMIX_NODEID
 * (qual borrowed), by the maps. false when it names none of them. */
bool spx_jobmap_find_node(const spx_jobmap_t *m, const pmix_info_t *qual, size_t nqual,
                          uint32_t *node);

/* spx_jobmap_proc for a rank already located: position pos of node node. */
bool spx_jobmap_proc_at(const spx_jobmap_t *m, pmix_rank_t rank, uint32_t node, uint32_t pos,
                        const char *key, pmix_value_t *out);

/* Whether val (borrowed) is what the maps give for key of node `node`'s part
 * (is_node) or of process rank at position pos of node `node`: a block or
 * part all of whose entries match is left to the client to compute. */
bool spx_jobmap_matches(const spx_jobmap_t *m, pmix_rank_t rank, uint32_t node, uint32_t pos,
                        bool is_node, const char *key, const pmix_value_t *val);

/* For a Get at rank WILDCARD qualified with PMIX_NODE_INFO + PMIX_HOSTNAME or
 * PMIX_NODEID of a node whose part this store does not hold or holds
 * without key (the host's parts are completed by the maps, never stored
 * completed): key of that node by nspace's maps in s, into *out (caller
 * destructs). false when the maps do not name the node or do not give the
 * key. */
bool spx_jobmap_qualified(const spx_store_t *s, const char *nspace, const char *key,
                          const pmix_info_t *qual, size_t nqual, pmix_value_t *out);

#endif
