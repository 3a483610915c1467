/* shm_barrier.h - the shared-memory gather of a whole-namespace fence among
 * the processes of one node, used by both the server and its clients.
 *
 * Why: a fence through the server's socket costs every participant a write,
 * a wake-up of the server, a reply and two wake-ups of its own (progress
 * thread, then caller). Here a blocking PMIx_Fence over the caller's whole
 * namespace is one atomic increment in a segment the server shares with its
 * clients; the last local arrival either releases everybody itself (every
 * process of the job is on this node and nothing else is owed) or hands the
 * gathered fence to the server with one FENCE_LOCAL frame (other nodes take
 * part, a commit is still in flight, or a participant came through the
 * socket). The server then runs the fence as before and releases the
 * barrier. Waiters spin briefly, then sleep on a futex in the segment.
 *
 * Segment: created by the server (spx_shmb_create) as a file in its private
 * directory, owned by the job's user; clients map it (spx_shmb_attach). One
 * slot per local process, in ascending rank order. The state word holds the
 * generation, the number arrived, how many asked to collect, and two flags
 * (a participant came through the server; the gather is closed and waits
 * for the server). done_gen is the futex word: it becomes gen + 1 when
 * generation gen is released, after last_status has been written.
 * broken, once set by the server (a local process died, a peer node or
 * process was lost, the namespace went away), makes every arrival fail at
 * once with that status: a whole-namespace fence can never succeed again.
 *
 * Thread safety: every function may be called from any thread of any
 * process that mapped the segment; the state changes only by compare and
 * swap. One process must not arrive twice in one generation: the client
 * serialises its own direct arrivals, the server checks a slot's marker.
 */
#ifndef SPX_PROTO_SHM_BARRIER_H
#define SPX_PROTO_SHM_BARRIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <pmix_common.h>

/* Job-level key of the HELLO data naming the segment's file (string). */
#define SPX_SHMB_KEY "spmix.shmfence"
/* Environment switch: SPMIX_SHM_FENCE=0 in the server's environment turns the
 * shared-memory fence off (every fence goes through the socket). */
#define SPX_SHMB_ENV "SPMIX_SHM_FENCE"
/* Most local processes a segment serves (count field width). */
#define SPX_SHMB_MAX_LOCAL 65535u

typedef struct spx_shmb spx_shmb_t;

/* What an arrival found. */
enum spx_shmb_arrive {
    SPX_SHMB_WAIT,        /* arrived; wait for generation *gen to be released */
    SPX_SHMB_LAST_SELF,   /* last one in, the gather is full: the caller releases it
                           * (spx_shmb_release) once no commit is pending, or
                           * closes it for the server (spx_shmb_close_gather) */
    SPX_SHMB_LAST_SERVER, /* last one in: the gather is closed, the server must finish it */
    SPX_SHMB_BUSY,        /* this slot is already in the current generation, or the
                           * gather is closed: wait for *gen's release, then retry */
    SPX_SHMB_BROKEN,      /* *status holds why */
};

/* Server: creates the segment file path (mode 0600, chowned to uid/gid) for
 * nlocal processes; self_complete: the last arrival may release by itself.
 * NULL with a log line on failure. path: borrowed (copied). */
spx_shmb_t *spx_shmb_create(const char *path, uint32_t nlocal, bool self_complete, uid_t uid,
                            gid_t gid);
/* Client: maps the segment at path; checks its header. NULL on failure. */
spx_shmb_t *spx_shmb_attach(const char *path);
/* Unmaps; the server also removes the file. NULL is accepted. */
void spx_shmb_close(spx_shmb_t *b);

uint32_t spx_shmb_nlocal(const spx_shmb_t *b);
bool spx_shmb_self_complete(const spx_shmb_t *b);

/* Arrives for slot. collect: PMIX_COLLECT_DATA was true; via_server: the
 * server arrives on a participant's behalf (its release must go through the
 * server). *gen: the generation arrived in (or to wait for when BUSY);
 * *ncollect: how many of the gathered arrivals asked to collect (LAST_*);
 * *status: for BROKEN. */
enum spx_shmb_arrive spx_shmb_arrive(spx_shmb_t *b, uint32_t slot, bool collect, bool via_server,
                                     uint32_t *gen, uint32_t *ncollect, pmix_status_t *status);

/* Releases generation gen with status (the last arrival of a self-completing
 * gather, or the server for a closed one, or the server breaking an open one).
 * Returns false when gen is not the current generation (already released). */
bool spx_shmb_release(spx_shmb_t *b, uint32_t gen, pmix_status_t status);

/* Waits until generation gen is released or gives up: returns the
 * generation's status, or PMIX_ERR_UNREACH when *lost became true (checked
 * after every wake-up). spin_ns: how long to spin before sleeping. */
pmix_status_t spx_shmb_wait(spx_shmb_t *b, uint32_t gen, const volatile bool *lost, long spin_ns);
/* Hands a full gather of generation gen to the server (sets closed); false
 * when gen was released meanwhile (the server broke it). */
bool spx_shmb_close_gather(spx_shmb_t *b, uint32_t gen);
/* Waits up to spin_ns (yielding the core) for every counted commit to be
 * applied by the server; true when none is pending. */
bool spx_shmb_await_commits(spx_shmb_t *b, long spin_ns);
/* True when generation gen has been released. */
bool spx_shmb_released(spx_shmb_t *b, uint32_t gen);
/* Wakes every waiter (for instance to make them look at their lost flag). */
void spx_shmb_wake_all(spx_shmb_t *b);

/* A private status the server breaks (or poisons) a segment with when a
 * local process of the namespace finalized: whole-namespace fences go
 * through the socket from then on, where the fence engine counts only the
 * processes that have not finalized. Never returned to an application. */
#define SPX_SHMB_USE_SOCKET ((pmix_status_t)-2000000002)

/* Server: from now on every arrival fails with status, and the open
 * generation (if any) is released with it. */
void spx_shmb_break(spx_shmb_t *b, pmix_status_t status);
pmix_status_t spx_shmb_broken(spx_shmb_t *b);
/* Server: from now on every arrival fails with status, but the current
 * generation (gathering, or with the server) is released as usual. */
void spx_shmb_poison(spx_shmb_t *b, pmix_status_t status);
/* True when someone has arrived in the current generation. */
bool spx_shmb_gathering(spx_shmb_t *b);
/* Server: arrivals work again (nobody is in the fence after a break). */
void spx_shmb_unbreak(spx_shmb_t *b);

/* Commit accounting, so that a gather never completes ahead of the data:
 * the client counts a COMMIT frame before sending it, the server after
 * applying it. spx_shmb_commits_pending: some slot sent more than was applied. */
void spx_shmb_commit_sent(spx_shmb_t *b, uint32_t slot);
void spx_shmb_commit_applied(spx_shmb_t *b, uint32_t slot);
bool spx_shmb_commits_pending(spx_shmb_t *b);
/* How many COMMIT frames of slot the server has applied (0 for a bad slot). */
uint64_t spx_shmb_commits_applied(spx_shmb_t *b, uint32_t slot);

/* Current generation, whether the gather is closed, and how many of its
 * arrivals asked to collect (closed and ncollect may be NULL). */
uint32_t spx_shmb_generation(spx_shmb_t *b, bool *closed, uint32_t *ncollect);

/* Index of rank among ranks[0..n) (any order), counted in ascending rank
 * order: the slot of that process. -1 when absent. */
long spx_shmb_slot_of(const pmix_rank_t *ranks, size_t n, pmix_rank_t rank);

#endif
