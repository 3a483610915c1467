/*
 * it_helpers.c - the PMIx v4 inline helpers of pmix_common.h (pmix_argv_*,
 * pmix_setenv, pmix_strncpy, pmix_keylen/nslen, pmix_malloc/calloc/free,
 * pmix_check_true, pmix_app_free, pmix_pdata_free, pmix_*_stats_free) and
 * the macros built on them.
 *
 * A plain program, no server: every helper and macro is called and its result
 * checked against the behaviour PMIx v4 programs rely on.  It builds against
 * our headers (make check, and the installed headers in scripts/test.sh) and
 * unchanged against OpenPMIx 4.2's headers, which shows the expectations are
 * theirs too.  Checks of what OpenPMIx leaves undefined (it crashes on a NULL
 * string) run only with our headers (spmix.h present).  Freeing is checked
 * by running it under ASan / valgrind: nothing may leak or be freed twice.
 * Written to compile as C99 (with POSIX), C11 and C++.
 * Exit status 0 = all checks passed; each failed check prints a line.
 */
#define _POSIX_C_SOURCE 200809L
#include <strings.h> /* OpenPMIx 4.2's pmix_common.h calls strncasecmp unprototyped */
#include <pmix.h>
#if defined(__has_include)
#if __has_include(<spmix.h>)
#include <spmix.h>
#endif
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static int checks;

