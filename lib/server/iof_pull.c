/* iof_pull.c - output of processes for the tools and clients that pull it
 * (PMIx_IOF_pull): the IOF_PULL registrations of this server's peers, and
 * PMIx_server_IOF_deliver, through which the host hands the server what a
 * process wrote on its stdout, stderr or stddiag.
 *
 * Flow: a peer's IOF_PULL ADD (proto/msg.h) names a handler id of its own,
 * channels and sources (ranks, or WILDCARD of a namespace); it is kept here
 * with a reference on the peer and answered at once. The host's
 * PMIx_server_IOF_deliver (any thread) shifts the bytes onto the progress
 * thread, borrowed until its callback; there every registration whose
 * channels and sources match gets them as IOF_DATA frames (at most
 * SPX_IOF_MAX_CHUNK bytes each) written straight from the host's buffer
 * when the socket takes them (spx_conn_sendv copies only what waits). Then
 * the host's callback runs: the bytes are no longer needed.
 *
 * Other nodes (multi-node mode): a pull is also sent to every other node
 * (channel IOF_SUB: u8 op ADD, u64 key, u16 channels, proc[] sources; each
 * node answers op ACK with the key), and the puller's reply waits for those
 * answers, so output written after the reply reaches it from every node.
 * A node keeps the pulls of other nodes and sends them the matching output
 * it is given (channel IOF_OUT: u64 key, proc source, u16 channel, u8 flags,
 * u32 n, n bytes), which the pull's node passes on to its puller as its own.
 * When a pull ends (deregistered, or its puller gone) the other nodes hear
 * op REMOVE; output still on its way is dropped at the pull's node (no pull
 * of that key any more), so nothing reaches a puller after its REMOVE was
 * answered. A node that goes away takes its pulls with it, and a reply that
 * waits for it stops waiting.
 *
 * A puller that does not read is never allowed to hold the job: once more
 * than PULL_MAX_LAG bytes of its frames wait in its connection, further
 * output for it is dropped (counted, logged once) until it catches up. A
 * puller that went away (its connection closed) is dropped at the next
 * delivery. While nothing is registered, PMIx_server_IOF_deliver answers
 * PMIX_OPERATION_SUCCEEDED at once, without a thread hop: a host may hand
 * every byte to the server for free while no tool looks.
 * The registry belongs to the IOF engine (iof.c creates and destroys it).
 */
#include "config.h"
#include "server/iof_int.h"
#include "server/server.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/uio.h>
#include <time.h>

#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"

#define PULL_MAX_LAG (64u << 20) /* bytes of a puller's frames that may wait */
#define OUT_CHANNELS (PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL | PMIX_FWD_STDDIAG_CHANNEL)

struct pull {
    LIST_ENTRY(pull) link;      /* in spx_srv_pulls.list */
    struct spx_srv_peer *peer;  /* referenced */
    uint32_t id;                /* the peer's handler id */
    uint64_t key;               /* names it to the other nodes */
    uint32_t seq;               /* the ADD to answer once the other nodes did */
    uint8_t *waiting;           /* [node]: its ACK is awaited (owned; NULL: answered) */
    size_t nwaiting;
    uint16_t channels;
    pmix_proc_t *sources;       /* owned */
    size_t nsources;
    uint64_t queued;            /* bytes of frames handed to the connection */
    uint64_t out_base;          /* the connection's bytes out when registered */
    uint64_t dropped;           /* bytes not sent (lag) */
};

/* A pull of another node's puller. */
struct rsub {
    LIST_ENTRY(rsub) link;      /* in spx_srv_pulls.remote */
    uint32_t origin;            /* the puller's node */
    uint64_t key;
    uint16_t channels;
    pmix_proc_t *sources;       /* owned */
    size_t nsources;
};

struct spx_srv_pulls {
    LIST_HEAD(, pull) list;
    LIST_HEAD(, rsub) remote;
    uint64_t next_key;
};

enum { SUB_ADD = 1, SUB_REMOVE = 2, SUB_ACK = 3 };

/* Registrations of this process's server; read on any thread (deliver). */
static unsigned npulls;

static void sub_send(struct spx_srv_ctx *ctx, int node, uint8_t op, uint64_t key,
                     uint16_t channels, const pmix_proc_t *src, size_t nsrc)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, op);
    spx_buf_push_u64(&b, key);
    spx_buf_push_u16(&b, channels);
    spx_codec_push_proc_array(&b, src, nsrc);
    int rc = node < 0 ? spx_srv_mn_bcast(ctx, SPX_SRV_CH_IOF_SUB, &b)
                      : spx_srv_mn_send(ctx, (uint32_t)node, SPX_SRV_CH_IOF_SUB, &b);
    if (rc != 0 && ctx->active)
        spx_warn("IOF: cannot tell the other nodes about pull %llu", (unsigned long long)key);
    spx_buf_fini(&b);
}

