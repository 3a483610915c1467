/* topology.c - this node's hardware topology and device distances in the
 * PMIx API.
 *
 *   PMIx_Load_topology       the caller gets its own copy of the node's hwloc
 *                            topology (source "hwloc:<version>"): built from
 *                            the server's PMIX_HWLOC_XML_V2 when this process
 *                            is a client that has it, else discovered here
 *                            with the important I/O devices; freed with
 *                            PMIx_Topology_destruct.
 *   PMIx_Compute_distances   how far the PUs of a cpuset are from the node's
 *   (_nb)                    devices (network, fabric, GPU, ... : hwloc OS
 *                            devices), as OpenPMIx measures it: for one PU,
 *                            depth(topology) - depth(common ancestor of the PU
 *                            and the device's nearest non-I/O ancestor), or
 *                            pu depth + topology depth when they share only
 *                            the machine; mindist/maxdist over the cpuset's
 *                            PUs, UINT16_MAX when unknown. Smaller is closer.
 *
 * The discovered (or XML-built) topology is cached once per process and only
 * ever read afterwards; callers get duplicates.
 */
#include "config.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <pmix.h>

#include "client/client.h"
#include "progress/progress.h"
#include "types/types.h"
#include "util/compiler.h"
#include "util/log.h"

/* The cache is not progress-thread state: PMIx_Load_topology and
 * PMIx_Compute_distances build it on their caller's thread (which may block
 * in PMIx_Get for the server's XML), and any thread reads it. So it takes no
 * lock: it is published once with a compare-and-swap and read-only after
 * that; a thread that loses a race frees its own copy. (A mutex held across
 * that PMIx_Get would deadlock an event handler asking for the topology on
 * the progress thread while the Get waits for that thread.) */
static hwloc_topology_t cached; /* read-only once set; lives until exit */

/* The server's XML for this job, when this process is a client that has it
 * (returned string owned by the caller), else NULL. Never blocks: a Get made
 * on the progress thread is refused and we fall back to discovery. */
static char *server_xml(void)
{
    if (!spx_client_initialized() || spx_client.singleton || spx_progress_on_thread())
        return NULL;
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, spx_client.myproc.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t opt;
    bool yes = true;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_value_t *v = NULL;
    char *xml = NULL;
    if (PMIx_Get(&job, PMIX_HWLOC_XML_V2, &opt, 1, &v) == PMIX_SUCCESS && v &&
        v->type == PMIX_STRING && v->data.string)
        xml = strdup(v->data.string);
    if (v)
        PMIX_VALUE_RELEASE(v);
    PMIX_INFO_DESTRUCT(&opt);
    return xml;
}

/* This node's topology, loaded on first use; NULL when hwloc fails. Borrowed. */
static hwloc_topology_t node_topology(void)
{
    hwloc_topology_t have = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (have)
        return have;
    hwloc_topology_t t = NULL;
    char *xml = server_xml();
    bool ok = hwloc_topology_init(&t) == 0;
    if (!ok)
        t = NULL;
    /* devices are what PMIx_Compute_distances is about */
    ok = ok && hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) == 0;
    if (ok && xml)
        ok = hwloc_topology_set_xmlbuffer(t, xml, (int)strlen(xml) + 1) == 0 &&
             hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) == 0;
    if (ok && hwloc_topology_load(t) == 0) {
        if (__atomic_compare_exchange_n(&cached, &have, t, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            spx_debug("topology: loaded from %s", xml ? "the server's XML" : "this machine");
            have = t;
        } else {
            hwloc_topology_destroy(t); /* another thread published first: have is theirs */
        }
    } else {
        spx_warn("topology: hwloc cannot load this node's topology");
        if (t)
            hwloc_topology_destroy(t);
        have = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    }
    free(xml);
    return have;
}

static char *source_name(void)
{
    char *s = NULL;
    if (asprintf(&s, "hwloc:%s", HWLOC_VERSION) < 0)
        return NULL;
    return s;
}

