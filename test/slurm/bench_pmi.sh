#!/bin/bash
# test/slurm/bench_pmi.sh - side-by-side benchmark of the PMI wire protocols
# (PMI-1 and PMI-2 over PMI_FD) served by our mpi/spmix and by Slurm's own
# mpi/pmi2, on one 4-node virtual cluster (test/slurm/cluster.sh), in one
# run. As root, holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/slurm/bench_pmi.sh --build DIR [--runs K] [--iters N]
# DIR is a configured build tree (configure --prefix=P); the script runs
# `make install` there, builds test/slurm/bench_pmi.c (a hand-written client
# of both protocols, no PMI library) and test/slurm/mpi_hello.c with
# Debian's mpicc.mpich, brings up 4 nodes with 4 CPUs each and then, K times
# (default 5), alternating the plugins, on 3x2 and 4x4 (nodes x tasks per
# node):
#   bench_pmi v1 N and bench_pmi v2 N: medians of N (default 50) barriers
#   (PMI-1 barrier_in, PMI-2 kvs-fence) and of N rounds of put / barrier /
#   get of 64 B and of 8 KiB per rank (in 512-byte values), each value
#   read back from the next rank and checked; every run also checks that a
#   barrier holds everybody until a late rank enters;
#   mpi_hello (MPICH, PMI-1 over PMI_FD): MPI_Init (max over ranks) plus
#   MPI_Finalize (rank 0).
# Prints the raw per-run values and one markdown table of medians over the
# runs with the ratio ours/theirs, then tears the cluster down.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
CLUSTER=$HERE/cluster.sh
BUILD="" RUNS=5 ITERS=50
LAYOUTS="3x2 4x4"
while [ $# -gt 0 ]; do
    case $1 in
        --build) BUILD=${2:?}; shift 2 ;;
        --runs) RUNS=${2:?}; shift 2 ;;
        --iters) ITERS=${2:?}; shift 2 ;;
        *) echo "usage: $0 --build DIR [--runs K] [--iters N]" >&2; exit 2 ;;
    esac
