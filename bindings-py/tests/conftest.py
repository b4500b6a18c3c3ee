"""Tally lines of the corpus runner, and the rule that a run with no corpus case fails."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

_TALLY: Dict[str, Dict[str, int]] = {"repo": {"passed": 0, "failed": 0}, "extra": {"passed": 0, "failed": 0}}
_KIND = {"test_corpus_case": "repo", "test_extra_case": "extra"}


def _function(nodeid: str) -> str:
    return nodeid.split("::")[-1].split("[")[0]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    kind = _KIND.get(_function(report.nodeid))
    if kind is None:
        return
    if report.when == "call":
        _TALLY[kind]["passed" if report.passed else "failed"] += 1
    elif report.failed:  # setup or teardown error
        _TALLY[kind]["failed"] += 1


def _lines() -> Dict[str, str]:
    import test_corpus as tc

    out = {}
    repo = _TALLY["repo"]
    if tc.REPO_PROBLEMS:
        out["repo"] = f"corpus python: 0 passed, {len(tc.REPO_PROBLEMS)} failed"
    else:
        out["repo"] = f"corpus python: {repo['passed']} passed, {repo['failed']} failed"
    if tc.EXTRA_DIR is not None:
        extra = _TALLY["extra"]
        if tc.EXTRA_PROBLEMS:
            out["extra"] = f"corpus python extra: 0 passed, {len(tc.EXTRA_PROBLEMS)} failed"
        else:
            out["extra"] = f"corpus python extra: {extra['passed']} passed, {extra['failed']} failed"
    return out


def _corpus_collected(session: pytest.Session) -> bool:
    return any(_function(item.nodeid) in _KIND for item in getattr(session, "items", []))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if "test_corpus" not in sys.modules:
        return
    for line in _lines().values():
        terminalreporter.write_line(line)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fails a session in which the corpus module was loaded but no case ran, or the extra
    corpus (when set) ran no case: pytest's own "no tests" exit (5) must never pass silently."""
    if "test_corpus" not in sys.modules:
        return
    import test_corpus as tc

    ran = _TALLY["repo"]["passed"] + _TALLY["repo"]["failed"]
    extra_ran = _TALLY["extra"]["passed"] + _TALLY["extra"]["failed"]
    if ran == 0 or (tc.EXTRA_DIR is not None and extra_ran == 0) or tc.EXTRA_PROBLEMS or tc.REPO_PROBLEMS:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
