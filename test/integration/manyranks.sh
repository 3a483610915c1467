#!/bin/sh
# manyranks.sh: 256 ranks on one node (one server, no --nodes): PMIx_Init, a
# collecting fence with two other ranks' values checked, a group of all with
# a context id, and a push to every rank's stdin (bignodes.sh does it all).
exec sh "$(dirname "$0")/bignodes.sh" 1 256
