/* client_iof_pull.c - PMIx_IOF_pull / PMIx_IOF_deregister: the stdout,
 * stderr or stddiag of processes of a job, handed to a callback of this
 * process (a tool, or a client) as the processes write them.
 *
 * Flow: PMIx_IOF_pull picks a handler id, keeps the registration (not yet
 * active) and sends IOF_PULL ADD (proto/msg.h) to this process's server;
 * the reply activates it (progress thread) and calls regcbfunc, or wakes
 * the blocking form, which returns the id. The server then sends IOF_DATA
 * frames naming the id; each goes to the registration's iof callback
 * (progress thread) with the bytes lent from the frame - formatted first
 * when the pull asked for PMIX_IOF_TAG_OUTPUT ("[nspace,rank]<stdout>: "
 * before each line), PMIX_IOF_TIMESTAMP_OUTPUT ("[ctime]" before that, or
 * "[ctime]<stdout>: " alone) or PMIX_IOF_XML_OUTPUT (each piece of a line as
 * an element <stdout rank="r">...</stdout>, '&', '<', '>' and non-printable
 * bytes escaped); a line split between frames is tagged once. The end of a
 * source's stream comes as zero bytes with PMIX_IOF_COMPLETE in the info.
 * PMIx_IOF_deregister marks the registration removed at once (no callback
 * from then on that has not started) and sends IOF_PULL REMOVE; its reply
 * frees it and calls cbfunc (or wakes the blocking form). Registrations are
 * freed only on the progress thread; the list is guarded by pulls.lock for
 * the lookups of the callers' threads.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>
#include <pmix_tool.h>

#include "client/client.h"
#include "codec/value.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "types/types.h"
#include "util/log.h"

#define OUT_CHANNELS (PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL | PMIX_FWD_STDDIAG_CHANNEL)

static const char *const pull_directives[] = {PMIX_IOF_TAG_OUTPUT, PMIX_IOF_TIMESTAMP_OUTPUT,
                                              PMIX_IOF_XML_OUTPUT, NULL};

/* Whether a source's stream is in the middle of a line (formatting). */
struct line_state {
    pmix_proc_t src;
    uint16_t channel;
    bool mid_line;
};

struct pull_reg {
    TAILQ_ENTRY(pull_reg) link; /* in pulls.list */
    size_t id;
    uint32_t server;            /* the server it was made at */
    bool active;                /* the server accepted it */
    bool removed;               /* deregistered: no more callbacks */
    bool tag, stamp, xml;
    pmix_iof_cbfunc_t cb;
    pmix_hdlr_reg_cbfunc_t regcb; /* NULL: a blocking caller waits on wait */
    void *regcbdata;
    spx_wait_t *wait;
    pmix_op_cbfunc_t dereg_cb;  /* deregistration's callback (NULL: blocking) */
    void *dereg_cbdata;
    struct line_state *ls;      /* owned; progress thread */
    size_t nls;
};

static struct {
    pthread_mutex_t lock;
    TAILQ_HEAD(, pull_reg) list;
    size_t next_id;
} pulls = {.lock = PTHREAD_MUTEX_INITIALIZER, .list = TAILQ_HEAD_INITIALIZER(pulls.list)};

static void reg_free(struct pull_reg *r)
{
    free(r->ls);
    free(r);
}

static void reg_unlink(struct pull_reg *r)
{
    pthread_mutex_lock(&pulls.lock);
    TAILQ_REMOVE(&pulls.list, r, link);
    pthread_mutex_unlock(&pulls.lock);
}

/* ---- formatting ---- */

static const char *channel_name(uint16_t ch)
{
    return ch == PMIX_FWD_STDOUT_CHANNEL   ? "stdout"
           : ch == PMIX_FWD_STDERR_CHANNEL ? "stderr"
                                           : "stddiag";
}

static struct line_state *line_state_of(struct pull_reg *r, const pmix_proc_t *src, uint16_t ch)
{
    for (size_t i = 0; i < r->nls; i++)
        if (r->ls[i].channel == ch && spx_proc_eq(&r->ls[i].src, src))
            return &r->ls[i];
    struct line_state *a = realloc(r->ls, (r->nls + 1) * sizeof(*a));
    if (!a)
        return NULL;
    r->ls = a;
    a[r->nls] = (struct line_state){.src = *src, .channel = ch, .mid_line = false};
    return &a[r->nls++];
}

