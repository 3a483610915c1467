/* tool_auth.c - the munge credential of a remote tool (see tool_auth.h):
 * the payload that binds it to one connection, encoded and checked through
 * util/munge_cred.c (which says so when the build has no libmunge).
 */
#include "config.h"
#include "tree/tool_auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/munge_cred.h"

int spx_tool_auth_supported(void)
{
    return spx_munge_supported();
}

#define PAYLOAD_LEN (sizeof(SPX_TREE_TOOL_LABEL) - 1 + SPX_TREE_NONCE_LEN)

/* label | nonce: what a credential of this connection carries */
static void payload_of(const uint8_t nonce[SPX_TREE_NONCE_LEN], uint8_t *out)
{
    memcpy(out, SPX_TREE_TOOL_LABEL, sizeof(SPX_TREE_TOOL_LABEL) - 1);
    memcpy(out + sizeof(SPX_TREE_TOOL_LABEL) - 1, nonce, SPX_TREE_NONCE_LEN);
}

char *spx_tool_auth_encode(const uint8_t nonce[SPX_TREE_NONCE_LEN], char *err, size_t errlen)
{
    uint8_t pl[PAYLOAD_LEN];

    payload_of(nonce, pl);
    char *cred = spx_munge_encode(NULL, pl, sizeof(pl), err, errlen);
    if (cred && strlen(cred) > SPX_TREE_TOOL_MAX_CRED) {
        snprintf(err, errlen, "munge credential longer than %u bytes", SPX_TREE_TOOL_MAX_CRED);
        free(cred);
        cred = NULL;
    }
    return cred;
}

int spx_tool_auth_decode(const char *cred, const uint8_t nonce[SPX_TREE_NONCE_LEN], uid_t *uid,
                         gid_t *gid, char *err, size_t errlen)
{
    uint8_t want[PAYLOAD_LEN];

    payload_of(nonce, want);
    return spx_munge_check(NULL, cred, want, sizeof(want), uid, gid, err, errlen);
}
