#!/bin/bash
# cluster.sh - a virtual multi-node Slurm 22.05 cluster on this one machine.
#
# Each node vnK is a network namespace (veth on a private bridge, no default
# route) plus its own UTS and mount namespace, running one slurmd.  munged and
# slurmctld run in the root network namespace on the bridge address.  Every
# file lives in one state directory ($SPMIX_VC_DIR, default /run/spmix-vc);
# every process we start is recorded there (pid + start time) so that `down`
# stops exactly those, then whatever still runs inside our namespaces.
#
#   cluster.sh up [-n NODES] [--plugin-dir DIR] [--cpus N] [--debug LEVEL]
#                 [--extra-conf FILE]
#   cluster.sh down | status | reconfigure | env | logs [LINES]
#   cluster.sh exec NODE CMD...      (run CMD inside node NODE)
#
# Tests then do:  . "$(cluster.sh env)"  and use srun/sbatch as usual.
#
# Inside a chroot of another Debian release (scripts/chroot.sh: Slurm 24.11,
# 26.05) the same script runs unchanged: its daemons, namespaces and state
# are then the chroot's. A second cluster needs its own SPMIX_VC_NET,
# SPMIX_VC_PFX (names of namespaces and links, up to 7 characters) and ports.
set -eu

PROG=cluster.sh
STATE=${SPMIX_VC_DIR:-/run/spmix-vc}
NET=${SPMIX_VC_NET:-10.77.0}            # a /24; .1 = bridge, .(10+K) = vnK
CTLD_PORT=${SPMIX_VC_CTLD_PORT:-16817}
SLURMD_PORT=${SPMIX_VC_SLURMD_PORT:-16818}
TIMEOUT=${SPMIX_VC_TIMEOUT:-30}         # seconds to wait for the nodes
VC_USER=${SPMIX_VC_USER:-spmixuser}
PFX=${SPMIX_VC_PFX:-spmixvc}            # prefix of our namespaces and links
BRIDGE=$PFX-br0
CTL_NAME=vc-ctl
PARTITION=vc
PKGS="slurmctld slurmd slurm-client libslurm-dev munge libpmix-dev openmpi-bin
libopenmpi-dev python3-mpi4py iproute2"

die() { echo "$PROG: error: $*" >&2; exit 1; }
say() { echo "$PROG: $*"; }
vlog() { [ "${SPMIX_VC_VERBOSE:-0}" = 0 ] || echo "$PROG: [$EPOCHREALTIME] $*" >&2; }

[ "$(id -u)" = 0 ] || die "must run as root"
case $PFX in ""|*[!a-z0-9]*|????????*) die "SPMIX_VC_PFX must be 1-7 of a-z0-9" ;; esac

# --- processes: pid + start time ------------------------------------------
# (bash builtins only in these helpers: forks are slow on small VMs)