/* tell: the other nodes forget it too (not at teardown). */
static void pull_free(struct pull *pu, bool tell)
{
    if (tell && pu->peer->ctx->mn)
        sub_send(pu->peer->ctx, -1, SUB_REMOVE, pu->key, 0, NULL, 0);
    free(pu->waiting);
    LIST_REMOVE(pu, link);
    __atomic_sub_fetch(&npulls, 1, __ATOMIC_RELEASE);
    if (pu->dropped)
        spx_warn("%s: IOF pull %u: %llu bytes of output dropped (it read too slowly)",
                 pu->peer->name, (unsigned)pu->id, (unsigned long long)pu->dropped);
    spx_srv_peer_unref(pu->peer);
    free(pu->sources);
    free(pu);
}

static void rsub_free(struct rsub *rs)
{
    LIST_REMOVE(rs, link);
    __atomic_sub_fetch(&npulls, 1, __ATOMIC_RELEASE);
    free(rs->sources);
    free(rs);
}

struct spx_srv_pulls *spx_srv_pulls_create(void)
{
    struct spx_srv_pulls *pl = calloc(1, sizeof(*pl));
    if (pl) {
        LIST_INIT(&pl->list);
        LIST_INIT(&pl->remote);
    }
    return pl;
}

void spx_srv_pulls_destroy(struct spx_srv_pulls *pl)
{
    if (!pl)
        return;
    while (!LIST_EMPTY(&pl->list))
        pull_free(LIST_FIRST(&pl->list), false);
    while (!LIST_EMPTY(&pl->remote))
        rsub_free(LIST_FIRST(&pl->remote));
    free(pl);
}

static struct pull *pull_find(struct spx_srv_pulls *pl, const struct spx_srv_peer *p, uint32_t id)
{
    struct pull *pu;
    LIST_FOREACH(pu, &pl->list, link)
        if (pu->peer == p && pu->id == id)
            return pu;
    return NULL;
}

/* ---- IOF_PULL ---- */

/* Sends pu to the other nodes (none: false, answer now); true when its
 * reply waits for their ACKs. */
static bool pull_tell_nodes(struct spx_srv_ctx *ctx, struct pull *pu)
{
    uint32_t nn = spx_srv_mn_nnodes(ctx), me = spx_srv_mn_me(ctx);
    if (!ctx->mn || nn < 2 || !(pu->waiting = calloc(nn, 1)))
        return false;
    for (uint32_t k = 0; k < nn; k++)
        if (k != me && !spx_srv_mn_node_is_lost(ctx, k)) {
            pu->waiting[k] = 1;
            pu->nwaiting++;
        }
    if (pu->nwaiting == 0) {
        free(pu->waiting);
        pu->waiting = NULL;
        return false;
    }
    sub_send(ctx, -1, SUB_ADD, pu->key, pu->channels, pu->sources, pu->nsources);
    return true;
}

/* Node answered (or is gone): pu's reply goes once nobody is awaited. */
static void pull_node_done(struct pull *pu, uint32_t node)
{
    if (!pu->waiting || node >= spx_srv_mn_nnodes(pu->peer->ctx) || !pu->waiting[node])
        return;
    pu->waiting[node] = 0;
    if (--pu->nwaiting > 0)
        return;
    free(pu->waiting);
    pu->waiting = NULL;
    spx_srv_reply_status(pu->peer, SPX_MSG_IOF_PULL, pu->seq, PMIX_SUCCESS);
}

