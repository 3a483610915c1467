# api.py - every method of our pmix module with its dict forms, run as every
# rank of a job of 2 or more (api.sh, under spmix-run):
#   put of each value type (str and bytes keys), commit, fence with
#   PMIX_COLLECT_DATA, get of each from the peer (value and val_type equal),
#   get_nb; bad values give the older binding's statuses, a proc without
#   'rank' raises KeyError; job info by get; publish/lookup/unpublish and
#   their _nb forms; query and query_nb; an event by notify_event to
#   register_event_handler's handler at the other ranks (status, source,
#   info) and
#   deregister; group_construct/destruct and their _nb forms; the string
#   helpers; a blocking fence in a thread lets the main thread run (the GIL
#   is released); a callback that raises is reported on stderr with its
#   traceback ("ValueError: spx-boom") and the process carries on; a
#   blocking call from a callback returns PMIX_ERR_WOULD_BLOCK.
# Prints "api.py: rank R: OK"; exits 1 at the first failed check.
import faulthandler
import os
import sys
import threading
import time

from pmix import *  # noqa: F403

c = PMIxClient()  # noqa: F405
me = {}


def fail(msg):
    os.write(1, ("api.py: rank %s: FAIL: %s\n" % (me.get("rank"), msg)).encode())
    os._exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def wait_for(box, n=1, what="callback"):
    end = time.time() + 20
    while len(box) < n:
        check(time.time() < end, "%s did not run" % what)
        time.sleep(0.005)


VALUES = [
    (PMIX_BOOL, True), (PMIX_BYTE, 7), (PMIX_STRING, "text"), (PMIX_SIZE, 1 << 40),
    (PMIX_PID, 4242), (PMIX_INT, -5), (PMIX_INT8, -8), (PMIX_INT16, -1600),
    (PMIX_INT32, -320000), (PMIX_INT64, -(1 << 40)), (PMIX_UINT, 5), (PMIX_UINT8, 200),
    (PMIX_UINT16, 60000), (PMIX_UINT32, 4000000000), (PMIX_UINT64, 1 << 63),
    (PMIX_FLOAT, 1.5), (PMIX_DOUBLE, 2.25), (PMIX_TIMEVAL, {"sec": 3, "usec": 4}),
    (PMIX_TIME, 1234), (PMIX_STATUS, -25), (PMIX_PROC_RANK, 3),
    (PMIX_PROC, {"nspace": "some.ns", "rank": 9}),
    (PMIX_BYTE_OBJECT, {"bytes": b"\x00\x01bin", "size": 5}),
    (PMIX_PERSIST, PMIX_PERSIST_SESSION), (PMIX_SCOPE, PMIX_GLOBAL),
    (PMIX_DATA_RANGE, PMIX_RANGE_NAMESPACE), (PMIX_PROC_STATE, PMIX_PROC_STATE_RUNNING),
    (PMIX_ENVAR, {"envar": "PATH", "value": "/x", "separator": ord(":")}),
    (PMIX_DATA_ARRAY, {"type": PMIX_INT, "array": [1, -2, 3]}),
    (PMIX_DATA_ARRAY, {"type": PMIX_STRING, "array": ["a", "bc"]}),
    (PMIX_DATA_ARRAY, {"type": PMIX_PROC, "array": [{"nspace": "n", "rank": 1}]}),
    (PMIX_DATA_ARRAY, {"type": PMIX_INFO, "array": [
        {"key": "in.k", "flags": 0, "value": 8, "val_type": PMIX_UINT32}]}),
]


