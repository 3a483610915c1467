/* peer.c - connections of local clients: accept, the HELLO handshake,
 * dispatch of requests, replies, and the request objects that wait for the
 * host's callbacks.
 *
 * Flow: the listener hands an fd whose peer uid passed (allowed uid or root);
 * the first frame must be HELLO. For a client: its (nspace, rank) must be
 * registered and its uid must be the registered one (or root); the host's
 * client_connected2 / client_connected is called and the HELLO reply (status
 * + the namespace's pre-encoded job info) is sent once the host agreed. Every
 * later frame goes to the handler of its type. Anything malformed closes the
 * connection with a log line naming the peer; other peers are unaffected.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_events.h"
#include "server/engine_fence.h"
#include "server/engine_get.h"
#include "server/engine_group.h"
#include "server/engine_pmi.h"
#include "server/iof_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"

/* ---- references and lifetime ---- */

void spx_srv_peer_ref(struct spx_srv_peer *p)
{
    p->refs++;
}

void spx_srv_peer_unref(struct spx_srv_peer *p)
{
    if (--p->refs == 0) {
        free(p->cpus);
        free(p);
    }
}


const char *spx_srv_peer_state_str(enum spx_srv_peer_state s)
{
    switch (s) {
    case SPX_PEER_NEW:
        return "new";
    case SPX_PEER_HANDSHAKE:
        return "handshake";
    case SPX_PEER_READY:
        return "ready";
    case SPX_PEER_CLOSED:
        return "closed";
    }
    return "unknown";
}

/* Every change of a peer's state goes through here. */
static void peer_set_state(struct spx_srv_peer *p, enum spx_srv_peer_state s)
{
    spx_debug("%s: %s -> %s", p->name, spx_srv_peer_state_str(p->state),
              spx_srv_peer_state_str(s));
    p->state = s;
}

static void peer_unlink(struct spx_srv_peer *p)
{
    struct spx_srv_peer *x;
    LIST_FOREACH(x, &p->ctx->peers, link)
        if (x == p) {
            LIST_REMOVE(p, link);
            spx_srv_peer_unref(p); /* the list's reference */
            return;
        }
}

static void peer_on_close(spx_conn_t *c, const char *reason, void *arg)
{
    (void)c;
    struct spx_srv_peer *p = arg;
    p->conn = NULL;
    spx_srv_peer_closed(p, reason);
}

void spx_srv_peer_closed(struct spx_srv_peer *p, const char *reason)
{
    struct spx_srv_ctx *ctx = p->ctx;
    spx_debug("%s: connection closed (%s)", p->name, reason);
    bool was_ready = p->state == SPX_PEER_READY;
    peer_set_state(p, SPX_PEER_CLOSED);
    spx_srv_get_requester_gone(p);
    struct spx_srv_client *cl = p->client;
    if (cl) {
        cl->peer = NULL;
        p->client = NULL;
        if (was_ready) {
            if (!cl->finalized) {
                spx_warn("%s: connection lost before PMIx_Finalize", p->name);
                ctx->local_failure = true;
            }
            spx_srv_get_target_gone(ctx, p->proc.nspace, p->proc.rank);
            if (ctx->mn && !cl->finalized)
                spx_srv_relay_proc_lost(ctx, &p->proc, true);
            else if (!cl->finalized && !ctx->host.publish && ctx->directory)
                ctx->directory->proc_done(ctx, &p->proc, false);
            if (ctx->fence && cl->finalized)
                spx_fence_proc_departed(ctx->fence, &p->proc);
            else if (ctx->fence)
                spx_fence_proc_lost(ctx->fence, &p->proc);
            spx_srv_engines_proc_gone(ctx, &p->proc, cl->finalized);
            if (!cl->finalized)
                spx_srv_shmf_break(cl->ns, PMIX_ERR_PROC_ABORTED, true);
            else
                spx_srv_shmf_retire(cl->ns);
        }
    }
    peer_unlink(p);
}

void spx_srv_peer_close(struct spx_srv_peer *p, const char *reason)
{
    if (p->ops)
        p->ops->close(p, reason);
    else if (p->conn)
        spx_conn_close(p->conn, reason, 1);
}

