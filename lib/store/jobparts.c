/* jobparts.c - node-level, app-level and session-level parts of a job's
 * info (jobparts.h).
 *
 * Adding merges an info array into the part it names (found through the
 * index keys, or a new one) and indexes the part by host name, node id or
 * app number (the one session part needs no index). A qualified lookup reads the qualifiers, finds the part
 * through the index and the key inside the part's array. Everything is
 * kept in the caller's store, so the parts travel and are freed with it.
 */
#include "config.h"

#include "store/jobparts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types.h"

#define PART_NNODES "spx.nnodes"
#define PART_SESSION "spx.session"

/* "spx.<what>.<name>" into buf (PMIX_MAX_KEYLEN + 1); false when too long. */
static bool part_key(char *buf, const char *what, const char *name)
{
    int len = snprintf(buf, PMIX_MAX_KEYLEN + 1, "spx.%s.%s", what, name);
    return len > 0 && len <= PMIX_MAX_KEYLEN;
}

static bool part_key_u32(char *buf, const char *what, uint32_t v)
{
    char num[16];
    snprintf(num, sizeof(num), "%u", v);
    return part_key(buf, what, num);
}

/* The u32 stored under key, or -1. */
static long part_u32(const spx_store_t *s, const char *ns, const char *key)
{
    const pmix_value_t *v = spx_store_peek(s, ns, SPX_RANK_JOBPARTS, key, NULL);
    uint32_t u;
    return v && spx_value_to_u32(v, &u) == PMIX_SUCCESS ? (long)u : -1;
}

static pmix_status_t part_put_u32(spx_store_t *s, const char *ns, const char *key, uint32_t u)
{
    pmix_value_t v = {.type = PMIX_UINT32};
    v.data.uint32 = u;
    return spx_store_put(s, ns, SPX_RANK_JOBPARTS, key, &v, PMIX_INTERNAL);
}

/* An index entry that is not there yet (the first part to claim a name keeps it). */
static pmix_status_t index_add(spx_store_t *s, const char *ns, const char *what, const char *name,
                               uint32_t idx)
{
    char key[PMIX_MAX_KEYLEN + 1];
    if (!part_key(key, what, name) || part_u32(s, ns, key) >= 0)
        return PMIX_SUCCESS;
    return part_put_u32(s, ns, key, idx);
}

static const pmix_info_t *part_infos(const pmix_value_t *v, size_t *n)
{
    *n = 0;
    if (!v || v->type != PMIX_DATA_ARRAY || !v->data.darray ||
        v->data.darray->type != PMIX_INFO || !v->data.darray->array)
        return NULL;
    *n = v->data.darray->size;
    return v->data.darray->array;
}

/* The part under key gets the entries of in[0..n) whose keys it lacks. */
static pmix_status_t part_merge(spx_store_t *s, const char *ns, const char *key,
                                const pmix_info_t *in, size_t n)
{
    size_t on;
    const pmix_info_t *old = part_infos(spx_store_peek(s, ns, SPX_RANK_JOBPARTS, key, NULL), &on);
    bool *take = calloc(n ? n : 1, sizeof(*take));
    if (!take)
        return PMIX_ERR_NOMEM;
    size_t add = 0;
    for (size_t i = 0; i < n; i++) {
        take[i] = !spx_info_find(old, on, in[i].key) && !spx_info_find(in, i, in[i].key);
        add += take[i];
    }
    pmix_status_t rc = PMIX_SUCCESS;
    pmix_info_t *tmp = NULL;
    size_t m = 0;
    if (add == 0 && old)
        goto out;
    PMIX_INFO_CREATE(tmp, on + add ? on + add : 1);
    if (!tmp) {
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < on && rc == PMIX_SUCCESS; i++)
        rc = PMIx_Info_xfer(&tmp[m++], &old[i]);
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++)
        if (take[i])
            rc = PMIx_Info_xfer(&tmp[m++], &in[i]);
    if (rc == PMIX_SUCCESS) {
        pmix_data_array_t da = {.type = PMIX_INFO, .size = m, .array = tmp};
        pmix_value_t v = {.type = PMIX_DATA_ARRAY};
        v.data.darray = &da;
        rc = spx_store_put(s, ns, SPX_RANK_JOBPARTS, key, &v, PMIX_INTERNAL);
    }
    PMIX_INFO_FREE(tmp, on + add ? on + add : 1);
out:
    free(take);
    return rc;
}

/* Index of the node known by that name: the name itself, else its short
 * form (a fully qualified name asked of a job registered with short ones). */
