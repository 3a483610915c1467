#!/bin/bash
# test/slurm/test_munge.sh - the step's trust under Slurm is munge: the
# servers' tree links and the abort report to srun carry munge credentials
# bound to their connection's nonces, nothing secret in the launch
# environment. Run as root, holding /tmp/spmix-vc.lock:
#   flock /tmp/spmix-vc.lock test/slurm/test_munge.sh --build DIR [--keep]
# DIR is a configured build tree (built with libmunge); `make install` runs there.
# Checks, on a 3 x 1 step of the unprivileged user $SPMIX_VC_USER held for a
# few seconds (SpmixDebug=2: the servers' log lines reach srun's stderr):
#   the servers say their links are authenticated by munge; vn1's CHALLENGE
#   carries a munge credential of root whose payload is the acceptor's
#   transcript; posing as node 2 on vn1's tree port, each of these PROOFs
#   closes the connection with a log line on vn1 naming the reason:
#   random bytes for a credential (forged), a real credential with a wrong
#   payload, the CHALLENGE credential of another connection sent back
#   (captured and replayed), a right credential decoded once before (munged
#   says replayed), a right credential of user nobody; the step is not
#   disturbed (rc 0);
#   a 3 x 2 PMIx step (fences across the nodes) and PMIx_Abort (srun's exit
#   status and message through the munge-proven report) work;
#   munged unreachable for the servers (SpmixMungeSocket=/nonexistent):
#   the step fails at start within a few seconds, the error names munge,
#   no slurmstepd is left.
# Prints PASS:/FAIL: lines; exit 1 if anything failed.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"

spx_vc_checks
OUT=$(mktemp -d /tmp/spmix-munge.XXXXXX)
chmod 755 "$OUT"

spx_vc_install "$OUT"
grep -q '^#define SPX_HAVE_MUNGE 1' "$BUILD/config.h" || { echo "$0: $BUILD was configured without libmunge" >&2; exit 1; }
make -s -C "$BUILD" -j2 plugin/test/slurm_probe test/integration/it_fence >"$OUT/make.log" 2>&1 ||
    { cat "$OUT/make.log"; exit 1; }
PROBE=$BUILD/plugin/test/.libs/slurm_probe
IT=$BUILD/test/integration/.libs

BG=""
spx_vc_up "$OUT" "SpmixDebug=2"
U=$SPMIX_VC_USER
mkdir -p "$OUT/u" && chown "$U:" "$OUT/u"
LOG1=$OUT/step.e
as_user() { runuser -u "$U" -- env SLURM_CONF="$SLURM_CONF" "$@"; }

# ---- the held step: 3 x 1 of $U, tasks sleep ----
as_user timeout 120 srun --mpi=spmix -N3 -n3 \
    sh -c "echo \"\$SLURM_JOB_ID.\$SLURM_STEP_ID\" >$OUT/u/id.\$SLURM_PROCID; sleep 12" \
    </dev/null >"$OUT/step.o" 2>"$OUT/step.e" &
