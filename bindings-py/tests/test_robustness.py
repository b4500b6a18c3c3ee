"""Hostile inputs give typed errors (never a crash, a PanicException, a RecursionError or a
bare RuntimeError), limits hold while reading, and large JSON text is checked with the GIL
released (the caller's own objects are read with it held)."""

from __future__ import annotations

import collections
import decimal
import enum
import json
import math
import sys
import threading
import time
from typing import Any, Callable, Dict, List

import pytest

from fixtures import REQ, TOOL

import mcp_outputs
from mcp_outputs import Config, Connection, McpOutputsError, ReceivedTool, ServerTool

CONN = Connection()
HOST = ReceivedTool.accept(TOOL, CONN)
SERVER = ServerTool.declare(TOOL)


def result_with(value: Any) -> Dict[str, Any]:
    return {"resultType": "complete", "outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": value}]}


def nested(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def check(value: Any) -> None:
    HOST.check(REQ, result_with(value))


def test_recursive_structures_are_malformed() -> None:
    d: Dict[str, Any] = {}
    d["self"] = d
    lst: List[Any] = []
    lst.append(lst)
    for value in (d, lst, {"x": [d]}):
        with pytest.raises(mcp_outputs.MalformedError, match="recursive"):
            check(value)
    with pytest.raises(mcp_outputs.MalformedError, match="recursive"):
        mcp_outputs.run("declare", {"tool": {"name": "t", "inputSchema": d}})


def test_a_limit_met_inside_a_structure_that_contains_itself_is_malformed() -> None:
    # The core's limits walk stops a recursive structure wherever it first meets a limit (here
    # the byte budget, before the depth cap): a path through one container twice is malformed.
    d: Dict[str, Any] = {"pad": "x" * 1000}
    d["self"] = d
    host = ReceivedTool.accept(TOOL, Connection(config=Config(limits={"maxBytes": 20_000})))
    with pytest.raises(mcp_outputs.MalformedError, match="recursive") as info:
        host.check(REQ, result_with(d))
    assert info.value.path.startswith("/outputs/0/structuredContent/self/self")


def test_a_value_not_plain_is_judged_in_the_order_of_the_limits_walk() -> None:
    # One limits walk (issue 21) reads every value, plain or not: it judges a container's length
    # before reading its items, and stops at the first value over a limit or that JSON cannot
    # hold, in its order (the binding's converter copied cap + 1 items and met the NaN first).
    host = ReceivedTool.accept(TOOL, Connection(config=Config(limits={"maxArrayLen": 2})))
    with pytest.raises(mcp_outputs.LimitExceededError, match="array of 3 items") as over:
        host.check(REQ, result_with({"a": (1, 2, math.nan)}))
    assert over.value.path == "/outputs/0/structuredContent/a"
    # The walk reads the whole container, so its message states the true length as it is.
    with pytest.raises(mcp_outputs.LimitExceededError, match="array of 25 items exceeds the limit of 2"):
        host.check(REQ, result_with({"a": tuple(range(25))}))
    with pytest.raises(mcp_outputs.MalformedError, match="not a JSON number") as bad:
        host.check(REQ, result_with({"a": (math.nan, 1), "b": [1, 2, 3]}))
    assert bad.value.path == "/outputs/0/structuredContent/a/0"


def test_a_model_is_dumped_once_per_read() -> None:
    # The limits walk and the snapshot read one dump, kept for the read.
    calls: List[Dict[str, Any]] = []

    class Model:
        __pydantic_serializer__ = None

        def model_dump(self, **kwargs: Any) -> Dict[str, Any]:
            calls.append(kwargs)
            return {"n": 1}

    route: Any = HOST.route(REQ, result_with({"m": Model()}))
    assert route["programmatic"][0]["structuredContent"] == {"m": {"n": 1}}
    assert calls == [{"mode": "json", "by_alias": True, "exclude_none": True}]


def test_a_model_that_makes_the_value_contain_itself_while_it_is_read_is_malformed() -> None:
    # The limits walk read the list empty; the model's dump, run after it, makes the list hold
    # itself: the snapshot never recurses past the deepest nesting any setting allows.
    outer: List[Any] = []

    class Model:
        __pydantic_serializer__ = None

        def model_dump(self, **kwargs: Any) -> Dict[str, Any]:
            outer.append(outer)
            return {}

    with pytest.raises(mcp_outputs.MalformedError, match="changed while it was read"):
        check({"a": outer, "m": Model()})


def test_what_a_server_argument_holds_that_json_cannot_is_that_sides_fault() -> None:
    # As for what the core finds in the same argument (ServerArgument): the server's own (-32603)
    # for a declaration, the client's (-32602) for a request's requestedOutputs.
    with pytest.raises(mcp_outputs.MalformedError) as info:
        ServerTool.declare(dict(TOOL, extra=math.nan))
    assert info.value.jsonrpc_code == -32603
    for call in (
        lambda: SERVER.select(CONN, [{"audience": "programmatic", "format": math.nan}]),
        lambda: SERVER.respond(CONN, [{"audience": "programmatic", "format": math.nan}], {"outputs": []}),
    ):
        with pytest.raises(mcp_outputs.MalformedError) as info:
            call()
        assert info.value.jsonrpc_code == -32602


def test_non_string_keys_are_malformed_with_their_path() -> None:
    for key in (1, 1.5, None, ("a",), True, b"k"):
        with pytest.raises(mcp_outputs.MalformedError, match="keys must be strings") as info:
            check({"ok": {key: 1}})
        assert info.value.path == "/outputs/0/structuredContent/ok"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_infinities_are_malformed(bad: float) -> None:
    with pytest.raises(mcp_outputs.MalformedError, match="not a JSON number") as info:
        check({"x": [1, bad]})
    assert info.value.path == "/outputs/0/structuredContent/x/1"


def test_integers_beyond_64_bits_are_read_as_the_text_parser_reads_them() -> None:
    # One answer for objects and text (issue 21): the nearest double, as the core's parser reads
    # the same digits; too large for a double is malformed both ways (test_guarantee.py).
    check({"a": 2**64 - 1, "b": -(2**63), "c": 0})
    for huge in (2**64, -(2**63) - 1, 10**100):
        check({"n": huge})
        route = HOST.route(REQ, result_with({"n": huge}))
        assert route == HOST.route(REQ, json.dumps(result_with({"n": huge})).encode())
    with pytest.raises(mcp_outputs.MalformedError, match="too large for a JSON number"):
        check({"n": 10**400})


def test_values_json_cannot_hold_are_malformed() -> None:
    for bad in (object(), {1, 2}, b"bytes", bytearray(b"x"), decimal.Decimal("1.5"), 1j, print, range(3)):
        with pytest.raises(mcp_outputs.MalformedError, match="not a JSON value"):
            check({"v": bad})
    with pytest.raises(mcp_outputs.MalformedError, match="surrogate"):
        check({"v": "\ud800"})
    with pytest.raises(mcp_outputs.MalformedError, match="surrogate"):
        check({"\udfff": 1})


def test_json_compatible_subclasses_and_tuples_are_accepted() -> None:
    class Color(enum.IntEnum):
        RED = 1

    class Name(str):
        pass

    value = collections.OrderedDict(a=(1, 2.5, None, True), b=Color.RED, c=Name("x"))
    check(value)
    route = HOST.route(REQ, result_with(value))
    assert "resultType" not in route
    output = route["programmatic"][0]
    # Handed back as the plain snapshot checked, not as the objects (test_guarantee.py).
    assert output["format"] == "structured" and output["structuredContent"] == {"a": [1, 2.5, None, True], "b": 1, "c": "x"}
    assert type(output["structuredContent"]) is dict and type(output["structuredContent"]["c"]) is str


def test_deep_nesting_is_limit_exceeded_at_any_depth() -> None:
    # The result is level 1, outputs 2, the output 3, structuredContent 4: 125 levels fit in 128.
    check(nested(125))
    with pytest.raises(mcp_outputs.LimitExceededError):
        check(nested(126))
    for depth in (1_000, 100_000):
        deep: Any = []
        for _ in range(depth):
            deep = [deep]
        with pytest.raises(mcp_outputs.LimitExceededError):
            check(deep)
        with pytest.raises(mcp_outputs.LimitExceededError):
            mcp_outputs.run("check", {"tool": TOOL, "result": result_with(deep)})


def test_over_deep_declaration_keeps_the_servers_jsonrpc_code() -> None:
    tool = dict(TOOL, inputSchema=nested(500))
    with pytest.raises(mcp_outputs.LimitExceededError) as info:
        ServerTool.declare(tool)
    assert info.value.jsonrpc_code == -32603


def test_deep_text_is_limit_exceeded() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(mcp_outputs.LimitExceededError):
        HOST.check(REQ, deep)
    with pytest.raises(mcp_outputs.LimitExceededError):
        HOST.route(REQ, deep.encode())


def test_bad_text_is_malformed() -> None:
    for bad in ("{", "", "nul", b"\xff\xfe", b'{"a": 1} x'):
        with pytest.raises(mcp_outputs.MalformedError):
            HOST.check(REQ, bad)
    with pytest.raises(mcp_outputs.MalformedError):
        SERVER.respond_text(CONN, None, b"\xff")
    with pytest.raises(TypeError):
        SERVER.respond_text(CONN, None, {"outputs": []})  # type: ignore[arg-type]


def test_size_limits_hold_while_converting() -> None:
    small = Connection(config=Config(limits={"maxArrayLen": 10, "maxObjectLen": 10, "maxBytes": 2000}))
    host = ReceivedTool.accept(TOOL, small)
    host.check(REQ, result_with({"xs": list(range(10))}))
    with pytest.raises(mcp_outputs.LimitExceededError, match="array"):
        host.check(REQ, result_with({"xs": list(range(11))}))
    with pytest.raises(mcp_outputs.LimitExceededError):
        host.check(REQ, result_with({"xs": [0] * 10_000_000}))
    with pytest.raises(mcp_outputs.LimitExceededError, match="object"):
        host.check(REQ, result_with({str(i): i for i in range(11)}))
    with pytest.raises(mcp_outputs.LimitExceededError, match="bytes"):
        host.check(REQ, result_with({"s": "x" * 5000}))
    with pytest.raises(mcp_outputs.LimitExceededError):
        host.check(REQ, '{"s": "' + "x" * 5000 + '"}')


def test_default_size_cap_on_a_huge_value() -> None:
    huge = {"s": "x" * (17 * 1024 * 1024)}
    with pytest.raises(mcp_outputs.LimitExceededError, match="bytes"):
        check(huge)


HOSTILE: List[Any] = [None, 1, "x", b"{", [], {}, [None], {"outputs": None}, {"outputs": [1]}, {"a": math.nan}, {1: 2}]


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_every_entry_point_raises_only_typed_errors(value: Any) -> None:
    calls: List[Callable[[], Any]] = [
        lambda: ServerTool.declare(value),
        lambda: ServerTool.declare(TOOL, value),
        lambda: SERVER.select(CONN, value),
        lambda: SERVER.respond(CONN, value, {"outputs": []}),
        lambda: SERVER.respond(CONN, None, value),
        lambda: ReceivedTool.accept(value, CONN),
        lambda: HOST.plan(value),
        lambda: HOST.plan(consumers=value),
        lambda: HOST.check(value, result_with({})),
        lambda: HOST.check(REQ, value),
        lambda: HOST.route(REQ, value),
        lambda: mcp_outputs.run("route", value),
        lambda: mcp_outputs.run("scenario", {"tool": TOOL, "mode": "code", "produced": value}),
        lambda: mcp_outputs.migrate_tool(value),
        lambda: mcp_outputs.check_requested_outputs(value),
        lambda: Connection(value),
        lambda: Connection(None, value),
        lambda: Config(limits=value),
        lambda: Config(extensions=value),
    ]
    for call in calls:
        try:
            call()
        except McpOutputsError:
            pass


def test_concurrent_use_of_one_compiled_tool() -> None:
    errors: List[BaseException] = []

    def work() -> None:
        try:
            for i in range(300):
                SERVER.respond(CONN, REQ, {"outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": {"i": i}}]})
                HOST.route(REQ, result_with({"i": i}))
        except BaseException as e:  # noqa: BLE001 - collected and re-raised below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def _progress_during(call: Callable[[], Any]) -> int:
    """How often another Python thread ran while `call` ran on this one. With a long switch
    interval, the other thread can only run while `call` has released the GIL."""
    counter = [0]
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0.0002)  # sleeping releases the GIL at once

    old = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    thread = threading.Thread(target=spin)
    thread.start()
    try:
        time.sleep(0.05)
        before = counter[0]
        call()
        after = counter[0]
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(old)
    return after - before


def test_the_gil_is_released_while_large_text_is_checked_and_held_while_objects_are_read() -> None:
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string", "pattern": "^[a-z]+[0-9]*$"}, "n": {"type": "integer"}},
        "required": ["name", "n"]}}}}
    tool = dict(TOOL, outputVariants=[TOOL["outputVariants"][0], {"audience": "programmatic", "format": "structured", "schema": schema}])
    host = ReceivedTool.accept(tool, CONN)
    big = result_with({"rows": [{"name": f"row{i}", "n": i} for i in range(90_000)]})
    text = json.dumps(big)
    start = time.perf_counter()
    host.check(REQ, text)
    assert time.perf_counter() - start < 5.0
    # JSON text is parsed and checked with the GIL released.
    released = _progress_during(lambda: host.check(REQ, text))
    assert released >= 3, "no other thread ran while large JSON text was checked"
    # The caller's objects are read where they live, with the GIL held from the read to the
    # verdict, so that no other thread changes them in between (docs/boundary.md).
    held = _progress_during(lambda: host.check(REQ, big))
    assert held <= 1, "another thread ran while the caller's objects were read"