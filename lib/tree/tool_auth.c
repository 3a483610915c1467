/* tool_auth.c - encoding and checking the munge credential of a remote tool
 * (see tool_auth.h): libmunge when configure found it, else stubs that say
 * the library was built without it.
 */
#include "config.h"
#include "tree/tool_auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if SPX_HAVE_MUNGE
#include <munge.h>
#endif

int spx_tool_auth_supported(void)
{
    return SPX_HAVE_MUNGE;
}

#if SPX_HAVE_MUNGE

/* A context on $SPMIX_MUNGE_SOCKET (or the default socket); NULL with err set. */
static munge_ctx_t ctx_new(char *err, size_t errlen)
{
    munge_ctx_t ctx = munge_ctx_create();
    const char *sock = getenv(SPX_MUNGE_SOCKET_ENV);
    if (!ctx) {
        snprintf(err, errlen, "out of memory for a munge context");
        return NULL;
    }
    if (sock && *sock && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, sock) != EMUNGE_SUCCESS) {
        snprintf(err, errlen, "munge socket %s: %s", sock, munge_ctx_strerror(ctx));
        munge_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

/* label | nonce: what a credential of this connection carries */
static void payload_of(const uint8_t nonce[SPX_TREE_NONCE_LEN], uint8_t *out)
{
    memcpy(out, SPX_TREE_TOOL_LABEL, sizeof(SPX_TREE_TOOL_LABEL) - 1);
    memcpy(out + sizeof(SPX_TREE_TOOL_LABEL) - 1, nonce, SPX_TREE_NONCE_LEN);
}

#define PAYLOAD_LEN (sizeof(SPX_TREE_TOOL_LABEL) - 1 + SPX_TREE_NONCE_LEN)

char *spx_tool_auth_encode(const uint8_t nonce[SPX_TREE_NONCE_LEN], char *err, size_t errlen)
{
    uint8_t pl[PAYLOAD_LEN];
    char *cred = NULL;
    munge_ctx_t ctx = ctx_new(err, errlen);
    if (!ctx)
        return NULL;
    payload_of(nonce, pl);
    munge_err_t e = munge_encode(&cred, ctx, pl, (int)sizeof(pl));
    if (e != EMUNGE_SUCCESS) {
        snprintf(err, errlen, "munge_encode: %s", munge_ctx_strerror(ctx));
        free(cred);
        cred = NULL;
    } else if (cred && strlen(cred) > SPX_TREE_TOOL_MAX_CRED) {
        snprintf(err, errlen, "munge credential longer than %u bytes", SPX_TREE_TOOL_MAX_CRED);
        free(cred);
        cred = NULL;
    }
    munge_ctx_destroy(ctx);
    return cred;
}

int spx_tool_auth_decode(const char *cred, const uint8_t nonce[SPX_TREE_NONCE_LEN], uid_t *uid,
                         gid_t *gid, char *err, size_t errlen)
{
    uint8_t want[PAYLOAD_LEN];
    void *got = NULL;
    int len = 0, rc = -1;
    munge_ctx_t ctx = ctx_new(err, errlen);
    if (!ctx)
        return -1;
    payload_of(nonce, want);
    munge_err_t e = munge_decode(cred, ctx, &got, &len, uid, gid);
    if (e != EMUNGE_SUCCESS)
        snprintf(err, errlen, "munge credential refused: %s", munge_ctx_strerror(ctx));
    else if (len != (int)sizeof(want) || memcmp(got, want, sizeof(want)) != 0)
        snprintf(err, errlen, "munge credential made for another connection (wrong nonce)");
    else
        rc = 0;
    free(got);
    munge_ctx_destroy(ctx);
    return rc;
}

#else /* !SPX_HAVE_MUNGE */

char *spx_tool_auth_encode(const uint8_t nonce[SPX_TREE_NONCE_LEN], char *err, size_t errlen)
{
    (void)nonce;
    snprintf(err, errlen, "this spmix was built without libmunge (libmunge-dev): "
                          "no munge credentials for remote tools");
    return NULL;
}

int spx_tool_auth_decode(const char *cred, const uint8_t nonce[SPX_TREE_NONCE_LEN], uid_t *uid,
                         gid_t *gid, char *err, size_t errlen)
{
    (void)cred, (void)nonce, (void)uid, (void)gid;
    snprintf(err, errlen, "this server was built without libmunge (libmunge-dev): "
                          "remote tools are not accepted");
    return -1;
}

#endif
