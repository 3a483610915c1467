/* tool_auth_stub.c - a stand-in for lib/tree/tool_auth.c (munge credentials of
 * remote tools) for fuzz_tree_auth, so that the accepted path of a tool's
 * handshake runs without munged.
 *
 * The seam is the linker alone: this file defines every function of
 * tool_auth.c, and an object given before the core library's archive
 * (libspx_fuzz.a, or libspx_core.la for the replay test) keeps the archive's
 * tool_auth.o out of the program. The library itself is not changed; a
 * program that links tool_auth.o as well fails to link (two definitions).
 *
 * The stub's credential for a nonce is "spmix-fuzz-cred:" followed by the
 * nonce in lower-case hex (64 characters); decode accepts exactly that
 * string for the nonce it is given, as uid FZ_STUB_UID / gid FZ_STUB_GID, and
 * counts what it accepted (fz_stub_accepted, fz_stub_last_nonce) so the
 * harness can check every tool handed over against it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tool_auth.h"
#include "tool_auth_stub.h"

unsigned long fz_stub_accepted;
uint8_t fz_stub_last_nonce[SPX_TREE_NONCE_LEN];

void fz_stub_cred(const uint8_t nonce[SPX_TREE_NONCE_LEN], char out[FZ_STUB_CRED_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    memcpy(out, FZ_STUB_CRED_PREFIX, sizeof(FZ_STUB_CRED_PREFIX) - 1);
    char *p = out + sizeof(FZ_STUB_CRED_PREFIX) - 1;
    for (size_t i = 0; i < SPX_TREE_NONCE_LEN; i++) {
        *p++ = hex[nonce[i] >> 4];
        *p++ = hex[nonce[i] & 15];
    }
    *p = '\0';
}

int spx_tool_auth_supported(void)
{
    return 1;
}

char *spx_tool_auth_encode(const uint8_t nonce[SPX_TREE_NONCE_LEN], char *err, size_t errlen)
{
    char *cred = malloc(FZ_STUB_CRED_LEN + 1);
    if (!cred) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    fz_stub_cred(nonce, cred);
    return cred;
}

int spx_tool_auth_decode(const char *cred, const uint8_t nonce[SPX_TREE_NONCE_LEN], uid_t *uid,
                         gid_t *gid, char *err, size_t errlen)
{
    char want[FZ_STUB_CRED_LEN + 1];
    fz_stub_cred(nonce, want);
    if (!cred || strcmp(cred, want) != 0) {
        snprintf(err, errlen, "not the stub's credential for this nonce");
        return -1;
    }
    *uid = FZ_STUB_UID;
    *gid = FZ_STUB_GID;
    fz_stub_accepted++;
    memcpy(fz_stub_last_nonce, nonce, SPX_TREE_NONCE_LEN);
    return 0;
}
