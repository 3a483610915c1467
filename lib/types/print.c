/* print.c - the one printer of PMIx data: the print function of every type's
 * row (typedesc.h) and the three exported renderings built on them,
 * PMIx_Value_string, PMIx_Info_string and PMIx_Data_print (all malloc'd text,
 * caller frees with free()).
 *
 * A row's print writes only the element's data. A value prints as
 * "<TYPE>: <data>" (data arrays as "PMIX_DATA_ARRAY: <TYPE>[n] { e0, e1, ... }",
 * each element as a value would), an info as
 * "<key> (<ATTR_NAME>) [<directives>] = <value>", and PMIx_Data_print frames
 * one element of any type as "<prefix>Data type: <TYPE>\tValue: <data>".
 * Text is written into a memory stream; every nesting passes through
 * print_value, which prints "..." beyond PRINT_MAX_DEPTH.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <hwloc.h>

#include <pmix.h>

#include "types/typedesc.h"
#include "types/types.h"
#include "util/compiler.h"

#define PRINT_MAX_DEPTH 16

static void print_value(FILE *f, const pmix_value_t *v, int depth);

static void print_str(FILE *f, const char *s)
{
    if (s)
        fprintf(f, "\"%s\"", s);
    else
        fputs("NULL", f);
}

static void print_rank(FILE *f, pmix_rank_t r)
{
    if (r == PMIX_RANK_WILDCARD)
        fputs("WILDCARD", f);
    else if (r == PMIX_RANK_UNDEF)
        fputs("UNDEF", f);
    else if (r == PMIX_RANK_LOCAL_NODE)
        fputs("LOCAL_NODE", f);
    else
        fprintf(f, "%" PRIu32, r);
}

/* Element of an array: value-capable types print as a value viewing the
 * element (no copy), the array-only ones through their row. */
static void print_elem(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    pmix_value_t view = { .type = td->type };

    switch (td->store) {
    case SPX_TD_ARRAY_ONLY:
        td->print(f, td, elem, depth);
        return;
    case SPX_TD_INLINE:
        memcpy(&view.data, elem, td->size);
        break;
    case SPX_TD_BOXED:
        view.data.ptr = (void *)elem;
        break;
    }
    print_value(f, &view, depth);
}

static void print_value(FILE *f, const pmix_value_t *v, int depth)
{
    const struct spx_typedesc *td = spx_typedesc_get(v->type);

    fprintf(f, "%s: ", PMIx_Data_type_string(v->type));
    if (depth > PRINT_MAX_DEPTH) {
        fputs("...", f);
        return;
    }
    if (td == NULL || td->store == SPX_TD_ARRAY_ONLY) {
        fputs("(unprintable)", f);
        return;
    }
    if (td->store == SPX_TD_INLINE)
        td->print(f, td, &v->data, depth);
    else if (v->data.ptr)
        td->print(f, td, v->data.ptr, depth);
    else
        fputs("NULL", f);
}

/* ---- row print functions: scalars ---- */

void spx_td_print_undef(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td, (void)elem, (void)depth;
    fputs("(no data)", f);
}

void spx_td_print_num(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    pmix_value_t v;

    (void)depth;
    memcpy(&v.data, elem, td->size);
    if (td->num == SPX_NUM_FLOAT) {
        fprintf(f, "%g", td->size == sizeof(float) ? (double)v.data.fval : v.data.dval);
    } else if (td->num == SPX_NUM_SIGNED) {
        int64_t s = td->size == 1 ? v.data.int8 : td->size == 2 ? v.data.int16
                  : td->size == 4 ? v.data.int32 : v.data.int64;
        fprintf(f, "%" PRId64, s);
    } else {
        uint64_t u = td->size == 1 ? v.data.uint8 : td->size == 2 ? v.data.uint16
                   : td->size == 4 ? v.data.uint32 : v.data.uint64;
        fprintf(f, "%" PRIu64, u);
    }
}

/* Scalars shown by name: copy the element out, print its string. */
#define PRINT_NAMED(n, ty, fn)                                                                 \
    void spx_td_print_##n(FILE *f, const struct spx_typedesc *td, const void *elem, int depth) \
    {                                                                                          \
        ty x;                                                                                  \
        (void)td, (void)depth;                                                                 \
        memcpy(&x, elem, sizeof(x));                                                           \
        fputs(fn(x), f);                                                                       \
    }
