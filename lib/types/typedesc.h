/* typedesc.h - one descriptor per PMIx data type (private to lib/types).
 *
 * Every operation on values and data arrays goes through these descriptors:
 * an element is one item of a data array of that type, and a pmix_value_t
 * stores one element either inline in its data union (scalars, strings, byte
 * objects, envars) or boxed behind the union's pointer (procs, proc infos,
 * data arrays, coords, ...). The copy/free/cmp functions work on element
 * pointers, so value and array code never switch on the type themselves.
 *
 * Borrowed by design: PMIX_POINTER targets and the hwloc topology behind a
 * PMIX_TOPO are never copied or freed (the caller owns them); a PMIX_PROC_CPUSET
 * with source "hwloc" has its bitmap duplicated, any other bitmap is borrowed.
 */
#ifndef SPX_TYPES_TYPEDESC_H
#define SPX_TYPES_TYPEDESC_H

#include <stddef.h>
#include <pmix_common.h>

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
typedef void (*spx_td_free_f)(void *elem);
typedef pmix_value_cmp_t (*spx_td_cmp_f)(const void *a, const void *b);

struct spx_typedesc {
    pmix_data_type_t type;
    const char *name;      /* "PMIX_BOOL" */
    size_t size;           /* bytes of one element */
    enum spx_td_store store;
    enum spx_td_num num;   /* plain numbers: compared by value */
    spx_td_copy_f copy;    /* NULL: memcpy */
    spx_td_free_f release; /* NULL: nothing owned */
    spx_td_cmp_f cmp;      /* NULL: numeric (num != NONE) or memcmp */
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
pmix_status_t spx_td_argv_dup(char ***dst, char *const *src);
void spx_td_argv_free(char **argv);
pmix_value_cmp_t spx_td_cmp_str(const char *a, const char *b); /* NULL < non-NULL */
pmix_value_cmp_t spx_td_cmp_u64(uint64_t a, uint64_t b);
pmix_value_cmp_t spx_td_cmp_dbl(double a, double b);

#endif
