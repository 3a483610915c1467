/* sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), used by the
 * tree engine to prove that both ends of a server-to-server connection know
 * the step's secret. Pure functions over caller memory: nothing allocated,
 * every pointer borrowed for the duration of the call. */
#ifndef SPX_UTIL_SHA256_H
#define SPX_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SPX_SHA256_LEN 32
#define SPX_SHA256_BLOCK 64

typedef struct spx_sha256 {
    uint32_t h[8];
    uint64_t total;              /* bytes hashed so far */
    uint8_t block[SPX_SHA256_BLOCK];
    size_t fill;                 /* bytes waiting in block */
} spx_sha256_t;

void spx_sha256_init(spx_sha256_t *s);
void spx_sha256_update(spx_sha256_t *s, const void *data, size_t len);
void spx_sha256_final(spx_sha256_t *s, uint8_t out[SPX_SHA256_LEN]);
void spx_sha256(const void *data, size_t len, uint8_t out[SPX_SHA256_LEN]);

/* Incremental HMAC: init with the key, feed the message in pieces, final. */
typedef struct spx_hmac_sha256 {
    spx_sha256_t inner;
    uint8_t okey[SPX_SHA256_BLOCK]; /* key ^ opad */
} spx_hmac_sha256_t;

void spx_hmac_sha256_init(spx_hmac_sha256_t *h, const void *key, size_t key_len);
void spx_hmac_sha256_update(spx_hmac_sha256_t *h, const void *data, size_t len);
void spx_hmac_sha256_final(spx_hmac_sha256_t *h, uint8_t out[SPX_SHA256_LEN]);
void spx_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                     uint8_t out[SPX_SHA256_LEN]);

/* Constant-time comparison of n bytes: 0 when equal. */
int spx_ct_memcmp(const void *a, const void *b, size_t n);

#endif
