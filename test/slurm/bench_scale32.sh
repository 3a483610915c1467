#!/bin/bash
# test/slurm/bench_scale32.sh - our mpi/spmix beside Slurm's own mpi/pmix
# (Debian's, over OpenPMIx) and mpi/none on a virtual cluster of NODES
# single-CPU nodes (test/slurm/cluster.sh up -n NODES --cpus 1), in one run.
# As root, holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/slurm/bench_scale32.sh --build DIR
#       [--nodes N] [--runs K] [--iters I] [--smaps] [--keep]
# DIR is a configured build tree; the script runs `make install` there and
# builds bench_pmix.c (ours, theirs) and test/bench/tcp_pingpong.c (benchlib.sh). mpi.conf
# leaves SpmixTreeWidth unset: our tree follows Slurm's TreeWidth (printed).
# Layouts: Nx1 (N = --nodes, default 32; one task per node) and 3x2 (3 nodes
# x 2 tasks, --overcommit). Per layout:
#   - once per PMIx side: an empty fence must synchronise (the last rank
#     sleeps 1 s, every other must wait >= 0.9 s);
#   - K times (default 3), the sides in turn: bench_pmix (PMIx_Init of rank
#     0 and the maximum over ranks, medians of I empty and I 64 B collecting
#     fences - no 8 KiB ones, whose collected data would weigh on the RSS;
#     I default 50) under ours and theirs, a shell that only waits
#     under mpi/none; with every rank held after its fences (SPMIX_BENCH_HOLD,
#     see bench_pmix.c) the VmRSS of each node's slurmstepd of the step (the
#     ranks' parent): median and maximum over the nodes;
#   - 3x2 only, K times: the TCP round trip between vn1 and vn2
#     (tcp_pingpong: median of 1000 one-byte round trips, TCP_NODELAY), set
#     against our empty fence at 3x2.
# With --smaps, the mappings whose Rss differs most between our and
# mpi/none's slurmstepd (3x2, first run, first node) are listed too.
# Prints the raw values per run, then markdown tables of the medians over the
# runs; exit 1 if a step or a synchronisation check failed. Theirs runs with
# SLURM_PMIX_FENCE=ring (without it its fences do not synchronise across
# nodes while TreeWidth exceeds the node count).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
CLUSTER=$HERE/cluster.sh
. "$HERE/testlib.sh"
. "$HERE/benchlib.sh"
BUILD="" NODES=32 RUNS=3 ITERS=50 SMAPS=0 KEEP=0
usage() { echo "usage: $0 --build DIR [--nodes N] [--runs K] [--iters I] [--smaps] [--keep]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --build) BUILD=${2:?}; shift 2 ;;
        --nodes) NODES=${2:?}; shift 2 ;;
        --runs) RUNS=${2:?}; shift 2 ;;
        --iters) ITERS=${2:?}; shift 2 ;;
        --smaps) SMAPS=1; shift ;;
        --keep) KEEP=1; shift ;;
        *) usage ;;
    esac
