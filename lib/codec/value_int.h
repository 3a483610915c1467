/* value_int.h - private glue between the files of the value codec:
 * value.c (type table, scalars, procs, values, infos, data arrays),
 * value_ext.c (the composite structs: apps, queries, stats, ...),
 * value_hwloc.c (cpusets, topologies) and
 * value_free.c (releasing what a pull allocated).
 *
 * Pull functions write into zeroed storage and always leave it in a state
 * that release can clean (every pointer NULL or owned, every count matching
 * its allocated array), so callers release on any failure.
 */
#ifndef SPX_CODEC_VALUE_INT_H
#define SPX_CODEC_VALUE_INT_H

#include "codec/value.h"

/* How a type is stored (and encoded). */
enum spx_codec_kind {
    SPX_K_NONE = 0, /* not encodable */
    SPX_K_U8,
    SPX_K_U16,
    SPX_K_U32,
    SPX_K_U64,
    SPX_K_BOOL,
    SPX_K_TIMEVAL,
    SPX_K_STRING,
    SPX_K_BO,
    SPX_K_PROC,
    SPX_K_NSPACE,
    SPX_K_VALUE,
    SPX_K_INFO,
    SPX_K_DARRAY,
    SPX_K_POINTER,
    SPX_K_EXT, /* composite: value_ext.c */
};

/* Where a pmix_value_t keeps a type. */
enum spx_codec_slot {
    SPX_SLOT_NONE = 0, /* a value cannot hold it */
    SPX_SLOT_INLINE,   /* inside the data union */
    SPX_SLOT_PTR,      /* data.ptr points to one malloc'd element */
};

typedef struct spx_codec_type {
    enum spx_codec_kind kind;
    enum spx_codec_slot slot;
    size_t size;     /* native element size */
    size_t min_wire; /* lower bound of its encoded size */
    const char *name;
} spx_codec_type_t;

/* Table entry for t, or NULL for unknown / unsupported types. */
const spx_codec_type_t *spx_codec_type_get(pmix_data_type_t t);

/* depth: data-array nesting so far; each nested container adds one. */
void spx_codec_push_elem(spx_buf_t *b, pmix_data_type_t t, const void *p, int depth);
void spx_codec_pull_elem(spx_buf_t *b, pmix_data_type_t t, void *p, int depth);
void spx_codec_push_ext(spx_buf_t *b, pmix_data_type_t t, const void *p, int depth);
void spx_codec_pull_ext(spx_buf_t *b, pmix_data_type_t t, void *p, int depth);
void spx_codec_release_ext(pmix_data_type_t t, void *p);

/* u32 count + n elements. */
void spx_codec_push_array(spx_buf_t *b, pmix_data_type_t t, const void *src, size_t n, int depth);
/* Pulls u32 count + elements into a calloc'd array stored in *out / *n before the
 * elements are read (so a partial result can be released). */
void spx_codec_pull_array(spx_buf_t *b, pmix_data_type_t t, void **out, size_t *n, int depth);
/* Reads a u32 element count for type t, bounded by SPX_BUF_MAX_COUNT and the unread
 * bytes; 0 with the buffer failed when over. */
uint32_t spx_codec_pull_count(spx_buf_t *b, pmix_data_type_t t);

/* value_hwloc.c: pmix_cpuset_t and pmix_topology_t. */
void spx_codec_push_cpuset(spx_buf_t *b, const pmix_cpuset_t *c);
void spx_codec_pull_cpuset(spx_buf_t *b, pmix_cpuset_t *c);
void spx_codec_push_topo(spx_buf_t *b, const pmix_topology_t *t);
void spx_codec_pull_topo(spx_buf_t *b, pmix_topology_t *t);

/* NULL-terminated string vectors (argv, env, query keys): u32 count + strings. */
void spx_codec_push_argv(spx_buf_t *b, char *const *argv);
void spx_codec_pull_argv(spx_buf_t *b, char ***out);
void spx_codec_free_argv(char **argv);

#endif
