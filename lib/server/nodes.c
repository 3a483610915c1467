/* nodes.c - multi-node mode of the server: the other nodes as this server
 * sees them, reached only through the net-ops seam (net.h).
 *
 * PMIx_server_init hands the SPMIX_TREE_* directives to spx_srv_mn_parse (on
 * the caller's thread); spx_srv_mn_start then creates the network (the tree
 * engine through tree_net.c, or a test's fake) on the progress thread. From
 * there on:
 *   - a local fence tracker that completes becomes a collective over the
 *     nodes hosting its participants (spx_srv_mn_fence); the network's
 *     answer goes back to the fence engine through spx_fence_host_done;
 *   - a tracker that failed locally still starts its collective, with the
 *     error, so every node fails it (spx_srv_mn_fence_failed);
 *   - a message goes to the engine whose ops table (core.h, ctx->engines)
 *     lists its channel, read in place (a borrowed spx_buf: no copy here;
 *     the copy count of a modex payload is in collect.c);
 *   - a lost or departed node is recorded here and handed to every engine's
 *     node_gone, in the engines' order.
 * The network's upcalls carry the server context (their arg); every function
 * here works on the context it is given, none reaches the global.
 * The SPMIX_QUERY_* counters and the SPMIX_STATS=1 summary come from here.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_fence.h"
#include "server/net.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <spmix.h>

#include "progress/progress.h"
#include "types/types.h"
#include "util/log.h"
#include "util/trace.h"

#define MN_MAX_NODES 65536
#define MN_MAX_ADDRS_LEN (1u << 22)
#define MN_MAX_SECRET 4096
#define MN_MAX_AUTH_UIDS 16

struct spx_srv_mn_cfg {
    uint32_t node_index, nnodes, width;
    double connect_timeout;
    char **addrs;            /* nnodes strings (owned) */
    void *secret;            /* owned; NULL with munge */
    size_t secret_len;
    int auth;                /* 0 secret, 1 munge (SPMIX_TREE_AUTH) */
    uint32_t auth_uids[MN_MAX_AUTH_UIDS];
    size_t auth_nuids;
    char *auth_id;           /* owned; munge */
};

enum { NODE_LOST = 1, NODE_LEFT = 2 };

struct spx_srv_mn {
    void *net;               /* the network's handle (owned, freed by net_ops->destroy) */
    const spx_srv_net_ops_t *net_ops; /* borrowed (static) */
    uint32_t me, nnodes;
    uint8_t *node_lost;      /* [nnodes]: 0 up, NODE_LOST, or NODE_LEFT (ended in order) */
    pmix_proc_t *lost;       /* processes known to be lost (owned) */
    size_t nlost, clost;
};

static void cfg_free(struct spx_srv_mn_cfg *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; c->addrs && i < c->nnodes; i++)
        free(c->addrs[i]);
    free(c->addrs);
    if (c->secret)
        memset(c->secret, 0, c->secret_len);
    free(c->secret);
    free(c->auth_id);
    free(c);
}

/* SPMIX_TREE_AUTH "munge": the accepted uids and the step's id; 0 or -1 (logged). */
static int mn_parse_munge(struct spx_srv_mn_cfg *c, const pmix_info_t *info, size_t ninfo)
{
    const pmix_info_t *u = spx_info_find(info, ninfo, SPMIX_TREE_AUTH_UIDS);
    const pmix_info_t *id = spx_info_find(info, ninfo, SPMIX_TREE_AUTH_ID);
    c->auth = 1;
    if (!u || u->value.type != PMIX_STRING || !u->value.data.string || !id ||
        id->value.type != PMIX_STRING || !id->value.data.string ||
        !(c->auth_id = strdup(id->value.data.string))) {
        spx_error("PMIx_server_init: %s \"munge\" needs the strings %s and %s", SPMIX_TREE_AUTH,
                  SPMIX_TREE_AUTH_UIDS, SPMIX_TREE_AUTH_ID);
        return -1;
    }
    for (const char *p = u->value.data.string; *p;) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || errno || v > UINT32_MAX || (*end && *end != ',') ||
            c->auth_nuids == MN_MAX_AUTH_UIDS) {
            spx_error("PMIx_server_init: %s \"%s\" is not a list of 1..%d uids",
                      SPMIX_TREE_AUTH_UIDS, u->value.data.string, MN_MAX_AUTH_UIDS);
            return -1;
        }
        c->auth_uids[c->auth_nuids++] = (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    if (c->auth_nuids == 0) {
        spx_error("PMIx_server_init: %s is empty", SPMIX_TREE_AUTH_UIDS);
        return -1;
    }
    return 0;
}

