/* tool_auth_stub.h - what fuzz_tree_auth.c and gen_tree_auth_seeds.c know of
 * the stand-in for the munge credentials (tool_auth_stub.c). */
#ifndef SPX_FUZZ_TOOL_AUTH_STUB_H
#define SPX_FUZZ_TOOL_AUTH_STUB_H

#include <stdint.h>

#define SPX_TREE_NONCE_LEN_STUB 32
#define FZ_STUB_CRED_PREFIX "spmix-fuzz-cred:"
#define FZ_STUB_CRED_LEN (sizeof(FZ_STUB_CRED_PREFIX) - 1 + 2 * SPX_TREE_NONCE_LEN_STUB)
#define FZ_STUB_UID 4242
#define FZ_STUB_GID 4343

/* Decodes accepted so far, and the nonce of the last one. */
extern unsigned long fz_stub_accepted;
extern uint8_t fz_stub_last_nonce[SPX_TREE_NONCE_LEN_STUB];

/* The credential the stub accepts for nonce (NUL-terminated into out). */
void fz_stub_cred(const uint8_t nonce[SPX_TREE_NONCE_LEN_STUB], char out[FZ_STUB_CRED_LEN + 1]);

#endif
