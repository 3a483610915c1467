#!/bin/bash
# smoke.sh - bring the virtual Slurm cluster up (3 nodes), check that it runs
# plain steps, batch jobs, jobs of an unprivileged user and Open MPI under
# Slurm's own mpi/pmix, then tear it down and check nothing is left.
#
#   smoke.sh [--plugin-dir DIR] [--keep]
#
# --plugin-dir is passed to `cluster.sh up`; if DIR holds mpi_spmix.so the
# test also expects `srun --mpi=list` to show spmix.  --keep leaves the
# cluster up afterwards.  Prints PASS/FAIL lines; exits 1 on any failure.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CLUSTER=$here/cluster.sh
plugindir="" keep=0
while [ $# -gt 0 ]; do
    case $1 in
        --plugin-dir) plugindir=${2:?}; shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "usage: smoke.sh [--plugin-dir DIR] [--keep]" >&2; exit 2 ;;
    esac
done

fails=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; shift; [ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/    /'; fails=$((fails + 1)); }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# run NAME CMD...: run a step with a time limit; output in $out, status in
# $rc, seconds taken in $dur
run() {
    local name=$1 ts
    shift
    rc=0 ts=$(now)
    out=$(timeout 60 "$@" 2>&1) || rc=$?
    dur=$(secs "$ts" "$(now)")
    [ $rc = 0 ] || { fail "$name (exit $rc after $dur s)" "$out"; return 1; }
}

work=""
teardown() {
    [ -n "$work" ] && rm -rf -- "$work"
    if [ $keep = 0 ]; then "$CLUSTER" down || fail "cluster.sh down"; fi
}

t0=$(now)
up_args=(-n 3)
[ -n "$plugindir" ] && up_args+=(--plugin-dir "$plugindir")
if ! "$CLUSTER" up "${up_args[@]}"; then
    fail "cluster.sh up"
    exit 1
fi
t1=$(now)
pass "cluster up, 3 nodes idle ($(secs "$t0" "$t1") s)"
trap teardown EXIT
# shellcheck disable=SC1090
. "$("$CLUSTER" env)"

# a scratch directory every node and the unprivileged user can read
work=$(mktemp -d /tmp/spmix-smoke.XXXXXX)
chmod 755 "$work"

# 1. a plain step over all nodes: 2 tasks on each
if run "srun -N3 -n6 hostname" srun -N3 -n6 hostname; then
    got=$(printf '%s\n' "$out" | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')
    if [ "$got" = "vn1=2 vn2=2 vn3=2 " ]; then pass "srun -N3 -n6 hostname ($got; $dur s)"
    else fail "srun -N3 -n6 hostname: wrong placement: $got" "$out"; fi
fi

# 2. the MPI plugin list
if run "srun --mpi=list" srun --mpi=list; then
    want="pmix none"
    [ -n "$plugindir" ] && [ -f "$plugindir/mpi_spmix.so" ] && want="$want spmix"
    missing=""
    for p in $want; do printf '%s\n' "$out" | grep -qw "$p" || missing="$missing $p"; done
    if [ -z "$missing" ]; then pass "srun --mpi=list shows: $want"
    else fail "srun --mpi=list lacks:$missing" "$out"; fi
fi

# 2b. the project's plugin, when given: a plain (non-MPI) step through it
if [ -n "$plugindir" ] && [ -f "$plugindir/mpi_spmix.so" ]; then
    if run "srun --mpi=spmix hostname" srun --mpi=spmix -N3 -n3 hostname; then
        got=$(printf '%s\n' "$out" | sort | tr '\n' ' ')
        if [ "$got" = "vn1 vn2 vn3 " ]; then pass "srun --mpi=spmix -N3 -n3 hostname ($dur s)"
        else fail "srun --mpi=spmix hostname: unexpected output" "$out"; fi
    fi
fi

# 3. a batch job whose script runs a step on every node
cat >"$work/job.sh" <<'EOF'
#!/bin/sh
srun hostname
EOF
if run "sbatch --wait" sbatch --wait -N3 -o "$work/job.out" "$work/job.sh"; then
    got=$(sort "$work/job.out" 2>/dev/null | tr '\n' ' ')
    if [ "$got" = "vn1 vn2 vn3 " ]; then pass "sbatch --wait job ran srun on vn1 vn2 vn3 ($dur s)"
    else fail "sbatch --wait: unexpected output: $got" "$out"; fi
fi

# 4. a step as the unprivileged user
if run "srun as $SPMIX_VC_USER" su -s /bin/sh "$SPMIX_VC_USER" -c \
        ". '$SPMIX_VC_DIR/env.sh' && cd && srun -N3 -n3 sh -c 'echo \$(id -un) \$(hostname)'"; then
    got=$(printf '%s\n' "$out" | sort | tr '\n' ' ')
    if [ "$got" = "$SPMIX_VC_USER vn1 $SPMIX_VC_USER vn2 $SPMIX_VC_USER vn3 " ]; then
        pass "srun as $SPMIX_VC_USER on 3 nodes ($dur s)"
    else fail "srun as $SPMIX_VC_USER: unexpected output" "$out"; fi
fi

# 5. Open MPI under Slurm's own mpi/pmix: 6 ranks on 3 nodes, one allreduce
cat >"$work/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    char host[256] = "?";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof(host) - 1);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d on %s sum %d\n", rank, size, host, sum);
    MPI_Finalize();
    return 0;
}
EOF
export OMPI_MCA_mpi_yield_when_idle=1
if run "mpicc.openmpi hello.c" mpicc.openmpi -o "$work/hello" "$work/hello.c"; then
    check_hello() {   # $1 = who
        local lines
        lines=$(printf '%s\n' "$out" | grep -c '^rank [0-5] of 6 on vn[1-3] sum 15$' || true)
        hosts=$(printf '%s\n' "$out" | awk '/^rank /{print $6}' | sort -u | tr '\n' ' ')
        if [ "$lines" = 6 ] && [ "$hosts" = "vn1 vn2 vn3 " ]; then
            pass "srun --mpi=pmix Open MPI hello, 6 ranks on $hosts($1)"
        else fail "srun --mpi=pmix Open MPI hello ($1): unexpected output" "$out"; fi
    }
    echo "smoke: mpicc took $dur s"
    if run "srun --mpi=pmix hello (root)" srun --mpi=pmix -N3 -n6 "$work/hello"; then
        check_hello "root, $dur s"
    fi
    if run "srun --mpi=pmix hello ($SPMIX_VC_USER)" su -s /bin/sh "$SPMIX_VC_USER" -c \
            ". '$SPMIX_VC_DIR/env.sh' && cd && OMPI_MCA_mpi_yield_when_idle=1 srun --mpi=pmix -N3 -n6 '$work/hello'"; then
        check_hello "$SPMIX_VC_USER, $dur s"
    fi
    # mpi4py (Debian's python3 and Open MPI) over the same path
    if run "srun --mpi=pmix mpi4py" srun --mpi=pmix -N3 -n3 "$SPMIX_VC_PYTHON" -c \
            'from mpi4py import MPI; import socket; c = MPI.COMM_WORLD; print("mpi4py", c.rank, c.size, socket.gethostname(), c.allreduce(c.rank))'; then
        got=$(printf '%s\n' "$out" | grep '^mpi4py' | sort | tr '\n' ' ')
        if [ "$got" = "mpi4py 0 3 vn1 3 mpi4py 1 3 vn2 3 mpi4py 2 3 vn3 3 " ]; then
            pass "srun --mpi=pmix mpi4py, 3 ranks on 3 nodes ($dur s)"
        else fail "srun --mpi=pmix mpi4py: unexpected output" "$out"; fi
    fi
fi
t2=$(now)
echo "smoke: tests took $(secs "$t1" "$t2") s"

# 6. tear down and check that nothing is left
trap - EXIT
teardown
work=""
if [ $keep = 0 ]; then
    t3=$(now)
    left=$( { ip netns list | grep spmixvc; ip -o link show | grep spmixvc
              ps -eo pid,stat,args | grep -E "$SPMIX_VC_DIR|slurmstepd|[s]lurmscriptd" | grep -v grep; } || true)
    [ -e "$SPMIX_VC_DIR" ] && left="$left $SPMIX_VC_DIR"
    if [ -z "$left" ]; then pass "cluster down, no process, namespace, link or state left ($(secs "$t2" "$t3") s)"
    else fail "cluster down left:" "$left"; fi
    echo "smoke: total $(secs "$t0" "$t3") s (up $(secs "$t0" "$t1"), tests $(secs "$t1" "$t2"), down $(secs "$t2" "$t3"))"
fi

if [ $fails = 0 ]; then echo "smoke: all passed"; exit 0; fi
echo "smoke: $fails failed"
exit 1
