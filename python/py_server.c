/* py_server.c - pmix.PMIxServer: a PMIx server in Python.
 *
 * As in the older binding, PMIxServer derives from PMIxClient. init takes the
 * info list and a map of Python server-module functions (py_upcalls.c runs
 * them from the library's upcalls). The methods take the binding's dict forms
 * and check them: a value of the wrong type raises TypeError, a value out of
 * range (a namespace too long, a rank too large, an info dict without its
 * keys) ValueError, each naming the method and the argument.
 *
 * The methods that need no callback are in py_server_misc.c.
 *
 * The blocking methods that wait for a library callback of their own
 * (dmodex_request, setup_application, setup_local_support,
 * collect_inventory) wait with the GIL released; called from a server-module
 * function or another callback, i.e. on the library's progress thread, they
 * return PMIX_ERR_WOULD_BLOCK at once instead of waiting for themselves.
 */
#include "spx_py.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- argument checks: 0, or -1 with TypeError / ValueError ---- */

int spx_py_arg_text(const char *m, const char *what, PyObject *o, char *out, size_t cap)
{
    const char *s;
    Py_ssize_t len;
    if (PyUnicode_Check(o)) {
        if (!(s = PyUnicode_AsUTF8AndSize(o, &len)))
            return -1;
    } else if (PyBytes_Check(o)) {
        s = PyBytes_AS_STRING(o);
        len = PyBytes_GET_SIZE(o);
    } else {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a str, not %s", m, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    if ((size_t)len >= cap || strlen(s) != (size_t)len) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be at most %zu characters without NUL", m,
                     what, cap - 1);
        return -1;
    }
    memset(out, 0, cap);
    memcpy(out, s, (size_t)len);
    return 0;
}

static int ns_arg(const char *m, PyObject *o, pmix_nspace_t ns)
{
    return spx_py_arg_text(m, "the namespace", o, ns, sizeof(pmix_nspace_t));
}

int spx_py_arg_proc(const char *m, const char *what, PyObject *o, pmix_proc_t *p)
{
    PyObject *ns, *rk;
    unsigned long r;
    if (!PyDict_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a dict {'nspace': str, 'rank': int}, not %s",
                     m, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    if (!(ns = PyDict_GetItemString(o, "nspace")) || !(rk = PyDict_GetItemString(o, "rank"))) {
        PyErr_Format(PyExc_ValueError, "%s: %s needs the keys 'nspace' and 'rank'", m, what);
        return -1;
    }
    if (spx_py_arg_text(m, "its 'nspace'", ns, p->nspace, sizeof(p->nspace)) != 0)
        return -1;
    if (!PyLong_Check(rk)) {
        PyErr_Format(PyExc_TypeError, "%s: the 'rank' of %s must be an int, not %s", m, what,
                     Py_TYPE(rk)->tp_name);
        return -1;
    }
    r = PyLong_AsUnsignedLong(rk);
    if ((r == (unsigned long)-1 && PyErr_Occurred()) || r > UINT32_MAX) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: the 'rank' of %s is out of range", m, what);
        return -1;
    }
    p->rank = (pmix_rank_t)r;
    return 0;
}

/* A list of info dicts (None: none); *info: PMIx_Info_free. */
int spx_py_arg_info(const char *m, const char *what, PyObject *o, pmix_info_t **info, size_t *n)
{
    pmix_status_t rc;
    *info = NULL;
    *n = 0;
    if (o == Py_None)
        return 0;
    if (!PyList_Check(o) && !PyTuple_Check(o)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: %s must be a list of dicts {'key', 'value', 'val_type'}, not %s", m,
                     what, Py_TYPE(o)->tp_name);
        return -1;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); i++) {
        PyObject *d = PySequence_Fast_GET_ITEM(o, i);
        if (!PyDict_Check(d)) {
            PyErr_Format(PyExc_TypeError, "%s: %s[%zd] must be a dict, not %s", m, what, i,
                         Py_TYPE(d)->tp_name);
            return -1;
        }
        if (!PyDict_GetItemString(d, "key") || !PyDict_GetItemString(d, "value") ||
            !PyDict_GetItemString(d, "val_type")) {
            PyErr_Format(PyExc_ValueError, "%s: %s[%zd] needs the keys 'key', 'value', 'val_type'",
                         m, what, i);
            return -1;
        }
    }
    if ((rc = spx_py_info_load(o, info, n)) != PMIX_SUCCESS) {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_KeyError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: %s cannot be converted: %s", m, what,
                         PMIx_Error_string(rc));
        }
        return -1;
    }
    return 0;
}

