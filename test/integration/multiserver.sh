#!/bin/sh
# one tool holds the servers of two spmix-run jobs at once (it_multiserver):
# A found by PMIX_SERVER_PIDINFO at PMIx_tool_init, B added by
# PMIx_tool_attach_to_server with PMIX_SERVER_URI file:; get_servers lists
# both; the namespaces and job size of each come from the primary chosen by
# set_server or PMIX_PRIMARY_SERVER; IOF pushes into a rank of each job
# (bytes compared at the target with sha256); B's output and B's rank's abort
# reach the tool while A is the primary; disconnecting one leaves the other
# working; A's server killed with a query in flight: the query fails at once,
# B still works.
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_multiserver) || exit 1
rdv="$SPX_TMP/rdv"
dir_a="$SPX_TMP/a"
dir_b="$SPX_TMP/b"
mkdir -p "$rdv" "$dir_a" "$dir_b" || spx_fail "mkdir"

TMPDIR="$rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 2 --stdin tool \
    --timeout $((SPX_TIMEOUT - 10)) "$prog" job "$dir_a" \
    >"$SPX_OUT" 2>"$SPX_ERR" </dev/null &
job_a=$!
# wait for A's rendezvous file before B starts: the one file then is A's
i=0
while [ ! -f "$dir_a/ready" ] || [ "$(ls "$rdv" | grep -c '^spmix\.tool\.')" -lt 1 ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { kill "$job_a"; spx_fail "job A did not start in 20 s"; }
    sleep 0.05
done
set -- "$rdv"/spmix.tool.*
[ $# -eq 1 ] || { kill "$job_a"; spx_fail "not one rendezvous file: $*"; }
pid_a=${1##*.}
TMPDIR="$rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 3 --stdin tool --output-tap \
    --keep-going --timeout $((SPX_TIMEOUT - 10)) "$prog" job "$dir_b" \
    >"$SPX_OUT.b" 2>"$SPX_ERR.b" </dev/null &
job_b=$!
i=0
while [ ! -f "$dir_b/ready" ] || [ "$(ls "$rdv" | grep -c '^spmix\.tool\.')" -lt 2 ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { kill "$job_a" "$job_b"; spx_fail "job B did not start in 20 s"; }
    sleep 0.05
done
file_b=
for f in "$rdv"/spmix.tool.*; do
    [ "$f" = "$rdv/spmix.tool.$pid_a" ] || file_b=$f
done

out=$(timeout 90 "$prog" tool "$rdv" "$pid_a" "$file_b" "$dir_a" "$dir_b" 2>&1)
rc=$?
touch "$dir_a/end" "$dir_b/end"
wait "$job_a"
wait "$job_b"
rc_b=$?
echo "$out" | grep -v '^spmix\[' | sed 's/^/    /'
[ $rc -eq 0 ] && echo "$out" | grep -q '^multiserver ok' || spx_fail "the tool: rc $rc"
[ $rc_b -ne 0 ] || spx_fail "job B's rank 1 died, yet B ended with 0"
grep -q '^said 0$' "$SPX_OUT.b" || spx_fail "job B's rank 0 output missing from spmix-run's stdout"

sha() { sha256sum <"$1" | cut -d' ' -f1; }
for t in "$dir_a 1" "$dir_b 2" "$dir_b 0"; do
    set -- $t
    [ -f "$1/done.$2" ] || spx_fail "rank $2 of $1 saw no EOF"
    [ "$(sha "$1/got.$2")" = "$(sha "$1/expect.$2")" ] ||
        spx_fail "rank $2 of $1 got $(wc -c <"$1/got.$2") bytes, not the $(wc -c <"$1/expect.$2") pushed"
done
spx_pass "a tool holds two jobs' servers: lists them, picks the primary, pushes into both, hears both, disconnects one and survives the other's death"
