"""Prints what an MCP server answers to `tools/list` (every page), as one JSON object
`{"tools": [...]}`: how tests/fixtures/mcp/tools_list_schemas.json was captured from the rig's
real servers.

Usage: capture_tools_list.py URL [TOKEN]
"""

import json
import sys
import urllib.request

URL = sys.argv[1]
TOKEN = sys.argv[2] if len(sys.argv) > 2 else None
session = None


def post(message):
    global session
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
    }
    if session:
        headers["mcp-session-id"] = session
    if TOKEN:
        headers["authorization"] = f"Bearer {TOKEN}"
    request = urllib.request.Request(URL, json.dumps(message).encode(), headers, method="POST")
    with urllib.request.urlopen(request) as response:
        session = response.headers.get("mcp-session-id") or session
        body = response.read().decode()
    if "id" not in message:
        return None
    for line in body.splitlines():
        if line.startswith("data:"):
            data = json.loads(line[5:])
            if data.get("id") == message["id"]:
                return data["result"]
    return json.loads(body)["result"]


post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "capture", "version": "1"}}})
post({"jsonrpc": "2.0", "method": "notifications/initialized"})
tools, cursor, n = [], None, 2
while True:
    params = {"cursor": cursor} if cursor else {}
    page = post({"jsonrpc": "2.0", "id": n, "method": "tools/list", "params": params})
    tools += page["tools"]
    cursor, n = page.get("nextCursor"), n + 1
    if not cursor:
        break
print(json.dumps({"tools": [{"name": t["name"], "inputSchema": t["inputSchema"]} for t in tools]}, indent=1))
