/* store.h - key/value store of PMIx data, per process (nspace, rank) and key.
 *
 * Used by the client (its own puts, job info, values fetched from the server)
 * and by the server (what its clients committed, what fences delivered).
 * Every write gets the next number of a per-store sequence; a deletion leaves
 * a tombstone with its own sequence number, so a caller can list exactly what
 * changed for a process since a sequence number (delta exchange, deletions
 * carried by fences). Not thread-safe: owned by the progress thread.
 * Values are copied in (or moved in: spx_store_put_owned) and copied out; peek
 * returns a borrowed pointer valid until the next write to that entry.
 */
#ifndef SPX_STORE_STORE_H
#define SPX_STORE_STORE_H

#include <stdint.h>
#include <pmix_common.h>

typedef struct spx_store spx_store_t;

spx_store_t *spx_store_create(void);
void spx_store_destroy(spx_store_t *s);

/* Stores a copy of val under (nspace, rank, key) with scope; replaces an older value
 * or tombstone. PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (NULL/too long key) or PMIX_ERR_NOMEM. */
pmix_status_t spx_store_put(spx_store_t *s, const char *nspace, pmix_rank_t rank, const char *key,
                            const pmix_value_t *val, pmix_scope_t scope);
/* Like spx_store_put, but moves val's contents into the store instead of
 * copying them (for a value just decoded, e.g. from a record stream). On
 * PMIX_SUCCESS the store owns what val held and *val is reset to an empty
 * PMIX_UNDEF value (PMIx_Value_destruct on it is a no-op). On failure
 * (PMIX_ERR_BAD_PARAM for NULL/too long key or NULL val, PMIX_ERR_NOMEM) *val is
 * untouched and still the caller's, and any older value or tombstone stays.
 * So a caller may always PMIx_Value_destruct(val) afterwards. */
pmix_status_t spx_store_put_owned(spx_store_t *s, const char *nspace, pmix_rank_t rank,
                                  const char *key, pmix_value_t *val, pmix_scope_t scope);
/* Replaces the entry with a tombstone (scope records what was deleted).
 * PMIX_SUCCESS even if the key did not exist (a tombstone is still recorded). */
pmix_status_t spx_store_delete(spx_store_t *s, const char *nspace, pmix_rank_t rank,
                               const char *key, pmix_scope_t scope);
/* Borrowed pointer to the live value or NULL (absent or deleted). scope_out may be NULL. */
const pmix_value_t *spx_store_peek(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                                   const char *key, pmix_scope_t *scope_out);
/* Copy of the live value: *out malloc'd, caller frees with PMIX_VALUE_RELEASE.
 * PMIX_ERR_NOT_FOUND if absent. */
pmix_status_t spx_store_get(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                            const char *key, pmix_value_t **out);

/* Calls fn for each entry of (nspace, rank) whose sequence number is > since, in
 * sequence order; val is NULL for a tombstone. Borrowed arguments. fn returns 0 to
 * go on, non-zero to stop (that value is returned). fn must not write to s. */
typedef int (*spx_store_visit_f)(const char *key, const pmix_value_t *val, pmix_scope_t scope,
                                 uint64_t seq, void *arg);
int spx_store_foreach_since(const spx_store_t *s, const char *nspace, pmix_rank_t rank,
                            uint64_t since, spx_store_visit_f fn, void *arg);
/* Highest sequence number handed out so far (0 for none). */
uint64_t spx_store_seq(const spx_store_t *s);
/* Number of live (non-tombstone) keys of (nspace, rank). */
size_t spx_store_count(const spx_store_t *s, const char *nspace, pmix_rank_t rank);

/* Drops everything of one process / of a whole namespace. */
void spx_store_remove_proc(spx_store_t *s, const char *nspace, pmix_rank_t rank);
void spx_store_remove_nspace(spx_store_t *s, const char *nspace);

#endif
