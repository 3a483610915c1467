# py_bench.py - put/commit/fence/get from Python, one script for any `pmix`
# module with the older binding's API (ours, or Debian's python3-pmix), run
# as every rank of a job by run_python.sh:
#   python3 py_bench.py [ROUNDS]
# Each round: PUTS puts of an int, a commit, a collecting fence over the job,
# and a get of every key of the next rank. Rank 0 prints one line:
#   py_bench: MODULE ranks N rounds R put_us P commit_us C fence_us F get_us G total_s T
# (microseconds per call, medians over the rounds; total wall time). Keys
# do not start with "b": the older binding takes such a str for the repr of
# a bytes key and cuts it.
import os
import sys
import time
import warnings

warnings.simplefilter("ignore")
import pmix  # noqa: E402

PUTS = 50


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    c = pmix.PMIxClient()
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(devnull, 1)  # Debian's module prints on init
    rc, me = c.init([])
    os.dup2(saved, 1)
    if rc != 0:
        print("py_bench: init returned %d" % rc, file=sys.stderr)
        return 1
    ns, rank = me["nspace"], me["rank"]
    rc, v = c.get({"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}, pmix.PMIX_JOB_SIZE, [])
    n = v["value"]
    peer = {"nspace": ns, "rank": (rank + 1) % n}
    job = [{"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}]
    collect = [{"key": pmix.PMIX_COLLECT_DATA, "value": True, "val_type": pmix.PMIX_BOOL}]
    t_put, t_commit, t_fence, t_get = [], [], [], []
    c.fence(job, [])
    start = time.perf_counter()
    for r in range(rounds):
        keys = ["k.%d.%d" % (r, i) for i in range(PUTS)]
        t0 = time.perf_counter()
        for i, k in enumerate(keys):
            if c.put(pmix.PMIX_GLOBAL, k, {"value": i, "val_type": pmix.PMIX_INT}) != 0:
                raise SystemExit("put failed")
        t1 = time.perf_counter()
        c.commit()
        t2 = time.perf_counter()
        if c.fence(job, collect) != 0:
            raise SystemExit("fence failed")
        t3 = time.perf_counter()
        for i, k in enumerate(keys):
            rc, v = c.get(peer, k, [])
            if rc != 0 or v["value"] != i:
                raise SystemExit("get %s: %d %r" % (k, rc, v))
        t4 = time.perf_counter()
        t_put.append((t1 - t0) / PUTS)
        t_commit.append(t2 - t1)
        t_fence.append(t3 - t2)
        t_get.append((t4 - t3) / PUTS)
    total = time.perf_counter() - start
    c.fence(job, [])
    if rank == 0:
        where = os.path.dirname(pmix.__file__)
        mod = "ours" if "dist-packages" not in where else "debian-python3-pmix"
        os.write(1, ("py_bench: %s ranks %d rounds %d put_us %.2f commit_us %.2f fence_us %.1f "
                     "get_us %.2f total_s %.3f\n" % (mod, n, rounds, median(t_put) * 1e6,
                                                      median(t_commit) * 1e6, median(t_fence) * 1e6,
                                                      median(t_get) * 1e6, total)).encode())
    os.dup2(devnull, 1)
    c.finalize([])
    return 0


if __name__ == "__main__":
    sys.exit(main())
