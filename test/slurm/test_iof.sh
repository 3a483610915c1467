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
# The opt-in stdin (tasks fed by tools' pushes merged with srun's stdin):
#   a 3 x 2 step started with SPMIX_STDIN=tool (srun's stdin /dev/null):
#   pushes to rank 0, to rank 5 (from another node), 1 MiB to all ranks,
#   then EOF; the stdin stays open after srun's EOF, ends with the pushed
#   one and holds exactly each task's bytes; with SpmixStdinTool=yes in
#   mpi.conf: srun's stdin (a file) and pushes to rank 1 into the same
#   tasks (distinct alphabets: each source's bytes complete and in order),
#   the stdin ends once both sources ended; SPMIX_STDIN=srun turns the
#   mpi.conf default off again (srun's stdin byte-exact, EOF with srun's);
#   with the interposition, --input=0 and --input=none give each task what
#   they give without it; a tool killed in the middle of a 2 GiB push: the
#   step runs on and a second tool's bytes and EOF reach the task;
#   the SPANK plugin: srun --help lists --spmix-stdin; --spmix-stdin=tool
#   (with --export=NONE, over SPMIX_STDIN=srun) feeds 6 tasks a 1 MiB push
#   ended by its EOF; --spmix-stdin=srun turns SpmixStdinTool=yes off; a
#   wrong value is refused by srun;
#   the library's IOF cases of test/integration/it_iof against a 3-task
#   step, one task per node, fed by a tool on vn3: one rank, a list,
#   WILDCARD, 1 MiB, EOF both ways, push_nb; drop policies and back-pressure
#   with a 16 KiB cache; buffering; UNREACH after a stdin closed or a task
#   exited; a 1 GiB stream from vn1 into a task on vn3 (sha256);
#   a tool pulls a tapped 3-node step's output (it_iofpull's cases);
#   the queries of it_qtable (process tables, job status, namespace info,
#   groups, URIs) from every task of a 3 x 2 step and from a tool on vn1;
#   the output tap (SPMIX_OUTPUT=tool, --spmix-output=tool with
#   --export=NONE): 3 MiB of stdout and 100 kB of stderr byte-exact through
#   srun and into srun -o/-e files of 6 tasks;
#   a push to a task whose stdin is a terminal (srun --pty, under
#   script(1)) fails with PMIX_ERR_NOT_SUPPORTED.
# Prints PASS:/FAIL: lines; exit 1 if anything failed.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"

spx_vc_checks
OUT=$(mktemp -d /tmp/spmix-ioftest.XXXXXX)
chmod 755 "$OUT"

spx_vc_install "$OUT"

BG=""
spx_vc_up "$OUT"
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

# ---- the opt-in stdin: tools' pushes merged with srun's stdin ----
# push_ok NAME NODE ARGS...: spmix-push ARGS from a step of its own on NODE
# (srun --overlap); expects success
push_ok() {
    local name=$1 node=$2 rc; shift 2
    timeout 60 srun --mpi=none --jobid="$JOB" --overlap -w "$node" -N1 -n1 \
        env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" "$@" </dev/null >"$OUT/push.o" 2>"$OUT/push.e"; rc=$?
    if [ $rc = 0 ]; then return 0; fi
    fail "$name: spmix-push rc $rc"; sed 's/^/    /' "$OUT/push.o" "$OUT/push.e" | tail -n 10
    return 1
}
# start_step ENV STDIN: a 3 x 2 step whose tasks copy their stdin to
# $OUT/in.RANK (after writing id.RANK); sets BG, JS, JOB
start_step() {
    rm -f "$OUT"/id.* "$OUT"/in.*
    env $1 timeout 120 srun --mpi=spmix -N3 -n6 sh -c "echo \"\$SLURM_JOB_ID.\$SLURM_STEP_ID\" >$OUT/id.\$SLURM_PROCID;
        cat >$OUT/in.\$SLURM_PROCID; echo done" <"$2" >"$OUT/step.o" 2>"$OUT/step.e" &
    BG=$!
    for _ in $(seq 100); do [ "$(ls "$OUT"/id.* 2>/dev/null | wc -l)" = 6 ] && break; sleep 0.1; done
    read -r JS <"$OUT/id.0" 2>/dev/null || JS=""
    JOB=${JS%.*}
}
# end_step NAME: the step ends by itself within 30 s, 6 tasks printing done
end_step() {
    local rc
    for _ in $(seq 300); do kill -0 "$BG" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$BG" 2>/dev/null; then
        fail "$1: the step did not end after EOF"; kill "$BG"; wait "$BG"; BG=""; return 1
    fi
    wait "$BG"; rc=$?
    BG=""
    if [ $rc = 0 ] && [ "$(grep -c '^done$' "$OUT/step.o")" = 6 ]; then return 0; fi
    fail "$1: step rc $rc"; sed 's/^/    /' "$OUT/step.o" "$OUT/step.e" | tail -n 10
    return 1
}
sum() { sha256sum <"$1" | cut -d' ' -f1; }

