/* cpuset.c - the client-side cpuset and locality helpers of the PMIx API:
 * reading this process's (or thread's) binding, the "hwloc:<list>" cpuset
 * string both ways, and the relative locality of two locality strings
 * (the "NM0:SK0:L30:L20:L10:CR0:HT0:" form the server gives each bound
 * process, lib/server/topo.c). Cpusets carry source "hwloc" and an hwloc
 * bitmap, freed by PMIx_Cpuset_destruct.
 */
#include "config.h"

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "util/compiler.h"

#define CPUSET_PREFIX "hwloc:"

/* The bitmap of one "<tag><list>" field of a locality string, or NULL. */
static hwloc_bitmap_t field_of(const char *loc, const char *tag)
{
    for (const char *p = loc; p && *p;) {
        size_t n = strcspn(p, ":");
        if (n > 2 && strncmp(p, tag, 2) == 0) {
            char list[1024];
            if (n - 2 >= sizeof(list))
                return NULL;
            memcpy(list, p + 2, n - 2);
            list[n - 2] = '\0';
            hwloc_bitmap_t b = hwloc_bitmap_alloc();
            if (b && hwloc_bitmap_list_sscanf(b, list) != 0) {
                hwloc_bitmap_free(b);
                b = NULL;
            }
            return b;
        }
        p += n;
        if (*p == ':')
            p++;
    }
    return NULL;
}

SPX_EXPORT pmix_status_t PMIx_Get_relative_locality(const char *locality1, const char *locality2,
                                                    pmix_locality_t *locality)
{
    static const struct { const char *tag; pmix_locality_t bit; } fields[] = {
        {"NM", PMIX_LOCALITY_SHARE_NUMA},    {"SK", PMIX_LOCALITY_SHARE_PACKAGE},
        {"L3", PMIX_LOCALITY_SHARE_L3CACHE}, {"L2", PMIX_LOCALITY_SHARE_L2CACHE},
        {"L1", PMIX_LOCALITY_SHARE_L1CACHE}, {"CR", PMIX_LOCALITY_SHARE_CORE},
        {"HT", PMIX_LOCALITY_SHARE_HWTHREAD},
    };
    if (!locality1 || !locality2 || !locality)
        return PMIX_ERR_BAD_PARAM;
    pmix_locality_t l = PMIX_LOCALITY_SHARE_NODE; /* both strings describe this node */
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        hwloc_bitmap_t a = field_of(locality1, fields[i].tag);
        hwloc_bitmap_t b = field_of(locality2, fields[i].tag);
        if (a && b && hwloc_bitmap_intersects(a, b))
            l |= fields[i].bit;
        hwloc_bitmap_free(a);
        hwloc_bitmap_free(b);
    }
    *locality = l;
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string, pmix_cpuset_t *cpuset)
{
    if (!cpuset_string || !cpuset)
        return PMIX_ERR_BAD_PARAM;
    if (strncmp(cpuset_string, CPUSET_PREFIX, strlen(CPUSET_PREFIX)) != 0)
        return PMIX_ERR_NOT_SUPPORTED; /* only hwloc bitmaps are known here */
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    if (!b)
        return PMIX_ERR_NOMEM;
    if (hwloc_bitmap_list_sscanf(b, cpuset_string + strlen(CPUSET_PREFIX)) != 0) {
        hwloc_bitmap_free(b);
        return PMIX_ERR_BAD_PARAM;
    }
    if (!(cpuset->source = strdup("hwloc"))) {
        hwloc_bitmap_free(b);
        return PMIX_ERR_NOMEM;
    }
    cpuset->bitmap = b;
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset, pmix_bind_envelope_t ref)
{
    if (!cpuset || (ref != PMIX_CPUBIND_PROCESS && ref != PMIX_CPUBIND_THREAD))
        return PMIX_ERR_BAD_PARAM;
    cpu_set_t set;
    int rc = ref == PMIX_CPUBIND_THREAD
                 ? pthread_getaffinity_np(pthread_self(), sizeof(set), &set)
                 : sched_getaffinity(0, sizeof(set), &set);
    if (rc != 0)
        return PMIX_ERR_NOT_AVAILABLE;
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    if (!b)
        return PMIX_ERR_NOMEM;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            hwloc_bitmap_set(b, (unsigned)c);
    if (!(cpuset->source = strdup("hwloc"))) {
        hwloc_bitmap_free(b);
        return PMIX_ERR_NOMEM;
    }
    cpuset->bitmap = b;
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset,
                                                           char **cpuset_string)
{
    if (!cpuset || !cpuset_string || !cpuset->bitmap)
        return PMIX_ERR_BAD_PARAM;
    if (!cpuset->source || strcmp(cpuset->source, "hwloc") != 0)
        return PMIX_ERR_NOT_SUPPORTED;
    char *list = NULL;
    if (hwloc_bitmap_list_asprintf(&list, (hwloc_const_bitmap_t)cpuset->bitmap) < 0)
        return PMIX_ERR_NOMEM;
    size_t n = strlen(CPUSET_PREFIX) + strlen(list) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", CPUSET_PREFIX, list);
    free(list);
    if (!s)
        return PMIX_ERR_NOMEM;
    *cpuset_string = s;
    return PMIX_SUCCESS;
}
