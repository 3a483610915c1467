#!/bin/sh
# Installs the Debian 12 packages spmix needs to build, test and demo.
# Idempotent; runs apt-get update only when a package is missing.
set -e
PKGS="build-essential autoconf automake libtool pkg-config libevent-dev libhwloc-dev check
libpmix-dev clang libclang-rt-14-dev valgrind python3 libslurm-dev"
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
