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

#endif
