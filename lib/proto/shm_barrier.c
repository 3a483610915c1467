/* shm_barrier.c - the shared-memory gather of whole-namespace fences
 * (contract and rationale in shm_barrier.h).
 *
 * State word (64 bits, changed only by compare and swap):
 *   bits  0-19  arrivals in the current generation
 *   bits 20-39  of those, how many asked to collect data
 *   bit  40     one arrival came through the server (release goes through it)
 *   bit  41     closed: everybody is in, the server finishes the fence
 *   bits 42-63  generation (wraps)
 * A release resets the counts and flags and advances the generation, then
 * writes the generation's status and done_gen (the futex word) and wakes the
 * sleepers. Generations are compared modulo 2^22.
 */
#include "config.h"
#include "proto/shm_barrier.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"

#define SHMB_MAGIC 0x424d5053u /* "SPMB" */
#define SHMB_VERSION 1u

#define CNT_BITS 20
#define CNT_MASK ((UINT64_C(1) << CNT_BITS) - 1)
#define COL_SHIFT 20
#define VIA_BIT (UINT64_C(1) << 40)
#define CLOSED_BIT (UINT64_C(1) << 41)
#define GEN_SHIFT 42
#define GEN_MASK ((UINT32_C(1) << 22) - 1)
#define ARRIVED_FLAG 0x80000000u

struct shmb_slot {
    _Atomic uint64_t commits_sent;    /* COMMIT frames the process sent */
    _Atomic uint64_t commits_applied; /* of those, applied by the server */
    _Atomic uint32_t arrived;         /* ARRIVED_FLAG | generation of its last arrival */
    char pad[44];
};

struct shmb_seg {
    uint32_t magic, version, nlocal, self_complete;
    char pad0[48];
    _Atomic uint64_t state;
    char pad1[56];
    _Atomic uint32_t done_gen;        /* futex word */
    _Atomic int32_t status[2];        /* status of a released generation, by parity */
    _Atomic int32_t broken;
    char pad2[48];
    struct shmb_slot slot[];
};

struct spx_shmb {
    struct shmb_seg *seg;  /* mapping */
    size_t len;
    /* the header's values, read once: every other process of the job can
     * write the segment, so its header is never trusted again (bounds) */
    uint32_t nlocal;
    bool self_complete;
    char *path;            /* owned; set only in the creating server (removed on close) */
};

static size_t seg_len(uint32_t nlocal)
{
    return sizeof(struct shmb_seg) + (size_t)nlocal * sizeof(struct shmb_slot);
}

static uint32_t st_gen(uint64_t s) { return (uint32_t)(s >> GEN_SHIFT) & GEN_MASK; }
static uint32_t st_count(uint64_t s) { return (uint32_t)(s & CNT_MASK); }
static uint32_t st_ncollect(uint64_t s) { return (uint32_t)((s >> COL_SHIFT) & CNT_MASK); }

static uint64_t st_make(uint32_t gen, uint32_t count, uint32_t ncollect, uint64_t flags)
{
    return ((uint64_t)(gen & GEN_MASK) << GEN_SHIFT) | ((uint64_t)ncollect << COL_SHIFT) |
           (uint64_t)count | flags;
}

/* Is a at or after b, modulo the generation width? */
static bool gen_reached(uint32_t a, uint32_t b)
{
    return ((a - b) & GEN_MASK) < (GEN_MASK / 2);
}

