#!/bin/bash
# test/slurm/test_plugin.sh - mpi/spmix on a real 3-node Slurm cluster (22.05 here, 24.11 and 26.05 in the chroots)
# (test/slurm/cluster.sh). Run as root:
#   test/slurm/test_plugin.sh --build DIR [--keep]
# DIR is a configured build tree (configure --prefix=P [--with-slurm-plugindir=Q]);
# the script runs `make install` there, brings the cluster up with the
# installed plugin directory first in PluginDir, writes an mpi.conf (the shipped
# slurm-conf-examples/mpi.conf with the test's values), and checks:
#   srun --mpi=list; mpi.conf reaches slurmstepd (scontrol show config, the
#   tree port in SpmixPortRange); the integration clients it_keys, it_putget,
#   it_fence on one node and it_fence, it_pubsub (the job-wide publish
#   directory), it_nodeinfo (Gets qualified with PMIX_NODE_INFO for every
#   node against what its ranks see, block and cyclic) plus slurm_probe
#   (keys vs Slurm's view, block and cyclic) on 3 nodes x 2 tasks, tasks
#   loading our library; Open MPI (mpi4py allreduce) on 3 nodes x 2; a batch
#   job; PMIx_Abort -> srun exit status and message; a rank SIGKILLed in a
#   fence -> the others fail promptly, the step ends, no slurmstepd is left;
#   jobs of the unprivileged user; another uid cannot connect to the step's
#   server; a forged message on a tree port is rejected (connection closed,
#   logged) and the step still completes; a fence is a barrier across nodes;
#   a node whose ranks finished ends in order (no event for the others, a
#   later fence naming its ranks fails at once); under Slurm's own
#   --mpi=pmix (OpenPMIx) a program loading our library through
#   LD_LIBRARY_PATH fails PMIx_Init with our one-line message and srun fails,
#   while the same program on OpenPMIx's library runs.
# Prints PASS:/FAIL: lines; exit 1 if anything failed. About 30-40 s.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"

NFAIL=0
T0=$(date +%s.%N)
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
OUT=$(mktemp -d /tmp/spmix-plgtest.XXXXXX)
chmod 755 "$OUT"

# ---- build and install (first, so a re-run of config.status cannot mix into mkvars) ----
if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1 ||
   ! make -s -C "$BUILD" -j2 plugin/test/slurm_probe test/integration/it_fence \
        test/integration/it_keys test/integration/it_putget \
        test/integration/it_pubsub test/integration/it_nodeinfo >>"$OUT/install.log" 2>&1; then
    cat "$OUT/install.log"; echo "$0: build/install failed" >&2; exit 1
fi
spx_vc_dirs
[ -f "$PLUGDIR/mpi_spmix.so" ] || { echo "$0: no $PLUGDIR/mpi_spmix.so after make install" >&2; exit 1; }
PROBE=$BUILD/plugin/test/.libs/slurm_probe
IT=$BUILD/test/integration/.libs

