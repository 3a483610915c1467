#!/bin/sh
# spmix-info --attrs (PMIx_Query_info PMIX_QUERY_ATTRIBUTE_SUPPORT) against
# the sources: for every function whose code checks PMIX_INFO_REQD directives
# (spx_directives_check("PMIx_X", ..., list) and the group calls' name/list
# pairs), the attributes spmix-info lists are exactly the PMIX_* keys of that
# list; every function listed is defined in lib/ and not only in
# lib/api/unsupported.c; the output's form; an unknown function fails (2).
. "$(dirname "$0")/common.sh"
INFO="$SPX_TOP_BUILDDIR/tools/spmix-info"
SRC="${SPX_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
[ -x "$INFO" ] || spx_fail "not built: $INFO"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$INFO" --attrs > "$T/all" 2> "$T/err" || spx_fail "spmix-info --attrs failed: $(cat "$T/err")"

# The output as "FUNCTION ATTR ATTR ..." (sorted attributes), one line each.
to_sets() {
    awk '/^PMIx_/ { if (f) print f s; f = $1; s = ""; next }
         /^    PMIX_/ { s = s " " $1 }
         END { if (f) print f s }' | while read -r f rest; do
        printf '%s' "$f"
        for a in $(printf '%s\n' $rest | sort); do printf ' %s' "$a"; done
        printf '\n'
    done
}
to_sets < "$T/all" | sort > "$T/table"
[ "$(wc -l < "$T/table")" -ge 30 ] || spx_fail "too few functions listed: $(cat "$T/all")"

# The directive lists of the sources, as the same "FUNCTION ATTR ..." lines.
for c in $(find "$SRC/lib" -name '*.c' | sort); do
    tr '\n' ' ' < "$c" | awk '
    {
        s = $0
        while (match(s, /spx_directives_check(_reserved)?\("PMIx_[A-Za-z_]+",[^;()]*\)/)) {
            d = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
            fn = d; sub(/^[^"]*"/, "", fn); sub(/".*/, "", fn)
            l = d; sub(/\)$/, "", l); sub(/.*,[ ]*/, "", l)
            print fn "|" l
        }
        s = $0
        while (match(s, /\*name = "PMIx_[A-Za-z_]+"; return [a-z_]+;/)) {
            d = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
            fn = d; sub(/^[^"]*"/, "", fn); sub(/".*/, "", fn)
            l = d; sub(/.*return /, "", l); sub(/;$/, "", l)
            print fn "|" l
        }
    }' > "$T/calls"
    tr '\n' ' ' < "$c" | awk '
    { s = $0
      while (match(s, /static const char \*const [a-z_]+\[\] = \{[^}]*\}/)) {
            d = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
            name = d; sub(/^static const char \*const /, "", name); sub(/\[.*/, "", name)
            body = d; sub(/^[^{]*\{/, "", body); keys = ""
            n = split(body, tok, /[^A-Za-z0-9_]+/)
            for (i = 1; i <= n; i++) if (tok[i] ~ /^PMIX_[A-Z0-9_]+$/) keys = keys " " tok[i]
            print name "|" keys
      } }' > "$T/lists"
    while IFS='|' read -r fn l; do
        if [ "$l" = NULL ]; then
            keys=""
        else
            keys=$(awk -F'|' -v n="$l" '$1 == n { print $2 }' "$T/lists")
            [ -n "$keys" ] || grep -q "^$l|" "$T/lists" ||
                spx_fail "$c: cannot find the list $l that $fn checks"
        fi
        printf '%s' "$fn"
        for a in $(printf '%s\n' $keys | sort); do printf ' %s' "$a"; done
        printf '\n'
    done < "$T/calls"
done | sort -u > "$T/code"
[ "$(wc -l < "$T/code")" -ge 15 ] || spx_fail "too few directive checks found in $SRC/lib"

# every function whose code checks its directives: same set in the table
while read -r fn rest; do
    want="$fn${rest:+ $rest}"
    got=$(grep "^$fn\( \|\$\)" "$T/table" || true)
    [ -n "$got" ] || spx_fail "$fn checks its directives but spmix-info --attrs does not list it"
    [ "$got" = "$want" ] || spx_fail "attributes of $fn: the table says '$got', the code '$want'"
    # the _nb (or blocking) twin sharing the same check, when listed
    case $fn in *_nb) twin=${fn%_nb} ;; *) twin=${fn}_nb ;; esac
    if ! grep -q "^$twin\( \|\$\)" "$T/code"; then
        got=$(grep "^$twin\( \|\$\)" "$T/table" || true)
        [ -z "$got" ] || [ "$got" = "$twin${rest:+ $rest}" ] ||
            spx_fail "attributes of $twin: the table says '$got', its twin's code '$want'"
    fi
done < "$T/code"
echo "ok: $(wc -l < "$T/code") directive checks of the code match the table"

# every function listed is implemented (defined in lib/, not as unsupported)
for fn in $(cut -d' ' -f1 "$T/table"); do
    grep -rlE "^SPX_EXPORT [a-z_ ]+\*?$fn\(" "$SRC/lib" --include='*.c' |
        grep -v '/lib/api/unsupported\.c$' | grep -q . ||
        spx_fail "$fn is listed but not implemented in $SRC/lib"
done
echo "ok: every function listed is implemented"

# the form of one function's listing
"$INFO" --attrs PMIx_Fence > "$T/fence" || spx_fail "spmix-info --attrs PMIx_Fence failed"
grep -q '^PMIx_Fence (client)$' "$T/fence" || spx_fail "no PMIx_Fence header: $(cat "$T/fence")"
grep -Eq '^    PMIX_COLLECT_DATA +pmix\.collect +PMIX_BOOL +[a-z]' "$T/fence" ||
    spx_fail "no PMIX_COLLECT_DATA line: $(cat "$T/fence")"
grep -Eq '^    PMIX_TIMEOUT +pmix\.timeout +PMIX_INT +[a-z]' "$T/fence" ||
    spx_fail "no PMIX_TIMEOUT line: $(cat "$T/fence")"
[ "$(grep -c '^PMIx_' "$T/fence")" = 1 ] || spx_fail "more than PMIx_Fence listed: $(cat "$T/fence")"
"$INFO" --attrs PMIx_IOF_push > "$T/push" || spx_fail "spmix-info --attrs PMIx_IOF_push failed"
grep -q '^PMIx_IOF_push (tool)$' "$T/push" && grep -q '^    PMIX_IOF_COMPLETE ' "$T/push" &&
    grep -q '^    PMIX_IOF_PUSH_STDIN ' "$T/push" || spx_fail "PMIx_IOF_push: $(cat "$T/push")"
echo "ok: spmix-info --attrs FUNCTION lists its attributes with key, type, description"

# an unknown function: exit status 2 and a clear message
rc=0
"$INFO" --attrs PMIx_Fence PMIx_No_such_call > "$T/out" 2> "$T/err" || rc=$?
[ "$rc" = 2 ] || spx_fail "unknown function: exit status $rc, not 2"
grep -q 'PMIx_No_such_call: not a function.*PMIX_ERR_NOT_FOUND' "$T/err" ||
    spx_fail "unknown function: stderr '$(cat "$T/err")'"
grep -q '^PMIx_Fence (client)$' "$T/out" || spx_fail "the known function was not listed"
echo "ok: an unknown function fails with exit status 2"

spx_pass "attrs: spmix-info --attrs matches the directive lists of the code"
