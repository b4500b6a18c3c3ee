"""The Python driver of the differential test (tests/conformance/src/bin/differential.rs).

Runs every generated case (one JSON line each, its ``expect`` being the Rust core's answer)
through the package exactly as the corpus runner does (``mcp_outputs.run``), checks it with the
runner's own comparison (``corpus.run_case``), and writes one outcome line per case:
``{"id", "lang": "python", "outcomes": [{"label", "ok"} | {"label", "error": {"code", "jsonrpc"?}}],
"runner": null | "<the runner's difference>"}``. An exception that is not an McpOutputsError is
an outcome too (code ``untyped: ...``), so it shows up as a mismatch instead of stopping the run.

Usage: python tests/differential.py <cases.jsonl> <outcomes.jsonl>
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402  (the runner lives next to this file)

import mcp_outputs  # noqa: E402


def outcome(op: str, case_input: Dict[str, Any]) -> Dict[str, Any]:
    try:
        return {"label": "run", "ok": mcp_outputs.run(op, case_input)}
    except mcp_outputs.McpOutputsError as e:
        error: Dict[str, Any] = {"code": e.code}
        if e.jsonrpc_code is not None:
            error["jsonrpc"] = e.jsonrpc_code
        return {"label": "run", "error": error}
    except Exception as e:  # noqa: BLE001  (any other exception is the finding)
        return {"label": "run", "error": {"code": f"untyped: {type(e).__name__}: {e}"}}


def as_case(line: Dict[str, Any]) -> corpus.Case:
    expect = line["expect"]
    ok: Optional[Dict[str, Any]] = expect.get("ok")
    err = expect.get("error") or {}
    return corpus.Case(line["id"], line["op"], line["input"], ok, err.get("code"), err.get("jsonrpc"), Path("<generated>"))


def main(argv: List[str]) -> int:
    if len(argv) != 3:
        print("usage: python tests/differential.py <cases.jsonl> <outcomes.jsonl>", file=sys.stderr)
        return 2
    count = 0
    with open(argv[1], encoding="utf-8") as cases, open(argv[2], "w", encoding="utf-8") as out:
        for text in cases:
            if not text.strip():
                continue
            line = json.loads(text)
            got = outcome(line["op"], line["input"])
            try:
                runner = corpus.run_case(as_case(line))
            except Exception as e:  # noqa: BLE001
                runner = f"threw {type(e).__name__}: {e}"
            try:
                record = json.dumps({"id": line["id"], "lang": "python", "outcomes": [got], "runner": runner}, allow_nan=False)
            except ValueError as e:
                error = {"code": f"unserialisable: {e}"}
                record = json.dumps({"id": line["id"], "lang": "python", "outcomes": [{"label": "run", "error": error}], "runner": runner})
            out.write(record + "\n")
            count += 1
    print(f"differential python: {count} cases run")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
