/*
 * apps.c - the step's applications (format in apps.h): the run-length text
 * form srun hands to the slurmstepds, and the parser of --multi-prog
 * configuration files that srun feeds it from.
 *
 * Decoding is strict like layout.c: numbers bounded, the runs must add up
 * to the step's size, every app number below the count must be used.
 */
#include "config.h"
#include "plugin/apps.h"
#include "plugin/layout.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPX_PLG_APPS_MAX_TASKS (1u << 22)

char *spx_plg_apps_encode(const uint32_t *app_of, uint32_t ntasks)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    uint32_t i = 0;

    if (s == NULL)
        return NULL;
    s[0] = '\0';
    while (i < ntasks) {
        uint32_t j = i + 1;
        char tmp[32];
        int n;
        while (j < ntasks && app_of[j] == app_of[i])
            j++;
        n = snprintf(tmp, sizeof(tmp), "%s%u*%u", i ? "," : "", app_of[i], j - i);
        if (len + (size_t)n + 1 > cap) {
            char *t;
            while (len + (size_t)n + 1 > cap)
                cap *= 2;
            if ((t = realloc(s, cap)) == NULL) {
                free(s);
                return NULL;
            }
            s = t;
        }
        memcpy(s + len, tmp, (size_t)n + 1);
        len += (size_t)n;
        i = j;
    }
    return s;
}

/* Every app 0..napps-1 has a rank. */
static bool spx_plg_apps_dense(const uint32_t *app_of, uint32_t ntasks, uint32_t napps)
{
    unsigned char *used = calloc(napps, 1);
    bool ok = used != NULL;

    for (uint32_t r = 0; ok && r < ntasks; r++)
        used[app_of[r]] = 1;
    for (uint32_t a = 0; ok && a < napps; a++)
        ok = used[a] != 0;
    free(used);
    return ok;
}

int spx_plg_apps_decode(const char *s, uint32_t ntasks, uint32_t **app_of, uint32_t *napps,
                        const char **why)
{
    const char *p = s;
    uint32_t *a, r = 0, max = 0;

    *app_of = NULL;
    *why = "malformed application list";
    if (s == NULL || ntasks == 0 || ntasks > SPX_PLG_APPS_MAX_TASKS)
        return -1;
    if ((a = malloc((size_t)ntasks * sizeof(*a))) == NULL) {
        *why = "out of memory";
        return -1;
    }
    for (;;) {
        uint32_t app, cnt;
        if (!spx_plg_num(&p, &app) || *p++ != '*' || !spx_plg_num(&p, &cnt) ||
            cnt == 0 || app >= ntasks)
            goto fail;
        if (cnt > ntasks - r) {
            *why = "the application list has more ranks than the step";
            goto fail;
        }
        for (uint32_t k = 0; k < cnt; k++)
            a[r++] = app;
        if (app > max)
            max = app;
        if (*p == '\0')
            break;
        if (*p++ != ',')
            goto fail;
    }
    if (r != ntasks) {
        *why = "the application list has fewer ranks than the step";
        goto fail;
    }
    if (!spx_plg_apps_dense(a, ntasks, max + 1)) {
        *why = "an application of the list has no rank";
        goto fail;
    }
    *app_of = a;
    *napps = max + 1;
    return 0;
fail:
    free(a);
    return -1;
}

/* Assigns the ranks of spec ("*" or "a,b-c") to app; 0 or -1 (*why). */
static int spx_plg_apps_assign(const char *spec, size_t len, uint32_t ntasks, uint32_t *a,
                               uint32_t app, uint32_t *got, const char **why)
{
    const char *p = spec, *end = spec + len;

    *got = 0;
    if (len == 1 && spec[0] == '*') {
        for (uint32_t r = 0; r < ntasks; r++)
            if (a[r] == UINT32_MAX) {
                a[r] = app;
                (*got)++;
            }
        return 0;
    }
    while (p < end) {
        uint32_t lo, hi;
        if (!spx_plg_num(&p, &lo))
            goto bad;
        hi = lo;
        if (p < end && *p == '-') {
            p++;
            if (!spx_plg_num(&p, &hi) || hi < lo)
                goto bad;
        }
        if (hi >= ntasks) {
            *why = "a line names a rank outside the step";
            return -1;
        }
        for (uint32_t r = lo; r <= hi; r++) {
            if (a[r] != UINT32_MAX) {
                *why = "a rank is named on two lines";
                return -1;
            }
            a[r] = app;
            (*got)++;
        }
        if (p < end && *p++ != ',')
            goto bad;
    }
    if (p != end)
        goto bad;
    return 0;
bad:
    *why = "a line has a malformed rank list";
    return -1;
}

