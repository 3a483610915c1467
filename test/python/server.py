# server.py N - a PMIx server written in Python on our pmix module
# (pyserver.sh). Checks, before init, that bad arguments raise TypeError or
# ValueError naming the method, and that a server function the library never
# calls ("spawn") draws a RuntimeWarning. Then init with Python functions for
# clientconnected, clientfinalized, abort, fencenb, publish, lookup,
# unpublish, query, jobcontrol, notify_event, group, pushstdin; registers a
# namespace of N clients, setup_fork's environment for each, starts N
# server_client.py processes, asks dmodex_request for rank 0's data while
# they run; then a tool pushes into rank 0's stdin. Asserts what each
# function saw: every rank connected and finalized, a fence over the whole
# namespace with the clients' data, abort's caller/status/msg/targets, the
# arguments of publish/lookup/unpublish/query/jobcontrol/notify_event/group/
# pushstdin, a raising lookup reported through sys.unraisablehook, blocking
# calls made from clientconnected returning PMIX_ERR_WOULD_BLOCK. Prints
# "server.py: OK"; exits 1 at the first failed check.
import os
import subprocess
import sys
import tempfile
import threading
import warnings

from pmix import *  # noqa: F403

N = int(sys.argv[1]) if len(sys.argv) > 1 else 3
NS = "spx-pyserver"
HERE = os.path.dirname(os.path.abspath(__file__))
srv = PMIxServer()  # noqa: F405
lock = threading.Lock()
seen = {"connected": [], "finalized": [], "fence": [], "abort": [], "publish": [],
        "lookup": [], "unpublish": [], "query": [], "jobcontrol": [], "blocking": [],
        "notify": [], "group": [], "stdin": [],
        "raised": []}
published = {}


def fail(msg):
    os.write(1, ("server.py: FAIL: %s\n" % msg).encode())
    os._exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def note(what, x):
    with lock:
        seen[what].append(x)


def unraisable(u):
    note("raised", repr(u.exc_value))
    sys.__unraisablehook__(u)  # still printed with its traceback


sys.unraisablehook = unraisable


# ---- the server functions (run on the library's progress thread) ----

def clientconnected(proc):
    note("connected", proc)
    if proc["rank"] == 0:  # blocking calls from here must not wait for this thread
        note("blocking", ("register_client", srv.register_client(proc, os.getuid(), os.getgid())))
        note("blocking", ("dmodex_request", srv.dmodex_request(proc)[0]))
        note("blocking", ("setup_application", srv.setup_application(NS, [])[0]))
        note("blocking", ("setup_local_support", srv.setup_local_support(NS, [])))
    return PMIX_SUCCESS


def clientfinalized(proc):
    note("finalized", proc)
    return PMIX_SUCCESS


def abort(args):
    note("abort", args)
    return PMIX_SUCCESS


fenced = threading.Event()


def fencenb(args):
    note("fence", args)
    fenced.set()
    return PMIX_SUCCESS, args["data"]  # one node: everyone's data is what came


def publish(args):
    note("publish", args)
    with lock:
        for d in args["directives"]:
            published[d["key"]] = (args["proc"], d["value"], d["val_type"])
    return PMIX_SUCCESS


def lookup(args):
    note("lookup", args)
    if "spx-raise" in args["keys"]:
        raise ValueError("spx-server-boom")
    out = []
    with lock:
        for k in args["keys"]:
            if k in published:
                p, v, t = published[k]
                out.append({"key": k, "value": v, "val_type": t, "proc": p})
    return (PMIX_SUCCESS if out else PMIX_ERR_NOT_FOUND), out


def unpublish(args):
    note("unpublish", args)
    with lock:
        for k in args["keys"]:
            published.pop(k, None)
    return None  # counts as success


def query(args, queries):
    note("query", args)
    return PMIX_SUCCESS, [{"key": "spx.q", "value": "answer-%d" % args["source"]["rank"],
                           "val_type": PMIX_STRING}]


