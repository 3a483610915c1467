/* test_codec.c - unit tests of the wire codec: byte buffer, frame header,
 * value codec (every type, nesting, hostile input) and the PMIx_Data_* API.
 *
 * Hostile-input cases build raw bytes by hand and check that decoding fails
 * with the documented errno and leaves the output empty; running the binary
 * under valgrind or ASan proves nothing leaks on those paths.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix.h>

#include "codec/buf.h"
#include "codec/frame.h"
#include "codec/value.h"
#include "codec/value_int.h"
#include "types/typedesc.h"
#include "types/types.h"
#include "../fuzz/samples.h"

/* Copy of the written bytes of w into a fresh read buffer. */
static void reader_of(spx_buf_t *r, const spx_buf_t *w, size_t len)
{
    spx_buf_init(r);
    void *p = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(p);
    memcpy(p, w->data, len);
    spx_buf_adopt(r, p, len);
}

static void encode_value(spx_buf_t *b, const pmix_value_t *v)
{
    spx_buf_init(b);
    spx_codec_push_value(b, v);
    ck_assert_int_eq(b->err, 0);
}

/* ---- buffer ---- */

START_TEST(buf_scalars_and_strings)
{
    spx_buf_t w, r;
    spx_buf_init(&w);
    spx_buf_push_u8(&w, 0xfe);
    spx_buf_push_u16(&w, 0xbeef);
    spx_buf_push_u32(&w, 0xdeadbeef);
    spx_buf_push_u64(&w, 0x0102030405060708ull);
    spx_buf_push_i32(&w, -5);
    spx_buf_push_double(&w, 2.5);
    spx_buf_push_str(&w, "abc");
    spx_buf_push_str(&w, NULL);
    spx_buf_push_str(&w, "");
    spx_buf_push_bytes(&w, "\0\1\2", 3);
    spx_buf_push_str(&w, "fits");
    ck_assert_int_eq(w.err, 0);
    /* little endian on the wire */
    ck_assert_uint_eq(w.data[1], 0xef);
    ck_assert_uint_eq(w.data[2], 0xbe);
    reader_of(&r, &w, w.len);
    ck_assert_uint_eq(spx_buf_pull_u8(&r), 0xfe);
    ck_assert_uint_eq(spx_buf_pull_u16(&r), 0xbeef);
    ck_assert_uint_eq(spx_buf_pull_u32(&r), 0xdeadbeef);
    ck_assert(spx_buf_pull_u64(&r) == 0x0102030405060708ull);
    ck_assert_int_eq(spx_buf_pull_i32(&r), -5);
    ck_assert(spx_buf_pull_double(&r) == 2.5);
    char *s = spx_buf_pull_str(&r);
    ck_assert_str_eq(s, "abc");
    free(s);
    ck_assert_ptr_null(spx_buf_pull_str(&r));
    ck_assert(!spx_buf_failed(&r));
    s = spx_buf_pull_str(&r);
    ck_assert_str_eq(s, "");
    free(s);
    size_t n;
    void *bytes = spx_buf_pull_bytes(&r, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert(memcmp(bytes, "\0\1\2", 3) == 0);
    free(bytes);
    char small[4];
    spx_buf_pull_str_into(&r, small, sizeof(small)); /* "fits" needs 5 */
    ck_assert_int_eq(r.err, EBADMSG);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
}
END_TEST

START_TEST(buf_sticky_and_finish)
{
    spx_buf_t w, r;
    spx_buf_init(&w);
    spx_buf_push_u32(&w, 7);
    spx_buf_push_u8(&w, 1);
    reader_of(&r, &w, w.len);
    ck_assert_uint_eq(spx_buf_pull_u32(&r), 7);
    ck_assert_int_eq(spx_buf_finish(&r), -1); /* one byte left */
    ck_assert_int_eq(r.err, EBADMSG);
    spx_buf_fini(&r);

    reader_of(&r, &w, w.len);
    ck_assert_uint_eq(spx_buf_pull_u64(&r), 0); /* truncated */
    ck_assert_int_eq(r.err, EBADMSG);
    ck_assert_uint_eq(spx_buf_pull_u8(&r), 0);  /* sticky: no-op even though 5 bytes exist */
    ck_assert_uint_eq(r.pos, 0);
    spx_buf_fini(&r);

    reader_of(&r, &w, w.len);
    spx_buf_pull_u32(&r);
    spx_buf_pull_u8(&r);
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    spx_buf_fini(&r);

    size_t len;
    void *p = spx_buf_release(&w, &len);
    ck_assert_uint_eq(len, 5);
    ck_assert_ptr_null(w.data);
    free(p);
}
END_TEST

START_TEST(buf_caps_before_allocation)
{
    spx_buf_t w, r;
    /* string length over the cap, with no bytes behind it */
    spx_buf_init(&w);
    spx_buf_push_u32(&w, SPX_BUF_MAX_STR + 1);
    reader_of(&r, &w, w.len);
    ck_assert_ptr_null(spx_buf_pull_str(&r));
    ck_assert_int_eq(r.err, EMSGSIZE);
    spx_buf_fini(&r);
    /* under the cap but more than the bytes present */
    reader_of(&r, &w, w.len);
    r.data[0] = 9; /* 9 bytes promised, none present */ r.data[1] = 0; r.data[2] = 0; r.data[3] = 0;
    ck_assert_ptr_null(spx_buf_pull_str(&r));
    ck_assert_int_eq(r.err, EBADMSG);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
    /* blob over the cap */
    spx_buf_init(&w);
    spx_buf_push_u32(&w, SPX_BUF_MAX_BLOB + 1);
    reader_of(&r, &w, w.len);
    size_t n = 99;
    ck_assert_ptr_null(spx_buf_pull_bytes(&r, &n));
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(r.err, EMSGSIZE);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
    /* embedded NUL */
    spx_buf_init(&w);
    spx_buf_push_bytes(&w, "a\0b", 3);
    reader_of(&r, &w, w.len);
    ck_assert_ptr_null(spx_buf_pull_str(&r));
    ck_assert_int_eq(r.err, EBADMSG);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
    /* counts: over SPX_BUF_MAX_COUNT, and a "legal" count the bytes cannot hold
     * (1M infos would be 552 MB if allocated first) */
    uint32_t counts[] = { SPX_BUF_MAX_COUNT + 1, SPX_BUF_MAX_COUNT, 0xffffffffu };
    int errs[] = { EMSGSIZE, EBADMSG, EMSGSIZE };
    for (int i = 0; i < 3; i++) {
        spx_buf_init(&w);
        spx_buf_push_u32(&w, counts[i]);
        spx_buf_push_u64(&w, 0);
        reader_of(&r, &w, w.len);
        pmix_info_t *info = (pmix_info_t *)&w; /* must be overwritten with NULL */
        size_t ni = 5;
        ck_assert_int_eq(spx_codec_pull_info_array(&r, &info, &ni), -1);
        ck_assert_ptr_null(info);
        ck_assert_uint_eq(ni, 0);
        ck_assert_int_eq(r.err, errs[i]);
        spx_buf_fini(&r);
        spx_buf_fini(&w);
    }
}
END_TEST

/* ---- frame header ---- */

START_TEST(buf_borrowed_read)
{
    /* a frame built by hand in memory the buffer does not own */
    uint8_t frame[] = {0x07, 0x00, 0x00, 0x00,             /* u32 7 */
                       0x02, 0x00, 0x00, 0x00, 'h', 'i',   /* str "hi" */
                       0x03, 0x00, 0x00, 0x00, 1, 2, 3};  /* bytes 1 2 3 */
    uint8_t orig[sizeof(frame)];
    memcpy(orig, frame, sizeof(frame));
    spx_buf_t r;
    spx_buf_init_borrowed(&r, frame, sizeof(frame));
    ck_assert_ptr_eq(r.data, frame); /* read in place, not copied */
    ck_assert_uint_eq(spx_buf_remaining(&r), sizeof(frame));
    ck_assert_uint_eq(spx_buf_pull_u32(&r), 7);
    char *s = spx_buf_pull_str(&r);
    ck_assert_str_eq(s, "hi");
    free(s);
    size_t n;
    void *bytes = spx_buf_pull_bytes(&r, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert(memcmp(bytes, "\1\2\3", 3) == 0);
    free(bytes);
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    /* bounds: nothing past len is read, and the failure is sticky */
    ck_assert_uint_eq(spx_buf_pull_u8(&r), 0);
    ck_assert_int_eq(r.err, EBADMSG);
    spx_buf_fini(&r); /* must not free the stack array */
    ck_assert_ptr_null(r.data);

    /* a length running past the borrowed bytes is refused */
    spx_buf_init_borrowed(&r, frame + 4, 5); /* str of length 2, one byte of it */
    ck_assert_ptr_null(spx_buf_pull_str(&r));
    ck_assert_int_eq(r.err, EBADMSG);
    spx_buf_fini(&r);

    /* the write side refuses borrowed memory and leaves it untouched */
    spx_buf_init_borrowed(&r, frame, sizeof(frame));
    spx_buf_push_u32(&r, 0xffffffffu);
    ck_assert_int_eq(r.err, EPERM);
    ck_assert_uint_eq(r.len, sizeof(frame));
    spx_buf_init_borrowed(&r, frame, sizeof(frame));
    ck_assert_int_eq(spx_buf_reserve(&r, 1), -1);
    spx_buf_init_borrowed(&r, frame, sizeof(frame));
    size_t rl = 99;
    ck_assert_ptr_null(spx_buf_release(&r, &rl));
    ck_assert_uint_eq(rl, 0);
    ck_assert_int_eq(r.err, EPERM);
    spx_buf_fini(&r);
    ck_assert(memcmp(frame, orig, sizeof(frame)) == 0);

    /* heap memory stays the caller's after fini: readable, freed once by the caller */
    uint8_t *heap = malloc(4);
    ck_assert_ptr_nonnull(heap);
    memcpy(heap, frame, 4);
    spx_buf_init_borrowed(&r, heap, 4);
    ck_assert_uint_eq(spx_buf_pull_u32(&r), 7);
    spx_buf_fini(&r);
    ck_assert_uint_eq(heap[0], 0x07);
    free(heap);

    /* a borrowed buffer turned into an owning one by adopt frees what it adopted */
    spx_buf_init_borrowed(&r, frame, sizeof(frame));
    spx_buf_adopt(&r, malloc(8), 8);
    ck_assert(!r.borrowed);
    spx_buf_fini(&r);
}
END_TEST

START_TEST(frame_header)
{
    spx_frame_hdr_t h = { .version = SPX_FRAME_VERSION, .type = 7, .flags = SPX_FRAME_F_REPLY,
                          .seq = 0x01020304, .length = 1234 }, o;
    uint8_t raw[SPX_FRAME_HDR_LEN];
    spx_frame_hdr_encode(&h, raw);
    ck_assert(memcmp(raw, "SPMX", 4) == 0);
    ck_assert_int_eq(spx_frame_hdr_decode(raw, &o), 0);
    ck_assert_uint_eq(o.type, 7);
    ck_assert_uint_eq(o.flags, SPX_FRAME_F_REPLY);
    ck_assert_uint_eq(o.seq, 0x01020304);
    ck_assert_uint_eq(o.length, 1234);
    raw[0] = 'X';
    errno = 0;
    ck_assert_int_eq(spx_frame_hdr_decode(raw, &o), -1);
    ck_assert_int_eq(errno, EBADMSG);
    raw[0] = 'S';
    raw[4] = 99;
    ck_assert_int_eq(spx_frame_hdr_decode(raw, &o), -1);
    ck_assert_int_eq(errno, EBADMSG);
    h.length = SPX_FRAME_MAX_PAYLOAD + 1;
    spx_frame_hdr_encode(&h, raw);
    ck_assert_int_eq(spx_frame_hdr_decode(raw, &o), -1);
    ck_assert_int_eq(errno, EMSGSIZE);
    h.length = SPX_FRAME_MAX_PAYLOAD;
    spx_frame_hdr_encode(&h, raw);
    ck_assert_int_eq(spx_frame_hdr_decode(raw, &o), 0);
}
END_TEST

/* ---- values ---- */

/* Every sample value: encode, decode, re-encode; both encodings must match and
 * the whole input must be consumed. */
START_TEST(value_round_trip_every_type)
{
    pmix_value_t *vals;
    size_t n;
    spx_sample_values(&vals, &n, 1);
    int seen[PMIX_STOR_ACCESS_TYPE + 1] = { 0 };
    for (size_t i = 0; i < n; i++) {
        spx_buf_t w, r, w2;
        encode_value(&w, &vals[i]);
        reader_of(&r, &w, w.len);
        pmix_value_t out;
        ck_assert_msg(spx_codec_pull_value(&r, &out) == 0, "decode of %s",
                      spx_codec_type_str(vals[i].type));
        ck_assert_int_eq(spx_buf_finish(&r), 0);
        ck_assert_int_eq(out.type, vals[i].type);
        encode_value(&w2, &out);
        if (vals[i].type != PMIX_TOPO) /* XML re-export may differ in detail */
            ck_assert_msg(w2.len == w.len && memcmp(w2.data, w.data, w.len) == 0,
                          "re-encoding of %s differs", spx_codec_type_str(vals[i].type));
        if (vals[i].type <= PMIX_STOR_ACCESS_TYPE)
            seen[vals[i].type] = 1;
        switch (vals[i].type) {
        case PMIX_STRING:
            if (vals[i].data.string)
                ck_assert_str_eq(out.data.string, vals[i].data.string);
            else
                ck_assert_ptr_null(out.data.string);
            break;
        case PMIX_DOUBLE: ck_assert(out.data.dval == vals[i].data.dval); break;
        case PMIX_INT64: ck_assert(out.data.int64 == vals[i].data.int64); break;
        case PMIX_PROC_CPUSET:
            ck_assert_str_eq(out.data.cpuset->source, "hwloc");
            ck_assert(hwloc_bitmap_isequal(out.data.cpuset->bitmap, vals[i].data.cpuset->bitmap));
            break;
        case PMIX_TOPO:
            ck_assert_ptr_nonnull(out.data.topo->topology);
            ck_assert_int_eq(hwloc_get_nbobjs_by_type(out.data.topo->topology, HWLOC_OBJ_PU),
                             hwloc_get_nbobjs_by_type(vals[i].data.topo->topology, HWLOC_OBJ_PU));
            break;
        case PMIX_POINTER: ck_assert_ptr_eq(out.data.ptr, vals[i].data.ptr); break;
        default: break;
        }
        spx_codec_value_release(&out);
        ck_assert_int_eq(out.type, PMIX_UNDEF);
        spx_buf_fini(&w);
        spx_buf_fini(&w2);
        spx_buf_fini(&r);
    }
    /* every type a value can hold was covered */
    for (pmix_data_type_t t = 1; t <= PMIX_STOR_ACCESS_TYPE; t++) {
        pmix_value_t probe = { .type = t };
        spx_buf_t b;
        spx_buf_init(&b);
        spx_codec_push_value(&b, &probe);
        int holdable = b.err == 0;
        spx_buf_fini(&b);
        if (holdable)
            ck_assert_msg(seen[t], "no sample of %s", spx_codec_type_str(t));
    }
    for (size_t i = 0; i < n; i++)
        spx_codec_value_release(&vals[i]);
    free(vals);
}
END_TEST

/* Decoded data is released by the public destructors of lib/types too (the
 * contract of value.h): no leak, no double free, under valgrind/ASan. */
START_TEST(value_release_with_public_destruct)
{
    pmix_info_t *infos;
    size_t n;
    spx_sample_infos(&infos, &n, 1);
    spx_buf_t w, r;
    spx_buf_init(&w);
    spx_codec_push_info_array(&w, infos, n);
    for (size_t i = 0; i < n; i++)
        spx_codec_push_value(&w, &infos[i].value);
    reader_of(&r, &w, w.len);
    pmix_info_t *out;
    size_t nout;
    ck_assert_int_eq(spx_codec_pull_info_array(&r, &out, &nout), 0);
    for (size_t i = 0; i < n; i++) {
        pmix_value_t v;
        ck_assert_int_eq(spx_codec_pull_value(&r, &v), 0);
        PMIx_Value_destruct(&v);
    }
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    PMIX_INFO_FREE(out, nout);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
    spx_codec_release_elems(PMIX_INFO, infos, n);
    free(infos);
}
END_TEST

/* A message holding every sample as an info array, cut at every length:
 * each prefix must fail cleanly with an empty result. */
START_TEST(value_truncated_everywhere)
{
    pmix_info_t *infos;
    size_t n;
    spx_sample_infos(&infos, &n, 0);
    spx_buf_t w;
    spx_buf_init(&w);
    spx_codec_push_info_array(&w, infos, n);
    ck_assert_int_eq(w.err, 0);
    for (size_t cut = 0; cut < w.len; cut++) {
        spx_buf_t r;
        reader_of(&r, &w, cut);
        pmix_info_t *out = NULL;
        size_t nout = 7;
        ck_assert_msg(spx_codec_pull_info_array(&r, &out, &nout) == -1, "cut %zu decoded", cut);
        ck_assert_ptr_null(out);
        ck_assert_uint_eq(nout, 0);
        ck_assert(r.err == EBADMSG);
        spx_buf_fini(&r);
    }
    /* and the whole message decodes */
    spx_buf_t r;
    reader_of(&r, &w, w.len);
    pmix_info_t *out = NULL;
    size_t nout = 0;
    ck_assert_int_eq(spx_codec_pull_info_array(&r, &out, &nout), 0);
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    ck_assert_uint_eq(nout, n);
    ck_assert_str_eq(out[3].key, "key.3");
    ck_assert_int_eq(out[3].value.type, infos[3].value.type);
    spx_codec_release_elems(PMIX_INFO, out, nout);
    free(out);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
    spx_codec_release_elems(PMIX_INFO, infos, n);
    free(infos);
}
END_TEST

START_TEST(value_bad_types)
{
    /* types a value cannot hold or that do not exist */
    uint16_t bad[] = { 26, 29, 44, PMIX_KVAL, PMIX_VALUE, PMIX_INFO, PMIX_APP, PMIX_QUERY,
                       PMIX_STOR_ACCESS_TYPE + 1, PMIX_DATA_TYPE_MAX, 0xffff };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        spx_buf_t w, r;
        spx_buf_init(&w);
        spx_buf_push_u16(&w, bad[i]);
        spx_buf_push_u64(&w, 0);
        reader_of(&r, &w, w.len);
        pmix_value_t v;
        ck_assert_int_eq(spx_codec_pull_value(&r, &v), -1);
        ck_assert_int_eq(r.err, EBADMSG);
        ck_assert_int_eq(v.type, PMIX_UNDEF);
        spx_buf_fini(&r);
        spx_buf_fini(&w);
        /* and pushing them is refused */
        pmix_value_t pv = { .type = bad[i] };
        spx_buf_init(&w);
        spx_codec_push_value(&w, &pv);
        ck_assert_int_eq(w.err, EPROTO);
        spx_buf_fini(&w);
    }
    /* bool must be 0/1, presence flags 0/1, darray element type must exist */
    const uint8_t bad_bool[] = { PMIX_BOOL, 0, 2 };
    const uint8_t bad_flag[] = { PMIX_PROC, 0, 7 };
    const uint8_t bad_elem[] = { PMIX_DATA_ARRAY, 0, 1, 26, 0, 1, 0, 0, 0, 0 };
    const uint8_t *cases[] = { bad_bool, bad_flag, bad_elem };
    size_t lens[] = { sizeof(bad_bool), sizeof(bad_flag), sizeof(bad_elem) };
    for (int i = 0; i < 3; i++) {
        spx_buf_t r;
        spx_buf_init(&r);
        void *p = malloc(lens[i]);
        memcpy(p, cases[i], lens[i]);
        spx_buf_adopt(&r, p, lens[i]);
        pmix_value_t v;
        ck_assert_int_eq(spx_codec_pull_value(&r, &v), -1);
        ck_assert_int_eq(r.err, EBADMSG);
        spx_buf_fini(&r);
    }
}
END_TEST

/* levels nested data arrays: value(darray(value(darray(...)))) ending in UNDEF */
static void build_nested(spx_buf_t *w, int levels)
{
    spx_buf_init(w);
    for (int i = 0; i < levels; i++) {
        spx_buf_push_u16(w, PMIX_DATA_ARRAY);
        spx_buf_push_u8(w, 1);
        spx_buf_push_u16(w, PMIX_VALUE);
        spx_buf_push_u32(w, 1);
    }
    spx_buf_push_u16(w, PMIX_UNDEF);
}

START_TEST(value_depth_bomb)
{
    int levels[] = { SPX_CODEC_MAX_DEPTH, SPX_CODEC_MAX_DEPTH + 1, 100000 };
    for (int i = 0; i < 3; i++) {
        spx_buf_t w, r;
        build_nested(&w, levels[i]);
        reader_of(&r, &w, w.len);
        pmix_value_t v;
        int rc = spx_codec_pull_value(&r, &v);
        if (levels[i] <= SPX_CODEC_MAX_DEPTH) {
            ck_assert_int_eq(rc, 0);
            ck_assert_int_eq(spx_buf_finish(&r), 0);
            /* push of the same depth works */
            spx_buf_t w2;
            encode_value(&w2, &v);
            ck_assert_uint_eq(w2.len, w.len);
            spx_buf_fini(&w2);
            /* one more level on the push side is refused */
            pmix_data_array_t *top = calloc(1, sizeof(*top));
            top->type = PMIX_VALUE;
            top->size = 1;
            top->array = calloc(1, sizeof(pmix_value_t));
            *(pmix_value_t *)top->array = v;
            pmix_value_t deeper = { .type = PMIX_DATA_ARRAY, .data.darray = top };
            spx_buf_init(&w2);
            spx_codec_push_value(&w2, &deeper);
            ck_assert_int_eq(w2.err, EPROTO);
            spx_buf_fini(&w2);
            spx_codec_value_release(&deeper);
        } else {
            ck_assert_int_eq(rc, -1);
            ck_assert_int_eq(r.err, EBADMSG);
            ck_assert_int_eq(v.type, PMIX_UNDEF);
        }
        spx_buf_fini(&r);
        spx_buf_fini(&w);
    }
}
END_TEST

START_TEST(value_trailing_and_limits)
{
    pmix_value_t v = { .type = PMIX_UINT32, .data.uint32 = 5 };
    spx_buf_t w, r;
    encode_value(&w, &v);
    spx_buf_push_u8(&w, 0);
    reader_of(&r, &w, w.len);
    pmix_value_t out;
    ck_assert_int_eq(spx_codec_pull_value(&r, &out), 0);
    ck_assert_uint_eq(out.data.uint32, 5);
    ck_assert_int_eq(spx_buf_finish(&r), -1);
    ck_assert_int_eq(r.err, EBADMSG);
    spx_buf_fini(&r);
    spx_buf_fini(&w);

    /* an info key longer than PMIX_MAX_KEYLEN, an nspace longer than PMIX_MAX_NSLEN */
    char longkey[PMIX_MAX_KEYLEN + 2];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    spx_buf_init(&w);
    spx_buf_push_str(&w, longkey);
    spx_buf_push_u32(&w, 0);
    spx_buf_push_u16(&w, PMIX_UNDEF);
    reader_of(&r, &w, w.len);
    pmix_info_t info;
    ck_assert_int_eq(spx_codec_pull_info(&r, &info), -1);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
    spx_buf_init(&w);
    spx_buf_push_str(&w, longkey); /* > 255 */
    spx_buf_push_u32(&w, 1);
    reader_of(&r, &w, w.len);
    pmix_proc_t proc;
    ck_assert_int_eq(spx_codec_pull_proc(&r, &proc), -1);
    spx_buf_fini(&r);
    spx_buf_fini(&w);

    /* a cpuset string asking for an absurd cpu index, and a non-list string */
    const char *sets[] = { "0-4000000000", "1,a", "-0--63", "5-2", "1-,3", ",", "1,,2" };
    for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
        spx_buf_init(&w);
        spx_buf_push_u16(&w, PMIX_PROC_CPUSET);
        spx_buf_push_u8(&w, 1);
        spx_buf_push_str(&w, "hwloc");
        spx_buf_push_u8(&w, 1);
        spx_buf_push_str(&w, sets[i]);
        reader_of(&r, &w, w.len);
        ck_assert_int_eq(spx_codec_pull_value(&r, &out), -1);
        ck_assert_int_eq(r.err, EBADMSG);
        spx_buf_fini(&r);
        spx_buf_fini(&w);
    }

    /* persistent flag is not carried into decoded infos (we own the value) */
    pmix_info_t pi = { .flags = PMIX_INFO_PERSISTENT | PMIX_INFO_REQD };
    strcpy(pi.key, "k");
    pi.value.type = PMIX_STRING;
    pi.value.data.string = "s";
    spx_buf_init(&w);
    spx_codec_push_info(&w, &pi);
    reader_of(&r, &w, w.len);
    ck_assert_int_eq(spx_codec_pull_info(&r, &info), 0);
    ck_assert_uint_eq(info.flags, PMIX_INFO_REQD);
    ck_assert_str_eq(info.value.data.string, "s");
    spx_codec_release_elems(PMIX_INFO, &info, 1);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
}
END_TEST

