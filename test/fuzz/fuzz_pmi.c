/* fuzz_pmi.c - libFuzzer entry point for the PMI-1 / PMI-2 text protocols:
 * the pure parser (proto/pmi_text.h) over the raw input, and the server's
 * PMI wire engine (lib/server/pmi_wire.c, pmi_cmds.c) fed through the very
 * sockets PMIx_server_setup_fork hands a task as PMI_FD.
 *
 * Part 1, the parser: the whole input is cut into PMI-1 lines and into
 * PMI-2 length-prefixed messages, each parsed; every accepted command must
 * keep the bounds (pairs, key and value lengths, no empty or duplicate key,
 * no control byte, first pair cmd=<name>), and writing its pairs out again
 * (PMI-1: "k=v" with spaces; PMI-2: "k=v;" with spx_pmi_append_v2's
 * escaping) must parse back to the same pairs.
 *
 * Part 2, the server: one server for the whole process (private temporary
 * directory, single node, progress on this thread: progress_inline.c), with
 * the host module below. Each input registers namespace "fuzz-pmi" with four
 * ranks; task k's connection is made by PMIx_server_setup_fork of rank k at
 * its first record (the harness keeps a duplicate of PMI_FD, as a forked
 * task would hold its own copy). Byte 0: bit 0 the host holds its fence,
 * finalize and abort answers until a RELEASE record or the end (else answers
 * at once); then records, an op byte (% 6) and its fields (u16 little
 * endian; `len` bytes follow, cut short at the end):
 *   0 LINE   task, u16 len, bytes     the bytes and a '\n' (a PMI-1 line)
 *   1 V2     task, u16 len, bytes     a PMI-2 header "%-6u" and the bytes
 *   2 BYTES  task, u16 len, bytes     written as they are
 *   3 CLOSE  task                     EOF; the server must close its end
 *   4 RELEASE                         answer the held upcalls
 *   5 TIMERS                          fire the pending timers
 * Checks: everything the server writes is a sequence of well-formed PMI-1
 * lines (cmd=... first) or PMI-2 messages that parse; the server closes a
 * connection once its task closed; after each input no peer, namespace,
 * waiting GET, fence tracker, timer or PMI connection is left; ASan, UBSan
 * and LeakSanitizer check memory. fuzz_replay.c replays corpus-pmi in make
 * check (fuzz_pmi_replay); gen_pmi_seeds.c writes its seeds.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix_server.h>

#include "progress/progress.h"
#include "proto/pmi_text.h"
#include "server/core.h"
#include "server/fence.h"
#include "server/pmi_int.h"
#include "util/log.h"

#include "progress_inline.h"
#include "fuzz_input.h"
#include "fuzz_host.h"

#define FZ_NS "fuzz-pmi"
#define FZ_NPROCS 4
#define FZ_MAX_OPS 256
static const pmix_nspace_t fz_ns = FZ_NS;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_die(const char *what)
{
    fprintf(stderr, "fuzz_pmi: %s\n", what);
    abort();
}

/* ---- part 1: the parser alone ---- */

static void check_bounds(const struct spx_pmi_cmd *c)
{
    if (c->n < 1 || c->n > SPX_PMI_MAX_PAIRS || strcmp(c->p[0].key, "cmd") != 0 ||
        !c->p[0].val[0])
        fz_die("accepted command breaks the pair rules");
    for (size_t i = 0; i < c->n; i++) {
        size_t kl = strlen(c->p[i].key), vl = strlen(c->p[i].val);
        if (!kl || kl > SPX_PMI_MAX_KEY || vl > SPX_PMI_MAX_VAL || strchr(c->p[i].key, '='))
            fz_die("accepted pair out of bounds");
        for (size_t j = 0; j < i; j++)
            if (strcmp(c->p[i].key, c->p[j].key) == 0)
                fz_die("accepted duplicate key");
    }
}

static void check_same(const struct spx_pmi_cmd *a, const struct spx_pmi_cmd *b)
{
    if (a->n != b->n)
        fz_die("re-encoded command has another number of pairs");
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->p[i].key, b->p[i].key) || strcmp(a->p[i].val, b->p[i].val))
            fz_die("re-encoded command parses to other pairs");
}

