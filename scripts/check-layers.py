#!/usr/bin/env python3
"""check-layers.py - the call graph between the files of lib/, read from the
object files of a build, and its rules.

    check-layers.py BUILD_DIR [--enforce DIR ...] [--graph]

For every object file of BUILD_DIR/lib/<dir>/ (nm), an arrow runs from file A
to file B when A uses a global symbol B defines. Rules, per directory given
with --enforce (e.g. lib/progress): its files form no cycle. Every directory
of lib/progress, lib/tree, lib/client and lib/server is also checked
against the order of the library's modules (LAYERS below: a module may use
only modules below its level; lib/client and lib/server use neither's files,
but for what ALLOWED says). Cycles of the
directories not enforced are printed, not failed on. --graph prints every
arrow. Exit 0 when the rules hold, 1 otherwise, 2 on a usage error.
Nothing is read from the sources, so the check cannot drift from the code.
"""
import os
import subprocess
import sys

# Module levels: a file of a module in CHECKED may use files of its own
# module and of modules of a lower level. A pair listed in ALLOWED may cross
# otherwise (the server's own event handlers are client code the server runs
# in its process). The modules below lib/progress share one level: their
# order is not checked yet. lib/api holds entry points above the client and
# helpers below it (FILE_LEVELS).
LAYERS = {
    "lib/util": 1, "lib/types": 1, "lib/codec": 1, "lib/proto": 1, "lib/store": 1,
    "lib/net": 1, "lib/progress": 3, "lib/tree": 4, "lib/client": 5, "lib/server": 5,
    "lib/host": 6, "lib/api": 6,
}
FILE_LEVELS = {"lib/api/psets.c": 1, "lib/api/attr_support.c": 1,
               "lib/api/framework_names.c": 1}
CHECKED = {"lib/progress", "lib/tree", "lib/client", "lib/server"}
ALLOWED = {("lib/server", "lib/client")}


def objects(build):
    """{ 'lib/dir/file.c': path of its object }"""
    out = {}
    for d in sorted(LAYERS):
        libs = os.path.join(build, d, ".libs")
        if not os.path.isdir(libs):
            continue
        for f in sorted(os.listdir(libs)):
            if f.endswith(".o"):
                name = f[:-2]
                if name.startswith("libspx_core_la-"):
                    name = name[len("libspx_core_la-"):]
                out[d + "/" + name + ".c"] = os.path.join(libs, f)
    return out


def symbols(path):
    defined, used = set(), set()
    res = subprocess.run(["nm", "-P", path], capture_output=True, text=True, check=True)
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind == "U":
            used.add(sym)
        elif kind in "TDBRCGSVW":
            defined.add(sym)
    return defined, used


def sccs(nodes, edges):
    """Tarjan's strongly connected components of size > 1."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build, enforce, graph = argv[1], [], False
    i = 2
    while i < len(argv):
        if argv[i] == "--enforce" and i + 1 < len(argv):
            enforce.append(argv[i + 1].rstrip("/"))
            i += 2
        elif argv[i] == "--graph":
            graph = True
            i += 1
        else:
            print("check-layers: unknown argument %s" % argv[i], file=sys.stderr)
            return 2
    objs = objects(build)
    if not objs:
        print("check-layers: no object files under %s/lib (build first)" % build, file=sys.stderr)
        return 2
    definer, uses = {}, {}
    for f, path in objs.items():
        d, u = symbols(path)
        uses[f] = u
        for s in d:
            definer.setdefault(s, f)
    edges, names = {}, {}
    for f, u in uses.items():
        for s in u:
            g = definer.get(s)
            if g and g != f:
                edges.setdefault(f, set()).add(g)
                names.setdefault((f, g), []).append(s)
    fail = False
    if graph:
        for f in sorted(edges):
            for g in sorted(edges[f]):
                print("%s -> %s: %s" % (f, g, ", ".join(sorted(names[(f, g)])[:4])))
    # the modules' order
    for f in sorted(edges):
        mf = os.path.dirname(f)
        if mf not in CHECKED:
            continue
        for g in sorted(edges[f]):
            mg = os.path.dirname(g)
            if mf == mg or (mf, mg) in ALLOWED:
                continue
            if FILE_LEVELS.get(g, LAYERS[mg]) >= LAYERS[mf]:
                print("check-layers: %s uses %s (%s), a module not below its own: %s"
                      % (f, g, mg, ", ".join(sorted(names[(f, g)])[:4])))
                fail = True
    # cycles between the files of each directory
    for d in sorted(LAYERS):
        files = [f for f in objs if os.path.dirname(f) == d]
        local = {f: {g for g in edges.get(f, ()) if os.path.dirname(g) == d} for f in files}
        for comp in sccs(files, local):
            enforced = d in enforce
            print("check-layers: %s: a cycle of %d files%s: %s" %
                  (d, len(comp), "" if enforced else " (not enforced yet)", " ".join(
                      os.path.basename(c) for c in comp)))
            for f in comp:
                for g in sorted(local[f] & set(comp)):
                    print("    %s -> %s: %s" % (os.path.basename(f), os.path.basename(g),
                                                ", ".join(sorted(names[(f, g)])[:4])))
            fail |= enforced
    print("check-layers: %d files, %d arrows; %s" % (
        len(objs), sum(len(v) for v in edges.values()),
        "rules hold" if not fail else "RULES BROKEN"))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
