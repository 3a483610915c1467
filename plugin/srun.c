/*
 * srun.c - the srun side of mpi/spmix.
 *
 * prelaunch (before the tasks are launched) puts into the step environment
 * what every slurmstepd needs and cannot learn by itself:
 *   SPMIX_STEP_AUTH    how the step's servers and abort reports prove they
 *                      belong to it (step_auth.h): "munge" (the default:
 *                      munge credentials, nothing secret here) or "secret"
 *   SPMIX_STEP_SECRET  with "secret" only: 32 random bytes (hex) shared by
 *                      the step's servers; their tree connections prove
 *                      knowledge of it
 *   SPMIX_STEP_MAP     the real rank placement from step_layout->tids
 *   SPMIX_SRUN_PORT    the port of a small listener in srun (the "abort
 *                      agent") to which a slurmstepd reports PMIx_Abort
 * The abort agent is one thread: it accepts a connection, sends it a fresh
 * nonce, reads one report (abort_msg.h) under a deadline, checks its proof
 * for that nonce (MAC, or munge credential of an allowed uid), prints the rank's message
 * on srun's stderr, remembers the first status, answers 'K' and closes.
 * client_fini stops the thread and returns that status, which srun uses as
 * its exit code (the step's tasks themselves were killed by SIGKILL).
 *   SPMIX_STEP_APPS    the application of every rank (apps.h), when the
 *                      step has more than one
 *
 * Heterogeneous steps (srun A : B, srun --het-group=0,1): srun calls
 * prelaunch once per component, from one thread per component, at about
 * the same time, each with the layout of the whole step (all components'
 * nodes and ranks; component k's ranks offset by its het_job_task_offset)
 * and client_fini once per component. The components form ONE namespace:
 * the first call makes the secret, the map and the abort listener, the
 * others reuse them; the last client_fini stops the listener. Each
 * component is one application: every call records its task offset and
 * waits (at most SPX_PLG_HET_WAIT_MS) until all components - counted on
 * srun's command line, apps.h - have done so, so that each component's
 * slurmstepds get the same SPMIX_STEP_APPS. A --multi-prog step (not
 * heterogeneous) has one application per line of its configuration file,
 * which srun's command line names (apps.h).
 *
 * Why a thread, when our rule is one progress thread per process: that rule
 * is about the processes the PMIx library runs in, and no PMIx library runs
 * in srun (the plugin opens libpmix in slurmstepd only); srun is Slurm's
 * program with Slurm's threads. Slurm's MPI plugin API gives the srun side
 * two calls, client_prelaunch before the step starts and client_fini after
 * it ended, and no way to add a descriptor to srun's own event loop (its
 * eio objects are internal to srun), so a listener that must answer while
 * srun waits for the step needs a thread of its own, as Slurm's own mpi/pmi2
 * and mpi/pmix plugins have. The thread shares one thing with srun's: the
 * first report's status, written by the agent alone (status, then aborted
 * with a release store) and read by client_fini after the join, or with an
 * acquire load when the thread could not be told to stop. No lock.
 */
#include "config.h"
#include "plugin/abort_msg.h"
#include "plugin/step_auth.h"
#include "plugin/apps.h"
#include "plugin/conf.h"
#include "plugin/layout.h"
#include "plugin/plugin.h"
#include "host/hex.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SPX_PLG_AGENT_READ_MS 3000
#define SPX_PLG_HET_WAIT_MS 10000
#define SPX_PLG_HET_MAX 64

static struct {
    bool running;
    int lfd, stop[2];
    pthread_t tid;
    uint8_t secret[SPX_PLG_SECRET_LEN]; /* secret mode */
    bool munge;                         /* SPMIX_STEP_AUTH=munge */
    char munge_sock[256];               /* "" : libmunge's default */
    uint32_t uids[SPX_PLG_AUTH_UIDS];   /* munge: whose reports are taken */
    size_t nuids;
    uint32_t jobid, stepid;
    uint16_t port; /* the listener's, once running */
    bool aborted; /* written by the agent thread only, once (release) */
    int status;   /* valid once aborted is set */
} spx_plg_srun = { .lfd = -1, .stop = { -1, -1 } };

