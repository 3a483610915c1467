/* value_int.h - private glue between the files of the value codec:
 * value.c (element and array dispatch, scalars, strings, procs, values, infos,
 * data arrays, releasing), value_ext.c (the composite structs: apps, queries,
 * stats, ...) and value_hwloc.c (cpusets, topologies).
 *
 * Which function encodes a type is in that type's row of the one type table
 * (types/typedesc.h: pack, unpack, wire_min, size, release); the per-type
 * functions spx_codec_pack_X / spx_codec_unpack_X are declared there. Calls
 * go one way: value_ext.c and value_hwloc.c use value.c's helpers; value.c
 * reaches them only through the table.
 *
 * Unpack functions write into zeroed storage and always leave it in a state
 * that release can clean (every pointer NULL or owned, every count matching
 * its allocated array), so callers release on any failure.
 */
#ifndef SPX_CODEC_VALUE_INT_H
#define SPX_CODEC_VALUE_INT_H

#include <stdbool.h>

#include "codec/value.h"
#include "types/typedesc.h"

/* depth: data-array nesting so far; each nested container adds one. */
void spx_codec_push_elem(spx_buf_t *b, pmix_data_type_t t, const void *p, int depth);
void spx_codec_pull_elem(spx_buf_t *b, pmix_data_type_t t, void *p, int depth);

/* u32 count + n elements. */
void spx_codec_push_array(spx_buf_t *b, pmix_data_type_t t, const void *src, size_t n, int depth);
/* Pulls u32 count + elements into a calloc'd array stored in *out / *n before the
 * elements are read (so a partial result can be released). */
void spx_codec_pull_array(spx_buf_t *b, pmix_data_type_t t, void **out, size_t *n, int depth);
/* Reads a u32 element count for type t, bounded by SPX_BUF_MAX_COUNT and the unread
 * bytes; 0 with the buffer failed when over. */
uint32_t spx_codec_pull_count(spx_buf_t *b, pmix_data_type_t t);

/* NULL-terminated string vectors (argv, env, query keys): u32 count + strings.
 * A pulled vector is released with spx_argv_free (types/types.h). */
void spx_codec_push_argv(spx_buf_t *b, char *const *argv);
void spx_codec_pull_argv(spx_buf_t *b, char ***out);

/* Composite structs refuse nesting at SPX_CODEC_MAX_DEPTH: true (with the
 * buffer failed with err: EPROTO on push, EBADMSG on pull) when too deep. */
static inline bool spx_codec_too_deep(spx_buf_t *b, int depth, int err)
{
    if (depth < SPX_CODEC_MAX_DEPTH)
        return false;
    spx_buf_set_error(b, err);
    return true;
}

#endif
