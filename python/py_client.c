/* py_client.c - the blocking methods of pmix.PMIxClient.
 *
 * Each method converts its Python arguments (py_convert.c) with the GIL held,
 * calls the library with the GIL released (SPX_PY_NOGIL), converts the
 * results and frees what it built. Signatures and return shapes are those of
 * the older Cython binding: a status, or (status, result). A blocking method
 * called from a callback (the library's progress thread) returns
 * PMIX_ERR_WOULD_BLOCK. The non-blocking forms are in py_nb.c.
 */
#include "spx_py.h"

#include <stdlib.h>
#include <string.h>

#define SELF ((spx_py_client_t *)self)

/* A status result, or NULL when a conversion raised. */
/* (status, obj) with obj stolen; NULL when a conversion raised. */
static PyObject *pair_of(pmix_status_t rc, PyObject *obj)
{
    if (PyErr_Occurred() || !obj) {
        Py_XDECREF(obj);
        return NULL;
    }
    return Py_BuildValue("(iN)", (int)rc, obj);
}

static PyObject *client_init(PyObject *self, PyObject *args)
{
    PyObject *dicts = Py_None;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, "|O:init", &dicts))
        return NULL;
    if ((rc = spx_py_info_load(dicts, &info, &n)) != PMIX_SUCCESS)
        return pair_of(rc, PyDict_New());
    SPX_PY_NOGIL(rc = PMIx_Init(&SELF->myproc, info, n));
    PMIx_Info_free(info, n);
    if (rc != PMIX_SUCCESS)
        return pair_of(rc, PyDict_New());
    return pair_of(rc, spx_py_proc_unload(&SELF->myproc));
}

static PyObject *client_finalize(PyObject *self, PyObject *args)
{
    PyObject *dicts = Py_None;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "|O:finalize", &dicts))
        return NULL;
    if ((rc = spx_py_info_load(dicts, &info, &n)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    SPX_PY_NOGIL(rc = PMIx_Finalize(info, n));
    PMIx_Info_free(info, n);
    return spx_py_status(rc);
}

static PyObject *client_initialized(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(PMIx_Initialized());
}

static PyObject *client_get_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return spx_py_str(PMIx_Get_version());
}