def test_putget(ns, rank, n):
    peer = (rank + 1) % n
    for i, (t, v) in enumerate(VALUES):
        key = ("py.k%d" % i) if i % 2 else ("py.k%d" % i).encode()  # str and bytes keys
        val = v if t not in (PMIX_INT, PMIX_INT64) else v - rank
        check(c.put(PMIX_GLOBAL, key, {"value": val, "val_type": t}) == 0, "put type %d" % t)
    check(c.commit() == 0, "commit")
    collect = [{"key": PMIX_COLLECT_DATA, "value": True, "val_type": PMIX_BOOL}]
    check(c.fence([{"nspace": ns, "rank": PMIX_RANK_WILDCARD}], collect) == 0, "fence")
    for i, (t, v) in enumerate(VALUES):
        rc, got = c.get({"nspace": ns, "rank": peer}, "py.k%d" % i, [])
        want = v if t not in (PMIX_INT, PMIX_INT64) else v - peer
        check(rc == 0, "get of type %d: %d" % (t, rc))
        check(got == {"value": want, "val_type": t}, "type %d: got %r, want %r" % (t, got, want))
    box = []
    check(c.get_nb({"nspace": ns, "rank": peer}, "py.k2", [], lambda *a: box.append(a), "cd") == 0,
          "get_nb")
    wait_for(box, what="get_nb")
    check(box[0] == (0, {"value": "text", "val_type": PMIX_STRING}, "cd"), "get_nb gave %r" % box)
    # bad values: the older binding's statuses; a proc without rank raises KeyError
    check(c.put(PMIX_GLOBAL, "bad", {"value": "x", "val_type": PMIX_BOOL}) == PMIX_ERR_BAD_PARAM,
          "bool 'x'")
    check(c.put(PMIX_GLOBAL, "bad", {"value": 300, "val_type": PMIX_INT8}) == PMIX_ERR_BAD_PARAM,
          "int8 300")
    check(c.put(PMIX_GLOBAL, "bad", {"value": "s", "val_type": PMIX_INT}) == PMIX_ERR_TYPE_MISMATCH,
          "int 's'")
    try:
        c.get({"nspace": ns}, "py.k1", [])
        fail("a proc without rank was taken")
    except KeyError:
        pass
    rc, v = c.get({"nspace": ns, "rank": PMIX_RANK_WILDCARD}, PMIX_JOB_SIZE, [])
    check(rc == 0 and v == {"value": n, "val_type": PMIX_UINT32}, "job size %r" % (v,))
    rc, v = c.get(None, "py.k5", [])  # proc None: this process
    check(rc == 0 and v == {"value": -5 - rank, "val_type": PMIX_INT}, "own key %d %r" % (rc, v))


def test_pubsub(ns, rank, n):
    key = "py.pub.%d" % rank
    check(c.publish([{"key": key, "value": rank * 3, "val_type": PMIX_INT}]) == 0, "publish")
    check(c.fence([], []) == 0, "fence")
    other = "py.pub.%d" % ((rank + 1) % n)
    rc, data = c.lookup([{"key": other}], [])
    check(rc == 0 and len(data) == 1, "lookup %d %r" % (rc, data))
    d = data[0]
    check(d["key"] == other and d["value"] == ((rank + 1) % n) * 3 and d["val_type"] == PMIX_INT
          and d["proc"] == {"nspace": ns, "rank": (rank + 1) % n}, "lookup gave %r" % d)
    box = []
    check(c.lookup_nb([other], [], lambda *a: box.append(a), None) == 0, "lookup_nb")
    wait_for(box, what="lookup_nb")
    check(box[0][0] == 0 and box[0][1][0]["value"] == d["value"], "lookup_nb gave %r" % box)
    box = []
    check(c.publish_nb([{"key": key + "b", "value": "b", "val_type": PMIX_STRING}],
                       lambda *a: box.append(a), 1) == 0, "publish_nb")
    wait_for(box, what="publish_nb")
    check(box[0] == (0, 1), "publish_nb gave %r" % box)
    check(c.fence([], []) == 0, "fence")
    check(c.unpublish([key], []) == 0, "unpublish")
    box = []
    check(c.unpublish_nb([key + "b"], [], lambda *a: box.append(a), 2) == 0, "unpublish_nb")
    wait_for(box, what="unpublish_nb")
    check(box[0] == (0, 2), "unpublish_nb gave %r" % box)
    check(c.fence([], []) == 0, "fence")
    rc, data = c.lookup([{"key": key}], [])
    check(rc != 0, "lookup of an unpublished key returned %d" % rc)


def test_query(ns):
    rc, res = c.query([{"keys": [PMIX_QUERY_NAMESPACES], "qualifiers": []}])
    check(rc == 0 and res and ns in res[0]["value"], "query %d %r" % (rc, res))
    box = []
    check(c.query_nb([{"keys": [PMIX_QUERY_NAMESPACES], "qualifiers": []}],
                     lambda *a: box.append(a), "q") == 0, "query_nb")
    wait_for(box, what="query_nb")
    check(box[0][0] == 0 and box[0][2] == "q" and ns in box[0][1][0]["value"], "query_nb %r" % box)


CODE = PMIX_EXTERNAL_ERR_BASE - 7


def test_events(ns, rank, n):
    got = []

    def hdlr(hid, status, source, info, results):
        got.append((status, source, [i for i in info if i["key"] == "py.ev"]))
        return PMIX_EVENT_ACTION_COMPLETE, [{"key": "py.res", "value": 1, "val_type": PMIX_INT}]

    rc, hid = c.register_event_handler([CODE], [], hdlr)
    check(rc == 0 and hid >= 0, "register_event_handler %r" % ((rc, hid),))
    check(c.fence([], []) == 0, "fence")
    if rank == 0:
        rc = c.notify_event(CODE, {"nspace": ns, "rank": 0}, PMIX_RANGE_NAMESPACE,
                            [{"key": "py.ev", "value": "hello", "val_type": PMIX_STRING}])
        check(rc == 0, "notify_event %d" % rc)
    if rank != 0:  # the other ranks get the event
        wait_for(got, what="the event handler")
        status, source, info = got[0]
        check(status == CODE and source == {"nspace": ns, "rank": 0} and info and
              info[0]["value"] == "hello", "event %r" % (got[0],))
    check(c.fence([], []) == 0, "fence")
    check(c.deregister_event_handler(hid) == 0, "deregister")


