/* test_server_dmx_local.c - PMIx_server_dmodex_request of the host for a
 * LOCAL client that has not committed yet (lib/server/get.c): the request
 * waits for the client's commit and then carries its remotely visible
 * record; a client that finalizes without committing gets the request an
 * error, promptly. Never a success with an empty record before the commit.
 *
 * The host (main) starts a server, registers a namespace of three clients
 * and asks dmodex_request for each before it forks/execs this program again
 * as that client (argv[1] "client", setup_fork's environment):
 *   rank 0 connects, sleeps 200 ms, puts a GLOBAL and a LOCAL key, commits;
 *     its answer must be PMIX_SUCCESS with the GLOBAL key (value checked)
 *     and without the LOCAL one, and come no earlier than those 200 ms;
 *   rank 1 connects and the host asks again from its client_connected
 *     upcall (connected, nothing committed); it sleeps, puts, commits: the
 *     answer must hold its key;
 *   rank 2 connects, puts a GLOBAL key, never commits, sleeps 200 ms,
 *     finalizes: its answer must be an error, within 5 s of the client's end.
 * Then requests that nobody will ever answer with data are errors, promptly:
 * rank 2 asked again after the host deregistered it, and rank 0 of a second
 * namespace whose client never came, asked before the host deregisters
 * that namespace (and not answered before).
 * Exits 0 when every check holds, else 1 with a line naming the check.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "codec/buf.h"
#include "proto/records.h"
#include "store/store.h"

#define NS "spx-dmx-local"
#define NPROCS 3
#define CLIENT_DELAY_US 200000
#define KEY_VAL(rank) (4200u + (rank))

#define CHECK(cond, what)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "test_server_dmx_local: FAIL (%s:%d): %s\n", __FILE__, __LINE__, \
                    what);                                                                  \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the client (this program run again with "client") ---- */

static int client(const char *mode)
{
    pmix_proc_t me;
    CHECK(PMIx_Init(&me, NULL, 0) == PMIX_SUCCESS, "client: PMIx_Init");
    pmix_value_t v = {.type = PMIX_UINT32};
    v.data.uint32 = KEY_VAL(me.rank);
    if (strcmp(mode, "commit") == 0) {
        usleep(CLIENT_DELAY_US);
        CHECK(PMIx_Put(PMIX_GLOBAL, "dmx.key", &v) == PMIX_SUCCESS, "client: put");
        CHECK(PMIx_Put(PMIX_LOCAL, "dmx.local", &v) == PMIX_SUCCESS, "client: put local");
        CHECK(PMIx_Commit() == PMIX_SUCCESS, "client: commit");
    } else {
        CHECK(PMIx_Put(PMIX_GLOBAL, "dmx.key", &v) == PMIX_SUCCESS, "client: put");
        usleep(CLIENT_DELAY_US);
    }
    CHECK(PMIx_Finalize(NULL, 0) == PMIX_SUCCESS, "client: finalize");
    return 0;
}

/* ---- the host ---- */

struct answer {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool done;
    pmix_status_t st;
    double at;          /* when it came */
    spx_buf_t data;     /* a copy of the record */
};

/* [NPROCS]: rank 1's second request; [NPROCS + 1]: rank 2 after its deregistration;
 * [NPROCS + 2]: a rank of a namespace deregistered before its client came */
#define NANSWERS (NPROCS + 3)
static struct answer answers[NANSWERS];

static void dmx_cb(pmix_status_t st, char *data, size_t sz, void *cbdata)
{
    struct answer *a = cbdata;
    pthread_mutex_lock(&a->m);
    CHECK(!a->done, "a dmodex request answered twice");
    a->st = st;
    a->at = now();
    if (st == PMIX_SUCCESS && sz)
        spx_buf_push_raw(&a->data, data, sz);
    a->done = true;
    pthread_cond_signal(&a->c);
    pthread_mutex_unlock(&a->m);
}

