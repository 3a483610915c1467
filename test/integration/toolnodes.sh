#!/bin/sh
# every simulated node's server of spmix-run --nodes 3 takes tools, as every
# slurmstepd does under srun: a tool attaches to each by that server's pid
# (PMIX_SERVER_PIDINFO = the parent process of the node's ranks), queries the
# namespaces, gets the job's size and the local peers of that server's node
# (the ranks whose parent it is), and disconnects; the launcher's pid and a
# tool that names no server still reach node 0's; spmix-push through the
# server of node 1 feeds the stdin of every rank of a --stdin tool job; every
# rendezvous file is gone with its job.
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_tool) || exit 1
push="$SPX_TOP_BUILDDIR/tools/spmix-push"
[ -x "$push" ] || spx_fail "not built: $push"
rdv="$SPX_TMP/rdv"
sync_dir="$SPX_TMP/sync"
mkdir -p "$rdv" "$sync_dir" || spx_fail "mkdir"
TMPDIR="$rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 6 --nodes 3 \
    --timeout $((SPX_TIMEOUT - 10)) "$prog" job "$sync_dir" >"$SPX_OUT" 2>"$SPX_ERR" &
job=$!
stop() { touch "$sync_dir/done"; spx_fail "$@"; }
i=0
while [ ! -f "$sync_dir/ready" ] || [ "$(ls "$sync_dir" | grep -c '^ppid\.')" -lt 6 ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { kill "$job"; spx_fail "the job did not start in 20 s"; }
    sleep 0.05
done
ns=$(cat "$sync_dir/ready")

# the node servers: the ranks' parents, each with its ranks (block: 0,1 2,3 4,5)
servers=$(cat "$sync_dir"/ppid.* | sort -u)
[ "$(echo "$servers" | wc -l)" -eq 3 ] || stop "the ranks' parents: $servers"
for srv in $servers; do
    ranks=$(for r in 0 1 2 3 4 5; do
                [ "$(cat "$sync_dir/ppid.$r")" = "$srv" ] && echo "$r"
            done | paste -sd, -)
    out=$(TMPDIR="$rdv" timeout 20 "$prog" tool pid "$srv" "$ns" 2>&1)
    rc=$?
    [ $rc -eq 0 ] || stop "tool attached to the node server $srv (ranks $ranks): rc $rc: $out"
    echo "$out" | grep -q "^namespaces .*$ns" || stop "node server $srv: no namespace: $out"
    echo "$out" | grep -qx "size 6" || stop "node server $srv: job size: $out"
    echo "$out" | grep -qx "peers $ranks" || stop "node server $srv: peers, expected $ranks: $out"
    echo "    node server $srv (ranks $ranks): attached, queried, got, disconnected"
done
# spmix-run's own pid and the default search: node 0's server
launcher=""
for f in "$rdv"/spmix.tool.*; do
    grep -q '^launcher ' "$f" || launcher=${f##*.}
done
[ -n "$launcher" ] || stop "no rendezvous file of the launcher: $(ls "$rdv")"
for how in pid default; do
    out=$(TMPDIR="$rdv" timeout 20 "$prog" tool "$how" "$launcher" "$ns" 2>&1) ||
        stop "tool by $how: $out"
    echo "$out" | grep -qx "peers 0,1" || stop "tool by $how: not node 0's server: $out"
done
touch "$sync_dir/done"
wait "$job"
rc=$?
[ $rc -eq 0 ] || spx_fail "the job ended with $rc"
left=$(ls "$rdv" | grep '^spmix\.tool\.')
[ -z "$left" ] || spx_fail "rendezvous files outlived the job: $left"

# a push through node 1's server reaches the ranks of every node
in_dir="$SPX_TMP/in"
mkdir -p "$in_dir" || spx_fail "mkdir"
TMPDIR="$rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 6 --nodes 3 --stdin tool \
    --timeout $((SPX_TIMEOUT - 10)) sh -c \
    'echo $PPID >"$0/ppid.$PMIX_RANK.tmp" && mv "$0/ppid.$PMIX_RANK.tmp" "$0/ppid.$PMIX_RANK" &&
     cat >"$0/in.$PMIX_RANK"' "$in_dir" >"$SPX_OUT" 2>"$SPX_ERR" &
job=$!
i=0
while [ "$(ls "$in_dir" | grep -c '^ppid\.[0-9]*$')" -lt 6 ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { kill "$job"; spx_fail "the push job did not start in 20 s"; }
    sleep 0.05
done
node1=$(cat "$in_dir/ppid.2")
out=$(echo "through node 1" | TMPDIR="$rdv" timeout 20 "$push" --pid "$node1" --ranks all --eof 2>&1)
rc=$?
[ $rc -eq 0 ] || { kill "$job"; spx_fail "spmix-push --pid $node1: rc $rc: $out"; }
wait "$job"
rc=$?
[ $rc -eq 0 ] || spx_fail "the push job ended with $rc"
for r in 0 1 2 3 4 5; do
    [ "$(cat "$in_dir/in.$r")" = "through node 1" ] ||
        spx_fail "rank $r read '$(cat "$in_dir/in.$r")' from the push through node 1's server"
done
left=$(ls "$rdv" | grep '^spmix\.tool\.')
[ -z "$left" ] || spx_fail "rendezvous files outlived the push job: $left"
spx_pass "a tool attaches to each node server of a 3-node job by its pid, queries, gets that node's data, pushes to every rank, and the rendezvous files go with the job"
