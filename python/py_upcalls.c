/* py_upcalls.c - the server module of pmix.PMIxServer: the library's host
 * upcalls run the Python functions given to PMIxServer.init.
 *
 * init's map names Python functions by the older binding's keys
 * ('clientconnected', 'fencenb', ...; the pmix_server_module_t field names,
 * 'client_connected', 'fence_nb', ..., are accepted too). Only the upcalls
 * that this library calls get an entry in the C module table; for a missing
 * function the entry stays NULL and the library does its own default. A
 * function for an upcall the library never calls (spawn, connect, log, ...)
 * draws one RuntimeWarning naming it; an unknown name raises ValueError and a
 * value that is not callable TypeError. A second init that the library
 * refuses leaves the running server's functions as they were.
 *
 * Each upcall runs on the library's progress thread: it takes the GIL,
 * converts the arguments into the binding's dict forms, calls the function
 * and converts its answer. An upcall that only completes (client connected,
 * abort, publish, ...) turns a PMIX_SUCCESS answer (or None) into
 * PMIX_OPERATION_SUCCEEDED, so the library finishes the request itself. An
 * upcall that returns data (fencenb, lookup, query, group) calls the
 * library's callback before it returns (the library shifts that callback
 * onto its thread), with data copied out of Python. A function that raises,
 * or answers in the wrong shape, is reported with PyErr_WriteUnraisable
 * (traceback on stderr, or sys.unraisablehook) and the request fails with
 * PMIX_ERROR. A blocking PMIx call made from such a function returns
 * PMIX_ERR_WOULD_BLOCK.
 */
#include "spx_py.h"

#include <stdlib.h>
#include <string.h>

static PyObject *fns; /* {canonical name: callable}: the module's _server_module */
static __thread int on_progress;

/* The upcall names: the binding's, the C field's, whether the library calls it. */
static const struct upcall_name {
    const char *name, *field;
    int called;
} names[] = {
    { "clientconnected", "client_connected", 1 },
    { "clientfinalized", "client_finalized", 1 },
    { "abort", "abort", 1 },
    { "fencenb", "fence_nb", 1 },
    { "directmodex", "direct_modex", 0 },
    { "publish", "publish", 1 },
    { "lookup", "lookup", 1 },
    { "unpublish", "unpublish", 1 },
    { "spawn", "spawn", 0 },
    { "connect", "connect", 0 },
    { "disconnect", "disconnect", 0 },
    { "registerevents", "register_events", 0 },
    { "deregisterevents", "deregister_events", 0 },
    { "listener", "listener", 0 },
    { "notify_event", "notifyevent", 1 },
    { "query", "query", 1 },
    { "toolconnected", "tool_connected", 0 },
    { "log", "log", 0 },
    { "allocate", "allocate", 0 },
    { "jobcontrol", "job_control", 1 },
    { "monitor", "monitor", 0 },
    { "getcredential", "get_credential", 0 },
    { "validatecredential", "validate_credential", 0 },
    { "iofpull", "iof_pull", 0 },
    { "pushstdin", "push_stdin", 1 },
    { "group", "group", 1 },
    { "fabric", "fabric", 0 },
    { NULL, NULL, 0 }
};

int spx_py_on_progress(void)
{
    return on_progress;
}

void spx_py_mark_progress(void)
{
    on_progress = 1;
}

/* ---- calling Python ---- */

/* The function for name (borrowed) or NULL; takes the GIL into *g when found. */
static PyObject *enter(const char *name, PyGILState_STATE *g)
{
    PyObject *fn;
    on_progress = 1;
    if (spx_py_dying || !fns)
        return NULL;
    *g = PyGILState_Ensure();
    fn = PyDict_GetItemString(fns, name);
    if (!fn)
        PyGILState_Release(*g);
    return fn;
}

