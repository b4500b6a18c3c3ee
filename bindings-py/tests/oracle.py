"""The outside oracle: every legacy-revision wire object the corpus expects the server to send
is validated against the official Python SDK's per-revision wire models,
``mcp_types.methods.validate_server_result(method, revision, result)`` (``mcp`` 2.x).

Walked: the cases of ``tests/corpus/`` whose op is ``advertise``, ``list``, ``respond`` or
``scenario``, whose ``protocolVersion`` is a revision before 2026-12-01 (absent means 2026-12-01,
which the SDK does not know), and whose expectation is ``ok``. Checked:
- ``advertise`` / ``scenario``: the advertised Tool, as the one entry of a ``tools/list`` result
  (with the envelope the revision requires: ``resultType``, ``ttlMs``, ``cacheScope`` from
  2026-07-28 on, as the SDK server adds them);
- ``list``: the whole ``tools/list`` result;
- ``respond`` / ``scenario``: the ``CallToolResult``.

Prints ``oracle: N passed, M failed`` and exits 1 when M > 0 or N == 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

from mcp_types import methods
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus"
DEFAULT_REVISION = "2026-12-01"

# One check: (label, method, revision, result).
Check = Tuple[str, str, str, Dict[str, Any]]


def tools_list_of(tool: Dict[str, Any], revision: str) -> Dict[str, Any]:
    """A tools/list result holding one Tool, with the envelope the revision requires."""
    result: Dict[str, Any] = {"tools": [tool]}
    if revision in MODERN_PROTOCOL_VERSIONS:
        result.update({"resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
    return result


def checks_of(case: Dict[str, Any]) -> Iterator[Check]:
    op = case.get("op")
    inp = case.get("input") or {}
    ok = (case.get("expect") or {}).get("ok")
    revision = inp.get("protocolVersion", DEFAULT_REVISION)
    if not isinstance(ok, dict) or revision not in KNOWN_PROTOCOL_VERSIONS:
        return
    cid = case.get("id", "?")
    if op in ("advertise", "scenario") and isinstance(ok.get("tool"), dict):
        yield (f"{cid} tool", "tools/list", revision, tools_list_of(ok["tool"], revision))
    if op == "list" and isinstance(ok.get("result"), dict):
        yield (f"{cid} tools/list", "tools/list", revision, ok["result"])
    if op in ("respond", "scenario") and isinstance(ok.get("result"), dict):
        yield (f"{cid} result", "tools/call", revision, ok["result"])


def corpus_checks(root: Path = CORPUS) -> List[Check]:
    out: List[Check] = []
    for path in sorted(root.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, list):
            continue  # requirements.json and other non-case files
        for case in data:
            if isinstance(case, dict):
                out.extend(checks_of(case))
    return out


def validate(check: Check) -> str | None:
    """None when the SDK accepts the result, else why not."""
    _, method, revision, result = check
    try:
        methods.validate_server_result(method, revision, result)
    except (ValidationError, KeyError, ValueError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def main() -> int:
    checks = corpus_checks()
    failed = 0
    for check in checks:
        problem = validate(check)
        if problem is not None:
            failed += 1
            print(f"FAIL {check[0]} ({check[1]} @ {check[2]}): {problem}", file=sys.stderr)
    passed = len(checks) - failed
    print(f"oracle: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
