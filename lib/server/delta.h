/* delta.h - delta-exchange bookkeeping of collecting fences (PMIx_Fence spec:
 * "each server sends only what its processes have committed since they last
 * took part in a collecting fence").
 *
 * A table remembers, per local process, the participant set of its last
 * collecting fence that SUCCEEDED and the store sequence its contribution to
 * it covered. A new contribution is a delta (entries with sequence > that
 * boundary) only when the new fence's set is exactly that set; otherwise, and
 * for a process with no entry, it is the full published set from sequence 0,
 * tombstones included. The boundary moves only through spx_delta_commit,
 * which the server calls once a collecting fence completed successfully; a
 * failed or non-collecting fence leaves it where it was, so whatever is owed
 * travels with the next collecting fence. Pure data structure: no I/O, one
 * thread (the progress thread).
 */
#ifndef SPX_SERVER_DELTA_H
#define SPX_SERVER_DELTA_H

#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

#include "codec/buf.h"
#include "store/store.h"

typedef struct spx_delta spx_delta_t;

/* What one contribution holds. */
typedef struct spx_delta_contrib {
    size_t nkeys;      /* value entries written */
    size_t ndels;      /* deletion entries written */
    uint64_t since;    /* boundary used: 0 = full set */
    uint64_t upto;     /* boundary to commit if the fence succeeds */
} spx_delta_contrib_t;

spx_delta_t *spx_delta_create(void);
void spx_delta_destroy(spx_delta_t *d);

/* Boundary a contribution of proc to set_key starts after (0: full set). */
uint64_t spx_delta_since(const spx_delta_t *d, const pmix_proc_t *proc, const char *set_key);

/* Appends proc's record (only if it has entries) for a collecting fence over set_key to
 * out: the entries of s whose scope is in scope_mask with sequence > the boundary.
 * proc, set_key, s: borrowed. *res (may be NULL) describes what was written. */
void spx_delta_contribute(const spx_delta_t *d, const spx_store_t *s, const pmix_proc_t *proc,
                          const char *set_key, unsigned scope_mask, spx_buf_t *out,
                          spx_delta_contrib_t *res);

/* The collecting fence over set_key that proc contributed to (up to upto) succeeded.
 * PMIX_SUCCESS or PMIX_ERR_NOMEM (the old boundary is then dropped: next time full). */
pmix_status_t spx_delta_commit(spx_delta_t *d, const pmix_proc_t *proc, const char *set_key,
                               uint64_t upto);

/* proc went away: forget it (its next contribution, if it ever comes back, is full). */
void spx_delta_forget(spx_delta_t *d, const pmix_proc_t *proc);

#endif
