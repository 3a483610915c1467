/* tree_harness.c - the tree engine's collectives (lib/tree/coll.c, the real
 * code) at scale in one process: N endpoints, one collective engine per
 * simulated node, on the simulated network of tree_sim.h, tree width W.
 *
 * Runs R rounds of: a barrier over all nodes (no data), a collecting fence
 * over all nodes (B bytes per node), and two "group construct" style
 * collectives over subsets - every other node, and a random 1% (at least 2)
 * - each with a set_id of its own. Then a failure case: node 1 (an interior
 * node, the root's first child) is lost in the middle of a fence over all
 * nodes (half of the gather's messages delivered, no done run yet;
 * spx_coll_node_lost on every other engine): every survivor's fence must
 * end with PMIX_ERR_UNREACH and none may hang; after it, a fence of the
 * survivors and a group without the lost node succeed, and a fence naming
 * it fails at once with PMIX_ERR_UNREACH.
 *
 * Checked for every collective: each participant's done ran exactly once
 * with the expected status, nobody else's ran; the gathered data at every
 * participant is exactly the participants' contributions, each once (node i
 * contributes B bytes made from i: its index, then a pattern) in pieces of
 * whole contributions; m - 1 UPs and m - 1 DOWNs in all, at most W + 1 sent
 * by a node; the engines' own counters agree with the network's; nothing is
 * left active or queued; the loop ends within a step limit (a hang is a
 * failure). Any failure: a FAIL line and exit status 1. Timing is measured,
 * never checked.
 *
 * Reported per collective kind: wall and CPU time per collective (the
 * harness's data check excluded: it is timed, wall and CPU, and taken out;
 * the clock reads themselves stay in, some 0.2 us per node), CPU per
 * participant, messages and bytes sent per participant (max, mean), tree
 * depth, peak memory per participant, and memory per endpoint (RSS growth
 * from creating the N engines, / N, from /proc/self/statm). The first round
 * is the cold one: free memory goes back to the system before each of its
 * collectives (malloc_trim), so the RSS sampled during it (statm, every 1024
 * steps) less the RSS before it is the collective's own peak - frames in
 * flight included, their peak also given apart. RSS is blurred by freed
 * memory that stays resident (trim gives back whole free pages only), so
 * the same peak is also given as the allocator counts it (glibc mallinfo2:
 * bytes handed out, less those before). Faulting the pages in
 * costs CPU the engine would not pay in a long-lived server, so times are
 * the mean over the other, warm rounds (the cold round's CPU is given too);
 * with one round, that round's. For the same reason the heap keeps what is
 * freed outside cold rounds (mallopt: no mmap'd chunks up to 32 MiB, no
 * trimming): the sim mallocs a frame per message where the transport reads
 * into buffers its links keep, and with glibc's defaults the page faults of
 * those mallocs were most of the time measured. "result"/"memory"/"failcase" lines are
 * key=value, read by test/bench/run_tree_harness.sh.
 *
 * Usage: tree_harness [-n NODES] [-w WIDTH] [-b BYTES] [-r ROUNDS] [-s SEED]
 *                     [-o lifo|fifo] [-i K] [-k KINDS] [-F] [-S corrupt|drop]
 *   -b: 0, or at least 4 (a contribution starts with its node's index);
 *   -o: delivery order (default lifo, depth first);
 *   -i K: after each start deliver up to K messages (default 0: all nodes
 *         start first), so that messages reach nodes not started yet;
 *   -k: a comma list of barrier, fence, group_even, group_1pct (default all);
 *   -F: no failure case;
 *   -S: damage the network once (corrupt a DOWN's data, or drop an UP) -
 *       the harness's self-check: it must then FAIL.
 */
#include "config.h"

#include "tree_sim.h"

#include <pmix.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define NONE UINT32_MAX

typedef struct rec { /* one endpoint's done calls in the current collective */
    uint32_t calls;
    pmix_status_t status;
    bool bad; /* its data failed the check */
} rec_t;

