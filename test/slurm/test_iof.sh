#!/bin/bash
# test/slurm/test_iof.sh - tools and PMIx_IOF_push under srun --mpi=spmix on
# a real 3-node Slurm 22.05 cluster (test/slurm/cluster.sh). Run as root,
# holding /tmp/spmix-vc.lock like the other cluster tests:
#   flock /tmp/spmix-vc.lock test/slurm/test_iof.sh --build DIR [--keep]
# DIR is a configured build tree; the script runs `make install` there and
# brings the cluster up with the installed plugin directory first. Checks:
#   srun's stdin reaches the tasks byte-exact under --mpi=spmix as under
#   --mpi=none (a 1 MiB file, to every task and with --input=0);
#   every node of a running 3 x 2 step has a rendezvous file for tools in
#   /tmp naming its server slurm.spmix.srv.JOBID.STEP.<node>;
#   spmix-push JOBID.STEP finds this node's server from a step of its own
#   (srun --overlap -w vn1, SLURMD_NODENAME) and run directly in a node's
#   namespaces (the host name), and its pushes (to one rank, to a rank on
#   another node through the servers' tree, to all ranks) fail promptly with
#   PMIX_ERR_NOT_AVAILABLE, logged once per node with the reason; a step
#   that does not exist: a clear error; the step itself is not disturbed
#   and its rendezvous files go with it.
# Prints PASS:/FAIL: lines; exit 1 if anything failed.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"

NFAIL=0
T0=$(date +%s.%N)
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }
OUT=$(mktemp -d /tmp/spmix-ioftest.XXXXXX)
chmod 755 "$OUT"

if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1; then
    cat "$OUT/install.log"; echo "$0: build/install failed" >&2; exit 1
fi
spx_vc_dirs
BINDIR=$(make -s -C "$BUILD" --no-print-directory --eval='spx-print-bindir: ; @echo $(bindir)' \
    spx-print-bindir | tail -n 1)
PUSH=$BINDIR/spmix-push
[ -f "$PLUGDIR/mpi_spmix.so" ] && [ -x "$PUSH" ] || { echo "$0: no mpi_spmix.so or spmix-push after make install" >&2; exit 1; }

BG=""
cleanup() {
    [ -n "$BG" ] && kill "$BG" 2>/dev/null
    rm -rf "$OUT"
    if [ "$KEEP" = 0 ]; then "$CLUSTER" down >/dev/null 2>&1; fi
}
trap cleanup EXIT
"$CLUSTER" up -n 3 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 || { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"
cat >"$SPMIX_VC_DIR/mpi.conf" <<EOF
# written by test_iof.sh
SpmixTimeout=20
SpmixTreeWidth=2
SpmixLibDir=$LIBDIR
SpmixSetLdLibraryPath=yes
EOF
"$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; fail "reconfigure with mpi.conf"; }
S="timeout 60 srun --mpi=spmix"
head -c 1048576 /dev/urandom >"$OUT/data"
SHA=$(sha256sum <"$OUT/data" | cut -d' ' -f1)
NONE=$(sha256sum </dev/null | cut -d' ' -f1)

# ---- srun's stdin is unchanged by the plugin ----
# lines "TASK: SHA  -" of every task, sorted
shas() { sed -n 's/^ *\([0-9]*\): \([0-9a-f]\{64\}\) .*/\1 \2/p' "$1" | sort -n | tr '\n' ' '; }
for input in all 0; do
    $S -N3 -n6 -l --input=$input sh -c sha256sum <"$OUT/data" >"$OUT/spmix.o" 2>"$OUT/spmix.e"; rc1=$?
    timeout 60 srun --mpi=none -N3 -n6 -l --input=$input sh -c sha256sum <"$OUT/data" >"$OUT/none.o" 2>&1; rc2=$?
    want=""
    for t in 0 1 2 3 4 5; do
        if [ $input = all ] || [ $input = $t ]; then want="$want$t $SHA "; else want="$want$t $NONE "; fi
    done
    got=$(shas "$OUT/spmix.o")
    if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$got" = "$want" ] && [ "$got" = "$(shas "$OUT/none.o")" ]; then
        pass "srun --input=$input: 1 MiB of srun's stdin reaches the 6 tasks byte-exact, as under --mpi=none"
    else
        fail "srun --input=$input: rc $rc1/$rc2"; echo "    want: $want"; echo "    got:  $got"
        sed 's/^/    /' "$OUT/spmix.e" | tail -n 10
    fi
done

# ---- a running step: every node's server takes tools ----
rm -f "$OUT"/id.* "$OUT/stop"
$S -N3 -n6 sh -c "echo \"\$SLURM_JOB_ID.\$SLURM_STEP_ID \$SLURMD_NODENAME\" >$OUT/id.\$SLURM_PROCID;
    n=0; while [ ! -e $OUT/stop ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n + 1)); done; echo done" \
    </dev/null >"$OUT/step.o" 2>"$OUT/step.e" &
