#!/bin/bash
# run_iof_slurm.sh - stdin under srun on the 3-node virtual Slurm cluster
# (test/slurm/cluster.sh): what PMIx_IOF_push delivers against srun's own
# stdin, and what the opt-in interposition (SPMIX_STDIN=tool) costs srun's
# stdin. Run as root, holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/bench/run_iof_slurm.sh --build DIR [--mib N] [--runs N] [--keep]
# DIR is a configured build tree (make install runs there, as in the cluster
# tests). Every task runs the same reader: it reads one byte, notes the time,
# counts the rest of its stdin (wc -c) and notes the time of its EOF (a
# task that missed a byte fails the run);
# a run's throughput is N MiB over the span from the first task's first byte
# to the last task's EOF (step launch and teardown are not in it). Per run,
# alternating, 1 task on vn1 and 6 tasks on 3 nodes:
#   srun --mpi=none   < file       srun's stdin, no PMIx at all
#   srun --mpi=spmix  < file       the plugin without the opt-in
#   SPMIX_STDIN=tool srun --mpi=spmix < file
#                                  srun's bytes through the interposition
#                                  (a tool's zero-byte push ends the tool side)
#   SPMIX_STDIN=tool srun --mpi=spmix < /dev/null, spmix-push --eof from vn1
#                                  the same bytes pushed (to rank 0; to all 6)
# Then the output tap: MIB MiB of each task's stdout to srun, the step timed,
# with SPMIX_OUTPUT=tool and without.
# Then the round trip of a 64-byte line (test/bench/bench_iof_latency, 2000
# times): srun's stdin (--mpi=none) against a blocking PMIx_IOF_push from
# vn1 into a task on vn1 and into a task on vn3 (through the servers' tree).
set -u
MIB=256
RUNS=3
pass_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --mib) MIB=${2:?}; shift 2 ;;
        --runs) RUNS=${2:?}; shift 2 ;;
        *) pass_args+=("$1"); shift ;;
    esac
done
. "$(dirname "$0")/../slurm/testlib.sh"
spx_vc_args "${pass_args[@]}"
CLUSTER=$(cd "$(dirname "$0")/../slurm" && pwd)/cluster.sh

OUT=$(mktemp -d /tmp/spmix-iofbench.XXXXXX)
chmod 755 "$OUT"
if ! make -s -C "$BUILD" -j2 test/bench/bench_iof_latency >"$OUT/make.log" 2>&1; then
    cat "$OUT/make.log"; echo "$0: cannot build bench_iof_latency" >&2; exit 1
fi
spx_vc_install "$OUT"
LAT=$BUILD/test/bench/bench_iof_latency
BG=""
cleanup() {
    [ -n "$BG" ] && kill "$BG" 2>/dev/null
    [ "$KEEP" = 1 ] || rm -rf "$OUT"
    if [ "$KEEP" = 0 ]; then "$CLUSTER" down >/dev/null 2>&1; fi
}
trap cleanup EXIT
"$CLUSTER" up -n 3 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 || { cat "$OUT/up.log"; exit 1; }
. "$("$CLUSTER" env)"
cat >"$SPMIX_VC_DIR/mpi.conf" <<EOF
# written by run_iof_slurm.sh
SpmixTreeWidth=2
SpmixLibDir=$LIBDIR
SpmixSetLdLibraryPath=yes
EOF
"$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; exit 1; }

BYTES=$((MIB * 1048576))
READER="echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$OUT/id.\$SLURM_PROCID;
    dd bs=1 count=1 status=none of=/dev/null; s=\$(date +%s.%N); n=\$(wc -c);
    echo \"\$s \$(date +%s.%N) \$n\" >$OUT/t.\$SLURM_PROCID"
# MB/s of the last run, from its tasks' t.* files (NTASKS of them)
rate() {
    local n=$1
    [ "$(ls "$OUT"/t.* 2>/dev/null | wc -l)" = "$n" ] || { echo "fail"; return; }
    # every task must have read every byte
    cat "$OUT"/t.* | awk -v b="$BYTES" 'NR == 1 { s = $1; e = $2 }
        { if ($1 < s) s = $1; if ($2 > e) e = $2; if ($3 != b - 1) bad = 1 }
        END { if (bad) print "fail"; else printf "%.1f\n", (b - 1) / (e - s) / 1e6 }'
}
# wait_ids N: the step's N tasks started; sets JS
wait_ids() {
    JS=""
    for _ in $(seq 300); do [ "$(ls "$OUT"/id.* 2>/dev/null | wc -l)" = "$1" ] && break; sleep 0.05; done
    read -r JS <"$OUT/id.0" 2>/dev/null
}
nodes_of() { [ "$1" = 1 ] && echo "-N1 -n1 -w vn1" || echo "-N3 -n$1"; }

