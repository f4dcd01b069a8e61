"""Trunk post-build hook: tells the page where its lazily loaded modules are.

Trunk builds the Evaluate view as a second wasm module (data-type="worker": built, not
loaded) and names its files with a content hash. The page reads the hashed name of its
JavaScript glue from a meta tag, `react-arena-module-<name>`, when the view first opens.
"""

import glob
import os
import sys

LAZY = ["evaluate"]


def main():
    root = os.environ.get("TRUNK_STAGING_DIR", sys.argv[-1])
    page = os.path.join(root, "index.html")
    html = open(page, encoding="utf-8").read()
    for name in LAZY:
        found = sorted(
            os.path.basename(p)
            for p in glob.glob(os.path.join(root, f"{name}-*.js"))
            if not p.endswith("_bg.js")
        )
        if len(found) != 1:
            sys.exit(f"lazy module {name}: expected one {name}-<hash>.js in {root}, found {found}")
        meta = f'<meta name="react-arena-module-{name}" content="./{found[0]}" />'
        if meta not in html:
            html = html.replace("</head>", f"  {meta}\n  </head>", 1)
    open(page, "w", encoding="utf-8").write(html)


main()