/* Growable output of a formatted chunk. */
struct out {
    char *p;
    size_t len, cap;
    bool failed;
};

static void out_add(struct out *o, const void *s, size_t n)
{
    if (o->failed)
        return;
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->len + n)
            cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) {
            o->failed = true;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

static void out_str(struct out *o, const char *s)
{
    out_add(o, s, strlen(s));
}

/* What goes before a line (or, XML, opens an element). */
static void line_head(const struct pull_reg *r, const pmix_proc_t *src, uint16_t ch,
                      struct out *o)
{
    const char *suffix = channel_name(ch);
    const char *at = strrchr(src->nspace, '@');
    const char *ns = at ? at + 1 : src->nspace;
    char stamp[64] = "", buf[PMIX_MAX_NSLEN + 128];
    if (r->stamp) {
        time_t now = time(NULL);
        struct tm tm;
        if (!localtime_r(&now, &tm) || !asctime_r(&tm, stamp))
            stamp[0] = '\0';
        stamp[strcspn(stamp, "\n")] = '\0';
    }
    if (r->xml) {
        if (r->tag)
            snprintf(buf, sizeof(buf), "<%s %s=\"%s\" rank=\"%u\"", suffix,
                     at ? "jobid" : "nspace", ns, (unsigned)src->rank);
        else
            snprintf(buf, sizeof(buf), "<%s rank=\"%u\"", suffix, (unsigned)src->rank);
        out_str(o, buf);
        if (r->stamp) {
            snprintf(buf, sizeof(buf), " timestamp=\"%s\"", stamp);
            out_str(o, buf);
        }
        out_str(o, ">");
        return;
    }
    if (r->stamp) {
        if (r->tag)
            snprintf(buf, sizeof(buf), "[%s]", stamp);
        else
            snprintf(buf, sizeof(buf), "[%s]<%s>: ", stamp, suffix);
        out_str(o, buf);
    }
    if (r->tag) {
        snprintf(buf, sizeof(buf), "[%s,%u]<%s>: ", ns, (unsigned)src->rank, suffix);
        out_str(o, buf);
    }
}

static void xml_escape(struct out *o, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char q[16];
        if (p[i] == '&')
            out_str(o, "&amp;");
        else if (p[i] == '<')
            out_str(o, "&lt;");
        else if (p[i] == '>')
            out_str(o, "&gt;");
        else if (!isprint(p[i])) {
            snprintf(q, sizeof(q), "&#%03d;", (int)p[i]);
            out_str(o, q);
        } else
            out_add(o, &p[i], 1);
    }
}

/* The chunk as the registration asked for it, into o. */
static void format_chunk(struct pull_reg *r, struct line_state *ls, const pmix_proc_t *src,
                         uint16_t ch, const char *bytes, size_t n, struct out *o)
{
    size_t i = 0;
    while (i < n) {
        const char *nl = memchr(bytes + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - bytes) + 1 : n;
        if (r->xml) { /* one element per piece of a line */
            line_head(r, src, ch, o);
            xml_escape(o, (const unsigned char *)bytes + i, end - i);
            out_str(o, "</");
            out_str(o, channel_name(ch));
            out_str(o, ">\n");
        } else {
            if (!ls->mid_line)
                line_head(r, src, ch, o);
            out_add(o, bytes + i, end - i);
        }
        ls->mid_line = !nl;
        i = end;
    }
}

/* ---- IOF_DATA from the server (progress thread) ---- */

