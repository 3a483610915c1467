/* hello.c - what a namespace's clients are sent at PMIx_Init (the HELLO
 * reply), encoded once per namespace into ns->hello.
 *
 * The reply is blocks of (rank, info[]) from the namespace's registered info
 * (ns->info): the job level (rank WILDCARD), the blocks of this node's
 * processes, and the job's parts (store/jobparts.h: nodes, apps, session).
 * So that a client's start-up and memory do not grow with the job, another
 * node's process block, and another node's part, are left out when every
 * value in it is what the job's node and process maps give
 * (store/jobmap.h): the client computes those at a miss, and asks its server
 * for anything else. A block or part in which the host said something else
 * goes as before; so does everything when the host gave no maps or no
 * PMIX_LOCAL_PEERS (this node's processes are then unknown).
 * Cost at registration: one pass over the maps and the blocks, O(ranks),
 * with a temporary (node, position) per rank.
 */
#include "config.h"
#include "server/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "store/jobmap.h"
#include "store/jobparts.h"
#include "types/types.h"
#include "util/log.h"
#include "util/ranklist.h"

/* Where each rank sits by the maps (temporary, for one encoding). */
struct placement {
    uint32_t *node;         /* [rank]: node index, UINT32_MAX when unplaced */
    unsigned *pos;          /* [rank]: position on that node */
    size_t nranks;
};

static void placement_fini(struct placement *p)
{
    free(p->node);
    free(p->pos);
}

static int placement_build(struct placement *p, const spx_jobmap_t *m, size_t nranks)
{
    p->nranks = nranks;
    p->node = malloc((nranks ? nranks : 1) * sizeof(*p->node));
    p->pos = malloc((nranks ? nranks : 1) * sizeof(*p->pos));
    if (!p->node || !p->pos)
        return -1;
    for (size_t r = 0; r < nranks; r++)
        p->node[r] = UINT32_MAX;
    for (size_t i = 0; i < m->nnodes; i++) {
        hwloc_bitmap_t set = spx_ranklist_parse(m->ppn[i], (unsigned)nranks);
        if (!set)
            continue;
        unsigned rank, k = 0;
        hwloc_bitmap_foreach_begin(rank, set)
        {
            if (rank < nranks) {
                p->node[rank] = (uint32_t)i;
                p->pos[rank] = k;
            }
            k++;
        }
        hwloc_bitmap_foreach_end();
        hwloc_bitmap_free(set);
    }
    return 0;
}

/* What the encoder knows to leave out. */
struct hello_plan {
    const struct spx_srv_ns *ns;
    bool filter;            /* maps and this node's processes known */
    spx_jobmap_t map;
    struct placement place;
    uint32_t my_node;       /* this node's index (the job level's PMIX_NODEID) */
    uint8_t *part_omitted;  /* [part index]: left out (owned), or NULL */
    size_t nparts;
};

static bool is_local(const struct spx_srv_ns *ns, pmix_rank_t rank)
{
    for (size_t i = 0; i < ns->nlocal; i++)
        if (ns->local[i] == rank)
            return true;
    return false;
}

struct match_ctx {
    const struct hello_plan *plan;
    pmix_rank_t rank;
    uint32_t node;
    unsigned pos;
    bool is_node;
    bool all;               /* every entry seen so far matches */
};

static int match_entry(const char *key, const pmix_value_t *val, pmix_scope_t scope,
                       uint64_t seq, void *arg)
{
    (void)scope;
    (void)seq;
    struct match_ctx *c = arg;
    if (val && c->all &&
        !spx_jobmap_matches(&c->plan->map, c->rank, c->node, c->pos, c->is_node, key, val))
        c->all = false;
    return c->all ? 0 : 1; /* stop at the first that differs */
}

/* May rank's block be left out? */
static bool block_omitted(const struct hello_plan *plan, pmix_rank_t rank)
{
    if (!plan->filter || rank >= plan->place.nranks || is_local(plan->ns, rank) ||
        plan->place.node[rank] == UINT32_MAX || plan->place.node[rank] == plan->my_node)
        return false;
    struct match_ctx c = {.plan = plan, .rank = rank, .node = plan->place.node[rank],
                          .pos = plan->place.pos[rank], .is_node = false, .all = true};
    spx_store_foreach_since(plan->ns->info, plan->ns->name, rank, 0, match_entry, &c);
    return c.all;
}

/* The index of a jobparts key naming a node: "spx.node.<i>" (its index), or
 * "spx.host.<name>" / "spx.nodeid.<id>" (val: the index). -1 for others. */
static long part_index(const char *key, const pmix_value_t *val)
{
    if (strncmp(key, "spx.node.", 9) == 0) {
        char *end;
        unsigned long i = strtoul(key + 9, &end, 10);
        return *end == '\0' && key[9] != '\0' && i < 1000000000ul ? (long)i : -1;
    }
    if ((strncmp(key, "spx.host.", 9) == 0 || strncmp(key, "spx.nodeid.", 11) == 0) &&
        val->type == PMIX_UINT32)
        return (long)val->data.uint32;
    return -1;
}

/* Decides which node parts go: one whose every info matches the maps for the
 * node its PMIX_NODEID names, other than this node. */
