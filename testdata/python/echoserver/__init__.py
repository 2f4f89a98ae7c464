"""A stdio MCP server in plain Python (standard library only), for tests.

It speaks newline-delimited JSON-RPC 2.0 as the MCP stdio transport
specifies: initialize, ping, tools/list and tools/call of one tool,
echo {message}, which answers "Echo: <message>" and the interpreter's
sys.prefix, so a test can tell which Python ran it. Run it as
`python3 -m echoserver` (from this directory) or `python3 server.py`.
"""

import json
import sys

ECHO = {
    "name": "echo",
    "description": "Answers the message it is given.",
    "inputSchema": {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    },
}


def answer(req):
    method = req.get("method")
    params = req.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "python-echo", "version": "1.0.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [ECHO]}
    if method == "tools/call":
        if params.get("name") != "echo":
            raise LookupError("unknown tool %r" % params.get("name"))
        msg = (params.get("arguments") or {}).get("message", "")
        return {"content": [{"type": "text", "text": "Echo: %s (python %s)" % (msg, sys.prefix)}]}
    raise LookupError("method not found: %s" % method)


def serve():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError:
            continue
        if "id" not in req:
            continue  # a notification: nothing to answer
        try:
            out = {"jsonrpc": "2.0", "id": req["id"], "result": answer(req)}
        except LookupError as e:
            out = {"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32601, "message": str(e)}}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
