"""A real MCP server for the tests, written with the official Python SDK (PyPI `mcp`, 2.x:
`mcp.server.mcpserver.MCPServer`, the former FastMCP), served over Streamable HTTP by uvicorn.

Usage: mcp_python_server.py PORT TOKEN (PORT 0: any free port; the READY line names it)

- Endpoint `http://127.0.0.1:PORT/mcp`, stateful sessions (`Mcp-Session-Id`), replies as SSE
  (the SDK's default; `json_response=False`).
- Requires `Authorization: Bearer TOKEN` through the SDK's own bearer-auth middleware: anything
  else gets 401 `{"error": "invalid_token", ...}` with a `WWW-Authenticate` header that names the
  protected-resource metadata, as a real OAuth-protected MCP server answers.
- Wrapped in Starlette's CORSMiddleware so that a page on another origin can call it, and
  exposing `Mcp-Session-Id` and `WWW-Authenticate` to it.
- The SDK's DNS-rebinding protection stays on, set to accept Host `127.0.0.1:*`/`localhost:*`
  and Origin `http://127.0.0.1:*`/`http://localhost:*` (the test page's origins).
- Records every request's method, path and headers (preflights included, before CORS answers
  them); `GET /seen` returns them as a JSON array of `{method, path, headers}` (header names
  lower-case; repeated headers joined by ", "). `/seen` and `/calls` are not recorded.
- Records the body of every POST whose JSON-RPC method is `tools/call` exactly as it arrived
  (before auth; UTF-8 text, not parsed and written again, so a test can compare the bytes the
  client sent); `GET /calls` returns them as a JSON array of strings, in arrival order.
- Tool `station_code` {"city": string}: a made-up, deterministic code that no model can know,
  as text ("The station code of Paris is PS-2643.") and as structuredContent
  ({"city", "code"}). tests/support/mcp.rs computes the same code (`station_code`).
- Tools whose schemas the SDK and pydantic generate the way real servers send them, each
  answering text (and the SDK's structuredContent `{"result": text}`):
  - `chart_png` {"values": array of numbers}: one array parameter; "Charted 3 values: 3, 1, 4".
  - `nested_args` {"order": Order}: a nested object, `$defs` + `$ref` (Order {id: string,
    lines: array of Line}, Line {amount: number}); "Order A-1: 2 lines, total 42.5".
  - `city_facts` {"city": string, "year"?: integer in 1900..=2100 or null}: `anyOf` of a
    bounded integer and null, default null; "Paris in 1999: no facts on file." (or "in any
    year" without a year).

Prints `READY http://127.0.0.1:PORT/mcp` on stdout once it listens. Exits when its parent
process goes away (the test binary that started it), so no server outlives a test run.
"""

import asyncio
import json
import os
import socket
import sys
import threading
import time
from typing import Annotated

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field
from starlette.middleware.cors import CORSMiddleware

SEEN: list[dict] = []
# Bodies of the tools/call requests received, as text, in arrival order.
CALLS: list[str] = []
# Paths the recorder answers itself, unrecorded.
OWN_PATHS = ("/seen", "/calls")


def station_code(city: str) -> str:
    """First and last letter of the city, then 1000 + (sum of (i + 1) * byte of its lower-case
    UTF-8 bytes) mod 9000. Mirrored in tests/support/mcp.rs."""
    name = city.strip()
    letters = [c for c in name.upper() if c.isascii() and c.isalpha()] or ["X"]
    total = sum((i + 1) * b for i, b in enumerate(name.lower().encode("utf-8")))
    return f"{letters[0]}{letters[-1]}-{1000 + total % 9000}"


class StationCode(BaseModel):
    city: str
    code: str


class Line(BaseModel):
    amount: float


class Order(BaseModel):
    id: str
    lines: list[Line]


def number(x: float) -> str:
    """A number as a person writes it: 3, not 3.0."""
    return f"{x:g}"


class StaticTokenVerifier:
    """Accepts exactly one bearer token (the SDK's TokenVerifier protocol)."""

    def __init__(self, token: str) -> None:
        self.token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        if token != self.token:
            return None
        return AccessToken(token=token, client_id="react-arena-tests", scopes=[])