#define CHECK(cond)                                                      \
    do {                                                                \
        checks++;                                                       \
        if (!(cond)) {                                                  \
            failures++;                                                 \
            fprintf(stderr, "it_helpers.c:%d: FAILED: %s\n", __LINE__, #cond); \
        }                                                               \
    } while (0)

/* argv holds exactly the n strings of want, in order, NULL-terminated */
static int argv_is(char **argv, const char *const *want, int n)
{
    int i;
    if (n == 0)
        return argv != NULL && argv[0] == NULL;
    if (argv == NULL)
        return 0;
    for (i = 0; i < n; i++)
        if (argv[i] == NULL || strcmp(argv[i], want[i]) != 0)
            return 0;
    return argv[n] == NULL;
}

static char *dup_str(const char *s)
{
    char *d = (char *) pmix_malloc(strlen(s) + 1);
    if (d != NULL)
        strcpy(d, s);
    return d;
}

static void test_memory(void)
{
    unsigned char *z = (unsigned char *) pmix_calloc(16, 4);
    char *m = (char *) pmix_malloc(32);
    size_t i, nonzero = 0;
    CHECK(z != NULL && m != NULL);
    if (z != NULL)
        for (i = 0; i < 64; i++)
            nonzero += z[i] != 0;
    CHECK(nonzero == 0);
    if (m != NULL)
        memset(m, 'x', 32); /* all 32 bytes are ours (ASan checks) */
    pmix_free(z);
    pmix_free(m);
    pmix_free(NULL);
}

static void test_strings(void)
{
    char dst[16];
    char raw[PMIX_MAX_KEYLEN + 40];
    pmix_key_t key;
    pmix_nspace_t ns;
    pmix_proc_t proc;
    pmix_info_t info;

    /* truncation: len chars copied, then the terminator at dst[len] */
    memset(dst, '#', sizeof(dst));
    pmix_strncpy(dst, "abcdefghij", 5);
    CHECK(strcmp(dst, "abcde") == 0);
    CHECK(dst[6] == '#');
    /* a shorter source stops at its terminator; later bytes untouched */
    memset(dst, '#', sizeof(dst));
    pmix_strncpy(dst, "ab", 5);
    CHECK(strcmp(dst, "ab") == 0 && dst[3] == '#');
    /* an exact fit */
    memset(dst, '#', sizeof(dst));
    pmix_strncpy(dst, "abcde", 5);
    CHECK(strcmp(dst, "abcde") == 0 && dst[6] == '#');
    /* len 0 writes only the terminator */
    memset(dst, '#', sizeof(dst));
    pmix_strncpy(dst, "abc", 0);
    CHECK(dst[0] == '\0' && dst[1] == '#');
    /* an unterminated source is read no further than len */
    memset(raw, 'k', sizeof(raw));
    pmix_strncpy(dst, raw, 7);
    CHECK(strlen(dst) == 7);

    /* key and namespace lengths, bounded */
    CHECK(pmix_keylen(NULL) == 0);
    CHECK(pmix_nslen(NULL) == 0);
    CHECK(pmix_keylen("") == 0);
    CHECK(pmix_keylen("pmix.rank") == 9);
    CHECK(pmix_nslen("job.1") == 5);
    CHECK(pmix_keylen(raw) == PMIX_MAX_KEYLEN + 1);    /* no terminator in reach */
    CHECK(pmix_nslen(raw) == PMIX_MAX_NSLEN + 1);
    raw[PMIX_MAX_KEYLEN] = '\0';
    CHECK(pmix_keylen(raw) == PMIX_MAX_KEYLEN);
    raw[PMIX_MAX_NSLEN] = '\0';
    CHECK(pmix_nslen(raw) == PMIX_MAX_NSLEN);

    /* the macros built on them */
    memset(raw, 'k', sizeof(raw));
    raw[sizeof(raw) - 1] = '\0';
    PMIX_LOAD_KEY(key, raw);                            /* truncated to the max */
    CHECK(strlen(key) == PMIX_MAX_KEYLEN);
    PMIX_LOAD_KEY(key, "my.key");
    CHECK(strcmp(key, "my.key") == 0);
    PMIX_LOAD_KEY(info.key, "my.key");
    CHECK(PMIX_CHECK_KEY(&info, "my.key") && !PMIX_CHECK_KEY(&info, "my.ke"));
    PMIX_LOAD_NSPACE(ns, raw);
    CHECK(strlen(ns) == PMIX_MAX_NSLEN);
    PMIX_LOAD_NSPACE(ns, NULL);
    CHECK(PMIX_NSPACE_INVALID(ns));
    PMIX_LOAD_PROCID(&proc, "job.7", 3);
    CHECK(!PMIX_PROCID_INVALID(&proc) && strcmp(proc.nspace, "job.7") == 0 && proc.rank == 3);
    CHECK(PMIX_CHECK_NSPACE(proc.nspace, "job.7") && !PMIX_CHECK_NSPACE(proc.nspace, "job.8"));
}

static void test_argv_build(void)
{
    static const char *const abc[] = {"a", "b", "c"};
    static const char *const zab[] = {"z", "a", "b"};
    char **argv = NULL, **copy, **empty;
    char buf[8];
    pmix_status_t rc;
    int n;

    CHECK(pmix_argv_count(NULL) == 0);
    PMIX_ARGV_COUNT(n, (char **) NULL);
    CHECK(n == 0);

    /* append creates the array, and stores copies */
    strcpy(buf, "a");
    CHECK(pmix_argv_append_nosize(&argv, buf) == PMIX_SUCCESS);
    buf[0] = 'X';
    CHECK(pmix_argv_append_nosize(&argv, "b") == PMIX_SUCCESS);
    PMIX_ARGV_APPEND(rc, argv, "c");
    CHECK(rc == PMIX_SUCCESS);
    CHECK(argv_is(argv, abc, 3));
    CHECK(pmix_argv_count(argv) == 3);
    PMIX_ARGV_COUNT(n, argv);
    CHECK(n == 3);

    /* unique append: an equal string is success without change */
    CHECK(pmix_argv_append_unique_nosize(&argv, "b") == PMIX_SUCCESS);
    CHECK(argv_is(argv, abc, 3));
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "c");            /* takes char *** */
    CHECK(rc == PMIX_SUCCESS && pmix_argv_count(argv) == 3);
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "d");
    CHECK(rc == PMIX_SUCCESS && pmix_argv_count(argv) == 4 && strcmp(argv[3], "d") == 0);
    pmix_argv_free(argv);
    argv = NULL;
    CHECK(pmix_argv_append_unique_nosize(&argv, "only") == PMIX_SUCCESS);
    CHECK(pmix_argv_count(argv) == 1 && strcmp(argv[0], "only") == 0);
    PMIX_ARGV_FREE(argv);

    /* prepend, onto nothing and onto something */
    argv = NULL;
    CHECK(pmix_argv_prepend_nosize(&argv, "b") == PMIX_SUCCESS);
    PMIX_ARGV_PREPEND(rc, argv, "a");
    CHECK(rc == PMIX_SUCCESS);
    CHECK(pmix_argv_prepend_nosize(&argv, "z") == PMIX_SUCCESS);
    CHECK(argv_is(argv, zab, 3));

    /* deep copy */
    copy = pmix_argv_copy(argv);
    CHECK(argv_is(copy, zab, 3));
    CHECK(copy != argv && copy != NULL && copy[0] != argv[0]);
    pmix_argv_free(argv);
    CHECK(argv_is(copy, zab, 3));                       /* survives the original */
    PMIX_ARGV_COPY(argv, copy);
    CHECK(argv_is(argv, zab, 3));
    PMIX_ARGV_FREE(argv);
    pmix_argv_free(copy);
    CHECK(pmix_argv_copy(NULL) == NULL);
    empty = (char **) pmix_calloc(1, sizeof(char *));
    copy = pmix_argv_copy(empty);                       /* empty -> empty, not NULL */
    CHECK(copy != NULL && copy[0] == NULL && pmix_argv_count(copy) == 0);
    pmix_argv_free(copy);
    pmix_argv_free(empty);
    pmix_argv_free(NULL);
    PMIX_ARGV_FREE(NULL);
}