# proc_stat PID: set STAT_STATE and STAT_SID and STAT_START from
# /proc/PID/stat (state, session, start time); fails if PID is gone
proc_stat() {
    local s
    { read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
    s=${s##*) }                 # drop "pid (comm) ", comm may hold spaces
    set -f
    # shellcheck disable=SC2086
    set -- $s
    set +f
    STAT_STATE=$1 STAT_SID=$4 STAT_START=${20}
}

# proc_alive PID STARTTIME: true if PID is that very process and not a zombie.
proc_alive() {
    proc_stat "$1" || return 1
    [ "$STAT_START" = "$2" ] && [ "$STAT_STATE" != Z ] && [ "$STAT_STATE" != X ]
}

# proc_exists PID STARTTIME: true while that process has a /proc entry, even
# as a zombie waiting for a (slow) init to reap it
proc_exists() {
    proc_stat "$1" && [ "$STAT_START" = "$2" ]
}

# start_proc NAME LOG CMD...: start CMD detached (own session, no inherited
# lock fd) and record "NAME PID STARTTIME" in $STATE/procs.
start_proc() {
    local name=$1 log=$2 pid
    shift 2
    (
        # a daemon must not hold the caller's files open, above all the
        # cluster lock taken by `flock /tmp/spmix-vc.lock` (fd 3 in flock(1)'s
        # command form): a kept cluster would hold the lock until `down`
        for fd in /proc/$BASHPID/fd/*; do
            fd=${fd##*/}
            [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
        done
        exec setsid "$@" </dev/null >>"$log" 2>&1
    ) &
    pid=$!
    proc_stat "$pid" || die "$name exited at once (see $log)"
    echo "$name $pid $STAT_START" >>"$STATE/procs"
}

# signal the recorded processes whose name matches the glob $1
signal_recorded() {
    local glob=$1 sig=$2 name pid st
    [ -f "$STATE/procs" ] || return 0
    while read -r name pid st; do
        # shellcheck disable=SC2254
        case $name in $glob)
            if proc_alive "$pid" "$st"; then
                kill "-$sig" "$pid" 2>/dev/null || true
                SIGNALLED="$SIGNALLED $pid:$st"
            fi ;;
        esac
    done <"$STATE/procs"
}

# wait until no recorded process matching $1 is alive; $2 = tenths of seconds
wait_recorded() {
    local glob=$1 n=$2 name pid st left
    [ -f "$STATE/procs" ] || return 0
    while :; do
        left=0
        while read -r name pid st; do
            # shellcheck disable=SC2254
            case $name in $glob) if proc_alive "$pid" "$st"; then left=1; fi ;; esac
        done <"$STATE/procs"
        [ $left = 0 ] && return 0
        [ "$n" -le 0 ] && return 1
        n=$((n - 1)); sleep 0.1
    done
}

# session_members GLOB: sets MEMBERS to "pid:starttime ..." of the other
# processes in the sessions of the recorded daemons matching GLOB (e.g.
# slurmctld's slurmscriptd), also when the daemon itself already died: a
# member has the daemon's pid as session id and started after it.  A daemon
# pid now used by another process is skipped.
session_members() {
    local glob=$1 name pid st leaders="" d p l
    MEMBERS=""
    [ -f "$STATE/procs" ] || return 0
    while read -r name pid st; do
        # shellcheck disable=SC2254
        case $name in $glob) ;; *) continue ;; esac
        if proc_stat "$pid" && [ "$STAT_START" != "$st" ]; then continue; fi
        leaders="$leaders $pid:$st"
    done <"$STATE/procs"
    [ -n "$leaders" ] || return 0
    for d in /proc/[0-9]*; do
        p=${d#/proc/}
        proc_stat "$p" || continue
        for l in $leaders; do
            if [ "$STAT_SID" = "${l%:*}" ] && [ "$p" != "${l%:*}" ] && [ "$STAT_START" -ge "${l#*:}" ]; then
                MEMBERS="$MEMBERS $p:$STAT_START"
            fi
        done
    done
    return 0
}

# stop_recorded GLOB: TERM (then KILL) the recorded daemons matching GLOB and
# the rest of their sessions; fails if something survives
stop_recorded() {
    local glob=$1 m n=30 left
    session_members "$glob"
    SIGNALLED="$SIGNALLED $MEMBERS"
    signal_recorded "$glob" TERM
    if ! wait_recorded "$glob" 50; then
        signal_recorded "$glob" KILL
        wait_recorded "$glob" 20 || return 1
    fi
    while :; do
        left=0
        for m in $MEMBERS; do
            proc_alive "${m%:*}" "${m#*:}" || continue
            left=1
            if [ $n = 30 ]; then kill -TERM "${m%:*}" 2>/dev/null || true
            elif [ $n -le 0 ]; then kill -KILL "${m%:*}" 2>/dev/null || true; fi
        done
        [ $left = 0 ] && return 0
        [ $n -le -30 ] && return 1
        n=$((n - 1)); sleep 0.1
    done
}

# --- namespaces ------------------------------------------------------------

our_netns() {   # our existing network namespaces (by their prefix)
    local f
    for f in /run/netns/"$PFX"-vn*; do [ -e "$f" ] && echo "${f#/run/netns/}"; done
    return 0
}