pmix_status_t spx_srv_mn_parse(struct spx_srv_ctx *ctx, const pmix_info_t *info,
                               size_t ninfo)
{
    const pmix_info_t *idx = spx_info_find(info, ninfo, SPMIX_TREE_NODE_INDEX);
    const pmix_info_t *addrs = spx_info_find(info, ninfo, SPMIX_TREE_ADDRS);
    const pmix_info_t *sec = spx_info_find(info, ninfo, SPMIX_TREE_SECRET);
    const pmix_info_t *auth = spx_info_find(info, ninfo, SPMIX_TREE_AUTH);
    bool munge = auth && auth->value.type == PMIX_STRING && auth->value.data.string &&
                 strcmp(auth->value.data.string, "munge") == 0;
    ctx->mn_cfg = NULL;
    if (!idx && !addrs && !sec && !auth)
        return PMIX_SUCCESS;
    if (auth && !munge &&
        (auth->value.type != PMIX_STRING || !auth->value.data.string ||
         strcmp(auth->value.data.string, "secret") != 0)) {
        spx_error("PMIx_server_init: %s must be \"secret\" or \"munge\"", SPMIX_TREE_AUTH);
        return PMIX_ERR_BAD_PARAM;
    }
    if (!idx || !addrs || (!sec && !munge)) {
        spx_error("PMIx_server_init: %s, %s and %s (or %s \"munge\") must be given together",
                  SPMIX_TREE_NODE_INDEX, SPMIX_TREE_ADDRS, SPMIX_TREE_SECRET, SPMIX_TREE_AUTH);
        return PMIX_ERR_BAD_PARAM;
    }
    struct spx_srv_mn_cfg *c = calloc(1, sizeof(*c));
    if (!c)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    const pmix_info_t *i;
    uint32_t u;
    if (spx_value_to_u32(&idx->value, &c->node_index) != PMIX_SUCCESS) {
        spx_error("PMIx_server_init: %s is not an integer", SPMIX_TREE_NODE_INDEX);
        goto fail;
    }
    if (addrs->value.type != PMIX_STRING || !addrs->value.data.string ||
        strlen(addrs->value.data.string) > MN_MAX_ADDRS_LEN) {
        spx_error("PMIx_server_init: %s must be a string", SPMIX_TREE_ADDRS);
        goto fail;
    }
    if (munge && mn_parse_munge(c, info, ninfo) != 0)
        goto fail;
    if (!munge && (sec->value.type != PMIX_BYTE_OBJECT || sec->value.data.bo.size < 16 ||
        sec->value.data.bo.size > MN_MAX_SECRET || !sec->value.data.bo.bytes)) {
        spx_error("PMIx_server_init: %s must be a byte object of 16..%d bytes",
                  SPMIX_TREE_SECRET, MN_MAX_SECRET);
        goto fail;
    }
    /* split "ip:port,ip:port,..." */
    const char *s = addrs->value.data.string;
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    if (n > MN_MAX_NODES || !(c->addrs = calloc(n, sizeof(*c->addrs)))) {
        rc = n > MN_MAX_NODES ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOMEM;
        goto fail;
    }
    for (const char *p = s;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            spx_error("PMIx_server_init: empty entry in %s \"%s\"", SPMIX_TREE_ADDRS, s);
            goto fail;
        }
        if (!(c->addrs[c->nnodes] = strndup(p, len))) {
            rc = PMIX_ERR_NOMEM;
            goto fail;
        }
        c->nnodes++;
        p += len;
        if (!*p)
            break;
    }
    if (c->node_index >= c->nnodes) {
        spx_error("PMIx_server_init: node index %u but %u addresses", c->node_index, c->nnodes);
        goto fail;
    }
    if (!munge && !(c->secret = malloc(sec->value.data.bo.size))) {
        rc = PMIX_ERR_NOMEM;
        goto fail;
    }
    if (!munge) {
        memcpy(c->secret, sec->value.data.bo.bytes, sec->value.data.bo.size);
        c->secret_len = sec->value.data.bo.size;
    }
    if ((i = spx_info_find(info, ninfo, SPMIX_TREE_WIDTH)) &&
        spx_value_to_u32(&i->value, &u) == PMIX_SUCCESS)
        c->width = u;
    c->connect_timeout = 30;
    if ((i = spx_info_find(info, ninfo, SPMIX_TREE_TIMEOUT)) &&
        spx_value_to_u32(&i->value, &u) == PMIX_SUCCESS && u > 0)
        c->connect_timeout = u;
    ctx->mn_cfg = c;
    return PMIX_SUCCESS;
