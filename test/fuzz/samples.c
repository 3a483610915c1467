/* samples.c - builds sample PMIx values of every supported type (test data
 * shared by test_codec and the fuzz seed generator). All memory is malloc'd
 * the way decoded data is, so spx_codec_value_release frees it. */
#include "config.h"
#include "samples.h"
#include "codec/value.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s);
    if (!p)
        abort();
    return p;
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        abort();
    return p;
}

static char **argv2(const char *a, const char *b)
{
    char **v = xcalloc(3, sizeof(char *));
    v[0] = xstrdup(a);
    v[1] = xstrdup(b);
    return v;
}

static void set_str_value(pmix_value_t *v, const char *s)
{
    v->type = PMIX_STRING;
    v->data.string = xstrdup(s);
}

static void fill_info(pmix_info_t *in, const char *key, int32_t x)
{
    memset(in, 0, sizeof(*in));
    strncpy(in->key, key, PMIX_MAX_KEYLEN);
    in->value.type = PMIX_INT32;
    in->value.data.int32 = x;
}

static pmix_data_array_t *darray(pmix_data_type_t t, size_t n)
{
    pmix_data_array_t *d = xcalloc(1, sizeof(*d));
    d->type = t;
    d->size = n;
    d->array = xcalloc(n, spx_codec_type_size(t));
    return d;
}

