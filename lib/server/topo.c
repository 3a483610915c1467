/* topo.c - this node's hardware topology, shared with the clients.
 *
 * Loaded once per server with hwloc (when the first namespace is
 * registered), it serves two purposes:
 *   - its XML export goes into every namespace's job info as
 *     PMIX_HWLOC_XML_V2, so that a program that would otherwise discover the
 *     machine itself (Open MPI reads this key first) loads the XML instead:
 *     ~1 ms instead of ~20 ms per process, more when they share cores;
 *   - each client reports the cpus it may run on with its HELLO (those Slurm
 *     or the launcher bound it to); the server stores them as the process's
 *     PMIX_CPUSET and, when that is a strict subset of the node, its
 *     PMIX_LOCALITY_STRING: for each level (NUMA node, package, L3, L2, L1,
 *     core, hardware thread) a two-letter tag and the list of logical
 *     indexes of the objects at that level the cpus touch, e.g.
 *     "NM0:SK0:L30:L20:L10:CR0:HT0:". Peers compare these strings to tell
 *     how close two processes are.
 * A host that registers either key itself keeps its own. SPMIX_SHARE_TOPOLOGY=0
 * in the server's environment turns both off. A host that loaded the
 * topology already hands it to PMIx_server_init (PMIX_TOPOLOGY2, an hwloc
 * topology it keeps alive while the server lives): it is used instead of a
 * discovery of our own (spmix-run --nodes: one discovery in the launcher for
 * every node server it forks, not one per server).
 * Thread use: spx_srv_topo_add_xml runs on the registering thread, the rest
 * on the progress thread; the topology is read-only once loaded (pthread_once).
 */
#include "config.h"
#include "server/core.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types.h"
#include "util/log.h"

static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static hwloc_topology_t topo;   /* NULL when unavailable or turned off */
static char *topo_xml;          /* hwloc's buffer (hwloc_free_xmlbuffer) */
static hwloc_topology_t host_topo; /* the host's (PMIX_TOPOLOGY2), borrowed; or NULL */

void spx_srv_topo_from_host(void *hwloc_topo)
{
    host_topo = hwloc_topo;
}

static void topo_load(void)
{
    const char *e = getenv("SPMIX_SHARE_TOPOLOGY");
    if (e && strcmp(e, "0") == 0)
        return;
    hwloc_topology_t t;
    int len = 0;
    if (host_topo) {
        if (hwloc_topology_export_xmlbuffer(host_topo, &topo_xml, &len, 0) == 0) {
            topo = host_topo;
            spx_debug("hwloc: the host's topology, XML export %d bytes", len);
            return;
        }
        spx_warn("hwloc: cannot export the host's topology; discovering this node's");
        topo_xml = NULL;
    }
    if (hwloc_topology_init(&t) != 0)
        return;
    /* what Open MPI asks for when it loads a topology itself */
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) != 0 || hwloc_topology_export_xmlbuffer(t, &topo_xml, &len, 0) != 0) {
        spx_warn("hwloc: cannot load or export this node's topology; clients discover it");
        hwloc_topology_destroy(t);
        topo_xml = NULL;
        return;
    }
    topo = t;
    spx_debug("hwloc: topology loaded, XML export %d bytes", len);
}

static bool topo_ready(void)
{
    pthread_once(&topo_once, topo_load);
    return topo != NULL;
}

pmix_status_t spx_srv_topo_add_xml(struct spx_srv_ns *ns)
{
    if (spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_HWLOC_XML_V2, NULL) ||
        spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_LOCAL_TOPO, NULL) ||
        !topo_ready())
        return PMIX_SUCCESS;
    pmix_value_t v = {.type = PMIX_STRING};
    v.data.string = topo_xml;
    return spx_store_put(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_HWLOC_XML_V2, &v,
                         PMIX_GLOBAL);
}

