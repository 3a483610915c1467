#!/usr/bin/env python3
"""fence_trace.py - where a fence's time goes, from SPMIX_TRACE_FENCE files.

    fence_trace.py [--label L] [--skip N] [--upto K] PREFIX...

Every process of a job run with SPMIX_TRACE_FENCE=PREFIX wrote PREFIX.<pid>
(lib/util/trace.h). This script joins them: a client's records carry its
count of PMIx_Fence calls (k) and the shared-memory generation it arrived in;
its server is its parent process (the node server under spmix-run, the
slurmstepd under Slurm); a server's records between a gather and its release
name the tree collective's seq, which every node shares. Each fence k then
has one timeline on one clock (CLOCK_MONOTONIC is the same in every network
namespace of a machine).

For every fence it takes the critical path from the last arrival (the latest
client PMIx_Fence call) to the last return, and prints markdown tables of
medians over the fences (microseconds):
  - the stages of that path (client send, server wake-up, tree start, UP on
    the wire, root decision, DOWN writes and wire, release, client wake-up);
  - the timeline: each event's median offset from the last arrival;
  - what rank 0 measured (its call to its return) and how much of it was
    waiting for the last arrival.
--skip N leaves out fences 1..N of each client (default 6: bench_pmix's
collecting init fence and 5 warm-ups), --upto K those after K (bench_pmix
bench ITERS: --upto 6+ITERS keeps exactly its empty fences).
Several PREFIXes (runs) are pooled.
"""
import argparse
import glob
import os
import statistics
import sys
from collections import defaultdict


def load(prefix):
    procs = []
    for path in sorted(glob.glob(glob.escape(prefix) + ".*")):
        if not path[len(prefix) + 1:].isdigit():
            continue
        p = {"pid": None, "ppid": None, "host": "?", "ev": []}
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    w = line.split()
                    if len(w) >= 9 and w[1] == "spmix":
                        p["pid"], p["ppid"], p["host"] = int(w[5]), int(w[7]), w[9] if len(w) > 9 else "?"
                    continue
                w = line.split()
                if len(w) != 6:
                    continue
                p["ev"].append((w[0], int(w[1]), int(w[2]), int(w[3]), int(w[4]), int(w[5])))
        if p["pid"] is not None and p["ev"]:
            procs.append(p)
    return procs


def med(xs):
    return statistics.median(xs) if xs else None


