#!/bin/bash
# test/slurm/test_remote_tool.sh - a tool on a host without a server of the
# step (the login node: here the host itself, the root network namespace,
# where slurmctld runs) reaches a step's servers over the tree port,
# authenticated by munge. Run as root, holding /tmp/spmix-vc.lock:
#   flock /tmp/spmix-vc.lock test/slurm/test_remote_tool.sh --build DIR [--keep]
# DIR is a configured build tree (built with libmunge); `make install` runs there.
# Checks, on a 3 x 2 step of the unprivileged user $SPMIX_VC_USER started
# with SPMIX_STDIN=tool (srun's stdin /dev/null):
#   hostile bytes to vn1's tree port (random bytes, a truncated tool frame,
#   a forged credential, a real munge credential made for another
#   connection) each close their connection with a log line on vn1 naming
#   the reason, the forged and the misbound credential get a TOOL_ACK with
#   an error first; the step is not disturbed;
#   spmix-push JOBID.STEP from the host, as the job's user: finds the step
#   through scontrol (NodeList, NodeAddr, the port from SpmixPortRange,
#   munged's socket from AuthInfo), pushes 1 MiB to rank 5 (on vn3, through
#   vn1's server and the tree) and 1 MiB to all ranks, then EOF: every
#   task's stdin byte-exact (sha256), ended by the pushed EOF;
#   the same as another user (nobody) from the host: refused with
#   PMIX_ERR_NO_PERMISSIONS, vn1's log says why; and as that user on a node
#   of the step (its unix socket): refused too.
# Prints PASS:/FAIL: lines; exit 1 if anything failed.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"

spx_vc_checks
OUT=$(mktemp -d /tmp/spmix-remotetool.XXXXXX)
chmod 755 "$OUT"

spx_vc_install "$OUT"
grep -q '^#define SPX_HAVE_MUNGE 1' "$BUILD/config.h" || { echo "$0: $BUILD was configured without libmunge" >&2; exit 1; }

BG=""
spx_vc_up "$OUT" "SpmixDebug=2"
U=$SPMIX_VC_USER
mkdir -p "$OUT/u" && chown "$U:" "$OUT/u"
head -c 1048576 /dev/urandom >"$OUT/data"
head -c 1048576 /dev/urandom >"$OUT/data5"
chmod 644 "$OUT/data" "$OUT/data5"
sum() { sha256sum <"$1" | cut -d' ' -f1; }
# the servers' log lines (SpmixDebug=2: info) go to slurmstepd's stderr,
# which Slurm sends to srun's; vn1 is tree node 0
LOG1=$OUT/step.e
# as USER, from the host (no server of any step here): spmix-push ARGS
push_as() {
    local user=$1; shift
    timeout 60 runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" LD_LIBRARY_PATH="$LIBDIR" \
        "$PUSH" "$@" </dev/null >"$OUT/push.o" 2>"$OUT/push.e"
}