/* fn(*args) (args: new tuple, stolen): its answer, or NULL with the exception reported. */
static PyObject *call(PyObject *fn, PyObject *args)
{
    PyObject *ret = args ? PyObject_CallObject(fn, args) : NULL;
    Py_XDECREF(args);
    if (!ret)
        PyErr_WriteUnraisable(fn);
    return ret;
}

/* Reports a wrong answer of fn as a TypeError; returns PMIX_ERROR. */
static pmix_status_t bad_answer(PyObject *fn, const char *name, const char *want)
{
    PyErr_Format(PyExc_TypeError, "pmix.PMIxServer: the '%s' server function must return %s",
                 name, want);
    PyErr_WriteUnraisable(fn);
    return PMIX_ERROR;
}

/* An answer's status: ret is an int, None (success) or a tuple starting with
 * one; *rest gets the tuple's second item (borrowed) when asked for. */
static pmix_status_t answer(PyObject *fn, const char *name, PyObject *ret, PyObject **rest,
                            const char *want)
{
    PyObject *code = ret;
    if (rest)
        *rest = Py_None;
    if (!ret)
        return PMIX_ERROR;
    if (PyTuple_Check(ret)) {
        if (PyTuple_GET_SIZE(ret) < 1 || (rest && PyTuple_GET_SIZE(ret) < 2))
            return bad_answer(fn, name, want);
        code = PyTuple_GET_ITEM(ret, 0);
        if (rest)
            *rest = PyTuple_GET_ITEM(ret, 1);
    }
    if (code == Py_None)
        return PMIX_SUCCESS;
    if (!PyLong_Check(code))
        return bad_answer(fn, name, want);
    long v = PyLong_AsLong(code);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_WriteUnraisable(fn);
        return PMIX_ERROR;
    }
    return (pmix_status_t)v;
}

/* Runs an upcall that only completes: fn(args) -> status. */
static pmix_status_t op_upcall(const char *name, PyObject *(*build)(void *), void *arg)
{
    PyGILState_STATE g;
    PyObject *fn = enter(name, &g), *ret;
    pmix_status_t rc;
    if (!fn)
        return PMIX_ERR_NOT_SUPPORTED;
    ret = call(fn, build(arg));
    rc = answer(fn, name, ret, NULL, "a PMIx status (int) or None");
    Py_XDECREF(ret);
    PyGILState_Release(g);
    return rc == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : rc;
}

static PyObject *info_list(const pmix_info_t *info, size_t n)
{
    return spx_py_info_unload(info, info ? n : 0);
}

static PyObject *keys_list(char **keys)
{
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && keys && keys[i]; i++) {
        PyObject *s = spx_py_str(keys[i]);
        if (!s || PyList_Append(l, s) != 0) {
            Py_XDECREF(s);
            Py_CLEAR(l);
        }
        Py_XDECREF(s);
    }
    return l;
}

/* ---- upcalls that only complete ---- */

static PyObject *b_proc(void *a)
{
    return Py_BuildValue("(N)", spx_py_proc_unload(a));
}

static pmix_status_t up_connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
                                  void *cbdata)
{
    (void)obj, (void)cb, (void)cbdata;
    return op_upcall("clientconnected", b_proc, (void *)proc);
}

static pmix_status_t up_finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
                                  void *cbdata)
{
    (void)obj, (void)cb, (void)cbdata;
    return op_upcall("clientfinalized", b_proc, (void *)proc);
}

struct a_abort {
    const pmix_proc_t *proc, *procs;
    size_t nprocs;
    int status;
    const char *msg;
};

static PyObject *b_abort(void *a)
{
    struct a_abort *x = a;
    return Py_BuildValue("({s:N,s:i,s:N,s:N})", "caller", spx_py_proc_unload(x->proc), "status",
                         x->status, "msg", spx_py_str(x->msg), "targets",
                         spx_py_procs_unload(x->procs, x->procs ? x->nprocs : 0));
}

