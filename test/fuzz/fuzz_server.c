/* fuzz_server.c - libFuzzer entry point for the server's client-request
 * dispatcher: the bytes local clients send after (and instead of) their
 * HELLO, through the real connection reader (net/conn.c), peer.c's dispatch
 * and every request handler (COMMIT, FENCE, FENCE_LOCAL, GET, NOTIFY,
 * PUBLISH, LOOKUP, UNPUBLISH, QUERY, JOBCTL, ABORT, FINALIZE, HELLO, GROUP,
 * IOF_PUSH); the server accepts tools (PMIX_SERVER_TOOL_SUPPORT), so a
 * connection opened without HELLO may say HELLO as a tool.
 *
 * One server runs for the whole process (started by the first input, with a
 * private temporary directory; finalized at exit), single node, with the
 * host module below. Its progress "thread" is this thread
 * (progress_inline.c replaces lib/progress): after each record the harness
 * runs the event loop until the server has nothing left to do, so the server
 * sees the records in input order and an input always runs the same way.
 * Each input registers namespace "fuzz-ns" with four local ranks 0..3, opens
 * up to five client connections (socketpairs whose server end goes to the
 * server's accept callback: client k is rank k, k = 4 a rank that is not
 * registered), writes the input's frames into them, closes them (EOF: the
 * server must close its end), answers what the host still holds and
 * deregisters the namespace. Closing a client fails what it waits for (a
 * fence short of other ranks, a GET waiting for a commit); deregistering the
 * namespace drops its data; so nothing piles up across inputs.
 *
 * The host module answers every upcall it has (client_connected2,
 * client_finalized, abort - which does nothing -, fence_nb, notify_event,
 * query, job_control, push_stdin) the way the input's first byte says: bits 0-1
 * 0 call back inside the upcall, 1 return PMIX_OPERATION_SUCCEEDED, 2
 * return PMIX_ERR_NOT_SUPPORTED, 3 hold the callback until a RELEASE record
 * or the end of the input (after the clients are gone: late answers); bit 2
 * refuses connections; bit 3 adds a cpu list to the HELLOs.
 * Publish/lookup/unpublish are left to the server's own directory
 * (pubsub.c). Clients are registered with a uid that owns no file, so a
 * fuzzed JOBCTL cleanup registration removes nothing when the namespace is
 * deregistered.
 *
 * Input: byte 0 host mode, then records, an op byte (% 7) and its fields
 * (u16/u32 little endian; `len` bytes follow, cut short at the end):
 *   0 MSG    client, type, u16 len, payload       a request frame (next seq)
 *   1 RAW    client, type, u16 flags, u32 seq, u16 len, payload
 *   2 BYTES  client, u16 len, bytes               written as they are
 *   3 OPEN   client                               connect without the HELLO
 *   4 CLOSE  client                               EOF; the server must close it
 *   5 RELEASE                                     answer the held upcalls
 *   6 TIMERS                                      fire the pending timers
 *                                                 (fence and GET timeouts)
 * A client's first MSG/RAW/BYTES connects it and sends a well-formed HELLO
 * for its rank.
 * Checks: the server closes every connection once its client closed (no
 * hang), writes only well-formed frames, and after each input no peer,
 * namespace, waiting GET, fence tracker or timer is left; ASan/UBSan and
 * LeakSanitizer check memory. fuzz_replay.c replays corpus-server in make
 * check (fuzz_server_replay).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix_server.h>

#include <spmix.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "server/core.h"
#include "server/fence.h"
#include "util/log.h"

#include "progress_inline.h"
#include "fuzz_input.h"
#include "fuzz_host.h"

#define FZ_NS "fuzz-ns"
#define FZ_NPROCS 4
#define FZ_NCLIENTS 5           /* ranks 0..3 registered, 4 not */
#define FZ_UID ((uid_t)3999999) /* owns no file (cleanup registrations) */
#define FZ_MAX_OPS 256
static const pmix_nspace_t fz_ns = FZ_NS;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the host module (its upcalls run inside the event loop) ---- */