fail:
    cfg_free(c);
    return rc;
}

/* ---- engine callbacks ---- */

static void mn_recv(uint32_t from, uint8_t channel, const void *data, size_t len, void *arg)
{
    struct spx_srv_ctx *ctx = arg;
    if (!ctx->mn || !ctx->active)
        return;
    const struct spx_srv_engine_ops *e = spx_srv_engine_of_channel(ctx, channel);
    if (!e) {
        spx_warn("tree: message on unknown channel %u from node %u dropped", channel, from);
        return;
    }
    spx_buf_t b; /* reads the network's bytes in place (they outlive this call) */
    spx_buf_init_borrowed(&b, data, len);
    e->recv(ctx, from, channel, &b);
    spx_buf_fini(&b);
}

/* Every engine hears that node is gone (only while the server is active). */
static void mn_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost)
{
    if (!ctx->mn || !ctx->active)
        return;
    spx_srv_engines_node_gone(ctx, node, lost);
}

static void mn_node_lost(uint32_t node, const char *reason, void *arg)
{
    struct spx_srv_ctx *ctx = arg;
    struct spx_srv_mn *m = ctx->mn;
    if (!m || node >= m->nnodes || m->node_lost[node])
        return;
    spx_warn("tree: node %u lost (%s)", node, reason ? reason : "no reason given");
    m->node_lost[node] = NODE_LOST;
    mn_node_gone(ctx, node, true);
}

/* The node's server ended in order (its processes all finalized): nothing
 * to report to the clients, but what still waits for that node fails. */
static void mn_node_left(uint32_t node, void *arg)
{
    struct spx_srv_ctx *ctx = arg;
    struct spx_srv_mn *m = ctx->mn;
    if (!m || node >= m->nnodes || m->node_lost[node])
        return;
    spx_info("tree: node %u ended (its processes finished)", node);
    m->node_lost[node] = NODE_LEFT;
    mn_node_gone(ctx, node, false);
}

/* A tool the tree authenticated by munge on its port (a tool on a host
 * without a server of the step): a peer as a local one, with the
 * credential's uid/gid and no pid (-1, which SO_PEERCRED never gives,
 * marks it remote: peer.c lets it be a tool only). */
static void mn_tool_accept(int fd, uid_t uid, gid_t gid, const char *label, void *arg)
{
    spx_debug("server: %s joins the local peers", label);
    spx_srv_accept(fd, uid, gid, -1, arg);
}

static const spx_srv_net_up_t mn_up = {.recv = mn_recv, .node_lost = mn_node_lost,
                                       .node_left = mn_node_left,
                                       .tool_accept = mn_tool_accept};

static spx_srv_net_create_f net_factory; /* NULL: the tree engine (tests replace it) */

void spx_srv_net_set_factory(spx_srv_net_create_f create)
{
    net_factory = create;
}