int spx_srv_handle_iof_pull(struct spx_srv_peer *p, uint32_t seq, spx_buf_t *b)
{
    uint8_t op = spx_buf_pull_u8(b);
    uint32_t id = spx_buf_pull_u32(b);
    uint16_t channels = spx_buf_pull_u16(b);
    pmix_proc_t *src = NULL;
    size_t nsrc = 0;
    if (spx_buf_failed(b) || spx_codec_pull_proc_array(b, &src, &nsrc) != 0)
        return -1;
    bool add = op == SPX_IOF_PULL_ADD;
    if (spx_buf_finish(b) != 0 || (op != SPX_IOF_PULL_ADD && op != SPX_IOF_PULL_REMOVE) ||
        (add && (nsrc == 0 || nsrc > SPX_IOF_MAX_SOURCES || channels == 0 ||
                 (channels & ~OUT_CHANNELS) != 0)) ||
        (!add && (nsrc != 0 || channels != 0))) {
        free(src);
        return -1;
    }
    struct spx_srv_pulls *pl = p->ctx->iof_pulls;
    struct pull *pu = pl ? pull_find(pl, p, id) : NULL;
    pmix_status_t rc = PMIX_SUCCESS;
    if (!pl)
        rc = PMIX_ERR_NOT_AVAILABLE;
    else if (!add && !pu)
        rc = PMIX_ERR_NOT_FOUND;
    else if (!add)
        pull_free(pu, true);
    else if (pu)
        rc = PMIX_ERR_DUPLICATE_KEY;
    else if (!(pu = calloc(1, sizeof(*pu))))
        rc = PMIX_ERR_NOMEM;
    else {
        pu->peer = p;
        spx_srv_peer_ref(p);
        pu->id = id;
        pu->channels = channels;
        pu->sources = src;
        pu->nsources = nsrc;
        src = NULL;
        if (p->conn)
            spx_conn_counters(p->conn, &pu->out_base, NULL, NULL, NULL);
        pu->key = ++pl->next_key;
        pu->seq = seq;
        LIST_INSERT_HEAD(&pl->list, pu, link);
        __atomic_add_fetch(&npulls, 1, __ATOMIC_RELEASE);
        spx_debug("%s: IOF pull %u of %zu source(s), channels 0x%x", p->name, (unsigned)id,
                  nsrc, (unsigned)channels);
        if (pull_tell_nodes(p->ctx, pu))
            return 0; /* answered once the other nodes have it */
    }
    free(src);
    spx_srv_reply_status(p, SPX_MSG_IOF_PULL, seq, rc);
    return 0;
}

/* ---- delivery ---- */

static bool pull_wants(const struct pull *pu, const pmix_proc_t *src, uint16_t channel)
{
    if (!(pu->channels & channel))
        return false;
    for (size_t i = 0; i < pu->nsources; i++)
        if (spx_nspace_eq(pu->sources[i].nspace, src->nspace) &&
            (pu->sources[i].rank == PMIX_RANK_WILDCARD || pu->sources[i].rank == src->rank))
            return true;
    return false;
}

/* Frames of n bytes (n == 0 with eof: one empty frame) to pu's peer. */
static void pull_send(struct pull *pu, const pmix_proc_t *src, uint16_t channel,
                      const char *bytes, size_t n, bool eof)
{
    uint64_t out = 0;
    spx_conn_counters(pu->peer->conn, &out, NULL, NULL, NULL);
    uint64_t gone = out - pu->out_base; /* replies included: the lag is never overstated */
    uint64_t lag = pu->queued > gone ? pu->queued - gone : 0;
    if (lag > PULL_MAX_LAG && n > 0) {
        if (pu->dropped == 0)
            spx_warn("%s: IOF pull %u reads too slowly: its output is dropped while "
                     "%u MiB wait", pu->peer->name, (unsigned)pu->id, PULL_MAX_LAG >> 20);
        pu->dropped += n;
        return;
    }
    size_t off = 0;
    do {
        size_t k = n - off > SPX_IOF_MAX_CHUNK ? SPX_IOF_MAX_CHUNK : n - off;
        bool last = off + k == n;
        spx_buf_t h;
        spx_buf_init(&h);
        spx_buf_push_u32(&h, pu->id);
        spx_codec_push_proc(&h, src);
        spx_buf_push_u16(&h, channel);
        spx_buf_push_u8(&h, last && eof ? SPX_IOF_F_EOF : 0);
        spx_buf_push_u32(&h, (uint32_t)k);
        struct iovec iov[2] = {{.iov_base = h.data, .iov_len = h.len},
                               {.iov_base = (void *)(bytes ? bytes + off : ""), .iov_len = k}};
        if (!spx_buf_failed(&h) &&
            spx_conn_sendv(pu->peer->conn, SPX_MSG_IOF_DATA, 0, 0, iov, 2) == 0)
            pu->queued += h.len + k + sizeof(spx_frame_hdr_t);
        spx_buf_fini(&h);
        off += k;
    } while (off < n);
}