done
[ -n "$BUILD" ] && [ -f "$BUILD/Makefile" ] || usage
[ "$(id -u)" = 0 ] || { echo "$0: must run as root" >&2; exit 2; }
case $NODES:$RUNS:$ITERS in *[!0-9:]*|:*|*::*|*:) usage ;; esac
[ "$NODES" -ge 3 ] && [ "$RUNS" -ge 1 ] && [ "$ITERS" -ge 5 ] || usage
BUILD=$(cd "$BUILD" && pwd)
OUT=$(mktemp -d /tmp/spmix-scale32.XXXXXX)
chmod 755 "$OUT"
T0=$(date +%s.%N)
BG=""
cleanup() {
    [ -z "$BG" ] || kill "$BG" 2>/dev/null
    rm -rf "$OUT"
    [ "$KEEP" = 1 ] || "$CLUSTER" down >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1; then
    cat "$OUT/install.log"; echo "$0: build/install failed" >&2; exit 1
fi
spx_vc_dirs
spx_bench_programs "$OUT" "$LIBDIR" || { echo "$0: building the benchmark programs failed" >&2; exit 1; }

T1=$(date +%s.%N)
"$CLUSTER" up -n "$NODES" --cpus 1 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 ||
    { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"
spx_vc_mpiconf "$SPMIX_VC_DIR/mpi.conf" SpmixPortRange=31200-31299 "SpmixLibDir=$LIBDIR" \
    SpmixSetLdLibraryPath=yes || exit 1
"$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; echo "$0: reconfigure failed" >&2; exit 1; }
UPTIME=$(awk -v a="$T1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
conf() { scontrol show config 2>/dev/null | sed -n "s/^$1 *= *//p" | head -n 1; }
LAYOUTS="${NODES}x1 3x2"
# Slurm's slurmstepd writes the node's hwloc XML for every step (its own
# discovery, then destroyed): hwloc's libxml2 plugin pulls in libicu and
# libstdc++, and libstdc++ and libgcc_s stay mapped after the plugins are
# unloaded - in mpi/none's slurmstepd too. Under ours the plugins are not
# loaded (HWLOC_PLUGINS_BLACKLIST, mpi_spmix(8)), so mpi/none carries these
# pages and ours does not: their Rss is measured to give ours' own cost.
LEFTOVER='/libstdc[+][+][.]so|/libgcc_s[.]so'
SIDES="ours theirs none"

echo "## bench_scale32: $NODES nodes x 1 CPU, $RUNS run(s), $ITERS fences per kind, $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "## Slurm $(srun --version 2>/dev/null | awk '{ print $2 }'), TreeWidth=$(conf TreeWidth), our SpmixTreeWidth = $(conf SpmixTreeWidth); cluster up + reconfigure ${UPTIME} s"
echo "## load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# step WHO LAYOUT CMD...: srun of one side in layout NxT (foreground)
step() {
    local who=$1 lay=$2 n t
    shift 2
    n=${lay%x*} t=${lay#*x}
    local a=(-N "$n" -n $((n * t)))
    # one CPU per node: more tasks than CPUs need --overcommit, which takes
    # no --ntasks-per-node; block distribution puts t on each node
    if [ "$t" -gt 1 ]; then a+=(--overcommit -m block); else a+=(--ntasks-per-node=1); fi
    case $who in
        ours) timeout 300 srun --mpi=spmix "${a[@]}" "$@" ;;
        theirs) SLURM_PMIX_FENCE=ring timeout 300 srun --mpi=pmix "${a[@]}" "$@" ;;
        none) timeout 300 srun --mpi=none "${a[@]}" "$@" ;;
    esac
}
prog() { [ "$1" = theirs ] && echo "$OUT/bench_theirs" || echo "$OUT/bench_ours"; }

# ---- the fences must synchronise ----
SYNC_OK=1
echo "## synchronisation check (empty fence; last rank 1 s late; the others must wait >= 0.9 s)"
for lay in $LAYOUTS; do
    for who in ours theirs; do
        step "$who" "$lay" "$(prog $who)" late >"$OUT/late" 2>"$OUT/late.err"; rc=$?
        n=${lay%x*} t=${lay#*x}; last=$((n * t - 1))
        read -r k h min < <(awk -v last=$last '$1 == "fence_wait" && $2 != last { k++; if ($3 >= 0.9) h++; if (min == "" || $3 < min) min = $3 }
                                END { printf "%d %d %s\n", k + 0, h + 0, (min == "" ? "-" : min) }' "$OUT/late")
        if [ $rc = 0 ] && [ "$k" = "$last" ] && [ "$h" = "$k" ]; then v=PASS; else v=FAIL; SYNC_OK=0; fi
        echo "$v: $who $lay: $h/$last early ranks waited >= 0.9 s (min $min s, rc $rc)"
        [ $v = PASS ] || tail -n 5 "$OUT/late.err" | sed 's/^/    /'
    done
done

# ---- the runs ----
# values: $OUT/v/<who>.<layout>.<metric>, one line per run
mkdir -p "$OUT/v"
put() { echo "$4" >>"$OUT/v/$1.$2.$3"; }
NFAIL=0
# held_step WHO LAYOUT: one step with its ranks held after their work while
# the slurmstepds' VmRSS is read; records the metrics; 0 or 1
held_step() {
    local who=$1 lay=$2 n t ntasks h=$OUT/hold i rc pids p kb
    n=${lay%x*} t=${lay#*x} ntasks=$((n * t))
    rm -rf "$h"; mkdir -p "$h"; chmod 777 "$h"
    if [ "$who" = none ]; then
        # the same hold as bench_pmix's, without PMIx
        step none "$lay" sh -c 'echo $PPID >"$0/r.$SLURM_PROCID" && mv "$0/r.$SLURM_PROCID" "$0/ready.$SLURM_PROCID"
            i=0; while [ ! -e "$0/go" ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i + 1)); done' "$h" \
            >"$OUT/o" 2>"$OUT/e" &
    else
        SPMIX_BENCH_HOLD=$h step "$who" "$lay" "$(prog "$who")" bench "$ITERS" small >"$OUT/o" 2>"$OUT/e" &
    fi
    BG=$!
    for i in $(seq 3000); do
        [ "$(find "$h" -name 'ready.[0-9]*' | wc -l)" -ge $ntasks ] && break
        kill -0 "$BG" 2>/dev/null || break
        sleep 0.1
    done
    : >"$OUT/rss"; : >"$OUT/left"
    if [ "$(find "$h" -name 'ready.[0-9]*' | wc -l)" -ge $ntasks ]; then
        sleep 0.3   # the last rank's fence reply reached every node
        pids=$(cat "$h"/ready.* | sort -u)
        for p in $pids; do
            [ "$(cat /proc/"$p"/comm 2>/dev/null)" = slurmstepd ] || continue
            kb=$(spx_bench_rss_kb "$p"); [ -n "$kb" ] && echo "$kb" >>"$OUT/rss"
            spx_bench_maps_kb "$p" "$LEFTOVER" >>"$OUT/left"
            if [ $SMAPS = 1 ] && [ "$lay" = 3x2 ] && [ ! -s "$OUT/smaps.$who" ]; then
                cat /proc/"$p"/smaps >"$OUT/smaps.$who" 2>/dev/null
            fi
        done
    fi
    touch "$h/go"
    wait "$BG"; rc=$?
    BG=""
    if [ $rc != 0 ] || [ "$(grep -c . "$OUT/rss")" != "$n" ]; then
        echo "run $r $who $lay: FAILED (rc $rc, $(grep -c . "$OUT/rss")/$n slurmstepd read)"
        tail -n 5 "$OUT/e" | sed 's/^/    /'
        return 1
    fi
    grep '^library' "$OUT/o" >"$OUT/lib.$who"
    [ "$who $lay" != "ours 3x2" ] || FENCE32=$(awk '$1 == "fence_empty" { print $2 }' "$OUT/o")
    awk '$1 ~ /^(init|init_max|fence_empty|fence_64B)$/ { print $1, $2 }' "$OUT/o" |
        while read -r m v; do put "$who" "$lay" "$m" "$v"; done
    read -r med max < <(sort -n "$OUT/rss" | awk '{ a[NR] = $1 } END {
        m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
        printf "%.2f %.2f\n", m / 1024, a[NR] / 1024 }')
    put "$who" "$lay" rss_med "$med"
    put "$who" "$lay" rss_max "$max"
    left=$(spx_bench_median "$OUT/left" | awk '{ printf "%.2f", $1 / 1024 }')
    put "$who" "$lay" left "$left"
    echo "run $r $who $lay: $(grep -v '^library\|^ranks' "$OUT/o" | awk '{ printf "%s=%s%s ", $1, $2, $3 }')stepd_rss_med=${med}MiB stepd_rss_max=${max}MiB libstdc++/libgcc_s=${left}MiB"
}
# rtt: the TCP round trip vn1 -> vn2 (median of 1000), recorded as none.3x2.rtt
rtt() {
    local ip port=31400 sp
    ip=$("$CLUSTER" exec vn1 getent hosts vn2 | awk '{ print $1; exit }')
    "$CLUSTER" exec vn2 "$OUT/tcp_pingpong" -s "$ip:$port" -b 1 &
    sp=$!
    sleep 0.2 # listening
    # test/bench/tcp_pingpong prints "tcp_rtt_us median M p10 A p90 B ...": one
    # "rtt_<what> value us" line each for the records below
    if "$CLUSTER" exec vn1 "$OUT/tcp_pingpong" -c "$ip:$port" -b 1 -n 1000 >"$OUT/rtt.raw" 2>&1 &&
        awk '$1 == "tcp_rtt_us" { print "rtt_median", $3, "us"; print "rtt_p10", $5, "us";
                                  print "rtt_p90", $7, "us" }' "$OUT/rtt.raw" >"$OUT/rtt" &&
        [ -s "$OUT/rtt" ]; then
        wait "$sp"
        put net 3x2 rtt "$(awk '$1 == "rtt_median" { print $2 }' "$OUT/rtt")"
        # paired with this run's fence: the machine's load moves both
        put net 3x2 ratio "$(spx_bench_ratio "$FENCE32" "$(tail -n 1 "$OUT/v/net.3x2.rtt")")"
        echo "run $r rtt vn1-vn2: $(awk '{ printf "%s=%s%s ", $1, $2, $3 }' "$OUT/rtt")"
    else
        kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null
        NFAIL=$((NFAIL + 1)); echo "run $r rtt: FAILED: $(head -c 300 "$OUT/rtt.raw")"
    fi
}
for r in $(seq "$RUNS"); do
    FENCE32=n/a   # this run's empty fence of ours at 3x2
    for lay in $LAYOUTS; do
        for who in $SIDES; do
            held_step "$who" "$lay" || NFAIL=$((NFAIL + 1))
        done
    done
    rtt
done

# ---- the tables ----
med() { spx_bench_median "$OUT/v/$1.$2.$3"; }
met() { # value goal -> yes/no (value <= goal), n/a
    if [ "$1" = n/a ]; then echo n/a; else awk -v v="$1" -v g="$2" 'BEGIN { print (v + 0 <= g + 0) ? "yes" : "no" }'; fi
}
echo
echo "Medians over $RUNS run(s) ($NFAIL failed); fences: median of $ITERS after 5 warm-up; our tree width $(conf SpmixTreeWidth)."
echo "ours = $(sed -n 's/^library //p' "$OUT/lib.ours" 2>/dev/null); theirs = Slurm's mpi/pmix with SLURM_PMIX_FENCE=ring, $(sed -n 's/^library //p' "$OUT/lib.theirs" 2>/dev/null)."
echo
echo "| metric | layout | ours | theirs | ours/theirs |"
echo "|---|---|---|---|---|"
for lay in $LAYOUTS; do
    for m in "init:PMIx_Init, rank 0 (ms)" "init_max:PMIx_Init, max over ranks (ms)" \
             "fence_empty:empty fence (us)" "fence_64B:fence, collect 64 B/rank (us)"; do
        o=$(med ours "$lay" "${m%%:*}") th=$(med theirs "$lay" "${m%%:*}")
        echo "| ${m#*:} | $lay | $o | $th | $(spx_bench_ratio "$o" "$th") |"
    done
done
echo
echo "slurmstepd VmRSS (MiB) with the ranks held after their fences; added = minus mpi/none's."
echo "Goal at 3x2 (median): ours added <= 2 MiB and <= 0.25 x theirs added."
echo
echo "| layout | over nodes | mpi/none | ours | theirs | ours added | theirs added | added ours/theirs | goal met |"
echo "|---|---|---|---|---|---|---|---|---|"
for lay in $LAYOUTS; do
    for k in med max; do
        nn=$(med none "$lay" rss_$k) o=$(med ours "$lay" rss_$k) th=$(med theirs "$lay" rss_$k)
        oa=$(spx_bench_sub "$o" "$nn") ta=$(spx_bench_sub "$th" "$nn") ra=$(spx_bench_ratio "$oa" "$ta")
        g=-
        if [ "$lay" = 3x2 ] && [ $k = med ]; then
            g=$( [ "$(met "$oa" 2)" = yes ] && [ "$(met "$ra" 0.25)" = yes ] && echo yes || echo no)
        fi
        echo "| $lay | ${k/med/median} | $nn | $o | $th | $oa | $ta | $ra | $g |"
    done
done
nl=$(med none 3x2 left) nn=$(med none 3x2 rss_med) ol=$(med ours 3x2 left) o=$(med ours 3x2 rss_med)
th=$(med theirs 3x2 rss_med)
own=$(spx_bench_sub "$(spx_bench_sub "$o" "$ol")" "$(spx_bench_sub "$nn" "$nl")") ta=$(spx_bench_sub "$th" "$nn")
r2=$(spx_bench_ratio "$own" "$ta")
echo
echo "Ours' own cost at 3x2, without the libstdc++ and libgcc_s pages that Slurm's own hwloc XML"
echo "export leaves in its slurmstepd ($nl MiB under mpi/none, $ol MiB under ours):"
echo "($o - $ol) - ($nn - $nl) = $own MiB, $r2 x theirs added ($ta MiB); goal <= 2 MiB and <= 0.25 x:" \
    "$( [ "$(met "$own" 2)" = yes ] && [ "$(met "$r2" 0.25)" = yes ] && echo met || echo not met)."
echo
f=$(med ours 3x2 fence_empty) rt=$(med net 3x2 rtt) q=$(med net 3x2 ratio)
echo "fence / round trip: the median over the runs of each run's ratio (the round trip is measured right after that run's 3x2 steps)."
echo
echo "| layout | TCP round trip vn1-vn2 (us) | our empty fence (us) | fence / round trip | goal <= 4 met |"
echo "|---|---|---|---|---|"
echo "| 3x2 | $rt | $f | $q | $(met "$q" 4) |"
echo
if [ $SMAPS = 1 ] && [ -s "$OUT/smaps.ours" ] && [ -s "$OUT/smaps.none" ]; then
    echo "slurmstepd mappings, Rss kB, ours minus mpi/none (3x2, first node of run 1), largest 25:"
    awk 'FNR == 1 { f++ }
         /^[0-9a-f]+-[0-9a-f]+ / { k = $2 " " ($6 == "" ? "[anon]" : $6); next }
         $1 == "Rss:" { r[k] += (f == 1 ? $2 : -$2) }
         END { for (k in r) if (r[k] != 0) printf "%7d  %s\n", r[k], k }' \
        "$OUT/smaps.ours" "$OUT/smaps.none" | sort -rn | head -n 25
    echo
fi
[ $SYNC_OK = 1 ] && echo "Synchronisation check: PASS for ours and theirs on every layout." ||
    echo "Synchronisation check: FAILED somewhere (see above)."
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench_scale32: $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s"
[ $SYNC_OK = 1 ] && [ $NFAIL = 0 ]