static long node_by_host(const spx_store_t *s, const char *ns, const char *host)
{
    char key[PMIX_MAX_KEYLEN + 1];
    long idx = part_key(key, "host", host) ? part_u32(s, ns, key) : -1;
    size_t shortlen = strcspn(host, ".");
    if (idx < 0 && host[shortlen] && shortlen > 0 && shortlen < 256) {
        char shortname[256];
        memcpy(shortname, host, shortlen);
        shortname[shortlen] = '\0';
        idx = part_key(key, "host", shortname) ? part_u32(s, ns, key) : -1;
    }
    return idx;
}

static long node_by_id(const spx_store_t *s, const char *ns, uint32_t id)
{
    char key[PMIX_MAX_KEYLEN + 1];
    return part_key_u32(key, "nodeid", id) ? part_u32(s, ns, key) : -1;
}

pmix_status_t spx_jobparts_add_node(spx_store_t *s, const char *nspace, const pmix_info_t *in,
                                    size_t n)
{
    const pmix_info_t *h = spx_info_find(in, n, PMIX_HOSTNAME);
    const pmix_info_t *id = spx_info_find(in, n, PMIX_NODEID);
    const char *host = h && h->value.type == PMIX_STRING && h->value.data.string &&
                               h->value.data.string[0]
                           ? h->value.data.string
                           : NULL;
    uint32_t nid = 0;
    bool have_id = id && spx_value_to_u32(&id->value, &nid) == PMIX_SUCCESS;
    if (!host && !have_id)
        return PMIX_SUCCESS;
    /* a named node is found by its exact name, an unnamed one by its id */
    char key[PMIX_MAX_KEYLEN + 1];
    long idx = -1;
    if (host && part_key(key, "host", host))
        idx = part_u32(s, nspace, key);
    else if (!host)
        idx = node_by_id(s, nspace, nid);
    pmix_status_t rc = PMIX_SUCCESS;
    if (idx < 0) {
        long nn = part_u32(s, nspace, PART_NNODES);
        idx = nn < 0 ? 0 : nn;
        rc = part_put_u32(s, nspace, PART_NNODES, (uint32_t)idx + 1);
    }
    if (rc == PMIX_SUCCESS && part_key_u32(key, "node", (uint32_t)idx))
        rc = part_merge(s, nspace, key, in, n);
    if (rc == PMIX_SUCCESS && host)
        rc = index_add(s, nspace, "host", host, (uint32_t)idx);
    size_t shortlen = host ? strcspn(host, ".") : 0;
    if (rc == PMIX_SUCCESS && host && host[shortlen] && shortlen > 0 && shortlen < 256) {
        char shortname[256];
        memcpy(shortname, host, shortlen);
        shortname[shortlen] = '\0';
        rc = index_add(s, nspace, "host", shortname, (uint32_t)idx);
    }
    if (rc == PMIX_SUCCESS && have_id && part_key_u32(key, "nodeid", nid) &&
        part_u32(s, nspace, key) < 0)
        rc = part_put_u32(s, nspace, key, (uint32_t)idx);
    return rc;
}

pmix_status_t spx_jobparts_add_app(spx_store_t *s, const char *nspace, const pmix_info_t *in,
                                   size_t n)
{
    const pmix_info_t *a = spx_info_find(in, n, PMIX_APPNUM);
    uint32_t appnum = 0;
    if (a && spx_value_to_u32(&a->value, &appnum) != PMIX_SUCCESS)
        return PMIX_SUCCESS; /* an app that cannot be asked for */
    char key[PMIX_MAX_KEYLEN + 1];
    part_key_u32(key, "app", appnum);
    return part_merge(s, nspace, key, in, n);
}

pmix_status_t spx_jobparts_add_session(spx_store_t *s, const char *nspace, const pmix_info_t *in,
                                       size_t n)
{
    return part_merge(s, nspace, PART_SESSION, in, n);
}

bool spx_jobparts_any(const spx_store_t *s, const char *nspace)
{
    return spx_store_count(s, nspace, SPX_RANK_JOBPARTS) > 0;
}

bool spx_jobparts_qualified(const pmix_info_t *qual, size_t nqual)
{
    for (size_t i = 0; qual && i < nqual; i++)
        if ((spx_key_eq(qual[i].key, PMIX_NODE_INFO) || spx_key_eq(qual[i].key, PMIX_APP_INFO) ||
             spx_key_eq(qual[i].key, PMIX_SESSION_INFO)) &&
            spx_info_true(&qual[i]))
            return true;
    return false;
}

/* The session part (key) when it is the one sid (a PMIX_SESSION_ID
 * qualifier, or NULL: the job's) names; else *rc says why not. */
