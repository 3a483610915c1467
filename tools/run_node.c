/*
 * run_node: one node of an spmix-run job (see run_node.h).
 *
 * Data flow: spx_run_node_main() describes the job (node k is "sim<k>" at
 * spx_run_node_ip(k), with the ranks run_proto places there) in one struct
 * spx_host_job, starts the server with run_host's module through
 * lib/host (plus the SPMIX_TREE_* attributes under a launcher, from that same
 * layout), registers the job's namespace from it (local_node = this node),
 * and forks the node's ranks with the environment from
 * PMIx_server_setup_fork. It then
 * loops on poll() over a signalfd (children, SIGINT/SIGTERM/SIGHUP), the wake
 * pipe the host module writes to (aborts), the launcher's control pipe and,
 * the ranks' output pipes (run_out: whole lines, unless --unbuffered without
 * --output-tap lets the ranks write to our stdout and stderr themselves) and,
 * with --stdin tool, the write ends of the ranks' stdin pipes (run_stdin:
 * bytes pushed by tools). An abort or an abnormal death
 * ends the job early: the ranks of the job are notified
 * (PMIX_ERR_PROC_ABORTED; the server relays it to the other nodes), the
 * launcher is told (END), and the local ranks get SIGTERM after a grace
 * period, then SIGKILL. When every local rank is reaped the node reports DONE
 * and, under a launcher, waits for FINISH before it tears the server down, so
 * no node leaves the tree while others still use it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "config.h"
#include "run_node.h"
#include "run_host.h"
#include "run_out.h"
#include "run_stdin.h"
#include "host/server.h"
#include "host/pmi_fd.h"

#include <pmix.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(HAVE_MALLOC_H) && defined(HAVE_MALLOC_TRIM)
#include <malloc.h>
#endif

#include "run_clock.h"

#define SPX_RUN_TERM_DELAY 0.2     /* s between notifying and SIGTERM (one node) */
#define SPX_RUN_TERM_DELAY_MN 1.0  /* the same across nodes: the event travels further */
#define SPX_RUN_KILL_GRACE 2.0     /* s between SIGTERM and SIGKILL */

extern char **environ;

struct spx_run_proc {
    uint32_t rank;
    pid_t pid;
    bool running;
};

static struct {
    const struct spx_run_node_cfg *cfg;
    const struct spx_run_opts *o;
    char tmpdir[PATH_MAX];
    char nsdir[PATH_MAX + PMIX_MAX_NSLEN + 2];
    char host[256];
    struct spx_host_job job;       /* the layout: nodes[], node_ranks, names, addrs */
    struct spx_host_node *nodes;
    pmix_rank_t *node_ranks;
    char *argv_line;               /* the program and its arguments joined by spaces */
    const char *app_argv[1];       /* PMIX_APP_ARGV of the one app: argv_line */
    char (*names)[32], (*addrs)[32];
    struct spx_run_proc *procs;    /* nlocal entries */
    uint32_t nlocal, running;
    struct spx_run_out *outs;      /* 2 per local rank when spx_run_piped() */
    int sigfd, wake[2];
    const sigset_t *oldmask;
    bool ending, termed, killed, done_sent, finish, ctl_open;
    int end_code, worst;
    double term_delay, term_at, kill_at, deadline;
    struct spx_run_msgbuf ctl;
} N = { .sigfd = -1, .wake = { -1, -1 } };