/* Writes c out again in its protocol and parses that. */
static void check_roundtrip(const struct spx_pmi_cmd *c, int v2)
{
    static char out[8 * SPX_PMI_MAX_MSG];
    size_t pos = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (v2) {
            if (spx_pmi_append_v2(out, sizeof(out), &pos, c->p[i].key) ||
                spx_pmi_append_v2(out, sizeof(out), &pos, "="))
                fz_die("append_v2 refused a short string");
            /* the value: '=' needs no escape */
            if (spx_pmi_append_v2(out, sizeof(out), &pos, c->p[i].val) || pos + 2 > sizeof(out))
                fz_die("append_v2 refused a short string");
            out[pos++] = ';';
        } else {
            if (c->p[i].val[0] && !spx_pmi_v1_value_ok(c->p[i].val))
                fz_die("PMI-1 parser accepted a value spx_pmi_v1_value_ok refuses");
            pos += (size_t)snprintf(out + pos, sizeof(out) - pos, "%s%s=%s", i ? " " : "",
                                    c->p[i].key, c->p[i].val);
        }
    }
    if (pos > SPX_PMI_MAX_MSG)
        return; /* escaping made it longer than a message may be */
    struct spx_pmi_cmd again;
    int rc = v2 ? spx_pmi_parse_v2(out, pos, &again) : spx_pmi_parse_v1(out, pos, &again);
    if (rc != 0)
        fz_die("re-encoded command does not parse");
    check_same(c, &again);
}

static void parse_all(const uint8_t *data, size_t size, int v2)
{
    static char msg[SPX_PMI_MAX_MSG + 1];
    size_t off = 0;
    while (off < size) {
        size_t blen = 0, hdr = v2 ? SPX_PMI_V2_HDR : 0;
        long took = v2 ? spx_pmi_frame_v2((const char *)data + off, size - off, &blen)
                       : spx_pmi_frame_v1((const char *)data + off, size - off, &blen);
        if (took == 0)
            return;
        if (took < 0) { /* skip a byte and look again */
            off++;
            continue;
        }
        if (blen > SPX_PMI_MAX_MSG || hdr + blen > (size_t)took || (size_t)took > size - off)
            fz_die("framing returned lengths beyond its input");
        memcpy(msg, data + off + hdr, blen);
        struct spx_pmi_cmd c;
        int rc = v2 ? spx_pmi_parse_v2(msg, blen, &c) : spx_pmi_parse_v1(msg, blen, &c);
        if (rc == 0) {
            check_bounds(&c);
            check_roundtrip(&c, v2);
        }
        off += (size_t)took;
    }
}

/* ---- part 2: the host module (its upcalls run inside the event loop) ---- */

static int fz_hold;
typedef struct fz_held {
    struct fz_held *next;
    pmix_op_cbfunc_t op;
    pmix_modex_cbfunc_t modex;
    void *cbdata;
    char *data;
    size_t ndata;
} fz_held_t;
static fz_held_t *fz_held;

static void release_free(void *arg)
{
    free(arg);
}

static void fire(fz_held_t *h)
{
    if (h->op)
        h->op(PMIX_SUCCESS, h->cbdata);
    else
        h->modex(PMIX_SUCCESS, h->data, h->ndata, h->cbdata, release_free, h->data);
}

static pmix_status_t answer(pmix_op_cbfunc_t op, pmix_modex_cbfunc_t modex, void *cbdata,
                            const char *data, size_t ndata)
{
    if (!op && !modex)
        return PMIX_OPERATION_SUCCEEDED;
    fz_held_t *h = calloc(1, sizeof(*h));
    if (!h)
        return PMIX_ERR_NOMEM;
    *h = (fz_held_t){ .op = op, .modex = modex, .cbdata = cbdata, .ndata = ndata };
    if (ndata && !(h->data = malloc(ndata))) {
        free(h);
        return PMIX_ERR_NOMEM;
    }
    if (ndata)
        memcpy(h->data, data, ndata);
    if (!fz_hold) {
        fire(h);
        free(h);
        return PMIX_SUCCESS;
    }
    h->next = fz_held;
    fz_held = h;
    return PMIX_SUCCESS;
}

static void release_held(void *arg)
{
    (void)arg;
    while (fz_held) {
        fz_held_t *h = fz_held;
        fz_held = h->next;
        fire(h);
        free(h);
    }
}

static pmix_status_t host_connected2(const pmix_proc_t *proc, void *obj, pmix_info_t info[],
                                     size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)obj, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t host_finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cbfunc,
                                    void *cbdata)
{
    (void)proc, (void)obj;
    return answer(cbfunc, NULL, cbdata, NULL, 0);
}

static pmix_status_t host_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
                                pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                                void *cbdata)
{
    (void)proc, (void)obj, (void)status, (void)msg, (void)procs, (void)nprocs;
    return answer(cbfunc, NULL, cbdata, NULL, 0); /* aborts nothing */
}

