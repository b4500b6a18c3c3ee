"""Structured payloads stay where they live (issue 11 items 1 and 4): `check`, `route` and
`respond` of a dict validate each structured payload as the caller's own Python objects, never a
converted copy, and hand the very objects back wherever the answer carries them; every error
(code, path, message) and every limit is what the core reports for the same JSON as text."""

from __future__ import annotations

import enum
import json
from typing import Any, Dict, List, Optional, Tuple, Union

import pytest

from fixtures import tool_with

import mcp_outputs
from mcp_outputs import Config, Connection, McpOutputsError, ReceivedTool, ServerTool
from mcp_outputs.types import InputRequiredRoute, OtherResultRoute, Route

APPS = "io.modelcontextprotocol/ui"
SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "total": {"type": "integer", "minimum": 0},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string", "pattern": "^c[0-9]+$"}, "score": {"type": "number"}},
                "required": ["id"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["items"],
}
TOOL: Dict[str, Any] = {
    "name": "t",
    "inputSchema": {"type": "object"},
    "outputVariants": [
        {"audience": "assistant", "format": "content"},
        {"audience": "programmatic", "format": "structured", "schema": SCHEMA},
        {"audience": APPS, "format": "structured", "schema": {"type": "object"}},
    ],
}
REQUESTED = [{"audience": "programmatic", "format": "structured"}]


def stats() -> Tuple[int, int]:
    """(validated in place, validated as converted values) since the last call."""
    return mcp_outputs._mcp_outputs._payload_stats_for_tests()


def complete(route: Union[Route, InputRequiredRoute, OtherResultRoute]) -> Route:
    """The route of a complete result (an ``input_required`` answer fails the test)."""
    assert "resultType" not in route, route
    return route


def host(version: str = "2026-12-01", config: Optional[Config] = None) -> ReceivedTool:
    conn = Connection(version, [APPS], config=config)
    return ReceivedTool.accept(ServerTool.declare(TOOL, config=config).advertise(conn), conn)


def result_of(payload: Any, audience: str = "programmatic") -> Dict[str, Any]:
    return {"outputs": [{"audience": audience, "format": "structured", "structuredContent": payload}]}


class Tagged(dict):  # type: ignore[type-arg]
    """A dict subclass: not plain, so a result holding it is checked as a snapshot."""


class TaggedList(list):  # type: ignore[type-arg]
    """A list subclass, for the same reason."""


def converted(payload: Any) -> Any:
    """The same JSON, in a form the binding converts (the path every payload took before)."""
    if isinstance(payload, dict):
        return Tagged(payload)
    if isinstance(payload, list):
        return TaggedList(payload)
    return payload


def outcome(call: Any) -> Tuple[str, ...]:
    try:
        call()
    except McpOutputsError as e:
        return (e.code, e.path, e.message)
    return ("ok",)


def test_route_validates_in_place_and_hands_back_the_payload() -> None:
    h = host()
    payload = {"items": [{"id": "c1", "score": 2.5}], "total": 1}
    stats()
    route = complete(h.route(REQUESTED, result_of(payload)))
    assert stats() == (1, 0), "one payload, validated where it is"
    output = route["programmatic"][0]
    assert output["format"] == "structured" and output["structuredContent"] is payload
    # The same through check.
    assert h.check(REQUESTED, result_of(payload)) == {}
    assert stats() == (1, 0)


def test_the_view_carries_the_callers_payload() -> None:
    h = host()
    payload = {"rows": [1, 2, 3]}
    requested = [{"audience": APPS, "format": "structured"}]
    route = complete(h.route(requested, {"outputs": [{"audience": APPS, "format": "structured", "structuredContent": payload}]}))
    view = route["view"]
    assert view is not None and view["structuredContent"] is payload, "the View gets the object, not a copy"
    assert view == {"content": [], "structuredContent": {"rows": [1, 2, 3]}}


def test_legacy_structured_content_is_validated_in_place_and_routed_as_itself() -> None:
    conn = Connection("2025-06-18")
    legacy_tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA}
    h = ReceivedTool.accept(legacy_tool, conn)
    payload = {"items": [{"id": "c7"}]}
    result = {"content": [{"type": "text", "text": "x"}], "structuredContent": payload}
    stats()
    route = complete(h.route(None, result, legacy_structured="programmatic"))
    assert stats() == (1, 0)
    output = route["programmatic"][0]
    assert output["format"] == "structured" and output["structuredContent"] is payload
    bad = {"content": [], "structuredContent": {"items": [{"id": "x"}]}}
    assert outcome(lambda: h.route(None, bad)) == outcome(lambda: h.route(None, json.dumps(bad)))
    assert outcome(lambda: h.route(None, bad))[:2] == ("schema-violation", "/structuredContent/items/0/id")