int spx_py_arg_list(const char *m, const char *what, PyObject *o)
{
    if (o == Py_None || PyList_Check(o) || PyTuple_Check(o))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s: %s must be a list, not %s", m, what, Py_TYPE(o)->tp_name);
    return -1;
}

/* ---- waiting for the library's callback (GIL released) ---- */

struct waiter {
    pthread_mutex_t m;
    pthread_cond_t c;
    int done;
    pmix_status_t st;
    char *data;
    size_t n;
    pmix_info_t *info;
    size_t ninfo;
};

#define WAITER_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, NULL, 0, NULL, 0 }

static void w_done(struct waiter *w, pmix_status_t st, const pmix_info_t *info, size_t ninfo)
{
    pthread_mutex_lock(&w->m);
    w->st = st;
    if (info && ninfo && (w->info = PMIx_Info_create(ninfo))) {
        w->ninfo = ninfo;
        for (size_t i = 0; i < ninfo; i++)
            PMIx_Info_xfer(&w->info[i], &info[i]);
    }
    w->done = 1;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

static pmix_status_t w_wait(struct waiter *w, pmix_status_t rc)
{
    if (rc != PMIX_SUCCESS)
        return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    Py_BEGIN_ALLOW_THREADS
    pthread_mutex_lock(&w->m);
    while (!w->done)
        pthread_cond_wait(&w->c, &w->m);
    pthread_mutex_unlock(&w->m);
    Py_END_ALLOW_THREADS
    return w->st;
}

/* (status, [info]) of a waiter; frees its info. */
static PyObject *w_info_result(struct waiter *w, pmix_status_t rc)
{
    PyObject *l = spx_py_info_unload(w->info, rc == PMIX_SUCCESS ? w->ninfo : 0);
    if (w->info)
        PMIx_Info_free(w->info, w->ninfo);
    return l ? Py_BuildValue("(iN)", (int)rc, l) : NULL;
}

static void op_wcb(pmix_status_t st, void *cbdata)
{
    w_done(cbdata, st, NULL, 0);
}

static void info_wcb(pmix_status_t st, pmix_info_t *info, size_t ninfo, void *cbdata,
                     pmix_release_cbfunc_t relfn, void *relarg)
{
    w_done(cbdata, st, info, ninfo);
    if (relfn)
        relfn(relarg);
}

static void app_wcb(pmix_status_t st, pmix_info_t info[], size_t ninfo, void *cbdata,
                    pmix_op_cbfunc_t cbfunc, void *cbarg)
{
    w_done(cbdata, st, info, ninfo);
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, cbarg);
}

static void dmodex_wcb(pmix_status_t st, char *data, size_t sz, void *cbdata)
{
    struct waiter *w = cbdata;
    pthread_mutex_lock(&w->m);
    w->st = st;
    if (st == PMIX_SUCCESS && sz && (w->data = malloc(sz))) {
        memcpy(w->data, data, sz);
        w->n = sz;
    } else if (st == PMIX_SUCCESS && sz) {
        w->st = PMIX_ERR_NOMEM;
    }
    w->done = 1;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

/* ---- methods ---- */

static PyObject *server_init(PyObject *self, PyObject *args)
{
    PyObject *dicts = Py_None, *map = Py_None, *old;
    static pmix_server_module_t module; /* copied by the library at init */
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "|OO:init", &dicts, &map) ||
        spx_py_arg_info("init", "the info", dicts, &info, &n) != 0)
        return NULL;
    if (!(old = spx_py_server_module_load(map, &module))) {
        PMIx_Info_free(info, n);
        return NULL;
    }
    SPX_PY_NOGIL(rc = PMIx_server_init(&module, info, n));
    PMIx_Info_free(info, n);
    if (rc != PMIX_SUCCESS) /* e.g. a server already runs: it keeps its functions */
        spx_py_server_module_restore(old);
    Py_DECREF(old);
    return spx_py_status(rc);
}