/* Messages name the node when there are several. */
#define node_msg(fmt, ...)                                                              \
    do {                                                                                \
        if (N.o->nodes > 1)                                                             \
            fprintf(stderr, "spmix-run: node %u: " fmt, N.cfg->index, ##__VA_ARGS__);   \
        else                                                                            \
            fprintf(stderr, "spmix-run: " fmt, ##__VA_ARGS__);                          \
    } while (0)

/* Does the ranks' output come through pipes (run_out)? Not with
 * --unbuffered alone: the ranks then write to our stdout and stderr. */
static bool spx_run_piped(const struct spx_run_opts *o)
{
    return o->tag || o->tap || !o->raw;
}

/* ---- the job ---- */

static void spx_run_notify_done(pmix_status_t status, void *cbdata)
{
    pmix_info_t *info = cbdata;

    (void)status;
    PMIX_INFO_FREE(info, 1);
}

/* Tell every rank of the job that rank died or aborted. */
static void spx_run_notify_aborted(uint32_t rank)
{
    pmix_proc_t proc;
    pmix_info_t *info;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&proc, N.cfg->nspace, rank);
    PMIX_INFO_CREATE(info, 1);
    if (info == NULL)
        return;
    PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROC, &proc, PMIX_PROC);
    rc = PMIx_Notify_event(PMIX_ERR_PROC_ABORTED, &proc, PMIX_RANGE_NAMESPACE, info, 1,
                           spx_run_notify_done, info);
    if (rc != PMIX_SUCCESS)
        PMIX_INFO_FREE(info, 1);
}

static void spx_run_signal_all(int sig)
{
    for (uint32_t i = 0; i < N.nlocal; i++)
        if (N.procs[i].running)
            kill(-N.procs[i].pid, sig);
}

/* End the job early with code: the ranks get SIGTERM after delay seconds,
 * then SIGKILL. The first cause wins; a local cause is reported upwards. */
static void spx_run_end(int code, double delay, bool local)
{
    if (N.ending)
        return;
    N.ending = true;
    N.end_code = code;
    N.term_at = spx_run_now() + delay;
    N.kill_at = N.term_at + SPX_RUN_KILL_GRACE;
    if (local && N.cfg->report_fd >= 0)
        spx_run_msg_send(N.cfg->report_fd, SPX_RUN_MSG_END, N.cfg->index, code);
}

static void spx_run_check_abort(void)
{
    uint32_t rank;
    int status;
    char msg[1024];

    if (!spx_run_host_take_abort(&rank, &status, msg, sizeof(msg)))
        return;
    node_msg("rank %u called PMIx_Abort with status %d: %s\n", rank, status, msg);
    if (!N.ending)
        spx_run_notify_aborted(rank);
    spx_run_end(status & 0xff, N.term_delay, true);
}

static void spx_run_reaped(struct spx_run_proc *p, int wstatus)
{
    int code = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
    bool finalized = spx_run_host_finalized(p->rank);

    p->running = false;
    N.running--;
    spx_run_stdin_rank_gone((uint32_t)(p - N.procs));
    if (N.ending)
        return;
    if ((WIFSIGNALED(wstatus) || (code != 0 && !finalized)) && N.o->keep_going) {
        /* recoverable mode: the others hear of it (events, failed
         * collectives) and go on; the job's status remembers it */
        node_msg("rank %u (pid %d) %s before PMIx_Finalize; the job goes on (--keep-going)\n",
                 p->rank, (int)p->pid, WIFSIGNALED(wstatus) ? "was killed" : "exited");
        spx_run_notify_aborted(p->rank);
        if (code > N.worst)
            N.worst = code ? code : 1;
        return;
    }
    if (WIFSIGNALED(wstatus) || (code != 0 && !finalized)) {
        if (WIFSIGNALED(wstatus))
            node_msg("rank %u (pid %d) was killed by signal %d (%s); ending the job\n", p->rank,
                     (int)p->pid, WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
        else
            node_msg("rank %u (pid %d) exited with status %d before PMIx_Finalize; "
                     "ending the job\n", p->rank, (int)p->pid, code);
        spx_run_notify_aborted(p->rank);
        spx_run_end(code, N.term_delay, true);
        return;
    }
    if (code > N.worst)
        N.worst = code;
}

static void spx_run_reap(void)
{
    int wstatus;
    pid_t pid;

    spx_run_check_abort();   /* an abort's status wins over the exit it causes */
    while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
        for (uint32_t i = 0; i < N.nlocal; i++)
            if (N.procs[i].running && N.procs[i].pid == pid) {
                spx_run_reaped(&N.procs[i], wstatus);
                break;
            }
    }
}

