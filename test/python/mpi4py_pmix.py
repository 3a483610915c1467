# mpi4py_pmix.py - mpi4py (Debian's python3-mpi4py over Open MPI 4.1, whose
# PMIx client is our libpmix.so.2) and our pmix module in one process, each
# an independent user of the same library: two PMIx_Init, two PMIx_Finalize.
#   python3 mpi4py_pmix.py mpi-first|pmix-first|pmix-again
# mpi-first:  MPI_Init (importing mpi4py.MPI), then PMIx init; PMIx finalize
#             first, then MPI must still work (an allreduce, and MPI_Finalize,
#             whose fence goes through the library) - the library must not
#             tear down while Open MPI still uses it.
# pmix-first: PMIx init, then MPI_Init; MPI_Finalize first, then our module
#             must still work (fence, get) and its finalize tears down: after
#             it a get fails and PMIx_Initialized says false.
# pmix-again: PMIx init, put/commit/fence, finalize (the library torn down),
#             then as pmix-first with a second init (the key put before is
#             still found), and after both finalized a third init, a fence
#             and a get of that key again, and its finalize.
# In both, while both are up: exactly one libpmix.so mapped, ours
# (SPMIX_EXPECT_LIBDIR); PMIx's rank and job size are MPI's; an MPI
# allreduce; put/commit/fence/get of a key of every rank; each rank's
# PMIX_HOSTNAME (PMIx) is its MPI_Get_processor_name (MPI, allgathered;
# with MPI4PY_PMIX_REAL_HOSTS=1, where nodes are real or the one host); a
# name rank 0 publishes through MPI_Publish_name is found by our module's
# lookup (Open MPI publishes through PMIx_Publish), and the modex key Open
# MPI's TCP transport put for every other rank ("btl.tcp.4.1") is a byte
# object our module's get returns; a PMIx group of every rank with a
# context id, then destructed. Every rank prints "mpi4py_pmix.py MODE rank
# R: OK"; any failed check prints FAIL and exits 1.
import os
import sys

MODE = sys.argv[1] if len(sys.argv) == 2 else ""
if MODE not in ("mpi-first", "pmix-first", "pmix-again"):
    sys.stderr.write("usage: mpi4py_pmix.py mpi-first|pmix-first|pmix-again\n")
    sys.exit(2)


def fail(msg):
    os.write(1, ("mpi4py_pmix.py: FAIL %s: %s\n" % (MODE, msg)).encode())
    os._exit(1)


def check(ok, msg):
    if not ok:
        fail(msg)


if MODE == "mpi-first":
    from mpi4py import MPI
    import pmix
    c = pmix.PMIxClient()
    rc, me = c.init([])
else:
    import pmix
    c = pmix.PMIxClient()
    rc, me = c.init([])
    if MODE == "pmix-again":
        check(rc == 0, "first pmix init returned %d" % rc)
        check(c.put(pmix.PMIX_GLOBAL, "py.before", {"value": me["rank"] + 100, "val_type": pmix.PMIX_INT}) == 0, "put")
        check(c.commit() == 0 and c.fence([], [{"key": pmix.PMIX_COLLECT_DATA, "value": True,
                                                "val_type": pmix.PMIX_BOOL}]) == 0, "commit, fence")
        check(c.finalize([]) == 0 and not c.initialized(), "first finalize")
    from mpi4py import MPI
    if MODE == "pmix-again":
        rc, me = c.init([])
