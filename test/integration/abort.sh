#!/bin/sh
# a rank that aborts or is killed ends the job promptly with its status
. "$(dirname "$0")/common.sh"
spx_run 3 it_abort abort
spx_expect_rc 7
spx_expect_err "spmix-run: rank 1 called PMIx_Abort with status 7: it_abort: rank 1 gives up on purpose"
spx_expect_faster 10
spx_run 3 it_abort kill
[ "$SPX_RC" -ne 0 ] || spx_fail "a rank was killed but the job exited 0"
spx_expect_rc 137
spx_expect_err "rank 1 .*killed by signal 9"
spx_expect_faster 10
spx_pass "abort (status 7) and SIGKILL (137) end the job"