static void test_argv_split_join(void)
{
    static const char *const ab[] = {"a", "b"};
    static const char *const a_e_b[] = {"a", "", "b"};
    static const char *const e_a[] = {"", "a"};
    static const char *const a_e[] = {"a", ""};
    static const char *const e[] = {""};
    static const char *const e_e[] = {"", ""};
    static const char *const words[] = {"one", "two", "three"};
    static const char *const round[] = {"", "x", "", "", "yz", "w"};
    char **argv;
    char *s, *big;
    size_t i;

    /* without empty fields */
    argv = pmix_argv_split("a,,b,", ',');
    CHECK(argv_is(argv, ab, 2));
    pmix_argv_free(argv);
    argv = pmix_argv_split(",,a,b", ',');
    CHECK(argv_is(argv, ab, 2));
    pmix_argv_free(argv);
    CHECK(pmix_argv_split(",,,", ',') == NULL);
    CHECK(pmix_argv_split("", ',') == NULL);
    CHECK(pmix_argv_split(NULL, ',') == NULL);
    PMIX_ARGV_SPLIT(argv, "one two three", ' ');
    CHECK(argv_is(argv, words, 3));
    PMIX_ARGV_FREE(argv);
    argv = pmix_argv_split("no delimiter here", ':');
    CHECK(argv != NULL && pmix_argv_count(argv) == 1 && strcmp(argv[0], "no delimiter here") == 0);
    pmix_argv_free(argv);

    /* with empty fields: each delimiter ends a field, but one that ends the
     * string opens none */
    argv = pmix_argv_split_with_empty("a,,b", ',');
    CHECK(argv_is(argv, a_e_b, 3));
    pmix_argv_free(argv);
    argv = pmix_argv_split_with_empty(",a,", ',');
    CHECK(argv_is(argv, e_a, 2));
    pmix_argv_free(argv);
    argv = pmix_argv_split_with_empty("a,,", ',');
    CHECK(argv_is(argv, a_e, 2));
    pmix_argv_free(argv);
    argv = pmix_argv_split_with_empty(",", ',');
    CHECK(argv_is(argv, e, 1));
    pmix_argv_free(argv);
    argv = pmix_argv_split_with_empty(",,", ',');
    CHECK(argv_is(argv, e_e, 2));
    pmix_argv_free(argv);
    CHECK(pmix_argv_split_with_empty("", ',') == NULL);
    CHECK(pmix_argv_split_with_empty(NULL, ',') == NULL);

    /* split_inter is either of the two */
    argv = pmix_argv_split_inter("a,,b", ',', true);
    CHECK(argv_is(argv, a_e_b, 3));
    pmix_argv_free(argv);
    argv = pmix_argv_split_inter("a,,b", ',', false);
    CHECK(argv_is(argv, ab, 2));
    pmix_argv_free(argv);

    /* a field much longer than any fixed buffer */
    big = (char *) pmix_malloc(5003);
    if (big != NULL) {
        memset(big, 'q', 5002);
        big[0] = ';';
        big[5002] = '\0';
        argv = pmix_argv_split(big, ';');
        CHECK(argv != NULL && pmix_argv_count(argv) == 1 && strlen(argv[0]) == 5001);
        pmix_argv_free(argv);
        pmix_free(big);
    }

    /* join */
    s = pmix_argv_join(NULL, ',');
    CHECK(s != NULL && s[0] == '\0');
    pmix_free(s);
    argv = (char **) pmix_calloc(1, sizeof(char *));
    s = pmix_argv_join(argv, ',');
    CHECK(s != NULL && s[0] == '\0');
    pmix_free(s);
    pmix_argv_free(argv);
    argv = pmix_argv_split_with_empty("a,,b", ',');
    PMIX_ARGV_JOIN(s, argv, ':');
    CHECK(s != NULL && strcmp(s, "a::b") == 0);
    pmix_free(s);
    pmix_argv_free(argv);
    argv = NULL;
    (void) pmix_argv_append_nosize(&argv, "a");
    (void) pmix_argv_append_nosize(&argv, "");
    s = pmix_argv_join(argv, ',');
    CHECK(s != NULL && strcmp(s, "a,") == 0);
    pmix_free(s);
    pmix_argv_free(argv);

    /* round trips: join(split(s)) == s, split(join(v)) == v */
    {
        static const char *const strs[] = {"a,b,c", "x", ",lead", "mid,,dle", ",,x,,y"};
        for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
            argv = pmix_argv_split_with_empty(strs[i], ',');
            s = pmix_argv_join(argv, ',');
            CHECK(s != NULL && strcmp(s, strs[i]) == 0);
            pmix_free(s);
            pmix_argv_free(argv);
        }
    }
    argv = NULL;
    for (i = 0; i < sizeof(round) / sizeof(round[0]); i++)
        (void) pmix_argv_append_nosize(&argv, round[i]);
    s = pmix_argv_join(argv, '|');
    pmix_argv_free(argv);
    argv = pmix_argv_split_with_empty(s, '|');
    CHECK(argv_is(argv, round, (int) (sizeof(round) / sizeof(round[0]))));
    pmix_argv_free(argv);
    argv = pmix_argv_split(s, '|');
    CHECK(pmix_argv_count(argv) == 3);                  /* x yz w */
    pmix_argv_free(argv);
    pmix_free(s);
}

