"""Subresource Integrity for the Trunk hooks that rewrite files the page links
(split_page.py, minify_js.py): one hash function, and the page's `<link>` tags renewed for
the files a hook has changed."""

import base64
import hashlib
import os
import re


def sri(data):
    """The integrity value of `data` (bytes), as Trunk writes it."""
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


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