static bool answer_wait(struct answer *a, int seconds)
{
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += seconds;
    pthread_mutex_lock(&a->m);
    int rc = 0;
    while (!a->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&a->c, &a->m, &end);
    bool done = a->done;
    pthread_mutex_unlock(&a->m);
    return done;
}

static pmix_status_t host_connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
                                    void *cbdata)
{
    (void)obj;
    if (proc->rank == 1) /* connected, nothing committed yet */
        CHECK(PMIx_server_dmodex_request(proc, dmx_cb, &answers[NPROCS]) == PMIX_SUCCESS,
              "dmodex_request from client_connected");
    cb(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

/* The record of an answer holds rank's GLOBAL key with its value and not its LOCAL one. */
static void check_record(struct answer *a, pmix_rank_t rank)
{
    CHECK(a->st == PMIX_SUCCESS, "a committed client's record: not PMIX_SUCCESS");
    CHECK(a->data.len > 0, "a committed client's record is empty");
    spx_store_t *s = spx_store_create();
    spx_buf_t b;
    spx_buf_init_borrowed(&b, a->data.data, a->data.len);
    CHECK(spx_records_apply(&b, s, NULL, NULL) == 0, "the record does not decode");
    spx_buf_fini(&b);
    const pmix_value_t *v = spx_store_peek(s, NS, rank, "dmx.key", NULL);
    CHECK(v != NULL, "the record lacks the committed GLOBAL key");
    CHECK(v->type == PMIX_UINT32 && v->data.uint32 == KEY_VAL(rank), "wrong value in the record");
    CHECK(spx_store_peek(s, NS, rank, "dmx.local", NULL) == NULL,
          "a LOCAL key left the node in the record");
    spx_store_destroy(s);
}

static void info_u32(pmix_info_t *i, const char *key, uint32_t v)
{
    PMIx_Info_load(i, key, &v, PMIX_UINT32);
}

extern char **environ;

static pid_t spawn(const char *self, pmix_rank_t rank, const char *mode)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, NS, rank);
    char **env = PMIx_Argv_copy(environ);
    CHECK(PMIx_server_setup_fork(&p, &env) == PMIX_SUCCESS, "setup_fork");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        char *argv[] = {(char *)self, (char *)"client", (char *)mode, NULL};
        execve(self, argv, env);
        _exit(127);
    }
    PMIx_Argv_free(env);
    return pid;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "client") == 0)
        return client(argv[2]);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    CHECK(n > 0, "readlink /proc/self/exe");
    self[n] = '\0';
    for (int i = 0; i < NANSWERS; i++) {
        pthread_mutex_init(&answers[i].m, NULL);
        pthread_cond_init(&answers[i].c, NULL);
        spx_buf_init(&answers[i].data);
    }

    char tmpdir[] = "/tmp/spx-dmx-local.XXXXXX";
    CHECK(mkdtemp(tmpdir) != NULL, "mkdtemp");
    static pmix_server_module_t host = {.client_connected = host_connected};
    pmix_info_t sinfo[1];
    PMIx_Info_load(&sinfo[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    CHECK(PMIx_server_init(&host, sinfo, 1) == PMIX_SUCCESS, "PMIx_server_init");
    PMIx_Value_destruct(&sinfo[0].value);

    pmix_info_t job[3];
    memset(job, 0, sizeof(job));
    info_u32(&job[0], PMIX_JOB_SIZE, NPROCS);
    info_u32(&job[1], PMIX_LOCAL_SIZE, NPROCS);
    PMIx_Info_load(&job[2], PMIX_LOCAL_PEERS, "0,1,2", PMIX_STRING);
    pmix_nspace_t ns = NS;
    CHECK(PMIx_server_register_nspace(ns, NPROCS, job, 3, NULL, NULL) == PMIX_SUCCESS,
          "register_nspace");
    PMIx_Value_destruct(&job[2].value);
    for (pmix_rank_t r = 0; r < NPROCS; r++) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, NS, r);
        CHECK(PMIx_server_register_client(&p, geteuid(), getegid(), NULL, NULL, NULL) ==
                  PMIX_SUCCESS,
              "register_client");
        /* asked before the client even exists */
        CHECK(PMIx_server_dmodex_request(&p, dmx_cb, &answers[r]) == PMIX_SUCCESS,
              "dmodex_request");
    }

    double started = now();
    pid_t pids[NPROCS];
    pids[0] = spawn(self, 0, "commit");
    pids[1] = spawn(self, 1, "commit");
    pids[2] = spawn(self, 2, "nocommit");

    /* rank 0 and 1: after their commit, with their GLOBAL key */
    CHECK(answer_wait(&answers[0], 30), "no answer for the committing rank 0");
    check_record(&answers[0], 0);
    CHECK(answers[0].at - started >= CLIENT_DELAY_US / 1e6,
          "rank 0's answer came before it could have committed");
    CHECK(answer_wait(&answers[1], 30), "no answer for the committing rank 1");
    check_record(&answers[1], 1);
    CHECK(answer_wait(&answers[NPROCS], 30), "no answer to the request made at connect");
    check_record(&answers[NPROCS], 1);

    /* rank 2 never commits: an error, once it has finalized */
    for (int i = 0; i < NPROCS; i++) {
        int status;
        CHECK(waitpid(pids[i], &status, 0) == pids[i], "waitpid");
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a client failed");
    }
    CHECK(answer_wait(&answers[2], 5), "no prompt answer for a client that never committed");
    CHECK(answers[2].st != PMIX_SUCCESS,
          "a client that finalized without committing: dmodex_request said PMIX_SUCCESS");
    CHECK(answers[2].at - started >= CLIENT_DELAY_US / 1e6,
          "rank 2's answer came before it finalized");

    /* asked after the host deregistered rank 2: it will never commit */
    pmix_proc_t p2;
    PMIX_LOAD_PROCID(&p2, NS, 2);
    PMIx_server_deregister_client(&p2, NULL, NULL);
    CHECK(PMIx_server_dmodex_request(&p2, dmx_cb, &answers[NPROCS + 1]) == PMIX_SUCCESS,
          "dmodex_request of a deregistered client");
    CHECK(answer_wait(&answers[NPROCS + 1], 5), "no answer for a deregistered client");
    CHECK(answers[NPROCS + 1].st != PMIX_SUCCESS, "a deregistered client: PMIX_SUCCESS");

    /* a local rank whose client never came, its namespace deregistered */
    pmix_nspace_t other = "spx-dmx-other";
    pmix_info_t ojob[2];
    memset(ojob, 0, sizeof(ojob));
    info_u32(&ojob[0], PMIX_JOB_SIZE, 1);
    PMIx_Info_load(&ojob[1], PMIX_LOCAL_PEERS, "0", PMIX_STRING);
    CHECK(PMIx_server_register_nspace(other, 1, ojob, 2, NULL, NULL) == PMIX_SUCCESS,
          "register_nspace (other)");
    PMIx_Value_destruct(&ojob[1].value);
    pmix_proc_t po;
    PMIX_LOAD_PROCID(&po, other, 0);
    CHECK(PMIx_server_dmodex_request(&po, dmx_cb, &answers[NPROCS + 2]) == PMIX_SUCCESS,
          "dmodex_request (other)");
    CHECK(!answer_wait(&answers[NPROCS + 2], 1), "answered before anything happened");
    PMIx_server_deregister_nspace(other, NULL, NULL);
    CHECK(answer_wait(&answers[NPROCS + 2], 5), "no answer once the namespace is deregistered");
    CHECK(answers[NPROCS + 2].st != PMIX_SUCCESS, "a deregistered namespace: PMIX_SUCCESS");

    CHECK(PMIx_server_finalize() == PMIX_SUCCESS, "PMIx_server_finalize");
    rmdir(tmpdir);
    for (int i = 0; i < NANSWERS; i++)
        spx_buf_fini(&answers[i].data);
    printf("test_server_dmx_local: OK\n");
    return 0;
}
