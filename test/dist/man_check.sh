#!/bin/sh
# test/dist/man_check.sh - the man pages (man/, tools/*.1, plugin/*.8):
#   - lint clean: `groff -ww -z -man` prints nothing, and `mandoc -Tlint
#     -W warning` neither when mandoc is installed (scripts/install-deps.sh);
#   - a page that is only `.so man3/X.3` (PMIx_Fence_nb.3 ...) names a page of man/;
#   - every PMIx_*.3 page lists under ATTRIBUTES (`.TP` then `.B PMIX_...`)
#     exactly the attributes the library says that function honours
#     (`spmix-info --attrs FUNCTION`, the table test/integration/attrs.sh
#     checks against the code), and so does the page of each `.so` alias
#     (PMIx_Fence_nb's list is PMIx_Fence's page); a function outside the table
#     (PMIx_Put, PMIx_Commit) lists none.
# Needs SPX_TOP_SRCDIR and SPX_TOP_BUILDDIR (make check exports them).
# Exit 0 passed, 1 failed, 77 skipped (no groff).
set -u
s=${SPX_TOP_SRCDIR:?SPX_TOP_SRCDIR is not set}
b=${SPX_TOP_BUILDDIR:?SPX_TOP_BUILDDIR is not set}
INFO=$b/tools/spmix-info
command -v groff >/dev/null 2>&1 || { echo "SKIP: groff is not installed"; exit 77; }
[ -x "$INFO" ] || { echo "FAIL: not built: $INFO"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/spmix-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
have_mandoc=0
command -v mandoc >/dev/null 2>&1 && have_mandoc=1

pages=$(ls "$s"/man/*.[0-9] "$s"/tools/*.1 "$s"/plugin/*.[0-9])
n=0
for p in $pages; do
    if head -n 1 "$p" | grep -q '^\.so '; then
        t=$(sed -n '1s/^\.so man[0-9]\///p' "$p")
        [ "$(wc -l <"$p")" = 1 ] && [ -n "$t" ] && [ -f "$s/man/$t" ] ||
            fail "$p: not a single .so line naming a page of man/"
        continue
    fi
    n=$((n + 1))
    groff -ww -z -man "$p" >"$tmp/lint" 2>&1
    [ -s "$tmp/lint" ] && { fail "groff -ww: $p"; sed 's/^/    /' "$tmp/lint"; }
    if [ $have_mandoc = 1 ]; then
        mandoc -Tlint -W warning "$p" >"$tmp/lint" 2>&1
        [ -s "$tmp/lint" ] && { fail "mandoc -Tlint: $p"; sed 's/^/    /' "$tmp/lint"; }
    fi
done
echo "linted $n pages (groff -ww$([ $have_mandoc = 1 ] && echo ', mandoc -Tlint'))"

# the ATTRIBUTES section's .TP/.B PMIX_* entries of page $1, sorted
page_attrs() {
    awk '/^\.SH/ { in_a = ($2 == "ATTRIBUTES"); next }
         in_a && prev == ".TP" && $1 == ".B" && $2 ~ /^PMIX_/ { print $2 }
         { prev = $0 }' "$1" | sort
}
# what the library honours for function $1, sorted (nothing when not in its table)
lib_attrs() {
    "$INFO" --attrs "$1" 2>/dev/null | awk '$1 ~ /^PMIX_/ { print $1 }' | sort
}
napi=0
for p in "$s"/man/PMIx_*.3; do
    fn=$(basename "$p" .3)
    src=$p
    if head -n 1 "$p" | grep -q '^\.so '; then src=$s/man/$(sed -n '1s/^\.so man[0-9]\///p' "$p"); fi
    [ -f "$src" ] || continue
    grep -q '^\.SH ATTRIBUTES' "$src" || { fail "$src: no ATTRIBUTES section"; continue; }
    page_attrs "$src" >"$tmp/page"
    lib_attrs "$fn" >"$tmp/lib"
    if ! cmp -s "$tmp/page" "$tmp/lib"; then
        fail "$fn: the attributes of $(basename "$src") differ from the library's (spmix-info --attrs $fn; - library only, + page only):"
        diff "$tmp/lib" "$tmp/page" | grep '^[<>]' | sed 's/^</    -/; s/^>/    +/'
    fi
    napi=$((napi + 1))
done
[ "$napi" -ge 20 ] || fail "only $napi PMIx_*.3 pages checked"
[ "$nfail" = 0 ] || exit 1
echo "PASS: $n pages lint clean; the attributes of $napi PMIx_*.3 pages (and aliases) match the library's"