printf 'to rank 0\n' >"$OUT/p0"
printf 'to rank 5, from vn2\n' >"$OUT/p5"
start_step SPMIX_STDIN=tool /dev/null
ok=1
push_ok "opt-in: push to rank 0" vn1 --ranks 0 "$OUT/p0" "$JS" || ok=0
push_ok "opt-in: push to rank 5" vn2 --ranks 5 "$OUT/p5" "$JS" || ok=0
sleep 1
if [ "$(ls "$OUT"/in.* 2>/dev/null | wc -l)" = 6 ] && ! grep -q '^done$' "$OUT/step.o"; then
    pass "SPMIX_STDIN=tool: srun's EOF (/dev/null) leaves the tasks' stdin open for tools"
else fail "SPMIX_STDIN=tool: the tasks' stdin ended before a pushed EOF"; ok=0; fi
push_ok "opt-in: 1 MiB to all ranks" vn3 "$OUT/data" "$JS" || ok=0
push_ok "opt-in: EOF to all ranks" vn1 --eof - "$JS" || ok=0
if end_step "SPMIX_STDIN=tool" && [ $ok = 1 ]; then
    cat "$OUT/p0" "$OUT/data" >"$OUT/want.0"
    cat "$OUT/p5" "$OUT/data" >"$OUT/want.5"
    bad=""
    for r in 0 1 2 3 4 5; do
        w=$OUT/data; [ -f "$OUT/want.$r" ] && w=$OUT/want.$r
        [ "$(sum "$OUT/in.$r")" = "$(sum "$w")" ] || bad="$bad $r($(wc -c <"$OUT/in.$r") bytes)"
    done
    if [ -z "$bad" ]; then
        pass "SPMIX_STDIN=tool: pushes to rank 0, to rank 5 from another node, 1 MiB to all, EOF: every task's stdin byte-exact (sha256), ended by the pushed EOF"
    else fail "SPMIX_STDIN=tool: wrong bytes at rank(s)$bad"; fi
fi

# SpmixStdinTool=yes: srun's stdin and pushes into the same tasks
echo "SpmixStdinTool=yes" >>"$SPMIX_VC_DIR/mpi.conf"
"$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; fail "reconfigure with SpmixStdinTool=yes"; }
seq 1 150000 | tr '0-9' 'a-j' >"$OUT/srun.in"         # srun's: a-j and newlines
seq 1 60000 | tr '0-9\n' 'A-J;' >"$OUT/push.in"       # pushed: A-J and ';'
start_step "" "$OUT/srun.in"
ok=1
push_ok "SpmixStdinTool: push to rank 1" vn1 --ranks 1 "$OUT/push.in" "$JS" || ok=0
push_ok "SpmixStdinTool: EOF to all ranks" vn3 --eof - "$JS" || ok=0
if end_step "SpmixStdinTool=yes" && [ $ok = 1 ]; then
    bad=""
    for r in 0 1 2 3 4 5; do
        f=$OUT/in.$r
        want_len=$(wc -c <"$OUT/srun.in"); [ $r = 1 ] && want_len=$((want_len + $(wc -c <"$OUT/push.in")))
        if [ "$(tr -dc 'a-j\n' <"$f" | sha256sum)" != "$(sha256sum <"$OUT/srun.in")" ] ||
           [ "$(wc -c <"$f")" != "$want_len" ]; then bad="$bad $r"; fi
        if [ $r = 1 ] && [ "$(tr -dc 'A-J;' <"$f" | sha256sum)" != "$(sha256sum <"$OUT/push.in")" ]; then
            bad="$bad $r(push)"; fi
    done
    if [ -z "$bad" ]; then
        pass "SpmixStdinTool=yes: srun's stdin ($(wc -c <"$OUT/srun.in") bytes) reaches all 6 tasks, rank 1 also reads a push ($(wc -c <"$OUT/push.in") bytes): each source complete and in order, lengths exact, EOF once both ended"
    else fail "SpmixStdinTool=yes: wrong bytes at rank(s)$bad"; fi