static pmix_status_t up_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cb,
                              void *cbdata)
{
    struct a_abort x = { proc, procs, nprocs, status, msg };
    (void)obj, (void)cb, (void)cbdata;
    return op_upcall("abort", b_abort, &x);
}

struct a_pub {
    const pmix_proc_t *proc;
    const pmix_info_t *info;
    size_t ninfo;
    char **keys;
};

static PyObject *b_publish(void *a)
{
    struct a_pub *x = a;
    return Py_BuildValue("({s:N,s:N})", "proc", spx_py_proc_unload(x->proc), "directives",
                         info_list(x->info, x->ninfo));
}

static PyObject *b_keys(void *a)
{
    struct a_pub *x = a;
    return Py_BuildValue("({s:N,s:N,s:N})", "proc", spx_py_proc_unload(x->proc), "keys",
                         keys_list(x->keys), "directives", info_list(x->info, x->ninfo));
}

static pmix_status_t up_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cb, void *cbdata)
{
    struct a_pub x = { proc, info, ninfo, NULL };
    (void)cb, (void)cbdata;
    return op_upcall("publish", b_publish, &x);
}

static pmix_status_t up_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                                  size_t ninfo, pmix_op_cbfunc_t cb, void *cbdata)
{
    struct a_pub x = { proc, info, ninfo, keys };
    (void)cb, (void)cbdata;
    return op_upcall("unpublish", b_keys, &x);
}

struct a_ev {
    pmix_status_t code;
    const pmix_proc_t *source;
    pmix_data_range_t range;
    const pmix_info_t *info;
    size_t ninfo;
};

static PyObject *b_notify(void *a)
{
    struct a_ev *x = a;
    return Py_BuildValue("({s:i,s:N,s:i,s:N})", "code", (int)x->code, "source",
                         x->source ? spx_py_proc_unload(x->source) : Py_NewRef(Py_None), "range",
                         (int)x->range, "directives", info_list(x->info, x->ninfo));
}

static pmix_status_t up_notify(pmix_status_t code, const pmix_proc_t *source,
                               pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cb, void *cbdata)
{
    struct a_ev x = { code, source, range, info, ninfo };
    (void)cb, (void)cbdata;
    return op_upcall("notify_event", b_notify, &x);
}

struct a_targets {
    const pmix_proc_t *source, *targets;
    size_t ntargets;
    const pmix_info_t *info;
    size_t ninfo;
    const pmix_byte_object_t *bo;
};

static PyObject *b_jobctl(void *a)
{
    struct a_targets *x = a;
    return Py_BuildValue("({s:N,s:N,s:N})", "source", spx_py_proc_unload(x->source), "targets",
                         spx_py_procs_unload(x->targets, x->targets ? x->ntargets : 0),
                         "directives", info_list(x->info, x->ninfo));
}

static pmix_status_t up_jobctl(const pmix_proc_t *req, const pmix_proc_t targets[],
                               size_t ntargets, const pmix_info_t dirs[], size_t ndirs,
                               pmix_info_cbfunc_t cb, void *cbdata)
{
    struct a_targets x = { req, targets, ntargets, dirs, ndirs, NULL };
    (void)cb, (void)cbdata;
    return op_upcall("jobcontrol", b_jobctl, &x);
}

static PyObject *b_stdin(void *a)
{
    struct a_targets *x = a;
    const pmix_byte_object_t *bo = x->bo;
    return Py_BuildValue("({s:N,s:N,s:N,s:{s:y#,s:n}})", "source",
                         spx_py_proc_unload(x->source), "targets",
                         spx_py_procs_unload(x->targets, x->targets ? x->ntargets : 0),
                         "directives", info_list(x->info, x->ninfo), "payload", "bytes",
                         bo && bo->bytes ? bo->bytes : "", (Py_ssize_t)(bo ? bo->size : 0),
                         "size", (Py_ssize_t)(bo ? bo->size : 0));
}