/* Did every process this server served end with PMIx_Finalize? */
static bool mn_ended_in_order(const struct spx_srv_ctx *ctx)
{
    if (ctx->local_failure)
        return false;
    const struct spx_srv_ns *ns;
    LIST_FOREACH(ns, &ctx->nspaces, link)
        for (struct spx_srv_client *cl = SLIST_FIRST(&ns->clients); cl;
             cl = SLIST_NEXT(cl, link))
            if (cl->connected_once && !cl->finalized) /* never connected: not a PMIx program */
                return false;
    return true;
}

int spx_srv_mn_start(struct spx_srv_ctx *ctx)
{
    struct spx_srv_mn_cfg *c = ctx->mn_cfg;
    if (!c)
        return 0;
    ctx->mn_cfg = NULL;
    int rc = -1;
    struct spx_srv_mn *m = calloc(1, sizeof(*m));
    if (!m || !(m->node_lost = calloc(c->nnodes, sizeof(*m->node_lost)))) {
        free(m);
        goto out;
    }
    m->me = c->node_index;
    m->nnodes = c->nnodes;
    spx_srv_net_cfg_t nc = {.node_index = c->node_index,
                            .nnodes = c->nnodes,
                            .width = c->width,
                            .addrs = (const char *const *)c->addrs,
                            .auth = c->auth,
                            .secret = c->secret,
                            .secret_len = c->secret_len,
                            .auth_uids = c->auth_uids,
                            .auth_nuids = c->auth_nuids,
                            .auth_id = c->auth_id,
                            .connect_timeout = c->connect_timeout};
    spx_srv_net_create_f create = net_factory ? net_factory : spx_srv_tree_net_create;
    if (!(m->net = create(spx_progress_base(), &nc, &mn_up, ctx, &m->net_ops))) {
        free(m->node_lost);
        free(m);
        goto out;
    }
    ctx->mn = m;
    spx_info("server: node %u of %u in the tree (%s), links authenticated by %s", c->node_index,
             c->nnodes, c->addrs[c->node_index], c->auth ? "munge" : "the step secret");
    rc = 0;
out:
    cfg_free(c);
    return rc;
}

void spx_srv_mn_stop(struct spx_srv_ctx *ctx)
{
    cfg_free(ctx->mn_cfg);
    ctx->mn_cfg = NULL;
    struct spx_srv_mn *m = ctx->mn;
    if (!m)
        return;
    spx_srv_net_stats_t st;
    memset(&st, 0, sizeof(st));
    m->net_ops->stats(m->net, &st);
    const char *env = getenv("SPMIX_STATS");
    if (env && strcmp(env, "1") == 0)
        fprintf(stderr, "spmix stats node %u: colls %llu msgs %llu bytes %llu\n", m->me,
                (unsigned long long)st.colls_done, (unsigned long long)st.msgs_sent,
                (unsigned long long)st.bytes_sent);
    /* pending collectives complete (UNREACH) while the fence engine still exists;
     * m->net is cleared first so nothing reaches into the network being destroyed */
    void *net = m->net;
    if (mn_ended_in_order(ctx))
        m->net_ops->leave(net); /* the others see an orderly end, not a lost node */
    else
        spx_info("server: node %u: a local process ended without PMIx_Finalize; "
                 "the other nodes will see this node as lost", m->me);
    m->net = NULL;
    m->net_ops->destroy(net);
    ctx->mn = NULL;
    free(m->node_lost);
    free(m->lost);
    free(m);
}

uint32_t spx_srv_mn_me(const struct spx_srv_ctx *ctx)
{
    return ctx->mn ? ctx->mn->me : 0;
}

uint32_t spx_srv_mn_nnodes(const struct spx_srv_ctx *ctx)
{
    return ctx->mn ? ctx->mn->nnodes : 1;
}

bool spx_srv_mn_node_is_lost(const struct spx_srv_ctx *ctx, uint32_t node)
{
    struct spx_srv_mn *m = ctx->mn;
    return m && node < m->nnodes && m->node_lost[node];
}