# ---- cluster ----
cleanup() {
    rm -rf "$OUT"
    if [ "$KEEP" = 0 ]; then "$CLUSTER" down >/dev/null 2>&1; fi
}
trap cleanup EXIT
"$CLUSTER" up -n 3 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 || { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"
PORT_LO=31000 PORT_HI=31099
spx_vc_mpiconf "$SPMIX_VC_DIR/mpi.conf" SpmixPortRange=$PORT_LO-$PORT_HI SpmixTimeout=20 \
    SpmixTreeWidth=2 SpmixDebug=1 "SpmixLibDir=$LIBDIR" SpmixSetLdLibraryPath=yes || exit 1
"$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; fail "reconfigure with mpi.conf"; }
UI="su -s /bin/sh $SPMIX_VC_USER -c"
S="timeout 60 srun --mpi=spmix"

# ---- configuration and listing ----
check "srun --mpi=list shows spmix" grep -qw spmix <(srun --mpi=list 2>&1)
check "scontrol show config lists SpmixPortRange=$PORT_LO-$PORT_HI" \
    grep -Eq "SpmixPortRange *= *$PORT_LO-$PORT_HI" <(scontrol show config 2>&1)

# ---- one node ----
run_ok() { # name expected-line command...
    local name=$1 want=$2; shift 2
    if "$@" >"$OUT/o" 2>"$OUT/e" && grep -q -- "$want" "$OUT/o"; then pass "$name"
    else fail "$name"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 15; fi
}
run_ok "1 node x 2: it_keys" "it_keys: 2 ranks: OK" $S -N1 -n2 "$IT/it_keys"
run_ok "1 node x 2: it_putget" "it_putget: 2 ranks, .* types: OK" $S -N1 -n2 "$IT/it_putget"
run_ok "1 node x 4 (-O): it_fence" "it_fence: 4 ranks: OK" $S -N1 -n4 -O "$IT/it_fence"

# ---- three nodes ----
run_ok "3 nodes x 2: it_fence" "it_fence: 6 ranks: OK" $S -N3 -n6 "$IT/it_fence"
run_ok "3 nodes x 1: publish/lookup across nodes (a waiting lookup on vn2 gets what vn3 publishes)" \
    "it_pubsub: 3 ranks: OK" $S -N3 -n3 "$IT/it_pubsub"
for dist in block cyclic; do
    run_ok "3 nodes x 2 ($dist): it_nodeinfo (every node's info by name and by id = what its ranks see)" \
        "it_nodeinfo: 6 ranks on 3 nodes: OK" $S -N3 -n6 -m $dist "$IT/it_nodeinfo"
done
for dist in block cyclic; do
    $S -N3 -n6 -m $dist "$PROBE" keys >"$OUT/o" 2>"$OUT/e"; rc=$?
    n=$(grep -c "^keys ok .* lib $LIBDIR/libpmix.so" "$OUT/o")
    if [ $rc = 0 ] && [ "$n" = 6 ]; then pass "3 nodes x 2 ($dist): keys agree with Slurm, tasks load $LIBDIR/libpmix.so.2"
    else fail "3 nodes x 2 ($dist): keys (rc $rc, $n/6 ok)"; tail -n 15 "$OUT/o" "$OUT/e" | sed 's/^/    /'; fi
done

# ---- Debian's Open MPI (through mpi4py), unchanged, over our library ----
cat >"$OUT/allreduce.py" <<'EOF'
from mpi4py import MPI
c = MPI.COMM_WORLD
s = c.allreduce(c.rank + 1)
if c.rank == 0:
    print("allreduce", c.size, s)
EOF
chmod 644 "$OUT/allreduce.py"
# Open MPI 5 and later bind pmix_framework_names (and PMIx v5 functions) at
# load time: with a library of the v4 ABI only, that check waits (SKIP line)
if nm -D --defined-only "$LIBDIR/libpmix.so.2" 2>/dev/null | grep -qw pmix_framework_names ||
   ! nm -D --undefined-only "$(ls /usr/lib/*/libopen-pal.so.* 2>/dev/null | head -n 1)" 2>/dev/null |
        grep -qw pmix_framework_names; then
    run_ok "3 nodes x 2: Open MPI (mpi4py) allreduce" "allreduce 6 21" \
        env OMPI_MCA_mpi_yield_when_idle=1 $S -N3 -n6 "$SPMIX_VC_PYTHON" "$OUT/allreduce.py"
else
    echo "SKIP: Open MPI (mpi4py) allreduce: this Open MPI needs the PMIx v5 ABI (pmix_framework_names), which $LIBDIR/libpmix.so.2 does not have"
fi

# ---- MPI-4 sessions (Open MPI 5 and later): communicators from PMIx groups ----
# MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups across 3
# nodes (test/slurm/mpi/mpi_sessions.c); Slurm's own mpi/pmix cannot run it (no
# group support: one rank per node fails, the others hang). Open MPI 4.1 has
# no sessions: the program does not compile there (SKIP line).
if command -v mpicc >/dev/null &&
     mpicc -o "$OUT/mpi_sessions" "$HERE/mpi/mpi_sessions.c" 2>"$OUT/cc.err"; then
    chmod 755 "$OUT/mpi_sessions"
    run_ok "3 nodes x 2: MPI sessions (communicator and intercommunicator from groups)" \
        "mpi_sessions: 6 processes: OK" \
        env OMPI_MCA_mpi_yield_when_idle=1 $S -N3 -n6 "$OUT/mpi_sessions"
    # the same under our launcher, without Slurm (one node, 4 ranks)
    run_ok "spmix-run -n 4: MPI sessions" "mpi_sessions: 4 processes: OK" \
        env OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader \
        "${LIBDIR%/lib/spmix}/bin/spmix-run" -n 4 "$OUT/mpi_sessions"
else
    echo "SKIP: MPI sessions: this MPI has no MPI_Session_init ($(head -c 200 "$OUT/cc.err" | tr '\n' ' '))"
fi

# ---- Slurm's own --mpi=pmix (an OpenPMIx server) with our library on LD_LIBRARY_PATH ----
# A program built against Debian's OpenPMIx (RUNPATH to it) runs under Slurm's
# mpi/pmix; with LD_LIBRARY_PATH naming our directory it loads our
# libpmix.so.2, which must refuse the OpenPMIx server's URI (one line naming
# it and the fix, PMIx_Init fails, srun fails) instead of running every task
# as a singleton of size 1.
cat >"$OUT/opmix_hello.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <pmix.h>
int main(void)
{
    pmix_proc_t me, job;
    pmix_value_t *v = NULL;
    Dl_info dl = {0};
    dladdr((void *)PMIx_Init, &dl);
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "opmix_hello: PMIx_Init: %s (lib %s)\n", PMIx_Error_string(rc), dl.dli_fname);
        return 1;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    printf("opmix_hello rank %u size %u lib %s\n", me.rank,
           rc == PMIX_SUCCESS ? v->data.uint32 : 0, dl.dli_fname);
    PMIx_Finalize(NULL, 0);
    return 0;
}
EOF
OPMIX_LIB=$(pkg-config --variable=libdir pmix 2>/dev/null)
# shellcheck disable=SC2046
if ! srun --mpi=list 2>&1 | grep -qw pmix; then
    echo "SKIP: control with Slurm's --mpi=pmix: this Slurm ($(srun --version 2>&1)) has no mpi/pmix plugin"