fi

# SPMIX_STDIN=srun: the mpi.conf default off again, as without the option
env SPMIX_STDIN=srun timeout 60 srun --mpi=spmix -N3 -n6 -l sh -c sha256sum <"$OUT/data" >"$OUT/spmix.o" 2>"$OUT/spmix.e"; rc=$?
want=""; for t in 0 1 2 3 4 5; do want="$want$t $SHA "; done
if [ $rc = 0 ] && [ "$(shas "$OUT/spmix.o")" = "$want" ]; then
    pass "SpmixStdinTool=yes but SPMIX_STDIN=srun: srun's stdin byte-exact, the tasks' stdin ends with srun's"
else fail "SPMIX_STDIN=srun: rc $rc, got $(shas "$OUT/spmix.o")"; sed 's/^/    /' "$OUT/spmix.e" | tail -n 5; fi

# with the interposition (SpmixStdinTool=yes): --input=0 and --input=none
# deliver what they deliver without it, the tasks' stdin then ended by a
# pushed EOF
for input in 0 none; do
    rm -f "$OUT"/id.*
    timeout 60 srun --mpi=spmix -N3 -n6 -l --input=$input sh -c \
        "echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$OUT/id.\$SLURM_PROCID; sha256sum" \
        <"$OUT/data" >"$OUT/inp.o" 2>"$OUT/inp.e" &
    BG=$!
    for _ in $(seq 100); do [ "$(ls "$OUT"/id.* 2>/dev/null | wc -l)" = 6 ] && break; sleep 0.1; done
    read -r JS <"$OUT/id.0" 2>/dev/null || JS=""
    JOB=${JS%.*}
    sleep 1   # srun's bytes first (not needed for the result: the EOF waits for srun's end)
    push_ok "--input=$input: EOF to all ranks" vn2 --eof - "$JS"
    for _ in $(seq 300); do kill -0 "$BG" 2>/dev/null || break; sleep 0.1; done
    kill "$BG" 2>/dev/null
    wait "$BG"; rc=$?
    BG=""
    want=""
    for t in 0 1 2 3 4 5; do
        if [ $input = $t ]; then want="$want$t $SHA "; else want="$want$t $NONE "; fi
    done
    if [ $rc = 0 ] && [ "$(shas "$OUT/inp.o")" = "$want" ]; then
        pass "SpmixStdinTool=yes, srun --input=$input: each task reads what it reads without the interposition (sha256), ended by a pushed EOF"
    else fail "SpmixStdinTool=yes, --input=$input: rc $rc, got $(shas "$OUT/inp.o")"; sed 's/^/    /' "$OUT/inp.e" | tail -n 5; fi
done

# a tool killed in the middle of a stream: the step runs on, another tool
# then ends its stdin, the task read a prefix of the killed tool's bytes and
# every byte of the second one's
rm -f "$OUT"/id.* "$OUT/kill.got"
timeout 120 srun --mpi=spmix -N2 -n2 -w vn1,vn2 sh -c \
    "echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$OUT/id.\$SLURM_PROCID;
     if [ \$SLURM_PROCID = 1 ]; then cat >$OUT/kill.got; else cat >/dev/null; fi" \
    </dev/null >"$OUT/kill.o" 2>&1 &
BG=$!
for _ in $(seq 100); do [ "$(ls "$OUT"/id.* 2>/dev/null | wc -l)" = 2 ] && break; sleep 0.1; done
read -r JS <"$OUT/id.0" 2>/dev/null || JS=""
yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -c 2147483648 |
    timeout -s KILL 1 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" --ranks 1 - "$JS" \
    >/dev/null 2>&1
sleep 0.5
alive=no; kill -0 "$BG" 2>/dev/null && alive=yes
printf 'the second tool\n' >"$OUT/second"
timeout 30 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" --eof "$OUT/second" "$JS" \
    >"$OUT/kill.push" 2>&1; rc=$?
