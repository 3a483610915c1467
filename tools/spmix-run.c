/*
 * spmix-run: launch N processes of one program on this machine under an
 * embedded PMIx server, without Slurm.
 *
 * Data flow: main() parses options, blocks the signals it handles (before
 * the PMIx library starts its threads, so only signalfd sees them), starts
 * the server with run_host's module, registers one namespace built by
 * run_jobinfo, and forks the ranks with the environment from
 * PMIx_server_setup_fork. The main thread then loops on poll() over a
 * signalfd (children, SIGINT/SIGTERM), the wake pipe the host module writes
 * to (aborts) and, with --tag-output, the children's output pipes. The job
 * ends when every rank is reaped; an abort or an abnormal death ends it
 * early: the others are notified (PMIX_ERR_PROC_ABORTED), sent SIGTERM, then
 * SIGKILL after a grace period.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "run_host.h"
#include "run_jobinfo.h"
#include "run_out.h"

#include <pmix.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPX_RUN_MAX_PROCS 4096
#define SPX_RUN_TERM_DELAY 0.2     /* s between notifying and SIGTERM */
#define SPX_RUN_KILL_GRACE 2.0     /* s between SIGTERM and SIGKILL */
#define SPX_RUN_TIMEOUT_CODE 124

extern char **environ;

struct spx_run_proc {
    pid_t pid;
    bool running;
};

static struct {
    uint32_t n;
    double timeout;
    bool tag;
    char **xvars;                  /* -x arguments, borrowed from argv */
    size_t nx;
    char **argv;                   /* the program and its arguments */
    char nspace[PMIX_MAX_NSLEN + 1];
    char tmpdir[PATH_MAX];
    struct spx_run_proc *procs;
    struct spx_run_out *outs;      /* 2 per rank with --tag-output */
    uint32_t running;
    int sigfd, wake[2];
    sigset_t oldmask;
    bool ending, termed, killed;
    int end_code, worst;
    double term_at, kill_at, deadline;
} R = { .sigfd = -1, .wake = { -1, -1 } };

static double spx_run_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void spx_run_usage(FILE *f)
{
    fprintf(f, "usage: spmix-run -n N [--timeout SEC] [--tag-output] [-x VAR[=VALUE]]... "
               "[--] program [args...]\n"
               "Run N ranks of program on this host under an embedded PMIx server.\n");
}

