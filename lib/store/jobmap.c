/* jobmap.c - process and node values read from a job's node and process
 * maps (see jobmap.h). Used by the server, to leave such values out of
 * PMIx_Init's reply, and by the client, to compute them at a miss: one
 * definition for both, so what is left out is exactly what is computed.
 */
#include "config.h"
#include "store/jobmap.h"

#include <stdlib.h>
#include <string.h>

#include "types/types.h"

int spx_jobmap_parse(spx_jobmap_t *m, const char *nodemap, const char *procmap, bool one_app)
{
    memset(m, 0, sizeof(*m));
    if (!nodemap || !procmap || spx_nodemap_parse(nodemap, &m->hosts) != PMIX_SUCCESS ||
        spx_procmap_parse(procmap, &m->procs) != PMIX_SUCCESS ||
        m->hosts.nnodes != m->procs.nnodes) {
        spx_jobmap_fini(m);
        return -1;
    }
    m->nnodes = m->hosts.nnodes;
    m->one_app = one_app;
    return 0;
}

int spx_jobmap_load(spx_jobmap_t *m, const spx_store_t *s, const char *nspace)
{
    memset(m, 0, sizeof(*m));
    const pmix_value_t *nm = spx_store_peek(s, nspace, PMIX_RANK_WILDCARD, PMIX_NODE_MAP, NULL);
    const pmix_value_t *pm = spx_store_peek(s, nspace, PMIX_RANK_WILDCARD, PMIX_PROC_MAP, NULL);
    const pmix_value_t *na =
        spx_store_peek(s, nspace, PMIX_RANK_WILDCARD, PMIX_JOB_NUM_APPS, NULL);
    if (!nm || !pm || nm->type != PMIX_STRING || pm->type != PMIX_STRING)
        return -1;
    return spx_jobmap_parse(m, nm->data.string, pm->data.string,
                            na && na->type == PMIX_UINT32 && na->data.uint32 == 1);
}

void spx_jobmap_fini(spx_jobmap_t *m)
{
    spx_nodemap_fini(&m->hosts);
    spx_procmap_fini(&m->procs);
    memset(m, 0, sizeof(*m));
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

/* v: malloc'd, becomes out's; NULL (no memory, or none) gives false. */
static bool load_owned(pmix_value_t *out, char *v)
{
    if (!v)
        return false;
    out->type = PMIX_STRING;
    out->data.string = v;
    return true;
}

/* key of rank, found at position pos of node `node` (UINT32_MAX: not
 * located yet: locate it when the key needs it). */
static bool proc_value(const spx_jobmap_t *m, pmix_rank_t rank, uint32_t node, uint32_t pos,
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
    if (!(host || id || lrank) || (node == UINT32_MAX && !spx_procmap_locate(&m->procs, rank, &node, &pos)) ||
        node >= m->nnodes)
        return false;
    if (host)
        return load_owned(out, spx_nodemap_name(&m->hosts, node));
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

bool spx_jobmap_proc_at(const spx_jobmap_t *m, pmix_rank_t rank, uint32_t node, uint32_t pos,
                        const char *key, pmix_value_t *out)
{
    return proc_value(m, rank, node, pos, key, out);
}

bool spx_jobmap_node(const spx_jobmap_t *m, uint32_t node, const char *key, pmix_value_t *out)
{
    if (node >= m->nnodes)
        return false;
    if (spx_key_eq(key, PMIX_HOSTNAME))
        return load_owned(out, spx_nodemap_name(&m->hosts, node));
    if (spx_key_eq(key, PMIX_NODEID)) {
        load_u32(out, node);
        return true;
    }
    if (spx_key_eq(key, PMIX_LOCAL_PEERS))
        return load_owned(out, spx_procmap_node_list(&m->procs, node));
    if (spx_key_eq(key, PMIX_LOCAL_SIZE) || spx_key_eq(key, PMIX_NODE_SIZE)) {
        load_u32(out, spx_procmap_node_size(&m->procs, node));
        return true;
    }
    if (spx_key_eq(key, PMIX_LOCALLDR)) {
        pmix_rank_t first = spx_procmap_node_first(&m->procs, node);
        if (first == PMIX_RANK_UNDEF)
            return false;
        load_rank(out, first);
        return true;
    }
    return false;
}

bool spx_jobmap_job(const spx_jobmap_t *m, const char *key, pmix_value_t *out)
{
    if (!spx_key_eq(key, PMIX_NODE_LIST) || m->nnodes == 0)
        return false;
    size_t len = 1, off = 0;
    char **names = calloc(m->nnodes, sizeof(*names));
    bool ok = names != NULL;
    for (uint32_t i = 0; ok && i < m->nnodes; i++) {
        if (spx_procmap_node_size(&m->procs, i) == 0)
            continue; /* a node of the map without processes of this job */
        ok = (names[i] = spx_nodemap_name(&m->hosts, i)) != NULL;
        len += ok ? strlen(names[i]) + 1 : 0;
    }
    char *list = ok ? malloc(len) : NULL;
    for (uint32_t i = 0; list && i < m->nnodes; i++)
        if (names[i])
            off += (size_t)snprintf(list + off, len - off, "%s%s", off ? "," : "", names[i]);
    if (list && off == 0)
        list[0] = '\0';
    for (uint32_t i = 0; names && i < m->nnodes; i++)
        free(names[i]);
    free(names);
    return load_owned(out, list);
}

bool spx_jobmap_find_node(const spx_jobmap_t *m, const pmix_info_t *qual, size_t nqual,
                          uint32_t *node)
{
    const pmix_info_t *h = spx_info_find(qual, nqual, PMIX_HOSTNAME);
    const pmix_info_t *id = spx_info_find(qual, nqual, PMIX_NODEID);
    if (h && h->value.type == PMIX_STRING && h->value.data.string)
        return spx_nodemap_find(&m->hosts, h->value.data.string, node);
    if (id && id->value.type == PMIX_UINT32 && id->value.data.uint32 < m->nnodes) {
        *node = id->value.data.uint32;
        return true;
    }
    return false;
}

bool spx_jobmap_qualified(const spx_store_t *s, const char *nspace, const char *key,
                          const pmix_info_t *qual, size_t nqual, pmix_value_t *out)
{
    spx_jobmap_t m;
    if (spx_jobmap_load(&m, s, nspace) != 0)
        return false;
    uint32_t node;
    bool ok = spx_jobmap_find_node(&m, qual, nqual, &node) && spx_jobmap_node(&m, node, key, out);
    spx_jobmap_fini(&m);
    return ok;
}

bool spx_jobmap_matches(const spx_jobmap_t *m, pmix_rank_t rank, uint32_t node, uint32_t pos,
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
