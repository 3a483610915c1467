#!/bin/sh
# server_includes.sh: make check's run of scripts/check-server-includes.sh on
# the source tree's lib/server (no include cycle through server/core.h, one
# file including tree/). A wrapper in test/unit because the build tree has no
# scripts/ directory for the test's log in a VPATH build (make distcheck).
top=${SPX_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exec sh "$top/scripts/check-server-includes.sh" "$top/lib/server"