static int spx_run_parse(int argc, char **argv)
{
    static const struct option opts[] = {
        { "np", required_argument, NULL, 'n' },
        { "timeout", required_argument, NULL, 't' },
        { "tag-output", no_argument, NULL, 'T' },
        { "export", required_argument, NULL, 'x' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    char *end;

    R.xvars = calloc((size_t)argc, sizeof(char *));
    if (R.xvars == NULL)
        return -1;
    while ((c = getopt_long(argc, argv, "+n:x:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': {
            unsigned long v = strtoul(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v == 0 || v > SPX_RUN_MAX_PROCS) {
                fprintf(stderr, "spmix-run: -n wants a number of ranks in 1..%d\n",
                        SPX_RUN_MAX_PROCS);
                return -1;
            }
            R.n = (uint32_t)v;
            break;
        }
        case 't':
            R.timeout = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || !(R.timeout > 0)) {
                fprintf(stderr, "spmix-run: --timeout wants a positive number of seconds\n");
                return -1;
            }
            break;
        case 'T':
            R.tag = true;
            break;
        case 'x':
            R.xvars[R.nx++] = optarg;
            break;
        case 'h':
            spx_run_usage(stdout);
            exit(0);
        default:
            spx_run_usage(stderr);
            return -1;
        }
    }
    if (R.n == 0 || optind >= argc) {
        spx_run_usage(stderr);
        return -1;
    }
    R.argv = &argv[optind];
    return 0;
}

/* ---- waiting for the server library's callbacks (main thread only) ---- */

struct spx_run_sync {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool done;
    pmix_status_t status;
};

static void spx_run_sync_cb(pmix_status_t status, void *cbdata)
{
    struct spx_run_sync *s = cbdata;

    pthread_mutex_lock(&s->m);
    s->status = status;
    s->done = true;
    pthread_cond_signal(&s->c);
    pthread_mutex_unlock(&s->m);
}

/* Wait for the callback of an operation that returned rc; limit > 0 bounds
 * the wait (seconds): on expiry PMIX_ERR_TIMEOUT is returned and s must stay
 * valid, since the callback may still come. */
static pmix_status_t spx_run_sync_wait_for(struct spx_run_sync *s, pmix_status_t rc, int limit)
{
    struct timespec until;

    if (rc == PMIX_OPERATION_SUCCEEDED)
        return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return rc;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += limit;
    pthread_mutex_lock(&s->m);
    while (!s->done) {
        if (limit <= 0) {
            pthread_cond_wait(&s->c, &s->m);
        } else if (pthread_cond_timedwait(&s->c, &s->m, &until) == ETIMEDOUT) {
            pthread_mutex_unlock(&s->m);
            return PMIX_ERR_TIMEOUT;
        }
    }
    rc = s->status;
    pthread_mutex_unlock(&s->m);
    return rc;
}

static pmix_status_t spx_run_sync_wait(struct spx_run_sync *s, pmix_status_t rc)
{
    return spx_run_sync_wait_for(s, rc, 0);
}

#define SPX_RUN_SYNC_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0 }

/* ---- the job ---- */

static void spx_run_notify_done(pmix_status_t status, void *cbdata)
{
    pmix_info_t *info = cbdata;

    PMIX_INFO_FREE(info, 1);
}

/* Tell every rank that rank died or aborted (events need no answer). */
static void spx_run_notify_aborted(uint32_t rank)
{
    pmix_proc_t proc;
    pmix_info_t *info;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&proc, R.nspace, rank);
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
    for (uint32_t r = 0; r < R.n; r++)
        if (R.procs[r].running)
            kill(-R.procs[r].pid, sig);
}

/* End the job early with code: the others get SIGTERM shortly (time for the
 * event to arrive), then SIGKILL. The first cause wins. */
static void spx_run_end(int code)
{
    if (R.ending)
        return;
    R.ending = true;
    R.end_code = code;
    R.term_at = spx_run_now() + SPX_RUN_TERM_DELAY;
    R.kill_at = R.term_at + SPX_RUN_KILL_GRACE;
}

static void spx_run_check_abort(void)
{
    uint32_t rank;
    int status;
    char msg[1024];

    if (!spx_run_host_take_abort(&rank, &status, msg, sizeof(msg)))
        return;
    fprintf(stderr, "spmix-run: rank %u called PMIx_Abort with status %d: %s\n", rank,
            status, msg);
    if (!R.ending)
        spx_run_notify_aborted(rank);
    spx_run_end(status & 0xff);
}

static void spx_run_reaped(uint32_t rank, int wstatus)
{
    int code = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
    bool finalized = spx_run_host_finalized(rank);

    R.procs[rank].running = false;
    R.running--;
    if (R.ending)
        return;
    if (WIFSIGNALED(wstatus) || (code != 0 && !finalized)) {
        if (WIFSIGNALED(wstatus))
            fprintf(stderr, "spmix-run: rank %u (pid %d) was killed by signal %d (%s); "
                            "ending the job\n", rank, (int)R.procs[rank].pid,
                    WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
        else
            fprintf(stderr, "spmix-run: rank %u (pid %d) exited with status %d before "
                            "PMIx_Finalize; ending the job\n", rank, (int)R.procs[rank].pid, code);
        spx_run_notify_aborted(rank);
        spx_run_end(code);
        return;
    }
    if (code > R.worst)
        R.worst = code;
}

static void spx_run_reap(void)
{
    int wstatus;
    pid_t pid;

    spx_run_check_abort();   /* an abort's status wins over the exit it causes */
    while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
        for (uint32_t r = 0; r < R.n; r++)
            if (R.procs[r].running && R.procs[r].pid == pid) {
                spx_run_reaped(r, wstatus);
                break;
            }
    }
}

