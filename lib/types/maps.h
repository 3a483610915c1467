/* maps.h - a job's node map (PMIX_NODE_MAP) and process map (PMIX_PROC_MAP)
 * in a compact form whose size does not grow with the node count for the
 * regular layouts hosts make.
 *
 * Why: written out in full the two maps are about 14 bytes per node, sent
 * to every client in PMIx_Init's reply and kept there (140 KB per rank at
 * 10^4 nodes). PMIx_generate_regex / PMIx_generate_ppn (regex.c) now write
 * them in the forms below, and every reader goes through the parsed forms
 * here, which keep groups of nodes, not one entry per node.
 *
 * Text, after the prefix SPX_MAPS_PREFIX ("spmix-r:"):
 *   node map: ','-separated entries, each a host name, or PFX[LO-HI]SFX for
 *     the names PFX<n>SFX, n = LO..HI, each n written with at least as many
 *     digits as LO is written with ("vn[1-32]", "node[001-128]",
 *     "127.0.0.[1-254]"). Names holding any of ",[]*@;" are never grouped.
 *   process map: ';'-separated entries: a rank list ("0-3,8", one node's
 *     ranks), or LIST*N@D for N nodes in a row, the j-th (from 0) holding
 *     LIST's ranks plus j*D. 1024 nodes x 2 ranks in blocks are
 *     "0-1*1024@2", round robin "0,1024*1024@1".
 * The older form (SPX_REGEX_PREFIX "spmix:" and the names or rank lists
 * written out) is read too, into one group per node.
 *
 * Costs: parsing is linear in the text; a lookup walks the groups (O(groups),
 * a few for regular layouts). Rank lists are read by util/ranklist (hwloc's
 * list parser). Nothing here is thread-safe; a parsed map is its owner's.
 */
#ifndef SPX_TYPES_MAPS_H
#define SPX_TYPES_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

#define SPX_MAPS_PREFIX "spmix-r:"
/* Most nodes a map may name, and most ranks one node may hold. */
#define SPX_MAPS_MAX_NODES (1u << 24)
#define SPX_MAPS_MAX_LOCAL 1048576u

struct spx_hostgroup {
    char *prefix;       /* owned; the whole name when count is 1 and !numbered */
    char *suffix;       /* owned; "" when none */
    uint32_t lo, count; /* names for lo .. lo+count-1 */
    uint8_t width;      /* digits at least */
    bool numbered;
};

typedef struct spx_nodemap {
    struct spx_hostgroup *g; /* owned */
    size_t ng;
    uint32_t nnodes;
} spx_nodemap_t;

struct spx_rankrange {
    uint32_t lo, hi; /* inclusive */
};

struct spx_rankrun {
    struct spx_rankrange *r; /* owned, ascending and disjoint; NULL when empty */
    uint32_t nr;
    uint32_t nnodes;         /* N */
    uint32_t shift;          /* D */
    uint32_t size;           /* ranks per node */
};

typedef struct spx_procmap {
    struct spx_rankrun *runs; /* owned */
    size_t nruns;
    uint32_t nnodes;
    uint64_t nranks;          /* sum over nodes */
    pmix_rank_t top;          /* highest rank + 1 (0: none) */
} spx_procmap_t;

/* Parse s (borrowed; ours new or old, "raw:" or a bare list) into *m (the
 * caller's: spx_*map_fini, also after a failure). PMIX_ERR_BAD_PARAM for
 * anything else or past the limits above. */
pmix_status_t spx_nodemap_parse(const char *s, spx_nodemap_t *m);
pmix_status_t spx_procmap_parse(const char *s, spx_procmap_t *m);
void spx_nodemap_fini(spx_nodemap_t *m);
void spx_procmap_fini(spx_procmap_t *m);

/* Name of node i (malloc'd, caller frees), NULL past the end or on ENOMEM. */
char *spx_nodemap_name(const spx_nodemap_t *m, uint32_t i);
/* Index of the node called name; false when none is. */
bool spx_nodemap_find(const spx_nodemap_t *m, const char *name, uint32_t *i);

/* The node holding rank and its position among that node's ranks
 * (ascending); false when no node holds it. */
bool spx_procmap_locate(const spx_procmap_t *m, pmix_rank_t rank, uint32_t *node, uint32_t *pos);
/* How many ranks node holds (0 past the end), and its lowest
 * (PMIX_RANK_UNDEF when none). */
uint32_t spx_procmap_node_size(const spx_procmap_t *m, uint32_t node);
pmix_rank_t spx_procmap_node_first(const spx_procmap_t *m, uint32_t node);
/* Node's ranks ascending into *out (malloc'd, caller frees; NULL when 0). */
int spx_procmap_node_ranks(const spx_procmap_t *m, uint32_t node, pmix_rank_t **out, size_t *n);
/* Node's ranks as "a,b,c" (every rank written, as PMIX_LOCAL_PEERS is);
 * malloc'd, caller frees; NULL past the end or on ENOMEM. */
char *spx_procmap_node_list(const spx_procmap_t *m, uint32_t node);

/* The compact text of a node list "a,b,c" / per-node rank lists "0,1;2,3"
 * (as PMIx_generate_regex / _ppn take them), prefix included. *out
 * malloc'd, caller frees. PMIX_ERR_BAD_PARAM when the input cannot be put in
 * this form (the caller then writes the older one). */
pmix_status_t spx_nodemap_compress(const char *list, char **out);
pmix_status_t spx_procmap_compress(const char *list, char **out);

#endif