enum { FZ_ANSWER_NOW, FZ_ANSWER_SUCCEEDED, FZ_ANSWER_ERROR, FZ_ANSWER_HOLD };
static int fz_mode; /* this input's host answer mode */

enum fz_cb_kind { FZ_CB_OP, FZ_CB_MODEX, FZ_CB_INFO };
typedef struct fz_held {
    struct fz_held *next;
    enum fz_cb_kind kind;
    void *fn;
    void *cbdata;
    char *data; /* modex data (owned until handed over with free as release) */
    size_t ndata;
} fz_held_t;
static fz_held_t *fz_held;

static const pmix_info_t fz_answer_info[1] = {
    { .key = "fuzz.answer", .flags = 0, .value = { .type = PMIX_STRING, .data.string = "x" } }
};

static void release_free(void *arg)
{
    free(arg);
}

static void fire(enum fz_cb_kind kind, void *fn, void *cbdata, char *data, size_t ndata)
{
    if (kind == FZ_CB_OP) {
        ((pmix_op_cbfunc_t)fn)(PMIX_SUCCESS, cbdata);
    } else if (kind == FZ_CB_MODEX) {
        ((pmix_modex_cbfunc_t)fn)(PMIX_SUCCESS, data, ndata, cbdata, release_free, data);
    } else {
        ((pmix_info_cbfunc_t)fn)(PMIX_SUCCESS, (pmix_info_t *)fz_answer_info, 1, cbdata, NULL,
                                 NULL);
    }
}

/* Answers one upcall as the mode says; data (modex) is copied. */
static pmix_status_t answer(enum fz_cb_kind kind, void *fn, void *cbdata, const char *data,
                            size_t ndata)
{
    int how = fz_mode & 3;
    if (how == FZ_ANSWER_SUCCEEDED && kind == FZ_CB_OP)
        return PMIX_OPERATION_SUCCEEDED;
    if (how == FZ_ANSWER_ERROR || !fn)
        return PMIX_ERR_NOT_SUPPORTED;
    char *copy = NULL;
    if (kind == FZ_CB_MODEX && ndata) {
        if (!(copy = malloc(ndata)))
            return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    if (how == FZ_ANSWER_HOLD) {
        fz_held_t *h = calloc(1, sizeof(*h));
        if (!h) {
            free(copy);
            return PMIX_ERR_NOMEM;
        }
        *h = (fz_held_t){ .next = fz_held, .kind = kind, .fn = fn, .cbdata = cbdata,
                          .data = copy, .ndata = ndata };
        fz_held = h;
        return PMIX_SUCCESS;
    }
    fire(kind, fn, cbdata, copy, ndata);
    return PMIX_SUCCESS;
}

static void release_held(void *arg)
{
    (void)arg;
    while (fz_held) {
        fz_held_t *h = fz_held;
        fz_held = h->next;
        fire(h->kind, h->fn, h->cbdata, h->data, h->ndata);
        free(h);
    }
}

static pmix_status_t host_connected2(const pmix_proc_t *proc, void *obj, pmix_info_t info[],
                                     size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)obj, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return (fz_mode & 4) ? PMIX_ERR_NO_PERMISSIONS : PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t host_finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                                    void *cbdata)
{
    (void)proc, (void)obj;
    return answer(FZ_CB_OP, (void *)cbfunc, cbdata, NULL, 0);
}

static pmix_status_t host_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
                                pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                                void *cbdata)
{
    (void)proc, (void)obj, (void)status, (void)msg, (void)procs, (void)nprocs;
    return answer(FZ_CB_OP, (void *)cbfunc, cbdata, NULL, 0); /* aborts nothing */
}

