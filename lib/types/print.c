/* print.c - PMIx_Value_string and PMIx_Info_string: one-line, human-readable
 * renderings of a value or an info, malloc'd (caller frees with free()).
 *
 * Format: a value prints as "<TYPE>: <data>" (data arrays as
 * "PMIX_DATA_ARRAY: <TYPE>[n] { e0, e1, ... }"), an info as
 * "<key> (<ATTR_NAME>) [<directives>] = <value>". Text is written into a
 * memory stream; nesting deeper than PRINT_MAX_DEPTH prints "...".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void print_info(FILE *f, const pmix_info_t *info, int depth)
{
    char *dirs = PMIx_Info_directives_string(info->flags);

    fprintf(f, "%.*s (%s) [%s] = ", PMIX_MAX_KEYLEN, info->key, PMIx_Get_attribute_name(info->key),
            dirs ? dirs : "?");
    free(dirs);
    print_value(f, &info->value, depth);
}

/* Prints element i of an array by viewing it as a value (no copy). */
static void print_elem(FILE *f, const struct spx_typedesc *td, const void *elem, int depth)
{
    pmix_value_t view = { .type = td->type };

    switch (td->store) {
    case SPX_TD_ARRAY_ONLY:
        if (td->type == PMIX_INFO) {
            print_info(f, elem, depth);
        } else if (td->type == PMIX_VALUE) {
            print_value(f, elem, depth);
        } else if (td->type == PMIX_PDATA) {
            const pmix_pdata_t *pd = elem;
            fprintf(f, "%.*s:", PMIX_MAX_NSLEN, pd->proc.nspace);
            print_rank(f, pd->proc.rank);
            fprintf(f, " %.*s = ", PMIX_MAX_KEYLEN, pd->key);
            print_value(f, &pd->value, depth);
        } else if (td->type == PMIX_APP) {
            const pmix_app_t *ap = elem;
            fputs("app cmd=", f);
            print_str(f, ap->cmd);
            fprintf(f, " maxprocs=%d ninfo=%zu", ap->maxprocs, ap->ninfo);
        } else if (td->type == PMIX_QUERY) {
            const pmix_query_t *q = elem;
            fputs("query keys=", f);
            for (size_t i = 0; q->keys && q->keys[i]; i++)
                fprintf(f, "%s%s", i ? "," : "", q->keys[i]);
            fprintf(f, " nqual=%zu", q->nqual);
        }
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

static void print_darray(FILE *f, const pmix_data_array_t *d, int depth)
{
    const struct spx_typedesc *td = spx_typedesc_get(d->type);
    size_t n = d->array ? d->size : 0;

    fprintf(f, "%s[%zu] {", PMIx_Data_type_string(d->type), n);
    if (td == NULL || td->size == 0) {
        fputs(n ? " ? }" : " }", f);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : " ", f);
        print_elem(f, td, (const char *)d->array + i * td->size, depth + 1);
    }
    fputs(" }", f);
}

static void print_number(FILE *f, const struct spx_typedesc *td, const pmix_value_t *v)
{
    if (td->num == SPX_NUM_FLOAT) {
        fprintf(f, "%g", td->size == sizeof(float) ? (double)v->data.fval : v->data.dval);
    } else if (td->num == SPX_NUM_SIGNED) {
        int64_t s = td->size == 1 ? v->data.int8 : td->size == 2 ? v->data.int16
                  : td->size == 4 ? v->data.int32 : v->data.int64;
        fprintf(f, "%" PRId64, s);
    } else {
        uint64_t u = td->size == 1 ? v->data.uint8 : td->size == 2 ? v->data.uint16
                   : td->size == 4 ? v->data.uint32 : v->data.uint64;
        fprintf(f, "%" PRIu64, u);
    }
}

static void print_boxed(FILE *f, const pmix_value_t *v, int depth)
{
    const void *p = v->data.ptr;

    switch (v->type) {
    case PMIX_PROC:
        fprintf(f, "%.*s:", PMIX_MAX_NSLEN, v->data.proc->nspace);
        print_rank(f, v->data.proc->rank);
        break;
    case PMIX_PROC_NSPACE:
        fprintf(f, "%.*s", PMIX_MAX_NSLEN, (const char *)p);
        break;
    case PMIX_PROC_INFO: {
        const pmix_proc_info_t *pi = p;
        fprintf(f, "%.*s:", PMIX_MAX_NSLEN, pi->proc.nspace);
        print_rank(f, pi->proc.rank);
        fputs(" host=", f);
        print_str(f, pi->hostname);
        fputs(" exe=", f);
        print_str(f, pi->executable_name);
        fprintf(f, " pid=%d exit=%d state=%s", (int)pi->pid, pi->exit_code,
                PMIx_Proc_state_string(pi->state));
        break;
    }
    case PMIX_DATA_ARRAY:
        print_darray(f, p, depth);
        break;
    case PMIX_COORD: {
        const pmix_coord_t *c = p;
        fprintf(f, "view=%u (", (unsigned)c->view);
        for (size_t i = 0; c->coord && i < c->dims; i++)
            fprintf(f, "%s%" PRIu32, i ? "," : "", c->coord[i]);
        fputc(')', f);
        break;
    }
    case PMIX_REGATTR: {
        const pmix_regattr_t *r = p;
        fputs("name=", f);
        print_str(f, r->name);
        fprintf(f, " key=%.*s type=%s", PMIX_MAX_KEYLEN, r->string, PMIx_Data_type_string(r->type));
        break;
    }
    case PMIX_PROC_CPUSET: {
        const pmix_cpuset_t *c = p;
        char *list = NULL;
        fputs("source=", f);
        print_str(f, c->source);
        if (c->bitmap && c->source && strcmp(c->source, "hwloc") == 0 &&
            hwloc_bitmap_list_asprintf(&list, (hwloc_const_bitmap_t)c->bitmap) >= 0) {
            fprintf(f, " cpus=%s", list);
            free(list);
        }
        break;
    }
    case PMIX_TOPO: {
        const pmix_topology_t *t = p;
        fputs("source=", f);
        print_str(f, t->source);
        fprintf(f, " topology=%p", t->topology);
        break;
    }
    case PMIX_GEOMETRY: {
        const pmix_geometry_t *g = p;
        fprintf(f, "fabric=%zu uuid=", g->fabric);
        print_str(f, g->uuid);
        fputs(" osname=", f);
        print_str(f, g->osname);
        fprintf(f, " ncoords=%zu", g->ncoords);
        break;
    }
    case PMIX_DEVICE_DIST: {
        const pmix_device_distance_t *d = p;
        fputs("uuid=", f);
        print_str(f, d->uuid);
        fputs(" osname=", f);
        print_str(f, d->osname);
        fprintf(f, " type=%s min=%u max=%u", PMIx_Device_type_string(d->type),
                (unsigned)d->mindist, (unsigned)d->maxdist);
        break;
    }
    case PMIX_ENDPOINT: {
        const pmix_endpoint_t *e = p;
        fputs("uuid=", f);
        print_str(f, e->uuid);
        fputs(" osname=", f);
        print_str(f, e->osname);
        fprintf(f, " endpt=%zu bytes", e->endpt.bytes ? e->endpt.size : 0);
        break;
    }
    case PMIX_DATA_BUFFER:
        fprintf(f, "%zu bytes", ((const pmix_data_buffer_t *)p)->bytes_used);
        break;
    case PMIX_PROC_STATS:
        fputs("node=", f);
        print_str(f, ((const pmix_proc_stats_t *)p)->node);
        fprintf(f, " pid=%d", (int)((const pmix_proc_stats_t *)p)->pid);
        break;
    case PMIX_DISK_STATS:
        fputs("disk=", f);
        print_str(f, ((const pmix_disk_stats_t *)p)->disk);
        break;
    case PMIX_NET_STATS:
        fputs("interface=", f);
        print_str(f, ((const pmix_net_stats_t *)p)->net_interface);
        break;
    case PMIX_NODE_STATS:
        fputs("node=", f);
        print_str(f, ((const pmix_node_stats_t *)p)->node);
        break;
    default:
        fputs("?", f);
        break;
    }
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
    switch (v->type) {
    case PMIX_UNDEF: fputs("(no data)", f); return;
    case PMIX_BOOL: fputs(v->data.flag ? "true" : "false", f); return;
    case PMIX_STRING: print_str(f, v->data.string); return;
    case PMIX_POINTER: fprintf(f, "%p", v->data.ptr); return;
    case PMIX_STATUS: fprintf(f, "%s (%d)", PMIx_Error_string(v->data.status), v->data.status); return;
    case PMIX_PROC_RANK: print_rank(f, v->data.rank); return;
    case PMIX_TIMEVAL:
        fprintf(f, "%lld.%06ld", (long long)v->data.tv.tv_sec, (long)v->data.tv.tv_usec);
        return;
    case PMIX_PERSIST: fputs(PMIx_Persistence_string(v->data.persist), f); return;
    case PMIX_SCOPE: fputs(PMIx_Scope_string(v->data.scope), f); return;
    case PMIX_DATA_RANGE: fputs(PMIx_Data_range_string(v->data.range), f); return;
    case PMIX_PROC_STATE: fputs(PMIx_Proc_state_string(v->data.state), f); return;
    case PMIX_JOB_STATE: fputs(PMIx_Job_state_string(v->data.jstate), f); return;
    case PMIX_LINK_STATE: fputs(PMIx_Link_state_string(v->data.linkstate), f); return;
    case PMIX_ALLOC_DIRECTIVE: fputs(PMIx_Alloc_directive_string(v->data.adir), f); return;
    case PMIX_IOF_CHANNEL: fputs(PMIx_IOF_channel_string(v->data.uint16), f); return;
    case PMIX_DEVTYPE: fputs(PMIx_Device_type_string(v->data.devtype), f); return;
    case PMIX_DATA_TYPE: fputs(PMIx_Data_type_string(v->data.uint16), f); return;
    case PMIX_ENVAR:
        fprintf(f, "%s=%s (sep '%c')", v->data.envar.envar ? v->data.envar.envar : "NULL",
                v->data.envar.value ? v->data.envar.value : "NULL",
                v->data.envar.separator ? v->data.envar.separator : ' ');
        return;
    case PMIX_REGEX:
        fprintf(f, "%.*s", (int)(v->data.bo.bytes ? strnlen(v->data.bo.bytes, v->data.bo.size) : 0),
                v->data.bo.bytes ? v->data.bo.bytes : "");
        return;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT:
        fprintf(f, "%zu bytes", v->data.bo.bytes ? v->data.bo.size : 0);
        return;
    default:
        break;
    }
    if (td->num != SPX_NUM_NONE) {
        print_number(f, td, v);
    } else if (td->store == SPX_TD_BOXED) {
        if (v->data.ptr)
            print_boxed(f, v, depth);
        else
            fputs("NULL", f);
    } else {
        fputs("?", f);
    }
}

/* Runs fn into a memory stream; returns the malloc'd text or NULL. */
static char *render(const void *obj, void (*fn)(FILE *, const void *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (f == NULL)
        return NULL;
    fn(f, obj);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void render_value(FILE *f, const void *v)
{
    if (v)
        print_value(f, v, 0);
    else
        fputs("NULL", f);
}

static void render_info(FILE *f, const void *info)
{
    if (info)
        print_info(f, info, 0);
    else
        fputs("NULL", f);
}

SPX_EXPORT char *PMIx_Value_string(const pmix_value_t *value)
{
    return render(value, render_value);
}

SPX_EXPORT char *PMIx_Info_string(const pmix_info_t *info)
{
    return render(info, render_info);
}