/* Drain the signalfd: children and termination requests. */
static void spx_run_signals(void)
{
    struct signalfd_siginfo si;

    while (read(N.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGCHLD) {
            spx_run_reap();
        } else if (!N.ending) {
            node_msg("received signal %u (%s); ending the job\n", si.ssi_signo,
                     strsignal((int)si.ssi_signo));
            spx_run_end(128 + (int)si.ssi_signo, 0, true);
        }
    }
    spx_run_reap();   /* signals coalesce: never miss a child */
}

static void spx_run_ctl_msg(const struct spx_run_msg *m, void *arg)
{
    (void)arg;
    if (m->type == SPX_RUN_MSG_END)
        spx_run_end(m->b, m->a ? 0 : N.term_delay, false);
    else if (m->type == SPX_RUN_MSG_FINISH)
        N.finish = true;
}

static void spx_run_ctl(void)
{
    if (spx_run_msg_recv(N.cfg->ctl_fd, &N.ctl, spx_run_ctl_msg, NULL) == 0) {
        N.ctl_open = false;
        N.finish = true;
        if (N.running > 0 && !N.ending)
            node_msg("the launcher is gone; ending the job\n");
        spx_run_end(1, 0, false);
    }
}

static void spx_run_timers(void)
{
    double now = spx_run_now();

    if (!N.ending && N.deadline > 0 && now >= N.deadline) {
        node_msg("timeout of %g s reached; ending the job\n", N.o->timeout);
        spx_run_end(SPX_RUN_TIMEOUT_CODE, 0, true);
    }
    if (N.ending && !N.termed && now >= N.term_at) {
        N.termed = true;
        spx_run_signal_all(SIGTERM);
    }
    if (N.ending && !N.killed && now >= N.kill_at) {
        N.killed = true;
        spx_run_signal_all(SIGKILL);
    }
}

