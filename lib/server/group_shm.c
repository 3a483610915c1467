/* group_shm.c - the server's side of the shared-memory construct
 * (proto/group_shm.h): one barrier segment and one data file per namespace
 * that has a shared-memory fence (every local process known), made when the
 * namespace is registered.
 *
 * A closed gather (GROUP_LOCAL frame from its last arrival) becomes one
 * arrival per local member in the group engine, exactly as if each had sent
 * GROUP (group_coll.c, spx_srv_grp_arrive), once every COMMIT the members counted
 * has been applied (their endpoint data goes into the outcome). The engine's
 * answers come back here (spx_srv_gshm_answer): the outcome is written once
 * and the generation released with the status.
 *
 * The socket path stays the reference: a generation is released with
 * SPX_GSHM_RETRY, and its members send their construct over the socket,
 * when the members' requests disagree or cannot be read, when one asks for
 * something only the socket path does, and while a local member's
 * whole-namespace construct came through the socket (else that member and
 * the gather would wait for each other); after a local process went away or
 * the namespace ended, every construct takes the socket path.
 * Everything here runs on the server's progress thread.
 */
#include "config.h"
#include "server/core.h"
#include "server/engine_fence.h"
#include "server/engine_group.h"
#include "server/group_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/value.h"
#include "proto/group_shm.h"
#include "proto/shm_barrier.h"
#include "types/types.h"
#include "util/log.h"

struct spx_srv_gshm {
    LIST_ENTRY(spx_srv_gshm) link; /* in spx_srv_grp.shms */
    struct spx_srv_grp *g;         /* borrowed: the engine it belongs to */
    char nspace[PMIX_MAX_NSLEN + 1];
    spx_shmb_t *seg;               /* owned (its file removed with it) */
    int fd;                        /* the data file */
    char *dpath;                   /* the data file's path (owned) */
    pmix_rank_t *ranks;            /* local ranks ascending: slot i (owned) */
    uint32_t nlocal;
    uint32_t jobsize;
    bool gone;                     /* a local process went away / ended: socket only */
    unsigned socket_pending;       /* whole-namespace constructs through the socket */
    bool in_engine;                /* engine_gen is with the group engine */
    uint32_t engine_gen;
    bool parked;                   /* parked_gen waits for commits */
    uint32_t parked_gen;
};

struct spx_srv_gshm_batch {
    struct spx_srv_ctx *ctx;       /* borrowed */
    char nspace[PMIX_MAX_NSLEN + 1];
    uint32_t gen;
    size_t remaining;
    pmix_status_t status;
    bool outcome_written;
};

static bool enabled(void)
{
    const char *e = getenv(SPX_GSHM_ENV);
    return !e || strcmp(e, "0") != 0;
}

static struct spx_srv_gshm *find(struct spx_srv_grp *g, const char *nspace)
{
    struct spx_srv_gshm *s;
    if (!g)
        return NULL;
    LIST_FOREACH(s, &g->shms, link)
        if (strncmp(s->nspace, nspace, PMIX_MAX_NSLEN) == 0)
            return s;
    return NULL;
}

static void gshm_free(struct spx_srv_gshm *s)
{
    LIST_REMOVE(s, link);
    if (s->seg)
        spx_shmb_break(s->seg, PMIX_ERR_NOT_AVAILABLE);
    spx_shmb_close(s->seg);
    if (s->fd >= 0)
        close(s->fd);
    if (s->dpath) {
        unlink(s->dpath);
        free(s->dpath);
    }
    free(s->ranks);
    free(s);
}

static int rank_cmp(const void *a, const void *b)
{
    pmix_rank_t x = *(const pmix_rank_t *)a, y = *(const pmix_rank_t *)b;
    return x < y ? -1 : x > y;
}