static PyObject *client_abort(PyObject *self, PyObject *args)
{
    int status;
    PyObject *msg = Py_None, *peers = Py_None;
    char *m = NULL;
    pmix_proc_t *procs;
    size_t n;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, "i|OO:abort", &status, &msg, &peers))
        return NULL;
    if ((rc = spx_py_procs_load(peers, &SELF->myproc, &procs, &n)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    if (msg != Py_None) {
        PyObject *b = PyUnicode_Check(msg) ? PyUnicode_AsUTF8String(msg) : Py_NewRef(msg);
        if (!b || !PyBytes_Check(b)) {
            Py_XDECREF(b);
            PMIx_Proc_free(procs, n);
            return PyErr_Occurred() ? NULL : spx_py_status(PMIX_ERR_BAD_PARAM);
        }
        m = strdup(PyBytes_AS_STRING(b));
        Py_DECREF(b);
    }
    SPX_PY_NOGIL(rc = PMIx_Abort(status, m, procs, n));
    free(m);
    PMIx_Proc_free(procs, n);
    return spx_py_status(rc);
}

static PyObject *client_store_internal(PyObject *self, PyObject *args)
{
    PyObject *pyproc, *key, *val, *v, *t;
    pmix_proc_t p;
    pmix_key_t k;
    pmix_value_t value;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, "OOO:store_internal", &pyproc, &key, &val))
        return NULL;
    if (pyproc == Py_None)
        p = SELF->myproc;
    else if ((rc = spx_py_proc_load(&p, pyproc)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    if (spx_py_key_load(k, sizeof(k), key) != 0)
        return NULL;
    if (!PyDict_Check(val) || !(v = PyDict_GetItemString(val, "value")) ||
        !(t = PyDict_GetItemString(val, "val_type")))
        return spx_py_status(PMIX_ERR_BAD_PARAM);
    if ((rc = spx_py_value_load(&value, v, t)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    SPX_PY_NOGIL(rc = PMIx_Store_internal(&p, k, &value));
    PMIx_Value_destruct(&value);
    return spx_py_status(rc);
}

static PyObject *client_put(PyObject *self, PyObject *args)
{
    int scope;
    PyObject *key, *val, *v, *t;
    pmix_key_t k;
    pmix_value_t value;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "iOO:put", &scope, &key, &val))
        return NULL;
    if (spx_py_key_load(k, sizeof(k), key) != 0)
        return NULL;
    if (!PyDict_Check(val) || !(v = PyDict_GetItemString(val, "value")) ||
        !(t = PyDict_GetItemString(val, "val_type")))
        return spx_py_status(PMIX_ERR_BAD_PARAM);
    if ((rc = spx_py_value_load(&value, v, t)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    SPX_PY_NOGIL(rc = PMIx_Put((pmix_scope_t)scope, k, &value));
    PMIx_Value_destruct(&value);
    return spx_py_status(rc);
}

static PyObject *client_commit(PyObject *self, PyObject *unused)
{
    pmix_status_t rc;
    (void)self;
    (void)unused;
    SPX_PY_NOGIL(rc = PMIx_Commit());
    return spx_py_status(rc);
}

/* fence / connect / disconnect: (procs, info) -> status */
typedef pmix_status_t (*procs_info_fn)(const pmix_proc_t *, size_t, const pmix_info_t *, size_t);

static PyObject *procs_info_call(PyObject *self, PyObject *args, const char *fmt, procs_info_fn fn)
{
    PyObject *peers = Py_None, *dicts = Py_None;
    pmix_proc_t *procs;
    pmix_info_t *info;
    size_t np, ni;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, fmt, &peers, &dicts))
        return NULL;
    if ((rc = spx_py_procs_load(peers, &SELF->myproc, &procs, &np)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    if ((rc = spx_py_info_load(dicts, &info, &ni)) != PMIX_SUCCESS) {
        PMIx_Proc_free(procs, np);
        return spx_py_status(rc);
    }
    SPX_PY_NOGIL(rc = fn(procs, np, info, ni));
    PMIx_Proc_free(procs, np);
    PMIx_Info_free(info, ni);
    return spx_py_status(rc);
}

static PyObject *client_fence(PyObject *self, PyObject *args)
{
    return procs_info_call(self, args, "|OO:fence", PMIx_Fence);
}

static PyObject *client_connect(PyObject *self, PyObject *args)
{
    return procs_info_call(self, args, "|OO:connect", PMIx_Connect);
}

static PyObject *client_disconnect(PyObject *self, PyObject *args)
{
    return procs_info_call(self, args, "|OO:disconnect", PMIx_Disconnect);
}

static PyObject *client_get(PyObject *self, PyObject *args)
{
    PyObject *pyproc, *key, *dicts = Py_None, *res;
    pmix_proc_t p;
    pmix_key_t k;
    pmix_info_t *info;
    size_t n;
    pmix_value_t *val = NULL;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, "OO|O:get", &pyproc, &key, &dicts))
        return NULL;
    if (pyproc == Py_None)
        p = SELF->myproc;
    else if ((rc = spx_py_proc_load(&p, pyproc)) != PMIX_SUCCESS)
        return pair_of(rc, Py_NewRef(Py_None));
    if (spx_py_key_load(k, sizeof(k), key) != 0)
        return NULL;
    if ((rc = spx_py_info_load(dicts, &info, &n)) != PMIX_SUCCESS)
        return pair_of(rc, Py_NewRef(Py_None));
    SPX_PY_NOGIL(rc = PMIx_Get(&p, k, info, n, &val));
    PMIx_Info_free(info, n);
    if (rc != PMIX_SUCCESS || !val)
        return pair_of(rc, Py_NewRef(Py_None));
    res = spx_py_value_unload(val);
    PMIx_Value_free(val, 1);
    return pair_of(rc, res);
}

static PyObject *client_publish(PyObject *self, PyObject *args)
{
    PyObject *dicts = Py_None;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "|O:publish", &dicts))
        return NULL;
    if ((rc = spx_py_info_load(dicts, &info, &n)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    SPX_PY_NOGIL(rc = PMIx_Publish(info, n));
    PMIx_Info_free(info, n);
    return spx_py_status(rc);
}

static PyObject *client_unpublish(PyObject *self, PyObject *args)
{
    PyObject *keys = Py_None, *dicts = Py_None;
    char **argv;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "|OO:unpublish", &keys, &dicts))
        return NULL;
    if ((rc = spx_py_argv_load(keys, &argv)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    if ((rc = spx_py_info_load(dicts, &info, &n)) != PMIX_SUCCESS) {
        PMIx_Argv_free(argv);
        return spx_py_status(rc);
    }
    SPX_PY_NOGIL(rc = PMIx_Unpublish(argv, info, n));
    PMIx_Argv_free(argv);
    PMIx_Info_free(info, n);
    return spx_py_status(rc);
}

/* The keys of lookup's data list ([{'key': k, ...}] or [k, ...]) into pdata. */
pmix_status_t spx_py_pdata_keys(PyObject *data, pmix_pdata_t **out, size_t *n)
{
    Py_ssize_t len = (data == Py_None) ? 0 : PySequence_Size(data);
    *out = NULL;
    *n = 0;
    if (len <= 0) {
        PyErr_Clear();
        return PMIX_ERR_BAD_PARAM;
    }
    *out = PMIx_Pdata_create((size_t)len);
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *d = PySequence_GetItem(data, i), *k;
        k = (d && PyDict_Check(d)) ? PyDict_GetItemString(d, "key") : d;
        if (!k || spx_py_key_load((*out)[i].key, sizeof((*out)[i].key), k) != 0) {
            Py_XDECREF(d);
            PMIx_Pdata_free(*out, (size_t)len);
            *out = NULL;
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_KeyError, "key");
            return PMIX_ERR_BAD_PARAM;
        }
        Py_DECREF(d);
    }
    *n = (size_t)len;
    return PMIX_SUCCESS;
}