static int plan_parts(struct hello_plan *plan)
{
    const pmix_value_t *nn =
        spx_store_peek(plan->ns->info, plan->ns->name, SPX_RANK_JOBPARTS, "spx.nnodes", NULL);
    if (!nn || nn->type != PMIX_UINT32)
        return 0;
    plan->nparts = nn->data.uint32;
    plan->part_omitted = calloc(plan->nparts ? plan->nparts : 1, 1);
    if (!plan->part_omitted)
        return -1;
    for (size_t i = 0; i < plan->nparts; i++) {
        char key[32];
        snprintf(key, sizeof(key), "spx.node.%zu", i);
        const pmix_value_t *v =
            spx_store_peek(plan->ns->info, plan->ns->name, SPX_RANK_JOBPARTS, key, NULL);
        if (!v || v->type != PMIX_DATA_ARRAY || !v->data.darray ||
            v->data.darray->type != PMIX_INFO)
            continue;
        const pmix_info_t *in = v->data.darray->array;
        size_t n = v->data.darray->size;
        const pmix_info_t *id = spx_info_find(in, n, PMIX_NODEID);
        if (!id || id->value.type != PMIX_UINT32 || id->value.data.uint32 == plan->my_node ||
            id->value.data.uint32 >= plan->map.nnodes)
            continue;
        bool all = true;
        for (size_t k = 0; k < n && all; k++)
            all = spx_jobmap_matches(&plan->map, 0, id->value.data.uint32, 0, true, in[k].key,
                                     &in[k].value);
        plan->part_omitted[i] = all;
    }
    return 0;
}

static void plan_fini(struct hello_plan *plan)
{
    spx_jobmap_fini(&plan->map);
    placement_fini(&plan->place);
    free(plan->part_omitted);
}

static int plan_build(struct hello_plan *plan, const struct spx_srv_ns *ns)
{
    memset(plan, 0, sizeof(*plan));
    plan->ns = ns;
    const pmix_value_t *id =
        spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_NODEID, NULL);
    const pmix_value_t *size =
        spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL);
    if (ns->nlocal == 0 || !id || id->type != PMIX_UINT32 || !size ||
        size->type != PMIX_UINT32 || spx_jobmap_load(&plan->map, ns->info, ns->name) != 0)
        return 0; /* everything goes */
    plan->my_node = id->data.uint32;
    if (placement_build(&plan->place, &plan->map, size->data.uint32) != 0 ||
        plan_parts(plan) != 0) {
        plan_fini(plan);
        return -1;
    }
    plan->filter = true;
    return 0;
}

struct hello_ctx {
    spx_buf_t *b;
    uint32_t n;
    const struct hello_plan *parts; /* filters the parts block, or NULL */
};

static int hello_entry(const char *key, const pmix_value_t *val, pmix_scope_t scope,
                       uint64_t seq, void *arg)
{
    (void)scope;
    (void)seq;
    struct hello_ctx *h = arg;
    if (!val)
        return 0;
    if (h->parts && h->parts->part_omitted) {
        long i = part_index(key, val);
        if (i >= 0 && (size_t)i < h->parts->nparts && h->parts->part_omitted[i])
            return 0;
    }
    pmix_info_t tmp;
    memset(&tmp, 0, sizeof(tmp));
    spx_key_load(tmp.key, key);
    tmp.value = *val; /* shallow: push only reads it */
    spx_codec_push_info(h->b, &tmp);
    h->n++;
    return 0;
}

static void hello_block(spx_buf_t *b, const struct spx_srv_ns *ns, pmix_rank_t rank,
                        const struct hello_plan *parts)
{
    spx_buf_push_u32(b, rank);
    size_t at = b->len;
    spx_buf_push_u32(b, 0);
    struct hello_ctx h = {.b = b, .n = 0, .parts = parts};
    spx_store_foreach_since(ns->info, ns->name, rank, 0, hello_entry, &h);
    if (!spx_buf_failed(b))
        for (int i = 0; i < 4; i++)
            b->data[at + i] = (uint8_t)(h.n >> (8 * i));
}

pmix_status_t spx_srv_ns_encode_hello(struct spx_srv_ns *ns)
{
    struct hello_plan plan;
    if (plan_build(&plan, ns) != 0)
        return PMIX_ERR_NOMEM;
    bool parts = spx_jobparts_any(ns->info, ns->name);
    uint32_t nblocks = 1 + parts, left_out = 0;
    for (size_t i = 0; i < ns->ninfo_ranks; i++) {
        if (block_omitted(&plan, ns->info_ranks[i]))
            left_out++;
        else
            nblocks++;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, nblocks);
    hello_block(&b, ns, PMIX_RANK_WILDCARD, NULL);
    for (size_t i = 0; i < ns->ninfo_ranks; i++)
        if (!block_omitted(&plan, ns->info_ranks[i]))
            hello_block(&b, ns, ns->info_ranks[i], NULL);
    if (parts)
        hello_block(&b, ns, SPX_RANK_JOBPARTS, plan.filter ? &plan : NULL);
    plan_fini(&plan);
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        return PMIX_ERR_NOMEM;
    }
    free(ns->hello);
    ns->hello = spx_buf_release(&b, &ns->hello_len);
    spx_debug("namespace %s: PMIx_Init reply of %zu bytes; %u process blocks of other nodes "
              "left to the maps", ns->name, ns->hello_len, (unsigned)left_out);
    return PMIX_SUCCESS;
}
