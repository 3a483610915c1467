#!/bin/sh
# Debian's python3-pmix (OpenPMIx 4.2.2's `pmix` module, linked to
# libpmix.so.2) on our library: grp_invite.py builds a group by invitation
# (rank 0's group_invite, blocking group_joins from a thread of the script)
# under tools/spmix-run on 1 and 3 simulated nodes, once with every rank
# starting together and once with the leader a second late (the joins reach
# the server before their leader is a client and must wait for it). Each
# rank checks in /proc/self/maps that the libpmix.so.2 it runs on is the
# build tree's. Skipped (77) without a python3 that has the pmix module.
. "$SPX_TOP_SRCDIR/test/integration/common.sh"
PY=""
for p in /usr/bin/python3 python3; do
    if "$p" -W ignore -c 'import pmix' >/dev/null 2>&1; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    echo "SKIP: no python3 with the pmix module (Debian: apt-get install python3-pmix)"
    exit 77
fi
SCRIPT="$SPX_TOP_SRCDIR/test/python/grp_invite.py"
# A sanitizer build of the library needs its runtime first in the process.
PRELOAD=""
if objdump -p "$SPX_LIBDIR/libpmix.so.2" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # the interpreter's own
fi
for SPX_NODES in 1 3; do
    n=$(spx_nodes_ranks $SPX_NODES)
    for late in 0 1; do
        timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n "$n" --nodes "$SPX_NODES" \
            --timeout $((SPX_TIMEOUT - 10)) ${PRELOAD:+-x LD_PRELOAD="$PRELOAD"} \
            "$PY" "$SCRIPT" --expect-lib "$SPX_LIBDIR" --leader-late $late \
            >"$SPX_OUT" 2>"$SPX_ERR"
        SPX_RC=$?
        spx_expect_rc 0
        spx_expect_out "^grp_invite.py: $n ranks: OK$"
        k=$(grep -c "^grp_invite.py: rank [0-9]*: group pygrp of $n, context id [0-9]*$" "$SPX_OUT")
        [ "$k" = "$n" ] || spx_fail "$k of $n ranks reported the group"
        echo "ok: python3-pmix group on $SPX_NODES nodes ($n ranks), leader late by $late s"
    done
done
spx_pass "grp_invite: python3-pmix group_invite/group_join on our library, 1 and 3 nodes"