static pmix_status_t up_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
                              size_t ntargets, const pmix_info_t dirs[], size_t ndirs,
                              const pmix_byte_object_t *bo, pmix_op_cbfunc_t cb, void *cbdata)
{
    struct a_targets x = { source, targets, ntargets, dirs, ndirs, bo };
    (void)cb, (void)cbdata;
    return op_upcall("pushstdin", b_stdin, &x);
}

/* ---- upcalls that return data ---- */

static void free_arg(void *p)
{
    free(p);
}

static pmix_status_t up_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
                              void *cbdata)
{
    PyGILState_STATE g;
    PyObject *fn = enter("fencenb", &g), *ret, *out;
    pmix_byte_object_t bo = { NULL, 0 };
    pmix_status_t rc;
    if (!fn)
        return PMIX_ERR_NOT_SUPPORTED;
    ret = call(fn, Py_BuildValue("({s:N,s:N,s:N})", "procs", spx_py_procs_unload(procs, nprocs),
                                 "directives", info_list(info, ninfo), "data",
                                 PyByteArray_FromStringAndSize(data ? data : "",
                                                               (Py_ssize_t)ndata)));
    rc = answer(fn, "fencenb", ret, &out, "(status, data: bytes or bytearray)");
    if (ret && rc == PMIX_SUCCESS && out != Py_None &&
        spx_py_bytes_load(out, &bo) != PMIX_SUCCESS)
        rc = bad_answer(fn, "fencenb", "(status, data: bytes or bytearray)");
    Py_XDECREF(ret);
    PyGILState_Release(g);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        free(bo.bytes);
        return rc;
    }
    cb(PMIX_SUCCESS, bo.bytes, bo.size, cbdata, free_arg, bo.bytes);
    return PMIX_SUCCESS;
}

static pmix_status_t up_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_lookup_cbfunc_t cb, void *cbdata)
{
    PyGILState_STATE g;
    PyObject *fn = enter("lookup", &g), *ret, *out;
    pmix_pdata_t *pd = NULL;
    Py_ssize_t n = 0;
    pmix_status_t rc;
    struct a_pub x = { proc, info, ninfo, keys };
    const char *want = "(status, [{'key', 'value', 'val_type'[, 'proc']}])";
    if (!fn)
        return PMIX_ERR_NOT_SUPPORTED;
    ret = call(fn, b_keys(&x));
    rc = answer(fn, "lookup", ret, &out, want);
    if (ret && rc == PMIX_SUCCESS && out != Py_None) {
        n = PySequence_Check(out) ? PySequence_Size(out) : -1;
        if (n < 0) {
            PyErr_Clear();
            rc = bad_answer(fn, "lookup", want);
            n = 0;
        } else if (n > 0) {
            PMIX_PDATA_CREATE(pd, (size_t)n);
        }
        for (Py_ssize_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
            PyObject *d = PySequence_GetItem(out, i), *k, *p;
            if (!d || !PyDict_Check(d) || !(k = PyDict_GetItemString(d, "key")) ||
                spx_py_key_load(pd[i].key, sizeof(pd[i].key), k) != 0 ||
                spx_py_value_load(&pd[i].value, PyDict_GetItemString(d, "value"),
                                  PyDict_GetItemString(d, "val_type")) != PMIX_SUCCESS) {
                PyErr_Clear();
                rc = bad_answer(fn, "lookup", want);
            } else if ((p = PyDict_GetItemString(d, "proc")) &&
                       spx_py_proc_load(&pd[i].proc, p) != PMIX_SUCCESS) {
                PyErr_Clear();
                rc = bad_answer(fn, "lookup", want);
            } else if (!p) {
                pd[i].proc = *proc;
            }
            Py_XDECREF(d);
        }
    }
    Py_XDECREF(ret);
    PyGILState_Release(g);
    if (rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED)
        cb(PMIX_SUCCESS, pd, (size_t)n, cbdata); /* encoded during the call */
    if (pd)
        PMIX_PDATA_FREE(pd, (size_t)n);
    return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
}