for _ in $(seq 300); do kill -0 "$BG" 2>/dev/null || break; sleep 0.1; done
kill "$BG" 2>/dev/null
wait "$BG"; rc2=$?
BG=""
got=$(wc -c <"$OUT/kill.got" 2>/dev/null || echo 0)
if [ $alive = yes ] && [ $rc = 0 ] && [ $rc2 = 0 ] && [ "$(tail -c 16 "$OUT/kill.got")" = "the second tool" ] &&
   [ "$(head -c $((got - 16)) "$OUT/kill.got" | tr -d 'a\n' | wc -c)" = 0 ]; then
    pass "a tool killed 1 s into a 2 GiB push: the step ran on, a second tool's bytes and EOF reached the task ($((got - 16)) bytes of the first before them)"
else fail "tool killed mid-stream: alive $alive, second push rc $rc, step rc $rc2"; sed 's/^/    /' "$OUT/kill.push" "$OUT/kill.o" | tail -n 5; fi

# the SPANK plugin: srun --spmix-stdin=tool|srun (plugstack.conf of the cluster)
if srun --help 2>&1 | grep -q -- "--spmix-stdin=tool|srun"; then
    pass "srun --help lists --spmix-stdin=tool|srun (spank_spmix.so in plugstack.conf)"
else fail "srun --help does not list --spmix-stdin"; fi
rm -f "$OUT"/id.*
env SPMIX_STDIN=srun timeout 60 srun --mpi=spmix --spmix-stdin=tool --export=NONE -N3 -n6 -l /bin/sh -c \
    "echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$OUT/id.\$SLURM_PROCID; sha256sum; echo \"env [\$SPMIX_STDIN]\"" \
    </dev/null >"$OUT/spank.o" 2>"$OUT/spank.e" &
BG=$!
for _ in $(seq 100); do [ "$(ls "$OUT"/id.* 2>/dev/null | wc -l)" = 6 ] && break; sleep 0.1; done
read -r JS <"$OUT/id.0" 2>/dev/null || JS=""
JOB=${JS%.*}
ok=1
push_ok "--spmix-stdin=tool: 1 MiB to all ranks with EOF" vn2 --eof "$OUT/data" "$JS" || ok=0
for _ in $(seq 300); do kill -0 "$BG" 2>/dev/null || break; sleep 0.1; done
kill "$BG" 2>/dev/null
wait "$BG"; rc=$?
BG=""
want=""; for t in 0 1 2 3 4 5; do want="$want$t $SHA "; done
if [ $ok = 1 ] && [ $rc = 0 ] && [ "$(shas "$OUT/spank.o")" = "$want" ] &&
   [ "$(grep -c ': env \[\]$' "$OUT/spank.o")" = 6 ]; then
    pass "srun --spmix-stdin=tool --export=NONE (over SPMIX_STDIN=srun in srun's environment): a push reaches the 6 tasks byte-exact, their stdin ends with the pushed EOF, SPMIX_STDIN is not in the tasks' environment"
else fail "srun --spmix-stdin=tool: rc $rc, got $(shas "$OUT/spank.o")"; sed 's/^/    /' "$OUT/spank.o" "$OUT/spank.e" | tail -n 8; fi
timeout 60 srun --mpi=spmix --spmix-stdin=srun -N3 -n6 -l sh -c sha256sum <"$OUT/data" >"$OUT/spank.o" 2>"$OUT/spank.e"; rc=$?
if [ $rc = 0 ] && [ "$(shas "$OUT/spank.o")" = "$want" ]; then
    pass "srun --spmix-stdin=srun over SpmixStdinTool=yes: srun's stdin byte-exact, the tasks' stdin ends with srun's"
else fail "srun --spmix-stdin=srun: rc $rc, got $(shas "$OUT/spank.o")"; sed 's/^/    /' "$OUT/spank.e" | tail -n 5; fi
timeout 30 srun --mpi=spmix --spmix-stdin=all -n1 true >"$OUT/spank.o" 2>&1; rc=$?
if [ $rc != 0 ] && grep -q "spmix: --spmix-stdin=all: the value is tool or srun" "$OUT/spank.o"; then
    pass "srun --spmix-stdin=all: refused by srun with a clear error"
else fail "srun --spmix-stdin=all: rc $rc"; sed 's/^/    /' "$OUT/spank.o" | tail -n 5; fi

