# server_client.py - a client of server.py's Python PMIxServer (started by it
# with setup_fork's environment): put/commit, rank 0 publishes "spx.pub",
# fence with PMIX_COLLECT_DATA, get of every peer's key, lookup of
# "spx.pub" (answered by the server's Python lookup), lookup of "spx-raise"
# (the server's lookup raises: PMIX_ERROR here), query of "spx.q" (answered
# by the server's Python query), job control of rank 1 through the C call
# (ctypes: the module has no job_control), rank 0 notifies an event of
# range GLOBAL (to the server's Python notify_event), a group of every rank
# (the server's Python group function answers context id 77), the last rank calls abort(42,
# "spx-abort-msg", [rank 0]) (the server's abort says PMIX_SUCCESS), rank 0
# unpublishes, finalize. Prints "server_client.py: rank R: OK"; exits 1 at the
# first failed check.
import ctypes
import os
import sys

from pmix import *  # noqa: F403

c = PMIxClient()  # noqa: F405
me = {}


def check(cond, msg):
    if not cond:
        os.write(1, ("server_client.py: rank %s: FAIL: %s\n" % (me.get("rank"), msg)).encode())
        os._exit(1)


rc, me = c.init([])
check(rc == 0, "init: %d" % rc)
ns, rank, n = me["nspace"], me["rank"], int(sys.argv[1])
check(c.put(PMIX_GLOBAL, "spx.srv.key", {"value": "val-%d" % rank, "val_type": PMIX_STRING}) == 0,
      "put")
check(c.commit() == 0, "commit")
if rank == 0:
    rc = c.publish([{"key": "spx.pub", "value": "pubval", "val_type": PMIX_STRING}])
    check(rc == 0, "publish: %d" % rc)
collect = [{"key": PMIX_COLLECT_DATA, "value": True, "val_type": PMIX_BOOL}]
rc = c.fence([{"nspace": ns, "rank": PMIX_RANK_WILDCARD}], collect)
check(rc == 0, "fence: %d" % rc)
for peer in range(n):
    rc, v = c.get({"nspace": ns, "rank": peer}, "spx.srv.key", [])
    check(rc == 0 and v == {"value": "val-%d" % peer, "val_type": PMIX_STRING},
          "get of rank %d: %d %r" % (peer, rc, v))

rc, data = c.lookup([{"key": "spx.pub"}], [])
check(rc == 0 and len(data) == 1 and data[0]["value"] == "pubval"
      and data[0]["proc"] == {"nspace": ns, "rank": 0}, "lookup: %d %r" % (rc, data))
rc, data = c.lookup([{"key": "spx-raise"}], [])
check(rc == PMIX_ERROR, "lookup answered by a raising function: %d %r" % (rc, data))

rc, res = c.query([{"keys": ["spx.q"], "qualifiers": []}])
check(rc == 0 and {"key": "spx.q", "value": "answer-%d" % rank, "val_type": PMIX_STRING} in
      [{k: r[k] for k in ("key", "value", "val_type")} for r in res], "query: %d %r" % (rc, res))

if rank == 0 and n > 1:
    class Proc(ctypes.Structure):
        _fields_ = [("nspace", ctypes.c_char * 256), ("rank", ctypes.c_uint32)]
    lib = ctypes.CDLL("libpmix.so.2")  # the module's own library, already loaded
    target = Proc(ns.encode(), 1)
    rc = lib.PMIx_Job_control(ctypes.byref(target), ctypes.c_size_t(1), None, ctypes.c_size_t(0),
                              None, None)
    check(rc == 0, "job control: %d" % rc)

if rank == 0:
    rc = c.notify_event(-3333, {"nspace": ns, "rank": 0}, PMIX_RANGE_GLOBAL,
                        [{"key": "spx.ev", "value": "evval", "val_type": PMIX_STRING}])
    check(rc == 0, "notify_event: %d" % rc)

# a group of everyone: the server's Python group function assigns context id 77
everyone = [{"nspace": ns, "rank": r} for r in range(n)]
rc, res = c.group_construct("spx-grp", everyone,
                            [{"key": PMIX_GROUP_ASSIGN_CONTEXT_ID, "value": True,
                              "val_type": PMIX_BOOL}])
check(rc == 0, "group_construct: %d" % rc)
cid = [r["value"] for r in res if r["key"] == PMIX_GROUP_CONTEXT_ID.decode()]
check(cid == [77], "group context id: %r" % res)
check(c.group_destruct("spx-grp", []) == 0, "group_destruct")

if rank == n - 1:
    rc = c.abort(42, "spx-abort-msg", [{"nspace": ns, "rank": 0}])
    check(rc == 0, "abort: %d" % rc)
# everyone is done with the server's data before rank 0 unpublishes
check(c.fence([{"nspace": ns, "rank": PMIX_RANK_WILDCARD}], []) == 0, "second fence")
if rank == 0:
    check(c.unpublish(["spx.pub"], []) == 0, "unpublish")
check(c.finalize([]) == 0, "finalize")
print("server_client.py: rank %d: OK" % rank, flush=True)
