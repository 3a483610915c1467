#!/bin/sh
# tools pull the ranks' output (PMIx_IOF_pull) of a running spmix-run
# --output-tap job, on one node and on 3 simulated nodes (the tool talks to
# node 0's server; the other nodes' output comes over the tree): rank 1's stdout, WILDCARD, rank 0's stdout and
# stderr tagged and timestamped, rank 2's stdout as XML, each checked against
# the bytes the ranks wrote (sha256, and byte for byte in the tool); what
# spmix-run itself writes is unchanged by the tap (byte-identical, with a tool
# pulling and without the tap); deregistration stops delivery; a tool that
# stops reading and is killed mid-stream leaves the job running; without
# --output-tap nothing reaches a tool
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_iofpull) || exit 1
rdv="$SPX_TMP/rdv"
mkdir -p "$rdv" || spx_fail "mkdir"
size=3000000

sha() { sha256sum <"$1" | cut -d' ' -f1; }

# start_job DIR SIZE [spmix-run options]: the job in the background, its
# namespace in $ns once rank 0 is up and the job's rendezvous file exists
start_job() {
    d=$1; sz=$2; shift 2
    mkdir -p "$d" || spx_fail "mkdir $d"
    TMPDIR="$rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 3 --nodes "${SPX_NODES:-1}" \
        --timeout $((SPX_TIMEOUT - 10)) "$@" "$prog" job "$d" "$sz" \
        >"$SPX_OUT" 2>"$SPX_ERR" </dev/null &
    job=$!
    i=0
    while [ ! -f "$d/ready" ] || [ -z "$(spx_rdv_job "$rdv")" ]; do
        i=$((i + 1))
        [ $i -lt 400 ] || { kill "$job"; spx_fail "the job did not start in 20 s"; }
        sleep 0.05
    done
    ns=$(cat "$d/ready")
}

end_job() {
    wait "$job"
    rc=$?
    [ $rc -eq 0 ] || spx_fail "the job ended with $rc"
}

# 1. the tool's pulls, formats and deregistrations
for SPX_NODES in 1 3; do
d="$SPX_TMP/pull.$SPX_NODES"
start_job "$d" $size --output-tap
out=$(TMPDIR="$rdv" timeout 60 "$prog" tool "$d" "$ns" $size 2>&1) ||
    { kill "$job" 2>/dev/null; wait "$job"; spx_fail "tool ($SPX_NODES node(s)): $out"; }
end_job
for r in 0 1 2; do
    [ "$(sha "$d/all.$r")" = "$(sha "$d/exp.$r")" ] ||
        spx_fail "WILDCARD: rank $r: $(wc -c <"$d/all.$r") bytes pulled, not the $(wc -c <"$d/exp.$r") written"
done
[ "$(sha "$d/one.1")" = "$(sha "$d/exp.1")" ] || spx_fail "rank 1: the bytes pulled differ"
# spmix-run's own stdout still has every byte of every rank (interleaved by
# lines) and its stderr the ranks' lines
[ "$(wc -c <"$SPX_OUT")" -eq $((3 * size + 3 * 13)) ] ||
    spx_fail "spmix-run's stdout has $(wc -c <"$SPX_OUT") bytes, not $((3 * size + 39))"
for r in 0 1 2; do
    [ "$(grep -c "after rank $r\$" "$SPX_OUT")" -eq 1 ] || spx_fail "no 'after rank $r' line"
    [ "$(grep -c "^stderr-line rank $r\$" "$SPX_ERR")" -eq 1 ] || spx_fail "no stderr line of rank $r"
done
done
SPX_NODES=1

# 2. byte-identical: one rank's stdout through spmix-run, without the tap,
# with the tap, with the tap and a tool pulling (SPMIX_OUTPUT_TAP=1)
exp="$SPX_TMP/emit.exp"
for how in plain tap env; do
    o="$SPX_TMP/emit.$how"
    case $how in
    plain) "$SPX_RUN" -n 1 --timeout 50 "$prog" emit 5000000 "$exp" >"$o" 2>"$SPX_ERR" ;;
    tap) "$SPX_RUN" -n 1 --timeout 50 --output-tap "$prog" emit 5000000 "$exp" >"$o" 2>"$SPX_ERR" ;;
    env) SPMIX_OUTPUT_TAP=1 "$SPX_RUN" -n 1 --timeout 50 "$prog" emit 5000000 "$exp" >"$o" 2>"$SPX_ERR" ;;
    esac || spx_fail "emit ($how) failed"
    [ "$(sha "$o")" = "$(sha "$exp")" ] || spx_fail "spmix-run's stdout ($how) is not what the rank wrote"
done

# 3. a tool that stops reading, then is killed: the job goes on and ends well
d="$SPX_TMP/hang"
start_job "$d" 20000000 --output-tap
TMPDIR="$rdv" "$prog" hang "$d" "$ns" >"$SPX_TMP/hang.log" 2>&1 &
tool=$!
i=0
while [ ! -f "$d/hung" ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { kill "$tool" "$job"; spx_fail "the hanging tool got nothing"; }
    sleep 0.05
done
sleep 1
kill -9 "$tool"
wait "$tool" 2>/dev/null
: >"$d/go.2"; : >"$d/go.3"
end_job
[ "$(wc -c <"$SPX_OUT")" -eq $((3 * 20000000 + 39)) ] ||
    spx_fail "spmix-run's stdout lost bytes while a tool hung: $(wc -c <"$SPX_OUT")"

# 4. without --output-tap: a pull is accepted, nothing comes (the job is unchanged)
d="$SPX_TMP/notap"
start_job "$d" 1000
: >"$d/go.2"; : >"$d/go.3"
TMPDIR="$rdv" "$prog" hang "$d" "$ns" >/dev/null 2>&1 &
tool=$!
end_job
sleep 0.5
kill -9 "$tool" 2>/dev/null
wait "$tool" 2>/dev/null
[ ! -f "$d/hung" ] || spx_fail "output reached a tool without --output-tap"

spx_pass "PMIx_IOF_pull under spmix-run --output-tap"