static PyObject *server_finalize(PyObject *self, PyObject *unused)
{
    pmix_status_t rc;
    (void)self, (void)unused;
    SPX_PY_NOGIL(rc = PMIx_server_finalize());
    return PyLong_FromLong(rc);
}

static PyObject *server_register_nspace(PyObject *self, PyObject *args)
{
    PyObject *ns, *dicts = Py_None;
    int nlocal;
    pmix_info_t *info;
    size_t n;
    pmix_nspace_t nspace;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "Oi|O:register_nspace", &ns, &nlocal, &dicts) ||
        ns_arg("register_nspace", ns, nspace) != 0 ||
        spx_py_arg_info("register_nspace", "the info", dicts, &info, &n) != 0)
        return NULL;
    if (nlocal < 0) {
        PMIx_Info_free(info, n);
        PyErr_SetString(PyExc_ValueError, "register_nspace: nlocalprocs must not be negative");
        return NULL;
    }
    SPX_PY_NOGIL(rc = PMIx_server_register_nspace(nspace, nlocal, info, n, NULL, NULL));
    PMIx_Info_free(info, n);
    return spx_py_status(rc);
}

static PyObject *server_deregister_nspace(PyObject *self, PyObject *args)
{
    PyObject *ns;
    pmix_nspace_t nspace;
    (void)self;

    if (!PyArg_ParseTuple(args, "O:deregister_nspace", &ns) ||
        ns_arg("deregister_nspace", ns, nspace) != 0)
        return NULL;
    SPX_PY_NOGIL(PMIx_server_deregister_nspace(nspace, NULL, NULL));
    Py_RETURN_NONE;
}

static PyObject *server_register_client(PyObject *self, PyObject *args)
{
    PyObject *proc;
    unsigned int uid, gid;
    pmix_proc_t p;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "OII:register_client", &proc, &uid, &gid) ||
        spx_py_arg_proc("register_client", "proc", proc, &p) != 0)
        return NULL;
    SPX_PY_NOGIL(rc = PMIx_server_register_client(&p, uid, gid, NULL, NULL, NULL));
    return spx_py_status(rc);
}

static PyObject *server_deregister_client(PyObject *self, PyObject *args)
{
    PyObject *proc;
    pmix_proc_t p;
    (void)self;

    if (!PyArg_ParseTuple(args, "O:deregister_client", &proc) ||
        spx_py_arg_proc("deregister_client", "proc", proc, &p) != 0)
        return NULL;
    SPX_PY_NOGIL(PMIx_server_deregister_client(&p, NULL, NULL));
    return spx_py_status(PMIX_SUCCESS);
}

static PyObject *server_setup_fork(PyObject *self, PyObject *args)
{
    PyObject *proc, *env;
    pmix_proc_t p;
    char **penv = NULL;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "OO:setup_fork", &proc, &env) ||
        spx_py_arg_proc("setup_fork", "proc", proc, &p) != 0)
        return NULL;
    if (!PyDict_Check(env)) {
        PyErr_Format(PyExc_TypeError, "setup_fork: the environment must be a dict, not %s",
                     Py_TYPE(env)->tp_name);
        return NULL;
    }
    SPX_PY_NOGIL(rc = PMIx_server_setup_fork(&p, &penv));
    for (size_t i = 0; rc == PMIX_SUCCESS && penv && penv[i]; i++) {
        char *eq = strchr(penv[i], '=');
        PyObject *k, *v;
        if (!eq)
            continue;
        k = PyUnicode_DecodeUTF8(penv[i], eq - penv[i], "replace");
        v = spx_py_str(eq + 1);
        if (!k || !v || PyDict_SetItem(env, k, v) != 0) {
            Py_XDECREF(k);
            Py_XDECREF(v);
            PMIx_Argv_free(penv);
            return NULL;
        }
        Py_DECREF(k);
        Py_DECREF(v);
    }
    PMIx_Argv_free(penv);
    return spx_py_status(rc);
}