BG=$!
for _ in $(seq 100); do [ "$(ls "$OUT"/u/id.* 2>/dev/null | wc -l)" = 3 ] && break; sleep 0.1; done
read -r JS <"$OUT/u/id.0" 2>/dev/null || JS=""
JOB=${JS%.*} STEP=${JS#*.}
[ -n "$JS" ] || { fail "the step did not start"; sed 's/^/    /' "$OUT/step.e" | tail; exit 1; }
# the plugin's line in slurmd's log (prefork: before the step's output reaches srun)
if grep -q "links proven by munge, uids $(id -u "$U"),0" "$SPMIX_VC_DIR/log/slurmd-vn1.log"; then
    pass "vn1's server proves its tree links with munge ($(grep -o 'links proven by munge.*' "$SPMIX_VC_DIR/log/slurmd-vn1.log" | tail -n 1))"
else fail "no 'links proven by munge' in vn1's slurmd log"; tail -n 5 "$SPMIX_VC_DIR/log/slurmd-vn1.log" | sed 's/^/    /'; fi

# vn1's tree port, as mpi/spmix derives it without MpiParams=ports
PORT=$(spx_vc_tree_port "$JOB" "$STEP")
ADDR=$(scontrol show node vn1 -o | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p')
SID="slurm.spmix.$JOB.$STEP"

cat >"$OUT/hostile.py" <<'EOF'
# posing as node 2 of the step on node 0's tree port: HELLO, the CHALLENGE,
# then a PROOF of the kind asked for; prints what happened
import base64, os, socket, struct, subprocess, sys
addr, port, mode, sock, sid = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
from tree_wire import frame, recv_frame, closed  # test/slurm/tree_wire.py
def munge(payload, user=None):
    cmd = ['munge', '-S', sock]
    if user: cmd = ['setpriv', '--reuid=' + user, '--regid=nogroup', '--clear-groups'] + cmd
    return subprocess.run(cmd, input=payload, capture_output=True, check=True).stdout.strip()
def unmunge(cred):
    return subprocess.run(['unmunge', '-S', sock], input=cred, capture_output=True)
def transcript(label, nc, na):
    return label + nc + na + struct.pack('<II', 2, 0) + sid.encode()
def hello(s):
    nc = os.urandom(32)
    s.sendall(frame(bytes([1]) + struct.pack('<II', 2, 0) + nc))
    ch = recv_frame(s)
    assert ch and ch[0] == 2, 'no challenge'
    na = ch[1:33]
    n = struct.unpack('<I', ch[33:37])[0]
    return nc, na, ch[37:37 + n]
s = socket.create_connection((addr, port), timeout=15)
nc, na, theirs = hello(s)
if mode == 'challenge':
    d = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(['unmunge', '-S', sock, '-m', d + '/meta', '-o', d + '/payload'],
                       input=theirs, capture_output=True)
    meta = open(d + '/meta').read()
    body = open(d + '/payload', 'rb').read()
    want = transcript(b'spmix-tree-acceptor', nc, na)
    uid = [l for l in meta.splitlines() if l.startswith('UID:')]
    print('ok' if r.returncode == 0 and body == want and uid and ' (0)' in uid[0] else
          'bad %d %r %r %r' % (r.returncode, uid, body[-30:], want[-30:]))
    sys.exit(0)
right = transcript(b'spmix-tree-connector', nc, na)
if mode == 'forged':
    cred = b'MUNGE:' + base64.b64encode(os.urandom(120)) + b':'
elif mode == 'payload':
    cred = munge(b'spmix-tree-connector' + b'\0' * 72 + sid.encode())
elif mode == 'captured':
    s2 = socket.create_connection((addr, port), timeout=15)
    cred = hello(s2)[2]  # the server's own credential of another connection
    s2.close()
elif mode == 'replayed':
    cred = munge(right)
    unmunge(cred)  # decoded once already (the nodes share one munged here)
elif mode == 'nobody':
    cred = munge(right, 'nobody')
s.sendall(frame(bytes([3]) + struct.pack('<I', len(cred)) + cred))
print('closed' if closed(s) else 'open')
EOF
hostile() {   # NAME MODE WANT-OUTPUT LOG-REGEX
    local before got
    before=$(wc -l <"$LOG1")
    got=$(PYTHONPATH="$HERE" timeout 30 python3 "$OUT/hostile.py" "$ADDR" "$PORT" "$2" "$SPMIX_VC_MUNGE_SOCKET" "$SID" 2>&1)
    sleep 0.2
    if [ "$got" = "$3" ] && { [ -z "$4" ] || tail -n +"$((before + 1))" "$LOG1" | grep -q -- "$4"; }; then
        pass "tree port of vn1, $1: $got${4:+, logged ($(tail -n +"$((before + 1))" "$LOG1" | grep -o -- "$4.*" | head -n 1 | cut -c1-100))}"
    else
        fail "tree port of vn1, $1: got '$got' (want '$3')"
        tail -n +"$((before + 1))" "$LOG1" | tail -n 5 | sed 's/^/    /'
    fi
}
hostile "the CHALLENGE's credential is root's, for this connection and step" challenge ok ""
hostile "random bytes as the credential (forged)" forged closed \
    "node 2 failed authentication: munge credential refused"
hostile "a real credential with a wrong payload" payload closed \
    "node 2 failed authentication: munge credential made for another exchange"
hostile "another connection's credential sent back (captured)" captured closed \
    "node 2 failed authentication: munge credential"
hostile "a right credential decoded once before (replayed)" replayed closed \
    "node 2 failed authentication: munge credential replayed"
hostile "a right credential of user nobody" nobody closed \
    "node 2 failed authentication: munge credential of uid $(id -u nobody), not the job's user"
wait "$BG"; rc=$?
BG=""
if [ $rc = 0 ]; then pass "the held step completed undisturbed"
else fail "the held step: rc $rc"; sed 's/^/    /' "$OUT/step.e" | tail -n 8; fi

# ---- PMIx across nodes, and the abort report ----
S="timeout 60 srun --mpi=spmix"
if as_user $S -N3 -n6 "$IT/it_fence" >"$OUT/o" 2>"$OUT/e" && grep -q "it_fence: 6 ranks: OK" "$OUT/o"; then
    pass "3 x 2 it_fence as $U"
else fail "3 x 2 it_fence as $U"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 8; fi
as_user $S -N2 -n4 "$PROBE" abort 7 >"$OUT/o" 2>"$OUT/e"; rc=$?
if [ $rc = 7 ] && grep -q "rank 1 on .* called PMIx_Abort with status 7" "$OUT/e"; then
    pass "PMIx_Abort: srun exit status 7 and the rank's message (munge-proven report)"
else fail "PMIx_Abort: rc $rc"; sed 's/^/    /' "$OUT/e" | tail -n 8; fi

# ---- munged unreachable for the servers ----
spx_vc_mpiconf "$SPMIX_VC_DIR/mpi.conf" SpmixTimeout=20 SpmixTreeWidth=2 "SpmixLibDir=$LIBDIR" \
    SpmixSetLdLibraryPath=yes SpmixDebug=1 SpmixMungeSocket=/nonexistent/munge.socket || exit 1
"$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || fail "reconfigure with SpmixMungeSocket"
t0=$(date +%s.%N)
as_user $S -v -N3 -n6 "$IT/it_fence" >"$OUT/o" 2>"$OUT/e"; rc=$?
dt=$(echo "$(date +%s.%N) - $t0" | bc)
why=$(cat "$SPMIX_VC_DIR"/log/slurmd-vn*.log | grep -o 'mpi/spmix: munged cannot be reached.*' | tail -n 1)
if [ $rc != 0 ] && [ "$(echo "$dt < 15" | bc)" = 1 ] && [ -n "$why" ]; then
    pass "munged unreachable: the step fails at start in $(printf %.2f "$dt") s (rc $rc), slurmd's log: ${why:0:150}"
else fail "munged unreachable: rc $rc after $dt s, log '$why'"; sed 's/^/    /' "$OUT/e" | tail -n 8; fi
J2=$(grep -o 'jobid [0-9]*' "$OUT/e" | head -n 1 | cut -d' ' -f2)
gone=0
for _ in $(seq 100); do
    if ! pgrep -f "^slurmstepd: \[${J2:-x}\." >/dev/null; then gone=1; break; fi
    sleep 0.1
done
if [ -n "$J2" ] && [ $gone = 1 ]; then pass "no slurmstepd of job $J2 is left"
else fail "a slurmstepd of job '$J2' is left"; pgrep -a slurmstepd | sed 's/^/    /'; fi

echo "test_munge: $NFAIL failed ($(echo "$(date +%s.%N) - $T0" | bc | cut -c1-5) s)"
[ "$NFAIL" = 0 ]