/* Appends "<tag><list>:" for the objects at depth that cpus touch. */
static int append_level(char **out, size_t *len, int depth, const char *tag,
                        hwloc_const_bitmap_t cpus)
{
    int n = hwloc_get_nbobjs_by_depth(topo, depth);
    if (n <= 0)
        return 0;
    hwloc_bitmap_t hit = hwloc_bitmap_alloc();
    if (!hit)
        return -1;
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_depth(topo, depth, (unsigned)i);
        if (o && o->cpuset && hwloc_bitmap_intersects(o->cpuset, cpus))
            hwloc_bitmap_set(hit, (unsigned)i);
    }
    char *list = NULL;
    int rc = 0;
    if (!hwloc_bitmap_iszero(hit) && hwloc_bitmap_list_asprintf(&list, hit) >= 0) {
        size_t add = strlen(tag) + strlen(list) + 1;
        char *grown = realloc(*out, *len + add + 1);
        if (grown) {
            snprintf(grown + *len, add + 1, "%s%s:", tag, list);
            *out = grown;
            *len += add;
        } else {
            rc = -1;
        }
    }
    free(list);
    hwloc_bitmap_free(hit);
    return rc;
}

/* Locality string of cpus (malloc'd) or NULL. */
static char *locality_of(hwloc_const_bitmap_t cpus)
{
    static const struct { hwloc_obj_type_t type; const char *tag; } levels[] = {
        {HWLOC_OBJ_PACKAGE, "SK"}, {HWLOC_OBJ_L3CACHE, "L3"}, {HWLOC_OBJ_L2CACHE, "L2"},
        {HWLOC_OBJ_L1CACHE, "L1"}, {HWLOC_OBJ_CORE, "CR"},    {HWLOC_OBJ_PU, "HT"},
    };
    char *s = NULL;
    size_t len = 0;
    if (append_level(&s, &len, HWLOC_TYPE_DEPTH_NUMANODE, "NM", cpus) != 0)
        goto fail;
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        int d = hwloc_get_type_depth(topo, levels[i].type);
        if (d >= 0 && append_level(&s, &len, d, levels[i].tag, cpus) != 0)
            goto fail;
    }
    return s;
fail:
    free(s);
    return NULL;
}

void spx_srv_topo_client_cpus(struct spx_srv_ns *ns, pmix_rank_t rank, const char *cpulist)
{
    if (!cpulist || !*cpulist || !topo_ready())
        return;
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    if (!cpus)
        return;
    if (hwloc_bitmap_list_sscanf(cpus, cpulist) != 0 || hwloc_bitmap_iszero(cpus)) {
        spx_debug("namespace %s rank %u: unreadable cpu list \"%.40s\"", ns->name,
                  (unsigned)rank, cpulist);
        hwloc_bitmap_free(cpus);
        return;
    }
    pmix_value_t v = {.type = PMIX_STRING};
    if (!spx_store_peek(ns->info, ns->name, rank, PMIX_CPUSET, NULL)) {
        v.data.string = (char *)cpulist;
        spx_store_put(ns->info, ns->name, rank, PMIX_CPUSET, &v, PMIX_GLOBAL);
    }
    /* bound to part of the node only: an unbound process has no locality */
    hwloc_const_bitmap_t node = hwloc_topology_get_allowed_cpuset(topo);
    if (!spx_store_peek(ns->info, ns->name, rank, PMIX_LOCALITY_STRING, NULL) && node &&
        !hwloc_bitmap_isincluded(node, cpus)) {
        char *loc = locality_of(cpus);
        if (loc) {
            v.data.string = loc;
            spx_store_put(ns->info, ns->name, rank, PMIX_LOCALITY_STRING, &v, PMIX_GLOBAL);
            free(loc);
        }
    }
    hwloc_bitmap_free(cpus);
}

SPX_EXPORT pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset,
                                                             char **locality)
{
    if (!cpuset || !locality || !cpuset->bitmap)
        return PMIX_ERR_BAD_PARAM;
    if (!cpuset->source || strcmp(cpuset->source, "hwloc") != 0)
        return PMIX_ERR_NOT_SUPPORTED;
    if (!topo_ready())
        return PMIX_ERR_NOT_AVAILABLE;
    char *s = locality_of((hwloc_const_bitmap_t)cpuset->bitmap);
    if (!s)
        return PMIX_ERR_NOMEM;
    *locality = s;
    return PMIX_SUCCESS;
}
