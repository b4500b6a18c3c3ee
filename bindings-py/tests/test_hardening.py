"""Regression tests of issue 12's hostile-input sweep, Python side (SEC-1): a raised maxDepth
never crashes (defect 1), the wire helpers never truncate silently (2), a route hands back only
what it checked (7), errors stay typed near the recursion limit (8), the regex budget (9),
negotiation under maxExtensions (10), the true length in limit messages (12); fault recovery
(R-3: a panic, 8 threads) and no memory growth over error paths."""

from __future__ import annotations

import gc
import os
import sys
import threading
import tracemalloc
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from error_paths import error_paths  # noqa: E402 - the bench's list of error paths, shared

from fixtures import REQ, TOOL, tool_with

import mcp_outputs
from mcp_outputs import Config, Connection, McpOutputsError, ReceivedTool, ServerTool
from mcp_outputs.types import InputRequiredRoute, OtherResultRoute, Route

def complete(route: Union[Route, InputRequiredRoute, OtherResultRoute]) -> Route:
    """The route of a complete result (an ``input_required`` answer fails the test)."""
    assert "resultType" not in route, route
    return route


CEILING = 1000  # core::limits::MAX_DEPTH_CEILING



def output(value: Any) -> Dict[str, Any]:
    return {"audience": "programmatic", "format": "structured", "structuredContent": value}


def result_with(value: Any) -> Dict[str, Any]:
    return {"resultType": "complete", "outputs": [output(value)]}


def nested(levels: int) -> Any:
    """`levels` nested dicts (depth `levels`)."""
    value: Any = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def nested_result_text(levels: int) -> str:
    """A result whose structured payload is `levels` nested objects, as JSON text."""
    payload = '{"a":' * (levels - 1) + "{}" + "}" * (levels - 1)
    head = '{"resultType":"complete","outputs":[{"audience":"programmatic","format":"structured","structuredContent":'
    return head + payload + "}]}"


