#!/bin/sh
# run_local.sh: run bench_client K times under spmix-run and print a markdown
# table of the medians over the runs. Builds nothing.
#   usage: test/bench/run_local.sh [BUILDDIR] [K] [RANKS] [ITERATIONS]
# BUILDDIR defaults to $SPX_TOP_BUILDDIR or the current directory.
set -u
top=${1:-${SPX_TOP_BUILDDIR:-.}}
k=${2:-5}
np=${3:-2}
iters=${4:-200}
run="$top/tools/spmix-run"
bench="$top/test/bench/bench_client"
for f in "$run" "$bench"; do
    [ -x "$f" ] || { echo "run_local.sh: $f is not built (make; make check)" >&2; exit 1; }
done
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
i=0
while [ "$i" -lt "$k" ]; do
    timeout 120 "$run" -n "$np" "$bench" "$iters" >>"$out" ||
        { echo "run_local.sh: run $((i + 1)) failed" >&2; exit 1; }
    i=$((i + 1))
done
echo "| measurement ($np ranks, $k runs, $iters iterations) | median | unit |"
echo "|---|---:|---|"
awk '$1 != "ranks" { n[$1]++; v[$1, n[$1]] = $2; u[$1] = $3; if (!($1 in o)) { o[$1] = ++m; name[m] = $1 } }
     END {
         for (j = 1; j <= m; j++) {
             key = name[j]; c = n[key]
             for (a = 1; a <= c; a++) s[a] = v[key, a]
             for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (s[b] < s[a]) { t = s[a]; s[a] = s[b]; s[b] = t }
             med = (c % 2) ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2
             printf "| %s | %g | %s |\n", key, med, u[key]
         }
     }' "$out"
