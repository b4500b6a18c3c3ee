"""Every kind of failing call, one each: the memory bench (`memory.py`) runs them a million
times and `tests/test_hardening.py` asserts no growth over a shorter run. Each returns normally
only when its call raised an `McpOutputsError`."""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import mcp_outputs
from mcp_outputs import Config, Connection, McpOutputsError, ReceivedTool, ServerTool

REQ = [{"audience": "programmatic", "format": "structured"}]


def _tool(schema: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "name": "t",
        "inputSchema": {"type": "object"},
        "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "programmatic", "format": "structured", "schema": schema},
        ],
    }


def _result(value: Any) -> Dict[str, Any]:
    return {"resultType": "complete", "outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": value}]}


def _nested(levels: int) -> Any:
    value: Any = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def error_paths() -> List[Callable[[], None]]:
    """One call per kind of error: schema violation, malformed text and values, every limit,
    protocol errors on both sides, bad options, the regex budget and a caught panic."""
    small = Config(limits={"maxArrayLen": 10, "maxDepth": 20, "maxBytes": 4096})
    conn = Connection(config=small)
    host = ReceivedTool.accept(_tool({"type": "object", "required": ["ok"]}), conn)
    server = ServerTool.declare(_tool({"type": "object", "required": ["ok"]}), config=small)
    regex_host = ReceivedTool.accept(_tool({"type": "object", "properties": {"s": {"not": {"pattern": "^(a|a)*\\1b"}}}}), conn)
    deep = _nested(40)
    calls: List[Callable[[], Any]] = [
        lambda: host.check(REQ, _result({"no": 1})),  # schema-violation
        lambda: host.check(REQ, "{not json"),  # malformed text
        lambda: host.check(REQ, b"\xff\xfe"),  # not UTF-8
        lambda: host.check(REQ, "[" * 50 + "]" * 50),  # text too deep
        lambda: host.check(REQ, _result(deep)),  # value too deep
        lambda: host.check(REQ, _result({"xs": list(range(30))})),  # array too long
        lambda: host.check(REQ, _result({"s": "x" * 5000})),  # too many bytes
        lambda: host.check(REQ, _result({"x": float("nan")})),  # not a JSON value
        lambda: host.route([{"audience": "user", "format": "structured"}], _result({"ok": 1})),  # undeclared
        lambda: server.respond(conn, REQ, {"outputs": []}),  # missing output (server side)
        lambda: server.respond_text(conn, None, "]"),  # malformed produced text
        lambda: Connection("2025-13-99"),  # invalid protocol version
        lambda: Config(limits={"maxDepth": 10**6}),  # maxDepth over the ceiling
        lambda: conn.request_params({"x": list(range(30))}, {}),  # wire helper over a limit
        lambda: regex_host.check(REQ, _result({"s": "a" * 30 + "!"})),  # regex budget
        lambda: mcp_outputs._mcp_outputs._panic_for_tests(),  # a panic, caught
    ]

    def expecting_error(call: Callable[[], Any]) -> Callable[[], None]:
        def run() -> None:
            try:
                call()
            except McpOutputsError:
                return
            raise AssertionError("the call did not fail")

        return run

    return [expecting_error(c) for c in calls]
