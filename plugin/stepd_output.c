/*
 * stepd_output.c - the opt-in output tap of mpi/spmix (see stepd_output.h).
 *
 * Why a thread: slurmstepd's main thread belongs to Slurm and the library's
 * progress thread must never wait for a slow reader. The "output pump"
 * thread owns the streams (one per tapped fd of each local task), the
 * listening socket and its own poll loop:
 *   - tasks connect to output.sock, send their rank with, per tapped fd,
 *     {Slurm's descriptor, the pipe's read end} and wait for one byte;
 *   - a stream reads at most CHUNK bytes from its pipe only while nothing
 *     of it waits to be written, hands that chunk to the server
 *     (PMIx_server_IOF_deliver, which answers at once while no tool pulls),
 *     and writes it to Slurm's descriptor (non-blocking, resumed on POLLOUT):
 *     what srun gets is exactly what the task wrote, in order, and a slow
 *     srun slows the task as it does without the tap;
 *   - the pipe's end of file closes Slurm's descriptor once all is written,
 *     and the server hears PMIX_IOF_COMPLETE for the stream.
 * A chunk is freed when both its write and the server's callback are done
 * (an atomic count of two).
 *
 * Wire (task -> pump, one message, stepd_handover.h): struct hello, then 2
 * fds per stream given, stdout's first.
 */
#include "config.h"
#include "plugin/conf.h"
#include "plugin/stepd_handover.h"
#include "plugin/stepd_output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#define OUT_MAGIC 0x53504f54u      /* "SPOT" */
#define OUT_STDOUT 1u
#define OUT_STDERR 2u
#define OUT_CHUNK 65536
#define OUT_MAX_STREAMS 4096       /* 2 per local task */
#define OUT_DRAIN_SEC 5            /* stop: how long the rest may take to go out */

struct hello {
    uint32_t magic, rank, flags;
};

struct chunk {
    int refs;                      /* atomic: the write and the server's callback */
    pmix_byte_object_t bo;         /* bytes = data; borrowed by the server */
    char data[];
};

struct stream {
    pmix_proc_t source;
    pmix_iof_channel_t channel;
    int in;                        /* the pipe's read end, -1 once at its end */
    int out;                       /* Slurm's descriptor, -1 once closed */
    struct chunk *pend;            /* being written to out, or NULL */
    size_t off;
};

static struct {
    bool on, thread;
    int lfd;
    int wake[2];
    uint32_t uid;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char label[128];
    char nspace[PMIX_MAX_NSLEN + 1];
    pthread_t tid;
    int stop;                      /* atomic */
    struct stream *s;              /* the pump thread's, once started */
    size_t ns;
    bool deliver_logged, write_logged;
} O = { .lfd = -1, .wake = { -1, -1 } };

bool spx_plg_output_on(void)
{
    return O.on;
}

static void chunk_unref(struct chunk *c)
{
    if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(c);
}