PRINT_NAMED(persist, pmix_persistence_t, PMIx_Persistence_string)
PRINT_NAMED(scope, pmix_scope_t, PMIx_Scope_string)
PRINT_NAMED(range, pmix_data_range_t, PMIx_Data_range_string)
PRINT_NAMED(pstate, pmix_proc_state_t, PMIx_Proc_state_string)
PRINT_NAMED(jstate, pmix_job_state_t, PMIx_Job_state_string)
PRINT_NAMED(linkstate, pmix_link_state_t, PMIx_Link_state_string)
PRINT_NAMED(adir, pmix_alloc_directive_t, PMIx_Alloc_directive_string)
PRINT_NAMED(iof, pmix_iof_channel_t, PMIx_IOF_channel_string)
PRINT_NAMED(devtype, pmix_device_type_t, PMIx_Device_type_string)
PRINT_NAMED(dtype, pmix_data_type_t, PMIx_Data_type_string)
#undef PRINT_NAMED

void spx_td_print_flag(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td, (void)depth;
    fputs(*(const bool *)elem ? "true" : "false", f);
}

void spx_td_print_string(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td, (void)depth;
    print_str(f, *(char *const *)elem);
}

void spx_td_print_pointer(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td, (void)depth;
    fprintf(f, "%p", *(void *const *)elem);
}

void spx_td_print_status(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    pmix_status_t st;

    (void)td, (void)depth;
    memcpy(&st, elem, sizeof(st));
    fprintf(f, "%s (%d)", PMIx_Error_string(st), st);
}

void spx_td_print_rank(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    pmix_rank_t r;

    (void)td, (void)depth;
    memcpy(&r, elem, sizeof(r));
    print_rank(f, r);
}

void spx_td_print_timeval(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const struct timeval *tv = elem;

    (void)td, (void)depth;
    fprintf(f, "%lld.%06ld", (long long)tv->tv_sec, (long)tv->tv_usec);
}

void spx_td_print_envar(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_envar_t *e = elem;

    (void)td, (void)depth;
    fprintf(f, "%s=%s (sep '%c')", e->envar ? e->envar : "NULL", e->value ? e->value : "NULL",
            e->separator ? e->separator : ' ');
}

void spx_td_print_regex(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_byte_object_t *bo = elem;

    (void)td, (void)depth;
    fprintf(f, "%.*s", (int)(bo->bytes ? strnlen(bo->bytes, bo->size) : 0),
            bo->bytes ? bo->bytes : "");
}

void spx_td_print_bo(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_byte_object_t *bo = elem;

    (void)td, (void)depth;
    fprintf(f, "%zu bytes", bo->bytes ? bo->size : 0);
}

/* ---- boxed structs ---- */

void spx_td_print_proc(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_proc_t *p = elem;

    (void)td, (void)depth;
    fprintf(f, "%.*s:", PMIX_MAX_NSLEN, p->nspace);
    print_rank(f, p->rank);
}

void spx_td_print_nspace(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td, (void)depth;
    fprintf(f, "%.*s", PMIX_MAX_NSLEN, (const char *)elem);
}

void spx_td_print_pinfo(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_proc_info_t *pi = elem;

    spx_td_print_proc(f, td, &pi->proc, depth);
    fputs(" host=", f);
    print_str(f, pi->hostname);
    fputs(" exe=", f);
    print_str(f, pi->executable_name);
    fprintf(f, " pid=%d exit=%d state=%s", (int)pi->pid, pi->exit_code,
            PMIx_Proc_state_string(pi->state));
}

void spx_td_print_darray(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_data_array_t *d = elem;
    const struct spx_typedesc *etd = spx_typedesc_get(d->type);
    size_t n = d->array ? d->size : 0;

    (void)td;
    fprintf(f, "%s[%zu] {", PMIx_Data_type_string(d->type), n);
    if (etd == NULL || etd->size == 0) {
        fputs(n ? " ? }" : " }", f);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : " ", f);
        print_elem(f, etd, (const char *)d->array + i * etd->size, depth + 1);
    }
    fputs(" }", f);
}

void spx_td_print_coord(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_coord_t *c = elem;

    (void)td, (void)depth;
    fprintf(f, "view=%u (", (unsigned)c->view);
    for (size_t i = 0; c->coord && i < c->dims; i++)
        fprintf(f, "%s%" PRIu32, i ? "," : "", c->coord[i]);
    fputc(')', f);
}

void spx_td_print_regattr(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_regattr_t *r = elem;

    (void)td, (void)depth;
    fputs("name=", f);
    print_str(f, r->name);
    fprintf(f, " key=%.*s type=%s", PMIX_MAX_KEYLEN, r->string, PMIx_Data_type_string(r->type));
}

