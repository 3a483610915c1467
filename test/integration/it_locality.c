/* it_locality.c - what the server tells its clients about the machine:
 *   - PMIX_HWLOC_XML_V2 (job level): a topology hwloc loads, with as many
 *     processing units as this machine has;
 *   - PMIX_CPUSET of each process: the cpus it was bound to when it started
 *     (argv[1] "bound": each rank binds itself to cpu rank % ncpus before
 *     PMIx_Init, as Slurm's task binding would; "unbound": left alone);
 *   - PMIX_LOCALITY_STRING of each bound process (none when unbound), read
 *     by its peers: ranks on the same cpu share their HT entry, ranks on
 *     different cpus do not.
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include "itest.h"

#include <hwloc.h>
#include <pmix_server.h>
#include <sched.h>

static char *get_str(pmix_rank_t rank, const char *key, pmix_status_t want)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t opt;
    bool yes = true;
    PMIX_LOAD_PROCID(&p, it_me.nspace, rank);
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&p, key, &opt, 1, &v);
    IT_RC(rc, want, key);
    char *s = NULL;
    if (rc == PMIX_SUCCESS) {
        IT_CHECK(v->type == PMIX_STRING && v->data.string, "%s of rank %u: type %d", key,
                 (unsigned)rank, v->type);
        s = strdup(v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    return s;
}

/* The "HT" entry of a locality string ("NM0:SK0:...:HT3:"), as a bitmap. */
static hwloc_bitmap_t ht_of(const char *loc)
{
    const char *h = strstr(loc, "HT");
    IT_CHECK(h != NULL, "locality string \"%s\" has no HT entry", loc);
    char list[256];
    size_t n = strcspn(h + 2, ":");
    IT_CHECK(n < sizeof(list), "HT entry too long");
    memcpy(list, h + 2, n);
    list[n] = '\0';
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    IT_CHECK(hwloc_bitmap_list_sscanf(b, list) == 0, "HT entry \"%s\" unreadable", list);
    return b;
}

