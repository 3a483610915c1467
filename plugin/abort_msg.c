/*
 * abort_msg.c - pack/unpack of the abort report (format in abort_msg.h),
 * proven with HMAC-SHA256 (lib/util/sha256.c) over the step secret or with
 * a munge credential (lib/util/munge_cred.c).
 */
#include "config.h"
#include "plugin/abort_msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "util/munge_cred.h"
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

/* "spmix-abort" | nonce | report (len bytes): a munge credential's payload;
 * malloc'd, NULL when out of memory. */
static uint8_t *spx_plg_abort_payload(const uint8_t *nonce, const uint8_t *rep, size_t len,
                                      size_t *plen)
{
    size_t l = sizeof(SPX_PLG_ABORT_LABEL) - 1;
    uint8_t *p = malloc(l + SPX_PLG_ABORT_NONCE + len);

    if (p == NULL)
        return NULL;
    memcpy(p, SPX_PLG_ABORT_LABEL, l);
    memcpy(p + l, nonce, SPX_PLG_ABORT_NONCE);
    memcpy(p + l + SPX_PLG_ABORT_NONCE, rep, len);
    *plen = l + SPX_PLG_ABORT_NONCE + len;
    return p;
}

/* HMAC(key, report | nonce) into mac */
static void spx_plg_abort_mac(const struct spx_plg_abort_auth *au, const uint8_t *rep,
                              size_t len, const uint8_t *nonce, uint8_t *mac)
{
    spx_hmac_sha256_t h;

    spx_hmac_sha256_init(&h, au->key, au->keylen);
    spx_hmac_sha256_update(&h, rep, len);
    spx_hmac_sha256_update(&h, nonce, SPX_PLG_ABORT_NONCE);
    spx_hmac_sha256_final(&h, mac);
}

size_t spx_plg_abort_pack(const struct spx_plg_abort *a, const struct spx_plg_abort_auth *au,
                          const uint8_t nonce[SPX_PLG_ABORT_NONCE], uint8_t *buf, char *err,
                          size_t errlen)
{
    uint8_t *p = buf + SPX_PLG_ABORT_HDR;
    size_t body, rep, plen, clen;
    uint8_t *pl;
    char *cred;

    memcpy(buf, spx_plg_magic, 4);
    p = spx_plg_put32(p, a->jobid);
    p = spx_plg_put32(p, a->stepid);
    p = spx_plg_put32(p, a->rank);
    p = spx_plg_put32(p, (uint32_t)a->status);
    p = spx_plg_putstr(p, a->host, SPX_PLG_ABORT_MAX_HOST);
    p = spx_plg_putstr(p, a->text, SPX_PLG_ABORT_MAX_TEXT);
    rep = (size_t)(p - buf);
    body = rep - SPX_PLG_ABORT_HDR;
    spx_plg_put32(buf + 4, (uint32_t)body);
    if (!au->munge) {
        spx_plg_put32(p, SPX_PLG_ABORT_MAC);
        spx_plg_abort_mac(au, buf, rep, nonce, p + 4);
        return rep + 4 + SPX_PLG_ABORT_MAC;
    }
    if ((pl = spx_plg_abort_payload(nonce, buf, rep, &plen)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return 0;
    }
    cred = spx_munge_encode(au->socket, pl, plen, err, errlen);
    free(pl);
    if (cred == NULL)
        return 0;
    clen = strlen(cred);
    if (clen > SPX_PLG_ABORT_MAX_PROOF) {
        snprintf(err, errlen, "munge credential longer than %d bytes", SPX_PLG_ABORT_MAX_PROOF);
        free(cred);
        return 0;
    }
    spx_plg_put32(p, (uint32_t)clen);
    memcpy(p + 4, cred, clen);
    free(cred);
    return rep + 4 + clen;
}

long spx_plg_abort_proof_len(const uint8_t *p)
{
    uint32_t n = spx_plg_get32(p);

    return n > SPX_PLG_ABORT_MAX_PROOF ? -1 : (long)n;
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

/* Checks the proof (len bytes at proof) of the report rep (replen bytes).
 * 0, or -2 with the reason in err. */
static int spx_plg_abort_check(const uint8_t *rep, size_t replen, const uint8_t *proof,
                               size_t len, const struct spx_plg_abort_auth *au,
                               const uint8_t *nonce, char *err, size_t errlen)
{
    uint8_t mac[SPX_SHA256_LEN], *pl;
    char *cred;
    size_t plen;
    uid_t uid;
    gid_t gid;
    int rc;

    if (!au->munge) {
        spx_plg_abort_mac(au, rep, replen, nonce, mac);
        if (len != SPX_PLG_ABORT_MAC || spx_ct_memcmp(mac, proof, SPX_PLG_ABORT_MAC) != 0) {
            snprintf(err, errlen, "wrong MAC (another step's secret?)");
            return -2;
        }
        return 0;
    }
    if ((cred = malloc(len + 1)) == NULL ||
        (pl = spx_plg_abort_payload(nonce, rep, replen, &plen)) == NULL) {
        free(cred);
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    memcpy(cred, proof, len);
    cred[len] = '\0';
    rc = spx_munge_check(au->socket, cred, pl, plen, &uid, &gid, err, errlen);
    free(cred);
    free(pl);
    if (rc != 0)
        return -2;
    if (!spx_munge_uid_allowed(uid, au->uids, au->nuids)) {
        snprintf(err, errlen, "munge credential of uid %ld, not the job's user, root or "
                              "SlurmUser", (long)uid);
        return -2;
    }
    return 0;
}

int spx_plg_abort_unpack(const uint8_t *buf, size_t len, const struct spx_plg_abort_auth *au,
                         const uint8_t nonce[SPX_PLG_ABORT_NONCE], struct spx_plg_abort *out,
                         char *err, size_t errlen)
{
    const uint8_t *p, *end;
    long body, proof;

    snprintf(err, errlen, "malformed");
    if (len < SPX_PLG_ABORT_HDR || (body = spx_plg_abort_body_len(buf)) < 0 ||
        len < SPX_PLG_ABORT_HDR + (size_t)body + 4)
        return -1;
    end = buf + SPX_PLG_ABORT_HDR + body;
    if ((proof = spx_plg_abort_proof_len(end)) < 0 ||
        len != SPX_PLG_ABORT_HDR + (size_t)body + 4 + (size_t)proof)
        return -1;
    if (spx_plg_abort_check(buf, (size_t)(end - buf), end + 4, (size_t)proof, au, nonce, err,
                            errlen) != 0)
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
