"""The README's Python example: a server (declare → select → respond) and a host
(plan → check → route) on one connection. Run by tests/test_types.py, type-checked by mypy --strict."""

from mcp_outputs import Connection, McpOutputsError, ReceivedTool, ServerTool
from mcp_outputs.types import ProducedOutputs, ToolDeclaration

# Server: declare once (every schema is compiled here, a single time).
declaration: ToolDeclaration = {
    "name": "search_customers",
    "inputSchema": {"type": "object"},
    "outputVariants": [
        {"audience": "assistant", "format": "content"},
        {
            "audience": "programmatic",
            "format": "structured",
            "schema": {"type": "object", "properties": {"items": {"type": "array"}}, "required": ["items"]},
        },
    ],
}
tool = ServerTool.declare(declaration)

# One connection: the protocol version and the extensions both sides negotiated.
conn = Connection("2026-12-01", negotiated=[])

# tools/list: what this connection may see.
advertised = tool.advertise(conn)

# Host: accept the advertised tool once, then plan a code-mode call.
host = ReceivedTool.accept(advertised, conn)
plan = host.plan("code")
requested = plan.get("requestedOutputs")  # [{"audience": "programmatic", "format": "structured"}]

# Server: select (errors are -32602 invalid params) and respond with exactly what was asked for.
try:
    tool.select(conn, requested)
except McpOutputsError as e:
    print("send:", e.to_jsonrpc_error())
    raise
produced: ProducedOutputs = {
    "outputs": [
        {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "2 customers"}]},
        {"audience": "programmatic", "format": "structured", "structuredContent": {"items": ["c1", "c2"]}},
    ]
}
result = tool.respond(conn, requested, produced)

# Host: check the result, then route every output by its audience.
host.check(requested, result)
route = host.route(requested, result)
assert "resultType" not in route  # an input_required answer (MRTR-1) would route nothing
assert route["model"] == []  # nothing for the model in code mode
assert route["programmatic"][0].get("structuredContent") == {"items": ["c1", "c2"]}

# The wire bytes work too, and a bad result is a typed error with a JSON Pointer.
host.route(requested, b'{"resultType": "complete", "outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": {"items": []}}]}')
try:
    host.check(requested, {"resultType": "complete", "outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": {}}]})
except McpOutputsError as e:
    assert e.code == "schema-violation" and e.path == "/outputs/0/structuredContent"
print("ok")
