/* jobmap.c - process and node values read from a job's node and process
 * maps (see jobmap.h). Used by the server, to leave such values out of
 * PMIx_Init's reply, and by the client, to compute them at a miss: one
 * definition for both, so what is left out is exactly what is computed.
 */
#include "config.h"
#include "store/jobmap.h"

#include <stdlib.h>
#include <string.h>

#include "store/jobparts.h"
#include "types/types.h"
#include "util/ranklist.h"

/* Largest rank list of one node the maps may hold (a node's processes). */
#define SPX_JOBMAP_MAX_LOCAL 1048576u

int spx_jobmap_load(spx_jobmap_t *m, const spx_store_t *s, const char *nspace)
{
    memset(m, 0, sizeof(*m));
    const pmix_value_t *nm = spx_store_peek(s, nspace, PMIX_RANK_WILDCARD, PMIX_NODE_MAP, NULL);
    const pmix_value_t *pm = spx_store_peek(s, nspace, PMIX_RANK_WILDCARD, PMIX_PROC_MAP, NULL);
    const pmix_value_t *na =
        spx_store_peek(s, nspace, PMIX_RANK_WILDCARD, PMIX_JOB_NUM_APPS, NULL);
    if (!nm || !pm || nm->type != PMIX_STRING || pm->type != PMIX_STRING || !nm->data.string ||
        !pm->data.string)
        return -1;
    if (spx_regex_parse(nm->data.string, &m->hosts) != PMIX_SUCCESS ||
        spx_ppn_parse(pm->data.string, &m->ppn) != PMIX_SUCCESS ||
        spx_regex_count(m->hosts) != spx_regex_count(m->ppn)) {
        spx_jobmap_fini(m);
        return -1;
    }
    m->nnodes = spx_regex_count(m->hosts);
    m->one_app = na && na->type == PMIX_UINT32 && na->data.uint32 == 1;
    return 0;
}

void spx_jobmap_fini(spx_jobmap_t *m)
{
    spx_regex_free(m->hosts);
    spx_regex_free(m->ppn);
    memset(m, 0, sizeof(*m));
}

/* The node of rank and its position there; false when no node holds it. */
static bool locate(const spx_jobmap_t *m, pmix_rank_t rank, uint32_t *node, unsigned *pos)
{
    if (rank >= PMIX_RANK_VALID)
        return false;
    for (size_t i = 0; i < m->nnodes; i++) {
        hwloc_bitmap_t set = spx_ranklist_parse(m->ppn[i], SPX_JOBMAP_MAX_LOCAL);
        if (!set)
            return false;
        bool here = hwloc_bitmap_isset(set, rank);
        if (here) {
            *node = (uint32_t)i;
            *pos = spx_ranklist_below(set, rank);
        }
        hwloc_bitmap_free(set);
        if (here)
            return true;
    }
    return false;
}

static void load_u32(pmix_value_t *out, uint32_t v)
{
    out->type = PMIX_UINT32;
    out->data.uint32 = v;
}

static void load_rank(pmix_value_t *out, pmix_rank_t v)
{
    out->type = PMIX_PROC_RANK;
    out->data.rank = v;
}

static bool load_string(pmix_value_t *out, const char *v)
{
    char *copy = strdup(v);
    if (!copy)
        return false;
    out->type = PMIX_STRING;
    out->data.string = copy;
    return true;
}

/* key of rank, found at position pos of node `node` (UINT32_MAX: not
 * located yet: locate it when the key needs it). */
static bool proc_value(const spx_jobmap_t *m, pmix_rank_t rank, uint32_t node, unsigned pos,
                       const char *key, pmix_value_t *out)
{
    if (spx_key_eq(key, PMIX_RANK) || spx_key_eq(key, PMIX_GLOBAL_RANK)) {
        load_rank(out, rank);
        return true;
    }
    if (m->one_app && spx_key_eq(key, PMIX_APP_RANK)) {
        load_rank(out, rank);
        return true;
    }
    if (m->one_app && spx_key_eq(key, PMIX_APPNUM)) {
        load_u32(out, 0);
        return true;
    }
    if (m->one_app && spx_key_eq(key, PMIX_APPLDR)) {
        load_rank(out, 0);
        return true;
    }
    bool host = spx_key_eq(key, PMIX_HOSTNAME), id = spx_key_eq(key, PMIX_NODEID);
    bool lrank = spx_key_eq(key, PMIX_LOCAL_RANK) || spx_key_eq(key, PMIX_NODE_RANK);
    if (!(host || id || lrank) || (node == UINT32_MAX && !locate(m, rank, &node, &pos)) ||
        node >= m->nnodes)
        return false;
    if (host)
        return load_string(out, m->hosts[node]);
    if (id) {
        load_u32(out, node);
        return true;
    }
    if (pos > UINT16_MAX)
        return false;
    out->type = PMIX_UINT16;
    out->data.uint16 = (uint16_t)pos;
    return true;
}