static long spx_plg_ms_left(const struct timespec *deadline)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Reads exactly len bytes before the deadline. 0 or -1. */
static int spx_plg_read_full(int fd, uint8_t *buf, size_t len, const struct timespec *deadline)
{
    size_t got = 0;

    while (got < len) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        long ms = spx_plg_ms_left(deadline);
        ssize_t n;
        if (ms <= 0 || poll(&p, 1, (int)ms) <= 0)
            return -1;
        n = read(fd, buf + got, len - got);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

static void spx_plg_agent_serve(int fd)
{
    uint8_t buf[SPX_PLG_ABORT_MAX_WIRE], nonce[SPX_PLG_ABORT_NONCE];
    struct spx_plg_abort a;
    struct spx_plg_abort_auth au = {
        .munge = spx_plg_srun.munge, .key = spx_plg_srun.secret,
        .keylen = sizeof(spx_plg_srun.secret),
        .socket = spx_plg_srun.munge_sock[0] ? spx_plg_srun.munge_sock : NULL,
        .uids = spx_plg_srun.uids, .nuids = spx_plg_srun.nuids,
    };
    struct timespec deadline;
    char why[256];
    long body, proof;
    size_t at;
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += SPX_PLG_AGENT_READ_MS / 1000;
    /* this connection's nonce first: a report is good for it alone */
    if (getrandom(nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce) ||
        send(fd, nonce, sizeof(nonce), MSG_NOSIGNAL) != (ssize_t)sizeof(nonce)) {
        spx_plg_err("abort agent: cannot send a nonce: %s", strerror(errno));
        return;
    }
    if (spx_plg_read_full(fd, buf, SPX_PLG_ABORT_HDR, &deadline) != 0 ||
        (body = spx_plg_abort_body_len(buf)) < 0 ||
        spx_plg_read_full(fd, buf + SPX_PLG_ABORT_HDR, (size_t)body + 4, &deadline) != 0 ||
        (proof = spx_plg_abort_proof_len(buf + SPX_PLG_ABORT_HDR + body)) < 0 ||
        spx_plg_read_full(fd, buf + SPX_PLG_ABORT_HDR + body + 4, (size_t)proof,
                          &deadline) != 0) {
        spx_plg_err("abort agent: dropped a truncated or malformed report");
        return;
    }
    at = SPX_PLG_ABORT_HDR + (size_t)body + 4 + (size_t)proof;
    rc = spx_plg_abort_unpack(buf, at, &au, nonce, &a, why, sizeof(why));
    if (rc != 0 || a.jobid != spx_plg_srun.jobid || a.stepid != spx_plg_srun.stepid) {
        spx_plg_err("abort agent: dropped a report that %s%s",
                    rc == -2 ? "failed authentication: " :
                    rc == -1 ? "is malformed" : "names another step",
                    rc == -2 ? why : "");
        return;
    }
    slurm_error("rank %u on %s called PMIx_Abort with status %d: %s", a.rank, a.host,
                (int)a.status, a.text[0] ? a.text : "(no message)");
    if (!spx_plg_srun.aborted) { /* the agent is its only writer */
        spx_plg_srun.status = a.status;
        __atomic_store_n(&spx_plg_srun.aborted, true, __ATOMIC_RELEASE);
    }
    if (write(fd, "K", 1) != 1)
        spx_plg_dbg("abort agent: could not acknowledge the report");
}

static void *spx_plg_agent(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p[2] = { { .fd = spx_plg_srun.lfd, .events = POLLIN },
                               { .fd = spx_plg_srun.stop[0], .events = POLLIN } };
        int fd;
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents)
            break;
        if (!(p[0].revents & POLLIN))
            continue;
        fd = accept4(spx_plg_srun.lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        spx_plg_agent_serve(fd);
        close(fd);
    }
    return NULL;
}

/* Listens on an ephemeral TCP port (all addresses); returns the port or 0. */
static uint16_t spx_plg_agent_start(void)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t sl = sizeof(sa);

    spx_plg_srun.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (spx_plg_srun.lfd < 0 || bind(spx_plg_srun.lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(spx_plg_srun.lfd, 64) < 0 ||
        getsockname(spx_plg_srun.lfd, (struct sockaddr *)&sa, &sl) < 0 ||
        pipe2(spx_plg_srun.stop, O_CLOEXEC) < 0)
        goto fail;
    if (pthread_create(&spx_plg_srun.tid, NULL, spx_plg_agent, NULL) != 0)
        goto fail;
    spx_plg_srun.running = true;
    spx_plg_srun.port = ntohs(sa.sin_port);
    return spx_plg_srun.port;
fail:
    spx_plg_err("cannot start the abort listener: %s", strerror(errno));
    if (spx_plg_srun.lfd >= 0)
        close(spx_plg_srun.lfd);
    for (int i = 0; i < 2; i++)
        if (spx_plg_srun.stop[i] >= 0)
            close(spx_plg_srun.stop[i]);
    spx_plg_srun.lfd = spx_plg_srun.stop[0] = spx_plg_srun.stop[1] = -1;
    return 0;
}

