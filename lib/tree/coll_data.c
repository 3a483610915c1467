/* coll_data.c - where a collective's data lives and how it moves: the
 * gather's pieces (this node's own contribution, then each child's UP in
 * arrival order) kept in the very frames they arrived in, not copied; the
 * result sent on as pieces (io.sendv) or, for an io without it, joined into
 * one block; handed to done_segs as pieces, or to done as one block (the
 * only piece in place, several joined into a copy). Every copy made is
 * counted in cnt.bytes_copied (but this node's own contribution).
 * Ownership: a piece's block (c->owns[i]) is c's once added; segs passed in
 * are borrowed for the call.
 */
#include "config.h"
#include "tree/coll_internal.h"
#include "util/log.h"

#include <pmix.h>

#include <stdlib.h>
#include <string.h>

/* Hands the result to the starter: done_segs gets the pieces as they are;
 * done (one block wanted) gets the only piece in place, or several joined
 * into a copy. segs borrowed for the call. */
void spx_coll_deliver(spx_coll_t *c, pmix_status_t status, const struct iovec *segs, size_t n)
{
    if (c->done_segs) {
        c->done_segs(status, n ? segs : NULL, n, c->arg);
        return;
    }
    if (n <= 1) {
        c->done(status, n ? segs[0].iov_base : NULL, n ? segs[0].iov_len : 0, c->arg);
        return;
    }
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += segs[i].iov_len;
    uint8_t *joined = malloc(len);
    if (!joined) {
        c->done(status == PMIX_SUCCESS ? PMIX_ERR_NOMEM : status, NULL, 0, c->arg);
        return;
    }
    for (size_t i = 0, at = 0; i < n; at += segs[i].iov_len, i++)
        memcpy(joined + at, segs[i].iov_base, segs[i].iov_len);
    c->e->cnt.bytes_copied += len;
    c->done(status, joined, len, c->arg);
    free(joined);
}

/* Sends the payload segs[0..nsegs) (borrowed): as pieces through io.sendv,
 * or, for an io without it, joined into one block for io.send. */
int spx_coll_send(spx_coll_t *c, uint32_t to, uint8_t kind, pmix_status_t status,
                  uint8_t up_flags, const struct iovec *segs, size_t nsegs)
{
    spx_coll_engine_t *e = c->e;
    spx_coll_msg_t m = { .kind = kind, .set_id = c->set_id, .seq = c->seq, .status = status,
                         .flags = c->flags, .up_flags = up_flags };
    long n = -1;
    uint8_t *joined = NULL;
    if (e->io.sendv) {
        n = e->io.sendv(e->arg, to, &m, nsegs ? segs : NULL, nsegs);
    } else if (nsegs <= 1) {
        m.data = nsegs ? segs[0].iov_base : NULL;
        m.len = nsegs ? segs[0].iov_len : 0;
        n = e->io.send(e->arg, to, &m);
    } else {
        for (size_t i = 0; i < nsegs; i++)
            m.len += segs[i].iov_len;
        if ((joined = malloc(m.len))) {
            for (size_t i = 0, at = 0; i < nsegs; at += segs[i].iov_len, i++)
                memcpy(joined + at, segs[i].iov_base, segs[i].iov_len);
            e->cnt.bytes_copied += m.len;
            m.data = joined;
            n = e->io.send(e->arg, to, &m);
            free(joined);
        }
    }
    if (n < 0) {
        /* a node already gone: its loss was reported, or it ended in order
         * (a stand-in's round, which does not hold a node back, can end
         * after that node left): nothing to warn about again */
        if (spx_coll_sorted_has(e->lost, e->nlost, to))
            spx_debug("tree: node %u: collective %s#%u: no %s to node %u, gone", c->e->self,
                      c->set_id, c->seq, spx_coll_kind_str(kind), to);
        else
            spx_warn("tree: node %u: collective %s#%u: cannot send %s to node %u", c->e->self,
                     c->set_id, c->seq, spx_coll_kind_str(kind), to);
        return -1;
    }
    c->msgs_sent++;
    c->bytes_sent += (uint64_t)n;
    return 0;
}

/* Adds one piece to the gather without copying it: own (owned, or NULL)
 * is the block data lies in - a received frame the transport handed over -
 * and is kept with the piece until c is freed. Only data lent without a
 * block (own NULL: this node's contribution at start, or a message from a
 * caller that lends its bytes) is copied, since it must outlive the call;
 * `count` says whether that copy goes to cnt.bytes_copied (received data). */
void spx_coll_gather_add(spx_coll_t *c, void *own, const void *data, size_t len, bool count)
{
    if (len == 0 || c->overflow) {
        free(own);
        return;
    }
    if (len > SPX_COLL_MAX_DATA - c->acc_len) {
        free(own);
        c->overflow = true;
        goto fail;
    }
    if (!own) {
        if (!(own = malloc(len))) {
            c->overflow = true;
            goto fail;
        }
        memcpy(own, data, len);
        data = own;
        if (count)
            c->e->cnt.bytes_copied += len;
    }
    c->segs[c->nsegs] = (struct iovec){ .iov_base = (void *)data, .iov_len = len };
    c->owns[c->nsegs++] = own;
    c->acc_len += len;
    return;
fail:
    spx_warn("tree: node %u: collective %s#%u: gathered data over %u bytes or out of memory",
             c->e->self, c->set_id, c->seq, SPX_COLL_MAX_DATA);
    if (c->status == PMIX_SUCCESS)
        c->status = PMIX_ERR_OUT_OF_RESOURCE;
}
