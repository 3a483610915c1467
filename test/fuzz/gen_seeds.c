/* gen_seeds.c - writes the seed corpus of fuzz_decode: one file per decoder
 * mode built from the sample values (valid inputs the fuzzer mutates from).
 * Usage: gen_seeds <dir>. The output is committed in test/fuzz/corpus. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "codec/frame.h"
#include "codec/value.h"
#include "samples.h"

static const char *outdir;

static void emit(const char *name, int mode, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputc(mode, f);
    fwrite(p, 1, n, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <dir>\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    pmix_value_t *vals;
    size_t nv;
    spx_sample_values(&vals, &nv, 0);
    for (size_t i = 0; i < nv; i++) { /* mode 1: one value per type */
        spx_buf_t b;
        spx_buf_init(&b);
        spx_codec_push_value(&b, &vals[i]);
        char name[64];
        snprintf(name, sizeof(name), "value-%02zu-%s", i, spx_codec_type_str(vals[i].type));
        emit(name, 1, b.data, b.len);
        spx_buf_fini(&b);
    }
    pmix_info_t *infos;
    size_t ni;
    spx_sample_infos(&infos, &ni, 0);
    spx_buf_t b;
    spx_buf_init(&b);
    spx_codec_push_info(&b, &infos[3]);
    emit("info-one", 2, b.data, b.len);
    spx_buf_fini(&b);
    spx_buf_init(&b);
    spx_codec_push_info_array(&b, infos, ni);
    emit("info-array-all", 3, b.data, b.len);
    /* mode 0: a frame header with an info as payload */
    uint8_t frame[SPX_FRAME_HDR_LEN + 512];
    spx_buf_t one;
    spx_buf_init(&one);
    spx_codec_push_info(&one, &infos[1]);
    spx_frame_hdr_t h = { .version = SPX_FRAME_VERSION, .type = 2, .seq = 9, .length = (uint32_t)one.len };
    spx_frame_hdr_encode(&h, frame);
    memcpy(frame + SPX_FRAME_HDR_LEN, one.data, one.len);
    emit("frame-info", 0, frame, SPX_FRAME_HDR_LEN + one.len);
    spx_buf_fini(&one);
    spx_buf_fini(&b);
    pmix_proc_t procs[3] = { { "ns.a", 0 }, { "ns.b", 1 }, { "", PMIX_RANK_WILDCARD } };
    spx_buf_init(&b);
    spx_codec_push_proc_array(&b, procs, 3);
    emit("proc-array", 4, b.data, b.len);
    spx_buf_fini(&b);
    /* mode 5: typed elements (u16 type, u8 count-1, elements) */
    const char *strs[2] = { "x", "yz" };
    spx_buf_init(&b);
    spx_buf_push_u16(&b, PMIX_STRING);
    spx_buf_push_u8(&b, 1);
    spx_codec_push_elems(&b, PMIX_STRING, strs, 2);
    emit("elems-strings", 5, b.data, b.len);
    spx_buf_fini(&b);
    /* mode 6: a PMIx_Data_pack'ed buffer with several records */
    pmix_data_buffer_t db;
    PMIX_DATA_BUFFER_CONSTRUCT(&db);
    int32_t ints[2] = { 5, -6 };
    PMIx_Data_pack(NULL, &db, ints, 2, PMIX_INT32);
    PMIx_Data_pack(NULL, &db, (void *)strs, 2, PMIX_STRING);
    PMIx_Data_pack(NULL, &db, infos, 4, PMIX_INFO);
    PMIx_Data_pack(NULL, &db, procs, 3, PMIX_PROC);
    PMIx_Data_pack(NULL, &db, vals, 8, PMIX_VALUE);
    emit("data-buffer", 6, db.base_ptr, db.bytes_used);
    PMIX_DATA_BUFFER_DESTRUCT(&db);
    for (size_t i = 0; i < nv; i++)
        spx_codec_value_release(&vals[i]);
    free(vals);
    spx_codec_release_elems(PMIX_INFO, infos, ni);
    free(infos);
    return 0;
}
