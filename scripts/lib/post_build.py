"""Trunk's post-build step, the only one (Trunk.toml): runs the stages below on the staged
dist/ (TRUNK_STAGING_DIR), in this order, and stops at the first that fails.

The order matters:
1. split_page: cuts the page's wasm at its split points into the page, its chunks and their
   loader, makes the page's glue again and renames them by content. First, because every
   later stage names, hashes or rewrites the files it writes, and it changes the inline
   loader's script (the glue's new name).
2. csp: the Content-Security-Policy meta tags, with the hashes of the inline scripts: after
   the last change to an inline script.
3. lazy_modules: names the Evaluate module by its content, tells the page its name, and drops
   preloads nothing needs.
4. minify_css: minifies the stylesheets and renews their integrity hashes.
5. minify_js: minifies every glue, loader and snippet and renews their integrity hashes. After
   the stages above, because it changes every JavaScript file they wrote or named.
6. browser_runtime: copies the in-browser model's runtime (wllama, already minified) into a
   folder named by its version; after minify_js, which must leave it as published.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import browser_runtime  # noqa: E402
import csp  # noqa: E402
import lazy_modules  # noqa: E402
import minify_css  # noqa: E402
import minify_js  # noqa: E402
import split_page  # noqa: E402

STAGES = [
    ("split_page", split_page.main),
    ("csp", csp.main),
    ("lazy_modules", lazy_modules.main),
    ("minify_css", minify_css.main),
    ("minify_js", minify_js.main),
    ("browser_runtime", browser_runtime.main),
]


def main():
    for name, stage in STAGES:
        started = time.monotonic()
        stage()
        print(f"post_build: {name} done in {time.monotonic() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
