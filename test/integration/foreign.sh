#!/bin/sh
# Server variables that name no spmix server make PMIx_Init fail with one
# line naming the variable, its value and the fix, instead of a silent
# singleton: another PMIx server's URI (OpenPMIx's "tcp4://..." as Slurm's
# --mpi=pmix sets it) is PMIX_ERR_NOT_SUPPORTED, an identity (PMIX_NAMESPACE/
# PMIX_RANK) without any URI is PMIX_ERR_INIT. Only a process with none of
# them is a singleton; other PMIX_* settings do not count; under spmix-run
# our server wins over foreign variables inherited from outside.
. "$(dirname "$0")/common.sh"
prog=$(spx_prog it_foreign) || exit 1
for v in $(env | sed -n "s/^\(PMIX_[A-Za-z0-9_]*\)=.*/\1/p"); do unset "$v"; done
unset SPMIX_DEBUG

# one NAME=VALUE... case: run it_foreign with these variables added
try() {
    timeout -k 5 30 env "$@" "$prog" >"$SPX_OUT" 2>"$SPX_ERR"
    SPX_RC=$?
}
# the refused case: status, one stderr line naming NAME=VALUE and the fix
refused() { # status name value fix-regex
    spx_expect_rc 2
    spx_expect_out "^it_foreign: init $1\$"
    grep -Fq "$2=$3 " "$SPX_ERR" || spx_fail "stderr does not name $2=$3"
    spx_expect_err "$4"
    [ "$(wc -l <"$SPX_ERR")" = 1 ] || spx_fail "not one line on stderr"
}
uri='pmix-server.4321;tcp4://127.0.0.1:45257'   # as OpenPMIx 4.2 sets it
fix='srun --mpi=spmix or spmix-run, or remove its directory from LD_LIBRARY_PATH'

try PMIX_SERVER_URI41="$uri" PMIX_NAMESPACE=slurm.pmix.77.0 PMIX_RANK=1
refused PMIX_ERR_NOT_SUPPORTED PMIX_SERVER_URI41 "$uri" "$fix"
spx_expect_err "this library \(.*libpmix\.so[.0-9]*\) is spmix's libpmix\.so\.2"

try PMIX_SERVER_URI2="$uri"
refused PMIX_ERR_NOT_SUPPORTED PMIX_SERVER_URI2 "$uri" "$fix"

try PMIX_SERVER_URI="pmix-server:4321:/tmp/pmix-4321" PMIX_NAMESPACE=old PMIX_RANK=0
refused PMIX_ERR_NOT_SUPPORTED PMIX_SERVER_URI "pmix-server:4321:/tmp/pmix-4321" "$fix"

try PMIX_NAMESPACE=slurm.pmix.77.0 PMIX_RANK=1
refused PMIX_ERR_INIT PMIX_NAMESPACE slurm.pmix.77.0 "unset PMIX_NAMESPACE and PMIX_RANK to run as a singleton"

try PMIX_RANK=3
refused PMIX_ERR_INIT PMIX_RANK 3 "unset PMIX_NAMESPACE and PMIX_RANK"

# settings and tool rendezvous hints, an empty URI: still a singleton
try PMIX_SERVER_TMPDIR=/tmp PMIX_SYSTEM_TMPDIR=/tmp PMIX_MCA_ptl=tcp PMIX_VERSION=4.2.2 \
    PMIX_SERVER_URI2= PMIX_NAMESPACE=
spx_expect_rc 0
spx_expect_out "^it_foreign: init PMIX_SUCCESS rank 0 size 1$"
try
spx_expect_rc 0
spx_expect_out "^it_foreign: init PMIX_SUCCESS rank 0 size 1$"

# spmix-run inside an environment of another server: its clients use ours
export PMIX_SERVER_URI="tcp4://127.0.0.1:1234" PMIX_NAMESPACE=outer PMIX_RANK=5
spx_run 2 it_foreign
spx_expect_rc 0
spx_expect_out "^it_foreign: init PMIX_SUCCESS rank 1 size 2$"
spx_pass "foreign server variables fail PMIx_Init with the variable and the fix; none is a singleton"