SPX_EXPORT pmix_status_t PMIx_Load_topology(pmix_topology_t *topo)
{
    if (!topo)
        return PMIX_ERR_BAD_PARAM;
    if (topo->source && strncasecmp(topo->source, "hwloc", 5) != 0)
        return PMIX_ERR_NOT_SUPPORTED;
    hwloc_topology_t node = node_topology(), copy = NULL;
    if (!node)
        return PMIX_ERR_NOT_AVAILABLE;
    char *src = source_name();
    if (!src || hwloc_topology_dup(&copy, node) != 0) {
        free(src);
        return PMIX_ERR_NOMEM;
    }
    free(topo->source);
    topo->source = src;
    topo->topology = copy;
    return PMIX_SUCCESS;
}

SPX_EXPORT void PMIx_Topology_destruct(pmix_topology_t *topo)
{
    if (!topo)
        return;
    if (topo->topology)
        hwloc_topology_destroy((hwloc_topology_t)topo->topology);
    free(topo->source);
    topo->topology = NULL;
    topo->source = NULL;
}

/* ---- distances ---- */

static pmix_device_type_t type_of(hwloc_obj_osdev_type_t t)
{
    switch (t) {
    case HWLOC_OBJ_OSDEV_BLOCK: return PMIX_DEVTYPE_BLOCK;
    case HWLOC_OBJ_OSDEV_GPU: return PMIX_DEVTYPE_GPU;
    case HWLOC_OBJ_OSDEV_NETWORK: return PMIX_DEVTYPE_NETWORK;
    case HWLOC_OBJ_OSDEV_OPENFABRICS: return PMIX_DEVTYPE_OPENFABRICS;
    case HWLOC_OBJ_OSDEV_DMA: return PMIX_DEVTYPE_DMA;
    case HWLOC_OBJ_OSDEV_COPROC: return PMIX_DEVTYPE_COPROC;
    default: return PMIX_DEVTYPE_UNKNOWN;
    }
}

static const char *info_value(hwloc_obj_t o, const char *name)
{
    for (unsigned i = 0; i < o->infos_count; i++)
        if (strcasecmp(o->infos[i].name, name) == 0)
            return o->infos[i].value;
    return NULL;
}

/* The name an application correlates the device with (OpenPMIx's forms:
 * ipv4:// or ipv6:// + address, fab://NodeGUID::SysImageGUID,
 * gpu://host::name, blk://host::name); dev://host::name otherwise.
 * Returned string owned by the caller. */
static char *device_uuid(hwloc_obj_t o, const char *host)
{
    char *u = NULL;
    const char *addr = info_value(o, "Address");
    const char *ngid = info_value(o, "NodeGUID"), *sgid = info_value(o, "SysImageGUID");
    int colons = 0;
    for (const char *p = addr; p && *p; p++)
        colons += *p == ':';
    int rc = -1;
    switch (o->attr->osdev.type) {
    case HWLOC_OBJ_OSDEV_NETWORK:
        if (addr && (colons == 5 || colons == 19))
            rc = asprintf(&u, "%s://%s", colons == 5 ? "ipv4" : "ipv6", addr);
        break;
    case HWLOC_OBJ_OSDEV_OPENFABRICS:
        if (ngid && sgid)
            rc = asprintf(&u, "fab://%s::%s", ngid, sgid);
        break;
    case HWLOC_OBJ_OSDEV_GPU:
    case HWLOC_OBJ_OSDEV_COPROC:
        rc = asprintf(&u, "gpu://%s::%s", host, o->name ? o->name : "");
        break;
    case HWLOC_OBJ_OSDEV_BLOCK:
        rc = asprintf(&u, "blk://%s::%s", host, o->name ? o->name : "");
        break;
    default:
        break;
    }
    if (rc < 0 && asprintf(&u, "dev://%s::%s", host, o->name ? o->name : "") < 0)
        return NULL;
    return u;
}

