# pyenv.sh - sourced by the tests of our pmix module (pymod.sh, mpi4py.sh):
# the build tree's module first on PYTHONPATH, and PRELOAD set to the ASan
# runtime when the library is a sanitizer build (a Python interpreter is not
# one, so the module's runtime must be preloaded; its own leaks are not
# ours: detect_leaks=0). Needs SPX_LIBDIR (test/integration/common.sh).
PRELOAD=""
if objdump -p "$SPX_LIBDIR/libpmix.so.2" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
export PYTHONPATH="$SPX_LIBDIR${PYTHONPATH:+:$PYTHONPATH}"

# spx_py_expect_module PY MODULE: PY must import our pmix module from MODULE
# (the build tree's, on the build tree's library), else the test fails
spx_py_expect_module() {
    env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} "$1" -c \
        'import pmix, sys; sys.exit(0 if pmix.__file__ == sys.argv[1] else 1)' "$2" ||
        spx_fail "$1 imports another pmix module: $(env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} "$1" -c 'import pmix; print(pmix.__file__)' 2>&1)"
}
