/* data_buffer.c - the exported PMIx_Data_* functions on pmix_data_buffer_t.
 *
 * A pmix_data_buffer_t (public struct: base_ptr, pack_ptr, unpack_ptr,
 * bytes_allocated, bytes_used; memory from malloc, freed by the PMIx macros
 * with free) holds a sequence of records, one per PMIx_Data_pack call:
 *     u16 type, u32 count, count elements encoded by the value codec.
 * Pack encodes into a scratch spx_buf_t and appends it at pack_ptr; unpack
 * reads one record at unpack_ptr through a read-only spx_buf_t view and only
 * moves unpack_ptr when the record decoded. The source/target procs are
 * ignored: spmix has one encoding.
 */
#include "config.h"
#include "codec/value_int.h"
#include "util/compiler.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#define SPX_DATA_REC_HDR 6 /* u16 type + u32 count */

/* Offsets of the cursors; -1 if the struct is inconsistent. */
static int db_offsets(const pmix_data_buffer_t *db, size_t *pack_off, size_t *unpack_off)
{
    if (!db->base_ptr) {
        *pack_off = *unpack_off = 0;
        return 0;
    }
    const char *pp = db->pack_ptr ? db->pack_ptr : db->base_ptr + db->bytes_used;
    const char *up = db->unpack_ptr ? db->unpack_ptr : db->base_ptr;
    if (pp < db->base_ptr || (size_t)(pp - db->base_ptr) > db->bytes_allocated || up < db->base_ptr ||
        up > pp)
        return -1;
    *pack_off = (size_t)(pp - db->base_ptr);
    *unpack_off = (size_t)(up - db->base_ptr);
    return 0;
}

/* Appends n bytes at pack_ptr. */
static pmix_status_t db_append(pmix_data_buffer_t *db, const void *p, size_t n)
{
    size_t pack_off, unpack_off;
    if (db_offsets(db, &pack_off, &unpack_off) < 0)
        return PMIX_ERR_BAD_PARAM;
    if (n == 0)
        return PMIX_SUCCESS;
    size_t cap = db->base_ptr ? db->bytes_allocated : 0;
    if (n > SIZE_MAX / 2 - pack_off)
        return PMIX_ERR_NOMEM;
    if (pack_off + n > cap) {
        size_t want = cap ? cap : 128;
        while (want < pack_off + n)
            want *= 2;
        char *nb = realloc(db->base_ptr, want);
        if (!nb)
            return PMIX_ERR_NOMEM;
        db->base_ptr = nb;
        db->bytes_allocated = want;
    }
    memcpy(db->base_ptr + pack_off, p, n);
    db->pack_ptr = db->base_ptr + pack_off + n;
    db->unpack_ptr = db->base_ptr + unpack_off;
    db->bytes_used = pack_off + n;
    return PMIX_SUCCESS;
}

static pmix_status_t errno_to_status(int err)
{
    switch (err) {
    case ENOMEM: return PMIX_ERR_NOMEM;
    case EPROTO: return PMIX_ERR_UNKNOWN_DATA_TYPE;
    default: return PMIX_ERR_PACK_FAILURE;
    }
}

SPX_EXPORT pmix_status_t PMIx_Data_pack(const pmix_proc_t *target, pmix_data_buffer_t *buffer,
                                        void *src, int32_t num_vals, pmix_data_type_t type)
{
    (void)target;
    if (!buffer || num_vals < 0 || (num_vals > 0 && !src))
        return PMIX_ERR_BAD_PARAM;
    if (!spx_codec_type_size(type))
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u16(&b, type);
    spx_buf_push_u32(&b, (uint32_t)num_vals);
    if (num_vals > 0)
        spx_codec_push_elems(&b, type, src, (size_t)num_vals);
    pmix_status_t rc = spx_buf_failed(&b) ? errno_to_status(b.err) : db_append(buffer, b.data, b.len);
    spx_buf_fini(&b);
    return rc;
}

/* Types that share one encoding and native width may be unpacked as each other. */
static pmix_data_type_t canonical_type(pmix_data_type_t t)
{
    switch (t) {
    case PMIX_INT: return PMIX_INT32;
    case PMIX_UINT: return PMIX_UINT32;
    case PMIX_SIZE: return PMIX_UINT64;
    default: return t;
    }
}

