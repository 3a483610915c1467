/*
 * layout.h - which global task ids (PMIx ranks) run on which node of a step,
 * carried from srun to every slurmstepd in one environment variable.
 *
 * srun knows the real placement (step_layout->tids, whatever the
 * distribution); a slurmstepd only sees its own tasks. The text form lists
 * the nodes in step order, separated by ';'; each node is a ','-separated
 * list of items "a", "a-b" (a..b) or "a-b:s" (a, a+s, ..., b). Block and
 * cyclic placements take one item per node.
 *     block, 3 nodes x 2:   "0-1;2-3;4-5"       cyclic: "0-3:3;1-4:3;2-5:3"
 */
#ifndef SPX_PLG_LAYOUT_H
#define SPX_PLG_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPX_PLG_MAP_MAX_TASKS (1u << 22)
#define SPX_PLG_MAP_MAX_LEN (64u << 20)

struct spx_plg_map {
    uint32_t nnodes, ntasks;
    uint32_t *count;          /* [nnodes] ranks per node */
    uint32_t **ranks;         /* [nnodes][count[i]] ascending */
};

/* Text form of tasks/tids (nnodes entries each, borrowed). NULL on ENOMEM.
 * Caller frees the result with free(). */
char *spx_plg_map_encode(uint32_t nnodes, const uint16_t *tasks, uint32_t *const *tids);

/* Parses s (borrowed) for a step of nnodes nodes and ntasks tasks: every rank
 * 0..ntasks-1 must appear exactly once, every node at least once. On 0 *m
 * is filled (free with spx_plg_map_free); on -1 *why (static text) says why. */
int spx_plg_map_decode(const char *s, uint32_t nnodes, uint32_t ntasks,
                       struct spx_plg_map *m, const char **why);

/* The block placement from Slurm's tasks-per-node form "2(x3),1". */
int spx_plg_map_from_tpn(const char *tpn, uint32_t nnodes, uint32_t ntasks,
                         struct spx_plg_map *m, const char **why);

void spx_plg_map_free(struct spx_plg_map *m);

/* Parses an unsigned decimal < 2^32 at *p, advancing it past the digits;
 * false (nothing moved) when there is none or it overflows. Shared with the
 * application map's parser (apps.c). */
bool spx_plg_num(const char **p, uint32_t *out);

#endif