spx_shmb_t *spx_shmb_create(const char *path, uint32_t nlocal, bool self_complete, uid_t uid,
                            gid_t gid)
{
    if (!path || nlocal == 0 || nlocal > SPX_SHMB_MAX_LOCAL)
        return NULL;
    spx_shmb_t *b = calloc(1, sizeof(*b));
    if (!b || !(b->path = strdup(path))) {
        free(b);
        return NULL;
    }
    b->len = seg_len(nlocal);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        spx_warn("shared-memory fence: cannot create %s: %s", path, strerror(errno));
        goto fail;
    }
    if (ftruncate(fd, (off_t)b->len) != 0 || (geteuid() == 0 && fchown(fd, uid, gid) != 0)) {
        spx_warn("shared-memory fence: cannot size or hand over %s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        goto fail;
    }
    b->seg = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (b->seg == MAP_FAILED) {
        spx_warn("shared-memory fence: cannot map %s: %s", path, strerror(errno));
        b->seg = NULL;
        unlink(path);
        goto fail;
    }
    b->seg->nlocal = nlocal;
    b->seg->self_complete = self_complete;
    b->nlocal = nlocal;
    b->self_complete = self_complete;
    b->seg->version = SHMB_VERSION;
    atomic_store(&b->seg->state, 0);
    atomic_store(&b->seg->done_gen, 0);
    atomic_store_explicit((_Atomic uint32_t *)&b->seg->magic, SHMB_MAGIC, memory_order_release);
    return b;
fail:
    free(b->path);
    free(b);
    return NULL;
}

spx_shmb_t *spx_shmb_attach(const char *path)
{
    if (!path)
        return NULL;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        spx_debug("shared-memory fence: cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    spx_shmb_t *b = NULL;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(struct shmb_seg) ||
        st.st_size > (off_t)seg_len(SPX_SHMB_MAX_LOCAL))
        goto out;
    size_t len = (size_t)st.st_size;
    struct shmb_seg *seg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == MAP_FAILED)
        goto out;
    uint32_t nlocal = seg->nlocal; /* read once: another process may change it */
    if (seg->magic != SHMB_MAGIC || seg->version != SHMB_VERSION || nlocal == 0 ||
        nlocal > SPX_SHMB_MAX_LOCAL || seg_len(nlocal) != len) {
        spx_debug("shared-memory fence: %s has an unexpected header", path);
        munmap(seg, len);
        goto out;
    }
    if ((b = calloc(1, sizeof(*b))) == NULL) {
        munmap(seg, len);
        goto out;
    }
    b->seg = seg;
    b->len = len;
    b->nlocal = nlocal;
    b->self_complete = seg->self_complete != 0;
out:
    close(fd);
    return b;
}

void spx_shmb_close(spx_shmb_t *b)
{
    if (!b)
        return;
    if (b->seg)
        munmap(b->seg, b->len);
    if (b->path) {
        unlink(b->path);
        free(b->path);
    }
    free(b);
}

uint32_t spx_shmb_nlocal(const spx_shmb_t *b) { return b->nlocal; }
bool spx_shmb_self_complete(const spx_shmb_t *b) { return b->self_complete; }

