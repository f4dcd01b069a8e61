"""Finds import cycles between the files of a Rust crate: each file is a module, and it
depends on the modules its code names by path (`crate::a::b`, `super::c`, `self::d`, in `use`
lines and in code; tests excluded). Prints every cycle (a strongly connected component of more
than one file) and exits 1 if there is one.

With `--layers FILE`, also reads the layers listed in FILE (lines `- layer N, …: `a`, `b``,
naming top-level modules) and fails on an import from a module to one of a higher layer, and on
a top-level module in no layer.

Usage: import_cycles.py <crate's src dir> [--layers FILE]
"""

import os
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:::\w+)*)(::\{)?")
TESTS = re.compile(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", re.S)


def modules(src):
    """Module path (a tuple of names) -> file."""
    found = {}
    for folder, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            parts = os.path.relpath(path, src)[: -len(".rs")].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            found[tuple(parts)] = path
    return found


def group(code, start):
    """The paths in a `{a::b, c::{d, e}, self}` list whose `{` ends just before `start`."""
    depth, item, items = 1, "", []
    for c in code[start:]:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth == 0:
            break
        if depth == 1 and c == ",":
            items.append(item)
            item = ""
        else:
            item += c
    items.append(item)
    paths = []
    for item in items:
        item = item.split(" as ")[0]
        item = re.sub(r"\s+", "", item)
        if "::{" in item:
            head, _, rest = item.partition("::{")
            paths += [head + "::" + p if p else head for p in group(rest, 0)]
        elif item == "self":
            paths.append("")
        elif item:
            paths.append(item)
    return paths


def dependencies(module, path, known):
    """The modules `module` (in file `path`) names."""
    code = TESTS.sub("", open(path, encoding="utf-8").read())
    out = set()
    for match in PATH.finditer(code):
        root, prefix = match.group(1), match.group(2).split("::")[1:]
        tails = group(code, match.end()) if match.group(3) else [""]
        for tail in tails:
            names = prefix + [n for n in tail.split("::") if n]
            if root == "crate":
                base = []
            elif root == "self":
                base = list(module)
            else:
                base = list(module[:-1])
                while names and names[0] == "super":
                    names, base = names[1:], base[:-1]
            target = base + names
            # The longest prefix that is a file of the crate.
            for n in range(len(target), 0, -1):
                hit = tuple(target[:n])
                if hit in known:
                    # A module naming a module it sits under (a re-export) is not a use.
                    if module[: len(hit)] != hit:
                        out.add(hit)
                    break
    return out


def cycles(graph):
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(100_000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


LAYER = re.compile(r"^- layer (\d+)\b[^:]*:(.*)$")


def layers(path):
    """Top-level module name -> its layer number, from the `- layer N, …:` lines of `path`."""
    found = {}
    for line in open(path, encoding="utf-8"):
        match = LAYER.match(line.strip())
        if match:
            for name in re.findall(r"`(\w+)`", match.group(2)):
                found[name] = int(match.group(1))
    return found


def upward(graph, layer_of):
    """Problems: imports from a lower layer to a higher one, and modules in no layer."""
    problems = []
    tops = sorted({m[0] for m in graph if m})
    for top in tops:
        if top not in layer_of:
            problems.append(f"module {top} is in no layer")
    for module, deps in sorted(graph.items()):
        if not module or module[0] not in layer_of:
            continue
        for dep in sorted(deps):
            if dep and dep[0] in layer_of and layer_of[dep[0]] > layer_of[module[0]]:
                problems.append(
                    f"import up a layer: {'/'.join(module)} (layer {layer_of[module[0]]}) uses "
                    f"{'/'.join(dep)} (layer {layer_of[dep[0]]})"
                )
    return problems


def main():
    src = sys.argv[1]
    known = modules(src)
    graph = {m: dependencies(m, p, known) for m, p in known.items()}
    found = cycles(graph)
    for component in found:
        print("import cycle: " + ", ".join("/".join(m) for m in component))
    problems = []
    if "--layers" in sys.argv:
        problems = upward(graph, layers(sys.argv[sys.argv.index("--layers") + 1]))
        for problem in problems:
            print(problem)
    print(f"{src}: {len(known)} files, {sum(map(len, graph.values()))} imports between them, "
          f"{len(found)} cycle(s), {len(problems)} layer problem(s)")
    sys.exit(1 if found or problems else 0)


main()
