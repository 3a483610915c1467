#!/bin/sh
# spmix-run forwards the ranks' output by whole lines, as srun does: ranks
# that write each line in two writes, with every other rank's first half in
# between (it_lines fences there), get every line of spmix-run's stdout and
# stderr whole and in their order, on 1 node, on 3 simulated nodes (each
# node's daemon forwards its ranks' lines) and with --tag-output; a line
# without a newline comes out at the stream's end, byte for byte; a partial
# line longer than 64 KiB is written before its end comes; -u (--unbuffered)
# forwards the bytes as written, so there the halves of several ranks do
# share a line.
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_lines) || exit 1
iter=20
ranks=4

# whole FILE A B TAG: every line of FILE is one rank's "A<r>.B<r>.<i>"
# (letters A and B; with TAG=1 after "[<r>] "), each rank's i 0..iter-1 in order
whole() {
    awk -v a="$2" -v b="$3" -v tag="$4" -v iter=$iter -v ranks=$ranks '
        {
            s = $0; t = ""
            if (tag) {
                if (match(s, /^\[[0-9]+\] /) == 0) { print "not tagged: " $0; bad = 1; next }
                t = substr(s, 2, RLENGTH - 3); s = substr(s, RLENGTH + 1)
            }
            if (s !~ ("^" a "[0-9]+\\." b "[0-9]+\\.[0-9]+$")) { print "mixed: " $0; bad = 1; next }
            split(s, f, ".")
            r = substr(f[1], 2)
            if (substr(f[2], 2) != r || (tag && t != r)) { print "two ranks: " $0; bad = 1; next }
            if (f[3] != seen[r] + 0) { print "rank " r ": line " f[3] " after " seen[r] - 1; bad = 1 }
            seen[r] = f[3] + 1; n++
        }
        END { if (n != iter * ranks) { print n " lines, expected " iter * ranks; bad = 1 }; exit bad }' "$1"
}

# check OPTS TAG: a run with these spmix-run options, every line whole
check() {
    SPX_RUN_OPTS=$1 spx_run $ranks it_lines $iter
    spx_expect_rc 0
    why=$(whole "$SPX_OUT" A B "$2") || spx_fail "stdout (${1:-default}, ${SPX_NODES:-1} node(s)): $why"
    why=$(whole "$SPX_ERR" a b "$2") || spx_fail "stderr (${1:-default}, ${SPX_NODES:-1} node(s)): $why"
}
check "" ""
check "--tag-output" 1
SPX_NODES=3 check "" ""
SPX_NODES=3 check "--output-tap" ""
SPX_NODES=3 check "--tag-output" 1
echo "    whole lines in order: 1 node, 3 nodes, tagged, with the tap"

# a last line without a newline: at the stream's end, byte for byte
printf 'first\nno newline' >"$SPX_TMP/tail.exp"
timeout -k 5 30 "$SPX_RUN" -n 1 sh -c 'printf "first\nno newline"' >"$SPX_TMP/tail" ||
    spx_fail "the job with a partial last line failed"
cmp -s "$SPX_TMP/tail" "$SPX_TMP/tail.exp" ||
    spx_fail "a partial last line came out as '$(cat "$SPX_TMP/tail")'"

# a partial line is held 64 KiB at most: 70000 bytes come out before their newline
d="$SPX_TMP/long"
mkdir -p "$d" || spx_fail "mkdir"
timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n 1 sh -c \
    'head -c 70000 /dev/zero | tr "\0" x; while [ ! -e "$0/go" ]; do sleep 0.05; done; echo' \
    "$d" >"$d/out" &
job=$!
i=0
while [ "$(wc -c <"$d/out")" -lt 65536 ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { : >"$d/go"; wait "$job"; spx_fail "a long partial line was held: $(wc -c <"$d/out") bytes out"; }
    sleep 0.05
done
: >"$d/go"
wait "$job" || spx_fail "the job with a long line failed"
[ "$(wc -c <"$d/out")" -eq 70001 ] && [ "$(tr -d x <"$d/out")" = "" ] ||
    spx_fail "the long line came out as $(wc -c <"$d/out") bytes"

# -u: as written; the fence puts every rank's first half before any second
SPX_RUN_OPTS=-u spx_run $ranks it_lines $iter
spx_expect_rc 0
head -1 "$SPX_OUT" | grep -Eq '^(A[0-9]+\.){2,}' ||
    spx_fail "-u: the first line '$(head -1 "$SPX_OUT")' is not the first halves of several ranks"
[ "$(grep -o 'A[0-9]*\.' "$SPX_OUT" | wc -l)" -eq $((iter * ranks)) ] ||
    spx_fail "-u: not every first half is there"
"$SPX_RUN" -n 1 -u --tag-output true 2>"$SPX_ERR"
[ $? -eq 2 ] || spx_fail "-u with --tag-output was not refused"
spx_expect_err "do not go together"
spx_pass "spmix-run forwards whole lines (1 and 3 nodes, tagged, tapped), a partial last line at the end, a long one at 64 KiB, and raw bytes with -u"
