/* sha256.c - the spx_ SHA-256 / HMAC-SHA256 / constant-time compare API on
 * top of nettle (sha2.h, hmac.h, memops.h). No algorithm lives here: each
 * call forwards to nettle, turning our (pointer, length) order into nettle's
 * (length, pointer) order, and final() wipes the context so that no key
 * material stays on the caller's stack or heap. nettle keeps no global state
 * and needs no initialisation, so these are safe on any thread. */
#include "util/sha256.h"

#include <nettle/memops.h>

_Static_assert(SPX_SHA256_LEN == SHA256_DIGEST_SIZE, "digest size");
_Static_assert(SPX_SHA256_BLOCK == SHA256_BLOCK_SIZE, "block size");

/* memset that the compiler may not drop because the object dies next */
static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = p;
    while (n--)
        *v++ = 0;
}

void spx_sha256_init(spx_sha256_t *s)
{
    sha256_init(&s->ctx);
}

void spx_sha256_update(spx_sha256_t *s, const void *data, size_t len)
{
    if (len)
        sha256_update(&s->ctx, len, data);
}

void spx_sha256_final(spx_sha256_t *s, uint8_t out[SPX_SHA256_LEN])
{
    sha256_digest(&s->ctx, SPX_SHA256_LEN, out);
    wipe(s, sizeof(*s));
}

void spx_sha256(const void *data, size_t len, uint8_t out[SPX_SHA256_LEN])
{
    spx_sha256_t s;
    spx_sha256_init(&s);
    spx_sha256_update(&s, data, len);
    spx_sha256_final(&s, out);
}

void spx_hmac_sha256_init(spx_hmac_sha256_t *h, const void *key, size_t key_len)
{
    /* nettle hashes a key longer than a block first, as RFC 2104 says */
    hmac_sha256_set_key(&h->ctx, key_len, key_len ? key : (const void *)"");
}

void spx_hmac_sha256_update(spx_hmac_sha256_t *h, const void *data, size_t len)
{
    if (len)
        hmac_sha256_update(&h->ctx, len, data);
}

void spx_hmac_sha256_final(spx_hmac_sha256_t *h, uint8_t out[SPX_SHA256_LEN])
{
    hmac_sha256_digest(&h->ctx, SPX_SHA256_LEN, out);
    wipe(h, sizeof(*h));
}

void spx_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                     uint8_t out[SPX_SHA256_LEN])
{
    spx_hmac_sha256_t h;
    spx_hmac_sha256_init(&h, key, key_len);
    spx_hmac_sha256_update(&h, data, len);
    spx_hmac_sha256_final(&h, out);
}

int spx_ct_memcmp(const void *a, const void *b, size_t n)
{
    /* memeql_sec is 1 when equal; n == 0 compares nothing: equal */
    return n == 0 ? 0 : !memeql_sec(a, b, n);
}
