"""The payload-level guarantee (issue 21, "Behaviour does not change"; docs/boundary.md): a route
or a `respond` never hands back something that was not checked.

Plain values, as `json.loads` makes them (exact dict, list, str, int within 64 bits, float, bool,
None), are handed back as they are: the caller's own objects, read with the GIL held from the
check to the hand-back. Anything else (a subclass of dict, list, str, int or float, a tuple, a
model, a `str` subclass key, an integer beyond 64 bits) is read from its storage and handed back
as the plain snapshot that was checked. Each test below failed on the binding before this rule
(the build of aff5576)."""

from __future__ import annotations

import collections
import enum
import json
import sys
import threading
from typing import Any, Dict, List, Union

import pytest

from fixtures import REQ, tool_with

import mcp_outputs
from mcp_outputs import Connection, ReceivedTool, ServerTool
from mcp_outputs.types import InputRequiredRoute, OtherResultRoute, Route

SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^c[0-9]+$"}}, "required": ["id"]},
        },
    },
    "required": ["items"],
}


def host() -> ReceivedTool:
    return ReceivedTool.accept(tool_with(SCHEMA), Connection())


def complete(route: Union[Route, InputRequiredRoute, OtherResultRoute]) -> Route:
    assert "resultType" not in route, route
    return route


def output(value: Any) -> Dict[str, Any]:
    return {"audience": "programmatic", "format": "structured", "structuredContent": value}


def result_with(value: Any) -> Dict[str, Any]:
    return {"resultType": "complete", "outputs": [output(value)]}


TEXT = {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "x"}]}
BOTH = [{"audience": "assistant", "format": "content"}, *REQ]


def with_text(value: Any) -> Dict[str, Any]:
    """A result with a plain text output first, then the structured one."""
    return {"resultType": "complete", "outputs": [json.loads(json.dumps(TEXT)), output(value)]}


def payload_of(out: Any) -> Any:
    """The structured payload of an output (any output type: the tests read it untyped)."""
    return out["structuredContent"]


def plain(value: Any) -> Any:
    """`value` read through the builtins' own storage (never a subclass's overrides)."""
    if isinstance(value, dict):
        return {str.__str__(k): plain(v) for k, v in dict.items(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in (list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value))]
    if isinstance(value, str):
        return str.__str__(value)
    return value


def assert_exact(value: Any, path: str = "") -> None:
    """Every node of `value` is exactly a JSON type, as `json.loads` makes them."""
    assert type(value) in (dict, list, str, int, float, bool, type(None)), (path, type(value))
    if type(value) is dict:
        for k, v in value.items():
            assert type(k) is str, (path, type(k))
            assert_exact(v, f"{path}/{k}")
    elif type(value) is list:
        for i, v in enumerate(value):
            assert_exact(v, f"{path}/{i}")


# ---- (1) another thread's change while the payload is read and validated ---------------------


def test_a_payload_changed_by_another_thread_during_route_is_never_handed_back() -> None:
    # Over 1 MiB: before, such a payload was converted and validated with the GIL released, and
    # the route handed back the caller's output, holding whatever another thread had put in it.
    payload: Dict[str, Any] = {"items": [{"id": f"c{i}", "pad": "x" * 100} for i in range(20_000)]}
    checked = json.dumps(payload)
    result = result_with(payload)
    h = host()
    gate = threading.Lock()
    gate.acquire()
    mutated = threading.Event()

    def mutate() -> None:
        with gate:  # released just before the route: runs as soon as this thread gets the GIL
            payload["items"] = 42
            mutated.set()

    thread = threading.Thread(target=mutate)
    interval = sys.getswitchinterval()
    # No time-sliced switch: the mutator gets the GIL only when this thread lets it go (a call
    # that releases it, or the join below). Deterministic either way: the route below either
    # holds the GIL throughout (then nothing changes until it returns) or releases it while it
    # validates (then the mutator runs meanwhile).
    sys.setswitchinterval(1000.0)
    try:
        thread.start()
        gate.release()
        route = complete(h.route(REQ, result))
        mutated_during_route = mutated.is_set()
        handed_back = json.dumps(payload_of(route["programmatic"][0]))
    finally:
        sys.setswitchinterval(interval)
        thread.join()
    assert mutated.is_set() and payload["items"] == 42, "the mutator ran"
    assert not mutated_during_route, "the route let another thread run between the check and the hand-back"
    assert handed_back == checked


# ---- (2) subclasses whose overrides read differently from their storage ----------------------


class LyingDict(dict):  # type: ignore[type-arg]
    """Validated from its storage; read through Python, it says `{"items": 42}`."""

    def __getitem__(self, key: Any) -> Any:
        return 42

    def get(self, key: Any, default: Any = None) -> Any:
        return 42

    def items(self) -> Any:
        return [("items", 42)]

    def keys(self) -> Any:
        return ["items"]

    def values(self) -> Any:
        return [42]

    def __iter__(self) -> Any:
        return iter(["items"])


class LyingList(list):  # type: ignore[type-arg]
    def __getitem__(self, index: Any) -> Any:
        return 42

    def __iter__(self) -> Any:
        return iter([42])