void spx_sample_values(pmix_value_t **vals, size_t *nvals, int with_topology)
{
    pmix_value_t *v = xcalloc(80, sizeof(*v));
    size_t n = 0;
#define NEXT(t) (v[n].type = (t), &v[n++])
    NEXT(PMIX_UNDEF);
    NEXT(PMIX_BOOL)->data.flag = true;
    NEXT(PMIX_BYTE)->data.byte = 0xab;
    set_str_value(&v[n++], "hello world");
    NEXT(PMIX_STRING)->data.string = NULL; /* NULL string */
    NEXT(PMIX_SIZE)->data.size = (size_t)1 << 40;
    NEXT(PMIX_PID)->data.pid = 12345;
    NEXT(PMIX_INT)->data.integer = -7;
    NEXT(PMIX_INT8)->data.int8 = -8;
    NEXT(PMIX_INT16)->data.int16 = -16000;
    NEXT(PMIX_INT32)->data.int32 = -2000000000;
    NEXT(PMIX_INT64)->data.int64 = -((int64_t)1 << 60);
    NEXT(PMIX_UINT)->data.uint = 4000000000u;
    NEXT(PMIX_UINT8)->data.uint8 = 255;
    NEXT(PMIX_UINT16)->data.uint16 = 65535;
    NEXT(PMIX_UINT32)->data.uint32 = 0xdeadbeef;
    NEXT(PMIX_UINT64)->data.uint64 = 0x0123456789abcdefull;
    NEXT(PMIX_FLOAT)->data.fval = 3.25f;
    NEXT(PMIX_DOUBLE)->data.dval = -1.0e300;
    pmix_value_t *tv = NEXT(PMIX_TIMEVAL);
    tv->data.tv.tv_sec = 1700000000;
    tv->data.tv.tv_usec = 999999;
    NEXT(PMIX_TIME)->data.time = 1700000001;
    NEXT(PMIX_STATUS)->data.status = PMIX_ERR_NOT_FOUND;
    pmix_proc_t *pr = xcalloc(1, sizeof(*pr));
    strcpy(pr->nspace, "slurm.pmix.42.0");
    pr->rank = PMIX_RANK_WILDCARD;
    NEXT(PMIX_PROC)->data.proc = pr;
    NEXT(PMIX_PROC)->data.proc = NULL; /* NULL pointer-held value */
    pmix_value_t *bo = NEXT(PMIX_BYTE_OBJECT);
    bo->data.bo.bytes = xcalloc(1, 5);
    memcpy(bo->data.bo.bytes, "a\0b\0c", 5);
    bo->data.bo.size = 5;
    NEXT(PMIX_BYTE_OBJECT); /* empty */
    NEXT(PMIX_PERSIST)->data.persist = PMIX_PERSIST_SESSION;
    NEXT(PMIX_POINTER)->data.ptr = (void *)v;
    NEXT(PMIX_SCOPE)->data.scope = PMIX_GLOBAL;
    NEXT(PMIX_DATA_RANGE)->data.range = PMIX_RANGE_NAMESPACE;
    NEXT(PMIX_COMMAND)->data.uint8 = 3;
    NEXT(PMIX_INFO_DIRECTIVES)->data.uint32 = PMIX_INFO_REQD;
    NEXT(PMIX_DATA_TYPE)->data.uint16 = PMIX_INT64;
    NEXT(PMIX_PROC_STATE)->data.state = PMIX_PROC_STATE_RUNNING;
    pmix_proc_info_t *pi = xcalloc(1, sizeof(*pi));
    strcpy(pi->proc.nspace, "ns");
    pi->proc.rank = 3;
    pi->hostname = xstrdup("node01");
    pi->executable_name = xstrdup("/bin/true");
    pi->pid = 4242;
    pi->exit_code = -1;
    pi->state = PMIX_PROC_STATE_TERMINATED;
    NEXT(PMIX_PROC_INFO)->data.pinfo = pi;
    NEXT(PMIX_PROC_RANK)->data.rank = 17;
    pmix_value_t *cs = NEXT(PMIX_COMPRESSED_STRING);
    cs->data.bo.bytes = xstrdup("zz");
    cs->data.bo.size = 2;
    NEXT(PMIX_ALLOC_DIRECTIVE)->data.adir = 2;
    NEXT(PMIX_IOF_CHANNEL)->data.uint16 = PMIX_FWD_STDOUT_CHANNEL;
    pmix_value_t *ev = NEXT(PMIX_ENVAR);
    ev->data.envar.envar = xstrdup("PATH");
    ev->data.envar.value = xstrdup("/usr/bin");
    ev->data.envar.separator = ':';
    pmix_coord_t *co = xcalloc(1, sizeof(*co));
    co->view = PMIX_COORD_PHYSICAL_VIEW;
    co->dims = 3;
    co->coord = xcalloc(3, sizeof(uint32_t));
    co->coord[0] = 1, co->coord[1] = 2, co->coord[2] = 3;
    NEXT(PMIX_COORD)->data.coord = co;
    pmix_regattr_t *ra = xcalloc(1, sizeof(*ra));
    ra->name = xstrdup("PMIX_TIMEOUT");
    strcpy(ra->string, "pmix.timeout");
    ra->type = PMIX_INT;
    ra->description = argv2("seconds", "to wait");
    NEXT(PMIX_REGATTR)->data.ptr = ra;
    pmix_value_t *rx = NEXT(PMIX_REGEX);
    rx->data.bo.bytes = xstrdup("node[1-4]");
    rx->data.bo.size = 9;
    NEXT(PMIX_JOB_STATE)->data.jstate = 4;
    NEXT(PMIX_LINK_STATE)->data.linkstate = 2;
    pmix_cpuset_t *cpu = xcalloc(1, sizeof(*cpu));
    cpu->source = xstrdup("hwloc");
    cpu->bitmap = hwloc_bitmap_alloc();
    hwloc_bitmap_set_range(cpu->bitmap, 0, 3);
    hwloc_bitmap_set(cpu->bitmap, 63);
    NEXT(PMIX_PROC_CPUSET)->data.cpuset = cpu;
    pmix_geometry_t *ge = xcalloc(1, sizeof(*ge));
    ge->fabric = 7;
    ge->uuid = xstrdup("uuid-1");
    ge->osname = xstrdup("ib0");
    ge->ncoords = 2;
    ge->coordinates = xcalloc(2, sizeof(pmix_coord_t));
    ge->coordinates[0].view = PMIX_COORD_LOGICAL_VIEW;
    ge->coordinates[1].dims = 1;
    ge->coordinates[1].coord = xcalloc(1, sizeof(uint32_t));
    ge->coordinates[1].coord[0] = 9;
    NEXT(PMIX_GEOMETRY)->data.geometry = ge;
    pmix_device_distance_t *dd = xcalloc(1, sizeof(*dd));
    dd->uuid = xstrdup("dev-uuid");
    dd->osname = xstrdup("mlx5_0");
    dd->type = PMIX_DEVTYPE_NETWORK;
    dd->mindist = 10;
    dd->maxdist = 20;
    NEXT(PMIX_DEVICE_DIST)->data.devdist = dd;
    pmix_endpoint_t *ep = xcalloc(1, sizeof(*ep));
    ep->uuid = xstrdup("ep");
    ep->endpt.bytes = xstrdup("addr");
    ep->endpt.size = 4;
    NEXT(PMIX_ENDPOINT)->data.endpoint = ep;
    pmix_topology_t *to = xcalloc(1, sizeof(*to));
    if (with_topology) {
        static hwloc_topology_t topo; /* borrowed by the value: lives for the process */
        if (!topo) {
            hwloc_topology_init(&topo);
            hwloc_topology_load(topo);
        }
        to->source = xstrdup("hwloc");
        to->topology = topo;
    } else {
        to->source = xstrdup("none");
    }
    NEXT(PMIX_TOPO)->data.topo = to;
    NEXT(PMIX_DEVTYPE)->data.devtype = PMIX_DEVTYPE_GPU;
    NEXT(PMIX_LOCTYPE)->data.locality = PMIX_LOCALITY_SHARE_NODE;
    pmix_value_t *cbo = NEXT(PMIX_COMPRESSED_BYTE_OBJECT);
    cbo->data.bo.bytes = xstrdup("x");
    cbo->data.bo.size = 1;
    pmix_nspace_t *ns = xcalloc(1, sizeof(*ns));
    strcpy(*ns, "my-namespace");
    NEXT(PMIX_PROC_NSPACE)->data.nspace = ns;
    pmix_proc_stats_t *ps = xcalloc(1, sizeof(*ps));
    ps->node = xstrdup("node02");
    ps->proc.rank = 1;
    ps->cmd = xstrdup("a.out");
    ps->state = 'R';
    ps->percent_cpu = 99.5f;
    ps->num_threads = 4;
    ps->sample_time.tv_sec = 5;
    NEXT(PMIX_PROC_STATS)->data.pstats = ps;
    pmix_disk_stats_t *ds = xcalloc(1, sizeof(*ds));
    ds->disk = xstrdup("sda");
    ds->weighted_milliseconds_io = 77;
    NEXT(PMIX_DISK_STATS)->data.dkstats = ds;
    pmix_net_stats_t *nst = xcalloc(1, sizeof(*nst));
    nst->net_interface = xstrdup("eth0");
    nst->num_send_errs = 3;
    NEXT(PMIX_NET_STATS)->data.netstats = nst;
    pmix_node_stats_t *nd = xcalloc(1, sizeof(*nd));
    nd->node = xstrdup("node03");
    nd->mapped = 1.5f;
    nd->ndiskstats = 1;
    nd->diskstats = xcalloc(1, sizeof(pmix_disk_stats_t));
    nd->diskstats[0].disk = xstrdup("nvme0");
    nd->nnetstats = 1;
    nd->netstats = xcalloc(1, sizeof(pmix_net_stats_t));
    NEXT(PMIX_NODE_STATS)->data.ndstats = nd;
    pmix_data_buffer_t *db = xcalloc(1, sizeof(*db));
    db->base_ptr = xstrdup("buffer-bytes");
    db->bytes_used = db->bytes_allocated = 12;
    db->pack_ptr = db->base_ptr + 12;
    db->unpack_ptr = db->base_ptr;
    NEXT(PMIX_DATA_BUFFER)->data.dbuf = db;
    NEXT(PMIX_STOR_MEDIUM)->data.uint64 = 0x4;
    NEXT(PMIX_STOR_ACCESS)->data.uint64 = 0x2;
    NEXT(PMIX_STOR_PERSIST)->data.uint64 = 0x8;
    NEXT(PMIX_STOR_ACCESS_TYPE)->data.uint16 = 1;

    /* data arrays: of strings, of values (one nesting another array), of
     * infos, apps, queries, pdata, procs, uint32 */
    pmix_data_array_t *ds_ = darray(PMIX_STRING, 2);
    ((char **)ds_->array)[0] = xstrdup("one");
    NEXT(PMIX_DATA_ARRAY)->data.darray = ds_;
    pmix_data_array_t *dv = darray(PMIX_VALUE, 2);
    pmix_value_t *inner = dv->array;
    set_str_value(&inner[0], "inner");
    inner[1].type = PMIX_DATA_ARRAY;
    inner[1].data.darray = darray(PMIX_UINT32, 3);
    ((uint32_t *)inner[1].data.darray->array)[2] = 33;
    NEXT(PMIX_DATA_ARRAY)->data.darray = dv;
    pmix_data_array_t *di = darray(PMIX_INFO, 2);
    fill_info(&((pmix_info_t *)di->array)[0], "pmix.a", 1);
    fill_info(&((pmix_info_t *)di->array)[1], "pmix.b", 2);
    ((pmix_info_t *)di->array)[1].flags = PMIX_INFO_ARRAY_END;
    NEXT(PMIX_DATA_ARRAY)->data.darray = di;
    pmix_data_array_t *da = darray(PMIX_APP, 1);
    pmix_app_t *app = da->array;
    app->cmd = xstrdup("hostname");
    app->argv = argv2("hostname", "-s");
    app->env = argv2("A=1", "B=2");
    app->cwd = xstrdup("/tmp");
    app->maxprocs = 4;
    app->ninfo = 1;
    app->info = xcalloc(1, sizeof(pmix_info_t));
    fill_info(app->info, "pmix.app.x", 5);
    NEXT(PMIX_DATA_ARRAY)->data.darray = da;
    pmix_data_array_t *dq = darray(PMIX_QUERY, 1);
    pmix_query_t *q = dq->array;
    q->keys = argv2("pmix.qry.ns", "pmix.qry.jst");
    q->nqual = 1;
    q->qualifiers = xcalloc(1, sizeof(pmix_info_t));
    fill_info(q->qualifiers, "pmix.nsp", 6);
    NEXT(PMIX_DATA_ARRAY)->data.darray = dq;
    pmix_data_array_t *dp = darray(PMIX_PDATA, 1);
    pmix_pdata_t *pd = dp->array;
    strcpy(pd->proc.nspace, "pub");
    strcpy(pd->key, "service");
    set_str_value(&pd->value, "port-1");
    NEXT(PMIX_DATA_ARRAY)->data.darray = dp;
    NEXT(PMIX_DATA_ARRAY)->data.darray = darray(PMIX_PROC, 3);
    NEXT(PMIX_DATA_ARRAY)->data.darray = darray(PMIX_UNDEF, 0);
    pmix_data_array_t *dd2 = darray(PMIX_DATA_ARRAY, 1); /* array of arrays */
    ((pmix_data_array_t *)dd2->array)[0].type = PMIX_BOOL;
    NEXT(PMIX_DATA_ARRAY)->data.darray = dd2;
#undef NEXT
    *vals = v;
    *nvals = n;
}

void spx_sample_infos(pmix_info_t **infos, size_t *n, int with_topology)
{
    pmix_value_t *v;
    size_t nv;
    spx_sample_values(&v, &nv, with_topology);
    pmix_info_t *in = xcalloc(nv, sizeof(*in));
    for (size_t i = 0; i < nv; i++) {
        snprintf(in[i].key, sizeof(in[i].key), "key.%zu", i);
        in[i].flags = (pmix_info_directives_t)(i & 1);
        in[i].value = v[i]; /* moved */
    }
    free(v);
    *infos = in;
    *n = nv;
}