def analyse(procs, skip):
    clients = [p for p in procs if any(e[0].startswith("C_") for e in p["ev"])]
    servers = {p["pid"]: p for p in procs if any(e[0].startswith(("S_", "T_")) for e in p["ev"])}
    # server identity: its node index (T_DONE's b), else its order
    for pid, s in servers.items():
        done = [e for e in s["ev"] if e[0] == "T_DONE"]
        s["node"] = done[0][4] if done else None
    # gen -> k per server, from its clients
    fences = defaultdict(lambda: {"clients": {}, "servers": {}})
    gen_to_k = defaultdict(dict)
    for c in clients:
        srv = servers.get(c["ppid"])
        rank = None
        byk = defaultdict(dict)
        for name, ns, cpu, a, b, cc in c["ev"]:
            rank = b
            if name == "C_ARRIVED" and srv is not None:
                gen_to_k[srv["pid"]][cc] = a
            byk[a].setdefault(name, ns)
        c["rank"] = rank
        for k, evs in byk.items():
            fences[k]["clients"][rank] = dict(evs, node=srv["node"] if srv else None,
                                             srv=srv["pid"] if srv else None)
    # seq -> k: tree sends inside a gather's window (S_GATHERED .. S_RELEASE)
    seq_to_k = {}
    for pid, s in servers.items():
        cur = None
        for name, ns, cpu, a, b, cc in s["ev"]:
            if name == "S_GATHERED":
                cur = gen_to_k[pid].get(a)
            elif name == "S_RELEASE":
                cur = None
            elif name in ("T_UP_SEND", "T_DOWN_SEND") and cur is not None:
                seq_to_k.setdefault((cc, a), cur)
    sethash = {}
    for (h, seq), k in seq_to_k.items():
        sethash[h] = sethash.get(h, 0) + 1
    # the server-side events of each fence
    for pid, s in servers.items():
        node = s["node"]
        cur = None
        t_start_pending = []
        for name, ns, cpu, a, b, cc in s["ev"]:
            if name in ("S_REQ", "S_GATHERED", "S_RELEASE"):
                k = gen_to_k[pid].get(a)
                if k is None:
                    continue
                if name == "S_GATHERED":
                    cur = k
                d = fences[k]["servers"].setdefault(node, {})
                d.setdefault(name, ns)
                if name == "S_RELEASE":
                    cur = None
            elif name in ("T_START", "T_DONE"):
                if cur is not None:
                    fences[cur]["servers"].setdefault(node, {}).setdefault(name, ns)
            elif name.startswith("T_"):
                k = None
                if name.endswith("_SENT"):
                    # the matching _SEND's hash is not repeated: look it up by seq alone
                    ks = [kk for (h, sq), kk in seq_to_k.items() if sq == a]
                    k = ks[0] if len(ks) == 1 else cur
                else:
                    k = seq_to_k.get((cc, a))
                if k is None:
                    continue
                d = fences[k]["servers"].setdefault(node, {})
                d.setdefault("%s:%d" % (name, b), ns)
                d.setdefault(name + ":first", ns)
                d[name + ":last"] = ns
    # the critical path of each fence
    stages = defaultdict(list)
    timeline = defaultdict(list)
    r0 = defaultdict(list)
    root = None
    nodes = sorted(n for n in {s["node"] for s in servers.values()} if n is not None)
    if nodes:
        root = nodes[0]
    kept = 0
    for k in sorted(fences):
        f = fences[k]
        cl = f["clients"]
        if k <= skip or not cl or any("C_CALL" not in v or "C_RET" not in v for v in cl.values()):
            continue
        if len(f["servers"]) != len(nodes):
            continue
        kept += 1
        last = max(cl, key=lambda r: cl[r]["C_CALL"])
        t0 = cl[last]["C_CALL"]
        L = cl[last]
        nL = L["node"]
        srv = f["servers"]

        def us(a, b):
            return (b - a) / 1000.0

        def add(label, a, b):
            if a is not None and b is not None:
                stages[label].append(us(a, b))

        if 0 in cl:
            r0["rank 0: PMIx_Fence call to return"].append(us(cl[0]["C_CALL"], cl[0]["C_RET"]))
            r0["rank 0: waiting for the last arrival"].append(us(cl[0]["C_CALL"], t0))
        r0["last arrival to last return"].append(us(t0, max(v["C_RET"] for v in cl.values())))
        r0["last arrival to median return"].append(
            us(t0, statistics.median(v["C_RET"] for v in cl.values())))
        add("1 last client: call to FENCE_LOCAL written", L["C_CALL"], L.get("C_SEND"))
        sL = srv.get(nL, {})
        add("2 its server wakes on the request", L.get("C_SEND"), sL.get("S_REQ"))
        add("3 server: request to tree start", sL.get("S_REQ"), sL.get("T_START"))
        sr = srv.get(root, {})
        if nL != root:
            add("4 UP: tree start to written", sL.get("T_START"), sL.get("T_UP_SENT:first"))
            add("5 UP: written to read at the root", sL.get("T_UP_SENT:first"),
                sr.get("T_UP_RECV:%d" % nL))
            add("6 root: last UP read to first DOWN write", sr.get("T_UP_RECV:last"),
                sr.get("T_DOWN_SEND:first"))
        else:
            add("6 root: tree start to first DOWN write (last arrival at the root)",
                sL.get("T_START"), sr.get("T_DOWN_SEND:first"))
        for n in nodes:
            if n == root:
                continue
            add("7 DOWN: one write (sendmsg)", sr.get("T_DOWN_SEND:%d" % n), sr.get("T_DOWN_SENT:%d" % n))
            add("8 DOWN: written to read at the child", sr.get("T_DOWN_SENT:%d" % n),
                srv.get(n, {}).get("T_DOWN_RECV:%d" % root))
            add("8b DOWN: root decision to read at the child", sr.get("T_DOWN_SEND:first"),
                srv.get(n, {}).get("T_DOWN_RECV:%d" % root))
            add("9 child: DOWN read to release", srv.get(n, {}).get("T_DOWN_RECV:%d" % root),
                srv.get(n, {}).get("S_RELEASE"))
        add("9r root: last DOWN written to release", sr.get("T_DOWN_SENT:last"), sr.get("S_RELEASE"))
        for r, v in cl.items():
            add("10 release to client awake (futex)", srv.get(v["node"], {}).get("S_RELEASE"), v.get("C_WOKE"))
            add("11 client: awake to return", v.get("C_WOKE"), v.get("C_RET"))
        # timeline
        for r, v in cl.items():
            for name in ("C_CALL", "C_SEND", "C_WOKE", "C_RET"):
                if name in v:
                    role = "last" if r == last else "other"
                    if name == "C_CALL" and r == last:
                        continue
                    timeline["client %-5s %s" % (role, name)].append(us(t0, v[name]))
        for n, d in srv.items():
            role = "root" if n == root else "child"
            if n == nL:
                role += "(last)"
            for name in ("S_REQ", "T_START", "T_UP_SENT:first", "T_UP_RECV:first", "T_UP_RECV:last",
                         "T_DOWN_SEND:first", "T_DOWN_SENT:last", "T_DOWN_RECV:first", "T_DONE",
                         "S_RELEASE"):
                if name in d and d[name] >= t0 - 2_000_000:
                    timeline["server %-11s %s" % (role, name)].append(us(t0, d[name]))
    return kept, stages, timeline, r0