/* Distance of one PU to the device whose nearest non-I/O ancestor is loc. */
static unsigned pu_distance(hwloc_topology_t t, hwloc_obj_t pu, hwloc_obj_t loc, unsigned depth)
{
    hwloc_obj_t common = hwloc_get_common_ancestor_obj(t, pu, loc);
    if (!common || common->depth == 0)
        return (unsigned)pu->depth + depth;
    return depth - (unsigned)common->depth;
}

/* Does the caller's PMIX_DEVICE_ID list (NULL: no filter) name this device? */
static bool wanted_id(char **ids, size_t nids, const char *osname, const char *uuid)
{
    if (nids == 0)
        return true;
    for (size_t i = 0; i < nids; i++)
        if ((osname && strcasecmp(ids[i], osname) == 0) || (uuid && strcasecmp(ids[i], uuid) == 0))
            return true;
    return false;
}

static void free_dist(pmix_device_distance_t *d, size_t n)
{
    for (size_t i = 0; d && i < n; i++) {
        free(d[i].uuid);
        free(d[i].osname);
    }
    free(d);
}

/* topo and cpuset may be NULL (this node; this process's binding).
 * *out: array owned by the caller (PMIX_DEVICE_DIST_FREE). */
static pmix_status_t compute(pmix_topology_t *topo, pmix_cpuset_t *cpuset, const pmix_info_t *info,
                             size_t ninfo, pmix_device_distance_t **out, size_t *nout)
{
    if (!out || !nout || (ninfo && !info))
        return PMIX_ERR_BAD_PARAM;
    *out = NULL;
    *nout = 0;
    if ((topo && topo->source && strncasecmp(topo->source, "hwloc", 5) != 0) ||
        (cpuset && cpuset->source && strncasecmp(cpuset->source, "hwloc", 5) != 0))
        return PMIX_ERR_NOT_SUPPORTED;
    hwloc_topology_t t = topo && topo->topology ? (hwloc_topology_t)topo->topology : node_topology();
    if (!t)
        return PMIX_ERR_NOT_AVAILABLE;
    pmix_device_type_t want = 0;
    char **ids = NULL;
    size_t nids = 0;
    if (ninfo && !(ids = calloc(ninfo, sizeof(char *))))
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_DEVICE_TYPE)) {
            if (info[i].value.type != PMIX_DEVTYPE) {
                free(ids);
                return PMIX_ERR_BAD_PARAM;
            }
            want |= info[i].value.data.devtype;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_DEVICE_ID)) {
            if (info[i].value.type != PMIX_STRING || !info[i].value.data.string) {
                free(ids);
                return PMIX_ERR_BAD_PARAM;
            }
            ids[nids++] = info[i].value.data.string;
        }
    }
    if (want == 0) /* the devices a process communicates through */
        want = PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS | PMIX_DEVTYPE_GPU |
               PMIX_DEVTYPE_COPROC;
    pmix_cpuset_t mine = {NULL, NULL};
    hwloc_const_bitmap_t cpus;
    if (cpuset && cpuset->bitmap) {
        cpus = cpuset->bitmap;
    } else {
        pmix_status_t rc = PMIx_Get_cpuset(&mine, PMIX_CPUBIND_PROCESS);
        if (rc != PMIX_SUCCESS) {
            free(ids);
            return rc;
        }
        cpus = mine.bitmap;
    }
    char host[256];
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    unsigned depth = (unsigned)hwloc_topology_get_depth(t);
    int pudepth = hwloc_get_type_depth(t, HWLOC_OBJ_PU);
    unsigned npu = pudepth < 0 ? 0 : (unsigned)hwloc_get_nbobjs_by_depth(t, (unsigned)pudepth);
    size_t n = 0, cap = 0;
    pmix_device_distance_t *d = NULL;
    pmix_status_t rc = PMIX_SUCCESS;
    for (hwloc_obj_t o = hwloc_get_next_osdev(t, NULL); o; o = hwloc_get_next_osdev(t, o)) {
        pmix_device_type_t type = type_of(o->attr->osdev.type);
        if (!(type & want))
            continue;
        char *uuid = device_uuid(o, host);
        if (!uuid) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
        if (!wanted_id(ids, nids, o->name, uuid)) {
            free(uuid);
            continue;
        }
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            pmix_device_distance_t *nd = realloc(d, nc * sizeof(*nd));
            if (!nd) {
                free(uuid);
                rc = PMIX_ERR_NOMEM;
                break;
            }
            d = nd;
            cap = nc;
        }
        pmix_device_distance_t *e = &d[n++];
        memset(e, 0, sizeof(*e));
        e->uuid = uuid;
        e->osname = strdup(o->name ? o->name : "");
        e->type = type;
        e->mindist = e->maxdist = UINT16_MAX;
        if (!e->osname) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
        hwloc_obj_t loc = hwloc_get_non_io_ancestor_obj(t, o);
        unsigned lo = UINT16_MAX, hi = 0;
        bool measured = false;
        for (unsigned i = 0; loc && i < npu; i++) {
            hwloc_obj_t pu = hwloc_get_obj_by_depth(t, (unsigned)pudepth, i);
            if (!pu || !pu->cpuset || !hwloc_bitmap_intersects(pu->cpuset, cpus))
                continue;
            unsigned dist = pu_distance(t, pu, loc, depth);
            lo = dist < lo ? dist : lo;
            hi = dist > hi ? dist : hi;
            measured = true;
        }
        if (measured) {
            e->mindist = (uint16_t)(lo < UINT16_MAX ? lo : UINT16_MAX);
            e->maxdist = (uint16_t)(hi < UINT16_MAX ? hi : UINT16_MAX);
        }
    }
    free(ids);
    PMIx_Cpuset_destruct(&mine);
    if (rc != PMIX_SUCCESS) {
        free_dist(d, n);
        return rc;
    }
    if (n == 0) {
        free(d);
        return PMIX_ERR_NOT_FOUND;
    }
    *out = d;
    *nout = n;
    return PMIX_SUCCESS;
}