START_TEST(proc_arrays)
{
    pmix_proc_t procs[3];
    memset(procs, 0, sizeof(procs));
    for (int i = 0; i < 3; i++) {
        snprintf(procs[i].nspace, sizeof(procs[i].nspace), "ns%d", i);
        procs[i].rank = (pmix_rank_t)(i * 10);
    }
    spx_buf_t w, r;
    spx_buf_init(&w);
    spx_codec_push_proc_array(&w, procs, 3);
    spx_codec_push_proc_array(&w, NULL, 0);
    reader_of(&r, &w, w.len);
    pmix_proc_t *out;
    size_t n;
    ck_assert_int_eq(spx_codec_pull_proc_array(&r, &out, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(out[2].nspace, "ns2");
    ck_assert_uint_eq(out[2].rank, 20);
    free(out);
    ck_assert_int_eq(spx_codec_pull_proc_array(&r, &out, &n), 0);
    ck_assert_ptr_null(out);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
}
END_TEST

/* ---- PMIx_Data_* ---- */

START_TEST(data_pack_unpack)
{
    pmix_data_buffer_t *db;
    PMIX_DATA_BUFFER_CREATE(db);
    int32_t ints[3] = { 1, -2, 3 };
    char *strs[2] = { "alpha", NULL };
    pmix_info_t *infos;
    size_t ninfo;
    spx_sample_infos(&infos, &ninfo, 0);
    pmix_proc_t proc = { .rank = 9 };
    strcpy(proc.nspace, "job");
    ck_assert_int_eq(PMIx_Data_pack(NULL, db, ints, 3, PMIX_INT32), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Data_pack(NULL, db, strs, 2, PMIX_STRING), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Data_pack(NULL, db, infos, (int32_t)ninfo, PMIX_INFO), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Data_pack(NULL, db, &proc, 1, PMIX_PROC), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Data_pack(NULL, db, ints, 1, PMIX_INT), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Data_pack(NULL, db, ints, 1, 26), PMIX_ERR_UNKNOWN_DATA_TYPE);
    ck_assert_uint_eq(db->bytes_used, (size_t)(db->pack_ptr - db->base_ptr));

    int32_t got[3] = { 0 };
    int32_t cnt = 3;
    /* wrong type: refused, nothing consumed */
    ck_assert_int_eq(PMIx_Data_unpack(NULL, db, got, &cnt, PMIX_STRING), PMIX_ERR_TYPE_MISMATCH);
    ck_assert_int_eq(PMIx_Data_unpack(NULL, db, got, &cnt, PMIX_INT32), PMIX_SUCCESS);
    ck_assert_int_eq(cnt, 3);
    ck_assert_int_eq(got[1], -2);
    char *sgot[2];
    cnt = 2;
    ck_assert_int_eq(PMIx_Data_unpack(NULL, db, sgot, &cnt, PMIX_STRING), PMIX_SUCCESS);
    ck_assert_str_eq(sgot[0], "alpha");
    ck_assert_ptr_null(sgot[1]);
    free(sgot[0]);
    pmix_info_t *igot = calloc(ninfo, sizeof(pmix_info_t));
    cnt = (int32_t)ninfo;
    ck_assert_int_eq(PMIx_Data_unpack(NULL, db, igot, &cnt, PMIX_INFO), PMIX_SUCCESS);
    ck_assert_int_eq(cnt, (int32_t)ninfo);
    ck_assert_str_eq(igot[ninfo - 1].key, infos[ninfo - 1].key);
    spx_codec_release_elems(PMIX_INFO, igot, ninfo);
    free(igot);
    pmix_proc_t pgot;
    cnt = 1;
    ck_assert_int_eq(PMIx_Data_unpack(NULL, db, &pgot, &cnt, PMIX_PROC), PMIX_SUCCESS);
    ck_assert_str_eq(pgot.nspace, "job");
    ck_assert_uint_eq(pgot.rank, 9);
    int32_t one = 0; /* packed as PMIX_INT, read as INT32: same encoding */
    cnt = 1;
    ck_assert_int_eq(PMIx_Data_unpack(NULL, db, &one, &cnt, PMIX_INT32), PMIX_SUCCESS);
    ck_assert_int_eq(one, 1);
    cnt = 1;
    ck_assert_int_eq(PMIx_Data_unpack(NULL, db, &one, &cnt, PMIX_INT32),
                     PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    PMIX_DATA_BUFFER_RELEASE(db);
    spx_codec_release_elems(PMIX_INFO, infos, ninfo);
    free(infos);

    /* inadequate space: the first max values are delivered */
    PMIX_DATA_BUFFER_CREATE(db);
    ck_assert_int_eq(PMIx_Data_pack(NULL, db, ints, 3, PMIX_INT32), PMIX_SUCCESS);
    cnt = 2;
    memset(got, 0, sizeof(got));
    ck_assert_int_eq(PMIx_Data_unpack(NULL, db, got, &cnt, PMIX_INT32),
                     PMIX_ERR_UNPACK_INADEQUATE_SPACE);
    ck_assert_int_eq(cnt, 2);
    ck_assert_int_eq(got[1], -2);
    ck_assert_int_eq(got[2], 0);
    PMIX_DATA_BUFFER_RELEASE(db);
}
END_TEST

START_TEST(data_load_unload_copy)
{
    pmix_data_buffer_t db, db2;
    PMIX_DATA_BUFFER_CONSTRUCT(&db);
    PMIX_DATA_BUFFER_CONSTRUCT(&db2);
    uint64_t big = 0x1122334455667788ull;
    ck_assert_int_eq(PMIx_Data_pack(NULL, &db, &big, 1, PMIX_UINT64), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Data_pack(NULL, &db, &big, 1, PMIX_SIZE), PMIX_SUCCESS);
    /* copy_payload appends the unread part */
    ck_assert_int_eq(PMIx_Data_copy_payload(&db2, &db), PMIX_SUCCESS);
    ck_assert_uint_eq(db2.bytes_used, db.bytes_used);
    pmix_byte_object_t bo;
    ck_assert_int_eq(PMIx_Data_unload(&db, &bo), PMIX_SUCCESS);
    ck_assert_ptr_null(db.base_ptr);
    ck_assert_uint_eq(bo.size, db2.bytes_used);
    /* embed copies, load takes ownership */
    pmix_data_buffer_t db3;
    PMIX_DATA_BUFFER_CONSTRUCT(&db3);
    ck_assert_int_eq(PMIx_Data_embed(&db3, &bo), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Data_load(&db, &bo), PMIX_SUCCESS);
    ck_assert_ptr_null(bo.bytes);
    pmix_data_buffer_t *bufs[] = { &db, &db2, &db3 };
    for (int i = 0; i < 3; i++) {
        uint64_t a = 0;
        size_t s = 0;
        int32_t cnt = 1;
        ck_assert_int_eq(PMIx_Data_unpack(NULL, bufs[i], &a, &cnt, PMIX_UINT64), PMIX_SUCCESS);
        ck_assert(a == big);
        cnt = 1;
        ck_assert_int_eq(PMIx_Data_unpack(NULL, bufs[i], &s, &cnt, PMIX_SIZE), PMIX_SUCCESS);
        ck_assert(s == big);
        PMIX_DATA_BUFFER_DESTRUCT(bufs[i]);
    }
    /* unload after a partial read hands over the rest only */
    PMIX_DATA_BUFFER_CONSTRUCT(&db);
    PMIx_Data_pack(NULL, &db, &big, 1, PMIX_UINT64);
    int32_t i32 = 77;
    PMIx_Data_pack(NULL, &db, &i32, 1, PMIX_INT32);
    uint64_t a;
    int32_t cnt = 1;
    ck_assert_int_eq(PMIx_Data_unpack(NULL, &db, &a, &cnt, PMIX_UINT64), PMIX_SUCCESS);
    ck_assert_int_eq(PMIx_Data_unload(&db, &bo), PMIX_SUCCESS);
    ck_assert_uint_eq(bo.size, 2 + 4 + 4);
    PMIx_Data_load(&db, &bo);
    i32 = 0;
    cnt = 1;
    ck_assert_int_eq(PMIx_Data_unpack(NULL, &db, &i32, &cnt, PMIX_INT32), PMIX_SUCCESS);
    ck_assert_int_eq(i32, 77);
    PMIX_DATA_BUFFER_DESTRUCT(&db);

    /* deep copy and print */
    pmix_value_t *vals;
    size_t n;
    spx_sample_values(&vals, &n, 0);
    for (size_t k = 0; k < n; k++) {
        pmix_value_t *copy = NULL;
        ck_assert_int_eq(PMIx_Data_copy((void **)&copy, &vals[k], PMIX_VALUE), PMIX_SUCCESS);
        ck_assert_int_eq(copy->type, vals[k].type);
        if (vals[k].type == PMIX_DATA_ARRAY)
            ck_assert_ptr_ne(copy->data.darray, vals[k].data.darray);
        char *text = NULL;
        ck_assert_int_eq(PMIx_Data_print(&text, "  ", copy, PMIX_VALUE), PMIX_SUCCESS);
        ck_assert_ptr_nonnull(strstr(text, spx_codec_type_str(vals[k].type)));
        free(text);
        spx_codec_value_release(copy);
        free(copy);
    }
    for (size_t k = 0; k < n; k++)
        spx_codec_value_release(&vals[k]);
    free(vals);
    char *sc = NULL;
    ck_assert_int_eq(PMIx_Data_copy((void **)&sc, "text", PMIX_STRING), PMIX_SUCCESS);
    ck_assert_str_eq(sc, "text");
    free(sc);
    uint8_t *outb = (uint8_t *)&a;
    size_t outn = 5;
    ck_assert(!PMIx_Data_compress((const uint8_t *)"aaaa", 4, &outb, &outn));
    ck_assert_ptr_null(outb);
}
END_TEST

/* Hostile bytes through PMIx_Data_unpack: the buffer must be left unmoved. */
START_TEST(data_unpack_hostile)
{
    pmix_data_buffer_t db;
    PMIX_DATA_BUFFER_CONSTRUCT(&db);
    char *s = "a string";
    PMIx_Data_pack(NULL, &db, &s, 1, PMIX_STRING);
    size_t full = db.bytes_used;
    for (size_t cut = 0; cut < full; cut++) {
        pmix_data_buffer_t t;
        PMIX_DATA_BUFFER_CONSTRUCT(&t);
        pmix_byte_object_t bo = { .bytes = malloc(full), .size = cut };
        memcpy(bo.bytes, db.base_ptr, full);
        PMIx_Data_load(&t, &bo);
        char *out = NULL;
        int32_t cnt = 1;
        pmix_status_t rc = PMIx_Data_unpack(NULL, &t, &out, &cnt, PMIX_STRING);
        ck_assert(rc == PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER || rc == PMIX_ERR_UNPACK_FAILURE);
        ck_assert_ptr_null(out);
        ck_assert_ptr_eq(t.unpack_ptr, t.base_ptr);
        PMIX_DATA_BUFFER_DESTRUCT(&t);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&db);
    /* a count the bytes cannot hold */
    const uint8_t huge[] = { PMIX_INFO, 0, 0xff, 0xff, 0x0f, 0, 1, 2, 3, 4 };
    pmix_byte_object_t bo = { .bytes = malloc(sizeof(huge)), .size = sizeof(huge) };
    memcpy(bo.bytes, huge, sizeof(huge));
    PMIx_Data_load(&db, &bo);
    pmix_info_t one;
    int32_t cnt = 1;
    ck_assert_int_eq(PMIx_Data_unpack(NULL, &db, &one, &cnt, PMIX_INFO), PMIX_ERR_UNPACK_FAILURE);
    PMIX_DATA_BUFFER_DESTRUCT(&db);
}
END_TEST

/* ---- the type table: one row per type, every operation in it ---- */

/* Every row is whole, and its wire_min really bounds its encoding: a zeroed
 * element of every encodable type packs to at least wire_min bytes (exactly
 * wire_min == size for plain numbers), unpacks to an equal element with no
 * trailing bytes, and is released through the row. */
START_TEST(type_table_rows)
{
    size_t rows = 0;
    for (unsigned t = 0; t < 256; t++) {
        const struct spx_typedesc *td = spx_typedesc_get((pmix_data_type_t)t);
        if (!td)
            continue;
        rows++;
        ck_assert_uint_eq(td->type, t);
        ck_assert_ptr_nonnull(td->name);
        ck_assert_ptr_nonnull(td->print);
        ck_assert_int_eq(td->pack == NULL, td->unpack == NULL);
        ck_assert_int_eq(td->pack == NULL, t == PMIX_UNDEF);
        ck_assert_uint_ge(td->wire_min, 1);
        ck_assert_str_eq(PMIx_Data_type_string(td->type), td->name);
        if (!td->pack)
            continue;
        ck_assert_uint_eq(spx_codec_type_size(td->type), td->size);
        ck_assert_str_eq(spx_codec_type_str(td->type), td->name);
        void *zero = calloc(1, td->size), *out = calloc(1, td->size);
        ck_assert(zero && out);
        spx_buf_t w, r;
        spx_buf_init(&w);
        spx_codec_push_elems(&w, td->type, zero, 1);
        ck_assert_msg(w.err == 0, "%s: pack of a zeroed element failed", td->name);
        ck_assert_msg(w.len >= td->wire_min, "%s: %zu bytes < wire_min %zu", td->name, w.len,
                      td->wire_min);
        if (td->num != SPX_NUM_NONE)
            ck_assert_msg(w.len == td->wire_min && td->wire_min == td->size,
                          "%s: fixed width %zu, wire_min %zu, size %zu", td->name, w.len,
                          td->wire_min, td->size);
        reader_of(&r, &w, w.len);
        ck_assert_int_eq(spx_codec_pull_elems(&r, td->type, out, 1), 0);
        ck_assert_int_eq(spx_buf_finish(&r), 0);
        ck_assert_msg(spx_td_elem_cmp(td, zero, out) == PMIX_EQUAL, "%s: round trip differs",
                      td->name);
        spx_codec_release_elems(td->type, out, 1);
        spx_buf_fini(&r);
        spx_buf_fini(&w);
        free(zero);
        free(out);
    }
    ck_assert_uint_ge(rows, 60); /* every PMIx v4 type that has a layout */
}
END_TEST

/* One printer: PMIx_Data_print shows an element's data exactly as
 * PMIx_Value_string shows it inside a value ("Data type: T\tValue: <data>"
 * against "T: <data>"). PMIX_STRING is the documented exception: Data_print
 * takes the string itself and prints it bare. */
START_TEST(one_printer_for_every_type)
{
    pmix_value_t *vals;
    size_t n;
    spx_sample_values(&vals, &n, 0);
    for (size_t k = 0; k < n; k++) {
        const pmix_value_t *v = &vals[k];
        const struct spx_typedesc *td = spx_typedesc_get(v->type);
        ck_assert_ptr_nonnull(td);
        if (v->type == PMIX_STRING || v->type == PMIX_UNDEF)
            continue;
        void *elem = td->store == SPX_TD_INLINE ? (void *)&v->data : v->data.ptr;
        char *vs = PMIx_Value_string(v), *ds = NULL, *want = NULL;
        ck_assert_ptr_nonnull(vs);
        size_t tl = strlen(td->name) + 2; /* "T: " */
        ck_assert_int_eq(strncmp(vs, td->name, tl - 2), 0);
        ck_assert_int_ge(asprintf(&want, ">Data type: %s\tValue: %s", td->name, vs + tl), 0);
        ck_assert_int_eq(PMIx_Data_print(&ds, ">", elem, v->type), PMIX_SUCCESS);
        ck_assert_str_eq(ds, want);
        free(vs);
        free(ds);
        free(want);
    }
    for (size_t k = 0; k < n; k++)
        spx_codec_value_release(&vals[k]);
    free(vals);
}
END_TEST

/* A decoded string vector is released by the one argv release. */
START_TEST(argv_codec_and_release)
{
    char *argv[] = { "a", "", "ccc", NULL };
    char **copy = NULL, **got = NULL;
    spx_buf_t w, r;

    ck_assert_int_eq(spx_argv_dup(&copy, argv), PMIX_SUCCESS);
    spx_buf_init(&w);
    spx_codec_push_argv(&w, copy);
    reader_of(&r, &w, w.len);
    spx_codec_pull_argv(&r, &got);
    ck_assert_int_eq(spx_buf_finish(&r), 0);
    ck_assert_ptr_nonnull(got);
    for (int i = 0; argv[i]; i++)
        ck_assert_str_eq(got[i], argv[i]);
    ck_assert_ptr_null(got[3]);
    spx_argv_free(got);
    spx_argv_free(copy);
    spx_argv_free(NULL);
    spx_buf_fini(&r);
    spx_buf_fini(&w);
}
END_TEST

static Suite *codec_suite(void)
{
    Suite *s = suite_create("codec");
    TCase *tc = tcase_create("buf");
    tcase_add_test(tc, buf_scalars_and_strings);
    tcase_add_test(tc, buf_sticky_and_finish);
    tcase_add_test(tc, buf_borrowed_read);
    tcase_add_test(tc, buf_caps_before_allocation);
    tcase_add_test(tc, frame_header);
    suite_add_tcase(s, tc);
    tc = tcase_create("value");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, value_round_trip_every_type);
    tcase_add_test(tc, value_release_with_public_destruct);
    tcase_add_test(tc, value_truncated_everywhere);
    tcase_add_test(tc, value_bad_types);
    tcase_add_test(tc, value_depth_bomb);
    tcase_add_test(tc, value_trailing_and_limits);
    tcase_add_test(tc, proc_arrays);
    tcase_add_test(tc, type_table_rows);
    tcase_add_test(tc, one_printer_for_every_type);
    tcase_add_test(tc, argv_codec_and_release);
    suite_add_tcase(s, tc);
    tc = tcase_create("data");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, data_pack_unpack);
    tcase_add_test(tc, data_load_unload_copy);
    tcase_add_test(tc, data_unpack_hostile);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(codec_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
