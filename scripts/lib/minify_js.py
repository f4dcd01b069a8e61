"""A stage of the post-build step (post_build.py): minifies the JavaScript the build emits, with
terser.

Trunk's own minifier gives up on wasm-bindgen's glue (an ES module) and leaves it whole, so
the glue of both wasm modules and every wasm-bindgen snippet are minified here, and the
Subresource Integrity hashes the page carries for them are computed again. terser is
installed by npm from package.json (scripts/lib/ensure.sh, ensure_node_modules).
"""

import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hashes import renew_page_links  # noqa: E402

TERSER = os.path.join(HERE, "..", "..", "node_modules", ".bin", "terser")


def main():
    root = os.environ.get("TRUNK_STAGING_DIR", sys.argv[-1])
    if not os.access(TERSER, os.X_OK):
        sys.exit(f"{TERSER} is missing: run npm ci (scripts/serve and scripts/test do)")
    # The pages' workers and frames are not modules and are left as they are.
    files = [
        p
        for p in glob.glob(os.path.join(root, "*.js")) + glob.glob(os.path.join(root, "snippets", "**", "*.js"), recursive=True)
        if os.path.basename(p) != "python-worker.js"
    ]
    for path in files:
        subprocess.run(
            [TERSER, path, "--module", "--compress", "--mangle", "--output", path],
            check=True,
        )
    renew_page_links(root, {os.path.relpath(p, root) for p in files})


if __name__ == "__main__":
    main()
