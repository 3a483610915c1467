/* hello.c - what a namespace's clients are sent at PMIx_Init (the HELLO
 * reply), encoded once per namespace into ns->hello.
 *
 * The reply is blocks of (rank, info[]) from the namespace's registered info
 * (ns->info): the job level (rank WILDCARD), the job's parts
 * (store/jobparts.h: nodes, apps, session), encoded once, and the process's
 * own block, encoded for it. Other processes' blocks are not sent, this
 * node's neither: a client asks its server for one at its first Get of a
 * key of that process (one round trip, and the whole record comes and is
 * cached), so that a client's reply and memory do not grow with the
 * number of processes on its node. What the job's
 * node and process maps give was not stored at registration
 * (nspace_maps.c): another node's process blocks and node parts that say
 * nothing else, and PMIX_NODE_LIST. The client computes those at a miss
 * (store/jobderived.h), so the reply's size depends on this node's
 * processes and on the maps, which are compact for regular layouts.
 */
#include "config.h"
#include "server/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "store/jobparts.h"
#include "types/types.h"
#include "util/log.h"

struct hello_ctx {
    spx_buf_t *b;
    uint32_t n;
};

static int hello_entry(const char *key, const pmix_value_t *val, pmix_scope_t scope,
                       uint64_t seq, void *arg)
{
    (void)scope;
    (void)seq;
    struct hello_ctx *h = arg;
    if (!val)
        return 0;
    pmix_info_t tmp;
    memset(&tmp, 0, sizeof(tmp));
    spx_key_load(tmp.key, key);
    tmp.value = *val; /* shallow: push only reads it */
    spx_codec_push_info(h->b, &tmp);
    h->n++;
    return 0;
}

static void hello_block(spx_buf_t *b, const struct spx_srv_ns *ns, pmix_rank_t rank)
{
    spx_buf_push_u32(b, rank);
    size_t at = b->len;
    spx_buf_push_u32(b, 0);
    struct hello_ctx h = {.b = b, .n = 0};
    spx_store_foreach_since(ns->info, ns->name, rank, 0, hello_entry, &h);
    if (!spx_buf_failed(b))
        for (int i = 0; i < 4; i++)
            b->data[at + i] = (uint8_t)(h.n >> (8 * i));
}

pmix_status_t spx_srv_ns_encode_hello(struct spx_srv_ns *ns)
{
    bool parts = spx_jobparts_any(ns->info, ns->name);
    spx_buf_t b;
    spx_buf_init(&b);
    hello_block(&b, ns, PMIX_RANK_WILDCARD);
    if (parts)
        hello_block(&b, ns, SPX_RANK_JOBPARTS);
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        return PMIX_ERR_NOMEM;
    }
    free(ns->hello);
    ns->hello = spx_buf_release(&b, &ns->hello_len);
    ns->hello_nblocks = 1 + parts;
    spx_debug("namespace %s: PMIx_Init reply of %zu bytes and the process's own block",
              ns->name, ns->hello_len);
    return PMIX_SUCCESS;
}

void spx_srv_hello_push(spx_buf_t *b, const struct spx_srv_ns *ns, pmix_rank_t rank)
{
    bool own = spx_store_count(ns->info, ns->name, rank) > 0;
    spx_buf_push_u32(b, ns->hello_nblocks + own);
    spx_buf_push_raw(b, ns->hello, ns->hello_len);
    if (own)
        hello_block(b, ns, rank);
}