bool spx_srv_mn_node_ended(const struct spx_srv_ctx *ctx, uint32_t node)
{
    struct spx_srv_mn *m = ctx->mn;
    return m && node < m->nnodes && m->node_lost[node] == NODE_LEFT;
}

int spx_srv_mn_send(struct spx_srv_ctx *ctx, uint32_t node, uint8_t channel, const spx_buf_t *b)
{
    struct spx_srv_mn *m = ctx->mn;
    if (!m || !m->net || spx_buf_failed(b) || spx_srv_mn_node_is_lost(ctx, node))
        return -1;
    return m->net_ops->send(m->net, node, channel, b->data, b->len);
}

int spx_srv_mn_bcast(struct spx_srv_ctx *ctx, uint8_t channel, const spx_buf_t *b)
{
    struct spx_srv_mn *m = ctx->mn;
    if (!m || !m->net || spx_buf_failed(b))
        return -1;
    if (m->nnodes < 2)
        return 0;
    return m->net_ops->bcast(m->net, channel, b->data, b->len);
}

/* ---- lost processes ---- */

bool spx_srv_mn_mark_lost(struct spx_srv_ctx *ctx, const pmix_proc_t *proc)
{
    struct spx_srv_mn *m = ctx->mn;
    if (!m)
        return false;
    for (size_t i = 0; i < m->nlost; i++)
        if (spx_proc_eq(&m->lost[i], proc))
            return false;
    if (m->nlost == m->clost) {
        size_t nc = m->clost ? 2 * m->clost : 8;
        pmix_proc_t *np = realloc(m->lost, nc * sizeof(*np));
        if (!np)
            return false;
        m->lost = np;
        m->clost = nc;
    }
    spx_proc_load(&m->lost[m->nlost++], proc->nspace, proc->rank);
    return true;
}

/* Did (nspace, rank)'s node end in order? */
static bool on_left_node(struct spx_srv_ctx *ctx, const pmix_proc_t *p)
{
    struct spx_srv_mn *m = ctx->mn;
    uint32_t node = spx_srv_ns_node_of(spx_srv_ns_find(ctx, p->nspace), p->rank);
    return node < m->nnodes && m->node_lost[node] == NODE_LEFT;
}

pmix_status_t spx_srv_mn_set_gone(struct spx_srv_ctx *ctx, const pmix_proc_t *set, size_t nset,
                                  bool skip_left)
{
    struct spx_srv_mn *m = ctx->mn;
    if (!m)
        return PMIX_SUCCESS;
    uint32_t *nodes;
    size_t n;
    bool node_gone = false;
    if (spx_srv_mn_set_nodes(ctx, set, nset, skip_left, &nodes, &n) == 0) {
        for (size_t i = 0; i < n && !node_gone; i++)
            node_gone = m->node_lost[nodes[i]];
        free(nodes);
    }
    if (node_gone)
        return PMIX_ERR_UNREACH;
    for (size_t i = 0; i < m->nlost; i++)
        if (spx_fence_proc_in_set(&m->lost[i], set, nset) &&
            !(skip_left && on_left_node(ctx, &m->lost[i])))
            return PMIX_ERR_PROC_ABORTED;
    return PMIX_SUCCESS;
}

/* ---- fences ---- */

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The nodes of one whole namespace (ns->nodes, sorted and unique) and this
 * node, in order, without sorting: a fence over the job, at every start. */
static int whole_ns_nodes(struct spx_srv_mn *m, const struct spx_srv_ns *ns, bool skip_left,
                          uint32_t **out, size_t *n)
{
    uint32_t *v = malloc((ns->nnodes + 1) * sizeof(*v));
    if (!v)
        return -1;
    size_t k = 0;
    bool me_in = false;
    for (size_t j = 0; j < ns->nnodes; j++) {
        uint32_t x = ns->nodes[j];
        if (!me_in && m->me <= x) {
            v[k++] = m->me;
            me_in = true;
            if (x == m->me)
                continue;
        }
        if (x < m->nnodes && !(skip_left && m->node_lost[x] == NODE_LEFT))
            v[k++] = x;
    }
    if (!me_in)
        v[k++] = m->me;
    *out = v;
    *n = k;
    return 0;
}

