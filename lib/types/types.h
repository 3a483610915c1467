/* types.h - internal helpers around the PMIx data types (proc, value, info,
 * data array) used by every other module.
 *
 * The exported PMIx_Value_* / PMIx_Info_* / PMIx_Data_array_* functions live in
 * lib/types too; this header adds what spmix itself needs on top of them:
 * deep copies with malloc'd results, strict and coercing readers, lookups in
 * info arrays, proc comparisons and the parser for our node-map "regex".
 *
 * Ownership rules are stated on every function. "Deep" means every string,
 * byte object, nested struct and nested data array is copied; nothing of the
 * source is aliased except PMIX_POINTER targets and PMIX_TOPO topologies
 * (those are borrowed by design, see typedesc.h). Nothing here blocks or
 * touches library state: all functions are safe from any thread.
 */
#ifndef SPX_TYPES_TYPES_H
#define SPX_TYPES_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

/* ---- values ------------------------------------------------------------- */

/* Deep copy of *src into a new malloc'd value.
 * *dst: caller frees with spx_value_free(). On error *dst is NULL.
 * Returns PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (NULL args), PMIX_ERR_NOMEM or
 * PMIX_ERR_NOT_SUPPORTED (type a value cannot hold). */
pmix_status_t spx_value_copy(pmix_value_t **dst, const pmix_value_t *src);

/* Destructs (deep) and frees a value made by spx_value_copy or malloc.
 * NULL is a no-op. */
void spx_value_free(pmix_value_t *v);

/* Strict type check: v non-NULL and v->type == type. */
bool spx_value_is_type(const pmix_value_t *v, pmix_data_type_t type);

/* Coercing readers: accept any integer type (signed/unsigned/size/pid/
 * rank/status/byte/bool/u8-u64 enums), and a STRING holding a decimal
 * number, when the number fits the target range. Otherwise
 * PMIX_ERR_TYPE_MISMATCH (wrong type) or PMIX_ERR_BAD_PARAM (out of range
 * or not a number). *out is written only on success. */
pmix_status_t spx_value_to_u32(const pmix_value_t *v, uint32_t *out);
pmix_status_t spx_value_to_int(const pmix_value_t *v, int *out);
pmix_status_t spx_value_to_u64(const pmix_value_t *v, uint64_t *out);
pmix_status_t spx_value_to_i64(const pmix_value_t *v, int64_t *out);

/* Truth of a value used as a flag: UNDEF (no data) is true, BOOL its flag,
 * integers non-zero, STRING "true"/"yes"/"1" (case-insensitive) true and
 * "false"/"no"/"0" false; any other string or type counts as true (an
 * attribute that is present is set). */
bool spx_value_true(const pmix_value_t *v);

/* ---- infos ---------------------------------------------------------------- */

/* True when the info is "set": the key is present and its value is true
 * per spx_value_true (UNDEF counts as true). NULL info is false. */
bool spx_info_true(const pmix_info_t *info);

/* First info in info[0..n) whose key equals key, or NULL.
 * Returns a pointer into the borrowed array. */
const pmix_info_t *spx_info_find(const pmix_info_t *info, size_t n, const char *key);

/* spx_info_find + spx_info_true; false when absent. */
bool spx_info_flag(const pmix_info_t *info, size_t n, const char *key);
/* The string value of key (borrowed from info), or NULL when absent or not a
 * string. */
const char *spx_info_string(const pmix_info_t *info, size_t n, const char *key);

/* Deep copy of src[0..n) into a new malloc'd array (NULL when n == 0).
 * Persistent (PMIX_INFO_PERSISTENT) entries are copied deeply too and the
 * copies lose the flag, so the copy owns everything.
 * *dst: caller frees with spx_info_array_free(*dst, n). */
pmix_status_t spx_info_array_dup(pmix_info_t **dst, const pmix_info_t *src, size_t n);

/* Destructs info[0..n) (skipping values of persistent entries, as
 * PMIX_INFO_FREE does) and frees the array. NULL is a no-op. */
void spx_info_array_free(pmix_info_t *info, size_t n);