BG=$!
for _ in $(seq 100); do [ "$(ls "$OUT"/id.* 2>/dev/null | wc -l)" = 6 ] && break; sleep 0.1; done
read -r JS _ <"$OUT/id.0" 2>/dev/null || JS=""
JOB=${JS%.*}
# the rendezvous files of this step (the nodes share /tmp here)
rdv() { for f in /tmp/spmix.tool.[0-9]*; do
            [ -f "$f" ] && sed -n 2p "$f" | grep -q "^slurm\.spmix\.srv\.$JS\." && sed -n 2p "$f"
        done | sort | tr '\n' ' '; }
want="slurm.spmix.srv.$JS.vn1 slurm.spmix.srv.$JS.vn2 slurm.spmix.srv.$JS.vn3 "
if [ -n "$JS" ] && [ "$(rdv)" = "$want" ]; then
    pass "step $JS: one rendezvous file per node in /tmp, naming slurm.spmix.srv.$JS.vnK"
else fail "step '$JS': rendezvous files: '$(rdv)'"; sed 's/^/    /' "$OUT/step.e" | tail -n 10; fi

# push NAME WHERE ARGS...: runs spmix-push ARGS on node WHERE, via a step of
# its own (overlap) or directly in the node's namespaces (exec); expects
# PMIX_ERR_NOT_AVAILABLE within 20 s
push_refused() {
    local name=$1 how=$2 node=$3 t0 dt rc; shift 3
    t0=$(date +%s.%N)
    if [ "$how" = overlap ]; then
        timeout 30 srun --mpi=none --jobid="$JOB" --overlap -w "$node" -N1 -n1 \
            env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" "$@" </dev/null >"$OUT/push.o" 2>"$OUT/push.e"; rc=$?
    else
        timeout 30 "$CLUSTER" exec "$node" env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" "$@" \
            </dev/null >"$OUT/push.o" 2>"$OUT/push.e"; rc=$?
    fi
    dt=$(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4)
    if [ $rc = 1 ] && grep -q "^spmix-push: [a-z ]*: PMIX_ERR_NOT_AVAILABLE$" "$OUT/push.e"; then
        pass "$name: PMIX_ERR_NOT_AVAILABLE in $dt s"
    else fail "$name: rc $rc in $dt s"; sed 's/^/    /' "$OUT/push.o" "$OUT/push.e" | tail -n 10; fi
}
push_refused "spmix-push --ranks 0 $JS from a step on vn1 (srun --overlap)" overlap vn1 \
    --ranks 0 --eof "$OUT/data" "$JS"
push_refused "spmix-push --ranks 5 (a rank on vn3) $JS from vn1's namespace" exec vn1 \
    --ranks 5 "$OUT/data" "$JS"
push_refused "spmix-push (all ranks) $JS from vn2's namespace" exec vn2 "$OUT/data" "$JS"
push_refused "spmix-push --eof (all ranks, no data) $JS from a step on vn3" overlap vn3 --eof - "$JS"
n=0
for k in 1 2 3; do
    grep -q "step $JS: a tool .* pushed stdin to the tasks on vn$k: refused (PMIX_ERR_NOT_AVAILABLE)" \
        "$SPMIX_VC_DIR/log/slurmd-vn$k.log" && n=$((n + 1))
done
if [ $n = 3 ]; then pass "each node's slurmstepd logged why the push was refused"
else fail "the refusal was logged on $n of 3 nodes"; fi
timeout 30 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" "$OUT/data" "$JOB.99" \
    >"$OUT/push.o" 2>"$OUT/push.e"; rc=$?
if [ $rc = 1 ] && grep -q "no server of step $JOB.99 on this node (vn1)" "$OUT/push.e"; then
    pass "spmix-push to a step that does not exist: a clear error"
else fail "spmix-push to a step that does not exist: rc $rc"; sed 's/^/    /' "$OUT/push.e" | tail -n 5; fi

touch "$OUT/stop"
wait "$BG"; rc=$?
BG=""
if [ $rc = 0 ] && [ "$(grep -c '^done$' "$OUT/step.o")" = 6 ]; then
    pass "the step ran to its end undisturbed"
else fail "the step: rc $rc"; sed 's/^/    /' "$OUT/step.o" "$OUT/step.e" | tail -n 10; fi
for _ in $(seq 50); do [ -z "$(rdv)" ] && break; sleep 0.1; done
if [ -z "$(rdv)" ]; then pass "the step's rendezvous files are gone with it"
else fail "rendezvous files left: $(rdv)"; fi

echo "test_iof: $NFAIL failure(s), $(echo "$(date +%s.%N) - $T0" | bc | cut -c1-5) s"
[ $NFAIL = 0 ]
