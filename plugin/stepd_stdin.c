/*
 * stepd_stdin.c - the opt-in stdin of mpi/spmix (see stepd_stdin.h).
 *
 * Why a thread: in slurmstepd the library's progress thread runs the host's
 * upcalls and must never wait for a task to read its pipe, and slurmstepd's
 * main thread belongs to Slurm. The "stdin pump" thread owns the per-rank
 * caches (lib/host/stdin.c), the listening socket and its own poll loop:
 *   - tasks connect to stdin.sock, send their rank and wait for one byte;
 *   - tools' pushes arrive through the push_stdin upcall (library thread),
 *     which queues them and writes one byte to the wake pipe;
 *   - a rank's cache is written into the pipe its fd 0 reads while the pipe
 *     takes it.
 * Which pipe: when the task's fd 0 is the pipe Slurm feeds with srun's
 * bytes (the usual case), the task keeps it and the pump writes pushed bytes
 * into that same pipe, through a duplicate of Slurm's write end that it
 * finds in slurmstepd by the pipe's inode (SHARE): srun's bytes take no
 * extra hop at all, and the task reads end of file once Slurm closed its end
 * (srun's EOF) and the pump closed its own (a pushed EOF). Otherwise (fd 0
 * is /dev/null or a file, or Slurm's end is gone already) the task hands fd
 * 0 and the write end of a new pipe to the pump (SCM_RIGHTS) and reads the
 * pipe: the pump copies fd 0's bytes into it (spliced while no push waits)
 * beside the pushed ones. A terminal (srun --pty) is only reported.
 * srun's EOF ends that source only; a rank's stdin ends with a pushed EOF
 * (zero-byte push or PMIX_IOF_COMPLETE), or when the rank closes it or exits.
 *
 * Wire (task -> pump, one message, stepd_handover.h): struct
 * spx_plg_stdin_hello, with two fds for a hand-over of fd 0, none for
 * SHARE or TTY.
 */
#include "config.h"
#include "plugin/conf.h"
#include "plugin/stepd_handover.h"
#include "plugin/stepd_stdin.h"
#include "host/stdin.h"

#include <dirent.h>
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
#include <unistd.h>

#define SPX_PLG_STDIN_MAGIC 0x53504d49u   /* "SPMI" */
#define SPX_PLG_STDIN_TTY 1u
#define SPX_PLG_STDIN_SHARE 2u            /* write into fd 0's pipe (ino, dev) */

struct spx_plg_stdin_hello {
    uint32_t magic, rank, flags;
    uint32_t pad;
    uint64_t ino, dev;                    /* SHARE: the pipe fd 0 reads */
};

static struct {
    bool on, thread;
    int lfd;                    /* listening socket */
    int wake[2];                /* [1]: written by the upcall and by stop */
    uint32_t uid;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char label[128];
    pthread_t tid;
    int stop;                   /* atomic */
} P = { .lfd = -1, .wake = { -1, -1 } };

static void spx_plg_stdin_log(const char *line)
{
    spx_plg_err("%s", line);
}

bool spx_plg_stdin_on(void)
{
    return P.on;
}

/* ---- the pump (its own thread) ---- */

/* A duplicate (close-on-exec) of this process's write end of the pipe
 * (ino, dev), or -1 when it has none open. */
static int spx_plg_stdin_pipe_writer(uint64_t ino, uint64_t dev)
{
    struct stat st;
    int found = -1;
    DIR *d = opendir("/proc/self/fd");

    if (d == NULL)
        return -1;
    for (struct dirent *e; found < 0 && (e = readdir(d)) != NULL;) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end != '\0' || end == e->d_name || fd < 0 || fd == dirfd(d))
            continue;
        if (fstat((int)fd, &st) != 0 || !S_ISFIFO(st.st_mode) || (uint64_t)st.st_ino != ino ||
            (uint64_t)st.st_dev != dev)
            continue;
        int fl = fcntl((int)fd, F_GETFL);
        if (fl >= 0 && (fl & O_ACCMODE) == O_WRONLY)
            found = fcntl((int)fd, F_DUPFD_CLOEXEC, 3);
    }
    closedir(d);
    return found;
}

