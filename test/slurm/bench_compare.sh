#!/bin/bash
# test/slurm/bench_compare.sh - side-by-side benchmark of our mpi/spmix and
# Slurm's own mpi/pmix (Debian's, over OpenPMIx) on one 4-node virtual
# cluster (test/slurm/cluster.sh), in one run. As root, holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/slurm/bench_compare.sh --build DIR [--old-build DIR2] [--runs K] [--iters N]
# DIR is a configured build tree (configure --prefix=P); the script runs
# `make install` there (as test_plugin.sh does), builds test/slurm/bench_pmix.c
# twice (our headers + library; Debian's OpenPMIx; benchlib.sh) and test/slurm/mpi_hello.c
# with mpicc.openmpi, brings up 4 nodes with 4 CPUs each, and then:
#   - checks, per layout and plugin, that an empty fence really synchronises:
#     the last rank sleeps 1 s, all others must wait >= 0.9 s;
#   - K times (default 5), alternating the plugins, per layout 1x2, 3x2, 4x4
#     (nodes x tasks per node): bench_pmix (PMIx_Init, medians of N empty,
#     64 B and 8 KiB collecting fences after a warm-up);
#   - K times per plugin on 3x2: mpi_hello (MPI_Init, MPI_Finalize and their
#     sum per run, the figure the goal is about), once with Debian's Open MPI
#     as installed and once with OMPI_MCA_pml=ob1 for both plugins (layout
#     "3x2-ob1": the one PML that can run here; it skips loading the
#     Omni-Path MTLs, whose libraries sleep 2 x 100 ms calibrating a clock,
#     so Open MPI's own start-up weighs less and the PMIx part shows more).
# Slurm's plugin runs with SLURM_PMIX_FENCE=ring exported to srun (without it
# its fences do not synchronise across nodes on a small cluster). Prints the
# raw per-run values, the sync checks and one markdown table of medians over
# the runs with ratio ours/theirs, then tears the cluster down.
#
# With --old-build DIR2 it compares two builds of ours as well, in the same
# run: every step alternates old (DIR2), new (DIR) and theirs, and the table
# gets the columns old, new, new/old, theirs and new/theirs. Both builds'
# plugin is mpi/spmix and loads libpmix.so.2 from its prefix, so both trees
# must be configured with the same --prefix P, used for nothing else (e.g.
# /opt/spmix-ab): each is installed with DESTDIR into its own staging
# directory, and P is a symbolic link switched (by rename) to the staging
# copy of the build the next srun is for. srun and slurmstepd load the plugin
# afresh at every step, and no step runs while the link changes. Before the
# runs a one-task step per build shows which staged mpi_spmix.so and
# libpmix.so.2 its slurmstepd has mapped; the script stops if it is not that
# build's.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
CLUSTER=$HERE/cluster.sh
. "$HERE/benchlib.sh"
BUILD="" OLD="" RUNS=5 ITERS=50
LAYOUTS="1x2 3x2 4x4"
MPI_LAYOUT=3x2
while [ $# -gt 0 ]; do
    case $1 in
        --build) BUILD=${2:?}; shift 2 ;;
        --old-build) OLD=${2:?}; shift 2 ;;
        --runs) RUNS=${2:?}; shift 2 ;;
        --iters) ITERS=${2:?}; shift 2 ;;
        *) echo "usage: $0 --build DIR [--old-build DIR2] [--runs K] [--iters N]" >&2; exit 2 ;;
    esac
done
[ -n "$BUILD" ] && [ -f "$BUILD/Makefile" ] || { echo "$0: --build DIR (a configured build tree) is required" >&2; exit 2; }
[ -z "$OLD" ] || [ -f "$OLD/Makefile" ] || { echo "$0: --old-build $OLD is not a configured build tree" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: must run as root" >&2; exit 2; }
case $RUNS in ''|*[!0-9]*|0) echo "$0: --runs K needs K >= 1" >&2; exit 2 ;; esac
BUILD=$(cd "$BUILD" && pwd)
[ -z "$OLD" ] || OLD=$(cd "$OLD" && pwd)
OUT=$(mktemp -d /tmp/spmix-bench.XXXXXX)
chmod 755 "$OUT"
T0=$(date +%s.%N)
# the sides compared: ours (the --build tree), theirs, and with --old-build
# old (DIR2) and new (DIR, then named new rather than ours)
if [ -n "$OLD" ]; then NEW=new SIDES="old new theirs"; else NEW=ours SIDES="ours theirs"; fi
PREFIX=""