SPX_EXPORT pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source, pmix_data_buffer_t *buffer,
                                          void *dest, int32_t *max_num_values,
                                          pmix_data_type_t type)
{
    (void)source;
    if (!buffer || !dest || !max_num_values || *max_num_values < 0)
        return PMIX_ERR_BAD_PARAM;
    size_t pack_off, unpack_off;
    if (db_offsets(buffer, &pack_off, &unpack_off) < 0)
        return PMIX_ERR_BAD_PARAM;
    if (pack_off - unpack_off < SPX_DATA_REC_HDR)
        return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
    if (!spx_codec_type_size(type))
        return PMIX_ERR_UNKNOWN_DATA_TYPE;

    /* A read-only view: never fini'd, never grown. */
    spx_buf_t b = { .data = (uint8_t *)buffer->base_ptr + unpack_off,
                    .len = pack_off - unpack_off, .cap = pack_off - unpack_off };
    pmix_data_type_t wire = spx_buf_pull_u16(&b);
    uint32_t count = spx_codec_pull_count(&b, wire);
    if (spx_buf_failed(&b))
        return PMIX_ERR_UNPACK_FAILURE;
    if (canonical_type(wire) != canonical_type(type))
        return PMIX_ERR_TYPE_MISMATCH;
    pmix_status_t rc = PMIX_SUCCESS;
    size_t n = count;
    if (n > (size_t)*max_num_values) {
        n = (size_t)*max_num_values;
        rc = PMIX_ERR_UNPACK_INADEQUATE_SPACE;
    }
    if (n > 0 && spx_codec_pull_elems(&b, type, dest, n) < 0)
        return b.err == ENOMEM ? PMIX_ERR_NOMEM : PMIX_ERR_UNPACK_FAILURE;
    buffer->unpack_ptr = buffer->base_ptr + unpack_off + b.pos;
    *max_num_values = (int32_t)n;
    return rc;
}

SPX_EXPORT pmix_status_t PMIx_Data_copy(void **dest, void *src, pmix_data_type_t type)
{
    if (!dest || !src)
        return PMIX_ERR_BAD_PARAM;
    *dest = NULL;
    if (type == PMIX_STRING) { /* src is the string itself */
        *dest = strdup((const char *)src);
        return *dest ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    size_t size = spx_codec_type_size(type);
    if (!size)
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    void *out = calloc(1, size);
    if (!out)
        return PMIX_ERR_NOMEM;
    /* A deep copy is an encode followed by a decode. */
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_elems(&b, type, src, 1);
    if (spx_buf_failed(&b) || spx_codec_pull_elems(&b, type, out, 1) < 0) {
        pmix_status_t rc = b.err == ENOMEM ? PMIX_ERR_NOMEM : PMIX_ERR_UNKNOWN_DATA_TYPE;
        spx_buf_fini(&b);
        free(out);
        return rc;
    }
    spx_buf_fini(&b);
    *dest = out;
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest, pmix_data_buffer_t *src)
{
    if (!dest || !src)
        return PMIX_ERR_BAD_PARAM;
    size_t pack_off, unpack_off;
    if (db_offsets(src, &pack_off, &unpack_off) < 0)
        return PMIX_ERR_BAD_PARAM;
    if (pack_off == unpack_off)
        return PMIX_SUCCESS;
    return db_append(dest, src->base_ptr + unpack_off, pack_off - unpack_off);
}

SPX_EXPORT pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
    if (!buffer || !payload)
        return PMIX_ERR_BAD_PARAM;
    free(buffer->base_ptr);
    memset(buffer, 0, sizeof(*buffer));
    if (payload->bytes && payload->size > 0) {
        buffer->base_ptr = payload->bytes;
        buffer->pack_ptr = payload->bytes + payload->size;
        buffer->unpack_ptr = payload->bytes;
        buffer->bytes_allocated = payload->size;
        buffer->bytes_used = payload->size;
    } else {
        free(payload->bytes);
    }
    payload->bytes = NULL;
    payload->size = 0;
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
    if (!buffer || !payload)
        return PMIX_ERR_BAD_PARAM;
    payload->bytes = NULL;
    payload->size = 0;
    size_t pack_off, unpack_off;
    if (db_offsets(buffer, &pack_off, &unpack_off) < 0)
        return PMIX_ERR_BAD_PARAM;
    size_t n = pack_off - unpack_off;
    if (n > 0 && unpack_off == 0) {
        payload->bytes = buffer->base_ptr; /* hand the block over */
        buffer->base_ptr = NULL;
    } else if (n > 0) {
        payload->bytes = malloc(n);
        if (!payload->bytes)
            return PMIX_ERR_NOMEM;
        memcpy(payload->bytes, buffer->base_ptr + unpack_off, n);
    }
    payload->size = n;
    free(buffer->base_ptr);
    memset(buffer, 0, sizeof(*buffer));
    return PMIX_SUCCESS;
}

SPX_EXPORT pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer,
                                         const pmix_byte_object_t *payload)
{
    if (!buffer || !payload)
        return PMIX_ERR_BAD_PARAM;
    if (!payload->bytes || payload->size == 0)
        return PMIX_SUCCESS;
    return db_append(buffer, payload->bytes, payload->size);
}

/* No compression library is linked: like OpenPMIx built without zlib, say so. */
SPX_EXPORT bool PMIx_Data_compress(const uint8_t *inbytes, size_t size, uint8_t **outbytes,
                                   size_t *nbytes)
{
    (void)inbytes;
    (void)size;
    if (outbytes)
        *outbytes = NULL;
    if (nbytes)
        *nbytes = 0;
    return false;
}

SPX_EXPORT bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size, uint8_t **outbytes,
                                     size_t *nbytes)
{
    (void)inbytes;
    (void)size;
    if (outbytes)
        *outbytes = NULL;
    if (nbytes)
        *nbytes = 0;
    return false;
}