typedef struct spec { /* one collective to run */
    const char *kind;        /* report name; borrowed literal */
    char set_id[64];
    const uint32_t *nodes;   /* sorted participants; borrowed */
    size_t m;
    uint32_t flags;          /* SPX_TREE_F_COLLECT or 0 */
    pmix_status_t want;      /* every live participant's expected status */
    uint32_t victim;         /* NONE, or a participant to kill mid-way */
} spec_t;

typedef struct stats { /* one collective's figures */
    double wall, cpu, verify;
    uint64_t msgs_total, msgs_max, bytes_total, bytes_max;
    long peak_rss;           /* bytes over the RSS before it */
    long peak_heap;          /* malloc'd bytes over those before it (-1: unknown) */
    uint64_t q_peak, steps, delivered_before_loss;
    uint64_t early;          /* messages that reached a node before its start (-i only) */
} stats_t;

static struct {
    tsim_t sim;
    uint32_t n, width, bytes, rounds, interleave;
    uint64_t rng;
    uint8_t *contrib;    /* n * bytes: node i's contribution */
    rec_t *rec;          /* n */
    uint32_t *member, mark; /* member[i] == mark: i takes part in the current collective */
    uint32_t *seen, stamp;  /* seen[i] == stamp: i's contribution met in the data checked */
    uint32_t *order;     /* n: scratch (start order, random subsets) */
    const spec_t *cur;   /* the collective running (its data is checked in done) */
    double verify_s, verify_cpu; /* wall and CPU time spent checking data in done */
    int failures;
} H;

/* ---- utilities ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long rss_bytes(void)
{
    long size = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &size, &res) != 2)
        res = 0;
    fclose(f);
    return res * sysconf(_SC_PAGESIZE);
}

/* Bytes the allocator has handed out (glibc), -1 if unknown: exact where RSS
 * is blurred by pages that free memory kept resident. */
static long heap_bytes(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd);
#else
    return -1;
#endif
}

static void trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0); /* freed memory back to the system: RSS deltas mean something */
#endif
}

static uint64_t rnd(void) /* xorshift64 */
{
    H.rng ^= H.rng << 13;
    H.rng ^= H.rng >> 7;
    H.rng ^= H.rng << 17;
    return H.rng;
}