def test_respond_validates_in_place_and_the_result_carries_the_payload() -> None:
    tool = ServerTool.declare(TOOL)
    payload = {"items": [{"id": "c1"}]}
    produced = {"outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": payload}]}
    stats()
    result = tool.respond(Connection("2026-12-01"), REQUESTED, produced)
    assert stats() == (1, 0)
    output = result["outputs"][0]
    assert output["format"] == "structured" and output["structuredContent"] is payload
    assert result == json.loads(tool.respond_text(Connection("2026-12-01"), json.dumps(REQUESTED), json.dumps(produced)))


def test_respond_reads_plain_produced_outputs_where_they_live() -> None:
    # Issue 21: the core reads the caller's dict in place, and the result names the caller's own
    # output objects; one non-plain value anywhere (a tuple) makes the whole answer a snapshot.
    tool = ServerTool.declare(TOOL)
    block: Dict[str, Any] = {"type": "text", "text": "x"}
    text: Dict[str, Any] = {"audience": "assistant", "format": "content", "content": [block]}
    output = {"audience": "programmatic", "format": "structured", "structuredContent": {"items": [{"id": "c1"}]}}
    request = [{"audience": "assistant", "format": "content"}, {"audience": "programmatic", "format": "structured"}]
    result = tool.respond(Connection("2026-12-01"), request, {"outputs": [output, text]})
    assert result["outputs"][0] is text and result["outputs"][1] is output
    assert result == json.loads(tool.respond_text(Connection("2026-12-01"), json.dumps(request), json.dumps({"outputs": [output, text]})))
    tupled = {"audience": "assistant", "format": "content", "content": ({"type": "text", "text": "x"},)}
    snapshot: List[Any] = tool.respond(Connection("2026-12-01"), request, {"outputs": [output, tupled]})["outputs"]
    assert snapshot[0] is not tupled and snapshot[0]["content"] == [{"type": "text", "text": "x"}]
    assert snapshot[1] is not output and snapshot[1] == output
    # Legacy blocks the revision carries as they are stay the caller's; projected ones are new.
    audio = {"type": "audio", "data": "AA==", "mimeType": "audio/wav"}
    blocks: List[Any] = [block, audio]
    legacy: Dict[str, Any] = dict(tool.respond(Connection("2024-11-05"), None, {"outputs": [dict(text, content=blocks)]}))
    assert legacy["content"][0] is blocks[0]
    assert legacy["content"][1] == {"type": "text", "text": "[audio: audio/wav]"}


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26"])
def test_legacy_respond_wraps_and_mirrors_the_callers_payload(version: str) -> None:
    # A non-object source: wrapped as {"result": ...} for 2025 revisions, mirrored as text.
    tool = ServerTool.declare(tool_with({"type": "array"}, audience="assistant"))
    payload = [1.0, "é\n", {"a": None, "b": 1e21}]
    produced = {
        "outputs": [
            {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "x"}]},
            {"audience": "assistant", "format": "structured", "structuredContent": payload},
        ]
    }
    conn = Connection(version)
    stats()
    result = tool.respond(conn, None, produced)
    if version == "2025-06-18":
        assert stats() == (2, 0), "validated and mirrored where it is: never converted"
    expected = json.loads(tool.respond_text(conn, None, json.dumps(produced)))
    assert result == expected
    if "structuredContent" in result:
        assert result["structuredContent"]["result"] is payload
    assert result["content"][-1]["text"] == '{"result":[1,"é\\n",{"a":null,"b":1e+21}]}' or version == "2025-03-26"


MIRRORED: List[Any] = [
    [True, False, None, 0, -1, 2**63, -(2**63), 2**64 - 1],
    [0.1, -0.0, 5e-324, 1e21, 1e-7, 1.5e300, 123456789012345680000.0, 2.0, -2.5],
    ["", "é\u2028\n\t\"\\", "\x00\x1f\x7f", "😀", "a/b"],
    {"z": 1, "a": {"nested": [[], {}, [{}]]}, "": None, "é": "k"},
]


@pytest.mark.parametrize("payload", MIRRORED, ids=range(len(MIRRORED)))
def test_the_mirror_text_written_in_place_is_the_text_paths(payload: Any) -> None:
    # LEG-4: the mirror is JSON.stringify's text; written from the caller's objects, it is the
    # same bytes as the text path writes from parsed JSON, and as a converted payload gives.
    tool = ServerTool.declare(tool_with({"type": ["array", "object"]}, audience="assistant"))
    conn = Connection("2025-06-18")

    def produced(p: Any) -> Dict[str, Any]:
        return {
            "outputs": [
                {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "x"}]},
                {"audience": "assistant", "format": "structured", "structuredContent": p},
            ]
        }

    stats()
    in_place = tool.respond(conn, None, produced(payload))["content"][-1]["text"]
    assert stats() == (2, 0)
    as_text = json.loads(tool.respond_text(conn, None, json.dumps(produced(payload))))["content"][-1]["text"]
    assert in_place == as_text
    assert in_place == tool.respond(conn, None, produced(converted(payload)))["content"][-1]["text"]


