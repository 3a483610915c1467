/* data_print.c - PMIx_Data_print: a readable rendering of one element of
 * any type, for debugging.
 *
 * Scalars, strings, byte objects, procs, values, infos and data arrays are
 * printed with their contents (arrays and values recurse, bounded by
 * SPX_CODEC_MAX_DEPTH); the composite structs print their type and a
 * few identifying fields. The text is built in a memory stream and handed to
 * the caller (caller frees with free()).
 */
#include "config.h"
#include "codec/value_int.h"
#include "util/compiler.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <pmix.h>

static void print_elem(FILE *f, const char *prefix, pmix_data_type_t t, const void *p, int depth);

static void print_value(FILE *f, const char *prefix, const pmix_value_t *v, int depth)
{
    const spx_codec_type_t *ty = spx_codec_type_get(v->type);
    if (!ty || ty->slot == SPX_SLOT_NONE) {
        fprintf(f, "%sData type: %s\n", prefix, spx_codec_type_str(v->type));
        return;
    }
    if (ty->slot == SPX_SLOT_INLINE)
        print_elem(f, prefix, v->type, &v->data, depth);
    else if (v->data.ptr)
        print_elem(f, prefix, v->type, v->data.ptr, depth);
    else
        fprintf(f, "%sData type: %s\tValue: NULL\n", prefix, spx_codec_type_str(v->type));
}

