#!/bin/sh
# a tool attaches to a running spmix-run job: every way of finding the server
# (the one rendezvous file, PMIX_SERVER_PIDINFO, _NSPACE, _URI literal and
# file:, PMIX_TOOL_ATTACHMENT_FILE), gets its own identity, queries the
# namespaces; PMIX_TOOL_DO_NOT_CONNECT runs alone; a wrong pid and a tool of
# another user are refused; the rendezvous file goes with the job.
# The calls past PMIx_tool_init (it_tool api), with a second job B: a tool
# started alone attaches to A (again: the same; B as well, A staying the
# primary, then B is let go), lists and sets its server, reads A's job data (equal to what A's
# rank 0 reads), disconnects, attaches to B and hears the
# PMIX_ERR_PROC_ABORTED of B's rank 1, which B's server raises
# on 1 node, then on 3 simulated nodes (the job's rendezvous file: node 0's,
# named after spmix-run's pid; each node's server has one more, naming the
# launcher, which a tool naming no server passes over: toolnodes.sh)
if [ -z "${SPX_NODES:-}" ]; then
    SPX_NODES=1 sh "$0" || exit 1
    SPX_NODES=3 exec sh "$0"
fi
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_tool) || exit 1
rdv="$SPX_TMP/rdv"
sync_dir="$SPX_TMP/sync"
mkdir -p "$rdv" "$sync_dir" || spx_fail "mkdir"
TMPDIR="$rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 3 --nodes "$SPX_NODES" \
    --timeout $((SPX_TIMEOUT - 10)) "$prog" job "$sync_dir" >"$SPX_OUT" 2>"$SPX_ERR" &
job=$!
rdv_b="$SPX_TMP/rdv_b"
sync_b="$SPX_TMP/sync_b"
mkdir -p "$rdv_b" "$sync_b" || spx_fail "mkdir"
TMPDIR="$rdv_b" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 3 --nodes "$SPX_NODES" \
    --timeout $((SPX_TIMEOUT - 10)) "$prog" job "$sync_b" abort >"$SPX_OUT.b" 2>"$SPX_ERR.b" &
job_b=$!
i=0
while [ ! -f "$sync_dir/ready" ] || [ ! -f "$sync_b/ready" ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { kill "$job" "$job_b"; spx_fail "the jobs did not start in 20 s"; }
    sleep 0.05
done
ns=$(cat "$sync_dir/ready")
# job_file DIR: the job's rendezvous file in DIR (the one naming no launcher),
# after checking DIR holds one per server process (3 nodes: the launcher's too)
job_file() {
    set -- "$1"/spmix.tool.*
    want=1
    [ "$SPX_NODES" -eq 1 ] || want=$((SPX_NODES + 1))
    [ $# -eq $want ] || { echo "$# rendezvous files, expected $want: $*"; return 1; }
    for f in "$@"; do
        grep -q '^launcher ' "$f" || { echo "$f"; return 0; }
    done
    echo "no rendezvous file without a launcher line: $*"
    return 1
}
file=$(job_file "$rdv") || { touch "$sync_dir/done"; spx_fail "$file"; }
pid=${file##*.}
uri=$(head -1 "$file")
perm=$(stat -c %a "$file")
[ "$perm" = 600 ] || { touch "$sync_dir/done"; spx_fail "rendezvous file mode $perm, expected 600"; }

# tool HOW [ARG]: must attach and see the job's namespace
tool_ok() {
    out=$(TMPDIR="$rdv" timeout 20 "$prog" tool "$1" "${2:-}" "$ns" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! echo "$out" | grep -q "^namespaces .*$ns"; then
        touch "$sync_dir/done"
        spx_fail "tool by $1 ${2:-}: rc $rc: $out"
    fi
    echo "$out" | grep -q "^tool .*:" || { touch "$sync_dir/done"; spx_fail "no identity: $out"; }
}
# a rendezvous file left by a server that was killed: passed over
sh -c 'exit 0' &
dead=$!
wait "$dead"
printf 'spmix:/nonexistent/s\nstale\n' >"$rdv/spmix.tool.$dead"
chmod 600 "$rdv/spmix.tool.$dead"
tool_ok default
tool_ok pid "$pid"
tool_ok nspace "$(sed -n 2p "$file")"
tool_ok uri "$uri"
tool_ok uri "file:$file"
tool_ok file "$file"
# two tools get two identities
id1=$(TMPDIR="$rdv" "$prog" tool default "" "$ns" | sed -n 's/^tool //p')
id2=$(TMPDIR="$rdv" "$prog" tool default "" "$ns" | sed -n 's/^tool //p')
[ -n "$id1" ] && [ "$id1" != "$id2" ] || { touch "$sync_dir/done"; spx_fail "tool identities '$id1' '$id2'"; }

file_b=$(job_file "$rdv_b") || { touch "$sync_dir/done" "$sync_b/done"; spx_fail "$file_b"; }
uri_b=$(head -1 "$file_b")
out=$(timeout 60 "$prog" api "$uri" "$ns" "$sync_dir/facts" "$uri_b" "$(cat "$sync_b/ready")" \
      "$sync_b/abort" 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! echo "$out" | grep -q "^api ok"; then
    touch "$sync_dir/done" "$sync_b/done"
    spx_fail "the tool calls: rc $rc: $out"
fi
echo "$out" | grep -v "^spmix\[" | sed 's/^/    /'
touch "$sync_b/done"
wait "$job_b"
rc=$?
[ $rc -ne 0 ] || { touch "$sync_dir/done"; spx_fail "job B's rank 1 died, yet B ended with 0"; }

out=$(TMPDIR="$rdv" timeout 20 "$prog" tool none 2>&1)
echo "$out" | grep -q "^tool spmix-tool\.[0-9]*:0" || { touch "$sync_dir/done"; spx_fail "do-not-connect: $out"; }
out=$(TMPDIR="$rdv" timeout 20 "$prog" tool pid 1 2>&1)
[ $? -eq 2 ] || { touch "$sync_dir/done"; spx_fail "a wrong pid was not refused: $out"; }
echo "$out" | grep -q "UNREACH" || { touch "$sync_dir/done"; spx_fail "a wrong pid: $out"; }
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    out=$(timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
          "$prog" tool uri "$uri" 2>&1)
    [ $? -eq 2 ] || { touch "$sync_dir/done"; spx_fail "a tool of another user was not refused: $out"; }
fi

touch "$sync_dir/done"
wait "$job"
rc=$?
[ $rc -eq 0 ] || spx_fail "the job ended with $rc"
rm -f "$rdv/spmix.tool.$dead"
left=$(ls "$rdv" | grep '^spmix\.tool\.')
[ -z "$left" ] || spx_fail "rendezvous files outlived the job: $left"
spx_pass "tools attach by every discovery way, query, get job data, hear a job's events, attach/disconnect/list/set their server, and are refused when they should be ($SPX_NODES node(s))"
