#!/bin/sh
# pmix.PMIxServer (python/py_server.c, py_upcalls.c): server.py, a PMIx
# server written in Python, hosts 3 and then 1 server_client.py processes
# of its own (no spmix-run): Python server functions for connect, finalize,
# abort, fence, publish/lookup/unpublish, query and job control see the right
# arguments and their answers reach the clients; dmodex_request; a raising
# function is reported with its traceback and fails its request; blocking
# calls from a server function return PMIX_ERR_WOULD_BLOCK; bad arguments
# raise TypeError/ValueError. Skipped (77) when the module was not built.
. "$SPX_TOP_SRCDIR/test/integration/common.sh"
MOD="$SPX_LIBDIR/pmix.so"
if [ ! -f "$MOD" ] || [ -z "$SPX_PYTHON" ]; then
    echo "SKIP: the pmix Python module was not built (configure --enable-python)"
    exit 77
fi
export PYTHONPATH="$SPX_LIBDIR${PYTHONPATH:+:$PYTHONPATH}"
if objdump -p "$SPX_LIBDIR/libpmix.so.2" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
    export LD_PRELOAD
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # the interpreter's own
fi
for n in 3 1; do
    TMPDIR="$SPX_TMP" timeout -k 5 "$SPX_TIMEOUT" "$SPX_PYTHON" \
        "$SPX_TOP_SRCDIR/test/python/server.py" $n >"$SPX_OUT" 2>"$SPX_ERR"
    SPX_RC=$?
    spx_expect_rc 0
    grep -q '^server.py: OK$' "$SPX_OUT" || spx_fail "server.py with $n clients did not say OK"
    # the raising lookup: one traceback per client on stderr
    [ "$(grep -c '^ValueError: spx-server-boom$' "$SPX_ERR")" = $n ] ||
        spx_fail "the raising server function was not reported $n times"
    echo "ok: a Python server with $n client(s)"
done
spx_pass "pyserver: pmix.PMIxServer with Python server functions"
