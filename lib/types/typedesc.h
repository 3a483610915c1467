/* typedesc.h - one descriptor per PMIx data type (private to lib/types and
 * lib/codec).
 *
 * Every operation on one element of a PMIx type goes through its row in one
 * table (typedesc.c): copy, release, compare, print, pack and unpack, plus
 * what the generic code needs to know (native size, where a pmix_value_t keeps
 * it, whether it is a plain number, the smallest encoding). An element is one
 * item of a data array of that type; a pmix_value_t stores one element either
 * inline in its data union (scalars, strings, byte objects, envars) or boxed
 * behind the union's pointer (procs, proc infos, data arrays, coords, ...).
 * Value, data-array, info, printing and codec code never switch on the type
 * themselves: they look the row up and call through it.
 *
 * Layering: lib/types does not include lib/codec. The pack/unpack slots are
 * typed on an opaque struct spx_buf and filled with the codec's element
 * functions (lib/codec/value*.c, declared at the end of this header), so the
 * table is one static const array: no registration step, no init order, no
 * lock, safe from any thread, and the compiler sees every row whole. lib/types
 * only ever reaches the codec through those two slots.
 *
 * Borrowed by design: PMIX_POINTER targets and the hwloc topology behind a
 * PMIX_TOPO are never copied or freed (the caller owns them); a PMIX_PROC_CPUSET
 * with source "hwloc" has its bitmap duplicated, any other bitmap is borrowed.
 */
#ifndef SPX_TYPES_TYPEDESC_H
#define SPX_TYPES_TYPEDESC_H

#include <stddef.h>
#include <stdio.h>
#include <pmix_common.h>

struct spx_buf;          /* lib/codec/buf.h (opaque here) */
struct spx_typedesc;

enum spx_td_store {
    SPX_TD_ARRAY_ONLY = 0, /* may be an array element, not a value (INFO, APP, ...) */
    SPX_TD_INLINE,         /* element lives at &value->data */
    SPX_TD_BOXED,          /* value->data.ptr points to one malloc'd element */
};

enum spx_td_num {
    SPX_NUM_NONE = 0,
    SPX_NUM_SIGNED,
    SPX_NUM_UNSIGNED,
    SPX_NUM_FLOAT,
};

/* dst is zeroed storage of td->size bytes; on failure dst is left holding
 * nothing that needs freeing. */
typedef pmix_status_t (*spx_td_copy_f)(void *dst, const void *src);
/* Releases what the element owns (not the element storage itself). */
typedef void (*spx_td_release_f)(void *elem);
typedef pmix_value_cmp_t (*spx_td_cmp_f)(const void *a, const void *b);

/* Writes the element's data as text (no type name, no newline); depth is the
 * nesting so far, bounded by the printers (print.c). */
typedef void (*spx_td_print_f)(FILE *f, const struct spx_typedesc *td, const void *elem,
                               int depth);
/* Appends the element's encoding to b (borrowed); failures stick in b.
 * depth: data-array nesting so far, bounded by SPX_CODEC_MAX_DEPTH. */
typedef void (*spx_td_pack_f)(struct spx_buf *b, const void *elem, int depth);
/* Decodes one element into zeroed storage; on failure (sticky in b) the
 * element is left releasable by the row's release. */
typedef void (*spx_td_unpack_f)(struct spx_buf *b, void *elem, int depth);

struct spx_typedesc {
    pmix_data_type_t type;
    const char *name;         /* "PMIX_BOOL" */
    size_t size;              /* bytes of one element */
    enum spx_td_store store;
    enum spx_td_num num;      /* plain numbers: compared and printed by value */
    spx_td_copy_f copy;       /* NULL: memcpy */
    spx_td_release_f release; /* NULL: nothing owned */
    spx_td_cmp_f cmp;         /* NULL: numeric (num != NONE) or memcmp */
    spx_td_print_f print;     /* never NULL */
    spx_td_pack_f pack;       /* NULL: not encodable (PMIX_UNDEF only) */
    spx_td_unpack_f unpack;   /* NULL exactly when pack is */
    size_t wire_min;          /* lower bound of one encoded element (>= 1), used to
                               * bound counts; the exact width of fixed scalars */
};

/* NULL for unknown types. Borrowed static data. */
const struct spx_typedesc *spx_typedesc_get(pmix_data_type_t type);

/* Element operations (use the descriptor, fall back to memcpy/memcmp). */
pmix_status_t spx_td_elem_copy(const struct spx_typedesc *td, void *dst, const void *src);
void spx_td_elem_free(const struct spx_typedesc *td, void *elem);
pmix_value_cmp_t spx_td_elem_cmp(const struct spx_typedesc *td, const void *a, const void *b);

