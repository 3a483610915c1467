/* sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), used by the
 * tree engine to prove that both ends of a server-to-server connection know
 * the step's secret, and by the plugin to sign abort reports. Thin wrappers
 * over nettle (doc/design-notes.md, "Crypto library"), so that the callers
 * keep one small spx_ API. Pure functions over caller memory: nothing
 * allocated, every pointer borrowed for the duration of the call; the
 * contexts live wherever the caller puts them and need no _fini. */
#ifndef SPX_UTIL_SHA256_H
#define SPX_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include <nettle/hmac.h>
#include <nettle/sha2.h>

#define SPX_SHA256_LEN 32    /* SHA256_DIGEST_SIZE */
#define SPX_SHA256_BLOCK 64  /* SHA256_BLOCK_SIZE */

typedef struct spx_sha256 {
    struct sha256_ctx ctx;
} spx_sha256_t;

/* final() writes the digest and wipes the context; init() again to reuse it. */
void spx_sha256_init(spx_sha256_t *s);
void spx_sha256_update(spx_sha256_t *s, const void *data, size_t len);
void spx_sha256_final(spx_sha256_t *s, uint8_t out[SPX_SHA256_LEN]);
void spx_sha256(const void *data, size_t len, uint8_t out[SPX_SHA256_LEN]);

/* Incremental HMAC: init with the key, feed the message in pieces, final
 * (which wipes the context, key included). */
typedef struct spx_hmac_sha256 {
    struct hmac_sha256_ctx ctx;
} spx_hmac_sha256_t;

void spx_hmac_sha256_init(spx_hmac_sha256_t *h, const void *key, size_t key_len);
void spx_hmac_sha256_update(spx_hmac_sha256_t *h, const void *data, size_t len);
void spx_hmac_sha256_final(spx_hmac_sha256_t *h, uint8_t out[SPX_SHA256_LEN]);
void spx_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                     uint8_t out[SPX_SHA256_LEN]);

/* Constant-time comparison of n bytes (time depends on n only): 0 when
 * equal, 1 when not. */
int spx_ct_memcmp(const void *a, const void *b, size_t n);

#endif