bool spx_jobmap_proc(const spx_jobmap_t *m, pmix_rank_t rank, const char *key, pmix_value_t *out)
{
    return proc_value(m, rank, UINT32_MAX, 0, key, out);
}

bool spx_jobmap_proc_at(const spx_jobmap_t *m, pmix_rank_t rank, uint32_t node, unsigned pos,
                        const char *key, pmix_value_t *out)
{
    return proc_value(m, rank, node, pos, key, out);
}

bool spx_jobmap_node(const spx_jobmap_t *m, uint32_t node, const char *key, pmix_value_t *out)
{
    if (node >= m->nnodes)
        return false;
    if (spx_key_eq(key, PMIX_HOSTNAME))
        return load_string(out, m->hosts[node]);
    if (spx_key_eq(key, PMIX_NODEID)) {
        load_u32(out, node);
        return true;
    }
    if (spx_key_eq(key, PMIX_LOCAL_PEERS))
        return load_string(out, m->ppn[node]);
    bool size = spx_key_eq(key, PMIX_LOCAL_SIZE) || spx_key_eq(key, PMIX_NODE_SIZE);
    bool ldr = spx_key_eq(key, PMIX_LOCALLDR);
    if (!size && !ldr)
        return false;
    hwloc_bitmap_t set = spx_ranklist_parse(m->ppn[node], SPX_JOBMAP_MAX_LOCAL);
    if (!set)
        return false;
    int first = hwloc_bitmap_first(set);
    int weight = hwloc_bitmap_weight(set);
    hwloc_bitmap_free(set);
    if (size) {
        load_u32(out, weight < 0 ? 0 : (uint32_t)weight);
        return true;
    }
    if (first < 0)
        return false;
    load_rank(out, (pmix_rank_t)first);
    return true;
}

bool spx_jobmap_find_node(const spx_jobmap_t *m, const pmix_info_t *qual, size_t nqual,
                          uint32_t *node)
{
    const pmix_info_t *h = spx_info_find(qual, nqual, PMIX_HOSTNAME);
    const pmix_info_t *id = spx_info_find(qual, nqual, PMIX_NODEID);
    if (h && h->value.type == PMIX_STRING && h->value.data.string) {
        for (size_t i = 0; i < m->nnodes; i++)
            if (strcmp(m->hosts[i], h->value.data.string) == 0) {
                *node = (uint32_t)i;
                return true;
            }
        return false;
    }
    if (id && id->value.type == PMIX_UINT32 && id->value.data.uint32 < m->nnodes) {
        *node = id->value.data.uint32;
        return true;
    }
    return false;
}

bool spx_jobmap_qualified(const spx_store_t *s, const char *nspace, const char *key,
                          const pmix_info_t *qual, size_t nqual, pmix_value_t *out)
{
    pmix_status_t rc;
    const pmix_value_t *held;
    if ((spx_jobparts_lookup(s, nspace, PMIX_NODEID, qual, nqual, &rc, &held) &&
         rc == PMIX_SUCCESS) ||
        (spx_jobparts_lookup(s, nspace, PMIX_HOSTNAME, qual, nqual, &rc, &held) &&
         rc == PMIX_SUCCESS))
        return false; /* a node part held here: what it lacks, it lacks */
    spx_jobmap_t m;
    if (spx_jobmap_load(&m, s, nspace) != 0)
        return false;
    uint32_t node;
    bool ok = spx_jobmap_find_node(&m, qual, nqual, &node) && spx_jobmap_node(&m, node, key, out);
    spx_jobmap_fini(&m);
    return ok;
}

bool spx_jobmap_matches(const spx_jobmap_t *m, pmix_rank_t rank, uint32_t node, unsigned pos,
                        bool is_node, const char *key, const pmix_value_t *val)
{
    pmix_value_t mine = {.type = PMIX_UNDEF};
    bool have = is_node ? spx_jobmap_node(m, node, key, &mine)
                        : spx_jobmap_proc_at(m, rank, node, pos, key, &mine);
    if (!have)
        return false;
    bool same = mine.type == val->type && PMIx_Value_compare(&mine, (pmix_value_t *)val) ==
                                               PMIX_EQUAL;
    PMIx_Value_destruct(&mine);
    return same;
}