static void test_setenv(void)
{
    static const char *const a1[] = {"A=1"};
    static const char *const a1_ab2[] = {"A=1", "AB=2"};
    static const char *const a3_ab2[] = {"A=3", "AB=2"};
    static const char *const a3_ab2_e[] = {"A=3", "AB=2", "E="};
    char **env = NULL;
    char *longval;
    pmix_status_t rc;

    /* a NULL env becomes a new array */
    CHECK(pmix_setenv("A", "1", false, &env) == PMIX_SUCCESS);
    CHECK(argv_is(env, a1, 1));
    /* "A" is not a prefix match for "AB" */
    CHECK(pmix_setenv("AB", "2", false, &env) == PMIX_SUCCESS);
    CHECK(argv_is(env, a1_ab2, 2));
    /* without overwrite: EXISTS, unchanged */
    CHECK(pmix_setenv("A", "3", false, &env) == PMIX_ERR_EXISTS);
    CHECK(argv_is(env, a1_ab2, 2));
    /* with overwrite: replaced in place */
    CHECK(pmix_setenv("A", "3", true, &env) == PMIX_SUCCESS);
    CHECK(argv_is(env, a3_ab2, 2));
    /* a NULL value stores "NAME=" */
    CHECK(pmix_setenv("E", NULL, false, &env) == PMIX_SUCCESS);
    CHECK(argv_is(env, a3_ab2_e, 3));
    /* PMIX_SETENV always overwrites */
    PMIX_SETENV(rc, "AB", "x", &env);
    CHECK(rc == PMIX_SUCCESS && strcmp(env[1], "AB=x") == 0 && pmix_argv_count(env) == 3);
    PMIX_SETENV(rc, "F", "y", &env);
    CHECK(rc == PMIX_SUCCESS && strcmp(env[3], "F=y") == 0 && pmix_argv_count(env) == 4);
    /* no env at all, or a value with no terminator in the first 100000 bytes */
    CHECK(pmix_setenv("A", "1", true, NULL) == PMIX_ERR_BAD_PARAM);
    longval = (char *) pmix_malloc(100001);
    if (longval != NULL) {
        memset(longval, 'v', 100000);
        longval[100000] = '\0';
        CHECK(pmix_setenv("L", longval, true, &env) == PMIX_ERR_BAD_PARAM);
        CHECK(pmix_argv_count(env) == 4);
        pmix_free(longval);
    }
    PMIX_ARGV_FREE(env);
    /* nor is "AB=" an entry for "A" when it comes first */
    env = NULL;
    CHECK(pmix_setenv("AB", "2", false, &env) == PMIX_SUCCESS);
    CHECK(pmix_setenv("A", "1", false, &env) == PMIX_SUCCESS);
    CHECK(pmix_argv_count(env) == 2 && strcmp(env[0], "AB=2") == 0 && strcmp(env[1], "A=1") == 0);
    PMIX_ARGV_FREE(env);

    /* the process environment goes through setenv/unsetenv */
    CHECK(pmix_setenv("SPX_IT_HELPERS_VAR", "v1", true, &environ) == PMIX_SUCCESS);
    CHECK(getenv("SPX_IT_HELPERS_VAR") != NULL && strcmp(getenv("SPX_IT_HELPERS_VAR"), "v1") == 0);
    CHECK(pmix_setenv("SPX_IT_HELPERS_VAR", "v2", false, &environ) == PMIX_SUCCESS);
    CHECK(strcmp(getenv("SPX_IT_HELPERS_VAR"), "v1") == 0);
    PMIX_SETENV(rc, "SPX_IT_HELPERS_VAR", "v3", &environ);
    CHECK(rc == PMIX_SUCCESS && strcmp(getenv("SPX_IT_HELPERS_VAR"), "v3") == 0);
    CHECK(pmix_setenv("SPX_IT_HELPERS_VAR", NULL, true, &environ) == PMIX_SUCCESS);
    CHECK(getenv("SPX_IT_HELPERS_VAR") == NULL);
}

