#!/bin/bash
# test/bench/fence_trace.sh - where an empty fence's time goes, per stage,
# with the TCP round trip measured in the same run (doc/scale.md, "Where an
# empty fence's time goes"). As root; the Slurm part holds the cluster lock:
#
#   flock /tmp/spmix-vc.lock test/bench/fence_trace.sh --build DIR \
#       [--old-build DIR2] [--mode local|slurm|both] [--runs K] [--iters N]
#       [--keep-traces DIR] [--params FILE] [--no-trace]
#
# DIR (and DIR2) are configured build trees, built. Each run, alternating
# old (DIR2) and new (DIR) when both are given:
#   - local: spmix-run --nodes 3 -n 6 (simulated nodes on loopback) running
#     test/slurm/bench_pmix.c (built against that tree's library);
#   - slurm: the same program under srun --mpi=spmix -N 3 -n 6 on the
#     3-node virtual cluster (test/slurm/cluster.sh); each build is installed
#     with DESTDIR into a staging directory of its own, and the plugin
#     directory and SpmixLibDir given to Slurm are symbolic links switched to
#     the build of the next step (a one-task step per build first shows that
#     its slurmstepd mapped that build's plugin and library);
# every process with SPMIX_TRACE_FENCE (lib/util/trace.h) set: the node
# servers get it from slurmd's environment (the cluster is started with it),
# the ranks from srun's. Then test/bench/fence_trace.py joins the files into
# the per-stage table of the ITERS empty fences (after bench_pmix's init
# fence and 5 warm-ups), pooled over the runs of each build.
# With --params, each run of the new build also times a collecting fence of
# 1 MiB per rank (test/bench/bench_model, median over the ranks): the cost
# model's check of its bytes/bandwidth term.
# Beside each run, test/bench/tcp_pingpong (TCP_NODELAY, 64 B, blocking
# reads) measures the round trip between two simulated nodes (127.0.0.1 and
# 127.0.0.2) or two node namespaces (vn1 and vn2): unpinned, both ends on one
# CPU, and on different CPUs.
# Prints the raw lines, the medians (bench_pmix's fence_empty, the round
# trips) and the stage tables. Keeps the trace files in DIR given to
# --keep-traces. --params FILE appends, per mode, the new build's stage
# medians and the links' round trips and bandwidth (64 KiB and 4 MiB
# ping-pongs) as
# "link MODE key=value" lines for test/bench/cost_model.py. --no-trace runs
# everything without SPMIX_TRACE_FENCE (what the trace points cost when off:
# compare with a build without them) and prints no stage tables.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CLUSTER=$TOP/test/slurm/cluster.sh
BUILD="" OLD="" MODE=both RUNS=5 ITERS=200 KEEP="" PARAMS="" TRACE=1
while [ $# -gt 0 ]; do
    case $1 in
        --build) BUILD=${2:?}; shift 2 ;;
        --old-build) OLD=${2:?}; shift 2 ;;
        --mode) MODE=${2:?}; shift 2 ;;
        --runs) RUNS=${2:?}; shift 2 ;;
        --iters) ITERS=${2:?}; shift 2 ;;
        --keep-traces) KEEP=${2:?}; shift 2 ;;
        --params) PARAMS=${2:?}; shift 2 ;;
        --no-trace) TRACE=0; shift ;;
        *) echo "usage: $0 --build DIR [--old-build DIR2] [--mode local|slurm|both] [--runs K] [--iters N] [--keep-traces DIR] [--params FILE]" >&2
           exit 2 ;;
    esac
done
[ -n "$BUILD" ] && [ -f "$BUILD/Makefile" ] || { echo "$0: --build DIR (a configured build tree) is required" >&2; exit 2; }
[ -z "$OLD" ] || [ -f "$OLD/Makefile" ] || { echo "$0: --old-build $OLD is not a configured build tree" >&2; exit 2; }
case $MODE in local|slurm|both) ;; *) echo "$0: --mode local, slurm or both" >&2; exit 2 ;; esac
case $RUNS$ITERS in *[!0-9]*) echo "$0: --runs and --iters take numbers" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || [ "$MODE" = local ] || { echo "$0: the slurm mode must run as root" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)
[ -z "$OLD" ] || OLD=$(cd "$OLD" && pwd)
if [ -n "$OLD" ]; then SIDES="old new"; else SIDES="new"; fi
tree_of() { if [ "$1" = old ]; then echo "$OLD"; else echo "$BUILD"; fi; }

