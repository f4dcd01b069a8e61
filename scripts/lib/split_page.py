"""A stage of the post-build step (post_build.py): splits the page's wasm at its split points, so
parts of the page that are not needed to show it are fetched the first time they are used.

The page's code marks those parts with `#[wasm_split(<chunk>, fallible)]` (src/split_points.rs).
Trunk cannot split a module (its wasm-bindgen step drops the relocations a split needs), so
it builds the page whole and this step builds it again from the linker's output (kept with
`--emit-relocs`, build.rs): wasm-split-cli cuts it into the main module, one
`split_<chunk>.wasm` per chunk, a `chunk_<n>.wasm` for code several chunks use, and a small
loader, `__wasm_split.js` (the small shared chunks a first run needs are then merged into a
few files: merge_chunks.py); wasm-bindgen makes the
glue for the main module (keeping the exports the chunks link against); wasm-opt shrinks each
part with the parameters index.html gives Trunk. Every file is named by its content, and the
page's loader, preloads and integrity hashes are pointed at the new files.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hashes import content_digest, renew_links, sri  # noqa: E402
from merge_chunks import merge_small_chunks  # noqa: E402

PAGE = "react-arena"
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WASM_OPT = os.path.join(ROOT, "node_modules", ".bin", "wasm-opt")


def run(*args):
    subprocess.run(list(args), check=True)


# What wasm-opt drops besides: the custom sections no browser reads.
STRIP_CUSTOM = ["--strip-producers", "--strip-target-features"]


def wasm_opt_params(html_source):
    """The page's `data-wasm-opt-params` in index.html: the parts get what Trunk gave the whole."""
    link = re.search(r'<link\b[^>]*data-bin="' + PAGE + r'"[^>]*>', html_source, flags=re.S)
    params = link and re.search(r'data-wasm-opt-params="([^"]*)"', link.group(0))
    if not params:
        sys.exit(f"split_page: index.html has no data-wasm-opt-params for {PAGE}")
    return params.group(1).split()


# wasm-split-cli writes the same fetch-and-instantiate function out for every chunk; the
# loader is on the first screen, so it is written once and named.
CHUNK_FETCH = re.compile(
    r'makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("(\./[\w-]+\.wasm)", import\.meta\.url\)\);'
    r'\s*src\.catch\(\(\) => \{\}\);'
    r'\s*return async \(imports\) => \(WebAssembly\.instantiateStreaming\(src, imports\)\);\s*\}\s*,'
)
FETCH_WASM = """function fetchWasm(name) {
    return () => {
        const src = fetch(new URL(name, import.meta.url));
        src.catch(() => {});
        return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
    };
}
"""


def compact_loader(loader):
    """The loader with one `fetchWasm` for every chunk's copy of it; fails if wasm-split-cli
    wrote it otherwise (every chunk's load must still be found)."""
    loads = loader.count("makeLoad(") - loader.count("function makeLoad(")
    compact, found = CHUNK_FETCH.subn(lambda m: f'makeLoad(fetchWasm("{m.group(1)}"),', loader)
    if found == 0 or found != loads:
        sys.exit(f"split_page: {found} of the loader's {loads} chunk loads have the expected form")
    return compact.replace("function makeLoad(", FETCH_WASM + "function makeLoad(", 1)


