# spec_run.py - runs the spec's Python examples (test/python/spec/*.py,
# verbatim copies) inside a job started by spec.sh, with our pmix module:
#   python3 spec_run.py fence|group_join|iof_job|iof_tool
# The examples leave the set-up to the reader ("after a successful
# foo.init()"): this script puts a stand-in `pmix` module in sys.modules
# whose PMIxClient / PMIxTool initialise themselves when created and count
# the callbacks of the _nb calls still to come, then exec()s the example
# unchanged and checks what the spec says it does:
#   fence:      the blocking fence and fence_nb return PMIX_SUCCESS, donecb
#               runs once (with "mycbdata") and prints "fence completed: ...";
#               a key every rank committed before is then held by each
#               rank's own server (a get with PMIX_IMMEDIATE): the example's
#               PMIX_COLLECT_DATA brought it from the other nodes
#   group_join: ranks > 0 run the blocking block (rank 0 invites), then the
#               non-blocking block: its myinvitehdlr, registered for
#               PMIX_GROUP_INVITED, accepts with group_join_nb from inside the
#               event handler and mycb prints "JOIN COMPLETE 0 [...]"; both
#               results name the group and every rank of the job as members
#   iof_job:    a rank that reads what the tool pushes into its stdin
#   iof_tool:   the IOF example as a tool attached to the job's server
# Each PMIxClient made (the examples make their own beside this script's) is
# an init of its own and is finalized; after the last one PMIx_Initialized
# says false. Each rank prints "spec_run.py: ROLE rank R: OK"; exits 1 on a
# failed check.
# A launcher that names its jobs itself (srun --mpi=spmix: slurm.spmix.J.S)
# cannot start one named as the examples say: with SPEC_RUN_RENAME=1 the
# stand-in maps the examples' namespace names ("testnspace",
# "target-nspace") in the arguments of their calls to the job's own
# namespace; a tool maps them to SPEC_RUN_TARGET (the job's namespace), and
# attaches to the server named by SPEC_RUN_SERVER_NSPACE when that is set
# (a node with the servers of several jobs or nodes in its tmpdir).
import os
import sys
import threading
import time
import types

import pmix as real

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec")
EXAMPLE_NSPACES = ("testnspace", "target-nspace")
alias = {}  # an example's namespace name -> the job's (SPEC_RUN_RENAME)
clients = []  # every Client made: each is an init and needs its finalize
pending = [0]
cond = threading.Condition()
calls = []  # (method, rc) of every call the examples made
cbs = []    # (name, args) of every callback that ran


def say(line):
    os.write(1, (line + "\n").encode())


def fail(msg):
    say("spec_run.py: FAIL: %s" % msg)
    os._exit(1)


def check(cond_, msg):
    if not cond_:
        fail(msg)


def renamed(obj):
    """obj with every proc of an example's namespace moved to the job's."""
    if isinstance(obj, list):
        return [renamed(x) for x in obj]
    if isinstance(obj, dict) and obj.get("nspace") in alias:
        return dict(obj, nspace=alias[obj["nspace"]])
    return obj


def counted(name, fn):
    """fn wrapped: records its call and tells the waiter when it has run."""
    def wrapper(*args):
        try:
            return fn(*args)
        finally:
            cbs.append((name, args))
            with cond:
                pending[0] -= 1
                cond.notify_all()
    return wrapper


def nb(method, cb_index):
    """An _nb method whose callback (argument cb_index) is counted."""
    def call(self, *args):
        args = renamed(list(args))
        args[cb_index] = counted(method, args[cb_index])
        with cond:
            pending[0] += 1
        rc = getattr(real.PMIxClient, method)(self, *args)
        calls.append((method, rc))
        if rc != real.PMIX_SUCCESS:  # no callback will come
            with cond:
                pending[0] -= 1
        return rc
    return call


def blocking(method):
    def call(self, *args):
        base = real.PMIxTool if isinstance(self, real.PMIxTool) else real.PMIxClient
        ret = getattr(base, method)(self, *renamed(list(args)))
        calls.append((method, ret if isinstance(ret, int) else ret[0]))
        return ret
    return call


