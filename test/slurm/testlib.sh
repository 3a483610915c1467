# testlib.sh - shared start of the Slurm test scripts (sourced by bash scripts).
#
#   spx_vc_args "$@"      parses --build DIR [--keep]; sets BUILD (absolute),
#                         KEEP, HERE, CLUSTER; requires root
#   spx_vc_install OUT    make install, then PLUGDIR, LIBDIR, BINDIR, PUSH
#   spx_vc_checks         pass/fail functions, NFAIL, T0
#   spx_vc_up OUT [LINE]  cluster up, environment, mpi.conf, cleanup on exit
#   spx_missing_syms LIB OBJ  the PMIx names OBJ imports that LIB lacks
#   spx_vc_mpiconf FILE [KEY=VALUE...]  FILE from slurm-conf-examples/mpi.conf
#   spx_vc_dirs           after `make install` in $BUILD: sets PLUGDIR (where
#                         mpi_spmix.so went) and LIBDIR (spmix's library dir)
# Installing before asking make for its directories matters: a configure
# re-run by make would otherwise mix its output into the answer.

spx_vc_args() {
    HERE=$(cd "$(dirname "$0")" && pwd)
    CLUSTER=$HERE/cluster.sh
    BUILD=""
    KEEP=0
    while [ $# -gt 0 ]; do
        case $1 in
            --build) BUILD=${2:?}; shift 2 ;;
            --keep) KEEP=1; shift ;;
            *) echo "usage: $0 --build DIR [--keep]" >&2; exit 2 ;;
        esac
    done
    [ -n "$BUILD" ] && [ -f "$BUILD/Makefile" ] || { echo "$0: --build DIR (a configured build tree) is required" >&2; exit 2; }
    [ "$(id -u)" = 0 ] || { echo "$0: must run as root" >&2; exit 2; }
    BUILD=$(cd "$BUILD" && pwd)
}

spx_vc_dirs() {
    read -r PLUGDIR LIBDIR < <(make -s -C "$BUILD" --no-print-directory \
        --eval='spx-print-dirs: ; @echo $(slurmplugindir) $(spmixlibdir)' spx-print-dirs | tail -n 1) || true
    if [ -z "${PLUGDIR:-}" ] || [ -z "${LIBDIR:-}" ]; then
        echo "$0: the build tree has no Slurm plugin (configured --without-slurm?)" >&2; exit 2
    fi
}

# spx_vc_install OUT: `make install` in $BUILD (its output in OUT/install.log),
# then PLUGDIR and LIBDIR (spx_vc_dirs), BINDIR and PUSH (spmix-push there);
# exits when the build has no plugin or no spmix-push
spx_vc_install() {
    if ! make -s -C "$BUILD" -j2 install >"$1/install.log" 2>&1; then
        cat "$1/install.log"; echo "$0: build/install failed" >&2; exit 1
    fi
    spx_vc_dirs
    BINDIR=$(make -s -C "$BUILD" --no-print-directory --eval='spx-print-bindir: ; @echo $(bindir)' \
        spx-print-bindir | tail -n 1)
    PUSH=$BINDIR/spmix-push
    [ -f "$PLUGDIR/mpi_spmix.so" ] && [ -x "$PUSH" ] ||
        { echo "$0: no mpi_spmix.so or spmix-push after make install" >&2; exit 1; }
}

# spx_vc_checks: pass MSG / fail MSG print PASS:/FAIL: lines, NFAIL counts
# the failures, T0 is the start
spx_vc_checks() {
    NFAIL=0
    T0=$(date +%s.%N)
    pass() { echo "PASS: $*"; }
    fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }
}

# spx_vc_mpiconf FILE [KEY=VALUE...]: writes FILE from the shipped example
# slurm-conf-examples/mpi.conf (every option, commented out at its default)
# with each KEY's line set to KEY=VALUE (no '|' in VALUE); a KEY the example
# lacks is an error (returns 1), so the example keeps naming every option.
spx_vc_mpiconf() {
    local out=$1 ex kv k
    shift
    ex=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/slurm-conf-examples/mpi.conf
    cp "$ex" "$out.tmp" || return 1
    for kv in "$@"; do
        k=${kv%%=*}
        grep -Eq "^#?$k=" "$out.tmp" || { echo "$0: $k is not in $ex" >&2; rm -f "$out.tmp"; return 1; }
        sed -i -E "s|^#?$k=.*|$kv|" "$out.tmp"
    done
    mv "$out.tmp" "$out"
}

# spx_vc_up OUT [KEY=VALUE...]: after spx_vc_install/spx_vc_dirs, brings
# the 3-node cluster up with $PLUGDIR first (exits when it cannot), sources
# its environment and writes its mpi.conf (the shipped example with tree
# width 2, SpmixLibDir=$LIBDIR first in the tasks' LD_LIBRARY_PATH, and the
# given settings), then reconfigures. On exit the background job $BG (if set) is killed, OUT is
# removed and, unless --keep, the cluster is brought down.
spx_vc_up() {
    local out=$1
    shift
    SPX_VC_OUT=$out
    trap spx_vc_cleanup EXIT
    "$CLUSTER" up -n 3 --plugin-dir "$PLUGDIR" >"$out/up.log" 2>&1 ||
        { cat "$out/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
    . "$("$CLUSTER" env)"
    spx_vc_mpiconf "$SPMIX_VC_DIR/mpi.conf" SpmixTimeout=20 SpmixTreeWidth=2 \
        "SpmixLibDir=$LIBDIR" SpmixSetLdLibraryPath=yes "$@" || exit 1
    "$CLUSTER" reconfigure >"$out/reconf.log" 2>&1 ||
        { cat "$out/reconf.log"; fail "reconfigure with mpi.conf"; }
}

spx_vc_cleanup() {
    [ -n "${BG:-}" ] && kill "$BG" 2>/dev/null
    rm -rf "$SPX_VC_OUT"
    if [ "$KEEP" = 0 ]; then "$CLUSTER" down >/dev/null 2>&1; fi
}

# spx_missing_syms LIB OBJ: prints (space-separated) the PMIx_* functions and
# pmix_framework_names that the shared object OBJ imports and our library LIB
# does not define - what a newer release's program (built on a later PMIx
# ABI) would miss at load time; empty when nothing is missing
spx_missing_syms() {
    local have
    have=" $(nm -D --defined-only "$1" 2>/dev/null | awk '{ printf "%s ", $3 }')"
    nm -D --undefined-only "$2" 2>/dev/null | awk '{ print $2 }' | sed 's/@.*//' |
        grep -E '^(PMIx_|pmix_framework_names$)' | sort -u | while read -r s; do
            case $have in *" $s "*) ;; *) printf '%s ' "$s" ;; esac
        done
}

# spx_vc_tree_port JOB STEP: the tree port of that step's servers, as
# mpi/spmix derives it without MpiParams=ports (from SpmixPortRange, default
# 26000-27999)
spx_vc_tree_port() {
    local lo hi
    read -r lo hi < <(scontrol show config | sed -n 's/^SpmixPortRange *= *\([0-9]*\)-\([0-9]*\)$/\1 \2/p')
    lo=${lo:-26000} hi=${hi:-27999}
    echo $(( lo + ($1 * 2654435761 + $2 * 40503) % (hi - lo + 1) ))
}