struct info_hold {
    pmix_info_t *info;
    size_t n;
};

static void info_release(void *arg)
{
    struct info_hold *h = arg;
    if (h->info)
        PMIx_Info_free(h->info, h->n);
    free(h);
}

/* Calls an info callback with the list out (a Python list of info dicts). */
static pmix_status_t info_answer(PyObject *fn, const char *name, pmix_status_t rc, PyObject *out,
                                 pmix_info_cbfunc_t cb, void *cbdata)
{
    struct info_hold *h;
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED && rc != PMIX_ERR_PARTIAL_SUCCESS)
        return rc;
    if (!(h = calloc(1, sizeof(*h))))
        return PMIX_ERR_NOMEM;
    if (out != Py_None && spx_py_info_load(out, &h->info, &h->n) != PMIX_SUCCESS) {
        PyErr_Clear();
        free(h);
        return bad_answer(fn, name, "(status, [info dicts])");
    }
    cb(rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, h->info, h->n, cbdata, info_release, h);
    return PMIX_SUCCESS;
}

static pmix_status_t up_query(pmix_proc_t *proc, pmix_query_t *queries, size_t nqueries,
                              pmix_info_cbfunc_t cb, void *cbdata)
{
    PyGILState_STATE g;
    PyObject *fn = enter("query", &g), *ret, *out, *ql;
    pmix_status_t rc;
    if (!fn)
        return PMIX_ERR_NOT_SUPPORTED;
    ql = PyList_New(0);
    for (size_t i = 0; ql && i < nqueries; i++) {
        PyObject *q = Py_BuildValue("{s:N,s:N}", "keys", keys_list(queries[i].keys), "qualifiers",
                                    info_list(queries[i].qualifiers, queries[i].nqual));
        if (!q || PyList_Append(ql, q) != 0)
            Py_CLEAR(ql);
        Py_XDECREF(q);
    }
    /* the binding's form: query({'source', 'queries'}, queries) -> (status, [info]) */
    ret = ql ? call(fn, Py_BuildValue("({s:N,s:O}O)", "source", spx_py_proc_unload(proc),
                                      "queries", ql, ql))
             : call(fn, NULL);
    Py_XDECREF(ql);
    rc = answer(fn, "query", ret, &out, "(status, [info dicts])");
    if (ret)
        rc = info_answer(fn, "query", rc, out, cb, cbdata);
    Py_XDECREF(ret);
    PyGILState_Release(g);
    return rc;
}

static pmix_status_t up_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                              size_t nprocs, const pmix_info_t dirs[], size_t ndirs,
                              pmix_info_cbfunc_t cb, void *cbdata)
{
    PyGILState_STATE g;
    PyObject *fn = enter("group", &g), *ret, *out = Py_None;
    pmix_status_t rc;
    if (!fn)
        return PMIX_ERR_NOT_SUPPORTED;
    ret = call(fn, Py_BuildValue("({s:i,s:N,s:N,s:N})", "op", (int)op, "group", spx_py_str(grp),
                                 "procs", spx_py_procs_unload(procs, nprocs), "directives",
                                 info_list(dirs, ndirs)));
    /* status alone, or (status, [info]) with the group's results */
    rc = answer(fn, "group", ret, (ret && PyTuple_Check(ret)) ? &out : NULL,
                "a status or (status, [info dicts])");
    if (ret)
        rc = info_answer(fn, "group", rc, out, cb, cbdata);
    Py_XDECREF(ret);
    PyGILState_Release(g);
    return rc;
}

/* ---- the module table ---- */

