#!/bin/bash
# test/bench/tcp_pingpong.sh - the round trip of a 64-byte TCP message,
# the yardstick doc/scale.md compares a fence with.
#
#   test/bench/tcp_pingpong.sh [--netns] [-n ITERS] [-b BYTES] [-r RUNS]
#
# Builds test/bench/tcp_pingpong.c into a temporary directory, then measures
# RUNS times (default 3) three ways: unpinned, both ends on CPU 0, and the
# ends on CPUs 0 and 1 (taskset). Without --netns both ends use loopback in
# this namespace (as spmix-run's simulated nodes do); with --netns (root) the
# script makes two network namespaces of its own joined through a bridge by
# veth pairs, as test/slurm/cluster.sh joins its nodes (10.78.0.11 and
# 10.78.0.12 on bridge spmixpp-br, no route out), and removes them at the end.
# Prints each run's line and the medians. On a VM the unpinned figure is
# bimodal: a wake-up on the other virtual CPU costs tens of microseconds
# more than one on the same CPU.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS=0 ITERS=2000 BYTES=64 RUNS=3
while [ $# -gt 0 ]; do
    case $1 in
        --netns) NETNS=1; shift ;;
        -n) ITERS=${2:?}; shift 2 ;;
        -b) BYTES=${2:?}; shift 2 ;;
        -r) RUNS=${2:?}; shift 2 ;;
        *) echo "usage: $0 [--netns] [-n ITERS] [-b BYTES] [-r RUNS]" >&2; exit 2 ;;
    esac
done
OUT=$(mktemp -d /tmp/spmix-pingpong.XXXXXX)
BR=spmixpp-br
cleanup() {
    if [ $NETNS = 1 ]; then
        ip netns del spmixpp-a 2>/dev/null
        ip netns del spmixpp-b 2>/dev/null
        ip link del $BR 2>/dev/null
    fi
    rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
gcc -std=gnu11 -O2 -Wall -Wextra -Werror "$HERE/tcp_pingpong.c" -o "$OUT/pp" || exit 1
if [ $NETNS = 1 ]; then
    [ "$(id -u)" = 0 ] || { echo "$0: --netns needs root" >&2; exit 2; }
    ip link add $BR type bridge && ip link set $BR up || exit 1
    k=0
    for ns in spmixpp-a spmixpp-b; do
        k=$((k + 1))
        ip netns add $ns && ip link add $ns-h type veth peer name $ns-n &&
        ip link set $ns-h master $BR up && ip link set $ns-n netns $ns &&
        ip -n $ns link set $ns-n name eth0 && ip -n $ns addr add 10.78.0.1$k/24 dev eth0 &&
        ip -n $ns link set eth0 up && ip -n $ns link set lo up || exit 1
    done
    SRV="ip netns exec spmixpp-a" CLI="ip netns exec spmixpp-b" ADDR=10.78.0.11
    sleep 1 # the bridge's ports become forwarding
else
    SRV="" CLI="" ADDR=127.0.0.1
fi
port=29500
for r in $(seq "$RUNS"); do
    for how in free same cross; do
        case $how in free) s="0,1" c="0,1" ;; same) s=0 c=0 ;; cross) s=0 c=1 ;; esac
        port=$((port + 1))
        $SRV taskset -c "$s" "$OUT/pp" -s "$ADDR:$port" -b "$BYTES" &
        spid=$!
        line=$($CLI taskset -c "$c" "$OUT/pp" -c "$ADDR:$port" -b "$BYTES" -n "$ITERS")
        wait $spid
        echo "run $r $how: $line"
        echo "$line" | awk '{ print $3 }' >>"$OUT/$how"
    done
done
median() { sort -g "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "round trip ($BYTES B, $([ $NETNS = 1 ] && echo "two network namespaces" || echo loopback)), median of $RUNS runs:" \
     "unpinned $(median "$OUT/free") us, one CPU $(median "$OUT/same") us, two CPUs $(median "$OUT/cross") us"