pmix_status_t spx_srv_gshm_setup(struct spx_srv_ctx *ctx, struct spx_srv_ns *ns)
{
    static unsigned serial;
    struct spx_srv_grp *g = ctx->grp;
    struct spx_srv_gshm *old = find(g, ns->name);
    if (old) /* a re-registration: its clients read the new job info */
        gshm_free(old);
    uint32_t jobsize = 0;
    const pmix_value_t *js =
        spx_store_peek(ns->info, ns->name, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL);
    /* the host's group upcall runs constructs itself: no shortcut around it */
    if (!g || !enabled() || !ns->shmf || !ctx->dir || (!ctx->mn && ctx->host.group) || !js ||
        spx_value_to_u32(js, &jobsize) != PMIX_SUCCESS || jobsize == 0)
        return PMIX_SUCCESS;
    struct spx_srv_gshm *s = calloc(1, sizeof(*s));
    char path[4096];
    snprintf(path, sizeof(path), "%s/g%u", ctx->dir, serial++);
    if (!s || !(s->ranks = malloc(ns->nlocal * sizeof(*s->ranks))) ||
        !(s->dpath = malloc(strlen(path) + sizeof(SPX_GSHM_DATA_SUFFIX)))) {
        if (s)
            free(s->ranks);
        free(s);
        return PMIX_ERR_NOMEM;
    }
    s->g = g;
    snprintf(s->nspace, sizeof(s->nspace), "%s", ns->name);
    memcpy(s->ranks, ns->local, ns->nlocal * sizeof(*s->ranks));
    qsort(s->ranks, ns->nlocal, sizeof(*s->ranks), rank_cmp);
    s->nlocal = (uint32_t)ns->nlocal;
    s->jobsize = jobsize;
    sprintf(s->dpath, "%s%s", path, SPX_GSHM_DATA_SUFFIX);
    s->fd = spx_gshm_data_create(s->dpath, s->nlocal, ctx->uid, ctx->gid);
    s->seg = s->fd < 0 ? NULL : spx_shmb_create(path, s->nlocal, false, ctx->uid, ctx->gid);
    LIST_INSERT_HEAD(&g->shms, s, link);
    if (!s->seg) { /* the socket path still works */
        if (s->fd < 0) {
            free(s->dpath);
            s->dpath = NULL;
        }
        gshm_free(s);
        return PMIX_SUCCESS;
    }
    pmix_value_t v = {.type = PMIX_STRING};
    v.data.string = path;
    pmix_status_t rc = spx_store_put(ns->info, ns->name, PMIX_RANK_WILDCARD, SPX_GSHM_KEY, &v,
                                     PMIX_GLOBAL);
    if (rc != PMIX_SUCCESS) {
        gshm_free(s);
        return rc;
    }
    spx_debug("namespace %s: shared-memory construct %s for %u local processes", ns->name, path,
              s->nlocal);
    return PMIX_SUCCESS;
}

void spx_srv_gshm_free_all(struct spx_srv_grp *g)
{
    while (!LIST_EMPTY(&g->shms))
        gshm_free(LIST_FIRST(&g->shms));
}

void spx_srv_gshm_nspace_gone(struct spx_srv_grp *g, const char *nspace)
{
    struct spx_srv_gshm *s = find(g, nspace);
    if (s)
        gshm_free(s);
}

/* Members must take the socket: an open or closed gather not yet with the
 * engine is released with SPX_GSHM_RETRY; one with the engine ends as the
 * engine decides, and later arrivals fail with SPX_GSHM_RETRY. */
static void to_socket(struct spx_srv_gshm *s)
{
    if (s->in_engine) {
        spx_shmb_poison(s->seg, SPX_GSHM_RETRY);
        return;
    }
    s->parked = false;
    spx_shmb_break(s->seg, SPX_GSHM_RETRY);
}

/* A member elsewhere is lost: a gather not yet with the engine may wait for
 * a late local member a long time, while through the socket the engine
 * fails the construct at once; its members go there (the segment works
 * again once their constructs are answered, spx_srv_gshm_socket_done). */
static void gathering_to_socket(struct spx_srv_gshm *s)
{
    if (s->gone || s->in_engine || s->parked || !spx_shmb_gathering(s->seg))
        return;
    spx_debug("namespace %s: a member elsewhere is lost; the gathering construct goes "
              "through the socket", s->nspace);
    spx_shmb_break(s->seg, SPX_GSHM_RETRY);
}

void spx_srv_gshm_node_lost(struct spx_srv_grp *g)
{
    struct spx_srv_gshm *s;
    LIST_FOREACH(s, &g->shms, link)
        gathering_to_socket(s);
}

