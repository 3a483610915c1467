/*
 * abort_msg.c - pack/unpack of the abort report (format in abort_msg.h),
 * authenticated with HMAC-SHA256 from lib/util/sha256.c over the step secret.
 */
#include "config.h"
#include "plugin/abort_msg.h"

#include <string.h>

#include "util/sha256.h"

static const uint8_t spx_plg_magic[4] = { 'S', 'P', 'X', 'A' };

static uint8_t *spx_plg_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return p + 4;
}

static uint32_t spx_plg_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint8_t *spx_plg_putstr(uint8_t *p, const char *s, size_t max)
{
    size_t n = strnlen(s, max);

    p[0] = (uint8_t)(n >> 8);
    p[1] = (uint8_t)n;
    memcpy(p + 2, s, n);
    return p + 2 + n;
}

size_t spx_plg_abort_pack(const struct spx_plg_abort *a, const void *key, size_t keylen,
                          uint8_t *buf)
{
    uint8_t *p = buf + SPX_PLG_ABORT_HDR;
    size_t body;

    memcpy(buf, spx_plg_magic, 4);
    p = spx_plg_put32(p, a->jobid);
    p = spx_plg_put32(p, a->stepid);
    p = spx_plg_put32(p, a->rank);
    p = spx_plg_put32(p, (uint32_t)a->status);
    p = spx_plg_putstr(p, a->host, SPX_PLG_ABORT_MAX_HOST);
    p = spx_plg_putstr(p, a->text, SPX_PLG_ABORT_MAX_TEXT);
    body = (size_t)(p - buf) - SPX_PLG_ABORT_HDR;
    spx_plg_put32(buf + 4, (uint32_t)body);
    spx_hmac_sha256(key, keylen, buf, (size_t)(p - buf), p);
    return (size_t)(p - buf) + SPX_PLG_ABORT_MAC;
}

long spx_plg_abort_body_len(const uint8_t *hdr)
{
    uint32_t n;

    if (memcmp(hdr, spx_plg_magic, 4) != 0)
        return -1;
    n = spx_plg_get32(hdr + 4);
    if (n < 20 || n > SPX_PLG_ABORT_MAX_BODY)
        return -1;
    return (long)n;
}

/* Copies a u16-length string at *p (within end) into out (max+1 bytes). */
static int spx_plg_getstr(const uint8_t **p, const uint8_t *end, char *out, size_t max)
{
    size_t n;

    if (end - *p < 2)
        return -1;
    n = (size_t)(*p)[0] << 8 | (*p)[1];
    if (n > max || (size_t)(end - *p - 2) < n || memchr(*p + 2, '\0', n) != NULL)
        return -1;
    memcpy(out, *p + 2, n);
    out[n] = '\0';
    *p += 2 + n;
    return 0;
}

int spx_plg_abort_unpack(const uint8_t *buf, size_t len, const void *key, size_t keylen,
                         struct spx_plg_abort *out)
{
    uint8_t mac[SPX_SHA256_LEN];
    const uint8_t *p, *end;
    long body;

    if (len < SPX_PLG_ABORT_HDR || (body = spx_plg_abort_body_len(buf)) < 0 ||
        len != SPX_PLG_ABORT_HDR + (size_t)body + SPX_PLG_ABORT_MAC)
        return -1;
    end = buf + SPX_PLG_ABORT_HDR + body;
    spx_hmac_sha256(key, keylen, buf, (size_t)(end - buf), mac);
    if (spx_ct_memcmp(mac, end, SPX_PLG_ABORT_MAC) != 0)
        return -2;
    p = buf + SPX_PLG_ABORT_HDR;
    out->jobid = spx_plg_get32(p);
    out->stepid = spx_plg_get32(p + 4);
    out->rank = spx_plg_get32(p + 8);
    out->status = (int32_t)spx_plg_get32(p + 12);
    p += 16;
    if (spx_plg_getstr(&p, end, out->host, SPX_PLG_ABORT_MAX_HOST) != 0 ||
        spx_plg_getstr(&p, end, out->text, SPX_PLG_ABORT_MAX_TEXT) != 0 || p != end)
        return -1;
    return 0;
}