int spx_srv_mn_set_nodes(struct spx_srv_ctx *ctx, const pmix_proc_t *set, size_t nset,
                         bool skip_left, uint32_t **out, size_t *n)
{
    struct spx_srv_mn *m = ctx->mn;
    *out = NULL;
    *n = 0;
    if (!m)
        return -1;
    if (nset == 1 && set[0].rank == PMIX_RANK_WILDCARD) {
        const struct spx_srv_ns *ns = spx_srv_ns_find(ctx, set[0].nspace);
        if (ns && ns->nnodes > 0)
            return whole_ns_nodes(m, ns, skip_left, out, n);
    }
    size_t cap = 1;
    for (size_t i = 0; i < nset; i++) {
        const struct spx_srv_ns *ns = spx_srv_ns_find(ctx, set[i].nspace);
        cap += set[i].rank == PMIX_RANK_WILDCARD ? (ns ? ns->nnodes : 0) : 1;
    }
    uint32_t *v = malloc(cap * sizeof(*v));
    if (!v)
        return -1;
    size_t k = 0;
    v[k++] = m->me;
    for (size_t i = 0; i < nset; i++) {
        const struct spx_srv_ns *ns = spx_srv_ns_find(ctx, set[i].nspace);
        if (set[i].rank == PMIX_RANK_WILDCARD) {
            if (!ns || ns->nnodes == 0)
                goto unknown;
            for (size_t j = 0; j < ns->nnodes; j++)
                v[k++] = ns->nodes[j];
            continue;
        }
        uint32_t node = spx_srv_ns_node_of(ns, set[i].rank);
        if (node == UINT32_MAX) {
            if (spx_srv_proc_is_local(ctx, set[i].nspace, set[i].rank)) {
                v[k++] = m->me;
                continue;
            }
            goto unknown;
        }
        v[k++] = node;
    }
    qsort(v, k, sizeof(*v), u32_cmp);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (v[i] < m->nnodes && (u == 0 || v[u - 1] != v[i]) &&
            !(skip_left && v[i] != m->me && m->node_lost[v[i]] == NODE_LEFT))
            v[u++] = v[i];
    *out = v;
    *n = u;
    return 0;
unknown:
    free(v);
    return -1;
}

struct mn_coll {
    struct spx_srv_ctx *ctx; /* borrowed */
    void *token;             /* fence engine token, NULL for a failed tracker */
    char set_key[64];        /* for log lines (truncated) */
    /* the fence engine that waits for the answer, looked up when it comes
     * (NULL then: the engine is gone and the answer is dropped) */
    struct spx_fence_engine *(*engine_of)(struct spx_srv_ctx *ctx);
};

/* The result as pieces (borrowed for the call; in the frames they arrived
 * in): each goes to the fence engine's deliver in place. */
static void mn_coll_done_segs(pmix_status_t status, const struct iovec *segs, size_t nsegs,
                              void *arg)
{
    struct mn_coll *c = arg;
    size_t len = 0;
    for (size_t i = 0; i < nsegs; i++)
        len += segs[i].iov_len;
    struct spx_srv_ctx *ctx = c->ctx;
    struct spx_srv_mn *m = ctx->mn;
    spx_trace(SPX_TR_T_DONE, 0, m ? m->me : 0, status);
    if (c->token && m && m->net) {
        spx_srv_net_stats_t st;
        m->net_ops->stats(m->net, &st);
        ctx->stats.colls++;
        spx_debug("fence %s over the tree: status %d, received %zu bytes, sent %llu msgs "
                  "%llu bytes, contributed %llu payload bytes, %llu keys, %llu deletions",
                  c->set_key, status, len, (unsigned long long)st.last_coll_msgs_sent,
                  (unsigned long long)st.last_coll_bytes_sent,
                  (unsigned long long)st.last_coll_payload_bytes,
                  (unsigned long long)ctx->stats.last_keys,
                  (unsigned long long)ctx->stats.last_dels);
    }
    struct spx_fence_engine *e = c->token ? c->engine_of(ctx) : NULL;
    if (e)
        spx_fence_host_done_segs(e, c->token, status, segs, nsegs);
    free(c);
}

