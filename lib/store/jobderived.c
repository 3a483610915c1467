/* jobderived.c - job keys computed at each Get (jobderived.h).
 *
 * PMIX_LOCAL_PROCS: find the node's PMIX_LOCAL_PEERS (the part the
 * qualifiers select, or the job level), read it as a rank list and turn
 * it into pmix_proc_t of the namespace.
 * What the maps give (store/jobmap.h) and the job info does not hold:
 * PMIX_NODE_LIST; a process key of a process whose block is not held (the
 * server stores, and PMIx_Init's reply carries, only blocks the maps do not
 * give); a key of a node, named by PMIX_NODE_INFO with PMIX_HOSTNAME or
 * PMIX_NODEID, whose part is not held.
 */
#include "config.h"

#include "store/jobderived.h"

#include <stdlib.h>
#include <string.h>

#include "store/jobmap.h"
#include "store/jobparts.h"
#include "types/types.h"
#include "util/ranklist.h"

/* Local ranks are uint16 (PMIX_LOCAL_RANK): no node holds more processes
 * of one job, so a longer list is damaged. */
#define SPX_JOBDERIVED_MAX_LOCAL (1u << 16)

/* The procs of nspace in the rank list peers, into *out (filled on success). */
static pmix_status_t procs_of_list(const char *nspace, const char *peers, pmix_value_t *out)
{
    hwloc_bitmap_t set = spx_ranklist_parse(peers, SPX_JOBDERIVED_MAX_LOCAL);
    if (!set)
        return PMIX_ERR_BAD_PARAM;
    int n = hwloc_bitmap_weight(set);
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    pmix_proc_t *procs = n > 0 ? calloc((size_t)n, sizeof(*procs)) : NULL;
    if (!da || (n > 0 && !procs)) {
        free(da);
        free(procs);
        hwloc_bitmap_free(set);
        return PMIX_ERR_NOMEM;
    }
    size_t i = 0;
    unsigned rank;
    hwloc_bitmap_foreach_begin(rank, set)
    {
        spx_proc_load(&procs[i], nspace, (pmix_rank_t)rank);
        i++; /* not inside the macro: it names its first argument twice */
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(set);
    da->type = PMIX_PROC;
    da->size = i;
    da->array = procs;
    out->type = PMIX_DATA_ARRAY;
    out->data.darray = da; /* handed to the caller with out */
    return PMIX_SUCCESS;
}

/* PMIX_LOCAL_PROCS, unless the host registered it where the Get looks. */
static bool local_procs(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                        const pmix_info_t *qual, size_t nqual, pmix_status_t *rc,
                        pmix_value_t *out)
{
    const pmix_value_t *peers = NULL;
    if (rank == PMIX_RANK_WILDCARD &&
        spx_jobparts_lookup(s, nspace, PMIX_LOCAL_PROCS, qual, nqual, rc, &peers)) {
        if (*rc != PMIX_ERR_NOT_FOUND)
            return *rc != PMIX_SUCCESS; /* the host's value, or a bad qualifier */
        if (!spx_jobparts_lookup(s, nspace, PMIX_LOCAL_PEERS, qual, nqual, rc, &peers) ||
            *rc != PMIX_SUCCESS) {
            /* a node whose part PMIx_Init left out: its peers by the maps */
            pmix_value_t mapped = {.type = PMIX_UNDEF};
            if (*rc == PMIX_ERR_NOT_FOUND &&
                spx_jobmap_qualified(s, nspace, PMIX_LOCAL_PEERS, qual, nqual, &mapped)) {
                *rc = mapped.type == PMIX_STRING && mapped.data.string
                          ? procs_of_list(nspace, mapped.data.string, out)
                          : PMIX_ERR_BAD_PARAM;
                PMIx_Value_destruct(&mapped);
            }
            return true; /* no such node, or it has no peers */
        }
    } else {
        if (spx_store_peek(s, nspace, rank, PMIX_LOCAL_PROCS, NULL) ||
            spx_store_peek(s, nspace, PMIX_RANK_WILDCARD, PMIX_LOCAL_PROCS, NULL))
            return false;
        peers = spx_store_peek(s, nspace, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL);
        if (!peers) {
            *rc = PMIX_ERR_NOT_FOUND;
            return true;
        }
    }
    if (peers->type != PMIX_STRING || !peers->data.string)
        *rc = PMIX_ERR_BAD_PARAM;
    else
        *rc = procs_of_list(nspace, peers->data.string, out);
    return true;
}

/* A key the maps give for the job (rank WILDCARD, no node qualifier), or
 * for a process whose block s does not hold. */
static bool by_maps(const spx_store_t *s, const char *nspace, pmix_rank_t rank, const char *key,
                    const pmix_info_t *qual, size_t nqual, pmix_status_t *rc, pmix_value_t *out)
{
    bool job = rank == PMIX_RANK_WILDCARD;
    if (job ? spx_jobparts_qualified(qual, nqual) ||
                  spx_store_peek(s, nspace, PMIX_RANK_WILDCARD, key, NULL) != NULL
            : rank >= PMIX_RANK_VALID || !spx_key_is_reserved(key) ||
                  spx_store_count(s, nspace, rank) != 0)
        return false;
    spx_jobmap_t m;
    if (spx_jobmap_load(&m, s, nspace) != 0)
        return false;
    uint32_t node, pos;
    bool ok = job ? spx_jobmap_job(&m, key, out)
                  : spx_procmap_locate(&m.procs, rank, &node, &pos) &&
                        spx_jobmap_proc_at(&m, rank, node, pos, key, out);
    spx_jobmap_fini(&m);
    if (ok)
        *rc = PMIX_SUCCESS;
    return ok;
}

/* A node-qualified key of a node whose part s does not hold, by the maps. */
static bool node_by_maps(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                         const char *key, const pmix_info_t *qual, size_t nqual,
                         pmix_status_t *rc, pmix_value_t *out)
{
    pmix_status_t lrc;
    const pmix_value_t *v;
    if (rank != PMIX_RANK_WILDCARD || !spx_jobparts_lookup(s, nspace, key, qual, nqual, &lrc, &v) ||
        lrc != PMIX_ERR_NOT_FOUND || !spx_jobmap_qualified(s, nspace, key, qual, nqual, out))
        return false;
    *rc = PMIX_SUCCESS;
    return true;
}

bool spx_jobderived_get(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                        const char *key, const pmix_info_t *qual, size_t nqual,
                        pmix_status_t *rc, pmix_value_t *out)
{
    if (!s || !nspace || !key)
        return false;
    if (spx_key_eq(key, PMIX_LOCAL_PROCS))
        return local_procs(s, nspace, rank, qual, nqual, rc, out);
    return by_maps(s, nspace, rank, key, qual, nqual, rc, out) ||
           node_by_maps(s, nspace, rank, key, qual, nqual, rc, out);
}
