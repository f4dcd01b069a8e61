"""Serves the built bundle on loopback, optionally under a sub-path, as GitHub Pages does
(https://<owner>.github.io/<repo>/): `python3 serve.py DIR PORT [BASE]`.

The root and BASE without its slash redirect to BASE (a page at /repo would resolve its
relative assets against /); any other path outside BASE is 404. Used by scripts/serve."""

import functools
import http.server
import sys


class SubPathHandler(http.server.SimpleHTTPRequestHandler):
    base = "/"

    def _strip_base(self):
        if self.base == "/":
            return True
        if self.path.split("?", 1)[0] in ("/", self.base.rstrip("/")):
            self.send_response(301)
            self.send_header("Location", self.base)
            self.end_headers()
            return False
        if not self.path.startswith(self.base):
            self.send_error(404, "outside " + self.base)
            return False
        self.path = "/" + self.path[len(self.base):]
        return True

    def do_GET(self):
        if self._strip_base():
            super().do_GET()

    def do_HEAD(self):
        if self._strip_base():
            super().do_HEAD()


def main():
    directory, port = sys.argv[1], int(sys.argv[2])
    base = sys.argv[3] if len(sys.argv) > 3 else "/"
    base = "/" + base.strip("/") + "/" if base.strip("/") else "/"
    SubPathHandler.base = base
    handler = functools.partial(SubPathHandler, directory=directory)
    # wasm must be served as application/wasm for streaming compilation.
    SubPathHandler.extensions_map = {**SubPathHandler.extensions_map, ".wasm": "application/wasm"}
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
