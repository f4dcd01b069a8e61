"""A stage of the post-build step (post_build.py): names the lazily loaded modules by their content
and tells the page.

Trunk builds the Evaluate view as a wasm module of its own
(data-type="worker": built, not loaded by the page) under fixed names, <name>.js and
<name>_bg.wasm. A fixed name could pair a cached old glue with a new wasm after a deploy, so
both are renamed with a hash of their contents, and the glue's reference to the wasm follows.
The page reads the glue's name from a meta tag, `react-arena-module-<name>`, when the module is
first needed (the first opening of Evaluate).
"""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hashes import content_digest  # noqa: E402

LAZY = ["evaluate"]
LINK = re.compile(r"<link\b[^>]*>")
SNIPPET_HREF = re.compile(r'href="\./(snippets/[^"]+)"')


def drop_unused_preloads(html, root):
    """Every module comes from one crate, so wasm-bindgen writes the snippets of all (and
    Trunk preloads every file it finds there). Only what the page's own glue imports is
    preloaded; the lazy modules' snippets load with them."""
    page_glue = "".join(
        open(p, encoding="utf-8").read()
        for p in glob.glob(os.path.join(root, "*.js"))
        if not os.path.basename(p).startswith(tuple(f"{n}-" for n in LAZY))
    )

    def keep(match):
        tag = match.group(0)
        snippet = SNIPPET_HREF.search(tag)
        unused = "modulepreload" in tag and snippet and snippet.group(1) not in page_glue
        return "" if unused else tag

    return LINK.sub(keep, html)


def main():
    root = os.environ.get("TRUNK_STAGING_DIR", sys.argv[-1])
    page = os.path.join(root, "index.html")
    html = open(page, encoding="utf-8").read()
    for name in LAZY:
        js_path = os.path.join(root, f"{name}.js")
        wasm_path = os.path.join(root, f"{name}_bg.wasm")
        if not (os.path.isfile(js_path) and os.path.isfile(wasm_path)):
            sys.exit(f"lazy module {name}: {name}.js and {name}_bg.wasm are not in {root}")
        js = open(js_path, encoding="utf-8").read()
        wasm = open(wasm_path, "rb").read()
        hashed = f"{name}-{content_digest(js.encode('utf-8') + wasm)}"
        # The glue names its wasm in quotes (single, or double once minified).
        named = [q for q in "'\"" if f"{q}{name}_bg.wasm{q}" in js]
        if not named:
            sys.exit(f"lazy module {name}: the glue does not name {name}_bg.wasm as expected")
        for q in named:
            js = js.replace(f"{q}{name}_bg.wasm{q}", f"{q}{hashed}_bg.wasm{q}")
        open(os.path.join(root, f"{hashed}.js"), "w", encoding="utf-8").write(js)
        os.rename(wasm_path, os.path.join(root, f"{hashed}_bg.wasm"))
        os.remove(js_path)
        meta = f'<meta name="react-arena-module-{name}" content="./{hashed}.js" />'
        html = html.replace("</head>", f"  {meta}\n  </head>", 1)
    html = drop_unused_preloads(html, root)
    open(page, "w", encoding="utf-8").write(html)


if __name__ == "__main__":
    main()
