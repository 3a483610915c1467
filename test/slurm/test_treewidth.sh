#!/bin/bash
# test/slurm/test_treewidth.sh - the width of mpi/spmix's tree between the
# nodes' servers follows Slurm's TreeWidth unless mpi.conf sets
# SpmixTreeWidth. Run as root, holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/slurm/test_treewidth.sh --build DIR [--keep]
# Brings up 4 nodes with `TreeWidth=2` in slurm.conf (--extra-conf) and an
# mpi.conf without SpmixTreeWidth (SpmixDebug=1, so every node's server logs
# "node I of 4 (vnK), tree ..., width W (FROM)" in its slurmd log), then:
#   - scontrol show config shows SpmixTreeWidth = 2 (from TreeWidth);
#   - a 4-node step (it_fence, 4 x 2 ranks) passes and all 4 servers log
#     width 2 (TreeWidth);
#   - with SpmixTreeWidth=3 in mpi.conf (reconfigure) the next step's 4
#     servers log width 3 (SpmixTreeWidth): mpi.conf wins.
# Prints PASS:/FAIL: lines; exit 1 if anything failed. About 10 s.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"
spx_vc_checks
OUT=$(mktemp -d /tmp/spmix-twtest.XXXXXX)
chmod 755 "$OUT"
if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1 ||
   ! make -s -C "$BUILD" -j2 test/integration/it_fence >>"$OUT/install.log" 2>&1; then
    cat "$OUT/install.log"; echo "$0: build/install failed" >&2; exit 1
fi
spx_vc_dirs
IT=$BUILD/test/integration/.libs

cleanup() {
    rm -rf "$OUT"
    if [ "$KEEP" = 0 ]; then "$CLUSTER" down >/dev/null 2>&1; fi
}
trap cleanup EXIT
echo "TreeWidth=2" >"$OUT/extra.conf"
"$CLUSTER" up -n 4 --plugin-dir "$PLUGDIR" --extra-conf "$OUT/extra.conf" >"$OUT/up.log" 2>&1 ||
    { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"

# mpiconf [KEY=VALUE...]: the test's mpi.conf (SpmixTreeWidth only when given), reconfigure
mpiconf() {
    spx_vc_mpiconf "$SPMIX_VC_DIR/mpi.conf" SpmixPortRange=31300-31399 SpmixTimeout=20 \
        SpmixDebug=1 "SpmixLibDir=$LIBDIR" SpmixSetLdLibraryPath=yes "$@" || exit 1
    "$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; fail "reconfigure"; }
}
# step_width WANT FROM: a 4 x 2 it_fence step passes and each of the 4 nodes'
# servers logged "width WANT (FROM)" for it
step_width() {
    local want=$1 from=$2 n=0 k line
    declare -A before
    for k in 1 2 3 4; do before[$k]=$(wc -l <"$SPMIX_VC_DIR/log/slurmd-vn$k.log"); done
    timeout 60 srun --mpi=spmix -N4 -n8 --ntasks-per-node=2 "$IT/it_fence" >"$OUT/o" 2>"$OUT/e"
    if grep -q "it_fence: 8 ranks: OK" "$OUT/o"; then pass "4 nodes x 2: it_fence with width $want"
    else fail "4 nodes x 2: it_fence with width $want"; tail -n 10 "$OUT/o" "$OUT/e" | sed 's/^/    /'; fi
    for k in 1 2 3 4; do
        line=$(tail -n +$((before[$k] + 1)) "$SPMIX_VC_DIR/log/slurmd-vn$k.log" |
               grep "mpi/spmix: node .* (vn$k), tree .*, width " | tail -n 1)
        case $line in *"width $want ($from),"*) n=$((n + 1)) ;;
            *) echo "    vn$k: ${line:-no width line}" ;; esac
    done
    if [ $n = 4 ]; then pass "the step's 4 servers used width $want ($from)"
    else fail "$n/4 servers of the step logged width $want ($from)"; fi
}

mpiconf
check_cfg() { scontrol show config 2>&1 | grep -E "^SpmixTreeWidth *= *$1\$" >/dev/null; }
if check_cfg "2 \(from TreeWidth\)"; then pass "scontrol show config: SpmixTreeWidth = 2 (from TreeWidth)"
else fail "scontrol show config: $(scontrol show config 2>&1 | grep SpmixTreeWidth)"; fi
step_width 2 TreeWidth

mpiconf SpmixTreeWidth=3
if check_cfg 3; then pass "scontrol show config: SpmixTreeWidth = 3 (mpi.conf)"
else fail "scontrol show config: $(scontrol show config 2>&1 | grep SpmixTreeWidth)"; fi
step_width 3 SpmixTreeWidth

echo "test_treewidth: $NFAIL failure(s), $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s"
[ "$NFAIL" = 0 ]
