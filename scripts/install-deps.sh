#!/bin/sh
# Installs the Debian 12 packages spmix needs to build, test and demo:
# the build tools and libraries, the test tools, OpenPMIx's headers (ABI
# cross-check, demo), Slurm's headers (the plugin), libmunge's and munge
# (tools on hosts without a server of a step authenticate with munge),
# Open MPI with mpi4py
# (the demo's and CI's unchanged Open MPI / mpi4py programs, which would
# otherwise be skipped) and OpenPMIx's Python binding python3-pmix (a group
# built from Python on our library, test/python/grp_invite.sh, skipped
# without it), and mandoc (make check lints the man pages with it besides
# groff). The virtual Slurm cluster's daemons are installed by
# test/slurm/cluster.sh when it first brings a cluster up.
# Idempotent; runs apt-get update only when a package is missing.
set -e
PKGS="build-essential autoconf automake libtool pkg-config libevent-dev libhwloc-dev nettle-dev check
libpmix-dev clang libclang-rt-14-dev valgrind python3 libslurm-dev libmunge-dev munge
openmpi-bin libopenmpi-dev python3-mpi4py python3-pmix mpich libmpich-dev python3-dev mandoc"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing >/dev/null
fi
echo "install-deps: all build and test packages present"
