#!/bin/sh
# spmix-push end to end: a 1 GiB stream into one rank, and 128 MiB to every
# rank of 2 simulated nodes x 2 (sha256 at each rank), then EOF by a second
# spmix-push --eof; a tool killed in the middle of a stream leaves the job
# running and a later push still arrives
. "$(dirname "$0")/common.sh"
push="$SPX_TOP_BUILDDIR/tools/spmix-push"
[ -x "$push" ] || spx_fail "not built: $push"
rdv="$SPX_TMP/rdv"
mkdir -p "$rdv" || spx_fail "mkdir"
export TMPDIR="$rdv"

# start_job N NODES CMD: spmix-run --stdin tool in the background, until its
# rendezvous file is there (the launcher's, with several nodes)
start_job() {
    timeout -k 5 120 "$SPX_RUN" --stdin tool -n "$1" --nodes "$2" sh -c "$3" \
        >"$SPX_OUT" 2>"$SPX_ERR" </dev/null &
    job=$!
    i=0
    until [ -n "$(spx_rdv_job "$rdv")" ]; do
        i=$((i + 1))
        [ $i -lt 400 ] || { kill "$job"; spx_fail "no rendezvous file after 20 s"; }
        sleep 0.05
    done
}

# stream MIB RANKS NODES
stream() {
    want=$(head -c "$1M" /dev/zero | sha256sum | cut -d' ' -f1)
    rm -f "$SPX_TMP"/sha.*
    start_job "$2" "$3" "sha256sum > $SPX_TMP/sha.\$PMIX_RANK"
    head -c "$1M" /dev/zero | "$push" ||
        { kill "$job"; spx_fail "$1 MiB push failed ($3 node(s))"; }
    "$push" --eof /dev/null || { kill "$job"; spx_fail "EOF push failed"; }
    wait "$job" || spx_fail "the job failed ($3 node(s))"
    r=0
    while [ "$r" -lt "$2" ]; do
        got=$(cut -d' ' -f1 "$SPX_TMP/sha.$r" 2>/dev/null)
        [ "$got" = "$want" ] || spx_fail "rank $r read $got, want $want ($1 MiB, $3 node(s))"
        r=$((r + 1))
    done
}
stream 1024 1 1
stream 128 4 2

# a tool killed mid-stream: the job goes on, the next tool's bytes arrive
start_job 1 1 "tail -c 5 > $SPX_TMP/tail.0"
head -c 1G /dev/zero | "$push" &
p=$!
sleep 0.5
kill -9 "$p" 2>/dev/null
wait "$p" 2>/dev/null
kill -0 "$job" 2>/dev/null || spx_fail "the job ended with the killed tool"
printf 'tail\n' | "$push" --eof || { kill "$job"; spx_fail "a push after the killed tool failed"; }
wait "$job" || spx_fail "the job failed after a tool was killed"
[ "$(cat "$SPX_TMP/tail.0")" = tail ] || spx_fail "the rank's last bytes: '$(cat "$SPX_TMP/tail.0")'"
spx_pass "1 GiB into a rank and 128 MiB to 2x2 ranks byte-exact; a killed tool leaves the job running"
