#!/bin/sh
# check-server-includes.sh - prints the include graph of lib/server (the
# #include "server/..." edges between its files) and checks two rules of the
# server's layout:
#   1. no include cycle runs through the core header (server/core.h): the
#      core includes no engine header, directly or through other headers;
#   2. at most one file of lib/server includes a tree/ header (the adapter
#      that fills the net-ops seam, net.h, from the tree engine).
# Usage: check-server-includes.sh [DIR]   (DIR defaults to lib/server next to
# this script; any directory holding the server's files works, e.g. an old
# tree exported with git archive). Exit 0 when both hold, 1 otherwise.
set -u
dir=${1:-$(dirname "$0")/../lib/server}
[ -d "$dir" ] || { echo "check-server-includes: no directory $dir" >&2; exit 2; }
core=core.h
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# edges "from to", one per line (file names relative to lib/server)
for f in "$dir"/*.c "$dir"/*.h; do
    [ -e "$f" ] || continue
    b=$(basename "$f")
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"server\/\([^"]*\)".*/\1/p' "$f" |
        while read -r t; do echo "$b $t"; done
done | sort -u >"$tmp/edges"

echo "include graph of lib/server (file -> server/ header):"
sed 's/^/  /; s/ \([^ ]*\)$/ -> \1/' "$tmp/edges"

fail=0
# rule 1: headers reachable from the core header; a cycle through the core
# exists when the core is reachable from itself.
[ -e "$dir/$core" ] || { echo "FAIL: no core header $core in $dir"; fail=1; }
if [ -e "$dir/$core" ]; then
    echo "$core" >"$tmp/reach"
    while :; do
        awk 'NR == FNR { r[$1] = 1; next } ($1 in r) { print $2 }' "$tmp/reach" "$tmp/edges" |
            cat - "$tmp/reach" | sort -u >"$tmp/reach2"
        cmp -s "$tmp/reach" "$tmp/reach2" && break
        mv "$tmp/reach2" "$tmp/reach"
    done
    if awk -v c="$core" 'NR == FNR { r[$1] = 1; next } ($1 in r) && $2 == c { f = 1 }
                         END { exit !f }' "$tmp/reach" "$tmp/edges"; then
        echo "FAIL: include cycle through $core (it reaches:" $(grep -vx "$core" "$tmp/reach") ")"
        fail=1
    fi
fi
# the same check for internal.h: the old umbrella header of every file
if [ ! -e "$dir/$core" ] && [ -e "$dir/internal.h" ]; then
    echo "FAIL: internal.h is the header of every file and includes engine headers:" \
        $(awk '$1 == "internal.h" { print $2 }' "$tmp/edges")
fi

# rule 2: files including tree/
tree_users=$(grep -l '^[[:space:]]*#[[:space:]]*include[[:space:]]*"tree/' "$dir"/*.c "$dir"/*.h \
    2>/dev/null | xargs -r -n1 basename)
n=$(echo "$tree_users" | grep -c . || true)
echo "files including tree/: ${tree_users:-none}" | tr '\n' ' '
echo
if [ "$n" -gt 1 ]; then
    echo "FAIL: $n files of lib/server include tree/ headers (at most one, the net-ops adapter)"
    fail=1
fi
[ $fail -eq 0 ] && echo "check-server-includes: OK"
exit $fail
