"""The oracle itself (tests/oracle.py): it finds the corpus's legacy outputs and it can fail."""

from __future__ import annotations

from typing import Any, Dict

import oracle


def test_the_oracle_walks_every_legacy_output_of_the_corpus() -> None:
    checks = oracle.corpus_checks()
    methods = {c[1] for c in checks}
    revisions = {c[2] for c in checks}
    assert methods == {"tools/list", "tools/call"}
    assert {"2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28"} <= revisions
    assert "2026-12-01" not in revisions  # the SDK has no model for it
    assert len(checks) >= 50


def test_the_oracle_rejects_what_the_sdk_rejects() -> None:
    # structuredContent is an object on the 2025 wire; a Tool's outputSchema is object-rooted.
    bad_result: Dict[str, Any] = {"content": [], "structuredContent": [1, 2]}
    assert oracle.validate(("bad result", "tools/call", "2025-06-18", bad_result)) is not None
    bad_tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}
    assert oracle.validate(("bad tool", "tools/list", "2025-11-25", oracle.tools_list_of(bad_tool, "2025-11-25"))) is not None
    # A 2026-07-28 tools/list without the cache fields is rejected too.
    assert oracle.validate(("no cache", "tools/list", "2026-07-28", {"resultType": "complete", "tools": []})) is not None
    good = {"content": [{"type": "text", "text": "ok"}]}
    assert oracle.validate(("good", "tools/call", "2024-11-05", good)) is None


def test_a_case_outside_the_sdk_revisions_or_expecting_an_error_is_not_checked() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    assert list(oracle.checks_of({"op": "advertise", "input": {}, "expect": {"ok": {"tool": tool}}})) == []
    assert list(oracle.checks_of({"op": "respond", "input": {"protocolVersion": "2025-06-18"}, "expect": {"error": {}}})) == []
    got = list(oracle.checks_of({"id": "x", "op": "scenario", "input": {"protocolVersion": "2025-06-18"},
                                 "expect": {"ok": {"tool": tool, "result": {"content": []}}}}))
    assert [c[1] for c in got] == ["tools/list", "tools/call"]
