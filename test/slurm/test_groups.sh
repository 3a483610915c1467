#!/bin/bash
# test/slurm/test_groups.sh - PMIx groups under srun --mpi=spmix on a real
# 3-node Slurm 22.05 cluster (test/slurm/cluster.sh). Run as root, holding
# /tmp/spmix-vc.lock like the other cluster tests:
#   flock /tmp/spmix-vc.lock test/slurm/test_groups.sh --build DIR [--keep]
# DIR is a configured build tree (configure --prefix=P); the script runs
# `make install` there, brings the cluster up with the installed plugin
# directory first in PluginDir and checks, on 3 nodes x 2 tasks loading our
# library:
#   it_group (construct/destruct, context ids, group ids as names);
#   it_grpinvite in modes accept, decline, optional, abort and leaderfin;
#   it_grpfault (member, leader, notify, deadinvitee: a task kills itself;
#   srun -K0 keeps the step going);
#   Debian's python3-pmix (test/python/grp_invite.py): a group_invite by
#   rank 0 and blocking group_joins from a thread of the script, on our
#   libpmix.so.2 (checked in /proc/self/maps), also with a leader that
#   starts a second late (the joins come first and must wait); skipped
#   when /usr/bin/python3 has no pmix module.
# Prints PASS:/FAIL:/SKIP: lines; exit 1 if anything failed.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"

NFAIL=0
T0=$(date +%s.%N)
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }
OUT=$(mktemp -d /tmp/spmix-grptest.XXXXXX)
chmod 755 "$OUT"

if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1 ||
   ! make -s -C "$BUILD" -j2 test/integration/it_group test/integration/it_grpinvite \
        test/integration/it_grpfault test/integration/it_grpedge \
        >>"$OUT/install.log" 2>&1; then
    cat "$OUT/install.log"; echo "$0: build/install failed" >&2; exit 1
fi
spx_vc_dirs
[ -f "$PLUGDIR/mpi_spmix.so" ] || { echo "$0: no $PLUGDIR/mpi_spmix.so after make install" >&2; exit 1; }
IT=$BUILD/test/integration/.libs
PYTEST=$HERE/../python/grp_invite.py

BG=""
spx_vc_up "$OUT"
S="timeout 60 srun --mpi=spmix"

run_ok() { # name expected-line command...
    local name=$1 want=$2; shift 2
    if "$@" >"$OUT/o" 2>"$OUT/e" && grep -q -- "$want" "$OUT/o"; then pass "$name"
    else fail "$name"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 20; fi
}

# ---- the integration programs of group.sh and grpinvite.sh ----
run_ok "3 nodes x 2: it_group (construct/destruct, context ids, group id in Get and Fence)" \
    "^it_group: 6 ranks: OK$" $S -N3 -n6 "$IT/it_group"
for mode in accept decline optional abort leaderfin add; do
    run_ok "3 nodes x 2: it_grpinvite $mode" "^it_grpinvite: $mode: 6 ranks: OK$" \
        $S -N3 -n6 "$IT/it_grpinvite" $mode
done
# a task that dies: the step goes on (-K0, Slurm's default), the others get
# the errors and events of grpfault.sh and finish
for mode in member optional leader reselect noleader notify deadinvitee; do
    $S -K0 -N3 -n6 "$IT/it_grpfault" $mode >"$OUT/o" 2>"$OUT/e"
    n=$(grep -c "^it_grpfault: $mode: rank [0-9]*: OK$" "$OUT/o")
    if [ "$n" = 5 ]; then pass "3 nodes x 2: it_grpfault $mode (5 survivors finished)"
    else fail "3 nodes x 2: it_grpfault $mode: $n of 5 survivors OK"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 20; fi
done

# ---- corner cases of other projects' programs (grpedge.sh) ----
# an invitation accepted from the handler with a NULL callback, members'
# PMIX_REMOTE data at once on every node
run_ok "3 nodes x 2: it_grpedge nullcb (join_nb with a NULL callback in the handler)" \
    "^it_grpedge: nullcb: rank 5: OK$" $S -N3 -n6 "$IT/it_grpedge" nullcb