/* For a network without coll_start_segs: the result in one block (borrowed). */
static void mn_coll_done(pmix_status_t status, const void *data, size_t len, void *arg)
{
    struct iovec v = { .iov_base = (void *)data, .iov_len = data ? len : 0 };
    mn_coll_done_segs(status, &v, v.iov_len ? 1 : 0, arg);
}

static int mn_coll(struct spx_srv_ctx *ctx, struct spx_fence_engine *(*engine_of)(struct spx_srv_ctx *),
                   const char *set_key, const pmix_proc_t *set, size_t nset, bool collect,
                   pmix_status_t status, double timeout, const char *data, size_t ndata,
                   void *token)
{
    struct spx_srv_mn *m = ctx->mn;
    if (!m || !m->net)
        return -1;
    uint32_t *nodes;
    size_t nn;
    /* a fence goes on without the nodes that ended in order (their
     * processes all finalized); a group's collective does not */
    bool fence = engine_of == spx_srv_fence_engine_of;
    if (spx_srv_mn_set_nodes(ctx, set, nset, fence, &nodes, &nn) != 0) {
        spx_error("fence %s: a participant's node is unknown (no node/proc map?)", set_key);
        return -1;
    }
    struct mn_coll *c = calloc(1, sizeof(*c));
    if (!c) {
        free(nodes);
        return -1;
    }
    c->ctx = ctx;
    c->token = token;
    c->engine_of = engine_of;
    snprintf(c->set_key, sizeof(c->set_key), "%s", set_key);
    uint32_t flags = collect ? SPX_SRV_NET_F_COLLECT : 0;
    int rc = m->net_ops->coll_start_segs
                 ? m->net_ops->coll_start_segs(m->net, set_key, nodes, nn, flags, status, data,
                                               ndata, timeout, mn_coll_done_segs, c)
                 : m->net_ops->coll_start(m->net, set_key, nodes, nn, flags, status, data,
                                          ndata, timeout, mn_coll_done, c);
    free(nodes);
    if (rc != 0)
        free(c);
    return rc;
}

pmix_status_t spx_srv_mn_fence(struct spx_srv_ctx *ctx, const char *set_key,
                               const pmix_proc_t *set, size_t nset, bool collect, double timeout,
                               const char *data, size_t ndata, void *token)
{
    if (mn_coll(ctx, spx_srv_fence_engine_of, set_key, set, nset, collect, PMIX_SUCCESS,
                timeout, data, ndata, token) != 0)
        return PMIX_ERR_UNREACH;
    return PMIX_SUCCESS;
}

pmix_status_t spx_srv_mn_coll_for(struct spx_srv_ctx *ctx,
                                  struct spx_fence_engine *(*engine_of)(struct spx_srv_ctx *),
                                  const char *set_key, const pmix_proc_t *set, size_t nset,
                                  bool collect, double timeout, const char *data, size_t ndata,
                                  void *token)
{
    if (mn_coll(ctx, engine_of, set_key, set, nset, collect, PMIX_SUCCESS, timeout, data,
                ndata, token) != 0)
        return PMIX_ERR_UNREACH;
    return PMIX_SUCCESS;
}

int spx_srv_mn_coll_plain(struct spx_srv_ctx *ctx, const char *set_key, const pmix_proc_t *set,
                          size_t nset, uint32_t net_flags, const char *data, size_t ndata,
                          void (*done)(pmix_status_t status, const void *data, size_t len,
                                       void *arg),
                          void *arg)
{
    struct spx_srv_mn *m = ctx->mn;
    if (!m || !m->net)
        return -1;
    uint32_t *nodes;
    size_t nn;
    if (spx_srv_mn_set_nodes(ctx, set, nset, true, &nodes, &nn) != 0)
        return -1;
    int rc = m->net_ops->coll_start(m->net, set_key, nodes, nn, net_flags, PMIX_SUCCESS, data,
                                    ndata, 0, done, arg);
    free(nodes);
    return rc;
}

