/* py_server_misc.c - the methods of pmix.PMIxServer that need no server
 * callbacks: deliver_inventory, register_resources / deregister_resources,
 * define_process_set / delete_process_set (this library answers each with
 * PMIX_ERR_NOT_SUPPORTED), register_attributes, generate_regex and
 * generate_ppn. pmixmodule.c adds them to the class next to py_server.c's.
 */
#include "spx_py.h"

#include <stdlib.h>
#include <string.h>

static PyObject *server_deliver_inventory(PyObject *self, PyObject *args)
{
    PyObject *pyinfo, *dicts = Py_None;
    pmix_info_t *info, *dirs;
    size_t n, nd;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "O|O:deliver_inventory", &pyinfo, &dicts) ||
        spx_py_arg_info("deliver_inventory", "the inventory", pyinfo, &info, &n) != 0)
        return NULL;
    if (spx_py_arg_info("deliver_inventory", "the directives", dicts, &dirs, &nd) != 0) {
        PMIx_Info_free(info, n);
        return NULL;
    }
    SPX_PY_NOGIL(rc = PMIx_server_deliver_inventory(info, n, dirs, nd, NULL, NULL));
    PMIx_Info_free(info, n);
    PMIx_Info_free(dirs, nd);
    return spx_py_status(rc);
}

/* register_resources / deregister_resources(directives) -> status */
static PyObject *resources(PyObject *args, const char *m,
                           pmix_status_t (*fn)(pmix_info_t *, size_t, pmix_op_cbfunc_t, void *))
{
    PyObject *dicts = Py_None;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;
    char fmt[64];

    snprintf(fmt, sizeof(fmt), "|O:%s", m);
    if (!PyArg_ParseTuple(args, fmt, &dicts) || spx_py_arg_info(m, "the directives", dicts, &info, &n) != 0)
        return NULL;
    SPX_PY_NOGIL(rc = fn(info, n, NULL, NULL));
    PMIx_Info_free(info, n);
    return spx_py_status(rc);
}

static PyObject *server_register_resources(PyObject *self, PyObject *args)
{
    (void)self;
    return resources(args, "register_resources", PMIx_server_register_resources);
}

static PyObject *server_deregister_resources(PyObject *self, PyObject *args)
{
    (void)self;
    return resources(args, "deregister_resources", PMIx_server_deregister_resources);
}

static PyObject *server_define_process_set(PyObject *self, PyObject *args)
{
    PyObject *members, *name;
    char pset[PMIX_MAX_NSLEN + 1];
    pmix_proc_t *p = NULL;
    size_t np = 0;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "OO:define_process_set", &members, &name) ||
        spx_py_arg_list("define_process_set", "the members", members) != 0 ||
        spx_py_arg_text("define_process_set", "the name", name, pset, sizeof(pset)) != 0)
        return NULL;
    if ((rc = spx_py_procs_load(members, NULL, &p, &np)) != PMIX_SUCCESS) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "define_process_set: the members cannot be converted: %s",
                         PMIx_Error_string(rc));
        return NULL;
    }
    SPX_PY_NOGIL(rc = PMIx_server_define_process_set(p, np, pset));
    if (p)
        PMIx_Proc_free(p, np);
    return spx_py_status(rc);
}

static PyObject *server_delete_process_set(PyObject *self, PyObject *args)
{
    PyObject *name;
    char pset[PMIX_MAX_NSLEN + 1];
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "O:delete_process_set", &name) ||
        spx_py_arg_text("delete_process_set", "the name", name, pset, sizeof(pset)) != 0)
        return NULL;
    SPX_PY_NOGIL(rc = PMIx_server_delete_process_set(pset));
    return spx_py_status(rc);
}

static PyObject *server_register_attributes(PyObject *self, PyObject *args)
{
    PyObject *fn, *attrs;
    char func[256], **argv = NULL;
    pmix_status_t rc;
    (void)self;

    if (!PyArg_ParseTuple(args, "OO:register_attributes", &fn, &attrs) ||
        spx_py_arg_text("register_attributes", "the function", fn, func, sizeof(func)) != 0 ||
        spx_py_arg_list("register_attributes", "the attributes", attrs) != 0)
        return NULL;
    if ((rc = spx_py_argv_load(attrs, &argv)) != PMIX_SUCCESS) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "register_attributes: the attributes must be str");
        return NULL;
    }
    SPX_PY_NOGIL(rc = PMIx_Register_attributes(func, argv));
    PMIx_Argv_free(argv);
    return spx_py_status(rc);
}

/* generate_regex(hosts) / generate_ppn(procs) -> (status, bytearray) */
static PyObject *gen(PyObject *args, const char *fmt, const char *sep,
                     pmix_status_t (*fn)(const char *, char **))
{
    PyObject *list, *s, *joined, *res;
    char *out = NULL;
    pmix_status_t rc;

    if (!PyArg_ParseTuple(args, fmt, &list))
        return NULL;
    s = PyUnicode_FromString(sep);
    joined = s ? PyUnicode_Join(s, list) : NULL;
    Py_XDECREF(s);
    if (!joined)
        return NULL;
    rc = fn(PyUnicode_AsUTF8(joined), &out);
    Py_DECREF(joined);
    res = out ? PyByteArray_FromStringAndSize(out, (Py_ssize_t)strlen(out)) : Py_NewRef(Py_None);
    free(out);
    return Py_BuildValue("(iN)", (int)rc, res);
}

static PyObject *server_generate_regex(PyObject *self, PyObject *args)
{
    (void)self;
    return gen(args, "O:generate_regex", ",", PMIx_generate_regex);
}

static PyObject *server_generate_ppn(PyObject *self, PyObject *args)
{
    (void)self;
    return gen(args, "O:generate_ppn", ";", PMIx_generate_ppn);
}

#define NS "PMIX_ERR_NOT_SUPPORTED: this library has no "
PyMethodDef spx_py_server_misc_methods[] = {
    { "deliver_inventory", server_deliver_inventory, METH_VARARGS,
      "deliver_inventory(info, directives=[]) -> status\nPMIx_server_deliver_inventory ("
      NS "inventory)." },
    { "register_resources", server_register_resources, METH_VARARGS,
      "register_resources(directives) -> status\nPMIx_server_register_resources (" NS
      "resource registry)." },
    { "deregister_resources", server_deregister_resources, METH_VARARGS,
      "deregister_resources(directives) -> status\nPMIx_server_deregister_resources (" NS
      "resource registry)." },
    { "define_process_set", server_define_process_set, METH_VARARGS,
      "define_process_set(members, name) -> status\nPMIx_server_define_process_set (" NS
      "process sets)." },
    { "delete_process_set", server_delete_process_set, METH_VARARGS,
      "delete_process_set(name) -> status\nPMIx_server_delete_process_set (" NS
      "process sets)." },
    { "register_attributes", server_register_attributes, METH_VARARGS,
      "register_attributes(function, [attrs]) -> status\nPMIx_Register_attributes." },
    { "generate_regex", server_generate_regex, METH_VARARGS,
      "generate_regex([hosts]) -> (status, bytearray)\nPMIx_generate_regex." },
    { "generate_ppn", server_generate_ppn, METH_VARARGS,
      "generate_ppn(['ranks of node 0', ...]) -> (status, bytearray)\nPMIx_generate_ppn." },
    { NULL, NULL, 0, NULL }
};
#undef NS