static int spx_run_poll_ms(void)
{
    double now = spx_run_now(), next = -1;

    if (!N.ending && N.deadline > 0)
        next = N.deadline;
    if (N.ending && !N.termed)
        next = N.term_at;
    else if (N.ending && !N.killed)
        next = N.kill_at;
    if (next < 0)
        return -1;
    return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

/* True once the local part of the job is over (ranks reaped, output drained
 * or given up on). */
static bool spx_run_local_over(double *drain_until)
{
    size_t nouts = spx_run_piped(N.o) ? 2 * (size_t)N.nlocal : 0;
    bool outs_open = false;

    if (N.running > 0)
        return false;
    for (size_t i = 0; i < nouts; i++)
        outs_open |= N.outs[i].fd >= 0;
    if (!outs_open)
        return true;
    /* output still open after the last exit (a grandchild?): wait briefly */
    if (*drain_until == 0)
        *drain_until = spx_run_now() + 1.0;
    return spx_run_now() >= *drain_until;
}

/* pfd: 3 + (number of output streams) + spx_run_stdin_npoll() entries, the
 * caller's. */
static void spx_run_loop(struct pollfd *pfd)
{
    size_t nouts = spx_run_piped(N.o) ? 2 * (size_t)N.nlocal : 0, nfds, in_at;
    double drain_until = 0;

    for (;;) {
        int ms;

        if (spx_run_local_over(&drain_until)) {
            if (!N.done_sent && N.cfg->report_fd >= 0)
                spx_run_msg_send(N.cfg->report_fd, SPX_RUN_MSG_DONE, N.cfg->index,
                                 N.ending ? N.end_code : N.worst);
            N.done_sent = true;
            if (N.cfg->ctl_fd < 0 || N.finish)
                break;
        }
        nfds = 0;
        pfd[nfds++] = (struct pollfd){ .fd = N.sigfd, .events = POLLIN };
        pfd[nfds++] = (struct pollfd){ .fd = N.wake[0], .events = POLLIN };
        pfd[nfds++] = (struct pollfd){ .fd = N.ctl_open ? N.cfg->ctl_fd : -1, .events = POLLIN };
        for (size_t i = 0; i < nouts; i++)
            pfd[nfds++] = (struct pollfd){ .fd = N.outs[i].fd, .events = POLLIN };
        in_at = nfds;
        spx_run_stdin_poll_fill(&pfd[in_at]);
        nfds += spx_run_stdin_npoll();
        ms = spx_run_poll_ms();
        if (N.running == 0 && !N.done_sent)
            ms = 100;
        if (spx_run_stdin_poll_ms() >= 0 && (ms < 0 || spx_run_stdin_poll_ms() < ms))
            ms = spx_run_stdin_poll_ms();   /* a buffered block's time is up */
        if (poll(pfd, nfds, ms) < 0 && errno != EINTR)
            break;
        if (pfd[1].revents) {
            char b[64];
            while (read(N.wake[0], b, sizeof(b)) > 0)
                ;
            spx_run_check_abort();
        }
        for (size_t i = 0; i < nouts; i++)
            if (pfd[3 + i].revents)
                spx_run_out_pump(&N.outs[i]);
        spx_run_stdin_service(&pfd[in_at]);   /* pushes queued, pipes writable */
        if (pfd[0].revents)
            spx_run_signals();
        if (pfd[2].revents)
            spx_run_ctl();
        spx_run_timers();
    }
    for (size_t i = 0; i < nouts; i++)
        spx_run_out_close(&N.outs[i]);
}

/* ---- starting the ranks ---- */

static size_t spx_run_namelen(const char *kv)
{
    const char *eq = strchr(kv, '=');

    return eq ? (size_t)(eq - kv) : strlen(kv);
}

/* The child's environment: ours, with -x VAR=VALUE and then the PMIx
 * variables (pmixenv) replacing entries of the same name. The array is the
 * caller's to free(); the strings stay borrowed. */
static char **spx_run_env(char **pmixenv)
{
    size_t nbase = 0, nadd = 0, n = 0, nx = N.o->nx;
    char **add, **env;

    while (environ[nbase] != NULL)
        nbase++;
    while (pmixenv != NULL && pmixenv[nadd] != NULL)
        nadd++;
    add = calloc(nx + nadd + 1, sizeof(char *));
    env = calloc(nbase + nx + nadd + 1, sizeof(char *));
    if (add == NULL || env == NULL) {
        free(add);
        free(env);
        return NULL;
    }
    for (size_t i = 0; i < nx; i++)   /* -x VAR alone: inherited already */
        if (strchr(N.o->xvars[i], '=') != NULL)
            add[n++] = N.o->xvars[i];
    for (size_t i = 0; i < nadd; i++)
        add[n++] = pmixenv[i];
    nadd = n;
    n = 0;
    for (size_t i = 0; i < nbase; i++) {
        size_t l = spx_run_namelen(environ[i]);
        bool replaced = false;
        for (size_t k = 0; k < nadd && !replaced; k++)
            replaced = spx_run_namelen(add[k]) == l && strncmp(add[k], environ[i], l) == 0;
        if (!replaced)
            env[n++] = environ[i];
    }
    for (size_t k = 0; k < nadd; k++) {   /* a later duplicate wins */
        size_t l = spx_run_namelen(add[k]);
        bool later = false;
        for (size_t j = k + 1; j < nadd && !later; j++)
            later = spx_run_namelen(add[j]) == l && strncmp(add[j], add[k], l) == 0;
        if (!later)
            env[n++] = add[k];
    }
    free(add);
    return env;
}

static int spx_run_spawn(struct spx_run_proc *p, size_t slot)
{
    pmix_status_t rc;
    char **pmixenv = NULL, **env;
    int out[2] = { -1, -1 }, err[2] = { -1, -1 };
    int in = spx_run_stdin_child_fd((uint32_t)slot);   /* -1: inherit ours */
    bool piped = spx_run_piped(N.o);   /* the output comes through pipes */
    pid_t pid;

    rc = spx_host_setup_client(N.cfg->nspace, p->rank, geteuid(), getegid(), 0, &pmixenv);
    if (rc != PMIX_SUCCESS) {
        node_msg("cannot set up rank %u: %s\n", p->rank, PMIx_Error_string(rc));
        spx_host_env_free(pmixenv);
        return -1;
    }
    env = spx_run_env(pmixenv);
    if (env == NULL || (piped && (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0))) {
        node_msg("cannot start a rank: %s\n", strerror(errno));
        free(env);
        spx_host_env_free(pmixenv);
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, N.oldmask, NULL);
        if (N.o->nofile_raised)   /* the ranks get the user's limit back */
            setrlimit(RLIMIT_NOFILE, &N.o->nofile);
        if (in == 0 ? fcntl(0, F_SETFD, 0) < 0 : in > 0 && dup2(in, 0) < 0)
            _exit(127);
        if (piped && (dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0))
            _exit(127);
        if (!piped && N.cfg->rank_err != 2 && dup2(N.cfg->rank_err, 2) < 0)
            _exit(127);
        environ = env;
        if (spx_host_pmi_fd_keep(env) != 0)
            dprintf(2, "spmix-run: rank %u keeps no PMI_FD\n", p->rank);
        execvp(N.o->argv[0], N.o->argv);
        dprintf(2, "spmix-run: cannot execute %s: %s\n", N.o->argv[0], strerror(errno));
        _exit(127);
    }
    free(env);
    spx_host_env_free(pmixenv);
    spx_run_stdin_spawned((uint32_t)slot, pid > 0);
    if (piped) {
        close(out[1]);
        close(err[1]);
    }
    if (pid < 0) {
        node_msg("fork: %s\n", strerror(errno));
        if (piped) {
            close(out[0]);
            close(err[0]);
        }
        return -1;
    }
    setpgid(pid, pid);   /* also here: no race with an early kill(-pid) */
    p->pid = pid;
    p->running = true;
    N.running++;
    if (N.cfg->report_fd >= 0)
        spx_run_msg_send(N.cfg->report_fd, SPX_RUN_MSG_SPAWNED, p->rank, (int32_t)pid);
    if (piped) {
        spx_run_out_init(&N.outs[2 * slot], out[0], 1, p->rank, N.o->tag, !N.o->raw,
                         N.o->tap, N.cfg->nspace, PMIX_FWD_STDOUT_CHANNEL);
        spx_run_out_init(&N.outs[2 * slot + 1], err[0], N.cfg->rank_err, p->rank, N.o->tag,
                         !N.o->raw, N.o->tap, N.cfg->nspace, PMIX_FWD_STDERR_CHANNEL);
    }
    return 0;
}

