/* tree_net.c - the server's network (net.h) made of the tree engine
 * (tree/tree.h). The only file of lib/server that includes a tree/ header:
 * every op forwards to the engine, the engine's callbacks go straight to the
 * server's upcalls (same signatures), so nothing is copied here.
 */
#include "config.h"
#include "server/net.h"

#include <stdlib.h>

#include "tree/tree.h"
#include "util/log.h"

struct tree_net {
    spx_tree_t *tree;           /* owned */
    spx_tree_ops_t ops;         /* the server's upcalls; must outlive the tree */
};

static int tn_send(void *net, uint32_t node, uint8_t channel, const void *data, size_t len)
{
    return spx_tree_send(((struct tree_net *)net)->tree, node, channel, data, len);
}

static int tn_bcast(void *net, uint8_t channel, const void *data, size_t len)
{
    return spx_tree_bcast(((struct tree_net *)net)->tree, channel, data, len);
}

static int tn_coll_start(void *net, const char *set_id, const uint32_t *nodes, size_t nnodes,
                         uint32_t flags, pmix_status_t status, const void *data, size_t len,
                         double timeout, spx_srv_net_coll_f done, void *arg)
{
    uint32_t tf = ((flags & SPX_SRV_NET_F_COLLECT) ? SPX_TREE_F_COLLECT : 0) |
                  ((flags & SPX_SRV_NET_F_ANY) ? SPX_TREE_F_ANY : 0);
    return spx_tree_coll_start(((struct tree_net *)net)->tree, set_id, nodes, nnodes, tf, status,
                               data, len, timeout, done, arg);
}

static int tn_coll_start_segs(void *net, const char *set_id, const uint32_t *nodes,
                              size_t nnodes, uint32_t flags, pmix_status_t status,
                              const void *data, size_t len, double timeout,
                              spx_srv_net_coll_segs_f done, void *arg)
{
    uint32_t tf = ((flags & SPX_SRV_NET_F_COLLECT) ? SPX_TREE_F_COLLECT : 0) |
                  ((flags & SPX_SRV_NET_F_ANY) ? SPX_TREE_F_ANY : 0);
    return spx_tree_coll_start_segs(((struct tree_net *)net)->tree, set_id, nodes, nnodes, tf,
                                    status, data, len, timeout, done, arg);
}

static void tn_stats(void *net, spx_srv_net_stats_t *out)
{
    spx_tree_stats_t st = {0};
    spx_tree_get_stats(((struct tree_net *)net)->tree, &st);
    *out = (spx_srv_net_stats_t){.colls_done = st.colls_done,
                                 .msgs_sent = st.msgs_sent,
                                 .bytes_sent = st.bytes_sent,
                                 .last_coll_msgs_sent = st.last_coll_msgs_sent,
                                 .last_coll_bytes_sent = st.last_coll_bytes_sent,
                                 .last_coll_payload_bytes = st.last_coll_payload_bytes};
}

static int tn_leave(void *net)
{
    return spx_tree_leave(((struct tree_net *)net)->tree);
}

static void tn_destroy(void *net)
{
    struct tree_net *tn = net;
    spx_tree_destroy(tn->tree);
    free(tn);
}

static const spx_srv_net_ops_t tree_net_ops = {
    .send = tn_send,
    .bcast = tn_bcast,
    .coll_start = tn_coll_start,
    .coll_start_segs = tn_coll_start_segs,
    .stats = tn_stats,
    .leave = tn_leave,
    .destroy = tn_destroy,
};

void *spx_srv_tree_net_create(struct event_base *base, const spx_srv_net_cfg_t *cfg,
                              const spx_srv_net_up_t *up, void *up_arg,
                              const spx_srv_net_ops_t **ops)
{
    struct tree_net *tn = calloc(1, sizeof(*tn));
    if (!tn)
        return NULL;
    tn->ops = (spx_tree_ops_t){.recv = up->recv, .node_lost = up->node_lost,
                               .node_left = up->node_left, .tool_accept = up->tool_accept};
    spx_tree_config_t tc = {.node_index = cfg->node_index,
                            .nnodes = cfg->nnodes,
                            .width = cfg->width,
                            .addrs = cfg->addrs,
                            .auth = cfg->auth,
                            .secret = cfg->secret,
                            .secret_len = cfg->secret_len,
                            .auth_uids = cfg->auth_uids,
                            .auth_nuids = cfg->auth_nuids,
                            .auth_id = cfg->auth_id,
                            .connect_timeout = cfg->connect_timeout};
    if (!(tn->tree = spx_tree_create(base, &tc, &tn->ops, up_arg))) {
        free(tn);
        return NULL;
    }
    if (spx_tree_start(tn->tree) != 0) {
        spx_error("server: the tree engine of node %u did not start", cfg->node_index);
        spx_tree_destroy(tn->tree);
        free(tn);
        return NULL;
    }
    *ops = &tree_net_ops;
    return tn;
}