void spx_srv_mn_fence_failed(struct spx_srv_ctx *ctx, const pmix_proc_t *set, size_t nset,
                             const char *set_key, bool collect, pmix_status_t status,
                             double timeout)
{
    if (mn_coll(ctx, spx_srv_fence_engine_of, set_key, set, nset, collect, status, timeout,
                NULL, 0, NULL) != 0)
        spx_warn("fence %s: could not tell the other nodes it failed (status %d)", set_key,
                 status);
}

/* ---- counters ---- */

static const char *const query_keys[] = {
    SPMIX_QUERY_TREE_MSGS_SENT, SPMIX_QUERY_TREE_BYTES_SENT, SPMIX_QUERY_LAST_COLL_MSGS,
    SPMIX_QUERY_LAST_COLL_BYTES, SPMIX_QUERY_LAST_COLL_PAYLOAD, SPMIX_QUERY_LAST_COLL_KEYS,
    SPMIX_QUERY_LAST_COLL_DELS, NULL};

bool spx_srv_mn_is_query_key(const char *key)
{
    for (size_t i = 0; query_keys[i]; i++)
        if (spx_key_eq(key, query_keys[i]))
            return true;
    return false;
}

bool spx_srv_mn_query(const struct spx_srv_ctx *ctx, const char *key, pmix_info_t *out)
{
    if (!spx_srv_mn_is_query_key(key))
        return false;
    spx_srv_net_stats_t st;
    memset(&st, 0, sizeof(st));
    if (ctx->mn && ctx->mn->net)
        ctx->mn->net_ops->stats(ctx->mn->net, &st);
    uint64_t v;
    if (spx_key_eq(key, SPMIX_QUERY_TREE_MSGS_SENT))
        v = st.msgs_sent;
    else if (spx_key_eq(key, SPMIX_QUERY_TREE_BYTES_SENT))
        v = st.bytes_sent;
    else if (spx_key_eq(key, SPMIX_QUERY_LAST_COLL_MSGS))
        v = st.last_coll_msgs_sent;
    else if (spx_key_eq(key, SPMIX_QUERY_LAST_COLL_BYTES))
        v = st.last_coll_bytes_sent;
    else if (spx_key_eq(key, SPMIX_QUERY_LAST_COLL_PAYLOAD))
        v = ctx->mn ? st.last_coll_payload_bytes : ctx->stats.last_payload;
    else if (spx_key_eq(key, SPMIX_QUERY_LAST_COLL_KEYS))
        v = ctx->stats.last_keys;
    else
        v = ctx->stats.last_dels;
    memset(out, 0, sizeof(*out));
    spx_key_load(out->key, key);
    out->value.type = PMIX_UINT64;
    out->value.data.uint64 = v;
    return true;
}

/* ---- collectives that need a node that is gone ---- */

struct node_of {
    struct spx_srv_ctx *ctx;
    uint32_t node;
};

/* Does set name a process on the node (the nodes' map of the namespaces)?
 * arg: a struct node_of. */
static bool set_on_node(const pmix_proc_t *set, size_t nset, void *arg)
{
    const struct node_of *on = arg;
    uint32_t *nodes;
    size_t n;
    if (spx_srv_mn_set_nodes(on->ctx, set, nset, false, &nodes, &n) != 0)
        return false;
    bool hit = false;
    for (size_t i = 0; i < n && !hit; i++)
        hit = nodes[i] == on->node;
    free(nodes);
    return hit;
}

void spx_srv_mn_fail_node_colls(struct spx_srv_ctx *ctx, struct spx_fence_engine *e,
                                uint32_t node, bool lost)
{
    struct node_of on = {.ctx = ctx, .node = node};
    if (!e)
        return;
    if (lost)
        spx_fence_fail_if(e, set_on_node, &on, PMIX_ERR_UNREACH);
    else
        spx_fence_fail_gathering_if(e, set_on_node, &on, PMIX_ERR_UNREACH);
}
