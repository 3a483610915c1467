# testlib.sh - shared start of the Slurm test scripts (sourced by bash scripts).
#
#   spx_vc_args "$@"      parses --build DIR [--keep]; sets BUILD (absolute),
#                         KEEP, HERE, CLUSTER; requires root
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
