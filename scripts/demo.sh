#!/bin/sh
# Demo (README: "Run the demo"): installs the build dependencies, builds and
# installs spmix into ./_demo/inst, then runs real PMIx jobs through it:
#   - a 4-process job under spmix-run exchanging data with a collecting fence;
#   - the same program built against OpenPMIx's headers, run unchanged on our
#     libpmix.so.2;
#   - an unchanged Open MPI program (mpicc.openmpi) under spmix-run;
#   - a PMIx group on 3 simulated nodes (test/demo/demo_group.c);
#   - a line pushed by spmix-push (a PMIx tool) into rank 3 of a running
#     spmix-run --stdin tool job on 2 simulated nodes;
#   - a job whose rank 1 calls PMIx_Abort, showing how the job ends;
#   - then Slurm: brings up a 3-node virtual Slurm cluster on this machine
#     (test/slurm/cluster.sh: munge, slurmctld, one slurmd per network
#     namespace, our plugin first in PluginDir) and runs real jobs through
#     srun --mpi=spmix: the same exchange on 3 nodes x 2 tasks, an unchanged
#     Open MPI program (mpicc.openmpi), the group across the nodes, an
#     sbatch script, a line pushed by spmix-push into task 3 of a running
#     step (SPMIX_STDIN=tool), and a PMIx_Abort
#     seen by srun; then tears the cluster down.
# Every part runs on the first run: scripts/install-deps.sh installs what
# they need (OpenPMIx's headers, Open MPI, Slurm's headers; cluster.sh adds
# the Slurm daemons), and a part whose tools are still missing stops the
# demo with the reason instead of being left out.
# Leaves no process, namespace or file of the cluster behind.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/_demo
die() { echo "demo: $*" >&2; exit 1; }
sh "$top/scripts/install-deps.sh"
# Checked before the build, so that a missing tool stops the demo at once.
openpmix_inc=$(pkg-config --variable=includedir pmix 2>/dev/null || true)
[ -f "$openpmix_inc/pmix.h" ] || die "OpenPMIx's headers were not found (pkg-config pmix; Debian: libpmix-dev)"
command -v mpicc.openmpi >/dev/null ||
    die "mpicc.openmpi was not found (Debian: openmpi-bin libopenmpi-dev)"
cd "$top" && ./autogen.sh >/dev/null 2>&1
rm -rf "$out" && mkdir -p "$out/build" && cd "$out/build"
"$top/configure" -q --prefix="$out/inst" --disable-tests
make -s -j"$(nproc)" && make -s install >/dev/null
inst=$out/inst
echo "== installed: $(ls "$inst/lib/spmix/" | tr '\n' ' ')"
cc -o "$out/demo_exchange" "$top/test/demo/demo_exchange.c" $(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags --libs spmix)
echo "== 4 processes: put, commit, collecting fence, get from every peer"
"$inst/bin/spmix-run" -n 4 "$out/demo_exchange"
cc -o "$out/demo_exchange_openpmix" "$top/test/demo/demo_exchange.c" \
    -I"$openpmix_inc" -L"$inst/lib/spmix" -lpmix
echo "== the same program compiled against OpenPMIx's headers, run on our library"
echo "   (spmix-run puts its own library directory first in the ranks' LD_LIBRARY_PATH)"
"$inst/bin/spmix-run" -n 2 "$out/demo_exchange_openpmix"
mpicc.openmpi -o "$out/demo_mpi" "$top/test/demo/demo_mpi.c"
echo "== an unchanged Open MPI 4.1 program (mpicc.openmpi) under spmix-run -n 4"
OMPI_MCA_mpi_yield_when_idle=1 "$inst/bin/spmix-run" -n 4 "$out/demo_mpi" | sort
cc -o "$out/demo_group" "$top/test/demo/demo_group.c" $(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags --libs spmix)
echo "== a PMIx group on 3 simulated nodes: construct with a context id, a peer's data and group info read at once"
"$inst/bin/spmix-run" -n 6 --nodes 3 "$out/demo_group" | sort
echo "== a tool pushes a line into rank 3 of a running job (spmix-run --stdin tool, 2 simulated nodes)"
rdv=$(mktemp -d)
TMPDIR=$rdv "$inst/bin/spmix-run" --stdin tool -n 4 --nodes 2 \
    sh -c 'read line; echo "rank $PMIX_RANK read: ${line:-(end of input)}"' | sort &
