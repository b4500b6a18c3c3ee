"""The corpus runner: one test per case id of tests/corpus/, then one per case below
MCP_OUTPUTS_EXTRA_CORPUS when set. conftest.py prints the tally lines
(`corpus python: N passed, M failed`, and `corpus python extra: ...`) and fails the session when
no case ran."""

from __future__ import annotations

from typing import Set

import pytest

import corpus

KNOWN = corpus.requirement_ids()
SEEN: Set[str] = set()
REPO_CASES, REPO_PROBLEMS = corpus.load_cases(corpus.json_files(corpus.CORPUS, True), KNOWN, SEEN)
EXTRA_DIR, EXTRA_CASES, EXTRA_PROBLEMS = corpus.load_extra(KNOWN, SEEN)


def test_corpus_lint() -> None:
    """The repository corpus has no lint problem (else no case of it runs)."""
    assert not REPO_PROBLEMS, "\n".join(REPO_PROBLEMS)
    assert REPO_CASES, "the repository corpus has no case"


@pytest.mark.parametrize("case", [] if REPO_PROBLEMS else REPO_CASES, ids=lambda c: c.id)
def test_corpus_case(case: corpus.Case) -> None:
    diff = corpus.run_case(case)
    assert diff is None, f"FAIL {case.id} ({case.file})\n{diff}"


def test_every_case_is_run() -> None:
    """N is every case object of the corpus files, counted independently of the linter."""
    raw = 0
    for file in corpus.json_files(corpus.CORPUS, True):
        value = corpus.parse_strict(file.read_text(encoding="utf-8"))
        raw += len(value) if isinstance(value, list) else 1
    assert raw == len(REPO_CASES)


if EXTRA_DIR is not None:

    def test_extra_corpus_lint() -> None:
        """Extra cases: no unknown field, no id colliding with another, at least one case."""
        assert not EXTRA_PROBLEMS, "\n".join(EXTRA_PROBLEMS)

    @pytest.mark.parametrize("case", [] if EXTRA_PROBLEMS else EXTRA_CASES, ids=lambda c: c.id)
    def test_extra_case(case: corpus.Case) -> None:
        diff = corpus.run_case(case)
        assert diff is None, f"FAIL {case.id} ({case.file})\n{diff}"