class LyingStr(str):
    def __str__(self) -> str:
        return "not-an-id"

    def __eq__(self, other: object) -> bool:
        return other == "not-an-id"

    __hash__ = str.__hash__


class LyingKey(str):
    """A key that reads as another name."""

    def __str__(self) -> str:
        return "other"


def lying_payloads() -> List[Any]:
    return [
        LyingDict(items=[{"id": "c1"}]),
        {"items": LyingList([{"id": "c1"}])},
        {"items": [{"id": LyingStr("c1")}]},
        {LyingKey("items"): [{"id": "c1"}]},
    ]


@pytest.mark.parametrize("index", range(4), ids=["dict", "list", "str", "key"])
def test_subclasses_with_lying_overrides_are_handed_back_as_the_snapshot_checked(index: int) -> None:
    payload = lying_payloads()[index]
    expected = {"items": [{"id": "c1"}]}
    assert plain(payload) == expected
    h = host()
    for requested, result in ((REQ, result_with(payload)), (BOTH, with_text(payload))):
        route = complete(h.route(requested, result))
        handed = route["programmatic"][0]
        assert_exact(handed)
        assert payload_of(handed) == expected
        assert json.loads(json.dumps(route["programmatic"]))[0]["structuredContent"] == expected
        if requested is BOTH:
            # One value that is not plain makes the whole answer a snapshot: a plain sibling
            # output is handed back equal to the caller's, not as the caller's own object.
            assert route["model"][0] == result["outputs"][0] and route["model"][0] is not result["outputs"][0]
    # respond builds its result from the snapshot too.
    tool = ServerTool.declare(tool_with(SCHEMA))
    answer = tool.respond(Connection(), REQ, {"outputs": [output(payload)]})
    assert_exact(answer)
    assert payload_of(answer["outputs"][0]) == expected


def test_ordered_and_default_dicts_are_still_accepted_as_snapshots() -> None:
    h = host()
    for payload in (
        collections.OrderedDict(items=[collections.OrderedDict(id="c1")]),
        collections.defaultdict(list, items=[{"id": "c1"}]),
    ):
        result = result_with(payload)
        route = complete(h.route(REQ, result))
        handed = route["programmatic"][0]
        assert payload_of(handed) == {"items": [{"id": "c1"}]}
        assert_exact(handed)
        assert h.check(REQ, result) == {}
    bad = collections.OrderedDict(items=[{"id": "x1"}])
    with pytest.raises(mcp_outputs.SchemaViolationError) as info:
        h.route(REQ, result_with(bad))
    assert info.value.path == "/outputs/0/structuredContent/items/0/id"


class Mutating(str, enum.Enum):
    KEY = "k"

    @property
    def value(self) -> str:
        # Runs while the binding reads the payload that holds this key (as a key, its `value`
        # is its name), after the first output was read.
        TARGET[0]["content"] = [{"type": "text", "text": 42}]
        return "k"


TARGET: List[Dict[str, Any]] = []


def test_python_code_run_during_the_read_cannot_change_what_is_handed_back() -> None:
    result = with_text({"items": [{"id": "c2"}], Mutating.KEY: 1})
    TARGET[:] = [result["outputs"][0]]
    try:
        route = complete(host().route(BOTH, result))
    except mcp_outputs.McpOutputsError as e:
        # Read again after the change, and refused.
        assert e.path.startswith("/outputs/0/content/0"), e
        return
    finally:
        TARGET.clear()
    assert route["model"] == [TEXT], "the text output changed after it was read"


# ---- (3) integers beyond 64 bits: one answer for text and objects ----------------------------


@pytest.mark.parametrize("n", [2**64, 2**64 + 1, -(2**63) - 1, 10**100])
def test_integers_beyond_64_bits_get_one_answer_as_bytes_and_as_objects(n: int) -> None:
    h = ReceivedTool.accept(tool_with({"type": "object", "properties": {"n": {"type": "number"}}}), Connection())
    result = result_with({"n": n})
    text = json.dumps(result)
    # Read as the nearest double, as the core's text parser (and JSON.parse) reads the digits.
    as_bytes = complete(h.route(REQ, text.encode()))
    as_objects = complete(h.route(REQ, result))
    assert as_objects == as_bytes
    handed = payload_of(as_objects["programmatic"][0])["n"]
    assert type(handed) is float and handed == float(n)
    assert h.check(REQ, result) == h.check(REQ, text) == {}
    tool = ServerTool.declare(tool_with({"type": "object"}))
    conn = Connection()
    produced = {"outputs": [output({"n": n})]}
    assert tool.respond(conn, REQ, produced) == json.loads(tool.respond_text(conn, json.dumps(REQ), json.dumps(produced)))


def test_an_integer_too_large_for_a_double_is_malformed_both_ways() -> None:
    h = host()
    result = result_with({"items": [], "n": 10**400})
    for arg in (result, json.dumps(result).encode()):
        with pytest.raises(mcp_outputs.MalformedError):
            h.route(REQ, arg)
