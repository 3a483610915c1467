/* auth.c - the two kinds of tree-link proof (auth.h) behind one interface:
 * a table of two functions per kind, SECRET (HMAC-SHA256 over the shared
 * secret, util/sha256.h) and MUNGE (a credential whose payload is the
 * transcript, util/munge_cred.h, with the step's list of allowed uids).
 */
#include "config.h"
#include "tree/auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/munge_cred.h"
#include "util/sha256.h"

typedef struct auth_kind_ops {
    int (*push)(spx_tree_auth_t *a, spx_buf_t *b, const uint8_t *msg, size_t len, char *err,
                size_t errlen);
    int (*check)(spx_tree_auth_t *a, spx_buf_t *p, const uint8_t *msg, size_t len, char *err,
                 size_t errlen);
} auth_kind_ops_t;

struct spx_tree_auth {
    spx_tree_auth_kind_t kind;
    const auth_kind_ops_t *ops;
    uint8_t *secret; /* SECRET: owned, wiped on destroy */
    size_t secret_len;
    uint32_t uids[SPX_TREE_MAX_AUTH_UIDS]; /* MUNGE */
    size_t nuids;
    char id[SPX_TREE_MAX_AUTH_ID + 1];
};

const char *spx_tree_auth_kind_str(spx_tree_auth_kind_t k)
{
    switch (k) {
    case SPX_TREE_AUTH_KIND_SECRET: return "secret";
    case SPX_TREE_AUTH_KIND_MUNGE: return "munge";
    }
    return "UNKNOWN";
}

/* ---- SECRET ---- */

static int secret_push(spx_tree_auth_t *a, spx_buf_t *b, const uint8_t *msg, size_t len,
                       char *err, size_t errlen)
{
    uint8_t mac[SPX_SHA256_LEN];
    (void)err, (void)errlen;
    spx_hmac_sha256(a->secret, a->secret_len, msg, len, mac);
    spx_buf_push_raw(b, mac, sizeof(mac));
    return 0;
}

static int secret_check(spx_tree_auth_t *a, spx_buf_t *p, const uint8_t *msg, size_t len,
                        char *err, size_t errlen)
{
    uint8_t mac[SPX_SHA256_LEN], want[SPX_SHA256_LEN];
    if (spx_buf_pull_raw(p, mac, sizeof(mac)) != 0) {
        snprintf(err, errlen, "malformed proof");
        return -1;
    }
    spx_hmac_sha256(a->secret, a->secret_len, msg, len, want);
    if (spx_ct_memcmp(mac, want, sizeof(mac)) != 0) {
        snprintf(err, errlen, "peer failed authentication (wrong secret?)");
        return -1;
    }
    return 0;
}

static const auth_kind_ops_t secret_ops = { secret_push, secret_check };

/* ---- MUNGE ---- */

static int munge_push(spx_tree_auth_t *a, spx_buf_t *b, const uint8_t *msg, size_t len,
                      char *err, size_t errlen)
{
    (void)a;
    char *cred = spx_munge_encode(NULL, msg, len, err, errlen);
    if (!cred)
        return -1;
    int rc = 0;
    if (strlen(cred) > SPX_TREE_MAX_PROOF) {
        snprintf(err, errlen, "munge credential longer than %u bytes", SPX_TREE_MAX_PROOF);
        rc = -1;
    } else {
        spx_buf_push_str(b, cred);
    }
    free(cred);
    return rc;
}

static int munge_check(spx_tree_auth_t *a, spx_buf_t *p, const uint8_t *msg, size_t len,
                       char *err, size_t errlen)
{
    char cred[SPX_TREE_MAX_PROOF + 1];
    uid_t uid;
    gid_t gid;
    spx_buf_pull_str_into(p, cred, sizeof(cred));
    if (spx_buf_failed(p)) {
        snprintf(err, errlen, "malformed or oversized munge credential");
        return -1;
    }
    if (spx_munge_check(NULL, cred, msg, len, &uid, &gid, err, errlen) != 0)
        return -1;
    if (!spx_munge_uid_allowed(uid, a->uids, a->nuids)) {
        snprintf(err, errlen, "munge credential of uid %ld, not the job's user, root or "
                              "SlurmUser", (long)uid);
        return -1;
    }
    return 0;
}

