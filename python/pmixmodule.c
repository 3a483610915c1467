/* pmixmodule.c - the `pmix` Python module: its classes, the string helpers
 * every class has (error_string, ...), the PMIX_* constants, module init.
 *
 * PMIxClient's methods come from py_client.c (blocking) and py_nb.c
 * (non-blocking, events); PMIxServer (py_server.c, py_server_misc.c) and
 * PMIxTool (py_tool.c) derive from it
 * as in the older Cython binding. The constants are generated from the
 * public headers at build time (gen_constants.sh -> pmix_constants.inc):
 * attribute names as bytes, everything else as int.
 */
#include "spx_py.h"

#include <string.h>

static int client_init_obj(PyObject *self, PyObject *args, PyObject *kw)
{
    spx_py_client_t *c = (spx_py_client_t *)self;
    (void)args;
    (void)kw;
    memset(c->myproc.nspace, 0, sizeof(c->myproc.nspace));
    c->myproc.rank = PMIX_RANK_UNDEF;
    return 0;
}

/* name(int) -> str through one of the library's *_string functions. */
#define SPX_PY_STRFN(NAME, FN, T)                                      \
    static PyObject *str_##NAME(PyObject *self, PyObject *args)        \
    {                                                                  \
        long v;                                                        \
        (void)self;                                                    \
        if (!PyArg_ParseTuple(args, "l:" #NAME, &v))                   \
            return NULL;                                               \
        return spx_py_str(FN((T)v));                                   \
    }
SPX_PY_STRFN(error_string, PMIx_Error_string, pmix_status_t)
SPX_PY_STRFN(proc_state_string, PMIx_Proc_state_string, pmix_proc_state_t)
SPX_PY_STRFN(scope_string, PMIx_Scope_string, pmix_scope_t)
SPX_PY_STRFN(persistence_string, PMIx_Persistence_string, pmix_persistence_t)
SPX_PY_STRFN(data_range_string, PMIx_Data_range_string, pmix_data_range_t)
SPX_PY_STRFN(info_directives_string, PMIx_Info_directives_string, pmix_info_directives_t)
SPX_PY_STRFN(data_type_string, PMIx_Data_type_string, pmix_data_type_t)
SPX_PY_STRFN(alloc_directive_string, PMIx_Alloc_directive_string, pmix_alloc_directive_t)
SPX_PY_STRFN(iof_channel_string, PMIx_IOF_channel_string, pmix_iof_channel_t)
SPX_PY_STRFN(job_state_string, PMIx_Job_state_string, pmix_job_state_t)
SPX_PY_STRFN(link_state_string, PMIx_Link_state_string, pmix_link_state_t)
SPX_PY_STRFN(device_type_string, PMIx_Device_type_string, pmix_device_type_t)

static PyObject *str_get_attribute_string(PyObject *self, PyObject *args)
{
    const char *s;
    (void)self;
    if (!PyArg_ParseTuple(args, "s:get_attribute_string", &s))
        return NULL;
    return spx_py_str(PMIx_Get_attribute_string(s));
}

static PyObject *str_get_attribute_name(PyObject *self, PyObject *args)
{
    const char *s;
    (void)self;
    if (!PyArg_ParseTuple(args, "s:get_attribute_name", &s))
        return NULL;
    return spx_py_str(PMIx_Get_attribute_name(s));
}

#define SPX_PY_STRDEF(NAME, DOC) { #NAME, str_##NAME, METH_VARARGS, #NAME DOC }
static PyMethodDef string_methods[] = {
    SPX_PY_STRDEF(error_string, "(status) -> str\nPMIx_Error_string."),
    SPX_PY_STRDEF(proc_state_string, "(state) -> str\nPMIx_Proc_state_string."),
    SPX_PY_STRDEF(scope_string, "(scope) -> str\nPMIx_Scope_string."),
    SPX_PY_STRDEF(persistence_string, "(persistence) -> str\nPMIx_Persistence_string."),
    SPX_PY_STRDEF(data_range_string, "(range) -> str\nPMIx_Data_range_string."),
    SPX_PY_STRDEF(info_directives_string, "(flags) -> str\nPMIx_Info_directives_string."),
    SPX_PY_STRDEF(data_type_string, "(type) -> str\nPMIx_Data_type_string."),
    SPX_PY_STRDEF(alloc_directive_string, "(directive) -> str\nPMIx_Alloc_directive_string."),
    SPX_PY_STRDEF(iof_channel_string, "(channel) -> str\nPMIx_IOF_channel_string."),
    SPX_PY_STRDEF(job_state_string, "(state) -> str\nPMIx_Job_state_string."),
    SPX_PY_STRDEF(link_state_string, "(state) -> str\nPMIx_Link_state_string."),
    SPX_PY_STRDEF(device_type_string, "(type) -> str\nPMIx_Device_type_string."),
    SPX_PY_STRDEF(get_attribute_string, "(name) -> str\nPMIx_Get_attribute_string."),
    SPX_PY_STRDEF(get_attribute_name, "(attribute) -> str\nPMIx_Get_attribute_name."),
    { NULL, NULL, 0, NULL }
};

PyTypeObject spx_py_client_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pmix.PMIxClient",
    .tp_basicsize = sizeof(spx_py_client_t),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A PMIx client: init, put/commit/fence/get, publish/lookup, groups, events, "
              "and the _nb forms with Python callbacks run on the progress thread.",
    .tp_init = client_init_obj,
    .tp_new = PyType_GenericNew,
    .tp_methods = spx_py_client_methods,
};

/* Adds a method table to a type that is already ready. */
static int type_add_methods(PyTypeObject *t, PyMethodDef *defs)
{
    for (PyMethodDef *d = defs; d->ml_name; d++) {
        PyObject *m = PyDescr_NewMethod(t, d);
        int rc = m ? PyDict_SetItemString(t->tp_dict, d->ml_name, m) : -1;
        Py_XDECREF(m);
        if (rc != 0)
            return -1;
    }
    PyType_Modified(t);
    return 0;
}

#define SPX_PY_STR(N) { #N, N, 0 },
#define SPX_PY_INT(N) { #N, NULL, (long long)(N) },
static const struct {
    const char *name;
    const char *str;
    long long num;
} constants[] = {
#include "pmix_constants.inc"
    { NULL, NULL, 0 }
};

int spx_py_constants_add(PyObject *module)
{
    for (size_t i = 0; constants[i].name; i++) {
        PyObject *o = constants[i].str ? PyBytes_FromString(constants[i].str)
                                       : PyLong_FromLongLong(constants[i].num);
        if (!o || PyModule_AddObject(module, constants[i].name, o) != 0) {
            Py_XDECREF(o);
            return -1;
        }
    }
    return 0;
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, .m_name = "pmix",
    .m_doc = "PMIx for Python on spmix's libpmix.so.2: PMIxClient, PMIxTool, PMIxServer "
             "(with Python server-module functions), the PMIX_* constants. Compatible with the dict forms and methods of "
             "OpenPMIx 4.2's Cython binding, plus the _nb forms with Python callbacks. "
             "Callbacks run on the library's progress thread with the GIL held; a blocking "
             "call made there returns PMIX_ERR_WOULD_BLOCK; an exception a callback raises "
             "is printed with its traceback. Blocking calls release the GIL.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit_pmix(void)
{
    PyObject *m;

    spx_py_server_type.tp_base = &spx_py_client_type;
    spx_py_tool_type.tp_base = &spx_py_server_type;
    if (PyType_Ready(&spx_py_client_type) < 0 ||
        type_add_methods(&spx_py_client_type, spx_py_nb_methods) != 0 ||
        type_add_methods(&spx_py_client_type, string_methods) != 0 ||
        PyType_Ready(&spx_py_server_type) < 0 ||
        type_add_methods(&spx_py_server_type, spx_py_server_misc_methods) != 0 ||
        PyType_Ready(&spx_py_tool_type) < 0)
        return NULL;
    m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (PyModule_AddObjectRef(m, "PMIxClient", (PyObject *)&spx_py_client_type) != 0 ||
        PyModule_AddObjectRef(m, "PMIxServer", (PyObject *)&spx_py_server_type) != 0 ||
        PyModule_AddObjectRef(m, "PMIxTool", (PyObject *)&spx_py_tool_type) != 0 ||
        spx_py_constants_add(m) != 0 || spx_py_callback_init(m) != 0 ||
        spx_py_upcalls_init(m) != 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
