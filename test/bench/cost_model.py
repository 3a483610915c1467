#!/usr/bin/env python3
"""cost_model.py - the cost model of PMIx_Init + a collecting fence, fitted
to measured points, checked on points it was not fitted on, and projected
(doc/scale.md, "Cost model and projection").

    cost_model.py [--links-mode slurm] [--cores 2] FILE...

FILEs hold the lines written by test/bench/run_model.sh ("model ..." from
spmix-run --nodes N, "harness ..." from tree_harness, "apply ..." from
bench_apply) and by test/bench/fence_trace.sh --params ("link MODE
key=value": the per-stage medians of an empty fence's trace and the round
trips of tcp_pingpong on the same links). Later lines of the same point or
key win.

The model (every node works in parallel, as on a real cluster):

  T(N, R, W) = local(N, R) + depth(N, W) * hop(W) + B * (1 + depth * W) / bw
               + apply(N * R) + c_n * N

  depth(N, W)  levels of the W-ary tree over N nodes (1 + W + ... + W^d >= N);
               an interior node has min(W, N - 1) children (W in the formula)
  hop(W)       one level up and down on a real link, from the trace: an UP
               written and read, the parent's decision, a DOWN written and
               read, and W - 1 more DOWN writes (a node writes to its children
               one after the other: the time from one write's start to the
               next one's)
  B            the collected bytes, N * R * b_rank (b_rank measured: what one
               rank's 64-byte value costs on the wire, key and framing included)
  bw           the links' bandwidth for a message of B bytes (64 KiB and 4 MiB
               ping-pongs on the same links, log-interpolated between); the
               result is stored and forwarded: the root receives B, and each
               level receives it and writes it W times
  apply(M)     a node's CPU to read a result of M ranks into its store (the
               last leaf does it after the last DOWN): bench_apply, measured
               at M = 10^3 .. 1.28 * 10^7 and interpolated (log-log) between
               the measured points: the cost per rank grows with M (page
               faults and cache misses), so no straight line fits it; values
               over 64 bytes add a copy per byte (bench_apply -v)
  c_n          a node's CPU per node of the job in a collective (node lists
               built and checked per start), fitted with the rest of a server's
               CPU per collecting fence under spmix-run: a0 + a_r * R + c_b * B
               + c_n * N (c_b there: the small results of those runs)
  local        PMIx_Init and the node-local part of the fence: the measured
               3-node Slurm figures (rank 0's PMIx_Init; a client waking its
               server, the release, the clients' wake-up), grown by the fitted
               per-node terms of PMIx_Init: the client's CPU, and the server's
               CPU per handshake times R (a server answers its R clients one
               after the other on its one thread)

Fitting is ordinary least squares (no packages), on the spmix-run points
with at most --max-procs processes (default 1024: beyond that the CPU time
of a node grows with the number of processes sharing the cores, e.g. the
barrier's, whose work does not). Held-out checks: each fit on all points
but one predicts that one (every point in turn); the servers' fit on
N <= 256 predicts the larger points; apply's interpolation without a point
predicts it; the harness's fit at 1024 and 4096 nodes predicts 16384; the
links' parameters (from empty fences) predict the collecting fences (64 B
and 8 KiB per rank) on the same cluster. Also shown, not a check of the model: N * CPU per node / cores
against spmix-run's wall time where the cores are saturated (the wall time
there measures the CPU). Prints markdown.
"""
import argparse
import statistics
import sys


def parse(files):
    model, harness, links, apply = {}, {}, {}, {}
    for fn in files:
        with open(fn) as f:
            for line in f:
                w = line.split()
                if not w or w[0].startswith("#"):
                    continue
                kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
                if w[0] == "model":
                    model[(int(kv["nodes"]), int(kv["ppn"]))] = {k: float(v) for k, v in kv.items()}
                elif w[0] == "harness":
                    harness[(int(kv["n"]), int(kv["w"]), kv["kind"])] = kv
                elif w[0] == "apply":
                    apply[(int(kv["ranks"]), int(kv.get("value", 64)))] = {k: float(v) for k, v in kv.items()}
                elif w[0] == "link" and len(w) >= 3:
                    for k, v in kv.items():
                        links.setdefault(w[1], {})[k] = float(v)
    return model, harness, links, apply


