/*
 * run_launch: spmix-run --nodes M (M >= 2). The launcher picks one free TCP
 * port, draws the job's secret (getrandom), discovers the machine's topology
 * once for all of them, forks M node daemons in node order with a bounded
 * number starting at once (run_node; node k listens on
 * spx_run_node_ip(k):port) and supervises them: it relays END to
 * every node when one reports the job must end, kills the ranks of a daemon
 * that died, keeps the --timeout, forwards the daemons' own stderr (collecting
 * the "spmix stats" lines for --stats) and tells every node to FINISH once all
 * report DONE. It never starts a PMIx library itself (the topology is plain
 * hwloc, handed to the servers with PMIX_TOPOLOGY2).
 */
#ifndef SPX_RUN_LAUNCH_H
#define SPX_RUN_LAUNCH_H

#include "run_node.h"

/* Run the job; returns spmix-run's exit code. The caller has blocked SIGCHLD,
 * SIGINT, SIGTERM and SIGHUP (oldmask: the mask before; borrowed). */
int spx_run_launch(const struct spx_run_opts *o, const char *nspace, const void *oldmask);

#endif /* SPX_RUN_LAUNCH_H */
