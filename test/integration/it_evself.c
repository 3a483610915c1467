/*
 * it_evself: the notifier's own handlers (OpenPMIx behaviour). Every rank
 * registers a handler for IT_CODE and a default handler; then, phase after
 * phase, one rank raises IT_CODE:
 *   - with each range LOCAL, NAMESPACE, SESSION, GLOBAL, RM (blocking form):
 *     the notifier's own handlers run exactly once with the notifier as
 *     source, and the others hear it as before (LOCAL and RM: its node's
 *     ranks; the others: every rank);
 *   - NAMESPACE with PMIX_EVENT_NON_DEFAULT: the default handlers run nowhere,
 *     the specific ones everywhere, the notifier's included;
 *   - NAMESPACE naming another source: every handler, the notifier's too,
 *     gets that source;
 *   - CUSTOM ranges: naming rank 0 only (the notifier, rank 1, hears nothing),
 *     the namespace with rank WILDCARD, and ranks 1 and 0 explicitly;
 *   - NAMESPACE with a cbfunc: it is called once with PMIX_SUCCESS.
 * After each phase every rank waits for its expected counts, passes a fence
 * and checks that no handler ran more often, then fences again. Run alone (a singleton),
 * the process's own handlers run for the ranges beyond it too.
 * Prints "it_evself: N ranks: OK".
 */
#include "itest.h"

#define IT_CODE (PMIX_EXTERNAL_ERR_BASE - 31)
#define IT_TAG "it.evself.tag"

struct it_seen {
    int calls;
    pmix_proc_t source; /* of the last call */
    char tag[32];       /* IT_TAG of the last call */
};

static struct it_seen it_spec, it_dflt; /* written on the progress thread */
static int it_cb_calls;
static pmix_status_t it_cb_status = PMIX_ERR_NOT_FOUND;

static void it_note(struct it_seen *s, const pmix_proc_t *source, const pmix_info_t *info,
                    size_t ninfo)
{
    s->source = *source;
    s->tag[0] = '\0';
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], IT_TAG) && info[i].value.type == PMIX_STRING)
            snprintf(s->tag, sizeof(s->tag), "%s", info[i].value.data.string);
    __atomic_add_fetch(&s->calls, 1, __ATOMIC_RELEASE);
}

static void it_spec_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                         pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)results, (void)nresults;
    IT_CHECK(status == IT_CODE, "specific handler got %s", PMIx_Error_string(status));
    it_note(&it_spec, source, info, ninfo);
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata); /* on to the default handler */
}

static void it_dflt_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                         pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)results, (void)nresults;
    if (status == IT_CODE)
        it_note(&it_dflt, source, info, ninfo);
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void it_notify_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    it_cb_status = status;
    __atomic_add_fetch(&it_cb_calls, 1, __ATOMIC_RELEASE);
}

static uint32_t it_size, it_mynode;
static int it_want_spec, it_want_dflt;

/* One phase: notifier raises IT_CODE in range (custom: the PMIX_EVENT_CUSTOM_RANGE
 * procs, n of them), tagged tag; hears[r] says whether rank r hears it. */
