/* test_sha256.c - SHA-256 against the FIPS 180-2 example vectors and
 * HMAC-SHA256 against RFC 4231 test cases 1-4, 6 and 7; incremental updates
 * split at every offset must give the one-shot digest; the constant-time
 * compare sees a difference at every byte and bit. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sha256.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_sha(const void *data, size_t len, const char *want)
{
    uint8_t d[SPX_SHA256_LEN];
    char h[2 * SPX_SHA256_LEN + 1];
    spx_sha256(data, len, d);
    hex(d, sizeof(d), h);
    ck_assert_str_eq(h, want);
}

static void check_hmac(const void *key, size_t klen, const void *data, size_t len, const char *want)
{
    uint8_t d[SPX_SHA256_LEN];
    char h[2 * SPX_SHA256_LEN + 1];
    spx_hmac_sha256(key, klen, data, len, d);
    hex(d, sizeof(d), h);
    ck_assert_str_eq(h, want);
}

START_TEST(sha_vectors)
{
    check_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_sha(m2, strlen(m2), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m3 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                     "klmnopqrlmnopqrsmnopqrstnopqrstu";
    check_sha(m3, strlen(m3), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    char *ma = malloc(1000000);
    ck_assert_ptr_nonnull(ma);
    memset(ma, 'a', 1000000);
    check_sha(ma, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(ma);
}
END_TEST

START_TEST(sha_incremental)
{
    /* lengths around the padding boundaries (55, 56, 63, 64) split everywhere */
    uint8_t msg[130];
    for (size_t i = 0; i < sizeof(msg); i++)
        msg[i] = (uint8_t)(i * 7 + 1);
    for (size_t len = 0; len <= sizeof(msg); len++) {
        uint8_t one[SPX_SHA256_LEN];
        spx_sha256(msg, len, one);
        for (size_t cut = 0; cut <= len; cut++) {
            uint8_t two[SPX_SHA256_LEN];
            spx_sha256_t s;
            spx_sha256_init(&s);
            spx_sha256_update(&s, msg, cut);
            spx_sha256_update(&s, msg + cut, len - cut);
            spx_sha256_final(&s, two);
            ck_assert_mem_eq(one, two, SPX_SHA256_LEN);
        }
    }
}
END_TEST

START_TEST(hmac_rfc4231)
{
    uint8_t k1[20], k3[20], d3[50], k4[25], d4[50], k6[131];
    memset(k1, 0x0b, sizeof(k1));
    check_hmac(k1, sizeof(k1), "Hi There", 8,
               "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    check_hmac("Jefe", 4, "what do ya want for nothing?", 28,
               "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    memset(k3, 0xaa, sizeof(k3));
    memset(d3, 0xdd, sizeof(d3));
    check_hmac(k3, sizeof(k3), d3, sizeof(d3),
               "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
    for (int i = 0; i < 25; i++)
        k4[i] = (uint8_t)(i + 1);
    memset(d4, 0xcd, sizeof(d4));
    check_hmac(k4, sizeof(k4), d4, sizeof(d4),
               "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
    memset(k6, 0xaa, sizeof(k6));
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    check_hmac(k6, sizeof(k6), m6, strlen(m6),
               "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    const char *m7 = "This is a test using a larger than block-size key and a larger than "
                     "block-size data. The key needs to be hashed before being used by the "
                     "HMAC algorithm.";
    check_hmac(k6, sizeof(k6), m7, strlen(m7),
               "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}
END_TEST

START_TEST(hmac_incremental_and_compare)
{
    uint8_t a[SPX_SHA256_LEN], b[SPX_SHA256_LEN];
    spx_hmac_sha256("key", 3, "hello world", 11, a);
    spx_hmac_sha256_t h;
    spx_hmac_sha256_init(&h, "key", 3);
    spx_hmac_sha256_update(&h, "hello", 5);
    spx_hmac_sha256_update(&h, " world", 6);
    spx_hmac_sha256_final(&h, b);
    ck_assert_int_eq(spx_ct_memcmp(a, b, sizeof(a)), 0);
    b[31] ^= 1;
    ck_assert_int_ne(spx_ct_memcmp(a, b, sizeof(a)), 0);
    spx_hmac_sha256("kez", 3, "hello world", 11, b);
    ck_assert_int_ne(spx_ct_memcmp(a, b, sizeof(a)), 0);
}
END_TEST

START_TEST(ct_compare_every_position)
{
    /* a difference anywhere (first, middle, last byte; any bit) counts, the
     * answer is exactly 0 or 1, and n bounds what is compared */
    uint8_t a[SPX_SHA256_LEN], b[SPX_SHA256_LEN];
    for (size_t i = 0; i < sizeof(a); i++)
        a[i] = b[i] = (uint8_t)(i * 37 + 5);
    ck_assert_int_eq(spx_ct_memcmp(a, b, sizeof(a)), 0);
    ck_assert_int_eq(spx_ct_memcmp(a, b, 0), 0);
    for (size_t i = 0; i < sizeof(a); i++)
        for (int bit = 0; bit < 8; bit++) {
            b[i] ^= (uint8_t)(1u << bit);
            ck_assert_int_eq(spx_ct_memcmp(a, b, sizeof(a)), 1);
            ck_assert_int_eq(spx_ct_memcmp(a, b, i + 1), 1);
            ck_assert_int_eq(spx_ct_memcmp(a, b, i), 0);
            b[i] ^= (uint8_t)(1u << bit);
        }
    ck_assert_int_eq(spx_ct_memcmp(a, b, sizeof(a)), 0);
}
END_TEST

START_TEST(hmac_empty_key_and_message)
{
    /* HMAC-SHA256 with an empty key over an empty message (a known value) */
    check_hmac("", 0, "", 0, "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
    check_hmac(NULL, 0, NULL, 0,
               "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sha256");
    TCase *tc = tcase_create("all");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, sha_vectors);
    tcase_add_test(tc, sha_incremental);
    tcase_add_test(tc, hmac_rfc4231);
    tcase_add_test(tc, hmac_incremental_and_compare);
    tcase_add_test(tc, ct_compare_every_position);
    tcase_add_test(tc, hmac_empty_key_and_message);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf ? 1 : 0;
}
