#!/bin/sh
# compare_builds.sh: the local hot paths of two builds side by side, in one
# run. Runs bench_client (test/bench/bench_client.c) under each build's own
# spmix-run K times, alternating OLD and NEW so that both see the same machine
# load, and prints one markdown table: per measurement the median over the
# runs of each build and the ratio NEW/OLD (for times, < 1 is faster; for
# rates, > 1 is faster: the unit column says which), with the load average
# at the start and at the end. Builds nothing.
#   usage: test/bench/compare_builds.sh OLD_BUILDDIR NEW_BUILDDIR [K] [RANKS] [ITERATIONS]
set -u
old=${1:?usage: compare_builds.sh OLD_BUILDDIR NEW_BUILDDIR [K] [RANKS] [ITERATIONS]}
new=${2:?usage: compare_builds.sh OLD_BUILDDIR NEW_BUILDDIR [K] [RANKS] [ITERATIONS]}
k=${3:-9}
np=${4:-2}
iters=${5:-1000}
for b in "$old" "$new"; do
    for f in "$b/tools/spmix-run" "$b/test/bench/bench_client"; do
        [ -x "$f" ] || { echo "compare_builds.sh: $f is not built" >&2; exit 1; }
    done
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$k" ]; do
    for side in old new; do
        eval "b=\$$side"
        timeout 120 "$b/tools/spmix-run" -n "$np" "$b/test/bench/bench_client" "$iters" \
            >>"$tmp/$side" || { echo "compare_builds.sh: $side run $((i + 1)) failed" >&2; exit 1; }
    done
    i=$((i + 1))
done
echo "| measurement ($np ranks, $k runs each, alternating, $iters iterations) | old | new | new/old | unit |"
echo "|---|---:|---:|---:|---|"
awk '
    function median(key, side,    c, a, b, t, s) {
        c = n[side, key]
        for (a = 1; a <= c; a++) s[a] = v[side, key, a]
        for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (s[b] < s[a]) { t = s[a]; s[a] = s[b]; s[b] = t }
        return (c % 2) ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2
    }
    FNR == 1 { side = (FILENAME ~ /\/old$/) ? "old" : "new" }
    $1 != "ranks" {
        n[side, $1]++; v[side, $1, n[side, $1]] = $2; u[$1] = $3
        if (!($1 in seen)) { seen[$1] = 1; name[++m] = $1 }
    }
    END {
        for (j = 1; j <= m; j++) {
            key = name[j]
            if (!n["old", key] || !n["new", key]) continue
            o = median(key, "old"); w = median(key, "new")
            printf "| %s | %g | %g | %s | %s |\n", key, o, w, (o > 0 ? sprintf("%.2f", w / o) : "-"), u[key]
        }
    }' "$tmp/old" "$tmp/new"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