static void test_check_true(void)
{
    static const struct {
        const char *s;
        pmix_boolean_t want;
    } cases[] = {
        {"true", PMIX_BOOL_TRUE},   {"TRUE", PMIX_BOOL_TRUE},   {"True", PMIX_BOOL_TRUE},
        {"yes", PMIX_BOOL_TRUE},    {"YES", PMIX_BOOL_TRUE},    {"1", PMIX_BOOL_TRUE},
        {"42", PMIX_BOOL_TRUE},     {"  1", PMIX_BOOL_TRUE},    {"\t yes", PMIX_BOOL_TRUE},
        {"yesterday", PMIX_BOOL_TRUE},                          /* a prefix is enough */
        {"", PMIX_BOOL_TRUE},       {"   ", PMIX_BOOL_TRUE},    /* present, empty */
        {"false", PMIX_BOOL_FALSE}, {"FALSE", PMIX_BOOL_FALSE}, {"no", PMIX_BOOL_FALSE},
        {"No", PMIX_BOOL_FALSE},    {"0", PMIX_BOOL_FALSE},     {"00", PMIX_BOOL_FALSE},
        {" 0", PMIX_BOOL_FALSE},    {"none", PMIX_BOOL_FALSE},
        {"maybe", PMIX_NON_BOOL},   {"t", PMIX_NON_BOOL},       {"f", PMIX_NON_BOOL},
        {"y", PMIX_NON_BOOL},       {"on", PMIX_NON_BOOL},      {"off", PMIX_NON_BOOL},
        {"-1", PMIX_NON_BOOL},      {"x1", PMIX_NON_BOOL},
    };
    pmix_value_t v;
    pmix_info_t info;
    size_t i;

    PMIX_VALUE_CONSTRUCT(&v);                           /* UNDEF: key present = true */
    CHECK(pmix_check_true(&v) == PMIX_BOOL_TRUE);
    CHECK(PMIX_CHECK_TRUE(&v) && PMIX_CHECK_BOOL(&v));
    v.type = PMIX_BOOL;
    v.data.flag = true;
    CHECK(pmix_check_true(&v) == PMIX_BOOL_TRUE && PMIX_CHECK_TRUE(&v));
    v.data.flag = false;
    CHECK(pmix_check_true(&v) == PMIX_BOOL_FALSE && !PMIX_CHECK_TRUE(&v) && PMIX_CHECK_BOOL(&v));
    v.type = PMIX_STRING;
    v.data.string = NULL;
    CHECK(pmix_check_true(&v) == PMIX_BOOL_TRUE);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        v.type = PMIX_STRING;
        v.data.string = (char *) cases[i].s;
        if (pmix_check_true(&v) != cases[i].want)
            fprintf(stderr, "check_true case %u: got %d, want %d\n", (unsigned) i,
                    (int) pmix_check_true(&v), (int) cases[i].want);
        CHECK(pmix_check_true(&v) == cases[i].want);
        CHECK(!!PMIX_CHECK_TRUE(&v) == (cases[i].want == PMIX_BOOL_TRUE));
        CHECK(!!PMIX_CHECK_BOOL(&v) == (cases[i].want != PMIX_NON_BOOL));
    }
    v.type = PMIX_INT;                                  /* numbers are not booleans */
    v.data.integer = 1;
    CHECK(pmix_check_true(&v) == PMIX_NON_BOOL && !PMIX_CHECK_TRUE(&v) && !PMIX_CHECK_BOOL(&v));

    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, "my.flag", NULL, PMIX_UNDEF);
    info.value.type = PMIX_UNDEF;
    CHECK(PMIX_INFO_TRUE(&info));
    PMIX_INFO_LOAD(&info, "my.flag", "no", PMIX_STRING);
    CHECK(!PMIX_INFO_TRUE(&info));
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, "my.flag", "yes", PMIX_STRING);
    CHECK(PMIX_INFO_TRUE(&info));
    PMIX_INFO_DESTRUCT(&info);
}

