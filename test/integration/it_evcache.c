/*
 * it_evcache: PMIX_RANGE_PROC_LOCAL events kept for handlers registered later
 * (OpenPMIx behaviour). Every rank, on its own:
 *   1. raises CODE_B (tag b1, source: a made-up rank) with no handler, then
 *      registers H1 for it: H1 gets b1 once, with that source, before its
 *      registration returns;
 *   2. raises b2 (H1 runs), registers H2: H2 gets b2, H1 not a second time;
 *      H3 registered next gets nothing (a kept event reaches one handler);
 *   3. raises b3 with PMIX_EVENT_DO_NOT_CACHE (H1, H2, H3 run), registers H4:
 *      nothing;
 *   4. raises CODE_F in a CUSTOM range naming itself only (its own handlers
 *      would run; none is registered), registers H6: nothing (only PROC_LOCAL
 *      events are kept);
 *   5. raises CODE_E tagged e1 with PMIX_EVENT_NON_DEFAULT, then e2, and
 *      registers a default handler: it gets e2 only; a handler for CODE_E
 *      registered next gets e1.
 * Each handler finds its own PMIX_EVENT_RETURN_OBJECT. Replays run before the
 * registration returns, so "nothing" is checked right after it. Prints
 * "it_evcache: N ranks: OK".
 */
#include "itest.h"

#define CODE_B (PMIX_EXTERNAL_ERR_BASE - 41)
#define CODE_E (PMIX_EXTERNAL_ERR_BASE - 42)
#define CODE_F (PMIX_EXTERNAL_ERR_BASE - 43)
#define IT_TAG "it.evcache.tag"

struct it_hdlr {
    const char *name;
    int calls;
    pmix_status_t status;
    pmix_proc_t source;
    char tag[32];
};

static struct it_hdlr h1 = {"H1"}, h2 = {"H2"}, h3 = {"H3"}, h4 = {"H4"}, h6 = {"H6"},
                      hd = {"HD"}, h5 = {"H5"};

static void it_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    struct it_hdlr *h = NULL;
    (void)id, (void)results, (void)nresults;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_RETURN_OBJECT))
            h = info[i].value.data.ptr;
    IT_CHECK(h, "a handler without its return object");
    h->status = status;
    h->source = *source;
    h->tag[0] = '\0';
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], IT_TAG) && info[i].value.type == PMIX_STRING)
            snprintf(h->tag, sizeof(h->tag), "%s", info[i].value.data.string);
    __atomic_add_fetch(&h->calls, 1, __ATOMIC_RELEASE);
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void it_register(pmix_status_t code, bool any_code, struct it_hdlr *h)
{
    pmix_info_t info;

    PMIX_INFO_LOAD(&info, PMIX_EVENT_RETURN_OBJECT, h, PMIX_POINTER);
    IT_CHECK(PMIx_Register_event_handler(any_code ? NULL : &code, any_code ? 0 : 1, &info, 1,
                                         it_hdlr, NULL, NULL) >= 0,
             "registering %s", h->name);
    PMIX_INFO_DESTRUCT(&info);
}

