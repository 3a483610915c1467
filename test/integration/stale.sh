#!/bin/sh
# stale.sh: a killed spmix-run leaves nothing for ever. A job on 2 simulated
# nodes is killed with SIGKILL (launcher, node servers and ranks), which
# leaves each node server's directory (spmix-run.<pid>.*) and rendezvous
# files (spmix.tool.<pid>) in TMPDIR. The next spmix-run of this user
# removes them at its start (each with a line on stderr: here the second
# job's start, or the third's), and leaves alone those of a job that still
# runs.
. "$(dirname "$0")/common.sh"
rdv="$SPX_TMP/tmp"
mkdir -p "$rdv" || spx_fail "mkdir"
# descendants of pid $1 (from /proc: the job's processes)
tree_of() {
    awk -v root="$1" '
        { pid = FILENAME; sub(/^\/proc\//, "", pid); sub(/\/stat$/, "", pid)
          s = $0; sub(/^.*\) /, "", s); split(s, f, " "); parent[pid] = f[2]; nextfile }
        END { n = 1; todo[1] = root
              while (n > 0) { p = todo[n--]; print p
                  for (c in parent) if (parent[c] == p) todo[++n] = c } }' \
        /proc/[0-9]*/stat 2>/dev/null
}
start_job() { # $1: a name; a job of 2 nodes whose ranks sleep; $job: its pid
    TMPDIR="$rdv" "$SPX_RUN" --nodes 2 -n 2 --timeout 60 sleep 30 \
        >"$SPX_TMP/$1.out" 2>"$SPX_TMP/$1.err" &
    job=$!
}
wait_dirs() { # $1: how many spmix-run.* directories, within 15 s
    t=0
    while [ "$(ls -d "$rdv"/spmix-run.* 2>/dev/null | wc -l)" -lt "$1" ]; do
        t=$((t + 1))
        [ $t -le 150 ] || spx_fail "expected $1 job directories in $rdv: $(ls "$rdv")"
        sleep 0.1
    done
}

start_job killed
killed=$job
wait_dirs 2
sleep 1 # the servers have registered the job and written their rendezvous files
# the node servers first (their pids name their directories: a server that
# outlived its launcher would clean up after itself), then the rest
servers=$(ls -d "$rdv"/spmix-run.* | sed 's|.*/spmix-run\.\([0-9]*\)\..*|\1|')
# shellcheck disable=SC2086 # one pid per word
kill -9 $servers 2>/dev/null
# shellcheck disable=SC2046
kill -9 $(tree_of "$killed") 2>/dev/null
for s in $servers; do
    # shellcheck disable=SC2046 # their ranks, orphaned
    kill -9 $(tree_of "$s") 2>/dev/null
done
wait "$killed" 2>/dev/null
left=$(ls "$rdv" | grep -c '^spmix')
[ "$left" -ge 2 ] || spx_fail "the killed job left nothing to clean ($(ls "$rdv")): the test proves nothing"
before=$(ls "$rdv" | grep '^spmix' | sort)

start_job live
live=$job
wait_dirs 2 # the killed job's two, or the live job's: wait until the live job has its own
t=0
until [ "$(ls -d "$rdv"/spmix-run.* 2>/dev/null | grep -vc -F "$(echo "$before" | grep '^spmix-run' | sed "s|^|$rdv/|")")" -ge 2 ]; do
    t=$((t + 1)); [ $t -le 150 ] || spx_fail "the live job made no directories"; sleep 0.1
done
TMPDIR="$rdv" "$SPX_RUN" -n 1 true >"$SPX_OUT" 2>"$SPX_ERR" || spx_fail "spmix-run -n 1 true failed"
for e in $before; do
    [ ! -e "$rdv/$e" ] || spx_fail "$e of the killed job is still there"
done
# the live job's start, or this one's, removed them, each with a line
cat "$SPX_TMP/live.err" "$SPX_ERR" | grep -q "removed $rdv/spmix-run\." ||
    spx_fail "no line said what was removed"
# the live job's directories are untouched
n=$(ls -d "$rdv"/spmix-run.* 2>/dev/null | wc -l)
[ "$n" -ge 2 ] || spx_fail "the live job's directories were removed: $(ls "$rdv")"
# shellcheck disable=SC2046
kill $(tree_of "$live") 2>/dev/null
wait "$live" 2>/dev/null
spx_pass "the $left entries a SIGKILLed job left were removed at the next start; a live job's kept"