/* ---- the server ---- */

static int spx_run_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* The job as lib/host sees it: node k is "sim<k>" (the host name with one
 * node) at spx_run_node_addr(k), with the ranks run_proto puts there. */
static int spx_run_describe_job(void)
{
    const struct spx_run_opts *o = N.o;
    size_t used = 0;

    N.nodes = calloc(o->nodes, sizeof(*N.nodes));
    N.node_ranks = calloc(o->n, sizeof(*N.node_ranks));
    N.names = calloc(o->nodes, sizeof(*N.names));
    N.addrs = calloc(o->nodes, sizeof(*N.addrs));
    if (N.nodes == NULL || N.node_ranks == NULL || N.names == NULL || N.addrs == NULL)
        return -1;
    snprintf(N.host, sizeof(N.host), "localhost");
    gethostname(N.host, sizeof(N.host) - 1);
    for (uint32_t k = 0; k < o->nodes; k++) {
        uint32_t nr = spx_run_node_ranks(o, k, (uint32_t *)&N.node_ranks[used]);
        snprintf(N.names[k], sizeof(N.names[k]), "sim%u", k);
        spx_run_node_addr(k, N.cfg->port, N.addrs[k], sizeof(N.addrs[k]));
        N.nodes[k] = (struct spx_host_node){ .hostname = o->nodes > 1 ? N.names[k] : N.host,
                                             .addr = N.cfg->port ? N.addrs[k] : NULL,
                                             .ranks = &N.node_ranks[used], .nranks = nr };
        used += nr;
    }
    /* the command line, as PRRTE registers it: tools read it (the process
     * table's executable, PMIX_QUERY_NAMESPACE_INFO's PMIX_CMD_LINE) */
    if ((N.argv_line = spx_host_argv_join(o->argv)) == NULL)
        return -1;
    N.app_argv[0] = N.argv_line;
    /* spmix-run's allocation is its nodes, each of which holds ranks */
    N.job = (struct spx_host_job){ .nspace = N.cfg->nspace, .job_size = o->n, .nodes = N.nodes,
                                   .nnodes = o->nodes, .local_node = N.cfg->index,
                                   .alloc_nnodes = o->nodes, .tdir_rmclean = true,
                                   .mapby = o->cyclic ? "node" : "slot",
                                   .app_argv = N.app_argv };
    return 0;
}

