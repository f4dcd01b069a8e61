"""A step of split_page.py: merges the page's small shared chunks into a few files.

wasm-split-cli writes one chunk_<n>.wasm for each set of split modules that share code, so
the engine alone (a first run's chunk) names about 80 of them, most under a kilobyte. Each
file costs its own header, imports and gzip frame, about 300 B gzipped, more than many of
them hold (65 small chunks of the engine: 31.9 KB gzipped apart, 10.4 KB merged; measured on
the build of 2026-12-03), and a line of the loader, which the first load carries. So the
small chunks are merged, grouped by which of the modules fetched before a first run's first
request need them (the engine, the first visit's chunk): a merged file never holds a chunk a
first run does not need beside one it does, nor a chunk the first visit's chunk does not
need beside one it does. A module that needs one of a merged file's chunks fetches all of
it: the later modules (the parts, the tools...) fetch a little more than they use.

A chunk imports only the page's memory, table and stack pointer (`__wasm_split`), exports
nothing and puts its functions in the table and its data in memory at fixed places, so it
can be merged with binaryen's wasm-merge: a module of nothing but those imports, exported,
is merged first, the chunks import them from it, and the merged file's exports are dropped.
"""

import gzip
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from wasm_binary import (  # noqa: E402
    SECTION_EXPORT,
    SECTION_IMPORT,
    Section,
    encode_export,
    encode_imports,
    read_imports,
    read_sections,
    vector,
    write_module,
)

BIN = os.path.join(HERE, "..", "..", "node_modules", ".bin")
# A chunk at most this big (gzipped) is merged: larger ones are worth a file of their own.
SMALL_GZIP_BYTES = 1500
# The split module a first run fetches before its first request, and the ones fetched before
# it on a first visit: a merged file holds only chunks one of them needs, grouped by which.
ENGINE = "engine"
EARLY = ("first_visit",)
SHARED = "__wasm_split"

# `/* engine, parts */` then the chunk's load, as compact_loader writes it.
CHUNK_LOAD = re.compile(
    r'/\* ([^*]*) \*/\s*const (__chunk_\d+) = makeLoad\(fetchWasm\("\./(chunk_\d+)\.wasm"\),\s*\[\]\);'
)


def gzip_size(path):
    return len(gzip.compress(open(path, "rb").read(), 9))


def groups(loader, parts):
    """Lists of (variable, file name) to merge, each in the loader's order."""
    grouped = {}
    for match in CHUNK_LOAD.finditer(loader):
        users = {u.strip() for u in match.group(1).split(",")}
        variable, name = match.group(2), match.group(3)
        if gzip_size(os.path.join(parts, f"{name}.wasm")) > SMALL_GZIP_BYTES:
            continue
        key = (ENGINE in users, tuple(sorted(users & set(EARLY))))
        grouped.setdefault(key, []).append((variable, name))
    return [members for members in grouped.values() if len(members) > 1]


def shared_imports(path):
    data = open(path, "rb").read()
    imports = read_imports(next(s for s in read_sections(data) if s.kind == SECTION_IMPORT).payload)
    if any(module != SHARED or kind == 0 for module, _, kind, _ in imports):
        sys.exit(f"merge_chunks: {os.path.basename(path)} imports more than the page's memory, table and globals")
    return data, imports


def provider(imports, out):
    """A module that imports `imports` from the page and exports each under its name."""
    counts = {}
    exports = []
    for _, field, kind, _ in imports:
        exports.append(encode_export(field, kind, counts.get(kind, 0)))
        counts[kind] = counts.get(kind, 0) + 1
    sections = [
        Section(SECTION_IMPORT, encode_imports(imports)),
        Section(SECTION_EXPORT, vector(exports)),
    ]
    open(out, "wb").write(write_module(sections))


def as_user(path, out, provider):
    """The chunk, importing the page's memory, table and globals from `provider`."""
    data, imports = shared_imports(path)
    sections = read_sections(data)
    for s in sections:
        if s.kind == SECTION_IMPORT:
            s.payload = encode_imports([(provider, field, kind, desc) for _, field, kind, desc in imports])
    open(out, "wb").write(write_module(sections))


def without_exports(path):
    sections = [s for s in read_sections(open(path, "rb").read()) if s.kind != SECTION_EXPORT]
    open(path, "wb").write(write_module(sections))


def merge(paths, out, wasm_opt_params):
    """Merges the chunks at `paths` into `out`, shrunk with `wasm_opt_params`."""
    work = tempfile.mkdtemp(prefix="merge-chunks-")
    wanted = {}
    for path in paths:
        for module, field, kind, desc in shared_imports(path)[1]:
            if wanted.setdefault(field, (module, field, kind, desc)) != (module, field, kind, desc):
                sys.exit(f"merge_chunks: the chunks import {field} differently")
    page = os.path.join(work, "page.wasm")
    provider(list(wanted.values()), page)
    args = [page, "page"]
    for i, path in enumerate(paths):
        copy = os.path.join(work, f"m{i}.wasm")
        as_user(path, copy, "page")
        args += [copy, f"m{i}"]
    features = [p for p in wasm_opt_params if p.startswith("--enable-")]
    merged = os.path.join(work, "merged.wasm")
    subprocess.run([os.path.join(BIN, "wasm-merge"), *features, *args, "-o", merged], check=True)
    without_exports(merged)
    subprocess.run([os.path.join(BIN, "wasm-opt"), "-Oz", *wasm_opt_params, merged, "-o", out], check=True)
    for f in os.listdir(work):
        os.remove(os.path.join(work, f))
    os.rmdir(work)


# A load's list of the chunks it needs first.
DEPENDENCIES = re.compile(r"(makeLoad\(fetchWasm\(\"\./\w+\.wasm\"\),\s*)\[([^\]]*)\]")


def merge_small_chunks(loader, parts, wasm_opt_params):
    """Merges the small chunks in `parts` the loader names, each group into its first chunk's
    file; gives the loader with the others' loads gone (each list of chunks a load needs names
    the merged file's load once instead) and the files merged away."""
    gone = []
    same_as = {}
    for members in groups(loader, parts):
        (first_var, first_name), rest = members[0], members[1:]
        paths = [os.path.join(parts, f"{name}.wasm") for _, name in members]
        merge(paths, paths[0], wasm_opt_params)
        for variable, name in rest:
            load = re.compile(
                r"/\* [^*]* \*/\s*const " + re.escape(variable) + r' = makeLoad\(fetchWasm\("\./'
                + re.escape(name) + r'\.wasm"\),\s*\[\]\);\n?'
            )
            loader, found = load.subn("", loader)
            if found != 1:
                sys.exit(f"merge_chunks: the loader's load of {name} is not as expected")
            os.remove(os.path.join(parts, f"{name}.wasm"))
            gone.append(name)
            same_as[variable] = first_var
        print(f"merge_chunks: {first_name} holds {len(members)} chunks ({', '.join(n for _, n in members)})")

    def once_each(match):
        needed = []
        for variable in (v.strip() for v in match.group(2).split(",") if v.strip()):
            variable = same_as.get(variable, variable)
            if variable not in needed:
                needed.append(variable)
        return f"{match.group(1)}[{', '.join(needed)}]"

    loader = DEPENDENCIES.sub(once_each, loader)
    for variable in same_as:
        if re.search(r"\b" + re.escape(variable) + r"\b", loader):
            sys.exit(f"merge_chunks: the loader still names {variable}, merged away")
    return loader, gone