static PyObject *client_lookup(PyObject *self, PyObject *args)
{
    PyObject *data, *dicts = Py_None, *res;
    pmix_pdata_t *pdata;
    pmix_info_t *info;
    size_t np, ni;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "O|O:lookup", &data, &dicts))
        return NULL;
    if ((rc = spx_py_pdata_keys(data, &pdata, &np)) != PMIX_SUCCESS)
        return pair_of(rc, PyList_New(0));
    if ((rc = spx_py_info_load(dicts, &info, &ni)) != PMIX_SUCCESS) {
        PMIx_Pdata_free(pdata, np);
        return pair_of(rc, PyList_New(0));
    }
    SPX_PY_NOGIL(rc = PMIx_Lookup(pdata, np, info, ni));
    PMIx_Info_free(info, ni);
    /* the older binding returned the looked-up entries; a key not found has no value */
    res = spx_py_pdata_unload(pdata, rc == PMIX_SUCCESS ? np : 0);
    PMIx_Pdata_free(pdata, np);
    return pair_of(rc, res);
}

static PyObject *client_resolve_peers(PyObject *self, PyObject *args)
{
    PyObject *node = Py_None, *ns = Py_None;
    char nodebuf[256] = "", nsbuf[PMIX_MAX_NSLEN + 1] = "";
    pmix_proc_t *procs = NULL;
    size_t n = 0;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "|OO:resolve_peers", &node, &ns))
        return NULL;
    if ((node != Py_None && spx_py_key_load(nodebuf, sizeof(nodebuf), node) != 0) ||
        (ns != Py_None && spx_py_key_load(nsbuf, sizeof(nsbuf), ns) != 0))
        return NULL;
    SPX_PY_NOGIL(rc = PMIx_Resolve_peers(node == Py_None ? NULL : nodebuf,
                                         ns == Py_None ? NULL : nsbuf, &procs, &n));
    PyObject *l = spx_py_procs_unload(procs, rc == PMIX_SUCCESS ? n : 0);
    if (procs)
        PMIx_Proc_free(procs, n);
    return pair_of(rc, l);
}

