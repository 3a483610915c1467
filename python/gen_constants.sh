#!/bin/sh
# gen_constants.sh HEADER... - the PMIX_* constants of the public headers as
# C table entries for the pmix Python module (pmix_constants.inc): a macro
# whose value is a string literal becomes a bytes constant (as in the older
# binding: PMIX_GROUP_ID == b'pmix.grp.id'), any other object-like macro and
# every PMIX_* enumerator an integer the compiler evaluates. Left out: function-like macros, static
# initialisers, multi-line and attribute macros.
LC_ALL=C
export LC_ALL
cat "$@" | awk '
/enum[^;]*\{/ { inenum = 1 }
inenum && /^[ \t]*PMIX_[A-Z0-9_]+/ {
    name = $1
    sub(/[^A-Z0-9_].*$/, "", name)
    if (!seen[name]++) print "SPX_PY_INT(" name ")"
}
inenum && /\}/ { inenum = 0 }
/^#define PMIX_[A-Z0-9_]+[ \t]/ {
    name = $2
    val = $0
    sub(/^#define[ \t]+[A-Z0-9_]+[ \t]+/, "", val)
    sub(/[ \t]*\/\*.*$/, "", val)
    sub(/[ \t]*\/\/.*$/, "", val)
    if (val == "" || val ~ /^\\/ || val ~ /^\{/ || val ~ /__attribute__/ || val ~ /\\$/) next
    if (name ~ /_STATIC_INIT$/ || name ~ /_H$/ || name == "PMIX_EXPORT") next
    if (seen[name]++) next
    if (val ~ /^"[^"]*"$/) print "SPX_PY_STR(" name ")"
    else print "SPX_PY_INT(" name ")"
}'
