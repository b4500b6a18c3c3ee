"""Typing: the Literal types equal the native module's lists (built from the core's own
constants, e.g. ErrorCode::ALL), the stubs match the module (mypy.stubtest), and typed code using
the package passes mypy --strict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, get_args

import mcp_outputs
from mcp_outputs import ReceivedTool, ServerTool, types
from mcp_outputs.types import (
    ContentBlock,
    ContentToolResultOutput,
    ContentToolResultVariant,
    JsonValue,
    ProducedOutputs,
    StructuredToolResultOutput,
    StructuredToolResultVariant,
    ToolDeclaration,
    ToolResultOutput,
    ToolResultVariant,
)

ROOT = Path(__file__).resolve().parents[1]


def test_error_code_literal_equals_the_rust_list() -> None:
    assert get_args(types.ErrorCode) == mcp_outputs.ERROR_CODES
    assert len(mcp_outputs.ERROR_CODES) == len(set(mcp_outputs.ERROR_CODES)) == 26


def test_other_literals_equal_the_rust_lists() -> None:
    assert get_args(types.ProtocolVersion) == mcp_outputs.PROTOCOL_VERSIONS
    assert get_args(types.Mode) == mcp_outputs.MODES
    assert mcp_outputs.LATEST_PROTOCOL_VERSION == mcp_outputs.PROTOCOL_VERSIONS[-1]


def test_package_version_is_the_cargo_version() -> None:
    cargo = (ROOT.parent / "Cargo.toml").read_text(encoding="utf-8")
    version = next(line.split('"')[1] for line in cargo.splitlines() if line.startswith("version = "))
    assert mcp_outputs.__version__ == version


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_stubs_match_the_runtime() -> None:
    proc = run("-m", "mypy.stubtest", "mcp_outputs", "--allowlist", "tests/stubtest-allowlist.txt")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_typed_code_passes_mypy_strict() -> None:
    proc = run("-m", "mypy", "--strict", "--no-incremental", "examples", "python/mcp_outputs", "tests", "bench")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_interop_endpoints_pass_mypy_strict() -> None:
    # A run of their own: they are top-level scripts (server.py, client.py) beside each other.
    endpoints = ROOT.parent / "tests" / "interop" / "py"
    proc = run("-m", "mypy", "--strict", "--no-incremental", str(endpoints / "server.py"), str(endpoints / "client.py"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_rejects_a_wrong_error_code() -> None:
    """The stubs are precise enough to catch a typo (the check above cannot pass vacuously)."""
    proc = run(
        "-m", "mypy", "--strict", "--no-incremental", "-c",
        "import mcp_outputs\n"
        "def f(e: mcp_outputs.McpOutputsError) -> bool:\n"
        "    return e.code == 'schema-violaton'\n"
        "from mcp_outputs.types import ErrorCode\n"
        "x: ErrorCode = 'schema-violaton'\n",
    )
    assert proc.returncode == 1 and "schema-violaton" in proc.stdout, proc.stdout


def test_readme_example_runs() -> None:
    proc = run("examples/server_and_client.py")
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stdout + proc.stderr


def test_readme_python_block_runs() -> None:
    """The README's Python example runs as written (it cannot drift from the API)."""
    import re

    # The SDK adapter's page has its own test (tests/test_sdk.py).
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("## With the official MCP Python SDK")[0]
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "README.md", "exec"), {})


def test_repository_readme_python_block_runs() -> None:
    """The repository README's Python example runs as written too."""
    import re

    text = (ROOT.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "README.md", "exec"), {})


# A variant and an output are the SEP's unions, discriminated by ``format``. The functions below
# are checked by the mypy --strict run above: narrowing on ``format`` types each side's fields.


def blocks_of(output: ToolResultOutput) -> Optional[List[ContentBlock]]:
    if output["format"] == "content":
        side: ContentToolResultOutput = output
        return side["content"]
    structured: StructuredToolResultOutput = output
    assert structured["format"] == "structured"
    return None