our_links() {   # our links in the root namespace (bridge, host ends of veths)
    local f
    for f in /sys/class/net/"$PFX"-*; do [ -e "$f" ] && echo "${f#/sys/class/net/}"; done
    return 0
}

# signal_netns SIG: send SIG to every process inside one of our namespaces;
# sets LEFT to the pids found.  Each pid is matched against the namespace
# (same nsfs inode, `-ef`) right before it is signalled, so a pid reused in
# the meantime is never hit.
signal_netns() {
    local sig=$1 d p ns
    LEFT=""
    for d in /proc/[0-9]*; do
        p=${d#/proc/}
        for ns in /run/netns/"$PFX"-vn*; do
            if [ "$d/ns/net" -ef "$ns" ]; then
                LEFT="$LEFT $p"
                if [ "$sig" != 0 ] && proc_stat "$p"; then
                    kill "-$sig" "$p" 2>/dev/null || true
                    SIGNALLED="$SIGNALLED $p:$STAT_START"
                fi
                break
            fi
        done
    done
}

kill_netns_procs() {   # TERM, then KILL, everything left in our namespaces
    local n=10     # slurmstepd ignores SIGTERM: KILL after a second
    [ -n "$(our_netns)" ] || return 0
    signal_netns TERM
    while [ -n "$LEFT" ]; do
        sleep 0.1
        n=$((n - 1))
        if [ $n -le 0 ]; then signal_netns KILL; else signal_netns 0; fi
        [ $n -le -50 ] && { echo "$PROG: warning: processes still in namespaces:$LEFT" >&2; return 1; }
    done
    return 0
}

# --- down ------------------------------------------------------------------

do_down() {
    local ns l m n rc=0
    SIGNALLED=""
    # nodes first (their jobs die with the namespaces), then the controller,
    # munged last so the others can still authenticate while stopping
    vlog "down: stopping slurmctld"
    stop_recorded slurmctld || rc=1
    vlog "down: stopping slurmd"
    stop_recorded 'slurmd-*' || rc=1
    vlog "down: stopping what is left in the namespaces"
    kill_netns_procs || rc=1
    vlog "down: stopping munged"
    stop_recorded munged || rc=1
    vlog "down: waiting for the reaping"
    # wait until init has reaped them too (zombies linger ~1 s under a slow init)
    for m in $SIGNALLED; do
        n=50
        while proc_exists "${m%:*}" "${m#*:}" && [ $n -gt 0 ]; do n=$((n - 1)); sleep 0.1; done
    done

    vlog "down: removing namespaces and links"
    for ns in $(our_netns); do ip netns del "$ns" 2>/dev/null || true; done
    for l in $(our_links); do ip link del "$l" 2>/dev/null || true; done
    # ip netns add made /run/netns a mount point; undo that if we caused it
    if [ -f "$STATE/netns-dir-created" ] && [ -d /run/netns ] && [ -z "$(ls -A /run/netns)" ]; then
        umount /run/netns 2>/dev/null || true
        rmdir /run/netns 2>/dev/null || true
    fi
    if [ -n "$(our_netns)$(our_links)" ]; then
        echo "$PROG: warning: namespaces or links left:" "$(our_netns)" "$(our_links)" >&2; rc=1
    fi
    vlog "down: done"
    if [ $rc = 0 ]; then
        case $STATE in /?*) rm -rf -- "$STATE" ;; esac
    else
        echo "$PROG: warning: kept $STATE (something did not stop)" >&2
    fi
    return $rc
}

# --- up --------------------------------------------------------------------

