/* fuzz_decode.c - libFuzzer entry point for everything that decodes bytes
 * from outside: the frame header, values, infos, proc arrays, typed element
 * arrays and PMIx_Data_unpack.
 *
 * The first input byte picks the decoder, the rest is its input. Whatever
 * decodes is encoded again, decoded again and encoded a third time; the two
 * re-encodings must be identical (a decoder that accepts bytes must produce
 * data the encoder can reproduce), and everything is released so ASan sees
 * leaks. fuzz_replay.c drives the same function over the committed corpus.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "codec/frame.h"
#include "codec/value.h"

enum { MODE_FRAME, MODE_VALUE, MODE_INFO, MODE_INFO_ARRAY, MODE_PROC_ARRAY, MODE_ELEMS,
       MODE_DATA_UNPACK, MODE_COUNT };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void reader(spx_buf_t *b, const uint8_t *data, size_t size)
{
    spx_buf_init(b);
    void *copy = malloc(size ? size : 1);
    if (!copy)
        abort();
    if (size)
        memcpy(copy, data, size);
    spx_buf_adopt(b, copy, size);
}

/* enc1 -> decode -> enc2 must equal enc1. */
static void check_stable(pmix_data_type_t t, const spx_buf_t *enc1, size_t n)
{
    size_t size = spx_codec_type_size(t);
    spx_buf_t r;
    reader(&r, enc1->data, enc1->len);
    void *again = calloc(n ? n : 1, size);
    if (!again)
        abort();
    if (spx_codec_pull_elems(&r, t, again, n) < 0 || spx_buf_finish(&r) < 0)
        abort(); /* our own encoding must decode */
    spx_buf_t enc2;
    spx_buf_init(&enc2);
    spx_codec_push_elems(&enc2, t, again, n);
    if (enc2.err || enc2.len != enc1->len ||
        (enc1->len && memcmp(enc2.data, enc1->data, enc1->len) != 0))
        abort();
    spx_codec_release_elems(t, again, n);
    free(again);
    spx_buf_fini(&enc2);
    spx_buf_fini(&r);
}

/* Decoded elements: print them, re-encode, check stability, release. */
static void exercise(pmix_data_type_t t, void *elems, size_t n)
{
    size_t size = spx_codec_type_size(t);
    for (size_t i = 0; i < n && i < 4; i++) {
        char *text = NULL;
        void *src = (char *)elems + i * size;
        if (t == PMIX_STRING)
            src = *(char **)src;
        if (src && PMIx_Data_print(&text, "f", src, t) == PMIX_SUCCESS)
            free(text);
    }
    spx_buf_t enc1;
    spx_buf_init(&enc1);
    spx_codec_push_elems(&enc1, t, elems, n);
    if (enc1.err != 0) /* what decoded must encode: same caps, same depth limit */
        abort();
    check_stable(t, &enc1, n);
    spx_buf_fini(&enc1);
}

static void fuzz_elems(const uint8_t *data, size_t size, pmix_data_type_t t, size_t n)
{
    size_t esize = spx_codec_type_size(t);
    if (!esize || n == 0)
        return;
    spx_buf_t b;
    reader(&b, data, size);
    void *elems = calloc(n, esize);
    if (!elems)
        abort();
    if (spx_codec_pull_elems(&b, t, elems, n) == 0) {
        exercise(t, elems, n);
        spx_codec_release_elems(t, elems, n);
    }
    free(elems);
    spx_buf_fini(&b);
}

static void fuzz_data_unpack(const uint8_t *data, size_t size)
{
    pmix_data_buffer_t db;
    PMIX_DATA_BUFFER_CONSTRUCT(&db);
    pmix_byte_object_t bo = { .bytes = malloc(size ? size : 1), .size = size };
    if (!bo.bytes)
        abort();
    if (size)
        memcpy(bo.bytes, data, size);
    PMIx_Data_load(&db, &bo);
    for (int rounds = 0; rounds < 64; rounds++) {
        size_t left = (size_t)(db.pack_ptr ? db.pack_ptr - db.unpack_ptr : 0);
        if (left < 2)
            break;
        pmix_data_type_t t = (pmix_data_type_t)((uint8_t)db.unpack_ptr[0] |
                                                (uint8_t)db.unpack_ptr[1] << 8);
        size_t esize = spx_codec_type_size(t);
        if (!esize)
            break;
        int32_t max = 8;
        void *dest = calloc(8, esize);
        if (!dest)
            abort();
        pmix_status_t rc = PMIx_Data_unpack(NULL, &db, dest, &max, t);
        if (rc == PMIX_SUCCESS || rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
            exercise(t, dest, (size_t)max);
            spx_codec_release_elems(t, dest, (size_t)max);
        }
        free(dest);
        if (rc != PMIX_SUCCESS)
            break;
    }
    PMIX_DATA_BUFFER_DESTRUCT(&db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int mode = data[0] % MODE_COUNT;
    data++;
    size--;
    spx_buf_t b;
    switch (mode) {
    case MODE_FRAME: {
        spx_frame_hdr_t h;
        if (size >= SPX_FRAME_HDR_LEN && spx_frame_hdr_decode(data, &h) == 0) {
            if (h.length > SPX_FRAME_MAX_PAYLOAD)
                abort();
            uint8_t again[SPX_FRAME_HDR_LEN];
            spx_frame_hdr_encode(&h, again);
            if (memcmp(again, data, SPX_FRAME_HDR_LEN) != 0)
                abort();
            /* the payload behind it, as the server would read a request */
            size_t plen = size - SPX_FRAME_HDR_LEN;
            fuzz_elems(data + SPX_FRAME_HDR_LEN, plen < h.length ? plen : h.length, PMIX_INFO, 1);
        }
        break;
    }
    case MODE_VALUE:
        fuzz_elems(data, size, PMIX_VALUE, 1);
        break;
    case MODE_INFO:
        fuzz_elems(data, size, PMIX_INFO, 1);
        break;
    case MODE_INFO_ARRAY:
    case MODE_PROC_ARRAY: {
        int info = mode == MODE_INFO_ARRAY;
        void *arr = NULL;
        size_t n = 0;
        reader(&b, data, size);
        int rc = info ? spx_codec_pull_info_array(&b, (pmix_info_t **)&arr, &n)
                      : spx_codec_pull_proc_array(&b, (pmix_proc_t **)&arr, &n);
        if (rc == 0) {
            exercise(info ? PMIX_INFO : PMIX_PROC, arr, n);
            spx_codec_release_elems(info ? PMIX_INFO : PMIX_PROC, arr, n);
            free(arr);
        } else if (arr || n) {
            abort(); /* failures leave the output empty */
        }
        spx_buf_fini(&b);
        break;
    }
    case MODE_ELEMS:
        if (size >= 3)
            fuzz_elems(data + 3, size - 3, (pmix_data_type_t)(data[0] | data[1] << 8),
                       (size_t)(data[2] % 8) + 1);
        break;
    case MODE_DATA_UNPACK:
        fuzz_data_unpack(data, size);
        break;
    }
    return 0;
}