# ---- build and install ----
CLUSTER_UP=0
cleanup() {
    [ $CLUSTER_UP = 0 ] || "$CLUSTER" down >/dev/null 2>&1
    # the A/B link points into $OUT: remove it with it
    if [ -n "$OLD" ] && [ -L "$PREFIX" ]; then rm -f "$PREFIX"; fi
    rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkvars() { make -s -C "$1" --no-print-directory --eval='spx-print-dirs: ; @echo $(slurmplugindir) $(spmixlibdir) $(prefix)' spx-print-dirs; }
# use_build old|new: point the shared prefix at that build's staged install
# (A/B mode only); a new link renamed over the old one, never a file rewritten
use_build() {
    [ -n "$OLD" ] || return 0
    ln -sfn "$OUT/stage-$1$PREFIX" "$PREFIX.ab-new" && mv -T "$PREFIX.ab-new" "$PREFIX" ||
        { echo "$0: cannot point $PREFIX at the $1 build" >&2; exit 1; }
}
# make install first: if configure.ac changed, make re-runs configure now and
# not while the directories are read below
if [ -z "$OLD" ]; then
    if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1; then
        cat "$OUT/install.log"; echo "$0: build/install failed" >&2; exit 1
    fi
    read -r PLUGDIR LIBDIR PREFIX < <(mkvars "$BUILD") || true
else
    for side in old new; do
        b=$BUILD; [ $side = old ] && b=$OLD
        if ! make -s -C "$b" -j2 install DESTDIR="$OUT/stage-$side" >"$OUT/install.log" 2>&1; then
            cat "$OUT/install.log"; echo "$0: build/install of $b failed" >&2; exit 1
        fi
    done
    read -r PLUGDIR LIBDIR PREFIX < <(mkvars "$BUILD") || true
    read -r o1 o2 o3 < <(mkvars "$OLD") || true
    if [ "$o1 $o2 $o3" != "$PLUGDIR $LIBDIR $PREFIX" ]; then
        echo "$0: the two builds must share one prefix and its plugin and library directories:" >&2
        echo "  new: $PLUGDIR $LIBDIR $PREFIX; old: $o1 $o2 $o3" >&2; exit 2
    fi
    case $PREFIX in /?*) ;; *) echo "$0: prefix '$PREFIX' is not an absolute path" >&2; exit 2 ;; esac
    case $PLUGDIR:$LIBDIR in "$PREFIX"/*:"$PREFIX"/*) ;;
        *) echo "$0: $PLUGDIR and $LIBDIR must lie under the prefix $PREFIX" >&2; exit 2 ;; esac
    # P must be free or a link left by an earlier run of this script
    if [ -e "$PREFIX" ] || [ -L "$PREFIX" ]; then
        case $(readlink "$PREFIX") in /tmp/spmix-bench.*/stage-*) ;; *)
            echo "$0: $PREFIX exists; with --old-build the shared prefix is switched between" >&2
            echo "  the two staged installs: configure both builds with a prefix of their own (e.g. /opt/spmix-ab)" >&2
            exit 2 ;;
        esac
    fi
    mkdir -p "$(dirname "$PREFIX")"
    use_build new
fi
if [ -z "${PLUGDIR:-}" ] || [ -z "${LIBDIR:-}" ]; then
    echo "$0: the build tree has no Slurm plugin (configured --without-slurm?)" >&2; exit 2
fi
[ -f "$PLUGDIR/mpi_spmix.so" ] && [ -f "$LIBDIR/libpmix.so.2" ] ||
    { echo "$0: no $PLUGDIR/mpi_spmix.so or $LIBDIR/libpmix.so.2 after make install" >&2; exit 1; }
spx_bench_programs "$OUT" "$LIBDIR" &&
mpicc.openmpi $SPX_BENCH_CFLAGS "$HERE/mpi_hello.c" -o "$OUT/mpi_hello" ||
    { echo "$0: building the benchmark programs failed" >&2; exit 1; }