install_packages() {
    local p installed missing="" made_policy=0
    # shellcheck disable=SC2086
    installed=" $(dpkg-query -W -f='${Package}:${Status} ' $PKGS 2>/dev/null || true)"
    for p in $PKGS; do
        case $installed in *" $p:install ok installed "*) ;; *) missing="$missing $p" ;; esac
    done
    [ -z "$missing" ] && return 0
    say "installing$missing"
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\n# added by spmix test/slurm/cluster.sh: no daemons from packages\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        made_policy=1
    fi
    # shellcheck disable=SC2086
    if ! (export DEBIAN_FRONTEND=noninteractive
          apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null); then
        [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
        die "apt-get install failed for:$missing"
    fi
    [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
    return 0
}

ensure_user() {
    if ! id "$VC_USER" >/dev/null 2>&1; then
        useradd --create-home --shell /bin/bash --user-group "$VC_USER" || die "cannot create user $VC_USER"
    fi
    local home
    home=$(getent passwd "$VC_USER" | cut -d: -f6)
    [ -d "$home" ] || { mkdir -p "$home"; chown "$VC_USER:" "$home"; }
    chmod 755 "$home"
}

debian_plugin_dir() {
    local d
    for d in /usr/lib/*/slurm-wlm /usr/lib/slurm-wlm /usr/lib/slurm; do
        [ -f "$d/auth_munge.so" ] && { echo "$d"; return 0; }
    done
    die "Slurm plugin directory (with auth_munge.so) not found"
}

write_conf() {
    local n=$1 plugindir=$2 cpus=$3 debug=$4 extra=$5 last
    last=$((10 + n))
    cat >"$STATE/slurm.conf" <<EOF
# generated by spmix test/slurm/cluster.sh - virtual cluster of $n nodes
ClusterName=spmixvc
SlurmctldHost=$CTL_NAME($NET.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$STATE/munge/munge.socket
PluginDir=$plugindir
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
PropagateResourceLimits=NONE
MailProg=/bin/true
InactiveLimit=0
KillWait=5
MinJobAge=5
MessageTimeout=10
SlurmdTimeout=60
StateSaveLocation=$STATE/ctld
SlurmctldPidFile=$STATE/ctld/slurmctld.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmctldDebug=$debug
SlurmdSpoolDir=$STATE/nodes/%n/spool
TmpFS=$STATE/nodes/%n/tmp
SlurmdPidFile=$STATE/nodes/%n/slurmd.pid
SlurmdLogFile=$STATE/log/slurmd-%n.log
SlurmdDebug=$debug
PlugStackConfig=$STATE/plugstack.conf
NodeName=vn[1-$n] NodeHostname=vn[1-$n] NodeAddr=$NET.[11-$last] CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 State=UNKNOWN
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    if [ -n "$extra" ]; then
        { echo "# from $extra"; cat "$extra"; } >>"$STATE/slurm.conf"
    fi
    chmod 644 "$STATE/slurm.conf"
    # spmix's SPANK plugin (srun --spmix-stdin) when the plugin directory has
    # it: the shipped slurm-conf-examples/plugstack.conf as it is (its relative
    # name is looked up in PluginDir)
    local d ex
    ex=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/slurm-conf-examples/plugstack.conf
    echo "# generated by spmix test/slurm/cluster.sh" >"$STATE/plugstack.conf"
    for d in ${plugindir//:/ }; do
        if [ -f "$d/spank_spmix.so" ]; then
            cat "$ex" >>"$STATE/plugstack.conf" || die "cannot read $ex"
            break
        fi
    done
    chmod 644 "$STATE/plugstack.conf"
}

write_env() {
    local n=$1 plugindir=$2 home
    home=$(getent passwd "$VC_USER" | cut -d: -f6)
    cat >"$STATE/env.sh" <<EOF
# source me: environment of the spmix virtual Slurm cluster
export SLURM_CONF=$STATE/slurm.conf
export SPMIX_VC_DIR=$STATE
export SPMIX_VC_NET=$NET
export SPMIX_VC_NODES=$n
export SPMIX_VC_NODELIST='vn[1-$n]'
export SPMIX_VC_PARTITION=$PARTITION
export SPMIX_VC_PLUGIN_DIR='$plugindir'
export SPMIX_VC_USER=$VC_USER
export SPMIX_VC_USER_HOME=$home
export SPMIX_VC_MUNGE_SOCKET=$STATE/munge/munge.socket
# Debian's python3 (has mpi4py); the first python3 in PATH may be another one
export SPMIX_VC_PYTHON=/usr/bin/python3
EOF
    # Debian forky's Open MPI 6 package restricts its TCP transport to the
    # loopback (btl_tcp_if_include=lo in /etc/openmpi/openmpi-mca-params.conf):
    # ranks on different nodes then cannot reach each other and hang or abort,
    # under any launcher (mpirun too). Our nodes' network is this /24. Its
    # configuration also no longer excludes the libfabric transport (Debian 12
    # and 13 say btl = ^uct,openib,ofi), whose probe adds 1.1 s to every
    # MPI_Init on these fabric-less nodes.
    local mca=/etc/openmpi/openmpi-mca-params.conf
    if grep -Eq '^[[:space:]]*btl_tcp_if_include[[:space:]]*=' "$mca" 2>/dev/null; then
        echo "export OMPI_MCA_btl_tcp_if_include=$NET.0/24" >>"$STATE/env.sh"
    fi
    if [ -f "$mca" ] && ! grep -Eq '^[[:space:]]*btl[[:space:]]*=' "$mca"; then
        echo "export OMPI_MCA_btl=^ofi" >>"$STATE/env.sh"
    fi
    chmod 644 "$STATE/env.sh"
}

# print the tail of every log, for a failure report
show_logs() {
    local f
    for f in "$STATE"/log/*; do
        [ -s "$f" ] || continue
        echo "----- $f (last ${1:-25} lines)"
        tail -n "${1:-25}" "$f"
    done >&2
}

# check_daemons: fail (with logs) if a recorded daemon died
check_daemons() {
    local name pid st
    while read -r name pid st; do
        proc_alive "$pid" "$st" || { echo "$PROG: error: $name (pid $pid) is not running" >&2; return 1; }
    done <"$STATE/procs"
}

# wait_nodes N ACCEPT-REGEX: until sinfo shows every node in an accepted state
wait_nodes() {
    local n=$1 ok=$2 t=$((TIMEOUT * 10)) out
    while :; do
        check_daemons || return 1
        out=$(sinfo -h -N -o '%N %t' 2>/dev/null || true)
        if [ "$(printf '%s\n' "$out" | grep -cE "^vn[0-9]+ ($ok)\$")" = "$n" ]; then
            return 0
        fi
        if [ $t -le 0 ]; then
            echo "$PROG: error: nodes not ready after ${TIMEOUT}s; sinfo says:" >&2
            printf '%s\n' "${out:-(no answer from slurmctld)}" >&2
            return 1
        fi
        t=$((t - 1)); sleep 0.1
    done
}

do_up() {
    local n=3 plugindir="" cpus=2 debug=info extra="" k ns ip dpd
    while [ $# -gt 0 ]; do
        case $1 in
            -n|--nodes) n=${2:?}; shift 2 ;;
            --plugin-dir) plugindir=${2:?}; shift 2 ;;
            --cpus) cpus=${2:?}; shift 2 ;;
            --debug) debug=${2:?}; shift 2 ;;
            --extra-conf) extra=${2:?}; shift 2 ;;
            *) die "up: unknown option '$1'" ;;
        esac
    done
    case $n in ''|*[!0-9]*) die "-n wants a number" ;; esac
    [ "$n" -ge 1 ] && [ "$n" -le 200 ] || die "-n must be 1..200"
    case $cpus in ''|*[!0-9]*|0) die "--cpus wants a positive number" ;; esac
    [ -z "$extra" ] || [ -r "$extra" ] || die "--extra-conf: cannot read $extra"

    # refuse to start twice; clear what a dead earlier run left behind
    if [ -f "$STATE/procs" ] && check_daemons 2>/dev/null; then
        die "cluster already up (state in $STATE); run '$PROG down' first"
    fi
    if [ -e "$STATE" ] || [ -n "$(our_netns)$(our_links)" ]; then
        say "cleaning up an earlier run"
        do_down || die "could not clean up the earlier run"
    fi
    # our subnet must be ours alone
    if ip -4 addr show | grep -q "inet $NET\." || ip -4 route show | grep -q "^$NET\."; then
        die "subnet $NET.0/24 already in use on this host (set SPMIX_VC_NET)"
    fi

    vlog "up: packages"
    install_packages
    vlog "up: user"
    ensure_user
    dpd=$(debian_plugin_dir)
    if [ -n "$plugindir" ]; then
        mkdir -p "$plugindir"
        plugindir=$(cd "$plugindir" && pwd)
        plugindir="$plugindir:$dpd"
    else
        plugindir=$dpd
    fi

    # from here on, a failure tears down what was built (unless asked not to)
    trap 'rc=$?; if [ $rc != 0 ]; then show_logs; if [ "${SPMIX_VC_KEEP_ON_FAIL:-0}" = 1 ]; then echo "$PROG: kept the half-built cluster (SPMIX_VC_KEEP_ON_FAIL=1)" >&2; else echo "$PROG: tearing down" >&2; do_down || true; fi; fi' EXIT

    mkdir -p "$STATE"
    chmod 755 "$STATE"
    mkdir -p "$STATE/log" "$STATE/ctld" "$STATE/munge"
    chmod 700 "$STATE/ctld"
    chmod 755 "$STATE/log" "$STATE/munge"
    : >"$STATE/procs"
    [ -d /run/netns ] || touch "$STATE/netns-dir-created"

    vlog "up: munged"
    # munge: own key, socket, pid, seed, log
    mungekey --create --keyfile="$STATE/munge/munge.key" 2>/dev/null ||
        dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$STATE/munge/munge.key"
    start_proc munged "$STATE/log/munged.out" munged --foreground \
        --socket="$STATE/munge/munge.socket" --key-file="$STATE/munge/munge.key" \
        --pid-file="$STATE/munge/munged.pid" --seed-file="$STATE/munge/munged.seed" \
        --log-file="$STATE/log/munged.log"

    vlog "up: network"
    # network: bridge in the root namespace, one namespace + veth per node
    ip link add "$BRIDGE" type bridge
    ip addr add "$NET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    {
        echo "127.0.0.1 localhost"
        echo "$NET.1 $CTL_NAME"
        for k in $(seq 1 "$n"); do echo "$NET.$((10 + k)) vn$k"; done
    } >"$STATE/hosts"
    chmod 644 "$STATE/hosts"
    for k in $(seq 1 "$n"); do
        ns=$PFX-vn$k ip=$NET.$((10 + k))
        echo "$ns" >>"$STATE/netns"
        ip netns add "$ns"
        ip link add "$ns-h" type veth peer name "$ns-n"
        ip link set "$ns-h" master "$BRIDGE" up
        ip link set "$ns-n" netns "$ns"
        ip -n "$ns" link set "$ns-n" name eth0
        ip -n "$ns" addr add "$ip/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        mkdir -p "$STATE/nodes/vn$k/spool" "$STATE/nodes/vn$k/tmp"
        chmod 1777 "$STATE/nodes/vn$k/tmp"
    done

    vlog "up: config, waiting for munged"
    write_conf "$n" "$plugindir" "$cpus" "$debug" "$extra"
    write_env "$n" "$plugindir"
    export SLURM_CONF=$STATE/slurm.conf

    # munged must answer before the Slurm daemons start
    k=50
    until [ -S "$STATE/munge/munge.socket" ] && munge -n -S "$STATE/munge/munge.socket" </dev/null |
            unmunge -S "$STATE/munge/munge.socket" >/dev/null 2>&1; do
        check_daemons || exit 1
        [ $k -le 0 ] && die "munged does not answer on $STATE/munge/munge.socket"
        k=$((k - 1)); sleep 0.1
    done

    vlog "up: slurm daemons"
    # slurmd (and the slurmstepds it starts, with spmix's servers) learn our
    # munged socket from SPMIX_MUNGE_SOCKET: the servers check the munge
    # credentials of tools from other hosts (lib/tree/tool_auth.h)
    # slurmctld: own UTS namespace so its host name is the SlurmctldHost name
    start_proc slurmctld "$STATE/log/slurmctld.out" unshare --uts /bin/sh -c \
        "hostname $CTL_NAME && exec slurmctld -D -c -f '$SLURM_CONF'"
    for k in $(seq 1 "$n"); do
        start_proc "slurmd-vn$k" "$STATE/log/slurmd-vn$k.out" \
            unshare --mount --uts --propagation private nsenter --net="/run/netns/$PFX-vn$k" /bin/sh -c \
            "mount --bind '$STATE/hosts' /etc/hosts && hostname vn$k && export SPMIX_MUNGE_SOCKET='$STATE/munge/munge.socket' && exec slurmd -D -f '$SLURM_CONF' -N vn$k"
    done

    vlog "up: waiting for the nodes"
    wait_nodes "$n" idle || exit 1
    vlog "up: done"
    trap - EXIT
    say "up: $n nodes (vn[1-$n]) idle; PluginDir=$plugindir"
    say "environment: . $STATE/env.sh"
}

# --- status / reconfigure --------------------------------------------------

do_status() {
    local name pid st rc=0
    if [ ! -f "$STATE/procs" ]; then
        echo "cluster: down (no $STATE/procs)"
        [ -z "$(our_netns)" ] || { echo "leftover namespaces: $(our_netns)"; return 1; }
        return 3
    fi
    echo "cluster: state in $STATE; environment: . $STATE/env.sh"
    while read -r name pid st; do
        if proc_alive "$pid" "$st"; then echo "  $name pid $pid running"
        else echo "  $name pid $pid NOT running"; rc=1; fi
    done <"$STATE/procs"
    SLURM_CONF=$STATE/slurm.conf sinfo -N -o '%N %t %c %P' 2>&1 || rc=1
    return $rc
}

do_reconfigure() {
    [ -f "$STATE/procs" ] || die "cluster is not up"
    export SLURM_CONF=$STATE/slurm.conf
    check_daemons || { show_logs; die "a daemon is down; run down and up again"; }
    scontrol reconfigure || { show_logs; die "scontrol reconfigure failed"; }
    sleep 0.5
    wait_nodes "$(grep -c . "$STATE/netns")" 'idle|alloc|mix|comp' || { show_logs; exit 1; }
    say "reconfigured"
}

# exec NODE CMD...: run CMD inside node NODE (its network, UTS and mount
# namespaces, entered through its recorded slurmd)
do_exec() {
    local node=${1:-} name pid st
    [ -n "$node" ] && [ $# -ge 2 ] || die "usage: $PROG exec NODE CMD..."
    shift
    [ -f "$STATE/procs" ] || die "cluster is not up"
    local found=""
    while read -r name pid st; do
        if [ "$name" = "slurmd-$node" ]; then found="$pid $st"; break; fi
    done <"$STATE/procs"
    [ -n "$found" ] || die "no node $node"
    read -r pid st <<<"$found"
    proc_alive "$pid" "$st" || die "slurmd of $node is not running"
    # outside the loop: CMD's stdin is ours, not the procs file
    exec 9<&-
    # -r: its root, which is a chroot's when the cluster runs in one (the
    # mount namespace alone would give the host's root)
    exec nsenter -t "$pid" -n -u -m -r --wd="$PWD" "$@"
}

usage() {
    cat <<EOF
usage: $PROG up [-n NODES] [--plugin-dir DIR] [--cpus N] [--debug LEVEL] [--extra-conf FILE]
       $PROG down | status | reconfigure | env | logs [LINES] | exec NODE CMD...
state directory: $STATE (SPMIX_VC_DIR); see test/slurm/README.md
EOF
}

# one cluster operation at a time: lock this script file (no lock file left)
exec 9<"$0"
flock -w 120 9 || die "another $PROG is running"

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
    up) do_up "$@" ;;
    down) do_down ;;
    status) do_status ;;
    reconfigure) do_reconfigure ;;
    env) [ -f "$STATE/env.sh" ] || die "cluster is not up"; echo "$STATE/env.sh" ;;
    logs) show_logs "${1:-40}" 2>&1 ;;
    exec) do_exec "$@" ;;
    -h|--help|help) usage ;;
    *) usage >&2; exit 2 ;;
esac
