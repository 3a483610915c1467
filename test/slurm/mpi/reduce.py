# reduce.py - mpi4py (Debian's python3-mpi4py over Debian's Open MPI 4.1),
# run unchanged under `srun --mpi=spmix` by test/slurm/test_openmpi.sh.
# Checks that the libpmix.so.2 mapped into this process lives in
# SPMIX_EXPECT_LIBDIR (and no other libpmix is mapped), then reduces
# rank + 1 and rank^2 to rank 0 and allreduces a max; rank 0 prints
# "reduce ok size N sum S lib PATH" when every value and every rank's library
# check agree, else the job fails.
import os
import sys
from mpi4py import MPI

c = MPI.COMM_WORLD
want = os.path.realpath(os.environ.get("SPMIX_EXPECT_LIBDIR", "/nonexistent"))
found = []
with open("/proc/self/maps") as f:
    for line in f:
        p = line.split(None, 5)[5].strip() if len(line.split(None, 5)) == 6 else ""
        if "/libpmix.so" in p and p not in found:
            found.append(p)
libok = len(found) == 1 and os.path.dirname(found[0]) == want
if not libok:
    sys.stderr.write("FAIL rank %d: libpmix mapped: %s, expected in %s\n" % (c.rank, found, want))
if not c.allreduce(libok, op=MPI.LAND):
    c.Abort(3)

n = c.size
s = c.reduce(c.rank + 1, op=MPI.SUM, root=0)
q = c.reduce(c.rank * c.rank, op=MPI.SUM, root=0)
m = c.allreduce(c.rank, op=MPI.MAX)
ok = m == n - 1
if c.rank == 0:
    ok = ok and s == n * (n + 1) // 2 and q == (n - 1) * n * (2 * n - 1) // 6
if not c.allreduce(ok, op=MPI.LAND):
    sys.stderr.write("FAIL rank %d: reduce gave %r %r %r\n" % (c.rank, s, q, m))
    c.Abort(3)
if c.rank == 0:
    print("reduce ok size %d sum %d lib %s" % (n, s, found[0]))
