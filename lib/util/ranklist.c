/* ranklist.c - rank lists through hwloc bitmaps (see ranklist.h).
 *
 * hwloc_bitmap_list_sscanf is forgiving: it skips spaces, reads numbers in
 * any C base, and ignores stray characters. A rank list in PMIx job info has
 * decimal digits, commas and dashes only, every dash between two digits;
 * no number starts with 0 unless it is 0; anything else is refused before
 * hwloc sees it, so that a damaged string is
 * reported rather than read as some other set (and "1--2" cannot become a
 * range reaching 2^32). */
#include "util/ranklist.h"

#include <string.h>

static int well_formed(const char *s)
{
    size_t n = strlen(s);
    if (strspn(s, "0123456789,-") != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int starts = i == 0 || s[i - 1] < '0' || s[i - 1] > '9';
        int digit_next = s[i + 1] >= '0' && s[i + 1] <= '9';
        if (s[i] == '-' && (starts || !digit_next))
            return 0;
        if (s[i] == '0' && starts && digit_next) /* "010": hwloc would read octal */
            return 0;
    }
    return 1;
}

hwloc_bitmap_t spx_ranklist_parse(const char *s, unsigned max)
{
    if (s == NULL || !well_formed(s))
        return NULL;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set == NULL)
        return NULL;
    if (hwloc_bitmap_list_sscanf(set, s) != 0) {
        hwloc_bitmap_free(set);
        return NULL;
    }
    int w = hwloc_bitmap_weight(set); /* -1 when infinite */
    if (w < 0 || (unsigned)w > max) {
        hwloc_bitmap_free(set);
        return NULL;
    }
    return set;
}

unsigned spx_ranklist_below(hwloc_const_bitmap_t set, unsigned rank)
{
    unsigned below = 0;
    unsigned r;
    hwloc_bitmap_foreach_begin(r, set)
    {
        if (r >= rank)
            break;
        below++;
    }
    hwloc_bitmap_foreach_end();
    return below;
}