demo_job=$!
# the job's rendezvous file: the one naming no launcher (each node's server
# has one more, naming spmix-run); spmix.tool.<pid>.new is one being written
job_rdv() {
    for f in "$rdv"/spmix.tool.*; do
        case ${f##*/spmix.tool.} in *[!0-9]*) continue ;; esac
        grep -q '^launcher ' "$f" 2>/dev/null || return 0
    done
    return 1
}
until job_rdv; do sleep 0.1; done
echo "hello rank 3, from spmix-push" | TMPDIR=$rdv "$inst/bin/spmix-push" --ranks 3 --eof
TMPDIR=$rdv "$inst/bin/spmix-push" --ranks 0-2 --eof /dev/null
wait "$demo_job"
rm -rf "$rdv"
echo "== rank 1 calls PMIx_Abort(3, ...): the job ends with status 3"
set +e
"$inst/bin/spmix-run" -n 3 "$out/demo_exchange" --abort
echo "spmix-run exit status: $?"

# ---- the Slurm plugin on a 3-node virtual cluster ----
set -e
cluster=$top/test/slurm/cluster.sh
plugdir=$(make -s -C "$out/build" --no-print-directory \
    --eval='spx-print-dirs: ; @echo $(slurmplugindir)' spx-print-dirs | tail -n 1)
[ -f "$plugdir/mpi_spmix.so" ] || die "no Slurm plugin was built (libslurm-dev missing?)"
# One virtual cluster per machine: hold /tmp/spmix-vc.lock while it is up. A
# caller may hold it already (flock /tmp/spmix-vc.lock sh scripts/demo.sh) and
# pass its locked descriptor down: locking the file through a new descriptor
# would then wait for ourselves forever, so an inherited descriptor of the
# lock file is locked instead (flock on the same open file cannot conflict).
vc_lock=/tmp/spmix-vc.lock
locked=no
for fd in /proc/$$/fd/*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$vc_lock" ] || continue
    flock -n "${fd##*/}" && { locked=yes; break; }
done
if [ "$locked" = no ]; then
    exec 9>"$vc_lock"
    flock 9
fi
trap '"$cluster" down >/dev/null 2>&1' EXIT
echo "== bringing up Slurm: 3 nodes in network namespaces, mpi_spmix.so from $plugdir"
"$cluster" up -n 3 --plugin-dir "$plugdir" >"$out/cluster-up.log" 2>&1 ||
    { cat "$out/cluster-up.log"; exit 1; }
. "$("$cluster" env)"
sinfo -h -N -o "   node %N  state %T  cpus %c"
echo "== srun --mpi=list"
srun --mpi=list 2>&1 | sed 's/^/   /'
echo "== srun --mpi=spmix -N3 -n6: put, commit, collecting fence, get (3 nodes x 2 tasks)"
timeout 60 srun --mpi=spmix -N3 -n6 --ntasks-per-node=2 "$out/demo_exchange" | sort
echo "== the same Open MPI program: srun --mpi=spmix -N3 -n6"
OMPI_MCA_mpi_yield_when_idle=1 timeout 90 srun --mpi=spmix -N3 -n6 --ntasks-per-node=2 \
    "$out/demo_mpi" | sort
echo "== a PMIx group across the Slurm nodes: srun --mpi=spmix -N3 -n6 (Slurm's own mpi/pmix has none)"
timeout 60 srun --mpi=spmix -N3 -n6 --ntasks-per-node=2 "$out/demo_group" | sort
echo "== an sbatch script that calls srun --mpi=spmix"
printf '#!/bin/sh\nsrun --mpi=spmix -N3 -n3 %s\n' "$out/demo_exchange" >"$out/job.sh"
chmod 755 "$out/job.sh"
timeout 90 sbatch --wait -N3 -n3 -o "$out/job.out" "$out/job.sh" >/dev/null
sort "$out/job.out" | sed 's/^/   /'
echo "== a tool pushes a line into task 3 of a running srun step (SPMIX_STDIN=tool: its tasks' stdin takes tools' pushes)"
rm -f "$out"/stepid.*
SPMIX_STDIN=tool timeout 60 srun --mpi=spmix -N3 -n6 --ntasks-per-node=2 sh -c \
    "echo \$SLURM_JOB_ID.\$SLURM_STEP_ID >$out/stepid.\$SLURM_PROCID; read line; echo \"task \$SLURM_PROCID read: \${line:-(end of input)}\"" \
    </dev/null | sort &
step_bg=$!
for _ in $(seq 100); do [ -f "$out/stepid.0" ] && break; sleep 0.1; done
js=$(cat "$out/stepid.0")
echo "hello task 3, from spmix-push" | timeout 30 srun --mpi=none --jobid="${js%.*}" --overlap -w vn1 -N1 -n1 \
    env LD_LIBRARY_PATH="$inst/lib/spmix" "$inst/bin/spmix-push" --ranks 3 --eof - "$js"
timeout 30 srun --mpi=none --jobid="${js%.*}" --overlap -w vn1 -N1 -n1 \
    env LD_LIBRARY_PATH="$inst/lib/spmix" "$inst/bin/spmix-push" --ranks 0-2,4-5 --eof /dev/null "$js"
wait "$step_bg"
echo "== PMIx_Abort(3) in rank 1 under srun: the step ends, srun shows why"
set +e
timeout 60 srun --mpi=spmix -N3 -n3 "$out/demo_exchange" --abort
echo "srun exit status: $?"
set -e
echo "== tearing the cluster down"
"$cluster" down >/dev/null 2>&1
trap - EXIT
echo "== demo done: nothing left running"