void spx_srv_close_all(struct spx_srv_ctx *ctx)
{
    struct spx_srv_peer *p;
    while ((p = LIST_FIRST(&ctx->peers))) {
        if (p->conn)
            spx_conn_close_final(p->conn, "server finalizing"); /* the peer sees EOF */
        else if (p->ops)
            p->ops->close(p, "server finalizing");
        if (LIST_FIRST(&ctx->peers) == p) /* not unlinked by on_close (no conn) */
            peer_unlink(p);
    }
}

/* ---- replies ---- */

void spx_srv_reply(struct spx_srv_peer *p, uint8_t type, uint32_t seq, spx_buf_t *payload)
{
    if (p && p->ops) {
        p->ops->reply(p, type, seq, payload);
        return;
    }
    if (!p || !p->conn) {
        if (payload)
            spx_buf_fini(payload);
        return;
    }
    spx_conn_send(p->conn, type, SPX_FRAME_F_REPLY, seq, payload);
}

void spx_srv_reply_status(struct spx_srv_peer *p, uint8_t type, uint32_t seq,
                          pmix_status_t status)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, status);
    spx_srv_reply(p, type, seq, &b);
}

/* ---- requests waiting for the host ---- */

struct spx_srv_req *spx_srv_req_create(struct spx_srv_peer *p, uint8_t type, uint32_t seq)
{
    struct spx_srv_req *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->peer = p;
    if (p)
        spx_srv_peer_ref(p);
    r->type = type;
    r->seq = seq;
    r->done = spx_srv_req_reply_done;
    spx_buf_init(&r->reply);
    return r;
}

void spx_srv_req_free(struct spx_srv_req *r)
{
    if (!r)
        return;
    if (r->relfn)
        r->relfn(r->relarg);
    if (r->owned && r->owned_free)
        r->owned_free(r->owned);
    if (r->peer)
        spx_srv_peer_unref(r->peer);
    spx_info_array_free(r->info, r->ninfo);
    free(r->procs);
    spx_argv_free(r->keys);
    free(r->msg);
    spx_buf_fini(&r->reply);
    free(r);
}

static void req_run_done(void *arg)
{
    struct spx_srv_req *r = arg;
    r->done(r);
}

void spx_srv_req_op_cb(pmix_status_t status, void *cbdata)
{
    struct spx_srv_req *r = cbdata;
    r->status = status;
    if (spx_progress_shift(req_run_done, r) != 0)
        spx_warn("host callback after the server stopped: dropped");
}

void spx_srv_req_finish_now(struct spx_srv_req *r, pmix_status_t status)
{
    r->status = status;
    r->done(r);
}

void spx_srv_req_reply_done(struct spx_srv_req *r)
{
    spx_srv_reply_status(r->peer, r->type, r->seq, r->status);
    spx_srv_req_free(r);
}

/* ---- HELLO ---- */

static void hello_done(struct spx_srv_req *r)
{
    struct spx_srv_peer *p = r->peer;
    struct spx_srv_client *cl = p->client;
    if (p->state != SPX_PEER_HANDSHAKE || !p->conn) {
        spx_srv_req_free(r);
        return;
    }
    if (r->status != PMIX_SUCCESS || !cl) {
        spx_warn("%s: refused by the host (status %d)", p->name, r->status);
        if (cl)
            cl->peer = NULL;
        p->client = NULL;
        spx_srv_reply_status(p, SPX_MSG_HELLO, r->seq,
                             r->status != PMIX_SUCCESS ? r->status : PMIX_ERR_NOT_FOUND);
        spx_srv_peer_close(p, "handshake refused");
        spx_srv_req_free(r);
        return;
    }
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, PMIX_SUCCESS);
    spx_srv_hello_push(&b, cl->ns, cl->rank);
    peer_set_state(p, SPX_PEER_READY);
    cl->connected_once = true;
    cl->pid = p->pid > 0 ? p->pid : 0; /* the socket's credentials, not what HELLO says */
    spx_srv_reply(p, SPX_MSG_HELLO, r->seq, &b);
    /* its cpuset and locality, for the peers that ask (and have waited) */
    if (p->cpus)
        spx_srv_topo_client_cpus(cl->ns, cl->rank, p->cpus);
    spx_srv_engines_client_ready(p->ctx, cl);
    spx_debug("%s: connected", p->name);
    spx_srv_req_free(r);
}