/* fill one app with every owned field */
static void fill_app(pmix_app_t *app)
{
    pmix_status_t rc;
    app->cmd = dup_str("/bin/true");
    PMIX_ARGV_APPEND(rc, app->argv, "true");
    PMIX_ARGV_APPEND(rc, app->argv, "-v");
    PMIX_SETENV(rc, "APPVAR", "1", &app->env);
    (void) rc;
    app->cwd = dup_str("/tmp");
    app->maxprocs = 2;
    PMIX_APP_INFO_CREATE(app, 2);
    PMIX_INFO_LOAD(&app->info[0], "k0", "v0", PMIX_STRING);
    PMIX_INFO_LOAD(&app->info[1], "k1", "v1", PMIX_STRING);
}

static void test_app_pdata(void)
{
    pmix_app_t *apps = NULL, *one = NULL;
    pmix_pdata_t *pd = NULL, *p1 = NULL;
    pmix_proc_t proc;
    size_t k;

    /* pmix_app_free destructs the elements and keeps the array */
    PMIX_APP_CREATE(apps, 2);
    CHECK(apps != NULL);
    if (apps == NULL)
        return;
    fill_app(&apps[0]);
    fill_app(&apps[1]);
    pmix_app_free(apps, 2);
    for (k = 0; k < 2; k++)
        CHECK(apps[k].cmd == NULL && apps[k].argv == NULL && apps[k].env == NULL &&
              apps[k].cwd == NULL && apps[k].info == NULL && apps[k].ninfo == 0);
    fill_app(&apps[0]);                                 /* still ours to use */
    PMIX_APP_DESTRUCT(&apps[0]);
    CHECK(apps[0].cmd == NULL && apps[0].info == NULL);
    pmix_free(apps);
    pmix_app_free(NULL, 3);
    /* the macros free the array and clear the pointer */
    PMIX_APP_CREATE(apps, 3);
    if (apps != NULL) {
        fill_app(&apps[0]);
        fill_app(&apps[2]);
    }
    PMIX_APP_FREE(apps, 3);
    CHECK(apps == NULL);
    PMIX_APP_CREATE(one, 1);
    if (one != NULL)
        fill_app(one);
    PMIX_APP_RELEASE(one);
    CHECK(one == NULL);

    /* published data */
    PMIX_LOAD_PROCID(&proc, "job.9", 1);
    PMIX_PDATA_CREATE(pd, 2);
    CHECK(pd != NULL);
    if (pd == NULL)
        return;
    PMIX_PDATA_LOAD(&pd[0], &proc, "k.str", "value", PMIX_STRING);
    PMIX_PDATA_LOAD(&pd[1], &proc, "k.str2", "other", PMIX_STRING);
    CHECK(strcmp(pd[0].key, "k.str") == 0 && pd[0].value.type == PMIX_STRING);
    pmix_pdata_free(pd, 2);
    PMIX_PDATA_LOAD(&pd[0], &proc, "again", "v", PMIX_STRING); /* the array is still ours */
    PMIX_PDATA_DESTRUCT(&pd[0]);
    pmix_free(pd);
    pmix_pdata_free(NULL, 1);
    PMIX_PDATA_CREATE(pd, 2);
    if (pd != NULL)
        PMIX_PDATA_LOAD(&pd[1], &proc, "k", "v", PMIX_STRING);
    PMIX_PDATA_FREE(pd, 2);
    CHECK(pd == NULL);
    PMIX_PDATA_CREATE(p1, 1);
    if (p1 != NULL)
        PMIX_PDATA_LOAD(p1, &proc, "k", "v", PMIX_STRING);
    PMIX_PDATA_RELEASE(p1);
    CHECK(p1 == NULL);
}