class Client(real.PMIxClient):
    """PMIxClient already initialised, as the example assumes."""
    def __init__(self):
        super().__init__()
        rc, self.me = self.init([])
        check(rc == real.PMIX_SUCCESS, "init returned %d" % rc)
        if os.environ.get("SPEC_RUN_RENAME") == "1":
            alias.update((ns, self.me["nspace"]) for ns in EXAMPLE_NSPACES)
        clients.append(self)

    fence = blocking("fence")
    group_join = blocking("group_join")
    fence_nb = nb("fence_nb", 2)
    group_join_nb = nb("group_join_nb", 4)


class Tool(real.PMIxTool):
    """PMIxTool already initialised and attached to the job's server."""
    def __init__(self):
        super().__init__()
        srv = os.environ.get("SPEC_RUN_SERVER_NSPACE")
        rc, self.me = self.init([{"key": real.PMIX_SERVER_NSPACE, "value": srv,
                                  "val_type": real.PMIX_STRING}] if srv else [])
        check(rc == real.PMIX_SUCCESS, "tool init returned %d" % rc)
        if os.environ.get("SPEC_RUN_TARGET"):
            alias.update((ns, os.environ["SPEC_RUN_TARGET"]) for ns in EXAMPLE_NSPACES)

    iof_push = blocking("iof_push")


class LineOut:
    """stdout in whole lines, one write(2) each: the ranks share the job's
    stdout, and print() writes its pieces apart, so lines of ranks mixed."""
    def __init__(self):
        self.buf = ""
        self.lock = threading.Lock()

    def write(self, s):
        with self.lock:
            self.buf += s
            while "\n" in self.buf:
                line, self.buf = self.buf.split("\n", 1)
                os.write(1, (line + "\n").encode())
        return len(s)

    def flush(self):
        pass


def stand_in():
    sys.stdout = LineOut()
    m = types.ModuleType("pmix")
    for k, v in vars(real).items():
        if not k.startswith("__"):
            setattr(m, k, v)
    m.PMIxClient = Client
    m.PMIxTool = Tool
    sys.modules["pmix"] = m


def run_example(name, env=None):
    g = {"__name__": "__spec__"}
    if env:
        g.update(env)
    with open(os.path.join(SPEC, name + ".py")) as f:
        code = compile(f.read(), name + ".py", "exec")
    exec(code, g)
    return g


def wait_callbacks(what, want=0, timeout=30):
    """Until no callback is due and at least `want` have run."""
    end = time.time() + timeout
    with cond:
        while pending[0] > 0 or len(cbs) < want:
            left = end - time.time()
            check(left > 0, "%s: %d callbacks due, %d ran" % (what, pending[0], len(cbs)))
            cond.wait(min(left, 0.05))


def finalize_all():
    """Each Client made (the examples make their own) finalized once."""
    for c in reversed(clients):
        check(c.finalize([]) == 0, "finalize")
    check(not real.PMIxClient().initialized(), "PMIx_Initialized after the last finalize")


def job_fence():
    # a key of every rank, committed before the example: its collecting
    # fence must bring them all here (PMIX_IMMEDIATE: only what this node's
    # server holds, nothing fetched from the others)
    pre = Client()
    ns, rank = pre.me["nspace"], pre.me["rank"]
    check(pre.put(real.PMIX_GLOBAL, "spec.fence.data",
                  {"value": "put by %d" % rank, "val_type": real.PMIX_STRING}) == 0, "put")
    check(pre.commit() == 0, "commit")
    g = run_example("fence")
    foo = g["foo"]
    wait_callbacks("fence")
    check(calls == [("fence", 0), ("fence_nb", 0)], "calls %r" % calls)
    check(len(cbs) == 1 and cbs[0][1] == (0, "mycbdata"), "callbacks %r" % cbs)
    check(foo.me["nspace"] == alias.get("testnspace", "testnspace"), "the job is %r" % foo.me["nspace"])
    rc, v = foo.get({"nspace": ns, "rank": real.PMIX_RANK_WILDCARD}, real.PMIX_JOB_SIZE, [])
    imm = [{"key": real.PMIX_IMMEDIATE, "value": True, "val_type": real.PMIX_BOOL}]
    for r in range(v["value"]):
        rc, d = foo.get({"nspace": ns, "rank": r}, "spec.fence.data", imm)
        check(rc == 0 and d == {"value": "put by %d" % r, "val_type": real.PMIX_STRING},
              "rank %d's data after the collecting fence: %d %r" % (r, rc, d))
    check(foo.fence([], []) == 0, "last fence")
    say("spec_run.py: fence rank %d: OK" % rank)
    finalize_all()


