"""The Python API: server (declare → advertise / select → respond), client (accept → plan →
check / route), text paths, errors, options; and every corpus case of the single-step ops run a
second time through the object API instead of `run`."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

import pytest

import corpus
import mcp_outputs
from mcp_outputs import Config, Connection, McpOutputsError, ReceivedTool, ServerTool

TOOL: Dict[str, Any] = {
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
PRODUCED: Dict[str, Any] = {
    "outputs": [
        {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "2 customers"}]},
        {"audience": "programmatic", "format": "structured", "structuredContent": {"items": ["c1", "c2"]}},
    ]
}


def test_server_and_client_round_trip() -> None:
    tool = ServerTool.declare(TOOL)
    assert tool.name == "search_customers" and tool.warnings == []
    conn = Connection("2026-12-01")
    assert conn.protocol_version == "2026-12-01" and conn.negotiated == []
    host = ReceivedTool.accept(tool.advertise(conn), conn)
    plan = host.plan("code")
    requested = plan["requestedOutputs"]
    assert requested == [{"audience": "programmatic", "format": "structured"}]
    assert tool.select(conn, requested) == requested
    result = tool.respond(conn, requested, PRODUCED)
    assert result == {"resultType": "complete", "outputs": [PRODUCED["outputs"][1]]}
    host.check(requested, result)
    route = host.route(requested, result)
    assert "resultType" not in route  # a Route, not an input_required answer
    assert route["model"] == [] and route["user"] == []
    assert route["programmatic"] == [PRODUCED["outputs"][1]]
    assert route["extensions"] == {} and route["view"] is None
    assert route["dropped"] == [] and route["diagnostics"] == []


def test_route_hands_back_the_callers_own_output_objects() -> None:
    conn = Connection()
    tool = ServerTool.declare(TOOL)
    host = ReceivedTool.accept(tool.advertise(conn), conn)
    requested = [{"audience": "assistant", "format": "content"}, {"audience": "programmatic", "format": "structured"}]
    result = tool.respond(conn, requested, PRODUCED)
    route = host.route(requested, result)
    assert "resultType" not in route
    assert route["model"][0] is result["outputs"][0]
    assert route["programmatic"][0] is result["outputs"][1]


def test_text_paths_agree_with_dict_paths() -> None:
    conn = Connection()
    tool = ServerTool.declare(TOOL)
    host = ReceivedTool.accept(json.dumps(tool.advertise(conn)), conn)
    requested = [{"audience": "programmatic", "format": "structured"}]
    wire = tool.respond_text(conn, json.dumps(requested), json.dumps(PRODUCED))
    assert isinstance(wire, str)
    result = tool.respond(conn, requested, PRODUCED)
    assert json.loads(wire) == result
    for given in (wire, wire.encode()):
        host.check(requested, given)
        host.check(json.dumps(requested), given)
        assert host.route(requested, given) == host.route(requested, result)
    bad = json.dumps({"resultType": "complete", "outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": {}}]})
    for given_bad in (bad, bad.encode()):
        with pytest.raises(mcp_outputs.SchemaViolationError) as info:
            host.check(requested, given_bad)
        assert info.value.path == "/outputs/0/structuredContent"
        assert info.value.to_jsonrpc_error() is None


def test_omitted_requested_outputs_is_the_fallback() -> None:
    conn = Connection()
    tool = ServerTool.declare(TOOL)
    assert tool.select(conn) == [{"audience": "assistant", "format": "content"}]
    result = tool.respond(conn, None, PRODUCED)
    assert result["outputs"] == [PRODUCED["outputs"][0]]
    host = ReceivedTool.accept(tool.advertise(conn), conn)
    assert host.plan("conversational") == {}
    fallback = host.route(None, result)
    assert "resultType" not in fallback
    assert fallback["model"] == [PRODUCED["outputs"][0]]


def test_server_errors_carry_their_jsonrpc_error() -> None:
    conn = Connection()
    tool = ServerTool.declare(TOOL)
    with pytest.raises(mcp_outputs.UndeclaredVariantError) as info:
        tool.select(conn, [{"audience": "user", "format": "content"}])
    err = info.value
    assert isinstance(err, McpOutputsError) and isinstance(err, ValueError)
    assert err.code == "undeclared-variant" and err.path == "/requestedOutputs/0"
    rpc = err.to_jsonrpc_error()
    assert rpc is not None and rpc["code"] == -32602
    assert rpc["data"]["mcpOutputsCode"] == "undeclared-variant"
    assert err.jsonrpc_code == -32602
    with pytest.raises(mcp_outputs.SchemaViolationError) as info2:
        bad = {"outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": {"x": 1}}]}
        tool.respond(conn, [{"audience": "programmatic", "format": "structured"}], bad)
    assert info2.value.jsonrpc_code == -32603
    with pytest.raises(mcp_outputs.MissingAssistantContentError) as info3:
        ServerTool.declare({"name": "t", "inputSchema": {"type": "object"}, "outputVariants": []})
    assert info3.value.jsonrpc_code == -32603


def test_errors_pickle_with_their_fields() -> None:
    import pickle

    tool = ServerTool.declare(TOOL)
    with pytest.raises(mcp_outputs.UndeclaredVariantError) as info:
        tool.select(Connection(), [{"audience": "user", "format": "content"}])
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is mcp_outputs.UndeclaredVariantError
    assert (copy.code, copy.message, copy.path, copy.to_jsonrpc_error(), str(copy)) == (
        info.value.code, info.value.message, info.value.path, info.value.to_jsonrpc_error(), str(info.value))
    internal = pickle.loads(pickle.dumps(mcp_outputs.InternalError("x")))
    assert type(internal) is mcp_outputs.InternalError and internal.code == "internal-error"


def test_version_errors() -> None:
    with pytest.raises(mcp_outputs.InvalidProtocolVersionError):
        Connection("latest")
    with pytest.raises(mcp_outputs.UnsupportedProtocolVersionError):
        Connection("2030-01-01")
    with pytest.raises(mcp_outputs.MalformedError):
        Connection(20261201)  # type: ignore[arg-type]


def test_legacy_connection_projects_the_result() -> None:
    conn = Connection("2025-06-18")
    tool = ServerTool.declare(TOOL, {"structuredFrom": "programmatic/structured"})
    advertised = tool.advertise(conn)
    assert "outputVariants" not in advertised and advertised["outputSchema"]["required"] == ["items"]
    result = tool.respond(conn, None, PRODUCED)
    assert result["structuredContent"] == {"items": ["c1", "c2"]}
    assert "resultType" not in result
    host = ReceivedTool.accept(advertised, conn)
    route = host.route(None, result)
    assert "resultType" not in route
    model = route["model"][0]
    assert model["format"] == "content" and model["content"][0]["text"] == "2 customers"
    assert route["dropped"] == [{"legacy": "structuredContent"}]
    with pytest.raises(mcp_outputs.RequestedOutputsOnLegacyVersionError):
        tool.select(conn, [{"audience": "assistant", "format": "content"}])


def test_apps_extension_view_and_config() -> None:
    apps = "io.modelcontextprotocol/ui"
    tool_json = dict(TOOL, outputVariants=TOOL["outputVariants"] + [{"audience": apps, "format": "structured"}])
    tool = ServerTool.declare(tool_json)
    assert tool.warnings == [{"code": "missing-schema", "path": "/outputVariants/2"}]
    plain = Connection()
    assert len(tool.advertise(plain)["outputVariants"]) == 2
    conn = Connection("2026-12-01", [apps])
    host = ReceivedTool.accept(tool.advertise(conn), conn)
    requested = host.plan("apps")["requestedOutputs"]
    produced = {"outputs": PRODUCED["outputs"] + [{"audience": apps, "format": "structured", "structuredContent": {"k": 1}}], "_meta": {apps: {"x": 1}, "other": 2}}
    route = host.route(requested, tool.respond(conn, requested, produced))
    assert "resultType" not in route
    assert route["view"] == {"content": [], "structuredContent": {"k": 1}, "_meta": {apps: {"x": 1}}}
    ui_output = route["extensions"][apps][0]
    assert ui_output["format"] == "structured" and ui_output["structuredContent"] == {"k": 1}
    assert route["dropped"] == [{"meta": "other"}]
    config = Config(extensions=[{"id": "com.example/audit", "formats": ["structured"]}], limits={"maxDepth": 5})
    assert config.limits["maxDepth"] == 5 and config.limits["maxVariants"] == 64
    assert [d["id"] for d in config.extensions] == [apps, "com.example/audit"]
    with pytest.raises(mcp_outputs.MalformedError):
        Config(limits={"maxWidth": 1})  # type: ignore[arg-type]
    with pytest.raises(mcp_outputs.InvalidAudienceError):
        ServerTool.declare(dict(TOOL, outputVariants=TOOL["outputVariants"] + [{"audience": "com.example/x", "format": "structured"}]))


def test_plan_schemas_and_require_schema() -> None:
    conn = Connection()
    host = ReceivedTool.accept(TOOL, conn)
    plan = host.plan(consumers=[{"audience": "programmatic", "format": "structured"}], schemas=True)
    assert plan["schemas"][0]["schema"] == TOOL["outputVariants"][1]["schema"]
    bare = dict(TOOL, outputVariants=[TOOL["outputVariants"][0], {"audience": "programmatic", "format": "structured"}])
    loose = ReceivedTool.accept(bare, conn)
    assert [w["code"] for w in loose.warnings] == ["missing-schema"]
    with pytest.raises(mcp_outputs.MissingSchemaError):
        loose.plan("code", require_schema=True)
    with pytest.raises(mcp_outputs.MalformedError):
        host.plan()
    with pytest.raises(mcp_outputs.MalformedError):
        host.plan("no-such-mode")  # type: ignore[arg-type]


def test_migrate_tool() -> None:
    legacy = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
    migrated = mcp_outputs.migrate_tool(legacy, programmatic_from_output_schema=True)
    tool = migrated["tool"]
    assert tool["outputVariants"][1] == {"audience": "programmatic", "format": "structured", "schema": {"type": "object"}}
    assert "outputSchema" not in tool
    assert migrated.get("legacy") == {"outputSchema": {"type": "object"}, "structuredFrom": "programmatic/structured"}
    assert "warnings" not in migrated
    # MIG-2: the declaration with its legacy options advertises the legacy Tool again.
    server = ServerTool.declare(tool, migrated.get("legacy"))
    assert server.advertise(Connection("2026-07-28")) == legacy
    dropped = mcp_outputs.migrate_tool(legacy)
    assert dropped["tool"]["outputVariants"] == [{"audience": "assistant", "format": "content"}]
    assert dropped.get("warnings") == [{"code": "legacy-output-schema-dropped", "path": "/outputSchema"}]
    assert "legacy" not in dropped


def test_run_is_the_corpus_layer() -> None:
    assert mcp_outputs.run("declare", {"tool": TOOL}) == {}
    assert mcp_outputs.run("declare", json.dumps({"tool": TOOL})) == {}
    with pytest.raises(mcp_outputs.MalformedError):
        mcp_outputs.run("no-such-op", {})


def test_panic_becomes_internal_error() -> None:
    with pytest.raises(mcp_outputs.InternalError) as info:
        mcp_outputs._mcp_outputs._panic_for_tests()
    assert isinstance(info.value, McpOutputsError) and info.value.code == "internal-error"


def test_every_code_has_its_exception_class() -> None:
    assert set(mcp_outputs.ERROR_CLASSES) == set(mcp_outputs.ERROR_CODES)
    for code, cls in mcp_outputs.ERROR_CLASSES.items():
        assert issubclass(cls, McpOutputsError) and cls.__name__ == "".join(p.capitalize() for p in code.split("-")) + "Error"
        assert getattr(mcp_outputs, cls.__name__) is cls


# ---- the corpus through the object API -------------------------------------------------------

API_OPS = ("declare", "advertise", "select", "respond", "accept", "plan", "check", "route", "migrate", "list", "discover")


def _api_cases() -> List[corpus.Case]:
    cases, problems = corpus.load_cases(corpus.json_files(corpus.CORPUS, True), corpus.requirement_ids(), set())
    assert not problems
    out = []
    for case in cases:
        if case.op not in API_OPS:
            continue
        options = case.input.get("options")
        if case.op == "migrate" and options is not None and not (
            isinstance(options, dict) and all(type(v) is bool for v in options.values())
        ):
            continue  # the API takes these as bool keyword arguments
        if case.op == "plan" and (case.input.get("mode", "") is None or case.input.get("consumers", "") is None):
            continue
        if any(case.input.get(key, "") is None for key in ("legacy", "legacyByTool", "cache", "requestedOutputs")):
            continue  # the API's keyword default None means "not given"; `run` covers JSON null
        if isinstance(case.input.get("result"), str):
            continue  # the API reads a str result as JSON text; `run` covers a JSON string
        out.append(case)
    return out


def _requested(inp: Dict[str, Any]) -> Any:
    return inp.get("requestedOutputs")


class _Local(Exception):
    """An error of a step before the server's own methods: compared by code only."""


