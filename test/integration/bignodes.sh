#!/bin/sh
# bignodes.sh [NODES [RANKS_PER_NODE]]: spmix-run --nodes NODES -n
# NODES*RANKS_PER_NODE (one rank per simulated node by default; 256 nodes by
# default, as make check runs it; give 1024 or up to 4096 by hand, or set
# SPX_BIG_NODES; NODES 1 is one server without --nodes, as manyranks.sh runs
# 256 ranks on it) runs it_bignodes: PMIx_Init, the
# topology the launcher shares with the servers in the job's data, Put +
# Commit, a collecting fence with two other ranks' values checked, a group of
# every rank with a context id (membership checked); then spmix-push feeds
# one payload to WILDCARD with --eof through node 0's server (--stdin tool)
# and every rank must read exactly that payload. Every rank must print its
# "ok" line, all with the same context id, and the job must end with 0.
# Nodes past 253 listen on 127.0.1.x and up, so the address scheme is covered.
#
# Not a timed test: the timeouts below are only safety nets. While the ranks
# wait for stdin it prints (for doc/scale.md, never checked) the wall time so
# far and the resident memory of the node servers (median, max, sum) and of
# the ranks, from /proc.
nodes=${1:-${SPX_BIG_NODES:-256}}
ppn=${2:-1}
case $nodes$ppn in
'' | *[!0-9]*) echo "usage: bignodes.sh [NODES [RANKS_PER_NODE]]" >&2; exit 2 ;;
esac
n=$((nodes * ppn))
: "${SPX_TIMEOUT:=$((120 + n / 2))}"
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_bignodes) || exit 1
push="$SPX_TOP_BUILDDIR/tools/spmix-push"
[ -x "$push" ] || spx_fail "not built: $push"
[ "$n" -ge 2 ] || spx_fail "NODES x RANKS_PER_NODE must be 2 or more"
simulate=
[ "$nodes" -eq 1 ] || simulate="--nodes $nodes"
rdv="$SPX_TMP/rdv"
d="$SPX_TMP/job"
mkdir -p "$rdv" "$d" || spx_fail "mkdir"
# the payload: lines, every byte value, a tail without a newline (about 50 KiB)
awk 'BEGIN { for (i = 0; i < 1200; i++) printf "line %d of the payload for every rank\n", i }' \
    >"$d/payload" || spx_fail "payload"
i=0
while [ $i -lt 256 ]; do printf "\\$(printf %o $i)"; i=$((i + 1)); done >>"$d/payload"
awk 'BEGIN { for (i = 0; i < 400; i++) printf "%s", "tail-" i " " }' >>"$d/payload"

t0=$(spx_now)
# shellcheck disable=SC2086 # $simulate: nothing, or the option and its value
TMPDIR="$rdv" timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n "$n" $simulate --stdin tool \
    --timeout $((SPX_TIMEOUT - 10)) "$prog" "$d" >"$SPX_OUT" 2>"$SPX_ERR" </dev/null &
job=$!
stop() { touch "$d/end"; kill "$job" 2>/dev/null; wait "$job"; spx_fail "$@"; }

# ready: every rank passed the fence and the group
while [ ! -f "$d/ready" ]; do
    kill -0 "$job" 2>/dev/null || { wait "$job"; spx_fail "the job ended ($?) before rank 0 was ready"; }
    sleep 0.2
done
t_ready=$(spx_now)

