/* pmi_text.c - framing and parsing of the PMI-1 / PMI-2 text protocols
 * (see pmi_text.h). Input is hostile: every loop is bounded by the given
 * length, nothing is allocated, and a message that breaks a rule is
 * refused as a whole.
 */
#include "config.h"
#include "proto/pmi_text.h"

#include <string.h>

long spx_pmi_frame_v1(const char *in, size_t len, size_t *blen)
{
    size_t lim = len < SPX_PMI_MAX_MSG + 1 ? len : SPX_PMI_MAX_MSG + 1;
    const char *nl = memchr(in, '\n', lim);
    if (!nl)
        return len > SPX_PMI_MAX_MSG ? -1 : 0;
    *blen = (size_t)(nl - in);
    return (long)(*blen + 1);
}

int spx_pmi_looks_v2(const char *in, size_t len)
{
    for (size_t i = 0; i < len && i < SPX_PMI_V2_HDR; i++)
        if (in[i] != ' ' && (in[i] < '0' || in[i] > '9'))
            return 0;
    return len < SPX_PMI_V2_HDR ? -1 : 1;
}

long spx_pmi_frame_v2(const char *in, size_t len, size_t *blen)
{
    if (len < SPX_PMI_V2_HDR)
        return 0;
    size_t n = 0;
    int digits = 0, after = 0;
    for (size_t i = 0; i < SPX_PMI_V2_HDR; i++) {
        char ch = in[i];
        if (ch == ' ') {
            if (digits)
                after = 1;
            continue;
        }
        if (ch < '0' || ch > '9' || after)
            return -1;
        n = n * 10 + (size_t)(ch - '0');
        digits++;
    }
    if (!digits || n == 0 || n > SPX_PMI_MAX_MSG)
        return -1;
    if (len - SPX_PMI_V2_HDR < n)
        return 0;
    *blen = n;
    return (long)(SPX_PMI_V2_HDR + n);
}

/* Checks and records one pair key=val (both NUL-terminated in place). */
static int add_pair(struct spx_pmi_cmd *c, char *pair)
{
    char *eq = strchr(pair, '=');
    if (!eq || eq == pair || c->n >= SPX_PMI_MAX_PAIRS)
        return -1;
    *eq = '\0';
    if (strlen(pair) > SPX_PMI_MAX_KEY || strlen(eq + 1) > SPX_PMI_MAX_VAL)
        return -1;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->p[i].key, pair) == 0)
            return -1;
    c->p[c->n].key = pair;
    c->p[c->n].val = eq + 1;
    c->n++;
    return 0;
}

/* The first pair must be cmd=<name> with a name. */
static int check_cmd(const struct spx_pmi_cmd *c)
{
    return c->n > 0 && strcmp(c->p[0].key, "cmd") == 0 && c->p[0].val[0] ? 0 : -1;
}

static int has_control(const char *msg, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)msg[i] < 0x20 && msg[i] != '\t' && msg[i] != '\r')
            return 1;
    return 0;
}

int spx_pmi_parse_v1(char *msg, size_t len, struct spx_pmi_cmd *c)
{
    c->n = 0;
    if (len > SPX_PMI_MAX_MSG || has_control(msg, len))
        return -1;
    msg[len] = '\0';
    size_t i = 0;
    while (i < len) {
        while (i < len && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\r'))
            msg[i++] = '\0';
        if (i >= len)
            break;
        char *start = msg + i;
        while (i < len && msg[i] != ' ' && msg[i] != '\t' && msg[i] != '\r')
            i++;
        if (i < len)
            msg[i++] = '\0';
        if (add_pair(c, start) != 0)
            return -1;
    }
    return check_cmd(c);
}

int spx_pmi_parse_v2(char *msg, size_t len, struct spx_pmi_cmd *c)
{
    c->n = 0;
    if (len > SPX_PMI_MAX_MSG || has_control(msg, len))
        return -1;
    msg[len] = '\0';
    size_t r = 0, w = 0;
    while (r < len) {
        char *start = msg + w;
        int ended = 0;
        while (r < len) {
            if (msg[r] == ';') {
                if (r + 1 < len && msg[r + 1] == ';') { /* an escaped ';' */
                    msg[w++] = ';';
                    r += 2;
                    continue;
                }
                r++;
                ended = 1;
                break;
            }
            msg[w++] = msg[r++];
        }
        msg[w++] = '\0'; /* w <= r here: the terminator lands on a consumed byte */
        if (!ended && start[0] == '\0')
            break;
        if (add_pair(c, start) != 0)
            return -1;
    }
    return check_cmd(c);
}

const char *spx_pmi_cmd_get(const struct spx_pmi_cmd *c, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->p[i].key, key) == 0)
            return c->p[i].val;
    return NULL;
}

int spx_pmi_append_v2(char *out, size_t cap, size_t *pos, const char *s)
{
    size_t p = *pos;
    for (; *s; s++) {
        size_t need = *s == ';' ? 2 : 1;
        if (p + need + 1 > cap)
            return -1;
        out[p++] = *s;
        if (*s == ';')
            out[p++] = ';';
    }
    if (p + 1 > cap)
        return -1;
    out[p] = '\0';
    *pos = p;
    return 0;
}

int spx_pmi_v1_value_ok(const char *s)
{
    size_t n = 0;
    for (; *s; s++, n++)
        if ((unsigned char)*s <= 0x20 || n >= SPX_PMI_MAX_VAL)
            return 0;
    return 1;
}