void spx_td_print_cpuset(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_cpuset_t *c = elem;
    char *list = NULL;

    (void)td, (void)depth;
    fputs("source=", f);
    print_str(f, c->source);
    if (c->bitmap && c->source && strcmp(c->source, "hwloc") == 0 &&
        hwloc_bitmap_list_asprintf(&list, (hwloc_const_bitmap_t)c->bitmap) >= 0) {
        fprintf(f, " cpus=%s", list);
        free(list);
    }
}

/* Objects of one type in topology t (0 when none, or spread over several
 * depths, which packages, cores and PUs never are). */
static unsigned topo_count(hwloc_topology_t t, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(t, type);
    return n > 0 ? (unsigned)n : 0;
}

/* An hwloc topology as a summary of its root, in the words of OpenPMIx's
 * print (its first line: the root's type and number of children), then the
 * counts of packages, NUMA nodes, cores and PUs and the root's cpus; not
 * OpenPMIx's whole object tree, one line per object. Any other source (or
 * no object) prints only the source: nothing here can read it. */
void spx_td_print_topo(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_topology_t *t = elem;
    hwloc_topology_t topo = t->topology;
    char type[64], *cpus = NULL;

    (void)td, (void)depth;
    fputs("source=", f);
    print_str(f, t->source);
    if (!t->source || strncasecmp(t->source, "hwloc", 5) != 0 || !topo) {
        fputs(topo ? " topology=(not hwloc)" : " topology=NULL", f);
        return;
    }
    hwloc_obj_t root = hwloc_get_root_obj(topo);
    if (!root) {
        fputs(" topology=(empty)", f);
        return;
    }
    hwloc_obj_type_snprintf(type, sizeof(type), root, 1);
    fprintf(f, " Type: %s Number of child objects: %u Packages: %u NUMA nodes: %u Cores: %u"
               " PUs: %u", type, root->arity, topo_count(topo, HWLOC_OBJ_PACKAGE),
            topo_count(topo, HWLOC_OBJ_NUMANODE), topo_count(topo, HWLOC_OBJ_CORE),
            topo_count(topo, HWLOC_OBJ_PU));
    if (root->cpuset && hwloc_bitmap_list_asprintf(&cpus, root->cpuset) >= 0) {
        fprintf(f, " cpus=%s", cpus);
        free(cpus);
    }
}

void spx_td_print_geometry(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_geometry_t *g = elem;

    (void)td, (void)depth;
    fprintf(f, "fabric=%zu uuid=", g->fabric);
    print_str(f, g->uuid);
    fputs(" osname=", f);
    print_str(f, g->osname);
    fprintf(f, " ncoords=%zu", g->ncoords);
}

void spx_td_print_devdist(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_device_distance_t *d = elem;

    (void)td, (void)depth;
    fputs("uuid=", f);
    print_str(f, d->uuid);
    fputs(" osname=", f);
    print_str(f, d->osname);
    fprintf(f, " type=%s min=%u max=%u", PMIx_Device_type_string(d->type), (unsigned)d->mindist,
            (unsigned)d->maxdist);
}

void spx_td_print_endpoint(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_endpoint_t *e = elem;

    (void)td, (void)depth;
    fputs("uuid=", f);
    print_str(f, e->uuid);
    fputs(" osname=", f);
    print_str(f, e->osname);
    fprintf(f, " endpt=%zu bytes", e->endpt.bytes ? e->endpt.size : 0);
}

void spx_td_print_dbuf(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td, (void)depth;
    fprintf(f, "%zu bytes", ((const pmix_data_buffer_t *)elem)->bytes_used);
}

void spx_td_print_pstats(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_proc_stats_t *p = elem;

    (void)td, (void)depth;
    fputs("node=", f);
    print_str(f, p->node);
    fprintf(f, " pid=%d", (int)p->pid);
}

void spx_td_print_dkstats(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td, (void)depth;
    fputs("disk=", f);
    print_str(f, ((const pmix_disk_stats_t *)elem)->disk);
}

void spx_td_print_netstats(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td, (void)depth;
    fputs("interface=", f);
    print_str(f, ((const pmix_net_stats_t *)elem)->net_interface);
}

void spx_td_print_ndstats(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td, (void)depth;
    fputs("node=", f);
    print_str(f, ((const pmix_node_stats_t *)elem)->node);
}

