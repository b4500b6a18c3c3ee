"""Loads, lints and runs the shared conformance corpus (tests/corpus/) against the Python
binding, by the rules of the Rust runner (tests/conformance/src/lib.rs): the same case shape and
lint, the same comparison (object key order ignored, numbers by value with booleans apart, the
op's set-valued lists compared as sets)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import mcp_outputs

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus"
EXTRA_ENV = "MCP_OUTPUTS_EXTRA_CORPUS"
CASE_KEYS = ("id", "requirements", "description", "op", "input", "expect")
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass
class Case:
    id: str
    op: str
    input: Dict[str, Any]
    expect_ok: Optional[Dict[str, Any]]
    expect_code: Optional[str]
    expect_jsonrpc: Optional[int]
    file: Path


class StrictError(ValueError):
    pass


def _no_duplicates(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise StrictError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _check_surrogates(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any(0xD800 <= ord(ch) <= 0xDFFF for ch in item):
                raise StrictError("a lone surrogate")
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append(key)
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)


def parse_strict(text: str) -> Any:
    """JSON without duplicate keys or lone surrogates (the contract's file rules)."""
    value = json.loads(text, object_pairs_hook=_no_duplicates)
    _check_surrogates(value)
    return value


def json_files(directory: Path, skip_top: bool) -> List[Path]:
    """Every *.json below ``directory``, sorted; with ``skip_top``, none directly in it."""
    out = []
    for root, _dirs, files in os.walk(directory):
        top = Path(root) == directory
        for name in files:
            if name.endswith(".json") and not (skip_top and top):
                out.append(Path(root) / name)
    return sorted(out)


def requirement_ids() -> Set[str]:
    value = parse_strict((CORPUS / "requirements.json").read_text(encoding="utf-8"))
    return {r["id"] for r in value["requirements"]}


def lint_case(value: Any, known: Set[str]) -> Case:
    if not isinstance(value, dict):
        raise StrictError("a case must be an object")
    unknown = [k for k in value if k not in CASE_KEYS]
    if unknown:
        raise StrictError(f"unknown case fields {unknown}")
    for key in CASE_KEYS:
        if key not in value:
            raise StrictError(f"missing case field {key}")
    case_id = value["id"]
    if not isinstance(case_id, str):
        raise StrictError("id must be a string")
    if not KEBAB.match(case_id):
        raise StrictError(f"id {case_id!r} is not kebab-case")
    reqs = value["requirements"]
    if not isinstance(reqs, list) or not reqs:
        raise StrictError(f"{case_id}: requirements must be a non-empty array")
    for req in reqs:
        if not isinstance(req, str):
            raise StrictError(f"{case_id}: requirement ids are strings")
        if req not in known:
            raise StrictError(f"{case_id}: cites unknown requirement {req}")
    description = value["description"]
    if not isinstance(description, str) or not description.strip():
        raise StrictError(f"{case_id}: description must be a non-empty string")
    op = value["op"]
    if not isinstance(op, str):
        raise StrictError(f"{case_id}: op must be a string")
    if op not in mcp_outputs.OPERATIONS:
        raise StrictError(f"{case_id}: unknown op {op!r}")
    fields = mcp_outputs.OPERATIONS[op]
    case_input = value["input"]
    if not isinstance(case_input, dict):
        raise StrictError(f"{case_id}: input must be an object")
    for key in case_input:
        if key not in fields and key not in mcp_outputs.COMMON_FIELDS:
            raise StrictError(f"{case_id}: input field {key!r} is not one of op {op}")
    expect = value["expect"]
    ok: Optional[Dict[str, Any]] = None
    code: Optional[str] = None
    jsonrpc: Optional[int] = None
    if isinstance(expect, dict) and list(expect) == ["ok"]:
        ok = expect["ok"]
        if not isinstance(ok, dict):
            raise StrictError(f"{case_id}: expect.ok must be an object")
    elif isinstance(expect, dict) and list(expect) == ["error"]:
        err = expect["error"]
        if not isinstance(err, dict):
            raise StrictError(f"{case_id}: expect.error must be an object")
        for key in err:
            if key not in ("code", "jsonrpc"):
                raise StrictError(f"{case_id}: unknown field {key!r} in expect.error")
        code = err.get("code")
        if not isinstance(code, str):
            raise StrictError(f"{case_id}: expect.error.code must be a string")
        if code not in mcp_outputs.ERROR_CODES:
            raise StrictError(f"{case_id}: unknown error code {code!r}")
        if "jsonrpc" in err:
            rpc = err["jsonrpc"]
            integral = type(rpc) is int or (type(rpc) is float and rpc.is_integer())
            if not integral:
                raise StrictError(f"{case_id}: expect.error.jsonrpc must be an integer")
            jsonrpc = int(rpc)
    else:
        raise StrictError(f'{case_id}: expect must be exactly {{"ok": ...}} or {{"error": ...}}')
    return Case(case_id, op, case_input, ok, code, jsonrpc, Path())


def load_cases(files: Sequence[Path], known: Set[str], seen: Set[str]) -> Tuple[List[Case], List[str]]:
    """Linted cases and the lint problems (a case with a problem is not run)."""
    cases: List[Case] = []
    problems: List[str] = []
    for file in files:
        try:
            value = parse_strict(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            problems.append(f"{file}: {e}")
            continue
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            try:
                case = lint_case(item, known)
            except StrictError as e:
                problems.append(f"{file}[{i}]: {e}")
                continue
            if case.id in seen:
                problems.append(f"{file}[{i}]: duplicate id {case.id}")
                continue
            seen.add(case.id)
            case.file = file
            cases.append(case)
    return cases, problems


def load_extra(known: Set[str], seen: Set[str]) -> Tuple[Optional[Path], List[Case], List[str]]:
    """The cases below MCP_OUTPUTS_EXTRA_CORPUS (None when unset); an empty dir is a problem."""
    raw = os.environ.get(EXTRA_ENV, "")
    if not raw:
        return None, [], []
    directory = Path(raw)
    if not directory.is_dir():
        return directory, [], [f"{directory}: not a directory"]
    cases, problems = load_cases(json_files(directory, False), known, seen)
    if not cases and not problems:
        problems.append(f"no case found below {directory}")
    return directory, cases, problems


# ---- comparison ------------------------------------------------------------------------------


def _is_number(x: Any) -> bool:
    return type(x) is int or type(x) is float


def set_paths(op: str) -> Tuple[str, ...]:
    if op == "route":
        return ("/dropped", "/diagnostics")
    if op == "scenario":
        return ("/route/dropped", "/route/diagnostics")
    return ("/warnings",)


def compare(expected: Any, got: Any, path: str, sets: Sequence[str], diffs: List[str]) -> None:
    if _is_number(expected) and _is_number(got):
        if float(expected) != float(got):
            diffs.append(f"  at {path!r}: expected {expected!r}, got {got!r}")
    elif isinstance(expected, dict) and isinstance(got, dict):
        for key, value in expected.items():
            sub = f"{path}/{key}"
            if key in got:
                compare(value, got[key], sub, sets, diffs)
            else:
                diffs.append(f"  at {sub!r}: missing")
        for key in got:
            if key not in expected:
                diffs.append(f"  at {path + '/' + key!r}: unexpected")
    elif isinstance(expected, list) and isinstance(got, list) and path in sets:

        def contains(items: List[Any], item: Any) -> bool:
            for x in items:
                d: List[str] = []
                compare(item, x, "", (), d)
                if not d:
                    return True
            return False

        if not (all(contains(got, x) for x in expected) and all(contains(expected, x) for x in got)):
            diffs.append(f"  at {path!r} (a set): expected {expected!r}, got {got!r}")
    elif isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            diffs.append(f"  at {path!r}: expected {len(expected)} items, got {len(got)}")
        for i, (x, y) in enumerate(zip(expected, got)):
            compare(x, y, f"{path}/{i}", sets, diffs)
    else:
        same_kind = type(expected) is type(got) or (expected is None and got is None)
        if not same_kind or expected != got:
            diffs.append(f"  at {path!r}: expected {expected!r}, got {got!r}")


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 1500 else text[:1500] + "…"


def run_case(case: Case) -> Optional[str]:
    """None when the case passes; else the difference, expected vs got."""
    try:
        got = mcp_outputs.run(case.op, case.input)
    except mcp_outputs.McpOutputsError as e:
        if case.expect_code is None:
            return f"expected ok {_short(case.expect_ok)}\n  got error {e}"
        if e.code != case.expect_code:
            return f"expected error {case.expect_code}, got {e}"
        if case.expect_jsonrpc is not None and e.jsonrpc_code != case.expect_jsonrpc:
            return f"expected JSON-RPC {case.expect_jsonrpc}, got {e.jsonrpc_code} ({e})"
        return None
    if case.expect_code is not None:
        return f"expected error {case.expect_code}\n  got ok {_short(got)}"
    diffs: List[str] = []
    compare(case.expect_ok, got, "", set_paths(case.op), diffs)
    if diffs:
        return "\n".join(diffs) + f"\n  expected: {_short(case.expect_ok)}\n  got:      {_short(got)}"
    return None