/* The directives compute() honours. */
static const char *const distance_directives[] = {PMIX_DEVICE_TYPE, PMIX_DEVICE_ID, NULL};

SPX_EXPORT pmix_status_t PMIx_Compute_distances(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
                                                pmix_info_t info[], size_t ninfo,
                                                pmix_device_distance_t *distances[], size_t *ndist)
{
    pmix_status_t rc =
        spx_directives_check("PMIx_Compute_distances", info, ninfo, distance_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    return compute(topo, cpuset, info, ninfo, distances, ndist);
}

/* ---- non-blocking form: computed now, reported from the progress thread ---- */

struct dist_job {
    pmix_status_t status;
    pmix_device_distance_t *dist; /* owned until release */
    size_t ndist;
    pmix_device_dist_cbfunc_t cbfunc;
    void *cbdata;
};

static void dist_release(void *arg)
{
    struct dist_job *j = arg;
    free_dist(j->dist, j->ndist);
    free(j);
}

static void dist_report(void *arg)
{
    struct dist_job *j = arg;
    j->cbfunc(j->status, j->dist, j->ndist, j->cbdata, dist_release, j);
}

SPX_EXPORT pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
                                                   pmix_info_t info[], size_t ninfo,
                                                   pmix_device_dist_cbfunc_t cbfunc, void *cbdata)
{
    if (!cbfunc)
        return PMIX_ERR_BAD_PARAM;
    if (!PMIx_Initialized())
        return PMIX_ERR_INIT; /* no progress thread to report from */
    pmix_status_t rc =
        spx_directives_check("PMIx_Compute_distances_nb", info, ninfo, distance_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    struct dist_job *j = calloc(1, sizeof(*j));
    if (!j)
        return PMIX_ERR_NOMEM;
    j->cbfunc = cbfunc;
    j->cbdata = cbdata;
    j->status = compute(topo, cpuset, info, ninfo, &j->dist, &j->ndist);
    if (spx_progress_shift(dist_report, j) != 0) {
        dist_release(j);
        return PMIX_ERR_INIT;
    }
    return PMIX_SUCCESS;
}
