"""The wire helpers: negotiation after initialize / server/discover, the per-request connection
(from 2026-07-28 on), the tools/call params and the tools/list result, with their errors."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

import mcp_outputs
from mcp_outputs import (
    Config,
    Connection,
    InvalidProtocolVersionError,
    LimitExceededError,
    MalformedError,
    MissingOutputVariantsError,
    ReceivedTool,
    ServerTool,
    UnsupportedProtocolVersionError,
)
from fixtures import APPS
from fixtures import TOOL_WITH_APPS as TOOL

CLIENT_CAPS: Dict[str, Any] = {"extensions": {APPS: {"mimeTypes": ["text/html;profile=mcp-app"]}}}
SERVER_CAPS: Dict[str, Any] = {"extensions": {APPS: {}, "com.example/other": {}}}


def meta(version: str) -> Dict[str, Any]:
    return {
        "name": "t",
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }


def test_negotiate_agrees_on_version_and_extensions() -> None:
    conn = Connection.negotiate("2026-12-01", CLIENT_CAPS, SERVER_CAPS)
    assert conn.protocol_version == "2026-12-01" and conn.negotiated == [APPS]
    no_mime = Connection.negotiate("2025-06-18", {"extensions": {APPS: {}}}, SERVER_CAPS, config=Config())
    assert no_mime.protocol_version == "2025-06-18" and no_mime.negotiated == []


def test_call_params_then_the_request_connection_then_tools_list() -> None:
    conn = Connection.negotiate("2026-12-01", CLIENT_CAPS, SERVER_CAPS)
    server = ServerTool.declare(TOOL)
    host = ReceivedTool.accept(server.advertise(conn), conn)
    plan = host.plan("apps", schemas=True)
    arguments = {"q": "acme", "requestedOutputs": "from the model, ignored"}
    params = conn.tools_call_params("t", arguments, plan, CLIENT_CAPS)
    assert params == {
        "name": "t",
        "arguments": arguments,
        "requestedOutputs": plan["requestedOutputs"],
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-12-01",
            "io.modelcontextprotocol/clientCapabilities": CLIENT_CAPS,
        },
    }
    old = Connection("2025-11-25")
    requested = {"requestedOutputs": [{"audience": "programmatic", "format": "structured"}]}
    assert old.tools_call_params("t", None, requested, {}) == {"name": "t"}
    # Any other request: `_meta` from 2026-07-28 on, keeping what it held; unchanged before.
    list_params = conn.request_params({"cursor": "c", "_meta": {"k": 1}}, CLIENT_CAPS)
    assert list_params == {"cursor": "c", "_meta": {"k": 1, **params["_meta"]}}
    assert old.request_params({"cursor": "c"}, {}) == {"cursor": "c"}
    with pytest.raises(MalformedError) as bad:
        conn.request_params({}, 1)  # type: ignore[arg-type]
    assert bad.value.path == "/clientCapabilities"

    per_request = Connection.from_request(params, SERVER_CAPS)
    assert per_request.protocol_version == "2026-12-01" and per_request.negotiated == [APPS]
    # tools/list (LIST-1): the SEP-2549 cache fields from 2026-07-28 on (default 0 / private);
    # a legacy Tool is never sent on 2026-12-01, and passes through as given before.
    legacy_tool = {"name": "old", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
    listed = per_request.tools_list_result([server])
    assert listed == {
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
        "tools": [server.advertise(per_request)],
    }
    cached = per_request.tools_list_result([server], cache={"ttlMs": 60000, "cacheScope": "public"})
    assert (cached.get("ttlMs"), cached.get("cacheScope")) == (60000, "public")
    with pytest.raises(MissingOutputVariantsError) as legacy_on_new:
        per_request.tools_list_result([server, legacy_tool])
    assert (legacy_on_new.value.path, legacy_on_new.value.jsonrpc_code) == ("/tools/1", -32603)
    july = Connection("2026-07-28")
    assert july.tools_list_result([legacy_tool])["tools"] == [legacy_tool]
    with pytest.raises(MalformedError):
        july.tools_list_result([legacy_tool, legacy_tool])
    with pytest.raises(MalformedError):
        july.tools_list_result([], cache={"ttlMs": 1})  # type: ignore[arg-type]
    assert old.tools_list_result((server,)) == {"tools": [server.advertise(old)]}


def test_request_errors_carry_the_jsonrpc_error() -> None:
    with pytest.raises(UnsupportedProtocolVersionError) as unsupported:
        Connection.from_request(meta("2031-01-01"), SERVER_CAPS)
    rpc = unsupported.value.to_jsonrpc_error()
    assert rpc is not None and rpc["code"] == -32022
    assert rpc["data"]["requested"] == "2031-01-01"
    assert tuple(rpc["data"]["supported"]) == mcp_outputs.PROTOCOL_VERSIONS
    with pytest.raises(MalformedError) as missing:
        Connection.from_request({"name": "t"}, SERVER_CAPS)
    assert missing.value.jsonrpc_code == -32602
    with pytest.raises(MalformedError) as server_fault:
        Connection.from_request(meta("2026-12-01"), [])  # type: ignore[arg-type]
    assert server_fault.value.jsonrpc_code == -32603
    with pytest.raises(LimitExceededError) as deep:
        Connection.from_request(meta("2026-12-01"), SERVER_CAPS, config=Config(limits={"maxDepth": 2}))
    assert deep.value.jsonrpc_code == -32602

    with pytest.raises(InvalidProtocolVersionError) as invalid:
        Connection.negotiate("latest", {}, SERVER_CAPS)
    assert (invalid.value.path, invalid.value.jsonrpc_code) == ("/protocolVersion", -32602)
    with pytest.raises(UnsupportedProtocolVersionError) as too_old:
        Connection.negotiate("2024-01-01", {}, SERVER_CAPS)
    assert too_old.value.jsonrpc_code == -32022
    with pytest.raises(MalformedError) as caps:
        Connection.negotiate("2025-11-25", None, SERVER_CAPS)  # type: ignore[arg-type]
    assert (caps.value.path, caps.value.jsonrpc_code) == ("/clientCapabilities", -32602)


def test_client_side_errors_are_local() -> None:
    conn = Connection()
    with pytest.raises(MalformedError) as plan:
        conn.tools_call_params("t", {}, {"requestedOutputs": [{"audience": "user"}]}, {})
    assert (plan.value.path, plan.value.to_jsonrpc_error()) == ("/requestedOutputs/0", None)
    with pytest.raises(MalformedError) as arguments:
        conn.tools_call_params("t", [1], {}, {})  # type: ignore[arg-type]
    assert arguments.value.path == "/arguments"
    with pytest.raises(MalformedError) as item:
        conn.tools_list_result([{"name": "a"}, "b"])  # type: ignore[list-item]
    assert item.value.path == "/tools/1"
    with pytest.raises(MalformedError) as unconvertible:
        conn.tools_list_result([{"name": {1: 2}}])
    assert unconvertible.value.path == "/tools/0/name"
    with pytest.raises(MalformedError):
        conn.tools_list_result({"name": "a"})  # type: ignore[arg-type]
    tight = Connection(config=Config(limits={"maxTools": 1}))
    with pytest.raises(LimitExceededError):
        tight.tools_list_result([{}, {}])


def test_whole_tools_lists_on_both_sides() -> None:
    """declare_tools (LIST-1) and discover_tools (LIST-2)."""
    tools = [TOOL, {"name": "u", "inputSchema": {"type": "object"}, "outputVariants": [
        {"audience": "assistant", "format": "content"}, {"audience": "user", "format": "structured"}]}]
    declared = mcp_outputs.declare_tools(tools, legacy_by_tool={"t": {"mirror": False}})
    assert [t.name for t in declared] == ["t", "u"]
    with pytest.raises(MalformedError) as unknown:
        mcp_outputs.declare_tools(tools, legacy_by_tool={"nope": {}})
    assert unknown.value.jsonrpc_code == -32603
    conn = Connection("2026-12-01", [APPS])
    discovered = mcp_outputs.discover_tools(conn.tools_list_result(declared), conn)
    assert [t.name for t in discovered["tools"]] == ["t", "u"]
    assert [w["code"] for w in discovered["warnings"]] == ["missing-schema"]
    assert discovered["tools"][0].plan("code") == {"requestedOutputs": [{"audience": "programmatic", "format": "structured"}]}
    with pytest.raises(MalformedError):
        mcp_outputs.discover_tools({"resultType": "complete", "ttlMs": "0", "tools": []}, conn)
    # CACHE-1: a missing cacheScope is repaired to private, with a warning at the result's root.
    repaired = mcp_outputs.discover_tools({"resultType": "complete", "ttlMs": 0, "tools": []}, conn)
    assert (repaired.get("cache"), repaired["warnings"]) == (
        {"ttlMs": 0, "cacheScope": "private"},
        [{"code": "cache-scope-missing", "path": ""}],
    )
    # LIST-3: a Tool the host rejects is excluded on its own, with where and why.
    bad = {"name": "b", "inputSchema": {}, "outputVariants": [{"audience": "assistant", "format": "content"}] * 2}
    page = mcp_outputs.discover_tools({"ttlMs": 0, "cacheScope": "private", "tools": [TOOL, bad], "nextCursor": "n"}, conn)
    assert [t.name for t in page["tools"]] == ["t"]
    excluded = page["excluded"][0]
    assert (excluded["index"], excluded["name"], excluded["code"], excluded["path"]) == (1, "b", "duplicate-variant", "/tools/1/outputVariants/1")
    assert page.get("nextCursor") == "n"
    with pytest.raises(MissingOutputVariantsError) as legacy:
        mcp_outputs.discover_tools('{"ttlMs": 0, "cacheScope": "private", "tools": [{"name": "o", "inputSchema": {}}]}', conn)
    assert (legacy.value.path, legacy.value.jsonrpc_code) == ("/tools/0/outputVariants", None)


def test_check_and_route_answers() -> None:
    """Empty error results are kept (ERR-5); input_required answers route nothing (MRTR-1)."""
    conn = Connection()
    host = ReceivedTool.accept(ServerTool.declare(TOOL).advertise(conn), conn)
    empty: Dict[str, Any] = {"resultType": "complete", "outputs": [], "isError": True, "_meta": {"k": 1}}
    assert host.check(None, empty) == {"warnings": [{"code": "empty-error-outputs", "path": ""}]}
    route = host.route(None, empty)
    assert "resultType" not in route
    assert (route["isError"], route["model"], route["diagnostics"]) == (True, [], [{"code": "empty-error-outputs", "path": ""}])
    assert route["dropped"] == [{"meta": "k"}]
    asked: Dict[str, Any] = {"resultType": "input_required", "inputRequests": {"a": {"method": "elicitation/create"}}}
    assert host.check(None, asked) == {"resultType": "input_required"}
    assert host.route(None, asked) == {"resultType": "input_required"}
    assert host.route(None, b'{"resultType": "input_required", "requestState": "s"}') == {"resultType": "input_required"}
    with pytest.raises(MalformedError):
        host.check(None, {"resultType": "input_required"})


def test_supported_versions() -> None:
    """VER-4: a side supporting fewer revisions refuses the others with -32022 and its list."""
    config = Config(supported_versions=["2026-12-01", "2026-07-28"])
    assert config.supported_versions == ("2026-07-28", "2026-12-01")
    assert Config().supported_versions == mcp_outputs.PROTOCOL_VERSIONS
    with pytest.raises(UnsupportedProtocolVersionError):
        Connection("2025-06-18", config=config)
    with pytest.raises(UnsupportedProtocolVersionError) as wire:
        Connection.from_request(meta("2025-11-25"), SERVER_CAPS, config=config)
    rpc = wire.value.to_jsonrpc_error()
    assert rpc is not None and rpc["code"] == -32022 and rpc["data"]["supported"] == ["2026-07-28", "2026-12-01"]
    assert Connection.from_request(meta("2026-07-28"), SERVER_CAPS, config=config).protocol_version == "2026-07-28"
    with pytest.raises(UnsupportedProtocolVersionError):
        Connection.negotiate("2025-11-25", {}, {}, config=config)
    bad_lists: List[Any] = [[], ["2026-12-01", "2026-12-01"], ["latest"]]
    for bad in bad_lists:
        with pytest.raises(MalformedError):
            Config(supported_versions=bad)
def test_the_tool_name_is_capped_like_any_input() -> None:
    """Issue 12, defect 3: a 100 MB name was accepted; it is at most `maxBytes`, as the core rules."""
    tight = Connection(config=Config(limits={"maxBytes": 64}))
    assert tight.tools_call_params("n" * 64, None, {}, {})["name"] == "n" * 64
    with pytest.raises(LimitExceededError) as too_long:
        tight.tools_call_params("n" * 65, None, {}, {})
    assert too_long.value.path == "/name"
    assert len(str(too_long.value)) < 1000