# the library's IOF cases (test/integration/it_iof, as in iof.sh) against a
# step of 3 tasks, one per node, fed by a tool on vn3 (pushes to vn1 and vn2
# cross the servers' tree; a node's server leaves with its last task, and
# rank 2, on vn3, is the one every case ends last): one rank, a list, WILDCARD, 1 MiB, EOF by zero
# bytes and by COMPLETE, the non-blocking form; a 16 KiB cache with slow
# readers under DROP_NEWEST / DROP_OLDEST (counted drops, order kept) and
# back-pressure (nothing lost); BUFFERING_SIZE/TIME; pushes after a rank
# closed its stdin or exited: UNREACH
IT_IOF=$BUILD/test/integration/it_iof
if ! make -s -C "$BUILD" test/integration/it_iof >"$OUT/make.log" 2>&1; then
    fail "cannot build it_iof"; tail -n 5 "$OUT/make.log"
fi
# lib_case MODE [JOBARG]: sets D, JS, TRC (tool's status), JRC (the step's)
lib_case() {
    D=$OUT/lib.$1
    mkdir -p "$D" && chmod 777 "$D"
    SPMIX_STDIN=tool timeout 120 srun --mpi=spmix -N3 -n3 "$IT_IOF" job "$D" ${2:-} \
        </dev/null >"$D/job.o" 2>"$D/job.e" &
    BG=$!
    for _ in $(seq 400); do [ -s "$D/ready" ] && break; sleep 0.05; done
    local ns
    ns=$(cat "$D/ready" 2>/dev/null)
    JS=${ns#slurm.spmix.}
    timeout 90 "$CLUSTER" exec vn3 env IT_IOF_SERVER_NSPACE="slurm.spmix.srv.$JS.vn3" \
        "$IT_IOF" tool "$1" "$D" "$ns" >"$D/tool.o" 2>&1; TRC=$?
    wait "$BG"; JRC=$?
    BG=""
    if [ $TRC != 0 ] || [ $JRC != 0 ]; then
        sed 's/^/    /' "$D/tool.o" "$D/job.e" | tail -n 8
        return 1
    fi
}
lsha() { sha256sum <"$1" | cut -d' ' -f1; }
if lib_case basic; then
    bad=""
    for r in 0 1 2; do
        [ -f "$D/done.$r" ] && [ "$(lsha "$D/got.$r")" = "$(lsha "$D/expect.$r")" ] || bad="$bad $r"
    done
    if [ -z "$bad" ] && [ "$(wc -c <"$D/got.0")" -gt 1048576 ]; then
        pass "it_iof basic on 3 nodes, tool on vn3: one rank, a list, WILDCARD, 1 MiB, EOF by zero bytes and by COMPLETE, push_nb: every task's stdin byte-exact"
    else fail "it_iof basic: wrong bytes at rank(s)$bad"; fi
else fail "it_iof basic: tool rc $TRC, step rc $JRC"; fi
if lib_case slow gated; then
    bad=""
    grep -q "back-pressure" "$D/tool.o" || bad="$bad no-back-pressure-line"
    [ "$(lsha "$D/got.2")" = "$(lsha "$D/expect.2")" ] || bad="$bad back-pressure-bytes"
    for r in 0 1; do
        n=$((r + 1))
        dropped=$(grep "step $JS on vn$n: rank $r: stdin ended" "$SPMIX_VC_DIR/log/slurmd-vn$n.log" |
            sed -n 's/.* \([0-9][0-9]*\) bytes pushed by tools were dropped.*/\1/p' | tail -n 1)
        [ $r = 0 ] && pol=newest || pol=oldest
        if [ -z "$dropped" ]; then bad="$bad no-drop-count-$r"
        elif ! "$IT_IOF" check "$D/got.$r" "$D/sent.$r" "$dropped" $pol >"$D/check.$r" 2>&1; then
            bad="$bad $pol"; sed 's/^/    /' "$D/check.$r"; fi
    done
    if [ -z "$bad" ]; then
        pass "it_iof slow on 3 nodes: 16 KiB cache, slow readers: DROP_NEWEST and DROP_OLDEST drop what the slurmd log counts and keep order, back-pressure loses nothing"
    else fail "it_iof slow:$bad"; fi
else fail "it_iof slow: tool rc $TRC, step rc $JRC"; fi
if lib_case blocks; then
    if awk -v pushed="$(cat "$D/pushed")" '{ n++; size[n] = $1; at[n] = $2 }
        END { if (n < 2) exit 1
              for (i = 1; i < n; i++) if (size[i] % 1000 != 0) exit 1
              if (size[n] != 50 || at[n] - pushed < 0.9) exit 1 }' "$D/reads.0" &&
       [ "$(lsha "$D/got.0")" = "$(lsha "$D/expect.0")" ]; then
        pass "it_iof blocks on 3 nodes: PMIX_IOF_BUFFERING_SIZE delivers whole blocks, BUFFERING_TIME the rest after its time"
    else fail "it_iof blocks: reads $(tr '\n' ' ' <"$D/reads.0" | cut -c1-200)"; fi
else fail "it_iof blocks: tool rc $TRC, step rc $JRC"; fi
if lib_case closed closed; then
    if grep -q "^closed" "$D/tool.o"; then
        pass "it_iof closed on 3 nodes: pushes to a task that closed its stdin and to one that exited fail with PMIX_ERR_UNREACH"
    else fail "it_iof closed: $(tail -n 3 "$D/tool.o")"; fi
else fail "it_iof closed: tool rc $TRC, step rc $JRC"; fi

# a 1 GiB stream pushed from vn1 into a task on vn3 (through the tree), sha256
# at the task; the step's task on vn1 keeps vn1's server there until the end
yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 1073741824 | sha256sum | cut -d' ' -f1 >"$OUT/gib.want"
rm -f "$OUT"/id.* "$OUT/gib.got"
SPMIX_STDIN=tool timeout 300 srun --mpi=spmix -N2 -n2 -w vn1,vn3 sh -c \
    "echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$OUT/id.\$SLURM_PROCID;
     if [ \$SLURM_PROCID = 1 ]; then sha256sum | cut -d' ' -f1 >$OUT/gib.got; else cat >/dev/null; fi" \
    </dev/null >"$OUT/gib.o" 2>&1 &
BG=$!
for _ in $(seq 300); do [ "$(ls "$OUT"/id.* 2>/dev/null | wc -l)" = 2 ] && break; sleep 0.05; done
read -r JS <"$OUT/id.0" 2>/dev/null || JS=""
t0=$(date +%s.%N)
yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 1073741824 |
    timeout 300 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" --ranks 1 --eof - "$JS" \
    >"$OUT/gib.push" 2>&1; rc=$?
dt=$(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5)
timeout 30 "$CLUSTER" exec vn1 env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" --ranks 0 --eof - "$JS" \
    </dev/null >>"$OUT/gib.push" 2>&1
wait "$BG"; rc2=$?
BG=""
if [ $rc = 0 ] && [ $rc2 = 0 ] && [ "$(cat "$OUT/gib.got" 2>/dev/null)" = "$(cat "$OUT/gib.want")" ]; then
    pass "a 1 GiB stream pushed from vn1 into a task on vn3: sha256 exact ($dt s)"
else fail "1 GiB stream: push rc $rc, step rc $rc2"; sed 's/^/    /' "$OUT/gib.push" "$OUT/gib.o" | tail -n 5; fi

# the output tap: what srun delivers is unchanged (SPMIX_OUTPUT=tool,
# --spmix-output=tool). Bytes, not labelled lines: srun -l splits lines by
# itself, differently from run to run, also under --mpi=none.
head -c 3145728 /dev/urandom >"$OUT/big"
P="cat $OUT/big; head -c 100000 $OUT/big >&2"
BIGSHA=$(sum "$OUT/big"); ERRSHA=$(head -c 100000 "$OUT/big" | sha256sum | cut -d' ' -f1)
for how in env flag; do
    rm -f "$OUT"/o.* "$OUT"/e.*
    if [ $how = env ]; then
        name="SPMIX_OUTPUT=tool"
        SPMIX_OUTPUT=tool timeout 60 srun --mpi=spmix -N1 -n1 -w vn2 sh -c "$P" >"$OUT/tap.o" 2>"$OUT/tap.e"; rc1=$?
        SPMIX_OUTPUT=tool timeout 60 srun --mpi=spmix -N3 -n6 -o "$OUT/o.%t" -e "$OUT/e.%t" sh -c "$P"; rc2=$?
    else
        name="srun --spmix-output=tool --export=NONE"
        timeout 60 srun --mpi=spmix --spmix-output=tool --export=NONE -N1 -n1 -w vn2 /bin/sh -c "$P" \
            >"$OUT/tap.o" 2>"$OUT/tap.e"; rc1=$?
        timeout 60 srun --mpi=spmix --spmix-output=tool --export=NONE -N3 -n6 -o "$OUT/o.%t" \
            -e "$OUT/e.%t" /bin/sh -c "$P"; rc2=$?
    fi
    bad=""
    [ "$(sum "$OUT/tap.o")" = "$BIGSHA" ] || bad="$bad srun-stdout"
    [ "$(sum "$OUT/tap.e")" = "$ERRSHA" ] || bad="$bad srun-stderr"
    for t in 0 1 2 3 4 5; do
        [ "$(sum "$OUT/o.$t" 2>/dev/null)" = "$BIGSHA" ] || bad="$bad o.$t"
        [ "$(sum "$OUT/e.$t" 2>/dev/null)" = "$ERRSHA" ] || bad="$bad e.$t"
    done
    if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ -z "$bad" ]; then
        pass "$name: 3 MiB on stdout and 100 kB on stderr byte-exact through srun (1 task) and into srun -o/-e files (6 tasks on 3 nodes)"
    else fail "$name: rc $rc1/$rc2, wrong:$bad"; tail -n 3 "$OUT/tap.e"; fi
