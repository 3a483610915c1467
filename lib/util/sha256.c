/* sha256.c - SHA-256 as defined in FIPS 180-4 section 6.2, and HMAC over it
 * as defined in RFC 2104 (B = 64, L = 32).
 *
 * Data flow: update() fills a 64-byte block and compresses each full one
 * into the eight-word state; final() appends the 0x80 byte, zero padding and
 * the 64-bit big-endian bit length, compresses, and writes the state out big
 * endian. HMAC = H((K ^ opad) || H((K ^ ipad) || m)), K hashed first when
 * longer than a block. */
#include "util/sha256.h"

#include <string.h>

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t h[8], const uint8_t blk[SPX_SHA256_BLOCK])
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
               (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = k + S1 + ch + K256[i] + w[i];
        uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d;
    h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void spx_sha256_init(spx_sha256_t *s)
{
    static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(s->h, iv, sizeof(iv));
    s->total = 0;
    s->fill = 0;
}

void spx_sha256_update(spx_sha256_t *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    s->total += len;
    while (len > 0) {
        size_t take = SPX_SHA256_BLOCK - s->fill;
        if (take > len)
            take = len;
        memcpy(s->block + s->fill, p, take);
        s->fill += take;
        p += take;
        len -= take;
        if (s->fill == SPX_SHA256_BLOCK) {
            compress(s->h, s->block);
            s->fill = 0;
        }
    }
}

void spx_sha256_final(spx_sha256_t *s, uint8_t out[SPX_SHA256_LEN])
{
    uint64_t bits = s->total * 8;
    s->block[s->fill++] = 0x80;
    if (s->fill > SPX_SHA256_BLOCK - 8) {
        memset(s->block + s->fill, 0, SPX_SHA256_BLOCK - s->fill);
        compress(s->h, s->block);
        s->fill = 0;
    }
    memset(s->block + s->fill, 0, SPX_SHA256_BLOCK - 8 - s->fill);
    for (int i = 0; i < 8; i++)
        s->block[SPX_SHA256_BLOCK - 1 - i] = (uint8_t)(bits >> (8 * i));
    compress(s->h, s->block);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
    memset(s, 0, sizeof(*s));
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
    uint8_t k[SPX_SHA256_BLOCK] = { 0 };
    uint8_t ikey[SPX_SHA256_BLOCK];
    if (key_len > SPX_SHA256_BLOCK)
        spx_sha256(key, key_len, k);
    else if (key_len > 0)
        memcpy(k, key, key_len);
    for (int i = 0; i < SPX_SHA256_BLOCK; i++) {
        ikey[i] = k[i] ^ 0x36;
        h->okey[i] = k[i] ^ 0x5c;
    }
    spx_sha256_init(&h->inner);
    spx_sha256_update(&h->inner, ikey, sizeof(ikey));
    memset(k, 0, sizeof(k));
    memset(ikey, 0, sizeof(ikey));
}

void spx_hmac_sha256_update(spx_hmac_sha256_t *h, const void *data, size_t len)
{
    spx_sha256_update(&h->inner, data, len);
}

void spx_hmac_sha256_final(spx_hmac_sha256_t *h, uint8_t out[SPX_SHA256_LEN])
{
    uint8_t ih[SPX_SHA256_LEN];
    spx_sha256_t outer;
    spx_sha256_final(&h->inner, ih);
    spx_sha256_init(&outer);
    spx_sha256_update(&outer, h->okey, sizeof(h->okey));
    spx_sha256_update(&outer, ih, sizeof(ih));
    spx_sha256_final(&outer, out);
    memset(h, 0, sizeof(*h));
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
    const volatile uint8_t *x = a, *y = b;
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= x[i] ^ y[i];
    return d != 0;
}