static pmix_status_t host_fence(const pmix_proc_t procs[], size_t nprocs,
                                const pmix_info_t info[], size_t ninfo, char *data,
                                size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    if ((fz_mode & 3) == FZ_ANSWER_SUCCEEDED) /* no such answer for a fence */
        return PMIX_ERR_NOT_SUPPORTED;
    return answer(FZ_CB_MODEX, (void *)cbfunc, cbdata, data, ndata); /* one node: ours */
}

static pmix_status_t host_notify(pmix_status_t code, const pmix_proc_t *source,
                                 pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                                 pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)code, (void)source, (void)range, (void)info, (void)ninfo;
    return answer(FZ_CB_OP, (void *)cbfunc, cbdata, NULL, 0);
}

static pmix_status_t host_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)proct, (void)queries, (void)nqueries;
    if ((fz_mode & 3) == FZ_ANSWER_SUCCEEDED)
        return PMIX_ERR_NOT_SUPPORTED;
    return answer(FZ_CB_INFO, (void *)cbfunc, cbdata, NULL, 0);
}

static pmix_status_t host_job_control(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                                      size_t ntargets, const pmix_info_t directives[],
                                      size_t ndirs, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)requestor, (void)targets, (void)ntargets, (void)directives, (void)ndirs;
    if ((fz_mode & 3) == FZ_ANSWER_SUCCEEDED)
        return PMIX_OPERATION_SUCCEEDED;
    return answer(FZ_CB_INFO, (void *)cbfunc, cbdata, NULL, 0);
}

static pmix_status_t host_push_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
                                     size_t ntargets, const pmix_info_t directives[],
                                     size_t ndirs, const pmix_byte_object_t *bo,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)source, (void)targets, (void)ntargets, (void)directives, (void)ndirs, (void)bo;
    return answer(FZ_CB_OP, (void *)cbfunc, cbdata, NULL, 0);
}

/* ---- the server, once per process ---- */

static void server_start(void)
{
    static pmix_server_module_t module = {
        .client_connected = NULL, .client_finalized = host_finalized, .abort = host_abort,
        .fence_nb = host_fence, .notify_event = host_notify, .query = host_query,
        .job_control = host_job_control, .client_connected2 = host_connected2,
        .push_stdin = host_push_stdin,
    };
    fz_server_start("fuzz-server", &module, true); /* tools' HELLO, QUERY, IOF_PUSH reachable */
}

/* The namespace and its clients. A tiny topology keeps the server's XML
 * export out of every HELLO reply. */
static void ns_register(void)
{
    pmix_info_t info[5];
    memset(info, 0, sizeof(info));
    fz_info_u32(&info[0], PMIX_JOB_SIZE, FZ_NPROCS);
    fz_info_u32(&info[1], PMIX_LOCAL_SIZE, FZ_NPROCS);
    fz_info_str(&info[2], PMIX_LOCAL_PEERS, "0-3");
    fz_info_str(&info[3], PMIX_HWLOC_XML_V2, "<topology/>");
    fz_info_u32(&info[4], PMIX_UNIV_SIZE, FZ_NPROCS);
    if (PMIx_server_register_nspace(fz_ns, FZ_NPROCS, info, 5, fz_registered, NULL) !=
        PMIX_SUCCESS)
        abort();
    for (pmix_rank_t r = 0; r < FZ_NPROCS; r++) {
        pmix_proc_t p;
        memset(&p, 0, sizeof(p));
        snprintf(p.nspace, sizeof(p.nspace), "%s", FZ_NS);
        p.rank = r;
        if (PMIx_server_register_client(&p, FZ_UID, 0, NULL, fz_registered, NULL) != PMIX_SUCCESS)
            abort();
    }
}

/* ---- client connections ---- */

typedef struct fz_client {
    int fd;                          /* harness end, -1 when not connected */
    bool dead;                       /* closed by the server, or it stopped reading */
    uint32_t seq;
    uint8_t hdr[SPX_FRAME_HDR_LEN];  /* reading the server's frames */
    size_t hdr_have;
    uint64_t skip;                   /* payload bytes of the current frame still to read */
} fz_client_t;