static void select_session(const spx_store_t *s, const char *ns, const pmix_info_t *sid,
                           char *key, pmix_status_t *rc)
{
    size_t n;
    const pmix_info_t *part = part_infos(spx_store_peek(s, ns, SPX_RANK_JOBPARTS, PART_SESSION,
                                                        NULL),
                                         &n);
    uint32_t want, have;
    *rc = PMIX_SUCCESS;
    if (sid && spx_value_to_u32(&sid->value, &want) != PMIX_SUCCESS) {
        *rc = PMIX_ERR_BAD_PARAM;
        return;
    }
    const pmix_info_t *id = spx_info_find(part, n, PMIX_SESSION_ID);
    if (!part || (sid && (!id || spx_value_to_u32(&id->value, &have) != PMIX_SUCCESS ||
                          have != want))) {
        *rc = PMIX_ERR_NOT_FOUND; /* no session info, or another session's */
        return;
    }
    snprintf(key, PMIX_MAX_KEYLEN + 1, "%s", PART_SESSION);
}

/* The part (key) that the qualifiers select, when they select one.
 * Returns false for "no part asked for / not known which is ours". */
static bool select_part(const spx_store_t *s, const char *ns, const pmix_info_t *qual,
                        size_t nqual, char *key, pmix_status_t *rc)
{
    bool node = false, app = false, session = false;
    const pmix_info_t *which = NULL, *appnum = NULL, *sid = NULL;
    for (size_t i = 0; i < nqual; i++) {
        const pmix_info_t *q = &qual[i];
        if (spx_key_eq(q->key, PMIX_NODE_INFO))
            node = node || spx_info_true(q);
        else if (spx_key_eq(q->key, PMIX_APP_INFO))
            app = app || spx_info_true(q);
        else if (spx_key_eq(q->key, PMIX_SESSION_INFO))
            session = session || spx_info_true(q);
        else if (!which && (spx_key_eq(q->key, PMIX_HOSTNAME) || spx_key_eq(q->key, PMIX_NODEID)))
            which = q;
        else if (!appnum && spx_key_eq(q->key, PMIX_APPNUM))
            appnum = q;
        else if (!sid && spx_key_eq(q->key, PMIX_SESSION_ID))
            sid = q;
    }
    *rc = PMIX_SUCCESS;
    uint32_t u;
    long idx = -1;
    if (node) {
        if (which && spx_key_eq(which->key, PMIX_NODEID)) {
            if (spx_value_to_u32(&which->value, &u) != PMIX_SUCCESS)
                *rc = PMIX_ERR_BAD_PARAM;
            else
                idx = node_by_id(s, ns, u);
        } else if (which) {
            if (which->value.type != PMIX_STRING || !which->value.data.string)
                *rc = PMIX_ERR_BAD_PARAM;
            else
                idx = node_by_host(s, ns, which->value.data.string);
        } else { /* this node */
            const pmix_value_t *v = spx_store_peek(s, ns, PMIX_RANK_WILDCARD, PMIX_NODEID, NULL);
            if (v && spx_value_to_u32(v, &u) == PMIX_SUCCESS)
                idx = node_by_id(s, ns, u);
            v = spx_store_peek(s, ns, PMIX_RANK_WILDCARD, PMIX_HOSTNAME, NULL);
            if (idx < 0 && v && v->type == PMIX_STRING && v->data.string)
                idx = node_by_host(s, ns, v->data.string);
            if (idx < 0)
                return false;
        }
        if (idx >= 0)
            part_key_u32(key, "node", (uint32_t)idx);
        else if (*rc == PMIX_SUCCESS)
            *rc = PMIX_ERR_NOT_FOUND;
        return true;
    }
    if (!app && session) {
        select_session(s, ns, sid, key, rc);
        return true;
    }
    if (!app)
        return false;
    if (appnum) {
        if (spx_value_to_u32(&appnum->value, &u) != PMIX_SUCCESS) {
            *rc = PMIX_ERR_BAD_PARAM;
            return true;
        }
    } else { /* this app */
        const pmix_value_t *v = spx_store_peek(s, ns, PMIX_RANK_WILDCARD, PMIX_APPNUM, NULL);
        if (!v || spx_value_to_u32(v, &u) != PMIX_SUCCESS)
            return false;
    }
    part_key_u32(key, "app", u);
    return true;
}

bool spx_jobparts_lookup(const spx_store_t *s, const char *nspace, const char *key,
                         const pmix_info_t *qual, size_t nqual, pmix_status_t *rc,
                         const pmix_value_t **out)
{
    char pkey[PMIX_MAX_KEYLEN + 1];
    *out = NULL;
    if (!qual || nqual == 0 || !select_part(s, nspace, qual, nqual, pkey, rc))
        return false;
    if (*rc != PMIX_SUCCESS)
        return true;
    size_t n;
    const pmix_info_t *part = part_infos(spx_store_peek(s, nspace, SPX_RANK_JOBPARTS, pkey, NULL),
                                         &n);
    const pmix_info_t *hit = spx_info_find(part, n, key);
    if (!hit) {
        *rc = PMIX_ERR_NOT_FOUND;
        return true;
    }
    *out = &hit->value;
    return true;
}
