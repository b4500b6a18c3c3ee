"""Runs the draft 2020-12 suite through the pip package (python run.py <suite dir> <out dir>
<runnable ids file>): the Python package has no bare schema API, so each group's schema is
declared as a tool's programmatic/structured variant (the core reads it: dialect, meta-schema,
`$ref`s) and each test's data is that output's structuredContent in a `respond`. Which groups are
runnable comes from suite.mjs (the file lists the runnable groups' "<file> / <group>").
Writes <out dir>/python.json: {runnable, failures: {id: what happened}}."""

import json
import os
import sys

from mcp_outputs import Connection, McpOutputsError, ServerTool

suite_dir, out_dir, runnable_file = sys.argv[1:4]
with open(runnable_file, encoding="utf-8") as f:
    runnable_groups = set(json.load(f))

conn = Connection("2026-12-01", negotiated=[])
REQUESTED = [{"audience": "programmatic", "format": "structured"}]


def declare(schema):
    return ServerTool.declare(
        {
            "name": "suite",
            "inputSchema": {"type": "object"},
            "outputVariants": [
                {"audience": "assistant", "format": "content"},
                {"audience": "programmatic", "format": "structured", "schema": schema},
            ],
        }
    )


def verdict(tool, data):
    try:
        tool.respond(conn, REQUESTED, {"outputs": [{"audience": "programmatic", "format": "structured", "structuredContent": data}]})
        return "valid"
    except McpOutputsError as e:
        return "invalid" if e.code == "schema-violation" else f"{e.code}: {e.message}"


failures = {}
runnable = 0
for name in sorted(n for n in os.listdir(suite_dir) if n.endswith(".json")):
    with open(os.path.join(suite_dir, name), encoding="utf-8") as f:
        groups = json.load(f)
    for group in groups:
        key = f"{name} / {group['description']}"
        if key not in runnable_groups:
            continue
        tests = [(f"{key} / {t['description']}", t) for t in group["tests"]]
        runnable += len(tests)
        # A variant's schema is an object (the SEP); a boolean schema is declared as the
        # equivalent {"allOf": [true | false]}.
        schema = group["schema"]
        if isinstance(schema, bool):
            schema = {"allOf": [schema]}
        try:
            tool = declare(schema)
        except McpOutputsError as e:
            for test_id, _ in tests:
                failures[test_id] = f"schema refused: {e.code}: {e.message}"
            continue
        for test_id, t in tests:
            got = verdict(tool, t["data"])
            want = "valid" if t["valid"] else "invalid"
            if got != want:
                failures[test_id] = f"expected {want}, got {got}"

with open(os.path.join(out_dir, "python.json"), "w", encoding="utf-8") as f:
    json.dump({"runnable": runnable, "failures": failures}, f, indent=1, ensure_ascii=False)
    f.write("\n")