# memory while every process is up: the node servers are spmix-run's
# children, the ranks theirs (spmix-run's pid names node 0's rendezvous file)
launcher=
for f in "$rdv"/spmix.tool.*; do
    grep -q '^launcher ' "$f" 2>/dev/null || launcher=${f##*.}
done
case $launcher in
'' | *[!0-9]*) stop "no rendezvous file of the launcher: $(ls "$rdv")" ;;
esac
# (getline: a process may be gone, a file unreadable, without ending awk)
awk -v L="$launcher" -v one="$([ "$nodes" -eq 1 ] && echo 1)" '
    function field(f, key,    line, v) {
        v = 0
        while ((getline line < f) > 0)
            if (index(line, key) == 1) { split(line, a, " "); v = a[2] }
        close(f)
        return v
    }
    BEGIN {
        for (i = 1; i < ARGC; i++) {
            pid = ARGV[i]; sub(/^\/proc\//, "", pid); sub(/\/status$/, "", pid)
            ppid[pid] = field(ARGV[i], "PPid:")
        }
        for (p in ppid) if (ppid[p] == L) srv[p] = 1
        for (p in ppid) if (ppid[p] in srv) role[p] = "rank"
        for (p in srv) role[p] = one ? "rank" : "server" # one node: the launcher serves
        role[L] = "launcher"
        for (p in role)
            print role[p], field("/proc/" p "/status", "VmRSS:") + 0,
                  field("/proc/" p "/smaps_rollup", "Pss:") + 0
        exit
    }' /proc/[0-9]*/status | sort -k1,1 -k2,2n | awk '
    $1 == "server" { s[++ns] = $2; ts += $3 }
    $1 == "rank" { r[++nr] = $2; tr += $3 }
    $1 == "launcher" { l = $2 }
    END {
        printf "memory (RSS, from /proc): %d node servers median %.1f MiB max %.1f MiB; " \
               "%d ranks median %.1f MiB max %.1f MiB; launcher %.1f MiB\n", ns,
               s[int((ns + 1) / 2)] / 1024, s[ns] / 1024, nr, r[int((nr + 1) / 2)] / 1024,
               r[nr] / 1024, l / 1024
        printf "memory in all (PSS: shared pages counted once): servers %.0f MiB, ranks %.0f MiB\n",
               ts / 1024, tr / 1024
    }'
awk -v a="$t0" -v b="$t_ready" -v n="$nodes" \
    'BEGIN { printf "started %d nodes, fence and group done: %.1f s\n", n, b - a }'

t_push=$(spx_now)
out=$(TMPDIR="$rdv" timeout 120 "$push" --eof "$d/payload" 2>&1) || stop "spmix-push: $out"
touch "$d/end"
wait "$job"
rc=$?
t_end=$(spx_now)
[ $rc -eq 0 ] || spx_fail "the job ended with $rc"
awk -v a="$t0" -v b="$t_push" -v c="$t_end" -v r="$t_ready" \
    'BEGIN { printf "pushed and ended: %.1f s; in all %.1f s, of which %.1f s reading /proc\n",
             c - b, c - a, b - r }'

size=$(wc -c <"$d/payload")
lines=$(grep -c '^ok rank ' "$SPX_OUT")
[ "$lines" -eq "$n" ] || spx_fail "$lines ranks of $n printed their ok line"
ranks=$(sed -n 's/^ok rank \([0-9]*\) .*/\1/p' "$SPX_OUT" | sort -n | uniq | wc -l)
[ "$ranks" -eq "$n" ] || spx_fail "$ranks different ranks of $n printed an ok line"
cids=$(sed -n 's/^ok rank [0-9]* cid \([0-9]*\) .*/\1/p' "$SPX_OUT" | sort -u)
[ "$(echo "$cids" | wc -l)" -eq 1 ] || spx_fail "the ranks got different context ids: $cids"
bad=$(grep '^ok rank ' "$SPX_OUT" | grep -cv " stdin $size\$")
[ "$bad" -eq 0 ] || spx_fail "$bad ranks read another amount than the $size bytes pushed"
left=$(ls "$rdv" | grep '^spmix\.tool\.')
[ -z "$left" ] || spx_fail "rendezvous files outlived the job: $left"

spx_pass "$nodes simulated node(s) x $ppn rank(s): fence with peers' data, a group of all with context id $cids, $size bytes pushed to WILDCARD read by every rank"