/* Raises code for this process only: PROC_LOCAL, or a CUSTOM range naming it. */
static void it_raise(pmix_status_t code, const char *tag, const pmix_proc_t *source,
                     bool custom_me, bool nondefault, bool nocache)
{
    pmix_info_t info[3];
    size_t n = 0;
    bool yes = true;

    PMIX_INFO_LOAD(&info[n], IT_TAG, tag, PMIX_STRING);
    n++;
    if (custom_me) {
        PMIX_INFO_LOAD(&info[n], PMIX_EVENT_CUSTOM_RANGE, &it_me, PMIX_PROC);
        n++;
    }
    if (nondefault) {
        PMIX_INFO_LOAD(&info[n], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
        n++;
    }
    if (nocache) {
        PMIX_INFO_LOAD(&info[n], PMIX_EVENT_DO_NOT_CACHE, &yes, PMIX_BOOL);
        n++;
    }
    IT_RC(PMIx_Notify_event(code, source, custom_me ? PMIX_RANGE_CUSTOM : PMIX_RANGE_PROC_LOCAL,
                            info, n, NULL, NULL),
          PMIX_SUCCESS, tag);
    for (size_t i = 0; i < n; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
}

/* h has been called calls times (waiting up to 10 s for it), the last time
 * with tag (NULL: not checked). */
static void it_expect(const struct it_hdlr *h, int calls, const char *tag, const char *step)
{
    double end = it_now() + 10;

    while (__atomic_load_n(&h->calls, __ATOMIC_ACQUIRE) < calls) {
        IT_CHECK(it_now() < end, "%s: %s ran %d times, expected %d", step, h->name, h->calls,
                 calls);
        it_sleep_ms(5);
    }
    IT_CHECK(h->calls == calls, "%s: %s ran %d times, expected %d", step, h->name, h->calls,
             calls);
    IT_CHECK(!tag || strcmp(h->tag, tag) == 0, "%s: %s got tag '%s', expected '%s'", step,
             h->name, h->tag, tag);
}

int main(void)
{
    uint32_t size = it_init();
    pmix_proc_t other;

    PMIX_LOAD_PROCID(&other, it_me.nspace, it_me.rank + 100);
    /* 1 */
    it_raise(CODE_B, "b1", &other, false, false, false);
    it_register(CODE_B, false, &h1);
    it_expect(&h1, 1, "b1", "a handler registered after b1");
    IT_CHECK(h1.status == CODE_B && PMIX_CHECK_PROCID(&h1.source, &other),
             "H1 got status %d from %s:%u", h1.status, h1.source.nspace, h1.source.rank);
    /* 2 */
    it_raise(CODE_B, "b2", NULL, false, false, false);
    it_expect(&h1, 2, "b2", "b2 raised with H1 registered");
    it_register(CODE_B, false, &h2);
    it_expect(&h2, 1, "b2", "H2 registered after b2");
    IT_CHECK(PMIX_CHECK_PROCID(&h2.source, &it_me), "H2 got source %s:%u", h2.source.nspace,
             h2.source.rank);
    it_expect(&h1, 2, "b2", "H1 after H2's registration");
    it_register(CODE_B, false, &h3);
    IT_CHECK(h3.calls == 0, "H3 got a kept event (%s) already taken", h3.tag);
    /* 3 */
    it_raise(CODE_B, "b3", NULL, false, false, true);
    it_expect(&h1, 3, "b3", "b3 (DO_NOT_CACHE)");
    it_expect(&h2, 2, "b3", "b3 (DO_NOT_CACHE)");
    it_expect(&h3, 1, "b3", "b3 (DO_NOT_CACHE)");
    it_register(CODE_B, false, &h4);
    IT_CHECK(h4.calls == 0, "H4 got %s, raised with PMIX_EVENT_DO_NOT_CACHE", h4.tag);
    /* 4 */
    it_raise(CODE_F, "f1", NULL, true, false, false);
    it_register(CODE_F, false, &h6);
    IT_CHECK(h6.calls == 0, "H6 got %s, raised in a CUSTOM range", h6.tag);
    /* 5 */
    it_raise(CODE_E, "e1", NULL, false, true, false);
    it_raise(CODE_E, "e2", NULL, false, false, false);
    it_register(0, true, &hd);
    it_expect(&hd, 1, "e2", "a default handler registered after e1 (NON_DEFAULT) and e2");
    it_register(CODE_E, false, &h5);
    it_expect(&h5, 1, "e1", "a handler for CODE_E registered after the default one");
    it_expect(&hd, 1, "e2", "the default handler after H5's registration");

    it_fence();
    if (it_me.rank == 0)
        printf("it_evcache: %u ranks: OK\n", size);
    it_finalize();
    return 0;
}
