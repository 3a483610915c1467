/* munge_cred.c - encoding and checking munge credentials (munge_cred.h):
 * libmunge when configure found it, else stubs that say the build has none.
 */
#include "config.h"
#include "util/munge_cred.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if SPX_HAVE_MUNGE
#include <munge.h>
#endif

int spx_munge_supported(void)
{
    return SPX_HAVE_MUNGE;
}

int spx_munge_uid_allowed(uid_t uid, const uint32_t *allowed, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((uint32_t)uid == allowed[i])
            return 1;
    return 0;
}

#if SPX_HAVE_MUNGE

/* A context on socket, $SPMIX_MUNGE_SOCKET or the default; NULL with err set. */
static munge_ctx_t ctx_new(const char *sock, char *err, size_t errlen)
{
    munge_ctx_t ctx = munge_ctx_create();
    if (!sock || !*sock)
        sock = getenv(SPX_MUNGE_SOCKET_ENV);
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

char *spx_munge_encode(const char *socket, const void *payload, size_t len, char *err,
                       size_t errlen)
{
    char *cred = NULL;
    munge_ctx_t ctx = ctx_new(socket, err, errlen);
    if (!ctx)
        return NULL;
    munge_err_t e = munge_encode(&cred, ctx, payload, (int)len);
    if (e != EMUNGE_SUCCESS) {
        snprintf(err, errlen, "munge_encode: %s",
                 munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(e));
        free(cred);
        cred = NULL;
    }
    munge_ctx_destroy(ctx);
    return cred;
}

int spx_munge_check(const char *socket, const char *cred, const void *want, size_t wlen,
                    uid_t *uid, gid_t *gid, char *err, size_t errlen)
{
    void *got = NULL;
    int len = 0, rc = -1;
    munge_ctx_t ctx = ctx_new(socket, err, errlen);
    if (!ctx)
        return -1;
    munge_err_t e = munge_decode(cred, ctx, &got, &len, uid, gid);
    const char *why = munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(e);
    if (e == EMUNGE_CRED_REPLAYED)
        snprintf(err, errlen, "munge credential replayed (%s)", why);
    else if (e != EMUNGE_SUCCESS)
        snprintf(err, errlen, "munge credential refused: %s", why);
    else if (len < 0 || (size_t)len != wlen || memcmp(got, want, wlen) != 0)
        snprintf(err, errlen, "munge credential made for another exchange (wrong payload)");
    else
        rc = 0;
    free(got);
    munge_ctx_destroy(ctx);
    return rc;
}

#else /* !SPX_HAVE_MUNGE */

char *spx_munge_encode(const char *socket, const void *payload, size_t len, char *err,
                       size_t errlen)
{
    (void)socket, (void)payload, (void)len;
    snprintf(err, errlen, "built without libmunge (libmunge-dev): no munge credentials");
    return NULL;
}

int spx_munge_check(const char *socket, const char *cred, const void *want, size_t wlen,
                    uid_t *uid, gid_t *gid, char *err, size_t errlen)
{
    (void)socket, (void)cred, (void)want, (void)wlen, (void)uid, (void)gid;
    snprintf(err, errlen, "built without libmunge (libmunge-dev): munge credentials "
                          "cannot be checked");
    return -1;
}

#endif
