"""A minimal OpenAI-compatible endpoint over https on 127.0.0.1, for the test that a new https
host is confirmed before the token goes there. It answers CORS preflights, `GET /v1/models`
and `POST /v1/chat/completions` with one short SSE stream in the documented chunk format
(OpenAI's chat-completions streaming reference), and appends every request it receives to a
log file as one JSON line (method, path, authorization header, body).

Usage: https_endpoint.py CERT KEY LOG   (prints the port it listens on, then serves)
"""

import json
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CERT, KEY, LOG = sys.argv[1:4]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def record(self, body=""):
        entry = {
            "method": self.command,
            "path": self.path,
            "authorization": self.headers.get("Authorization", ""),
            "body": body,
        }
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")

    def cors(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")

    def do_OPTIONS(self):
        self.record()
        self.send_response(204)
        self.cors()
        self.end_headers()

    def do_GET(self):
        self.record()
        body = json.dumps({"object": "list", "data": [{"id": "mock/model", "object": "model"}]})
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.cors()
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.record(self.rfile.read(length).decode("utf-8", "replace"))
        self.send_response(200)
        self.cors()
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for piece in ["Answer: ", "from the https host"]:
            chunk = {
                "id": "chatcmpl-https",
                "object": "chat.completion.chunk",
                "model": "mock/model",
                "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
            }
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(CERT, KEY)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
