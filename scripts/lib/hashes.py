"""The hashes the Trunk hooks give the files they write: a name by content (split_page.py,
lazy_modules.py), and Subresource Integrity (split_page.py, minify_js.py), with the page's
`<link>` tags renewed for the files a hook has changed."""

import base64
import hashlib
import os
import re


def content_digest(data):
    """What names a file by its content (`name-<digest>.js`): 16 hex digits of its SHA-256."""
    return hashlib.sha256(data).hexdigest()[:16]


def sri(data):
    """The integrity value of `data` (bytes), as Trunk writes it."""
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def renew_page_links(root, changed):
    """`renew_links` on the build's index.html, written back in place."""
    page = os.path.join(root, "index.html")
    html = open(page, encoding="utf-8").read()
    open(page, "w", encoding="utf-8").write(renew_links(html, root, changed))


def renew_links(html, root, changed):
    """`html` with the integrity of every `<link>` whose `./href` is in `changed` (paths
    relative to `root`, the build's folder) computed again from the file on disk."""

    def renew(match):
        tag = match.group(0)
        href = re.search(r'href="\./([^"]+)"', tag)
        if not href or href.group(1) not in changed:
            return tag
        data = open(os.path.join(root, href.group(1)), "rb").read()
        return re.sub(r'integrity="[^"]+"', f'integrity="{sri(data)}"', tag)

    return re.sub(r"<link\b[^>]*>", renew, html)