static void fill_disks(pmix_node_stats_t *nd)
{
    PMIX_DISK_STATS_CREATE(nd->diskstats, 2);
    nd->ndiskstats = 2;
    if (nd->diskstats != NULL) {
        nd->diskstats[0].disk = dup_str("sda");
        nd->diskstats[1].disk = dup_str("sdb");
    }
    PMIX_NET_STATS_CREATE(nd->netstats, 1);
    nd->nnetstats = 1;
    if (nd->netstats != NULL)
        nd->netstats[0].net_interface = dup_str("eth0");
}

static void test_stats(void)
{
    pmix_proc_stats_t *ps = NULL;
    pmix_disk_stats_t *ds = NULL;
    pmix_net_stats_t *ns = NULL;
    pmix_node_stats_t *nd = NULL;

    PMIX_PROC_STATS_CREATE(ps, 2);
    CHECK(ps != NULL);
    if (ps != NULL) {
        ps[0].node = dup_str("n0");
        ps[0].cmd = dup_str("a.out");
        ps[1].cmd = dup_str("b.out");
        pmix_proc_stats_free(ps, 2);
        CHECK(ps[0].node == NULL && ps[0].cmd == NULL && ps[1].cmd == NULL);
        ps[1].node = dup_str("n1");                     /* the array is still ours */
        PMIX_PROC_STATS_DESTRUCT(&ps[1]);
        CHECK(ps[1].node == NULL);
        pmix_free(ps);
    }
    pmix_proc_stats_free(NULL, 2);
    PMIX_PROC_STATS_CREATE(ps, 2);
    if (ps != NULL)
        ps[1].cmd = dup_str("c");
    PMIX_PROC_STATS_FREE(ps, 2);
    CHECK(ps == NULL);
    PMIX_PROC_STATS_CREATE(ps, 1);
    if (ps != NULL)
        ps->node = dup_str("n");
    PMIX_PROC_STATS_RELEASE(ps);
    CHECK(ps == NULL);

    PMIX_DISK_STATS_CREATE(ds, 2);
    if (ds != NULL) {
        ds[0].disk = dup_str("sda");
        ds[1].disk = dup_str("sdb");
        pmix_disk_stats_free(ds, 2);
        CHECK(ds[0].disk == NULL && ds[1].disk == NULL);
        pmix_free(ds);
    }
    pmix_disk_stats_free(NULL, 1);
    PMIX_DISK_STATS_CREATE(ds, 1);
    if (ds != NULL)
        ds->disk = dup_str("sdc");
    PMIX_DISK_STATS_FREE(ds, 1);
    CHECK(ds == NULL);
    PMIX_DISK_STATS_CREATE(ds, 1);
    PMIX_DISK_STATS_RELEASE(ds);
    CHECK(ds == NULL);

    PMIX_NET_STATS_CREATE(ns, 2);
    if (ns != NULL) {
        ns[0].net_interface = dup_str("eth0");
        ns[1].net_interface = dup_str("ib0");
        pmix_net_stats_free(ns, 2);
        CHECK(ns[0].net_interface == NULL && ns[1].net_interface == NULL);
        pmix_free(ns);
    }
    pmix_net_stats_free(NULL, 1);
    PMIX_NET_STATS_CREATE(ns, 1);
    if (ns != NULL)
        ns->net_interface = dup_str("lo");
    PMIX_NET_STATS_FREE(ns, 1);
    CHECK(ns == NULL);
    PMIX_NET_STATS_CREATE(ns, 1);
    PMIX_NET_STATS_RELEASE(ns);
    CHECK(ns == NULL);

    /* node stats own their disk and net arrays */
    PMIX_NODE_STATS_CREATE(nd, 2);
    CHECK(nd != NULL);
    if (nd != NULL) {
        nd[0].node = dup_str("node0");
        fill_disks(&nd[0]);
        fill_disks(&nd[1]);
        pmix_node_stats_free(nd, 2);
        CHECK(nd[0].node == NULL && nd[0].diskstats == NULL && nd[0].netstats == NULL);
        CHECK(nd[1].diskstats == NULL && nd[1].netstats == NULL);
        pmix_free(nd);
    }
    pmix_node_stats_free(NULL, 1);
    PMIX_NODE_STATS_CREATE(nd, 2);
    if (nd != NULL)
        fill_disks(&nd[1]);
    PMIX_NODE_STATS_FREE(nd, 2);
    CHECK(nd == NULL);
    /* PMIx v4's PMIX_NODE_STATS_RELEASE destructs the element only: the
     * struct itself stays the caller's to free */
    PMIX_NODE_STATS_CREATE(nd, 1);
    if (nd != NULL) {
        nd->node = dup_str("node1");
        fill_disks(nd);
        PMIX_NODE_STATS_RELEASE(nd);
        CHECK(nd != NULL && nd->node == NULL && nd->diskstats == NULL && nd->netstats == NULL);
        PMIX_NODE_STATS_DESTRUCT(nd);                   /* again: nothing left to free */
        pmix_free(nd);
    }
}

