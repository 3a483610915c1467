#!/bin/bash
# test/slurm/test_dropin.sh - the drop-in build of the plugin: configured with
# --enable-pmix-typename it installs as mpi_pmix.so, type mpi/pmix, so that
# unchanged scripts saying `srun --mpi=pmix` get spmix once its plugin
# directory comes first in PluginDir. Run as root, holding the cluster lock:
#   flock /tmp/spmix-vc.lock test/slurm/test_dropin.sh --build DIR [--keep]
# DIR is a build tree configured with --enable-pmix-typename --prefix=P. The
# script installs it, builds test/demo/demo_exchange.c against the installed
# library (RUNPATH to it), brings up 3 nodes with the install's plugin
# directory first, and checks: only mpi_pmix.so was installed; `srun
# --mpi=list` lists pmix; `srun --mpi=pmix -N3 -n6` runs the exchange as one
# 6-rank job served by spmix (every rank reads every peer's data); and, as a
# control, Slurm's own `--mpi=pmix_vN` (OpenPMIx server) cannot serve our
# library, whose ranks then fail PMIx_Init naming the server's URI (never
# silent singletons). Prints PASS:/FAIL:, exit 1 on failure. About 15 s.
set -u

. "$(dirname "$0")/testlib.sh"
spx_vc_args "$@"

NFAIL=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }
OUT=$(mktemp -d /tmp/spmix-dropin.XXXXXX)
chmod 755 "$OUT"

if ! make -s -C "$BUILD" -j2 install >"$OUT/install.log" 2>&1; then
    cat "$OUT/install.log"; echo "$0: build/install failed" >&2; rm -rf "$OUT"; exit 1
fi
spx_vc_dirs
if [ -f "$PLUGDIR/mpi_pmix.so" ] && [ ! -e "$PLUGDIR/mpi_spmix.so" ]; then
    pass "the drop-in build installs $PLUGDIR/mpi_pmix.so (and no mpi_spmix.so)"
else
    fail "plugin files in $PLUGDIR: $(ls "$PLUGDIR" 2>/dev/null | tr '\n' ' ') (configured without --enable-pmix-typename?)"
    rm -rf "$OUT"; exit 1
fi
INC=$(make -s -C "$BUILD" --no-print-directory --eval='spx-inc: ; @echo $(includedir)' spx-inc | tail -n 1)
if ! cc -o "$OUT/demo_exchange" "$HERE/../demo/demo_exchange.c" -I"$INC/spmix" -I"$INC" \
        -L"$LIBDIR" -lpmix -Wl,-rpath,"$LIBDIR" 2>"$OUT/cc.log"; then
    cat "$OUT/cc.log"; echo "$0: cannot build demo_exchange" >&2; rm -rf "$OUT"; exit 1
fi

cleanup() {
    rm -rf "$OUT"
    if [ "$KEEP" = 0 ]; then "$CLUSTER" down >/dev/null 2>&1; fi
}
trap cleanup EXIT
"$CLUSTER" up -n 3 --plugin-dir "$PLUGDIR" >"$OUT/up.log" 2>&1 ||
    { cat "$OUT/up.log"; echo "$0: cluster up failed" >&2; exit 1; }
. "$("$CLUSTER" env)"

if srun --mpi=list 2>&1 | grep -qw pmix; then pass "srun --mpi=list lists pmix"
else fail "srun --mpi=list: $(srun --mpi=list 2>&1 | tr '\n' ' ')"; fi

timeout 60 srun --mpi=pmix -N3 -n6 --ntasks-per-node=2 "$OUT/demo_exchange" >"$OUT/o" 2>"$OUT/e"; rc=$?
n=$(grep -c "^rank [0-5]/6 .*spmix.*read 6 peers' data: ok" "$OUT/o")
if [ $rc = 0 ] && [ "$n" = 6 ]; then
    pass "srun --mpi=pmix -N3 -n6 is served by spmix: one 6-rank job, every rank read every peer"
else fail "srun --mpi=pmix: rc $rc, $n/6 ranks ok"; sed 's/^/    /' "$OUT/o" "$OUT/e" | tail -n 10; fi

# Slurm's own versioned PMIx plugin (pmix_v4 on 22.05, pmix_v5 on 24.11;
# 26.05 has none)
own=$(srun --mpi=list 2>&1 | grep -o 'pmix_v[0-9]*' | head -n 1)
if [ -z "$own" ]; then
    echo "SKIP: control with Slurm's own pmix_vN: this Slurm ($(srun --version 2>&1)) has none"
else
    timeout 60 srun --mpi="$own" -N3 -n3 "$OUT/demo_exchange" >"$OUT/o" 2>"$OUT/e"; rc=$?
    n=$(grep -c "PMIx_Init: PMIX_SERVER_URI41=[^ ]*tcp4://[^ ]* is not an spmix server" "$OUT/e")
    if [ $rc != 0 ] && [ "$n" = 3 ] && ! grep -q "^rank " "$OUT/o"; then
        pass "control: Slurm's own --mpi=$own does not serve spmix's library (3 tasks refuse its URI, rc $rc)"
    else fail "control --mpi=$own: rc $rc, $n/3 refusals, output: $(head -c 300 "$OUT/o" "$OUT/e")"; fi
fi

echo "test_dropin: $NFAIL failure(s)"
[ $NFAIL = 0 ]