INVALID: List[Any] = [
    {"items": [{"id": "c1"}, {"id": "d2"}]},
    {"items": [{"id": "c1", "score": "high"}]},
    {"items": [{"id": "c1", "extra": True}]},
    {"items": [{}], "total": -1},
    {"total": 1},
    {"items": "no", "total": 1.5},
    ["not", "an", "object"],
    {"items": [{"id": 5}]},
]


@pytest.mark.parametrize("payload", INVALID, ids=range(len(INVALID)))
def test_errors_are_the_cores_for_the_same_json_text(payload: Any) -> None:
    h = host()
    result = result_of(payload)
    in_place = outcome(lambda: h.route(REQUESTED, result))
    assert in_place[0] == "schema-violation"
    assert in_place == outcome(lambda: h.route(REQUESTED, json.dumps(result)))
    assert in_place == outcome(lambda: h.route(REQUESTED, result_of(converted(payload))))
    assert in_place == outcome(lambda: h.check(REQUESTED, result))
    tool = ServerTool.declare(TOOL)
    conn = Connection("2026-12-01")
    assert outcome(lambda: tool.respond(conn, REQUESTED, result)) == outcome(
        lambda: tool.respond_text(conn, json.dumps(REQUESTED), json.dumps(result))
    )


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [125, 126, 200, 5000, 200_000])
def test_deep_payloads_are_limit_exceeded_never_a_crash(depth: int) -> None:
    h = ReceivedTool.accept(tool_with({"type": "array"}), Connection("2026-12-01"))
    result = result_of(nested(depth))
    got = outcome(lambda: h.route(REQUESTED, result))
    # result → outputs → output → payload is level 4: 125 levels of lists fit the default 128.
    if depth <= 125:
        assert got == ("ok",)
    else:
        assert got[0] == "limit-exceeded", got
    # The text path reports depth at "" (its scan runs before parsing): compared with the
    # conversion every payload took before instead.
    assert got == outcome(lambda: h.route(REQUESTED, result_of(converted(nested(depth)))))


def test_recursive_payload_is_malformed() -> None:
    payload: Dict[str, Any] = {"items": []}
    payload["items"].append(payload)
    got = outcome(lambda: host().route(REQUESTED, result_of(payload)))
    assert got[0] == "malformed" and got[1].startswith("/outputs/0/structuredContent/items/0"), got


def test_length_and_size_limits_on_payloads_match_the_text_path() -> None:
    config = Config(limits={"maxArrayLen": 10, "maxBytes": 4000})
    h = host(config=config)
    for payload in (
        {"items": [{"id": f"c{i}"} for i in range(11)]},
        {"items": [{"id": "c" + "1" * 5000}]},
        {"items": [{"id": f"c{i}"} for i in range(10)]},
    ):
        in_place = outcome(lambda: h.route(REQUESTED, result_of(payload)))
        assert in_place == outcome(lambda: h.route(REQUESTED, result_of(converted(payload)))), payload
    assert outcome(lambda: h.route(REQUESTED, result_of({"items": [{"id": "c1"}] * 11})))[0] == "limit-exceeded"


def test_payloads_the_core_cannot_take_as_they_are_are_converted_as_before() -> None:
    h = host()
    stats()
    # A subclass, a tuple and a non-JSON value are converted (and judged) as before.
    assert outcome(lambda: h.route(REQUESTED, result_of(Tagged(items=[])))) == ("ok",)
    assert outcome(lambda: h.route(REQUESTED, result_of({"items": ({"id": "c1"},)}))) == ("ok",)
    assert outcome(lambda: h.route(REQUESTED, result_of({"items": [{"id": "c1", "score": float("nan")}]})))[:2] == (
        "malformed",
        "/outputs/0/structuredContent/items/0/score",
    )
    assert stats() == (0, 0), "nothing was kept"


def test_a_schema_with_backtracking_patterns_validates_the_payload_as_a_value() -> None:
    tool = dict(
        TOOL,
        outputVariants=[
            {"audience": "assistant", "format": "content"},
            {"audience": "programmatic", "format": "structured", "schema": {"type": "object", "properties": {"id": {"pattern": "^(?=c)c[0-9]+$"}}}},
        ],
    )
    conn = Connection("2026-12-01")
    h = ReceivedTool.accept(tool, conn)
    stats()
    assert outcome(lambda: h.route(REQUESTED, result_of({"id": "c1"}))) == ("ok",)
    assert outcome(lambda: h.route(REQUESTED, result_of({"id": "d1"})))[:2] == ("schema-violation", "/outputs/0/structuredContent/id")
    assert stats() == (0, 2), "the regex budget is counted over a value: both were converted"