static void it_phase(const char *tag, pmix_rank_t notifier, pmix_data_range_t range,
                     const pmix_proc_t *source, const pmix_proc_t *custom, size_t ncustom,
                     bool nondefault, bool with_cb, const bool *hears)
{
    pmix_info_t info[3];
    size_t ninfo = 0;
    pmix_data_array_t arr = {.type = PMIX_PROC, .size = ncustom, .array = (void *)custom};
    bool yes = true;

    if (it_me.rank == notifier) {
        PMIX_INFO_LOAD(&info[ninfo], IT_TAG, tag, PMIX_STRING);
        ninfo++;
        if (ncustom) {
            PMIX_INFO_LOAD(&info[ninfo], PMIX_EVENT_CUSTOM_RANGE, &arr, PMIX_DATA_ARRAY);
            ninfo++;
        }
        if (nondefault) {
            PMIX_INFO_LOAD(&info[ninfo], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
            ninfo++;
        }
        if (with_cb) {
            IT_RC(PMIx_Notify_event(IT_CODE, source, range, info, ninfo, it_notify_cb, NULL),
                  PMIX_SUCCESS, "PMIx_Notify_event(cbfunc)");
            IT_WAIT_FOR(it_cb_calls, 10, "the notify cbfunc");
            IT_RC(it_cb_status, PMIX_SUCCESS, "the notify cbfunc's status");
        } else {
            IT_RC(PMIx_Notify_event(IT_CODE, source, range, info, ninfo, NULL, NULL),
                  PMIX_SUCCESS, tag);
        }
        for (size_t i = 0; i < ninfo; i++)
            PMIX_INFO_DESTRUCT(&info[i]);
    }
    if (hears[it_me.rank]) {
        it_want_spec++;
        it_want_dflt += !nondefault;
    }
    double end = it_now() + 10;
    while (__atomic_load_n(&it_spec.calls, __ATOMIC_ACQUIRE) < it_want_spec ||
           __atomic_load_n(&it_dflt.calls, __ATOMIC_ACQUIRE) < it_want_dflt) {
        IT_CHECK(it_now() < end, "%s: rank %u: handlers ran %d and %d times, expected %d and %d",
                 tag, it_me.rank, it_spec.calls, it_dflt.calls, it_want_spec, it_want_dflt);
        it_sleep_ms(5);
    }
    it_fence(); /* every event of the phase is out */
    IT_CHECK(it_spec.calls == it_want_spec && it_dflt.calls == it_want_dflt,
             "%s: rank %u: handlers ran %d and %d times, expected %d and %d (last: '%s' from "
             "rank %u)", tag, it_me.rank, it_spec.calls, it_dflt.calls, it_want_spec,
             it_want_dflt, it_spec.tag, it_spec.source.rank);
    if (hears[it_me.rank]) {
        pmix_rank_t want = source ? source->rank : notifier;
        IT_CHECK(strcmp(it_spec.tag, tag) == 0, "%s: rank %u: tag '%s'", tag, it_me.rank,
                 it_spec.tag);
        IT_CHECK(PMIX_CHECK_NSPACE(it_spec.source.nspace, it_me.nspace) &&
                     it_spec.source.rank == want,
                 "%s: rank %u: source %s:%u, expected rank %u", tag, it_me.rank,
                 it_spec.source.nspace, it_spec.source.rank, want);
    }
    it_fence(); /* every rank checked before the next phase's event */
}

int main(void)
{
    pmix_status_t code = IT_CODE;
    static const struct {
        pmix_data_range_t range;
        const char *name;
        bool all;
    } ranges[] = {{PMIX_RANGE_LOCAL, "LOCAL", false}, {PMIX_RANGE_NAMESPACE, "NAMESPACE", true},
                  {PMIX_RANGE_SESSION, "SESSION", true}, {PMIX_RANGE_GLOBAL, "GLOBAL", true},
                  {PMIX_RANGE_RM, "RM", false}};

    it_size = it_init();
    it_mynode = it_nodeid(it_me.rank);
    bool *hears = calloc(it_size, sizeof(*hears));
    uint32_t *node = calloc(it_size, sizeof(*node));
    IT_CHECK(hears && node, "out of memory");
    for (uint32_t r = 0; r < it_size; r++)
        node[r] = it_nodeid(r);
    IT_CHECK(PMIx_Register_event_handler(&code, 1, NULL, 0, it_spec_hdlr, NULL, NULL) >= 0,
             "registering the specific handler");
    IT_CHECK(PMIx_Register_event_handler(NULL, 0, NULL, 0, it_dflt_hdlr, NULL, NULL) >= 0,
             "registering the default handler");
    it_fence();

    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
        pmix_rank_t notifier = (pmix_rank_t)(i % it_size);
        for (uint32_t r = 0; r < it_size; r++)
            hears[r] = r == notifier || ranges[i].all || node[r] == node[notifier];
        it_phase(ranges[i].name, notifier, ranges[i].range, NULL, NULL, 0, false, false, hears);
    }
    for (uint32_t r = 0; r < it_size; r++)
        hears[r] = true;
    it_phase("NON_DEFAULT", 0, PMIX_RANGE_NAMESPACE, NULL, NULL, 0, true, false, hears);
    it_phase("cbfunc", 0, PMIX_RANGE_NAMESPACE, NULL, NULL, 0, false, true, hears);
    if (it_size >= 2) {
        pmix_proc_t p[2];
        PMIX_LOAD_PROCID(&p[0], it_me.nspace, 0);
        it_phase("other source", 1, PMIX_RANGE_NAMESPACE, &p[0], NULL, 0, false, false, hears);
        for (uint32_t r = 0; r < it_size; r++)
            hears[r] = r == 0;
        it_phase("CUSTOM rank 0", 1, PMIX_RANGE_CUSTOM, NULL, p, 1, false, false, hears);
        for (uint32_t r = 0; r < it_size; r++)
            hears[r] = true;
        PMIX_LOAD_PROCID(&p[0], it_me.nspace, PMIX_RANK_WILDCARD);
        it_phase("CUSTOM wildcard", 1, PMIX_RANGE_CUSTOM, NULL, p, 1, false, false, hears);
        for (uint32_t r = 0; r < it_size; r++)
            hears[r] = r <= 1;
        PMIX_LOAD_PROCID(&p[0], it_me.nspace, 1);
        PMIX_LOAD_PROCID(&p[1], it_me.nspace, 0);
        it_phase("CUSTOM ranks 1 0", 1, PMIX_RANGE_CUSTOM, NULL, p, 2, false, false, hears);
    }
    free(hears);
    free(node);
    if (it_me.rank == 0)
        printf("it_evself: %u ranks: OK\n", it_size);
    it_finalize();
    return 0;
}
