/* test_codec_topo.c - the codec's table of decoded topologies
 * (lib/codec/value_hwloc.c, topo_intern) used from several threads at once.
 *
 * A PMIX_TOPO that arrives in bytes becomes one hwloc object per distinct XML
 * text, borrowed by every value that decodes it. The table is filled without a
 * lock (compare-and-swap per slot), so these tests decode through the public
 * PMIx_Data_unpack from THREADS threads released together and check:
 *   - the same XML decoded by every thread yields one object for all;
 *   - different XMLs decoded concurrently yield one object each, the same
 *     one on every later decode, and all of them distinct;
 *   - the table holds 8 topologies: a ninth distinct XML is refused (also
 *     when several threads race to fill the last slots), the ones held still
 *     decode.
 * Machines with 1, 2, 3, ... PUs (hand-written hwloc XML) make distinct XML.
 */
#include "config.h"

#include <check.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#define THREADS 8
#define ROUNDS 4
#define TABLE 8 /* SPX_CODEC_MAX_TOPOS */

/* hwloc XML of a machine with one NUMA node and `pus` PUs (1..31). */
static char *machine_xml(unsigned pus)
{
    static const char head[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<topology version=\"2.0\">\n";
    char *xml = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&xml, &len);
    ck_assert_ptr_nonnull(f);
    unsigned all = (1u << pus) - 1;
    fprintf(f, "%s <object type=\"Machine\" os_index=\"0\" cpuset=\"0x%x\" complete_cpuset=\"0x%x\""
            " allowed_cpuset=\"0x%x\" nodeset=\"0x1\" complete_nodeset=\"0x1\" allowed_nodeset=\"0x1\""
            " gp_index=\"1\">\n  <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x%x\""
            " complete_cpuset=\"0x%x\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"2\""
            " local_memory=\"1073741824\"/>\n", head, all, all, all, all, all);
    for (unsigned i = 0; i < pus; i++)
        fprintf(f, "  <object type=\"PU\" os_index=\"%u\" cpuset=\"0x%x\" complete_cpuset=\"0x%x\""
                " nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"%u\"/>\n", i, 1u << i,
                1u << i, 3 + i);
    fputs(" </object>\n</topology>\n", f);
    ck_assert_int_eq(fclose(f), 0);
    return xml;
}

/* A data buffer holding one PMIX_TOPO of a machine with `pus` PUs (distinct
 * pus, distinct XML). */
static void packed_topology(unsigned pus, pmix_data_buffer_t *db)
{
    char *xml = machine_xml(pus);
    hwloc_topology_t t;
    ck_assert_int_eq(hwloc_topology_init(&t), 0);
    ck_assert_int_eq(hwloc_topology_set_xmlbuffer(t, xml, (int)strlen(xml) + 1), 0);
    ck_assert_int_eq(hwloc_topology_load(t), 0);
    ck_assert_int_eq(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), pus);
    pmix_topology_t pt = { .source = "hwloc", .topology = t };
    PMIX_DATA_BUFFER_CONSTRUCT(db);
    ck_assert_int_eq(PMIx_Data_pack(NULL, db, &pt, 1, PMIX_TOPO), PMIX_SUCCESS);
    hwloc_topology_destroy(t);
    free(xml);
}

/* Decodes the topology in a copy of src's bytes (src is left as it is, so
 * threads can share it). Returns the borrowed hwloc object, or NULL. */
static hwloc_topology_t decode(const pmix_data_buffer_t *src)
{
    pmix_data_buffer_t db;
    pmix_byte_object_t bo;
    PMIX_DATA_BUFFER_CONSTRUCT(&db);
    bo.size = src->bytes_used;
    bo.bytes = malloc(bo.size);
    if (!bo.bytes)
        return NULL;
    memcpy(bo.bytes, src->base_ptr, bo.size);
    PMIx_Data_load(&db, &bo);
    pmix_topology_t t = { 0 };
    int32_t n = 1;
    pmix_status_t rc = PMIx_Data_unpack(NULL, &db, &t, &n, PMIX_TOPO);
    PMIX_DATA_BUFFER_DESTRUCT(&db);
    free(t.source); /* the hwloc object is the table's */
    return rc == PMIX_SUCCESS && n == 1 ? t.topology : NULL;
}

static pthread_barrier_t start;

struct job {
    const pmix_data_buffer_t *db;
    hwloc_topology_t got[ROUNDS];
};

static void *decode_rounds(void *arg)
{
    struct job *j = arg;
    pthread_barrier_wait(&start);
    for (int r = 0; r < ROUNDS; r++)
        j->got[r] = decode(j->db);
    return NULL;
}