static pmix_status_t host_fence(const pmix_proc_t procs[], size_t nprocs,
                                const pmix_info_t info[], size_t ninfo, char *data,
                                size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    if (!cbfunc)
        return PMIX_ERR_BAD_PARAM;
    return answer(NULL, cbfunc, cbdata, data, ndata); /* one node: ours */
}

/* ---- the server, once per process ---- */

static void server_start(void)
{
    static pmix_server_module_t module = {
        .client_finalized = host_finalized, .abort = host_abort, .fence_nb = host_fence,
        .client_connected2 = host_connected2,
    };
    fz_server_start("fuzz-pmi", &module, false);
}

static void ns_register(void)
{
    pmix_info_t info[6];
    memset(info, 0, sizeof(info));
    fz_info_u32(&info[0], PMIX_JOB_SIZE, FZ_NPROCS);
    fz_info_u32(&info[1], PMIX_LOCAL_SIZE, FZ_NPROCS);
    fz_info_str(&info[2], PMIX_LOCAL_PEERS, "0-3");
    fz_info_str(&info[3], PMIX_HWLOC_XML_V2, "<topology/>");
    fz_info_u32(&info[4], PMIX_UNIV_SIZE, FZ_NPROCS);
    fz_info_u32(&info[5], PMIX_APPNUM, 0);
    if (PMIx_server_register_nspace(fz_ns, FZ_NPROCS, info, 6, fz_registered, NULL) !=
        PMIX_SUCCESS)
        abort();
    for (pmix_rank_t r = 0; r < FZ_NPROCS; r++) {
        pmix_proc_t p;
        memset(&p, 0, sizeof(p));
        snprintf(p.nspace, sizeof(p.nspace), "%s", FZ_NS);
        p.rank = r;
        if (PMIx_server_register_client(&p, getuid(), getgid(), NULL, fz_registered, NULL) !=
            PMIX_SUCCESS)
            abort();
    }
}

/* ---- tasks ---- */

typedef struct fz_task {
    int fd;             /* the harness's copy of PMI_FD, -1 when none */
    bool dead;          /* the server closed its end or stopped reading */
    bool wrote;         /* sent bytes: the server dropped its copy of the task's end */
    char out[2 * (SPX_PMI_V2_HDR + SPX_PMI_MAX_MSG)]; /* what the server wrote, not checked yet */
    size_t outlen;
} fz_task_t;

/* Checks the complete messages at the front of t->out and drops them. */
static void check_output(fz_task_t *t)
{
    static char msg[SPX_PMI_MAX_MSG + 1];
    for (;;) {
        size_t blen = 0, hdr = 0;
        long took;
        int v2 = spx_pmi_looks_v2(t->out, t->outlen);
        if (t->outlen == 0 || v2 < 0)
            return;
        if (v2) {
            took = spx_pmi_frame_v2(t->out, t->outlen, &blen);
            hdr = SPX_PMI_V2_HDR;
        } else {
            took = spx_pmi_frame_v1(t->out, t->outlen, &blen);
        }
        if (took < 0)
            fz_die("the server wrote a message too long or with a bad header");
        if (took == 0)
            return;
        memcpy(msg, t->out + hdr, blen);
        struct spx_pmi_cmd c;
        if ((v2 ? spx_pmi_parse_v2(msg, blen, &c) : spx_pmi_parse_v1(msg, blen, &c)) != 0) {
            fprintf(stderr, "fuzz_pmi: reply: %.*s\n", (int)blen, t->out + hdr);
            fz_die("the server wrote a reply that does not parse");
        }
        memmove(t->out, t->out + took, t->outlen - (size_t)took);
        t->outlen -= (size_t)took;
    }
}

/* Reads what the server wrote. 0 at EOF or error (the server closed), else 1. */
static int task_read(fz_task_t *t)
{
    for (;;) {
        if (t->outlen == sizeof(t->out))
            fz_die("the server wrote an over-long message");
        ssize_t r = read(t->fd, t->out + t->outlen, sizeof(t->out) - t->outlen);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            return 1;
        if (r <= 0) {
            t->dead = true;
            return 0;
        }
        t->outlen += (size_t)r;
        check_output(t);
    }
}

static void task_open(fz_task_t *t, unsigned k)
{
    if (t->fd >= 0 || t->dead)
        return;
    pmix_proc_t p;
    memset(&p, 0, sizeof(p));
    snprintf(p.nspace, sizeof(p.nspace), "%s", FZ_NS);
    p.rank = k;
    char **env = NULL;
    if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS)
        abort();
    int fd = -1;
    for (char **e = env; e && *e; e++) {
        if (strncmp(*e, "PMI_FD=", 7) == 0)
            fd = atoi(*e + 7);
        free(*e);
    }
    free(env);
    if (fd < 0)
        fz_die("PMIx_server_setup_fork gave no PMI_FD");
    /* the forked task's own copy: the server closes its one when the task speaks */
    t->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (t->fd < 0 || fcntl(t->fd, F_SETFL, O_NONBLOCK) != 0)
        abort();
}

