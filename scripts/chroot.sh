#!/bin/bash
# chroot.sh - Debian 13 (trixie, Slurm 24.11) and Debian forky (Slurm 26.05)
# chroots on this Debian 12 machine, for building and testing spmix against
# newer Slurm releases (test/slurm/README.md, "Other Slurm releases").
#
#   chroot.sh SUITE build            build the chroot once (debootstrap + the
#                                    packages below), or top up its packages
#   chroot.sh SUITE path             print the chroot's directory
#   chroot.sh SUITE up [--bind P]... mount proc, sys, dev, dev/pts, a tmpfs on
#                                    dev/shm and run, and each P at the same path
#   chroot.sh SUITE down             unmount everything under the chroot
#   chroot.sh SUITE exec [--bind P]... [--] CMD...
#                                    run CMD inside (mounted for the call and
#                                    unmounted after, unless it was up already)
#   chroot.sh SUITE destroy          remove the chroot
#
# SUITE is trixie or forky. The chroots are kept in $SPMIX_CHROOT_DIR
# (default /var/cache/spmix-chroots/SUITE) and reused: a cold build takes about
# 2-3 minutes and 1.2 GB each; a warm one only checks the package list.
# The Debian mirror is the one apt already uses, read at run time from
# /etc/apt/sources.list.d/debian.sources; it is written into the chroot's apt
# sources only while apt runs there, and apt's lists are removed afterwards.
set -eu

PROG=chroot.sh
SOURCES=/etc/apt/sources.list.d/debian.sources
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# what the tests need inside: Slurm's daemons, client and headers, munge, Open
# MPI, OpenPMIx's headers, and what scripts/install-deps.sh installs to build
PKGS="slurmd slurmctld slurm-client libslurm-dev munge libmunge-dev
openmpi-bin libopenmpi-dev libpmix-dev python3-mpi4py python3-pmix
build-essential pkg-config autoconf automake libtool libevent-dev libhwloc-dev
nettle-dev check python3 procps iproute2 util-linux bc"

die() { echo "$PROG: error: $*" >&2; exit 1; }
say() { echo "$PROG: $*"; }

[ "$(id -u)" = 0 ] || die "must run as root"
SUITE=${1:-}
CMD=${2:-}
case $SUITE in
    trixie|forky) ;;
    *) echo "usage: $PROG trixie|forky build|path|up|down|exec|destroy ..." >&2; exit 2 ;;
esac
shift 2 || true
DIR=${SPMIX_CHROOT_DIR:-/var/cache/spmix-chroots/$SUITE}
STAMP=$DIR/.spmix-chroot       # the package list of a finished build

# mirror_uri: the first URI of the Debian (not security) archive apt uses here
mirror_uri() {
    local u
    u=$(awk '$1 == "URIs:" { print $2 }' "$SOURCES" 2>/dev/null | grep -v -- '-security' | head -n 1)
    [ -n "$u" ] || die "no Debian mirror URI in $SOURCES"
    echo "$u"
}

# --- mounts ------------------------------------------------------------------

# our_mounts: mount points at or under $DIR, deepest first
our_mounts() {
    awk -v d="$DIR" '{ p = $5; gsub(/\\040/, " ", p); if (p == d || index(p, d "/") == 1) print p }' \
        /proc/self/mountinfo | awk '{ print length($0), $0 }' | sort -rn | cut -d' ' -f2-
}

is_up() { [ -n "$(our_mounts)" ]; }

do_up() {
    local p
    [ -f "$DIR/.spmix-base" ] || die "no chroot in $DIR: run '$PROG $SUITE build' first"
    is_up && die "already up (run '$PROG $SUITE down' first)"
    # a failure half-way unmounts what was mounted
    trap 'do_down >/dev/null 2>&1' EXIT
    # the root a mount point of its own: iproute2 (ip -n) remounts / inside
    mount --bind "$DIR" "$DIR"
    mount --make-private "$DIR"
    mount -t proc proc "$DIR/proc"
    mount --rbind /sys "$DIR/sys"
    mount --make-rslave "$DIR/sys"      # never propagate our unmount to the host
    mount --bind /dev "$DIR/dev"
    mount --make-slave "$DIR/dev"
    mount -t devpts -o newinstance,ptmxmode=0666 devpts "$DIR/dev/pts" 2>/dev/null ||
        mount --bind /dev/pts "$DIR/dev/pts"
    mount -t tmpfs -o mode=1777 tmpfs "$DIR/dev/shm"
    mount -t tmpfs -o mode=755 tmpfs "$DIR/run"
    # this host's name must resolve inside (srun's host, for slurmctld)
    printf '127.0.0.1 localhost\n127.0.1.1 %s\n' "$(hostname)" >"$DIR/etc/hosts"
    for p in "${BINDS[@]}"; do
        [ -d "$p" ] || die "--bind $p: not a directory"
        mkdir -p "$DIR$p"
        mount --bind "$p" "$DIR$p"
        mount --make-private "$DIR$p"
    done
    trap - EXIT
}

do_down() {
    local m rc=0
    while read -r m; do
        [ -n "$m" ] || continue
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || { echo "$PROG: cannot unmount $m" >&2; rc=1; }
    done < <(our_mounts)
    return $rc
}

# --- build ---------------------------------------------------------------------

# in_chroot CMD...: run CMD inside (no daemons may start: policy-rc.d)
in_chroot() {
    chroot "$DIR" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@"
}

