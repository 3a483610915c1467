/* records.h - the key/value record stream that carries PMIx_Put data on the
 * wire: in COMMIT messages (client -> server) and in fence contributions
 * (server -> host -> every server).
 *
 * A stream is a sequence of proc records with no count in front, so the
 * contributions of several servers can simply be concatenated:
 *     record  := str nspace, u32 rank, u32 nentries, nentries x entry
 *     entry   := u8 scope, str key, value      (scope PMIX_LOCAL..PMIX_INTERNAL)
 *              | u8 scope, str key             (scope PMIX_DEL_LOCAL..PMIX_DEL_INTERNAL)
 * Reading applies each entry to a store: a value entry is a put, a deletion
 * entry a spx_store_delete.
 */
#ifndef SPX_PROTO_RECORDS_H
#define SPX_PROTO_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include <pmix_common.h>

#include "codec/buf.h"
#include "store/store.h"

/* Scope masks: bit (1u << scope). */
#define SPX_SCOPE_BIT(s) (1u << (unsigned)(s))
/* What a client commits: everything but internal data. */
#define SPX_SCOPES_COMMIT                                                              \
    (SPX_SCOPE_BIT(PMIX_LOCAL) | SPX_SCOPE_BIT(PMIX_REMOTE) | SPX_SCOPE_BIT(PMIX_GLOBAL) | \
     SPX_SCOPE_BIT(PMIX_DEL_LOCAL) | SPX_SCOPE_BIT(PMIX_DEL_REMOTE) |                  \
     SPX_SCOPE_BIT(PMIX_DEL_GLOBAL))
/* What crosses to other nodes in a collecting fence. */
#define SPX_SCOPES_REMOTE                                                                   \
    (SPX_SCOPE_BIT(PMIX_REMOTE) | SPX_SCOPE_BIT(PMIX_GLOBAL) | SPX_SCOPE_BIT(PMIX_DEL_REMOTE) | \
     SPX_SCOPE_BIT(PMIX_DEL_GLOBAL))

static inline bool spx_scope_is_delete(pmix_scope_t s)
{
    return s >= PMIX_DEL_LOCAL && s <= PMIX_DEL_INTERNAL;
}

/* Appends one record for (nspace, rank): the store entries with sequence > since whose
 * scope is in scope_mask (a tombstone's scope is its PMIX_DEL_* scope). Returns the
 * number of entries written (a record with 0 entries is still written when
 * always_emit, else nothing is written for 0). *max_seq_out (may be NULL) gets the
 * highest sequence seen. */
size_t spx_records_push_proc(spx_buf_t *b, const spx_store_t *s, const char *nspace,
                             pmix_rank_t rank, uint64_t since, unsigned scope_mask,
                             bool always_emit, uint64_t *max_seq_out);

/* Decides, per record, whether to apply it: return false to skip (e.g. own procs). */
typedef bool (*spx_records_filter_f)(const char *nspace, pmix_rank_t rank, void *arg);

/* Reads records until the buffer is consumed and applies them to dst (filter may be
 * NULL). 0, or -1 when the stream is malformed (the buffer is failed; entries of
 * earlier complete records stay applied). Counts are bounded by the codec caps. */
int spx_records_apply(spx_buf_t *b, spx_store_t *dst, spx_records_filter_f filter, void *arg);

#endif
