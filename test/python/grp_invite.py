# grp_invite.py - a PMIx group built by invitation from Python: Debian's
# python3-pmix (the `pmix` module of OpenPMIx 4.2.2, linked to libpmix.so.2)
# running on spmix's library. Run as every rank of a job (spmix-run or
# srun --mpi=spmix) by grp_invite.sh or test/slurm/test_groups.sh:
#   python3 grp_invite.py [--expect-lib DIR] [--leader-late SECONDS]
# Rank 0 leads a blocking group_invite of all other ranks, asking for a
# context id; the others accept with a blocking group_join (leader rank 0)
# called from a thread of the script. No Python event handler is registered:
# the binding's blocking calls hold the GIL, so a Python handler firing
# meanwhile would stall the library's progress thread.
# Checks at every rank: rc 0; the results carry the group id, the whole
# membership (every rank of the job once) and a context id; the context id
# is the same at every rank (exchanged by put/commit and a collecting fence);
# then a collective group_destruct. With --expect-lib DIR, the libpmix.so.2
# mapped into the process (/proc/self/maps) must be DIR/libpmix.so.2.
# With --leader-late S, rank 0 (PMIX_RANK=0 in its environment) sleeps S
# seconds before init, so the joins reach the server before their leader is
# a client: they must wait for its invitation, not fail.
# Prints "grp_invite.py: rank R: ..." lines and, from rank 0 after a last
# fence, "grp_invite.py: N ranks: OK". Exits 1 on a failed check.
import os
import sys
import threading
import time
import warnings

warnings.simplefilter("ignore")  # the module's setDaemon() warns on import
import pmix  # noqa: E402

GROUP = "pygrp"
USAGE = "usage: grp_invite.py [--expect-lib DIR] [--leader-late SECONDS]"
client = pmix.PMIxClient()
me = {"nspace": "", "rank": -1}


def say(line):
    """One line in one write(2): the ranks share the job's stdout, and print()
    may write the text and its newline apart, so lines of two ranks mix."""
    os.write(1, (line + "\n").encode())


def fail(msg):
    say("grp_invite.py: rank %s: FAIL: %s" % (me["rank"], msg))
    sys.stdout.flush()
    os._exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def mapped_libpmix():
    """Paths of every libpmix.so* mapped into this process."""
    paths = set()
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and os.path.basename(parts[5]).startswith("libpmix.so"):
                paths.add(os.path.realpath(parts[5]))
    return sorted(paths)


def key_of(attr):
    return attr.decode() if isinstance(attr, bytes) else attr


def find(results, attr):
    for r in results:
        if r["key"] == key_of(attr):
            return r
    return None


def check_results(rc, results, nprocs, what):
    """Group id and membership of an invite's or join's results; returns the context id."""
    check(rc == 0, "%s returned %d" % (what, rc))
    gid = find(results, pmix.PMIX_GROUP_ID)
    check(gid is not None and gid["value"] == GROUP,
          "%s: no group id %r in the results %r" % (what, GROUP, results))
    mb = find(results, pmix.PMIX_GROUP_MEMBERSHIP)
    check(mb is not None and mb["val_type"] == pmix.PMIX_DATA_ARRAY,
          "%s: no membership in the results %r" % (what, results))
    arr = mb["value"]
    check(arr["type"] == pmix.PMIX_PROC, "%s: membership of type %r" % (what, arr["type"]))
    members = []
    for p in arr["array"]:
        ns = p["nspace"]
        if isinstance(ns, bytes):
            ns = ns.decode()
        members.append((ns, p["rank"]))
    want = [(me["nspace"], r) for r in range(nprocs)]
    check(sorted(members) == want, "%s: membership %r, expected %r" % (what, members, want))
    cid = find(results, pmix.PMIX_GROUP_CONTEXT_ID)
    check(cid is not None and cid["val_type"] == pmix.PMIX_SIZE,
          "%s: no context id in the results %r" % (what, results))
    return cid["value"]