elif [ -n "$OPMIX_LIB" ] &&
   cc -o "$OUT/opmix_hello" "$OUT/opmix_hello.c" $(pkg-config --cflags --libs pmix) >"$OUT/e" 2>&1; then
    timeout 60 srun --mpi=pmix -N2 -n2 "$OUT/opmix_hello" >"$OUT/o" 2>"$OUT/e"; rc=$?
    n=$(grep -c "^opmix_hello rank [01] size 2 lib $OPMIX_LIB/libpmix.so.2$" "$OUT/o")
    if [ $rc = 0 ] && [ "$n" = 2 ]; then pass "control: Slurm's --mpi=pmix, 2 nodes x 1 on OpenPMIx's $OPMIX_LIB/libpmix.so.2: a job of 2"
    else fail "control: Slurm's --mpi=pmix on OpenPMIx (rc $rc, $n/2 ok)"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 10; fi
    timeout 60 srun --mpi=pmix -N2 -n2 env LD_LIBRARY_PATH="$LIBDIR" "$OUT/opmix_hello" >"$OUT/o" 2>"$OUT/e"; rc=$?
    n=$(grep -c "error: PMIx_Init: PMIX_SERVER_URI41=[^ ]*;tcp4://[^ ]* is not an spmix server; this library ($LIBDIR/libpmix.so.2) is spmix's libpmix.so.2 .*run under srun --mpi=spmix or spmix-run, or remove its directory from LD_LIBRARY_PATH" "$OUT/e")
    nf=$(grep -c "^opmix_hello: PMIx_Init: PMIX_ERR_NOT_SUPPORTED (lib $LIBDIR/libpmix.so.2)$" "$OUT/e")
    if [ $rc != 0 ] && [ "$n" = 2 ] && [ "$nf" = 2 ] && ! grep -q "^opmix_hello rank" "$OUT/o"; then
        pass "Slurm's --mpi=pmix with our library on LD_LIBRARY_PATH: both tasks fail PMIx_Init (NOT_SUPPORTED) naming the URI and the fix, srun exits $rc"
    else fail "Slurm's --mpi=pmix with our library: rc $rc, $n/2 messages, $nf/2 init failures"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 10; fi