/* One task's hello on connection c (the job's user or root only). */
static void spx_plg_stdin_hello(int c)
{
    struct spx_plg_stdin_hello h;
    int fds[SPX_PLG_HANDOVER_MAX_FDS], nfds = 0, slot = -1;
    const char *why = spx_plg_handover_recv(c, P.uid, &h, sizeof(h), fds, &nfds);

    if (why == NULL && h.magic != SPX_PLG_STDIN_MAGIC)
        why = "malformed request";
    else if (why == NULL && (slot = spx_host_stdin_slot(h.rank)) < 0)
        why = "not a rank of this node";
    else if (why == NULL && (h.flags & SPX_PLG_STDIN_TTY))
        spx_host_stdin_set_tty((uint32_t)slot);
    else if (why == NULL && (h.flags & SPX_PLG_STDIN_SHARE)) {
        int w = nfds == 0 ? spx_plg_stdin_pipe_writer(h.ino, h.dev) : -1;
        if (w < 0)
            why = "no write end of its pipe here";   /* the task hands fd 0 over instead */
        else if (spx_host_stdin_attach((uint32_t)slot, w, -1) != 0)
            why = "the rank's stdin is taken already";
    } else if (why == NULL && nfds != 2)
        why = "no descriptors";
    else if (why == NULL && spx_host_stdin_attach((uint32_t)slot, fds[1], fds[0]) != 0)
        why = "the rank's stdin is taken already";
    else if (why == NULL)
        nfds = 0;   /* the module has them */
    if (why != NULL && !(h.flags & SPX_PLG_STDIN_SHARE))
        spx_plg_err("%sstdin: a task's request refused: %s", P.label, why);
    spx_plg_handover_reply(c, why ? 'N' : 'K');
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
}

static void *spx_plg_stdin_loop(void *arg)
{
    size_t n = spx_host_stdin_npoll();
    struct pollfd *pfd = calloc(2 + n, sizeof(*pfd));

    (void)arg;
    if (pfd == NULL) {
        spx_plg_err("%sstdin: out of memory; the pump stops", P.label);
        return NULL;
    }
    while (!__atomic_load_n(&P.stop, __ATOMIC_ACQUIRE)) {
        pfd[0] = (struct pollfd){ .fd = P.wake[0], .events = POLLIN };
        pfd[1] = (struct pollfd){ .fd = P.lfd, .events = POLLIN };
        spx_host_stdin_poll_fill(&pfd[2]);
        if (poll(pfd, 2 + n, spx_host_stdin_poll_ms()) < 0 && errno != EINTR) {
            spx_plg_err("%sstdin: poll: %s", P.label, strerror(errno));
            break;
        }
        if (pfd[0].revents) {
            char b[64];
            while (read(P.wake[0], b, sizeof(b)) > 0)
                ;
        }
        if (__atomic_load_n(&P.stop, __ATOMIC_ACQUIRE))
            break;
        if (pfd[1].revents & POLLIN) {
            int c = accept4(P.lfd, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0) {
                spx_plg_stdin_hello(c);
                close(c);
            }
        }
        spx_host_stdin_service(&pfd[2]);
    }
    free(pfd);
    return NULL;
}

/* ---- slurmstepd: start and stop ---- */

int spx_plg_stdin_start(const char *dir, uint32_t uid, const char *nspace, uint32_t nprocs,
                        const uint32_t *local, uint32_t nlocal, const char *label)
{
    struct spx_host_stdin_cfg cfg = { .nspace = nspace, .nprocs = nprocs, .local = local,
                                      .nlocal = nlocal, .prefix = label,
                                      .log = spx_plg_stdin_log };
    int rc;

    snprintf(P.label, sizeof(P.label), "%s", label);
    P.uid = uid;
    if (snprintf(P.path, sizeof(P.path), "%s/stdin.sock", dir) >= (int)sizeof(P.path)) {
        spx_plg_err("%sstdin: the step directory's name is too long for a socket", label);
        return -1;
    }
    if (pipe2(P.wake, O_CLOEXEC | O_NONBLOCK) < 0 ||
        (P.lfd = spx_plg_handover_listen(P.path, uid)) < 0) {
        spx_plg_err("%sstdin: cannot listen on %s: %s", label, P.path, strerror(errno));
        spx_plg_stdin_fini();
        return -1;
    }
    cfg.wake_fd = P.wake[1];
    if (spx_host_stdin_init(&cfg) != 0) {
        spx_plg_stdin_fini();
        return -1;
    }
    rc = spx_plg_handover_thread(&P.tid, spx_plg_stdin_loop);
    if (rc != 0) {
        spx_plg_err("%sstdin: cannot start the pump: %s", label, strerror(rc));
        spx_plg_stdin_fini();
        return -1;
    }
    P.thread = P.on = true;
    return 0;
}

