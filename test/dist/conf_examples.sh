#!/bin/sh
# test/dist/conf_examples.sh - slurm-conf-examples/ is complete and right:
#   - mpi.conf names every option of the plugin's table (plugin/conf.c,
#     `.key = "Spmix..."`) and no other, each once (the Slurm tests build their
#     mpi.conf from it: test/slurm/testlib.sh spx_vc_mpiconf);
#   - its numeric defaults are the plugin's (plugin/conf.h SPX_PLG_DEFAULT_*;
#     SpmixTreeWidth follows Slurm's TreeWidth, which the example must say)
#     and its booleans those of spx_plg_conf_defaults() (plugin/conf.c);
#   - plugstack.conf loads spank_spmix.so, the SPANK plugin plugin/ builds;
#   - slurm.conf.snippet sets MpiDefault=spmix.
# Needs SPX_TOP_SRCDIR (make check exports it). Exit 0 passed, 1 failed.
set -u
s=${SPX_TOP_SRCDIR:?SPX_TOP_SRCDIR is not set}
ex=$s/slurm-conf-examples
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }

code=$(sed -n 's/.*\.key = "\(Spmix[A-Za-z]*\)".*/\1/p' "$s/plugin/conf.c" | sort)
conf=$(sed -n -E 's/^#?(Spmix[A-Za-z]+)=.*/\1/p' "$ex/mpi.conf" | sort)
[ "$(echo "$code" | wc -w)" -ge 9 ] || fail "too few options found in plugin/conf.c: $code"
[ "$code" = "$conf" ] || fail "mpi.conf's options differ from plugin/conf.c's:
$(printf '%s\n' "$code" >"${TMPDIR:-/tmp}/spx-ce.$$"; printf '%s\n' "$conf" | diff "${TMPDIR:-/tmp}/spx-ce.$$" - | grep '^[<>]' | sed 's/^</    conf.c only:/; s/^>/    mpi.conf only:/'; rm -f "${TMPDIR:-/tmp}/spx-ce.$$")"
dup=$(echo "$conf" | uniq -d)
[ -z "$dup" ] || fail "mpi.conf lists more than once: $dup"

val() { sed -n -E "s/^#?$1=(.*)$/\1/p" "$ex/mpi.conf" | head -n 1; }
def() { sed -n "s/^#define SPX_PLG_DEFAULT_$1 \([0-9]*\).*/\1/p" "$s/plugin/conf.h"; }
[ "$(val SpmixPortRange)" = "$(def PORT_LO)-$(def PORT_HI)" ] ||
    fail "SpmixPortRange=$(val SpmixPortRange), the plugin's default is $(def PORT_LO)-$(def PORT_HI)"
[ "$(val SpmixTimeout)" = "$(def TIMEOUT)" ] || fail "SpmixTimeout=$(val SpmixTimeout), the plugin's default is $(def TIMEOUT)"
# SpmixTreeWidth has no fixed default (Slurm's TreeWidth): the example must
# say so and show the plugin's fallback (plugin/tree_width.h), commented out
wdef=$(sed -n 's/^#define SPX_PLG_DEFAULT_WIDTH \([0-9]*\).*/\1/p' "$s/plugin/tree_width.h")
grep -B3 '^#SpmixTreeWidth=' "$ex/mpi.conf" | grep -q "Default: Slurm's" &&
    grep -A1 "Default: Slurm's" "$ex/mpi.conf" | grep -q "TreeWidth" &&
    [ "$(val SpmixTreeWidth)" = "$wdef" ] ||
    fail "mpi.conf must show '#SpmixTreeWidth=$wdef' after 'Default: Slurm's TreeWidth' (found $(val SpmixTreeWidth))"
cdef() { sed -n "s/^ *spx_plg_conf\.$1 = \([a-z0-9]*\);.*/\1/p" "$s/plugin/conf.c" | head -n 1; }
yn() { case $1 in true) echo yes ;; false) echo no ;; *) echo "$1" ;; esac; }
[ "$(val SpmixDebug)" = "$(cdef debug)" ] || fail "SpmixDebug=$(val SpmixDebug), the plugin's default is $(cdef debug)"
for kv in SpmixSetLdLibraryPath:set_ld_library_path SpmixStdinTool:stdin_tool SpmixOutputTap:output_tap; do
    k=${kv%%:*} f=${kv#*:}
    [ "$(val "$k")" = "$(yn "$(cdef "$f")")" ] || fail "$k=$(val "$k"), the plugin's default is $(yn "$(cdef "$f")")"
done

grep -Eq '^(optional|required)[[:space:]]+spank_spmix\.so' "$ex/plugstack.conf" ||
    fail "plugstack.conf does not load spank_spmix.so"
grep -q 'plugin/spank_spmix\.la' "$s/plugin/Makefile.inc" ||
    fail "plugstack.conf loads spank_spmix.so, which plugin/ no longer builds"
grep -Eq '^MpiDefault=spmix$' "$ex/slurm.conf.snippet" || fail "slurm.conf.snippet does not set MpiDefault=spmix"
[ "$nfail" = 0 ] || exit 1
echo "PASS: mpi.conf lists the $(echo "$conf" | wc -w) options of the plugin with its defaults; plugstack.conf and slurm.conf.snippet as the plugin needs"
