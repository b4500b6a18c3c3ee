"""The requested outputs of `check` and `route` (issue 21, "one reader"): plain values are read
where they live (the core's limits walk, then its selection over the same objects, no `Value`
made of them); JSON text and every other value are read as before. Whatever the form, a request
answers as its JSON text does, with the same errors (codes, paths, messages) in the same order
against the result's own faults, and a fault of reading it outranks everything else of the call."""

from __future__ import annotations

import json
import math
from typing import Any, Dict, Iterator, List, Tuple, cast

import pytest

import mcp_outputs
from mcp_outputs import Config, Connection, McpOutputsError, ReceivedTool
from fixtures import APPS
from fixtures import TOOL_WITH_APPS as TOOL

P = {"audience": "programmatic", "format": "structured"}
A = {"audience": "assistant", "format": "content"}

# Every kind of selection fault, and selections that resolve.
REQUESTS: List[Any] = [
    [P],
    [P, A],
    [A, P],
    [],
    [P, P],
    {"a": 1},
    3,
    [P, 3],
    [{"format": "content"}],
    [{"audience": "user"}],
    [{"audience": 1, "format": "content"}],
    [{"audience": "user", "format": None}],
    [{"audience": "nobody", "format": "content"}],
    [{"audience": "user", "format": "bogus"}],
    [{"audience": "programmatic", "format": "content"}],
    [{"audience": "user", "format": "content"}],
    [{"audience": APPS, "format": "structured"}],
    [{"audience": APPS, "format": "content"}],
    [{"audience": "com.example/other", "format": "content"}],
    [dict(P, extra=[1, 2.5, {"k": None, "b": True}])],
    [P] * 12,
    [P, [[[[[[[[[[]]]]]]]]]]],
]
OUTPUT = {"audience": "programmatic", "format": "structured", "structuredContent": {"a": 1}}
TEXT = {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "t"}]}
RESULTS: List[Any] = [
    {"outputs": [OUTPUT]},
    {"outputs": [TEXT, OUTPUT]},
    {"outputs": [{"x": list(range(50))}]},  # over the small limits
    {"outputs": 3},
    [1],
]
CONFIGS = [Config(), Config(limits={"maxArrayLen": 10, "maxVariants": 4, "maxDepth": 8, "maxBytes": 3000})]


class ListSub(list):  # type: ignore[type-arg]
    """Not a plain value: read from its storage, as a snapshot."""


def outcome(call: Any) -> Tuple[Any, ...]:
    try:
        return ("ok", json.dumps(call(), sort_keys=True))
    except McpOutputsError as e:
        return ("error", type(e).__name__, e.code, e.path, e.message, e.jsonrpc_code)


def forms(request: Any, text: bool = True) -> Iterator[Tuple[str, Any]]:
    """The forms of one request that must answer alike: the plain value (read in place), JSON
    text and bytes (parsed by the core; not on the server side, whose object API reads a `str`
    as a JSON string), a tuple and a list subclass (read as snapshots)."""
    if text:
        yield "text", json.dumps(request)
        yield "bytes", json.dumps(request).encode()
    yield "plain", request
    if isinstance(request, list):
        yield "tuple", tuple(request)
        yield "subclass", ListSub(request)


@pytest.mark.parametrize("version", ["2026-12-01", "2025-11-25"])
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "small"])
def test_every_form_of_a_request_answers_as_its_text(version: str, config: Config) -> None:
    apps = config is CONFIGS[0]
    conn = Connection(version, [APPS] if apps else [], config=config)
    if version == "2026-12-01":
        tool = TOOL if apps else dict(TOOL, outputVariants=TOOL["outputVariants"][:2])
    else:
        tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
    host = ReceivedTool.accept(tool, conn)
    for request in REQUESTS:
        for result in RESULTS:
            for op in (host.check, host.route):
                for rule in (None, "user"):
                    answers = {
                        form: outcome(lambda: op(value, result, legacy_structured=rule))
                        for form, value in forms(request)
                    }
                    plain = answers["plain"]
                    for form, answer in answers.items():
                        if form in ("text", "bytes") and answer[:3] == ("error", "LimitExceededError", "limit-exceeded"):
                            # The text parser stops at a limit before any path is known.
                            answer, plain_answer = answer[:3], plain[:3]
                        else:
                            plain_answer = plain
                        assert plain_answer == answer, (version, request, result, op.__name__, rule, form)