def test_a_large_payload_is_validated_in_place() -> None:
    # Read where it lives, whatever its size (issue 21): no conversion, the GIL held from the
    # read to the verdict (docs/boundary.md). JSON text is the way to release the GIL.
    h = host()
    small = {"items": [{"id": f"c{i}"} for i in range(1000)]}
    large = {"items": [{"id": f"c{i}"} for i in range(100_000)]}
    stats()
    assert outcome(lambda: h.check(REQUESTED, result_of(small))) == ("ok",)
    assert stats() == (1, 0)
    assert outcome(lambda: h.check(REQUESTED, result_of(large))) == ("ok",)
    assert stats() == (1, 0), "validated in place"
    large["items"][-1]["id"] = "x"
    assert outcome(lambda: h.check(REQUESTED, result_of(large)))[:2] == ("schema-violation", "/outputs/0/structuredContent/items/99999/id")
    assert stats() == (1, 0), "an invalid payload costs one validation, in place"


class Color(str, enum.Enum):
    RED = "red"


class Shade(str, enum.Enum):
    DARK = "dark"

    @property
    def value(self) -> str:
        # An overridden `value`: reading it runs Python code, so such a payload is converted.
        return "overridden"


EDGE: List[Any] = [
    {"items": [{"id": "c1"}], Color.RED: 1},
    {"items": [{"id": "c1"}], Shade.DARK: 1},
    {"items": [{"id": Color.RED}]},
    {"items": [{"id": "c\ud800"}]},
    {"items": [{"id": "c1"}], "\ud800": 1},
    {"items": [{"id": "c1", "score": 2**64 - 1}]},
    {"items": [{"id": "c1", "score": 2**64}]},
    {"items": [{"id": "c1", "score": -(2**63)}]},
    {"items": [{"id": "c1", "score": float("inf")}]},
    {"items": [{"id": "c1"}], 1: 2},
    {"items": [{"id": "c1", "score": True}]},
    {"items": [], "total": 1.0},
]


@pytest.mark.parametrize("payload", EDGE, ids=range(len(EDGE)))
def test_keys_and_values_at_the_edges_of_json_are_judged_as_converted(payload: Any) -> None:
    h = host()
    assert outcome(lambda: h.route(REQUESTED, result_of(payload))) == outcome(
        lambda: h.route(REQUESTED, result_of(converted(payload)))
    )


def test_only_plain_json_is_kept() -> None:
    h = host()
    stats()
    for payload in EDGE:
        outcome(lambda: h.route(REQUESTED, result_of(payload)))
    # Read and validated in place: the u64 and i64 extremes, True for a number, 1.0 for an
    # integer; every other edge payload was converted.
    assert stats() == (4, 0)


def test_the_legacy_apps_view_forwards_the_callers_payload() -> None:
    conn = Connection("2025-06-18", [APPS])
    legacy_tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA, "_meta": {"ui": {"resourceUri": "ui://t/view.html"}}}
    h = ReceivedTool.accept(legacy_tool, conn)
    payload = {"items": [{"id": "c3"}]}
    result = {"content": [{"type": "text", "text": "x"}], "structuredContent": payload}
    stats()
    view = complete(h.route(None, result))["view"]
    assert stats() == (1, 0)
    assert view is not None and view["structuredContent"] is payload, "the whole result is forwarded, the payload as itself"
    assert view == result


def test_faults_of_the_request_and_the_result_rank_as_on_the_text_path() -> None:
    # Read in place, a result's limit fault still comes before the request's faults, and the
    # request's before the result's other faults: the order of `check` on JSON text.
    h = host(config=Config(limits={"maxArrayLen": 10}))
    bad_request = [{"audience": "programmatic", "format": "nonsense"}]
    over = result_of({"items": [{"id": f"c{i}"} for i in range(11)]})
    not_object: Any = ["not", "an", "object"]
    for requested in (REQUESTED, bad_request, None):
        for result in (over, not_object, result_of({"items": [{"id": "x"}]}), result_of({"items": []})):
            for call in (h.check, h.route):
                in_place = outcome(lambda: call(requested, result))
                as_text = outcome(lambda: call(json.dumps(requested) if requested is not None else None, json.dumps(result)))
                assert in_place[:2] == as_text[:2], (requested, result)
    assert outcome(lambda: h.check(bad_request, over))[0] == "limit-exceeded"
