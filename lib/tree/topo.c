/* topo.c - the shape of Slurm's reverse tree, computed from a position alone.
 *
 * Facts (the shape, not the code, follow Slurm's src/common/reverse_tree.c):
 * positions 0..n-1 are the nodes of a complete tree of width w laid out in
 * pre-order. The tree's depth D is the smallest D with S(D) >= n, where
 * S(h) = 1 + w + ... + w^h is the size of a full subtree of height h. A node
 * at level l roots a (possibly truncated) subtree of height D - l; its
 * children sit at pos + 1 + k * S(D - l - 1) for k = 0..w-1, as long as that
 * is < n. Consequently every subtree is a contiguous range of positions.
 * Unlike Slurm, a width >= n is not special: it gives a star (root + leaves).
 * w == 0 means SPX_TREE_DEFAULT_WIDTH; w == 1 is a chain.
 */
#include "tree/tree.h"

static uint32_t norm_width(uint32_t w) { return w ? w : SPX_TREE_DEFAULT_WIDTH; }

/* Size of a full subtree of height h; only called with results < 2^33. */
static uint64_t full_size(uint32_t h, uint32_t w)
{
    uint64_t s = 1, p = 1;
    for (uint32_t i = 0; i < h; i++) {
        p *= w;
        s += p;
    }
    return s;
}

uint32_t spx_tree_topo_depth(uint32_t n, uint32_t w)
{
    w = norm_width(w);
    uint32_t d = 0;
    uint64_t s = 1, p = 1;
    while (s < n) {
        p *= w;
        s += p;
        d++;
    }
    return d;
}

/* Walks from the root to pos. Returns pos's level; *parent gets its parent
 * (-1 for the root) and *height the height of the full subtree it roots. */
static uint32_t descend(uint32_t pos, uint32_t n, uint32_t w, long *parent, uint32_t *height)
{
    uint32_t h = spx_tree_topo_depth(n, w);
    uint64_t r = 0;
    uint32_t level = 0;
    long par = -1;
    while (r != pos) {
        uint64_t s = full_size(h - 1, w); /* h > 0 here: pos lies below r */
        uint64_t k = (pos - r - 1) / s;
        par = (long)r;
        r = r + 1 + k * s;
        h--;
        level++;
    }
    if (parent)
        *parent = par;
    if (height)
        *height = h;
    return level;
}

long spx_tree_topo_parent(uint32_t pos, uint32_t n, uint32_t w)
{
    if (pos == 0 || pos >= n)
        return -1;
    long par;
    descend(pos, n, norm_width(w), &par, NULL);
    return par;
}

uint32_t spx_tree_topo_children(uint32_t pos, uint32_t n, uint32_t w, uint32_t *out)
{
    w = norm_width(w);
    if (pos >= n)
        return 0;
    uint32_t h;
    descend(pos, n, w, NULL, &h);
    if (h == 0)
        return 0;
    uint64_t s = full_size(h - 1, w);
    uint32_t cnt = 0;
    for (uint64_t c = (uint64_t)pos + 1; cnt < w && c < n; c += s)
        out[cnt++] = (uint32_t)c;
    return cnt;
}

uint32_t spx_tree_topo_level(uint32_t pos, uint32_t n, uint32_t w)
{
    if (pos >= n)
        return 0;
    return descend(pos, n, norm_width(w), NULL, NULL);
}

uint32_t spx_tree_topo_subtree_size(uint32_t pos, uint32_t n, uint32_t w)
{
    w = norm_width(w);
    if (pos >= n)
        return 0;
    uint32_t h;
    descend(pos, n, w, NULL, &h);
    uint64_t s = full_size(h, w);
    if (pos + s > n)
        s = n - pos;
    return (uint32_t)s;
}