static PyObject *client_resolve_nodes(PyObject *self, PyObject *args)
{
    PyObject *ns = Py_None, *res;
    char nsbuf[PMIX_MAX_NSLEN + 1] = "", *list = NULL;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "|O:resolve_nodes", &ns))
        return NULL;
    if (ns != Py_None && spx_py_key_load(nsbuf, sizeof(nsbuf), ns) != 0)
        return NULL;
    SPX_PY_NOGIL(rc = PMIx_Resolve_nodes(ns == Py_None ? NULL : nsbuf, &list));
    res = (rc == PMIX_SUCCESS && list) ? spx_py_str(list) : Py_NewRef(Py_None);
    free(list);
    return pair_of(rc, res);
}

/* [{'keys': [...], 'qualifiers': [info...]}] into queries (PMIx_Query_free). */
pmix_status_t spx_py_queries_load(PyObject *pyq, pmix_query_t **out, size_t *n)
{
    Py_ssize_t len = (pyq == Py_None) ? 0 : PySequence_Size(pyq);
    pmix_status_t rc = PMIX_SUCCESS;

    *out = NULL;
    *n = 0;
    if (len <= 0) {
        PyErr_Clear();
        return PMIX_ERR_BAD_PARAM;
    }
    *out = PMIx_Query_create((size_t)len);
    for (Py_ssize_t i = 0; i < len && rc == PMIX_SUCCESS; i++) {
        PyObject *q = PySequence_GetItem(pyq, i), *keys, *quals;
        if (!q || !PyDict_Check(q)) {
            rc = PMIX_ERR_BAD_PARAM;
        } else {
            keys = PyDict_GetItemString(q, "keys");
            quals = PyDict_GetItemString(q, "qualifiers");
            rc = spx_py_argv_load(keys, &(*out)[i].keys);
            if (rc == PMIX_SUCCESS)
                rc = spx_py_info_load(quals, &(*out)[i].qualifiers, &(*out)[i].nqual);
        }
        Py_XDECREF(q);
    }
    if (rc != PMIX_SUCCESS) {
        PMIx_Query_free(*out, (size_t)len);
        *out = NULL;
        return rc;
    }
    *n = (size_t)len;
    return rc;
}

static PyObject *client_query(PyObject *self, PyObject *args)
{
    PyObject *pyq, *res;
    pmix_query_t *q;
    pmix_info_t *results = NULL;
    size_t nq, nr = 0;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "O:query", &pyq))
        return NULL;
    if ((rc = spx_py_queries_load(pyq, &q, &nq)) != PMIX_SUCCESS)
        return pair_of(rc, PyList_New(0));
    SPX_PY_NOGIL(rc = PMIx_Query_info(q, nq, &results, &nr));
    PMIx_Query_free(q, nq);
    res = spx_py_info_unload(results, (rc == PMIX_SUCCESS || rc == PMIX_ERR_PARTIAL_SUCCESS) ? nr : 0);
    if (results)
        PMIx_Info_free(results, nr);
    return pair_of(rc, res);
}