/* Output for another node's pull, in pieces of at most SPX_IOF_MAX_CHUNK. */
static void out_send(struct spx_srv_ctx *ctx, const struct rsub *rs, const pmix_proc_t *src,
                     uint16_t channel, const char *bytes, size_t n, bool eof)
{
    size_t off = 0;
    do {
        size_t k = n - off > SPX_IOF_MAX_CHUNK ? SPX_IOF_MAX_CHUNK : n - off;
        bool last = off + k == n;
        spx_buf_t b;
        spx_buf_init(&b);
        spx_buf_push_u64(&b, rs->key);
        spx_codec_push_proc(&b, src);
        spx_buf_push_u16(&b, channel);
        spx_buf_push_u8(&b, last && eof ? SPX_IOF_F_EOF : 0);
        spx_buf_push_bytes(&b, bytes ? bytes + off : "", k);
        if (spx_buf_failed(&b) || spx_srv_mn_send(ctx, rs->origin, SPX_SRV_CH_IOF_OUT, &b) != 0)
            spx_debug("IOF: output for node %u's pull %llu lost", rs->origin,
                      (unsigned long long)rs->key);
        spx_buf_fini(&b);
        off += k;
    } while (off < n);
}

static void deliver_now(struct spx_srv_ctx *ctx, const pmix_proc_t *src, uint16_t channel,
                        const char *bytes, size_t n, bool eof)
{
    struct spx_srv_pulls *pl = ctx->iof_pulls;
    if (!pl)
        return;
    struct pull *pu, *next;
    for (pu = LIST_FIRST(&pl->list); pu; pu = next) {
        next = LIST_NEXT(pu, link);
        if (!pu->peer->conn || pu->peer->state == SPX_PEER_CLOSED) {
            spx_debug("%s: IOF pull %u dropped: the puller is gone", pu->peer->name,
                      (unsigned)pu->id);
            pull_free(pu, true); /* the puller went away */
            continue;
        }
        if (pull_wants(pu, src, channel))
            pull_send(pu, src, channel, bytes, n, eof);
    }
    struct rsub *rs;
    LIST_FOREACH(rs, &pl->remote, link) {
        struct pull probe = {.channels = rs->channels, .sources = rs->sources,
                             .nsources = rs->nsources};
        if (pull_wants(&probe, src, channel))
            out_send(ctx, rs, src, channel, bytes, n, eof);
    }
}

/* A delivery shifted onto the progress thread. */
struct deliver {
    pmix_proc_t source;
    uint16_t channel;
    const char *bytes;          /* borrowed from the host until cb (or owned: copy) */
    size_t size;
    bool eof;
    char *copy;                 /* owned: the host gave no callback */
    pmix_op_cbfunc_t cb;
    void *cbdata;
};

static void deliver_on_thread(void *arg)
{
    struct deliver *d = arg;
    if (spx_server_active())
        deliver_now(spx_srv, &d->source, d->channel, d->bytes, d->size, d->eof);
    if (d->cb)
        d->cb(PMIX_SUCCESS, d->cbdata);
    free(d->copy);
    free(d);
}

SPX_EXPORT pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source,
                                                 pmix_iof_channel_t channel,
                                                 const pmix_byte_object_t *bo,
                                                 const pmix_info_t info[], size_t ninfo,
                                                 pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_server_active())
        return PMIX_ERR_INIT;
    if (!source || !bo || (bo->size && !bo->bytes) || (ninfo && !info))
        return PMIX_ERR_BAD_PARAM;
    /* one output channel a delivery (stdin is not output) */
    if ((channel & ~OUT_CHANNELS) != 0 || channel == 0 || (channel & (channel - 1)) != 0)
        return PMIX_ERR_BAD_PARAM;
    bool eof = spx_info_flag(info, ninfo, PMIX_IOF_COMPLETE);
    if (__atomic_load_n(&npulls, __ATOMIC_ACQUIRE) == 0 || (bo->size == 0 && !eof))
        return PMIX_OPERATION_SUCCEEDED; /* nobody pulls: nothing to do */
    struct deliver *d = calloc(1, sizeof(*d));
    if (!d)
        return PMIX_ERR_NOMEM;
    d->source = *source;
    d->channel = (uint16_t)channel;
    d->size = bo->size;
    d->eof = eof;
    d->cb = cbfunc;
    d->cbdata = cbdata;
    d->bytes = bo->bytes;
    if (!cbfunc && bo->size) { /* no callback: the bytes are the caller's once we return */
        if (!(d->copy = malloc(bo->size))) {
            free(d);
            return PMIX_ERR_NOMEM;
        }
        memcpy(d->copy, bo->bytes, bo->size);
        d->bytes = d->copy;
    }
    if (spx_progress_shift(deliver_on_thread, d) != 0) {
        free(d->copy);
        free(d);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    return PMIX_SUCCESS;
}

/* ---- the other nodes (channels IOF_SUB, IOF_OUT; iof.c hands them here) ---- */

