/* test_run_proto.c - what spmix-run's launcher and node daemons agree on
 * (tools/run_proto.c) at every node count spmix-run takes:
 *   - node addresses: 127.0.(k/254).(k%254+1); nodes 0..253 keep
 *     127.0.0.(k+1), node 254 is 127.0.1.1, node 4095 127.0.16.32; all
 *     distinct, all in 127.0.0.0/8, none ending in .0 or .255;
 *   - a node's ranks (computed directly) and their count are exactly the
 *     ranks spx_run_node_of places there, in order, for block and cyclic,
 *     over a spread of rank and node counts up to 4096.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/run_node.h"

START_TEST(addresses)
{
    static const struct { uint32_t node; const char *want; } known[] = {
        { 0, "127.0.0.1:7" },     { 1, "127.0.0.2:7" },     { 253, "127.0.0.254:7" },
        { 254, "127.0.1.1:7" },   { 507, "127.0.1.254:7" }, { 508, "127.0.2.1:7" },
        { 1023, "127.0.4.8:7" },  { 4095, "127.0.16.32:7" },
    };
    unsigned char *seen = calloc(1u << 24, 1);
    char buf[32];

    ck_assert_ptr_nonnull(seen);
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        spx_run_node_addr(known[i].node, 7, buf, sizeof(buf));
        ck_assert_str_eq(buf, known[i].want);
    }
    for (uint32_t k = 0; k < SPX_RUN_MAX_NODES; k++) {
        uint32_t ip = spx_run_node_ip(k);
        ck_assert_uint_eq(ip >> 24, 127);
        ck_assert_uint_ne(ip & 0xff, 0);
        ck_assert_uint_ne(ip & 0xff, 255);
        ck_assert_msg(!seen[ip & 0xffffff], "node %u shares an address", k);
        seen[ip & 0xffffff] = 1;
    }
    free(seen);
}
END_TEST

/* Node ranks and counts against the rank-by-rank placement. */
static void check_layout(uint32_t n, uint32_t nodes, bool cyclic)
{
    struct spx_run_opts o = { .n = n, .nodes = nodes, .cyclic = cyclic };
    uint32_t *got = calloc(n, sizeof(*got)), *next = calloc(nodes, sizeof(*next));

    ck_assert_ptr_nonnull(got);
    ck_assert_ptr_nonnull(next);
    for (uint32_t k = 0; k < nodes; k++) {
        uint32_t c = spx_run_node_ranks(&o, k, got);
        ck_assert_uint_eq(c, spx_run_node_count(&o, k));
        ck_assert_uint_ge(c, 1);
        for (uint32_t i = 0; i < c; i++) {
            ck_assert_uint_lt(got[i], n);
            ck_assert_msg(spx_run_node_of(&o, got[i]) == k, "n %u nodes %u %s: rank %u on node %u",
                          n, nodes, cyclic ? "cyclic" : "block", got[i], k);
            ck_assert(i == 0 || got[i] > got[i - 1]);
        }
        next[k] = c;
    }
    /* every rank counted once: the counts add up to n */
    uint32_t sum = 0;
    for (uint32_t k = 0; k < nodes; k++)
        sum += next[k];
    ck_assert_uint_eq(sum, n);
    free(got);
    free(next);
}

START_TEST(layouts)
{
    static const uint32_t nodes[] = { 1, 2, 3, 16, 253, 254, 255, 1000, 1024, 4096 };

    for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
        for (uint32_t extra = 0; extra <= 7; extra += 7)
            for (int cyc = 0; cyc < 2; cyc++) {
                uint32_t n = nodes[i] + extra * (nodes[i] / 3 + 1);
                if (n > SPX_RUN_MAX_PROCS)
                    n = SPX_RUN_MAX_PROCS;
                check_layout(n, nodes[i], cyc);
            }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("run_proto");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, addresses);
    tcase_add_test(tc, layouts);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