# ---- cluster ----
CLUSTER_UP=1
"$CLUSTER" up -n 4 --cpus 4 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 ||
    { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"
cat >"$SPMIX_VC_DIR/mpi.conf" <<EOF
# written by bench_compare.sh; everything else at its default
SpmixPortRange=31100-31199
SpmixLibDir=$LIBDIR
SpmixSetLdLibraryPath=yes
EOF
"$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; echo "$0: reconfigure failed" >&2; exit 1; }

export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader,tcp
# srun for one side: old | new | ours | theirs, layout NxT, program and arguments.
run() {
    local who=$1 lay=$2; shift 2
    local n=${lay%x*} t=${lay#*x}
    if [ "$who" != theirs ]; then
        use_build "$who"
        timeout 120 srun --mpi=spmix -N "$n" -n $((n * t)) --ntasks-per-node="$t" "$@"
    else
        SLURM_PMIX_FENCE=ring timeout 120 srun --mpi=pmix -N "$n" -n $((n * t)) --ntasks-per-node="$t" "$@"
    fi
}
prog() { [ "$1" = theirs ] && echo "$OUT/bench_theirs" || echo "$OUT/bench_ours"; }

echo "## bench_compare: $RUNS run(s), $ITERS fences per kind, layouts $LAYOUTS, $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')"
[ -z "$OLD" ] || echo "## old = $OLD, new = $BUILD (both installed for prefix $PREFIX)"
echo "## load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## library check (rank 0 of 1x2):"
for who in $SIDES; do
    run "$who" 1x2 "$(prog $who)" bench 5 2>&1 | grep '^library' | sed "s/^/   $who: /"
done
if [ -n "$OLD" ]; then
    # a one-task step per build: the files its slurmstepd (the task's parent)
    # has mapped must be that build's staged copies
    echo "## build check (files mapped by slurmstepd):"
    for who in old new; do
        maps=$(run "$who" 1x1 sh -c 'cat /proc/$PPID/maps' 2>&1 |
               awk '$6 ~ /\/(mpi_spmix\.so|libpmix\.so[.0-9]*)$/ { print $6 }' | sort -u)
        echo "$maps" | sed "s/^/   $who: /"
        n=$(echo "$maps" | grep -c "^$OUT/stage-$who/")
        [ "$n" = 2 ] && [ "$(echo "$maps" | grep -c .)" = 2 ] ||
            { echo "$0: the $who step did not load the $who build's plugin and libpmix" >&2; exit 1; }
    done
fi

# ---- the fence must synchronise: a late rank holds back everybody ----
SYNC_OK=1
SYNC_NOTE=""
echo "## synchronisation check (empty fence; last rank 1 s late; others must wait >= 0.9 s)"
for lay in $LAYOUTS; do
    for who in $SIDES; do
        run "$who" "$lay" "$(prog $who)" late >"$OUT/late" 2>"$OUT/late.err"; rc=$?
        n=${lay%x*} t=${lay#*x}; last=$((n * t - 1))
        res=$(awk -v last=$last '$1 == "fence_wait" && $2 != last { k++; if ($3 >= 0.9) h++; if (min == "" || $3 < min) min = $3 }
                                 END { printf "%d %d %s", k + 0, h + 0, (min == "" ? "-" : min) }' "$OUT/late")
        read -r k h min <<<"$res"
        if [ $rc = 0 ] && [ "$k" = "$last" ] && [ "$h" = "$k" ]; then v=PASS; else v=FAIL; SYNC_OK=0; fi
        echo "$v: $who $lay: $h/$last early ranks waited >= 0.9 s (min $min s, rc $rc)"
        [ $v = FAIL ] && sed 's/^/    /' "$OUT/late.err" | tail -n 5
        SYNC_NOTE="$SYNC_NOTE $who:$lay:$v"
    done
done

# ---- the runs ----
# values go to $OUT/v/<who>.<layout>.<metric>, one line per successful run
mkdir -p "$OUT/v"
record() { # who layout file-with-"name value unit"-lines
    awk '$1 ~ /^(init|init_max|fence_empty|fence_64B|fence_8KiB|mpi_finalize)$/ { print $1, $2 }
         $1 == "mpi_init" { print "mpi_init", $3; mi = $3 }
         $1 == "mpi_finalize" { mf = $2 }
         END { if (mi != "" && mf != "") print "mpi_total", mi + mf }' "$3" |
    while read -r m v; do echo "$v" >>"$OUT/v/$1.$2.$m"; done
}
NFAIL=0
for r in $(seq "$RUNS"); do
    for lay in $LAYOUTS; do
        for who in $SIDES; do
            if run "$who" "$lay" "$(prog $who)" bench "$ITERS" >"$OUT/o" 2>"$OUT/e"; then
                record "$who" "$lay" "$OUT/o"
                echo "run $r $who $lay: $(grep -v '^library' "$OUT/o" | awk '{ printf "%s=%s%s ", $1, $2, $3 }')"
            else
                NFAIL=$((NFAIL + 1)); echo "run $r $who $lay: FAILED"; tail -n 5 "$OUT/e" | sed 's/^/    /'
            fi
        done
    done
    for pml in default ob1; do
        key=$MPI_LAYOUT; [ $pml = default ] || key=$MPI_LAYOUT-$pml
        for who in $SIDES; do
            if if [ $pml = default ]; then run "$who" $MPI_LAYOUT "$OUT/mpi_hello"
               else OMPI_MCA_pml=$pml run "$who" $MPI_LAYOUT "$OUT/mpi_hello"; fi >"$OUT/o" 2>"$OUT/e"; then
                record "$who" "$key" "$OUT/o"
                echo "run $r $who $key mpi_hello: $(awk '{ printf "%s ", $0 }' "$OUT/o")"
            else
                NFAIL=$((NFAIL + 1)); echo "run $r $who $key mpi_hello: FAILED"; tail -n 5 "$OUT/e" | sed 's/^/    /'
            fi
        done
    done
done

# ---- the table ----
median() { spx_bench_median "$@"; }
ratio() { spx_bench_ratio "$@"; }
row() { # label metric layout goal
    local o th ol r met
    o=$(median "$OUT/v/$NEW.$3.$2"); th=$(median "$OUT/v/theirs.$3.$2")
    r=$(ratio "$o" "$th")
    if [ "$r" != n/a ]; then
        met=$(awk -v r="$r" -v g="$4" 'BEGIN { print (g == "-" ? "-" : (r + 0 <= g + 0) ? "yes" : "no") }')
    else met=n/a; fi
    if [ -n "$OLD" ]; then
        ol=$(median "$OUT/v/old.$3.$2")
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$3" "$ol" "$o" "$(ratio "$o" "$ol")" "$th" "$r" "$4" "$met"
    else
        printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$3" "$o" "$th" "$r" "$4" "$met"
    fi
}
echo
echo "Medians over $RUNS runs ($NFAIL failed run(s)); fences: median of $ITERS after 5 warm-up."
echo "theirs = Slurm $(srun --version 2>/dev/null | awk '{ print $2 }') mpi/pmix + the OpenPMIx of the library check above, with SLURM_PMIX_FENCE=ring."
echo
if [ -n "$OLD" ]; then
    echo "old = $OLD, new = $BUILD; goal and met are about new/theirs."
    echo
    echo "| metric | layout | old | new | new/old | theirs | new/theirs | goal | met |"
    echo "|---|---|---|---|---|---|---|---|---|"
else
    echo "| metric | layout | ours | theirs | ours/theirs | goal | met |"
    echo "|---|---|---|---|---|---|---|"
fi
for lay in $LAYOUTS; do
    row "PMIx_Init, rank 0 (ms)" init "$lay" 0.5
    row "PMIx_Init, max over ranks (ms)" init_max "$lay" 0.5
    row "empty fence (us)" fence_empty "$lay" 0.5
    row "fence, collect 64 B/rank (us)" fence_64B "$lay" 0.5
    row "fence, collect 8 KiB/rank (us)" fence_8KiB "$lay" 0.5
done
row "MPI_Init, max over ranks (ms)" mpi_init $MPI_LAYOUT -
row "MPI_Finalize, rank 0 (ms)" mpi_finalize $MPI_LAYOUT -
row "MPI_Init + MPI_Finalize (ms)" mpi_total $MPI_LAYOUT 0.7
row "MPI_Init, max over ranks, pml ob1 (ms)" mpi_init $MPI_LAYOUT-ob1 -
row "MPI_Finalize, rank 0, pml ob1 (ms)" mpi_finalize $MPI_LAYOUT-ob1 -
row "MPI_Init + MPI_Finalize, pml ob1 (ms)" mpi_total $MPI_LAYOUT-ob1 -
echo
if [ $SYNC_OK = 1 ]; then echo "Synchronisation check: PASS for every side ($SIDES) on every layout."
else echo "Synchronisation check: FAILED somewhere:$SYNC_NOTE"; fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench_compare: $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s"
[ $SYNC_OK = 1 ] && [ $NFAIL = 0 ]