static void recv_sub(struct spx_srv_ctx *ctx, struct spx_srv_pulls *pl, uint32_t from, spx_buf_t *b)
{
    uint8_t op = spx_buf_pull_u8(b);
    uint64_t key = spx_buf_pull_u64(b);
    uint16_t channels = spx_buf_pull_u16(b);
    pmix_proc_t *src = NULL;
    size_t nsrc = 0;
    if (spx_buf_failed(b) || spx_codec_pull_proc_array(b, &src, &nsrc) != 0 ||
        spx_buf_finish(b) != 0 || (op == SUB_ADD && (nsrc == 0 || nsrc > SPX_IOF_MAX_SOURCES ||
                                                    !channels || (channels & ~OUT_CHANNELS)))) {
        spx_warn("IOF: malformed pull from node %u dropped", from);
        free(src);
        return;
    }
    struct rsub *rs;
    if (op == SUB_ACK) {
        struct pull *pu;
        LIST_FOREACH(pu, &pl->list, link)
            if (pu->key == key) {
                pull_node_done(pu, from);
                break;
            }
    } else if (op == SUB_ADD) {
        if ((rs = calloc(1, sizeof(*rs)))) {
            rs->origin = from;
            rs->key = key;
            rs->channels = channels;
            rs->sources = src;
            rs->nsources = nsrc;
            src = NULL;
            LIST_INSERT_HEAD(&pl->remote, rs, link);
            __atomic_add_fetch(&npulls, 1, __ATOMIC_RELEASE);
        }
        sub_send(ctx, (int)from, SUB_ACK, key, 0, NULL, 0); /* also without memory: no wait */
    } else if (op == SUB_REMOVE) {
        LIST_FOREACH(rs, &pl->remote, link)
            if (rs->origin == from && rs->key == key) {
                rsub_free(rs);
                break;
            }
    }
    free(src);
}

static void recv_out(struct spx_srv_pulls *pl, uint32_t from, spx_buf_t *b)
{
    pmix_proc_t src;
    uint64_t key = spx_buf_pull_u64(b);
    int prc = spx_codec_pull_proc(b, &src);
    uint16_t ch = spx_buf_pull_u16(b);
    uint8_t flags = spx_buf_pull_u8(b);
    uint32_t n = spx_buf_pull_u32(b);
    if (prc != 0 || spx_buf_failed(b) || n > SPX_IOF_MAX_CHUNK || spx_buf_remaining(b) != n ||
        !ch || (ch & (ch - 1)) || (ch & ~OUT_CHANNELS) || (flags & ~SPX_IOF_F_EOF)) {
        spx_warn("IOF: malformed output from node %u dropped", from);
        return;
    }
    struct pull *pu;
    LIST_FOREACH(pu, &pl->list, link)
        if (pu->key == key)
            break;
    if (!pu)
        return; /* ended meanwhile */
    if (!pu->peer->conn || pu->peer->state == SPX_PEER_CLOSED) {
        pull_free(pu, true); /* the puller went away: the other nodes stop sending */
        return;
    }
    pull_send(pu, &src, ch, (const char *)b->data + b->pos, n, flags & SPX_IOF_F_EOF);
}

void spx_srv_pulls_recv(struct spx_srv_ctx *ctx, uint32_t from, uint8_t channel, spx_buf_t *b)
{
    struct spx_srv_pulls *pl = ctx->iof_pulls;
    if (!pl)
        return;
    if (channel == SPX_SRV_CH_IOF_SUB)
        recv_sub(ctx, pl, from, b);
    else
        recv_out(pl, from, b);
}

void spx_srv_pulls_flush(struct spx_srv_ctx *ctx)
{
    struct spx_srv_pulls *pl = ctx->iof_pulls;
    struct pull *pu;
    int left = 2000; /* ms in all: a puller that does not read holds nobody long */
    if (!pl)
        return;
    LIST_FOREACH(pu, &pl->list, link) {
        if (!pu->peer->conn || left <= 0)
            continue;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (spx_conn_flush_wait(pu->peer->conn, left) != 0)
            spx_info("%s: IOF pull %u: output still queued when the server stopped is lost",
                     pu->peer->name, (unsigned)pu->id);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        left -= (int)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
    }
}

void spx_srv_pulls_node_gone(struct spx_srv_ctx *ctx, uint32_t node)
{
    struct spx_srv_pulls *pl = ctx->iof_pulls;
    if (!pl)
        return;
    struct rsub *rs, *rnext;
    for (rs = LIST_FIRST(&pl->remote); rs; rs = rnext) {
        rnext = LIST_NEXT(rs, link);
        if (rs->origin == node)
            rsub_free(rs);
    }
    struct pull *pu;
    LIST_FOREACH(pu, &pl->list, link)
        pull_node_done(pu, node);
}