static void shuffle(uint32_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd() % i;
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

#define FAIL(...)                          \
    do {                                   \
        printf("FAIL: " __VA_ARGS__);      \
        printf("\n");                      \
        H.failures++;                      \
    } while (0)

/* ---- contributions and their check ---- */

static void make_contrib(uint32_t i, uint8_t *p)
{
    for (uint32_t k = 0; k < H.bytes; k++)
        p[k] = k < 4 ? (uint8_t)(i >> (8 * k)) : (uint8_t)(i * 131u + k * 7u + 1u);
}

/* Is segs[0..nsegs) exactly the current participants' contributions, each
 * once, in pieces of whole contributions? */
static bool data_ok(const struct iovec *segs, size_t nsegs)
{
    const spec_t *c = H.cur;
    size_t b = H.bytes, count = 0;
    if (!(c->flags & SPX_TREE_F_COLLECT) || b == 0)
        return nsegs == 0;
    if (++H.stamp == 0) { /* wrapped: forget every old stamp */
        memset(H.seen, 0, H.n * sizeof(*H.seen));
        H.stamp = 1;
    }
    for (size_t s = 0; s < nsegs; s++) {
        const uint8_t *p = segs[s].iov_base;
        if (segs[s].iov_len % b)
            return false;
        for (size_t at = 0; at < segs[s].iov_len; at += b, count++) {
            uint32_t i = (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 | (uint32_t)p[at + 2] << 16 |
                         (uint32_t)p[at + 3] << 24;
            if (i >= H.n || H.member[i] != H.mark || H.seen[i] == H.stamp ||
                memcmp(p + at, H.contrib + (size_t)i * b, b) != 0)
                return false;
            H.seen[i] = H.stamp;
        }
    }
    return count == c->m;
}

/* done_segs of every start: arg is the endpoint's rec_t (H.rec). The data
 * check is timed (wall and CPU) to be taken out of the collective's times;
 * a result without data is checked untimed (nothing to take out). */
static void on_done(pmix_status_t status, const struct iovec *segs, size_t nsegs, void *arg)
{
    rec_t *r = arg;
    r->calls++;
    r->status = status;
    if (status != PMIX_SUCCESS || !H.cur)
        return;
    if (nsegs == 0) {
        r->bad = !data_ok(segs, nsegs);
        return;
    }
    double w0 = now_s(), c0 = cpu_s();
    r->bad = !data_ok(segs, nsegs);
    H.verify_cpu += cpu_s() - c0;
    H.verify_s += now_s() - w0;
}

/* ---- one collective ---- */

typedef struct peaks {
    long rss0, rss, heap0, heap;
} peaks_t;

/* In a cold run only: reading statm costs some 10 us, which warm runs must not time. */
static void sample(peaks_t *p, bool cold)
{
    if (!cold)
        return;
    long r = rss_bytes(), h = heap_bytes();
    if (r > p->rss)
        p->rss = r;
    if (h > p->heap)
        p->heap = h;
}

/* One step of the network; kills c->victim (once) when half of the gather's
 * messages have been delivered, checking that no collective ended before. */
static bool step(const spec_t *c, stats_t *st, uint64_t delivered0, bool *killed)
{
    if (c->victim != NONE && !*killed && H.sim.delivered - delivered0 >= (c->m - 1) / 2) {
        for (size_t k = 0; k < c->m; k++)
            if (H.rec[c->nodes[k]].calls) {
                FAIL("%s: node %u done before the loss: the failure case proves nothing",
                     c->set_id, c->nodes[k]);
                break;
            }
        st->delivered_before_loss = H.sim.delivered - delivered0;
        tsim_kill(&H.sim, c->victim);
        *killed = true;
    }
    return tsim_step(&H.sim);
}

/* Runs c, checks it (FAIL lines), fills st. cold: free memory is given back
 * to the system first (malloc_trim), so that the RSS peak is the
 * collective's own; the pages it then faults in cost CPU, so the timed
 * rounds are the warm ones. 0 or -1 (failed). */
static int run_coll(const spec_t *c, stats_t *st, bool cold)
{
    const uint32_t n = H.n, w = H.width;
    const int fails_before = H.failures;
    memset(st, 0, sizeof(*st));
    memset(H.rec, 0, n * sizeof(*H.rec));
    H.mark++;
    for (size_t k = 0; k < c->m; k++)
        H.member[c->nodes[k]] = H.mark;
    memcpy(H.order, c->nodes, c->m * sizeof(*H.order));
    shuffle(H.order, c->m);
    tsim_reset_counts(&H.sim);
    bool collect = (c->flags & SPX_TREE_F_COLLECT) != 0, killed = false;
    uint64_t early0 = H.sim.early, delivered0 = H.sim.delivered, limit = (uint64_t)c->m * 4 * (w + 2) + 10000;
    if (cold)
        trim();
    peaks_t pk = { .rss0 = rss_bytes(), .heap0 = heap_bytes() };
    pk.rss = pk.rss0;
    pk.heap = pk.heap0;
    H.cur = c;
    H.verify_s = H.verify_cpu = 0;
    double w0 = now_s(), c0 = cpu_s();
    for (size_t k = 0; k < c->m; k++) {
        uint32_t i = H.order[k];
        if (H.sim.ep[i].dead)
            continue;
        if (spx_coll_start_segs(H.sim.ep[i].e, c->set_id, c->nodes, c->m, c->flags,
                                PMIX_SUCCESS, collect ? H.contrib + (size_t)i * H.bytes : NULL,
                                collect ? H.bytes : 0, 0, on_done, &H.rec[i]) != 0) {
            FAIL("%s: start refused on node %u", c->set_id, i);
            return -1;
        }
        for (uint32_t j = 0; j < H.interleave && st->steps < limit; j++, st->steps++)
            if (!step(c, st, delivered0, &killed))
                break;
    }
    sample(&pk, cold);
    while (st->steps < limit && step(c, st, delivered0, &killed))
        if (++st->steps % 1024 == 0)
            sample(&pk, cold);
    sample(&pk, cold);
    st->wall = now_s() - w0 - H.verify_s;
    st->cpu = cpu_s() - c0 - H.verify_cpu;
    st->verify = H.verify_s;
    st->peak_rss = pk.rss - pk.rss0;
    st->peak_heap = pk.heap0 < 0 ? -1 : pk.heap - pk.heap0;
    st->q_peak = H.sim.q_peak_bytes;
    st->early = H.sim.early - early0;
    H.cur = NULL;

    if (st->steps >= limit || H.sim.qlen || H.sim.ndefer)
        FAIL("%s: still busy after %llu steps (a loop that does not end)", c->set_id,
             (unsigned long long)st->steps);
    if (c->victim != NONE && !killed)
        FAIL("%s: node %u was never lost", c->set_id, c->victim);
    uint32_t bad = 0, wrong = 0, extra = 0, busy = 0, mism = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rec_t *r = &H.rec[i];
        tsim_ep_t *ep = &H.sim.ep[i];
        if (ep->dead) {
            extra += r->calls != 0 && i != c->victim; /* the victim may not have ended */
            continue;
        }
        if (H.member[i] != H.mark) {
            extra += r->calls != 0;
        } else {
            if (r->calls != 1 || r->status != c->want) {
                if (wrong++ < 5)
                    printf("  node %u: done ran %u times, last %s (want once, %s)\n", i,
                           r->calls, r->calls ? PMIx_Error_string(r->status) : "-",
                           PMIx_Error_string(c->want));
            }
            bad += r->bad;
            st->msgs_total += ep->msgs;
            st->bytes_total += ep->bytes;
            if (ep->msgs > st->msgs_max)
                st->msgs_max = ep->msgs;
            if (ep->bytes > st->bytes_max)
                st->bytes_max = ep->bytes;
            spx_coll_counters_t cnt;
            spx_coll_get_counters(ep->e, &cnt);
            if (r->calls == 1 && (cnt.last_msgs_sent != ep->msgs || cnt.last_bytes_sent != ep->bytes))
                mism++;
        }
        busy += spx_coll_active(ep->e) != 0;
    }
    if (wrong)
        FAIL("%s: %u participants did not end once with %s", c->set_id, wrong,
             PMIx_Error_string(c->want));
    if (bad)
        FAIL("%s: %u participants got wrong data", c->set_id, bad);
    if (extra)
        FAIL("%s: %u nodes outside the collective had done called", c->set_id, extra);
    if (busy)
        FAIL("%s: %u nodes still hold an active collective", c->set_id, busy);
    if (mism)
        FAIL("%s: %u nodes' engine counters disagree with the network's", c->set_id, mism);
    if (c->want == PMIX_SUCCESS) {
        if (st->msgs_total != 2 * (uint64_t)(c->m - 1))
            FAIL("%s: %llu messages, want 2 * (m - 1) = %llu", c->set_id,
                 (unsigned long long)st->msgs_total, 2 * (unsigned long long)(c->m - 1));
        if (st->msgs_max > (uint64_t)w + 1)
            FAIL("%s: a node sent %llu messages, want at most W + 1 = %u", c->set_id,
                 (unsigned long long)st->msgs_max, w + 1);
    }
    return H.failures == fails_before ? 0 : -1;
}

/* ---- the runs ---- */

typedef struct acc { /* one kind's figures over the rounds */
    const char *kind;
    size_t m;
    uint32_t runs, timed;  /* rounds run; rounds timed (all but the cold first, if R > 1) */
    stats_t cold;          /* the first round: memory, and its times for reference */
    double wall, cpu, verify;                /* sums over the timed rounds */
    uint64_t msgs_total, bytes_total, msgs_max, bytes_max, early; /* over all rounds */
} acc_t;

static void acc_add(acc_t *a, const spec_t *c, const stats_t *s, uint32_t round)
{
    a->kind = c->kind;
    a->m = c->m;
    a->runs++;
    if (round == 0)
        a->cold = *s;
    if (round > 0 || H.rounds == 1) {
        a->timed++;
        a->wall += s->wall;
        a->cpu += s->cpu;
        a->verify += s->verify;
    }
    a->msgs_total += s->msgs_total;
    a->bytes_total += s->bytes_total;
    a->early += s->early;
    if (s->msgs_max > a->msgs_max)
        a->msgs_max = s->msgs_max;
    if (s->bytes_max > a->bytes_max)
        a->bytes_max = s->bytes_max;
}

static void acc_print(const acc_t *a)
{
    if (!a->timed)
        return;
    double t = a->timed, m = (double)a->m;
    printf("result n=%u w=%u b=%u kind=%s m=%zu depth=%u rounds=%u timed=%u wall_ms=%.3f "
           "cpu_ms=%.3f cpu_us_per_node=%.3f cold_cpu_ms=%.3f msgs_max=%llu msgs_mean=%.3f "
           "bytes_max=%llu bytes_mean=%.1f peak_kib_per_node=%.3f heap_peak_kib_per_node=%.3f "
           "inflight_peak_kib=%.1f "
           "check_ms=%.1f early_msgs=%llu\n",
           H.n, H.width, H.bytes, a->kind, a->m, spx_tree_topo_depth((uint32_t)a->m, H.width),
           a->runs, a->timed, a->wall / t * 1e3, a->cpu / t * 1e3, a->cpu / t / m * 1e6,
           a->cold.cpu * 1e3, (unsigned long long)a->msgs_max,
           (double)a->msgs_total / a->runs / m, (unsigned long long)a->bytes_max,
           (double)a->bytes_total / a->runs / m, (double)a->cold.peak_rss / m / 1024.0,
           a->cold.peak_heap < 0 ? -1.0 : (double)a->cold.peak_heap / m / 1024.0,
           (double)a->cold.q_peak / 1024.0, a->verify / t * 1e3, (unsigned long long)a->early);
}

/* A random subset of k nodes, sorted, into out. */
static void random_subset(uint32_t *out, size_t k)
{
    for (uint32_t i = 0; i < H.n; i++)
        H.order[i] = i;
    for (size_t i = 0; i < k; i++) {
        size_t j = i + rnd() % (H.n - i);
        uint32_t t = H.order[i];
        H.order[i] = H.order[j];
        H.order[j] = t;
    }
    memcpy(out, H.order, k * sizeof(*out));
    qsort(out, k, sizeof(*out), cmp_u32);
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-n NODES] [-w WIDTH] [-b BYTES] [-r ROUNDS] [-s SEED] [-o lifo|fifo]\n"
            "          [-i INTERLEAVE] [-k KINDS] [-F] [-S corrupt|drop]\n",
            prog);
    exit(2);
}