int spx_plg_apps_from_multiprog(const char *text, uint32_t ntasks, uint32_t **app_of,
                                uint32_t *napps, const char **why)
{
    const char *p = text;
    uint32_t *a, app = 0;
    bool continued = false;

    *app_of = NULL;
    *why = "out of memory";
    if (text == NULL || ntasks == 0 || ntasks > SPX_PLG_APPS_MAX_TASKS) {
        *why = "no configuration or impossible step size";
        return -1;
    }
    if ((a = malloc((size_t)ntasks * sizeof(*a))) == NULL)
        return -1;
    for (uint32_t r = 0; r < ntasks; r++)
        a[r] = UINT32_MAX;
    while (*p != '\0') {
        const char *nl = strchr(p, '\n'), *eol = nl ? nl : p + strlen(p), *q = p, *spec;
        bool was_continued = continued;
        size_t speclen;
        uint32_t got;

        /* a line ending in "\" continues on the next one */
        continued = eol > p && eol[-1] == '\\';
        if (!was_continued) {
            while (q < eol && isspace((unsigned char)*q))
                q++;
            if (q < eol && *q != '#') {
                spec = q;
                while (q < eol && !isspace((unsigned char)*q))
                    q++;
                speclen = (size_t)(q - spec);
                while (q < eol && isspace((unsigned char)*q))
                    q++;
                if (q == eol || *q == '\\') {
                    *why = "a line names no program";
                    goto fail;
                }
                if (spx_plg_apps_assign(spec, speclen, ntasks, a, app, &got, why) != 0)
                    goto fail;
                if (got > 0)
                    app++;
            }
        }
        p = nl ? nl + 1 : eol;
    }
    for (uint32_t r = 0; r < ntasks; r++)
        if (a[r] == UINT32_MAX) {
            *why = "a rank of the step is on no line";
            goto fail;
        }
    *app_of = a;
    *napps = app;
    return 0;
fail:
    free(a);
    return -1;
}

/* The groups of a --het-group list "0,2-3": 3. At least 1. */
static uint32_t spx_plg_apps_group_count(const char *list)
{
    const char *p = list;
    uint32_t n = 0;

    while (*p) {
        uint32_t lo, hi;
        if (!spx_plg_num(&p, &lo))
            return n ? n : 1;
        hi = lo;
        if (*p == '-') {
            p++;
            if (!spx_plg_num(&p, &hi) || hi < lo)
                return n ? n : 1;
        }
        n += hi - lo + 1;
        if (*p == ',')
            p++;
        else
            break;
    }
    return n ? n : 1;
}

uint32_t spx_plg_apps_het_count(int argc, char *const *argv)
{
    uint32_t total = 0, seg = 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, ":") == 0) {
            total += seg;
            seg = 1;
        } else if (strncmp(a, "--het-group=", 12) == 0) {
            seg = spx_plg_apps_group_count(a + 12);
        } else if (strcmp(a, "--het-group") == 0 && i + 1 < argc) {
            seg = spx_plg_apps_group_count(argv[++i]);
        }
    }
    return total + seg;
}

/* The whole of a regular file of at most 60000 bytes; NULL otherwise. */
static char *spx_plg_apps_slurp(const char *path)
{
    FILE *f = fopen(path, "re");
    char *buf;
    size_t n;

    if (f == NULL)
        return NULL;
    buf = malloc(60001);
    n = buf ? fread(buf, 1, 60001, f) : 0;
    fclose(f);
    if (buf == NULL || n > 60000) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

int spx_plg_apps_find_multiprog(int argc, char *const *argv, uint32_t ntasks,
                                uint32_t **app_of, uint32_t *napps)
{
    int i;

    for (i = 1; i < argc && strcmp(argv[i], "--multi-prog") != 0; i++)
        ;
    for (i++; i < argc; i++) {
        const char *why;
        char *text;
        int rc;
        if (argv[i][0] == '-')
            continue;
        if ((text = spx_plg_apps_slurp(argv[i])) == NULL)
            continue;
        rc = spx_plg_apps_from_multiprog(text, ntasks, app_of, napps, &why);
        free(text);
        if (rc == 0)
            return 0;
    }
    return -1;
}