done

# a tool pulls a tapped step's output (test/integration/it_iofpull, as in
# iofpull.sh): 3 tasks, one per node, the tool on vn1 (rank 0's node, which
# ends last): rank 1's stdout, WILDCARD, tagged and timestamped, XML,
# deregistration, the streams' end; srun's own -o/-e files hold every byte
IT_PULL=$BUILD/test/integration/it_iofpull
if ! make -s -C "$BUILD" test/integration/it_iofpull >"$OUT/make.log" 2>&1; then
    fail "cannot build it_iofpull"; tail -n 5 "$OUT/make.log"
fi
D=$OUT/pull
mkdir -p "$D" && chmod 777 "$D"
SPMIX_OUTPUT=tool timeout 120 srun --mpi=spmix -N3 -n3 -o "$D/o.%t" -e "$D/e.%t" "$IT_PULL" job "$D" 200000 \
    </dev/null >"$D/job.o" 2>"$D/job.e" &
BG=$!
for _ in $(seq 400); do [ -s "$D/ready" ] && break; sleep 0.05; done
ns=$(cat "$D/ready" 2>/dev/null); JS=${ns#slurm.spmix.}
timeout 90 "$CLUSTER" exec vn1 env IT_IOFPULL_SERVER_NSPACE="slurm.spmix.srv.$JS.vn1" \
    "$IT_PULL" tool "$D" "$ns" 200000 >"$D/tool.o" 2>&1; TRC=$?
wait "$BG"; JRC=$?
BG=""
bad=""
for r in 0 1 2; do
    [ "$(cat "$D/exp.$r" 2>/dev/null; echo "after rank $r")" = "$(cat "$D/o.$r" 2>/dev/null)" ] || bad="$bad o.$r"
    [ "stderr-line rank $r" = "$(cat "$D/e.$r" 2>/dev/null)" ] || bad="$bad e.$r"
done
if [ $TRC = 0 ] && [ $JRC = 0 ] && [ -z "$bad" ]; then
    pass "a tool on vn1 pulls a SPMIX_OUTPUT=tool step's output from 3 nodes (one rank, WILDCARD, tag+timestamp, XML, deregister, end of streams), and srun's -o/-e files hold every byte"
else fail "pull under Slurm: tool rc $TRC, step rc $JRC, wrong:$bad"; sed 's/^/    /' "$D/tool.o" "$D/job.e" | tail -n 8; fi

# the queries tools and debuggers ask (test/integration/it_qtable, as in
# qtable.sh) on a 3 x 2 step: every task checks the process table (every
# rank with its node, its pid, the program, CONNECTED), its node's table, the
# job status, the namespace info, spawn support, a group of tasks on vn2 and
# vn3, every node's server URI; a tool on vn1 attached to vn1's server reads
# the tables while the step runs and once every task finalized (TERMINATED,
# PMIX_EVENT_JOB_END)
IT_QT=$BUILD/test/integration/it_qtable
if ! make -s -C "$BUILD" test/integration/it_qtable >"$OUT/make.log" 2>&1; then
    fail "cannot build it_qtable"; tail -n 5 "$OUT/make.log"
fi
D=$OUT/qtable
mkdir -p "$D" && chmod 777 "$D"
timeout 120 srun --mpi=spmix -N3 -n6 "$IT_QT" job "$D" </dev/null >"$D/job.o" 2>"$D/job.e" &
BG=$!
for _ in $(seq 600); do [ -s "$D/ready" ] && break; sleep 0.05; done
ns=$(cat "$D/ready" 2>/dev/null); JS=${ns#slurm.spmix.}
QURI=""
for f in /tmp/spmix.tool.[0-9]*; do
    [ "$(sed -n 2p "$f" 2>/dev/null)" = "slurm.spmix.srv.$JS.vn1" ] && QURI=$(head -n 1 "$f")
done
qtool() { timeout 60 "$CLUSTER" exec vn1 "$IT_QT" tool "$QURI" "$ns" "$D" "$1" >"$D/tool.$1" 2>&1; }
TRC=1
if [ -n "$ns" ] && [ -n "$QURI" ] && qtool run; then
    touch "$D/finalize"
    for _ in $(seq 600); do [ "$(ls "$D"/fin.* 2>/dev/null | wc -l)" = 6 ] && break; sleep 0.05; done
    qtool end && TRC=0
fi
touch "$D/finalize" "$D/exit"
wait "$BG"; JRC=$?
BG=""
if [ $TRC = 0 ] && [ $JRC = 0 ]; then
    pass "queries on a 3 x 2 step: every task and a tool on vn1 read the process table (node, pid, program, state of every rank), the local one, job status, namespace info, groups, URIs"
else fail "queries under Slurm: tool rc $TRC, step rc $JRC (server URI '$QURI')"; sed 's/^/    /' "$D"/tool.* "$D/job.e" 2>/dev/null | tail -n 8; fi

# srun --pty (a terminal from script(1)): left alone, a push to it is refused
rm -f "$OUT"/id.* "$OUT/stop" "$OUT/tty.0"
# srun must be in the terminal's foreground process group or it stops on
# SIGTTOU when it sets the terminal up: no timeout(1) between script and srun
# (timeout makes a process group of its own), and a shell that runs the
# command in its own group (SHELL is what script(1) runs the command with)
env SHELL=/bin/sh timeout -k 5 90 script -qec "exec srun --mpi=spmix -N1 -n1 -w vn1 --pty sh -c 'echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$OUT/id.0; [ -t 0 ] && echo tty >$OUT/tty.0; n=0; while [ ! -e $OUT/stop ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n + 1)); done'" \
    /dev/null </dev/null >"$OUT/pty.o" 2>&1 &
BG=$!
for _ in $(seq 300); do [ -e "$OUT/id.0" ] && break; sleep 0.1; done
read -r JS <"$OUT/id.0" 2>/dev/null || JS=""
JOB=${JS%.*}
if [ -n "$JS" ] && [ -e "$OUT/tty.0" ]; then
    timeout 30 srun --mpi=none --jobid="$JOB" --overlap -w vn1 -N1 -n1 \
        env LD_LIBRARY_PATH="$LIBDIR" "$PUSH" --ranks 0 "$OUT/p0" "$JS" </dev/null >"$OUT/push.o" 2>"$OUT/push.e"; rc=$?
    if [ $rc = 1 ] && grep -q "PMIX_ERR_NOT_SUPPORTED" "$OUT/push.e" &&
       grep -q "step $JS on vn1: rank 0: its stdin is a terminal (srun --pty)" "$SPMIX_VC_DIR/log/slurmd-vn1.log"; then
        pass "srun --pty with SpmixStdinTool=yes: the task keeps its terminal, a push to it fails with PMIX_ERR_NOT_SUPPORTED (logged)"
    else fail "srun --pty: push rc $rc"; sed 's/^/    /' "$OUT/push.o" "$OUT/push.e" | tail -n 5; fi
else
    fail "srun --pty under script(1): the task did not start with a terminal"; sed 's/^/    /' "$OUT/pty.o" | tail -n 5
fi
touch "$OUT/stop"
wait "$BG"
BG=""

echo "test_iof: $NFAIL failure(s), $(echo "$(date +%s.%N) - $T0" | bc | cut -c1-5) s"
[ $NFAIL = 0 ]
