#!/bin/sh
# The whole test suite, as CI runs it (README: "Run the tests").
#   1. install the packages it needs;
#   2. a warnings-as-errors build and `make check` (unit + integration tests);
#   3. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer;
#      then `make distcheck`: the release tarball builds (-Werror) from a
#      read-only source tree, passes `make check`, installs and uninstalls
#      cleanly under a prefix of its own (man pages linted, the
#      slurm-conf-examples checked, by its `make check`); `rpmbuild -ta` of
#      that tarball builds the spmix, spmix-slurm and spmix-devel RPMs, whose
#      files are those of `make install` (test/dist/rpm_build.sh);
#   4. an integration job under valgrind (memcheck, leaks are errors);
#   5. `make install` into a staging prefix and a check that libpmix.so.2
#      exports only PMIx_* names; a program using every PMIx v4 inline helper
#      built against the installed headers via pkg-config
#      (scripts/check-installed-headers.sh); unchanged Open MPI / mpi4py
#      programs under the installed spmix-run (test/openmpi_run.sh);
#   6. the Slurm plugin on a real 3-node virtual Slurm cluster (network
#      namespaces; test/slurm/test_plugin.sh), built in /opt/spmix-ci so that the
#      unprivileged test user can read it), PMIx groups there (it_group,
#      it_grpinvite, python3-pmix; test/slurm/test_groups.sh), heterogeneous and
#      --multi-prog steps (test/slurm/test_hetjob.sh), tools and srun's
#      stdin (test/slurm/test_iof.sh), then unchanged Open MPI and mpi4py
#      programs through it (test/slurm/test_openmpi.sh), unchanged MPICH
#      programs (test/slurm/test_mpich.sh), our pmix Python module (the
#      spec's Python examples, mpi4py beside it; test/slurm/test_python.sh;
#      this build has --enable-python), and the drop-in
#      build that answers `srun --mpi=pmix` (test/slurm/test_dropin.sh).
#      SPX_SKIP_SLURM=1 skips these stages.
#   7. the same plugin built inside Debian 13 (Slurm 24.11) and Debian forky
#      (Slurm 26.05) chroots against their own libslurm-dev, each on a 3-node
#      cluster of that release: test_plugin.sh, test_groups.sh, test_iof.sh
#      and the drop-in build as mpi/pmix; the Open MPI matrix
#      (test_openmpi.sh) with Open MPI 5 under mpi/spmix on 13, with Open
#      MPI 6 under the drop-in mpi/pmix on forky (test/slurm/chroot_suite.sh; the
#      chroots come from scripts/chroot.sh, cached in /var/cache/spmix-chroots:
#      about 1.5 min each when cold). SPX_SKIP_CHROOTS=1 skips them (also
#      skipped with SPX_SKIP_SLURM=1).
# Build trees go to $SPX_BUILD_ROOT (default: ./_ci). Exit status: 0 = all passed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
root=${SPX_BUILD_ROOT:-$top/_ci}
jobs=$(nproc 2>/dev/null || echo 2)
sh "$top/scripts/install-deps.sh"
cd "$top"
./autogen.sh >/dev/null 2>&1 || { echo "autogen failed"; ./autogen.sh; exit 1; }

step() { printf '\n==== %s ====\n' "$*"; }
run_check() { # dir, configure args...
    dir=$1; shift
    rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
    "$top/configure" -q --enable-werror --prefix="$dir/_inst" "$@"
    make -s -j"$jobs"
    if ! make -s -j"$jobs" check; then
        find . -name '*.log' -path '*test*' -newer config.status -exec grep -l -E '^(FAIL|ERROR)' {} + 2>/dev/null |
            while read -r f; do echo "---- $f"; tail -n 60 "$f"; done
        for f in test-suite.log; do [ -f "$f" ] && tail -n 200 "$f"; done
        return 1
    fi
    cd "$top"
}

step "build (-Werror, with the Python module) and make check"
run_check "$root/normal" --enable-python

step "make check under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run_check "$root/asan" CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
    LDFLAGS="-fsanitize=address,undefined"

step "make distcheck (the release tarball builds, checks, installs and uninstalls)"
cd "$root/normal"
make -s -j"$jobs" distcheck || {
    for f in spmix-*/_build/sub/test-suite.log; do [ -f "$f" ] && tail -n 200 "$f"; done
    exit 1
}
cd "$top"

step "RPMs: rpmbuild -ta of the release tarball, file lists against make install"
sh "$top/test/dist/rpm_build.sh" "$root/normal"

step "integration job under valgrind"
cd "$root/normal"
sh "$top/test/valgrind.sh" "$root/normal"

step "install and exported symbols"
make -s install >/dev/null
lib="$root/normal/_inst/lib/spmix/libpmix.so.2"
test -e "$lib" || { echo "missing $lib"; exit 1; }
soname=$(objdump -p "$lib" | awk '/SONAME/{print $2}')
[ "$soname" = "libpmix.so.2" ] || { echo "bad SONAME $soname"; exit 1; }
# besides PMIx_* only the data symbol pmix_framework_names (Open MPI 5 binds it)
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^PMIx_' | grep -vx pmix_framework_names || true)
[ -z "$bad" ] || { echo "non-PMIx exported symbols:"; echo "$bad"; exit 1; }
n=$(nm -D --defined-only "$lib" | awk '$2=="T"{print $3}' | grep -c '^PMIx_')
echo "libpmix.so.2: SONAME ok, $n PMIx_* functions and pmix_framework_names exported, nothing else"
# the installed library against the PMIx v4 (OpenPMIx 4.2.2) and v5 (5.0.7) lists
SPX_LIBDIR=$(dirname "$lib") SPX_TOP_SRCDIR="$top" sh "$top/test/abi/exports.sh"

