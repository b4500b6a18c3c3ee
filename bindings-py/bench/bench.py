"""P-PY-1, P-PY-2 and P-PY-4, measured side by side in one run.

P-PY-1: `ReceivedTool.route` (check + route) of a CallToolResult dict whose structured output
is a 0.5 / 4 / 64 KB payload, valid and invalid, against validating the same payload with the
same schema compiled once by `jsonschema` (Draft202012Validator), `fastjsonschema` and
`jsonschema-rs` (`is_valid`). Formats are not asserted by any of them (the 2020-12 default, which
the core follows). Printed ratio: the other library's time / ours (higher is better; goals
>= 100x, >= 1x, and >= 0.67x for "within 1.5x" of jsonschema-rs).

P-PY-2: `ReceivedTool.route` of the result as raw JSON bytes against `json.loads` of the same
bytes. Printed ratio: our time / json.loads's (lower is better; goal <= 3x).

P-PY-4: `ReceivedTool.route` of the dict result against the plain Python host handler of
plain_handler.py (what an SDK maintainer would write instead: exact selectors, content blocks'
`type`/`text`, jsonschema-rs on each payload, routing by audience; no limits, no `_meta`).
Printed ratio: our time / the handler's (lower is better; goals <= 2x at 0.5 KB, <= 1.3x at 4 and
64 KB). Before anything is timed, the handler must agree with the package on a set of envelope
cases and on every bench payload (accept the valid ones, refuse the invalid ones, route the same
outputs to the same lists); the bench aborts if not.

P-PY-1 and P-PY-4 run over two payload shapes: today's records (lines without a prefix) and
`leaves-`: light records of six short scalars whose schema checks types only (about 1,000 records
at 64 KB; the same records as the JS bench's), where the validator is cheapest and any per-node
cost of ours shows.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Callable, Dict, List

import fastjsonschema
import jsonschema  # type: ignore[import-untyped]
import jsonschema_rs

from mcp_outputs import Connection, McpOutputsError, ReceivedTool
from plain_handler import Handler, plain_handler

SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "total": {"type": "integer", "minimum": 0},
        "next": {"type": ["string", "null"]},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "pattern": "^c[0-9]+$"},
                    "name": {"type": "string", "minLength": 1},
                    "email": {"type": "string", "format": "email"},
                    "created": {"type": "string", "format": "date-time"},
                    "score": {"type": "number", "minimum": 0, "maximum": 100},
                    "active": {"type": "boolean"},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
                },
                "required": ["id", "name", "email", "score", "active"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["items", "total"],
}

TOOL = {
    "name": "search_customers",
    "inputSchema": {"type": "object"},
    "outputVariants": [
        {"audience": "assistant", "format": "content"},
        {"audience": "programmatic", "format": "structured", "schema": SCHEMA},
    ],
}
REQUESTED = [{"audience": "programmatic", "format": "structured"}]

# The many-leaf shape: types only (no required, no formats, no patterns).
LEAF_SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "qty": {"type": "integer"},
                    "price": {"type": "number"},
                    "ok": {"type": "boolean"},
                    "code": {"type": "string"},
                    "rank": {"type": "integer"},
                },
            },
        },
        "total": {"type": "integer"},
    },
}
LEAF_TOOL = {
    "name": "list_rows",
    "inputSchema": {"type": "object"},
    "outputVariants": [
        {"audience": "assistant", "format": "content"},
        {"audience": "programmatic", "format": "structured", "schema": LEAF_SCHEMA},
    ],
}


def payload(target_bytes: int, valid: bool) -> Dict[str, Any]:
    items: List[Dict[str, Any]] = []
    value: Dict[str, Any] = {"total": 0, "next": None, "items": items}
    i = 0
    while len(json.dumps(value)) < target_bytes:
        items.append({
            "id": f"c{i}", "name": f"Customer {i}", "email": f"c{i}@example.com",
            "created": "2026-12-01T10:00:00Z", "score": (i * 7.5) % 100, "active": i % 2 == 0,
            "tags": ["vip", "eu"] if i % 3 == 0 else [],
        })
        i += 1
        value["total"] = i
    if not valid:
        items[-1]["score"] = "high"  # one error, at the end: every validator walks the payload
    return value


def leaf_payload(target_bytes: int, valid: bool) -> Dict[str, Any]:
    """The JS bench's leafPayload: the result's compact JSON text is about `target_bytes` long."""
    items: List[Dict[str, Any]] = []
    value: Dict[str, Any] = {"items": items, "total": 0}
    i = 0
    while len(json.dumps(result_of(value), separators=(",", ":"))) < target_bytes:
        items.append({"id": i, "qty": i % 17, "price": (i % 40) + 0.5, "ok": i % 3 != 0, "code": f"k{i % 100}", "rank": i % 9})
        i += 1
        value["total"] = i
    if not valid:
        items[-1]["qty"] = "7"  # one error, at the end
    return value


def result_of(value: Dict[str, Any]) -> Dict[str, Any]:
    return {"resultType": "complete", "outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": value}]}


def calibrate(fn: Callable[[], Any]) -> int:
    """Loops per measurement so that one takes ~30 ms."""
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        if time.perf_counter() - start > 0.03:
            return loops
        loops *= 2


def per_call(*fns: Callable[[], Any], rounds: int = 9) -> List[float]:
    """Best time per call of each function, in seconds. The functions are measured in turn,
    round after round, so that a slow spell of the machine hits all of them alike."""
    loops = [calibrate(fn) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(loops[i]):
                fn()
            best[i] = min(best[i], (time.perf_counter() - start) / loops[i])
    return best


SIZES = (("0.5KB", 512), ("4KB", 4096), ("64KB", 65536))
# (line prefix, tool, its structured schema, payload maker)
SHAPES = (("", TOOL, SCHEMA, payload), ("leaves-", LEAF_TOOL, LEAF_SCHEMA, leaf_payload))


def route_lists(route: Any) -> Any:
    return [route["model"], route["user"], route["programmatic"]]


def plain_guard(conn: Connection) -> None:
    """The plain handler agrees with the package on envelope cases, or the bench aborts."""
    host = ReceivedTool.accept(TOOL, conn)
    plain = plain_handler(TOOL)
    text = {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "3 customers"}]}
    data = result_of(payload(512, True))["outputs"][0]
    both = [{"audience": "assistant", "format": "content"}, REQUESTED[0]]
    image = {"type": "image", "data": "AA==", "mimeType": "image/png"}
    ok = [
        (both, {"outputs": [data, text]}),
        (both, {"outputs": [text, data]}),
        (REQUESTED, {"outputs": [data]}),
        ([both[0]], {"outputs": [{**text, "content": [image, text["content"][0]]}]}),
    ]
    refused = [
        ("missing output", both, {"outputs": [data]}),
        ("extra output", REQUESTED, {"outputs": [data, text]}),
        ("duplicate output", both, {"outputs": [data, text, data]}),
        ("content block not an object", both, {"outputs": [data, {**text, "content": ["hi"]}]}),
        ("content block without a type", both, {"outputs": [data, {**text, "content": [{"text": "hi"}]}]}),
        ("text block without a text", both, {"outputs": [data, {**text, "content": [{"type": "text", "text": 3}]}]}),
        ("invalid payload", REQUESTED, result_of(payload(512, False))),
    ]
    for requested, result in ok:
        try:
            theirs = route_lists(plain(requested, result))
        except ValueError as e:
            raise SystemExit(f"P-PY-4 guard: plain handler refused a valid result: {e}; nothing timed") from e
        if theirs != route_lists(host.route(requested, result)):
            raise SystemExit("P-PY-4 guard: plain handler routes differently from the package; nothing timed")
    for what, requested, result in refused:
        try:
            host.route(requested, result)
            raise SystemExit(f"P-PY-4 guard: the package accepted the {what} case (the guard's case is wrong)")
        except McpOutputsError:
            pass
        try:
            plain(requested, result)
        except ValueError:
            continue
        raise SystemExit(f"P-PY-4 guard: plain handler accepted the {what} case; nothing timed")


def main() -> int:
    conn = Connection()

    def ours(host: ReceivedTool, result: Any, expect_valid: bool) -> Callable[[], Any]:
        def call() -> Any:
            try:
                return host.route(REQUESTED, result)
            except McpOutputsError as e:
                if expect_valid or e.code != "schema-violation":
                    raise
                return None
        return call

    print("# P-PY-1: other library's time / ours, check + route of a dict result (higher is better)")
    print("#   goals: jsonschema >= 100x, fastjsonschema >= 1x, jsonschema-rs >= 0.67x (within 1.5x)")
    for prefix, tool, schema, make in SHAPES:
        host = ReceivedTool.accept(tool, conn)
        draft = jsonschema.Draft202012Validator(schema)  # no format_checker: formats not asserted
        fast = fastjsonschema.compile(schema, use_formats=False)
        rs = jsonschema_rs.validator_for(schema, validate_formats=False)

        def fast_valid(v: Any, fast: Callable[[Any], Any] = fast) -> bool:
            try:
                fast(v)
                return True
            except fastjsonschema.JsonSchemaException:
                return False

        for label, size in SIZES:
            for valid in (True, False):
                value = make(size, valid)
                # All four agree on the verdict before anything is timed.
                verdicts = {draft.is_valid(value), fast_valid(value), rs.is_valid(value)}
                assert verdicts == {valid}, (label, valid, verdicts)
                ours_call = ours(host, result_of(value), valid)
                if valid:
                    assert ours_call() is not None
                else:
                    assert ours_call() is None
                kind = "valid" if valid else "invalid"
                others = (
                    ("jsonschema", lambda: draft.is_valid(value)),
                    ("fastjsonschema", lambda: fast_valid(value)),
                    ("jsonschema-rs", lambda: rs.is_valid(value)),
                )
                t_ours, *t_others = per_call(ours_call, *(fn for _, fn in others))
                for (name, _), t_other in zip(others, t_others):
                    ratio = t_other / t_ours
                    print(f"bench P-PY-1/{name} {prefix}{label}-{kind}: {ratio:.2f}x", flush=True)
                times = ", ".join(f"{name} {t * 1e6:.1f}" for (name, _), t in zip(others, t_others))
                print(f"#   us per call: ours {t_ours * 1e6:.1f}, {times}", flush=True)

    print("# P-PY-2: our time / json.loads's, route of the raw result bytes (lower is better; goal <= 3x)")
    host = ReceivedTool.accept(TOOL, conn)
    for label, size in SIZES:
        for valid in (True, False):
            raw = json.dumps(result_of(payload(size, valid))).encode()
            call = ours(host, raw, valid)
            t_ours, t_loads = per_call(call, lambda: json.loads(raw))
            kind = "valid" if valid else "invalid"
            print(f"bench P-PY-2 {label}-{kind}: {t_ours / t_loads:.2f}x", flush=True)
            print(f"#   ours {t_ours * 1e6:.1f} us, json.loads {t_loads * 1e6:.1f} us ({len(raw)} bytes)", flush=True)

    print("# P-PY-4: our time / the plain handler's (plain_handler.py), route of a dict result (lower is better)")
    print("#   goals: <= 2x at 0.5 KB, <= 1.3x at 4 and 64 KB")
    plain_guard(conn)
    for prefix, tool, _, make in SHAPES:
        host = ReceivedTool.accept(tool, conn)
        plain = plain_handler(tool)
        for label, size in SIZES:
            for valid in (True, False):
                result = result_of(make(size, valid))
                kind = "valid" if valid else "invalid"
                try:
                    mine: Any = route_lists(host.route(REQUESTED, result))
                except McpOutputsError:
                    mine = None
                try:
                    theirs: Any = route_lists(plain(REQUESTED, result))
                except ValueError:
                    theirs = None
                if (mine is not None) != valid or mine != theirs:
                    raise SystemExit(f"P-PY-4 guard: plain handler disagrees with the package on {prefix}{label}-{kind}; nothing timed")
                t_ours, t_plain = per_call(ours(host, result, valid), plain_call(plain, result))
                print(f"bench P-PY-4 {prefix}{label}-{kind}: {t_ours / t_plain:.2f}x ({t_ours * 1e6:.1f} µs vs {t_plain * 1e6:.1f} µs)", flush=True)
    return 0


def plain_call(plain: Handler, result: Any) -> Callable[[], Any]:
    def call() -> Any:
        try:
            return plain(REQUESTED, result)
        except ValueError:
            return None  # refused, as the package refuses it
    return call


if __name__ == "__main__":
    sys.exit(main())
