#!/bin/sh
# A process whose environment names an spmix server that cannot be reached
# (its launcher ended, or was killed) fails PMIx_Init with PMIX_ERR_INIT and
# one line naming the server's address, the variable and the cause - never
# PMIX_ERR_UNREACH, which Open MPI takes for "run as a singleton", so such a
# rank would run alone and "succeed". Cases: a socket path that does not
# exist (a job that ended), the environment of a rank of a job whose
# spmix-run was killed (the socket is there, nobody listens). A tool given
# the same address still gets PMIX_ERR_UNREACH (nothing to run alone in).
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_foreign) || exit 1
tool=$(spx_prog it_tool) || exit 1
for v in $(env | sed -n "s/^\(PMIX_[A-Za-z0-9_]*\)=.*/\1/p"); do unset "$v"; done
unset SPMIX_DEBUG

# refused PATH CAUSE: it_foreign failed init with PMIX_ERR_INIT and said why
refused() {
    spx_expect_rc 2
    spx_expect_out "^it_foreign: init PMIX_ERR_INIT\$"
    [ "$(wc -l <"$SPX_ERR")" = 1 ] || spx_fail "not one line on stderr"
    grep -Fq "PMIx_Init: cannot connect to this process's PMIx server at $1 (PMIX_SERVER_URI41): $2;" \
        "$SPX_ERR" || spx_fail "stderr does not name the server $1 and '$2'"
    spx_expect_err "not running as a singleton"
}
# tool_unreach URI: a tool given that server gets PMIX_ERR_UNREACH
tool_unreach() {
    out=$(timeout 20 "$tool" tool uri "$1" 2>&1)
    rc=$?
    [ $rc -eq 2 ] && echo "$out" | grep -qx "tool_init PMIX_ERR_UNREACH" ||
        spx_fail "a tool for the gone server $1: rc $rc: $out"
}

# 1. a server whose socket is gone (its job ended)
sock="$SPX_TMP/gone/s"
timeout -k 5 30 env PMIX_SERVER_URI41="spmix:$sock" PMIX_NAMESPACE=spmix-run.1 PMIX_RANK=0 \
    "$prog" >"$SPX_OUT" 2>"$SPX_ERR"
SPX_RC=$?
refused "$sock" "No such file or directory"
tool_unreach "spmix:$sock"

# 2. a rank's environment, after its spmix-run was killed
d="$SPX_TMP/killed"
mkdir -p "$d" || spx_fail "mkdir"
TMPDIR="$SPX_TMP" "$SPX_RUN" -n 1 sh -c \
    'env | grep "^PMIX_" >"$0/env.tmp" && mv "$0/env.tmp" "$0/env"
     while [ ! -e "$0/go" ]; do sleep 0.05; done' "$d" >/dev/null 2>&1 &
job=$!
i=0
while [ ! -f "$d/env" ]; do
    i=$((i + 1))
    [ $i -lt 400 ] || { kill "$job"; : >"$d/go"; spx_fail "the job did not start in 20 s"; }
    sleep 0.05
done
kill -9 "$job"
wait "$job" 2>/dev/null
: >"$d/go"   # its rank goes too
uri=$(sed -n 's/^PMIX_SERVER_URI41=//p' "$d/env")
case $uri in spmix:/*) ;; *) spx_fail "the rank's PMIX_SERVER_URI41 is '$uri'" ;; esac
[ -S "${uri#spmix:}" ] || spx_fail "the killed server's socket ${uri#spmix:} is not there"
# shellcheck disable=SC2046
timeout -k 5 30 env $(cat "$d/env") "$prog" >"$SPX_OUT" 2>"$SPX_ERR"
SPX_RC=$?
refused "${uri#spmix:}" "Connection refused"
tool_unreach "$uri"
spx_pass "an unreachable spmix server fails PMIx_Init with PMIX_ERR_INIT and a line naming it and why; tools still get PMIX_ERR_UNREACH"