# the step: 3 x 2 of $U, each task copies its stdin to u/in.RANK
rm -f "$OUT"/u/*
runuser -u "$U" -- env SLURM_CONF="$SLURM_CONF" SPMIX_STDIN=tool timeout 120 srun --mpi=spmix -N3 -n6 \
    sh -c "echo \"\$SLURM_JOB_ID.\$SLURM_STEP_ID\" >$OUT/u/id.\$SLURM_PROCID; cat >$OUT/u/in.\$SLURM_PROCID; echo done" \
    </dev/null >"$OUT/step.o" 2>"$OUT/step.e" &
BG=$!
for _ in $(seq 100); do [ "$(ls "$OUT"/u/id.* 2>/dev/null | wc -l)" = 6 ] && break; sleep 0.1; done
read -r JS <"$OUT/u/id.0" 2>/dev/null || JS=""
JOB=${JS%.*} STEP=${JS#*.}
[ -n "$JS" ] || { fail "the step did not start"; sed 's/^/    /' "$OUT/step.e" | tail; exit 1; }

# vn1's tree port, as mpi/spmix derives it without MpiParams=ports
PORT=$(spx_vc_tree_port "$JOB" "$STEP")
ADDR=$(scontrol show node vn1 -o | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p')

# ---- hostile bytes to the tree port ----
cat >"$OUT/hostile.py" <<'EOF'
import socket, struct, subprocess, sys, os
addr, port, mode, sock = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
from tree_wire import frame, recv_frame, closed  # test/slurm/tree_wire.py
s = socket.create_connection((addr, port), timeout=15)
if mode == 'random':
    s.sendall(os.urandom(64))
    print('closed' if closed(s) else 'open')
elif mode == 'truncated':
    s.sendall(frame(bytes([6]) + b'\x10\x00\x00\x00abc', length=40))
    s.shutdown(socket.SHUT_WR)
    print('closed' if closed(s) else 'open')
else:
    s.sendall(frame(bytes([4]) + struct.pack('<I', 1)))
    ch = recv_frame(s)
    if ch is None or ch[0] != 5 or len(ch) != 33:
        print('no challenge'); sys.exit(0)
    if mode == 'forged':
        cred = b'MUNGE:not-a-credential:'
    else:  # a real credential, made for another nonce
        cred = subprocess.run(['munge', '-S', sock, '-s', 'spmix-tree-tool' + 'x' * 32],
                              capture_output=True, check=True).stdout.strip()
    s.sendall(frame(bytes([6]) + struct.pack('<I', len(cred)) + cred))
    ack = recv_frame(s)
    st = struct.unpack('<i', ack[1:5])[0] if ack and ack[0] == 7 else None
    print('ack %s %s' % (st, 'closed' if closed(s) else 'open'))
EOF
hostile() {   # NAME MODE WANT-OUTPUT LOG-REGEX
    local before got
    before=$(wc -l <"$LOG1")
    got=$(PYTHONPATH="$HERE" timeout 30 python3 "$OUT/hostile.py" "$ADDR" "$PORT" "$2" "$SPMIX_VC_MUNGE_SOCKET" 2>&1)
    sleep 0.2
    if [ "$got" = "$3" ] && tail -n +"$((before + 1))" "$LOG1" | grep -q -- "$4"; then
        pass "tree port of vn1, $1: $got, logged ($(tail -n +"$((before + 1))" "$LOG1" | grep -o -- "$4.*" | head -n 1 | cut -c1-90))"
    else
        fail "tree port of vn1, $1: got '$got' (want '$3')"
        tail -n +"$((before + 1))" "$LOG1" | tail -n 5 | sed 's/^/    /'
    fi
}
hostile "64 random bytes" random closed "bad frame header"
hostile "a truncated tool frame" truncated closed "peer closed in the middle of a frame"
hostile "a forged credential" forged "ack -23 closed" "tool refused: munge credential refused"
hostile "a real munge credential made for another connection" misbound "ack -23 closed" \
    "tool refused: munge credential made for another exchange"

# ---- the job's user, from the host ----
ok=1
if push_as "$U" --ranks 5 "$OUT/data5" "$JS"; then :; else
    rc=$?; ok=0; fail "spmix-push --ranks 5 from the host as $U: rc $rc"; sed 's/^/    /' "$OUT/push.e" | tail -n 8; fi
if push_as "$U" "$OUT/data" "$JS"; then :; else
    rc=$?; ok=0; fail "spmix-push (all ranks) from the host as $U: rc $rc"; sed 's/^/    /' "$OUT/push.e" | tail -n 8; fi

# ---- another user: from the host, and on a node of the step ----
push_as nobody --ranks 0 "$OUT/data" "$JS"; rc=$?
if [ $rc = 1 ] && grep -q "PMIX_ERR_NO_PERMISSIONS" "$OUT/push.e" &&
   grep -q "(pid -1 uid $(id -u nobody)): handshake refused: a tool of another user" "$LOG1"; then
    pass "spmix-push from the host as nobody (uid $(id -u nobody), the job's is $(id -u "$U")): refused with PMIX_ERR_NO_PERMISSIONS, vn1's server logged why"
else fail "spmix-push from the host as nobody: rc $rc"; sed 's/^/    /' "$OUT/push.e" | tail -n 6; fi
timeout 30 "$CLUSTER" exec vn2 runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" LD_LIBRARY_PATH="$LIBDIR" \
    "$PUSH" --ranks 0 "$OUT/data" "$JS" </dev/null >"$OUT/push.o" 2>"$OUT/push.e"; rc=$?
if [ $rc = 1 ] && grep -q "no server of step $JS on this node (vn2)" "$OUT/push.e"; then
    pass "spmix-push as nobody on vn2 (a node of the step): refused (the server's rendezvous file is not for other users)"
else fail "spmix-push as nobody on vn2: rc $rc"; sed 's/^/    /' "$OUT/push.e" | tail -n 6; fi

if push_as "$U" --eof - "$JS"; then :; else
    rc=$?; ok=0; fail "spmix-push --eof from the host as $U: rc $rc"; sed 's/^/    /' "$OUT/push.e" | tail -n 8; fi
for _ in $(seq 300); do kill -0 "$BG" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$BG" 2>/dev/null; then fail "the step did not end after the pushed EOF"; kill "$BG"; fi
wait "$BG"; rc=$?
BG=""
if [ $rc = 0 ] && [ "$(grep -c '^done$' "$OUT/step.o")" = 6 ] && [ $ok = 1 ]; then
    cat "$OUT/data5" "$OUT/data" >"$OUT/want.5"
    bad=""
    for r in 0 1 2 3 4 5; do
        w=$OUT/data; [ $r = 5 ] && w=$OUT/want.5
        [ "$(sum "$OUT/u/in.$r")" = "$(sum "$w")" ] || bad="$bad $r($(wc -c <"$OUT/u/in.$r") bytes)"
    done
    if [ -z "$bad" ]; then
        pass "spmix-push from the host (no server of the step there) as $U: 1 MiB to rank 5 (on vn3), 1 MiB to all ranks, EOF: every task's stdin byte-exact (sha256), the step ended with the pushed EOF after the hostile connections"
    else fail "wrong bytes at rank(s)$bad"; fi
    if grep -q "tree: node 0: .*munge credential of uid $(id -u "$U") gid $(id -g "$U") accepted" "$LOG1"; then
        pass "vn1's server logged the tools' munge identity (uid $(id -u "$U"))"
    else fail "no 'munge credential ... accepted' line in vn1's log"; fi
else
    fail "the step: rc $rc"; sed 's/^/    /' "$OUT/step.o" "$OUT/step.e" | tail -n 10
fi

echo "test_remote_tool: $NFAIL failure(s), $(echo "$(date +%s.%N) - $T0" | bc | cut -c1-5) s"
[ $NFAIL = 0 ]
