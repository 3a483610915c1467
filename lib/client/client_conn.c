/* client_conn.c - this process's connections to its servers: requests out,
 * replies and unprompted frames in.
 *
 * An application client has one server; a tool may hold several (attached
 * one after another, client_tool.c). Each is a struct spx_server in
 * spx_client.servers: the writing side is our dup of the socket (send_fd,
 * written under spx_client.lock from any thread: no thread hop for a
 * request), the reading side an spx_conn on the progress thread. One of
 * them is the primary: spx_client_request sends there; the few requests
 * bound to a server (a push's later chunks, a pull's deregistration) name
 * it with spx_client_request_to. Every request waits in spx_client.pending
 * under its number and its server's id; a reply is matched on both.
 * EVENT and IOF_DATA frames of every connection are delivered. When a
 * connection ends (lost, or closed on purpose) the requests pending on it
 * answer PMIX_ERR_UNREACH, its record goes, and if it was the primary the
 * oldest other server takes its place (none left: requests answer
 * PMIX_ERR_UNREACH); a loss not asked for raises PMIX_ERR_LOST_CONNECTION.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "client/client.h"
#include "client/client_remote.h"
#include "progress/progress.h"
#include "proto/msg.h"
#include "util/log.h"

#define SPX_SEND_TIMEOUT_MS 30000

/* ---- requests ---- */

/* Writes one whole frame on fd (non-blocking socket), waiting for room when the
 * socket is full. Called with spx_client.lock held. 0 or -1. MSG_NOSIGNAL: a
 * server that went away is an error of the call (EPIPE), never a SIGPIPE that
 * kills the application. */
static int write_frame(int fd, uint8_t type, uint32_t seq, const spx_buf_t *payload)
{
    spx_frame_hdr_t h = {.version = SPX_FRAME_VERSION, .type = type, .flags = 0, .seq = seq,
                         .length = (uint32_t)payload->len};
    uint8_t hdr[SPX_FRAME_HDR_LEN];
    spx_frame_hdr_encode(&h, hdr);
    struct iovec iov[2] = {{hdr, sizeof(hdr)}, {payload->data, payload->len}};
    int n = payload->len ? 2 : 1, i = 0;
    while (i < n) {
        struct msghdr m = {.msg_iov = iov + i, .msg_iovlen = (size_t)(n - i)};
        ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return -1;
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            if (poll(&pfd, 1, SPX_SEND_TIMEOUT_MS) <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            continue;
        }
        while (i < n && (size_t)w >= iov[i].iov_len) {
            w -= (ssize_t)iov[i].iov_len;
            i++;
        }
        if (i < n) {
            iov[i].iov_base = (uint8_t *)iov[i].iov_base + w;
            iov[i].iov_len -= (size_t)w;
        }
    }
    return 0;
}

static struct spx_pending *pending_take_locked(uint32_t seq, uint32_t server)
{
    struct spx_pending *p;
    TAILQ_FOREACH(p, &spx_client.pending, link) {
        if (p->seq == seq && p->server == server) {
            TAILQ_REMOVE(&spx_client.pending, p, link);
            return p;
        }
    }
    return NULL;
}

static struct spx_server *server_find_locked(uint32_t id)
{
    for (size_t i = 0; i < spx_client.nservers; i++)
        if (spx_client.servers[i]->id == id)
            return spx_client.servers[i];
    return NULL;
}