def main():
    expect_lib = None
    leader_late = 0.0
    args = sys.argv[1:]
    while args:
        if len(args) >= 2 and args[0] == "--expect-lib":
            expect_lib = os.path.realpath(os.path.join(args[1], "libpmix.so.2"))
        elif len(args) >= 2 and args[0] == "--leader-late":
            leader_late = float(args[1])
        else:
            print(USAGE, file=sys.stderr)
            return 2
        args = args[2:]
    if leader_late and os.environ.get("PMIX_RANK") == "0":
        time.sleep(leader_late)  # the joins come before the leader is a client

    libs = mapped_libpmix()
    rc, name = client.init([])
    check(rc == 0, "init returned %d" % rc)
    me.update(name)
    rank, ns = me["rank"], me["nspace"]
    check(not leader_late or "PMIX_RANK" in os.environ, "--leader-late: no PMIX_RANK in the environment")
    check(len(libs) == 1, "libpmix mapped: %r" % libs)
    if expect_lib is not None:
        check(libs[0] == expect_lib, "libpmix is %s, expected %s" % (libs[0], expect_lib))
    say("grp_invite.py: rank %d: lib %s" % (rank, libs[0]))

    rc, v = client.get({"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}, pmix.PMIX_JOB_SIZE, [])
    check(rc == 0, "get of the job size returned %d" % rc)
    nprocs = v["value"]
    check(nprocs >= 2, "a job of %d ranks (needs 2 or more)" % nprocs)

    want_cid = [{"key": pmix.PMIX_GROUP_ASSIGN_CONTEXT_ID, "value": True, "val_type": pmix.PMIX_BOOL}]
    if rank == 0:
        # the leader lists itself: a member (without, it would only invite)
        peers = [{"nspace": ns, "rank": r} for r in range(0, nprocs)]
        rc, results = client.group_invite(GROUP, peers, want_cid)
        cid = check_results(rc, results, nprocs, "group_invite")
    else:
        out = {}

        def join():
            out["ret"] = client.group_join(GROUP, {"nspace": ns, "rank": 0},
                                           pmix.PMIX_GROUP_ACCEPT, [])

        t = threading.Thread(target=join)
        t.start()
        t.join()
        check("ret" in out, "group_join raised")
        check(isinstance(out["ret"], tuple), "group_join returned %r" % (out["ret"],))
        rc, results = out["ret"]
        cid = check_results(rc, results, nprocs, "group_join")
    say("grp_invite.py: rank %d: group %s of %d, context id %d" % (rank, GROUP, nprocs, cid))

    # every rank's context id, through the job's key-value store
    rc = client.put(pmix.PMIX_GLOBAL, "spx.py.cid", {"value": cid, "val_type": pmix.PMIX_SIZE})
    check(rc == 0, "put returned %d" % rc)
    check(client.commit() == 0, "commit failed")
    collect = [{"key": pmix.PMIX_COLLECT_DATA, "value": True, "val_type": pmix.PMIX_BOOL}]
    rc = client.fence([{"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}], collect)
    check(rc == 0, "fence returned %d" % rc)
    for r in range(nprocs):
        rc, v = client.get({"nspace": ns, "rank": r}, "spx.py.cid", [])
        check(rc == 0, "get of rank %d's context id returned %d" % (r, rc))
        check(v["value"] == cid, "rank %d has context id %r, this rank %d" % (r, v["value"], cid))

    rc = client.group_destruct(GROUP, [])
    check(rc == 0, "group_destruct returned %d" % rc)
    rc = client.fence([{"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}], [])
    check(rc == 0, "last fence returned %d" % rc)
    if rank == 0:
        say("grp_invite.py: %d ranks: OK" % nprocs)
    client.finalize([])
    return 0


if __name__ == "__main__":
    sys.exit(main())