step "PMIx v4 inline helpers against the installed headers (pkg-config; C, C99 -pedantic, C++)"
sh "$top/scripts/check-installed-headers.sh" "$root/normal/_inst"

step "unchanged Open MPI and mpi4py programs under the installed spmix-run"
sh "$top/test/openmpi_run.sh" "$root/normal/_inst"

# a cluster test that hangs fails its stage after 15 minutes (the whole
# suite takes about 11) instead of holding CI until its own limit
vc() { timeout -k 30 900 flock /tmp/spmix-vc.lock bash "$@"; }

if [ "${SPX_SKIP_SLURM:-0}" != 1 ]; then
    # whatever way a stage ends, no cluster daemons outlive the suite
    trap 'bash "$top/test/slurm/cluster.sh" down >/dev/null 2>&1 || true' EXIT
    step "Slurm: mpi_spmix on a 3-node virtual cluster"
    sroot=/opt/spmix-ci
    rm -rf "$sroot" && mkdir -p "$sroot/build" && chmod 755 "$sroot" "$sroot/build"
    cd "$sroot/build"
    "$top/configure" -q --enable-werror --enable-python --prefix="$sroot/inst"
    make -s -j"$jobs" >/dev/null
    vc "$top/test/slurm/test_plugin.sh" --build "$sroot/build"
    step "Slurm: the tree's width follows slurm.conf's TreeWidth; mpi.conf's SpmixTreeWidth overrides it"
    vc "$top/test/slurm/test_treewidth.sh" --build "$sroot/build"
    step "Slurm: PMIx groups (it_group, it_grpinvite, it_grpfault, python3-pmix) on 3 nodes x 2"
    vc "$top/test/slurm/test_groups.sh" --build "$sroot/build"
    step "Slurm: heterogeneous steps (srun A : B, sbatch hetjob) as one namespace; --multi-prog applications"
    vc "$top/test/slurm/test_hetjob.sh" --build "$sroot/build"
    step "Slurm: tools reach every node's server; srun's stdin unchanged; opt-in stdin fed by tools (SPMIX_STDIN=tool, SpmixStdinTool=yes)"
    vc "$top/test/slurm/test_iof.sh" --build "$sroot/build"
    step "Slurm: a tool on the login node (the host) reaches a step over its tree port, authenticated by munge; other users and hostile bytes refused"
    vc "$top/test/slurm/test_remote_tool.sh" --build "$sroot/build"
    step "Slurm: tree links and abort reports proven by munge; forged, misbound, captured, replayed and other users' credentials refused; munged unreachable fails the step at start"
    vc "$top/test/slurm/test_munge.sh" --build "$sroot/build"
    step "Slurm: unchanged Open MPI, mpi4py and MPICH (PMI-1 over PMI_FD) programs under mpi_spmix (1x2, 3x2, 4x4); both MPIs in one sbatch job"
    vc "$top/test/slurm/test_openmpi.sh" --build "$sroot/build"
    vc "$top/test/slurm/test_mpich.sh" --build "$sroot/build"
    step "Slurm: our pmix Python module: the spec's Python examples verbatim, mpi4py and the module in one process"
    vc "$top/test/slurm/test_python.sh" --build "$sroot/build"
    step "Slurm: the drop-in build (--enable-pmix-typename) answers srun --mpi=pmix"
    mkdir -p "$sroot/dropin" && chmod 755 "$sroot/dropin" && cd "$sroot/dropin"
    "$top/configure" -q --enable-werror --enable-pmix-typename --disable-tests --prefix="$sroot/dropin-inst"
    make -s -j"$jobs" >/dev/null
    vc "$top/test/slurm/test_dropin.sh" --build "$sroot/dropin"
    cd "$top"
    rm -rf "$sroot"
fi

if [ "${SPX_SKIP_SLURM:-0}" != 1 ] && [ "${SPX_SKIP_CHROOTS:-0}" != 1 ]; then
    for suite in trixie forky; do
        trap 'bash "$top/test/slurm/chroot_suite.sh" $suite --cleanup >/dev/null 2>&1 || true' EXIT
        step "Slurm: $suite chroot ($(case $suite in trixie) echo "Debian 13, Slurm 24.11" ;; *) echo "Debian forky, Slurm 26.05" ;; esac)): mpi_spmix and the drop-in mpi/pmix on 3 nodes"
        t0=$(date +%s)
        # the Open MPI matrix: Open MPI 5 (trixie) under mpi/spmix, Open MPI 6
        # (forky, no mpi/pmix of Slurm's own) under the drop-in mpi/pmix
        tests="test_plugin.sh test_treewidth.sh test_groups.sh test_iof.sh" dtests=test_dropin.sh
        case $suite in
            trixie) tests="$tests test_openmpi.sh" ;;
            forky) dtests="$dtests test_openmpi.sh" ;;
        esac
        vc "$top/test/slurm/chroot_suite.sh" $suite --root "/opt/spmix-ci-$suite" \
            --tests "$tests" --dropin-tests "$dtests"
        echo "stage $suite: $(($(date +%s) - t0)) s"
        rm -rf "/opt/spmix-ci-$suite"
        trap - EXIT
    done
fi

printf '\nAll test stages passed.\n'