/* Drain the signalfd: children and termination requests. */
static void spx_run_signals(void)
{
    struct signalfd_siginfo si;

    while (read(R.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGCHLD) {
            spx_run_reap();
        } else if (!R.ending) {
            fprintf(stderr, "spmix-run: received signal %u (%s); ending the job\n",
                    si.ssi_signo, strsignal((int)si.ssi_signo));
            spx_run_end(128 + (int)si.ssi_signo);
            R.term_at = spx_run_now();
        }
    }
    spx_run_reap();   /* signals coalesce: never miss a child */
}

static void spx_run_timers(void)
{
    double now = spx_run_now();

    if (!R.ending && R.deadline > 0 && now >= R.deadline) {
        fprintf(stderr, "spmix-run: timeout of %g s reached; ending the job\n", R.timeout);
        spx_run_end(SPX_RUN_TIMEOUT_CODE);
        R.term_at = now;
    }
    if (R.ending && !R.termed && now >= R.term_at) {
        R.termed = true;
        spx_run_signal_all(SIGTERM);
    }
    if (R.ending && !R.killed && now >= R.kill_at) {
        R.killed = true;
        spx_run_signal_all(SIGKILL);
    }
}

static int spx_run_poll_ms(void)
{
    double now = spx_run_now(), next = -1;

    if (!R.ending && R.deadline > 0)
        next = R.deadline;
    if (R.ending && !R.termed)
        next = R.term_at;
    else if (R.ending && !R.killed)
        next = R.kill_at;
    if (next < 0)
        return -1;
    return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

/* pfd: 2 + (number of output streams) entries, the caller's. */
static void spx_run_loop(struct pollfd *pfd)
{
    size_t nouts = R.tag ? 2 * (size_t)R.n : 0, nfds;
    double drain_until = 0;

    for (;;) {
        bool outs_open = false;
        int ms;

        if (R.running == 0) {
            for (size_t i = 0; i < nouts; i++)
                outs_open |= R.outs[i].fd >= 0;
            if (!outs_open)
                break;
            /* output still open after the last exit (a grandchild?): wait briefly */
            if (drain_until == 0)
                drain_until = spx_run_now() + 1.0;
            else if (spx_run_now() >= drain_until)
                break;
        }
        nfds = 0;
        pfd[nfds++] = (struct pollfd){ .fd = R.sigfd, .events = POLLIN };
        pfd[nfds++] = (struct pollfd){ .fd = R.wake[0], .events = POLLIN };
        for (size_t i = 0; i < nouts; i++)
            pfd[nfds++] = (struct pollfd){ .fd = R.outs[i].fd, .events = POLLIN };
        ms = spx_run_poll_ms();
        if (R.running == 0)
            ms = 100;
        if (poll(pfd, nfds, ms) < 0 && errno != EINTR)
            break;
        if (pfd[1].revents) {
            char b[64];
            while (read(R.wake[0], b, sizeof(b)) > 0)
                ;
            spx_run_check_abort();
        }
        for (size_t i = 0; i < nouts; i++)
            if (pfd[2 + i].revents)
                spx_run_out_pump(&R.outs[i]);
        if (pfd[0].revents)
            spx_run_signals();
        spx_run_timers();
    }
    for (size_t i = 0; i < nouts; i++)
        spx_run_out_close(&R.outs[i]);
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
    size_t nbase = 0, nadd = 0, n = 0;
    char **add, **env;

    while (environ[nbase] != NULL)
        nbase++;
    while (pmixenv != NULL && pmixenv[nadd] != NULL)
        nadd++;
    add = calloc(R.nx + nadd + 1, sizeof(char *));
    env = calloc(nbase + R.nx + nadd + 1, sizeof(char *));
    if (add == NULL || env == NULL) {
        free(add);
        free(env);
        return NULL;
    }
    for (size_t i = 0; i < R.nx; i++)   /* -x VAR alone: inherited already */
        if (strchr(R.xvars[i], '=') != NULL)
            add[n++] = R.xvars[i];
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

static void spx_run_free_argv(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

static int spx_run_spawn(uint32_t rank)
{
    struct spx_run_sync sync = SPX_RUN_SYNC_INIT;
    pmix_proc_t proc;
    pmix_status_t rc;
    char **pmixenv = calloc(1, sizeof(char *)), **env;
    int out[2] = { -1, -1 }, err[2] = { -1, -1 };
    pid_t pid;

    PMIX_LOAD_PROCID(&proc, R.nspace, rank);
    rc = PMIx_server_register_client(&proc, geteuid(), getegid(), NULL, spx_run_sync_cb, &sync);
    rc = spx_run_sync_wait(&sync, rc);
    if (rc == PMIX_SUCCESS)
        rc = pmixenv ? PMIx_server_setup_fork(&proc, &pmixenv) : PMIX_ERR_NOMEM;
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "spmix-run: cannot set up rank %u: %s\n", rank, PMIx_Error_string(rc));
        spx_run_free_argv(pmixenv);
        return -1;
    }
    env = spx_run_env(pmixenv);
    if (env == NULL || (R.tag && (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0))) {
        perror("spmix-run: cannot start a rank");
        free(env);
        spx_run_free_argv(pmixenv);
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, &R.oldmask, NULL);
        if (R.tag && (dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0))
            _exit(127);
        environ = env;
        execvp(R.argv[0], R.argv);
        dprintf(2, "spmix-run: cannot execute %s: %s\n", R.argv[0], strerror(errno));
        _exit(127);
    }
    free(env);
    spx_run_free_argv(pmixenv);
    if (R.tag) {
        close(out[1]);
        close(err[1]);
    }
    if (pid < 0) {
        perror("spmix-run: fork");
        if (R.tag) {
            close(out[0]);
            close(err[0]);
        }
        return -1;
    }
    setpgid(pid, pid);   /* also here: no race with an early kill(-pid) */
    R.procs[rank].pid = pid;
    R.procs[rank].running = true;
    R.running++;
    if (R.tag) {
        spx_run_out_init(&R.outs[2 * rank], out[0], 1, rank);
        spx_run_out_init(&R.outs[2 * rank + 1], err[0], 2, rank);
    }
    return 0;
}