/* Sends to srv_id, or to the primary when by_id is false. */
static pmix_status_t request(bool by_id, uint32_t srv_id, uint8_t type, spx_buf_t *payload,
                             spx_reply_f fn, void *arg)
{
    struct spx_pending *p = NULL;
    if (fn && !(p = calloc(1, sizeof(*p)))) {
        spx_buf_fini(payload);
        return PMIX_ERR_NOMEM;
    }
    pthread_mutex_lock(&spx_client.lock);
    struct spx_server *srv = by_id ? server_find_locked(srv_id) : spx_client.primary;
    if (!srv) {
        pthread_mutex_unlock(&spx_client.lock);
        free(p);
        spx_buf_fini(payload);
        return PMIX_ERR_UNREACH;
    }
    uint32_t seq = ++spx_client.next_seq;
    if (seq == 0)
        seq = ++spx_client.next_seq;
    if (p) { /* registered before sending: the reply may come at once */
        p->seq = seq;
        p->server = srv->id;
        p->fn = fn;
        p->arg = arg;
        TAILQ_INSERT_HEAD(&spx_client.pending, p, link);
    }
    int rc = write_frame(srv->send_fd, type, seq, payload);
    if (rc != 0 && spx_client.tool && errno == EPIPE) /* the job ended: a tool's normal */
        spx_info("cannot send %s to the PMIx server: it has ended", spx_msg_type_str(type));
    else if (rc != 0)
        spx_error("cannot send %s to the PMIx server: %s", spx_msg_type_str(type),
                  strerror(errno));
    if (rc != 0 && p)
        free(pending_take_locked(seq, srv->id));
    pthread_mutex_unlock(&spx_client.lock);
    spx_buf_fini(payload);
    return rc == 0 ? PMIX_SUCCESS : PMIX_ERR_UNREACH;
}

pmix_status_t spx_client_request(uint8_t type, spx_buf_t *payload, spx_reply_f fn, void *arg)
{
    return request(false, 0, type, payload, fn, arg);
}

pmix_status_t spx_client_request_to(uint32_t server, uint8_t type, spx_buf_t *payload,
                                    spx_reply_f fn, void *arg)
{
    return request(true, server, type, payload, fn, arg);
}

uint32_t spx_client_primary_id(void)
{
    pthread_mutex_lock(&spx_client.lock);
    uint32_t id = spx_client.primary ? spx_client.primary->id : 0;
    pthread_mutex_unlock(&spx_client.lock);
    return id;
}

/* ---- frames in ---- */

uint32_t spx_client_rx_server(void)
{
    return spx_client.rx ? spx_client.rx->id : 0;
}

void spx_client_conn_fail(const char *reason)
{
    if (spx_client.rx && spx_client.rx->conn)
        spx_conn_close(spx_client.rx->conn, reason, 1);
}

static void on_frame(spx_conn_t *c, const spx_frame_hdr_t *h, spx_buf_t *payload, void *arg)
{
    struct spx_server *srv = arg;
    spx_client.rx = srv; /* cleared by on_close if the handler closes srv */
    if (h->flags & SPX_FRAME_F_REPLY) {
        pthread_mutex_lock(&spx_client.lock);
        struct spx_pending *p = pending_take_locked(h->seq, srv->id);
        pthread_mutex_unlock(&spx_client.lock);
        if (!p)
            spx_conn_close(c, "reply to an unknown request", 1);
        else {
            p->fn(PMIX_SUCCESS, payload, p->arg);
            free(p);
        }
    } else {
        spx_client_frame_f fn = spx_client_frame_handler(h->type);
        if (fn)
            fn(payload);
        else
            spx_conn_close(c, "unexpected message from the server", 1);
    }
    spx_client.rx = NULL;
}

/* The end of srv's connection (lost, or closed on purpose): srv leaves the
 * list (another becomes the primary), its pending requests fail, srv is
 * freed. */
static void on_close(spx_conn_t *c, const char *reason, void *arg)
{
    (void)c;
    struct spx_server *srv = arg;
    TAILQ_HEAD(, spx_pending) list = TAILQ_HEAD_INITIALIZER(list);
    pthread_mutex_lock(&spx_client.lock);
    size_t k = 0;
    for (size_t i = 0; i < spx_client.nservers; i++)
        if (spx_client.servers[i] != srv)
            spx_client.servers[k++] = spx_client.servers[i];
    spx_client.nservers = k;
    if (spx_client.primary == srv)
        spx_client.primary = k ? spx_client.servers[0] : NULL;
    struct spx_pending *p, *next;
    for (p = TAILQ_FIRST(&spx_client.pending); p; p = next) {
        next = TAILQ_NEXT(p, link);
        if (p->server == srv->id) {
            TAILQ_REMOVE(&spx_client.pending, p, link);
            TAILQ_INSERT_TAIL(&list, p, link);
        }
    }
    close(srv->send_fd);
    srv->send_fd = -1;
    bool none = spx_client.primary == NULL;
    pthread_mutex_unlock(&spx_client.lock);
    srv->conn = NULL;
    if (spx_client.rx == srv)
        spx_client.rx = NULL;
    if (none) {
        spx_client.conn_lost = true;
        if (spx_client.shmb) /* direct fence waiters look at conn_lost */
            spx_shmb_wake_all(spx_client.shmb);
    }
    while ((p = TAILQ_FIRST(&list)) != NULL) {
        TAILQ_REMOVE(&list, p, link);
        p->fn(PMIX_ERR_UNREACH, NULL, p->arg);
        free(p);
    }
    if (!srv->quiet && spx_client.tool) { /* a tool outlives the jobs it looks at */
        spx_info("the PMIx server %s:%u closed the connection: %s", srv->proc.nspace,
                 srv->proc.rank, reason);
        spx_client_lost(&srv->proc);
    } else if (!srv->quiet) {
        spx_error("lost connection to the PMIx server: %s", reason);
        spx_client_lost(NULL);
    }
    free(srv->path);
    free(srv);
}