static void futex_wake_all(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

bool spx_shmb_commits_pending(spx_shmb_t *b)
{
    for (uint32_t i = 0; i < b->nlocal; i++) {
        struct shmb_slot *s = &b->seg->slot[i];
        if (atomic_load_explicit(&s->commits_applied, memory_order_acquire) <
            atomic_load_explicit(&s->commits_sent, memory_order_acquire))
            return true;
    }
    return false;
}

enum spx_shmb_arrive spx_shmb_arrive(spx_shmb_t *b, uint32_t slot, bool collect, bool via_server,
                                     uint32_t *gen, uint32_t *ncollect, pmix_status_t *status)
{
    struct shmb_seg *g = b->seg;
    if (slot >= b->nlocal) {
        *status = PMIX_ERR_BAD_PARAM;
        return SPX_SHMB_BROKEN;
    }
    uint64_t s = atomic_load_explicit(&g->state, memory_order_acquire);
    for (;;) {
        int32_t br = atomic_load_explicit(&g->broken, memory_order_acquire);
        if (br != 0) {
            *status = br;
            return SPX_SHMB_BROKEN;
        }
        uint32_t cur = st_gen(s);
        *gen = cur;
        if ((s & CLOSED_BIT) ||
            atomic_load_explicit(&g->slot[slot].arrived, memory_order_acquire) ==
                (ARRIVED_FLAG | cur))
            return SPX_SHMB_BUSY;
        uint32_t count = st_count(s) + 1;
        uint32_t nc = st_ncollect(s) + (collect ? 1 : 0);
        uint64_t flags = (s & VIA_BIT) | (via_server ? VIA_BIT : 0);
        uint64_t next;
        enum spx_shmb_arrive res;
        if (count < b->nlocal) {
            next = st_make(cur, count, nc, flags);
            res = SPX_SHMB_WAIT;
        } else if (b->self_complete && !flags) {
            next = st_make(cur, count, nc, 0); /* full; the caller releases or closes it */
            res = SPX_SHMB_LAST_SELF;
        } else {
            next = st_make(cur, count, nc, flags | CLOSED_BIT);
            res = SPX_SHMB_LAST_SERVER;
        }
        if (atomic_compare_exchange_weak_explicit(&g->state, &s, next, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            atomic_store_explicit(&g->slot[slot].arrived, ARRIVED_FLAG | cur,
                                  memory_order_release);
            /* a break that looked at the state before this arrival could not
             * release it: then it is released here, as the break would have */
            atomic_thread_fence(memory_order_seq_cst);
            br = atomic_load_explicit(&g->broken, memory_order_seq_cst);
            if (br != 0) {
                spx_shmb_release(b, cur, br);
                *status = br;
                return SPX_SHMB_BROKEN;
            }
            *ncollect = nc;
            if (res == SPX_SHMB_LAST_SELF && nc != 0 && nc != b->nlocal)
                *status = PMIX_ERR_BAD_PARAM;
            else
                *status = PMIX_SUCCESS;
            return res;
        }
    }
}

bool spx_shmb_release(spx_shmb_t *b, uint32_t gen, pmix_status_t status)
{
    struct shmb_seg *g = b->seg;
    uint64_t s = atomic_load_explicit(&g->state, memory_order_acquire);
    for (;;) {
        if (st_gen(s) != (gen & GEN_MASK))
            return false;
        uint64_t next = st_make(gen + 1, 0, 0, 0);
        if (atomic_compare_exchange_weak_explicit(&g->state, &s, next, memory_order_acq_rel,
                                                  memory_order_acquire))
            break;
    }
    atomic_store_explicit(&g->status[gen & 1], status, memory_order_release);
    atomic_store_explicit(&g->done_gen, (gen + 1) & GEN_MASK, memory_order_release);
    futex_wake_all(&g->done_gen);
    return true;
}

static long elapsed_ns(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

bool spx_shmb_close_gather(spx_shmb_t *b, uint32_t gen)
{
    struct shmb_seg *g = b->seg;
    uint64_t s = atomic_load_explicit(&g->state, memory_order_acquire);
    for (;;) {
        if (st_gen(s) != (gen & GEN_MASK) || st_count(s) != b->nlocal)
            return false;
        if (s & CLOSED_BIT)
            return true;
        if (atomic_compare_exchange_weak_explicit(&g->state, &s, s | CLOSED_BIT,
                                                  memory_order_acq_rel, memory_order_acquire))
            return true;
    }
}

bool spx_shmb_await_commits(spx_shmb_t *b, long spin_ns)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (!spx_shmb_commits_pending(b))
            return true;
        if (elapsed_ns(&t0) >= spin_ns)
            return false;
        sched_yield(); /* the server needs a core to apply them */
    }
}

bool spx_shmb_released(spx_shmb_t *b, uint32_t gen)
{
    uint32_t d = atomic_load_explicit(&b->seg->done_gen, memory_order_acquire);
    return gen_reached(d, (gen + 1) & GEN_MASK);
}

pmix_status_t spx_shmb_wait(spx_shmb_t *b, uint32_t gen, const volatile bool *lost, long spin_ns)
{
    struct shmb_seg *g = b->seg;
    uint32_t want = (gen + 1) & GEN_MASK;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned n = 0;
    for (;;) {
        uint32_t d = atomic_load_explicit(&g->done_gen, memory_order_acquire);
        if (gen_reached(d, want))
            return atomic_load_explicit(&g->status[gen & 1], memory_order_acquire);
        if (lost && *lost)
            return PMIX_ERR_UNREACH;
        if (spin_ns > 0 && ((++n & 63) != 0 || elapsed_ns(&t0) < spin_ns)) {
            __builtin_ia32_pause();
            continue;
        }
        /* sleeps while done_gen is still d; a second at most, to look at *lost */
        struct timespec one = {1, 0};
        syscall(SYS_futex, (uint32_t *)&g->done_gen, FUTEX_WAIT, d, &one, NULL, 0);
    }
}

void spx_shmb_wake_all(spx_shmb_t *b)
{
    futex_wake_all(&b->seg->done_gen);
}

void spx_shmb_break(spx_shmb_t *b, pmix_status_t status)
{
    struct shmb_seg *g = b->seg;
    if (status == PMIX_SUCCESS)
        status = PMIX_ERROR;
    int32_t expect = 0;
    atomic_compare_exchange_strong(&g->broken, &expect, status);
    atomic_thread_fence(memory_order_seq_cst); /* pairs with the one in spx_shmb_arrive */
    uint64_t s = atomic_load_explicit(&g->state, memory_order_seq_cst);
    if (st_count(s) > 0 || (s & CLOSED_BIT))
        spx_shmb_release(b, st_gen(s), status);
    else
        futex_wake_all(&g->done_gen);
}

void spx_shmb_poison(spx_shmb_t *b, pmix_status_t status)
{
    int32_t expect = 0;
    atomic_compare_exchange_strong(&b->seg->broken, &expect,
                                   status == PMIX_SUCCESS ? PMIX_ERROR : status);
}

pmix_status_t spx_shmb_broken(spx_shmb_t *b)
{
    return atomic_load_explicit(&b->seg->broken, memory_order_acquire);
}

bool spx_shmb_gathering(spx_shmb_t *b)
{
    return st_count(atomic_load_explicit(&b->seg->state, memory_order_acquire)) > 0;
}

uint64_t spx_shmb_commits_applied(spx_shmb_t *b, uint32_t slot)
{
    return slot < b->nlocal
               ? atomic_load_explicit(&b->seg->slot[slot].commits_applied, memory_order_acquire)
               : 0;
}

void spx_shmb_unbreak(spx_shmb_t *b)
{
    atomic_store_explicit(&b->seg->broken, 0, memory_order_release);
}

void spx_shmb_commit_sent(spx_shmb_t *b, uint32_t slot)
{
    if (slot < b->nlocal)
        atomic_fetch_add_explicit(&b->seg->slot[slot].commits_sent, 1, memory_order_release);
}

void spx_shmb_commit_applied(spx_shmb_t *b, uint32_t slot)
{
    if (slot < b->nlocal)
        atomic_fetch_add_explicit(&b->seg->slot[slot].commits_applied, 1, memory_order_release);
}

uint32_t spx_shmb_generation(spx_shmb_t *b, bool *closed, uint32_t *ncollect)
{
    uint64_t s = atomic_load_explicit(&b->seg->state, memory_order_acquire);
    if (closed)
        *closed = (s & CLOSED_BIT) != 0;
    if (ncollect)
        *ncollect = st_ncollect(s);
    return st_gen(s);
}

long spx_shmb_slot_of(const pmix_rank_t *ranks, size_t n, pmix_rank_t rank)
{
    long below = 0;
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        if (ranks[i] == rank)
            found = true;
        else if (ranks[i] < rank)
            below++;
    }
    return found ? below : -1;
}