else fail "cannot build a program against OpenPMIx (pkg-config pmix: '$OPMIX_LIB')"; sed 's/^/    /' "$OUT/e" | tail -n 5; fi

# ---- batch job ----
cat >"$OUT/job.sh" <<EOF
#!/bin/sh
srun --mpi=spmix -N3 -n6 $IT/it_fence
EOF
chmod 755 "$OUT/job.sh"
if timeout 90 sbatch --wait -N3 -n6 -o "$OUT/batch.out" "$OUT/job.sh" >/dev/null 2>"$OUT/e" &&
   grep -q "it_fence: 6 ranks: OK" "$OUT/batch.out"; then pass "sbatch job: srun --mpi=spmix -N3 -n6 it_fence"
else fail "sbatch job"; cat "$OUT/batch.out" "$OUT/e" 2>/dev/null | tail -n 10 | sed 's/^/    /'; fi

# ---- PMIx_Abort ----
$S -N3 -n6 "$PROBE" abort 7 >"$OUT/o" 2>"$OUT/e"; rc=$?
if [ $rc = 7 ] && grep -q "rank 1 on vn1 called PMIx_Abort with status 7: probe abort" "$OUT/e"; then
    pass "PMIx_Abort(7) in rank 1: srun exits 7 and shows the message"
else fail "PMIx_Abort: srun rc $rc"; tail -n 10 "$OUT/e" | sed 's/^/    /'; fi

# ---- a rank killed in a fence ----
t=$(date +%s.%N)
$S -N3 -n6 "$PROBE" killfence >"$OUT/o" 2>"$OUT/e"; rc=$?
dt=$(echo "$(date +%s.%N) - $t" | bc)
nf=$(awk '$1 == "fence_failed" && $3 != "PMIX_SUCCESS" && $4 < 5 { n++ } END { print n + 0 }' "$OUT/o")
if [ $rc != 0 ] && [ "$nf" = 5 ] && [ "$(echo "$dt < 15" | bc)" = 1 ]; then
    pass "SIGKILL of rank 1 in a fence: the 5 others fail promptly ($(awk '$1=="fence_failed"{print $3; exit}' "$OUT/o")), step over in ${dt%???????} s"
else fail "SIGKILL in a fence: rc $rc, $nf/5 prompt failures, ${dt} s"; cat "$OUT/o" | sed 's/^/    /'; fi
gone=0
for _ in $(seq 50); do
    if ! pgrep -x slurmstepd >/dev/null; then gone=1; break; fi
    sleep 0.2
done
check "no slurmstepd left after the killed step" [ $gone = 1 ]

# ---- the unprivileged user ----
$UI ". $SPMIX_VC_DIR/env.sh && cd && timeout 60 srun --mpi=spmix -N3 -n6 $PROBE keys" >"$OUT/o" 2>"$OUT/e"
check "3 nodes x 2 as $SPMIX_VC_USER: keys" [ "$(grep -c '^keys ok' "$OUT/o")" = 6 ]

# ---- another uid; a forged tree message (one held step of $SPMIX_VC_USER on 2 nodes) ----
ENVF=$SPMIX_VC_USER_HOME/spmix-plgtest-env.$$
rm -f "$ENVF"
$UI ". $SPMIX_VC_DIR/env.sh && cd && timeout 60 srun --mpi=spmix -N2 -n2 $PROBE env $ENVF" >"$OUT/held.o" 2>"$OUT/held.e" &
held=$!
for _ in $(seq 100); do [ -s "$ENVF" ] && break; sleep 0.1; done
if [ -s "$ENVF" ]; then
    mapfile -t penv < <(grep -E '^(PMIX_|LD_LIBRARY_PATH=)' "$ENVF")
    setpriv --reuid=nobody --regid=nogroup --clear-groups env -i "${penv[@]}" SLURM_NTASKS=2 \
        "$PROBE" keys >"$OUT/o" 2>"$OUT/e"; rc=$?
    if [ $rc != 0 ] && grep -q "FAIL PMIx_Init" "$OUT/e"; then
        pass "uid nobody cannot connect to the step's server ($(grep -o 'Permission denied\|PMIX_ERR_[A-Z_]*' "$OUT/e" | head -1))"
    else fail "uid nobody connected to the step's server (rc $rc)"; fi
    port=$("$CLUSTER" exec vn1 ss -Hltnp 2>/dev/null | awk '/slurmstepd/ { n = split($4, a, ":"); print a[n]; exit }')
    if [ -n "$port" ] && [ "$port" -ge $PORT_LO ] && [ "$port" -le $PORT_HI ]; then
        pass "tree port $port of vn1 is in SpmixPortRange"
    else fail "tree port '$port' not in $PORT_LO-$PORT_HI"; fi
    if [ -n "$port" ]; then
        res=$(timeout 10 "$SPMIX_VC_PYTHON" - "${SPMIX_VC_NET:-10.77.0}.11" "$port" <<'EOF'
import socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(b"SPXF" + b"\xff" * 60 + b"forged tree message" * 20)
t = time.time()
try:
    while s.recv(4096):
        pass
    print("closed %.2f" % (time.time() - t))
except ConnectionResetError:
    print("closed %.2f" % (time.time() - t))
except socket.timeout:
    print("open")
EOF
)
        case $res in closed*) pass "forged message on the tree port: connection closed by the server ($res s)" ;;
                     *) fail "forged message on the tree port: '$res'" ;; esac
    fi
    rm -f "$ENVF"