/* Refuses a HELLO: error reply, then close with a log line. */
static void hello_refuse(struct spx_srv_peer *p, uint32_t seq, pmix_status_t st,
                         const char *why)
{
    spx_warn("%s: handshake refused: %s", p->name, why);
    spx_srv_reply_status(p, SPX_MSG_HELLO, seq, st);
    spx_srv_peer_close(p, why);
}

/* A tool's HELLO: accepted when the host asked for tools and the tool runs
 * as the job's user or root; it gets the identity it asked for, or
 * "<server nspace>.tool.<n>" rank 0. */
static int tool_hello(struct spx_srv_peer *p, uint32_t seq, const char *nspace, pmix_rank_t rank)
{
    struct spx_srv_ctx *ctx = p->ctx;
    if (!ctx->tool_support) {
        hello_refuse(p, seq, PMIX_ERR_NOT_SUPPORTED,
                     "this server does not accept tools (no PMIX_SERVER_TOOL_SUPPORT)");
        return 0;
    }
    if (p->uid != 0 && p->uid != ctx->uid) {
        hello_refuse(p, seq, PMIX_ERR_NO_PERMISSIONS, "a tool of another user");
        return 0;
    }
    if (!nspace[0] || rank >= PMIX_RANK_VALID) {
        int n = snprintf(p->proc.nspace, sizeof(p->proc.nspace), "%s.tool.%u", ctx->me.nspace,
                         (unsigned)ctx->tools_seen);
        if (n < 0 || (size_t)n >= sizeof(p->proc.nspace)) /* a long server nspace */
            snprintf(p->proc.nspace, sizeof(p->proc.nspace), "spmix-tool.%ld.%u",
                     (long)getpid(), (unsigned)ctx->tools_seen);
        p->proc.rank = 0;
    }
    ctx->tools_seen++;
    snprintf(p->name, sizeof(p->name), "tool %s:%u (pid %ld uid %ld)", p->proc.nspace,
             (unsigned)p->proc.rank, (long)p->pid, (long)p->uid);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_i32(&b, PMIX_SUCCESS);
    spx_buf_push_str(&b, p->proc.nspace);
    spx_buf_push_u32(&b, p->proc.rank);
    spx_buf_push_str(&b, ctx->me.nspace);
    spx_buf_push_u32(&b, ctx->me.rank);
    if (spx_buf_failed(&b)) {
        spx_buf_fini(&b);
        hello_refuse(p, seq, PMIX_ERR_NOMEM, "out of memory");
        return 0;
    }
    p->tool = true;
    peer_set_state(p, SPX_PEER_READY);
    spx_srv_reply(p, SPX_MSG_HELLO, seq, &b);
    spx_info("%s: connected", p->name);
    return 0;
}