OUT=$(mktemp -d /tmp/spmix-ftrace.XXXXXX)
chmod 755 "$OUT"
CLUSTER_UP=0
cleanup() {
    [ $CLUSTER_UP = 0 ] || "$CLUSTER" down >/dev/null 2>&1
    if [ -n "$KEEP" ] && [ -d "$OUT/tr" ]; then mkdir -p "$KEEP" && cp -r "$OUT/tr/." "$KEEP/"; fi
    rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$OUT/tr" "$OUT/v"
echo "## fence_trace: $RUNS run(s), $ITERS empty fences each, mode $MODE, sides: $SIDES, $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "## load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for side in $SIDES; do echo "## $side = $(tree_of $side) ($(git -C "$(tree_of $side)" log -1 --format=%h 2>/dev/null || sed -n 's/^abs_top_srcdir = //p' "$(tree_of $side)/Makefile"))"; done

CFLAGS="-std=gnu11 -O2 -Wall -Wextra -Werror"
gcc $CFLAGS "$HERE/tcp_pingpong.c" -o "$OUT/tcp_pingpong" || exit 1

# rtt LABEL CMD-PREFIX-SERVER CMD-PREFIX-CLIENT ADDR: three round trips
# (free, one CPU, two CPUs); values to $OUT/v/rtt.LABEL.{free,same,cross}
PORT=29400
rtt() {
    local label=$1 srv=$2 cli=$3 addr=$4 how s c line
    for how in free same cross; do
        case $how in free) s="0,1" c="0,1" ;; same) s=0 c=0 ;; cross) s=0 c=1 ;; esac
        PORT=$((PORT + 1))
        $srv taskset -c "$s" "$OUT/tcp_pingpong" -s "$addr:$PORT" &
        local spid=$!
        line=$($cli taskset -c "$c" "$OUT/tcp_pingpong" -c "$addr:$PORT" -n 2000)
        wait $spid
        echo "rtt $label $how: $line"
        echo "$line" | awk '{ print $3 }' >>"$OUT/v/rtt.$label.$how"
    done
    # bandwidth: 64 KiB and 4 MiB ping-pongs, unpinned (2 x size per round trip)
    for how in 65536:mid:200 4194304:big:20; do
        PORT=$((PORT + 1))
        $srv "$OUT/tcp_pingpong" -s "$addr:$PORT" -b "${how%%:*}" &
        spid=$!
        line=$($cli "$OUT/tcp_pingpong" -c "$addr:$PORT" -b "${how%%:*}" -n "${how##*:}" -w 3)
        wait $spid
        echo "rtt $label ${how%%:*} B: $line"
        how=${how#*:}
        echo "$line" | awk '{ print $3 }' >>"$OUT/v/rtt.$label.${how%%:*}"
    done
}

# big SIDE MODE FILE: bench_model's 1 MiB fence (median over the ranks) to
# $OUT/v/SIDE.MODE.fence_1mib
big() {
    awk '/^bench_model:/ { for (i = 2; i < NF; i++) if ($i == "fence_us") print $(i + 1) }' "$3" |
        sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }' >>"$OUT/v/$1.$2.fence_1mib"
}

# record SIDE MODE FILE: bench_pmix's lines to $OUT/v/SIDE.MODE.metric
record() {
    awk '$1 ~ /^(init|init_max|fence_empty|fence_64B|fence_8KiB)$/ { print $1, $2 }' "$3" |
    while read -r m v; do echo "$v" >>"$OUT/v/$1.$2.$m"; done
}

# ---- local: spmix-run --nodes 3 on loopback ----
if [ "$MODE" != slurm ]; then
    for side in $SIDES; do
        b=$(tree_of $side)
        [ -x "$b/tools/spmix-run" ] || { echo "$0: $b is not built" >&2; exit 1; }
        gcc $CFLAGS -I"$TOP/include" "$TOP/test/slurm/bench_pmix.c" -o "$OUT/bench_local_$side" \
            -L"$b/.libs" -lpmix -Wl,-rpath,"$b/.libs" || exit 1
    done
    gcc $CFLAGS -I"$TOP/include" "$HERE/bench_model.c" -o "$OUT/model_local" \
        -L"$BUILD/.libs" -lpmix -Wl,-rpath,"$BUILD/.libs" || exit 1
    for r in $(seq "$RUNS"); do
        for side in $SIDES; do
            b=$(tree_of $side)
            mkdir -p "$OUT/tr/local-$side-$r"
            tv="$OUT/tr/local-$side-$r/t"
            [ $TRACE = 1 ] || tv=""
            if SPMIX_TRACE_FENCE="$tv" timeout 120 "$b/tools/spmix-run" --nodes 3 -n 6 \
                    "$OUT/bench_local_$side" bench "$ITERS" >"$OUT/o" 2>"$OUT/e"; then
                record "$side" local "$OUT/o"
                echo "run $r $side local: $(grep -v '^library' "$OUT/o" | awk '{ printf "%s=%s%s ", $1, $2, $3 }')"
            else
                echo "run $r $side local: FAILED"; tail -n 5 "$OUT/e" | sed 's/^/    /'
            fi
        done
        if [ -n "$PARAMS" ] && timeout 120 "$BUILD/tools/spmix-run" --nodes 3 -n 6 "$OUT/model_local" 3 1048576 \
                >"$OUT/o" 2>"$OUT/e"; then
            big new local "$OUT/o"
            echo "run $r new local: fence_1MiB=$(tail -n 1 "$OUT/v/new.local.fence_1mib")us"
        fi
        rtt local "" "" 127.0.0.1
    done