void spx_srv_gshm_proc_gone(struct spx_srv_grp *g, const pmix_proc_t *proc)
{
    struct spx_srv_gshm *s = find(g, proc->nspace);
    if (!s || s->gone)
        return;
    if (!spx_srv_proc_is_local(g->ctx, proc->nspace, proc->rank)) {
        gathering_to_socket(s);
        return;
    }
    spx_debug("namespace %s: shared-memory construct closed (%s:%u went away)", s->nspace,
              proc->nspace, (unsigned)proc->rank);
    s->gone = true;
    to_socket(s);
}

bool spx_srv_gshm_socket_start(struct spx_srv_grp *g, const pmix_proc_t *proc,
                               const pmix_proc_t *set, size_t nset)
{
    struct spx_srv_gshm *s = find(g, proc->nspace);
    bool wildcard;
    if (!s || !spx_gshm_covers(s->nspace, s->jobsize, set, nset, &wildcard))
        return false;
    if (s->socket_pending++ == 0 && !s->gone)
        spx_debug("namespace %s: %s:%u constructs through the socket; the shared-memory "
                  "construct waits", s->nspace, proc->nspace, (unsigned)proc->rank);
    to_socket(s);
    return true;
}

void spx_srv_gshm_socket_done(struct spx_srv_grp *g, const char *nspace, unsigned n)
{
    struct spx_srv_gshm *s = find(g, nspace);
    if (!s || s->socket_pending == 0)
        return;
    s->socket_pending -= n < s->socket_pending ? n : s->socket_pending;
    if (s->socket_pending > 0 || s->gone)
        return;
    /* an arrival made while it was broken failed, or released itself
     * (spx_shmb_arrive): whoever is in it now came in order */
    if (spx_shmb_broken(s->seg) == SPX_GSHM_RETRY) {
        spx_debug("namespace %s: the shared-memory construct works again", s->nspace);
        spx_shmb_unbreak(s->seg);
    }
}

static void release(struct spx_srv_gshm *s, uint32_t gen, pmix_status_t status)
{
    if (s->in_engine && s->engine_gen == gen)
        s->in_engine = false;
    spx_shmb_release(s->seg, gen, status);
}

/* Every local member is in generation gen. */
static void gathered(struct spx_srv_gshm *s, uint32_t gen)
{
    struct spx_srv_grp *g = s->g;
    struct spx_srv_ns *ns = spx_srv_ns_find(g->ctx, s->nspace);
    if (!ns || !ns->shmf) {
        release(s, gen, SPX_GSHM_RETRY);
        return;
    }
    if (spx_srv_shmf_commits_pending(ns)) {
        s->parked = true;
        s->parked_gen = gen;
        return;
    }
    s->parked = false;
    size_t nbytes = (size_t)s->nlocal * SPX_GSHM_SLOT_BYTES;
    uint8_t *slots = malloc(nbytes);
    spx_gshm_req_t *reqs = calloc(s->nlocal, sizeof(*reqs));
    ssize_t got = slots && reqs ? pread(s->fd, slots, nbytes, 0) : -1;
    uint32_t nread = 0;
    const char *why = got != (ssize_t)nbytes ? "the requests cannot be read" : NULL;
    bool fault = why != NULL; /* warned about; else an ordinary reason (debug line) */
    for (; !why && nread < s->nlocal; nread++) {
        spx_gshm_req_t *r = &reqs[nread];
        if (spx_gshm_req_decode(slots + (size_t)nread * SPX_GSHM_SLOT_BYTES, r) != 0) {
            why = "a malformed request";
            fault = true;
        } else if (strcmp(r->id, reqs[0].id) != 0 || r->wildcard != reqs[0].wildcard)
            why = "the members name different groups";
        else if (!spx_gshm_directives_ok(r->info, r->ninfo))
            why = "a directive only the socket path honours";
        else if (spx_srv_grp_arrive_check(g, s->nspace, s->ranks[nread], r->id) !=
                 PMIX_SUCCESS)
            why = "the socket path answers it (an error)";
    } /* reqs[0..nread) are decoded, or zeroed by a failed decode: freed below */
    struct spx_srv_gshm_batch *batch = why ? NULL : calloc(1, sizeof(*batch));
    pmix_proc_t *set = NULL;
    size_t nset = reqs && reqs[0].wildcard ? 1 : s->jobsize;
    if (!why && (!batch || !(set = malloc(nset * sizeof(*set))))) {
        why = "no memory";
        fault = true;
    }
    if (why) {
        if (!fault)
            spx_debug("namespace %s: shared-memory construct %u goes through the socket: %s",
                      s->nspace, (unsigned)gen, why);
        else
            spx_warn("namespace %s: shared-memory construct %u goes through the socket: %s",
                     s->nspace, (unsigned)gen, why);
        release(s, gen, SPX_GSHM_RETRY);
    } else {
        if (reqs[0].wildcard)
            spx_proc_load(&set[0], s->nspace, PMIX_RANK_WILDCARD);
        else
            for (uint32_t r = 0; r < s->jobsize; r++)
                spx_proc_load(&set[r], s->nspace, r);
        spx_debug("namespace %s: construct of %s through shared memory (generation %u, %u "
                  "local members)", s->nspace, reqs[0].id, (unsigned)gen, (unsigned)s->nlocal);
        batch->ctx = g->ctx;
        snprintf(batch->nspace, sizeof(batch->nspace), "%s", s->nspace);
        batch->gen = gen;
        batch->remaining = s->nlocal;
        s->in_engine = true;
        s->engine_gen = gen;
        /* the engine may answer (and free s) before the loop ends: copy what it needs */
        uint32_t nlocal = s->nlocal;
        pmix_rank_t *ranks = malloc(nlocal * sizeof(*ranks));
        if (!ranks) {
            free(batch);
            release(s, gen, SPX_GSHM_RETRY);
        } else {
            memcpy(ranks, s->ranks, nlocal * sizeof(*ranks));
            char name[PMIX_MAX_NSLEN + 1];
            snprintf(name, sizeof(name), "%s", s->nspace);
            for (uint32_t i = 0; i < nlocal; i++) {
                pmix_proc_t proc;
                spx_proc_load(&proc, name, ranks[i]);
                pmix_status_t rc = spx_srv_grp_arrive(g, &proc, NULL, 0, batch, reqs[i].id, set,
                                                      nset, reqs[i].info, reqs[i].ninfo);
                if (rc != PMIX_SUCCESS)
                    spx_srv_gshm_answer(g, batch, rc, NULL, 0);
            }
            free(ranks);
        }
    }
    for (uint32_t i = 0; i < nread; i++)
        spx_gshm_req_fini(&reqs[i]);
    free(reqs);
    free(slots);
    free(set);
}