#ifdef SPMIX_H
/* Where OpenPMIx 4.2 dereferences a NULL, our headers answer instead. */
static void test_spmix_null_args(void)
{
    char **argv = NULL;
    char **env = NULL;
    char dst[4] = "zzz";
    CHECK(pmix_argv_append_nosize(&argv, NULL) == PMIX_ERR_BAD_PARAM && argv == NULL);
    CHECK(pmix_argv_prepend_nosize(&argv, NULL) == PMIX_ERR_BAD_PARAM && argv == NULL);
    CHECK(pmix_argv_append_unique_nosize(&argv, NULL) == PMIX_ERR_BAD_PARAM);
    CHECK(pmix_argv_append_nosize(NULL, "x") == PMIX_ERR_BAD_PARAM);
    CHECK(pmix_setenv(NULL, "v", true, &env) == PMIX_ERR_BAD_PARAM && env == NULL);
    pmix_strncpy(dst, NULL, 3);
    CHECK(dst[0] == '\0');
}
#endif

int main(void)
{
#if defined(PMIX_HAVE_VISIBILITY)
    CHECK(PMIX_HAVE_VISIBILITY == 1);
#else
    CHECK(!"PMIX_HAVE_VISIBILITY is defined");
#endif
    test_memory();
    test_strings();
    test_argv_build();
    test_argv_split_join();
    test_setenv();
    test_check_true();
    test_app_pdata();
    test_stats();
#ifdef SPMIX_H
    test_spmix_null_args();
    printf("it_helpers: headers: spmix\n");
#else
    printf("it_helpers: headers: not spmix (PMIx v4 semantics only)\n");
#endif
    if (failures > 0) {
        fprintf(stderr, "it_helpers: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("it_helpers: all %d checks passed\n", checks);
    return 0;
}