fi

# ---- slurm: 3 nodes x 2 tasks ----
if [ "$MODE" != local ]; then
    AB=$OUT/ab
    mkdir -p "$AB"
    for side in $SIDES; do
        b=$(tree_of $side)
        if ! make -s -C "$b" -j2 install DESTDIR="$OUT/stage-$side" >"$OUT/install.log" 2>&1; then
            cat "$OUT/install.log"; echo "$0: staged install of $b failed" >&2; exit 1
        fi
        read -r pd ld < <(make -s -C "$b" --no-print-directory \
            --eval='spx-print-dirs: ; @echo $(slurmplugindir) $(spmixlibdir)' spx-print-dirs | tail -n 1)
        [ -f "$OUT/stage-$side$pd/mpi_spmix.so" ] && [ -f "$OUT/stage-$side$ld/libpmix.so.2" ] ||
            { echo "$0: no mpi_spmix.so or libpmix.so.2 staged for $b" >&2; exit 1; }
        echo "$OUT/stage-$side$pd" >"$AB/plugin.$side"
        echo "$OUT/stage-$side$ld" >"$AB/lib.$side"
    done
    # use_build SIDE: the links Slurm and the tasks follow, renamed into place
    use_build() {
        ln -sfn "$(cat "$AB/plugin.$1")" "$AB/plugin.tmp" && mv -T "$AB/plugin.tmp" "$AB/plugin" &&
        ln -sfn "$(cat "$AB/lib.$1")" "$AB/lib.tmp" && mv -T "$AB/lib.tmp" "$AB/lib" ||
            { echo "$0: cannot switch to the $1 build" >&2; exit 1; }
    }
    use_build new
    gcc $CFLAGS -I"$TOP/include" "$TOP/test/slurm/bench_pmix.c" -o "$OUT/bench_slurm" \
        -L"$AB/lib" -lpmix -Wl,-rpath,"$AB/lib" || exit 1
    gcc $CFLAGS -I"$TOP/include" "$HERE/bench_model.c" -o "$OUT/model_slurm" \
        -L"$AB/lib" -lpmix -Wl,-rpath,"$AB/lib" || exit 1
    # the servers (slurmstepd) inherit slurmd's environment: a fixed prefix,
    # emptied into a directory per run after each step
    mkdir -p "$OUT/tr/cur"
    CLUSTER_UP=1
    tv="$OUT/tr/cur/t"
    [ $TRACE = 1 ] || tv=""
    SPMIX_TRACE_FENCE="$tv" "$CLUSTER" up -n 3 --plugin-dir "$AB/plugin" >"$OUT/up.log" 2>&1 ||
        { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
    . "$("$CLUSTER" env)"
    cat >"$SPMIX_VC_DIR/mpi.conf" <<EOF
# written by fence_trace.sh; everything else at its default
SpmixPortRange=31200-31299
SpmixLibDir=$AB/lib
SpmixSetLdLibraryPath=yes
EOF
    "$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; echo "$0: reconfigure failed" >&2; exit 1; }
    # collect DIR [NSERVERS]: waits (5 s at most) for the servers' files (3),
    # then moves every trace file into DIR
    collect() {
        local i n want=${2:-3}
        for i in $(seq 50); do
            n=$(grep -l '^S_' "$OUT"/tr/cur/t.* 2>/dev/null | wc -l)
            [ "$n" -ge "$want" ] && break
            sleep 0.1
        done
        mkdir -p "$1"
        mv "$OUT"/tr/cur/t.* "$1/" 2>/dev/null
        [ "$n" -ge "$want" ] || echo "    (only $n server trace files)"
    }
    if [ -n "$OLD" ]; then
        echo "## build check (files mapped by slurmstepd):"
        for side in $SIDES; do
            use_build $side
            maps=$(timeout 60 srun --mpi=spmix -N 1 -n 1 sh -c 'cat /proc/$PPID/maps' 2>&1 |
                   awk '$6 ~ /\/(mpi_spmix\.so|libpmix\.so[.0-9]*)$/ { print $6 }' | sort -u)
            echo "$maps" | sed "s/^/   $side: /"
            [ "$(echo "$maps" | grep -c "^$OUT/stage-$side/")" = 2 ] ||
                { echo "$0: the $side step did not map the $side build's plugin and library" >&2; exit 1; }
            [ $TRACE = 0 ] || collect "$OUT/tr/check-$side" 0
        done
    fi
    for r in $(seq "$RUNS"); do
        for side in $SIDES; do
            use_build $side
            if SPMIX_TRACE_FENCE="$tv" timeout 120 srun --mpi=spmix -N 3 -n 6 --ntasks-per-node=2 \
                    "$OUT/bench_slurm" bench "$ITERS" >"$OUT/o" 2>"$OUT/e"; then
                record "$side" slurm "$OUT/o"
                echo "run $r $side slurm: $(grep -v '^library' "$OUT/o" | awk '{ printf "%s=%s%s ", $1, $2, $3 }')"
            else
                echo "run $r $side slurm: FAILED"; tail -n 5 "$OUT/e" | sed 's/^/    /'
            fi
            [ $TRACE = 0 ] || collect "$OUT/tr/slurm-$side-$r"
        done
        if [ -n "$PARAMS" ]; then
            use_build new
            if timeout 120 srun --mpi=spmix -N 3 -n 6 --ntasks-per-node=2 "$OUT/model_slurm" 3 1048576 \
                    >"$OUT/o" 2>"$OUT/e"; then
                big new slurm "$OUT/o"
                echo "run $r new slurm: fence_1MiB=$(tail -n 1 "$OUT/v/new.slurm.fence_1mib")us"
            fi
            [ $TRACE = 0 ] || collect "$OUT/tr/model-$r"
        fi
        rtt slurm "$CLUSTER exec vn1" "$CLUSTER exec vn2" 10.77.0.11
    done
fi

# ---- summary ----
median() {
    [ -s "$1" ] || { echo n/a; return; }
    sort -g "$1" | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
echo
echo "Medians over the runs (bench_pmix: median of $ITERS fences per run; round trips: median of 2000 per run)."
echo
echo "| mode | $(for s in $SIDES; do printf '%s fence_empty us | ' $s; done)RTT free us | RTT one CPU us | RTT two CPUs us |"
echo "|---|$(for s in $SIDES; do printf -- '---:|'; done)---:|---:|---:|"
for mode in local slurm; do
    [ -s "$OUT/v/rtt.$mode.free" ] || continue
    printf '| %s | ' $mode
    for s in $SIDES; do printf '%s | ' "$(median "$OUT/v/$s.$mode.fence_empty")"; done
    printf '%s | %s | %s |\n' "$(median "$OUT/v/rtt.$mode.free")" "$(median "$OUT/v/rtt.$mode.same")" \
        "$(median "$OUT/v/rtt.$mode.cross")"
done
for mode in local slurm; do
    [ -n "$PARAMS" ] && [ -s "$OUT/v/rtt.$mode.free" ] || continue
    {
        echo "# fence_trace.sh $(date -u '+%Y-%m-%d %H:%M UTC'), $RUNS runs, load at end $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "link $mode rtt_free_us=$(median "$OUT/v/rtt.$mode.free")"
        echo "link $mode rtt_same_us=$(median "$OUT/v/rtt.$mode.same")"
        echo "link $mode rtt_cross_us=$(median "$OUT/v/rtt.$mode.cross")"
        echo "link $mode rtt_64kib_us=$(median "$OUT/v/rtt.$mode.mid")"
        echo "link $mode rtt_4mib_us=$(median "$OUT/v/rtt.$mode.big")"
        echo "link $mode fence_empty_us=$(median "$OUT/v/new.$mode.fence_empty")"
        echo "link $mode fence_64b_us=$(median "$OUT/v/new.$mode.fence_64B")"
        echo "link $mode fence_8kib_us=$(median "$OUT/v/new.$mode.fence_8KiB")"
        echo "link $mode fence_1mib_us=$(median "$OUT/v/new.$mode.fence_1mib")"
        echo "link $mode init_ms=$(median "$OUT/v/new.$mode.init")"
        echo "link $mode init_max_ms=$(median "$OUT/v/new.$mode.init_max")"
    } >>"$PARAMS"
done
for mode in local slurm; do
    [ $TRACE = 1 ] || break
    for side in $SIDES; do
        set --
        for d in "$OUT"/tr/$mode-$side-*; do [ -d "$d" ] && set -- "$@" "$d/t"; done
        [ $# -gt 0 ] || continue
        echo
        pp=""
        [ -n "$PARAMS" ] && [ $side = new ] && pp="--params $PARAMS --params-tag $mode"
        python3 "$HERE/fence_trace.py" --label "$mode $side" --skip 6 --upto $((6 + ITERS)) $pp "$@"
    done
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
