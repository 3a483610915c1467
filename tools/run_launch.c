/*
 * run_launch: the multi-node launcher of spmix-run (see run_launch.h).
 *
 * Data flow: spx_run_launch() picks the tree port and the secret, then
 * forks one daemon per node. A daemon inherits the secret in memory, gets a
 * report pipe (daemon -> launcher), a control pipe (launcher -> daemon) and a
 * pipe for its own stderr (its ranks write to the launcher's stderr directly).
 * The launcher's loop polls a signalfd (children, SIGINT/SIGTERM/SIGHUP), the
 * report pipes and the stderr pipes:
 *   - SPAWNED records remember each rank's pid, so the ranks of a daemon that
 *     dies can still be killed (by process group);
 *   - END (or a daemon dying, a signal, the timeout) ends the job: the first
 *     cause sets the exit code and every node is told END;
 *   - when every node has reported DONE (or is dead) every node is told FINISH;
 *     the job is over when every daemon is reaped.
 * Safety nets: ranks and daemons still there long after the job ended are
 * killed (SIGKILL to their process groups, by pid).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "run_launch.h"
#include "run_clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Safety nets, longer with more nodes (each node's end takes some cpu, and
 * the nodes share the machine's few cores): */
#define SPX_LAUNCH_KILL_AFTER 6.0     /* s after END: SIGKILL whatever is left */
#define SPX_LAUNCH_FINISH_GRACE 15.0  /* s after FINISH: SIGKILL daemons left */
#define SPX_LAUNCH_GRACE_PER_NODE 0.05 /* s added to both per node past the first 100 */
#define SPX_LAUNCH_WINDOW_PER_CPU 8   /* daemons starting at once, per online cpu */
#define SPX_LAUNCH_WINDOW_MIN 16      /* ... and at least this many */

struct spx_launch_daemon {
    pid_t pid;                     /* 0: not forked yet */
    int rep_fd, ctl_fd, err_fd;
    uint32_t nspawned;             /* SPAWNED records so far */
    bool started;                  /* every rank forked (or it failed, or ended) */
    bool reaped, done;
    struct spx_run_msgbuf mb;
    size_t errlen;
    char errbuf[2048];
};

static struct {
    const struct spx_run_opts *o;
    const char *nspace;            /* borrowed from the caller */
    const void *oldmask;           /* borrowed from the caller */
    uint16_t port;
    unsigned char secret[SPX_RUN_SECRET_LEN];   /* wiped once every daemon is forked */
    uint32_t next, window;         /* the next node to fork; how many may be starting */
    struct spx_launch_daemon *d;
    hwloc_topology_t topo;         /* loaded once, inherited by every daemon; or NULL */
    pid_t *rank_pid;               /* [n], 0 until SPAWNED */
    char **stats;                  /* [nodes] the node's stats line, or NULL */
    int sigfd;
    bool ending, finishing;
    int end_code, worst;
    double deadline, kill_at, finish_kill_at;
    double kill_after, finish_grace; /* the safety nets for this many nodes */
} L;

/* ---- setup ---- */

/* A port free on every node's address (spx_run_node_ip: each node listens at
 * its own). Returns the port or 0. */
static uint16_t spx_launch_pick_port(uint32_t nodes)
{
    for (int attempt = 0; attempt < 32; attempt++) {
        struct sockaddr_in sa = { .sin_family = AF_INET };
        socklen_t len = sizeof(sa);
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
        uint16_t port = 0;
        bool ok = true;

        if (s < 0)
            return 0;
        sa.sin_addr.s_addr = htonl(INADDR_ANY);
        if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
            getsockname(s, (struct sockaddr *)&sa, &len) == 0)
            port = ntohs(sa.sin_port);
        close(s);
        if (port == 0)
            continue;
        for (uint32_t k = 0; k < nodes && ok; k++) {
            s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sa.sin_addr.s_addr = htonl(spx_run_node_ip(k));
            sa.sin_port = htons(port);
            ok = s >= 0 && setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
                 bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
            if (s >= 0)
                close(s);
        }
        if (ok)
            return port;
    }
    return 0;
}