def test_a_request_is_selected_as_given_whatever_python_code_the_call_runs_later() -> None:
    # A result that is not plain is read as a snapshot, and a model's dump is Python code: the
    # request read in place is selected before it runs, as a snapshot of it was.
    host = ReceivedTool.accept(TOOL, Connection(negotiated=[APPS]))
    requested: List[Any] = [dict(P)]

    class Model:
        __pydantic_serializer__ = None

        def model_dump(self, **kwargs: Any) -> Dict[str, Any]:
            requested[:] = [A]
            return {"a": 1}

    result = {"outputs": [dict(OUTPUT, structuredContent=Model())]}
    route: Any = host.route(requested, result)
    assert route["programmatic"][0]["structuredContent"] == {"a": 1}
    requested[:] = [dict(P)]
    host.check(requested, {"outputs": [dict(OUTPUT, structuredContent=Model())]})


def test_a_request_that_cannot_be_read_outranks_everything_else() -> None:
    # Its path is in the request itself, as before (the snapshot reader's).
    host = ReceivedTool.accept(TOOL, Connection(negotiated=[APPS], config=CONFIGS[1]))
    over = RESULTS[2]
    with pytest.raises(mcp_outputs.MalformedError, match="not a JSON number") as bad:
        host.route([{"audience": "user", "format": math.nan}], over, legacy_structured=cast(Any, 3))
    assert bad.value.path == "/0/format"
    with pytest.raises(mcp_outputs.LimitExceededError, match="array of 12 items") as big:
        host.check([P] * 12, over)
    assert big.value.path == ""
    with pytest.raises(mcp_outputs.MalformedError, match="keys must be strings"):
        host.check([{1: "x", **P}], over)
    selfish: List[Any] = [P]
    selfish.append(selfish)
    with pytest.raises(mcp_outputs.MalformedError, match="recursive"):
        host.check(selfish, over)
    # What the core finds in a request it read ranks after the result's limits.
    with pytest.raises(mcp_outputs.LimitExceededError):
        host.check([P, P], over)
    with pytest.raises(mcp_outputs.DuplicateSelectorError):
        host.check([P, P], {"outputs": 3})


# The server side (`ServerTool.select`, `respond`): plain values are read where they live too.
PRODUCED: List[Any] = [
    {"outputs": [OUTPUT, TEXT]},
    {"outputs": [OUTPUT]},
    {"outputs": [{"x": list(range(50))}]},  # over the small limits
    {"outputs": [dict(OUTPUT, structuredContent=ListSub([1]))]},  # not plain: a snapshot
    {"outputs": [dict(OUTPUT, structuredContent=math.nan)]},  # cannot be read: the tool's fault
]


@pytest.mark.parametrize("version", ["2026-12-01", "2025-11-25"])
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "small"])
def test_every_form_of_a_request_selects_and_responds_alike_on_the_server(version: str, config: Config) -> None:
    apps = config is CONFIGS[0]
    conn = Connection(version, [APPS] if apps else [], config=config)
    server = mcp_outputs.ServerTool.declare(TOOL if apps else dict(TOOL, outputVariants=TOOL["outputVariants"][:2]))
    seen = set()
    for request in REQUESTS + [None]:
        for form, value in forms(request, text=False):
            selected = outcome(lambda: server.select(conn, value))
            assert selected == outcome(lambda: server.select(conn, request)), (version, request, form)
            for produced in PRODUCED:
                answer = outcome(lambda: server.respond(conn, value, produced))
                assert answer == outcome(lambda: server.respond(conn, request, produced)), (request, produced, form)
                if answer[0] == "error":
                    seen.add((answer[2], answer[5]))
                # A request's fault outranks the produced outputs' (-32602 before -32603).
                if selected[0] == "error":
                    assert answer == selected, (request, produced, form)
    # The cases reach both sides' faults, with their codes.
    assert ("malformed", -32602) in seen and ("malformed", -32603) in seen, seen
    if not apps:
        assert ("limit-exceeded", -32602) in seen and ("limit-exceeded", -32603) in seen, seen


def test_a_plain_request_selects_and_responds_as_its_json_on_the_server() -> None:
    # The selection in request order; the produced payload handed back is the caller's own.
    conn = Connection(negotiated=[APPS])
    server = mcp_outputs.ServerTool.declare(TOOL)
    assert server.select(conn, [P, A]) == json.loads(json.dumps([P, A]))
    result: Any = server.respond(conn, [A, P], {"outputs": [OUTPUT, TEXT]})
    assert [(o["audience"], o["format"]) for o in result["outputs"]] == [("assistant", "content"), ("programmatic", "structured")]
    assert result["outputs"][1]["structuredContent"] is OUTPUT["structuredContent"]
