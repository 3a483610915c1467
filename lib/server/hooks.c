/* hooks.c - the server's context (spx_srv) and the core's view of the
 * engines: server.c puts its list in ctx->engines at init, and the core
 * reaches an engine only through it: life events broadcast to the hooks of
 * every engine, network messages routed by channel, client messages by type
 * (each engine's routes). Nothing here names an engine.
 */
#include "config.h"
#include "server/core.h"

/* The server of this process: defined here, at the bottom with the core's
 * other shared state, so that no file reaches up to server.c for it. Its
 * one global name, spx_srv (core.h), is a pointer for the PMIx_server_*
 * entry points; everything else gets the context from its caller. */
static struct spx_srv_ctx srv_state;
struct spx_srv_ctx *const spx_srv = &srv_state;

void spx_srv_engines_proc_gone(struct spx_srv_ctx *ctx, const pmix_proc_t *proc, bool finalized)
{
    for (size_t i = 0; ctx->engines && ctx->engines[i]; i++)
        if (ctx->engines[i]->proc_gone)
            ctx->engines[i]->proc_gone(ctx, proc, finalized);
}

void spx_srv_engines_nspace_gone(struct spx_srv_ctx *ctx, const char *nspace)
{
    for (size_t i = 0; ctx->engines && ctx->engines[i]; i++)
        if (ctx->engines[i]->nspace_gone)
            ctx->engines[i]->nspace_gone(ctx, nspace);
}

void spx_srv_engines_client_ready(struct spx_srv_ctx *ctx, struct spx_srv_client *cl)
{
    for (size_t i = 0; ctx->engines && ctx->engines[i]; i++)
        if (ctx->engines[i]->client_ready)
            ctx->engines[i]->client_ready(ctx, cl);
}

void spx_srv_engines_client_finalized(struct spx_srv_ctx *ctx, struct spx_srv_client *cl)
{
    for (size_t i = 0; ctx->engines && ctx->engines[i]; i++)
        if (ctx->engines[i]->client_finalized)
            ctx->engines[i]->client_finalized(ctx, cl);
}

void spx_srv_engines_node_gone(struct spx_srv_ctx *ctx, uint32_t node, bool lost)
{
    for (size_t i = 0; ctx->engines && ctx->engines[i]; i++)
        if (ctx->engines[i]->node_gone)
            ctx->engines[i]->node_gone(ctx, node, lost);
}

const struct spx_srv_engine_ops *spx_srv_engine_of_channel(const struct spx_srv_ctx *ctx,
                                                           uint8_t channel)
{
    for (size_t i = 0; channel < 32 && ctx->engines && ctx->engines[i]; i++)
        if (ctx->engines[i]->recv && (ctx->engines[i]->channels & SPX_SRV_CH_BIT(channel)))
            return ctx->engines[i];
    return NULL;
}

const struct spx_srv_route *spx_srv_route_of(const struct spx_srv_ctx *ctx, uint8_t type)
{
    for (size_t i = 0; type && ctx->engines && ctx->engines[i]; i++)
        for (const struct spx_srv_route *r = ctx->engines[i]->routes; r && r->type; r++)
            if (r->type == type)
                return r;
    return NULL;
}