def nested_lists(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


# ---- defect 1: a raised maxDepth -------------------------------------------------------------


@pytest.mark.parametrize("depth", [CEILING + 1, 30_000, 100_000])
def test_max_depth_over_the_ceiling_is_refused(depth: int) -> None:
    with pytest.raises(mcp_outputs.MalformedError) as info:
        Config(limits={"maxDepth": depth})
    assert info.value.path == "/limits/maxDepth"


def test_the_ceiling_depth_runs_every_path_and_deeper_is_limit_exceeded() -> None:
    config = Config(limits={"maxDepth": CEILING})
    conn = Connection(config=config)
    # A recursive schema: the validator walks the whole value.
    server = ServerTool.declare(tool_with({"type": "object", "properties": {"a": {"$ref": "#"}}}), config=config)
    host = ReceivedTool.accept(server.advertise(conn), conn)
    # The payload sits below result (1), outputs (2) and the output (3).
    payload = nested(CEILING - 3)
    result = server.respond(conn, REQ, {"outputs": [output(payload)]})
    host.check(REQ, result)
    assert complete(host.route(REQ, result))["programmatic"][0] is result["outputs"][0]
    # As text (json.dumps cannot write it: it stops at Python's recursion limit).
    text = nested_result_text(CEILING - 3)
    host.check(REQ, text)
    assert complete(host.route(REQ, text.encode()))["programmatic"]
    too_deep = result_with(nested(CEILING - 2))
    for call in (lambda: host.check(REQ, too_deep), lambda: host.route(REQ, nested_result_text(CEILING - 2)),
                 lambda: server.respond(conn, REQ, {"outputs": too_deep["outputs"]})):
        with pytest.raises(mcp_outputs.LimitExceededError):
            call()
    # 30,000 levels (a segfault before the ceiling), as values and as text.
    for deep in (nested_lists(30_000), nested(30_000)):
        with pytest.raises(mcp_outputs.LimitExceededError):
            host.check(REQ, result_with(deep))
    with pytest.raises(mcp_outputs.LimitExceededError):
        host.check(REQ, "[" * 30_000 + "]" * 30_000)


# ---- defect 2: the wire helpers never truncate silently --------------------------------------


def test_wire_helpers_refuse_what_they_used_to_truncate() -> None:
    small = Connection(config=Config(limits={"maxDepth": 5, "maxArrayLen": 10, "maxObjectLen": 10}))
    plan: Dict[str, Any] = {}
    deep = nested(6)  # one level over: it used to come back as {} at the bottom
    long = list(range(11))  # one item over: it used to come back cut
    wide = {str(i): i for i in range(11)}
    calls: List[Tuple[str, Callable[[], Any]]] = [
        ("arguments deep", lambda: small.tools_call_params("t", {"x": deep}, plan, {})),
        ("arguments long", lambda: small.tools_call_params("t", {"x": long}, plan, {})),
        ("arguments wide", lambda: small.tools_call_params("t", wide, plan, {})),
        ("caps deep", lambda: small.tools_call_params("t", None, plan, {"x": deep})),
        ("params deep", lambda: small.request_params({"x": deep}, {})),
        ("params long", lambda: small.request_params({"x": long}, {})),
        ("request caps wide", lambda: small.request_params({}, wide)),
        ("tool deep", lambda: small.tools_list_result([{"name": "t", "x": deep}])),
        ("tool long", lambda: small.tools_list_result([{"name": "t", "x": long}])),
    ]
    for what, call in calls:
        with pytest.raises(mcp_outputs.LimitExceededError):
            call()
            pytest.fail(what)
    with pytest.raises(mcp_outputs.LimitExceededError) as info:
        small.tools_list_result([{"name": "a"}, {"name": "t", "x": long}])
    assert info.value.path == "/tools/1/x"
    # Just under every limit, everything comes back whole.
    fits = small.tools_call_params("t", {"x": nested(4), "y": list(range(10))}, plan, {})
    assert fits["arguments"] == {"x": nested(4), "y": list(range(10))}


def test_wire_helpers_at_the_default_limits() -> None:
    conn = Connection()
    with pytest.raises(mcp_outputs.LimitExceededError):
        conn.tools_call_params("t", {"x": nested(129)}, {}, {})
    with pytest.raises(mcp_outputs.LimitExceededError):
        conn.request_params({"x": list(range(100_001))}, {})
    with pytest.raises(mcp_outputs.LimitExceededError):
        conn.tools_list_result([{"name": "t"}] * 10_001)
    assert conn.request_params({"x": nested(127)}, {})["x"] == nested(127)


def test_from_request_checks_the_server_capabilities() -> None:
    config = Config(limits={"maxDepth": 5})
    params = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-12-01", "io.modelcontextprotocol/clientCapabilities": {}}}
    with pytest.raises(mcp_outputs.LimitExceededError) as info:
        Connection.from_request(params, {"x": nested(6)}, config=config)
    assert info.value.jsonrpc_code == -32603


def test_from_request_values_it_cannot_read_carry_the_wire_code_of_their_side() -> None:
    # Issue 21: the core, not the binding, says whose fault an unreadable value is. Before, a
    # value the binding could not convert left with no JSON-RPC code at all.
    params = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-12-01", "io.modelcontextprotocol/clientCapabilities": {}}}
    with pytest.raises(mcp_outputs.MalformedError) as bad_params:
        Connection.from_request({**params, "x": float("nan")}, {})
    assert bad_params.value.jsonrpc_code == -32602
    with pytest.raises(mcp_outputs.MalformedError) as bad_caps:
        Connection.from_request(params, {"x": float("nan")})
    assert bad_caps.value.jsonrpc_code == -32603
    # The params' own fault comes first, as the core orders them, even when the capabilities
    # cannot be read either.
    with pytest.raises(mcp_outputs.UnsupportedProtocolVersionError) as both:
        Connection.from_request({"_meta": {"io.modelcontextprotocol/protocolVersion": "2031-01-01"}}, {"x": float("nan")})
    assert both.value.jsonrpc_code == -32022


# ---- defect 12: the true length in limit messages --------------------------------------------


def test_limit_messages_state_the_true_length() -> None:
    host = ReceivedTool.accept(TOOL, Connection(config=Config(limits={"maxArrayLen": 10, "maxObjectLen": 10})))
    with pytest.raises(mcp_outputs.LimitExceededError, match="array of 25 items exceeds the limit of 10") as info:
        host.check(REQ, result_with({"xs": list(range(25))}))
    assert info.value.path == "/outputs/0/structuredContent/xs"
    with pytest.raises(mcp_outputs.LimitExceededError, match="object of 40 members exceeds the limit of 10"):
        host.check(REQ, result_with({str(i): i for i in range(40)}))
    # Exactly one over: the core's own message was already right.
    with pytest.raises(mcp_outputs.LimitExceededError, match="array of 11 items"):
        host.check(REQ, result_with({"xs": list(range(11))}))
    # The default limit, as the sweep found it (100,001 was reported for any length).
    with pytest.raises(mcp_outputs.LimitExceededError, match="array of 250000 items"):
        ReceivedTool.accept(TOOL, Connection()).check(REQ, result_with({"xs": [0] * 250_000}))
    with pytest.raises(mcp_outputs.LimitExceededError, match="array of 30 items") as server_side:
        small = Config(limits={"maxArrayLen": 10})
        ServerTool.declare(TOOL, config=small).respond(Connection(config=small), REQ, {"outputs": [output({"xs": [1] * 30})]})
    assert server_side.value.jsonrpc_code == -32603


# ---- defect 7: a route hands back exactly what it checked ------------------------------------


def test_route_hands_back_the_checked_objects_even_if_they_are_swapped() -> None:
    host = ReceivedTool.accept(tool_with({"type": "object", "required": ["ok"]}), Connection())
    good = output({"ok": True})
    bad = output({"not": "validated"})
    outputs: List[Any] = [good]

    class Key(str):
        """A key whose comparison swaps the outputs: any lookup of the result after it was
        converted (and checked) runs it."""

        __hash__ = str.__hash__

        def __eq__(self, other: object) -> bool:
            outputs[0] = bad
            return str.__eq__(self, other)

    result: Dict[str, Any] = {Key("resultType"): "complete", Key("outputs"): outputs}
    route = complete(host.route(REQ, result))
    # Keys of a `str` subclass are not plain: the result is read once, as a snapshot, and the
    # snapshot is what is checked and handed back, whatever the comparison does afterwards.
    assert route["programmatic"] == [good]
    assert route["programmatic"][0] is not bad


def test_route_under_concurrent_mutation_never_returns_unchecked_outputs() -> None:
    host = ReceivedTool.accept(tool_with({"type": "object", "required": ["ok"]}), Connection())
    # Large enough that the check ran with the GIL released, before a route that hands back the
    # caller's outputs held it throughout (test_guarantee.py).
    good = output({"ok": True, "pad": ["x" * 64] * 400})
    bad = output({"unchecked": True})
    stop = threading.Event()
    result: Dict[str, Any] = {"resultType": "complete", "outputs": [good]}

    def mutate() -> None:
        while not stop.is_set():
            result["outputs"] = [bad]
            result["outputs"] = [good]

    thread = threading.Thread(target=mutate)
    thread.start()
    seen: List[Any] = []
    try:
        for _ in range(300):
            try:
                seen.extend(complete(host.route(REQ, result))["programmatic"])
            except mcp_outputs.SchemaViolationError:
                pass  # converted while the bad outputs were in place: rightly refused
    finally:
        stop.set()
        thread.join()
    assert seen and all(out is good for out in seen)


# ---- defect 8: typed errors near the recursion limit -----------------------------------------


def _failing_call() -> None:
    Connection("not-a-version")


def _succeeding_call() -> None:
    Connection("2025-06-18")


def _at_depth(remaining: int, call: Callable[[], Any]) -> Optional[BaseException]:
    """Runs `call` with `remaining` Python frames left before the recursion limit (measured:
    frames are counted differently across versions)."""

    def probe(n: int) -> int:
        try:
            return probe(n + 1)
        except RecursionError:
            return n

    def dive(n: int) -> Optional[BaseException]:
        if n > 0:
            return dive(n - 1)
        try:
            call()
        except BaseException as e:  # noqa: BLE001 - the test inspects it
            return e
        return None

    return dive(probe(0) - remaining)


def test_errors_near_the_recursion_limit_are_typed() -> None:
    checked = 0
    for remaining in range(1, 40):
        if _at_depth(remaining, _succeeding_call) is not None:
            continue  # nothing can be called this close to the limit
        error = _at_depth(remaining, _failing_call)
        assert isinstance(error, mcp_outputs.InvalidProtocolVersionError), (remaining, repr(error))
        assert error.code == "invalid-protocol-version" and error.path == "" and "not-a-version" in str(error)
        checked += 1
    assert checked >= 30
    # A panic reported near the limit is typed too.
    for remaining in range(1, 10):
        if _at_depth(remaining, _succeeding_call) is None:
            panic = _at_depth(remaining, mcp_outputs._mcp_outputs._panic_for_tests)
            assert isinstance(panic, mcp_outputs.InternalError) and panic.code == "internal-error", repr(panic)


# ---- defect 9: the regex budget ---------------------------------------------------------------


def test_many_backtracking_patterns_over_many_keys_are_limit_exceeded_at_once() -> None:
    import time

    patterns = {f"^(a|b)\\1-{i}$": {"type": "integer"} for i in range(100)}
    host = ReceivedTool.accept(tool_with({"type": "object", "patternProperties": patterns}), Connection())
    big = {f"key-{i:05d}-" + "ab" * 10: i for i in range(10_000)}
    start = time.perf_counter()
    with pytest.raises(mcp_outputs.LimitExceededError, match="regex budget"):
        host.check(REQ, result_with(big))
    assert time.perf_counter() - start < 10.0  # 330 s before the budget
    # A few keys fit the budget and are checked for real.
    host.check(REQ, result_with({"aa-1": 1, "zz": "free"}))
    with pytest.raises(mcp_outputs.SchemaViolationError):
        host.check(REQ, result_with({"aa-1": "not an integer"}))


def test_a_match_that_does_not_finish_is_limit_exceeded_not_a_violation() -> None:
    # Valid: no string matches the pattern, but proving it takes the engine more steps than the
    # per-match limit allows. It used to be reported as schema-violation.
    host = ReceivedTool.accept(tool_with({"type": "object", "properties": {"s": {"not": {"pattern": "^(a|a)*\\1b"}}}}), Connection())
    host.check(REQ, result_with({"s": "aaa!"}))
    with pytest.raises(mcp_outputs.LimitExceededError, match="regex budget"):
        host.check(REQ, result_with({"s": "a" * 40 + "!"}))
    server = ServerTool.declare(tool_with({"type": "object", "properties": {"s": {"not": {"pattern": "^(a|a)*\\1b"}}}}))
    with pytest.raises(mcp_outputs.LimitExceededError) as info:
        server.respond(Connection(), REQ, {"outputs": [output({"s": "a" * 40 + "!"})]})
    assert info.value.jsonrpc_code == -32603


# ---- defect 10: negotiation --------------------------------------------------------------------


def _caps(ids: List[str]) -> Dict[str, Any]:
    return {"extensions": {i: {} for i in ids}}


def test_negotiation_is_held_to_max_extensions_and_well_formed_ids() -> None:
    ids = [f"com.example/x{i}" for i in range(65)]
    with pytest.raises(mcp_outputs.LimitExceededError):
        Connection.negotiate("2025-06-18", _caps(ids), _caps(ids))
    assert len(Connection.negotiate("2025-06-18", _caps(ids[:64]), _caps(ids[:64])).negotiated) == 64
    params = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-12-01", "io.modelcontextprotocol/clientCapabilities": _caps(ids)}}
    with pytest.raises(mcp_outputs.LimitExceededError):
        Connection.from_request(params, _caps(ids))
    odd = ["__proto__", "constructor", "x", "com.example/", "com.example/ok"]
    assert Connection.negotiate("2025-06-18", _caps(odd), _caps(odd)).negotiated == ["com.example/ok"]


# ---- R-3: fault recovery -----------------------------------------------------------------------


def test_a_panic_leaves_the_interpreter_and_later_calls_fine() -> None:
    host = ReceivedTool.accept(TOOL, Connection())
    for _ in range(100):
        with pytest.raises(mcp_outputs.InternalError):
            mcp_outputs._mcp_outputs._panic_for_tests()
        host.check(REQ, result_with({"ok": 1}))
    errors: List[BaseException] = []

    def panic_in_thread() -> None:
        try:
            mcp_outputs._mcp_outputs._panic_for_tests()
        except BaseException as e:  # noqa: BLE001 - inspected below
            errors.append(e)

    threads = [threading.Thread(target=panic_in_thread) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 8 and all(isinstance(e, mcp_outputs.InternalError) for e in errors)
    output = complete(host.route(REQ, result_with({"ok": 2})))["programmatic"][0]
    assert output["format"] == "structured" and output["structuredContent"] == {"ok": 2}


def _calls(server: ServerTool, host: ReceivedTool, conn: Connection) -> List[Callable[[], Any]]:
    """Calls with small and large (GIL-releasing) inputs, succeeding and failing."""
    big = {"rows": [{"name": f"row{i}", "n": i} for i in range(2_000)]}
    bad_big = {"rows": big["rows"] + [{"name": 1, "n": "x"}]}
    calls: List[Callable[[], Any]] = [
        lambda: server.respond(conn, REQ, {"outputs": [output({"rows": []})]}),
        lambda: server.respond(conn, REQ, {"outputs": [output(big)]}),
        lambda: server.respond(conn, REQ, {"outputs": [output(bad_big)]}),
        lambda: server.respond_text(conn, None, '{"outputs": [{"audience": "assistant", "format": "content", "content": []}]}'),
        lambda: server.select(conn, REQ),
        lambda: host.route(REQ, result_with(big)),
        lambda: host.route(REQ, result_with(bad_big)),
        lambda: host.check(REQ, result_with(big)),
        lambda: host.check(REQ, '{"outputs": [' * 3),
        lambda: host.plan("code"),
        lambda: conn.tools_list_result([server]),
        lambda: conn.tools_call_params("t", {"x": nested(200)}, {}, {}),
    ]
    return calls


def _answer(call: Callable[[], Any]) -> Tuple[str, Any]:
    try:
        return ("ok", call())
    except McpOutputsError as e:
        return (e.code, (e.message, e.path, e.to_jsonrpc_error()))


def test_eight_threads_get_the_answers_of_one() -> None:
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string"}, "n": {"type": "integer"}}, "required": ["name", "n"]}}}}
    conn = Connection()
    server = ServerTool.declare(tool_with(schema))
    host = ReceivedTool.accept(server.advertise(conn), conn)
    calls = _calls(server, host, conn)
    expected = [_answer(c) for c in calls]
    assert {code for code, _ in expected} >= {"ok", "schema-violation", "malformed", "limit-exceeded"}
    mismatches: List[Tuple[int, Any]] = []
    barrier = threading.Barrier(8)

    def work(offset: int) -> None:
        barrier.wait()
        for round_ in range(20):
            for i in range(len(calls)):
                j = (i + offset + round_) % len(calls)
                got = _answer(calls[j])
                if got != expected[j]:
                    mismatches.append((j, got))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not mismatches, mismatches[:3]


# ---- memory over error paths ---------------------------------------------------------------------


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="RSS is read from /proc")
def test_error_paths_do_not_grow_memory() -> None:
    calls = error_paths()
    for _ in range(200):  # warm up: caches, interned strings, allocator pools
        for call in calls:
            call()
    gc.collect()
    tracemalloc.start()
    try:
        rss_before = _rss_bytes()
        traced_before, _ = tracemalloc.get_traced_memory()
        for _ in range(1_500):
            for call in calls:
                call()
        gc.collect()
        traced_after, _ = tracemalloc.get_traced_memory()
        rss_after = _rss_bytes()
    finally:
        tracemalloc.stop()
    # 24,000 failing calls: a leak of even 100 bytes a call would show as 2.4 MB.
    assert traced_after - traced_before < 64 * 1024, traced_after - traced_before
    assert rss_after - rss_before < 2 * 1024 * 1024, rss_after - rss_before


# ---- issue 19, item 5: small thread stacks never crash -----------------------------------------

SMALL_STACK_SCRIPT = r"""
import sys, threading
from fixtures import REQ, tool_with
from mcp_outputs import Config, Connection, ReceivedTool, ServerTool

stack, depth, max_depth, nesting = (int(a) for a in sys.argv[1:5])

def nested(levels):
    value = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value

def run():
    config = Config(limits={"maxDepth": max_depth})
    conn = Connection(config=config)
    # A recursive schema, each level behind `nesting` nested allOf: the validator recurses
    # through all of them at every level of the value.
    inner = {"type": "object", "properties": {"a": {"$ref": "#/$defs/n"}}}
    for _ in range(nesting):
        inner = {"allOf": [inner, {"type": "object"}]}
    server = ServerTool.declare(tool_with({"$defs": {"n": inner}, "$ref": "#/$defs/n"}), config=config)
    host = ReceivedTool.accept(server.advertise(conn), conn)
    out = {"audience": "programmatic", "format": "structured", "structuredContent": nested(depth)}
    result = server.respond(conn, REQ, {"outputs": [out]})
    host.check(REQ, result)
    route = host.route(REQ, result)
    print("routed", len(route["programmatic"]))

threading.stack_size(stack)
thread = threading.Thread(target=run)
thread.start()
thread.join()
"""


@pytest.mark.parametrize(
    "stack,depth,max_depth,nesting",
    [
        (65536, 125, 128, 0),  # the default limits on a 64 KiB stack (segfaulted at depth 125)
        (262144, 997, CEILING, 0),  # the ceiling on a 256 KiB stack (segfaulted)
        (262144, 997, CEILING, 4),  # 4 nested allOf per level
        (65536, 997, CEILING, 64),  # 64 per level: needed 16 MiB, more than a main thread has
    ],
)
def test_route_never_crashes_on_a_small_stack(stack: int, depth: int, max_depth: int, nesting: int) -> None:
    """Runs in a child process: a crash is an exit by signal, reported here, not the end of pytest."""
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run(
        [sys.executable, "-c", SMALL_STACK_SCRIPT, str(stack), str(depth), str(max_depth), str(nesting)],
        cwd=here, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.strip() == "routed 1"
