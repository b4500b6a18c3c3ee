"""mcp_outputs.sdk against the real MCP Python SDK (``mcp``, pinned in
tests/interop/requirements.txt): an SDK server with the adapter and an SDK client with the
adapter, connected over the SDK's in-memory JSON-RPC streams, at every revision the SDK
negotiates."""

from __future__ import annotations

import importlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import anyio
import mcp_types
import pytest
from mcp.client.session import ClientSession
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.shared.memory import create_client_server_memory_streams

from mcp_outputs import Connection, MalformedError, McpOutputsError, ReceivedTool, ServerTool
from mcp_outputs.sdk import SDK_REVISIONS, OutputsClient, OutputsServer, ToolCall
from mcp_outputs.types import InputRequiredRoute, OtherResultRoute, Route

def complete(route: Union[Route, InputRequiredRoute, OtherResultRoute]) -> Route:
    """The route of a complete result (an ``input_required`` answer fails the test)."""
    assert "resultType" not in route, route
    return route


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "interop" / "py"))
interop_server: Any = importlib.import_module("server")

UI = "io.modelcontextprotocol/ui"
APPS = {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}
TOOLS, PRODUCED, BROKEN = interop_server.catalogue()
LEGACY = [r for r in SDK_REVISIONS if r != "2026-07-28"]


def run(main: Callable[[], Awaitable[None]]) -> None:
    anyio.run(main)


@asynccontextmanager
async def connected(
    server: Any, revision: Optional[str], *, apps: bool = False
) -> AsyncIterator[OutputsClient]:
    lowlevel: Server[Any] = server._lowlevel_server if isinstance(server, MCPServer) else server
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        async with anyio.create_task_group() as tg:

            async def serve() -> None:
                await lowlevel.run(server_streams[0], server_streams[1], lowlevel.create_initialization_options())

            tg.start_soon(serve)
            async with OutputsClient.connect(
                client_streams[0], client_streams[1], revision=revision, extensions=APPS if apps else None
            ) as client:
                yield client
            tg.cancel_scope.cancel()


def test_the_sdk_revisions_are_the_published_ones() -> None:
    assert SDK_REVISIONS == ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


@pytest.mark.parametrize("revision", SDK_REVISIONS)
@pytest.mark.parametrize("apps", [False, True])
def test_every_catalogue_tool_round_trips_at_every_revision(revision: str, apps: bool) -> None:
    async def main() -> None:
        async with connected(interop_server.build(apps), revision, apps=apps) as client:
            assert client.connection.protocol_version == revision
            # Apps is negotiated only where the server's support reached the wire: the SDK
            # drops capabilities.extensions from pre-2026 initialize results.
            expect_apps = apps and revision == "2026-07-28"
            assert client.connection.negotiated == ([UI] if expect_apps else [])
            assert (UI in client.server_capabilities.get("extensions", {})) == expect_apps
            tools = await client.list_tools()
            assert client.rejected == {}
            assert set(tools) == {t["name"] for t in TOOLS} | {BROKEN["tool"]["name"]}
            # The raw entries are kept: each is exactly the package's advertisement for this
            # connection (the SDK's typed list_tools would have dropped fields).
            conn = client.connection
            for declaration in TOOLS:
                assert tools[declaration["name"]].tool == ServerTool.declare(declaration).advertise(conn)
            calls = 0
            legacy_routed = 0
            for declaration in TOOLS:
                name = declaration["name"]
                for mode in ["conversational", "code", "apps"]:
                    try:
                        tools[name].plan(mode)  # type: ignore[arg-type]
                    except McpOutputsError:
                        continue
                    outcome = await client.call_tool(name, {}, mode=mode)  # type: ignore[arg-type]
                    calls += 1
                    assert complete(outcome.route)["isError"] is False
                    for output in complete(outcome.route)["model"]:
                        assert output["audience"] == "assistant"
                    assert outcome.result.get("content"), "the Python SDK requires content"
                    apps_flow = complete(outcome.route)["view"] is not None
                    if mode == "code" and "structuredContent" in outcome.result and not apps_flow:
                        # The plan's local rule reaches route (LEG-8; issue 20: it used to be
                        # dropped, and the structured data with it). The legacy Apps flow gives
                        # the whole result to the View instead.
                        assert outcome.plan.get("legacyStructured") == "programmatic", name
                        routed = complete(outcome.route)
                        held = [output.get("structuredContent") for output in routed["programmatic"]]
                        assert held == [outcome.result["structuredContent"]], name
                        assert "structuredContent" not in repr(routed["dropped"]), routed["dropped"]
                        legacy_routed += 1
                    if name == "search_customers" and mode == "conversational":
                        # The Apps path: the View's payload only where Apps reached the wire.
                        assert (complete(outcome.route)["view"] is not None) == expect_apps
            assert calls >= len(TOOLS)
            # From 2025-06-18 older servers send structuredContent: some code-mode call routed it.
            assert (legacy_routed > 0) == (revision >= "2025-06-18"), (revision, legacy_routed)
            # The broken tool: the package's error reaches the client as the SDK's JSON-RPC error
            # (before 2025-06-18 no structured output exists: its value is neither sent nor
            # validated, LEG-2).
            if revision in ("2024-11-05", "2025-03-26"):
                assert "outputSchema" not in tools[BROKEN["tool"]["name"]].tool
                await client.call_tool(BROKEN["tool"]["name"], {})
            else:
                with pytest.raises(MCPError) as raised:
                    await client.call_tool(BROKEN["tool"]["name"], {})
                assert raised.value.code == -32603
                assert raised.value.data["mcpOutputsCode"] == "schema-violation"
            # ... and the server keeps serving.
            again = await client.call_tool("list_regions", {})
            assert complete(again.route)["model"]

    run(main)


