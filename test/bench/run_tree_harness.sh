#!/bin/sh
# run_tree_harness.sh: the tree engine's collectives at scale in one process
# (test/bench/tree_harness.c): N = 16, 64, 256, 1024, 4096, 16384 simulated
# nodes at width 16, and widths 2 and 64 at 16384; ROUNDS rounds (the first
# is the cold one, for memory; times are the warm rest) of a barrier, a
# collecting fence of BYTES per node, a group over every other node and one
# over a random 1%, then the lost-node case. Prints the load average at
# start and end and two markdown tables: per collective (time, messages,
# bytes, memory), and per run (engine memory, the lost-node case). Any
# failed check of the harness stops the script. Builds nothing.
#   usage: test/bench/run_tree_harness.sh [BUILDDIR] [ROUNDS] [BYTES]
# BUILDDIR defaults to $SPX_TOP_BUILDDIR or the current directory; ROUNDS
# defaults to 3, BYTES to 64.
set -u
top=${1:-${SPX_TOP_BUILDDIR:-.}}
rounds=${2:-3}
bytes=${3:-64}
h="$top/test/bench/tree_harness"
[ -x "$h" ] || { echo "run_tree_harness.sh: $h is not built (make)" >&2; exit 1; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
echo "cores: $(nproc); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: $h -n N -w W -b $bytes -r $rounds"

for cfg in 16:16 64:16 256:16 1024:16 4096:16 16384:16 16384:2 16384:64; do
    n=${cfg%:*}
    w=${cfg#*:}
    if ! "$h" -n "$n" -w "$w" -b "$bytes" -r "$rounds" >"$work/out" 2>&1; then
        echo "run_tree_harness.sh: tree_harness -n $n -w $w failed:" >&2
        grep -E '^(FAIL|  node)' "$work/out" >&2
        exit 1
    fi
    cat "$work/out" >>"$work/all"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# f KEY: the value of KEY=... on the current line (awk function)
fn='function f(k,   i, a) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) {
        split($i, a, "="); return a[2] } return "-" }'
echo "| N | W | collective | nodes in it | depth | wall ms | CPU ms | CPU us/node |" \
     "msgs/node max | msgs/node mean | bytes/node max | bytes/node mean | peak KiB/node RSS |" \
     "peak KiB/node heap |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk "$fn"' $1 == "result" {
    printf "| %s | %s | %s | %s | %s | %.3f | %.3f | %.2f | %s | %.2f | %s | %.0f | %.2f | %.2f |\n",
        f("n"), f("w"), f("kind"), f("m"), f("depth"), f("wall_ms"), f("cpu_ms"),
        f("cpu_us_per_node"), f("msgs_max"), f("msgs_mean"), f("bytes_max"), f("bytes_mean"),
        f("peak_kib_per_node"), f("heap_peak_kib_per_node") }' "$work/all"
echo
echo "| N | W | engine KiB/endpoint | create us/endpoint | lost node: delivered before loss |" \
     "survivors ended UNREACH | late msgs dropped | steps to quiet | CPU ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk "$fn"' $1 == "memory" { n = f("n"); w = f("w"); mem = f("engine_kib_per_ep"); cr = f("create_us_per_ep") }
    $1 == "failcase" && f("victim") != "-" {
        printf "| %s | %s | %.2f | %.1f | %s of %s | %s | %s | %s | %.2f |\n", n, w, mem, cr,
            f("delivered_before_loss"), f("msgs_if_complete"), f("survivors_unreach"), f("late_msgs_dropped"),
            f("steps"), f("cpu_ms") }' "$work/all"
