#!/bin/sh
# the machine's topology (hwloc XML), each process's cpuset and locality string
. "$(dirname "$0")/common.sh"
for mode in bound unbound; do
    spx_run 3 it_locality $mode
    spx_expect_rc 0
    spx_expect_out "^it_locality $mode: 3 ranks: OK$"
done
spx_pass "topology, cpusets and locality strings"