/* ---- the server ---- */

static int spx_run_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path) < 0 ? 0 : 0;
}

static int spx_run_server_start(void)
{
    pmix_info_t *info;
    pmix_status_t rc;

    snprintf(R.tmpdir, sizeof(R.tmpdir), "%s/spmix-run.%d.XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    if (mkdtemp(R.tmpdir) == NULL) {
        fprintf(stderr, "spmix-run: cannot create a directory %s: %s\n", R.tmpdir,
                strerror(errno));
        R.tmpdir[0] = '\0';
        return -1;
    }
    PMIX_INFO_CREATE(info, 2);
    if (info == NULL)
        return -1;
    PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, R.tmpdir, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_SYSTEM_TMPDIR, R.tmpdir, PMIX_STRING);
    rc = PMIx_server_init(spx_run_host_module(), info, 2);
    PMIX_INFO_FREE(info, 2);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "spmix-run: PMIx_server_init failed: %s\n", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

static int spx_run_register_job(void)
{
    struct spx_run_sync sync = SPX_RUN_SYNC_INIT;
    struct spx_jobinfo_node node;
    struct spx_jobinfo job = { 0 };
    pmix_rank_t *ranks = calloc(R.n, sizeof(*ranks));
    char host[256] = "localhost", nsdir[PATH_MAX + PMIX_MAX_NSLEN + 2];
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    pmix_status_t rc;

    if (ranks == NULL)
        return -1;
    gethostname(host, sizeof(host) - 1);
    for (uint32_t r = 0; r < R.n; r++)
        ranks[r] = r;
    node = (struct spx_jobinfo_node){ .hostname = host, .ranks = ranks, .nranks = R.n };
    snprintf(nsdir, sizeof(nsdir), "%s/%s", R.tmpdir, R.nspace);
    job.nspace = R.nspace;
    job.job_size = R.n;
    job.nodes = &node;
    job.nnodes = 1;
    job.local_node = 0;
    job.tmpdir = R.tmpdir;
    job.nsdir = nsdir;
    job.tdir_rmclean = true;
    rc = spx_jobinfo_build(&job, &info, &ninfo);
    free(ranks);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_server_register_nspace(R.nspace, (int)R.n, info, ninfo, spx_run_sync_cb, &sync);
        rc = spx_run_sync_wait(&sync, rc);
        PMIX_INFO_FREE(info, ninfo);
    }
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "spmix-run: cannot register the job: %s\n", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* Tear the server down; a library that does not answer within a few
 * seconds is left alone (the process exits anyway) rather than waited for. */
