"""The limits walk charges a plain value read in place what it charges the same value read as a
snapshot: `plain.rs` gives a leaf's cost from the kind its node was classified with
(`Source::leaf_cost`), the snapshot reader from the core's own read of each node. At every byte
budget around the value's cost, both forms answer alike (an in-place read over a limit is
answered by the snapshot, so a leaf charged too little in place would pass where the snapshot
refuses)."""

from __future__ import annotations

from typing import Any, Dict, Tuple

from fixtures import REQ, TOOL

from mcp_outputs import Config, Connection, McpOutputsError, ReceivedTool

LEAVES: Any = [
    "", "a", "é" * 40, "€" * 30, "😀" * 25, "x" * 300, "\u0000", "\ud7ff\ue000",
    0, -1, 2**62, 1.5, -0.0, True, False, None,
]
VALUE: Dict[str, Any] = {"leaves": LEAVES, "nested": {"s": "y" * 120, "n": [1, "zz", None, {"k": "é"}]}, "t": "t" * 50}


def outcome(host: ReceivedTool, result: Any) -> Tuple[Any, ...]:
    try:
        host.check(REQ, result)
        return ("ok",)
    except McpOutputsError as e:
        return ("error", e.code, e.path, e.message)


def test_a_leaf_costs_in_place_what_it_costs_in_a_snapshot() -> None:
    output = {"audience": "programmatic", "format": "structured", "structuredContent": VALUE}
    plain = {"outputs": [output]}
    snapshot = {"outputs": (output,)}  # a tuple is not plain: the whole result is read as a snapshot

    def host(budget: int) -> ReceivedTool:
        return ReceivedTool.accept(TOOL, Connection(config=Config(limits={"maxBytes": budget})))

    # The smallest budget the snapshot passes, found by halving.
    low, high = 1, 1 << 16
    while low < high:
        mid = (low + high) // 2
        if outcome(host(mid), snapshot) == ("ok",):
            high = mid
        else:
            low = mid + 1
    assert 500 < low < 1 << 16, low
    for budget in range(low - 40, low + 8):
        h = host(budget)
        assert outcome(h, plain) == outcome(h, snapshot), budget
    assert outcome(host(low), plain) == ("ok",)
    assert outcome(host(low - 1), plain)[:2] == ("error", "limit-exceeded")