def jobcontrol(args):
    note("jobcontrol", args)
    return PMIX_SUCCESS


def notify_event(args):
    note("notify", args)
    return PMIX_SUCCESS


def group(args):
    note("group", args)
    if args["op"] == PMIX_GROUP_CONSTRUCT:
        return PMIX_SUCCESS, [{"key": PMIX_GROUP_CONTEXT_ID, "value": 77, "val_type": PMIX_SIZE}]
    return PMIX_SUCCESS


def pushstdin(args):
    note("stdin", args)
    return PMIX_SUCCESS


TOOL = """
import sys
from pmix import *
t = PMIxTool()
rc, me = t.init([])
assert rc == 0, "tool init: %d" % rc
rc = t.iof_push([{"nspace": sys.argv[1], "rank": 0}], {"bytes": b"spx-stdin-data"}, [])
assert rc == 0, "iof_push: %d" % rc
t.finalize()
print("tool: OK")
"""


def expect_error(exc, fn, *args):
    try:
        fn(*args)
    except exc as e:
        check(fn.__name__ in str(e) or "init" in str(e), "message names no method: %s" % e)
        return str(e)
    fail("%s%r did not raise %s" % (fn.__name__, args, exc.__name__))


# ---- bad input ----
expect_error(ValueError, srv.init, [], {"nosuch": print})
expect_error(TypeError, srv.init, [], {"fencenb": 3})
expect_error(TypeError, srv.init, [], ["fencenb"])
expect_error(TypeError, srv.init, {"key": "x"}, {})
expect_error(TypeError, srv.register_nspace, 5, 1, [])
expect_error(ValueError, srv.register_nspace, "x" * 300, 1, [])
expect_error(ValueError, srv.register_nspace, NS, 1, [{"key": "k"}])
expect_error(TypeError, srv.register_nspace, NS, 1, ["k"])
expect_error(TypeError, srv.register_client, "rank0", 0, 0)
expect_error(ValueError, srv.register_client, {"nspace": NS}, 0, 0)
expect_error(TypeError, srv.register_client, {"nspace": NS, "rank": "0"}, 0, 0)
expect_error(ValueError, srv.register_client, {"nspace": NS, "rank": 1 << 40}, 0, 0)
expect_error(TypeError, srv.setup_fork, {"nspace": NS, "rank": 0}, [])
expect_error(TypeError, srv.dmodex_request, None)
expect_error(TypeError, srv.iof_deliver, {"nspace": NS, "rank": 0}, PMIX_FWD_STDOUT_CHANNEL, 5)
check(all(getattr(PMIxServer, m).__doc__ for m in dir(PMIxServer) if not m.startswith("_")),
      "a method without a docstring")

# ---- init ----
tmp = tempfile.mkdtemp(prefix="spx-pyserver.")
fns = {"clientconnected": clientconnected, "client_finalized": clientfinalized, "abort": abort,
       "fencenb": fencenb, "publish": publish, "lookup": lookup, "unpublish": unpublish,
       "query": query, "job_control": jobcontrol, "notify_event": notify_event, "group": group,
       "push_stdin": pushstdin, "spawn": print}
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    rc = srv.init([{"key": PMIX_SERVER_TMPDIR, "value": tmp, "val_type": PMIX_STRING},
                   {"key": PMIX_SYSTEM_TMPDIR, "value": tmp, "val_type": PMIX_STRING},
                   {"key": PMIX_SERVER_TOOL_SUPPORT, "value": True, "val_type": PMIX_BOOL}], fns)
check(rc == 0, "init: %d" % rc)
check(len(w) == 1 and w[0].category is RuntimeWarning and "spawn" in str(w[0].message),
      "no warning for a function the library never calls: %r" % [str(x.message) for x in w])

# a second init is refused and leaves the running server's functions alone
check(srv.init([], {"fencenb": lambda a: (0, b"")}) == PMIX_ERR_INIT, "second init")