def _codes(findings: Sequence[Mapping[str, object]]) -> List[str]:
    """The contract compares warning and diagnostic codes only, each once; the API gives
    ``{code, path}``."""
    out: List[str] = []
    for finding in findings:
        assert set(finding) == {"code", "path"} and isinstance(finding["path"], str), finding
        code = finding["code"]
        assert isinstance(code, str)
        if code not in out:
            out.append(code)
    return out


def _contract(answer: Dict[str, Any]) -> Dict[str, Any]:
    out = dict(answer)
    for key in ("warnings", "diagnostics"):
        if key in out:
            out[key] = _codes(out[key])
    return out


def _via_api(op: str, inp: Dict[str, Any]) -> Dict[str, Any]:
    """Runs a case through the object API; a server method's error keeps its JSON-RPC code,
    other errors are raised with `_server = False` (compared by code only)."""
    try:
        config = (
            Config(extensions=inp.get("extensions"), supported_versions=inp.get("supportedVersions"))
            if "extensions" in inp or "supportedVersions" in inp
            else None
        )
    except McpOutputsError:
        if op in ("accept", "plan", "check", "route", "discover"):
            # The API reads its options before any request, so the per-request order of the
            # client side (ERR-6: protocolVersion first) is the operation layer's.
            return dict(mcp_outputs.run(op, inp))
        raise

    def request_shape() -> None:
        if "requestedOutputs" in inp:
            try:
                mcp_outputs.check_requested_outputs(json.dumps(inp["requestedOutputs"]), config=config)
            except McpOutputsError as e:
                e._server = False  # type: ignore[attr-defined]
                raise
    conn_args = (inp.get("protocolVersion"), inp.get("negotiated"))
    if op == "migrate":
        opts = inp.get("options") or {}
        return _contract(
            dict(
                mcp_outputs.migrate_tool(
                    inp["legacyTool"],
                    programmatic_from_output_schema=opts.get("programmaticFromOutputSchema", False),
                    assistant_from_output_schema=opts.get("assistantFromOutputSchema", False),
                    apps=opts.get("apps", False),
                )
            )
        )
    if op == "list":
        # The server's own tools are declared before the request's version is read, as in `ops`.
        tools = mcp_outputs.declare_tools(inp["tools"], legacy_by_tool=inp.get("legacyByTool"), config=config)
        try:
            conn = Connection(*conn_args, config=config)
        except McpOutputsError as e:
            e._server = False  # type: ignore[attr-defined]
            raise
        return {"result": conn.tools_list_result(tools, cache=inp.get("cache"), next_cursor=inp.get("nextCursor"))}
    if op == "discover":
        discovered = mcp_outputs.discover_tools(inp["result"], Connection(*conn_args, config=config))
        names: Dict[str, Any] = {"tools": [t.name for t in discovered["tools"]]}
        names["excluded"] = [{k: e[k] for k in ("index", "name", "code")} for e in discovered["excluded"]]
        for key in ("cache", "nextCursor"):
            if key in discovered:
                names[key] = discovered[key]
        if discovered["warnings"]:
            names["warnings"] = _codes(discovered["warnings"])
        return names
    if op in ("declare", "advertise", "select", "respond"):
        tool = ServerTool.declare(inp["tool"], inp.get("legacy"), config=config)
        if op == "declare":
            return {"warnings": _codes(tool.warnings)} if tool.warnings else {}
        request_shape()
        try:
            conn = Connection(*conn_args, config=config)
        except McpOutputsError as e:
            e._server = False  # type: ignore[attr-defined]
            raise
        if op == "advertise":
            return {"tool": tool.advertise(conn)}
        if op == "select":
            return {"selection": tool.select(conn, _requested(inp))}
        return {"result": tool.respond(conn, _requested(inp), inp["produced"])}
    # ERR-6, the client side's one order: the connection, the received tool (accept), the
    # host's own options, the request, the result.
    conn = Connection(*conn_args, config=config)
    host = ReceivedTool.accept(inp["tool"], conn)
    if op == "accept":
        return {"warnings": _codes(host.warnings)} if host.warnings else {}
    if op == "plan":
        return dict(host.plan(inp.get("mode"), inp.get("consumers"), require_schema=inp.get("requireSchema", False), schemas=inp.get("schemas", False)))
    if op == "check":
        return _contract(dict(host.check(_requested(inp), inp["result"], legacy_structured=inp.get("legacyStructured"))))
    return _contract(dict(host.route(_requested(inp), inp["result"], legacy_structured=inp.get("legacyStructured"))))


