/*
 * host/stdin_cache: what the ranks' stdin keeps and drops, without I/O.
 * Plain functions on a struct spx_stdin_cache (one per local rank) and the
 * pushes waiting at it; no fd, no thread, no clock (the caller passes the
 * time): host/stdin.c is the pump around it (pipes, the second source,
 * the upcall's lock and queue, callbacks).
 *
 * A push (struct spx_stdin_push, the bytes of one PMIx_IOF_push and what its
 * directives ask) waits in the FIFO of every target it goes to (struct
 * spx_stdin_pend) until its bytes are in that target's cache. The cache is
 * bounded (limit: PMIX_IOF_CACHE_SIZE, default SPX_HOST_STDIN_CACHE_DEFAULT)
 * and admits as the push's policy says: back-pressure (nothing lost: the
 * bytes wait until the rank reads), PMIX_IOF_DROP_NEWEST (what does not fit
 * is dropped) or PMIX_IOF_DROP_OLDEST (cached bytes are dropped to make
 * room; new bytes alone over the limit keep their end). A drop policy drops
 * only while the pipe takes nothing (the caller says so: pipe_full). What
 * may go to the pipe now is all of it, or with PMIX_IOF_BUFFERING_SIZE the
 * whole blocks, all again once PMIX_IOF_BUFFERING_TIME passed since the
 * oldest cached byte came, the cache is full or an EOF follows. A target
 * keeps the sizes and times the last push that gave them asked for.
 *
 * A push is released by each target once its bytes are cached there (or
 * its stdin ended); when the last one lets go it moves to a done list
 * (first error wins), from which the caller calls it back.
 *
 * Ownership: a push borrows its bytes (the library's byte object) until it
 * is called back, and is owned by whoever made it (host/stdin.c frees it
 * after its callback); a pend is its cache's (freed when its push is
 * released there); the cache's buffer is the cache's.
 */
#ifndef SPX_HOST_STDIN_CACHE_H
#define SPX_HOST_STDIN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

#include "host/stdin.h"

enum spx_stdin_policy {
    SPX_STDIN_BLOCK = 0,     /* wait for room: nothing lost */
    SPX_STDIN_DROP_NEWEST,
    SPX_STDIN_DROP_OLDEST,
};

struct spx_stdin_push {
    struct spx_stdin_push *next;      /* incoming queue, then the done list */
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    const unsigned char *data;        /* the library's bytes, borrowed until cbfunc */
    size_t size;
    size_t cache;                     /* PMIX_IOF_CACHE_SIZE, 0: not given */
    size_t bsize;                     /* PMIX_IOF_BUFFERING_SIZE, 0: not given */
    double btime;                     /* PMIX_IOF_BUFFERING_TIME (s), 0: not given */
    enum spx_stdin_policy policy;
    bool eof;                         /* end the targets' stdin after the bytes */
    uint32_t *slots, nslots;          /* local targets (owned) */
    uint32_t left;                    /* targets still holding it */
    pmix_status_t status;
};

/* A push waiting at one target; done: bytes of it already taken. */
struct spx_stdin_pend {
    struct spx_stdin_pend *next;
    struct spx_stdin_push *p;         /* borrowed: released, not freed, here */
    size_t done;
};

/* Pushes every target let go of, in that order, waiting for their callback. */
struct spx_stdin_done_list {
    struct spx_stdin_push *head, *tail;
};

struct spx_stdin_cache {
    unsigned char *buf;               /* owned: the bytes are buf[off .. off+len) */
    size_t off, len, cap, limit;
    size_t bsize;                     /* deliver in blocks of bsize (0: at once) */
    double btime, held_at;            /* ... or btime s after held_at (0: never) */
    struct spx_stdin_pend *head, *tail;   /* pushes waiting here, FIFO (owned) */
    bool eof_queued;                  /* the stdin ends once the cache is written */
    uint64_t dropped;                 /* bytes dropped by a drop policy */
};

/* Reads the directives of a push into p (cache, bsize, btime, policy; eof
 * is or'ed with PMIX_IOF_COMPLETE). PMIX_ERR_BAD_PARAM for a size that is
 * not a number, a cache size of 0, or both drop policies. dirs borrowed. */
pmix_status_t spx_stdin_push_directives(struct spx_stdin_push *p, const pmix_info_t dirs[],
                                        size_t ndirs);
/* One target lets go of p with st (the first error wins); the last one
 * appends p to done. */
void spx_stdin_push_release(struct spx_stdin_push *p, pmix_status_t st,
                            struct spx_stdin_done_list *done);
/* The oldest push of done (taken off it), or NULL. */
struct spx_stdin_push *spx_stdin_done_take(struct spx_stdin_done_list *done);

/* An empty cache of the default size. */
void spx_stdin_cache_init(struct spx_stdin_cache *c);
/* p waits at c from now on (after those already there). -1: out of memory
 * (the caller releases p for c). */
int spx_stdin_cache_enqueue(struct spx_stdin_cache *c, struct spx_stdin_push *p);
/* Moves waiting bytes into c as their pushes' policies allow; a drop policy
 * drops only when pipe_full. Pushes whose bytes are all in go to done (an
 * EOF push sets eof_queued). True when anything moved (taken or dropped);
 * *err is -1 on a memory failure. now: monotonic seconds. */
bool spx_stdin_cache_admit(struct spx_stdin_cache *c, bool pipe_full, double now,
                           struct spx_stdin_done_list *done, int *err);
/* n bytes of another source (borrowed), which fit (spx_stdin_cache_room),
 * appended as they are, never dropped. 0, or -1 when out of memory. */
int spx_stdin_cache_put(struct spx_stdin_cache *c, const unsigned char *bytes, size_t n,
                        double now);
/* Bytes c may take before it is full (what another source may add). */
size_t spx_stdin_cache_room(const struct spx_stdin_cache *c);
/* How many cached bytes, from buf + off, may go to the pipe at now. */
size_t spx_stdin_cache_ready(const struct spx_stdin_cache *c, double now);
/* n of them went to the pipe: they leave the front of the cache. */
void spx_stdin_cache_consumed(struct spx_stdin_cache *c, size_t n);
/* When a held block must go anyway (monotonic seconds), or -1: none held. */
double spx_stdin_cache_deadline(const struct spx_stdin_cache *c);
/* Nothing must go to the pipe before another source's bytes: nothing
 * cached, no push waiting, no block buffering. */
bool spx_stdin_cache_bypassable(const struct spx_stdin_cache *c);
/* Every pushed byte written and a pushed EOF came after them. */
bool spx_stdin_cache_drained_to_eof(const struct spx_stdin_cache *c);
/* The stdin ends: every push waiting is released with st into done, the
 * cached bytes and the drop count go (the caller logs them first); the
 * limit and buffering sizes stay. */
void spx_stdin_cache_end(struct spx_stdin_cache *c, pmix_status_t st,
                         struct spx_stdin_done_list *done);

#endif /* SPX_HOST_STDIN_CACHE_H */
