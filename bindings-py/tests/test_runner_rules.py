"""The corpus runner's own rules: the comparison, the tally lines, and the extra corpus
(MCP_OUTPUTS_EXTRA_CORPUS) with its lint failures, run as real pytest sessions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, List, Tuple

import pytest

import corpus

HERE = Path(__file__).resolve().parent


def diffs(expected: Any, got: Any, sets: Tuple[str, ...] = ()) -> List[str]:
    out: List[str] = []
    corpus.compare(expected, got, "", sets, out)
    return out


def test_numbers_by_value_booleans_apart() -> None:
    assert diffs({"n": 1}, {"n": 1.0}) == []
    assert diffs([2.5], [2.5]) == []
    assert diffs({"n": 1}, {"n": 2})
    assert diffs({"b": True}, {"b": 1})
    assert diffs({"b": 1}, {"b": True})
    assert diffs({"b": False}, {"b": 0})
    assert diffs(None, False)
    assert diffs("1", 1)


def test_key_order_ignored_missing_and_extra_keys_reported() -> None:
    assert diffs({"a": 1, "b": 2}, {"b": 2, "a": 1}) == []
    assert diffs({"a": 1}, {"a": 1, "b": 2})
    assert diffs({"a": 1, "b": 2}, {"a": 1})


def test_sets_only_where_the_op_says() -> None:
    sets = corpus.set_paths("route")
    assert diffs({"dropped": [{"meta": "a"}, {"meta": "b"}]}, {"dropped": [{"meta": "b"}, {"meta": "a"}]}, sets) == []
    assert diffs({"model": [1, 2]}, {"model": [2, 1]}, sets)
    assert diffs({"dropped": [{"meta": "a"}]}, {"dropped": [{"meta": "a"}, {"meta": "b"}]}, sets)
    assert corpus.set_paths("scenario") == ("/route/dropped", "/route/diagnostics")
    assert diffs({"warnings": ["x", "y"]}, {"warnings": ["y", "x"]}, corpus.set_paths("declare")) == []


def test_duplicate_keys_and_surrogates_rejected() -> None:
    with pytest.raises(ValueError):
        corpus.parse_strict('{"a": 1, "a": 2}')
    with pytest.raises(ValueError):
        corpus.parse_strict('["\\ud800"]')


GOOD = {
    "id": "extra-declare-minimal",
    "requirements": ["DECL-2"],
    "description": "A minimal declaration",
    "op": "declare",
    "input": {
        "tool": {
            "name": "t",
            "inputSchema": {"type": "object"},
            "outputVariants": [{"audience": "assistant", "format": "content"}],
        }
    },
    "expect": {"ok": {}},
}


def run_session(tmp_path: Path, cases: Any, env_dir: "Path | None" = None) -> Tuple[int, str]:
    extra = env_dir if env_dir is not None else tmp_path / "extra"
    if cases is not None:
        (extra / "area").mkdir(parents=True)
        (extra / "area" / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    else:
        extra.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, MCP_OUTPUTS_EXTRA_CORPUS=str(extra))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(HERE / "test_corpus.py")],
        cwd=HERE.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc.returncode, proc.stdout + proc.stderr


def tally(output: str) -> List[str]:
    return [line for line in output.splitlines() if line.startswith("corpus python")]


def test_extra_case_passes(tmp_path: Path) -> None:
    code, out = run_session(tmp_path, [GOOD])
    assert code == 0, out
    lines = tally(out)
    assert lines[0].startswith("corpus python: ") and lines[0].endswith(" passed, 0 failed")
    assert lines[1] == "corpus python extra: 1 passed, 0 failed"


def test_failing_extra_case_fails_the_run(tmp_path: Path) -> None:
    bad = dict(GOOD, id="extra-declare-wrong", expect={"error": {"code": "malformed"}})
    code, out = run_session(tmp_path, [GOOD, bad])
    assert code == 1, out
    assert "corpus python extra: 1 passed, 1 failed" in tally(out)
    assert "FAIL extra-declare-wrong" in out


def test_unknown_case_field_fails(tmp_path: Path) -> None:
    code, out = run_session(tmp_path, [dict(GOOD, note="x")])
    assert code == 1, out
    assert "unknown case fields" in out
    assert "corpus python extra: 0 passed, 1 failed" in tally(out)


def test_id_colliding_with_the_repository_fails(tmp_path: Path) -> None:
    repo_id = next(iter(corpus.load_cases(corpus.json_files(corpus.CORPUS, True), corpus.requirement_ids(), set())[0])).id
    code, out = run_session(tmp_path, [dict(GOOD, id=repo_id)])
    assert code == 1, out
    assert "duplicate id" in out


def test_empty_extra_dir_fails(tmp_path: Path) -> None:
    code, out = run_session(tmp_path, None)
    assert code == 1, out
    assert "no case found" in out
    assert "corpus python extra: 0 passed, 1 failed" in tally(out)


def test_no_case_ran_fails(tmp_path: Path) -> None:
    """Deselecting every case must not pass (pytest alone would exit 5 or 0)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(HERE / "test_corpus.py"), "-k", "nothing-matches-this"],
        cwd=HERE.parent,
        env={k: v for k, v in os.environ.items() if k != corpus.EXTRA_ENV},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode not in (0, 5), proc.stdout
    assert "corpus python: 0 passed, 0 failed" in proc.stdout