/* ---- adding and closing servers ---- */

struct add_req {
    spx_wait_t wait;
    int fd;
    struct spx_server *srv;
    bool make_primary;
    uint32_t id;
};

static void add_on_thread(void *arg)
{
    struct add_req *r = arg;
    struct spx_server *srv = r->srv;
    char label[PMIX_MAX_NSLEN + 48];
    if (srv->proc.nspace[0])
        snprintf(label, sizeof(label), "server %s:%u", srv->proc.nspace, srv->proc.rank);
    else
        snprintf(label, sizeof(label), "server of %s.%u", spx_client.myproc.nspace,
                 spx_client.myproc.rank);
    pthread_mutex_lock(&spx_client.lock);
    bool full = spx_client.nservers == SPX_CLIENT_MAX_SERVERS;
    pthread_mutex_unlock(&spx_client.lock);
    int send_fd = full ? -1 : dup(r->fd);
    if (send_fd < 0) {
        close(r->fd);
        spx_wait_signal(&r->wait, full ? PMIX_ERR_OUT_OF_RESOURCE : PMIX_ERR_UNREACH);
        return;
    }
    srv->conn = spx_conn_create(spx_progress_base(), r->fd, label, on_frame, on_close, srv);
    if (!srv->conn) {
        close(send_fd);
        spx_wait_signal(&r->wait, PMIX_ERR_UNREACH);
        return;
    }
    pthread_mutex_lock(&spx_client.lock);
    srv->id = r->id = ++spx_client.next_server_id;
    srv->send_fd = send_fd;
    spx_client.servers[spx_client.nservers++] = srv;
    if (r->make_primary || !spx_client.primary)
        spx_client.primary = srv;
    pthread_mutex_unlock(&spx_client.lock);
    spx_client.conn_lost = false;
    r->srv = NULL; /* the list owns it */
    spx_wait_signal(&r->wait, PMIX_SUCCESS);
}

pmix_status_t spx_client_server_add(int fd, const pmix_proc_t *proc, const char *path,
                                    bool make_primary, uint32_t *id)
{
    struct add_req r = {.fd = fd, .make_primary = make_primary};
    struct stat st;
    if (!(r.srv = calloc(1, sizeof(*r.srv))) || (path && !(r.srv->path = strdup(path)))) {
        free(r.srv);
        close(fd);
        return PMIX_ERR_NOMEM;
    }
    r.srv->send_fd = -1;
    if (proc)
        r.srv->proc = *proc;
    if (path && !spx_client_remote_uri(path) && stat(path, &st) == 0) {
        r.srv->dev = st.st_dev;
        r.srv->ino = st.st_ino;
        r.srv->have_ino = true;
    }
    spx_wait_init(&r.wait);
    spx_progress_shift(add_on_thread, &r); /* fd owned by it now */
    pmix_status_t rc = spx_wait_block(&r.wait);
    spx_wait_fini(&r.wait);
    if (rc == PMIX_SUCCESS && id)
        *id = r.id;
    if (r.srv) {
        free(r.srv->path);
        free(r.srv);
    }
    return rc;
}