fi
wait $held; rc=$?
check "the held step completes after both (rc $rc)" [ $rc = 0 ]
if grep -q "tree peer .* closed" "$OUT/held.e"; then pass "the server logged the rejected connection"; else fail "the server logged the rejected connection"; sed "s/^/    /" "$OUT/held.e" | tail -n 8; fi
rm -f "$ENVF"

# ---- the fence is a barrier across nodes ----
$S -N3 -n6 "$PROBE" barrier 4 >"$OUT/o" 2>"$OUT/e"; rc=$?
held=$(awk '$1 == "fence_wait" && $2 != 4 && $3 >= 0.9 { n++ } END { print n + 0 }' "$OUT/o")
if [ $rc = 0 ] && [ "$held" = 5 ]; then
    pass "fence on 3 nodes: rank 4 (vn3) 1 s late holds back all 5 others ($(awk '$1=="fence_wait"&&$2!=4{printf "%s ", $3}' "$OUT/o")s)"
else fail "fence barrier: rc $rc, $held/5 held back"; sed 's/^/    /' "$OUT/o"; fi

# ---- a node whose ranks all finalized ends in order ----
# The ranks of vn3 finalize and exit after a first fence, so its slurmstepd
# ends while the others still run: no failure event may reach them, and a
# fence over the job goes on without the finalized ranks (doc/api-status.md: a node that
# ended in order is left out of fences' node lists); started at the very
# moment the node ends it may fail with PMIX_ERR_UNREACH instead - never a
# hang.
t=$(date +%s.%N)
$S -N3 -n6 "$PROBE" early_end >"$OUT/o" 2>"$OUT/e"; rc=$?
dt=$(echo "$(date +%s.%N) - $t" | bc | cut -c1-4)
good=$(awk '$1 == "early_end" && $4 == 0 && ($6 == "PMIX_SUCCESS" || $6 == "PMIX_ERR_UNREACH") && $7 < 3 { n++ } END { print n + 0 }' "$OUT/o")
if [ $rc = 0 ] && [ "$good" = 4 ] && ! grep -q " lost" "$OUT/e"; then
    pass "a node ending in order: the 4 ranks left get no event, their fence goes on without it ($(awk '$1=="early_end"{printf "%s in %s s; ", $6, $7}' "$OUT/o")step ${dt} s)"
else fail "a node ending in order: rc $rc, $good/4 as expected"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 12; fi

# ---- nothing left behind ----
# (slurmstepd may still be ending the last step when srun returns: allow 5 s)
for _ in $(seq 50); do
    left=$(ls -d /tmp/spmix.[0-9]*.[0-9]*.?????? 2>/dev/null | wc -l)
    [ "$left" = 0 ] && break
    sleep 0.1
done
check "no per-step directory left in /tmp" [ "$left" = 0 ]

echo "test_plugin: $NFAIL failure(s), $(echo "$(date +%s.%N) - $T0" | bc | cut -c1-5) s"
[ $NFAIL = 0 ]
