#!/bin/bash
# test/slurm/test_hetjob.sh - heterogeneous and --multi-prog steps under
# srun --mpi=spmix on the 3-node Slurm 22.05 cluster (test/slurm/cluster.sh).
# Run as root, holding /tmp/spmix-vc.lock like the other cluster tests:
#   flock /tmp/spmix-vc.lock test/slurm/test_hetjob.sh --build DIR [--keep]
# Checks, with test/slurm/hetcheck (built here by make):
#   srun A : B (a het job of 2 components, 1 node x 2 + 2 nodes x 2) and an
#   sbatch hetjob's components launched together (srun --het-group=0,1):
#   one namespace of all 6 ranks, each component an application (PMIX_APPNUM,
#   PMIX_APPLDR, PMIX_APP_SIZE, PMIX_JOB_NUM_APPS), a collecting fence whose
#   data every rank reads from every other rank, a group of all ranks;
#   the same as a het step inside one ordinary allocation (salloc -N3), timed;
#   a --multi-prog step of 3 lines (one app per line, also non-contiguous);
#   a het step whose second component's program does not exist ends within
#   a few seconds.
# Slurm 22.05 allocates het jobs from its backfill scheduler only (every
# bf_interval, 30 s by default): the het job cases wait that long for nodes,
# which is why the timed cases run inside salloc.
# Prints PASS:/FAIL: lines and the het step's start time; exit 1 on failure.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"
spx_vc_checks
OUT=$(mktemp -d /tmp/spmix-hettest.XXXXXX)
chmod 755 "$OUT"
spx_vc_install "$OUT"
make -s -C "$BUILD" -j2 test/slurm/hetcheck >>"$OUT/install.log" 2>&1 ||
    { cat "$OUT/install.log"; echo "$0: cannot build hetcheck" >&2; exit 1; }
HC=$BUILD/test/slurm/.libs/hetcheck
[ -x "$HC" ] || HC=$BUILD/test/slurm/hetcheck
BG=""
spx_vc_up "$OUT"
S="timeout 90 srun --mpi=spmix"
now() { date +%s.%N; }
secs() { echo "$(now) - $1" | bc | cut -c1-5; }

# all_ok NAME N: N lines "hetcheck: rank R app A: OK" with the expected apps
all_ok() {
    local name=$1 apps=$2 n i=0 bad=0 a
    for a in ${apps//,/ }; do
        grep -q "^hetcheck: rank $i app $a: OK$" "$OUT/o" || bad=1
        i=$((i + 1))
    done
    n=$(grep -c ": OK$" "$OUT/o")
    if [ "$bad" = 0 ] && [ "$n" = "$i" ]; then pass "$name"
    else fail "$name ($n of $i ranks OK)"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 20; fi
}

# ---- srun A : B ----
APPS=0,0,1,1,1,1
t=$(now)
$S -N1 -n2 "$HC" $APPS : -N2 -n4 "$HC" $APPS >"$OUT/o" 2>"$OUT/e"
echo "het job (srun -N1 -n2 A : -N2 -n4 B): srun took $(secs "$t") s (with the allocation)"
all_ok "srun -N1 -n2 A : -N2 -n4 B: one namespace of 6, apps 0 and 1, fence data and a group across components" $APPS

# ---- an sbatch hetjob, both components in one step ----
cat >"$OUT/het.sbatch" <<EOS
#!/bin/bash
#SBATCH -N2 -n4
#SBATCH hetjob
#SBATCH -N1 -n2
srun --mpi=spmix --het-group=0,1 "$HC" 0,0,0,0,1,1
EOS
t=$(now)
if timeout 120 sbatch -W -o "$OUT/o" -e "$OUT/e" "$OUT/het.sbatch" >"$OUT/sb" 2>&1; then :; fi
echo "sbatch hetjob step: sbatch -W took $(secs "$t") s"
all_ok "sbatch hetjob (-N2 -n4 + -N1 -n2), srun --het-group=0,1: 6 ranks, apps 0 and 1, fence and group" 0,0,0,0,1,1

# ---- a het step inside one allocation, timed ----
cat >"$OUT/inalloc.sh" <<EOS
#!/bin/bash
t=\$(date +%s.%N)
$S -N1 -n2 "$HC" $APPS : -N2 -n4 "$HC" $APPS >"$OUT/o" 2>"$OUT/e"
echo "\$(date +%s.%N) - \$t" | bc | cut -c1-5 >"$OUT/t"
t=\$(date +%s.%N)
$S -N1 -n2 "$HC" 0,0,1,1 : -N1 -n2 /nonexistent/hetcheck >"$OUT/o2" 2>"$OUT/e2"
echo "\$? \$(echo "\$(date +%s.%N) - \$t" | bc | cut -c1-5)" >"$OUT/t2"
EOS
chmod +x "$OUT/inalloc.sh"
timeout 150 salloc -N3 -n6 "$OUT/inalloc.sh" >"$OUT/sa" 2>&1
echo "het step in an allocation (srun -N1 -n2 A : -N2 -n4 B, 6 ranks: init, 2 fences, a group): srun took $(cat "$OUT/t") s"
all_ok "salloc -N3 -n6; srun -N1 -n2 A : -N2 -n4 B: the same in one allocation" $APPS

# ---- a component that cannot start ends the step at once ----
read -r rc d <"$OUT/t2"
if [ "$rc" != 0 ] && [ "$(echo "$d < 10" | bc)" = 1 ]; then
    pass "het step whose second component's program does not exist: srun failed ($rc) in $d s"
else
    fail "het step with a missing program: srun exit $rc after $d s"; sed 's/^/    /' "$OUT/e2" | tail -n 10
fi

# ---- --multi-prog: one application per line ----
printf '# three programs\n0,3 %s 0,1,2,0,2\n\n1 %s 0,1,2,0,2\n2,4 %s 0,1,2,0,2\n' \
    "$HC" "$HC" "$HC" >"$OUT/mp.conf"
$S -N3 -n5 --multi-prog "$OUT/mp.conf" >"$OUT/o" 2>"$OUT/e"
all_ok "--multi-prog of 3 lines (ranks 0,3 | 1 | 2,4): PMIX_APPNUM/APPLDR/APP_SIZE per line, JOB_NUM_APPS 3" 0,1,2,0,2

echo "test_hetjob: $NFAIL failure(s), $(secs "$T0") s"
[ $NFAIL = 0 ]
