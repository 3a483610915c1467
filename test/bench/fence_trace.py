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
--params FILE appends the medians the cost model uses (test/bench/cost_model.py)
as "link TAG key=value" lines, TAG from --params-tag.
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
    chains = defaultdict(list)
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
            add("4 UP: tree start to its write", sL.get("T_START"), sL.get("T_UP_SEND:first"))
            add("5 UP: write to read at the root", sL.get("T_UP_SEND:first"),
                sr.get("T_UP_RECV:%d" % nL))
            add("6 root: last UP read to first DOWN write", sr.get("T_UP_RECV:last"),
                sr.get("T_DOWN_SEND:first"))
        else:
            add("6 root: tree start to first DOWN write (last arrival at the root)",
                sL.get("T_START"), sr.get("T_DOWN_SEND:first"))
        for n in nodes:
            if n == root:
                continue
            add("7 DOWN: one write (sendmsg call to return)", sr.get("T_DOWN_SEND:%d" % n),
                sr.get("T_DOWN_SENT:%d" % n))
            if n != nodes[1]:
                add("7b root: one DOWN write's start to the next one's", sr.get("T_DOWN_SEND:%d" % (n - 1)),
                    sr.get("T_DOWN_SEND:%d" % n))
            add("8 DOWN: write to read at the child", sr.get("T_DOWN_SEND:%d" % n),
                srv.get(n, {}).get("T_DOWN_RECV:%d" % root))
            add("8b DOWN: root decision to read at the child", sr.get("T_DOWN_SEND:first"),
                srv.get(n, {}).get("T_DOWN_RECV:%d" % root))
            add("9 child: DOWN read to release", srv.get(n, {}).get("T_DOWN_RECV:%d" % root),
                srv.get(n, {}).get("S_RELEASE"))
        add("9r root: last DOWN written to release", sr.get("T_DOWN_SENT:last"), sr.get("S_RELEASE"))
        for r, v in cl.items():
            add("10 release to client awake (futex)", srv.get(v["node"], {}).get("S_RELEASE"), v.get("C_WOKE"))
            add("11 client: awake to return", v.get("C_WOKE"), v.get("C_RET"))
        # the chain from the last arrival to the last return, in segments that
        # add up: what completed the root's gather, the root's decision, the
        # DOWN to the last returner's node, its release, its wake-up
        Z = max(cl, key=lambda r: cl[r]["C_RET"])
        nZ = cl[Z]["node"]
        trig = [(sr.get("T_START"), "root")] + [
            (sr.get("T_UP_RECV:%d" % n), n) for n in nodes if n != root]
        trig = [t for t in trig if t[0] is not None]
        dec = sr.get("T_DOWN_SEND:first")
        sZ = srv.get(nZ, {})
        if trig and dec is not None and sZ.get("S_RELEASE") and cl[Z].get("C_WOKE"):
            t_trig, who = max(trig)
            seg = []
            if who == "root":
                case = "root's own clients last"
                seg.append(("a. last arrival: call to FENCE_LOCAL written", t0, L.get("C_SEND")))
                seg.append(("b. the root's server wakes on it", L.get("C_SEND"), sr.get("S_REQ")))
                seg.append(("c. root: request to tree start", sr.get("S_REQ"), t_trig))
            else:
                case = "a child's UP last"
                sw = srv.get(who, {})
                seg.append(("a. last arrival: call to FENCE_LOCAL written", t0, L.get("C_SEND")))
                seg.append(("b. its server wakes on it (or later: the last UP)", L.get("C_SEND"), sw.get("S_REQ")))
                seg.append(("c. child: request to tree start", sw.get("S_REQ"), sw.get("T_START")))
                seg.append(("d. child: tree start to its UP write", sw.get("T_START"), sw.get("T_UP_SEND:first")))
                seg.append(("e. UP: write to read at the root", sw.get("T_UP_SEND:first"), t_trig))
            seg.append(("f. root: decision (first DOWN write starts)", t_trig, dec))
            if nZ == root:
                seg.append(("g. root: DOWN writes to the children", dec, sr.get("T_DOWN_SENT:last")))
                seg.append(("h. root: to its own release", sr.get("T_DOWN_SENT:last"), sZ["S_RELEASE"]))
            else:
                seg.append(("g. root: DOWN writes before this child's", dec, sr.get("T_DOWN_SEND:%d" % nZ)))
                seg.append(("g2. DOWN to this child: write and read", sr.get("T_DOWN_SEND:%d" % nZ),
                            sZ.get("T_DOWN_RECV:%d" % root)))
                seg.append(("h. child: DOWN read to release", sZ.get("T_DOWN_RECV:%d" % root), sZ["S_RELEASE"]))
            seg.append(("i. release to the last client awake", sZ["S_RELEASE"], cl[Z]["C_WOKE"]))
            seg.append(("j. awake to return", cl[Z]["C_WOKE"], cl[Z]["C_RET"]))
            case += ", the last to return on %s" % ("the root" if nZ == root else "a child")
            if all(x[1] is not None and x[2] is not None for x in seg):
                chains[case].append([(lab, us(x, y)) for lab, x, y in seg])
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
            for name in ("S_REQ", "T_START", "T_UP_SEND:first", "T_UP_RECV:first", "T_UP_RECV:last",
                         "T_DOWN_SEND:first", "T_DOWN_SENT:last", "T_DOWN_RECV:first", "T_DONE",
                         "S_RELEASE"):
                if name in d and d[name] >= t0 - 2_000_000:
                    timeline["server %-11s %s" % (role, name)].append(us(t0, d[name]))
    return kept, stages, timeline, r0, chains