static void print_elem(FILE *f, const char *prefix, pmix_data_type_t t, const void *p, int depth)
{
    const char *name = spx_codec_type_str(t);
    if (depth > SPX_CODEC_MAX_DEPTH) {
        fprintf(f, "%sData type: %s\t(nested too deep)\n", prefix, name);
        return;
    }
    fprintf(f, "%sData type: %s\tValue: ", prefix, name);
    switch (t) {
    case PMIX_BOOL: fprintf(f, "%s\n", *(const bool *)p ? "true" : "false"); break;
    case PMIX_BYTE: case PMIX_UINT8: case PMIX_PERSIST: case PMIX_SCOPE: case PMIX_DATA_RANGE:
    case PMIX_COMMAND: case PMIX_PROC_STATE: case PMIX_ALLOC_DIRECTIVE: case PMIX_JOB_STATE:
    case PMIX_LINK_STATE:
        fprintf(f, "%u\n", (unsigned)*(const uint8_t *)p);
        break;
    case PMIX_INT8: fprintf(f, "%d\n", (int)*(const int8_t *)p); break;
    case PMIX_INT16: fprintf(f, "%d\n", (int)*(const int16_t *)p); break;
    case PMIX_UINT16: case PMIX_DATA_TYPE: case PMIX_IOF_CHANNEL: case PMIX_LOCTYPE:
    case PMIX_STOR_ACCESS_TYPE:
        fprintf(f, "%u\n", (unsigned)*(const uint16_t *)p);
        break;
    case PMIX_INT: case PMIX_INT32: case PMIX_STATUS: case PMIX_PID:
        fprintf(f, "%d\n", *(const int32_t *)p);
        break;
    case PMIX_UINT: case PMIX_UINT32: case PMIX_INFO_DIRECTIVES: case PMIX_PROC_RANK:
        fprintf(f, "%" PRIu32 "\n", *(const uint32_t *)p);
        break;
    case PMIX_INT64: case PMIX_TIME: fprintf(f, "%" PRId64 "\n", *(const int64_t *)p); break;
    case PMIX_SIZE: case PMIX_UINT64: case PMIX_DEVTYPE: case PMIX_STOR_MEDIUM:
    case PMIX_STOR_ACCESS: case PMIX_STOR_PERSIST:
        fprintf(f, "%" PRIu64 "\n", *(const uint64_t *)p);
        break;
    case PMIX_FLOAT: fprintf(f, "%f\n", (double)*(const float *)p); break;
    case PMIX_DOUBLE: fprintf(f, "%f\n", *(const double *)p); break;
    case PMIX_TIMEVAL: {
        const struct timeval *tv = p;
        fprintf(f, "%ld.%06ld\n", (long)tv->tv_sec, (long)tv->tv_usec);
        break;
    }
    case PMIX_STRING: {
        const char *s = *(char *const *)p;
        fprintf(f, "%s\n", s ? s : "NULL");
        break;
    }
    case PMIX_POINTER: fprintf(f, "%p\n", *(void *const *)p); break;
    case PMIX_BYTE_OBJECT: case PMIX_COMPRESSED_STRING: case PMIX_REGEX:
    case PMIX_COMPRESSED_BYTE_OBJECT:
        fprintf(f, "%zu bytes\n", ((const pmix_byte_object_t *)p)->size);
        break;
    case PMIX_PROC: {
        const pmix_proc_t *pr = p;
        fprintf(f, "%.*s:%" PRIu32 "\n", PMIX_MAX_NSLEN, pr->nspace, pr->rank);
        break;
    }
    case PMIX_PROC_NSPACE: fprintf(f, "%.*s\n", PMIX_MAX_NSLEN, (const char *)p); break;
    case PMIX_VALUE:
        fprintf(f, "\n");
        print_value(f, prefix, p, depth + 1);
        break;
    case PMIX_INFO: {
        const pmix_info_t *in = p;
        fprintf(f, "key %.*s flags 0x%x\n", PMIX_MAX_KEYLEN, in->key, (unsigned)in->flags);
        print_value(f, prefix, &in->value, depth + 1);
        break;
    }
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *d = p;
        size_t size = spx_codec_type_size(d->type);
        fprintf(f, "%zu elements of %s\n", d->size, spx_codec_type_str(d->type));
        for (size_t i = 0; size && d->array && i < d->size; i++)
            print_elem(f, prefix, d->type, (const char *)d->array + i * size, depth + 1);
        break;
    }
    case PMIX_ENVAR: {
        const pmix_envar_t *e = p;
        fprintf(f, "%s=%s (separator '%c')\n", e->envar ? e->envar : "NULL",
                e->value ? e->value : "NULL", e->separator ? e->separator : ' ');
        break;
    }
    case PMIX_PROC_CPUSET: {
        const pmix_cpuset_t *c = p;
        fprintf(f, "source %s\n", c->source ? c->source : "NULL");
        break;
    }
    case PMIX_APP: {
        const pmix_app_t *a = p;
        fprintf(f, "cmd %s maxprocs %d ninfo %zu\n", a->cmd ? a->cmd : "NULL", a->maxprocs,
                a->ninfo);
        break;
    }
    default:
        fprintf(f, "(%s)\n", name);
        break;
    }
}

SPX_EXPORT pmix_status_t PMIx_Data_print(char **output, char *prefix, void *src,
                                         pmix_data_type_t type)
{
    if (!output)
        return PMIX_ERR_BAD_PARAM;
    *output = NULL;
    if (type != PMIX_UNDEF && !spx_codec_type_get(type))
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return PMIX_ERR_NOMEM;
    const char *pre = prefix ? prefix : "";
    if (!src)
        fprintf(f, "%sData type: %s\tValue: NULL\n", pre, spx_codec_type_str(type));
    else if (type == PMIX_STRING) /* like PMIx_Data_copy, src is the string itself */
        fprintf(f, "%sData type: PMIX_STRING\tValue: %s\n", pre, (const char *)src);
    else if (type == PMIX_UNDEF)
        fprintf(f, "%sData type: PMIX_UNDEF\n", pre);
    else
        print_elem(f, pre, type, src, 0);
    if (fclose(f) != 0 || !text) {
        free(text);
        return PMIX_ERR_NOMEM;
    }
    if (len > 0 && text[len - 1] == '\n')
        text[len - 1] = '\0';
    *output = text;
    return PMIX_SUCCESS;
}