/* Per-struct element functions (elem.c / elem_cmp.c), shared with value.c. */
pmix_status_t spx_elem_copy_string(void *dst, const void *src);
void spx_elem_free_string(void *elem);
pmix_status_t spx_elem_copy_bo(void *dst, const void *src);
void spx_elem_free_bo(void *elem);
pmix_status_t spx_elem_copy_nspace(void *dst, const void *src);
pmix_status_t spx_elem_copy_value(void *dst, const void *src);
void spx_elem_free_value(void *elem);
pmix_status_t spx_elem_copy_info(void *dst, const void *src);
void spx_elem_free_info(void *elem);
pmix_status_t spx_elem_copy_pdata(void *dst, const void *src);
void spx_elem_free_pdata(void *elem);
pmix_status_t spx_elem_copy_app(void *dst, const void *src);
void spx_elem_free_app(void *elem);
pmix_status_t spx_elem_copy_query(void *dst, const void *src);
void spx_elem_free_query(void *elem);
pmix_status_t spx_elem_copy_pinfo(void *dst, const void *src);
void spx_elem_free_pinfo(void *elem);
pmix_status_t spx_elem_copy_darray(void *dst, const void *src);
void spx_elem_free_darray(void *elem);
pmix_status_t spx_elem_copy_envar(void *dst, const void *src);
void spx_elem_free_envar(void *elem);
pmix_status_t spx_elem_copy_coord(void *dst, const void *src);
void spx_elem_free_coord(void *elem);
pmix_status_t spx_elem_copy_regattr(void *dst, const void *src);
void spx_elem_free_regattr(void *elem);
pmix_status_t spx_elem_copy_geometry(void *dst, const void *src);
void spx_elem_free_geometry(void *elem);
pmix_status_t spx_elem_copy_devdist(void *dst, const void *src);
void spx_elem_free_devdist(void *elem);
pmix_status_t spx_elem_copy_endpoint(void *dst, const void *src);
void spx_elem_free_endpoint(void *elem);
pmix_status_t spx_elem_copy_cpuset(void *dst, const void *src);
void spx_elem_free_cpuset(void *elem);
pmix_status_t spx_elem_copy_topo(void *dst, const void *src);
void spx_elem_free_topo(void *elem);
pmix_status_t spx_elem_copy_dbuf(void *dst, const void *src);
void spx_elem_free_dbuf(void *elem);
pmix_status_t spx_elem_copy_pstats(void *dst, const void *src);
void spx_elem_free_pstats(void *elem);
pmix_status_t spx_elem_copy_dkstats(void *dst, const void *src);
void spx_elem_free_dkstats(void *elem);
pmix_status_t spx_elem_copy_netstats(void *dst, const void *src);
void spx_elem_free_netstats(void *elem);
pmix_status_t spx_elem_copy_ndstats(void *dst, const void *src);
void spx_elem_free_ndstats(void *elem);

pmix_value_cmp_t spx_elem_cmp_string(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_bo(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_nspace(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_proc(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_timeval(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_value(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_info(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_pdata(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_app(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_query(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_pinfo(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_darray(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_envar(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_coord(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_regattr(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_geometry(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_devdist(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_endpoint(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_cpuset(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_topo(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_dbuf(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_pstats(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_dkstats(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_netstats(const void *a, const void *b);
pmix_value_cmp_t spx_elem_cmp_ndstats(const void *a, const void *b);

/* Small shared helpers (elem.c). */
char *spx_td_strdup(const char *s);            /* NULL-safe strdup */
pmix_value_cmp_t spx_td_cmp_str(const char *a, const char *b); /* NULL < non-NULL */
pmix_value_cmp_t spx_td_cmp_u64(uint64_t a, uint64_t b);
pmix_value_cmp_t spx_td_cmp_dbl(double a, double b);

/* ---- print functions (print.c) ---- */
#define SPX_TD_PRINTERS(X) \
    X(undef) X(num) X(flag) X(string) X(pointer) X(status) X(rank) X(timeval) X(persist) \
    X(scope) X(range) X(pstate) X(jstate) X(linkstate) X(adir) X(iof) X(devtype) X(dtype) \
    X(envar) X(regex) X(bo) X(proc) X(nspace) X(pinfo) X(darray) X(coord) X(regattr) \
    X(cpuset) X(topo) X(geometry) X(devdist) X(endpoint) X(dbuf) X(pstats) X(dkstats) \
    X(netstats) X(ndstats) X(value) X(info) X(pdata) X(app) X(query)
#define SPX_TD_DECL_PRINT(n) \
    void spx_td_print_##n(FILE *f, const struct spx_typedesc *td, const void *elem, int depth);
SPX_TD_PRINTERS(SPX_TD_DECL_PRINT)
#undef SPX_TD_DECL_PRINT

/* ---- element codec (lib/codec: value.c, value_ext.c, value_hwloc.c) ---- */
#define SPX_TD_CODECS(X) \
    X(u8) X(u16) X(u32) X(u64) X(flag) X(timeval) X(string) X(bo) X(proc) X(nspace) \
    X(value) X(info) X(darray) X(pointer) X(envar) X(app) X(query) X(pdata) X(pinfo) \
    X(regattr) X(coord) X(geometry) X(devdist) X(endpoint) X(cpuset) X(topo) X(pstats) \
    X(dkstats) X(netstats) X(ndstats) X(dbuf)
#define SPX_TD_DECL_CODEC(n)                                                  \
    void spx_codec_pack_##n(struct spx_buf *b, const void *elem, int depth); \
    void spx_codec_unpack_##n(struct spx_buf *b, void *elem, int depth);
SPX_TD_CODECS(SPX_TD_DECL_CODEC)
#undef SPX_TD_DECL_CODEC

#endif
