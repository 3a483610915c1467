/* group_shm.c - the request slots and the outcome area of the shared-memory
 * construct (format and protocol in group_shm.h). */
#include "config.h"
#include "proto/group_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/value.h"
#include "types/types.h"
#include "util/log.h"

#define REQ_VERSION 1u

bool spx_gshm_covers(const char *nspace, uint32_t jobsize, const pmix_proc_t *procs, size_t n,
                     bool *wildcard)
{
    *wildcard = n == 1 && procs[0].rank == PMIX_RANK_WILDCARD &&
                strncmp(procs[0].nspace, nspace, PMIX_MAX_NSLEN) == 0;
    if (*wildcard)
        return true;
    if (jobsize == 0 || n < jobsize)
        return false;
    uint8_t *seen = calloc(jobsize, 1);
    if (!seen)
        return false;
    uint32_t distinct = 0;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        ok = procs[i].rank < jobsize && strncmp(procs[i].nspace, nspace, PMIX_MAX_NSLEN) == 0;
        if (ok && !seen[procs[i].rank]) {
            seen[procs[i].rank] = 1;
            distinct++;
        }
    }
    free(seen);
    return ok && distinct == jobsize;
}

bool spx_gshm_directives_ok(const pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++)
        if (!PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ASSIGN_CONTEXT_ID) &&
            !PMIX_CHECK_KEY(&info[i], PMIX_GROUP_INFO) &&
            !PMIX_CHECK_KEY(&info[i], PMIX_GROUP_NOTIFY_TERMINATION))
            return false;
    return true;
}

bool spx_gshm_req_encode(uint8_t slot[SPX_GSHM_SLOT_BYTES], const char *id, bool wildcard,
                         const pmix_info_t *info, size_t ninfo)
{
    spx_buf_t b;
    spx_buf_init(&b);
    spx_buf_push_u8(&b, REQ_VERSION);
    spx_buf_push_u8(&b, wildcard ? 1 : 0);
    spx_buf_push_str(&b, id);
    spx_codec_push_info_array(&b, info, ninfo);
    bool fits = !spx_buf_failed(&b) && b.len <= SPX_GSHM_SLOT_BYTES - 4;
    if (fits) {
        uint32_t n = (uint32_t)b.len;
        memcpy(slot, &n, 4);
        memcpy(slot + 4, b.data, b.len);
    }
    spx_buf_fini(&b);
    return fits;
}

int spx_gshm_req_decode(const uint8_t slot[SPX_GSHM_SLOT_BYTES], spx_gshm_req_t *out)
{
    memset(out, 0, sizeof(*out));
    uint32_t n;
    memcpy(&n, slot, 4);
    if (n > SPX_GSHM_SLOT_BYTES - 4)
        return -1;
    spx_buf_t b;
    spx_buf_init_borrowed(&b, slot + 4, n);
    uint8_t version = spx_buf_pull_u8(&b);
    uint8_t wildcard = spx_buf_pull_u8(&b);
    spx_buf_pull_str_into(&b, out->id, sizeof(out->id));
    int rc = -1;
    if (!spx_buf_failed(&b) && version == REQ_VERSION && wildcard <= 1 && out->id[0] &&
        spx_codec_pull_info_array(&b, &out->info, &out->ninfo) == 0) {
        if (spx_buf_finish(&b) == 0)
            rc = 0;
        else
            spx_gshm_req_fini(out);
    }
    out->wildcard = wildcard == 1;
    spx_buf_fini(&b);
    return rc;
}

void spx_gshm_req_fini(spx_gshm_req_t *r)
{
    spx_info_array_free(r->info, r->ninfo);
    r->info = NULL;
    r->ninfo = 0;
}

int spx_gshm_data_create(const char *path, uint32_t nlocal, uid_t uid, gid_t gid)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        spx_warn("shared-memory construct: cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    off_t len = (off_t)(SPX_GSHM_OUTCOME_OFFSET(nlocal) + SPX_GSHM_OUTCOME_HDR);
    if (ftruncate(fd, len) != 0 || (geteuid() == 0 && fchown(fd, uid, gid) != 0)) {
        spx_warn("shared-memory construct: cannot size or hand over %s: %s", path,
                 strerror(errno));
        close(fd);
        unlink(path);
        return -1;
    }
    return fd;
}

static int pwrite_all(int fd, const void *p, size_t n, off_t off)
{
    const uint8_t *c = p;
    while (n > 0) {
        ssize_t w = pwrite(fd, c, n, off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
        off += w;
    }
    return 0;
}

static int pread_all(int fd, void *p, size_t n, off_t off)
{
    uint8_t *c = p;
    while (n > 0) {
        ssize_t r = pread(fd, c, n, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
        off += r;
    }
    return 0;
}

int spx_gshm_outcome_write(int fd, uint32_t nlocal, uint32_t gen, const void *bytes, size_t n)
{
    if (n > SPX_GSHM_MAX_OUTCOME)
        return -1;
    uint8_t hdr[SPX_GSHM_OUTCOME_HDR] = {0};
    uint64_t len = n;
    memcpy(hdr, &gen, 4);
    memcpy(hdr + 8, &len, 8);
    off_t off = (off_t)SPX_GSHM_OUTCOME_OFFSET(nlocal);
    if (pwrite_all(fd, bytes, n, off + SPX_GSHM_OUTCOME_HDR) != 0 ||
        pwrite_all(fd, hdr, sizeof(hdr), off) != 0)
        return -1;
    return 0;
}

int spx_gshm_outcome_read(int fd, uint32_t nlocal, uint32_t gen, uint8_t **bytes, size_t *n)
{
    *bytes = NULL;
    *n = 0;
    /* one read for the header and a typical outcome; a second for the rest */
    enum { FIRST = 16384 };
    uint8_t *buf = malloc(FIRST);
    if (!buf)
        return -1;
    off_t off = (off_t)SPX_GSHM_OUTCOME_OFFSET(nlocal);
    ssize_t got;
    do
        got = pread(fd, buf, FIRST, off);
    while (got < 0 && errno == EINTR);
    uint32_t g;
    uint64_t len;
    if (got < (ssize_t)SPX_GSHM_OUTCOME_HDR) {
        free(buf);
        return -1;
    }
    memcpy(&g, buf, 4);
    memcpy(&len, buf + 8, 8);
    if (g != gen || len > SPX_GSHM_MAX_OUTCOME) {
        free(buf);
        return -1;
    }
    size_t have = (size_t)got - SPX_GSHM_OUTCOME_HDR;
    uint8_t *out = malloc(len ? (size_t)len : 1);
    if (!out) {
        free(buf);
        return -1;
    }
    size_t first = have < len ? have : (size_t)len;
    memcpy(out, buf + SPX_GSHM_OUTCOME_HDR, first);
    free(buf);
    if (first < len &&
        pread_all(fd, out + first, (size_t)len - first,
                  off + (off_t)SPX_GSHM_OUTCOME_HDR + (off_t)first) != 0) {
        free(out);
        return -1;
    }
    *bytes = out;
    *n = (size_t)len;
    return 0;
}