def test_a_schema_violation_is_the_sdks_json_rpc_error_and_the_server_keeps_serving() -> None:
    outputs = OutputsServer()
    declaration = next(t for t in TOOLS if t["name"] == "list_regions")
    outputs.add_tool(
        declaration,
        lambda call: {
            "outputs": [
                {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "3 regions"}]},
                {"audience": "assistant", "format": "structured", "structuredContent": {"wrong": True}},
            ]
        },
    )
    server: Server[Any] = Server("t")
    outputs.install(server)

    async def main() -> None:
        async with connected(server, "2025-11-25") as client:
            for _ in range(2):
                with pytest.raises(MCPError) as raised:
                    await client.call_tool("list_regions", {})
                assert raised.value.code == -32603
                assert raised.value.data["mcpOutputsCode"] == "schema-violation"
                assert raised.value.data["path"].startswith("/outputs/1/structuredContent")
                assert raised.value.message.count("schema") <= 2  # not doubled
            await client.list_tools()  # still serving

    run(main)


def test_bad_input_gets_the_packages_typed_errors_and_the_server_keeps_serving() -> None:
    outputs = OutputsServer()
    declaration = next(t for t in TOOLS if t["name"] == "list_regions")
    answers: List[Any] = [{1, 2}, {"outputs": "nope"}, PRODUCED["list_regions"]]
    outputs.add_tool(declaration, lambda call: answers.pop(0))
    server: Server[Any] = Server("t")
    outputs.install(server)

    async def main() -> None:
        async with connected(server, "2025-06-18") as client:
            await client.list_tools()
            # A handler's answer that is not JSON, then one of the wrong shape: typed errors.
            for _ in range(2):
                with pytest.raises(MCPError) as raised:
                    await client.call_tool("list_regions", {})
                assert raised.value.data["mcpOutputsCode"] == "malformed"
            # A request the package refuses: requestedOutputs of the wrong type, and
            # requestedOutputs on a legacy revision (the adapter reads the raw params).
            session: ClientSession = client.session
            from mcp_outputs.sdk import _RawCallToolRequest, _RawResult

            for requested, code in [("all", "malformed"), ([{"audience": "assistant", "format": "content"}], "requested-outputs-on-legacy-version")]:
                request = _RawCallToolRequest(params={"name": "list_regions", "arguments": {}, "requestedOutputs": requested})
                with pytest.raises(MCPError) as raised:
                    await session.send_request(request, _RawResult)
                assert raised.value.code == -32602
                assert raised.value.data["mcpOutputsCode"] == code
            # An unknown tool is the SDK's own answer; then a good call still works.
            with pytest.raises(MCPError):
                await session.send_request(_RawCallToolRequest(params={"name": "nope", "arguments": {}}), _RawResult)
            outcome = await client.call_tool("list_regions", {})
            assert complete(outcome.route)["model"]

    run(main)


