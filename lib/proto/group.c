/* group.c - writes and parses the item stream of a group construct (format
 * in group.h). */
#include "config.h"
#include "proto/group.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec/value.h"
#include "types/types.h"

void spx_grp_push_member(spx_buf_t *b, const char *grp, const pmix_proc_t *member,
                         unsigned flags, const pmix_info_t *info, size_t ninfo,
                         const void *records, size_t nrecords)
{
    spx_buf_push_u8(b, SPX_GRP_ITEM_MEMBER);
    spx_buf_push_str(b, grp);
    spx_codec_push_proc(b, member);
    spx_buf_push_u8(b, (uint8_t)(flags & (SPX_GRP_F_WANT_CID | SPX_GRP_F_NOTIFY_TERM)));
    spx_buf_t ib;
    spx_buf_init(&ib);
    spx_codec_push_info_array(&ib, info, ninfo);
    if (spx_buf_failed(&ib))
        spx_buf_set_error(b, ENOMEM);
    else
        spx_buf_push_bytes(b, ib.data, ib.len);
    spx_buf_fini(&ib);
    spx_buf_push_bytes(b, records, nrecords);
}

void spx_grp_push_asked(spx_buf_t *b, const char *grp, unsigned flags)
{
    spx_buf_push_u8(b, SPX_GRP_ITEM_ASKED);
    spx_buf_push_str(b, grp);
    spx_buf_push_u8(b, (uint8_t)flags);
}

void spx_grp_push_cid(spx_buf_t *b, const char *grp, uint64_t cid)
{
    spx_buf_push_u8(b, SPX_GRP_ITEM_CID);
    spx_buf_push_str(b, grp);
    spx_buf_push_u64(b, cid);
}

static int proc_cmp(const void *a, const void *b)
{
    const pmix_proc_t *x = a, *y = b;
    int c = strncmp(x->nspace, y->nspace, PMIX_MAX_NSLEN);
    if (c)
        return c;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int member_cmp(const void *a, const void *b)
{
    return proc_cmp(&((const spx_grp_member_t *)a)->proc, &((const spx_grp_member_t *)b)->proc);
}

/* Reads the group name of an item into o->grp (first item) or checks it. */
static int read_group_name(spx_buf_t *b, spx_grp_outcome_t *o)
{
    char g[PMIX_MAX_NSLEN + 1];
    spx_buf_pull_str_into(b, g, sizeof(g));
    if (spx_buf_failed(b) || !g[0])
        return -1;
    if (!o->grp[0]) {
        memcpy(o->grp, g, strlen(g) + 1);
        return 0;
    }
    return strcmp(o->grp, g) == 0 ? 0 : -1;
}

/* A MEMBER item's body into a new member of o. */
static int read_member(spx_buf_t *b, spx_grp_outcome_t *o, size_t *cap)
{
    if (o->n == SPX_GRP_MAX_MEMBERS)
        return -1;
    if (o->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 8;
        spx_grp_member_t *m = realloc(o->m, nc * sizeof(*m));
        if (!m)
            return -1;
        o->m = m;
        *cap = nc;
    }
    spx_grp_member_t *m = &o->m[o->n];
    memset(m, 0, sizeof(*m));
    if (spx_codec_pull_proc(b, &m->proc) != 0)
        return -1;
    uint8_t flags = spx_buf_pull_u8(b);
    uint32_t ni = spx_buf_pull_u32(b);
    if (spx_buf_failed(b) || ni > spx_buf_remaining(b))
        return -1;
    m->info_bytes = b->data + b->pos;
    m->ninfo_bytes = ni;
    b->pos += ni;
    o->n++;
    uint32_t n = spx_buf_pull_u32(b);
    if (spx_buf_failed(b) || n > spx_buf_remaining(b) ||
        (flags & ~(SPX_GRP_F_WANT_CID | SPX_GRP_F_NOTIFY_TERM)))
        return -1;
    m->records = b->data + b->pos;
    m->nrecords = n;
    b->pos += n;
    o->want_cid |= (flags & SPX_GRP_F_WANT_CID) != 0;
    o->notify_term |= (flags & SPX_GRP_F_NOTIFY_TERM) != 0;
    return 0;
}

int spx_grp_outcome_parse(const void *data, size_t len, spx_grp_outcome_t *out)
{
    memset(out, 0, sizeof(*out));
    spx_buf_t b;
    spx_buf_init_borrowed(&b, data, len);
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && spx_buf_remaining(&b) > 0) {
        uint8_t kind = spx_buf_pull_u8(&b);
        if (read_group_name(&b, out) != 0)
            rc = -1;
        else if (kind == SPX_GRP_ITEM_MEMBER)
            rc = read_member(&b, out, &cap);
        else if (kind == SPX_GRP_ITEM_CID && !out->have_cid) {
            out->cid = spx_buf_pull_u64(&b);
            out->have_cid = true;
        } else if (kind == SPX_GRP_ITEM_ASKED) {
            uint8_t flags = spx_buf_pull_u8(&b);
            out->want_cid |= (flags & SPX_GRP_F_WANT_CID) != 0;
            out->notify_term |= (flags & SPX_GRP_F_NOTIFY_TERM) != 0;
        } else
            rc = -1;
        if (spx_buf_failed(&b))
            rc = -1;
    }
    spx_buf_fini(&b);
    if (rc == 0 && out->n == 0)
        rc = -1;
    if (rc == 0) {
        qsort(out->m, out->n, sizeof(*out->m), member_cmp);
        for (size_t i = 1; i < out->n && rc == 0; i++)
            if (proc_cmp(&out->m[i - 1].proc, &out->m[i].proc) == 0)
                rc = -1;
    }
    if (rc != 0)
        spx_grp_outcome_fini(out);
    return rc;
}

int spx_grp_member_info(spx_grp_member_t *m)
{
    if (m->info_decoded)
        return m->info || m->ninfo == 0 ? 0 : -1;
    m->info_decoded = true;
    m->info = NULL;
    m->ninfo = 0;
    if (m->ninfo_bytes == 0)
        return -1; /* an info array is never empty bytes */
    spx_buf_t b;
    spx_buf_init_borrowed(&b, m->info_bytes, m->ninfo_bytes);
    int rc = spx_codec_pull_info_array(&b, &m->info, &m->ninfo) == 0 && spx_buf_finish(&b) == 0
                 ? 0
                 : -1;
    if (rc != 0) {
        spx_info_array_free(m->info, m->ninfo);
        m->info = NULL;
        m->ninfo = 0;
    }
    spx_buf_fini(&b);
    m->info_bytes = NULL;
    m->ninfo_bytes = 0;
    return rc;
}

void spx_grp_outcome_fini(spx_grp_outcome_t *o)
{
    for (size_t i = 0; i < o->n; i++)
        spx_info_array_free(o->m[i].info, o->m[i].ninfo);
    free(o->m);
    memset(o, 0, sizeof(*o));
}

long spx_grp_outcome_find(const spx_grp_outcome_t *o, const pmix_proc_t *proc)
{
    spx_grp_member_t key;
    memset(&key, 0, sizeof(key));
    key.proc = *proc;
    const spx_grp_member_t *m = bsearch(&key, o->m, o->n, sizeof(*o->m), member_cmp);
    return m ? (long)(m - o->m) : -1;
}