def job_group_join():
    foo = Client()
    me = foo.me
    rc, v = foo.get({"nspace": me["nspace"], "rank": real.PMIX_RANK_WILDCARD}, real.PMIX_JOB_SIZE, [])
    n = v["value"]
    gid = lambda res: [r["value"] for r in res if r["key"] == real.PMIX_GROUP_ID.decode()]
    everyone = [{"nspace": me["nspace"], "rank": r} for r in range(n)]
    mbrs = lambda res: [sorted(r["value"]["array"], key=lambda p: p["rank"])
                        for r in res if r["key"] == real.PMIX_GROUP_MEMBERSHIP.decode()]
    # 1. the blocking block at every rank but the leader
    if me["rank"] == 0:
        rc, res = foo.group_invite("mygroup", everyone, [])  # the leader lists itself: a member
        check(rc == 0, "group_invite returned %d" % rc)
    else:
        g = run_example("group_join", {"foo": foo})
        check(g["rc"] == 0, "group_join returned %d" % g["rc"])
        check(gid(g["results"]) == ["mygroup"] and mbrs(g["results"]) == [everyone],
              "group_join results %r" % g["results"])
    check(foo.group_destruct("mygroup", []) == 0, "group_destruct")
    # 2. the non-blocking block: the handler accepts the next invitation
    if me["rank"] != 0:
        g = run_example("group_join_nb", {"foo": foo})
        rc, ref = foo.register_event_handler([real.PMIX_GROUP_INVITED], [], g["myinvitehdlr"])
        check(rc == 0, "register_event_handler returned %d" % rc)
    check(foo.fence([], []) == 0, "fence before the invitation")
    if me["rank"] == 0:
        rc, res = foo.group_invite("mygroup", everyone, [])  # the leader lists itself: a member
        check(rc == 0, "second group_invite returned %d" % rc)
    else:
        wait_callbacks("group_join_nb", want=1)
        check(("group_join_nb", 0) in calls, "calls %r" % calls)
        check(len(cbs) == 1 and cbs[0][1][0] == 0 and gid(cbs[0][1][1]) == ["mygroup"] and
              mbrs(cbs[0][1][1]) == [everyone], "mycb got %r" % (cbs,))
    check(foo.group_destruct("mygroup", []) == 0, "second group_destruct")
    check(foo.fence([], []) == 0, "last fence")
    finalize_all()
    say("spec_run.py: group_join rank %d: OK" % me["rank"])


def job_iof():
    foo = real.PMIxClient()
    rc, me = foo.init([])
    check(rc == 0, "init returned %d" % rc)
    want = b"some input text"
    got = b""
    while len(got) < len(want):
        b = os.read(0, len(want) - len(got))
        check(b, "stdin ended after %r" % got)
        got += b
    say("spec_run.py: iof_job rank %d: stdin %r" % (me["rank"], got.decode()))
    check(got == want, "stdin %r" % got)
    say("spec_run.py: iof_job rank %d: OK" % me["rank"])
    foo.finalize([])


def tool_iof():
    g = run_example("iof_push")
    check(g["rc"] == 0, "iof_push returned %d" % g["rc"])
    check(calls == [("iof_push", 0)], "calls %r" % calls)
    say("spec_run.py: iof_tool rank 0: OK")
    g["foo"].finalize()


def main():
    roles = {"fence": job_fence, "group_join": job_group_join, "iof_job": job_iof,
             "iof_tool": tool_iof}
    if len(sys.argv) != 2 or sys.argv[1] not in roles:
        print("usage: spec_run.py " + "|".join(roles), file=sys.stderr)
        return 2
    stand_in()
    roles[sys.argv[1]]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