/* "barrier,fence,group_even,group_1pct" (any of them) -> a bit per kind */
static unsigned parse_kinds(const char *list, const char *prog)
{
    static const char *const names[4] = { "barrier", "fence", "group_even", "group_1pct" };
    unsigned bits = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int k;
        for (k = 0; k < 4 && !(strlen(names[k]) == len && strncmp(p, names[k], len) == 0); k++)
            ;
        if (k == 4)
            usage(prog);
        bits |= 1u << k;
        p += len + (p[len] == ',');
    }
    return bits ? bits : 0xf;
}

static long num(const char *s, long lo, long hi, const char *prog)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi)
        usage(prog);
    return v;
}

int main(int argc, char **argv)
{
    uint32_t n = 1024, w = SPX_TREE_DEFAULT_WIDTH, b = 64, rounds = 3, inter = 0;
    uint64_t seed = 1;
    bool fifo = false, failcase = true;
    int sabotage = 0, opt;
    unsigned kinds = 0xf;
    while ((opt = getopt(argc, argv, "n:w:b:r:s:o:i:k:FS:")) != -1) {
        switch (opt) {
        case 'n': n = (uint32_t)num(optarg, 2, 1 << 22, argv[0]); break;
        case 'w': w = (uint32_t)num(optarg, 1, 1024, argv[0]); break;
        case 'b': b = (uint32_t)num(optarg, 0, 1 << 20, argv[0]); break;
        case 'r': rounds = (uint32_t)num(optarg, 1, 1000000, argv[0]); break;
        case 's': seed = (uint64_t)num(optarg, 1, 0x7fffffffL, argv[0]); break;
        case 'i': inter = (uint32_t)num(optarg, 0, 1 << 20, argv[0]); break;
        case 'F': failcase = false; break;
        case 'k': kinds = parse_kinds(optarg, argv[0]); break;
        case 'o':
            if (strcmp(optarg, "fifo") && strcmp(optarg, "lifo"))
                usage(argv[0]);
            fifo = strcmp(optarg, "fifo") == 0;
            break;
        case 'S':
            if (strcmp(optarg, "corrupt") && strcmp(optarg, "drop"))
                usage(argv[0]);
            sabotage = strcmp(optarg, "corrupt") == 0 ? 1 : 2;
            break;
        default: usage(argv[0]);
        }
    }
    if (optind != argc || (b > 0 && b < 4))
        usage(argv[0]);
#ifdef __GLIBC__
    /* frames come from the heap and stay there once freed (trim() gives them
     * back in cold runs only): the tree transport reads frames into buffers
     * its links keep, so the sim's malloc per message must not add page
     * faults the real path does not have */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    H.n = n;
    H.width = w;
    H.bytes = b;
    H.rounds = rounds;
    H.interleave = inter;
    H.rng = seed * 0x9e3779b97f4a7c15ull;
    size_t pct = n / 100 < 2 ? 2 : n / 100;
    uint32_t *all = malloc(n * sizeof(*all)), *even = malloc(n * sizeof(*even)),
             *sub = malloc(pct * sizeof(*sub)), *surv = malloc(n * sizeof(*surv));
    H.contrib = malloc((size_t)n * b + 1);
    H.rec = calloc(n, sizeof(*H.rec));
    H.member = calloc(n, sizeof(*H.member));
    H.seen = calloc(n, sizeof(*H.seen));
    H.order = calloc(n, sizeof(*H.order));
    if (!all || !even || !sub || !surv || !H.contrib || !H.rec || !H.member || !H.seen ||
        !H.order || tsim_init(&H.sim, n, w, fifo) < 0) {
        fprintf(stderr, "tree_harness: out of memory\n");
        return 1;
    }
    size_t neven = 0;
    for (uint32_t i = 0; i < n; i++) {
        all[i] = i;
        if (i % 2 == 0)
            even[neven++] = i;
        make_contrib(i, H.contrib + (size_t)i * b);
    }
    printf("# tree_harness: nodes %u width %u bytes %u rounds %u order %s interleave %u "
           "seed %llu depth %u\n",
           n, w, b, rounds, fifo ? "fifo" : "lifo", inter, (unsigned long long)seed,
           spx_tree_topo_depth(n, w));

    trim();
    long rss_base = rss_bytes();
    double t0 = now_s();
    if (tsim_create_engines(&H.sim) < 0) {
        fprintf(stderr, "tree_harness: cannot create %u engines\n", n);
        return 1;
    }
    double t_create = now_s() - t0;
    long rss_eng = rss_bytes();
    printf("memory n=%u w=%u engine_kib_per_ep=%.3f create_us_per_ep=%.3f rss_base_mib=%.1f "
           "rss_engines_mib=%.1f\n",
           n, w, (double)(rss_eng - rss_base) / n / 1024.0, t_create / n * 1e6,
           (double)rss_base / 1048576.0, (double)rss_eng / 1048576.0);
    fflush(stdout);

    H.sim.sabotage = sabotage;
    H.sim.count_early = inter > 0;
    acc_t acc[4] = { { 0 } };
    stats_t st;
    for (uint32_t r = 0; r < rounds && !H.failures; r++) {
        spec_t c[4] = {
            { "barrier", "barrier", all, n, 0, PMIX_SUCCESS, NONE },
            { "fence", "fence", all, n, SPX_TREE_F_COLLECT, PMIX_SUCCESS, NONE },
            { "group_even", "", even, neven, SPX_TREE_F_COLLECT, PMIX_SUCCESS, NONE },
            { "group_1pct", "", sub, pct, SPX_TREE_F_COLLECT, PMIX_SUCCESS, NONE },
        };
        snprintf(c[2].set_id, sizeof(c[2].set_id), "group-even-%u", r);
        snprintf(c[3].set_id, sizeof(c[3].set_id), "group-1pct-%u", r);
        random_subset(sub, pct);
        for (int k = 0; k < 4 && !H.failures; k++)
            if ((kinds & 1u << k) && run_coll(&c[k], &st, r == 0) == 0)
                acc_add(&acc[k], &c[k], &st, r);
    }
    for (int k = 0; k < 4; k++)
        acc_print(&acc[k]);
    fflush(stdout);

    if (failcase && !H.failures && n >= 3) {
        const uint32_t victim = 1; /* the root's first child: an interior node if n > w + 1 */
        size_t nsurv = 0;
        for (uint32_t i = 0; i < n; i++)
            if (i != victim)
                surv[nsurv++] = i;
        spec_t lost = { "fence_node_lost", "fence-lost", all, n, SPX_TREE_F_COLLECT,
                        PMIX_ERR_UNREACH, victim };
        spec_t after[3] = {
            { "fence_survivors", "fence-survivors", surv, nsurv, SPX_TREE_F_COLLECT,
              PMIX_SUCCESS, NONE },
            { "group_even_after_loss", "group-even-after", even, neven, SPX_TREE_F_COLLECT,
              PMIX_SUCCESS, NONE },
            { "fence_naming_lost", "fence-naming-lost", all, n, SPX_TREE_F_COLLECT,
              PMIX_ERR_UNREACH, NONE },
        };
        uint64_t dropped0 = 0, dropped1 = 0;
        spx_coll_counters_t cnt;
        for (uint32_t i = 0; i < n; i++) {
            spx_coll_get_counters(H.sim.ep[i].e, &cnt);
            dropped0 += cnt.dropped;
        }
        if (run_coll(&lost, &st, false) == 0) {
            for (uint32_t i = 0; i < n; i++) {
                spx_coll_get_counters(H.sim.ep[i].e, &cnt);
                dropped1 += cnt.dropped;
            }
            printf("failcase n=%u w=%u victim=%u delivered_before_loss=%llu msgs_if_complete=%llu "
                   "survivors_unreach=%u steps=%llu late_msgs_dropped=%llu wall_ms=%.3f "
                   "cpu_ms=%.3f\n",
                   n, w, victim, (unsigned long long)st.delivered_before_loss,
                   2 * (unsigned long long)(n - 1), n - 1, (unsigned long long)st.steps,
                   (unsigned long long)(dropped1 - dropped0), st.wall * 1e3, st.cpu * 1e3);
            for (int k = 0; k < 3 && !H.failures; k++)
                if (run_coll(&after[k], &st, false) == 0)
                    printf("failcase n=%u w=%u kind=%s m=%zu status=%s wall_ms=%.3f\n", n, w,
                           after[k].kind, after[k].m, PMIx_Error_string(after[k].want),
                           st.wall * 1e3);
        }
        if (!H.failures)
            printf("PASS: node %u lost mid-fence: %u survivors ended with PMIX_ERR_UNREACH, "
                   "none hung; later collectives without it succeed, with it fail\n",
                   victim, n - 1);
    }

    tsim_fini(&H.sim);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("# maxrss_mib=%.1f\n", (double)ru.ru_maxrss / 1024.0);
    if (!H.failures)
        printf("PASS: %u nodes width %u: %u rounds of every collective asked for: complete and "
               "correct\n",
               n, w, rounds);
    free(all);
    free(even);
    free(sub);
    free(surv);
    free(H.contrib);
    free(H.rec);
    free(H.member);
    free(H.seen);
    free(H.order);
    return H.failures ? 1 : 0;
}