/* ---- array-only structs ---- */

void spx_td_print_value(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    (void)td;
    print_value(f, elem, depth);
}

void spx_td_print_info(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_info_t *info = elem;
    char *dirs = PMIx_Info_directives_string(info->flags);

    (void)td;
    fprintf(f, "%.*s (%s) [%s] = ", PMIX_MAX_KEYLEN, info->key, PMIx_Get_attribute_name(info->key),
            dirs ? dirs : "?");
    free(dirs);
    print_value(f, &info->value, depth);
}

void spx_td_print_pdata(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_pdata_t *pd = elem;

    spx_td_print_proc(f, td, &pd->proc, depth);
    fprintf(f, " %.*s = ", PMIX_MAX_KEYLEN, pd->key);
    print_value(f, &pd->value, depth);
}

void spx_td_print_app(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_app_t *ap = elem;

    (void)td, (void)depth;
    fputs("app cmd=", f);
    print_str(f, ap->cmd);
    fprintf(f, " maxprocs=%d ninfo=%zu", ap->maxprocs, ap->ninfo);
}

void spx_td_print_query(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    const pmix_query_t *q = elem;

    (void)td, (void)depth;
    fputs("query keys=", f);
    for (size_t i = 0; q->keys && q->keys[i]; i++)
        fprintf(f, "%s%s", i ? "," : "", q->keys[i]);
    fprintf(f, " nqual=%zu", q->nqual);
}

/* ---- exported renderings ---- */

struct print_job {
    const char *prefix;               /* PMIx_Data_print only */
    const struct spx_typedesc *td;    /* PMIx_Data_print only */
    const void *obj;
};

/* Runs fn into a memory stream; returns the malloc'd text or NULL. */
static char *render(const struct print_job *job, void (*fn)(FILE *, const struct print_job *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (f == NULL)
        return NULL;
    fn(f, job);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void render_value(FILE *f, const struct print_job *job)
{
    if (job->obj)
        print_value(f, job->obj, 0);
    else
        fputs("NULL", f);
}

static void render_info(FILE *f, const struct print_job *job)
{
    if (job->obj)
        spx_td_print_info(f, NULL, job->obj, 0);
    else
        fputs("NULL", f);
}

/* One element of any type: the data as its row prints it (an array-only
 * struct, a value or an info prints the way it does inside an array). */
static void render_data(FILE *f, const struct print_job *job)
{
    const struct spx_typedesc *td = job->td;

    fprintf(f, "%sData type: %s", job->prefix, td->name);
    if (job->obj == NULL) {
        fputs("\tValue: NULL", f);
        return;
    }
    if (td->type == PMIX_UNDEF)
        return;
    fputs("\tValue: ", f);
    if (td->type == PMIX_STRING) /* like PMIx_Data_copy, src is the string itself */
        fputs(job->obj, f);
    else
        td->print(f, td, job->obj, 0);
}

SPX_EXPORT char *PMIx_Value_string(const pmix_value_t *value)
{
    const struct print_job job = { .obj = value };

    return render(&job, render_value);
}

SPX_EXPORT char *PMIx_Info_string(const pmix_info_t *info)
{
    const struct print_job job = { .obj = info };

    return render(&job, render_info);
}

/* One element through its type's printer (PMIx_Proc_string, PMIx_App_string). */
static void render_elem(FILE *f, const struct print_job *job)
{
    if (job->obj)
        job->td->print(f, job->td, job->obj, 0);
    else
        fputs("NULL", f);
}

/* PMIx v5: the text of a process id / an app; malloc'd, caller frees. */
SPX_EXPORT char *PMIx_Proc_string(const pmix_proc_t *proc)
{
    const struct print_job job = { .td = spx_typedesc_get(PMIX_PROC), .obj = proc };

    return render(&job, render_elem);
}

SPX_EXPORT char *PMIx_App_string(const pmix_app_t *app)
{
    const struct print_job job = { .td = spx_typedesc_get(PMIX_APP), .obj = app };

    return render(&job, render_elem);
}

SPX_EXPORT pmix_status_t PMIx_Data_print(char **output, char *prefix, void *src,
                                         pmix_data_type_t type)
{
    const struct print_job job = { .prefix = prefix ? prefix : "",
                                   .td = spx_typedesc_get(type), .obj = src };

    if (output == NULL)
        return PMIX_ERR_BAD_PARAM;
    *output = NULL;
    if (job.td == NULL)
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    *output = render(&job, render_data);
    return *output ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}
