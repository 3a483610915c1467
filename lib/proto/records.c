/* records.c - writes store entries as a key/value record stream and applies a
 * received stream to a store (format in records.h). */
#include "config.h"
#include "proto/records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "util/log.h"

struct push_ctx {
    spx_buf_t *b;
    unsigned scope_mask;
    size_t count;
    uint64_t max_seq;
};

static int push_entry(const char *key, const pmix_value_t *val, pmix_scope_t scope, uint64_t seq,
                      void *arg)
{
    struct push_ctx *ctx = arg;
    if (!(ctx->scope_mask & SPX_SCOPE_BIT(scope)))
        return 0;
    spx_buf_push_u8(ctx->b, scope);
    spx_buf_push_str(ctx->b, key);
    if (!spx_scope_is_delete(scope))
        spx_codec_push_value(ctx->b, val);
    ctx->count++;
    if (seq > ctx->max_seq)
        ctx->max_seq = seq;
    return 0;
}

size_t spx_records_push_proc(spx_buf_t *b, const spx_store_t *s, const char *nspace,
                             pmix_rank_t rank, uint64_t since, unsigned scope_mask,
                             bool always_emit, uint64_t *max_seq_out)
{
    size_t start = b->len;
    spx_buf_push_str(b, nspace);
    spx_buf_push_u32(b, rank);
    size_t count_at = b->len;
    spx_buf_push_u32(b, 0); /* patched below */
    struct push_ctx ctx = {.b = b, .scope_mask = scope_mask, .count = 0, .max_seq = since};
    spx_store_foreach_since(s, nspace, rank, since, push_entry, &ctx);
    if (max_seq_out)
        *max_seq_out = ctx.max_seq;
    if (spx_buf_failed(b))
        return 0;
    if (ctx.count == 0 && !always_emit) {
        b->len = start;
        return 0;
    }
    uint32_t n = (uint32_t)ctx.count;
    uint8_t le[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    memcpy(b->data + count_at, le, sizeof(le));
    return ctx.count;
}

/* Reads one entry and applies it (unless skip). 0 or -1. */
static int apply_entry(spx_buf_t *b, spx_store_t *dst, const char *nspace, pmix_rank_t rank,
                       bool skip)
{
    pmix_scope_t scope = spx_buf_pull_u8(b);
    char key[PMIX_MAX_KEYLEN + 1];
    spx_buf_pull_str_into(b, key, sizeof(key));
    if (spx_buf_failed(b))
        return -1;
    if (scope < PMIX_LOCAL || scope > PMIX_DEL_INTERNAL) {
        spx_buf_set_error(b, EBADMSG);
        return -1;
    }
    if (spx_scope_is_delete(scope)) {
        if (!skip)
            spx_store_delete(dst, nspace, rank, key, scope);
        return 0;
    }
    pmix_value_t val;
    if (spx_codec_pull_value(b, &val) != 0)
        return -1;
    pmix_status_t rc = PMIX_SUCCESS;
    if (!skip) /* the decoded value moves into the store: one copy, not two */
        rc = spx_store_put_owned(dst, nspace, rank, key, &val, scope);
    PMIx_Value_destruct(&val); /* what the store did not take */
    if (rc != PMIX_SUCCESS) {
        spx_buf_set_error(b, rc == PMIX_ERR_NOMEM ? ENOMEM : EBADMSG);
        return -1;
    }
    return 0;
}

int spx_records_apply(spx_buf_t *b, spx_store_t *dst, spx_records_filter_f filter, void *arg)
{
    while (!spx_buf_failed(b) && spx_buf_remaining(b) > 0) {
        char nspace[PMIX_MAX_NSLEN + 1];
        spx_buf_pull_str_into(b, nspace, sizeof(nspace));
        pmix_rank_t rank = spx_buf_pull_u32(b);
        uint32_t n = spx_buf_pull_u32(b);
        if (spx_buf_failed(b))
            break;
        /* each entry takes at least 1 + 4 bytes: bound the count by what remains */
        if (n > SPX_BUF_MAX_COUNT || (size_t)n > spx_buf_remaining(b) / 5) {
            spx_buf_set_error(b, EBADMSG);
            break;
        }
        bool skip = filter && !filter(nspace, rank, arg);
        for (uint32_t i = 0; i < n; i++)
            if (apply_entry(b, dst, nspace, rank, skip) != 0)
                break;
    }
    return spx_buf_failed(b) ? -1 : 0;
}