def main():
    root = os.environ.get("TRUNK_STAGING_DIR", sys.argv[-1])
    profile = os.environ.get("TRUNK_PROFILE", "release")
    target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    linked = os.path.join(target_dir, "wasm32-unknown-unknown", profile, f"{PAGE}.wasm")
    if not os.path.isfile(linked):
        sys.exit(f"split_page: {linked} is missing (did Trunk build {PAGE}?)")
    page = os.path.join(root, "index.html")
    html = open(page, encoding="utf-8").read()
    glue = re.search(r"\./(" + PAGE + r"-[0-9a-f]+)\.js", html)
    if not glue:
        sys.exit(f"split_page: index.html does not load {PAGE}'s glue")
    old = glue.group(1)

    work = tempfile.mkdtemp(prefix="split-page-")
    try:
        parts = os.path.join(work, "parts")
        run("wasm-split-cli", "--target", "web", "--out-name", PAGE, linked, parts)
        bound = os.path.join(work, "bound")
        run(
            "wasm-bindgen", "--target", "web", "--keep-lld-exports", "--no-demangle",
            "--out-name", PAGE, "--out-dir", bound, os.path.join(parts, f"{PAGE}.wasm"),
        )
        main_wasm = os.path.join(bound, f"{PAGE}_bg.wasm")
        # One split_<name>.wasm per split point's module, and a chunk_<n>.wasm for code that
        # several of them use (fetched with whichever comes first).
        chunks = sorted(
            glob.glob(os.path.join(parts, "split_*.wasm")) + glob.glob(os.path.join(parts, "chunk_*.wasm"))
        )
        if profile == "release":
            params = wasm_opt_params(open(os.path.join(ROOT, "index.html"), encoding="utf-8").read())
            # Every part loses the custom sections wasm-split-cli and rustc leave in it (who
            # processed it, which features it uses): no browser reads them, and each cost about
            # 150 B gzipped in every one of the page's files (a first run fetches about 90 of
            # them: measured on the build of 2026-12-03).
            params += STRIP_CUSTOM
            for path in chunks:
                run(WASM_OPT, "-Oz", *params, path, "-o", path)
            # The first load's module once more, its control flow flattened and rebuilt by
            # binaryen's relooper, then shrunk again: 1.1 KB less gzipped than -Oz alone
            # (measured on the build of 2026-11-27; -Oz --converge gained nothing).
            run(WASM_OPT, "-Oz", *params, "--flatten", "--rereloop", "-Oz", main_wasm, "-o", main_wasm)

        # Chunks first: the loader names them, and the glue names the loader. A chunk's name
        # carries 8 hex digits of its digest, not 16: the loader, on the first load, names
        # every chunk (about 50), and its number already tells chunks apart; 32 bits still
        # tell one build's chunk from another's.
        loader = compact_loader(open(os.path.join(parts, "__wasm_split.js"), encoding="utf-8").read())
        if profile == "release":
            # The small chunks a first run needs, a few files instead of dozens.
            loader, gone = merge_small_chunks(loader, parts, params)
            chunks = [p for p in chunks if os.path.basename(p)[: -len(".wasm")] not in gone]
        for path in chunks:
            data = open(path, "rb").read()
            name = os.path.basename(path)[: -len(".wasm")]
            hashed = f"{name}-{content_digest(data)[:8]}.wasm"
            if f'"./{name}.wasm"' not in loader:
                sys.exit(f"split_page: the loader does not name {name}.wasm as expected")
            loader = loader.replace(f'"./{name}.wasm"', f'"./{hashed}"')
            open(os.path.join(root, hashed), "wb").write(data)

        js = open(os.path.join(bound, f"{PAGE}.js"), encoding="utf-8").read()
        wasm = open(main_wasm, "rb").read()
        new = f"{PAGE}-{content_digest(js.encode() + wasm + loader.encode())}"
        loader = loader.replace(f'"./{PAGE}.js"', f'"./{new}.js"')
        loader_name = f"__wasm_split-{content_digest(loader.encode())}.js"
        # Only the import statement: the wasm's imports stay keyed by the module name it names.
        if 'from "./__wasm_split.js"' not in js:
            sys.exit("split_page: the glue does not import ./__wasm_split.js as expected")
        js = js.replace('from "./__wasm_split.js"', f'from "./{loader_name}"')
        open(os.path.join(root, loader_name), "w", encoding="utf-8").write(loader)
        open(os.path.join(root, f"{new}.js"), "w", encoding="utf-8").write(js)
        open(os.path.join(root, f"{new}_bg.wasm"), "wb").write(wasm)
        # The glue's snippets are the ones Trunk copied (same crate, same paths).
        for snippet in glob.glob(os.path.join(bound, "snippets", "**", "*.js"), recursive=True):
            if not os.path.isfile(os.path.join(root, os.path.relpath(snippet, bound))):
                sys.exit(f"split_page: snippet {os.path.relpath(snippet, bound)} is not in the build")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    os.remove(os.path.join(root, f"{old}.js"))
    os.remove(os.path.join(root, f"{old}_bg.wasm"))
    html = html.replace(f"./{old}_bg.wasm", f"./{new}_bg.wasm").replace(f"./{old}.js", f"./{new}.js")
    # The wasm's preload; the glue's and the loader's are renewed by minify_js.py, which runs
    # after this step and changes them again.
    html = renew_links(html, root, {f"{new}_bg.wasm"})
    # The glue imports the loader: preloaded with it, it costs no round trip of its own.
    loader_data = open(os.path.join(root, loader_name), "rb").read()
    preload = (
        f'<link rel="modulepreload" href="./{loader_name}" crossorigin="anonymous" '
        f'integrity="{sri(loader_data)}">'
    )
    html = html.replace("</head>", f"  {preload}\n  </head>", 1)
    open(page, "w", encoding="utf-8").write(html)


if __name__ == "__main__":
    main()