void spx_plg_stdin_stop(void)
{
    if (P.thread) {
        ssize_t rc;

        __atomic_store_n(&P.stop, 1, __ATOMIC_RELEASE);
        do {
            rc = write(P.wake[1], "x", 1);
        } while (rc < 0 && errno == EINTR);
        pthread_join(P.tid, NULL);
        P.thread = false;
    }
    spx_host_stdin_close();   /* held pushes: UNREACH; later ones refused */
}

void spx_plg_stdin_fini(void)
{
    spx_plg_stdin_stop();
    spx_host_stdin_fini();
    if (P.lfd >= 0)
        close(P.lfd);
    for (int i = 0; i < 2; i++)
        if (P.wake[i] >= 0)
            close(P.wake[i]);
    if (P.path[0] != '\0')
        unlink(P.path);
    memset(&P, 0, sizeof(P));
    P.lfd = P.wake[0] = P.wake[1] = -1;
}

/* ---- the task child (as the job's user) ---- */

static int spx_plg_stdin_hand_over(uint32_t rank, bool tty, int pw, const char **why)
{
    struct spx_plg_stdin_hello h = { .magic = SPX_PLG_STDIN_MAGIC, .rank = rank,
                                     .flags = tty ? SPX_PLG_STDIN_TTY : 0 };
    int fds[2] = { 0, pw };

    *why = spx_plg_handover_send(P.path, &h, sizeof(h), fds, tty ? 0 : 2);
    return *why ? -1 : 0;
}

/* fd 0 is a pipe: asks the pump to write into it beside Slurm. 0 when the
 * pump took it (fd 0 stays as it is). */
static int spx_plg_stdin_share(uint32_t rank, const struct stat *st)
{
    struct spx_plg_stdin_hello h = { .magic = SPX_PLG_STDIN_MAGIC, .rank = rank,
                                     .flags = SPX_PLG_STDIN_SHARE,
                                     .ino = (uint64_t)st->st_ino, .dev = (uint64_t)st->st_dev };

    return spx_plg_handover_send(P.path, &h, sizeof(h), NULL, 0) == NULL ? 0 : -1;
}

void spx_plg_stdin_task(uint32_t rank)
{
    const char *why = NULL;
    int p[2] = { -1, -1 };
    struct stat st;
    bool tty;

    if (!P.on)
        return;
    if (fstat(0, &st) < 0) {
        spx_plg_err("%sstdin: rank %u has no fd 0; left as it is", P.label, rank);
        return;
    }
    tty = isatty(0) == 1;
    if (!tty && S_ISFIFO(st.st_mode) && spx_plg_stdin_share(rank, &st) == 0)
        return;   /* the pump writes into Slurm's own pipe */
    if (!tty && pipe2(p, O_CLOEXEC) < 0) {
        spx_plg_err("%sstdin: rank %u: pipe: %s; its stdin stays srun's alone", P.label, rank,
                    strerror(errno));
        return;
    }
    if (spx_plg_stdin_hand_over(rank, tty, p[1], &why) != 0)
        spx_plg_err("%sstdin: rank %u: %s (%s); its stdin stays %s", P.label, rank, why,
                    strerror(errno), tty ? "the terminal" : "srun's alone");
    else if (!tty && dup2(p[0], 0) < 0)   /* fd 0 is in the pump now: without it, nothing */
        spx_plg_err("%sstdin: rank %u: dup2: %s", P.label, rank, strerror(errno));
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
}
