#!/usr/bin/env python3
"""check_layers.py - the layering rules of docs/ARCHITECTURE.md, checked.

Usage: check_layers.py DIR...   (the source directories, e.g. common core ...)
       check_layers.py --objects BUILD DIR...   (the call graph of a build)

Fails (exit 1) and names the file and line when
  * a file includes a project header of a layer it may not depend on,
  * a file includes a library its layer must not know about,
  * two modules include each other, directly or through others (a module
    is a .c file and its .h: "study/suggest"),
  * a file outside core/ is longer than 900 lines, a file in core/ longer
    than 1,100, or a function outside tests/ is longer than 120 lines.
With --objects it reads the object files of a build instead (nm) and fails
when two files call each other, directly or through others: a call cycle
that includes cannot show, as when two handlers share one header.
"""
import glob
import os
import re
import subprocess
import sys

# Layer -> the layers it may include (besides itself). The direction is
# server -> handlers -> study -> bench -> store -> core -> common; cli/ (the
# hpod subcommands but serve) sits beside server/ and uses only its
# configuration and its entry point (ONLY below); tools/ (a separate
# program) sits on bench/.
ALLOWED = {
    "common": set(),
    "core": {"common"},
    "store": {"core", "common"},
    "bench": {"store", "core", "common"},
    "study": {"bench", "store", "core", "common"},
    "handlers": {"study", "bench", "store", "core", "common"},
    "server": {"handlers", "study", "bench", "store", "core", "common"},
    "cli": {"server", "handlers", "study", "bench", "store", "core",
            "common"},
    "tools": {"bench", "core", "common"},
}
# (layer, included layer) -> the only headers of it that layer may include.
ONLY = {
    ("cli", "server"): {"server/config.h", "server/serve.h"},
}
# Layer -> library headers it must not include, and why.
FORBIDDEN = {
    "common": ({"libpq-fe.h", "microhttpd.h"},
               "common/ knows jansson (common/json), not SQL or HTTP"),
    "core": ({"jansson.h", "libpq-fe.h", "microhttpd.h", "stdio.h",
              "common/json.h", "common/log.h"},
             "core/ is pure: no JSON, SQL, HTTP or I/O"),
    "store": ({"jansson.h", "microhttpd.h"},
              "store/ knows SQL, not JSON or HTTP"),
    "bench": ({"libpq-fe.h", "microhttpd.h"},
              "SQL belongs in store/, HTTP in server/"),
    "study": ({"libpq-fe.h", "microhttpd.h"},
              "SQL belongs in store/, HTTP in server/"),
    "handlers": ({"libpq-fe.h", "microhttpd.h"},
                 "SQL belongs in store/, the HTTP library in server/"),
    "server": ({"libpq-fe.h"}, "SQL belongs in store/"),
    "cli": ({"libpq-fe.h", "microhttpd.h"},
            "SQL belongs in store/, the HTTP server in server/"),
    "tools": ({"libpq-fe.h", "microhttpd.h"},
              "tools/ works on tables, not on a server"),
}
FILE_MAX = 900
CORE_FILE_MAX = 1100
FUNC_MAX = 120
INC = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
FUNC_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\s*\(")


def sources(dirs):
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h", ".py")):
                yield d, os.path.join(d, name)


def long_functions(lines):
    """(name, first line, length) of each function longer than FUNC_MAX."""
    out, name, start = [], None, None
    for i, line in enumerate(lines):
        if start is None:
            if FUNC_NAME.match(line):
                name = line.split("(")[0].strip()
            elif line.startswith("{") and name:
                start = i
        elif line.startswith("}"):
            if i - start - 1 > FUNC_MAX:
                out.append((name, start + 1, i - start - 1))
            name, start = None, None
    return out


def cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def call_graph(build, dirs):
    """module -> the modules whose functions or data it uses (nm)."""
    defs, uses = {}, {}
    for d in dirs:
        for obj in sorted(glob.glob(os.path.join(build, d, "*.o"))):
            module = os.path.relpath(obj, build)[:-2]
            out = subprocess.run(["nm", obj], capture_output=True, text=True,
                                 check=True).stdout
            uses[module] = set()
            for line in out.splitlines():
                f = line.split()
                if len(f) == 2 and f[0] == "U":
                    uses[module].add(f[1])
                elif len(f) == 3 and f[1] in "TDBRGS":
                    defs.setdefault(f[2], module)
    return {m: {defs[s] for s in u if defs.get(s, m) != m}
            for m, u in uses.items()}


def main_objects(build, dirs):
    comps = cycles(call_graph(build, dirs))
    for comp in comps:
        print("call cycle between files: " + " -> ".join(comp))
    if comps:
        return 1
    print("calls ok")
    return 0


def main(dirs):
    errors, graph = [], {}
    for layer, path in sources(dirs):
        module = path[:-2]
        graph.setdefault(module, set())
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        banned, why = FORBIDDEN.get(layer, (set(), ""))
        for n, line in enumerate(lines if path.endswith((".c", ".h")) else [],
                               1):
            m = INC.match(line)
            if not m:
                continue
            header = m.group(2)
            if header in banned:
                errors.append(f"{path}:{n}: includes {header}: {why}")
            top = header.split("/")[0] if "/" in header else None
            if m.group(1) == '"' and top in ALLOWED:
                only = ONLY.get((layer, top))
                if top != layer and (top not in ALLOWED.get(layer, set()) or
                                     (only and header not in only)):
                    errors.append(f"{path}:{n}: {layer}/ may not include "
                                  f"{header} (layers: docs/ARCHITECTURE.md)")
                target = header[:-2]
                if target != module:
                    graph[module].add(target)
        if layer != "core" and len(lines) - 1 > FILE_MAX:
            errors.append(f"{path}: {len(lines) - 1} lines (at most "
                          f"{FILE_MAX} outside core/)")
        if layer == "core" and len(lines) - 1 > CORE_FILE_MAX:
            errors.append(f"{path}: {len(lines) - 1} lines (at most "
                          f"{CORE_FILE_MAX} in core/)")
        if path.endswith(".c"):
            for name, first, length in long_functions(lines):
                errors.append(f"{path}:{first}: {name} is {length} lines "
                              f"(at most {FUNC_MAX})")
    for comp in cycles(graph):
        errors.append("include cycle between modules: " + " -> ".join(comp))
    for e in errors:
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} problem(s)")
        return 1
    print("layers ok")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--objects":
        sys.exit(main_objects(sys.argv[2], sys.argv[3:]))
    sys.exit(main(sys.argv[1:]))
