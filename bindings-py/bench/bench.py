"""P-PY-1 and P-PY-2, measured side by side in one run.

P-PY-1: `ReceivedTool.route` (check + route) of a CallToolResult dict whose structured output
is a 0.5 / 4 / 64 KB payload, valid and invalid, against validating the same payload with the
same schema compiled once by `jsonschema` (Draft202012Validator), `fastjsonschema` and
`jsonschema-rs` (`is_valid`). Formats are not asserted by any of them (the 2020-12 default, which
the core follows). Printed ratio: the other library's time / ours (higher is better; goals
>= 100x, >= 1x, and >= 0.67x for "within 1.5x" of jsonschema-rs).

P-PY-2: `ReceivedTool.route` of the result as raw JSON bytes against `json.loads` of the same
bytes. Printed ratio: our time / json.loads's (lower is better; goal <= 3x).
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


def main() -> int:
    conn = Connection()
    host = ReceivedTool.accept(TOOL, conn)
    draft = jsonschema.Draft202012Validator(SCHEMA)  # no format_checker: formats not asserted
    fast = fastjsonschema.compile(SCHEMA, use_formats=False)
    rs = jsonschema_rs.validator_for(SCHEMA, validate_formats=False)

    def fast_valid(v: Any) -> bool:
        try:
            fast(v)
            return True
        except fastjsonschema.JsonSchemaException:
            return False

    def ours(result: Any, expect_valid: bool) -> Callable[[], Any]:
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
    for label, size in (("0.5KB", 512), ("4KB", 4096), ("64KB", 65536)):
        for valid in (True, False):
            value = payload(size, valid)
            # All four agree on the verdict before anything is timed.
            verdicts = {draft.is_valid(value), fast_valid(value), rs.is_valid(value)}
            assert verdicts == {valid}, (label, valid, verdicts)
            ours_call = ours(result_of(value), valid)
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
                print(f"bench P-PY-1/{name} {label}-{kind}: {ratio:.2f}x", flush=True)
            times = ", ".join(f"{name} {t * 1e6:.1f}" for (name, _), t in zip(others, t_others))
            print(f"#   us per call: ours {t_ours * 1e6:.1f}, {times}", flush=True)

    print("# P-PY-2: our time / json.loads's, route of the raw result bytes (lower is better; goal <= 3x)")
    for label, size in (("0.5KB", 512), ("4KB", 4096), ("64KB", 65536)):
        for valid in (True, False):
            raw = json.dumps(result_of(payload(size, valid))).encode()
            call = ours(raw, valid)
            t_ours, t_loads = per_call(call, lambda: json.loads(raw))
            kind = "valid" if valid else "invalid"
            print(f"bench P-PY-2 {label}-{kind}: {t_ours / t_loads:.2f}x", flush=True)
            print(f"#   ours {t_ours * 1e6:.1f} us, json.loads {t_loads * 1e6:.1f} us ({len(raw)} bytes)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