check(rc == pmix.PMIX_SUCCESS, "pmix init returned %d" % rc)
check(MPI.Is_initialized(), "MPI is not initialized")
check(c.initialized(), "PMIx_Initialized says false")
comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
ns = me["nspace"]
check(me["rank"] == rank, "PMIx rank %d, MPI rank %d" % (me["rank"], rank))
rc, v = c.get({"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}, pmix.PMIX_JOB_SIZE, [])
check(rc == 0 and v["value"] == size, "PMIx job size %r, MPI size %d" % (v, size))

# one libpmix in this process, ours
want = os.path.realpath(os.environ.get("SPMIX_EXPECT_LIBDIR", "/nonexistent"))
libs = set()
with open("/proc/self/maps") as f:
    for line in f:
        parts = line.split(None, 5)
        if len(parts) == 6 and "/libpmix.so" in parts[5]:
            libs.add(os.path.realpath(parts[5].strip()))
check(len(libs) == 1 and os.path.dirname(libs.pop()) == want,
      "libpmix mapped: %s, expected one in %s" % (libs, want))

# MPI
s = comm.allreduce(rank + 1, op=MPI.SUM)
check(s == size * (size + 1) // 2, "allreduce gave %d" % s)

# PMIx put/commit/fence/get
check(c.put(pmix.PMIX_GLOBAL, "py.mix", {"value": "v%d" % (rank * 7), "val_type": pmix.PMIX_STRING}) == 0, "put")
check(c.commit() == 0, "commit")
collect = [{"key": pmix.PMIX_COLLECT_DATA, "value": True, "val_type": pmix.PMIX_BOOL}]
check(c.fence([], collect) == 0, "fence")
for r in range(size):
    rc, v = c.get({"nspace": ns, "rank": r}, "py.mix", [])
    check(rc == 0 and v == {"value": "v%d" % (r * 7), "val_type": pmix.PMIX_STRING},
          "get py.mix of rank %d: %d %r" % (r, rc, v))

# the two views of where each rank runs agree (not on the simulated nodes of
# spmix-run --nodes, which share this host under made-up names)
hosts = comm.allgather(MPI.Get_processor_name())
for r in range(size if os.environ.get("MPI4PY_PMIX_REAL_HOSTS") == "1" else 0):
    rc, v = c.get({"nspace": ns, "rank": r}, pmix.PMIX_HOSTNAME, [])
    check(rc == 0 and v["value"] == hosts[r], "PMIX_HOSTNAME of rank %d %r, MPI says %s" % (r, v, hosts[r]))

# what the MPI layer put into PMIx, read through our module
service = "spx-mix-%s" % ns
if rank == 0:
    MPI.Publish_name(service, "port-of-rank-0")
comm.Barrier()
rc, data = c.lookup([{"key": service}], [])
check(rc == 0 and len(data) == 1 and data[0]["value"] == "port-of-rank-0" and
      data[0]["proc"] == {"nspace": ns, "rank": 0}, "lookup of MPI's name: %d %r" % (rc, data))
comm.Barrier()
if rank == 0:
    MPI.Unpublish_name(service, "port-of-rank-0")
for r in range(size):
    if r == rank:
        continue
    rc, v = c.get({"nspace": ns, "rank": r}, "btl.tcp.4.1", [])
    check(rc == 0 and v["val_type"] == pmix.PMIX_BYTE_OBJECT and len(v["value"]["bytes"]) > 0,
          "Open MPI's modex key btl.tcp.4.1 of rank %d: %d %r" % (r, rc, v))

# a PMIx group of every rank beside MPI_COMM_WORLD
everyone = [{"nspace": ns, "rank": r} for r in range(size)]
cid = [{"key": pmix.PMIX_GROUP_ASSIGN_CONTEXT_ID, "value": True, "val_type": pmix.PMIX_BOOL}]
rc, res = c.group_construct("py.mix.g", everyone, cid)
check(rc == 0 and any(x["key"] == pmix.PMIX_GROUP_CONTEXT_ID.decode() for x in res),
      "group_construct %d %r" % (rc, res))
check(c.group_destruct("py.mix.g", []) == 0, "group_destruct")
check(comm.allreduce(1) == size, "allreduce after the group")

if MODE == "mpi-first":
    check(c.finalize([]) == 0, "pmix finalize")
    check(c.initialized(), "PMIx_Initialized false while Open MPI still holds the library")
    check(comm.allreduce(rank, op=MPI.MAX) == size - 1, "allreduce after pmix finalize")
    comm.Barrier()
    MPI.Finalize()
    check(not c.initialized(), "PMIx_Initialized true after both finalized")
else:
    MPI.Finalize()
    check(c.initialized(), "PMIx_Initialized false while our module still holds the library")
    check(c.fence([], []) == 0, "fence after MPI_Finalize")
    rc, v = c.get({"nspace": ns, "rank": (rank + 1) % size}, "py.mix", [])
    check(rc == 0 and v["value"] == "v%d" % (((rank + 1) % size) * 7), "get after MPI_Finalize: %d %r" % (rc, v))
    check(c.finalize([]) == 0, "pmix finalize")
    check(not c.initialized(), "PMIx_Initialized true after both finalized")
    rc, v = c.get({"nspace": ns, "rank": 0}, "py.mix", [])
    check(rc != 0, "get after the last finalize returned %d" % rc)
    if MODE == "pmix-again":
        rc, me2 = c.init([])
        check(rc == 0 and me2 == me, "init after both finalized: %d %r" % (rc, me2))
        check(c.fence([], []) == 0, "fence of the third init")
        peer = {"nspace": ns, "rank": (rank + 1) % size}
        rc, v = c.get(peer, "py.before", [])
        check(rc == 0 and v == {"value": peer["rank"] + 100, "val_type": pmix.PMIX_INT},
              "get of the first init's key: %d %r" % (rc, v))
        check(c.finalize([]) == 0 and not c.initialized(), "third finalize")
os.write(1, ("mpi4py_pmix.py %s rank %d: OK\n" % (MODE, rank)).encode())