static PyObject *client_log(PyObject *self, PyObject *args)
{
    PyObject *data = Py_None, *dirs = Py_None;
    pmix_info_t *d, *x;
    size_t nd, nx;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "O|O:log", &data, &dirs))
        return NULL;
    if ((rc = spx_py_info_load(data, &d, &nd)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    if ((rc = spx_py_info_load(dirs, &x, &nx)) != PMIX_SUCCESS) {
        PMIx_Info_free(d, nd);
        return spx_py_status(rc);
    }
    SPX_PY_NOGIL(rc = PMIx_Log(d, nd, x, nx));
    PMIx_Info_free(d, nd);
    PMIx_Info_free(x, nx);
    return spx_py_status(rc);
}

/* group_construct / group_invite: (grp, procs, info) -> (status, results) */
typedef pmix_status_t (*grp_procs_fn)(const char *, const pmix_proc_t *, size_t,
                                      const pmix_info_t *, size_t, pmix_info_t **, size_t *);

static PyObject *grp_procs_call(PyObject *self, PyObject *args, const char *fmt, grp_procs_fn fn)
{
    PyObject *peers = Py_None, *dicts = Py_None, *res;
    const char *grp;
    pmix_proc_t *procs;
    pmix_info_t *info, *results = NULL;
    size_t np, ni, nr = 0;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, fmt, &grp, &peers, &dicts))
        return NULL;
    if ((rc = spx_py_procs_load(peers, &SELF->myproc, &procs, &np)) != PMIX_SUCCESS)
        return pair_of(rc, PyList_New(0));
    if ((rc = spx_py_info_load(dicts, &info, &ni)) != PMIX_SUCCESS) {
        PMIx_Proc_free(procs, np);
        return pair_of(rc, PyList_New(0));
    }
    SPX_PY_NOGIL(rc = fn(grp, procs, np, info, ni, &results, &nr));
    PMIx_Proc_free(procs, np);
    PMIx_Info_free(info, ni);
    res = spx_py_info_unload(results, nr);
    if (results)
        PMIx_Info_free(results, nr);
    return pair_of(rc, res);
}

static PyObject *client_group_construct(PyObject *self, PyObject *args)
{
    return grp_procs_call(self, args, "s|OO:group_construct", PMIx_Group_construct);
}

static PyObject *client_group_invite(PyObject *self, PyObject *args)
{
    return grp_procs_call(self, args, "s|OO:group_invite", PMIx_Group_invite);
}

static PyObject *client_group_join(PyObject *self, PyObject *args)
{
    PyObject *leader = Py_None, *dicts = Py_None, *res;
    const char *grp;
    int opt;
    pmix_proc_t p;
    pmix_info_t *info, *results = NULL;
    size_t ni, nr = 0;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, "sOi|O:group_join", &grp, &leader, &opt, &dicts))
        return NULL;
    if (leader == Py_None)
        p = SELF->myproc;
    else if ((rc = spx_py_proc_load(&p, leader)) != PMIX_SUCCESS)
        return pair_of(rc, PyList_New(0));
    if ((rc = spx_py_info_load(dicts, &info, &ni)) != PMIX_SUCCESS)
        return pair_of(rc, PyList_New(0));
    SPX_PY_NOGIL(rc = PMIx_Group_join(grp, &p, (pmix_group_opt_t)opt, info, ni, &results, &nr));
    PMIx_Info_free(info, ni);
    res = spx_py_info_unload(results, nr);
    if (results)
        PMIx_Info_free(results, nr);
    return pair_of(rc, res);
}

/* group_leave / group_destruct: (grp, info) -> status */
typedef pmix_status_t (*grp_fn)(const char *, const pmix_info_t *, size_t);

static PyObject *grp_call(PyObject *args, const char *fmt, grp_fn fn)
{
    PyObject *dicts = Py_None;
    const char *grp;
    pmix_info_t *info;
    size_t ni;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, fmt, &grp, &dicts))
        return NULL;
    if ((rc = spx_py_info_load(dicts, &info, &ni)) != PMIX_SUCCESS)
        return spx_py_status(rc);
    SPX_PY_NOGIL(rc = fn(grp, info, ni));
    PMIx_Info_free(info, ni);
    return spx_py_status(rc);
}

static PyObject *client_group_leave(PyObject *self, PyObject *args)
{
    (void)self;
    return grp_call(args, "s|O:group_leave", PMIx_Group_leave);
}

static PyObject *client_group_destruct(PyObject *self, PyObject *args)
{
    (void)self;
    return grp_call(args, "s|O:group_destruct", PMIx_Group_destruct);
}

static PyObject *client_progress(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    SPX_PY_NOGIL(PMIx_Progress());
    Py_RETURN_NONE;
}

