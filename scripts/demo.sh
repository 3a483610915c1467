#!/bin/sh
# Demo (README: "Run the demo"): installs the build dependencies, builds and
# installs spmix into ./_demo/inst, then runs real PMIx jobs through it:
#   - a 4-process job under spmix-run exchanging data with a collecting fence;
#   - the same program built against OpenPMIx's headers, run unchanged on our
#     libpmix.so.2;
#   - a job whose rank 1 calls PMIx_Abort, showing how the job ends.
# Leaves no process behind. (The Slurm plugin demo is added with that plugin.)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/_demo
sh "$top/scripts/install-deps.sh"
cd "$top" && ./autogen.sh >/dev/null 2>&1
rm -rf "$out" && mkdir -p "$out/build" && cd "$out/build"
"$top/configure" -q --prefix="$out/inst" --disable-tests
make -s -j"$(nproc)" && make -s install >/dev/null
inst=$out/inst
echo "== installed: $(ls "$inst/lib/spmix/" | tr '\n' ' ')"
cc -o "$out/demo_exchange" "$top/test/demo/demo_exchange.c" $(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags --libs spmix)
echo "== 4 processes: put, commit, collecting fence, get from every peer"
"$inst/bin/spmix-run" -n 4 "$out/demo_exchange"
if [ -f /usr/lib/x86_64-linux-gnu/pmix2/include/pmix.h ]; then
    cc -o "$out/demo_exchange_openpmix" "$top/test/demo/demo_exchange.c" \
        -I/usr/lib/x86_64-linux-gnu/pmix2/include -L"$inst/lib/spmix" -lpmix
    echo "== the same program compiled against OpenPMIx's headers, run on our library"
    LD_LIBRARY_PATH=$inst/lib/spmix "$inst/bin/spmix-run" -n 2 "$out/demo_exchange_openpmix"
fi
echo "== rank 1 calls PMIx_Abort(3, ...): the job ends with status 3"
set +e
"$inst/bin/spmix-run" -n 3 "$out/demo_exchange" --abort
echo "spmix-run exit status: $?"