void spx_client_iof_data(spx_buf_t *b)
{
    pmix_proc_t src;
    uint32_t id = spx_buf_pull_u32(b);
    int prc = spx_codec_pull_proc(b, &src);
    uint16_t ch = spx_buf_pull_u16(b);
    uint8_t flags = spx_buf_pull_u8(b);
    uint32_t n = spx_buf_pull_u32(b);
    if (prc != 0 || spx_buf_failed(b) || n > SPX_IOF_MAX_CHUNK || spx_buf_remaining(b) != n ||
        (ch & ~OUT_CHANNELS) || !ch || (flags & ~SPX_IOF_F_EOF)) {
        spx_warn("PMIx_IOF_pull: a malformed output frame from the server was dropped");
        return;
    }
    const char *bytes = (const char *)b->data + b->pos;
    pthread_mutex_lock(&pulls.lock);
    struct pull_reg *r;
    uint32_t from = spx_client_rx_server();
    TAILQ_FOREACH(r, &pulls.list, link)
        if (r->id == id && r->server == from && r->active && !r->removed)
            break;
    pthread_mutex_unlock(&pulls.lock); /* r is freed only on this thread */
    if (!r)
        return; /* deregistered meanwhile */
    pmix_byte_object_t bo = {.bytes = (char *)bytes, .size = n};
    struct out o = {0};
    struct line_state *ls = NULL;
    if ((r->tag || r->stamp || r->xml) && n > 0) {
        if (!(ls = line_state_of(r, &src, ch))) {
            spx_warn("PMIx_IOF_pull: out of memory: output dropped");
            return;
        }
        format_chunk(r, ls, &src, ch, bytes, n, &o);
        if (o.failed) {
            free(o.p);
            spx_warn("PMIx_IOF_pull: out of memory: output dropped");
            return;
        }
        bo.bytes = o.p;
        bo.size = o.len;
    }
    pmix_info_t info;
    bool yes = true;
    size_t ninfo = 0;
    if (flags & SPX_IOF_F_EOF) {
        PMIx_Info_load(&info, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
        ninfo = 1;
        if ((ls = line_state_of(r, &src, ch)))
            ls->mid_line = false;
    }
    if (bo.size > 0)
        r->cb(r->id, ch, &src, &bo, NULL, 0);
    if (ninfo) { /* the end of the stream: zero bytes, PMIX_IOF_COMPLETE */
        pmix_byte_object_t none = {.bytes = NULL, .size = 0};
        if (!r->removed)
            r->cb(r->id, ch, &src, &none, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    }
    free(o.p);
}

/* ---- registration ---- */

static void add_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct pull_reg *r = arg;
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (spx_buf_failed(payload) || spx_buf_finish(payload) != 0)
            status = PMIX_ERR_UNPACK_FAILURE;
    }
    pmix_hdlr_reg_cbfunc_t regcb = r->regcb;
    void *regcbdata = r->regcbdata;
    spx_wait_t *w = r->wait;
    size_t id = r->id;
    if (status == PMIX_SUCCESS) {
        pthread_mutex_lock(&pulls.lock);
        r->active = true;
        pthread_mutex_unlock(&pulls.lock);
    } else {
        reg_unlink(r);
        reg_free(r);
    }
    if (regcb)
        regcb(status, id, regcbdata);
    else
        spx_wait_signal(w, status);
}

SPX_EXPORT pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t directives[], size_t ndirs,
                                       pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                                       pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!regcbfunc && spx_progress_guard("PMIx_IOF_pull") != PMIX_SUCCESS)
        return PMIX_ERR_WOULD_BLOCK;
    if (!procs || nprocs == 0 || nprocs > SPX_IOF_MAX_SOURCES || !cbfunc || (ndirs && !directives))
        return PMIX_ERR_BAD_PARAM;
    if (channel & PMIX_FWD_STDIN_CHANNEL)
        return PMIX_ERR_NOT_SUPPORTED; /* stdin is pushed (PMIx_IOF_push), not pulled */
    if (!(channel & OUT_CHANNELS) || (channel & ~OUT_CHANNELS))
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = spx_directives_check("PMIx_IOF_pull", directives, ndirs, pull_directives);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (spx_client.singleton)
        return PMIX_ERR_UNREACH; /* no server: no output reaches this process */
    struct pull_reg *r = calloc(1, sizeof(*r));
    if (!r)
        return PMIX_ERR_NOMEM;
    r->tag = spx_info_flag(directives, ndirs, PMIX_IOF_TAG_OUTPUT);
    r->stamp = spx_info_flag(directives, ndirs, PMIX_IOF_TIMESTAMP_OUTPUT);
    r->xml = spx_info_flag(directives, ndirs, PMIX_IOF_XML_OUTPUT);
    r->cb = cbfunc;
    r->server = spx_client_primary_id(); /* a tool's primary server */
    r->regcb = regcbfunc;
    r->regcbdata = regcbdata;
    spx_wait_t w;
    if (!regcbfunc) {
        spx_wait_init(&w);
        r->wait = &w;
    }
    pthread_mutex_lock(&pulls.lock);
    r->id = pulls.next_id++;
    TAILQ_INSERT_TAIL(&pulls.list, r, link);
    pthread_mutex_unlock(&pulls.lock);
    size_t id = r->id;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_IOF_PULL_ADD);
    spx_buf_push_u32(&b, (uint32_t)id);
    spx_buf_push_u16(&b, (uint16_t)channel);
    spx_codec_push_proc_array(&b, procs, nprocs);
    rc = spx_buf_failed(&b) ? PMIX_ERR_NOMEM
                            : spx_client_request_to(r->server, SPX_MSG_IOF_PULL, &b, add_reply, r);
    if (rc != PMIX_SUCCESS) {
        spx_buf_fini(&b);
        reg_unlink(r);
        reg_free(r);
    } else if (!regcbfunc) {
        rc = spx_wait_block(&w); /* r may be gone: add_reply freed it on failure */
    }
    if (!regcbfunc)
        spx_wait_fini(&w);
    if (!regcbfunc && rc == PMIX_SUCCESS)
        return (pmix_status_t)id; /* the blocking form returns the handler's id */
    return rc;
}