def value_of(output: ToolResultOutput) -> JsonValue:
    if output["format"] == "structured":
        return output["structuredContent"]
    return output["content"]


def schema_of(variant: ToolResultVariant) -> Optional[Dict[str, Any]]:
    if variant["format"] == "structured":
        side: StructuredToolResultVariant = variant
        return side.get("schema")
    content: ContentToolResultVariant = variant
    assert content["format"] == "content"
    return None


def test_narrowing_on_format_reads_each_side_of_the_unions() -> None:
    declaration: ToolDeclaration = {
        "name": "t",
        "inputSchema": {"type": "object"},
        "outputVariants": [
            {"audience": "assistant", "format": "content"},
            {"audience": "programmatic", "format": "structured", "schema": {"type": "object"}},
        ],
    }
    produced: ProducedOutputs = {
        "outputs": [
            {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "1"}]},
            {"audience": "programmatic", "format": "structured", "structuredContent": {"n": 1}},
        ]
    }
    conn = mcp_outputs.Connection("2026-12-01")
    tool = ServerTool.declare(declaration)
    variants = tool.advertise(conn)["outputVariants"]
    assert [schema_of(v) for v in declaration["outputVariants"]] == [None, {"type": "object"}]
    requested: List[types.Selector] = [{"audience": "programmatic", "format": "structured"}]
    route = ReceivedTool.accept(tool.advertise(conn), conn).route(requested, tool.respond(conn, requested, produced))
    assert "resultType" not in route
    assert [value_of(o) for o in route["programmatic"]] == [{"n": 1}]
    assert [blocks_of(o) for o in produced["outputs"]] == [[{"type": "text", "text": "1"}], None]
    assert len(variants) == 2


# Each line below must be a mypy error: the unions refuse what the SEP's types refuse.
_EXPECTED_ERRORS = """\
from typing import List
from mcp_outputs.types import (
    ContentBlock, ContentToolResultOutput, JsonValue, OutputVariant, ProducedOutputs, ToolResultOutput, ToolResultVariant,
)
def ok(output: ToolResultOutput) -> None: ...
a: ToolResultOutput = {"audience": "user", "format": "content", "content": [], "structuredContent": {}}  # E
b: ToolResultOutput = {"audience": "user", "format": "structured", "structuredContent": 1, "content": []}  # E
c: ToolResultOutput = {"audience": "user", "format": "structured"}  # E
d: ToolResultOutput = {"audience": "user", "format": "content"}  # E
e: ContentToolResultOutput = {"audience": "user", "format": "structured", "content": []}  # E
f: ToolResultOutput = {"audience": "user", "format": "text", "content": []}  # E
g: ToolResultOutput = {"audience": "user", "content": []}  # E
h: ProducedOutputs = {"outputs": [{"audience": "user", "format": "content", "content": [], "structuredContent": 1}]}  # E
i: ToolResultVariant = {"audience": "user", "format": "content", "schema": {}}  # E
j: OutputVariant = {"audience": "user", "format": "content", "schema": {}}  # E
def unnarrowed(output: ToolResultOutput) -> List[ContentBlock]:
    return output["content"]  # E
def wrong_side(output: ToolResultOutput) -> JsonValue:
    if output["format"] == "content":
        return output["structuredContent"]  # E
    return output["structuredContent"]
"""


def test_mypy_refuses_what_the_unions_refuse() -> None:
    """Each line marked ``# E`` is an error, and no other line is (the unions are not too loose,
    and the valid lines around them type-check)."""
    proc = run("-m", "mypy", "--strict", "--no-incremental", "--show-error-codes", "-c", _EXPECTED_ERRORS)
    lines = _EXPECTED_ERRORS.splitlines()
    expected = {n for n, line in enumerate(lines, 1) if line.endswith("# E")}
    reported = {int(line.split(":")[1]) for line in proc.stdout.splitlines() if ": error:" in line}
    assert proc.returncode == 1 and reported == expected, proc.stdout