done
[ -n "$BUILD" ] && [ -f "$BUILD/Makefile" ] || { echo "$0: --build DIR (a configured build tree) is required" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: must run as root" >&2; exit 2; }
case $RUNS in ''|*[!0-9]*|0) echo "$0: --runs K needs K >= 1" >&2; exit 2 ;; esac
BUILD=$(cd "$BUILD" && pwd)
OUT=$(mktemp -d /tmp/spmix-pmibench.XXXXXX)
chmod 755 "$OUT"
T0=$(date +%s.%N)
CLUSTER_UP=0
cleanup() {
    [ $CLUSTER_UP = 0 ] || "$CLUSTER" down >/dev/null 2>&1
    rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1; then
    cat "$OUT/install.log"; echo "$0: build/install failed" >&2; exit 1
fi
read -r PLUGDIR LIBDIR < <(make -s -C "$BUILD" --no-print-directory \
    --eval='spx-print-dirs: ; @echo $(slurmplugindir) $(spmixlibdir)' spx-print-dirs | tail -n 1) || true
[ -f "${PLUGDIR:-}/mpi_spmix.so" ] || { echo "$0: no mpi_spmix.so after make install" >&2; exit 1; }
CFLAGS="-std=gnu11 -O2 -Wall -Wextra -Werror"
gcc $CFLAGS "$HERE/bench_pmi.c" -o "$OUT/bench_pmi" &&
mpicc.mpich $CFLAGS "$HERE/mpi_hello.c" -o "$OUT/mpich_hello" ||
    { echo "$0: building the benchmark programs failed" >&2; exit 1; }

CLUSTER_UP=1
"$CLUSTER" up -n 4 --cpus 4 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 ||
    { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"
cat >"$SPMIX_VC_DIR/mpi.conf" <<CONF
# written by bench_pmi.sh; everything else at its default
SpmixPortRange=31100-31199
SpmixLibDir=$LIBDIR
SpmixSetLdLibraryPath=yes
CONF
"$CLUSTER" reconfigure >"$OUT/reconf.log" 2>&1 || { cat "$OUT/reconf.log"; echo "$0: reconfigure failed" >&2; exit 1; }

run() { # ours|theirs layout program args...
    local who=$1 lay=$2 mpi=spmix; shift 2
    [ "$who" = theirs ] && mpi=pmi2
    local n=${lay%x*} t=${lay#*x}
    timeout 120 srun --mpi=$mpi -N "$n" -n $((n * t)) --ntasks-per-node="$t" "$@"
}

echo "## bench_pmi: $RUNS run(s), $ITERS rounds per kind, layouts $LAYOUTS, $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "## load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$OUT/v"
NFAIL=0 SYNC_OK=1
for r in $(seq "$RUNS"); do
    for lay in $LAYOUTS; do
        np=$(( ${lay%x*} * ${lay#*x} ))
        for ver in v1 v2; do
            for who in ours theirs; do
                if run "$who" "$lay" "$OUT/bench_pmi" "$ver" "$ITERS" >"$OUT/o" 2>"$OUT/e"; then
                    awk -v p="$OUT/v/$who.$lay.$ver" '$1 ~ /^(init|barrier|pg64|pg8k)$/ { print $2 >> (p "." $1) }' "$OUT/o"
                    nsync=$(grep -c '^sync ok' "$OUT/o")
                    [ "$nsync" = "$np" ] || { SYNC_OK=0; echo "sync check FAILED: $who $lay $ver ($nsync/$np)"; }
                    echo "run $r $who $lay $ver: $(grep -v '^sync' "$OUT/o" | awk '{ printf "%s=%s%s ", $1, $2, $3 }')sync $nsync/$np"
                else
                    NFAIL=$((NFAIL + 1)); echo "run $r $who $lay $ver: FAILED"; tail -n 5 "$OUT/e" | sed 's/^/    /'
                fi
            done
        done
        for who in ours theirs; do
            if run "$who" "$lay" "$OUT/mpich_hello" >"$OUT/o" 2>"$OUT/e"; then
                awk -v p="$OUT/v/$who.$lay.mpi" '$1 == "mpi_init" { i = $3; print $3 >> (p ".init") }
                    $1 == "mpi_finalize" { f = $2; print $2 >> (p ".fin") }
                    END { if (i != "" && f != "") print i + f >> (p ".total") }' "$OUT/o"
                echo "run $r $who $lay mpich_hello: $(awk '{ printf "%s ", $0 }' "$OUT/o")"
            else
                NFAIL=$((NFAIL + 1)); echo "run $r $who $lay mpich_hello: FAILED"; tail -n 5 "$OUT/e" | sed 's/^/    /'
            fi
        done
    done
done

median() {
    [ -s "$1" ] || { echo n/a; return; }
    sort -g "$1" | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
row() { # label layout metric-suffix goal
    local o th r met
    o=$(median "$OUT/v/ours.$2.$3"); th=$(median "$OUT/v/theirs.$2.$3")
    if [ "$o" = n/a ] || [ "$th" = n/a ]; then r=n/a met=n/a
    else
        r=$(awk -v a="$o" -v b="$th" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
        met=$(awk -v r="$r" -v g="$4" 'BEGIN { print (g == "-" ? "-" : (r + 0 <= g + 0) ? "yes" : "no") }')
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$o" "$th" "$r" "$4" "$met"
}
echo
echo "Medians over $RUNS runs ($NFAIL failed run(s)); per run the median of $ITERS rounds (rank 0)."
echo "ours = mpi/spmix (the PMI wire engine of its server); theirs = Slurm 22.05 mpi/pmi2."
echo
echo "| metric | layout | ours | theirs | ours/theirs | goal | met |"
echo "|---|---|---|---|---|---|---|"
for lay in $LAYOUTS; do
    row "PMI-1 barrier_in (us)" "$lay" v1.barrier 0.5
    row "PMI-1 put 64 B, barrier, get (us)" "$lay" v1.pg64 0.5
    row "PMI-1 put 8 KiB, barrier, get (us)" "$lay" v1.pg8k 0.5
    row "PMI-2 kvs-fence (us)" "$lay" v2.barrier 0.5
    row "PMI-2 kvs-put 64 B, kvs-fence, kvs-get (us)" "$lay" v2.pg64 0.5
    row "PMI-2 kvs-put 8 KiB, kvs-fence, kvs-get (us)" "$lay" v2.pg8k 0.5
    row "PMI-1 init, get_maxes, get_my_kvsname (ms)" "$lay" v1.init -
    row "MPICH MPI_Init, max over ranks (ms)" "$lay" mpi.init -
    row "MPICH MPI_Finalize, rank 0 (ms)" "$lay" mpi.fin -
    row "MPICH MPI_Init + MPI_Finalize (ms)" "$lay" mpi.total 1.0
done
echo
if [ $SYNC_OK = 1 ]; then echo "Synchronisation check: PASS (every run: all ranks waited for the late one)."
else echo "Synchronisation check: FAILED somewhere (see above)."; fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench_pmi: $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s"
[ $SYNC_OK = 1 ] && [ $NFAIL = 0 ]