job = [{"key": PMIX_JOB_SIZE, "value": N, "val_type": PMIX_UINT32},
       {"key": PMIX_LOCAL_SIZE, "value": N, "val_type": PMIX_UINT32}]
check(srv.register_nspace(NS, N, job) == 0, "register_nspace")
procs = []
for r in range(N):
    proc = {"nspace": NS, "rank": r}
    check(srv.register_client(proc, os.getuid(), os.getgid()) == 0, "register_client %d" % r)
    env = dict(os.environ)
    check(srv.setup_fork(proc, env) == 0, "setup_fork %d" % r)
    check(any(k.startswith("PMIX_") for k in env if k not in os.environ), "setup_fork added nothing")
    procs.append(subprocess.Popen([sys.executable, os.path.join(HERE, "server_client.py"), str(N)],
                                  env=env, stdout=subprocess.PIPE, text=True))

# rank 0's committed data, asked as soon as the clients are started: the
# answer waits for rank 0's commit (its record, never an empty one before)
rc, (data, size) = srv.dmodex_request({"nspace": NS, "rank": 0})
check(fenced.wait(60), "no fence")
check(rc == 0 and size == len(data) and size > 0, "dmodex_request: %d %r" % (rc, size))
check(b"val-0" in data and b"val-1" not in data, "dmodex_request: not rank 0's data: %r" % data)

outs = []
for r, p in enumerate(procs):
    try:
        out, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        for q in procs:
            q.kill()
        fail("client %d hangs" % r)
    outs.append(out)
    check(p.returncode == 0, "client %d exited %d: %s" % (r, p.returncode, out))
oks = [line for o in outs for line in o.splitlines() if line.endswith(": OK")]
check(len(oks) == N, "not every client OK: %r" % outs)

ranks = set(range(N))
every = [{"nspace": NS, "rank": r} for r in range(N)]
with lock:
    check(sorted(seen["connected"], key=lambda p: p["rank"]) == every,
          "clientconnected saw %r" % seen["connected"])
    check(sorted(seen["finalized"], key=lambda p: p["rank"]) == every,
          "clientfinalized saw %r" % seen["finalized"])
    check(len(seen["fence"]) == 2, "fencenb ran %d times" % len(seen["fence"]))
    f = seen["fence"][0]
    check(f["procs"] == [{"nspace": NS, "rank": PMIX_RANK_WILDCARD}], "fence procs %r" % f["procs"])
    check(any(d["key"] == "pmix.collect" and d["value"] for d in f["directives"]),
          "fence directives %r" % f["directives"])
    check(all(b"val-%d" % r in f["data"] for r in ranks), "fence data lacks a rank's value")
    check(isinstance(f["data"], bytearray), "fence data is a %s" % type(f["data"]))
    check(seen["abort"] == [{"caller": {"nspace": NS, "rank": N - 1}, "status": 42,
                             "msg": "spx-abort-msg", "targets": [{"nspace": NS, "rank": 0}]}],
          "abort saw %r" % seen["abort"])
    check(len(seen["publish"]) == 1 and seen["publish"][0]["proc"] == every[0] and
          [d["key"] for d in seen["publish"][0]["directives"]] == ["spx.pub"],
          "publish saw %r" % seen["publish"])
    check(len(seen["lookup"]) == 2 * N and all(a["proc"]["nspace"] == NS for a in seen["lookup"]),
          "lookup saw %r" % seen["lookup"])
    check(sorted(a["keys"][0] for a in seen["lookup"]) == ["spx-raise"] * N + ["spx.pub"] * N,
          "lookup keys %r" % seen["lookup"])
    check(seen["raised"] == ["ValueError('spx-server-boom')"] * N,
          "raising lookup reported %r" % seen["raised"])
    check(len(seen["unpublish"]) == 1 and seen["unpublish"][0]["keys"] == ["spx.pub"] and
          seen["unpublish"][0]["proc"] == every[0], "unpublish saw %r" % seen["unpublish"])
    check(len(seen["query"]) == N and
          all(q["queries"][0]["keys"] == ["spx.q"] for q in seen["query"]),
          "query saw %r" % seen["query"])
    if N > 1:
        check(len(seen["jobcontrol"]) == 1 and seen["jobcontrol"][0]["source"] == every[0] and
              seen["jobcontrol"][0]["targets"] == [every[1]], "jobcontrol saw %r" % seen["jobcontrol"])
    check(len(seen["notify"]) == 1 and seen["notify"][0]["code"] == -3333 and
          seen["notify"][0]["range"] == PMIX_RANGE_GLOBAL and
          seen["notify"][0]["source"] == every[0] and
          {"key": "spx.ev", "value": "evval", "val_type": PMIX_STRING} in
          [{k: d[k] for k in ("key", "value", "val_type")} for d in seen["notify"][0]["directives"]],
          "notify_event saw %r" % seen["notify"])
    check([(g["op"], g["group"], g["procs"]) for g in seen["group"]] ==
          [(PMIX_GROUP_CONSTRUCT, "spx-grp", every), (PMIX_GROUP_DESTRUCT, "spx-grp", every)],
          "group saw %r" % seen["group"])
    check(sorted(seen["blocking"]) == sorted([
        ("register_client", PMIX_ERR_WOULD_BLOCK), ("dmodex_request", PMIX_ERR_WOULD_BLOCK),
        ("setup_application", PMIX_ERR_WOULD_BLOCK), ("setup_local_support", PMIX_ERR_WOULD_BLOCK)]),
        "blocking calls in a server function: %r" % seen["blocking"])