def lstsq(rows, ys):
    """Least squares: x minimising |A x - y|, A given as rows (normal equations)."""
    n = len(rows[0])
    m = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * y for r, y in zip(rows, ys))]
         for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(m[i][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-300:
            raise ValueError("singular fit (too few distinct points)")
        for i in range(n):
            if i != c:
                f = m[i][c] / m[c][c]
                for j in range(c, n + 1):
                    m[i][j] -= f * m[c][j]
    return [m[i][n] / m[i][i] for i in range(n)]


class Fit:
    """y = sum(coef * feature(point))."""

    def __init__(self, feats):
        self.feats, self.coef = feats, None

    def fit(self, pts, y):
        self.coef = lstsq([self.feats(p) for p in pts], [y(p) for p in pts])
        return self

    def __call__(self, p):
        return sum(c * x for c, x in zip(self.coef, self.feats(p)))


def loglog(points, m):
    """y at m by linear interpolation of (log x, log y) between the measured
    points (x, y), sorted; beyond the ends, the end segment extended."""
    import math
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    lm = math.log(m)
    i = 1
    while i < len(xs) - 1 and lm > xs[i]:
        i += 1
    t = (lm - xs[i - 1]) / (xs[i] - xs[i - 1])
    return math.exp(ys[i - 1] + t * (ys[i] - ys[i - 1]))


def depth(n, w):
    d, cap, lvl = 0, 1, 1
    while cap < n:
        lvl *= w
        cap += lvl
        d += 1
    return d


def pct(pred, meas):
    return 100.0 * (pred - meas) / meas


def tm(us):
    if us >= 1e6:
        return "%.2f s" % (us / 1e6)
    if us >= 1e3:
        return "%.3g ms" % (us / 1e3)
    return "%.3g us" % us


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--links-mode", default="slurm")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--max-procs", type=int, default=1024)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    model, harness, links, apply = parse(a.files)
    if not model or a.links_mode not in links or len([m for m in apply if m[1] == 64]) < 3:
        print("cost_model.py: need model, apply and link (%s) lines" % a.links_mode, file=sys.stderr)
        return 1
    L = links[a.links_mode]
    out = []
    allpts = sorted(model)
    pts = [p for p in allpts if p[0] * (p[1] + 1) <= a.max_procs]
    b_rank = statistics.median(model[p]["coll_payload"] / p[1] for p in pts)

    def B(p):
        return p[0] * p[1] * b_rank

    # ---- fits ----
    f_srv = lambda p: [1.0, p[1], B(p), p[0]]
    y_srv = lambda p: model[p]["fence_srv_cpu_us"]
    f_lin = lambda p: [1.0, p[0]]
    y_icli = lambda p: model[p]["init_cpu_us"]
    y_isrv = lambda p: model[p]["init_srv_cpu_us"]
    one = [p for p in pts if p[1] == 1]
    srv = Fit(f_srv).fit(pts, y_srv)
    icli = Fit(f_lin).fit(pts, y_icli)
    isrv = Fit(f_lin).fit(one, y_isrv)
    apts = sorted(m for m, v in apply if v == 64)
    y_app = lambda m: apply[(m, 64)]["cpu_us"]
    app64 = lambda m: loglog([(q, y_app(q)) for q in apts], m)
    # the copy of bigger values: per byte beyond 64, at the same M
    cps = [(apply[(m, v)]["cpu_us"] - y_app(m)) / (m * (v - 64)) for m, v in apply if v > 64 and (m, 64) in apply]
    c_copy = statistics.median(cps) if cps else 0.0

    def app(m, value=64):
        return app64(m) + m * (value - 64) * c_copy

    out.append("### Measured points and fits")
    out.append("")
    out.append("Wire bytes per rank's 64-byte value (b_rank, measured): %.0f B." % b_rank)
    out.append("")
    out.append("| nodes x ranks/node | processes | server CPU per collecting fence (us) | fit | err % | its CPU per empty fence (us) | client CPU in PMIx_Init (us) | fit | err % | server CPU per handshake (us) |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in allpts:
        used = p in pts
        out.append("| %dx%d%s | %d | %.0f | %.0f | %+.1f | %.0f | %.0f | %.0f | %+.1f | %s |" % (
            p[0], p[1], "" if used else " (not fitted)", p[0] * (p[1] + 1), y_srv(p), srv(p),
            pct(srv(p), y_srv(p)), model[p]["barrier_srv_cpu_us"], y_icli(p), icli(p),
            pct(icli(p), y_icli(p)), "%.0f" % y_isrv(p) if p[1] == 1 else "-"))
    out.append("")
    out.append("| ranks in the result (bench_apply) | bytes | CPU to read it into the store | per rank | heap per rank |")
    out.append("|---:|---:|---:|---:|---:|")
    for m in apts:
        out.append("| %d | %d | %s | %.2f us | %.0f B |" % (
            m, apply[(m, 64)]["bytes"], tm(y_app(m)), y_app(m) / m, apply[(m, 64)]["heap_per_rank"]))
    out.append("")
    out.append("Values bigger than 64 bytes add %.3f ns per byte (bench_apply -v, same M)." % (1e3 * c_copy))
    out.append("")
    out.append("| fitted term | value |")
    out.append("|---|---:|")
    for nm, c in zip(["a0", "a_r: per local rank", "c_b: per collected byte", "c_n: per node of the job"],
                     srv.coef):
        out.append("| server CPU per collecting fence, %s | %.4g us |" % (nm, c))
    out.append("| client CPU in PMIx_Init: i0 + i_n N | %.4g us + %.4g us x N |" % tuple(icli.coef))
    out.append("| server CPU per handshake: h0 + h_n N | %.4g us + %.4g us x N |" % tuple(isrv.coef))

    # ---- links ----
    up = L["up_us"] + L["root_us"]
    down = L["down_us"]
    wdown = L["down_next_us"]
    # the one-CPU round trip of 64 B is taken out (the unpinned one is bimodal)
    bw_big = 2 * 4194304 / max(L["rtt_4mib_us"] - L["rtt_same_us"], 1.0)  # bytes per us
    bw_mid = 2 * 65536 / max(L.get("rtt_64kib_us", 0) - L["rtt_same_us"], 1.0) if "rtt_64kib_us" in L else bw_big

    def bw(nbytes):
        """The links' bandwidth for a message of nbytes: the 64 KiB ping-pong's
        below 64 KiB, the 4 MiB one's above 4 MiB, log-interpolated between."""
        if nbytes <= 65536:
            return bw_mid
        if nbytes >= 4194304:
            return bw_big
        return loglog([(65536, bw_mid), (4194304, bw_big)], nbytes)
    local_fence = L["notify_us"] + L["release_us"] + L["wake_us"]
    init3 = L["init_ms"] * 1000.0
    over = b_rank - 64  # key and framing around a rank's value

    def hop(w):
        return up + down + (w - 1) * wdown

    def t_init(n, r):
        return init3 + (icli((n, r)) - icli((3, 2))) + (r * isrv((n, 1)) - 2 * isrv((3, 1)))

    def t_fence(n, r, w, bwv=None, collect=True, value=64):
        d = depth(n, w)
        k = min(w, n - 1)  # children of an interior node (the root's, on 2 levels or less)
        b = n * r * (value + over) if collect else 0.0
        return {"local": local_fence, "tree": d * hop(k),
                "wire": b * (1 + d * k) / (bwv or bw(b)) if collect else 0.0,
                "apply": app(n * r, value) if collect else 0.0,
                "nodes": n * srv.coef[3]}

    out.append("")
    out.append("### Link parameters (%s links: the trace of empty fences, tcp_pingpong)" % a.links_mode)
    out.append("")
    out.append("| parameter | value |")
    out.append("|---|---:|")
    out.append("| UP: tree start, write, read at the parent, the parent's decision | %.1f us |" % up)
    out.append("| DOWN: write to read | %.1f us |" % down)
    out.append("| each further child: one DOWN write's start to the next one's | %.1f us |" % wdown)
    out.append("| hop(W), one level up and down | %.1f + %.1f (W - 1) us |" % (up + down, wdown))
    out.append("| local part of a fence: wake the own server, release, wake the clients | %.1f us |" % local_fence)
    out.append("| bandwidth: 64 KiB ping-pong / 4 MiB ping-pong | %.0f / %.0f MB/s |" % (bw_mid, bw_big))
    out.append("| TCP round trip of 64 B: unpinned / one CPU / two CPUs | %.1f / %.1f / %.1f us |"
               % (L["rtt_free_us"], L["rtt_same_us"], L["rtt_cross_us"]))
    out.append("| PMIx_Init, 3 nodes x 2, rank 0 | %.2f ms |" % L["init_ms"])

    # ---- held-out checks ----
    out.append("")
    out.append("### Held-out checks (points the fit did not see)")
    out.append("")
    out.append("| check | point | predicted | measured | error % |")
    out.append("|---|---|---:|---:|---:|")
    errs = []

    def check(what, point, pred, meas):
        e = pct(pred, meas)
        errs.append(abs(e))
        out.append("| %s | %s | %s | %s | %+.1f |" % (what, point, tm(pred), tm(meas), e))

    for p in pts:  # leave one out
        rest = [q for q in pts if q != p]
        check("server CPU per collecting fence, fit on the other points", "%dx%d" % p,
              Fit(f_srv).fit(rest, y_srv)(p), y_srv(p))
    for p in pts:
        rest = [q for q in pts if q != p]
        check("client CPU in PMIx_Init, fit on the other points", "%dx%d" % p,
              Fit(f_lin).fit(rest, y_icli)(p), y_icli(p))
    small = [p for p in pts if p[0] <= 256]
    for p in (p for p in pts if p[0] > 256):
        check("server CPU per collecting fence, fit on N <= 256", "%dx%d" % p,
              Fit(f_srv).fit(small, y_srv)(p), y_srv(p))
    for m in apts[1:-1]:
        check("apply, interpolated without this point", "%d ranks" % m,
              loglog([(q, y_app(q)) for q in apts if q != m], m), y_app(m))
    for kind in ("barrier", "fence"):
        hs = sorted((n, float(h["cpu_us_per_node"])) for (n, w, k), h in harness.items()
                    if k == kind and w == 16)
        if len(hs) >= 3:
            hf = Fit(lambda q: [1.0, q[0]]).fit(hs[:-1], lambda q: q[1])
            check("tree engine CPU per node (harness, %s), fit at %s nodes" % (kind, ", ".join(str(q[0]) for q in hs[:-1])),
                  "%d nodes" % hs[-1][0], hf(hs[-1]), hs[-1][1])
    if "fence_64b_us" in L:
        check("collecting fence 64 B/rank on the cluster, from the empty fences' stages", "3x2",
              sum(t_fence(3, 2, 16).values()), L["fence_64b_us"])
    if "fence_8kib_us" in L:
        check("collecting fence 8 KiB/rank on the cluster, from the empty fences' stages", "3x2",
              sum(t_fence(3, 2, 16, value=8192).values()), L["fence_8kib_us"])
    if L.get("fence_1mib_us"):
        check("collecting fence 1 MiB/rank on the cluster, from the empty fences' stages", "3x2",
              sum(t_fence(3, 2, 16, value=1048576).values()), L["fence_1mib_us"])
    fitted_errs = list(errs)
    for p in (p for p in allpts if p not in pts):
        e = pct(srv(p), y_srv(p))
        out.append("| (server CPU per collecting fence beyond %d processes: not a check) | %dx%d | %s | %s | %+.1f |"
                   % (a.max_procs, p[0], p[1], tm(srv(p)), tm(y_srv(p)), e))
    out.append("")
    out.append("Held-out error: mean |error| %.1f %%, median %.1f %%, largest %.1f %% (%d checks)."
               % (statistics.mean(fitted_errs), statistics.median(fitted_errs), max(fitted_errs),
                  len(fitted_errs)))
    out.append("")
    out.append("Not a check of the model, the accounting of spmix-run's wall time where the %d cores are saturated"
               " (N x (server + R clients' CPU per fence) / cores):" % a.cores)
    out.append("")
    out.append("| nodes x ranks/node | N x CPU per node / cores | measured wall | ratio |")
    out.append("|---|---:|---:|---:|")
    for p in allpts:
        cpu = y_srv(p) + p[1] * model[p]["fence_cpu_us"]
        pred = p[0] * cpu / a.cores
        out.append("| %dx%d | %s | %s | %.2f |" % (p[0], p[1], tm(pred), tm(model[p]["fence_us"]),
                                                 model[p]["fence_us"] / pred))

    # ---- projection ----
    out.append("")
    out.append("### Projection: PMIx_Init + a collecting fence of 64 B per rank")
    out.append("")
    out.append("| nodes x ranks/node, width | depth | PMIx_Init | fence local | tree hops | bytes on the links | apply | per-node lists | total |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = [(3, 2, 16, None), (1024, 1, 16, None), (10000, 128, 16, None), (100000, 128, 16, None),
            (10000, 128, 2, None), (100000, 128, 2, None), (10000, 128, 16, 12500.0),
            (100000, 128, 16, 12500.0)]
    for n, r, w, bwv in rows:
        ti = t_init(n, r)
        tf = t_fence(n, r, w, bwv)
        label = "%d x %d, W=%d%s" % (n, r, w, ", links at 12.5 GB/s" if bwv else "")
        out.append("| %s | %d | %s | %s | %s | %s | %s | %s | **%s** |" % (
            label, depth(n, w), tm(ti), tm(tf["local"]), tm(tf["tree"]), tm(tf["wire"]),
            tm(tf["apply"]), tm(tf["nodes"]), tm(ti + sum(tf.values()))))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