/* Fills nf {canonical name: callable} from map; 0 or -1 with an exception. */
static int map_load(PyObject *map, PyObject *nf)
{
    PyObject *k, *v, *unused = NULL;
    Py_ssize_t pos = 0;

    if (map == NULL || map == Py_None)
        return 0;
    if (!PyDict_Check(map)) {
        PyErr_Format(PyExc_TypeError,
                     "init: the server module must be a dict {name: function}, not %s",
                     Py_TYPE(map)->tp_name);
        return -1;
    }
    while (PyDict_Next(map, &pos, &k, &v)) {
        const char *s = PyUnicode_Check(k) ? PyUnicode_AsUTF8(k) : NULL;
        const struct upcall_name *u = names;
        if (!s) {
            PyErr_Format(PyExc_TypeError, "init: server module names are str, not %s",
                         Py_TYPE(k)->tp_name);
            goto fail;
        }
        while (u->name && strcmp(s, u->name) != 0 && strcmp(s, u->field) != 0)
            u++;
        if (!u->name) {
            PyErr_Format(PyExc_ValueError, "init: '%s' is not a server module function", s);
            goto fail;
        }
        if (!PyCallable_Check(v)) {
            PyErr_Format(PyExc_TypeError, "init: the server function '%s' must be callable, not %s",
                         s, Py_TYPE(v)->tp_name);
            goto fail;
        }
        if (!u->called) {
            PyObject *n = PyUnicode_FromString(s);
            if (!n || (!unused && !(unused = PyList_New(0))) || PyList_Append(unused, n) != 0) {
                Py_XDECREF(n);
                goto fail;
            }
            Py_DECREF(n);
            continue;
        }
        if (PyDict_SetItemString(nf, u->name, v) != 0)
            goto fail;
    }
    if (unused) {
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *j = sep ? PyUnicode_Join(sep, unused) : NULL;
        int w = j ? PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                                     "pmix.PMIxServer: this library never calls the server "
                                     "function(s) %U: they are not used",
                                     j)
                  : -1;
        Py_XDECREF(sep);
        Py_XDECREF(j);
        Py_CLEAR(unused);
        if (w != 0)
            goto fail;
    }
    return 0;
fail:
    Py_XDECREF(unused);
    return -1;
}

void spx_py_server_module_restore(PyObject *old)
{
    PyDict_Clear(fns);
    if (PyDict_Update(fns, old) != 0)
        PyErr_Clear();
}

PyObject *spx_py_server_module_load(PyObject *map, pmix_server_module_t *mod)
{
    PyObject *nf = PyDict_New(), *old;

    memset(mod, 0, sizeof(*mod));
    if (!fns && !(fns = PyDict_New()))
        return NULL;
    if (!nf || map_load(map, nf) != 0 || !(old = PyDict_Copy(fns))) {
        Py_XDECREF(nf);
        return NULL;
    }
    PyDict_Clear(fns); /* fns becomes exactly nf */
    if (PyDict_Update(fns, nf) != 0) {
        spx_py_server_module_restore(old);
        Py_DECREF(nf);
        Py_DECREF(old);
        return NULL;
    }
    Py_DECREF(nf);
#define SET(NAME, FIELD, FN) \
    if (PyDict_GetItemString(fns, NAME)) \
        mod->FIELD = FN;
    SET("clientconnected", client_connected, up_connected)
    SET("clientfinalized", client_finalized, up_finalized)
    SET("abort", abort, up_abort)
    SET("fencenb", fence_nb, up_fence)
    SET("publish", publish, up_publish)
    SET("lookup", lookup, up_lookup)
    SET("unpublish", unpublish, up_unpublish)
    SET("notify_event", notify_event, up_notify)
    SET("query", query, up_query)
    SET("jobcontrol", job_control, up_jobctl)
    SET("pushstdin", push_stdin, up_stdin)
    SET("group", group, up_group)
#undef SET
    return old;
}

int spx_py_upcalls_init(PyObject *module)
{
    if (!fns && !(fns = PyDict_New()))
        return -1;
    return PyModule_AddObjectRef(module, "_server_module", fns);
}
