#!/bin/sh
# layers.sh: make check's run of scripts/check-layers.py on this build's
# object files: no cycle between the files of lib/progress, lib/client and
# lib/tree; none of lib/progress, lib/tree, lib/client and lib/server uses a module
# above its own (client and server: neither's files). The cycles of the
# other directories are printed, not failed on, until they are gone too.
top=${SPX_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${SPX_TOP_BUILDDIR:-.}
command -v python3 >/dev/null 2>&1 || { echo "layers.sh: no python3: skipped"; exit 77; }
exec python3 "$top/scripts/check-layers.py" "$build" --enforce lib/progress --enforce lib/client \
    --enforce lib/tree
