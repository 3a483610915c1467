# common.sh: helpers for the integration test scripts (sourced, not run).
#
# The scripts run client programs as real jobs under tools/spmix-run from the
# build tree. make check exports SPX_TOP_BUILDDIR, SPX_TOP_SRCDIR and
# SPX_LIBDIR; to run a script by hand, export SPX_TOP_BUILDDIR yourself.
#
#   spx_run N prog [args]   run prog (a program of this directory) as N ranks
#                           under spmix-run; sets SPX_RC, SPX_ELAPSED (s) and
#                           leaves the output in $SPX_OUT and $SPX_ERR;
#                           on $SPX_NODES simulated nodes when it is set
#                           (spmix-run --nodes), with $SPX_RUN_OPTS added
#   spx_nodes_ranks M       the rank count the multi-node tests use on M nodes
#   spx_rdv_job DIR         the rendezvous files in DIR a tool naming no server
#                           reads (with --nodes each node's server has one more,
#                           naming the launcher: not listed); none yet: nothing
#   spx_expect_rc N         the job's exit status must be N
#   spx_expect_out RE       stdout must match the extended regex RE
#   spx_expect_err RE       stderr must match RE
#   spx_expect_faster S     the job must have taken less than S seconds
#   spx_fail MSG            fail the test, showing the job's output
#   spx_pass MSG            report success and exit 0

spx_fail() {
    echo "FAIL: $*" >&2
    if [ -n "${SPX_OUT:-}" ] && [ -f "$SPX_OUT" ]; then
        echo "---- stdout of the last job ----" >&2
        sed -n '1,60p' "$SPX_OUT" >&2
        echo "---- stderr of the last job ----" >&2
        sed -n '1,60p' "$SPX_ERR" >&2
    fi
    exit 1
}

spx_pass() {
    echo "PASS: $*"
    exit 0
}

if [ -z "${SPX_TOP_BUILDDIR:-}" ]; then
    echo "FAIL: SPX_TOP_BUILDDIR is not set (run through 'make check', or export it" \
         "to the top of the build tree)" >&2
    exit 1
fi
SPX_RUN="$SPX_TOP_BUILDDIR/tools/spmix-run"
SPX_IT_DIR="$SPX_TOP_BUILDDIR/test/integration"
[ -x "$SPX_RUN" ] || spx_fail "launcher not built: $SPX_RUN (run 'make' in $SPX_TOP_BUILDDIR)"
SPX_TIMEOUT=${SPX_TIMEOUT:-60}

SPX_TMP=$(mktemp -d "${TMPDIR:-/tmp}/spx-it.XXXXXX") || spx_fail "mktemp failed"
trap 'rm -rf "$SPX_TMP"' EXIT
SPX_OUT="$SPX_TMP/stdout"
SPX_ERR="$SPX_TMP/stderr"

spx_now() { date +%s.%N; }

# spx_prog NAME: path of a test program, or fail clearly
spx_prog() {
    [ -x "$SPX_IT_DIR/$1" ] || spx_fail "test program not built: $SPX_IT_DIR/$1 (run 'make check')"
    echo "$SPX_IT_DIR/$1"
}

spx_run() {
    _n=$1; shift
    _prog=$(spx_prog "$1") || exit 1; shift
    _t0=$(spx_now)
    # shellcheck disable=SC2086
    timeout -k 5 "$SPX_TIMEOUT" "$SPX_RUN" -n "$_n" --nodes "${SPX_NODES:-1}" \
        ${SPX_RUN_OPTS:-} --timeout $((SPX_TIMEOUT - 10)) \
        "$_prog" "$@" >"$SPX_OUT" 2>"$SPX_ERR"
    SPX_RC=$?
    SPX_ELAPSED=$(awk -v a="$_t0" -v b="$(spx_now)" 'BEGIN { printf "%.2f", b - a }')
}

# 1 node: 4 ranks; 3 nodes: 2 each; 16 nodes: 20 ranks (block: nodes 0-3
# hold two, the others one, so both shared and lone nodes are covered).
spx_nodes_ranks() {
    case $1 in
    1) echo 4 ;;
    16) echo 20 ;;
    *) echo $(($1 * 2)) ;;
    esac
}

spx_rdv_job() {
    for _f in "$1"/spmix.tool.*; do
        case ${_f##*/spmix.tool.} in
        *[!0-9]*) continue ;;   # a file being written (.new), or no file at all
        esac
        grep -q '^launcher ' "$_f" 2>/dev/null || echo "$_f"
    done
}

spx_expect_rc() {
    [ "$SPX_RC" -eq "$1" ] || spx_fail "exit status $SPX_RC, expected $1"
}

spx_expect_out() {
    grep -Eq -- "$1" "$SPX_OUT" || spx_fail "stdout does not match '$1'"
}

spx_expect_err() {
    grep -Eq -- "$1" "$SPX_ERR" || spx_fail "stderr does not match '$1'"
}

spx_expect_faster() {
    awk -v e="$SPX_ELAPSED" -v l="$1" 'BEGIN { exit !(e < l) }' ||
        spx_fail "the job took $SPX_ELAPSED s, expected less than $1 s"
}