/* What the components of one heterogeneous step share (guarded by lock). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool ready;                 /* secret and map made */
    char *map;                  /* malloc'd */
    uint32_t calls, finis;      /* prelaunch successes, client_fini calls */
    uint32_t noffsets;
    uint32_t offsets[SPX_PLG_HET_MAX];
} spx_plg_het = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* srun's own command line (/proc/self/cmdline); argv points into *buf.
 * Caller frees both with free(). -1 when unreadable. */
static int spx_plg_cmdline(char **buf, char ***argv, int *argc)
{
    FILE *f = fopen("/proc/self/cmdline", "re");
    size_t cap = 4096, len = 0, n;
    char *b = malloc(cap + 1);
    int c = 0;

    *buf = NULL;
    *argv = NULL;
    if (f == NULL || b == NULL)
        goto fail;
    while ((n = fread(b + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *t = cap < (1u << 22) ? realloc(b, 2 * cap + 1) : NULL;
            if (t == NULL)
                goto fail;
            b = t;
            cap *= 2;
        }
    }
    fclose(f);
    f = NULL;
    b[len] = '\0';
    for (size_t i = 0; i < len; i++)
        c += b[i] == '\0';
    if ((*argv = calloc((size_t)c + 1, sizeof(char *))) == NULL)
        goto fail;
    for (size_t i = 0, k = 0; i < len && (int)k < c; k++) {
        (*argv)[k] = b + i;
        i += strlen(b + i) + 1;
    }
    *buf = b;
    *argc = c;
    return 0;
fail:
    if (f != NULL)
        fclose(f);
    free(b);
    return -1;
}

/* SPMIX_STEP_APPS of a heterogeneous step: records this component's task
 * offset, waits for the other components, then one app per component.
 * Called with the lock held. NULL: one application (unknown count, late
 * component, or out of memory; logged). */
static char *spx_plg_het_apps(uint32_t offset, uint32_t ntasks, uint32_t ncomp)
{
    struct timespec deadline;
    uint32_t *app_of, k = 0;
    char *s;

    if (spx_plg_het.noffsets < SPX_PLG_HET_MAX)
        spx_plg_het.offsets[spx_plg_het.noffsets++] = offset;
    pthread_cond_broadcast(&spx_plg_het.cond);
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += SPX_PLG_HET_WAIT_MS / 1000;
    while (spx_plg_het.noffsets < ncomp)
        if (pthread_cond_timedwait(&spx_plg_het.cond, &spx_plg_het.lock, &deadline) != 0)
            break;
    if (spx_plg_het.noffsets != ncomp) {
        spx_plg_err("heterogeneous step: %u of %u components reached the launch; "
                    "every rank is told it is in application 0", spx_plg_het.noffsets, ncomp);
        return NULL;
    }
    if ((app_of = calloc(ntasks, sizeof(*app_of))) == NULL)
        return NULL;
    /* app of rank r: the number of component offsets <= r, less one */
    for (uint32_t r = 0; r < ntasks; r++) {
        k = 0;
        for (uint32_t i = 0; i < ncomp; i++)
            k += spx_plg_het.offsets[i] <= r;
        app_of[r] = k ? k - 1 : 0;
    }
    s = spx_plg_apps_encode(app_of, ntasks);
    free(app_of);
    return s;
}

/* SPMIX_STEP_APPS of the step, or NULL for one application. Lock held. */
static char *spx_plg_step_apps(const mpi_step_info_t *job, bool het)
{
    uint32_t ntasks = job->step_layout->task_cnt, napps = 0, *app_of = NULL;
    char *buf, **argv, *s = NULL;
    int argc;

    if (spx_plg_cmdline(&buf, &argv, &argc) != 0)
        return NULL;
    if (het) {
        uint32_t ncomp = spx_plg_apps_het_count(argc, argv);
        if (ncomp > 1)
            s = spx_plg_het_apps(job->het_job_task_offset, ntasks, ncomp);
    } else if (spx_plg_apps_find_multiprog(argc, argv, ntasks, &app_of, &napps) == 0) {
        if (napps > 1)
            s = spx_plg_apps_encode(app_of, ntasks);
        free(app_of);
    }
    free(argv);
    free(buf);
    return s;
}

/* The secret, the map and the listener, once per srun. Lock held. */
static int spx_plg_srun_setup(const mpi_step_info_t *job, bool het)
{
    const slurm_step_layout_t *lay = job->step_layout;

    if (spx_plg_het.ready)
        return 0;
    spx_plg_srun.munge = spx_plg_auth_pick_munge();
    spx_plg_auth_munge_socket(spx_plg_srun.munge_sock, sizeof(spx_plg_srun.munge_sock));
    spx_plg_srun.nuids = spx_plg_auth_uids((uint32_t)getuid(), spx_plg_srun.uids);
    if (!spx_plg_srun.munge &&
        getrandom(spx_plg_srun.secret, sizeof(spx_plg_srun.secret), 0) !=
        (ssize_t)sizeof(spx_plg_srun.secret)) {
        spx_plg_err("cannot get random bytes for the step secret: %s", strerror(errno));
        return -1;
    }
    spx_plg_het.map = spx_plg_map_encode(lay->node_cnt, lay->tasks, lay->tids);
    if (spx_plg_het.map == NULL) {
        spx_plg_err("out of memory");
        return -1;
    }
    /* the slurmstepds of every component say the leader's job id */
    spx_plg_srun.jobid = het && job->het_job_id != NO_VAL && job->het_job_id != 0 ?
                         job->het_job_id : job->step_id.job_id;
    spx_plg_srun.stepid = job->step_id.step_id;
    spx_plg_het.ready = true;
    return 0;
}

mpi_plugin_client_state_t *spx_plg_srun_prelaunch(const mpi_step_info_t *job,
                                                  char ***env)
{
    const slurm_step_layout_t *lay = job->step_layout;
    /* a het job's components, or a het step in one allocation (no
     * het_job_id then): Slurm sets the task offset for both */
    bool het = job->het_job_task_offset != NO_VAL;
    char hex[2 * SPX_PLG_SECRET_LEN + 1], port[16], *apps;

    if (lay == NULL || lay->node_cnt == 0 || lay->tasks == NULL || lay->tids == NULL) {
        spx_plg_err("the step has no task layout");
        return NULL;
    }
    pthread_mutex_lock(&spx_plg_het.lock);
    if (spx_plg_srun_setup(job, het) != 0) {
        pthread_mutex_unlock(&spx_plg_het.lock);
        return NULL;
    }
    if (!spx_plg_srun.running)
        spx_plg_agent_start();
    if (spx_plg_srun.running) {
        snprintf(port, sizeof(port), "%u", spx_plg_srun.port);
        slurm_env_array_overwrite(env, SPX_PLG_ENV_SRUN_PORT, port);
    }
    if (spx_plg_srun.munge) {
        slurm_env_array_overwrite(env, SPX_PLG_ENV_AUTH, "munge");
    } else {
        slurm_env_array_overwrite(env, SPX_PLG_ENV_AUTH, "secret");
        spx_host_hex_encode(spx_plg_srun.secret, SPX_PLG_SECRET_LEN, hex, sizeof(hex));
        slurm_env_array_overwrite(env, SPX_PLG_ENV_SECRET, hex);
    }
    slurm_env_array_overwrite(env, SPX_PLG_ENV_MAP, spx_plg_het.map);
    if (het)
        slurm_env_array_overwrite(env, SPX_PLG_ENV_HET, "1");
    apps = spx_plg_step_apps(job, het);
    if (apps != NULL)
        slurm_env_array_overwrite(env, SPX_PLG_ENV_APPS, apps);
    free(apps);
    spx_plg_het.calls++;
    pthread_mutex_unlock(&spx_plg_het.lock);
    memset(hex, 0, sizeof(hex));
    return (mpi_plugin_client_state_t *)&spx_plg_srun;
}

int spx_plg_srun_fini(void)
{
    int status;
    bool last;

    /* one call per component of a heterogeneous step: the last one stops
     * the listener (calls is 0 when prelaunch failed or never ran) */
    pthread_mutex_lock(&spx_plg_het.lock);
    last = ++spx_plg_het.finis >= spx_plg_het.calls;
    if (last) {
        free(spx_plg_het.map);
        spx_plg_het.map = NULL;
        spx_plg_het.ready = false;
        spx_plg_het.calls = spx_plg_het.finis = spx_plg_het.noffsets = 0;
    }
    pthread_mutex_unlock(&spx_plg_het.lock);
    if (last && spx_plg_srun.running) {
        if (write(spx_plg_srun.stop[1], "x", 1) != 1)
            spx_plg_err("cannot stop the abort listener");
        else
            pthread_join(spx_plg_srun.tid, NULL);
        close(spx_plg_srun.lfd);
        close(spx_plg_srun.stop[0]);
        close(spx_plg_srun.stop[1]);
        spx_plg_srun.lfd = spx_plg_srun.stop[0] = spx_plg_srun.stop[1] = -1;
        spx_plg_srun.running = false;
    }
    status = __atomic_load_n(&spx_plg_srun.aborted, __ATOMIC_ACQUIRE) ? spx_plg_srun.status : 0;
    /* an exit code: keep it non-zero after truncation to 8 bits */
    if (status != 0 && (status & 0xff) == 0)
        status = 1;
    return status & 0xff;
}
