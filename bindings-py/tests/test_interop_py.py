"""The Python interop endpoints (tests/interop/py/server.py and client.py, the CLI the root
interop driver pairs with the TypeScript ones), proven against each other: Python server ↔
Python client over stdio at every revision the SDK negotiates, with and without Apps, and once
over Streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import importlib
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

from mcp_outputs.sdk import SDK_REVISIONS

INTEROP = Path(__file__).resolve().parents[2] / "tests" / "interop" / "py"
SERVER = [sys.executable, str(INTEROP / "server.py")]
CLIENT = [sys.executable, str(INTEROP / "client.py")]
sys.path.insert(0, str(INTEROP))
BROKEN: str = importlib.import_module("server").catalogue()[2]["tool"]["name"]


def runs(args: List[str]) -> List[Dict[str, Any]]:
    proc = subprocess.run([*CLIENT, *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert lines, proc.stderr[-3000:]
    return lines


def assert_all_ok(lines: List[Dict[str, Any]], revision: str) -> None:
    failed = [line for line in lines if line["ok"] is not True]
    assert failed == [], failed
    assert all(line["run"].endswith(f"/{revision}") for line in lines)


# With --apps at every revision (the client also runs the conversational and code modes there),
# and once without: each run starts two processes that import the SDK, so the pairs are few.
PAIRS = [(revision, True) for revision in SDK_REVISIONS] + [("2026-07-28", False)]


@pytest.mark.parametrize("revision,apps", PAIRS)
def test_python_server_and_python_client_over_stdio(revision: str, apps: bool) -> None:
    flags = ["--apps"] if apps else []
    lines = runs(["--revision", revision, *flags, "--", *SERVER, *flags])
    assert_all_ok(lines, revision)
    names = {line["run"].split("/")[0] for line in lines}
    assert {"search_customers", "generate_images", "refresh_dashboard", "list_regions", BROKEN} <= names
    broken = [line for line in lines if line["run"].startswith(f"{BROKEN}/")]
    if revision not in ("2024-11-05", "2025-03-26"):  # no structured output before 2025-06-18 (LEG-2)
        assert all("mcpOutputsCode=schema-violation" in line["detail"] for line in broken), broken


def test_a_revision_the_sdk_cannot_pin_fails_visibly() -> None:
    lines = runs(["--revision", "2026-12-01", "--", *SERVER])
    assert lines and all(line["ok"] is False for line in lines)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_python_server_and_python_client_over_streamable_http() -> None:
    port = free_port()
    server = subprocess.Popen([*SERVER, "--http", str(port), "--apps"], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:  # until the server accepts connections
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.05)
        for revision in ["2025-11-25", "2026-07-28"]:
            lines = runs(["--revision", revision, "--apps", "--url", f"http://127.0.0.1:{port}/mcp"])
            assert_all_ok(lines, revision)
    finally:
        server.terminate()
        server.wait(timeout=10)