static const auth_kind_ops_t munge_ops = { munge_push, munge_check };

/* ---- the interface ---- */

spx_tree_auth_t *spx_tree_auth_create(const spx_tree_auth_cfg_t *cfg, char *err, size_t errlen)
{
    spx_tree_auth_t *a = NULL;
    switch (cfg->kind) {
    case SPX_TREE_AUTH_KIND_SECRET:
        if (!cfg->secret || cfg->secret_len < 16 || cfg->secret_len > 4096) {
            snprintf(err, errlen, "the step secret must be 16..4096 bytes");
            return NULL;
        }
        if (!(a = calloc(1, sizeof(*a))) || !(a->secret = malloc(cfg->secret_len)))
            break;
        memcpy(a->secret, cfg->secret, cfg->secret_len);
        a->secret_len = cfg->secret_len;
        a->ops = &secret_ops;
        a->kind = cfg->kind;
        return a;
    case SPX_TREE_AUTH_KIND_MUNGE:
        if (!spx_munge_supported()) {
            snprintf(err, errlen, "munge authentication asked for, but this library was built "
                                  "without libmunge (libmunge-dev)");
            return NULL;
        }
        if (!cfg->uids || cfg->nuids == 0 || cfg->nuids > SPX_TREE_MAX_AUTH_UIDS || !cfg->id ||
            strlen(cfg->id) > SPX_TREE_MAX_AUTH_ID) {
            snprintf(err, errlen, "munge authentication needs 1..%u allowed uids and a step id "
                                  "of at most %u bytes", SPX_TREE_MAX_AUTH_UIDS,
                     SPX_TREE_MAX_AUTH_ID);
            return NULL;
        }
        /* munged must answer now: a step whose node cannot reach it fails at
         * its start with this reason instead of at its first link */
        char *probe = spx_munge_encode(NULL, "spmix-tree-probe", 16, err, errlen);
        if (!probe)
            return NULL;
        free(probe);
        if (!(a = calloc(1, sizeof(*a))))
            break;
        memcpy(a->uids, cfg->uids, cfg->nuids * sizeof(*cfg->uids));
        a->nuids = cfg->nuids;
        snprintf(a->id, sizeof(a->id), "%s", cfg->id);
        a->ops = &munge_ops;
        a->kind = cfg->kind;
        return a;
    default:
        snprintf(err, errlen, "unknown authentication kind %d", (int)cfg->kind);
        return NULL;
    }
    snprintf(err, errlen, "out of memory");
    spx_tree_auth_destroy(a);
    return NULL;
}

void spx_tree_auth_destroy(spx_tree_auth_t *a)
{
    if (!a)
        return;
    if (a->secret)
        memset(a->secret, 0, a->secret_len);
    free(a->secret);
    free(a);
}

spx_tree_auth_kind_t spx_tree_auth_kind(const spx_tree_auth_t *a)
{
    return a->kind;
}

const char *spx_tree_auth_id(const spx_tree_auth_t *a)
{
    return a->id;
}

int spx_tree_auth_push_proof(spx_tree_auth_t *a, spx_buf_t *b, const uint8_t *msg, size_t len,
                             char *err, size_t errlen)
{
    return a->ops->push(a, b, msg, len, err, errlen);
}

int spx_tree_auth_pull_check(spx_tree_auth_t *a, spx_buf_t *p, const uint8_t *msg, size_t len,
                             char *err, size_t errlen)
{
    return a->ops->check(a, p, msg, len, err, errlen);
}