typedef struct fz_world {
    fz_client_t c[FZ_NCLIENTS];
} fz_world_t;

static void accept_job(void *arg)
{
    int fd = (int)(intptr_t)arg;
    spx_srv_accept(fd, FZ_UID, 0, getpid(), spx_srv);
}

/* Reads what the server sent and drops it, checking that it is a sequence
 * of well-formed frames. 0 at EOF (or an error: the server closed the
 * connection), else 1. */
static int client_read(fz_client_t *c)
{
    static uint8_t buf[65536];
    for (;;) {
        ssize_t r = read(c->fd, buf, sizeof(buf));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            return 1;
        if (r <= 0) {
            c->dead = true;
            return 0;
        }
        for (size_t off = 0; off < (size_t)r;) {
            if (c->skip) {
                size_t k = (size_t)r - off < c->skip ? (size_t)r - off : (size_t)c->skip;
                off += k;
                c->skip -= k;
                continue;
            }
            c->hdr[c->hdr_have++] = buf[off++];
            if (c->hdr_have < SPX_FRAME_HDR_LEN)
                continue;
            c->hdr_have = 0;
            spx_frame_hdr_t h;
            if (spx_frame_hdr_decode(c->hdr, &h) != 0) {
                fprintf(stderr, "fuzz_server: the server wrote a malformed frame\n");
                abort();
            }
            c->skip = h.length;
        }
    }
}

static void write_all(fz_client_t *c, const uint8_t *p, size_t len)
{
    size_t off = 0;
    int stalls = 0;
    while (!c->dead && off < len) {
        ssize_t r = send(c->fd, p + off, len - off, MSG_NOSIGNAL);
        if (r > 0) {
            off += (size_t)r;
            stalls = 0;
        } else if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (++stalls > 8) {
                c->dead = true; /* the server does not read this connection */
                break;
            }
            client_read(c); /* the server may wait to write before it reads */
            spx_fz_pump(2);
        } else {
            c->dead = true; /* the server closed the connection */
        }
    }
}

static void send_frame(fz_client_t *c, uint8_t type, uint16_t flags, uint32_t seq,
                       const void *payload, size_t len)
{
    static uint8_t frame[SPX_FRAME_HDR_LEN + 65536];
    if (len > sizeof(frame) - SPX_FRAME_HDR_LEN)
        return;
    spx_frame_hdr_t h = { .type = type, .flags = flags, .seq = seq, .length = (uint32_t)len };
    spx_frame_hdr_encode(&h, frame);
    if (len)
        memcpy(frame + SPX_FRAME_HDR_LEN, payload, len);
    write_all(c, frame, SPX_FRAME_HDR_LEN + len);
}

/* Connects client k (a socketpair; the server's end goes to its accept
 * callback), and sends the HELLO of rank k when hello. */
static void client_open(fz_world_t *w, unsigned k, bool hello)
{
    fz_client_t *c = &w->c[k];
    if (c->fd >= 0)
        return;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
        abort();
    *c = (fz_client_t){ .fd = sv[1] };
    if (spx_progress_shift(accept_job, (void *)(intptr_t)sv[0]) != 0)
        abort();
    if (!hello)
        return;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u32(&b, SPX_PROTO_VERSION);
    spx_buf_push_u8(&b, SPX_PEER_CLIENT);
    spx_buf_push_str(&b, FZ_NS);
    spx_buf_push_u32(&b, k);
    spx_buf_push_u32(&b, (uint32_t)getpid());
    if (fz_mode & 8)
        spx_buf_push_str(&b, "0");
    if (!spx_buf_failed(&b))
        send_frame(c, SPX_MSG_HELLO, 0, ++c->seq, b.data, b.len);
    spx_buf_fini(&b);
}

/* EOF to the server on each open client of mask; the server must close
 * them all while it handles that (no hang). */