/* The PMIX_INFO_REQD rule: PMIX_ERR_NOT_SUPPORTED (with one error line naming
 * call and key) when an entry of info[0..ninfo) is flagged required and its
 * key is not in supported[] (NULL-terminated; NULL = the call honours no
 * directive); PMIX_SUCCESS otherwise. Everything borrowed. */
pmix_status_t spx_directives_check(const char *call, const pmix_info_t info[], size_t ninfo,
                                   const char *const supported[]);

/* The same rule for arrays that mix user data with directives: only
 * reserved ("pmix." prefixed) keys count as directives. */
pmix_status_t spx_directives_check_reserved(const char *call, const pmix_info_t info[],
                                            size_t ninfo, const char *const supported[]);

/* Copies key into a pmix_key_t-sized buffer, truncating at PMIX_MAX_KEYLEN
 * and NUL padding. */
void spx_key_load(char *dst, const char *key);

/* Bounded key equality (at most PMIX_MAX_KEYLEN+1 characters compared). */
bool spx_key_eq(const char *a, const char *b);

/* True for keys in the reserved "pmix." namespace. */
bool spx_key_is_reserved(const char *key);

/* ---- procs ---------------------------------------------------------------- */

void spx_proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t rank);
bool spx_nspace_eq(const char *a, const char *b);
/* Exact: same nspace and same rank. */
bool spx_proc_eq(const pmix_proc_t *a, const pmix_proc_t *b);
/* Wildcard-aware: same nspace and equal ranks, or either rank is
 * PMIX_RANK_WILDCARD. */
bool spx_proc_match(const pmix_proc_t *a, const pmix_proc_t *b);

/* ---- data arrays -------------------------------------------------------- */

/* Deep copy of *src into caller storage *dst (overwritten, not destructed
 * first). On failure *dst is left empty (UNDEF, 0, NULL).
 * Release with PMIx_Data_array_destruct(dst). */
pmix_status_t spx_darray_copy(pmix_data_array_t *dst, const pmix_data_array_t *src);

/* Size in bytes of one element of a data array of this type, 0 for types
 * that cannot be array elements. */
size_t spx_type_size(pmix_data_type_t type);

/* ---- string vectors ------------------------------------------------------- */

/* Deep copy of a NULL-terminated argv. *dst: NULL when src is NULL, else a
 * malloc'd argv the caller frees with spx_argv_free(). PMIX_ERR_NOMEM leaves
 * *dst NULL. */
pmix_status_t spx_argv_dup(char ***dst, char *const *src);

/* Frees every string of a NULL-terminated argv, then the array: the one argv
 * release of spmix (argvs built by the codec, the copies above, the regex
 * parsers). NULL is a no-op. */
void spx_argv_free(char **argv);

/* ---- node map "regex" ------------------------------------------------------ */

/* Our regex format is "spmix:" followed by the comma-separated list given to
 * PMIx_generate_regex; the ppn format is "spmix:" followed by the input of
 * PMIx_generate_ppn (one comma list of ranks per node, nodes separated by ';').
 * The prefix marks strings we made; parsers also accept the bare list. */
#define SPX_REGEX_PREFIX "spmix:"

/* Splits a node regex into a NULL-terminated argv of node names.
 * Empty items are kept out; an empty list gives an argv with no entries.
 * *argv: caller frees with spx_regex_free(). PMIX_ERR_BAD_PARAM on NULL
 * input or a foreign prefix ("pmix[" / "blob:" ...). */
pmix_status_t spx_regex_parse(const char *regex, char ***argv);

/* Splits a ppn string into a NULL-terminated argv with one entry per node,
 * each the comma list of ranks on that node ("0,1"). Empty node entries are
 * kept (a node may hold no rank of this job). Same ownership and errors. */
pmix_status_t spx_ppn_parse(const char *ppn, char ***argv);

/* Number of entries in a NULL-terminated argv (0 for NULL). */
size_t spx_regex_count(char *const *argv);

/* Frees an argv returned by the parsers. NULL is a no-op. */
void spx_regex_free(char **argv);

#endif