static PyObject *server_dmodex_request(PyObject *self, PyObject *args)
{
    PyObject *proc, *dataout = Py_None, *bo;
    pmix_proc_t p;
    struct waiter w = WAITER_INIT;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "O|O:dmodex_request", &proc, &dataout) ||
        spx_py_arg_proc("dmodex_request", "proc", proc, &p) != 0)
        return NULL;
    if (spx_py_on_progress())
        return Py_BuildValue("(i(Oi))", PMIX_ERR_WOULD_BLOCK, Py_None, 0);
    rc = w_wait(&w, PMIx_server_dmodex_request(&p, dmodex_wcb, &w));
    if (rc != PMIX_SUCCESS) {
        free(w.data);
        return Py_BuildValue("(i(Oi))", (int)rc, Py_None, 0);
    }
    bo = PyByteArray_FromStringAndSize(w.data ? w.data : "", (Py_ssize_t)w.n);
    free(w.data);
    return bo ? Py_BuildValue("(i(Nn))", (int)rc, bo, (Py_ssize_t)w.n) : NULL;
}

static PyObject *server_setup_application(PyObject *self, PyObject *args)
{
    PyObject *ns, *dicts = Py_None;
    pmix_nspace_t nspace;
    pmix_info_t *info;
    size_t n;
    struct waiter w = WAITER_INIT;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "O|O:setup_application", &ns, &dicts) ||
        ns_arg("setup_application", ns, nspace) != 0 ||
        spx_py_arg_info("setup_application", "the info", dicts, &info, &n) != 0)
        return NULL;
    if (spx_py_on_progress())
        rc = PMIX_ERR_WOULD_BLOCK;
    else
        rc = w_wait(&w, PMIx_server_setup_application(nspace, info, n, app_wcb, &w));
    PMIx_Info_free(info, n);
    return w_info_result(&w, rc);
}

static PyObject *server_setup_local_support(PyObject *self, PyObject *args)
{
    PyObject *ns, *dicts = Py_None;
    pmix_nspace_t nspace;
    pmix_info_t *info;
    size_t n;
    struct waiter w = WAITER_INIT;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "O|O:setup_local_support", &ns, &dicts) ||
        ns_arg("setup_local_support", ns, nspace) != 0 ||
        spx_py_arg_info("setup_local_support", "the info", dicts, &info, &n) != 0)
        return NULL;
    if (spx_py_on_progress())
        rc = PMIX_ERR_WOULD_BLOCK;
    else
        rc = w_wait(&w, PMIx_server_setup_local_support(nspace, info, n, op_wcb, &w));
    PMIx_Info_free(info, n);
    return spx_py_status(rc);
}

static PyObject *server_iof_deliver(PyObject *self, PyObject *args)
{
    PyObject *src, *data, *dicts = Py_None;
    int channel;
    pmix_proc_t p;
    pmix_byte_object_t bo;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "OiO|O:iof_deliver", &src, &channel, &data, &dicts) ||
        spx_py_arg_proc("iof_deliver", "the source", src, &p) != 0)
        return NULL;
    if (spx_py_bytes_load(data, &bo) != PMIX_SUCCESS) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "iof_deliver: the data must be bytes, str or {'bytes': ...[, 'size': n]}, "
                     "not %s",
                     Py_TYPE(data)->tp_name);
        return NULL;
    }
    if (spx_py_arg_info("iof_deliver", "the directives", dicts, &info, &n) != 0) {
        free(bo.bytes);
        return NULL;
    }
    /* no callback: the library copies the bytes before it returns */
    SPX_PY_NOGIL(rc = PMIx_server_IOF_deliver(&p, (pmix_iof_channel_t)channel, &bo, info, n, NULL,
                                              NULL));
    free(bo.bytes);
    PMIx_Info_free(info, n);
    return spx_py_status(rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
}

static PyObject *server_collect_inventory(PyObject *self, PyObject *args)
{
    PyObject *dicts = Py_None;
    pmix_info_t *info;
    size_t n;
    struct waiter w = WAITER_INIT;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "|O:collect_inventory", &dicts) ||
        spx_py_arg_info("collect_inventory", "the directives", dicts, &info, &n) != 0)
        return NULL;
    if (spx_py_on_progress())
        rc = PMIX_ERR_WOULD_BLOCK;
    else
        rc = w_wait(&w, PMIx_server_collect_inventory(info, n, info_wcb, &w));
    PMIx_Info_free(info, n);
    return w_info_result(&w, rc);
}

