"""Trunk post-build hook: adds a Content-Security-Policy meta tag to the built index.html.

The only inline script allowed is Trunk's module loader, by its SHA-256 hash (it changes with
every build, so the hash is computed here). connect-src must allow any https endpoint and
loopback http: the model and tool endpoints are the user's settings, chosen after the page
is built. Remote images are never allowed (the markdown renderer shows them as links).
"""

import base64
import hashlib
import os
import re
import sys

page = os.path.join(os.environ.get("TRUNK_STAGING_DIR", sys.argv[-1]), "index.html")
html = open(page, encoding="utf-8").read()
hashes = [
    "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'"
    for body in re.findall(r"<script[^>]*>(.*?)</script>", html, flags=re.S)
    if body.strip()
]
loopback = "http://localhost:* http://127.0.0.1:* http://[::1]:*"
policy = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval' " + " ".join(hashes),
        "style-src 'self'",
        "img-src 'self' data:",
        f"connect-src 'self' https: {loopback}",
        "frame-src 'self'",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
)
meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}" />'
if "Content-Security-Policy" not in html:
    html = html.replace('<meta charset="utf-8" />', '<meta charset="utf-8" />\n    ' + meta, 1)
    open(page, "w", encoding="utf-8").write(html)