/* The server no longer needs the bytes (library thread). */
static void delivered(pmix_status_t status, void *cbdata)
{
    (void)status;
    chunk_unref(cbdata);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- the pump (its own thread) ---- */

/* One task's hello on connection c (the job's user or root only). */
static void task_hello(int c)
{
    struct hello h;
    int fds[SPX_PLG_HANDOVER_MAX_FDS], nfds = 0;
    const char *why = spx_plg_handover_recv(c, O.uid, &h, sizeof(h), fds, &nfds);
    int want = 0;

    if (why == NULL) {
        want = ((h.flags & OUT_STDOUT) ? 2 : 0) + ((h.flags & OUT_STDERR) ? 2 : 0);
        if (h.magic != OUT_MAGIC || (h.flags & ~(OUT_STDOUT | OUT_STDERR)) != 0 || want == 0)
            why = "malformed request";
        else if (nfds != want)
            why = "wrong number of descriptors";
        else if (O.ns + (size_t)want / 2 > OUT_MAX_STREAMS)
            why = "too many streams";
    }
    struct stream *s = why ? NULL : realloc(O.s, (O.ns + (size_t)want / 2) * sizeof(*s));
    if (why == NULL && s == NULL)
        why = "out of memory";
    if (why == NULL) {
        O.s = s;
        int k = 0;
        for (uint32_t f = OUT_STDOUT; f <= OUT_STDERR; f <<= 1) {
            if (!(h.flags & f))
                continue;
            struct stream *t = &O.s[O.ns++];
            memset(t, 0, sizeof(*t));
            PMIX_LOAD_PROCID(&t->source, O.nspace, h.rank);
            t->channel = f == OUT_STDOUT ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL;
            t->out = fds[k];
            t->in = fds[k + 1];
            fcntl(t->in, F_SETFL, fcntl(t->in, F_GETFL) | O_NONBLOCK);
            fcntl(t->out, F_SETFL, fcntl(t->out, F_GETFL) | O_NONBLOCK);
            k += 2;
        }
        nfds = 0;   /* the streams have them */
    }
    if (why != NULL)
        spx_plg_err("%soutput: a task's request refused: %s", O.label, why);
    spx_plg_handover_reply(c, why ? 'N' : 'K');
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
}

/* The end of t's stream, for the tools that pull it (PMIX_IOF_COMPLETE). */
static void stream_deliver_eof(struct stream *t)
{
    pmix_byte_object_t bo = { .bytes = NULL, .size = 0 };
    pmix_info_t info;
    bool yes = true;

    PMIx_Info_load(&info, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);   /* a bool: nothing to free */
    PMIx_server_IOF_deliver(&t->source, t->channel, &bo, &info, 1, NULL, NULL);
}

/* Writes what waits of t's chunk; false when Slurm's side is gone. */
static bool stream_write(struct stream *t)
{
    while (t->pend != NULL) {
        ssize_t w = write(t->out, t->pend->data + t->off, t->pend->bo.size - t->off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return true;
        if (w <= 0)
            return false;
        t->off += (size_t)w;
        if (t->off == t->pend->bo.size) {
            chunk_unref(t->pend);
            t->pend = NULL;
            t->off = 0;
        }
    }
    if (t->in < 0)
        close_fd(&t->out);   /* the task's end of file, after its last byte */
    return true;
}

/* Reads one chunk of t's pipe, gives it to the server and writes it on. */
static void stream_read(struct stream *t)
{
    struct chunk *c = malloc(sizeof(*c) + OUT_CHUNK);
    ssize_t n;

    if (c == NULL)
        return;   /* retried at the next poll */
    do {
        n = read(t->in, c->data, OUT_CHUNK);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN) {
        free(c);
        return;
    }
    if (n <= 0) {
        free(c);
        close_fd(&t->in);
        if (t->pend == NULL)
            close_fd(&t->out);
        stream_deliver_eof(t);
        return;
    }
    c->bo.bytes = c->data;
    c->bo.size = (size_t)n;
    __atomic_store_n(&c->refs, 2, __ATOMIC_RELEASE);
    pmix_status_t rc = PMIx_server_IOF_deliver(&t->source, t->channel, &c->bo, NULL, 0,
                                               delivered, c);
    if (rc != PMIX_SUCCESS) {   /* no callback comes */
        if (rc != PMIX_OPERATION_SUCCEEDED && !O.deliver_logged) {
            O.deliver_logged = true;
            /* info: an error line in slurmstepd would reach the user's stderr */
            spx_plg_info("%soutput: the server does not take output (%s); srun still gets it",
                         O.label, PMIx_Error_string(rc));
        }
        chunk_unref(c);
    }
    t->pend = c;
    t->off = 0;
    if (!stream_write(t)) {
        if (!O.write_logged) {
            O.write_logged = true;
            spx_plg_err("%soutput: rank %u: Slurm's %s is gone (%s); the task's is closed",
                        O.label, t->source.rank,
                        t->channel == PMIX_FWD_STDOUT_CHANNEL ? "stdout" : "stderr",
                        strerror(errno));
        }
        chunk_unref(t->pend);
        t->pend = NULL;
        close_fd(&t->in);
        close_fd(&t->out);
    }
}

static bool all_done(void)
{
    for (size_t i = 0; i < O.ns; i++)
        if (O.s[i].in >= 0 || O.s[i].pend != NULL)
            return false;
    return true;
}

static void *pump_loop(void *arg)
{
    struct pollfd *pfd = NULL;
    size_t cap = 0;
    time_t drain_until = 0;

    (void)arg;
    for (;;) {
        bool stopping = __atomic_load_n(&O.stop, __ATOMIC_ACQUIRE);
        if (stopping) {
            if (drain_until == 0)
                drain_until = time(NULL) + OUT_DRAIN_SEC;
            if (all_done() || time(NULL) >= drain_until)
                break;
        }
        if (cap < 2 + O.ns) {
            struct pollfd *p = realloc(pfd, (2 + O.ns) * sizeof(*p));
            if (p == NULL) {
                spx_plg_err("%soutput: out of memory; the pump stops", O.label);
                break;
            }
            pfd = p;
            cap = 2 + O.ns;
        }
        pfd[0] = (struct pollfd){ .fd = O.wake[0], .events = POLLIN };
        pfd[1] = (struct pollfd){ .fd = stopping ? -1 : O.lfd, .events = POLLIN };
        for (size_t i = 0; i < O.ns; i++) {
            struct stream *t = &O.s[i];
            pfd[2 + i] = (struct pollfd){ .fd = -1 };
            if (t->pend != NULL)
                pfd[2 + i] = (struct pollfd){ .fd = t->out, .events = POLLOUT };
            else if (t->in >= 0)
                pfd[2 + i] = (struct pollfd){ .fd = t->in, .events = POLLIN };
        }
        if (poll(pfd, 2 + O.ns, stopping ? 100 : -1) < 0 && errno != EINTR) {
            spx_plg_err("%soutput: poll: %s", O.label, strerror(errno));
            break;
        }
        if (pfd[0].revents) {
            char b[64];
            while (read(O.wake[0], b, sizeof(b)) > 0)
                ;
        }
        size_t ns = O.ns;   /* a hello below may add streams */
        for (size_t i = 0; i < ns; i++) {
            struct stream *t = &O.s[i];
            if (pfd[2 + i].revents == 0)
                continue;
            if (t->pend != NULL) {
                if (!stream_write(t)) {
                    chunk_unref(t->pend);
                    t->pend = NULL;
                    close_fd(&t->in);
                    close_fd(&t->out);
                }
            } else if (t->in >= 0) {
                stream_read(t);
            }
        }
        if (pfd[1].revents & POLLIN) {
            int c = accept4(O.lfd, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0) {
                task_hello(c);
                close(c);
            }
        }
    }
    free(pfd);
    return NULL;
}

/* ---- slurmstepd: start and stop ---- */

static void output_free(void)
{
    for (size_t i = 0; i < O.ns; i++) {
        if (O.s[i].pend != NULL)
            chunk_unref(O.s[i].pend);
        close_fd(&O.s[i].in);
        close_fd(&O.s[i].out);
    }
    free(O.s);
    close_fd(&O.lfd);
    close_fd(&O.wake[0]);
    close_fd(&O.wake[1]);
    if (O.path[0] != '\0')
        unlink(O.path);
    memset(&O, 0, sizeof(O));
    O.lfd = O.wake[0] = O.wake[1] = -1;
}

int spx_plg_output_start(const char *dir, uint32_t uid, const char *nspace, const char *label)
{
    int rc;

    snprintf(O.label, sizeof(O.label), "%s", label);
    snprintf(O.nspace, sizeof(O.nspace), "%s", nspace);
    O.uid = uid;
    if (snprintf(O.path, sizeof(O.path), "%s/output.sock", dir) >= (int)sizeof(O.path)) {
        spx_plg_err("%soutput: the step directory's name is too long for a socket", label);
        O.path[0] = '\0';
        return -1;
    }
    if (pipe2(O.wake, O_CLOEXEC | O_NONBLOCK) < 0 ||
        (O.lfd = spx_plg_handover_listen(O.path, uid)) < 0) {
        spx_plg_err("%soutput: cannot listen on %s: %s", label, O.path, strerror(errno));
        output_free();
        return -1;
    }
    rc = spx_plg_handover_thread(&O.tid, pump_loop);
    if (rc != 0) {
        spx_plg_err("%soutput: cannot start the pump: %s", label, strerror(rc));
        output_free();
        return -1;
    }
    O.thread = O.on = true;
    return 0;
}

void spx_plg_output_stop(void)
{
    if (O.thread) {
        ssize_t rc;

        __atomic_store_n(&O.stop, 1, __ATOMIC_RELEASE);
        do {
            rc = write(O.wake[1], "x", 1);
        } while (rc < 0 && errno == EINTR);
        pthread_join(O.tid, NULL);
        O.thread = false;
    }
    if (O.on || O.lfd >= 0)
        output_free();
}

/* ---- the task child (as the job's user) ---- */

void spx_plg_output_task(uint32_t rank)
{
    struct hello h = { .magic = OUT_MAGIC, .rank = rank };
    int pipes[2][2] = { { -1, -1 }, { -1, -1 } }, fds[4], nfds = 0;
    const char *why = NULL;

    if (!O.on)
        return;
    for (int k = 0; k < 2; k++) {
        int fd = k + 1;
        /* a terminal (srun --pty) is left alone, and so is a closed fd */
        if (fcntl(fd, F_GETFD) < 0 || isatty(fd) == 1)
            continue;
        if (pipe2(pipes[k], O_CLOEXEC) < 0) {
            spx_plg_err("%soutput: rank %u: pipe: %s; its output goes to srun alone", O.label,
                        rank, strerror(errno));
            goto out;
        }
        h.flags |= k == 0 ? OUT_STDOUT : OUT_STDERR;
        fds[nfds++] = fd;
        fds[nfds++] = pipes[k][0];
    }
    if (nfds == 0)
        return;
    why = spx_plg_handover_send(O.path, &h, sizeof(h), fds, nfds);
    if (why != NULL)
        spx_plg_err("%soutput: rank %u: %s (%s); its output goes to srun alone", O.label, rank,
                    why, strerror(errno));
    else   /* Slurm's descriptors are in the pump now: the pipes take their place */
        for (int k = 0; k < 2; k++)
            if (pipes[k][1] >= 0 && dup2(pipes[k][1], k + 1) < 0)
                spx_plg_err("%soutput: rank %u: dup2: %s", O.label, rank, strerror(errno));
out:
    for (int k = 0; k < 2; k++)
        for (int e = 0; e < 2; e++)
            if (pipes[k][e] >= 0)
                close(pipes[k][e]);
}