# rank 3 alone on the third node dies during a construct / destruct of all
for mode in dead deaddestr; do
    $S -K0 -N3 -n4 "$IT/it_grpedge" $mode >"$OUT/o" 2>"$OUT/e"
    n=$(grep -c "^it_grpedge: $mode: rank [0-9]*: OK$" "$OUT/o")
    if [ "$n" = 3 ]; then pass "3 nodes, 4 tasks: it_grpedge $mode: the member alone on its node dies, 3 survivors: $(sed -n "s/^it_grpedge: $mode: rank 0: \(.* after .*\)$/\1/p" "$OUT/o")"
    else fail "3 nodes, 4 tasks: it_grpedge $mode: $n of 3 survivors OK"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 20; fi
done
# an invitee on the other node finalizes without answering: the invite aborts
run_ok "2 nodes x 1: it_grpedge invfin (an invitee finalizes without answering)" \
    "^it_grpedge: invfin: rank 0: OK$" $S -N2 -n2 "$IT/it_grpedge" invfin
run_ok "3 nodes x 2: it_grpedge invout (a leader that only invites)" \
    "^it_grpedge: invout: rank 0: OK$" $S -N3 -n6 "$IT/it_grpedge" invout
# the two tasks of one node finalize and exit; the other node's two fence
# (their node's slurmstepd ends with them, and their data with it: nodata)
for mode in finfence finfencehi; do
    $S -N2 -n4 "$IT/it_grpedge" $mode nodata >"$OUT/o" 2>"$OUT/e"
    n=$(grep -c "^it_grpedge: $mode: rank [0-9]*: OK$" "$OUT/o")
    if [ "$n" = 2 ]; then pass "2 nodes x 2: it_grpedge $mode: fences without the finalized node's tasks"
    else fail "2 nodes x 2: it_grpedge $mode: $n of 2 OK"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 20; fi
done

# ---- Debian's python3-pmix on our library ----
# (a python3-pmix built on a later PMIx ABI than our library's waits: SKIP)
# (Debian 13 installs it in an egg directory python does not search: add that
# to PYTHONPATH, which srun passes on to the tasks)
pymod() { "$SPMIX_VC_PYTHON" -c 'import importlib.util as u; s = u.find_spec("pmix"); print(s.origin if s else "")' 2>/dev/null; }
PYMOD=$(pymod)
EGG=$(ls -d /usr/lib/python3/dist-packages/pypmix-*.egg 2>/dev/null | head -n 1)
if [ -z "$PYMOD" ] && [ -n "$EGG" ]; then
    export PYTHONPATH="$EGG${PYTHONPATH:+:$PYTHONPATH}"
    PYMOD=$(pymod)
fi
MISSING=""
[ -n "$PYMOD" ] && MISSING=$(spx_missing_syms "$LIBDIR/libpmix.so.2" "$PYMOD")
if [ -n "$MISSING" ]; then
    echo "SKIP: python3-pmix ($PYMOD) needs what $LIBDIR/libpmix.so.2 lacks: $MISSING"
elif "$SPMIX_VC_PYTHON" -W ignore -c 'import pmix' 2>/dev/null; then
    for late in 0 1; do
        run_ok "3 nodes x 2: python3-pmix group_invite / blocking group_join from a thread on $LIBDIR/libpmix.so.2 (leader late by ${late} s)" \
            "^grp_invite.py: 6 ranks: OK$" \
            $S -N3 -n6 "$SPMIX_VC_PYTHON" "$PYTEST" --expect-lib "$LIBDIR" --leader-late $late
        n=$(grep -c "^grp_invite.py: rank [0-5]: group pygrp of 6, context id [0-9]*$" "$OUT/o")
        [ "$n" = 6 ] || fail "python3-pmix: $n/6 ranks reported the group"
    done
else
    echo "SKIP: python3-pmix: $SPMIX_VC_PYTHON has no pmix module (apt-get install python3-pmix)"
fi

echo "test_groups: $NFAIL failure(s), $(echo "$(date +%s.%N) - $T0" | bc | cut -c1-5) s"
[ $NFAIL = 0 ]