#define DOC_RC "Returns a PMIx status."
#define DOC_PAIR "Returns (status, result)."
PyMethodDef spx_py_client_methods[] = {
    { "init", client_init, METH_VARARGS,
      "init(info=[]) -> (status, {'nspace','rank'})\nPMIx_Init: connect to the local server." },
    { "finalize", client_finalize, METH_VARARGS, "finalize(info=[]) -> status\nPMIx_Finalize." },
    { "initialized", client_initialized, METH_NOARGS, "initialized() -> bool\nPMIx_Initialized." },
    { "get_version", client_get_version, METH_NOARGS, "get_version() -> str\nPMIx_Get_version." },
    { "abort", client_abort, METH_VARARGS,
      "abort(status, msg, procs=None) -> status\nPMIx_Abort: procs None or [] means the whole job." },
    { "store_internal", client_store_internal, METH_VARARGS,
      "store_internal(proc, key, {'value','val_type'}) -> status\nPMIx_Store_internal (proc None: "
      "this process)." },
    { "put", client_put, METH_VARARGS,
      "put(scope, key, {'value': v, 'val_type': T}) -> status\nPMIx_Put." },
    { "commit", client_commit, METH_NOARGS, "commit() -> status\nPMIx_Commit." },
    { "fence", client_fence, METH_VARARGS,
      "fence(procs=None, info=[]) -> status\nPMIx_Fence: procs None or [] means this process's "
      "namespace. Releases the GIL while it waits." },
    { "get", client_get, METH_VARARGS,
      "get(proc, key, info=[]) -> (status, {'value','val_type'} or None)\nPMIx_Get "
      "(proc None: this process)." },
    { "publish", client_publish, METH_VARARGS, "publish(info) -> status\nPMIx_Publish." },
    { "unpublish", client_unpublish, METH_VARARGS,
      "unpublish(keys, info=[]) -> status\nPMIx_Unpublish (keys None: all this process published)." },
    { "lookup", client_lookup, METH_VARARGS,
      "lookup([{'key': k}, ...], info=[]) -> (status, [{'key','proc','value','val_type'}])\n"
      "PMIx_Lookup." },
    { "connect", client_connect, METH_VARARGS, "connect(procs, info=[]) -> status\nPMIx_Connect." },
    { "disconnect", client_disconnect, METH_VARARGS,
      "disconnect(procs, info=[]) -> status\nPMIx_Disconnect." },
    { "resolve_peers", client_resolve_peers, METH_VARARGS,
      "resolve_peers(node, nspace) -> (status, [procs])\nPMIx_Resolve_peers." },
    { "resolve_nodes", client_resolve_nodes, METH_VARARGS,
      "resolve_nodes(nspace) -> (status, 'node,list')\nPMIx_Resolve_nodes." },
    { "query", client_query, METH_VARARGS,
      "query([{'keys': [...], 'qualifiers': [info]}]) -> (status, [info])\nPMIx_Query_info." },
    { "log", client_log, METH_VARARGS, "log(data, directives=[]) -> status\nPMIx_Log." },
    { "group_construct", client_group_construct, METH_VARARGS,
      "group_construct(grp, procs, info=[]) -> (status, [results])\nPMIx_Group_construct." },
    { "group_invite", client_group_invite, METH_VARARGS,
      "group_invite(grp, procs, info=[]) -> (status, [results])\nPMIx_Group_invite." },
    { "group_join", client_group_join, METH_VARARGS,
      "group_join(grp, leader, opt, info=[]) -> (status, [results])\nPMIx_Group_join. Not from "
      "an event handler (returns PMIX_ERR_WOULD_BLOCK there): use group_join_nb." },
    { "group_leave", client_group_leave, METH_VARARGS,
      "group_leave(grp, info=[]) -> status\nPMIx_Group_leave." },
    { "group_destruct", client_group_destruct, METH_VARARGS,
      "group_destruct(grp, info=[]) -> status\nPMIx_Group_destruct." },
    { "progress", client_progress, METH_NOARGS, "progress() -> None\nPMIx_Progress." },
    { NULL, NULL, 0, NULL }
};