/* Runs decode_rounds on jobs[0..n) in n threads released together. */
static void run_threads(struct job *jobs, int n)
{
    pthread_t tid[THREADS];
    ck_assert_int_le(n, THREADS);
    ck_assert_int_eq(pthread_barrier_init(&start, NULL, (unsigned)n), 0);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(pthread_create(&tid[i], NULL, decode_rounds, &jobs[i]), 0);
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&start);
}

START_TEST(same_xml_from_threads_one_object)
{
    pmix_data_buffer_t db;
    struct job jobs[THREADS];
    packed_topology(3, &db);
    for (int i = 0; i < THREADS; i++)
        jobs[i].db = &db;
    run_threads(jobs, THREADS);
    hwloc_topology_t one = jobs[0].got[0];
    ck_assert_ptr_nonnull(one);
    ck_assert_int_eq(hwloc_get_nbobjs_by_type(one, HWLOC_OBJ_PU), 3);
    for (int i = 0; i < THREADS; i++)
        for (int r = 0; r < ROUNDS; r++)
            ck_assert_msg(jobs[i].got[r] == one, "thread %d round %d got another object", i, r);
    ck_assert_ptr_eq(decode(&db), one);
    PMIX_DATA_BUFFER_DESTRUCT(&db);
}
END_TEST

START_TEST(different_xml_from_threads_one_object_each)
{
    pmix_data_buffer_t db[THREADS];
    struct job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        packed_topology((unsigned)i + 1, &db[i]);
        jobs[i].db = &db[i];
    }
    run_threads(jobs, THREADS);
    for (int i = 0; i < THREADS; i++) {
        ck_assert_ptr_nonnull(jobs[i].got[0]);
        ck_assert_int_eq(hwloc_get_nbobjs_by_type(jobs[i].got[0], HWLOC_OBJ_PU), i + 1);
        for (int r = 1; r < ROUNDS; r++)
            ck_assert_ptr_eq(jobs[i].got[r], jobs[i].got[0]);
        for (int k = 0; k < i; k++)
            ck_assert_ptr_ne(jobs[i].got[0], jobs[k].got[0]);
        ck_assert_ptr_eq(decode(&db[i]), jobs[i].got[0]);
    }
    for (int i = 0; i < THREADS; i++)
        PMIX_DATA_BUFFER_DESTRUCT(&db[i]);
}
END_TEST

/* TABLE - 2 topologies held; then THREADS threads race with THREADS distinct
 * XMLs for the last 2 slots: exactly 2 win, the others are refused, and the
 * table stays full for any later newcomer. */
START_TEST(table_limit_under_race)
{
    pmix_data_buffer_t held[TABLE - 2], racing[THREADS], late;
    hwloc_topology_t held_obj[TABLE - 2];
    struct job jobs[THREADS];
    for (int i = 0; i < TABLE - 2; i++) {
        packed_topology((unsigned)i + 1, &held[i]);
        held_obj[i] = decode(&held[i]);
        ck_assert_ptr_nonnull(held_obj[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        packed_topology((unsigned)(TABLE + i), &racing[i]);
        jobs[i].db = &racing[i];
    }
    run_threads(jobs, THREADS);
    int won = 0;
    for (int i = 0; i < THREADS; i++) {
        if (jobs[i].got[0]) {
            won++;
            for (int r = 1; r < ROUNDS; r++)
                ck_assert_ptr_eq(jobs[i].got[r], jobs[i].got[0]);
        } else {
            for (int r = 1; r < ROUNDS; r++)
                ck_assert_ptr_null(jobs[i].got[r]);
        }
    }
    ck_assert_int_eq(won, 2);
    packed_topology(TABLE + THREADS, &late);
    ck_assert_ptr_null(decode(&late));
    for (int i = 0; i < TABLE - 2; i++)
        ck_assert_ptr_eq(decode(&held[i]), held_obj[i]);
    for (int i = 0; i < TABLE - 2; i++)
        PMIX_DATA_BUFFER_DESTRUCT(&held[i]);
    for (int i = 0; i < THREADS; i++)
        PMIX_DATA_BUFFER_DESTRUCT(&racing[i]);
    PMIX_DATA_BUFFER_DESTRUCT(&late);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("codec_topo");
    TCase *tc = tcase_create("intern");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, same_xml_from_threads_one_object);
    tcase_add_test(tc, different_xml_from_threads_one_object_each);
    tcase_add_test(tc, table_limit_under_race);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    /* the table lives for the process: each test needs its own */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
