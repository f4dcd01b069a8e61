"""A stage of the post-build step (post_build.py): minifies the stylesheets the build emits,
with csso (comments and spaces out, values in their short forms; rules are not merged or
moved, so the cascade is as written), and renews the page's integrity hashes for them. csso
is installed by npm from package.json (scripts/lib/ensure.sh, ensure_node_modules).
"""

import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hashes import renew_page_links  # noqa: E402

NODE_MODULES = os.path.join(HERE, "..", "..", "node_modules")

# Reads each file named on the command line and writes it back minified.
MINIFY = """
const fs = require("fs");
const { minify } = require("csso");
for (const path of process.argv.slice(1)) {
  fs.writeFileSync(path, minify(fs.readFileSync(path, "utf8"), { restructure: false }).css);
}
"""


def main():
    root = os.environ.get("TRUNK_STAGING_DIR", sys.argv[-1])
    if not os.path.isdir(os.path.join(NODE_MODULES, "csso")):
        sys.exit(f"{NODE_MODULES}/csso is missing: run npm ci (scripts/serve and scripts/test do)")
    files = sorted(glob.glob(os.path.join(root, "*.css")))
    if not files:
        sys.exit(f"minify_css: no stylesheet in {root}")
    env = dict(os.environ, NODE_PATH=os.path.abspath(NODE_MODULES))
    subprocess.run(["node", "-e", MINIFY, *files], check=True, env=env)
    renew_page_links(root, {os.path.relpath(p, root) for p in files})


if __name__ == "__main__":
    main()