def stage_key(s):
    head = s.split()[0]
    num = "".join(ch for ch in head if ch.isdigit())
    return (int(num) if num else 99, head, s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="")
    ap.add_argument("--skip", type=int, default=6)
    ap.add_argument("--upto", type=int, default=0, help="last fence index kept (0: all)")
    ap.add_argument("--params", default="", help="append the stage medians as link lines to this file")
    ap.add_argument("--params-tag", default="", help="words between 'link' and key=value")
    ap.add_argument("prefix", nargs="+")
    a = ap.parse_args()
    allst, alltl, allr0, allch = defaultdict(list), defaultdict(list), defaultdict(list), defaultdict(list)
    total = 0
    for pre in a.prefix:
        procs = load(pre)
        if not procs:
            print("fence_trace.py: no trace files %s.*" % pre, file=sys.stderr)
            continue
        if a.upto:
            for p in procs:
                p["ev"] = [e for e in p["ev"] if not e[0].startswith("C_") or e[3] <= a.upto]
        kept, st, tl, r0, ch = analyse(procs, a.skip)
        total += kept
        for src, dst in ((st, allst), (tl, alltl), (r0, allr0), (ch, allch)):
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
    nch = sum(len(v) for v in allch.values())
    for case in sorted(allch, key=lambda c: -len(allch[c])):
        segs = allch[case]
        if not segs or len(segs) < 0.1 * nch:
            continue
        out.append("")
        out.append("Critical path, %s (%d of %d fences):" % (case, len(segs), nch))
        out.append("")
        out.append("| segment | mean us | median us |")
        out.append("|---|---:|---:|")
        labels = []
        for seglist in segs:
            for lab, _ in seglist:
                if lab not in labels:
                    labels.append(lab)
        tot = []
        for seglist in segs:
            tot.append(sum(v for _, v in seglist))
        for lab in labels:
            xs = [v for seglist in segs for l2, v in seglist if l2 == lab]
            # a segment absent from a fence counts 0 (the means then add up)
            mean = sum(xs) / len(segs)
            out.append("| %s | %.1f | %.1f |" % (lab, mean, med(xs)))
        out.append("| **last arrival to last return** | **%.1f** | **%.1f** |"
                   % (sum(tot) / len(tot), med(tot)))
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
    if a.params:
        # the per-hop parameters of the cost model (test/bench/cost_model.py)
        names = {
            "notify_us": ("1 ", "2 ", "3 "),      # last client to its server's tree start
            "up_us": ("4 ", "5 "),
            "root_us": ("6 root: last UP",),
            "down_next_us": ("7b ",),
            "down_us": ("8 ",),
            "release_us": ("9 ",),
            "wake_us": ("10 ", "11 "),
        }
        with open(a.params, "a") as f:
            tag = ("link " + a.params_tag).rstrip() + " "
            f.write("# fence_trace.py %s: %d fences\n" % (a.label, total))
            for key, pres in names.items():
                v = 0.0
                for pre in pres:
                    ks = [k for k in allst if k.startswith(pre)]
                    v += med(allst[ks[0]]) if ks and allst[ks[0]] else 0.0
                f.write("%s%s=%.2f\n" % (tag, key, v))
            for k in ("rank 0: PMIx_Fence call to return", "last arrival to last return"):
                if allr0.get(k):
                    f.write("%s%s=%.2f\n" % (tag, "fence_r0_us" if k.startswith("rank") else "path_us",
                                              med(allr0[k])))


if __name__ == "__main__":
    main()