int main(int argc, char **argv)
{
    bool bound = argc > 1 && strcmp(argv[1], "bound") == 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *r = getenv("PMIX_RANK");
    int myrank = r ? atoi(r) : 0;
    int mycpu = (int)(myrank % ncpu);
    if (bound) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(mycpu, &set);
        IT_CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "cannot bind to cpu %d", mycpu);
    }
    cpu_set_t mine_set;
    IT_CHECK(sched_getaffinity(0, sizeof(mine_set), &mine_set) == 0, "sched_getaffinity");
    /* a locality string exists for a process bound to part of the node only */
    bool partial = CPU_COUNT(&mine_set) < ncpu;
    uint32_t size = it_init();
    IT_CHECK(size >= 2, "needs 2 ranks");

    /* the topology: hwloc loads it and finds this machine's cpus in it */
    char *xml = get_str(PMIX_RANK_WILDCARD, PMIX_HWLOC_XML_V2, PMIX_SUCCESS);
    hwloc_topology_t t;
    IT_CHECK(hwloc_topology_init(&t) == 0, "hwloc_topology_init");
    IT_CHECK(hwloc_topology_set_xmlbuffer(t, xml, (int)strlen(xml) + 1) == 0,
             "hwloc does not take the XML");
    IT_CHECK(hwloc_topology_load(t) == 0, "hwloc cannot load the XML");
    int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    IT_CHECK(npu == ncpu, "the XML has %d processing units, this machine %ld", npu, ncpu);
    hwloc_topology_destroy(t);
    free(xml);

    /* my cpuset is what I was bound to */
    char *cpus = get_str(it_me.rank, PMIX_CPUSET, PMIX_SUCCESS);
    if (bound) {
        char want[32];
        snprintf(want, sizeof(want), "%d", mycpu);
        IT_CHECK(strcmp(cpus, want) == 0, "my cpuset is \"%s\", bound to %s", cpus, want);
    } else { /* whatever this process may run on (all cpus, unless started restricted) */
        cpu_set_t set;
        IT_CHECK(sched_getaffinity(0, sizeof(set), &set) == 0, "sched_getaffinity");
        hwloc_bitmap_t want = hwloc_bitmap_alloc(), got = hwloc_bitmap_alloc();
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                hwloc_bitmap_set(want, (unsigned)c);
        IT_CHECK(hwloc_bitmap_list_sscanf(got, cpus) == 0 && hwloc_bitmap_isequal(want, got),
                 "unbound, my cpuset is \"%s\", not the cpus I may run on", cpus);
        hwloc_bitmap_free(want);
        hwloc_bitmap_free(got);
    }
    free(cpus);

    /* locality strings: mine and my neighbour's (asked before any fence: the
     * server waits briefly for a peer that has not said hello yet) */
    pmix_rank_t peer = (it_me.rank + 1) % size;
    char *mine = get_str(it_me.rank, PMIX_LOCALITY_STRING,
                         partial ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND);
    double t0 = it_now();
    char *theirs = get_str(peer, PMIX_LOCALITY_STRING, partial ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND);
    /* an unbound peer has none: the answer comes once it said hello, not
     * after the wait's bound (2 s) */
    IT_CHECK(it_now() - t0 < 1.0, "the peer's locality took %.2f s", it_now() - t0);
    if (bound && partial) {
        hwloc_bitmap_t a = ht_of(mine), b = ht_of(theirs);
        IT_CHECK(hwloc_bitmap_weight(a) == 1, "bound to one cpu but HT is \"%s\"", mine);
        bool same_cpu = (long)peer % ncpu == mycpu;
        IT_CHECK(hwloc_bitmap_intersects(a, b) == same_cpu,
                 "rank %u (%s) and rank %u (%s): HT entries %s but the cpus are %s",
                 (unsigned)it_me.rank, mine, (unsigned)peer, theirs,
                 hwloc_bitmap_intersects(a, b) ? "meet" : "differ", same_cpu ? "equal" : "not");
        hwloc_bitmap_free(a);
        hwloc_bitmap_free(b);
        /* the same answer from PMIx_Get_relative_locality */
        pmix_locality_t rel = 0;
        IT_RC(PMIx_Get_relative_locality(mine, theirs, &rel), PMIX_SUCCESS,
              "PMIx_Get_relative_locality");
        IT_CHECK((rel & PMIX_LOCALITY_SHARE_NODE) &&
                     !!(rel & PMIX_LOCALITY_SHARE_HWTHREAD) == same_cpu,
                 "relative locality of %s and %s is 0x%x", mine, theirs, (unsigned)rel);
    }
    /* my binding through the API, and its string form both ways */
    pmix_cpuset_t cs, back;
    char *str = NULL;
    memset(&cs, 0, sizeof(cs));
    memset(&back, 0, sizeof(back));
    IT_RC(PMIx_Get_cpuset(&cs, PMIX_CPUBIND_PROCESS), PMIX_SUCCESS, "PMIx_Get_cpuset");
    IT_RC(PMIx_server_generate_cpuset_string(&cs, &str), PMIX_SUCCESS,
          "PMIx_server_generate_cpuset_string");
    IT_RC(PMIx_Parse_cpuset_string(str, &back), PMIX_SUCCESS, "PMIx_Parse_cpuset_string");
    IT_CHECK(hwloc_bitmap_isequal(cs.bitmap, back.bitmap), "\"%s\" parsed to another set", str);
    if (bound) {
        char want[40];
        snprintf(want, sizeof(want), "hwloc:%d", mycpu);
        IT_CHECK(strcmp(str, want) == 0, "my cpuset string is %s, want %s", str, want);
    }
    IT_RC(PMIx_Parse_cpuset_string("bogus:1", &back), PMIX_ERR_NOT_SUPPORTED,
          "PMIx_Parse_cpuset_string(unknown source)");
    /* PMIx_Load_topology in a client: the server's topology (hwloc records
     * the exporting process's name), this machine's processing units */
    pmix_topology_t topo = {NULL, NULL};
    IT_RC(PMIx_Load_topology(&topo), PMIX_SUCCESS, "PMIx_Load_topology");
    const char *pn = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo.topology), "ProcessName");
    IT_CHECK(pn && strstr(pn, "spmix-run"), "the topology is not the server's (made by %s)",
             pn ? pn : "?");
    IT_CHECK(hwloc_get_nbobjs_by_type(topo.topology, HWLOC_OBJ_PU) == npu,
             "PMIx_Load_topology: %d processing units, want %d",
             hwloc_get_nbobjs_by_type(topo.topology, HWLOC_OBJ_PU), npu);
    PMIx_Topology_destruct(&topo);
    free(str);
    PMIx_Cpuset_destruct(&cs);
    PMIx_Cpuset_destruct(&back);
    free(mine);
    free(theirs);
    it_fence();
    printf("it_locality %s: %u ranks: OK\n", bound ? "bound" : "unbound", size);
    it_finalize();
    return 0;
}