static int spx_run_server_start(void)
{
    const char *td = getenv("TMPDIR");
    /* tools (spmix-push, PMIx_tool_init) find the job in $TMPDIR or /tmp.
     * Every node's server accepts them, as every slurmstepd does, through a
     * rendezvous file named after its own process (the parent of its ranks).
     * With simulated nodes (children of spmix-run) those files name the
     * launcher, and node 0's server is also found under spmix-run's pid, the
     * one its user knows and a tool naming no server is led to; pushes reach
     * the other nodes through the servers' tree */
    uint32_t launcher = N.cfg->report_fd >= 0 ? (uint32_t)getppid() : 0;
    struct spx_host_server_cfg sc = { .tmpdir = N.tmpdir, .local_fences = true,
                                      .hwloc_topology = N.cfg->hwloc_topology,
                                      .system_tmpdir = td && *td ? td : "/tmp",
                                      .tool_support = true, .launcher_pid = launcher,
                                      .rendezvous_pid = N.cfg->index == 0 ? launcher : 0 };
    pmix_status_t rc;

    snprintf(N.tmpdir, sizeof(N.tmpdir), "%s/spmix-run.%d.XXXXXX", td && *td ? td : "/tmp",
             (int)getpid());
    if (mkdtemp(N.tmpdir) == NULL) {
        node_msg("cannot create a directory %s: %s\n", N.tmpdir, strerror(errno));
        N.tmpdir[0] = '\0';
        return -1;
    }
    snprintf(N.nsdir, sizeof(N.nsdir), "%s/%s", N.tmpdir, N.cfg->nspace);
    N.job.tmpdir = N.tmpdir;
    N.job.nsdir = N.nsdir;
    /* local fences: run_host's fence_nb only hands the data back */
    if (N.cfg->port != 0) {
        sc.tree_job = &N.job;
        sc.secret = N.cfg->secret;
        sc.secret_len = SPX_RUN_SECRET_LEN;
        sc.width = N.o->width;
        sc.timeout = 30;
    }
    rc = spx_host_server_start(spx_run_host_module(), &sc);
    if (rc != PMIX_SUCCESS) {
        node_msg("PMIx_server_init failed: %s\n", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* The layout served the registration and the tree's start only: a node
 * server keeps nothing per node of the job beyond what the library holds. */
static void spx_run_forget_layout(void)
{
    free(N.nodes);
    free(N.node_ranks);
    free(N.names);
    free(N.addrs);
    N.nodes = NULL;
    N.node_ranks = NULL;
    N.names = NULL;
    N.addrs = NULL;
    N.job.nodes = NULL;
    N.job.nnodes = 0;
}

/* Register the whole job (the layout of spx_run_describe_job). */
static int spx_run_register_job(void)
{
    pmix_status_t rc = spx_host_register_job(&N.job, 0);

    if (rc != PMIX_SUCCESS) {
        node_msg("cannot register the job: %s\n", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* Tear the server down; a library that does not answer within a few
 * seconds is left alone (the process exits anyway) rather than waited for. */
static void spx_run_server_stop(bool registered)
{
    if (registered) {
        if (spx_host_deregister_job(N.cfg->nspace, 5) == PMIX_ERR_TIMEOUT) {
            node_msg("the PMIx server did not release the job within 5 s; "
                     "exiting without finalizing it\n");
            return;
        }
    }
    PMIx_server_finalize();
}

static int spx_run_setup_fds(void)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    N.sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (N.sigfd < 0 || pipe2(N.wake, O_CLOEXEC | O_NONBLOCK) < 0)
        return -1;
    return 0;
}

int spx_run_node_main(const struct spx_run_node_cfg *cfg, const void *oldmask)
{
    struct pollfd *pfd = NULL;
    uint32_t *local = NULL;
    bool server = false, registered = false, piped;
    int code = 1;
    char prefix[48];

    N.cfg = cfg;
    N.o = cfg->o;
    N.oldmask = oldmask;
    N.ctl_open = cfg->ctl_fd >= 0;
    N.term_delay = N.o->nodes > 1 ? SPX_RUN_TERM_DELAY_MN : SPX_RUN_TERM_DELAY;
    if (N.o->nodes > 1)
        snprintf(prefix, sizeof(prefix), "spmix-run: node %u: ", cfg->index);
    else
        snprintf(prefix, sizeof(prefix), "spmix-run: ");
    local = calloc(N.o->n, sizeof(*local));
    if (local == NULL)
        goto out;
    N.nlocal = spx_run_node_ranks(N.o, cfg->index, local);
    N.procs = calloc(N.nlocal ? N.nlocal : 1, sizeof(*N.procs));
    piped = spx_run_piped(N.o);
    N.outs = calloc(piped ? 2 * (size_t)N.nlocal : 1, sizeof(*N.outs));
    pfd = calloc(3 + (piped ? 2 * (size_t)N.nlocal : 0) + N.nlocal, sizeof(*pfd));
    if (N.procs == NULL || N.outs == NULL || pfd == NULL || spx_run_setup_fds() < 0) {
        node_msg("setup: %s\n", strerror(errno));
        goto out;
    }
    for (uint32_t i = 0; i < N.nlocal; i++)
        N.procs[i].rank = local[i];
    for (size_t i = 0; piped && i < 2 * (size_t)N.nlocal; i++)
        N.outs[i].fd = -1;
    if (spx_run_describe_job() < 0) {
        node_msg("setup: %s\n", strerror(errno));
        goto out;
    }
    if (spx_run_host_init(cfg->nspace, N.o->n, N.wake[1]) < 0)
        goto out;
    if (spx_run_stdin_init(N.o->stdin_tool, cfg->nspace, N.o->n, local, N.nlocal, N.wake[1],
                           prefix) < 0)
        goto out;
    if (spx_run_server_start() < 0)
        goto out;
    server = true;
    if (spx_run_register_job() < 0)
        goto out;
    registered = true;
    spx_run_forget_layout();
#if defined(HAVE_MALLOC_H) && defined(HAVE_MALLOC_TRIM)
    /* building and storing the job's information (every node's and rank's)
     * and loading the topology peak at several times what stays: give the
     * free pages back, a node server is one of thousands with --nodes */
    malloc_trim(0);
#endif
    if (N.o->timeout > 0 && cfg->ctl_fd < 0)   /* under a launcher, it keeps the time */
        N.deadline = spx_run_now() + N.o->timeout;
    for (uint32_t i = 0; i < N.nlocal; i++) {
        if (spx_run_spawn(&N.procs[i], i) < 0) {
            spx_run_end(1, 0, true);
            break;
        }
    }
    spx_run_loop(pfd);
    code = N.ending ? N.end_code : N.worst;
out:
    if (!N.done_sent && cfg->report_fd >= 0)   /* failed before the loop */
        spx_run_msg_send(cfg->report_fd, SPX_RUN_MSG_END, cfg->index, code);
    spx_run_stdin_close();   /* no push left waiting once the server goes */
    if (server)
        spx_run_server_stop(registered);
    spx_run_stdin_fini();
    spx_run_host_fini();
    if (N.tmpdir[0] != '\0')
        nftw(N.tmpdir, spx_run_rm, 16, FTW_DEPTH | FTW_PHYS);
    free(pfd);
    free(local);
    free(N.procs);
    free(N.outs);
    free(N.nodes);
    free(N.node_ranks);
    free(N.argv_line);
    free(N.names);
    free(N.addrs);
    return code;
}