# a tool pushes into rank 0's stdin: the Python pushstdin gets it
tool = subprocess.run([sys.executable, "-c", TOOL, NS], env=dict(os.environ, TMPDIR=tmp),
                      stdout=subprocess.PIPE, text=True, timeout=60)
check(tool.returncode == 0 and tool.stdout == "tool: OK\n", "the tool: %r" % tool.stdout)
with lock:
    check(len(seen["stdin"]) == 1 and seen["stdin"][0]["targets"] == [every[0]] and
          seen["stdin"][0]["payload"] == {"bytes": b"spx-stdin-data", "size": 14} and
          seen["stdin"][0]["source"]["nspace"] != NS, "pushstdin saw %r" % seen["stdin"])

# ---- the other methods ----
check(srv.setup_application(NS, []) == (0, []), "setup_application")
check(srv.setup_local_support(NS, []) == 0, "setup_local_support")
check(srv.iof_deliver(every[0], PMIX_FWD_STDOUT_CHANNEL, {"bytes": b"out\n"}, []) == 0,
      "iof_deliver")
check(srv.dmodex_request({"nspace": "spx-nosuch", "rank": 0}) == (PMIX_ERR_NOT_FOUND, (None, 0)),
      "dmodex_request of an unknown process")
NOTSUP = PMIX_ERR_NOT_SUPPORTED
check(srv.collect_inventory([]) == (NOTSUP, []), "collect_inventory")
check(srv.deliver_inventory([], []) == NOTSUP, "deliver_inventory")
check(srv.register_resources([]) == NOTSUP, "register_resources")
check(srv.deregister_resources([]) == NOTSUP, "deregister_resources")
check(srv.define_process_set(every, "pset") == NOTSUP, "define_process_set")
check(srv.delete_process_set("pset") == NOTSUP, "delete_process_set")
rc, regex = srv.generate_regex(["h1", "h2"])
check(rc == 0 and isinstance(regex, bytearray) and len(regex) > 0, "generate_regex")
for r in range(N):
    check(srv.deregister_client(every[r]) == 0, "deregister_client")
check(srv.deregister_nspace(NS) is None, "deregister_nspace")
check(srv.finalize() == 0, "finalize")
print("server.py: OK", flush=True)
