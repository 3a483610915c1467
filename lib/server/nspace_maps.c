/* nspace_maps.c - a namespace's node and process maps in the server: what
 * they place where, and what of the host's job info they make needless.
 *
 * A server keeps the maps parsed in their compact form (ns->map,
 * store/jobmap.h) and nothing per remote node or rank that they give: at
 * registration a PMIX_PROC_DATA block of a process of another node, and a
 * PMIX_NODE_INFO_ARRAY of another node, are not stored when every value in
 * them is what the maps say (a Get of such a value is answered from the
 * maps, store/jobderived.h); PMIX_NODE_LIST is never stored. So a server's
 * memory for a job is its own node's part and processes plus the maps,
 * whatever the number of nodes (doc/scale.md).
 */
#include "config.h"
#include "server/core.h"

#include <stdlib.h>
#include <string.h>

#include "types/types.h"
#include "util/log.h"

void spx_srv_ns_maps_load(struct spx_srv_ns *ns)
{
    const pmix_value_t *nm = spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD,
                                            PMIX_NODE_MAP, NULL);
    const pmix_value_t *pm = spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD,
                                            PMIX_PROC_MAP, NULL);
    const pmix_value_t *id = spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD,
                                            PMIX_NODEID, NULL);
    ns->my_node = id && id->type == PMIX_UINT32 ? id->data.uint32 : UINT32_MAX;
    if (!nm || !pm)
        return; /* unmapped: single-node use, or a host that gives no maps */
    if (spx_jobmap_load(&ns->map, ns->info, ns->name) != 0) {
        spx_warn("namespace %s: unreadable node or process map", ns->name);
        return;
    }
    ns->mapped = true;
    ns->nodes = calloc(ns->map.nnodes ? ns->map.nnodes : 1, sizeof(*ns->nodes));
    for (uint32_t i = 0; ns->nodes && i < ns->map.nnodes; i++)
        if (spx_procmap_node_size(&ns->map.procs, i))
            ns->nodes[ns->nnodes++] = i; /* ascending */
}

void spx_srv_ns_maps_my_node(struct spx_srv_ns *ns)
{
    const pmix_value_t *id = spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD,
                                            PMIX_NODEID, NULL);
    if (id && id->type == PMIX_UINT32)
        ns->my_node = id->data.uint32;
}

uint32_t spx_srv_ns_node_of(const struct spx_srv_ns *ns, pmix_rank_t rank)
{
    uint32_t node, pos;
    if (!ns || !ns->mapped || !spx_procmap_locate(&ns->map.procs, rank, &node, &pos))
        return UINT32_MAX;
    return node;
}

size_t spx_srv_ns_node_ranks(const struct spx_srv_ns *ns, uint32_t node, pmix_rank_t **out)
{
    size_t n = 0;
    *out = NULL;
    if (ns && ns->mapped && spx_procmap_node_ranks(&ns->map.procs, node, out, &n) != 0)
        n = 0;
    return n;
}

pmix_rank_t spx_srv_ns_rank_top(const struct spx_srv_ns *ns)
{
    return ns && ns->mapped ? ns->map.procs.top : 0;
}

char *spx_srv_ns_node_name(const struct spx_srv_ns *ns, uint32_t node)
{
    return ns && ns->mapped ? spx_nodemap_name(&ns->map.hosts, node) : NULL;
}

bool spx_srv_ns_node_by_name(const struct spx_srv_ns *ns, const char *name, uint32_t *node)
{
    return ns && ns->mapped && spx_nodemap_find(&ns->map.hosts, name, node);
}

/* Does every entry of in[0..n) say what the maps say of rank at pos of node
 * (is_node false) or of node (is_node)? */
static bool all_match(const struct spx_srv_ns *ns, pmix_rank_t rank, uint32_t node, uint32_t pos,
                      bool is_node, const pmix_info_t *in, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!spx_jobmap_matches(&ns->map, rank, node, pos, is_node, in[k].key, &in[k].value))
            return false;
    return true;
}

bool spx_srv_ns_block_derivable(const struct spx_srv_ns *ns, pmix_rank_t rank,
                                const pmix_info_t *in, size_t n)
{
    uint32_t node, pos;
    if (!ns->mapped || ns->nlocal == 0 || ns->my_node == UINT32_MAX)
        return false; /* this node's processes unknown: keep all */
    for (size_t i = 0; i < ns->nlocal; i++)
        if (ns->local[i] == rank)
            return false;
    return spx_procmap_locate(&ns->map.procs, rank, &node, &pos) && node != ns->my_node &&
           all_match(ns, rank, node, pos, false, in, n);
}

bool spx_srv_ns_part_derivable(const struct spx_srv_ns *ns, const pmix_info_t *in, size_t n)
{
    const pmix_info_t *id = spx_info_find(in, n, PMIX_NODEID);
    if (!ns->mapped || ns->my_node == UINT32_MAX || !id || id->value.type != PMIX_UINT32 ||
        id->value.data.uint32 == ns->my_node || id->value.data.uint32 >= ns->map.nnodes)
        return false;
    return all_match(ns, 0, id->value.data.uint32, 0, true, in, n);
}

pmix_status_t spx_srv_ns_derive_keys(struct spx_srv_ns *ns)
{
    pmix_status_t rc = PMIX_SUCCESS;
    if (!ns->mapped)
        return rc;
    if (!spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_NUM_NODES, NULL)) {
        pmix_value_t v = {.type = PMIX_UINT32};
        v.data.uint32 = (uint32_t)ns->nnodes; /* nodes holding processes of the job */
        rc = spx_store_put(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_NUM_NODES, &v,
                           PMIX_GLOBAL);
    }
    return rc;
}