/* ---- deregistration ---- */

static void remove_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    struct pull_reg *r = arg;
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (spx_buf_failed(payload) || spx_buf_finish(payload) != 0)
            status = PMIX_ERR_UNPACK_FAILURE;
    }
    if (status == PMIX_ERR_UNREACH)
        status = PMIX_SUCCESS; /* no server: nothing comes anyway */
    pmix_op_cbfunc_t cb = r->dereg_cb;
    void *cbdata = r->dereg_cbdata;
    spx_wait_t *w = r->wait;
    reg_unlink(r);
    reg_free(r);
    if (cb)
        cb(status, cbdata);
    else if (w)
        spx_wait_signal(w, status);
}

SPX_EXPORT pmix_status_t PMIx_IOF_deregister(size_t iofhdlr, const pmix_info_t directives[],
                                             size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!spx_client_initialized())
        return PMIX_ERR_INIT;
    if (!cbfunc && spx_progress_guard("PMIx_IOF_deregister") != PMIX_SUCCESS)
        return PMIX_ERR_WOULD_BLOCK;
    if (ndirs && !directives)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = spx_directives_check("PMIx_IOF_deregister", directives, ndirs, NULL);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (iofhdlr > UINT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    spx_wait_t w;
    pthread_mutex_lock(&pulls.lock);
    struct pull_reg *r;
    TAILQ_FOREACH(r, &pulls.list, link)
        if (r->id == iofhdlr && r->active && !r->removed)
            break;
    uint32_t server = r ? r->server : 0;
    if (r) {
        r->removed = true; /* no callback from now on */
        r->dereg_cb = cbfunc;
        r->dereg_cbdata = cbdata;
        r->wait = NULL;
        if (!cbfunc) {
            spx_wait_init(&w);
            r->wait = &w;
        }
    }
    pthread_mutex_unlock(&pulls.lock);
    if (!r)
        return PMIX_ERR_BAD_PARAM; /* no such handler (or deregistered already) */
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, SPX_IOF_PULL_REMOVE);
    spx_buf_push_u32(&b, (uint32_t)iofhdlr);
    spx_buf_push_u16(&b, 0);
    spx_codec_push_proc_array(&b, NULL, 0);
    rc = spx_buf_failed(&b) ? PMIX_ERR_NOMEM
                            : spx_client_request_to(server, SPX_MSG_IOF_PULL, &b, remove_reply, r);
    if (rc != PMIX_SUCCESS) {
        /* the registration stays removed (no more callbacks); freed at finalize */
        spx_buf_fini(&b);
        if (rc == PMIX_ERR_UNREACH && cbfunc) /* the server is gone: done already */
            rc = PMIX_OPERATION_SUCCEEDED;
        else if (rc == PMIX_ERR_UNREACH)
            rc = PMIX_SUCCESS;
    } else if (!cbfunc) {
        rc = spx_wait_block(&w);
    }
    if (!cbfunc)
        spx_wait_fini(&w);
    return rc;
}

/* Forgets every registration (finalize, progress thread; requests were failed first). */
void spx_client_iof_pull_clear(void)
{
    pthread_mutex_lock(&pulls.lock);
    struct pull_reg *r;
    while ((r = TAILQ_FIRST(&pulls.list))) {
        TAILQ_REMOVE(&pulls.list, r, link);
        reg_free(r);
    }
    pthread_mutex_unlock(&pulls.lock);
}