static void clients_close(fz_world_t *w, unsigned mask)
{
    for (unsigned k = 0; k < FZ_NCLIENTS; k++)
        if (w->c[k].fd >= 0 && (mask >> k) & 1u)
            shutdown(w->c[k].fd, SHUT_WR);
    for (int pass = 0;; pass++) {
        spx_fz_pump(2);
        bool open = false;
        for (unsigned k = 0; k < FZ_NCLIENTS; k++) {
            fz_client_t *c = &w->c[k];
            if (c->fd < 0 || !((mask >> k) & 1u))
                continue;
            if (client_read(c)) {
                open = true;
                continue;
            }
            close(c->fd);
            c->fd = -1;
        }
        if (!open)
            return;
        if (pass == 8) {
            fprintf(stderr, "fuzz_server: the server kept a client open after its EOF\n");
            abort();
        }
    }
}

/* After the input: nothing of it may be left in the server. */
static void check_empty(void)
{
    if (!LIST_EMPTY(&spx_srv->peers) || !LIST_EMPTY(&spx_srv->nspaces) ||
        !LIST_EMPTY(&spx_srv->gets) ||
        (spx_srv->fence && spx_fence_count(spx_srv->fence)) || spx_fz_timer_count()) {
        fprintf(stderr, "fuzz_server: left after the input: peers %p nspaces %p gets %p "
                "fences %zu timers %zu\n", (void *)LIST_FIRST(&spx_srv->peers),
                (void *)LIST_FIRST(&spx_srv->nspaces), (void *)LIST_FIRST(&spx_srv->gets),
                spx_srv->fence ? spx_fence_count(spx_srv->fence) : 0,
                spx_fz_timer_count());
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool started;
    if (!started) {
        started = true;
        server_start();
    }
    if (size < 1)
        return 0;
    fz_in_t in = { data, size };
    fz_world_t w;
    memset(&w, 0, sizeof(w));
    for (unsigned k = 0; k < FZ_NCLIENTS; k++)
        w.c[k].fd = -1;
    fz_mode = in_u8(&in);
    ns_register();
    for (int ops = 0; in.left && ops < FZ_MAX_OPS; ops++) {
        uint8_t op = in_u8(&in) % 7u;
        unsigned k = op < 5 ? in_u8(&in) % FZ_NCLIENTS : 0;
        fz_client_t *c = &w.c[k];
        if (op < 3)
            client_open(&w, k, true);
        switch (op) {
        case 0: {
            uint8_t type = in_u8(&in);
            size_t len = in_u16(&in);
            const uint8_t *p = in_bytes(&in, &len);
            send_frame(c, type, 0, ++c->seq, p, len);
            break;
        }
        case 1: {
            uint8_t type = in_u8(&in);
            uint16_t flags = in_u16(&in);
            uint32_t seq = in_u32(&in);
            size_t len = in_u16(&in);
            const uint8_t *p = in_bytes(&in, &len);
            send_frame(c, type, flags, seq, p, len);
            break;
        }
        case 2: {
            size_t len = in_u16(&in);
            const uint8_t *p = in_bytes(&in, &len);
            write_all(c, p, len);
            break;
        }
        case 3:
            client_open(&w, k, false);
            break;
        case 4:
            clients_close(&w, 1u << k);
            break;
        case 5:
            spx_progress_shift(release_held, NULL);
            break;
        default:
            spx_fz_fire_timers();
            break;
        }
        spx_fz_pump(2); /* the server handles the record before the next one */
    }
    clients_close(&w, (1u << FZ_NCLIENTS) - 1);
    spx_progress_shift(release_held, NULL); /* late answers, to requests of closed clients */
    PMIx_server_deregister_nspace(fz_ns, fz_registered, NULL);
    spx_progress_shift(release_held, NULL);
    spx_fz_pump(2);
    check_empty();
    return 0;
}