def stage_key(s):
    head = s.split()[0]
    num = "".join(ch for ch in head if ch.isdigit())
    return (int(num) if num else 99, head, s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="")
    ap.add_argument("--skip", type=int, default=6)
    ap.add_argument("--upto", type=int, default=0, help="last fence index kept (0: all)")
    ap.add_argument("prefix", nargs="+")
    a = ap.parse_args()
    allst, alltl, allr0 = defaultdict(list), defaultdict(list), defaultdict(list)
    total = 0
    for pre in a.prefix:
        procs = load(pre)
        if not procs:
            print("fence_trace.py: no trace files %s.*" % pre, file=sys.stderr)
            continue
        if a.upto:
            for p in procs:
                p["ev"] = [e for e in p["ev"] if not e[0].startswith("C_") or e[3] <= a.upto]
        kept, st, tl, r0 = analyse(procs, a.skip)
        total += kept
        for src, dst in ((st, allst), (tl, alltl), (r0, allr0)):
            for k, v in src.items():
                dst[k].extend(v)
    out = ["## fence trace %s: %d fences" % (a.label, total)]
    out.append("")
    out.append("| measure | median us | p25 | p75 | n |")
    out.append("|---|---:|---:|---:|---:|")
    for k in sorted(allr0):
        xs = sorted(allr0[k])
        q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
        out.append("| %s | %.1f | %.1f | %.1f | %d |" % (k, med(xs), q[0], q[2], len(xs)))
    out.append("")
    out.append("| stage of the critical path | median us | p25 | p75 | n |")
    out.append("|---|---:|---:|---:|---:|")
    for k in sorted(allst, key=stage_key):
        xs = sorted(allst[k])
        q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
        out.append("| %s | %.1f | %.1f | %.1f | %d |" % (k, med(xs), q[0], q[2], len(xs)))
    out.append("")
    out.append("| event (offset from the last arrival) | median us | p25 | p75 | n |")
    out.append("|---|---:|---:|---:|---:|")
    for k in sorted(alltl, key=lambda s: med(alltl[s])):
        xs = sorted(alltl[k])
        q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
        out.append("| %s | %.1f | %.1f | %.1f | %d |" % (k, med(xs), q[0], q[2], len(xs)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