def build_app(port: int, token: str):
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "react-arena-python-rig",
        version="1.0.0",
        instructions="Test server of the ReAct Arena rig: made-up station codes.",
        token_verifier=StaticTokenVerifier(token),
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            # The verifier checks the token itself; no RFC 8707 resource binding here.
            validate_token_resource=False,
        ),
        log_level="WARNING",
    )

    @server.tool(
        name="station_code",
        description="Looks up the railway station code of a city in the rig's made-up registry.",
    )
    def station_code_tool(city: str) -> Annotated[CallToolResult, StationCode]:
        code = station_code(city)
        return CallToolResult(
            content=[TextContent(type="text", text=f"The station code of {city} is {code}.")],
            structured_content={"city": city, "code": code},
        )

    @server.tool(
        name="chart_png",
        description="Charts a series of numbers (the rig answers with a summary, not a PNG).",
    )
    def chart_png(values: list[float]) -> str:
        shown = ", ".join(number(v) for v in values)
        return f"Charted {len(values)} values: {shown}"

    @server.tool(
        name="nested_args",
        description="Totals the lines of an order.",
    )
    def nested_args(order: Order) -> str:
        total = sum(line.amount for line in order.lines)
        return f"Order {order.id}: {len(order.lines)} lines, total {number(total)}"

    @server.tool(
        name="city_facts",
        description="Facts about a city, in a given year if one is named.",
    )
    def city_facts(
        city: str, year: Annotated[int, Field(ge=1900, le=2100)] | None = None
    ) -> str:
        when = "any year" if year is None else str(year)
        return f"{city} in {when}: no facts on file."

    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*"],
    )
    mcp_app = server.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=False,
        stateless_http=False,
        transport_security=security,
        host="127.0.0.1",
    )

    async def inner(scope, receive, send):
        if scope["type"] == "http" and scope["path"] in OWN_PATHS:
            body = json.dumps(SEEN if scope["path"] == "/seen" else CALLS).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await mcp_app(scope, receive, send)

    cors = CORSMiddleware(
        inner,
        allow_origins=["*"],
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=[
            "Content-Type",
            "Authorization",
            "Mcp-Session-Id",
            "MCP-Protocol-Version",
            "Last-Event-ID",
        ],
        expose_headers=["Mcp-Session-Id", "WWW-Authenticate"],
    )

    async def recorder(scope, receive, send):
        if scope["type"] == "http" and scope["path"] not in OWN_PATHS:
            headers: dict[str, str] = {}
            for name, value in scope["headers"]:
                key = name.decode("latin-1").lower()
                text = value.decode("latin-1")
                headers[key] = f"{headers[key]}, {text}" if key in headers else text
            SEEN.append({"method": scope["method"], "path": scope["path"], "headers": headers})
            if scope["method"] == "POST":
                receive = await keep_tools_call(receive)
        await cors(scope, receive, send)

    return recorder


async def keep_tools_call(receive):
    """Reads a POST's whole body, keeps it in CALLS as it arrived when it is a tools/call, and
    returns a `receive` that hands the app the same body, then whatever `receive` says next
    (the client's disconnect)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            # The client went away before the body ended: nothing to keep; the app hears it.
            replay = [message]
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            body = b"".join(chunks)
            try:
                method = json.loads(body).get("method")
            except (ValueError, AttributeError):
                method = None
            if method == "tools/call":
                CALLS.append(body.decode("utf-8", errors="replace"))
            replay = [{"type": "http.request", "body": body, "more_body": False}]
            break

    async def replayed():
        if replay:
            return replay.pop(0)
        return await receive()

    return replayed


def exit_with_parent() -> None:
    parent = os.getppid()
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


async def serve(port: int, token: str) -> None:
    # Bound here, so that port 0 (any free port) works and the URL is known before the app is
    # built (the auth metadata names it).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        build_app(port, token),
        log_level="warning",
        lifespan="on",
        access_log=False,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
            sys.exit("the MCP server stopped before it listened")
        await asyncio.sleep(0.02)
    print(f"READY http://127.0.0.1:{port}/mcp", flush=True)
    await task


def main() -> None:
    port, token = int(sys.argv[1]), sys.argv[2]
    threading.Thread(target=exit_with_parent, daemon=True).start()
    asyncio.run(serve(port, token))


if __name__ == "__main__":
    main()