static int handle_hello(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    uint32_t version = spx_buf_pull_u32(b);
    uint8_t kind = spx_buf_pull_u8(b);
    char nspace[PMIX_MAX_NSLEN + 1];
    spx_buf_pull_str_into(b, nspace, sizeof(nspace));
    pmix_rank_t rank = spx_buf_pull_u32(b);
    uint32_t pid = spx_buf_pull_u32(b);
    char *cpus = spx_buf_remaining(b) > 0 ? spx_buf_pull_str(b) : NULL;
    if (spx_buf_finish(b) != 0 || (cpus && strlen(cpus) > SPX_HELLO_MAX_CPULIST)) {
        free(cpus);
        return -1;
    }
    free(p->cpus);
    p->cpus = cpus;
    (void)pid;
    spx_proc_load(&p->proc, nspace, rank);
    snprintf(p->name, sizeof(p->name), "%s %s:%u (pid %ld uid %ld)", spx_peer_kind_str(kind),
             nspace, (unsigned)rank, (long)p->pid, (long)p->uid);
    if (version != SPX_PROTO_VERSION) {
        hello_refuse(p, seq, PMIX_ERR_NOT_SUPPORTED, "protocol version mismatch");
        return 0;
    }
    if (kind == SPX_PEER_TOOL)
        return tool_hello(p, seq, nspace, rank);
    if (kind != SPX_PEER_CLIENT)
        return -1;
    if (p->pid == -1) { /* came in on the tree port (nodes.c): tools only */
        hello_refuse(p, seq, PMIX_ERR_NO_PERMISSIONS, "a remote connection may only be a tool");
        return 0;
    }
    struct spx_srv_client *cl = spx_srv_client_find(p->ctx, nspace, rank);
    if (!cl) {
        hello_refuse(p, seq, PMIX_ERR_NOT_FOUND, "not a registered client");
        return 0;
    }
    if (p->uid != 0 && p->uid != cl->uid) {
        hello_refuse(p, seq, PMIX_ERR_NO_PERMISSIONS, "uid differs from the registered one");
        return 0;
    }
    if (cl->peer) {
        hello_refuse(p, seq, PMIX_ERR_DUPLICATE_KEY, "client already connected");
        return 0;
    }
    struct spx_srv_req *r = spx_srv_req_create(p, SPX_MSG_HELLO, seq);
    if (!r) {
        hello_refuse(p, seq, PMIX_ERR_NOMEM, "out of memory");
        return 0;
    }
    p->client = cl;
    cl->peer = p;
    cl->finalized = false;
    peer_set_state(p, SPX_PEER_HANDSHAKE);
    r->done = hello_done;
    pmix_status_t rc = PMIX_OPERATION_SUCCEEDED;
    const pmix_server_module_t *host = &p->ctx->host;
    if (host->client_connected2)
        rc = host->client_connected2(&p->proc, cl->server_object, NULL, 0, spx_srv_req_op_cb, r);
    else if (host->client_connected)
        rc = host->client_connected(&p->proc, cl->server_object, spx_srv_req_op_cb, r);
    if (rc != PMIX_SUCCESS)
        spx_srv_req_finish_now(r, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
    return 0;
}

/* ---- dispatch ---- */

bool spx_srv_tool_may_see(const struct spx_srv_peer *p, const char *nspace)
{
    if (p->uid == 0)
        return true;
    const struct spx_srv_ns *ns = spx_srv_ns_find(p->ctx, nspace);
    const struct spx_srv_client *cl;
    if (ns)
        SLIST_FOREACH(cl, &ns->clients, link)
            if (cl->uid != p->uid)
                return false;
    return true;
}

/* A tool's GET: of a namespace it may see (spx_srv_tool_may_see), then as
 * a client's (the tool is a member of no namespace: it sees what a process
 * of another job on this node would). */
/* A tool's GET of a job of another user is refused here, before any engine
 * sees it: 1 when answered (refused), 0 to go on, -1 for a malformed one. */
static int tool_get_refused(struct spx_srv_peer *p, uint32_t seq, const spx_buf_t *b)
{
    spx_buf_t peek;
    pmix_proc_t target;
    spx_buf_init_borrowed(&peek, b->data + b->pos, spx_buf_remaining(b));
    if (spx_codec_pull_proc(&peek, &target) != 0)
        return -1;
    target.nspace[PMIX_MAX_NSLEN] = '\0';
    if (spx_srv_tool_may_see(p, target.nspace))
        return 0;
    spx_info("%s: GET of %s refused: a job of another user", p->name, target.nspace);
    spx_srv_reply_status(p, SPX_MSG_GET, seq, PMIX_ERR_NO_PERMISSIONS);
    return 1;
}

/* A tool's request that tools may not make (yet): answered
 * PMIX_ERR_NOT_SUPPORTED; a frame that has no reply (COMMIT, FENCE_LOCAL, an
 * unknown type) closes the connection with *why set. Returns 0. */
static int tool_refuse(struct spx_srv_peer *p, uint8_t type, uint32_t seq, const char **why)
{
    if (type == SPX_MSG_COMMIT || type == SPX_MSG_FENCE_LOCAL || type == SPX_MSG_EVENT ||
        type == SPX_MSG_IOF_DATA || type == SPX_MSG_GROUP_LOCAL ||
        type == 0 || type >= SPX_MSG_TYPE_MAX) {
        *why = "a request tools may not send";
        return 0;
    }
    spx_info("%s: %s refused: not supported for tools", p->name, spx_msg_type_str(type));
    spx_srv_reply_status(p, type, seq, PMIX_ERR_NOT_SUPPORTED);
    return 0;
}

int spx_srv_request(struct spx_srv_peer *p, uint8_t type, uint32_t seq, spx_buf_t *payload)
{
    const struct spx_srv_route *rt = spx_srv_route_of(p->ctx, type);
    if (rt)
        return rt->handle(p, seq, payload);
    return spx_srv_upcall_handles(type) ? spx_srv_handle_upcall(p, type, seq, payload) : -1;
}

/* A request of a ready peer: to the engine whose routes list its type
 * (hooks.c), else to the host's upcalls; what tools may not send is refused.
 * 0, or -1 for a malformed payload; *why set when the connection must close. */
static int peer_route(struct spx_srv_peer *p, const spx_frame_hdr_t *h, spx_buf_t *payload,
                      const char **why)
{
    const struct spx_srv_route *rt = spx_srv_route_of(p->ctx, h->type);
    bool upcall = !rt && spx_srv_upcall_handles(h->type);
    if (!rt && !upcall) {
        *why = "unknown message type";
        return 0;
    }
    if (p->tool && !(rt ? rt->tools : spx_srv_upcall_for_tools(h->type)))
        return tool_refuse(p, h->type, h->seq, why);
    if (p->tool && h->type == SPX_MSG_GET) {
        int refused = tool_get_refused(p, h->seq, payload);
        if (refused != 0)
            return refused < 0 ? -1 : 0;
    }
    return rt ? rt->handle(p, h->seq, payload) : spx_srv_handle_upcall(p, h->type, h->seq, payload);
}

static void peer_on_frame(spx_conn_t *c, const spx_frame_hdr_t *h, spx_buf_t *payload, void *arg)
{
    struct spx_srv_peer *p = arg;
    const char *why = NULL;
    int rc = 0;
    spx_srv_peer_ref(p); /* a handler may close the connection: keep p alive */
    if (h->flags & SPX_FRAME_F_REPLY)
        why = "unexpected reply frame";
    else if (p->state == SPX_PEER_NEW && h->type != SPX_MSG_HELLO)
        why = "request before HELLO";
    else if (p->state == SPX_PEER_NEW)
        rc = handle_hello(p, h->seq, payload);
    else if (p->state != SPX_PEER_READY || h->type == SPX_MSG_HELLO)
        why = "request during the handshake or a second HELLO";
    else
        rc = peer_route(p, h, payload, &why);
    if (!why && rc != 0)
        why = "malformed payload";
    if (why && p->conn == c) {
        char reason[PMIX_MAX_NSLEN + 200];
        snprintf(reason, sizeof(reason), "%s from %s (message type %u %s)", why, p->name,
                 (unsigned)h->type, spx_msg_type_str(h->type));
        spx_conn_close(c, reason, 1);
    }
    spx_srv_peer_unref(p);
}

void spx_srv_accept(int fd, uid_t uid, gid_t gid, pid_t pid, void *arg)
{
    struct spx_srv_ctx *ctx = arg;
    struct spx_srv_peer *p = calloc(1, sizeof(*p));
    char label[64];
    snprintf(label, sizeof(label), "pid %ld uid %ld", (long)pid, (long)uid);
    if (!p) {
        close(fd);
        return;
    }
    p->ctx = ctx;
    p->uid = uid;
    p->gid = gid;
    p->pid = pid;
    p->state = SPX_PEER_NEW;
    p->refs = 1; /* the list's */
    snprintf(p->name, sizeof(p->name), "peer %s", label);
    p->conn = spx_conn_create(spx_progress_base(), fd, label, peer_on_frame, peer_on_close, p);
    if (!p->conn) {
        free(p);
        return;
    }
    LIST_INSERT_HEAD(&ctx->peers, p, link);
}