#define NS "PMIX_ERR_NOT_SUPPORTED: this library has no "
static PyMethodDef server_methods[] = {
    { "init", server_init, METH_VARARGS,
      "init(info=[], map=None) -> status\nPMIx_server_init. map: {name: function} of server-"
      "module functions, run on the progress thread with the GIL held. Names and forms (as "
      "in OpenPMIx's binding; the C field names, e.g. 'fence_nb', are accepted too):\n"
      "  clientconnected(proc) -> status; clientfinalized(proc) -> status\n"
      "  abort({'caller','status','msg','targets'}) -> status\n"
      "  fencenb({'procs','directives','data'}) -> (status, data bytes)\n"
      "  publish({'proc','directives'}) -> status\n"
      "  lookup({'proc','keys','directives'}) -> (status, [{'key','value','val_type'}])\n"
      "  unpublish({'proc','keys','directives'}) -> status\n"
      "  notify_event({'code','source','range','directives'}) -> status\n"
      "  query({'source','queries'}, queries) -> (status, [info])\n"
      "  jobcontrol({'source','targets','directives'}) -> status\n"
      "  pushstdin({'source','targets','directives','payload'}) -> status\n"
      "  group({'op','group','procs','directives'}) -> status or (status, [info])\n"
      "None counts as PMIX_SUCCESS. A function that raises is reported (sys.unraisablehook) and "
      "its request fails with PMIX_ERROR; a blocking PMIx call in it returns "
      "PMIX_ERR_WOULD_BLOCK. The library never calls directmodex, spawn, connect, disconnect, "
      "registerevents, deregisterevents, listener, toolconnected, log, allocate, monitor, "
      "getcredential, validatecredential, iofpull, fabric: giving one draws a RuntimeWarning. "
      "An unknown name raises ValueError, a value not callable TypeError." },
    { "finalize", server_finalize, METH_NOARGS, "finalize() -> status\nPMIx_server_finalize." },
    { "register_nspace", server_register_nspace, METH_VARARGS,
      "register_nspace(nspace, nlocalprocs, info=[]) -> status\nPMIx_server_register_nspace." },
    { "deregister_nspace", server_deregister_nspace, METH_VARARGS,
      "deregister_nspace(nspace) -> None\nPMIx_server_deregister_nspace." },
    { "register_client", server_register_client, METH_VARARGS,
      "register_client(proc, uid, gid) -> status\nPMIx_server_register_client." },
    { "deregister_client", server_deregister_client, METH_VARARGS,
      "deregister_client(proc) -> status\nPMIx_server_deregister_client." },
    { "setup_fork", server_setup_fork, METH_VARARGS,
      "setup_fork(proc, env_dict) -> status\nPMIx_server_setup_fork: adds the client's "
      "variables to env_dict." },
    { "dmodex_request", server_dmodex_request, METH_VARARGS,
      "dmodex_request(proc[, dataout]) -> (status, (bytearray, size))\n"
      "PMIx_server_dmodex_request: the committed data of a process (a local one once it has "
      "committed), (None, 0) on error. PMIX_ERR_WOULD_BLOCK on the progress thread." },
    { "setup_application", server_setup_application, METH_VARARGS,
      "setup_application(nspace, info=[]) -> (status, [info])\nPMIx_server_setup_application "
      "(this library adds no info). PMIX_ERR_WOULD_BLOCK on the progress thread." },
    { "setup_local_support", server_setup_local_support, METH_VARARGS,
      "setup_local_support(nspace, info=[]) -> status\nPMIx_server_setup_local_support. "
      "PMIX_ERR_WOULD_BLOCK on the progress thread." },
    { "iof_deliver", server_iof_deliver, METH_VARARGS,
      "iof_deliver(source, channel, data, directives=[]) -> status\nPMIx_server_IOF_deliver: "
      "output of source (data: bytes, str or {'bytes'[, 'size']}) to the tools that pull it." },
    { "collect_inventory", server_collect_inventory, METH_VARARGS,
      "collect_inventory(directives=[]) -> (status, [info])\nPMIx_server_collect_inventory ("
      NS "inventory)." },
    { NULL, NULL, 0, NULL }
};
#undef NS

PyTypeObject spx_py_server_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pmix.PMIxServer",
    .tp_basicsize = sizeof(spx_py_client_t),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A PMIx server: init with Python server-module functions, namespaces and "
              "clients, setup_fork, dmodex_request, IOF delivery; plus the client's methods.",
    .tp_methods = server_methods,
};
