#!/bin/bash
# chroot_suite.sh - the Slurm tests on another Debian release's Slurm: builds
# spmix inside a chroot of that release (scripts/chroot.sh; Debian 13 trixie
# = Slurm 24.11, forky = Slurm 26.05) against its own libslurm-dev, then runs
# test/slurm test scripts there, each on a 3-node cluster of that release
# (test/slurm/cluster.sh run inside the chroot, with its own subnet, names
# and ports, so it never collides with the Debian 12 cluster). Run as root,
# holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/slurm/chroot_suite.sh SUITE --root DIR
#       [--tests 'test_plugin.sh test_groups.sh ...'] [--dropin]
#       [--dropin-tests 'test_dropin.sh test_openmpi.sh']
#   test/slurm/chroot_suite.sh SUITE --cleanup    (after a killed run)
# DIR (made if missing, readable by all) gets the build trees: DIR/build
# (plugin mpi_spmix) and, with --dropin, DIR/dropin (--enable-pmix-typename,
# then test_dropin.sh, or the --dropin-tests list, against it). Before the
# tests: the ABI checks (ldd -r of the release's Open MPI libraries and
# python3-pmix against our library, and that module run on it) and Open MPI
# under the installed spmix-run. Prints each phase's time; exit 1 if
# anything failed.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CHROOT=$TOP/scripts/chroot.sh
SUITE=${1:-}
shift || true
case $SUITE in
    trixie) CENV=(--env SPMIX_VC_NET=10.78.0 --env SPMIX_VC_PFX=spmxt
                  --env SPMIX_VC_CTLD_PORT=16827 --env SPMIX_VC_SLURMD_PORT=16828) ;;
    forky) CENV=(--env SPMIX_VC_NET=10.79.0 --env SPMIX_VC_PFX=spmxf
                 --env SPMIX_VC_CTLD_PORT=16837 --env SPMIX_VC_SLURMD_PORT=16838) ;;
    *) echo "usage: $0 trixie|forky --root DIR [--tests LIST] [--dropin] [--dropin-tests LIST] | --cleanup" >&2; exit 2 ;;
esac
ROOT="" TESTS="test_plugin.sh" DROPIN=0 DTESTS="test_dropin.sh" CLEANUP=0
while [ $# -gt 0 ]; do
    case $1 in
        --root) ROOT=${2:?}; shift 2 ;;
        --tests) TESTS=${2:?}; shift 2 ;;
        --dropin) DROPIN=1; shift ;;
        --dropin-tests) DROPIN=1; DTESTS=${2:?}; shift 2 ;;
        --cleanup) CLEANUP=1; shift ;;
        *) echo "$0: unknown option $1" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "$0: must run as root" >&2; exit 2; }

# inside CMD...: run CMD in the (mounted) chroot with the cluster's settings
inside() { bash "$CHROOT" "$SUITE" exec "${CENV[@]}" -- "$@"; }

# whatever happened: the chroot's cluster down, then its mounts
cleanup() {
    if [ -n "$(bash "$CHROOT" "$SUITE" path 2>/dev/null)" ] &&
       grep -q " $(bash "$CHROOT" "$SUITE" path)/run " /proc/self/mountinfo; then
        inside bash "$TOP/test/slurm/cluster.sh" down >/dev/null 2>&1 || true
    fi
    bash "$CHROOT" "$SUITE" down
}
if [ $CLEANUP = 1 ]; then cleanup; exit $?; fi
[ -n "$ROOT" ] || { echo "$0: --root DIR is required" >&2; exit 2; }
mkdir -p "$ROOT" && chmod 755 "$ROOT"
ROOT=$(cd "$ROOT" && pwd)

now() { date +%s.%N; }
took() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }
NFAIL=0
T0=$(now)

t=$(now)
bash "$CHROOT" "$SUITE" build || { echo "FAIL: $SUITE chroot build"; exit 1; }
echo "chroot_suite $SUITE: chroot ready in $(took "$t") s"

trap cleanup EXIT
bash "$CHROOT" "$SUITE" up --bind "$TOP" --bind "$ROOT" || { echo "FAIL: $SUITE chroot up"; exit 1; }
slurm=$(inside dpkg-query -W -f='${Version}' slurmd 2>/dev/null)
echo "chroot_suite $SUITE: Slurm $slurm"