# stdin_run MPI ENV NTASKS: srun's stdin
stdin_run() {
    local mpi=$1 envs=$2 n=$3
    rm -f "$OUT"/id.* "$OUT"/t.*
    head -c "$BYTES" /dev/zero | env $envs timeout 300 srun --mpi="$mpi" $(nodes_of "$n") \
        sh -c "$READER" >"$OUT/step.o" 2>&1 &
    BG=$!
    if [ -n "$envs" ]; then # the tool side ends at once
        wait_ids "$n"
        timeout 60 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" --eof - "$JS" \
            </dev/null >"$OUT/push.o" 2>&1 || sed 's/^/    push: /' "$OUT/push.o" >&2
    fi
    wait "$BG" || sed 's/^/    srun: /' "$OUT/step.o" >&2
    BG=""
    rate "$n"
}
# push_run NTASKS RANKS: the same bytes pushed by spmix-push from vn1
push_run() {
    local n=$1 ranks=$2
    rm -f "$OUT"/id.* "$OUT"/t.*
    SPMIX_STDIN=tool timeout 300 srun --mpi=spmix $(nodes_of "$n") sh -c "$READER" \
        </dev/null >"$OUT/step.o" 2>&1 &
    BG=$!
    wait_ids "$n"
    head -c "$BYTES" /dev/zero | timeout 300 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" \
        "$PUSH" --ranks "$ranks" --eof - "$JS" >"$OUT/push.o" 2>&1 || sed 's/^/    push: /' "$OUT/push.o" >&2
    wait "$BG" || sed 's/^/    srun: /' "$OUT/step.o" >&2
    BG=""
    rate "$n"
}
median() { grep -v fail | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "fail" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $MIB MiB, $RUNS runs"
names="none1 spmix1 inter1 push1 none6 spmix6 inter6 push6"
for k in $names; do : >"$OUT/r.$k"; done
for i in $(seq "$RUNS"); do
    stdin_run none "" 1 >>"$OUT/r.none1"
    stdin_run spmix "" 1 >>"$OUT/r.spmix1"
    stdin_run spmix SPMIX_STDIN=tool 1 >>"$OUT/r.inter1"
    push_run 1 0 >>"$OUT/r.push1"
    stdin_run none "" 6 >>"$OUT/r.none6"
    stdin_run spmix "" 6 >>"$OUT/r.spmix6"
    stdin_run spmix SPMIX_STDIN=tool 6 >>"$OUT/r.inter6"
    push_run 6 all >>"$OUT/r.push6"
done
for k in $names; do echo "runs $k (MB/s): $(tr '\n' ' ' <"$OUT/r.$k")"; eval "m_$k=$(median <"$OUT/r.$k")"; done

# output: the tasks write MIB MiB each to stdout, srun writes it to /dev/null;
# the whole step timed (launch included, the same in both modes), with the
# tap (SPMIX_OUTPUT=tool, no tool pulling) and without
out_run() { # ENV NTASKS: MB/s of stdout per task
    local t0 t1
    t0=$(date +%s.%N)
    env $1 timeout 300 srun --mpi=spmix $(nodes_of "$2") sh -c "head -c $BYTES /dev/zero" \
        >/dev/null 2>"$OUT/out.e" || sed 's/^/    srun: /' "$OUT/out.e" >&2
    t1=$(date +%s.%N)
    awk -v b="$BYTES" -v a="$t0" -v c="$t1" 'BEGIN { printf "%.1f\n", b / (c - a) / 1e6 }'
}
for k in out1 tap1 out6 tap6; do : >"$OUT/r.$k"; done
for i in $(seq "$RUNS"); do
    out_run "" 1 >>"$OUT/r.out1"
    out_run SPMIX_OUTPUT=tool 1 >>"$OUT/r.tap1"
    out_run "" 6 >>"$OUT/r.out6"
    out_run SPMIX_OUTPUT=tool 6 >>"$OUT/r.tap6"
done
for k in out1 tap1 out6 tap6; do echo "runs $k (MB/s): $(tr '\n' ' ' <"$OUT/r.$k")"; eval "m_$k=$(median <"$OUT/r.$k")"; done

# small-write round trip
mkfifo "$OUT/fifo" && chmod 666 "$OUT/fifo"
lat_pipe() {
    timeout 120 "$LAT" pipe "$OUT/fifo" 2000 64 2>"$OUT/lat.e" |
        timeout 120 srun --mpi=none -N1 -n1 -w vn1 sh -c "cat >$OUT/fifo" >"$OUT/step.o" 2>&1
    tail -n 1 "$OUT/lat.e"
}
lat_push() { # NODE of the task
    rm -f "$OUT"/id.*
    SPMIX_STDIN=tool timeout 120 srun --mpi=spmix -N1 -n1 -w "$1" \
        sh -c "echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$OUT/id.0; cat >$OUT/fifo" </dev/null >"$OUT/step.o" 2>&1 &
    BG=$!
    wait_ids 1
    timeout 120 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" "$LAT" push \
        "slurm.spmix.srv.$JS.vn1" "slurm.spmix.$JS" 0 "$OUT/fifo" 2000 64 2>&1 | tail -n 1
    wait "$BG"
    BG=""
}
# the tree case needs the task on vn3 and the tool on vn1: a 2-node step
# whose rank 0 only keeps its stdin open (rank 1, on vn3, copies to the FIFO)
lat_push_tree() {
    rm -f "$OUT"/id.*
    SPMIX_STDIN=tool timeout 120 srun --mpi=spmix -N2 -n2 -w vn1,vn3 sh -c \
        "echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$OUT/id.\$SLURM_PROCID;
         if [ \$SLURM_PROCID = 1 ]; then cat >$OUT/fifo; else cat >/dev/null; fi" </dev/null >"$OUT/step.o" 2>&1 &
    BG=$!
    wait_ids 2
    timeout 120 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" "$LAT" push \
        "slurm.spmix.srv.$JS.vn1" "slurm.spmix.$JS" 1 "$OUT/fifo" 2000 64 2>&1 | tail -n 1
    timeout 30 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" --ranks 0 --eof - "$JS" </dev/null >/dev/null 2>&1
    wait "$BG"
    BG=""
}
L_pipe=$(lat_pipe); L_push=$(lat_push vn1); L_tree=$(lat_push_tree)
echo "latency: srun stdin: $L_pipe"
echo "latency: push, task on the tool's node: $L_push"
echo "latency: push, task on another node: $L_tree"
med() { echo "$1" | sed -n 's/.*median_us=\([0-9]*\).*/\1/p'; }
p99() { echo "$1" | sed -n 's/.*p99_us=\([0-9]*\).*/\1/p'; }

echo
echo "| stdin of \`cat > /dev/null\` ($MIB MiB, median of $RUNS) | 1 task (MB/s) | 6 tasks on 3 nodes (MB/s each) |"
echo "|---|---:|---:|"
echo "| srun --mpi=none, srun's stdin | $m_none1 | $m_none6 |"
echo "| srun --mpi=spmix, srun's stdin | $m_spmix1 | $m_spmix6 |"
echo "| SPMIX_STDIN=tool, srun's stdin through the interposition | $m_inter1 | $m_inter6 |"
echo "| SPMIX_STDIN=tool, spmix-push from vn1 (rank 0 / all ranks) | $m_push1 | $m_push6 |"
echo "| push / srun's stdin (--mpi=none) | $(ratio "$m_push1" "$m_none1") | $(ratio "$m_push6" "$m_none6") |"
echo "| interposition / --mpi=none | $(ratio "$m_inter1" "$m_none1") | $(ratio "$m_inter6" "$m_none6") |"
echo "| --mpi=spmix / --mpi=none | $(ratio "$m_spmix1" "$m_none1") | $(ratio "$m_spmix6" "$m_none6") |"
echo
echo "| stdout of \`head -c\` to srun (> /dev/null), whole step ($MIB MiB, median of $RUNS) | 1 task (MB/s) | 6 tasks on 3 nodes (MB/s each) |"
echo "|---|---:|---:|"
echo "| srun --mpi=spmix | $m_out1 | $m_out6 |"
echo "| SPMIX_OUTPUT=tool (the tap, no tool pulling) | $m_tap1 | $m_tap6 |"
echo "| tap / without | $(ratio "$m_tap1" "$m_out1") | $(ratio "$m_tap6" "$m_out6") |"
echo
echo "| 64-byte line, write to read back (2000 times) | median (us) | p99 (us) |"
echo "|---|---:|---:|"
echo "| srun's stdin (--mpi=none), task on vn1 | $(med "$L_pipe") | $(p99 "$L_pipe") |"
echo "| PMIx_IOF_push from vn1, task on vn1 | $(med "$L_push") | $(p99 "$L_push") |"
echo "| PMIx_IOF_push from vn1, task on vn3 | $(med "$L_tree") | $(p99 "$L_tree") |"