def test_groups(ns, rank, n):
    everyone = [{"nspace": ns, "rank": r} for r in range(n)]
    cid = [{"key": PMIX_GROUP_ASSIGN_CONTEXT_ID, "value": True, "val_type": PMIX_BOOL}]
    rc, res = c.group_construct("py.g1", everyone, cid)
    check(rc == 0 and any(r["key"] == PMIX_GROUP_CONTEXT_ID.decode() for r in res),
          "group_construct %d %r" % (rc, res))
    check(c.group_destruct("py.g1", []) == 0, "group_destruct")
    box = []
    check(c.group_construct_nb("py.g2", everyone, [], lambda *a: box.append(a), "g") == 0,
          "group_construct_nb")
    wait_for(box, what="group_construct_nb")
    check(box[0][0] == 0 and box[0][2] == "g", "group_construct_nb gave %r" % box)
    box = []
    check(c.group_destruct_nb("py.g2", [], lambda *a: box.append(a), "d") == 0, "group_destruct_nb")
    wait_for(box, what="group_destruct_nb")
    check(box[0] == (0, "d"), "group_destruct_nb gave %r" % box)


def test_callbacks(ns, rank, n):
    # a callback that raises: reported with its traceback, the process carries on
    box = []

    def raiser(status, cbdata):
        box.append(status)
        raise ValueError("spx-boom")

    check(c.fence_nb([], [], raiser, None) == 0, "fence_nb")
    wait_for(box, what="the raising callback")
    # a callback that blocks: the blocking call returns PMIX_ERR_WOULD_BLOCK
    box = []

    def blocker(status, cbdata):
        box.append(c.fence([], []))
        box.append(c.group_construct("py.never", [], [])[0])

    check(c.fence_nb([], [], blocker, None) == 0, "fence_nb")
    wait_for(box, 2, what="the blocking callback")
    check(box == [PMIX_ERR_WOULD_BLOCK, PMIX_ERR_WOULD_BLOCK], "blocking calls gave %r" % box)
    # an uncallable callback is a TypeError, and nothing is started
    try:
        c.fence_nb([], [], 5, None)
        fail("fence_nb took 5 for a callback")
    except TypeError:
        pass
    check(c.fence([], []) == 0, "fence after the callbacks")


def test_gil(rank):
    # rank 1 comes 0.5 s late to a fence that rank 0 waits in from a thread:
    # rank 0's main thread keeps running meanwhile (no stall of 0.2 s or more)
    state = {"started": False, "done": False, "rc": None}

    def fence():
        state["started"] = True
        state["rc"] = c.fence([], [])
        state["done"] = True

    if rank == 1:
        time.sleep(0.5)
    t = threading.Thread(target=fence)
    t0 = last = time.monotonic()
    gap = 0.0
    t.start()
    while not state["done"]:
        now = time.monotonic()
        gap = max(gap, now - last)
        last = now
    t.join()
    check(state["rc"] == 0, "threaded fence %r" % state["rc"])
    if rank == 0:
        took = time.monotonic() - t0
        check(took > 0.3, "the fence took only %.3f s" % took)
        check(gap < 0.2, "the main thread stalled %.3f s during the fence (GIL held)" % gap)


def main():
    faulthandler.dump_traceback_later(int(os.environ.get("API_PY_STUCK", "60")), exit=True)
    rc, name = c.init([])
    check(rc == 0, "init %d" % rc)
    me.update(name)
    ns, rank = name["nspace"], name["rank"]
    check(c.initialized() is True and isinstance(c.get_version(), str), "initialized/get_version")
    check(c.error_string(PMIX_ERR_WOULD_BLOCK) != "" and c.scope_string(PMIX_GLOBAL) != "" and
          c.data_type_string(PMIX_INT) != "", "string helpers")
    rc, v = c.get({"nspace": ns, "rank": PMIX_RANK_WILDCARD}, PMIX_JOB_SIZE, [])
    n = v["value"]
    check(n >= 2, "a job of %d ranks" % n)
    test_putget(ns, rank, n)
    test_pubsub(ns, rank, n)
    test_query(ns)
    test_events(ns, rank, n)
    test_groups(ns, rank, n)
    test_callbacks(ns, rank, n)
    test_gil(rank)
    check(c.fence([], []) == 0, "last fence")
    os.write(1, ("api.py: rank %d: OK\n" % rank).encode())
    check(c.finalize([]) == 0, "finalize")
    return 0


if __name__ == "__main__":
    sys.exit(main())