static void finalize_reply(pmix_status_t status, spx_buf_t *payload, void *arg)
{
    spx_wait_t *w = arg;
    if (status == PMIX_SUCCESS) {
        status = spx_buf_pull_i32(payload);
        if (spx_buf_failed(payload))
            status = PMIX_ERR_UNPACK_FAILURE;
    }
    spx_wait_signal(w, status);
}

struct close_req {
    spx_wait_t wait;
    uint32_t id;
};

static void close_server(struct spx_server *srv, const char *reason)
{
    srv->quiet = true;
    spx_conn_close_final(srv->conn, reason); /* on_close frees srv; the server sees EOF */
}

static void close_on_thread(void *arg)
{
    struct close_req *r = arg;
    pthread_mutex_lock(&spx_client.lock);
    struct spx_server *srv = server_find_locked(r->id);
    pthread_mutex_unlock(&spx_client.lock); /* the list changes only on this thread */
    if (srv)
        close_server(srv, spx_client.init_count ? "the tool disconnected" : "finalize");
    spx_wait_signal(&r->wait, PMIX_SUCCESS);
}

pmix_status_t spx_client_server_close(uint32_t id)
{
    spx_wait_t w;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_wait_init(&w);
    pmix_status_t rc = spx_client_request_to(id, SPX_MSG_FINALIZE, &b, finalize_reply, &w);
    if (rc == PMIX_SUCCESS) /* the server forgets us in order */
        rc = spx_wait_block(&w);
    spx_wait_fini(&w);
    struct close_req r = {.id = id};
    spx_wait_init(&r.wait);
    spx_progress_shift(close_on_thread, &r);
    (void)spx_wait_block(&r.wait);
    spx_wait_fini(&r.wait);
    return rc;
}

void spx_client_servers_close_all(void)
{
    while (spx_client.nservers) /* on_close takes each off the list */
        close_server(spx_client.servers[0], "finalize");
}

/* ---- lookups for the tool API ---- */

uint32_t spx_client_server_by_proc(const pmix_proc_t *proc)
{
    uint32_t id = 0;
    pthread_mutex_lock(&spx_client.lock);
    for (size_t i = 0; !id && i < spx_client.nservers; i++)
        if (PMIX_CHECK_PROCID(&spx_client.servers[i]->proc, proc))
            id = spx_client.servers[i]->id;
    pthread_mutex_unlock(&spx_client.lock);
    return id;
}

uint32_t spx_client_server_by_path(const char *path, pmix_proc_t *proc)
{
    struct stat st;
    bool have_ino = !spx_client_remote_uri(path) && stat(path, &st) == 0;
    uint32_t id = 0;
    pthread_mutex_lock(&spx_client.lock);
    for (size_t i = 0; !id && i < spx_client.nservers; i++) {
        const struct spx_server *s = spx_client.servers[i];
        bool same = have_ino && s->have_ino ? s->dev == st.st_dev && s->ino == st.st_ino
                                            : s->path && strcmp(s->path, path) == 0;
        if (same) {
            id = s->id;
            if (proc)
                *proc = s->proc;
        }
    }
    pthread_mutex_unlock(&spx_client.lock);
    return id;
}

pmix_status_t spx_client_server_set_primary(uint32_t id)
{
    pthread_mutex_lock(&spx_client.lock);
    struct spx_server *srv = server_find_locked(id);
    if (srv)
        spx_client.primary = srv;
    pthread_mutex_unlock(&spx_client.lock);
    return srv ? PMIX_SUCCESS : PMIX_ERR_UNREACH;
}

pmix_status_t spx_client_servers_list(pmix_proc_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&spx_client.lock);
    size_t cnt = spx_client.nservers;
    pmix_proc_t *a = cnt ? calloc(cnt, sizeof(*a)) : NULL;
    if (a) {
        size_t k = 0;
        a[k++] = spx_client.primary->proc; /* any server listed: a primary exists */
        for (size_t i = 0; i < cnt; i++)
            if (spx_client.servers[i] != spx_client.primary)
                a[k++] = spx_client.servers[i]->proc;
    }
    pthread_mutex_unlock(&spx_client.lock);
    if (cnt && !a)
        return PMIX_ERR_NOMEM;
    *out = a;
    *n = cnt;
    return PMIX_SUCCESS;
}