# build DIR CONFIGURE-ARGS...: configure (-Werror) and make DIR inside
build() {
    local dir=$1 t
    shift
    t=$(now)
    rm -rf "$dir" && mkdir -p "$dir" && chmod 755 "$dir"
    if inside bash -c 'cd "$1" && shift && "$@" >configure.out 2>&1 && make -s -j2 >make.out 2>&1' \
            sh "$dir" "$TOP/configure" -q --enable-werror --prefix="$dir-inst" "$@"; then
        echo "PASS: $SUITE: spmix builds (-Werror) against Slurm $slurm's headers" \
             "(configure: $(grep -o "^SPX_SLURM_VERSION='[0-9.]*'" "$dir/config.log"); $(took "$t") s)"
        return 0
    fi
    echo "FAIL: $SUITE: build in $dir"; tail -n 30 "$dir/configure.out" "$dir/make.out" 2>/dev/null
    NFAIL=$((NFAIL + 1))
    return 1
}

# run TEST BUILD: one test script inside, timed
run() {
    local t rc
    t=$(now)
    inside bash "$TOP/test/slurm/$1" --build "$2"; rc=$?
    echo "chroot_suite $SUITE: $1: exit $rc, $(took "$t") s"
    [ $rc = 0 ] || NFAIL=$((NFAIL + 1))
}

# abi_check BUILD: Open MPI's libraries and the release's python3-pmix module
# (both built on OpenPMIx) resolve every PMIx symbol against our library, and
# that module works on it
abi_check() {
    local t files
    t=$(now)
    files=$(inside sh -c 'ls /usr/lib/x86_64-linux-gnu/libmpi.so.[0-9]* \
                               /usr/lib/x86_64-linux-gnu/libopen-pal.so.[0-9]* \
                               /usr/lib/x86_64-linux-gnu/liboshmem.so.[0-9]* \
                               /usr/lib/python3/dist-packages/pmix.*.so \
                               /usr/lib/python3/dist-packages/*/pmix.*.so 2>/dev/null' |
            grep -E '\.so\.[0-9]+$|\.so$')
    if [ -z "$files" ]; then
        echo "FAIL: $SUITE: no Open MPI or python3-pmix library found for the ldd -r check"
        NFAIL=$((NFAIL + 1)); return
    fi
    # shellcheck disable=SC2086 # one file per word
    inside sh "$TOP/test/abi/ldd_resolve.sh" "$1/.libs" $files || NFAIL=$((NFAIL + 1))
    # and the release's python3-pmix runs on it: put/commit/fence/get with
    # every value checked, 3 ranks under spmix-run (its client library could
    # not talk to our server: a pass means ours was loaded)
    # (Debian 13 installs the module in an egg directory python does not search)
    local out pydir
    pydir=$(dirname "$(echo "$files" | grep '/pmix\.[^/]*\.so$' | head -n 1)")
    out=$(inside env PYTHONPATH="$pydir" LD_LIBRARY_PATH="$1/.libs" "$1/tools/spmix-run" -n 3 \
                 python3 "$TOP/test/bench/py_bench.py" 5 2>&1)
    if [ $? = 0 ] && echo "$out" | grep -q '^py_bench: debian-python3-pmix ranks 3 '; then
        echo "PASS: $SUITE: the release's python3-pmix on our library (3 ranks, values checked)"
    else
        echo "FAIL: $SUITE: the release's python3-pmix on our library:"; echo "$out" | tail -n 15
        NFAIL=$((NFAIL + 1))
    fi
    echo "chroot_suite $SUITE: ABI checks: $(took "$t") s"
}

# spmix_run_check BUILD: the release's Open MPI and mpi4py under the installed
# spmix-run, without Slurm (test/openmpi_run.sh on one node)
spmix_run_check() {
    local t rc
    t=$(now)
    if ! inside make -s -C "$1" install >"$1/install.out" 2>&1; then
        echo "FAIL: $SUITE: make install in $1"; tail -n 20 "$1/install.out"
        NFAIL=$((NFAIL + 1)); return
    fi
    # one node: Open MPI 5 and 6 find no TCP pairing between spmix-run's
    # simulated nodes (both sides have this host's addresses: "Unable to find
    # reachable pairing"), where 4.1 connects them; their multi-node jobs are
    # the chroot's Slurm cluster's (test_openmpi.sh, test_plugin.sh)
    inside env SPX_OMPI_RUN_NODES=1 sh "$TOP/test/openmpi_run.sh" "$1-inst"; rc=$?
    echo "chroot_suite $SUITE: Open MPI under spmix-run: exit $rc, $(took "$t") s"
    [ $rc = 0 ] || NFAIL=$((NFAIL + 1))
}

if build "$ROOT/build"; then
    abi_check "$ROOT/build"
    spmix_run_check "$ROOT/build"
    for t in $TESTS; do run "$t" "$ROOT/build"; done
fi
if [ $DROPIN = 1 ] && build "$ROOT/dropin" --enable-pmix-typename --disable-tests; then
    for t in $DTESTS; do run "$t" "$ROOT/dropin"; done
fi
echo "chroot_suite $SUITE: $NFAIL failure(s), $(took "$T0") s"
[ $NFAIL = 0 ]