def test_the_handler_sees_the_call_and_may_be_async() -> None:
    seen: List[ToolCall] = []
    outputs = OutputsServer()
    declaration = next(t for t in TOOLS if t["name"] == "list_regions")

    async def handler(call: ToolCall) -> Dict[str, Any]:
        seen.append(call)
        return PRODUCED["list_regions"]  # type: ignore[no-any-return]

    outputs.add_tool(declaration, handler)
    server: Server[Any] = Server("t")
    outputs.install(server)

    async def main() -> None:
        async with connected(server, "2026-07-28") as client:
            await client.call_tool("list_regions", {"region": "EU"})

    run(main)
    assert len(seen) == 1
    assert seen[0].arguments == {"region": "EU"}
    assert seen[0].connection.protocol_version == "2026-07-28"
    assert {(s["audience"], s["format"]) for s in seen[0].selected} >= {("assistant", "content")}


def test_mcpserver_keeps_its_own_tools_next_to_the_adapters() -> None:
    mcp = MCPServer("fast")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    outputs = OutputsServer()
    declaration = next(t for t in TOOLS if t["name"] == "list_regions")
    outputs.add_tool(declaration, lambda call: PRODUCED["list_regions"])
    outputs.install(mcp)

    async def main() -> None:
        for revision in ["2025-06-18", "2026-07-28"]:
            async with connected(mcp, revision) as client:
                tools = await client.list_tools()
                assert set(tools) == {"add", "list_regions"}
                assert complete((await client.call_tool("list_regions", {})).route)["model"]
                plain = await client.session.call_tool("add", {"a": 1, "b": 2})
                assert not plain.is_error

    run(main)


def test_a_bad_declaration_is_refused_when_registered() -> None:
    outputs = OutputsServer()
    with pytest.raises(McpOutputsError):
        outputs.add_tool({"name": "x", "inputSchema": {"type": "object"}, "outputVariants": []}, lambda call: {})
    outputs.add_tool(TOOLS[0], lambda call: {})
    with pytest.raises(ValueError):
        outputs.add_tool(TOOLS[0], lambda call: {})


# ---------------------------------------------------------------------------------------------
# The SDK's pydantic models are accepted wherever the package takes a dict, read as wire JSON.


def test_pydantic_models_are_read_as_the_wire_json() -> None:
    conn = Connection("2025-06-18")
    legacy_tool = mcp_types.Tool(
        name="weather",
        input_schema={"type": "object"},
        output_schema={"type": "object", "properties": {"tempC": {"type": "number"}}, "required": ["tempC"]},
    )
    as_dict = legacy_tool.model_dump(by_alias=True, exclude_none=True, mode="json")
    received = ReceivedTool.accept(legacy_tool, conn)
    assert received.tool == ReceivedTool.accept(as_dict, conn).tool
    result = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text="12 C")], structured_content={"tempC": 12}
    )
    received.check(None, result)
    assert received.route(None, result) == received.route(
        None, result.model_dump(by_alias=True, exclude_none=True, mode="json")
    )
    bad = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="x")], structured_content={"tempC": "hot"})
    with pytest.raises(McpOutputsError) as raised:
        received.check(None, bad)
    assert raised.value.code == "schema-violation"
    # Capabilities and tools/list entries as models too.
    caps = mcp_types.ClientCapabilities(extensions=APPS)
    server_caps = mcp_types.ServerCapabilities(extensions={UI: {}})
    assert Connection.negotiate("2026-07-28", caps, server_caps).negotiated == [UI]
    listed = Connection("2025-06-18").tools_list_result([legacy_tool])
    assert listed["tools"] == [as_dict]
    # Nested inside plain values.
    assert Connection.negotiate("2026-07-28", {"extensions": APPS}, {"extensions": {UI: {}}}).negotiated == [UI]


def test_a_model_that_cannot_be_dumped_is_malformed() -> None:
    from pydantic import BaseModel

    class Odd(BaseModel):
        value: Any

        def model_dump(self, **kwargs: Any) -> Any:
            raise TypeError("no")

    with pytest.raises(MalformedError):
        ReceivedTool.accept(Odd(value=1), Connection("2025-06-18"))

    class NotAnObject(BaseModel):
        def model_dump(self, **kwargs: Any) -> Any:
            return "text"

    with pytest.raises(MalformedError):
        ReceivedTool.accept(NotAnObject(), Connection("2025-06-18"))


def test_the_readme_sdk_page_runs() -> None:
    import subprocess

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## With the official MCP Python SDK", 1)[1]
    blocks = section.split("```python\n")[1:]
    assert blocks, "the page has a Python example"
    code = "\n".join(block.split("```", 1)[0] for block in blocks)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