static int spx_launch_secret(unsigned char *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = getrandom(buf + got, len - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

/* The machine's topology, discovered once here (as a node server would, with
 * the I/O devices Open MPI keeps) and inherited by every daemon, whose server
 * then uses it (PMIX_TOPOLOGY2) instead of discovering it again: on few
 * cores a thousand discoveries took longer than everything else the servers
 * do to start. NULL (each server discovers, or shares none) when it fails or
 * SPMIX_SHARE_TOPOLOGY=0. */
static hwloc_topology_t spx_launch_topology(void)
{
    const char *e = getenv("SPMIX_SHARE_TOPOLOGY");
    hwloc_topology_t t;

    if ((e && strcmp(e, "0") == 0) || hwloc_topology_init(&t) != 0)
        return NULL;
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return NULL;
    }
    return t;
}

static void spx_launch_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* In the daemon, right after fork: drop the launcher's ends of every pipe
 * (a daemon holding another's control pipe would hide the launcher's death). */
static void spx_launch_child_fds(uint32_t upto)
{
    for (uint32_t j = 0; j < upto; j++) {
        close(L.d[j].rep_fd);
        close(L.d[j].ctl_fd);
        close(L.d[j].err_fd);
    }
    close(L.sigfd);
}

/* In a forked daemon: drop its copy of the launcher's per-node and per-rank
 * tables (about 2 KB a node, mostly each daemon's error buffer), so that a
 * node server holds, and shows in its resident memory, nothing of the
 * launcher that grows with the job. */
static void spx_launch_child_release(void)
{
    free(L.d);
    L.d = NULL;
    free(L.rank_pid);
    L.rank_pid = NULL;
    for (uint32_t j = 0; L.stats && j < L.o->nodes; j++)
        free(L.stats[j]);
    free(L.stats);
    L.stats = NULL;
}

static int spx_launch_fork(uint32_t k)
{
    struct spx_launch_daemon *d = &L.d[k];
    int rep[2], ctl[2], err[2];
    pid_t pid;

    if (pipe2(rep, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(ctl, O_CLOEXEC) < 0) {
        close(rep[0]);
        close(rep[1]);
        return -1;
    }
    if (pipe2(err, O_CLOEXEC) < 0) {
        close(rep[0]);
        close(rep[1]);
        close(ctl[0]);
        close(ctl[1]);
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        struct spx_run_node_cfg cfg = {
            .o = L.o, .index = k, .nspace = L.nspace, .port = L.port, .secret = L.secret,
            .report_fd = rep[1], .ctl_fd = ctl[0], .hwloc_topology = L.topo,
        };
        setpgid(0, 0);
        spx_launch_child_fds(k);
        spx_launch_child_release();
        close(rep[0]);
        close(ctl[1]);
        close(err[0]);
        cfg.rank_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
        if (cfg.rank_err < 0 || dup2(err[1], 2) < 0)
            _exit(1);
        close(err[1]);
        spx_launch_nonblock(ctl[0]);
        exit(spx_run_node_main(&cfg, L.oldmask));
    }
    close(rep[1]);
    close(ctl[0]);
    close(err[1]);
    if (pid < 0) {
        close(rep[0]);
        close(ctl[1]);
        close(err[0]);
        return -1;
    }
    setpgid(pid, pid);
    spx_launch_nonblock(rep[0]);
    spx_launch_nonblock(err[0]);
    *d = (struct spx_launch_daemon){ .pid = pid, .rep_fd = rep[0], .ctl_fd = ctl[1],
                                     .err_fd = err[0] };
    return 0;
}

/* A node that will never start: nothing to wait for. */
static void spx_launch_never(uint32_t k)
{
    L.d[k] = (struct spx_launch_daemon){ .pid = -1, .rep_fd = -1, .ctl_fd = -1, .err_fd = -1,
                                         .started = true, .reaped = true, .done = true };
}

static void spx_launch_end(int code, bool now);

/* Fork daemons in node order (a parent in the tree starts before its
 * children) while fewer than L.window of them are starting: a daemon counts
 * as starting until it has reported every rank SPAWNED (or ended). Many
 * servers starting at once on few cores would starve each other (the tree's
 * handshakes have a deadline). Once the job ends, the rest never start. */
static void spx_launch_start_more(void)
{
    uint32_t starting = 0;

    if (L.next >= L.o->nodes)
        return;
    for (uint32_t k = 0; k < L.next; k++)
        starting += !L.d[k].started;
    while (L.next < L.o->nodes && !L.ending && starting < L.window) {
        if (spx_launch_fork(L.next) < 0) {
            perror("spmix-run: cannot start a node daemon");
            spx_launch_end(1, true);
            break;
        }
        L.next++;
        starting++;
    }
    if (L.ending)
        while (L.next < L.o->nodes)
            spx_launch_never(L.next++);
    if (L.next >= L.o->nodes)
        explicit_bzero(L.secret, sizeof(L.secret));
}

/* ---- ending ---- */

static void spx_launch_tell_all(uint32_t type, uint32_t a, int32_t b)
{
    for (uint32_t k = 0; k < L.o->nodes; k++)
        if (!L.d[k].reaped && L.d[k].ctl_fd >= 0)
            spx_run_msg_send(L.d[k].ctl_fd, type, a, b);
}

/* End the job with code (the first cause wins); now: signal ranks at once. */
static void spx_launch_end(int code, bool now)
{
    if (L.ending)
        return;
    L.ending = true;
    L.end_code = code;
    L.kill_at = spx_run_now() + L.kill_after;
    spx_launch_tell_all(SPX_RUN_MSG_END, now ? 1 : 0, code);
}

static void spx_launch_kill_ranks(uint32_t node, int sig)
{
    for (uint32_t r = 0; r < L.o->n; r++)
        if (L.rank_pid[r] > 0 && (node == UINT32_MAX || spx_run_node_of(L.o, r) == node))
            kill(-L.rank_pid[r], sig);
}

static void spx_launch_kill_everything(void)
{
    spx_launch_kill_ranks(UINT32_MAX, SIGKILL);
    for (uint32_t k = 0; k < L.o->nodes; k++)
        if (!L.d[k].reaped && L.d[k].pid > 0)
            kill(-L.d[k].pid, SIGKILL);
}

/* ---- events ---- */

static void spx_launch_report(const struct spx_run_msg *m, void *arg)
{
    uint32_t k = *(const uint32_t *)arg;

    switch (m->type) {
    case SPX_RUN_MSG_SPAWNED:
        if (m->a < L.o->n && spx_run_node_of(L.o, m->a) == k) {
            L.rank_pid[m->a] = (pid_t)m->b;
            L.d[k].started |= ++L.d[k].nspawned >= spx_run_node_count(L.o, k);
        }
        break;
    case SPX_RUN_MSG_END:
        L.d[k].started = true;
        spx_launch_end(m->b, false);
        break;
    case SPX_RUN_MSG_DONE:
        L.d[k].started = true;
        L.d[k].done = true;
        if (m->b > L.worst)
            L.worst = m->b;
        break;
    default:
        fprintf(stderr, "spmix-run: node %u sent an unknown record %u; ignored\n", k, m->type);
    }
}

/* One line of a daemon's stderr: a stats line is kept for the summary. */
static void spx_launch_err_line(uint32_t k, const char *line, size_t len)
{
    static const char pfx[] = "spmix stats node ";

    if (len >= sizeof(pfx) - 1 && memcmp(line, pfx, sizeof(pfx) - 1) == 0) {
        free(L.stats[k]);
        L.stats[k] = strndup(line, len);
        return;
    }
    fwrite(line, 1, len, stderr);
    fputc('\n', stderr);
    fflush(stderr);
}

static void spx_launch_err(uint32_t k)
{
    struct spx_launch_daemon *d = &L.d[k];
    ssize_t n;

    while ((n = read(d->err_fd, d->errbuf + d->errlen, sizeof(d->errbuf) - d->errlen)) > 0) {
        size_t start = 0;
        char *nl;

        d->errlen += (size_t)n;
        while ((nl = memchr(d->errbuf + start, '\n', d->errlen - start)) != NULL) {
            spx_launch_err_line(k, d->errbuf + start, (size_t)(nl - (d->errbuf + start)));
            start = (size_t)(nl - d->errbuf) + 1;
        }
        if (start == 0 && d->errlen == sizeof(d->errbuf)) {   /* overlong line */
            spx_launch_err_line(k, d->errbuf, d->errlen);
            start = d->errlen;
        }
        memmove(d->errbuf, d->errbuf + start, d->errlen - start);
        d->errlen -= start;
    }
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        if (d->errlen > 0)
            spx_launch_err_line(k, d->errbuf, d->errlen);
        d->errlen = 0;
        close(d->err_fd);
        d->err_fd = -1;
    }
}

static void spx_launch_reaped(uint32_t k, int ws)
{
    struct spx_launch_daemon *d = &L.d[k];
    bool expected = L.finishing;

    d->reaped = true;
    d->done = true;
    d->started = true;
    if (d->ctl_fd >= 0)
        close(d->ctl_fd);
    d->ctl_fd = -1;
    if (!expected)   /* its ranks lost their server: do not leave them behind */
        spx_launch_kill_ranks(k, SIGKILL);
    if (expected || L.ending)
        return;
    if (L.o->keep_going) {
        /* recoverable mode: the other nodes see the node lost and go on */
        fprintf(stderr, "spmix-run: the daemon of node %u (pid %d) ended before the job; "
                        "the job goes on without it (--keep-going)\n", k, (int)d->pid);
        if (L.worst == 0)
            L.worst = 1;
        return;
    }
    if (WIFSIGNALED(ws))
        fprintf(stderr, "spmix-run: the daemon of node %u (pid %d) was killed by signal %d (%s); "
                        "ending the job\n", k, (int)d->pid, WTERMSIG(ws), strsignal(WTERMSIG(ws)));
    else
        fprintf(stderr, "spmix-run: the daemon of node %u (pid %d) exited with status %d "
                        "before the job ended; ending the job\n", k, (int)d->pid,
                WEXITSTATUS(ws));
    spx_launch_end(WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : (WEXITSTATUS(ws) ? WEXITSTATUS(ws) : 1),
                   false);
}

static void spx_launch_signals(void)
{
    struct signalfd_siginfo si;
    int ws;
    pid_t pid;

    while (read(L.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo != SIGCHLD && !L.ending) {
            fprintf(stderr, "spmix-run: received signal %u (%s); ending the job\n",
                    si.ssi_signo, strsignal((int)si.ssi_signo));
            spx_launch_end(128 + (int)si.ssi_signo, true);
        }
    }
    while ((pid = waitpid(-1, &ws, WNOHANG)) > 0)
        for (uint32_t k = 0; k < L.o->nodes; k++)
            if (!L.d[k].reaped && L.d[k].pid == pid) {
                /* read what it reported before it went (END, DONE) first */
                spx_run_msg_recv(L.d[k].rep_fd, &L.d[k].mb, spx_launch_report, &k);
                spx_launch_reaped(k, ws);
                break;
            }
}

static void spx_launch_timers(void)
{
    double now = spx_run_now();
    bool all_done = true;

    if (!L.ending && L.deadline > 0 && now >= L.deadline) {
        fprintf(stderr, "spmix-run: timeout of %g s reached; ending the job\n", L.o->timeout);
        spx_launch_end(SPX_RUN_TIMEOUT_CODE, true);
    }
    if (L.ending && L.kill_at > 0 && now >= L.kill_at) {
        L.kill_at = 0;
        spx_launch_kill_everything();
    }
    for (uint32_t k = 0; k < L.o->nodes; k++)
        all_done &= L.d[k].done;
    if (all_done && !L.finishing) {
        L.finishing = true;
        L.finish_kill_at = now + L.finish_grace;
        spx_launch_tell_all(SPX_RUN_MSG_FINISH, 0, 0);
    }
    if (L.finishing && L.finish_kill_at > 0 && now >= L.finish_kill_at) {
        L.finish_kill_at = 0;
        fprintf(stderr, "spmix-run: node daemons did not exit %g s after the job ended; "
                        "killing them\n", L.finish_grace);
        spx_launch_kill_everything();
    }
}

static int spx_launch_poll_ms(void)
{
    double now = spx_run_now(), next = now + 1.0;

    if (!L.ending && L.deadline > 0 && L.deadline < next)
        next = L.deadline;
    if (L.ending && L.kill_at > 0 && L.kill_at < next)
        next = L.kill_at;
    return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

static void spx_launch_loop(struct pollfd *pfd)
{
    uint32_t m = L.o->nodes;

    for (;;) {
        bool any = false;

        for (uint32_t k = 0; k < m; k++)
            any |= !L.d[k].reaped || L.d[k].err_fd >= 0;
        if (!any)
            break;
        pfd[0] = (struct pollfd){ .fd = L.sigfd, .events = POLLIN };
        for (uint32_t k = 0; k < m; k++) {
            pfd[1 + k] = (struct pollfd){ .fd = L.d[k].rep_fd, .events = POLLIN };
            pfd[1 + m + k] = (struct pollfd){ .fd = L.d[k].err_fd, .events = POLLIN };
        }
        if (poll(pfd, 1 + 2 * (nfds_t)m, spx_launch_poll_ms()) < 0 && errno != EINTR)
            break;
        for (uint32_t k = 0; k < m; k++) {
            if (pfd[1 + k].revents &&
                spx_run_msg_recv(L.d[k].rep_fd, &L.d[k].mb, spx_launch_report, &k) == 0) {
                close(L.d[k].rep_fd);
                L.d[k].rep_fd = -1;
            }
            if (pfd[1 + m + k].revents)
                spx_launch_err(k);
        }
        if (pfd[0].revents)
            spx_launch_signals();
        spx_launch_start_more();
        spx_launch_timers();
    }
}

/* The "spmix stats node N: ..." lines in node order, then the totals. */
static void spx_launch_print_stats(void)
{
    unsigned long long c, msg, b, tm = 0, tb = 0, cmax = 0;
    unsigned node;
    uint32_t seen = 0;

    for (uint32_t k = 0; k < L.o->nodes; k++) {
        if (L.stats[k] == NULL) {
            fprintf(stderr, "spmix-run: stats: node %u reported nothing\n", k);
            continue;
        }
        fprintf(stderr, "spmix-run: %s\n", L.stats[k]);
        if (sscanf(L.stats[k], "spmix stats node %u: colls %llu msgs %llu bytes %llu", &node,
                   &c, &msg, &b) == 4) {
            seen++;
            tm += msg;
            tb += b;
            cmax = c > cmax ? c : cmax;
        }
    }
    fprintf(stderr, "spmix-run: stats total: nodes %u colls %llu msgs %llu bytes %llu\n", seen,
            cmax, tm, tb);
}

int spx_run_launch(const struct spx_run_opts *o, const char *nspace, const void *oldmask)
{
    struct pollfd *pfd = NULL;
    sigset_t set;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int code = 1;

    L.o = o;
    L.kill_after = SPX_LAUNCH_KILL_AFTER;
    L.finish_grace = SPX_LAUNCH_FINISH_GRACE;
    if (o->nodes > 100) {
        L.kill_after += SPX_LAUNCH_GRACE_PER_NODE * (o->nodes - 100);
        L.finish_grace += SPX_LAUNCH_GRACE_PER_NODE * (o->nodes - 100);
    }
    L.nspace = nspace;
    L.oldmask = oldmask;
    L.window = cpus > 0 && (uint32_t)cpus * SPX_LAUNCH_WINDOW_PER_CPU > SPX_LAUNCH_WINDOW_MIN
                   ? (uint32_t)cpus * SPX_LAUNCH_WINDOW_PER_CPU
                   : SPX_LAUNCH_WINDOW_MIN;
    L.d = calloc(o->nodes, sizeof(*L.d));
    L.rank_pid = calloc(o->n, sizeof(*L.rank_pid));
    L.stats = calloc(o->nodes, sizeof(*L.stats));
    pfd = calloc(1 + 2 * (size_t)o->nodes, sizeof(*pfd));
    if (L.d == NULL || L.rank_pid == NULL || L.stats == NULL || pfd == NULL) {
        perror("spmix-run: setup");
        goto out;
    }
    for (uint32_t k = 0; k < o->nodes; k++)   /* not forked yet */
        L.d[k] = (struct spx_launch_daemon){ .rep_fd = -1, .ctl_fd = -1, .err_fd = -1 };
    if (spx_launch_secret(L.secret, sizeof(L.secret)) < 0) {
        perror("spmix-run: getrandom");
        goto out;
    }
    L.port = spx_launch_pick_port(o->nodes);
    if (L.port == 0) {
        char last[32];
        spx_run_node_addr(o->nodes - 1, 0, last, sizeof(last));
        *strrchr(last, ':') = '\0';
        fprintf(stderr, "spmix-run: no TCP port is free on 127.0.0.1..%s\n", last);
        goto out;
    }
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    L.sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (L.sigfd < 0) {
        perror("spmix-run: signalfd");
        goto out;
    }
    if (o->stats)
        setenv("SPMIX_STATS", "1", 1);
    L.topo = spx_launch_topology();
    if (o->timeout > 0)
        L.deadline = spx_run_now() + o->timeout;
    spx_launch_start_more();
    spx_launch_loop(pfd);
    code = L.ending ? L.end_code : L.worst;
    if (o->stats)
        spx_launch_print_stats();
out:
    explicit_bzero(L.secret, sizeof(L.secret));
    for (uint32_t k = 0; L.d != NULL && k < o->nodes; k++) {
        if (L.d[k].rep_fd > 0)
            close(L.d[k].rep_fd);
        if (L.d[k].ctl_fd > 0)
            close(L.d[k].ctl_fd);
    }
    for (uint32_t k = 0; L.stats != NULL && k < o->nodes; k++)
        free(L.stats[k]);
    free(L.stats);
    /* L.topo is not destroyed, here nor in the daemons that inherit it (as a
     * server keeps its own to the end): destroying the last topology makes
     * hwloc unload its plugins, and what those allocated is then reported
     * as leaked (ASan); the process ends right after */
    free(L.d);
    free(L.rank_pid);
    free(pfd);
    return code;
}
