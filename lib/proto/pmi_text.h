/* pmi_text.h - the PMI-1 and PMI-2 text wire protocols (MPICH's "simple"
 * PMI): finding one message in received bytes, splitting it into key=value
 * pairs, and escaping a PMI-2 value. Pure functions, no I/O, no allocation:
 * the server's PMI engine (lib/server/pmi_wire.c) feeds them what a task
 * wrote on its PMI_FD.
 *
 * PMI-1: one command per line, "cmd=put kvsname=x key=k value=v\n": pairs
 * separated by spaces, a value runs to the next space.
 * PMI-2: a 6-character decimal length (space padded), then that many bytes
 * "cmd=kvs-put;key=k;value=v;": pairs end with ';', a ';' inside a value is
 * written ";;". A PMI-2 client first sends a PMI-1 "cmd=init pmi_version=2"
 * line, then switches to the PMI-2 form.
 *
 * Every length is bounded (SPX_PMI_MAX_*): a longer message, key or value, a
 * pair without '=', an empty or duplicate key, a control byte, or more than
 * SPX_PMI_MAX_PAIRS pairs make the message malformed.
 */
#ifndef SPX_PROTO_PMI_TEXT_H
#define SPX_PROTO_PMI_TEXT_H

#define SPX_PMI_MAX_MSG 4096   /* one PMI-1 line (without '\n') or PMI-2 body */
#define SPX_PMI_MAX_KEY 256
#define SPX_PMI_MAX_VAL 3072
#define SPX_PMI_MAX_PAIRS 32
#define SPX_PMI_V2_HDR 6       /* the PMI-2 length field */

#include <stddef.h>

struct spx_pmi_pair {
    const char *key;           /* NUL-terminated, inside the parsed message */
    const char *val;
};

struct spx_pmi_cmd {
    size_t n;
    struct spx_pmi_pair p[SPX_PMI_MAX_PAIRS];
};

/* A complete PMI-1 line at the start of in[0..len)? Returns the bytes it
 * takes including its '\n' (*blen: without it), 0 when more bytes are
 * needed, -1 when the line is longer than SPX_PMI_MAX_MSG. */
long spx_pmi_frame_v1(const char *in, size_t len, size_t *blen);
/* A complete PMI-2 message at the start of in[0..len)? Returns the bytes it
 * takes (header and body; the body starts at in + SPX_PMI_V2_HDR, *blen
 * bytes), 0 when more bytes are needed, -1 for a header that is not a
 * decimal length in 1..SPX_PMI_MAX_MSG. */
long spx_pmi_frame_v2(const char *in, size_t len, size_t *blen);
/* Does in[0..len) start like a PMI-2 header (digits and spaces only)?
 * 1 yes, 0 no, -1 not enough bytes to tell. */
int spx_pmi_looks_v2(const char *in, size_t len);

/* Split msg[0..len) (changed in place: separators become NUL, PMI-2 ";;"
 * collapse; msg must have room for a NUL at msg[len]) into c. 0, or -1 when
 * malformed (c is then undefined). */
int spx_pmi_parse_v1(char *msg, size_t len, struct spx_pmi_cmd *c);
int spx_pmi_parse_v2(char *msg, size_t len, struct spx_pmi_cmd *c);
/* The value of key in c (borrowed), or NULL. */
const char *spx_pmi_cmd_get(const struct spx_pmi_cmd *c, const char *key);

/* Appends s to out[*pos..cap) with every ';' doubled (PMI-2) and NUL
 * terminates. 0, or -1 when it does not fit (out unchanged after *pos). */
int spx_pmi_append_v2(char *out, size_t cap, size_t *pos, const char *s);
/* Is s usable as a PMI-1 value (no space, '\n', '=' is allowed, no control
 * byte, at most SPX_PMI_MAX_VAL bytes)? */
int spx_pmi_v1_value_ok(const char *s);

#endif