# apt_sources_on / apt_sources_off: the mirror is named inside only while apt
# runs; name resolution from the host's files (bind-mounted, never copied)
apt_sources_on() {
    local uri
    uri=$(mirror_uri)
    mkdir -p "$DIR/etc/apt/apt.conf.d"
    {
        echo "deb $uri $SUITE main"
        [ "$SUITE" = forky ] || echo "deb $uri $SUITE-updates main"
    } >"$DIR/etc/apt/sources.list"
    # forky's Release file on a snapshot mirror may be past its Valid-Until
    echo 'Acquire::Check-Valid-Until "false";' >"$DIR/etc/apt/apt.conf.d/99spmix-valid"
    touch "$DIR/etc/resolv.conf" "$DIR/etc/hosts"
    mount --bind /etc/resolv.conf "$DIR/etc/resolv.conf"
    mount --bind /etc/hosts "$DIR/etc/hosts"
}

apt_sources_off() {
    umount "$DIR/etc/resolv.conf" 2>/dev/null || true
    umount "$DIR/etc/hosts" 2>/dev/null || true
    rm -f "$DIR/etc/apt/sources.list"
    rm -rf "$DIR/var/lib/apt/lists/"* "$DIR/var/cache/apt/"*.bin
    in_chroot apt-get clean 2>/dev/null || true
}

# install PKGS inside (apt-get update first); the chroot must be up
install_pkgs() {
    apt_sources_on
    trap 'apt_sources_off; do_down >/dev/null 2>&1' EXIT
    # shellcheck disable=SC2086
    in_chroot apt-get update -qq &&
        in_chroot apt-get install -y -qq --no-install-recommends $PKGS >"$DIR.apt.log" 2>&1 ||
        { tail -n 30 "$DIR.apt.log" >&2; die "apt-get install failed inside the $SUITE chroot"; }
    rm -f "$DIR.apt.log"
    apt_sources_off
    trap 'do_down >/dev/null 2>&1' EXIT
}

do_build() {
    local t0 uri script="" want
    t0=$(date +%s)
    want=$(echo $PKGS)
    if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
        say "$SUITE chroot in $DIR is ready (cached)"
        return 0
    fi
    is_up && die "the chroot is mounted (run '$PROG $SUITE down' first)"
    command -v debootstrap >/dev/null || {
        say "installing debootstrap"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } ||
            die "cannot install debootstrap"
    }
    if [ ! -f "$DIR/.spmix-base" ]; then
        uri=$(mirror_uri)
        rm -rf -- "$DIR"
        mkdir -p "$(dirname "$DIR")"
        # Debian 12's debootstrap has no script for forky: sid's fits
        [ -f "/usr/share/debootstrap/scripts/$SUITE" ] || script=/usr/share/debootstrap/scripts/sid
        say "debootstrap $SUITE into $DIR"
        # shellcheck disable=SC2086
        debootstrap --variant=minbase --keyring="$KEYRING" "$SUITE" "$DIR" "$uri" $script \
            >"$DIR.debootstrap.log" 2>&1 ||
            { tail -n 30 "$DIR.debootstrap.log" >&2; die "debootstrap $SUITE failed (log: $DIR.debootstrap.log)"; }
        rm -f "$DIR.debootstrap.log"
        # what names the mirror goes: apt's sources return only while apt runs
        rm -f "$DIR/etc/apt/sources.list" "$DIR/var/log/bootstrap.log"
        printf '#!/bin/sh\n# spmix chroot: no daemons from packages\nexit 101\n' >"$DIR/usr/sbin/policy-rc.d"
        chmod 755 "$DIR/usr/sbin/policy-rc.d"
        touch "$DIR/.spmix-base"
    fi
    BINDS=()
    do_up
    trap 'do_down >/dev/null 2>&1' EXIT
    say "installing the packages inside"
    install_pkgs
    do_down
    trap - EXIT
    echo "$want" >"$STAMP"
    say "$SUITE chroot ready in $DIR: $(($(date +%s) - t0)) s, $(du -sh "$DIR" 2>/dev/null | cut -f1)"
}

do_exec() {
    local was_up=0 rc=0
    is_up && was_up=1
    if [ $was_up = 0 ]; then
        do_up
        trap 'do_down >/dev/null 2>&1' EXIT
    fi
    [ $# -gt 0 ] || die "exec: no command"
    # the caller's LD_* and the like must not reach inside
    chroot "$DIR" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LC_ALL=C.UTF-8 TERM="${TERM:-dumb}" "${PASSENV[@]}" "$@" </dev/stdin || rc=$?
    if [ $was_up = 0 ]; then do_down || true; trap - EXIT; fi
    return $rc
}

BINDS=()
PASSENV=()
parse_opts() {
    while [ $# -gt 0 ]; do
        case $1 in
            --bind) BINDS+=("$(cd "${2:?}" && pwd)"); shift 2 ;;
            --env) PASSENV+=("${2:?}"); shift 2 ;;
            --) shift; break ;;
            *) break ;;
        esac
    done
    ARGS=("$@")
}

case $CMD in
    build) do_build ;;
    path) echo "$DIR" ;;
    up) parse_opts "$@"; do_up ;;
    down) do_down ;;
    exec) parse_opts "$@"; do_exec "${ARGS[@]}" ;;
    destroy) is_up && do_down; rm -rf -- "$DIR" ;;
    *) echo "usage: $PROG trixie|forky build|path|up|down|exec|destroy ..." >&2; exit 2 ;;
esac