void spx_srv_gshm_answer(struct spx_srv_grp *g, struct spx_srv_gshm_batch *batch,
                         pmix_status_t status, const void *outcome, size_t noutcome)
{
    struct spx_srv_gshm *s = find(g, batch->nspace);
    if (status == PMIX_SUCCESS && !batch->outcome_written && s) {
        if (spx_gshm_outcome_write(s->fd, s->nlocal, batch->gen, outcome, noutcome) == 0)
            batch->outcome_written = true;
        else
            status = PMIX_ERR_NOMEM;
    }
    if (status != PMIX_SUCCESS && batch->status == PMIX_SUCCESS)
        batch->status = status;
    if (--batch->remaining > 0)
        return;
    if (s)
        release(s, batch->gen, batch->status);
    free(batch);
}

int spx_srv_handle_group_local(struct spx_srv_peer *p, spx_buf_t *b)
{
    uint32_t gen = spx_buf_pull_u32(b);
    if (spx_buf_finish(b) != 0)
        return -1;
    struct spx_srv_gshm *s = p->client && p->client->ns ? find(p->ctx->grp, p->client->ns->name)
                                                         : NULL;
    bool closed = false;
    uint32_t cur = s ? spx_shmb_generation(s->seg, &closed, NULL) : 0;
    if (!s || !closed || cur != gen || (s->in_engine && s->engine_gen == gen) ||
        (s->parked && s->parked_gen == gen)) {
        spx_debug("%s: GROUP_LOCAL for generation %u ignored", p->name, (unsigned)gen);
        return 0;
    }
    gathered(s, gen);
    return 0;
}

void spx_srv_gshm_commit_applied(struct spx_srv_peer *p)
{
    struct spx_srv_gshm *s = p->client && p->client->ns && p->ctx->grp
                                 ? find(p->ctx->grp, p->client->ns->name)
                                 : NULL;
    if (s && s->parked && !spx_srv_shmf_commits_pending(p->client->ns))
        gathered(s, s->parked_gen);
}