static void spx_run_server_stop(bool registered)
{
    static struct spx_run_sync sync = SPX_RUN_SYNC_INIT;   /* may outlive a timeout */

    if (registered) {
        PMIx_server_deregister_nspace(R.nspace, spx_run_sync_cb, &sync);
        if (spx_run_sync_wait_for(&sync, PMIX_SUCCESS, 5) == PMIX_ERR_TIMEOUT) {
            fprintf(stderr, "spmix-run: the PMIx server did not release the job within 5 s; "
                            "exiting without finalizing it\n");
            return;
        }
    }
    PMIx_server_finalize();
}

static int spx_run_setup_signals(void)
{
    sigset_t set;

    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (pthread_sigmask(SIG_BLOCK, &set, &R.oldmask) != 0)
        return -1;
    R.sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (R.sigfd < 0 || pipe2(R.wake, O_CLOEXEC | O_NONBLOCK) < 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    struct pollfd *pfd = NULL;
    bool server = false, registered = false;
    int code = 1;

    if (spx_run_parse(argc, argv) < 0)
        return 2;
    snprintf(R.nspace, sizeof(R.nspace), "spmix-run.%d", (int)getpid());
    R.procs = calloc(R.n, sizeof(*R.procs));
    R.outs = calloc(R.tag ? 2 * (size_t)R.n : 1, sizeof(*R.outs));
    pfd = calloc(2 + (R.tag ? 2 * (size_t)R.n : 0), sizeof(*pfd));
    if (R.procs == NULL || R.outs == NULL || pfd == NULL || spx_run_setup_signals() < 0) {
        perror("spmix-run: setup");
        goto out;
    }
    for (size_t i = 0; R.tag && i < 2 * (size_t)R.n; i++)
        R.outs[i].fd = -1;
    if (spx_run_host_init(R.nspace, R.n, R.wake[1]) < 0)
        goto out;
    if (spx_run_server_start() < 0)
        goto out;
    server = true;
    if (spx_run_register_job() < 0)
        goto out;
    registered = true;
    if (R.timeout > 0)
        R.deadline = spx_run_now() + R.timeout;
    for (uint32_t r = 0; r < R.n; r++) {
        if (spx_run_spawn(r) < 0) {
            spx_run_end(1);
            R.term_at = spx_run_now();
            break;
        }
    }
    spx_run_loop(pfd);
    code = R.ending ? R.end_code : R.worst;
out:
    if (server)
        spx_run_server_stop(registered);
    spx_run_host_fini();
    if (R.tmpdir[0] != '\0')
        nftw(R.tmpdir, spx_run_rm, 16, FTW_DEPTH | FTW_PHYS);
    free(pfd);
    free(R.procs);
    free(R.outs);
    free(R.xvars);
    return code;
}