static void write_all(fz_task_t *t, const uint8_t *p, size_t len)
{
    size_t off = 0;
    int stalls = 0;
    while (!t->dead && off < len) {
        ssize_t r = send(t->fd, p + off, len - off, MSG_NOSIGNAL);
        if (r > 0) {
            off += (size_t)r;
            stalls = 0;
            t->wrote = true;
        } else if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (++stalls > 8) {
                t->dead = true; /* the server does not read this task any more */
                break;
            }
            task_read(t);
            spx_fz_pump(2);
        } else {
            t->dead = true;
        }
    }
}

/* EOF to the server from each open task of mask; the server must close them. */
static void tasks_close(fz_task_t *t, unsigned mask)
{
    for (unsigned k = 0; k < FZ_NPROCS; k++)
        if (t[k].fd >= 0 && (mask >> k) & 1u)
            shutdown(t[k].fd, SHUT_WR);
    for (int pass = 0;; pass++) {
        spx_fz_pump(2);
        bool open = false;
        for (unsigned k = 0; k < FZ_NPROCS; k++) {
            if (t[k].fd < 0 || !((mask >> k) & 1u))
                continue;
            /* a task that never wrote: the server still holds a copy of
             * its end (until the namespace goes), so no EOF reaches it */
            if (t[k].wrote && task_read(&t[k])) {
                open = true;
                continue;
            }
            close(t[k].fd);
            t[k].fd = -1;
            t[k].dead = true;
        }
        if (!open)
            return;
        if (pass == 8)
            fz_die("the server kept a PMI connection open after its task's EOF");
    }
}

static void check_empty(void)
{
    struct spx_srv_pmi *st = spx_srv->pmi;
    if (!LIST_EMPTY(&spx_srv->peers) || !LIST_EMPTY(&spx_srv->nspaces) ||
        !LIST_EMPTY(&spx_srv->gets) ||
        (spx_srv->fence && spx_fence_count(spx_srv->fence)) || spx_fz_timer_count() ||
        !st || !LIST_EMPTY(&st->conns) || !LIST_EMPTY(&st->dead) || st->nattrs)
        fz_die("something of the input is left in the server");
}

static void one_session(const uint8_t *data, size_t size)
{
    fz_in_t in = { data, size };
    fz_task_t t[FZ_NPROCS];
    for (unsigned k = 0; k < FZ_NPROCS; k++) {
        t[k].fd = -1;
        t[k].dead = t[k].wrote = false;
        t[k].outlen = 0;
    }
    fz_hold = in_u8(&in) & 1;
    ns_register();
    static uint8_t buf[SPX_PMI_V2_HDR + 65536 + 1];
    for (int ops = 0; in.left && ops < FZ_MAX_OPS; ops++) {
        uint8_t op = in_u8(&in) % 6u;
        unsigned k = op < 4 ? in_u8(&in) % FZ_NPROCS : 0;
        if (op < 3)
            task_open(&t[k], k);
        if (op < 3) {
            size_t len = in_u16(&in);
            const uint8_t *p = in_bytes(&in, &len);
            size_t n = 0;
            if (op == 1) {
                snprintf((char *)buf, sizeof(buf), "%-6zu", len);
                n = SPX_PMI_V2_HDR; /* lengths over 999999 do not occur: u16 */
            }
            memcpy(buf + n, p, len);
            n += len;
            if (op == 0)
                buf[n++] = '\n';
            if (t[k].fd >= 0)
                write_all(&t[k], buf, n);
        } else if (op == 3) {
            tasks_close(t, 1u << k);
        } else if (op == 4) {
            spx_progress_shift(release_held, NULL);
        } else {
            spx_fz_fire_timers();
        }
        spx_fz_pump(2);
        for (unsigned j = 0; j < FZ_NPROCS; j++)
            if (t[j].fd >= 0 && !t[j].dead)
                task_read(&t[j]);
    }
    tasks_close(t, (1u << FZ_NPROCS) - 1);
    spx_progress_shift(release_held, NULL);
    PMIx_server_deregister_nspace(fz_ns, fz_registered, NULL);
    spx_progress_shift(release_held, NULL);
    spx_fz_pump(2);
    check_empty();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool started;
    if (!started) {
        started = true;
        server_start();
    }
    parse_all(data, size, 0);
    parse_all(data, size, 1);
    if (size >= 1)
        one_session(data, size);
    return 0;
}
