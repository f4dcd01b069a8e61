"""A stage of the post-build step (post_build.py): Content-Security-Policy meta tags with the
hashes of inline scripts.

index.html: the only inline script allowed is Trunk's module loader, by its SHA-256 hash (it
changes with every build, so the hash is computed here). connect-src must allow any https
endpoint and loopback http: the model and tool endpoints are the user's settings, chosen
after the page is built. Remote images are never allowed (the markdown renderer shows them as
links).

worker-src allows blob: for the in-browser model's runtime (wllama), which starts its worker
from a blob of its own code; only script already running in the page can make such a blob.

Other pages (the sandboxed frames) carry their own policy in the source, with placeholders:
'inline-script-hashes' for the hashes of their inline scripts (they load no script file, so
their policy never needs 'self') and 'loopback-sources' for the loopback origins above.
"""

import base64
import glob
import hashlib
import os
import re
import sys

PLACEHOLDER = "'inline-script-hashes'"
# What the app calls "local" (crates/arena-core/src/origin.rs LOCAL_HOSTS): the two must agree. No [::1]:
# Chromium ignores IPv6 addresses in CSP sources, so the app sends users to localhost instead.
LOOPBACK = "http://localhost:* http://*.localhost:* http://127.0.0.1:*"


def inline_script_hashes(html):
    return " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'"
        for body in re.findall(r"<script[^>]*>(.*?)</script>", html, flags=re.S)
        if body.strip()
    )


def app_policy(html):
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval' " + inline_script_hashes(html),
            "style-src 'self'",
            "img-src 'self' data:",
            f"connect-src 'self' https: {LOOPBACK}",
            "frame-src 'self'",
            "worker-src 'self' blob:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def main():
    root = os.environ.get("TRUNK_STAGING_DIR", sys.argv[-1])
    page = os.path.join(root, "index.html")
    html = open(page, encoding="utf-8").read()
    if "Content-Security-Policy" not in html:
        meta = f'<meta http-equiv="Content-Security-Policy" content="{app_policy(html)}" />'
        html = html.replace('<meta charset="utf-8" />', '<meta charset="utf-8" />\n    ' + meta, 1)
        open(page, "w", encoding="utf-8").write(html)

    for frame in glob.glob(os.path.join(root, "*.html")):
        if os.path.basename(frame) == "index.html":
            continue
        html = open(frame, encoding="utf-8").read()
        original = html
        if PLACEHOLDER in html:
            hashes = inline_script_hashes(html)
            if not hashes:
                sys.exit(f"{frame}: its policy asks for inline script hashes but has no inline script")
            html = html.replace(PLACEHOLDER, hashes)
        html = html.replace("'loopback-sources'", LOOPBACK)
        if html != original:
            open(frame, "w", encoding="utf-8").write(html)


if __name__ == "__main__":
    main()