@pytest.mark.parametrize("case", _api_cases(), ids=lambda c: c.id)
def test_corpus_case_through_the_api(case: corpus.Case) -> None:
    try:
        got = _via_api(case.op, case.input)
    except McpOutputsError as e:
        assert case.expect_code is not None, f"expected ok {case.expect_ok}, got {e}"
        assert e.code == case.expect_code, f"expected {case.expect_code}, got {e}"
        if case.expect_jsonrpc is not None and getattr(e, "_server", True):
            assert e.jsonrpc_code == case.expect_jsonrpc, f"expected JSON-RPC {case.expect_jsonrpc}, got {e.jsonrpc_code}"
        return
    assert case.expect_code is None, f"expected error {case.expect_code}, got ok {got}"
    diffs: List[str] = []
    corpus.compare(case.expect_ok, got, "", corpus.set_paths(case.op), diffs)
    assert not diffs, "\n".join(diffs)


def test_api_corpus_covers_most_cases() -> None:
    assert len(_api_cases()) >= 300


def test_respond_ranks_the_request_before_produced_outputs_it_cannot_read() -> None:
    # As the core's respond: every fault of the request (-32602) before the produced outputs' (-32603).
    server = ServerTool.declare(TOOL)
    conn = Connection()
    broken = {"outputs": [float("nan")]}
    codes = []
    requests: List[Any] = [0, [{"audience": "user", "format": "content"}], None]
    for requested in requests:
        with pytest.raises(McpOutputsError) as caught:
            server.respond(conn, requested, broken)
        codes.append((caught.value.code, caught.value.jsonrpc_code))
    assert codes == [("malformed", -32602), ("undeclared-variant", -32602), ("malformed", -32603)]


def test_answers_name_what_went_wrong() -> None:
    """Issue 22, item 4: the common mistakes get answers that name the valid values."""
    host = ReceivedTool.accept(TOOL, Connection())
    with pytest.raises(mcp_outputs.MalformedError) as mode:
        host.plan("Code")  # type: ignore[arg-type]
    assert mode.value.path == "/mode"
    assert "modes: conversational, code, structured-model, user-media, host-table, apps, app-only" in mode.value.message
    structured = {"outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": {"items": []}}]}
    with pytest.raises(mcp_outputs.UnrequestedOutputError) as omitted:
        host.route(None, structured)
    assert "without requestedOutputs asks for assistant/content only" in omitted.value.message
    with pytest.raises(TypeError):
        Connection(version="2025-06-18")  # type: ignore[call-arg]
    with pytest.raises(mcp_outputs.MalformedError) as limits:
        Config(limits={"max_depth": 5})  # type: ignore[arg-type]
    assert limits.value.path == "/limits/max_depth" and "maxDepth" in limits.value.message
