/* value.h - typed encoding of PMIx values, infos, procs and their arrays.
 *
 * A value is u16 type then the type's payload; every pmix_data_type_t that a
 * pmix_value_t can hold is supported (scalars, strings, byte objects, procs,
 * data arrays nested up to SPX_CODEC_MAX_DEPTH, infos, pdata, apps, envars,
 * regattrs, coords, ...); an unsupported or unknown type fails the buffer with
 * EPROTO on push and EBADMSG on pull. Pull functions write into caller storage
 * that they first initialise; on failure what was pulled is released and the
 * output is left empty (destructed), so the caller only ever frees successes.
 */
#ifndef SPX_CODEC_VALUE_H
#define SPX_CODEC_VALUE_H

#include <pmix_common.h>
#include "codec/buf.h"

#define SPX_CODEC_MAX_DEPTH 8

void spx_codec_push_value(spx_buf_t *b, const pmix_value_t *v);
/* v: caller storage; on success caller releases with PMIx_Value_destruct(v). */
int spx_codec_pull_value(spx_buf_t *b, pmix_value_t *v);

void spx_codec_push_proc(spx_buf_t *b, const pmix_proc_t *p);
int spx_codec_pull_proc(spx_buf_t *b, pmix_proc_t *p);

void spx_codec_push_info(spx_buf_t *b, const pmix_info_t *info);
/* info: caller storage; on success caller releases with PMIx_Info_destruct semantics
 * (PMIX_INFO_DESTRUCT). */
int spx_codec_pull_info(spx_buf_t *b, pmix_info_t *info);

/* u32 count then the elements. */
void spx_codec_push_info_array(spx_buf_t *b, const pmix_info_t *info, size_t n);
/* *out: malloc'd array (caller frees with PMIX_INFO_FREE(*out, *n)), NULL when n == 0. */
int spx_codec_pull_info_array(spx_buf_t *b, pmix_info_t **out, size_t *n);
void spx_codec_push_proc_array(spx_buf_t *b, const pmix_proc_t *procs, size_t n);
/* *out: malloc'd (caller frees with free()), NULL when n == 0. */
int spx_codec_pull_proc_array(spx_buf_t *b, pmix_proc_t **out, size_t *n);

/* ---- typed element arrays (PMIx_Data_pack/unpack, copies, data arrays) ----
 * An "element" of type t is the native storage PMIx uses for t in an array:
 * char * for PMIX_STRING, pmix_value_t for PMIX_VALUE, pmix_data_array_t for
 * PMIX_DATA_ARRAY, pmix_cpuset_t for PMIX_PROC_CPUSET, and so on. */

/* Native size of one element of type t; 0 if t cannot be encoded. */
size_t spx_codec_type_size(pmix_data_type_t t);
/* Lower bound of the encoded size of one element of t (>= 1), used to bound counts. */
size_t spx_codec_type_min_wire(pmix_data_type_t t);
/* Name of a type ("PMIX_INT32"), or "PMIX_UNKNOWN". Static string. */
const char *spx_codec_type_str(pmix_data_type_t t);
/* n elements of type t from src (borrowed), without count or type. */
void spx_codec_push_elems(spx_buf_t *b, pmix_data_type_t t, const void *src, size_t n);
/* n elements into dst (caller storage of n * spx_codec_type_size(t) bytes, zeroed
 * here). 0, or -1 with the buffer failed and dst released (left zeroed). On success
 * the caller releases the contents with spx_codec_release_elems (then frees dst). */
int spx_codec_pull_elems(spx_buf_t *b, pmix_data_type_t t, void *dst, size_t n);
/* Frees what n elements of t own (not the storage p itself) and zeroes them.
 * Same rules as PMIx_Value_destruct: strings, arrays and pointed-to structs
 * are malloc'd; cpusets with source "hwloc" own an hwloc bitmap; topology
 * objects are borrowed (decoded ones are interned for the process lifetime). */
void spx_codec_release_elems(pmix_data_type_t t, void *p, size_t n);
/* Destructs a value pulled by spx_codec_pull_value (equivalent of PMIx_Value_destruct). */
void spx_codec_value_release(pmix_value_t *v);

#endif
